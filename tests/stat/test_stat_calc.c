/*
 * tests/stat/test_stat_calc.c - the counting plans 'tdrec stat' opens and
 * its arithmetic: group reads into deltas, TopDown level 1, level 2 and the
 * derived categories, clamping, bottlenecks, interval sums, re-basing and
 * the fraction of the time counted. Every expected value is computed by
 * hand from the synthetic reads in the test (the plans and metadata come
 * from the fake Sapphire Rapids, Ice Lake and hybrid sysfs trees).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <math.h>

#include "stat_test_util.h"
#include "tdrec/topdown.h"

#define RF_STAT                                                                                    \
	(PERF_FORMAT_GROUP | PERF_FORMAT_ID | PERF_FORMAT_TOTAL_TIME_ENABLED |                     \
	 PERF_FORMAT_TOTAL_TIME_RUNNING)

/* Event indexes of the SPR counting plan (meta order = plan order). */
enum { SLOTS, RET, BAD, FE, BE, HEAVY, BR, FLAT, MEM, SPR_EVENTS };

/* Every counting member: no period, no sample bits, no side-band records. */
static void check_counting_group(const struct tdr_plan_group *g, bool inherit, bool on_exec)
{
	for (size_t e = 0; e < g->event_cnt; e++) {
		const struct perf_event_attr *a = &g->events[e].attr;

		assert_int_equal(a->sample_period, 0);
		assert_int_equal(a->freq, 0);
		assert_int_equal(a->sample_type, 0);
		assert_int_equal(a->sample_id_all, 0);
		assert_int_equal(a->mmap | a->mmap2 | a->comm | a->task, 0);
		assert_false(g->events[e].flags & TDR_EVENT_SAMPLER);
		assert_int_equal(a->read_format & RF_STAT, RF_STAT);
		assert_int_equal(a->inherit, inherit);
		assert_int_equal(a->exclude_kernel, 1);
		/* Only the leader gates the group. The plan disables it only
		 * to wait for exec; otherwise the session opens it disabled
		 * and starts it whole once every member is open
		 * (test_stat_open__system_wide). */
		assert_int_equal(a->disabled, e == 0 && on_exec);
		assert_int_equal(a->enable_on_exec, e == 0 && on_exec);
		assert_int_equal(!!(g->events[e].flags & TDR_EVENT_LEADER), e == 0);
	}
}

static void test_stat_calc__spr_counting_plan(void **state)
{
	static const char *const names[] = {"slots",
					    "topdown-retiring",
					    "topdown-bad-spec",
					    "topdown-fe-bound",
					    "topdown-be-bound",
					    "topdown-heavy-ops",
					    "topdown-br-mispredict",
					    "topdown-fetch-lat",
					    "topdown-mem-bound"};
	struct tdr_plan *p = stat_plan("sapphire-rapids", TDR_PLAN_AUTO);

	(void)state;
	assert_int_equal(p->kind, TDR_PLAN_TOPDOWN_L2);
	assert_int_equal(p->group_cnt, 1);
	assert_int_equal(p->groups[0].event_cnt, SPR_EVENTS);
	for (size_t e = 0; e < SPR_EVENTS; e++)
		assert_string_equal(p->groups[0].events[e].name, names[e]);
	assert_int_equal(p->groups[0].events[0].attr.config, 0x400); /* slots leads */
	check_counting_group(&p->groups[0], true, true);
	assert_int_equal(p->groups[0].cpu_cnt, 8);
	tdr_plan__free(p);
}

/* The variants stat builds: -a (nothing inherited, counting from open),
 * per-thread groups (no inheritance, enabled at open), hybrid CPUs. */
