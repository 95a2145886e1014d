/*
 * tests/parser/test_callchain_perf.c - call stacks of a perf.data checked
 * against perf script.
 *
 * Records tests/parser/perf_workload (built with frame pointers) with
 *   perf record -g -e cpu-clock -c 100000
 * and compares, sample by sample (matched by tid and time), the frames the
 * parser delivers with the callchain perf script -F tid,time,ip prints:
 * perf prints the sample's own ip first, then each caller; markers are not
 * printed. perf prints an address resolved in a mapping as its offset in
 * that mapping's file and an unresolved one as is, so a frame matches when
 * perf's number is its ip or its map offset. Skips with a message when
 * perf is missing or perf_event_open is not allowed.
 * And tdrec record -g on the same program: the work_* functions are leaf
 * functions without a frame (gcc sets none up where nothing needs it, even
 * with -fno-omit-frame-pointer), so the kernel's frame-pointer walk goes
 * from each of their samples to the return address main's frame holds,
 * in libc (perf script shows the same): every such sample has exactly one
 * caller, in libc, at one return address; samples in main itself have
 * that caller too.
 * --call-graph dwarf (perf's and tdrec's): the user stacks are unwound
 * offline from the stack copies (tdr_report_attach_unwinder, libdw).
 * perf script prints a caller one byte before its return address and
 * repeats it once per inlined function there; after dropping those
 * repeats (on both sides), every sample's stack is perf's. And every
 * sample in work_* goes through main and Debian's libc, which has no frame
 * pointers, to _start, in perf's file and in tdrec record --call-graph
 * dwarf's. Label: integration.
 */
#include <inttypes.h>
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

#include "tdrec/parser.h"
#include "tdrec/report.h"
#include "tdrec/symbolize.h"

#define MAXF 256

/* One sample's stack: its ip (first) and its callers. */
struct stk {
	uint32_t tid;
	uint64_t time;
	uint32_t n;
	uint64_t v[MAXF];  /* perf: printed numbers; tdrec: frame ips */
	uint64_t off[MAXF]; /* tdrec: map offsets (UINT64_MAX without a mapping) */
};

struct stks {
	struct stk *s;
	size_t cnt, cap;
};

struct ctx {
	char dir[64];
	uint64_t work_lo, work_hi;   /* work_one..work_three (file offsets) */
	uint64_t main_lo, main_hi;
	uint64_t work_samples, work_ok, main_samples, main_ok;
	uint64_t libc_ret; /* the one return address into libc */
	bool dwarf;	   /* perf prints callers at return address - 1 */
	uint64_t through_libc;
	char workload[4096];
	struct stks mine, perfs;
	uint64_t with_callers;
};

static struct stk *stk_add(struct stks *v)
{
	if (v->cnt == v->cap) {
		v->cap = v->cap ? 2 * v->cap : 1024;
		v->s = realloc(v->s, v->cap * sizeof(*v->s));
		assert_non_null(v->s);
	}
	memset(&v->s[v->cnt], 0, sizeof(v->s[0]));
	return &v->s[v->cnt++];
}

static int stk_cmp(const void *a, const void *b)
{
	const struct stk *x = a, *y = b;

	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return x->tid < y->tid ? -1 : x->tid > y->tid;
}

