/*
 * tests/report/test_examples.c - the shipped example recordings, read the
 * way `tdrec report -i examples/X.perf.data` reads them.
 *
 * examples/gen_topdown_examples.c writes, per family, 30 samples per
 * function, each with one fixed delta vector (its comment lists them), so a
 * function's categories are its vector's ratios. Every expected value below
 * is computed by hand from those vectors and compared to 1e-9. The files go
 * through the real parser, importer, symbolizer (the functions resolve in
 * examples/synthetic-demo.elf, found next to the recording) and report.
 * counter_skew's counters do not add up to the slots in every family, so
 * one of its categories is below 0 or above 1 and flagged.
 * perf is the oracle of the per-function event sums: `perf report --group
 * --stdio -F period,sym` on the same file; the test says why and skips that
 * part when perf is missing or cannot read the file.
 * The Neoverse V2 file's events are all on the armv8_pmuv3_0 PMU (a dynamic
 * type) and its width is the table's: a perf.data has no caps/slots.
 * The hybrid files (Alder Lake, Arrow Lake, Meteor Lake) have a cpu_core
 * and a cpu_atom group: the report has a row per function and core type (docs/report.md
 * "Core types"), each with its core type's formulas, and totals per core
 * type; perf prints one table per group, told apart here by their widths
 * (6 and 5 events).
 */
#include <math.h>
#include <stdbool.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "report_int.h"

#define NCAT 5
#define NFN 6

struct want_fn {
	const char *name;
	double cat[NCAT]; /* retiring, bad-spec, fe-bound, be-bound, smt-contention */
	int out_of_range; /* category index flagged, -1: none */
};

struct want_file {
	const char *file;
	const char *family_events[8]; /* the table's names, in group order */
	size_t cat_cnt;
	struct want_fn fn[NFN];
	size_t fn_cnt;
	double total[NCAT];
};

static const char *const cat_keys[NCAT] = {"retiring", "bad-spec", "fe-bound", "be-bound",
					   "smt-contention"};

/* AMD: retiring = ex_ret_ops / (W * cycles), bad-spec = (de_src_op_disp.all
 * - ex_ret_ops) / slots, fe/be/smt = their de_no_dispatch_per_slot event /
 * slots. Zen 4: slots a sample 6 * 100000 = 600000. */
#define AMD_EVENTS                                                                                 \
	{"cycles", "de_no_dispatch_per_slot.no_ops_from_frontend",                                 \
	 "de_no_dispatch_per_slot.backend_stalls", "de_no_dispatch_per_slot.smt_contention",       \
	 "de_src_op_disp.all", "ex_ret_ops"}
#define AMD_FNS                                                                                    \
	{{"dense_math", {0.70, 0.02, 0.10, 0.15, 0.03}, -1},                                       \
	 {"branchy_filter", {0.30, 0.25, 0.20, 0.20, 0.05}, -1},                                   \
	 {"icache_thrash", {0.25, 0.03, 0.55, 0.15, 0.02}, -1},                                    \
	 {"pointer_chase", {0.10, 0.01, 0.05, 0.80, 0.04}, -1},                                    \
	 {"smt_sibling", {0.25, 0.01, 0.10, 0.15, 0.49}, -1},                                      \
	 {"counter_skew", {0.50, -0.02, 0.10, 0.30, 0.12}, 1}}

