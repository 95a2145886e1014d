/*
 * libtdrec/include/tdrec/regions.h - libtdrec: the TopDown of instrumented
 * code regions, measured from inside the program.
 *
 * Responsibility: the stable API of libtdrec (installed with libtdrec.pc;
 * link with `pkg-config --cflags --libs libtdrec`). A program marks
 * regions with begin/end pairs; each thread counts the events of one
 * TopDown family of tdrec's table (the best that opens here: Intel perf
 * metrics with level 2 or 1, the generic-counter families, else the
 * software events task-clock, context-switches, cpu-migrations and
 * page-faults) and adds each region's deltas to that region. Reading is
 * by rdpmc through each event's perf mmap page where the kernel allows
 * it (no system call, no allocation on begin/end), else by read(2) of the
 * whole group (PERF_FORMAT_GROUP: one system call per begin and per end).
 * The results go to a regions file (docs/format.md section 7.3) that
 * `tdrec report --regions FILE` prints with the TopDown columns of its
 * function reports, and `tdrec record` embeds in its .tdr.
 *
 * Use:
 *   struct tdr_regions *rs;              // once per process
 *   tdr_regions__open(NULL, &rs);
 *   int parse = tdr_regions__region(rs, "parse");    // name -> id, once
 *   struct tdr_regions_thread *t;        // once per thread that measures
 *   tdr_regions__thread_open(rs, &t);
 *   tdr_regions_thread__begin(t, parse); ...; tdr_regions_thread__end(t, parse);
 *   tdr_regions_thread__close(t);        // folds the thread's regions in
 *   tdr_regions__free(rs);               // writes the file ($TDREC_REGIONS)
 *
 * Nesting: regions nest (up to TDR_REGIONS_DEPTH_MAX open per thread), a
 * region may contain itself (recursion counts each level). An end that
 * does not close the innermost open region is counted as an error and
 * ignored. Threads: a struct tdr_regions_thread belongs to the thread that
 * opened it (its counters count that thread only); begin, end and read
 * take no lock. __region, __thread_open, __thread__close, __write take
 * the process object's lock.
 * Errors: 0 or a count on success, a negative errno on failure.
 * See: docs/regions.md (accuracy, costs, the reset bound), and the
 * kernel's Documentation/arch/x86/topdown.rst.
 */
#ifndef TDREC_REGIONS_H
#define TDREC_REGIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tdrec/tdr_api.h"

#define TDR_REGIONS_DEPTH_MAX 64     /* regions open at once in one thread */
#define TDR_REGIONS_MAX_DEFAULT 256  /* region names per process, by default */
#define TDR_REGIONS_EVENT_MAX 16     /* events of one family's group */
#define TDR_REGIONS_CATEGORY_MAX 16  /* categories of one family */
/* Perf metrics: reset the group after this many slots by default
 * (docs/regions.md "Resets"). */
#define TDR_REGIONS_RESET_SLOTS_DEFAULT (1ull << 30)

struct tdr_regions;
struct tdr_regions_thread;

struct tdr_regions_opts {
	/* A family of tdrec's TopDown table ("topdown-l2", "amd-zen4",
	 * "software", ...) instead of the best that opens; NULL: the
	 * environment variable TDREC_REGIONS_PLAN, else the best. */
	const char *plan;
	/* Where tdr_regions__free writes the regions; NULL: the environment
	 * variable TDREC_REGIONS, else nowhere. */
	const char *path;
	uint32_t max_regions;	/* distinct region names; 0: the default */
	uint64_t reset_slots;	/* 0: TDR_REGIONS_RESET_SLOTS_DEFAULT */
	bool no_rdpmc;		/* read(2) even where rdpmc is allowed */
};

/*
 * Choose the family (the first, best first, whose group opens for the
 * calling thread and, for TopDown families, matches this CPU: $TDREC_CPUID
 * or /proc/cpuinfo) and make the process object. opts may be NULL.
 * Returns: 0, -ENOENT (opts->plan names no family), -EINVAL (opts out of
 * range), -ENOMEM, or the error of the last group that failed to open.
 */
TDR_API int tdr_regions__open(const struct tdr_regions_opts *opts, struct tdr_regions **out);

/* The id of region name (registered on first use). Returns: the id (0 or
 * more), -EINVAL (empty name, longer than 255 bytes), -ENOSPC (more than
 * max_regions names). */
TDR_API int tdr_regions__region(struct tdr_regions *rs, const char *name);

/* The family measured ("topdown-l1", "software", ...), and how. */
TDR_API const char *tdr_regions__family(const struct tdr_regions *rs);
/* Whether threads read with rdpmc (true) or read(2) (false). A thread
 * whose page refuses rdpmc falls back on its own (tdr_regions_thread__rdpmc). */
TDR_API bool tdr_regions__rdpmc(const struct tdr_regions *rs);

/* The events counted, in group order, and the TopDown categories (none
 * on the software family). Names are borrowed from rs. */
TDR_API size_t tdr_regions__event_cnt(const struct tdr_regions *rs);
TDR_API const char *tdr_regions__event_name(const struct tdr_regions *rs, size_t idx);
TDR_API size_t tdr_regions__category_cnt(const struct tdr_regions *rs);
TDR_API const char *tdr_regions__category_name(const struct tdr_regions *rs, size_t idx);

/*
 * Open the family's group for the calling thread (counting it only, user
 * and kernel code as the family's plan does in tdrec stat: user only where
 * perf_event_paranoid needs it) and map each event's page.
 * Returns: 0, -ENOMEM, or the perf_event_open error.
 */
TDR_API int tdr_regions__thread_open(struct tdr_regions *rs, struct tdr_regions_thread **out);

/* Whether this thread reads with rdpmc. */
TDR_API bool tdr_regions_thread__rdpmc(const struct tdr_regions_thread *t);

/* Begin and end region id in the calling thread (the thread that opened t). */
TDR_API void tdr_regions_thread__begin(struct tdr_regions_thread *t, int id);
TDR_API void tdr_regions_thread__end(struct tdr_regions_thread *t, int id);

/* What one region accumulated in one thread. */
struct tdr_region_value {
	uint64_t count;				 /* completed begin/end pairs */
	uint64_t events[TDR_REGIONS_EVENT_MAX];	 /* summed deltas, per event */
	/* Per category (tdr_regions__category_name): its share of the
	 * region's slots (NAN without slots), and that share times the slots. */
	double share[TDR_REGIONS_CATEGORY_MAX];
	double slots[TDR_REGIONS_CATEGORY_MAX];
	double total_slots; /* the region's slots, NAN on the software family */
};

/* Region id's totals so far in thread t. Returns: 0, -EINVAL (unknown id). */
TDR_API int tdr_regions_thread__read(const struct tdr_regions_thread *t, int id,
				     struct tdr_region_value *out);

/* Close the counters of t and keep its regions in rs for __write. */
TDR_API void tdr_regions_thread__close(struct tdr_regions_thread *t);

/* Write every closed thread's regions to path (docs/format.md 7.3, a
 * standalone regions file). Returns: 0, -errno of the file, -ENOMEM. */
TDR_API int tdr_regions__write(struct tdr_regions *rs, const char *path);

/* Write to opts->path or $TDREC_REGIONS when one was given (errors go to
 * stderr, one line), then free rs. Threads still open are not written:
 * close them first. */
TDR_API void tdr_regions__free(struct tdr_regions *rs);

#endif /* TDREC_REGIONS_H */
