/*
 * tests/plan/test_plan_call_graph.c - call stacks in plans (-g, --call-graph).
 *
 * Each plan is built twice on the same fake sysfs tree, without and with
 * call stacks: every member's attr must be the same but for the fields the
 * mode adds (written out here from uapi perf_event.h and perf's
 * evsel__config_callchain), so the TopDown group rules stay as they were
 * (slots leads and never samples, one sampler with a period, one
 * sample_type for all members). lbr is refused, in one line, where the
 * sampler's PMU has no LBR call stack; --dry-run shows the fields.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "plan_int.h"
#include "support/sysfs_test_util.h"
#include "tdrec/format.h"
#include "tdrec/tdr_err.h"

static struct tdr_plan *build(struct tdr_plan_opts *o, enum tdr_plan_kind k,
			      enum tdr_call_graph cg, uint32_t stack)
{
	struct tdr_plan *plan = NULL;

	o->call_graph = cg;
	o->stack_size = stack;
	assert_int_equal(tdr_plan__build(o, k, &plan), 0);
	return plan;
}

/* with = without + the mode's fields, member by member. */
static void check_added(const struct tdr_plan *without, const struct tdr_plan *with,
			uint64_t st_add, uint64_t regs, uint32_t stack, bool excl_user,
			uint64_t branch)
{
	assert_int_equal(with->group_cnt, without->group_cnt);
	for (size_t g = 0; g < with->group_cnt; g++) {
		const struct tdr_plan_group *a = &without->groups[g], *b = &with->groups[g];

		assert_int_equal(b->event_cnt, a->event_cnt);
		for (size_t i = 0; i < b->event_cnt; i++) {
			struct perf_event_attr want = a->events[i].attr;
			const struct perf_event_attr *got = &b->events[i].attr;

			assert_string_equal(b->events[i].name, a->events[i].name);
			assert_int_equal(b->events[i].flags, a->events[i].flags);
			want.sample_type |= st_add;
			want.sample_regs_user = regs;
			want.sample_stack_user = stack;
			want.exclude_callchain_user = excl_user;
			want.branch_sample_type = branch;
			if (memcmp(got, &want, sizeof(want)))
				fail_msg("group %zu member %s: attr differs beyond the call-graph "
					 "fields (sample_type 0x%llx)",
					 g, b->events[i].name, (unsigned long long)got->sample_type);
			/* One sample_type for the whole group. */
			assert_int_equal(got->sample_type, b->events[0].attr.sample_type);
		}
	}
}

static void test_call_graph__fp_on_topdown_and_software(void **state)
{
	const char *trees[] = { "icelake-server", "sapphire-rapids", "vm" };
	const enum tdr_plan_kind kinds[] = { TDR_PLAN_TOPDOWN_L1, TDR_PLAN_TOPDOWN_L2,
					     TDR_PLAN_SOFTWARE };

	(void)state;
	for (size_t t = 0; t < 3; t++) {
		struct tdr_plan_opts o = plan_opts_on(trees[t]);
		struct tdr_plan *a = build(&o, kinds[t], TDR_CALL_GRAPH_NONE, 0);
		struct tdr_plan *b = build(&o, kinds[t], TDR_CALL_GRAPH_FP, 0);

		check_added(a, b, PERF_SAMPLE_CALLCHAIN, 0, 0, false, 0);
		/* The group rules of a TopDown plan still hold: slots leads
		 * without a period, the sampler (second) alone has one. */
		if (kinds[t] != TDR_PLAN_SOFTWARE) {
			assert_string_equal(b->groups[0].events[0].name, "slots");
			assert_int_equal(b->groups[0].events[0].attr.sample_period, 0);
			assert_int_equal(b->groups[0].events[1].attr.sample_period,
					 PLAN_TEST_PERIOD);
			for (size_t i = 2; i < b->groups[0].event_cnt; i++)
				assert_int_equal(b->groups[0].events[i].attr.sample_period, 0);
		}
		tdr_plan__free(a);
		tdr_plan__free(b);
	}
}

