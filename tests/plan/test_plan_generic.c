/*
 * tests/plan/test_plan_generic.c - the generic-counter TopDown plans
 * (AMD Zen 4/5, Intel Skylake-SP / Cascade Lake, the E-cores) against the
 * fake sysfs trees and a CPU identity.
 *
 * For each tree + TDREC_CPUID value the chosen plan and the exact
 * perf_event_attr of every member are written out here by hand: the
 * sampler leads (cycles, PERF_TYPE_HARDWARE, with the hybrid PMU type in
 * config bits 32-63 on cpu_atom) and alone has a period; every other
 * member is a counter of the family's core PMU (its type, the raw config
 * the format/ files give: AMD's event bits 8-11 go to config bits 32-35),
 * read with PERF_SAMPLE_READ; disabled / enable_on_exec on the leader only.
 * Also: W resolved from the kernel's .scale (4 HT off, 2 HT on), the
 * counter budget with the NMI watchdog, :p refused on AMD, identities that
 * do not match, and the --dry-run text.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "plan_int.h"
#include "support/sysfs_test_util.h"
#include "tdrec/format.h"
#include "tdrec/tdr_err.h"

#include "plan_want.h"

#define CYC(pmu, fl, ...)                                                                          \
	{"cycles", pmu, fl, {.type = PERF_TYPE_HARDWARE, .config = 0, MEMBER, __VA_ARGS__}}
#define RAW(n, pmu, t, c)                                                                          \
	{n, pmu, 0, {.type = t, .config = c, MEMBER}}

static const struct want zen[] = {
    CYC("cpu", L | S, LEADER, SAMPLER),
    RAW("de_no_dispatch_per_slot.no_ops_from_frontend", "cpu", 4, 0x1000001a0ull),
    RAW("de_no_dispatch_per_slot.backend_stalls", "cpu", 4, 0x100001ea0ull),
    RAW("de_no_dispatch_per_slot.smt_contention", "cpu", 4, 0x1000060a0ull),
    RAW("de_src_op_disp.all", "cpu", 4, 0x07aa),
    RAW("ex_ret_ops", "cpu", 4, 0xc1),
};

/* HT on: the kernel's recovery alias has any=1 (bit 21). */
static const struct want skx_ht[] = {
    CYC("cpu", L | S, LEADER, SAMPLER),
    RAW("topdown-slots-issued", "cpu", 4, 0x010e),
    RAW("topdown-slots-retired", "cpu", 4, 0x02c2),
    RAW("topdown-fetch-bubbles", "cpu", 4, 0x019c),
    RAW("topdown-recovery-bubbles", "cpu", 4, 0x0120030d),
};

static const struct want crestmont_srf[] = {
    CYC("cpu", L | S, LEADER, SAMPLER),
    RAW("topdown_retiring.all_p", "cpu", 4, 0x72),
    RAW("topdown_bad_speculation.all_p", "cpu", 4, 0x73),
    RAW("topdown_fe_bound.all_p", "cpu", 4, 0x71),
    RAW("topdown_be_bound.all_p", "cpu", 4, 0x74),
};

/* cpu_atom is type 10 in the trees: in the hardware config's high bits
 * and as the members' type. */
static const struct want skymont_arl[] = {
    {"cycles", "cpu_atom", L | S,
     {.type = PERF_TYPE_HARDWARE, .config = 10ull << 32, MEMBER, LEADER, SAMPLER}},
    RAW("topdown_retiring.all_p", "cpu_atom", 10, 0x02c2),
    RAW("topdown_bad_speculation.all_p", "cpu_atom", 10, 0x73),
    RAW("topdown_fe_bound.all_p", "cpu_atom", 10, 0x019c),
    RAW("topdown_be_bound.all_p", "cpu_atom", 10, 0x02a4),
};

static const struct want gracemont_adl[] = {
    {"cycles", "cpu_atom", L | S,
     {.type = PERF_TYPE_HARDWARE, .config = 10ull << 32, MEMBER, LEADER, SAMPLER}},
    RAW("topdown_retiring.all", "cpu_atom", 10, 0xc2),
    RAW("topdown_fe_bound.all", "cpu_atom", 10, 0x71),
    RAW("topdown_be_bound.all", "cpu_atom", 10, 0x74),
};

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

static void test_generic__genoa_zen4(void **state)
{
	struct tdr_plan_opts o = plan_opts_on("genoa");
	struct tdr_plan *plan;

	(void)state;
	o.cpuid = "AuthenticAMD,25,17,1";
	plan = choose_ok(&o, TDR_PLAN_AUTO);
	assert_string_equal(tdr_plan_kind_name(plan->kind), "amd-zen4");
	assert_int_equal(plan->width, 6);
	assert_int_equal(plan->group_cnt, 1);
	check_group(&plan->groups[0], zen, 6);
	check_cpus(&plan->groups[0], 0, 31);
	/* The Intel plans are not for this CPU: nothing was skipped. */
	assert_int_equal(plan->note_cnt, 0);
	assert_string_equal(plan->cpuid, "AuthenticAMD,25,17,1");
	tdr_plan__free(plan);
}

