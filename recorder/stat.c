/*
 * recorder/stat.c - set up 'tdrec stat': options, plan, program or targets,
 * the counting groups with their fallbacks, the per-thread tracker.
 *
 * Responsibility: tdr_stat__new does everything that can fail before the
 * program runs: signals as an fd, the counting plan (tdr_plan__choose with
 * counting = true), the child held before exec (or the -p threads, or -a),
 * the total's groups with the same ladder as 'record' (an event the kernel
 * refuses moves to the next plan with a line saying so; EMFILE raises
 * RLIMIT_NOFILE once; EACCES/EPERM explain perf_event_paranoid), the schema
 * (events, categories, notes), and with --per-thread the side-band rings and
 * the groups of the threads that already exist. tdr_stat__run (stat_loop.c)
 * releases the program; stat_render.c writes.
 * Objects and lifecycle: tdr_stat__new -> __run -> __render -> __summary ->
 * __free.
 * Ownership and threads: the object owns everything it creates; opts is
 * borrowed for its life. One thread.
 * See: docs/stat.md; tdrec/stat.h; docs/record.md "Fallbacks".
 */
#define LOG_PREFIX "stat: "

#include "stat_int.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "tdrec/tdr_err.h"
#include "tdrec/tdr_log.h"
#include "tdrec/tdr_mem.h"

