/*
 * stat/include/tdrec/stat.h - 'tdrec stat': count a plan's groups (no
 * sampling) for a program, running processes or the whole system, and give
 * slots and the TopDown breakdown for the whole run, per interval and per
 * thread, as a read-only view that report/ turns into text, JSON or CSV.
 *
 * Responsibility: choose a counting plan (tdr_plan__choose with counting =
 * true), open it per CPU for every target with the same fallback ladder as
 * 'record' (a plan the kernel refuses falls back visibly), read every group
 * at least every TDR_STAT_READ_MS (the kernel resets the metric registers on
 * each read, so short read intervals keep TopDown precise; event->count is
 * monotonic, so differences of successive reads are valid), sum the deltas,
 * and compute what each row shows (categories through the plan's formulas,
 * format.h struct tdr_category and tdr_category__value; the bottleneck with
 * the TopDown table's thresholds; the fraction of the time counted). Counts
 * are never scaled for multiplexing, which is shown instead.
 * Per thread (--per-thread), for a launched program or -p: a side-band ring
 * per CPU (a dummy event with task/comm records, inherited) announces every
 * new thread, which then gets its own non-inherited groups; the inherited
 * groups still give the exact total, and what the threads' own groups missed
 * (the moments between a thread's creation and its groups being opened) is
 * a row of its own ("not attributed"). See docs/stat.md for why the kernel's
 * inherit_stat READ records are not used.
 * It writes nothing and never exits: rows go to the caller (the interval
 * callback during the run, the view after it; report/render_stat*.c writes
 * them), and the caller turns the summary into an exit status.
 *
 * Objects and lifecycle:
 *   tdr_stat__new (plan, program held before exec or targets, groups)
 *   -> tdr_stat__run (once: opts->on_interval gets each interval row as the
 *      interval ends)
 *   -> the view (tdr_stat__view, __event, __category, __total_row, ...)
 *   -> __summary -> __free
 *
 * Ownership and threads: one owner thread; opts is borrowed for the
 * object's life. Strings and rows of the view are valid until __free.
 * See: docs/stat.md; docs/kernel.md "TopDown metric values", "TopDown group rules";
 * tdrec/runtime.h (the session and launch layers used here);
 * tdrec/report.h (the output: tdr_stat_out).
 */
#ifndef TDREC_STAT_H
#define TDREC_STAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "tdrec/tdr_api.h"
#include "tdrec/plan.h"
#include "tdrec/runtime.h"

struct tdr_stat;

#define TDR_STAT_READ_MS 1000	    /* every group is read at least this often */
#define TDR_STAT_MIN_INTERVAL_MS 10 /* the smallest -I */
#define TDR_STAT_MAX_INTERVAL_MS 3600000

#define TDR_STAT_MAX_EVENTS (TDR_PLAN_MAX_EVENTS * TDR_PLAN_MAX_GROUPS)
#define TDR_STAT_MAX_CATS 32
#define TDR_STAT_MAX_WARNINGS 8

struct tdr_stat_row;

/*
 * Called by tdr_stat__run with each interval row as the interval ends (the
 * row is valid for the call only). Returns 0, or -errno to stop counting
 * (-ENOMEM); a failed write is better kept by the caller, since the program
 * still runs.
 */
typedef int (*tdr_stat_interval_fn)(void *arg, const struct tdr_stat *st,
				    const struct tdr_stat_row *row);

struct tdr_stat_opts {
	struct tdr_target_opts what;  /* what to count, which plan */
	bool per_thread;	      /* a row per thread (not with -a) */
	uint64_t interval_ms;	      /* -I: a row per interval; 0 = whole run only */
	tdr_stat_interval_fn on_interval; /* NULL: intervals are counted, not shown */
	void *interval_arg;		  /* its first argument */
};

/* How the run ended. */
struct tdr_stat_summary {
	bool launched;	 /* a program was started */
	int exec_err;	 /* -errno when the program could not be started */
	bool exited;	 /* the program ended: exit_code or term_signal */
	int exit_code;	 /* -1 when it died of a signal */
	int term_signal; /* the signal that killed the program, 0 if none */
	int stop_signal; /* the signal that stopped counting (-p, -a), 0 if none */
	uint64_t duration_ns;
	uint64_t intervals; /* interval rows written */
	size_t threads;	    /* thread rows (--per-thread) */
};

