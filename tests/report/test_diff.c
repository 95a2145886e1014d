/*
 * tests/report/test_diff.c - comparing two reports function by function.
 *
 * OLD and NEW put the same functions at different addresses in objects at
 * different paths with the same basename (a rebuilt binary): diff must match
 * them by (object basename, function name), list functions present on one
 * side only, sort by the largest absolute change of share, and give the
 * direction (NEW - OLD) of share and TopDown changes.
 */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "json_mini.h"
#include "report_fixture.h"

static const struct tdr_mapping old_app = {.path = "/build1/app", .kind = TDR_MAP_FILE};
static const struct tdr_mapping new_app = {.path = "/build2/app", .kind = TDR_MAP_FILE};

static const struct fx_sym_entry syms_table[] = {
    {"/build1/app", 0x1000, 0x1100, TDR_SYM_OK, "main", NULL, NULL, 0},
    {"/build1/app", 0x1100, 0x1200, TDR_SYM_OK, "compute", NULL, NULL, 0},
    {"/build1/app", 0x1200, 0x1300, TDR_SYM_OK, "gone", NULL, NULL, 0},
    {"/build2/app", 0x2000, 0x2100, TDR_SYM_OK, "compute", NULL, NULL, 0},
    {"/build2/app", 0x2100, 0x2200, TDR_SYM_OK, "main", NULL, NULL, 0},
    {"/build2/app", 0x2200, 0x2300, TDR_SYM_OK, "newfn", NULL, NULL, 0},
};

static void feed(struct tdr_report *r, const struct tdr_mapping *map, uint64_t off,
		 const uint64_t *deltas, int times)
{
	struct tdr_sample s = {.pid = 1,
			       .tid = 1,
			       .comm = "app",
			       .map = map,
			       .map_off = off,
			       .cpumode = TDR_MODE_USER,
			       .deltas = deltas};

	for (int i = 0; i < times; i++)
		assert_int_equal(tdr_report__add_sample(r, &s), 0);
}

static void done(struct tdr_report *r, struct fx_syms *fs)
{
	assert_int_equal(tdr_report__resolve(r, &fs->rs), 0);
	assert_int_equal(tdr_report__finish(r), 0);
}

/* slots, cycles, retiring, bad-spec, fe-bound, be-bound per sample */
static const uint64_t be30[] = {100, 0, 50, 10, 10, 30};
static const uint64_t be50[] = {100, 0, 30, 10, 10, 50};
static const uint64_t ret70[] = {100, 0, 70, 10, 10, 10};

static void make_pair(struct fx_meta *mo, struct fx_meta *mn, struct tdr_report **old,
		      struct tdr_report **new, struct fx_syms *fs)
{
	fx_syms_init(fs, syms_table, sizeof(syms_table) / sizeof(syms_table[0]));
	fx_meta_l1(mo);
	fx_meta_l1(mn);
	*old = fx_report(mo, NULL);
	feed(*old, &old_app, 0x1150, be30, 50);	 /* compute 50% */
	feed(*old, &old_app, 0x1160, be30, 10);	 /* compute, another address: 60% in all */
	feed(*old, &old_app, 0x1010, ret70, 30); /* main 30% */
	feed(*old, &old_app, 0x1210, ret70, 10); /* gone 10% */
	done(*old, fs);
	*new = fx_report(mn, NULL);
	feed(*new, &new_app, 0x2050, be50, 30);	 /* compute 30% */
	feed(*new, &new_app, 0x2150, ret70, 60); /* main 60% */
	feed(*new, &new_app, 0x2250, ret70, 10); /* newfn 10% */
	done(*new, fs);
}

static const struct tdr_diff_row *find(const struct tdr_diff *d, const char *name)
{
	for (size_t i = 0; i < tdr_diff__row_cnt(d); i++)
		if (!strcmp(tdr_diff__row(d, i)->name, name))
			return tdr_diff__row(d, i);
	return NULL;
}

