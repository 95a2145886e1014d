/*
 * runtime/targets.c - what 'record' and 'stat' measure, and the
 * perf_event_open pids that follow from it.
 *
 * Responsibility: the one implementation both commands use for their
 * target options: checking that exactly one of a program, -p and -a is
 * given (-a with a program is fine); turning that into pids (every thread of
 * every -p process with a pidfd per process, -1 for -a, else the launched
 * child, started here held before exec); the plan options that follow
 * from the targets, and choosing the plan; and, while running, telling when
 * every -p process has ended. It does not open events (open_ladder.c).
 * The signal policy of both commands is here too: signals forwarded to a
 * launched program, the third one killing it, the first one ending -p and
 * -a alone; and waiting for the program once the run is over.
 * Objects and lifecycle: struct tdr_targets is embedded in tdr_recorder and
 * tdr_stat: __init (which checks) -> __open_signals -> __make -> (__poll_fds,
 * __all_gone, __signals in the loop) -> __wait_program -> __release.
 * Ownership and threads: the struct owns pids, pid_procs, pidfds and gone;
 * argv and procs are borrowed from the caller's options. One thread.
 * Messages carry the caller's prefix (t->who), as each command logs its own.
 */
#include "runtime_int.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

#include "tdrec/tdr_err.h"
#include "tdrec/tdr_log.h"
#include "tdrec/tdr_mem.h"

#define twarn(t, fmt, ...) tdr_log(TDR_LOG_WARN, "%s: " fmt, (t)->who, ##__VA_ARGS__)

int tdr_targets__init(struct tdr_targets *t, const char *who, const char *doing,
		      const struct tdr_target_opts *o)
{
	int what;

	*t = (struct tdr_targets){
	    .who = who,
	    .doing = doing,
	    .argv = o->argv,
	    .procs = o->pids,
	    .proc_cnt = o->pid_cnt,
	    .system_wide = o->system_wide,
	    .kernel = o->kernel,
	};
	what = !!t->argv + !!t->proc_cnt + !!t->system_wide;
	if (t->argv && t->system_wide)
		what = 1; /* -a with a program is fine */
	if (what != 1 || (t->argv && !t->argv[0])) {
		twarn(t, "give exactly one of: a program to run, -p PID, or -a");
		return -TDR_E_USAGE;
	}
	if (t->proc_cnt && t->system_wide) {
		twarn(t, "-p and -a cannot be combined");
		return -TDR_E_USAGE;
	}
	return 0;
}

int tdr_targets__open_signals(const struct tdr_targets *t, struct tdr_sigwatch *sw)
{
	int err = tdr_sigwatch__open(sw);

	if (err)
		twarn(t, "failed to set up signal handling: %s", tdr_strerror(err));
	return err;
}

/* One signal; true when it ends the run (see tdr_targets__signals). */
static bool on_signal(const struct tdr_targets *t, struct tdr_launch *launch,
		      const struct tdr_sigwatch *sw, struct tdr_sigstate *ss,
		      const struct signalfd_siginfo *si)
{
	int sig = (int)si->ssi_signo;

	if (sig == SIGCHLD)
		return launch && tdr_launch__poll(launch) == 1;
	ss->cnt++;
	ss->interrupted = true;
	if (!launch) {
		/* -p, or -a alone: the signal ends the run. */
		ss->stop_signal = sig;
		return true;
	}
	if (ss->cnt >= 3) {
		twarn(t, "third signal: killing %s", t->argv[0]);
		tdr_launch__signal(launch, SIGKILL);
	} else if (si->ssi_code != SI_KERNEL || tdr_launch__left_pgrp(launch)) {
		/* A terminal's signal (SI_KERNEL) went to the whole process
		 * group, the program included: forward only the others, and
		 * those a program in a group of its own (setsid) did not get.
		 * A program that inherited the signal ignored (a script's 'cmd
		 * &' ignores SIGINT) would never stop: it gets SIGTERM, as
		 * perf record ends its workload. */
		tdr_launch__signal(launch, sigismember(&sw->ignored, sig) ? SIGTERM : sig);
	}
	return false;
}

bool tdr_targets__signals(const struct tdr_targets *t, struct tdr_launch *launch,
			  struct tdr_sigwatch *sw, struct tdr_sigstate *ss)
{
	struct signalfd_siginfo si;
	bool stop = false;

	while (tdr_sigwatch__read(sw, &si) == 1)
		stop |= on_signal(t, launch, sw, ss, &si);
	return stop;
}

void tdr_targets__wait_program(const struct tdr_targets *t, struct tdr_launch *launch,
			       struct tdr_sigwatch *sw, struct tdr_sigstate *ss)
{
	while (launch && tdr_launch__poll(launch) == 0) {
		struct pollfd p = {.fd = sw->fd, .events = POLLIN};

		/* SIGCHLD wakes this up when the program ends; the timeout
		 * only bounds a missed one. */
		if (poll(&p, 1, 1000) > 0)
			tdr_targets__signals(t, launch, sw, ss);
	}
}

