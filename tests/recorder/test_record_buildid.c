/*
 * tests/recorder/test_record_buildid.c - build-ids in real recordings, and
 * what the report makes of a program rebuilt after it was recorded.
 *
 * A small program is compiled here (with the C compiler CMake found), then
 * recorded, launched (the kernel's MMAP2 records, attr.build_id) and
 * attached with -p (MMAP2 records synthesized from /proc and the file's
 * note). The mapping of every sample in the program carries the build-id
 * libdw reads from the file. Then, for both: the program rebuilt from
 * changed source is "[changed] PATH"; rebuilt from the same source (same
 * build-id, a newer file) it is named as before; an older, different binary
 * copied over it with its time kept (cp -p) is "[changed] PATH", which the
 * file-time check alone cannot see. With --no-build-id the file time is all
 * there is: the identical rebuild is then "[changed]". perf's build-id
 * cache is kept out of the way with an empty HOME.
 */
#include <errno.h>
#include <signal.h>
#include <time.h>

#include "record_fixture.h"
#include "support/elf_build_id.h"
#include "tdrec/format.h"
#include "tdrec/parser.h"

#define HOT "tdr_bid_hot"

/* The program: HOT burns CPU for argv[1] seconds; `variant` changes its code. */
static void write_source(const char *path, int variant)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fprintf(f,
		"#include <stdlib.h>\n"
		"#include <time.h>\n"
		"static double now(void)\n"
		"{\n"
		"	struct timespec t;\n"
		"	clock_gettime(CLOCK_MONOTONIC, &t);\n"
		"	return t.tv_sec + t.tv_nsec / 1e9;\n"
		"}\n"
		"__attribute__((noinline)) unsigned long " HOT "(unsigned long n)\n"
		"{\n"
		"	volatile unsigned long x = 0;\n"
		"	for (unsigned long i = 0; i < n; i++)\n"
		"		x += i * %d;\n"
		"	return x;\n"
		"}\n"
		"int main(int argc, char **argv)\n"
		"{\n"
		"	double end = now() + (argc > 1 ? atof(argv[1]) : 0.2);\n"
		"	while (now() < end)\n"
		"		" HOT "(20000);\n"
		"	return 0;\n"
		"}\n",
		variant);
	assert_int_equal(fclose(f), 0);
}

struct prog {
	char src[320], bin[320], other[320], home[320];
};

/* Build src into out. */
static void build(const char *src, const char *out)
{
	char cmd[1024];

	snprintf(cmd, sizeof(cmd), "'%s' -O1 -g -o '%s' '%s'", CC_PATH, out, src);
	assert_int_equal(system(cmd), 0);
}

static void prog_init(struct fixture *f, struct prog *p)
{
	snprintf(p->src, sizeof(p->src), "%s/prog.c", f->dir);
	snprintf(p->bin, sizeof(p->bin), "%s/prog", f->dir);
	snprintf(p->other, sizeof(p->other), "%s/other", f->dir);
	snprintf(p->home, sizeof(p->home), "%s/home", f->dir);
	assert_int_equal(mkdir(p->home, 0700), 0);
	/* perf's build-id cache ($HOME/.debug) could name the recorded binary
	 * after it changed, as documented; these tests are about the file. */
	setenv("HOME", p->home, 1);
	/* A different binary, older than the recording. */
	write_source(p->src, 3);
	build(p->src, p->other);
	write_source(p->src, 1);
	build(p->src, p->bin);
}

struct maps_seen {
	const char *bin;
	uint64_t samples;	/* in bin */
	uint64_t with_build_id; /* ...whose mapping has one */
	uint8_t build_id_sz, build_id[20];
	bool differ; /* two samples' mappings had other build-ids */
};

