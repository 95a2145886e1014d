/*
 * tests/parser/test_fastpath.c - the decoder's short way against its general way.
 *
 * Samples of the layout tdrec records (IDENTIFIER, IP, TID, TIME, CPU,
 * PERIOD and a group READ) are read at their fixed offsets after one size
 * check (parser/decode.c decode_fast); every other sample, and every such
 * sample whose size does not add up, goes field by field. Both ways must
 * give the same decoded record, field for field, and the same result: for
 * the group read with and without times, ids and lost counts, for layouts
 * that must not take the short way (ID instead of IDENTIFIER, a callchain,
 * a user stack copy, an LBR call stack, the non-group read), and for each
 * such record cut at every size, grown past its fields, with its entry
 * count changed, or with an id no event has. The end-to-end test decodes
 * .tdr files written with frame codec 1 and 2 both ways and compares every
 * sample the parser delivers.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "parser/parser_fixture.h"
#include "parser_int.h"
#include "tdrec/format.h"
#include "tdrec/tdr_mem.h"

#define FAST_ST                                                                                    \
	(PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |            \
	 PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD | PERF_SAMPLE_READ)

static void assert_same(const struct dec_rec *a, int ra, const struct dec_rec *b, int rb)
{
	const struct tdr_sample_rec *x = &a->sample, *y = &b->sample;

	assert_int_equal(ra, rb);
	assert_int_equal(a->type, b->type);
	assert_int_equal(a->misc, b->misc);
	assert_int_equal(a->ev, b->ev);
	assert_int_equal(a->unknown_id, b->unknown_id);
	assert_int_equal(a->sid.have, b->sid.have);
	assert_int_equal(a->sid.pid, b->sid.pid);
	assert_int_equal(a->sid.tid, b->sid.tid);
	assert_int_equal(a->sid.time, b->sid.time);
	assert_int_equal(a->sid.id, b->sid.id);
	assert_int_equal(a->sid.stream_id, b->sid.stream_id);
	assert_int_equal(a->sid.cpu, b->sid.cpu);
	assert_int_equal(x->ip, y->ip);
	assert_int_equal(x->addr, y->addr);
	assert_int_equal(x->period, y->period);
	assert_int_equal(x->has_ip, y->has_ip);
	assert_int_equal(x->has_period, y->has_period);
	assert_int_equal(x->has_read, y->has_read);
	assert_int_equal(x->read.group, y->read.group);
	assert_int_equal(x->read.has_id, y->read.has_id);
	assert_int_equal(x->read.has_enabled, y->read.has_enabled);
	assert_int_equal(x->read.has_running, y->read.has_running);
	assert_int_equal(x->read.nr, y->read.nr);
	assert_int_equal(x->read.time_enabled, y->read.time_enabled);
	assert_int_equal(x->read.time_running, y->read.time_running);
	assert_ptr_equal(x->read.ent, y->read.ent);
	assert_int_equal(x->read.stride, y->read.stride);
	assert_int_equal(x->read.value, y->read.value);
	assert_int_equal(x->read.id, y->read.id);
	assert_int_equal(x->callchain_nr, y->callchain_nr);
	assert_ptr_equal(x->callchain, y->callchain);
	assert_ptr_equal(x->tail, y->tail);
	assert_int_equal(b->user.branch_nr, a->user.branch_nr);
	assert_ptr_equal(b->user.stack, a->user.stack);
	assert_int_equal(b->user.stack_sz, a->user.stack_sz);
}

/* Decode h both ways; returns the result. */
static int both_ways(const struct tdr_decoder *fast, const struct tdr_decoder *gen,
		     const struct perf_event_header *h, struct dec_rec *out)
{
	struct dec_rec a, b;
	int ra, rb;

	memset(&a, 0, sizeof(a));
	memset(&b, 0, sizeof(b));
	ra = tdr_decoder__decode(fast, h, &a);
	rb = tdr_decoder__decode(gen, h, &b);
	assert_same(&a, ra, &b, rb);
	if (out)
		*out = a;
	return ra;
}

/* Room after the record: sizes past its fields stay inside the buffer. */
#define SLACK 64
#define TAIL_MAX 256

static size_t put64(uint8_t *p, uint64_t v)
{
	memcpy(p, &v, 8);
	return 8;
}

