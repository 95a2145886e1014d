/*
 * runtime/session.c - open a plan's groups on every CPU, map the rings.
 *
 * Responsibility: for each plan group, each of its CPUs and each target pid,
 * open the leader (group_fd -1) and then the members into it; read every
 * fd's kernel id (PERF_EVENT_IOC_ID); map one ring per CPU on the first
 * sampler of that CPU and point every other sampler of the CPU at it
 * (PERF_EVENT_IOC_SET_OUTPUT); then start the groups that count from open
 * (opened disabled: see prepare_event). When mmap is refused with EPERM (over the
 * mlock budget) everything is closed and opened again with half the pages,
 * so the wakeup watermark always matches the ring. It reports what failed
 * (struct tdr_open_error) and logs nothing: recorder.c knows what the user
 * asked for and explains. A session with mmap_pages = 0 only counts
 * (tdrec stat).
 * Objects and lifecycle: tdr_session__open -> __enable / __disable /
 * __read_group / __fill_meta -> __free.
 * Ownership and threads: one owner thread. fds, rings and copies of the
 * attrs belong to the session; the plan is only read during __open.
 * Invariants: every fd is close-on-exec (a launched program never inherits
 * one); members are opened after their leader and closed before it.
 * See: docs/kernel.md "inherit and PERF_SAMPLE_READ", "Ring buffer"; perf_event_open(2).
 */
#include "runtime_int.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "tdrec/tdr_err.h"
#include "tdrec/tdr_mem.h"

static void session_close(struct tdr_session *s)
{
	for (size_t i = 0; i < s->ring_cnt; i++)
		tdr_ring__release(&s->rings[i]);
	zfree(&s->rings);
	s->ring_cnt = 0;
	for (size_t gi = 0; gi < s->group_cnt; gi++) {
		struct tdr_session_group *g = &s->groups[gi];
		size_t n = g->cpu_cnt * s->pid_cnt * g->event_cnt;

		/* Members before their leader (index 0 of each group). */
		for (size_t i = n; g->fds && i-- > 0;)
			zclose(g->fds[i]);
		zfree(&g->fds);
		zfree(&g->ids);
		zfree(&g->cpus);
	}
	s->group_cnt = 0;
}

static void fail_set(struct tdr_open_error *fail, int err, enum tdr_open_stage stage,
		     const struct tdr_session_group *g, size_t gi, size_t e, int cpu, pid_t pid)
{
	if (!fail)
		return;
	fail->err = err;
	fail->stage = stage;
	fail->group_idx = gi;
	fail->event_idx = e;
	snprintf(fail->event_name, sizeof(fail->event_name), "%s", g->events[e].name);
	fail->cpu = cpu;
	fail->pid = pid;
}

/* The session's changes to one attr of a plan (tdr_session__prepare_plan). */
static void prepare_event(struct tdr_plan_event *ev, bool first, size_t pages)
{
	struct perf_event_attr *a = &ev->attr;

	if (first && !a->enable_on_exec) {
		/* A group whose leader runs while its members are added is not
		 * rescheduled in a CPU-wide context (-a), so the members would
		 * never count (they read 0); in a task context they would miss
		 * counts until the next context switch. Open it stopped and
		 * start every group when all are open and mapped, as perf
		 * does (session_try). */
		a->disabled = 1;
	}
	if (pages && (ev->flags & TDR_EVENT_SAMPLER)) {
		/* Wake the drain loop when a quarter of the ring is full: early
		 * enough to keep up at high rates, rare enough to be cheap. */
		a->watermark = 1;
		a->wakeup_watermark = (uint32_t)(pages * (size_t)sysconf(_SC_PAGESIZE) / 4);
	}
}

/*
 * What a sample reads of its group (docs/record.md "What a sample
 * reads"). The kernel lays a sample's group read out by the sampler's own
 * read_format (perf_output_read_group in kernel/events/core.c), and a read()
 * of the group by the read_format of the fd read. Every sample carrying each
 * member's PERF_FORMAT_LOST (8 bytes a member) buys nothing: the parser
 * learns of lost samples from the ring's LOST records, and the end of the
 * run reads the exact counts once. TOTAL_TIME_ENABLED/RUNNING (16 bytes)
 * only say whether the group was multiplexed, which a group of software
 * events never is (the software PMU always schedules it). So a sampler
 * with a member beside it drops LOST, and in an all-software group the two
 * times as well; the other members keep the full format and the group is
 * read through one of them (tdr_session__read_group).
 */
