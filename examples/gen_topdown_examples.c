/*
 * examples/gen_topdown_examples.c - write the synthetic example recordings
 * shipped in examples/: one perf.data file per generic-counter TopDown
 * family, and the small ELF file their samples point into.
 *
 * Usage: gen_topdown_examples OUTDIR
 *   writes OUTDIR/amd-zen4.perf.data, amd-zen5.perf.data,
 *   amd-zen4-l2.perf.data (three sampling groups),
 *   intel-skylake-sp.perf.data, intel-skylake-sp-l2.perf.data (three
 *   sampling groups), intel-sierra-forest.perf.data,
 *   intel-alder-lake.perf.data, intel-arrow-lake.perf.data,
 *   intel-meteor-lake.perf.data (hybrid: a cpu_core and a cpu_atom
 *   group), arm-neoverse-v2.perf.data (every
 *   event on the armv8_pmuv3_0 PMU) and OUTDIR/synthetic-demo.elf.
 *
 * Why synthetic: no machine of the project has these PMUs, yet a newcomer
 * should see what `tdrec report` gives on them. Each file is laid out as
 * `perf record -e '{cycles,EVENTS...}:S' -c 100000 -- ./synthetic-demo`
 * writes it on that CPU (tests/parser/pd_writer.c, records from
 * tests/support/synth.c): the cycles leader (PERF_TYPE_HARDWARE) samples,
 * the members are raw configs of the core PMU (type 4) under perf's event
 * names, every attr has PERF_SAMPLE_READ with PERF_FORMAT_GROUP | ID, and
 * the CPUID header is that CPU's. The counts are invented: each function
 * has one fixed delta vector per sample, so its categories are round
 * numbers a test can compute by hand (tests/report/test_examples.c), and
 * one function per file (counter_skew) has counters that do not add up to
 * the slots, so a category comes out below 0 or above 100%.
 * Nothing hides that they are made up: HOSTNAME, OSRELEASE, VERSION,
 * CPUDESC and the command line say "synthetic", and so does the README.
 *
 * The samples resolve on any machine: their mapping is synthetic-demo.elf,
 * a relative path (the kernel only writes absolute ones) that tdrec report
 * looks up next to the recording (docs/report.md "Rows"); its build-id is
 * in the BUILD_ID header. The ELF holds only a symbol table and code of
 * nops; it is written here byte for byte, so the files are the same on
 * every machine (ctest test_examples_regenerate compares them).
 * Only the test helpers' code is shared (they need tdr_format for a
 * function the generator does not call).
 */
#include <linux/perf_event.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "parser/pd_writer.h"
#include "support/synth.h"

#define ELF_NAME "synthetic-demo.elf"
#define TEXT_VADDR 0x400000ull /* where the ELF's one PT_LOAD starts */
#define TEXT_OFF 0x100u	       /* .text in the file */
#define FUNC_SZ 0x40u
#define PERIOD 100000u
#define PER_FUNC 30 /* samples per function: the report's default --min-samples */
#define PID 4242
#define MAX_EV 20
#define MAX_FN 12
#define ATTR_SIZE 128 /* PERF_ATTR_SIZE_VER7: the same bytes whatever the headers,
		       * and perf 6.1 reads it (it refuses larger attrs) */

/* The functions of the ELF, in address order. */
static const char *const funcs[] = {
    "dense_math", "branchy_filter", "icache_thrash", "pointer_chase", "smt_sibling", "counter_skew",
};
#define NFUNCS (sizeof(funcs) / sizeof(funcs[0]))

/* "tdrec-example-elf-v1": 20 bytes, a build-id no compiler makes. */
static const uint8_t elf_bid[20] = {'t', 'd', 'r', 'e', 'c', '-', 'e', 'x', 'a', 'm',
				    'p', 'l', 'e', '-', 'e', 'l', 'f', '-', 'v', '1'};

struct ev {
	const char *name; /* perf's name, as EVENT_DESC stores it */
	uint32_t type;
	uint64_t config;
};

struct fn {
	size_t func;		/* index in funcs */
	size_t group;		/* the group that samples it: 0, or 1 (hybrid: cpu_atom) */
	uint64_t delta[MAX_EV]; /* per sample, in the group's event order */
};

struct family {
	const char *file, *cpuid, *cpudesc, *events_arg;
	size_t ev_cnt;
	struct ev ev[MAX_EV];
	size_t fn_cnt;
	struct fn fn[MAX_FN];
	/* Hybrid parts: the second group's first event (0: one group), the
	 * first group's sampler (1 when slots leads), and PMU_MAPPINGS. */
	size_t group2, sampler0;
	size_t pmu_cnt;
	struct pdw_pmu pmus[8];
	/* AMD level 2: the third group's first event (0: none). */
	size_t group3;
};

#define HW_CYCLES {"cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES}

/*
 * The delta vectors. AMD Zen 4 (width 6; slots = 6 * cycles = 600000 a
 * sample): retiring = ex_ret_ops / slots, bad speculation =
 * (de_src_op_disp.all - ex_ret_ops) / slots, frontend, backend and SMT
 * contention = their de_no_dispatch_per_slot event / slots (perf's
 * amdzen4/pipeline.json). Zen 5: the same events, width 8 (800000 slots).
 * Encodings: AMD's format (event = config 0-7 and 32-35, umask 8-15) over
 * the codes of perf's amdzen4/amdzen5 JSON files.
 */
