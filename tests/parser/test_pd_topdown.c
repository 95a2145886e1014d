/*
 * tests/parser/test_pd_topdown.c - perf.data import of a TopDown recording.
 *
 * No machine here has a PMU, so the file perf record writes on a Sapphire
 * Rapids for
 *   perf record -e '{slots,cycles,topdown-retiring,topdown-bad-spec,
 *     topdown-fe-bound,topdown-be-bound,topdown-heavy-ops,
 *     topdown-br-mispredict,topdown-fetch-lat,topdown-mem-bound}:S' -c 100000
 * is built here byte for byte (tests/parser/pd_writer.c, records from
 * tests/support/synth.c): perf's sample layout (IP|TID|TIME|READ|ID,
 * read_format ID|GROUP|LOST, sample_id_all), inherited threads sharing the
 * per-CPU ids (kernel >= 6.12), perf's initial records synthesized with id 0,
 * its user records (ID_INDEX, THREAD_MAP, CPU_MAP, TIME_CONV, FINISHED_INIT),
 * and per-CPU buffers written one after the other inside a round. The same
 * records are checked plain, as -z (COMPRESSED and COMPRESSED2 chunks of one
 * zstd stream with records straddling chunks), with perf's PMU-qualified
 * event names, and as the file a killed perf record leaves (data.size 0, no
 * features, last record cut). Every expected number is computed by hand in
 * the comments (value order: slots, cycles, retiring, bad-spec, fe-bound,
 * be-bound, heavy-ops, br-mispredict, fetch-lat, mem-bound).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "parser/pd_writer.h"
#include "support/synth.h"
#include "tdrec/parser.h"
#include "tdrec/tdr_err.h"
#include "support/test_log.h"
#include "tdrec/tdr_log.h"

#define NEV 10
#define PID 10
#define IP_A 0x401100ULL
#define IP_B 0x402200ULL
#define IP_LIB 0x7f0000001234ULL
#define LIB "/usr/lib/libfoo.so"

static const char *const names[NEV] = {
    "slots",
    "cycles",
    "topdown-retiring",
    "topdown-bad-spec",
    "topdown-fe-bound",
    "topdown-be-bound",
    "topdown-heavy-ops",
    "topdown-br-mispredict",
    "topdown-fetch-lat",
    "topdown-mem-bound",
};
static const char *const core_names[NEV] = {
    "cpu_core/slots/",
    "cpu_core/cycles/",
    "cpu_core/topdown-retiring/",
    "cpu_core/topdown-bad-spec/",
    "cpu_core/topdown-fe-bound/",
    "cpu_core/topdown-be-bound/",
    "cpu_core/topdown-heavy-ops/",
    "cpu_core/topdown-br-mispredict/",
    "cpu_core/topdown-fetch-lat/",
    "cpu_core/topdown-mem-bound/",
};

struct ipsum {
	uint64_t ip, sum[NEV];
	unsigned n;
	const struct tdr_mapping *map;
	uint64_t map_off;
};

struct ctx {
	char dir[64], path[128];
	struct perf_event_attr attr[NEV];
	uint64_t ids[NEV][2]; /* cpu 0: 100 + i, cpu 1: 200 + i */
	struct pdw_event ev[NEV];
	struct synth_buf b;
	size_t last_rec; /* offset of the last record written */
	struct ipsum ips[8];
	size_t ip_cnt;
	unsigned delivered;
};

/* perf's attrs for the group: slots leads (disabled, counting), cycles
 * samples, the metrics count; every member reads the group. */
