/*
 * report/diff_int.h - struct tdr_diff, shared by diff.c and diff_render.c.
 *
 * Invariants: rows are sorted by the largest absolute change of share; the
 * topdown arrays of a row point into vals (3 * cat_cnt per row: OLD, NEW,
 * change); strings point into pool or are owned copies.
 */
#ifndef TDREC_REPORT_DIFF_INT_H
#define TDREC_REPORT_DIFF_INT_H

#include "report_int.h"

struct diff_side_info {
	char *file;
	char *plan;
	uint64_t samples;
	uint64_t min_samples;
};

struct tdr_diff {
	enum tdr_report_by by;
	struct diff_side_info side[2]; /* OLD, NEW */
	size_t cat_cnt;		       /* categories compared, 0 = shares only */
	char **cat_names;
	uint32_t *cat_levels;
	size_t old_ev, stride; /* merged sums layout, see diff.c */
	struct strpool pool;
	struct rowtab tab;
	struct tdr_diff_row *rows;
	size_t row_cnt;
	double *vals;
	struct strlist warnings;
};

#endif /* TDREC_REPORT_DIFF_INT_H */