/*
 * Prepare: check opts, choose and build the counting plan, start the program
 * (held before exec) or list the -p threads, open every group with the
 * fallbacks (logging each step once).
 * Returns: 0, -TDR_E_USAGE (bad options: logged), -TDR_E_NOPLAN,
 * -EACCES/-EPERM (explained), -EMFILE, -ENOENT/-ESRCH (a -p process that does
 * not exist), -ENOMEM, -errno. *out is set only on success (caller owns).
 */
TDR_API int tdr_stat__new(const struct tdr_stat_opts *opts, struct tdr_stat **out);

/*
 * Release the launched program (its exec starts the counters); nothing to do
 * for -p/-a, whose groups count once open. Optional: __run does it when it
 * was not done. No row exists yet, so a caller can wait for a run that
 * really starts before it empties an output file. Call at most once.
 * Returns: 0, the exec error (-ENOENT, -EACCES, -EISDIR: logged), -EINVAL
 * when called twice or after __run.
 */
TDR_API int tdr_stat__start(struct tdr_stat *st);

/*
 * Release the program (or keep counting -p/-a) and read the groups until the
 * program ends, every -p process has ended, or a signal stops it: SIGINT,
 * SIGTERM and SIGHUP are forwarded to a launched program (a terminal's own
 * signal is not sent twice; the third one kills it), and stop -p/-a without
 * a program. Each interval row goes to opts->on_interval as the interval
 * ends. Call once.
 * Returns: 0 when counting completed (whatever the program's status: see the
 * summary), the exec error (-ENOENT: nothing was counted), -ENOMEM, what
 * on_interval returned, -EINVAL when called twice.
 */
TDR_API int tdr_stat__run(struct tdr_stat *st);

/* ---------------------------------------------------------------------------
 * The view: what the output shows, read after a completed __run (and by the
 * interval callback during it). Plain data; every number is computed here
 * (stat_calc.c), so a renderer only formats.
 */

/* The run as a whole. */
struct tdr_stat_view {
	const char *target;	/* "./app args", "process 123", "all CPUs" */
	const char *plan;	/* the plan's name: "topdown-l2", "software" */
	size_t cpu_cnt;		/* CPUs the groups were opened on */
	bool system_wide;	/* -a */
	bool per_thread;	/* --per-thread: thread rows */
	bool topdown;		/* slots and categories are measured */
	/* --per-thread with TopDown: the total is the sum of the thread rows,
	 * and there is no "not attributed" row. */
	bool total_is_threads;
	uint64_t interval_ms;	/* -I, 0 without */
	int program_pid;	/* the launched program's pid, 0 without one */
	size_t proc_cnt;	/* -p processes */
	size_t event_cnt;	/* tdr_stat__event, and the values of a row */
	size_t category_cnt;	/* tdr_stat__category, and the cats of a row */
	size_t note_cnt;	/* tdr_stat__note */
	size_t thread_cnt;	/* threads seen: tdr_stat__thread_row's index */
	bool complete;		/* __run completed: the whole-run rows are final */
};

TDR_API void tdr_stat__view(const struct tdr_stat *st, struct tdr_stat_view *v);

/* Event i of the plan (i < event_cnt), in the order of a row's values. */
struct tdr_stat_event {
	const char *name; /* "?" when the plan has none */
	const char *pmu;  /* NULL when unknown */
	uint32_t group;	  /* the plan group it is counted in */
	bool clock;	  /* counts nanoseconds (task-clock, cpu-clock) */
};

TDR_API void tdr_stat__event(const struct tdr_stat *st, size_t i, struct tdr_stat_event *out);

/* Category i (i < category_cnt): from the plan's formulas, with the TopDown
 * table's threshold and label. Level-2 categories follow their parent's
 * level-1 siblings in plan order; parent_idx links them. */
