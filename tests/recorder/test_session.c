/*
 * tests/recorder/test_session.c - opening groups and the fallback ladder,
 * against the fake syscall layer (tests/fakes/fake_sys.c) and the fake
 * sysfs trees in tests/fixtures/sysfs.
 *
 * What the VM cannot show for real: the group_fd chain and per-CPU rings of
 * a many-CPU TopDown host, SET_OUTPUT for a second target, the mmap EPERM
 * halving, the L2 -> L1 fallback naming the refused event, the inherit +
 * PERF_SAMPLE_READ retry, EMFILE, and the EACCES explanation.
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
#include "runtime_int.h" /* tdr_ring__init_mem, tdr_session__attr (runtime/) */
#include "support/sysfs_test_util.h"
#include "tdrec/tdr_err.h"
#include "tdrec/tdr_log.h"

static int setup(void **state)
{
	(void)state;
	fake_sys_reset();
	test_log_capture(TDR_LOG_INFO);
	return 0;
}

static struct tdr_plan *build(const char *tree, enum tdr_plan_kind kind, bool inherit)
{
	struct tdr_plan_opts o = {
	    .sysfs_root = fixture(tree),
	    .sample_freq = 4000,
	    .inherit = inherit,
	    .enable_on_exec = true,
	    .read_lost = true,
	    .clockid = 1,
	};
	struct tdr_plan *p = NULL;

	assert_int_equal(tdr_plan__build(&o, kind, &p), 0);
	return p;
}

static void test_session__groups_per_cpu_leader_first(void **state)
{
	struct tdr_plan *plan = build("vm", TDR_PLAN_SOFTWARE, true);
	pid_t pid = 4242;
	struct tdr_session_opts so = {.plan = plan, .pids = &pid, .pid_cnt = 1, .mmap_pages = 16};
	struct tdr_session *s = NULL;
	struct tdr_meta meta = {0};
	size_t ev = plan->groups[0].event_cnt, cpus = plan->groups[0].cpu_cnt;
	const struct perf_event_attr *sa;

	(void)state;
	assert_int_equal(tdr_session__open(&so, &s, NULL), 0);
	assert_int_equal(fake_sys.open_cnt, ev * cpus);
	for (size_t i = 0; i < fake_sys.open_cnt; i++) {
		const struct fake_open_call *c = &fake_sys.log[i];
		size_t leader = i - i % ev;

		assert_int_equal(c->pid, 4242);
		assert_int_equal(c->cpu, plan->groups[0].cpus[i / ev]);
		assert_true(c->flags & PERF_FLAG_FD_CLOEXEC);
		if (i % ev == 0)
			assert_int_equal(c->group_fd, -1);
		else
			assert_int_equal(c->group_fd, fake_sys.log[leader].result);
	}
	/* One ring per CPU, mapped on the sampler; nothing to redirect. */
	assert_int_equal(fake_sys.mmap_cnt, cpus);
	assert_int_equal(fake_sys.set_output_cnt, 0);
	assert_int_equal(s->ring_cnt, cpus);
	assert_int_equal(tdr_session__mmap_pages(s), 16);
	sa = tdr_session__attr(s, 0, (size_t)s->groups[0].sampler_idx);
	assert_int_equal(sa->watermark, 1);
	assert_int_equal(sa->wakeup_watermark, 16 * sysconf(_SC_PAGESIZE) / 4);
	/* Meta: the attrs as opened, one id per fd. */
	assert_int_equal(tdr_plan__to_meta(plan, &meta), 0);
	assert_int_equal(tdr_session__fill_meta(s, &meta), 0);
	for (size_t e = 0; e < ev; e++) {
		assert_int_equal(meta.events[e].id_cnt, cpus);
		assert_int_equal(meta.events[e].ids[0].pid, 4242);
		assert_true(meta.events[e].ids[0].id >= 1000);
	}
	assert_int_equal(meta.events[s->groups[0].sampler_idx].attr.watermark, 1);
	tdr_meta__clear(&meta);
	tdr_session__free(s);
	assert_int_equal(fake_sys.live_maps, 0);
	tdr_plan__free(plan);
}