static void trim_sampler_read(struct tdr_plan_event *ev, size_t cnt)
{
	bool software = true;
	size_t sampler = SIZE_MAX;

	if (cnt < 2)
		return;
	for (size_t e = 0; e < cnt; e++) {
		software &= ev[e].attr.type == PERF_TYPE_SOFTWARE;
		if (sampler == SIZE_MAX && (ev[e].flags & TDR_EVENT_SAMPLER))
			sampler = e;
	}
	if (sampler == SIZE_MAX || !(ev[sampler].attr.read_format & PERF_FORMAT_GROUP))
		return;
	ev[sampler].attr.read_format &= ~(uint64_t)PERF_FORMAT_LOST;
	if (software)
		ev[sampler].attr.read_format &= ~(uint64_t)(PERF_FORMAT_TOTAL_TIME_ENABLED |
							    PERF_FORMAT_TOTAL_TIME_RUNNING);
}

void tdr_session__prepare_plan(struct tdr_plan *plan, size_t mmap_pages)
{
	for (size_t gi = 0; gi < plan->group_cnt; gi++) {
		struct tdr_plan_group *pg = &plan->groups[gi];
		bool sampler_seen = false;

		for (size_t e = 0; e < pg->event_cnt; e++) {
			/* Only the first sampler of a group gets a ring. */
			prepare_event(&pg->events[e], e == 0, sampler_seen ? 0 : mmap_pages);
			sampler_seen |= (pg->events[e].flags & TDR_EVENT_SAMPLER) != 0;
		}
		if (mmap_pages)
			trim_sampler_read(pg->events, pg->event_cnt);
	}
}

/* The member whose read_format has the most fields: a read() of the group
 * through its fd gives everything (the sampler's may be trimmed). */
static size_t full_reader(const struct tdr_session_group *g)
{
	size_t best = 0;

	for (size_t e = 1; e < g->event_cnt; e++)
		if (__builtin_popcountll(g->events[e].attr.read_format) >
		    __builtin_popcountll(g->events[best].attr.read_format))
			best = e;
	return best;
}

/* Copy group gi of the plan, with the session's changes (prepare_event). */
static int group_setup(struct tdr_session *s, const struct tdr_plan_group *pg, size_t gi,
		       size_t pages)
{
	struct tdr_session_group *g = &s->groups[gi];
	size_t n;

	if (!pg->event_cnt || pg->event_cnt > TDR_PLAN_MAX_EVENTS || !pg->cpu_cnt)
		return -EINVAL;
	g->event_cnt = pg->event_cnt;
	memcpy(g->events, pg->events, sizeof(g->events[0]) * pg->event_cnt);
	g->sampler_idx = -1;
	for (size_t e = 0; e < g->event_cnt; e++) {
		if (g->events[e].flags & TDR_EVENT_SAMPLER) {
			g->sampler_idx = (int)e;
			break;
		}
	}
	for (size_t e = 0; e < g->event_cnt; e++)
		prepare_event(&g->events[e], e == 0, (int)e == g->sampler_idx ? pages : 0);
	if (pages)
		trim_sampler_read(g->events, g->event_cnt);
	g->cpu_cnt = pg->cpu_cnt;
	g->cpus = tdr_calloc(pg->cpu_cnt, sizeof(*g->cpus));
	n = g->cpu_cnt * s->pid_cnt * g->event_cnt;
	g->fds = tdr_malloc(n * sizeof(*g->fds));
	g->ids = tdr_calloc(n, sizeof(*g->ids));
	if (!g->cpus || !g->fds || !g->ids)
		return -ENOMEM;
	memcpy(g->cpus, pg->cpus, pg->cpu_cnt * sizeof(*g->cpus));
	for (size_t i = 0; i < n; i++)
		g->fds[i] = -1;
	return 0;
}

