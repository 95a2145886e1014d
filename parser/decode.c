/*
 * parser/decode.c - decode one kernel record, given each event's attr.
 *
 * Responsibility: find a record's event through its id (PERF_SAMPLE_IDENTIFIER,
 * or perf's id_pos / is_pos rules), then read the record's fields in the
 * kernel's order, bounds-checking every length and count against the record
 * size. It never allocates and never trusts a size: a record that does not
 * add up is reported as -TDR_E_CORRUPT for the caller to count and skip.
 * SAMPLE fields are decoded up to PERF_SAMPLE_READ (all the parser uses);
 * CALLCHAIN and RAW, which follow, are bounds-checked; later fields are not
 * looked at, so no unsupported field can be misread as one we use.
 * Objects and lifecycle: tdr_decoder__init(meta) -> __decode (repeat) -> __fini.
 * Ownership and threads: a decoded record points into the caller's buffer.
 * See: uapi linux/perf_event.h (record layouts); docs/kernel.md "Record layouts".
 */
#include "parser_int.h"

#include <errno.h>
#include <string.h>

#include "tdrec/tdr_err.h"
#include "tdrec/tdr_mem.h"

#define LOG_PREFIX "parser: "
#include "tdrec/tdr_log.h"

/* Fields of the sample_id trailer (uapi "struct sample_id"). */
#define SID_FIELDS                                                                                 \
	(PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ID | PERF_SAMPLE_STREAM_ID |             \
	 PERF_SAMPLE_CPU | PERF_SAMPLE_IDENTIFIER)

/* ---------------------------------------------------------------------------
 * Layouts.
 */

/* perf's __perf_evsel__calc_id_pos: u64 index of the id in a SAMPLE body. */
static int calc_id_pos(uint64_t st)
{
	int idx = 0;

	if (st & PERF_SAMPLE_IDENTIFIER)
		return 0;
	if (!(st & PERF_SAMPLE_ID))
		return -1;
	idx += !!(st & PERF_SAMPLE_IP);
	idx += !!(st & PERF_SAMPLE_TID);
	idx += !!(st & PERF_SAMPLE_TIME);
	idx += !!(st & PERF_SAMPLE_ADDR);
	return idx;
}

/* perf's __perf_evsel__calc_is_pos: u64 index of the id counted back from the
 * end of a non-sample record's sample_id trailer (1 = last u64). */
static int calc_is_pos(uint64_t st, bool sample_id_all)
{
	int idx = 1;

	if (!sample_id_all)
		return -1;
	if (st & PERF_SAMPLE_IDENTIFIER)
		return 1;
	if (!(st & PERF_SAMPLE_ID))
		return -1;
	idx += !!(st & PERF_SAMPLE_CPU);
	idx += !!(st & PERF_SAMPLE_STREAM_ID);
	return idx;
}

/* Byte offset of a SAMPLE field when sample_type has it, else -1; *off moves on. */
static int16_t take_field(uint64_t st, uint64_t bit, unsigned *off)
{
	if (!(st & bit))
		return -1;
	*off += 8;
	return (int16_t)(*off - 8);
}

/*
 * The short way of decode_sample: with no CALLCHAIN or RAW (which the
 * decoder bounds-checks after READ), every field it reads has a fixed
 * offset, given in the kernel's order (uapi perf_event.h, PERF_RECORD_SAMPLE).
 */
