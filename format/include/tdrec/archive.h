/*
 * format/include/tdrec/archive.h - the ARCHIVE section: the symbols of every
 * sampled address, embedded in the recording (docs/format.md section 7.2).
 *
 * Responsibility: the section's byte layout, both ways. A builder collects
 * objects (a file by path and build-id, or the kernel) and, per object, the
 * answer of the symbolizer at each address (function, its offset and size,
 * source position, inline chain with call sites), and encodes them
 * deterministically: one string table, objects and addresses sorted,
 * varints, optionally one zstd frame. The decoder checks every count and
 * size against the bytes that hold it and the caps of section 10, and gives
 * an immutable table searched by (object, offset).
 * What it does not do: symbolize (symbolize/), decide which addresses to
 * keep (report/archive.c), or read files (the section data is given).
 * Objects and lifecycle: tdr_archive_builder__new -> __dso / __add (repeat)
 * -> __encode -> __free; tdr_archive__decode -> __find_dso / __find
 * (repeat) -> __free.
 * Ownership and threads: strings given to the builder are copied; results
 * of the decoded table point into it and live until its __free. One thread
 * per object; a decoded table is read-only and may be shared.
 */
#ifndef TDREC_ARCHIVE_H
#define TDREC_ARCHIVE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tdrec/tdr_api.h"

#define TDR_ARCHIVE_MAX_RAW (32u << 20) /* bytes of the decoded body */
#define TDR_ARCHIVE_STR_MAX 65536	/* bytes of one string */
#define TDR_ARCHIVE_MAX_INLINES 256	/* inline frames of one address */
#define TDR_ARCHIVE_BUILD_ID_MAX 20
#define TDR_ARCHIVE_MAX_STACK 128	/* pcs of one stored stack */

/* What an object of the archive is. */
enum tdr_archive_kind {
	TDR_ARCHIVE_FILE = 0,	/* a mapped file: offsets are file offsets */
	TDR_ARCHIVE_KERNEL = 1, /* the kernel and its modules: offsets are addresses */
};

/* What the symbolizer said of an address (only answers that do not depend
 * on the files found later are kept). */
enum tdr_archive_status {
	TDR_ARCHIVE_SYM_OK = 0,	       /* a function covers it */
	TDR_ARCHIVE_SYM_NO_SYMBOL = 1, /* the object was read; nothing covers it */
};

/* One inlined call, innermost first (as struct tdr_inline_frame). */
struct tdr_archive_frame {
	const char *function;  /* the inlined callee; NULL when unnamed */
	const char *call_file; /* where it was inlined; NULL when unknown */
	uint32_t call_line, call_column;
};

/* The answer for one address (strings NUL-terminated). */
struct tdr_archive_sym {
	uint8_t status;		  /* enum tdr_archive_status */
	const char *function;	  /* the physical function; NULL unless OK */
	uint64_t function_offset; /* address - start of the function */
	uint64_t function_size;	  /* 0 when unknown */
	const char *file;	  /* source position of the address; NULL when unknown */
	uint32_t line, column;
	uint32_t inline_cnt; /* at most TDR_ARCHIVE_MAX_INLINES */
	const struct tdr_archive_frame *inlines;
};

struct tdr_archive_dso {
	const char *path;
	uint8_t kind; /* enum tdr_archive_kind */
	uint8_t build_id_sz;
	uint8_t build_id[TDR_ARCHIVE_BUILD_ID_MAX];
	size_t first, cnt; /* its addresses: global indexes first .. first + cnt - 1 */
};

/* ---- building ---- */
struct tdr_archive_builder;

/* Returns: 0 or -ENOMEM. */
TDR_API int tdr_archive_builder__new(struct tdr_archive_builder **out);

/* The index of the object (kind, path, build-id), added when new: the same
 * key gives the same index. Returns: the index (>= 0), -EINVAL (path empty,
 * longer than TDR_ARCHIVE_STR_MAX or holding a NUL... build_id_sz above 20,
 * a kind the format does not know), -ENOMEM. */
TDR_API long tdr_archive_builder__dso(struct tdr_archive_builder *b, uint8_t kind,
				      const char *path, const uint8_t *build_id,
				      size_t build_id_sz);

/* Add the answer for offset off of object dso; strings are copied. An
 * offset added twice keeps its first answer. Returns: 0, -EINVAL (bad dso
 * index or status, a string longer than TDR_ARCHIVE_STR_MAX, more than
 * TDR_ARCHIVE_MAX_INLINES frames, a function with a status other than OK),
 * -ENOMEM. */
TDR_API int tdr_archive_builder__add(struct tdr_archive_builder *b, long dso, uint64_t off,
				     const struct tdr_archive_sym *sym);

