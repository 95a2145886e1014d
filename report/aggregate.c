/*
 * report/aggregate.c - rows keyed by strings, with summed deltas.
 *
 * Responsibility: the bottom layer of a report. tdr_report__add interns a
 * row key and adds a sample count and a delta vector to that row's sums.
 * It knows nothing of parsers, symbols or TopDown; __add_sample/__resolve
 * (collect.c) feed it once per unique address, tests feed it directly.
 * Also the per-entry sums both tables use (this row table and collect.c's
 * address table); both find entries through a tdr_hmap (common/).
 * Invariants: rows only grow; a row's index never changes; index is a
 * tdr_hmap (load <= 1/2) over rows, by the hash stored in each row.
 */
#include "report_int.h"

#include <errno.h>
#include <stddef.h>
#include <string.h>

#include "tdrec/tdr_mem.h"

static uint64_t key_hash(const struct tdr_row_key *k)
{
	/* Strings are interned: their addresses identify them. */
	uint64_t h = tdr_hash_combine(0, (uintptr_t)k->name);

	h = tdr_hash_combine(h, (uintptr_t)k->dso);
	h = tdr_hash_combine(h, (uintptr_t)k->inlined_into);
	h = tdr_hash_combine(h, (uintptr_t)k->file);
	h = tdr_hash_combine(h, k->line);
	h = tdr_hash_combine(h, k->core);
	return tdr_hash_combine(h, ((uint64_t)k->pid << 32) | k->tid);
}

struct row_key {
	const struct tdr_row_key *k;
	uint64_t hash;
};

static uint64_t row_hash(const void *ctx, uint32_t idx)
{
	return ((const struct row_ent *)ctx)[idx].hash;
}

static bool row_eq(const void *ctx, uint32_t idx, const void *key)
{
	const struct row_ent *e = (const struct row_ent *)ctx + idx;
	const struct tdr_row_key *a = &e->key, *b = ((const struct row_key *)key)->k;

	return e->hash == ((const struct row_key *)key)->hash && a->name == b->name &&
	       a->dso == b->dso && a->inlined_into == b->inlined_into && a->file == b->file &&
	       a->line == b->line && a->pid == b->pid && a->tid == b->tid && a->core == b->core;
}

int tdr_report_sums__reserve(uint64_t **sums, size_t *cap, size_t event_cnt, size_t need)
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

int tdr_report_rowtab__find_or_add(struct rowtab *t, size_t event_cnt,
				   const struct tdr_row_key *key)
{
	struct row_key k = {.k = key, .hash = key_hash(key)};
	uint32_t idx;
	size_t pos;
	int err;

	if (t->cnt >= UINT32_MAX - 1 || t->cnt > INT32_MAX - 1)
		return -ENOMEM;
	err = tdr_hmap__reserve(&t->index, 1024, row_hash, t->rows);
	if (err)
		return err;
	idx = tdr_hmap__find(&t->index, k.hash, row_eq, t->rows, &k, &pos);
	if (idx != TDR_HMAP_NONE)
		return (int)idx;
	err = tdr_ensure_cap(&t->rows, &t->cap, sizeof(*t->rows), t->cnt + 1);
	if (!err)
		err = tdr_report_sums__reserve(&t->sums, &t->sums_cap, event_cnt, t->cnt + 1);
	if (err)
		return err;
	t->rows[t->cnt] = (struct row_ent){.key = *key, .hash = k.hash};
	tdr_hmap__add(&t->index, pos);
	return (int)t->cnt++;
}

void tdr_report_rowtab__release(struct rowtab *t)
{
	free(t->rows);
	free(t->sums);
	tdr_hmap__fini(&t->index);
	memset(t, 0, sizeof(*t));
}

int tdr_report__add(struct tdr_report *r, const struct tdr_row_key *key, const uint64_t *deltas,
		    uint64_t samples)
{
	int idx = tdr_report__add_row(r, key, deltas, samples);

	return idx < 0 ? idx : 0;
}

int tdr_report__add_row(struct tdr_report *r, const struct tdr_row_key *key,
			const uint64_t *deltas, uint64_t samples)
{
	struct tdr_row_key k = *key;
	uint64_t *sums;
	int err = 0, idx;

	if (r->finished || !key->name)
		return -EINVAL;
	k.name = tdr_report_strpool__intern(&r->pool, key->name, &err);
	k.dso = tdr_report_strpool__intern(&r->pool, key->dso, &err);
	k.inlined_into = tdr_report_strpool__intern(&r->pool, key->inlined_into, &err);
	k.file = tdr_report_strpool__intern(&r->pool, key->file, &err);
	if (err)
		return err;
	idx = tdr_report_rowtab__find_or_add(&r->rows, r->event_cnt, &k);
	if (idx < 0)
		return idx;
	r->rows.rows[idx].samples += samples;
	if (deltas && r->event_cnt) {
		sums = r->rows.sums + (size_t)idx * r->event_cnt;
		for (size_t i = 0; i < r->event_cnt; i++)
			sums[i] += deltas[i];
	}
	return idx;
}
