/*
 * tests/format/test_weighted.c - weighted terms of the product form
 * (docs/format.md section 5.2, WPART items, since 1.5).
 *
 * What is checked: Skylake-SP's memory bound and core bound (perf's
 * skylakex/skx-metrics.json tma_memory_bound: backend bound times
 * (STALLS_MEM_ANY + BOUND_ON_STORES) / (STALLS_TOTAL + 1_PORTS_UTIL +
 * retiring * 2_PORTS_UTIL + BOUND_ON_STORES), retiring = retire slots /
 * (W * cycles) the weight of a denominator term), built by hand over ten
 * events and evaluated against values computed by hand (exact to 1e-9);
 * scaling one counting group's deltas leaves them unchanged; a weight or
 * denominator without a value gives no value; copy and clear; the items
 * round-trip through the metadata codec and a file, which then says minor
 * 5; a reader that skips the WPART items (what a reader of 1.4 does) finds
 * no terms, so no value; weighted terms in a PART, a PART beside a WPART,
 * a weight with weighted terms of its own, a weighted term without its
 * TERM and a cut item are refused.
 * "test_weighted FILE" writes the file the independent reader checks
 * (tests/format/independent_reader.py, option skx-weighted).
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "format_int.h"
#include "testlib.h"
#include "tdrec/tdr_endian.h"
#include "tdrec/tdr_err.h"

#define assert_near(a, b) assert_true(fabs((a) - (b)) < 1e-9)

/* Events: group 0 {0 cycles, 1 uops issued, 2 retire slots, 3 fetch
 * bubbles, 4 recovery}, group 1 {5 STALLS_MEM_ANY, 6 BOUND_ON_STORES,
 * 7 STALLS_TOTAL, 8 1_PORTS_UTIL, 9 2_PORTS_UTIL}. W = 4. */
enum { CYC, ISSUED, RETIRED, BUBBLES, RECOVERY, MEM_ANY, STORES, TOTAL, P1, P2, NEV };

static struct tdr_term *terms(size_t cnt, const struct tdr_term *t)
{
	struct tdr_term *out = calloc(cnt, sizeof(*out));

	assert_non_null(out);
	memcpy(out, t, cnt * sizeof(*out));
	return out;
}

/* backend bound = (4 cyc - bubbles - issued - 4 recovery) / (4 cyc) */
static void backend_factor(struct tdr_ratio *r)
{
	const struct tdr_term num[] = {{CYC, 4}, {BUBBLES, -1}, {ISSUED, -1}, {RECOVERY, -4}};
	const struct tdr_term den[] = {{CYC, 4}};

	r->num = terms(4, num);
	r->num_cnt = 4;
	r->den = terms(1, den);
	r->den_cnt = 1;
}

/* sign * (MEM_ANY + STORES) / (TOTAL + P1 + STORES + P2 * retired / (4 cyc)) */
static void memory_factor(struct tdr_ratio *r, double sign)
{
	const struct tdr_term num[] = {{MEM_ANY, sign}, {STORES, sign}};
	const struct tdr_term den[] = {{TOTAL, 1}, {P1, 1}, {STORES, 1}};
	const struct tdr_term wnum[] = {{RETIRED, 1}};
	const struct tdr_term wden[] = {{CYC, 4}};

	r->num = terms(2, num);
	r->num_cnt = 2;
	r->den = terms(3, den);
	r->den_cnt = 3;
	r->wden = calloc(1, sizeof(*r->wden));
	assert_non_null(r->wden);
	r->wden_cnt = 1;
	r->wden[0].event_idx = P2;
	r->wden[0].coef = 1;
	r->wden[0].w.num = terms(1, wnum);
	r->wden[0].w.num_cnt = 1;
	r->wden[0].w.den = terms(1, wden);
	r->wden[0].w.den_cnt = 1;
}

