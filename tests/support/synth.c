/*
 * tests/support/synth.c - write kernel-format perf records for tests.
 *
 * Responsibility: the record layouts of uapi linux/perf_event.h, written
 * field by field in the kernel's order for the attr given. See synth.h.
 * Test code: allocation failure aborts.
 */
#include "support/synth.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SID_FIELDS                                                                                 \
	(PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ID | PERF_SAMPLE_STREAM_ID |             \
	 PERF_SAMPLE_CPU | PERF_SAMPLE_IDENTIFIER)

void synth_buf_reset(struct synth_buf *b)
{
	b->sz = 0;
}

void synth_buf_release(struct synth_buf *b)
{
	free(b->data);
	memset(b, 0, sizeof(*b));
}

const struct perf_event_header *synth_rec(const struct synth_buf *b, size_t off)
{
	return (const struct perf_event_header *)(b->data + off);
}

static void reserve(struct synth_buf *b, size_t more)
{
	if (b->sz + more <= b->cap)
		return;
	while (b->cap < b->sz + more)
		b->cap = b->cap ? b->cap * 2 : 4096;
	b->data = realloc(b->data, b->cap);
	if (!b->data) {
		fprintf(stderr, "synth: out of memory\n");
		abort();
	}
}

static void put(struct synth_buf *b, const void *p, size_t n)
{
	reserve(b, n);
	memcpy(b->data + b->sz, p, n);
	b->sz += n;
}

static void put64(struct synth_buf *b, uint64_t v)
{
	put(b, &v, 8);
}

static void put32x2(struct synth_buf *b, uint32_t x, uint32_t y)
{
	put(b, &x, 4);
	put(b, &y, 4);
}

/* A NUL-terminated string padded with zeros to 8 bytes. */
static void put_str(struct synth_buf *b, const char *s)
{
	size_t n = strlen(s) + 1, pad = (8 - n % 8) % 8;
	static const uint8_t zeros[8];

	put(b, s, n);
	put(b, zeros, pad);
}

static size_t begin(struct synth_buf *b, uint32_t type, uint16_t misc)
{
	struct perf_event_header h = { .type = type, .misc = misc, .size = 0 };
	size_t off = b->sz;

	put(b, &h, sizeof(h));
	return off;
}

static size_t end(struct synth_buf *b, size_t off)
{
	struct perf_event_header *h = (struct perf_event_header *)(b->data + off);

	if (b->sz - off > 0xffff) {
		fprintf(stderr, "synth: record too large\n");
		abort();
	}
	h->size = (uint16_t)(b->sz - off);
	return off;
}

static void put_trailer(struct synth_buf *b, const struct perf_event_attr *a,
			const struct synth_sid *sid)
{
	static const struct synth_sid none;
	uint64_t st = a->sample_type;

	if (!a->sample_id_all)
		return;
	if (!sid)
		sid = &none;
	if (st & PERF_SAMPLE_TID)
		put32x2(b, sid->pid, sid->tid);
	if (st & PERF_SAMPLE_TIME)
		put64(b, sid->time);
	if (st & PERF_SAMPLE_ID)
		put64(b, sid->id);
	if (st & PERF_SAMPLE_STREAM_ID)
		put64(b, sid->stream_id);
	if (st & PERF_SAMPLE_CPU)
		put32x2(b, sid->cpu, 0);
	if (st & PERF_SAMPLE_IDENTIFIER)
		put64(b, sid->id);
}

