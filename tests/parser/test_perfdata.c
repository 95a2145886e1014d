/*
 * tests/parser/test_perfdata.c - perf.data import checked against perf itself.
 *
 * Records tests/parser/perf_workload (single-threaded, so perf 6.1's per-id
 * delta keying is a valid oracle) with
 *   perf record -e '{cpu-clock,task-clock,page-faults}:S' -c 100000 [-z]
 * then compares, per bucket and per group member, tdrec's share of the
 * member's total with perf report --group --stdio -F overhead,period,dso,sym:
 * with the overhead column perf prints where the bucket is one perf row (the
 * workload's functions), and with the share of perf's raw periods for every
 * bucket; within 0.1 percentage points. The same with perf's pipe mode
 * (perf record -o -), read from the file, from a pipe on standard input as
 * "-", and compressed through /dev/stdin. And sample by sample: every
 * member's delta equals the period perf script prints for it. Buckets: each function of the workload (tdrec's map offsets turned
 * into symbols with the binary's program headers and nm), all kernel samples
 * together, and every other object by name. Skips with a message when perf is
 * missing or perf_event_open is not allowed. Label: integration.
 */
#include <errno.h>
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
#include "tdrec/tdr_err.h"

#define NMEM 3
#define MAX_BUCKETS 512
#define MAX_SYMS 4096

struct bucket {
	char key[128];
	uint64_t perf[NMEM], tdrec[NMEM];
	double printed[NMEM]; /* perf's overhead columns, summed over its rows */
	unsigned perf_rows;
};

struct sym {
	uint64_t addr, size;
	char name[96];
};

struct seg {
	uint64_t off, vaddr, filesz;
};

/* One member's delta at one sample (perf script prints one line per member
 * whose delta is not 0). */
struct entry {
	uint64_t time, ip, value;
	int member;
};

struct entries {
	struct entry *e;
	size_t cnt, cap;
};

struct ctx {
	char dir[64];
	char workload[4096];
	struct bucket b[MAX_BUCKETS];
	size_t bcnt;
	struct sym syms[MAX_SYMS];
	size_t scnt;
	struct seg segs[8];
	size_t segcnt;
	uint64_t samples;
	struct entries mine, perfs;
};

static void entry_add(struct entries *v, uint64_t time, uint64_t ip, int member, uint64_t value)
{
	if (v->cnt == v->cap) {
		v->cap = v->cap ? 2 * v->cap : 1024;
		v->e = realloc(v->e, v->cap * sizeof(*v->e));
		assert_non_null(v->e);
	}
	v->e[v->cnt++] = (struct entry){ time, ip, value, member };
}

static int entry_cmp(const void *a, const void *b)
{
	const struct entry *x = a, *y = b;

	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	if (x->ip != y->ip)
		return x->ip < y->ip ? -1 : 1;
	return x->member - y->member;
}

static struct bucket *bucket(struct ctx *c, const char *key)
{
	size_t i;

	for (i = 0; i < c->bcnt; i++)
		if (!strcmp(c->b[i].key, key))
			return &c->b[i];
	assert_true(c->bcnt < MAX_BUCKETS);
	memset(&c->b[c->bcnt], 0, sizeof(c->b[0]));
	snprintf(c->b[c->bcnt].key, sizeof(c->b[0].key), "%s", key);
	return &c->b[c->bcnt++];
}

