/*
 * tests/format/test_products.c - the product form of a TopDown category
 * (docs/format.md section 5.2, since 1.3).
 *
 * What is checked: the Arm Neoverse V2 and AMD Zen 4 level-2 formulas of
 * the TopDown table, stored as a file stores them, evaluated on summed
 * deltas against values computed by hand (exact to 1e-9), including values
 * outside 0-100% (kept, not clamped) and a factor with no denominator; a
 * ratio of sums is not the average of per-sample ratios; scaling one
 * counting group's deltas (multiplexing) leaves every AMD level-2 value
 * unchanged; the items round-trip through the metadata codec and a file;
 * a file with only linear categories keeps its minor, one with a product
 * category says 3; damaged or truncated PART and FACTOR items are refused.
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
#include "tdrec/topdown.h"

#define assert_near(a, b) assert_true(fabs((a) - (b)) < 1e-9)

/* A meta with family f's events (names only) and its stored categories. */
static void meta_of(struct tdr_meta *m, const char *family)
{
	const struct tdr_td_family *f = tdr_topdown_family(family);
	size_t cnt = tdr_td_family__event_cnt(f, true);

	assert_non_null(f);
	memset(m, 0, sizeof(*m));
	m->events = calloc(cnt, sizeof(*m->events));
	assert_non_null(m->events);
	for (size_t i = 0; i < cnt; i++) {
		m->events[i].name = strdup(tdr_td_family__event(f, true, i)->name);
		m->events[i].attr_disk_sz = sizeof(m->events[i].attr);
		m->event_cnt++;
	}
	assert_int_equal(tdr_meta__add_family_categories(m, f, 0),
			 (int)tdr_td_family__formula_cnt(f));
}

static double value_of(const struct tdr_meta *m, const char *name, const uint64_t *d)
{
	for (size_t i = 0; i < m->category_cnt; i++)
		if (!strcmp(m->categories[i].name, name))
			return tdr_category__value(&m->categories[i], d, m->event_cnt);
	fail_msg("no category %s", name);
	return NAN;
}

/* Neoverse V2, W = 8. Events: cpu_cycles, stall_slot_frontend,
 * stall_slot_backend, stall_slot, op_retired, op_spec, br_mis_pred. */
static void test_products__arm_v2_by_hand(void **state)
{
	/* A function's summed deltas: two samples of it. */
	const uint64_t s1[] = {400, 400, 1200, 1600, 500, 600, 4};
	const uint64_t s2[] = {600, 1600, 1200, 3200, 100, 200, 6};
	uint64_t sum[7];
	/* Another function: the corrections outweigh the slots. */
	const uint64_t odd[] = {100, 200, 700, 800, 50, 100, 30};
	struct tdr_meta m;

	(void)state;
	meta_of(&m, "neoverse-v2");
	assert_int_equal(m.category_cnt, 4);
	for (size_t i = 0; i < 7; i++)
		sum[i] = s1[i] + s2[i]; /* 1000 2000 2400 4800 600 800 10 */
	/* retiring = 600/800 * (8000 - 4800)/8000 = 0.75 * 0.4 */
	assert_near(value_of(&m, "retiring", sum), 0.3);
	/* bad-spec = (1 - 0.75) * 0.4 + 4 * 10/1000 */
	assert_near(value_of(&m, "bad-spec", sum), 0.14);
	/* fe = 2000/8000 - 10/1000; be = 2400/8000 - 3 * 10/1000 */
	assert_near(value_of(&m, "fe-bound", sum), 0.24);
	assert_near(value_of(&m, "be-bound", sum), 0.27);
	/* Not the average of the per-sample values: retiring of s1 is
	 * 500/600 * 1600/3200 = 0.41667, of s2 0.5 * 1600/4800 = 0.16667. */
	assert_near(value_of(&m, "retiring", s1), 500.0 / 600 * 0.5);
	assert_near(value_of(&m, "retiring", s2), 0.5 * 1600.0 / 4800);
	assert_true(fabs(value_of(&m, "retiring", sum) -
			 (value_of(&m, "retiring", s1) + value_of(&m, "retiring", s2)) / 2) > 0.008);
	/* Outside 0-100%, as computed: retiring 0.5 * 0/800 = 0; bad-spec
	 * 0 + 4 * 30/100 = 1.2; fe = (200 - 240)/800; be = (700 - 720)/800. */
	assert_near(value_of(&m, "retiring", odd), 0.0);
	assert_near(value_of(&m, "bad-spec", odd), 1.2);
	assert_near(value_of(&m, "fe-bound", odd), -0.05);
	assert_near(value_of(&m, "be-bound", odd), -0.025);
	assert_true(tdr_category_out_of_range(value_of(&m, "bad-spec", odd)));
	assert_true(tdr_category_out_of_range(value_of(&m, "fe-bound", odd)));
	/* No op_spec: the retiring ratio has no denominator, no value. */
	{
		uint64_t z[7];

		memcpy(z, sum, sizeof(z));
		z[5] = 0;
		assert_true(isnan(value_of(&m, "retiring", z)));
		assert_near(value_of(&m, "fe-bound", z), 0.24);
	}
	tdr_meta__clear(&m);
}

