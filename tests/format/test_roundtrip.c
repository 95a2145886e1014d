/*
 * tests/format/test_roundtrip.c - write a .tdr file and read it back.
 *
 * Round trips of every metadata field, frames from several rings, sections,
 * totals and run end; files without a trailer; atomic replace; version
 * handling (newer major refused, newer minor with unknown blocks and tags
 * read); attrs larger and smaller than this build's struct; bad arguments.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "testlib.h"
#include "tdrec/tdr_endian.h"
#include "tdrec/tdr_err.h"

struct fixture {
	char *dir;
	struct tl_std std;
};

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));

	f->dir = tl_mkdtemp();
	tl_std_init(&f->std);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;

	tl_loud();
	tl_rmdir(f->dir);
	free(f);
	return 0;
}

/* Every frame of r loads and equals the standard file's frame i. */
static void check_std_frames(const struct tdr_reader *r, const struct tl_std *std, size_t cnt)
{
	struct tdr_frame_buf buf = { 0 };

	assert_int_equal(tdr_reader__frame_cnt(r), cnt);
	for (size_t i = 0; i < cnt; i++) {
		const struct tdr_frame_info *fi = tdr_reader__frame(r, i);

		assert_non_null(fi);
		assert_int_equal(fi->ring, std->ring[i]);
		assert_int_equal(fi->codec, 0);
		assert_int_equal(fi->raw_sz, std->frame_sz[i]);
		assert_int_equal(tdr_reader__load_frame(r, i, &buf), 0);
		assert_int_equal(buf.sz, std->frame_sz[i]);
		assert_memory_equal(buf.data, std->frame[i], buf.sz);
	}
	assert_null(tdr_reader__frame(r, cnt));
	assert_int_equal(tdr_reader__load_frame(r, cnt, &buf), -EINVAL);
	tdr_frame_buf__release(&buf);
}

static void check_std_sections(const struct tdr_reader *r)
{
	const void *data;
	size_t sz;

	assert_int_equal(tdr_reader__section(r, TDR_SECTION_DSO_TABLE, &data, &sz), 0);
	assert_int_equal(sz, sizeof(tl_dso_section));
	assert_memory_equal(data, tl_dso_section, sz);
	assert_int_equal((uintptr_t)data % 8, 0);
	assert_int_equal(tdr_reader__section(r, TDR_SECTION_KSYMS, &data, &sz), 0);
	assert_memory_equal(data, tl_ksyms_section, sizeof(tl_ksyms_section));
	assert_int_equal(tdr_reader__section(r, TDR_SECTION_ARCHIVE, &data, &sz), -ENOENT);
}

static void test_roundtrip__everything_read_back_identical(void **state)
{
	struct fixture *f = *state;
	const char *path = tl_path(f->dir, "a.tdr");
	const struct tdr_file_status *st;
	const struct tdr_totals *t;
	const struct tdr_run_end *end;
	struct tdr_reader *r = NULL;
	struct tdr_meta want;
	struct stat sb;

	assert_int_equal(tl_write_std(path, &f->std, true), 0);
	assert_int_equal(stat(path, &sb), 0);
	assert_int_equal(tdr_reader__open(path, &r), 0);

	tl_make_meta(&want);
	tl_assert_meta_equal(tdr_reader__meta(r), &want);
	tdr_meta__clear(&want);

	st = tdr_reader__status(r);
	assert_true(st->has_trailer);
	assert_false(st->truncated);
	assert_int_equal(st->file_sz, sb.st_size);
	assert_int_equal(st->intact_sz, sb.st_size);
	assert_int_equal(st->bad_frames, 0);
	assert_int_equal(st->major, TDR_FORMAT_MAJOR);
	assert_int_equal(st->minor, 0); /* codec 0 only: a 1.0 file */

	check_std_frames(r, &f->std, TL_STD_FRAMES);
	check_std_sections(r);

	t = tdr_reader__totals(r);
	assert_non_null(t);
	assert_int_equal(t->frames, TL_STD_FRAMES);
	assert_int_equal(t->records, f->std.counts.records);
	assert_int_equal(t->samples, f->std.counts.samples);
	assert_int_equal(t->lost_records, f->std.counts.lost_records);
	assert_int_equal(t->lost_samples, f->std.counts.lost_samples);
	assert_int_equal(t->throttles, f->std.counts.throttles);
	assert_int_equal(t->unthrottles, f->std.counts.unthrottles);
	assert_true(f->std.counts.lost_records > 0 && f->std.counts.throttles > 0);
	assert_int_equal(t->raw_bytes, f->std.frame_sz[0] + f->std.frame_sz[1] +
					       f->std.frame_sz[2] + f->std.frame_sz[3]);
	assert_true(t->compressed_bytes > 0);
	assert_int_equal(t->event_cnt, 10);
	for (size_t i = 0; i < 10; i++) {
		assert_int_equal(t->events[i].samples, f->std.ev[i].samples);
		assert_int_equal(t->events[i].lost_samples, f->std.ev[i].lost_samples);
		assert_int_equal(t->events[i].has_counted, f->std.ev[i].has_counted);
		assert_int_equal(t->events[i].counted, f->std.ev[i].counted);
		assert_int_equal(t->events[i].time_enabled_ns, f->std.ev[i].time_enabled_ns);
		assert_int_equal(t->events[i].time_running_ns, f->std.ev[i].time_running_ns);
	}
	assert_true(t->events[9].has_counted && t->events[9].counted == 9000000063ull);
	end = tdr_reader__run_end(r);
	assert_non_null(end);
	assert_int_equal(end->duration_ns, f->std.end.duration_ns);
	assert_int_equal(end->exit_code, 3);
	assert_int_equal(end->term_signal, 0);
	assert_int_equal(end->flags, TDR_END_INTERRUPTED);
	tdr_reader__free(r);
}

