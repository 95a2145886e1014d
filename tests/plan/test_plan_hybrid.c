/*
 * tests/plan/test_plan_hybrid.c - hybrid parts: one group per core PMU.
 *
 * On the Alder Lake and Arrow Lake trees with a CPU identity, the plan has
 * the perf-metrics group on cpu_core's CPUs and the CPU's E-core family
 * (gracemont, skymont) on cpu_atom's CPUs; every attr of both groups is
 * written out here by hand (cpu_atom is type 10 in the trees: the members'
 * type, and the high bits of its cycles config; cpu_core is type 4). Also:
 * the names made distinct ("cpu_core/cycles/", "cpu_atom/cycles/"), the
 * categories stored per core PMU with hand-resolved event indexes and
 * coefficients, -e on both groups, counting plans, the --dry-run text, and
 * no E-core group without an identity.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "plan_int.h"
#include "support/sysfs_test_util.h"
#include "tdrec/format.h"
#include "tdrec/tdr_err.h"

#include "plan_want.h"

#define RAW(n, pmu, t, c) {n, pmu, 0, {.type = t, .config = c, MEMBER}}
#define CORE(n, c) RAW(n, "cpu_core", 4, c)
#define ATOM(n, c) RAW(n, "cpu_atom", 10, c)

static const struct want core_l2[] = {
    {"slots", "cpu_core", L, {.type = 4, .config = 0x400, MEMBER, LEADER}},
    {"cpu_core/cycles/", "cpu_core", S,
     {.type = PERF_TYPE_HARDWARE, .config = 4ull << 32, MEMBER, SAMPLER}},
    CORE("topdown-retiring", 0x8000),
    CORE("topdown-bad-spec", 0x8100),
    CORE("topdown-fe-bound", 0x8200),
    CORE("topdown-be-bound", 0x8300),
    CORE("topdown-heavy-ops", 0x8400),
    CORE("topdown-br-mispredict", 0x8500),
    CORE("topdown-fetch-lat", 0x8600),
    CORE("topdown-mem-bound", 0x8700),
};

/* The E-core group leads with its own cycles and samples on it: a group
 * of its own, so it is also opened disabled with enable_on_exec. */
#define ATOM_CYCLES                                                                                \
	{"cpu_atom/cycles/", "cpu_atom", L | S,                                                    \
	 {.type = PERF_TYPE_HARDWARE, .config = 10ull << 32, MEMBER, LEADER, SAMPLER}}

static const struct want atom_grt[] = {
    ATOM_CYCLES,
    ATOM("topdown_retiring.all", 0xc2),
    ATOM("topdown_fe_bound.all", 0x71),
    ATOM("topdown_be_bound.all", 0x74),
};

static const struct want atom_skt[] = {
    ATOM_CYCLES,
    ATOM("topdown_retiring.all_p", 0x02c2),
    ATOM("topdown_bad_speculation.all_p", 0x73),
    ATOM("topdown_fe_bound.all_p", 0x019c),
    ATOM("topdown_be_bound.all_p", 0x02a4),
};

static void check_group(const struct tdr_plan_group *g, const struct want *want, size_t n)
{
	assert_int_equal(g->event_cnt, n);
	check_members(g, want, n);
}

static void check_cpus(const struct tdr_plan_group *g, int lo, int hi)
{
	assert_int_equal(g->cpu_cnt, (size_t)(hi - lo + 1));
	for (int c = lo; c <= hi; c++)
		assert_int_equal(g->cpus[c - lo], c);
}

static struct tdr_plan *choose_ok(const struct tdr_plan_opts *o, enum tdr_plan_kind kind)
{
	struct tdr_plan *plan = NULL;

	assert_int_equal(tdr_plan__choose(o, kind, &plan), 0);
	assert_non_null(plan);
	return plan;
}

static enum tdr_plan_kind kind_of(const char *name)
{
	enum tdr_plan_kind k = TDR_PLAN_AUTO;