static void test_session__second_target_shares_the_cpu_ring(void **state)
{
	struct tdr_plan *plan = build("vm", TDR_PLAN_SOFTWARE, true);
	pid_t pids[2] = {10, 11};
	struct tdr_session_opts so = {.plan = plan, .pids = pids, .pid_cnt = 2, .mmap_pages = 8};
	struct tdr_session *s = NULL;
	size_t cpus = plan->groups[0].cpu_cnt;

	(void)state;
	assert_int_equal(tdr_session__open(&so, &s, NULL), 0);
	assert_int_equal(fake_sys.mmap_cnt, cpus);
	assert_int_equal(fake_sys.set_output_cnt, cpus); /* pid 11's samplers */
	for (size_t r = 0; r < s->ring_cnt; r++)
		assert_int_equal(s->rings[r].id_cnt, 2);
	tdr_session__free(s);
	tdr_plan__free(plan);
}

static void test_session__mmap_eperm_halves_the_ring(void **state)
{
	struct tdr_plan *plan = build("vm", TDR_PLAN_SOFTWARE, true);
	pid_t pid = 5;
	struct tdr_session_opts so = {.plan = plan, .pids = &pid, .pid_cnt = 1, .mmap_pages = 128};
	struct tdr_session *s = NULL;
	struct tdr_open_error f;

	(void)state;
	fake_sys.mmap_max_pages = 16;
	assert_int_equal(tdr_session__open(&so, &s, &f), 0);
	assert_int_equal(tdr_session__mmap_pages(s), 16);
	assert_int_equal(s->groups[0].events[s->groups[0].sampler_idx].attr.wakeup_watermark,
			 16 * sysconf(_SC_PAGESIZE) / 4);
	tdr_session__free(s);
	assert_int_equal(fake_sys.live_maps, 0);

	/* Below the minimum (8 pages): refused, with what was tried. */
	fake_sys_reset();
	fake_sys.mmap_max_pages = 4;
	assert_int_equal(tdr_session__open(&so, &s, &f), -EPERM);
	assert_int_equal(f.stage, TDR_STAGE_MMAP);
	assert_int_equal(f.mmap_pages, 8);
	assert_int_equal(fake_sys.live_maps, 0);
	tdr_plan__free(plan);
}

/* A recorder half-built the way tdr_recorder__new builds it. */
struct ladder {
	struct tdr_record_opts opts;
	struct tdr_recorder rec;
	pid_t pid;
};

static void ladder_init(struct ladder *l, const char *tree, enum tdr_plan_kind kind)
{
	memset(l, 0, sizeof(*l));
	l->pid = 77;
	l->rec.opts = &l->opts;
	l->rec.popts = (struct tdr_plan_opts){
	    .sysfs_root = fixture(tree),
	    .sample_freq = 4000,
	    .inherit = true,
	    .enable_on_exec = true,
	    .read_lost = true,
	    .clockid = 1,
	};
	assert_int_equal(tdr_plan__build(&l->rec.popts, kind, &l->rec.plan), 0);
	l->rec.tg =
	    (struct tdr_targets){.who = "record", .doing = "recording", .pids = &l->pid, .cnt = 1};
	l->rec.mmap_pages = 8;
}

static void ladder_free(struct ladder *l)
{
	tdr_session__free(l->rec.session);
	tdr_plan__free(l->rec.plan);
	tdr_meta__clear(&l->rec.meta);
}

static int refuse_heavy_ops(const struct perf_event_attr *a, pid_t pid, int cpu, void *ctx)
{
	(void)pid;
	(void)cpu;
	(void)ctx;
	return a->type == PERF_TYPE_RAW && a->config == 0x8400 ? -ENOENT : 0;
}

static void test_open__l2_refused_falls_back_to_l1_naming_the_event(void **state)
{
	struct ladder l;

	(void)state;
	ladder_init(&l, "sapphire-rapids", TDR_PLAN_TOPDOWN_L2);
	fake_sys.open_hook = refuse_heavy_ops;
	assert_int_equal(tdr_record__open(&l.rec), 0);
	assert_int_equal(l.rec.plan->kind, TDR_PLAN_TOPDOWN_L1);
	assert_int_equal(l.rec.meta.note_cnt, 1);
	assert_non_null(strstr(l.rec.meta.notes[0], "'topdown-heavy-ops'"));
	assert_non_null(strstr(l.rec.meta.notes[0], "falling back to plan topdown-l1"));
	assert_non_null(strstr(test_log_text, "topdown-heavy-ops"));
	assert_true(tdr_session__attr(l.rec.session, 0, 0)->inherit);
	assert_false(l.rec.inherit_fallback);
	ladder_free(&l);
}

