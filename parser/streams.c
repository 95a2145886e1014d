/*
 * parser/streams.c - per-stream group reads and each sample's delta vector.
 *
 * Responsibility: a stream is one series of group reads of one kernel
 * counter set. Its key is (sampler id, tid) for per-thread and inherited
 * groups and (sampler id, cpu) for system-wide groups. The sampler id of a
 * task event opened per CPU differs per CPU, and the kernel only counts a
 * per-CPU task event (and its inherited children) while the thread runs on
 * that CPU: a thread that migrates has one series per CPU, each monotonic on
 * its own (checked on kernel 6.18 with cpu-clock/task-clock groups). Keying by
 * (group, tid) would subtract one CPU's counts from another's, so the key
 * keeps the id. Members are matched by the id in each group entry (position
 * only when the read_format has no ids).
 * For every sample delta_i = value_i - prev_i; the first sample of a stream
 * carries the counts since the counters started. A sample after a gap
 * re-bases its stream (delta dropped, values become the baseline), counted
 * per reason: LOST on a ring the stream used, THROTTLE/UNTHROTTLE of the
 * stream, a value or time_running going backwards, time_running not moving.
 * A sample whose deltas are more than the time since the stream's previous
 * sample allows (docs/parser.md "Plausibility") is not attributed either:
 * counted as implausible, its values become the baseline.
 * Objects and lifecycle: a stream_tab inside the parser; tdr_parser_streams_fini frees it.
 * Hot path: no allocation once a stream exists; a last-hit cache and a
 * per-stream cache of entry ids avoid hash lookups for repeated samples.
 * See: docs/parser.md "Streams"; docs/report.md "Attribution"; docs/kernel.md
 * "Group reads in samples", "inherit and PERF_SAMPLE_READ", "Throttling".
 */
#include "parser_int.h"

#include <errno.h>
#include <string.h>

#include "tdrec/tdr_mem.h"

#define LOG_PREFIX "parser: "
#include "tdrec/tdr_log.h"

/* Rings above this are not tracked one by one; their LOST records affect all. */
#define MAX_TRACKED_RING (1u << 20)

static uint64_t key_hash(uint64_t id, uint32_t x)
{
	return tdr_hash_u64(id * 0x9e3779b97f4a7c15ULL ^ ((uint64_t)x << 1));
}

void tdr_parser_streams_fini(struct stream_tab *t)
{
	zfree(&t->s);
	tdr_hmap__fini(&t->index);
	zfree(&t->pool);
	zfree(&t->ring_lost_seq);
	memset(t, 0, sizeof(*t));
}

struct stream_key {
	uint64_t id;
	uint32_t x;
};

static uint64_t stream_hash(const void *ctx, uint32_t idx)
{
	const struct stream *s = (const struct stream *)ctx + idx;

	return key_hash(s->id, s->x);
}

static bool stream_eq(const void *ctx, uint32_t idx, const void *key)
{
	const struct stream *s = (const struct stream *)ctx + idx;
	const struct stream_key *k = key;

	return s->id == k->id && s->x == k->x;
}

static size_t find(const struct stream_tab *t, uint64_t id, uint32_t x)
{
	struct stream_key k = {.id = id, .x = x};
	uint32_t i = tdr_hmap__find(&t->index, key_hash(id, x), stream_eq, t->s, &k, NULL);

	return i == TDR_HMAP_NONE ? SIZE_MAX : i;
}