static const struct family families[] = {
    {"amd-zen4",
     "AuthenticAMD,25,17,1",
     "AMD EPYC 9654 96-Core Processor (synthetic)",
     "{cycles,de_no_dispatch_per_slot.no_ops_from_frontend,"
     "de_no_dispatch_per_slot.backend_stalls,de_no_dispatch_per_slot.smt_contention,"
     "de_src_op_disp.all,ex_ret_ops}:S",
     6,
     {HW_CYCLES,
      {"de_no_dispatch_per_slot.no_ops_from_frontend", PERF_TYPE_RAW, 0x1000001a0ull},
      {"de_no_dispatch_per_slot.backend_stalls", PERF_TYPE_RAW, 0x100001ea0ull},
      {"de_no_dispatch_per_slot.smt_contention", PERF_TYPE_RAW, 0x1000060a0ull},
      {"de_src_op_disp.all", PERF_TYPE_RAW, 0x07aa},
      {"ex_ret_ops", PERF_TYPE_RAW, 0xc1}},
     6,
     {/* cycles, frontend, backend, smt, dispatched, retired */
      {0, 0, {100000, 60000, 90000, 18000, 432000, 420000}},
      {1, 0, {100000, 120000, 120000, 30000, 330000, 180000}},
      {2, 0, {100000, 330000, 90000, 12000, 168000, 150000}},
      {3, 0, {100000, 30000, 480000, 24000, 66000, 60000}},
      {4, 0, {100000, 60000, 90000, 294000, 156000, 150000}},
      /* retired above dispatched: bad speculation -2% */
      {5, 0, {100000, 60000, 180000, 72000, 288000, 300000}}},
     0,
     0,
     0,
     {{0, NULL}},
     0},
    {"amd-zen5",
     "AuthenticAMD,26,17,0",
     "AMD EPYC 9005 Series Processor (synthetic)",
     "{cycles,de_no_dispatch_per_slot.no_ops_from_frontend,"
     "de_no_dispatch_per_slot.backend_stalls,de_no_dispatch_per_slot.smt_contention,"
     "de_src_op_disp.all,ex_ret_ops}:S",
     6,
     {HW_CYCLES,
      {"de_no_dispatch_per_slot.no_ops_from_frontend", PERF_TYPE_RAW, 0x1000001a0ull},
      {"de_no_dispatch_per_slot.backend_stalls", PERF_TYPE_RAW, 0x100001ea0ull},
      {"de_no_dispatch_per_slot.smt_contention", PERF_TYPE_RAW, 0x1000060a0ull},
      {"de_src_op_disp.all", PERF_TYPE_RAW, 0x07aa},
      {"ex_ret_ops", PERF_TYPE_RAW, 0xc1}},
     6,
     {{0, 0, {100000, 80000, 120000, 24000, 576000, 560000}},
      {1, 0, {100000, 160000, 160000, 40000, 440000, 240000}},
      {2, 0, {100000, 440000, 120000, 16000, 224000, 200000}},
      {3, 0, {100000, 40000, 640000, 32000, 88000, 80000}},
      {4, 0, {100000, 80000, 120000, 392000, 208000, 200000}},
      {5, 0, {100000, 80000, 240000, 96000, 384000, 400000}}},
     0,
     0,
     0,
     {{0, NULL}},
     0},
    /*
     * AMD Zen 4 level 2 (docs/plans.md "Level 2 in record"): three groups,
     * each sampled by its own cycles leader (raw 0x76 in groups 1 and 2,
     * named ls_not_halted_cyc as perf names it), as `perf record -e
     * '{level 1}:S,{ls_not_halted_cyc,...}:S,{ls_not_halted_cyc,...}:S'`
     * writes it. Each function has 30 samples in every group. Group 0 as
     * amd-zen4 above; group 1 {ls_not_halted_cyc, no_ops_from_frontend
     * with cmask 6, ex_ret_ucode_ops}: fetch-lat = cmask / cycles, heavy =
     * ucode / (6 * cycles); group 2 {ls_not_halted_cyc, not_complete,
     * load_not_complete, ex_ret_brn_misp, resyncs_or_nc_redirects}: mem =
     * be * load / not_complete, mispredicts = bad-spec * misp / (misp +
     * resync).
     */
    {"amd-zen4-l2",
     "AuthenticAMD,25,17,1",
     "AMD EPYC 9654 96-Core Processor (synthetic)",
     "{cycles,de_no_dispatch_per_slot.no_ops_from_frontend,"
     "de_no_dispatch_per_slot.backend_stalls,de_no_dispatch_per_slot.smt_contention,"
     "de_src_op_disp.all,ex_ret_ops}:S,"
     "{ls_not_halted_cyc,cpu/event=0x1a0,umask=0x1,cmask=0x6/,ex_ret_ucode_ops}:S,"
     "{ls_not_halted_cyc,ex_no_retire.not_complete,ex_no_retire.load_not_complete,"
     "ex_ret_brn_misp,resyncs_or_nc_redirects}:S",
     14,
     {HW_CYCLES,
      {"de_no_dispatch_per_slot.no_ops_from_frontend", PERF_TYPE_RAW, 0x1000001a0ull},
      {"de_no_dispatch_per_slot.backend_stalls", PERF_TYPE_RAW, 0x100001ea0ull},
      {"de_no_dispatch_per_slot.smt_contention", PERF_TYPE_RAW, 0x1000060a0ull},
      {"de_src_op_disp.all", PERF_TYPE_RAW, 0x07aa},
      {"ex_ret_ops", PERF_TYPE_RAW, 0xc1},
      {"ls_not_halted_cyc", PERF_TYPE_RAW, 0x76},
      {"cpu/event=0x1a0,umask=0x1,cmask=0x6/", PERF_TYPE_RAW, 0x1060001a0ull},
      {"ex_ret_ucode_ops", PERF_TYPE_RAW, 0x1000000c2ull},
      {"ls_not_halted_cyc", PERF_TYPE_RAW, 0x76},
      {"ex_no_retire.not_complete", PERF_TYPE_RAW, 0x02d6},
      {"ex_no_retire.load_not_complete", PERF_TYPE_RAW, 0xa2d6},
      {"ex_ret_brn_misp", PERF_TYPE_RAW, 0xc3},
      {"resyncs_or_nc_redirects", PERF_TYPE_RAW, 0x96}},
     9,
     {{0, 0, {100000, 60000, 90000, 18000, 432000, 420000}},
      {1, 0, {100000, 120000, 120000, 30000, 330000, 180000}},
      {3, 0, {100000, 30000, 480000, 24000, 66000, 60000}},
      {0, 1, {100000, 2000, 12000}},
      {1, 1, {100000, 15000, 6000}},
      {3, 1, {100000, 1000, 3000}},
      {0, 2, {100000, 50000, 10000, 90, 10}},
      {1, 2, {100000, 40000, 10000, 950, 50}},
      {3, 2, {100000, 80000, 72000, 10, 10}}},
     6,
     0,
     0,
     {{0, NULL}},
     9},
    /*
     * Intel Skylake-SP (CPUID 6/0x55), Hyper-Threading off: width 4 (400000
     * slots a sample). The kernel's topdown-* aliases (arch/x86/events/
     * intel/core.c): slots-issued UOPS_ISSUED.ANY 0x010e, slots-retired
     * UOPS_RETIRED.RETIRE_SLOTS 0x02c2, fetch-bubbles
     * IDQ_UOPS_NOT_DELIVERED.CORE 0x019c, recovery-bubbles
     * INT_MISC.RECOVERY_CYCLES umask 3 cmask 1 0x0100030d. Level 1 as in
     * perf's skylakex metrics: retiring = retired / slots, bad speculation =
     * (issued - retired + 4 * recovery) / slots, frontend = fetch / slots,
     * backend = the rest.
     */
    {"intel-skylake-sp",
     "GenuineIntel,6,85,4",
     "Intel(R) Xeon(R) Gold 6148 CPU @ 2.40GHz (synthetic)",
     "{cycles,topdown-slots-issued,topdown-slots-retired,topdown-fetch-bubbles,"
     "topdown-recovery-bubbles}:S",
     5,
     {HW_CYCLES,
      {"topdown-slots-issued", PERF_TYPE_RAW, 0x010e},
      {"topdown-slots-retired", PERF_TYPE_RAW, 0x02c2},
      {"topdown-fetch-bubbles", PERF_TYPE_RAW, 0x019c},
      {"topdown-recovery-bubbles", PERF_TYPE_RAW, 0x0100030d}},
     5,
     {/* cycles, issued, retired, fetch bubbles, recovery cycles */
      {0, 0, {100000, 284000, 280000, 40000, 1000}},
      {1, 0, {100000, 180000, 120000, 80000, 15000}},
      {2, 0, {100000, 112000, 100000, 220000, 2000}},
      {3, 0, {100000, 46000, 40000, 20000, 500}},
      /* frontend + issued + recovery above the slots: backend -5% */
      {5, 0, {100000, 220000, 160000, 180000, 5000}}},
     0,
     0,
     0,
     {{0, NULL}},
     0},
    /*
     * Intel Skylake-SP level 2 (docs/plans.md "Skylake-SP / Cascade Lake
     * level 2"), Hyper-Threading off (W 4, 400000 slots a sample): three
     * groups, each sampled by its own cycles (PERF_TYPE_HARDWARE, named
     * cycles in each as perf names it), as `perf record -e '{level 1}:S,
     * {cycles,...}:S,{cycles,...}:S'` writes it with the events of perf's
     * skylakex JSON (frontend.json, pipeline.json, memory.json) under their
     * perf names; raw 0x02c2 is topdown-slots-retired in group 0 and
     * uops_retired.retire_slots in group 2. Each function has 30 samples
     * in every group. Group 0 as intel-skylake-sp above; group 1 {cycles,
     * cycles_0_uops_deliv.core, br_misp_retired, machine_clears}:
     * fetch-lat = 4 * cyc0 / (4 * cycles), mispredicts = bad-spec * misp /
     * (misp + clears); group 2 {cycles, stalls_mem_any, bound_on_stores,
     * stalls_total, 1_ports_util, 2_ports_util, retire_slots, macro_fused,
     * instructions}: heavy = (retire_slots + macro_fused - instructions) /
     * (4 * cycles), mem = be-bound * (mem_any + stores) / (total + 1_ports
     * + retiring * 2_ports + stores), retiring the function's (group 0).
     */
    {"intel-skylake-sp-l2",
     "GenuineIntel,6,85,4",
     "Intel(R) Xeon(R) Gold 6148 CPU @ 2.40GHz (synthetic)",
     "{cycles,topdown-slots-issued,topdown-slots-retired,topdown-fetch-bubbles,"
     "topdown-recovery-bubbles}:S,"
     "{cycles,idq_uops_not_delivered.cycles_0_uops_deliv.core,br_misp_retired.all_branches,"
     "machine_clears.count}:S,"
     "{cycles,cycle_activity.stalls_mem_any,exe_activity.bound_on_stores,"
     "cycle_activity.stalls_total,exe_activity.1_ports_util,exe_activity.2_ports_util,"
     "uops_retired.retire_slots,uops_retired.macro_fused,instructions}:S",
     18,
     {HW_CYCLES,
      {"topdown-slots-issued", PERF_TYPE_RAW, 0x010e},
      {"topdown-slots-retired", PERF_TYPE_RAW, 0x02c2},
      {"topdown-fetch-bubbles", PERF_TYPE_RAW, 0x019c},
      {"topdown-recovery-bubbles", PERF_TYPE_RAW, 0x0100030d},
      HW_CYCLES,
      {"idq_uops_not_delivered.cycles_0_uops_deliv.core", PERF_TYPE_RAW, 0x0400019c},
      {"br_misp_retired.all_branches", PERF_TYPE_RAW, 0xc5},
      {"machine_clears.count", PERF_TYPE_RAW, 0x010401c3},
      HW_CYCLES,
      {"cycle_activity.stalls_mem_any", PERF_TYPE_RAW, 0x140014a3},
      {"exe_activity.bound_on_stores", PERF_TYPE_RAW, 0x40a6},
      {"cycle_activity.stalls_total", PERF_TYPE_RAW, 0x040004a3},
      {"exe_activity.1_ports_util", PERF_TYPE_RAW, 0x02a6},
      {"exe_activity.2_ports_util", PERF_TYPE_RAW, 0x04a6},
      {"uops_retired.retire_slots", PERF_TYPE_RAW, 0x02c2},
      {"uops_retired.macro_fused", PERF_TYPE_RAW, 0x04c2},
      {"instructions", PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS}},
     12,
     {/* cycles, issued, retired, fetch bubbles, recovery cycles */
      {0, 0, {100000, 284000, 280000, 40000, 1000}},
      {1, 0, {100000, 180000, 120000, 80000, 15000}},
      {2, 0, {100000, 112000, 100000, 220000, 2000}},
      {3, 0, {100000, 46000, 40000, 20000, 500}},
      /* cycles, cycles_0_uops_deliv.core, mispredicts, machine clears */
      {0, 1, {100000, 5000, 300, 100}},
      {1, 1, {100000, 10000, 9000, 1000}},
      {2, 1, {100000, 45000, 200, 200}},
      {3, 1, {100000, 2000, 50, 50}},
      /* cycles, stalls_mem_any, bound_on_stores, stalls_total, 1_ports,
       * 2_ports, retire_slots, macro_fused, instructions */
      {0, 2, {100000, 2000, 1000, 10000, 28000, 30000, 280000, 10000, 250000}},
      {1, 2, {100000, 20000, 4000, 40000, 30000, 20000, 120000, 4000, 104000}},
      {2, 2, {100000, 5000, 0, 20000, 10000, 40000, 100000, 0, 90000}},
      {3, 2, {100000, 70000, 6000, 80000, 8000, 10000, 40000, 0, 38000}}},
     5,
     0,
     0,
     {{0, NULL}},
     9},
    /*
     * Intel Sierra Forest (Crestmont E-cores, CPUID 6/0xaf, PMU "cpu"):
     * width 6 (600000 slots a sample); each category is its own
     * TOPDOWN_*.ALL_P event / slots (perf's sierraforest JSON: retiring
     * 0x72, bad speculation 0x73, frontend 0x71, backend 0x74).
     */
    {"intel-sierra-forest",
     "GenuineIntel,6,175,3",
     "Intel(R) Xeon(R) 6780E (synthetic)",
     "{cycles,topdown_retiring.all_p,topdown_bad_speculation.all_p,"
     "topdown_fe_bound.all_p,topdown_be_bound.all_p}:S",
     5,
     {HW_CYCLES,
      {"topdown_retiring.all_p", PERF_TYPE_RAW, 0x72},
      {"topdown_bad_speculation.all_p", PERF_TYPE_RAW, 0x73},
      {"topdown_fe_bound.all_p", PERF_TYPE_RAW, 0x71},
      {"topdown_be_bound.all_p", PERF_TYPE_RAW, 0x74}},
     5,
     {/* cycles, retiring, bad speculation, frontend, backend */
      {0, 0, {100000, 420000, 12000, 60000, 108000}},
      {1, 0, {100000, 180000, 150000, 120000, 150000}},
      {2, 0, {100000, 150000, 18000, 330000, 102000}},
      {3, 0, {100000, 60000, 6000, 30000, 504000}},
      /* backend alone above the slots: 105% */
      {5, 0, {100000, 240000, 30000, 60000, 630000}}},
     0,
     0,
     0,
     {{0, NULL}},
     0},
    /*
     * Hybrid parts: perf record -e '{slots,cpu_core/cycles/,
     * cpu_core/topdown-*}:S,{cpu_atom/cycles/,cpu_atom/topdown-*}:S'. The
     * cpu_core group is the perf metrics (raw configs on type 4, slots
     * leads, cycles samples; each category = its metric / slots); the
     * cpu_atom group is on the dynamic PMU type 10 that PMU_MAPPINGS names,
     * cycles leads and samples; each cycles is PERF_TYPE_HARDWARE with its
     * PMU type in config bits 32-63 (perf's hybrid form). A function may
     * be sampled on both core types; each group's samples carry only its
     * own events.
     *
     * Alder Lake (CPUID 6/0x97): cpu_core slots = 6 * cycles (600000 a
     * sample); cpu_atom is Gracemont, width 5 (500000 slots a sample):
     * retiring 0xc2, frontend 0x71, backend 0x74 over 5 * cycles, bad
     * speculation the remainder (adl_grt_ratios.py); its measured
     * topdown-bad-spec (0x73, the kernel's alias) is shown but in no
     * formula.
     */
    {"intel-alder-lake",
     "GenuineIntel,6,151,2",
     "12th Gen Intel(R) Core(TM) i9-12900K (synthetic)",
     "{slots,cpu_core/cycles/,cpu_core/topdown-retiring/,cpu_core/topdown-bad-spec/,"
     "cpu_core/topdown-fe-bound/,cpu_core/topdown-be-bound/}:S,"
     "{cpu_atom/cycles/,cpu_atom/topdown-retiring/,cpu_atom/topdown-bad-spec/,"
     "cpu_atom/topdown-fe-bound/,cpu_atom/topdown-be-bound/}:S",
     11,
     {{"cpu_core/slots/", PERF_TYPE_RAW, 0x400},
      {"cpu_core/cycles/", PERF_TYPE_HARDWARE, 4ull << 32},
      {"cpu_core/topdown-retiring/", PERF_TYPE_RAW, 0x8000},
      {"cpu_core/topdown-bad-spec/", PERF_TYPE_RAW, 0x8100},
      {"cpu_core/topdown-fe-bound/", PERF_TYPE_RAW, 0x8200},
      {"cpu_core/topdown-be-bound/", PERF_TYPE_RAW, 0x8300},
      {"cpu_atom/cycles/", PERF_TYPE_HARDWARE, 10ull << 32},
      {"cpu_atom/topdown-retiring/", 10, 0xc2},
      {"cpu_atom/topdown-bad-spec/", 10, 0x73},
      {"cpu_atom/topdown-fe-bound/", 10, 0x71},
      {"cpu_atom/topdown-be-bound/", 10, 0x74}},
     7,
     {/* cpu_core: slots, cycles, retiring, bad-spec, fe-bound, be-bound */
      {0, 0, {600000, 100000, 420000, 30000, 60000, 90000}},
      {1, 0, {600000, 100000, 180000, 210000, 120000, 90000}},
      {2, 0, {600000, 100000, 120000, 30000, 360000, 90000}},
      /* cpu_atom: cycles, retiring, bad-spec (measured), fe-bound, be-bound */
      {0, 1, {100000, 300000, 20000, 75000, 100000}},
      {1, 1, {100000, 125000, 150000, 100000, 100000}},
      {3, 1, {100000, 50000, 10000, 25000, 400000}},
      /* the three above the slots: bad speculation (the remainder) -5% */
      {5, 1, {100000, 150000, 5000, 100000, 275000}}},
     6,
     1,
     6,
     {{1, "software"},
      {2, "tracepoint"},
      {4, "cpu_core"},
      {5, "breakpoint"},
      {10, "cpu_atom"},
      {11, "msr"}},
     0},
    /*
     * Arrow Lake (CPUID 6/0xc6): cpu_core slots = 8 * cycles (800000 a
     * sample); cpu_atom is Skymont, width 8, each category its own event
     * over 8 * cycles (lnl_skt_ratios.py; the kernel's
     * lnl_hybrid_events_attrs: retiring 0xc2/0x02, bad-spec 0x73, frontend
     * 0x9c/0x01, backend 0xa4/0x02).
     */
    {"intel-arrow-lake",
     "GenuineIntel,6,198,2",
     "Intel(R) Core(TM) Ultra 9 285K (synthetic)",
     "{slots,cpu_core/cycles/,cpu_core/topdown-retiring/,cpu_core/topdown-bad-spec/,"
     "cpu_core/topdown-fe-bound/,cpu_core/topdown-be-bound/}:S,"
     "{cpu_atom/cycles/,cpu_atom/topdown-retiring/,cpu_atom/topdown-bad-spec/,"
     "cpu_atom/topdown-fe-bound/,cpu_atom/topdown-be-bound/}:S",
     11,
     {{"cpu_core/slots/", PERF_TYPE_RAW, 0x400},
      {"cpu_core/cycles/", PERF_TYPE_HARDWARE, 4ull << 32},
      {"cpu_core/topdown-retiring/", PERF_TYPE_RAW, 0x8000},
      {"cpu_core/topdown-bad-spec/", PERF_TYPE_RAW, 0x8100},
      {"cpu_core/topdown-fe-bound/", PERF_TYPE_RAW, 0x8200},
      {"cpu_core/topdown-be-bound/", PERF_TYPE_RAW, 0x8300},
      {"cpu_atom/cycles/", PERF_TYPE_HARDWARE, 10ull << 32},
      {"cpu_atom/topdown-retiring/", 10, 0x02c2},
      {"cpu_atom/topdown-bad-spec/", 10, 0x73},
      {"cpu_atom/topdown-fe-bound/", 10, 0x019c},
      {"cpu_atom/topdown-be-bound/", 10, 0x02a4}},
     7,
     {{0, 0, {800000, 100000, 560000, 40000, 80000, 120000}},
      {1, 0, {800000, 100000, 240000, 280000, 160000, 120000}},
      {2, 0, {800000, 100000, 160000, 40000, 480000, 120000}},
      /* cpu_atom: cycles, retiring, bad-spec, fe-bound, be-bound */
      {0, 1, {100000, 480000, 40000, 120000, 160000}},
      {1, 1, {100000, 200000, 280000, 160000, 160000}},
      {3, 1, {100000, 80000, 40000, 40000, 640000}},
      /* backend alone above the slots: 105% */
      {5, 1, {100000, 160000, 40000, 80000, 840000}}},
     6,
     1,
     6,
     {{1, "software"},
      {2, "tracepoint"},
      {4, "cpu_core"},
      {5, "breakpoint"},
      {10, "cpu_atom"},
      {11, "msr"}},
     0},
    /*
     * Meteor Lake (CPUID 6/0xaa): cpu_core slots = 6 * cycles (600000 a
     * sample); cpu_atom is Crestmont, width 6, each category its own
     * TOPDOWN_*.ALL_P event over 6 * cycles (perf's meteorlake JSON, cpu_atom:
     * retiring 0x72, bad speculation 0x73, frontend 0x71, backend 0x74;
     * mtl_cmt_ratios.py), named as perf prints those JSON events.
     */
    {"intel-meteor-lake",
     "GenuineIntel,6,170,4",
     "Intel(R) Core(TM) Ultra 7 155H (synthetic)",
     "{slots,cpu_core/cycles/,cpu_core/topdown-retiring/,cpu_core/topdown-bad-spec/,"
     "cpu_core/topdown-fe-bound/,cpu_core/topdown-be-bound/}:S,"
     "{cpu_atom/cycles/,cpu_atom/topdown_retiring.all_p/,"
     "cpu_atom/topdown_bad_speculation.all_p/,cpu_atom/topdown_fe_bound.all_p/,"
     "cpu_atom/topdown_be_bound.all_p/}:S",
     11,
     {{"cpu_core/slots/", PERF_TYPE_RAW, 0x400},
      {"cpu_core/cycles/", PERF_TYPE_HARDWARE, 4ull << 32},
      {"cpu_core/topdown-retiring/", PERF_TYPE_RAW, 0x8000},
      {"cpu_core/topdown-bad-spec/", PERF_TYPE_RAW, 0x8100},
      {"cpu_core/topdown-fe-bound/", PERF_TYPE_RAW, 0x8200},
      {"cpu_core/topdown-be-bound/", PERF_TYPE_RAW, 0x8300},
      {"cpu_atom/cycles/", PERF_TYPE_HARDWARE, 10ull << 32},
      {"cpu_atom/topdown_retiring.all_p/", 10, 0x72},
      {"cpu_atom/topdown_bad_speculation.all_p/", 10, 0x73},
      {"cpu_atom/topdown_fe_bound.all_p/", 10, 0x71},
      {"cpu_atom/topdown_be_bound.all_p/", 10, 0x74}},
     7,
     {/* cpu_core: slots, cycles, retiring, bad-spec, fe-bound, be-bound */
      {0, 0, {600000, 100000, 420000, 30000, 60000, 90000}},
      {1, 0, {600000, 100000, 180000, 210000, 120000, 90000}},
      {2, 0, {600000, 100000, 120000, 30000, 360000, 90000}},
      /* cpu_atom: cycles, retiring, bad-spec, fe-bound, be-bound */
      {0, 1, {100000, 360000, 30000, 90000, 120000}},
      {1, 1, {100000, 150000, 210000, 120000, 120000}},
      {3, 1, {100000, 60000, 30000, 30000, 480000}},
      /* backend alone above the slots: 105% */
      {5, 1, {100000, 120000, 30000, 60000, 630000}}},
     6,
     1,
     6,
     {{1, "software"},
      {2, "tracepoint"},
      {4, "cpu_core"},
      {5, "breakpoint"},
      {10, "cpu_atom"},
      {11, "msr"}},
     0},
    /*
     * Arm Neoverse V2 (MIDR 0x410fd4f0, width 8: slots 800000 a sample):
     * perf record -e '{cpu_cycles,stall_slot_frontend,...}:S' names the
     * armv8_pmuv3_0 PMU's sysfs aliases, so every attr, the cpu_cycles
     * sampler too, is on that PMU's dynamic type (8 here, named in
     * PMU_MAPPINGS) with the Armv8 common event number as config
     * (drivers/perf/arm_pmuv3.c). Arm's V2 formulas (docs/plans.md "Arm
     * Neoverse"): N = 1 - stall_slot / S, retiring = op_retired / op_spec *
     * N, bad-spec = (1 - op_retired / op_spec) * N + 4 br_mis_pred /
     * cycles, fe = stall_slot_frontend / S - br_mis_pred / cycles, be =
     * stall_slot_backend / S - 3 br_mis_pred / cycles.
     */
    {"arm-neoverse-v2",
     "0x00000000410fd4f0",
     "Neoverse-V2 (synthetic)",
     "{cpu_cycles,stall_slot_frontend,stall_slot_backend,stall_slot,op_retired,op_spec,"
     "br_mis_pred}:S",
     7,
     {{"cpu_cycles", 8, 0x11},
      {"stall_slot_frontend", 8, 0x3e},
      {"stall_slot_backend", 8, 0x3d},
      {"stall_slot", 8, 0x3f},
      {"op_retired", 8, 0x3a},
      {"op_spec", 8, 0x3b},
      {"br_mis_pred", 8, 0x10}},
     5,
     {/* cycles, stall frontend, stall backend, stall, op_retired, op_spec,
       * br_mis_pred */
      {0, 0, {100000, 84000, 116000, 200000, 576000, 600000, 500}},
      {1, 0, {100000, 200000, 200000, 400000, 280000, 400000, 5000}},
      {2, 0, {100000, 440000, 120000, 560000, 200000, 240000, 1000}},
      {3, 0, {100000, 48000, 672000, 720000, 72000, 80000, 250}},
      /* frontend and backend short of stall_slot, and a frontend smaller
       * than its mispredict correction: frontend -2% */
      {5, 0, {100000, 16000, 400000, 480000, 240000, 320000, 4000}}},
     0,
     0,
     4,
     {{1, "software"}, {2, "tracepoint"}, {5, "breakpoint"}, {8, "armv8_pmuv3_0"}},
     0},
};

