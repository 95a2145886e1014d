/*
 * tests/report/test_tdr_level2.c - a .tdr recorded with --plan amd-zen4-l2:
 * samples in three groups, each led by its own cycles sampler.
 *
 * The plan tdrec builds on the genoa tree (Zen 4, W = 6) is stored by the
 * project's writer with samples of each group on its own ring, group reads
 * written byte for byte as the kernel does (tests/support/synth), and read
 * back through the parser into a report: every sample counts, each
 * function's categories are the stored formulas on its summed deltas
 * (level 1 from group 0, fetch latency and microcode from group 1 over its
 * own cycles, the memory and mispredict splits a level-1 fraction times a
 * ratio of group 2), each row has its groups' shares, and the row whose
 * groups' shares differ by more than 4x is named in a note. Every value is
 * computed by hand in the comments, exact to 1e-9.
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
#define NEV 14

/* Group g's first event and size: {cycles, fe, be, smt, disp, ret_ops},
 * {ls_not_halted_cyc, cmask_w, ucode}, {ls_not_halted_cyc.g2, not_complete,
 * load_not_complete, misp, resync}. */
static const size_t g_first[] = {0, 6, 9}, g_cnt[] = {6, 3, 5};

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
	    .sysfs_root = fixture("genoa"),
	    .cpuid = "AuthenticAMD,25,17,1",
	    .sample_period = 1000,
	    .inherit = true,
	    .enable_on_exec = true,
	    .clockid = -1,
	};
	struct tdr_plan *plan = NULL;
	enum tdr_plan_kind k;

	assert_int_equal(tdr_plan_kind_parse("amd-zen4-l2", &k), 0);
	assert_int_equal(tdr_plan__choose(&o, k, &plan), 0);
	assert_int_equal(plan->group_cnt, 3);
	assert_int_equal(tdr_plan__to_meta(plan, m), 0);
	tdr_plan__free(plan);
	assert_int_equal(m->event_cnt, NEV);
	m->flags = TDR_META_INHERIT;
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
 * group 0 {cycles, fe, be, smt, disp, ret}:
 *   t=100 func_a {1000, 1200, 1800,  600, 2400, 2100}
 *   t=400 func_a {2000, 2400, 3600, 1200, 4800, 4200}
 *   t=700 func_b {3000, 2700, 4200, 1200, 6600, 5700}  (deltas 1000 300 600 0 1800 1500)
 * group 1 {ls_not_halted_cyc, cmask_w, ucode}:
 *   t=200 func_a {1000, 60, 150}
 *   t=500 func_b {2000, 90, 165}                        (deltas 1000 30 15)
 * group 2 {ls_not_halted_cyc.g2, not_complete, load_not_complete, misp, resync}:
 *   t=300 func_a {1000, 200, 150, 6, 2}
 *   t=800..1100 func_b four samples of +{1000, 100, 25, 0, 0}
 *   t=1200 func_b +{1000, 0, 0, 3, 1}                   (func_b: 5000 400 100 3 1)
 */
static void write_file(const char *path)
{
	static const uint64_t a0[] = {1000, 1200, 1800, 600, 2400, 2100};
	static const uint64_t a0b[] = {2000, 2400, 3600, 1200, 4800, 4200};
	static const uint64_t b0[] = {3000, 2700, 4200, 1200, 6600, 5700};
	static const uint64_t a1[] = {1000, 60, 150};
	static const uint64_t b1[] = {2000, 90, 165};
	static const uint64_t a2[] = {1000, 200, 150, 6, 2};
	uint64_t v2[5] = {1000, 200, 150, 6, 2};
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
	for (uint64_t k = 0; k < 5; k++) {
		v2[0] += 1000;
		v2[1] += k < 4 ? 100 : 0;
		v2[2] += k < 4 ? 25 : 0;
		v2[3] += k < 4 ? 0 : 3;
		v2[4] += k < 4 ? 0 : 1;
		sample(&b, &m, 2, 800 + 100 * k, IP_B, v2);
	}
	assert_int_equal(tdr_writer__add_frame(w, 2, b.data, b.sz), 0);
	assert_int_equal(tdr_writer__finish(w, NULL, 0, &end), 0);
	tdr_writer__free(w);
	synth_buf_release(&b);
	tdr_meta__clear(&m);
}

#define V(row, name) ((row)->topdown[fx_cat(r, name)])

