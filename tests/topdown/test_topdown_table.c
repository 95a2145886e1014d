/*
 * tests/topdown/test_topdown_table.c - the TopDown table (tdrec/topdown.h).
 *
 * What must hold for every family the table has or will have: every event
 * of a TopDown family but its leader is measured for a known category;
 * every category has a parent chain ending at level 1; every formula term
 * names an event of its family; the formulas as format/ stores them make
 * level-2 children add up to their parent; the raw configs the perf.data
 * importer matches are what the kernel's sysfs aliases and the table's
 * terms encode to (checked against the fake trees, through the plan's own
 * encoder); the generic families' stored formulas give hand-computed
 * fractions; perf.data attrs find their events by CPU identity.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>
#include <math.h>

#include "plan_int.h" /* the plan's own encoder: tdr_sysfs__read, tdr_pmu__encode */
#include "support/sysfs_test_util.h"
#include "tdrec/cpuid.h"
#include "tdrec/format.h"
#include "topdown_int.h" /* tdr_topdown_category_cnt/_at */
#include "tdrec/topdown.h"

static bool family_has_event(const struct tdr_td_family *f, const char *name)
{
	for (int counting = 0; counting < 2; counting++)
		for (size_t i = 0; i < tdr_td_family__event_cnt(f, counting); i++)
			if (!strcmp(tdr_td_family__event(f, counting, i)->name, name))
				return true;
	return false;
}

static void test_topdown__categories_chain_to_level1(void **state)
{
	(void)state;
	assert_true(tdr_topdown_category_cnt() > 0);
	for (size_t i = 0; i < tdr_topdown_category_cnt(); i++) {
		const struct tdr_td_category *c = tdr_topdown_category_at(i);
		size_t steps = 0;

		assert_ptr_equal(tdr_topdown_category(c->key), c); /* keys are unique */
		assert_true(strlen(c->label) <= 6);
		assert_true(c->glyph != '\0');
		assert_true(isnan(c->threshold) || (c->threshold > 0 && c->threshold < 1));
		while (c->parent) {
			const struct tdr_td_category *p = tdr_topdown_category(c->parent);

			assert_non_null(p);
			assert_int_equal(c->level, p->level + 1);
			c = p;
			assert_true(++steps < 8);
		}
		assert_int_equal(c->level, 1);
	}
	assert_null(tdr_topdown_category("no-such-category"));
	assert_true(isnan(tdr_topdown_threshold("no-such-category")));
	assert_true(isnan(tdr_topdown_threshold(NULL)));
}

static void test_topdown__events_have_categories(void **state)
{
	(void)state;
	for (size_t fi = 0; fi < tdr_topdown_family_cnt(); fi++) {
		const struct tdr_td_family *f = tdr_topdown_family_at(fi);
		bool topdown = tdr_td_family__formula_cnt(f) > 0;

		assert_ptr_equal(tdr_topdown_family(f->name), f);
		for (int counting = 0; counting < 2; counting++) {
			size_t cnt = tdr_td_family__event_cnt(f, counting), leaders = 0;

			assert_true(cnt > 0);
			for (size_t i = 0; i < cnt; i++) {
				const struct tdr_td_event *e = tdr_td_family__event(f, counting, i);

				/* The leader comes first, and only once. */
				assert_int_equal(!!(e->flags & TDR_TD_LEADER), i == 0);
				leaders += !!(e->flags & TDR_TD_LEADER);
				if (e->source == TDR_TD_CORE_ALIAS)
					assert_non_null(e->alias);
				/* The first event of a further counting group
				 * (a denominator: ls_not_halted_cyc) may have
				 * no category of its own. */
				bool group_lead = e->group &&
						  tdr_td_family__event(f, counting, i - 1)->group !=
						      e->group;

				if (!topdown || (e->flags & TDR_TD_LEADER) || group_lead)
					continue;
				assert_non_null(e->category);
				assert_non_null(tdr_topdown_category(e->category));
			}
			assert_int_equal(leaders, 1);
		}
		assert_null(tdr_td_family__event(f, false, tdr_td_family__event_cnt(f, false)));
	}
	assert_null(tdr_topdown_family("no-such-plan"));
}

/* The group of event name in f (the first family event of that name). */
static uint32_t group_of(const struct tdr_td_family *f, const char *name)
{
	for (size_t i = 0; i < tdr_td_family__event_cnt(f, false); i++)
		if (!strcmp(tdr_td_family__event(f, false, i)->name, name))
			return tdr_td_family__event(f, false, i)->group;
	fail();
	return 0;
}

/* Every term of a ratio is counted in one group, so multiplexing between
 * groups cancels in it (tdrec stat never scales counts). */
