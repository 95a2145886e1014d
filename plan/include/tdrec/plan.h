/*
 * plan/include/tdrec/plan.h - PMU discovery from sysfs and event plans.
 *
 * Responsibility: read <sysfs>/bus/event_source/devices/<pmu>/{type,events,
 * format,cpus,caps} and the CPU identity, and turn a requested plan (a
 * family of the TopDown table, tdrec/topdown.h: perf metrics L1+L2 or L1,
 * a generic-counter family such as amd-zen4, or software) into the exact
 * perf_event_attr of every group member. Perf metrics follow the kernel's
 * TopDown rules (slots leads and never samples; the sampler is the second
 * member and the only one with a period; metric members have
 * sample_period = 0, freq = 0; same exclude_* everywhere); generic
 * families lead with the sampler. Event strings are turned into config
 * bits through the PMU's format/ files, never hard-coded.
 * It opens nothing: runtime/session.c does, and asks for the next plan when
 * the kernel refuses one (tdr_plan_kind__fallback).
 * Objects and lifecycle: tdr_plan__choose / __build -> use -> __free.
 * See: docs/plans.md; docs/kernel.md "TopDown group rules", "Hybrid parts",
 * "sysfs event and format files".
 */
#ifndef TDREC_PLAN_H
#define TDREC_PLAN_H

#include <linux/perf_event.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "tdrec/tdr_api.h"
#include "tdrec/format.h"
#include "tdrec/plan_paranoid.h"
#include "tdrec/topdown.h"

/*
 * A plan kind is a family of the TopDown table: kind k (1 <= k <
 * TDR_PLAN_KIND_CNT) is tdr_topdown_family_at(k - 1), named by the
 * family's name ("topdown-l2", "amd-zen4", "software"), and tried in that
 * order under AUTO. Only the first two and the last have constants here:
 * every other family is reached by its name (tdr_plan_kind_parse).
 */
enum tdr_plan_kind {
	TDR_PLAN_AUTO = 0,			 /* first that fits, in table order */
	TDR_PLAN_TOPDOWN_L2 = 1,		 /* slots, sampler, 4 L1 + 4 L2 metrics */
	TDR_PLAN_TOPDOWN_L1 = 2,		 /* slots, sampler, 4 L1 metrics (ICL+) */
	TDR_PLAN_SOFTWARE = TDR_TD_FAMILY_CNT,	 /* the table's last family */
	TDR_PLAN_KIND_CNT = TDR_TD_FAMILY_CNT + 1,
};

/* The family's name ("auto" for AUTO, "none" out of range). */
TDR_API const char *tdr_plan_kind_name(enum tdr_plan_kind kind);
/* Parse a --plan argument: "auto" or any family name of the table.
 * Returns 0 or -TDR_E_USAGE (not logged: the caller says which option was
 * wrong, in one line). */
TDR_API int tdr_plan_kind_parse(const char *text, enum tdr_plan_kind *out);
/* The plan to try after kind failed to open: the family it extends
 * (topdown-l2 -> topdown-l1), else software; TDR_PLAN_KIND_CNT after
 * software. */
TDR_API enum tdr_plan_kind tdr_plan_kind__fallback(enum tdr_plan_kind kind);
/* The names of every kind, "auto|topdown-l2|...|software", for --help. */
TDR_API const char *tdr_plan_kind_names(void);

/* The sampler given with -e, parsed once by cli/ (docs/architecture.md "Conventions"). */
enum tdr_event_spec_kind {
	TDR_SPEC_NAMED = 0, /* "cycles", "instructions", "cpu-clock", or a sysfs event name */
	TDR_SPEC_RAW,	    /* "rNNNN": raw config on the core PMU */
	TDR_SPEC_PMU,	    /* "pmu/event=0x3c,umask=0x0/" */
};

struct tdr_event_spec {
	enum tdr_event_spec_kind kind;
	char name[64];	  /* NAMED: the event name; PMU: the PMU name */
	char terms[256];  /* PMU: the terms between the slashes */
	uint64_t config;  /* RAW: the config */
	int precise;	  /* ":p" = 1, ":pp" = 2, ":ppp" = 3 */
	char text[320];	  /* the text as given, for messages */
};