	assert_int_equal(tdr_plan_kind_parse(name, &k), 0);
	return k;
}

static struct tdr_plan_opts adl(void)
{
	struct tdr_plan_opts o = plan_opts_on("alderlake-hybrid");

	o.cpuid = "GenuineIntel,6,151,2"; /* Alder Lake-S, model 0x97 */
	return o;
}

static void test_hybrid__alder_lake_two_groups(void **state)
{
	struct tdr_plan_opts o = adl();
	struct tdr_plan *plan = choose_ok(&o, TDR_PLAN_AUTO);

	(void)state;
	assert_int_equal(plan->kind, TDR_PLAN_TOPDOWN_L2);
	assert_int_equal(plan->group_cnt, 2);
	check_group(&plan->groups[0], core_l2, 10);
	check_cpus(&plan->groups[0], 0, 15);
	assert_int_equal(plan->groups[0].kind, TDR_PLAN_AUTO);
	check_group(&plan->groups[1], atom_grt, 4);
	check_cpus(&plan->groups[1], 16, 23);
	assert_int_equal(plan->groups[1].kind, kind_of("gracemont"));
	assert_int_equal(plan->groups[1].width, 5);
	assert_int_equal(plan->width, 0); /* perf metrics have no W */
	/* Every online CPU is measured: no "not measured" note. */
	assert_int_equal(plan->note_cnt, 0);
	tdr_plan__free(plan);

	/* Level 1 asked for by name: the same E-core group. */
	plan = choose_ok(&o, TDR_PLAN_TOPDOWN_L1);
	assert_int_equal(plan->group_cnt, 2);
	check_group(&plan->groups[0], core_l2, 6);
	check_group(&plan->groups[1], atom_grt, 4);
	tdr_plan__free(plan);
}

static void test_hybrid__arrow_lake_two_groups(void **state)
{
	struct tdr_plan_opts o = plan_opts_on("arrow-lake");
	struct tdr_plan *plan;

	(void)state;
	o.cpuid = "GenuineIntel,6,198,2"; /* Arrow Lake-S, model 0xc6 */
	plan = choose_ok(&o, TDR_PLAN_AUTO);
	assert_int_equal(plan->kind, TDR_PLAN_TOPDOWN_L2);
	assert_int_equal(plan->group_cnt, 2);
	check_group(&plan->groups[0], core_l2, 10);
	check_cpus(&plan->groups[0], 0, 7);
	check_group(&plan->groups[1], atom_skt, 5);
	check_cpus(&plan->groups[1], 8, 23);
	assert_int_equal(plan->groups[1].kind, kind_of("skymont"));
	assert_int_equal(plan->groups[1].width, 8);
	assert_int_equal(plan->note_cnt, 0);
	tdr_plan__free(plan);
	/* The E-core family alone, asked for by name: one group, unchanged. */
	plan = choose_ok(&o, kind_of("skymont"));
	assert_int_equal(plan->group_cnt, 1);
	assert_string_equal(plan->groups[0].events[0].name, "cycles");
	tdr_plan__free(plan);
}

/* Without an identity the E-core family is unknown (a raw config means
 * another event on another core): cpu_core only, with the note saying so.
 * Another vendor's identity never gets there (tested in test_plan.c). */
static void test_hybrid__no_identity_no_e_core_group(void **state)
{
	struct tdr_plan_opts o = plan_opts_on("alderlake-hybrid");
	struct tdr_plan *plan = choose_ok(&o, TDR_PLAN_AUTO);

	(void)state;
	assert_int_equal(plan->group_cnt, 1);
	assert_string_equal(plan->groups[0].events[1].name, "cycles");
	assert_int_equal(plan->note_cnt, 1);
	assert_string_equal(plan->notes[0], "hybrid CPU: TopDown is measured on cpu_core CPUs 0-15 "
					    "only; CPUs 16-23 (cpu_atom) are not measured");
	tdr_plan__free(plan);
}

