/*
 * plan/plan_print.c - the --dry-run text of a plan: its notes, its
 * groups and CPUs, and every perf_event_attr field of every member.
 *
 * Responsibility: turn a struct tdr_plan into text a person can check
 * against perf_event_open(2) and docs/kernel.md: numbers for numeric
 * fields, flag names for sample_type and read_format, one line per bit
 * field that is set. It writes only to the stream it is given (cli/ passes
 * stdout); tests read the same text from a memory stream.
 * Shape (stable; tests and users grep it):
 *   plan: topdown-l1
 *   cpu: GenuineIntel,6,106,6 (/proc/cpuinfo)   or   cpu: unknown
 *   width: 6                  (generic-counter families: W, resolved)
 *   note: ...
 *   group 0: 6 events on 4 CPUs: 0-3
 *     event 0: slots (pmu cpu) leader
 *       type                 4 (PMU cpu)
 *       size                 128
 *       config               0x400
 *       ...
 *       exclude_kernel       1
 * Numeric fields are always printed up to wakeup; rarer fields (bp_type,
 * branch_sample_type, registers, stack, aux, sig_data) only when non-zero;
 * bit fields only when set.
 * See: plan.h tdr_plan__print; docs/plans.md.
 */
#include "plan_int.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "tdrec/tdr_mem.h"

struct flag_name {
	uint64_t bit;
	const char *name;
};

static const struct flag_name sample_flags[] = {
    {PERF_SAMPLE_IP, "IP"},
    {PERF_SAMPLE_TID, "TID"},
    {PERF_SAMPLE_TIME, "TIME"},
    {PERF_SAMPLE_ADDR, "ADDR"},
    {PERF_SAMPLE_READ, "READ"},
    {PERF_SAMPLE_CALLCHAIN, "CALLCHAIN"},
    {PERF_SAMPLE_ID, "ID"},
    {PERF_SAMPLE_CPU, "CPU"},
    {PERF_SAMPLE_PERIOD, "PERIOD"},
    {PERF_SAMPLE_STREAM_ID, "STREAM_ID"},
    {PERF_SAMPLE_RAW, "RAW"},
    {PERF_SAMPLE_BRANCH_STACK, "BRANCH_STACK"},
    {PERF_SAMPLE_REGS_USER, "REGS_USER"},
    {PERF_SAMPLE_STACK_USER, "STACK_USER"},
    {PERF_SAMPLE_WEIGHT, "WEIGHT"},
    {PERF_SAMPLE_DATA_SRC, "DATA_SRC"},
    {PERF_SAMPLE_IDENTIFIER, "IDENTIFIER"},
    {PERF_SAMPLE_TRANSACTION, "TRANSACTION"},
    {PERF_SAMPLE_REGS_INTR, "REGS_INTR"},
    {PERF_SAMPLE_PHYS_ADDR, "PHYS_ADDR"},
    {PERF_SAMPLE_AUX, "AUX"},
    {PERF_SAMPLE_CGROUP, "CGROUP"},
    {PERF_SAMPLE_DATA_PAGE_SIZE, "DATA_PAGE_SIZE"},
    {PERF_SAMPLE_CODE_PAGE_SIZE, "CODE_PAGE_SIZE"},
    {PERF_SAMPLE_WEIGHT_STRUCT, "WEIGHT_STRUCT"},
};

static const struct flag_name read_flags[] = {
    {PERF_FORMAT_TOTAL_TIME_ENABLED, "TOTAL_TIME_ENABLED"},
    {PERF_FORMAT_TOTAL_TIME_RUNNING, "TOTAL_TIME_RUNNING"},
    {PERF_FORMAT_ID, "ID"},
    {PERF_FORMAT_GROUP, "GROUP"},
    {PERF_FORMAT_LOST, "LOST"},
};

