/*
 * tests/topdown/test_topdown_table.c - the TopDown table (tdrec/topdown.h).
 *
 * What must hold for every family the table has or will have: every event
 * of a TopDown family but its leader is measured for a known category;
 * every category has a parent chain ending at level 1; every formula term
 * names an event of its family; the formulas as format/ stores them make
 * level-2 children add up to their parent; the raw configs the perf.data
 * importer matches are what the kernel's sysfs aliases encode to (checked
 * against the fake trees, through the plan's own encoder).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>
#include <math.h>

#include "support/sysfs_test_util.h"
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
				if (!topdown || (e->flags & TDR_TD_LEADER))
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
			assert_non_null(fo->num[0].event);
			assert_non_null(fo->den[0].event);
			for (size_t t = 0; t < TDR_TD_MAX_TERMS && fo->num[t].event; t++)
				assert_true(family_has_event(f, fo->num[t].event));
			for (size_t t = 0; t < TDR_TD_MAX_TERMS && fo->den[t].event; t++)
				assert_true(family_has_event(f, fo->den[t].event));
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
		assert_int_equal(tdr_meta__add_topdown_categories(&m), (int)cnt);
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

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_topdown__categories_chain_to_level1),
	    cmocka_unit_test(test_topdown__events_have_categories),
	    cmocka_unit_test(test_topdown__formulas_name_family_events),
	    cmocka_unit_test(test_topdown__stored_children_sum_to_parent),
	    cmocka_unit_test(test_topdown__stored_l2_is_unchanged),
	    cmocka_unit_test(test_topdown__raw_configs_match_sysfs),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
