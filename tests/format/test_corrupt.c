/*
 * tests/format/test_corrupt.c - damaged and hostile .tdr files.
 *
 * A small valid file cut at every byte offset reads as a correct prefix of
 * its frames (or fails cleanly before the metadata ends), with codec 0
 * frames and again with codec 1 (what the recorder writes); flipped bits in
 * frames are caught by checksums, in the header and metadata they make the
 * file unreadable, in the trailer they fall back to scanning; hand-crafted
 * files with valid checksums but hostile sizes are refused without large
 * allocations (the test runs with ASan's max_allocation_size_mb, see
 * CMakeLists.txt). Newer major versions are refused.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "fixup_crcs.h"
#include "testlib.h"
#include "tdrec/tdr_endian.h"
#include "tdrec/tdr_err.h"
#include "tdrec/tdr_mem.h"

struct fixture {
	char *dir;
	struct tl_std std;
	uint8_t *data; /* the standard file */
	size_t sz;
	struct tl_block blk[16];
	size_t blk_cnt;
};

static int setup_codec(void **state, uint8_t codec)
{
	struct fixture *f = calloc(1, sizeof(*f));
	struct tdr_reader *r = NULL;
	size_t cols = 0;
	const char *path;

	f->dir = tl_mkdtemp();
	path = tl_path(f->dir, "std.tdr");
	tl_std_init(&f->std);
	f->std.codec = codec;
	assert_int_equal(tl_write_std(path, &f->std, true), 0);
	assert_int_equal(tl_slurp(path, &f->data, &f->sz), 0);
	f->blk_cnt = tl_blocks(f->data, f->sz, f->blk, 16);
	/* metadata, 4 frames, 2 sections, trailer */
	assert_int_equal(f->blk_cnt, 8);
	/* With codec 1, the frames that hold samples use it. */
	assert_int_equal(tdr_reader__open_mem(f->data, f->sz, &r), 0);
	for (size_t i = 0; i < tdr_reader__frame_cnt(r); i++)
		cols += tdr_reader__frame(r, i)->codec == TDR_CODEC_COLUMNS;
	assert_true(codec == TDR_CODEC_COLUMNS ? cols > 0 : cols == 0);
	tdr_reader__free(r);
	tl_quiet();
	*state = f;
	return 0;
}

/* The standard file with codec 0 frames, and with codec 1 (what the
 * recorder writes) for the cut and flip tests. */
static int setup(void **state)
{
	return setup_codec(state, TDR_CODEC_RAW_ZSTD);
}

static int setup_cols(void **state)
{
	return setup_codec(state, TDR_CODEC_COLUMNS);
}

static int teardown(void **state)
{
	struct fixture *f = *state;

	tl_loud();
	tl_rmdir(f->dir);
	free(f->data);
	free(f);
	return 0;
}

/* Which standard frame starts at off in the standard file, or -1. */
static int std_frame_at(const struct fixture *f, uint64_t off)
{
	int idx = 0;

	for (size_t i = 0; i < f->blk_cnt; i++) {
		if (f->blk[i].type != TDR_BLOCK_FRAME)
			continue;
		if (f->blk[i].off == off)
			return idx;
		idx++;
	}
	return -1;
}

/* Load every frame of r; those that load must equal the standard frame at
 * the same offset. Returns a bitmask of the standard frames that loaded. */
static unsigned load_all(const struct fixture *f, const struct tdr_reader *r)
{
	struct tdr_frame_buf buf = { 0 };
	unsigned ok = 0;

	for (size_t i = 0; i < tdr_reader__frame_cnt(r); i++) {
		int k = std_frame_at(f, tdr_reader__frame(r, i)->offset);
		int err = tdr_reader__load_frame(r, i, &buf);

		assert_true(k >= 0);
		if (err) {
			assert_true(err == -TDR_E_CORRUPT || err == -TDR_E_ZSTD);
			assert_int_equal(buf.sz, 0);
			continue;
		}
		assert_int_equal(buf.sz, f->std.frame_sz[k]);
		assert_memory_equal(buf.data, f->std.frame[k], buf.sz);
		ok |= 1u << k;
	}
	tdr_frame_buf__release(&buf);
	return ok;
}