static int run_cmd(const char *cmd)
{
	int st = system(cmd);

	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static const char *base_name(const char *p)
{
	const char *s = strrchr(p, '/');

	return s ? s + 1 : p;
}

/* The workload's executable segments and function symbols. */
static void load_symbols(struct ctx *c)
{
	char cmd[4300], line[512];
	FILE *f;

	snprintf(cmd, sizeof(cmd), "readelf -lW '%s'", c->workload);
	f = popen(cmd, "r");
	assert_non_null(f);
	while (fgets(line, sizeof(line), f) && c->segcnt < 8) {
		unsigned long long off, va, pa, fsz;

		if (sscanf(line, " LOAD 0x%llx 0x%llx 0x%llx 0x%llx", &off, &va, &pa, &fsz) == 4) {
			c->segs[c->segcnt].off = off;
			c->segs[c->segcnt].vaddr = va;
			c->segs[c->segcnt].filesz = fsz;
			c->segcnt++;
		}
	}
	pclose(f);
	snprintf(cmd, sizeof(cmd), "nm -S --defined-only '%s'", c->workload);
	f = popen(cmd, "r");
	assert_non_null(f);
	while (fgets(line, sizeof(line), f) && c->scnt < MAX_SYMS) {
		unsigned long long a, s;
		char t, name[96];

		if (sscanf(line, "%llx %llx %c %95s", &a, &s, &t, name) == 4 &&
		    (t == 't' || t == 'T' || t == 'W' || t == 'w')) {
			c->syms[c->scnt].addr = a;
			c->syms[c->scnt].size = s;
			snprintf(c->syms[c->scnt].name, sizeof(c->syms[0].name), "%s", name);
			c->scnt++;
		}
	}
	pclose(f);
	assert_true(c->segcnt > 0);
	assert_true(c->scnt > 0);
}

static const char *symbol_of(const struct ctx *c, uint64_t file_off)
{
	size_t i;

	for (i = 0; i < c->segcnt; i++) {
		const struct seg *s = &c->segs[i];

		if (file_off < s->off || file_off - s->off >= s->filesz)
			continue;
		uint64_t va = file_off - s->off + s->vaddr;

		for (size_t j = 0; j < c->scnt; j++)
			if (va >= c->syms[j].addr && va - c->syms[j].addr < c->syms[j].size)
				return c->syms[j].name;
	}
	return NULL;
}

static bool known_symbol(const struct ctx *c, const char *name)
{
	for (size_t j = 0; j < c->scnt; j++)
		if (!strcmp(c->syms[j].name, name))
			return true;
	return false;
}

static int on_sample(const struct tdr_sample *s, void *arg)
{
	struct ctx *c = arg;
	char key[128];
	const char *sym;
	struct bucket *b;

	if (s->map && s->map->kind == TDR_MAP_KERNEL) {
		snprintf(key, sizeof(key), "[k]");
	} else if (!s->map) {
		snprintf(key, sizeof(key), "dso:[unknown]");
	} else if (!strcmp(base_name(s->map->path), "perf_workload")) {
		sym = symbol_of(c, s->map_off);
		snprintf(key, sizeof(key), "%s", sym ? sym : "?");
	} else {
		snprintf(key, sizeof(key), "dso:%s", base_name(s->map->path));
	}
	b = bucket(c, key);
	for (int i = 0; i < NMEM; i++) {
		b->tdrec[i] += s->deltas[i];
		if (s->deltas[i])
			entry_add(&c->mine, s->time_ns, s->ip, i, s->deltas[i]);
	}
	c->samples++;
	return 0;
}

/* perf script's per-member periods of every sample must be tdrec's deltas,
 * one for one. */
static void compare_samples(struct ctx *c, const char *data)
{
	static const char *const members[NMEM] = { "cpu-clock", "task-clock", "page-faults" };
	char cmd[4300], line[512], ev[64];
	unsigned long long sec, ns, period, ip;
	unsigned tid;
	FILE *f;
	size_t i;

	snprintf(cmd, sizeof(cmd),
		 "perf script -i '%s' -F tid,time,event,period,ip --ns 2>/dev/null", data);
	f = popen(cmd, "r");
	assert_non_null(f);
	while (fgets(line, sizeof(line), f)) {
		int m;

		if (sscanf(line, "%u %llu.%llu: %llu %63[^:]: %llx", &tid, &sec, &ns, &period, ev,
			   &ip) != 6)
			continue;
		for (m = 0; m < NMEM && strcmp(ev, members[m]); m++)
			;
		assert_true(m < NMEM);
		entry_add(&c->perfs, sec * 1000000000ULL + ns, ip, m, period);
	}
	if (pclose(f) != 0 && !c->perfs.cnt) {
		/* perf 6.1 itself can abort on a file here (docs/record.md
		 * "Build-ids"): without the oracle there is nothing to judge. */
		print_message("perf script failed on %s: comparison skipped\n", data);
		skip();
	}
	assert_int_equal(c->perfs.cnt, c->mine.cnt);
	qsort(c->mine.e, c->mine.cnt, sizeof(struct entry), entry_cmp);
	qsort(c->perfs.e, c->perfs.cnt, sizeof(struct entry), entry_cmp);
	for (i = 0; i < c->mine.cnt; i++) {
		const struct entry *a = &c->perfs.e[i], *b = &c->mine.e[i];

		if (a->time != b->time || a->ip != b->ip || a->member != b->member ||
		    a->value != b->value)
			fail_msg("sample %zu: perf %llu %#llx %s %llu, tdrec %llu %#llx %s %llu", i,
				 (unsigned long long)a->time, (unsigned long long)a->ip,
				 members[a->member], (unsigned long long)a->value,
				 (unsigned long long)b->time, (unsigned long long)b->ip,
				 members[b->member], (unsigned long long)b->value);
	}
}

/*
 * perf's rows: per-member overhead columns (each member's share of its own
 * total, as printed), then the raw periods. Periods are summed per bucket;
 * a workload function is one row, so its printed overheads are kept to be
 * compared as they are.
 */
static void read_perf_report(struct ctx *c, const char *data)
{
	char cmd[4300], line[1024];
	FILE *f;
	unsigned rows = 0;

	snprintf(cmd, sizeof(cmd),
		 "perf report -i '%s' --group --stdio -F overhead,period,dso,sym 2>/dev/null",
		 data);
	f = popen(cmd, "r");
	assert_non_null(f);
	while (fgets(line, sizeof(line), f)) {
		unsigned long long p[NMEM];
		double o[NMEM];
		char dso[100], mode[8], sym[100], key[128];
		int n;

		if (line[0] == '#')
			continue;
		n = sscanf(line, "%lf%% %lf%% %lf%% %llu %llu %llu %99s %7s %99s", &o[0], &o[1],
			   &o[2], &p[0], &p[1], &p[2], dso, mode, sym);
		if (n < 8)
			continue;
		if (!strcmp(dso, "[kernel.kallsyms]") || !strcmp(mode, "[k]"))
			snprintf(key, sizeof(key), "[k]");
		else if (!strcmp(dso, "perf_workload"))
			/* A name this test's own symbol table lacks (perf names
			 * PLT slots and unsized symbols too) is "?" on both sides. */
			snprintf(key, sizeof(key), "%s", n == 9 && known_symbol(c, sym) ? sym : "?");
		else
			snprintf(key, sizeof(key), "dso:%s", dso);
		struct bucket *b = bucket(c, key);

		for (int i = 0; i < NMEM; i++) {
			b->perf[i] += p[i];
			b->printed[i] += o[i];
		}
		b->perf_rows++;
		rows++;
	}
	if (pclose(f) != 0 && !rows) {
		/* perf 6.1 aborts now and then on a pipe-mode or compressed
		 * file: without the oracle there is nothing to judge. */
		print_message("perf report failed on %s: comparison skipped\n", data);
		skip();
	}
	assert_true(rows > 0);
}

/* How perf writes the file and how tdrec is given it. */
enum mode {
	M_FILE,
	M_ZSTD,
	M_PIPE_FILE,  /* perf record -o - > file; tdrec opens the file */
	M_PIPE_STDIN, /* the same stream on tdrec's standard input, a pipe: "-" */
	M_PIPE_ZSTD_DEVSTDIN, /* perf record -z -o -, as /dev/stdin, a pipe */
};

/* Standard input becomes a pipe that a child fills from path; returns the
 * saved standard input, restored with restore_stdin. */
static int stdin_from_pipe(const char *path)
{
	int fds[2], saved = dup(0);
	pid_t pid;

	assert_true(saved >= 0);
	assert_int_equal(pipe(fds), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (!pid) {
		close(fds[0]);
		dup2(fds[1], 1);
		close(fds[1]);
		execlp("cat", "cat", path, (char *)NULL);
		_exit(127);
	}
	close(fds[1]);
	assert_int_equal(dup2(fds[0], 0), 0);
	close(fds[0]);
	return saved;
}

static void restore_stdin(int saved)
{
	int st;

	dup2(saved, 0);
	close(saved);
	while (wait(&st) > 0)
		;
}

static void compare(struct ctx *c, enum mode mode)
{
	bool compressed = mode == M_ZSTD || mode == M_PIPE_ZSTD_DEVSTDIN;
	bool piped = mode >= M_PIPE_FILE;
	char data[128], cmd[5000];
	struct tdr_parser *p;
	uint64_t tp[NMEM] = { 0 }, tt[NMEM] = { 0 };
	size_t i;
	int m, err, saved = -1;

	snprintf(data, sizeof(data), "%s/perf%s%s.data", c->dir, compressed ? "-z" : "",
		 piped ? "-pipe" : "");
	/* The workload prints nothing: in pipe mode its standard output is
	 * perf's. Through cat, the file is whole once every writer of the
	 * pipe has closed it. */
	if (piped)
		snprintf(cmd, sizeof(cmd),
			 "{ perf record -q %s -e '{cpu-clock,task-clock,page-faults}:S' -c 100000 "
			 "-o - '%s' 20 2>/dev/null || echo > '%s.failed'; } | cat > '%s'; "
			 "test ! -e '%s.failed'",
			 compressed ? "-z" : "", c->workload, data, data, data);
	else
		snprintf(cmd, sizeof(cmd),
			 "perf record -q %s -e '{cpu-clock,task-clock,page-faults}:S' -c 100000 "
			 "-o '%s' '%s' 20 >/dev/null 2>&1",
			 compressed ? "-z" : "", data, c->workload);
	if (run_cmd(cmd) != 0) {
		print_message("perf record failed (perf_event_open not allowed?): skipped\n");
		skip();
	}
	if (piped) {
		/* The test means something: this is a pipe-mode file (header size 16). */
		FILE *f = fopen(data, "rb");
		uint8_t h[16];

		assert_non_null(f);
		assert_int_equal(fread(h, 1, 16, f), 16);
		fclose(f);
		assert_memory_equal(h, "PERFILE2\x10\0\0\0\0\0\0\0", 16);
	}
	if (mode == M_PIPE_STDIN || mode == M_PIPE_ZSTD_DEVSTDIN)
		saved = stdin_from_pipe(data);
	err = tdr_parser__open(mode == M_PIPE_STDIN		? "-"
			       : mode == M_PIPE_ZSTD_DEVSTDIN ? "/dev/stdin"
							      : data,
			       &p);
	if (saved >= 0)
		restore_stdin(saved);
	assert_int_equal(err, 0);
	assert_int_equal(tdr_parser__source(p), TDR_SOURCE_PERF_DATA);
	assert_int_equal(tdr_parser__meta(p)->event_cnt, NMEM);
	assert_string_equal(tdr_parser__meta(p)->events[0].name, "cpu-clock");
	assert_string_equal(tdr_parser__meta(p)->events[2].name, "page-faults");
	assert_true(tdr_parser__meta(p)->events[0].flags & TDR_EVENT_SAMPLER);
	assert_int_equal(tdr_parser__run(p, on_sample, c), 0);
	assert_int_equal(tdr_parser__stats(p)->malformed_records, 0);
	assert_true(c->samples > 500);
	tdr_parser__free(p);
	compare_samples(c, data);
	read_perf_report(c, data);

	for (i = 0; i < c->bcnt; i++)
		for (m = 0; m < NMEM; m++) {
			tp[m] += c->b[i].perf[m];
			tt[m] += c->b[i].tdrec[m];
		}
	for (m = 0; m < NMEM; m++) {
		assert_true(tp[m] > 0);
		assert_true(tt[m] > 0);
	}
	for (i = 0; i < c->bcnt; i++) {
		for (m = 0; m < NMEM; m++) {
			double a = 100.0 * (double)c->b[i].perf[m] / (double)tp[m];
			double b = 100.0 * (double)c->b[i].tdrec[m] / (double)tt[m];

			if (a - b > 0.1 || b - a > 0.1)
				fail_msg("%s member %d: perf %.3f%% tdrec %.3f%%", c->b[i].key, m, a,
					 b);
			/* A bucket that is one perf row: its printed column as is
			 * (rounded to 0.01 by perf). */
			a = c->b[i].printed[m];
			if (c->b[i].perf_rows == 1 && (a - b > 0.1 || b - a > 0.1))
				fail_msg("%s member %d: perf prints %.2f%%, tdrec %.3f%%", c->b[i].key,
					 m, a, b);
		}
	}
	/* the comparison means something: the work functions are there, 1:2:3 */
	struct bucket *w1 = bucket(c, "work_one"), *w3 = bucket(c, "work_three");

	assert_true(w1->tdrec[0] > 0);
	assert_true(w3->tdrec[0] > 2 * w1->tdrec[0]);
	assert_int_equal(w1->perf_rows, 1); /* their printed columns were compared */
	assert_int_equal(w3->perf_rows, 1);
}

static int setup(void **state)
{
	struct ctx *c = calloc(1, sizeof(*c));
	const char *bin = getenv("TDR_BINARY_DIR");

	snprintf(c->dir, sizeof(c->dir), "/tmp/tdr-perfdata-XXXXXX");
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
	free(c->mine.e);
	free(c->perfs.e);
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
	load_symbols(c);
}

static void test_perfdata__matches_perf_report(void **state)
{
	struct ctx *c = *state;

	check_prereqs(c);
	compare(c, M_FILE);
}

static void test_perfdata__zstd_matches_perf_report(void **state)
{
	struct ctx *c = *state;

	check_prereqs(c);
	compare(c, M_ZSTD);
}

static int count_sample(const struct tdr_sample *s, void *arg)
{
	(void)s;
	++*(uint64_t *)arg;
	return 0;
}

/* Walk the records of a pipe-mode file from byte 16 by their sizes: the
 * offset where the walk stops (the file's end when they tile it), and in
 * *start_of the start of the record that holds byte at (-1: none). */
static long walk_records(const char *path, long sz, long at, long *start_of)
{
	FILE *f = fopen(path, "rb");
	long pos = 16;
	uint8_t h[8];

	assert_non_null(f);
	*start_of = -1;
	while (pos + 8 <= sz) {
		assert_int_equal(fseek(f, pos, SEEK_SET), 0);
		assert_int_equal(fread(h, 1, 8, f), 8);
		if ((h[6] | h[7] << 8) < 8)
			break;
		if (pos <= at && at < pos + (h[6] | h[7] << 8))
			*start_of = pos;
		pos += h[6] | h[7] << 8;
	}
	fclose(f);
	return pos;
}

/* The records of a pipe-mode file, from byte 16, end exactly at its end. */
static bool ends_after_a_record(const char *path, long sz)
{
	long unused;

	return walk_records(path, sz, -1, &unused) == sz;
}

/* A pipe-mode stream is whole when it ends after a record, and cut (with
 * the samples before the cut) when it ends inside one. */
static void pipe_cut(struct ctx *c)
{
	char data[128], cut[160], cmd[400];
	const struct tdr_file_status *fs;
	struct tdr_parser *p;
	uint64_t whole = 0, part = 0;
	long sz, at;
	FILE *f;

	snprintf(data, sizeof(data), "%s/perf-pipe.data", c->dir);
	snprintf(cut, sizeof(cut), "%s/perf-pipe-cut.data", c->dir);
	f = fopen(data, "rb");
	assert_non_null(f);
	fseek(f, 0, SEEK_END);
	sz = ftell(f);
	fclose(f);
	/* Cut 4 bytes into the record that holds the byte at 2/3 (a fixed
	 * offset may fall on a record's end, which is a whole stream). */
	walk_records(data, sz, sz * 2 / 3, &at);
	at = at < 0 ? sz * 2 / 3 + 3 : at + 4;
	snprintf(cmd, sizeof(cmd), "head -c %ld '%s' > '%s'", at, data, cut);
	assert_int_equal(run_cmd(cmd), 0);
	assert_int_equal(tdr_parser__open(data, &p), 0);
	assert_int_equal(tdr_parser__run(p, count_sample, &whole), 0);
	fs = tdr_parser__file_status(p);
	/* Whole when its records end at its end: walked here by their sizes
	 * (a perf record that another perf on the machine made abort leaves a
	 * cut stream, which must then be called so). */
	if (ends_after_a_record(data, sz)) {
		assert_false(fs->truncated);
		assert_int_equal(fs->intact_sz, sz);
	} else {
		print_message("perf wrote a cut stream this time\n");
		assert_true(fs->truncated);
	}
	tdr_parser__free(p);
	assert_int_equal(tdr_parser__open(cut, &p), 0);
	assert_int_equal(tdr_parser__run(p, count_sample, &part), 0);
	fs = tdr_parser__file_status(p);
	assert_true(fs->truncated);
	assert_false(fs->has_trailer);
	assert_true(fs->intact_sz < (uint64_t)at);
	assert_int_equal(tdr_parser__stats(p)->malformed_records, 0);
	tdr_parser__free(p);
	assert_true(part > 0 && part < whole);
}

/* perf record -o - > file: a pipe-mode file, read from the file. */
static void test_perfdata__pipe_file_matches_perf_report(void **state)
{
	struct ctx *c = *state;

	check_prereqs(c);
	compare(c, M_PIPE_FILE);
	pipe_cut(c);
}

/* The same stream from a pipe on standard input: tdrec report -i -. */
static void test_perfdata__pipe_stdin_matches_perf_report(void **state)
{
	struct ctx *c = *state;

	check_prereqs(c);
	compare(c, M_PIPE_STDIN);
}

/* Compressed pipe-mode records through /dev/stdin, a pipe. */
static void test_perfdata__pipe_zstd_devstdin_matches_perf_report(void **state)
{
	struct ctx *c = *state;

	check_prereqs(c);
	compare(c, M_PIPE_ZSTD_DEVSTDIN);
}

static void test_perfdata__not_a_profile(void **state)
{
	struct ctx *c = *state;
	char path[128];
	struct tdr_parser *p = NULL;
	FILE *f;

	snprintf(path, sizeof(path), "%s/junk", c->dir);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs("this is not a profile, just some text long enough for a header\n", f);
	fclose(f);
	assert_int_equal(tdr_parser__open(path, &p), -TDR_E_FORMAT);
	assert_null(p);
	snprintf(path, sizeof(path), "%s/missing", c->dir);
	assert_int_equal(tdr_parser__open(path, &p), -ENOENT);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_perfdata__matches_perf_report, setup, teardown),
		cmocka_unit_test_setup_teardown(test_perfdata__zstd_matches_perf_report, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_perfdata__pipe_file_matches_perf_report, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_perfdata__pipe_stdin_matches_perf_report, setup,
						teardown),
		cmocka_unit_test_setup_teardown(
		    test_perfdata__pipe_zstd_devstdin_matches_perf_report, setup, teardown),
		cmocka_unit_test_setup_teardown(test_perfdata__not_a_profile, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
