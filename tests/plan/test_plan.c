/*
 * tests/recorder_plan/test_plan.c - event plans against fake sysfs trees.
 *
 * For each tree the chosen plan and the exact perf_event_attr of every
 * member are written out here by hand from the kernel's rules
 * (docs/kernel.md "TopDown group rules", "Hybrid parts", "perf's TopDown
 * sampling" and issue 3's attr list), not copied from the
 * code's output: slots leads and never samples, the sampler is second and
 * alone has a period, metric members have type 4 and the sysfs config, the
 * same exclude_* / inherit / sample_type / read_format everywhere, disabled
 * and enable_on_exec on the leader only, side-band bits on the sampler only.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "plan_int.h"
#include "support/sysfs_test_util.h"
#include "tdrec/format.h"
#include "tdrec/tdr_err.h"
#include "tdrec/tdr_mem.h"

#include "plan_want.h"

static const struct want icl_l1[] = {
    {"slots", "cpu", L, {.type = 4, .config = 0x400, MEMBER, LEADER}},
    {"cycles", "cpu", S, {.type = PERF_TYPE_HARDWARE, .config = 0, MEMBER, SAMPLER}},
    {"topdown-retiring", "cpu", 0, {.type = 4, .config = 0x8000, MEMBER}},
    {"topdown-bad-spec", "cpu", 0, {.type = 4, .config = 0x8100, MEMBER}},
    {"topdown-fe-bound", "cpu", 0, {.type = 4, .config = 0x8200, MEMBER}},
    {"topdown-be-bound", "cpu", 0, {.type = 4, .config = 0x8300, MEMBER}},
};

static const struct want spr_l2[] = {
    {"slots", "cpu", L, {.type = 4, .config = 0x400, MEMBER, LEADER}},
    {"cycles", "cpu", S, {.type = PERF_TYPE_HARDWARE, .config = 0, MEMBER, SAMPLER}},
    {"topdown-retiring", "cpu", 0, {.type = 4, .config = 0x8000, MEMBER}},
    {"topdown-bad-spec", "cpu", 0, {.type = 4, .config = 0x8100, MEMBER}},
    {"topdown-fe-bound", "cpu", 0, {.type = 4, .config = 0x8200, MEMBER}},
    {"topdown-be-bound", "cpu", 0, {.type = 4, .config = 0x8300, MEMBER}},
    {"topdown-heavy-ops", "cpu", 0, {.type = 4, .config = 0x8400, MEMBER}},
    {"topdown-br-mispredict", "cpu", 0, {.type = 4, .config = 0x8500, MEMBER}},
    {"topdown-fetch-lat", "cpu", 0, {.type = 4, .config = 0x8600, MEMBER}},
    {"topdown-mem-bound", "cpu", 0, {.type = 4, .config = 0x8700, MEMBER}},
};

/* Hybrid: metric members on cpu_core's type 4; cycles names cpu_core by
 * its type in config bits 32-63 (extended hardware type). */
static const struct want adl_l2[] = {
    {"slots", "cpu_core", L, {.type = 4, .config = 0x400, MEMBER, LEADER}},
    {"cycles", "cpu_core", S, {.type = PERF_TYPE_HARDWARE, .config = 4ull << 32, MEMBER, SAMPLER}},
    {"topdown-retiring", "cpu_core", 0, {.type = 4, .config = 0x8000, MEMBER}},
    {"topdown-bad-spec", "cpu_core", 0, {.type = 4, .config = 0x8100, MEMBER}},
    {"topdown-fe-bound", "cpu_core", 0, {.type = 4, .config = 0x8200, MEMBER}},
    {"topdown-be-bound", "cpu_core", 0, {.type = 4, .config = 0x8300, MEMBER}},
    {"topdown-heavy-ops", "cpu_core", 0, {.type = 4, .config = 0x8400, MEMBER}},
    {"topdown-br-mispredict", "cpu_core", 0, {.type = 4, .config = 0x8500, MEMBER}},
    {"topdown-fetch-lat", "cpu_core", 0, {.type = 4, .config = 0x8600, MEMBER}},
    {"topdown-mem-bound", "cpu_core", 0, {.type = 4, .config = 0x8700, MEMBER}},
};

/* Software plan: cpu-clock leads and samples (no metric events, so the
 * leader may sample); the others are read with it. */