static const char *const hw_names[PERF_COUNT_HW_MAX] = {
    [PERF_COUNT_HW_CPU_CYCLES] = "PERF_COUNT_HW_CPU_CYCLES",
    [PERF_COUNT_HW_INSTRUCTIONS] = "PERF_COUNT_HW_INSTRUCTIONS",
    [PERF_COUNT_HW_CACHE_REFERENCES] = "PERF_COUNT_HW_CACHE_REFERENCES",
    [PERF_COUNT_HW_CACHE_MISSES] = "PERF_COUNT_HW_CACHE_MISSES",
    [PERF_COUNT_HW_BRANCH_INSTRUCTIONS] = "PERF_COUNT_HW_BRANCH_INSTRUCTIONS",
    [PERF_COUNT_HW_BRANCH_MISSES] = "PERF_COUNT_HW_BRANCH_MISSES",
    [PERF_COUNT_HW_BUS_CYCLES] = "PERF_COUNT_HW_BUS_CYCLES",
    [PERF_COUNT_HW_STALLED_CYCLES_FRONTEND] = "PERF_COUNT_HW_STALLED_CYCLES_FRONTEND",
    [PERF_COUNT_HW_STALLED_CYCLES_BACKEND] = "PERF_COUNT_HW_STALLED_CYCLES_BACKEND",
    [PERF_COUNT_HW_REF_CPU_CYCLES] = "PERF_COUNT_HW_REF_CPU_CYCLES",
};

static const char *const sw_names[PERF_COUNT_SW_MAX] = {
    [PERF_COUNT_SW_CPU_CLOCK] = "PERF_COUNT_SW_CPU_CLOCK",
    [PERF_COUNT_SW_TASK_CLOCK] = "PERF_COUNT_SW_TASK_CLOCK",
    [PERF_COUNT_SW_PAGE_FAULTS] = "PERF_COUNT_SW_PAGE_FAULTS",
    [PERF_COUNT_SW_CONTEXT_SWITCHES] = "PERF_COUNT_SW_CONTEXT_SWITCHES",
    [PERF_COUNT_SW_CPU_MIGRATIONS] = "PERF_COUNT_SW_CPU_MIGRATIONS",
    [PERF_COUNT_SW_PAGE_FAULTS_MIN] = "PERF_COUNT_SW_PAGE_FAULTS_MIN",
    [PERF_COUNT_SW_PAGE_FAULTS_MAJ] = "PERF_COUNT_SW_PAGE_FAULTS_MAJ",
    [PERF_COUNT_SW_ALIGNMENT_FAULTS] = "PERF_COUNT_SW_ALIGNMENT_FAULTS",
    [PERF_COUNT_SW_EMULATION_FAULTS] = "PERF_COUNT_SW_EMULATION_FAULTS",
    [PERF_COUNT_SW_DUMMY] = "PERF_COUNT_SW_DUMMY",
    [PERF_COUNT_SW_BPF_OUTPUT] = "PERF_COUNT_SW_BPF_OUTPUT",
    [PERF_COUNT_SW_CGROUP_SWITCHES] = "PERF_COUNT_SW_CGROUP_SWITCHES",
};

#define FIELD "    %-20s "

/* "0x1c7 (IP|TID|...)" with any unnamed bits as a trailing hex value. */
static void print_flags(FILE *out, const char *field, uint64_t v, const struct flag_name *names,
			size_t cnt)
{
	uint64_t rest = v;
	const char *sep = "";

	fprintf(out, FIELD "0x%" PRIx64 " (", field, v);
	for (size_t i = 0; i < cnt; i++) {
		if (v & names[i].bit) {
			fprintf(out, "%s%s", sep, names[i].name);
			sep = "|";
			rest &= ~names[i].bit;
		}
	}
	if (rest)
		fprintf(out, "%s0x%" PRIx64, sep, rest);
	fprintf(out, ")\n");
}

