/*
 * report/stacks.c - call stacks in the report: --children, --callers, --callees.
 *
 * Responsibility: keep each sample's stack (its own address and its
 * callers', as indexes of the address table, innermost first; equal stacks
 * once, with their samples and summed deltas), and once every address has
 * a row (tdr_report__resolve), fold the stacks into rows:
 *   children: every distinct row on a stack gets the stack's samples and
 *     deltas once (perf report --children: a function that is on the stack
 *     several times, by recursion or from several call sites, counts a
 *     sample once), so a row's TopDown is that of all samples whose stack
 *     holds the function;
 *   callers F: each stack that holds F counts for the row just outside F's
 *     outermost occurrence (its caller; "[no caller]" when F is the
 *     outermost frame);
 *   callees F: for the row just inside F's outermost occurrence, after the
 *     frames of F itself (recursion); "[self]" for the samples taken in F.
 * In both edge views every stack with F counts exactly once, so the rows
 * split F's inclusive samples and deltas, and their TopDown is per edge.
 * Hot path: one hash lookup per sample and frame; no allocation unless the
 * stack or an address is new. It never symbolizes: rows come from collect.c.
 * See: docs/report.md "Call stacks".
 */
#include "report_int.h"

#include <errno.h>
#include <string.h>

#include "tdrec/tdr_hash.h"
#include "tdrec/tdr_mem.h"

const char *tdr_report_stacks_name(enum tdr_report_stacks m)
{
	static const char *const names[] = {"none", "children", "callers", "callees"};

	return (unsigned)m < TDR_ARRAY_SIZE(names) ? names[m] : "unknown";
}

void tdr_report_stacks__release(struct stacktab *t)
{
	free(t->ents);
	free(t->pool);
	free(t->sums);
	free(t->cur);
	free(t->row_samples);
	free(t->row_sums);
	free(t->func_sums);
	tdr_hmap__fini(&t->index);
	memset(t, 0, sizeof(*t));
}

struct st_key {
	const uint32_t *pool;
	const uint32_t *v;
	uint32_t len;
	uint64_t hash;
};

static uint64_t st_hash(const void *ctx, uint32_t idx)
{
	return ((const struct stack_ent *)ctx)[idx].hash;
}

static bool st_eq(const void *ctx, uint32_t idx, const void *key)
{
	const struct stack_ent *e = (const struct stack_ent *)ctx + idx;
	const struct st_key *k = key;

	return e->hash == k->hash && e->len == k->len &&
	       !memcmp(k->pool + e->off, k->v, k->len * sizeof(*k->v));
}

/* The entry of the stack in t->cur[0..len), created when new. */
static long stack_find_or_add(struct stacktab *t, size_t event_cnt, uint32_t len)
{
	struct st_key k = {.pool = t->pool, .v = t->cur, .len = len, .hash = len};
	uint32_t idx;
	size_t pos;
	int err;

	for (uint32_t i = 0; i < len; i++)
		k.hash = tdr_hash_combine(k.hash, t->cur[i]);
	if (t->cnt >= UINT32_MAX - 1)
		return -ENOMEM;
	err = tdr_hmap__reserve(&t->index, 1024, st_hash, t->ents);
	if (err)
		return err;
	idx = tdr_hmap__find(&t->index, k.hash, st_eq, t->ents, &k, &pos);
	if (idx != TDR_HMAP_NONE)
		return (long)idx;
	err = tdr_ensure_cap(&t->ents, &t->cap, sizeof(*t->ents), t->cnt + 1);
	if (!err)
		err = tdr_ensure_cap(&t->pool, &t->pool_cap, sizeof(*t->pool), t->pool_cnt + len);
	if (!err)
		err = tdr_report_sums__reserve(&t->sums, &t->sums_cap, event_cnt, t->cnt + 1);
	if (err)
		return err;
	memcpy(t->pool + t->pool_cnt, t->cur, len * sizeof(*t->cur));
	t->ents[t->cnt] = (struct stack_ent){
	    .hash = k.hash, .off = t->pool_cnt, .len = len, .samples = 0};
	t->pool_cnt += len;
	tdr_hmap__add(&t->index, pos);
	return (long)t->cnt++;
}

int tdr_report_stacks__add(struct tdr_report *r, const struct tdr_sample *s, uint32_t self_idx,
			   uint32_t core, bool counts)
{
	struct stacktab *t = &r->stacks;
	size_t len = 1 + (size_t)s->frame_cnt;
	uint64_t *sums;
	long idx;

	if (len > UINT32_MAX || tdr_ensure_cap(&t->cur, &t->cur_cap, sizeof(*t->cur), len))
		return -ENOMEM;
	t->cur[0] = self_idx;
	for (uint32_t i = 0; i < s->frame_cnt; i++) {
		struct addr_ent k;

		tdr_report_classify_frame(r, s, &s->frames[i], &k);
		k.core = core;
		idx = tdr_report_addr_find_or_add(&r->addrs, r->event_cnt, &k);
		if (idx < 0)
			return (int)idx;
		t->cur[1 + i] = (uint32_t)idx;
	}
	idx = stack_find_or_add(t, r->event_cnt, (uint32_t)len);
	if (idx < 0)
		return (int)idx;
	if (counts) {
		t->ents[idx].samples++;
		t->with_callers += s->frame_cnt > 0;
	}
	if (r->event_cnt && s->deltas) {
		sums = t->sums + (size_t)idx * r->event_cnt;
		for (size_t e = 0; e < r->event_cnt; e++)
			sums[e] += s->deltas[e];
	}
	return 0;
}