size_t synth_sample(struct synth_buf *b, const struct perf_event_attr *a,
		    const struct synth_sample *s)
{
	uint64_t st = a->sample_type, rf = a->read_format;
	size_t off = begin(b, PERF_RECORD_SAMPLE, s->misc ? s->misc : PERF_RECORD_MISC_USER);
	size_t i;

	if (st & PERF_SAMPLE_IDENTIFIER)
		put64(b, s->sid.id);
	if (st & PERF_SAMPLE_IP)
		put64(b, s->ip);
	if (st & PERF_SAMPLE_TID)
		put32x2(b, s->sid.pid, s->sid.tid);
	if (st & PERF_SAMPLE_TIME)
		put64(b, s->sid.time);
	if (st & PERF_SAMPLE_ADDR)
		put64(b, s->addr);
	if (st & PERF_SAMPLE_ID)
		put64(b, s->sid.id);
	if (st & PERF_SAMPLE_STREAM_ID)
		put64(b, s->sid.stream_id);
	if (st & PERF_SAMPLE_CPU)
		put32x2(b, s->sid.cpu, 0);
	if (st & PERF_SAMPLE_PERIOD)
		put64(b, s->period);
	if (st & PERF_SAMPLE_READ) {
		if (rf & PERF_FORMAT_GROUP) {
			put64(b, s->nr);
			if (rf & PERF_FORMAT_TOTAL_TIME_ENABLED)
				put64(b, s->time_enabled);
			if (rf & PERF_FORMAT_TOTAL_TIME_RUNNING)
				put64(b, s->time_running);
			for (i = 0; i < s->nr; i++) {
				put64(b, s->values[i]);
				if (rf & PERF_FORMAT_ID)
					put64(b, s->ids ? s->ids[i] : 0);
				if (rf & PERF_FORMAT_LOST)
					put64(b, s->lost ? s->lost[i] : 0);
			}
		} else {
			put64(b, s->nr ? s->values[0] : 0);
			if (rf & PERF_FORMAT_TOTAL_TIME_ENABLED)
				put64(b, s->time_enabled);
			if (rf & PERF_FORMAT_TOTAL_TIME_RUNNING)
				put64(b, s->time_running);
			if (rf & PERF_FORMAT_ID)
				put64(b, s->ids ? s->ids[0] : 0);
			if (rf & PERF_FORMAT_LOST)
				put64(b, s->lost ? s->lost[0] : 0);
		}
	}
	if (st & PERF_SAMPLE_CALLCHAIN) {
		put64(b, s->callchain_nr);
		for (i = 0; i < s->callchain_nr; i++)
			put64(b, s->callchain[i]);
	}
	if (st & PERF_SAMPLE_RAW) {
		/* { u32 size; char data[size]; } padded so the record stays aligned */
		static const uint8_t zeros[8];
		size_t n = 4 + s->raw_sz;

		put(b, &s->raw_sz, 4);
		if (s->raw_sz)
			put(b, s->raw, s->raw_sz);
		put(b, zeros, (8 - n % 8) % 8);
	}
	return end(b, off);
}

size_t synth_mmap2_dev(struct synth_buf *b, const struct perf_event_attr *a, uint16_t misc,
		       uint32_t pid, uint32_t tid, uint64_t addr, uint64_t len, uint64_t pgoff,
		       const struct synth_dev *dev, const char *filename,
		       const struct synth_sid *sid)
{
	size_t off = begin(b, PERF_RECORD_MMAP2, misc ? misc : PERF_RECORD_MISC_USER);

	put32x2(b, pid, tid);
	put64(b, addr);
	put64(b, len);
	put64(b, pgoff);
	put32x2(b, dev->maj, dev->min);
	put64(b, dev->ino);
	put64(b, 0); /* ino_generation */
	put32x2(b, dev->prot, 2 /* MAP_PRIVATE */);
	put_str(b, filename);
	put_trailer(b, a, sid);
	return end(b, off);
}

size_t synth_mmap(struct synth_buf *b, const struct perf_event_attr *a, bool mmap1, uint16_t misc,
		  uint32_t pid, uint32_t tid, uint64_t addr, uint64_t len, uint64_t pgoff,
		  const char *filename, const uint8_t *build_id, uint8_t build_id_sz,
		  const struct synth_sid *sid)
{
	static const struct synth_dev dflt = {8, 1, 12345, 5 /* PROT_READ|PROT_EXEC */};
	uint16_t m = misc ? misc : PERF_RECORD_MISC_USER;
	size_t off;

	if (!mmap1 && !build_id)
		return synth_mmap2_dev(b, a, m, pid, tid, addr, len, pgoff, &dflt, filename, sid);
	if (!mmap1)
		m |= PERF_RECORD_MISC_MMAP_BUILD_ID;
	off = begin(b, mmap1 ? PERF_RECORD_MMAP : PERF_RECORD_MMAP2, m);
	put32x2(b, pid, tid);
	put64(b, addr);
	put64(b, len);
	put64(b, pgoff);
	if (!mmap1) {
		uint8_t area[24] = {build_id_sz};

		memcpy(area + 4, build_id, build_id_sz > 20 ? 20 : build_id_sz);
		put(b, area, sizeof(area));
		put32x2(b, 5 /* PROT_READ|PROT_EXEC */, 2 /* MAP_PRIVATE */);
	}
	put_str(b, filename);
	put_trailer(b, a, sid);
	return end(b, off);
}

size_t synth_comm(struct synth_buf *b, const struct perf_event_attr *a, uint32_t pid, uint32_t tid,
		  const char *comm, bool exec, const struct synth_sid *sid)
{
	size_t off = begin(b, PERF_RECORD_COMM, exec ? PERF_RECORD_MISC_COMM_EXEC : 0);

	put32x2(b, pid, tid);
	put_str(b, comm);
	put_trailer(b, a, sid);
	return end(b, off);
}

size_t synth_task(struct synth_buf *b, const struct perf_event_attr *a, bool exit, uint32_t pid,
		  uint32_t ppid, uint32_t tid, uint32_t ptid, uint64_t time,
		  const struct synth_sid *sid)
{
	size_t off = begin(b, exit ? PERF_RECORD_EXIT : PERF_RECORD_FORK, 0);

	put32x2(b, pid, ppid);
	put32x2(b, tid, ptid);
	put64(b, time);
	put_trailer(b, a, sid);
	return end(b, off);
}

