/*
 * report/render_stat_text.c - the text output of 'tdrec stat'.
 *
 * Responsibility: the interval header and rows (as they happen), the
 * whole-run breakdown (slots, each level-1 category with its level-2
 * children, the bottleneck marked with its threshold; or the software
 * counts with CPUs utilized), the fraction of the time counted, the thread
 * table, notes and warnings; every line within 100 columns (long notes are
 * wrapped). Thread names are the program's: control characters are shown
 * as '?'. Everything shown comes from the stat view (tdrec/stat.h).
 * Ownership and threads: writes to the stream it is given; one thread.
 * See: docs/stat.md "Text output".
 */
#include "render_stat_int.h"

#include <inttypes.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "tdrec/tdr_mem.h"
#include "tdrec/tdr_textout.h"

#define WIDTH 100

/* 12345678 -> "12,345,678". */
static const char *grouped(char *buf, size_t sz, uint64_t v)
{
	char tmp[32];
	int n = snprintf(tmp, sizeof(tmp), "%" PRIu64, v);
	size_t o = 0;

	for (int i = 0; i < n && o + 2 < sz; i++) {
		if (i && (n - i) % 3 == 0)
			buf[o++] = ',';
		buf[o++] = tmp[i];
	}
	buf[o] = '\0';
	return buf;
}

/* An event's value as text: milliseconds for clocks, else grouped. */
static const char *ev_text(const struct report_stat_doc *d, size_t i, uint64_t v, char *buf,
			   size_t sz)
{
	if (d->ev[i].clock) {
		snprintf(buf, sz, "%.3f", (double)v / 1e6);
		return buf;
	}
	return grouped(buf, sz, v);
}

static const char *ev_label(const struct report_stat_doc *d, size_t i, char *buf, size_t sz)
{
	snprintf(buf, sz, "%s%s", d->ev[i].name, d->ev[i].clock ? "(ms)" : "");
	return buf;
}

static int ev_width(const struct report_stat_doc *d, size_t i)
{
	char l[80];
	int w = (int)strlen(ev_label(d, i, l, sizeof(l))) + 1;

	return w < 11 ? 11 : w;
}

/* text, broken at spaces so no line is wider than WIDTH; later lines are
 * indented by two spaces. */
static void put_wrapped(FILE *f, const char *prefix, const char *text)
{
	tdr_text_wrap(f, &(struct tdr_wrap){.width = WIDTH, .prefix = prefix, .indent = 2}, text);
}

/* The exit of the program (or what stopped counting), for the header. */
static void how_ended(const struct report_stat_doc *d, char *buf, size_t sz)
{
	const struct tdr_stat_summary *s = d->sum;

	buf[0] = '\0';
	if (s->exited && s->term_signal) {
		const char *abbr = sigabbrev_np(s->term_signal);

		snprintf(buf, sz, ", the program was killed by signal %d (SIG%s)", s->term_signal,
			 abbr ? abbr : "?");
	} else if (s->exited) {
		snprintf(buf, sz, ", the program exited with status %d", s->exit_code);
	} else if (s->stop_signal) {
		const char *abbr = sigabbrev_np(s->stop_signal);

		snprintf(buf, sz, ", stopped by SIG%s", abbr ? abbr : "?");
	} else if (d->v.proc_cnt) {
		snprintf(buf, sz, ", the process%s ended", d->v.proc_cnt > 1 ? "es" : "");
	}
}

/* ---------------------------------------------------------------------------
 * Rows and tables.
 */
/* A category column: 9 wide, or its name's width ("be-bound:atom"). */
static int cat_width(const struct report_stat_doc *d, size_t c)
{
	size_t n = strlen(tdr_report_stat_cat_name(d, (int)c));

	return n > 9 ? (int)n : 9;
}

/* The columns interval rows and thread rows share: slots, each level-1
 * category and the bottleneck with TopDown, else every event. Returns
 * whether they were TopDown's. */
static bool text_row_heads(const struct report_stat_doc *d, FILE *f)
{
	char l[80];

	if (d->v.topdown) {
		fprintf(f, " %16s", "slots");
		for (size_t c = 0; c < d->v.category_cnt; c++)
			if (d->cat[c].level <= 1)
				fprintf(f, " %*s", cat_width(d, c), tdr_report_stat_cat_name(d, (int)c));
		fprintf(f, "  bottleneck");
		return true;
	}
	for (size_t i = 0; i < d->v.event_cnt; i++)
		fprintf(f, " %*s", ev_width(d, i), ev_label(d, i, l, sizeof(l)));
	return false;
}