static bool one_group(const struct tdr_td_family *f, const struct tdr_td_term *num,
		      const struct tdr_td_term *den)
{
	uint32_t g = group_of(f, den[0].event);

	for (size_t t = 0; t < TDR_TD_MAX_TERMS && num[t].event; t++)
		if (group_of(f, num[t].event) != g)
			return false;
	for (size_t t = 0; t < TDR_TD_MAX_TERMS && den[t].event; t++)
		if (group_of(f, den[t].event) != g)
			return false;
	return true;
}

/* A product formula: 1 to 3 factors a part, each a ratio of the family's
 * events counted in one group. */
static void check_parts(const struct tdr_td_family *f, const struct tdr_td_formula *fo)
{
	assert_null(fo->num[0].event);
	assert_null(fo->den[0].event);
	assert_true(fo->part_cnt <= TDR_CATEGORY_MAX_PARTS);
	for (size_t p = 0; p < fo->part_cnt; p++) {
		size_t factors = 0;

		for (size_t i = 0; i < TDR_TD_MAX_FACTORS && fo->parts[p].f[i].den[0].event; i++) {
			const struct tdr_td_ratio *r = &fo->parts[p].f[i];

			factors++;
			for (size_t t = 0; t < TDR_TD_MAX_TERMS && r->num[t].event; t++)
				assert_true(family_has_event(f, r->num[t].event));
			for (size_t t = 0; t < TDR_TD_MAX_TERMS && r->den[t].event; t++)
				assert_true(family_has_event(f, r->den[t].event));
			assert_true(one_group(f, r->num, r->den));
			/* A weighted term's weight is a plain ratio of one
			 * group (so it cancels multiplexing too). */
			for (size_t t = 0; t < 2 * TDR_TD_MAX_TERMS; t++) {
				const struct tdr_td_term *x =
				    t < TDR_TD_MAX_TERMS ? &r->num[t] : &r->den[t - TDR_TD_MAX_TERMS];
				const struct tdr_td_ratio *w = x->event ? x->weight : NULL;

				if (!w)
					continue;
				assert_non_null(w->den[0].event);
				assert_true(one_group(f, w->num, w->den));
				for (size_t u = 0; u < TDR_TD_MAX_TERMS; u++)
					assert_true(!w->num[u].weight && !w->den[u].weight);
			}
		}
		assert_true(factors >= 1);
	}
}

/* Each formula has a known category, once per family, and terms that name
 * the family's events; each measured event's category has a formula. */
static void test_topdown__formulas_name_family_events(void **state)
{
	(void)state;
	for (size_t fi = 0; fi < tdr_topdown_family_cnt(); fi++) {
		const struct tdr_td_family *f = tdr_topdown_family_at(fi);
		size_t cnt = tdr_td_family__formula_cnt(f);

		for (size_t i = 0; i < cnt; i++) {
			const struct tdr_td_formula *fo = tdr_td_family__formula(f, i);

			assert_non_null(tdr_topdown_category(fo->category));
			for (size_t j = 0; j < i; j++)
				assert_string_not_equal(tdr_td_family__formula(f, j)->category,
							fo->category);
			if (fo->part_cnt) {
				check_parts(f, fo);
				continue;
			}
			assert_non_null(fo->num[0].event);
			assert_non_null(fo->den[0].event);
			/* The linear form has no weighted terms. */
			for (size_t t = 0; t < TDR_TD_MAX_TERMS; t++)
				assert_true(!fo->num[t].weight && !fo->den[t].weight);
			for (size_t t = 0; t < TDR_TD_MAX_TERMS && fo->num[t].event; t++)
				assert_true(family_has_event(f, fo->num[t].event));
			for (size_t t = 0; t < TDR_TD_MAX_TERMS && fo->den[t].event; t++)
				assert_true(family_has_event(f, fo->den[t].event));
			assert_true(one_group(f, &fo->num[0], &fo->den[0]));
		}
		for (size_t i = 0; i < tdr_td_family__event_cnt(f, false); i++) {
			const struct tdr_td_event *e = tdr_td_family__event(f, false, i);
			bool found = !e->category;

			for (size_t j = 0; j < cnt && !found; j++)
				found = !strcmp(tdr_td_family__formula(f, j)->category, e->category);
			assert_true(found);
		}
	}
}

/* A meta holding family f's events, named as the table names them. */
static void meta_of_family(struct tdr_meta *m, const struct tdr_td_family *f)
{
	size_t cnt = tdr_td_family__event_cnt(f, false);

	memset(m, 0, sizeof(*m));
	m->events = calloc(cnt, sizeof(*m->events));
	assert_non_null(m->events);
	for (size_t i = 0; i < cnt; i++) {
		m->events[i].name = strdup(tdr_td_family__event(f, false, i)->name);
		m->event_cnt++;
	}
}

