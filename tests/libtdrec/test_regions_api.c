/*
 * tests/libtdrec/test_regions_api.c - libtdrec's API for real, on the
 * software family (task-clock, context-switches, cpu-migrations,
 * page-faults through read(2)): option and name errors, nesting, what a
 * read returns without TopDown, the regions file as the section reader
 * sees it (the calling thread's tid, unbalanced calls and regions left
 * open counted as errors), and writing where nothing can be written.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cmocka.h>
#include <math.h>

#include "tdrec/regions.h"
#include "tdrec/regions_fmt.h"

static struct tdr_regions *open_sw(uint32_t max_regions, const char *path)
{
	struct tdr_regions_opts o = {.plan = "software", .max_regions = max_regions,
				     .path = path};
	struct tdr_regions *rs;

	assert_int_equal(tdr_regions__open(&o, &rs), 0);
	return rs;
}

static void test_open_and_names(void **state)
{
	struct tdr_regions_opts o = {.plan = "no-such-family"};
	struct tdr_regions *rs;
	char big[300];

	(void)state;
	assert_int_equal(tdr_regions__open(&o, &rs), -ENOENT);
	assert_null(rs);
	o.plan = "software";
	o.max_regions = (1u << 20) + 1;
	assert_int_equal(tdr_regions__open(&o, &rs), -EINVAL);

	rs = open_sw(2, NULL);
	assert_string_equal(tdr_regions__family(rs), "software");
	assert_false(tdr_regions__rdpmc(rs));
	assert_int_equal(tdr_regions__event_cnt(rs), 4);
	assert_string_equal(tdr_regions__event_name(rs, 0), "task-clock");
	assert_string_equal(tdr_regions__event_name(rs, 3), "page-faults");
	assert_null(tdr_regions__event_name(rs, 4));
	assert_int_equal(tdr_regions__category_cnt(rs), 0);
	assert_int_equal(tdr_regions__region(rs, "a"), 0);
	assert_int_equal(tdr_regions__region(rs, "b"), 1);
	assert_int_equal(tdr_regions__region(rs, "a"), 0);
	assert_int_equal(tdr_regions__region(rs, "c"), -ENOSPC);
	assert_int_equal(tdr_regions__region(rs, ""), -EINVAL);
	assert_int_equal(tdr_regions__region(rs, NULL), -EINVAL);
	memset(big, 'x', sizeof(big));
	big[256] = 0;
	assert_int_equal(tdr_regions__region(rs, big), -EINVAL);
	tdr_regions__free(rs);
}

/* Touch n fresh pages: n page faults in this thread. */
static void fault_pages(size_t n)
{
	long pg = sysconf(_SC_PAGESIZE);
	volatile char *p = mmap(NULL, n * (size_t)pg, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
		       -1, 0);

	assert_true(p != MAP_FAILED);
	for (size_t i = 0; i < n; i++)
		p[i * (size_t)pg] = 1;
	munmap((void *)p, n * (size_t)pg);
}

static void test_nesting_and_file(void **state)
{
	char path[] = "/tmp/tdr-regions-api-XXXXXX";
	int fd = mkstemp(path);
	struct tdr_regions *rs;
	struct tdr_regions_thread *t;
	struct tdr_region_value outer, inner;
	struct tdr_regions_iter it;
	struct tdr_regions_hdr h;
	struct tdr_regions_entry e;
	uint8_t buf[4096];
	ssize_t n;
	int a, b;

	(void)state;
	assert_true(fd >= 0);
	rs = open_sw(0, path);
	a = tdr_regions__region(rs, "outer");
	b = tdr_regions__region(rs, "inner");
	assert_int_equal(tdr_regions__thread_open(rs, &t), 0);
	assert_false(tdr_regions_thread__rdpmc(t));
	for (int i = 0; i < 3; i++) {
		tdr_regions_thread__begin(t, a);
		fault_pages(4);
		tdr_regions_thread__begin(t, b);
		fault_pages(8);
		tdr_regions_thread__end(t, b);
		tdr_regions_thread__end(t, a);
	}
	assert_int_equal(tdr_regions_thread__read(t, a, &outer), 0);
	assert_int_equal(tdr_regions_thread__read(t, b, &inner), 0);
	assert_int_equal(outer.count, 3);
	assert_int_equal(inner.count, 3);
	/* At least the pages touched (the C library may fault a few more of
	 * its own), from the first region on: the group counts as soon as
	 * it is open (regions.c open_group), and the outer region holds the
	 * inner one. */
	assert_true(inner.events[3] >= 24);
	assert_true(outer.events[3] >= inner.events[3] + 12);
	assert_true(outer.events[0] >= inner.events[0] && inner.events[0] > 0);
	assert_true(isnan(outer.total_slots));
	assert_int_equal(tdr_regions_thread__read(t, 99999, &outer), -EINVAL);
	/* Unbalanced: an end of what is not open, and a region left open. */
	tdr_regions_thread__end(t, b);
	tdr_regions_thread__begin(t, a);
	tdr_regions_thread__close(t);
	tdr_regions__free(rs); /* writes path */

	n = read(fd, buf, sizeof(buf));
	close(fd);
	unlink(path);
	assert_true(n > TDR_REGIONS_FILE_MAGIC_SZ);
	assert_memory_equal(buf, TDR_REGIONS_FILE_MAGIC, TDR_REGIONS_FILE_MAGIC_SZ);
	assert_int_equal(tdr_regions_iter__init(&it, buf + 8, (size_t)n - 8, &h), 0);
	assert_int_equal(h.method, TDR_REGIONS_READ);
	assert_int_equal(h.pid, getpid());
	assert_int_equal(h.errors, 2);
	assert_int_equal(h.region_cnt, 2);
	assert_int_equal(tdr_regions_iter__next(&it, &e), 1);
	assert_memory_equal(e.name.s, "outer", 5);
	assert_int_equal(e.tid, (uint32_t)syscall(SYS_gettid));
	assert_int_equal(e.count, 3);
	assert_int_equal(tdr_regions_iter__next(&it, &e), 1);
	assert_memory_equal(e.name.s, "inner", 5);
	assert_int_equal(tdr_regions_iter__next(&it, &e), 0);
}

static void test_write_fails(void **state)
{
	struct tdr_regions *rs = open_sw(0, NULL);

	(void)state;
	assert_int_equal(tdr_regions__write(rs, "/nonexistent-dir/x.regions"), -ENOENT);
	tdr_regions__free(rs);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_open_and_names),
	    cmocka_unit_test(test_nesting_and_file),
	    cmocka_unit_test(test_write_fails),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
