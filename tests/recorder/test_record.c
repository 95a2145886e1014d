/*
 * tests/recorder/test_record.c - real recordings with the software plan.
 *
 * Each test runs the tdrec binary ($TDREC) on a small program from
 * tests/recorder/progs, then reads the file back with the format reader and
 * the parser: samples present, per-thread group values, the trailer, exit
 * statuses. Failure paths are in test_record_errors.c. Real runs are short
 * (about 0.2 s of work) and nothing asserts timing. Tests skip() when
 * perf_event_open is forbidden here.
 */
#include <errno.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <time.h>

#include "record_fixture.h"
#include "tdrec/format.h"
#include "tdrec/parser.h"
#include "tdrec/recorder.h"
#include "tdrec/tdr_mem.h"

/* ---- reading a recording back ---- */

#define MAX_TIDS 64

struct tid_stats {
	uint32_t pid, tid;
	uint64_t samples;
	char comm[32];
	/* raw group values of this thread's samples (task-clock = member 1),
	 * sorted by (sampler id, time): an inherited thread has one child
	 * event per CPU, each with its own count, so a stream is (id, tid);
	 * and frames come per CPU, not in time order. first/last: of the
	 * thread's longest stream. */
	uint64_t first_val1, last_val1;
	bool val1_backwards;
	size_t val_cnt;
	struct tv {
		uint64_t id, time, val;
	} vals[8192];
};

struct readback {
	size_t tid_cnt;
	struct tid_stats tids[MAX_TIDS];
	uint64_t samples;
	uint64_t samples_with_comm;
	uint64_t samples_in_spin; /* whose IP maps into the spin executable */
};

static int on_sample(const struct tdr_sample *s, void *ctx)
{
	struct readback *rb = ctx;
	struct tid_stats *t = NULL;

	rb->samples++;
	for (size_t i = 0; i < rb->tid_cnt; i++)
		if (rb->tids[i].tid == s->tid)
			t = &rb->tids[i];
	if (!t && rb->tid_cnt < MAX_TIDS) {
		t = &rb->tids[rb->tid_cnt++];
		t->pid = s->pid;
		t->tid = s->tid;
	}
	if (t) {
		t->samples++;
		if (s->comm && s->comm[0])
			snprintf(t->comm, sizeof(t->comm), "%s", s->comm);
	}
	if (s->comm && s->comm[0])
		rb->samples_with_comm++;
	if (s->map && s->map->path && strstr(s->map->path, "tdr_prog_spin"))
		rb->samples_in_spin++;
	return 0;
}

static int cmp_time(const void *a, const void *b)
{
	const struct tv *x = a, *y = b;

	if (x->id != y->id)
		return x->id < y->id ? -1 : 1;
	return x->time < y->time ? -1 : x->time > y->time;
}

/*
 * A minimal SAMPLE decoder for the software plan's sample_type
 * (IDENTIFIER|IP|TID|TIME|CPU|PERIOD|READ, read_format GROUP|ID|TOTAL_TIME_*
 * [|LOST]): per thread, the first and last value of group member 1.
 */
