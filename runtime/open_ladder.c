/*
 * runtime/open_ladder.c - open a plan's groups with the kernel's
 * fallbacks, and explain refusals; one implementation for 'record' (a
 * session with rings) and 'stat' (counting groups).
 *
 * Responsibility: the ladder between "the plan we want" and "the groups
 * that opened", each step visible in one line:
 *   - inherit + PERF_SAMPLE_READ refused (EINVAL, kernels before about
 *     6.12), when the caller asks for it (record): the same plan again with
 *     inherit = 0 (main thread only);
 *   - an event refused (ENOENT, EOPNOTSUPP, EINVAL, ENODEV): the next plan
 *     (tdr_plan_kind__fallback), naming the event; the line is also handed
 *     to the caller's note function;
 *   - EMFILE: RLIMIT_NOFILE raised to its hard limit, then once more;
 *   - EACCES/EPERM: perf_event_paranoid's value and what to do;
 *   - mmap EPERM (after the session halved the ring down to its minimum):
 *     perf_event_mlock_kb and what to do.
 * What opens is the caller's (the open callback); the ladder only rebuilds
 * the plan and decides what to try next. Everything it says goes through
 * tdr_warn's sink once, with the caller's prefix (tg->who).
 * Objects and lifecycle: struct tdr_ladder is filled on the stack for one
 * tdr_ladder__open call; it owns nothing of its own.
 * See: docs/record.md "Fallbacks"; docs/kernel.md "inherit and PERF_SAMPLE_READ",
 * "Locked memory and perf_event_paranoid", "Lost samples".
 */
#include "runtime_int.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "tdrec/tdr_err.h"
#include "tdrec/tdr_log.h"

#define twarn(t, fmt, ...) tdr_log(TDR_LOG_WARN, "%s: " fmt, (t)->who, ##__VA_ARGS__)

static bool plan_samples_with_read(const struct tdr_plan *plan)
{
	for (size_t g = 0; g < plan->group_cnt; g++)
		for (size_t e = 0; e < plan->groups[g].event_cnt; e++)
			if (plan->groups[g].events[e].attr.sample_type & PERF_SAMPLE_READ)
				return true;
	return false;
}

static const char *where(const struct tdr_open_error *f, char *buf, size_t sz)
{
	if (f->pid > 0)
		snprintf(buf, sz, "CPU %d, pid %d", f->cpu, (int)f->pid);
	else
		snprintf(buf, sz, "CPU %d", f->cpu);
	return buf;
}

static void explain_permission(const struct tdr_targets *t, const struct tdr_open_error *f)
{
	int paranoid = tdr_machine__paranoid(t->proc_root);
	int need = t->system_wide ? 0 : t->kernel ? 1 : 2;
	char w[64], pv[32], own[48];

	snprintf(own, sizeof(own), "%s your own programs", t->doing);
	if (paranoid != INT_MIN && paranoid <= need) {
		/* perf_event_paranoid allows it: lowering it would not help. */
		if (t->proc_cnt)
			twarn(t,
			      "no permission to attach to pid %d ('%s', CPU %d): %s. "
			      "perf_event_paranoid (%d) allows it; the process belongs to another "
			      "user or is not traceable: run as its owner, as root, or with "
			      "CAP_PERFMON and CAP_SYS_PTRACE",
			      (int)f->pid, f->event_name, f->cpu, tdr_strerror(f->err), paranoid);
		else
			twarn(t,
			      "no permission to open '%s' (%s): %s, although perf_event_paranoid "
			      "(%d) allows it: a security module, seccomp or container policy "
			      "forbids perf_event_open here; run as root or with CAP_PERFMON",
			      f->event_name, where(f, w, sizeof(w)), tdr_strerror(f->err),
			      paranoid);
		return;
	}
	if (paranoid == INT_MIN)
		snprintf(pv, sizeof(pv), "unreadable");
	else
		snprintf(pv, sizeof(pv), "%d", paranoid);
	twarn(t,
	      "no permission to open '%s' (%s): %s. /proc/sys/kernel/perf_event_paranoid is %s; "
	      "%s needs %d or less. Run as root (or with CAP_PERFMON), or lower it: "
	      "sysctl kernel.perf_event_paranoid=%d%s",
	      f->event_name, where(f, w, sizeof(w)), tdr_strerror(f->err), pv,
	      t->system_wide ? "-a (all processes)"
	      : t->kernel    ? "--kernel"
			     : own,
	      need, need,
	      t->proc_cnt ? "; -p also needs permission to trace the process (same user, or "
			    "CAP_SYS_PTRACE)"
			  : "");
}