static int stored_idx(const struct tdr_meta *m, const char *name)
{
	for (size_t i = 0; i < m->category_cnt; i++)
		if (!strcmp(m->categories[i].name, name))
			return (int)i;
	return -1;
}

/* The formulas as stored: every family's categories come out in table
 * order, and the children of each parent add up to it. */
static void test_topdown__stored_children_sum_to_parent(void **state)
{
	(void)state;
	for (size_t fi = 0; fi < tdr_topdown_family_cnt(); fi++) {
		const struct tdr_td_family *f = tdr_topdown_family_at(fi);
		size_t cnt = tdr_td_family__formula_cnt(f);
		uint64_t deltas[32];
		struct tdr_meta m;

		if (!cnt)
			continue;
		meta_of_family(&m, f);
		assert_true(m.event_cnt <= 32);
		assert_int_equal(tdr_meta__add_family_categories(&m, f, 0), (int)cnt);
		assert_int_equal(m.category_cnt, cnt);
		/* Deltas that keep every remainder positive: the leader (the
		 * slots) largest, each later event a little smaller. */
		for (size_t i = 0; i < m.event_cnt; i++)
			deltas[i] = i ? 1000 - 37 * i : 1000000;
		for (size_t i = 0; i < cnt; i++) {
			const struct tdr_category *c = &m.categories[i];
			const struct tdr_td_category *def = tdr_topdown_category(c->name);
			double sum = 0, parent;
			bool any = false;

			assert_string_equal(c->name, tdr_td_family__formula(f, i)->category);
			assert_int_equal(c->level, def->level);
			for (size_t j = 0; j < cnt; j++) {
				const struct tdr_category *k = &m.categories[j];

				if (k->parent && !strcmp(k->parent, c->name)) {
					sum += tdr_category__value(k, deltas, m.event_cnt);
					any = true;
				}
			}
			if (!any)
				continue;
			parent = tdr_category__value(c, deltas, m.event_cnt);
			assert_true(parent > 0);
			assert_true(fabs(sum - parent) < 1e-12);
		}
		/* Nothing is added twice. */
		assert_int_equal(tdr_meta__add_family_categories(&m, f, 0), 0);
		assert_int_equal(tdr_meta__add_topdown_categories(&m), 0);
		tdr_meta__clear(&m);
	}
}

/* The file format of level 2 as written so far: names, parents, flags and
 * terms of the stored categories, by hand. */
static void test_topdown__stored_l2_is_unchanged(void **state)
{
	static const struct {
		const char *name, *parent, *num0, *num1;
	} want[] = {
	    {"retiring", NULL, "topdown-retiring", NULL},
	    {"bad-spec", NULL, "topdown-bad-spec", NULL},
	    {"fe-bound", NULL, "topdown-fe-bound", NULL},
	    {"be-bound", NULL, "topdown-be-bound", NULL},
	    {"heavy-ops", "retiring", "topdown-heavy-ops", NULL},
	    {"br-mispredict", "bad-spec", "topdown-br-mispredict", NULL},
	    {"fetch-lat", "fe-bound", "topdown-fetch-lat", NULL},
	    {"mem-bound", "be-bound", "topdown-mem-bound", NULL},
	    {"light-ops", "retiring", "topdown-retiring", "topdown-heavy-ops"},
	    {"machine-clears", "bad-spec", "topdown-bad-spec", "topdown-br-mispredict"},
	    {"fetch-bw", "fe-bound", "topdown-fe-bound", "topdown-fetch-lat"},
	    {"core-bound", "be-bound", "topdown-be-bound", "topdown-mem-bound"},
	};
	struct tdr_meta m;

	(void)state;
	meta_of_family(&m, tdr_topdown_family("topdown-l2"));
	assert_int_equal(tdr_meta__add_topdown_categories(&m), 12);
	for (size_t i = 0; i < 12; i++) {
		const struct tdr_category *c = &m.categories[i];

		assert_string_equal(c->name, want[i].name);
		assert_int_equal(c->level, want[i].parent ? 2 : 1);
		if (want[i].parent)
			assert_string_equal(c->parent, want[i].parent);
		else
			assert_null(c->parent);
		assert_int_equal(c->flags, want[i].num1 ? TDR_CATEGORY_DERIVED : 0);
		assert_int_equal(c->num_cnt, want[i].num1 ? 2 : 1);
		assert_string_equal(m.events[c->num[0].event_idx].name, want[i].num0);
		assert_true(c->num[0].coef == 1.0);
		if (want[i].num1) {
			assert_string_equal(m.events[c->num[1].event_idx].name, want[i].num1);
			assert_true(c->num[1].coef == -1.0);
		}
		assert_int_equal(c->den_cnt, 1);
		assert_string_equal(m.events[c->den[0].event_idx].name, "slots");
		assert_true(c->den[0].coef == 1.0);
	}
	assert_int_equal(stored_idx(&m, "core-bound"), 11);
	tdr_meta__clear(&m);
}

