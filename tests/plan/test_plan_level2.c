/*
 * tests/plan/test_plan_level2.c - level 2 in tdrec record on AMD Zen 4/5:
 * --plan amd-zen4-l2 / amd-zen5-l2 sample in three groups, each led by a
 * cycles sampler (docs/plans.md "Level 2 in record").
 *
 * Against the genoa and turin fake trees with TDREC_CPUID-style identities,
 * every attr of every group is written out here by hand: configs through
 * the trees' format files (event = config:0-7,32-35, umask = 8-15, cmask =
 * 24-31), the samplers of groups 1 and 2 without side-band bits (group 0's
 * sampler asks for mmap/comm/task once). Also: auto still records level 1,
 * -e other than cycles is refused, the stored events and formulas, and the
 * --dry-run text.
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

#include "plan_want.h"

/* A sampler of a further group: period, no side-band records. */
#define GSAMPLER .sample_period = PERIOD
#define RAW(n, c)                                                                                  \
	{                                                                                          \
		n, "cpu", 0,                                                                       \
		{                                                                                  \
			.type = 4, .config = c, MEMBER                                             \
		}                                                                                  \
	}
#define GLEAD(n, c)                                                                                \
	{                                                                                          \
		n, "cpu", L | S,                                                                   \
		{                                                                                  \
			.type = 4, .config = c, MEMBER, LEADER, GSAMPLER                           \
		}                                                                                  \
	}

static const struct want zen_g0[] = {
    {"cycles", "cpu", L | S, {.type = PERF_TYPE_HARDWARE, .config = 0, MEMBER, LEADER, SAMPLER}},
    RAW("de_no_dispatch_per_slot.no_ops_from_frontend", 0x1000001a0ull),
    RAW("de_no_dispatch_per_slot.backend_stalls", 0x100001ea0ull),
    RAW("de_no_dispatch_per_slot.smt_contention", 0x1000060a0ull),
    RAW("de_src_op_disp.all", 0x07aa),
    RAW("ex_ret_ops", 0xc1),
};

/* cmask 6 << 24 on Zen 4, 8 << 24 on Zen 5; event 0x1c2: 0xc2 | 1 << 32. */
static const struct want zen4_g1[] = {
    GLEAD("ls_not_halted_cyc", 0x76),
    RAW("de_no_dispatch_per_slot.no_ops_from_frontend.cmask_w", 0x1060001a0ull),
    RAW("ex_ret_ucode_ops", 0x1000000c2ull),
};

static const struct want zen5_g1[] = {
    GLEAD("ls_not_halted_cyc", 0x76),
    RAW("de_no_dispatch_per_slot.no_ops_from_frontend.cmask_w", 0x1080001a0ull),
    RAW("ex_ret_ucode_ops", 0x1000000c2ull),
};

static const struct want zen4_g2[] = {
    GLEAD("ls_not_halted_cyc.g2", 0x76),	   RAW("ex_no_retire.not_complete", 0x02d6),
    RAW("ex_no_retire.load_not_complete", 0xa2d6), RAW("ex_ret_brn_misp", 0xc3),
    RAW("resyncs_or_nc_redirects", 0x96),
};

static const struct want zen5_g2[] = {
    GLEAD("ls_not_halted_cyc.g2", 0x76),
    RAW("ex_no_retire.not_complete", 0x02d6),
    RAW("ex_no_retire.load_not_complete", 0xa2d6),
    RAW("ex_ret_brn_misp", 0xc3),
    RAW("bp_redirects.resync", 0x019f), /* event 0x9f, umask 1 */
};

static enum tdr_plan_kind kind_of(const char *name)
{
	enum tdr_plan_kind k = TDR_PLAN_AUTO;

	assert_int_equal(tdr_plan_kind_parse(name, &k), 0);
	return k;
}

static struct tdr_plan *choose_ok(const struct tdr_plan_opts *o, enum tdr_plan_kind kind)
{
	struct tdr_plan *plan = NULL;

	assert_int_equal(tdr_plan__choose(o, kind, &plan), 0);
	assert_non_null(plan);
	return plan;
}

