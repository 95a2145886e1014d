/*
 * bench/parser_bench.c - decode + delta throughput of the parser.
 *
 * Builds a synthetic stream of 1,000,000 TopDown L1 group samples (6 members,
 * 4 threads interleaved on 2 CPUs, the recorder's sample layout), then times
 * tdr_parser__feed over it with a callback that only sums one delta.
 * Prints samples per second; the target is in docs/parser.md "Limits and performance".
 * usage: parser_bench [SAMPLES]
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "support/synth.h"
#include "tdrec/parser.h"

/* bench/CMakeLists.txt builds each bench .c file alone: take the record writer in. */
#include "support/synth.c"

static int cb(const struct tdr_sample *s, void *ctx)
{
	*(uint64_t *)ctx += s->deltas[0];
	return 0;
}

int main(int argc, char **argv)
{
	size_t n = argc > 1 ? strtoul(argv[1], NULL, 10) : 1000000, i, off;
	struct tdr_meta meta = { 0 };
	struct perf_event_attr a;
	struct synth_buf b = { 0 };
	struct tdr_parser *p;
	struct timespec t0, t1;
	uint64_t sum = 0, vals[4][2][6] = { { { 0 } } };
	static const char *const names[6] = { "slots",		  "cycles",
					      "topdown-retiring", "topdown-bad-spec",
					      "topdown-fe-bound", "topdown-be-bound" };
	double secs;

	synth_attr_group(&a, 100000);
	for (i = 0; i < 6; i++) {
		uint64_t ids[2] = { 100 + i, 200 + i };
		uint32_t cpus[2] = { 0, 1 };

		synth_meta_add_event(&meta, names[i], &a, i == 0 ? 1 : i == 1 ? 2 : 0, 0, ids, cpus,
				     10, 2);
	}
	for (i = 0; i < n; i++) {
		unsigned t = i % 4, c = (i / 4) % 2;
		uint64_t ids[6];
		struct synth_sample s = { 0 };

		for (int k = 0; k < 6; k++) {
			vals[t][c][k] += 1000 + (uint64_t)k * 37 + i % 13;
			ids[k] = (c ? 200 : 100) + (uint64_t)k;
		}
		s.sid.pid = 10;
		s.sid.tid = 11 + t;
		s.sid.time = i;
		s.sid.id = ids[1];
		s.sid.cpu = c;
		s.ip = 0x400000 + (i % 4096) * 16;
		s.period = 100000;
		s.time_enabled = s.time_running = i + 1;
		s.nr = 6;
		s.values = vals[t][c];
		s.ids = ids;
		synth_sample(&b, &a, &s);
	}
	if (tdr_parser__new(&meta, &p))
		return 1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (off = 0, i = 0; off < b.sz; i++) {
		const struct perf_event_header *h = synth_rec(&b, off);

		tdr_parser__feed(p, (uint32_t)((i / 4) % 2), h, cb, &sum);
		off += h->size;
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	secs = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
	printf("parser_bench: %zu samples (%zu bytes) in %.3f s: %.1f M samples/s "
	       "(delivered %llu, checksum %llu)\n",
	       n, b.sz, secs, (double)n / secs / 1e6,
	       (unsigned long long)tdr_parser__stats(p)->samples_delivered,
	       (unsigned long long)sum);
	tdr_parser__free(p);
	tdr_meta__clear(&meta);
	synth_buf_release(&b);
	return 0;
}
