/*
 * tests/format/test_faults.c - allocation failures and write errors.
 *
 * Fault injection (tdr_mem_fail_after N = 0, 1, 2, ... until success) over
 * the writer (open, frames, sections, finish) and the reader (open by path,
 * scanning, loading frames): every failure is a clean -ENOMEM, and ASan
 * finds no leak. Write errors: /dev/full, a disk that fills up under an open
 * writer, and a file size limit that cuts a frame half-way; the file must
 * still end after its last complete block.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "testlib.h"
#include "tdrec/tdr_err.h"
#include "tdrec/tdr_mem.h"

struct fixture {
	char *dir;
	struct tl_std std;
};

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));

	f->dir = tl_mkdtemp();
	tl_std_init(&f->std);
	tl_quiet();
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;

	tdr_mem_fail_after(-1);
	tl_loud();
	tl_rmdir(f->dir);
	free(f);
	return 0;
}

static void test_faults__writer_allocation_failures(void **state)
{
	struct fixture *f = *state;
	const char *path = tl_path(f->dir, "w.tdr");
	struct tdr_reader *r = NULL;
	struct tdr_meta m;
	long n;
	int err;

	tl_make_meta(&m);
	for (n = 0;; n++) {
		tdr_mem_fail_after(n);
		err = tl_write_std_meta(path, &f->std, &m, true);
		tdr_mem_fail_after(-1);
		if (!err)
			break;
		assert_int_equal(err, -ENOMEM);
	}
	tdr_meta__clear(&m);
	assert_true(n >= 4);
	assert_int_equal(tdr_reader__open(path, &r), 0);
	assert_true(tdr_reader__status(r)->has_trailer);
	assert_int_equal(tdr_reader__frame_cnt(r), TL_STD_FRAMES);
	tdr_reader__free(r);
}

/* Open path and load every frame under a fault budget. */
static int read_all(const char *path)
{
	struct tdr_frame_buf buf = { 0 };
	struct tdr_reader *r = NULL;
	int err;

	err = tdr_reader__open(path, &r);
	for (size_t i = 0; !err && i < tdr_reader__frame_cnt(r); i++)
		err = tdr_reader__load_frame(r, i, &buf);
	tdr_frame_buf__release(&buf);
	tdr_reader__free(r);
	return err;
}

static void test_faults__reader_allocation_failures(void **state)
{
	struct fixture *f = *state;
	const char *paths[2];
	char p0[4096], p1[4096];

	snprintf(p0, sizeof(p0), "%s", tl_path(f->dir, "clean.tdr"));
	snprintf(p1, sizeof(p1), "%s", tl_path(f->dir, "killed.tdr"));
	paths[0] = p0;
	paths[1] = p1;
	assert_int_equal(tl_write_std(p0, &f->std, true), 0);
	assert_int_equal(tl_write_std(p1, &f->std, false), 0); /* read by scanning */
	for (int k = 0; k < 2; k++) {
		long n;
		int err;

		for (n = 0;; n++) {
			tdr_mem_fail_after(n);
			err = read_all(paths[k]);
			tdr_mem_fail_after(-1);
			if (!err)
				break;
			assert_int_equal(err, -ENOMEM);
		}
		assert_true(n >= 10);
	}
}

static void test_faults__dev_full_fails_cleanly(void **state)
{
	struct tdr_writer_opts opts = { .path = "/dev/full" };
	struct tdr_writer *w = NULL;
	struct tdr_meta m;
	struct stat st;

	(void)state;
	tl_make_meta(&m);
	assert_int_equal(tdr_writer__open(&opts, &m, &w), -ENOSPC);
	assert_null(w);
	tdr_meta__clear(&m);
	/* The writer never removes what is not a regular file it created. */
	assert_int_equal(stat("/dev/full", &st), 0);
	assert_true(S_ISCHR(st.st_mode));
}

/* The fd of the open file whose name is path, or -1. */
static int fd_of(const char *path)
{
	for (int fd = 3; fd < 1024; fd++) {
		char link[64], target[PATH_MAX];
		ssize_t n;

		snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
		n = readlink(link, target, sizeof(target) - 1);
		if (n <= 0)
			continue;
		target[n] = '\0';
		if (!strcmp(target, path))
			return fd;
	}
	return -1;
}