/* Parse -e text. Returns 0 or -TDR_E_USAGE (with a logged reason). */
TDR_API int tdr_event_spec__parse(const char *text, struct tdr_event_spec *out);

/* Call stacks of a sampling plan (tdrec record -g / --call-graph). */
enum tdr_call_graph {
	TDR_CALL_GRAPH_NONE = 0,
	TDR_CALL_GRAPH_FP,    /* the kernel walks frame pointers: PERF_SAMPLE_CALLCHAIN */
	TDR_CALL_GRAPH_DWARF, /* + a copy of the user registers and stack, unwound offline */
	TDR_CALL_GRAPH_LBR,   /* + the LBR call stack (Intel core PMUs with caps/branches) */
};
/* --call-graph dwarf's stack copy: perf's default and the kernel's largest
 * multiple of 8 (a sample's size is a u16). */
#define TDR_CALL_GRAPH_STACK_DEFAULT 8192u
#define TDR_CALL_GRAPH_STACK_MAX 65528u

struct tdr_plan_opts {
	const char *sysfs_root; /* NULL: $TDREC_SYSFS (if set and non-empty), else "/sys" */
	/* Where the CPU identity and the NMI watchdog are read: NULL is
	 * "/proc" when the sysfs root is "/sys", else none (a fake sysfs tree
	 * describes another machine than this /proc). */
	const char *proc_root;
	/* The CPU identity in perf's CPUID form ("AuthenticAMD,25,17,1"); NULL:
	 * $TDREC_CPUID when set and non-empty, else <proc_root>/cpuinfo, else
	 * the MIDR under the sysfs root (arm64). docs/plans.md "CPU identity". */
	const char *cpuid;
	/* NULL: "cycles" for TopDown plans; the software plan always samples
	 * cpu-clock unless the sampler is itself a software event. */
	const struct tdr_event_spec *sampler;
	/* The events after the sampler (perf's -e a,b or -e a -e b): the
	 * software plan reads each software one in its group (once), and
	 * notes the others as ignored; other plans note them all as ignored
	 * (their group is the TopDown family's). */
	const struct tdr_event_spec *extra;
	size_t extra_cnt;
	uint64_t sample_period; /* exactly one of period and freq is non-zero, */
	uint64_t sample_freq;	/* unless counting */
	bool counting;		/* no sampler at all (tdrec stat) */
	bool kernel;		/* count kernel mode too (exclude_kernel = 0) */
	/* Count the software events that only happen in the kernel
	 * (context-switches, cpu-migrations) with exclude_kernel = 0 even
	 * without 'kernel': they say nothing about kernel code, and would read
	 * 0 otherwise. Only where allowed (tdr_plan_kernel_counts_allowed). */
	bool kernel_sw_counts;
	bool inherit;		/* follow threads and children */
	bool enable_on_exec;	/* launched program: disabled + enable_on_exec */
	bool read_lost;		/* add PERF_FORMAT_LOST to read_format */
	int clockid;		/* -1: the kernel's default perf clock */
	/* Call stacks on every member (the group's sample_type stays one);
	 * stack_size: the dwarf copy in bytes, a multiple of 8 up to
	 * TDR_CALL_GRAPH_STACK_MAX (0: the default). Ignored when counting. */
	enum tdr_call_graph call_graph;
	uint32_t stack_size;
};

/* "fp", "dwarf", "lbr" ("none" for NONE). */
TDR_API const char *tdr_call_graph_name(enum tdr_call_graph cg);

#define TDR_PLAN_MAX_EVENTS 12
#define TDR_PLAN_MAX_GROUPS 3
#define TDR_PLAN_MAX_NOTES 12

struct tdr_plan_event {
	char name[64];	   /* "slots", "cycles", "topdown-retiring", "cpu-clock" */
	char pmu_name[64]; /* "cpu", "cpu_core", "software" */
	uint32_t flags;	   /* TDR_EVENT_LEADER | TDR_EVENT_SAMPLER (format.h) */
	struct perf_event_attr attr;
};

