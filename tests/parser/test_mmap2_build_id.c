/*
 * tests/parser/test_mmap2_build_id.c - where a mapping's build-id comes
 * from: MMAP2 records of an event with attr.build_id, and the .tdr DSO
 * table; and the kernel's leaked PERF_RECORD_MISC_MMAP_BUILD_ID.
 *
 * The kernel (seen on 6.18) leaves the build-id flag set in the MMAP2
 * records it writes, for the same mapping, to events without attr.build_id
 * after one with it; those records hold device and inode. The parser must
 * read them as such: the flag counts only for an event with attr.build_id
 * (perf record --buildid-mmap), or for any when the record's id names no
 * event and some event has it. Records are synthesized byte for byte.
 * The DSO table: a .tdr file written here with records and a table; every
 * sample's mapping gets the build-id of the entry with its path, device and
 * inode, and no other; entries without a build-id give none; a damaged
 * table loses only its damaged entries, says so once, and is counted.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "support/synth.h"
#include "tdrec/parser.h"
#include "tdrec/tdr_endian.h"
#include "tdrec/tdr_err.h"
#include "support/test_log.h"

#define ID_PERF 7  /* perf's tracking event: attr.build_id */
#define ID_TDREC 8 /* a sampler without it, as tdrec's */
#define PID 10

static const uint8_t bid[20] = {0xde, 0xad, 0xbe, 0xef, 1,  2,	3,  4,	5,  6,
				7,    8,    9,	  10,	11, 12, 13, 14, 15, 16};
static const struct synth_dev dev = {.maj = 259, .min = 3, .ino = 0x1234567, .prot = 5};

struct bx {
	struct tdr_meta meta;
	struct perf_event_attr attr;
	struct tdr_parser *p;
	struct synth_buf b;
	struct tdr_mapping map; /* of the last sample */
	bool have_map;
	unsigned samples;
};

static int cb(const struct tdr_sample *s, void *ctx)
{
	struct bx *x = ctx;

	x->have_map = s->map != NULL;
	if (s->map)
		x->map = *s->map;
	x->samples++;
	return 0;
}

/* A sampler as tdrec's: no attr.build_id. */
static const struct perf_event_attr sampler = {
    .size = sizeof(struct perf_event_attr),
    .type = PERF_TYPE_SOFTWARE,
    .sample_period = 1000,
    .sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_IDENTIFIER |
		   PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD,
    .sample_id_all = 1,
    .mmap2 = 1,
};

/* A parser whose events are: ID_PERF with attr.build_id when with_perf,
 * and ID_TDREC without it, both of the same layout. */
static struct bx *bx_new(bool with_perf)
{
	struct bx *x = calloc(1, sizeof(*x));
	uint64_t id;

	x->attr = sampler;
	if (with_perf) {
		struct perf_event_attr a = x->attr;

		a.build_id = 1;
		id = ID_PERF;
		synth_meta_add_event(&x->meta, "dummy", &a, TDR_EVENT_LEADER, 0, &id, NULL, PID, 1);
	}
	id = ID_TDREC;
	synth_meta_add_event(&x->meta, "cpu-clock", &x->attr, TDR_EVENT_LEADER | TDR_EVENT_SAMPLER,
			     1, &id, NULL, PID, 1);
	assert_int_equal(tdr_parser__new(&x->meta, &x->p), 0);
	return x;
}

static void bx_free(struct bx *x)
{
	tdr_parser__free(x->p);
	tdr_meta__clear(&x->meta);
	synth_buf_release(&x->b);
	free(x);
}

static void feed(struct bx *x, size_t off)
{
	assert_int_equal(tdr_parser__feed(x->p, 0, synth_rec(&x->b, off), cb, x), 0);
	synth_buf_reset(&x->b);
}

/* The mapping of a sample at ip. */
static const struct tdr_mapping *map_at(struct bx *x, uint64_t ip)
{
	struct synth_sample s = {.ip = ip, .period = 1000};

	s.sid = (struct synth_sid){.pid = PID, .tid = PID, .time = 20, .id = ID_TDREC};
	feed(x, synth_sample(&x->b, &x->attr, &s));
	assert_true(x->have_map);
	return &x->map;
}

