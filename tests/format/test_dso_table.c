/*
 * tests/format/test_dso_table.c - the DSO table section (docs/format.md
 * section 7.1): byte layout, round trips, and damaged tables.
 *
 * The layout is pinned byte by byte on one entry; round trips cover path
 * lengths around the padding and at the cap, every build-id size and
 * status, directly and through a .tdr file (writer, reader, section CRC).
 * Damage: every cut and every byte flipped must never make the iterator
 * read outside the data (ASan build) nor return an entry outside the caps;
 * a cut returns a prefix of the entries and then an error; hostile counts
 * and entry sizes are refused, bad fields skip only their entry, and bytes
 * a later version may add (inside an entry, after the last one) are
 * ignored.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "testlib.h"
#include "tdrec/tdr_endian.h"
#include "tdrec/tdr_err.h"

static char long_path[TDR_DSO_PATH_MAX + 1];

/* Entries of every shape: paths of 1, 7, 8, 9 and 4096 bytes; build-ids
 * of 1, 16 and 20 bytes; every status; device and inode extremes. */
static size_t make_entries(struct tdr_dso_entry *e)
{
	static const char *const paths[] = {
	    "/",      "/a/b/c1", "/a/b/c12", "/a/b/c123", "/usr/lib/x86_64-linux-gnu/libc.so.6",
	    long_path};
	size_t n = 0;

	memset(long_path, 'x', TDR_DSO_PATH_MAX);
	long_path[0] = '/';
	long_path[TDR_DSO_PATH_MAX] = '\0';
	for (size_t i = 0; i < sizeof(paths) / sizeof(paths[0]); i++) {
		for (uint8_t st = TDR_DSO_BUILD_ID; st <= TDR_DSO_UNREADABLE; st++) {
			struct tdr_dso_entry *x = &e[n++];

			memset(x, 0, sizeof(*x));
			x->path = paths[i];
			x->path_len = strlen(paths[i]);
			x->status = st;
			x->maj = st == 1 ? UINT32_MAX : 8 + (uint32_t)i;
			x->min = (uint32_t)st;
			x->ino = st == 2 ? UINT64_MAX : 1000 * i + st;
			if (st == TDR_DSO_BUILD_ID) {
				uint8_t id[TDR_DSO_BUILD_ID_MAX];

				/* Filled whole, then copied: gcc 12's -O3 saw the
				 * loop over build_id_sz as a write past the entry. */
				for (size_t k = 0; k < sizeof(id); k++)
					id[k] = (uint8_t)(0xa0 + i + k);
				x->build_id_sz = (uint8_t)(i % 3 == 0 ? 20 : i % 3 == 1 ? 16 : 1);
				memcpy(x->build_id, id, x->build_id_sz);
			}
		}
	}
	return n;
}

static void assert_entry_equal(const struct tdr_dso_entry *a, const struct tdr_dso_entry *b)
{
	assert_int_equal(a->path_len, b->path_len);
	assert_memory_equal(a->path, b->path, a->path_len);
	assert_int_equal(a->maj, b->maj);
	assert_int_equal(a->min, b->min);
	assert_true(a->ino == b->ino);
	assert_int_equal(a->status, b->status);
	assert_int_equal(a->build_id_sz, b->build_id_sz);
	assert_memory_equal(a->build_id, b->build_id, sizeof(a->build_id));
}

/* Read every entry of data into got (cap entries). Returns the iterator's
 * last result (0 or an error); *cnt entries were returned. */
static int read_all(const void *data, size_t sz, struct tdr_dso_entry *got, size_t cap, size_t *cnt,
		    struct tdr_dso_iter *it)
{
	struct tdr_dso_entry e;
	int err;

	*cnt = 0;
	err = tdr_dso_iter__init(it, data, sz);
	while (!err && (err = tdr_dso_iter__next(it, &e)) > 0) {
		const char *d = data;

		/* Whatever the bytes, an entry is inside the caps and the data. */
		assert_true(e.path_len >= 1 && e.path_len <= TDR_DSO_PATH_MAX);
		assert_true(e.path >= d && e.path + e.path_len <= d + sz);
		assert_null(memchr(e.path, 0, e.path_len));
		assert_true(e.build_id_sz <= TDR_DSO_BUILD_ID_MAX);
		assert_true((e.status == TDR_DSO_BUILD_ID) == (e.build_id_sz > 0));
		assert_true(*cnt < cap);
		got[(*cnt)++] = e;
		err = 0;
	}
	return err;
}