/* mem-bound = backend * memory; core-bound = backend - backend * memory. */
static void skx_categories(struct tdr_category c[2])
{
	memset(c, 0, 2 * sizeof(*c));
	c[0].name = strdup("mem-bound");
	c[0].parent = strdup("be-bound");
	c[0].level = 2;
	c[0].part_cnt = 1;
	c[0].parts = calloc(1, sizeof(*c[0].parts));
	assert_non_null(c[0].parts);
	c[0].parts[0].factor_cnt = 2;
	backend_factor(&c[0].parts[0].factors[0]);
	memory_factor(&c[0].parts[0].factors[1], 1);

	c[1].name = strdup("core-bound");
	c[1].parent = strdup("be-bound");
	c[1].level = 2;
	c[1].flags = TDR_CATEGORY_DERIVED;
	c[1].part_cnt = 2;
	c[1].parts = calloc(2, sizeof(*c[1].parts));
	assert_non_null(c[1].parts);
	c[1].parts[0].factor_cnt = 1;
	backend_factor(&c[1].parts[0].factors[0]);
	c[1].parts[1].factor_cnt = 2;
	backend_factor(&c[1].parts[1].factors[0]);
	memory_factor(&c[1].parts[1].factors[1], -1);
}

/* tl_make_meta's file (ten events) with the two categories in place of
 * its linear ones. */
static void skx_meta(struct tdr_meta *m)
{
	tl_make_meta(m);
	for (size_t i = 0; i < m->category_cnt; i++)
		tdr_category__clear(&m->categories[i]);
	free(m->categories);
	m->categories = calloc(2, sizeof(*m->categories));
	assert_non_null(m->categories);
	skx_categories(m->categories);
	m->category_cnt = 2;
}

/* A function's summed deltas. backend = (4000 - 800 - 1800 - 200) / 4000
 * = 0.3; retiring = 1600 / 4000 = 0.4; memory ratio = (300 + 100) / (500 +
 * 200 + 0.4 * 250 + 100) = 400 / 900; mem-bound = 0.3 * 4/9 = 2/15;
 * core-bound = 0.3 - 2/15 = 1/6. */
static const uint64_t sums[NEV] = {1000, 1800, 1600, 800, 50, 300, 100, 500, 200, 250};

static void test_weighted__by_hand(void **state)
{
	struct tdr_category c[2], copy;
	uint64_t d[NEV];

	(void)state;
	skx_categories(c);
	assert_true(tdr_category__weighted(&c[0]) && tdr_category__weighted(&c[1]));
	assert_true(tdr_category__valid(&c[0], NEV));
	assert_false(tdr_category__valid(&c[0], NEV - 1)); /* P2 past the end */
	assert_near(tdr_category__value(&c[0], sums, NEV), 2.0 / 15);
	assert_near(tdr_category__value(&c[1], sums, NEV), 1.0 / 6);
	/* The children of be-bound add up to it. */
	assert_near(tdr_category__value(&c[0], sums, NEV) + tdr_category__value(&c[1], sums, NEV),
		    0.3);
	/* Multiplexing: each group's deltas scaled by its share of the time
	 * (group 0 by 3, group 1 by 1/2) leave both values as they were:
	 * every ratio and the weight read one group. */
	for (size_t i = 0; i < NEV; i++)
		d[i] = i < MEM_ANY ? 3 * sums[i] : sums[i] / 2;
	assert_near(tdr_category__value(&c[0], d, NEV), 2.0 / 15);
	assert_near(tdr_category__value(&c[1], d, NEV), 1.0 / 6);
	/* No cycles: the weight (and backend) has no value, nor the category. */
	memcpy(d, sums, sizeof(d));
	d[CYC] = 0;
	assert_true(isnan(tdr_category__value(&c[0], d, NEV)));
	/* The weighted term counts in the denominator: 0 + 0 + 0 + 250 * 0.4
	 * = 100, so memory = 0.3 * 300 / 100; without it the denominator is
	 * 0 and there is no value. */
	memcpy(d, sums, sizeof(d));
	d[TOTAL] = d[P1] = d[STORES] = 0;
	assert_near(tdr_category__value(&c[0], d, NEV), 0.9);
	d[P2] = 0;
	assert_true(isnan(tdr_category__value(&c[0], d, NEV)));
	/* A deep copy evaluates the same and frees on its own. */
	assert_int_equal(tdr_category__copy(&copy, &c[0]), 0);
	assert_near(tdr_category__value(&copy, sums, NEV), 2.0 / 15);
	assert_int_equal(copy.parts[0].factors[1].wden_cnt, 1);
	assert_ptr_not_equal(copy.parts[0].factors[1].wden, c[0].parts[0].factors[1].wden);
	tdr_category__clear(&copy);
	/* A weight with weighted terms of its own is not a valid formula. */
	c[0].parts[0].factors[1].wden[0].w.wnum = c[0].parts[0].factors[1].wden;
	c[0].parts[0].factors[1].wden[0].w.wnum_cnt = 1;
	assert_false(tdr_category__valid(&c[0], NEV));
	assert_true(isnan(tdr_category__value(&c[0], sums, NEV)));
	c[0].parts[0].factors[1].wden[0].w.wnum = NULL;
	c[0].parts[0].factors[1].wden[0].w.wnum_cnt = 0;
	tdr_category__clear(&c[0]);
	tdr_category__clear(&c[1]);
}

