/*
 * tests/report/test_archive_stacks.c - the archive covers call stacks.
 *
 * A program built with frame pointers at -O0 (main -> work and other; at
 * -O2 gcc leaves main out of the frame-pointer chain) is recorded
 * with 'perf record -g'. tdr_report__archive on the perf.data must hold an
 * answer for every sample's ip and for every caller frame in a mapped file
 * at the address a report looks it up by (one byte before the return
 * address, tdr_symbolize_caller_addr), and main, which only appears as a
 * caller, must be named there. Skips when perf is missing or not allowed.
 * Label: integration.
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

#include "tdrec/archive.h"
#include "tdrec/parser.h"
#include "tdrec/report.h"
#include "tdrec/symbolize.h"

static const char prog_src[] =
	"#include <stdio.h>\n"
	"__attribute__((noinline)) double work(long n)\n"
	"{ double s = 0; for (long i = 0; i < n; i++) s += (double)i * 1.0000001; return s; }\n"
	"__attribute__((noinline)) double other(long n)\n"
	"{ double s = 1; for (long i = 0; i < n; i++) s = s * 0.999 + (double)i; return s; }\n"
	"int main(void) { printf(\"%f %f\\n\", work(40000000), other(20000000)); return 0; }\n";

struct check {
	const struct tdr_archive *a;
	size_t ips, callers, missing;
	bool main_named;
};

static int on_sample(const struct tdr_sample *s, void *ctx)
{
	struct tdr_archive_frame frames[TDR_ARCHIVE_MAX_INLINES];
	struct check *c = ctx;
	struct tdr_archive_sym as;

	if (s->map && s->map->kind == TDR_MAP_FILE && s->cpumode == TDR_MODE_USER) {
		long d = tdr_archive__find_dso(c->a, TDR_ARCHIVE_FILE, s->map->path,
					       s->map->build_id, s->map->build_id_sz);

		c->ips++;
		c->missing += d < 0 || tdr_archive__find(c->a, (size_t)d, s->map_off, &as, frames) < 0;
	}
	for (uint32_t i = 0; i < s->frame_cnt; i++) {
		const struct tdr_frame *f = &s->frames[i];
		long d;

		if (!f->map || f->map->kind != TDR_MAP_FILE || f->cpumode != TDR_MODE_USER)
			continue;
		d = tdr_archive__find_dso(c->a, TDR_ARCHIVE_FILE, f->map->path, f->map->build_id,
					  f->map->build_id_sz);
		c->callers++;
		if (d < 0 || tdr_archive__find(c->a, (size_t)d,
					       tdr_symbolize_caller_addr(f->map_off), &as,
					       frames) < 0) {
			c->missing++;
			continue;
		}
		if (as.function && !strcmp(as.function, "main"))
			c->main_named = true;
	}
	return 0;
}

static void test_archive_stacks__every_frame_archived(void **state)
{
	char dir[] = "/tmp/tdrec-archive-stacks-XXXXXX", cmd[1024], path[256];
	struct tdr_archive_summary sum;
	struct check c = {0};
	struct tdr_archive *a;
	struct tdr_parser *p;
	void *data;
	size_t sz;
	FILE *f;

	(void)state;
	if (system("command -v perf >/dev/null 2>&1"))
		skip();
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/app.c", dir);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(prog_src, f);
	fclose(f);
	snprintf(cmd, sizeof(cmd),
		 "cd '%s' && cc -O0 -g -fno-omit-frame-pointer -o app app.c && "
		 "perf record -q -g -e cpu-clock -c 100000 -o s.data ./app >/dev/null 2>&1",
		 dir);
	if (system(cmd)) {
		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
		assert_int_equal(system(cmd), 0);
		skip(); /* perf_event_open not allowed here */
	}
	snprintf(path, sizeof(path), "%s/s.data", dir);
	assert_int_equal(tdr_report__archive(path, NULL, 3, &data, &sz, &sum), 0);
	assert_true(sum.archived > 0);
	assert_int_equal(tdr_archive__decode(data, sz, &a), 0);
	c.a = a;
	assert_int_equal(tdr_parser__open(path, &p), 0);
	assert_int_equal(tdr_parser__run(p, on_sample, &c), 0);
	assert_true(c.ips > 100);
	assert_true(c.callers > 100);
	assert_int_equal(c.missing, 0);
	assert_true(c.main_named);
	/* More addresses than the samples' own: the callers are in. */
	assert_true(tdr_archive__stats(a)->addrs > sum.addrs / 2);
	tdr_parser__free(p);
	tdr_archive__free(a);
	free(data);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	assert_int_equal(system(cmd), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_archive_stacks__every_frame_archived),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
