/*
 * stat/stat.c - set up 'tdrec stat': options, plan, program or targets,
 * the counting groups with their fallbacks, the per-thread tracker.
 *
 * Responsibility: tdr_stat__new does everything that can fail before the
 * program runs: signals as an fd, the counting plan (tdr_plan__choose with
 * counting = true), the child held before exec (or the -p threads, or -a:
 * targets.c), the total's groups through the ladder record uses too
 * (open_ladder.c: an event the kernel refuses moves to the next plan with a
 * line saying so; EMFILE raises RLIMIT_NOFILE once; EACCES/EPERM explain
 * perf_event_paranoid), the schema
 * (events, categories, notes), and with --per-thread the side-band rings and
 * the groups of the threads that already exist. tdr_stat__run (stat_loop.c)
 * releases the program; stat_view.c shows the rows, which the caller writes
 * (report/render_stat*.c).
 * Objects and lifecycle: tdr_stat__new -> __run -> the view -> __summary ->
 * __free.
 * Ownership and threads: the object owns everything it creates; opts is
 * borrowed for its life. One thread.
 * See: docs/stat.md; tdrec/stat.h; docs/record.md "Fallbacks".
 */
#define LOG_PREFIX "stat: "

#include "stat_int.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "tdrec/tdr_err.h"
#include "tdrec/tdr_log.h"
#include "tdrec/tdr_mem.h"

/* What the options say to count, checked: tg is filled even on failure. */
static int check_opts(const struct tdr_stat_opts *o, struct tdr_targets *tg)
{
	int err;

	err = tdr_targets__init(tg, "stat", "counting", &o->what);
	if (err)
		return err;
	if (o->per_thread && o->what.system_wide) {
		tdr_warn("--per-thread needs a program or -p: with -a every CPU is counted as a "
			 "whole, not thread by thread");
		return -TDR_E_USAGE;
	}
	if (o->interval_ms && (o->interval_ms < TDR_STAT_MIN_INTERVAL_MS ||
			       o->interval_ms > TDR_STAT_MAX_INTERVAL_MS)) {
		tdr_warn("-I must be between %d and %d ms", TDR_STAT_MIN_INTERVAL_MS,
			 TDR_STAT_MAX_INTERVAL_MS);
		return -TDR_E_USAGE;
	}
	return 0;
}

/*
 * SIGPIPE: a reader that goes away (| head) must not kill tdrec while the
 * program runs (the caller writes interval rows while counting), or the
 * program is left running uncounted and its status lost. Blocked until
 * tdr_stat__free, a write to a closed pipe fails with EPIPE instead: the
 * counting goes on until the program ends and the write error is reported
 * (docs/stat.md "Signals and exit status"). The launched program gets the
 * mask from before (sw.old_mask), so its own SIGPIPE is untouched.
 */
static void block_sigpipe(struct tdr_stat *st)
{
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGPIPE);
	st->pipe_blocked =
	    !sigismember(&st->sw.old_mask, SIGPIPE) && !pthread_sigmask(SIG_BLOCK, &set, NULL);
}

/* Discard the SIGPIPEs our own failed writes left pending, so restoring the
 * old mask (tdr_sigwatch__close) does not deliver one. */
static void drop_sigpipe(struct tdr_stat *st)
{
	const struct timespec now = {0, 0};
	sigset_t set;

	if (!st->pipe_blocked)
		return;
	sigemptyset(&set);
	sigaddset(&set, SIGPIPE);
	while (sigtimedwait(&set, NULL, &now) == SIGPIPE)
		;
	pthread_sigmask(SIG_UNBLOCK, &set, NULL);
	st->pipe_blocked = false;
}