static void make_attrs(struct ctx *c)
{
	for (size_t i = 0; i < NEV; i++) {
		struct perf_event_attr *a = &c->attr[i];

		memset(a, 0, sizeof(*a));
		a->size = sizeof(*a);
		a->type = i == 1 ? PERF_TYPE_HARDWARE : PERF_TYPE_RAW;
		a->config = i == 0 ? 0x400 : i == 1 ? 0 : 0x8000 + 0x100 * (i - 2);
		a->sample_period = i == 1 ? 100000 : 0;
		a->sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
				 PERF_SAMPLE_READ | PERF_SAMPLE_ID;
		a->read_format = PERF_FORMAT_ID | PERF_FORMAT_GROUP | PERF_FORMAT_LOST;
		a->sample_id_all = 1;
		a->inherit = 1;
		a->disabled = i == 0;
		a->enable_on_exec = i == 0;
		a->mmap = a->comm = a->task = a->mmap2 = a->comm_exec = i == 0;
		c->ids[i][0] = 100 + i;
		c->ids[i][1] = 200 + i;
		c->ev[i].name = names[i];
		c->ev[i].attr = *a;
		c->ev[i].ids = c->ids[i];
		c->ev[i].id_cnt = 2;
	}
}

static struct synth_sid sid_of(unsigned cpu, uint32_t tid, uint64_t time, uint64_t id)
{
	struct synth_sid s = {.pid = PID, .tid = tid, .time = time, .id = id, .cpu = cpu};

	return s;
}

static void sample(struct ctx *c, unsigned cpu, uint32_t tid, uint64_t time, uint64_t ip,
		   const uint64_t *v)
{
	uint64_t ids[NEV];
	struct synth_sample s = {0};

	for (size_t i = 0; i < NEV; i++)
		ids[i] = c->ids[i][cpu];
	s.sid = sid_of(cpu, tid, time, c->ids[1][cpu]); /* the sampler's id */
	s.ip = ip;
	s.nr = NEV;
	s.values = v;
	s.ids = ids;
	c->last_rec = synth_sample(&c->b, &c->attr[1], &s);
}

static void user_record(struct ctx *c, uint32_t type, size_t payload_sz)
{
	uint8_t payload[256];

	assert_true(payload_sz <= sizeof(payload));
	memset(payload, 0x5a, sizeof(payload));
	synth_raw(&c->b, type, 0, payload, payload_sz);
}

/*
 * The records. Round 1 holds cpu 0's buffer, then cpu 1's (not in time
 * order across CPUs: the importer sorts a round by time). The library's
 * MMAP2 at t=250 sits in cpu 1's buffer, but cpu 0's sample at t=300 needs
 * it: only the sort gets IP_LIB mapped.
 *   thread 11, cpu 0: a1 t=100 IP_A, a2 t=300 IP_LIB, a3 t=500 IP_A
 *   thread 12, cpu 0: b1 t=350 IP_B, b2 t=450 IP_B; round 2: b3 t=600 IP_A
 *   thread 11, cpu 1: c1 t=200 IP_B, c2 t=400 IP_A
 */
static const uint64_t a1[] = {1000, 250, 400, 100, 300, 200, 150, 60, 120, 90};
static const uint64_t a2[] = {3000, 750, 1100, 300, 900, 700, 450, 160, 400, 330};
static const uint64_t a3[] = {4000, 1000, 1500, 400, 1200, 900, 600, 200, 500, 420};
static const uint64_t b1[] = {2000, 500, 200, 600, 700, 500, 100, 500, 300, 250};
static const uint64_t b2[] = {2550, 640, 300, 700, 850, 700, 130, 560, 350, 400};
static const uint64_t b3[] = {3000, 750, 400, 800, 950, 850, 160, 600, 400, 500};
static const uint64_t c1[] = {600, 150, 200, 100, 100, 200, 80, 50, 40, 120};
static const uint64_t c2[] = {1400, 350, 500, 150, 300, 450, 200, 70, 120, 300};

/* IP_A: a1 (first) + (a3 - a2) + (c2 - c1) + (b3 - b2)
 *     = a1 + {1000,250,400,100,300,200,150,40,100,90}
 *          + {800,200,300,50,200,250,120,20,80,180}
 *          + {450,110,100,100,100,150,30,40,50,100} */
