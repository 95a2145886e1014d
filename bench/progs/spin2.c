/*
 * bench/progs/spin2.c - CPU-bound benchmark program with N busy threads.
 *
 * usage: spin2 [THREADS] [MILLION_ITERATIONS_PER_THREAD]
 * Each thread runs the same dependent integer loop (no memory traffic, no
 * syscalls), so wall time measures only the program plus profiler overhead.
 * The main thread is one of the THREADS (it starts THREADS - 1 others), so a
 * profiler that does not follow new threads (perf record with a sample-read
 * group) still sees one busy thread. The last line of output gives the time
 * the work took, from the first thread start to the last join, measured by
 * the program itself: it leaves out the profiler's start-up and tear-down.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static uint64_t iterations;

__attribute__((noinline)) static uint64_t spin_work(uint64_t n, uint64_t seed)
{
	uint64_t a = seed | 1, b = 7;

	for (uint64_t i = 0; i < n; i++) {
		a = a * 6364136223846793005ull + b;
		b ^= a >> 31;
	}
	return a ^ b;
}

static void *thread_main(void *arg)
{
	uint64_t *out = arg;

	*out = spin_work(iterations, *out);
	return NULL;
}

int main(int argc, char **argv)
{
	int threads = argc > 1 ? atoi(argv[1]) : 2;
	uint64_t total = 0;

	iterations = (argc > 2 ? strtoull(argv[2], NULL, 10) : 200) * 1000000ull;
	if (threads < 1 || threads > 64) {
		fprintf(stderr, "usage: spin2 [THREADS 1..64] [MILLION_ITERATIONS]\n");
		return 2;
	}
	pthread_t tid[64];
	uint64_t res[64];
	struct timespec t0, t1;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	res[0] = 1;
	for (int i = 1; i < threads; i++) {
		res[i] = (uint64_t)i + 1;
		if (pthread_create(&tid[i], NULL, thread_main, &res[i])) {
			perror("pthread_create");
			return 1;
		}
	}
	thread_main(&res[0]);
	total ^= res[0];
	for (int i = 1; i < threads; i++) {
		pthread_join(tid[i], NULL);
		total ^= res[i];
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	printf("spin2: %llx\n", (unsigned long long)total);
	printf("work_s %.6f\n", (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9);
	return 0;
}