static void test_corrupt__cut_at_every_offset(void **state)
{
	struct fixture *f = *state;
	uint64_t meta_end = f->blk[0].end;

	for (size_t cut = 0; cut <= f->sz; cut++) {
		/* A private copy, so ASan sees any read past the cut. */
		uint8_t *copy = malloc(cut ? cut : 1);
		const struct tdr_file_status *st;
		struct tdr_reader *r = NULL;
		unsigned want = 0, nframes = 0;
		uint64_t intact = meta_end;
		bool trailer = false;
		const void *d;
		size_t dsz;
		int err, k = 0;

		memcpy(copy, f->data, cut);
		err = tdr_reader__open_mem(copy, cut, &r);
		if (cut < meta_end) {
			assert_int_equal(err, -TDR_E_TRUNCATED);
			free(copy);
			continue;
		}
		assert_int_equal(err, 0);
		for (size_t i = 1; i < f->blk_cnt; i++) {
			if (f->blk[i].end > cut)
				break;
			intact = f->blk[i].end;
			if (f->blk[i].type == TDR_BLOCK_FRAME) {
				want |= 1u << k;
				nframes++;
			}
			k += f->blk[i].type == TDR_BLOCK_FRAME;
			trailer |= f->blk[i].type == TDR_BLOCK_TRAILER;
		}
		if (cut == f->sz)
			intact = f->sz;
		st = tdr_reader__status(r);
		assert_int_equal(st->file_sz, cut);
		assert_int_equal(st->intact_sz, intact);
		assert_int_equal(st->truncated, cut != f->sz);
		assert_int_equal(st->has_trailer, trailer);
		assert_int_equal(tdr_reader__totals(r) != NULL, trailer);
		assert_int_equal(st->bad_frames, 0);
		assert_int_equal(tdr_reader__frame_cnt(r), nframes);
		assert_int_equal(load_all(f, r), want);
		/* The DSO table (after frame 1) is there once it is complete. */
		err = tdr_reader__section(r, TDR_SECTION_DSO_TABLE, &d, &dsz);
		assert_int_equal(err, cut >= f->blk[3].end ? 0 : -ENOENT);
		tdr_reader__free(r);
		free(copy);
	}
}

static void test_corrupt__flipped_frame_bytes_are_detected(void **state)
{
	struct fixture *f = *state;
	const struct tl_block *b = &f->blk[2]; /* frame 1 */
	uint8_t *copy = malloc(f->sz);
	size_t flips = 0;

	assert_int_equal(b->type, TDR_BLOCK_FRAME);
	for (uint64_t pos = b->off; pos < b->off + TDR_BLOCK_HDR_SZ + b->payload_sz; pos++) {
		for (unsigned bit = 0; bit < 8; bit += 7) {
			struct tdr_reader *r = NULL;
			unsigned ok;

			memcpy(copy, f->data, f->sz);
			copy[pos] ^= (uint8_t)(1u << bit);
			assert_int_equal(tdr_reader__open_mem(copy, f->sz, &r), 0);
			ok = load_all(f, r);
			/* Frame 1 never loads; frame 0 always does. */
			assert_int_equal(ok & 2, 0);
			assert_true(ok & 1);
			if (pos >= b->off + TDR_BLOCK_HDR_SZ + TDR_FRAME_HDR_SZ) {
				/* Compressed data: the index still holds, the payload
				 * checksum fails at load. */
				assert_true(tdr_reader__status(r)->has_trailer);
				assert_false(tdr_reader__status(r)->truncated);
				assert_int_equal(ok, 0xd);
				struct tdr_frame_buf fb = { 0 };

				/* The block is read into fb before its checksum
				 * fails: released like any frame buffer. */
				assert_int_equal(tdr_reader__load_frame(r, 1, &fb), -TDR_E_CORRUPT);
				tdr_frame_buf__release(&fb);
			} else if (pos >= b->off + TDR_BLOCK_HDR_SZ) {
				/* Frame header: left out as a bad frame by the scan. */
				assert_int_equal(tdr_reader__status(r)->bad_frames, 1);
				assert_int_equal(ok, 0xd);
			} else {
				/* Block header: the scan stops before it. */
				assert_true(tdr_reader__status(r)->truncated);
				assert_int_equal(tdr_reader__status(r)->intact_sz, b->off);
				assert_int_equal(ok, 0x1);
			}
			tdr_reader__free(r);
			flips++;
		}
	}
	assert_true(flips > 100);
	free(copy);
}

