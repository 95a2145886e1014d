/*
 * plan/call_graph.c - the call-stack fields of a sampling plan's attrs.
 *
 * Responsibility: once a plan is built, give every member of every group
 * the fields `tdrec record -g` / `--call-graph` asks for, as perf's
 * evsel__config_callchain sets them: PERF_SAMPLE_CALLCHAIN for all modes;
 * for dwarf also PERF_SAMPLE_REGS_USER with the registers an unwinder
 * needs, PERF_SAMPLE_STACK_USER with the stack copy's size, and
 * exclude_callchain_user (the user part comes from the copy); for lbr
 * PERF_SAMPLE_BRANCH_STACK with the LBR call-stack filter. Every member
 * gets the same sample_type: the kernel reads a group's members with the
 * sampler's record and the parser locates ids with one layout (perf
 * sets the group's sample_type on every member too). Members other than
 * the sampler have no period and never write samples, so the fields cost
 * nothing there.
 * It refuses lbr where the sampler's PMU has no LBR call stack (any PMU
 * but an Intel core PMU whose caps/branches is non-zero: software events,
 * AMD, whose LBR v2 has no call-stack mode, Arm) and dwarf where tdrec
 * does not know the user registers (an architecture other than x86_64 and
 * aarch64), each with one line.
 * See: docs/record.md "Call stacks"; uapi linux/perf_event.h; arch/x86/
 * include/uapi/asm/perf_regs.h, arch/arm64/include/uapi/asm/perf_regs.h;
 * arch/x86/events/intel/lbr.c (LBR call stack); perf's util/evsel.c
 * (evsel__config_callchain).
 */
#define LOG_PREFIX "plan: "

#include "plan_int.h"

#include <stdlib.h>
#include <string.h>

#if defined(__x86_64__) || defined(__aarch64__)
#include <asm/perf_regs.h>
#endif

#include "tdrec/tdr_err.h"
#include "tdrec/tdr_log.h"
#include "tdrec/topdown.h"

/* The user registers a dwarf unwinder needs, as perf asks for them
 * (PERF_REGS_MASK): x86_64 every register but the segment registers the
 * kernel refuses for user registers (perf_reg_validate); aarch64 x0-x30,
 * sp and pc. 0: no dwarf unwinding on this architecture. */
#if defined(__x86_64__)
#define REGS_USER                                                                                  \
	(((1ull << PERF_REG_X86_64_MAX) - 1) &                                                     \
	 ~((1ull << PERF_REG_X86_DS) | (1ull << PERF_REG_X86_ES) | (1ull << PERF_REG_X86_FS) |    \
	   (1ull << PERF_REG_X86_GS)))
#elif defined(__aarch64__)
#define REGS_USER ((1ull << PERF_REG_ARM64_MAX) - 1)
#else
#define REGS_USER 0ull
#endif

const char *tdr_call_graph_name(enum tdr_call_graph cg)
{
	switch (cg) {
	case TDR_CALL_GRAPH_FP:
		return "fp";
	case TDR_CALL_GRAPH_DWARF:
		return "dwarf";
	case TDR_CALL_GRAPH_LBR:
		return "lbr";
	default:
		return "none";
	}
}

static const struct tdr_plan_event *sampler_of(const struct tdr_plan *plan)
{
	for (size_t g = 0; g < plan->group_cnt; g++)
		for (size_t i = 0; i < plan->groups[g].event_cnt; i++)
			if (plan->groups[g].events[i].flags & TDR_EVENT_SAMPLER)
				return &plan->groups[g].events[i];
	return NULL;
}

/* Why the sampler cannot take an LBR call stack, or NULL when it can. */
static const char *lbr_missing(const struct tdr_plan_builder *b, char *buf, size_t sz)
{
	const struct tdr_td_family *f = tdr_topdown_family_at((size_t)b->plan->kind - 1);
	const struct tdr_plan_event *s = sampler_of(b->plan);
	const struct tdr_sysfs_pmu *sp;
	char text[32];

	if (!s || s->attr.type == PERF_TYPE_SOFTWARE)
		return "the sampler is a software event, which has no LBR";
	if (!f->vendor || strcmp(f->vendor, "GenuineIntel"))
		return "only Intel core PMUs have an LBR call stack";
	sp = tdr_sysfs__pmu(b->env.sys, s->pmu_name);
	if (!sp || tdr_sysfs_file__text(&sp->caps_branches, text, sizeof(text)) < 0 ||
	    strtoul(text, NULL, 10) == 0) {
		snprintf(buf, sz, "%s/bus/event_source/devices/%s/caps/branches is missing or 0",
			 b->env.root, s->pmu_name);
		return buf;
	}
	return NULL;
}

int tdr_plan_call_graph(struct tdr_plan_builder *b)
{
	const struct tdr_plan_opts *o = b->opts;
	uint64_t st = PERF_SAMPLE_CALLCHAIN;
	uint32_t stack = o->stack_size ? o->stack_size : TDR_CALL_GRAPH_STACK_DEFAULT;
	char buf[320];
	const char *why;

	if (o->call_graph == TDR_CALL_GRAPH_DWARF) {
		if (!REGS_USER) {
			tdr_warn("--call-graph dwarf: tdrec does not unwind this architecture's "
				 "registers; use --call-graph fp");
			return -TDR_E_USAGE;
		}
		st |= PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER;
	} else if (o->call_graph == TDR_CALL_GRAPH_LBR) {
		why = lbr_missing(b, buf, sizeof(buf));
		if (why) {
			tdr_warn("--call-graph lbr is not available with plan %s: %s; use "
				 "--call-graph fp or dwarf",
				 tdr_plan_kind_name(b->plan->kind), why);
			return -TDR_E_USAGE;
		}
		st |= PERF_SAMPLE_BRANCH_STACK;
	}
	for (size_t g = 0; g < b->plan->group_cnt; g++) {
		for (size_t i = 0; i < b->plan->groups[g].event_cnt; i++) {
			struct perf_event_attr *a = &b->plan->groups[g].events[i].attr;

			a->sample_type |= st;
			if (o->call_graph == TDR_CALL_GRAPH_DWARF) {
				a->sample_regs_user = REGS_USER;
				a->sample_stack_user = stack;
				a->exclude_callchain_user = 1;
			} else if (o->call_graph == TDR_CALL_GRAPH_LBR) {
				/* perf's LBR call-stack filter: user calls only,
				 * no cycles or flags (smaller records), the
				 * hardware index to stitch with the callchain. */
				a->branch_sample_type =
				    PERF_SAMPLE_BRANCH_USER | PERF_SAMPLE_BRANCH_CALL_STACK |
				    PERF_SAMPLE_BRANCH_NO_CYCLES | PERF_SAMPLE_BRANCH_NO_FLAGS |
				    PERF_SAMPLE_BRANCH_HW_INDEX;
			}
		}
	}
	return 0;
}
