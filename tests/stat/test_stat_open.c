/*
 * tests/stat/test_stat_open.c - how 'tdrec stat' opens its counters, against
 * the fake sysfs trees and the fake syscall layer (tests/fakes/fake_sys.c
 * replaces runtime/sys.c): the counting attrs given to perf_event_open for
 * a launched program, -p and -a; the reference clocks; the fallback ladder
 * when the kernel refuses a TopDown event (visible, kept as a note); the
 * permission explanation; and --per-thread on a TopDown plan, where the
 * inherited groups are closed before any thread group exists so the two
 * never share a CPU's TopDown counters. The launched program is held
 * before exec and killed unreleased.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <errno.h>
#include <unistd.h>

#include "fakes/fake_sys.h"
#include "stat_test_util.h"
#include "tdrec/tdr_err.h"

static char *const true_argv[] = {"/bin/true", NULL};

struct fx {
	struct tdr_stat_opts o;
	struct tdr_stat *st;
	FILE *out;
	char *text;
	size_t len;
};

static int setup(void **state)
{
	struct fx *f = calloc(1, sizeof(*f));

	fake_sys_reset();
	log_reset();
	f->out = open_memstream(&f->text, &f->len);
	f->o.what.sysfs_root = fixture("sapphire-rapids");
	f->o.what.argv = true_argv;
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fx *f = *state;

	tdr_stat__free(f->st);
	fclose(f->out);
	free(f->text);
	free(f);
	return 0;
}

/* The n-th logged open of event config (type 4) or the first at cpu. */
static const struct fake_open_call *find_open(uint32_t type, uint64_t config, int cpu)
{
	for (size_t i = 0; i < fake_sys.open_cnt && i < FAKE_SYS_MAX_LOG; i++) {
		const struct fake_open_call *c = &fake_sys.log[i];

		if (c->attr.type == type && c->attr.config == config && c->cpu == cpu)
			return c;
	}
	return NULL;
}

static void test_stat_open__launched_topdown_l2(void **state)
{
	struct fx *f = *state;
	const struct fake_open_call *slots, *mem, *ref;

	assert_int_equal(tdr_stat__new(&f->o, &f->st), 0);
	assert_int_equal(f->st->plan->kind, TDR_PLAN_TOPDOWN_L2);
	/* 8 CPUs x 9 events, then one reference clock; no mmap at all. */
	assert_int_equal(fake_sys.open_cnt, 8 * 9 + 1);
	assert_int_equal(fake_sys.mmap_cnt, 0);
	slots = find_open(4, 0x400, 7);
	mem = find_open(4, 0x8700, 7);
	ref = find_open(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK, -1);
	assert_non_null(slots);
	assert_non_null(mem);
	assert_non_null(ref);
	/* The launched child, per CPU, inherited, from exec. */
	assert_int_equal(slots->pid, tdr_launch__pid(f->st->launch));
	assert_int_equal(slots->group_fd, -1);
	assert_int_equal(slots->attr.inherit & slots->attr.disabled & slots->attr.enable_on_exec,
			 1);
	assert_int_equal(mem->group_fd, slots->result);
	assert_int_equal(mem->attr.sample_period, 0);
	assert_int_equal(mem->attr.disabled, 0);
	assert_int_equal(ref->pid, slots->pid);
	assert_int_equal(ref->attr.enable_on_exec, 1);
	assert_int_equal(ref->attr.inherit, 1);
	/* Every open: counting only (no period, no frequency, no sample
	 * bits), read as a group with both times; slots leads each CPU's
	 * group and every metric event joins the slots of its CPU. */
	for (size_t i = 0; i < fake_sys.open_cnt; i++) {
		const struct fake_open_call *c = &fake_sys.log[i];
		const uint64_t rf = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;

		assert_int_equal(c->attr.sample_period, 0);
		assert_int_equal(c->attr.freq, 0);
		assert_int_equal(c->attr.sample_type, 0);
		assert_int_equal(c->attr.read_format & rf, rf);
		if (c == ref)
			continue;
		assert_int_equal(c->attr.type, 4);
		assert_true(c->attr.read_format & PERF_FORMAT_GROUP);
		if (c->attr.config == 0x400)
			assert_int_equal(c->group_fd, -1);
		else
			assert_int_equal(c->group_fd, find_open(4, 0x400, c->cpu)->result);
	}
	assert_false(f->st->total_is_threads);
	assert_int_equal(f->st->sc.meta.category_cnt, 12);
	/* Nothing is enabled before exec: tdrec's own code is not counted. */
	assert_int_equal(fake_sys.enable_cnt, 0);
	assert_int_equal(ref->attr.disabled, 1);
}

