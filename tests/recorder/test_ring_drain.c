/*
 * tests/recorder/test_ring_drain.c - the drain loop (ring.c, drain.c,
 * writer_thread.c) against a thread that behaves like the kernel's ring
 * writer.
 *
 * The fake kernel writes variable-size records into an in-memory
 * perf_event_mmap_page + data area: it reads data_tail with acquire order,
 * never overwrites unread bytes, lets record bodies wrap past the end,
 * drops records that do not fit and, before its next successful write,
 * emits PERF_RECORD_LOST { id, lost } (needing room for both, like
 * perf_output_begin), and publishes data_head with release order. It also
 * keeps a copy of every byte it published. The drain side runs the real
 * drain loop and writer thread; the sink collects frames. The check: the
 * collected bytes equal the published bytes exactly (every byte once, in
 * order), and the samples' sequence numbers account for every drop.
 */
#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cmocka.h>

#include "recorder_int.h"
#include "runtime_int.h" /* tdr_ring__init_mem, tdr_session__attr (runtime/) */
#include "tdrec/tdr_err.h"

#define PAGE 4096u
#define LOST_SZ 24u
#define LOST_ID 0xabcdefull

struct fake_kernel {
	struct perf_event_mmap_page *pg;
	uint8_t *data;
	uint64_t data_sz;
	uint64_t head;
	uint64_t lost_pending;
	uint64_t seq;		/* next sample sequence number (drops use one too) */
	uint64_t dropped;	/* samples dropped */
	uint64_t lost_reported; /* sum of LOST records written */
	uint64_t samples_written;
	uint32_t rng;
	unsigned max_words;
	/* every published byte, in order */
	uint8_t *expect;
	size_t expect_sz, expect_cap;
	long records_to_write;
	int done; /* atomic */
};

static uint32_t rnd(uint32_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 17;
	*s ^= *s << 5;
	return *s;
}

static void fk_put(struct fake_kernel *k, const void *src, size_t n)
{
	const uint8_t *p = src;

	for (size_t i = 0; i < n; i++)
		k->data[(k->head + i) & (k->data_sz - 1)] = p[i];
	assert_true(k->expect_sz + n <= k->expect_cap);
	memcpy(k->expect + k->expect_sz, src, n);
	k->expect_sz += n;
	k->head += n;
}

static void fk_publish(struct fake_kernel *k)
{
	/* Pairs with the acquire load of data_head in tdr_ring__read. */
	__atomic_store_n(&k->pg->data_head, k->head, __ATOMIC_RELEASE);
}

/* Write one sample of size bytes, or drop it. Returns 1 when written. */
static int fk_write_sample(struct fake_kernel *k, size_t size)
{
	uint8_t rec[1024];
	struct perf_event_header h;
	uint64_t tail, need, seq = k->seq++;

	/* Pairs with the release store of data_tail by the drainer. */
	tail = __atomic_load_n(&k->pg->data_tail, __ATOMIC_ACQUIRE);
	need = size + (k->lost_pending ? LOST_SZ : 0);
	if (k->head + need - tail > k->data_sz) {
		k->lost_pending++;
		k->dropped++;
		return 0;
	}
	if (k->lost_pending) {
		uint64_t body[2] = {LOST_ID, k->lost_pending};

		h = (struct perf_event_header){.type = PERF_RECORD_LOST, .size = LOST_SZ};
		memcpy(rec, &h, sizeof(h));
		memcpy(rec + 8, body, sizeof(body));
		fk_put(k, rec, LOST_SZ);
		k->lost_reported += k->lost_pending;
		k->lost_pending = 0;
	}
	h = (struct perf_event_header){.type = PERF_RECORD_SAMPLE, .size = (uint16_t)size};
	memcpy(rec, &h, sizeof(h));
	memcpy(rec + 8, &seq, sizeof(seq));
	for (size_t i = 16; i < size; i++)
		rec[i] = (uint8_t)(seq * 31 + i);
	fk_put(k, rec, size);
	k->samples_written++;
	return 1;
}