static const struct want software[] = {
    {"cpu-clock",
     "software",
     L | S,
     {.type = PERF_TYPE_SOFTWARE, .config = PERF_COUNT_SW_CPU_CLOCK, MEMBER, LEADER, SAMPLER}},
    {"task-clock",
     "software",
     0,
     {.type = PERF_TYPE_SOFTWARE, .config = PERF_COUNT_SW_TASK_CLOCK, MEMBER}},
    {"page-faults",
     "software",
     0,
     {.type = PERF_TYPE_SOFTWARE, .config = PERF_COUNT_SW_PAGE_FAULTS, MEMBER}},
    {"context-switches",
     "software",
     0,
     {.type = PERF_TYPE_SOFTWARE, .config = PERF_COUNT_SW_CONTEXT_SWITCHES, MEMBER}},
};

/* The u64 of bit fields that follows read_format. */
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

/* ---- one test per tree ------------------------------------------------ */

static void test_plan__icelake_auto_is_l1(void **state)
{
	struct tdr_plan_opts o = plan_opts_on("icelake-server");
	struct tdr_plan *plan = choose_ok(&o, TDR_PLAN_AUTO);

	(void)state;
	assert_int_equal(plan->kind, TDR_PLAN_TOPDOWN_L1);
	assert_int_equal(plan->group_cnt, 1);
	check_group(&plan->groups[0], icl_l1, 6);
	check_cpus(&plan->groups[0], 0, 3);
	assert_int_equal(plan->note_cnt, 1);
	assert_int_equal(plan->skip_note_cnt, 1);
	assert_string_equal(plan->notes[0],
			    "topdown-l2 not available: the cpu PMU has no topdown-heavy-ops, "
			    "topdown-br-mispredict, topdown-fetch-lat, topdown-mem-bound");
	tdr_plan__free(plan);
}

static void test_plan__sapphire_rapids_auto_is_l2(void **state)
{
	struct tdr_plan_opts o = plan_opts_on("sapphire-rapids");
	struct tdr_plan *plan = choose_ok(&o, TDR_PLAN_AUTO);

	(void)state;
	assert_int_equal(plan->kind, TDR_PLAN_TOPDOWN_L2);
	assert_int_equal(plan->group_cnt, 1);
	check_group(&plan->groups[0], spr_l2, 10);
	check_cpus(&plan->groups[0], 0, 7);
	assert_int_equal(plan->note_cnt, 0);
	tdr_plan__free(plan);
}

static void test_plan__sapphire_rapids_explicit_l1(void **state)
{
	struct tdr_plan_opts o = plan_opts_on("sapphire-rapids");
	struct tdr_plan *plan = choose_ok(&o, TDR_PLAN_TOPDOWN_L1);

	(void)state;
	assert_int_equal(plan->kind, TDR_PLAN_TOPDOWN_L1);
	check_group(&plan->groups[0], icl_l1, 6); /* same encodings on SPR */
	check_cpus(&plan->groups[0], 0, 7);
	assert_int_equal(plan->note_cnt, 0);
	tdr_plan__free(plan);
	plan = NULL;
	assert_int_equal(tdr_plan__build(&o, TDR_PLAN_SOFTWARE, &plan), 0);
	assert_int_equal(plan->kind, TDR_PLAN_SOFTWARE);
	check_group(&plan->groups[0], software, 4);
	tdr_plan__free(plan);
}

static void test_plan__hybrid_topdown_on_cpu_core_only(void **state)
{
	struct tdr_plan_opts o = plan_opts_on("alderlake-hybrid");
	struct tdr_plan *plan = choose_ok(&o, TDR_PLAN_AUTO);

	(void)state;
	assert_int_equal(plan->kind, TDR_PLAN_TOPDOWN_L2);
	assert_int_equal(plan->group_cnt, 1);
	check_group(&plan->groups[0], adl_l2, 10);
	check_cpus(&plan->groups[0], 0, 15); /* cpu_core/cpus, not the E-cores */
	assert_int_equal(plan->note_cnt, 1);
	assert_int_equal(plan->skip_note_cnt, 0); /* the best plan, with a note of its own */
	assert_string_equal(plan->notes[0], "hybrid CPU: TopDown is measured on cpu_core CPUs 0-15 "
					    "only; CPUs 16-23 (cpu_atom) are not measured");
	tdr_plan__free(plan);
	/* The software plan covers every online CPU and has no such note. */
	plan = choose_ok(&o, TDR_PLAN_SOFTWARE);
	check_group(&plan->groups[0], software, 4);
	check_cpus(&plan->groups[0], 0, 23);
	assert_int_equal(plan->note_cnt, 0);
	tdr_plan__free(plan);
}

/* Without a CPU identity (a fake tree and no TDREC_CPUID) the amd-zen4
 * tree stays on the software plan: its cpu PMU prints no TopDown alias,
 * and generic counters mean the Zen 4 events only on a CPU known to be
 * Zen 4 (with TDREC_CPUID it gets amd-zen4: test_plan_generic.c). */