static void test_tdr_level2__three_sampling_groups(void **state)
{
	char dir[] = "/tmp/tdr-level2-XXXXXX", path[64];
	const struct tdr_report_row *a, *b, *t;
	struct tdr_report_opts ro;
	struct tdr_parser *p = NULL;
	struct tdr_report *r = NULL;
	const struct tdr_meta *m;
	struct fx_syms fs;
	bool noted = false;
	char *out;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/l2.tdr", dir);
	write_file(path);
	assert_int_equal(tdr_parser__open(path, &p), 0);
	m = tdr_parser__meta(p);
	assert_string_equal(m->plan_name, "amd-zen4-l2");
	assert_int_equal(m->category_cnt, 13);
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

	/* Every group's samples count: func_a 2 + 1 + 1, func_b 1 + 1 + 5. */
	assert_int_equal(a->samples, 4);
	assert_int_equal(b->samples, 7);
	assert_near(a->share, 4.0 / 11);
	/* func_a, group 0: slots 6 x 2000 = 12000: retiring 4200, bad-spec
	 * 4800 - 4200 = 600, fe 2400, be 3600, smt 1200. */
	assert_near(V(a, "retiring"), 0.35);
	assert_near(V(a, "bad-spec"), 0.05);
	assert_near(V(a, "fe-bound"), 0.2);
	assert_near(V(a, "be-bound"), 0.3);
	assert_near(V(a, "smt-contention"), 0.1);
	/* Group 1 over its own 1000 cycles: fetch-lat 6*60/6000 = 0.06,
	 * heavy-ops 150/6000 = 0.025; fetch-bw 0.2 - 0.06, light 0.35 -
	 * 0.025. */
	assert_near(V(a, "fetch-lat"), 0.06);
	assert_near(V(a, "fetch-bw"), 0.14);
	assert_near(V(a, "heavy-ops"), 0.025);
	assert_near(V(a, "light-ops"), 0.325);
	/* Group 2's ratios times group 0's level 1: mem 0.3 * 150/200, core
	 * 0.3 * 50/200, mispredicts 0.05 * 6/8, machine clears 0.05 * 2/8. */
	assert_near(V(a, "mem-bound"), 0.225);
	assert_near(V(a, "core-bound"), 0.075);
	assert_near(V(a, "br-mispredict"), 0.0375);
	assert_near(V(a, "machine-clears"), 0.0125);
	/* Groups' shares of func_a: cycles 2000, 1000, 1000 of 4000. */
	assert_near(tdr_report_group_share(r, a, 0), 0.5);
	assert_near(tdr_report_group_share(r, a, 1), 0.25);
	assert_near(tdr_report_group_share(r, a, 2), 0.25);
	assert_false(tdr_report_groups_unbalanced(r, a));

	/* func_b, group 0: slots 6000: retiring 1500, bad-spec 300, fe 300,
	 * be 600, smt 0 (the counters add up to 45% of the slots: shown as
	 * computed). Group 1: fetch-lat 30/1000, heavy 15/6000. Group 2 over
	 * its five samples: mem 0.1 * 100/400, core 0.1 * 300/400, mispredicts
	 * 0.05 * 3/4, clears 0.05 * 1/4. */
	assert_near(V(b, "retiring"), 0.25);
	assert_near(V(b, "bad-spec"), 0.05);
	assert_near(V(b, "fe-bound"), 0.05);
	assert_near(V(b, "be-bound"), 0.1);
	assert_near(V(b, "smt-contention"), 0.0);
	assert_near(V(b, "fetch-lat"), 0.03);
	assert_near(V(b, "fetch-bw"), 0.02);
	assert_near(V(b, "heavy-ops"), 0.0025);
	assert_near(V(b, "light-ops"), 0.2475);
	assert_near(V(b, "mem-bound"), 0.025);
	assert_near(V(b, "core-bound"), 0.075);
	assert_near(V(b, "br-mispredict"), 0.0375);
	assert_near(V(b, "machine-clears"), 0.0125);
	/* 1000, 1000, 5000 cycles: 1/7, 1/7, 5/7 (the samples 1, 1, 5 of 7):
	 * 5/7 over 1/7 is 5 > 4, so func_b is named. */
	assert_near(tdr_report_group_share(r, b, 0), 1.0 / 7);
	assert_near(tdr_report_group_share(r, b, 1), 1.0 / 7);
	assert_near(tdr_report_group_share(r, b, 2), 5.0 / 7);
	assert_true(tdr_report_groups_unbalanced(r, b));

	/* Totals: samples 3, 2, 6 of 11; group 0 slots 18000: retiring
	 * 5700, fe 2700; group 1 fetch-lat 90/2000; group 2 mem = 4200/18000
	 * * 250/600. */
	t = tdr_report__totals(r);
	assert_int_equal(t->samples, 11);
	assert_near(tdr_report_group_share(r, t, 0), 3.0 / 11);
	assert_near(tdr_report_group_share(r, t, 1), 2.0 / 11);
	assert_near(tdr_report_group_share(r, t, 2), 6.0 / 11);
	assert_near(V(t, "retiring"), 5700.0 / 18000);
	assert_near(V(t, "fe-bound"), 0.15);
	assert_near(V(t, "fetch-lat"), 0.045);
	assert_near(V(t, "mem-bound"), 4200.0 / 18000 * 250 / 600);

	for (size_t i = 0; i < tdr_report__warning_cnt(r); i++)
		noted |=
		    strstr(tdr_report__warning(r, i),
			   "1 row (by function) mixes sampling groups with very different sample "
			   "counts (a group with under 1/4 of another's sampled cycles): their "
			   "categories from different groups rest on unequal evidence: func_b "
			   "(14.3%/14.3%/71.4%)") != NULL;
	assert_true(noted);

	out = fx_render(r, TDR_FMT_JSON, false, 0);
	assert_non_null(strstr(out, "\"sampling_groups\": [\"cycles\", \"ls_not_halted_cyc\", "
				    "\"ls_not_halted_cyc.g2\"]"));
	assert_non_null(strstr(out, "\"group_shares\": [0.5, 0.25, 0.25], "
				    "\"groups_unbalanced\": false"));
	assert_non_null(strstr(out, "\"groups_unbalanced\": true"));
	free(out);
	out = fx_render(r, TDR_FMT_CSV, false, 0);
	assert_non_null(strstr(out, ",group_share:0,group_share:1,group_share:2\n"));
	assert_non_null(strstr(out, ",0.5,0.25,0.25\n"));
	free(out);
	out = fx_render(r, TDR_FMT_TEXT, false, 0);
	assert_non_null(strstr(out, "sampled in 3 groups"));
	/* 3, 2, 6 of 11 (the line wraps at 100 columns). */
	assert_non_null(strstr(out, "(cycles) 27.3%, group 1 (ls_not_halted_cyc) 18.2%, "
				    "group 2 (ls_not_halted_cyc.g2) 54.5%"));
	free(out);
	tdr_report__free(r);
	tdr_parser__free(p);
	unlink(path);
	rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_tdr_level2__three_sampling_groups),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