static int group_open(struct tdr_session *s, size_t gi, struct tdr_open_error *fail)
{
	struct tdr_session_group *g = &s->groups[gi];

	for (size_t ci = 0; ci < g->cpu_cnt; ci++) {
		for (size_t pi = 0; pi < s->pid_cnt; pi++) {
			size_t base = tdr_session_slot(s, g, ci, pi, 0);
			int leader = -1;

			for (size_t e = 0; e < g->event_cnt; e++) {
				/* The kernel may write attr.size back (E2BIG): use a copy. */
				struct perf_event_attr a = g->events[e].attr;
				int fd = tdr_sys_perf_event_open(&a, s->pids[pi], g->cpus[ci],
								 leader, PERF_FLAG_FD_CLOEXEC);
				int err;

				if (fd < 0) {
					fail_set(fail, fd, TDR_STAGE_OPEN, g, gi, e, g->cpus[ci],
						 s->pids[pi]);
					return fd;
				}
				g->fds[base + e] = fd;
				if (e == 0)
					leader = fd;
				err = tdr_sys_perf_id(fd, &g->ids[base + e]);
				if (err) {
					fail_set(fail, err, TDR_STAGE_ID, g, gi, e, g->cpus[ci],
						 s->pids[pi]);
					return err;
				}
			}
		}
	}
	return 0;
}

static struct tdr_ring *ring_for_cpu(struct tdr_session *s, int cpu)
{
	for (size_t i = 0; i < s->ring_cnt; i++)
		if (s->rings[i].cpu == cpu)
			return &s->rings[i];
	return NULL;
}

/* One ring per CPU: mmap the first sampler there, redirect the others. */
static int session_map(struct tdr_session *s, size_t pages, struct tdr_open_error *fail)
{
	size_t max_rings = 0;
	bool by_id = s->group_cnt > 1;
	int err;

	for (size_t gi = 0; gi < s->group_cnt; gi++)
		if (s->groups[gi].sampler_idx >= 0)
			max_rings += s->groups[gi].cpu_cnt;
	if (!max_rings)
		return 0;
	s->rings = tdr_calloc(max_rings, sizeof(*s->rings));
	if (!s->rings)
		return -ENOMEM;
	for (size_t gi = 0; gi < s->group_cnt; gi++) {
		struct tdr_session_group *g = &s->groups[gi];
		size_t e = (size_t)g->sampler_idx;

		if (g->sampler_idx < 0)
			continue;
		/* Samples are told apart by PERF_SAMPLE_IDENTIFIER when two
		 * groups share a ring; otherwise all belong to group 0. */
		if (!(g->events[e].attr.sample_type & PERF_SAMPLE_IDENTIFIER))
			by_id = false;
		for (size_t ci = 0; ci < g->cpu_cnt; ci++) {
			for (size_t pi = 0; pi < s->pid_cnt; pi++) {
				size_t slot = tdr_session_slot(s, g, ci, pi, e);
				struct tdr_ring *r = ring_for_cpu(s, g->cpus[ci]);

				if (!r) {
					r = &s->rings[s->ring_cnt];
					err = tdr_ring__mmap(r, g->fds[slot], g->cpus[ci], pages);
					if (err) {
						fail_set(fail, err, TDR_STAGE_MMAP, g, gi, e,
							 g->cpus[ci], s->pids[pi]);
						if (fail)
							fail->mmap_pages = pages;
						return err;
					}
					s->ring_cnt++;
				} else {
					err = tdr_sys_perf_ioctl(g->fds[slot],
								 PERF_EVENT_IOC_SET_OUTPUT,
								 (unsigned long)r->fd);
					if (err) {
						fail_set(fail, err, TDR_STAGE_OUTPUT, g, gi, e,
							 g->cpus[ci], s->pids[pi]);
						return err;
					}
				}
				err = tdr_ring__add_id(r, g->ids[slot], (uint32_t)gi);
				if (err)
					return err;
			}
		}
	}
	for (size_t i = 0; i < s->ring_cnt; i++)
		s->rings[i].count_by_id = by_id;
	return 0;
}