static void test_plan__amd_zen4_software_with_notes(void **state)
{
	struct tdr_plan_opts o = plan_opts_on("amd-zen4");
	struct tdr_plan *plan = choose_ok(&o, TDR_PLAN_AUTO);

	(void)state;
	assert_int_equal(plan->kind, TDR_PLAN_SOFTWARE);
	check_group(&plan->groups[0], software, 4);
	check_cpus(&plan->groups[0], 0, 15);
	assert_int_equal(plan->note_cnt, 2);
	assert_int_equal(plan->skip_note_cnt, 2);
	assert_string_equal(
	    plan->notes[0],
	    "topdown-l2 not available: the cpu PMU has no slots, topdown-retiring, "
	    "topdown-bad-spec, topdown-fe-bound, topdown-be-bound, topdown-heavy-ops, "
	    "topdown-br-mispredict, topdown-fetch-lat, topdown-mem-bound");
	assert_string_equal(plan->notes[1],
			    "topdown-l1 not available: the cpu PMU has no slots, topdown-retiring, "
			    "topdown-bad-spec, topdown-fe-bound, topdown-be-bound");
	tdr_plan__free(plan);
}

static void test_plan__amd_hardware_sampler_ignored_with_note(void **state)
{
	struct tdr_plan_opts o = plan_opts_on("amd-zen4");
	struct tdr_event_spec spec;
	struct tdr_plan *plan;

	(void)state;
	assert_int_equal(tdr_event_spec__parse("cycles:pp", &spec), 0);
	o.sampler = &spec;
	plan = choose_ok(&o, TDR_PLAN_AUTO);
	assert_int_equal(plan->kind, TDR_PLAN_SOFTWARE);
	check_group(&plan->groups[0], software, 4); /* precise_ip dropped with the event */
	assert_int_equal(plan->note_cnt, 3);
	assert_string_equal(plan->notes[2],
			    "the software plan samples cpu-clock: -e cycles:pp is not "
			    "a software event and was ignored");
	tdr_plan__free(plan);
	/* An AMD raw event through the split event format: still hardware. */
	assert_int_equal(tdr_event_spec__parse("cpu/event=0x1a0/", &spec), 0);
	plan = choose_ok(&o, TDR_PLAN_SOFTWARE);
	assert_int_equal(plan->note_cnt, 1);
	assert_non_null(strstr(plan->notes[0], "-e cpu/event=0x1a0/ is not a software event"));
	tdr_plan__free(plan);
}

static void test_plan__vm_software(void **state)
{
	struct tdr_plan_opts o = plan_opts_on("vm");
	struct tdr_plan *plan = choose_ok(&o, TDR_PLAN_AUTO);
	char want[8192];

	(void)state;
	assert_int_equal(plan->kind, TDR_PLAN_SOFTWARE);
	check_group(&plan->groups[0], software, 4);
	check_cpus(&plan->groups[0], 0, 1);
	assert_int_equal(plan->note_cnt, 2);
	snprintf(want, sizeof(want),
		 "topdown-l2 not available: no core PMU (cpu or cpu_core) in "
		 "%s/bus/event_source/devices",
		 o.sysfs_root);
	assert_string_equal(plan->notes[0], want);
	assert_string_equal(plan->notes[1] + 10, want + 10); /* "topdown-l1" */
	tdr_plan__free(plan);
}

static void test_plan__explicit_topdown_on_vm_is_noplan(void **state)
{
	struct tdr_plan_opts o = plan_opts_on("vm");
	struct tdr_plan *plan = NULL;

	(void)state;
	log_reset();
	assert_int_equal(tdr_plan__choose(&o, TDR_PLAN_TOPDOWN_L1, &plan), -TDR_E_NOPLAN);
	assert_null(plan);
	assert_non_null(strstr(test_log_text, "plan topdown-l1 does not fit this machine: no core PMU"));
	assert_int_equal(tdr_plan__build(&o, TDR_PLAN_TOPDOWN_L2, &plan), -TDR_E_NOPLAN);
	o = plan_opts_on("icelake-server");
	log_reset();
	assert_int_equal(tdr_plan__build(&o, TDR_PLAN_TOPDOWN_L2, &plan), -TDR_E_NOPLAN);
	assert_non_null(strstr(test_log_text, "has no topdown-heavy-ops"));
	assert_null(plan);
	assert_int_equal(tdr_plan__build(&o, TDR_PLAN_AUTO, &plan), -EINVAL);
}