static void test_generic__turin_zen5(void **state)
{
	struct tdr_plan_opts o = plan_opts_on("turin");
	struct tdr_plan *plan;

	(void)state;
	o.cpuid = "AuthenticAMD,26,2,1";
	plan = choose_ok(&o, TDR_PLAN_AUTO);
	assert_string_equal(tdr_plan_kind_name(plan->kind), "amd-zen5");
	assert_int_equal(plan->width, 8);
	check_group(&plan->groups[0], zen, 6);
	check_cpus(&plan->groups[0], 0, 63);
	assert_int_equal(plan->note_cnt, 0);
	tdr_plan__free(plan);
}

/* The amd-zen4 tree of issue 3 has no TopDown aliases: with an identity
 * it now gets the Zen 4 plan; without one it keeps the software plan
 * (test_plan.c), since generic counters mean these events only on Zen 4. */
static void test_generic__amd_zen4_tree_with_identity(void **state)
{
	struct tdr_plan_opts o = plan_opts_on("amd-zen4");
	struct tdr_plan *plan;

	(void)state;
	assert_int_equal(setenv("TDREC_CPUID", "AuthenticAMD,25,17,1", 1), 0);
	plan = choose_ok(&o, TDR_PLAN_AUTO);
	unsetenv("TDREC_CPUID");
	assert_string_equal(tdr_plan_kind_name(plan->kind), "amd-zen4");
	assert_string_equal(plan->cpuid_from, "TDREC_CPUID");
	check_group(&plan->groups[0], zen, 6);
	check_cpus(&plan->groups[0], 0, 15);
	tdr_plan__free(plan);
	/* Zen 3 (model 0x21) has no PipelineL1: software, saying why. */
	o.cpuid = "AuthenticAMD,25,33,0";
	plan = choose_ok(&o, TDR_PLAN_AUTO);
	assert_int_equal(plan->kind, TDR_PLAN_SOFTWARE);
	assert_int_equal(plan->note_cnt, 1);
	assert_string_equal(plan->notes[0],
			    "no TopDown plan for this CPU (AuthenticAMD,25,33,0, from the plan options)");
	tdr_plan__free(plan);
}

/* What a plan could not check is said, never taken as measured: a family
 * asked for by name without a CPU identity, and an Arm width that is the
 * table's because caps/slots is missing. */
static bool has_note(const struct tdr_plan *plan, const char *part)
{
	for (size_t i = 0; i < plan->note_cnt; i++)
		if (strstr(plan->notes[i], part))
			return true;
	return false;
}

static void test_generic__unchecked_facts_are_noted(void **state)
{
	struct tdr_plan_opts o = plan_opts_on("genoa");
	struct tdr_plan *plan;
	char tree[] = "/tmp/tdr-v2-nocaps-XXXXXX", cmd[8300];

	(void)state;
	plan = choose_ok(&o, kind_of("amd-zen4"));
	assert_string_equal(tdr_plan_kind_name(plan->kind), "amd-zen4");
	assert_true(has_note(plan, "no CPU identity"));
	tdr_plan__free(plan);
	o.cpuid = "AuthenticAMD,25,17,1";
	plan = choose_ok(&o, kind_of("amd-zen4"));
	assert_false(has_note(plan, "no CPU identity"));
	assert_false(has_note(plan, "from TDREC_CPUID"));
	tdr_plan__free(plan);
	/* An identity from the environment is not this machine's: said. */
	o.cpuid = NULL;
	assert_int_equal(setenv("TDREC_CPUID", "AuthenticAMD,25,17,1", 1), 0);
	plan = choose_ok(&o, kind_of("amd-zen4"));
	unsetenv("TDREC_CPUID");
	assert_true(has_note(plan, "plan chosen for CPU AuthenticAMD,25,17,1 from TDREC_CPUID"));
	tdr_plan__free(plan);

	assert_non_null(mkdtemp(tree));
	snprintf(cmd, sizeof(cmd),
		 "cp -r '%s/.' '%s' && rm '%s/bus/event_source/devices/armv8_pmuv3_0/caps/slots'",
		 fixture("neoverse-v2"), tree, tree);
	assert_int_equal(system(cmd), 0);
	o = plan_opts_on("neoverse-v2");
	o.sysfs_root = tree;
	o.cpuid = "0x00000000410fd4f0";
	plan = choose_ok(&o, TDR_PLAN_AUTO);
	assert_string_equal(tdr_plan_kind_name(plan->kind), "neoverse-v2");
	assert_int_equal(plan->width, 8);
	assert_true(has_note(plan, "W = 8 from the TopDown table"));
	tdr_plan__free(plan);
	snprintf(cmd, sizeof(cmd), "rm -r '%s'", tree);
	assert_int_equal(system(cmd), 0);
}

/* Skylake-SP: the perf-metrics plans are tried (Intel) and skipped, then
 * intel-skl with W from topdown-total-slots.scale. */
