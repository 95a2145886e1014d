/*
 * tests/parser/test_pd_shrink.c - a perf.data file that shrinks while it is
 * read (cut by someone, `cp` of a smaller file over it) ends the read where
 * it shrank, with one warning and the status "truncated", instead of
 * SIGBUS (issue 17, finding 5, for the mapped perf.data reader;
 * common/tdr_mapguard.c).
 *
 * tests/data/software-group.perf.data: 90 samples in a data section from
 * byte 584 to 13,320. It is opened (header and features read), then cut to
 * 8,192 bytes, then run: the samples in the first 8,192 bytes come out, the
 * rest of the data section reads as zeros.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "tdrec/parser.h"
#include "support/test_log.h"

static int count(const struct tdr_sample *s, void *arg)
{
	(void)s;
	++*(size_t *)arg;
	return 0;
}

static size_t samples_of(const char *path)
{
	struct tdr_parser *p;
	size_t n = 0;

	assert_int_equal(tdr_parser__open(path, &p), 0);
	assert_int_equal(tdr_parser__run(p, count, &n), 0);
	tdr_parser__free(p);
	return n;
}

static void test_pd_shrink__cut_while_read(void **state)
{
	const char *src = getenv("TDR_SOURCE_DIR");
	char path[] = "/tmp/tdrec-pd-shrink-XXXXXX", cmd[4200];
	const struct tdr_file_status *st;
	struct tdr_parser *p;
	size_t whole, n = 0;
	int fd;

	(void)state;
	assert_non_null(src);
	fd = mkstemp(path);
	assert_true(fd >= 0);
	close(fd);
	snprintf(cmd, sizeof(cmd), "cp '%s/tests/data/software-group.perf.data' '%s'", src, path);
	assert_int_equal(system(cmd), 0);
	whole = samples_of(path);
	assert_int_equal(whole, 90);

	test_log_start();
	assert_int_equal(tdr_parser__open(path, &p), 0);
	assert_int_equal(truncate(path, 8192), 0);
	assert_int_equal(tdr_parser__run(p, count, &n), 0);
	st = tdr_parser__file_status(p);
	assert_true(st->truncated);
	assert_true(st->intact_sz <= 8192);
	assert_true(n > 0 && n < whole);
	assert_non_null(strstr(test_log_text, "shrank while it was read (18456 bytes, now 8192)"));
	/* One line, and no "bad size" record warning for the zeros. */
	assert_null(strstr(test_log_text, "bad size"));
	tdr_parser__free(p);
	test_log_stop();
	unlink(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pd_shrink__cut_while_read),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