static const uint64_t want_a[] = {3250, 810, 1200, 350, 900, 800, 450, 160, 350, 460};
/* IP_B: b1 (first) + (b2 - b1) + c1 (first) = b2 + c1 */
static const uint64_t want_b[] = {3150, 790, 500, 800, 950, 900, 210, 610, 390, 520};
/* IP_LIB: a2 - a1 */
static const uint64_t want_lib[] = {2000, 500, 700, 200, 600, 500, 300, 100, 280, 240};

static void build_records(struct ctx *c)
{
	const struct perf_event_attr *a = &c->attr[0];
	struct synth_sid none = {.pid = PID, .tid = PID}; /* perf's synthesized: id 0, time 0 */
	struct synth_sid s;

	/* perf's own records first */
	user_record(c, PDW_ID_INDEX, 8 + 4 * 32);
	user_record(c, PDW_THREAD_MAP, 32);
	user_record(c, PDW_CPU_MAP, 16);
	user_record(c, PDW_TIME_CONV, 56);
	synth_comm(&c->b, a, PID, PID, "perf-exec", false, &none);
	user_record(c, PDW_FINISHED_INIT, 0);
	/* round 1, cpu 0's buffer */
	s = sid_of(0, PID, 50, c->ids[0][0]);
	synth_comm(&c->b, a, PID, PID, "app", true, &s);
	s.time = 60;
	synth_mmap(&c->b, a, false, 0, PID, PID, 0x400000, 0x10000, 0, "/usr/bin/app", NULL, 0, &s);
	s.tid = 11;
	s.time = 70;
	synth_task(&c->b, a, false, PID, PID, 11, PID, 70, &s);
	s.tid = 12;
	s.time = 80;
	synth_task(&c->b, a, false, PID, PID, 12, PID, 80, &s);
	sample(c, 0, 11, 100, IP_A, a1);
	sample(c, 0, 11, 300, IP_LIB, a2);
	sample(c, 0, 12, 350, IP_B, b1);
	sample(c, 0, 12, 450, IP_B, b2);
	sample(c, 0, 11, 500, IP_A, a3);
	/* round 1, cpu 1's buffer */
	sample(c, 1, 11, 200, IP_B, c1);
	s = sid_of(1, 11, 250, c->ids[0][1]);
	synth_mmap(&c->b, a, false, 0, PID, 11, 0x7f0000000000, 0x20000, 0x1000, LIB, NULL, 0, &s);
	sample(c, 1, 11, 400, IP_A, c2);
	user_record(c, PDW_FINISHED_ROUND, 0);
	/* round 2 */
	sample(c, 0, 12, 600, IP_A, b3);
	user_record(c, PDW_FINISHED_ROUND, 0);
}

static const uint8_t lib_bid[20] = {0xde, 0xad, 0xbe, 0xef, 1, 2, 3, 4, 5, 6};

static void write_file(struct ctx *c, uint32_t compress, size_t chunk, enum pdw_cut cut,
		       size_t cut_tail, const char *const *ev_names, const char *cpuid)
{
	static const char *const argv[] = {"/usr/bin/perf", "record", "-e", "{slots,...}:S",
					   "./app"};
	struct pdw_group g = {NULL, 0, NEV};
	struct pdw_build_id bid = {LIB, {0}, 20};
	struct pdw_opts o = {0};

	memcpy(bid.id, lib_bid, sizeof(lib_bid));
	for (size_t i = 0; i < NEV; i++)
		c->ev[i].name = ev_names[i];
	o.ev = c->ev;
	o.ev_cnt = NEV;
	o.groups = &g;
	o.group_cnt = 1;
	o.hostname = "spr-box";
	o.osrelease = "6.12.0";
	o.version = "6.12.0";
	o.cpuid = cpuid;
	o.argv = argv;
	o.argc = 5;
	o.bids = &bid;
	o.bid_cnt = 1;
	o.compress = compress;
	o.chunk = chunk;
	o.cut = cut;
	o.cut_tail = cut_tail;
	pdw_write(c->path, &o, c->b.data, c->b.sz);
}