static void test_stat_calc__plan_variants(void **state)
{
	struct tdr_plan_opts o = stat_popts("sapphire-rapids");
	struct tdr_plan *p = NULL, *sw = NULL;

	(void)state;
	o.inherit = false;
	o.enable_on_exec = false;
	assert_int_equal(tdr_plan__build(&o, TDR_PLAN_TOPDOWN_L2, &p), 0);
	check_counting_group(&p->groups[0], false, false);
	tdr_plan__free(p);

	/* Hybrid: TopDown on cpu_core's CPUs only; the side band uses the
	 * software plan's CPUs, which are all of them. */
	o = stat_popts("alderlake-hybrid");
	assert_int_equal(tdr_plan__choose(&o, TDR_PLAN_AUTO, &p), 0);
	assert_int_equal(p->kind, TDR_PLAN_TOPDOWN_L2);
	assert_string_equal(p->groups[0].events[0].pmu_name, "cpu_core");
	assert_int_equal(p->groups[0].cpu_cnt, 16);
	assert_int_equal(p->groups[0].cpus[15], 15);
	check_counting_group(&p->groups[0], true, true);
	assert_int_equal(tdr_plan__build(&o, TDR_PLAN_SOFTWARE, &sw), 0);
	assert_int_equal(sw->groups[0].cpu_cnt, 24);
	assert_string_equal(sw->groups[0].events[0].name, "task-clock");
	check_counting_group(&sw->groups[0], true, true);
	tdr_plan__free(sw);
	tdr_plan__free(p);
}

static void test_stat_calc__schema_from_spr(void **state)
{
	static const struct {
		const char *name, *parent;
		bool derived;
	} want[] = {
	    {"retiring", NULL, false},	      {"bad-spec", NULL, false},
	    {"fe-bound", NULL, false},	      {"be-bound", NULL, false},
	    {"heavy-ops", "retiring", false}, {"br-mispredict", "bad-spec", false},
	    {"fetch-lat", "fe-bound", false}, {"mem-bound", "be-bound", false},
	    {"light-ops", "retiring", true},  {"machine-clears", "bad-spec", true},
	    {"fetch-bw", "fe-bound", true},   {"core-bound", "be-bound", true},
	};
	struct tdr_plan *p = stat_plan("sapphire-rapids", TDR_PLAN_AUTO);
	struct stat_schema sc;

	(void)state;
	assert_int_equal(tdr_stat_schema__init(&sc, p, false), 0);
	assert_int_equal(sc.meta.event_cnt, SPR_EVENTS);
	assert_int_equal(sc.meta.category_cnt, 12);
	assert_int_equal(sc.group_cnt, 1);
	assert_int_equal(sc.base[0], 0);
	assert_int_equal(sc.slots_cat, 0);
	for (size_t i = 0; i < 12; i++) {
		const struct tdr_category *c = &sc.meta.categories[i];

		assert_string_equal(c->name, want[i].name);
		assert_int_equal(!!(c->flags & TDR_CATEGORY_DERIVED), want[i].derived);
		if (!want[i].parent) {
			assert_int_equal(sc.parent[i], -1);
			continue;
		}
		assert_int_equal(sc.parent[i], cat_idx(&sc, want[i].parent));
	}
	/* The report's thresholds (report.md "Thresholds"). */
	assert_true(isnan(sc.threshold[cat_idx(&sc, "retiring")]));
	assert_true(isnan(sc.threshold[cat_idx(&sc, "light-ops")]));
	assert_true(fabs(sc.threshold[cat_idx(&sc, "be-bound")] - 0.20) < 1e-12);
	assert_true(fabs(sc.threshold[cat_idx(&sc, "fe-bound")] - 0.15) < 1e-12);
	assert_true(fabs(sc.threshold[cat_idx(&sc, "core-bound")] - 0.10) < 1e-12);
	/* They are the TopDown table's, category by category (report reads
	 * the same table). */
	for (size_t i = 0; i < 12; i++) {
		double t = tdr_topdown_threshold(sc.meta.categories[i].name);

		assert_true(isnan(t) ? isnan(sc.threshold[i]) : sc.threshold[i] == t);
	}
	tdr_stat_schema__clear(&sc);
	tdr_plan__free(p);
}

struct fx {
	struct tdr_plan *plan;
	struct stat_schema sc;
	double vals[STAT_MAX_CATS];
	int bn, bn2;
};