static void raw_group_values(const char *path, struct readback *rb)
{
	const uint64_t want_st = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID |
				 PERF_SAMPLE_TIME | PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD |
				 PERF_SAMPLE_READ;
	struct tdr_reader *r = NULL;
	struct tdr_frame_buf fb = {0};
	const struct tdr_meta *m;
	uint64_t rf = 0;
	size_t per, base;

	assert_int_equal(tdr_reader__open(path, &r), 0);
	m = tdr_reader__meta(r);
	assert_true(m->event_cnt >= 2);
	assert_int_equal(m->events[0].attr.sample_type, want_st);
	/* Samples are laid out by the sampler's read_format, which the
	 * session trims (docs/record.md "What a sample reads"): no LOST, and
	 * in the software plan no times either. */
	for (size_t e = 0; e < m->event_cnt; e++)
		if (m->events[e].flags & TDR_EVENT_SAMPLER)
			rf = m->events[e].attr.read_format;
	assert_true(rf & PERF_FORMAT_GROUP);
	assert_false(rf & PERF_FORMAT_LOST);
	if (!strcmp(m->plan_name, "software"))
		assert_false(rf & (PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING));
	per = 1 + !!(rf & PERF_FORMAT_ID) + !!(rf & PERF_FORMAT_LOST);
	base = 7 + !!(rf & PERF_FORMAT_TOTAL_TIME_ENABLED) +
	       !!(rf & PERF_FORMAT_TOTAL_TIME_RUNNING);
	for (size_t fi = 0; fi < tdr_reader__frame_cnt(r); fi++) {
		struct tdr_record_iter it;
		const struct perf_event_header *h;

		assert_int_equal(tdr_reader__load_frame(r, fi, &fb), 0);
		it = (struct tdr_record_iter){.data = fb.data, .sz = fb.sz};
		while (tdr_records__next(&it, &h) > 0) {
			const uint64_t *u = (const uint64_t *)(const void *)(h + 1);
			uint32_t tid;
			uint64_t nr, v1;

			if (h->type != PERF_RECORD_SAMPLE)
				continue;
			/* id, ip, pid|tid, time, cpu, period, nr, [ena, run,] values */
			tid = (uint32_t)(u[2] >> 32);
			nr = u[6];
			assert_true(nr >= 2);
			assert_true((base + per * nr) * 8 + 8 <= h->size);
			v1 = u[base + per];
			for (size_t i = 0; i < rb->tid_cnt; i++) {
				struct tid_stats *t = &rb->tids[i];

				if (t->tid == tid && t->val_cnt < 8192)
					t->vals[t->val_cnt++] = (struct tv){u[0], u[3], v1};
			}
		}
	}
	tdr_frame_buf__release(&fb);
	tdr_reader__free(r);
	for (size_t i = 0; i < rb->tid_cnt; i++) {
		struct tid_stats *t = &rb->tids[i];

		if (!t->val_cnt)
			continue;
		size_t start = 0, best = 0;

		qsort(t->vals, t->val_cnt, sizeof(t->vals[0]), cmp_time);
		for (size_t k = 1; k <= t->val_cnt; k++) {
			if (k < t->val_cnt && t->vals[k].id == t->vals[start].id) {
				if (t->vals[k].val < t->vals[k - 1].val)
					t->val1_backwards = true;
				continue;
			}
			if (k - start > best) { /* end of a stream */
				best = k - start;
				t->first_val1 = t->vals[start].val;
				t->last_val1 = t->vals[k - 1].val;
			}
			start = k;
		}
	}
}

/* Parse the file: every sample, per thread. Checks the trailer. */
static void read_back(const char *path, struct readback *rb, bool want_trailer)
{
	struct tdr_parser *p = NULL;
	const struct tdr_file_status *st;

	memset(rb, 0, sizeof(*rb));
	assert_int_equal(tdr_parser__open(path, &p), 0);
	st = tdr_parser__file_status(p);
	assert_non_null(st);
	if (want_trailer)
		assert_true(st->has_trailer);
	assert_int_equal(tdr_parser__run(p, on_sample, rb), 0);
	assert_string_equal(tdr_parser__meta(p)->plan_name, "software");
	tdr_parser__free(p);
}

/* ---- tests ---- */

static void test_record__single_thread(void **state)
{
	struct fixture *f = *state;
	const char *args[] = {"record", "--plan",  "software", "-o", f->out,
			      "--",	SPIN_PATH, "0.2",      NULL};
	static struct readback rb; /* large: per-thread value arrays */
	struct tdr_reader *r = NULL;
	const struct tdr_run_end *end;
	const struct tdr_meta *m;

	SKIP_UNLESS_PERF();
	assert_int_equal(run_tdrec(f, NULL, args), 0);
	assert_non_null(strstr(slurp(f->errf), "samples written"));
	read_back(f->out, &rb, true);
	assert_true(rb.samples > 10);
	/* The work is the main thread's. (A sanitizer build's exit-time
	 * leak check may add a short-lived helper thread with a sample or
	 * two, hence not "exactly one thread".) */
	assert_int_equal(rb.tids[0].pid, rb.tids[0].tid);
	assert_true(rb.tids[0].samples * 10 >= rb.samples * 9);
	assert_non_null(strstr(rb.tids[0].comm, "spin"));

	assert_int_equal(tdr_reader__open(f->out, &r), 0);
	end = tdr_reader__run_end(r);
	assert_non_null(end);
	assert_int_equal(end->exit_code, 0);
	assert_int_equal(end->flags & (TDR_END_SIGNALLED | TDR_END_INTERRUPTED), 0);
	m = tdr_reader__meta(r);
	assert_true(m->flags & TDR_META_INHERIT);
	assert_non_null(m->hostname);
	assert_non_null(m->kernel_release);
	assert_true(m->nr_cpus >= 1);
	assert_true(m->events[0].id_cnt >= 1);
	assert_int_equal(m->events[0].attr.watermark, 1);
	assert_true(m->events[0].attr.wakeup_watermark > 0);
	assert_true(tdr_reader__totals(r)->samples == rb.samples);
	assert_true(tdr_reader__totals(r)->events[0].samples == rb.samples);
	assert_false(exists(f->partial));
	tdr_reader__free(r);
}