static void test_call_graph__generic_families(void **state)
{
	struct tdr_plan_opts o = plan_opts_on("genoa");
	enum tdr_plan_kind k;
	struct tdr_plan *a, *b;

	(void)state;
	assert_int_equal(tdr_plan_kind_parse("amd-zen4", &k), 0);
	a = build(&o, k, TDR_CALL_GRAPH_NONE, 0);
	b = build(&o, k, TDR_CALL_GRAPH_FP, 0);
	check_added(a, b, PERF_SAMPLE_CALLCHAIN, 0, 0, false, 0);
	tdr_plan__free(a);
	tdr_plan__free(b);
}

static void test_call_graph__dwarf(void **state)
{
	struct tdr_plan_opts o = plan_opts_on("icelake-server");
	struct tdr_plan *a = build(&o, TDR_PLAN_TOPDOWN_L1, TDR_CALL_GRAPH_NONE, 0);
	struct tdr_plan *b = build(&o, TDR_PLAN_TOPDOWN_L1, TDR_CALL_GRAPH_DWARF, 0);
	struct tdr_plan *c = build(&o, TDR_PLAN_TOPDOWN_L1, TDR_CALL_GRAPH_DWARF, 4096);
	/* x86_64: AX..SS (bits 0-11) and R8..R15 (bits 16-23), not DS, ES,
	 * FS, GS (12-15), which the kernel refuses for user registers;
	 * aarch64: x0..x30, sp, pc (bits 0-32). */
#if defined(__x86_64__)
	const uint64_t regs = 0xff0fffull;
#else
	const uint64_t regs = 0x1ffffffffull;
#endif
	const uint64_t st = PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER;

	(void)state;
	check_added(a, b, st, regs, 8192, true, 0);
	check_added(a, c, st, regs, 4096, true, 0);
	tdr_plan__free(a);
	tdr_plan__free(b);
	tdr_plan__free(c);
}

/* Refused on the software plan, on AMD, and on an Intel tree whose cpu
 * PMU has no caps/branches (a copy of icelake-server without it). */
static void test_call_graph__lbr_refused_without_it(void **state)
{
	const char *copy = tree_new();
	const char *trees[] = { "vm", "genoa", NULL };
	const char *kinds[] = { "software", "amd-zen4", "topdown-l1" };
	const char *why[] = { "the sampler is a software event, which has no LBR",
			      "only Intel core PMUs have an LBR call stack",
			      "/bus/event_source/devices/cpu/caps/branches is missing or 0" };
	char cmd[8300];

	(void)state;
	snprintf(cmd, sizeof(cmd), "cp -r '%s'/. '%s' && rm '%s'/bus/event_source/devices/cpu/caps/branches",
		 fixture("icelake-server"), copy, copy);
	assert_int_equal(system(cmd), 0);
	for (size_t t = 0; t < 3; t++) {
		struct tdr_plan_opts o = plan_opts_on(trees[t] ? trees[t] : "icelake-server");
		struct tdr_plan *plan = NULL;
		enum tdr_plan_kind k;
		char want[256];

		if (!trees[t])
			o.sysfs_root = copy;
		assert_int_equal(tdr_plan_kind_parse(kinds[t], &k), 0);
		o.call_graph = TDR_CALL_GRAPH_LBR;
		test_log_capture(TDR_LOG_WARN);
		assert_int_equal(tdr_plan__build(&o, k, &plan), -TDR_E_USAGE);
		assert_null(plan);
		snprintf(want, sizeof(want), "--call-graph lbr is not available with plan %s: ",
			 kinds[t]);
		assert_non_null(strstr(test_log_text, want));
		assert_non_null(strstr(test_log_text, why[t]));
		assert_non_null(strstr(test_log_text, "use --call-graph fp or dwarf\n"));
		/* one line */
		assert_ptr_equal(strchr(test_log_text, '\n'), test_log_text + strlen(test_log_text) - 1);
		tdr_log_set_sink(NULL);
	}
	tree_rm(copy);
}