static void calc_fixed(struct ev_info *e)
{
	uint64_t st = e->sample_type, rf = e->read_format;
	int16_t ident;
	unsigned off = 0;

	ident = take_field(st, PERF_SAMPLE_IDENTIFIER, &off);
	e->off_ip = take_field(st, PERF_SAMPLE_IP, &off);
	e->off_tid = take_field(st, PERF_SAMPLE_TID, &off);
	e->off_time = take_field(st, PERF_SAMPLE_TIME, &off);
	e->off_addr = take_field(st, PERF_SAMPLE_ADDR, &off);
	e->off_id = take_field(st, PERF_SAMPLE_ID, &off);
	if (e->off_id < 0)
		e->off_id = ident; /* ID, when both are there, is read last */
	e->off_stream_id = take_field(st, PERF_SAMPLE_STREAM_ID, &off);
	e->off_cpu = take_field(st, PERF_SAMPLE_CPU, &off);
	e->off_period = take_field(st, PERF_SAMPLE_PERIOD, &off);
	e->off_read = -1;
	memset(&e->read_tmpl, 0, sizeof(e->read_tmpl));
	if (st & PERF_SAMPLE_READ) {
		struct dec_read *rd = &e->read_tmpl;

		e->off_read = (int16_t)off;
		rd->group = rf & PERF_FORMAT_GROUP;
		rd->has_id = rf & PERF_FORMAT_ID;
		rd->has_enabled = rf & PERF_FORMAT_TOTAL_TIME_ENABLED;
		rd->has_running = rf & PERF_FORMAT_TOTAL_TIME_RUNNING;
		rd->stride = 8u * (1u + !!(rf & PERF_FORMAT_ID) + !!(rf & PERF_FORMAT_LOST));
		rd->nr = 1;
		/* nr or the value; the times; the non-group form's id and lost */
		off += 8u * (1u + rd->has_enabled + rd->has_running);
		if (!rd->group)
			off += rd->stride - 8u;
	}
	e->fixed_sz = (uint16_t)off;
	e->fixed = !(st & (PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_RAW));
}

int tdr_decoder__init(struct tdr_decoder *d, const struct tdr_meta *meta)
{
	size_t i, j;
	int err;

	memset(d, 0, sizeof(*d));
	d->id_pos = -1;
	d->is_pos = -1;
	d->dflt = -1;
	d->time_pos = -1;
	d->ev_cnt = meta->event_cnt;
	if (!d->ev_cnt)
		return 0;
	d->ev = tdr_calloc(d->ev_cnt, sizeof(*d->ev));
	if (!d->ev)
		return -ENOMEM;
	for (i = 0; i < d->ev_cnt; i++) {
		const struct perf_event_attr *a = &meta->events[i].attr;
		struct ev_info *e = &d->ev[i];
		uint32_t gi = meta->events[i].group_idx;

		e->sample_type = a->sample_type;
		e->read_format = a->read_format;
		e->sample_id_all = a->sample_id_all;
		e->build_id = a->build_id;
		d->any_build_id |= e->build_id;
		e->trailer_sz = a->sample_id_all ? 8u * (uint32_t)__builtin_popcountll(
							      a->sample_type & SID_FIELDS)
						 : 0;
		e->group_first = (uint32_t)i;
		for (j = 0; j < d->ev_cnt; j++) {
			if (meta->events[j].group_idx != gi)
				continue;
			if (j < i) {
				e->slot++;
				if (j < e->group_first)
					e->group_first = (uint32_t)j;
			}
			e->group_sz++;
		}
		e->group = gi;
		calc_fixed(e);
		for (j = 0; j < meta->events[i].id_cnt; j++) {
			err = tdr_u64map__put(&d->ids, meta->events[i].ids[j].id, (uint32_t)i);
			if (err)
				goto err_out;
		}
	}
	/* Like perf, locate ids with the first event's layout; the recorder (and
	 * perf, by setting IDENTIFIER when layouts differ) keeps them equal. */
	d->id_pos = calc_id_pos(d->ev[0].sample_type);
	d->is_pos = calc_is_pos(d->ev[0].sample_type, d->ev[0].sample_id_all);
	d->dflt = 0;
	for (i = 1; i < d->ev_cnt; i++) {
		if (d->ev[i].sample_type != d->ev[0].sample_type ||
		    d->ev[i].read_format != d->ev[0].read_format ||
		    d->ev[i].sample_id_all != d->ev[0].sample_id_all)
			d->dflt = -1;
	}
	/* The time of a sample comes after IDENTIFIER, IP and TID, all fixed
	 * size: with one layout for all events it is always at the same place. */
	if (d->dflt == 0 && (d->ev[0].sample_type & PERF_SAMPLE_TIME))
		d->time_pos = __builtin_popcountll(d->ev[0].sample_type &
						   (PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP |
						    PERF_SAMPLE_TID));
	return 0;
err_out:
	tdr_decoder__fini(d);
	return err;
}

void tdr_decoder__fini(struct tdr_decoder *d)
{
	zfree(&d->ev);
	tdr_u64map__fini(&d->ids);
	d->ev_cnt = 0;
}