static void test_plan__software_sampler_from_e(void **state)
{
	static const struct want want[] = {
	    {"task-clock",
	     "software",
	     L | S,
	     {.type = PERF_TYPE_SOFTWARE,
	      .config = PERF_COUNT_SW_TASK_CLOCK,
	      MEMBER,
	      LEADER,
	      SAMPLER}},
	    {"cpu-clock",
	     "software",
	     0,
	     {.type = PERF_TYPE_SOFTWARE, .config = PERF_COUNT_SW_CPU_CLOCK, MEMBER}},
	    {"page-faults",
	     "software",
	     0,
	     {.type = PERF_TYPE_SOFTWARE, .config = PERF_COUNT_SW_PAGE_FAULTS, MEMBER}},
	    {"context-switches",
	     "software",
	     0,
	     {.type = PERF_TYPE_SOFTWARE, .config = PERF_COUNT_SW_CONTEXT_SWITCHES, MEMBER}},
	};
	struct tdr_plan_opts o = plan_opts_on("vm");
	struct tdr_event_spec spec;
	struct tdr_plan *plan = NULL;

	(void)state;
	assert_int_equal(tdr_event_spec__parse("task-clock", &spec), 0);
	o.sampler = &spec;
	plan = choose_ok(&o, TDR_PLAN_AUTO);
	check_group(&plan->groups[0], want, 4);
	assert_int_equal(plan->note_cnt, 2); /* only the two skipped plans */
	tdr_plan__free(plan);
	/* An unknown name is a usage error, not silently ignored. */
	assert_int_equal(tdr_event_spec__parse("cpu-clok", &spec), 0);
	assert_int_equal(tdr_plan__choose(&o, TDR_PLAN_AUTO, &plan), -TDR_E_USAGE);
}

static void test_plan__sampler_variants_in_topdown(void **state)
{
	struct tdr_plan_opts o = plan_opts_on("sapphire-rapids");
	struct tdr_event_spec spec;
	struct tdr_plan *plan = NULL;
	struct perf_event_attr want = {.type = PERF_TYPE_HARDWARE,
				       .config = PERF_COUNT_HW_INSTRUCTIONS,
				       .precise_ip = 2,
				       MEMBER,
				       SAMPLER};

	(void)state;
	o.sampler = &spec;
	assert_int_equal(tdr_event_spec__parse("instructions:pp", &spec), 0);
	plan = choose_ok(&o, TDR_PLAN_AUTO);
	assert_string_equal(plan->groups[0].events[1].name, "instructions");
	check_attr("instructions:pp", &plan->groups[0].events[1].attr, &want);
	check_members(&plan->groups[0], spr_l2, 1); /* the leader is unchanged: slots */
	for (size_t i = 2; i < 10; i++)
		check_attr(spr_l2[i].name, &plan->groups[0].events[i].attr, &spr_l2[i].attr);
	tdr_plan__free(plan);

	assert_int_equal(tdr_event_spec__parse("cpu/event=0xc0,umask=0x1/p", &spec), 0);
	plan = choose_ok(&o, TDR_PLAN_TOPDOWN_L1);
	want =
	    (struct perf_event_attr){.type = 4, .config = 0x1c0, .precise_ip = 1, MEMBER, SAMPLER};
	check_attr("cpu/event=0xc0,umask=0x1/p", &plan->groups[0].events[1].attr, &want);
	tdr_plan__free(plan);

	assert_int_equal(tdr_event_spec__parse("cpu-clock", &spec), 0);
	plan = choose_ok(&o, TDR_PLAN_TOPDOWN_L1);
	want = (struct perf_event_attr){.type = PERF_TYPE_SOFTWARE, .config = 0, MEMBER, SAMPLER};
	check_attr("cpu-clock", &plan->groups[0].events[1].attr, &want);
	assert_string_equal(plan->groups[0].events[1].pmu_name, "software");
	tdr_plan__free(plan);

	/* TopDown events cannot sample (docs/kernel.md "TopDown group rules"). */
	log_reset();
	plan = NULL;
	assert_int_equal(tdr_event_spec__parse("slots", &spec), 0);
	assert_int_equal(tdr_plan__choose(&o, TDR_PLAN_AUTO, &plan), -TDR_E_USAGE);
	assert_non_null(strstr(test_log_text, "cannot sample"));
	assert_int_equal(tdr_event_spec__parse("topdown-mem-bound", &spec), 0);
	assert_int_equal(tdr_plan__choose(&o, TDR_PLAN_AUTO, &plan), -TDR_E_USAGE);
	assert_int_equal(tdr_event_spec__parse("r8000", &spec), 0);
	assert_int_equal(tdr_plan__choose(&o, TDR_PLAN_AUTO, &plan), -TDR_E_USAGE);
	assert_int_equal(tdr_event_spec__parse("nosuch", &spec), 0);
	assert_int_equal(tdr_plan__choose(&o, TDR_PLAN_AUTO, &plan), -TDR_E_USAGE);
	assert_null(plan);
}