static const struct want_file files[] = {
    /* Zen 4: dense_math 420000/600000, (432000-420000)/600000, 60000/600000,
     * 90000/600000, 18000/600000; counter_skew (288000-300000)/600000 =
     * -0.02. Totals over 180 samples, slots 108e6: retiring 30 * 1260000 /
     * 108e6 = 0.35, bad-spec 30 * (1440000 - 1260000) / 108e6 = 0.05,
     * fe 30 * 660000 / 108e6, be 30 * 1050000 / 108e6, smt 30 * 450000 /
     * 108e6. */
    {"amd-zen4.perf.data",
     AMD_EVENTS,
     5,
     AMD_FNS,
     6,
     {0.35, 0.05, 19.8e6 / 108e6, 31.5e6 / 108e6, 13.5e6 / 108e6}},
    /* Zen 5: width 8, slots 800000 a sample: dense_math 560000/800000,
     * (576000-560000)/800000, 80000/800000, 120000/800000, 24000/800000,
     * ... the same fractions as Zen 4 from other counts (a width of 6 would
     * give retiring 560000/600000 = 0.933). Totals: slots 144e6, retiring
     * 30 * 1680000 / 144e6 = 0.35, bad-spec 30 * (1920000 - 1680000) /
     * 144e6 = 0.05, fe 30 * 880000 / 144e6, be 30 * 1400000 / 144e6, smt
     * 30 * 600000 / 144e6. */
    {"amd-zen5.perf.data",
     AMD_EVENTS,
     5,
     AMD_FNS,
     6,
     {0.35, 0.05, 26.4e6 / 144e6, 42e6 / 144e6, 18e6 / 144e6}},
    /* Skylake-SP, width 4, slots 400000 a sample: retiring = retired / S,
     * bad-spec = (issued - retired + 4 * recovery) / S, fe = fetch / S,
     * be = (S - fetch - issued - 4 * recovery) / S.
     * dense_math: 280000/S, (284000-280000+4000)/S, 40000/S,
     *   (400000-40000-284000-4000)/S = 72000/S
     * branchy_filter: 120000/S, (180000-120000+60000)/S, 80000/S,
     *   (400000-80000-180000-60000)/S
     * icache_thrash: 100000/S, (112000-100000+8000)/S, 220000/S,
     *   (400000-220000-112000-8000)/S
     * pointer_chase: 40000/S, (46000-40000+2000)/S, 20000/S,
     *   (400000-20000-46000-2000)/S = 332000/S
     * counter_skew: 160000/S, (220000-160000+20000)/S, 180000/S,
     *   (400000-180000-220000-20000)/S = -20000/S = -0.05
     * Totals, slots 30 * 5 * 400000 = 60e6: retired 30 * 700000, issued
     * 30 * 842000, fetch 30 * 540000, recovery 30 * 23500. */
    {"intel-skylake-sp.perf.data",
     {"cycles", "topdown-slots-issued", "topdown-slots-retired", "topdown-fetch-bubbles",
      "topdown-recovery-bubbles"},
     4,
     {{"dense_math", {0.70, 0.02, 0.10, 0.18}, -1},
      {"branchy_filter", {0.30, 0.30, 0.20, 0.20}, -1},
      {"icache_thrash", {0.25, 0.05, 0.55, 0.15}, -1},
      {"pointer_chase", {0.10, 0.02, 0.05, 0.83}, -1},
      {"counter_skew", {0.40, 0.20, 0.45, -0.05}, 3}},
     5,
     {21e6 / 60e6, 30 * (842000.0 - 700000 + 94000) / 60e6, 16.2e6 / 60e6,
      (60e6 - 16.2e6 - 30 * 842000.0 - 30 * 94000.0) / 60e6}},
    /* Sierra Forest (Crestmont), width 6, slots 600000 a sample: each
     * category its own event / S. counter_skew's backend 630000/S = 1.05.
     * Totals, slots 30 * 5 * 600000 = 90e6: retiring 30 * 1050000,
     * bad-spec 30 * 216000, fe 30 * 600000, be 30 * 1494000. */
    {"intel-sierra-forest.perf.data",
     {"cycles", "topdown_retiring.all_p", "topdown_bad_speculation.all_p",
      "topdown_fe_bound.all_p", "topdown_be_bound.all_p"},
     4,
     {{"dense_math", {0.70, 0.02, 0.10, 0.18}, -1},
      {"branchy_filter", {0.30, 0.25, 0.20, 0.25}, -1},
      {"icache_thrash", {0.25, 0.03, 0.55, 0.17}, -1},
      {"pointer_chase", {0.10, 0.01, 0.05, 0.84}, -1},
      {"counter_skew", {0.40, 0.05, 0.10, 1.05}, 3}},
     5,
     {31.5e6 / 90e6, 6.48e6 / 90e6, 18e6 / 90e6, 44.82e6 / 90e6}},
    /* Neoverse V2, width 8 (the table's: a perf.data has no caps/slots),
     * S = 800000 a sample, C = 100000 cycles: N = 1 - stall_slot / S,
     * retiring = op_retired / op_spec * N, bad-spec = (1 - op_retired /
     * op_spec) * N + 4 br_mis_pred / C, fe = stall_slot_frontend / S -
     * br_mis_pred / C, be = stall_slot_backend / S - 3 br_mis_pred / C.
     * dense_math: N = 1 - 200000/S = 0.75, 576000/600000 * 0.75 = 0.72,
     *   0.04 * 0.75 + 4 * 500/C = 0.05, 84000/S - 0.005 = 0.10,
     *   116000/S - 0.015 = 0.13
     * branchy_filter: N = 0.5, 0.7 * 0.5 = 0.35, 0.3 * 0.5 + 0.2 = 0.35,
     *   0.25 - 0.05 = 0.20, 0.25 - 0.15 = 0.10
     * icache_thrash: N = 0.3, 200000/240000 * 0.3 = 0.25, 1/6 * 0.3 +
     *   0.04 = 0.09, 0.55 - 0.01 = 0.54, 0.15 - 0.03 = 0.12
     * pointer_chase: N = 0.1, 0.9 * 0.1 = 0.09, 0.1 * 0.1 + 0.01 = 0.02,
     *   0.06 - 0.0025 = 0.0575, 0.84 - 0.0075 = 0.8325
     * counter_skew (16000 + 400000 short of stall_slot 480000): N = 0.4,
     *   0.75 * 0.4 = 0.30, 0.25 * 0.4 + 0.16 = 0.26, 0.02 - 0.04 = -0.02,
     *   0.5 - 0.12 = 0.38
     * Totals over 150 samples, per 5 samples C 500000 and S 4e6: stall_slot
     * 2360000 (N = 0.41), op_retired 1368000, op_spec 1640000, frontend
     * 788000, backend 1508000, br_mis_pred 10750. */
    {"arm-neoverse-v2.perf.data",
     {"cpu_cycles", "stall_slot_frontend", "stall_slot_backend", "stall_slot", "op_retired",
      "op_spec", "br_mis_pred"},
     4,
     {{"dense_math", {0.72, 0.05, 0.10, 0.13}, -1},
      {"branchy_filter", {0.35, 0.35, 0.20, 0.10}, -1},
      {"icache_thrash", {0.25, 0.09, 0.54, 0.12}, -1},
      {"pointer_chase", {0.09, 0.02, 0.0575, 0.8325}, -1},
      {"counter_skew", {0.30, 0.26, -0.02, 0.38}, 2}},
     5,
     {1368000.0 / 1640000 * 0.41, 272000.0 / 1640000 * 0.41 + 4 * 10750 / 500000.0,
      788000 / 4e6 - 10750 / 500000.0, 1508000 / 4e6 - 3 * 10750 / 500000.0}},
};

