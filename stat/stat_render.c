/*
 * stat/stat_render.c - the output of 'tdrec stat': what every format
 * shares, CSV, and the entry points.
 *
 * Responsibility: the numbers a row shows (categories, bottleneck, the
 * fraction counted: all from stat_calc.c, nothing measured or scaled here),
 * the whole-run rows (total, threads, what the threads did not catch), the
 * warnings and notes, CSV with one header line, and the two entry points:
 * interval rows as they happen (text and CSV; JSON keeps them) and the
 * whole-run output. Text is in stat_render_text.c, JSON in
 * stat_render_json.c. The schemas are documented in docs/stat.md and must
 * change with it.
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
#include <stdarg.h>
#include <string.h>

#include "tdrec/tdr_err.h"
#include "tdrec/tdr_log.h"
#include "tdrec/tdr_mem.h"
#include "tdrec/tdr_textout.h"

void stat_view_of(const struct tdr_stat *st, const struct stat_row *row, struct stat_view *v)
{
	stat_topdown(&st->sc, &row->vals, v->cats, &v->bn, &v->bn_l2);
	/* A difference of running times says nothing about multiplexing. */
	v->counted = row->kind == STAT_ROW_UNATTRIBUTED ? NAN : stat_counted(&st->sc, &row->vals);
	v->slots = stat_slots(&st->sc, &row->vals);
}

bool stat_has_topdown(const struct tdr_stat *st)
{
	return st->sc.slots_cat >= 0;
}

const char *stat_ev_name(const struct tdr_stat *st, size_t i)
{
	const char *n = st->sc.meta.events[i].name;

	return n ? n : "?";
}

const char *stat_cat_name(const struct tdr_stat *st, int i)
{
	return i >= 0 && st->sc.meta.categories[i].name ? st->sc.meta.categories[i].name : "-";
}

/* Software clocks count nanoseconds; they are shown in milliseconds. */
bool stat_is_clock(const char *name)
{
	return !strcmp(name, "task-clock") || !strcmp(name, "cpu-clock");
}