static void test_record__two_threads_have_their_own_values(void **state)
{
	struct fixture *f = *state;
	const char *args[] = {"record", "--plan",  "software", "-q", "-o", f->out,
			      "--",	SPIN_PATH, "0.2",      "2",  NULL};
	static struct readback rb; /* large: per-thread value arrays */
	size_t workers = 0;

	SKIP_UNLESS_PERF();
	assert_int_equal(run_tdrec(f, NULL, args), 0);
	assert_null(strstr(slurp(f->errf), "samples written")); /* -q */
	read_back(f->out, &rb, true);
	raw_group_values(f->out, &rb);
	for (size_t i = 0; i < rb.tid_cnt; i++) {
		struct tid_stats *t = &rb.tids[i];

		if (t->tid == t->pid || t->samples < 5)
			continue; /* the main thread only waits */
		workers++;
		/* Per-thread counts (inherit + PERF_SAMPLE_READ): values only
		 * grow within a thread and start near this thread's 0, not at
		 * the other thread's running total. */
		assert_false(t->val1_backwards);
		assert_true(t->first_val1 < t->last_val1 / 2);
	}
	assert_int_equal(workers, 2);
}

static void test_record__fork_and_exec(void **state)
{
	struct fixture *f = *state;
	const char *args[] = {"record", "--plan",      "software", "-o",  f->out,
			      "--",	FORKEXEC_PATH, SPIN_PATH,  "0.2", NULL};
	static struct readback rb; /* large: per-thread value arrays */
	bool child_seen = false;

	SKIP_UNLESS_PERF();
	assert_int_equal(run_tdrec(f, NULL, args), 0);
	read_back(f->out, &rb, true);
	for (size_t i = 0; i < rb.tid_cnt; i++)
		if (strstr(rb.tids[i].comm, "spin") && rb.tids[i].samples > 5)
			child_seen = true;
	assert_true(child_seen);
}

/* State from /proc/PID/stat is R or S (not Z, not gone). */
static bool running(pid_t pid)
{
	char path[64], buf[512], *p;
	FILE *fp;
	size_t n;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	fp = fopen(path, "r");
	if (!fp)
		return false;
	n = fread(buf, 1, sizeof(buf) - 1, fp);
	fclose(fp);
	buf[n] = 0;
	p = strrchr(buf, ')');
	return p && p[1] == ' ' && (p[2] == 'R' || p[2] == 'S');
}