static char path_of_buf[4096];

static const char *path_of(const char *file)
{
	const char *src = getenv("TDR_SOURCE_DIR");

	snprintf(path_of_buf, sizeof(path_of_buf), "%s/examples/%s", src ? src : ".", file);
	return path_of_buf;
}

static int cat_idx(const struct tdr_report *r, const char *key)
{
	for (size_t c = 0; c < r->cat_cnt; c++)
		if (!strcmp(r->cats[c].name, key))
			return (int)c;
	return -1;
}

static const struct tdr_report_row *row_named(const struct tdr_report *r, const char *name)
{
	for (size_t i = 0; i < tdr_report__row_cnt(r); i++) {
		const struct tdr_report_row *row = tdr_report__row(r, i);

		if (row->name && !strcmp(row->name, name))
			return row;
	}
	return NULL;
}

static void check_row(const struct tdr_report *r, const struct tdr_report_row *row,
		      const double *want, size_t cat_cnt, int flagged)
{
	assert_non_null(row);
	assert_non_null(row->topdown);
	for (size_t k = 0; k < cat_cnt; k++) {
		int c = cat_idx(r, cat_keys[k]);

		assert_true(c >= 0);
		if (fabs(row->topdown[c] - want[k]) >= 1e-9)
			fail_msg("%s %s: %.12f, want %.12f", row->name, cat_keys[k],
				 row->topdown[c], want[k]);
		assert_int_equal(tdr_report_row_out_of_range(r, row, c), (int)k == flagged);
	}
}