/* Look an id up; fall back to the default layout when it is unknown. */
static int event_of(const struct tdr_decoder *d, bool have_id, uint64_t id, bool *unknown)
{
	uint32_t v;

	*unknown = false;
	/* A meta without ids (tests, old files): every record uses the default. */
	if (have_id && tdr_u64map__cnt(&d->ids)) {
		v = tdr_u64map__get(&d->ids, id);
		if (v != TDR_HMAP_NONE)
			return (int)v;
		*unknown = true;
	}
	return d->dflt;
}

/* ---------------------------------------------------------------------------
 * SAMPLE
 */

/* Take n bytes from [*p, end), or fail. */
#define TAKE(p, end, n)                                                                            \
	do {                                                                                       \
		if ((size_t)((end) - (p)) < (size_t)(n))                                           \
			return -TDR_E_CORRUPT;                                                     \
	} while (0)

static int decode_read(uint64_t rf, const uint8_t **pp, const uint8_t *end, struct dec_read *rd)
{
	const uint8_t *p = *pp;
	uint64_t avail;

	rd->group = rf & PERF_FORMAT_GROUP;
	rd->has_id = rf & PERF_FORMAT_ID;
	rd->has_enabled = rf & PERF_FORMAT_TOTAL_TIME_ENABLED;
	rd->has_running = rf & PERF_FORMAT_TOTAL_TIME_RUNNING;
	rd->stride = 8u * (1u + !!(rf & PERF_FORMAT_ID) + !!(rf & PERF_FORMAT_LOST));
	if (rd->group) {
		/* { u64 nr; [enabled]; [running]; { value; [id]; [lost] } cntr[nr] } */
		TAKE(p, end, 8);
		rd->nr = ld64(p);
		p += 8;
	} else {
		/* { value; [enabled]; [running]; [id]; [lost] } */
		TAKE(p, end, 8);
		rd->nr = 1;
		rd->value = ld64(p);
		p += 8;
	}
	if (rd->has_enabled) {
		TAKE(p, end, 8);
		rd->time_enabled = ld64(p);
		p += 8;
	}
	if (rd->has_running) {
		TAKE(p, end, 8);
		rd->time_running = ld64(p);
		p += 8;
	}
	if (rd->group) {
		avail = (uint64_t)(end - p) / rd->stride;
		if (rd->nr > avail)
			return -TDR_E_CORRUPT; /* nr too large for the record */
		rd->ent = p;
		p += rd->nr * rd->stride;
	} else {
		if (rd->has_id) {
			TAKE(p, end, 8);
			rd->id = ld64(p);
			p += 8;
		}
		if (rf & PERF_FORMAT_LOST) {
			TAKE(p, end, 8);
			p += 8;
		}
	}
	*pp = p;
	return 0;
}

/* decode_sample's short way (calc_fixed): the record holds at least
 * e->fixed_sz bytes, so only the group read's entries need a check. */
static int decode_sample_fixed(const struct ev_info *e, const uint8_t *p, const uint8_t *end,
			       struct dec_rec *r)
{
	if (e->off_id >= 0) {
		r->sid.id = ld64(p + e->off_id);
		r->sid.have |= DEC_HAVE_ID;
	}
	if (e->off_ip >= 0) {
		r->sample.ip = ld64(p + e->off_ip);
		r->sample.has_ip = true;
	}
	if (e->off_tid >= 0) {
		r->sid.pid = ld32(p + e->off_tid);
		r->sid.tid = ld32(p + e->off_tid + 4);
		r->sid.have |= DEC_HAVE_TID;
	}
	if (e->off_time >= 0) {
		r->sid.time = ld64(p + e->off_time);
		r->sid.have |= DEC_HAVE_TIME;
	}
	if (e->off_addr >= 0)
		r->sample.addr = ld64(p + e->off_addr);
	if (e->off_stream_id >= 0) {
		r->sid.stream_id = ld64(p + e->off_stream_id);
		r->sid.have |= DEC_HAVE_STREAM_ID;
	}
	if (e->off_cpu >= 0) {
		r->sid.cpu = ld32(p + e->off_cpu);
		r->sid.have |= DEC_HAVE_CPU;
	}
	if (e->off_period >= 0) {
		r->sample.period = ld64(p + e->off_period);
		r->sample.has_period = true;
	}
	if (e->off_read >= 0) {
		struct dec_read *rd = &r->sample.read;
		const uint8_t *q = p + e->off_read;

		*rd = e->read_tmpl;
		if (rd->group)
			rd->nr = ld64(q);
		else
			rd->value = ld64(q);
		q += 8;
		if (rd->has_enabled) {
			rd->time_enabled = ld64(q);
			q += 8;
		}
		if (rd->has_running) {
			rd->time_running = ld64(q);
			q += 8;
		}
		if (rd->group) {
			if (rd->nr > (uint64_t)(end - q) / rd->stride)
				return -TDR_E_CORRUPT; /* nr too large for the record */
			rd->ent = q;
		} else if (rd->has_id) {
			rd->id = ld64(q);
		}
		r->sample.has_read = true;
	}
	return 0;
}

