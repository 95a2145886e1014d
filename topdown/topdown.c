/*
 * topdown/topdown.c - the TopDown table (rows) and its look-ups.
 *
 * Responsibility: the rows of tdrec/topdown.h, and nothing that reads
 * sysfs, files or perf_event_attrs. Adding a family is adding rows here:
 * its identity, its events, its formulas, any new category; plan/ opens
 * whatever a family lists, format/meta.c stores whatever formulas it gives.
 * Sources of the rows (docs/plans.md "Families" has them per family):
 *   - perf metrics: the kernel's aliases (arch/x86/events/intel/core.c:
 *     slots = event=0x00,umask=0x4, topdown-retiring .. topdown-be-bound =
 *     umask 0x80..0x83, heavy-ops .. mem-bound = umask 0x84..0x87) and the
 *     metric-register ratios of Linux tools/perf/Documentation/topdown.txt
 *     (each metric over slots; a level-2 sibling is its parent minus the
 *     measured level-2 metric);
 *   - Intel before Ice Lake: the kernel's topdown-total-slots ..
 *     topdown-recovery-bubbles aliases and their .scale (same core.c), with
 *     the level-1 formulas of tools/perf/pmu-events/arch/x86/skylakex
 *     (skx-metrics.json) and pmu-tools' skx_server_ratios.py;
 *   - E-cores: the TOPDOWN_* events of tools/perf/pmu-events/arch/x86/
 *     alderlake (cpu_atom), sierraforest, meteorlake, lunarlake and
 *     arrowlake, with pmu-tools' adl_grt_ratios.py, srf_ratios.py,
 *     mtl_cmt_ratios.py and lnl_skt_ratios.py for the widths and formulas;
 *   - AMD: tools/perf/pmu-events/arch/x86/amdzen4/pipeline.json and
 *     amdzen5/pipeline.json (PipelineL1 and PipelineL2), the events of
 *     amdzen4/other.json, core.json and branch.json; the AMD format (event =
 *     config:0-7,32-35) and cycles = 0x76 of arch/x86/events/amd/core.c;
 *   - Arm Neoverse: families_arm.c.
 * Thresholds: docs/report.md "Thresholds".
 * Invariants (tests/topdown/test_topdown_table.c checks them): every
 * category has a parent chain ending at level 1; every event but the
 * leader of a TopDown family has a category; every term names an event of
 * its family, and every ratio's terms one counting group; stored level-2
 * values sum to their parent's.
 */
#include "topdown_int.h"

#include "tdrec/cpuid.h"

#include <linux/perf_event.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#define ARRAY_CNT(a) (sizeof(a) / sizeof((a)[0]))

/* Level 1 follows VTune's rule of thumb; retiring and its children are
 * never a bottleneck. */
static const struct tdr_td_category categories[] = {
    {"retiring", NULL, 1, "Retire", 'r', NAN},
    {"bad-spec", NULL, 1, "BadSpc", 's', 0.15},
    {"fe-bound", NULL, 1, "FE-Bnd", 'f', 0.15},
    {"be-bound", NULL, 1, "BE-Bnd", 'b', 0.20},
    {"heavy-ops", "retiring", 2, "heavy", 'h', NAN},
    {"light-ops", "retiring", 2, "light", 'l', NAN},
    {"br-mispredict", "bad-spec", 2, "brmisp", 'm', 0.10},
    {"machine-clears", "bad-spec", 2, "mclear", 'c', 0.10},
    {"fetch-lat", "fe-bound", 2, "fetlat", 'L', 0.10},
    {"fetch-bw", "fe-bound", 2, "fetbw", 'W', 0.10},
    {"mem-bound", "be-bound", 2, "mem", 'M', 0.20},
    {"core-bound", "be-bound", 2, "core", 'C', 0.10},
    /* AMD only: dispatch slots given to the other hardware thread of the
     * core (amdzen4/pipeline.json smt_contention). tdrec's threshold. */
    {"smt-contention", NULL, 1, "SMT", 't', 0.20},
};

/* An event opened by its own sysfs alias; a software event. */
#define PM_EVENT(n, raw, fl, cat)                                                                  \
	{.name = (n), .source = TDR_TD_CORE_ALIAS, .alias = (n), .config = (raw), .flags = (fl),  \
	 .category = (cat)}
#define SW_EVENT(n, cfg, fl) {.name = (n), .source = TDR_TD_SOFTWARE, .config = (cfg), .flags = (fl)}

/* --- Intel perf metrics (Ice Lake+: level 1; Sapphire Rapids+: level 2) ---
 * Group {slots, sampler, metrics...}: slots leads and never samples. */
static const struct tdr_td_event pm_l1_events[] = {
    PM_EVENT("slots", 0x0400, TDR_TD_LEADER, NULL),
    PM_EVENT("topdown-retiring", 0x8000, 0, "retiring"),
    PM_EVENT("topdown-bad-spec", 0x8100, 0, "bad-spec"),
    PM_EVENT("topdown-fe-bound", 0x8200, 0, "fe-bound"),
    PM_EVENT("topdown-be-bound", 0x8300, 0, "be-bound"),
};

static const struct tdr_td_event pm_l2_events[] = {
    PM_EVENT("topdown-heavy-ops", 0x8400, 0, "heavy-ops"),
    PM_EVENT("topdown-br-mispredict", 0x8500, 0, "br-mispredict"),
    PM_EVENT("topdown-fetch-lat", 0x8600, 0, "fetch-lat"),
    PM_EVENT("topdown-mem-bound", 0x8700, 0, "mem-bound"),
};

/* X / slots, and (X - Y) / slots for the derived level-2 siblings. */
#define PM_OVER_SLOTS(cat, ev)                                                                     \
	{cat, false, {{ev, 1.0, false, NULL}}, {{"slots", 1.0, false, NULL}}, 0, NULL}
#define PM_DERIVED(cat, ev, minus)                                                                 \
	{cat,                                                                                      \
	 true,                                                                                     \
	 {{ev, 1.0, false, NULL}, {minus, -1.0, false, NULL}},                                     \
	 {{"slots", 1.0, false, NULL}},                                                            \
	 0,                                                                                        \
	 NULL}

static const struct tdr_td_formula pm_l1_formulas[] = {
    PM_OVER_SLOTS("retiring", "topdown-retiring"),
    PM_OVER_SLOTS("bad-spec", "topdown-bad-spec"),
    PM_OVER_SLOTS("fe-bound", "topdown-fe-bound"),
    PM_OVER_SLOTS("be-bound", "topdown-be-bound"),
};