/* What is counted, for the output's first line. */
static void describe(struct tdr_stat *st)
{
	const struct tdr_target_opts *o = &st->opts->what;
	size_t len = 0, sz = sizeof(st->what);

	st->what[0] = '\0';
	if (o->system_wide)
		len =
		    (size_t)snprintf(st->what, sz, "all CPUs%s", o->argv ? " while running " : "");
	else if (o->pid_cnt)
		len = (size_t)snprintf(st->what, sz, "process%s", o->pid_cnt > 1 ? "es" : "");
	for (size_t i = 0; o->pid_cnt && i < o->pid_cnt && len < sz; i++)
		len += (size_t)snprintf(st->what + len, sz - len, "%s%d", i ? "," : " ",
					(int)o->pids[i]);
	for (size_t i = 0; o->argv && o->argv[i] && len < sz; i++)
		len += (size_t)snprintf(st->what + len, sz - len, "%s%s", i ? " " : "", o->argv[i]);
}

static int choose_plan(struct tdr_stat *st)
{
	const struct tdr_target_opts *o = &st->opts->what;
	struct tdr_plan_opts *p = &st->popts;

	p->sysfs_root = o->sysfs_root;
	p->counting = true;
	tdr_targets__plan_opts(&st->tg, p);
	p->clockid = -1;
	return tdr_targets__choose_plan(&st->tg, p, o->plan_kind, &st->plan);
}

/* The ladder's open: the total's counting groups. */
static int open_unit(void *ctx, const struct tdr_plan *plan, struct tdr_open_error *f)
{
	struct tdr_stat *st = ctx;
	struct stat_unit_opts uo = {
	    .plan = plan,
	    .pids = st->tg.pids,
	    .pid_cnt = st->tg.cnt,
	    .ref = !st->opts->what.system_wide, /* task mode */
	};

	return tdr_stat_unit__open(&uo, &st->total, f);
}

/* The fallback lines wait here for the schema's notes. */
static int keep_fallback(void *ctx, const char *line)
{
	struct tdr_stat *st = ctx;

	if (st->fallback_cnt >= TDR_ARRAY_SIZE(st->fallback))
		return -E2BIG; /* never: each plan falls back at most once */
	snprintf(st->fallback[st->fallback_cnt++], sizeof(st->fallback[0]), "%s", line);
	return 0;
}

/* Open the total's groups with the fallbacks (docs/record.md "Fallbacks"). */
static int open_total(struct tdr_stat *st)
{
	struct tdr_ladder l = {
	    .tg = &st->tg,
	    .popts = &st->popts,
	    .plan = &st->plan,
	    .open = open_unit,
	    .note = keep_fallback,
	    .ctx = st,
	};

	return tdr_ladder__open(&l);
}

/* The thread's name from /proc (-p), "" when it cannot be read. */
static void proc_comm(pid_t pid, pid_t tid, char *buf, size_t sz)
{
	char path[64];
	FILE *f;

	buf[0] = '\0';
	snprintf(path, sizeof(path), "/proc/%d/task/%d/comm", (int)pid, (int)tid);
	f = fopen(path, "re");
	if (!f)
		return;
	if (fgets(buf, (int)sz, f))
		buf[strcspn(buf, "\n")] = '\0';
	fclose(f);
}

/* --per-thread: plans for thread groups, the side-band rings on every
 * online CPU, and the threads known now. */
static int setup_threads(struct tdr_stat *st)
{
	const struct tdr_stat_opts *o = st->opts;
	struct tdr_plan_opts p = st->popts;
	struct tdr_plan *sw = NULL;
	int err;

	/* Each thread alone: no inheritance, counting from open. */
	p.inherit = false;
	p.enable_on_exec = false;
	err = tdr_plan__build(&p, st->plan->kind, &st->thread_plan);
	if (!err && o->what.argv) {
		/* The launched main thread: from exec, like the total. */
		p.enable_on_exec = true;
		err = tdr_plan__build(&p, st->plan->kind, &st->main_plan);
	}
	/* The side band covers every online CPU (a hybrid TopDown plan covers
	 * only the P-cores): the software plan's CPU list is exactly that. */
	if (!err)
		err = tdr_plan__build(&p, TDR_PLAN_SOFTWARE, &sw);
	if (err)
		return err;
	st->th.plan = st->thread_plan;
	st->th.refs = true;
	err = tdr_stat_threads__open_sideband(&st->th, st->tg.pids, st->tg.cnt, sw->groups[0].cpus,
					      sw->groups[0].cpu_cnt);
	tdr_plan__free(sw);
	if (err)
		return err;
	if (o->what.argv) {
		const char *base = strrchr(o->what.argv[0], '/');

		return tdr_stat_threads__add(&st->th, st->tg.pids[0], st->tg.pids[0],
					     base ? base + 1 : o->what.argv[0], st->main_plan);
	}
	for (size_t i = 0; i < st->tg.cnt; i++) {
		char comm[32];

		proc_comm(st->tg.pid_procs[i], st->tg.pids[i], comm, sizeof(comm));
		err =
		    tdr_stat_threads__add(&st->th, st->tg.pid_procs[i], st->tg.pids[i], comm, NULL);
		if (err)
			return err;
	}
	return 0;
}

