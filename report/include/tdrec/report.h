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

#include "tdrec/tdr_api.h"
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
TDR_API const char *tdr_report_by_name(enum tdr_report_by by);

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

/* The same against a report's own events and categories (after __load). */
TDR_API int tdr_report__parse_sort(const struct tdr_report *r, const char *text,
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

/* Call-stack views (docs/report.md "Call stacks"); by function only. */
enum tdr_report_stacks {
	TDR_STACKS_NONE = 0, /* self time: each sample counts for its own function */
	TDR_STACKS_CHILDREN, /* inclusive rows: a sample counts once per distinct
			      * function on its stack; self kept beside */
	TDR_STACKS_CALLERS,  /* rows are the callers of stack_func */
	TDR_STACKS_CALLEES,  /* rows are what stack_func calls, and "[self]" */
};

/* "none", "children", "callers", "callees". */
TDR_API const char *tdr_report_stacks_name(enum tdr_report_stacks m);

struct tdr_report_opts {
	enum tdr_report_by by;
	enum tdr_report_stacks stacks;
	const char *stack_func; /* CALLERS, CALLEES: the function (copied by __new) */
	struct tdr_report_filter filter;
	double min_share;     /* rows below this fraction of samples are hidden (0 = none) */
	uint64_t min_samples; /* rows with fewer samples are low-confidence (0 = no marking) */
	struct tdr_report_sort sort;
};

/* Defaults: by function, no filter, min_share 0, min_samples 30, default sort. */
TDR_API void tdr_report_opts__init(struct tdr_report_opts *opts);

/* A finished report's stack samples: --callers/--callees, the samples
 * whose stack holds the function (0: it is on no stack); --children, the
 * samples that have callers; 0 without stacks. */
TDR_API uint64_t tdr_report__stack_samples(const struct tdr_report *r);

/* Re-sort a finished report. Returns 0 or -EINVAL (idx out of range, not finished). */
TDR_API int tdr_report__sort(struct tdr_report *r, const struct tdr_report_sort *sort);

/* The schema the report was made with (borrowed). */
TDR_API size_t tdr_report__event_cnt(const struct tdr_report *r);
TDR_API const char *tdr_report__event_name(const struct tdr_report *r, size_t idx);
TDR_API size_t tdr_report__category_cnt(const struct tdr_report *r);
TDR_API const char *tdr_report__category_name(const struct tdr_report *r, size_t idx);

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
	/* text only: row names are never cut (the caller sets it when the
	 * output is not a terminal and no width was asked for); the header,
	 * the columns and the prose still fit the width. */
	bool whole_names;
};

#define TDR_RENDER_WIDTH_DEFAULT 100
#define TDR_RENDER_WIDTH_MIN 60
#define TDR_RENDER_WIDTH_MAX 4096

/* Write a finished report to out. Returns: 0, -EINVAL (not finished), -EIO. */
/* The recording's file is damaged (tdr_file_status.damaged): the report
 * covers what came before the damage; the command exits 1. */
TDR_API bool tdr_report__damaged(const struct tdr_report *r);

TDR_API int tdr_report__render(const struct tdr_report *r, const struct tdr_render_opts *o,
			       FILE *out);

TDR_API void tdr_report__free(struct tdr_report *r);

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
	/* Where JIT perf map files (perf-PID.map) are read; NULL = /tmp, where
	 * JITs write them and perf reads them. */
	const char *jit_map_dir;
	/* The running kernel's release for the kernel check of recordings
	 * without a kernel build-id (tdr_symbolizer_opts); NULL = uname. */
	const char *running_release;
	/* Processes of the archiving step (tdr_report__archive): this one and
	 * up to jobs - 1 forked workers, started only when the work divides;
	 * 0 = one per CPU this thread may run on, at most 8 (fewer for few
	 * addresses). The archive is the same for any number. */
	unsigned jobs;
};

/*
 * The symbolizer set-up of every command that reads a recording (report,
 * archive, export): one home, so that all name an address the same way.
 */
/* The kernel symbol table of lopts (kallsyms path, cache dir, boot id). */
TDR_API int tdr_report_kallsyms_new(const struct tdr_report_load_opts *lopts,
				    struct tdr_kallsyms **out);
/* Fill so's fields that come from the recording (meta, its kernel image
 * mapping or NULL) and lopts: cache dir, kallsyms (ks, borrowed), the kernel
 * checks. The caller sets want_*, recorded_until_ns, archive, debuginfod. */
TDR_API void tdr_report_symbolizer_opts(const struct tdr_meta *meta,
					const struct tdr_mapping *kernel_image,
					const struct tdr_report_load_opts *lopts,
					struct tdr_kallsyms *ks, struct tdr_symbolizer_opts *so);
/* When the recording ended on the wall clock (tdr_symbolizer_opts
 * .recorded_until_ns): start + duration_ns (0 = unknown), else the last
 * sample's time; 0 = unknown. */
TDR_API uint64_t tdr_report_recorded_until(const struct tdr_meta *meta, uint64_t duration_ns,
					   uint64_t first_ns, uint64_t last_ns);