static void test_generic__skylake_sp_ht_and_noht(void **state)
{
	struct tdr_plan_opts o = plan_opts_on("skylake-sp-ht");
	struct tdr_plan *plan;

	(void)state;
	o.cpuid = "GenuineIntel,6,85,4";
	plan = choose_ok(&o, TDR_PLAN_AUTO);
	assert_string_equal(tdr_plan_kind_name(plan->kind), "intel-skl");
	assert_int_equal(plan->width, 2);
	check_group(&plan->groups[0], skx_ht, 5);
	check_cpus(&plan->groups[0], 0, 7);
	assert_int_equal(plan->note_cnt, 2);
	assert_int_equal(plan->skip_note_cnt, 2);
	assert_string_equal(plan->notes[1],
			    "topdown-l1 not available: the cpu PMU has no slots, topdown-retiring, "
			    "topdown-bad-spec, topdown-fe-bound, topdown-be-bound");
	tdr_plan__free(plan);

	o = plan_opts_on("skylake-sp-noht");
	o.cpuid = "GenuineIntel,6,85,4";
	plan = choose_ok(&o, kind_of("intel-skl"));
	assert_int_equal(plan->width, 4);
	check_members(&plan->groups[0], skx_ht, 4); /* the same but recovery: */
	assert_int_equal(plan->groups[0].events[4].attr.config, 0x0100030d);
	check_cpus(&plan->groups[0], 0, 3);
	assert_int_equal(plan->note_cnt, 0);
	tdr_plan__free(plan);

	o = plan_opts_on("cascade-lake");
	o.cpuid = "GenuineIntel,6,85,7";
	plan = choose_ok(&o, TDR_PLAN_AUTO);
	assert_string_equal(tdr_plan_kind_name(plan->kind), "intel-skl");
	assert_int_equal(plan->width, 2);
	check_group(&plan->groups[0], skx_ht, 5);
	check_cpus(&plan->groups[0], 0, 15);
	tdr_plan__free(plan);
}

/* The stored formulas carry the resolved W: bad-spec's recovery term is
 * W * recovery, the denominator W * cycles. */
static void test_generic__width_stored_resolved(void **state)
{
	struct tdr_plan_opts o = plan_opts_on("skylake-sp-ht");
	struct tdr_meta meta = {0};
	struct tdr_plan *plan;
	const struct tdr_category *bad = NULL;

	(void)state;
	o.cpuid = "GenuineIntel,6,85,4";
	plan = choose_ok(&o, kind_of("intel-skl"));
	assert_int_equal(tdr_plan__to_meta(plan, &meta), 0);
	assert_string_equal(meta.plan_name, "intel-skl");
	assert_int_equal(meta.category_cnt, 4);
	for (size_t i = 0; i < meta.category_cnt; i++)
		if (!strcmp(meta.categories[i].name, "bad-spec"))
			bad = &meta.categories[i];
	assert_non_null(bad);
	assert_int_equal(bad->num_cnt, 3);
	assert_string_equal(meta.events[bad->num[2].event_idx].name, "topdown-recovery-bubbles");
	assert_true(bad->num[2].coef == 2.0);
	assert_string_equal(meta.events[bad->den[0].event_idx].name, "cycles");
	assert_true(bad->den[0].coef == 2.0);
	tdr_meta__clear(&meta);
	tdr_plan__free(plan);
	/* Zen 5: W = 8 from the table, smt-contention stored too. */
	o = plan_opts_on("turin");
	o.cpuid = "AuthenticAMD,26,2,1";
	plan = choose_ok(&o, TDR_PLAN_AUTO);
	memset(&meta, 0, sizeof(meta));
	assert_int_equal(tdr_plan__to_meta(plan, &meta), 0);
	assert_int_equal(meta.category_cnt, 5);
	assert_string_equal(meta.categories[4].name, "smt-contention");
	assert_true(meta.categories[4].den[0].coef == 8.0);
	tdr_meta__clear(&meta);
	tdr_plan__free(plan);
}

/* Neoverse V2 (MIDR 0x410fd4f0): the armv8_pmuv3_0 PMU (type 8), the
 * common events by their aliases (event = config:0-15), cpu_cycles
 * leading and sampling, W = caps/slots = 8; CPUs from the PMU's cpus. */
#define ARM(n, c) RAW(n, "armv8_pmuv3_0", 8, c)
static const struct want arm_v2[] = {
    {"cpu_cycles", "armv8_pmuv3_0", L | S, {.type = 8, .config = 0x11, MEMBER, LEADER, SAMPLER}},
    ARM("stall_slot_frontend", 0x3e),
    ARM("stall_slot_backend", 0x3d),
    ARM("stall_slot", 0x3f),
    ARM("op_retired", 0x3a),
    ARM("op_spec", 0x3b),
    ARM("br_mis_pred", 0x10),
};

static void test_generic__neoverse_v2(void **state)
{
	struct tdr_plan_opts o = plan_opts_on("neoverse-v2");
	struct tdr_meta meta = {0};
	struct tdr_plan *plan;

	(void)state;
	o.cpuid = "0x00000000410fd4f0";
	plan = choose_ok(&o, TDR_PLAN_AUTO);
	assert_string_equal(tdr_plan_kind_name(plan->kind), "neoverse-v2");
	assert_int_equal(plan->width, 8);
	assert_int_equal(plan->group_cnt, 1);
	check_group(&plan->groups[0], arm_v2, 7);
	check_cpus(&plan->groups[0], 0, 71);
	/* Six programmable counters and the cycle counter: it fits. */
	assert_int_equal(plan->note_cnt, 0);
	/* Stored: retiring and bad-spec in the product form, W = 8. */
	assert_int_equal(tdr_plan__to_meta(plan, &meta), 0);
	assert_int_equal(meta.category_cnt, 4);
	assert_string_equal(meta.categories[0].name, "retiring");
	assert_int_equal(meta.categories[0].part_cnt, 1);
	assert_int_equal(meta.categories[0].parts[0].factor_cnt, 2);
	assert_true(meta.categories[0].parts[0].factors[1].den[0].coef == 8.0);
	assert_int_equal(meta.categories[1].part_cnt, 2);
	assert_string_equal(meta.categories[2].name, "fe-bound");
	assert_int_equal(meta.categories[2].part_cnt, 0);
	assert_true(meta.categories[2].num[1].coef == -8.0); /* - W * br_mis_pred */
	tdr_meta__clear(&meta);
	tdr_plan__free(plan);
	/* An N2 identity on the same PMU: W comes from caps/slots (8), not
	 * from the table (5). */
	o.cpuid = "0x00000000410fd490";
	plan = choose_ok(&o, TDR_PLAN_AUTO);
	assert_string_equal(tdr_plan_kind_name(plan->kind), "neoverse-n2");
	assert_int_equal(plan->width, 8);
	tdr_plan__free(plan);
	/* Another Arm core (Neoverse N1, 0xd0c) gets no TopDown. */
	o.cpuid = "0x00000000413fd0c1";
	plan = choose_ok(&o, TDR_PLAN_AUTO);
	assert_string_equal(tdr_plan_kind_name(plan->kind), "software");
	tdr_plan__free(plan);
}

