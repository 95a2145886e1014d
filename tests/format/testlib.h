/*
 * tests/format/testlib.h - shared fixtures for the format/ tests.
 *
 * A full metadata struct, deterministic synthetic kernel records, a small
 * standard file written with the writer, temporary directories, and
 * byte-level builders for hand-crafted (hostile or future) files. The
 * builders use format/'s private header on purpose: these are white-box
 * tests of the byte layout of docs/format.md.
 */
#ifndef TDREC_TESTS_FORMAT_TESTLIB_H
#define TDREC_TESTS_FORMAT_TESTLIB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "format_int.h"
#include "tdrec/format.h"

struct tl_counts {
	uint64_t records, samples, lost_records, lost_samples, throttles, unthrottles;
};

/* Fill m with every field set: 10 TopDown L2 events with attrs and ids, all
 * categories, argv, notes. Release with tdr_meta__clear. */
void tl_make_meta(struct tdr_meta *m);
/* Assert that two metadata structs are equal field by field. */
void tl_assert_meta_equal(const struct tdr_meta *a, const struct tdr_meta *b);

/* Write n synthetic records (samples, LOST, THROTTLE, UNTHROTTLE, COMM) of
 * seed into buf (cap bytes). Adds to *c. Returns the bytes used. */
size_t tl_make_records(uint8_t *buf, size_t cap, uint32_t seed, size_t n, struct tl_counts *c);

/* The standard small file: 4 frames from rings 0, 1, 0 and SYNTHETIC, a DSO
 * table and a KSYMS section, totals and run end. */
#define TL_STD_FRAMES 4
struct tl_std {
	uint8_t frame[TL_STD_FRAMES][4096];
	size_t frame_sz[TL_STD_FRAMES];
	uint32_t ring[TL_STD_FRAMES];
	struct tl_counts counts;
	struct tdr_event_totals ev[10];
	struct tdr_run_end end;
	uint8_t codec; /* the writer's codec option; tl_std_init sets 0 */
};
#define TL_DSO_SECTION "dso table payload: /usr/bin/app"
#define TL_KSYMS_SECTION "ffffffff81000000 T _stext\n"
extern const char tl_dso_section[sizeof(TL_DSO_SECTION)];
extern const char tl_ksyms_section[sizeof(TL_KSYMS_SECTION)];
/* Fill std with the frames and totals (no I/O). */
void tl_std_init(struct tl_std *std);
/* Write the standard file to path; finish it unless finish is false.
 * Returns 0 or the first error. */
int tl_write_std(const char *path, const struct tl_std *std, bool finish);
/* The same with a given metadata (no allocation before the writer's). */
int tl_write_std_meta(const char *path, const struct tl_std *std, const struct tdr_meta *m,
		      bool finish);

/* Read a whole file into memory (caller frees *data). Returns 0 or -errno. */
int tl_slurp(const char *path, uint8_t **data, size_t *sz);

/* A fresh temporary directory; tl_rmdir removes it and its files. */
char *tl_mkdtemp(void);
void tl_rmdir(char *dir);
/* dir/name in a static buffer (one at a time). */
const char *tl_path(const char *dir, const char *name);

/* Silence the log sink (expected failures log warnings) / restore it. */
void tl_quiet(void);
void tl_loud(void);

/* Byte-level builders (docs/format.md sections 2, 3, 9). */
void tl_put_file_hdr(struct tdr_buf *b, uint16_t major, uint16_t minor);
/* Returns the offset of the block. */
uint64_t tl_put_block(struct tdr_buf *b, uint16_t type, const void *payload, size_t sz);
void tl_put_footer(struct tdr_buf *b, uint64_t trailer_off);

/* Offsets and types of the blocks of a file (as far as it can be walked). */
struct tl_block {
	uint64_t off;
	uint16_t type;
	uint64_t payload_sz;
	uint64_t end; /* after padding */
};
size_t tl_blocks(const uint8_t *data, size_t sz, struct tl_block *out, size_t max);

#endif /* TDREC_TESTS_FORMAT_TESTLIB_H */