static int fx_setup(void **state)
{
	struct fx *f = calloc(1, sizeof(*f));

	f->plan = stat_plan("sapphire-rapids", TDR_PLAN_AUTO);
	if (tdr_stat_schema__init(&f->sc, f->plan, false))
		return -1;
	*state = f;
	return 0;
}

static int fx_teardown(void **state)
{
	struct fx *f = *state;

	tdr_stat_schema__clear(&f->sc);
	tdr_plan__free(f->plan);
	free(f);
	return 0;
}

static double cat(struct fx *f, const char *name)
{
	return f->vals[cat_idx(&f->sc, name)];
}

#define NEAR(a, b) assert_true(fabs((a) - (b)) < 1e-9)

static void test_stat_calc__levels_and_bottleneck(void **state)
{
	struct fx *f = *state;
	struct stat_vals v = {0};
	/* slots 1000: retiring 300 (heavy 100), bad-spec 100 (mispredicts 60),
	 * fe-bound 200 (fetch latency 150), be-bound 400 (memory 250). */
	const uint64_t in[SPR_EVENTS] = {1000, 300, 100, 200, 400, 100, 60, 150, 250};

	memcpy(v.v, in, sizeof(in));
	tdr_stat_topdown(&f->sc, &v, f->vals, &f->bn, &f->bn2);
	NEAR(tdr_stat_slots(&f->sc, &v), 1000);
	NEAR(cat(f, "retiring"), 0.30);
	NEAR(cat(f, "bad-spec"), 0.10);
	NEAR(cat(f, "fe-bound"), 0.20);
	NEAR(cat(f, "be-bound"), 0.40);
	NEAR(cat(f, "heavy-ops"), 0.10);
	NEAR(cat(f, "light-ops"), 0.20); /* 300 - 100 */
	NEAR(cat(f, "br-mispredict"), 0.06);
	NEAR(cat(f, "machine-clears"), 0.04); /* 100 - 60 */
	NEAR(cat(f, "fetch-lat"), 0.15);
	NEAR(cat(f, "fetch-bw"), 0.05); /* 200 - 150 */
	NEAR(cat(f, "mem-bound"), 0.25);
	NEAR(cat(f, "core-bound"), 0.15); /* 400 - 250 */
	/* be-bound 40% > 20% beats fe-bound 20% > 15%; of its children
	 * mem-bound (25% > 20%) beats core-bound (15% > 10%). */
	assert_int_equal(f->bn, cat_idx(&f->sc, "be-bound"));
	assert_int_equal(f->bn2, cat_idx(&f->sc, "mem-bound"));
}

static void test_stat_calc__derived_below_zero(void **state)
{
	struct fx *f = *state;
	struct stat_vals v = {0};
	/* The metrics are 8-bit fractions of each read interval, so a level-2
	 * metric can round above its parent: mispredicts 120 > bad-spec 100,
	 * memory 410 > be-bound 400. */
	const uint64_t in[SPR_EVENTS] = {1000, 300, 100, 200, 400, 100, 120, 150, 410};

	memcpy(v.v, in, sizeof(in));
	tdr_stat_topdown(&f->sc, &v, f->vals, &f->bn, &f->bn2);
	/* Shown as computed since categories are no longer clamped. */
	NEAR(cat(f, "machine-clears"), -0.02); /* (100 - 120) / 1000 */
	NEAR(cat(f, "core-bound"), -0.01);     /* (400 - 410) / 1000 */
	NEAR(cat(f, "br-mispredict"), 0.12); /* measured values are not capped */
	assert_int_equal(f->bn, cat_idx(&f->sc, "be-bound"));
	assert_int_equal(f->bn2, cat_idx(&f->sc, "mem-bound"));
}