/*
 * perf report's per-function event sums of path, or 0 with why set when
 * perf cannot give them. Lines: one period per event, then "[.] name".
 */
static int perf_sums(const char *path, size_t ev_cnt, const char *const *names, size_t fn_cnt,
		     uint64_t (*sums)[8], char *why, size_t why_sz)
{
	char cmd[8192], line[1024], dir[4096];
	size_t found = 0;
	FILE *p;

	snprintf(dir, sizeof(dir), "%s", path);
	*strrchr(dir, '/') = '\0';
	snprintf(cmd, sizeof(cmd),
		 "perf report --group --stdio -F period,sym --sort sym --symfs=%s -i %s 2>&1", dir,
		 path);
	p = popen(cmd, "r");
	if (!p) {
		snprintf(why, why_sz, "cannot run perf");
		return 0;
	}
	while (fgets(line, sizeof(line), p)) {
		uint64_t v[8];
		char *s = line, *end, *sym;
		size_t n = 0;

		if (line[0] == '#' || !(sym = strstr(line, "[.] ")))
			continue;
		while (n < ev_cnt && (v[n] = strtoull(s, &end, 10), end != s)) {
			s = end;
			n++;
		}
		sym += 4;
		sym[strcspn(sym, " \n")] = '\0';
		for (size_t f = 0; n == ev_cnt && f < fn_cnt; f++)
			if (!strcmp(sym, names[f])) {
				memcpy(sums[f], v, sizeof(v[0]) * ev_cnt);
				found++;
			}
	}
	if (pclose(p) != 0 || found != fn_cnt) {
		snprintf(why, why_sz, "perf report gave %zu of %zu functions (perf missing, or too "
			 "old for this file)", found, fn_cnt);
		return 0;
	}
	return 1;
}

static void check_file(const struct want_file *w)
{
	struct tdr_report_opts o;
	struct tdr_report *r = NULL;
	const char *names[NFN];
	uint64_t perf[NFN][8];
	char why[256];
	size_t n;

	tdr_report_opts__init(&o);
	assert_int_equal(tdr_report__load(path_of(w->file), &o, NULL, &r), 0);
	/* The family's events under the table's names, and its categories. */
	assert_int_equal(r->cat_cnt, w->cat_cnt);
	assert_int_equal(r->core_cnt, 0); /* one core type: not split */
	/* As many events as the family has: none lost, none added. */
	for (n = 0; n < 8 && w->family_events[n]; n++)
		;
	assert_int_equal(r->event_cnt, n);
	for (size_t e = 0; e < r->event_cnt; e++)
		assert_string_equal(r->event_names[e], w->family_events[e]);
	for (size_t f = 0; f < w->fn_cnt; f++) {
		const struct tdr_report_row *row = row_named(r, w->fn[f].name);

		check_row(r, row, w->fn[f].cat, w->cat_cnt, w->fn[f].out_of_range);
		assert_int_equal(row->samples, 30);
		assert_string_equal(tdr_report_basename(row->dso), "synthetic-demo.elf");
		names[f] = w->fn[f].name;
	}
	assert_int_equal(tdr_report__row_cnt(r), w->fn_cnt);
	check_row(r, tdr_report__totals(r), w->total, w->cat_cnt, -1);
	/* perf's sums per function are the report's. */
	if (perf_sums(path_of(w->file), r->event_cnt, names, w->fn_cnt, perf, why, sizeof(why))) {
		for (size_t f = 0; f < w->fn_cnt; f++)
			for (size_t e = 0; e < r->event_cnt; e++)
				assert_int_equal(row_named(r, names[f])->events[e], perf[f][e]);
	} else {
		printf("[ SKIPPED  ] perf oracle for %s: %s\n", w->file, why);
	}
	tdr_report__free(r);
}

