/*
 * tests/libtdrec/regions_cost.c - what one begin/end pair costs, in CPU
 * time of the calling thread (CLOCK_THREAD_CPUTIME_ID: user and kernel
 * time, so the read(2) system calls count, and a loaded machine's waiting
 * does not), against the same loop without regions.
 *
 * Usage: regions_cost [PAIRS]  (default 200000). Prints the family, the
 * read method, and the nanoseconds per pair; checks that the region
 * counted every pair (exit 1 if not). It asserts nothing about time:
 * docs/regions.md "Cost" quotes what it printed.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tdrec/regions.h"

/* Work the compiler must keep. */
static volatile uint64_t sink;

static uint64_t cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

int main(int argc, char **argv)
{
	long pairs = argc > 1 ? atol(argv[1]) : 200000;
	struct tdr_regions_opts o = {0};
	struct tdr_regions *rs;
	struct tdr_regions_thread *t;
	struct tdr_region_value v;
	uint64_t t0, t1, t2;
	int id, err;

	if (pairs < 1) {
		fprintf(stderr, "usage: regions_cost [PAIRS (1+)]\n");
		return 2;
	}
	err = tdr_regions__open(&o, &rs);
	if (!err)
		err = tdr_regions__thread_open(rs, &t);
	if (err) {
		fprintf(stderr, "regions_cost: %s\n", strerror(-err));
		return 1;
	}
	id = tdr_regions__region(rs, "empty");
	t0 = cpu_ns();
	for (long i = 0; i < pairs; i++)
		sink += (uint64_t)i;
	t1 = cpu_ns();
	for (long i = 0; i < pairs; i++) {
		tdr_regions_thread__begin(t, id);
		sink += (uint64_t)i;
		tdr_regions_thread__end(t, id);
	}
	t2 = cpu_ns();
	tdr_regions_thread__read(t, id, &v);
	printf("family %s, read with %s: %.0f ns of CPU time per begin/end pair "
	       "(%ld pairs; the loop alone %.1f ns)\n",
	       tdr_regions__family(rs), tdr_regions_thread__rdpmc(t) ? "rdpmc" : "read(2)",
	       ((double)(t2 - t1) - (double)(t1 - t0)) / (double)pairs, pairs,
	       (double)(t1 - t0) / (double)pairs);
	/* What the reads themselves put inside a region: the floor under
	 * which a region's numbers are mostly the measurement. */
	for (size_t e = 0; e < tdr_regions__event_cnt(rs); e++)
		printf("  an empty region reads %s %.1f per pair\n", tdr_regions__event_name(rs, e),
		       (double)v.events[e] / (double)pairs);
	tdr_regions_thread__close(t);
	tdr_regions__free(rs);
	if (v.count != (uint64_t)pairs) {
		fprintf(stderr, "regions_cost: %" PRIu64 " pairs counted, not %ld\n", v.count,
			pairs);
		return 1;
	}
	return 0;
}