/* Row r's values under text_row_heads' columns. */
static bool text_row_cells(const struct report_stat_doc *d, const struct tdr_stat_row *r, FILE *f)
{
	char b[48];

	if (d->v.topdown) {
		fprintf(f, " %16s", grouped(b, sizeof(b), (uint64_t)r->slots));
		for (size_t c = 0; c < d->v.category_cnt; c++) {
			if (d->cat[c].level > 1)
				continue;
			int w = cat_width(d, c);

			if (isnan(r->cats[c]))
				fprintf(f, " %*s", w, "-");
			else if (tdr_category_out_of_range(r->cats[c]))
				fprintf(f, " %*.1f%%!", w - 2, 100 * r->cats[c]);
			else
				fprintf(f, " %*.1f%%", w - 1, 100 * r->cats[c]);
		}
		fprintf(f, "  %s", tdr_report_stat_cat_name(d, r->bn_l2 >= 0 ? r->bn_l2 : r->bn));
		return true;
	}
	for (size_t i = 0; i < d->v.event_cnt; i++)
		fprintf(f, " %*s", ev_width(d, i), ev_text(d, i, r->values[i], b, sizeof(b)));
	return false;
}

void tdr_report_stat_text_interval_header(const struct report_stat_doc *d, FILE *f)
{
	/* The target is the command line, as long as the user made it. */
	size_t sz = strlen(d->v.target) + 48;
	char *head = tdr_malloc(sz);

	snprintf(head, sz, "%s, a row every %" PRIu64 " ms", d->v.target, d->v.interval_ms);
	put_wrapped(f, "tdrec stat: ", head);
	free(head);
	fprintf(f, "#%9s", "time(s)");
	if (!text_row_heads(d, f) && d->clock_ev >= 0)
		fprintf(f, " %6s", "CPUs");
	fputc('\n', f);
}

static void text_counted_tag(const struct tdr_stat_row *r, FILE *f)
{
	if (r->multiplexed)
		fprintf(f, "  counted %.0f%%", 100 * r->counted);
}

void tdr_report_stat_text_interval(const struct report_stat_doc *d, const struct tdr_stat_row *r,
				   FILE *f)
{
	fprintf(f, "%10.3f", (double)r->end_ns / 1e9);
	if (!text_row_cells(d, r, f) && d->clock_ev >= 0)
		fprintf(f, " %6.2f", isnan(r->cpus) ? 0.0 : r->cpus);
	text_counted_tag(r, f);
	fputc('\n', f);
}

/* The whole-run breakdown: slots, then each level-1 category followed by
 * its level-2 children, the bottleneck marked. */
static void text_topdown_total(const struct report_stat_doc *d, const struct tdr_stat_row *r,
			       FILE *f)
{
	char b[48];

	fprintf(f, "  %-22s %16s\n", "slots", grouped(b, sizeof(b), (uint64_t)r->slots));
	for (size_t c = 0; c < d->v.category_cnt; c++) {
		if (d->cat[c].level > 1)
			continue;
		for (size_t k = c; k < d->v.category_cnt; k++) {
			bool l1 = k == c;

			if (!l1 && d->cat[k].parent_idx != (int)c)
				continue;
			fprintf(f, "%s%-*s", l1 ? "  " : "    ", l1 ? 22 : 20,
				tdr_report_stat_cat_name(d, (int)k));
			if (isnan(r->cats[k]))
				fprintf(f, " %16s", "-");
			else
				fprintf(f, " %15.1f%%", 100 * r->cats[k]);
			if (tdr_category_out_of_range(r->cats[k])) /* false for NAN */
				fprintf(f, "  ! outside 0-100%%: shown as computed");
			if ((int)k == r->bn)
				fprintf(f, "  <- main bottleneck (above %.0f%%)",
					100 * d->cat[k].threshold);
			else if ((int)k == r->bn_l2)
				fprintf(f, "  <- (above %.0f%%)", 100 * d->cat[k].threshold);
			fputc('\n', f);
		}
	}
}

static void text_counts_total(const struct report_stat_doc *d, const struct tdr_stat_row *r,
			      FILE *f)
{
	char b[48];

	for (size_t i = 0; i < d->v.event_cnt; i++) {
		fprintf(f, "  %-22s %16s", d->ev[i].name, ev_text(d, i, r->values[i], b, sizeof(b)));
		if (d->ev[i].clock)
			fprintf(f, " ms");
		if ((int)i == d->clock_ev && !isnan(r->cpus))
			fprintf(f, "  %.2f CPUs utilized", r->cpus);
		fputc('\n', f);
	}
}

