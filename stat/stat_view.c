/*
 * stat/stat_view.c - the read-only view of a 'tdrec stat' run
 * (tdrec/stat.h): the run as a whole, its events and categories, notes and
 * warnings, and the rows (total, threads, what the threads did not catch,
 * and the interval rows handed to the caller as they happen).
 *
 * Responsibility: turn the engine's internals (schema, units, threads) into
 * plain data. The numbers of a row come from stat_calc.c (tdr_stat_row_view);
 * nothing here measures, scales or formats: the output is in
 * report/render_stat*.c (docs/stat.md "Text output", "JSON schema",
 * "CSV schema").
 * Objects and lifecycle: functions on a struct tdr_stat after (or, for
 * intervals, during) its run.
 * Ownership and threads: strings point into the stat object (valid until
 * tdr_stat__free); one thread.
 * See: docs/stat.md.
 */
#include "stat_int.h"

#include <inttypes.h>
#include <stdarg.h>
#include <string.h>

#include "tdrec/tdr_err.h"
#include "tdrec/topdown.h"

void tdr_stat__view(const struct tdr_stat *st, struct tdr_stat_view *v)
{
	memset(v, 0, sizeof(*v));
	v->target = st->what;
	v->plan = st->sc.meta.plan_name;
	v->cpu_cnt = st->plan->groups[0].cpu_cnt;
	/* Hybrid: the core types' groups are on disjoint CPUs. */
	for (size_t g = 1; st->sc.hybrid && g < st->plan->group_cnt; g++)
		v->cpu_cnt += st->plan->groups[g].cpu_cnt;
	v->system_wide = st->opts->what.system_wide;
	v->per_thread = st->per_thread;
	v->topdown = st->sc.slots_cat >= 0;
	v->total_is_threads = st->total_is_threads;
	v->interval_ms = st->opts->interval_ms;
	if (st->sum.launched)
		v->program_pid = st->launch ? (int)tdr_launch__pid(st->launch) : (int)st->tg.pids[0];
	v->proc_cnt = st->tg.proc_cnt;
	v->event_cnt = st->sc.meta.event_cnt;
	v->category_cnt = st->sc.meta.category_cnt;
	v->note_cnt = st->sc.meta.note_cnt;
	v->thread_cnt = st->per_thread ? st->th.cnt : 0;
	v->complete = st->done;
}

void tdr_stat__event(const struct tdr_stat *st, size_t i, struct tdr_stat_event *out)
{
	const struct tdr_event_desc *e = &st->sc.meta.events[i];

	out->name = e->name ? e->name : "?";
	out->pmu = e->pmu_name;
	out->group = e->group_idx;
	out->clock = tdr_stat_is_clock(out->name);
}

void tdr_stat__category(const struct tdr_stat *st, size_t i, struct tdr_stat_category *out)
{
	const struct tdr_category *c = &st->sc.meta.categories[i];
	const struct tdr_td_category *td = c->name ? tdr_topdown_category(c->name) : NULL;

	out->key = c->name;
	out->label = td ? td->label : NULL;
	out->parent = c->parent;
	out->parent_idx = st->sc.parent[i];
	out->level = c->level ? c->level : 1;
	out->derived = c->flags & TDR_CATEGORY_DERIVED;
	out->threshold = st->sc.threshold[i];
	out->core = st->sc.core[i];
}

const char *tdr_stat__note(const struct tdr_stat *st, size_t i)
{
	return st->sc.meta.notes[i];
}

/* Events that happen only in kernel mode read 0 with exclude_kernel. */
const char *tdr_stat__kernel_note(const struct tdr_stat *st)
{
	if (st->opts->what.kernel || st->popts.kernel_sw_counts)
		return NULL;
	for (size_t i = 0; i < st->sc.meta.event_cnt; i++) {
		const char *n = st->sc.meta.events[i].name;

		if (n && (!strcmp(n, "context-switches") || !strcmp(n, "cpu-migrations")))
			return "context switches and CPU migrations happen in the kernel: they are "
			       "counted only with --kernel or with perf_event_paranoid <= 1";
	}
	return NULL;
}

