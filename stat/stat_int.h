/*
 * stat/stat_int.h - structs and functions shared by the files of
 * 'tdrec stat' (stat.c, stat_calc.c, stat_unit.c, stat_threads.c,
 * stat_loop.c, stat_view.c) and their tests. Not visible outside
 * stat/ and tests/stat: the output (report/render_stat*.c) reads the
 * public view of tdrec/stat.h.
 *
 * Vocabulary:
 *   - a *unit* is one set of counting groups: every plan group on every CPU
 *     for a list of pids (the whole program, or one thread), plus a
 *     reference clock per pid in task mode;
 *   - *vals* are summed deltas of a unit (one per plan event, in meta order,
 *     plus the time the groups were enabled and running, and the time the
 *     measured tasks ran);
 *   - a *row* is what is shown: the total, an interval, a thread, or what
 *     the thread rows did not catch (struct stat_row here: its sums; struct
 *     tdr_stat_row in the view: the sums and the numbers made from them).
 */
#ifndef TDREC_STAT_INT_H
#define TDREC_STAT_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "tdrec/runtime.h"
#include "tdrec/format.h"
#include "tdrec/plan.h"
#include "tdrec/stat.h"

#define STAT_MAX_EVENTS TDR_STAT_MAX_EVENTS
#define STAT_MAX_CATS TDR_STAT_MAX_CATS
#define STAT_COUNTED_FULL 0.99 /* below this fraction, multiplexing is reported */

/* ---------------------------------------------------------------------------
 * stat_calc.c: the arithmetic (no system calls).
 */

/* Summed deltas of one row. */
struct stat_vals {
	uint64_t v[STAT_MAX_EVENTS]; /* per meta event */
	uint64_t enabled_ns[TDR_PLAN_MAX_GROUPS];
	uint64_t running_ns[TDR_PLAN_MAX_GROUPS]; /* summed over CPUs (and pids) */
	uint64_t ref_ns; /* task mode: how long the measured tasks ran (0: unknown) */
};

/* The previous cumulative read of one group on one CPU for one pid. All
 * zero at open: the kernel starts every counter and time at 0. */
struct stat_prev {
	uint64_t v[TDR_PLAN_MAX_EVENTS];
	uint64_t ena, run;
};

/* What the rows mean: the plan as metadata, and the bottleneck rules. */
struct stat_schema {
	struct tdr_meta meta; /* owned: events, categories and notes of the plan */
	size_t group_cnt;
	size_t base[TDR_PLAN_MAX_GROUPS]; /* meta index of group g's first event */
	double threshold[STAT_MAX_CATS];  /* NAN: never a bottleneck */
	int parent[STAT_MAX_CATS];	  /* index of the level-1 parent, -1 */
	int slots_cat;			  /* first level-1 category, -1 without TopDown */
	int clock_ev;			  /* first event counting ns (task-clock), -1 */
	bool system_wide;		  /* -a: time_enabled tells multiplexing */
	/* Hybrid parts (a group per core PMU on disjoint CPUs): each
	 * category's core PMU (that of its denominator), NULL otherwise;
	 * the slots are the sum of each core type's (core_slots_cat). */
	bool hybrid;
	const char *core[STAT_MAX_CATS];
	size_t core_cnt;
	int core_slots_cat[TDR_PLAN_MAX_GROUPS];
};

/* Fill sc from plan (tdr_plan__to_meta; borrowed for the call), with the
 * thresholds of the TopDown table (tdrec/topdown.h). Returns 0, -ENOMEM,
 * -E2BIG (too many events or categories). sc is valid for
 * tdr_stat_schema__clear in every case. */
int tdr_stat_schema__init(struct stat_schema *sc, const struct tdr_plan *plan, bool system_wide);
void tdr_stat_schema__clear(struct stat_schema *sc);
/* Add a note line to sc->meta (plan fallbacks). Returns 0 or -ENOMEM. */
int tdr_stat_schema__note(struct stat_schema *sc, const char *line);

/*
 * Fold rd, the cumulative values of group g (whose first event is meta event
 * base) on one CPU for one pid, into acc as the change since *prev, and make
 * rd the new *prev. A value below the previous one (never expected: the
 * kernel's event->count only grows, docs/kernel.md "TopDown metric values") adds nothing for that
 * value and re-bases it. Returns how many values went backwards.
 */
unsigned tdr_stat_delta(struct stat_prev *prev, const struct tdr_group_read *rd, size_t g,
			size_t base, struct stat_vals *acc);

/* dst += src, field by field. */
void tdr_stat_vals__add(struct stat_vals *dst, const struct stat_vals *src);
/* dst = a - b field by field, 0 where b is larger. */
void tdr_stat_vals__sub_sat(struct stat_vals *dst, const struct stat_vals *a,
			    const struct stat_vals *b);