static void test_corrupt__flipped_header_or_metadata_is_refused(void **state)
{
	struct fixture *f = *state;
	const struct tl_block *m = &f->blk[0];
	uint8_t *copy = malloc(f->sz);

	for (uint64_t pos = 0; pos < m->off + TDR_BLOCK_HDR_SZ + m->payload_sz; pos++) {
		for (unsigned bit = 0; bit < 8; bit++) {
			struct tdr_reader *r = NULL;
			int err;

			memcpy(copy, f->data, f->sz);
			copy[pos] ^= (uint8_t)(1u << bit);
			err = tdr_reader__open_mem(copy, f->sz, &r);
			if (pos < 8)
				assert_int_equal(err, -TDR_E_FORMAT);
			else if (pos == TDR_FH_MAJOR && bit == 0)
				assert_int_equal(err, -TDR_E_FORMAT); /* major 0 */
			else if (pos == TDR_FH_MAJOR || pos == TDR_FH_MAJOR + 1)
				assert_int_equal(err, -TDR_E_VERSION);
			else
				assert_int_equal(err, -TDR_E_CORRUPT);
			assert_null(r);
		}
	}
	free(copy);
}

static void test_corrupt__flipped_trailer_falls_back_to_scanning(void **state)
{
	struct fixture *f = *state;
	const struct tl_block *t = &f->blk[7];
	uint8_t *copy = malloc(f->sz);

	assert_int_equal(t->type, TDR_BLOCK_TRAILER);
	for (uint64_t pos = t->off; pos < f->sz; pos++) {
		struct tdr_reader *r = NULL;

		if (pos >= t->off + TDR_BLOCK_HDR_SZ + t->payload_sz && pos < t->end)
			continue; /* padding is not covered by any checksum */
		memcpy(copy, f->data, f->sz);
		copy[pos] ^= 0x10;
		assert_int_equal(tdr_reader__open_mem(copy, f->sz, &r), 0);
		assert_true(tdr_reader__status(r)->truncated);
		assert_int_equal(tdr_reader__frame_cnt(r), TL_STD_FRAMES);
		assert_int_equal(load_all(f, r), 0xf);
		tdr_reader__free(r);
	}
	free(copy);
}

static void test_corrupt__newer_major_is_refused(void **state)
{
	struct fixture *f = *state;
	uint8_t *copy = malloc(f->sz);
	struct tdr_reader *r = NULL;

	memcpy(copy, f->data, f->sz);
	tdr_put_le16(copy + TDR_FH_MAJOR, TDR_FORMAT_MAJOR + 1);
	tdr_test_fixup_crcs(copy, f->sz);
	assert_int_equal(tdr_reader__open_mem(copy, f->sz, &r), -TDR_E_VERSION);
	/* Whatever follows the version, even cut short. */
	assert_int_equal(tdr_reader__open_mem(copy, 12, &r), -TDR_E_VERSION);
	memset(copy + 12, 0xee, f->sz - 12);
	assert_int_equal(tdr_reader__open_mem(copy, f->sz, &r), -TDR_E_VERSION);
	assert_null(r);
	free(copy);
}

static void test_corrupt__not_a_tdr_file(void **state)
{
	struct tdr_reader *r = NULL;

	(void)state;
	assert_int_equal(tdr_reader__open_mem("PERFILE2 and more bytes here", 28, &r), -TDR_E_FORMAT);
	assert_int_equal(tdr_reader__open_mem("", 0, &r), -TDR_E_TRUNCATED);
	assert_int_equal(tdr_reader__open_mem("\x89TD", 3, &r), -TDR_E_TRUNCATED);
	assert_int_equal(tdr_reader__open_mem("\x89TDX", 4, &r), -TDR_E_FORMAT);
	assert_int_equal(tdr_reader__open("/nonexistent/x.tdr", &r), -ENOENT);
	assert_int_equal(tdr_reader__open("/tmp", &r), -TDR_E_NOTREG);
	assert_int_equal(tdr_reader__open("/dev/null", &r), -TDR_E_NOTREG);
	assert_null(r);
}