static void test_record__attach_to_running_process(void **state)
{
	struct fixture *f = *state;
	char pidtxt[32];
	const char *args[] = {"record", "--plan", "software", "-o", f->out, "-p", pidtxt, NULL};
	const char *info_args[] = {"info", f->out, NULL};
	char info_out[320];
	pid_t spin, rec;
	static struct readback rb; /* large: per-thread value arrays */
	struct tdr_reader *r = NULL;
	bool synth_first;

	SKIP_UNLESS_PERF();
	spin = fork();
	assert_true(spin >= 0);
	if (spin == 0) {
		execl(SPIN_PATH, SPIN_PATH, "30", NULL);
		_exit(99);
	}
	snprintf(pidtxt, sizeof(pidtxt), "%d", (int)spin);
	rec = start_tdrec(f, NULL, args);
	wait_for_file(f->partial);
	usleep(200000); /* let it record a little; nothing is asserted on time */
	kill(rec, SIGINT);
	assert_int_equal(wait_status(rec), 0);
	/* The process keeps running after the recorder stopped (not a zombie). */
	assert_true(running(spin));
	kill(spin, SIGKILL);
	waitpid(spin, NULL, 0);

	read_back(f->out, &rb, true);
	assert_true(rb.samples > 0);
	/* The members count from the open on (the group is opened stopped and
	 * started whole): task-clock advances between the thread's samples. */
	raw_group_values(f->out, &rb);
	assert_int_equal(rb.tids[0].tid, spin);
	assert_false(rb.tids[0].val1_backwards);
	assert_true(rb.tids[0].last_val1 > rb.tids[0].first_val1);
	/* MMAP2/COMM synthesized from /proc come first and name the thread. */
	assert_true(rb.samples_with_comm == rb.samples);
	/* ...and the spin executable's mapping: its work loop is sampled. */
	assert_true(rb.samples_in_spin > 0);
	assert_int_equal(tdr_reader__open(f->out, &r), 0);
	synth_first =
	    tdr_reader__frame_cnt(r) > 0 && tdr_reader__frame(r, 0)->ring == TDR_RING_SYNTHETIC;
	assert_true(synth_first);
	assert_true(tdr_reader__meta(r)->flags & TDR_META_ATTACHED);
	/* As opened: the leader stopped, without enable_on_exec. */
	assert_int_equal(tdr_reader__meta(r)->events[0].attr.disabled, 1);
	assert_int_equal(tdr_reader__meta(r)->events[0].attr.enable_on_exec, 0);
	assert_true(tdr_reader__run_end(r)->flags & TDR_END_NO_PROGRAM);
	tdr_reader__free(r);
	/* ...which tdrec info shows as no program, not as an exit code. */
	snprintf(info_out, sizeof(info_out), "%s/info", f->dir);
	assert_int_equal(run_tdrec(f, info_out, info_args), 0);
	assert_non_null(strstr(slurp(info_out), "program:     none launched"));
}

/* A sysfs root for TDREC_SYSFS with this machine's online CPUs and no core
 * PMU (a VM): the software plan is chosen, with the reasons. */
static void fake_vm_sysfs(struct fixture *f, char *root, size_t sz)
{
	char cmd[1200];

	snprintf(root, sz, "%s/sysfs", f->dir);
	snprintf(cmd, sizeof(cmd),
		 "mkdir -p %s/devices/system/cpu %s/bus/event_source/devices && "
		 "cp /sys/devices/system/cpu/online %s/devices/system/cpu/online",
		 root, root, root);
	assert_int_equal(system(cmd), 0);
}

/* Recording starts with a line saying which plan runs when it is not the
 * best one (auto chose it because TopDown is missing), and the plan's own
 * notes (an -e the plan ignores) as warnings; -q keeps only warnings. */
static void test_record__says_which_plan_runs(void **state)
{
	struct fixture *f = *state;
	char root[300];
	const char *plain[] = {"record", "-o", f->out, "--", SPIN_PATH, "0.01", NULL};
	const char *ignored[] = {"record", "-q", "-e",	    "instructions", "-o",
				 f->out,   "--", SPIN_PATH, "0.01",	    NULL};
	const char *err;

	SKIP_UNLESS_PERF();
	fake_vm_sysfs(f, root, sizeof(root));
	setenv("TDREC_SYSFS", root, 1);
	assert_int_equal(run_tdrec(f, NULL, plain), 0);
	err = slurp(f->errf);
	assert_non_null(strstr(err, "plan software, no TopDown (topdown-l1 not available: no core "
				    "PMU (cpu or cpu_core)"));
	assert_non_null(strstr(err, "samples written"));
	assert_int_equal(count_lines(err), 2);
	assert_int_equal(run_tdrec(f, NULL, ignored), 0);
	err = slurp(f->errf);
	assert_non_null(strstr(err, "-e instructions is not a software event and was ignored"));
	assert_int_equal(count_lines(err), 1);
	unsetenv("TDREC_SYSFS");
}

