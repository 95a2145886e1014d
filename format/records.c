/*
 * format/records.c - walk, read, count and write kernel perf records.
 *
 * Responsibility: the code behind tdrec/records.h, the one home of the
 * record layouts: bounds-checked iteration over a run of records (as
 * drained from a ring or loaded from a frame), the SAMPLE and sample_id
 * layouts computed from sample_type and read_format, the views of the other
 * record bodies, the writers of the records tdrec synthesizes (MMAP2, COMM)
 * and the per-type counts of the file's totals.
 * Objects and lifecycle: plain data owned by the caller.
 * Invariants: a record is accepted by the walker only when
 * tdr_record__size_ok holds, so a caller can read h->size bytes at h
 * without checks; a view reads only inside those bytes.
 * See: uapi linux/perf_event.h (enum perf_event_type, struct sample_id);
 * docs/format.md section 6 (frame payload); perf_event_open(2), "MMAP
 * layout" (struct perf_event_header).
 */
#include "tdrec/records.h"

#include <string.h>
#include "format_int.h" /* the trailer and KSYMBOL functions only format/ calls */

#include "tdrec/tdr_err.h"

/* ---------------------------------------------------------------------------
 * The walker and the counts.
 */

int tdr_records__next(struct tdr_record_iter *it, const struct perf_event_header **hdr)
{
	const struct perf_event_header *h;
	uint16_t size;

	if (it->pos >= it->sz)
		return it->pos == it->sz ? 0 : -TDR_E_CORRUPT;
	if (it->sz - it->pos < TDR_RECORD_HDR_SZ)
		return -TDR_E_CORRUPT;
	/* The buffer need not be aligned: the size is read with memcpy. */
	h = (const struct perf_event_header *)(it->data + it->pos);
	size = tdr_record__size(h);
	if (!tdr_record__size_ok(size, it->sz - it->pos))
		return -TDR_E_CORRUPT;
	*hdr = h;
	it->pos += size;
	return 1;
}

void tdr_record_counts__add(struct tdr_record_counts *c, const struct perf_event_header *h)
{
	c->records++;
	switch (tdr_record__type(h)) {
	case PERF_RECORD_SAMPLE:
		c->samples++;
		break;
	case PERF_RECORD_LOST:
		c->lost_records++;
		if (tdr_record__body_sz(h) >= TDR_LOST_SZ)
			c->lost_samples += tdr_rec_ld64(tdr_record__body(h) + TDR_LOST_LOST);
		break;
	case PERF_RECORD_THROTTLE:
		c->throttles++;
		break;
	case PERF_RECORD_UNTHROTTLE:
		c->unthrottles++;
		break;
	default:
		break;
	}
}

/* ---------------------------------------------------------------------------
 * Layouts.
 */

/* Byte offset of a u64 field when mask has bit, else -1; *off moves on. */
static int16_t take_field(uint64_t mask, uint64_t bit, unsigned *off)
{
	if (!(mask & bit))
		return -1;
	*off += 8;
	return (int16_t)(*off - 8);
}

void tdr_sid_layout__init(struct tdr_sid_layout *l, uint64_t sample_type)
{
	unsigned off = 0;

	/* The order of uapi struct sample_id. */
	l->tid = take_field(sample_type, PERF_SAMPLE_TID, &off);
	l->time = take_field(sample_type, PERF_SAMPLE_TIME, &off);
	l->id = take_field(sample_type, PERF_SAMPLE_ID, &off);
	l->stream_id = take_field(sample_type, PERF_SAMPLE_STREAM_ID, &off);
	l->cpu = take_field(sample_type, PERF_SAMPLE_CPU, &off);
	l->identifier = take_field(sample_type, PERF_SAMPLE_IDENTIFIER, &off);
	l->sz = (uint16_t)off;
}

static void read_layout_init(struct tdr_read_layout *l, uint64_t rf)
{
	l->group = rf & PERF_FORMAT_GROUP;
	l->has_id = rf & PERF_FORMAT_ID;
	l->has_lost = rf & PERF_FORMAT_LOST;
	l->has_enabled = rf & PERF_FORMAT_TOTAL_TIME_ENABLED;
	l->has_running = rf & PERF_FORMAT_TOTAL_TIME_RUNNING;
	l->stride = (uint16_t)(8u * (1u + l->has_id + l->has_lost));
	/* nr or the value; the times; the non-group form's id and lost */
	l->head_sz = (uint16_t)(8u * (1u + l->has_enabled + l->has_running));
	if (!l->group)
		l->head_sz = (uint16_t)(l->head_sz + l->stride - 8u);
}