/* Hybrid: a cpu_atom sampler cannot join cpu_core's TopDown group (another
 * PMU context, refused by the kernel): a usage error naming both PMUs, not
 * a fall back to the software plan. A cpu_core event can. */
static void test_plan__hybrid_sampler_on_the_other_core_pmu_refused(void **state)
{
	struct tdr_plan_opts o = plan_opts_on("alderlake-hybrid");
	struct tdr_event_spec spec;
	struct tdr_plan *plan = NULL;
	struct perf_event_attr want = {.type = 4, .config = 0x3c, MEMBER, SAMPLER};

	(void)state;
	o.sampler = &spec;
	log_reset();
	assert_int_equal(tdr_event_spec__parse("cpu_atom/event=0x3c/", &spec), 0);
	assert_int_equal(tdr_plan__choose(&o, TDR_PLAN_AUTO, &plan), -TDR_E_USAGE);
	assert_null(plan);
	assert_non_null(strstr(test_log_text, "'cpu_atom/event=0x3c/'"));
	assert_non_null(strstr(test_log_text, "TopDown is measured on cpu_core"));
	assert_int_equal(tdr_event_spec__parse("cpu_core/event=0x3c/", &spec), 0);
	plan = choose_ok(&o, TDR_PLAN_AUTO);
	check_attr("cpu_core/event=0x3c/", &plan->groups[0].events[1].attr, &want);
	tdr_plan__free(plan);
}

static void test_plan__freq_clock_kernel_lost(void **state)
{
	/* Non-default options: frequency, a clock, kernel mode, LOST, no
	 * inherit, attached (no enable_on_exec). */
#define OPT_MEMBER                                                                                 \
	.size = sizeof(struct perf_event_attr), .sample_type = ST,                                 \
	.read_format = RF | PERF_FORMAT_LOST, .exclude_hv = 1, .sample_id_all = 1,                 \
	.use_clockid = 1, .clockid = CLOCK_MONOTONIC
	static const struct want want[] = {
	    {"slots", "cpu", L, {.type = 4, .config = 0x400, OPT_MEMBER}},
	    {"cycles",
	     "cpu",
	     S,
	     {.type = PERF_TYPE_HARDWARE,
	      .freq = 1,
	      .sample_freq = 4000,
	      .mmap = 1,
	      .mmap2 = 1,
	      .comm = 1,
	      .comm_exec = 1,
	      .task = 1,
	      OPT_MEMBER}},
	    {"topdown-retiring", "cpu", 0, {.type = 4, .config = 0x8000, OPT_MEMBER}},
	    {"topdown-bad-spec", "cpu", 0, {.type = 4, .config = 0x8100, OPT_MEMBER}},
	    {"topdown-fe-bound", "cpu", 0, {.type = 4, .config = 0x8200, OPT_MEMBER}},
	    {"topdown-be-bound", "cpu", 0, {.type = 4, .config = 0x8300, OPT_MEMBER}},
	};
#undef OPT_MEMBER
	struct tdr_plan_opts o = plan_opts_on("icelake-server");
	struct tdr_plan *plan;

	(void)state;
	o.sample_period = 0;
	o.sample_freq = 4000;
	o.clockid = CLOCK_MONOTONIC;
	o.kernel = true;
	o.read_lost = true;
	o.inherit = false;
	o.enable_on_exec = false;
	plan = choose_ok(&o, TDR_PLAN_AUTO);
	check_group(&plan->groups[0], want, 6);
	tdr_plan__free(plan);
}

static void test_plan__period_xor_freq(void **state)
{
	struct tdr_plan_opts o = plan_opts_on("vm");
	struct tdr_plan *plan = NULL;

	(void)state;
	o.sample_period = 0;
	assert_int_equal(tdr_plan__choose(&o, TDR_PLAN_AUTO, &plan), -TDR_E_USAGE);
	o.sample_period = 1000;
	o.sample_freq = 1000;
	assert_int_equal(tdr_plan__choose(&o, TDR_PLAN_SOFTWARE, &plan), -TDR_E_USAGE);
	assert_null(plan);
}

