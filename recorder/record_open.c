/*
 * recorder/record_open.c - open the session with the kernel's fallbacks,
 * and explain refusals.
 *
 * Responsibility: the ladder between "the plan we want" and "the groups
 * that opened", each step visible in one line:
 *   - inherit + PERF_SAMPLE_READ refused (EINVAL, kernels before about
 *     6.12): the same plan again with inherit = 0 (main thread only);
 *   - an event refused (ENOENT, EOPNOTSUPP, EINVAL, ENODEV): the next plan
 *     (tdr_plan_kind__fallback), naming the event;
 *   - EMFILE: RLIMIT_NOFILE raised to its hard limit, then once more;
 *   - EACCES/EPERM: perf_event_paranoid's value and what to do;
 *   - mmap EPERM (after the session halved the ring down to its minimum):
 *     perf_event_mlock_kb and what to do.
 * Also the one-time PERF_FORMAT_LOST probe. Everything it says goes through
 * tdr_warn (stderr), once, where the context is known.
 * Objects and lifecycle: called by tdr_recorder__new (recorder.c) on its
 * half-built recorder; it owns nothing of its own.
 * See: shared kernel-facts.md sections 4, 7, 8; docs/record.md "Fallbacks".
 */
#define LOG_PREFIX "record: "

#include "recorder_int.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "tdrec/tdr_err.h"
#include "tdrec/tdr_log.h"
#include "tdrec/tdr_mem.h"

bool tdr_record__probe_read_lost(void)
{
	struct perf_event_attr a = {
	    .type = PERF_TYPE_SOFTWARE,
	    .size = sizeof(a),
	    .config = PERF_COUNT_SW_DUMMY,
	    .disabled = 1,
	    .exclude_kernel = 1,
	    .exclude_hv = 1,
	    .read_format = PERF_FORMAT_LOST,
	};
	int fd = tdr_sys_perf_event_open(&a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);

	if (fd >= 0) {
		close(fd);
		return true;
	}
	/* Only EINVAL says "unknown read_format bit"; anything else (no
	 * permission, no perf at all) is reported by the real open later. */
	return fd != -EINVAL;
}

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

static void explain_permission(const struct tdr_open_error *f, const struct tdr_record_opts *o)
{
	int paranoid = tdr_machine__paranoid(NULL);
	char w[64], pv[32];

	if (paranoid == INT_MIN)
		snprintf(pv, sizeof(pv), "unreadable");
	else
		snprintf(pv, sizeof(pv), "%d", paranoid);
	tdr_warn("no permission to open '%s' (%s): %s. /proc/sys/kernel/perf_event_paranoid is %s; "
		 "%s needs %s. Run as root (or with CAP_PERFMON), or lower it: "
		 "sysctl kernel.perf_event_paranoid=%d%s",
		 f->event_name, where(f, w, sizeof(w)), tdr_strerror(f->err), pv,
		 o->system_wide ? "-a (all processes)"
		 : o->kernel	? "--kernel"
				: "recording your own programs",
		 o->system_wide ? "0 or less"
		 : o->kernel	? "1 or less"
				: "2 or less",
		 o->system_wide ? 0
		 : o->kernel	? 1
				: 2,
		 o->pid_cnt ? "; -p also needs permission to trace the process (same user, "
			      "or CAP_SYS_PTRACE)"
			    : "");
}

static void explain_mmap(const struct tdr_open_error *f)
{
	FILE *fp = fopen("/proc/sys/kernel/perf_event_mlock_kb", "re");
	long kb = -1;

	if (fp) {
		if (fscanf(fp, "%ld", &kb) != 1)
			kb = -1;
		fclose(fp);
	}
	tdr_warn("cannot map a ring buffer of %zu pages on CPU %d: %s. The locked-memory budget "
		 "for perf rings is /proc/sys/kernel/perf_event_mlock_kb (%ld KiB per CPU) plus "
		 "RLIMIT_MEMLOCK: raise it (sysctl kernel.perf_event_mlock_kb=2048), run as root, "
		 "or close other perf sessions",
		 f->mmap_pages, f->cpu, tdr_strerror(f->err), kb);
}

static bool refused_event(int err)
{
	return err == -EINVAL || err == -ENOENT || err == -EOPNOTSUPP || err == -ENODEV;
}

