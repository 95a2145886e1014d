/*
 * report/include/tdrec/report.h - per-function TopDown reports and diffs.
 *
 * Responsibility: aggregate attributed samples into rows (functions, inlined
 * functions, source lines, objects, threads, processes), compute each row's
 * TopDown categories through the recording's own formulas (struct
 * tdr_category in format.h, never from event names), mark rows with too few
 * samples and highlight bottlenecks, sort, and render text, JSON or CSV; and
 * compare two reports function by function (diff).
 *
 * Layers, each usable on its own (so tests need no parser or symbolizer):
 *   rows:    tdr_report__new(meta) -> tdr_report__add(key strings, deltas)
 *   samples: tdr_report__add_sample(parser sample) -> tdr_report__resolve(symbols)
 *            (samples are first summed per unique address; each address is
 *            symbolized once and folded into its row)
 *   table:   tdr_report__finish -> __row_cnt / __row / __totals, __sort
 *   output:  tdr_report__render(text | json | csv) ; tdr_diff__new -> __render
 *   info:    tdr_report_info(parser) writes what a recording holds.
 *   stat:    struct tdr_stat_out writes 'tdrec stat' from the stat view
 *            (tdrec/stat.h): interval rows as they happen, then the run.
 *   files:   tdr_report__load(path) does all of the above for one recording.
 *
 * Objects and lifecycle: tdr_report__new -> __add / __add_sample (repeat) ->
 * __resolve -> __finish -> queries, __sort, __render -> __free. Adding after
 * __finish is an error (-EINVAL).
 * Ownership and threads: the report copies what it needs from meta and from
 * every key and symbol (strings are interned), so parser and symbolizer may be
 * freed after __resolve. Rows returned are borrowed until __free or the next
 * __sort. One report per thread.
 * See: docs/report.md (attribution, columns, thresholds, JSON/CSV schemas).
 */
#ifndef TDREC_REPORT_H
#define TDREC_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "tdrec/format.h"
#include "tdrec/parser.h"
#include "tdrec/stat.h"
#include "tdrec/symbolize.h"

struct tdr_report;
struct tdr_diff;

/* What a row is. */
enum tdr_report_by {
	TDR_BY_FUNCTION = 0, /* (object, physical function): the default */
	TDR_BY_INLINE,	     /* (object, innermost inlined function, function it is inlined into) */
	TDR_BY_LINE,	     /* (object, function, source file:line of the address) */
	TDR_BY_DSO,	     /* mapped object */
	TDR_BY_THREAD,	     /* (pid, tid) */
	TDR_BY_PROCESS,	     /* pid */
};

/* "function", "inline", "lines", "dso", "thread", "process". */
const char *tdr_report_by_name(enum tdr_report_by by);

enum tdr_sort_key {
	TDR_SORT_DEFAULT = 0, /* slots share with TopDown, else samples */
	TDR_SORT_SAMPLES,     /* samples (and share, the same order) */
	TDR_SORT_SLOTS,	      /* share of slots (samples without TopDown) */
	TDR_SORT_CATEGORY,    /* a category's fraction of the row's slots; idx */
	TDR_SORT_EVENT,	      /* an event's summed delta; idx */
	TDR_SORT_NAME,	      /* row name, ascending */
};

struct tdr_report_sort {
	enum tdr_sort_key key;
	size_t idx; /* category or event index in meta, for CATEGORY and EVENT */
};

/*
 * Parse a --sort argument against a recording's metadata: "samples", "share",
 * "slots", "name", any category name of meta ("be-bound", "mem-bound"), or
 * any event name of meta ("page-faults").
 * Returns: 0, or -TDR_E_USAGE when the name matches nothing.
 */
int tdr_report_sort__parse(const struct tdr_meta *meta, const char *text,
			   struct tdr_report_sort *out);

/* The same against a report's own events and categories (after __load). */
int tdr_report__parse_sort(const struct tdr_report *r, const char *text,
			   struct tdr_report_sort *out);