static void test_examples__amd_zen4(void **state)
{
	(void)state;
	check_file(&files[0]);
}

static void test_examples__amd_zen5(void **state)
{
	(void)state;
	check_file(&files[1]);
}

static void test_examples__skylake_sp(void **state)
{
	(void)state;
	check_file(&files[2]);
}

static void test_examples__sierra_forest(void **state)
{
	(void)state;
	check_file(&files[3]);
}

static void test_examples__neoverse_v2(void **state)
{
	(void)state;
	check_file(&files[4]);
}

/* ---- hybrid parts ---------------------------------------------------- */

#define NHEV 11 /* cpu_core: 6 events, cpu_atom: 5 */
#define NCORE_EV 6

struct want_hrow {
	const char *name, *core;
	double cat[4]; /* retiring, bad-spec, fe-bound, be-bound */
	int out_of_range;
};

struct want_hybrid {
	const char *file;
	const char *events[NHEV];
	struct want_hrow rows[7];
	double total[2][4]; /* cpu_core, cpu_atom */
	double core_slots, atom_slots; /* per sample */
};

#define CORE_ROWS                                                                                  \
	{"dense_math", "cpu_core", {0.70, 0.05, 0.10, 0.15}, -1},                                  \
	    {"branchy_filter", "cpu_core", {0.30, 0.35, 0.20, 0.15}, -1},                          \
	    {"icache_thrash", "cpu_core", {0.20, 0.05, 0.60, 0.15}, -1}

