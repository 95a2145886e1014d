/*
 * tests/format/test_meta.c - struct tdr_meta helpers and record walking.
 *
 * Covers tdr_meta__copy/__clear (deep copy, fault injection), event lookup,
 * the TopDown category formulas built from event names, and
 * tdr_records__next on good and damaged buffers.
 */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "format_int.h" /* tdr_meta__event_idx */
#include "tdrec/format.h"
#include "tdrec/tdr_err.h"
#include "tdrec/tdr_mem.h"

static const char *const l2_events[] = {
	"slots",	     "cycles",		  "topdown-retiring",	   "topdown-bad-spec",
	"topdown-fe-bound",  "topdown-be-bound",  "topdown-heavy-ops",	   "topdown-br-mispredict",
	"topdown-fetch-lat", "topdown-mem-bound",
};

static void make_meta(struct tdr_meta *m, size_t event_cnt)
{
	memset(m, 0, sizeof(*m));
	m->events = calloc(event_cnt, sizeof(*m->events));
	assert_non_null(m->events);
	m->event_cnt = event_cnt;
	for (size_t i = 0; i < event_cnt; i++) {
		m->events[i].name = strdup(l2_events[i]);
		m->events[i].pmu_name = strdup("cpu");
		m->events[i].attr.size = sizeof(struct perf_event_attr);
		m->events[i].attr.config = 0x400 + i;
		m->events[i].attr_disk_sz = sizeof(struct perf_event_attr);
		m->events[i].id_cnt = 2;
		m->events[i].ids = calloc(2, sizeof(struct tdr_event_id));
		m->events[i].ids[0] = (struct tdr_event_id){ 0, UINT32_MAX, 100 + i };
		m->events[i].ids[1] = (struct tdr_event_id){ 1, UINT32_MAX, 200 + i };
	}
}

static const struct tdr_category *find_cat(const struct tdr_meta *m, const char *name)
{
	for (size_t i = 0; i < m->category_cnt; i++)
		if (!strcmp(m->categories[i].name, name))
			return &m->categories[i];
	return NULL;
}

static void test_meta__topdown_l2_formulas(void **state)
{
	struct tdr_meta m;
	const struct tdr_category *c;

	(void)state;
	make_meta(&m, 10);
	assert_int_equal(tdr_meta__add_topdown_categories(&m), 12);
	assert_int_equal(m.category_cnt, 12);

	c = find_cat(&m, "retiring");
	assert_non_null(c);
	assert_int_equal(c->level, 1);
	assert_null(c->parent);
	assert_int_equal(c->flags, 0);
	assert_int_equal(c->num_cnt, 1);
	assert_int_equal(c->num[0].event_idx, 2);
	assert_true(c->num[0].coef == 1.0);
	assert_int_equal(c->den_cnt, 1);
	assert_int_equal(c->den[0].event_idx, 0);

	c = find_cat(&m, "mem-bound");
	assert_non_null(c);
	assert_int_equal(c->level, 2);
	assert_string_equal(c->parent, "be-bound");
	assert_int_equal(c->flags, 0);
	assert_int_equal(c->num[0].event_idx, 9);

	c = find_cat(&m, "machine-clears");
	assert_non_null(c);
	assert_int_equal(c->level, 2);
	assert_string_equal(c->parent, "bad-spec");
	assert_int_equal(c->flags, TDR_CATEGORY_DERIVED);
	assert_int_equal(c->num_cnt, 2);
	assert_int_equal(c->num[0].event_idx, 3);
	assert_true(c->num[0].coef == 1.0);
	assert_int_equal(c->num[1].event_idx, 7);
	assert_true(c->num[1].coef == -1.0);
	assert_int_equal(c->den[0].event_idx, 0);

	/* A second call adds nothing: categories already present are kept. */
	assert_int_equal(tdr_meta__add_topdown_categories(&m), 0);
	assert_int_equal(m.category_cnt, 12);
	tdr_meta__clear(&m);
	assert_null(m.events);
	assert_int_equal(m.event_cnt, 0);
}

static void test_meta__topdown_l1_only_and_none(void **state)
{
	struct tdr_meta m;

	(void)state;
	make_meta(&m, 6);
	assert_int_equal(tdr_meta__add_topdown_categories(&m), 4);
	assert_null(find_cat(&m, "heavy-ops"));
	assert_non_null(find_cat(&m, "be-bound"));
	tdr_meta__clear(&m);

	/* slots + sampler + three metrics: not a TopDown plan. */
	make_meta(&m, 5);
	assert_int_equal(tdr_meta__add_topdown_categories(&m), 0);
	assert_int_equal(m.category_cnt, 0);
	tdr_meta__clear(&m);
}

