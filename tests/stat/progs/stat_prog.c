/*
 * tests/stat/progs/stat_prog.c - programs for the 'tdrec stat' tests.
 *
 *   stat_prog sleepspin SLEEP_MS SPIN_MS [EXIT]  sleep, then burn SPIN_MS of
 *                                                CPU time, exit with EXIT
 *   stat_prog threads N SPIN_MS                  N threads named worker-1..N
 *                                                each burn SPIN_MS of CPU
 *   stat_prog signal SIGNO                       die of signal SIGNO
 *
 * CPU time is measured with CLOCK_THREAD_CPUTIME_ID, so the work is the
 * same however much the machine is shared.
 */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

static double cpu_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

static void spin_ms(double ms)
{
	volatile unsigned long x = 0;
	double end = cpu_ms() + ms;

	while (cpu_ms() < end)
		for (int i = 0; i < 10000; i++)
			x += (unsigned long)i;
	(void)x;
}

struct worker {
	pthread_t t;
	char name[16];
	double ms;
};

static void *work(void *arg)
{
	struct worker *w = arg;

	prctl(PR_SET_NAME, w->name);
	spin_ms(w->ms);
	return NULL;
}

int main(int argc, char **argv)
{
	if (argc >= 4 && !strcmp(argv[1], "sleepspin")) {
		usleep((useconds_t)atoi(argv[2]) * 1000);
		spin_ms(atof(argv[3]));
		return argc > 4 ? atoi(argv[4]) : 0;
	}
	if (argc >= 4 && !strcmp(argv[1], "threads")) {
		int n = atoi(argv[2]);
		struct worker w[8];

		if (n < 1 || n > 8)
			return 2;
		for (int i = 0; i < n; i++) {
			snprintf(w[i].name, sizeof(w[i].name), "worker-%d", i + 1);
			w[i].ms = atof(argv[3]);
			pthread_create(&w[i].t, NULL, work, &w[i]);
		}
		spin_ms(atof(argv[3]) / 4);
		for (int i = 0; i < n; i++)
			pthread_join(w[i].t, NULL);
		return 0;
	}
	if (argc >= 3 && !strcmp(argv[1], "signal")) {
		signal(atoi(argv[2]), SIG_DFL);
		raise(atoi(argv[2]));
		return 1;
	}
	fprintf(stderr, "usage: stat_prog sleepspin|threads|signal ...\n");
	return 2;
}
