/*
 * tests/format/test_archive.c - the ARCHIVE section (docs/format.md
 * section 7.2): byte layout, round trips, determinism, damaged data.
 *
 * The layout is pinned byte by byte on a two-address archive computed by
 * hand from the spec; round trips cover files with and without build-id,
 * the kernel, inline chains up to the cap, absent strings, offsets near
 * 2^64, stored and zstd bodies, directly and through a .tdr file. The
 * bytes must not depend on the order answers were added in. Damage: every
 * cut and every byte flip is refused or decodes to answers within the
 * caps (ASan build checks the reads); hostile counts and sizes are
 * refused before anything is allocated from them; every allocation failing
 * in turn gives -ENOMEM and leaks nothing.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "testlib.h"
#include "tdrec/archive.h"
#include "tdrec/format.h"
#include "tdrec/tdr_endian.h"
#include "tdrec/tdr_err.h"
#include "tdrec/tdr_mem.h"

static const uint8_t bid_a[] = {0xab};

/* The archive of the layout test: see the expected bytes there. */
static struct tdr_archive_builder *small_builder(void)
{
	struct tdr_archive_builder *b;
	struct tdr_archive_frame fr = {.function = "g", .call_file = "x.c", .call_line = 9};
	struct tdr_archive_sym s1 = {.status = TDR_ARCHIVE_SYM_OK, .function = "f",
				     .function_offset = 4, .function_size = 16, .file = "x.c",
				     .line = 7, .column = 3, .inline_cnt = 1, .inlines = &fr};
	struct tdr_archive_sym s2 = {.status = TDR_ARCHIVE_SYM_NO_SYMBOL};
	long d;

	assert_int_equal(tdr_archive_builder__new(&b), 0);
	d = tdr_archive_builder__dso(b, TDR_ARCHIVE_FILE, "/a", bid_a, 1);
	assert_int_equal(d, 0);
	/* Added out of order: the encoder sorts. */
	assert_int_equal(tdr_archive_builder__add(b, d, 0x1240, &s2), 0);
	assert_int_equal(tdr_archive_builder__add(b, d, 0x1234, &s1), 0);
	/* A second answer for an offset is ignored. */
	assert_int_equal(tdr_archive_builder__add(b, d, 0x1240, &s1), 0);
	assert_int_equal(tdr_archive_builder__cnt(b), 2);
	return b;
}

static void test_archive__layout(void **state)
{
	static const uint8_t want[] = {
	    /* header: raw_sz 34, method 0 (stored), reserved */
	    34, 0, 0, 0, 0, 0, 0, 0,
	    /* 4 strings in order of first use: the path, then the answers' */
	    4, 2, '/', 'a', 1, 'f', 3, 'x', '.', 'c', 1, 'g',
	    /* 1 object: kind 0, path 0, build-id of 1 byte, 2 addresses */
	    1, 0, 0, 1, 0xab, 2,
	    /* 0x1234: OK, function 1, offset 4, size 16, file 2+1, line 7,
	     * column 3, 1 inline: function 3+1, call file 2+1, line 9, column 0 */
	    0xb4, 0x24, 0, 1, 4, 16, 3, 7, 3, 1, 4, 3, 9, 0,
	    /* 0x1240: delta 12, NO_SYMBOL */
	    12, 1};
	struct tdr_archive_builder *b = small_builder();
	struct tdr_archive_frame frames[TDR_ARCHIVE_MAX_INLINES];
	struct tdr_archive_sym s;
	struct tdr_archive *a;
	void *d;
	size_t sz;

	(void)state;
	assert_int_equal(tdr_archive_builder__encode(b, 0, &d, &sz), 0);
	assert_int_equal(sz, sizeof(want));
	assert_memory_equal(d, want, sizeof(want));
	assert_int_equal(tdr_archive__decode(d, sz, &a), 0);
	assert_int_equal(tdr_archive__stats(a)->addrs, 2);
	assert_int_equal(tdr_archive__stats(a)->functions, 1);
	assert_int_equal(tdr_archive__stats(a)->inline_frames, 1);
	assert_int_equal(tdr_archive__stats(a)->strings, 4);
	assert_int_equal(tdr_archive__find(a, 0, 0x1234, &s, frames), 0);
	assert_string_equal(s.function, "f");
	assert_int_equal(s.function_offset, 4);
	assert_int_equal(s.function_size, 16);
	assert_string_equal(s.file, "x.c");
	assert_int_equal(s.line, 7);
	assert_int_equal(s.column, 3);
	assert_int_equal(s.inline_cnt, 1);
	assert_string_equal(s.inlines[0].function, "g");
	assert_string_equal(s.inlines[0].call_file, "x.c");
	assert_int_equal(s.inlines[0].call_line, 9);
	assert_int_equal(tdr_archive__find(a, 0, 0x1240, &s, frames), 1);
	assert_int_equal(s.status, TDR_ARCHIVE_SYM_NO_SYMBOL);
	assert_null(s.function);
	assert_int_equal(tdr_archive__find(a, 0, 0x1235, &s, frames), -1);
	assert_int_equal(tdr_archive__find(a, 1, 0x1234, &s, frames), -1);
	tdr_archive__free(a);
	free(d);
	tdr_archive_builder__free(b);
}