/* -a: cpu-wide (pid -1), nothing inherited, counting from open, no
 * reference clock (time_enabled tells multiplexing there). */
static void test_stat_open__system_wide(void **state)
{
	struct fx *f = *state;
	const struct fake_open_call *slots;

	f->o.what.argv = NULL;
	f->o.what.system_wide = true;
	assert_int_equal(tdr_stat__new(&f->o, &f->st), 0);
	assert_int_equal(fake_sys.open_cnt, 8 * 9);
	slots = find_open(4, 0x400, 0);
	assert_int_equal(slots->pid, -1);
	assert_int_equal(slots->attr.inherit, 0);
	assert_int_equal(slots->attr.enable_on_exec, 0);
	/* Opened disabled and enabled once whole: a member added to a group
	 * that already counts would wait for the next sched-in, which for a
	 * cpu-wide group may never come. One enable per CPU, after the last
	 * open. */
	assert_int_equal(slots->attr.disabled, 1);
	assert_int_equal(find_open(4, 0x8700, 7)->attr.disabled, 0);
	assert_int_equal(fake_sys.enable_cnt, 8);
	assert_true(f->st->sc.system_wide);
	assert_null(find_open(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK, -1));
}

static int refuse_l2(const struct perf_event_attr *a, pid_t pid, int cpu, void *ctx)
{
	(void)pid;
	(void)cpu;
	(void)ctx;
	return a->type == 4 && a->config >= 0x8400 && a->config <= 0x8700 ? -EINVAL : 0;
}

static int refuse_metrics(const struct perf_event_attr *a, pid_t pid, int cpu, void *ctx)
{
	(void)pid;
	(void)cpu;
	(void)ctx;
	return a->type == 4 && a->config >= 0x8000 ? -EOPNOTSUPP : 0;
}

static void test_stat_open__fallback_is_visible(void **state)
{
	struct fx *f = *state;

	fake_sys.open_hook = refuse_l2;
	assert_int_equal(tdr_stat__new(&f->o, &f->st), 0);
	assert_int_equal(f->st->plan->kind, TDR_PLAN_TOPDOWN_L1);
	assert_non_null(strstr(test_log_text, "plan topdown-l2: the kernel refused event "
					 "'topdown-heavy-ops' (CPU 0, pid "));
	assert_non_null(strstr(test_log_text, "falling back to plan topdown-l1"));
	assert_int_equal(f->st->sc.meta.category_cnt, 4);
	assert_non_null(strstr(f->st->sc.meta.notes[f->st->sc.meta.note_cnt - 1],
			       "falling back to plan topdown-l1"));
	tdr_stat__free(f->st);
	f->st = NULL;

	/* No metric event at all: down to the software plan, both lines. */
	fake_sys_reset();
	log_reset();
	fake_sys.open_hook = refuse_metrics;
	assert_int_equal(tdr_stat__new(&f->o, &f->st), 0);
	assert_int_equal(f->st->plan->kind, TDR_PLAN_SOFTWARE);
	assert_non_null(strstr(test_log_text, "falling back to plan topdown-l1"));
	assert_non_null(strstr(test_log_text, "falling back to plan software"));
	assert_int_equal(f->st->sc.meta.category_cnt, 0);
	assert_int_equal(f->st->fallback_cnt, 2);
}