/* The fields after RAW that synth_sample does not write, in the kernel's
 * order (uapi PERF_RECORD_SAMPLE): two LBR entries, the user registers of
 * a's mask, a 16-byte stack copy of which 12 bytes hold data. Returns the
 * bytes written at p (at most TAIL_MAX). */
static size_t put_tail(const struct perf_event_attr *a, uint8_t *p)
{
	size_t n = 0;

	if (a->sample_type & PERF_SAMPLE_BRANCH_STACK) {
		n += put64(p + n, 2);
		if (a->branch_sample_type & PERF_SAMPLE_BRANCH_HW_INDEX)
			n += put64(p + n, 0);
		for (uint64_t i = 0; i < 2; i++) {
			n += put64(p + n, 0x401010 + 0x1000 * i); /* from */
			n += put64(p + n, 0x401000 + 0x1000 * i); /* to */
			n += put64(p + n, 0);			   /* flags */
		}
	}
	if (a->sample_type & PERF_SAMPLE_REGS_USER) {
		n += put64(p + n, PERF_SAMPLE_REGS_ABI_64);
		for (int i = 0; i < __builtin_popcountll(a->sample_regs_user); i++)
			n += put64(p + n, 0x7ff000 + 0x100 * (uint64_t)i);
	}
	if (a->sample_type & PERF_SAMPLE_STACK_USER) {
		n += put64(p + n, 16);
		for (int i = 0; i < 16; i++)
			p[n++] = (uint8_t)(0xa0 + i);
		n += put64(p + n, 12);
	}
	return n;
}

/* A two-member group of layout (st, rf, branch type, regs): samples with
 * 0..3 entries, each cut, grown, re-counted and re-identified. Returns how
 * many records decoded cleanly. */
static unsigned check_layout(uint64_t st, uint64_t rf, uint64_t branch, uint64_t regs,
			     bool want_fast)
{
	struct tdr_meta meta = {0};
	struct perf_event_attr a = {0};
	struct tdr_decoder fast, gen;
	uint64_t ids[3] = {100, 101, 102}, vals[3] = {5000, 700, 9}, lost[3] = {0, 3, 0};
	uint64_t cc[3] = {PERF_CONTEXT_USER, 0x401000, 0x402000};
	unsigned ok = 0;

	a.size = sizeof(a);
	a.type = PERF_TYPE_SOFTWARE;
	a.sample_period = 1000;
	a.sample_type = st;
	a.read_format = rf;
	a.branch_sample_type = branch;
	a.sample_regs_user = regs;
	a.sample_id_all = 1;
	synth_meta_add_event(&meta, "a", &a, TDR_EVENT_LEADER | TDR_EVENT_SAMPLER, 0, &ids[0], NULL,
			     10, 1);
	synth_meta_add_event(&meta, "b", &a, 0, (rf & PERF_FORMAT_GROUP) ? 0 : 1, &ids[1], NULL, 10,
			     1);
	assert_int_equal(tdr_decoder__init(&fast, &meta), 0);
	assert_int_equal(tdr_decoder__init(&gen, &meta), 0);
	gen.no_fast = true;
	assert_int_equal(fast.ev[0].fast, want_fast);

	for (size_t nr = 0; nr <= 3; nr++) {
		struct synth_buf b = {0};
		struct synth_sample s = {0};
		struct perf_event_header *h;
		struct dec_rec r;
		uint8_t *rec;
		uint16_t full;
		size_t off;

		if (!(rf & PERF_FORMAT_GROUP) && nr != 1)
			continue; /* the non-group form has one value */
		s.sid = (struct synth_sid){.pid = 10, .tid = 11, .time = 123456789, .id = 100,
					   .cpu = 1};
		s.ip = 0x401000;
		s.period = 1000;
		s.time_enabled = 900;
		s.time_running = 800;
		s.nr = nr;
		s.values = vals;
		s.ids = ids;
		s.lost = lost;
		s.callchain_nr = 3;
		s.callchain = cc;
		off = synth_sample(&b, &a, &s);
		full = ((struct perf_event_header *)(b.data + off))->size;
		rec = tdr_calloc(1, (size_t)full + TAIL_MAX + SLACK);
		assert_non_null(rec);
		memcpy(rec, b.data + off, full);
		full = (uint16_t)(full + put_tail(&a, rec + full));
		h = (struct perf_event_header *)rec;
		h->size = full;

		/* whole: decodes, and the short way reads what was written */
		assert_int_equal(both_ways(&fast, &gen, h, &r), 0);
		assert_int_equal(r.ev, 0);
		assert_int_equal(r.sample.ip, 0x401000);
		assert_int_equal(r.sid.time, 123456789);
		assert_int_equal(r.sid.tid, 11);
		if (rf & PERF_FORMAT_GROUP)
			assert_int_equal(r.sample.read.nr, nr);
		ok++;
		/* cut at every size, and grown past its fields (zeros) */
		for (uint16_t sz = 0; sz <= full + SLACK - 8; sz += 8) {
			h->size = sz;
			ok += both_ways(&fast, &gen, h, NULL) == 0;
		}
		h->size = full;
		/* an entry count that disagrees with the size, at the READ's place */
		if ((rf & PERF_FORMAT_GROUP) && fast.ev[0].sl.read >= 0) {
			static const uint64_t bad[] = {0, 1, 2, 3, 4, UINT64_MAX, 1ull << 61};
			uint8_t *nrp = rec + 8 + fast.ev[0].sl.read;

			for (size_t i = 0; i < TDR_ARRAY_SIZE(bad); i++) {
				memcpy(nrp, &bad[i], 8);
				ok += both_ways(&fast, &gen, h, NULL) == 0;
			}
			memcpy(nrp, &nr, 8);
		}
		/* the id of the group's other member, then an id no event has */
		if (st & PERF_SAMPLE_IDENTIFIER) {
			memcpy(rec + 8, &ids[1], 8);
			ok += both_ways(&fast, &gen, h, &r) == 0;
			assert_int_equal(r.ev, 1);
			memcpy(rec + 8, &(uint64_t){4242}, 8);
			ok += both_ways(&fast, &gen, h, &r) == 0;
			assert_true(r.unknown_id);
		}
		free(rec);
		synth_buf_release(&b);
	}
	tdr_decoder__fini(&fast);
	tdr_decoder__fini(&gen);
	tdr_meta__clear(&meta);
	return ok;
}