/* The builder copies strings: a caller that gives one buffer again with
 * other bytes in it (the same address) gets the new string, for the
 * function, the file and an inline frame alike. */
static void test_archive__buffer_given_again(void **state)
{
	char fn[8], file[8], inl[8];
	struct tdr_archive_frame fr = {.function = inl, .call_file = file, .call_line = 2};
	struct tdr_archive_sym sym = {.status = TDR_ARCHIVE_SYM_OK, .function = fn, .file = file,
				      .line = 1, .inline_cnt = 1, .inlines = &fr};
	struct tdr_archive_frame frames[TDR_ARCHIVE_MAX_INLINES];
	struct tdr_archive_builder *b;
	struct tdr_archive_sym out;
	struct tdr_archive *a;
	void *d;
	size_t sz;
	long dso;

	(void)state;
	assert_int_equal(tdr_archive_builder__new(&b), 0);
	dso = tdr_archive_builder__dso(b, TDR_ARCHIVE_FILE, "/a", NULL, 0);
	assert_int_equal(dso, 0);
	strcpy(fn, "alpha");
	strcpy(file, "a.c");
	strcpy(inl, "ina");
	assert_int_equal(tdr_archive_builder__add(b, dso, 0x10, &sym), 0);
	strcpy(fn, "gamma");
	strcpy(file, "g.c");
	strcpy(inl, "ing");
	assert_int_equal(tdr_archive_builder__add(b, dso, 0x20, &sym), 0);
	/* And the first bytes again. */
	strcpy(fn, "alpha");
	assert_int_equal(tdr_archive_builder__add(b, dso, 0x30, &sym), 0);
	assert_int_equal(tdr_archive_builder__encode(b, 0, &d, &sz), 0);
	assert_int_equal(tdr_archive__decode(d, sz, &a), 0);
	assert_int_equal(tdr_archive__find(a, 0, 0x10, &out, frames), 0);
	assert_string_equal(out.function, "alpha");
	assert_string_equal(out.file, "a.c");
	assert_string_equal(out.inlines[0].function, "ina");
	assert_string_equal(out.inlines[0].call_file, "a.c");
	assert_int_equal(tdr_archive__find(a, 0, 0x20, &out, frames), 1);
	assert_string_equal(out.function, "gamma");
	assert_string_equal(out.file, "g.c");
	assert_string_equal(out.inlines[0].function, "ing");
	assert_string_equal(out.inlines[0].call_file, "g.c");
	assert_int_equal(tdr_archive__find(a, 0, 0x30, &out, frames), 2);
	assert_string_equal(out.function, "alpha");
	assert_string_equal(out.file, "g.c");
	/* alpha, a.c, ina, gamma, g.c, ing and the path: each once. */
	assert_int_equal(tdr_archive__stats(a)->strings, 7);
	tdr_archive__free(a);
	free(d);
	tdr_archive_builder__free(b);
}

/* The stacks part (docs/format.md 7.2 "Stacks") on small_builder's
 * archive, for a file of 3 frames; see the bytes in the test. */
static void add_small_stacks(struct tdr_archive_builder *b, bool reverse)
{
	static const uint64_t one[] = {0x500000}, two[] = {0x401000, 0x400ff0},
			      other[] = {0x600000, 0x1};
	struct {
		uint64_t frame;
		uint32_t ord;
		const uint64_t *pcs;
		uint32_t cnt;
	} adds[] = {{2, 1, two, 2}, {0, 0, one, 1}, {2, 3, two, 2}};

	tdr_archive_builder__set_frames(b, 3);
	for (size_t i = 0; i < 3; i++) {
		size_t k = reverse ? 2 - i : i;

		assert_int_equal(tdr_archive_builder__stack(b, adds[k].frame, adds[k].ord,
							    adds[k].pcs, adds[k].cnt),
				 0);
	}
	/* A place given twice keeps its first stack. */
	assert_int_equal(tdr_archive_builder__stack(b, 0, 0, other, 2), 0);
}