void tdr_targets__plan_opts(const struct tdr_targets *t, struct tdr_plan_opts *p)
{
	p->kernel = t->kernel;
	p->kernel_sw_counts = tdr_plan_kernel_counts_allowed();
	/* -a measures every task per CPU: nothing to inherit. */
	p->inherit = !t->system_wide;
	/* Counters start at exec for a launched program; -p and -a count
	 * from the moment the groups are open. */
	p->enable_on_exec = t->argv && !t->system_wide;
}

int tdr_targets__choose_plan(const struct tdr_targets *t, const struct tdr_plan_opts *p,
			     enum tdr_plan_kind kind, struct tdr_plan **out)
{
	/* The plan says in its one line why no plan fits (-TDR_E_NOPLAN). */
	(void)t;
	return tdr_plan__choose(p, kind, out);
}

/* -p: every thread of every process becomes a target; pidfds tell when
 * the processes end. */
static int attach(struct tdr_targets *t)
{
	size_t cap = 0, pcap = 0;

	t->pidfds = tdr_calloc(t->proc_cnt, sizeof(*t->pidfds));
	t->gone = tdr_calloc(t->proc_cnt, sizeof(*t->gone));
	if (!t->pidfds || !t->gone)
		return -ENOMEM;
	for (size_t i = 0; i < t->proc_cnt; i++)
		t->pidfds[i] = -1;
	for (size_t i = 0; i < t->proc_cnt; i++) {
		pid_t *tids = NULL;
		int n = tdr_proc__tids(NULL, t->procs[i], &tids);

		if (n < 0) {
			if (n == -ENOENT)
				twarn(t, "process %d does not exist", (int)t->procs[i]);
			return n;
		}
		if (tdr_ensure_cap(&t->pids, &cap, sizeof(pid_t), t->cnt + (size_t)n) ||
		    tdr_ensure_cap(&t->pid_procs, &pcap, sizeof(pid_t), t->cnt + (size_t)n)) {
			free(tids);
			return -ENOMEM;
		}
		for (int k = 0; k < n; k++) {
			bool dup = false;

			/* -p PID,TID of one process lists its threads twice:
			 * each thread is counted once. */
			for (size_t j = 0; j < t->cnt && !dup; j++)
				dup = t->pids[j] == tids[k];
			if (dup)
				continue;
			t->pids[t->cnt] = tids[k];
			t->pid_procs[t->cnt++] = t->procs[i];
		}
		free(tids);
		/* -ENOSYS before Linux 5.3: the loop then checks with kill(). */
		t->pidfds[i] = tdr_sys_pidfd_open(t->procs[i]);
		if (t->pidfds[i] < 0)
			t->pidfds[i] = -1;
	}
	return 0;
}

int tdr_targets__make(struct tdr_targets *t, const sigset_t *child_mask, struct tdr_launch **launch)
{
	int err;

	if (t->argv) {
		err = tdr_launch__start(t->argv, child_mask, launch);
		if (err) {
			twarn(t, "failed to start %s: %s", t->argv[0], tdr_strerror(err));
			return err;
		}
	}
	if (t->proc_cnt)
		return attach(t);
	t->pids = tdr_malloc(sizeof(*t->pids));
	if (!t->pids)
		return -ENOMEM;
	/* -a: every task of each CPU; else the launched child. */
	t->pids[0] = t->system_wide ? -1 : tdr_launch__pid(*launch);
	t->cnt = 1;
	return 0;
}

void tdr_targets__poll_fds(const struct tdr_targets *t, struct pollfd *pfds)
{
	for (size_t i = 0; t->pidfds && i < t->proc_cnt; i++)
		pfds[i] = (struct pollfd){.fd = t->pidfds[i], .events = POLLIN};
}

bool tdr_targets__all_gone(struct tdr_targets *t, struct pollfd *pfds, bool tick)
{
	size_t gone = 0;

	if (!t->gone)
		return false;
	for (size_t i = 0; i < t->proc_cnt; i++) {
		struct pollfd *p = &pfds[i];

		if (!t->gone[i]) {
			if (t->pidfds[i] >= 0)
				t->gone[i] = p->revents & (POLLIN | POLLHUP | POLLERR);
			else if (tick) /* no pidfd (before Linux 5.3) */
				t->gone[i] = kill(t->procs[i], 0) < 0 && errno == ESRCH;
			if (t->gone[i])
				p->fd = -1;
		}
		gone += t->gone[i];
	}
	return gone == t->proc_cnt;
}

void tdr_targets__release(struct tdr_targets *t)
{
	for (size_t i = 0; t->pidfds && i < t->proc_cnt; i++)
		zclose(t->pidfds[i]);
	zfree(&t->pidfds);
	zfree(&t->gone);
	zfree(&t->pids);
	zfree(&t->pid_procs);
	t->cnt = 0;
}
