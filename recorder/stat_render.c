/*
 * recorder/stat_render.c - the output of 'tdrec stat': text, JSON and CSV.
 *
 * Responsibility: turn rows (the total, intervals, threads, and what the
 * thread rows did not catch) into text that fits 100 columns, one JSON
 * document, or CSV with one header line. Interval rows are written as they
 * happen (text and CSV) or kept for the JSON document. Every number comes
 * from stat_calc.c; nothing here is measured or scaled. The schemas are
 * documented in docs/stat.md and must change with it.
 * Objects and lifecycle: functions on a struct tdr_stat after (or, for
 * intervals, during) its run.
 * Ownership and threads: writes only to opts->out (borrowed); one thread.
 * See: docs/stat.md "Text output", "JSON schema", "CSV schema".
 */
#define LOG_PREFIX "stat: "

#include "stat_int.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <string.h>

#include "tdrec/tdr_err.h"
#include "tdrec/tdr_log.h"
#include "tdrec/tdr_mem.h"

#define WIDTH 100
#define MAX_WARNINGS 8

/* The numbers of one row that are computed rather than summed. */
struct view {
	double cats[STAT_MAX_CATS];
	int bn, bn_l2;
	double counted;
	double slots;
};

static void view_of(const struct tdr_stat *st, const struct stat_row *row, struct view *v)
{
	stat_topdown(&st->sc, &row->vals, v->cats, &v->bn, &v->bn_l2);
	/* A difference of running times says nothing about multiplexing. */
	v->counted = row->kind == STAT_ROW_UNATTRIBUTED ? NAN : stat_counted(&st->sc, &row->vals);
	v->slots = stat_slots(&st->sc, &row->vals);
}

static bool has_topdown(const struct tdr_stat *st)
{
	return st->sc.slots_cat >= 0;
}

static const char *ev_name(const struct tdr_stat *st, size_t i)
{
	const char *n = st->sc.meta.events[i].name;

	return n ? n : "?";
}

static const char *cat_name(const struct tdr_stat *st, int i)
{
	return i >= 0 && st->sc.meta.categories[i].name ? st->sc.meta.categories[i].name : "-";
}

/* Software clocks count nanoseconds; they are shown in milliseconds. */
static bool is_clock(const char *name)
{
	return !strcmp(name, "task-clock") || !strcmp(name, "cpu-clock");
}

static int clock_idx(const struct tdr_stat *st)
{
	for (size_t i = 0; i < st->sc.meta.event_cnt; i++)
		if (is_clock(ev_name(st, i)))
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
	if (is_clock(ev_name(st, i))) {
		snprintf(buf, sz, "%.3f", (double)v / 1e6);
		return buf;
	}
	return grouped(buf, sz, v);
}

static const char *ev_label(const struct tdr_stat *st, size_t i, char *buf, size_t sz)
{
	snprintf(buf, sz, "%s%s", ev_name(st, i), is_clock(ev_name(st, i)) ? "(ms)" : "");
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
	size_t col = strlen(prefix);
	const char *p = text;

	fputs(prefix, f);
	while (*p) {
		size_t room = WIDTH > col ? WIDTH - col : 1, n = strlen(p), cut = n;

		if (n > room) {
			cut = room;
			while (cut > 0 && p[cut] != ' ')
				cut--;
			if (!cut)
				cut = room;
		}
		fwrite(p, 1, cut, f);
		fputc('\n', f);
		p += cut;
		while (*p == ' ')
			p++;
		if (*p) {
			fputs("  ", f);
			col = 2;
		}
	}
}

/* ---------------------------------------------------------------------------
 * Warnings and the lines around the numbers.
 */
struct warnings {
	size_t cnt;
	char line[MAX_WARNINGS][256];
};