static void test_archive__stacks_layout(void **state)
{
	static const uint8_t part[] = {
	    /* 2 stacks, numbered by first use in (frame, ordinal) order:
	     * (0,0) gives stack 0: 1 pc, 0x500000 */
	    2, 1, 0x80, 0x80, 0xc0, 0x02,
	    /* stack 1: 2 pcs, 0x401000, then zigzag(-16) = 31 */
	    2, 0x80, 0xa0, 0x80, 0x02, 31,
	    /* 3 frames: frame 0 has 1 entry (stack 0 + 1), frame 1 none,
	     * frame 2 four: none, stack 1, none, stack 1 */
	    3, 1, 1, 0, 4, 0, 2, 0, 2};
	struct tdr_archive_builder *b = small_builder(), *r = small_builder(), *bad;
	uint8_t *d, *d2;
	size_t sz, sz2;
	const uint64_t *pcs = NULL;
	struct tdr_archive *a;
	uint64_t frames = 0;
	static const uint64_t pc = 1;
	uint64_t big[TDR_ARCHIVE_MAX_STACK + 1] = {0};

	(void)state;
	add_small_stacks(b, false);
	add_small_stacks(r, true);
	assert_int_equal(tdr_archive_builder__stack_cnt(b), 3);
	assert_int_equal(tdr_archive_builder__encode(b, 0, (void **)&d, &sz), 0);
	assert_int_equal(tdr_archive_builder__encode(r, 0, (void **)&d2, &sz2), 0);
	/* The answers' 34 bytes (test_archive__layout), then the part. */
	assert_int_equal(sz, 8 + 34 + sizeof(part));
	assert_int_equal(tdr_get_le32(d), 34 + sizeof(part));
	assert_memory_equal(d + 8 + 34, part, sizeof(part));
	/* The order things were added in does not matter... except for a
	 * place given twice (the first wins): the same bytes here. */
	assert_int_equal(sz2, sz);
	assert_memory_equal(d2, d, sz);

	assert_int_equal(tdr_archive__decode(d, sz, &a), 0);
	assert_true(tdr_archive__has_stacks(a, &frames));
	assert_int_equal(frames, 3);
	assert_int_equal(tdr_archive__stats(a)->stacks, 2);
	assert_int_equal(tdr_archive__stats(a)->stack_samples, 3);
	assert_int_equal(tdr_archive__stack(a, 0, 0, &pcs), 1);
	assert_int_equal(pcs[0], 0x500000);
	assert_int_equal(tdr_archive__stack(a, 2, 1, &pcs), 2);
	assert_int_equal(pcs[0], 0x401000);
	assert_int_equal(pcs[1], 0x400ff0);
	assert_int_equal(tdr_archive__stack(a, 2, 3, &pcs), 2);
	assert_int_equal(pcs[1], 0x400ff0);
	assert_int_equal(tdr_archive__stack(a, 2, 0, &pcs), 0);
	assert_int_equal(tdr_archive__stack(a, 2, 4, &pcs), 0);
	assert_int_equal(tdr_archive__stack(a, 1, 0, &pcs), 0);
	assert_int_equal(tdr_archive__stack(a, 3, 0, &pcs), 0);
	/* The symbols are as without stacks. */
	assert_int_equal(tdr_archive__stats(a)->addrs, 2);
	tdr_archive__free(a);

	/* Damage in the part: an entry above the table, a stack of 0 pcs, a
	 * byte after the part; each makes the archive unusable. */
	d[sz - 1] = 3;
	assert_int_equal(tdr_archive__decode(d, sz, &a), -TDR_E_CORRUPT);
	d[sz - 1] = 2;
	d[8 + 34 + 1] = 0;
	assert_int_equal(tdr_archive__decode(d, sz, &a), -TDR_E_CORRUPT);
	d[8 + 34 + 1] = 1;
	{
		uint8_t *x = malloc(sz + 1);

		memcpy(x, d, sz);
		x[sz] = 0;
		tdr_put_le32(x, (uint32_t)(sz + 1 - 8));
		assert_int_equal(tdr_archive__decode(x, sz + 1, &a), -TDR_E_CORRUPT);
		free(x);
	}
	assert_int_equal(tdr_archive__decode(d, sz, &a), 0);
	tdr_archive__free(a);

	/* The builder refuses what the format cannot hold. */
	assert_int_equal(tdr_archive_builder__new(&bad), 0);
	assert_int_equal(tdr_archive_builder__stack(bad, 0, 0, &pc, 1), -EINVAL);
	tdr_archive_builder__set_frames(bad, 2);
	assert_int_equal(tdr_archive_builder__stack(bad, 2, 0, &pc, 1), -EINVAL);
	assert_int_equal(tdr_archive_builder__stack(bad, 1, 0, &pc, 0), -EINVAL);
	assert_int_equal(tdr_archive_builder__stack(bad, 1, 0, big, TDR_ARCHIVE_MAX_STACK + 1),
			 -EINVAL);
	assert_int_equal(tdr_archive_builder__stack(bad, 1, 0, big, TDR_ARCHIVE_MAX_STACK), 0);
	tdr_archive_builder__free(bad);
	/* Dropped, the stacks leave the bytes of test_archive__layout. */
	tdr_archive_builder__drop_stacks(b);
	free(d);
	assert_int_equal(tdr_archive_builder__encode(b, 0, (void **)&d, &sz), 0);
	assert_int_equal(sz, 8 + 34);
	free(d);
	free(d2);
	tdr_archive_builder__free(b);
	tdr_archive_builder__free(r);
}

/* tdrec archive's copy (report/archive_file.c): frames copied as they are
 * (tdr_reader__load_frame_block -> tdr_writer__copy_frame) give the same
 * frame blocks byte for byte, in the same order, and the same TOTALS once
 * the record counts are added; a codec 1 frame into a writer that would
 * not announce codec 1 is refused, and a damaged frame is not copied. */