static void test_stat_calc__no_bottleneck_cases(void **state)
{
	struct fx *f = *state;
	struct stat_vals v = {0};
	/* Retiring 85%: never a bottleneck; everything else under threshold. */
	const uint64_t good[SPR_EVENTS] = {1000, 850, 50, 50, 50, 10, 10, 10, 10};

	memcpy(v.v, good, sizeof(good));
	tdr_stat_topdown(&f->sc, &v, f->vals, &f->bn, &f->bn2);
	NEAR(cat(f, "retiring"), 0.85);
	assert_int_equal(f->bn, -1);
	assert_int_equal(f->bn2, -1);
	/* No slots at all: every category is NAN, nothing is marked. */
	memset(&v, 0, sizeof(v));
	v.v[BE] = 5;
	tdr_stat_topdown(&f->sc, &v, f->vals, &f->bn, &f->bn2);
	for (size_t i = 0; i < f->sc.meta.category_cnt; i++)
		assert_true(isnan(f->vals[i]));
	assert_int_equal(f->bn, -1);
	assert_int_equal(f->bn2, -1);
	NEAR(tdr_stat_slots(&f->sc, &v), 0);
	/* A bottleneck whose children are all below their thresholds. */
	const uint64_t fe[SPR_EVENTS] = {1000, 300, 50, 500, 150, 100, 10, 80, 100};

	memcpy(v.v, fe, sizeof(fe));
	tdr_stat_topdown(&f->sc, &v, f->vals, &f->bn, &f->bn2);
	assert_int_equal(f->bn, cat_idx(&f->sc, "fe-bound"));
	NEAR(cat(f, "fetch-bw"), 0.42);
	assert_int_equal(f->bn2, cat_idx(&f->sc, "fetch-bw"));
	const uint64_t fe2[SPR_EVENTS] = {1000, 300, 50, 160, 150, 100, 10, 80, 100};

	memcpy(v.v, fe2, sizeof(fe2));
	tdr_stat_topdown(&f->sc, &v, f->vals, &f->bn, &f->bn2);
	assert_int_equal(f->bn, cat_idx(&f->sc, "fe-bound")); /* 16% > 15% */
	assert_int_equal(f->bn2, -1);			      /* 8% and 8% < 10% */
}

/* Two CPUs read three times: each interval is the sum over the CPUs of the
 * change since the previous read, and the intervals add up to the total. */
static void test_stat_calc__interval_deltas(void **state)
{
	struct fx *f = *state;
	struct stat_prev prev[2];
	struct stat_vals iv[3], total;
	/* cumulative values [read][cpu][event], times [read][cpu] {ena, run} */
	const uint64_t val[3][2][SPR_EVENTS] = {
	    {{1000, 300, 100, 200, 400, 100, 60, 150, 250}, {0, 0, 0, 0, 0, 0, 0, 0, 0}},
	    {{1500, 400, 150, 300, 650, 120, 90, 200, 500},
	     {2000, 1000, 200, 200, 600, 500, 100, 150, 300}},
	    {{4000, 2400, 150, 300, 1150, 1000, 90, 200, 900},
	     {2000, 1000, 200, 200, 600, 500, 100, 150, 300}},
	};
	const uint64_t tm[3][2][2] = {
	    {{100, 100}, {100, 0}}, {{200, 150}, {200, 50}}, {{300, 250}, {300, 50}}};

	memset(prev, 0, sizeof(prev));
	memset(iv, 0, sizeof(iv));
	for (int r = 0; r < 3; r++) {
		for (int c = 0; c < 2; c++) {
			struct tdr_group_read rd =
			    group_read(tm[r][c][0], tm[r][c][1], SPR_EVENTS, val[r][c]);

			assert_int_equal(tdr_stat_delta(&prev[c], &rd, 0, 0, &iv[r]), 0);
		}
	}
	/* Interval 2 = (1500-1000) + (2000-0) slots, and so on. */
	assert_int_equal(iv[1].v[SLOTS], 2500);
	assert_int_equal(iv[1].v[RET], 1100);
	assert_int_equal(iv[1].v[BE], 850);
	assert_int_equal(iv[1].v[MEM], 550);
	assert_int_equal(iv[1].running_ns[0], 100);
	assert_int_equal(iv[1].enabled_ns[0], 200);
	/* Interval 3: only CPU 0 moved. */
	assert_int_equal(iv[2].v[SLOTS], 2500);
	assert_int_equal(iv[2].v[RET], 2000);
	assert_int_equal(iv[2].v[HEAVY], 880);
	tdr_stat_topdown(&f->sc, &iv[2], f->vals, &f->bn, &f->bn2);
	NEAR(cat(f, "retiring"), 0.8);
	NEAR(cat(f, "light-ops"), (2000.0 - 880) / 2500);
	NEAR(cat(f, "be-bound"), 0.2);
	assert_int_equal(f->bn, -1); /* 20% is not above 20% */
	memset(&total, 0, sizeof(total));
	for (int r = 0; r < 3; r++)
		tdr_stat_vals__add(&total, &iv[r]);
	for (int e = 0; e < SPR_EVENTS; e++)
		assert_int_equal(total.v[e], val[2][0][e] + val[2][1][e]);
	assert_int_equal(total.running_ns[0], 300);
	assert_int_equal(total.enabled_ns[0], 600);
}

