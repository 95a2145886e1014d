/*
 * topdown/include/tdrec/topdown.h - the TopDown table: every event a plan
 * opens, every category a report shows, and the formulas between them.
 *
 * Responsibility: one home for the TopDown vocabulary. A family is one
 * way of measuring TopDown on some CPUs: Intel perf-metrics level 1 on Ice
 * Lake+ and level 2 on Sapphire Rapids+; generic counters on Intel before
 * Ice Lake, on the E-cores (Gracemont, Crestmont, Skymont), on AMD Zen
 * 4 and Zen 5/6 (level 1, and level 2 for counting) and on Arm Neoverse
 * N2, V1, V2, N3 and V3; and the software plan, which has events but no
 * categories. A family says which CPUs it is for (vendor, CPU family,
 * models) and on which core PMUs it runs ("cpu", "cpu_atom"). For each
 * event of a family the table gives its name (the name plans and files
 * use, perf's own where perf has one), how it is opened (the sysfs alias
 * of the core PMU, terms encoded through the core PMU's format/ files,
 * PERF_TYPE_HARDWARE, or a software config), the raw config the perf.data
 * importer recognises, and the category whose formula it is measured
 * for. For each category it gives the key stored in files, the
 * parent, the level, the text label and glyph, and the bottleneck
 * threshold. plan/ builds groups from it, format/meta.c turns its formulas
 * into the categories stored in a file, parser/perfdata_td.c names imported
 * events with it, report/ and stat/ read labels and thresholds from it.
 * Nothing else names a TopDown event, config or threshold.
 *
 * Why a module of its own at the bottom of the graph (it depends on libc
 * and linux/perf_event.h only, and format/ links it): the table is not
 * part of the file format (docs/format.md stays the byte specification;
 * files store the formulas, not a reference to this table), but every
 * module from plan/ to report/ must read it, and a new family should be
 * rows in one folder, not edits across four.
 *
 * A formula is value = sum(num) / sum(den) (shown as computed, flagged
 * outside 0-100%: tdr_category_out_of_range), or a sum of products of
 * such ratios (Arm Neoverse, AMD level 2), each term
 * coef * (W if per_width) * delta(event), with W the family's pipeline
 * width. That is exactly what a file stores (format.h struct tdr_category,
 * with coef already multiplied out), and it carries the generic-counter
 * families: "backend_stalls / (6 * cycles)" is num {backend_stalls, 1},
 * den {cycles, 1, per_width}; "(dispatched - retired) / (W * cycles)" is
 * two num terms; "1 - a/S - b/S" is {cycles, 1, per_width}, {a, -1},
 * {b, -1} over S.
 *
 * Objects and lifecycle: static constant data; nothing to free. Every
 * pointer returned is valid for the life of the program. Thread-safe.
 * See: docs/plans.md "The TopDown table"; docs/report.md "Thresholds";
 * Linux tools/perf/Documentation/topdown.txt.
 */
#ifndef TDREC_TOPDOWN_H
#define TDREC_TOPDOWN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tdrec/tdr_api.h"

/* One category of the TopDown tree. */
struct tdr_td_category {
	const char *key;    /* stored in files as the category name: "bad-spec" */
	const char *parent; /* key of the level-1 parent; NULL at level 1 */
	uint32_t level;	    /* 1 or 2 */
	const char *label;  /* text column label, at most 6 characters: "BadSpc" */
	char glyph;	    /* the text bar's character */
	double threshold;   /* bottleneck above this fraction of slots; NAN: never */
};

/* How a table event is opened. */
enum tdr_td_source {
	TDR_TD_CORE_ALIAS = 0, /* sysfs alias in the core PMU's events/, encoded
				* through its format/ files */
	TDR_TD_SOFTWARE,       /* PERF_TYPE_SOFTWARE with config */
	TDR_TD_CORE_TERMS,     /* terms ("event=0x1a0,umask=0x1") encoded
				* through the core PMU's format/ files */
	TDR_TD_HARDWARE,       /* PERF_TYPE_HARDWARE with config (cycles; on
				* hybrid parts the PMU type goes in config
				* bits 32-63) */
};

/* Event roles in a family's group. */
#define TDR_TD_LEADER (1u << 0) /* leads the group (and is the slots count) */