/* Whether a CPU-wide event may be opened here (-a: root, or paranoid <= 0). */
static bool cpu_wide_allowed(void)
{
	struct perf_event_attr a = {
	    .type = PERF_TYPE_SOFTWARE,
	    .size = sizeof(a),
	    .config = PERF_COUNT_SW_CPU_CLOCK,
	    .disabled = 1,
	    .exclude_kernel = 1,
	};
	long fd = syscall(SYS_perf_event_open, &a, -1, 0, -1, 0);

	if (fd < 0)
		return false;
	close((int)fd);
	return true;
}

/* -a: per-CPU groups of every task. Every member counts, not only the
 * leader: members added to a CPU-wide group that already runs are never
 * scheduled in, so the session opens it stopped and starts it whole. */
static void test_record__system_wide_members_count(void **state)
{
	struct fixture *f = *state;
	const char *args[] = {"record", "-a", "--plan",	 "software", "-q", "-o",
			      f->out,	"--", SPIN_PATH, "0.3",	     NULL};
	static struct readback rb; /* large: per-thread value arrays */
	const struct tid_stats *spin = NULL;
	struct tdr_reader *r = NULL;

	SKIP_UNLESS_PERF();
	if (!cpu_wide_allowed()) {
		fprintf(stderr, "CPU-wide events are not allowed here: skipped\n");
		skip();
	}
	assert_int_equal(run_tdrec(f, NULL, args), 0);
	read_back(f->out, &rb, true);
	raw_group_values(f->out, &rb);
	for (size_t i = 0; i < rb.tid_cnt; i++)
		if (strstr(rb.tids[i].comm, "spin") &&
		    (!spin || rb.tids[i].samples > spin->samples))
			spin = &rb.tids[i];
	assert_non_null(spin);
	assert_true(spin->samples > 5);
	/* task-clock (member 1) of the CPU-wide group advances. */
	assert_true(spin->last_val1 > spin->first_val1);
	assert_int_equal(tdr_reader__open(f->out, &r), 0);
	assert_true(tdr_reader__meta(r)->flags & TDR_META_SYSTEM_WIDE);
	assert_true(tdr_reader__totals(r)->samples == rb.samples);
	tdr_reader__free(r);
}

static void test_record__sigint_finishes_the_file(void **state)
{
	struct fixture *f = *state;
	const char *args[] = {"record", "--plan",  "software", "-o", f->out,
			      "--",	SPIN_PATH, "30",       NULL};
	struct tdr_reader *r = NULL;
	const struct tdr_run_end *end;
	pid_t rec;

	SKIP_UNLESS_PERF();
	rec = start_tdrec(f, NULL, args);
	wait_for_file(f->partial);
	usleep(200000);
	kill(rec, SIGINT); /* forwarded: the program dies of SIGINT */
	assert_int_equal(wait_status(rec), 128 + SIGINT);
	assert_non_null(strstr(slurp(f->errf), "killed by signal 2"));
	assert_int_equal(tdr_reader__open(f->out, &r), 0);
	assert_true(tdr_reader__status(r)->has_trailer);
	assert_false(tdr_reader__status(r)->truncated);
	end = tdr_reader__run_end(r);
	assert_non_null(end);
	assert_true(end->flags & TDR_END_INTERRUPTED);
	assert_true(end->flags & TDR_END_SIGNALLED);
	assert_int_equal(end->term_signal, SIGINT);
	assert_true(tdr_reader__totals(r)->samples > 0);
	tdr_reader__free(r);
}

/* The SigIgn mask of pid (/proc/PID/status), 0 when unreadable. */
static unsigned long long sig_ignored_mask(pid_t pid)
{
	char path[64], line[256];
	unsigned long long m = 0;
	FILE *fp;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	fp = fopen(path, "r");
	if (!fp)
		return 0;
	while (fgets(line, sizeof(line), fp))
		if (sscanf(line, "SigIgn: %llx", &m) == 1)
			break;
	fclose(fp);
	return m;
}

/* tdrec started with SIGINT ignored, as a script's 'tdrec record ... &'
 * is: the program inherits SIGINT ignored (as it would without tdrec), and
 * kill -INT to tdrec still ends the run: the program gets SIGTERM (perf
 * record ends its workload so), the file is finished. */