static void test_faults__disk_full_under_an_open_writer(void **state)
{
	struct fixture *f = *state;
	char path[4096];
	struct tdr_writer_opts opts = { .path = path };
	struct tdr_writer *w = NULL;
	struct tdr_reader *r = NULL;
	struct tdr_meta m;
	uint64_t sz;
	int fd, full;

	snprintf(path, sizeof(path), "%s", tl_path(f->dir, "full.tdr"));
	tl_make_meta(&m);
	assert_int_equal(tdr_writer__open(&opts, &m, &w), 0);
	tdr_meta__clear(&m);
	assert_int_equal(tdr_writer__add_frame(w, 0, f->std.frame[0], f->std.frame_sz[0]), 0);
	sz = tdr_writer__file_size(w);
	/* The disk fills up: the writer's fd now writes to /dev/full. */
	fd = fd_of(path);
	assert_true(fd >= 0);
	full = open("/dev/full", O_WRONLY);
	assert_true(full >= 0);
	assert_int_equal(dup2(full, fd), fd);
	close(full);
	assert_int_equal(tdr_writer__add_frame(w, 1, f->std.frame[1], f->std.frame_sz[1]), -ENOSPC);
	assert_int_equal(tdr_writer__add_section(w, TDR_SECTION_KSYMS, "x", 1), -ENOSPC);
	assert_int_equal(tdr_writer__file_size(w), sz);
	assert_int_equal(tdr_writer__totals(w)->frames, 1);
	assert_int_equal(tdr_writer__finish(w, NULL, 0, NULL), -ENOSPC);
	tdr_writer__free(w);

	/* What reached the disk before is intact. */
	assert_int_equal(tdr_reader__open(path, &r), 0);
	assert_int_equal(tdr_reader__status(r)->file_sz, sz);
	assert_true(tdr_reader__status(r)->truncated);
	assert_int_equal(tdr_reader__frame_cnt(r), 1);
	tdr_reader__free(r);
}

static void test_faults__half_written_frame_is_cut_off(void **state)
{
	struct fixture *f = *state;
	char path[4096];
	struct tdr_writer_opts opts = { .path = path };
	struct tdr_frame_buf buf = { 0 };
	struct tdr_writer *w = NULL;
	struct tdr_reader *r = NULL;
	struct rlimit old, lim;
	static uint8_t noise[16384];
	struct tdr_meta m;
	struct stat st;
	uint64_t sz;
	uint32_t s = 12345;

	/* Incompressible records: SAMPLEs of random bytes. */
	for (size_t pos = 0; pos < sizeof(noise); pos += 256) {
		struct perf_event_header h = { .type = PERF_RECORD_SAMPLE, .size = 256 };

		for (size_t i = 8; i < 256; i++) {
			s = s * 1103515245u + 12345u;
			noise[pos + i] = (uint8_t)(s >> 16);
		}
		memcpy(noise + pos, &h, sizeof(h));
	}
	snprintf(path, sizeof(path), "%s", tl_path(f->dir, "limit.tdr"));
	tl_make_meta(&m);
	assert_int_equal(tdr_writer__open(&opts, &m, &w), 0);
	tdr_meta__clear(&m);
	assert_int_equal(tdr_writer__add_frame(w, 0, f->std.frame[0], f->std.frame_sz[0]), 0);
	sz = tdr_writer__file_size(w);

	/* A file size limit 1000 bytes further: the next frame is cut by the
	 * kernel after a partial write (EFBIG), and the writer cuts the rest. */
	assert_int_equal(getrlimit(RLIMIT_FSIZE, &old), 0);
	lim = old;
	lim.rlim_cur = sz + 1000;
	signal(SIGXFSZ, SIG_IGN);
	assert_int_equal(setrlimit(RLIMIT_FSIZE, &lim), 0);
	assert_int_equal(tdr_writer__add_frame(w, 1, noise, sizeof(noise)), -EFBIG);
	assert_int_equal(setrlimit(RLIMIT_FSIZE, &old), 0);
	signal(SIGXFSZ, SIG_DFL);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_size, sz);
	assert_int_equal(tdr_writer__file_size(w), sz);

	/* The writer goes on after the error. */
	assert_int_equal(tdr_writer__add_frame(w, 1, f->std.frame[1], f->std.frame_sz[1]), 0);
	assert_int_equal(tdr_writer__finish(w, NULL, 0, NULL), 0);
	tdr_writer__free(w);
	assert_int_equal(tdr_reader__open(path, &r), 0);
	assert_false(tdr_reader__status(r)->truncated);
	assert_int_equal(tdr_reader__frame_cnt(r), 2);
	assert_int_equal(tdr_reader__totals(r)->frames, 2);
	assert_int_equal(tdr_reader__load_frame(r, 1, &buf), 0);
	assert_memory_equal(buf.data, f->std.frame[1], f->std.frame_sz[1]);
	tdr_frame_buf__release(&buf);
	tdr_reader__free(r);
}