struct tdr_td_event {
	const char *name;	    /* in plans and files: "topdown-retiring" */
	enum tdr_td_source source;
	const char *alias;	    /* CORE_ALIAS: the sysfs alias it is opened by */
	uint64_t config;	    /* SOFTWARE, HARDWARE: attr.config;
				     * CORE_ALIAS, CORE_TERMS: the raw config
				     * (PERF_TYPE_RAW) the perf.data importer
				     * recognises it by, what the format/ files
				     * encode the alias or terms to */
	uint32_t flags;		    /* TDR_TD_LEADER */
	const char *category;	    /* key of the category it is measured for,
				     * NULL for the leader and software events */
	const char *terms;	    /* CORE_TERMS: "event=0xc1" */
	/* Another raw config that means this event, 0: none. CORE_ALIAS: the
	 * encoding of the kernel's text with Hyper-Threading on (the
	 * EVENT_ATTR_STR_HT aliases add any=1); HARDWARE: the raw event the
	 * vendor's core PMU counts it as (cycles = 0x76 on AMD). */
	uint64_t config_alt;
	/* The group it is opened in: 0 the family's first group, 1.. further
	 * groups, each led by its first event (AMD level 2: tdrec stat,
	 * docs/stat.md "Multiplexing"; record samples each group on its
	 * leader, docs/plans.md "Level 2 in record"). */
	uint32_t group;
};

#define TDR_TD_MAX_TERMS 6

struct tdr_td_ratio;

/* coef * (W when per_width) * delta(event), times weight when it is not
 * NULL: a term whose coefficient is itself a ratio of counts (Skylake-SP's
 * memory bound weighs 2_PORTS_UTIL by retiring). Only a factor of the
 * product form has weighted terms, and a weight has none of its own
 * (docs/format.md section 5.2, WPART). */
struct tdr_td_term {
	const char *event; /* a name of the family's events; NULL ends the list */
	double coef;
	bool per_width;
	const struct tdr_td_ratio *weight;
};

/* One ratio sum(num) / sum(den); a part's factor list ends at the first
 * ratio whose den[0].event is NULL. */
struct tdr_td_ratio {
	struct tdr_td_term num[TDR_TD_MAX_TERMS];
	struct tdr_td_term den[TDR_TD_MAX_TERMS];
};

#define TDR_TD_MAX_FACTORS 3

/* One part of a product formula: the product of its ratios. */
struct tdr_td_part {
	struct tdr_td_ratio f[TDR_TD_MAX_FACTORS];
};

/*
 * Linear (part_cnt 0): sum(num) / sum(den). Product (part_cnt > 0, num
 * and den unused): the sum over parts of the product of their ratios
 * (format.h struct tdr_category). Every ratio's terms are counted in one
 * group, so multiplexing between groups scales its numerator and
 * denominator alike and cancels (tests/topdown checks it).
 */
struct tdr_td_formula {
	const char *category; /* its key */
	bool derived;	      /* computed from other measured values
			       * (TDR_CATEGORY_DERIVED in files) */
	struct tdr_td_term num[TDR_TD_MAX_TERMS];
	struct tdr_td_term den[TDR_TD_MAX_TERMS];
	size_t part_cnt;
	const struct tdr_td_part *parts;
};

/* CPU models first..last (inclusive) of a family. */
struct tdr_td_models {
	uint32_t first, last;
};

#define TDR_TD_MAX_PMUS 3

/*
 * One way of measuring. A family that extends a base has the base's events
 * (first) and formulas (first) plus its own. Plans open events in that
 * order, the leader first. Perf-metrics families: the sampler goes second
 * (slots leads and never samples). Generic families: the sampler leads
 * (the leader, cycles, when no -e is given) and the others are members.
 */
struct tdr_td_family {
	const char *name;		     /* the plan name: "topdown-l2" */
	const struct tdr_td_family *base;    /* NULL or the family it extends */
	const char *vendor;		     /* the CPU vendor ("GenuineIntel"); also
					      * where the raw configs mean these
					      * events, for the importer */
	uint32_t width;			     /* W of per_width terms; 0: none */
	/* Identity (tdrec/cpuid.h): cpu_family 0 is any; model_cnt 0 is any
	 * model. ident_required: a plan needs a CPU identity that matches
	 * (generic counters mean these events only on these CPUs); without
	 * it the sysfs aliases alone decide (perf metrics). */
	uint32_t cpu_family;
	size_t model_cnt;
	const struct tdr_td_models *models;
	bool ident_required;
	/* The core PMUs it runs on, in the order tried; NULL ends. */
	const char *pmus[TDR_TD_MAX_PMUS + 1]; /* "name*": any PMU whose name
						* starts with "name" */
	/* The sysfs alias whose .scale gives W on this machine (the kernel
	 * prints 4 with Hyper-Threading off, 2 with it on), NULL: W is width.
	 * Plans resolve it when built and store the resolved coefficients. */
	const char *width_scale;
	/* W is the core PMU's caps/slots when it has one (Arm: PMMIR_EL1.SLOTS,
	 * drivers/perf/arm_pmuv3.c slots_show), else width. */
	bool width_caps_slots;
	/* Several groups the kernel multiplexes (AMD level 2): tdrec stat's
	 * default; record's auto choice passes it by and builds it only when
	 * asked by name, every group then sampling on cycles (events: the
	 * sampling list, count_events: the counting one). */
	bool counting_only;
	/* Aliases that must exist in the core PMU's events/ though no group
	 * member opens them (the alias that carries the .scale); NULL ends. */
	const char *gate[2];
	/* Counter budget (docs/plans.md "Counter budget"): general-purpose
	 * counters per hardware thread (with SMT on where that halves them),
	 * with SMT off (0: the same), and whether cycles has a fixed counter
	 * (Intel) or takes a general one (AMD). 0 counters: not checked. */
	uint32_t counters;
	uint32_t counters_smt_off;
	bool fixed_cycles;
	size_t event_cnt;
	const struct tdr_td_event *events;   /* own events, group order */
	size_t count_event_cnt;		     /* counting plans: other members */
	const struct tdr_td_event *count_events; /* NULL: events */
	size_t formula_cnt;
	const struct tdr_td_formula *formulas; /* own formulas, stored order */
};

