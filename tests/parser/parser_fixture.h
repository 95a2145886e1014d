/*
 * tests/parser/parser_fixture.h - a synthetic TopDown recording for parser tests.
 *
 * Builds a meta with one sampling-read group ({slots, cycles, topdown-*}: the
 * level-1 six or the level-1+2 ten events), ids per CPU for two CPUs
 * (cpu0: 100+i, cpu1: 200+i, task events of pid 10), feeds samples written by
 * tests/support/synth, and sums the delivered deltas per IP.
 */
#ifndef TDREC_TESTS_PARSER_FIXTURE_H
#define TDREC_TESTS_PARSER_FIXTURE_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "support/synth.h"
#include "tdrec/parser.h"

#define FX_NEV_MAX 10
#define FX_PID 10
#define FX_IP_A 0x401000ULL
#define FX_IP_B 0x402000ULL

struct fx_ipsum {
	uint64_t ip;
	uint64_t sum[FX_NEV_MAX];
	unsigned n;
};

struct fx {
	struct tdr_meta meta;
	struct perf_event_attr attr; /* the sampler's attr */
	struct tdr_parser *p;
	struct synth_buf b;
	size_t nev;
	struct fx_ipsum ips[16];
	size_t ip_cnt;
	unsigned delivered, firsts;
	uint64_t last_time;
	const char *last_map_path;
	uint64_t last_map_off;
	const char *last_comm;
};

static const char *const fx_names[FX_NEV_MAX] = {
	"slots",	    "cycles",		  "topdown-retiring", "topdown-bad-spec",
	"topdown-fe-bound", "topdown-be-bound",	  "topdown-heavy-ops", "topdown-br-mispredict",
	"topdown-fetch-lat", "topdown-mem-bound",
};

static inline uint64_t fx_id(unsigned cpu, size_t ev)
{
	return 100u * (cpu + 1) + ev;
}

/* A group of nev events named names[], leading with names[0]; the one at
 * sampler samples (the leader itself for generic-counter families, the
 * second for slots-led ones). meta_flags: TDR_META_*; cpu_ids: ids opened
 * per CPU (else cpu -1). */
static inline struct fx *fx_new_events(const char *const *names, size_t nev, size_t sampler,
				       uint32_t meta_flags, bool cpu_ids)
{
	struct fx *f = calloc(1, sizeof(*f));
	size_t i;

	f->nev = nev;
	synth_attr_group(&f->attr, 100000);
	f->meta.flags = meta_flags;
	for (i = 0; i < nev; i++) {
		struct perf_event_attr a = f->attr;
		uint64_t ids[2] = { fx_id(0, i), fx_id(1, i) };
		uint32_t cpus[2] = { 0, 1 };
		uint32_t flags = (i == 0 ? TDR_EVENT_LEADER : 0) | (i == sampler ? TDR_EVENT_SAMPLER : 0);

		a.sample_period = i == sampler ? 100000 : 0;
		synth_meta_add_event(&f->meta, names[i], &a, flags, 0, ids, cpu_ids ? cpus : NULL,
				     (meta_flags & TDR_META_SYSTEM_WIDE) ? UINT32_MAX : FX_PID, 2);
	}
	if (tdr_parser__new(&f->meta, &f->p))
		abort();
	return f;
}

/* The Intel perf-metrics group {slots, cycles, topdown-*} of nev events. */
static inline struct fx *fx_new(size_t nev, uint32_t meta_flags, bool cpu_ids)
{
	return fx_new_events(fx_names, nev, 1, meta_flags, cpu_ids);
}

static inline void fx_free(struct fx *f)
{
	tdr_parser__free(f->p);
	tdr_meta__clear(&f->meta);
	synth_buf_release(&f->b);
	free(f);
}

