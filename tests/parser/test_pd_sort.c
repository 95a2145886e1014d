/*
 * tests/parser/test_pd_sort.c - the perf.data round sort (perfdata_read.c).
 *
 * perf writes a round as the records of one CPU buffer after another, each
 * in time order; tdr_parser_perfdata_sort_ents merges those runs. Its result must be
 * exactly a stable sort by time (ties keep arrival order) for any input:
 * already sorted, one run per CPU, many short runs, equal times, reversed,
 * random. Checked against qsort on (time, seq).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "parser_int.h"
#include "perfdata_int.h"

static int cmp(const void *a, const void *b)
{
	const struct pd_ent *x = a, *y = b;

	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static uint32_t rnd(uint32_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 17;
	*s ^= *s << 5;
	return *s;
}

/* Fill n entries: runs of run_len rising times (run_len 0: random times). */
static void fill(struct pd_ent *e, size_t n, size_t run_len, uint32_t seed, uint64_t spread)
{
	uint32_t s = seed * 2654435761u + 1;
	uint64_t t = 0;

	for (size_t i = 0; i < n; i++) {
		if (!run_len)
			t = rnd(&s) % spread;
		else if (i % run_len == 0)
			t = rnd(&s) % spread;
		else
			t += rnd(&s) % 3; /* equal times too */
		e[i].time = t;
		e[i].seq = i;
		e[i].off = i * 8;
	}
}

static void check(size_t n, size_t run_len, uint32_t seed, uint64_t spread)
{
	struct pd_ent *e = calloc(n + 1, sizeof(*e)), *tmp = calloc(n + 1, sizeof(*e));
	struct pd_ent *want = calloc(n + 1, sizeof(*e)), *got;

	fill(e, n, run_len, seed, spread);
	memcpy(want, e, n * sizeof(*e));
	qsort(want, n, sizeof(*want), cmp);
	got = tdr_parser_perfdata_sort_ents(e, tmp, n);
	assert_true(got == e || got == tmp);
	assert_memory_equal(got, want, n * sizeof(*e));
	free(e);
	free(tmp);
	free(want);
}

static void test_pd_sort__matches_a_stable_sort(void **state)
{
	(void)state;
	for (size_t n = 0; n < 40; n++) /* every small size */
		for (size_t run = 0; run < 6; run++)
			check(n, run, (uint32_t)(n * 7 + run), 50);
	check(10000, 10000, 1, 1000000); /* one run: sorted already */
	check(10000, 5000, 2, 1000000);	 /* two CPUs */
	check(10001, 77, 3, 1000000);	 /* many runs, odd count */
	check(10000, 1, 4, 1000000);	 /* every entry its own run */
	check(10000, 0, 5, 4);		 /* random, many equal times */
	{
		/* Reversed: each entry is a run of one. */
		struct pd_ent e[100], tmp[100], *got;

		for (size_t i = 0; i < 100; i++)
			e[i] = (struct pd_ent){.time = 100 - i, .seq = i, .off = i};
		got = tdr_parser_perfdata_sort_ents(e, tmp, 100);
		for (size_t i = 0; i < 100; i++)
			assert_int_equal(got[i].time, i + 1);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_pd_sort__matches_a_stable_sort),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