/* Add a stream whose group has gsz members. Returns its index or -ENOMEM. */
static long add(struct stream_tab *t, uint64_t id, uint32_t x, uint32_t ev, size_t gsz)
{
	struct stream *s;
	size_t i, j;
	int err;

	if (t->cnt >= UINT32_MAX - 1)
		return -ENOMEM;
	err = tdr_hmap__reserve(&t->index, 64, stream_hash, t->s);
	if (err)
		return err;
	err = tdr_ensure_cap(&t->s, &t->cap, sizeof(*t->s), t->cnt + 1);
	if (!err)
		err = tdr_ensure_cap(&t->pool, &t->pool_cap, sizeof(*t->pool),
				     t->pool_cnt + 3 * gsz);
	if (err)
		return err;
	s = &t->s[t->cnt];
	memset(s, 0, sizeof(*s));
	s->id = id;
	s->x = x;
	s->ev = ev;
	s->pool_off = t->pool_cnt;
	/* prev values 0; cached entry ids/events invalid (UINT64_MAX) */
	memset(t->pool + t->pool_cnt, 0, gsz * sizeof(uint64_t));
	memset(t->pool + t->pool_cnt + gsz, 0xff, 2 * gsz * sizeof(uint64_t));
	t->pool_cnt += 3 * gsz;
	/* A new stream: find gives the empty slot it goes to. */
	(void)tdr_hmap__find(&t->index, key_hash(id, x), stream_eq, t->s,
			     &(struct stream_key){.id = id, .x = x}, &i);
	tdr_hmap__add(&t->index, i);
	j = t->cnt++;
	return (long)j;
}

int tdr_parser_streams_lost(struct stream_tab *t, uint32_t ring)
{
	int err;

	t->lost_seq++;
	if (ring >= MAX_TRACKED_RING) {
		t->lost_any_seq = t->lost_seq;
		return 0;
	}
	if (ring >= t->ring_cap) {
		size_t old = t->ring_cap;

		err = tdr_ensure_cap(&t->ring_lost_seq, &t->ring_cap, sizeof(uint64_t),
				     (size_t)ring + 1);
		if (err)
			return err;
		memset(t->ring_lost_seq + old, 0, (t->ring_cap - old) * sizeof(uint64_t));
	}
	t->ring_lost_seq[ring] = t->lost_seq;
	return 0;
}

void tdr_parser_streams_throttle(struct stream_tab *t, uint64_t id, uint32_t x)
{
	size_t i;

	if (x != UINT32_MAX) {
		i = find(t, id, x);
		if (i != SIZE_MAX)
			t->s[i].pending |= 1u << TDR_REBASE_THROTTLE;
		return;
	}
	/* No tid/cpu in the record: every stream of that sampler. */
	for (i = 0; i < t->cnt; i++)
		if (t->s[i].id == id)
			t->s[i].pending |= 1u << TDR_REBASE_THROTTLE;
}

static uint64_t ring_seq(const struct stream_tab *t, uint32_t ring)
{
	return ring < t->ring_cap ? t->ring_lost_seq[ring] : 0;
}

/* A sample without PERF_SAMPLE_READ: its period is the sampler's delta. */
static int plain_sample(struct tdr_parser *p, const struct dec_rec *r)
{
	const struct perf_event_attr *a = &p->meta.events[r->ev].attr;
	uint64_t period = r->sample.has_period ? r->sample.period
			  : a->freq		 ? 1
						 : a->sample_period;

	memset(p->deltas, 0, p->meta.event_cnt * sizeof(*p->deltas));
	p->deltas[r->ev] = period;
	return 1;
}

/* One sample's group read matched to its stream's members. */
struct match {
	uint64_t *prev, *cid, *cev; /* the stream's pool: values, cached ids, cached events */
	uint64_t present[TDR_MAX_GROUP / 64]; /* bit per group slot */
	bool backwards;			      /* a value went below its previous one */
	bool all; /* the short way: every member, entry j at slot j */
};

/* Is group slot i in this sample? */
static bool present_at(const struct match *m, size_t i)
{
	return (m->present[i / 64] >> (i % 64)) & 1;
}

/* The index of the sample's stream, added when new (*first set).
 * Returns the index, or a negative error (-ENOMEM). */
static long stream_of(struct tdr_parser *p, uint32_t ring, const struct dec_rec *r, size_t gsz,
		      bool *first)
{
	struct stream_tab *t = &p->streams;
	uint64_t key_id = (r->sid.have & DEC_HAVE_ID) ? r->sid.id : 0;
	size_t idx = t->last;
	uint32_t x;

	if (p->system_wide)
		x = (r->sid.have & DEC_HAVE_CPU) ? r->sid.cpu : ring;
	else
		x = (r->sid.have & DEC_HAVE_TID) ? r->sid.tid : 0;
	if (idx >= t->cnt || t->s[idx].id != key_id || t->s[idx].x != x) {
		uint32_t *rc = &t->recent[(x ^ key_id) & (STREAM_RECENT - 1)];

		if (*rc && t->s[*rc - 1].id == key_id && t->s[*rc - 1].x == x) {
			t->last = *rc - 1;
			return (long)t->last;
		}
		idx = find(t, key_id, x);
		if (idx == SIZE_MAX) {
			long n = add(t, key_id, x, (uint32_t)r->ev, gsz);

			if (n < 0)
				return n;
			idx = (size_t)n;
			*first = true;
			p->stats.streams = t->cnt;
		}
		t->last = idx;
		if (idx < UINT32_MAX)
			*rc = (uint32_t)idx + 1;
	}
	return (long)idx;
}

