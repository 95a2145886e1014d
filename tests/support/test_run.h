/*
 * tests/support/test_run.h - run a shell command from a cmocka test and
 * keep what it printed.
 *
 * The end-to-end tests drive tdrec, perf and the compiler through the
 * shell; this is their one way of doing it. Include after <cmocka.h>.
 */
#ifndef TDREC_TESTS_RUN_H
#define TDREC_TESTS_RUN_H

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>

/* Run the command made from fmt and ap with popen. Its standard output
 * goes to *out (NUL-terminated, caller frees) unless out is NULL. Returns
 * its exit status, or 128 + the signal that ended it. */
static inline int test_vrun(char **out, const char *fmt, va_list ap)
{
	char cmd[16384];
	size_t cap = 65536, len = 0, n;
	char *buf = malloc(cap);
	FILE *p;
	int st;

	assert_non_null(buf);
	assert_true(vsnprintf(cmd, sizeof(cmd), fmt, ap) < (int)sizeof(cmd));
	p = popen(cmd, "r");
	assert_non_null(p);
	while ((n = fread(buf + len, 1, cap - len - 1, p)) > 0) {
		len += n;
		if (cap - len < 4096) {
			buf = realloc(buf, cap *= 2);
			assert_non_null(buf);
		}
	}
	buf[len] = '\0';
	st = pclose(p);
	if (out)
		*out = buf;
	else
		free(buf);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

static inline int test_run(char **out, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static inline int test_run(char **out, const char *fmt, ...)
{
	va_list ap;
	int st;

	va_start(ap, fmt);
	st = test_vrun(out, fmt, ap);
	va_end(ap);
	return st;
}

#endif /* TDREC_TESTS_RUN_H */