void tdr_sample_layout__init(struct tdr_sample_layout *l, uint64_t st, uint64_t rf)
{
	unsigned off = 0;

	/* The kernel's order (perf_output_sample; uapi PERF_RECORD_SAMPLE). */
	l->identifier = take_field(st, PERF_SAMPLE_IDENTIFIER, &off);
	l->ip = take_field(st, PERF_SAMPLE_IP, &off);
	l->tid = take_field(st, PERF_SAMPLE_TID, &off);
	l->time = take_field(st, PERF_SAMPLE_TIME, &off);
	l->addr = take_field(st, PERF_SAMPLE_ADDR, &off);
	l->id = take_field(st, PERF_SAMPLE_ID, &off);
	l->stream_id = take_field(st, PERF_SAMPLE_STREAM_ID, &off);
	l->cpu = take_field(st, PERF_SAMPLE_CPU, &off);
	l->period = take_field(st, PERF_SAMPLE_PERIOD, &off);
	/* perf's __perf_evsel__calc_id_pos: IDENTIFIER first, else ID. */
	l->event_id = l->identifier >= 0 ? l->identifier : l->id;
	read_layout_init(&l->rd, rf);
	l->read = -1;
	if (st & PERF_SAMPLE_READ) {
		l->read = (int16_t)off;
		off += l->rd.head_sz;
	}
	l->fixed_sz = (uint16_t)off;
	l->callchain = st & PERF_SAMPLE_CALLCHAIN;
	l->raw = st & PERF_SAMPLE_RAW;
}

void tdr_user_layout__init(struct tdr_user_layout *l, uint64_t st, uint64_t branch_type,
			   uint64_t regs_mask)
{
	memset(l, 0, sizeof(*l));
	l->branch_stack = st & PERF_SAMPLE_BRANCH_STACK;
	l->branch_hw_idx = l->branch_stack && (branch_type & PERF_SAMPLE_BRANCH_HW_INDEX);
	l->regs_user = st & PERF_SAMPLE_REGS_USER;
	l->stack_user = st & PERF_SAMPLE_STACK_USER;
	l->regs_cnt = (uint32_t)__builtin_popcountll(regs_mask);
}

int tdr_sample__parse_user(const struct tdr_user_layout *l, const uint8_t *q, const uint8_t *end,
			   struct tdr_sample_user *u)
{
	uint64_t n;

	memset(u, 0, sizeof(*u));
	if (!q || q > end)
		return -TDR_E_CORRUPT;
	if (l->branch_stack) {
		if (end - q < 8)
			return -TDR_E_CORRUPT;
		n = tdr_rec_ld64(q);
		q += 8;
		if (l->branch_hw_idx) {
			if (end - q < 8)
				return -TDR_E_CORRUPT;
			q += 8;
		}
		if (n > (uint64_t)(end - q) / 24)
			return -TDR_E_CORRUPT;
		u->branch_nr = n;
		u->branches = q;
		q += n * 24;
	}
	if (l->regs_user) {
		if (end - q < 8)
			return -TDR_E_CORRUPT;
		u->regs_abi = tdr_rec_ld64(q);
		q += 8;
		if (u->regs_abi) {
			if ((uint64_t)(end - q) / 8 < l->regs_cnt)
				return -TDR_E_CORRUPT;
			u->regs = q;
			q += 8u * l->regs_cnt;
		}
	}
	if (l->stack_user) {
		if (end - q < 8)
			return -TDR_E_CORRUPT;
		n = tdr_rec_ld64(q);
		q += 8;
		if (n) {
			/* data[size], then dyn_size: the bytes that hold data. */
			if (n > (uint64_t)(end - q) || (uint64_t)(end - q) - n < 8)
				return -TDR_E_CORRUPT;
			u->stack = q;
			u->stack_sz = tdr_rec_ld64(q + n);
			if (u->stack_sz > n)
				return -TDR_E_CORRUPT;
		}
	}
	return 0;
}

/* ---------------------------------------------------------------------------
 * The sample_id trailer.
 */