struct tdr_plan_group {
	size_t event_cnt; /* leader first */
	struct tdr_plan_event events[TDR_PLAN_MAX_EVENTS];
	size_t cpu_cnt; /* CPUs this group may be opened on */
	int *cpus;	/* owned by the plan */
	/* The family of this group when it is not the plan's (the E-core group
	 * of a hybrid part: docs/plans.md "Hybrid parts") and its resolved W;
	 * TDR_PLAN_AUTO (0): the plan's kind and width. */
	enum tdr_plan_kind kind;
	uint32_t width;
};

struct tdr_plan {
	enum tdr_plan_kind kind;
	/* W of the family's per-width terms as resolved on this machine (a
	 * .scale for intel-skl), 0 for plans without them; stored resolved in
	 * files (tdr_plan__to_meta). */
	uint32_t width;
	/* The CPU identity the plan was chosen for, "" when none was found,
	 * and where it came from ("TDREC_CPUID", "/proc/cpuinfo"). */
	char cpuid[64];
	char cpuid_from[64];
	size_t group_cnt;
	struct tdr_plan_group groups[TDR_PLAN_MAX_GROUPS];
	/* Lines for the user: why a better plan was skipped, CPUs not measured. */
	size_t note_cnt;
	char notes[TDR_PLAN_MAX_NOTES][256];
	/* The first skip_note_cnt notes say why better plans were skipped
	 * (tdr_plan__choose under AUTO), the best last; the others are about
	 * this plan itself (hybrid CPUs left out, an -e that was ignored). */
	size_t skip_note_cnt;
};

/*
 * Build the plan kind (not AUTO) for this machine's sysfs.
 * Returns: 0, -TDR_E_NOPLAN when the PMU lacks the events (a note in the log
 * says which), -TDR_E_USAGE for a sampler that cannot be resolved, -ENOMEM.
 * Also: -TDR_E_USAGE when a sampling plan has neither or both of
 * sample_period and sample_freq; -TDR_E_CORRUPT for a damaged sysfs (a type
 * that is not a number, an event term without a format file: logged, naming
 * it); -ENOENT when <sysfs>/devices/system/cpu/online is missing; -EINVAL for
 * kind AUTO. *out is set only on success; the caller owns it (__free).
 */
TDR_API int tdr_plan__build(const struct tdr_plan_opts *opts, enum tdr_plan_kind kind,
			    struct tdr_plan **out);

/*
 * Build opts->... for kind, or for AUTO the first plan that fits; the plan's
 * notes say why better plans were skipped. Same returns as __build.
 * Under AUTO only -TDR_E_NOPLAN skips a plan; any other error is returned.
 */
TDR_API int tdr_plan__choose(const struct tdr_plan_opts *opts, enum tdr_plan_kind kind,
			     struct tdr_plan **out);

/* Fill meta's plan name, events (name, PMU, attr; no ids) and TopDown
 * categories from plan. Returns 0 or -ENOMEM.
 * Events and notes are appended to those already in meta; sample_period /
 * sample_freq and clockid are set from the sampler's attr; meta->flags is
 * not touched. On -ENOMEM meta stays valid for tdr_meta__clear. */
TDR_API int tdr_plan__to_meta(const struct tdr_plan *plan, struct tdr_meta *meta);

/* --dry-run: the plan, its notes and every attr field by field, to out
 * (a stream the caller owns, e.g. stdout from cli/). Shape: docs/plans.md. */
TDR_API void tdr_plan__print(const struct tdr_plan *plan, FILE *out);

/* One attr field by field, in the --dry-run shape above (also used by
 * 'tdrec info --verbose'). pmu_name names a dynamic PMU type (NULL: "?"). */
TDR_API void tdr_attr__print(const struct perf_event_attr *attr, const char *pmu_name, FILE *out);

TDR_API void tdr_plan__free(struct tdr_plan *plan);


#endif /* TDREC_PLAN_H */
