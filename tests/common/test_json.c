/*
 * tests/common/test_json.c - the JSON writer's layout and number format,
 * the CSV row writer and the paragraph wrapper (tdr_json.h, tdr_textout.h).
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "tdrec/tdr_json.h"
#include "tdrec/tdr_textout.h"

struct out {
	char *buf;
	size_t len;
	FILE *f;
};

static void out_open(struct out *o)
{
	o->buf = NULL;
	o->len = 0;
	o->f = open_memstream(&o->buf, &o->len);
	assert_non_null(o->f);
}

/* Close the stream and compare what was written. */
static void out_expect(struct out *o, const char *want)
{
	assert_int_equal(fclose(o->f), 0);
	assert_string_equal(o->buf, want);
	free(o->buf);
}

static void test_json__layout_lines_and_inline(void **state)
{
	struct tdr_json j;
	struct out o;

	(void)state;
	out_open(&o);
	tdr_json__init(&j, o.f);
	tdr_json__begin_object(&j, TDR_JSON_LINES);
	tdr_json__key_string(&j, "schema", "x/1");
	tdr_json__key(&j, "names");
	tdr_json__begin_array(&j, TDR_JSON_INLINE);
	tdr_json__string(&j, "a");
	tdr_json__string(&j, NULL);
	tdr_json__end_array(&j);
	tdr_json__key(&j, "rows");
	tdr_json__begin_array(&j, TDR_JSON_LINES);
	for (int i = 0; i < 2; i++) {
		tdr_json__begin_object(&j, TDR_JSON_INLINE);
		tdr_json__key_int(&j, "i", -i);
		tdr_json__key(&j, "sub");
		/* Inline all the same: inside an inline row. */
		tdr_json__begin_object(&j, TDR_JSON_LINES);
		tdr_json__key_bool(&j, "b", i);
		tdr_json__key_null(&j, "n");
		tdr_json__end_object(&j);
		tdr_json__end_object(&j);
	}
	tdr_json__end_array(&j);
	tdr_json__key(&j, "empty");
	tdr_json__begin_array(&j, TDR_JSON_LINES);
	tdr_json__end_array(&j);
	tdr_json__key(&j, "e2");
	tdr_json__begin_object(&j, TDR_JSON_INLINE);
	tdr_json__end_object(&j);
	tdr_json__key_uint(&j, "big", UINT64_MAX);
	tdr_json__end_object(&j);
	out_expect(&o, "{\n"
		       "  \"schema\": \"x/1\",\n"
		       "  \"names\": [\"a\", null],\n"
		       "  \"rows\": [\n"
		       "    {\"i\": 0, \"sub\": {\"b\": false, \"n\": null}},\n"
		       "    {\"i\": -1, \"sub\": {\"b\": true, \"n\": null}}\n"
		       "  ],\n"
		       "  \"empty\": [],\n"
		       "  \"e2\": {},\n"
		       "  \"big\": 18446744073709551615\n"
		       "}\n");
}

static void test_json__inline_document_and_escaped_key(void **state)
{
	struct tdr_json j;
	struct out o;

	(void)state;
	out_open(&o);
	tdr_json__init(&j, o.f);
	tdr_json__begin_object(&j, TDR_JSON_INLINE);
	tdr_json__key_string(&j, "error", "bad \"x\"\n");
	tdr_json__key_double(&j, "k\t", 0.5);
	tdr_json__end_object(&j);
	out_expect(&o, "{\"error\": \"bad \\\"x\\\"\\n\", \"k\\t\": 0.5}\n");
}

static void test_json__number_format(void **state)
{
	static const struct {
		double v;
		const char *want;
	} cases[] = {
	    {0, "0"},
	    {-0.0, "0"},
	    {1000, "1000"},
	    {-7, "-7"},
	    {0.1, "0.1"},
	    {0.25, "0.25"},
	    {1.0 / 3, "0.3333333333333333"},
	    {0.1 + 0.2, "0.30000000000000004"},
	    {32e12, "32000000000000"},
	    {2251799813685248.5, "2251799813685248.5"},
	    {9007199254740992.0, "9007199254740992"},
	    {1e300, "1e+300"},
	    {123456789012345678.0, "1.2345678901234568e+17"},
	    {2.5e-7, "2.5e-07"},
	    {NAN, "null"},
	    {INFINITY, "null"},
	    {-INFINITY, "null"},
	};
	char buf[40];

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		tdr_json_format_double(cases[i].v, buf, sizeof(buf));
		if (strcmp(buf, cases[i].want))
			print_error("case %zu: got %s\n", i, buf);
		assert_string_equal(buf, cases[i].want);
		/* Every finite value reads back exactly. */
		if (isfinite(cases[i].v))
			assert_true(strtod(buf, NULL) == cases[i].v);
	}
}