/* The short way: every entry's id is the one cached at its position, and
 * that position is its slot (the stream is in_order). Returns false when an
 * id differs: the general match then redoes the whole sample. */
static bool match_in_order(struct tdr_parser *p, const struct tdr_sample_read *rd, size_t gsz,
			   struct match *m)
{
	/* Locals: through p and m every store could alias them (reloads). */
	const uint8_t *en = rd->ent;
	const uint64_t *cid = m->cid, *cev = m->cev, *prev = m->prev;
	uint64_t *cur = p->cur;
	uint32_t *cur_ev = p->cur_ev;
	size_t j, stride = rd->stride;
	bool backwards = false;

	for (j = 0; j < gsz && ld64(en + TDR_READ_ENTRY_ID) == cid[j]; j++, en += stride) {
		uint64_t v = ld64(en);

		cur[j] = v;
		cur_ev[j] = (uint32_t)cev[j];
		backwards |= v < prev[j];
	}
	if (j < gsz)
		return false;
	m->backwards = backwards;
	m->present[0] = gsz == 64 ? UINT64_MAX : (1ull << gsz) - 1;
	m->all = true;
	return true;
}

/* Match every entry to its member by id (never by position), caching the
 * ids and events seen at each position, and say whether the stream's next
 * sample may take the short way. */
static void match_by_id(struct tdr_parser *p, struct stream *s, const struct dec_rec *r,
			size_t gsz, struct match *m)
{
	const struct ev_info *evs = p->dec.ev;
	const struct ev_info *e = &evs[r->ev];
	const struct tdr_sample_read *rd = &r->sample.read;
	size_t j;

	for (j = 0; j < rd->nr; j++) {
		const uint8_t *en = rd->group ? rd->ent + j * rd->stride : NULL;
		uint64_t v = en ? ld64(en) : rd->value;
		uint64_t evi;
		uint32_t slot;

		if (rd->has_id) {
			uint64_t id = en ? ld64(en + TDR_READ_ENTRY_ID) : rd->id;

			if (j < gsz && m->cid[j] == id && m->cev[j] < p->meta.event_cnt) {
				evi = m->cev[j];
			} else {
				uint32_t ev = tdr_u64map__get(&p->dec.ids, id);

				if (ev == TDR_HMAP_NONE || evs[ev].group_first != e->group_first) {
					p->stats.unknown_ids++;
					continue;
				}
				evi = ev;
				if (j < gsz) {
					m->cid[j] = id;
					m->cev[j] = ev;
				}
			}
		} else if (rd->group) {
			if (j >= gsz)
				break;
			evi = e->group_first + j;
		} else {
			evi = (uint64_t)r->ev;
		}
		slot = evs[evi].slot;
		if (present_at(m, slot))
			continue; /* a duplicate id: keep the first */
		m->present[slot / 64] |= 1ull << (slot % 64);
		p->cur[slot] = v;
		p->cur_ev[slot] = (uint32_t)evi;
		if (v < m->prev[slot])
			m->backwards = true;
	}
	s->in_order = rd->group && rd->has_id && rd->nr == gsz && gsz <= 64;
	for (j = 0; s->in_order && j < gsz; j++)
		s->in_order = m->cev[j] < p->meta.event_cnt && evs[m->cev[j]].slot == j &&
			      present_at(m, j) && p->cur_ev[j] == m->cev[j] &&
			      m->cid[j] == ld64(rd->ent + j * rd->stride + TDR_READ_ENTRY_ID);
}