static size_t fk_size(struct fake_kernel *k)
{
	return 8 * (2 + rnd(&k->rng) % k->max_words);
}

static void *fk_thread(void *arg)
{
	struct fake_kernel *k = arg;

	for (long i = 0; i < k->records_to_write; i++) {
		size_t size = fk_size(k);
		/* Alternate phases: in "polite" ones (2 of every 3 thousand
		 * records) the producer waits a little for room, like a
		 * workload that samples slower than the drain; in the others it
		 * drops as the kernel does under overload. */
		bool polite = (i / 1000) % 3 != 2;

		for (int tries = 0; polite && tries < 1000; tries++) {
			uint64_t tail = __atomic_load_n(&k->pg->data_tail, __ATOMIC_ACQUIRE);

			if (k->head + size + LOST_SZ - tail <= k->data_sz)
				break;
			fk_publish(k);
			sched_yield();
		}
		fk_write_sample(k, size);
		/* Publish in small batches, as nested writers do. */
		if (rnd(&k->rng) % 3 == 0)
			fk_publish(k);
		if (rnd(&k->rng) % 64 == 0)
			sched_yield();
	}
	fk_publish(k);
	__atomic_store_n(&k->done, 1, __ATOMIC_RELEASE);
	return NULL;
}

static void fk_init(struct fake_kernel *k, void *mem, uint64_t data_sz, long records, uint32_t seed)
{
	memset(k, 0, sizeof(*k));
	memset(mem, 0, PAGE + data_sz);
	k->pg = mem;
	k->data = (uint8_t *)mem + PAGE;
	k->data_sz = data_sz;
	k->rng = seed;
	k->max_words = data_sz / 8 / 4 < 62 ? (unsigned)(data_sz / 8 / 4) : 62;
	k->records_to_write = records;
	k->expect_cap = (size_t)records * (LOST_SZ + 8 * (2 + k->max_words)) + 64;
	k->expect = malloc(k->expect_cap);
	assert_non_null(k->expect);
}

/* The sink: appends frames; now and then slow, to starve the pool. */
struct collect {
	uint8_t *buf;
	size_t sz, cap;
	uint32_t rng;
	uint64_t frames;
	int fail_at; /* fail the Nth frame (1-based), 0 never */
};

static int collect_sink(void *ctx, uint32_t ring, const void *data, size_t sz)
{
	struct collect *c = ctx;

	assert_int_equal(ring, 7);
	c->frames++;
	if (c->fail_at && c->frames == (uint64_t)c->fail_at)
		return -ENOSPC;
	if (c->sz + sz > c->cap) {
		c->cap = (c->sz + sz) * 2;
		c->buf = realloc(c->buf, c->cap);
		assert_non_null(c->buf);
	}
	memcpy(c->buf + c->sz, data, sz);
	c->sz += sz;
	if (rnd(&c->rng) % 32 == 0)
		sched_yield();
	return 0;
}

/* Check the collected records: sequence numbers with gaps = LOST counts. */
static void check_sequence(const uint8_t *buf, size_t sz, uint64_t *samples, uint64_t *lost)
{
	uint64_t next_seq = 0, pending_lost = 0;
	size_t pos = 0;

	*samples = *lost = 0;
	while (pos < sz) {
		struct perf_event_header h;
		uint64_t v;

		assert_true(sz - pos >= 8);
		memcpy(&h, buf + pos, sizeof(h));
		assert_true(h.size >= 16 && pos + h.size <= sz);
		if (h.type == PERF_RECORD_LOST) {
			memcpy(&v, buf + pos + 16, 8);
			pending_lost += v;
			*lost += v;
		} else {
			assert_int_equal(h.type, PERF_RECORD_SAMPLE);
			memcpy(&v, buf + pos + 8, 8);
			assert_int_equal(v, next_seq + pending_lost);
			for (size_t i = 16; i < h.size; i++)
				assert_int_equal(buf[pos + i], (uint8_t)(v * 31 + i));
			next_seq = v + 1;
			pending_lost = 0;
			(*samples)++;
		}
		pos += h.size;
	}
}

