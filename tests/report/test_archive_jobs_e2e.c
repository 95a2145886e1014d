/*
 * tests/report/test_archive_jobs_e2e.c - the archiving step shared with
 * forked workers gives the archive one process gives, on real DWARF
 * (docs/symbolize.md "Archived symbols", report/archive_shards.c).
 *
 * A program of eight compile units of 400 functions each, built with
 * -O0 -g in a temporary directory, is recorded with the software plan and
 * --no-archive; `tdrec archive -j 1` and `-j 2` must write the same file,
 * byte for byte, from thousands of addresses, and the second must say that
 * two processes looked them up. A worker starts when the process forks
 * it and takes units while any are left, so under a heavily loaded
 * machine the parent could take them all first: the -j 2 run is tried up
 * to twenty times for that (each try must still give the same file).
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

#include "support/test_run.h"
#include "support/test_tmpdir.h"

#define UNITS 8
#define FUNCS 400

struct env {
	char dir[TEST_TMPDIR_SZ];
	const char *tdrec;
};

/* Units of about 90 KB of DIEs each: enough estimated work for a worker
 * (report/archive_shards.c, WORKER_MIN_COST), with room to spare. */
static void write_sources(const struct env *e)
{
	char path[128];
	FILE *f;

	for (int u = 0; u < UNITS; u++) {
		snprintf(path, sizeof(path), "%s/u%d.c", e->dir, u);
		assert_non_null(f = fopen(path, "w"));
		for (int j = 0; j < FUNCS; j++)
			fprintf(f,
				"double u%d_f%d(double x)\n{\n"
				"\tdouble a = x, b = %d.5, c = 0, d = 1, e = 2, g = 3;\n"
				"\tlong n = %d, m = %d, k = 0;\n"
				"\tfor (int i = 0; i < 60; i++) {\n"
				"\t\tc += a * b - i + d * e - g;\n"
				"\t\ta = a * 1.000001 + n + m + k;\n"
				"\t}\n\treturn c;\n}\n",
				u, j, j, u, j);
		fclose(f);
	}
	snprintf(path, sizeof(path), "%s/main.c", e->dir);
	assert_non_null(f = fopen(path, "w"));
	fputs("#include <stdio.h>\n", f);
	for (int u = 0; u < UNITS; u++)
		for (int j = 0; j < FUNCS; j++)
			fprintf(f, "double u%d_f%d(double);\n", u, j);
	fputs("int main(void)\n{\n\tdouble s = 0;\n\tfor (int r = 0; r < 1500; r++) {\n", f);
	for (int u = 0; u < UNITS; u++)
		for (int j = 0; j < FUNCS; j++)
			fprintf(f, "\t\ts += u%d_f%d(r);\n", u, j);
	fputs("\t}\n\tprintf(\"%f\\n\", s);\n\treturn 0;\n}\n", f);
	fclose(f);
}

/* The addresses and processes of an archive line ("symbols of X of Y
 * addresses archived (...; looked up by N processes)"). */
static void summary(const char *out, unsigned long *addrs, unsigned long *procs)
{
	const char *p = strstr(out, "symbols of ");
	const char *q = strstr(out, "looked up by ");
	unsigned long archived;

	assert_non_null(p);
	assert_int_equal(sscanf(p, "symbols of %lu of %lu", &archived, addrs), 2);
	*procs = 1;
	if (q)
		assert_int_equal(sscanf(q, "looked up by %lu", procs), 1);
}

static char *slurp(const char *path, size_t *sz)
{
	FILE *f = fopen(path, "rb");
	char *buf;
	long n;

	assert_non_null(f);
	assert_int_equal(fseek(f, 0, SEEK_END), 0);
	n = ftell(f);
	assert_true(n > 0);
	rewind(f);
	buf = malloc((size_t)n);
	assert_non_null(buf);
	assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
	fclose(f);
	*sz = (size_t)n;
	return buf;
}

static void test_jobs_give_the_same_archive(void **state)
{
	const struct env *e = *state;
	unsigned long addrs, procs = 1;
	char *out = NULL, *one, *two, path[128];
	size_t one_sz, two_sz;
	int st;

	write_sources(e);
	if (test_run(&out, "cd '%s' && cc -O0 -g -o app main.c u*.c 2>&1", e->dir)) {
		print_error("cc failed: %s\n", out);
		fail();
	}
	free(out);
	st = test_run(&out, "cd '%s' && '%s' record -q -F 10000 --no-archive -o rec.tdr -- ./app 2>&1",
		      e->dir, e->tdrec);
	if (st && strstr(out, "perf_event_paranoid")) {
		free(out);
		skip();
	}
	assert_int_equal(st, 0);
	free(out);

	assert_int_equal(
	    test_run(&out, "cd '%s' && '%s' archive -j 1 -o one.tdr rec.tdr 2>&1", e->dir, e->tdrec),
	    0);
	summary(out, &addrs, &procs);
	free(out);
	assert_int_equal(procs, 1);
	/* Enough addresses for two workers (TDR_ARCHIVE_SHARD_MIN each). */
	if (addrs < 1024)
		print_error("only %lu addresses sampled\n", addrs);
	assert_true(addrs >= 1024);
	snprintf(path, sizeof(path), "%s/one.tdr", e->dir);
	one = slurp(path, &one_sz);

	for (int tries = 0; tries < 20 && procs < 2; tries++) {
		assert_int_equal(test_run(&out, "cd '%s' && rm -f two.tdr && '%s' archive -j 2 -o "
						"two.tdr rec.tdr 2>&1",
					  e->dir, e->tdrec),
				 0);
		summary(out, &addrs, &procs);
		free(out);
		snprintf(path, sizeof(path), "%s/two.tdr", e->dir);
		two = slurp(path, &two_sz);
		assert_int_equal(one_sz, two_sz);
		assert_memory_equal(one, two, one_sz);
		free(two);
	}
	assert_int_equal(procs, 2);
	free(one);
}

static int setup(void **state)
{
	static struct env e;

	e.tdrec = getenv("TDREC");
	if (!e.tdrec || !test_tmpdir_make(e.dir, "archive-jobs")) {
		fprintf(stderr, "TDREC must be set (run through ctest), and /tmp writable\n");
		return -1;
	}
	*state = &e;
	return 0;
}

static int teardown(void **state)
{
	test_tmpdir_remove(((struct env *)*state)->dir);
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_jobs_give_the_same_archive),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