static int on_sample(const struct tdr_sample *s, void *ctx)
{
	struct maps_seen *m = ctx;

	if (!s->map || strcmp(s->map->path, m->bin))
		return 0;
	m->samples++;
	if (!s->map->build_id_sz)
		return 0;
	if (m->with_build_id++ == 0) {
		m->build_id_sz = s->map->build_id_sz;
		memcpy(m->build_id, s->map->build_id, sizeof(m->build_id));
	} else if (m->build_id_sz != s->map->build_id_sz ||
		   memcmp(m->build_id, s->map->build_id, sizeof(m->build_id))) {
		m->differ = true;
	}
	return 0;
}

static void read_maps(const char *path, struct maps_seen *m)
{
	struct tdr_parser *p = NULL;

	assert_int_equal(tdr_parser__open(path, &p), 0);
	assert_int_equal(tdr_parser__run(p, on_sample, m), 0);
	tdr_parser__free(p);
}

/* Whether kernel release text (uname -r) is at least major.minor. */
static bool kernel_at_least(const char *release, int major, int minor)
{
	int a = 0, b = 0;

	if (sscanf(release, "%d.%d", &a, &b) != 2)
		return false;
	return a > major || (a == major && b >= minor);
}

/* Record p->bin: launched, or attached with -p while it runs. */
static void record_prog(struct fixture *f, const struct prog *p, bool attach, const char *extra)
{
	const char *launch[] = {"record", "--plan", "software", "-o", f->out, extra ? extra : "-q",
				"--",	  p->bin,   "0.3",	NULL};
	const char *att[] = {"record", "--plan", "software",	       "-o", f->out,
			     "-p",     NULL,	 extra ? extra : "-q", NULL};
	char pidtxt[32];
	pid_t prog, rec;

	if (!attach) {
		assert_int_equal(run_tdrec(f, NULL, launch), 0);
		return;
	}
	prog = fork();
	assert_true(prog >= 0);
	if (prog == 0) {
		execl(p->bin, p->bin, "30", (char *)NULL);
		_exit(99);
	}
	snprintf(pidtxt, sizeof(pidtxt), "%d", (int)prog);
	att[6] = pidtxt;
	rec = start_tdrec(f, NULL, att);
	wait_for_file(f->partial);
	usleep(300000); /* some samples; nothing is asserted on time */
	kill(rec, SIGINT);
	assert_int_equal(wait_status(rec), 0);
	kill(prog, SIGKILL);
	waitpid(prog, NULL, 0);
}

/* The report's JSON rows: whether one is named name. */
static bool report_has_row(struct fixture *f, const char *name)
{
	const char *args[] = {"report", "-i", f->out, "--json", NULL};
	char out[400], want[400];

	snprintf(out, sizeof(out), "%s/report.json", f->dir);
	assert_int_equal(run_tdrec(f, out, args), 0);
	snprintf(want, sizeof(want), "{\"name\": \"%s\"", name);
	return strstr(slurp(out), want) != NULL;
}

/* Make path's time later than now (and so than the recording's end):
 * a rebuild a second later would give the same, by waiting. */
static void make_newer(const char *path)
{
	struct timespec ts[2];

	clock_gettime(CLOCK_REALTIME, &ts[0]);
	ts[0].tv_sec += 5;
	ts[1] = ts[0];
	assert_int_equal(utimensat(AT_FDCWD, path, ts, 0), 0);
}

static void check_build_ids(struct fixture *f, const struct prog *p, bool attach)
{
	struct maps_seen m = {.bin = p->bin};
	uint8_t want[20] = {0};
	size_t want_sz = test_file_build_id(p->bin, want);
	const struct tdr_meta *meta;
	struct tdr_reader *r = NULL;
	bool kernel_ids;

	record_prog(f, p, attach, NULL);
	read_maps(f->out, &m);
	assert_true(m.samples > 0);
	assert_int_equal(tdr_reader__open(f->out, &r), 0);
	meta = tdr_reader__meta(r);
	/* The sampler asks for build-ids where the kernel has them (5.12). */
	kernel_ids = meta->events[0].attr.build_id;
	if (meta->kernel_release && kernel_at_least(meta->kernel_release, 5, 12))
		assert_true(kernel_ids);
	assert_int_equal(meta->events[0].attr.mmap2, 1);
	tdr_reader__free(r);
	if (!attach && !kernel_ids) {
		fprintf(stderr, "no attr.build_id on this kernel: launched case not checked\n");
		return;
	}
	/* Every sample's mapping carries the file's build-id. */
	assert_int_equal(m.with_build_id, m.samples);
	assert_false(m.differ);
	assert_int_equal(m.build_id_sz, want_sz);
	assert_memory_equal(m.build_id, want, want_sz);
}