static void test_diff__matches_by_basename_and_function(void **state)
{
	struct fx_meta mo, mn;
	struct fx_syms fs;
	struct tdr_report *old, *new;
	struct tdr_diff *d = NULL;
	const struct tdr_diff_row *row;

	(void)state;
	make_pair(&mo, &mn, &old, &new, &fs);
	assert_int_equal(tdr_diff__new(old, "old.tdr", new, "new.tdr", &d), 0);
	assert_int_equal(tdr_diff__row_cnt(d), 4);
	/* Sorted by |change|: compute -30, main +30 (equal changes and equal larger
	 * shares, 60%: by name), then gone -10 and newfn +10. */
	assert_string_equal(tdr_diff__row(d, 0)->name, "compute");
	assert_string_equal(tdr_diff__row(d, 1)->name, "main");
	assert_true(fabs(fabs(tdr_diff__row(d, 2)->share_change) - 0.1) < 1e-12);
	assert_true(fabs(fabs(tdr_diff__row(d, 3)->share_change) - 0.1) < 1e-12);

	row = find(d, "compute");
	assert_string_equal(row->dso, "app");
	assert_int_equal(row->old.samples, 60);
	assert_int_equal(row->new.samples, 30);
	assert_true(fabs(row->old.share - 0.6) < 1e-12);
	assert_true(fabs(row->new.share - 0.3) < 1e-12);
	assert_true(fabs(row->share_change + 0.3) < 1e-12);
	assert_false(row->only_old || row->only_new);
	/* be-bound went from 30% to 50% of compute's slots: +20 points. */
	assert_int_equal(tdr_diff__category_cnt(d), 4);
	assert_string_equal(tdr_diff__category_name(d, 3), "be-bound");
	assert_true(fabs(row->old.topdown[3] - 0.30) < 1e-12);
	assert_true(fabs(row->new.topdown[3] - 0.50) < 1e-12);
	assert_true(fabs(row->topdown_change[3] - 0.20) < 1e-12);
	assert_true(fabs(row->topdown_change[0] + 0.20) < 1e-12);

	row = find(d, "main");
	assert_true(fabs(row->share_change - 0.3) < 1e-12);
	assert_true(fabs(row->topdown_change[0]) < 1e-12);

	row = find(d, "gone");
	assert_true(row->only_old);
	assert_true(row->share_change < 0);
	assert_int_equal(row->new.samples, 0);
	assert_true(isnan(row->topdown_change[0]));
	row = find(d, "newfn");
	assert_true(row->only_new);
	assert_true(fabs(row->share_change - 0.1) < 1e-12);
	tdr_diff__free(d);

	/* Swapping the sides flips every direction. */
	assert_int_equal(tdr_diff__new(new, "new.tdr", old, "old.tdr", &d), 0);
	assert_true(fabs(find(d, "compute")->share_change - 0.3) < 1e-12);
	assert_true(find(d, "newfn")->only_old);
	tdr_diff__free(d);
	tdr_report__free(old);
	tdr_report__free(new);
}

static void test_diff__same_name_in_different_objects_stays_apart(void **state)
{
	struct fx_meta m;
	struct tdr_report *a, *b;
	struct tdr_diff *d = NULL;
	const uint64_t dd[SW_CNT] = {1000, 1000, 0, 0};

	(void)state;
	fx_meta_sw(&m);
	a = fx_report(&m, NULL);
	fx_add(a, "foo", "/lib/libA.so", dd, 10);
	fx_add(a, "foo", "/lib/libB.so", dd, 10);
	assert_int_equal(tdr_report__finish(a), 0);
	b = fx_report(&m, NULL);
	fx_add(b, "foo", "/usr/lib/libA.so", dd, 30);
	fx_add(b, "foo", "/usr/lib/libB.so", dd, 10);
	assert_int_equal(tdr_report__finish(b), 0);
	assert_int_equal(tdr_diff__new(a, NULL, b, NULL, &d), 0);
	assert_int_equal(tdr_diff__row_cnt(d), 2);
	/* Both change by 25 points; the one with the larger share (75%) goes first. */
	assert_string_equal(tdr_diff__row(d, 0)->dso, "libA.so"); /* 50% -> 75% */
	assert_true(tdr_diff__row(d, 0)->share_change > 0);
	assert_string_equal(tdr_diff__row(d, 1)->dso, "libB.so"); /* 50% -> 25% */
	assert_true(tdr_diff__row(d, 1)->share_change < 0);
	/* No TopDown on either side: shares only, and nothing to warn about. */
	assert_int_equal(tdr_diff__category_cnt(d), 0);
	assert_null(tdr_diff__row(d, 0)->topdown_change);
	assert_int_equal(tdr_diff__warning_cnt(d), 0);
	tdr_diff__free(d);
	tdr_report__free(a);
	tdr_report__free(b);
}