static void test_meta__event_idx(void **state)
{
	struct tdr_meta m;

	(void)state;
	make_meta(&m, 10);
	assert_int_equal(tdr_meta__event_idx(&m, "slots"), 0);
	assert_int_equal(tdr_meta__event_idx(&m, "topdown-mem-bound"), 9);
	assert_int_equal(tdr_meta__event_idx(&m, "cpu-clock"), -1);
	tdr_meta__clear(&m);
}

static void test_meta__copy_deep_and_fault_injection(void **state)
{
	struct tdr_meta m, c;
	char *argv[] = { "tdrec", "record", "--", "./app" };
	char *notes[] = { "note one" };
	long n;
	int err;

	(void)state;
	make_meta(&m, 10);
	assert_true(tdr_meta__add_topdown_categories(&m) > 0);
	m.tdrec_version = strdup("0.1.0");
	m.hostname = strdup("host");
	m.plan_name = strdup("topdown-l2");
	m.argc = 4;
	m.argv = calloc(4, sizeof(char *));
	for (int i = 0; i < 4; i++)
		m.argv[i] = strdup(argv[i]);
	m.note_cnt = 1;
	m.notes = calloc(1, sizeof(char *));
	m.notes[0] = strdup(notes[0]);
	m.cpu_family = 6;
	m.start_wall_ns = 123456789;

	for (n = 0;; n++) {
		tdr_mem_fail_after(n);
		err = tdr_meta__copy(&c, &m);
		tdr_mem_fail_after(-1);
		if (!err)
			break;
		assert_int_equal(err, -ENOMEM);
		assert_null(c.events);
		assert_null(c.argv);
	}
	assert_true(n > 10);
	assert_string_equal(c.hostname, "host");
	assert_ptr_not_equal(c.hostname, m.hostname);
	assert_int_equal(c.argc, 4);
	assert_string_equal(c.argv[3], "./app");
	assert_string_equal(c.notes[0], "note one");
	assert_int_equal(c.event_cnt, 10);
	assert_ptr_not_equal(c.events[3].ids, m.events[3].ids);
	assert_int_equal(c.events[3].ids[1].id, 203);
	assert_int_equal(c.events[3].attr.config, 0x403);
	assert_int_equal(c.category_cnt, 12);
	assert_string_equal(c.categories[5].parent, m.categories[5].parent);
	assert_int_equal(c.cpu_family, 6);
	assert_int_equal(c.start_wall_ns, 123456789);
	tdr_meta__clear(&c);
	tdr_meta__clear(&m);
}

static void test_meta__add_categories_fault_injection(void **state)
{
	struct tdr_meta m;
	int err;

	(void)state;
	for (long n = 0;; n++) {
		make_meta(&m, 10);
		tdr_mem_fail_after(n);
		err = tdr_meta__add_topdown_categories(&m);
		tdr_mem_fail_after(-1);
		tdr_meta__clear(&m);
		if (err >= 0) {
			assert_int_equal(err, 12);
			break;
		}
		assert_int_equal(err, -ENOMEM);
	}
}

/* tdr_category__value is sum(num) / sum(den) as computed: a subtraction that
 * overshoots reads below 0, counters that do not add up read above 1, and
 * only a non-positive denominator or a bad index gives NAN. */
static void test_category__value_unclamped(void **state)
{
	struct tdr_term num[2] = {{.event_idx = 1, .coef = 1.0}, {.event_idx = 2, .coef = -1.0}};
	struct tdr_term den[1] = {{.event_idx = 0, .coef = 6.0}};
	struct tdr_category c = {.num_cnt = 2, .num = num, .den_cnt = 1, .den = den};
	const uint64_t in_range[3] = {100, 450, 150};  /* (450 - 150) / 600 = 0.5 */
	const uint64_t negative[3] = {100, 150, 180};  /* (150 - 180) / 600 = -0.05 */
	const uint64_t above[3] = {100, 900, 60};      /* (900 - 60) / 600 = 1.4 */
	const uint64_t no_slots[3] = {0, 900, 60};
	double v;

	(void)state;
	assert_true(fabs(tdr_category__value(&c, in_range, 3) - 0.5) < 1e-12);
	v = tdr_category__value(&c, negative, 3);
	assert_true(fabs(v - -0.05) < 1e-12);
	assert_true(tdr_category_out_of_range(v));
	v = tdr_category__value(&c, above, 3);
	assert_true(fabs(v - 1.4) < 1e-12);
	assert_true(tdr_category_out_of_range(v));
	assert_false(tdr_category_out_of_range(0.0));
	assert_false(tdr_category_out_of_range(1.0));
	assert_false(tdr_category_out_of_range(NAN));
	assert_true(isnan(tdr_category__value(&c, no_slots, 3)));
	assert_true(isnan(tdr_category__value(&c, in_range, 2))); /* event 2 past the end */
}

