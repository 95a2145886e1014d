/*
 * parser/decode.c - decode one kernel record, given each event's attr.
 *
 * Responsibility: find a record's event through its id (PERF_SAMPLE_IDENTIFIER,
 * or perf's id_pos / is_pos rules), then read the record's fields in the
 * kernel's order, bounds-checking every length and count against the record
 * size. It never allocates and never trusts a size: a record that does not
 * add up is reported as -TDR_E_CORRUPT for the caller to count and skip.
 * The layouts themselves (field order and offsets of SAMPLE, of the
 * sample_id trailer and of every other body) are tdrec/records.h's: this
 * file picks the layout of a record's event and keeps the parser's view.
 * Samples of the layout tdrec records take a short way (decode_fast: fixed
 * offsets, one size check), everything else the general one.
 * SAMPLE fields are decoded up to PERF_SAMPLE_CALLCHAIN (read in place);
 * RAW, which follows, is bounds-checked; BRANCH_STACK, REGS_USER and
 * STACK_USER are read in place for an event that has both of the last two
 * (a stack copy to unwind) or an LBR call stack; later fields are not looked at, so no
 * unsupported field can be misread as one we use.
 * Objects and lifecycle: tdr_decoder__init(meta) -> __decode (repeat) -> __fini.
 * Ownership and threads: a decoded record points into the caller's buffer.
 * See: tdrec/records.h; uapi linux/perf_event.h (record layouts); perf's
 * tools/perf/util/evsel.c (__perf_evsel__calc_id_pos, calc_is_pos); docs/kernel.md "Record layouts and sample ids".
 */
#include "parser_int.h"

#include <errno.h>
#include <string.h>

#include "tdrec/tdr_err.h"
#include "tdrec/tdr_mem.h"

/* The SAMPLE fields of fixed size that tdr_sample__parse reads: a sample
 * of only these has one possible size (exact_sample_size). */
#define EXACT_FIELDS                                                                               \
	(PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |            \
	 PERF_SAMPLE_ADDR | PERF_SAMPLE_ID | PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_CPU |             \
	 PERF_SAMPLE_PERIOD | PERF_SAMPLE_READ)

/* The layout of the samples tdrec records (plan/plan.c's sample_type):
 * with a group read, decode_fast reads them. */
#define FAST_SAMPLE_TYPE                                                                           \
	(PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |            \
	 PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD | PERF_SAMPLE_READ)

#define LOG_PREFIX "parser: "
#include "tdrec/tdr_log.h"

/* ---------------------------------------------------------------------------
 * Layouts.
 */

/* perf's __perf_evsel__calc_id_pos: u64 index of the id in a SAMPLE body
 * (IDENTIFIER, else ID), -1 without one. */
static int calc_id_pos(const struct ev_info *e)
{
	return e->sl.event_id >= 0 ? e->sl.event_id / 8 : -1;
}

/* perf's __perf_evsel__calc_is_pos: u64 index of the id counted back from the
 * end of a non-sample record's sample_id trailer (1 = last u64). */
static int calc_is_pos(const struct ev_info *e)
{
	int16_t off = e->tl.identifier >= 0 ? e->tl.identifier : e->tl.id;

	if (!e->sample_id_all || off < 0)
		return -1;
	return (e->tl.sz - off) / 8;
}

