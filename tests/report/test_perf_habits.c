/*
 * tests/report/test_perf_habits.c - perf's ways of asking, taken by tdrec.
 *
 * On the shipped synthetic example (examples/amd-zen4.perf.data, no
 * perf_event_open needed): 'tdrec report FILE' and '--stdio' print what
 * 'report -i FILE' prints; perf's sort keys (-s sym, dso, comm,pid, tid,
 * srcline) give the rows of tdrec's groupings, while a column name after
 * -s still sorts; the same file through a pipe ('-i -') gives the same
 * rows. And 'record -e a,b -e c' on the software plan: the first event
 * samples, the other software events are read in the group, a hardware
 * one is ignored with a note (--dry-run). Label: unit (runs the binary).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include <cmocka.h>

#include "support/test_run.h"

static char file[4200];
static const char *tdrec;

/* The output of tdrec with args (exit 0 asserted). */
static __attribute__((noinline)) char *out_of(const char *args)
{
	char *res = NULL;

	assert_int_equal(test_run(&res, "'%s' %s 2>&1", tdrec, args), 0);
	return res;
}

static void same(const char *a, const char *b)
{
	char *x = out_of(a), *y = out_of(b);

	if (strcmp(x, y))
		fail_msg("'%s' and '%s' differ:\n%s\n---\n%s", a, b, x, y);
	free(x);
	free(y);
}

static void test_perf_habits__report_file_and_stdio(void **state)
{
	char a[4400], b[4400];

	(void)state;
	snprintf(a, sizeof(a), "report -i '%s'", file);
	snprintf(b, sizeof(b), "report '%s'", file);
	same(a, b);
	snprintf(b, sizeof(b), "report --stdio '%s' -n 50", file);
	same(a, b);
	/* one file only */
	{
		char *out;

		assert_int_equal(test_run(&out, "'%s' report '%s' '%s' 2>&1", tdrec, file, file), 2);
		assert_non_null(strstr(out, "unexpected argument"));
		free(out);
	}
}

static void test_perf_habits__perf_sort_keys(void **state)
{
	static const char *const pairs[][2] = {
	    {"-s sym", ""},	     {"-s dso", "--by dso"},	   {"-s comm,pid", "--by process"},
	    {"-s pid", "--by process"}, {"-s tid", "--by thread"}, {"-s srcline", "--lines"},
	};
	char a[4400], b[4400], *out;

	(void)state;
	for (size_t i = 0; i < sizeof(pairs) / sizeof(pairs[0]); i++) {
		snprintf(a, sizeof(a), "report %s '%s' --csv", pairs[i][0], file);
		snprintf(b, sizeof(b), "report %s '%s' --csv", pairs[i][1], file);
		same(a, b);
	}
	/* A column name still sorts. */
	snprintf(a, sizeof(a), "report -s samples '%s' --csv", file);
	snprintf(b, sizeof(b), "report --sort samples '%s' --csv", file);
	same(a, b);
	/* And a grouping that disagrees is refused. */
	assert_int_equal(test_run(&out, "'%s' report -s dso --lines '%s' 2>&1", tdrec, file), 2);
	free(out);
}

static void test_perf_habits__report_from_a_pipe(void **state)
{
	char *x, *y;

	(void)state;
	/* From the examples directory: the symbol file is found next to the
	 * recording, and "-" has no directory but the current one. */
	assert_int_equal(test_run(&x, "cd '%s/..' && '%s' report -i amd-zen4.perf.data --csv", file,
			     tdrec),
			 0);
	assert_int_equal(test_run(&y, "cd '%s/..' && cat amd-zen4.perf.data | '%s' report -i - --csv",
			     file, tdrec),
			 0);
	assert_string_equal(x, y);
	free(x);
	free(y);
}

static void test_perf_habits__record_event_lists(void **state)
{
	char *out;

	(void)state;
	out = out_of("record --plan software --dry-run -e cpu-clock,page-faults "
		     "-e cpu-migrations,instructions -- true");
	assert_non_null(strstr(out, "event 0: cpu-clock (pmu software) leader sampler"));
	assert_non_null(strstr(out, "cpu-migrations (pmu software)"));
	/* page-faults is read once, not twice */
	{
		const char *pf = strstr(out, "page-faults (pmu software)");

		assert_non_null(pf);
		assert_null(strstr(pf + 1, "page-faults (pmu software)"));
	}
	assert_non_null(strstr(out, "-e instructions was ignored"));
	free(out);
	/* A PMU event's commas stay in it: ignored where the PMU exists,
	 * else refused by its whole name. */
	if (test_run(&out, "'%s' record --plan software --dry-run "
		      "-e 'cpu-clock,cpu/event=0x3c,umask=0x0/' -- true 2>&1",
		tdrec))
		assert_non_null(strstr(out, "'cpu/event=0x3c,umask=0x0/'"));
	else
		assert_non_null(strstr(out, "cpu/event=0x3c,umask=0x0/ was ignored"));
	free(out);
	assert_int_equal(test_run(&out, "'%s' record --dry-run -e '{cycles,instructions}' -- true 2>&1",
			     tdrec),
			 2);
	free(out);
}

int main(void)
{
	const char *src = getenv("TDR_SOURCE_DIR");
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_perf_habits__report_file_and_stdio),
	    cmocka_unit_test(test_perf_habits__perf_sort_keys),
	    cmocka_unit_test(test_perf_habits__report_from_a_pipe),
	    cmocka_unit_test(test_perf_habits__record_event_lists),
	};

	tdrec = getenv("TDREC");
	if (!tdrec || !src) {
		fprintf(stderr, "TDREC and TDR_SOURCE_DIR must be set (run through ctest)\n");
		return 1;
	}
	snprintf(file, sizeof(file), "%s/examples/amd-zen4.perf.data", src);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
