/*
 * tests/report/test_examples_level2.c - the shipped AMD Zen 4 level-2
 * example (examples/amd-zen4-l2.perf.data): perf's own recording of three
 * sampling groups, imported.
 *
 * examples/gen_topdown_examples.c writes it as `perf record -e
 * '{level 1}:S,{ls_not_halted_cyc,...}:S,{ls_not_halted_cyc,...}:S'` does:
 * raw 0x76 leads groups 1 and 2 under the same perf name, which the
 * importer tells apart by group position (ls_not_halted_cyc,
 * ls_not_halted_cyc.g2, docs/plans.md "Level 2 in record"). Each of
 * dense_math, branchy_filter and pointer_chase has 30 samples of one fixed
 * delta vector in every group (the generator's comment lists them), so
 * every category below is computed by hand from those vectors, to 1e-9.
 * perf is the oracle of the per-function event sums: `perf report --group`
 * prints one table per group (6, 3 and 5 periods a line); the test says why
 * and skips that part when perf is missing or cannot read the file.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "report_int.h"

#define NEV 14
#define NFN 3
#define NCAT 13

static const char *const events[NEV] = {
    "cycles",
    "de_no_dispatch_per_slot.no_ops_from_frontend",
    "de_no_dispatch_per_slot.backend_stalls",
    "de_no_dispatch_per_slot.smt_contention",
    "de_src_op_disp.all",
    "ex_ret_ops",
    "ls_not_halted_cyc",
    "de_no_dispatch_per_slot.no_ops_from_frontend.cmask_w",
    "ex_ret_ucode_ops",
    "ls_not_halted_cyc.g2",
    "ex_no_retire.not_complete",
    "ex_no_retire.load_not_complete",
    "ex_ret_brn_misp",
    "resyncs_or_nc_redirects",
};

static const char *const keys[NCAT] = {
    "retiring",	 "bad-spec",  "fe-bound",      "be-bound",	 "smt-contention",
    "heavy-ops", "light-ops", "br-mispredict", "machine-clears", "fetch-lat",
    "fetch-bw",	 "mem-bound", "core-bound",
};

/*
 * Group 0 (slots 600000 a sample): level 1 as amd-zen4. Group 1 (cycles
 * 100000): fetch-lat = cmask / cycles, heavy = ucode / 600000; fetch-bw =
 * fe - fetch-lat, light = retiring - heavy. Group 2: mem = be * load /
 * not_complete, core = be - mem, mispredicts = bad-spec * misp / (misp +
 * resync), clears = bad-spec - mispredicts.
 *   dense_math:     cmask 2000, ucode 12000; nc 50000, load 10000, misp 90, resync 10
 *   branchy_filter: cmask 15000, ucode 6000; nc 40000, load 10000, misp 950, resync 50
 *   pointer_chase:  cmask 1000, ucode 3000;  nc 80000, load 72000, misp 10, resync 10
 */
static const struct {
	const char *name;
	double cat[NCAT];
} fns[NFN] = {
    {"dense_math",
     {0.70, 0.02, 0.10, 0.15, 0.03, 0.02, 0.68, 0.02 * 0.9, 0.02 * 0.1, 0.02, 0.08, 0.15 * 0.2,
      0.15 * 0.8}},
    {"branchy_filter",
     {0.30, 0.25, 0.20, 0.20, 0.05, 0.01, 0.29, 0.25 * 0.95, 0.25 * 0.05, 0.15, 0.05, 0.2 * 0.25,
      0.2 * 0.75}},
    {"pointer_chase",
     {0.10, 0.01, 0.05, 0.80, 0.04, 0.005, 0.095, 0.005, 0.005, 0.01, 0.04, 0.8 * 0.9, 0.8 * 0.1}},
};

static char path_buf[4096];

static const char *example_path(void)
{
	const char *src = getenv("TDR_SOURCE_DIR");

	snprintf(path_buf, sizeof(path_buf), "%s/examples/amd-zen4-l2.perf.data", src ? src : ".");
	return path_buf;
}

static int cat_idx(const struct tdr_report *r, const char *key)
{
	for (size_t c = 0; c < r->cat_cnt; c++)
		if (!strcmp(r->cats[c].name, key))
			return (int)c;
	fail_msg("no category %s", key);
	return -1;
}

