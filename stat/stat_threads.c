/*
 * stat/stat_threads.c - per-thread rows of 'tdrec stat' (--per-thread).
 *
 * Responsibility: know every thread of the measured program and give each
 * its own counting groups. A side-band dummy event (PERF_COUNT_SW_DUMMY with
 * task, comm and comm_exec records, inherited) on every CPU writes FORK,
 * COMM and EXIT records into one small ring per CPU; a FORK opens
 * non-inherited groups for the new thread at once (pid = tid, every CPU),
 * COMM names it, and EXIT has it read a last time and closed at the next
 * read. What a thread ran before its groups were open (the time between its
 * creation and tdrec's wakeup, usually well under a millisecond) is not in
 * its row: the caller shows total minus threads as its own row.
 * Why not inherit_stat: on Linux 6.18 the PERF_RECORD_READ an inherited
 * group leader writes when a thread exits holds only the leader's value
 * (nr = 1: the group is taken apart before the read), so it cannot give a
 * thread's TopDown breakdown (docs/stat.md "Per thread").
 * Objects and lifecycle: struct stat_threads is zeroed by its owner, then
 * __open_sideband, __add (known threads), __drain / __read (repeat),
 * __free.
 * Ownership and threads: the struct owns the rings, dummies and units; the
 * plan is borrowed. One thread. No allocation per record except for a new
 * thread.
 * See: perf_event_open(2) PERF_RECORD_FORK/COMM/EXIT; docs/stat.md.
 */
#define LOG_PREFIX "stat: "

#include "stat_int.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "tdrec/tdr_err.h"
#include "tdrec/tdr_log.h"
#include "tdrec/tdr_mem.h"

#define SB_PAGES 16	       /* 64 KiB per CPU: thousands of records between reads */
#define SB_BUF_SZ (256u << 10) /* records copied out per pass */

static void sideband_attr(struct perf_event_attr *a)
{
	memset(a, 0, sizeof(*a));
	a->size = sizeof(*a);
	a->type = PERF_TYPE_SOFTWARE;
	a->config = PERF_COUNT_SW_DUMMY;
	a->inherit = 1; /* so threads of threads and child processes report too */
	a->task = 1;	/* FORK and EXIT */
	a->comm = 1;
	a->comm_exec = 1;
	/* Wake the poll loop on the first byte: a new thread should get its
	 * groups as soon as possible (wakeup_events counts samples only). */
	a->watermark = 1;
	a->wakeup_watermark = 1;
	a->exclude_kernel = 1;
	a->exclude_hv = 1;
}

int tdr_stat_threads__open_sideband(struct stat_threads *t, const pid_t *pids, size_t pid_cnt,
				    const int *cpus, size_t cpu_cnt)
{
	struct perf_event_attr a;
	int err;

	t->rings = tdr_calloc(cpu_cnt + 1, sizeof(*t->rings));
	t->sb_fds = tdr_malloc((cpu_cnt * pid_cnt + 1) * sizeof(*t->sb_fds));
	t->buf = tdr_malloc(SB_BUF_SZ);
	if (!t->rings || !t->sb_fds || !t->buf)
		return -ENOMEM;
	t->buf_sz = SB_BUF_SZ;
	sideband_attr(&a);
	for (size_t ci = 0; ci < cpu_cnt; ci++) {
		for (size_t pi = 0; pi < pid_cnt; pi++) {
			struct perf_event_attr copy = a;
			int fd = tdr_sys_perf_event_open(&copy, pids[pi], cpus[ci], -1,
							 PERF_FLAG_FD_CLOEXEC);

			if (fd < 0) {
				tdr_warn(
				    "failed to open the thread tracker (dummy event) on CPU %d "
				    "for pid %d: %s",
				    cpus[ci], (int)pids[pi], tdr_strerror(fd));
				return fd;
			}
			t->sb_fds[t->sb_cnt++] = fd;
			if (pi == 0) {
				err =
				    tdr_ring__mmap(&t->rings[t->ring_cnt], fd, cpus[ci], SB_PAGES);
				if (err) {
					tdr_warn(
					    "failed to map the thread tracker ring on CPU %d: %s",
					    cpus[ci], tdr_strerror(err));
					return err;
				}
				t->ring_cnt++;
				continue;
			}
			/* Every target on this CPU writes into the same ring. */
			err = tdr_sys_perf_ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT,
						 (unsigned long)t->rings[t->ring_cnt - 1].fd);
			if (err) {
				tdr_warn("failed to share the thread tracker ring on CPU %d: %s",
					 cpus[ci], tdr_strerror(err));
				return err;
			}
		}
	}
	return 0;
}

struct stat_thread *tdr_stat_threads__find(struct stat_threads *t, pid_t tid)
{
	/* Newest first: a reused tid belongs to the latest thread. */
	for (size_t i = t->cnt; i-- > 0;)
		if (t->v[i].tid == tid && !t->v[i].done)
			return &t->v[i];
	return NULL;
}

static void set_comm(struct stat_thread *th, const char *comm, size_t max)
{
	size_t n = 0;

	while (n < max && n < sizeof(th->comm) - 1 && comm[n])
		n++;
	memcpy(th->comm, comm, n);
	th->comm[n] = '\0';
}