static const struct want_hybrid hybrids[] = {
    /*
     * Alder Lake. cpu_core: each metric / slots (600000 a sample):
     * dense_math 420000, 30000, 60000, 90000 / 600000, ... Totals over 90
     * samples, slots 54e6: retiring 30 * 720000, bad-spec 30 * 270000, fe
     * 30 * 540000, be 30 * 270000. cpu_atom, Gracemont, S = 5 * 100000:
     * dense_math retiring 300000/S, fe 75000/S, be 100000/S, bad-spec the
     * remainder (500000-300000-75000-100000)/S = 0.05 (its measured 0x73,
     * 20000, is in no formula); counter_skew (500000-150000-100000-275000)
     * /S = -0.05. Totals over 120 samples, slots 60e6: retiring 30 *
     * 625000 = 18.75e6, fe 30 * 300000 = 9e6, be 30 * 875000 = 26.25e6,
     * bad-spec (60e6 - 18.75e6 - 9e6 - 26.25e6) / 60e6 = 0.1.
     */
    {"intel-alder-lake.perf.data",
     {"slots", "cpu_core/cycles/", "topdown-retiring", "topdown-bad-spec", "topdown-fe-bound",
      "topdown-be-bound", "cpu_atom/cycles/", "topdown_retiring.all", "cpu_atom/topdown-bad-spec/",
      "topdown_fe_bound.all", "topdown_be_bound.all"},
     {CORE_ROWS,
      {"dense_math", "cpu_atom", {0.60, 0.05, 0.15, 0.20}, -1},
      {"branchy_filter", "cpu_atom", {0.25, 0.35, 0.20, 0.20}, -1},
      {"pointer_chase", "cpu_atom", {0.10, 0.05, 0.05, 0.80}, -1},
      {"counter_skew", "cpu_atom", {0.30, -0.05, 0.20, 0.55}, 1}},
     {{0.4, 0.15, 0.3, 0.15}, {18.75e6 / 60e6, 0.1, 9e6 / 60e6, 26.25e6 / 60e6}},
     600000,
     500000},
    /*
     * Arrow Lake. cpu_core slots 800000 a sample (the same fractions from
     * other counts); totals slots 72e6: retiring 30 * 960000, bad-spec 30
     * * 360000, fe 30 * 720000, be 30 * 360000. cpu_atom, Skymont, S = 8 *
     * 100000, each its own event: dense_math 480000, 40000, 120000,
     * 160000 / S (a width of 5 would give retiring 0.96); counter_skew's
     * backend 840000/S = 1.05. Totals over 120 samples, slots 96e6:
     * retiring 30 * 920000, bad-spec 30 * 400000, fe 30 * 400000, be 30 *
     * 1800000.
     */
    {"intel-arrow-lake.perf.data",
     {"slots", "cpu_core/cycles/", "topdown-retiring", "topdown-bad-spec", "topdown-fe-bound",
      "topdown-be-bound", "cpu_atom/cycles/", "topdown_retiring.all_p",
      "topdown_bad_speculation.all_p", "topdown_fe_bound.all_p", "topdown_be_bound.all_p"},
     {CORE_ROWS,
      {"dense_math", "cpu_atom", {0.60, 0.05, 0.15, 0.20}, -1},
      {"branchy_filter", "cpu_atom", {0.25, 0.35, 0.20, 0.20}, -1},
      {"pointer_chase", "cpu_atom", {0.10, 0.05, 0.05, 0.80}, -1},
      {"counter_skew", "cpu_atom", {0.20, 0.05, 0.10, 1.05}, 3}},
     {{0.4, 0.15, 0.3, 0.15}, {27.6e6 / 96e6, 12e6 / 96e6, 12e6 / 96e6, 54e6 / 96e6}},
     800000,
     800000},
    /*
     * Meteor Lake. cpu_core as Alder Lake's. cpu_atom, Crestmont, S = 6 *
     * 100000, each its own event: dense_math 360000, 30000, 90000, 120000
     * / S (Gracemont's remainder would give bad-spec 0, Skymont's width
     * 0.45 retiring); counter_skew's backend 630000/S = 1.05. Totals over
     * 120 samples, slots 72e6: retiring 30 * 690000, bad-spec 30 * 300000,
     * fe 30 * 300000, be 30 * 1350000.
     */
    {"intel-meteor-lake.perf.data",
     {"slots", "cpu_core/cycles/", "topdown-retiring", "topdown-bad-spec", "topdown-fe-bound",
      "topdown-be-bound", "cpu_atom/cycles/", "topdown_retiring.all_p",
      "topdown_bad_speculation.all_p", "topdown_fe_bound.all_p", "topdown_be_bound.all_p"},
     {CORE_ROWS,
      {"dense_math", "cpu_atom", {0.60, 0.05, 0.15, 0.20}, -1},
      {"branchy_filter", "cpu_atom", {0.25, 0.35, 0.20, 0.20}, -1},
      {"pointer_chase", "cpu_atom", {0.10, 0.05, 0.05, 0.80}, -1},
      {"counter_skew", "cpu_atom", {0.20, 0.05, 0.10, 1.05}, 3}},
     {{0.4, 0.15, 0.3, 0.15}, {20.7e6 / 72e6, 9e6 / 72e6, 9e6 / 72e6, 40.5e6 / 72e6}},
     600000,
     600000},
};