void tdr_sample_id__read(const struct tdr_sid_layout *l, const uint8_t *p,
			 struct tdr_sample_id *sid)
{
	if (l->tid >= 0) {
		sid->pid = tdr_rec_ld32(p + l->tid);
		sid->tid = tdr_rec_ld32(p + l->tid + 4);
		sid->have |= TDR_SID_TID;
	}
	if (l->time >= 0) {
		sid->time = tdr_rec_ld64(p + l->time);
		sid->have |= TDR_SID_TIME;
	}
	/* IDENTIFIER is the same value as ID when both are there. */
	if (l->identifier >= 0 || l->id >= 0) {
		sid->id = tdr_rec_ld64(p + (l->identifier >= 0 ? l->identifier : l->id));
		sid->have |= TDR_SID_ID;
	}
	if (l->stream_id >= 0) {
		sid->stream_id = tdr_rec_ld64(p + l->stream_id);
		sid->have |= TDR_SID_STREAM_ID;
	}
	if (l->cpu >= 0) {
		sid->cpu = tdr_rec_ld32(p + l->cpu);
		sid->have |= TDR_SID_CPU;
	}
}

bool tdr_sample_id__read_tail(const struct tdr_sid_layout *l, const struct perf_event_header *h,
			      const uint8_t *body_end, struct tdr_sample_id *sid)
{
	const uint8_t *end = (const uint8_t *)h + tdr_record__size(h);

	if (!l->sz || body_end > end || (size_t)(end - body_end) < l->sz)
		return false;
	tdr_sample_id__read(l, end - l->sz, sid);
	return true;
}

size_t tdr_sample_id__write(const struct tdr_sid_layout *l, uint8_t *p,
			    const struct tdr_sample_id *sid)
{
	if (l->tid >= 0) {
		tdr_rec_st32(p + l->tid, sid->pid);
		tdr_rec_st32(p + l->tid + 4, sid->tid);
	}
	if (l->time >= 0)
		tdr_rec_st64(p + l->time, sid->time);
	if (l->id >= 0)
		tdr_rec_st64(p + l->id, sid->id);
	if (l->stream_id >= 0)
		tdr_rec_st64(p + l->stream_id, sid->stream_id);
	if (l->cpu >= 0) {
		tdr_rec_st32(p + l->cpu, sid->cpu);
		tdr_rec_st32(p + l->cpu + 4, 0);
	}
	if (l->identifier >= 0)
		tdr_rec_st64(p + l->identifier, sid->id);
	return l->sz;
}

/* ---------------------------------------------------------------------------
 * SAMPLE.
 */

/* ---------------------------------------------------------------------------
 * The other records.
 */

/* The body [*p, *end) of h when it holds at least min bytes of type. */
static bool body_of(const struct perf_event_header *h, size_t min, const uint8_t **p,
		    const uint8_t **end)
{
	size_t sz = tdr_record__body_sz(h);

	*p = tdr_record__body(h);
	*end = *p + sz;
	return sz >= min;
}

/* A NUL-terminated string at p, padded to 8 bytes; returns its end (its
 * length in *len) or NULL without a NUL. */
static const uint8_t *take_string(const uint8_t *p, const uint8_t *end, size_t *len)
{
	const uint8_t *nul = p < end ? memchr(p, '\0', (size_t)(end - p)) : NULL;
	size_t padded;

	if (!nul)
		return NULL;
	*len = (size_t)(nul - p);
	padded = (*len + 1 + 7) & ~(size_t)7;
	if (padded > (size_t)(end - p))
		return end; /* synthesized records may skip the padding */
	return p + padded;
}