static void test_dso_table__layout_of_one_entry(void **state)
{
	/* clang-format off */
	static const uint8_t want[] = {
	    2,	  0,	0,    0,    0, 0, 0, 0, /* entry_cnt 2, reserved */
	    40,	  0,	0,    0,		/* entry_sz: align8(24 + 9 + 3) */
	    9,	  0,				/* path_len */
	    3,					/* build_id_len */
	    0,					/* status: BUILD_ID */
	    0x08, 0,	0,    0,		/* major */
	    0x01, 0,	0,    0,		/* minor */
	    0x88, 0x77, 0x66, 0x55, 0x44, 0x33, 0x22, 0x11, /* inode */
	    '/',  'b',	'i',  'n',  '/',  'p',	'r',  'o',  'g', /* path */
	    0xde, 0xad, 0xbf,				     /* build-id */
	    0,	  0,	0,    0,			     /* padding */
	    32,	  0,	0,    0,    1, 0, 0, 2,		     /* size, path_len 1, none, REPLACED */
	    0,	  0,	0,    0,    0, 0, 0, 0,    0, 0, 0, 0, 0, 0, 0, 0,
	    '/',  0,	0,    0,    0, 0, 0, 0,
	};
	/* clang-format on */
	const struct tdr_dso_entry e[2] = {
	    {.path = "/bin/prog",
	     .path_len = 9,
	     .maj = 8,
	     .min = 1,
	     .ino = 0x1122334455667788ull,
	     .status = TDR_DSO_BUILD_ID,
	     .build_id_sz = 3,
	     .build_id = {0xde, 0xad, 0xbf}},
	    {.path = "/", .path_len = 1, .status = TDR_DSO_REPLACED},
	};
	void *data;
	size_t sz;

	(void)state;
	assert_int_equal(tdr_dso_table__encode(e, 2, &data, &sz), 0);
	assert_int_equal(sz, sizeof(want));
	assert_memory_equal(data, want, sz);
	free(data);
	/* No entries: the 8-byte header alone, read as an empty table. */
	assert_int_equal(tdr_dso_table__encode(NULL, 0, &data, &sz), 0);
	assert_int_equal(sz, 8);
	{
		struct tdr_dso_iter it;
		struct tdr_dso_entry x;

		assert_int_equal(tdr_dso_iter__init(&it, data, sz), 0);
		assert_int_equal(tdr_dso_iter__next(&it, &x), 0);
	}
	free(data);
}

static void test_dso_table__round_trip(void **state)
{
	struct tdr_dso_entry e[40], got[40];
	struct tdr_dso_iter it;
	size_t n = make_entries(e), cnt, want_sz = 8;
	void *data;
	size_t sz;

	(void)state;
	for (size_t i = 0; i < n; i++)
		want_sz += (24 + e[i].path_len + e[i].build_id_sz + 7) / 8 * 8;
	assert_int_equal(tdr_dso_table__encode(e, n, &data, &sz), 0);
	assert_int_equal(sz, want_sz);
	assert_int_equal(read_all(data, sz, got, 40, &cnt, &it), 0);
	assert_int_equal(cnt, n);
	assert_int_equal(it.skipped, 0);
	for (size_t i = 0; i < n; i++)
		assert_entry_equal(&got[i], &e[i]);
	free(data);
}

/* Through a file: the section block, its CRC and the reader's lookup. */
static void test_dso_table__round_trip_through_a_file(void **state)
{
	struct tdr_dso_entry e[40], got[40];
	struct tdr_writer_opts wo = {0};
	struct tdr_writer *w;
	struct tdr_reader *r;
	struct tdr_meta m;
	struct tdr_dso_iter it;
	size_t n = make_entries(e), cnt, sz, rsz;
	const void *rdata;
	void *data;
	char *dir = tl_mkdtemp();

	(void)state;
	tl_make_meta(&m);
	wo.path = tl_path(dir, "dso.tdr");
	assert_int_equal(tdr_dso_table__encode(e, n, &data, &sz), 0);
	assert_int_equal(tdr_writer__open(&wo, &m, &w), 0);
	assert_int_equal(tdr_writer__add_section(w, TDR_SECTION_DSO_TABLE, data, sz), 0);
	assert_int_equal(tdr_writer__finish(w, NULL, 0, &(struct tdr_run_end){0}), 0);
	tdr_writer__free(w);
	assert_int_equal(tdr_reader__open(tl_path(dir, "dso.tdr"), &r), 0);
	assert_int_equal(tdr_reader__section(r, TDR_SECTION_DSO_TABLE, &rdata, &rsz), 0);
	assert_int_equal(rsz, sz);
	assert_int_equal(read_all(rdata, rsz, got, 40, &cnt, &it), 0);
	assert_int_equal(cnt, n);
	for (size_t i = 0; i < n; i++)
		assert_entry_equal(&got[i], &e[i]);
	tdr_reader__free(r);
	tdr_meta__clear(&m);
	free(data);
	tl_rmdir(dir);
}