static int check_opts(const struct tdr_stat_opts *o)
{
	int what = !!o->argv + !!o->pid_cnt + !!o->system_wide;

	if (o->argv && o->system_wide)
		what = 1; /* -a with a program is fine */
	if (what != 1 || (o->argv && !o->argv[0])) {
		tdr_warn("give exactly one of: a program to run, -p PID, or -a");
		return -TDR_E_USAGE;
	}
	if (o->pid_cnt && o->system_wide) {
		tdr_warn("-p and -a cannot be combined");
		return -TDR_E_USAGE;
	}
	if (o->per_thread && o->system_wide) {
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
	if (!o->out || (unsigned)o->fmt > TDR_STAT_CSV)
		return -EINVAL;
	return 0;
}

/* What is counted, for the output's first line. */
static void describe(struct tdr_stat *st)
{
	const struct tdr_stat_opts *o = st->opts;
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
	const struct tdr_stat_opts *o = st->opts;
	struct tdr_plan_opts *p = &st->popts;
	int err;

	p->sysfs_root = o->sysfs_root;
	p->counting = true;
	p->kernel = o->kernel;
	p->kernel_sw_counts = tdr_plan_kernel_counts_allowed();
	/* -a counts every task per CPU: nothing to inherit. */
	p->inherit = !o->system_wide;
	/* Counting starts at exec for a launched program; -p and -a count from
	 * the moment the groups are open. */
	p->enable_on_exec = o->argv && !o->system_wide;
	p->clockid = -1;
	err = tdr_plan__choose(p, o->plan_kind, &st->plan);
	if (err == -TDR_E_NOPLAN)
		tdr_warn("no event plan fits this machine (plan %s)",
			 tdr_plan_kind_name(o->plan_kind));
	return err;
}

/* -p: every thread of every process is a target. */
static int attach_targets(struct tdr_stat *st)
{
	const struct tdr_stat_opts *o = st->opts;
	size_t cap = 0, pcap = 0;

	st->pidfds = tdr_calloc(o->pid_cnt, sizeof(*st->pidfds));
	st->pid_gone = tdr_calloc(o->pid_cnt, sizeof(*st->pid_gone));
	if (!st->pidfds || !st->pid_gone)
		return -ENOMEM;
	st->pidfd_cnt = o->pid_cnt;
	for (size_t i = 0; i < o->pid_cnt; i++)
		st->pidfds[i] = -1;
	for (size_t i = 0; i < o->pid_cnt; i++) {
		pid_t *tids = NULL;
		int n = tdr_proc__tids(NULL, o->pids[i], &tids);

		if (n < 0) {
			if (n == -ENOENT)
				tdr_warn("process %d does not exist", (int)o->pids[i]);
			return n;
		}
		if (tdr_ensure_cap(&st->targets, &cap, sizeof(pid_t), st->target_cnt + (size_t)n) ||
		    tdr_ensure_cap(&st->target_procs, &pcap, sizeof(pid_t),
				   st->target_cnt + (size_t)n)) {
			free(tids);
			return -ENOMEM;
		}
		memcpy(st->targets + st->target_cnt, tids, (size_t)n * sizeof(*tids));
		for (int k = 0; k < n; k++)
			st->target_procs[st->target_cnt + (size_t)k] = o->pids[i];
		st->target_cnt += (size_t)n;
		free(tids);
		/* -ENOSYS before Linux 5.3: the loop then checks with kill(). */
		st->pidfds[i] = tdr_sys_pidfd_open(o->pids[i]);
		if (st->pidfds[i] < 0)
			st->pidfds[i] = -1;
	}
	return 0;
}

static bool refused_event(int err)
{
	return err == -EINVAL || err == -ENOENT || err == -EOPNOTSUPP || err == -ENODEV;
}

/* The next plan that fits this machine, from kind on. */
static int rebuild(struct tdr_stat *st, enum tdr_plan_kind kind)
{
	struct tdr_plan *p = NULL;
	int err;

	while ((err = tdr_plan__build(&st->popts, kind, &p)) == -TDR_E_NOPLAN) {
		enum tdr_plan_kind next = tdr_plan_kind__fallback(kind);

		if (next == TDR_PLAN_KIND_CNT)
			return err;
		kind = next;
	}
	if (err)
		return err;
	tdr_plan__free(st->plan);
	st->plan = p;
	return 0;
}

static const char *where(const struct tdr_open_error *f, char *buf, size_t sz)
{
	if (f->pid > 0)
		snprintf(buf, sz, "CPU %d, pid %d", f->cpu, (int)f->pid);
	else
		snprintf(buf, sz, "CPU %d", f->cpu);
	return buf;
}

static void explain_permission(const struct tdr_stat *st, const struct tdr_open_error *f)
{
	const struct tdr_stat_opts *o = st->opts;
	int paranoid = tdr_machine__paranoid(NULL);
	int need = o->system_wide ? 0 : o->kernel ? 1 : 2;
	char w[64], pv[32];

	if (paranoid == INT_MIN)
		snprintf(pv, sizeof(pv), "unreadable");
	else
		snprintf(pv, sizeof(pv), "%d", paranoid);
	tdr_warn("no permission to open '%s' (%s): %s. /proc/sys/kernel/perf_event_paranoid is %s; "
		 "%s needs %d or less. Run as root (or with CAP_PERFMON), or lower it: "
		 "sysctl kernel.perf_event_paranoid=%d%s",
		 f->event_name, where(f, w, sizeof(w)), tdr_strerror(f->err), pv,
		 o->system_wide ? "-a (all processes)"
		 : o->kernel	? "--kernel"
				: "counting your own programs",
		 need, need,
		 o->pid_cnt ? "; -p also needs permission to trace the process (same user, or "
			      "CAP_SYS_PTRACE)"
			    : "");
}

/* Open the total's groups with the fallbacks (docs/record.md "Fallbacks"). */
static int open_total(struct tdr_stat *st)
{
	const bool task_mode = !st->opts->system_wide;
	bool raised = false;
	struct tdr_open_error f;
	char w[64];
	int err;

	for (;;) {
		struct stat_unit_opts uo = {
		    .plan = st->plan,
		    .pids = st->targets,
		    .pid_cnt = st->target_cnt,
		    .ref = task_mode,
		};

		err = stat_unit__open(&uo, &st->total, &f);
		if (!err)
			return 0;
		if (err == -ENOMEM)
			return err;
		if (f.stage == TDR_STAGE_OPEN && refused_event(err)) {
			enum tdr_plan_kind from = st->plan->kind;
			enum tdr_plan_kind next = tdr_plan_kind__fallback(from);
			char *line = st->fallback[st->fallback_cnt];

			if (next == TDR_PLAN_KIND_CNT || st->fallback_cnt >= TDR_PLAN_KIND_CNT) {
				tdr_warn(
				    "the kernel refused event '%s' of plan %s (%s): %s; no other "
				    "plan to fall back to",
				    f.event_name, tdr_plan_kind_name(from), where(&f, w, sizeof(w)),
				    tdr_strerror(err));
				return err;
			}
			snprintf(line, sizeof(st->fallback[0]),
				 "plan %s: the kernel refused event '%s' (%s): %s; falling back to "
				 "plan %s",
				 tdr_plan_kind_name(from), f.event_name, where(&f, w, sizeof(w)),
				 tdr_strerror(err), tdr_plan_kind_name(next));
			tdr_warn("%s", line);
			st->fallback_cnt++;
			err = rebuild(st, next);
			if (err)
				return err;
			continue;
		}
		if (err == -EMFILE && !raised) {
			raised = true;
			if (tdr_sys_raise_nofile() == 1)
				continue;
		}
		if (err == -EMFILE)
			tdr_warn("too many open files: the plan needs one fd per event, CPU and "
				 "thread (%zu threads); raise the limit (ulimit -n) and retry",
				 st->target_cnt);
		else if (err == -EACCES || err == -EPERM)
			explain_permission(st, &f);
		else if (err == -ESRCH)
			tdr_warn("process %d does not exist (or has ended)", (int)f.pid);
		else
			tdr_warn("failed to open event '%s' (%s): %s", f.event_name,
				 where(&f, w, sizeof(w)), tdr_strerror(err));
		return err;
	}
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
	if (!err && o->argv) {
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
	err = stat_threads__open_sideband(&st->th, st->targets, st->target_cnt, sw->groups[0].cpus,
					  sw->groups[0].cpu_cnt);
	tdr_plan__free(sw);
	if (err)
		return err;
	if (o->argv) {
		const char *base = strrchr(o->argv[0], '/');

		return stat_threads__add(&st->th, st->targets[0], st->targets[0],
					 base ? base + 1 : o->argv[0], st->main_plan);
	}
	for (size_t i = 0; i < st->target_cnt; i++) {
		char comm[32];

		proc_comm(st->target_procs[i], st->targets[i], comm, sizeof(comm));
		err = stat_threads__add(&st->th, st->target_procs[i], st->targets[i], comm, NULL);
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

static int make_targets(struct tdr_stat *st)
{
	const struct tdr_stat_opts *o = st->opts;

	if (o->pid_cnt)
		return attach_targets(st);
	st->targets = tdr_malloc(sizeof(*st->targets));
	if (!st->targets)
		return -ENOMEM;
	/* -a: every task of each CPU; else the launched child. */
	st->targets[0] = o->system_wide ? -1 : tdr_launch__pid(st->launch);
	st->target_cnt = 1;
	return 0;
}

int tdr_stat__new(const struct tdr_stat_opts *opts, struct tdr_stat **out)
{
	struct tdr_stat *st;
	int err;

	err = check_opts(opts);
	if (err)
		return err;
	st = tdr_calloc(1, sizeof(*st));
	if (!st)
		return -ENOMEM;
	st->opts = opts;
	st->sw.fd = -1;
	st->sum.exit_code = -1;
	st->sc.slots_cat = -1;
	st->per_thread = opts->per_thread;
	describe(st);
	/* Before fork and before any thread: signals become an fd. */
	err = tdr_sigwatch__open(&st->sw);
	if (err) {
		tdr_warn("failed to set up signal handling: %s", tdr_strerror(err));
		goto err_out;
	}
	err = choose_plan(st);
	if (err)
		goto err_out;
	if (opts->argv) {
		err = tdr_launch__start(opts->argv, &st->sw.old_mask, &st->launch);
		if (err) {
			tdr_warn("failed to start %s: %s", opts->argv[0], tdr_strerror(err));
			goto err_out;
		}
		st->sum.launched = true;
	}
	err = make_targets(st);
	if (!err)
		err = open_total(st);
	if (!err)
		err = stat_schema__init(&st->sc, st->plan, opts->threshold, opts->system_wide);
	for (size_t i = 0; !err && i < st->fallback_cnt; i++)
		err = stat_schema__note(&st->sc, st->fallback[i]);
	if (!err && st->per_thread && plan_uses_pmu(st->plan)) {
		/* The groups opened, so the plan works here; but a thread's own
		 * groups and the inherited ones would take turns on the CPU's
		 * TopDown counters. Drop the inherited ones (before any thread
		 * group exists) and keep their reference clocks. */
		stat_unit__drop_groups(st->total);
		st->total_is_threads = true;
		err = stat_schema__note(&st->sc,
					"--per-thread: the total is the sum of the threads (a "
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
	stat_threads__free(&st->th);
	stat_unit__free(st->total);
	tdr_launch__free(st->launch);
	tdr_plan__free(st->plan);
	tdr_plan__free(st->thread_plan);
	tdr_plan__free(st->main_plan);
	stat_schema__clear(&st->sc);
	for (size_t i = 0; i < st->pidfd_cnt; i++)
		zclose(st->pidfds[i]);
	free(st->pidfds);
	free(st->pid_gone);
	free(st->targets);
	free(st->target_procs);
	free(st->rows);
	tdr_sigwatch__close(&st->sw);
	free(st);
}