/* ioctl req (with PERF_IOC_FLAG_GROUP) on every leader, or with
 * started_only on those prepare_event opened disabled (they count from open,
 * not from exec). Every leader is tried; the first failure is returned and
 * described in *fail. */
static int session_ioctl_leaders(struct tdr_session *s, unsigned long req, bool started_only,
				 struct tdr_open_error *fail)
{
	int first = 0;

	for (size_t gi = 0; gi < s->group_cnt; gi++) {
		struct tdr_session_group *g = &s->groups[gi];
		const struct perf_event_attr *lead = &g->events[0].attr;

		if (started_only && (!lead->disabled || lead->enable_on_exec))
			continue;
		for (size_t ci = 0; ci < g->cpu_cnt; ci++) {
			for (size_t pi = 0; pi < s->pid_cnt; pi++) {
				int fd = g->fds[tdr_session_slot(s, g, ci, pi, 0)];
				int err = tdr_sys_perf_ioctl(fd, req, PERF_IOC_FLAG_GROUP);

				if (err && !first) {
					first = err;
					fail_set(fail, err, TDR_STAGE_ENABLE, g, gi, 0, g->cpus[ci],
						 s->pids[pi]);
				}
			}
		}
	}
	return first;
}

static int session_try(struct tdr_session *s, const struct tdr_session_opts *opts, size_t pages,
		       struct tdr_open_error *fail)
{
	int err;

	s->group_cnt = opts->plan->group_cnt;
	s->mmap_pages = pages;
	for (size_t gi = 0; gi < s->group_cnt; gi++) {
		err = group_setup(s, &opts->plan->groups[gi], gi, pages);
		if (err)
			return err;
	}
	for (size_t gi = 0; gi < s->group_cnt; gi++) {
		err = group_open(s, gi, fail);
		if (err)
			return err;
	}
	err = pages ? session_map(s, pages, fail) : 0;
	/* Everything is open and mapped: no sample is made before its ring
	 * exists. */
	return err ? err : session_ioctl_leaders(s, PERF_EVENT_IOC_ENABLE, true, fail);
}

int tdr_session__open(const struct tdr_session_opts *opts, struct tdr_session **out,
		      struct tdr_open_error *fail)
{
	struct tdr_session *s;
	size_t pages = opts->mmap_pages;
	size_t min_pages = opts->min_mmap_pages ? opts->min_mmap_pages : 8;
	int err;

	if (fail)
		memset(fail, 0, sizeof(*fail));
	if (!opts->plan || !opts->plan->group_cnt || opts->plan->group_cnt > TDR_PLAN_MAX_GROUPS ||
	    !opts->pid_cnt || (pages & (pages - 1)))
		return -EINVAL;
	s = tdr_calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	s->pids = tdr_calloc(opts->pid_cnt, sizeof(*s->pids));
	if (!s->pids) {
		free(s);
		return -ENOMEM;
	}
	memcpy(s->pids, opts->pids, opts->pid_cnt * sizeof(*s->pids));
	s->pid_cnt = opts->pid_cnt;
	if (min_pages > pages)
		min_pages = pages;
	for (;;) {
		err = session_try(s, opts, pages, fail);
		if (!err)
			break;
		session_close(s);
		/* Over the mlock budget (docs/kernel.md "Locked memory"): try a smaller ring. */
		if (err == -EPERM && fail && fail->stage == TDR_STAGE_MMAP &&
		    pages / 2 >= min_pages && pages > 1) {
			pages /= 2;
			continue;
		}
		tdr_session__free(s);
		return err;
	}
	*out = s;
	return 0;
}

int tdr_session__disable(struct tdr_session *s)
{
	return session_ioctl_leaders(s, PERF_EVENT_IOC_DISABLE, false, NULL);
}

size_t tdr_session__mmap_pages(const struct tdr_session *s)
{
	return s->ring_cnt ? s->mmap_pages : 0;
}

size_t tdr_session__cpu_cnt(const struct tdr_session *s, size_t g)
{
	return g < s->group_cnt ? s->groups[g].cpu_cnt : 0;
}