static void test_fastpath__decoder_both_ways(void **state)
{
	static const uint64_t group_forms[] = {
	    PERF_FORMAT_GROUP | PERF_FORMAT_ID | PERF_FORMAT_TOTAL_TIME_ENABLED |
		PERF_FORMAT_TOTAL_TIME_RUNNING,
	    PERF_FORMAT_GROUP | PERF_FORMAT_ID | PERF_FORMAT_TOTAL_TIME_ENABLED |
		PERF_FORMAT_TOTAL_TIME_RUNNING | PERF_FORMAT_LOST,
	    PERF_FORMAT_GROUP | PERF_FORMAT_ID,
	    PERF_FORMAT_GROUP | PERF_FORMAT_ID | PERF_FORMAT_LOST,
	    PERF_FORMAT_GROUP,
	    PERF_FORMAT_GROUP | PERF_FORMAT_TOTAL_TIME_ENABLED,
	    PERF_FORMAT_GROUP | PERF_FORMAT_TOTAL_TIME_RUNNING | PERF_FORMAT_LOST,
	};
	uint64_t rf0 = group_forms[0];

	(void)state;
	for (size_t i = 0; i < TDR_ARRAY_SIZE(group_forms); i++)
		assert_true(check_layout(FAST_ST, group_forms[i], 0, 0, true) > 4);
	/* Layouts the short way must leave alone. */
	assert_true(check_layout((FAST_ST & ~PERF_SAMPLE_IDENTIFIER) | PERF_SAMPLE_ID, rf0, 0, 0,
				 false) > 4);
	assert_true(check_layout(FAST_ST | PERF_SAMPLE_CALLCHAIN, rf0, 0, 0, false) > 4);
	assert_true(check_layout(FAST_ST | PERF_SAMPLE_ADDR, rf0, 0, 0, false) > 4);
	assert_true(check_layout(FAST_ST | PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_REGS_USER |
				     PERF_SAMPLE_STACK_USER,
				 rf0, 0, 0x3, false) > 4);
	assert_true(check_layout(FAST_ST | PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_BRANCH_STACK, rf0,
				 PERF_SAMPLE_BRANCH_USER | PERF_SAMPLE_BRANCH_CALL_STACK, 0,
				 false) > 4);
	assert_true(check_layout(FAST_ST, PERF_FORMAT_ID | PERF_FORMAT_TOTAL_TIME_ENABLED |
					      PERF_FORMAT_TOTAL_TIME_RUNNING,
				 0, 0, false) > 0);
}

