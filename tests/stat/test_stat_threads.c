/*
 * tests/stat/test_stat_threads.c - the per-thread tracker of 'tdrec stat'
 * and the reference clocks, against the fake syscall layer
 * (tests/fakes/fake_sys.c replaces runtime/sys.c at link time): the
 * side-band dummies and rings it opens, FORK/COMM/EXIT records turned into
 * threads with their own groups (in any order within a drain), threads that
 * are gone before their groups open, EMFILE, and malformed records.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <errno.h>

#include "fakes/fake_sys.h"
#include "stat_test_util.h"

struct fx {
	struct tdr_plan *plan;
	struct stat_schema sc;
	struct stat_threads th;
	uint64_t buf[256];
	size_t pos; /* bytes used in buf */
};

static int fx_setup(void **state)
{
	struct fx *f = calloc(1, sizeof(*f));
	struct tdr_plan_opts o = stat_popts("vm");

	fake_sys_reset();
	/* What stat gives threads found later: no inheritance, no exec to
	 * wait for (enabled once the group is whole). */
	o.inherit = false;
	o.enable_on_exec = false;
	if (tdr_plan__build(&o, TDR_PLAN_SOFTWARE, &f->plan) ||
	    tdr_stat_schema__init(&f->sc, f->plan, false))
		return -1;
	log_reset();
	f->th.plan = f->plan;
	f->th.refs = true;
	*state = f;
	return 0;
}

static int fx_teardown(void **state)
{
	struct fx *f = *state;

	tdr_stat_threads__free(&f->th);
	tdr_stat_schema__clear(&f->sc);
	tdr_plan__free(f->plan);
	free(f);
	return 0;
}

/* Append a FORK or EXIT record {pid, ppid, tid, ptid, time}. */
static void add_task(struct fx *f, uint32_t type, uint32_t pid, uint32_t ppid, uint32_t tid,
		     uint32_t ptid)
{
	uint8_t *p = (uint8_t *)f->buf + f->pos;
	struct perf_event_header h = {.type = type, .size = 8 + 16 + 8};
	uint32_t ids[4] = {pid, ppid, tid, ptid};
	uint64_t time = 1;

	memcpy(p, &h, 8);
	memcpy(p + 8, ids, 16);
	memcpy(p + 24, &time, 8);
	f->pos += h.size;
}

/* Append a COMM record {pid, tid, comm[] padded to 8}. */
static void add_comm(struct fx *f, uint32_t pid, uint32_t tid, const char *comm)
{
	uint8_t *p = (uint8_t *)f->buf + f->pos;
	size_t n = (strlen(comm) + 1 + 7) & ~(size_t)7;
	struct perf_event_header h = {.type = PERF_RECORD_COMM, .size = (uint16_t)(8 + 8 + n)};
	uint32_t ids[2] = {pid, tid};

	memset(p, 0, h.size);
	memcpy(p, &h, 8);
	memcpy(p + 8, ids, 8);
	memcpy(p + 16, comm, strlen(comm));
	f->pos += h.size;
}

/* Opens logged for pid at cpu (cpu -1: the reference clock). */
static size_t opens_for(pid_t pid, int cpu)
{
	size_t n = 0;

	for (size_t i = 0; i < fake_sys.open_cnt && i < FAKE_SYS_MAX_LOG; i++)
		if (fake_sys.log[i].pid == pid && fake_sys.log[i].cpu == cpu &&
		    fake_sys.log[i].result >= 0)
			n++;
	return n;
}

static void test_stat_threads__sideband_rings(void **state)
{
	struct fx *f = *state;
	const pid_t pids[2] = {100, 101};
	const int cpus[2] = {0, 1};

	assert_int_equal(tdr_stat_threads__open_sideband(&f->th, pids, 2, cpus, 2), 0);
	assert_int_equal(fake_sys.open_cnt, 4);
	for (size_t i = 0; i < 4; i++) {
		const struct perf_event_attr *a = &fake_sys.log[i].attr;

		assert_int_equal(a->type, PERF_TYPE_SOFTWARE);
		assert_int_equal(a->config, PERF_COUNT_SW_DUMMY);
		assert_int_equal(a->inherit, 1);
		assert_int_equal(a->task & a->comm & a->comm_exec, 1);
		assert_int_equal(a->watermark, 1);
		assert_int_equal(a->wakeup_watermark, 1); /* wake on the first record */
		assert_int_equal(a->sample_period, 0);
		/* CPU by CPU, every target on each. */
		assert_int_equal(fake_sys.log[i].cpu, cpus[i / 2]);
		assert_int_equal(fake_sys.log[i].pid, pids[i % 2]);
	}
	/* One ring per CPU; the second target's dummy writes into it. */
	assert_int_equal(f->th.ring_cnt, 2);
	assert_int_equal(fake_sys.mmap_cnt, 2);
	assert_int_equal(fake_sys.set_output_cnt, 2);
	assert_int_equal(tdr_stat_threads__lost(&f->th), 0);
}