static void test_roundtrip__open_mem_equals_open(void **state)
{
	struct fixture *f = *state;
	const char *path = tl_path(f->dir, "a.tdr");
	struct tdr_reader *r = NULL, *m = NULL;
	uint8_t *data;
	size_t sz;

	assert_int_equal(tl_write_std(path, &f->std, true), 0);
	assert_int_equal(tl_slurp(path, &data, &sz), 0);
	assert_int_equal(tdr_reader__open(path, &r), 0);
	assert_int_equal(tdr_reader__open_mem(data, sz, &m), 0);
	tl_assert_meta_equal(tdr_reader__meta(r), tdr_reader__meta(m));
	assert_memory_equal(tdr_reader__totals(r), tdr_reader__totals(m),
			    offsetof(struct tdr_totals, event_cnt));
	check_std_frames(m, &f->std, TL_STD_FRAMES);
	tdr_reader__free(m);
	tdr_reader__free(r);
	free(data);
}

static void test_roundtrip__writer_totals_and_size(void **state)
{
	struct fixture *f = *state;
	struct tdr_writer_opts opts = { .path = tl_path(f->dir, "t.tdr"), .zstd_level = 19 };
	const struct tdr_totals *t;
	struct tdr_writer *w = NULL;
	struct tdr_meta m;
	uint64_t sz0;

	tl_make_meta(&m);
	assert_int_equal(tdr_writer__open(&opts, &m, &w), 0);
	tdr_meta__clear(&m);
	sz0 = tdr_writer__file_size(w);
	assert_true(sz0 > TDR_FILE_HDR_SZ);
	assert_int_equal(tdr_writer__add_frame(w, 5, f->std.frame[0], f->std.frame_sz[0]), 0);
	/* An empty frame writes nothing. */
	assert_int_equal(tdr_writer__add_frame(w, 5, f->std.frame[0], 0), 0);
	t = tdr_writer__totals(w);
	assert_int_equal(t->frames, 1);
	assert_null(t->events);
	assert_int_equal(tdr_writer__file_size(w),
			 tdr_align8(sz0 + TDR_BLOCK_HDR_SZ + TDR_FRAME_HDR_SZ + t->compressed_bytes));
	assert_int_equal(tdr_writer__finish(w, NULL, 0, NULL), 0);
	assert_int_equal(tdr_writer__add_frame(w, 5, f->std.frame[0], 8), -EINVAL);
	assert_int_equal(tdr_writer__finish(w, NULL, 0, NULL), -EINVAL);
	tdr_writer__free(w);
}