static void explain_mmap(const struct tdr_targets *t, const struct tdr_open_error *f)
{
	int kb = tdr_machine__mlock_kb(t->proc_root);

	twarn(t,
	      "cannot map a ring buffer of %zu pages on CPU %d: %s. The locked-memory budget "
	      "for perf rings is /proc/sys/kernel/perf_event_mlock_kb (%d KiB per CPU) plus "
	      "RLIMIT_MEMLOCK: raise it (sysctl kernel.perf_event_mlock_kb=2048), run as root, "
	      "or close other perf sessions",
	      f->mmap_pages, f->cpu, tdr_strerror(f->err), kb == INT_MIN ? -1 : kb);
}

/* Descriptors open in this process below limit (at most 1 << 16 looked
 * at): tdrec's own (standard streams, signalfd, start pipes, the output),
 * counted without opening one (at EMFILE, /proc/self/fd cannot be). */
static size_t own_fds(rlim_t limit)
{
	size_t n = 0;

	if (limit == RLIM_INFINITY || limit > (1u << 16))
		limit = 1u << 16;
	for (int fd = 0; fd < (int)limit; fd++)
		n += fcntl(fd, F_GETFD) != -1;
	return n;
}

/* EMFILE even at the hard limit: how many fds the plan needs, how many
 * tdrec holds already, and the limit. */
static void explain_nofile(const struct tdr_targets *t, const struct tdr_plan *plan)
{
	struct rlimit rl;
	size_t fds = 0, events = 0, cpus = 0, own;
	char lim[32];

	for (size_t g = 0; g < plan->group_cnt; g++) {
		fds += plan->groups[g].event_cnt * plan->groups[g].cpu_cnt * t->cnt;
		events += plan->groups[g].event_cnt;
		if (plan->groups[g].cpu_cnt > cpus)
			cpus = plan->groups[g].cpu_cnt;
	}
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY)
		snprintf(lim, sizeof(lim), "%llu", (unsigned long long)rl.rlim_cur);
	else
		snprintf(lim, sizeof(lim), "unknown");
	/* The events' fds are closed again by now: what is left is tdrec's. */
	own = own_fds(getrlimit(RLIMIT_NOFILE, &rl) == 0 ? rl.rlim_cur : RLIM_INFINITY);
	twarn(t,
	      "too many open files: the plan needs about %zu fds (%zu events x %zu CPUs x %zu "
	      "thread%s), tdrec holds %zu more (standard streams, signals, pipes), and the "
	      "open-file limit is %s (hard limit reached); raise it (ulimit -n, "
	      "or /etc/security/limits.conf for the hard limit) and retry",
	      fds, events, cpus, t->cnt, t->cnt == 1 ? "" : "s", own, lim);
}

/* The last try failed for good: say why, and what to do. */
static void explain(const struct tdr_targets *t, const struct tdr_plan *plan,
		    const struct tdr_open_error *f, int err)
{
	char w[64];

	if (err == -EMFILE)
		explain_nofile(t, plan);
	else if ((err == -EACCES || err == -EPERM) && f->stage == TDR_STAGE_MMAP)
		explain_mmap(t, f);
	else if (err == -ENOMEM && f->stage == TDR_STAGE_MMAP)
		twarn(
		    t,
		    "cannot map a ring buffer of %zu pages (%zu MiB) on CPU %d: %s; use a smaller "
		    "--mmap-pages (the default is %d)",
		    f->mmap_pages, f->mmap_pages * (size_t)sysconf(_SC_PAGESIZE) >> 20, f->cpu,
		    tdr_strerror(err), TDR_RECORD_DEFAULT_PAGES);
	else if (err == -EACCES || err == -EPERM)
		explain_permission(t, f);
	else if (err == -ESRCH)
		twarn(t, "process %d does not exist (or has ended)", (int)f->pid);
	else
		twarn(t, "failed to %s event '%s' (%s): %s",
		      f->stage == TDR_STAGE_ENABLE   ? "enable"
		      : f->stage == TDR_STAGE_MMAP   ? "map the ring of"
		      : f->stage == TDR_STAGE_OUTPUT ? "redirect the samples of"
		      : f->stage == TDR_STAGE_ID     ? "read the id of"
						     : "open",
		      f->event_name, where(f, w, sizeof(w)), tdr_strerror(err));
}