/* A value that goes down adds nothing and re-bases: the next change is
 * counted from the lower value, never as a huge wrapped delta. */
static void test_stat_calc__backwards_rebases(void **state)
{
	struct stat_prev prev;
	struct stat_vals acc;
	const uint64_t a[3] = {1000, 500, 10}, b[3] = {900, 600, 20}, c[3] = {1200, 700, 30};
	struct tdr_group_read rd;

	(void)state;
	memset(&prev, 0, sizeof(prev));
	memset(&acc, 0, sizeof(acc));
	rd = group_read(10, 10, 3, a);
	assert_int_equal(tdr_stat_delta(&prev, &rd, 0, 4, &acc), 0);
	rd = group_read(20, 20, 3, b);
	assert_int_equal(tdr_stat_delta(&prev, &rd, 0, 4, &acc), 1);
	assert_int_equal(acc.v[4], 1000); /* nothing added for 1000 -> 900 */
	assert_int_equal(acc.v[5], 600);
	rd = group_read(30, 30, 3, c);
	assert_int_equal(tdr_stat_delta(&prev, &rd, 0, 4, &acc), 0);
	assert_int_equal(acc.v[4], 1300); /* + (1200 - 900) */
	assert_int_equal(acc.v[6], 30);
	assert_int_equal(acc.v[0], 0); /* base 4: the first events are untouched */
	/* A time going backwards re-bases too. */
	rd = group_read(5, 30, 3, c);
	assert_int_equal(tdr_stat_delta(&prev, &rd, 0, 4, &acc), 1);
	assert_int_equal(acc.enabled_ns[0], 30);
}

static void test_stat_calc__counted(void **state)
{
	struct fx *f = *state;
	struct stat_vals v = {0};

	/* Task mode: running summed over the CPUs against the tasks' run time
	 * (time_enabled is ignored: it grows while the task runs elsewhere). */
	v.enabled_ns[0] = 5000;
	v.running_ns[0] = 800;
	v.ref_ns = 1000;
	NEAR(tdr_stat_counted(&f->sc, &v), 0.8);
	v.running_ns[0] = 1003; /* reads a few ns apart: capped at 1 */
	NEAR(tdr_stat_counted(&f->sc, &v), 1.0);
	v.ref_ns = 0; /* no reference clock, or nothing ran */
	assert_true(isnan(tdr_stat_counted(&f->sc, &v)));
	/* System-wide: running against enabled, per CPU group summed. */
	f->sc.system_wide = true;
	v.enabled_ns[0] = 2000;
	v.running_ns[0] = 1500;
	NEAR(tdr_stat_counted(&f->sc, &v), 0.75);
	/* Two groups: the smaller fraction. */
	f->sc.group_cnt = 2;
	v.enabled_ns[1] = 2000;
	v.running_ns[1] = 1000;
	NEAR(tdr_stat_counted(&f->sc, &v), 0.5);
	f->sc.group_cnt = 1;
	f->sc.system_wide = false;
}

