/*
 * tests/support/sysfs_test_util.h - helpers shared by the recorder tests
 * (plan, session, stat): paths of the fake sysfs trees in
 * tests/fixtures/sysfs, throw-away sysfs trees, and a log sink that keeps
 * the messages so tests can check what an error names.
 * A test that includes it defines TDR_SOURCE_DIR_DEFAULT (the source tree,
 * used when the TDR_SOURCE_DIR environment variable is not set).
 */
#ifndef TDREC_TESTS_SYSFS_TEST_UTIL_H
#define TDREC_TESTS_SYSFS_TEST_UTIL_H

#include <ftw.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tdrec/plan.h"
#include "support/test_log.h"
#include "tdrec/tdr_log.h"

/* Path of tests/fixtures/sysfs/<name> (static buffer, one at a time). */
static inline const char *fixture(const char *name)
{
	static char path[4096];
	const char *src = getenv("TDR_SOURCE_DIR");

	snprintf(path, sizeof(path), "%s/tests/fixtures/sysfs/%s",
		 src ? src : TDR_SOURCE_DIR_DEFAULT, name);
	return path;
}

#define PLAN_TEST_PERIOD 100003

/* The sampling plan options the plan tests build with, on fake tree
 * <name>: a period of PLAN_TEST_PERIOD, inherit, enable_on_exec. The root
 * is a copy, so a later fixture() call does not change it. */
static inline struct tdr_plan_opts plan_opts_on(const char *tree)
{
	static char root[4096];
	struct tdr_plan_opts o = {
	    .sample_period = PLAN_TEST_PERIOD,
	    .inherit = true,
	    .enable_on_exec = true,
	    .clockid = -1,
	};

	snprintf(root, sizeof(root), "%s", fixture(tree));
	o.sysfs_root = root;
	return o;
}

/* Keep every message, debug ones too, in test_log_text from empty. */
static inline void log_reset(void)
{
	test_log_capture(TDR_LOG_DEBUG);
}

/* Write root/rel (creating directories) with text. */
static inline void tree_write(const char *root, const char *rel, const char *text)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	for (char *p = path + strlen(root) + 1; (p = strchr(p, '/')); p++) {
		*p = '\0';
		mkdir(path, 0755);
		*p = '/';
	}
	f = fopen(path, "w");
	if (!f)
		abort();
	fputs(text, f);
	fclose(f);
}

/* A new empty directory under /tmp; returns a static path. */
static inline const char *tree_new(void)
{
	static char root[64];

	strcpy(root, "/tmp/tdr_sysfs_XXXXXX");
	if (!mkdtemp(root))
		abort();
	return root;
}

static inline int tree_rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

static inline void tree_rm(const char *root)
{
	nftw(root, tree_rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

#endif /* TDREC_TESTS_SYSFS_TEST_UTIL_H */
