/*
 * report/cores.c - reports split by core type (hybrid parts).
 *
 * Responsibility: a perf.data file of a hybrid Intel part holds one TopDown
 * family per core PMU (the perf metrics on cpu_core, Gracemont or Skymont
 * on cpu_atom), each family's categories over its own PMU's events, with
 * the same keys ("retiring" twice). This file finds those core types in
 * the copied schema (the PMU of each category's denominator events), and
 * merges the categories of one key into one column whose formula holds
 * every core type's terms. Rows are then keyed by core type too
 * (collect.c), so a row's deltas lie in its own core type's events only:
 * the other core types' terms add 0, and each row's value is exactly its
 * core type's formula. Totals come per core type (topdown.c). A file with
 * one core type is left as it is.
 * See: docs/report.md "Core types".
 */
#include "report_int.h"

#include <errno.h>
#include <string.h>

#include "tdrec/tdr_mem.h"

#define MAX_CORES 4

/* The core PMU of a category: that of its first denominator event. */
static const char *cat_core(const struct tdr_meta *meta, const struct tdr_category *c)
{
	if (!c->den_cnt || c->den[0].event_idx >= meta->event_cnt)
		return NULL;
	return meta->events[c->den[0].event_idx].pmu_name;
}

static int append_terms(struct tdr_term **dst, size_t *dst_cnt, const struct tdr_term *src,
			size_t cnt)
{
	struct tdr_term *v;

	if (!cnt)
		return 0;
	v = tdr_calloc(*dst_cnt + cnt, sizeof(*v));
	if (!v)
		return -ENOMEM;
	if (*dst_cnt)
		memcpy(v, *dst, *dst_cnt * sizeof(*v));
	memcpy(v + *dst_cnt, src, cnt * sizeof(*v));
	free(*dst);
	*dst = v;
	*dst_cnt += cnt;
	return 0;
}

/* Samplers on different core types that open the same event (cycles of
 * cpu_core and of cpu_atom) are one sampling event: every sample counts. */
static bool same_sampler(const struct tdr_report *r, const struct tdr_meta *meta, size_t a,
			 size_t b)
{
	const struct perf_event_attr *x = &meta->events[a].attr, *y = &meta->events[b].attr;

	if (!r->event_core[a] || !r->event_core[b] || r->event_core[a] == r->event_core[b])
		return false;
	if (x->type == PERF_TYPE_HARDWARE || x->type == PERF_TYPE_HW_CACHE)
		return x->type == y->type && (x->config & 0xffffffffu) == (y->config & 0xffffffffu);
	return false;
}

int tdr_report_cores__init(struct tdr_report *r, const struct tdr_meta *meta)
{
	const char *names[MAX_CORES];
	size_t n = 0, k, out = 0;
	bool dup = false;
	int err;

	for (size_t i = 0; i < meta->category_cnt && i < r->cat_cnt; i++) {
		const char *core = cat_core(meta, &meta->categories[i]);

		for (k = 0; core && k < n && strcmp(names[k], core); k++)
			;
		if (core && k == n && n < MAX_CORES)
			names[n++] = core;
		for (size_t j = 0; j < i; j++)
			dup |= !strcmp(r->cats[i].name, r->cats[j].name);
	}
	if (n < 2 || !dup)
		return 0;
	r->core_names = tdr_calloc(n, sizeof(*r->core_names));
	r->event_core = tdr_calloc(meta->event_cnt + 1, sizeof(*r->event_core));
	if (!r->core_names || !r->event_core)
		return -ENOMEM;
	for (k = 0; k < n; k++) {
		r->core_names[k] = tdr_strdup(names[k]);
		if (!r->core_names[k])
			return -ENOMEM;
		r->core_cnt = k + 1;
	}
	for (size_t e = 0; e < meta->event_cnt; e++)
		for (k = 0; meta->events[e].pmu_name && k < n; k++)
			if (!strcmp(meta->events[e].pmu_name, names[k]))
				r->event_core[e] = (uint32_t)k + 1;
	/* One column per key: later categories of a key give their terms to
	 * the first and go. */
	for (size_t i = 0; i < r->cat_cnt; i++) {
		struct rep_category *c = &r->cats[i];
		size_t j;

		for (j = 0; j < out && strcmp(r->cats[j].name, c->name); j++)
			;
		/* Only sums of terms merge (every hybrid family is linear); a
		 * product category keeps a column of its own. */
		if (j < out && (c->f.part_cnt || r->cats[j].f.part_cnt))
			j = out;
		if (j == out) {
			if (i != out) {
				r->cats[out] = *c;
				memset(c, 0, sizeof(*c));
			}
			out++;
			continue;
		}
		err = append_terms(&r->cats[j].f.num, &r->cats[j].f.num_cnt, c->f.num, c->f.num_cnt);
		if (!err)
			err = append_terms(&r->cats[j].f.den, &r->cats[j].f.den_cnt, c->f.den,
					   c->f.den_cnt);
		free(c->name);
		free(c->parent);
		tdr_category__clear(&c->f);
		memset(c, 0, sizeof(*c));
		if (err) {
			/* What is left at i.. must still be freeable. */
			for (size_t m = i + 1; m < r->cat_cnt; m++)
				r->cats[out++] = r->cats[m];
			r->cat_cnt = out;
			return err;
		}
	}
	r->cat_cnt = out;
	r->slots_cat = -1;
	for (size_t i = 0; i < r->cat_cnt && r->slots_cat < 0; i++)
		if (r->cats[i].level == 1 && tdr_category__linear(&r->cats[i].f))
			r->slots_cat = (int)i;
	/* Several samplers: one per core type is not "several events". */
	if (r->primary_sampler >= 0) {
		size_t first = (size_t)r->primary_sampler;

		r->primary_sampler = -1;
		for (size_t i = first + 1; i < meta->event_cnt; i++)
			if ((meta->events[i].flags & TDR_EVENT_SAMPLER) &&
			    strcmp(r->event_names[i], r->event_names[first]) &&
			    !same_sampler(r, meta, first, i))
				r->primary_sampler = (int)first;
	}
	return 0;
}

void tdr_report_cores__release(struct tdr_report *r)
{
	for (size_t k = 0; r->core_names && k < r->core_cnt; k++)
		free(r->core_names[k]);
	zfree(&r->core_names);
	zfree(&r->event_core);
	zfree(&r->core_totals);
	zfree(&r->core_sums);
	zfree(&r->core_vals);
	r->core_cnt = 0;
}

const char *tdr_report_core_name(const struct tdr_report *r, uint32_t core)
{
	return core && core <= r->core_cnt ? r->core_names[core - 1] : NULL;
}