/* True when every event value of v is 0. */
bool tdr_stat_vals__empty(const struct stat_vals *v, size_t event_cnt);

/*
 * The fraction of the time the groups counted, the smallest over the plan's
 * groups: system-wide, sum(running) / sum(enabled) per group; task mode,
 * sum(running over the CPUs) / ref_ns (how long the tasks ran), because a
 * per-CPU task group is "enabled but not running" whenever its task runs on
 * another CPU. Capped at 1. NAN when it cannot be told (no reference clock,
 * or nothing ran).
 */
double tdr_stat_counted(const struct stat_schema *sc, const struct stat_vals *v);
/* Group g's share of the time (as tdr_stat_counted, for one group). */
double tdr_stat_group_counted(const struct stat_schema *sc, const struct stat_vals *v, size_t g);

/* The row's slots (the first level-1 category's denominator), 0 without TopDown. */
double tdr_stat_slots(const struct stat_schema *sc, const struct stat_vals *v);

/*
 * Every category's value (tdr_category__value, NAN without slots) into
 * vals[meta.category_cnt], and the bottleneck: the largest level-1 category
 * above its threshold, then the largest of its level-2 children above its
 * own threshold (report's rule without the sample-share condition); -1 where
 * none.
 */
void tdr_stat_topdown(const struct stat_schema *sc, const struct stat_vals *v, double *vals,
		      int *bn, int *bn_l2);

/* task-clock and cpu-clock count nanoseconds. */
bool tdr_stat_is_clock(const char *name);

struct stat_row;
/* Everything a row shows (tdrec/stat.h struct tdr_stat_row) from its sums. */
void tdr_stat_row_view(const struct stat_schema *sc, const struct stat_row *row,
		       struct tdr_stat_row *out);

/* ---------------------------------------------------------------------------
 * stat_unit.c: one set of counting groups and its running sums.
 */
struct stat_unit {
	struct tdr_session *s; /* NULL once closed */
	size_t pid_cnt;
	size_t group_cnt;
	size_t prev_off[TDR_PLAN_MAX_GROUPS]; /* group g's first slot in prev */
	struct stat_prev *prev;		      /* (cpu_idx * pid_cnt + pid_idx) per group */
	int *ref_fds;			      /* pid_cnt; -1: no reference clock */
	uint64_t *ref_prev;		      /* previous time_running of each */
	bool has_ref;			      /* every pid has one */
	struct stat_vals sum;		      /* since open */
	struct stat_vals cur;		      /* since the last tdr_stat_unit__take */
	uint64_t backwards;		      /* values that went down (re-based) */
	int read_err;			      /* first failed read, 0 if none */
};

struct stat_unit_opts {
	const struct tdr_plan *plan; /* borrowed for the call */
	const pid_t *pids;	     /* perf_event_open pids (-1: every task of a CPU) */
	size_t pid_cnt;
	bool ref; /* open a reference clock per pid (task mode) */
};

/* Open the groups (tdr_session__open, no rings) and the reference clocks
 * (which copy the plan leader's inherit, disabled, enable_on_exec and
 * exclude_* bits; one that fails only loses multiplexing detection).
 * Returns: 0, or what tdr_session__open returned with *fail filled. */
int tdr_stat_unit__open(const struct stat_unit_opts *o, struct stat_unit **out,
			struct tdr_open_error *fail);
/* Read every group and reference clock once; deltas go into sum and cur.
 * Returns 0 or the first read error (also kept in read_err). */
int tdr_stat_unit__read(struct stat_unit *u, const struct stat_schema *sc);
/* *out = cur; cur = 0 (the interval mark). */
void tdr_stat_unit__take(struct stat_unit *u, struct stat_vals *out);
/* Close the groups but keep the reference clocks (their time still adds up). */
void tdr_stat_unit__drop_groups(struct stat_unit *u);
/* Close the fds; the sums stay. */
void tdr_stat_unit__close(struct stat_unit *u);
void tdr_stat_unit__free(struct stat_unit *u);

/* ---------------------------------------------------------------------------
 * stat_threads.c: per-thread rows from side-band FORK/COMM/EXIT records.
 */
struct stat_thread {
	pid_t pid, tid;
	char comm[17];
	struct stat_unit *unit; /* NULL when its groups could not be opened */
	bool exiting;		/* EXIT seen: read and close at the next read */
	bool done;		/* closed: unit->sum is final */
	int open_err;		/* why there is no unit (-ESRCH: gone before) */
};