/* ---- the ELF ---------------------------------------------------------- */

struct out {
	uint8_t *p;
	size_t sz, cap;
};

static void put(struct out *o, const void *src, size_t n)
{
	if (o->sz + n > o->cap) {
		o->cap = (o->sz + n) * 2 + 256;
		o->p = realloc(o->p, o->cap);
		if (!o->p)
			abort();
	}
	memcpy(o->p + o->sz, src, n);
	o->sz += n;
}

static void pad_to(struct out *o, size_t at)
{
	static const uint8_t z[16];

	while (o->sz < at)
		put(o, z, at - o->sz < sizeof(z) ? at - o->sz : sizeof(z));
}

static void le(struct out *o, uint64_t v, size_t n)
{
	uint8_t b[8];

	for (size_t i = 0; i < n; i++)
		b[i] = (uint8_t)(v >> (8 * i));
	put(o, b, n);
}

/* Section header: name, type, flags, addr, offset, size, link, info, align, entsize. */
static void shdr(struct out *o, uint32_t name, uint32_t type, uint64_t flags, uint64_t addr,
		 uint64_t off, uint64_t sz, uint32_t link, uint32_t info, uint64_t align,
		 uint64_t entsize)
{
	le(o, name, 4);
	le(o, type, 4);
	le(o, flags, 8);
	le(o, addr, 8);
	le(o, off, 8);
	le(o, sz, 8);
	le(o, link, 4);
	le(o, info, 4);
	le(o, align, 8);
	le(o, entsize, 8);
}