static void test_stat_calc__sub_sat_and_empty(void **state)
{
	struct stat_vals a = {0}, b = {0}, d;

	(void)state;
	a.v[0] = 100;
	a.v[1] = 5;
	b.v[0] = 40;
	b.v[1] = 9;
	a.running_ns[0] = 10;
	b.running_ns[0] = 3;
	a.ref_ns = 7;
	tdr_stat_vals__sub_sat(&d, &a, &b);
	assert_int_equal(d.v[0], 60);
	assert_int_equal(d.v[1], 0); /* never below zero */
	assert_int_equal(d.running_ns[0], 7);
	assert_int_equal(d.ref_ns, 7);
	assert_false(tdr_stat_vals__empty(&d, 2));
	tdr_stat_vals__sub_sat(&d, &b, &a);
	assert_false(tdr_stat_vals__empty(&d, 2)); /* 9 - 5 */
	d.v[1] = 0;
	assert_true(tdr_stat_vals__empty(&d, 2));
}

/* Ice Lake: level 1 only, so there is never a level-2 mark. */
static void test_stat_calc__icl_level1_only(void **state)
{
	struct tdr_plan *p = stat_plan("icelake-server", TDR_PLAN_AUTO);
	struct stat_schema sc;
	struct stat_vals v = {0};
	const uint64_t in[5] = {1000, 200, 100, 300, 400};
	double vals[STAT_MAX_CATS];
	int bn, bn2;

	(void)state;
	assert_int_equal(p->kind, TDR_PLAN_TOPDOWN_L1);
	check_counting_group(&p->groups[0], true, true);
	assert_int_equal(tdr_stat_schema__init(&sc, p, false), 0);
	assert_int_equal(sc.meta.category_cnt, 4);
	memcpy(v.v, in, sizeof(in));
	tdr_stat_topdown(&sc, &v, vals, &bn, &bn2);
	NEAR(vals[cat_idx(&sc, "fe-bound")], 0.3);
	assert_int_equal(bn, cat_idx(&sc, "be-bound")); /* 40% beats 30% */
	assert_int_equal(bn2, -1);
	tdr_stat_schema__clear(&sc);
	tdr_plan__free(p);
}

/* The software plan has no categories: nothing to compute or mark. */
/* AMD Zen 4 level 2 on the genoa tree: three groups, each ratio of a
 * formula inside one group, so the values on the counts as read (never
 * scaled) do not depend on each group's share of the time; each share is
 * in the row view. Values computed by hand. */
static void test_stat_calc__amd_zen4_l2_three_groups(void **state)
{
	struct tdr_plan_opts o = stat_popts("genoa");
	struct tdr_plan *p = NULL;
	struct stat_schema sc;
	struct stat_row row = {0};
	struct tdr_stat_row out;
	/* Group 0 (all the time): cycles 1000 (6000 slots), fe 1200, be 1800,
	 * smt 600, dispatched 2500, retired 2100. Group 1 (half the time):
	 * ls_not_halted_cyc 450, cmask-6 cycles 60, ucode ops 135. Group 2
	 * (a quarter): not_complete 200, load_not_complete 150, misp 6,
	 * resync 2. */
	const uint64_t in[] = {1000, 1200, 1800, 600, 2500, 2100, 450, 60, 135, 200, 150, 6, 2};
	int bn, bn2;

	(void)state;
	o.cpuid = "AuthenticAMD,25,17,1";
	assert_int_equal(tdr_plan__choose(&o, TDR_PLAN_AUTO, &p), 0);
	assert_string_equal(tdr_plan_kind_name(p->kind), "amd-zen4-l2");
	assert_int_equal(tdr_stat_schema__init(&sc, p, false), 0);
	assert_int_equal(sc.group_cnt, 3);
	assert_int_equal(sc.meta.event_cnt, 13);
	memcpy(row.vals.v, in, sizeof(in));
	row.vals.ref_ns = 4000;
	row.vals.running_ns[0] = 4000;
	row.vals.running_ns[1] = 2000;
	row.vals.running_ns[2] = 1000;
	tdr_stat_row_view(&sc, &row, &out);
	NEAR(out.slots, 6000);
	assert_int_equal(out.group_cnt, 3);
	NEAR(out.group_counted[0], 1.0);
	NEAR(out.group_counted[1], 0.5);
	NEAR(out.group_counted[2], 0.25);
	NEAR(out.counted, 0.25);
	assert_true(out.multiplexed);
#define C(name) out.cats[cat_idx(&sc, name)]
	NEAR(C("retiring"), 0.35);
	NEAR(C("bad-spec"), 400.0 / 6000);
	NEAR(C("fe-bound"), 0.2);
	NEAR(C("be-bound"), 0.3);
	NEAR(C("smt-contention"), 0.1);
	NEAR(C("fetch-lat"), 60.0 / 450);	    /* 6 * 60 / (6 * 450) */
	NEAR(C("fetch-bw"), 0.2 - 60.0 / 450);
	NEAR(C("mem-bound"), 0.3 * 150 / 200); /* 0.225 */
	NEAR(C("core-bound"), 0.3 * 50 / 200);	    /* 0.075 */
	NEAR(C("br-mispredict"), 400.0 / 6000 * 6 / 8);
	NEAR(C("machine-clears"), 400.0 / 6000 * 2 / 8);
	NEAR(C("heavy-ops"), 135.0 / 2700);	    /* 0.05 */
	NEAR(C("light-ops"), 0.35 - 0.05);
	/* be-bound 30% > 20%; of its children mem-bound 22.5% > 20%. */
	tdr_stat_topdown(&sc, &row.vals, out.cats, &bn, &bn2);
	assert_int_equal(bn, cat_idx(&sc, "be-bound"));
	assert_int_equal(bn2, cat_idx(&sc, "mem-bound"));
#undef C
	tdr_stat_schema__clear(&sc);
	tdr_plan__free(p);
}

