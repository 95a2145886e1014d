/*
 * report/report_int.h - the report's private structures, shared by its .c files.
 *
 * Responsibility: the string pool, the row table (rows keyed by interned
 * strings, with summed deltas), the address table (samples summed per unique
 * address before symbolization), the copied schema (events and category
 * formulas) and struct tdr_report itself. Nothing outside report/ sees these.
 * Invariants: every string in a row key is interned in the report's pool, so
 * two keys are equal exactly when their pointers are; sums of row i live at
 * sums[i * event_cnt].
 */
#ifndef TDREC_REPORT_INT_H
#define TDREC_REPORT_INT_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tdrec/report.h"
#include "tdrec/tdr_arena.h"
#include "tdrec/tdr_hmap.h"
#include "tdrec/tdr_json.h"
#include "tdrec/tdr_textout.h"

/* ---- string pool (strpool.c) --------------------------------------------- */

/* The report's strings: a tdr_intern (common/) with the report's NULL and
 * error conventions. A zeroed struct is empty. */
struct strpool {
	struct tdr_intern in;
};

/* Interned copy of s (NULL for NULL), or NULL with *err = -ENOMEM. */
const char *tdr_report_strpool__intern(struct strpool *p, const char *s, int *err);
void tdr_report_strpool__release(struct strpool *p);

/* A growable list of owned strings (the warnings of a report or a diff). A
 * zeroed struct is empty. */
struct strlist {
	char **v;
	size_t cnt, cap;
};