static void warn_add(struct warnings *w, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void warn_add(struct warnings *w, const char *fmt, ...)
{
	va_list ap;

	if (w->cnt >= MAX_WARNINGS)
		return;
	va_start(ap, fmt);
	vsnprintf(w->line[w->cnt++], sizeof(w->line[0]), fmt, ap);
	va_end(ap);
}

static void collect_warnings(const struct tdr_stat *st, struct warnings *w)
{
	const struct stat_unit *u = st->total;
	uint64_t lost = stat_threads__lost(&st->th);

	w->cnt = 0;
	if (u->backwards)
		warn_add(w, "%" PRIu64 " counter values went down between two reads; nothing was "
			 "added for them",
			 u->backwards);
	if (u->read_err)
		warn_add(w, "some group reads failed (%s); their intervals count less",
			 tdr_strerror(u->read_err));
	if (!st->opts->system_wide && !u->has_ref)
		warn_add(w, "multiplexing cannot be told: the reference task-clock could not be "
			 "opened");
	if (lost)
		warn_add(w, "the thread tracker lost %" PRIu64 " records (its ring was full): some "
			 "threads may have no row of their own",
			 lost);
	if (st->th.missed)
		warn_add(w, "%" PRIu64 " threads ended before their counters could be opened (or "
			 "could not get any): they are in 'not attributed'",
			 st->th.missed);
}

/* Events that happen only in kernel mode read 0 with exclude_kernel. */
static const char *kernel_note(const struct tdr_stat *st)
{
	if (st->opts->kernel)
		return NULL;
	for (size_t i = 0; i < st->sc.meta.event_cnt; i++) {
		const char *n = ev_name(st, i);

		if (!strcmp(n, "context-switches") || !strcmp(n, "cpu-migrations"))
			return "context switches and CPU migrations happen in the kernel: they are "
			       "counted only with --kernel";
	}
	return NULL;
}

/* Why there is no TopDown, or "" when there is. */
static void topdown_why(const struct tdr_stat *st, char *buf, size_t sz)
{
	size_t len = 0;

	buf[0] = '\0';
	if (has_topdown(st))
		return;
	if (st->opts->plan_kind == TDR_PLAN_SOFTWARE) {
		snprintf(buf, sz, "TopDown is not measured: --plan software was asked for");
		return;
	}
	len = (size_t)snprintf(buf, sz, "TopDown is not available here");
	for (size_t i = 0; i < st->sc.meta.note_cnt && len < sz; i++)
		len += (size_t)snprintf(buf + len, sz - len, "%s%s", i ? "; " : ": ",
					st->sc.meta.notes[i]);
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
	} else if (st->pidfd_cnt) {
		snprintf(buf, sz, ", the process%s ended", st->pidfd_cnt > 1 ? "es" : "");
	}
}

/* ---------------------------------------------------------------------------
 * Text.
 */
static void text_interval_header(const struct tdr_stat *st, FILE *f)
{
	char l[80];

	fprintf(f, "tdrec stat: %s, a row every %" PRIu64 " ms\n", st->what,
		st->opts->interval_ms);
	fprintf(f, "#%9s", "time(s)");
	if (has_topdown(st)) {
		fprintf(f, " %16s", "slots");
		for (size_t c = 0; c < st->sc.meta.category_cnt; c++)
			if (st->sc.meta.categories[c].level <= 1)
				fprintf(f, " %9s", cat_name(st, (int)c));
		fprintf(f, "  bottleneck\n");
		return;
	}
	for (size_t i = 0; i < st->sc.meta.event_cnt; i++)
		fprintf(f, " %*s", ev_width(st, i), ev_label(st, i, l, sizeof(l)));
	if (clock_idx(st) >= 0)
		fprintf(f, " %6s", "CPUs");
	fputc('\n', f);
}

static void text_counted_tag(const struct view *v, FILE *f)
{
	if (!isnan(v->counted) && v->counted < STAT_COUNTED_FULL)
		fprintf(f, "  counted %.0f%%", 100 * v->counted);
}