static void test_plan__counting_topdown_for_stat(void **state)
{
	static const struct want want[] = {
	    {"slots", "cpu", L, {.type = 4, .config = 0x400, COUNTER, LEADER}},
	    {"topdown-retiring", "cpu", 0, {.type = 4, .config = 0x8000, COUNTER}},
	    {"topdown-bad-spec", "cpu", 0, {.type = 4, .config = 0x8100, COUNTER}},
	    {"topdown-fe-bound", "cpu", 0, {.type = 4, .config = 0x8200, COUNTER}},
	    {"topdown-be-bound", "cpu", 0, {.type = 4, .config = 0x8300, COUNTER}},
	};
	struct tdr_plan_opts o = plan_opts_on("icelake-server");
	struct tdr_event_spec spec;
	struct tdr_plan *plan;

	(void)state;
	o.counting = true;
	o.sample_period = 0;
	assert_int_equal(tdr_event_spec__parse("instructions", &spec), 0);
	o.sampler = &spec; /* ignored: a counting plan has no sampler */
	plan = choose_ok(&o, TDR_PLAN_AUTO);
	assert_int_equal(plan->kind, TDR_PLAN_TOPDOWN_L1);
	check_group(&plan->groups[0], want, 5);
	check_cpus(&plan->groups[0], 0, 3);
	tdr_plan__free(plan);
}

static void test_plan__counting_software_for_stat(void **state)
{
	static const struct want want[] = {
	    {"task-clock",
	     "software",
	     L,
	     {.type = PERF_TYPE_SOFTWARE, .config = PERF_COUNT_SW_TASK_CLOCK, COUNTER, LEADER}},
	    {"context-switches",
	     "software",
	     0,
	     {.type = PERF_TYPE_SOFTWARE, .config = PERF_COUNT_SW_CONTEXT_SWITCHES, COUNTER}},
	    {"cpu-migrations",
	     "software",
	     0,
	     {.type = PERF_TYPE_SOFTWARE, .config = PERF_COUNT_SW_CPU_MIGRATIONS, COUNTER}},
	    {"page-faults",
	     "software",
	     0,
	     {.type = PERF_TYPE_SOFTWARE, .config = PERF_COUNT_SW_PAGE_FAULTS, COUNTER}},
	};
	struct tdr_plan_opts o = plan_opts_on("vm");
	struct tdr_plan *plan;

	(void)state;
	o.counting = true;
	o.sample_period = 0;
	plan = choose_ok(&o, TDR_PLAN_AUTO);
	assert_int_equal(plan->kind, TDR_PLAN_SOFTWARE);
	check_group(&plan->groups[0], want, 4);
	check_cpus(&plan->groups[0], 0, 1);
	tdr_plan__free(plan);
}

/* kernel_sw_counts: only the kernel-only software events count kernel mode;
 * the leader and the other members keep exclude_kernel = 1. */
static void test_plan__kernel_sw_counts_only_on_kernel_events(void **state)
{
	struct tdr_plan_opts o = plan_opts_on("vm");
	struct tdr_plan *plan;
	const struct tdr_plan_group *g;

	(void)state;
	o.kernel_sw_counts = true;
	for (int counting = 0; counting < 2; counting++) {
		o.counting = counting;
		o.sample_period = counting ? 0 : 10000;
		plan = choose_ok(&o, TDR_PLAN_AUTO);
		g = &plan->groups[0];
		assert_int_equal(g->event_cnt, 4);
		for (size_t i = 0; i < g->event_cnt; i++) {
			bool kernel_only = !strcmp(g->events[i].name, "context-switches") ||
					   !strcmp(g->events[i].name, "cpu-migrations");

			assert_int_equal(g->events[i].attr.exclude_kernel, !kernel_only);
			assert_int_equal(g->events[i].attr.exclude_hv, 1);
		}
		tdr_plan__free(plan);
	}
}

static void test_plan__kinds_and_fallback_order(void **state)
{
	enum tdr_plan_kind k;

	(void)state;
	log_reset();
	assert_int_equal(tdr_plan_kind__fallback(TDR_PLAN_TOPDOWN_L2), TDR_PLAN_TOPDOWN_L1);
	assert_int_equal(tdr_plan_kind__fallback(TDR_PLAN_TOPDOWN_L1), TDR_PLAN_SOFTWARE);
	assert_int_equal(tdr_plan_kind__fallback(TDR_PLAN_SOFTWARE), TDR_PLAN_KIND_CNT);
	assert_int_equal(tdr_plan_kind__fallback(TDR_PLAN_AUTO), TDR_PLAN_KIND_CNT);
	for (int i = 0; i < TDR_PLAN_KIND_CNT; i++) {
		assert_int_equal(tdr_plan_kind_parse(tdr_plan_kind_name((enum tdr_plan_kind)i), &k),
				 0);
		assert_int_equal(k, i);
	}
	assert_string_equal(tdr_plan_kind_name(TDR_PLAN_TOPDOWN_L2), "topdown-l2");
	assert_string_equal(tdr_plan_kind_name(TDR_PLAN_KIND_CNT), "none");
	assert_int_equal(tdr_plan_kind_parse("topdown", &k), -TDR_E_USAGE);
	assert_int_equal(tdr_plan_kind_parse(NULL, &k), -TDR_E_USAGE);
	assert_string_equal(test_log_text, ""); /* the caller's line is the only one */
}