struct tdr_stat_category {
	const char *key;    /* "be-bound" */
	const char *label;  /* the TopDown table's column label ("Backend"), NULL if none */
	const char *parent; /* the parent's key, NULL at level 1 */
	int parent_idx;	    /* the parent's index, -1 at level 1 */
	uint32_t level;	    /* 1 or 2 */
	bool derived;	    /* computed from other categories, not measured */
	double threshold;   /* above it, a bottleneck; NAN: never one */
	/* Hybrid parts: the core PMU whose slots it divides ("cpu_atom"),
	 * NULL otherwise (docs/stat.md "Hybrid parts"). */
	const char *core;
};

TDR_API void tdr_stat__category(const struct tdr_stat *st, size_t i, struct tdr_stat_category *out);

/* Note i of the plan (fallbacks, what --per-thread means; i < note_cnt). */
TDR_API const char *tdr_stat__note(const struct tdr_stat *st, size_t i);
/* Events that happen only in the kernel read 0 without --kernel: the line
 * saying so, or NULL. */
TDR_API const char *tdr_stat__kernel_note(const struct tdr_stat *st);
/* Why there is no TopDown (the plan's notes), or "" when there is. */
TDR_API void tdr_stat__topdown_why(const struct tdr_stat *st, char *buf, size_t sz);

/* Lines about the run's quality: re-based values, failed reads, a missing
 * reference clock, lost side-band records, threads without groups. */
struct tdr_stat_warnings {
	size_t cnt;
	char line[TDR_STAT_MAX_WARNINGS][256];
};

TDR_API void tdr_stat__warnings(const struct tdr_stat *st, struct tdr_stat_warnings *w);

enum tdr_stat_row_kind {
	TDR_STAT_ROW_TOTAL = 0,
	TDR_STAT_ROW_INTERVAL,
	TDR_STAT_ROW_THREAD,
	TDR_STAT_ROW_UNATTRIBUTED, /* the total minus the thread rows */
};

/* One row: its sums and the numbers computed from them. */
struct tdr_stat_row {
	enum tdr_stat_row_kind kind;
	uint64_t start_ns, end_ns; /* since the start of counting (total, interval) */
	pid_t pid, tid;		   /* thread rows */
	const char *name;	   /* thread and "not attributed" rows */
	uint64_t values[TDR_STAT_MAX_EVENTS]; /* per event (view event_cnt) */
	uint64_t time_enabled_ns;	      /* of the first group, over CPUs and tasks */
	uint64_t time_running_ns;
	uint64_t task_run_ns; /* how long the measured tasks ran; 0: unknown (or -a) */
	/* The fraction of the time the groups counted (the smallest over the
	 * groups); NAN when it cannot be told (always for "not attributed"). */
	double counted;
	/* The same per plan group (group_cnt of them; AMD level 2 counts in
	 * three groups the kernel multiplexes): each group's share of the
	 * time, on which the ratios of its own events rest. */
	size_t group_cnt;
	double group_counted[TDR_PLAN_MAX_GROUPS];
	bool multiplexed; /* counted is known and clearly below 1 */
	double slots;	  /* 0 without TopDown */
	double cats[TDR_STAT_MAX_CATS]; /* per category (view category_cnt); NAN: none */
	int bn, bn_l2;			/* the bottleneck and its level-2 child; -1: none */
	/* CPUs utilized: the clock event's time over the row's wall time; NAN
	 * without a clock event or wall time. */
	double cpus;
};

/* The whole run (the sum of the thread rows when total_is_threads). */
TDR_API void tdr_stat__total_row(const struct tdr_stat *st, struct tdr_stat_row *r);
/* Thread i (i < thread_cnt): false when that thread has no row (it was
 * gone before its groups could be opened; see the warnings). */
TDR_API bool tdr_stat__thread_row(const struct tdr_stat *st, size_t i, struct tdr_stat_row *r);
/* The total minus every thread row; r is filled unless total_is_threads.
 * Returns false when nothing is left (or total_is_threads). */
TDR_API bool tdr_stat__unattributed_row(const struct tdr_stat *st, struct tdr_stat_row *r);

/* The summary; valid until __free. */
TDR_API const struct tdr_stat_summary *tdr_stat__summary(const struct tdr_stat *st);

/* Free everything (a program never released is killed). NULL is fine. */
TDR_API void tdr_stat__free(struct tdr_stat *st);

#endif /* TDREC_STAT_H */