static void test_faults__bad_frames_are_refused_before_writing(void **state)
{
	struct fixture *f = *state;
	struct tdr_writer_opts opts = { .path = tl_path(f->dir, "bad.tdr") };
	struct tdr_writer *w = NULL;
	struct tdr_meta m;
	uint64_t sz;
	uint8_t rec[16] = { 0 };
	struct perf_event_header h = { .type = PERF_RECORD_SAMPLE, .size = 24 };

	tl_make_meta(&m);
	assert_int_equal(tdr_writer__open(&opts, &m, &w), 0);
	tdr_meta__clear(&m);
	sz = tdr_writer__file_size(w);
	memcpy(rec, &h, sizeof(h)); /* 24 bytes claimed, 16 given */
	assert_int_equal(tdr_writer__add_frame(w, 0, rec, sizeof(rec)), -TDR_E_CORRUPT);
	h.size = 4; /* below the header size */
	memcpy(rec, &h, sizeof(h));
	assert_int_equal(tdr_writer__add_frame(w, 0, rec, sizeof(rec)), -TDR_E_CORRUPT);
	assert_int_equal(tdr_writer__add_frame(w, 0, rec, 12), -TDR_E_CORRUPT);
	h.size = 12; /* not a multiple of 8 */
	memcpy(rec, &h, sizeof(h));
	assert_int_equal(tdr_writer__add_frame(w, 0, rec, 12), -TDR_E_CORRUPT);
	/* Above the frame cap (checked before the bytes are read). */
	assert_int_equal(tdr_writer__add_frame(w, 0, rec, (size_t)TDR_FRAME_MAX_RAW + 8),
			 -TDR_E_LIMIT);
	assert_int_equal(tdr_writer__add_section(w, 1, rec, (1u << 30) + 1u), -TDR_E_LIMIT);
	assert_int_equal(tdr_writer__file_size(w), sz);
	assert_int_equal(tdr_writer__totals(w)->frames, 0);
	tdr_writer__free(w);
}

static void test_faults__metadata_above_caps_is_refused(void **state)
{
	struct fixture *f = *state;
	struct tdr_writer_opts opts = { .path = tl_path(f->dir, "caps.tdr") };
	struct tdr_writer *w = NULL;
	struct tdr_meta m;
	char *big;

	tl_make_meta(&m);
	big = malloc(70000);
	memset(big, 'h', 69999);
	big[69999] = '\0';
	free(m.hostname);
	m.hostname = big;
	assert_int_equal(tdr_writer__open(&opts, &m, &w), -TDR_E_LIMIT);
	assert_null(w);
	/* Nothing was created. */
	assert_int_equal(access(opts.path, F_OK), -1);
	tdr_meta__clear(&m);
}

int main(void)
{
#define T(name) cmocka_unit_test_setup_teardown(name, setup, teardown)
	const struct CMUnitTest tests[] = {
		T(test_faults__writer_allocation_failures),
		T(test_faults__reader_allocation_failures),
		T(test_faults__dev_full_fails_cleanly),
		T(test_faults__disk_full_under_an_open_writer),
		T(test_faults__half_written_frame_is_cut_off),
		T(test_faults__bad_frames_are_refused_before_writing),
		T(test_faults__metadata_above_caps_is_refused),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