static int decode_sample(const struct tdr_decoder *d, const uint8_t *p, const uint8_t *end,
			 struct dec_rec *r)
{
	const struct ev_info *e;
	uint64_t st;
	int err;

	/* Find the event first: its sample_type says how to read the rest. */
	if (d->id_pos >= 0 && (size_t)(end - p) >= 8u * (size_t)(d->id_pos + 1)) {
		r->ev = event_of(d, true, ld64(p + 8 * d->id_pos), &r->unknown_id);
	} else {
		r->ev = event_of(d, false, 0, &r->unknown_id);
	}
	if (r->ev < 0)
		return 0; /* unknown id and no default layout: caller counts it */
	e = &d->ev[r->ev];
	if (e->fixed && (size_t)(end - p) >= e->fixed_sz)
		return decode_sample_fixed(e, p, end, r);
	st = e->sample_type;

	if (st & PERF_SAMPLE_IDENTIFIER) {
		TAKE(p, end, 8);
		r->sid.id = ld64(p);
		r->sid.have |= DEC_HAVE_ID;
		p += 8;
	}
	if (st & PERF_SAMPLE_IP) {
		TAKE(p, end, 8);
		r->sample.ip = ld64(p);
		r->sample.has_ip = true;
		p += 8;
	}
	if (st & PERF_SAMPLE_TID) {
		TAKE(p, end, 8);
		r->sid.pid = ld32(p);
		r->sid.tid = ld32(p + 4);
		r->sid.have |= DEC_HAVE_TID;
		p += 8;
	}
	if (st & PERF_SAMPLE_TIME) {
		TAKE(p, end, 8);
		r->sid.time = ld64(p);
		r->sid.have |= DEC_HAVE_TIME;
		p += 8;
	}
	if (st & PERF_SAMPLE_ADDR) {
		TAKE(p, end, 8);
		r->sample.addr = ld64(p);
		p += 8;
	}
	if (st & PERF_SAMPLE_ID) {
		TAKE(p, end, 8);
		r->sid.id = ld64(p);
		r->sid.have |= DEC_HAVE_ID;
		p += 8;
	}
	if (st & PERF_SAMPLE_STREAM_ID) {
		TAKE(p, end, 8);
		r->sid.stream_id = ld64(p);
		r->sid.have |= DEC_HAVE_STREAM_ID;
		p += 8;
	}
	if (st & PERF_SAMPLE_CPU) {
		TAKE(p, end, 8);
		r->sid.cpu = ld32(p);
		r->sid.have |= DEC_HAVE_CPU;
		p += 8;
	}
	if (st & PERF_SAMPLE_PERIOD) {
		TAKE(p, end, 8);
		r->sample.period = ld64(p);
		r->sample.has_period = true;
		p += 8;
	}
	if (st & PERF_SAMPLE_READ) {
		err = decode_read(e->read_format, &p, end, &r->sample.read);
		if (err)
			return err;
		r->sample.has_read = true;
	}
	if (st & PERF_SAMPLE_CALLCHAIN) {
		uint64_t nr;

		TAKE(p, end, 8);
		nr = ld64(p);
		p += 8;
		if (nr > (uint64_t)(end - p) / 8)
			return -TDR_E_CORRUPT;
		p += nr * 8;
	}
	if (st & PERF_SAMPLE_RAW) {
		uint32_t sz;

		TAKE(p, end, 4);
		sz = ld32(p);
		p += 4;
		TAKE(p, end, sz);
	}
	return 0;
}

/* ---------------------------------------------------------------------------
 * Other records: a fixed body, maybe a string, then the sample_id trailer.
 */

