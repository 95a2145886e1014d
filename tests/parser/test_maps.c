/*
 * tests/parser/test_maps.c - address spaces: mmap, fork, exec, exit, lookup.
 *
 * One plain sampling event (no READ); every check feeds a sample and looks at
 * the mapping and file offset the parser attached to it.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "support/synth.h"
#include "tdrec/parser.h"

struct mx {
	struct tdr_meta meta;
	struct perf_event_attr attr;
	struct tdr_parser *p;
	struct synth_buf b;
	struct tdr_sample last;
	struct tdr_mapping last_map; /* copy of *last.map */
	bool have_map;
	char comm[64];
	unsigned delivered;
};

static int mx_cb(const struct tdr_sample *s, void *ctx)
{
	struct mx *m = ctx;

	m->last = *s;
	m->have_map = s->map != NULL;
	if (s->map)
		m->last_map = *s->map;
	snprintf(m->comm, sizeof(m->comm), "%s", s->comm);
	m->delivered++;
	return 0;
}

static int setup(void **state)
{
	struct mx *m = calloc(1, sizeof(*m));
	uint64_t id = 7;

	m->attr.size = sizeof(m->attr);
	m->attr.type = PERF_TYPE_SOFTWARE;
	m->attr.sample_period = 1000;
	m->attr.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
			      PERF_SAMPLE_ID | PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD;
	m->attr.sample_id_all = 1;
	/* As perf record --buildid-mmap: MMAP2 records may carry build-ids
	 * (without it the flag is not believed: test_mmap2_build_id.c). */
	m->attr.build_id = 1;
	synth_meta_add_event(&m->meta, "cpu-clock", &m->attr, TDR_EVENT_LEADER | TDR_EVENT_SAMPLER,
			     0, &id, NULL, 10, 1);
	assert_int_equal(tdr_parser__new(&m->meta, &m->p), 0);
	*state = m;
	return 0;
}

static int teardown(void **state)
{
	struct mx *m = *state;

	tdr_parser__free(m->p);
	tdr_meta__clear(&m->meta);
	synth_buf_release(&m->b);
	free(m);
	return 0;
}

static struct synth_sid sid_of(uint32_t pid, uint32_t tid, uint64_t time)
{
	struct synth_sid s = { .pid = pid, .tid = tid, .time = time, .id = 7, .cpu = 0 };

	return s;
}

static void feed(struct mx *m, size_t off)
{
	assert_int_equal(tdr_parser__feed(m->p, 0, synth_rec(&m->b, off), mx_cb, m), 0);
	synth_buf_reset(&m->b);
}

static void mmap2(struct mx *m, uint32_t pid, uint64_t addr, uint64_t len, uint64_t pgoff,
		  const char *path)
{
	struct synth_sid sid = sid_of(pid, pid, 1);

	feed(m, synth_mmap(&m->b, &m->attr, false, 0, pid, pid, addr, len, pgoff, path, NULL, 0,
			   &sid));
}

/* Feed a sample; returns true when it had a mapping. */
static bool sample(struct mx *m, uint32_t pid, uint32_t tid, uint64_t ip, uint16_t misc)
{
	struct synth_sample s = { .misc = misc, .ip = ip, .period = 1000 };

	s.sid = sid_of(pid, tid, 10);
	feed(m, synth_sample(&m->b, &m->attr, &s));
	return m->have_map;
}

static void test_maps__lookup_at_boundaries_with_pgoff(void **state)
{
	struct mx *m = *state;

	mmap2(m, 10, 0x400000, 0x10000, 0x1000, "/usr/bin/app");
	assert_true(sample(m, 10, 10, 0x400000, 0));
	assert_string_equal(m->last_map.path, "/usr/bin/app");
	assert_int_equal(m->last_map.kind, TDR_MAP_FILE);
	assert_int_equal(m->last.map_off, 0x1000);
	assert_true(sample(m, 10, 10, 0x40ffff, 0));
	assert_int_equal(m->last.map_off, 0x10fff);
	assert_false(sample(m, 10, 10, 0x410000, 0));
	assert_false(sample(m, 10, 10, 0x3fffff, 0));
	assert_int_equal(tdr_parser__stats(m->p)->unmapped_samples, 2);
	/* the plain sample's delta is its period */
	assert_int_equal(m->last.deltas[0], 1000);
	assert_int_equal(m->last.cpumode, TDR_MODE_USER);
}

