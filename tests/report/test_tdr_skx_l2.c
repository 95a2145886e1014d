/*
 * tests/report/test_tdr_skx_l2.c - a .tdr recorded with --plan intel-skl-l2
 * (Skylake-SP / Cascade Lake level 2): samples in three groups, each led by
 * its own cycles sampler.
 *
 * The plan tdrec builds on the skylake-sp-noht tree (HT off, W = 4 from
 * topdown-total-slots.scale) is stored by the project's writer with samples
 * of each group on its own ring, group reads written byte for byte as the
 * kernel does (tests/support/synth), and read back through the parser into
 * a report: every sample counts, each function's categories are the stored
 * formulas on its summed deltas (level 1 from group 0, fetch latency from
 * group 1 over its own cycles, the mispredict split a level-1 fraction of
 * group 0 times a ratio of group 1, heavy operations from group 2 over its
 * own cycles, memory bound backend bound times a ratio of group 2 whose
 * 2_PORTS_UTIL term is weighted by the row's retiring from group 0), and
 * each row has its groups' shares. Every value is computed by hand in the
 * comments, exact to 1e-9.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "report_fixture.h"
#include "support/synth.h"
#include "support/sysfs_test_util.h"
#include "tdrec/format.h"
#include "tdrec/parser.h"
#include "tdrec/plan.h"

#define assert_near(a, b) assert_true(fabs((a) - (b)) < 1e-9)

#define PID 10
#define TID 11
#define IP_A 0x401000ULL
#define IP_B 0x402000ULL
#define NEV 18

/* Group g's first event and size: {cycles, issued, retired, fetch-bubbles,
 * recovery-bubbles}, {cycles.g1, cyc0 (cycles_0_uops_deliv.core), misp,
 * clears}, {cycles.g2, stalls_mem_any, bound_on_stores, stalls_total,
 * 1_ports_util, 2_ports_util, retire_slots.g2, macro_fused, instructions}. */
static const size_t g_first[] = {0, 5, 9}, g_cnt[] = {5, 4, 9};

static const char *const names[NEV] = {
    "cycles",
    "topdown-slots-issued",
    "topdown-slots-retired",
    "topdown-fetch-bubbles",
    "topdown-recovery-bubbles",
    "cycles.g1",
    "idq_uops_not_delivered.cycles_0_uops_deliv.core",
    "br_misp_retired.all_branches",
    "machine_clears.count",
    "cycles.g2",
    "cycle_activity.stalls_mem_any",
    "exe_activity.bound_on_stores",
    "cycle_activity.stalls_total",
    "exe_activity.1_ports_util",
    "exe_activity.2_ports_util",
    "uops_retired.retire_slots.g2",
    "uops_retired.macro_fused",
    "instructions",
};

static const struct fx_sym_entry syms_table[] = {
    {"/usr/bin/app", 0x1000, 0x2000, TDR_SYM_OK, "func_a", NULL, NULL, 0},
    {"/usr/bin/app", 0x2000, 0x3000, TDR_SYM_OK, "func_b", NULL, NULL, 0},
};

static uint64_t id_of(size_t ev)
{
	return 100 + ev;
}

static void plan_meta(struct tdr_meta *m)
{
	struct tdr_plan_opts o = {
	    .sysfs_root = fixture("skylake-sp-noht"),
	    .cpuid = "GenuineIntel,6,85,4",
	    .sample_period = 1000,
	    .inherit = true,
	    .enable_on_exec = true,
	    .clockid = -1,
	};
	struct tdr_plan *plan = NULL;
	enum tdr_plan_kind k;

	assert_int_equal(tdr_plan_kind_parse("intel-skl-l2", &k), 0);
	assert_int_equal(tdr_plan__choose(&o, k, &plan), 0);
	assert_int_equal(plan->group_cnt, 3);
	assert_int_equal(plan->width, 4);
	assert_int_equal(tdr_plan__to_meta(plan, m), 0);
	tdr_plan__free(plan);
	assert_int_equal(m->event_cnt, NEV);
	m->flags = TDR_META_INHERIT;
	/* The order the reads below are written in. */
	for (size_t i = 0; i < m->event_cnt; i++)
		assert_string_equal(m->events[i].name, names[i]);
	synth_meta_give_ids(m, id_of(0), 0, PID);
}