/* Which samples count. An empty list lets everything through. Lists are borrowed
 * during tdr_report__new only (copied). */
struct tdr_report_filter {
	const uint32_t *pids;
	size_t pid_cnt;
	const uint32_t *tids;
	size_t tid_cnt;
	const char *const *dsos; /* full path or basename of the mapped object */
	size_t dso_cnt;
	const char *const *comms; /* thread name at the sample */
	size_t comm_cnt;
};

#define TDR_REPORT_MIN_SAMPLES_DEFAULT 30
#define TDR_REPORT_HOT_SHARE 0.05 /* bottlenecks are flagged only in rows above this share */

struct tdr_report_opts {
	enum tdr_report_by by;
	struct tdr_report_filter filter;
	double min_share;     /* rows below this fraction of samples are hidden (0 = none) */
	uint64_t min_samples; /* rows with fewer samples are low-confidence (0 = no marking) */
	struct tdr_report_sort sort;
};

/* Defaults: by function, no filter, min_share 0, min_samples 30, default sort. */
void tdr_report_opts__init(struct tdr_report_opts *opts);

/* A row's identity. Unused fields are NULL/0. Strings are copied. */
struct tdr_row_key {
	const char *name;	  /* function, "[unknown] path", thread name, object path */
	const char *dso;	  /* object path, NULL when none */
	const char *inlined_into; /* TDR_BY_INLINE: the function the name is inlined into */
	const char *file;	  /* TDR_BY_LINE: source file, NULL when unknown */
	uint32_t line;
	uint32_t pid, tid; /* TDR_BY_THREAD / TDR_BY_PROCESS */
};

/* A finished row (or the totals). Borrowed from the report. */
struct tdr_report_row {
	const char *name;
	const char *dso;
	const char *inlined_into;
	const char *file;
	uint32_t line;
	uint32_t pid, tid;
	uint64_t samples;
	const uint64_t *events; /* summed deltas, one per meta event */
	double share;		/* fraction of the (filtered) samples, 0..1 */
	double slots_share;	/* fraction of all slots, NAN without TopDown */
	/* One fraction of the row's own slots per category (meta order), NAN
	 * where the row has no slots; NULL when the plan has no categories. */
	const double *topdown;
	bool low_confidence; /* samples < min_samples */
	int bottleneck;	     /* level-1 category index, or -1 */
	int bottleneck_l2;   /* level-2 child of bottleneck above its threshold, or -1 */
};

/*
 * Make an empty report for a recording described by meta (events and
 * categories are copied; meta is borrowed for the call). Recording details
 * (command, host, CPU, plan, notes as warnings) are taken from meta too.
 * Returns: 0, -ENOMEM, -EINVAL (opts out of range, a category term naming an
 * event that does not exist).
 */
int tdr_report__new(const struct tdr_meta *meta, const struct tdr_report_opts *opts,
		    struct tdr_report **out);

/*
 * Add samples (usually 1) whose summed deltas (one per meta event) belong to
 * the row key. This is the layer under __add_sample; filters do not apply.
 * Returns: 0, -ENOMEM, -EINVAL after __finish.
 */
int tdr_report__add(struct tdr_report *r, const struct tdr_row_key *key, const uint64_t *deltas,
		    uint64_t samples);

/*
 * Add one parser sample: apply the filters, then sum it into the table of
 * unique (mapping, offset) addresses (or the thread/process/object when the
 * report is by one of those). s->map must stay valid until __resolve (the
 * parser keeps mappings until it is freed). No allocation unless the address
 * is new. Returns: 0, -ENOMEM, -EINVAL after __finish.
 */
int tdr_report__add_sample(struct tdr_report *r, const struct tdr_sample *s);

/* Where __resolve gets symbols: the real symbolizer, or a fake in tests. */
struct tdr_report_symbols {
	int (*lookup)(void *ctx, const struct tdr_dso_ref *dso, uint64_t file_off,
		      struct tdr_sym *out);
	int (*lookup_kernel)(void *ctx, uint64_t ip, struct tdr_sym *out);
	void *ctx;
};