int tdr_stat_threads__add(struct stat_threads *t, pid_t pid, pid_t tid, const char *comm,
			  const struct tdr_plan *plan)
{
	struct stat_unit_opts uo = {.plan = plan ? plan : t->plan, .pid_cnt = 1, .ref = t->refs};
	struct tdr_open_error fail;
	struct stat_thread *th;
	int err;

	if (tdr_ensure_cap(&t->v, &t->cap, sizeof(*t->v), t->cnt + 1))
		return -ENOMEM;
	th = &t->v[t->cnt];
	memset(th, 0, sizeof(*th));
	th->pid = pid;
	th->tid = tid;
	set_comm(th, comm ? comm : "", 16);
	uo.pids = &th->tid;
	err = tdr_stat_unit__open(&uo, &th->unit, &fail);
	if (err == -EMFILE && !t->raised) {
		t->raised = true;
		if (tdr_sys_raise_nofile() == 1)
			err = tdr_stat_unit__open(&uo, &th->unit, &fail);
	}
	if (err == -ENOMEM)
		return err;
	t->cnt++;
	if (!err)
		return 0;
	/* Its counts stay in the total; the caller's "not attributed" row has
	 * them. A thread that ended before we got to it (ESRCH) is normal. */
	th->open_err = err;
	th->done = true;
	t->missed++;
	if (err != -ESRCH && !t->fd_warned) {
		t->fd_warned = true;
		tdr_warn("cannot open counters for thread %d (%s): %s; it and any other such "
			 "thread are counted only in the total ('not attributed')",
			 (int)tid, th->comm, tdr_strerror(err));
	}
	return 0;
}

/* FORK (tdrec/records.h's view; so is every layout here). */
static int on_fork(struct stat_threads *t, const struct perf_event_header *h)
{
	struct stat_thread *parent;
	struct tdr_task_rec r;

	if (tdr_task__parse(h, &r)) {
		t->bad_recs++;
		return 0;
	}
	if (tdr_stat_threads__find(t, (pid_t)r.tid))
		return 0;
	/* A new thread is named like the thread that made it until a COMM. */
	parent = tdr_stat_threads__find(t, (pid_t)r.ptid);
	return tdr_stat_threads__add(t, (pid_t)r.pid, (pid_t)r.tid, parent ? parent->comm : "",
				     NULL);
}

static void on_comm(struct stat_threads *t, const struct perf_event_header *h)
{
	struct stat_thread *th;
	struct tdr_comm_rec r;

	if (tdr_comm__parse(h, &r)) {
		t->bad_recs++;
		return;
	}
	th = tdr_stat_threads__find(t, (pid_t)r.tid);
	if (th)
		set_comm(th, r.comm, r.comm_len);
}

static void on_exit_rec(struct stat_threads *t, const struct perf_event_header *h)
{
	struct stat_thread *th;
	struct tdr_task_rec r;

	if (tdr_task__parse(h, &r)) {
		t->bad_recs++;
		return;
	}
	th = tdr_stat_threads__find(t, (pid_t)r.tid);
	if (th)
		th->exiting = true;
}

int tdr_stat_threads__handle(struct stat_threads *t, const uint8_t *data, size_t sz)
{
	/* Rings are drained one after another, so a thread's COMM (or EXIT)
	 * may come before its FORK in the buffer: FORKs first. */
	static const uint32_t order[] = {PERF_RECORD_FORK, PERF_RECORD_COMM, PERF_RECORD_EXIT};

	for (size_t pass = 0; pass < TDR_ARRAY_SIZE(order); pass++) {
		struct tdr_record_iter it = {.data = data, .sz = sz};
		const struct perf_event_header *h;
		int r;

		while ((r = tdr_records__next(&it, &h)) > 0) {
			uint32_t type = tdr_record__type(h);
			int err = 0;

			if (type != order[pass])
				continue;
			if (type == PERF_RECORD_FORK)
				err = on_fork(t, h);
			else if (type == PERF_RECORD_COMM)
				on_comm(t, h);
			else
				on_exit_rec(t, h);
			if (err)
				return err;
		}
		if (r < 0 && pass == 0)
			t->bad_recs++;
	}
	return 0;
}

int tdr_stat_threads__drain(struct stat_threads *t)
{
	bool more = true;

	while (more) {
		size_t used = 0;
		int err;

		more = false;
		for (size_t i = 0; i < t->ring_cnt; i++) {
			size_t copied = 0;

			if (tdr_ring__read(&t->rings[i], t->buf + used, t->buf_sz - used,
					   &copied) == 1)
				more = true;
			used += copied;
		}
		if (!used)
			break;
		err = tdr_stat_threads__handle(t, t->buf, used);
		if (err)
			return err;
	}
	return 0;
}

void tdr_stat_threads__read(struct stat_threads *t, const struct stat_schema *sc, bool final)
{
	for (size_t i = 0; i < t->cnt; i++) {
		struct stat_thread *th = &t->v[i];

		if (th->done || !th->unit)
			continue;
		tdr_stat_unit__read(th->unit, sc);
		/* After EXIT the thread's events hold their final counts. */
		if (th->exiting || final) {
			tdr_stat_unit__close(th->unit);
			th->done = true;
		}
	}
}

uint64_t tdr_stat_threads__lost(const struct stat_threads *t)
{
	uint64_t n = 0;

	for (size_t i = 0; i < t->ring_cnt; i++)
		n += t->rings[i].cnt.lost_samples + t->rings[i].cnt.resyncs;
	return n;
}

void tdr_stat_threads__free(struct stat_threads *t)
{
	for (size_t i = 0; i < t->cnt; i++)
		tdr_stat_unit__free(t->v[i].unit);
	zfree(&t->v);
	t->cnt = t->cap = 0;
	for (size_t i = 0; i < t->ring_cnt; i++)
		tdr_ring__release(&t->rings[i]);
	zfree(&t->rings);
	t->ring_cnt = 0;
	for (size_t i = 0; i < t->sb_cnt; i++)
		zclose(t->sb_fds[i]);
	zfree(&t->sb_fds);
	t->sb_cnt = 0;
	zfree(&t->buf);
}