/* MMAP2 with device and inode at addr, misc as given, for event id. */
static void mmap2_dev(struct bx *x, uint64_t addr, uint16_t misc, uint64_t id, const char *path)
{
	struct synth_sid sid = {.pid = PID, .tid = PID, .time = 1, .id = id};

	feed(x,
	     synth_mmap2_dev(&x->b, &x->attr, misc, PID, PID, addr, 0x1000, 0, &dev, path, &sid));
}

/* MMAP2 with a build-id at addr, for event id. */
static void mmap2_bid(struct bx *x, uint64_t addr, uint64_t id, uint8_t sz)
{
	struct synth_sid sid = {.pid = PID, .tid = PID, .time = 1, .id = id};

	feed(x, synth_mmap(&x->b, &x->attr, false, 0, PID, PID, addr, 0x1000, 0, "/bin/b", bid, sz,
			   &sid));
}

static void assert_dev(const struct tdr_mapping *m)
{
	assert_int_equal(m->build_id_sz, 0);
	assert_int_equal(m->maj, dev.maj);
	assert_int_equal(m->min, dev.min);
	assert_true(m->ino == dev.ino);
}

static void assert_bid(const struct tdr_mapping *m)
{
	assert_int_equal(m->build_id_sz, 20);
	assert_memory_equal(m->build_id, bid, 20);
}

/* The build-id flag on a record of device and inode, as the kernel leaks it. */
#define LEAKED (PERF_RECORD_MISC_USER | PERF_RECORD_MISC_MMAP_BUILD_ID)

/* One MMAP2 record and what the sample in it sees. */
struct mmap2_case {
	const char *what;
	bool bid_area; /* the record holds a build-id (else device and inode) */
	uint16_t misc; /* for a record of device and inode */
	uint64_t id;   /* the record's event: ID_PERF, ID_TDREC, or unknown */
	bool want_bid; /* the mapping gets the build-id (else device and inode) */
};

/* With or without perf's event, feed each case at its own address and
 * check the mapping of a sample there. */
static void run_cases(bool with_perf, const struct mmap2_case *c, size_t n)
{
	struct bx *x = bx_new(with_perf);

	for (size_t i = 0; i < n; i++) {
		uint64_t addr = 0x10000 * (i + 1);
		const struct tdr_mapping *m;

		if (c[i].bid_area)
			mmap2_bid(x, addr, c[i].id, 20);
		else
			mmap2_dev(x, addr, c[i].misc, c[i].id, "/bin/a");
		m = map_at(x, addr + 0x100);
		if (c[i].want_bid)
			assert_bid(m);
		else
			assert_dev(m);
	}
	assert_int_equal(tdr_parser__stats(x->p)->malformed_records, 0);
	bx_free(x);
}

/* tdrec's own recordings: no event has attr.build_id, so the flag never
 * counts, whatever id the record has. */
static void test_mmap2__leaked_flag_without_attr_build_id_is_device_and_inode(void **state)
{
	static const struct mmap2_case c[] = {
	    {"the leak", false, LEAKED, ID_TDREC, false},
	    {"the leak, an unknown id", false, LEAKED, 99, false},
	    {"no flag", false, PERF_RECORD_MISC_USER, ID_TDREC, false},
	};
	(void)state;
	run_cases(false, c, sizeof(c) / sizeof(c[0]));
}

/* perf record --buildid-mmap with another event in the same file: the flag
 * counts for the event that asked, and where the id does not say which. */
static void test_mmap2__flag_counts_for_the_event_with_attr_build_id(void **state)
{
	static const struct mmap2_case c[] = {
	    {"perf's event", true, 0, ID_PERF, true},
	    {"the leak into the other event's record", false, LEAKED, ID_TDREC, false},
	    {"perf's synthesized records: an id that names no event", true, 0, 0, true},
	    {"no flag", false, PERF_RECORD_MISC_USER, ID_PERF, false},
	};
	(void)state;
	run_cases(true, c, sizeof(c) / sizeof(c[0]));
}