int tdr_decoder__init(struct tdr_decoder *d, const struct tdr_meta *meta)
{
	size_t i, j;
	bool same_time;
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
	d->recent = tdr_calloc(ID_RECENT, sizeof(*d->recent));
	if (!d->ev || !d->recent) {
		tdr_decoder__fini(d);
		return -ENOMEM;
	}
	for (i = 0; i < d->ev_cnt; i++) {
		const struct perf_event_attr *a = &meta->events[i].attr;
		struct ev_info *e = &d->ev[i];
		uint32_t gi = meta->events[i].group_idx;

		e->sample_type = a->sample_type;
		e->read_format = a->read_format;
		e->sample_id_all = a->sample_id_all;
		e->build_id = a->build_id;
		d->any_build_id |= e->build_id;
		tdr_sample_layout__init(&e->sl, a->sample_type, a->read_format);
		tdr_user_layout__init(&e->ul, a->sample_type, a->branch_sample_type,
				      a->sample_regs_user);
		e->regs_mask = a->sample_regs_user;
		e->user_stack = e->ul.regs_user && e->ul.stack_user;
		e->lbr_stack = e->ul.branch_stack &&
			       (a->branch_sample_type & PERF_SAMPLE_BRANCH_CALL_STACK);
		e->exact_size = !(a->sample_type & ~EXACT_FIELDS);
		e->fast = a->sample_type == FAST_SAMPLE_TYPE && (a->read_format & PERF_FORMAT_GROUP);
		tdr_sid_layout__init(&e->tl, a->sample_id_all ? a->sample_type : 0);
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
		for (j = 0; j < meta->events[i].id_cnt; j++) {
			err = tdr_u64map__put(&d->ids, meta->events[i].ids[j].id, (uint32_t)i);
			if (err)
				goto err_out;
		}
	}
	/* Like perf, locate ids with the first event's layout; the recorder (and
	 * perf, by setting IDENTIFIER when layouts differ) keeps them equal. */
	d->id_pos = calc_id_pos(&d->ev[0]);
	d->is_pos = calc_is_pos(&d->ev[0]);
	d->dflt = 0;
	same_time = true;
	for (i = 1; i < d->ev_cnt; i++) {
		if (d->ev[i].sample_type != d->ev[0].sample_type ||
		    d->ev[i].sample_id_all != d->ev[0].sample_id_all)
			d->dflt = -1, same_time = false;
		if (d->ev[i].read_format != d->ev[0].read_format)
			d->dflt = -1;
	}
	/* The time of a sample comes after fields of fixed size only, all
	 * before the READ group: with one sample_type for all events it is
	 * always at the same place, whatever each one reads (the recorder
	 * trims the sampler's read_format: runtime/session.c). */
	if (same_time && d->ev[0].sl.time >= 0)
		d->time_pos = d->ev[0].sl.time / 8;
	return 0;
err_out:
	tdr_decoder__fini(d);
	return err;
}

void tdr_decoder__fini(struct tdr_decoder *d)
{
	zfree(&d->ev);
	zfree(&d->recent);
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
		struct id_slot *c = &d->recent[id & (ID_RECENT - 1)];

		if (c->ev1 && c->id == id)
			return (int)c->ev1 - 1;
		v = tdr_u64map__get(&d->ids, id);
		if (v != TDR_HMAP_NONE) {
			c->id = id;
			c->ev1 = v + 1;
			return (int)v;
		}
		*unknown = true;
	}
	return d->dflt;
}

/* ---------------------------------------------------------------------------
 * SAMPLE
 */


/* The size a SAMPLE of exact layout l must have: its fixed fields, and the
 * READ's head and entries. */
static size_t exact_sample_size(const struct tdr_sample_layout *l, const struct tdr_sample_rec *s)
{
	if (l->read < 0)
		return l->fixed_sz;
	return (size_t)l->read + l->rd.head_sz + (l->rd.group ? s->read.nr * l->rd.stride : 0);
}

/*
 * The short way for a sample of FAST_SAMPLE_TYPE with a group read (nearly
 * every record of a .tdr file): every field is present, so the layout's
 * offsets are read without asking which fields there are, after one check
 * of the whole size. Returns false, having written nothing, when the size
 * does not add up: the general way then decodes the record and says what
 * is wrong. Gives exactly what tdr_sample__parse gives
 * (tests/parser/test_fastpath.c compares both ways on every layout and
 * damage it knows).
 */
static bool decode_fast(const struct ev_info *e, const uint8_t *p, const uint8_t *end,
			struct dec_rec *r)
{
	const struct tdr_sample_layout *l = &e->sl;
	const struct tdr_read_layout *rl = &l->rd;
	struct tdr_sample_read *rd = &r->sample.read;
	size_t len = (size_t)(end - p);
	const uint8_t *q;
	uint64_t nr;

