/*
 * bench/progs/libc_mix.c - a program that spends its time in glibc and libm
 * (snprintf, strtod, regexec, gmtime_r + strftime, qsort, sin, log1p), so
 * that its samples land in libc's code with its separate debug file: the
 * third program of bench/run's archiving section.
 *
 * Usage: libc_mix [ROUNDS]   (default 20, about 1.5 s on the bench VM)
 */
#include <math.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { ITEMS = 20000 };

static int by_text(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* One round: ITEMS formatted, parsed, matched and dated strings, sorted. */
static double one_round(const regex_t *re)
{
	char **items = malloc(ITEMS * sizeof(*items));
	double acc = 0;
	char buf[256];

	if (!items)
		exit(1);
	for (int i = 0; i < ITEMS; i++) {
		regmatch_t m[3];
		time_t t = (time_t)i * 3600;
		struct tm tm;

		snprintf(buf, sizeof(buf), "item%d.%c %g", (i * 7919) % ITEMS, i & 1 ? 'x' : 'y',
			 i * 0.37);
		items[i] = strdup(buf);
		if (!items[i])
			exit(1);
		acc += strtod(strchr(buf, ' ') + 1, NULL) + sin(i) + log1p(i);
		buf[strcspn(buf, " ")] = '\0';
		if (!regexec(re, buf, 3, m, 0))
			acc += m[1].rm_eo;
		gmtime_r(&t, &tm);
		strftime(buf, sizeof(buf), "%c", &tm);
		acc += (double)strlen(buf);
	}
	qsort(items, ITEMS, sizeof(*items), by_text);
	for (int i = 0; i < ITEMS; i++)
		free(items[i]);
	free(items);
	return acc;
}

int main(int argc, char **argv)
{
	int rounds = argc > 1 ? atoi(argv[1]) : 20;
	double acc = 0;
	regex_t re;

	if (regcomp(&re, "^[a-z]+([0-9]+)\\.(x|y)$", REG_EXTENDED))
		return 1;
	for (int r = 0; r < rounds; r++)
		acc += one_round(&re);
	regfree(&re);
	printf("%f\n", acc);
	return 0;
}