/* The stored order of level 2 (files written so far have it): the four
 * measured, then the four derived. */
static const struct tdr_td_formula pm_l2_formulas[] = {
    PM_OVER_SLOTS("heavy-ops", "topdown-heavy-ops"),
    PM_OVER_SLOTS("br-mispredict", "topdown-br-mispredict"),
    PM_OVER_SLOTS("fetch-lat", "topdown-fetch-lat"),
    PM_OVER_SLOTS("mem-bound", "topdown-mem-bound"),
    PM_DERIVED("light-ops", "topdown-retiring", "topdown-heavy-ops"),
    PM_DERIVED("machine-clears", "topdown-bad-spec", "topdown-br-mispredict"),
    PM_DERIVED("fetch-bw", "topdown-fe-bound", "topdown-fetch-lat"),
    PM_DERIVED("core-bound", "topdown-be-bound", "topdown-mem-bound"),
};

/* Perf metrics exist wherever the kernel prints their aliases: the
 * aliases decide, an identity only rules out another vendor. */
#define PM_IDENT .vendor = "GenuineIntel", .pmus = {"cpu_core", "cpu"}

static const struct tdr_td_family pm_l1 = {
    .name = "topdown-l1",
    PM_IDENT,
    .event_cnt = ARRAY_CNT(pm_l1_events),
    .events = pm_l1_events,
    .formula_cnt = ARRAY_CNT(pm_l1_formulas),
    .formulas = pm_l1_formulas,
};

static const struct tdr_td_family pm_l2 = {
    .name = "topdown-l2",
    .base = &pm_l1,
    PM_IDENT,
    .event_cnt = ARRAY_CNT(pm_l2_events),
    .events = pm_l2_events,
    .formula_cnt = ARRAY_CNT(pm_l2_formulas),
    .formulas = pm_l2_formulas,
};

/* --- Generic counters: the sampler leads (cycles by default) and the
 * others are members read with PERF_SAMPLE_READ. Slots = W * cycles. */
#define CYCLES_HW(alt)                                                                             \
	{.name = "cycles",                                                                         \
	 .source = TDR_TD_HARDWARE,                                                                \
	 .config = PERF_COUNT_HW_CPU_CYCLES,                                                       \
	 .flags = TDR_TD_LEADER,                                                                   \
	 .config_alt = (alt)}
/* X / (W * cycles) */
#define OVER_WCYC(cat, ev)                                                                         \
	{cat, false, {{ev, 1.0, false, NULL}}, {{"cycles", 1.0, true, NULL}}, 0, NULL}

/* --- Intel Sandy Bridge .. Cascade Lake, level 1 (4-wide). The kernel's
 * aliases, as it prints them (core.c EVENT_ATTR_STR_HT: the second config
 * is the Hyper-Threading text, with any=1). topdown-total-slots is
 * cpu_clk_unhalted.thread (0x3c) times its .scale: the group counts cycles
 * instead (the same count for a task's own counters; docs/plans.md, HT
 * tradeoff) and takes W from that .scale: 4 with HT off, 2 with HT on. */
static const struct tdr_td_event skl_events[] = {
    CYCLES_HW(0),
    TD_ALIAS("topdown-slots-issued", 0x010e, 0, "bad-spec"),
    TD_ALIAS("topdown-slots-retired", 0x02c2, 0, "retiring"),
    TD_ALIAS("topdown-fetch-bubbles", 0x019c, 0, "fe-bound"),
    TD_ALIAS("topdown-recovery-bubbles", 0x0100030d, 0x0120030d, "bad-spec"),
};

/* perf's pre-ICL --topdown: bad-spec = (issued - retired + W * recovery)
 * / slots, backend = 1 - the other three. */
static const struct tdr_td_formula skl_formulas[] = {
    OVER_WCYC("retiring", "topdown-slots-retired"),
    {"bad-spec",
     false,
     {{"topdown-slots-issued", 1.0, false, NULL},
      {"topdown-slots-retired", -1.0, false, NULL},
      {"topdown-recovery-bubbles", 1.0, true, NULL}},
     {{"cycles", 1.0, true, NULL}},
     0,
     NULL},
    OVER_WCYC("fe-bound", "topdown-fetch-bubbles"),
    {"be-bound",
     true,
     {{"cycles", 1.0, true, NULL},
      {"topdown-fetch-bubbles", -1.0, false, NULL},
      {"topdown-slots-issued", -1.0, false, NULL},
      {"topdown-recovery-bubbles", -1.0, true, NULL}},
     {{"cycles", 1.0, true, NULL}},
     0,
     NULL},
};

/* arch/x86/include/asm/intel-family.h: SNB 2A 2D, IVB 3A 3E, HSW 3C 3F
 * 45 46, BDW 3D 47 4F 56, SKL/SKX/CLX/CPX 4E 5E 55, KBL/CFL/CML 8E 9E A5
 * A6. */
static const struct tdr_td_models skl_models[] = {
    {0x2a, 0x2a}, {0x2d, 0x2d}, {0x3a, 0x3a}, {0x3c, 0x3f}, {0x45, 0x47}, {0x4e, 0x4f},
    {0x55, 0x56}, {0x5e, 0x5e}, {0x8e, 0x8e}, {0x9e, 0x9e}, {0xa5, 0xa6},
};

static const struct tdr_td_family intel_skl = {
    .name = "intel-skl",
    .vendor = "GenuineIntel",
    .width = 4,
    .cpu_family = 6,
    .model_cnt = ARRAY_CNT(skl_models),
    .models = skl_models,
    .ident_required = true,
    .pmus = {"cpu"},
    .width_scale = "topdown-total-slots",
    .gate = {"topdown-total-slots"},
    .counters = 4, /* skylakex/counter.json: 4 per thread with HT, 8 without */
    .counters_smt_off = 8,
    .fixed_cycles = true,
    .event_cnt = ARRAY_CNT(skl_events),
    .events = skl_events,
    .formula_cnt = ARRAY_CNT(skl_formulas),
    .formulas = skl_formulas,
};

/* --- Intel E-cores. Gracemont (Alder Lake / Raptor Lake cpu_atom, 5-wide):
 * bad speculation is the remainder (adl_grt_ratios.py). */