/*
 * ELF64 little-endian x86-64 executable: one PT_LOAD (file offset 0 at
 * TEXT_VADDR) over the headers, the build-id note and .text; a PT_NOTE;
 * sections .note.gnu.build-id, .text, .symtab, .strtab, .shstrtab. Each
 * function is FUNC_SZ bytes of nops ending in ret, a global STT_FUNC.
 */
static void write_elf(const char *path)
{
	static const char shstr[] =
	    "\0.note.gnu.build-id\0.text\0.symtab\0.strtab\0.shstrtab"; /* offsets 1,20,26,34,42 */
	const size_t note_off = 0xb0, note_sz = 16 + 20, text_sz = NFUNCS * FUNC_SZ;
	size_t sym_off, str_off, shstr_off, sh_off, str_sz = 1;
	struct out o = {0};
	FILE *f;

	/* e_ident, then type EXEC, machine x86-64, version, entry, phoff, shoff
	 * (patched), flags, ehsize, phentsize, phnum, shentsize, shnum, shstrndx */
	put(&o, "\177ELF\2\1\1\0\0\0\0\0\0\0\0\0", 16);
	le(&o, 2, 2);
	le(&o, 62, 2);
	le(&o, 1, 4);
	le(&o, TEXT_VADDR + TEXT_OFF, 8);
	le(&o, 64, 8);
	le(&o, 0, 8);
	le(&o, 0, 4);
	le(&o, 64, 2);
	le(&o, 56, 2);
	le(&o, 2, 2);
	le(&o, 64, 2);
	le(&o, 6, 2);
	le(&o, 5, 2);
	/* PT_LOAD r-x and PT_NOTE */
	le(&o, 1, 4);
	le(&o, 5, 4);
	le(&o, 0, 8);
	le(&o, TEXT_VADDR, 8);
	le(&o, TEXT_VADDR, 8);
	le(&o, TEXT_OFF + text_sz, 8);
	le(&o, TEXT_OFF + text_sz, 8);
	le(&o, 0x1000, 8);
	le(&o, 4, 4);
	le(&o, 4, 4);
	le(&o, note_off, 8);
	le(&o, TEXT_VADDR + note_off, 8);
	le(&o, TEXT_VADDR + note_off, 8);
	le(&o, note_sz, 8);
	le(&o, note_sz, 8);
	le(&o, 4, 8);
	/* NT_GNU_BUILD_ID */
	pad_to(&o, note_off);
	le(&o, 4, 4);
	le(&o, 20, 4);
	le(&o, 3, 4);
	put(&o, "GNU", 4);
	put(&o, elf_bid, sizeof(elf_bid));
	/* .text */
	pad_to(&o, TEXT_OFF);
	for (size_t i = 0; i < NFUNCS; i++) {
		uint8_t code[FUNC_SZ];

		memset(code, 0x90, sizeof(code));
		code[FUNC_SZ - 1] = 0xc3;
		put(&o, code, sizeof(code));
	}
	/* .symtab: the null symbol, then the functions (global, section 2) */
	pad_to(&o, (o.sz + 7) & ~(size_t)7);
	sym_off = o.sz;
	pad_to(&o, o.sz + 24);
	for (size_t i = 0; i < NFUNCS; i++) {
		le(&o, str_sz, 4);
		le(&o, 0x12, 1); /* STB_GLOBAL, STT_FUNC */
		le(&o, 0, 1);
		le(&o, 2, 2);
		le(&o, TEXT_VADDR + TEXT_OFF + i * FUNC_SZ, 8);
		le(&o, FUNC_SZ, 8);
		str_sz += strlen(funcs[i]) + 1;
	}
	str_off = o.sz;
	put(&o, "", 1);
	for (size_t i = 0; i < NFUNCS; i++)
		put(&o, funcs[i], strlen(funcs[i]) + 1);
	shstr_off = o.sz;
	put(&o, shstr, sizeof(shstr));
	pad_to(&o, (o.sz + 7) & ~(size_t)7);
	sh_off = o.sz;
	shdr(&o, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0);
	shdr(&o, 1, 7 /* NOTE */, 2 /* A */, TEXT_VADDR + note_off, note_off, note_sz, 0, 0, 4, 0);
	shdr(&o, 20, 1 /* PROGBITS */, 6 /* AX */, TEXT_VADDR + TEXT_OFF, TEXT_OFF, text_sz, 0, 0,
	     16, 0);
	shdr(&o, 26, 2 /* SYMTAB */, 0, 0, sym_off, 24 * (NFUNCS + 1), 4, 1, 8, 24);
	shdr(&o, 34, 3 /* STRTAB */, 0, 0, str_off, str_sz, 0, 0, 1, 0);
	shdr(&o, 42, 3, 0, 0, shstr_off, sizeof(shstr), 0, 0, 1, 0);
	for (int i = 0; i < 8; i++)
		o.p[40 + i] = (uint8_t)((uint64_t)sh_off >> (8 * i)); /* e_shoff */
	f = fopen(path, "wb");
	if (!f || fwrite(o.p, 1, o.sz, f) != o.sz || fclose(f)) {
		perror(path);
		exit(1);
	}
	free(o.p);
}