/* The importer's raw configs are what the kernel's aliases encode to: the
 * level-2 plan on the Sapphire Rapids tree, built by the plan's encoder,
 * has every table event at its raw config. */
static void test_topdown__raw_configs_match_sysfs(void **state)
{
	struct tdr_plan_opts o = plan_opts_on("sapphire-rapids");
	const struct tdr_td_family *f = tdr_topdown_family("topdown-l2");
	struct tdr_plan *p = NULL;
	size_t matched = 0;

	(void)state;
	o.counting = true;
	o.sample_period = 0;
	assert_int_equal(tdr_plan__build(&o, TDR_PLAN_TOPDOWN_L2, &p), 0);
	for (size_t i = 0; i < p->groups[0].event_cnt; i++) {
		const struct tdr_plan_event *pe = &p->groups[0].events[i];
		const struct tdr_td_event *e = tdr_td_family__event(f, true, i);

		assert_string_equal(pe->name, e->name);
		assert_int_equal(pe->attr.config, e->config);
		assert_ptr_equal(tdr_topdown_event_by_raw("GenuineIntel", e->config), e);
		assert_ptr_equal(tdr_topdown_event_by_raw(NULL, e->config), e);
		/* Raw configs mean other events on other vendors. */
		assert_null(tdr_topdown_event_by_raw("AuthenticAMD", e->config));
		matched++;
	}
	assert_int_equal(matched, tdr_td_family__event_cnt(f, true));
	assert_null(tdr_topdown_event_by_raw("GenuineIntel", 0x3c));
	tdr_plan__free(p);
}

/* Every event says how it is opened; generic families (those that need a
 * CPU identity) lead with PERF_TYPE_HARDWARE cycles and name the core PMUs
 * they run on. */
static void test_topdown__events_encoded(void **state)
{
	(void)state;
	for (size_t fi = 0; fi < tdr_topdown_family_cnt(); fi++) {
		const struct tdr_td_family *f = tdr_topdown_family_at(fi);

		for (size_t i = 0; i < tdr_td_family__event_cnt(f, false); i++) {
			const struct tdr_td_event *e = tdr_td_family__event(f, false, i);

			switch (e->source) {
			case TDR_TD_CORE_ALIAS:
				assert_non_null(e->alias);
				assert_true(e->config != 0);
				break;
			case TDR_TD_CORE_TERMS:
				assert_non_null(e->terms);
				assert_true(e->config != 0);
				break;
			case TDR_TD_HARDWARE:
				assert_true(e->config < PERF_COUNT_HW_MAX);
				break;
			case TDR_TD_SOFTWARE:
				assert_true(e->config < PERF_COUNT_SW_MAX);
				break;
			default:
				fail();
			}
			assert_true(strlen(e->name) < 64); /* struct tdr_plan_event name */
		}
		if (!f->ident_required)
			continue;
		assert_non_null(f->vendor);
		assert_non_null(f->pmus[0]);
		assert_true(f->width > 0);
		assert_true(f->counters > 0);
		if (!strcmp(f->vendor, "ARM")) {
			/* CPU_CYCLES (0x11, the cycle counter) by its alias. */
			assert_int_equal(tdr_td_family__event(f, false, 0)->source,
					 TDR_TD_CORE_ALIAS);
			assert_int_equal(tdr_td_family__event(f, false, 0)->config, 0x11);
			assert_string_equal(tdr_td_family__event(f, false, 0)->name, "cpu_cycles");
		} else {
			assert_int_equal(tdr_td_family__event(f, false, 0)->source,
					 TDR_TD_HARDWARE);
			assert_int_equal(tdr_td_family__event(f, false, 0)->config,
					 PERF_COUNT_HW_CPU_CYCLES);
			assert_string_equal(tdr_td_family__event(f, false, 0)->name, "cycles");
		}
		/* Each group fits the general counters: on Intel cycles and
		 * instructions go to fixed counters; Skylake-SP's level-2
		 * group 2 needs Hyper-Threading off (docs/plans.md). */
		for (uint32_t g = 0; g < 3; g++) {
			size_t n = 0;

			for (size_t i = 0; i < tdr_td_family__event_cnt(f, false); i++) {
				const struct tdr_td_event *e = tdr_td_family__event(f, false, i);

				bool fixed = f->fixed_cycles &&
					     (e->source == TDR_TD_HARDWARE || (!g && !i));

				n += e->group == g && !fixed;
			}
			assert_true(n <= (f->counters_smt_off ? f->counters_smt_off : f->counters));
			if (!strcmp(f->name, "intel-skl-l2"))
				assert_true(g == 2 ? n > f->counters : n <= f->counters);
		}
	}
}

