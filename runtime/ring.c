/*
 * runtime/ring.c - drain one perf_event mmap ring into a byte buffer.
 *
 * Responsibility: read data_head, copy whole records out (reassembling the
 * ones whose body wraps past the end of the data area), release them with
 * data_tail, and count what went by (samples per sampler, PERF_RECORD_LOST,
 * throttles; with tdrec/records.h's size rule and counts, as the file's
 * totals are). It does not decide where the bytes go (drain.c) and never
 * allocates or logs per record (docs/architecture.md "Conventions"): problems are counted.
 * Objects and lifecycle: tdr_ring__mmap (or __init_mem) -> __add_id ->
 * __read (repeat) -> __release.
 * Ownership and threads: one drainer thread per ring; the other side is the
 * kernel (or a test thread acting as the kernel). The mapping is owned by
 * the ring, the fd is borrowed from the session.
 * Invariants: data_tail only ever advances, and only past records that have
 * been copied out (or deliberately skipped); data_head is read once per call.
 * See: docs/kernel.md "Ring buffer"; perf_event_open(2) "MMAP layout";
 * tools/include/linux/ring_buffer.h (the pairing of barriers).
 */
#include "runtime_int.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "tdrec/records.h"
#include "tdrec/tdr_mem.h"

void tdr_ring__init_mem(struct tdr_ring *r, void *base, size_t page_sz, uint64_t data_sz)
{
	memset(r, 0, sizeof(*r));
	r->base = base;
	r->pg = base;
	r->data = (uint8_t *)base + page_sz;
	r->data_sz = data_sz;
	r->fd = -1;
	r->cpu = -1;
}

int tdr_ring__mmap(struct tdr_ring *r, int fd, int cpu, size_t pages)
{
	size_t page_sz = (size_t)sysconf(_SC_PAGESIZE);
	size_t len = (1 + pages) * page_sz;
	void *base = NULL;
	int err;

	memset(r, 0, sizeof(*r));
	r->fd = -1;
	err = tdr_sys_mmap(fd, len, &base);
	if (err)
		return err;
	tdr_ring__init_mem(r, base, page_sz, (uint64_t)pages * page_sz);
	r->map_sz = len;
	r->fd = fd;
	r->cpu = cpu;
	/* Kernels before about 4.1 leave data_offset/data_size at 0: the data
	 * area then starts at the second page (docs/kernel.md "Ring buffer"). */
	if (r->pg->data_offset && r->pg->data_size) {
		r->data = (uint8_t *)base + r->pg->data_offset;
		r->data_sz = r->pg->data_size;
	}
	r->tail = __atomic_load_n(&r->pg->data_tail, __ATOMIC_RELAXED);
	return 0;
}

int tdr_ring__add_id(struct tdr_ring *r, uint64_t id, uint32_t group)
{
	size_t cap = r->id_cnt, cap2 = r->id_cnt;
	int err;

	err = tdr_ensure_cap(&r->ids, &cap, sizeof(*r->ids), r->id_cnt + 1);
	if (err)
		return err;
	err = tdr_ensure_cap(&r->id_groups, &cap2, sizeof(*r->id_groups), r->id_cnt + 1);
	if (err)
		return err;
	r->ids[r->id_cnt] = id;
	r->id_groups[r->id_cnt] = group;
	r->id_cnt++;
	return 0;
}

/* Copy n bytes starting at free-running position pos, across the end of the
 * data area if needed. */
static void ring_copy(const struct tdr_ring *r, uint64_t pos, void *dst, uint64_t n)
{
	uint64_t mask = r->data_sz - 1;
	uint64_t off = pos & mask;
	uint64_t first = r->data_sz - off;

	if (first >= n) {
		memcpy(dst, r->data + off, n);
		return;
	}
	memcpy(dst, r->data + off, first);
	memcpy((uint8_t *)dst + first, r->data, n - first);
}

/* Count the records of one read, now contiguous at dst (the walk cannot
 * fail: tdr_ring__read took only records tdr_record__size_ok accepts).
 * The counting rules are the file totals' own (tdr_record_counts__add). */