static bool refused_event(int err)
{
	return err == -EINVAL || err == -ENOENT || err == -EOPNOTSUPP || err == -ENODEV;
}

/* The next plan that fits this machine, from kind on, in place of *l->plan. */
static int rebuild(struct tdr_ladder *l, enum tdr_plan_kind kind)
{
	struct tdr_plan *p = NULL;
	int err;

	/* A plan that does not fit this machine at all (no events) is skipped
	 * the same way as one the kernel refuses. */
	while ((err = tdr_plan__build(l->popts, kind, &p)) == -TDR_E_NOPLAN) {
		enum tdr_plan_kind next = tdr_plan_kind__fallback(kind);

		if (next == TDR_PLAN_KIND_CNT)
			return err;
		kind = next;
	}
	if (err)
		return err;
	tdr_plan__free(*l->plan);
	*l->plan = p;
	return 0;
}

/* An event of the plan was refused: the next plan, with a line saying so. */
static int fall_back(struct tdr_ladder *l, const struct tdr_open_error *f, int err)
{
	enum tdr_plan_kind from = (*l->plan)->kind;
	enum tdr_plan_kind next = tdr_plan_kind__fallback(from);
	char w[64], line[256];

	if (next == TDR_PLAN_KIND_CNT) {
		twarn(l->tg,
		      "the kernel refused event '%s' of plan %s (%s): %s; no other plan to fall "
		      "back to",
		      f->event_name, tdr_plan_kind_name(from), where(f, w, sizeof(w)),
		      tdr_strerror(err));
		return err;
	}
	/* Rebuilt first: plans between next and the one that fits this
	 * machine are skipped, and the line names the plan that runs. */
	snprintf(line, sizeof(line), "plan %s: the kernel refused event '%s' (%s): %s",
		 tdr_plan_kind_name(from), f->event_name, where(f, w, sizeof(w)),
		 tdr_strerror(err));
	err = rebuild(l, next);
	if (err) {
		twarn(l->tg, "%s; %s", line,
		      err == -TDR_E_NOPLAN ? "no other plan fits this machine" : tdr_strerror(err));
		return err;
	}
	snprintf(line + strlen(line), sizeof(line) - strlen(line), "; falling back to plan %s",
		 tdr_plan_kind_name((*l->plan)->kind));
	twarn(l->tg, "%s", line);
	return l->note(l->ctx, line);
}

int tdr_ladder__open(struct tdr_ladder *l)
{
	const bool want_inherit = l->popts->inherit;
	bool raised = false;
	struct tdr_open_error f;
	int err;

	l->noinherit = false;
	for (;;) {
		err = l->open(l->ctx, *l->plan, &f);
		if (!err)
			return 0;
		/* Out of memory in tdrec itself: nothing to explain or retry. A
		 * ring the kernel cannot allocate is explained below. */
		if (err == -ENOMEM && f.stage != TDR_STAGE_MMAP) {
			twarn(l->tg, "failed to open the events: %s", tdr_strerror(err));
			return err;
		}
		if (l->retry_noinherit && f.stage == TDR_STAGE_OPEN && err == -EINVAL &&
		    l->popts->inherit && !l->noinherit && plan_samples_with_read(*l->plan)) {
			/* Maybe only inherit + PERF_SAMPLE_READ is refused
			 * (before about 6.12): try the same plan without. */
			l->noinherit = true;
			l->popts->inherit = false;
			err = rebuild(l, (*l->plan)->kind);
			if (err)
				return err;
			continue;
		}
		if (f.stage == TDR_STAGE_OPEN && refused_event(err)) {
			/* The next plan is tried as asked, with inherit. */
			l->popts->inherit = want_inherit;
			l->noinherit = false;
			err = fall_back(l, &f, err);
			if (err)
				return err;
			continue;
		}
		if (err == -EMFILE && !raised) {
			raised = true;
			if (tdr_sys_raise_nofile() == 1)
				continue;
		}
		explain(l->tg, *l->plan, &f, err);
		return err;
	}
}