static int on_sample(const struct tdr_sample *s, void *arg)
{
	struct ctx *c = arg;
	size_t i;

	for (i = 0; i < c->ip_cnt && c->ips[i].ip != s->ip; i++)
		;
	if (i == c->ip_cnt) {
		assert_true(c->ip_cnt < 8);
		c->ips[c->ip_cnt++].ip = s->ip;
	}
	for (size_t j = 0; j < NEV; j++)
		c->ips[i].sum[j] += s->deltas[j];
	c->ips[i].n++;
	c->ips[i].map = s->map;
	c->ips[i].map_off = s->map_off;
	c->delivered++;
	return 0;
}

static const struct ipsum *ip_of(const struct ctx *c, uint64_t ip)
{
	for (size_t i = 0; i < c->ip_cnt; i++)
		if (c->ips[i].ip == ip)
			return &c->ips[i];
	fail_msg("no sample at %#llx", (unsigned long long)ip);
	return NULL;
}

static void assert_sum(const struct ctx *c, uint64_t ip, const uint64_t *want, unsigned n)
{
	const struct ipsum *s = ip_of(c, ip);

	assert_int_equal(s->n, n);
	for (size_t i = 0; i < NEV; i++)
		assert_int_equal(s->sum[i], want[i]);
}

static int category_level(const struct tdr_meta *m, const char *name)
{
	for (size_t i = 0; i < m->category_cnt; i++)
		if (!strcmp(m->categories[i].name, name))
			return (int)m->categories[i].level;
	return -1;
}

/* Open, run, and check the meta every variant shares. */
static struct tdr_parser *run(struct ctx *c)
{
	struct tdr_parser *p = NULL;
	const struct tdr_meta *m;

	assert_int_equal(tdr_parser__open(c->path, &p), 0);
	m = tdr_parser__meta(p);
	assert_int_equal(tdr_parser__source(p), TDR_SOURCE_PERF_DATA);
	assert_int_equal(m->event_cnt, NEV);
	for (size_t i = 0; i < NEV; i++) {
		if (i != 1) /* cycles keeps perf's name */
			assert_string_equal(m->events[i].name, names[i]);
		assert_int_equal(m->events[i].group_idx, 0);
	}
	assert_true(m->events[0].flags & TDR_EVENT_LEADER);
	assert_true(m->events[1].flags & TDR_EVENT_SAMPLER);
	assert_false(m->events[0].flags & TDR_EVENT_SAMPLER);
	assert_int_equal(m->sample_period, 100000);
	assert_int_equal(category_level(m, "retiring"), 1);
	assert_int_equal(category_level(m, "be-bound"), 1);
	assert_int_equal(category_level(m, "mem-bound"), 2);
	assert_int_equal(category_level(m, "core-bound"), 2);
	assert_int_equal(tdr_parser__run(p, on_sample, c), 0);
	return p;
}

/* The full recording: exact sums, mappings, build-id, clean stats. */
static void check_full(struct ctx *c, struct tdr_parser *p)
{
	const struct tdr_parse_stats *st = tdr_parser__stats(p);
	const struct tdr_meta *m = tdr_parser__meta(p);
	const struct ipsum *lib;

	assert_sum(c, IP_A, want_a, 4);
	assert_sum(c, IP_B, want_b, 3);
	assert_sum(c, IP_LIB, want_lib, 1);
	lib = ip_of(c, IP_LIB);
	assert_non_null(lib->map);
	assert_string_equal(lib->map->path, LIB);
	assert_int_equal(lib->map_off, 0x2234); /* 0x1234 into the mapping + pgoff 0x1000 */
	assert_int_equal(lib->map->build_id_sz, 20);
	assert_memory_equal(lib->map->build_id, lib_bid, 20);
	assert_string_equal(ip_of(c, IP_A)->map->path, "/usr/bin/app");
	assert_int_equal(ip_of(c, IP_A)->map_off, 0x1100);
	assert_int_equal(st->samples, 8);
	assert_int_equal(st->samples_delivered, 8);
	assert_int_equal(st->first_samples, 3);
	assert_int_equal(st->streams, 3);
	assert_int_equal(st->malformed_records, 0);
	assert_int_equal(st->unknown_records, 0);
	assert_int_equal(st->unknown_ids, 0);
	assert_int_equal(st->unmapped_samples, 0);
	for (int r = 0; r < TDR_REBASE_REASON_CNT; r++)
		assert_int_equal(st->rebases[r], 0);
	assert_string_equal(m->hostname, "spr-box");
	assert_string_equal(m->kernel_release, "6.12.0");
	assert_string_equal(m->cpu_vendor, "GenuineIntel");
	assert_int_equal(m->cpu_model, 143);
	assert_int_equal(m->argc, 5);
	assert_string_equal(m->argv[4], "./app");
	assert_false(tdr_parser__file_status(p)->truncated);
}