static const struct tdr_td_event grt_events[] = {
    CYCLES_HW(0),
    TD_TERMS("topdown_retiring.all", "event=0xc2,umask=0x0", 0xc2, "retiring"),
    TD_TERMS("topdown_fe_bound.all", "event=0x71,umask=0x0", 0x71, "fe-bound"),
    TD_TERMS("topdown_be_bound.all", "event=0x74,umask=0x0", 0x74, "be-bound"),
};

static const struct tdr_td_formula grt_formulas[] = {
    OVER_WCYC("retiring", "topdown_retiring.all"),
    {"bad-spec",
     true,
     {{"cycles", 1.0, true, NULL},
      {"topdown_fe_bound.all", -1.0, false, NULL},
      {"topdown_be_bound.all", -1.0, false, NULL},
      {"topdown_retiring.all", -1.0, false, NULL}},
     {{"cycles", 1.0, true, NULL}},
     0,
     NULL},
    OVER_WCYC("fe-bound", "topdown_fe_bound.all"),
    OVER_WCYC("be-bound", "topdown_be_bound.all"),
};

/* ADL 97 9A, RPL B7 BA BF (intel-family.h). */
static const struct tdr_td_models grt_models[] = {
    {0x97, 0x97}, {0x9a, 0x9a}, {0xb7, 0xb7}, {0xba, 0xba}, {0xbf, 0xbf},
};

static const struct tdr_td_family intel_grt = {
    .name = "gracemont",
    .vendor = "GenuineIntel",
    .width = 5,
    .cpu_family = 6,
    .model_cnt = ARRAY_CNT(grt_models),
    .models = grt_models,
    .ident_required = true,
    .pmus = {"cpu_atom"},
    .counters = 6, /* alderlake cpu_atom JSON: counters 0-5 */
    .fixed_cycles = true,
    .event_cnt = ARRAY_CNT(grt_events),
    .events = grt_events,
    .formula_cnt = ARRAY_CNT(grt_formulas),
    .formulas = grt_formulas,
};

/* Crestmont (Sierra Forest and Grand Ridge "cpu", Meteor Lake and Arrow
 * Lake-U cpu_atom; 6-wide): all four measured (srf_ratios.py). */
static const struct tdr_td_event cmt_events[] = {
    CYCLES_HW(0),
    TD_TERMS("topdown_retiring.all_p", "event=0x72,umask=0x0", 0x72, "retiring"),
    TD_TERMS("topdown_bad_speculation.all_p", "event=0x73,umask=0x0", 0x73, "bad-spec"),
    TD_TERMS("topdown_fe_bound.all_p", "event=0x71,umask=0x0", 0x71, "fe-bound"),
    TD_TERMS("topdown_be_bound.all_p", "event=0x74,umask=0x0", 0x74, "be-bound"),
};

#define ATOM_FORMULAS(prefix)                                                                      \
	OVER_WCYC("retiring", prefix "retiring.all_p"),                                            \
	    OVER_WCYC("bad-spec", prefix "bad_speculation.all_p"),                                 \
	    OVER_WCYC("fe-bound", prefix "fe_bound.all_p"),                                        \
	    OVER_WCYC("be-bound", prefix "be_bound.all_p")

static const struct tdr_td_formula cmt_formulas[] = {ATOM_FORMULAS("topdown_")};

/* MTL AA AC, SRF AF, ARL-U B5, GRR B6 (intel-family.h). */
static const struct tdr_td_models cmt_models[] = {
    {0xaa, 0xaa}, {0xac, 0xac}, {0xaf, 0xaf}, {0xb5, 0xb6},
};

static const struct tdr_td_family intel_cmt = {
    .name = "crestmont",
    .vendor = "GenuineIntel",
    .width = 6,
    .cpu_family = 6,
    .model_cnt = ARRAY_CNT(cmt_models),
    .models = cmt_models,
    .ident_required = true,
    .pmus = {"cpu", "cpu_atom"},
    .counters = 8, /* sierraforest JSON: counters 0-7 */
    .fixed_cycles = true,
    .event_cnt = ARRAY_CNT(cmt_events),
    .events = cmt_events,
    .formula_cnt = ARRAY_CNT(cmt_formulas),
    .formulas = cmt_formulas,
};

/* Skymont (Lunar Lake and Arrow Lake cpu_atom; 8-wide): the general-counter
 * forms (_P) of the events its fixed counters 4-6 also count
 * (lnl_skt_ratios.py; the kernel's lnl_hybrid_events_attrs). */
static const struct tdr_td_event skt_events[] = {
    CYCLES_HW(0),
    TD_TERMS("topdown_retiring.all_p", "event=0xc2,umask=0x2", 0x02c2, "retiring"),
    TD_TERMS("topdown_bad_speculation.all_p", "event=0x73,umask=0x0", 0x73, "bad-spec"),
    TD_TERMS("topdown_fe_bound.all_p", "event=0x9c,umask=0x1", 0x019c, "fe-bound"),
    TD_TERMS("topdown_be_bound.all_p", "event=0xa4,umask=0x2", 0x02a4, "be-bound"),
};

static const struct tdr_td_formula skt_formulas[] = {ATOM_FORMULAS("topdown_")};

/* LNL BD, ARL-H C5, ARL-S C6 (intel-family.h). */
static const struct tdr_td_models skt_models[] = {{0xbd, 0xbd}, {0xc5, 0xc6}};

static const struct tdr_td_family intel_skt = {
    .name = "skymont",
    .vendor = "GenuineIntel",
    .width = 8,
    .cpu_family = 6,
    .model_cnt = ARRAY_CNT(skt_models),
    .models = skt_models,
    .ident_required = true,
    .pmus = {"cpu_atom"},
    .counters = 8,
    .fixed_cycles = true,
    .event_cnt = ARRAY_CNT(skt_events),
    .events = skt_events,
    .formula_cnt = ARRAY_CNT(skt_formulas),
    .formulas = skt_formulas,
};

/* --- AMD Zen 4 (family 0x19, 6-wide) and Zen 5/6 (family 0x1a, 8-wide):
 * PipelineL1. Six events = all six general counters (cycles has no fixed
 * counter on AMD). */