/* ---------------------------------------------------------------------------
 * Hand-crafted files with valid checksums and hostile content.
 */

/* Open a file made of the header, a metadata block with payload mb, and
 * nothing else. */
static int open_with_meta(const struct tdr_buf *mb)
{
	struct tdr_buf fb = { 0 };
	struct tdr_reader *r = NULL;
	int err;

	tl_put_file_hdr(&fb, TDR_FORMAT_MAJOR, TDR_FORMAT_MINOR);
	tl_put_block(&fb, TDR_BLOCK_METADATA, mb->data, mb->sz);
	err = tdr_reader__open_mem(fb.data, fb.sz, &r);
	tdr_reader__free(r);
	tdr_buf__release(&fb);
	return err;
}

static void put_raw_tlv(struct tdr_buf *b, uint32_t tag, uint32_t len, const void *val,
			size_t real)
{
	uint8_t *p = tdr_buf__put(b, TDR_TLV_HDR_SZ + real);

	tdr_put_le32(p, tag);
	tdr_put_le32(p + 4, len);
	memcpy(p + TDR_TLV_HDR_SZ, val, real);
}

static void put_event(struct tdr_buf *b, const char *name, const void *ids, size_t ids_sz,
		      uint32_t ids_len)
{
	struct perf_event_attr a = { .size = sizeof(a) };
	size_t pos = tdr_buf__tlv_begin(b, TDR_MT_EVENT);

	tdr_buf__tlv_str(b, TDR_ET_NAME, name);
	tdr_buf__tlv(b, TDR_ET_ATTR, &a, sizeof(a));
	if (ids)
		put_raw_tlv(b, TDR_ET_IDS, ids_len, ids, ids_sz);
	tdr_buf__tlv_end(b, pos);
}

