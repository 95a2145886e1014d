/*
 * tests/common/test_outpath.c - the rule for output paths (tdr_outpath.h):
 * each kind of path a -o may name, made in a temporary directory, and
 * the check of an opened descriptor.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "tdrec/tdr_err.h"
#include "tdrec/tdr_outpath.h"

static char dir[64];

/* dir/name; two buffers in turn, so one call may take two of them. */
static const char *at(const char *name)
{
	static char p[2][128];
	static int i;

	i ^= 1;
	snprintf(p[i], sizeof(p[i]), "%s/%s", dir, name);
	return p[i];
}

static int kind_of(const char *path, enum tdr_out_kind *k)
{
	const char *why = "unset";
	int err = tdr_outpath_kind(path, k, &why);

	if (err)
		assert_non_null(why);
	else
		assert_null(why);
	return err;
}

static void test_outpath__each_kind(void **state)
{
	enum tdr_out_kind k;
	const char *why;
	int fd;

	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/tdr-outpath-XXXXXX");
	assert_non_null(mkdtemp(dir));

	assert_int_equal(kind_of(at("new"), &k), 0); /* absent */
	assert_int_equal(k, TDR_OUT_FILE);
	fd = open(at("file"), O_WRONLY | O_CREAT, 0600);
	assert_true(fd >= 0);
	assert_int_equal(tdr_outpath_check_fd(fd, TDR_OUT_FILE, &why), 0);
	assert_int_equal(tdr_outpath_check_fd(fd, TDR_OUT_IN_PLACE, &why), -TDR_E_NOTREG);
	close(fd);
	assert_int_equal(kind_of(at("file"), &k), 0);
	assert_int_equal(k, TDR_OUT_FILE);
	assert_int_equal(kind_of(dir, &k), -EISDIR);
	assert_int_equal(mkfifo(at("fifo"), 0600), 0);
	assert_int_equal(kind_of(at("fifo"), &k), 0);
	assert_int_equal(k, TDR_OUT_IN_PLACE);
	assert_int_equal(kind_of("/dev/null", &k), 0);
	assert_int_equal(k, TDR_OUT_IN_PLACE);

	/* Links: to a file or to nothing, replaced; to a FIFO, device or
	 * directory, refused. */
	assert_int_equal(symlink(at("file"), at("l-file")), 0);
	assert_int_equal(kind_of(at("l-file"), &k), 0);
	assert_int_equal(k, TDR_OUT_FILE);
	assert_int_equal(symlink(at("nothing"), at("l-none")), 0);
	assert_int_equal(kind_of(at("l-none"), &k), 0);
	assert_int_equal(k, TDR_OUT_FILE);
	assert_int_equal(symlink("/dev/null", at("l-null")), 0);
	assert_int_equal(kind_of(at("l-null"), &k), -TDR_E_NOTREG);
	assert_int_equal(symlink(at("fifo"), at("l-fifo")), 0);
	assert_int_equal(kind_of(at("l-fifo"), &k), -TDR_E_NOTREG);
	assert_int_equal(symlink(dir, at("l-dir")), 0);
	assert_int_equal(kind_of(at("l-dir"), &k), -TDR_E_NOTREG);

	fd = open("/dev/null", O_WRONLY);
	assert_true(fd >= 0);
	assert_int_equal(tdr_outpath_check_fd(fd, TDR_OUT_IN_PLACE, &why), 0);
	assert_int_equal(tdr_outpath_check_fd(fd, TDR_OUT_FILE, &why), -TDR_E_NOTREG);
	close(fd);

	for (const char *const *n = (const char *const[]){ "file", "fifo", "l-file", "l-none",
							   "l-null", "l-fifo", "l-dir", NULL };
	     *n; n++)
		unlink(at(*n));
	rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_outpath__each_kind),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