static void test_mmap2__build_id_above_20_bytes_is_malformed(void **state)
{
	struct bx *x = bx_new(true);
	struct synth_sid sid = {.pid = PID, .tid = PID, .time = 1, .id = ID_PERF};
	size_t off;

	(void)state;
	off = synth_mmap(&x->b, &x->attr, false, 0, PID, PID, 0x10000, 0x1000, 0, "/x", bid, 20,
			 &sid);
	x->b.data[off + 8 + 32] = 21;
	feed(x, off);
	assert_int_equal(tdr_parser__stats(x->p)->malformed_records, 1);
	/* The same bytes for an event without attr.build_id: device and inode. */
	sid.id = ID_TDREC;
	off = synth_mmap(&x->b, &x->attr, false, 0, PID, PID, 0x10000, 0x1000, 0, "/x", bid, 20,
			 &sid);
	x->b.data[off + 8 + 32] = 21;
	feed(x, off);
	assert_int_equal(tdr_parser__stats(x->p)->malformed_records, 1);
	assert_int_equal(map_at(x, 0x10100)->maj, 21);
	bx_free(x);
}

/* ---- the DSO table of a .tdr file ---- */

struct file {
	char dir[64], path[96];
	struct tdr_meta meta;
	struct perf_event_attr attr;
	struct synth_buf b;
};

/* A .tdr file with MMAP2 records of 4 files and a sample in each, and
 * table (sz bytes, none when NULL) as its DSO table. */
static void write_file(struct file *f, const void *table, size_t sz)
{
	static const struct {
		const char *path;
		uint64_t ino;
	} maps[4] = {{"/bin/a", 1}, {"/bin/a", 2}, {"/lib/b.so", 3}, {"/lib/c.so", 4}};
	struct tdr_writer_opts wo = {.path = f->path};
	struct tdr_writer *w;
	uint64_t id = ID_TDREC;

	f->attr = sampler;
	synth_meta_add_event(&f->meta, "cpu-clock", &f->attr, TDR_EVENT_LEADER | TDR_EVENT_SAMPLER,
			     0, &id, NULL, PID, 1);
	for (uint32_t i = 0; i < 4; i++) {
		struct synth_dev d = {.maj = 8, .min = 1, .ino = maps[i].ino, .prot = 5};
		struct synth_sid sid = {.pid = PID + i, .tid = PID + i, .time = 1, .id = id};
		struct synth_sample s = {.ip = 0x10100, .period = 1000};

		/* The leaked flag on one of them changes nothing. */
		synth_mmap2_dev(&f->b, &f->attr, i == 3 ? LEAKED : 0, PID + i, PID + i, 0x10000,
				0x1000, 0, &d, maps[i].path, &sid);
		s.sid = sid;
		s.sid.time = 2;
		synth_sample(&f->b, &f->attr, &s);
	}
	assert_int_equal(tdr_writer__open(&wo, &f->meta, &w), 0);
	assert_int_equal(tdr_writer__add_frame(w, 0, f->b.data, f->b.sz), 0);
	if (table)
		assert_int_equal(tdr_writer__add_section(w, TDR_SECTION_DSO_TABLE, table, sz), 0);
	assert_int_equal(tdr_writer__finish(w, NULL, 0, &(struct tdr_run_end){0}), 0);
	tdr_writer__free(w);
	tdr_meta__clear(&f->meta);
	synth_buf_release(&f->b);
}

struct seen {
	uint8_t sz[4];
	uint8_t first[4];
};

static int seen_cb(const struct tdr_sample *s, void *ctx)
{
	struct seen *x = ctx;
	uint32_t i = s->pid - PID;

	assert_non_null(s->map);
	assert_true(i < 4);
	x->sz[i] = s->map->build_id_sz;
	x->first[i] = s->map->build_id[0];
	return 0;
}

static void read_file(const struct file *f, struct seen *x, struct tdr_parse_stats *st)
{
	struct tdr_parser *p;

	memset(x, 0, sizeof(*x));
	assert_int_equal(tdr_parser__open(f->path, &p), 0);
	assert_int_equal(tdr_parser__run(p, seen_cb, x), 0);
	*st = *tdr_parser__stats(p);
	tdr_parser__free(p);
}

static size_t lines(const char *s)
{
	size_t n = 0;

	for (; *s; s++)
		n += *s == '\n';
	return n;
}

/* A DSO table entry of path on device 8:min, its build-id (bid_sz bytes)
 * starting with first. */
static struct tdr_dso_entry entry(const char *path, uint32_t min, uint64_t ino, uint8_t status,
				  uint8_t bid_sz, uint8_t first)
{
	struct tdr_dso_entry e = {.path = path, .path_len = strlen(path), .maj = 8, .min = min};

	e.ino = ino;
	e.status = status;
	e.build_id_sz = bid_sz;
	e.build_id[0] = first;
	return e;
}