/* One cumulative read of group g, sampled by its leader at ip, time t. */
static void sample(struct synth_buf *b, const struct tdr_meta *m, size_t g, uint64_t t, uint64_t ip,
		   const uint64_t *vals)
{
	struct synth_sid sid = {.pid = PID, .tid = TID, .time = t, .cpu = 0};

	synth_group_read(b, m, g_first[g], g_cnt[g], id_of(0), sid, ip, 1000, vals);
}

/*
 * Cumulative reads (each sampler's delta is 1000 cycles, the period):
 * group 0 {cycles, issued, retired, fetch, recovery}:
 *   t=100 func_a {1000, 1800, 1600,  800,  50}
 *   t=400 func_a {2000, 3600, 3200, 1600, 100}
 *   t=700 func_b {3000, 4600, 4000, 2800, 100}  (deltas 1000 1000 800 1200 0)
 * group 1 {cycles.g1, cyc0, misp, clears}:
 *   t=200 func_a {1000, 100, 30, 10}
 *   t=500 func_b {2000, 150, 30, 30}            (deltas 1000 50 0 20)
 * group 2 {cycles.g2, mem_any, stores, total, 1port, 2port, ret, fused, inst}:
 *   t=300 func_a {1000, 300, 100,  500, 200,  400, 1500, 100, 1200}
 *   t=800 func_b +{1000, 150, 0, 300, 100, 600, 500, 0, 400}
 *   t=900 func_b +{1000,  50, 0, 500, 300, 400, 700, 0, 600}
 *                 (func_b: 2000 200 0 800 400 1000 1200 0 1000)
 */
static void write_file(const char *path)
{
	static const uint64_t a0[] = {1000, 1800, 1600, 800, 50};
	static const uint64_t a0b[] = {2000, 3600, 3200, 1600, 100};
	static const uint64_t b0[] = {3000, 4600, 4000, 2800, 100};
	static const uint64_t a1[] = {1000, 100, 30, 10};
	static const uint64_t b1[] = {2000, 150, 30, 30};
	static const uint64_t a2[] = {1000, 300, 100, 500, 200, 400, 1500, 100, 1200};
	static const uint64_t b2[] = {2000, 450, 100, 800, 300, 1000, 2000, 100, 1600};
	static const uint64_t b2b[] = {3000, 500, 100, 1300, 600, 1400, 2700, 100, 2200};
	struct tdr_meta m = {0};
	struct tdr_writer_opts o = {.path = path};
	struct tdr_run_end end = {.duration_ns = 2000};
	struct synth_buf b = {0};
	struct synth_sid sid = {.pid = PID, .tid = TID, .time = 1, .id = id_of(0)};
	struct tdr_writer *w;

	plan_meta(&m);
	assert_int_equal(tdr_writer__open(&o, &m, &w), 0);
	synth_mmap(&b, &m.events[0].attr, false, 0, PID, TID, 0x400000, 0x10000, 0, "/usr/bin/app",
		   NULL, 0, &sid);
	synth_comm(&b, &m.events[0].attr, PID, TID, "app", false, &sid);
	assert_int_equal(tdr_writer__add_frame(w, TDR_RING_SYNTHETIC, b.data, b.sz), 0);
	synth_buf_reset(&b);
	sample(&b, &m, 0, 100, IP_A, a0);
	sample(&b, &m, 0, 400, IP_A, a0b);
	sample(&b, &m, 0, 700, IP_B, b0);
	assert_int_equal(tdr_writer__add_frame(w, 0, b.data, b.sz), 0);
	synth_buf_reset(&b);
	sample(&b, &m, 1, 200, IP_A, a1);
	sample(&b, &m, 1, 500, IP_B, b1);
	assert_int_equal(tdr_writer__add_frame(w, 1, b.data, b.sz), 0);
	synth_buf_reset(&b);
	sample(&b, &m, 2, 300, IP_A, a2);
	sample(&b, &m, 2, 800, IP_B, b2);
	sample(&b, &m, 2, 900, IP_B, b2b);
	assert_int_equal(tdr_writer__add_frame(w, 2, b.data, b.sz), 0);
	assert_int_equal(tdr_writer__finish(w, NULL, 0, &end), 0);
	tdr_writer__free(w);
	synth_buf_release(&b);
	tdr_meta__clear(&m);
}

#define V(row, name) ((row)->topdown[fx_cat(r, name)])