static void test_dso_table__encode_refuses_what_a_reader_would(void **state)
{
	struct tdr_dso_entry ok = {.path = "/x", .path_len = 2, .status = TDR_DSO_NO_BUILD_ID};
	static char too_long[TDR_DSO_PATH_MAX + 1];
	struct tdr_dso_entry bad[6];
	void *data = (void *)1;
	size_t sz = 1;

	(void)state;
	for (size_t i = 0; i < 6; i++)
		bad[i] = ok;
	bad[0].path_len = 0;
	memset(too_long, 'x', sizeof(too_long));
	bad[1].path = too_long;
	bad[1].path_len = TDR_DSO_PATH_MAX + 1;
	bad[2].path = "/a\0b";
	bad[2].path_len = 4;
	bad[3].status = TDR_DSO_BUILD_ID; /* without a build-id */
	bad[4].build_id_sz = 4;		  /* a build-id with another status */
	bad[5].status = TDR_DSO_BUILD_ID;
	bad[5].build_id_sz = TDR_DSO_BUILD_ID_MAX + 1;
	for (size_t i = 0; i < 6; i++) {
		struct tdr_dso_entry two[2] = {ok, bad[i]};

		assert_int_equal(tdr_dso_table__encode(two, 2, &data, &sz), -EINVAL);
		assert_null(data);
		assert_int_equal(sz, 0);
	}
}

/* A table of entries, encoded, for the damage tests (caller frees). */
static uint8_t *sample_table(struct tdr_dso_entry *e, size_t *n, size_t *sz)
{
	void *data;

	*n = make_entries(e);
	assert_int_equal(tdr_dso_table__encode(e, *n, &data, sz), 0);
	return data;
}

/* Every cut returns a prefix of the entries and then an error; every byte
 * flipped gives entries inside the caps (read_all checks) or an error. Each
 * try reads a copy of exactly its size, so ASan sees any read past it. */
static void test_dso_table__every_cut_and_byte_flip(void **state)
{
	struct tdr_dso_entry e[40], got[40];
	struct tdr_dso_iter it;
	size_t n, sz, cnt;
	uint8_t *full = sample_table(e, &n, &sz);

	(void)state;
	for (size_t cut = 0; cut < sz; cut++) {
		uint8_t *d = malloc(cut ? cut : 1);
		size_t whole = 0, pos = 8;

		memcpy(d, full, cut);
		while (whole < n && pos + tdr_get_le32(full + pos) <= cut) {
			pos += tdr_get_le32(full + pos);
			whole++;
		}
		assert_int_equal(read_all(d, cut, got, 40, &cnt, &it), -TDR_E_CORRUPT);
		assert_true(cnt <= whole);
		for (size_t i = 0; i < cnt; i++)
			assert_entry_equal(&got[i], &e[i]);
		free(d);
	}
	for (size_t i = 0; i < sz; i++) {
		for (unsigned bit = 0; bit < 8; bit += 3) {
			uint8_t *d = malloc(sz);
			int err;

			memcpy(d, full, sz);
			d[i] ^= (uint8_t)(1u << bit);
			err = read_all(d, sz, got, 40, &cnt, &it);
			assert_true(err == 0 || err == -TDR_E_CORRUPT);
			assert_true(cnt + it.skipped <= n);
			free(d);
		}
	}
	free(full);
}