static void run_concurrent(uint64_t pages, long records, uint32_t seed)
{
	uint64_t data_sz = pages * PAGE;
	void *mem = aligned_alloc(PAGE, PAGE + data_sz);
	struct fake_kernel k;
	struct tdr_ring ring;
	struct tdr_ring *rings[1] = {&ring};
	struct collect col = {.rng = seed * 7 + 1};
	struct tdr_wthread_opts wo = {
	    .chunk_sz = 2048,
	    .max_chunks = 4,
	    .sink = collect_sink,
	    .ctx = &col,
	};
	struct tdr_wthread *wt = NULL;
	struct tdr_drain d;
	pthread_t th;
	uint64_t samples, lost;

	assert_non_null(mem);
	fk_init(&k, mem, data_sz, records, seed);
	tdr_ring__init_mem(&ring, mem, PAGE, data_sz);
	ring.cpu = 7;
	assert_int_equal(tdr_wthread__new(&wo, &wt), 0);
	assert_int_equal(tdr_drain__init(&d, wt, rings, 1), 0);
	assert_int_equal(pthread_create(&th, NULL, fk_thread, &k), 0);

	while (!__atomic_load_n(&k.done, __ATOMIC_ACQUIRE)) {
		tdr_drain__all(&d);
		if (rnd(&col.rng) % 16 == 0)
			tdr_drain__flush(&d); /* the 500 ms flush, compressed in time */
	}
	pthread_join(th, NULL);
	/* Final drain: wait for chunks to come back when starved. */
	while (tdr_ring__pending(&ring)) {
		tdr_drain__all(&d);
		tdr_drain__flush(&d);
		sched_yield();
	}
	tdr_drain__flush(&d);
	assert_int_equal(tdr_wthread__stop(wt), 0);

	/* Every published byte arrived once and in order. */
	assert_int_equal(col.sz, k.expect_sz);
	assert_memory_equal(col.buf, k.expect, k.expect_sz);
	assert_true(k.expect_sz > data_sz); /* the ring wrapped */
	/* Every drop is accounted for by a LOST record, except drops after the
	 * last successful write (the kernel would report those later too). */
	check_sequence(col.buf, col.sz, &samples, &lost);
	assert_int_equal(samples, k.samples_written);
	assert_int_equal(lost, k.lost_reported);
	assert_int_equal(k.dropped - k.lost_reported, k.lost_pending);
	assert_int_equal(samples + k.dropped, (uint64_t)records);
	/* The ring's own counters agree. */
	assert_int_equal(ring.cnt.samples, samples);
	assert_int_equal(ring.cnt.lost_samples, lost);
	assert_int_equal(ring.cnt.bytes, col.sz);
	assert_int_equal(ring.cnt.resyncs, 0);

	tdr_drain__release(&d);
	tdr_wthread__free(wt);
	tdr_ring__release(&ring);
	free(k.expect);
	free(col.buf);
	free(mem);
}

static void test_drain__every_byte_once_in_order_1_to_64_pages(void **state)
{
	(void)state;
	for (uint64_t pages = 1; pages <= 64; pages *= 2)
		run_concurrent(pages, 12000, (uint32_t)(pages * 2654435761u) | 1);
}

/* Single-threaded: fill until the kernel drops, drain, write again: the
 * LOST record comes first and carries the exact drop count. */