static void test_tdr_skx_l2__three_sampling_groups(void **state)
{
	char dir[] = "/tmp/tdr-skx-l2-XXXXXX", path[64];
	const struct tdr_report_row *a, *b, *t;
	struct tdr_report_opts ro;
	struct tdr_parser *p = NULL;
	struct tdr_report *r = NULL;
	const struct tdr_meta *m;
	struct fx_syms fs;
	char *out;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/skx.tdr", dir);
	write_file(path);
	assert_int_equal(tdr_parser__open(path, &p), 0);
	m = tdr_parser__meta(p);
	assert_string_equal(m->plan_name, "intel-skl-l2");
	/* Memory and core bound are stored with their weighted term
	 * (format 1.5), the other categories without. */
	assert_int_equal(m->category_cnt, 12);
	for (size_t i = 0; i < m->category_cnt; i++)
		assert_int_equal(tdr_category__weighted(&m->categories[i]),
				 !strcmp(m->categories[i].name, "mem-bound") ||
				     !strcmp(m->categories[i].name, "core-bound"));
	tdr_report_opts__init(&ro);
	ro.min_samples = 2;
	assert_int_equal(tdr_report__new(m, &ro, &r), 0);
	assert_int_equal(r->sgroup_cnt, 3);
	assert_int_equal(tdr_parser__run(p, fx_to_report, r), 0);
	fx_syms_init(&fs, syms_table, 2);
	assert_int_equal(tdr_report__resolve(r, &fs.rs), 0);
	assert_int_equal(tdr_report__finish(r), 0);
	assert_int_equal(tdr_report__row_cnt(r), 2);
	a = fx_row_named(r, "func_a");
	b = fx_row_named(r, "func_b");

	/* Every group's samples count: func_a 2 + 1 + 1, func_b 1 + 1 + 2. */
	assert_int_equal(a->samples, 4);
	assert_int_equal(b->samples, 4);
	assert_near(a->share, 0.5);
	/* func_a, group 0: slots 4 x 2000 = 8000: retiring 3200, bad-spec
	 * 3600 - 3200 + 4 x 100 = 800, fe 1600, be 8000 - 1600 - 3600 - 400 =
	 * 2400. */
	assert_near(V(a, "retiring"), 0.4);
	assert_near(V(a, "bad-spec"), 0.1);
	assert_near(V(a, "fe-bound"), 0.2);
	assert_near(V(a, "be-bound"), 0.3);
	/* Group 1 over its own 1000 cycles: fetch-lat 4 x 100 / 4000 = 0.1,
	 * fetch-bw 0.2 - 0.1; mispredicts 0.1 x 30/40, clears 0.1 x 10/40. */
	assert_near(V(a, "fetch-lat"), 0.1);
	assert_near(V(a, "fetch-bw"), 0.1);
	assert_near(V(a, "br-mispredict"), 0.075);
	assert_near(V(a, "machine-clears"), 0.025);
	/* Group 2: heavy (1500 + 100 - 1200) / 4000 = 0.1, light 0.4 - 0.1.
	 * Memory: 2_PORTS_UTIL 400 weighted by func_a's retiring 0.4 = 160;
	 * (300 + 100) / (500 + 200 + 160 + 100) = 400/960 = 5/12; mem 0.3 x
	 * 5/12 = 0.125, core 0.3 - 0.125. */
	assert_near(V(a, "heavy-ops"), 0.1);
	assert_near(V(a, "light-ops"), 0.3);
	assert_near(V(a, "mem-bound"), 0.125);
	assert_near(V(a, "core-bound"), 0.175);
	/* Groups' shares of func_a: cycles 2000, 1000, 1000 of 4000. */
	assert_near(tdr_report_group_share(r, a, 0), 0.5);
	assert_near(tdr_report_group_share(r, a, 1), 0.25);
	assert_near(tdr_report_group_share(r, a, 2), 0.25);
	assert_false(tdr_report_groups_unbalanced(r, a));

	/* func_b, group 0: slots 4000: retiring 800, bad-spec 1000 - 800 +
	 * 0 = 200, fe 1200, be 4000 - 1200 - 1000 = 1800. Group 1: fetch-lat
	 * 4 x 50 / 4000, fetch-bw 0.3 - 0.05, mispredicts 0.05 x 0/20, clears
	 * 0.05 x 20/20. Group 2 over its two samples: heavy (1200 + 0 - 1000)
	 * / 8000, light 0.2 - 0.025; memory 2_PORTS_UTIL 1000 x 0.2 = 200,
	 * (200 + 0) / (800 + 400 + 200 + 0) = 1/7: mem 0.45/7, core 0.45 x
	 * 6/7. */
	assert_near(V(b, "retiring"), 0.2);
	assert_near(V(b, "bad-spec"), 0.05);
	assert_near(V(b, "fe-bound"), 0.3);
	assert_near(V(b, "be-bound"), 0.45);
	assert_near(V(b, "fetch-lat"), 0.05);
	assert_near(V(b, "fetch-bw"), 0.25);
	assert_near(V(b, "br-mispredict"), 0.0);
	assert_near(V(b, "machine-clears"), 0.05);
	assert_near(V(b, "heavy-ops"), 0.025);
	assert_near(V(b, "light-ops"), 0.175);
	assert_near(V(b, "mem-bound"), 0.45 / 7);
	assert_near(V(b, "core-bound"), 0.45 * 6 / 7);
	/* 1000, 1000, 2000 cycles: 2 over 1 is under 4, not named. */
	assert_near(tdr_report_group_share(r, b, 0), 0.25);
	assert_near(tdr_report_group_share(r, b, 1), 0.25);
	assert_near(tdr_report_group_share(r, b, 2), 0.5);
	assert_false(tdr_report_groups_unbalanced(r, b));

	/* Totals: samples 3, 2, 3 of 8; group 0 slots 12000: retiring
	 * 4000, bad-spec 4600 - 4000 + 400 = 1000, fe 2800, be 12000 - 2800 -
	 * 4600 - 400 = 4200; group 1 fetch-lat 600/8000; group 2 heavy
	 * (2700 + 100 - 2200) / 12000, memory: 2_PORTS_UTIL 1400 weighted by
	 * the total's retiring 1/3, (500 + 100) / (1300 + 600 + 1400/3 + 100)
	 * = 1800/7400 = 9/37, mem 0.35 x 9/37. */
	t = tdr_report__totals(r);
	assert_int_equal(t->samples, 8);
	assert_near(tdr_report_group_share(r, t, 0), 3.0 / 8);
	assert_near(tdr_report_group_share(r, t, 1), 2.0 / 8);
	assert_near(tdr_report_group_share(r, t, 2), 3.0 / 8);
	assert_near(V(t, "retiring"), 1.0 / 3);
	assert_near(V(t, "bad-spec"), 1000.0 / 12000);
	assert_near(V(t, "fe-bound"), 2800.0 / 12000);
	assert_near(V(t, "be-bound"), 0.35);
	assert_near(V(t, "fetch-lat"), 0.075);
	assert_near(V(t, "heavy-ops"), 0.05);
	assert_near(V(t, "mem-bound"), 0.35 * 9 / 37);
	assert_near(V(t, "core-bound"), 0.35 * 28 / 37);
	for (size_t i = 0; i < tdr_report__warning_cnt(r); i++)
		assert_null(strstr(tdr_report__warning(r, i), "mixes sampling groups"));

	out = fx_render(r, TDR_FMT_JSON, false, 0);
	assert_non_null(strstr(out, "\"sampling_groups\": [\"cycles\", \"cycles.g1\", "
				    "\"cycles.g2\"]"));
	assert_non_null(strstr(out, "\"group_shares\": [0.5, 0.25, 0.25], "
				    "\"groups_unbalanced\": false"));
	assert_non_null(strstr(out, "\"group_shares\": [0.25, 0.25, 0.5], "
				    "\"groups_unbalanced\": false"));
	free(out);
	out = fx_render(r, TDR_FMT_CSV, false, 0);
	assert_non_null(strstr(out, ",group_share:0,group_share:1,group_share:2\n"));
	assert_non_null(strstr(out, ",0.25,0.25,0.5\n"));
	free(out);
	out = fx_render(r, TDR_FMT_TEXT, false, 0);
	assert_non_null(strstr(out, "sampled in 3 groups"));
	/* 3, 2, 3 of 8. */
	assert_non_null(strstr(out, "(cycles) 37.5%, group 1 (cycles.g1) 25.0%, group 2 (cycles.g2) "
				    "37.5%"));
	free(out);
	tdr_report__free(r);
	tdr_parser__free(p);
	unlink(path);
	rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_tdr_skx_l2__three_sampling_groups),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