/* Whether a plan counts on a hardware PMU (anything but software events). */
static bool plan_uses_pmu(const struct tdr_plan *plan)
{
	for (size_t g = 0; g < plan->group_cnt; g++)
		for (size_t e = 0; e < plan->groups[g].event_cnt; e++)
			if (plan->groups[g].events[e].attr.type != PERF_TYPE_SOFTWARE)
				return true;
	return false;
}

int tdr_stat__new(const struct tdr_stat_opts *opts, struct tdr_stat **out)
{
	struct tdr_targets tg;
	struct tdr_stat *st;
	int err;

	err = check_opts(opts, &tg);
	if (err)
		return err;
	st = tdr_calloc(1, sizeof(*st));
	if (!st)
		return -ENOMEM;
	st->opts = opts;
	st->tg = tg;
	st->sw.fd = -1;
	st->sum.exit_code = -1;
	st->sc.slots_cat = -1;
	st->per_thread = opts->per_thread;
	describe(st);
	/* Before fork and before any thread: signals become an fd. */
	err = tdr_targets__open_signals(&st->tg, &st->sw);
	if (err)
		goto err_out;
	block_sigpipe(st);
	err = choose_plan(st);
	if (err)
		goto err_out;
	err = tdr_targets__make(&st->tg, &st->sw.old_mask, &st->launch);
	st->sum.launched = st->launch != NULL;
	if (!err)
		err = open_total(st);
	if (!err)
		err = tdr_stat_schema__init(&st->sc, st->plan, opts->what.system_wide);
	for (size_t i = 0; !err && i < st->fallback_cnt; i++)
		err = tdr_stat_schema__note(&st->sc, st->fallback[i]);
	if (!err && st->per_thread && plan_uses_pmu(st->plan)) {
		/* The groups opened, so the plan works here; but a thread's own
		 * groups and the inherited ones would take turns on the CPU's
		 * TopDown counters. Drop the inherited ones (before any thread
		 * group exists) and keep their reference clocks. */
		tdr_stat_unit__drop_groups(st->total);
		st->total_is_threads = true;
		err = tdr_stat_schema__note(
		    &st->sc, "--per-thread: the total is the sum of the threads (a "
			     "CPU has one set of TopDown counters); time a thread ran "
			     "before its counters were open is not counted, and "
			     "'counted' says how much that was");
	}
	if (!err && st->per_thread)
		err = setup_threads(st);
	if (err) {
		if (err == -ENOMEM || err == -E2BIG)
			tdr_warn("failed to set up counting: %s", tdr_strerror(err));
		goto err_out;
	}
	*out = st;
	return 0;
err_out:
	tdr_stat__free(st);
	return err;
}

const struct tdr_stat_summary *tdr_stat__summary(const struct tdr_stat *st)
{
	return &st->sum;
}

void tdr_stat__free(struct tdr_stat *st)
{
	if (!st)
		return;
	tdr_stat_threads__free(&st->th);
	tdr_stat_unit__free(st->total);
	tdr_launch__free(st->launch);
	tdr_plan__free(st->plan);
	tdr_plan__free(st->thread_plan);
	tdr_plan__free(st->main_plan);
	tdr_stat_schema__clear(&st->sc);
	tdr_targets__release(&st->tg);
	drop_sigpipe(st);
	tdr_sigwatch__close(&st->sw);
	free(st);
}