static const struct tdr_td_event zen_events[] = {
    CYCLES_HW(0x76),
    TD_TERMS("de_no_dispatch_per_slot.no_ops_from_frontend", "event=0x1a0,umask=0x1",
	  0x1000001a0ull, "fe-bound"),
    TD_TERMS("de_no_dispatch_per_slot.backend_stalls", "event=0x1a0,umask=0x1e", 0x100001ea0ull,
	  "be-bound"),
    TD_TERMS("de_no_dispatch_per_slot.smt_contention", "event=0x1a0,umask=0x60", 0x1000060a0ull,
	  "smt-contention"),
    TD_TERMS("de_src_op_disp.all", "event=0xaa,umask=0x7", 0x07aa, "bad-spec"),
    TD_TERMS("ex_ret_ops", "event=0xc1", 0xc1, "retiring"),
};

static const struct tdr_td_formula zen_formulas[] = {
    OVER_WCYC("retiring", "ex_ret_ops"),
    {"bad-spec",
     false,
     {{"de_src_op_disp.all", 1.0, false, NULL}, {"ex_ret_ops", -1.0, false, NULL}},
     {{"cycles", 1.0, true, NULL}},
     0,
     NULL},
    OVER_WCYC("fe-bound", "de_no_dispatch_per_slot.no_ops_from_frontend"),
    OVER_WCYC("be-bound", "de_no_dispatch_per_slot.backend_stalls"),
    OVER_WCYC("smt-contention", "de_no_dispatch_per_slot.smt_contention"),
};

/* perf's mapfile.csv: family 25 models 00-0F and 20-5F are Zen 3 (no
 * PipelineL1), the others Zen 4. */
static const struct tdr_td_models zen4_models[] = {{0x10, 0x1f}, {0x60, 0xff}};

#define ZEN_COMMON                                                                                 \
	.vendor = "AuthenticAMD", .ident_required = true, .pmus = {"cpu"},                         \
	.counters = 6, /* amd/core.c: 6 core counters, none fixed */                               \
	    .event_cnt = ARRAY_CNT(zen_events), .events = zen_events,                              \
	.formula_cnt = ARRAY_CNT(zen_formulas), .formulas = zen_formulas

static const struct tdr_td_family amd_zen4 = {
    .name = "amd-zen4",
    .width = 6,
    .cpu_family = 0x19,
    .model_cnt = ARRAY_CNT(zen4_models),
    .models = zen4_models,
    ZEN_COMMON,
};

/* Zen 5 and Zen 6: every model of family 0x1a (amdzen5, amdzen6). */
static const struct tdr_td_family amd_zen5 = {
    .name = "amd-zen5",
    .width = 8,
    .cpu_family = 0x1a,
    ZEN_COMMON,
};

/* --- AMD level 2 (PipelineL2 of amdzen4/pipeline.json and
 * amdzen5/pipeline.json), counting only: the level-1 group above plus two
 * groups the kernel multiplexes with it. perf's level-2 metrics are
 * products of a level-1 fraction and a ratio of other events; tdrec keeps
 * every ratio inside one group, so a group's share of time cancels in it:
 *   group 1 {ls_not_halted_cyc, no_ops_from_frontend with cmask=W,
 *            ex_ret_ucode_ops}: fetch latency = W * cnt(cmask=W) / (W *
 *            ls_not_halted_cyc), microcode = ex_ret_ucode_ops / (W *
 *            ls_not_halted_cyc) (perf: retiring * ucode / ret_ops, the same
 *            value when counted together);
 *   group 2 {ex_no_retire.not_complete, .load_not_complete, ex_ret_brn_misp,
 *            the resync event}: memory = backend * load_not_complete /
 *            not_complete, mispredicts = bad_spec * misp / (misp + resync).
 * ls_not_halted_cyc is cycles (0x76, amd/core.c), opened by its raw
 * config so that the file names it apart from group 0's cycles. */
#define TERMS_G(n, t, raw, cat, grp)                                                               \
	{.name = (n), .source = TDR_TD_CORE_TERMS, .terms = (t), .config = (raw),                  \
	 .category = (cat), .group = (grp)}
/* Group 1 (frontend and heavy operations, led by cycles) and group 2 (the
 * backend and bad speculation); Zen 4 and Zen 5 differ in the frontend
 * cmask and the resync event. */
#define ZEN_L2_GROUP1(cmask_terms, cmask_raw)                                                      \
	TERMS_G("ls_not_halted_cyc", "event=0x76", 0x76, NULL, 1),                                 \
	    TERMS_G("de_no_dispatch_per_slot.no_ops_from_frontend.cmask_w", cmask_terms,           \
		    cmask_raw, "fetch-lat", 1),                                                    \
	    TERMS_G("ex_ret_ucode_ops", "event=0x1c2", 0x1000000c2ull, "heavy-ops", 1)
#define ZEN_L2_GROUP2(resync, resync_terms, resync_raw)                                            \
	TERMS_G("ex_no_retire.not_complete", "event=0xd6,umask=0x2", 0x02d6, "core-bound", 2),     \
	    TERMS_G("ex_no_retire.load_not_complete", "event=0xd6,umask=0xa2", 0xa2d6,             \
		    "mem-bound", 2),                                                               \
	    TERMS_G("ex_ret_brn_misp", "event=0xc3", 0xc3, "br-mispredict", 2),                    \
	    TERMS_G(resync, resync_terms, resync_raw, "machine-clears", 2)
#define ZEN_L2_EVENTS(cmask_terms, cmask_raw, resync, resync_terms, resync_raw)                    \
	ZEN_L2_GROUP1(cmask_terms, cmask_raw), ZEN_L2_GROUP2(resync, resync_terms, resync_raw)

/* Counting (tdrec stat): the groups above. */
static const struct tdr_td_event zen4_l2_count_events[] = {
    ZEN_L2_EVENTS("event=0x1a0,umask=0x1,cmask=0x6", 0x1060001a0ull, "resyncs_or_nc_redirects",
		  "event=0x96", 0x96),
};

static const struct tdr_td_event zen5_l2_count_events[] = {
    ZEN_L2_EVENTS("event=0x1a0,umask=0x1,cmask=0x8", 0x1080001a0ull, "bp_redirects.resync",
		  "event=0x9f,umask=0x1", 0x019f),
};

/* Sampling (tdrec record --plan amd-zen4-l2): every group samples on
 * cycles, so that each group's samples stand for its share of the time
 * (docs/plans.md "Level 2 in record"). Group 1 leads with cycles already;
 * group 2 gets cycles (0x76 again) as its sampler, named apart because
 * names key a file's events (no formula uses it). 5 counters of 6. */
