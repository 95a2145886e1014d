/*
 * report/groups.c - recordings that sample in several groups of one core
 * PMU (AMD level 2: tdrec record --plan amd-zen4-l2).
 *
 * Responsibility: recognise such a file, and give each row's per-group
 * shares. The kernel takes turns to count the groups; each group samples
 * on its own cycles leader, and each sample's deltas are those of the
 * group that sampled (the parser's per-group reads). Every sample counts
 * (the samplers are one event, cycles, in each group), and a row's
 * categories are the recording's formulas on its summed deltas, as for
 * any file: each ratio of a formula reads one group's events, so a
 * group's share of the time cancels in it (docs/plans.md "AMD level 2",
 * the same arithmetic tdrec stat does on counts). What this file adds is
 * each group's share of a row: its sampler's summed deltas (the cycles it
 * sampled) over every group's; with a fixed period (-c) that is exactly
 * its share of the row's samples. A row whose groups' shares are very
 * different mixes categories measured on unequal evidence: __finish says
 * which rows.
 * Recognised from the file alone: no hybrid core split, one sampler in
 * each of at least two groups, and categories whose formulas read events
 * of at least two groups (perf record -e a -e b has no such categories,
 * and stays "several sampling events").
 * See: docs/report.md "Sampling groups".
 */
#include "report_int.h"

#include <math.h>
#include <stdio.h>

/* The group of every event a category reads, as a bit set. */
static uint32_t category_groups(const struct tdr_meta *meta, const struct tdr_category *c)
{
	uint32_t bits = 0;

#define ADD(terms, cnt)                                                                            \
	for (size_t t = 0; t < (cnt); t++)                                                         \
		if ((terms)[t].event_idx < meta->event_cnt &&                                      \
		    meta->events[(terms)[t].event_idx].group_idx < 32)                             \
			bits |= 1u << meta->events[(terms)[t].event_idx].group_idx;
	ADD(c->num, c->num_cnt);
	ADD(c->den, c->den_cnt);
	for (size_t p = 0; p < c->part_cnt; p++)
		for (size_t k = 0; k < c->parts[p].factor_cnt; k++) {
			ADD(c->parts[p].factors[k].num, c->parts[p].factors[k].num_cnt);
			ADD(c->parts[p].factors[k].den, c->parts[p].factors[k].den_cnt);
		}
#undef ADD
	return bits;
}

void tdr_report_groups__init(struct tdr_report *r, const struct tdr_meta *meta)
{
	uint32_t read = 0, seen = 0;
	size_t n = 0;

	r->sgroup_cnt = 0;
	if (r->core_cnt >= 2)
		return;
	for (size_t i = 0; i < meta->category_cnt; i++)
		read |= category_groups(meta, &meta->categories[i]);
	if (!read || !(read & (read - 1)))
		return; /* the categories read one group */
	for (size_t i = 0; i < meta->event_cnt; i++) {
		uint32_t g = meta->events[i].group_idx;

		if (!(meta->events[i].flags & TDR_EVENT_SAMPLER))
			continue;
		if (g >= 32 || (seen & (1u << g)) || n == TDR_REPORT_MAX_SGROUPS)
			return; /* two samplers in one group: not this kind of file */
		seen |= 1u << g;
		r->sgroup_sampler[n++] = i;
	}
	if (n < 2)
		return;
	r->sgroup_cnt = n;
	r->primary_sampler = -1; /* every group's samples count */
}

double tdr_report_group_share(const struct tdr_report *r, const struct tdr_report_row *row,
			      size_t g)
{
	double all = 0;

	if (g >= r->sgroup_cnt || !row->events)
		return NAN;
	for (size_t k = 0; k < r->sgroup_cnt; k++)
		all += (double)row->events[r->sgroup_sampler[k]];
	return all > 0 ? (double)row->events[r->sgroup_sampler[g]] / all : NAN;
}

/* Shares as "70.0%/25.0%/5.0%". */
static void shares_text(const struct tdr_report *r, const struct tdr_report_row *row, char *buf,
			size_t sz)
{
	size_t len = 0;

	buf[0] = '\0';
	for (size_t g = 0; g < r->sgroup_cnt && len < sz; g++)
		len += (size_t)snprintf(buf + len, sz - len, "%s%.1f%%", g ? "/" : "",
					100 * tdr_report_group_share(r, row, g));
}

bool tdr_report_groups_unbalanced(const struct tdr_report *r, const struct tdr_report_row *row)
{
	double lo = INFINITY, hi = 0;

	if (r->sgroup_cnt < 2 || !row->samples)
		return false;
	for (size_t g = 0; g < r->sgroup_cnt; g++) {
		double s = tdr_report_group_share(r, row, g);

		if (isnan(s))
			return false;
		lo = s < lo ? s : lo;
		hi = s > hi ? s : hi;
	}
	return lo * TDR_REPORT_GROUP_SKEW < hi;
}

void tdr_report_groups__finish(struct tdr_report *r)
{
	char names[600] = "", buf[96];
	size_t len = 0, n = 0, named = 0;

	if (r->sgroup_cnt < 2)
		return;
	for (size_t i = 0; i < r->view_cnt; i++) {
		const struct tdr_report_row *row = &r->view[i];

		if (row->low_confidence || !tdr_report_groups_unbalanced(r, row))
			continue;
		n++;
		if (named == 3 || len >= sizeof(names) - 1)
			continue;
		shares_text(r, row, buf, sizeof(buf));
		len += (size_t)snprintf(names + len, sizeof(names) - len, "%s%s (%s)",
					named ? ", " : "", row->name ? row->name : "?", buf);
		named++;
	}
	if (!n)
		return;
	tdr_report__warn(r,
			 "%zu row%s (by %s) mix%s sampling groups with very different sample "
			 "counts (a group with under 1/%.0f of another's sampled cycles): their "
			 "categories from different groups rest on unequal evidence: %s%s",
			 n, n == 1 ? "" : "s", tdr_report_rows_name(r), n == 1 ? "es" : "",
			 TDR_REPORT_GROUP_SKEW, names, n > named ? ", ..." : "");
}
