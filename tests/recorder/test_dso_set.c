/*
 * tests/recorder/test_dso_set.c - the files a recording saw mapped, and
 * their build-ids at the end (recorder/dso_set.c).
 *
 * The scan: MMAP2 records made byte for byte (tests/support/synth.c) give
 * one file per (path, device, inode) mapped executable, with the time and
 * pid of its first record; other records, non-executable mappings, [vdso]
 * and anonymous memory give none; the kernel's leaked build-id flag changes
 * nothing; bad records end the scan without reading past them; thousands of
 * files, and a failing allocation (counted, nothing lost but that file).
 * The end: files made here get each status of docs/format.md 7.1 (the
 * build-id libdw reads, no note, another inode, deleted, a FIFO put in its
 * place, another device, changed after mapping, found through
 * <proc>/PID/root only), and the DSO table encodes them. Synthesized MMAP2
 * records for -p/-a (a fake /proc) carry device and inode, never a build-id
 * flag, and the scan takes their files.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "recorder_int.h"
#include "support/elf_build_id.h"
#include "support/synth.h"
#include "support/test_tmpdir.h"
#include "tdrec/tdr_mem.h"

#define ST (PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ID | PERF_SAMPLE_CPU)

struct tdir {
	char dir[TEST_TMPDIR_SZ];
	struct perf_event_attr attr; /* the sampler: sample_type ST, sample_id_all */
	struct synth_buf b;
	struct tdr_dso_set s;
};

static int setup(void **state)
{
	struct tdir *t = calloc(1, sizeof(*t));

	if (!t || !test_tmpdir_make(t->dir, "dso")) {
		free(t);
		return -1;
	}
	t->attr.size = sizeof(t->attr);
	t->attr.sample_type = ST;
	t->attr.sample_id_all = 1;
	tdr_dso_set__init(&t->s, ST);
	*state = t;
	return 0;
}