#define ZEN_L2_SAMPLE_EVENTS(cmask_terms, cmask_raw, resync, resync_terms, resync_raw)             \
	ZEN_L2_GROUP1(cmask_terms, cmask_raw),                                                     \
	    TERMS_G("ls_not_halted_cyc.g2", "event=0x76", 0x76, NULL, 2),                          \
	    ZEN_L2_GROUP2(resync, resync_terms, resync_raw)

static const struct tdr_td_event zen4_l2_events[] = {
    ZEN_L2_SAMPLE_EVENTS("event=0x1a0,umask=0x1,cmask=0x6", 0x1060001a0ull,
			 "resyncs_or_nc_redirects", "event=0x96", 0x96),
};

static const struct tdr_td_event zen5_l2_events[] = {
    ZEN_L2_SAMPLE_EVENTS("event=0x1a0,umask=0x1,cmask=0x8", 0x1080001a0ull, "bp_redirects.resync",
			 "event=0x9f,umask=0x1", 0x019f),
};

#define NO_TERMS {{NULL, 0, false, NULL}}
#define T(ev, c) {ev, c, false, NULL}
#define TW(ev, c) {ev, c, true, NULL}
#define ZEN_FE "de_no_dispatch_per_slot.no_ops_from_frontend"
#define ZEN_FE_W "de_no_dispatch_per_slot.no_ops_from_frontend.cmask_w"
#define ZEN_BE "de_no_dispatch_per_slot.backend_stalls"
#define ZEN_BAD_SPEC {{T("de_src_op_disp.all", 1), T("ex_ret_ops", -1)}, {TW("cycles", 1)}}
/* bad_spec * misp / (misp + resync), bad_spec * resync / (misp + resync) */
#define ZEN_RESYNC_PARTS(resync)                                                                   \
	{{ZEN_BAD_SPEC, {{T("ex_ret_brn_misp", 1)}, {T("ex_ret_brn_misp", 1), T(resync, 1)}}}},    \
	    {{ZEN_BAD_SPEC, {{T(resync, 1)}, {T("ex_ret_brn_misp", 1), T(resync, 1)}}}}

static const struct tdr_td_part zen_l2_parts[] = {
    /* 0: fetch-bw = fe-bound - fetch-lat */
    {{{{T(ZEN_FE, 1)}, {TW("cycles", 1)}}}},
    {{{{TW(ZEN_FE_W, -1)}, {TW("ls_not_halted_cyc", 1)}}}},
    /* 2: mem-bound = be-bound * load_not_complete / not_complete */
    {{{{T(ZEN_BE, 1)}, {TW("cycles", 1)}},
      {{T("ex_no_retire.load_not_complete", 1)}, {T("ex_no_retire.not_complete", 1)}}}},
    /* 3: core-bound = be-bound * (not_complete - load_not_complete) / not_complete */
    {{{{T(ZEN_BE, 1)}, {TW("cycles", 1)}},
      {{T("ex_no_retire.not_complete", 1), T("ex_no_retire.load_not_complete", -1)},
       {T("ex_no_retire.not_complete", 1)}}}},
    /* 4: light-ops (fast path) = retiring - microcode */
    {{{{T("ex_ret_ops", 1)}, {TW("cycles", 1)}}}},
    {{{{T("ex_ret_ucode_ops", -1)}, {TW("ls_not_halted_cyc", 1)}}}},
};

static const struct tdr_td_part zen4_l2_resync_parts[] = {ZEN_RESYNC_PARTS("resyncs_or_nc_redirects")};
static const struct tdr_td_part zen5_l2_resync_parts[] = {ZEN_RESYNC_PARTS("bp_redirects.resync")};

#define ZEN_L2_FORMULAS(resync_parts)                                                              \
	{"heavy-ops", false, {T("ex_ret_ucode_ops", 1)}, {TW("ls_not_halted_cyc", 1)}, 0, NULL},   \
	    {"light-ops", false, NO_TERMS, NO_TERMS, 2, &zen_l2_parts[4]},                         \
	    {"br-mispredict", false, NO_TERMS, NO_TERMS, 1, &resync_parts[0]},                     \
	    {"machine-clears", false, NO_TERMS, NO_TERMS, 1,                                       \
	     &resync_parts[1]},                                                                    \
	    {"fetch-lat", false, {TW(ZEN_FE_W, 1)}, {TW("ls_not_halted_cyc", 1)}, 0, NULL},        \
	    {"fetch-bw", false, NO_TERMS, NO_TERMS, 2, &zen_l2_parts[0]},                          \
	    {"mem-bound", false, NO_TERMS, NO_TERMS, 1, &zen_l2_parts[2]},                         \
	    {"core-bound", false, NO_TERMS, NO_TERMS, 1, &zen_l2_parts[3]}

static const struct tdr_td_formula zen4_l2_formulas[] = {ZEN_L2_FORMULAS(zen4_l2_resync_parts)};
static const struct tdr_td_formula zen5_l2_formulas[] = {ZEN_L2_FORMULAS(zen5_l2_resync_parts)};

static const struct tdr_td_family amd_zen4_l2 = {
    .name = "amd-zen4-l2",
    .base = &amd_zen4,
    .vendor = "AuthenticAMD",
    .width = 6,
    .cpu_family = 0x19,
    .model_cnt = ARRAY_CNT(zen4_models),
    .models = zen4_models,
    .ident_required = true,
    .pmus = {"cpu"},
    .counting_only = true,
    .counters = 6,
    .event_cnt = ARRAY_CNT(zen4_l2_events),
    .events = zen4_l2_events,
    .count_event_cnt = ARRAY_CNT(zen4_l2_count_events),
    .count_events = zen4_l2_count_events,
    .formula_cnt = ARRAY_CNT(zen4_l2_formulas),
    .formulas = zen4_l2_formulas,
};

static const struct tdr_td_family amd_zen5_l2 = {
    .name = "amd-zen5-l2",
    .base = &amd_zen5,
    .vendor = "AuthenticAMD",
    .width = 8,
    .cpu_family = 0x1a,
    .ident_required = true,
    .pmus = {"cpu"},
    .counting_only = true,
    .counters = 6,
    .event_cnt = ARRAY_CNT(zen5_l2_events),
    .events = zen5_l2_events,
    .count_event_cnt = ARRAY_CNT(zen5_l2_count_events),
    .count_events = zen5_l2_count_events,
    .formula_cnt = ARRAY_CNT(zen5_l2_formulas),
    .formulas = zen5_l2_formulas,
};