static void copy_std(uint8_t codec)
{
	char *dir = tl_mkdtemp();
	char src_path[512], dst_path[512];
	struct tl_std std;
	struct tdr_reader *r, *r2;
	struct tdr_writer *w;
	struct tdr_writer_opts wo = {.archive = true};
	struct tdr_frame_buf buf = {0};
	const struct tdr_totals *t, *t2;
	uint8_t *a, *b;
	size_t asz, bsz;

	snprintf(src_path, sizeof(src_path), "%s", tl_path(dir, "src.tdr"));
	snprintf(dst_path, sizeof(dst_path), "%s", tl_path(dir, "dst.tdr"));
	tl_std_init(&std);
	std.codec = codec;
	assert_int_equal(tl_write_std(src_path, &std, true), 0);
	assert_int_equal(tdr_reader__open(src_path, &r), 0);
	wo.path = dst_path;
	wo.codec = codec;
	assert_int_equal(tdr_writer__open(&wo, tdr_reader__meta(r), &w), 0);
	for (size_t i = 0; i < tdr_reader__frame_cnt(r); i++) {
		const void *payload;

		assert_int_equal(tdr_reader__load_frame_block(r, i, &buf, &payload), 0);
		assert_int_equal(tdr_writer__copy_frame(w, tdr_reader__frame(r, i), payload), 0);
	}
	t = tdr_reader__totals(r);
	tdr_writer__add_counts(w, &(struct tdr_record_counts){
				      .samples = t->samples,
				      .lost_records = t->lost_records,
				      .lost_samples = t->lost_samples,
				      .throttles = t->throttles,
				      .unthrottles = t->unthrottles});
	assert_int_equal(tdr_writer__finish(w, NULL, 0, NULL), 0);
	tdr_writer__free(w);
	assert_int_equal(tdr_reader__open(dst_path, &r2), 0);
	assert_int_equal(tdr_reader__frame_cnt(r2), TL_STD_FRAMES);
	t2 = tdr_reader__totals(r2);
	assert_memory_equal(t2, t, offsetof(struct tdr_totals, event_cnt));
	assert_int_equal(t2->samples, std.counts.samples);
	assert_int_equal(tl_slurp(src_path, &a, &asz), 0);
	assert_int_equal(tl_slurp(dst_path, &b, &bsz), 0);
	for (size_t i = 0; i < TL_STD_FRAMES; i++) {
		const struct tdr_frame_info *x = tdr_reader__frame(r, i), *y = tdr_reader__frame(r2, i);
		size_t n = 24 + 24 + x->comp_sz; /* block header, frame header, payload */

		assert_int_equal(x->ring, std.ring[i]);
		assert_int_equal(y->ring, x->ring);
		assert_int_equal(y->codec, x->codec);
		assert_true(x->offset + n <= asz && y->offset + n <= bsz);
		assert_memory_equal(b + y->offset, a + x->offset, n);
		/* and the records decode the same */
		assert_int_equal(tdr_reader__load_frame(r2, i, &buf), 0);
		assert_int_equal(buf.sz, std.frame_sz[i]);
		assert_memory_equal(buf.data, std.frame[i], buf.sz);
	}
	/* Refusals: codec 1 into a writer opened without it; a damaged block. */
	if (codec == TDR_CODEC_COLUMNS) {
		const void *payload;

		wo.codec = 0;
		assert_int_equal(tdr_writer__open(&wo, tdr_reader__meta(r), &w), 0);
		assert_int_equal(tdr_reader__load_frame_block(r, 0, &buf, &payload), 0);
		if (tdr_reader__frame(r, 0)->codec == TDR_CODEC_COLUMNS)
			assert_int_equal(tdr_writer__copy_frame(w, tdr_reader__frame(r, 0), payload),
					 -EINVAL);
		tdr_writer__free(w);
	} else {
		const void *payload;
		FILE *f = fopen(src_path, "r+b");
		uint64_t off = tdr_reader__frame(r, 1)->offset + 24 + 24;

		assert_non_null(f);
		assert_int_equal(fseek(f, (long)off, SEEK_SET), 0);
		fputc(a[off] ^ 0x40, f);
		fclose(f);
		tl_quiet();
		assert_int_equal(tdr_reader__load_frame_block(r, 1, &buf, &payload), -TDR_E_CORRUPT);
		tl_loud();
	}
	free(a);
	free(b);
	tdr_frame_buf__release(&buf);
	tdr_reader__free(r);
	tdr_reader__free(r2);
	tl_rmdir(dir);
}

static void test_archive__frames_copied_as_they_are(void **state)
{
	(void)state;
	copy_std(0);
	copy_std(TDR_CODEC_COLUMNS);
}

#define N_ADDR 3000