/* AMD level 2 is stat's default: record's auto choice passes it by; asked
 * for by name it samples in three groups (test_plan_level2.c). */
static void test_generic__l2_counts_only(void **state)
{
	struct tdr_plan_opts o = plan_opts_on("genoa");
	struct tdr_plan *plan = NULL;

	(void)state;
	o.cpuid = "AuthenticAMD,25,17,1";
	plan = choose_ok(&o, TDR_PLAN_AUTO);
	assert_string_equal(tdr_plan_kind_name(plan->kind), "amd-zen4");
	assert_int_equal(plan->note_cnt, 0);
	tdr_plan__free(plan);
	plan = NULL;
	assert_int_equal(tdr_plan__build(&o, kind_of("amd-zen4-l2"), &plan), 0);
	assert_int_equal(plan->group_cnt, 3);
	tdr_plan__free(plan);
}

static void test_generic__sierra_forest_crestmont(void **state)
{
	struct tdr_plan_opts o = plan_opts_on("sierra-forest");
	struct tdr_plan *plan;

	(void)state;
	o.cpuid = "GenuineIntel,6,175,3";
	plan = choose_ok(&o, TDR_PLAN_AUTO);
	assert_string_equal(tdr_plan_kind_name(plan->kind), "crestmont");
	assert_int_equal(plan->width, 6);
	check_group(&plan->groups[0], crestmont_srf, 5);
	check_cpus(&plan->groups[0], 0, 143);
	assert_int_equal(plan->skip_note_cnt, 2); /* topdown-l2, topdown-l1 */
	tdr_plan__free(plan);
}

/* Hybrid: auto keeps perf metrics on cpu_core; the E-core families run on
 * cpu_atom when asked for, with the hybrid PMU type in the cycles config. */
static void test_generic__hybrid_e_cores(void **state)
{
	struct tdr_plan_opts o = plan_opts_on("arrow-lake");
	struct tdr_plan *plan;

	(void)state;
	o.cpuid = "GenuineIntel,6,198,2";
	plan = choose_ok(&o, TDR_PLAN_AUTO);
	assert_int_equal(plan->kind, TDR_PLAN_TOPDOWN_L2);
	check_cpus(&plan->groups[0], 0, 7);
	tdr_plan__free(plan);
	plan = choose_ok(&o, kind_of("skymont"));
	assert_int_equal(plan->width, 8);
	check_group(&plan->groups[0], skymont_arl, 5);
	check_cpus(&plan->groups[0], 8, 23);
	assert_int_equal(plan->note_cnt, 1);
	assert_string_equal(plan->notes[0], "hybrid CPU: TopDown is measured on cpu_atom CPUs "
					    "8-23 only; CPUs 0-7 (cpu_core) are not measured");
	tdr_plan__free(plan);

	o = plan_opts_on("alderlake-hybrid");
	o.cpuid = "GenuineIntel,6,151,2";
	plan = choose_ok(&o, kind_of("gracemont"));
	assert_int_equal(plan->width, 5);
	check_group(&plan->groups[0], gracemont_adl, 4);
	check_cpus(&plan->groups[0], 16, 23);
	tdr_plan__free(plan);
}

/* -e: an -e that is a family event is that event; one more event makes 7
 * for AMD's 6 counters: the automatic choice passes the family by, asking
 * for it is an error. */