static void test_stat_calc__software_has_no_topdown(void **state)
{
	struct tdr_plan *p = stat_plan("vm", TDR_PLAN_AUTO);
	struct stat_schema sc;
	struct stat_vals v = {0};
	double vals[STAT_MAX_CATS];
	int bn, bn2;

	(void)state;
	assert_int_equal(p->kind, TDR_PLAN_SOFTWARE);
	assert_int_equal(tdr_stat_schema__init(&sc, p, false), 0);
	assert_int_equal(sc.meta.category_cnt, 0);
	assert_int_equal(sc.slots_cat, -1);
	/* The notes say which TopDown plans were skipped and why. */
	assert_int_equal(sc.meta.note_cnt, 2);
	assert_non_null(strstr(sc.meta.notes[0], "topdown-l2 not available"));
	assert_non_null(strstr(sc.meta.notes[1], "topdown-l1 not available"));
	v.v[0] = 123;
	tdr_stat_topdown(&sc, &v, vals, &bn, &bn2);
	assert_int_equal(bn, -1);
	NEAR(tdr_stat_slots(&sc, &v), 0);
	tdr_stat_schema__clear(&sc);
	tdr_plan__free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_stat_calc__spr_counting_plan),
	    cmocka_unit_test(test_stat_calc__plan_variants),
	    cmocka_unit_test(test_stat_calc__schema_from_spr),
	    cmocka_unit_test_setup_teardown(test_stat_calc__levels_and_bottleneck, fx_setup,
					    fx_teardown),
	    cmocka_unit_test_setup_teardown(test_stat_calc__derived_below_zero, fx_setup,
					    fx_teardown),
	    cmocka_unit_test_setup_teardown(test_stat_calc__no_bottleneck_cases, fx_setup,
					    fx_teardown),
	    cmocka_unit_test_setup_teardown(test_stat_calc__interval_deltas, fx_setup, fx_teardown),
	    cmocka_unit_test(test_stat_calc__backwards_rebases),
	    cmocka_unit_test_setup_teardown(test_stat_calc__counted, fx_setup, fx_teardown),
	    cmocka_unit_test(test_stat_calc__sub_sat_and_empty),
	    cmocka_unit_test(test_stat_calc__icl_level1_only),
	    cmocka_unit_test(test_stat_calc__software_has_no_topdown),
	    cmocka_unit_test(test_stat_calc__amd_zen4_l2_three_groups),
	};

	log_reset();
	tdr_log_set_level(TDR_LOG_WARN);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