/* Objects of every kind; answers with every optional part; order from seed. */
static struct tdr_archive_builder *big_builder(unsigned seed, long dso_idx[4])
{
	static const uint8_t bid20[20] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10,
					  11, 12, 13, 14, 15, 16, 17, 18, 19, 20};
	static struct tdr_archive_frame fr[TDR_ARCHIVE_MAX_INLINES];
	struct tdr_archive_builder *b;
	char fn[32], file[32];
	unsigned order[N_ADDR];

	for (size_t i = 0; i < TDR_ARCHIVE_MAX_INLINES; i++)
		fr[i] = (struct tdr_archive_frame){.function = i % 3 ? "inl" : NULL,
						   .call_file = i % 5 ? "h.h" : NULL,
						   .call_line = (uint32_t)i,
						   .call_column = UINT32_MAX - (uint32_t)i};
	assert_int_equal(tdr_archive_builder__new(&b), 0);
	/* Added in an order that depends on the seed; same keys every time. */
	for (int k = 0; k < 4; k++) {
		int i = (int)((unsigned)k + seed) % 4;

		switch (i) {
		case 0:
			dso_idx[0] = tdr_archive_builder__dso(b, TDR_ARCHIVE_FILE, "/bin/prog",
							      bid20, 20);
			break;
		case 1:
			dso_idx[1] = tdr_archive_builder__dso(b, TDR_ARCHIVE_FILE, "/bin/prog",
							      NULL, 0);
			break;
		case 2:
			dso_idx[2] = tdr_archive_builder__dso(b, TDR_ARCHIVE_KERNEL,
							      "[kernel.kallsyms]", NULL, 0);
			break;
		default:
			dso_idx[3] = tdr_archive_builder__dso(b, TDR_ARCHIVE_FILE, "lib.so", bid20, 3);
		}
	}
	for (unsigned i = 0; i < N_ADDR; i++)
		order[i] = i;
	srand(seed);
	for (unsigned i = N_ADDR - 1; seed && i > 0; i--) {
		unsigned j = (unsigned)rand() % (i + 1), t = order[i];

		order[i] = order[j];
		order[j] = t;
	}
	for (unsigned n = 0; n < N_ADDR; n++) {
		unsigned i = order[n];
		struct tdr_archive_sym s = {0};
		uint64_t off = i % 7 == 0 ? UINT64_MAX - i : (uint64_t)i * 13;

		snprintf(fn, sizeof(fn), "fn_%u", i / 10);
		snprintf(file, sizeof(file), "src/f%u.c", i / 100);
		if (i % 11 == 0) {
			s.status = TDR_ARCHIVE_SYM_NO_SYMBOL;
		} else {
			s.status = TDR_ARCHIVE_SYM_OK;
			s.function = fn;
			s.function_offset = i % 10;
			s.function_size = i % 4 ? 100 : 0;
			s.file = i % 6 ? file : NULL;
			s.line = i;
			s.column = i % 9;
			s.inline_cnt = i == 1 ? TDR_ARCHIVE_MAX_INLINES : i % 4;
			s.inlines = s.inline_cnt ? fr : NULL;
		}
		assert_int_equal(tdr_archive_builder__add(b, dso_idx[i % 4], off, &s), 0);
	}
	return b;
}

static void check_big(const struct tdr_archive *a)
{
	static struct tdr_archive_frame frames[TDR_ARCHIVE_MAX_INLINES];
	static const uint8_t bid20[20] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10,
					  11, 12, 13, 14, 15, 16, 17, 18, 19, 20};
	long d[4];
	char fn[32], file[32];

	d[0] = tdr_archive__find_dso(a, TDR_ARCHIVE_FILE, "/bin/prog", bid20, 20);
	d[1] = tdr_archive__find_dso(a, TDR_ARCHIVE_FILE, "/bin/prog", NULL, 0);
	d[2] = tdr_archive__find_dso(a, TDR_ARCHIVE_KERNEL, "[kernel.kallsyms]", NULL, 0);
	d[3] = tdr_archive__find_dso(a, TDR_ARCHIVE_FILE, "lib.so", bid20, 3);
	for (int i = 0; i < 4; i++)
		assert_true(d[i] >= 0);
	assert_true(d[0] != d[1]);
	/* By build-id under another name (the file moved); not for a kernel
	 * or a file without build-id. */
	assert_int_equal(tdr_archive__find_dso(a, TDR_ARCHIVE_FILE, "/elsewhere", bid20, 20), d[0]);
	assert_int_equal(tdr_archive__find_dso(a, TDR_ARCHIVE_FILE, "/elsewhere", NULL, 0), -1);
	assert_int_equal(tdr_archive__find_dso(a, TDR_ARCHIVE_FILE, "/bin/prog", bid20, 19), -1);
	assert_int_equal(tdr_archive__find_dso(a, TDR_ARCHIVE_KERNEL, "/bin/prog", NULL, 0), -1);
	assert_int_equal(tdr_archive__stats(a)->addrs, N_ADDR);
	for (unsigned i = 0; i < N_ADDR; i++) {
		struct tdr_archive_sym s;
		uint64_t off = i % 7 == 0 ? UINT64_MAX - i : (uint64_t)i * 13;

		assert_true(tdr_archive__find(a, (size_t)d[i % 4], off, &s, frames) >= 0);
		assert_int_equal(tdr_archive__find(a, (size_t)d[i % 4], off + 1, &s, frames), -1);
		assert_true(tdr_archive__find(a, (size_t)d[i % 4], off, &s, frames) >= 0);
		if (i % 11 == 0) {
			assert_int_equal(s.status, TDR_ARCHIVE_SYM_NO_SYMBOL);
			continue;
		}
		snprintf(fn, sizeof(fn), "fn_%u", i / 10);
		snprintf(file, sizeof(file), "src/f%u.c", i / 100);
		assert_int_equal(s.status, TDR_ARCHIVE_SYM_OK);
		assert_string_equal(s.function, fn);
		assert_int_equal(s.function_offset, i % 10);
		assert_int_equal(s.function_size, i % 4 ? 100 : 0);
		if (i % 6)
			assert_string_equal(s.file, file);
		else
			assert_null(s.file);
		assert_int_equal(s.line, i);
		assert_int_equal(s.column, i % 9);
		assert_int_equal(s.inline_cnt, i == 1 ? TDR_ARCHIVE_MAX_INLINES : i % 4);
		for (uint32_t j = 0; j < s.inline_cnt; j++) {
			if (j % 3)
				assert_string_equal(s.inlines[j].function, "inl");
			else
				assert_null(s.inlines[j].function);
			if (j % 5)
				assert_string_equal(s.inlines[j].call_file, "h.h");
			else
				assert_null(s.inlines[j].call_file);
			assert_int_equal(s.inlines[j].call_line, j);
			assert_int_equal(s.inlines[j].call_column, UINT32_MAX - j);
		}
	}
}