/* Run a shell command line made from fmt; returns system()'s status. */
static int sh(const char *fmt, ...)
{
	char cmd[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	return system(cmd);
}

static int teardown(void **state)
{
	struct tdir *t = *state;

	test_tmpdir_remove(t->dir);
	tdr_dso_set__free(&t->s);
	synth_buf_release(&t->b);
	free(t);
	return 0;
}

/* Append an MMAP2 record of path with device and inode. */
static void mmap2(struct tdir *t, uint16_t misc, uint32_t pid, uint32_t maj, uint32_t min,
		  uint64_t ino, uint32_t prot, const char *path, uint64_t time)
{
	struct synth_dev d = {.maj = maj, .min = min, .ino = ino, .prot = prot};
	struct synth_sid sid = {.pid = pid, .tid = pid, .time = time, .id = 5, .cpu = 1};

	synth_mmap2_dev(&t->b, &t->attr, misc, pid, pid, 0x400000, 0x1000, 0, &d, path, &sid);
}

/* The file of the set with this path and inode, or NULL. */
static const struct tdr_dso_file *find(const struct tdr_dso_set *s, const char *path, uint64_t ino)
{
	for (size_t i = 0; i < s->cnt; i++)
		if (s->files[i].ino == ino && !strcmp(s->names + s->files[i].path_off, path))
			return &s->files[i];
	return NULL;
}

static void scan(struct tdir *t)
{
	tdr_dso_set__scan(&t->s, t->b.data, t->b.sz);
	synth_buf_reset(&t->b);
}

static void test_dso_set__scan_keeps_each_executable_file_once(void **state)
{
	struct tdir *t = *state;
	struct synth_sid sid = {.pid = 3, .tid = 3, .time = 9, .id = 5};
	const struct tdr_dso_file *f;

	mmap2(t, 0, 100, 8, 1, 11, PROT_READ | PROT_EXEC, "/bin/a", 1000);
	synth_comm(&t->b, &t->attr, 100, 100, "a", true, &sid);
	mmap2(t, 0, 101, 8, 1, 11, PROT_READ | PROT_EXEC, "/bin/a", 2000); /* again */
	mmap2(t, 0, 100, 8, 1, 12, PROT_READ | PROT_EXEC, "/bin/a", 3000); /* another inode */
	mmap2(t, 0, 100, 8, 2, 11, PROT_READ | PROT_EXEC, "/bin/a", 3000); /* another device */
	mmap2(t, 0, 100, 8, 1, 11, PROT_READ | PROT_EXEC, "/bin/b", 3000); /* a hard link */
	mmap2(t, 0, 100, 8, 1, 13, PROT_READ, "/lib/data", 3000);	   /* not executable */
	mmap2(t, 0, 100, 0, 0, 0, PROT_READ | PROT_EXEC, "[vdso]", 3000);
	mmap2(t, 0, 100, 0, 0, 0, PROT_READ | PROT_EXEC, "//anon", 3000);
	/* The kernel's leaked build-id flag: the record still holds dev/ino. */
	mmap2(t, PERF_RECORD_MISC_USER | PERF_RECORD_MISC_MMAP_BUILD_ID, 102, 8, 1, 14,
	      PROT_READ | PROT_EXEC, "/lib/c.so", 4000);
	scan(t);
	assert_int_equal(t->s.cnt, 5);
	assert_int_equal(t->s.dropped, 0);
	f = find(&t->s, "/bin/a", 11);
	assert_non_null(f);
	assert_int_equal(f->maj, 8);
	assert_int_equal(f->min, 1);
	assert_int_equal(f->pid, 100);
	assert_int_equal(f->first_ns, 1000); /* the first record's time */
	assert_int_equal(f->path_len, 6);
	assert_non_null(find(&t->s, "/bin/a", 12));
	assert_non_null(find(&t->s, "/bin/b", 11));
	f = find(&t->s, "/lib/c.so", 14);
	assert_non_null(f);
	assert_int_equal(f->maj, 8);
	assert_int_equal(f->pid, 102);
	/* In order of first sight. */
	assert_string_equal(t->s.names + t->s.files[0].path_off, "/bin/a");
	assert_string_equal(t->s.names + t->s.files[4].path_off, "/lib/c.so");

	/* Without TIME in the trailer, the time is unknown (0). */
	tdr_dso_set__free(&t->s);
	tdr_dso_set__init(&t->s, PERF_SAMPLE_TID | PERF_SAMPLE_ID);
	t->attr.sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_ID;
	mmap2(t, 0, 100, 8, 1, 11, PROT_READ | PROT_EXEC, "/bin/a", 1000);
	scan(t);
	assert_int_equal(t->s.cnt, 1);
	assert_int_equal(t->s.files[0].first_ns, 0);
}

static void test_dso_set__scan_stops_at_bad_records(void **state)
{
	struct tdir *t = *state;
	struct perf_event_header *h;
	uint8_t *copy;
	size_t off, sz;

	mmap2(t, 0, 100, 8, 1, 11, PROT_EXEC, "/bin/a", 1);
	off = t->b.sz;
	mmap2(t, 0, 100, 8, 1, 12, PROT_EXEC, "/bin/b", 1);
	sz = t->b.sz;
	/* Every cut of the buffer, in a copy of exactly that size (ASan sees
	 * a read past it): the first file when its record is whole, never
	 * anything past the cut. */
	for (size_t cut = 0; cut <= sz; cut++) {
		copy = malloc(cut ? cut : 1);
		memcpy(copy, t->b.data, cut);
		tdr_dso_set__scan(&t->s, copy, cut);
		assert_int_equal(t->s.cnt, cut < off ? 0 : cut < sz ? 1 : 2);
		free(copy);
		tdr_dso_set__free(&t->s);
		tdr_dso_set__init(&t->s, ST);
	}
	/* A header of size 0 or past the end ends the scan. */
	h = (struct perf_event_header *)t->b.data;
	h->size = 0;
	tdr_dso_set__scan(&t->s, t->b.data, sz);
	assert_int_equal(t->s.cnt, 0);
	h->size = (uint16_t)(sz + 8);
	tdr_dso_set__scan(&t->s, t->b.data, sz);
	assert_int_equal(t->s.cnt, 0);
	h->size = (uint16_t)off;
	/* A name without its NUL is not trusted; the next record is read. */
	memset(t->b.data + 8 + 64, 'x', off - 8 - 64);
	tdr_dso_set__scan(&t->s, t->b.data, sz);
	assert_int_equal(t->s.cnt, 1);
	assert_non_null(find(&t->s, "/bin/b", 12));
	/* An MMAP2 record too short for a name: skipped. */
	synth_buf_reset(&t->b);
	synth_raw(&t->b, PERF_RECORD_MMAP2, 0, "\0\0\0\0\0\0\0\0", 8);
	scan(t);
	assert_int_equal(t->s.cnt, 1);
}

static void test_dso_set__many_files_and_failed_allocations(void **state)
{
	struct tdir *t = *state;
	char path[64];

	for (uint32_t i = 0; i < 3000; i++) {
		snprintf(path, sizeof(path), "/usr/lib/lib%u.so", i);
		mmap2(t, 0, 100 + i % 7, 8, 1, 1000 + i, PROT_EXEC, path, i + 1);
	}
	scan(t);
	assert_int_equal(t->s.cnt, 3000);
	/* Every one is found again: nothing added. */
	for (uint32_t i = 0; i < 3000; i++) {
		snprintf(path, sizeof(path), "/usr/lib/lib%u.so", i);
		mmap2(t, 0, 200, 8, 1, 1000 + i, PROT_EXEC, path, 99999);
	}
	scan(t);
	assert_int_equal(t->s.cnt, 3000);
	assert_int_equal(find(&t->s, "/usr/lib/lib2999.so", 3999)->first_ns, 3000);

	/* Allocations fail: the files that could not be kept are counted,
	 * those kept stay, and it works again afterwards. Adding 2000 files
	 * to 3000 grows the slots, the files and the names once each: with
	 * n < 3 allocations allowed, one of them fails. */
	for (long n = 0; n < 3; n++) {
		size_t before = 3000;

		tdr_dso_set__free(&t->s);
		tdr_dso_set__init(&t->s, ST);
		for (uint32_t i = 0; i < 3000; i++) {
			snprintf(path, sizeof(path), "/usr/lib/lib%u.so", i);
			mmap2(t, 0, 100, 8, 1, 1000 + i, PROT_EXEC, path, i + 1);
		}
		scan(t);
		for (uint32_t i = 0; i < 2000; i++) {
			snprintf(path, sizeof(path), "/opt/%ld/f%u", n, i);
			mmap2(t, 0, 100, 8, 1, 5000 + i, PROT_EXEC, path, 1);
		}
		tdr_mem_fail_after(n);
		scan(t);
		tdr_mem_fail_after(-1);
		assert_true(t->s.dropped > 0);
		assert_true(t->s.cnt >= before);
		assert_true(t->s.cnt < before + 2000);
		assert_int_equal(t->s.cnt - before + t->s.dropped, 2000);
	}
	mmap2(t, 0, 100, 8, 1, 42, PROT_EXEC, "/after", 1);
	scan(t);
	assert_non_null(find(&t->s, "/after", 42));
}

/* ---- the end: statuses of real files ---- */

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
}