static void test_stat_threads__fork_comm_exit(void **state)
{
	struct fx *f = *state;
	const struct stat_thread *t;

	assert_int_equal(tdr_stat_threads__add(&f->th, 100, 100, "app", NULL), 0);
	/* The worker's COMM comes before its FORK (another CPU's ring was
	 * drained first); EXIT too. A forked process follows. */
	add_comm(f, 100, 101, "worker");
	add_task(f, PERF_RECORD_EXIT, 100, 100, 101, 100);
	add_task(f, PERF_RECORD_FORK, 100, 100, 101, 100);
	add_task(f, PERF_RECORD_FORK, 200, 100, 200, 100);
	assert_int_equal(tdr_stat_threads__handle(&f->th, (const uint8_t *)f->buf, f->pos), 0);
	assert_int_equal(f->th.cnt, 3);
	t = &f->th.v[1];
	assert_int_equal(t->pid, 100);
	assert_int_equal(t->tid, 101);
	assert_string_equal(t->comm, "worker");
	assert_non_null(t->unit);
	assert_true(t->exiting);
	t = &f->th.v[2];
	assert_int_equal(t->pid, 200);
	assert_string_equal(t->comm, "app"); /* named like its parent */
	assert_false(t->exiting);
	/* Each thread: the plan's 4 events on both CPUs of the vm tree, and a
	 * reference task-clock on cpu -1, not inherited. The groups' leaders
	 * open disabled and are enabled once each group is whole (one ioctl
	 * per CPU and thread); the reference clock is enabled at open. */
	assert_int_equal(opens_for(101, 0), 4);
	assert_int_equal(opens_for(101, 1), 4);
	assert_int_equal(opens_for(101, -1), 1);
	assert_int_equal(fake_sys.enable_cnt, 3 * 2);
	for (size_t i = 0; i < fake_sys.open_cnt; i++) {
		const struct fake_open_call *c = &fake_sys.log[i];

		assert_int_equal(c->attr.inherit, 0);
		/* Group leaders open stopped and start when the group is complete. */
		assert_int_equal(c->attr.disabled, c->group_fd == -1 && c->cpu != -1);
		if (c->cpu == -1) {
			assert_int_equal(c->attr.config, PERF_COUNT_SW_TASK_CLOCK);
			assert_int_equal(c->attr.read_format, PERF_FORMAT_TOTAL_TIME_ENABLED |
								  PERF_FORMAT_TOTAL_TIME_RUNNING);
		}
	}
	/* A FORK seen twice does not open twice. */
	f->pos = 0;
	add_task(f, PERF_RECORD_FORK, 200, 100, 200, 100);
	assert_int_equal(tdr_stat_threads__handle(&f->th, (const uint8_t *)f->buf, f->pos), 0);
	assert_int_equal(f->th.cnt, 3);
	/* The exiting thread is read a last time and closed; the others stay
	 * open until the final read. */
	tdr_stat_threads__read(&f->th, &f->sc, false);
	assert_true(f->th.v[1].done);
	assert_null(f->th.v[1].unit->s);
	assert_false(f->th.v[2].done);
	tdr_stat_threads__read(&f->th, &f->sc, true);
	assert_true(f->th.v[0].done && f->th.v[2].done);
	assert_null(tdr_stat_threads__find(&f->th, 200));
}

static int refuse(const struct perf_event_attr *a, pid_t pid, int cpu, void *ctx)
{
	(void)a;
	(void)cpu;
	if (pid == 102)
		return -ESRCH;
	if (pid == 103 || pid == 104)
		return *(int *)ctx;
	return 0;
}

static void test_stat_threads__threads_that_cannot_be_counted(void **state)
{
	struct fx *f = *state;
	int err = -EACCES;

	fake_sys.open_hook = refuse;
	fake_sys.open_ctx = &err;
	/* Gone before its groups could open: normal, nothing logged. */
	assert_int_equal(tdr_stat_threads__add(&f->th, 100, 102, "short", NULL), 0);
	assert_null(f->th.v[0].unit);
	assert_int_equal(f->th.v[0].open_err, -ESRCH);
	assert_true(f->th.v[0].done);
	assert_int_equal(test_log_text[0], '\0');
	/* Refused: said once, however many threads. */
	assert_int_equal(tdr_stat_threads__add(&f->th, 100, 103, "a", NULL), 0);
	assert_int_equal(tdr_stat_threads__add(&f->th, 100, 104, "b", NULL), 0);
	assert_int_equal(f->th.missed, 3);
	assert_non_null(strstr(test_log_text, "cannot open counters for thread 103"));
	assert_null(strstr(test_log_text, "thread 104"));
	assert_null(tdr_stat_threads__find(&f->th, 103));
}