/* The category with key, or NULL. */
TDR_API const struct tdr_td_category *tdr_topdown_category(const char *key);
/* Its threshold, NAN for NULL, unknown keys and never-bottleneck ones. */
TDR_API double tdr_topdown_threshold(const char *key);

/* How many families the table has (tdr_topdown_family_cnt; a constant
 * so that plan kinds can name the last, software). */
#define TDR_TD_FAMILY_CNT 17

/* All families, best first: perf metrics level 2 and level 1, the generic
 * families, software last. The plan kinds are these, in this order
 * (tdrec/plan.h). */
TDR_API size_t tdr_topdown_family_cnt(void);
TDR_API const struct tdr_td_family *tdr_topdown_family_at(size_t idx);
/* The family serving plan name, or NULL. */
TDR_API const struct tdr_td_family *tdr_topdown_family(const char *name);

/*
 * The family's events including its base's, base first: idx from 0 to
 * tdr_td_family__event_cnt - 1. counting selects count_events where a
 * family has them. Returns NULL past the end.
 */
TDR_API size_t tdr_td_family__event_cnt(const struct tdr_td_family *f, bool counting);
TDR_API const struct tdr_td_event *tdr_td_family__event(const struct tdr_td_family *f,
							bool counting, size_t idx);
/* The same for formulas. */
TDR_API size_t tdr_td_family__formula_cnt(const struct tdr_td_family *f);
TDR_API const struct tdr_td_formula *tdr_td_family__formula(const struct tdr_td_family *f,
							    size_t idx);
/* The same with width W instead of the family's (a W resolved from a
 * .scale when the plan was built). */
TDR_API double tdr_td_family__coef_w(const struct tdr_td_family *f, const struct tdr_td_term *t,
				     uint32_t width);

struct tdr_cpuid;

/*
 * Whether CPU cpu is one f is for: vendor, CPU family and model all match.
 * A NULL or unknown cpu matches only families that do not require an
 * identity (ident_required false). A family with no vendor (software)
 * matches every CPU.
 */
TDR_API bool tdr_td_family__matches(const struct tdr_td_family *f, const struct tdr_cpuid *cpu);
/* Whether f runs on core PMU pmu ("cpu", "cpu_core", "cpu_atom",
 * "armv8_pmuv3_0"). */
TDR_API bool tdr_td_family__runs_on(const struct tdr_td_family *f, const char *pmu);

/*
 * The first TopDown family (with formulas, best first, not counting-only:
 * files are sampled) for CPU cpu whose
 * core PMUs include pmu (NULL: any), or NULL. For the importer: a file's
 * CPUID header and PMU names choose the formulas (Zen 4 and Zen 5 have
 * the same event names but not the same width).
 */
TDR_API const struct tdr_td_family *tdr_topdown_family_for_cpu(const struct tdr_cpuid *cpu,
							      const char *pmu);

/*
 * The table event a perf.data attr names: type PERF_TYPE_RAW (the core
 * PMU "cpu" or "cpu_core", type 4) or a dynamic core PMU type (cpu_atom;
 * the caller passes one only for a core PMU) with a raw config, or
 * PERF_TYPE_HARDWARE with a generic config (bits 32-63, the hybrid PMU
 * type, are ignored). Families for cpu come first (tdr_td_family__matches;
 * raw configs mean other events on other CPUs: 0x2c2 is retire slots on
 * Skylake and retiring on Skymont); when none of them has the event, any
 * family of cpu's vendor (every family when cpu is NULL or unknown), best
 * first. Returns NULL for anything else.
 */
TDR_API const struct tdr_td_event *tdr_topdown_event_by_attr(const struct tdr_cpuid *cpu,
							     uint32_t type, uint64_t config);

/*
 * The table event a perf.data attr of PERF_TYPE_RAW with config names, on a
 * CPU of vendor (NULL: the file does not say; any family matches), or NULL.
 * Raw configs mean other events on other vendors, hence the vendor.
 * (tdr_topdown_event_by_attr with an identity that has only a vendor.)
 */
TDR_API const struct tdr_td_event *tdr_topdown_event_by_raw(const char *vendor, uint64_t config);

#endif /* TDREC_TOPDOWN_H */