/* Append a formatted line (cut at 1 KiB). Returns 0 or -ENOMEM. */
int tdr_report_strlist__addf(struct strlist *l, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
int tdr_report_strlist__vaddf(struct strlist *l, const char *fmt, va_list ap)
    __attribute__((format(printf, 2, 0)));
/* Entry idx, or NULL past the end. */
const char *tdr_report_strlist__at(const struct strlist *l, size_t idx);
void tdr_report_strlist__release(struct strlist *l);

/* Is the sample in kernel code (its mode, or a kernel mapping)? */
static inline bool report_kernel_sample(const struct tdr_sample *s)
{
	return s->cpumode == TDR_MODE_KERNEL || (s->map && s->map->kind == TDR_MAP_KERNEL);
}

/* ---- table storage (aggregate.c) ----------------------------------------
 * The row table and the address table keep their entries in an array, each
 * entry with its hash, next to a block of event_cnt sums per entry, and
 * find entries through a tdr_hmap index (linear probing, load <= 1/2).
 */
/* Room for need entries of event_cnt sums each (*cap counts entries); the
 * new sums are zero. Nothing to do when event_cnt is 0. Returns 0 or
 * -ENOMEM. */
int tdr_report_sums__reserve(uint64_t **sums, size_t *cap, size_t event_cnt, size_t need);

/* ---- row table (aggregate.c) --------------------------------------------- */

struct row_ent {
	struct tdr_row_key key; /* interned strings */
	uint64_t hash;
	uint64_t samples;
};

struct rowtab {
	struct row_ent *rows;
	size_t cnt, cap;
	uint64_t *sums; /* sums_cap * event_cnt */
	size_t sums_cap;
	struct tdr_hmap index;
};

/* Row of an interned key, created with zero sums when new. Returns the row
 * index (>= 0) or -ENOMEM. */
int tdr_report_rowtab__find_or_add(struct rowtab *t, size_t event_cnt,
				   const struct tdr_row_key *key);
void tdr_report_rowtab__release(struct rowtab *t);

/* ---- address table (collect.c) ------------------------------------------ */

enum addr_kind {
	ADDR_FILE = 0,	 /* a file-backed mapping; off = file offset */
	ADDR_KERNEL,	 /* off = ip */
	ADDR_VDSO,	 /* off = file offset in the vdso image */
	ADDR_ANON,	 /* anonymous memory; off = 0 */
	ADDR_UNMAPPED,	 /* user IP in no known mapping; off = 0 */
	ADDR_HYPERVISOR, /* off = 0 */
	ADDR_GUEST,	 /* off = 0 */
	ADDR_TASK,	 /* by thread or process: pid/tid only */
};

struct addr_ent {
	const struct tdr_mapping *map; /* borrowed from the parser */
	uint64_t off;
	uint32_t pid, tid;
	uint32_t kind;	  /* enum addr_kind */
	const char *comm; /* interned, thread and process reports only */
	uint64_t hash;
	uint64_t samples;
};

struct addrtab {
	struct addr_ent *ents;
	size_t cnt, cap;
	uint64_t *sums; /* sums_cap * event_cnt */
	size_t sums_cap;
	struct tdr_hmap index;
};

void tdr_report_addrtab__release(struct addrtab *t);

/* ---- schema --------------------------------------------------------------- */

enum event_unit {
	UNIT_COUNT = 0,
	UNIT_NS,    /* software clocks: shown as milliseconds */
	UNIT_DUMMY, /* counts nothing (perf's dummy event for side-band records): no text column */
};

struct rep_category {
	char *name;
	char *parent;
	uint32_t level;
	int parent_idx;	  /* level-1 category index of a level-2 one, else -1 */
	double threshold; /* NAN: never a bottleneck */
	size_t num_cnt, den_cnt;
	struct tdr_term *num, *den; /* the recording's formula (format.h) */
};

/* ---- the report ------------------------------------------------------------ */

struct tdr_report {
	struct tdr_report_opts opts;
	/* Filter copies (opts.filter points here). */
	uint32_t *f_pids, *f_tids;
	char **f_dsos, **f_comms;
	const struct tdr_mapping *f_last_map; /* dso filter cache */
	bool f_last_ok;

	size_t event_cnt;
	char **event_names;
	uint32_t *event_units; /* enum event_unit */
	size_t cat_cnt;
	struct rep_category *cats;
	int slots_cat; /* category whose denominator is "the row's slots", -1 = none */
	/* A perf.data file with several sampling events (perf record -e a -e b):
	 * samples and shares are those of the first one, as perf report shows
	 * each event apart; the others' samples add only their deltas. -1 when
	 * there is one sampling event (every sample counts). */
	int primary_sampler;
	uint64_t other_samples; /* samples of the other sampling events */

	/* Recording. */
	char *plan, *command, *host, *cpu, *file, *boot_id;
	enum tdr_source_kind source;
	bool have_end;
	struct tdr_run_end end;
	uint64_t first_ns, last_ns;

	struct strlist warnings;

	/* Counted against attributed (counted.c): per event, the sum of every
	 * sample's deltas before filters, and the recording's counted total
	 * (meaningful where has_counted). */
	uint64_t *attributed, *counted;
	bool *has_counted;
	bool any_counted;
	bool user_only;		 /* samples in user mode only (no TDR_META_KERNEL) */
	bool system_wide;	 /* -a: streams are CPUs, not threads */
	uint64_t rebased;	 /* samples whose deltas the parser dropped */
	double slots_attributed; /* attributed / counted slots, NAN when unknown */

	struct strpool pool;
	struct rowtab rows;
	struct addrtab addrs;
	/* The mapping of the kernel image ("[kernel.kallsyms]...") with a
	 * build-id, from the first kernel sample that has one; borrowed from
	 * the parser until __resolve; load.c hands it to the symbolizer. */
	const struct tdr_mapping *kernel_image;
	uint64_t seen, kept;
	bool resolved;

	/* Finished table. */
	bool finished;
	struct tdr_report_row *view; /* one per row, sorted */
	double *cat_vals;	     /* (rows.cnt + 1) * cat_cnt; totals last */
	struct tdr_report_row totals;
	uint64_t *total_sums;
	const struct tdr_report_row **visible;
	size_t visible_cnt;
};

/* Value of category c over summed deltas: max(0, num) / den, NAN when den <= 0. */
double tdr_report_category_value(const struct tdr_report *r, const struct rep_category *c,
				 const uint64_t *sums);
/* The row's slots (denominator of slots_cat), 0 without TopDown. */
double tdr_report_slots(const struct tdr_report *r, const uint64_t *sums);

/* ---- counted totals (counted.c) ------------------------------------------ */

/* Allocate the per-event arrays (tdr_report__new). Returns 0 or -ENOMEM. */
int tdr_report_counted__init(struct tdr_report *r);
void tdr_report_counted__release(struct tdr_report *r);
/* At __finish, after the totals: the attributed totals of a report without
 * samples, the slots share, and the note. */
void tdr_report_counted__finish(struct tdr_report *r);
/* v in event e's unit for text: "12850", "218.3 ms". Returns the length. */
size_t tdr_report_counted__fmt(const struct tdr_report *r, size_t e, uint64_t v, char *buf,
			       size_t sz);

/* Base name of a path ("" stays ""). */
const char *tdr_report_basename(const char *path);

/* ---- rendering helpers (render_util.c) ----------------------------------- */

/* The text table's column label of a software event ("cpu-ms" for
 * "cpu-clock" or perf's "cpu-clock:ppp"), or NULL. --sort takes it too. */
const char *tdr_report_event_short(const char *name);

/* Text (report and diff tables). Widths are display columns (code points,
 * tdr_text_cols); control characters print as '?'. */
/* Where tdr_report_text_put_fit cuts what does not fit. */
enum text_cut {
	CUT_END,    /* "abc..." (header values, notes) */
	CUT_START,  /* "...xyz" (paths) */
	CUT_MIDDLE, /* "ab...yz", the tail a little longer: names, whose start
		     * (namespace, function) and end (method and parameters,
		     * "(inlined into f)") both tell rows apart */
};
/* s in at most w columns, cut as `cut` says. */
void tdr_report_text_put_fit(FILE *f, const char *s, size_t w, enum text_cut cut);
/* A C++ name for the text tables (cxxname.c): level 0 as it is, 1 without
 * the return type of a template function, 2 also with parameter lists as
 * "(...)", 3 also with template arguments nested in others as "<...>", 4
 * with only the first template argument ("<double, ...>"), 5 with every
 * template argument list as "<...>". */
#define REPORT_CXX_LEVELS 6
void tdr_report_cxx_shorten(const char *name, unsigned level, char *buf, size_t sz);
/* A row's text name in buf: "name", "prefix name" ("file:line name") or
 * "name (inlined into f)", its C++ names shortened level by level until it
 * fits fit columns (or as short as it gets). Returns the columns at its
 * start that a cut keeps whole (see tdr_report_text_put_name). */
size_t tdr_report_text_row_name(char *buf, size_t sz, size_t fit, const char *prefix,
				const char *name, const char *inlined_into);
/* The columns tdr_report_text_put_name leaves a name of a row with object obj and tag
 * in w columns when both do not fit. */
size_t tdr_report_text_name_room(size_t w, const char *obj, const char *tag);
/* A table's last column in w columns: name, two spaces and obj (between on
 * and off; NULL or "" for none), then tag (NULL for none). When all does
 * not fit, the name is cut first, in the middle, its first keep columns
 * (what tells the row apart: "f" of "f (inlined into g)", "file:line ")
 * kept whole when they leave the end a quarter of the column; the object
 * keeps at least a few columns, so it never silently disappears. */
void tdr_report_text_put_name(FILE *f, size_t w, const char *name, size_t keep, const char *obj,
			      const char *tag, const char *on, const char *off);

/* The list as a JSON array of strings, one per line ("[]" when empty). */
void tdr_report_json_put_strings(struct tdr_json *j, const struct strlist *l);

int tdr_report_render_text(const struct tdr_report *r, const struct tdr_render_opts *o, FILE *out);
int tdr_report_render_json(const struct tdr_report *r, const struct tdr_render_opts *o, FILE *out);
int tdr_report_render_csv(const struct tdr_report *r, const struct tdr_render_opts *o, FILE *out);

/* Short column label of a category ("retiring" -> "Retire"; unknown names
 * are returned as they are), and its one-character glyph for text bars. */
const char *tdr_report_category_label(const char *name);
char tdr_report_category_glyph(const char *name);
/* Duration of the recording: the run end's, else first to last sample.
 * Returns false when unknown. */
bool tdr_report_duration(const struct tdr_report *r, uint64_t *ns, bool *from_samples);
const char *tdr_report_source_name(enum tdr_source_kind k);
/* Describe the run end ("exit 0", "killed by signal 9", ...) into buf. */
void tdr_report_describe_end(const struct tdr_report *r, char *buf, size_t sz);

#endif /* TDREC_REPORT_INT_H */