static void test_maps__mmap_over_a_range_splits_it(void **state)
{
	struct mx *m = *state;

	mmap2(m, 10, 0x400000, 0x10000, 0x1000, "/usr/bin/app");
	mmap2(m, 10, 0x404000, 0x1000, 0, "/lib/x.so");
	assert_true(sample(m, 10, 10, 0x403fff, 0));
	assert_string_equal(m->last_map.path, "/usr/bin/app");
	assert_int_equal(m->last.map_off, 0x4fff);
	assert_true(sample(m, 10, 10, 0x404000, 0));
	assert_string_equal(m->last_map.path, "/lib/x.so");
	assert_int_equal(m->last.map_off, 0);
	assert_true(sample(m, 10, 10, 0x405000, 0));
	assert_string_equal(m->last_map.path, "/usr/bin/app");
	assert_int_equal(m->last.map_off, 0x6000);
}

static void test_maps__fork_copies_exec_resets_exit_drops(void **state)
{
	struct mx *m = *state;
	struct synth_sid sid = sid_of(10, 10, 2);

	mmap2(m, 10, 0x400000, 0x10000, 0, "/usr/bin/app");
	feed(m, synth_comm(&m->b, &m->attr, 10, 10, "app", false, &sid));
	/* a new process 20 (child of 10) */
	feed(m, synth_task(&m->b, &m->attr, false, 20, 10, 20, 10, 3, &sid));
	assert_true(sample(m, 20, 20, 0x400010, 0));
	assert_string_equal(m->last_map.path, "/usr/bin/app");
	assert_string_equal(m->comm, "app");
	/* the child maps a library: the parent does not see it */
	mmap2(m, 20, 0x700000, 0x1000, 0, "/lib/child.so");
	assert_true(sample(m, 20, 20, 0x700010, 0));
	assert_false(sample(m, 10, 10, 0x700010, 0));
	/* exec in the child: old mappings gone, new image mapped after */
	sid = sid_of(20, 20, 4);
	feed(m, synth_comm(&m->b, &m->attr, 20, 20, "other", true, &sid));
	assert_false(sample(m, 20, 20, 0x400010, 0));
	assert_string_equal(m->comm, "other");
	mmap2(m, 20, 0x500000, 0x1000, 0, "/bin/other");
	assert_true(sample(m, 20, 20, 0x500010, 0));
	assert_string_equal(m->last_map.path, "/bin/other");
	/* the parent is untouched */
	assert_true(sample(m, 10, 10, 0x400010, 0));
	/* exit of the child's main thread drops its space */
	feed(m, synth_task(&m->b, &m->attr, true, 20, 10, 20, 10, 5, &sid));
	assert_false(sample(m, 20, 20, 0x500010, 0));
}

static void test_maps__new_thread_shares_the_space(void **state)
{
	struct mx *m = *state;
	struct synth_sid sid = sid_of(10, 10, 2);

	mmap2(m, 10, 0x400000, 0x10000, 0, "/usr/bin/app");
	feed(m, synth_comm(&m->b, &m->attr, 10, 10, "app", false, &sid));
	feed(m, synth_task(&m->b, &m->attr, false, 10, 10, 11, 10, 3, &sid));
	/* a mapping made after the thread started is visible to it */
	mmap2(m, 10, 0x600000, 0x1000, 0, "/lib/late.so");
	assert_true(sample(m, 10, 11, 0x600000, 0));
	assert_string_equal(m->comm, "app");
	/* a non-main thread's exit keeps the process's space */
	feed(m, synth_task(&m->b, &m->attr, true, 10, 10, 11, 10, 4, &sid));
	assert_true(sample(m, 10, 10, 0x400000, 0));
	/* unknown thread: empty comm */
	sample(m, 10, 99, 0x400000, 0);
	assert_string_equal(m->comm, "");
}