static void test_archive__round_trip_and_determinism(void **state)
{
	void *first = NULL;
	size_t first_sz = 0;

	(void)state;
	for (int level = 0; level <= 3; level += 3) {
		for (unsigned seed = 0; seed < 4; seed++) {
			long d[4];
			struct tdr_archive_builder *b = big_builder(seed, d);
			struct tdr_archive *a;
			void *data;
			size_t sz;

			assert_int_equal(tdr_archive_builder__encode(b, level, &data, &sz), 0);
			/* zstd is used when smaller; here it is. */
			assert_int_equal(((uint8_t *)data)[4], level ? 1 : 0);
			if (seed == 0) {
				free(first);
				first = tdr_malloc(sz);
				memcpy(first, data, sz);
				first_sz = sz;
			} else {
				assert_int_equal(sz, first_sz);
				assert_memory_equal(data, first, sz);
			}
			assert_int_equal(tdr_archive__decode(data, sz, &a), 0);
			check_big(a);
			tdr_archive__free(a);
			free(data);
			tdr_archive_builder__free(b);
		}
	}
	free(first);
}

static void test_archive__through_a_file(void **state)
{
	char *dir = tl_mkdtemp();
	const char *path = tl_path(dir, "a.tdr");
	struct tdr_writer_opts wo = {.path = path, .archive = true};
	struct tdr_meta meta = {0};
	struct tdr_writer *w;
	struct tdr_reader *r;
	struct tdr_archive *a;
	long d[4];
	struct tdr_archive_builder *b = big_builder(1, d);
	const void *sec;
	void *data;
	size_t sz, sec_sz;

	(void)state;
	tl_make_meta(&meta);
	assert_int_equal(tdr_archive_builder__encode(b, 3, &data, &sz), 0);
	assert_int_equal(tdr_writer__open(&wo, &meta, &w), 0);
	assert_int_equal(tdr_writer__add_section(w, TDR_SECTION_ARCHIVE, data, sz), 0);
	assert_int_equal(tdr_writer__finish(w, NULL, 0, NULL), 0);
	tdr_writer__free(w);
	assert_int_equal(tdr_reader__open(path, &r), 0);
	/* A file that may hold an archive says minor 4. */
	assert_int_equal(tdr_reader__status(r)->minor, 4);
	assert_int_equal(tdr_reader__section(r, TDR_SECTION_ARCHIVE, &sec, &sec_sz), 0);
	assert_int_equal(sec_sz, sz);
	assert_int_equal(tdr_archive__decode(sec, sec_sz, &a), 0);
	check_big(a);
	tdr_archive__free(a);
	tdr_reader__free(r);
	tl_rmdir(dir);
	free(data);
	tdr_archive_builder__free(b);
	tdr_meta__clear(&meta);
}

