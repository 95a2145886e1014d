/*
 * stat/stat_render_text.c - the text output of 'tdrec stat'.
 *
 * Responsibility: the interval header and rows (as they happen), the
 * whole-run breakdown (slots, each level-1 category with its level-2
 * children, the bottleneck marked with its threshold; or the software
 * counts with CPUs utilized), the fraction of the time counted, the thread
 * table, notes and warnings; every line within 100 columns (long notes are
 * wrapped). Thread names are the program's: control characters are shown
 * as '?'.
 * Ownership and threads: writes to the stream it is given; one thread.
 * See: docs/stat.md "Text output".
 */
#include "stat_int.h"

#include <inttypes.h>
#include <math.h>
#include <signal.h>
#include <string.h>

#include "tdrec/tdr_textout.h"

#define WIDTH 100

static int clock_idx(const struct tdr_stat *st)
{
	for (size_t i = 0; i < st->sc.meta.event_cnt; i++)
		if (stat_is_clock(stat_ev_name(st, i)))
			return (int)i;
	return -1;
}

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
static const char *ev_text(const struct tdr_stat *st, size_t i, uint64_t v, char *buf, size_t sz)
{
	if (stat_is_clock(stat_ev_name(st, i))) {
		snprintf(buf, sz, "%.3f", (double)v / 1e6);
		return buf;
	}
	return grouped(buf, sz, v);
}

static const char *ev_label(const struct tdr_stat *st, size_t i, char *buf, size_t sz)
{
	snprintf(buf, sz, "%s%s", stat_ev_name(st, i),
		 stat_is_clock(stat_ev_name(st, i)) ? "(ms)" : "");
	return buf;
}

static int ev_width(const struct tdr_stat *st, size_t i)
{
	char l[80];
	int w = (int)strlen(ev_label(st, i, l, sizeof(l))) + 1;

	return w < 11 ? 11 : w;
}

/* text, broken at spaces so no line is wider than WIDTH; later lines are
 * indented by two spaces. */
static void put_wrapped(FILE *f, const char *prefix, const char *text)
{
	tdr_text_wrap(f, &(struct tdr_wrap){.width = WIDTH, .prefix = prefix, .indent = 2}, text);
}

/* The exit of the program (or what stopped counting), for the header. */
static void how_ended(const struct tdr_stat *st, char *buf, size_t sz)
{
	const struct tdr_stat_summary *s = &st->sum;

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
	} else if (st->tg.proc_cnt) {
		snprintf(buf, sz, ", the process%s ended", st->tg.proc_cnt > 1 ? "es" : "");
	}
}

/* ---------------------------------------------------------------------------
 * Rows and tables.
 */
/* The columns interval rows and thread rows share: slots, each level-1
 * category and the bottleneck with TopDown, else every event. Returns
 * whether they were TopDown's. */
static bool text_row_heads(const struct tdr_stat *st, FILE *f)
{
	char l[80];

	if (stat_has_topdown(st)) {
		fprintf(f, " %16s", "slots");
		for (size_t c = 0; c < st->sc.meta.category_cnt; c++)
			if (st->sc.meta.categories[c].level <= 1)
				fprintf(f, " %9s", stat_cat_name(st, (int)c));
		fprintf(f, "  bottleneck");
		return true;
	}
	for (size_t i = 0; i < st->sc.meta.event_cnt; i++)
		fprintf(f, " %*s", ev_width(st, i), ev_label(st, i, l, sizeof(l)));
	return false;
}

/* Row r's values under text_row_heads' columns (v is r's view). */
static bool text_row_cells(const struct tdr_stat *st, const struct stat_row *r,
			   const struct stat_view *v, FILE *f)
{
	char b[48];

	if (stat_has_topdown(st)) {
		fprintf(f, " %16s", grouped(b, sizeof(b), (uint64_t)v->slots));
		for (size_t c = 0; c < st->sc.meta.category_cnt; c++) {
			if (st->sc.meta.categories[c].level > 1)
				continue;
			if (isnan(v->cats[c]))
				fprintf(f, " %9s", "-");
			else
				fprintf(f, " %8.1f%%", 100 * v->cats[c]);
		}
		fprintf(f, "  %s", stat_cat_name(st, v->bn_l2 >= 0 ? v->bn_l2 : v->bn));
		return true;
	}
	for (size_t i = 0; i < st->sc.meta.event_cnt; i++)
		fprintf(f, " %*s", ev_width(st, i), ev_text(st, i, r->vals.v[i], b, sizeof(b)));
	return false;
}