static void test_record__sigint_when_inherited_ignored(void **state)
{
	struct fixture *f = *state;
	const char *args[] = {"record", "--plan",  "software", "-q", "-o", f->out,
			      "--",	SPIN_PATH, "20",       NULL};
	struct sigaction ign = {.sa_handler = SIG_IGN}, old;
	struct tdr_reader *r = NULL;
	char path[64], *kids;
	pid_t rec, prog = 0;

	SKIP_UNLESS_PERF();
	sigaction(SIGINT, &ign, &old);
	rec = start_tdrec(f, NULL, args);
	sigaction(SIGINT, &old, NULL);
	assert_true(sig_ignored_mask(rec) & (1ULL << (SIGINT - 1)));
	wait_for_file(f->partial);
	snprintf(path, sizeof(path), "/proc/%d/task/%d/children", (int)rec, (int)rec);
	for (int i = 0; i < 500 && !prog; i++, usleep(10000)) {
		kids = slurp(path);
		prog = (pid_t)atoi(kids);
	}
	assert_true(prog > 0);
	assert_true(sig_ignored_mask(prog) & (1ULL << (SIGINT - 1)));
	kill(rec, SIGINT);
	assert_int_equal(wait_status(rec), 128 + SIGTERM);
	assert_int_equal(tdr_reader__open(f->out, &r), 0);
	assert_true(tdr_reader__status(r)->has_trailer);
	assert_true(tdr_reader__run_end(r)->flags & TDR_END_INTERRUPTED);
	assert_int_equal(tdr_reader__run_end(r)->term_signal, SIGTERM);
	tdr_reader__free(r);
}

/* Wait (bounded, 10 s) until path holds needle. */
static void wait_for_text(const char *path, const char *needle)
{
	for (int i = 0; i < 1000 && !strstr(slurp(path), needle); i++)
		usleep(10000);
	assert_non_null(strstr(slurp(path), needle));
}

/* SIGTERM and SIGHUP sent to tdrec reach the program (which traps them and
 * runs on); the third signal kills it: tdrec exits 128+9, the file is
 * finished and says so. */
static void test_record__signals_are_forwarded_third_kills(void **state)
{
	struct fixture *f = *state;
	char marks[300], script[1400];
	const char *args[] = {"record", "-q", "-o", f->out, "--", "/bin/sh", "-c", script, NULL};
	struct tdr_reader *r = NULL;
	const struct tdr_run_end *end;
	pid_t rec;

	SKIP_UNLESS_PERF();
	snprintf(marks, sizeof(marks), "%s/marks", f->dir);
	snprintf(script, sizeof(script),
		 "trap 'echo TERM >> %s' TERM; trap 'echo HUP >> %s' HUP; "
		 "trap 'echo INT >> %s' INT; echo ready >> %s; while :; do :; done",
		 marks, marks, marks, marks);
	rec = start_tdrec(f, NULL, args);
	wait_for_text(marks, "ready");
	kill(rec, SIGTERM);
	wait_for_text(marks, "TERM");
	kill(rec, SIGHUP);
	wait_for_text(marks, "HUP");
	kill(rec, SIGINT); /* the third: SIGKILL, the trap never runs */
	assert_int_equal(wait_status(rec), 128 + SIGKILL);
	assert_null(strstr(slurp(marks), "INT"));
	assert_non_null(strstr(slurp(f->errf), "killed by signal 9 (SIGKILL)"));
	assert_int_equal(tdr_reader__open(f->out, &r), 0);
	assert_true(tdr_reader__status(r)->has_trailer);
	end = tdr_reader__run_end(r);
	assert_true(end->flags & TDR_END_INTERRUPTED);
	assert_int_equal(end->term_signal, SIGKILL);
	tdr_reader__free(r);
}

/* Ctrl-C on tdrec's terminal (SI_KERNEL, sent to tdrec's process group)
 * reaches a program that moved to a group of its own (setsid) only through
 * tdrec: it is forwarded then (and not otherwise: the program got it).
 * Here: tdrec CMD... -- setsid sh -c SCRIPT on a pty, ^C typed at it; the
 * script's trap runs, and its status 3 is tdrec's. */