/* The stored formulas: topdown-l2's twelve over cpu_core's events (0-9),
 * gracemont's four over cpu_atom's (10-13), W = 5 multiplied in. */
static void test_hybrid__categories_per_core_pmu(void **state)
{
	struct tdr_plan_opts o = adl();
	struct tdr_plan *plan = choose_ok(&o, TDR_PLAN_AUTO);
	struct tdr_meta m = {0};
	const struct tdr_category *c;

	(void)state;
	assert_int_equal(tdr_plan__to_meta(plan, &m), 0);
	assert_int_equal(m.event_cnt, 14);
	assert_string_equal(m.events[10].name, "cpu_atom/cycles/");
	assert_int_equal(m.events[10].group_idx, 1);
	assert_string_equal(m.events[13].pmu_name, "cpu_atom");
	assert_int_equal(m.category_cnt, 16);
	c = &m.categories[0]; /* retiring = topdown-retiring / slots */
	assert_string_equal(c->name, "retiring");
	assert_int_equal(c->num_cnt, 1);
	assert_int_equal(c->num[0].event_idx, 2);
	assert_int_equal(c->den[0].event_idx, 0);
	c = &m.categories[12]; /* gracemont retiring = retiring.all / (5 cycles) */
	assert_string_equal(c->name, "retiring");
	assert_int_equal(c->num_cnt, 1);
	assert_int_equal(c->num[0].event_idx, 11);
	assert_true(c->num[0].coef == 1.0);
	assert_int_equal(c->den_cnt, 1);
	assert_int_equal(c->den[0].event_idx, 10);
	assert_true(c->den[0].coef == 5.0);
	c = &m.categories[13]; /* bad-spec = (5 cycles - fe - be - ret) / (5 cycles) */
	assert_string_equal(c->name, "bad-spec");
	assert_int_equal(c->flags, TDR_CATEGORY_DERIVED);
	assert_int_equal(c->num_cnt, 4);
	assert_int_equal(c->num[0].event_idx, 10);
	assert_true(c->num[0].coef == 5.0);
	assert_int_equal(c->num[1].event_idx, 12);
	assert_int_equal(c->num[2].event_idx, 13);
	assert_int_equal(c->num[3].event_idx, 11);
	assert_true(c->num[3].coef == -1.0);
	assert_string_equal(m.categories[14].name, "fe-bound");
	assert_string_equal(m.categories[15].name, "be-bound");
	assert_int_equal(m.categories[15].num[0].event_idx, 13);
	tdr_meta__clear(&m);
	tdr_plan__free(plan);
}

/* -e: a generic hardware event samples on both core types; a cpu_core
 * raw event samples on cpu_core only, and the E-cores on cycles. */
static void test_hybrid__sampler_from_e(void **state)
{
	struct tdr_plan_opts o = adl();
	struct tdr_event_spec spec;
	struct tdr_plan *plan;
	const struct want instr[] = {
	    {"cpu_atom/instructions/", "cpu_atom", L | S,
	     {.type = PERF_TYPE_HARDWARE, .config = (10ull << 32) | PERF_COUNT_HW_INSTRUCTIONS,
	      MEMBER, LEADER, SAMPLER}},
	    {"cpu_atom/cycles/", "cpu_atom", 0,
	     {.type = PERF_TYPE_HARDWARE, .config = 10ull << 32, MEMBER}},
	};

	(void)state;
	o.sampler = &spec;
	assert_int_equal(tdr_event_spec__parse("instructions", &spec), 0);
	plan = choose_ok(&o, TDR_PLAN_AUTO);
	assert_int_equal(plan->group_cnt, 2);
	assert_string_equal(plan->groups[0].events[1].name, "cpu_core/instructions/");
	assert_int_equal(plan->groups[1].event_cnt, 5);
	check_members(&plan->groups[1], instr, 2);
	assert_int_equal(plan->note_cnt, 0);
	tdr_plan__free(plan);

	assert_int_equal(tdr_event_spec__parse("r01c2", &spec), 0);
	plan = choose_ok(&o, TDR_PLAN_AUTO);
	assert_int_equal(plan->group_cnt, 2);
	assert_string_equal(plan->groups[0].events[1].name, "r01c2");
	check_group(&plan->groups[1], atom_grt, 4);
	assert_int_equal(plan->note_cnt, 1);
	assert_string_equal(plan->notes[0], "the gracemont group on cpu_atom samples on cycles: "
					    "-e r01c2 is an event of cpu_core");
	tdr_plan__free(plan);
}