int tdr_mmap__parse(const struct perf_event_header *h, struct tdr_mmap_rec *m)
{
	uint32_t type = tdr_record__type(h);
	bool v2 = type == PERF_RECORD_MMAP2;
	size_t name_off = v2 ? TDR_MMAP2_FILENAME : TDR_MMAP_FILENAME;
	const uint8_t *p, *end;

	memset(m, 0, sizeof(*m));
	if ((!v2 && type != PERF_RECORD_MMAP) || !body_of(h, name_off, &p, &end))
		return -TDR_E_CORRUPT;
	m->pid = tdr_rec_ld32(p + TDR_MMAP_PID);
	m->tid = tdr_rec_ld32(p + TDR_MMAP_TID);
	m->addr = tdr_rec_ld64(p + TDR_MMAP_ADDR);
	m->len = tdr_rec_ld64(p + TDR_MMAP_LEN);
	m->pgoff = tdr_rec_ld64(p + TDR_MMAP_PGOFF);
	if (v2) {
		m->maj = tdr_rec_ld32(p + TDR_MMAP2_MAJ);
		m->min = tdr_rec_ld32(p + TDR_MMAP2_MIN);
		m->ino = tdr_rec_ld64(p + TDR_MMAP2_INO);
		m->ino_generation = tdr_rec_ld64(p + TDR_MMAP2_INO_GEN);
		m->build_id_sz = p[TDR_MMAP2_BUILD_ID_SZ];
		m->build_id = p + TDR_MMAP2_BUILD_ID;
		m->prot = tdr_rec_ld32(p + TDR_MMAP2_PROT);
		m->flags = tdr_rec_ld32(p + TDR_MMAP2_FLAGS);
	}
	m->filename = (const char *)p + name_off;
	m->tail = take_string(p + name_off, end, &m->filename_len);
	return m->tail ? 0 : -TDR_E_CORRUPT;
}

/* The string of len bytes at dst, NUL-terminated and zero-padded to 8. */
static size_t put_string(uint8_t *dst, const char *s, size_t len)
{
	size_t padded = (len + 1 + 7) & ~(size_t)7;

	memcpy(dst, s, len);
	memset(dst + len, 0, padded - len);
	return padded;
}

static void put_header(uint8_t *dst, uint32_t type, uint16_t misc, size_t sz)
{
	struct perf_event_header h = {.type = type, .misc = misc, .size = (uint16_t)sz};

	memcpy(dst, &h, sizeof(h));
}

size_t tdr_mmap2__write(uint8_t *dst, uint16_t misc, const struct tdr_mmap_rec *m,
			const struct tdr_sid_layout *l, const struct tdr_sample_id *sid)
{
	uint8_t *p = dst + TDR_RECORD_HDR_SZ;
	size_t sz = tdr_mmap2__size(m->filename_len, l->sz);

	put_header(dst, PERF_RECORD_MMAP2, misc, sz);
	tdr_rec_st32(p + TDR_MMAP_PID, m->pid);
	tdr_rec_st32(p + TDR_MMAP_TID, m->tid);
	tdr_rec_st64(p + TDR_MMAP_ADDR, m->addr);
	tdr_rec_st64(p + TDR_MMAP_LEN, m->len);
	tdr_rec_st64(p + TDR_MMAP_PGOFF, m->pgoff);
	tdr_rec_st32(p + TDR_MMAP2_MAJ, m->maj);
	tdr_rec_st32(p + TDR_MMAP2_MIN, m->min);
	tdr_rec_st64(p + TDR_MMAP2_INO, m->ino);
	tdr_rec_st64(p + TDR_MMAP2_INO_GEN, m->ino_generation);
	tdr_rec_st32(p + TDR_MMAP2_PROT, m->prot);
	tdr_rec_st32(p + TDR_MMAP2_FLAGS, m->flags);
	p += TDR_MMAP2_FILENAME;
	p += put_string(p, m->filename, m->filename_len);
	tdr_sample_id__write(l, p, sid);
	return sz;
}

int tdr_comm__parse(const struct perf_event_header *h, struct tdr_comm_rec *c)
{
	const uint8_t *p, *end;

	memset(c, 0, sizeof(*c));
	if (tdr_record__type(h) != PERF_RECORD_COMM || !body_of(h, TDR_COMM_COMM, &p, &end))
		return -TDR_E_CORRUPT;
	c->pid = tdr_rec_ld32(p + TDR_COMM_PID);
	c->tid = tdr_rec_ld32(p + TDR_COMM_TID);
	c->comm = (const char *)p + TDR_COMM_COMM;
	c->tail = take_string(p + TDR_COMM_COMM, end, &c->comm_len);
	return c->tail ? 0 : -TDR_E_CORRUPT;
}