static int refuse_perm(const struct perf_event_attr *a, pid_t pid, int cpu, void *ctx)
{
	(void)a;
	(void)pid;
	(void)cpu;
	(void)ctx;
	return -EACCES;
}

static void test_stat_open__permission_explained(void **state)
{
	struct fx *f = *state;

	fake_sys.open_hook = refuse_perm;
	assert_int_equal(tdr_stat__new(&f->o, &f->st), -EACCES);
	assert_null(f->st);
	assert_non_null(strstr(test_log_text, "no permission to open 'slots'"));
	assert_non_null(strstr(test_log_text, "perf_event_paranoid"));
	assert_int_equal(f->len, 0); /* nothing on the output */
}

/* TopDown + --per-thread: the inherited groups are gone (their fds closed)
 * before the main thread's own group is opened; the total keeps its
 * reference clock and becomes the sum of the threads. */
static void test_stat_open__per_thread_topdown(void **state)
{
	struct fx *f = *state;
	const struct stat_thread *main_th;
	pid_t child;

	f->o.per_thread = true;
	assert_int_equal(tdr_stat__new(&f->o, &f->st), 0);
	child = tdr_launch__pid(f->st->launch);
	assert_true(f->st->total_is_threads);
	assert_null(f->st->total->s);
	assert_true(f->st->total->has_ref);
	assert_non_null(strstr(f->st->sc.meta.notes[f->st->sc.meta.note_cnt - 1],
			       "the total is the sum of the threads"));
	assert_int_equal(f->st->th.cnt, 1);
	main_th = &f->st->th.v[0];
	assert_int_equal(main_th->tid, child);
	assert_string_equal(main_th->comm, "true");
	assert_non_null(main_th->unit);
	/* total (72 + ref) + side band (8 CPUs of the tree's software plan) +
	 * the main thread (72 + ref): its groups are not inherited, start at
	 * exec. */
	assert_int_equal(fake_sys.open_cnt, 73 + 8 + 73);
	assert_int_equal(fake_sys.mmap_cnt, 8);
	{
		const struct fake_open_call *c = &fake_sys.log[73 + 8];

		assert_int_equal(c->attr.config, 0x400);
		assert_int_equal(c->pid, child);
		assert_int_equal(c->attr.inherit, 0);
		assert_int_equal(c->attr.enable_on_exec, 1);
	}
}

/* The software plan has no such conflict: exact inherited totals stay. */
static void test_stat_open__per_thread_software_keeps_total(void **state)
{
	struct fx *f = *state;

	f->o.per_thread = true;
	f->o.what.sysfs_root = fixture("vm");
	assert_int_equal(tdr_stat__new(&f->o, &f->st), 0);
	assert_false(f->st->total_is_threads);
	assert_non_null(f->st->total->s);
}

static void test_stat_open__bad_options(void **state)
{
	struct fx *f = *state;
	const pid_t pid = 1;

	f->o.per_thread = true;
	f->o.what.system_wide = true;
	assert_int_equal(tdr_stat__new(&f->o, &f->st), -TDR_E_USAGE);
	assert_non_null(strstr(test_log_text, "--per-thread needs a program or -p"));
	f->o.per_thread = false;
	f->o.interval_ms = 5;
	assert_int_equal(tdr_stat__new(&f->o, &f->st), -TDR_E_USAGE);
	f->o.interval_ms = 0;
	f->o.what.system_wide = false;
	f->o.what.pids = &pid;
	f->o.what.pid_cnt = 1;
	assert_int_equal(tdr_stat__new(&f->o, &f->st), -TDR_E_USAGE); /* -p and a program */
	assert_int_equal(fake_sys.open_cnt, 0);
	assert_null(f->st);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_stat_open__launched_topdown_l2, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_stat_open__system_wide, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_stat_open__fallback_is_visible, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_stat_open__permission_explained, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_stat_open__per_thread_topdown, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_stat_open__per_thread_software_keeps_total, setup,
					    teardown),
	    cmocka_unit_test_setup_teardown(test_stat_open__bad_options, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
