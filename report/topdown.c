/*
 * report/topdown.c - TopDown math, confidence and bottleneck flags, sorting.
 *
 * Responsibility: turn the summed deltas of every row into the numbers a
 * report shows. Every category value comes from the recording's own formula
 * (value = sum of num terms / sum of den terms, or a sum of products of
 * such ratios: format.h struct tdr_category) applied to the row's summed
 * deltas: ratios of sums, never averages of per-sample ratios; the totals are the same formula over
 * every row's sums. No event name is looked at here. A value outside
 * [0, 1] (a formula that subtracts, counters that do not add up to the
 * slots) is kept as computed; __finish warns once and the renderers mark
 * it. A row's "slots" is the denominator of the first linear level-1
 * category.
 * Level-1 values are shown as measured: they are not rescaled to add up to
 * 100% (with metric registers they add up to about 100%, off by rounding).
 * Flags: a row with fewer than min_samples samples is low-confidence; a
 * category is the row's bottleneck when it is above its threshold, the row
 * has more than TDR_REPORT_HOT_SHARE of the samples and is not
 * low-confidence; the largest such level-1 category wins, and the largest of
 * its level-2 children above their own thresholds is marked too.
 * See: docs/report.md "Attribution" and "Thresholds".
 */
#include "report_int.h"

#include <inttypes.h>

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tdrec/tdr_mem.h"

/* The formula is evaluated in one place for report, diff and stat. */
double tdr_report_category_value(const struct tdr_report *r, const struct rep_category *c,
				 const uint64_t *sums)
{
	return tdr_category__value(&c->f, sums, r->event_cnt);
}

double tdr_report_slots(const struct tdr_report *r, const uint64_t *sums)
{
	const struct rep_category *c;
	double slots = 0;

	if (r->slots_cat < 0)
		return 0;
	c = &r->cats[r->slots_cat];
	for (size_t i = 0; i < c->f.den_cnt; i++)
		slots += c->f.den[i].coef * (double)sums[c->f.den[i].event_idx];
	return slots;
}

static void flag_row(const struct tdr_report *r, struct tdr_report_row *row)
{
	double best = -1;

	row->low_confidence = r->opts.min_samples && row->samples < r->opts.min_samples;
	row->bottleneck = -1;
	row->bottleneck_l2 = -1;
	if (!row->topdown || row->low_confidence || !(row->share > TDR_REPORT_HOT_SHARE))
		return;
	for (size_t i = 0; i < r->cat_cnt; i++) {
		double v = row->topdown[i];

		if (r->cats[i].level != 1 || isnan(r->cats[i].threshold) || isnan(v))
			continue;
		if (v > r->cats[i].threshold && v > best) {
			best = v;
			row->bottleneck = (int)i;
		}
	}
	if (row->bottleneck < 0)
		return;
	best = -1;
	for (size_t i = 0; i < r->cat_cnt; i++) {
		double v = row->topdown[i];

		if (r->cats[i].parent_idx != row->bottleneck || isnan(r->cats[i].threshold) ||
		    isnan(v))
			continue;
		if (v > r->cats[i].threshold && v > best) {
			best = v;
			row->bottleneck_l2 = (int)i;
		}
	}
}

/* Fill row's computed fields from its sums; vals has cat_cnt slots. */
static void compute_row(const struct tdr_report *r, struct tdr_report_row *row,
			const uint64_t *sums, double *vals, uint64_t total_samples,
			double total_slots)
{
	row->events = sums;
	row->share = total_samples ? (double)row->samples / (double)total_samples : 0.0;
	row->slots_share = NAN;
	if (r->slots_cat >= 0 && total_slots > 0)
		row->slots_share = tdr_report_slots(r, sums) / total_slots;
	row->topdown = NULL;
	if (r->cat_cnt) {
		for (size_t c = 0; c < r->cat_cnt; c++)
			vals[c] = tdr_report_category_value(r, &r->cats[c], sums);
		row->topdown = vals;
	}
	flag_row(r, row);
}