static void test_roundtrip__no_finish_reads_by_scanning(void **state)
{
	struct fixture *f = *state;
	const char *path = tl_path(f->dir, "killed.tdr");
	const struct tdr_file_status *st;
	struct tdr_reader *r = NULL;
	struct stat sb;

	tl_quiet();
	assert_int_equal(tl_write_std(path, &f->std, false), 0);
	assert_int_equal(stat(path, &sb), 0);
	assert_int_equal(tdr_reader__open(path, &r), 0);
	st = tdr_reader__status(r);
	assert_false(st->has_trailer);
	assert_true(st->truncated);
	assert_int_equal(st->intact_sz, sb.st_size);
	assert_null(tdr_reader__totals(r));
	assert_null(tdr_reader__run_end(r));
	check_std_frames(r, &f->std, TL_STD_FRAMES);
	check_std_sections(r);
	tdr_reader__free(r);
}

static void test_roundtrip__atomic_replace_keeps_old_file_until_finish(void **state)
{
	struct fixture *f = *state;
	char path[4000], partial[4100];
	struct tdr_writer_opts opts = { .path = path, .atomic_replace = true };
	struct tdr_writer *w = NULL;
	struct tdr_reader *r = NULL;
	struct tdr_meta m;
	uint8_t *data;
	size_t sz;
	FILE *fp;

	snprintf(path, sizeof(path), "%s", tl_path(f->dir, "keep.tdr"));
	snprintf(partial, sizeof(partial), "%s.partial", path);
	fp = fopen(path, "w");
	fputs("old contents", fp);
	fclose(fp);

	tl_make_meta(&m);
	/* Freed without finish: the old file is untouched, the new data stays
	 * readable under the .partial name. */
	assert_int_equal(tdr_writer__open(&opts, &m, &w), 0);
	assert_int_equal(tdr_writer__add_frame(w, 0, f->std.frame[0], f->std.frame_sz[0]), 0);
	tdr_writer__free(w);
	assert_int_equal(tl_slurp(path, &data, &sz), 0);
	assert_int_equal(sz, 12);
	assert_memory_equal(data, "old contents", 12);
	free(data);
	tl_quiet();
	assert_int_equal(tdr_reader__open(partial, &r), 0);
	assert_int_equal(tdr_reader__frame_cnt(r), 1);
	tdr_reader__free(r);

	/* That .partial is another writer's (killed, or still running): a new
	 * writer refuses to truncate it. */
	w = NULL;
	assert_int_equal(tdr_writer__open(&opts, &m, &w), -EEXIST);
	assert_null(w);
	assert_int_equal(tdr_reader__open(partial, &r), 0);
	assert_int_equal(tdr_reader__frame_cnt(r), 1);
	tdr_reader__free(r);
	assert_int_equal(unlink(partial), 0);

	/* Finished after __keep_partial (the recording stopped at a write
	 * error): a trailer, but still under the .partial name. */
	assert_int_equal(tdr_writer__open(&opts, &m, &w), 0);
	assert_int_equal(tdr_writer__add_frame(w, 0, f->std.frame[0], f->std.frame_sz[0]), 0);
	tdr_writer__keep_partial(w);
	assert_int_equal(tdr_writer__finish(w, NULL, 0, NULL), 0);
	tdr_writer__free(w);
	assert_int_equal(tl_slurp(path, &data, &sz), 0);
	assert_int_equal(sz, 12);
	assert_memory_equal(data, "old contents", 12);
	free(data);
	assert_int_equal(tdr_reader__open(partial, &r), 0);
	assert_true(tdr_reader__status(r)->has_trailer);
	assert_int_equal(tdr_reader__frame_cnt(r), 1);
	tdr_reader__free(r);
	assert_int_equal(unlink(partial), 0);

	assert_int_equal(tdr_writer__open(&opts, &m, &w), 0);
	assert_int_equal(tdr_writer__add_frame(w, 0, f->std.frame[0], f->std.frame_sz[0]), 0);
	assert_int_equal(tl_slurp(path, &data, &sz), 0);
	assert_int_equal(sz, 12); /* still the old file */
	free(data);
	assert_int_equal(tdr_writer__finish(w, NULL, 0, NULL), 0);
	tdr_writer__free(w);
	tdr_meta__clear(&m);
	assert_int_equal(access(partial, F_OK), -1);
	assert_int_equal(tdr_reader__open(path, &r), 0);
	assert_true(tdr_reader__status(r)->has_trailer);
	assert_int_equal(tdr_reader__frame_cnt(r), 1);
	tdr_reader__free(r);
}