static void copy_file(const char *from, const char *to)
{
	assert_int_equal(sh("cp '%s' '%s'", from, to), 0);
}

/* An MMAP2 record of path as it is now (ino + ino_delta), at time. */
static void mmap2_of(struct tdir *t, const char *path, uint32_t maj_delta, uint64_t ino_delta,
		     uint64_t time)
{
	struct stat st;

	assert_int_equal(stat(path, &st), 0);
	mmap2(t, 0, 100, major(st.st_dev) + maj_delta, minor(st.st_dev), st.st_ino + ino_delta,
	      PROT_READ | PROT_EXEC, path, time);
}

static uint64_t wall_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static uint8_t status_of(const struct tdr_dso_set *s, const char *path)
{
	for (size_t i = 0; i < s->cnt; i++)
		if (!strcmp(s->names + s->files[i].path_off, path))
			return s->files[i].status;
	fail_msg("%s not in the set", path);
	return 255;
}

static void test_dso_set__resolve_reads_only_the_mapped_file(void **state)
{
	struct tdir *t = *state;
	char elf[128], text[128], other[128], gone[128], fifo[128], dev[128], late[128];
	uint8_t want[20];
	size_t want_sz;
	uint64_t later = wall_ns() + 3600ull * 1000000000ull;

	snprintf(elf, sizeof(elf), "%s/elf", t->dir);
	snprintf(text, sizeof(text), "%s/text", t->dir);
	snprintf(other, sizeof(other), "%s/other", t->dir);
	snprintf(gone, sizeof(gone), "%s/gone", t->dir);
	snprintf(fifo, sizeof(fifo), "%s/fifo", t->dir);
	snprintf(dev, sizeof(dev), "%s/dev", t->dir);
	snprintf(late, sizeof(late), "%s/late", t->dir);
	copy_file(SPIN_PATH, elf);
	want_sz = test_file_build_id(elf, want);
	write_file(text, "not elf\n");
	copy_file(SPIN_PATH, other);
	copy_file(SPIN_PATH, gone);
	write_file(fifo, "x");
	copy_file(SPIN_PATH, dev);
	copy_file(SPIN_PATH, late);
	/* The clock_to_wall below is 0: record times are wall times here. */
	mmap2_of(t, elf, 0, 0, later);
	mmap2_of(t, text, 0, 0, later);
	mmap2_of(t, other, 0, 1, later); /* a rebuilt file: another inode */
	mmap2_of(t, gone, 0, 0, later);
	mmap2_of(t, fifo, 0, 0, later);
	mmap2_of(t, dev, 1, 0, later); /* the same inode on another device */
	mmap2_of(t, late, 0, 0, wall_ns() - 3600ull * 1000000000ull);
	scan(t);
	assert_int_equal(unlink(gone), 0);
	/* A FIFO in its place (the open would block without O_NONBLOCK, and
	 * must not happen at all). */
	assert_int_equal(unlink(fifo), 0);
	assert_int_equal(mkfifo(fifo, 0600), 0);

	tdr_dso_set__resolve(&t->s, NULL, 0);
	assert_int_equal(status_of(&t->s, elf), TDR_DSO_BUILD_ID);
	assert_int_equal(t->s.files[0].bid.sz, want_sz);
	assert_memory_equal(t->s.files[0].bid.id, want, want_sz);
	assert_int_equal(status_of(&t->s, text), TDR_DSO_NO_BUILD_ID);
	assert_int_equal(status_of(&t->s, other), TDR_DSO_REPLACED);
	assert_int_equal(status_of(&t->s, gone), TDR_DSO_REPLACED);
	assert_int_equal(status_of(&t->s, fifo), TDR_DSO_REPLACED);
	assert_int_equal(status_of(&t->s, dev), TDR_DSO_REPLACED); /* ext4, tmpfs: not excused */
	/* Changed (ctime) after its first record: not trusted. */
	assert_int_equal(status_of(&t->s, late), TDR_DSO_MODIFIED);
	for (size_t i = 1; i < t->s.cnt; i++)
		assert_int_equal(t->s.files[i].bid.sz, 0);

	/* Read once at the end: a second resolve reads the files as they are
	 * then (the recorder calls it once). */
	copy_file(SPIN_PATH, text); /* same inode, now ELF, and newer */
	tdr_dso_set__resolve(&t->s, NULL, 0);
	assert_int_equal(status_of(&t->s, text), TDR_DSO_BUILD_ID);
}