static void text_interval(const struct tdr_stat *st, const struct stat_row *r, FILE *f)
{
	double dur_ns = (double)(r->end_ns - r->start_ns);
	struct view v;
	char b[48];
	int ck;

	view_of(st, r, &v);
	fprintf(f, "%10.3f", (double)r->end_ns / 1e9);
	if (has_topdown(st)) {
		fprintf(f, " %16s", grouped(b, sizeof(b), (uint64_t)v.slots));
		for (size_t c = 0; c < st->sc.meta.category_cnt; c++) {
			if (st->sc.meta.categories[c].level > 1)
				continue;
			if (isnan(v.cats[c]))
				fprintf(f, " %9s", "-");
			else
				fprintf(f, " %8.1f%%", 100 * v.cats[c]);
		}
		fprintf(f, "  %s", cat_name(st, v.bn_l2 >= 0 ? v.bn_l2 : v.bn));
		text_counted_tag(&v, f);
		fputc('\n', f);
		return;
	}
	for (size_t i = 0; i < st->sc.meta.event_cnt; i++)
		fprintf(f, " %*s", ev_width(st, i), ev_text(st, i, r->vals.v[i], b, sizeof(b)));
	ck = clock_idx(st);
	if (ck >= 0)
		fprintf(f, " %6.2f", dur_ns > 0 ? (double)r->vals.v[ck] / dur_ns : 0.0);
	text_counted_tag(&v, f);
	fputc('\n', f);
}

/* The whole-run breakdown: slots, then each level-1 category followed by
 * its level-2 children, the bottleneck marked. */
static void text_topdown_total(const struct tdr_stat *st, const struct view *v, FILE *f)
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
			fprintf(f, "%s%-*s", l1 ? "  " : "    ", l1 ? 22 : 20, cat_name(st, (int)k));
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
		bool clock = is_clock(ev_name(st, i));

		fprintf(f, "  %-22s %16s", ev_name(st, i), ev_text(st, i, r->vals.v[i], b, sizeof(b)));
		if (clock)
			fprintf(f, " ms");
		if (clock && dur_ns > 0)
			fprintf(f, "  %.2f CPUs utilized", (double)r->vals.v[i] / dur_ns);
		fputc('\n', f);
	}
}

static void text_counted_line(const struct tdr_stat *st, const struct view *v, FILE *f)
{
	const char *of = st->opts->system_wide ? "the CPUs were counting" : "the program ran";
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
	} else if (has_topdown(st)) {
		fprintf(f, "  counted all the time %s (no multiplexing)\n", of);
	}
}

static void text_thread_header(const struct tdr_stat *st, FILE *f)
{
	char l[80];

	fprintf(f, "%7s %7s  %-16s", "pid", "tid", "name");
	if (has_topdown(st)) {
		fprintf(f, " %16s", "slots");
		for (size_t c = 0; c < st->sc.meta.category_cnt; c++)
			if (st->sc.meta.categories[c].level <= 1)
				fprintf(f, " %9s", cat_name(st, (int)c));
		fprintf(f, "  bottleneck\n");
		return;
	}
	for (size_t i = 0; i < st->sc.meta.event_cnt; i++)
		fprintf(f, " %*s", ev_width(st, i), ev_label(st, i, l, sizeof(l)));
	fputc('\n', f);
}

static void text_thread(const struct tdr_stat *st, const struct stat_row *r, FILE *f)
{
	struct view v;
	char b[48], pid[16] = "-", tid[16] = "-", name[17];

	view_of(st, r, &v);
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
	if (has_topdown(st)) {
		fprintf(f, " %16s", grouped(b, sizeof(b), (uint64_t)v.slots));
		for (size_t c = 0; c < st->sc.meta.category_cnt; c++) {
			if (st->sc.meta.categories[c].level > 1)
				continue;
			if (isnan(v.cats[c]))
				fprintf(f, " %9s", "-");
			else
				fprintf(f, " %8.1f%%", 100 * v.cats[c]);
		}
		fprintf(f, "  %s", cat_name(st, v.bn_l2 >= 0 ? v.bn_l2 : v.bn));
	} else {
		for (size_t i = 0; i < st->sc.meta.event_cnt; i++)
			fprintf(f, " %*s", ev_width(st, i),
				ev_text(st, i, r->vals.v[i], b, sizeof(b)));
	}
	if (r->kind == STAT_ROW_THREAD)
		text_counted_tag(&v, f);
	fputc('\n', f);
}

/* ---------------------------------------------------------------------------
 * Rows of the whole run.
 */
static void total_row(const struct tdr_stat *st, struct stat_row *r)
{
	memset(r, 0, sizeof(*r));
	r->kind = STAT_ROW_TOTAL;
	r->end_ns = st->sum.duration_ns;
	stat__total(st, false, &r->vals);
}

