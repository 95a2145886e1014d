/*
 * tests/libtdrec/test_regions_fmt.c - the REGIONS section codec
 * (format/regions_fmt.c): the layout of docs/format.md section 7.3 byte by
 * byte, a round trip, names the encoder refuses, and damaged data the
 * iterator must stop at or skip.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "tdrec/regions_fmt.h"
#include "tdrec/tdr_endian.h"
#include "tdrec/tdr_err.h"

#define S(x) {(x), sizeof(x) - 1}

static void fill(struct tdr_regions_hdr *h, struct tdr_regions_entry *e)
{
	memset(h, 0, sizeof(*h));
	h->method = TDR_REGIONS_READ;
	h->pid = 4242;
	h->event_cnt = 2;
	h->resets = 3;
	h->errors = 1;
	h->family = (struct tdr_regions_str)S("software");
	h->events[0] = (struct tdr_regions_str)S("task-clock");
	h->events[1] = (struct tdr_regions_str)S("page-faults");
	memset(e, 0, 2 * sizeof(*e));
	e[0].name = (struct tdr_regions_str)S("parse");
	e[0].tid = 7;
	e[0].count = 10;
	e[0].deltas[0] = 123456789;
	e[0].deltas[1] = 5;
	e[1].name = (struct tdr_regions_str)S("a-much-longer-region-name");
	e[1].tid = 8;
	e[1].count = 1;
	e[1].deltas[0] = UINT64_MAX;
}

static void test_layout_and_roundtrip(void **state)
{
	struct tdr_regions_hdr h, g;
	struct tdr_regions_entry e[2], x;
	struct tdr_regions_iter it;
	uint8_t *b;
	void *buf;
	size_t sz;

	(void)state;
	fill(&h, e);
	assert_int_equal(tdr_regions_fmt__encode(&h, e, 2, &buf, &sz), 0);
	b = buf;
	/* Header: 40 fixed bytes, then "software" (2 + 8), "task-clock"
	 * (2 + 10), "page-faults" (2 + 11) = 75, padded to 80. */
	assert_int_equal(tdr_get_le32(b), 1);
	assert_int_equal(tdr_get_le32(b + 4), TDR_REGIONS_READ);
	assert_int_equal(tdr_get_le32(b + 8), 2);
	assert_int_equal(tdr_get_le32(b + 12), 2);
	assert_int_equal(tdr_get_le32(b + 20), 4242);
	assert_int_equal(tdr_get_le64(b + 24), 3);
	assert_int_equal(tdr_get_le64(b + 32), 1);
	assert_int_equal(tdr_get_le16(b + 40), 8);
	assert_memory_equal(b + 42, "software", 8);
	/* Entry 0 at 80: 24 + 16 + 5 = 45 -> 48 bytes. */
	assert_int_equal(tdr_get_le32(b + 80), 48);
	assert_int_equal(tdr_get_le32(b + 84), 7);
	assert_int_equal(tdr_get_le64(b + 88), 10);
	assert_int_equal(tdr_get_le16(b + 96), 5);
	assert_int_equal(tdr_get_le64(b + 104), 123456789);
	assert_memory_equal(b + 120, "parse", 5);
	/* Entry 1 at 128: 24 + 16 + 25 = 65 -> 72. */
	assert_int_equal(tdr_get_le32(b + 128), 72);
	assert_int_equal(sz, 200);

	assert_int_equal(tdr_regions_iter__init(&it, buf, sz, &g), 0);
	assert_int_equal(g.event_cnt, 2);
	assert_int_equal(g.region_cnt, 2);
	assert_int_equal(g.resets, 3);
	assert_int_equal(g.family.len, 8);
	assert_memory_equal(g.events[1].s, "page-faults", 11);
	assert_int_equal(tdr_regions_iter__next(&it, &x), 1);
	assert_int_equal(x.count, 10);
	assert_int_equal(x.deltas[0], 123456789);
	assert_int_equal(tdr_regions_iter__next(&it, &x), 1);
	assert_int_equal(x.name.len, 25);
	assert_true(x.deltas[0] == UINT64_MAX);
	assert_int_equal(tdr_regions_iter__next(&it, &x), 0);
	free(buf);
}