/* The codec and a file: the same categories come back, minor 5. */
static void test_weighted__round_trip_and_minor(void **state)
{
	struct tdr_meta m, back;
	struct tdr_buf b = {0};
	struct tl_std std;
	struct tdr_reader *r = NULL;
	char *dir = tl_mkdtemp();

	(void)state;
	skx_meta(&m);
	assert_true(tdr_meta__has_weighted(&m));
	tdr_meta__encode(&b, &m);
	assert_int_equal(b.err, 0);
	assert_int_equal(tdr_meta__decode(b.data, b.sz, &back), 0);
	tl_assert_meta_equal(&m, &back);
	assert_near(tdr_category__value(&back.categories[1], sums, NEV), 1.0 / 6);
	tdr_meta__clear(&back);
	tdr_buf__release(&b);

	tl_std_init(&std);
	std.codec = TDR_CODEC_COLS;
	assert_int_equal(tl_write_std_meta(tl_path(dir, "skx.tdr"), &std, &m, true), 0);
	assert_int_equal(tdr_reader__open(tl_path(dir, "skx.tdr"), &r), 0);
	assert_int_equal(tdr_reader__status(r)->minor, TDR_FORMAT_MINOR_WEIGHTED);
	assert_int_equal(TDR_FORMAT_MINOR_WEIGHTED, TDR_FORMAT_MINOR);
	tl_assert_meta_equal(&m, tdr_reader__meta(r));
	assert_near(tdr_category__value(&tdr_reader__meta(r)->categories[0], sums, NEV), 2.0 / 15);
	tdr_reader__free(r);
	tdr_meta__clear(&m);
	tl_rmdir(dir);
}

static void put_term(struct tdr_buf *b, uint32_t tag, uint32_t idx, double coef)
{
	uint8_t v[TDR_TERM_SZ];
	uint64_t bits;

	memcpy(&bits, &coef, sizeof(bits));
	tdr_put_le32(v, idx);
	tdr_put_le32(v + 4, 0);
	tdr_put_le64(v + 8, bits);
	tdr_buf__tlv(b, tag, v, sizeof(v));
}

/* Shapes of a category over events a, b (deltas 10 and 4): one factor
 * num {b} / (den {a} + wden {b weighted by b/a}) = 4 / (10 + 4 * 0.4). */
enum shape {
	GOOD,
	IN_PART,      /* the WDEN inside a PART, not a WPART */
	MIXED,	      /* a PART beside the WPART */
	NESTED,	      /* the weight holds a WNUM of its own */
	NO_TERM,      /* the WDEN item without its TERM */
	TWO_TERMS,    /* two TERMs in one WDEN */
	NO_WEIGHT_DEN, /* the weight without a DEN */
	BAD_INDEX,    /* the weight names event 2 */
	SKIP_WPART,   /* what a reader of 1.4 keeps: no WPART at all */
};

