/*
 * common/include/tdrec/tdr_arena.h - a chunk (bump) allocator, and the string
 * interner built on it.
 *
 * Responsibility: memory for many small objects that all live until one
 * moment (the end of a report, of a symbolizer, of a parse): names, inline
 * frame arrays, interned strings. Allocation takes the next bytes of the
 * current 64 KiB chunk; a request larger than a chunk gets a chunk of its
 * own, kept behind the current one so the current chunk's free tail is not
 * lost. Nothing is freed one by one.
 * The interner keeps one copy of each distinct string, so strings can be
 * compared and hashed by address, and strings borrowed from elsewhere
 * outlive their source. It finds strings through a tdr_hmap keyed by the
 * string's FNV-1a hash (tdr_hash.h).
 * Objects and lifecycle: a zeroed struct tdr_arena / tdr_intern is empty;
 * __alloc / __str add; __fini frees everything at once.
 * Ownership and threads: memory returned is owned by the arena or interner
 * and valid until its __fini; single owner, no locking.
 */
#ifndef TDREC_TDR_ARENA_H
#define TDREC_TDR_ARENA_H

#include <stddef.h>
#include <stdint.h>

#include "tdrec/tdr_api.h"
#include "tdrec/tdr_hmap.h"

/* Bytes of an ordinary chunk. */
#define TDR_ARENA_CHUNK_SZ (64u * 1024)

struct tdr_arena_chunk;

struct tdr_arena {
	struct tdr_arena_chunk *head; /* the chunk allocations come from */
};

/* sz bytes, 8-byte aligned (sz 0 gives a valid pointer). Returns NULL when
 * out of memory. */
TDR_API void *tdr_arena__alloc(struct tdr_arena *a, size_t sz);
/* A NUL-terminated copy of the n bytes at s (s need not be terminated). */
TDR_API char *tdr_arena__strndup(struct tdr_arena *a, const char *s, size_t n);
TDR_API char *tdr_arena__strdup(struct tdr_arena *a, const char *s);
/* Free every chunk; the arena is empty (and reusable) afterwards. */
TDR_API void tdr_arena__fini(struct tdr_arena *a);

struct tdr_intern_ent {
	const char *s; /* in mem */
	uint64_t hash; /* tdr_hash_bytes of its bytes */
};

struct tdr_intern {
	struct tdr_arena mem;
	struct tdr_hmap index;
	struct tdr_intern_ent *ents; /* index.cnt of them, in interning order */
	size_t ents_cap;
};

/* The interned copy of the n bytes at s (no NUL among them; s need not be
 * terminated): the same pointer for the same bytes, every time. Returns
 * NULL when out of memory (the interner is unchanged). */
TDR_API const char *tdr_intern__strn(struct tdr_intern *t, const char *s, size_t n);
/* The same for a NUL-terminated string. */
TDR_API const char *tdr_intern__str(struct tdr_intern *t, const char *s);
/* As tdr_intern__strn, but the copy's index in interning order (0, 1, ...;
 * the copy is tdr_intern__at(t, idx)); UINT32_MAX when out of memory. */
TDR_API uint32_t tdr_intern__idx(struct tdr_intern *t, const char *s, size_t n);
static inline const char *tdr_intern__at(const struct tdr_intern *t, uint32_t idx)
{
	return t->ents[idx].s;
}
/* Strings interned so far. */
static inline size_t tdr_intern__cnt(const struct tdr_intern *t)
{
	return t->index.cnt;
}
TDR_API void tdr_intern__fini(struct tdr_intern *t);

#endif /* TDREC_TDR_ARENA_H */