static void test_ring__full_ring_drops_then_reports_lost(void **state)
{
	void *mem = aligned_alloc(PAGE, 2 * PAGE);
	struct fake_kernel k;
	struct tdr_ring ring;
	uint8_t out[PAGE];
	size_t copied;
	uint64_t lost, seq;
	uint64_t written = 0;

	(void)state;
	fk_init(&k, mem, PAGE, 1000, 1);
	tdr_ring__init_mem(&ring, mem, PAGE, PAGE);
	while (fk_write_sample(&k, 64))
		written++;
	assert_int_equal(written, PAGE / 64);
	assert_true(!fk_write_sample(&k, 64) && !fk_write_sample(&k, 64));
	fk_publish(&k);
	assert_int_equal(k.dropped, 3);

	assert_int_equal(tdr_ring__read(&ring, out, sizeof(out), &copied), 0);
	assert_int_equal(copied, PAGE);
	assert_int_equal(ring.cnt.samples, written);
	/* Room again: LOST { id, 3 } then the sample, wrapping to the start. */
	assert_int_equal(fk_write_sample(&k, 64), 1);
	fk_publish(&k);
	assert_int_equal(tdr_ring__read(&ring, out + 0, sizeof(out), &copied), 0);
	assert_int_equal(copied, LOST_SZ + 64);
	assert_int_equal(ring.cnt.lost_records, 1);
	assert_int_equal(ring.cnt.lost_samples, 3);
	memcpy(&lost, out + 16, 8);
	assert_int_equal(lost, 3);
	memcpy(&seq, out + LOST_SZ + 8, 8);
	assert_int_equal(seq, written + 3); /* the three dropped ones are skipped */
	free(k.expect);
	free(mem);
}

/* A record whose body wraps past the end comes out contiguous. */
static void test_ring__wrapped_record_is_contiguous(void **state)
{
	void *mem = aligned_alloc(PAGE, 2 * PAGE);
	struct fake_kernel k;
	struct tdr_ring ring;
	uint8_t out[PAGE];
	size_t copied;
	uint64_t samples, lost;

	(void)state;
	fk_init(&k, mem, PAGE, 10, 1);
	tdr_ring__init_mem(&ring, mem, PAGE, PAGE);
	/* Move head and tail to 40 bytes before the end. */
	k.head = PAGE - 40;
	k.expect_sz = 0;
	__atomic_store_n(&k.pg->data_tail, PAGE - 40, __ATOMIC_RELEASE);
	ring.tail = PAGE - 40;
	assert_int_equal(fk_write_sample(&k, 200), 1);
	fk_publish(&k);
	assert_int_equal(tdr_ring__read(&ring, out, sizeof(out), &copied), 0);
	assert_int_equal(copied, 200);
	assert_memory_equal(out, k.expect, 200);
	check_sequence(out, copied, &samples, &lost);
	assert_int_equal(samples, 1);
	assert_int_equal(k.pg->data_tail, PAGE + 160);
	free(k.expect);
	free(mem);
}

/* A small destination takes whole records only and says more is left. */
static void test_ring__partial_read_keeps_whole_records(void **state)
{
	void *mem = aligned_alloc(PAGE, 2 * PAGE);
	struct fake_kernel k;
	struct tdr_ring ring;
	uint8_t out[PAGE];
	size_t copied;

	(void)state;
	fk_init(&k, mem, PAGE, 10, 1);
	tdr_ring__init_mem(&ring, mem, PAGE, PAGE);
	for (int i = 0; i < 5; i++)
		fk_write_sample(&k, 48);
	fk_publish(&k);
	assert_int_equal(tdr_ring__read(&ring, out, 100, &copied), 1);
	assert_int_equal(copied, 96);
	assert_int_equal(k.pg->data_tail, 96);
	assert_int_equal(tdr_ring__read(&ring, out + 96, sizeof(out) - 96, &copied), 0);
	assert_int_equal(copied, 144);
	assert_memory_equal(out, k.expect, 240);
	free(k.expect);
	free(mem);
}

/* A header with size 0 must not loop forever: the ring resyncs to head. */
static void test_ring__bad_header_resyncs(void **state)
{
	void *mem = aligned_alloc(PAGE, 2 * PAGE);
	struct fake_kernel k;
	struct tdr_ring ring;
	uint8_t out[PAGE];
	size_t copied;
	struct perf_event_header bad = {.type = 9, .size = 0};

	(void)state;
	fk_init(&k, mem, PAGE, 10, 1);
	tdr_ring__init_mem(&ring, mem, PAGE, PAGE);
	fk_write_sample(&k, 32);
	fk_put(&k, &bad, sizeof(bad));
	fk_put(&k, &bad, sizeof(bad));
	fk_publish(&k);
	assert_int_equal(tdr_ring__read(&ring, out, sizeof(out), &copied), 0);
	assert_int_equal(copied, 32);
	assert_int_equal(ring.cnt.resyncs, 1);
	assert_int_equal(k.pg->data_tail, k.head);
	assert_int_equal(tdr_ring__pending(&ring), 0);
	free(k.expect);
	free(mem);
}