/*
 * Symbolize every unique address added by __add_sample once and fold it into
 * its row (by the report's mode); counts unsymbolized samples and changed or
 * missing objects for the warnings. May be called once, before __finish;
 * syms may be NULL for reports by object, thread or process.
 * Returns: 0, -ENOMEM, or what a lookup returned.
 */
int tdr_report__resolve(struct tdr_report *r, const struct tdr_report_symbols *syms);

/* Recording facts that are not in meta. Each may be NULL. */
void tdr_report__set_run(struct tdr_report *r, const char *file, enum tdr_source_kind source,
			 const struct tdr_run_end *end);

/*
 * Turn the parser's statistics and the file's state into warnings: lost
 * samples, re-based deltas by reason, multiplexing, unmapped samples, bad
 * frames, truncated file. Either pointer may be NULL.
 */
void tdr_report__note_parse(struct tdr_report *r, const struct tdr_parse_stats *st,
			    const struct tdr_file_status *fs);

/*
 * The recording's counted totals: ev[e] (cnt entries, aligned with meta's
 * events; borrowed for the call; NULL for none) is what event e counted
 * over the whole run (struct tdr_event_totals, has_counted). __finish
 * compares each with the event's attributed total, the sum of its deltas
 * over every sample given to __add_sample before filters, and adds one
 * note naming the events the samples attribute clearly less of (below
 * TDR_REPORT_ATTRIBUTED_MIN, by at least TDR_REPORT_UNATTRIBUTED_MIN_GAP
 * units), with both numbers and the reason. docs/report.md "Counted totals".
 * Returns: 0, -EINVAL after __finish.
 */
#define TDR_REPORT_ATTRIBUTED_MIN 0.90
/* --lines: a note when at least this fraction of the samples has no source
 * line (objects without a DWARF line table). */
#define TDR_REPORT_NO_LINE_NOTE 0.05
#define TDR_REPORT_UNATTRIBUTED_MIN_GAP 100 /* fewer unattributed events are noise */
int tdr_report__set_counted(struct tdr_report *r, const struct tdr_event_totals *ev, size_t cnt);

/* Event idx's counted total: true with *out set, false when the recording
 * has none for it. */
bool tdr_report__counted(const struct tdr_report *r, size_t idx, uint64_t *out);
/* Event idx's attributed total (before filters; a report built with
 * __add alone: the sum of its rows). 0 before __finish. */
uint64_t tdr_report__attributed(const struct tdr_report *r, size_t idx);
/* The attributed share of the counted slots (TopDown plans), NAN when the
 * plan has no slots or the recording no counted slots, or before __finish. */
double tdr_report__slots_attributed(const struct tdr_report *r);