static const struct tdr_report_row *row_named(const struct tdr_report *r, const char *name)
{
	for (size_t i = 0; i < tdr_report__row_cnt(r); i++)
		if (!strcmp(tdr_report__row(r, i)->name, name))
			return tdr_report__row(r, i);
	fail_msg("no row %s", name);
	return NULL;
}

static void near(const char *what, const char *key, double got, double want)
{
	if (!(fabs(got - want) < 1e-9))
		fail_msg("%s %s: %.12f, want %.12f", what, key, got, want);
}

/* perf report's sums per function, all groups: a line of 6 periods is
 * group 0's (events 0-5), of 3 group 1's (6-8), of 5 group 2's (9-13). */
static int perf_sums(const char *path, uint64_t sums[NFN][NEV], char *why, size_t why_sz)
{
	static const size_t first[6] = {0, 0, 0, 6, 0, 9}; /* by width: 3, 5, 6 */
	char cmd[8400], line[1024], dir[4096];
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
		while (n < 8 && (v[n] = strtoull(s, &end, 10), end != s)) {
			s = end;
			n++;
		}
		sym += 4;
		sym[strcspn(sym, " \n")] = '\0';
		if (n != 3 && n != 5 && n != 6)
			continue;
		for (size_t f = 0; f < NFN; f++)
			if (!strcmp(sym, fns[f].name)) {
				memcpy(&sums[f][n == 6 ? 0 : first[n]], v, n * sizeof(v[0]));
				found++;
			}
	}
	if (pclose(p) != 0 || found != 3 * NFN) {
		snprintf(why, why_sz,
			 "perf report gave %zu of %d lines (perf missing, or too old "
			 "for this file)",
			 found, 3 * NFN);
		return 0;
	}
	return 1;
}

static void test_examples_level2__amd_zen4_l2(void **state)
{
	struct tdr_report_opts o;
	struct tdr_report *r = NULL;
	const struct tdr_report_row *t;
	uint64_t perf[NFN][NEV];
	char why[256];

	(void)state;
	tdr_report_opts__init(&o);
	assert_int_equal(tdr_report__load(example_path(), &o, NULL, &r), 0);
	/* The table's names, told apart by group; every level-2 category. */
	assert_int_equal(r->event_cnt, NEV);
	for (size_t e = 0; e < NEV; e++)
		assert_string_equal(r->event_names[e], events[e]);
	assert_int_equal(r->cat_cnt, NCAT);
	assert_int_equal(r->sgroup_cnt, 3);
	assert_int_equal(tdr_report__row_cnt(r), NFN);
	for (size_t f = 0; f < NFN; f++) {
		const struct tdr_report_row *row = row_named(r, fns[f].name);

		/* Every group's samples count: 30 in each. */
		assert_int_equal(row->samples, 90);
		for (size_t k = 0; k < NCAT; k++)
			near(fns[f].name, keys[k], row->topdown[cat_idx(r, keys[k])],
			     fns[f].cat[k]);
		for (size_t g = 0; g < 3; g++)
			near(fns[f].name, "group share", tdr_report_group_share(r, row, g),
			     1.0 / 3);
		assert_false(tdr_report_groups_unbalanced(r, row));
	}
	/* Totals, slots 3 * 30 * 600000 = 54e6: retiring 30 * 660000 / 54e6,
	 * fetch-lat 30 * 18000 / (30 * 300000), heavy 30 * 21000 / 54e6, mem
	 * (30 * 690000 / 54e6) * 92000 / 170000. */
	t = tdr_report__totals(r);
	assert_int_equal(t->samples, 270);
	near("total", "retiring", t->topdown[cat_idx(r, "retiring")], 19.8e6 / 54e6);
	near("total", "fetch-lat", t->topdown[cat_idx(r, "fetch-lat")], 0.06);
	near("total", "heavy-ops", t->topdown[cat_idx(r, "heavy-ops")], 630000 / 54e6);
	near("total", "mem-bound", t->topdown[cat_idx(r, "mem-bound")],
	     20.7e6 / 54e6 * 92000 / 170000);
	/* perf's sums per function and group are the report's. */
	if (perf_sums(example_path(), perf, why, sizeof(why))) {
		for (size_t f = 0; f < NFN; f++)
			for (size_t e = 0; e < NEV; e++)
				assert_int_equal(row_named(r, fns[f].name)->events[e], perf[f][e]);
	} else {
		printf("[ SKIPPED  ] perf oracle for amd-zen4-l2.perf.data: %s\n", why);
	}
	tdr_report__free(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_examples_level2__amd_zen4_l2),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