/* The directory of the recording at path ("." when it has none). */
TDR_API void tdr_report_recording_dir(const char *path, char *dir, size_t sz);
/* tdr_symbolizer__lookup, with an object named by a relative path looked
 * up in the archive under that name, else in dir (the recording's). */
TDR_API int tdr_report_lookup_near(struct tdr_symbolizer *s, const char *dir,
				   const struct tdr_dso_ref *dso, uint64_t file_off,
				   struct tdr_sym *out);
/* tdr_symbolizer__expect for the object tdr_report_lookup_near will read
 * (archived: s has the recording's archive, which knows an object named
 * by a relative path by that name: then no hint is given for it). */
TDR_API int tdr_report_expect_near(struct tdr_symbolizer *s, const char *dir,
				   const struct tdr_dso_ref *dso, const uint64_t *file_offs,
				   size_t cnt, bool archived);
/* The recording's kernel image, from the mappings m of its kernel samples
 * one by one (cur: the image so far, NULL at first): a "[kernel.kallsyms]"
 * mapping, the first with a build-id, else the first (found by its release
 * and placement then: symbolize/kernel.c). Returns the new image (cur or m). */
TDR_API const struct tdr_mapping *tdr_report_kernel_image(const struct tdr_mapping *cur,
							 const struct tdr_mapping *m);
/* The name of an address without a function, as report's rows and the
 * exports give it: "[unknown] PATH" (object missing), "[not ELF] PATH",
 * "[changed] PATH", "[kernel]" (no kernel symbols), else (no symbol, or
 * TDR_SYM_OK without a function) "PATH+0xOFF". Returns buf (written) or a
 * constant string. */
TDR_API const char *tdr_report_unsym_name(enum tdr_sym_status status, const char *path,
					  uint64_t off, char *buf, size_t sz);

/*
 * When p's recording has user stack copies (--call-graph dwarf), give p an
 * unwinder (symbolize's tdr_unwinder over p's address spaces) so that its
 * samples' frames hold the user callers; *out is that unwinder (free it
 * with tdr_unwinder__free after p's last sample), NULL when the recording
 * has none. tdr_report__load does this for the call-stack views; other
 * readers of frames (exports, the archive) call it after tdr_parser__open.
 * Returns: 0 or -ENOMEM.
 */
TDR_API int tdr_report_attach_unwinder(struct tdr_parser *p, struct tdr_unwinder **out);

/*
 * Open a .tdr or perf.data file, run the parser into a new report, symbolize,
 * add the warnings and finish. Returns: 0 or the parser's / symbolizer's
 * error (-errno, -TDR_E_*); *out is set only on success.
 */
TDR_API int tdr_report__load(const char *path, const struct tdr_report_opts *opts,
			     const struct tdr_report_load_opts *lopts, struct tdr_report **out);

/*
 * A report of a program's instrumented regions (libtdrec, docs/regions.md)
 * from path: a standalone regions file, or a .tdr with a REGIONS section.
 * One row per region name (per thread with opts->by TDR_BY_THREAD; the
 * --tid filter applies); a row's "samples" are its begin/end pairs.
 * Returns: 0, -errno of the file, -ENODATA (a .tdr without regions),
 * -TDR_E_FORMAT, -TDR_E_VERSION, -TDR_E_CORRUPT, -ENOMEM.
 */
TDR_API int tdr_report__load_regions(const char *path, const struct tdr_report_opts *opts,
				     struct tdr_report **out);

/* ---------------------------------------------------------------------------
 * Archiving: the symbols of every address the samples reference, for the
 * file's ARCHIVE section (docs/format.md 7.2, docs/symbolize.md "Archived
 * symbols").
 */
struct tdr_archive_summary {
	uint64_t addrs;	   /* distinct addresses in files and the kernel */
	uint64_t archived; /* of them, answered (a function, or none in a read object) */
	/* Left out (looked up live by a later report): the object was missing,
	 * or changed since the recording; kernel symbols were not usable. */
	uint64_t missing, changed, no_kernel;
	uint64_t objects; /* objects in the archive */
	/* Processes that looked addresses up: 1, or more when the lookups
	 * were shared with forked workers (tdr_report_load_opts.jobs). */
	uint64_t workers;
	/* Unwound user stacks (--call-graph dwarf): samples whose stack was
	 * stored, distinct stacks, samples left to unwinding at report time
	 * (a frame's object missing or changed, or no caller found). */
	uint64_t stack_samples, stacks, stacks_left;
	size_t bytes;	  /* section data */
	char out[4096];	  /* tdr_report__archive_file: the file written */
};

/*
 * Read the .tdr or perf.data file at path, symbolize (with lines and
 * inlines) every address its samples reference, answering first from the
 * archive the file may already have, and encode the ARCHIVE section data
 * into *data (the caller frees it). zstd_level: as
 * tdr_archive_builder__encode. Returns: 0, or the parser's / symbolizer's
 * error; *data is NULL on failure.
 */
TDR_API int tdr_report__archive(const char *path, const struct tdr_report_load_opts *lopts,
				int zstd_level, void **data, size_t *sz,
				struct tdr_archive_summary *sum);