static int rebuild(struct tdr_recorder *c, enum tdr_plan_kind kind)
{
	struct tdr_plan *p = NULL;
	int err;

	/* A plan that does not fit this machine at all (no events) is skipped
	 * the same way as one the kernel refuses. */
	while ((err = tdr_plan__build(&c->popts, kind, &p)) == -TDR_E_NOPLAN) {
		enum tdr_plan_kind next = tdr_plan_kind__fallback(kind);

		if (next == TDR_PLAN_KIND_CNT)
			return err;
		kind = next;
	}
	if (err)
		return err;
	tdr_plan__free(c->plan);
	c->plan = p;
	return 0;
}

int tdr_record__open(struct tdr_recorder *c)
{
	const bool want_inherit = c->popts.inherit;
	bool tried_noinherit = false, raised = false;
	struct tdr_open_error f;
	char w[64], line[256];
	int err;

	for (;;) {
		struct tdr_session_opts so = {
		    .plan = c->plan,
		    .pids = c->targets,
		    .pid_cnt = c->target_cnt,
		    .mmap_pages = c->mmap_pages,
		};

		err = tdr_session__open(&so, &c->session, &f);
		if (!err)
			break;
		if (f.stage == TDR_STAGE_OPEN && err == -EINVAL && c->popts.inherit &&
		    !tried_noinherit && plan_samples_with_read(c->plan)) {
			/* Maybe only inherit + PERF_SAMPLE_READ is refused
			 * (before about 6.12): try the same plan without. */
			tried_noinherit = true;
			c->popts.inherit = false;
			err = rebuild(c, c->plan->kind);
			if (err)
				return err;
			continue;
		}
		if (f.stage == TDR_STAGE_OPEN && refused_event(err)) {
			enum tdr_plan_kind from = c->plan->kind;
			enum tdr_plan_kind next = tdr_plan_kind__fallback(from);

			if (next == TDR_PLAN_KIND_CNT) {
				tdr_warn(
				    "the kernel refused event '%s' of plan %s (%s): %s; no other "
				    "plan to fall back to",
				    f.event_name, tdr_plan_kind_name(from), where(&f, w, sizeof(w)),
				    tdr_strerror(err));
				return err;
			}
			snprintf(line, sizeof(line),
				 "plan %s: the kernel refused event '%s' (%s): %s; falling back to "
				 "plan %s",
				 tdr_plan_kind_name(from), f.event_name, where(&f, w, sizeof(w)),
				 tdr_strerror(err), tdr_plan_kind_name(next));
			tdr_warn("%s", line);
			err = tdr_record__add_note(c, line);
			if (err)
				return err;
			c->popts.inherit = want_inherit;
			tried_noinherit = false;
			err = rebuild(c, next);
			if (err)
				return err;
			continue;
		}
		if (err == -EMFILE && !raised) {
			raised = true;
			if (tdr_sys_raise_nofile() == 1)
				continue;
		}
		if (err == -EMFILE) {
			tdr_warn("too many open files: the plan needs one fd per event, CPU and "
				 "thread (%zu threads); raise the limit (ulimit -n) and retry",
				 c->target_cnt);
		} else if ((err == -EACCES || err == -EPERM) && f.stage == TDR_STAGE_MMAP) {
			explain_mmap(&f);
		} else if (err == -EACCES || err == -EPERM) {
			explain_permission(&f, c->opts);
		} else if (err == -ESRCH) {
			tdr_warn("process %d does not exist (or has ended)", (int)f.pid);
		} else {
			tdr_warn("failed to open event '%s' (%s): %s", f.event_name,
				 where(&f, w, sizeof(w)), tdr_strerror(err));
		}
		return err;
	}
	if (tried_noinherit) {
		snprintf(line, sizeof(line),
			 "this kernel cannot inherit sampling groups read with every sample "
			 "(needs Linux 6.12 or later): only the main thread is measured; -a covers "
			 "all threads");
		tdr_warn("%s", line);
		c->inherit_fallback = true;
		err = tdr_record__add_note(c, line);
		if (err)
			return err;
	}
	if (tdr_session__mmap_pages(c->session) &&
	    tdr_session__mmap_pages(c->session) < c->mmap_pages) {
		snprintf(
		    line, sizeof(line),
		    "ring buffers reduced from %zu to %zu pages per CPU (locked-memory budget, "
		    "perf_event_mlock_kb): samples may be lost at high rates",
		    c->mmap_pages, tdr_session__mmap_pages(c->session));
		tdr_warn("%s", line);
		err = tdr_record__add_note(c, line);
		if (err)
			return err;
	}
	return 0;
}
