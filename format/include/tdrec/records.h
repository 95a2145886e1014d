/*
 * format/include/tdrec/records.h - the kernel's perf record layouts, in one place.
 *
 * Responsibility: everything tdrec knows about the bytes of a perf record
 * (struct perf_event_header + body): the size rules and the walker over a
 * buffer of records; the byte offsets of every record body tdrec reads or
 * writes (SAMPLE up to PERF_SAMPLE_READ, MMAP/MMAP2, COMM, FORK/EXIT, LOST,
 * LOST_SAMPLES, THROTTLE/UNTHROTTLE, KSYMBOL); the sample_id trailer's size
 * and field offsets for a sample_type; typed views that check sizes before
 * they read; writers for the records tdrec synthesizes; and the per-type
 * counts of the .tdr trailer. No other file computes a body offset.
 * What it does not do: find a record's event (parser/decode.c does, from
 * the events' attrs), or interpret the values.
 * Objects and lifecycle: plain data; layouts are computed once per event
 * (tdr_sample_layout__init, tdr_sid_layout__init) and then used per record.
 * Ownership and threads: views point into the caller's record (borrowed);
 * nothing allocates; everything is reentrant.
 * Invariants: a view function reads only inside h->size bytes at h, and
 * returns -TDR_E_CORRUPT when the body is shorter than its fixed part or a
 * string has no NUL. Records are host-endian (kernel ABI; tdrec supports
 * little-endian hosts only) and may sit at any alignment: every field is
 * read with memcpy, never through a cast pointer.
 * See: uapi linux/perf_event.h (enum perf_event_type: each record's
 * layout, "struct sample_id"); perf_event_open(2) "MMAP layout";
 * docs/format.md section 6 (frame payload); docs/parser.md.
 */
#ifndef TDREC_RECORDS_H
#define TDREC_RECORDS_H

#include <linux/perf_event.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "tdrec/tdr_api.h"
#include "tdrec/tdr_err.h"

/* ---------------------------------------------------------------------------
 * Host-endian loads and stores at any alignment (one mov each once compiled).
 */