/* ---- the perf.data files ---------------------------------------------- */

static size_t group_cnt(const struct family *fam)
{
	return fam->group3 ? 3 : fam->group2 ? 2 : 1;
}

static size_t group_first(const struct family *fam, size_t g)
{
	return g == 2 ? fam->group3 : g ? fam->group2 : 0;
}

/* The group of event i: 0, 1 from group2 on, 2 from group3 on. */
static size_t group_of(const struct family *fam, size_t i)
{
	size_t g = 0;

	while (g + 1 < group_cnt(fam) && i >= group_first(fam, g + 1))
		g++;
	return g;
}

static size_t group_size(const struct family *fam, size_t g)
{
	size_t end = g + 1 < group_cnt(fam) ? group_first(fam, g + 1) : fam->ev_cnt;

	return end - group_first(fam, g);
}

static size_t group_sampler(const struct family *fam, size_t g)
{
	return g ? group_first(fam, g) : fam->sampler0;
}

static void write_family(const char *dir, const struct family *fam)
{
	static const char *argv[] = {"perf", "record", "-e", NULL, "-c", "100000",
				     "--", "./" ELF_NAME, "(synthetic: generated by tdrec's "
				     "examples/gen_topdown_examples.c, not a recording)"};
	struct perf_event_attr attr[MAX_EV];
	struct pdw_event ev[MAX_EV];
	uint64_t ids[MAX_EV], sums[MAX_EV] = {0};
	struct pdw_group g[3];
	struct pdw_build_id bid = {ELF_NAME, {0}, 20};
	struct synth_buf b = {0};
	struct synth_sid sid = {.pid = PID, .tid = PID, .time = 1000000};
	struct pdw_opts o = {0};
	uint64_t t = 1000000000ull;
	char path[4096];

	for (size_t k = 0; k < group_cnt(fam); k++)
		g[k] = (struct pdw_group){NULL, (uint32_t)group_first(fam, k),
					  (uint32_t)group_size(fam, k)};
	for (size_t i = 0; i < fam->ev_cnt; i++) {
		struct perf_event_attr *a = &attr[i];
		size_t gi = group_of(fam, i);
		bool leader = i == group_first(fam, gi);

		/* perf record's attrs for a :S group: the sampler samples every
		 * PERIOD cycles, the leader starts disabled until exec; every
		 * member reads the whole group into the sampler's samples. */
		memset(a, 0, sizeof(*a));
		a->size = sizeof(*a);
		a->type = fam->ev[i].type;
		a->config = fam->ev[i].config;
		a->sample_period = i == group_sampler(fam, gi) ? PERIOD : 0;
		a->sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
				 PERF_SAMPLE_READ | PERF_SAMPLE_ID;
		a->read_format = PERF_FORMAT_ID | PERF_FORMAT_GROUP;
		a->sample_id_all = 1;
		a->inherit = 1;
		a->exclude_kernel = 1;
		a->exclude_hv = 1;
		a->disabled = leader;
		a->enable_on_exec = leader;
		a->mmap = a->comm = a->task = a->mmap2 = a->comm_exec = i == 0;
		ids[i] = 1000 + i;
		ev[i].name = fam->ev[i].name;
		ev[i].attr = *a;
		ev[i].ids = &ids[i];
		ev[i].id_cnt = 1;
	}
	sid.id = ids[0];
	synth_comm(&b, &attr[0], PID, PID, "synthetic-demo", true, &sid);
	sid.time += 1000;
	synth_mmap(&b, &attr[0], false, 0, PID, PID, TEXT_VADDR, 0x1000, 0, ELF_NAME, NULL, 0,
		   &sid);
	/* Round robin over the functions; the counters accumulate, so each
	 * sample's delta is its function's vector. */
	for (unsigned k = 0; k < PER_FUNC; k++)
		for (size_t f = 0; f < fam->fn_cnt; f++) {
			const struct fn *fn = &fam->fn[f];
			size_t first = group_first(fam, fn->group), smp = group_sampler(fam, fn->group);
			struct synth_sample s = {0};

			for (size_t i = 0; i < group_size(fam, fn->group); i++)
				sums[first + i] += fn->delta[i];
			t += 1000000;
			s.sid = (struct synth_sid){.pid = PID, .tid = PID, .time = t, .id = ids[smp]};
			s.ip = TEXT_VADDR + TEXT_OFF + fn->func * FUNC_SZ + 0x10 + 4 * (k % 4);
			s.nr = group_size(fam, fn->group);
			s.values = &sums[first];
			s.ids = &ids[first];
			synth_sample(&b, &attr[smp], &s);
		}
	synth_raw(&b, PDW_FINISHED_ROUND, 0, NULL, 0);
	memcpy(bid.id, elf_bid, sizeof(elf_bid));
	argv[3] = fam->events_arg;
	o.ev = ev;
	o.ev_cnt = fam->ev_cnt;
	o.groups = g;
	o.group_cnt = group_cnt(fam);
	o.hostname = "synthetic (generated by tdrec's examples generator)";
	o.osrelease = "synthetic";
	o.version = "none (synthetic file from tdrec's examples/gen_topdown_examples.c)";
	o.cpuid = fam->cpuid;
	o.cpudesc = fam->cpudesc;
	o.argv = argv;
	o.argc = sizeof(argv) / sizeof(argv[0]);
	o.bids = &bid;
	o.bid_cnt = 1;
	o.pmus = fam->pmus;
	o.pmu_cnt = fam->pmu_cnt;
	o.attr_size = ATTR_SIZE;
	snprintf(path, sizeof(path), "%s/%s.perf.data", dir, fam->file);
	pdw_write(path, &o, b.data, b.sz);
	synth_buf_release(&b);
}

int main(int argc, char **argv)
{
	char path[4096];

	if (argc != 2) {
		fprintf(stderr, "usage: %s OUTDIR\n", argv[0]);
		return 2;
	}
	snprintf(path, sizeof(path), "%s/%s", argv[1], ELF_NAME);
	write_elf(path);
	for (size_t i = 0; i < sizeof(families) / sizeof(families[0]); i++)
		write_family(argv[1], &families[i]);
	return 0;
}
