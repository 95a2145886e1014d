/*
 * bench/progs/spin2.c - CPU-bound benchmark program with N busy threads.
 *
 * usage: spin2 [THREADS] [MILLION_ITERATIONS_PER_THREAD]
 * Each thread runs the same dependent integer loop (no memory traffic, no
 * syscalls), so wall time measures only the program plus profiler overhead.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

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

	for (int i = 0; i < threads; i++) {
		res[i] = (uint64_t)i + 1;
		if (pthread_create(&tid[i], NULL, thread_main, &res[i])) {
			perror("pthread_create");
			return 1;
		}
	}
	for (int i = 0; i < threads; i++) {
		pthread_join(tid[i], NULL);
		total ^= res[i];
	}
	printf("spin2: %llx\n", (unsigned long long)total);
	return 0;
}