/* A path of another mount namespace: found through <proc>/PID/root. */
static void test_dso_set__resolve_through_the_process_root(void **state)
{
	struct tdir *t = *state;
	char root[128], in_root[192];

	snprintf(root, sizeof(root), "%s/proc/4242/root/opt", t->dir);
	assert_int_equal(sh("mkdir -p '%s'", root), 0);
	snprintf(in_root, sizeof(in_root), "%s/spin", root);
	copy_file(SPIN_PATH, in_root);
	{
		struct stat st;
		char proc[128];

		assert_int_equal(stat(in_root, &st), 0);
		/* The process sees it as /opt/spin, which tdrec's namespace
		 * does not have. */
		mmap2(t, 0, 4242, major(st.st_dev), minor(st.st_dev), st.st_ino, PROT_EXEC,
		      "/opt/spin", 0);
		mmap2(t, 0, 4243, major(st.st_dev), minor(st.st_dev), st.st_ino, PROT_EXEC,
		      "/opt/spin2", 0);
		scan(t);
		snprintf(proc, sizeof(proc), "%s/proc", t->dir);
		tdr_dso_set__resolve(&t->s, proc, 0);
	}
	assert_int_equal(status_of(&t->s, "/opt/spin"), TDR_DSO_BUILD_ID);
	assert_int_equal(status_of(&t->s, "/opt/spin2"), TDR_DSO_REPLACED); /* no such pid */
}