static void thread_row(const struct stat_thread *th, struct stat_row *r)
{
	memset(r, 0, sizeof(*r));
	r->kind = STAT_ROW_THREAD;
	r->pid = th->pid;
	r->tid = th->tid;
	r->name = th->comm;
	r->vals = th->unit->sum;
}

/* Total minus every thread row; false when nothing is left (or the total
 * is the threads' sum). */
static bool unattributed_row(const struct tdr_stat *st, struct stat_row *r)
{
	struct stat_vals threads;

	if (st->total_is_threads)
		return false;
	memset(&threads, 0, sizeof(threads));
	for (size_t i = 0; i < st->th.cnt; i++)
		if (st->th.v[i].unit)
			stat_vals__add(&threads, &st->th.v[i].unit->sum);
	memset(r, 0, sizeof(*r));
	r->kind = STAT_ROW_UNATTRIBUTED;
	r->name = "(not attributed)";
	stat_vals__sub_sat(&r->vals, &st->total->sum, &threads);
	return !stat_vals__empty(&r->vals, st->sc.meta.event_cnt);
}

static void render_text(const struct tdr_stat *st, FILE *f)
{
	struct stat_row total, r;
	struct warnings w;
	struct view v;
	char end[96], why[1024];

	total_row(st, &total);
	view_of(st, &total, &v);
	how_ended(st, end, sizeof(end));
	if (st->sum.intervals)
		fputc('\n', f);
	fprintf(f, "tdrec stat: %s\n", st->what);
	fprintf(f, "plan %s on %zu CPUs, %.3f s%s\n\n", st->sc.meta.plan_name,
		st->plan->groups[0].cpu_cnt, (double)st->sum.duration_ns / 1e9, end);
	if (has_topdown(st))
		text_topdown_total(st, &v, f);
	else
		text_counts_total(st, &total, f);
	text_counted_line(st, &v, f);
	if (kernel_note(st))
		put_wrapped(f, "  note: ", kernel_note(st));
	if (st->per_thread) {
		size_t shown = 0;

		fprintf(f, "\nper thread:\n");
		text_thread_header(st, f);
		for (size_t i = 0; i < st->th.cnt; i++) {
			if (!st->th.v[i].unit)
				continue;
			thread_row(&st->th.v[i], &r);
			text_thread(st, &r, f);
			shown++;
		}
		if (unattributed_row(st, &r)) {
			text_thread(st, &r, f);
			put_wrapped(f, "  ",
				    "(not attributed) = the total minus the threads above: what "
				    "threads ran before tdrec had opened their own counters.");
		}
		if (!shown)
			fprintf(f, "  (no thread could be counted on its own)\n");
	}
	topdown_why(st, why, sizeof(why));
	if (why[0]) {
		fputc('\n', f);
		put_wrapped(f, "", why);
	} else {
		for (size_t i = 0; i < st->sc.meta.note_cnt; i++)
			put_wrapped(f, "note: ", st->sc.meta.notes[i]);
	}
	collect_warnings(st, &w);
	for (size_t i = 0; i < w.cnt; i++)
		put_wrapped(f, "warning: ", w.line[i]);
}

/* ---------------------------------------------------------------------------
 * JSON.
 */
static void json_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; s && *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c < 0x20 || c == 0x7f)
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}

static void json_num(FILE *f, double v)
{
	if (isnan(v) || isinf(v))
		fputs("null", f);
	else
		fprintf(f, "%.6g", v);
}