/* After the sink fails, later chunks are dropped and counted, not written. */
static void test_wthread__sink_error_stops_writing(void **state)
{
	struct collect col = {.rng = 3, .fail_at = 2};
	struct tdr_wthread_opts wo = {
	    .chunk_sz = 256,
	    .max_chunks = 2,
	    .sink = collect_sink,
	    .ctx = &col,
	};
	struct tdr_wthread *wt = NULL;
	struct tdr_chunk *c;

	(void)state;
	assert_int_equal(tdr_wthread__new(&wo, &wt), 0);
	for (int i = 0; i < 4; i++) {
		while (!(c = tdr_wthread__get(wt)))
			sched_yield(); /* pool of 2: wait for the thread */
		c->ring = 7;
		memset(c->data, i, 100);
		c->sz = 100;
		tdr_wthread__submit(wt, c);
	}
	assert_int_equal(tdr_wthread__stop(wt), -ENOSPC);
	assert_int_equal(col.sz, 100); /* only the first frame */
	assert_int_equal(tdr_wthread__dropped(wt), 300);
	tdr_wthread__free(wt);
	free(col.buf);
}

/* Nice of each thread of this process but the caller at `nice`. */
static int threads_at_nice(int nice)
{
	DIR *d = opendir("/proc/self/task");
	struct dirent *e;
	char path[300], buf[512], *p;
	int cnt = 0, field;
	long self = syscall(SYS_gettid);
	FILE *fp;

	assert_non_null(d);
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.' || atol(e->d_name) == self)
			continue;
		snprintf(path, sizeof(path), "/proc/self/task/%s/stat", e->d_name);
		fp = fopen(path, "r");
		if (!fp)
			continue; /* the thread ended */
		p = fgets(buf, sizeof(buf), fp) ? strrchr(buf, ')') : NULL;
		fclose(fp);
		assert_non_null(p);
		/* After "comm) ": state is field 3, nice field 19. */
		for (field = 2; p && field < 19; field++)
			p = strchr(p + 1, ' ');
		assert_non_null(p);
		cnt += atoi(p + 1) == nice;
	}
	closedir(d);
	return cnt;
}

/* A thread made by a raised drain thread moves itself back, and is there
 * by the time tdr_wthread__new returns (the recording test looks at once). */
static void test_wthread__at_its_own_nice_on_return(void **state)
{
	struct collect col = {.rng = 3};
	struct tdr_wthread_opts wo = {
	    .chunk_sz = 256,
	    .max_chunks = 2,
	    .sink = collect_sink,
	    .ctx = &col,
	    .set_nice = true,
	};
	struct tdr_wthread *wt = NULL;
	int mine;

	(void)state;
	errno = 0;
	mine = getpriority(PRIO_PROCESS, (id_t)syscall(SYS_gettid));
	assert_int_equal(errno, 0);
	if (mine >= 19)
		skip(); /* no lower priority to move to */
	wo.nice = mine + 1;
	assert_int_equal(threads_at_nice(wo.nice), 0);
	assert_int_equal(tdr_wthread__new(&wo, &wt), 0);
	assert_int_equal(threads_at_nice(wo.nice), 1);
	assert_int_equal(tdr_wthread__stop(wt), 0);
	tdr_wthread__free(wt);
	free(col.buf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_ring__wrapped_record_is_contiguous),
	    cmocka_unit_test(test_ring__partial_read_keeps_whole_records),
	    cmocka_unit_test(test_ring__bad_header_resyncs),
	    cmocka_unit_test(test_ring__full_ring_drops_then_reports_lost),
	    cmocka_unit_test(test_wthread__sink_error_stops_writing),
	    cmocka_unit_test(test_wthread__at_its_own_nice_on_return),
	    cmocka_unit_test(test_drain__every_byte_once_in_order_1_to_64_pages),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