static const struct tdr_report_row *row_on(const struct tdr_report *r, const char *name,
					   const char *core)
{
	for (size_t i = 0; i < tdr_report__row_cnt(r); i++) {
		const struct tdr_report_row *row = tdr_report__row(r, i);
		const char *c = tdr_report_core_name(r, row->core);

		if (row->name && !strcmp(row->name, name) && c && !strcmp(c, core))
			return row;
	}
	fail_msg("no row %s on %s", name, core);
	return NULL;
}

/*
 * perf report's sums per function and group: a line of 6 periods is the
 * cpu_core group's (events 0-5), of 5 the cpu_atom group's (events 6-10).
 * 0 with why set when perf cannot give them all.
 */
static int perf_hybrid_sums(const char *path, const struct want_hybrid *w,
			    uint64_t (*sums)[NHEV], char *why, size_t why_sz)
{
	char cmd[8192], line[1024], dir[4096];
	size_t found = 0;
	FILE *p;

	snprintf(dir, sizeof(dir), "%s", path);
	*strrchr(dir, '/') = '\0';
	snprintf(cmd, sizeof(cmd),
		 "perf report --group --stdio -F period,sym --sort sym --symfs=%s -i %s 2>&1", dir,
		 path);
	p = popen(cmd, "r");
	if (!p) {
		snprintf(why, why_sz, "cannot run perf");
		return 0;
	}
	while (fgets(line, sizeof(line), p)) {
		uint64_t v[NHEV];
		char *s = line, *end, *sym;
		size_t n = 0;

		if (line[0] == '#' || !(sym = strstr(line, "[.] ")))
			continue;
		while (n < NCORE_EV && (v[n] = strtoull(s, &end, 10), end != s)) {
			s = end;
			n++;
		}
		sym += 4;
		sym[strcspn(sym, " \n")] = '\0';
		for (size_t f = 0; f < 7; f++) {
			bool core = !strcmp(w->rows[f].core, "cpu_core");

			if (strcmp(sym, w->rows[f].name) || n != (core ? NCORE_EV : NHEV - NCORE_EV))
				continue;
			memset(sums[f], 0, sizeof(sums[f]));
			memcpy(sums[f] + (core ? 0 : NCORE_EV), v, sizeof(v[0]) * n);
			found++;
		}
	}
	if (pclose(p) != 0 || found != 7) {
		snprintf(why, why_sz, "perf report gave %zu of 7 rows (perf missing, or too old "
			 "for this file)", found);
		return 0;
	}
	return 1;
}

/* The renderers say which core type each row is (docs/report.md "Core
 * types"): text a core column and a total line per core type, JSON "core"
 * and "totals_by_core", CSV a last "core" column and core_total lines.
 * Not inlined: gcc 12 -O3 for aarch64 then warns of a dangling pointer to
 * the memory stream's buffer that is not there. */
__attribute__((noinline)) static char *render(const struct tdr_report *r,
						enum tdr_report_format fmt)
{
	struct tdr_render_opts ro = {.fmt = fmt, .width = 120};
	char *buf = NULL;
	size_t sz = 0;
	FILE *f = open_memstream(&buf, &sz);

	assert_non_null(f);
	assert_int_equal(tdr_report__render(r, &ro, f), 0);
	fclose(f);
	return buf;
}

static void check_hybrid_output(const struct tdr_report *r)
{
	char *text = render(r, TDR_FMT_TEXT), *json = render(r, TDR_FMT_JSON),
	     *csv = render(r, TDR_FMT_CSV);
	const char *nl = strchr(csv, '\n');

	assert_non_null(strstr(text, "split       core      function"));
	assert_non_null(strstr(text, "cpu_atom  counter_skew"));
	assert_non_null(strstr(text, "cpu_core  icache_thrash"));
	assert_non_null(strstr(text, "all       total"));
	assert_non_null(strstr(text, "cpu_atom  total"));
	assert_non_null(strstr(json, "\"totals_by_core\": ["));
	assert_non_null(strstr(json, "\"name\": \"pointer_chase\", \"dso\": \"synthetic-demo.elf\", "
				     "\"core\": \"cpu_atom\""));
	assert_non_null(nl);
	assert_true(nl - csv > 5 && !strncmp(nl - 5, ",core", 5));
	assert_non_null(strstr(csv, "\ncore_total,total,"));
	free(text);
	free(json);
	free(csv);
}

