/*
 * report/aggregate.c - rows keyed by strings, with summed deltas.
 *
 * Responsibility: the bottom layer of a report. tdr_report__add interns a
 * row key and adds a sample count and a delta vector to that row's sums.
 * It knows nothing of parsers, symbols or TopDown; __add_sample/__resolve
 * (collect.c) feed it once per unique address, tests feed it directly.
 * Also the storage both tables use (this row table and collect.c's
 * address table): the hash index (hindex) and the per-entry sums.
 * Invariants: rows only grow; a row's index never changes; index is an
 * open-addressing table (load <= 1/2) of row index + 1.
 */
#include "report_int.h"

#include <errno.h>
#include <stddef.h>
#include <string.h>

#include "tdrec/tdr_mem.h"

static uint64_t key_hash(const struct tdr_row_key *k)
{
	/* Strings are interned: their addresses identify them. */
	uint64_t h = report_hash_mix(0, (uintptr_t)k->name);

	h = report_hash_mix(h, (uintptr_t)k->dso);
	h = report_hash_mix(h, (uintptr_t)k->inlined_into);
	h = report_hash_mix(h, (uintptr_t)k->file);
	h = report_hash_mix(h, k->line);
	return report_hash_mix(h, ((uint64_t)k->pid << 32) | k->tid);
}

static bool key_eq(const struct tdr_row_key *a, const struct tdr_row_key *b)
{
	return a->name == b->name && a->dso == b->dso && a->inlined_into == b->inlined_into &&
	       a->file == b->file && a->line == b->line && a->pid == b->pid && a->tid == b->tid;
}

int hindex__reserve(struct hindex *x, size_t cnt, size_t first_cap, const void *ents, size_t ent_sz,
		    size_t hash_off)
{
	size_t cap = x->cap ? x->cap * 2 : first_cap;
	uint32_t *slot;

	if ((cnt + 1) * 2 <= x->cap)
		return 0;
	slot = tdr_calloc(cap, sizeof(*slot));
	if (!slot)
		return -ENOMEM;
	for (size_t i = 0; i < cnt; i++) {
		uint64_t h;
		size_t j;

		memcpy(&h, (const char *)ents + i * ent_sz + hash_off, sizeof(h));
		for (j = h & (cap - 1); slot[j]; j = (j + 1) & (cap - 1))
			;
		slot[j] = (uint32_t)(i + 1);
	}
	free(x->slot);
	x->slot = slot;
	x->cap = cap;
	return 0;
}

int report_sums__reserve(uint64_t **sums, size_t *cap, size_t event_cnt, size_t need)
{
	size_t old = *cap;
	int err;

	if (!event_cnt)
		return 0;
	err = tdr_ensure_cap(sums, cap, sizeof(**sums) * event_cnt, need);
	if (err)
		return err;
	memset(*sums + old * event_cnt, 0, (*cap - old) * event_cnt * sizeof(**sums));
	return 0;
}

int rowtab__find_or_add(struct rowtab *t, size_t event_cnt, const struct tdr_row_key *key)
{
	uint64_t h = key_hash(key);
	size_t j, mask;
	int err;

	if (t->cnt >= UINT32_MAX - 1 || t->cnt > INT32_MAX - 1)
		return -ENOMEM;
	err = hindex__reserve(&t->index, t->cnt, 1024, t->rows, sizeof(*t->rows),
			      offsetof(struct row_ent, hash));
	if (err)
		return err;
	mask = t->index.cap - 1;
	for (j = h & mask; t->index.slot[j]; j = (j + 1) & mask) {
		struct row_ent *e = &t->rows[t->index.slot[j] - 1];

		if (e->hash == h && key_eq(&e->key, key))
			return (int)(t->index.slot[j] - 1);
	}
	err = tdr_ensure_cap(&t->rows, &t->cap, sizeof(*t->rows), t->cnt + 1);
	if (!err)
		err = report_sums__reserve(&t->sums, &t->sums_cap, event_cnt, t->cnt + 1);
	if (err)
		return err;
	t->rows[t->cnt] = (struct row_ent){.key = *key, .hash = h};
	t->index.slot[j] = (uint32_t)(t->cnt + 1);
	return (int)t->cnt++;
}

void rowtab__release(struct rowtab *t)
{
	free(t->rows);
	free(t->sums);
	free(t->index.slot);
	memset(t, 0, sizeof(*t));
}

int tdr_report__add(struct tdr_report *r, const struct tdr_row_key *key, const uint64_t *deltas,
		    uint64_t samples)
{
	struct tdr_row_key k = *key;
	uint64_t *sums;
	int err = 0, idx;

	if (r->finished || !key->name)
		return -EINVAL;
	k.name = strpool__intern(&r->pool, key->name, &err);
	k.dso = strpool__intern(&r->pool, key->dso, &err);
	k.inlined_into = strpool__intern(&r->pool, key->inlined_into, &err);
	k.file = strpool__intern(&r->pool, key->file, &err);
	if (err)
		return err;
	idx = rowtab__find_or_add(&r->rows, r->event_cnt, &k);
	if (idx < 0)
		return idx;
	r->rows.rows[idx].samples += samples;
	if (deltas && r->event_cnt) {
		sums = r->rows.sums + (size_t)idx * r->event_cnt;
		for (size_t i = 0; i < r->event_cnt; i++)
			sums[i] += deltas[i];
	}
	return 0;
}