static void test_dso_set__same_file_rules(void **state)
{
	struct stat st = {.st_mode = S_IFREG | 0644, .st_ino = 77, .st_dev = makedev(8, 1)};

	(void)state;
	assert_true(tdr_dso__same_file(8, 1, 77, &st, 0));
	assert_false(tdr_dso__same_file(8, 1, 78, &st, 0));
	assert_false(tdr_dso__same_file(8, 2, 77, &st, 0));
	assert_false(tdr_dso__same_file(8, 2, 77, &st, 0xEF53 /* ext4 */));
	/* Where stat shows another device than the mappings: the inode. */
	assert_true(tdr_dso__same_file(8, 2, 77, &st, BTRFS_SUPER_MAGIC));
	assert_true(tdr_dso__same_file(0, 44, 77, &st, OVERLAYFS_SUPER_MAGIC));
	assert_false(tdr_dso__same_file(0, 44, 78, &st, OVERLAYFS_SUPER_MAGIC));
	st.st_mode = S_IFIFO | 0600;
	assert_false(tdr_dso__same_file(8, 1, 77, &st, 0));
}

static void test_dso_set__encoded_as_the_dso_table(void **state)
{
	struct tdir *t = *state;
	char elf[128], text[128];
	struct tdr_dso_iter it;
	struct tdr_dso_entry e;
	void *data;
	size_t sz, n = 0;

	snprintf(elf, sizeof(elf), "%s/elf", t->dir);
	snprintf(text, sizeof(text), "%s/text", t->dir);
	copy_file(SPIN_PATH, elf);
	write_file(text, "not elf\n");
	mmap2_of(t, elf, 0, 0, 0);
	mmap2_of(t, text, 0, 0, 0);
	mmap2_of(t, text, 0, 5, 0);
	scan(t);
	tdr_dso_set__resolve(&t->s, NULL, 0);
	assert_int_equal(tdr_dso_set__encode(&t->s, &data, &sz), 0);
	assert_int_equal(tdr_dso_iter__init(&it, data, sz), 0);
	while (tdr_dso_iter__next(&it, &e) > 0) {
		const struct tdr_dso_file *f = &t->s.files[n++];

		assert_int_equal(e.path_len, f->path_len);
		assert_memory_equal(e.path, t->s.names + f->path_off, e.path_len);
		assert_int_equal(e.maj, f->maj);
		assert_int_equal(e.min, f->min);
		assert_true(e.ino == f->ino);
		assert_int_equal(e.status, f->status);
		assert_int_equal(e.build_id_sz, f->status == TDR_DSO_BUILD_ID ? f->bid.sz : 0);
		assert_memory_equal(e.build_id, f->bid.id, e.build_id_sz);
	}
	assert_int_equal(n, 3);
	assert_int_equal(it.skipped, 0);
	free(data);
	/* An empty set: an empty table. */
	tdr_dso_set__free(&t->s);
	assert_int_equal(tdr_dso_set__encode(&t->s, &data, &sz), 0);
	assert_int_equal(sz, 8);
	free(data);
}

/* ---- synthesized records (-p, -a) ---- */