static void warn_add(struct stat_warnings *w, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void warn_add(struct stat_warnings *w, const char *fmt, ...)
{
	va_list ap;

	if (w->cnt >= STAT_MAX_WARNINGS)
		return;
	va_start(ap, fmt);
	vsnprintf(w->line[w->cnt++], sizeof(w->line[0]), fmt, ap);
	va_end(ap);
}

void stat_collect_warnings(const struct tdr_stat *st, struct stat_warnings *w)
{
	const struct stat_unit *u = st->total;
	uint64_t lost = stat_threads__lost(&st->th);

	w->cnt = 0;
	if (u->backwards)
		warn_add(w,
			 "%" PRIu64 " counter values went down between two reads; nothing was "
			 "added for them",
			 u->backwards);
	if (u->read_err)
		warn_add(w, "some group reads failed (%s); their intervals count less",
			 tdr_strerror(u->read_err));
	if (!st->opts->what.system_wide && !u->has_ref)
		warn_add(w, "multiplexing cannot be told: the reference task-clock could not be "
			    "opened");
	if (lost)
		warn_add(w,
			 "the thread tracker lost %" PRIu64 " records (its ring was full): some "
			 "threads may have no row of their own",
			 lost);
	if (st->th.missed)
		warn_add(w,
			 "%" PRIu64 " threads ended before their counters could be opened (or "
			 "could not get any): %s",
			 st->th.missed,
			 st->total_is_threads ? "they are not counted (see 'counted')"
					      : "they are in 'not attributed'");
}

/* Events that happen only in kernel mode read 0 with exclude_kernel. */
const char *stat_kernel_note(const struct tdr_stat *st)
{
	if (st->opts->what.kernel || st->popts.kernel_sw_counts)
		return NULL;
	for (size_t i = 0; i < st->sc.meta.event_cnt; i++) {
		const char *n = stat_ev_name(st, i);

		if (!strcmp(n, "context-switches") || !strcmp(n, "cpu-migrations"))
			return "context switches and CPU migrations happen in the kernel: they are "
			       "counted only with --kernel or with perf_event_paranoid <= 1";
	}
	return NULL;
}

/* Why there is no TopDown, or "" when there is. */
void stat_topdown_why(const struct tdr_stat *st, char *buf, size_t sz)
{
	size_t len = 0;

	buf[0] = '\0';
	if (stat_has_topdown(st))
		return;
	if (st->opts->what.plan_kind == TDR_PLAN_SOFTWARE) {
		snprintf(buf, sz, "TopDown is not measured: --plan software was asked for");
		return;
	}
	len = (size_t)snprintf(buf, sz, "TopDown is not available here");
	for (size_t i = 0; i < st->sc.meta.note_cnt && len < sz; i++)
		len += (size_t)snprintf(buf + len, sz - len, "%s%s", i ? "; " : ": ",
					st->sc.meta.notes[i]);
}

/* ---------------------------------------------------------------------------
 * Rows of the whole run.
 */
void stat_total_row(const struct tdr_stat *st, struct stat_row *r)
{
	memset(r, 0, sizeof(*r));
	r->kind = STAT_ROW_TOTAL;
	r->end_ns = st->sum.duration_ns;
	stat__total(st, false, &r->vals);
}

void stat_thread_row(const struct stat_thread *th, struct stat_row *r)
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
bool stat_unattributed_row(const struct tdr_stat *st, struct stat_row *r)
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

/* ---------------------------------------------------------------------------
 * CSV.
 */
static void csv_header(const struct tdr_stat *st, FILE *f)
{
	static const char *const head[] = {"type", "start_s", "end_s", "pid", "tid", "name"};
	static const char *const mid[] = {"time_enabled_ns", "time_running_ns", "task_run_ns",
					  "counted", "slots"};
	struct tdr_csv c;

	tdr_csv__init(&c, f);
	for (size_t i = 0; i < TDR_ARRAY_SIZE(head); i++)
		tdr_csv__field(&c, head[i]);
	for (size_t i = 0; i < st->sc.meta.event_cnt; i++)
		tdr_csv__field(&c, stat_ev_name(st, i));
	for (size_t i = 0; i < TDR_ARRAY_SIZE(mid); i++)
		tdr_csv__field(&c, mid[i]);
	for (size_t k = 0; k < st->sc.meta.category_cnt; k++)
		tdr_csv__field(&c, stat_cat_name(st, (int)k));
	tdr_csv__field(&c, "bottleneck");
	tdr_csv__field(&c, "bottleneck_l2");
	tdr_csv__end_row(&c);
}

/* A fraction with four decimals, empty when it cannot be told. */
static void csv_fraction(struct tdr_csv *c, double v)
{
	if (isnan(v))
		tdr_csv__field(c, NULL);
	else
		tdr_csv__fieldf(c, "%.4f", v);
}

static void csv_row(const struct tdr_stat *st, const struct stat_row *r, FILE *f)
{
	static const char *const kinds[] = {"total", "interval", "thread", "not-attributed"};
	struct stat_view v;
	struct tdr_csv c;

	stat_view_of(st, r, &v);
	tdr_csv__init(&c, f);
	tdr_csv__field(&c, kinds[r->kind]);
	if (r->kind == STAT_ROW_TOTAL || r->kind == STAT_ROW_INTERVAL) {
		tdr_csv__fieldf(&c, "%.6f", (double)r->start_ns / 1e9);
		tdr_csv__fieldf(&c, "%.6f", (double)r->end_ns / 1e9);
	} else {
		tdr_csv__field(&c, NULL);
		tdr_csv__field(&c, NULL);
	}
	if (r->kind == STAT_ROW_THREAD) {
		tdr_csv__fieldf(&c, "%d", (int)r->pid);
		tdr_csv__fieldf(&c, "%d", (int)r->tid);
	} else {
		tdr_csv__field(&c, NULL);
		tdr_csv__field(&c, NULL);
	}
	tdr_csv__field(&c, r->name);
	for (size_t i = 0; i < st->sc.meta.event_cnt; i++)
		tdr_csv__fieldf(&c, "%" PRIu64, r->vals.v[i]);
	tdr_csv__fieldf(&c, "%" PRIu64, r->vals.enabled_ns[0]);
	tdr_csv__fieldf(&c, "%" PRIu64, r->vals.running_ns[0]);
	if (!st->opts->what.system_wide && r->vals.ref_ns)
		tdr_csv__fieldf(&c, "%" PRIu64, r->vals.ref_ns);
	else
		tdr_csv__field(&c, NULL);
	csv_fraction(&c, v.counted);
	if (stat_has_topdown(st))
		tdr_csv__fieldf(&c, "%.0f", v.slots);
	else
		tdr_csv__field(&c, NULL);
	for (size_t k = 0; k < st->sc.meta.category_cnt; k++)
		csv_fraction(&c, v.cats[k]);
	tdr_csv__field(&c, v.bn >= 0 ? stat_cat_name(st, v.bn) : NULL);
	tdr_csv__field(&c, v.bn_l2 >= 0 ? stat_cat_name(st, v.bn_l2) : NULL);
	tdr_csv__end_row(&c);
}

static void render_csv(const struct tdr_stat *st, FILE *f)
{
	struct stat_row r;

	stat_total_row(st, &r);
	csv_row(st, &r, f);
	if (!st->per_thread)
		return;
	for (size_t i = 0; i < st->th.cnt; i++) {
		if (!st->th.v[i].unit)
			continue;
		stat_thread_row(&st->th.v[i], &r);
		csv_row(st, &r, f);
	}
	if (stat_unattributed_row(st, &r))
		csv_row(st, &r, f);
}

/* ---------------------------------------------------------------------------
 * Entry points.
 */
/* Flush f and keep the first write error; the caller, who knows the
 * stream's name, reports it (cli: "cannot write FILE: reason"). */
static void flush_out(struct tdr_stat *st, FILE *f)
{
	errno = 0;
	if ((fflush(f) == EOF || ferror(f)) && !st->sum.write_err)
		st->sum.write_err = errno ? -errno : -EIO;
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
			stat_text_interval_header(st, f);
		stat_text_interval(st, row, f);
		break;
	}
	st->header_done = true;
	/* A row is worth nothing late: the reader watches it live. */
	flush_out(st, f);
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
		stat_render_text(st, f);
		break;
	case TDR_STAT_JSON:
		stat_render_json(st, f);
		break;
	case TDR_STAT_CSV:
		if (!st->header_done)
			csv_header(st, f);
		st->header_done = true;
		render_csv(st, f);
		break;
	}
	flush_out(st, f);
	return st->sum.write_err;
}