static int cmp_str(const char *a, const char *b)
{
	if (a == b)
		return 0;
	if (!a)
		return -1;
	if (!b)
		return 1;
	return strcmp(a, b);
}

/* Descending by value, NAN last. Returns <0 when a goes first. */
static int cmp_desc(double a, double b)
{
	if (isnan(a) || isnan(b))
		return isnan(a) - isnan(b);
	return a > b ? -1 : a < b ? 1 : 0;
}

static int cmp_rows(const void *pa, const void *pb, void *ctx)
{
	const struct tdr_report_row *a = pa, *b = pb;
	const struct tdr_report_sort *s = ctx;
	int c = 0;

	switch (s->key) {
	case TDR_SORT_SLOTS:
		c = cmp_desc(a->slots_share, b->slots_share);
		break;
	case TDR_SORT_CATEGORY:
		c = cmp_desc(a->topdown ? a->topdown[s->idx] : NAN,
			     b->topdown ? b->topdown[s->idx] : NAN);
		break;
	case TDR_SORT_EVENT:
		c = cmp_desc((double)a->events[s->idx], (double)b->events[s->idx]);
		break;
	case TDR_SORT_NAME:
		c = cmp_str(a->name, b->name);
		break;
	case TDR_SORT_DEFAULT:
	case TDR_SORT_SAMPLES:
		break;
	}
	/* Ties: more samples first, then by name, object, line, thread. */
	if (!c)
		c = a->samples > b->samples ? -1 : a->samples < b->samples ? 1 : 0;
	if (!c)
		c = cmp_str(a->name, b->name);
	if (!c)
		c = cmp_str(a->dso, b->dso);
	if (!c)
		c = cmp_str(a->inlined_into, b->inlined_into);
	if (!c)
		c = cmp_str(a->file, b->file);
	if (!c)
		c = a->line < b->line ? -1 : a->line > b->line;
	if (!c)
		c = a->pid < b->pid ? -1 : a->pid > b->pid;
	if (!c)
		c = a->tid < b->tid ? -1 : a->tid > b->tid;
	if (!c)
		c = a->core < b->core ? -1 : a->core > b->core;
	return c;
}

int tdr_report__sort(struct tdr_report *r, const struct tdr_report_sort *sort)
{
	struct tdr_report_sort s = *sort;

	if (!r->finished)
		return -EINVAL;
	if ((s.key == TDR_SORT_CATEGORY && s.idx >= r->cat_cnt) ||
	    (s.key == TDR_SORT_EVENT && s.idx >= r->event_cnt) || (unsigned)s.key > TDR_SORT_NAME)
		return -EINVAL;
	if (s.key == TDR_SORT_DEFAULT)
		s.key = r->slots_cat >= 0 ? TDR_SORT_SLOTS : TDR_SORT_SAMPLES;
	if (s.key == TDR_SORT_SLOTS && r->slots_cat < 0)
		s.key = TDR_SORT_SAMPLES;
	r->opts.sort = *sort;
	if (r->view_cnt > 1)
		qsort_r(r->view, r->view_cnt, sizeof(*r->view), cmp_rows, &s);
	r->visible_cnt = 0;
	for (size_t i = 0; i < r->view_cnt; i++) {
		if (r->opts.min_share > 0 && r->view[i].share < r->opts.min_share)
			continue;
		r->visible[r->visible_cnt++] = &r->view[i];
	}
	return 0;
}