static void variant(void **state, uint32_t compress, size_t chunk, const char *const *ev_names)
{
	struct ctx *c = *state;
	struct tdr_parser *p;

	write_file(c, compress, chunk, PDW_COMPLETE, 0, ev_names, "GenuineIntel,6,143,8");
	p = run(c);
	check_full(c, p);
	tdr_parser__free(p);
}

static void test_pd_topdown__plain(void **state)
{
	variant(state, 0, 0, names);
}

static void test_pd_topdown__compressed_straddling_chunks(void **state)
{
	/* 61 input bytes per chunk: nearly every record straddles two chunks */
	variant(state, PDW_COMPRESSED, 61, names);
}

static void test_pd_topdown__compressed2(void **state)
{
	variant(state, PDW_COMPRESSED2, 200, names);
}

/* A file of many megabytes: the importer hands back the mapping of the
 * records it has fed (every 4 MiB, at a round boundary). Every sample still
 * arrives, in time order, and a mapping whose MMAP2 record lies in a page
 * handed back long ago still names its file. */
struct big_ctx {
	unsigned n, lib_n;
	uint64_t last_time;
	bool in_order;
};

static int on_big_sample(const struct tdr_sample *s, void *arg)
{
	struct big_ctx *b = arg;

	b->in_order = b->in_order && s->time_ns >= b->last_time;
	b->last_time = s->time_ns;
	if (s->ip == IP_LIB && s->map && !strcmp(s->map->path, LIB))
		b->lib_n++;
	b->n++;
	return 0;
}

static void big_variant(struct ctx *c, uint32_t compress)
{
	enum { ROUNDS = 1500, PER_CPU = 20 };
	struct big_ctx b = {.in_order = true};
	struct tdr_parser *p = NULL;
	uint64_t v[2][NEV];

	synth_buf_reset(&c->b);
	build_records(c);
	/* Above every value of build_records: counters never run backwards. */
	for (size_t i = 0; i < NEV; i++)
		v[0][i] = v[1][i] = 1000000;
	for (unsigned r = 0; r < ROUNDS; r++) {
		/* cpu 0's buffer, then cpu 1's: interleaved times, sorted by
		 * the importer. Values rise by 10 * (member + 1) per sample. */
		for (unsigned cpu = 0; cpu < 2; cpu++) {
			for (unsigned k = 0; k < PER_CPU; k++) {
				uint64_t t = 1000 + (uint64_t)r * 1000 + k * 40 + cpu * 20;

				for (size_t i = 0; i < NEV; i++)
					v[cpu][i] += 10 * (i + 1);
				sample(c, cpu, 11, t, r == ROUNDS - 1 ? IP_LIB : IP_A, v[cpu]);
			}
		}
		user_record(c, PDW_FINISHED_ROUND, 0);
	}
	assert_true(c->b.sz > 3 * (4u << 20)); /* several release steps */
	write_file(c, compress, 4096, PDW_COMPLETE, 0, names, "GenuineIntel,6,143,8");
	assert_int_equal(tdr_parser__open(c->path, &p), 0);
	assert_int_equal(tdr_parser__run(p, on_big_sample, &b), 0);
	assert_int_equal(b.n, 8 + ROUNDS * 2 * PER_CPU);
	assert_true(b.in_order);
	assert_int_equal(b.lib_n, 1 + 2 * PER_CPU); /* build_records has one */
	tdr_parser__free(p);
}

