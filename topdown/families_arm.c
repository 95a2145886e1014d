/*
 * topdown/families_arm.c - the Arm Neoverse rows of the TopDown table.
 *
 * Responsibility: the events, formulas and identities of Neoverse N2, V1,
 * V2, N3 and V3 (docs/plans.md "Arm Neoverse"); topdown.c lists them in
 * its family order. Rows only, no code: a file of its own to keep
 * topdown.c readable.
 */
#include "topdown_int.h"

#define ARRAY_CNT(a) (sizeof(a) / sizeof((a)[0]))
#define T(ev, c) {ev, c, false, NULL}
#define TW(ev, c) {ev, c, true, NULL}

/* --- Arm Neoverse (arm64; MIDR implementer 0x41): level 1 of Arm's CPU
 * telemetry specifications (ARM-software/telemetry-solution,
 * data/pmu/cpu/neoverse/neoverse-<core>.json, topdown_methodology), from
 * the Armv8.4 slot events. The common events are opened by the aliases
 * drivers/perf/arm_pmuv3.c lists (only those the core implements, per
 * PMCEID), STALL_FRONTEND_FLUSH (implementation defined, 0x8162) by its
 * code. CPU_CYCLES leads: the PMU's cycle counter. W is caps/slots when
 * the PMU has it. docs/plans.md "Arm Neoverse" says where perf's
 * sbsa.json formulas differ. */
#define ARM_EV(n, code, cat) TD_ALIAS(n, code, 0, cat)
#define ARM_L1_EVENTS(correction)                                                                  \
	{.name = "cpu_cycles", .source = TDR_TD_CORE_ALIAS, .alias = "cpu_cycles", .config = 0x11, \
	 .flags = TDR_TD_LEADER},                                                                  \
	    ARM_EV("stall_slot_frontend", 0x3e, "fe-bound"),                                       \
	    ARM_EV("stall_slot_backend", 0x3d, "be-bound"),                                        \
	    ARM_EV("stall_slot", 0x3f, "retiring"), ARM_EV("op_retired", 0x3a, "retiring"),        \
	    ARM_EV("op_spec", 0x3b, "bad-spec"), correction

static const struct tdr_td_event arm_brmp_events[] = {
    ARM_L1_EVENTS(ARM_EV("br_mis_pred", 0x10, "bad-spec")),
};

static const struct tdr_td_event arm_flush_events[] = {
    ARM_L1_EVENTS(TD_TERMS("stall_frontend_flush", "event=0x8162", 0x8162, "bad-spec")),
};

#define CYC "cpu_cycles"
/* (W * CYCLES + extra * CYCLES - STALL_SLOT) / (W * CYCLES): 1 - STALL_SLOT
 * / (W * CYCLES), with N2's one-slot-per-cycle over-count (extra = 1). */
#define ARM_NOT_STALLED(extra)                                                                     \
	{{TW(CYC, 1), T(CYC, extra), T("stall_slot", -1)}, {TW(CYC, 1)}}
#define ARM_RET_PART(extra) {{{{T("op_retired", 1)}, {T("op_spec", 1)}}, ARM_NOT_STALLED(extra)}}
#define ARM_BAD_PART(extra)                                                                        \
	{{{{T("op_spec", 1), T("op_retired", -1)}, {T("op_spec", 1)}}, ARM_NOT_STALLED(extra)}}
/* k * ev / CYCLES */
#define ARM_PLUS(ev, k) {{{{T(ev, k)}, {T(CYC, 1)}}}}

/* parts[0]: retiring; parts[1..2]: bad speculation. */
static const struct tdr_td_part arm_n2_parts[] = {
    ARM_RET_PART(1), ARM_BAD_PART(1), ARM_PLUS("br_mis_pred", 4)};
static const struct tdr_td_part arm_v_parts[] = {
    ARM_RET_PART(0), ARM_BAD_PART(0), ARM_PLUS("br_mis_pred", 4)};
static const struct tdr_td_part arm_flush_parts[] = {
    ARM_RET_PART(0), ARM_BAD_PART(0), ARM_PLUS("stall_frontend_flush", 1)};

#define ARM_PRODUCTS(parts)                                                                        \
	{"retiring", false, {{NULL, 0, false, NULL}}, {{NULL, 0, false, NULL}}, 1, &parts[0]},     \
	    {"bad-spec", false, {{NULL, 0, false, NULL}}, {{NULL, 0, false, NULL}}, 2, &parts[1]}

