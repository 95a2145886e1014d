/*
 * tests/common/test_common.c - error text, growable arrays, fault injection,
 * little-endian helpers.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "tdrec/tdr_endian.h"
#include "tdrec/tdr_err.h"
#include "tdrec/tdr_mem.h"
#include "tdrec/tdr_num.h"
#include "tdrec/tdr_textout.h"

static void test_err__both_kinds_have_text(void **state)
{
	(void)state;
	assert_string_equal(tdr_strerror(-TDR_E_VERSION),
			    "written by a newer, incompatible format version");
	assert_string_equal(tdr_strerror(-ENOENT), strerror(ENOENT));
	assert_string_equal(tdr_strerror(-TDR_E_NOTREG), "not a regular file");
	/* Every tdrec code has its own text (none forgotten in the table). */
	for (int e = TDR_E_FIRST; e < TDR_E_LAST; e++) {
		assert_non_null(tdr_strerror(-e));
		assert_null(strstr(tdr_strerror(-e), "Unknown error"));
		for (int o = TDR_E_FIRST; o < e; o++)
			assert_string_not_equal(tdr_strerror(-e), tdr_strerror(-o));
	}
}

static void test_mem__ensure_cap_grows_and_keeps_data(void **state)
{
	int *arr = NULL;
	size_t cap = 0;

	(void)state;
	for (int i = 0; i < 1000; i++) {
		assert_int_equal(tdr_ensure_cap(&arr, &cap, sizeof(*arr), (size_t)i + 1), 0);
		arr[i] = i;
	}
	assert_true(cap >= 1000);
	for (int i = 0; i < 1000; i++)
		assert_int_equal(arr[i], i);
	free(arr);
}

static void test_mem__fault_injection_fails_then_recovers(void **state)
{
	int *arr = NULL;
	size_t cap = 0;
	char *s;

	(void)state;
	tdr_mem_fail_after(0);
	assert_int_equal(tdr_ensure_cap(&arr, &cap, sizeof(*arr), 4), -ENOMEM);
	assert_null(arr);
	assert_int_equal(cap, 0);
	assert_null(tdr_strdup("x"));
	tdr_mem_fail_after(1);
	s = tdr_strdup("abc");
	assert_string_equal(s, "abc");
	assert_null(tdr_malloc(1));
	tdr_mem_fail_after(-1);
	free(s);
}

static void test_mem__ensure_cap_overflow(void **state)
{
	uint64_t *arr = NULL;
	size_t cap = 0;

	(void)state;
	assert_int_equal(tdr_ensure_cap(&arr, &cap, sizeof(*arr), SIZE_MAX / 2), -EOVERFLOW);
	assert_null(arr);
}

static void test_endian__round_trip_unaligned(void **state)
{
	uint8_t buf[17] = { 0 };

	(void)state;
	tdr_put_le64(buf + 1, 0x0102030405060708ull);
	assert_int_equal(buf[1], 0x08);
	assert_int_equal(buf[8], 0x01);
	assert_int_equal(tdr_get_le64(buf + 1), 0x0102030405060708ull);
	tdr_put_le32(buf + 9, 0xdeadbeef);
	assert_int_equal(tdr_get_le32(buf + 9), 0xdeadbeef);
	tdr_put_le16(buf + 13, 0xbeef);
	assert_int_equal(tdr_get_le16(buf + 13), 0xbeef);
	assert_int_equal(buf[13], 0xef);
}

/* What one writer call prints, as a NUL-terminated string (caller frees). */
static char *put_to_string(void (*put)(FILE *, const char *), const char *in)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	put(f, in);
	assert_int_equal(fclose(f), 0);
	return buf;
}

static void expect_put(void (*put)(FILE *, const char *), const char *in, const char *want)
{
	char *got = put_to_string(put, in);

	assert_string_equal(got, want);
	free(got);
}

static void test_textout__json_escapes_and_keeps_utf8(void **state)
{
	(void)state;
	expect_put(tdr_json_put_string, NULL, "null");
	expect_put(tdr_json_put_string, "", "\"\"");
	expect_put(tdr_json_put_string, "a\"b\\c", "\"a\\\"b\\\\c\"");
	expect_put(tdr_json_put_string, "l1\nl2\tx\r", "\"l1\\nl2\\tx\\r\"");
	expect_put(tdr_json_put_string, "\x01\x1f\x7f", "\"\\u0001\\u001f\\u007f\"");
	/* Well-formed UTF-8 of 2, 3 and 4 bytes passes through. */
	expect_put(tdr_json_put_string, "\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80",
		   "\"\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\"");
}

static void test_textout__json_replaces_bytes_that_are_not_utf8(void **state)
{
	(void)state;
	/* A lone continuation byte, Latin-1, a sequence cut by the end of the
	 * string, an overlong '/', a surrogate and a code point over U+10FFFF:
	 * each bad lead byte becomes one U+FFFD and decoding resynchronises. */
	expect_put(tdr_json_put_string, "a\x80" "b", "\"a\\ufffdb\"");
	expect_put(tdr_json_put_string, "caf\xe9", "\"caf\\ufffd\"");
	expect_put(tdr_json_put_string, "\xe2\x82", "\"\\ufffd\\ufffd\"");
	expect_put(tdr_json_put_string, "\xc0\xaf", "\"\\ufffd\\ufffd\"");
	expect_put(tdr_json_put_string, "\xed\xa0\x80", "\"\\ufffd\\ufffd\\ufffd\"");
	expect_put(tdr_json_put_string, "\xf4\x90\x80\x80x", "\"\\ufffd\\ufffd\\ufffd\\ufffdx\"");
}