void tdr_stat__topdown_why(const struct tdr_stat *st, char *buf, size_t sz)
{
	size_t len = 0;

	buf[0] = '\0';
	if (st->sc.slots_cat >= 0)
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

static void warn_add(struct tdr_stat_warnings *w, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void warn_add(struct tdr_stat_warnings *w, const char *fmt, ...)
{
	va_list ap;

	if (w->cnt >= TDR_STAT_MAX_WARNINGS)
		return;
	va_start(ap, fmt);
	vsnprintf(w->line[w->cnt++], sizeof(w->line[0]), fmt, ap);
	va_end(ap);
}

/* A PMU group that counted for no time at all (time_running 0) was never
 * scheduled: its counters were all taken (the NMI watchdog holds one;
 * docs/plans.md "Counter budget"). Its zeros are not measurements. */
static void never_ran(const struct tdr_stat *st, struct tdr_stat_warnings *w)
{
	const char *plan = st->sc.meta.plan_name;
	struct tdr_stat_row r;

	if (!plan || !strcmp(plan, "software"))
		return;
	tdr_stat__total_row(st, &r);
	if (r.counted != 0.0)
		return;
	warn_add(w,
		 "the %s group never ran (time_running 0): the PMU could not schedule it, "
		 "so its counts are not results; free a counter with 'sysctl "
		 "kernel.nmi_watchdog=0', or use --plan with fewer events",
		 plan);
}

void tdr_stat__warnings(const struct tdr_stat *st, struct tdr_stat_warnings *w)
{
	const struct stat_unit *u = st->total;
	uint64_t lost = tdr_stat_threads__lost(&st->th);

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
	never_ran(st, w);
	if (st->th.missed)
		warn_add(w,
			 "%" PRIu64 " threads ended before their counters could be opened (or "
			 "could not get any): %s",
			 st->th.missed,
			 st->total_is_threads ? "they are not counted (see 'counted')"
					      : "they are in 'not attributed'");
}

/* ---------------------------------------------------------------------------
 * Rows.
 */
void tdr_stat__total_row(const struct tdr_stat *st, struct tdr_stat_row *r)
{
	struct stat_row row;

	memset(&row, 0, sizeof(row));
	row.kind = TDR_STAT_ROW_TOTAL;
	row.end_ns = st->sum.duration_ns;
	tdr_stat__total(st, false, &row.vals);
	tdr_stat_row_view(&st->sc, &row, r);
}

bool tdr_stat__thread_row(const struct tdr_stat *st, size_t i, struct tdr_stat_row *r)
{
	const struct stat_thread *th = &st->th.v[i];
	struct stat_row row;

	if (!th->unit)
		return false;
	memset(&row, 0, sizeof(row));
	row.kind = TDR_STAT_ROW_THREAD;
	row.pid = th->pid;
	row.tid = th->tid;
	row.name = th->comm;
	row.vals = th->unit->sum;
	tdr_stat_row_view(&st->sc, &row, r);
	return true;
}

bool tdr_stat__unattributed_row(const struct tdr_stat *st, struct tdr_stat_row *r)
{
	struct stat_vals threads;
	struct stat_row row;

	if (st->total_is_threads)
		return false;
	memset(&threads, 0, sizeof(threads));
	for (size_t i = 0; i < st->th.cnt; i++)
		if (st->th.v[i].unit)
			tdr_stat_vals__add(&threads, &st->th.v[i].unit->sum);
	memset(&row, 0, sizeof(row));
	row.kind = TDR_STAT_ROW_UNATTRIBUTED;
	row.name = "(not attributed)";
	tdr_stat_vals__sub_sat(&row.vals, &st->total->sum, &threads);
	tdr_stat_row_view(&st->sc, &row, r);
	return !tdr_stat_vals__empty(&row.vals, st->sc.meta.event_cnt);
}

int tdr_stat__interval(struct tdr_stat *st, const struct stat_row *row)
{
	struct tdr_stat_row r;

	if (!st->opts->on_interval)
		return 0;
	tdr_stat_row_view(&st->sc, row, &r);
	return st->opts->on_interval(st->opts->interval_arg, st, &r);
}