static void test_corrupt__hostile_metadata_sizes(void **state)
{
	struct tdr_buf mb = { 0 }, fb = { 0 };
	struct tdr_reader *r = NULL;
	uint8_t ids[8] = { 0 }, hdr[TDR_BLOCK_HDR_SZ];
	char *big;

	(void)state;
	tl_quiet();
	/* A metadata block that claims 2^60 bytes. */
	tl_put_file_hdr(&fb, TDR_FORMAT_MAJOR, TDR_FORMAT_MINOR);
	tdr_block__put_hdr(hdr, TDR_BLOCK_METADATA, 1ull << 60, 0);
	memcpy(tdr_buf__put(&fb, sizeof(hdr)), hdr, sizeof(hdr));
	memset(tdr_buf__put(&fb, 64), 0, 64);
	assert_int_equal(tdr_reader__open_mem(fb.data, fb.sz, &r), -TDR_E_LIMIT);
	tdr_buf__release(&fb);

	/* A file header that claims a 2 GiB header. */
	tl_put_file_hdr(&fb, TDR_FORMAT_MAJOR, TDR_FORMAT_MINOR);
	tdr_put_le32(fb.data + TDR_FH_HDR_SZ, 0x7ffffff8);
	tdr_put_le32(fb.data + TDR_FH_CRC, tdr_crc32c(0, fb.data, TDR_FH_CRC));
	assert_int_equal(tdr_reader__open_mem(fb.data, fb.sz, &r), -TDR_E_CORRUPT);
	tdr_buf__release(&fb);

	/* An item longer than the payload. */
	put_raw_tlv(&mb, TDR_MT_HOSTNAME, 0xfffffff0u, "host", 4);
	assert_int_equal(open_with_meta(&mb), -TDR_E_CORRUPT);
	tdr_buf__release(&mb);

	/* A string above 64 KiB, present in full. */
	big = calloc(1, 70000);
	memset(big, 'x', 69999);
	tdr_buf__tlv(&mb, TDR_MT_HOSTNAME, big, 69999);
	assert_int_equal(open_with_meta(&mb), -TDR_E_LIMIT);
	tdr_buf__release(&mb);
	free(big);

	/* A string with a NUL inside. */
	tdr_buf__tlv(&mb, TDR_MT_HOSTNAME, "a\0b", 3);
	assert_int_equal(open_with_meta(&mb), -TDR_E_CORRUPT);
	tdr_buf__release(&mb);

	/* 2^31 ids announced in an 8-byte item; 1000 ids in 8 bytes. */
	tdr_put_le32(ids, 0x80000000u);
	put_event(&mb, "e", ids, 8, 8);
	assert_int_equal(open_with_meta(&mb), -TDR_E_LIMIT);
	tdr_buf__release(&mb);
	tdr_put_le32(ids, 1000);
	put_event(&mb, "e", ids, 8, 8);
	assert_int_equal(open_with_meta(&mb), -TDR_E_CORRUPT);
	tdr_buf__release(&mb);

	/* 257 events. */
	for (int i = 0; i < 257; i++)
		put_event(&mb, "e", NULL, 0, 0);
	assert_int_equal(open_with_meta(&mb), -TDR_E_LIMIT);
	tdr_buf__release(&mb);

	/* An event without a name; attrs of 10 and 5000 bytes. */
	{
		uint8_t attr[5000] = { 0 };
		size_t pos;

		pos = tdr_buf__tlv_begin(&mb, TDR_MT_EVENT);
		tdr_buf__tlv(&mb, TDR_ET_ATTR, attr, 128);
		tdr_buf__tlv_end(&mb, pos);
		assert_int_equal(open_with_meta(&mb), -TDR_E_CORRUPT);
		tdr_buf__release(&mb);
		for (int k = 0; k < 2; k++) {
			pos = tdr_buf__tlv_begin(&mb, TDR_MT_EVENT);
			tdr_buf__tlv_str(&mb, TDR_ET_NAME, "e");
			tdr_buf__tlv(&mb, TDR_ET_ATTR, attr, k ? 5000 : 10);
			tdr_buf__tlv_end(&mb, pos);
			assert_int_equal(open_with_meta(&mb), -TDR_E_CORRUPT);
			tdr_buf__release(&mb);
		}
	}

	/* A category term naming event 99 of a one-event file. */
	{
		uint8_t term[TDR_TERM_SZ] = { 0 };
		size_t pos;

		put_event(&mb, "e", NULL, 0, 0);
		pos = tdr_buf__tlv_begin(&mb, TDR_MT_CATEGORY);
		tdr_buf__tlv_str(&mb, TDR_CT_NAME, "retiring");
		tdr_put_le32(term, 99);
		tdr_buf__tlv(&mb, TDR_CT_NUM, term, sizeof(term));
		tdr_buf__tlv_end(&mb, pos);
		assert_int_equal(open_with_meta(&mb), -TDR_E_CORRUPT);
		tdr_buf__release(&mb);
	}

	/* A u32 field of 3 bytes. */
	tdr_buf__tlv(&mb, TDR_MT_PAGE_SZ, "abc", 3);
	assert_int_equal(open_with_meta(&mb), -TDR_E_CORRUPT);
	tdr_buf__release(&mb);
}

/* Change a field of frame 1's header in a copy of the standard file and
 * repair all checksums (the trailer index then no longer matches). */
static uint8_t *patch_frame1(const struct fixture *f, size_t field, uint32_t v)
{
	uint8_t *copy = malloc(f->sz);

	memcpy(copy, f->data, f->sz);
	tdr_put_le32(copy + f->blk[2].off + TDR_BLOCK_HDR_SZ + field, v);
	tdr_test_fixup_crcs(copy, f->sz);
	return copy;
}

