/*
 * tests/recorder/test_record_never_ran.c - record's end-of-run group reads
 * when a group never ran (time_running 0).
 *
 * Sessions are opened on the fake syscall layer (tests/fakes/fake_sys.c)
 * from the plans of the fake sysfs trees; every group read of the end of a
 * recording (tdr_record__event_totals) is answered by a hook that lays the
 * PERF_FORMAT_GROUP buffer out as the kernel does ({nr, time_enabled,
 * time_running, {value, id} * nr}), with time_running 0 for the groups a
 * test says never ran. Checked: the counted totals of the groups that ran
 * (summed over their CPUs by hand), none for a group that never ran, and
 * the line that says so: the counter budget on Zen 4 (docs/plans.md
 * "Counter budget"), the CPUs not run on for a hybrid part's E-core group.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "fakes/fake_sys.h"
#include "recorder_int.h"
#include "support/sysfs_test_util.h"

/* The attr fd was opened with (the fake's log), or NULL. */
static const struct perf_event_attr *attr_of(int fd)
{
	for (size_t i = 0; i < fake_sys.open_cnt && i < FAKE_SYS_MAX_LOG; i++)
		if (fake_sys.log[i].result == fd)
			return &fake_sys.log[i].attr;
	return NULL;
}

struct reads {
	size_t group_sz[2];	 /* members of group 0, 1 */
	uint64_t leader_type[2]; /* what tells the leaders apart: attr.type */
	bool ran[2];
};

/* Member i of a group reads 10 * (i + 1); enabled 1000 ns. */
static ssize_t read_group(int fd, void *buf, size_t sz, void *ctx)
{
	const struct reads *r = ctx;
	const struct perf_event_attr *a = attr_of(fd);
	uint64_t *v = buf;
	size_t g = a && a->type == r->leader_type[1] ? 1 : 0, n = r->group_sz[g];

	if (!a || sz < (3 + 2 * n) * sizeof(*v))
		return -EIO;
	v[0] = n;
	v[1] = 1000;
	v[2] = r->ran[g] ? 1000 : 0;
	for (size_t i = 0; i < n; i++) {
		v[3 + 2 * i] = r->ran[g] ? 10 * (i + 1) : 0;
		v[4 + 2 * i] = 7000 + i;
	}
	return (ssize_t)((3 + 2 * n) * sizeof(*v));
}

struct run {
	struct tdr_recorder rec;
	struct tdr_event_totals *ev;
};

/* Open tree's plan (cpuid's identity) for one task on the fake layer,
 * then read every group as record does at its end. */
static void record_end(const char *tree, const char *cpuid, struct reads *r, struct run *out)
{
	struct tdr_plan_opts o = {
	    .sysfs_root = fixture(tree),
	    .cpuid = cpuid,
	    .sample_period = 100003,
	    .inherit = true,
	    .enable_on_exec = true,
	    .clockid = -1,
	};
	pid_t pid = 4242;
	struct tdr_session_opts so = {.pids = &pid, .pid_cnt = 1, .mmap_pages = 16};
	uint64_t lost = 0;

	memset(out, 0, sizeof(*out));
	assert_int_equal(tdr_plan__choose(&o, TDR_PLAN_AUTO, &out->rec.plan), 0);
	so.plan = out->rec.plan;
	assert_int_equal(tdr_session__open(&so, &out->rec.session, NULL), 0);
	assert_int_equal(tdr_plan__to_meta(out->rec.plan, &out->rec.meta), 0);
	assert_int_equal(tdr_session__fill_meta(out->rec.session, &out->rec.meta), 0);
	fake_sys.read_hook = read_group;
	fake_sys.read_ctx = r;
	log_reset();
	out->ev = tdr_record__event_totals(&out->rec, &lost);
	assert_non_null(out->ev);
}

static void run_free(struct run *x)
{
	free(x->ev);
	tdr_session__free(x->rec.session);
	tdr_meta__clear(&x->rec.meta);
	tdr_plan__free(x->rec.plan);
}

/* Zen 4's one group takes all six counters: with none free it never runs. */
static void test_never_ran__zen4_counter_budget(void **state)
{
	struct reads r = {.group_sz = {6, 0}, .leader_type = {PERF_TYPE_HARDWARE, 99}};
	struct run x;

	(void)state;
	r.ran[0] = true;
	record_end("genoa", "AuthenticAMD,25,17,1", &r, &x);
	/* 32 CPUs: cycles 32 * 10, ex_ret_ops 32 * 60. */
	assert_true(x.ev[0].has_counted);
	assert_int_equal(x.ev[0].counted, 320);
	assert_int_equal(x.ev[5].counted, 1920);
	assert_int_equal(x.ev[5].time_enabled_ns, 32000);
	assert_null(strstr(test_log_text, "never ran"));
	run_free(&x);

	fake_sys_reset();
	r.ran[0] = false;
	record_end("genoa", "AuthenticAMD,25,17,1", &r, &x);
	for (size_t i = 0; i < 6; i++)
		assert_false(x.ev[i].has_counted);
	assert_non_null(strstr(test_log_text, "the amd-zen4 group never ran (time_running 0): the PMU "
					 "could not schedule it, so it has no counts; free a counter "
					 "with 'sysctl kernel.nmi_watchdog=0', or use --plan with "
					 "fewer events"));
	run_free(&x);
}

/* Alder Lake: a program that stayed on the P-cores never ran the E-core
 * group; the P-core group's totals are kept. */
static void test_never_ran__hybrid_e_core_group(void **state)
{
	/* cpu_core's group leads with slots (type 4), cpu_atom's with
	 * cycles (PERF_TYPE_HARDWARE). */
	struct reads r = {.group_sz = {10, 4}, .leader_type = {4, PERF_TYPE_HARDWARE}};
	struct run x;

	(void)state;
	r.ran[0] = true;
	record_end("alderlake-hybrid", "GenuineIntel,6,151,2", &r, &x);
	assert_int_equal(x.rec.meta.event_cnt, 14);
	/* cpu_core CPUs 0-15: slots 16 * 10, topdown-mem-bound 16 * 100. */
	assert_true(x.ev[0].has_counted);
	assert_int_equal(x.ev[0].counted, 160);
	assert_int_equal(x.ev[9].counted, 1600);
	for (size_t i = 10; i < 14; i++)
		assert_false(x.ev[i].has_counted);
	assert_non_null(strstr(test_log_text, "the gracemont group on cpu_atom never ran "
					 "(time_running 0): the program did not run on its CPUs, or "
					 "the PMU could not schedule it; it has no counts"));
	assert_null(strstr(test_log_text, "topdown-l2 group never ran"));
	run_free(&x);

	/* Both ran: both kept (cpu_atom CPUs 16-23: 8 * 40 for be_bound). */
	fake_sys_reset();
	r.ran[1] = true;
	record_end("alderlake-hybrid", "GenuineIntel,6,151,2", &r, &x);
	assert_true(x.ev[13].has_counted);
	assert_int_equal(x.ev[13].counted, 320);
	assert_null(strstr(test_log_text, "never ran"));
	run_free(&x);
}

static int setup(void **state)
{
	(void)state;
	fake_sys_reset();
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup(test_never_ran__zen4_counter_budget, setup),
	    cmocka_unit_test_setup(test_never_ran__hybrid_e_core_group, setup),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