static void test_generic__sampler_from_e(void **state)
{
	struct tdr_plan_opts o = plan_opts_on("genoa");
	struct tdr_event_spec spec;
	struct tdr_plan *plan;
	const struct want ret[] = {
	    {"ex_ret_ops", "cpu", L | S, {.type = 4, .config = 0xc1, MEMBER, LEADER, SAMPLER}},
	    CYC("cpu", 0, .disabled = 0),
	};

	(void)state;
	o.cpuid = "AuthenticAMD,25,17,1";
	assert_int_equal(tdr_event_spec__parse("instructions", &spec), 0);
	o.sampler = &spec;
	/* 7 events for 6 counters: the kernel would refuse the group, so the
	 * automatic choice passes amd-zen4 by with the reason, and asking for
	 * it by name is an error. */
	plan = choose_ok(&o, TDR_PLAN_AUTO);
	assert_string_equal(tdr_plan_kind_name(plan->kind), "software");
	assert_true(has_note(plan, "amd-zen4 not available: counter budget: its group needs 7 "
				   "general counters and a thread has 6, so the kernel refuses it; "
				   "use fewer events"));
	tdr_plan__free(plan);
	plan = NULL;
	log_reset();
	assert_int_equal(tdr_plan__build(&o, kind_of("amd-zen4"), &plan), -TDR_E_NOPLAN);
	assert_null(plan);
	assert_non_null(strstr(test_log_text, "plan amd-zen4 does not fit this machine: counter budget"));

	assert_int_equal(tdr_event_spec__parse("cpu/event=0xc1/", &spec), 0);
	plan = choose_ok(&o, TDR_PLAN_AUTO);
	assert_int_equal(plan->groups[0].event_cnt, 6);
	check_members(&plan->groups[0], ret, 2);
	assert_string_equal(plan->groups[0].events[5].name, "de_src_op_disp.all");
	assert_int_equal(plan->note_cnt, 0);
	tdr_plan__free(plan);
}

/* On AMD precise_ip goes to IBS: -e cycles:p is refused with one line. */
static void test_generic__precise_refused_on_amd(void **state)
{
	struct tdr_plan_opts o = plan_opts_on("genoa");
	struct tdr_event_spec spec;
	struct tdr_plan *plan = NULL;

	(void)state;
	o.cpuid = "AuthenticAMD,25,17,1";
	assert_int_equal(tdr_event_spec__parse("cycles:p", &spec), 0);
	o.sampler = &spec;
	log_reset();
	assert_int_equal(tdr_plan__choose(&o, TDR_PLAN_AUTO, &plan), -TDR_E_USAGE);
	assert_null(plan);
	assert_non_null(strstr(test_log_text, "invalid event 'cycles:p': on AMD, precise sampling (:p) "
					 "goes to IBS, not to the core counters of the amd-zen4 "
					 "group; drop the :p"));
	/* Intel has no such rule. */
	o = plan_opts_on("skylake-sp-noht");
	o.cpuid = "GenuineIntel,6,85,4";
	o.sampler = &spec;
	plan = choose_ok(&o, TDR_PLAN_AUTO);
	assert_int_equal(plan->groups[0].events[0].attr.precise_ip, 1);
	tdr_plan__free(plan);
}

/* The NMI watchdog (fake /proc) holds a counter: on AMD a general one
 * (6 events, 5 free), on Intel the fixed one (cycles needs a general one:
 * 5 with HT on's 4); cpuinfo gives the identity. */
static void test_generic__watchdog_budget(void **state)
{
	struct tdr_plan_opts o = plan_opts_on("genoa");
	char proc[4200];
	struct tdr_plan *plan;

	(void)state;
	snprintf(proc, sizeof(proc), "%s/../proc/genoa", fixture(""));
	o.proc_root = proc;
	plan = choose_ok(&o, TDR_PLAN_AUTO);
	assert_string_equal(tdr_plan_kind_name(plan->kind), "amd-zen4");
	assert_string_equal(plan->cpuid, "AuthenticAMD,25,17,1");
	assert_string_equal(plan->cpuid_from, "the given cpuinfo");
	assert_int_equal(plan->note_cnt, 1);
	assert_string_equal(plan->notes[0],
			    "counter budget: the amd-zen4 group needs 6 general counters and 5 are "
			    "free (the NMI watchdog holds one); it would never be scheduled and "
			    "count nothing: free one with 'sysctl kernel.nmi_watchdog=0', or use "
			    "--plan with fewer events");
	tdr_plan__free(plan);

	o = plan_opts_on("skylake-sp-ht");
	snprintf(proc, sizeof(proc), "%s/../proc/skylake-sp", fixture(""));
	o.proc_root = proc;
	plan = choose_ok(&o, TDR_PLAN_AUTO);
	assert_string_equal(tdr_plan_kind_name(plan->kind), "intel-skl");
	assert_int_equal(plan->note_cnt, 3);
	assert_non_null(strstr(plan->notes[2], "needs 5 general counters and 4 are free"));
	tdr_plan__free(plan);
	/* HT off: 8 general counters, room for cycles too. */
	o = plan_opts_on("skylake-sp-noht");
	o.proc_root = proc;
	plan = choose_ok(&o, TDR_PLAN_AUTO);
	assert_int_equal(plan->note_cnt, 2);
	tdr_plan__free(plan);
}

/* Skylake-SP level 2 (intel-skl-l2), recorded: the level-1 group and two
 * more, each led by its own cycles (the fixed counter) sampling without
 * side-band. Configs by hand through the trees' format files (event 0-7,
 * umask 8-15, edge 18, cmask 24-31). */
#define SKX_G_LEAD(n)                                                                              \
	{n, "cpu", L | S,                                                                          \
	 {.type = PERF_TYPE_HARDWARE, .config = 0, MEMBER, LEADER, .sample_period = PERIOD}}
static const struct want skx_l2_g1[] = {
    SKX_G_LEAD("cycles.g1"),
    RAW("idq_uops_not_delivered.cycles_0_uops_deliv.core", "cpu", 4, 0x0400019c),
    RAW("br_misp_retired.all_branches", "cpu", 4, 0xc5),
    RAW("machine_clears.count", "cpu", 4, 0x010401c3),
};