static void test_archive__builder_refuses_what_a_reader_would(void **state)
{
	static char long_str[TDR_ARCHIVE_STR_MAX + 2];
	struct tdr_archive_builder *b;
	struct tdr_archive_frame fr = {0};
	struct tdr_archive_sym ok = {.status = TDR_ARCHIVE_SYM_OK, .function = "f"};
	struct tdr_archive_sym s;
	long d;

	(void)state;
	memset(long_str, 'x', sizeof(long_str) - 1);
	assert_int_equal(tdr_archive_builder__new(&b), 0);
	assert_int_equal(tdr_archive_builder__dso(b, 0, "", NULL, 0), -EINVAL);
	assert_int_equal(tdr_archive_builder__dso(b, 0, NULL, NULL, 0), -EINVAL);
	assert_int_equal(tdr_archive_builder__dso(b, 2, "/x", NULL, 0), -EINVAL);
	assert_int_equal(tdr_archive_builder__dso(b, 0, "/x", bid_a, 21), -EINVAL);
	assert_int_equal(tdr_archive_builder__dso(b, 0, long_str, NULL, 0), -EINVAL);
	d = tdr_archive_builder__dso(b, 0, "/x", NULL, 0);
	assert_int_equal(d, 0);
	assert_int_equal(tdr_archive_builder__dso(b, 0, "/x", NULL, 0), 0);
	assert_int_equal(tdr_archive_builder__dso(b, 1, "/x", NULL, 0), 1);
	assert_int_equal(tdr_archive_builder__add(b, 2, 0, &ok), -EINVAL);
	assert_int_equal(tdr_archive_builder__add(b, -1, 0, &ok), -EINVAL);
	s = ok;
	s.function = NULL; /* OK without a function */
	assert_int_equal(tdr_archive_builder__add(b, d, 0, &s), -EINVAL);
	s = (struct tdr_archive_sym){.status = TDR_ARCHIVE_SYM_NO_SYMBOL, .function = "f"};
	assert_int_equal(tdr_archive_builder__add(b, d, 0, &s), -EINVAL);
	s = ok;
	s.status = 2;
	assert_int_equal(tdr_archive_builder__add(b, d, 0, &s), -EINVAL);
	s = ok;
	s.inline_cnt = TDR_ARCHIVE_MAX_INLINES + 1;
	s.inlines = &fr;
	assert_int_equal(tdr_archive_builder__add(b, d, 0, &s), -EINVAL);
	s = ok;
	s.file = long_str;
	assert_int_equal(tdr_archive_builder__add(b, d, 0, &s), -EINVAL);
	assert_int_equal(tdr_archive_builder__cnt(b), 0);
	tdr_archive_builder__free(b);
}

/* Decoding never reads outside the data, and what it gives is in bounds. */
static void try_decode(const uint8_t *d, size_t sz)
{
	static struct tdr_archive_frame frames[TDR_ARCHIVE_MAX_INLINES];
	struct tdr_archive *a;
	struct tdr_archive_sym s;

	if (tdr_archive__decode(d, sz, &a))
		return;
	for (size_t i = 0; i < tdr_archive__dso_cnt(a); i++) {
		const struct tdr_archive_dso *o = tdr_archive__dso(a, i);

		assert_true(strlen(o->path) > 0);
		assert_true(o->build_id_sz <= 20);
		/* Probe a few offsets of each object. */
		for (uint64_t off = 0; off < 64; off++)
			if (tdr_archive__find(a, i, off, &s, frames) >= 0)
				assert_true(s.inline_cnt <= TDR_ARCHIVE_MAX_INLINES &&
					    (s.status != TDR_ARCHIVE_SYM_OK || strlen(s.function)));
	}
	for (uint64_t f = 0; f < 4; f++)
		for (uint32_t k = 0; k < 8; k++) {
			const uint64_t *pcs = NULL;
			uint32_t n = tdr_archive__stack(a, f, k, &pcs);

			assert_true(n <= TDR_ARCHIVE_MAX_STACK);
			if (n)
				assert_true(pcs[0] + pcs[n - 1] + 1 != 0 || n);
		}
	tdr_archive__free(a);
}

static void test_archive__every_cut_and_byte_flip(void **state)
{
	struct tdr_archive_builder *b = small_builder();
	struct tdr_archive *a;
	uint8_t *d;
	size_t sz;

	(void)state;
	add_small_stacks(b, false);
	assert_int_equal(tdr_archive_builder__encode(b, 0, (void **)&d, &sz), 0);
	/* A stored body must be whole: every cut is refused. */
	for (size_t n = 0; n < sz; n++)
		assert_int_equal(tdr_archive__decode(d, n, &a), -TDR_E_CORRUPT);
	for (size_t i = 0; i < sz; i++)
		for (int bit = 0; bit < 8; bit++) {
			d[i] ^= (uint8_t)(1u << bit);
			try_decode(d, sz);
			d[i] ^= (uint8_t)(1u << bit);
		}
	free(d);
	/* The same for a compressed body (the zstd frame is checked whole). */
	{
		long di[4];
		struct tdr_archive_builder *big = big_builder(0, di);

		assert_int_equal(tdr_archive_builder__encode(big, 3, (void **)&d, &sz), 0);
		for (size_t n = 0; n < sz; n += 7)
			assert_true(tdr_archive__decode(d, n, &a) < 0);
		for (size_t i = 0; i < sz; i += 3) {
			d[i] ^= 0x5a;
			try_decode(d, sz);
			d[i] ^= 0x5a;
		}
		free(d);
		tdr_archive_builder__free(big);
	}
	tdr_archive_builder__free(b);
}

