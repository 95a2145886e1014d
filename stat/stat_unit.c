/*
 * stat/stat_unit.c - one set of counting groups for 'tdrec stat' and its
 * running sums.
 *
 * Responsibility: open a counting plan for a list of pids on every CPU of
 * each group (tdr_session__open without rings), plus, in task mode, one
 * reference clock per pid: a software task-clock with cpu = -1 whose
 * time_running is how long the tasks ran. Read them (read(2) with
 * PERF_FORMAT_GROUP | TOTAL_TIME_ENABLED | TOTAL_TIME_RUNNING) and fold the
 * change since the previous read into two sums: since open, and since the
 * last interval mark.
 * Why a reference clock: a per-CPU task group counts only while its task
 * runs on that CPU, and its time_enabled is not the task's run time (on
 * Linux 6.18 inherited children add only their running time to it), so
 * multiplexing can only be told by comparing the running times summed over
 * the CPUs with the time the tasks ran (measured here: they match to the
 * nanosecond when nothing is multiplexed).
 * Objects and lifecycle: tdr_stat_unit__open -> __read (repeat) / __take ->
 * __close (sums stay) -> __free.
 * Ownership and threads: the unit owns its session and fds; one thread.
 * See: docs/stat.md "Multiplexing"; docs/kernel.md "TopDown metric values".
 */
#include "stat_int.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "tdrec/tdr_err.h"
#include "tdrec/tdr_mem.h"

/* The reference clock: the plan leader's inherit / enable bits, so it
 * starts and follows tasks exactly like the groups. */
static void ref_attr(const struct tdr_plan *plan, struct perf_event_attr *a)
{
	const struct perf_event_attr *lead = &plan->groups[0].events[0].attr;

	memset(a, 0, sizeof(*a));
	a->size = sizeof(*a);
	a->type = PERF_TYPE_SOFTWARE;
	a->config = PERF_COUNT_SW_TASK_CLOCK;
	a->read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
	a->inherit = lead->inherit;
	/* A single event: enabled at open unless it waits for exec. */
	a->disabled = lead->enable_on_exec;
	a->enable_on_exec = lead->enable_on_exec;
	a->exclude_kernel = lead->exclude_kernel;
	a->exclude_hv = lead->exclude_hv;
}

int tdr_stat_unit__open(const struct stat_unit_opts *o, struct stat_unit **out,
			struct tdr_open_error *fail)
{
	struct tdr_session_opts so = {.plan = o->plan, .pids = o->pids, .pid_cnt = o->pid_cnt};
	struct stat_unit *u;
	size_t slots = 0;
	int err;

	u = tdr_calloc(1, sizeof(*u));
	if (!u)
		return -ENOMEM;
	u->pid_cnt = o->pid_cnt;
	/* fds at -1 before anything can fail, so __free never closes fd 0. */
	u->ref_fds = tdr_calloc(o->pid_cnt + 1, sizeof(*u->ref_fds));
	if (!u->ref_fds) {
		free(u);
		return -ENOMEM;
	}
	for (size_t i = 0; i < u->pid_cnt; i++)
		u->ref_fds[i] = -1;
	err = tdr_session__open(&so, &u->s, fail);
	if (err)
		goto err_out;
	u->group_cnt = o->plan->group_cnt;
	for (size_t g = 0; g < u->group_cnt; g++) {
		u->prev_off[g] = slots;
		slots += tdr_session__cpu_cnt(u->s, g) * u->pid_cnt;
	}
	u->prev = tdr_calloc(slots + 1, sizeof(*u->prev));
	u->ref_prev = tdr_calloc(u->pid_cnt + 1, sizeof(*u->ref_prev));
	if (!u->prev || !u->ref_prev) {
		err = -ENOMEM;
		goto err_out;
	}
	u->has_ref = o->ref;
	for (size_t i = 0; o->ref && i < u->pid_cnt; i++) {
		struct perf_event_attr a;
		int fd;

		ref_attr(o->plan, &a);
		fd = tdr_sys_perf_event_open(&a, o->pids[i], -1, -1, PERF_FLAG_FD_CLOEXEC);
		if (fd < 0) {
			/* Not fatal: only multiplexing detection is lost. */
			u->has_ref = false;
			continue;
		}
		u->ref_fds[i] = fd;
	}
	*out = u;
	return 0;
err_out:
	tdr_stat_unit__free(u);
	return err;
}

int tdr_stat_unit__read(struct stat_unit *u, const struct stat_schema *sc)
{
	struct stat_vals d;
	unsigned back = 0;
	int first = 0;

	memset(&d, 0, sizeof(d));
	for (size_t g = 0; u->s && g < u->group_cnt && g < sc->group_cnt; g++) {
		size_t cpus = tdr_session__cpu_cnt(u->s, g);

		for (size_t ci = 0; ci < cpus; ci++) {
			for (size_t pi = 0; pi < u->pid_cnt; pi++) {
				struct tdr_group_read rd;
				int err = tdr_session__read_group(u->s, g, ci, pi, &rd);

				if (err) {
					if (!first)
						first = err;
					continue;
				}
				back +=
				    tdr_stat_delta(&u->prev[u->prev_off[g] + ci * u->pid_cnt + pi],
						   &rd, g, sc->base[g], &d);
			}
		}
	}
	for (size_t pi = 0; u->has_ref && pi < u->pid_cnt; pi++) {
		uint64_t buf[3]; /* value, time_enabled, time_running */
		ssize_t n = tdr_sys_read(u->ref_fds[pi], buf, sizeof(buf));

		if (n != (ssize_t)sizeof(buf)) {
			if (!first)
				first = n < 0 ? (int)n : -TDR_E_CORRUPT;
			continue;
		}
		if (buf[2] >= u->ref_prev[pi])
			d.ref_ns += buf[2] - u->ref_prev[pi];
		else
			back++;
		u->ref_prev[pi] = buf[2];
	}
	tdr_stat_vals__add(&u->sum, &d);
	tdr_stat_vals__add(&u->cur, &d);
	u->backwards += back;
	if (first && !u->read_err)
		u->read_err = first;
	return first;
}

void tdr_stat_unit__take(struct stat_unit *u, struct stat_vals *out)
{
	*out = u->cur;
	memset(&u->cur, 0, sizeof(u->cur));
}

void tdr_stat_unit__drop_groups(struct stat_unit *u)
{
	tdr_session__free(u->s);
	u->s = NULL;
}

void tdr_stat_unit__close(struct stat_unit *u)
{
	if (!u)
		return;
	tdr_session__free(u->s);
	u->s = NULL;
	for (size_t i = 0; u->ref_fds && i < u->pid_cnt; i++)
		zclose(u->ref_fds[i]);
	/* Only the sums are needed from here on (a run may see many threads). */
	zfree(&u->prev);
	zfree(&u->ref_prev);
	u->has_ref = false;
}

void tdr_stat_unit__free(struct stat_unit *u)
{
	if (!u)
		return;
	tdr_stat_unit__close(u);
	free(u->prev);
	free(u->ref_fds);
	free(u->ref_prev);
	free(u);
}