/*
 * A complete .tdr file (in) written again with its archive (docs/format.md
 * 7.2) to out (NULL: in place), or a perf.data file (in) converted into an
 * archived .tdr at out (NULL: "<in>.tdr"); sum->out names the file
 * written. out is replaced only once the new file is complete
 * ("<out>.partial" until then, which must not exist).
 * Returns: 0; -TDR_E_TRUNCATED (a .tdr without trailer or with damaged
 * frames: not archived); -TDR_E_FORMAT (neither a .tdr nor a perf.data
 * file); -ENAMETOOLONG; -EEXIST (the .partial
 * exists); the reader's, writer's, parser's or symbolizer's error.
 */
TDR_API int tdr_report__archive_file(const char *in, const char *out,
				     const struct tdr_report_load_opts *lopts,
				     struct tdr_archive_summary *sum);

/* ---------------------------------------------------------------------------
 * Diff: two finished reports by function, matched by (object basename,
 * name), never by address.
 */
/*
 * Compare two finished reports (both by function or both by inline). Category
 * changes are computed when both plans have the same category names;
 * otherwise only shares are compared and a warning says why. Rows are sorted
 * by the largest absolute change of share. old and new are borrowed for the
 * call; file names are copied for the summary line (may be NULL).
 * Returns: 0, -ENOMEM, -EINVAL (unfinished reports or different modes).
 */
TDR_API int tdr_diff__new(const struct tdr_report *old, const char *old_file,
			  const struct tdr_report *new, const char *new_file,
			  struct tdr_diff **out);

/* Text or JSON (CSV is -EINVAL). Returns 0, -EINVAL or -EIO. */
TDR_API int tdr_diff__render(const struct tdr_diff *d, const struct tdr_render_opts *o, FILE *out);

TDR_API void tdr_diff__free(struct tdr_diff *d);

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
TDR_API int tdr_report_info(struct tdr_parser *p, const struct tdr_info_opts *o, FILE *out);

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

TDR_API void tdr_stat_out__init(struct tdr_stat_out *o, FILE *f, enum tdr_report_format fmt);
/*
 * A tdr_stat_interval_fn (arg is the struct tdr_stat_out): text and CSV
 * write the row at once (the header first) and flush; JSON keeps it.
 * Returns 0 or -ENOMEM; a failed write only sets write_err.
 */
TDR_API int tdr_stat_out__interval(void *arg, const struct tdr_stat *st,
				   const struct tdr_stat_row *row);
/*
 * Write the whole run: the total (slots and the TopDown breakdown with the
 * main bottleneck marked, or the software counts and why TopDown is not
 * available), the per-thread rows, and for JSON the intervals.
 * Returns: 0, -EINVAL (before a completed tdr_stat__run), or the write
 * error (-errno, also in write_err; not logged: the caller knows the
 * stream's name).
 */
TDR_API int tdr_stat_out__render(struct tdr_stat_out *o, const struct tdr_stat *st);
/* Free the kept rows. */
TDR_API void tdr_stat_out__clear(struct tdr_stat_out *o);

/* ---------------------------------------------------------------------------
 * The report's rules for other modules (export/, report/rules.c): a report
 * made for a recording's schema only, and what it says about one sample or
 * one vector of summed deltas, so that an export counts exactly as 'tdrec
 * report' does (docs/export.md "Numbers").
 */
/* A report of meta's schema with the default options (nothing added).
 * Returns: 0, -ENOMEM, -EINVAL (a category term naming no event). */
TDR_API int tdr_report__new_schema(const struct tdr_meta *meta, struct tdr_report **out);
/* Does s count as a sample (perf.data with several sampling events: only
 * the first one's samples count, the others add their deltas only)? */
TDR_API bool tdr_report__sample_counts(const struct tdr_report *r, const struct tdr_sample *s);
/* Category idx of the report's columns (core types merged, docs/report.md
 * "Core types") over summed deltas (event_cnt entries, meta order): a
 * fraction of the slots, NAN when there are none. */
TDR_API double tdr_report__category_of(const struct tdr_report *r, size_t idx,
				       const uint64_t *sums);
/* The slots of summed deltas (the denominator of the first linear level-1
 * category), 0 without TopDown. */
TDR_API double tdr_report__slots_of(const struct tdr_report *r, const uint64_t *sums);
/* Whether the report has slots (a TopDown plan). */
TDR_API bool tdr_report__has_slots(const struct tdr_report *r);
/* The level-1 parent of category idx, or -1; its level (1 or 2). */
TDR_API int tdr_report__category_parent(const struct tdr_report *r, size_t idx);
TDR_API uint32_t tdr_report__category_depth(const struct tdr_report *r, size_t idx);
/* The bottleneck threshold of category idx (fraction of slots), NAN: never. */
TDR_API double tdr_report__category_threshold(const struct tdr_report *r, size_t idx);
/* Event idx's unit: "nanoseconds" (software clocks), "count", or NULL for
 * an event that counts nothing (perf's dummy). */
TDR_API const char *tdr_report__event_unit(const struct tdr_report *r, size_t idx);

#endif /* TDREC_REPORT_H */
