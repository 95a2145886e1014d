/*
 * tests/recorder/progs/spin.c - CPU work for recording tests.
 *
 * spin SECONDS [THREADS [EXIT_CODE]]: burn CPU for SECONDS in the main
 * thread (THREADS = 0) or in THREADS threads (the main thread only waits),
 * then exit with EXIT_CODE.
 */
#include <pthread.h>
#include <stdlib.h>
#include <time.h>

static double now_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static void *work(void *arg)
{
	volatile unsigned long x = 0;
	double end = now_s() + *(double *)arg;

	while (now_s() < end)
		for (int i = 0; i < 10000; i++)
			x += (unsigned long)i;
	(void)x;
	return NULL;
}

int main(int argc, char **argv)
{
	double secs = argc > 1 ? atof(argv[1]) : 0.2;
	int n = argc > 2 ? atoi(argv[2]) : 0;
	pthread_t t[16];

	if (n > 16)
		n = 16;
	for (int i = 0; i < n; i++)
		pthread_create(&t[i], NULL, work, &secs);
	if (!n)
		work(&secs);
	for (int i = 0; i < n; i++)
		pthread_join(t[i], NULL);
	return argc > 3 ? atoi(argv[3]) : 0;
}