static void test_corrupt__hostile_frame_headers(void **state)
{
	struct fixture *f = *state;
	const uint8_t *fh = f->data + f->blk[2].off + TDR_BLOCK_HDR_SZ;
	uint32_t raw = tdr_get_le32(fh + TDR_FR_RAW_SZ);
	uint32_t cnt = tdr_get_le32(fh + TDR_FR_RECORD_CNT);
	struct {
		size_t field;
		uint32_t v;
		bool listed; /* still in the frame list (the damage shows at load) */
	} cases[] = {
		{ TDR_FR_RAW_SZ, 0xffffffffu, false },	/* above 64 MiB */
		{ TDR_FR_RAW_SZ, TDR_FRAME_MAX_RAW, true },	/* within the cap: fails at load */
		{ TDR_FR_RAW_SZ, raw - 8, true },	/* decompresses to more */
		{ TDR_FR_RAW_SZ, raw + 8, true },	/* decompresses to less */
		{ TDR_FR_COMP_SZ, 5, false },		/* not payload_sz - 24 */
		{ TDR_FR_RECORD_CNT, cnt + 1, true },	/* records do not match */
		{ TDR_FR_RECORD_CNT, 0xffffffffu, false }, /* more records than bytes / 8 */
		{ TDR_FR_RING, 7, true },		/* harmless: just another ring */
	};

	for (size_t i = 0; i < TDR_ARRAY_SIZE(cases); i++) {
		uint8_t *copy = patch_frame1(f, cases[i].field, cases[i].v);
		struct tdr_reader *r = NULL;
		unsigned ok;

		assert_int_equal(tdr_reader__open_mem(copy, f->sz, &r), 0);
		/* The index no longer matches: the file was scanned, and it is
		 * complete (trailer and footer present). */
		assert_true(tdr_reader__status(r)->has_trailer);
		assert_false(tdr_reader__status(r)->truncated);
		assert_int_equal(tdr_reader__frame_cnt(r), cases[i].listed ? 4 : 3);
		assert_int_equal(tdr_reader__status(r)->bad_frames, cases[i].listed ? 0 : 1);
		ok = load_all(f, r);
		assert_int_equal(ok, cases[i].field == TDR_FR_RING ? 0xf : 0xd);
		tdr_reader__free(r);
		free(copy);
	}
}

static void test_corrupt__hostile_trailer_index(void **state)
{
	struct fixture *f = *state;
	struct tdr_buf fb = { 0 }, mb = { 0 }, tb = { 0 };
	struct tdr_reader *r = NULL;
	uint8_t list[8] = { 0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0 };
	uint64_t toff;

	(void)f;
	/* A frame index of 2^32 - 1 entries in an 8-byte item, and one entry
	 * pointing far outside the file. */
	for (int k = 0; k < 2; k++) {
		uint8_t entry[8 + TDR_FRAME_ENTRY_SZ] = { 1 };

		put_event(&mb, "e", NULL, 0, 0);
		tl_put_file_hdr(&fb, TDR_FORMAT_MAJOR, TDR_FORMAT_MINOR);
		tl_put_block(&fb, TDR_BLOCK_METADATA, mb.data, mb.sz);
		if (k == 0) {
			tdr_buf__tlv(&tb, TDR_TT_FRAME_INDEX, list, sizeof(list));
		} else {
			tdr_put_le64(entry + 8, 1ull << 62);
			tdr_buf__tlv(&tb, TDR_TT_FRAME_INDEX, entry, sizeof(entry));
		}
		toff = tl_put_block(&fb, TDR_BLOCK_TRAILER, tb.data, tb.sz);
		tl_put_footer(&fb, toff);
		assert_int_equal(tdr_reader__open_mem(fb.data, fb.sz, &r), 0);
		assert_int_equal(tdr_reader__frame_cnt(r), 0);
		/* An undecodable trailer is no trailer; one whose index points
		 * nowhere still gives totals, and the file is complete. */
		assert_int_equal(tdr_reader__status(r)->has_trailer, k == 1);
		assert_int_equal(tdr_reader__status(r)->truncated, k == 0);
		tdr_reader__free(r);
		tdr_buf__release(&fb);
		tdr_buf__release(&mb);
		tdr_buf__release(&tb);
	}
}

/* A COUNTED item (section 8.1) of cnt entries; entry i holds value
 * 100 + i with flags[i]. extra: bytes added to its length. */
static void put_counted(struct tdr_buf *tb, size_t cnt, const uint32_t *flags, size_t extra)
{
	uint8_t v[8 + 4 * TDR_COUNTED_ENTRY_SZ + 8] = { 0 };

	assert_true(cnt <= 4 && extra <= 8);
	tdr_put_le32(v, (uint32_t)cnt);
	for (size_t i = 0; i < cnt; i++) {
		uint8_t *e = v + 8 + i * TDR_COUNTED_ENTRY_SZ;

		tdr_put_le64(e, 100 + i);
		tdr_put_le64(e + 8, 20 + i);
		tdr_put_le64(e + 16, 10 + i);
		tdr_put_le32(e + 24, flags[i]);
	}
	tdr_buf__tlv(tb, TDR_TT_COUNTED, v, 8 + cnt * TDR_COUNTED_ENTRY_SZ + extra);
}

