/*
 * tests/symbolize/test_archived.c - lookups answered from a recording's
 * archive (symbolize/archived.c, docs/symbolize.md "Archived symbols").
 *
 * An archive made with the builder names objects that do not exist on
 * disk, so any answer that names a function can only come from it: the
 * answer is what was archived, trimmed to the symbolizer's options (no
 * lines, no inlines); the same object is found under another path by its
 * build-id, but not without one; an offset or an object the archive does
 * not cover is looked up live (here: the file is missing) and counted; no
 * object is opened for an archived answer; kernel addresses come from the
 * archive even where kernel symbols are unusable; repeated lookups give
 * the same inline array.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "symbolize_int.h"
#include "tdrec/archive.h"
#include "tdrec/symbolize.h"

static const uint8_t bid[4] = {0xde, 0xad, 0xbe, 0xef};

static struct tdr_archive *make_archive(void)
{
	struct tdr_archive_frame fr[2] = {
	    {.function = "leaf", .call_file = "m.h", .call_line = 10, .call_column = 2},
	    {.function = "mid", .call_file = "p.c", .call_line = 20, .call_column = 4},
	};
	struct tdr_archive_sym ok = {.status = TDR_ARCHIVE_SYM_OK, .function = "physical",
				     .function_offset = 0x10, .function_size = 0x80,
				     .file = "l.h", .line = 3, .column = 5, .inline_cnt = 2,
				     .inlines = fr};
	struct tdr_archive_sym none = {.status = TDR_ARCHIVE_SYM_NO_SYMBOL};
	struct tdr_archive_sym k = {.status = TDR_ARCHIVE_SYM_OK, .function = "schedule",
				    .function_offset = 4};
	struct tdr_archive_builder *b;
	struct tdr_archive *a;
	void *d;
	size_t sz;
	long o, p, kern;

	assert_int_equal(tdr_archive_builder__new(&b), 0);
	o = tdr_archive_builder__dso(b, TDR_ARCHIVE_FILE, "/gone/prog", bid, sizeof(bid));
	p = tdr_archive_builder__dso(b, TDR_ARCHIVE_FILE, "/gone/nobid", NULL, 0);
	kern = tdr_archive_builder__dso(b, TDR_ARCHIVE_KERNEL, "[kernel.kallsyms]", NULL, 0);
	assert_int_equal(tdr_archive_builder__add(b, o, 0x1010, &ok), 0);
	assert_int_equal(tdr_archive_builder__add(b, o, 0x2000, &none), 0);
	assert_int_equal(tdr_archive_builder__add(b, p, 0x30, &ok), 0);
	assert_int_equal(tdr_archive_builder__add(b, kern, 0xffffffff81000004ull, &k), 0);
	assert_int_equal(tdr_archive_builder__encode(b, 3, &d, &sz), 0);
	assert_int_equal(tdr_archive__decode(d, sz, &a), 0);
	free(d);
	tdr_archive_builder__free(b);
	return a;
}

static struct tdr_symbolizer *sym_new(const struct tdr_archive *a, bool lines, bool inlines)
{
	struct tdr_symbolizer_opts o = {.want_lines = lines, .want_inlines = inlines,
					.archive = a, .kallsyms_usable = false};
	struct tdr_symbolizer *s;

	assert_int_equal(tdr_symbolizer__new(&o, &s), 0);
	return s;
}

static void test_archived__answers_trimmed_to_the_options(void **state)
{
	struct tdr_archive *a = make_archive();
	struct tdr_dso_ref ref = {.path = "/gone/prog", .build_id = bid, .build_id_sz = 4};

	(void)state;
	for (int m = 0; m < 4; m++) {
		bool lines = m & 1, inlines = m & 2;
		struct tdr_symbolizer *s = sym_new(a, lines, inlines);
		struct tdr_sym sym, again;

		assert_int_equal(tdr_symbolizer__lookup(s, &ref, 0x1010, &sym), 0);
		assert_int_equal(sym.status, TDR_SYM_OK);
		assert_string_equal(sym.function, "physical");
		assert_int_equal(sym.function_offset, 0x10);
		assert_int_equal(sym.function_size, 0x80);
		if (lines) {
			assert_string_equal(sym.file, "l.h");
			assert_int_equal(sym.line, 3);
			assert_int_equal(sym.column, 5);
		} else {
			assert_null(sym.file);
			assert_int_equal(sym.line, 0);
		}
		if (inlines) {
			assert_int_equal(sym.inline_cnt, 2);
			assert_string_equal(sym.inlines[0].function, "leaf");
			assert_string_equal(sym.inlines[0].call_file, "m.h");
			assert_int_equal(sym.inlines[0].call_line, 10);
			assert_int_equal(sym.inlines[0].call_column, 2);
			assert_string_equal(sym.inlines[1].function, "mid");
			assert_int_equal(sym.inlines[1].call_line, 20);
			assert_int_equal(tdr_symbolizer__lookup(s, &ref, 0x1010, &again), 0);
			assert_ptr_equal(again.inlines, sym.inlines);
		} else {
			assert_int_equal(sym.inline_cnt, 0);
		}
		/* Nothing was opened for it. */
		assert_int_equal(s->dso_cnt, 0);
		tdr_symbolizer__free(s);
	}
	tdr_archive__free(a);
}

