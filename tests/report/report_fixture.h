/*
 * tests/report/report_fixture.h - hand-built recordings for report tests.
 *
 * Responsibility: struct tdr_meta values written out by hand (TopDown level 1,
 * level 1 + 2, the software plan, and a generic-counter formula), so the
 * report's math is checked against formulas the test states itself, with no
 * parser, recorder or format helpers involved; plus a fake symbolizer whose
 * answers come from a table and which counts its calls.
 */
#ifndef TDREC_TESTS_REPORT_FIXTURE_H
#define TDREC_TESTS_REPORT_FIXTURE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "report_int.h" /* report/: the report API the product keeps private */

/* Event indexes of the TopDown fixtures. */
enum {
	EV_SLOTS = 0,
	EV_CYCLES,
	EV_RET,
	EV_BAD,
	EV_FE,
	EV_BE,
	EV_HEAVY, /* level 2 only from here */
	EV_BRM,
	EV_FLAT,
	EV_MEM,
	EV_L2_CNT,
	EV_L1_CNT = EV_HEAVY,
};

/* Event indexes of the software fixture. */
enum { SW_CPU = 0, SW_TASK, SW_FAULTS, SW_CS, SW_CNT };

/* Category indexes of the level-2 fixture (level 1 uses the first four). */
enum {
	CAT_RET = 0,
	CAT_BAD,
	CAT_FE,
	CAT_BE,
	CAT_HEAVY,
	CAT_BRM,
	CAT_FLAT,
	CAT_MEM,
	CAT_LIGHT,
	CAT_MCLEAR,
	CAT_FBW,
	CAT_CORE,
	CAT_L2_CNT,
};

struct fx_meta {
	struct tdr_meta meta;
	struct tdr_event_desc events[EV_L2_CNT];
	struct tdr_category cats[CAT_L2_CNT];
	struct tdr_term terms[64];
	size_t term_cnt;
};

void fx_meta_l1(struct fx_meta *m);
void fx_meta_l2(struct fx_meta *m);
void fx_meta_sw(struct fx_meta *m);
/* One event pair and a generic formula: c0 = (2*a - b) / (4*b). */
void fx_meta_generic(struct fx_meta *m);

/* A report from m with opts (NULL = defaults); asserts success. */
struct tdr_report *fx_report(const struct fx_meta *m, const struct tdr_report_opts *opts);
/* Add samples to the row (name, dso), deltas as given (event_cnt values). */
void fx_add(struct tdr_report *r, const char *name, const char *dso, const uint64_t *deltas,
	    uint64_t samples);
/* Row with this name (and dso when not NULL), or NULL. */
const struct tdr_report_row *fx_row(const struct tdr_report *r, const char *name, const char *dso);
/* The row with this name; the test fails when there is none. */
const struct tdr_report_row *fx_row_named(const struct tdr_report *r, const char *name);
/* The index of the category with this name; the test fails when there is none. */
int fx_cat(const struct tdr_report *r, const char *name);
/* A tdr_parser__run callback: each sample into the report ctx. */
int fx_to_report(const struct tdr_sample *s, void *ctx);

/* The fake symbolizer: an address table per object path. */
struct fx_sym_entry {
	const char *path;
	uint64_t lo, hi; /* file offsets [lo, hi) */
	enum tdr_sym_status status;
	const char *function;
	const char *inlined; /* innermost inlined function, NULL = none */
	const char *file;
	uint32_t line;
};

struct fx_syms {
	const struct fx_sym_entry *entries;
	size_t cnt;
	size_t lookups, kernel_lookups;
	struct tdr_inline_frame frame; /* storage for one inline frame */
	struct tdr_report_symbols rs;
	const char *kernel_function; /* NULL: kernel symbols not usable */
};

void fx_syms_init(struct fx_syms *s, const struct fx_sym_entry *entries, size_t cnt);

/* Rendered output in a heap string (caller frees). */
char *fx_render(const struct tdr_report *r, enum tdr_report_format fmt, bool colour, size_t limit);
char *fx_render_diff(const struct tdr_diff *d, enum tdr_report_format fmt, size_t limit);
/* text parsed with json_mini.c (caller frees with jm_free); fails the
 * test, saying where, when it is not valid JSON. */
struct jm;
struct jm *fx_json(const char *text);
/* Assert every line of text has at most width bytes. */
void fx_assert_width(const char *text, size_t width);

#endif /* TDREC_TESTS_REPORT_FIXTURE_H */