static void test_archive__hostile_sizes(void **state)
{
	uint8_t d[64] = {0};
	struct tdr_archive *a;

	(void)state;
	/* A body above the cap is refused before anything is allocated. */
	tdr_put_le32(d, TDR_ARCHIVE_MAX_RAW + 1);
	d[4] = 1;
	assert_int_equal(tdr_archive__decode(d, sizeof(d), &a), -TDR_E_LIMIT);
	/* An unknown method. */
	tdr_put_le32(d, 4);
	d[4] = 2;
	assert_int_equal(tdr_archive__decode(d, 12, &a), -TDR_E_CORRUPT);
	/* Counts above what the body can hold. */
	d[4] = 0;
	memcpy(d + 8, "\xff\xff\x03\x00", 4); /* 65535 strings in 4 bytes */
	assert_int_equal(tdr_archive__decode(d, 12, &a), -TDR_E_CORRUPT);
	memcpy(d + 8, "\x00\x7f\x00\x00", 4); /* 127 objects */
	assert_int_equal(tdr_archive__decode(d, 12, &a), -TDR_E_CORRUPT);
	/* The empty archive (no string, no object) is valid. */
	tdr_put_le32(d, 2);
	memcpy(d + 8, "\x00\x00", 2);
	assert_int_equal(tdr_archive__decode(d, 10, &a), 0);
	assert_int_equal(tdr_archive__stats(a)->addrs, 0);
	tdr_archive__free(a);
	/* An empty string, a NUL in a string, a reference past the table. */
	tdr_put_le32(d, 6);
	memcpy(d + 8, "\x01\x00\x01\x00\x00\x00", 6);
	assert_int_equal(tdr_archive__decode(d, 14, &a), -TDR_E_CORRUPT);
	memcpy(d + 8, "\x01\x02\x61\x00\x00\x00", 6);
	assert_int_equal(tdr_archive__decode(d, 14, &a), -TDR_E_CORRUPT);
	tdr_put_le32(d, 9);
	memcpy(d + 8, "\x01\x01\x61\x01\x00\x01\x00\x00\x00", 9); /* path 1 of 1 string */
	assert_int_equal(tdr_archive__decode(d, 17, &a), -TDR_E_CORRUPT);
	tdr_put_le32(d, 8);
	memcpy(d + 8, "\x01\x01\x61\x01\x00\x00\x00\x00", 8);
	assert_int_equal(tdr_archive__decode(d, 16, &a), 0);
	tdr_archive__free(a);
	/* Two addresses with the same offset (delta 0): not ascending. */
	tdr_put_le32(d, 12);
	memcpy(d + 8, "\x01\x01\x61\x01\x00\x00\x00\x02\x05\x01\x00\x01", 12);
	assert_int_equal(tdr_archive__decode(d, 20, &a), -TDR_E_CORRUPT);
	d[8 + 10] = 1; /* delta 1 */
	assert_int_equal(tdr_archive__decode(d, 20, &a), 0);
	assert_int_equal(tdr_archive__stats(a)->addrs, 2);
	tdr_archive__free(a);
	/* Bytes after the last answer. */
	tdr_put_le32(d, 13);
	assert_int_equal(tdr_archive__decode(d, 21, &a), -TDR_E_CORRUPT);
}

/* Build, encode and decode a few answers; the first error, or 0. */
static int build_encode_decode(int level)
{
	struct tdr_archive_frame fr[2] = {{.function = "g", .call_file = "x.c", .call_line = 9},
					  {.function = "h", .call_file = "y.c", .call_line = 1}};
	struct tdr_archive_sym s = {.status = TDR_ARCHIVE_SYM_OK, .function = "f", .file = "x.c",
				    .line = 7, .inline_cnt = 2, .inlines = fr};
	struct tdr_archive_builder *b = NULL;
	struct tdr_archive *a = NULL;
	void *d = NULL;
	size_t sz;
	long o;
	int err = tdr_archive_builder__new(&b);

	for (int i = 0; !err && i < 3; i++) {
		char path[16];

		snprintf(path, sizeof(path), "/lib%d.so", i);
		o = tdr_archive_builder__dso(b, TDR_ARCHIVE_FILE, path, NULL, 0);
		err = o < 0 ? (int)o : 0;
		for (uint64_t off = 0; !err && off < 700; off += 7)
			err = tdr_archive_builder__add(b, o, off, &s);
	}
	if (!err)
		err = tdr_archive_builder__encode(b, level, &d, &sz);
	if (!err)
		err = tdr_archive__decode(d, sz, &a);
	tdr_archive__free(a);
	free(d);
	tdr_archive_builder__free(b);
	return err;
}

/* Every allocation failing in turn: -ENOMEM (or success), nothing leaked
 * (ASan build). */
static void test_archive__allocation_failures(void **state)
{
	(void)state;
	for (int level = 0; level <= 3; level += 3) {
		long n;
		int err = -ENOMEM;

		for (n = 0; err && n < 10000; n++) {
			tdr_mem_fail_after(n);
			err = build_encode_decode(level);
			tdr_mem_fail_after(-1);
			assert_true(err == 0 || err == -ENOMEM);
		}
		assert_int_equal(err, 0);
		assert_true(n > 10);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_archive__layout),
	    cmocka_unit_test(test_archive__buffer_given_again),
	    cmocka_unit_test(test_archive__stacks_layout),
	    cmocka_unit_test(test_archive__frames_copied_as_they_are),
	    cmocka_unit_test(test_archive__round_trip_and_determinism),
	    cmocka_unit_test(test_archive__through_a_file),
	    cmocka_unit_test(test_archive__builder_refuses_what_a_reader_would),
	    cmocka_unit_test(test_archive__every_cut_and_byte_flip),
	    cmocka_unit_test(test_archive__hostile_sizes),
	    cmocka_unit_test(test_archive__allocation_failures),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
