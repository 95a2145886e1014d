/*
 * report/counted.c - what the samples attribute against what was counted.
 *
 * Responsibility: keep, per event, the sum of every sample's deltas before
 * any filter (the attributed total: tdr_report__add_sample adds to it) and
 * the recording's counted totals (the trailer's COUNTED item: each event's
 * count over the whole run, read when the recording ended), and at
 * __finish say in one note which events the samples attribute clearly less
 * of than was counted, with both numbers and why. The renderers show the
 * counted line under the total row (text), "counted" and "attributed" in
 * the JSON totals and two CSV rows; they take the numbers from here.
 * Why counts go unattributed: a sample's deltas cover the interval since
 * the previous sample of its stream, so what a thread (a CPU with -a)
 * counts after its last sample is never charged to anything, nor are the
 * counts of threads never sampled, nor intervals the parser dropped
 * (re-based streams). With user-only sampling no sample is taken while a
 * thread runs in the kernel, so a kernel-heavy tail (page faults, I/O) can
 * fall entirely after the last sample.
 * Invariants: attributed[] and counted[] are event_cnt long (allocated in
 * tdr_report_counted__init); counted[e] means something only where has_counted[e].
 * See: docs/report.md "Counted totals"; docs/format.md 8.1.
 */
#include "report_int.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "tdrec/tdr_mem.h"

int tdr_report_counted__init(struct tdr_report *r)
{
	r->attributed = tdr_calloc(r->event_cnt + 1, sizeof(*r->attributed));
	r->counted = tdr_calloc(r->event_cnt + 1, sizeof(*r->counted));
	r->has_counted = tdr_calloc(r->event_cnt + 1, sizeof(*r->has_counted));
	r->slots_attributed = NAN;
	return r->attributed && r->counted && r->has_counted ? 0 : -ENOMEM;
}

void tdr_report_counted__release(struct tdr_report *r)
{
	zfree(&r->attributed);
	zfree(&r->counted);
	zfree(&r->has_counted);
}

int tdr_report__set_counted(struct tdr_report *r, const struct tdr_event_totals *ev, size_t cnt)
{
	if (r->finished)
		return -EINVAL;
	r->any_counted = false;
	for (size_t e = 0; e < r->event_cnt; e++) {
		r->has_counted[e] = ev && e < cnt && ev[e].has_counted;
		r->counted[e] = r->has_counted[e] ? ev[e].counted : 0;
		r->any_counted |= r->has_counted[e];
	}
	return 0;
}

bool tdr_report__counted(const struct tdr_report *r, size_t idx, uint64_t *out)
{
	if (idx >= r->event_cnt || !r->has_counted[idx])
		return false;
	*out = r->counted[idx];
	return true;
}

uint64_t tdr_report__attributed(const struct tdr_report *r, size_t idx)
{
	return r->finished && idx < r->event_cnt ? r->attributed[idx] : 0;
}

double tdr_report__slots_attributed(const struct tdr_report *r)
{
	return r->finished ? r->slots_attributed : NAN;
}

/* Is event e's attributed total clearly short of its counted one (below
 * TDR_REPORT_ATTRIBUTED_MIN of it, by TDR_REPORT_UNATTRIBUTED_MIN_GAP
 * units at least)? */
static bool report_counted__short(const struct tdr_report *r, size_t e)
{
	uint64_t c = r->counted[e], a = r->attributed[e];

	return r->has_counted[e] && r->event_units[e] != UNIT_DUMMY && c > 0 &&
	       (double)a < TDR_REPORT_ATTRIBUTED_MIN * (double)c &&
	       a + TDR_REPORT_UNATTRIBUTED_MIN_GAP <= c;
}

size_t tdr_report_counted__fmt(const struct tdr_report *r, size_t e, uint64_t v, char *buf,
			       size_t sz)
{
	int n = r->event_units[e] == UNIT_NS ? snprintf(buf, sz, "%.1f ms", (double)v / 1e6)
					     : snprintf(buf, sz, "%" PRIu64, v);

	return n < 0 ? 0 : (size_t)n < sz ? (size_t)n : sz - 1;
}

/* The one note: every event clearly short, with both numbers, then why. */
static void add_note(struct tdr_report *r)
{
	char buf[1536], a[48], c[48];
	size_t len = 0, shown = 0;

	for (size_t e = 0; e < r->event_cnt && len < 1024; e++) {
		if (!report_counted__short(r, e))
			continue;
		tdr_report_counted__fmt(r, e, r->attributed[e], a, sizeof(a));
		tdr_report_counted__fmt(r, e, r->counted[e], c, sizeof(c));
		len += (size_t)snprintf(buf + len, sizeof(buf) - len, "%s%s of %s %s (%.1f%%)",
					shown ? ", " : "", a, c, r->event_names[e],
					100.0 * (double)r->attributed[e] / (double)r->counted[e]);
		shown++;
	}
	if (!shown)
		return;
	tdr_report__warn(r,
			 "note: the samples attribute only %s counted over the run: the rest "
			 "was counted after each %s last sample (or by %s never sampled)%s%s",
			 buf, r->system_wide ? "CPU's" : "thread's",
			 r->system_wide ? "CPUs" : "threads",
			 r->user_only ? ", or while no sample could be taken (kernel mode with "
					"user-only sampling)"
				      : "",
			 r->rebased ? ", or in intervals dropped when a stream was re-based" : "");
}

void tdr_report_counted__finish(struct tdr_report *r)
{
	bool den_known = r->slots_cat >= 0;

	/* Rows added without samples (the rows layer) had no filters. */
	if (!r->seen)
		memcpy(r->attributed, r->total_sums, r->event_cnt * sizeof(*r->attributed));
	if (den_known) {
		const struct rep_category *c = &r->cats[r->slots_cat];

		for (size_t i = 0; i < c->f.den_cnt; i++)
			den_known &= r->has_counted[c->f.den[i].event_idx];
	}
	if (den_known) {
		double counted = tdr_report_slots(r, r->counted);

		if (counted > 0)
			r->slots_attributed = tdr_report_slots(r, r->attributed) / counted;
	}
	add_note(r);
}