static const struct want skx_l2_g2[] = {
    SKX_G_LEAD("cycles.g2"),
    RAW("cycle_activity.stalls_mem_any", "cpu", 4, 0x140014a3),
    RAW("exe_activity.bound_on_stores", "cpu", 4, 0x40a6),
    RAW("cycle_activity.stalls_total", "cpu", 4, 0x040004a3),
    RAW("exe_activity.1_ports_util", "cpu", 4, 0x02a6),
    RAW("exe_activity.2_ports_util", "cpu", 4, 0x04a6),
    RAW("uops_retired.retire_slots.g2", "cpu", 4, 0x02c2),
    RAW("uops_retired.macro_fused", "cpu", 4, 0x04c2),
    {"instructions", "cpu", 0, {.type = PERF_TYPE_HARDWARE, .config = 1, MEMBER}},
};

static void test_generic__skx_level2(void **state)
{
	struct tdr_plan_opts o = plan_opts_on("skylake-sp-noht");
	struct tdr_plan *plan = NULL;
	char proc[4200];

	(void)state;
	o.cpuid = "GenuineIntel,6,85,4";
	/* record's auto choice passes level 2 by. */
	plan = choose_ok(&o, TDR_PLAN_AUTO);
	assert_string_equal(tdr_plan_kind_name(plan->kind), "intel-skl");
	tdr_plan__free(plan);
	/* Asked by name, HT off (W 4): three sampling groups, each led by
	 * cycles that samples; groups 1 and 2 ask for no side-band. */
	assert_int_equal(tdr_plan__build(&o, kind_of("intel-skl-l2"), &plan), 0);
	assert_int_equal(plan->width, 4);
	assert_int_equal(plan->group_cnt, 3);
	check_members(&plan->groups[0], skx_ht, 4); /* recovery without any=1 */
	assert_int_equal(plan->groups[0].events[4].attr.config, 0x0100030d);
	check_group(&plan->groups[1], skx_l2_g1, 4);
	check_group(&plan->groups[2], skx_l2_g2, 9);
	for (size_t g = 0; g < 3; g++)
		check_cpus(&plan->groups[g], 0, 3);
	assert_int_equal(plan->note_cnt, 1);
	assert_non_null(strstr(plan->notes[0], "intel-skl-l2 samples in 3 groups"));
	tdr_plan__free(plan);
	plan = NULL;

	/* Counting (tdrec stat's first choice): the same groups, nothing
	 * samples; group 2's members by hand. */
	o.counting = true;
	plan = choose_ok(&o, TDR_PLAN_AUTO);
	assert_string_equal(tdr_plan_kind_name(plan->kind), "intel-skl-l2");
	assert_int_equal(plan->group_cnt, 3);
	for (size_t i = 0; i < 9; i++) {
		const struct plan_event_view {
			const struct tdr_plan_event *e;
		} v = {&plan->groups[2].events[i]};

		assert_string_equal(v.e->name, skx_l2_g2[i].name);
		assert_int_equal(v.e->attr.type, skx_l2_g2[i].attr.type);
		assert_int_equal(v.e->attr.config, skx_l2_g2[i].attr.config);
		assert_int_equal(v.e->attr.sample_period, 0);
		assert_int_equal(v.e->flags, i ? 0 : TDR_EVENT_LEADER);
	}
	assert_int_equal(plan->groups[1].event_cnt, 4);
	/* The perf-metrics plans tried first; no budget note: 7 general
	 * counters of 8. */
	assert_int_equal(plan->note_cnt, 2);
	assert_int_equal(plan->skip_note_cnt, 2);
	tdr_plan__free(plan);
	/* The NMI watchdog takes the fixed cycles counter: group 2 needs 8,
	 * still fits HT off. */
	snprintf(proc, sizeof(proc), "%s/../proc/skylake-sp", fixture(""));
	o.proc_root = proc;
	plan = choose_ok(&o, TDR_PLAN_AUTO);
	assert_string_equal(tdr_plan_kind_name(plan->kind), "intel-skl-l2");
	assert_int_equal(plan->note_cnt, 2); /* the skip notes only */
	tdr_plan__free(plan);

	/* HT on (W 2), Cascade Lake: 4 general counters a thread, group 2
	 * needs 7 (cycles.g2 on the fixed counter, instructions on fixed
	 * counter 0): the kernel would refuse it, so stat's auto choice
	 * passes level 2 by with a note saying why and counts level 1. */
	o = plan_opts_on("cascade-lake");
	o.cpuid = "GenuineIntel,6,85,7";
	o.counting = true;
	plan = choose_ok(&o, TDR_PLAN_AUTO);
	assert_string_equal(tdr_plan_kind_name(plan->kind), "intel-skl");
	assert_int_equal(plan->width, 2);
	assert_int_equal(plan->group_cnt, 1);
	assert_int_equal(plan->note_cnt, 3);
	assert_int_equal(plan->skip_note_cnt, 3);
	assert_string_equal(plan->notes[2],
			    "intel-skl-l2 not available: counter budget: its group 2 needs 7 general "
			    "counters and a thread has 4 with Hyper-Threading on (8 with it off), so "
			    "the kernel refuses the group");
	tdr_plan__free(plan);
	/* The same with the NMI watchdog on (it holds the fixed cycles
	 * counter, not one of the 4): still 7 without it, the same note. */
	o.proc_root = proc;
	plan = choose_ok(&o, TDR_PLAN_AUTO);
	assert_string_equal(tdr_plan_kind_name(plan->kind), "intel-skl");
	assert_true(has_note(plan, "intel-skl-l2 not available: counter budget: its group 2 "
				   "needs 7 general counters and a thread has 4"));
	tdr_plan__free(plan);
	o.proc_root = NULL;

	/* Asked by name, recording or counting: an error naming the budget. */
	for (int counting = 0; counting < 2; counting++) {
		o.counting = counting;
		plan = NULL;
		log_reset();
		assert_int_equal(tdr_plan__build(&o, kind_of("intel-skl-l2"), &plan),
				 -TDR_E_NOPLAN);
		assert_null(plan);
		assert_non_null(strstr(test_log_text,
				       "plan intel-skl-l2 does not fit this machine: counter budget: "
				       "its group 2 needs 7 general counters and a thread has 4 with "
				       "Hyper-Threading on (8 with it off), so the kernel refuses the "
				       "group"));
	}
	/* The level-1 family's group fits the 4 (cycles on the fixed
	 * counter): chosen by record's auto choice with no budget note. */
	o.counting = false;
	plan = choose_ok(&o, TDR_PLAN_AUTO);
	assert_string_equal(tdr_plan_kind_name(plan->kind), "intel-skl");
	assert_int_equal(plan->note_cnt, 2);
	tdr_plan__free(plan);
}

