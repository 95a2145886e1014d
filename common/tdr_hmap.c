/*
 * common/tdr_hmap.c - growth of the open-addressing index, and the u64 map.
 *
 * Responsibility: the parts of tdr_hmap.h that are not on a lookup path:
 * rebuilding the slots at twice the size, and the u64 -> u32 map's insert.
 * Invariants: see tdr_hmap.h (load <= 1/2, slot = index + 1). Entries are
 * placed again in index order, so a table's layout depends only on its
 * insertion order.
 */
#include "tdrec/tdr_hmap.h"

#include <errno.h>
#include <stdlib.h>

#include "tdrec/tdr_mem.h"

int tdr_hmap__grow(struct tdr_hmap *m, size_t first_cap, tdr_hmap_hash_fn hash, const void *ctx)
{
	size_t cap = m->cap ? m->cap * 2 : first_cap, mask;
	uint32_t *slot;

	/* Slots hold index + 1 in 32 bits, and index TDR_HMAP_NONE means none. */
	if (m->cnt >= UINT32_MAX - 1 || cap > SIZE_MAX / 2 / sizeof(*slot))
		return -ENOMEM;
	while ((m->cnt + 1) * 2 > cap)
		cap *= 2; /* a first_cap below 2 */
	slot = tdr_calloc(cap, sizeof(*slot));
	if (!slot)
		return -ENOMEM;
	mask = cap - 1;
	for (size_t i = 0; i < m->cnt; i++) {
		size_t j;

		for (j = hash(ctx, (uint32_t)i) & mask; slot[j]; j = (j + 1) & mask)
			;
		slot[j] = (uint32_t)(i + 1);
	}
	free(m->slot);
	m->slot = slot;
	m->cap = cap;
	return 0;
}

void tdr_hmap__fini(struct tdr_hmap *m)
{
	zfree(&m->slot);
	m->cap = 0;
	m->cnt = 0;
}

static uint64_t u64map_hash(const void *ctx, uint32_t idx)
{
	const struct tdr_u64map_ent *e = ctx;

	return tdr_hash_u64(e[idx].key);
}

int tdr_u64map__put(struct tdr_u64map *m, uint64_t key, uint32_t val)
{
	uint64_t h = tdr_hash_u64(key);
	uint32_t i;
	size_t pos;
	int err;

	/* Room first, so that one probe finds the key or its slot. */
	err = tdr_hmap__reserve(&m->index, 16, u64map_hash, m->ents);
	if (err)
		return err;
	i = tdr_hmap__find(&m->index, h, tdr_u64map_eq, m->ents, &key, &pos);
	if (i != TDR_HMAP_NONE) {
		m->ents[i].val = val;
		return 0;
	}
	err = tdr_ensure_cap(&m->ents, &m->ents_cap, sizeof(*m->ents), m->index.cnt + 1);
	if (err)
		return err;
	m->ents[m->index.cnt] = (struct tdr_u64map_ent){.key = key, .val = val};
	tdr_hmap__add(&m->index, pos);
	return 0;
}

void tdr_u64map__fini(struct tdr_u64map *m)
{
	tdr_hmap__fini(&m->index);
	zfree(&m->ents);
	m->ents_cap = 0;
}