static void test_pd_topdown__many_rounds_mapping_handed_back(void **state)
{
	big_variant(*state, 0);
	big_variant(*state, PDW_COMPRESSED2);
}

/* Column col of a CSV line (no quoting in the fields used here). */
static bool csv_field(const char *line, int col, char *out, size_t sz)
{
	const char *p = line, *e;

	for (int i = 0; i < col; i++) {
		p = strchr(p, ',');
		if (!p)
			return false;
		p++;
	}
	e = p + strcspn(p, ",\n");
	snprintf(out, sz, "%.*s", (int)(e - p), p);
	return true;
}

static int csv_col(const char *header, const char *name)
{
	char f[64];

	for (int i = 0; csv_field(header, i, f, sizeof(f)); i++)
		if (!strcmp(f, name))
			return i;
	fail_msg("no column %s in: %s", name, header);
	return -1;
}

static int exit_of(const char *cmd)
{
	int st = system(cmd);

	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* Patch the data section's record number k of c->path: its type (type !=
 * 0) or its size (otherwise). Returns the record's file offset. */
static uint64_t patch_record(struct ctx *c, unsigned k, uint32_t type, uint16_t size)
{
	FILE *f = fopen(c->path, "r+b");
	uint8_t h[104], rh[8];
	uint64_t off;

	assert_non_null(f);
	assert_int_equal(fread(h, 1, sizeof(h), f), sizeof(h));
	memcpy(&off, h + 40, 8); /* data.offset (little-endian host) */
	for (unsigned i = 0;; i++) {
		assert_int_equal(fseek(f, (long)off, SEEK_SET), 0);
		assert_int_equal(fread(rh, 1, 8, f), 8);
		if (i == k)
			break;
		off += (uint16_t)(rh[6] | rh[7] << 8);
	}
	if (type)
		memcpy(rh, &type, 4);
	else
		memcpy(rh + 6, &size, 2);
	assert_int_equal(fseek(f, (long)off, SEEK_SET), 0);
	assert_int_equal(fwrite(rh, 1, 8, f), 8);
	assert_int_equal(fclose(f), 0);
	return off;
}

/* A file whose records go out of step (perf 6.1: "failed to process type
 * 4191", as some perf inject output): damaged, not complete; the records
 * before are read; report and info exit 1 saying so. */
static void test_pd_topdown__damaged_records(void **state)
{
	struct ctx *c = *state;
	const char *tdrec = getenv("TDREC");
	const struct tdr_file_status *fs;
	struct tdr_parser *p = NULL;
	char cmd[600];
	uint64_t at;

	for (int bad_size = 0; bad_size < 2; bad_size++) {
		write_file(c, 0, 0, PDW_COMPLETE, 0, names, "GenuineIntel,6,143,8");
		at = patch_record(c, 4, bad_size ? 0 : 4191, bad_size ? 4 : 0);
		c->ip_cnt = 0;
		c->delivered = 0;
		assert_int_equal(tdr_parser__open(c->path, &p), 0);
		assert_int_equal(tdr_parser__run(p, on_sample, c), 0);
		fs = tdr_parser__file_status(p);
		assert_true(fs->damaged);
		assert_false(fs->truncated);
		assert_int_equal(fs->intact_sz, at);
		assert_int_equal(tdr_parser__stats(p)->malformed_records, 1);
		assert_true(c->delivered < 4);
		tdr_parser__free(p);
		if (!tdrec)
			continue;
		snprintf(cmd, sizeof(cmd), "'%s' report -i '%s' >/dev/null 2>&1", tdrec, c->path);
		assert_int_equal(exit_of(cmd), 1);
		snprintf(cmd, sizeof(cmd),
			 "'%s' info '%s' 2>/dev/null | grep -q '^file status: damaged'", tdrec,
			 c->path);
		assert_int_equal(exit_of(cmd), 0);
		snprintf(cmd, sizeof(cmd), "'%s' info '%s' >/dev/null 2>&1", tdrec, c->path);
		assert_int_equal(exit_of(cmd), 1);
	}
	/* perf itself, when here, cannot read it either. */
	snprintf(cmd, sizeof(cmd),
		 "perf --version >/dev/null 2>&1 || exit 0; perf report -i '%s' --stdio 2>&1 "
		 ">/dev/null | grep -q 'failed to process'",
		 c->path);
	write_file(c, 0, 0, PDW_COMPLETE, 0, names, "GenuineIntel,6,143,8");
	patch_record(c, 4, 4191, 0);
	assert_int_equal(exit_of(cmd), 0);
}