void stat_text_interval_header(const struct tdr_stat *st, FILE *f)
{
	fprintf(f, "tdrec stat: %s, a row every %" PRIu64 " ms\n", st->what, st->opts->interval_ms);
	fprintf(f, "#%9s", "time(s)");
	if (!text_row_heads(st, f) && clock_idx(st) >= 0)
		fprintf(f, " %6s", "CPUs");
	fputc('\n', f);
}

static void text_counted_tag(const struct stat_view *v, FILE *f)
{
	if (!isnan(v->counted) && v->counted < STAT_COUNTED_FULL)
		fprintf(f, "  counted %.0f%%", 100 * v->counted);
}

void stat_text_interval(const struct tdr_stat *st, const struct stat_row *r, FILE *f)
{
	double dur_ns = (double)(r->end_ns - r->start_ns);
	struct stat_view v;
	int ck = clock_idx(st);

	stat_view_of(st, r, &v);
	fprintf(f, "%10.3f", (double)r->end_ns / 1e9);
	if (!text_row_cells(st, r, &v, f) && ck >= 0)
		fprintf(f, " %6.2f", dur_ns > 0 ? (double)r->vals.v[ck] / dur_ns : 0.0);
	text_counted_tag(&v, f);
	fputc('\n', f);
}

/* The whole-run breakdown: slots, then each level-1 category followed by
 * its level-2 children, the bottleneck marked. */
static void text_topdown_total(const struct tdr_stat *st, const struct stat_view *v, FILE *f)
{
	const struct tdr_meta *m = &st->sc.meta;
	char b[48];

	fprintf(f, "  %-22s %16s\n", "slots", grouped(b, sizeof(b), (uint64_t)v->slots));
	for (size_t c = 0; c < m->category_cnt; c++) {
		if (m->categories[c].level > 1)
			continue;
		for (size_t k = c; k < m->category_cnt; k++) {
			bool l1 = k == c;

			if (!l1 && st->sc.parent[k] != (int)c)
				continue;
			fprintf(f, "%s%-*s", l1 ? "  " : "    ", l1 ? 22 : 20,
				stat_cat_name(st, (int)k));
			if (isnan(v->cats[k]))
				fprintf(f, " %16s", "-");
			else
				fprintf(f, " %15.1f%%", 100 * v->cats[k]);
			if ((int)k == v->bn)
				fprintf(f, "  <- main bottleneck (above %.0f%%)",
					100 * st->sc.threshold[k]);
			else if ((int)k == v->bn_l2)
				fprintf(f, "  <- (above %.0f%%)", 100 * st->sc.threshold[k]);
			fputc('\n', f);
		}
	}
}

static void text_counts_total(const struct tdr_stat *st, const struct stat_row *r, FILE *f)
{
	double dur_ns = (double)(r->end_ns - r->start_ns);
	char b[48];

	for (size_t i = 0; i < st->sc.meta.event_cnt; i++) {
		bool clock = stat_is_clock(stat_ev_name(st, i));

		fprintf(f, "  %-22s %16s", stat_ev_name(st, i),
			ev_text(st, i, r->vals.v[i], b, sizeof(b)));
		if (clock)
			fprintf(f, " ms");
		if (clock && dur_ns > 0)
			fprintf(f, "  %.2f CPUs utilized", (double)r->vals.v[i] / dur_ns);
		fputc('\n', f);
	}
}