/* One warning when some row (or the totals) has a category outside [0, 1]. */
static void out_of_range_note(struct tdr_report *r, size_t n)
{
	size_t bad = 0;

	for (size_t i = 0; i <= n; i++) {
		const struct tdr_report_row *row = i < n ? &r->view[i] : &r->totals;

		if (tdr_report_row_out_of_range(r, row, -1))
			bad++;
	}
	if (bad)
		tdr_report__warn(r,
				 "%zu %s a category below 0%% or above 100%% of %s slots, "
				 "marked '!' (JSON \"out_of_range\"): shown as computed, not "
				 "clamped; the formula subtracts or its counters do not add up "
				 "to the slots (skid, rounding, noise; docs/report.md)",
				 bad, bad == 1 ? "row has" : "rows have", bad == 1 ? "its" : "their");
}

bool tdr_report_row_out_of_range(const struct tdr_report *r, const struct tdr_report_row *row,
				 int cat)
{
	if (!row->topdown)
		return false;
	if (cat >= 0)
		return (size_t)cat < r->cat_cnt && tdr_category_out_of_range(row->topdown[cat]);
	for (size_t c = 0; c < r->cat_cnt; c++)
		if (tdr_category_out_of_range(row->topdown[c]))
			return true;
	return false;
}

/*
 * Split by core type (cores.c): one totals row per core type, over the
 * rows of that core type; the overall totals keep samples, share and event
 * sums but no categories, which would mix the core types' slots.
 */
static int core_totals(struct tdr_report *r, uint64_t total_samples, double total_slots)
{
	size_t ec = r->event_cnt, cc = r->cat_cnt, n = r->rows.cnt;
	/* The edges of --callers/--callees split the function's samples: sum
	 * them; other reports sum the rows' own (self) samples. */
	bool edges = r->opts.stacks == TDR_STACKS_CALLERS || r->opts.stacks == TDR_STACKS_CALLEES;
	double *vals;

	r->core_totals = tdr_calloc(r->core_cnt, sizeof(*r->core_totals));
	r->core_sums = tdr_calloc(r->core_cnt * ec + 1, sizeof(*r->core_sums));
	vals = tdr_calloc(r->core_cnt * cc + 1, sizeof(*vals));
	if (!r->core_totals || !r->core_sums || !vals) {
		free(vals);
		return -ENOMEM;
	}
	for (size_t i = 0; i < (edges ? r->view_cnt : n); i++) {
		uint32_t k = edges ? r->view[i].core : r->rows.rows[i].key.core;

		if (!k || k > r->core_cnt)
			continue;
		r->core_totals[k - 1].samples +=
		    edges ? r->view[i].samples : r->rows.rows[i].samples;
		for (size_t e = 0; e < ec; e++)
			r->core_sums[(k - 1) * ec + e] +=
			    edges ? r->view[i].events[e] : r->rows.sums[i * ec + e];
	}
	for (size_t k = 0; k < r->core_cnt; k++) {
		struct tdr_report_row *row = &r->core_totals[k];

		row->name = "total";
		row->core = (uint32_t)k + 1;
		compute_row(r, row, r->core_sums + k * ec, vals + k * cc, total_samples,
			    total_slots);
	}
	r->core_vals = vals;
	r->totals.topdown = NULL;
	r->totals.bottleneck = -1;
	r->totals.bottleneck_l2 = -1;
	return 0;
}