static void test_textout__csv_quotes_only_when_needed(void **state)
{
	(void)state;
	expect_put(tdr_csv_put_field, NULL, "");
	expect_put(tdr_csv_put_field, "plain name", "plain name");
	expect_put(tdr_csv_put_field, "a,b", "\"a,b\"");
	expect_put(tdr_csv_put_field, "say \"hi\"", "\"say \"\"hi\"\"\"");
	/* Control characters as '?' (issue 17: a CSV is read on terminals),
	 * inside quotes too. */
	expect_put(tdr_csv_put_field, "two\nlines", "two?lines");
	expect_put(tdr_csv_put_field, "\x1b[31m,\"x\"", "\"?[31m,\"\"x\"\"\"");
}

/* The text outputs' one rule (tdr_text_put): C0, DEL, C1 in UTF-8 and
 * 8-bit C1 bytes as '?'; other UTF-8 and other bytes as they are. */
static void put_all(FILE *f, const char *s)
{
	tdr_text_put(f, s);
}

static void test_textout__text_shows_controls_as_question_marks(void **state)
{
	char buf[16];

	(void)state;
	expect_put(put_all, "plain \xc3\xa9\xe2\x82\xac", "plain \xc3\xa9\xe2\x82\xac");
	expect_put(put_all, "\x1b]0;t\x07\x1b[2J\x7f\r\n\t", "?]0;t??[2J????");
	expect_put(put_all, "a\xc2\x9b" "1m\xc2\xa0" "b", "a?1m\xc2\xa0" "b"); /* C1 CSI; NBSP */
	expect_put(put_all, "\x9b" "1m\xe9\xff", "?1m\xe9\xff"); /* 8-bit CSI; Latin-1 */
	expect_put(put_all, NULL, "");
	/* Into a buffer: cut at a character, never inside one. */
	assert_string_equal(tdr_text_safe("ab\x1b" "cd", buf, sizeof(buf)), "ab?cd");
	assert_string_equal(tdr_text_safe("\xe2\x82\xac\xe2\x82\xac", buf, 5), "\xe2\x82\xac");
	assert_string_equal(tdr_text_safe(NULL, buf, sizeof(buf)), "");
	/* JSON escapes C1 too. */
	expect_put(tdr_json_put_string, "\xc2\x9b" "1m", "\"\\u009b1m\"");
}

/* One number reader for sysfs, CPUID strings and cpuinfo: whole text only,
 * 0x hex, no octal, no sign, limits honoured. */
static void test_num__whole_numbers_only(void **state)
{
	static const char *const bad[] = {"", "0x", "-1", "+1", " 1", "1 ", "12a", "0x1g", "1.0"};
	uint64_t v;

	(void)state;
	assert_int_equal(tdr_num_parse_u64("0123", 4, 0, UINT64_MAX, &v), 0);
	assert_int_equal(v, 123); /* not octal */
	assert_int_equal(tdr_num_parse_u64("0x1A0", 5, 0, UINT64_MAX, &v), 0);
	assert_int_equal(v, 0x1a0);
	assert_int_equal(tdr_num_parse_u64("d4f", 3, 16, UINT64_MAX, &v), 0);
	assert_int_equal(v, 0xd4f);
	assert_int_equal(tdr_num_parse_u64("55", 2, 16, UINT64_MAX, &v), 0);
	assert_int_equal(v, 0x55);
	assert_int_equal(tdr_num_parse_u64("18446744073709551615", 20, 10, UINT64_MAX, &v), 0);
	assert_true(v == UINT64_MAX);
	assert_int_equal(tdr_num_parse_u64("18446744073709551616", 20, 10, UINT64_MAX, &v), -ERANGE);
	assert_int_equal(tdr_num_parse_u64("256", 3, 10, 255, &v), -ERANGE);
	assert_int_equal(tdr_num_parse_u64("255", 3, 10, 255, &v), 0);
	assert_int_equal(tdr_num_parse_u64("f", 1, 16, 9, &v), -ERANGE);
	assert_int_equal(tdr_num_parse_u64("12", 1, 10, UINT64_MAX, &v), 0); /* len honoured */
	assert_int_equal(v, 1);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		if (tdr_num_parse_u64(bad[i], strlen(bad[i]), 0, UINT64_MAX, &v) != -EINVAL)
			fail_msg("accepted '%s'", bad[i]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_err__both_kinds_have_text),
		cmocka_unit_test(test_mem__ensure_cap_grows_and_keeps_data),
		cmocka_unit_test(test_mem__fault_injection_fails_then_recovers),
		cmocka_unit_test(test_mem__ensure_cap_overflow),
		cmocka_unit_test(test_endian__round_trip_unaligned),
		cmocka_unit_test(test_textout__json_escapes_and_keeps_utf8),
		cmocka_unit_test(test_textout__json_replaces_bytes_that_are_not_utf8),
		cmocka_unit_test(test_textout__csv_quotes_only_when_needed),
		cmocka_unit_test(test_textout__text_shows_controls_as_question_marks),
		cmocka_unit_test(test_num__whole_numbers_only),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