static void mkproc(const char *root, int pid)
{
	char p[256];

	assert_int_equal(sh("mkdir -p '%s/%d/task/%d'", root, pid, pid), 0);
	snprintf(p, sizeof(p), "%s/%d/task/%d/comm", root, pid, pid);
	write_file(p, "prog\n");
}

static void maps_line(FILE *f, uint64_t start, const char *perms, const char *path)
{
	struct stat st;

	assert_int_equal(stat(path, &st), 0);
	fprintf(f, "%08llx-%08llx %s 00001000 %02x:%02x %llu %s\n", (unsigned long long)start,
		(unsigned long long)start + 0x1000, perms, major(st.st_dev), minor(st.st_dev),
		(unsigned long long)st.st_ino, path);
}

static void test_dso_set__synthesized_records_carry_device_and_inode(void **state)
{
	struct tdir *t = *state;
	struct tdr_synth_id sid = {.sample_type = ST, .time_ns = 777, .cpu = 0, .id = 5};
	struct tdr_synth_buf sb = {0};
	char proc[96], lib[128], p[256];
	struct stat st;
	FILE *f;

	snprintf(proc, sizeof(proc), "%s/proc", t->dir);
	snprintf(lib, sizeof(lib), "%s/libx.so", t->dir);
	copy_file(SPIN_PATH, lib);
	assert_int_equal(stat(lib, &st), 0);
	mkproc(proc, 100);
	snprintf(p, sizeof(p), "%s/100/maps", proc);
	f = fopen(p, "w");
	assert_non_null(f);
	maps_line(f, 0x10000, "r-xp", lib);
	maps_line(f, 0x20000, "r--p", lib); /* not executable: no record */
	fprintf(f, "7fff0000-7fff2000 r-xp 00000000 00:00 0                  [vdso]\n");
	assert_int_equal(fclose(f), 0);
	assert_int_equal(tdr_synth__process(&sb, proc, 100, &sid), 0);
	/* Every MMAP2 record: device and inode, no build-id flag. */
	for (size_t pos = 0, n = 0; pos < sb.sz; n++) {
		struct perf_event_header h;
		uint32_t maj, min;
		uint64_t ino;

		memcpy(&h, sb.data + pos, sizeof(h));
		if (h.type == PERF_RECORD_MMAP2) {
			assert_int_equal(h.misc, PERF_RECORD_MISC_USER);
			memcpy(&maj, sb.data + pos + 8 + 32, 4);
			memcpy(&min, sb.data + pos + 8 + 36, 4);
			memcpy(&ino, sb.data + pos + 8 + 40, 8);
			if (!strcmp((const char *)sb.data + pos + 8 + 64, lib)) {
				assert_int_equal(maj, major(st.st_dev));
				assert_int_equal(min, minor(st.st_dev));
				assert_true(ino == st.st_ino);
			}
		}
		pos += h.size;
	}
	tdr_dso_set__scan(&t->s, sb.data, sb.sz);
	assert_int_equal(t->s.cnt, 1);
	assert_int_equal(t->s.files[0].pid, 100);
	assert_int_equal(t->s.files[0].first_ns, 777);
	/* Mapped before the recording started: its time is the start's. */
	tdr_dso_set__resolve(&t->s, proc, (int64_t)wall_ns());
	assert_int_equal(t->s.files[0].status, TDR_DSO_BUILD_ID);
	free(sb.data);
}

int main(void)
{
#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)
	const struct CMUnitTest tests[] = {
	    T(test_dso_set__scan_keeps_each_executable_file_once),
	    T(test_dso_set__scan_stops_at_bad_records),
	    T(test_dso_set__many_files_and_failed_allocations),
	    T(test_dso_set__resolve_reads_only_the_mapped_file),
	    T(test_dso_set__resolve_through_the_process_root),
	    cmocka_unit_test(test_dso_set__same_file_rules),
	    T(test_dso_set__encoded_as_the_dso_table),
	    T(test_dso_set__synthesized_records_carry_device_and_inode),
	};
#undef T

	return cmocka_run_group_tests(tests, NULL, NULL);
}