/* Encode terms on PMU pmu of fake tree tree through its format/ files. */
static uint64_t encode_on(const char *tree, const char *pmu_name, const char *terms)
{
	struct perf_event_attr attr = {0};
	struct tdr_sysfs *sys = NULL;
	struct tdr_pmu pmu;

	assert_int_equal(tdr_sysfs__read(fixture(tree), NULL, &sys), 0);
	assert_int_equal(tdr_pmu__open(sys, pmu_name, &pmu), 0);
	assert_int_equal(tdr_pmu__encode(&pmu, terms, &attr), 0);
	tdr_sysfs__free(sys);
	return attr.config;
}

/* The alias text of tree's PMU, encoded. */
static uint64_t alias_on(const char *tree, const char *pmu_name, const char *alias)
{
	struct tdr_sysfs *sys = NULL;
	char terms[256];
	struct tdr_pmu pmu;

	assert_int_equal(tdr_sysfs__read(fixture(tree), NULL, &sys), 0);
	assert_int_equal(tdr_pmu__open(sys, pmu_name, &pmu), 0);
	assert_int_equal(tdr_pmu__event_terms(&pmu, alias, terms, sizeof(terms)), 0);
	tdr_sysfs__free(sys);
	return encode_on(tree, pmu_name, terms);
}

/* The raw configs of the generic families are what the format files of a
 * tree of their vendor encode the terms to; the pre-Ice Lake aliases
 * encode to config with HT off and config_alt with HT on. */
static void test_topdown__generic_raw_configs_match_format(void **state)
{
	static const struct {
		const char *family, *tree, *pmu;
	} where[] = {
	    {"amd-zen4", "genoa", "cpu"},	      {"amd-zen5", "turin", "cpu"},
	    {"gracemont", "alderlake-hybrid", "cpu_atom"}, {"crestmont", "sierra-forest", "cpu"},
	    {"skymont", "arrow-lake", "cpu_atom"},	      {"intel-skl-l2", "skylake-sp-noht", "cpu"},
	};
	const struct tdr_td_family *skl = tdr_topdown_family("intel-skl");
	size_t checked = 0;

	(void)state;
	for (size_t w = 0; w < sizeof(where) / sizeof(where[0]); w++) {
		const struct tdr_td_family *f = tdr_topdown_family(where[w].family);

		assert_non_null(f);
		for (size_t i = 0; i < tdr_td_family__event_cnt(f, false); i++) {
			const struct tdr_td_event *e = tdr_td_family__event(f, false, i);

			if (e->source != TDR_TD_CORE_TERMS)
				continue;
			assert_int_equal(encode_on(where[w].tree, where[w].pmu, e->terms), e->config);
			checked++;
		}
	}
	assert_int_equal(checked, 5 + 5 + 3 + 4 + 4 + 10);
	/* By hand: AMD's event bits 8-11 go to config bits 32-35. */
	assert_int_equal(encode_on("genoa", "cpu", "event=0x1a0,umask=0x1e"), 0x100001ea0ull);
	for (size_t i = 0; i < tdr_td_family__event_cnt(skl, false); i++) {
		const struct tdr_td_event *e = tdr_td_family__event(skl, false, i);

		if (e->source != TDR_TD_CORE_ALIAS)
			continue;
		assert_int_equal(alias_on("skylake-sp-noht", "cpu", e->alias), e->config);
		assert_int_equal(alias_on("skylake-sp-ht", "cpu", e->alias),
				 e->config_alt ? e->config_alt : e->config);
		checked++;
	}
	assert_int_equal(checked, 31 + 4);
	assert_int_equal(alias_on("skylake-sp-ht", "cpu", "topdown-recovery-bubbles"), 0x0120030d);
	/* The alias the group does not open (its .scale gives W). */
	assert_int_equal(alias_on("skylake-sp-noht", "cpu", skl->gate[0]), 0x3c);
}

static struct tdr_cpuid cpu_of(const char *text)
{
	struct tdr_cpuid c;

	assert_int_equal(tdr_cpuid_parse(text, &c), 0);
	return c;
}

/* Identity: vendor, family, model; unknown CPUs get only the families that
 * need no identity. */