static void check_group(const struct tdr_plan_group *g, const struct want *want, size_t n,
			size_t cpus)
{
	assert_int_equal(g->event_cnt, n);
	check_members(g, want, n);
	assert_int_equal(g->cpu_cnt, cpus);
}

static bool has_note(const struct tdr_plan *plan, const char *part)
{
	for (size_t i = 0; i < plan->note_cnt; i++)
		if (strstr(plan->notes[i], part))
			return true;
	return false;
}

static void test_level2__genoa_three_sampling_groups(void **state)
{
	struct tdr_plan_opts o = plan_opts_on("genoa");
	struct tdr_plan *plan;

	(void)state;
	o.cpuid = "AuthenticAMD,25,17,1";
	/* Asked for only: auto records level 1 in one group. */
	plan = choose_ok(&o, TDR_PLAN_AUTO);
	assert_string_equal(tdr_plan_kind_name(plan->kind), "amd-zen4");
	assert_int_equal(plan->group_cnt, 1);
	tdr_plan__free(plan);

	plan = choose_ok(&o, kind_of("amd-zen4-l2"));
	assert_string_equal(tdr_plan_kind_name(plan->kind), "amd-zen4-l2");
	assert_int_equal(plan->width, 6);
	assert_int_equal(plan->group_cnt, 3);
	check_group(&plan->groups[0], zen_g0, 6, 32);
	check_group(&plan->groups[1], zen4_g1, 3, 32);
	check_group(&plan->groups[2], zen4_g2, 5, 32);
	assert_true(has_note(plan, "amd-zen4-l2 samples in 3 groups the kernel takes turns to "
				   "count"));
	/* The kernel refusing it falls back to level 1. */
	assert_int_equal(tdr_plan_kind__fallback(plan->kind), kind_of("amd-zen4"));
	tdr_plan__free(plan);
}

static void test_level2__turin(void **state)
{
	struct tdr_plan_opts o = plan_opts_on("turin");
	struct tdr_plan *plan;

	(void)state;
	o.cpuid = "AuthenticAMD,26,2,1";
	plan = choose_ok(&o, kind_of("amd-zen5-l2"));
	assert_int_equal(plan->width, 8);
	assert_int_equal(plan->group_cnt, 3);
	check_group(&plan->groups[0], zen_g0, 6, 64);
	check_group(&plan->groups[1], zen5_g1, 3, 64);
	check_group(&plan->groups[2], zen5_g2, 5, 64);
	tdr_plan__free(plan);
}

/* -e cycles is the default sampler; any other sampler would make group
 * 0's samples stand for something the other groups' do not. */
static void test_level2__sampler_must_be_cycles(void **state)
{
	struct tdr_plan_opts o = plan_opts_on("genoa");
	struct tdr_event_spec spec;
	struct tdr_plan *plan = NULL;

	(void)state;
	o.cpuid = "AuthenticAMD,25,17,1";
	assert_int_equal(tdr_event_spec__parse("cycles", &spec), 0);
	o.sampler = &spec;
	plan = choose_ok(&o, kind_of("amd-zen4-l2"));
	check_group(&plan->groups[0], zen_g0, 6, 32);
	check_group(&plan->groups[2], zen4_g2, 5, 32);
	tdr_plan__free(plan);
	plan = NULL;

	assert_int_equal(tdr_event_spec__parse("instructions", &spec), 0);
	log_reset();
	assert_int_equal(tdr_plan__choose(&o, kind_of("amd-zen4-l2"), &plan), -TDR_E_USAGE);
	assert_null(plan);
	assert_non_null(strstr(test_log_text, "invalid event 'instructions': amd-zen4-l2 samples each "
					 "of its groups on cycles; use --plan amd-zen4 to sample "
					 "on another event"));
	/* Level 1 samples on another event when it fits its six counters
	 * (one of its own events; instructions would be a seventh:
	 * test_plan_generic.c). */
	assert_int_equal(tdr_event_spec__parse("cpu/event=0xc1/", &spec), 0);
	plan = choose_ok(&o, kind_of("amd-zen4"));
	assert_int_equal(plan->group_cnt, 1);
	assert_int_equal(plan->groups[0].event_cnt, 6);
	tdr_plan__free(plan);
}