static void test_records__walk(void **state)
{
	uint64_t buf[8] = { 0 };
	struct perf_event_header *h = (struct perf_event_header *)buf;
	struct tdr_record_iter it = { .data = (const uint8_t *)buf, .sz = 40 };
	const struct perf_event_header *got;

	(void)state;
	h[0] = (struct perf_event_header){ .type = PERF_RECORD_SAMPLE, .size = 16 };
	h = (struct perf_event_header *)&buf[2];
	*h = (struct perf_event_header){ .type = PERF_RECORD_LOST, .size = 24 };
	assert_int_equal(tdr_records__next(&it, &got), 1);
	assert_int_equal(got->type, PERF_RECORD_SAMPLE);
	assert_int_equal(tdr_records__next(&it, &got), 1);
	assert_int_equal(got->type, PERF_RECORD_LOST);
	assert_int_equal(tdr_records__next(&it, &got), 0);

	/* The last record overruns the buffer by 8 bytes. */
	it = (struct tdr_record_iter){ .data = (const uint8_t *)buf, .sz = 32 };
	assert_int_equal(tdr_records__next(&it, &got), 1);
	assert_int_equal(tdr_records__next(&it, &got), -TDR_E_CORRUPT);

	/* A header shorter than 8 bytes, and a size < 8. */
	it = (struct tdr_record_iter){ .data = (const uint8_t *)buf, .sz = 20 };
	assert_int_equal(tdr_records__next(&it, &got), 1);
	assert_int_equal(tdr_records__next(&it, &got), -TDR_E_CORRUPT);
	h->size = 4;
	it = (struct tdr_record_iter){ .data = (const uint8_t *)buf, .sz = 40 };
	assert_int_equal(tdr_records__next(&it, &got), 1);
	assert_int_equal(tdr_records__next(&it, &got), -TDR_E_CORRUPT);

	/* A size that is not a multiple of 8 (the kernel pads every record). */
	h->size = 20;
	it = (struct tdr_record_iter){ .data = (const uint8_t *)buf, .sz = 40 };
	assert_int_equal(tdr_records__next(&it, &got), 1);
	assert_int_equal(tdr_records__next(&it, &got), -TDR_E_CORRUPT);

	/* An unaligned buffer is walked without unaligned reads (UBSan). */
	{
		uint8_t odd[1 + 32];
		struct perf_event_header x = { .type = PERF_RECORD_COMM, .size = 16 };

		memset(odd, 0, sizeof(odd));
		memcpy(odd + 1, &x, sizeof(x));
		memcpy(odd + 17, &x, sizeof(x));
		it = (struct tdr_record_iter){ .data = odd + 1, .sz = 32 };
		assert_int_equal(tdr_records__next(&it, &got), 1);
		assert_ptr_equal(got, odd + 1);
		assert_int_equal(tdr_records__next(&it, &got), 1);
		assert_ptr_equal(got, odd + 17);
		assert_int_equal(tdr_records__next(&it, &got), 0);
	}

	/* An empty buffer has no records. */
	it = (struct tdr_record_iter){ .data = NULL, .sz = 0 };
	assert_int_equal(tdr_records__next(&it, &got), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_meta__topdown_l2_formulas),
		cmocka_unit_test(test_meta__topdown_l1_only_and_none),
		cmocka_unit_test(test_meta__event_idx),
		cmocka_unit_test(test_meta__copy_deep_and_fault_injection),
		cmocka_unit_test(test_meta__add_categories_fault_injection),
		cmocka_unit_test(test_records__walk),
		cmocka_unit_test(test_category__value_unclamped),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