static void test_roundtrip__crc32c_check_value(void **state)
{
	static const char digits[] = "123456789";

	(void)state;
	assert_int_equal(tdr_crc32c(0, digits, 9), 0xe3069283u);
	/* Chaining equals one pass, at any split and alignment. */
	for (size_t split = 0; split <= 9; split++)
		assert_int_equal(tdr_crc32c(tdr_crc32c(0, digits, split), &digits[split],
					    9 - split),
				 0xe3069283u);
	assert_int_equal(tdr_crc32c(0, NULL, 0), 0);
}

/* A metadata payload with one event whose attr is attr_sz bytes. */
static void put_meta_one_event(struct tdr_buf *mb, size_t attr_sz, bool extra_tags)
{
	uint8_t attr[TDR_MAX_ATTR_SZ] = { 0 };
	struct perf_event_attr a = { 0 };
	size_t pos;

	a.type = PERF_TYPE_SOFTWARE;
	a.size = (uint32_t)attr_sz;
	a.config = PERF_COUNT_SW_CPU_CLOCK;
	a.sample_period = 100000;
	memcpy(attr, &a, attr_sz < sizeof(a) ? attr_sz : sizeof(a));
	/* Bytes of a future, larger attr. */
	for (size_t i = sizeof(a); i < attr_sz; i++)
		attr[i] = 0xa5;
	tdr_buf__tlv_str(mb, TDR_MT_PLAN_NAME, "software");
	if (extra_tags)
		tdr_buf__tlv_str(mb, 9999, "a field from the future");
	pos = tdr_buf__tlv_begin(mb, TDR_MT_EVENT);
	tdr_buf__tlv_str(mb, TDR_ET_NAME, "cpu-clock");
	tdr_buf__tlv(mb, TDR_ET_ATTR, attr, attr_sz);
	if (extra_tags)
		tdr_buf__tlv_u64(mb, 777, 42);
	tdr_buf__tlv_end(mb, pos);
	assert_int_equal(mb->err, 0);
}

static void test_roundtrip__attr_sizes_other_than_ours_load(void **state)
{
	const size_t sizes[] = { sizeof(struct perf_event_attr) + 64, PERF_ATTR_SIZE_VER0 };

	(void)state;
	tl_quiet();
	for (size_t k = 0; k < 2; k++) {
		struct tdr_buf fb = { 0 }, mb = { 0 };
		struct tdr_reader *r = NULL;
		const struct tdr_event_desc *e;

		put_meta_one_event(&mb, sizes[k], false);
		tl_put_file_hdr(&fb, TDR_FORMAT_MAJOR, TDR_FORMAT_MINOR);
		tl_put_block(&fb, TDR_BLOCK_METADATA, mb.data, mb.sz);
		assert_int_equal(tdr_reader__open_mem(fb.data, fb.sz, &r), 0);
		assert_int_equal(tdr_reader__meta(r)->event_cnt, 1);
		e = &tdr_reader__meta(r)->events[0];
		assert_string_equal(e->name, "cpu-clock");
		assert_int_equal(e->attr_disk_sz, sizes[k]);
		assert_int_equal(e->attr.size, sizes[k]);
		assert_int_equal(e->attr.config, PERF_COUNT_SW_CPU_CLOCK);
		if (k == 0)
			assert_int_equal(e->attr.sample_period, 100000);
		else /* zero-extended beyond the 64 bytes on disk */
			assert_int_equal(e->attr.config1, 0);
		assert_true(tdr_reader__status(r)->truncated);
		tdr_reader__free(r);
		tdr_buf__release(&fb);
		tdr_buf__release(&mb);
	}
	tl_loud();
}