static void json_row(const struct tdr_stat *st, const struct stat_row *r, FILE *f)
{
	const struct tdr_meta *m = &st->sc.meta;
	struct view v;

	view_of(st, r, &v);
	fputc('{', f);
	if (r->kind == STAT_ROW_THREAD)
		fprintf(f, "\"pid\": %d, \"tid\": %d, ", (int)r->pid, (int)r->tid);
	if (r->kind == STAT_ROW_THREAD || r->kind == STAT_ROW_UNATTRIBUTED) {
		fputs("\"name\": ", f);
		json_str(f, r->name);
		fputs(", ", f);
	} else {
		fprintf(f, "\"start_s\": %.6f, \"end_s\": %.6f, ", (double)r->start_ns / 1e9,
			(double)r->end_ns / 1e9);
	}
	fputs("\"events\": {", f);
	for (size_t i = 0; i < m->event_cnt; i++) {
		fputs(i ? ", " : "", f);
		json_str(f, ev_name(st, i));
		fprintf(f, ": %" PRIu64, r->vals.v[i]);
	}
	fprintf(f, "}, \"time_enabled_ns\": %" PRIu64 ", \"time_running_ns\": %" PRIu64,
		r->vals.enabled_ns[0], r->vals.running_ns[0]);
	fputs(", \"task_run_ns\": ", f);
	if (st->opts->system_wide || !r->vals.ref_ns)
		fputs("null", f);
	else
		fprintf(f, "%" PRIu64, r->vals.ref_ns);
	fputs(", \"counted\": ", f);
	json_num(f, v.counted);
	if (!has_topdown(st)) {
		fputs(", \"slots\": null, \"topdown\": null, \"bottleneck\": null, "
		      "\"bottleneck_l2\": null}",
		      f);
		return;
	}
	fprintf(f, ", \"slots\": %.0f, \"topdown\": {", v.slots);
	for (size_t c = 0; c < m->category_cnt; c++) {
		fputs(c ? ", " : "", f);
		json_str(f, cat_name(st, (int)c));
		fputs(": ", f);
		json_num(f, v.cats[c]);
	}
	fputs("}, \"bottleneck\": ", f);
	if (v.bn >= 0)
		json_str(f, cat_name(st, v.bn));
	else
		fputs("null", f);
	fputs(", \"bottleneck_l2\": ", f);
	if (v.bn_l2 >= 0)
		json_str(f, cat_name(st, v.bn_l2));
	else
		fputs("null", f);
	fputc('}', f);
}

static void json_schema(const struct tdr_stat *st, FILE *f)
{
	const struct tdr_meta *m = &st->sc.meta;

	fputs("  \"events\": [", f);
	for (size_t i = 0; i < m->event_cnt; i++) {
		fputs(i ? ", " : "", f);
		fputs("{\"name\": ", f);
		json_str(f, ev_name(st, i));
		fputs(", \"pmu\": ", f);
		json_str(f, m->events[i].pmu_name);
		fprintf(f, ", \"group\": %u, \"unit\": \"%s\"}", m->events[i].group_idx,
			is_clock(ev_name(st, i)) ? "ns" : "count");
	}
	fputs("],\n  \"categories\": [", f);
	for (size_t c = 0; c < m->category_cnt; c++) {
		const struct tdr_category *k = &m->categories[c];

		fputs(c ? ", " : "", f);
		fputs("{\"name\": ", f);
		json_str(f, k->name);
		fprintf(f, ", \"level\": %u, \"parent\": ", k->level ? k->level : 1);
		if (k->parent)
			json_str(f, k->parent);
		else
			fputs("null", f);
		fprintf(f, ", \"derived\": %s, \"threshold\": ",
			k->flags & TDR_CATEGORY_DERIVED ? "true" : "false");
		json_num(f, st->sc.threshold[c]);
		fputc('}', f);
	}
	fputs("],\n", f);
}

static void json_strings(FILE *f, const char *key, char **v, size_t n, bool last)
{
	fprintf(f, "  \"%s\": [", key);
	for (size_t i = 0; i < n; i++) {
		fputs(i ? ", " : "", f);
		json_str(f, v[i]);
	}
	fprintf(f, "]%s\n", last ? "" : ",");
}