static void test_topdown__families_match_cpus(void **state)
{
	static const struct {
		const char *cpuid, *pmu, *family;
	} want[] = {
	    {"AuthenticAMD,25,17,1", "cpu", "amd-zen4"},     /* Genoa */
	    {"AuthenticAMD,25,97,2", "cpu", "amd-zen4"},     /* Raphael 0x61 */
	    {"AuthenticAMD,26,2,1", "cpu", "amd-zen5"},      /* Turin */
	    {"AuthenticAMD,26,80,0", "cpu", "amd-zen5"},     /* Zen 6, 0x50 */
	    {"GenuineIntel,6,85,7", "cpu", "topdown-l2"},    /* CLX: perf metrics first, */
	    {"GenuineIntel,6,175,3", "cpu", "topdown-l2"},   /* their aliases decide */
	    {"GenuineIntel,6,175,3", "cpu_atom", "crestmont"}, /* SRF 0xaf */
	    {"GenuineIntel,6,151,2", "cpu_atom", "gracemont"}, /* ADL 0x97 */
	    {"GenuineIntel,6,198,2", "cpu_atom", "skymont"},   /* ARL 0xc6 */
	};

	(void)state;
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		struct tdr_cpuid c = cpu_of(want[i].cpuid);
		const struct tdr_td_family *f = tdr_topdown_family_for_cpu(&c, want[i].pmu);

		assert_non_null(f);
		assert_string_equal(f->name, want[i].family);
	}
	/* Zen 3 (family 25 model 0x21) has no PipelineL1; Zen 2 family 23. */
	struct tdr_cpuid zen3 = cpu_of("AuthenticAMD,25,33,0"), zen2 = cpu_of("AuthenticAMD,23,49,0");
	assert_null(tdr_topdown_family_for_cpu(&zen3, "cpu"));
	assert_null(tdr_topdown_family_for_cpu(&zen2, NULL));
	assert_false(tdr_td_family__matches(tdr_topdown_family("topdown-l1"), &zen3));
	/* Skylake-SP is intel-skl, not Crestmont; Ice Lake is neither. */
	struct tdr_cpuid skx = cpu_of("GenuineIntel,6,85,4"), icx = cpu_of("GenuineIntel,6,106,6");
	assert_true(tdr_td_family__matches(tdr_topdown_family("intel-skl"), &skx));
	assert_false(tdr_td_family__matches(tdr_topdown_family("intel-skl"), &icx));
	assert_false(tdr_td_family__matches(tdr_topdown_family("crestmont"), &skx));
	/* No identity: only the families that need none. */
	assert_false(tdr_td_family__matches(tdr_topdown_family("amd-zen4"), NULL));
	assert_true(tdr_td_family__matches(tdr_topdown_family("topdown-l1"), NULL));
	assert_true(tdr_td_family__matches(tdr_topdown_family("software"), &zen2));
	assert_true(tdr_td_family__runs_on(tdr_topdown_family("crestmont"), "cpu"));
	assert_true(tdr_td_family__runs_on(tdr_topdown_family("crestmont"), "cpu_atom"));
	assert_false(tdr_td_family__runs_on(tdr_topdown_family("skymont"), "cpu"));
}

/* A perf.data file of `perf record -e '{cycles,ex_ret_ops,...}:S'` on Zen 4
 * names its events with the table's names; colliding raw configs are told
 * apart by the CPU. */