static int run_cmd(const char *cmd)
{
	int st = system(cmd);

	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static int on_sample(const struct tdr_sample *s, void *arg)
{
	struct ctx *c = arg;
	struct stk *k = stk_add(&c->mine);

	k->tid = s->tid;
	k->time = s->time_ns;
	k->v[0] = s->ip;
	k->off[0] = s->map ? s->map_off : UINT64_MAX;
	assert_true(s->frame_cnt < MAXF);
	for (uint32_t i = 0; i < s->frame_cnt; i++) {
		/* perf prints unwound (user) callers one byte back, the
		 * kernel's callchain as is, and so the user pc of a kernel
		 * sample (its unwinder's first frame) */
		bool first_user = s->frames[i].cpumode == TDR_MODE_USER &&
				  (i == 0 || s->frames[i - 1].cpumode != TDR_MODE_USER);
		uint64_t d = c->dwarf && s->frames[i].cpumode == TDR_MODE_USER &&
				     !(first_user && s->cpumode != TDR_MODE_USER)
				 ? 1
				 : 0;

		k->v[1 + i] = s->frames[i].ip - d;
		k->off[1 + i] = s->frames[i].map ? s->frames[i].map_off - d : UINT64_MAX;
	}
	k->n = 1 + s->frame_cnt;
	/* work_* -> main -> __libc_start_call_main -> __libc_start_main -> _start */
	if (c->dwarf && s->frame_cnt >= 4 && s->map && strstr(s->map->path, "perf_workload") &&
	    s->frames[1].map && strstr(s->frames[1].map->path, "libc.so") && s->frames[2].map &&
	    strstr(s->frames[2].map->path, "libc.so") && s->frames[3].map == s->map)
		c->through_libc++;
	c->with_callers += s->frame_cnt > 0;
	return 0;
}

/* perf script -F tid,time,ip --ns: a "tid sec.nsec:" line, then one line
 * per callchain entry, then an empty line. */
static void read_perf_script(struct ctx *c, const char *data)
{
	char cmd[4400], line[512];
	struct stk *cur = NULL;
	FILE *f;

	snprintf(cmd, sizeof(cmd), "perf script -i '%s' -F tid,time,ip --ns 2>/dev/null", data);
	f = popen(cmd, "r");
	assert_non_null(f);
	while (fgets(line, sizeof(line), f)) {
		unsigned tid;
		unsigned long long sec, nsec, v;

		if (sscanf(line, " %u %llu.%llu:", &tid, &sec, &nsec) == 3 && strchr(line, ':')) {
			cur = stk_add(&c->perfs);
			cur->tid = tid;
			cur->time = sec * 1000000000ull + nsec;
		} else if (cur && sscanf(line, " %llx", &v) == 1) {
			assert_true(cur->n < MAXF);
			cur->v[cur->n++] = v;
		}
	}
	assert_int_equal(pclose(f), 0);
}

/* Drop repeats of the entry before (perf's inlined functions; a recursion
 * from one call site looks the same and is dropped on both sides). */
static void dedup(struct stk *k, bool both)
{
	uint32_t n = k->n ? 1 : 0;

	for (uint32_t j = 1; j < k->n; j++) {
		if (k->v[j] == k->v[n - 1] && (!both || k->off[j] == k->off[n - 1]))
			continue;
		k->v[n] = k->v[j];
		k->off[n] = k->off[j];
		n++;
	}
	k->n = n;
}

static void compare(struct ctx *c, const char *opts, const char *name)
{
	char data[128], cmd[4600];
	struct tdr_parser *p;
	struct tdr_unwinder *unw = NULL;
	size_t i, mismatches = 0;

	c->dwarf = strstr(opts, "dwarf") != NULL;
	snprintf(data, sizeof(data), "%s/%s.data", c->dir, name);
	snprintf(cmd, sizeof(cmd),
		 "perf record -q %s -e cpu-clock -c 100000 -o '%s' '%s' 10 >/dev/null 2>&1", opts,
		 data, c->workload);
	if (run_cmd(cmd) != 0) {
		print_message("perf record failed (perf_event_open not allowed?): skipped\n");
		skip();
	}
	assert_int_equal(tdr_parser__open(data, &p), 0);
	assert_int_equal(tdr_report_attach_unwinder(p, &unw), 0);
	assert_true(c->dwarf == (unw != NULL));
	assert_int_equal(tdr_parser__run(p, on_sample, c), 0);
	assert_int_equal(tdr_parser__stats(p)->malformed_records, 0);
	tdr_parser__free(p);
	tdr_unwinder__free(unw);
	read_perf_script(c, data);
	assert_true(c->mine.cnt > 100);
	assert_int_equal(c->mine.cnt, c->perfs.cnt);
	/* Most samples are in work_* called from main called from libc. */
	assert_true(c->with_callers > c->mine.cnt / 2);
	qsort(c->mine.s, c->mine.cnt, sizeof(struct stk), stk_cmp);
	qsort(c->perfs.s, c->perfs.cnt, sizeof(struct stk), stk_cmp);
	for (i = 0; i < c->mine.cnt; i++) {
		struct stk *m = &c->mine.s[i], *q = &c->perfs.s[i];
		bool same;

		if (c->dwarf) {
			dedup(m, true);
			dedup(q, false);
		}
		assert_int_equal(m->tid, q->tid);
		assert_int_equal(m->time, q->time);
		same = m->n == q->n;
		for (uint32_t j = 0; same && j < m->n; j++)
			same = q->v[j] == m->v[j] || q->v[j] == m->off[j];
		if (same)
			continue;
		if (++mismatches <= 3) {
			print_message("sample %zu (time %" PRIu64 "): %u frames, perf script %u\n", i,
				      m->time, m->n, q->n);
			for (uint32_t j = 0; j < m->n || j < q->n; j++)
				print_message("  %u: tdrec %#" PRIx64 " (offset %#" PRIx64
					      "), perf %#" PRIx64 "\n",
					      j, j < m->n ? m->v[j] : 0, j < m->n ? m->off[j] : 0,
					      j < q->n ? q->v[j] : 0);
		}
	}
	/* The kernel's frame-pointer walk is the same data for both: every
	 * sample. perf's dwarf unwinder is another implementation: its walk
	 * may end one frame earlier or later than libdw's on a rare sample
	 * (printed above); at most 1 in 200. */
	if (!c->dwarf)
		assert_int_equal(mismatches, 0);
	else if (mismatches * 200 > c->mine.cnt)
		fail_msg("%zu of %zu samples differ from perf script", mismatches, c->mine.cnt);
}

static int setup(void **state)
{
	struct ctx *c = calloc(1, sizeof(*c));
	const char *bin = getenv("TDR_BINARY_DIR");

	snprintf(c->dir, sizeof(c->dir), "/tmp/tdr-callchain-XXXXXX");
	if (!mkdtemp(c->dir))
		return -1;
	snprintf(c->workload, sizeof(c->workload), "%s/tests/parser/perf_workload",
		 bin ? bin : ".");
	*state = c;
	return 0;
}

static int teardown(void **state)
{
	struct ctx *c = *state;
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", c->dir);
	run_cmd(cmd);
	free(c->mine.s);
	free(c->perfs.s);
	free(c);
	return 0;
}

static void check_prereqs(struct ctx *c)
{
	if (run_cmd("perf --version >/dev/null 2>&1") != 0) {
		print_message("perf is not installed: skipped\n");
		skip();
	}
	if (access(c->workload, X_OK)) {
		print_message("%s not built: skipped\n", c->workload);
		skip();
	}
}

static void test_callchain_perf__fp(void **state)
{
	struct ctx *c = *state;

	check_prereqs(c);
	compare(c, "-g", "fp");
}

/* [lo, hi) of symbol name in the workload, as file offsets (its text
 * segment maps offset = address - (vaddr - offset) of the executable LOAD). */
static void sym_range(struct ctx *c, const char *name, uint64_t *lo, uint64_t *hi)
{
	char cmd[4400], line[256];
	FILE *f;

	*lo = *hi = 0;
	snprintf(cmd, sizeof(cmd),
		 "nm -S --defined-only '%s' | awk '$4 == \"%s\" { print $1, $2 }'", c->workload,
		 name);
	f = popen(cmd, "r");
	assert_non_null(f);
	if (fgets(line, sizeof(line), f)) {
		unsigned long long a, z;

		if (sscanf(line, "%llx %llx", &a, &z) == 2) {
			*lo = a;
			*hi = a + z;
		}
	}
	pclose(f);
	assert_true(*hi > *lo);
}

static bool libc_caller(struct ctx *c, const struct tdr_sample *s)
{
	if (s->frame_cnt != 1 || !s->frames[0].map || !strstr(s->frames[0].map->path, "libc.so"))
		return false;
	if (!c->libc_ret)
		c->libc_ret = s->frames[0].map_off;
	return s->frames[0].map_off == c->libc_ret;
}

static int on_tdr_sample(const struct tdr_sample *s, void *arg)
{
	struct ctx *c = arg;

	if (!s->map || !strstr(s->map->path, "perf_workload"))
		return 0;
	if (s->map_off >= c->work_lo && s->map_off < c->work_hi) {
		c->work_samples++;
		c->work_ok += libc_caller(c, s);
	} else if (s->map_off >= c->main_lo && s->map_off < c->main_hi) {
		c->main_samples++;
		c->main_ok += libc_caller(c, s);
	}
	return 0;
}

static void test_callchain_perf__dwarf(void **state)
{
	struct ctx *c = *state;

	check_prereqs(c);
	compare(c, "--call-graph dwarf", "dwarf");
	/* Full stacks through libc, which has no frame pointers. */
	assert_true(c->through_libc > c->mine.cnt / 2);
}

static void test_callchain_perf__tdrec_record_g(void **state)
{
	struct ctx *c = *state;
	const char *tdrec = getenv("TDREC");
	char data[128], cmd[4600];
	uint64_t lo, hi;
	struct tdr_parser *p;

	check_prereqs(c);
	if (!tdrec || access(tdrec, X_OK)) {
		print_message("tdrec not built: skipped\n");
		skip();
	}
	/* The work functions are adjacent (one, two, three, in this order). */
	sym_range(c, "work_one", &c->work_lo, &hi);
	sym_range(c, "work_three", &lo, &c->work_hi);
	sym_range(c, "main", &c->main_lo, &c->main_hi);
	assert_true(c->work_hi > c->work_lo);
	snprintf(data, sizeof(data), "%s/g.tdr", c->dir);
	snprintf(cmd, sizeof(cmd), "'%s' record -q -g -c 100000 -o '%s' -- '%s' 10", tdrec, data,
		 c->workload);
	if (run_cmd(cmd) != 0) {
		print_message("tdrec record failed (perf_event_open not allowed?): skipped\n");
		skip();
	}
	assert_int_equal(tdr_parser__open(data, &p), 0);
	assert_int_equal(tdr_parser__run(p, on_tdr_sample, c), 0);
	tdr_parser__free(p);
	assert_true(c->work_samples > 100);
	assert_int_equal(c->work_ok, c->work_samples);
	assert_int_equal(c->main_ok, c->main_samples);
}

/* tdrec record --call-graph dwarf: every work_* sample's callers are main,
 * __libc_start_call_main and __libc_start_main in libc (no frame
 * pointers there), then _start in the workload. */
static int on_dwarf_sample(const struct tdr_sample *s, void *arg)
{
	struct ctx *c = arg;
	uint64_t caller;

	if (!s->map || !strstr(s->map->path, "perf_workload") || s->map_off < c->work_lo ||
	    s->map_off >= c->work_hi)
		return 0;
	c->work_samples++;
	if (s->frame_cnt < 4 || s->frames[0].map != s->map || !s->frames[1].map ||
	    !s->frames[2].map || s->frames[3].map != s->map)
		return 0;
	caller = tdr_symbolize_caller_addr(s->frames[0].map_off);
	if (caller >= c->main_lo && caller < c->main_hi &&
	    strstr(s->frames[1].map->path, "libc.so") && strstr(s->frames[2].map->path, "libc.so"))
		c->work_ok++;
	return 0;
}

static void test_callchain_perf__tdrec_record_dwarf(void **state)
{
	struct ctx *c = *state;
	const char *tdrec = getenv("TDREC");
	char data[128], cmd[4600];
	uint64_t lo, hi;
	struct tdr_parser *p;
	struct tdr_unwinder *unw = NULL;

	check_prereqs(c);
	if (!tdrec || access(tdrec, X_OK)) {
		print_message("tdrec not built: skipped\n");
		skip();
	}
	sym_range(c, "work_one", &c->work_lo, &hi);
	sym_range(c, "work_three", &lo, &c->work_hi);
	sym_range(c, "main", &c->main_lo, &c->main_hi);
	snprintf(data, sizeof(data), "%s/dwarf.tdr", c->dir);
	snprintf(cmd, sizeof(cmd),
		 "'%s' record -q --call-graph dwarf -c 100000 -o '%s' -- '%s' 10", tdrec, data,
		 c->workload);
	if (run_cmd(cmd) != 0) {
		print_message("tdrec record failed (perf_event_open not allowed?): skipped\n");
		skip();
	}
	assert_int_equal(tdr_parser__open(data, &p), 0);
	assert_int_equal(tdr_report_attach_unwinder(p, &unw), 0);
	assert_non_null(unw);
	assert_int_equal(tdr_parser__run(p, on_dwarf_sample, c), 0);
	assert_true(tdr_parser__stats(p)->user_stacks >= c->work_samples);
	tdr_parser__free(p);
	tdr_unwinder__free(unw);
	assert_true(c->work_samples > 100);
	assert_int_equal(c->work_ok, c->work_samples);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_callchain_perf__fp, setup, teardown),
		cmocka_unit_test_setup_teardown(test_callchain_perf__dwarf, setup, teardown),
		cmocka_unit_test_setup_teardown(test_callchain_perf__tdrec_record_g, setup, teardown),
		cmocka_unit_test_setup_teardown(test_callchain_perf__tdrec_record_dwarf, setup,
						teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