size_t synth_lost(struct synth_buf *b, const struct perf_event_attr *a, uint64_t id,
		  uint64_t lost, const struct synth_sid *sid)
{
	size_t off = begin(b, PERF_RECORD_LOST, 0);

	put64(b, id);
	put64(b, lost);
	put_trailer(b, a, sid);
	return end(b, off);
}

size_t synth_lost_samples(struct synth_buf *b, const struct perf_event_attr *a, uint64_t lost,
			  const struct synth_sid *sid)
{
	size_t off = begin(b, PERF_RECORD_LOST_SAMPLES, 0);

	put64(b, lost);
	put_trailer(b, a, sid);
	return end(b, off);
}

size_t synth_throttle(struct synth_buf *b, const struct perf_event_attr *a, bool unthrottle,
		      uint64_t time, uint64_t id, uint64_t stream_id, const struct synth_sid *sid)
{
	size_t off = begin(b, unthrottle ? PERF_RECORD_UNTHROTTLE : PERF_RECORD_THROTTLE, 0);

	put64(b, time);
	put64(b, id);
	put64(b, stream_id);
	put_trailer(b, a, sid);
	return end(b, off);
}

size_t synth_raw(struct synth_buf *b, uint32_t type, uint16_t misc, const void *payload,
		 size_t sz)
{
	static const uint8_t zeros[8];
	size_t off = begin(b, type, misc);

	if (sz)
		put(b, payload, sz);
	put(b, zeros, (8 - sz % 8) % 8);
	return end(b, off);
}

size_t synth_meta_add_event(struct tdr_meta *meta, const char *name,
			    const struct perf_event_attr *a, uint32_t flags, uint32_t group_idx,
			    const uint64_t *ids, const uint32_t *cpus, uint32_t pid,
			    size_t id_cnt)
{
	struct tdr_event_desc *ev;
	size_t i;

	meta->events = realloc(meta->events, (meta->event_cnt + 1) * sizeof(*meta->events));
	if (!meta->events)
		abort();
	ev = &meta->events[meta->event_cnt];
	memset(ev, 0, sizeof(*ev));
	ev->name = strdup(name);
	ev->pmu_name = strdup("software");
	ev->pmu_type = a->type;
	ev->flags = flags;
	ev->group_idx = group_idx;
	ev->attr = *a;
	ev->attr_disk_sz = sizeof(*a);
	ev->id_cnt = id_cnt;
	ev->ids = calloc(id_cnt ? id_cnt : 1, sizeof(*ev->ids));
	if (!ev->name || !ev->pmu_name || !ev->ids)
		abort();
	for (i = 0; i < id_cnt; i++) {
		ev->ids[i].id = ids[i];
		ev->ids[i].cpu = cpus ? cpus[i] : UINT32_MAX;
		ev->ids[i].pid = pid;
	}
	return meta->event_cnt++;
}

void synth_attr_group(struct perf_event_attr *a, uint64_t period)
{
	memset(a, 0, sizeof(*a));
	a->size = sizeof(*a);
	a->type = PERF_TYPE_SOFTWARE;
	a->sample_period = period;
	a->sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID |
			 PERF_SAMPLE_TIME | PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD | PERF_SAMPLE_READ;
	a->read_format = PERF_FORMAT_GROUP | PERF_FORMAT_ID | PERF_FORMAT_TOTAL_TIME_ENABLED |
			 PERF_FORMAT_TOTAL_TIME_RUNNING;
	a->sample_id_all = 1;
	a->inherit = 1;
}

void synth_meta_give_ids(struct tdr_meta *meta, uint64_t first_id, uint32_t cpu, uint32_t pid)
{
	for (size_t i = 0; i < meta->event_cnt; i++) {
		struct tdr_event_desc *e = &meta->events[i];

		e->ids = calloc(1, sizeof(*e->ids));
		if (!e->ids)
			abort();
		e->id_cnt = 1;
		e->ids[0].id = first_id + i;
		e->ids[0].cpu = cpu;
		e->ids[0].pid = pid;
	}
}

size_t synth_group_read(struct synth_buf *b, const struct tdr_meta *meta, size_t first,
			size_t cnt, uint64_t first_id, struct synth_sid sid, uint64_t ip,
			uint64_t period, const uint64_t *vals)
{
	uint64_t *ids = calloc(cnt ? cnt : 1, sizeof(*ids));
	struct synth_sample s = {0};
	size_t off;

	if (!ids)
		abort();
	for (size_t i = 0; i < cnt; i++)
		ids[i] = first_id + first + i;
	s.sid = sid;
	s.sid.id = first_id + first;
	s.ip = ip;
	s.period = period;
	s.time_enabled = s.time_running = sid.time;
	s.nr = cnt;
	s.values = vals;
	s.ids = ids;
	off = synth_sample(b, &meta->events[first].attr, &s);
	free(ids);
	return off;
}