static void test_topdown__event_by_attr(void **state)
{
	struct tdr_cpuid genoa = cpu_of("AuthenticAMD,25,17,1");
	struct tdr_cpuid skx = cpu_of("GenuineIntel,6,85,7");
	struct tdr_cpuid arl = cpu_of("GenuineIntel,6,198,2");
	struct tdr_cpuid vendor_only = {.known = false};
	const struct tdr_td_event *e;

	(void)state;
	e = tdr_topdown_event_by_attr(&genoa, PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES);
	assert_non_null(e);
	assert_string_equal(e->name, "cycles");
	e = tdr_topdown_event_by_attr(&genoa, PERF_TYPE_RAW, 0x76); /* ls_not_halted_cyc */
	assert_non_null(e);
	assert_string_equal(e->name, "cycles");
	e = tdr_topdown_event_by_attr(&genoa, PERF_TYPE_RAW, 0x1000001a0ull);
	assert_non_null(e);
	assert_string_equal(e->name, "de_no_dispatch_per_slot.no_ops_from_frontend");
	e = tdr_topdown_event_by_attr(&genoa, PERF_TYPE_RAW, 0x1000060a0ull);
	assert_string_equal(e->name, "de_no_dispatch_per_slot.smt_contention");
	assert_string_equal(e->category, "smt-contention");
	assert_string_equal(tdr_topdown_event_by_attr(&genoa, 4, 0x07aa)->name,
			    "de_src_op_disp.all");
	assert_string_equal(tdr_topdown_event_by_attr(&genoa, 4, 0xc1)->name, "ex_ret_ops");
	/* 0x2c2: retire slots on Skylake, retiring on Skymont (cpu_atom has a
	 * dynamic type). */
	assert_string_equal(tdr_topdown_event_by_attr(&skx, 4, 0x02c2)->name,
			    "topdown-slots-retired");
	assert_string_equal(tdr_topdown_event_by_attr(&arl, 10, 0x02c2)->name,
			    "topdown_retiring.all_p");
	assert_string_equal(tdr_topdown_event_by_attr(&skx, 4, 0x0120030d)->name,
			    "topdown-recovery-bubbles");
	/* The hybrid PMU type in bits 32-63 of a hardware config. */
	assert_string_equal(
	    tdr_topdown_event_by_attr(&arl, PERF_TYPE_HARDWARE, (10ull << 32) | 0)->name, "cycles");
	/* Not a core PMU type, not an event of the table, another vendor. */
	assert_null(tdr_topdown_event_by_attr(&genoa, PERF_TYPE_SOFTWARE, 0));
	assert_null(tdr_topdown_event_by_attr(&genoa, PERF_TYPE_RAW, 0x12345));
	assert_null(tdr_topdown_event_by_attr(&genoa, PERF_TYPE_RAW, 0x8000));
	assert_null(tdr_topdown_event_by_attr(&vendor_only, PERF_TYPE_HARDWARE, 1));
	assert_string_equal(tdr_topdown_event_by_attr(NULL, 4, 0x8000)->name, "topdown-retiring");
	assert_null(tdr_topdown_event_by_raw("AuthenticAMD", 0x02c2));
	assert_string_equal(tdr_topdown_event_by_raw("AuthenticAMD", 0xc1)->name, "ex_ret_ops");
}

/* Hand-computed level 1 of each generic family, from the formulas as a
 * file stores them (with a W resolved from a .scale for intel-skl). */
static void test_topdown__generic_formulas_by_hand(void **state)
{
	static const struct {
		const char *family;
		uint32_t width; /* 0: the family's */
		uint64_t deltas[6];
		double want[5]; /* retiring, bad-spec, fe-bound, be-bound, smt-contention */
	} cases[] = {
	    /* cycles, no_ops_from_frontend, backend_stalls, smt_contention,
	     * de_src_op_disp.all, ex_ret_ops; slots 6000 / 8000 */
	    {"amd-zen4", 0, {1000, 600, 1200, 300, 3900, 3000}, {0.5, 0.15, 0.1, 0.2, 0.05}},
	    {"amd-zen5", 0, {1000, 600, 1200, 300, 3900, 3000},
	     {0.375, 0.1125, 0.075, 0.15, 0.0375}},
	    /* cycles, issued, retired, fetch bubbles, recovery; W = 4: slots
	     * 4000, bad = (1500 - 1200 + 4*50) / 4000, be = (4000 - 400 - 1500
	     * - 200) / 4000 */
	    {"intel-skl", 4, {1000, 1500, 1200, 400, 50}, {0.3, 0.125, 0.1, 0.475, -1}},
	    /* W = 2 (HT on): slots 2000, bad = (300 + 100) / 2000, be = (2000
	     * - 400 - 1500 - 100) / 2000 */
	    {"intel-skl", 2, {1000, 1500, 1200, 400, 50}, {0.6, 0.2, 0.2, 0.0, -1}},
	    /* cycles, retiring, fe, be; bad = (5000 - 1000 - 1500 - 2000) / 5000 */
	    {"gracemont", 0, {1000, 2000, 1000, 1500}, {0.4, 0.1, 0.2, 0.3, -1}},
	    /* cycles, retiring, bad, fe, be over 6000 / 8000 */
	    {"crestmont", 0, {1000, 1800, 600, 1200, 2400}, {0.3, 0.1, 0.2, 0.4, -1}},
	    {"skymont", 0, {1000, 1800, 600, 1200, 2400}, {0.225, 0.075, 0.15, 0.3, -1}},
	};
	static const char *const keys[] = {"retiring", "bad-spec", "fe-bound", "be-bound",
					   "smt-contention"};

	(void)state;
	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		const struct tdr_td_family *f = tdr_topdown_family(cases[c].family);
		struct tdr_meta m;

		meta_of_family(&m, f);
		assert_int_equal(tdr_meta__add_family_categories(&m, f, cases[c].width),
				 (int)tdr_td_family__formula_cnt(f));
		for (size_t k = 0; k < 5; k++) {
			int idx = stored_idx(&m, keys[k]);

			if (cases[c].want[k] < 0) {
				assert_int_equal(idx, -1);
				continue;
			}
			assert_true(idx >= 0);
			assert_true(fabs(tdr_category__value(&m.categories[idx], cases[c].deltas,
							     m.event_cnt) -
					 cases[c].want[k]) < 1e-12);
			assert_int_equal(m.categories[idx].level, 1);
		}
		tdr_meta__clear(&m);
	}
}