static void test_stat_threads__emfile_raises_the_limit_once(void **state)
{
	struct fx *f = *state;

	fake_sys.emfile_until_raised = true;
	assert_int_equal(tdr_stat_threads__add(&f->th, 100, 100, "app", NULL), 0);
	assert_true(fake_sys.nofile_raised);
	assert_non_null(f->th.v[0].unit);
	assert_int_equal(f->th.missed, 0);
}

static void test_stat_threads__malformed_records(void **state)
{
	struct fx *f = *state;
	uint8_t *p = (uint8_t *)f->buf;
	struct perf_event_header h = {.type = PERF_RECORD_FORK, .size = 16};

	/* A FORK too short to hold a tid, then a COMM without a name. */
	memcpy(p, &h, 8);
	memset(p + 8, 0, 8);
	h.type = PERF_RECORD_COMM;
	memcpy(p + 16, &h, 8);
	memset(p + 24, 0, 8);
	assert_int_equal(tdr_stat_threads__handle(&f->th, p, 32), 0);
	assert_int_equal(f->th.cnt, 0);
	assert_int_equal(f->th.bad_recs, 2);
	/* A header whose size is not a multiple of 8 stops the walk. */
	h.size = 12;
	memcpy(p, &h, 8);
	assert_int_equal(tdr_stat_threads__handle(&f->th, p, 32), 0);
	assert_int_equal(f->th.bad_recs, 3);
	assert_int_equal(f->th.cnt, 0);
}

/* The total's reference clocks copy the leader's inherit and enable bits. */
static void test_stat_threads__unit_reference_clock(void **state)
{
	struct tdr_plan *p = stat_plan("vm", TDR_PLAN_SOFTWARE);
	const pid_t pids[2] = {300, 301};
	struct stat_unit_opts uo = {.plan = p, .pids = pids, .pid_cnt = 2, .ref = true};
	struct tdr_open_error fail;
	struct stat_unit *u = NULL;

	(void)state;
	assert_int_equal(tdr_stat_unit__open(&uo, &u, &fail), 0);
	assert_true(u->has_ref);
	assert_int_equal(opens_for(300, -1), 1);
	assert_int_equal(opens_for(301, -1), 1);
	for (size_t i = 0; i < fake_sys.open_cnt; i++) {
		const struct fake_open_call *c = &fake_sys.log[i];

		if (c->cpu != -1)
			continue;
		assert_int_equal(c->attr.inherit, 1);
		assert_int_equal(c->attr.disabled, 1);
		assert_int_equal(c->attr.enable_on_exec, 1);
		assert_int_equal(c->attr.exclude_kernel, 1);
		assert_int_equal(c->group_fd, -1);
	}
	/* Reads fail here (the fake has no counters): the error is kept, the
	 * sums stay at 0. */
	assert_int_equal(u->prev_off[0], 0);
	tdr_stat_unit__close(u);
	assert_null(u->s);
	tdr_stat_unit__free(u);
	/* Without a reference clock (system-wide) none is opened. */
	fake_sys_reset();
	uo.ref = false;
	assert_int_equal(tdr_stat_unit__open(&uo, &u, &fail), 0);
	assert_false(u->has_ref);
	assert_int_equal(opens_for(300, -1), 0);
	tdr_stat_unit__free(u);
	tdr_plan__free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_stat_threads__sideband_rings, fx_setup,
					    fx_teardown),
	    cmocka_unit_test_setup_teardown(test_stat_threads__fork_comm_exit, fx_setup,
					    fx_teardown),
	    cmocka_unit_test_setup_teardown(test_stat_threads__threads_that_cannot_be_counted,
					    fx_setup, fx_teardown),
	    cmocka_unit_test_setup_teardown(test_stat_threads__emfile_raises_the_limit_once,
					    fx_setup, fx_teardown),
	    cmocka_unit_test_setup_teardown(test_stat_threads__malformed_records, fx_setup,
					    fx_teardown),
	    cmocka_unit_test_setup_teardown(test_stat_threads__unit_reference_clock, fx_setup,
					    fx_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