	if (len < l->fixed_sz)
		return false;
	nr = ld64(p + l->read);
	/* nr <= len (a record is below 64 KiB) keeps nr * stride from
	 * overflowing, without a division */
	if (nr > len || len != l->fixed_sz + nr * rl->stride)
		return false;
	r->sid.id = ld64(p + l->event_id);
	r->sid.pid = ld32(p + l->tid);
	r->sid.tid = ld32(p + l->tid + 4);
	r->sid.time = ld64(p + l->time);
	r->sid.cpu = ld32(p + l->cpu);
	r->sid.have |= TDR_SID_ID | TDR_SID_TID | TDR_SID_TIME | TDR_SID_CPU;
	r->sample.ip = ld64(p + l->ip);
	r->sample.period = ld64(p + l->period);
	r->sample.has_ip = r->sample.has_period = r->sample.has_read = true;
	rd->group = true;
	rd->has_id = rl->has_id;
	rd->has_enabled = rl->has_enabled;
	rd->has_running = rl->has_running;
	rd->stride = rl->stride;
	rd->nr = nr;
	q = p + l->read + 8;
	if (rl->has_enabled) {
		rd->time_enabled = ld64(q);
		q += 8;
	}
	if (rl->has_running) {
		rd->time_running = ld64(q);
		q += 8;
	}
	rd->ent = q;
	r->sample.tail = end;
	return true;
}

static int decode_sample(const struct tdr_decoder *d, const uint8_t *p, const uint8_t *end,
			 struct dec_rec *r)
{
	const struct ev_info *e;
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
	if (e->fast && !d->no_fast && decode_fast(e, p, end, r))
		return 0;
	err = tdr_sample__parse(&e->sl, p, end, &r->sample, &r->sid);
	if (!err && (e->user_stack || e->lbr_stack))
		err = tdr_sample__parse_user(&e->ul, r->sample.tail, end, &r->user);
	/* A size that disagrees with the fields (one flipped bit of a
	 * perf.data record size or READ nr): malformed, not guessed at. */
	if (!err && e->exact_size && (size_t)(end - p) != exact_sample_size(&e->sl, &r->sample))
		return -TDR_E_CORRUPT;
	return err;
}

/* ---------------------------------------------------------------------------
 * Other records: a fixed body, maybe a string, then the sample_id trailer.
 */

/* After the body ends at body_end: find the event and read the trailer.
 * Returns whether the record's id named its event (else r->ev, if any, is
 * only the default layout). */
static bool finish_other(const struct tdr_decoder *d, const struct perf_event_header *hdr,
			 const uint8_t *body_end, struct dec_rec *r)
{
	const uint8_t *end = (const uint8_t *)hdr + hdr->size;
	size_t tail = (size_t)(end - body_end);
	bool have_id = d->is_pos > 0 && tail >= 8u * (size_t)d->is_pos;

	r->ev = event_of(d, have_id, have_id ? ld64(end - 8 * d->is_pos) : 0, &r->unknown_id);
	if (r->ev < 0)
		return false;
	/* Records tdrec or perf synthesized may come without a trailer. */
	tdr_sample_id__read_tail(&d->ev[r->ev].tl, hdr, body_end, &r->sid);
	return have_id && tdr_u64map__cnt(&d->ids) && !r->unknown_id;
}

/*
 * MMAP2's 24 bytes after pgoff: device and inode, or, with misc
 * PERF_RECORD_MISC_MMAP_BUILD_ID, a build-id (records.h reads both). The
 * flag is believed only when the record's event asked for build-ids
 * (attr.build_id; any event when the id does not say which): the kernel
 * leaves it set in the MMAP2 records it writes for the other events of the
 * same mapping, which hold device and inode (docs/parser.md).
 */
static int mmap2_ids(const struct tdr_decoder *d, const struct tdr_mmap_rec *m, bool known,
		     struct dec_rec *r)
{
	bool asked = known ? d->ev[r->ev].build_id : d->any_build_id;

	if ((r->misc & PERF_RECORD_MISC_MMAP_BUILD_ID) && asked) {
		if (m->build_id_sz > TDR_MMAP2_BUILD_ID_MAX)
			return -TDR_E_CORRUPT;
		r->mmap.build_id_sz = m->build_id_sz;
		r->mmap.build_id = m->build_id;
	} else {
		r->mmap.maj = m->maj;
		r->mmap.min = m->min;
		r->mmap.ino = m->ino;
	}
	return 0;
}