static void test_encode_refuses(void **state)
{
	struct tdr_regions_hdr h;
	struct tdr_regions_entry e[2];
	char big[300];
	void *buf;
	size_t sz;

	(void)state;
	fill(&h, e);
	e[1].name.len = 0;
	assert_int_equal(tdr_regions_fmt__encode(&h, e, 2, &buf, &sz), -EINVAL);
	fill(&h, e);
	memset(big, 'x', sizeof(big));
	e[0].name.s = big;
	e[0].name.len = 256;
	assert_int_equal(tdr_regions_fmt__encode(&h, e, 2, &buf, &sz), -EINVAL);
	fill(&h, e);
	e[0].name.s = "a\0b";
	e[0].name.len = 3;
	assert_int_equal(tdr_regions_fmt__encode(&h, e, 2, &buf, &sz), -EINVAL);
	fill(&h, e);
	h.event_cnt = TDR_REGIONS_EVENTS_MAX + 1;
	assert_int_equal(tdr_regions_fmt__encode(&h, e, 2, &buf, &sz), -EINVAL);
	assert_null(buf);
}

static void test_damaged(void **state)
{
	struct tdr_regions_hdr h, g;
	struct tdr_regions_entry e[2], x;
	struct tdr_regions_iter it;
	uint8_t *b;
	void *buf;
	size_t sz;

	(void)state;
	fill(&h, e);
	assert_int_equal(tdr_regions_fmt__encode(&h, e, 2, &buf, &sz), 0);
	b = buf;
	/* Every truncation of the header is refused, none read past it. */
	for (size_t cut = 0; cut < 80; cut++)
		assert_int_not_equal(tdr_regions_iter__init(&it, b, cut, &g), 0);
	/* A later version. */
	tdr_put_le32(b, 2);
	assert_int_equal(tdr_regions_iter__init(&it, b, sz, &g), -TDR_E_VERSION);
	tdr_put_le32(b, 1);
	/* More entries than the size can hold. */
	tdr_put_le32(b + 12, 4);
	assert_int_equal(tdr_regions_iter__init(&it, b, sz, &g), -TDR_E_CORRUPT);
	tdr_put_le32(b + 12, 2);
	/* A NUL in the first name: skipped, the second still read. */
	b[121] = 0;
	assert_int_equal(tdr_regions_iter__init(&it, b, sz, &g), 0);
	assert_int_equal(tdr_regions_iter__next(&it, &x), 1);
	assert_int_equal(x.name.len, 25);
	assert_int_equal(it.skipped, 1);
	b[121] = 'a';
	/* An entry_sz that is not a multiple of 8: the walk ends there. */
	tdr_put_le32(b + 80, 47);
	assert_int_equal(tdr_regions_iter__init(&it, b, sz, &g), 0);
	assert_int_equal(tdr_regions_iter__next(&it, &x), -TDR_E_CORRUPT);
	/* An entry running past the data. */
	tdr_put_le32(b + 80, 48);
	tdr_put_le32(b + 128, 80);
	assert_int_equal(tdr_regions_iter__init(&it, b, sz, &g), 0);
	assert_int_equal(tdr_regions_iter__next(&it, &x), 1);
	assert_int_equal(tdr_regions_iter__next(&it, &x), -TDR_E_CORRUPT);
	free(buf);
}

/* The metadata a report computes with: the family's formulas by name. */
static void test_meta(void **state)
{
	struct tdr_regions_hdr h = {0};
	struct tdr_meta meta = {0};
	const char *ev[] = {"slots", "topdown-retiring", "topdown-bad-spec", "topdown-fe-bound",
			    "topdown-be-bound"};
	uint64_t d[] = {1000, 400, 100, 200, 300};

	(void)state;
	h.event_cnt = 5;
	h.family = (struct tdr_regions_str)S("topdown-l1");
	for (size_t i = 0; i < 5; i++)
		h.events[i] = (struct tdr_regions_str){ev[i], strlen(ev[i])};
	assert_int_equal(tdr_regions_fmt__meta(&h, &meta), 4);
	assert_string_equal(meta.plan_name, "topdown-l1");
	assert_string_equal(meta.categories[3].name, "be-bound");
	assert_true(tdr_category__value(&meta.categories[3], d, 5) == 0.3);
	tdr_meta__clear(&meta);
	/* An unknown family: events, no categories. */
	h.family = (struct tdr_regions_str)S("no-such-family");
	assert_int_equal(tdr_regions_fmt__meta(&h, &meta), 0);
	assert_int_equal(meta.category_cnt, 0);
	assert_int_equal(meta.event_cnt, 5);
	tdr_meta__clear(&meta);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_layout_and_roundtrip),
	    cmocka_unit_test(test_encode_refuses),
	    cmocka_unit_test(test_damaged),
	    cmocka_unit_test(test_meta),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