/* A NUL-terminated string at p, padded to 8 bytes; returns its end or NULL. */
static const uint8_t *take_string(const uint8_t *p, const uint8_t *end)
{
	const uint8_t *nul = memchr(p, '\0', (size_t)(end - p));
	size_t padded;

	if (!nul)
		return NULL;
	padded = ((size_t)(nul - p) + 1 + 7) & ~(size_t)7;
	if (padded > (size_t)(end - p))
		return end; /* synthesized records may skip the padding */
	return p + padded;
}

static void decode_trailer(const struct ev_info *e, const uint8_t *end, struct dec_sid *sid)
{
	const uint8_t *p = end - e->trailer_sz;
	uint64_t st = e->sample_type;

	/* { pid, tid } { time } { id } { stream_id } { cpu, res } { identifier } */
	if (st & PERF_SAMPLE_TID) {
		sid->pid = ld32(p);
		sid->tid = ld32(p + 4);
		sid->have |= DEC_HAVE_TID;
		p += 8;
	}
	if (st & PERF_SAMPLE_TIME) {
		sid->time = ld64(p);
		sid->have |= DEC_HAVE_TIME;
		p += 8;
	}
	if (st & PERF_SAMPLE_ID) {
		sid->id = ld64(p);
		sid->have |= DEC_HAVE_ID;
		p += 8;
	}
	if (st & PERF_SAMPLE_STREAM_ID) {
		sid->stream_id = ld64(p);
		sid->have |= DEC_HAVE_STREAM_ID;
		p += 8;
	}
	if (st & PERF_SAMPLE_CPU) {
		sid->cpu = ld32(p);
		sid->have |= DEC_HAVE_CPU;
		p += 8;
	}
	if (st & PERF_SAMPLE_IDENTIFIER) {
		sid->id = ld64(p);
		sid->have |= DEC_HAVE_ID;
	}
}

/* After the body ends at body_end: find the event and read the trailer.
 * Returns whether the record's id named its event (else r->ev, if any, is
 * only the default layout). */
static bool finish_other(const struct tdr_decoder *d, const uint8_t *body_end, const uint8_t *end,
			 struct dec_rec *r)
{
	size_t tail = (size_t)(end - body_end);
	const struct ev_info *e;
	bool have_id = d->is_pos > 0 && tail >= 8u * (size_t)d->is_pos;

	r->ev = event_of(d, have_id, have_id ? ld64(end - 8 * d->is_pos) : 0, &r->unknown_id);
	if (r->ev < 0)
		return false;
	e = &d->ev[r->ev];
	/* Records tdrec or perf synthesized may come without a trailer. */
	if (e->trailer_sz && tail >= e->trailer_sz)
		decode_trailer(e, end, &r->sid);
	return have_id && tdr_u64map__cnt(&d->ids) && !r->unknown_id;
}

/*
 * MMAP2's 24 bytes after pgoff (p): device and inode, or, with misc
 * PERF_RECORD_MISC_MMAP_BUILD_ID, { u8 size; u8, u16 reserved; u8
 * build_id[20]; }. The flag is believed only when the record's event asked
 * for build-ids (attr.build_id; any event when the id does not say which):
 * the kernel leaves it set in the MMAP2 records it writes for the other
 * events of the same mapping, which hold device and inode (docs/parser.md).
 */
static int mmap2_ids(const struct tdr_decoder *d, const uint8_t *p, bool known, struct dec_rec *r)
{
	bool asked = known ? d->ev[r->ev].build_id : d->any_build_id;

	if ((r->misc & PERF_RECORD_MISC_MMAP_BUILD_ID) && asked) {
		r->mmap.build_id_sz = p[0];
		if (r->mmap.build_id_sz > 20)
			return -TDR_E_CORRUPT;
		r->mmap.build_id = p + 4;
	} else {
		r->mmap.maj = ld32(p);
		r->mmap.min = ld32(p + 4);
		r->mmap.ino = ld64(p + 8);
	}
	return 0;
}

int tdr_decoder__decode(const struct tdr_decoder *d, const struct perf_event_header *hdr,
			struct dec_rec *r)
{
	const uint8_t *p = (const uint8_t *)(hdr + 1);
	const uint8_t *end = (const uint8_t *)hdr + hdr->size;
	const uint8_t *s, *ids;
	bool known;

	memset(r, 0, offsetof(struct dec_rec, sample));
	r->type = hdr->type;
	r->misc = hdr->misc;
	r->ev = -1;
	if (hdr->size < sizeof(*hdr))
		return -TDR_E_CORRUPT;