static int refuse_inherit_read(const struct perf_event_attr *a, pid_t pid, int cpu, void *ctx)
{
	(void)pid;
	(void)cpu;
	(void)ctx;
	return a->inherit && (a->sample_type & PERF_SAMPLE_READ) ? -EINVAL : 0;
}

static void test_open__inherit_with_sample_read_refused_retries_without(void **state)
{
	struct ladder l;

	(void)state;
	ladder_init(&l, "vm", TDR_PLAN_SOFTWARE);
	fake_sys.open_hook = refuse_inherit_read;
	assert_int_equal(tdr_record__open(&l.rec), 0);
	assert_true(l.rec.inherit_fallback);
	assert_int_equal(l.rec.plan->kind, TDR_PLAN_SOFTWARE);
	for (size_t e = 0; e < l.rec.session->groups[0].event_cnt; e++)
		assert_false(tdr_session__attr(l.rec.session, 0, e)->inherit);
	assert_int_equal(l.rec.meta.note_cnt, 1);
	assert_non_null(strstr(l.rec.meta.notes[0], "only the main thread"));
	assert_non_null(strstr(l.rec.meta.notes[0], "-a"));
	ladder_free(&l);
}

static int refuse_raw(const struct perf_event_attr *a, pid_t pid, int cpu, void *ctx)
{
	(void)pid;
	(void)cpu;
	(void)ctx;
	return a->type == PERF_TYPE_RAW ? -EINVAL : 0;
}

/* EINVAL that is not about inherit: the no-inherit retry fails too, so the
 * next plan is tried with inherit back on. */
static void test_open__plan_refused_falls_back_with_inherit_restored(void **state)
{
	struct ladder l;

	(void)state;
	ladder_init(&l, "icelake-server", TDR_PLAN_TOPDOWN_L1);
	fake_sys.open_hook = refuse_raw;
	assert_int_equal(tdr_record__open(&l.rec), 0);
	assert_int_equal(l.rec.plan->kind, TDR_PLAN_SOFTWARE);
	assert_false(l.rec.inherit_fallback);
	assert_true(tdr_session__attr(l.rec.session, 0, 0)->inherit);
	assert_non_null(strstr(l.rec.meta.notes[0], "falling back to plan software"));
	ladder_free(&l);
}

static void test_open__emfile_raises_the_limit_and_retries(void **state)
{
	struct ladder l;

	(void)state;
	ladder_init(&l, "vm", TDR_PLAN_SOFTWARE);
	fake_sys.emfile_until_raised = true;
	assert_int_equal(tdr_record__open(&l.rec), 0);
	assert_true(fake_sys.nofile_raised);
	ladder_free(&l);
}

/* EMFILE at the hard limit already: the line says how many fds are needed. */
static void test_open__emfile_at_the_hard_limit_is_explained(void **state)
{
	struct ladder l;

	(void)state;
	ladder_init(&l, "vm", TDR_PLAN_SOFTWARE);
	fake_sys.emfile_always = true; /* raising the soft limit does not help */
	assert_int_equal(tdr_record__open(&l.rec), -EMFILE);
	assert_null(l.rec.session);
	/* vm tree: the software plan's 4 events on CPUs 0-1, one thread. */
	assert_non_null(strstr(test_log_text, "needs about 8 fds (4 events x 2 CPUs x 1 thread)"));
	assert_non_null(strstr(test_log_text, "ulimit -n"));
	assert_int_equal(strchr(test_log_text, '\n') - test_log_text + 1, (long)strlen(test_log_text));
	ladder_free(&l);
}

static int refuse_all_eacces(const struct perf_event_attr *a, pid_t pid, int cpu, void *ctx)
{
	(void)a;
	(void)pid;
	(void)cpu;
	(void)ctx;
	return -EACCES;
}

/* A fake /proc with kernel.perf_event_paranoid = value, for the ladder. */
static const char *fake_proc(const char *value)
{
	const char *root = tree_new();

	tree_write(root, "sys/kernel/perf_event_paranoid", value);
	return root;
}

static void assert_one_line(void)
{
	assert_int_equal(strchr(test_log_text, '\n') - test_log_text + 1, (long)strlen(test_log_text));
}

static void test_open__permission_refusal_is_explained(void **state)
{
	struct ladder l;
	const char *proc = fake_proc("3\n");

	(void)state;
	ladder_init(&l, "vm", TDR_PLAN_SOFTWARE);
	l.rec.tg.proc_root = proc;
	fake_sys.open_hook = refuse_all_eacces;
	assert_int_equal(tdr_record__open(&l.rec), -EACCES);
	assert_null(l.rec.session);
	assert_non_null(strstr(test_log_text, "perf_event_paranoid is 3;"));
	assert_non_null(strstr(test_log_text, "sysctl kernel.perf_event_paranoid=2"));
	assert_one_line();
	ladder_free(&l);
	tree_rm(proc);
}