static void test_plan__damaged_trees(void **state)
{
	struct tdr_plan_opts o = plan_opts_on("broken-format");
	struct tdr_plan *plan = NULL;

	(void)state;
	log_reset();
	assert_int_equal(tdr_plan__choose(&o, TDR_PLAN_AUTO, &plan), -TDR_E_CORRUPT);
	assert_non_null(strstr(test_log_text, "cpu PMU has no format term 'umask'"));
	assert_int_equal(tdr_plan__build(&o, TDR_PLAN_TOPDOWN_L1, &plan), -TDR_E_CORRUPT);
	assert_null(plan);
	o = plan_opts_on("broken-type");
	log_reset();
	assert_int_equal(tdr_plan__choose(&o, TDR_PLAN_AUTO, &plan), -TDR_E_CORRUPT);
	assert_non_null(strstr(test_log_text, "cpu/type"));
	/* The software plan does not need the core PMU. */
	plan = choose_ok(&o, TDR_PLAN_SOFTWARE);
	check_group(&plan->groups[0], software, 4);
	tdr_plan__free(plan);
}

static void test_plan__made_up_trees(void **state)
{
	const char *root = tree_new();
	struct tdr_plan_opts o = plan_opts_on("vm");
	struct tdr_plan *plan = NULL;
	char rootc[64];

	(void)state;
	log_reset();
	strcpy(rootc, root);
	o.sysfs_root = rootc;
	/* no online file */
	assert_int_equal(tdr_plan__choose(&o, TDR_PLAN_AUTO, &plan), -ENOENT);
	/* a hybrid core PMU without its cpus file is damaged */
	tree_write(rootc, "devices/system/cpu/online", "0-7\n");
	tree_write(rootc, "bus/event_source/devices/cpu_core/type", "4\n");
	tree_write(rootc, "bus/event_source/devices/cpu_core/format/event", "config:0-7\n");
	tree_write(rootc, "bus/event_source/devices/cpu_core/format/umask", "config:8-15\n");
	tree_write(rootc, "bus/event_source/devices/cpu_core/events/slots",
		   "event=0x00,umask=0x4\n");
	tree_write(rootc, "bus/event_source/devices/cpu_core/events/topdown-retiring",
		   "event=0x00,umask=0x80\n");
	tree_write(rootc, "bus/event_source/devices/cpu_core/events/topdown-bad-spec",
		   "event=0x00,umask=0x81\n");
	tree_write(rootc, "bus/event_source/devices/cpu_core/events/topdown-fe-bound",
		   "event=0x00,umask=0x82\n");
	tree_write(rootc, "bus/event_source/devices/cpu_core/events/topdown-be-bound",
		   "event=0x00,umask=0x83\n");
	assert_int_equal(tdr_plan__choose(&o, TDR_PLAN_AUTO, &plan), -TDR_E_CORRUPT);
	/* offline CPUs of cpu_core are left out; no E-core note when all
	 * online CPUs are measured */
	tree_write(rootc, "bus/event_source/devices/cpu_core/cpus", "0-15\n");
	plan = choose_ok(&o, TDR_PLAN_AUTO);
	assert_int_equal(plan->kind, TDR_PLAN_TOPDOWN_L1);
	check_cpus(&plan->groups[0], 0, 7);
	assert_int_equal(plan->note_cnt, 1); /* topdown-l2 skipped */
	tdr_plan__free(plan);
	/* no online CPU of cpu_core at all */
	tree_write(rootc, "bus/event_source/devices/cpu_core/cpus", "8-15\n");
	assert_int_equal(tdr_plan__build(&o, TDR_PLAN_TOPDOWN_L1, &plan), -TDR_E_NOPLAN);
	plan = choose_ok(&o, TDR_PLAN_AUTO);
	assert_int_equal(plan->kind, TDR_PLAN_SOFTWARE);
	assert_non_null(strstr(plan->notes[1], "no online CPU belongs to the cpu_core PMU"));
	tdr_plan__free(plan);
	tree_rm(rootc);
}