static void test_maps__vdso_anon_kernel_classified(void **state)
{
	struct mx *m = *state;

	mmap2(m, 10, 0x7fff0000, 0x2000, 0, "[vdso]");
	mmap2(m, 10, 0x10000000, 0x100000, 0, "//anon");
	mmap2(m, 10, 0x20000000, 0x100000, 0, "[heap]");
	assert_true(sample(m, 10, 10, 0x7fff0100, 0));
	assert_int_equal(m->last_map.kind, TDR_MAP_VDSO);
	assert_true(sample(m, 10, 10, 0x10000100, 0));
	assert_int_equal(m->last_map.kind, TDR_MAP_ANON);
	assert_true(sample(m, 10, 10, 0x20000100, 0));
	assert_int_equal(m->last_map.kind, TDR_MAP_ANON);
	/* a kernel IP: the shared pseudo mapping, offset = ip */
	assert_true(sample(m, 10, 10, 0xffffffff81001234ULL, PERF_RECORD_MISC_KERNEL));
	assert_int_equal(m->last_map.kind, TDR_MAP_KERNEL);
	assert_string_equal(m->last_map.path, "[kernel.kallsyms]");
	assert_int_equal(m->last.map_off, 0xffffffff81001234ULL);
	assert_int_equal(m->last.cpumode, TDR_MODE_KERNEL);
	assert_int_equal(tdr_parser__stats(m->p)->unmapped_samples, 0);
}

static void test_maps__kernel_module_mapping(void **state)
{
	struct mx *m = *state;
	struct synth_sid sid = sid_of(UINT32_MAX, UINT32_MAX, 1);

	feed(m, synth_mmap(&m->b, &m->attr, true, PERF_RECORD_MISC_KERNEL, UINT32_MAX, UINT32_MAX,
			   0xffffffffc0000000ULL, 0x10000, 0, "/lib/modules/x.ko", NULL, 0, &sid));
	assert_true(sample(m, 10, 10, 0xffffffffc0000100ULL, PERF_RECORD_MISC_KERNEL));
	assert_string_equal(m->last_map.path, "/lib/modules/x.ko");
	assert_int_equal(m->last_map.kind, TDR_MAP_KERNEL);
	assert_int_equal(m->last.map_off, 0x100);
}

static void test_maps__mmap2_build_id(void **state)
{
	struct mx *m = *state;
	static const uint8_t bid[20] = { 0xde, 0xad, 0xbe, 0xef, 1, 2, 3, 4, 5, 6,
					 7,    8,    9,	   10,	 11, 12, 13, 14, 15, 16 };
	struct synth_sid sid = sid_of(10, 10, 1);

	feed(m, synth_mmap(&m->b, &m->attr, false, 0, 10, 10, 0x400000, 0x1000, 0, "/usr/bin/app",
			   bid, 20, &sid));
	assert_true(sample(m, 10, 10, 0x400100, 0));
	assert_int_equal(m->last_map.build_id_sz, 20);
	assert_memory_equal(m->last_map.build_id, bid, 20);
	assert_int_equal(m->last_map.ino, 0);
	/* without a build-id: device and inode */
	mmap2(m, 10, 0x500000, 0x1000, 0, "/usr/lib/y.so");
	assert_true(sample(m, 10, 10, 0x500100, 0));
	assert_int_equal(m->last_map.build_id_sz, 0);
	assert_int_equal(m->last_map.maj, 8);
	assert_int_equal(m->last_map.ino, 12345);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_maps__lookup_at_boundaries_with_pgoff, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_maps__mmap_over_a_range_splits_it, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_maps__fork_copies_exec_resets_exit_drops, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_maps__new_thread_shares_the_space, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_maps__vdso_anon_kernel_classified, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_maps__kernel_module_mapping, setup, teardown),
		cmocka_unit_test_setup_teardown(test_maps__mmap2_build_id, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