static void test_corrupt__counted_item_rules(void **state)
{
	/* Bit 0 known; bit 1 is reserved and ignored; 0: unknown. */
	static const uint32_t flags[3] = { TDR_COUNTED_KNOWN, 0, TDR_COUNTED_KNOWN | 2 };
	uint8_t ev_totals[8 + 2 * 16] = { 2 };
	struct tdr_buf tb = { 0 };
	struct tdr_trailer t;
	uint8_t big[8] = { 0 };

	(void)state;
	/* COUNTED first and longer than EVENT_TOTALS: one array of 3. */
	put_counted(&tb, 3, flags, 0);
	tdr_put_le64(ev_totals + 8, 7);	     /* event 0: samples */
	tdr_put_le64(ev_totals + 8 + 16, 9); /* event 1: samples */
	tdr_buf__tlv(&tb, TDR_TT_EVENT_TOTALS, ev_totals, sizeof(ev_totals));
	assert_int_equal(tdr_trailer__decode(tb.data, tb.sz, &t), 0);
	assert_int_equal(t.totals.event_cnt, 3);
	assert_int_equal(t.totals.events[0].samples, 7);
	assert_int_equal(t.totals.events[1].samples, 9);
	assert_int_equal(t.totals.events[2].samples, 0);
	assert_true(t.totals.events[0].has_counted);
	assert_int_equal(t.totals.events[0].counted, 100);
	assert_int_equal(t.totals.events[0].time_enabled_ns, 20);
	assert_int_equal(t.totals.events[0].time_running_ns, 10);
	assert_false(t.totals.events[1].has_counted);
	assert_int_equal(t.totals.events[1].counted, 0);
	assert_true(t.totals.events[2].has_counted);
	assert_int_equal(t.totals.events[2].counted, 102);
	tdr_trailer__release(&t);

	/* A length that is not 8 + 32 n, or a second item: corrupt. */
	tdr_buf__release(&tb);
	put_counted(&tb, 2, flags, 8);
	assert_int_equal(tdr_trailer__decode(tb.data, tb.sz, &t), -TDR_E_CORRUPT);
	tdr_buf__release(&tb);
	put_counted(&tb, 1, flags, 0);
	put_counted(&tb, 1, flags, 0);
	assert_int_equal(tdr_trailer__decode(tb.data, tb.sz, &t), -TDR_E_CORRUPT);
	/* More entries than the 256 events a file can have. */
	tdr_buf__release(&tb);
	tdr_put_le32(big, 257);
	tdr_buf__tlv(&tb, TDR_TT_COUNTED, big, sizeof(big));
	assert_int_equal(tdr_trailer__decode(tb.data, tb.sz, &t), -TDR_E_LIMIT);
	tdr_buf__release(&tb);
}

int main(void)
{
#define T(name) cmocka_unit_test_setup_teardown(name, setup, teardown)
	const struct CMUnitTest tests[] = {
		T(test_corrupt__cut_at_every_offset),
		{ "test_corrupt__cut_at_every_offset_codec1", test_corrupt__cut_at_every_offset,
		  setup_cols, teardown, NULL },
		T(test_corrupt__flipped_frame_bytes_are_detected),
		{ "test_corrupt__flipped_frame_bytes_are_detected_codec1",
		  test_corrupt__flipped_frame_bytes_are_detected, setup_cols, teardown, NULL },
		T(test_corrupt__flipped_header_or_metadata_is_refused),
		T(test_corrupt__flipped_trailer_falls_back_to_scanning),
		T(test_corrupt__newer_major_is_refused),
		T(test_corrupt__not_a_tdr_file),
		T(test_corrupt__hostile_metadata_sizes),
		T(test_corrupt__hostile_frame_headers),
		T(test_corrupt__hostile_trailer_index),
		T(test_corrupt__counted_item_rules),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