static void test_plan__tdrec_sysfs_env(void **state)
{
	struct tdr_plan_opts o = plan_opts_on("icelake-server");
	struct tdr_plan *plan;

	(void)state;
	assert_int_equal(setenv("TDREC_SYSFS", o.sysfs_root, 1), 0);
	o.sysfs_root = NULL;
	plan = choose_ok(&o, TDR_PLAN_AUTO);
	assert_int_equal(plan->kind, TDR_PLAN_TOPDOWN_L1);
	check_cpus(&plan->groups[0], 0, 3);
	tdr_plan__free(plan);
	/* the option wins over the variable */
	o = plan_opts_on("vm");
	plan = choose_ok(&o, TDR_PLAN_AUTO);
	assert_int_equal(plan->kind, TDR_PLAN_SOFTWARE);
	tdr_plan__free(plan);
	unsetenv("TDREC_SYSFS");
	assert_string_equal(tdr_sysfs_root(NULL), "/sys");
}

static void test_plan__real_machine_is_software(void **state)
{
	struct tdr_plan_opts o = plan_opts_on("vm");
	struct tdr_plan *plan;
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);

	(void)state;
	if (!access("/sys/bus/event_source/devices/cpu", F_OK) ||
	    !access("/sys/bus/event_source/devices/cpu_core", F_OK) ||
	    access("/sys/devices/system/cpu/online", R_OK)) {
		skip(); /* a machine with a hardware PMU, or no sysfs */
		return;
	}
	o.sysfs_root = "/sys";
	plan = choose_ok(&o, TDR_PLAN_AUTO);
	assert_int_equal(plan->kind, TDR_PLAN_SOFTWARE);
	check_group(&plan->groups[0], software, 4);
	assert_int_equal(plan->groups[0].cpu_cnt, (size_t)ncpu);
	/* One line per plan this CPU could have had (its /proc/cpuinfo
	 * decides which), each saying why not. */
	assert_true(plan->note_cnt >= 1);
	assert_non_null(strstr(plan->notes[plan->note_cnt - 1], "not available: no "));
	tdr_plan__free(plan);
	/* A Zen 4 VM without a cpu PMU (like the dev VM): one line, naming
	 * the missing PMU; the Intel perf-metrics plans are not for this CPU. */
	o.cpuid = "AuthenticAMD,25,17,1";
	plan = choose_ok(&o, TDR_PLAN_AUTO);
	assert_int_equal(plan->kind, TDR_PLAN_SOFTWARE);
	assert_int_equal(plan->note_cnt, 1);
	assert_string_equal(plan->notes[0],
			    "amd-zen4 not available: no cpu PMU in /sys/bus/event_source/devices");
	assert_string_equal(plan->cpuid, "AuthenticAMD,25,17,1");
	tdr_plan__free(plan);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_plan__icelake_auto_is_l1),
	    cmocka_unit_test(test_plan__sapphire_rapids_auto_is_l2),
	    cmocka_unit_test(test_plan__sapphire_rapids_explicit_l1),
	    cmocka_unit_test(test_plan__hybrid_topdown_on_cpu_core_only),
	    cmocka_unit_test(test_plan__amd_zen4_software_with_notes),
	    cmocka_unit_test(test_plan__amd_hardware_sampler_ignored_with_note),
	    cmocka_unit_test(test_plan__vm_software),
	    cmocka_unit_test(test_plan__kernel_sw_counts_only_on_kernel_events),
	    cmocka_unit_test(test_plan__explicit_topdown_on_vm_is_noplan),
	    cmocka_unit_test(test_plan__software_sampler_from_e),
	    cmocka_unit_test(test_plan__sampler_variants_in_topdown),
	    cmocka_unit_test(test_plan__hybrid_sampler_on_the_other_core_pmu_refused),
	    cmocka_unit_test(test_plan__freq_clock_kernel_lost),
	    cmocka_unit_test(test_plan__period_xor_freq),
	    cmocka_unit_test(test_plan__counting_topdown_for_stat),
	    cmocka_unit_test(test_plan__counting_software_for_stat),
	    cmocka_unit_test(test_plan__kinds_and_fallback_order),
	    cmocka_unit_test(test_plan__damaged_trees),
	    cmocka_unit_test(test_plan__made_up_trees),
	    cmocka_unit_test(test_plan__tdrec_sysfs_env),
	    cmocka_unit_test(test_plan__real_machine_is_software),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
