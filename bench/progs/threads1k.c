/*
 * bench/progs/threads1k.c - many short-lived busy threads.
 *
 * usage: threads1k [THREADS] [MILLION_ITERATIONS_PER_THREAD] [AT_ONCE]
 * Starts THREADS threads (default 1000), at most AT_ONCE (default 4) alive
 * at a time, each running the dependent integer loop of spin2.c for its
 * share of iterations, then exiting. Under an inheriting profiler every
 * thread brings its own counters and its own side-band records (comm,
 * fork, exit), the load that loses samples when rings are small. Prints
 * "work_s SECONDS" like spin2: the time from the first start to the last
 * join.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static uint64_t iterations;

static void *spin(void *arg)
{
	uint64_t x = (uint64_t)(uintptr_t)arg | 1;

	for (uint64_t i = 0; i < iterations; i++)
		x = x * 6364136223846793005ull + 1442695040888963407ull;
	return (void *)(uintptr_t)x;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	unsigned n = argc > 1 ? (unsigned)strtoul(argv[1], NULL, 10) : 1000;
	double mil = argc > 2 ? strtod(argv[2], NULL) : 0.5;
	unsigned at_once = argc > 3 ? (unsigned)strtoul(argv[3], NULL, 10) : 4;
	pthread_t *t;
	uint64_t sum = 0;
	double t0;

	if (!n || !at_once)
		return 2;
	t = calloc(at_once, sizeof(*t));
	if (!t)
		return 1;
	iterations = (uint64_t)(mil * 1e6);
	t0 = now();
	for (unsigned done = 0; done < n;) {
		unsigned k = n - done < at_once ? n - done : at_once;

		for (unsigned i = 0; i < k; i++)
			if (pthread_create(&t[i], NULL, spin, (void *)(uintptr_t)(done + i)))
				return 1;
		for (unsigned i = 0; i < k; i++) {
			void *r;

			pthread_join(t[i], &r);
			sum += (uint64_t)(uintptr_t)r;
		}
		done += k;
	}
	printf("threads %u checksum %llu\nwork_s %.6f\n", n, (unsigned long long)sum, now() - t0);
	free(t);
	return 0;
}
