/*
 * tests/stat/test_stat_hybrid.c - 'tdrec stat' on a hybrid part: one
 * counting group per core PMU (the Alder Lake tree with an identity:
 * topdown-l2 on cpu_core, gracemont on cpu_atom), each core type's
 * categories over its own slots, named per core ("retiring:core",
 * "retiring:atom"), the slots of both core types added, and "counted" as
 * the share of the program's run time either group counted (the groups are
 * on disjoint CPUs, so their running times add up). Every number by hand.
 * The stat object is put together from known sums; nothing is opened.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <math.h>

#include "report/json_mini.h"
#include "stat_test_util.h"

#define assert_near(a, b) assert_true(fabs((a) - (b)) < 1e-9)

/* cpu_core: slots, retiring, bad-spec, fe-bound, be-bound, heavy-ops,
 * br-mispredict, fetch-lat, mem-bound; cpu_atom: cycles, retiring.all,
 * fe_bound.all, be_bound.all (W = 5: 400 cycles = 2000 slots). */
static const uint64_t totals[13] = {1000, 400, 100, 200, 300, 100, 50, 150, 200,
				    400,  1000, 400, 500};

struct fx {
	struct tdr_stat_opts o;
	struct tdr_stat_out so;
	struct tdr_stat *st;
	char *text;
	size_t len;
	FILE *out;
};

static void make(struct fx *f, enum tdr_report_format fmt, uint64_t run_core, uint64_t run_atom)
{
	struct tdr_plan_opts po = stat_popts("alderlake-hybrid");
	struct tdr_stat *st = calloc(1, sizeof(*st));
	struct tdr_plan *plan = NULL;
	struct stat_unit *u = calloc(1, sizeof(*u));

	po.cpuid = "GenuineIntel,6,151,2";
	assert_int_equal(tdr_plan__choose(&po, TDR_PLAN_AUTO, &plan), 0);
	assert_int_equal(plan->group_cnt, 2);
	f->out = open_memstream(&f->text, &f->len);
	tdr_stat_out__init(&f->so, f->out, fmt);
	st->opts = &f->o;
	st->sw.fd = -1;
	st->plan = plan;
	assert_int_equal(tdr_stat_schema__init(&st->sc, plan, false), 0);
	memcpy(u->sum.v, totals, sizeof(totals));
	u->sum.running_ns[0] = run_core;
	u->sum.enabled_ns[0] = 1000;
	u->sum.running_ns[1] = run_atom;
	u->sum.enabled_ns[1] = 1000;
	u->sum.ref_ns = 1000; /* the program ran 1000 ns */
	u->has_ref = true;
	st->total = u;
	st->tg.pids = calloc(1, sizeof(pid_t));
	st->tg.pids[0] = 4242;
	st->tg.cnt = 1;
	st->sum.launched = st->sum.exited = true;
	st->sum.duration_ns = 2000000000;
	st->done = true;
	snprintf(st->what, sizeof(st->what), "./app");
	f->st = st;
	assert_int_equal(tdr_stat_out__render(&f->so, f->st), 0);
	fflush(f->out);
}

static int setup(void **state)
{
	*state = calloc(1, sizeof(struct fx));
	return 0;
}

static int teardown(void **state)
{
	struct fx *f = *state;

	if (f->st)
		tdr_stat__free(f->st);
	tdr_stat_out__clear(&f->so);
	if (f->out)
		fclose(f->out);
	free(f->text);
	free(f);
	return 0;
}

/* The rows' numbers: each core type's formulas over its own slots. */
static void test_stat_hybrid__categories_per_core(void **state)
{
	struct fx *f = *state;
	struct tdr_stat_row r;
	struct tdr_stat_category c;
	size_t n;

	make(f, TDR_FMT_TEXT, 600, 400);
	n = f->st->sc.meta.category_cnt;
	assert_int_equal(n, 16);
	tdr_stat__total_row(f->st, &r);
	/* slots: 1000 on cpu_core + 5 * 400 on cpu_atom */
	assert_near(r.slots, 3000);
	/* cpu_core: retiring 400 / 1000, mem-bound 200 / 1000 */
	assert_near(r.cats[0], 0.4);
	assert_near(r.cats[7], 0.2);
	/* gracemont: retiring 1000 / 2000, bad-spec (2000 - 1900) / 2000,
	 * fe 400 / 2000, be 500 / 2000 */
	assert_near(r.cats[12], 0.5);
	assert_near(r.cats[13], 0.05);
	assert_near(r.cats[14], 0.2);
	assert_near(r.cats[15], 0.25);
	/* The program's 1000 ns: 600 on the P-cores, 400 on the E-cores. */
	assert_near(r.counted, 1.0);
	assert_false(r.multiplexed);
	assert_near(r.group_counted[0], 0.6);
	assert_near(r.group_counted[1], 0.4);
	tdr_stat__category(f->st, 12, &c);
	assert_string_equal(c.key, "retiring");
	assert_string_equal(c.core, "cpu_atom");
	assert_int_equal(c.level, 1);
	tdr_stat__category(f->st, 7, &c);
	assert_string_equal(c.core, "cpu_core");
	assert_int_equal(c.parent_idx, 3); /* be-bound of cpu_core, not of cpu_atom */
	/* The text names each core's lines. */
	assert_non_null(strstr(f->text, "retiring:core"));
	assert_non_null(strstr(f->text, "retiring:atom"));
	assert_non_null(strstr(f->text, "3,000"));
	assert_non_null(strstr(f->text, "plan topdown-l2 on 24 CPUs")); /* 16 + 8 */
	assert_non_null(strstr(f->text, "counted all the time"));
}

/* Run time only partly counted: multiplexed (or other CPUs). */
static void test_stat_hybrid__counted_adds_the_core_types(void **state)
{
	struct fx *f = *state;
	struct tdr_stat_row r;

	make(f, TDR_FMT_TEXT, 300, 200);
	tdr_stat__total_row(f->st, &r);
	assert_near(r.counted, 0.5);
	assert_true(r.multiplexed);
}

static void test_stat_hybrid__json(void **state)
{
	struct fx *f = *state;
	const struct jm *cats, *k, *total;
	size_t where = 0;
	struct jm *doc;

	make(f, TDR_FMT_JSON, 600, 400);
	doc = jm_parse(f->text, &where);
	if (!doc)
		fail_msg("bad JSON at %zu:\n%s", where, f->text);
	cats = jm_get(doc, "categories");
	assert_int_equal(cats->n, 16);
	k = jm_at(cats, 12);
	assert_string_equal(jm_get(k, "name")->str, "retiring:atom");
	assert_string_equal(jm_get(k, "core")->str, "cpu_atom");
	k = jm_at(cats, 7);
	assert_string_equal(jm_get(k, "name")->str, "mem-bound:core");
	assert_string_equal(jm_get(k, "parent")->str, "be-bound:core");
	total = jm_get(jm_get(doc, "total"), "topdown");
	assert_near(jm_get(total, "bad-spec:atom")->num, 0.05);
	assert_near(jm_get(total, "bad-spec:core")->num, 0.1);
	jm_free(doc);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_stat_hybrid__categories_per_core, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_stat_hybrid__counted_adds_the_core_types, setup,
					    teardown),
	    cmocka_unit_test_setup_teardown(test_stat_hybrid__json, setup, teardown),
	};

	test_log_capture(TDR_LOG_WARN);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
