/*
 * common/include/tdrec/tdr_hmap.h - the hash map of tdrec: an open-addressing
 * index over the caller's array of entries, and a u64 -> u32 map built on it.
 *
 * Responsibility: every hash table of tdrec. The caller keeps its entries in
 * an array it appends to (entry 0, 1, 2, ...: entries never move index and
 * are never removed); the map finds an entry's index from its hash and a
 * caller-given key compare. Keeping the entries outside the map lets each
 * table store what it needs (the hash, sums next to the key, a string) and
 * iterate in insertion order, which is also the order reports are stable in.
 * Invariants: slot holds entry index + 1 (0 = empty); cap is a power of two
 * and at least twice the entry count (load <= 1/2) after __reserve, so a
 * probe (linear: h, h + 1, ...) always ends at an empty slot.
 * Call protocol, to find or add:
 *
 *	err = tdr_hmap__reserve(&m, 64, entry_hash, tab);  // room for one more
 *	idx = tdr_hmap__find(&m, h, entry_eq, tab, &key, &pos);
 *	if (idx == TDR_HMAP_NONE) {
 *		... append the entry at index m.cnt in tab ...
 *		idx = tdr_hmap__add(&m, pos);
 *	}
 *
 * A lookup alone needs no __reserve. __find is inline so that a call with
 * a constant eq function compiles to a direct, inlined compare (report's
 * per-sample address lookup runs through it).
 * Ownership and threads: the map owns its slot array only; single owner.
 */
#ifndef TDREC_TDR_HMAP_H
#define TDREC_TDR_HMAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tdrec/tdr_api.h"
#include "tdrec/tdr_hash.h"

/* No entry (a failed __find, an absent u64map key). */
#define TDR_HMAP_NONE UINT32_MAX

/* A zeroed struct is an empty map. */
struct tdr_hmap {
	uint32_t *slot; /* entry index + 1, 0 = empty */
	size_t cap;	/* a power of two; 0 before the first __reserve */
	size_t cnt;	/* entries indexed: 0 .. cnt - 1 */
};

/* The hash of entry idx (the one it was found by), for rebuilding the slots. */
typedef uint64_t (*tdr_hmap_hash_fn)(const void *ctx, uint32_t idx);
/* Is entry idx the one key names? */
typedef bool (*tdr_hmap_eq_fn)(const void *ctx, uint32_t idx, const void *key);

/* Out-of-line part of __reserve: double the slots (first_cap the first
 * time, a power of two) and place entries 0 .. cnt - 1 again. */
TDR_API int tdr_hmap__grow(struct tdr_hmap *m, size_t first_cap, tdr_hmap_hash_fn hash,
			   const void *ctx);

/*
 * Make room for one entry more, keeping the load at or under one half.
 * hash(ctx, i) gives the hash of entry i when the slots must be rebuilt.
 * Returns: 0 or -ENOMEM (also when the entry count reaches UINT32_MAX - 1);
 * the map is unchanged on failure.
 */
static inline int tdr_hmap__reserve(struct tdr_hmap *m, size_t first_cap, tdr_hmap_hash_fn hash,
				    const void *ctx)
{
	if ((m->cnt + 1) * 2 <= m->cap)
		return 0;
	return tdr_hmap__grow(m, first_cap, hash, ctx);
}

/*
 * The index of the entry with hash h for which eq(ctx, idx, key) holds, or
 * TDR_HMAP_NONE. *pos (may be NULL) receives the slot where that entry is,
 * or where __add would put a new one.
 */
static inline __attribute__((always_inline)) uint32_t
tdr_hmap__find(const struct tdr_hmap *m, uint64_t h, tdr_hmap_eq_fn eq, const void *ctx,
	       const void *key, size_t *pos)
{
	size_t mask, j;

	if (!m->cap) {
		if (pos)
			*pos = 0;
		return TDR_HMAP_NONE;
	}
	mask = m->cap - 1;
	for (j = h & mask; m->slot[j]; j = (j + 1) & mask) {
		if (eq(ctx, m->slot[j] - 1, key)) {
			if (pos)
				*pos = j;
			return m->slot[j] - 1;
		}
	}
	if (pos)
		*pos = j;
	return TDR_HMAP_NONE;
}

/* Index entry m->cnt (just appended by the caller) at slot pos, as returned
 * by a failed __find after __reserve. Returns the new entry's index. */
static inline uint32_t tdr_hmap__add(struct tdr_hmap *m, size_t pos)
{
	m->slot[pos] = (uint32_t)(m->cnt + 1);
	return (uint32_t)m->cnt++;
}

/* Free the slots; the map is empty (and reusable) afterwards. */
TDR_API void tdr_hmap__fini(struct tdr_hmap *m);

/* ---------------------------------------------------------------------------
 * u64 -> u32 map: for tables keyed by one integer (kernel ids, pids, tids,
 * pointers). Every u64 is a valid key; TDR_HMAP_NONE is not a valid value.
 * A zeroed struct is an empty map.
 */
struct tdr_u64map_ent {
	uint64_t key;
	uint32_t val;
};

struct tdr_u64map {
	struct tdr_hmap index;
	struct tdr_u64map_ent *ents; /* index.cnt of them, in insertion order */
	size_t ents_cap;
};

static inline bool tdr_u64map_eq(const void *ctx, uint32_t idx, const void *key)
{
	const struct tdr_u64map_ent *e = ctx;

	return e[idx].key == *(const uint64_t *)key;
}

/* The value of key, or TDR_HMAP_NONE. */
static inline uint32_t tdr_u64map__get(const struct tdr_u64map *m, uint64_t key)
{
	uint32_t i = tdr_hmap__find(&m->index, tdr_hash_u64(key), tdr_u64map_eq, m->ents, &key,
				    NULL);

	return i == TDR_HMAP_NONE ? TDR_HMAP_NONE : m->ents[i].val;
}

/* Set key's value (insert or replace). Returns 0 or -ENOMEM (map unchanged). */
TDR_API int tdr_u64map__put(struct tdr_u64map *m, uint64_t key, uint32_t val);
/* Entries, in insertion order: for i < tdr_u64map__cnt(m), m->ents[i]. */
static inline size_t tdr_u64map__cnt(const struct tdr_u64map *m)
{
	return m->index.cnt;
}
TDR_API void tdr_u64map__fini(struct tdr_u64map *m);

#endif /* TDREC_TDR_HMAP_H */