/* Counting (tdrec stat): cycles leads, nothing samples; on Zen 4 the
 * level-2 family adds two groups, each led by its first event. Configs by
 * hand through genoa's format files (event = config:0-7,32-35, umask =
 * 8-15, cmask = 24-31). */
static void test_generic__counting(void **state)
{
	struct tdr_plan_opts o = plan_opts_on("genoa");
	struct tdr_plan *plan;

	(void)state;
	o.cpuid = "AuthenticAMD,25,17,1";
	o.counting = true;
	o.sample_period = 0;
	plan = choose_ok(&o, TDR_PLAN_AUTO);
	assert_string_equal(tdr_plan_kind_name(plan->kind), "amd-zen4-l2");
	assert_int_equal(plan->group_cnt, 3);
	assert_int_equal(plan->groups[0].event_cnt, 6);
	for (size_t i = 0; i < 6; i++) {
		const struct tdr_plan_event *ev = &plan->groups[0].events[i];
		struct perf_event_attr want = {
		    .type = zen[i].attr.type, .config = zen[i].attr.config, COUNTER};

		if (!i) {
			want.disabled = 1;
			want.enable_on_exec = 1;
		}
		assert_string_equal(ev->name, zen[i].name);
		assert_int_equal(ev->flags, i ? 0 : L);
		check_attr(ev->name, &ev->attr, &want);
	}
	{
		static const struct {
			size_t group;
			const char *name;
			uint64_t config;
		} l2[] = {
		    {1, "ls_not_halted_cyc", 0x76},
		    /* event 0x1a0: 0xa0 | 0x1 << 32; umask 0x1 << 8; cmask 6 << 24 */
		    {1, "de_no_dispatch_per_slot.no_ops_from_frontend.cmask_w", 0x1060001a0ull},
		    {1, "ex_ret_ucode_ops", 0x1000000c2ull}, /* event 0x1c2 */
		    {2, "ex_no_retire.not_complete", 0x02d6},
		    {2, "ex_no_retire.load_not_complete", 0xa2d6},
		    {2, "ex_ret_brn_misp", 0xc3},
		    {2, "resyncs_or_nc_redirects", 0x96},
		};
		size_t at[3] = {0, 0, 0};

		assert_int_equal(plan->groups[1].event_cnt, 3);
		assert_int_equal(plan->groups[2].event_cnt, 4);
		for (size_t i = 0; i < sizeof(l2) / sizeof(l2[0]); i++) {
			size_t k = at[l2[i].group]++;
			const struct tdr_plan_event *ev = &plan->groups[l2[i].group].events[k];
			struct perf_event_attr want = {.type = 4, .config = l2[i].config, COUNTER};

			if (!k) {
				want.disabled = 1;
				want.enable_on_exec = 1;
			}
			assert_string_equal(ev->name, l2[i].name);
			assert_int_equal(ev->flags, k ? 0 : L);
			check_attr(ev->name, &ev->attr, &want);
		}
		assert_int_equal(plan->groups[1].cpu_cnt, plan->groups[0].cpu_cnt);
		assert_int_equal(plan->groups[2].cpu_cnt, plan->groups[0].cpu_cnt);
	}
	tdr_plan__free(plan);
}