static void text_counted_line(const struct tdr_stat *st, const struct stat_view *v, FILE *f)
{
	const char *of = st->opts->what.system_wide ? "the CPUs were counting" : "the program ran";
	char line[512];

	if (isnan(v->counted)) {
		return; /* said in the warnings, or nothing ran */
	} else if (v->counted < STAT_COUNTED_FULL) {
		snprintf(line, sizeof(line),
			 "counted only %.1f%% of the time %s: the groups were multiplexed with "
			 "other perf users, or the program ran on CPUs the plan does not cover. "
			 "Counts are as counted, not scaled; percentages are of the counted slots.",
			 100 * v->counted, of);
		put_wrapped(f, "  ", line);
	} else if (stat_has_topdown(st)) {
		fprintf(f, "  counted all the time %s (no multiplexing)\n", of);
	}
}

static void text_thread_header(const struct tdr_stat *st, FILE *f)
{
	fprintf(f, "%7s %7s  %-16s", "pid", "tid", "name");
	text_row_heads(st, f);
	fputc('\n', f);
}

static void text_thread(const struct tdr_stat *st, const struct stat_row *r, FILE *f)
{
	struct stat_view v;
	char pid[16] = "-", tid[16] = "-", name[17];

	stat_view_of(st, r, &v);
	if (r->kind == STAT_ROW_THREAD) {
		snprintf(pid, sizeof(pid), "%d", (int)r->pid);
		snprintf(tid, sizeof(tid), "%d", (int)r->tid);
	}
	/* Thread names are the program's: no control characters on a terminal. */
	snprintf(name, sizeof(name), "%s", r->name ? r->name : "");
	for (char *p = name; *p; p++)
		if ((unsigned char)*p < 0x20 || *p == 0x7f)
			*p = '?';
	fprintf(f, "%7s %7s  %-16s", pid, tid, name);
	text_row_cells(st, r, &v, f);
	if (r->kind == STAT_ROW_THREAD)
		text_counted_tag(&v, f);
	fputc('\n', f);
}

void stat_render_text(const struct tdr_stat *st, FILE *f)
{
	struct stat_row total, r;
	struct stat_warnings w;
	struct stat_view v;
	char end[96], why[1024];

	stat_total_row(st, &total);
	stat_view_of(st, &total, &v);
	how_ended(st, end, sizeof(end));
	if (st->sum.intervals)
		fputc('\n', f);
	fprintf(f, "tdrec stat: %s\n", st->what);
	fprintf(f, "plan %s on %zu CPUs, %.3f s%s\n\n", st->sc.meta.plan_name,
		st->plan->groups[0].cpu_cnt, (double)st->sum.duration_ns / 1e9, end);
	if (stat_has_topdown(st))
		text_topdown_total(st, &v, f);
	else
		text_counts_total(st, &total, f);
	text_counted_line(st, &v, f);
	if (stat_kernel_note(st))
		put_wrapped(f, "  note: ", stat_kernel_note(st));
	if (st->per_thread) {
		size_t shown = 0;

		fprintf(f, "\nper thread:\n");
		text_thread_header(st, f);
		for (size_t i = 0; i < st->th.cnt; i++) {
			if (!st->th.v[i].unit)
				continue;
			stat_thread_row(&st->th.v[i], &r);
			text_thread(st, &r, f);
			shown++;
		}
		if (stat_unattributed_row(st, &r)) {
			text_thread(st, &r, f);
			put_wrapped(f, "  ",
				    "(not attributed) = the total minus the threads above: what "
				    "threads ran before tdrec had opened their own counters.");
		}
		if (!shown)
			fprintf(f, "  (no thread could be counted on its own)\n");
	}
	stat_topdown_why(st, why, sizeof(why));
	if (why[0]) {
		fputc('\n', f);
		put_wrapped(f, "", why);
	} else {
		for (size_t i = 0; i < st->sc.meta.note_cnt; i++)
			put_wrapped(f, "note: ", st->sc.meta.notes[i]);
	}
	stat_collect_warnings(st, &w);
	for (size_t i = 0; i < w.cnt; i++)
		put_wrapped(f, "warning: ", w.line[i]);
}