static void render_json(const struct tdr_stat *st, FILE *f)
{
	const struct tdr_stat_summary *s = &st->sum;
	struct stat_row r;
	struct warnings w;
	char why[1024], *wl[MAX_WARNINGS];
	bool first = true;

	fputs("{\n  \"tdrec_version\": ", f);
	json_str(f, TDREC_VERSION);
	fputs(",\n  \"target\": ", f);
	json_str(f, st->what);
	fputs(",\n  \"plan\": ", f);
	json_str(f, st->sc.meta.plan_name);
	fprintf(f, ",\n  \"cpus\": %zu,\n  \"system_wide\": %s,\n", st->plan->groups[0].cpu_cnt,
		st->opts->system_wide ? "true" : "false");
	topdown_why(st, why, sizeof(why));
	fprintf(f, "  \"topdown\": %s,\n  \"topdown_unavailable\": ",
		has_topdown(st) ? "true" : "false");
	if (why[0])
		json_str(f, why);
	else
		fputs("null", f);
	fprintf(f, ",\n  \"duration_s\": %.6f,\n  \"interval_ms\": ", (double)s->duration_ns / 1e9);
	if (st->opts->interval_ms)
		fprintf(f, "%" PRIu64, st->opts->interval_ms);
	else
		fputs("null", f);
	fputs(",\n  \"program\": ", f);
	if (!s->launched) {
		fputs("null", f);
	} else {
		fprintf(f, "{\"pid\": %d, \"exit_code\": ",
			st->launch ? (int)tdr_launch__pid(st->launch) : (int)st->targets[0]);
		if (s->exited && !s->term_signal)
			fprintf(f, "%d", s->exit_code);
		else
			fputs("null", f);
		fputs(", \"signal\": ", f);
		if (s->term_signal)
			fprintf(f, "%d", s->term_signal);
		else
			fputs("null", f);
		fputc('}', f);
	}
	fputs(",\n", f);
	json_schema(st, f);
	fputs("  \"notes\": [", f);
	for (size_t i = 0; i < st->sc.meta.note_cnt; i++) {
		fputs(i ? ", " : "", f);
		json_str(f, st->sc.meta.notes[i]);
	}
	if (kernel_note(st)) {
		fputs(st->sc.meta.note_cnt ? ", " : "", f);
		json_str(f, kernel_note(st));
	}
	fputs("],\n", f);
	collect_warnings(st, &w);
	for (size_t i = 0; i < w.cnt; i++)
		wl[i] = w.line[i];
	json_strings(f, "warnings", wl, w.cnt, false);
	total_row(st, &r);
	fputs("  \"total\": ", f);
	json_row(st, &r, f);
	fputs(",\n  \"intervals\": [", f);
	for (size_t i = 0; i < st->row_cnt; i++) {
		fputs(i ? ",\n    " : "\n    ", f);
		json_row(st, &st->rows[i], f);
	}
	fputs(st->row_cnt ? "\n  ],\n  \"threads\": " : "],\n  \"threads\": ", f);
	if (!st->per_thread) {
		fputs("null,\n  \"not_attributed\": null\n}\n", f);
		return;
	}
	fputc('[', f);
	for (size_t i = 0; i < st->th.cnt; i++) {
		if (!st->th.v[i].unit)
			continue;
		thread_row(&st->th.v[i], &r);
		fputs(first ? "\n    " : ",\n    ", f);
		json_row(st, &r, f);
		first = false;
	}
	fputs(first ? "],\n  \"not_attributed\": " : "\n  ],\n  \"not_attributed\": ", f);
	if (st->total_is_threads) {
		fputs("null\n}\n", f);
		return;
	}
	unattributed_row(st, &r);
	json_row(st, &r, f);
	fputs("\n}\n", f);
}

/* ---------------------------------------------------------------------------
 * CSV.
 */
static void csv_field(FILE *f, const char *s)
{
	if (!s || !*s)
		return;
	if (!strpbrk(s, ",\"\n\r")) {
		fputs(s, f);
		return;
	}
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', f);
		fputc(*s, f);
	}
	fputc('"', f);
}

static void csv_header(const struct tdr_stat *st, FILE *f)
{
	fputs("type,start_s,end_s,pid,tid,name", f);
	for (size_t i = 0; i < st->sc.meta.event_cnt; i++) {
		fputc(',', f);
		csv_field(f, ev_name(st, i));
	}
	fputs(",time_enabled_ns,time_running_ns,task_run_ns,counted,slots", f);
	for (size_t c = 0; c < st->sc.meta.category_cnt; c++) {
		fputc(',', f);
		csv_field(f, cat_name(st, (int)c));
	}
	fputs(",bottleneck,bottleneck_l2\n", f);
}

