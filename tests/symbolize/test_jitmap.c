/*
 * tests/symbolize/test_jitmap.c - JIT code through the symbolizer: perf map
 * files and jitdump files written here by hand (the format of
 * tools/perf/Documentation/jit-interface.txt and jitdump-specification.txt),
 * then looked up as objects whose offsets are addresses: names, offsets in
 * the function, the later entry winning at a reused address, code that
 * moved, a cut file, control characters, and files that are missing.
 * The end-to-end checks with node (tdrec record and perf record of
 * node --perf-basic-prof / --perf-prof) are in tests/report/test_e2e.c.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "tdrec/symbolize.h"

struct ctx {
	char dir[64];
	char map[128], dump[128];
	struct tdr_symbolizer *s;
};

static int setup(void **state)
{
	struct ctx *c = calloc(1, sizeof(*c));

	snprintf(c->dir, sizeof(c->dir), "/tmp/tdr-jitmap-XXXXXX");
	if (!c || !mkdtemp(c->dir))
		return -1;
	snprintf(c->map, sizeof(c->map), "%s/perf-4242.map", c->dir);
	snprintf(c->dump, sizeof(c->dump), "%s/jit-4242.dump", c->dir);
	if (tdr_symbolizer__new(NULL, &c->s))
		return -1;
	*state = c;
	return 0;
}

static int teardown(void **state)
{
	struct ctx *c = *state;

	tdr_symbolizer__free(c->s);
	unlink(c->map);
	unlink(c->dump);
	rmdir(c->dir);
	free(c);
	return 0;
}

static void lookup(struct ctx *c, const char *path, uint64_t addr, struct tdr_sym *out)
{
	struct tdr_dso_ref ref = {.path = path};

	assert_int_equal(tdr_symbolizer__lookup(c->s, &ref, addr, out), 0);
}

static void want(struct ctx *c, const char *path, uint64_t addr, const char *name, uint64_t off)
{
	struct tdr_sym sym;

	lookup(c, path, addr, &sym);
	if (!name) {
		assert_int_equal(sym.status, TDR_SYM_NO_SYMBOL);
		return;
	}
	assert_int_equal(sym.status, TDR_SYM_OK);
	assert_string_equal(sym.function, name);
	assert_int_equal(sym.function_offset, off);
}

/* node --perf-basic-prof writes lines like these. */
static void test_jitmap__perf_map(void **state)
{
	struct ctx *c = *state;
	FILE *f = fopen(c->map, "w");

	assert_non_null(f);
	fputs("15b3a468b2be 35 JS:~hotLoop /tmp/app/hot.js:1:17\n"
	      "7fd775fc5b80 2d8 JS:*hotLoop /tmp/app/hot.js:1:17\n"
	      "7fd775fc6540 180 JS:^otherWork /tmp/app/hot.js:2:19\n"
	      "this line is not an entry\n"
	      "7fd775fc7000 100 old\n"
	      "7fd775fc7000 80 new\tname\n" /* reused: the later one wins */
	      "7fd775fc8000 0 empty\n"
	      "7fd775fc9000 40 no newline at the end",
	      f);
	assert_int_equal(fclose(f), 0);
	want(c, c->map, 0x15b3a468b2be, "JS:~hotLoop /tmp/app/hot.js:1:17", 0);
	want(c, c->map, 0x7fd775fc5b80 + 0x2d7, "JS:*hotLoop /tmp/app/hot.js:1:17", 0x2d7);
	want(c, c->map, 0x7fd775fc5b80 + 0x2d8, NULL, 0);
	want(c, c->map, 0x7fd775fc6541, "JS:^otherWork /tmp/app/hot.js:2:19", 1);
	want(c, c->map, 0x7fd775fc7010, "new?name", 0x10);
	want(c, c->map, 0x7fd775fc8000, NULL, 0);
	want(c, c->map, 0x7fd775fc9001, "no newline at the end", 1);
	want(c, c->map, 0x1000, NULL, 0);
}