/* A rebuild with other options names GCC's copies of a function otherwise
 * (f <-> f.isra.0, "g(int) [clone .constprop.0]"): they still match, and
 * names that only look alike (operator[], sha256) are left whole. */
static void test_diff__clone_suffixes_match(void **state)
{
	struct fx_meta m;
	struct tdr_report *a, *b;
	struct tdr_diff *d = NULL;
	const uint64_t dd[SW_CNT] = {1000, 1000, 0, 0};
	bool seen_f = false, seen_g = false, seen_op = false, seen_sha = false;

	(void)state;
	fx_meta_sw(&m);
	a = fx_report(&m, NULL);
	fx_add(a, "f.constprop.0.isra.0", "/bin/app", dd, 10);
	fx_add(a, "g(int) [clone .constprop.0] [clone .isra.0]", "/bin/app", dd, 10);
	fx_add(a, "v::operator[](int)", "/bin/app", dd, 10);
	fx_add(a, "sha256", "/bin/app", dd, 10);
	fx_add(a, "main.cold", "/bin/app", dd, 10);
	assert_int_equal(tdr_report__finish(a), 0);
	b = fx_report(&m, NULL);
	fx_add(b, "f", "/bin/app", dd, 10);
	fx_add(b, "g(int)", "/bin/app", dd, 10);
	fx_add(b, "v::operator[](int)", "/bin/app", dd, 10);
	fx_add(b, "sha2", "/bin/app", dd, 10);
	fx_add(b, "main", "/bin/app", dd, 10);
	assert_int_equal(tdr_report__finish(b), 0);
	assert_int_equal(tdr_diff__new(a, NULL, b, NULL, &d), 0);
	/* f, g, operator[], main matched; sha256 and sha2 apart. */
	assert_int_equal(tdr_diff__row_cnt(d), 6);
	for (size_t i = 0; i < tdr_diff__row_cnt(d); i++) {
		const struct tdr_diff_row *row = tdr_diff__row(d, i);

		if (!strcmp(row->name, "f"))
			seen_f = !row->only_old && !row->only_new;
		if (!strcmp(row->name, "g(int)"))
			seen_g = !row->only_old && !row->only_new;
		if (!strcmp(row->name, "v::operator[](int)"))
			seen_op = !row->only_old && !row->only_new;
		if (!strcmp(row->name, "sha256"))
			seen_sha = row->only_old;
	}
	assert_true(seen_f && seen_g && seen_op && seen_sha);
	tdr_diff__free(d);
	tdr_report__free(a);
	tdr_report__free(b);
}

static void test_diff__different_plans_compare_shares_only(void **state)
{
	struct fx_meta mo, mn;
	struct tdr_report *a, *b;
	struct tdr_diff *d = NULL;
	const uint64_t dsw[SW_CNT] = {1000, 1000, 0, 0};

	(void)state;
	fx_meta_l1(&mo);
	a = fx_report(&mo, NULL);
	fx_add(a, "f", "/bin/x", be30, 10);
	assert_int_equal(tdr_report__finish(a), 0);
	fx_meta_sw(&mn);
	b = fx_report(&mn, NULL);
	fx_add(b, "f", "/bin/x", dsw, 10);
	assert_int_equal(tdr_report__finish(b), 0);
	assert_int_equal(tdr_diff__new(a, "a", b, "b", &d), 0);
	assert_int_equal(tdr_diff__category_cnt(d), 0);
	assert_null(tdr_diff__row(d, 0)->topdown_change);
	assert_true(fabs(tdr_diff__row(d, 0)->share_change) < 1e-12);
	assert_int_equal(tdr_diff__warning_cnt(d), 1);
	assert_non_null(
	    strstr(tdr_diff__warning(d, 0), "the plans differ (OLD topdown-l1, NEW software)"));
	tdr_diff__free(d);
	tdr_report__free(a);
	tdr_report__free(b);
}

static void test_diff__refuses_mismatched_or_unfinished(void **state)
{
	struct fx_meta m;
	struct tdr_report_opts o;
	struct tdr_report *a, *b, *c;
	struct tdr_diff *d = NULL;

	(void)state;
	fx_meta_sw(&m);
	a = fx_report(&m, NULL);
	assert_int_equal(tdr_report__finish(a), 0);
	tdr_report_opts__init(&o);
	o.by = TDR_BY_THREAD;
	b = fx_report(&m, &o);
	assert_int_equal(tdr_report__finish(b), 0);
	c = fx_report(&m, NULL);
	assert_int_equal(tdr_diff__new(a, NULL, b, NULL, &d), -EINVAL);
	assert_int_equal(tdr_diff__new(a, NULL, c, NULL, &d), -EINVAL);
	assert_null(d);
	tdr_report__free(a);
	tdr_report__free(b);
	tdr_report__free(c);
}