/* ---------------------------------------------------------------------------
 * End to end: a .tdr file of each frame codec, parsed both ways.
 */
#define E2E_MAX 2048

struct cap {
	size_t n;
	struct {
		uint64_t time, ip, period, map_off, d[6];
		uint32_t pid, tid, cpu, sampler;
		int cpumode;
		bool first;
		const char *comm;
	} s[E2E_MAX];
};

static int cap_cb(const struct tdr_sample *s, void *ctx)
{
	struct cap *c = ctx;

	if (c->n == E2E_MAX)
		return -1;
	c->s[c->n].time = s->time_ns;
	c->s[c->n].ip = s->ip;
	c->s[c->n].period = s->period;
	c->s[c->n].map_off = s->map_off;
	memcpy(c->s[c->n].d, s->deltas, sizeof(c->s[c->n].d));
	c->s[c->n].pid = s->pid;
	c->s[c->n].tid = s->tid;
	c->s[c->n].cpu = s->cpu;
	c->s[c->n].sampler = s->sampler_idx;
	c->s[c->n].cpumode = (int)s->cpumode;
	c->s[c->n].first = s->first_in_stream;
	c->s[c->n].comm = s->comm;
	c->n++;
	return 0;
}

/*
 * Six frames on two rings of 3 threads' L1 samples whose times interleave
 * across the rings, after a synthetic frame of mmap and comms; in between,
 * what changes the parser's course: a LOST record, a THROTTLE/UNTHROTTLE
 * pair, a sample whose time running lags its time enabled, a sample whose
 * entry count disagrees with its size, one with an id no event has.
 */
static void write_e2e(const char *path, uint8_t codec)
{
	struct fx *f = fx_new(6, TDR_META_INHERIT, true);
	struct tdr_writer_opts o = {.path = path, .codec = codec};
	struct tdr_writer *w;
	struct synth_buf b = {0};
	struct synth_sid sid = fx_sid(0, 11, 1);
	uint64_t cnt[2][3][6] = {{{0}}};

	f->meta.plan_name = strdup("topdown-l1");
	assert_int_equal(tdr_writer__open(&o, &f->meta, &w), 0);
	synth_mmap(&b, &f->attr, false, 0, FX_PID, 11, 0x400000, 0x10000, 0, "/usr/bin/app", NULL,
		   0, &sid);
	for (uint32_t k = 0; k < 3; k++)
		synth_comm(&b, &f->attr, FX_PID, 11 + k, k ? "worker" : "app", false, &sid);
	assert_int_equal(tdr_writer__add_frame(w, TDR_RING_SYNTHETIC, b.data, b.sz), 0);
	for (unsigned fr = 0; fr < 6; fr++) {
		unsigned ring = fr % 2;

		synth_buf_reset(&b);
		for (unsigned i = 0; i < 120; i++) {
			uint32_t k = (i * 7 + fr) % 3;
			uint64_t t = 1000000ull * (fr / 2 + 1) + 20ull * i + 10ull * ring;
			uint64_t ip = 0x401000 + 0x40ull * ((i * 5 + fr) % 9), *v = cnt[ring][k];
			size_t off;

			for (size_t j = 0; j < 6; j++)
				v[j] += 1 + (i * 37 + j * 11 + fr) % 500;
			off = fx_synth_sample(f, &b, ring, 11 + k, t, ip, v, NULL, t,
					      i == 30 ? t - 5 : 0);
			if (fr == 3 && i == 40) /* nr 5 in a 6-entry record */
				memcpy(b.data + off + 8 + 48, &(uint64_t){5}, 8);
			if (fr == 4 && i == 41) /* an id no event has */
				memcpy(b.data + off + 8, &(uint64_t){9999}, 8);
			if (fr == 2 && i == 50) {
				sid = fx_sid(ring, 11 + k, t);
				synth_lost(&b, &f->attr, fx_id(ring, 1), 3, &sid);
			}
			if (fr == 5 && i == 60) {
				sid = fx_sid(ring, 11 + k, t);
				synth_throttle(&b, &f->attr, false, t, fx_id(ring, 1), 0, &sid);
				synth_throttle(&b, &f->attr, true, t, fx_id(ring, 1), 0, &sid);
			}
		}
		assert_int_equal(tdr_writer__add_frame(w, ring, b.data, b.sz), 0);
	}
	assert_int_equal(tdr_writer__finish(w, NULL, 0, NULL), 0);
	tdr_writer__free(w);
	synth_buf_release(&b);
	fx_free(f);
}

