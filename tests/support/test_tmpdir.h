/*
 * tests/support/test_tmpdir.h - a fresh directory under /tmp for a test,
 * and its removal with everything in it.
 *
 * Static inline helpers for the recorder's unit tests that make files
 * (test_build_id.c, test_dso_set.c). Test code only.
 */
#ifndef TDREC_TESTS_TMPDIR_H
#define TDREC_TESTS_TMPDIR_H

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#define TEST_TMPDIR_SZ 64

/* Make /tmp/tdrec-test-NAME.XXXXXX into dir (TEST_TMPDIR_SZ bytes).
 * Returns false when it cannot be made. */
static inline bool test_tmpdir_make(char *dir, const char *name)
{
	snprintf(dir, TEST_TMPDIR_SZ, "/tmp/tdrec-test-%s.XXXXXX", name);
	return mkdtemp(dir) != NULL;
}

/* Remove dir and everything below it (failures ignored: a teardown). */
static inline void test_tmpdir_remove(const char *dir)
{
	char cmd[TEST_TMPDIR_SZ + 16];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd)) {
	}
}

#endif /* TDREC_TESTS_TMPDIR_H */