static void test_archived__objects_offsets_and_counts(void **state)
{
	struct tdr_archive *a = make_archive();
	struct tdr_symbolizer *s = sym_new(a, true, true);
	struct tdr_dso_ref moved = {.path = "/new/place/prog", .build_id = bid, .build_id_sz = 4};
	struct tdr_dso_ref nobid = {.path = "/gone/nobid"};
	struct tdr_dso_ref nobid_moved = {.path = "/new/nobid"};
	struct tdr_sym sym;
	uint64_t hits, live;

	(void)state;
	/* By build-id under another path. */
	assert_int_equal(tdr_symbolizer__lookup(s, &moved, 0x1010, &sym), 0);
	assert_string_equal(sym.function, "physical");
	/* "No symbol" is an answer too. */
	assert_int_equal(tdr_symbolizer__lookup(s, &moved, 0x2000, &sym), 0);
	assert_int_equal(sym.status, TDR_SYM_NO_SYMBOL);
	/* By path without a build-id; not under another path. */
	assert_int_equal(tdr_symbolizer__lookup(s, &nobid, 0x30, &sym), 0);
	assert_string_equal(sym.function, "physical");
	assert_int_equal(s->dso_cnt, 0);
	assert_int_equal(tdr_symbolizer__lookup(s, &nobid_moved, 0x30, &sym), 0);
	assert_int_equal(sym.status, TDR_SYM_MISSING);
	/* An offset the archive does not cover: live (the file is gone). */
	assert_int_equal(tdr_symbolizer__lookup(s, &moved, 0x1011, &sym), 0);
	assert_int_equal(sym.status, TDR_SYM_MISSING);
	assert_int_equal(tdr_symbolizer__lookup_archived(s, &moved, 0x1011, &sym), 0);
	assert_int_equal(tdr_symbolizer__lookup_archived(s, &moved, 0x1010, &sym), 1);
	/* The kernel, though kernel symbols are not usable here. */
	assert_int_equal(tdr_symbolizer__lookup_kernel(s, 0xffffffff81000004ull, &sym), 0);
	assert_int_equal(sym.status, TDR_SYM_OK);
	assert_string_equal(sym.function, "schedule");
	assert_int_equal(tdr_symbolizer__lookup_kernel(s, 0xffffffff81000005ull, &sym), 0);
	assert_int_equal(sym.status, TDR_SYM_NO_KERNEL);
	tdr_symbolizer__archive_counts(s, &hits, &live);
	assert_int_equal(hits, 5);
	assert_int_equal(live, 4);
	tdr_symbolizer__free(s);
	tdr_archive__free(a);
}

static void test_archived__without_archive_nothing_changes(void **state)
{
	struct tdr_symbolizer *s = sym_new(NULL, true, true);
	struct tdr_dso_ref ref = {.path = "/gone/prog", .build_id = bid, .build_id_sz = 4};
	struct tdr_sym sym;
	uint64_t hits, live;

	(void)state;
	assert_int_equal(tdr_symbolizer__lookup(s, &ref, 0x1010, &sym), 0);
	assert_int_equal(sym.status, TDR_SYM_MISSING);
	assert_int_equal(tdr_symbolizer__lookup_archived(s, &ref, 0x1010, &sym), 0);
	tdr_symbolizer__archive_counts(s, &hits, &live);
	assert_int_equal(hits + live, 0);
	tdr_symbolizer__free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_archived__answers_trimmed_to_the_options),
	    cmocka_unit_test(test_archived__objects_offsets_and_counts),
	    cmocka_unit_test(test_archived__without_archive_nothing_changes),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
