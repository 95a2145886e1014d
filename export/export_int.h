/*
 * export/export_int.h - the profile model shared by the export writers.
 *
 * Responsibility: struct tdr_profile: the stacks of a recording (each a
 * list of locations, leaf first), the locations (an address in a mapping,
 * with its symbolized lines, innermost inline first), the functions and
 * mappings they name, the summed deltas of every stack, and the samples
 * kept for the html timeline. Built once by model.c and resolve.c; the
 * writers (pprof.c, folded.c, speedscope.c, html.c) only read it.
 * Invariants: every string is interned in strs (equal strings, equal
 * pointers); indexes are 0-based; a location's mapping is 1 + its index,
 * 0 for none (pprof's convention); sums of stack i live at
 * sums[i * event_cnt].
 */
#ifndef TDREC_EXPORT_INT_H
#define TDREC_EXPORT_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tdrec/export.h"
#include "tdrec/parser.h"
#include "tdrec/tdr_arena.h"
#include "tdrec/tdr_hmap.h"

/* What an address is (tdr_addr_place, parser.h). */
enum ex_kind {
	EX_FILE = TDR_PLACE_FILE,     /* off = offset in the mapped file */
	EX_VDSO = TDR_PLACE_VDSO,     /* off = offset in the vdso image */
	EX_KERNEL = TDR_PLACE_KERNEL, /* off = ip */
	EX_ANON = TDR_PLACE_ANON,
	EX_UNMAPPED = TDR_PLACE_UNMAPPED,
	EX_HYPERVISOR = TDR_PLACE_HYPERVISOR,
	EX_GUEST = TDR_PLACE_GUEST,
};

struct ex_mapping {
	const char *path; /* interned */
	uint64_t start, limit, pgoff;
	uint8_t build_id_sz;
	uint8_t build_id[20];
	const struct tdr_mapping *src; /* the parser's, during the load only */
};

struct ex_func {
	const char *name; /* interned */
	const char *dso;  /* interned, NULL when none */
	const char *file; /* interned, NULL when unknown */
	uint64_t hash;
};

struct ex_line {
	uint32_t func;
	uint32_t line;
};

struct ex_loc {
	/* key */
	const struct tdr_mapping *map; /* borrowed during the load */
	uint64_t off;
	uint32_t kind; /* enum ex_kind */
	bool caller;   /* a return address: symbolized at off - 1 */
	uint64_t hash;
	/* value */
	uint64_t address; /* the ip */
	uint32_t mapping; /* 1 + index into maps, 0 = none */
	uint32_t line_first, line_cnt; /* into lines, innermost first */
};

struct ex_stack {
	uint32_t first, cnt; /* into stack_locs, leaf first */
	uint64_t hash;
	uint64_t samples;
};

/* One sample, for the timeline (html). */
struct ex_sample {
	uint64_t time_ns;
	uint32_t tid;
	uint32_t stack;
	bool counts;
};

struct ex_thread {
	uint32_t pid, tid;
	const char *comm; /* interned, the latest name */
};

enum ex_value_kind { EXV_SAMPLES = 0, EXV_EVENT, EXV_SLOTS, EXV_CATEGORY };

struct ex_value {
	enum ex_value_kind kind;
	size_t idx; /* event or category index */
	const char *name, *unit;
};

struct tdr_profile {
	struct tdr_report *rules; /* the report's schema: counting and formulas */
	size_t event_cnt, cat_cnt;
	size_t value_cnt;
	struct ex_value *values;

	struct tdr_intern strs;
	char *command, *plan, *host;
	uint64_t start_wall_ns, start_clock_ns, duration_ns;
	uint64_t first_ns, last_ns; /* sample clock; first > last when none */
	uint64_t period;	    /* sample_period, 0 when by frequency */
	uint64_t samples;	    /* samples that count */
	uint64_t cut_stacks;	    /* stacks cut at EX_MAX_FRAMES */

	struct ex_mapping *maps;
	size_t map_cnt, map_cap;
	struct ex_func *funcs;
	size_t func_cnt, func_cap;
	struct tdr_hmap func_index;
	struct ex_line *lines;
	size_t line_cnt, line_cap;
	struct ex_loc *locs;
	size_t loc_cnt, loc_cap;
	struct tdr_hmap loc_index;
	uint32_t *stack_locs;
	size_t stack_loc_cnt, stack_loc_cap;
	struct ex_stack *stacks;
	size_t stack_cnt, stack_cap;
	struct tdr_hmap stack_index;
	uint64_t *sums; /* stack_cap * event_cnt */
	size_t sums_cap;

	bool timeline; /* smp, smp_deltas and threads are kept */
	struct ex_sample *smp;
	size_t smp_cnt, smp_cap;
	uint64_t *smp_deltas; /* smp_cap * event_cnt */
	size_t smp_deltas_cap;
	struct ex_thread *threads;
	size_t thread_cnt, thread_cap;
	struct tdr_hmap thread_index;

	const struct tdr_mapping *kernel_image; /* during the load */
};

/* ---- model.c ------------------------------------------------------------ */

/* Value v of summed deltas sums (event_cnt entries) with samples samples:
 * samples, an event's sum, the slots, or a category's slots (its fraction
 * of the slots times the slots; 0 where it has none). */
double tdr_export_value(const struct tdr_profile *p, size_t v, uint64_t samples,
			const uint64_t *sums);
/* The same for stack i. */
double tdr_export_stack_value(const struct tdr_profile *p, size_t i, size_t v);
/* A function's display name with its inline frames: the frames of location
 * loc, outermost first, are lines[first + cnt - 1] .. lines[first]. */
static inline const struct ex_line *ex_loc_lines(const struct tdr_profile *p,
						 const struct ex_loc *l)
{
	return p->lines + l->line_first;
}

/* ---- resolve.c ---------------------------------------------------------- */

/* Symbolize every location once (lopts as tdr_profile__load's; path the
 * recording's, for objects named relative to it; archive the file's
 * ARCHIVE section, NULL without one, answering before the files on disk).
 * Returns 0, -ENOMEM, or the symbolizer's error. */
int tdr_export_resolve(struct tdr_profile *p, const char *path, const struct tdr_meta *meta,
		       const struct tdr_archive *archive, const struct tdr_report_load_opts *lopts);

/* The interned function (name, dso, file) index; file is kept from the
 * first time. Returns the index or -ENOMEM. */
long tdr_export_func(struct tdr_profile *p, const char *name, const char *dso, const char *file);

/* ---- writers' helpers ------------------------------------------------------ */

/* Frames of stack s, outermost first, into out (at most cap, the outermost
 * left out beyond; inline frames expanded, innermost last). Returns how
 * many. */
size_t tdr_export_stack_frames(const struct tdr_profile *p, size_t s, uint32_t *out, size_t cap);
/* Locations kept per stack (the sample's and its callers'). */
#define EX_MAX_FRAMES 1024

/* A growable byte buffer (pbuf.c). A zeroed struct is empty. */
struct ex_buf {
	uint8_t *p;
	size_t len, cap;
	bool oom;
};
void tdr_export_buf_put(struct ex_buf *b, const void *src, size_t n);
void tdr_export_buf_release(struct ex_buf *b);

#endif /* TDREC_EXPORT_INT_H */