static void check_rebuilds(struct fixture *f, struct prog *p, bool attach)
{
	char changed[400], cmd[1024];

	snprintf(changed, sizeof(changed), "[changed] %s", p->bin);
	record_prog(f, p, attach, NULL);
	assert_true(report_has_row(f, HOT));

	/* The same source again: the same build-id in a newer file. */
	build(p->src, p->bin);
	make_newer(p->bin);
	assert_true(report_has_row(f, HOT));
	assert_false(report_has_row(f, changed));

	/* Changed source: another build-id. */
	write_source(p->src, 2);
	build(p->src, p->bin);
	assert_true(report_has_row(f, changed));
	assert_false(report_has_row(f, HOT));

	/* An older, different binary copied over it with its time. */
	write_source(p->src, 1);
	build(p->src, p->bin);
	assert_true(report_has_row(f, HOT));
	snprintf(cmd, sizeof(cmd), "cp -p '%s' '%s'", p->other, p->bin);
	assert_int_equal(system(cmd), 0);
	assert_true(report_has_row(f, changed));
	assert_false(report_has_row(f, HOT));
}

static void test_record_buildid__launched_maps_carry_the_files_build_id(void **state)
{
	struct prog p;

	SKIP_UNLESS_PERF();
	prog_init(*state, &p);
	check_build_ids(*state, &p, false);
}

static void test_record_buildid__attached_maps_carry_the_files_build_id(void **state)
{
	struct prog p;

	SKIP_UNLESS_PERF();
	prog_init(*state, &p);
	check_build_ids(*state, &p, true);
}

static void test_record_buildid__launched_rebuilds_in_the_report(void **state)
{
	struct prog p;

	SKIP_UNLESS_PERF();
	prog_init(*state, &p);
	check_rebuilds(*state, &p, false);
}

static void test_record_buildid__attached_rebuilds_in_the_report(void **state)
{
	struct prog p;

	SKIP_UNLESS_PERF();
	prog_init(*state, &p);
	check_rebuilds(*state, &p, true);
}

/* Without build-ids only the file's time is checked: an identical rebuild
 * looks changed. */
static void test_record_buildid__no_build_id_falls_back_to_file_time(void **state)
{
	struct fixture *f = *state;
	struct maps_seen m;
	struct prog p;
	char changed[400];

	SKIP_UNLESS_PERF();
	prog_init(f, &p);
	snprintf(changed, sizeof(changed), "[changed] %s", p.bin);
	for (int attach = 0; attach < 2; attach++) {
		build(p.src, p.bin);
		record_prog(f, &p, attach, "--no-build-id");
		memset(&m, 0, sizeof(m));
		m.bin = p.bin;
		read_maps(f->out, &m);
		assert_true(m.samples > 0);
		assert_int_equal(m.with_build_id, 0);
		assert_true(report_has_row(f, HOT));
		build(p.src, p.bin);
		make_newer(p.bin);
		assert_true(report_has_row(f, changed));
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(
		test_record_buildid__launched_maps_carry_the_files_build_id, setup, teardown),
	    cmocka_unit_test_setup_teardown(
		test_record_buildid__attached_maps_carry_the_files_build_id, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_record_buildid__launched_rebuilds_in_the_report,
					    setup, teardown),
	    cmocka_unit_test_setup_teardown(test_record_buildid__attached_rebuilds_in_the_report,
					    setup, teardown),
	    cmocka_unit_test_setup_teardown(
		test_record_buildid__no_build_id_falls_back_to_file_time, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