size_t tdr_comm__write(uint8_t *dst, uint16_t misc, uint32_t pid, uint32_t tid, const char *comm,
		       size_t comm_len, const struct tdr_sid_layout *l,
		       const struct tdr_sample_id *sid)
{
	uint8_t *p = dst + TDR_RECORD_HDR_SZ;
	size_t sz = tdr_comm__size(comm_len, l->sz);

	put_header(dst, PERF_RECORD_COMM, misc, sz);
	tdr_rec_st32(p + TDR_COMM_PID, pid);
	tdr_rec_st32(p + TDR_COMM_TID, tid);
	p += TDR_COMM_COMM;
	p += put_string(p, comm, comm_len);
	tdr_sample_id__write(l, p, sid);
	return sz;
}

int tdr_task__parse(const struct perf_event_header *h, struct tdr_task_rec *t)
{
	uint32_t type = tdr_record__type(h);
	const uint8_t *p, *end;

	memset(t, 0, sizeof(*t));
	if ((type != PERF_RECORD_FORK && type != PERF_RECORD_EXIT) ||
	    !body_of(h, TDR_TASK_SZ, &p, &end))
		return -TDR_E_CORRUPT;
	t->pid = tdr_rec_ld32(p + TDR_TASK_PID);
	t->ppid = tdr_rec_ld32(p + TDR_TASK_PPID);
	t->tid = tdr_rec_ld32(p + TDR_TASK_TID);
	t->ptid = tdr_rec_ld32(p + TDR_TASK_PTID);
	t->time = tdr_rec_ld64(p + TDR_TASK_TIME);
	t->tail = p + TDR_TASK_SZ;
	return 0;
}

int tdr_lost__parse(const struct perf_event_header *h, struct tdr_lost_rec *l)
{
	const uint8_t *p, *end;

	memset(l, 0, sizeof(*l));
	if (tdr_record__type(h) != PERF_RECORD_LOST || !body_of(h, TDR_LOST_SZ, &p, &end))
		return -TDR_E_CORRUPT;
	l->id = tdr_rec_ld64(p + TDR_LOST_ID);
	l->lost = tdr_rec_ld64(p + TDR_LOST_LOST);
	l->tail = p + TDR_LOST_SZ;
	return 0;
}

int tdr_lost_samples__parse(const struct perf_event_header *h, struct tdr_lost_samples_rec *l)
{
	const uint8_t *p, *end;

	memset(l, 0, sizeof(*l));
	if (tdr_record__type(h) != PERF_RECORD_LOST_SAMPLES ||
	    !body_of(h, TDR_LOST_SAMPLES_SZ, &p, &end))
		return -TDR_E_CORRUPT;
	l->lost = tdr_rec_ld64(p + TDR_LOST_SAMPLES_LOST);
	l->tail = p + TDR_LOST_SAMPLES_SZ;
	return 0;
}

int tdr_throttle__parse(const struct perf_event_header *h, struct tdr_throttle_rec *t)
{
	uint32_t type = tdr_record__type(h);
	const uint8_t *p, *end;

	memset(t, 0, sizeof(*t));
	if ((type != PERF_RECORD_THROTTLE && type != PERF_RECORD_UNTHROTTLE) ||
	    !body_of(h, TDR_THROTTLE_SZ, &p, &end))
		return -TDR_E_CORRUPT;
	t->time = tdr_rec_ld64(p + TDR_THROTTLE_TIME);
	t->id = tdr_rec_ld64(p + TDR_THROTTLE_ID);
	t->stream_id = tdr_rec_ld64(p + TDR_THROTTLE_STREAM_ID);
	t->tail = p + TDR_THROTTLE_SZ;
	return 0;
}

int tdr_ksymbol__parse(const struct perf_event_header *h, struct tdr_ksymbol_rec *k)
{
	const uint8_t *p, *end;

	memset(k, 0, sizeof(*k));
	if (tdr_record__type(h) != PERF_RECORD_KSYMBOL || !body_of(h, TDR_KSYMBOL_NAME, &p, &end))
		return -TDR_E_CORRUPT;
	k->addr = tdr_rec_ld64(p + TDR_KSYMBOL_ADDR);
	k->len = tdr_rec_ld32(p + TDR_KSYMBOL_LEN);
	k->ksym_type = tdr_rec_ld16(p + TDR_KSYMBOL_TYPE);
	k->flags = tdr_rec_ld16(p + TDR_KSYMBOL_FLAGS);
	k->name = (const char *)p + TDR_KSYMBOL_NAME;
	k->tail = take_string(p + TDR_KSYMBOL_NAME, end, &k->name_len);
	return k->tail ? 0 : -TDR_E_CORRUPT;
}