/* --- Intel Skylake-SP / Cascade Lake level 2 (perf's skylakex/
 * skx-metrics.json TopdownL2 nodes; events and encodings of skylakex/
 * frontend.json, pipeline.json, memory.json). Two more groups beside the
 * level-1 group, each led by cycles of its own (the fixed counter, named
 * apart because names key a file's events):
 *   group 1 {cycles.g1, IDQ_UOPS_NOT_DELIVERED.CYCLES_0_UOPS_DELIV.CORE,
 *            BR_MISP_RETIRED.ALL_BRANCHES, MACHINE_CLEARS.COUNT}: 3 general
 *            counters;
 *   group 2 {cycles.g2, CYCLE_ACTIVITY.STALLS_MEM_ANY, EXE_ACTIVITY.
 *            BOUND_ON_STORES, CYCLE_ACTIVITY.STALLS_TOTAL, EXE_ACTIVITY.
 *            1_PORTS_UTIL, .2_PORTS_UTIL, UOPS_RETIRED.RETIRE_SLOTS,
 *            UOPS_RETIRED.MACRO_FUSED, instructions}: 7 general counters
 *            and fixed counter 0, so Hyper-Threading must be off (8 per
 *            thread; 4 with it on: the plan says so, docs/plans.md). */
#define SKL_TERMS_G(n, t, raw, cat, grp) TERMS_G(n, t, raw, cat, grp)
#define HW_G(n, cfg, cat, grp)                                                                     \
	{.name = (n), .source = TDR_TD_HARDWARE, .config = (cfg), .category = (cat), .group = (grp)}
static const struct tdr_td_event skl_l2_events[] = {
    HW_G("cycles.g1", PERF_COUNT_HW_CPU_CYCLES, NULL, 1),
    SKL_TERMS_G("idq_uops_not_delivered.cycles_0_uops_deliv.core",
		"event=0x9c,umask=0x1,cmask=0x4", 0x0400019c, "fetch-lat", 1),
    SKL_TERMS_G("br_misp_retired.all_branches", "event=0xc5,umask=0x0", 0xc5, "br-mispredict", 1),
    SKL_TERMS_G("machine_clears.count", "event=0xc3,umask=0x1,cmask=0x1,edge", 0x010401c3,
		"machine-clears", 1),
    HW_G("cycles.g2", PERF_COUNT_HW_CPU_CYCLES, NULL, 2),
    SKL_TERMS_G("cycle_activity.stalls_mem_any", "event=0xa3,umask=0x14,cmask=0x14", 0x140014a3,
		"mem-bound", 2),
    SKL_TERMS_G("exe_activity.bound_on_stores", "event=0xa6,umask=0x40", 0x40a6, "mem-bound", 2),
    SKL_TERMS_G("cycle_activity.stalls_total", "event=0xa3,umask=0x4,cmask=0x4", 0x040004a3,
		"core-bound", 2),
    SKL_TERMS_G("exe_activity.1_ports_util", "event=0xa6,umask=0x2", 0x02a6, "core-bound", 2),
    SKL_TERMS_G("exe_activity.2_ports_util", "event=0xa6,umask=0x4", 0x04a6, "core-bound", 2),
    SKL_TERMS_G("uops_retired.retire_slots.g2", "event=0xc2,umask=0x2", 0x02c2, "heavy-ops", 2),
    SKL_TERMS_G("uops_retired.macro_fused", "event=0xc2,umask=0x4", 0x04c2, "heavy-ops", 2),
    HW_G("instructions", PERF_COUNT_HW_INSTRUCTIONS, "heavy-ops", 2),
};

#define SKL_BE                                                                                     \
	{{{"cycles", 1, true, NULL}, {"topdown-fetch-bubbles", -1, false, NULL},                   \
	  {"topdown-slots-issued", -1, false, NULL}, {"topdown-recovery-bubbles", -1, true, NULL}}, \
	 {{"cycles", 1, true, NULL}}}
#define SKL_BAD_SPEC                                                                               \
	{{{"topdown-slots-issued", 1, false, NULL}, {"topdown-slots-retired", -1, false, NULL},    \
	  {"topdown-recovery-bubbles", 1, true, NULL}},                                            \
	 {{"cycles", 1, true, NULL}}}
#define SKL_MISP "br_misp_retired.all_branches"
#define SKL_CLEARS "machine_clears.count"
#define SKL_CYC0 "idq_uops_not_delivered.cycles_0_uops_deliv.core"
/* tma_retiring = retire slots / (W * cycles), group 0: the weight of
 * 2_PORTS_UTIL in the memory-bound denominator. */
static const struct tdr_td_ratio skl_retiring = {{{"topdown-slots-retired", 1, false, NULL}},
						 {{"cycles", 1, true, NULL}}};
/* sign * (STALLS_MEM_ANY + BOUND_ON_STORES) / (STALLS_TOTAL + 1_PORTS_UTIL
 * + tma_retiring * 2_PORTS_UTIL + BOUND_ON_STORES), group 2 */
#define SKL_MEM_RATIO(sign)                                                                        \
	{{{"cycle_activity.stalls_mem_any", sign, false, NULL},                                    \
	  {"exe_activity.bound_on_stores", sign, false, NULL}},                                    \
	 {{"cycle_activity.stalls_total", 1, false, NULL},                                         \
	  {"exe_activity.1_ports_util", 1, false, NULL},                                           \
	  {"exe_activity.2_ports_util", 1, false, &skl_retiring},                                  \
	  {"exe_activity.bound_on_stores", 1, false, NULL}}}
/* tma_heavy_operations = (RETIRE_SLOTS + MACRO_FUSED - INST_RETIRED.ANY) /
 * slots, group 2 */
#define SKL_HEAVY(sign)                                                                            \
	{{{"uops_retired.retire_slots.g2", sign, false, NULL},                                     \
	  {"uops_retired.macro_fused", sign, false, NULL},                                         \
	  {"instructions", -(sign), false, NULL}},                                                 \
	 {{"cycles.g2", 1, true, NULL}}}