static void ring_count(struct tdr_ring *r, const uint8_t *dst, size_t sz)
{
	struct tdr_record_iter it = {.data = dst, .sz = sz};
	struct tdr_record_counts c = {0};
	const struct perf_event_header *h;

	while (tdr_records__next(&it, &h) > 0) {
		tdr_record_counts__add(&c, h);
		if (tdr_record__type(h) != PERF_RECORD_SAMPLE)
			continue;
		if (!r->count_by_id) {
			r->group_samples[0]++;
		} else if (tdr_record__body_sz(h) >= 8) {
			/* For inherited events the id is the parent's
			 * (primary_event_id), the one the session recorded. */
			uint64_t id = tdr_rec_ld64(tdr_record__body(h) + TDR_SAMPLE_IDENTIFIER);

			for (size_t i = 0; i < r->id_cnt; i++) {
				if (r->ids[i] == id) {
					r->group_samples[r->id_groups[i]]++;
					break;
				}
			}
		}
	}
	r->cnt.records += c.records;
	r->cnt.samples += c.samples;
	r->cnt.lost_records += c.lost_records;
	r->cnt.lost_samples += c.lost_samples;
	r->cnt.throttles += c.throttles;
}

int tdr_ring__read(struct tdr_ring *r, uint8_t *dst, size_t cap, size_t *copied)
{
	struct perf_event_header h;
	uint64_t head, start, pos;
	int more = 0;

	*copied = 0;
	/* Acquire pairs with the kernel's smp_wmb() before it stores data_head
	 * (perf_output_put_handle): the record bytes below head are visible. */
	head = __atomic_load_n(&r->pg->data_head, __ATOMIC_ACQUIRE);
	start = pos = r->tail;
	if (head - start > r->data_sz) {
		/* Impossible for a writable ring: resynchronise rather than
		 * copy garbage. */
		r->cnt.resyncs++;
		start = pos = head;
	}
	while (pos != head) {
		if (head - pos < sizeof(h)) {
			r->cnt.resyncs++;
			break;
		}
		ring_copy(r, pos, &h, sizeof(h));
		/* The walker's size rule: the writer would refuse the frame. */
		if (!tdr_record__size_ok(h.size, head - pos)) {
			r->cnt.resyncs++;
			break;
		}
		if (pos - start + h.size > cap) {
			more = 1;
			break;
		}
		pos += h.size;
	}
	ring_copy(r, start, dst, pos - start);
	ring_count(r, dst, pos - start);
	*copied = pos - start;
	r->cnt.bytes += pos - start;
	if (!more && pos != head) /* a bad header: skip the rest */
		pos = head;
	r->tail = pos;
	/* Release pairs with the kernel's load of data_tail before it writes
	 * (perf_output_begin, barrier A): our copies above are done before the
	 * space is handed back. */
	__atomic_store_n(&r->pg->data_tail, pos, __ATOMIC_RELEASE);
	return more;
}

void tdr_ring__skip(struct tdr_ring *r)
{
	struct perf_event_header h;
	uint64_t head = __atomic_load_n(&r->pg->data_head, __ATOMIC_ACQUIRE);
	uint64_t pos = r->tail;

	if (head - pos < sizeof(h))
		return;
	ring_copy(r, pos, &h, sizeof(h));
	r->cnt.oversized++;
	pos = tdr_record__size_ok(h.size, head - pos) ? pos + h.size : head;
	r->tail = pos;
	/* Release: see tdr_ring__read. */
	__atomic_store_n(&r->pg->data_tail, pos, __ATOMIC_RELEASE);
}

uint64_t tdr_ring__pending(const struct tdr_ring *r)
{
	return __atomic_load_n(&r->pg->data_head, __ATOMIC_ACQUIRE) - r->tail;
}

void tdr_ring__release(struct tdr_ring *r)
{
	if (r->map_sz && r->base)
		tdr_sys_munmap(r->base, r->map_sz);
	r->base = NULL;
	r->pg = NULL;
	r->map_sz = 0;
	zfree(&r->ids);
	zfree(&r->id_groups);
	r->id_cnt = 0;
}