static void test_roundtrip__newer_minor_with_unknown_parts_is_read(void **state)
{
	struct fixture *f = *state;
	const char *path = tl_path(f->dir, "src.tdr");
	struct tdr_buf fb = { 0 }, mb = { 0 }, tb = { 0 };
	struct tdr_frame_info fi[TL_STD_FRAMES];
	struct tdr_trailer t = { 0 };
	struct tl_block blk[16];
	struct tdr_reader *r = NULL;
	uint8_t *src;
	size_t sz, n, fcnt = 0;
	uint64_t toff;

	/* Frame blocks are self-contained: copy them from a real file into
	 * a hand-built file of a newer minor with unknown parts around them. */
	assert_int_equal(tl_write_std(path, &f->std, true), 0);
	assert_int_equal(tl_slurp(path, &src, &sz), 0);
	n = tl_blocks(src, sz, blk, 16);
	put_meta_one_event(&mb, sizeof(struct perf_event_attr), true);
	tl_put_file_hdr(&fb, TDR_FORMAT_MAJOR, TDR_FORMAT_MINOR + 7);
	tl_put_block(&fb, TDR_BLOCK_METADATA, mb.data, mb.sz);
	tl_put_block(&fb, 200, "unknown block type", 18);
	for (size_t i = 0; i < n; i++) {
		const uint8_t *pl = src + blk[i].off + TDR_BLOCK_HDR_SZ;
		size_t bsz = (size_t)(blk[i].end - blk[i].off);

		if (blk[i].type != TDR_BLOCK_FRAME)
			continue;
		fi[fcnt].offset = fb.sz;
		fi[fcnt].codec = pl[TDR_FR_CODEC];
		fi[fcnt].ring = tdr_get_le32(pl + TDR_FR_RING);
		fi[fcnt].raw_sz = tdr_get_le32(pl + TDR_FR_RAW_SZ);
		fi[fcnt].comp_sz = tdr_get_le32(pl + TDR_FR_COMP_SZ);
		fi[fcnt].record_cnt = tdr_get_le32(pl + TDR_FR_RECORD_CNT);
		memcpy(tdr_buf__put(&fb, bsz), src + blk[i].off, bsz);
		fcnt++;
		tl_put_block(&fb, 0x7fff, "another unknown block", 21);
	}
	assert_int_equal(fcnt, TL_STD_FRAMES);
	t.frames = fi;
	t.frame_cnt = fcnt;
	tdr_trailer__encode(&tb, &t);
	tdr_buf__tlv_str(&tb, 4242, "a trailer item from the future");
	assert_int_equal(tb.err, 0);
	toff = tl_put_block(&fb, TDR_BLOCK_TRAILER, tb.data, tb.sz);
	tl_put_footer(&fb, toff);

	assert_int_equal(tdr_reader__open_mem(fb.data, fb.sz, &r), 0);
	assert_int_equal(tdr_reader__status(r)->minor, TDR_FORMAT_MINOR + 7);
	assert_true(tdr_reader__status(r)->has_trailer);
	assert_false(tdr_reader__status(r)->truncated);
	assert_string_equal(tdr_reader__meta(r)->plan_name, "software");
	assert_int_equal(tdr_reader__meta(r)->event_cnt, 1);
	check_std_frames(r, &f->std, TL_STD_FRAMES);
	tdr_reader__free(r);

	/* Without the footer the same file is read by scanning, which skips
	 * the unknown blocks too. */
	tl_quiet();
	assert_int_equal(tdr_reader__open_mem(fb.data, fb.sz - TDR_FOOTER_SZ, &r), 0);
	assert_true(tdr_reader__status(r)->has_trailer);
	assert_true(tdr_reader__status(r)->truncated);
	check_std_frames(r, &f->std, TL_STD_FRAMES);
	tdr_reader__free(r);

	tdr_buf__release(&fb);
	tdr_buf__release(&mb);
	tdr_buf__release(&tb);
	free(src);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_roundtrip__everything_read_back_identical, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_roundtrip__open_mem_equals_open, setup, teardown),
		cmocka_unit_test_setup_teardown(test_roundtrip__writer_totals_and_size, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_roundtrip__no_finish_reads_by_scanning, setup,
						teardown),
		cmocka_unit_test_setup_teardown(
			test_roundtrip__atomic_replace_keeps_old_file_until_finish, setup, teardown),
		cmocka_unit_test(test_roundtrip__crc32c_check_value),
		cmocka_unit_test(test_roundtrip__attr_sizes_other_than_ours_load),
		cmocka_unit_test_setup_teardown(test_roundtrip__newer_minor_with_unknown_parts_is_read,
						setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