static const struct tdr_td_part skl_l2_parts[] = {
    /* 0, 1: machine-clears = bad_spec - bad_spec * misp / (misp + clears) */
    {{SKL_BAD_SPEC}},
    {{SKL_BAD_SPEC, {{T(SKL_MISP, -1)}, {T(SKL_MISP, 1), T(SKL_CLEARS, 1)}}}},
    /* 2: br-mispredict = bad_spec * misp / (misp + clears) */
    {{SKL_BAD_SPEC, {{T(SKL_MISP, 1)}, {T(SKL_MISP, 1), T(SKL_CLEARS, 1)}}}},
    /* 3, 4: fetch-bw = fe-bound - fetch-lat */
    {{{{T("topdown-fetch-bubbles", 1)}, {TW("cycles", 1)}}}},
    {{{{T(SKL_CYC0, -4)}, {TW("cycles.g1", 1)}}}},
    /* 5: mem-bound = be-bound * memory ratio */
    {{SKL_BE, SKL_MEM_RATIO(1)}},
    /* 6, 7: core-bound = be-bound - mem-bound */
    {{SKL_BE}},
    {{SKL_BE, SKL_MEM_RATIO(-1)}},
    /* 8, 9: light-ops = retiring - heavy-ops */
    {{{{T("topdown-slots-retired", 1)}, {TW("cycles", 1)}}}},
    {{SKL_HEAVY(-1)}},
};

static const struct tdr_td_formula skl_l2_formulas[] = {
    {"heavy-ops",
     false,
     {T("uops_retired.retire_slots.g2", 1), T("uops_retired.macro_fused", 1),
      T("instructions", -1)},
     {TW("cycles.g2", 1)},
     0,
     NULL},
    {"light-ops", true, NO_TERMS, NO_TERMS, 2, &skl_l2_parts[8]},
    {"br-mispredict", false, NO_TERMS, NO_TERMS, 1, &skl_l2_parts[2]},
    {"machine-clears", true, NO_TERMS, NO_TERMS, 2, &skl_l2_parts[0]},
    /* tma_fetch_latency = 4 * CYCLES_0_UOPS_DELIV.CORE / slots: perf's 4
     * is the pipeline width of the core, not the .scale */
    {"fetch-lat", false, {T(SKL_CYC0, 4)}, {TW("cycles.g1", 1)}, 0, NULL},
    {"fetch-bw", true, NO_TERMS, NO_TERMS, 2, &skl_l2_parts[3]},
    {"mem-bound", false, NO_TERMS, NO_TERMS, 1, &skl_l2_parts[5]},
    {"core-bound", true, NO_TERMS, NO_TERMS, 2, &skl_l2_parts[6]},
};

static const struct tdr_td_family intel_skl_l2 = {
    .name = "intel-skl-l2",
    .base = &intel_skl,
    .vendor = "GenuineIntel",
    .width = 4,
    .cpu_family = 6,
    .model_cnt = ARRAY_CNT(skl_models),
    .models = skl_models,
    .ident_required = true,
    .pmus = {"cpu"},
    .width_scale = "topdown-total-slots",
    .gate = {"topdown-total-slots"},
    .counting_only = true,
    .counters = 4,
    .counters_smt_off = 8,
    .fixed_cycles = true,
    .event_cnt = ARRAY_CNT(skl_l2_events),
    .events = skl_l2_events,
    .formula_cnt = ARRAY_CNT(skl_l2_formulas),
    .formulas = skl_l2_formulas,
};

/* --- Software: no categories. Sampling: cpu-clock leads and samples (the
 * plan drops the member a software -e sampler duplicates); counting has
 * no sampler and counts what a run summary needs. */
static const struct tdr_td_event sw_sample_events[] = {
    SW_EVENT("cpu-clock", PERF_COUNT_SW_CPU_CLOCK, TDR_TD_LEADER),
    SW_EVENT("task-clock", PERF_COUNT_SW_TASK_CLOCK, 0),
    SW_EVENT("page-faults", PERF_COUNT_SW_PAGE_FAULTS, 0),
    SW_EVENT("context-switches", PERF_COUNT_SW_CONTEXT_SWITCHES, 0),
};

static const struct tdr_td_event sw_count_events[] = {
    SW_EVENT("task-clock", PERF_COUNT_SW_TASK_CLOCK, TDR_TD_LEADER),
    SW_EVENT("context-switches", PERF_COUNT_SW_CONTEXT_SWITCHES, 0),
    SW_EVENT("cpu-migrations", PERF_COUNT_SW_CPU_MIGRATIONS, 0),
    SW_EVENT("page-faults", PERF_COUNT_SW_PAGE_FAULTS, 0),
};

static const struct tdr_td_family software = {
    .name = "software",
    .event_cnt = ARRAY_CNT(sw_sample_events),
    .events = sw_sample_events,
    .count_event_cnt = ARRAY_CNT(sw_count_events),
    .count_events = sw_count_events,
};

/* Best first: the order plans are tried in under "auto", and the order
 * format/meta.c looks for a family whose events a file has. */
static const struct tdr_td_family *const families[] = {
    &pm_l2,	    &pm_l1,	    &intel_skl_l2,  &intel_skl,	    &intel_grt,	    &intel_cmt,
    &intel_skt,	    &amd_zen4_l2,   &amd_zen4,	    &amd_zen5_l2,   &amd_zen5,	    &tdr_td_arm_n2,
    &tdr_td_arm_v1, &tdr_td_arm_v2, &tdr_td_arm_n3, &tdr_td_arm_v3, &software,
};

_Static_assert(ARRAY_CNT(families) == TDR_TD_FAMILY_CNT, "TDR_TD_FAMILY_CNT is the table's size");

size_t tdr_topdown_category_cnt(void)
{
	return ARRAY_CNT(categories);
}

const struct tdr_td_category *tdr_topdown_category_at(size_t idx)
{
	return idx < ARRAY_CNT(categories) ? &categories[idx] : NULL;
}

const struct tdr_td_category *tdr_topdown_category(const char *key)
{
	for (size_t i = 0; key && i < ARRAY_CNT(categories); i++)
		if (!strcmp(categories[i].key, key))
			return &categories[i];
	return NULL;
}

double tdr_topdown_threshold(const char *key)
{
	const struct tdr_td_category *c = tdr_topdown_category(key);

	return c ? c->threshold : NAN;
}

size_t tdr_topdown_family_cnt(void)
{
	return ARRAY_CNT(families);
}

const struct tdr_td_family *tdr_topdown_family_at(size_t idx)
{
	return idx < ARRAY_CNT(families) ? families[idx] : NULL;
}

