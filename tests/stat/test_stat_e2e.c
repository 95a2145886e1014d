/*
 * tests/stat/test_stat_e2e.c - 'tdrec stat' on real programs with the
 * software plan (this machine has no hardware PMU): task-clock of a program
 * that sleeps and then burns CPU, -I rows that add up to the whole run,
 * --per-thread on a program with two named threads, -p, the JSON and CSV
 * schemas, 100-column text, exit status and signal forwarding, a missing
 * program, bad options; results on standard error (as perf stat's) unless
 * -o FILE or -o -, so the program's standard output stays its own. The tests measure the program, never tdrec itself.
 * They skip when perf_event_open is not allowed here.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "report/json_mini.h"

extern char **environ;

struct run {
	int status; /* exit code, or 128 + signal */
	char *out, *err;
};

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	char *buf = NULL;
	size_t len = 0;

	if (!f)
		return strdup("");
	if (getdelim(&buf, &len, '\0', f) < 0) {
		free(buf);
		buf = strdup("");
	}
	fclose(f);
	return buf;
}

/* Start tdrec with args (NULL-terminated), output to two files (standard
 * output closed when out is NULL). */
static pid_t start(const char *const *args, const char *out, const char *err)
{
	const char *argv[32];
	posix_spawn_file_actions_t fa;
	size_t n = 0;
	pid_t pid;

	argv[n++] = getenv("TDREC");
	argv[n++] = "stat";
	for (; *args && n < 31; args++)
		argv[n++] = *args;
	argv[n] = NULL;
	posix_spawn_file_actions_init(&fa);
	if (out)
		posix_spawn_file_actions_addopen(&fa, 1, out, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	else
		posix_spawn_file_actions_addclose(&fa, 1);
	posix_spawn_file_actions_addopen(&fa, 2, err, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (posix_spawn(&pid, argv[0], &fa, NULL, (char *const *)argv, environ))
		pid = -1;
	posix_spawn_file_actions_destroy(&fa);
	return pid;
}

static struct run finish(pid_t pid, const char *out, const char *err)
{
	struct run r = {.status = -1};
	int st;

	if (pid > 0 && waitpid(pid, &st, 0) == pid)
		r.status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
	r.out = out ? slurp(out) : strdup("");
	r.err = slurp(err);
	if (out)
		unlink(out);
	unlink(err);
	return r;
}

static struct run run(const char *const *args)
{
	char out[64], err[64];

	snprintf(out, sizeof(out), "/tmp/tdr_stat_out_%d", (int)getpid());
	snprintf(err, sizeof(err), "/tmp/tdr_stat_err_%d", (int)getpid());
	return finish(start(args, out, err), out, err);
}

static void run_free(struct run *r)
{
	free(r->out);
	free(r->err);
}

#define ARGS(...) ((const char *const[]){__VA_ARGS__, NULL})

/* Total task-clock (ms) of a parsed document. */
static double tc_ms(const struct jm *row)
{
	return jm_get(jm_get(row, "events"), "task-clock")->num / 1e6;
}

static struct jm *parse(const struct run *r)
{
	size_t where = 0;
	struct jm *doc = jm_parse(r->err, &where);

	if (!doc)
		fprintf(stderr, "bad JSON at %zu:\n%s\n", where, r->err);
	assert_non_null(doc);
	return doc;
}

static void assert_width(const char *text)
{
	size_t col = 0;

	for (const char *p = text; *p; p++) {
		col = *p == '\n' ? 0 : col + 1;
		if (col > 100)
			fail_msg("line over 100 columns in:\n%s", text);
	}
}

static bool no_perf; /* perf_event_open is not allowed here */

/* Find out once whether this machine lets us count at all. */
static int group_setup(void **state)
{
	struct run r = run(ARGS("--", "true"));

	(void)state;
	if (r.status != 0 && strstr(r.err, "permission")) {
		fprintf(stderr, "perf_event_open not allowed here, skipping: %s", r.err);
		no_perf = true;
	}
	run_free(&r);
	return 0;
}

#define REQUIRE_PERF()                                                                             \
	do {                                                                                       \
		if (no_perf)                                                                       \
			skip();                                                                    \
	} while (0)

static void test_stat_e2e__sleep_then_spin(void **state)
{
	struct run r = run(ARGS("--json", "--", PROG, "sleepspin", "200", "200"));
	const struct jm *total;
	struct jm *doc;
	double tc, wall;

	(void)state;
	REQUIRE_PERF();
	assert_int_equal(r.status, 0);
	doc = parse(&r);
	/* The documented keys. */
	assert_string_equal(jm_get(doc, "plan")->str, "software");
	assert_false(jm_get(doc, "topdown")->b);
	assert_non_null(strstr(jm_get(doc, "topdown_unavailable")->str, "not available"));
	assert_int_equal(jm_get(doc, "events")->n, 4);
	assert_int_equal(jm_get(doc, "categories")->n, 0);
	assert_int_equal(jm_get(jm_get(doc, "program"), "exit_code")->num, 0);
	assert_int_equal(jm_get(doc, "threads")->t, JM_NULL);
	assert_int_equal(jm_get(doc, "intervals")->n, 0);
	total = jm_get(doc, "total");
	assert_int_equal(jm_get(total, "topdown")->t, JM_NULL);
	/* The program burns 200 ms of its own CPU time (CLOCK_THREAD_CPUTIME_ID,
	 * the clock task-clock counts too) after exec; start-up adds a few ms.
	 * Well below the ~400 ms the program took. */
	tc = tc_ms(total);
	wall = jm_get(doc, "duration_s")->num * 1e3;
	if (tc < 195 || tc > 250)
		fail_msg("task-clock %.3f ms, want 195..250", tc);
	assert_true(wall >= 380);
	assert_true(tc < 0.75 * wall);
	/* Software counters are never multiplexed: all of it counted. */
	assert_true(jm_get(total, "counted")->num >= 0.99);
	assert_true(jm_get(jm_get(total, "events"), "page-faults")->num > 0);
	jm_free(doc);
	run_free(&r);
}

static void test_stat_e2e__intervals_add_up(void **state)
{
	struct run r = run(ARGS("-I", "100", "--json", "--", PROG, "sleepspin", "200", "200"));
	const struct jm *iv;
	struct jm *doc;
	double sum = 0, total;

	(void)state;
	REQUIRE_PERF();
	assert_int_equal(r.status, 0);
	doc = parse(&r);
	iv = jm_get(doc, "intervals");
	assert_true(iv->n >= 3);
	for (size_t i = 0; i < iv->n; i++) {
		sum += tc_ms(jm_at(iv, i));
		if (i)
			assert_true(jm_get(jm_at(iv, i), "start_s")->num ==
				    jm_get(jm_at(iv, i - 1), "end_s")->num);
	}
	total = tc_ms(jm_get(doc, "total"));
	assert_true(total > 100);
	assert_true(fabs(sum - total) <= 0.02 * total);
	jm_free(doc);
	run_free(&r);

	/* The text rows: a header, then at least 3 rows of numbers. The exit
	 * status argument (120 zeros, status 0) makes the command line wider
	 * than a row wherever the build directory is: the headers wrap. */
	r = run(ARGS("-I", "100", "--", PROG, "sleepspin", "200", "200",
		     "0000000000000000000000000000000000000000000000000000000000000000000000"
		     "00000000000000000000000000000000000000000000000000"));
	assert_int_equal(r.status, 0);
	{
		size_t rows = 0;

		for (char *p = r.err; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
			double t, ms;

			if (sscanf(p, "%lf %lf", &t, &ms) == 2)
				rows++;
		}
		assert_true(rows >= 3);
	}
	assert_non_null(strstr(r.err, "a row every 100 ms"));
	assert_width(r.err);
	run_free(&r);
}

static void test_stat_e2e__csv(void **state)
{
	struct run r = run(ARGS("-I", "100", "--csv", "--", PROG, "sleepspin", "100", "200"));
	size_t rows = 0, totals = 0, fields = 0;
	char *save = NULL;

	(void)state;
	REQUIRE_PERF();
	assert_int_equal(r.status, 0);
	assert_ptr_equal(strstr(r.err, "type,start_s,end_s,pid,tid,name,task-clock,"), r.err);
	for (char *l = strtok_r(r.err, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		size_t n = 1;

		for (char *p = l; *p; p++)
			n += *p == ',';
		if (!fields)
			fields = n;
		assert_int_equal(n, fields);
		rows += !strncmp(l, "interval,", 9);
		totals += !strncmp(l, "total,", 6);
	}
	assert_true(rows >= 3);
	assert_int_equal(totals, 1);
	run_free(&r);
}

static void test_stat_e2e__per_thread(void **state)
{
	struct run r = run(ARGS("--per-thread", "--json", "--", PROG, "threads", "2", "150"));
	const struct jm *threads, *na;
	bool w1 = false, w2 = false, main_seen = false;
	double sum = 0, total;
	struct jm *doc;
	int pid;

	(void)state;
	REQUIRE_PERF();
	assert_int_equal(r.status, 0);
	doc = parse(&r);
	pid = (int)jm_get(jm_get(doc, "program"), "pid")->num;
	threads = jm_get(doc, "threads");
	assert_true(threads->n >= 3);
	for (size_t i = 0; i < threads->n; i++) {
		const struct jm *t = jm_at(threads, i);
		const char *name = jm_get(t, "name")->str;

		/* Other tasks may show up (the sanitizer's leak checker forks
		 * one at exit in ASan builds): only ours are checked. */
		sum += tc_ms(t);
		if ((int)jm_get(t, "pid")->num != pid)
			continue;
		if (!strcmp(name, "worker-1"))
			w1 = tc_ms(t) > 75;
		if (!strcmp(name, "worker-2"))
			w2 = tc_ms(t) > 75;
		if ((int)jm_get(t, "tid")->num == pid)
			main_seen = !strcmp(name, "stat_prog");
	}
	assert_true(w1 && w2 && main_seen);
	/* Threads plus what they did not catch make the total. */
	na = jm_get(doc, "not_attributed");
	total = tc_ms(jm_get(doc, "total"));
	assert_true(fabs(sum + tc_ms(na) - total) < 0.01);
	assert_true(tc_ms(na) < 0.25 * total);
	jm_free(doc);
	run_free(&r);

	/* Text: both workers by name, within 100 columns. */
	r = run(ARGS("--per-thread", "--", PROG, "threads", "2", "100"));
	assert_int_equal(r.status, 0);
	assert_non_null(strstr(r.err, "per thread:"));
	assert_non_null(strstr(r.err, " worker-1 "));
	assert_non_null(strstr(r.err, " worker-2 "));
	assert_non_null(strstr(r.err, " stat_prog "));
	assert_width(r.err);
	run_free(&r);
}

static void test_stat_e2e__attach_pid(void **state)
{
	const char *const pargv[] = {PROG, "sleepspin", "0", "600", NULL};
	char pidbuf[32], target[32];
	struct run r;
	struct jm *doc;
	pid_t p;
	int st;

	(void)state;
	REQUIRE_PERF();
	assert_int_equal(posix_spawn(&p, PROG, NULL, NULL, (char *const *)pargv, environ), 0);
	/* Given twice, counted once. */
	snprintf(pidbuf, sizeof(pidbuf), "%d,%d", (int)p, (int)p);
	snprintf(target, sizeof(target), "process %d", (int)p);
	r = run(ARGS("-p", pidbuf, "--per-thread", "--json"));
	assert_int_equal(waitpid(p, &st, 0), p);
	assert_int_equal(r.status, 0);
	doc = parse(&r);
	assert_int_equal(jm_get(doc, "program")->t, JM_NULL);
	assert_string_equal(jm_get(doc, "target")->str, target);
	{
		/* One row for the process's one thread (an ASan build adds the
		 * leak checker's task, a process of its own). */
		const struct jm *th = jm_get(doc, "threads");
		size_t mine = 0;

		for (size_t i = 0; i < th->n; i++)
			mine += (int)jm_get(jm_at(th, i), "tid")->num == (int)p;
		assert_int_equal(mine, 1);
	}
	assert_true(tc_ms(jm_get(doc, "total")) > 0);
	assert_true(tc_ms(jm_get(doc, "total")) < 700);
	assert_int_equal((int)jm_get(jm_at(jm_get(doc, "threads"), 0), "tid")->num, (int)p);
	jm_free(doc);
	run_free(&r);
}

/* -p PID,TID with TID a thread of PID: every thread is counted once. */
static void test_stat_e2e__attach_pid_and_its_thread(void **state)
{
	const char *const pargv[] = {PROG, "threads", "2", "500", NULL};
	char path[64], arg[48];
	struct timespec ts = {0, 10 * 1000000L};
	const struct jm *th;
	struct run r;
	struct jm *doc;
	pid_t p, tid = 0;
	int st;

	(void)state;
	REQUIRE_PERF();
	assert_int_equal(posix_spawn(&p, PROG, NULL, NULL, (char *const *)pargv, environ), 0);
	/* Wait for the workers: the last tid is a worker's. */
	for (int tries = 0; tries < 500 && !tid; tries++) {
		DIR *d;
		struct dirent *de;
		int n = 0, last = 0;

		snprintf(path, sizeof(path), "/proc/%d/task", (int)p);
		d = opendir(path);
		while (d && (de = readdir(d)))
			if (atoi(de->d_name) > 0) {
				n++;
				if (atoi(de->d_name) > last)
					last = atoi(de->d_name);
			}
		if (d)
			closedir(d);
		if (n == 3)
			tid = last;
		else
			nanosleep(&ts, NULL);
	}
	assert_true(tid > p);
	snprintf(arg, sizeof(arg), "%d,%d", (int)p, (int)tid);
	r = run(ARGS("-p", arg, "--per-thread", "--json"));
	assert_int_equal(waitpid(p, &st, 0), p);
	assert_int_equal(r.status, 0);
	doc = parse(&r);
	th = jm_get(doc, "threads");
	for (size_t i = 0; i < th->n; i++)
		for (size_t j = i + 1; j < th->n; j++)
			assert_true(jm_get(jm_at(th, i), "tid")->num !=
				    jm_get(jm_at(th, j), "tid")->num);
	/* At most 2 x 500 ms for the workers and 125 ms for the main thread. */
	assert_true(tc_ms(jm_get(doc, "total")) < 1200);
	jm_free(doc);
	run_free(&r);
}

/* perf stat on the same program is the oracle: task-clock within 3%,
 * user-mode page faults within a few (the two launchers differ a little). */
static void test_stat_e2e__agrees_with_perf_stat(void **state)
{
	const char *perf = "/usr/bin/perf";
	const char *pargv[] = {perf, "stat", "-x,",	  "-e", "task-clock:u,page-faults:u",
			       "--", PROG,   "sleepspin", "0",	"100",
			       NULL};
	char errf[64], line[256];
	double p_tc = -1, p_pf = -1, tc, pf;
	struct run r;
	struct jm *doc;
	FILE *f;
	pid_t p;
	int st;

	(void)state;
	REQUIRE_PERF();
	if (access(perf, X_OK))
		skip();
	snprintf(errf, sizeof(errf), "/tmp/tdr_stat_perf_%d", (int)getpid());
	{
		posix_spawn_file_actions_t fa;

		posix_spawn_file_actions_init(&fa);
		posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
		posix_spawn_file_actions_addopen(&fa, 2, errf, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		assert_int_equal(posix_spawn(&p, perf, &fa, NULL, (char *const *)pargv, environ),
				 0);
		posix_spawn_file_actions_destroy(&fa);
	}
	assert_int_equal(waitpid(p, &st, 0), p);
	f = fopen(errf, "r");
	assert_non_null(f);
	/* "100.47,msec,task-clock:u,..." and "50,,page-faults:u,..." */
	while (fgets(line, sizeof(line), f)) {
		if (strstr(line, ",task-clock:u,"))
			p_tc = atof(line);
		else if (strstr(line, ",page-faults:u,"))
			p_pf = atof(line);
	}
	fclose(f);
	unlink(errf);
	if (p_tc < 0 || p_pf < 0)
		skip(); /* perf could not count here */

	r = run(ARGS("--json", "--", PROG, "sleepspin", "0", "100"));
	assert_int_equal(r.status, 0);
	doc = parse(&r);
	tc = tc_ms(jm_get(doc, "total"));
	pf = jm_get(jm_get(jm_get(doc, "total"), "events"), "page-faults")->num;
	/* The spin is 100 ms of CPU time in both runs; what differs is the
	 * program's start and exit (dynamic loading), a few ms on a loaded
	 * machine or under ASan: 3% plus 4 ms. */
	if (fabs(tc - p_tc) > 0.03 * p_tc + 4.0 || fabs(pf - p_pf) > 5)
		fail_msg("tdrec task-clock %.3f ms, page faults %.0f; perf %.3f ms, %.0f", tc, pf,
			 p_tc, p_pf);
	jm_free(doc);
	run_free(&r);
}

/* -a: every member of a cpu-wide group counts, not only the leader. (A
 * group opened enabled counted its members only from its next sched-in,
 * which for a cpu-wide group never came: page faults read 0.) */
static void test_stat_e2e__system_wide_members_count(void **state)
{
	struct run r = run(ARGS("-a", "--json", "--", PROG, "sleepspin", "0", "50"));
	const struct jm *total;
	struct jm *doc;

	(void)state;
	REQUIRE_PERF();
	if (r.status != 0 && strstr(r.err, "perf_event_paranoid")) {
		run_free(&r);
		skip(); /* -a needs root or perf_event_paranoid <= 0 */
	}
	assert_int_equal(r.status, 0);
	doc = parse(&r);
	assert_true(jm_get(doc, "system_wide")->b);
	assert_ptr_equal(strstr(jm_get(doc, "target")->str, "all CPUs while running "),
			 jm_get(doc, "target")->str);
	total = jm_get(doc, "total");
	/* The program alone burns 50 ms of CPU and takes dozens of page
	 * faults in user mode while it loads. */
	assert_true(tc_ms(total) >= 50);
	assert_true(jm_get(jm_get(total, "events"), "page-faults")->num >= 10);
	assert_int_equal(jm_get(total, "task_run_ns")->t, JM_NULL);
	assert_true(jm_get(total, "counted")->num >= 0.99);
	jm_free(doc);
	run_free(&r);
}

static void test_stat_e2e__exit_status(void **state)
{
	struct run r = run(ARGS("--", PROG, "sleepspin", "0", "1", "7"));

	(void)state;
	REQUIRE_PERF();
	assert_int_equal(r.status, 7);
	assert_non_null(strstr(r.err, "the program exited with status 7"));
	run_free(&r);
	r = run(ARGS("--", PROG, "signal", "15"));
	assert_int_equal(r.status, 128 + 15);
	assert_non_null(strstr(r.err, "the program was killed by signal 15 (SIGTERM)"));
	assert_non_null(strstr(r.err, "task-clock")); /* the counts are still written */
	run_free(&r);
}

static void test_stat_e2e__signal_is_forwarded(void **state)
{
	char out[64], err[64];
	struct timespec ts = {0, 300 * 1000000L};
	struct run r;
	pid_t p;

	(void)state;
	REQUIRE_PERF();
	snprintf(out, sizeof(out), "/tmp/tdr_stat_sig_out_%d", (int)getpid());
	snprintf(err, sizeof(err), "/tmp/tdr_stat_sig_err_%d", (int)getpid());
	p = start(ARGS("--", PROG, "sleepspin", "5000", "0"), out, err);
	assert_true(p > 0);
	nanosleep(&ts, NULL);
	/* To tdrec only (as kill(1) would): it passes SIGINT on and reports. */
	assert_int_equal(kill(p, SIGINT), 0);
	r = finish(p, out, err);
	assert_int_equal(r.status, 128 + SIGINT);
	assert_non_null(strstr(r.err, "killed by signal 2 (SIGINT)"));
	assert_non_null(strstr(r.err, "task-clock"));
	run_free(&r);
}

static void test_stat_e2e__missing_program(void **state)
{
	struct run r = run(ARGS("--", "/nonexistent/tdr-no-such-program"));

	(void)state;
	assert_int_equal(r.status, 127);
	assert_string_equal(r.out, "");
	assert_non_null(strstr(r.err, "cannot run '/nonexistent/tdr-no-such-program'"));
	run_free(&r);
}

/* A run that cannot start (no program, no process) leaves an existing -o
 * file as it was, and makes none; one that starts replaces it. */
static void test_stat_e2e__failed_start_keeps_output(void **state)
{
	char path[64], fresh[64], *text;
	struct run r;
	FILE *f;

	(void)state;
	snprintf(path, sizeof(path), "/tmp/tdr_stat_keep_%d", (int)getpid());
	snprintf(fresh, sizeof(fresh), "/tmp/tdr_stat_fresh_%d", (int)getpid());
	f = fopen(path, "w");
	assert_non_null(f);
	fputs("earlier results\n", f);
	fclose(f);
	r = run(ARGS("-o", path, "--", "/nonexistent/tdr-no-such-program"));
	assert_int_equal(r.status, 127);
	run_free(&r);
	r = run(ARGS("-o", path, "-p", "2147483647"));
	assert_int_equal(r.status, 1);
	run_free(&r);
	text = slurp(path);
	assert_string_equal(text, "earlier results\n");
	free(text);
	r = run(ARGS("-o", fresh, "--", "/nonexistent/tdr-no-such-program"));
	assert_int_equal(r.status, 127);
	assert_int_equal(access(fresh, F_OK), -1);
	run_free(&r);
	if (no_perf) {
		unlink(path);
		skip();
	}
	r = run(ARGS("-o", path, "--csv", "--", "true"));
	assert_int_equal(r.status, 0);
	run_free(&r);
	text = slurp(path);
	assert_true(!strncmp(text, "type,", 5));
	free(text);
	unlink(path);
}

/* The output cannot be created or written: one line naming it and why;
 * status 1, or the program's own when it failed. */
static void test_stat_e2e__output_errors(void **state)
{
	struct run r = run(ARGS("-o", "/nonexistent/dir/out", "--", "true"));

	(void)state;
	assert_int_equal(r.status, 1);
	assert_non_null(strstr(r.err, "cannot create /nonexistent/dir/out: No such file"));
	run_free(&r);
	REQUIRE_PERF();
	r = run(ARGS("-o", "/dev/full", "--", PROG, "sleepspin", "0", "1"));
	assert_int_equal(r.status, 1);
	assert_string_equal(r.err, "tdrec stat: cannot write /dev/full: No space left on device\n");
	run_free(&r);
	r = run(
	    ARGS("-o", "/dev/full", "-I", "10", "--csv", "--", PROG, "sleepspin", "0", "1", "5"));
	assert_int_equal(r.status, 5);
	assert_string_equal(r.err, "tdrec stat: cannot write /dev/full: No space left on device\n");
	run_free(&r);
}

/* -o - and standard output closed (>&-): the rows are not written into the
 * fd tdrec opens next (its signalfd: "Invalid argument" before), the error
 * names the closed stream, and the program gets stdout closed as given. */
static void test_stat_e2e__closed_stdout(void **state)
{
	char err[64];
	struct run r;

	(void)state;
	REQUIRE_PERF();
	snprintf(err, sizeof(err), "/tmp/tdr_stat_err_%d", (int)getpid());
	r = finish(start(ARGS("-o", "-", "--", "sh", "-c", "echo x 2>/dev/null || exit 4"), NULL,
			 err),
		   NULL, err);
	assert_int_equal(r.status, 4);
	assert_string_equal(r.err,
			    "tdrec stat: cannot write to standard output: Bad file descriptor\n");
	run_free(&r);
}

/* A reader that goes away (-o - | head) does not kill tdrec: the program runs
 * to its end, its status is tdrec's, and the broken pipe is one line. The
 * program's own SIGPIPE is untouched ('yes | head' inside ends). */
static void test_stat_e2e__closed_pipe(void **state)
{
	const char *argv[] = {getenv("TDREC"),
			      "stat",
			      "-o",
			      "-",
			      "-I",
			      "20",
			      "--",
			      "sh",
			      "-c",
			      "yes | head -1 >/dev/null; sleep 0.2; exit 3",
			      NULL};
	posix_spawn_file_actions_t fa;
	char errf[64];
	int fds[2], st;
	char *err;
	pid_t p;

	(void)state;
	REQUIRE_PERF();
	snprintf(errf, sizeof(errf), "/tmp/tdr_stat_pipe_%d", (int)getpid());
	assert_int_equal(pipe(fds), 0);
	close(fds[0]); /* nobody reads: the first row meets EPIPE */
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, fds[1], 1);
	posix_spawn_file_actions_addopen(&fa, 2, errf, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	assert_int_equal(posix_spawn(&p, argv[0], &fa, NULL, (char *const *)argv, environ), 0);
	posix_spawn_file_actions_destroy(&fa);
	close(fds[1]);
	assert_int_equal(waitpid(p, &st, 0), p);
	err = slurp(errf);
	unlink(errf);
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 3);
	assert_string_equal(err, "tdrec stat: cannot write to standard output: Broken pipe\n");
	free(err);
}

/* tdrec stat --json -- PROGRAM | jq: the pipe gets the program's lines
 * only, the document goes to standard error, whole; -o - puts it after
 * them on standard output; an error is a plain line on standard error,
 * never JSON in the program's stream. */
static void test_stat_e2e__program_stdout_is_its_own(void **state)
{
	struct run r;
	struct jm *doc;

	(void)state;
	REQUIRE_PERF();
	r = run(ARGS("--json", "--", "sh", "-c", "echo program-line"));
	assert_int_equal(r.status, 0);
	assert_string_equal(r.out, "program-line\n");
	doc = parse(&r);
	assert_string_equal(jm_get(doc, "plan")->str, "software");
	jm_free(doc);
	run_free(&r);

	r = run(ARGS("--csv", "--", "sh", "-c", "echo program-line"));
	assert_int_equal(r.status, 0);
	assert_string_equal(r.out, "program-line\n");
	assert_ptr_equal(strstr(r.err, "type,"), r.err);
	run_free(&r);

	r = run(ARGS("--json", "-o", "-", "--", "sh", "-c", "echo program-line"));
	assert_int_equal(r.status, 0);
	assert_ptr_equal(strstr(r.out, "program-line\n{"), r.out);
	assert_string_equal(r.err, "");
	{
		size_t where = 0;
		struct jm *d = jm_parse(r.out + strlen("program-line\n"), &where);

		assert_non_null(d);
		jm_free(d);
	}
	run_free(&r);

	r = run(ARGS("--json", "-I", "5", "--", "true"));
	assert_int_equal(r.status, 2);
	assert_string_equal(r.out, "");
	assert_ptr_equal(strstr(r.err, "tdrec stat: -I"), r.err);
	run_free(&r);
}

static void test_stat_e2e__usage_errors(void **state)
{
	const char *const *bad[] = {
	    ARGS("-I", "5", "--", "true"),	  ARGS("-I", "x", "--", "true"),
	    ARGS("--per-thread", "-a"),		  ARGS("--json", "--csv", "--", "true"),
	    ARGS("--plan", "fast", "--", "true"), ARGS("--bogus", "--", "true"),
	    ARGS("-p", "1", "--", "true"),	  ARGS("-I"),
	};
	struct run r = run(ARGS("--help"));

	(void)state;
	assert_int_equal(r.status, 0);
	assert_non_null(strstr(r.out, "usage: tdrec stat"));
	run_free(&r);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		r = run(bad[i]);
		assert_int_equal(r.status, 2);
		assert_true(strlen(r.err) > 0 || strstr(r.out, "\"error\""));
		run_free(&r);
	}
	/* Nothing to count. */
	{
		const char *empty[] = {NULL};

		r = run(empty);
		assert_int_equal(r.status, 2);
		run_free(&r);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_stat_e2e__sleep_then_spin),
	    cmocka_unit_test(test_stat_e2e__intervals_add_up),
	    cmocka_unit_test(test_stat_e2e__csv),
	    cmocka_unit_test(test_stat_e2e__per_thread),
	    cmocka_unit_test(test_stat_e2e__attach_pid),
	    cmocka_unit_test(test_stat_e2e__attach_pid_and_its_thread),
	    cmocka_unit_test(test_stat_e2e__agrees_with_perf_stat),
	    cmocka_unit_test(test_stat_e2e__system_wide_members_count),
	    cmocka_unit_test(test_stat_e2e__exit_status),
	    cmocka_unit_test(test_stat_e2e__signal_is_forwarded),
	    cmocka_unit_test(test_stat_e2e__missing_program),
	    cmocka_unit_test(test_stat_e2e__failed_start_keeps_output),
	    cmocka_unit_test(test_stat_e2e__closed_stdout),
	    cmocka_unit_test(test_stat_e2e__output_errors),
	    cmocka_unit_test(test_stat_e2e__closed_pipe),
	    cmocka_unit_test(test_stat_e2e__program_stdout_is_its_own),
	    cmocka_unit_test(test_stat_e2e__usage_errors),
	};

	return cmocka_run_group_tests(tests, group_setup, NULL);
}