/* Identities that do not fit, and bad ones. */
static void test_generic__identity_mismatch(void **state)
{
	struct tdr_plan_opts o = plan_opts_on("genoa");
	struct tdr_plan *plan = NULL;

	(void)state;
	o.cpuid = "GenuineIntel,6,85,7";
	log_reset();
	assert_int_equal(tdr_plan__choose(&o, kind_of("amd-zen4"), &plan), -TDR_E_NOPLAN);
	assert_null(plan);
	assert_non_null(strstr(test_log_text, "plan amd-zen4 does not fit this machine: the CPU "
					 "(GenuineIntel,6,85,7, from the plan options) is not one "
					 "of its CPUs"));
	/* No identity at all: only when asked for by name. */
	o.cpuid = NULL;
	plan = choose_ok(&o, TDR_PLAN_AUTO);
	assert_int_equal(plan->kind, TDR_PLAN_SOFTWARE);
	tdr_plan__free(plan);
	plan = choose_ok(&o, kind_of("amd-zen4"));
	check_group(&plan->groups[0], zen, 6);
	assert_string_equal(plan->cpuid, "");
	tdr_plan__free(plan);
	/* A Zen 4 identity on the VM tree: one line naming the missing PMU. */
	o = plan_opts_on("vm");
	o.cpuid = "AuthenticAMD,25,17,1";
	plan = choose_ok(&o, TDR_PLAN_AUTO);
	assert_int_equal(plan->note_cnt, 1);
	assert_non_null(strstr(plan->notes[0], "amd-zen4 not available: no cpu PMU in "));
	tdr_plan__free(plan);
	/* TDREC_CPUID that is not a CPUID. */
	o.cpuid = NULL;
	assert_int_equal(setenv("TDREC_CPUID", "AMD Zen 4", 1), 0);
	log_reset();
	assert_int_equal(tdr_plan__choose(&o, TDR_PLAN_AUTO, &plan), -TDR_E_USAGE);
	unsetenv("TDREC_CPUID");
	assert_non_null(strstr(test_log_text, "TDREC_CPUID='AMD Zen 4' is not a CPU identity"));
}

/* Kinds are the table's families; each falls back to software. */
static void test_generic__kinds_from_the_table(void **state)
{
	(void)state;
	assert_int_equal(TDR_PLAN_KIND_CNT, tdr_topdown_family_cnt() + 1);
	for (int k = 1; k < TDR_PLAN_KIND_CNT; k++)
		assert_string_equal(tdr_plan_kind_name((enum tdr_plan_kind)k),
				    tdr_topdown_family_at((size_t)k - 1)->name);
	assert_string_equal(tdr_plan_kind_name(TDR_PLAN_SOFTWARE), "software");
	assert_int_equal(tdr_plan_kind__fallback(kind_of("amd-zen4")), TDR_PLAN_SOFTWARE);
	assert_int_equal(tdr_plan_kind__fallback(kind_of("intel-skl")), TDR_PLAN_SOFTWARE);
	assert_int_equal(tdr_plan_kind__fallback(kind_of("intel-skl-l2")), kind_of("intel-skl"));
	assert_string_equal(tdr_plan_kind_names(),
			    "auto|topdown-l2|topdown-l1|intel-skl-l2|intel-skl|gracemont|crestmont|"
			    "skymont|"
			    "amd-zen4-l2|amd-zen4|amd-zen5-l2|amd-zen5|neoverse-n2|neoverse-v1|"
			    "neoverse-v2|neoverse-n3|neoverse-v3|software");
	assert_int_equal(tdr_plan_kind__fallback(kind_of("amd-zen4-l2")), kind_of("amd-zen4"));
	assert_int_equal(tdr_plan_kind__fallback(kind_of("neoverse-v2")), TDR_PLAN_SOFTWARE);
}

/* --dry-run names the identity and W. */
static void test_generic__dry_run_text(void **state)
{
	struct tdr_plan_opts o = plan_opts_on("genoa");
	struct tdr_plan *plan;
	char *text = NULL;
	size_t len = 0;
	FILE *f;

	(void)state;
	o.cpuid = "AuthenticAMD,25,17,1";
	plan = choose_ok(&o, TDR_PLAN_AUTO);
	f = open_memstream(&text, &len);
	tdr_plan__print(plan, f);
	fclose(f);
	assert_non_null(strstr(text, "plan: amd-zen4\ncpu: AuthenticAMD,25,17,1 (the plan "
				     "options)\nwidth: 6\ngroup 0: 6 events on 32 CPUs: 0-31\n"));
	assert_non_null(strstr(text, "  event 0: cycles (pmu cpu) leader sampler\n"));
	assert_non_null(strstr(text, "  event 1: de_no_dispatch_per_slot.no_ops_from_frontend "
				     "(pmu cpu)\n    type                 4 (PMU cpu)\n"));
	assert_non_null(strstr(text, "    config               0x1000001a0\n"));
	free(text);
	tdr_plan__free(plan);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_generic__genoa_zen4),
	    cmocka_unit_test(test_generic__turin_zen5),
	    cmocka_unit_test(test_generic__amd_zen4_tree_with_identity),
	    cmocka_unit_test(test_generic__unchecked_facts_are_noted),
	    cmocka_unit_test(test_generic__skylake_sp_ht_and_noht),
	    cmocka_unit_test(test_generic__skx_level2),
	    cmocka_unit_test(test_generic__width_stored_resolved),
	    cmocka_unit_test(test_generic__neoverse_v2),
	    cmocka_unit_test(test_generic__l2_counts_only),
	    cmocka_unit_test(test_generic__sierra_forest_crestmont),
	    cmocka_unit_test(test_generic__hybrid_e_cores),
	    cmocka_unit_test(test_generic__sampler_from_e),
	    cmocka_unit_test(test_generic__precise_refused_on_amd),
	    cmocka_unit_test(test_generic__watchdog_budget),
	    cmocka_unit_test(test_generic__counting),
	    cmocka_unit_test(test_generic__identity_mismatch),
	    cmocka_unit_test(test_generic__kinds_from_the_table),
	    cmocka_unit_test(test_generic__dry_run_text),
	};

	test_log_capture(TDR_LOG_WARN);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