static void test_dso_table__build_ids_by_path_device_and_inode(void **state)
{
	/* /bin/a inode 1 and 2 are two files at one path (one replaced the
	 * other); /lib/b.so's entry has no build-id; /lib/c.so's entry is for
	 * another device than the mapping's (8:1). */
	const struct tdr_dso_entry e[4] = {
	    entry("/bin/a", 1, 2, TDR_DSO_BUILD_ID, 20, 0xa2),
	    entry("/bin/a", 1, 1, TDR_DSO_BUILD_ID, 16, 0xa1),
	    entry("/lib/b.so", 1, 3, TDR_DSO_NO_BUILD_ID, 0, 0),
	    entry("/lib/c.so", 2, 4, TDR_DSO_BUILD_ID, 20, 0xc4),
	};
	struct tdr_parse_stats st;
	struct file f = {0};
	struct seen x;
	void *table;
	size_t sz;

	(void)state;
	snprintf(f.dir, sizeof(f.dir), "/tmp/tdrec-test-dso.XXXXXX");
	assert_non_null(mkdtemp(f.dir));
	snprintf(f.path, sizeof(f.path), "%s/t.tdr", f.dir);
	assert_int_equal(tdr_dso_table__encode(e, 4, &table, &sz), 0);

	write_file(&f, table, sz);
	read_file(&f, &x, &st);
	assert_int_equal(x.sz[0], 16); /* inode 1 */
	assert_int_equal(x.first[0], 0xa1);
	assert_int_equal(x.sz[1], 20); /* inode 2 */
	assert_int_equal(x.first[1], 0xa2);
	assert_int_equal(x.sz[2], 0); /* no build-id recorded */
	assert_int_equal(x.sz[3], 0); /* another device: another file */
	assert_int_equal(st.dso_entries, 4);
	assert_int_equal(st.dso_build_ids, 3);
	assert_int_equal(st.dso_damaged, 0);

	/* No table: no build-ids, nothing counted. */
	write_file(&f, NULL, 0);
	read_file(&f, &x, &st);
	assert_int_equal(x.sz[0] | x.sz[1] | x.sz[2] | x.sz[3], 0);
	assert_int_equal(st.dso_entries + st.dso_build_ids + st.dso_damaged, 0);

	/* Damaged: the second entry's size runs past the end; the first
	 * entry still counts, one warning says how many were lost. */
	tdr_put_le32((uint8_t *)table + 8 + 56, 4096); /* entry 0: align8(24 + 6 + 20) */
	write_file(&f, table, sz);
	test_log_start();
	read_file(&f, &x, &st);
	test_log_stop();
	assert_int_equal(x.sz[1], 20);
	assert_int_equal(x.sz[0], 0);
	assert_int_equal(st.dso_entries, 1);
	assert_int_equal(st.dso_damaged, 3);
	assert_non_null(strstr(test_log_text, "DSO table"));
	assert_non_null(strstr(test_log_text, "damaged"));
	assert_int_equal(lines(test_log_text), 1);

	/* A table unreadable as a whole (a count its size cannot hold). */
	tdr_put_le32(table, 1000);
	write_file(&f, table, sz);
	test_log_start();
	read_file(&f, &x, &st);
	test_log_stop();
	assert_int_equal(lines(test_log_text), 1);
	assert_int_equal(st.dso_entries, 0);
	assert_int_equal(st.dso_damaged, 1);
	assert_int_equal(x.sz[0] | x.sz[1] | x.sz[2] | x.sz[3], 0);

	free(table);
	unlink(f.path);
	rmdir(f.dir);
}

int main(void)
{
#define T(f) cmocka_unit_test(test_##f)
	const struct CMUnitTest tests[] = {
	    T(mmap2__leaked_flag_without_attr_build_id_is_device_and_inode),
	    T(mmap2__flag_counts_for_the_event_with_attr_build_id),
	    T(mmap2__build_id_above_20_bytes_is_malformed),
	    T(dso_table__build_ids_by_path_device_and_inode),
	};
#undef T

	return cmocka_run_group_tests(tests, NULL, NULL);
}