static void test_dso_table__hostile_sizes_and_fields(void **state)
{
	struct tdr_dso_entry e[3] =
	    {
		{.path = "/one", .path_len = 4, .status = TDR_DSO_NO_BUILD_ID},
		{.path = "/two", .path_len = 4, .status = TDR_DSO_BUILD_ID, .build_id_sz = 2},
		{.path = "/three", .path_len = 6, .status = TDR_DSO_REPLACED},
	    },
			     got[8];
	struct tdr_dso_iter it;
	uint8_t *d, big[8 + 3 * 40 + 16];
	size_t sz, cnt;

	(void)state;
	assert_int_equal(tdr_dso_table__encode(e, 3, (void **)&d, &sz), 0);
	assert_int_equal(sz, 8 + 3 * 32);

	/* A count the data cannot hold is refused before any entry is read. */
	tdr_put_le32(d, 4);
	assert_int_equal(tdr_dso_iter__init(&it, d, sz), -TDR_E_CORRUPT);
	tdr_put_le32(d, UINT32_MAX);
	assert_int_equal(tdr_dso_iter__init(&it, d, sz), -TDR_E_CORRUPT);
	assert_int_equal(tdr_dso_iter__init(&it, d, 7), -TDR_E_CORRUPT);
	tdr_put_le32(d, 3);

	/* entry_sz 0, not a multiple of 8, too small for its fields, past the
	 * end: the walk stops at that entry, the ones before it stay. */
	static const uint32_t bad_sz[] = {0, 36, 24, 72, UINT32_MAX};
	for (size_t i = 0; i < sizeof(bad_sz) / sizeof(bad_sz[0]); i++) {
		tdr_put_le32(d + 8 + 32, bad_sz[i]);
		assert_int_equal(read_all(d, sz, got, 8, &cnt, &it), -TDR_E_CORRUPT);
		assert_int_equal(cnt, 1);
		assert_int_equal(it.idx, 1);
		assert_entry_equal(&got[0], &e[0]);
	}
	tdr_put_le32(d + 8 + 32, 32);

	/* Bad fields inside a sound entry_sz: that entry alone is left out. */
	static const struct {
		size_t off;
		uint8_t val;
	} bad_field[] = {
	    {8 + 32 + 4, 0},	  /* path_len 0 */
	    {8 + 32 + 24 + 2, 0}, /* a NUL in the path */
	    {8 + 32 + 6, 0},	  /* BUILD_ID without a build-id */
	    {8 + 32 + 7, 1},	  /* a build-id with another status */
	    {8 + 32 + 6, 21},	  /* build_id_len above 20 (and the entry too small) */
	};
	for (size_t i = 0; i < sizeof(bad_field) / sizeof(bad_field[0]); i++) {
		uint8_t keep = d[bad_field[i].off];
		int err;

		d[bad_field[i].off] = bad_field[i].val;
		err = read_all(d, sz, got, 8, &cnt, &it);
		if (i == 4) {
			assert_int_equal(err, -TDR_E_CORRUPT); /* 24 + 4 + 21 > 32 */
			assert_int_equal(cnt, 1);
		} else {
			assert_int_equal(err, 0);
			assert_int_equal(it.skipped, 1);
			assert_int_equal(cnt, 2);
			assert_entry_equal(&got[0], &e[0]);
			assert_entry_equal(&got[1], &e[2]);
		}
		d[bad_field[i].off] = keep;
	}

	/* A status this reader does not know is returned as it is (the
	 * caller treats it as "no build-id"). */
	d[8 + 64 + 7] = 200;
	assert_int_equal(read_all(d, sz, got, 8, &cnt, &it), 0);
	assert_int_equal(cnt, 3);
	assert_int_equal(got[2].status, 200);
	d[8 + 64 + 7] = TDR_DSO_REPLACED;

	/* What a later version may add: bytes at the end of an entry (a larger
	 * entry_sz) and after the last entry. */
	memset(big, 0xee, sizeof(big));
	memcpy(big, d, 8 + 32);
	tdr_put_le32(big + 8, 40);
	memcpy(big + 8 + 40, d + 8 + 32, 64);
	assert_int_equal(read_all(big, sizeof(big), got, 8, &cnt, &it), 0);
	assert_int_equal(cnt, 3);
	for (size_t i = 0; i < 3; i++)
		assert_entry_equal(&got[i], &e[i]);
	free(d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_dso_table__layout_of_one_entry),
	    cmocka_unit_test(test_dso_table__round_trip),
	    cmocka_unit_test(test_dso_table__round_trip_through_a_file),
	    cmocka_unit_test(test_dso_table__encode_refuses_what_a_reader_would),
	    cmocka_unit_test(test_dso_table__every_cut_and_byte_flip),
	    cmocka_unit_test(test_dso_table__hostile_sizes_and_fields),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