static inline uint64_t tdr_rec_ld64(const void *p)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static inline uint32_t tdr_rec_ld32(const void *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static inline uint16_t tdr_rec_ld16(const void *p)
{
	uint16_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static inline void tdr_rec_st64(void *p, uint64_t v)
{
	memcpy(p, &v, sizeof(v));
}

static inline void tdr_rec_st32(void *p, uint32_t v)
{
	memcpy(p, &v, sizeof(v));
}

/* ---------------------------------------------------------------------------
 * The header and the size rules.
 */
#define TDR_RECORD_HDR_SZ 8u	  /* sizeof(struct perf_event_header) */
#define TDR_RECORD_HDR_TYPE 0u	  /* u32 type */
#define TDR_RECORD_HDR_MISC 4u	  /* u16 misc */
#define TDR_RECORD_HDR_SIZE 6u	  /* u16 size, header included */
_Static_assert(sizeof(struct perf_event_header) == TDR_RECORD_HDR_SZ, "uapi header is 8 bytes");

/*
 * The one rule for a record's size, used by the walker, the ring drain and
 * the writer: at least the header, a multiple of 8 (the kernel pads every
 * record: perf_prepare_sample, perf_event_comm_event, ...; so a size that
 * is not one is damage, and every record of an 8-byte aligned buffer stays
 * aligned), and within the avail bytes left.
 */
static inline bool tdr_record__size_ok(uint64_t size, uint64_t avail)
{
	return size >= TDR_RECORD_HDR_SZ && size % 8 == 0 && size <= avail;
}

static inline uint32_t tdr_record__type(const struct perf_event_header *h)
{
	return tdr_rec_ld32((const uint8_t *)h + TDR_RECORD_HDR_TYPE);
}

static inline uint16_t tdr_record__misc(const struct perf_event_header *h)
{
	return tdr_rec_ld16((const uint8_t *)h + TDR_RECORD_HDR_MISC);
}

static inline uint16_t tdr_record__size(const struct perf_event_header *h)
{
	return tdr_rec_ld16((const uint8_t *)h + TDR_RECORD_HDR_SIZE);
}

/* The body (after the header) and its size; a size below 8 gives 0. */
static inline const uint8_t *tdr_record__body(const struct perf_event_header *h)
{
	return (const uint8_t *)h + TDR_RECORD_HDR_SZ;
}

static inline size_t tdr_record__body_sz(const struct perf_event_header *h)
{
	uint16_t sz = tdr_record__size(h);

	return sz > TDR_RECORD_HDR_SZ ? sz - TDR_RECORD_HDR_SZ : 0;
}

/*
 * Walking the records of a buffer (a loaded frame, or a ring copy).
 *
 *   struct tdr_record_iter it = { .data = buf.data, .sz = buf.sz };
 *   const struct perf_event_header *h;
 *   while ((err = tdr_records__next(&it, &h)) > 0)
 *           use(h);   // h->size bytes, 8-byte aligned when data is
 *   if (err < 0) ... // -TDR_E_CORRUPT: a header against tdr_record__size_ok
 *                     // (size < 8, not a multiple of 8, or past the end)
 *
 * data need not be aligned: read the header with tdr_record__type/__size
 * then, not through h.
 */
struct tdr_record_iter {
	const uint8_t *data;
	size_t sz;
	size_t pos;
};

/* Returns 1 with *hdr set, 0 at the end, -TDR_E_CORRUPT on a bad header. */
TDR_API int tdr_records__next(struct tdr_record_iter *it, const struct perf_event_header **hdr);

/* ---------------------------------------------------------------------------
 * Per-type counts: what the .tdr trailer totals hold (docs/format.md
 * section 8) and what a ring drain reports.
 */
struct tdr_record_counts {
	uint64_t records;
	uint64_t samples;      /* PERF_RECORD_SAMPLE */
	uint64_t lost_records; /* PERF_RECORD_LOST */
	uint64_t lost_samples; /* the sum of their 'lost' fields */
	uint64_t throttles;    /* PERF_RECORD_THROTTLE */
	uint64_t unthrottles;  /* PERF_RECORD_UNTHROTTLE */
};

/* Count one record (h->size bytes readable at h, any alignment). */
TDR_API void tdr_record_counts__add(struct tdr_record_counts *c, const struct perf_event_header *h);

/* ---------------------------------------------------------------------------
 * The sample_id trailer (uapi "struct sample_id"): with attr.sample_id_all,
 * every record but SAMPLE ends with { pid, tid } { time } { id }
 * { stream_id } { cpu, res } { identifier }, each u64 present when
 * sample_type has TID, TIME, ID, STREAM_ID, CPU, IDENTIFIER.
 */
#define TDR_SAMPLE_ID_FIELDS                                                                       \
	(PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ID | PERF_SAMPLE_STREAM_ID |             \
	 PERF_SAMPLE_CPU | PERF_SAMPLE_IDENTIFIER)

/* Bytes of the trailer for sample_type. */
static inline size_t tdr_sample_id__size(uint64_t sample_type)
{
	return 8u * (size_t)__builtin_popcountll(sample_type & TDR_SAMPLE_ID_FIELDS);
}

/* Byte offsets of the trailer's fields from its start, -1 when absent. */
struct tdr_sid_layout {
	uint16_t sz; /* tdr_sample_id__size */
	int16_t tid; /* u32 pid, u32 tid */
	int16_t time;
	int16_t id;
	int16_t stream_id;
	int16_t cpu; /* u32 cpu, u32 res */
	int16_t identifier;
};

TDR_API void tdr_sid_layout__init(struct tdr_sid_layout *l, uint64_t sample_type);

/* Which fields a struct tdr_sample_id holds (trailer or SAMPLE alike). */
#define TDR_SID_TID (1u << 0)
#define TDR_SID_TIME (1u << 1)
#define TDR_SID_ID (1u << 2) /* ID or IDENTIFIER */
#define TDR_SID_CPU (1u << 3)
#define TDR_SID_STREAM_ID (1u << 4)

/* The identity fields of a record: the trailer's, or the same of a SAMPLE. */
struct tdr_sample_id {
	uint32_t have; /* TDR_SID_* */
	uint32_t pid, tid, cpu;
	uint64_t time, id, stream_id;
};

/*
 * The trailer of the record h whose body proper ends at body_end (a view's
 * tail): read when at least l->sz bytes follow it (records tdrec or perf
 * synthesized may come without one). Returns whether it was read.
 */
TDR_API bool tdr_sample_id__read_tail(const struct tdr_sid_layout *l,
				      const struct perf_event_header *h, const uint8_t *body_end,
				      struct tdr_sample_id *out);

/* ---------------------------------------------------------------------------
 * PERF_RECORD_SAMPLE. The fields up to PERF_SAMPLE_PERIOD are one u64 each,
 * in this order: IDENTIFIER, IP, TID {pid, tid}, TIME, ADDR, ID, STREAM_ID,
 * CPU {cpu, res}, PERIOD; then READ (read_format), CALLCHAIN { nr;
 * ips[nr] }, RAW { u32 size; data }, and later fields tdrec does not read.
 */

/* PERF_SAMPLE_IDENTIFIER, when sample_type has it, is the body's first u64
 * whatever else the sample holds: the one field found without the layout. */
#define TDR_SAMPLE_IDENTIFIER 0u

/* PERF_SAMPLE_READ's layout for a read_format. */
struct tdr_read_layout {
	bool group;	/* PERF_FORMAT_GROUP: { nr; [enabled]; [running]; entries[nr] } */
	bool has_id;	/* PERF_FORMAT_ID */
	bool has_lost;	/* PERF_FORMAT_LOST */
	bool has_enabled, has_running;
	uint16_t head_sz; /* group: nr and times; non-group: the whole read */
	uint16_t stride;  /* bytes per group entry { value; [id]; [lost] } */
};

/* Byte offset of the id in a group entry (after its value). */
#define TDR_READ_ENTRY_ID 8u

/* Byte offsets of a SAMPLE's fixed fields in the body, -1 when absent. */
struct tdr_sample_layout {
	int16_t identifier, ip, tid, time, addr, id, stream_id, cpu, period;
	/* Where the event's id is, as perf's id_pos finds it (IDENTIFIER,
	 * else ID; -1 without either). */
	int16_t event_id;
	int16_t read;	   /* -1 without PERF_SAMPLE_READ */
	uint16_t fixed_sz; /* body bytes every such sample has: up to READ's head */
	bool callchain, raw; /* variable parts after READ that are bounds-checked */
	struct tdr_read_layout rd;
};

TDR_API void tdr_sample_layout__init(struct tdr_sample_layout *l, uint64_t sample_type,
				     uint64_t read_format);

/* PERF_SAMPLE_READ of one sample; group entries are read in place. */
struct tdr_sample_read {
	bool group;	/* PERF_FORMAT_GROUP */
	bool has_id;	/* PERF_FORMAT_ID */
	bool has_enabled, has_running;
	uint64_t nr; /* entries (1 for the non-group form) */
	uint64_t time_enabled, time_running;
	const uint8_t *ent; /* group form: first entry (value, then id when has_id) */
	uint32_t stride;    /* group form: bytes per entry */
	uint64_t value, id; /* non-group form: the one entry */
};

/* The SAMPLE fields tdrec uses; identity fields go to a struct tdr_sample_id. */
struct tdr_sample_rec {
	uint64_t ip, addr, period;
	bool has_ip, has_period, has_read;
	struct tdr_sample_read read;
	/* PERF_SAMPLE_CALLCHAIN: callchain_nr u64 entries (PERF_CONTEXT_*
	 * markers included) read in place; 0 and NULL without one. */
	uint64_t callchain_nr;
	const uint8_t *callchain;
	/* Where the fields after RAW start (BRANCH_STACK, REGS_USER, ...):
	 * tdr_sample__parse_user reads them. */
	const uint8_t *tail;
};

/* READ at *pp, whose head (l->head_sz bytes) the caller has checked; *pp
 * moves past it. Returns: 0, -TDR_E_CORRUPT (nr too large for the record). */
static inline int tdr_read__parse(const struct tdr_read_layout *l, const uint8_t **pp,
				  const uint8_t *end, struct tdr_sample_read *rd)
{
	const uint8_t *q = *pp;

	rd->group = l->group;
	rd->has_id = l->has_id;
	rd->has_enabled = l->has_enabled;
	rd->has_running = l->has_running;
	rd->stride = l->stride;
	rd->nr = 1;
	if (l->group)
		rd->nr = tdr_rec_ld64(q);
	else
		rd->value = tdr_rec_ld64(q);
	q += 8;
	if (l->has_enabled) {
		rd->time_enabled = tdr_rec_ld64(q);
		q += 8;
	}
	if (l->has_running) {
		rd->time_running = tdr_rec_ld64(q);
		q += 8;
	}
	if (l->group) {
		if (rd->nr > (uint64_t)(end - q) / l->stride)
			return -TDR_E_CORRUPT; /* nr too large for the record */
		rd->ent = q;
		q += rd->nr * l->stride;
	} else {
		if (l->has_id)
			rd->id = tdr_rec_ld64(q);
		q += l->stride - 8u; /* id and lost */
	}
	*pp = q;
	return 0;
}

/*
 * Read the SAMPLE body [p, end) laid out as l into *s and *sid (their
 * fields must be zero, sid->have included, or hold what may be kept).
 * CALLCHAIN and RAW are bounds-checked, later fields are not looked at.
 * Returns: 0, -TDR_E_CORRUPT (shorter than its fields, or a READ nr,
 * CALLCHAIN nr or RAW size past the end).
 * Inline: it runs once per sample on the report's hot path (parser/decode.c),
 * where a call into another library cost 1.6M instructions per 100k samples.
 */
static inline int tdr_sample__parse(const struct tdr_sample_layout *l, const uint8_t *p,
				    const uint8_t *end, struct tdr_sample_rec *s,
				    struct tdr_sample_id *sid)
{
	const uint8_t *q;
	int err;

	/* Every field up to READ's head has a fixed size: one check. */
	if ((size_t)(end - p) < l->fixed_sz)
		return -TDR_E_CORRUPT;
	if (l->event_id >= 0) {
		sid->id = tdr_rec_ld64(p + l->event_id);
		sid->have |= TDR_SID_ID;
	}
	if (l->ip >= 0) {
		s->ip = tdr_rec_ld64(p + l->ip);
		s->has_ip = true;
	}
	if (l->tid >= 0) {
		sid->pid = tdr_rec_ld32(p + l->tid);
		sid->tid = tdr_rec_ld32(p + l->tid + 4);
		sid->have |= TDR_SID_TID;
	}
	if (l->time >= 0) {
		sid->time = tdr_rec_ld64(p + l->time);
		sid->have |= TDR_SID_TIME;
	}
	if (l->addr >= 0)
		s->addr = tdr_rec_ld64(p + l->addr);
	if (l->stream_id >= 0) {
		sid->stream_id = tdr_rec_ld64(p + l->stream_id);
		sid->have |= TDR_SID_STREAM_ID;
	}
	if (l->cpu >= 0) {
		sid->cpu = tdr_rec_ld32(p + l->cpu);
		sid->have |= TDR_SID_CPU;
	}
	if (l->period >= 0) {
		s->period = tdr_rec_ld64(p + l->period);
		s->has_period = true;
	}
	q = p + l->fixed_sz;
	if (l->read >= 0) {
		q = p + l->read;
		err = tdr_read__parse(&l->rd, &q, end, &s->read);
		if (err)
			return err;
		s->has_read = true;
	}
	if (l->callchain) {
		uint64_t nr;

		if (end - q < 8)
			return -TDR_E_CORRUPT;
		nr = tdr_rec_ld64(q);
		q += 8;
		if (nr > (uint64_t)(end - q) / 8)
			return -TDR_E_CORRUPT;
		s->callchain_nr = nr;
		s->callchain = q;
		q += nr * 8;
	}
	if (l->raw) {
		uint32_t sz;

		if (end - q < 4)
			return -TDR_E_CORRUPT;
		sz = tdr_rec_ld32(q);
		q += 4;
		if (sz > (size_t)(end - q))
			return -TDR_E_CORRUPT;
		q += sz;
	}
	s->tail = q;
	return 0;
}

/*
 * The fields after RAW that call stacks use: BRANCH_STACK { nr; [hw_idx];
 * entries[nr] (from, to, flags: 24 bytes) }, then REGS_USER { abi;
 * regs[weight(sample_regs_user)] when abi != 0 }, then STACK_USER { size;
 * data[size]; dyn_size when size != 0 } (uapi PERF_RECORD_SAMPLE).
 */
struct tdr_user_layout {
	bool branch_stack, branch_hw_idx; /* PERF_SAMPLE_BRANCH_HW_INDEX */
	bool regs_user, stack_user;
	uint32_t regs_cnt; /* bits set in attr.sample_regs_user */
};

/* From an attr's sample_type, branch_sample_type and sample_regs_user. */
TDR_API void tdr_user_layout__init(struct tdr_user_layout *l, uint64_t sample_type,
				   uint64_t branch_sample_type, uint64_t regs_mask);

struct tdr_sample_user {
	uint64_t branch_nr;
	const uint8_t *branches; /* branch_nr entries of 24 bytes (from, to, flags) */
	uint64_t regs_abi;	 /* PERF_SAMPLE_REGS_ABI_*: 0 when none were taken */
	const uint8_t *regs;	 /* regs_cnt u64 in mask bit order when regs_abi != 0 */
	const uint8_t *stack;	 /* the copy of the user stack from its pointer */
	uint64_t stack_sz;	 /* bytes of it that hold data (dyn_size) */
};

/* Read those fields from tail (tdr_sample_rec.tail) to end into *u (zeroed
 * first). Returns: 0, -TDR_E_CORRUPT (a count or size past the end, or a
 * dyn_size above the copy). */
TDR_API int tdr_sample__parse_user(const struct tdr_user_layout *l, const uint8_t *tail,
				   const uint8_t *end, struct tdr_sample_user *u);

/* ---------------------------------------------------------------------------
 * Other records: a fixed body, maybe a NUL-terminated string padded to 8
 * bytes, then the sample_id trailer. Each view's tail is where the body
 * proper ends (the trailer, if any, is at its end: tdr_sample_id__read_tail).
 */

/* PERF_RECORD_MMAP: { u32 pid, tid; u64 addr, len, pgoff; char filename[] }.
 * PERF_RECORD_MMAP2: { u32 pid, tid; u64 addr, len, pgoff; union { u32 maj,
 * min; u64 ino, ino_generation; } or { u8 build_id_size, res[3];
 * build_id[20] } (misc PERF_RECORD_MISC_MMAP_BUILD_ID); u32 prot, flags;
 * char filename[] }. Body byte offsets: */
#define TDR_MMAP_PID 0u
#define TDR_MMAP_TID 4u
#define TDR_MMAP_ADDR 8u
#define TDR_MMAP_LEN 16u
#define TDR_MMAP_PGOFF 24u
#define TDR_MMAP_FILENAME 32u	  /* MMAP */
#define TDR_MMAP2_MAJ 32u
#define TDR_MMAP2_MIN 36u
#define TDR_MMAP2_INO 40u
#define TDR_MMAP2_INO_GEN 48u
#define TDR_MMAP2_BUILD_ID_SZ 32u /* the same 24 bytes, as a build-id */
#define TDR_MMAP2_BUILD_ID 36u
#define TDR_MMAP2_BUILD_ID_MAX 20u
#define TDR_MMAP2_PROT 56u
#define TDR_MMAP2_FLAGS 60u
#define TDR_MMAP2_FILENAME 64u

struct tdr_mmap_rec {
	uint32_t pid, tid;
	uint64_t addr, len, pgoff;
	/* MMAP2 only (zero for MMAP). The 24 bytes after pgoff read both ways:
	 * the caller knows which one holds (misc, attr.build_id). */
	uint32_t maj, min;
	uint64_t ino, ino_generation;
	uint8_t build_id_sz;	 /* as found: may exceed TDR_MMAP2_BUILD_ID_MAX */
	const uint8_t *build_id; /* TDR_MMAP2_BUILD_ID_MAX bytes inside the record */
	uint32_t prot, flags;
	const char *filename; /* NUL-terminated inside the record */
	size_t filename_len;
	const uint8_t *tail;
};

/* Parse an MMAP or an MMAP2 record (by its type). Returns 0 or -TDR_E_CORRUPT
 * (short body, no NUL in the name, another type). */
TDR_API int tdr_mmap__parse(const struct perf_event_header *h, struct tdr_mmap_rec *m);

/* Bytes of an MMAP2 record with a name of len bytes and a trailer of
 * trailer_sz bytes (the name is NUL-terminated and padded to 8). */
static inline size_t tdr_mmap2__size(size_t name_len, size_t trailer_sz)
{
	return TDR_RECORD_HDR_SZ + TDR_MMAP2_FILENAME + ((name_len + 1 + 7) & ~(size_t)7) +
	       trailer_sz;
}

/* Write an MMAP2 record with device and inode (m->filename, m->filename_len
 * bytes, no NUL needed) then the trailer l of sid, at dst (tdr_mmap2__size
 * bytes; the caller keeps it below 64 KiB). Returns the size written. */
TDR_API size_t tdr_mmap2__write(uint8_t *dst, uint16_t misc, const struct tdr_mmap_rec *m,
				const struct tdr_sid_layout *l, const struct tdr_sample_id *sid);

/* PERF_RECORD_COMM: { u32 pid, tid; char comm[] }. */
#define TDR_COMM_PID 0u
#define TDR_COMM_TID 4u
#define TDR_COMM_COMM 8u

struct tdr_comm_rec {
	uint32_t pid, tid;
	const char *comm; /* NUL-terminated inside the record */
	size_t comm_len;
	const uint8_t *tail;
};

TDR_API int tdr_comm__parse(const struct perf_event_header *h, struct tdr_comm_rec *c);

static inline size_t tdr_comm__size(size_t comm_len, size_t trailer_sz)
{
	return TDR_RECORD_HDR_SZ + TDR_COMM_COMM + ((comm_len + 1 + 7) & ~(size_t)7) + trailer_sz;
}

/* Write a COMM record then the trailer l of sid at dst (tdr_comm__size
 * bytes). Returns the size written. */
TDR_API size_t tdr_comm__write(uint8_t *dst, uint16_t misc, uint32_t pid, uint32_t tid,
			       const char *comm, size_t comm_len, const struct tdr_sid_layout *l,
			       const struct tdr_sample_id *sid);

/* PERF_RECORD_FORK and PERF_RECORD_EXIT: { u32 pid, ppid, tid, ptid; u64 time }. */
#define TDR_TASK_PID 0u
#define TDR_TASK_PPID 4u
#define TDR_TASK_TID 8u
#define TDR_TASK_PTID 12u
#define TDR_TASK_TIME 16u
#define TDR_TASK_SZ 24u

struct tdr_task_rec {
	uint32_t pid, ppid, tid, ptid;
	uint64_t time;
	const uint8_t *tail;
};

TDR_API int tdr_task__parse(const struct perf_event_header *h, struct tdr_task_rec *t);

/* PERF_RECORD_LOST: { u64 id; u64 lost }. */
#define TDR_LOST_ID 0u
#define TDR_LOST_LOST 8u
#define TDR_LOST_SZ 16u

struct tdr_lost_rec {
	uint64_t id, lost;
	const uint8_t *tail;
};

TDR_API int tdr_lost__parse(const struct perf_event_header *h, struct tdr_lost_rec *l);

/* PERF_RECORD_LOST_SAMPLES: { u64 lost }. */
#define TDR_LOST_SAMPLES_LOST 0u
#define TDR_LOST_SAMPLES_SZ 8u

struct tdr_lost_samples_rec {
	uint64_t lost;
	const uint8_t *tail;
};

TDR_API int tdr_lost_samples__parse(const struct perf_event_header *h,
				    struct tdr_lost_samples_rec *l);

/* PERF_RECORD_THROTTLE and PERF_RECORD_UNTHROTTLE: { u64 time, id, stream_id }. */
#define TDR_THROTTLE_TIME 0u
#define TDR_THROTTLE_ID 8u
#define TDR_THROTTLE_STREAM_ID 16u
#define TDR_THROTTLE_SZ 24u

struct tdr_throttle_rec {
	uint64_t time, id, stream_id;
	const uint8_t *tail;
};

TDR_API int tdr_throttle__parse(const struct perf_event_header *h, struct tdr_throttle_rec *t);

/* PERF_RECORD_KSYMBOL: { u64 addr; u32 len; u16 ksym_type, flags; char name[] }. */
#define TDR_KSYMBOL_ADDR 0u
#define TDR_KSYMBOL_LEN 8u
#define TDR_KSYMBOL_TYPE 12u
#define TDR_KSYMBOL_FLAGS 14u
#define TDR_KSYMBOL_NAME 16u

struct tdr_ksymbol_rec {
	uint64_t addr;
	uint32_t len;
	uint16_t ksym_type, flags;
	const char *name; /* NUL-terminated inside the record */
	size_t name_len;
	const uint8_t *tail;
};

#endif /* TDREC_RECORDS_H */