static inline int fx_cb(const struct tdr_sample *s, void *ctx)
{
	struct fx *f = ctx;
	size_t i, j;

	for (i = 0; i < f->ip_cnt && f->ips[i].ip != s->ip; i++)
		;
	if (i == f->ip_cnt) {
		f->ips[i].ip = s->ip;
		f->ip_cnt++;
	}
	for (j = 0; j < f->nev; j++)
		f->ips[i].sum[j] += s->deltas[j];
	f->ips[i].n++;
	f->delivered++;
	f->firsts += s->first_in_stream;
	f->last_time = s->time_ns;
	f->last_map_path = s->map ? s->map->path : NULL;
	f->last_map_off = s->map_off;
	f->last_comm = s->comm;
	return 0;
}

static inline const struct fx_ipsum *fx_ip(const struct fx *f, uint64_t ip)
{
	for (size_t i = 0; i < f->ip_cnt; i++)
		if (f->ips[i].ip == ip)
			return &f->ips[i];
	return NULL;
}

static inline int fx_feed_last(struct fx *f, uint32_t ring, size_t off)
{
	return tdr_parser__feed(f->p, ring, synth_rec(&f->b, off), fx_cb, f);
}

/* Append one group sample on cpu to b; returns its offset. order: entry
 * order as indexes into vals (NULL = group order). running 0 means
 * running = enabled = time. */
static inline size_t fx_synth_sample(struct fx *f, struct synth_buf *b, unsigned cpu, uint32_t tid,
				     uint64_t time, uint64_t ip, const uint64_t *vals,
				     const size_t *order, uint64_t enabled, uint64_t running)
{
	uint64_t v[FX_NEV_MAX], ids[FX_NEV_MAX];
	struct synth_sample s = { 0 };
	size_t i;

	for (i = 0; i < f->nev; i++) {
		size_t k = order ? order[i] : i;

		v[i] = vals[k];
		ids[i] = fx_id(cpu, k);
	}
	s.sid.pid = FX_PID;
	s.sid.tid = tid;
	s.sid.time = time;
	s.sid.id = fx_id(cpu, 1);
	s.sid.cpu = cpu;
	s.ip = ip;
	s.period = 100000;
	s.time_enabled = enabled ? enabled : time;
	s.time_running = running ? running : s.time_enabled;
	s.nr = f->nev;
	s.values = v;
	s.ids = ids;
	return synth_sample(b, &f->attr, &s);
}

/* The same, fed to the parser at once (cpu is also its ring). */
static inline int fx_sample_ex(struct fx *f, unsigned cpu, uint32_t tid, uint64_t time,
			       uint64_t ip, const uint64_t *vals, const size_t *order,
			       uint64_t enabled, uint64_t running)
{
	size_t off;

	synth_buf_reset(&f->b);
	off = fx_synth_sample(f, &f->b, cpu, tid, time, ip, vals, order, enabled, running);
	return fx_feed_last(f, cpu, off);
}

/* Append a sample of a six-event (level-1) fixture whose values follow from
 * slots: {slots, slots/4, slots/2, slots/8, slots/8, slots/4}. */
static inline void fx_add_l1_sample(struct fx *f, struct synth_buf *b, unsigned cpu, uint32_t tid,
				    uint64_t time, uint64_t ip, uint64_t slots)
{
	uint64_t v[6] = { slots, slots / 4, slots / 2, slots / 8, slots / 8, slots / 4 };

	if (f->nev != 6)
		abort(); /* a level-2 fixture needs all ten values */
	fx_synth_sample(f, b, cpu, tid, time, ip, v, NULL, 0, 0);
}

static inline int fx_sample(struct fx *f, unsigned cpu, uint32_t tid, uint64_t time, uint64_t ip,
			    const uint64_t *vals)
{
	return fx_sample_ex(f, cpu, tid, time, ip, vals, NULL, 0, 0);
}

static inline struct synth_sid fx_sid(unsigned cpu, uint32_t tid, uint64_t time)
{
	struct synth_sid sid = { .pid = FX_PID, .tid = tid, .time = time, .cpu = cpu };

	sid.id = fx_id(cpu, 1);
	return sid;
}

#endif /* TDREC_TESTS_PARSER_FIXTURE_H */