/* Stored: three samplers, group_idx 0/1/2, and the level-2 formulas over
 * the events of the groups they read (ls_not_halted_cyc.g2 is in none). */
static void test_level2__meta(void **state)
{
	struct tdr_plan_opts o = plan_opts_on("genoa");
	struct tdr_plan *plan;
	struct tdr_meta m = {0};
	size_t samplers = 0;

	(void)state;
	o.cpuid = "AuthenticAMD,25,17,1";
	plan = choose_ok(&o, kind_of("amd-zen4-l2"));
	assert_int_equal(tdr_plan__to_meta(plan, &m), 0);
	assert_string_equal(m.plan_name, "amd-zen4-l2");
	assert_int_equal(m.event_cnt, 14);
	for (size_t i = 0; i < m.event_cnt; i++) {
		uint32_t want_group = i < 6 ? 0 : i < 9 ? 1 : 2;

		assert_int_equal(m.events[i].group_idx, want_group);
		if (m.events[i].flags & TDR_EVENT_SAMPLER) {
			assert_true(i == 0 || i == 6 || i == 9);
			samplers++;
		}
	}
	assert_int_equal(samplers, 3);
	assert_string_equal(m.events[9].name, "ls_not_halted_cyc.g2");
	/* 5 level-1 + 8 level-2 categories. */
	assert_int_equal(m.category_cnt, 13);
	for (size_t c = 0; c < m.category_cnt; c++) {
		const struct tdr_category *cat = &m.categories[c];

		for (size_t t = 0; t < cat->num_cnt; t++)
			assert_int_not_equal(cat->num[t].event_idx, 9);
		for (size_t t = 0; t < cat->den_cnt; t++)
			assert_int_not_equal(cat->den[t].event_idx, 9);
		if (!strcmp(cat->name, "fetch-lat")) {
			/* 6 * cmask_w / (6 * ls_not_halted_cyc): events 7 and 6 */
			assert_int_equal(cat->num[0].event_idx, 7);
			assert_true(cat->num[0].coef == 6.0);
			assert_int_equal(cat->den[0].event_idx, 6);
			assert_true(cat->den[0].coef == 6.0);
		}
	}
	tdr_meta__clear(&m);
	tdr_plan__free(plan);
}

static void test_level2__dry_run_text(void **state)
{
	struct tdr_plan_opts o = plan_opts_on("genoa");
	struct tdr_plan *plan;
	char *text = NULL;
	size_t len = 0;
	FILE *f;

	(void)state;
	o.cpuid = "AuthenticAMD,25,17,1";
	plan = choose_ok(&o, kind_of("amd-zen4-l2"));
	f = open_memstream(&text, &len);
	tdr_plan__print(plan, f);
	fclose(f);
	assert_non_null(strstr(text, "plan: amd-zen4-l2\n"));
	assert_non_null(strstr(text, "group 1: 3 events on 32 CPUs: 0-31\n"
				     "  event 0: ls_not_halted_cyc (pmu cpu) leader sampler\n"
				     "    type                 4 (PMU cpu)\n"));
	assert_non_null(strstr(text, "group 2: 5 events on 32 CPUs: 0-31\n"
				     "  event 0: ls_not_halted_cyc.g2 (pmu cpu) leader sampler\n"));
	assert_non_null(strstr(text, "  event 4: resyncs_or_nc_redirects (pmu cpu)\n"
				     "    type                 4 (PMU cpu)\n"
				     "    size                 128\n"
				     "    config               0x96\n"));
	free(text);
	tdr_plan__free(plan);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_level2__genoa_three_sampling_groups),
	    cmocka_unit_test(test_level2__turin),
	    cmocka_unit_test(test_level2__sampler_must_be_cycles),
	    cmocka_unit_test(test_level2__meta),
	    cmocka_unit_test(test_level2__dry_run_text),
	};

	test_log_capture(TDR_LOG_WARN);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