static void text_counted_line(const struct report_stat_doc *d, const struct tdr_stat_row *r,
			      FILE *f)
{
	const char *of = d->v.system_wide ? "the CPUs were counting" : "the program ran";
	char line[512], groups[128] = "";
	size_t n = 0;

	/* With several groups (AMD level 2) each one's share: the ratios of a
	 * group's events rest on its own share. */
	for (size_t g = 0; r->group_cnt > 1 && g < r->group_cnt && n < sizeof(groups); g++)
		n += (size_t)snprintf(groups + n, sizeof(groups) - n, "%s%.1f%%",
				      g ? ", " : " (groups: ", 100 * r->group_counted[g]);
	if (n && n < sizeof(groups))
		snprintf(groups + n, sizeof(groups) - n, ")");
	if (isnan(r->counted)) {
		return; /* said in the warnings, or nothing ran */
	} else if (r->multiplexed) {
		snprintf(line, sizeof(line),
			 "counted only %.1f%% of the time %s%s: the groups were multiplexed %s, "
			 "or the program ran on CPUs the plan does not cover. "
			 "Counts are as counted, not scaled; percentages are of the counted slots.",
			 100 * r->counted, of, groups,
			 r->group_cnt > 1 ? "(more groups than counters: they take turns, and "
					    "other perf users may hold counters too)"
					  : "with other perf users");
		put_wrapped(f, "  ", line);
	} else if (d->v.topdown) {
		fprintf(f, "  counted all the time %s (no multiplexing)\n", of);
	}
}

static void text_thread_header(const struct report_stat_doc *d, FILE *f)
{
	fprintf(f, "%7s %7s  %-16s", "pid", "tid", "name");
	text_row_heads(d, f);
	fputc('\n', f);
}

static void text_thread(const struct report_stat_doc *d, const struct tdr_stat_row *r, FILE *f)
{
	char pid[16] = "-", tid[16] = "-", name[17];

	if (r->kind == TDR_STAT_ROW_THREAD) {
		snprintf(pid, sizeof(pid), "%d", (int)r->pid);
		snprintf(tid, sizeof(tid), "%d", (int)r->tid);
	}
	/* Thread names are the program's: no control characters on a terminal. */
	tdr_text_safe(r->name, name, sizeof(name));
	fprintf(f, "%7s %7s  %-16s", pid, tid, name);
	text_row_cells(d, r, f);
	if (r->kind == TDR_STAT_ROW_THREAD)
		text_counted_tag(r, f);
	fputc('\n', f);
}

static void text_threads(const struct report_stat_doc *d, FILE *f)
{
	struct tdr_stat_row r;
	size_t shown = 0;

	fprintf(f, "\nper thread:\n");
	text_thread_header(d, f);
	for (size_t i = 0; i < d->v.thread_cnt; i++) {
		if (!tdr_stat__thread_row(d->st, i, &r))
			continue;
		text_thread(d, &r, f);
		shown++;
	}
	if (tdr_stat__unattributed_row(d->st, &r)) {
		text_thread(d, &r, f);
		put_wrapped(f, "  ",
			    "(not attributed) = the total minus the threads above: what "
			    "threads ran before tdrec had opened their own counters.");
	}
	if (!shown)
		fprintf(f, "  (no thread could be counted on its own)\n");
}

void tdr_report_stat_text(const struct report_stat_doc *d, FILE *f)
{
	const char *kernel_note = tdr_stat__kernel_note(d->st);
	struct tdr_stat_warnings w;
	struct tdr_stat_row total;
	char end[96], why[1024];

	tdr_stat__total_row(d->st, &total);
	how_ended(d, end, sizeof(end));
	if (d->sum->intervals)
		fputc('\n', f);
	put_wrapped(f, "tdrec stat: ", d->v.target);
	fprintf(f, "plan %s on %zu CPUs, %.3f s%s\n\n", d->v.plan, d->v.cpu_cnt,
		(double)d->sum->duration_ns / 1e9, end);
	if (d->v.topdown)
		text_topdown_total(d, &total, f);
	else
		text_counts_total(d, &total, f);
	text_counted_line(d, &total, f);
	if (kernel_note)
		put_wrapped(f, "  note: ", kernel_note);
	if (d->v.per_thread)
		text_threads(d, f);
	tdr_stat__topdown_why(d->st, why, sizeof(why));
	if (why[0]) {
		fputc('\n', f);
		put_wrapped(f, "", why);
	} else {
		for (size_t i = 0; i < d->v.note_cnt; i++)
			put_wrapped(f, "note: ", tdr_stat__note(d->st, i));
	}
	tdr_stat__warnings(d->st, &w);
	for (size_t i = 0; i < w.cnt; i++)
		put_wrapped(f, "warning: ", w.line[i]);
}
