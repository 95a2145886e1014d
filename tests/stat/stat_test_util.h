/*
 * tests/stat/stat_test_util.h - helpers shared by the 'tdrec stat' unit
 * tests: counting plans from the fake sysfs trees, the schema stat builds
 * from them, synthetic group reads; fixture paths and the log sink come
 * from tests/support/sysfs_test_util.h.
 */
#ifndef TDREC_STAT_TEST_UTIL_H
#define TDREC_STAT_TEST_UTIL_H

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stat_int.h"
#include "support/sysfs_test_util.h"
#include "tdrec/report.h"
#include "tdrec/tdr_log.h"

/* The plan options tdrec stat uses for a launched program (stat.c
 * choose_plan), on a fake tree. */
static inline struct tdr_plan_opts stat_popts(const char *tree)
{
	struct tdr_plan_opts o = {
	    .sysfs_root = fixture(tree),
	    .counting = true,
	    .inherit = true,
	    .enable_on_exec = true,
	    .clockid = -1,
	};
	return o;
}

/* A counting plan of kind from tree (aborts the test on failure). */
static inline struct tdr_plan *stat_plan(const char *tree, enum tdr_plan_kind kind)
{
	struct tdr_plan_opts o = stat_popts(tree);
	struct tdr_plan *p = NULL;

	if (tdr_plan__choose(&o, kind, &p))
		abort();
	return p;
}

/* A group read of n values with times. */
static inline struct tdr_group_read group_read(uint64_t ena, uint64_t run, size_t n,
					       const uint64_t *vals)
{
	struct tdr_group_read rd;

	memset(&rd, 0, sizeof(rd));
	rd.time_enabled = ena;
	rd.time_running = run;
	rd.value_cnt = n;
	memcpy(rd.values, vals, n * sizeof(*vals));
	return rd;
}

/* Index of category name in sc, or -1. */
static inline int cat_idx(const struct stat_schema *sc, const char *name)
{
	for (size_t i = 0; i < sc->meta.category_cnt; i++)
		if (!strcmp(sc->meta.categories[i].name, name))
			return (int)i;
	return -1;
}

#endif /* TDREC_STAT_TEST_UTIL_H */