/* tdrec report on the file: the library's row has its TopDown split, level
 * 2 derived categories included (want_lib: retiring 700 of 2000 slots,
 * core-bound = be-bound 500 - mem-bound 240 = 260 of 2000). */
static void test_pd_topdown__tdrec_report_shows_topdown(void **state)
{
	struct ctx *c = *state;
	const char *tdrec = getenv("TDREC");
	char cmd[512], header[2048], line[2048], f[64];
	bool found = false;
	FILE *p;

	if (!tdrec) {
		print_message("TDREC not set (run through ctest): skipped\n");
		skip();
	}
	write_file(c, PDW_COMPRESSED, 61, PDW_COMPLETE, 0, names, "GenuineIntel,6,143,8");
	snprintf(cmd, sizeof(cmd), "'%s' report -i '%s' --by dso --csv 2>/dev/null", tdrec,
		 c->path);
	p = popen(cmd, "r");
	assert_non_null(p);
	assert_non_null(fgets(header, sizeof(header), p));
	while (fgets(line, sizeof(line), p)) {
		if (!csv_field(line, csv_col(header, "name"), f, sizeof(f)) || strcmp(f, LIB))
			continue;
		found = true;
		csv_field(line, csv_col(header, "topdown:retiring"), f, sizeof(f));
		assert_string_equal(f, "0.35");
		csv_field(line, csv_col(header, "topdown:core-bound"), f, sizeof(f));
		assert_string_equal(f, "0.13");
		csv_field(line, csv_col(header, "event:slots"), f, sizeof(f));
		assert_string_equal(f, "2000");
	}
	assert_int_equal(pclose(p), 0);
	assert_true(found);
}

/* Hybrid parts: perf names the events after their PMU. */
static void test_pd_topdown__pmu_qualified_names(void **state)
{
	struct ctx *c = *state;
	struct tdr_parser *p;

	variant(state, 0, 0, core_names);
	/* Not an Intel CPU: raw configs are other events, names stay perf's. */
	write_file(c, 0, 0, PDW_COMPLETE, 0, core_names, "AuthenticAMD,25,1,1");
	assert_int_equal(tdr_parser__open(c->path, &p), 0);
	assert_string_equal(tdr_parser__meta(p)->events[2].name, "cpu_core/topdown-retiring/");
	assert_int_equal(tdr_parser__meta(p)->category_cnt, 0);
	tdr_parser__free(p);
}

/* perf record killed: data.size 0, no feature sections, the last record cut
 * (b3, in round 2). Names and the group come from the attrs; everything
 * before the cut is there; the status says truncated, intact up to the cut
 * record. */
static void killed(void **state, uint32_t compress)
{
	struct ctx *c = *state;
	const struct tdr_file_status *fs;
	struct tdr_parser *p;
	size_t b3_sz = synth_rec(&c->b, c->last_rec)->size;
	/* IP_A: a1 + (a3 - a2) + (c2 - c1); b3 is lost in the cut */
	static const uint64_t want_a_cut[] = {2800, 700, 1100, 250, 800, 650, 420, 120, 300, 360};

	c->b.sz = c->last_rec + b3_sz; /* no final FINISHED_ROUND */
	/* plain: keep 24 bytes of b3; -z: cut the last compressed record */
	write_file(c, compress, 61, PDW_KILLED, compress ? 7 : b3_sz - 24, names, NULL);
	p = run(c);
	assert_sum(c, IP_A, want_a_cut, 3);
	assert_sum(c, IP_B, want_b, 3);
	assert_sum(c, IP_LIB, want_lib, 1);
	assert_null(tdr_parser__meta(p)->hostname);
	fs = tdr_parser__file_status(p);
	assert_true(fs->truncated);
	assert_false(fs->has_trailer);
	assert_true(fs->intact_sz < fs->file_sz);
	if (!compress)
		assert_int_equal(fs->file_sz - fs->intact_sz, 24);
	assert_int_equal(tdr_parser__stats(p)->malformed_records, 0);
	tdr_parser__free(p);
}