static void test_diff__output_json_and_text(void **state)
{
	struct fx_meta mo, mn;
	struct fx_syms fs;
	struct tdr_report *old, *new;
	struct tdr_diff *d = NULL;
	char *out;
	struct jm *j;
	const struct jm *row;
	size_t where = 0;

	(void)state;
	make_pair(&mo, &mn, &old, &new, &fs);
	tdr_report__warn(old, "something about OLD");
	tdr_report__warn(new, "note: plan notes are not repeated in a diff");
	assert_int_equal(tdr_diff__new(old, "/tmp/before.tdr", new, "/tmp/after.tdr", &d), 0);
	out = fx_render_diff(d, TDR_FMT_JSON, 0);
	j = jm_parse(out, &where);
	if (!j)
		print_error("invalid JSON at %zu: %.40s\n", where, out + where);
	assert_non_null(j);
	assert_string_equal(jm_get(j, "schema")->str, "tdrec-diff/1");
	assert_string_equal(jm_get(jm_get(j, "old"), "file")->str, "/tmp/before.tdr");
	assert_string_equal(jm_get(jm_get(j, "new"), "file")->str, "/tmp/after.tdr");
	assert_int_equal(jm_get(j, "categories_compared")->n, 4);
	assert_int_equal(jm_get(j, "warnings")->n, 1);
	assert_string_equal(jm_at(jm_get(j, "warnings"), 0)->str, "OLD: something about OLD");
	assert_int_equal(jm_get(j, "rows")->n, 4);
	row = jm_at(jm_get(j, "rows"), 0);
	assert_string_equal(jm_get(row, "name")->str, "compute");
	assert_string_equal(jm_get(row, "dso")->str, "app");
	assert_int_equal(jm_get(row, "only_in")->t, JM_NULL);
	assert_true(fabs(jm_get(row, "share_change")->num + 0.3) < 1e-9);
	assert_true(fabs(jm_get(jm_get(row, "topdown_change"), "be-bound")->num - 0.2) < 1e-9);
	assert_int_equal(jm_get(jm_get(row, "old"), "samples")->num, 60);
	assert_true(fabs(jm_get(jm_get(jm_get(row, "new"), "topdown"), "be-bound")->num - 0.5) <
		    1e-9);
	for (size_t i = 0; i < 4; i++) {
		row = jm_at(jm_get(j, "rows"), i);
		if (!strcmp(jm_get(row, "name")->str, "gone"))
			assert_string_equal(jm_get(row, "only_in")->str, "old");
		if (!strcmp(jm_get(row, "name")->str, "newfn"))
			assert_string_equal(jm_get(row, "only_in")->str, "new");
	}
	jm_free(j);
	free(out);

	out = fx_render_diff(d, TDR_FMT_TEXT, 0);
	fx_assert_width(out, 100);
	assert_non_null(strstr(out, "OLD = /tmp/before.tdr"));
	assert_non_null(strstr(out, "NEW = /tmp/after.tdr"));
	assert_non_null(strstr(out, "change = NEW - OLD"));
	assert_non_null(
	    strstr(out, "   60.0   30.0  -30.0   -20.0   +0.0   +0.0  +20.0  compute  app"));
	assert_non_null(strstr(out, "[only in OLD]"));
	assert_non_null(strstr(out, "[only in NEW]"));
	free(out);
	out = fx_render_diff(d, TDR_FMT_TEXT, 1);
	assert_non_null(strstr(out, "3 more rows not shown"));
	free(out);
	tdr_diff__free(d);
	tdr_report__free(old);
	tdr_report__free(new);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_diff__matches_by_basename_and_function),
	    cmocka_unit_test(test_diff__same_name_in_different_objects_stays_apart),
	    cmocka_unit_test(test_diff__clone_suffixes_match),
	    cmocka_unit_test(test_diff__different_plans_compare_shares_only),
	    cmocka_unit_test(test_diff__refuses_mismatched_or_unfinished),
	    cmocka_unit_test(test_diff__output_json_and_text),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