static void print_type_size_config(FILE *out, const struct perf_event_attr *a,
				   const char *pmu_name)
{
	uint64_t id = a->config & 0xffffffffu;

	if (a->type == PERF_TYPE_HARDWARE) {
		fprintf(out, FIELD "%u (PERF_TYPE_HARDWARE)\n", "type", a->type);
		fprintf(out, FIELD "%u\n", "size", a->size);
		fprintf(out, FIELD "0x%" PRIx64, "config", (uint64_t)a->config);
		if (a->config >> 32) /* extended type: hybrid PMU in bits 32-63 */
			fprintf(out, " (PMU type %" PRIu64 ", %s)", (uint64_t)a->config >> 32,
				id < PERF_COUNT_HW_MAX && hw_names[id] ? hw_names[id] : "?");
		else if (id < PERF_COUNT_HW_MAX && hw_names[id])
			fprintf(out, " (%s)", hw_names[id]);
		fputc('\n', out);
	} else if (a->type == PERF_TYPE_SOFTWARE) {
		fprintf(out, FIELD "%u (PERF_TYPE_SOFTWARE)\n", "type", a->type);
		fprintf(out, FIELD "%u\n", "size", a->size);
		fprintf(out, FIELD "0x%" PRIx64, "config", (uint64_t)a->config);
		if (a->config < PERF_COUNT_SW_MAX && sw_names[a->config])
			fprintf(out, " (%s)", sw_names[a->config]);
		fputc('\n', out);
	} else {
		fprintf(out, FIELD "%u (PMU %s)\n", "type", a->type, pmu_name ? pmu_name : "?");
		fprintf(out, FIELD "%u\n", "size", a->size);
		fprintf(out, FIELD "0x%" PRIx64 "\n", "config", (uint64_t)a->config);
	}
}

static const char *clock_name(int32_t id)
{
	switch (id) {
	case 0:
		return "CLOCK_REALTIME";
	case 1:
		return "CLOCK_MONOTONIC";
	case 4:
		return "CLOCK_MONOTONIC_RAW";
	case 7:
		return "CLOCK_BOOTTIME";
	case 11:
		return "CLOCK_TAI";
	default:
		return "?";
	}
}

static void print_bits(FILE *out, const struct perf_event_attr *a)
{
/* clang-format off */
#define BIT(f) { #f, a->f }
	const struct {
		const char *name;
		uint64_t v;
	} bits[] = {
		BIT(disabled), BIT(inherit), BIT(pinned), BIT(exclusive), BIT(exclude_user),
		BIT(exclude_kernel), BIT(exclude_hv), BIT(exclude_idle), BIT(mmap), BIT(comm),
		BIT(freq), BIT(inherit_stat), BIT(enable_on_exec), BIT(task), BIT(watermark),
		BIT(mmap_data), BIT(sample_id_all), BIT(exclude_host), BIT(exclude_guest),
		BIT(exclude_callchain_kernel), BIT(exclude_callchain_user), BIT(mmap2),
		BIT(comm_exec), BIT(use_clockid), BIT(context_switch), BIT(write_backward),
		BIT(namespaces), BIT(ksymbol), BIT(bpf_event), BIT(aux_output), BIT(cgroup),
		BIT(text_poke), BIT(build_id), BIT(inherit_thread), BIT(remove_on_exec),
		BIT(sigtrap),
	};
	/* clang-format on */
#undef BIT

	for (size_t i = 0; i < TDR_ARRAY_SIZE(bits); i++)
		if (bits[i].v)
			fprintf(out, FIELD "1\n", bits[i].name);
}