/* Addresses added so far (distinct). */
TDR_API size_t tdr_archive_builder__cnt(const struct tdr_archive_builder *b);
/* Objects added so far. */
TDR_API size_t tdr_archive_builder__dso_cnt(const struct tdr_archive_builder *b);

/*
 * Stacks (the stacks part of 7.2): the file has frame_cnt frames, and
 * sample records are named by (frame index, ordinal among the
 * PERF_RECORD_SAMPLE records of that frame). __set_frames gives the body a
 * stacks part (before it, there is none); __stack stores the unwound user
 * stack of one sample record: pcs innermost first, the user pc, then each
 * return address, as the unwinder gave them. A position given twice keeps
 * its first stack. __stack returns 0, -EINVAL (no __set_frames, frame out
 * of range, cnt 0 or above TDR_ARCHIVE_MAX_STACK), -ENOMEM.
 * __drop_stacks forgets them all (the body has no stacks part again).
 */
TDR_API void tdr_archive_builder__set_frames(struct tdr_archive_builder *b, uint64_t frame_cnt);
TDR_API int tdr_archive_builder__stack(struct tdr_archive_builder *b, uint64_t frame,
				       uint32_t ord, const uint64_t *pcs, uint32_t cnt);
/* Distinct stacks stored so far. */
TDR_API size_t tdr_archive_builder__stack_cnt(const struct tdr_archive_builder *b);
TDR_API void tdr_archive_builder__drop_stacks(struct tdr_archive_builder *b);

/* The section data, in a new buffer (the caller frees *out). zstd_level 0:
 * the body is stored as it is; otherwise compressed at that level when that
 * is smaller. The same contents give the same bytes, whatever the order
 * they were added in. Returns: 0, -ENOMEM, -TDR_E_LIMIT (a body above
 * TDR_ARCHIVE_MAX_RAW), -TDR_E_ZSTD. */
TDR_API int tdr_archive_builder__encode(struct tdr_archive_builder *b, int zstd_level,
					void **out, size_t *out_sz);

TDR_API void tdr_archive_builder__free(struct tdr_archive_builder *b);

/* ---- reading ---- */
struct tdr_archive;

/* What a decoded archive holds, for `tdrec info`. */
struct tdr_archive_stats {
	uint64_t dsos, addrs, functions; /* functions: addresses with status OK */
	uint64_t inline_frames, strings;
	uint64_t data_sz, raw_sz; /* section data bytes; body bytes once decoded */
	uint64_t stacks, stack_samples; /* distinct stored stacks; samples naming one */
};

/* Decode section data (borrowed for the call only). Returns: 0,
 * -TDR_E_CORRUPT (any rule of docs/format.md 7.2 broken: the archive is
 * not used at all), -TDR_E_LIMIT (a size above a cap), -TDR_E_ZSTD,
 * -ENOMEM. */
TDR_API int tdr_archive__decode(const void *data, size_t sz, struct tdr_archive **out);

TDR_API size_t tdr_archive__dso_cnt(const struct tdr_archive *a);
TDR_API const struct tdr_archive_dso *tdr_archive__dso(const struct tdr_archive *a, size_t idx);
TDR_API const struct tdr_archive_stats *tdr_archive__stats(const struct tdr_archive *a);

/* The object recorded as (kind, path, build-id): the one with this exact
 * key; else, given a build-id, the first of that kind with the same
 * build-id (the same file under another name). Returns its index or -1. */
TDR_API long tdr_archive__find_dso(const struct tdr_archive *a, uint8_t kind, const char *path,
				   const uint8_t *build_id, size_t build_id_sz);

/* The answer for offset off of object dso; its inline frames are written
 * to frames (room for TDR_ARCHIVE_MAX_INLINES), which out->inlines then
 * points to; its strings live as long as the archive. Returns the
 * address's global index (0 .. stats.addrs - 1) with *out set, or -1 when
 * not archived. */
TDR_API long tdr_archive__find(const struct tdr_archive *a, size_t dso, uint64_t off,
			       struct tdr_archive_sym *out, struct tdr_archive_frame *frames);

/* Whether the archive has a stacks part, and for how many frames of the
 * file (a reader uses it only when that is the file's frame count). */
TDR_API bool tdr_archive__has_stacks(const struct tdr_archive *a, uint64_t *frame_cnt);

/* The stored stack of the sample record at ordinal ord among the
 * PERF_RECORD_SAMPLE records of frame `frame`: its pc count (*pcs points
 * into the archive), or 0 when none is stored. */
TDR_API uint32_t tdr_archive__stack(const struct tdr_archive *a, uint64_t frame, uint32_t ord,
				    const uint64_t **pcs);

TDR_API void tdr_archive__free(struct tdr_archive *a);

#endif /* TDREC_ARCHIVE_H */