/* N2 (neoverse-n2.json, 5 slots): FE = (SSF - CYC) / (5 CYC) - BRMP / CYC,
 * BE = SSB / (5 CYC) - 3 BRMP / CYC; STALL_SLOT less CYC (the erratum perf's
 * neoverse-n2-v2/metrics.json also corrects). */
static const struct tdr_td_formula arm_n2_formulas[] = {
    ARM_PRODUCTS(arm_n2_parts),
    {"fe-bound", false, {T("stall_slot_frontend", 1), T(CYC, -1), TW("br_mis_pred", -1)}, {TW(CYC, 1)}, 0, NULL},
    {"be-bound", false, {T("stall_slot_backend", 1), TW("br_mis_pred", -3)}, {TW(CYC, 1)}, 0, NULL},
};

/* V1 (neoverse-v1.json, 8 slots): FE = SSF / (8 CYC) - 4 BRMP / CYC,
 * BE = SSB / (8 CYC). */
static const struct tdr_td_formula arm_v1_formulas[] = {
    ARM_PRODUCTS(arm_v_parts),
    {"fe-bound", false, {T("stall_slot_frontend", 1), TW("br_mis_pred", -4)}, {TW(CYC, 1)}, 0, NULL},
    {"be-bound", false, {T("stall_slot_backend", 1)}, {TW(CYC, 1)}, 0, NULL},
};

/* V2 (neoverse-v2.json, 8 slots): FE = SSF / (8 CYC) - BRMP / CYC,
 * BE = SSB / (8 CYC) - 3 BRMP / CYC. */
static const struct tdr_td_formula arm_v2_formulas[] = {
    ARM_PRODUCTS(arm_v_parts),
    {"fe-bound", false, {T("stall_slot_frontend", 1), TW("br_mis_pred", -1)}, {TW(CYC, 1)}, 0, NULL},
    {"be-bound", false, {T("stall_slot_backend", 1), TW("br_mis_pred", -3)}, {TW(CYC, 1)}, 0, NULL},
};

/* N3 (5 slots) and V3 (10 slots): FE = SSF / (W CYC) - SFF / CYC,
 * BE = SSB / (W CYC), bad speculation + SFF / CYC. */
static const struct tdr_td_formula arm_flush_formulas[] = {
    ARM_PRODUCTS(arm_flush_parts),
    {"fe-bound", false, {T("stall_slot_frontend", 1), TW("stall_frontend_flush", -1)}, {TW(CYC, 1)}, 0, NULL},
    {"be-bound", false, {T("stall_slot_backend", 1)}, {TW(CYC, 1)}, 0, NULL},
};

static const struct tdr_td_models arm_n2_models[] = {{0xd49, 0xd49}};
static const struct tdr_td_models arm_v1_models[] = {{0xd40, 0xd40}};
static const struct tdr_td_models arm_v2_models[] = {{0xd4f, 0xd4f}};
static const struct tdr_td_models arm_n3_models[] = {{0xd8e, 0xd8e}};
static const struct tdr_td_models arm_v3_models[] = {{0xd84, 0xd84}};

/* Six programmable counters and the cycle counter (PMCR_EL0.N on these
 * cores: docs/plans.md "Counter budget" says it is not verified). */
#define ARM_FAMILY(nm, w, mods, evs, fos)                                                          \
	{.name = (nm), .vendor = "ARM", .width = (w), .model_cnt = 1, .models = (mods),           \
	 .ident_required = true, .pmus = {"armv8_pmuv3*", "armv8_neoverse*"},                      \
	 .width_caps_slots = true, .counters = 6, .fixed_cycles = true,                            \
	 .event_cnt = ARRAY_CNT(evs), .events = (evs), .formula_cnt = ARRAY_CNT(fos),             \
	 .formulas = (fos)}

const struct tdr_td_family tdr_td_arm_n2 =
    ARM_FAMILY("neoverse-n2", 5, arm_n2_models, arm_brmp_events, arm_n2_formulas);
const struct tdr_td_family tdr_td_arm_v1 =
    ARM_FAMILY("neoverse-v1", 8, arm_v1_models, arm_brmp_events, arm_v1_formulas);
const struct tdr_td_family tdr_td_arm_v2 =
    ARM_FAMILY("neoverse-v2", 8, arm_v2_models, arm_brmp_events, arm_v2_formulas);
const struct tdr_td_family tdr_td_arm_n3 =
    ARM_FAMILY("neoverse-n3", 5, arm_n3_models, arm_flush_events, arm_flush_formulas);
const struct tdr_td_family tdr_td_arm_v3 =
    ARM_FAMILY("neoverse-v3", 10, arm_v3_models, arm_flush_events, arm_flush_formulas);