const struct tdr_td_family *tdr_topdown_family(const char *name)
{
	for (size_t i = 0; name && i < ARRAY_CNT(families); i++)
		if (!strcmp(families[i]->name, name))
			return families[i];
	return NULL;
}

/* A family's own event list for counting or sampling. */
static size_t own_events(const struct tdr_td_family *f, bool counting,
			 const struct tdr_td_event **ev)
{
	if (counting && f->count_events) {
		*ev = f->count_events;
		return f->count_event_cnt;
	}
	*ev = f->events;
	return f->event_cnt;
}

size_t tdr_td_family__event_cnt(const struct tdr_td_family *f, bool counting)
{
	const struct tdr_td_event *ev;

	return f ? tdr_td_family__event_cnt(f->base, counting) + own_events(f, counting, &ev) : 0;
}

const struct tdr_td_event *tdr_td_family__event(const struct tdr_td_family *f, bool counting,
						size_t idx)
{
	const struct tdr_td_event *ev;
	size_t below, own;

	if (!f)
		return NULL;
	below = tdr_td_family__event_cnt(f->base, counting);
	if (idx < below)
		return tdr_td_family__event(f->base, counting, idx);
	own = own_events(f, counting, &ev);
	return idx - below < own ? &ev[idx - below] : NULL;
}

size_t tdr_td_family__formula_cnt(const struct tdr_td_family *f)
{
	return f ? tdr_td_family__formula_cnt(f->base) + f->formula_cnt : 0;
}

const struct tdr_td_formula *tdr_td_family__formula(const struct tdr_td_family *f, size_t idx)
{
	size_t below;

	if (!f)
		return NULL;
	below = tdr_td_family__formula_cnt(f->base);
	if (idx < below)
		return tdr_td_family__formula(f->base, idx);
	return idx - below < f->formula_cnt ? &f->formulas[idx - below] : NULL;
}

double tdr_td_family__coef_w(const struct tdr_td_family *f, const struct tdr_td_term *t,
			     uint32_t width)
{
	(void)f;
	return t->per_width ? t->coef * (double)width : t->coef;
}

static bool model_in(const struct tdr_td_family *f, uint32_t model)
{
	for (size_t i = 0; i < f->model_cnt; i++)
		if (model >= f->models[i].first && model <= f->models[i].last)
			return true;
	return !f->model_cnt;
}

bool tdr_td_family__matches(const struct tdr_td_family *f, const struct tdr_cpuid *cpu)
{
	if (!f->vendor)
		return true;
	if (!cpu || !cpu->known)
		return !f->ident_required;
	/* arm64: the models are MIDR part numbers (vendor "ARM" is
	 * implementer 0x41, tdrec/cpuid.h). */
	return !strcmp(cpu->vendor, f->vendor) && (!f->cpu_family || cpu->family == f->cpu_family) &&
	       model_in(f, cpu->midr ? tdr_cpuid_arm_part(cpu) : cpu->model);
}

bool tdr_td_family__runs_on(const struct tdr_td_family *f, const char *pmu)
{
	for (size_t i = 0; pmu && i < TDR_TD_MAX_PMUS && f->pmus[i]; i++) {
		size_t n = strlen(f->pmus[i]);

		if (n && f->pmus[i][n - 1] == '*' ? !strncmp(f->pmus[i], pmu, n - 1)
						  : !strcmp(f->pmus[i], pmu))
			return true;
	}
	return false;
}

const struct tdr_td_family *tdr_topdown_family_for_cpu(const struct tdr_cpuid *cpu,
						       const char *pmu)
{
	for (size_t i = 0; i < ARRAY_CNT(families); i++) {
		const struct tdr_td_family *f = families[i];

		/* Counting-only families never sampled a file. */
		if (f->formula_cnt && !f->counting_only && tdr_td_family__matches(f, cpu) &&
		    (!pmu || tdr_td_family__runs_on(f, pmu)))
			return f;
	}
	return NULL;
}

/* Event of f (or its base) that (type, config) names. */
static const struct tdr_td_event *family_event(const struct tdr_td_family *f, bool hw,
					       uint64_t config)
{
	for (const struct tdr_td_family *g = f; g; g = g->base) {
		for (size_t j = 0; j < g->event_cnt; j++) {
			const struct tdr_td_event *e = &g->events[j];
			bool raw = e->source == TDR_TD_CORE_ALIAS || e->source == TDR_TD_CORE_TERMS;

			if (hw && e->source == TDR_TD_HARDWARE && e->config == config)
				return e;
			if (!hw && raw && e->config == config)
				return e;
			if (!hw && (raw || e->source == TDR_TD_HARDWARE) && e->config_alt &&
			    e->config_alt == config)
				return e;
		}
	}
	return NULL;
}

const struct tdr_td_event *tdr_topdown_event_by_attr(const struct tdr_cpuid *cpu, uint32_t type,
						     uint64_t config)
{
	bool hw = type == PERF_TYPE_HARDWARE;
	const struct tdr_td_event *e;

	if (!hw && type != PERF_TYPE_RAW && type < PERF_TYPE_MAX)
		return NULL;
	if (hw)
		config &= 0xffffffffu; /* bits 32-63: the hybrid PMU type */
	/* The families for this CPU first. */
	for (size_t i = 0; cpu && cpu->known && i < ARRAY_CNT(families); i++) {
		if (families[i]->vendor && !families[i]->counting_only &&
		    tdr_td_family__matches(families[i], cpu) &&
		    (e = family_event(families[i], hw, config)))
			return e;
	}
	/* Else any family of the vendor (every family without one). */
	for (size_t i = 0; i < ARRAY_CNT(families); i++) {
		const struct tdr_td_family *f = families[i];

		if ((cpu && cpu->vendor[0] && f->vendor && strcmp(cpu->vendor, f->vendor)) ||
		    f->counting_only)
			continue;
		if ((e = family_event(f, hw, config)))
			return e;
	}
	return NULL;
}

const struct tdr_td_event *tdr_topdown_event_by_raw(const char *vendor, uint64_t config)
{
	struct tdr_cpuid cpu = {0};

	if (vendor)
		snprintf(cpu.vendor, sizeof(cpu.vendor), "%s", vendor);
	return tdr_topdown_event_by_attr(vendor ? &cpu : NULL, PERF_TYPE_RAW, config);
}