static int decode_shape(enum shape s, size_t cut)
{
	struct perf_event_attr a = {.size = sizeof(a)};
	struct tdr_buf b = {0};
	struct tdr_meta m;
	size_t pos, ppos, fpos, wpos;
	int err;

	for (int e = 0; e < 2; e++) {
		pos = tdr_buf__tlv_begin(&b, TDR_MT_EVENT);
		tdr_buf__tlv_str(&b, TDR_ET_NAME, e ? "b" : "a");
		tdr_buf__tlv(&b, TDR_ET_ATTR, &a, sizeof(a));
		tdr_buf__tlv_end(&b, pos);
	}
	pos = tdr_buf__tlv_begin(&b, TDR_MT_CATEGORY);
	tdr_buf__tlv_str(&b, TDR_CT_NAME, "mem-bound");
	if (s == MIXED) {
		ppos = tdr_buf__tlv_begin(&b, TDR_CT_PART);
		fpos = tdr_buf__tlv_begin(&b, TDR_PT_FACTOR);
		put_term(&b, TDR_CT_DEN, 0, 1.0);
		tdr_buf__tlv_end(&b, fpos);
		tdr_buf__tlv_end(&b, ppos);
	}
	if (s != SKIP_WPART) {
		ppos = tdr_buf__tlv_begin(&b, s == IN_PART ? TDR_CT_PART : TDR_CT_WPART);
		fpos = tdr_buf__tlv_begin(&b, TDR_PT_FACTOR);
		put_term(&b, TDR_CT_NUM, 1, 1.0);
		put_term(&b, TDR_CT_DEN, 0, 1.0);
		wpos = tdr_buf__tlv_begin(&b, TDR_FT_WDEN);
		if (s != NO_TERM)
			put_term(&b, TDR_WT_TERM, 1, 1.0);
		if (s == TWO_TERMS)
			put_term(&b, TDR_WT_TERM, 0, 1.0);
		put_term(&b, TDR_CT_NUM, s == BAD_INDEX ? 2 : 1, 1.0);
		if (s != NO_WEIGHT_DEN)
			put_term(&b, TDR_CT_DEN, 0, 1.0);
		if (s == NESTED) {
			size_t npos = tdr_buf__tlv_begin(&b, TDR_FT_WNUM);

			put_term(&b, TDR_WT_TERM, 1, 1.0);
			put_term(&b, TDR_CT_DEN, 0, 1.0);
			tdr_buf__tlv_end(&b, npos);
		}
		tdr_buf__tlv(&b, 99, "x", 1); /* unknown tags are skipped */
		tdr_buf__tlv_end(&b, wpos);
		tdr_buf__tlv_end(&b, fpos);
		tdr_buf__tlv_end(&b, ppos);
	}
	tdr_buf__tlv_end(&b, pos);
	assert_int_equal(b.err, 0);
	err = tdr_meta__decode(b.data, cut ? b.sz - cut : b.sz, &m);
	if (!err) {
		const uint64_t d[] = {10, 4};
		double v = tdr_category__value(&m.categories[0], d, 2);

		if (s == SKIP_WPART) /* no terms, no parts: no value */
			assert_true(isnan(v) && !m.categories[0].part_cnt);
		else
			assert_near(v, 4.0 / (10 + 4 * 0.4));
		tdr_meta__clear(&m);
	}
	tdr_buf__release(&b);
	return err;
}

static void test_weighted__damaged_items(void **state)
{
	(void)state;
	tl_quiet();
	assert_int_equal(decode_shape(GOOD, 0), 0);
	assert_int_equal(decode_shape(SKIP_WPART, 0), 0);
	assert_int_equal(decode_shape(IN_PART, 0), -TDR_E_CORRUPT);
	assert_int_equal(decode_shape(MIXED, 0), -TDR_E_CORRUPT);
	assert_int_equal(decode_shape(NESTED, 0), -TDR_E_CORRUPT);
	assert_int_equal(decode_shape(NO_TERM, 0), -TDR_E_CORRUPT);
	assert_int_equal(decode_shape(TWO_TERMS, 0), -TDR_E_CORRUPT);
	assert_int_equal(decode_shape(NO_WEIGHT_DEN, 0), -TDR_E_CORRUPT);
	assert_int_equal(decode_shape(BAD_INDEX, 0), -TDR_E_CORRUPT);
	/* Cut anywhere inside the category's WPART: never read. */
	for (size_t cut = 1; cut < 100; cut++)
		assert_int_not_equal(decode_shape(GOOD, cut), 0);
	tl_loud();
}

/* "test_weighted FILE": the file for the independent reader. */
static int write_file(const char *path)
{
	struct tdr_meta m;
	struct tl_std std;
	int err;

	tl_std_init(&std);
	std.codec = TDR_CODEC_COLS;
	skx_meta(&m);
	err = tl_write_std_meta(path, &std, &m, true);
	tdr_meta__clear(&m);
	return err ? 1 : 0;
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_weighted__by_hand),
		cmocka_unit_test(test_weighted__round_trip_and_minor),
		cmocka_unit_test(test_weighted__damaged_items),
	};

	if (argc == 2)
		return write_file(argv[1]);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