int tdr_report__finish(struct tdr_report *r)
{
	size_t n, ec = r->event_cnt, cc = r->cat_cnt;
	uint64_t total_samples = 0;
	const struct stacktab *st = &r->stacks;
	bool edges = r->opts.stacks == TDR_STACKS_CALLERS || r->opts.stacks == TDR_STACKS_CALLEES;
	double total_slots;
	int err;

	if (r->finished)
		return -EINVAL;
	if (!r->resolved && r->addrs.cnt) {
		err = tdr_report__resolve(r, NULL);
		if (err)
			return err;
	}
	n = r->rows.cnt;
	r->view = tdr_calloc(n + 1, sizeof(*r->view));
	r->visible = tdr_calloc(n + 1, sizeof(*r->visible));
	r->cat_vals = tdr_calloc((n + 1) * cc + 1, sizeof(*r->cat_vals));
	r->total_sums = tdr_calloc(ec + 1, sizeof(*r->total_sums));
	if (!r->view || !r->visible || !r->cat_vals || !r->total_sums) {
		zfree(&r->view);
		zfree(&r->visible);
		zfree(&r->cat_vals);
		zfree(&r->total_sums);
		return -ENOMEM;
	}
	for (size_t i = 0; i < n; i++) {
		total_samples += r->rows.rows[i].samples;
		for (size_t e = 0; e < ec; e++)
			r->total_sums[e] += r->rows.sums[i * ec + e];
	}
	/* --callers/--callees: the whole is the function's samples. */
	if (edges) {
		total_samples = st->func_samples;
		for (size_t e = 0; e < ec; e++)
			r->total_sums[e] = st->func_sums[e];
	}
	total_slots = tdr_report_slots(r, r->total_sums);
	r->view_cnt = 0;
	for (size_t i = 0; i < n; i++) {
		const struct row_ent *e = &r->rows.rows[i];
		struct tdr_report_row *row = &r->view[r->view_cnt];
		uint64_t samples = e->samples;
		/* Without events, rows share the (empty) totals array. */
		const uint64_t *sums = ec ? r->rows.sums + i * ec : r->total_sums;

		if (r->opts.stacks) {
			bool in = st->folded && i < st->row_cnt;

			samples = in ? st->row_samples[i] : 0;
			if (ec && in)
				sums = st->row_sums + i * ec;
			if (edges && !samples)
				continue;
		}
		row->name = e->key.name;
		row->dso = e->key.dso;
		row->inlined_into = e->key.inlined_into;
		row->file = e->key.file;
		row->line = e->key.line;
		row->pid = e->key.pid;
		row->tid = e->key.tid;
		row->core = e->key.core;
		row->samples = samples;
		compute_row(r, row, sums, r->cat_vals + r->view_cnt * cc, total_samples,
			    total_slots);
		row->self_samples = edges ? samples : e->samples;
		row->self_share = total_samples ? (double)row->self_samples / (double)total_samples
						: 0.0;
		r->view_cnt++;
	}
	n = r->view_cnt;
	memset(&r->totals, 0, sizeof(r->totals));
	r->totals.name = "total";
	r->totals.samples = total_samples;
	r->totals.self_samples = total_samples;
	compute_row(r, &r->totals, r->total_sums, r->cat_vals + n * cc, total_samples, total_slots);
	r->totals.self_share = r->totals.share;
	if (r->core_cnt) {
		err = core_totals(r, total_samples, total_slots);
		if (err)
			return err;
	}
	if (r->primary_sampler >= 0 && r->other_samples)
		tdr_report__warn(r,
				 "note: this file has several sampling events: samples and shares "
				 "are those of %s (as perf report shows each event apart); the "
				 "%" PRIu64
				 " samples of the others add to their event columns only",
				 r->event_names[r->primary_sampler], r->other_samples);
	out_of_range_note(r, n);
	tdr_report_groups__finish(r);
	tdr_report_counted__finish(r);
	r->finished = true;
	return tdr_report__sort(r, &r->opts.sort);
}

uint64_t tdr_report__stack_samples(const struct tdr_report *r)
{
	if (!r->finished || !r->stacks.folded)
		return 0;
	return r->opts.stacks == TDR_STACKS_CHILDREN ? r->stacks.with_callers
						     : r->stacks.func_samples;
}

size_t tdr_report__row_cnt(const struct tdr_report *r)
{
	return r->finished ? r->visible_cnt : 0;
}

const struct tdr_report_row *tdr_report__row(const struct tdr_report *r, size_t idx)
{
	return r->finished && idx < r->visible_cnt ? r->visible[idx] : NULL;
}

const struct tdr_report_row *tdr_report__totals(const struct tdr_report *r)
{
	return r->finished ? &r->totals : NULL;
}