static void check_hybrid(const struct want_hybrid *w)
{
	static const char *const cores[2] = {"cpu_core", "cpu_atom"};
	struct tdr_report_opts o;
	struct tdr_report *r = NULL;
	uint64_t perf[7][NHEV];
	double all_slots = 30 * (3 * w->core_slots + 4 * w->atom_slots);
	char why[256];

	tdr_report_opts__init(&o);
	assert_int_equal(tdr_report__load(path_of(w->file), &o, NULL, &r), 0);
	assert_int_equal(r->event_cnt, NHEV);
	for (size_t e = 0; e < NHEV; e++)
		assert_string_equal(r->event_names[e], w->events[e]);
	/* one column per key, split by core type */
	assert_int_equal(r->cat_cnt, 4);
	assert_int_equal(r->core_cnt, 2);
	assert_int_equal(tdr_report__row_cnt(r), 7);
	for (size_t f = 0; f < 7; f++) {
		const struct want_hrow *h = &w->rows[f];
		const struct tdr_report_row *row = row_on(r, h->name, h->core);
		bool core = !strcmp(h->core, "cpu_core");
		double slots = 30 * (core ? w->core_slots : w->atom_slots);

		check_row(r, row, h->cat, 4, h->out_of_range);
		assert_int_equal(row->samples, 30);
		assert_true(fabs(row->share - 30.0 / 210) < 1e-9);
		assert_true(fabs(row->slots_share - slots / all_slots) < 1e-9);
		/* a row's deltas lie in its own core type's events */
		for (size_t e = 0; e < NHEV; e++)
			if ((e < NCORE_EV) != core)
				assert_int_equal(row->events[e], 0);
	}
	/* totals: every sample counts (one cycles sampler per core type); per
	 * core type, that core type's formulas over its 90 or 120 samples */
	assert_int_equal(tdr_report__totals(r)->samples, 210);
	assert_null(tdr_report__totals(r)->topdown);
	for (size_t k = 0; k < 2; k++) {
		const struct tdr_report_row *t = &r->core_totals[k];

		assert_string_equal(tdr_report_core_name(r, t->core), cores[k]);
		assert_int_equal(t->samples, k ? 120 : 90);
		check_row(r, t, w->total[k], 4, -1);
	}
	check_hybrid_output(r);
	if (perf_hybrid_sums(path_of(w->file), w, perf, why, sizeof(why))) {
		for (size_t f = 0; f < 7; f++)
			for (size_t e = 0; e < NHEV; e++)
				assert_int_equal(row_on(r, w->rows[f].name, w->rows[f].core)->events[e],
						 perf[f][e]);
	} else {
		printf("[ SKIPPED  ] perf oracle for %s: %s\n", w->file, why);
	}
	tdr_report__free(r);
}

static void test_examples__alder_lake(void **state)
{
	(void)state;
	check_hybrid(&hybrids[0]);
}

static void test_examples__arrow_lake(void **state)
{
	(void)state;
	check_hybrid(&hybrids[1]);
}

static void test_examples__meteor_lake(void **state)
{
	(void)state;
	check_hybrid(&hybrids[2]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_examples__amd_zen4),
	    cmocka_unit_test(test_examples__amd_zen5),
	    cmocka_unit_test(test_examples__skylake_sp),
	    cmocka_unit_test(test_examples__sierra_forest),
	    cmocka_unit_test(test_examples__neoverse_v2),
	    cmocka_unit_test(test_examples__alder_lake),
	    cmocka_unit_test(test_examples__arrow_lake),
	    cmocka_unit_test(test_examples__meteor_lake),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