/* Ice Lake's cpu PMU says it has 32 LBR entries (caps/branches). */
static void test_call_graph__lbr_where_the_pmu_has_it(void **state)
{
	struct tdr_plan_opts o = plan_opts_on("icelake-server");
	struct tdr_plan *a, *b;
	const uint64_t branch = PERF_SAMPLE_BRANCH_USER | PERF_SAMPLE_BRANCH_CALL_STACK |
				PERF_SAMPLE_BRANCH_NO_CYCLES | PERF_SAMPLE_BRANCH_NO_FLAGS |
				PERF_SAMPLE_BRANCH_HW_INDEX;

	(void)state;
	a = build(&o, TDR_PLAN_TOPDOWN_L1, TDR_CALL_GRAPH_NONE, 0);
	b = build(&o, TDR_PLAN_TOPDOWN_L1, TDR_CALL_GRAPH_LBR, 0);
	check_added(a, b, PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_BRANCH_STACK, 0, 0, false, branch);
	tdr_plan__free(a);
	tdr_plan__free(b);
}

/* tdrec stat's counting plans have no samples: call stacks are ignored. */
static void test_call_graph__counting_ignores_it(void **state)
{
	struct tdr_plan_opts o = plan_opts_on("icelake-server");
	struct tdr_plan *a, *b;

	(void)state;
	o.counting = true;
	o.sample_period = 0;
	a = build(&o, TDR_PLAN_TOPDOWN_L1, TDR_CALL_GRAPH_NONE, 0);
	b = build(&o, TDR_PLAN_TOPDOWN_L1, TDR_CALL_GRAPH_DWARF, 0);
	check_added(a, b, 0, 0, 0, false, 0);
	assert_int_equal(b->groups[0].events[0].attr.sample_type, 0);
	tdr_plan__free(a);
	tdr_plan__free(b);
}

/* --dry-run prints the fields on every member. */
static void test_call_graph__dry_run_shows_it(void **state)
{
	struct tdr_plan_opts o = plan_opts_on("icelake-server");
	struct tdr_plan *b = build(&o, TDR_PLAN_TOPDOWN_L1, TDR_CALL_GRAPH_DWARF, 4096);
	char *text = NULL;
	size_t sz = 0, n = 0;
	FILE *f = open_memstream(&text, &sz);
	const char *p;

	(void)state;
	assert_non_null(f);
	tdr_plan__print(b, f);
	fclose(f);
	for (p = text; (p = strstr(p, "|CALLCHAIN|")); p++)
		n++;
	assert_int_equal(n, 6);
	for (n = 0, p = text; (p = strstr(p, "sample_stack_user    4096\n")); p++)
		n++;
	assert_int_equal(n, 6);
	assert_non_null(strstr(text, "REGS_USER|STACK_USER"));
	assert_non_null(strstr(text, "exclude_callchain_user 1\n"));
	free(text);
	tdr_plan__free(b);
}

static void test_call_graph__names(void **state)
{
	(void)state;
	assert_string_equal(tdr_call_graph_name(TDR_CALL_GRAPH_NONE), "none");
	assert_string_equal(tdr_call_graph_name(TDR_CALL_GRAPH_FP), "fp");
	assert_string_equal(tdr_call_graph_name(TDR_CALL_GRAPH_DWARF), "dwarf");
	assert_string_equal(tdr_call_graph_name(TDR_CALL_GRAPH_LBR), "lbr");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_call_graph__fp_on_topdown_and_software),
		cmocka_unit_test(test_call_graph__generic_families),
		cmocka_unit_test(test_call_graph__dwarf),
		cmocka_unit_test(test_call_graph__lbr_refused_without_it),
		cmocka_unit_test(test_call_graph__lbr_where_the_pmu_has_it),
		cmocka_unit_test(test_call_graph__counting_ignores_it),
		cmocka_unit_test(test_call_graph__dry_run_shows_it),
		cmocka_unit_test(test_call_graph__names),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