static void run_e2e(const char *path, bool no_fast, struct cap *c, struct tdr_parse_stats *st)
{
	struct tdr_parser *p;

	assert_int_equal(tdr_parser__open(path, &p), 0);
	p->dec.no_fast = no_fast;
	c->n = 0;
	assert_int_equal(tdr_parser__run(p, cap_cb, c), 0);
	*st = *tdr_parser__stats(p);
	/* comm strings live in the parser: compare them before it goes */
	for (size_t i = 0; i < c->n; i++)
		c->s[i].comm = strcmp(c->s[i].comm, "app") ? "worker" : "app";
	tdr_parser__free(p);
}

static void test_fastpath__files_of_every_codec_both_ways(void **state)
{
	static const uint8_t codecs[] = {TDR_CODEC_RAW_ZSTD, TDR_CODEC_COLUMNS, TDR_CODEC_CHAINED};
	char dir[64], path[128];
	struct cap *fast = calloc(1, sizeof(*fast)), *gen = calloc(1, sizeof(*gen));
	struct tdr_parse_stats sf, sg;

	(void)state;
	assert_non_null(fast);
	assert_non_null(gen);
	snprintf(dir, sizeof(dir), "/tmp/tdr-fastpath-XXXXXX");
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/t.tdr", dir);
	for (size_t ci = 0; ci < TDR_ARRAY_SIZE(codecs); ci++) {
		write_e2e(path, codecs[ci]);
		run_e2e(path, false, fast, &sf);
		run_e2e(path, true, gen, &sg);
		assert_int_equal(fast->n, gen->n);
		for (size_t i = 0; i < fast->n; i++) {
			assert_int_equal(fast->s[i].time, gen->s[i].time);
			assert_int_equal(fast->s[i].ip, gen->s[i].ip);
			assert_int_equal(fast->s[i].period, gen->s[i].period);
			assert_int_equal(fast->s[i].map_off, gen->s[i].map_off);
			assert_memory_equal(fast->s[i].d, gen->s[i].d, sizeof(fast->s[i].d));
			assert_int_equal(fast->s[i].pid, gen->s[i].pid);
			assert_int_equal(fast->s[i].tid, gen->s[i].tid);
			assert_int_equal(fast->s[i].cpu, gen->s[i].cpu);
			assert_int_equal(fast->s[i].sampler, gen->s[i].sampler);
			assert_int_equal(fast->s[i].cpumode, gen->s[i].cpumode);
			assert_int_equal(fast->s[i].first, gen->s[i].first);
			assert_string_equal(fast->s[i].comm, gen->s[i].comm);
		}
		assert_int_equal(sf.records, sg.records);
		assert_int_equal(sf.samples, sg.samples);
		assert_int_equal(sf.samples_delivered, sg.samples_delivered);
		assert_int_equal(sf.malformed_records, sg.malformed_records);
		assert_int_equal(sf.unknown_ids, sg.unknown_ids);
		assert_int_equal(sf.first_samples, sg.first_samples);
		assert_int_equal(sf.implausible_samples, sg.implausible_samples);
		assert_int_equal(sf.multiplexed_samples, sg.multiplexed_samples);
		assert_int_equal(sf.streams, sg.streams);
		assert_memory_equal(sf.rebases, sg.rebases, sizeof(sf.rebases));
		/* what was put in the file happened: of 720 samples one cut
		 * (malformed, not counted as a sample), one unknown, six
		 * streams (3 threads on 2 CPUs), re-bases */
		assert_int_equal(sf.samples, 719);
		assert_int_equal(sf.malformed_records, 1);
		assert_int_equal(sf.unknown_ids, 1);
		assert_int_equal(sf.streams, 6);
		assert_true(sf.rebases[TDR_REBASE_LOST] >= 1);
		assert_true(sf.rebases[TDR_REBASE_THROTTLE] >= 1);
		assert_true(fast->n > 650);
		unlink(path);
	}
	rmdir(dir);
	free(fast);
	free(gen);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_fastpath__decoder_both_ways),
	    cmocka_unit_test(test_fastpath__files_of_every_codec_both_ways),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