/* Zen 4 level 2, W = 6. Group 0: cycles, no_ops_from_frontend,
 * backend_stalls, smt_contention, de_src_op_disp.all, ex_ret_ops; group 1:
 * ls_not_halted_cyc, no_ops_from_frontend cmask 6, ex_ret_ucode_ops; group
 * 2: not_complete, load_not_complete, ex_ret_brn_misp,
 * resyncs_or_nc_redirects. */
static void test_products__amd_zen4_l2_by_hand(void **state)
{
	uint64_t d[] = {1000, 1200, 1800, 600, 2500, 2100, /* slots 6000 */
			900,  120,  270,		     /* 5400 slots in group 1 */
			800,  600,  30,	  10};
	struct tdr_meta m;

	(void)state;
	meta_of(&m, "amd-zen4-l2");
	assert_int_equal(m.event_cnt, 13);
	assert_int_equal(m.category_cnt, 13);
	/* Level 1 of 6000 slots: retiring 2100, bad 400, fe 1200, be 1800. */
	assert_near(value_of(&m, "retiring", d), 0.35);
	assert_near(value_of(&m, "bad-spec", d), 400.0 / 6000);
	/* fetch-lat = 6 * 120 / (6 * 900); fetch-bw = 0.2 - that */
	assert_near(value_of(&m, "fetch-lat", d), 120.0 / 900);
	assert_near(value_of(&m, "fetch-bw", d), 0.2 - 120.0 / 900);
	/* mem = 0.3 * 600/800 = 0.225, core = 0.3 * 200/800 = 0.075 */
	assert_near(value_of(&m, "mem-bound", d), 0.225);
	assert_near(value_of(&m, "core-bound", d), 0.075);
	/* mispredicts = 400/6000 * 30/40 = 0.05, restarts 400/6000 * 10/40 */
	assert_near(value_of(&m, "br-mispredict", d), 0.05);
	assert_near(value_of(&m, "machine-clears", d), 400.0 / 6000 / 4);
	/* microcode = 270 / 5400; fast path = 0.35 - 0.05 */
	assert_near(value_of(&m, "heavy-ops", d), 0.05);
	assert_near(value_of(&m, "light-ops", d), 0.3);
	/* Multiplexing: group 2 counted half the time (every count of it
	 * halved): each of its ratios is unchanged. */
	{
		uint64_t x[13];

		memcpy(x, d, sizeof(x));
		for (size_t i = 9; i < 13; i++)
			x[i] = d[i] / 2;
		for (size_t i = 0; i < m.category_cnt; i++)
			assert_near(tdr_category__value(&m.categories[i], x, m.event_cnt),
				    tdr_category__value(&m.categories[i], d, m.event_cnt));
	}
	/* More microcode than retired ops (skid): light-ops below 0, kept. */
	d[8] = 2700; /* heavy 0.5 */
	assert_near(value_of(&m, "light-ops", d), -0.15);
	tdr_meta__clear(&m);
}

/* The items round-trip through the codec, and a file of linear categories
 * keeps its minor while a product category makes it 3. */