static void ctrl_c_reaches_setsid_program(struct fixture *f, const char *const *cmd, size_t cmd_cnt)
{
	char marks[300], script[1400];
	const char *tdrec = getenv("TDREC");
	const char *tail[] = {"--", "setsid", "/bin/sh", "-c", script};
	char *argv[16];
	size_t n = 0;
	int master;
	pid_t rec;

	snprintf(marks, sizeof(marks), "%s/marks-%s", f->dir, cmd[0]);
	/* Bounded even if the test fails: spin ends after 20 s by itself. */
	snprintf(script, sizeof(script),
		 "trap 'echo INT >> %s; kill $!' INT; %s 20 & echo ready >> %s; wait; exit 3",
		 marks, SPIN_PATH, marks);
	argv[n++] = (char *)tdrec;
	for (size_t i = 0; i < cmd_cnt; i++)
		argv[n++] = (char *)cmd[i];
	for (size_t i = 0; i < TDR_ARRAY_SIZE(tail); i++)
		argv[n++] = (char *)tail[i];
	argv[n] = NULL;
	master = posix_openpt(O_RDWR | O_NOCTTY);
	assert_true(master >= 0);
	assert_int_equal(grantpt(master), 0);
	assert_int_equal(unlockpt(master), 0);
	rec = fork();
	assert_true(rec >= 0);
	if (rec == 0) {
		/* A session whose controlling terminal is the pty: tdrec's group
		 * is its foreground group, as in a shell. */
		int tty, e = open(f->errf, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		int o = open("/dev/null", O_WRONLY);

		setsid();
		tty = open(ptsname(master), O_RDWR);
		if (tty < 0 || ioctl(tty, TIOCSCTTY, 0) < 0)
			_exit(98);
		dup2(tty, 0);
		dup2(o, 1);
		dup2(e, 2);
		execv(tdrec, argv);
		_exit(99);
	}
	f->child = rec; /* teardown kills it if a check fails */
	wait_for_text(marks, "ready");
	assert_int_equal(write(master, "\003", 1), 1); /* ^C */
	wait_for_text(marks, "INT");
	/* The trap ran and the program exited 3: tdrec's status. */
	assert_int_equal(wait_status(rec), 3);
	f->child = 0;
	close(master);
}

/* record and stat share the signal policy (runtime/targets.c). */
static void test_record__terminal_ctrl_c_reaches_a_setsid_program(void **state)
{
	struct fixture *f = *state;
	char stat_out[320];
	const char *record[] = {"record", "-q", "-o", f->out};
	const char *stat[] = {"stat", "-o", stat_out};

	SKIP_UNLESS_PERF();
	if (access("/usr/bin/setsid", X_OK) && access("/bin/setsid", X_OK)) {
		fprintf(stderr, "no setsid(1): skipped\n");
		skip();
	}
	snprintf(stat_out, sizeof(stat_out), "%s/stat.txt", f->dir);
	ctrl_c_reaches_setsid_program(f, record, TDR_ARRAY_SIZE(record));
	ctrl_c_reaches_setsid_program(f, stat, TDR_ARRAY_SIZE(stat));
	assert_non_null(strstr(slurp(stat_out), "tdrec stat:"));
}

/* A recorder killed with SIGKILL leaves FILE.partial, readable up to its
 * last frame, and an existing FILE untouched; frames are written while
 * recording (the periodic flush), not only at the end. */
static void test_record__killed_recorder_leaves_readable_partial(void **state)
{
	struct fixture *f = *state;
	const char *args[] = {"record", "--plan",  "software", "-o", f->out,
			      "--",	SPIN_PATH, "30",       NULL};
	struct tdr_reader *r = NULL;
	off_t meta_sz;
	size_t kernel_frames = 0;
	pid_t rec;
	FILE *fp;

	SKIP_UNLESS_PERF();
	fp = fopen(f->out, "w");
	assert_non_null(fp);
	fputs("precious", fp);
	fclose(fp);
	rec = start_tdrec(f, NULL, args);
	wait_for_file(f->partial);
	usleep(50000);
	meta_sz = file_size(f->partial);
	/* Wait (bounded, 10 s) for a frame to be flushed while recording. */
	for (int i = 0; i < 1000 && file_size(f->partial) <= meta_sz; i++)
		usleep(10000);
	assert_true(file_size(f->partial) > meta_sz);
	kill(-rec, SIGKILL); /* tdrec and the program */
	wait_status(rec);
	/* The existing output was never touched. */
	assert_string_equal(slurp(f->out), "precious");
	assert_int_equal(tdr_reader__open(f->partial, &r), 0);
	assert_false(tdr_reader__status(r)->has_trailer);
	for (size_t i = 0; i < tdr_reader__frame_cnt(r); i++)
		kernel_frames += tdr_reader__frame(r, i)->ring != TDR_RING_SYNTHETIC;
	assert_true(kernel_frames > 0);
	tdr_reader__free(r);
}

static void test_record__exit_status_is_the_programs(void **state)
{
	struct fixture *f = *state;
	const char *exit7[] = {"record", "-q", "-o", f->out, SPIN_PATH, "0.01", "0", "7", NULL};
	const char *segv[] = {"record",	       "-q", "-o", f->out, "--", "/bin/sh", "-c",
			      "kill -SEGV $$", NULL};

	SKIP_UNLESS_PERF();
	assert_int_equal(run_tdrec(f, NULL, exit7), 7);
	assert_int_equal(run_tdrec(f, NULL, segv), 128 + SIGSEGV);
	assert_non_null(strstr(slurp(f->errf), "killed by signal 11 (SIGSEGV)"));
}

/* The draining thread runs at nice TDR_DRAIN_NICE where the test may raise
 * priorities (root here), every other thread of tdrec and the program at
 * the test's own nice; the program prints them from /proc (field 19). */
static void test_record__drain_thread_priority(void **state)
{
	struct fixture *f = *state;
	char outf[320];
	const char *args[] = {"record", "-q", "-o", f->out, "--", "/bin/sh", "-c",
			      "for t in /proc/$PPID/task/*; do sed 's/.*) //' $t/stat | cut -d' ' "
			      "-f17; done; echo program; sed 's/.*) //' /proc/self/stat | cut -d' ' -f17",
			      NULL};
	int mine, raised = 0, program = 1000;
	bool after = false;
	char *line, *save = NULL;

	SKIP_UNLESS_PERF();
	errno = 0;
	mine = getpriority(PRIO_PROCESS, 0);
	assert_int_equal(errno, 0);
	snprintf(outf, sizeof(outf), "%s/nice.txt", f->dir);
	assert_int_equal(run_tdrec(f, outf, args), 0);
	for (line = strtok_r(slurp(outf), "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		if (!strcmp(line, "program")) {
			after = true;
			continue;
		}
		if (after)
			program = atoi(line);
		else if (atoi(line) == TDR_DRAIN_NICE && mine > TDR_DRAIN_NICE)
			raised++;
		else if (atoi(line) != mine)
			fail_msg("a tdrec thread at nice %s (the test runs at %d)", line, mine);
	}
	/* The writer thread is made after the program starts: listed or not,
	 * it is at the test's nice (checked above). */
	assert_int_equal(program, mine);
	if (geteuid() == 0 && mine > TDR_DRAIN_NICE)
		assert_int_equal(raised, 1);
	else
		assert_true(raised <= 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_record__single_thread, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_record__two_threads_have_their_own_values, setup,
					    teardown),
	    cmocka_unit_test_setup_teardown(test_record__fork_and_exec, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_record__attach_to_running_process, setup,
					    teardown),
	    cmocka_unit_test_setup_teardown(test_record__says_which_plan_runs, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_record__system_wide_members_count, setup,
					    teardown),
	    cmocka_unit_test_setup_teardown(test_record__sigint_finishes_the_file, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_record__sigint_when_inherited_ignored, setup,
					    teardown),
	    cmocka_unit_test_setup_teardown(test_record__signals_are_forwarded_third_kills, setup,
					    teardown),
	    cmocka_unit_test_setup_teardown(test_record__terminal_ctrl_c_reaches_a_setsid_program,
					    setup, teardown),
	    cmocka_unit_test_setup_teardown(test_record__killed_recorder_leaves_readable_partial,
					    setup, teardown),
	    cmocka_unit_test_setup_teardown(test_record__exit_status_is_the_programs, setup,
					    teardown),
	    cmocka_unit_test_setup_teardown(test_record__drain_thread_priority, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