void tdr_attr__print(const struct perf_event_attr *a, const char *pmu_name, FILE *out)
{
	print_type_size_config(out, a, pmu_name);
	fprintf(out, FIELD "0x%" PRIx64 "\n", "config1", (uint64_t)a->config1);
	fprintf(out, FIELD "0x%" PRIx64 "\n", "config2", (uint64_t)a->config2);
	if (a->freq)
		fprintf(out, FIELD "%" PRIu64 "\n", "sample_freq", (uint64_t)a->sample_freq);
	else
		fprintf(out, FIELD "%" PRIu64 "\n", "sample_period", (uint64_t)a->sample_period);
	print_flags(out, "sample_type", a->sample_type, sample_flags, TDR_ARRAY_SIZE(sample_flags));
	print_flags(out, "read_format", a->read_format, read_flags, TDR_ARRAY_SIZE(read_flags));
	fprintf(out, FIELD "%u\n", "precise_ip", (unsigned)a->precise_ip);
	fprintf(out, FIELD "%u\n", a->watermark ? "wakeup_watermark" : "wakeup_events",
		a->wakeup_events);
	if (a->use_clockid)
		fprintf(out, FIELD "%d (%s)\n", "clockid", a->clockid, clock_name(a->clockid));
	print_bits(out, a);
	if (a->bp_type)
		fprintf(out, FIELD "%u\n", "bp_type", a->bp_type);
	if (a->branch_sample_type)
		fprintf(out, FIELD "0x%" PRIx64 "\n", "branch_sample_type",
			(uint64_t)a->branch_sample_type);
	if (a->sample_regs_user)
		fprintf(out, FIELD "0x%" PRIx64 "\n", "sample_regs_user",
			(uint64_t)a->sample_regs_user);
	if (a->sample_stack_user)
		fprintf(out, FIELD "%u\n", "sample_stack_user", a->sample_stack_user);
	if (a->sample_regs_intr)
		fprintf(out, FIELD "0x%" PRIx64 "\n", "sample_regs_intr",
			(uint64_t)a->sample_regs_intr);
	if (a->aux_watermark)
		fprintf(out, FIELD "%u\n", "aux_watermark", a->aux_watermark);
	if (a->sample_max_stack)
		fprintf(out, FIELD "%u\n", "sample_max_stack", a->sample_max_stack);
	if (a->aux_sample_size)
		fprintf(out, FIELD "%u\n", "aux_sample_size", a->aux_sample_size);
	if (a->sig_data)
		fprintf(out, FIELD "0x%" PRIx64 "\n", "sig_data", (uint64_t)a->sig_data);
}

void tdr_plan__print(const struct tdr_plan *plan, FILE *out)
{
	fprintf(out, "plan: %s\n", tdr_plan_kind_name(plan->kind));
	if (plan->cpuid[0])
		fprintf(out, "cpu: %s (%s)\n", plan->cpuid, plan->cpuid_from);
	else
		fprintf(out, "cpu: unknown (the generic-counter plans need TDREC_CPUID or "
			     "/proc/cpuinfo)\n");
	if (plan->width)
		fprintf(out, "width: %u\n", plan->width);
	for (size_t i = 0; i < plan->note_cnt; i++)
		fprintf(out, "note: %s\n", plan->notes[i]);
	for (size_t g = 0; g < plan->group_cnt; g++) {
		const struct tdr_plan_group *grp = &plan->groups[g];
		char cpus[512];

		tdr_cpulist__format(grp->cpus, grp->cpu_cnt, cpus, sizeof(cpus));
		fprintf(out, "group %zu: %zu events on %zu CPUs: %s", g, grp->event_cnt,
			grp->cpu_cnt, cpus);
		/* A hybrid part's E-core group names its own family. */
		if (grp->kind)
			fprintf(out, " (%s, width %u)", tdr_plan_kind_name(grp->kind), grp->width);
		fputc('\n', out);
		for (size_t i = 0; i < grp->event_cnt; i++) {
			const struct tdr_plan_event *ev = &grp->events[i];

			fprintf(out, "  event %zu: %s (pmu %s)%s%s\n", i, ev->name, ev->pmu_name,
				ev->flags & TDR_EVENT_LEADER ? " leader" : "",
				ev->flags & TDR_EVENT_SAMPLER ? " sampler" : "");
			tdr_attr__print(&ev->attr, ev->pmu_name, out);
		}
	}
	fprintf(out, "(attr fields not listed are 0)\n");
}