static void test_products__round_trip_and_minor(void **state)
{
	struct tdr_meta arm, back, lin;
	struct tdr_buf b = {0};
	struct tl_std std;
	struct tdr_reader *r = NULL;
	char *dir = tl_mkdtemp();

	(void)state;
	meta_of(&arm, "neoverse-v2");
	tdr_meta__encode(&b, &arm);
	assert_int_equal(b.err, 0);
	assert_int_equal(tdr_meta__decode(b.data, b.sz, &back), 0);
	tl_assert_meta_equal(&arm, &back);
	assert_int_equal(back.categories[0].part_cnt, 1);
	assert_int_equal(back.categories[0].parts[0].factor_cnt, 2);
	assert_int_equal(back.categories[1].part_cnt, 2);
	tdr_meta__clear(&back);
	tdr_buf__release(&b);

	tl_std_init(&std);
	std.codec = TDR_CODEC_COLS;
	tl_make_meta(&lin);
	assert_int_equal(tl_write_std_meta(tl_path(dir, "lin.tdr"), &std, &lin, true), 0);
	assert_int_equal(tdr_reader__open(tl_path(dir, "lin.tdr"), &r), 0);
	assert_int_equal(tdr_reader__status(r)->minor, 2);
	tdr_reader__free(r);
	/* The same file with Arm's categories in place of the linear ones. */
	for (size_t i = 0; i < lin.category_cnt; i++)
		tdr_category__clear(&lin.categories[i]);
	lin.category_cnt = 0;
	for (size_t i = 0; i < arm.event_cnt && i < lin.event_cnt; i++) {
		free(lin.events[i].name);
		lin.events[i].name = strdup(arm.events[i].name);
	}
	assert_int_equal(tdr_meta__add_family_categories(&lin, tdr_topdown_family("neoverse-v2"), 0),
			 4);
	assert_int_equal(tl_write_std_meta(tl_path(dir, "arm.tdr"), &std, &lin, true), 0);
	assert_int_equal(tdr_reader__open(tl_path(dir, "arm.tdr"), &r), 0);
	assert_int_equal(tdr_reader__status(r)->minor, TDR_FORMAT_MINOR_PRODUCTS);
	tl_assert_meta_equal(&lin, tdr_reader__meta(r));
	tdr_reader__free(r);
	tdr_meta__clear(&lin);
	tdr_meta__clear(&arm);
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

/* A two-event metadata payload with one category built by shape:
 * parts[p] factors, each with a DEN unless no_den, naming event idx. */
static int decode_shape(size_t parts, size_t factors, bool no_den, bool with_terms,
			uint32_t idx, size_t cut)
{
	struct perf_event_attr a = {.size = sizeof(a)};
	struct tdr_buf b = {0};
	struct tdr_meta m;
	size_t pos;
	int err;

	for (int e = 0; e < 2; e++) {
		pos = tdr_buf__tlv_begin(&b, TDR_MT_EVENT);
		tdr_buf__tlv_str(&b, TDR_ET_NAME, e ? "b" : "a");
		tdr_buf__tlv(&b, TDR_ET_ATTR, &a, sizeof(a));
		tdr_buf__tlv_end(&b, pos);
	}
	pos = tdr_buf__tlv_begin(&b, TDR_MT_CATEGORY);
	tdr_buf__tlv_str(&b, TDR_CT_NAME, "retiring");
	if (with_terms)
		put_term(&b, TDR_CT_DEN, 0, 1.0);
	for (size_t p = 0; p < parts; p++) {
		size_t ppos = tdr_buf__tlv_begin(&b, TDR_CT_PART);

		for (size_t f = 0; f < factors; f++) {
			size_t fpos = tdr_buf__tlv_begin(&b, TDR_PT_FACTOR);

			put_term(&b, TDR_CT_NUM, idx, 1.0);
			if (!no_den)
				put_term(&b, TDR_CT_DEN, 0, 2.0);
			tdr_buf__tlv_end(&b, fpos);
		}
		tdr_buf__tlv(&b, 99, "x", 1); /* unknown tags inside a PART are skipped */
		tdr_buf__tlv_end(&b, ppos);
	}
	tdr_buf__tlv_end(&b, pos);
	assert_int_equal(b.err, 0);
	err = tdr_meta__decode(b.data, cut ? b.sz - cut : b.sz, &m);
	if (!err) {
		const uint64_t d[] = {10, 4};

		/* (4 / 20)^factors per part. */
		assert_near(tdr_category__value(&m.categories[0], d, 2),
			    (double)parts * pow(0.2, (double)factors));
		tdr_meta__clear(&m);
	}
	tdr_buf__release(&b);
	return err;
}

static void test_products__damaged_items(void **state)
{
	(void)state;
	tl_quiet();
	assert_int_equal(decode_shape(2, 3, false, false, 1, 0), 0);
	assert_int_equal(decode_shape(16, 1, false, false, 1, 0), 0);
	assert_int_equal(decode_shape(17, 1, false, false, 1, 0), -TDR_E_LIMIT);
	assert_int_equal(decode_shape(1, 4, false, false, 1, 0), -TDR_E_LIMIT);
	assert_int_equal(decode_shape(1, 0, false, false, 1, 0), -TDR_E_CORRUPT);
	assert_int_equal(decode_shape(1, 2, true, false, 1, 0), -TDR_E_CORRUPT);
	assert_int_equal(decode_shape(1, 1, false, true, 1, 0), -TDR_E_CORRUPT);
	assert_int_equal(decode_shape(1, 2, false, false, 2, 0), -TDR_E_CORRUPT);
	/* Cut anywhere inside the category's last PART: never read. */
	for (size_t cut = 1; cut < 80; cut++)
		assert_int_not_equal(decode_shape(1, 2, false, false, 1, cut), 0);
	tl_loud();
}

/* "test_products FILE": write a Neoverse V2 file for the independent
 * reader (tests/format/independent_reader.py, option arm-v2). */
static int write_arm_file(const char *path)
{
	struct tdr_meta m;
	struct tl_std std;
	int err;

	tl_std_init(&std);
	std.codec = TDR_CODEC_COLS;
	tl_make_meta(&m);
	for (size_t i = 0; i < m.category_cnt; i++)
		tdr_category__clear(&m.categories[i]);
	m.category_cnt = 0;
	for (size_t i = 0; i < m.event_cnt; i++) {
		const struct tdr_td_event *e =
		    tdr_td_family__event(tdr_topdown_family("neoverse-v2"), false, i);

		free(m.events[i].name);
		m.events[i].name = strdup(e ? e->name : "other");
	}
	err = tdr_meta__add_family_categories(&m, tdr_topdown_family("neoverse-v2"), 0) == 4
		  ? tl_write_std_meta(path, &std, &m, true)
		  : -1;
	tdr_meta__clear(&m);
	return err ? 1 : 0;
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_products__arm_v2_by_hand),
		cmocka_unit_test(test_products__amd_zen4_l2_by_hand),
		cmocka_unit_test(test_products__round_trip_and_minor),
		cmocka_unit_test(test_products__damaged_items),
	};

	if (argc == 2)
		return write_arm_file(argv[1]);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