/* Add a warning line (shown in the header and in the JSON warnings). */
void tdr_report__warn(struct tdr_report *r, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/*
 * Compute every row: shares, categories, low-confidence and bottleneck flags,
 * the totals; then sort by opts.sort and hide rows under min_share.
 * Returns: 0 or -ENOMEM.
 */
int tdr_report__finish(struct tdr_report *r);

/* Re-sort a finished report. Returns 0 or -EINVAL (idx out of range, not finished). */
int tdr_report__sort(struct tdr_report *r, const struct tdr_report_sort *sort);

/* Visible rows (after min_share), sorted; and the totals of all rows. */
size_t tdr_report__row_cnt(const struct tdr_report *r);
const struct tdr_report_row *tdr_report__row(const struct tdr_report *r, size_t idx);
const struct tdr_report_row *tdr_report__totals(const struct tdr_report *r);

/* The schema the report was made with (borrowed). */
size_t tdr_report__event_cnt(const struct tdr_report *r);
const char *tdr_report__event_name(const struct tdr_report *r, size_t idx);
size_t tdr_report__category_cnt(const struct tdr_report *r);
const char *tdr_report__category_name(const struct tdr_report *r, size_t idx);
uint32_t tdr_report__category_level(const struct tdr_report *r, size_t idx);
size_t tdr_report__warning_cnt(const struct tdr_report *r);
const char *tdr_report__warning(const struct tdr_report *r, size_t idx);

/* Samples offered to __add_sample, and how many passed the filters. */
uint64_t tdr_report__samples_seen(const struct tdr_report *r);
uint64_t tdr_report__samples_kept(const struct tdr_report *r);

/*
 * Threshold above which category idx is a bottleneck (fraction of slots), or
 * NAN when the category is never flagged (retiring and its children,
 * unknown names): the TopDown table's (tdrec/topdown.h), which tdrec stat
 * reads too. See docs/report.md "Thresholds".
 */
double tdr_report__threshold(const struct tdr_report *r, size_t idx);

enum tdr_report_format {
	TDR_FMT_TEXT = 0,
	TDR_FMT_JSON,
	TDR_FMT_CSV,
};

struct tdr_render_opts {
	enum tdr_report_format fmt;
	bool colour;	/* text only: ANSI colour (the caller checks isatty and NO_COLOR) */
	size_t limit;	/* at most this many rows, 0 = all */
	unsigned width; /* text width in columns, 0 = 100; at least
			 * TDR_RENDER_WIDTH_MIN, TDR_RENDER_WIDTH_MAX = no limit */
};

#define TDR_RENDER_WIDTH_DEFAULT 100
#define TDR_RENDER_WIDTH_MIN 60
#define TDR_RENDER_WIDTH_MAX 4096

/* Write a finished report to out. Returns: 0, -EINVAL (not finished), -EIO. */
int tdr_report__render(const struct tdr_report *r, const struct tdr_render_opts *o, FILE *out);

void tdr_report__free(struct tdr_report *r);

/* ---------------------------------------------------------------------------
 * Whole files.
 */
struct tdr_report_load_opts {
	/* Kernel symbols apply when the recording's boot_id equals this one
	 * (the caller reads /proc/sys/kernel/random/boot_id); NULL = never. */
	const char *boot_id;
	const char *kallsyms_path;     /* NULL = /proc/kallsyms */
	const char *kernel_notes_path; /* the running kernel's build-id; NULL = /sys/kernel/notes */
	/* tdrec's cache directory: the per-boot kernel symbol cache
	 * (tdr_kallsyms_opts) and the debug file cache of line and inline
	 * reports (tdr_symbolizer_opts); NULL or "" = no cache. */
	const char *cache_dir;
};

/*
 * Open a .tdr or perf.data file, run the parser into a new report, symbolize,
 * add the warnings and finish. Returns: 0 or the parser's / symbolizer's
 * error (-errno, -TDR_E_*); *out is set only on success.
 */
int tdr_report__load(const char *path, const struct tdr_report_opts *opts,
		     const struct tdr_report_load_opts *lopts, struct tdr_report **out);

/* ---------------------------------------------------------------------------
 * Diff: two finished reports by function, matched by (object basename,
 * name), never by address.
 */
struct tdr_diff_side {
	uint64_t samples;
	double share;	       /* 0 when the function is absent on this side */
	const double *topdown; /* category fractions (OLD's order), NULL when not compared */
};

struct tdr_diff_row {
	const char *name;
	const char *dso;	  /* basename */
	const char *inlined_into; /* by inline: the function it is inlined into */
	struct tdr_diff_side old, new;
	double share_change;	      /* new.share - old.share */
	const double *topdown_change; /* per category, new - old (NAN if either has no slots) */
	bool only_old, only_new;
};

/*
 * Compare two finished reports (both by function or both by inline). Category
 * changes are computed when both plans have the same category names;
 * otherwise only shares are compared and a warning says why. Rows are sorted
 * by the largest absolute change of share. old and new are borrowed for the
 * call; file names are copied for the summary line (may be NULL).
 * Returns: 0, -ENOMEM, -EINVAL (unfinished reports or different modes).
 */
int tdr_diff__new(const struct tdr_report *old, const char *old_file, const struct tdr_report *new,
		  const char *new_file, struct tdr_diff **out);

size_t tdr_diff__row_cnt(const struct tdr_diff *d);
const struct tdr_diff_row *tdr_diff__row(const struct tdr_diff *d, size_t idx);
/* Categories compared (0 when plans differ or have no TopDown). */
size_t tdr_diff__category_cnt(const struct tdr_diff *d);
const char *tdr_diff__category_name(const struct tdr_diff *d, size_t idx);
size_t tdr_diff__warning_cnt(const struct tdr_diff *d);
const char *tdr_diff__warning(const struct tdr_diff *d, size_t idx);

/* Text or JSON (CSV is -EINVAL). Returns 0, -EINVAL or -EIO. */
int tdr_diff__render(const struct tdr_diff *d, const struct tdr_render_opts *o, FILE *out);

void tdr_diff__free(struct tdr_diff *d);

/* ---------------------------------------------------------------------------
 * What a recording holds ('tdrec info').
 */
struct tdr_info_opts {
	const char *path;	     /* the file as the user named it (shown only) */
	enum tdr_report_format fmt; /* TDR_FMT_TEXT or TDR_FMT_JSON */
	bool verbose;		     /* text: every event's attr and ids */
};

/*
 * Read the open recording p once (samples per sampler event, the sum of each
 * event's deltas, distinct threads with samples) and write its metadata,
 * those counts and the file's health to out: text, or one JSON object (keys
 * in docs/format.md section 13). p is borrowed for the call and is read to
 * its end. Write errors are left in out (ferror) for the caller.
 * Returns: 0, -EINVAL (fmt), -ENOMEM, or the error of tdr_parser__run.
 */
int tdr_report_info(struct tdr_parser *p, const struct tdr_info_opts *o, FILE *out);

/* ---------------------------------------------------------------------------
 * The output of 'tdrec stat' (render_stat*.c), from the read-only view of a
 * stat run (tdrec/stat.h); the schemas are in docs/stat.md.
 *   tdr_stat_out__init -> opts.on_interval = tdr_stat_out__interval,
 *   opts.interval_arg = the out (during tdr_stat__run) -> __render -> __clear
 */
struct tdr_stat_out {
	FILE *f;		    /* borrowed */
	enum tdr_report_format fmt; /* text, JSON (one document at the end) or CSV */
	bool header_done;	    /* text interval header / CSV header written */
	struct tdr_stat_row *rows;  /* JSON: the interval rows, kept for the document */
	size_t row_cnt, row_cap;
	int write_err; /* -errno of the first failed write (not logged), else 0 */
};

void tdr_stat_out__init(struct tdr_stat_out *o, FILE *f, enum tdr_report_format fmt);
/*
 * A tdr_stat_interval_fn (arg is the struct tdr_stat_out): text and CSV
 * write the row at once (the header first) and flush; JSON keeps it.
 * Returns 0 or -ENOMEM; a failed write only sets write_err.
 */
int tdr_stat_out__interval(void *arg, const struct tdr_stat *st, const struct tdr_stat_row *row);
/*
 * Write the whole run: the total (slots and the TopDown breakdown with the
 * main bottleneck marked, or the software counts and why TopDown is not
 * available), the per-thread rows, and for JSON the intervals.
 * Returns: 0, -EINVAL (before a completed tdr_stat__run), or the write
 * error (-errno, also in write_err; not logged: the caller knows the
 * stream's name).
 */
int tdr_stat_out__render(struct tdr_stat_out *o, const struct tdr_stat *st);
/* Free the kept rows. */
void tdr_stat_out__clear(struct tdr_stat_out *o);

#endif /* TDREC_REPORT_H */