/* tdrec stat: both groups count, nothing samples. */
static void test_hybrid__counting(void **state)
{
	struct tdr_plan_opts o = adl();
	struct tdr_plan *plan;
	struct perf_event_attr lead = {.type = PERF_TYPE_HARDWARE, .config = 10ull << 32, COUNTER,
				       .disabled = 1, .enable_on_exec = 1};
	struct perf_event_attr ret = {.type = 10, .config = 0xc2, COUNTER};

	(void)state;
	o.counting = true;
	o.sample_period = 0;
	plan = choose_ok(&o, TDR_PLAN_AUTO);
	assert_int_equal(plan->group_cnt, 2);
	assert_int_equal(plan->groups[0].event_cnt, 9); /* slots + 8 metrics */
	assert_int_equal(plan->groups[1].event_cnt, 4);
	assert_string_equal(plan->groups[1].events[0].name, "cpu_atom/cycles/");
	assert_int_equal(plan->groups[1].events[0].flags, L);
	check_attr("cpu_atom/cycles/", &plan->groups[1].events[0].attr, &lead);
	check_attr("topdown_retiring.all", &plan->groups[1].events[1].attr, &ret);
	tdr_plan__free(plan);
}

static void test_hybrid__dry_run_text(void **state)
{
	struct tdr_plan_opts o = plan_opts_on("arrow-lake");
	struct tdr_plan *plan;
	char *text = NULL;
	size_t len = 0;
	FILE *f;

	(void)state;
	o.cpuid = "GenuineIntel,6,198,2";
	plan = choose_ok(&o, TDR_PLAN_AUTO);
	f = open_memstream(&text, &len);
	assert_non_null(f);
	tdr_plan__print(plan, f);
	fclose(f);
	assert_non_null(strstr(text, "plan: topdown-l2\n"));
	assert_non_null(strstr(text, "group 0: 10 events on 8 CPUs: 0-7\n"));
	assert_non_null(strstr(text, "  event 1: cpu_core/cycles/ (pmu cpu_core) sampler\n"));
	assert_non_null(strstr(text, "group 1: 5 events on 16 CPUs: 8-23 (skymont, width 8)\n"
				     "  event 0: cpu_atom/cycles/ (pmu cpu_atom) leader sampler\n"));
	assert_non_null(strstr(text, "  event 4: topdown_be_bound.all_p (pmu cpu_atom)\n"
				     "    type                 10 (PMU cpu_atom)\n"));
	assert_non_null(strstr(text, "    config               0x2a4\n"));
	free(text);
	tdr_plan__free(plan);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_hybrid__alder_lake_two_groups),
	    cmocka_unit_test(test_hybrid__arrow_lake_two_groups),
	    cmocka_unit_test(test_hybrid__no_identity_no_e_core_group),
	    cmocka_unit_test(test_hybrid__categories_per_core_pmu),
	    cmocka_unit_test(test_hybrid__sampler_from_e),
	    cmocka_unit_test(test_hybrid__counting),
	    cmocka_unit_test(test_hybrid__dry_run_text),
	};

	test_log_capture(TDR_LOG_WARN);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