static void add_to(struct stacktab *t, size_t ec, size_t row, const struct stack_ent *e,
		   const uint64_t *sums)
{
	t->row_samples[row] += e->samples;
	for (size_t i = 0; i < ec; i++)
		t->row_sums[row * ec + i] += sums[i];
}

/* The row of an edge that is not a function: "[self]", "[no caller]". */
static int pseudo_row(struct tdr_report *r, const char *name)
{
	struct tdr_row_key k = {.name = name};

	return tdr_report__add_row(r, &k, NULL, 0);
}

/* The row of the callers / callees edge of stack v (len rows, F outermost
 * at o), or -1 when F is not on it. */
static int edge_row(const struct tdr_report *r, const bool *is_func, const int *rows, uint32_t len,
		    int pseudo)
{
	int o = -1, j;

	for (uint32_t i = 0; i < len; i++)
		if (is_func[rows[i]])
			o = (int)i;
	if (o < 0)
		return -1;
	if (r->opts.stacks == TDR_STACKS_CALLERS)
		return (uint32_t)o + 1 < len ? rows[o + 1] : pseudo;
	for (j = o - 1; j >= 0 && is_func[rows[j]]; j--)
		;
	return j < 0 ? pseudo : rows[j];
}

int tdr_report_stacks__fold(struct tdr_report *r, const int *addr_row)
{
	struct stacktab *t = &r->stacks;
	size_t ec = r->event_cnt, n;
	uint32_t *mark = NULL;
	bool *is_func = NULL;
	int *rows = NULL;
	int pseudo = -1, err = -ENOMEM;
	size_t max_len = 0;

	if (r->opts.stacks == TDR_STACKS_CALLERS)
		pseudo = pseudo_row(r, "[no caller]");
	else if (r->opts.stacks == TDR_STACKS_CALLEES)
		pseudo = pseudo_row(r, "[self]");
	if (pseudo < -1)
		return pseudo;
	n = r->rows.cnt;
	for (size_t i = 0; i < t->cnt; i++)
		if (t->ents[i].len > max_len)
			max_len = t->ents[i].len;
	t->row_samples = tdr_calloc(n + 1, sizeof(*t->row_samples));
	t->row_sums = tdr_calloc(n * ec + 1, sizeof(*t->row_sums));
	t->func_sums = tdr_calloc(ec + 1, sizeof(*t->func_sums));
	mark = tdr_calloc(n + 1, sizeof(*mark));
	is_func = tdr_calloc(n + 1, sizeof(*is_func));
	rows = tdr_calloc(max_len + 1, sizeof(*rows));
	if (!t->row_samples || !t->row_sums || !t->func_sums || !mark || !is_func || !rows)
		goto out;
	t->row_cnt = n;
	for (size_t i = 0; r->stack_func && i < n; i++)
		is_func[i] = (int)i != pseudo && !strcmp(r->rows.rows[i].key.name, r->stack_func);
	for (size_t si = 0; si < t->cnt; si++) {
		const struct stack_ent *e = &t->ents[si];
		const uint64_t *sums = t->sums + si * ec;
		int row;

		for (uint32_t j = 0; j < e->len; j++)
			rows[j] = addr_row[t->pool[e->off + j]];
		if (r->opts.stacks == TDR_STACKS_CHILDREN) {
			/* Each distinct row once (si + 1 marks this stack). */
			for (uint32_t j = 0; j < e->len; j++) {
				if (mark[rows[j]] == si + 1)
					continue;
				mark[rows[j]] = (uint32_t)(si + 1);
				add_to(t, ec, (size_t)rows[j], e, sums);
			}
			continue;
		}
		row = edge_row(r, is_func, rows, e->len, pseudo);
		if (row < 0)
			continue;
		t->func_samples += e->samples;
		for (size_t i = 0; i < ec; i++)
			t->func_sums[i] += sums[i];
		add_to(t, ec, (size_t)row, e, sums);
	}
	t->folded = true;
	err = 0;
	if (!t->with_callers && r->kept)
		tdr_report__warn(r, "no sample has a caller: the recording has no call stacks "
				    "(record with tdrec record -g or --call-graph, or perf record "
				    "-g), so each sample counts for its own function only");
out:
	free(mark);
	free(is_func);
	free(rows);
	/* The stacks themselves are not needed any more. */
	zfree(&t->ents);
	zfree(&t->pool);
	zfree(&t->sums);
	zfree(&t->cur);
	tdr_hmap__fini(&t->index);
	t->cnt = t->cap = t->pool_cnt = t->pool_cap = t->sums_cap = t->cur_cap = 0;
	return err;
}