static void csv_row(const struct tdr_stat *st, const struct stat_row *r, FILE *f)
{
	static const char *const kinds[] = {"total", "interval", "thread", "not-attributed"};
	struct view v;

	view_of(st, r, &v);
	fprintf(f, "%s,", kinds[r->kind]);
	if (r->kind == STAT_ROW_TOTAL || r->kind == STAT_ROW_INTERVAL)
		fprintf(f, "%.6f,%.6f,,,", (double)r->start_ns / 1e9, (double)r->end_ns / 1e9);
	else if (r->kind == STAT_ROW_THREAD)
		fprintf(f, ",,%d,%d,", (int)r->pid, (int)r->tid);
	else
		fputs(",,,,", f);
	csv_field(f, r->name);
	for (size_t i = 0; i < st->sc.meta.event_cnt; i++)
		fprintf(f, ",%" PRIu64, r->vals.v[i]);
	fprintf(f, ",%" PRIu64 ",%" PRIu64 ",", r->vals.enabled_ns[0], r->vals.running_ns[0]);
	if (!st->opts->system_wide && r->vals.ref_ns)
		fprintf(f, "%" PRIu64, r->vals.ref_ns);
	fputc(',', f);
	if (!isnan(v.counted))
		fprintf(f, "%.4f", v.counted);
	fputc(',', f);
	if (has_topdown(st))
		fprintf(f, "%.0f", v.slots);
	for (size_t c = 0; c < st->sc.meta.category_cnt; c++) {
		fputc(',', f);
		if (!isnan(v.cats[c]))
			fprintf(f, "%.4f", v.cats[c]);
	}
	fprintf(f, ",%s,%s\n", v.bn >= 0 ? cat_name(st, v.bn) : "",
		v.bn_l2 >= 0 ? cat_name(st, v.bn_l2) : "");
}

static void render_csv(const struct tdr_stat *st, FILE *f)
{
	struct stat_row r;

	total_row(st, &r);
	csv_row(st, &r, f);
	if (!st->per_thread)
		return;
	for (size_t i = 0; i < st->th.cnt; i++) {
		if (!st->th.v[i].unit)
			continue;
		thread_row(&st->th.v[i], &r);
		csv_row(st, &r, f);
	}
	if (unattributed_row(st, &r))
		csv_row(st, &r, f);
}

/* ---------------------------------------------------------------------------
 * Entry points.
 */
static void check_write(struct tdr_stat *st, FILE *f)
{
	if (ferror(f) && !st->sum.write_err) {
		st->sum.write_err = -EIO;
		tdr_warn("failed to write the output: %s", tdr_strerror(-EIO));
	}
}

int stat__interval(struct tdr_stat *st, const struct stat_row *row)
{
	FILE *f = st->opts->out;

	switch (st->opts->fmt) {
	case TDR_STAT_JSON:
		if (tdr_ensure_cap(&st->rows, &st->row_cap, sizeof(*st->rows), st->row_cnt + 1))
			return -ENOMEM;
		st->rows[st->row_cnt++] = *row;
		return 0;
	case TDR_STAT_CSV:
		if (!st->header_done)
			csv_header(st, f);
		csv_row(st, row, f);
		break;
	case TDR_STAT_TEXT:
		if (!st->header_done)
			text_interval_header(st, f);
		text_interval(st, row, f);
		break;
	}
	st->header_done = true;
	/* A row is worth nothing late: the reader watches it live. */
	fflush(f);
	check_write(st, f);
	return 0;
}

int tdr_stat__render(struct tdr_stat *st)
{
	FILE *f = st->opts->out;

	if (!st->done)
		return -EINVAL;
	st->sum.threads = 0;
	for (size_t i = 0; i < st->th.cnt; i++)
		st->sum.threads += st->th.v[i].unit != NULL;
	switch (st->opts->fmt) {
	case TDR_STAT_TEXT:
		render_text(st, f);
		break;
	case TDR_STAT_JSON:
		render_json(st, f);
		break;
	case TDR_STAT_CSV:
		if (!st->header_done)
			csv_header(st, f);
		st->header_done = true;
		render_csv(st, f);
		break;
	}
	fflush(f);
	check_write(st, f);
	return st->sum.write_err;
}