/* Why the stream re-bases at this sample (TDR_REBASE_*), or -1. Only a
 * stream seen before can: its first sample has nothing to differ from. */
static int rebase_reason(const struct stream_tab *t, const struct stream *s, uint32_t ring,
			 const struct tdr_sample_read *rd, bool backwards)
{
	uint64_t ls = s->lost_seq;

	if (ring_seq(t, s->ring) > ls || ring_seq(t, ring) > ls || t->lost_any_seq > ls)
		return TDR_REBASE_LOST;
	if (s->pending & (1u << TDR_REBASE_THROTTLE))
		return TDR_REBASE_THROTTLE;
	if (backwards || (rd->has_running && rd->time_running < s->time_running))
		return TDR_REBASE_BACKWARDS;
	if (rd->has_running && rd->time_running == s->time_running)
		return TDR_REBASE_NOT_RUNNING;
	return -1;
}

/*
 * Plausibility: no counter of a CPU core moves faster than MAX_PER_NS events
 * per nanosecond (8-wide slots at 6 GHz are 48), a clock event (cpu-clock,
 * task-clock: nanoseconds) not faster than time, and no group counts on
 * more CPUs at once than the machine has. Over the time since the stream's
 * previous sample (its first: since the recording started, or the first
 * sample of the file when that is not known) plus SLACK_NS, a larger delta
 * is a damaged value. Coarse on purpose: it never rejects a sound file, and
 * catches the flipped high bits that turned 0.5 s into 72 million s of CPU.
 */
#define MAX_PER_NS 64u
#define SLACK_NS 10000000000ull
#define MAX_CPUS 8192u

static uint64_t sat_mul(uint64_t a, uint64_t b)
{
	uint64_t r;

	return __builtin_mul_overflow(a, b, &r) ? UINT64_MAX : r;
}

/* The largest delta a member may have: lim[0] for any counter, lim[1] for
 * a clock (cpu-clock, task-clock count ns); UINT64_MAX without a clock
 * to compare with. */
static void plausible_limits(const struct tdr_parser *p, const struct stream *s, bool first,
			     const struct dec_rec *r, uint64_t lim[2])
{
	const struct stream_tab *t = &p->streams;
	uint32_t cpus = p->meta.nr_cpus;
	uint64_t now = r->sid.time, since, room;

	if (!(r->sid.have & DEC_HAVE_TIME)) {
		lim[0] = lim[1] = UINT64_MAX;
		return;
	}
	if (!first)
		since = s->have_time ? s->time_ns : now;
	else
		since = t->have_origin ? t->origin_ns : now;
	if (first && p->meta.start_clock_ns && p->meta.start_clock_ns < since)
		since = p->meta.start_clock_ns;
	room = (now > since ? now - since : 0);
	room = room > UINT64_MAX - SLACK_NS ? UINT64_MAX : room + SLACK_NS;
	room = sat_mul(room, cpus && cpus <= MAX_CPUS ? cpus : MAX_CPUS);
	lim[0] = sat_mul(room, MAX_PER_NS);
	lim[1] = room;
}

static bool plausible(const struct tdr_parser *p, const struct stream *s, bool first,
		      const struct dec_rec *r, size_t gsz, const struct match *m)
{
	uint64_t lim[2];

	plausible_limits(p, s, first, r, lim);
	for (size_t j = 0; j < gsz; j++) {
		uint32_t ev = p->cur_ev[j];

		if (!present_at(m, j) || ev >= p->meta.event_cnt)
			continue;
		if (p->cur[j] - m->prev[j] > lim[p->ev_clock[ev]])
			return false;
	}
	return true;
}

/* The short way's end (every member, in order, no re-base so far): the
 * deltas, their plausibility and the new baseline in one pass. Returns
 * whether the deltas are plausible; the baseline is the sample's values
 * either way (as after a re-base). */
