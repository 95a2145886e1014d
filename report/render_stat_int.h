/*
 * report/render_stat_int.h - shared by the files that write the output of
 * 'tdrec stat' (render_stat.c, render_stat_text.c, render_stat_json.c).
 * Not visible outside report/.
 *
 * They read only the public view of a stat run (tdrec/stat.h): the run,
 * its events and categories are read once into struct report_stat_doc; the
 * rows come from the view as each is written.
 */
#ifndef TDREC_REPORT_RENDER_STAT_INT_H
#define TDREC_REPORT_RENDER_STAT_INT_H

#include <stdio.h>

#include "tdrec/stat.h"

struct report_stat_doc {
	const struct tdr_stat *st;
	struct tdr_stat_view v;
	const struct tdr_stat_summary *sum;
	struct tdr_stat_event ev[TDR_STAT_MAX_EVENTS];
	struct tdr_stat_category cat[TDR_STAT_MAX_CATS];
	/* What names a category in columns and CSV headers: its key, or on a
	 * hybrid part "key:core" with the PMU's name past "cpu_" ("retiring:atom"). */
	char cat_name[TDR_STAT_MAX_CATS][48];
	int clock_ev; /* the first event counting ns (CPUs utilized), -1 */
};

/* Category i's name (cat_name), "-" for -1. */
const char *tdr_report_stat_cat_name(const struct report_stat_doc *d, int i);

/* render_stat_text.c */
void tdr_report_stat_text_interval_header(const struct report_stat_doc *d, FILE *f);
void tdr_report_stat_text_interval(const struct report_stat_doc *d, const struct tdr_stat_row *r,
				   FILE *f);
void tdr_report_stat_text(const struct report_stat_doc *d, FILE *f);
/* render_stat_json.c: the document, with the interval rows kept by
 * tdr_stat_out. */
void tdr_report_stat_json(const struct report_stat_doc *d, const struct tdr_stat_row *rows,
			  size_t row_cnt, FILE *f);

#endif /* TDREC_REPORT_RENDER_STAT_INT_H */