static void test_pd_topdown__killed_perf_record(void **state)
{
	killed(state, 0);
}

static void test_pd_topdown__killed_perf_record_z(void **state)
{
	killed(state, PDW_COMPRESSED2);
}

/* The -z file cut at every 8 bytes from its end down to nothing: a clean
 * error (the file ends before its attrs or data) or a run that says the file
 * is truncated. Never a crash (ASan/UBSan in CI). */
static void test_pd_topdown__cut_anywhere(void **state)
{
	struct ctx *c = *state;
	uint8_t *full;
	size_t sz;
	FILE *f;
	unsigned opened = 0;

	write_file(c, PDW_COMPRESSED, 61, PDW_COMPLETE, 0, names, "GenuineIntel,6,143,8");
	test_log_quiet(); /* a warning per cut */
	f = fopen(c->path, "rb");
	assert_non_null(f);
	fseek(f, 0, SEEK_END);
	sz = (size_t)ftell(f);
	rewind(f);
	full = malloc(sz);
	assert_non_null(full);
	assert_int_equal(fread(full, 1, sz, f), sz);
	fclose(f);
	for (size_t keep = 0; keep < sz; keep += 8) {
		struct tdr_parser *p = NULL;
		int err;

		f = fopen(c->path, "wb");
		assert_non_null(f);
		assert_int_equal(fwrite(full, 1, keep, f), keep);
		fclose(f);
		err = tdr_parser__open(c->path, &p);
		if (err) {
			if (keep < 8) /* not even the magic: the .tdr reader's answer */
				assert_true(err == -TDR_E_FORMAT || err == -TDR_E_TRUNCATED);
			else
				assert_int_equal(err, -TDR_E_TRUNCATED);
			continue;
		}
		opened++;
		assert_int_equal(tdr_parser__run(p, NULL, NULL), 0);
		assert_true(tdr_parser__file_status(p)->truncated);
		assert_true(tdr_parser__file_status(p)->intact_sz <= keep);
		tdr_parser__free(p);
	}
	assert_true(opened > 10);
	test_log_stop();
	free(full);
}

static int setup(void **state)
{
	struct ctx *c = calloc(1, sizeof(*c));

	if (!c)
		return -1;
	snprintf(c->dir, sizeof(c->dir), "/tmp/tdr-pdtd-XXXXXX");
	if (!mkdtemp(c->dir))
		return -1;
	snprintf(c->path, sizeof(c->path), "%s/perf.data", c->dir);
	make_attrs(c);
	build_records(c);
	*state = c;
	return 0;
}

static int teardown(void **state)
{
	struct ctx *c = *state;

	unlink(c->path);
	rmdir(c->dir);
	synth_buf_release(&c->b);
	free(c);
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_pd_topdown__plain, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_pd_topdown__compressed_straddling_chunks, setup,
					    teardown),
	    cmocka_unit_test_setup_teardown(test_pd_topdown__compressed2, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_pd_topdown__many_rounds_mapping_handed_back, setup,
					    teardown),
	    cmocka_unit_test_setup_teardown(test_pd_topdown__pmu_qualified_names, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_pd_topdown__killed_perf_record, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_pd_topdown__killed_perf_record_z, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_pd_topdown__cut_anywhere, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_pd_topdown__damaged_records, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_pd_topdown__tdrec_report_shows_topdown, setup,
					    teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