struct stat_threads {
	struct stat_thread *v;
	size_t cnt, cap;
	const struct tdr_plan *plan; /* for threads found later; borrowed */
	bool refs;		     /* open reference clocks (task mode) */
	size_t ring_cnt;
	struct tdr_ring *rings; /* one per online CPU */
	size_t sb_cnt;
	int *sb_fds; /* side-band dummies, cpu x target */
	uint8_t *buf;
	size_t buf_sz;
	uint64_t missed;   /* threads seen whose groups could not be opened */
	uint64_t bad_recs; /* malformed side-band records */
	bool raised;	   /* RLIMIT_NOFILE raised once */
	bool fd_warned;
};

/* Open the side-band rings: a dummy event with task, comm and comm_exec
 * records, inherited, on every CPU of cpus for every pid; one ring per CPU.
 * Returns 0 or -errno (logged). */
int tdr_stat_threads__open_sideband(struct stat_threads *t, const pid_t *pids, size_t pid_cnt,
				    const int *cpus, size_t cpu_cnt);
/* Add a thread and open its groups with plan (NULL: t->plan). A failure to
 * open is kept in the thread (open_err) and counted, not returned, except
 * -ENOMEM. */
int tdr_stat_threads__add(struct stat_threads *t, pid_t pid, pid_t tid, const char *comm,
			  const struct tdr_plan *plan);
/* The live (not done) thread tid, or NULL. */
struct stat_thread *tdr_stat_threads__find(struct stat_threads *t, pid_t tid);
/* Drain the rings and handle FORK (new thread, groups opened at once),
 * COMM (name) and EXIT (closed at the next read). Returns 0 or -ENOMEM. */
int tdr_stat_threads__drain(struct stat_threads *t);
/* Handle the records of one buffer, FORKs first, then COMMs, then EXITs
 * (rings are drained one after the other). For tests too. */
int tdr_stat_threads__handle(struct stat_threads *t, const uint8_t *data, size_t sz);
/* Read every live thread's groups; exiting ones are read a last time and
 * closed (all of them when final). */
void tdr_stat_threads__read(struct stat_threads *t, const struct stat_schema *sc, bool final);
/* Records the kernel dropped (ring full): threads may be missing. */
uint64_t tdr_stat_threads__lost(const struct stat_threads *t);
void tdr_stat_threads__free(struct stat_threads *t);

/* ---------------------------------------------------------------------------
 * The stat object (stat.c, stat_loop.c, stat_view.c).
 */
struct stat_row {
	enum tdr_stat_row_kind kind;
	uint64_t start_ns, end_ns; /* since the start of counting */
	pid_t pid, tid;		   /* thread rows */
	const char *name;	   /* thread rows: borrowed */
	struct stat_vals vals;
};

struct tdr_stat {
	const struct tdr_stat_opts *opts; /* borrowed */
	struct tdr_stat_summary sum;
	struct tdr_sigwatch sw;
	struct tdr_launch *launch;
	struct tdr_plan_opts popts;
	struct tdr_plan *plan;	      /* the plan the total was opened with */
	struct tdr_plan *thread_plan; /* per-thread groups: inherit = 0, enabled */
	struct tdr_plan *main_plan;   /* the launched main thread: enable_on_exec */
	struct stat_schema sc;
	struct tdr_targets tg; /* the total's perf_event_open pids */
	struct stat_unit *total;
	struct stat_threads th;
	bool per_thread;
	/* --per-thread with PMU events: a task's inherited group and its own
	 * group would share the one set of TopDown counters of a CPU and
	 * multiplex each other, so the total keeps only its reference clocks
	 * and its counts are the sum of the thread rows. */
	bool total_is_threads;
	uint64_t start_ns, mark_ns, end_ns; /* CLOCK_MONOTONIC */
	bool started, ran, done;
	struct tdr_sigstate sig;
	bool pipe_blocked; /* SIGPIPE blocked by tdr_stat__new (stat.c) */
	char what[256];	   /* "./app args", "process 123", "all CPUs" */
	/* Plan fallbacks while opening, added to the schema's notes. */
	char fallback[TDR_PLAN_KIND_CNT][256];
	size_t fallback_cnt;
};

/* stat_loop.c */
/* The total's sums (total_is_threads: the threads' plus the reference
 * clock's), since the start (cur = false) or the last interval mark. */
void tdr_stat__total(const struct tdr_stat *st, bool cur, struct stat_vals *out);
/* stat_view.c: one interval row as it happens, to opts->on_interval.
 * Returns 0 or what the callback returned. */
int tdr_stat__interval(struct tdr_stat *st, const struct stat_row *row);

#endif /* TDREC_STAT_INT_H */