static bool take_all_deltas(struct tdr_parser *p, const struct stream *s, bool first,
			    const struct dec_rec *r, size_t gsz, struct match *m)
{
	const uint64_t *cur = p->cur;
	const uint32_t *cur_ev = p->cur_ev;
	const uint8_t *clk = p->ev_clock;
	uint64_t *deltas = p->deltas, *prev = m->prev, lim[2];
	bool ok = true;

	plausible_limits(p, s, first, r, lim);
	/* Not needed when the group holds every event (a plain loop, as in
	 * take_deltas). */
	if (gsz != p->meta.event_cnt)
		for (size_t j = 0; j < p->meta.event_cnt; j++)
			deltas[j] = 0;
	for (size_t j = 0; j < gsz; j++) {
		uint64_t d = cur[j] - prev[j];

		ok &= d <= lim[clk[cur_ev[j]]];
		deltas[cur_ev[j]] = d;
		prev[j] = cur[j];
	}
	return ok;
}

/* p->deltas from the matched values of the members present; they become
 * the stream's previous. */
static void take_deltas(struct tdr_parser *p, size_t gsz, struct match *m)
{
	size_t j;

	/* A plain loop: a memset of a size known only at run time became a
	 * slow 'rep stos' here (per-sample profile). */
	for (j = 0; j < p->meta.event_cnt; j++)
		p->deltas[j] = 0;
	for (j = 0; j < gsz; j++) {
		if (!present_at(m, j))
			continue;
		p->deltas[p->cur_ev[j]] = p->cur[j] - m->prev[j];
		m->prev[j] = p->cur[j];
	}
}

int tdr_parser_streams_sample(struct tdr_parser *p, uint32_t ring, const struct dec_rec *r,
			      bool *first)
{
	struct stream_tab *t = &p->streams;
	const struct ev_info *evs = p->dec.ev;
	const struct tdr_sample_read *rd = &r->sample.read;
	size_t gsz = evs[r->ev].group_sz, j;
	struct match m = {0};
	struct stream *s;
	int reason = -1;
	bool taken; /* take_all_deltas did the deltas and the baseline */
	long idx;

	*first = false;
	if (!r->sample.has_read)
		return plain_sample(p, r);
	if (gsz > TDR_MAX_GROUP)
		return 0; /* refused at setup: such events never get here */
	idx = stream_of(p, ring, r, gsz, first);
	if (idx < 0)
		return (int)idx;
	s = &t->s[idx];
	if (evs[s->ev].group_first != evs[r->ev].group_first) {
		/* The same id now names another group: corrupt input. */
		p->stats.unknown_ids++;
		return 0;
	}
	m.prev = t->pool + s->pool_off;
	m.cid = m.prev + gsz;
	m.cev = m.cid + gsz;
	if (!(s->in_order && rd->group && rd->has_id && rd->nr == gsz && gsz <= 64 &&
	      match_in_order(p, rd, gsz, &m)))
		match_by_id(p, s, r, gsz, &m);

	if (!*first)
		reason = rebase_reason(t, s, ring, rd, m.backwards);
	if (rd->has_enabled && rd->has_running && rd->time_running < rd->time_enabled &&
	    tdr_u64map__get(&p->id_everywhere, s->id) != TDR_HMAP_NONE)
		p->stats.multiplexed_samples++;
	taken = reason < 0 && !m.backwards && m.all;
	if (reason < 0 && !m.backwards &&
	    !(taken ? take_all_deltas(p, s, *first, r, gsz, &m)
		    : plausible(p, s, *first, r, gsz, &m))) {
		p->stats.implausible_samples++;
		reason = TDR_REBASE_REASON_CNT; /* re-based, counted above */
	}
	s->pending = 0;
	s->ring = ring;
	s->lost_seq = t->lost_seq;
	s->time_enabled = rd->time_enabled;
	s->time_running = rd->time_running;
	if (r->sid.have & DEC_HAVE_TIME) {
		s->time_ns = r->sid.time;
		s->have_time = true;
		if (!t->have_origin || r->sid.time < t->origin_ns) {
			t->origin_ns = r->sid.time;
			t->have_origin = true;
		}
	}

	if (reason >= 0) {
		if (reason < TDR_REBASE_REASON_CNT)
			p->stats.rebases[reason]++;
		for (j = 0; j < gsz; j++)
			if (m.all || present_at(&m, j))
				m.prev[j] = p->cur[j];
		return 0;
	}
	if (!taken)
		take_deltas(p, gsz, &m);
	if (*first)
		p->stats.first_samples++;
	return 1;
}