const struct perf_event_attr *tdr_session__attr(const struct tdr_session *s, size_t g, size_t e)
{
	if (g >= s->group_cnt || e >= s->groups[g].event_cnt)
		return NULL;
	return &s->groups[g].events[e].attr;
}

int tdr_session__read_group(struct tdr_session *s, size_t gi, size_t cpu_idx, size_t pid_idx,
			    struct tdr_group_read *out)
{
	/* nr, time_enabled, time_running, then { value, id, lost } per event */
	uint64_t buf[3 + 3 * TDR_PLAN_MAX_EVENTS];
	struct tdr_session_group *g;
	uint64_t fmt, nr;
	size_t pos = 1, rd;
	ssize_t n;

	if (gi >= s->group_cnt || cpu_idx >= s->groups[gi].cpu_cnt || pid_idx >= s->pid_cnt)
		return -EINVAL;
	g = &s->groups[gi];
	rd = full_reader(g);
	fmt = g->events[rd].attr.read_format;
	if (!(fmt & PERF_FORMAT_GROUP))
		return -EINVAL;
	memset(out, 0, sizeof(*out));
	n = tdr_sys_read(g->fds[tdr_session_slot(s, g, cpu_idx, pid_idx, rd)], buf, sizeof(buf));
	if (n < 0)
		return (int)n;
	if (n < 8)
		return -TDR_E_CORRUPT;
	nr = buf[0];
	if (nr > TDR_PLAN_MAX_EVENTS)
		return -TDR_E_CORRUPT;
	if (fmt & PERF_FORMAT_TOTAL_TIME_ENABLED)
		out->time_enabled = buf[pos++];
	if (fmt & PERF_FORMAT_TOTAL_TIME_RUNNING)
		out->time_running = buf[pos++];
	for (uint64_t i = 0; i < nr; i++) {
		size_t need = pos + 1 + !!(fmt & PERF_FORMAT_ID) + !!(fmt & PERF_FORMAT_LOST);

		if (need * 8 > (size_t)n)
			return -TDR_E_CORRUPT;
		out->values[i] = buf[pos++];
		if (fmt & PERF_FORMAT_ID)
			out->ids[i] = buf[pos++];
		if (fmt & PERF_FORMAT_LOST)
			out->lost[i] = buf[pos++];
	}
	out->value_cnt = (size_t)nr;
	return 0;
}

int tdr_session__fill_meta(const struct tdr_session *s, struct tdr_meta *meta)
{
	size_t base = 0;

	for (size_t gi = 0; gi < s->group_cnt; gi++) {
		const struct tdr_session_group *g = &s->groups[gi];

		if (base + g->event_cnt > meta->event_cnt)
			return -EINVAL;
		for (size_t e = 0; e < g->event_cnt; e++) {
			struct tdr_event_desc *d = &meta->events[base + e];
			size_t n = g->cpu_cnt * s->pid_cnt, k = 0;
			struct tdr_event_id *ids;

			if (d->group_idx != gi || !d->name || strcmp(d->name, g->events[e].name))
				return -EINVAL;
			ids = tdr_calloc(n, sizeof(*ids));
			if (!ids)
				return -ENOMEM;
			for (size_t ci = 0; ci < g->cpu_cnt; ci++) {
				for (size_t pi = 0; pi < s->pid_cnt; pi++, k++) {
					ids[k].cpu =
					    g->cpus[ci] < 0 ? UINT32_MAX : (uint32_t)g->cpus[ci];
					ids[k].pid =
					    s->pids[pi] < 0 ? UINT32_MAX : (uint32_t)s->pids[pi];
					ids[k].id = g->ids[tdr_session_slot(s, g, ci, pi, e)];
				}
			}
			free(d->ids);
			d->ids = ids;
			d->id_cnt = n;
			d->attr = g->events[e].attr; /* as opened: watermark included */
			d->attr_disk_sz = sizeof(d->attr);
		}
		base += g->event_cnt;
	}
	return 0;
}

void tdr_session__free(struct tdr_session *s)
{
	if (!s)
		return;
	session_close(s);
	free(s->pids);
	free(s);
}