/* Skylake-SP level 2 (intel-skl-l2, W = 4) on one function's summed
 * deltas, by hand. Group 0: cycles 1000, issued 1800, retired 1600, fetch
 * bubbles 800, recovery 50: retiring 0.4, bad-spec (200 + 200) / 4000 =
 * 0.1, fe 0.2, be (4000 - 800 - 1800 - 200) / 4000 = 0.3. Group 1: cycles
 * 500, CYCLES_0_UOPS_DELIV 50, mispredicts 30, clears 10: fetch-lat 4 * 50
 * / 2000 = 0.1, fetch-bw 0.1, br-mispredict 0.1 * 30/40 = 0.075,
 * machine-clears 0.025. Group 2: cycles 2000, STALLS_MEM_ANY 300,
 * BOUND_ON_STORES 100, STALLS_TOTAL 500, 1_PORTS 200, 2_PORTS 250, retire
 * slots 3200, macro-fused 200, instructions 2600: mem-bound 0.3 * 400 /
 * (500 + 200 + 0.4 * 250 + 100) = 2/15, core-bound 1/6, heavy-ops 800 /
 * 8000 = 0.1, light-ops 0.3. */
static void test_topdown__skx_l2_by_hand(void **state)
{
	static const uint64_t d[18] = {1000, 1800, 1600, 800, 50,  500, 50,   30,  10,
				       2000, 300,  100,	 500, 200, 250, 3200, 200, 2600};
	static const struct {
		const char *key;
		double want;
	} want[] = {{"retiring", 0.4},	      {"bad-spec", 0.1},	 {"fe-bound", 0.2},
		    {"be-bound", 0.3},	      {"heavy-ops", 0.1},	 {"light-ops", 0.3},
		    {"br-mispredict", 0.075}, {"machine-clears", 0.025}, {"fetch-lat", 0.1},
		    {"fetch-bw", 0.1},	      {"mem-bound", 2.0 / 15},	 {"core-bound", 1.0 / 6}};
	const struct tdr_td_family *f = tdr_topdown_family("intel-skl-l2");
	uint64_t scaled[18];
	struct tdr_meta m;

	(void)state;
	assert_non_null(f);
	meta_of_family(&m, f);
	assert_int_equal(m.event_cnt, 18);
	assert_string_equal(m.events[14].name, "exe_activity.2_ports_util");
	assert_int_equal(tdr_meta__add_family_categories(&m, f, 4), 12);
	/* Multiplexing: group 1 counted half the time, group 2 three times
	 * as long as group 0; no value moves. */
	for (size_t i = 0; i < 18; i++)
		scaled[i] = i < 5 ? d[i] : i < 9 ? d[i] / 2 : 3 * d[i];
	for (size_t k = 0; k < sizeof(want) / sizeof(want[0]); k++) {
		int idx = stored_idx(&m, want[k].key);

		assert_true(idx >= 0);
		assert_true(fabs(tdr_category__value(&m.categories[idx], d, 18) - want[k].want) <
			    1e-12);
		assert_true(fabs(tdr_category__value(&m.categories[idx], scaled, 18) -
				 want[k].want) < 1e-12);
	}
	/* Only the memory split needs the weighted form. */
	for (size_t i = 0; i < m.category_cnt; i++)
		assert_int_equal(tdr_category__weighted(&m.categories[i]),
				 !strcmp(m.categories[i].name, "mem-bound") ||
				     !strcmp(m.categories[i].name, "core-bound"));
	tdr_meta__clear(&m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_topdown__categories_chain_to_level1),
	    cmocka_unit_test(test_topdown__events_have_categories),
	    cmocka_unit_test(test_topdown__formulas_name_family_events),
	    cmocka_unit_test(test_topdown__stored_children_sum_to_parent),
	    cmocka_unit_test(test_topdown__skx_l2_by_hand),
	    cmocka_unit_test(test_topdown__stored_l2_is_unchanged),
	    cmocka_unit_test(test_topdown__raw_configs_match_sysfs),
	    cmocka_unit_test(test_topdown__events_encoded),
	    cmocka_unit_test(test_topdown__generic_raw_configs_match_format),
	    cmocka_unit_test(test_topdown__families_match_cpus),
	    cmocka_unit_test(test_topdown__event_by_attr),
	    cmocka_unit_test(test_topdown__generic_formulas_by_hand),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
