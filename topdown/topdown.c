/*
 * topdown/topdown.c - the TopDown table (rows) and its look-ups.
 *
 * Responsibility: the rows of tdrec/topdown.h, and nothing that reads
 * sysfs, files or perf_event_attrs. Adding a family is adding rows here:
 * its events, its formulas, any new category; plan/ opens whatever a family
 * lists, format/meta.c stores whatever formulas it gives.
 * Sources of the rows: the event aliases and their encodings are the
 * kernel's (arch/x86/events/intel/core.c: slots = event=0x00,umask=0x4,
 * topdown-retiring .. topdown-be-bound = umask 0x80..0x83, heavy-ops ..
 * mem-bound = umask 0x84..0x87); the formulas are the metric-register
 * ratios of Linux tools/perf/Documentation/topdown.txt (each metric over
 * slots; a level-2 sibling is its parent minus the measured level-2
 * metric). Thresholds: docs/report.md "Thresholds".
 * Invariants (tests/topdown/test_topdown_table.c checks them): every
 * category has a parent chain ending at level 1; every event but the
 * leader of a TopDown family has a category; every term names an event of
 * its family; level-2 numerators sum to their parent's.
 */
#include "topdown_int.h"

#include <linux/perf_event.h>
#include <math.h>
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
};

/* --- Intel perf metrics (Ice Lake+: level 1; Sapphire Rapids+: level 2) ---
 * Group {slots, sampler, metrics...}: slots leads and never samples. */
static const struct tdr_td_event pm_l1_events[] = {
    {"slots", TDR_TD_CORE_ALIAS, "slots", 0x0400, TDR_TD_LEADER, NULL},
    {"topdown-retiring", TDR_TD_CORE_ALIAS, "topdown-retiring", 0x8000, 0, "retiring"},
    {"topdown-bad-spec", TDR_TD_CORE_ALIAS, "topdown-bad-spec", 0x8100, 0, "bad-spec"},
    {"topdown-fe-bound", TDR_TD_CORE_ALIAS, "topdown-fe-bound", 0x8200, 0, "fe-bound"},
    {"topdown-be-bound", TDR_TD_CORE_ALIAS, "topdown-be-bound", 0x8300, 0, "be-bound"},
};

static const struct tdr_td_event pm_l2_events[] = {
    {"topdown-heavy-ops", TDR_TD_CORE_ALIAS, "topdown-heavy-ops", 0x8400, 0, "heavy-ops"},
    {"topdown-br-mispredict", TDR_TD_CORE_ALIAS, "topdown-br-mispredict", 0x8500, 0,
     "br-mispredict"},
    {"topdown-fetch-lat", TDR_TD_CORE_ALIAS, "topdown-fetch-lat", 0x8600, 0, "fetch-lat"},
    {"topdown-mem-bound", TDR_TD_CORE_ALIAS, "topdown-mem-bound", 0x8700, 0, "mem-bound"},
};

/* X / slots, and (X - Y) / slots for the derived level-2 siblings. */
#define PM_OVER_SLOTS(cat, ev)                                                                     \
	{cat, false, {{ev, 1.0, false}}, {{"slots", 1.0, false}}}
#define PM_DERIVED(cat, ev, minus)                                                                 \
	{cat, true, {{ev, 1.0, false}, {minus, -1.0, false}}, {{"slots", 1.0, false}}}

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

static const struct tdr_td_family pm_l1 = {
    .name = "topdown-l1",
    .vendor = "GenuineIntel",
    .event_cnt = ARRAY_CNT(pm_l1_events),
    .events = pm_l1_events,
    .formula_cnt = ARRAY_CNT(pm_l1_formulas),
    .formulas = pm_l1_formulas,
};

static const struct tdr_td_family pm_l2 = {
    .name = "topdown-l2",
    .base = &pm_l1,
    .vendor = "GenuineIntel",
    .event_cnt = ARRAY_CNT(pm_l2_events),
    .events = pm_l2_events,
    .formula_cnt = ARRAY_CNT(pm_l2_formulas),
    .formulas = pm_l2_formulas,
};

/* --- Software: no categories. Sampling: cpu-clock leads and samples (the
 * plan drops the member a software -e sampler duplicates); counting has
 * no sampler and counts what a run summary needs. */
static const struct tdr_td_event sw_sample_events[] = {
    {"cpu-clock", TDR_TD_SOFTWARE, NULL, PERF_COUNT_SW_CPU_CLOCK, TDR_TD_LEADER, NULL},
    {"task-clock", TDR_TD_SOFTWARE, NULL, PERF_COUNT_SW_TASK_CLOCK, 0, NULL},
    {"page-faults", TDR_TD_SOFTWARE, NULL, PERF_COUNT_SW_PAGE_FAULTS, 0, NULL},
    {"context-switches", TDR_TD_SOFTWARE, NULL, PERF_COUNT_SW_CONTEXT_SWITCHES, 0, NULL},
};

static const struct tdr_td_event sw_count_events[] = {
    {"task-clock", TDR_TD_SOFTWARE, NULL, PERF_COUNT_SW_TASK_CLOCK, TDR_TD_LEADER, NULL},
    {"context-switches", TDR_TD_SOFTWARE, NULL, PERF_COUNT_SW_CONTEXT_SWITCHES, 0, NULL},
    {"cpu-migrations", TDR_TD_SOFTWARE, NULL, PERF_COUNT_SW_CPU_MIGRATIONS, 0, NULL},
    {"page-faults", TDR_TD_SOFTWARE, NULL, PERF_COUNT_SW_PAGE_FAULTS, 0, NULL},
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
static const struct tdr_td_family *const families[] = {&pm_l2, &pm_l1, &software};

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

double tdr_td_family__coef(const struct tdr_td_family *f, const struct tdr_td_term *t)
{
	return t->per_width ? t->coef * (double)f->width : t->coef;
}

const struct tdr_td_event *tdr_topdown_event_by_raw(const char *vendor, uint64_t config)
{
	for (size_t i = 0; i < ARRAY_CNT(families); i++) {
		const struct tdr_td_family *f = families[i];

		if (vendor && f->vendor && strcmp(vendor, f->vendor))
			continue;
		for (const struct tdr_td_family *g = f; g; g = g->base)
			for (size_t j = 0; j < g->event_cnt; j++)
				if (g->events[j].source == TDR_TD_CORE_ALIAS &&
				    g->events[j].config == config)
					return &g->events[j];
	}
	return NULL;
}