static int decode_mmap(const struct tdr_decoder *d, const struct perf_event_header *hdr,
		       struct dec_rec *r)
{
	struct tdr_mmap_rec m;
	bool known;

	memset(&r->mmap, 0, sizeof(r->mmap));
	if (tdr_mmap__parse(hdr, &m))
		return -TDR_E_CORRUPT;
	r->mmap.pid = m.pid;
	r->mmap.tid = m.tid;
	r->mmap.addr = m.addr;
	r->mmap.len = m.len;
	r->mmap.pgoff = m.pgoff;
	r->mmap.prot = m.prot;
	r->mmap.flags = m.flags;
	r->mmap.filename = m.filename;
	known = finish_other(d, hdr, m.tail, r);
	return hdr->type == PERF_RECORD_MMAP2 ? mmap2_ids(d, &m, known, r) : 0;
}

int tdr_decoder__decode(const struct tdr_decoder *d, const struct perf_event_header *hdr,
			struct dec_rec *r)
{
	const uint8_t *p = (const uint8_t *)(hdr + 1);
	const uint8_t *end = (const uint8_t *)hdr + hdr->size;

	memset(r, 0, offsetof(struct dec_rec, sample));
	r->type = hdr->type;
	r->misc = hdr->misc;
	r->ev = -1;
	if (hdr->size < sizeof(*hdr))
		return -TDR_E_CORRUPT;

	/* Nearly every record: before the switch, which costs a jump table. */
	if (hdr->type == PERF_RECORD_SAMPLE) {
		/* Field by field: a memset of the whole union became a slow
		 * 'rep stos' on the hottest path (per-sample profile). */
		r->sample.ip = r->sample.addr = r->sample.period = 0;
		r->sample.has_ip = r->sample.has_period = r->sample.has_read = false;
		r->sample.read = (struct tdr_sample_read){ 0 };
		r->sample.callchain_nr = 0;
		r->sample.callchain = NULL;
		return decode_sample(d, p, end, r);
	}
	switch (hdr->type) {
	case PERF_RECORD_MMAP:
	case PERF_RECORD_MMAP2:
		return decode_mmap(d, hdr, r);
	case PERF_RECORD_COMM: {
		struct tdr_comm_rec c;

		if (tdr_comm__parse(hdr, &c))
			return -TDR_E_CORRUPT;
		r->comm.pid = c.pid;
		r->comm.tid = c.tid;
		r->comm.comm = c.comm;
		finish_other(d, hdr, c.tail, r);
		return 0;
	}
	case PERF_RECORD_FORK:
	case PERF_RECORD_EXIT: {
		struct tdr_task_rec t;

		if (tdr_task__parse(hdr, &t))
			return -TDR_E_CORRUPT;
		r->task.pid = t.pid;
		r->task.ppid = t.ppid;
		r->task.tid = t.tid;
		r->task.ptid = t.ptid;
		r->task.time = t.time;
		finish_other(d, hdr, t.tail, r);
		return 0;
	}
	case PERF_RECORD_LOST: {
		struct tdr_lost_rec l;

		if (tdr_lost__parse(hdr, &l))
			return -TDR_E_CORRUPT;
		r->lost.id = l.id;
		r->lost.lost = l.lost;
		finish_other(d, hdr, l.tail, r);
		return 0;
	}
	case PERF_RECORD_LOST_SAMPLES: {
		struct tdr_lost_samples_rec l;

		if (tdr_lost_samples__parse(hdr, &l))
			return -TDR_E_CORRUPT;
		r->lost_samples.lost = l.lost;
		finish_other(d, hdr, l.tail, r);
		return 0;
	}
	case PERF_RECORD_THROTTLE:
	case PERF_RECORD_UNTHROTTLE: {
		struct tdr_throttle_rec t;

		if (tdr_throttle__parse(hdr, &t))
			return -TDR_E_CORRUPT;
		r->throttle.time = t.time;
		r->throttle.id = t.id;
		r->throttle.stream_id = t.stream_id;
		finish_other(d, hdr, t.tail, r);
		return 0;
	}
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
