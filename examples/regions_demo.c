/*
 * examples/regions_demo.c - a program instrumented with libtdrec regions.
 *
 * Three kinds of work in named regions, in several threads: "checksum"
 * (arithmetic over a buffer: retiring-heavy on a PMU), "touch-pages"
 * (fresh pages written once: page faults and kernel time), and "step",
 * which contains one of each (nesting). Each thread opens its own
 * measurement; the main thread prints what it measured itself, and at the
 * end the library writes every thread's regions to $TDREC_REGIONS (what
 * `tdrec record` sets; `tdrec report --regions FILE` prints them).
 *
 * Usage: regions_demo [THREADS [STEPS]]  (defaults 3 and 200)
 * See: docs/regions.md.
 */
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include <tdrec/regions.h>

#define PAGE 4096
#define BUF_WORDS (1 << 16)

static struct tdr_regions *rs;
static int id_step, id_sum, id_touch;
static long steps = 200;

static uint64_t checksum(const uint64_t *buf, size_t n, uint64_t seed)
{
	uint64_t h = seed;

	for (size_t i = 0; i < n; i++)
		h = (h ^ buf[i]) * 0x100000001b3ull;
	return h;
}

static void touch_pages(size_t pages)
{
	char *p = mmap(NULL, pages * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
		       -1, 0);

	if (p == MAP_FAILED)
		return;
	for (size_t i = 0; i < pages; i++)
		p[i * PAGE] = (char)i;
	munmap(p, pages * PAGE);
}

static void *worker(void *arg)
{
	struct tdr_regions_thread *t;
	uint64_t *buf = calloc(BUF_WORDS, sizeof(*buf));
	uint64_t h = (uintptr_t)arg;
	int err = tdr_regions__thread_open(rs, &t);

	if (err || !buf) {
		fprintf(stderr, "regions_demo: cannot measure a thread: %s\n",
			err ? strerror(-err) : "out of memory");
		free(buf);
		return NULL;
	}
	for (long s = 0; s < steps; s++) {
		tdr_regions_thread__begin(t, id_step);
		tdr_regions_thread__begin(t, id_sum);
		for (int k = 0; k < 20; k++)
			h = checksum(buf, BUF_WORDS, h);
		tdr_regions_thread__end(t, id_sum);
		tdr_regions_thread__begin(t, id_touch);
		touch_pages(64);
		tdr_regions_thread__end(t, id_touch);
		tdr_regions_thread__end(t, id_step);
		buf[s % BUF_WORDS] = h;
	}
	if (!arg) { /* the main thread: show what it measured */
		const int ids[] = {id_step, id_sum, id_touch};

		printf("family %s, read with %s\n", tdr_regions__family(rs),
		       tdr_regions_thread__rdpmc(t) ? "rdpmc" : "read(2)");
		for (size_t i = 0; i < 3; i++) {
			struct tdr_region_value v;

			tdr_regions_thread__read(t, ids[i], &v);
			printf("  region %d: %" PRIu64 " times;", ids[i], v.count);
			for (size_t e = 0; e < tdr_regions__event_cnt(rs); e++)
				printf(" %s %" PRIu64, tdr_regions__event_name(rs, e), v.events[e]);
			for (size_t c = 0; c < tdr_regions__category_cnt(rs); c++)
				printf(" %s %.1f%%", tdr_regions__category_name(rs, c),
				       100 * v.share[c]);
			printf("\n");
		}
	}
	tdr_regions_thread__close(t);
	free(buf);
	return (void *)(uintptr_t)h;
}

int main(int argc, char **argv)
{
	long threads = argc > 1 ? atol(argv[1]) : 3;
	pthread_t tids[64];
	int err;

	if (argc > 2)
		steps = atol(argv[2]);
	if (threads < 1 || threads > 64 || steps < 1) {
		fprintf(stderr, "usage: regions_demo [THREADS (1-64) [STEPS (1+)]]\n");
		return 2;
	}
	err = tdr_regions__open(NULL, &rs);
	if (err) {
		fprintf(stderr, "regions_demo: no measurement: %s\n", strerror(-err));
		return 1;
	}
	id_step = tdr_regions__region(rs, "step");
	id_sum = tdr_regions__region(rs, "checksum");
	id_touch = tdr_regions__region(rs, "touch-pages");
	for (long i = 1; i < threads; i++)
		pthread_create(&tids[i], NULL, worker, (void *)(uintptr_t)i);
	worker(NULL);
	for (long i = 1; i < threads; i++)
		pthread_join(tids[i], NULL);
	tdr_regions__free(rs);
	return 0;
}