	switch (hdr->type) {
	case PERF_RECORD_SAMPLE:
		/* Field by field: a memset of the whole union became a slow
		 * 'rep stos' on the hottest path (per-sample profile). */
		r->sample.ip = r->sample.addr = r->sample.period = 0;
		r->sample.has_ip = r->sample.has_period = r->sample.has_read = false;
		r->sample.read = (struct dec_read){ 0 };
		return decode_sample(d, p, end, r);
	case PERF_RECORD_MMAP:
	case PERF_RECORD_MMAP2:
		memset(&r->mmap, 0, sizeof(r->mmap));
		TAKE(p, end, 32);
		r->mmap.pid = ld32(p);
		r->mmap.tid = ld32(p + 4);
		r->mmap.addr = ld64(p + 8);
		r->mmap.len = ld64(p + 16);
		r->mmap.pgoff = ld64(p + 24);
		p += 32;
		ids = NULL;
		if (hdr->type == PERF_RECORD_MMAP2) {
			TAKE(p, end, 32);
			ids = p;
			r->mmap.prot = ld32(p + 24);
			r->mmap.flags = ld32(p + 28);
			p += 32;
		}
		s = take_string(p, end);
		if (!s)
			return -TDR_E_CORRUPT;
		r->mmap.filename = (const char *)p;
		known = finish_other(d, s, end, r);
		return ids ? mmap2_ids(d, ids, known, r) : 0;
	case PERF_RECORD_COMM:
		TAKE(p, end, 8);
		r->comm.pid = ld32(p);
		r->comm.tid = ld32(p + 4);
		p += 8;
		s = take_string(p, end);
		if (!s)
			return -TDR_E_CORRUPT;
		r->comm.comm = (const char *)p;
		finish_other(d, s, end, r);
		return 0;
	case PERF_RECORD_FORK:
	case PERF_RECORD_EXIT:
		TAKE(p, end, 24);
		r->task.pid = ld32(p);
		r->task.ppid = ld32(p + 4);
		r->task.tid = ld32(p + 8);
		r->task.ptid = ld32(p + 12);
		r->task.time = ld64(p + 16);
		finish_other(d, p + 24, end, r);
		return 0;
	case PERF_RECORD_LOST:
		TAKE(p, end, 16);
		r->lost.id = ld64(p);
		r->lost.lost = ld64(p + 8);
		finish_other(d, p + 16, end, r);
		return 0;
	case PERF_RECORD_LOST_SAMPLES:
		TAKE(p, end, 8);
		r->lost_samples.lost = ld64(p);
		finish_other(d, p + 8, end, r);
		return 0;
	case PERF_RECORD_THROTTLE:
	case PERF_RECORD_UNTHROTTLE:
		TAKE(p, end, 24);
		r->throttle.time = ld64(p);
		r->throttle.id = ld64(p + 8);
		r->throttle.stream_id = ld64(p + 16);
		finish_other(d, p + 24, end, r);
		return 0;
	default:
		return DEC_SKIP;
	}
}

bool tdr_decoder__time(const struct tdr_decoder *d, const struct perf_event_header *hdr,
		       uint64_t *time_ns)
{
	struct dec_rec r;

	/* Samples, nearly every record: read the time where it is, without
	 * decoding the rest (the parser decodes the record fully later). */
	if (hdr->type == PERF_RECORD_SAMPLE && d->time_pos >= 0) {
		if (hdr->size < 8u * (unsigned)(d->time_pos + 2))
			return false;
		*time_ns = ld64((const uint8_t *)(hdr + 1) + 8 * d->time_pos);
		return true;
	}
	/* THROTTLE and FORK/EXIT carry a time in the body even without sample_id_all. */
	if (tdr_decoder__decode(d, hdr, &r) < 0)
		return false;
	if (r.sid.have & DEC_HAVE_TIME) {
		*time_ns = r.sid.time;
		return true;
	}
	if (r.type == PERF_RECORD_THROTTLE || r.type == PERF_RECORD_UNTHROTTLE) {
		*time_ns = r.throttle.time;
		return true;
	}
	if (r.type == PERF_RECORD_FORK || r.type == PERF_RECORD_EXIT) {
		*time_ns = r.task.time;
		return true;
	}
	return false;
}
