/*
 * format/include/tdrec/regions_fmt.h - the REGIONS section (SECTION type 4)
 * and the standalone regions file: encode, and iterate with bounds checks.
 *
 * Responsibility: the byte layout of docs/format.md section 7.3, nothing
 * else. libtdrec (libtdrec/) encodes what a program's instrumented regions
 * counted; tdrec record copies those bytes into a .tdr as SECTION type 4;
 * tdrec report --regions decodes them from either. One file holds the
 * layout so writer and reader cannot drift (libtdrec compiles this file
 * into itself: it has no dependency but libc and common/'s headers).
 * The categories are not stored: the header names the family of the
 * TopDown table and tdr_regions_fmt__meta resolves its formulas (as a
 * plan does, format.h tdr_meta__add_family_categories), for the library
 * and for report alike. What it does not do: evaluate categories
 * (format/category.c) or open counters (libtdrec/).
 * Objects and lifecycle: tdr_regions_fmt__encode is stateless; struct
 * tdr_regions_iter lives on the caller's stack (__init -> __next repeat).
 * Ownership: decoded strings point into the caller's data (not
 * NUL-terminated: use the lengths).
 * See: docs/format.md section 7.3; docs/regions.md.
 */
#ifndef TDREC_REGIONS_FMT_H
#define TDREC_REGIONS_FMT_H

#include <stddef.h>
#include <stdint.h>

#include "tdrec/format.h"
#include "tdrec/tdr_api.h"

/* The first 8 bytes of a standalone regions file; the section data follows. */
#define TDR_REGIONS_FILE_MAGIC "TDRREGN\x01"
#define TDR_REGIONS_FILE_MAGIC_SZ 8
#define TDR_REGIONS_VERSION 1
#define TDR_REGIONS_EVENTS_MAX 16 /* events of one measurement group */
#define TDR_REGIONS_NAME_MAX 255  /* bytes of a region, family or event name */

/* How the counters were read (the reader labels the numbers with it). */
enum tdr_regions_method {
	TDR_REGIONS_RDPMC = 1, /* user-space rdpmc through the perf mmap page */
	TDR_REGIONS_READ = 2,  /* read(2) of a PERF_FORMAT_GROUP group */
};

struct tdr_regions_str {
	const char *s; /* len bytes, no NUL among them */
	size_t len;
};

struct tdr_regions_hdr {
	uint32_t method; /* enum tdr_regions_method; a reader may meet others */
	uint32_t width;	 /* W of the family's per-width terms, 0: the family's */
	uint32_t pid;	 /* the measured process */
	uint32_t event_cnt;
	uint32_t region_cnt; /* entries that follow */
	uint64_t resets;     /* counter resets the library made (docs/regions.md) */
	uint64_t errors;     /* unbalanced begin/end calls, nesting too deep */
	struct tdr_regions_str family; /* the TopDown table family: "topdown-l2" */
	struct tdr_regions_str events[TDR_REGIONS_EVENTS_MAX];
};

/* One region in one thread. */
struct tdr_regions_entry {
	struct tdr_regions_str name;
	uint32_t tid;
	uint64_t count; /* completed begin/end pairs */
	uint64_t deltas[TDR_REGIONS_EVENTS_MAX]; /* summed over them, per event */
};

/*
 * Encode hdr (region_cnt is taken from cnt) and cnt entries as section
 * data in a new buffer (caller frees *out with tdr_free).
 * Returns: 0, -EINVAL (event_cnt 0 or above TDR_REGIONS_EVENTS_MAX, a name
 * empty, above TDR_REGIONS_NAME_MAX or with a NUL; cnt above UINT32_MAX),
 * -ENOMEM.
 */
TDR_API int tdr_regions_fmt__encode(const struct tdr_regions_hdr *hdr,
				    const struct tdr_regions_entry *ents, size_t cnt, void **out,
				    size_t *out_sz);

struct tdr_regions_iter {
	const uint8_t *data;
	size_t sz, pos;
	uint32_t event_cnt;
	uint32_t idx;	  /* index of the next entry */
	uint32_t cnt;	  /* region_cnt of the header */
	uint32_t skipped; /* entries with bad fields, left out */
};

/*
 * Start reading section data (borrowed: it must outlive the iterator and
 * *hdr, whose strings point into it).
 * Returns: 0, -TDR_E_VERSION (a version other than 1), -TDR_E_CORRUPT
 * (shorter than its header, a bad event count or name, region_cnt above
 * what the size can hold).
 */
TDR_API int tdr_regions_iter__init(struct tdr_regions_iter *it, const void *data, size_t sz,
				   struct tdr_regions_hdr *hdr);

/* The next good entry. Returns: 1 with *e set, 0 after the last,
 * -TDR_E_CORRUPT when entry it->idx cannot be delimited (that entry and
 * those after it are lost). */
TDR_API int tdr_regions_iter__next(struct tdr_regions_iter *it, struct tdr_regions_entry *e);

/*
 * The metadata a report of these regions is computed with: hdr's events by
 * name (PMU "regions", no attrs), plan_name the family, and the family's
 * categories from the TopDown table with hdr->width (nothing when the
 * family is unknown to this build, or has no formulas). meta must be
 * zeroed; clear it with tdr_meta__clear, also on failure.
 * Returns: the number of categories added, -ENOMEM, -ENOENT (a table bug).
 */
TDR_API int tdr_regions_fmt__meta(const struct tdr_regions_hdr *hdr, struct tdr_meta *meta);

#endif /* TDREC_REGIONS_FMT_H */