static void test_json__numbers_round_trip(void **state)
{
	char buf[40];
	uint64_t x = 88172645463325252ull;

	(void)state;
	/* xorshift64: many doubles of every magnitude and sign. */
	for (int i = 0; i < 100000; i++) {
		double v;

		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		memcpy(&v, &x, sizeof(v));
		tdr_json_format_double(v, buf, sizeof(buf));
		if (isfinite(v))
			assert_true(strtod(buf, NULL) == v);
		else
			assert_string_equal(buf, "null");
	}
}

static void test_csv__row_joins_and_quotes(void **state)
{
	struct tdr_csv c;
	struct out o;

	(void)state;
	out_open(&o);
	tdr_csv__init(&c, o.f);
	tdr_csv__field(&c, "kind");
	tdr_csv__field(&c, NULL);
	tdr_csv__field(&c, "a,b");
	tdr_csv__fieldf(&c, "%.4f", 0.3);
	tdr_csv__fieldf(&c, "%s", "say \"hi\"");
	tdr_csv__end_row(&c);
	tdr_csv__field(&c, "");
	tdr_csv__field(&c, "");
	tdr_csv__end_row(&c);
	tdr_csv__end_row(&c);
	out_expect(&o, "kind,,\"a,b\",0.3000,\"say \"\"hi\"\"\"\n,\n\n");
}

static void test_text__cols_count_code_points(void **state)
{
	(void)state;
	assert_int_equal(tdr_text_cols(""), 0);
	assert_int_equal(tdr_text_cols("abc"), 3);
	assert_int_equal(tdr_text_cols("caf\xc3\xa9"), 4);
	assert_int_equal(tdr_text_bytes_for_cols("caf\xc3\xa9s", 4), 5);
	assert_int_equal(tdr_text_bytes_for_cols("ab", 5), 2);
}

static void test_wrap__breaks_at_spaces_and_indents(void **state)
{
	struct out o;

	(void)state;
	out_open(&o);
	/* width 20: "warning: " leaves 11 columns, later lines 2 + 18. */
	tdr_text_wrap(o.f, &(struct tdr_wrap){.width = 20, .prefix = "warning: ", .indent = 2},
		      "one two three four five six seven eight");
	out_expect(&o, "warning: one two\n"
		       "  three four five\n"
		       "  six seven eight\n");

	out_open(&o);
	/* A word longer than the room is cut; the room is at least 10. */
	tdr_text_wrap(o.f, &(struct tdr_wrap){.width = 12, .prefix = "ab ", .indent = 3},
		      "0123456789abcdef x");
	out_expect(&o, "ab 0123456789\n   abcdef x\n");

	out_open(&o);
	/* Colour around each line's text; control characters as '?'. */
	tdr_text_wrap(o.f,
		      &(struct tdr_wrap){.width = 20, .prefix = "n: ", .indent = 3, .on = "<",
					 .off = ">"},
		      "tab\there and more words");
	out_expect(&o, "n: <tab?here and more>\n   <words>\n");

	out_open(&o);
	tdr_text_wrap(o.f, &(struct tdr_wrap){.width = 20, .prefix = "x: "}, "");
	out_expect(&o, "");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_json__layout_lines_and_inline),
	    cmocka_unit_test(test_json__inline_document_and_escaped_key),
	    cmocka_unit_test(test_json__number_format),
	    cmocka_unit_test(test_json__numbers_round_trip),
	    cmocka_unit_test(test_csv__row_joins_and_quotes),
	    cmocka_unit_test(test_text__cols_count_code_points),
	    cmocka_unit_test(test_wrap__breaks_at_spaces_and_indents),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