/* paranoid already allows it: lowering it would not help, so the line says
 * what else refuses (another user's process for -p, a policy otherwise). */
static void test_open__permission_refusal_with_paranoid_ok_names_the_cause(void **state)
{
	struct ladder l;
	const char *proc = fake_proc("2\n");
	char root[64];
	pid_t proc_pid = 77;

	(void)state;
	snprintf(root, sizeof(root), "%s", proc);
	ladder_init(&l, "vm", TDR_PLAN_SOFTWARE);
	l.rec.tg.proc_root = root;
	fake_sys.open_hook = refuse_all_eacces;
	assert_int_equal(tdr_record__open(&l.rec), -EACCES);
	assert_null(strstr(test_log_text, "sysctl"));
	assert_non_null(strstr(test_log_text, "perf_event_paranoid (2) allows it"));
	assert_non_null(strstr(test_log_text, "policy"));
	assert_one_line();
	ladder_free(&l);

	/* -p: another user's process. */
	log_reset();
	ladder_init(&l, "vm", TDR_PLAN_SOFTWARE);
	l.rec.tg.proc_root = root;
	l.rec.tg.procs = &proc_pid;
	l.rec.tg.proc_cnt = 1;
	assert_int_equal(tdr_record__open(&l.rec), -EACCES);
	assert_non_null(strstr(test_log_text, "attach to pid 77"));
	assert_non_null(strstr(test_log_text, "CAP_SYS_PTRACE"));
	assert_null(strstr(test_log_text, "sysctl"));
	assert_one_line();
	ladder_free(&l);
	tree_rm(root);
}

static void test_open__mmap_budget_too_small_is_explained(void **state)
{
	struct ladder l;

	(void)state;
	ladder_init(&l, "vm", TDR_PLAN_SOFTWARE);
	fake_sys.mmap_max_pages = 2;
	assert_int_equal(tdr_record__open(&l.rec), -EPERM);
	assert_non_null(strstr(test_log_text, "perf_event_mlock_kb"));
	ladder_free(&l);
}

/* A ring the kernel cannot allocate (ENOMEM, not the mlock budget): not
 * halved, explained with the option to change. */
static void test_open__ring_too_large_is_explained(void **state)
{
	struct ladder l;

	(void)state;
	ladder_init(&l, "vm", TDR_PLAN_SOFTWARE);
	fake_sys.mmap_max_pages = 4;
	fake_sys.mmap_errno = ENOMEM;
	assert_int_equal(tdr_record__open(&l.rec), -ENOMEM);
	assert_null(l.rec.session);
	assert_int_equal(fake_sys.mmap_cnt, 1);
	assert_non_null(strstr(test_log_text, "cannot map a ring buffer of 8 pages"));
	assert_non_null(strstr(test_log_text, "--mmap-pages"));
	assert_int_equal(strchr(test_log_text, '\n') - test_log_text + 1, (long)strlen(test_log_text));
	ladder_free(&l);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup(test_session__groups_per_cpu_leader_first, setup),
	    cmocka_unit_test_setup(test_session__second_target_shares_the_cpu_ring, setup),
	    cmocka_unit_test_setup(test_session__mmap_eperm_halves_the_ring, setup),
	    cmocka_unit_test_setup(test_open__l2_refused_falls_back_to_l1_naming_the_event, setup),
	    cmocka_unit_test_setup(test_open__inherit_with_sample_read_refused_retries_without,
				   setup),
	    cmocka_unit_test_setup(test_open__plan_refused_falls_back_with_inherit_restored, setup),
	    cmocka_unit_test_setup(test_open__emfile_raises_the_limit_and_retries, setup),
	    cmocka_unit_test_setup(test_open__emfile_at_the_hard_limit_is_explained, setup),
	    cmocka_unit_test_setup(test_open__permission_refusal_is_explained, setup),
	    cmocka_unit_test_setup(test_open__permission_refusal_with_paranoid_ok_names_the_cause,
				   setup),
	    cmocka_unit_test_setup(test_open__mmap_budget_too_small_is_explained, setup),
	    cmocka_unit_test_setup(test_open__ring_too_large_is_explained, setup),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