static void put32(FILE *f, uint32_t v)
{
	assert_int_equal(fwrite(&v, 4, 1, f), 1); /* little-endian host */
}

static void put64(FILE *f, uint64_t v)
{
	assert_int_equal(fwrite(&v, 8, 1, f), 1);
}

/* JIT_CODE_LOAD: header, pid, tid, vma, code_addr, code_size, code_index,
 * name, then code_size bytes of code. */
static void code_load(FILE *f, uint64_t addr, uint64_t size, const char *name)
{
	size_t n = strlen(name) + 1;

	put32(f, 0);
	put32(f, (uint32_t)(16 + 40 + n + size));
	put64(f, 1000);
	put32(f, 4242);
	put32(f, 4242);
	put64(f, addr);
	put64(f, addr);
	put64(f, size);
	put64(f, 7);
	assert_int_equal(fwrite(name, 1, n, f), n);
	for (uint64_t i = 0; i < size; i++)
		fputc(0x90, f);
}

static void test_jitmap__jitdump(void **state)
{
	struct ctx *c = *state;
	FILE *f = fopen(c->dump, "wb");
	long cut;

	assert_non_null(f);
	/* header: magic, version 1, size 40, EM_X86_64, pad, pid, time, flags */
	put32(f, 0x4A695444);
	put32(f, 1);
	put32(f, 40);
	put32(f, 62);
	put32(f, 0);
	put32(f, 4242);
	put64(f, 1);
	put64(f, 0);
	code_load(f, 0x10000, 0x40, "LazyCompile:*compute app.js:3");
	code_load(f, 0x20000, 0x20, "Builtin:Moved");
	/* JIT_CODE_DEBUG_INFO (2): skipped */
	put32(f, 2);
	put32(f, 24);
	put64(f, 1001);
	put64(f, 0x10000);
	/* JIT_CODE_MOVE (1): 0x20000 -> 0x30000 */
	put32(f, 1);
	put32(f, 16 + 56);
	put64(f, 1002);
	put32(f, 4242);
	put32(f, 4242);
	put64(f, 0x30000);
	put64(f, 0x20000);
	put64(f, 0x30000);
	put64(f, 0x20);
	put64(f, 8);
	cut = ftell(f);
	code_load(f, 0x40000, 0x10, "cut short");
	assert_int_equal(fclose(f), 0);
	assert_int_equal(truncate(c->dump, cut + 20), 0); /* the last record is cut */

	want(c, c->dump, 0x10000, "LazyCompile:*compute app.js:3", 0);
	want(c, c->dump, 0x1003f, "LazyCompile:*compute app.js:3", 0x3f);
	want(c, c->dump, 0x10040, NULL, 0);
	want(c, c->dump, 0x30008, "Builtin:Moved", 8);
	want(c, c->dump, 0x40000, NULL, 0);
}

/* A missing file is missing; another name is an ELF object as before. */
static void test_jitmap__missing(void **state)
{
	struct ctx *c = *state;
	struct tdr_sym sym;
	char path[160];

	snprintf(path, sizeof(path), "%s/perf-999999.map", c->dir);
	lookup(c, path, 0x1000, &sym);
	assert_int_equal(sym.status, TDR_SYM_MISSING);
	snprintf(path, sizeof(path), "%s/jit-999999.dump", c->dir);
	lookup(c, path, 0x1000, &sym);
	assert_int_equal(sym.status, TDR_SYM_MISSING);
	/* Not a jitdump (no magic): read as a perf map, no entries. */
	{
		FILE *f = fopen(c->dump, "wb");

		assert_non_null(f);
		fputs("not a jitdump file at all, but long enough for a header\n", f);
		fclose(f);
	}
	lookup(c, c->dump, 0x1000, &sym);
	assert_int_equal(sym.status, TDR_SYM_NO_SYMBOL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_jitmap__perf_map, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_jitmap__jitdump, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_jitmap__missing, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
