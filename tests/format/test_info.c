/*
 * tests/format/test_info.c - 'tdrec info' on files the writer made.
 *
 * A recording with known content (6 samples of 3 threads on 2 rings, one
 * PERF_RECORD_LOST of 7 samples, 5 frames, run end) is written with the
 * writer and read back by the tdrec binary ($TDREC): every key the issue
 * names in 'info --json' has its exact value; the same file cut after its
 * third frame, or inside its fourth, reports the prefix (frames, samples,
 * threads) and truncated; the text form says the same; -v prints the attrs
 * and ids; bad files give one error line naming the file and the reason and
 * exit 1; usage errors exit 2.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "fixup_crcs.h"
#include "parser/parser_fixture.h"
#include "report/json_mini.h"
#include "testlib.h"
#include "tdrec/tdr_err.h"

#define START_CLOCK_NS 50
#define DURATION_NS 123456789

struct fixture {
	char dir[64];
	char path[128];
	char out[256], err[256]; /* where run() sends the command's output */
	uint64_t frame_off[8];	 /* FRAME block offsets of the file */
	size_t frame_cnt;
	struct tdr_run_end end; /* written by write_recording */
	char *text;		/* stdout of the last run */
	char *errtext;
};

static char *slurp_text(const char *path)
{
	FILE *f = fopen(path, "rb");
	char *buf;
	long n;

	assert_non_null(f);
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fseek(f, 0, SEEK_SET);
	buf = calloc(1, (size_t)n + 1);
	assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
	fclose(f);
	return buf;
}

/* Run $TDREC with args (NULL-terminated, after argv[0]); stdout and stderr
 * go to f->text and f->errtext. Returns the exit status. */
static int run(struct fixture *f, ...)
{
	const char *tdrec = getenv("TDREC");
	const char *argv[16];
	size_t n = 0;
	va_list ap;
	pid_t pid;
	int st;

	argv[n++] = tdrec;
	va_start(ap, f);
	while (n < 15 && (argv[n] = va_arg(ap, const char *)))
		n++;
	va_end(ap);
	argv[n] = NULL;
	pid = fork();
	assert_true(pid >= 0);
	if (!pid) {
		int o = open(f->out, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		int e = open(f->err, O_WRONLY | O_CREAT | O_TRUNC, 0644);

		if (o < 0 || e < 0 || dup2(o, 1) < 0 || dup2(e, 2) < 0)
			_exit(126);
		/* A command that hangs fails the test (WIFEXITED) instead. */
		alarm(60);
		execv(tdrec, (char *const *)argv);
		_exit(127);
	}
	assert_int_equal(waitpid(pid, &st, 0), pid);
	free(f->text);
	free(f->errtext);
	f->text = slurp_text(f->out);
	f->errtext = slurp_text(f->err);
	assert_true(WIFEXITED(st));
	return WEXITSTATUS(st);
}

/*
 * The recording (codec 1, so a 1.2 file):
 *   synthetic frame: mmap and comm of pid 10
 *   ring 0: tid 11 at 100, tid 12 at 300
 *   ring 1: tid 11 at 200
 *   ring 0: LOST (7 samples), tid 13 at 500
 *   ring 1: tid 12 at 400, tid 11 at 600
 */
static void write_recording(struct fixture *f)
{
	struct fx *x = fx_new(6, TDR_META_INHERIT, true);
	struct tdr_writer_opts o = { .path = f->path, .codec = TDR_CODEC_COLUMNS };
	struct synth_sid sid = fx_sid(0, 11, 1);
	/* The sampler (cycles) lost 5 samples by PERF_FORMAT_LOST; slots was
	 * counted over the run (the others were not). */
	struct tdr_event_totals ev[6] = {
		[0] = { .has_counted = true, .counted = 5000, .time_enabled_ns = 9,
			.time_running_ns = 8 },
		[1] = { .samples = 6, .lost_samples = 5 },
	};
	struct synth_buf b = { 0 };
	struct tdr_writer *w;
	struct tdr_reader *r;

	x->meta.plan_name = strdup("topdown-l1");
	x->meta.start_clock_ns = START_CLOCK_NS;
	x->meta.start_wall_ns = 1700000000000000000ull;
	x->meta.sample_freq = 4000;
	/* A command line with bytes that are not UTF-8 (any file name can). */
	x->meta.argc = 2;
	x->meta.argv = calloc(2, sizeof(char *));
	x->meta.argv[0] = strdup("tdrec");
	x->meta.argv[1] = strdup("caf\xc3\xa9\xff.bin");
	assert_int_equal(tdr_writer__open(&o, &x->meta, &w), 0);
	synth_mmap(&b, &x->attr, false, 0, FX_PID, 11, 0x400000, 0x10000, 0, "/usr/bin/app", NULL,
		   0, &sid);
	synth_comm(&b, &x->attr, FX_PID, 11, "app", false, &sid);
	assert_int_equal(tdr_writer__add_frame(w, TDR_RING_SYNTHETIC, b.data, b.sz), 0);
	synth_buf_reset(&b);
	fx_add_l1_sample(x, &b, 0, 11, 100, FX_IP_A, 1000);
	fx_add_l1_sample(x, &b, 0, 12, 300, FX_IP_B, 400);
	assert_int_equal(tdr_writer__add_frame(w, 0, b.data, b.sz), 0);
	synth_buf_reset(&b);
	fx_add_l1_sample(x, &b, 1, 11, 200, FX_IP_B, 700);
	assert_int_equal(tdr_writer__add_frame(w, 1, b.data, b.sz), 0);
	synth_buf_reset(&b);
	sid = fx_sid(0, 13, 450);
	synth_lost(&b, &x->attr, fx_id(0, 1), 7, &sid);
	fx_add_l1_sample(x, &b, 0, 13, 500, FX_IP_A, 1600);
	assert_int_equal(tdr_writer__add_frame(w, 0, b.data, b.sz), 0);
	synth_buf_reset(&b);
	fx_add_l1_sample(x, &b, 1, 12, 400, FX_IP_A, 900);
	fx_add_l1_sample(x, &b, 1, 11, 600, FX_IP_B, 1000);
	assert_int_equal(tdr_writer__add_frame(w, 1, b.data, b.sz), 0);
	assert_int_equal(tdr_writer__finish(w, ev, 6, &f->end), 0);
	tdr_writer__free(w);
	synth_buf_release(&b);
	fx_free(x);

	assert_int_equal(tdr_reader__open(f->path, &r), 0);
	f->frame_cnt = tdr_reader__frame_cnt(r);
	assert_int_equal(f->frame_cnt, 5);
	for (size_t i = 0; i < f->frame_cnt; i++)
		f->frame_off[i] = tdr_reader__frame(r, i)->offset;
	tdr_reader__free(r);
}

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));

	snprintf(f->dir, sizeof(f->dir), "/tmp/tdr-info-XXXXXX");
	if (!f || !mkdtemp(f->dir))
		return -1;
	snprintf(f->path, sizeof(f->path), "%s/rec.tdr", f->dir);
	snprintf(f->out, sizeof(f->out), "%s/stdout", f->dir);
	snprintf(f->err, sizeof(f->err), "%s/stderr", f->dir);
	f->end = (struct tdr_run_end){ .duration_ns = DURATION_NS, .exit_code = 3 };
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", f->dir);
	if (system(cmd))
		return -1;
	free(f->text);
	free(f->errtext);
	free(f);
	return 0;
}

/* Parse f->text as one JSON object. */
static struct jm *json_of(const struct fixture *f)
{
	size_t where = 0;
	struct jm *j = jm_parse(f->text, &where);

	if (!j)
		fail_msg("invalid JSON at byte %zu:\n%s", where, f->text);
	assert_int_equal(j->t, JM_OBJ);
	return j;
}

static double num(const struct jm *j, const char *key)
{
	const struct jm *v = jm_get(j, key);

	if (!v || v->t != JM_NUM)
		fail_msg("key %s: missing or not a number", key);
	return v->num;
}

static void assert_str_key(const struct jm *j, const char *key, const char *want)
{
	const struct jm *v = jm_get(j, key);

	if (!v || v->t != JM_STR)
		fail_msg("key %s: missing or not a string", key);
	assert_string_equal(v->str, want);
}

static void assert_bool_key(const struct jm *j, const char *key, bool want)
{
	const struct jm *v = jm_get(j, key);

	if (!v || v->t != JM_BOOL)
		fail_msg("key %s: missing or not a bool", key);
	assert_int_equal(v->b, want);
}

/* Exactly one line on stderr, naming what and why; nothing on stdout. */
static void assert_one_error_line(const struct fixture *f, const char *what, const char *why)
{
	const char *nl = strchr(f->errtext, '\n');

	if (!nl || nl[1] || !strstr(f->errtext, what) || !strstr(f->errtext, why))
		fail_msg("want one line naming '%s' and '%s', got:\n%s", what, why, f->errtext);
	assert_string_equal(f->text, "");
}

static void require_tdrec(void)
{
	const char *tdrec = getenv("TDREC");

	if (!tdrec || access(tdrec, X_OK)) {
		print_message("TDREC not set or not built: run through ctest\n");
		fail();
	}
}

static void test_info__json_has_every_key_with_its_value(void **state)
{
	struct fixture *f = *state;
	static const char *const names[] = { "slots", "cycles", "topdown-retiring",
					     "topdown-bad-spec", "topdown-fe-bound",
					     "topdown-be-bound" };
	const struct jm *ev, *ids, *e0;
	struct jm *j;

	require_tdrec();
	write_recording(f);
	assert_int_equal(run(f, "info", "--json", f->path, NULL), 0);
	j = json_of(f);
	assert_str_key(j, "format_version", "1.2");
	assert_str_key(j, "plan", "topdown-l1");
	ev = jm_get(j, "events");
	assert_non_null(ev);
	assert_int_equal(ev->t, JM_ARR);
	assert_int_equal(ev->n, 6);
	for (size_t i = 0; i < 6; i++)
		assert_string_equal(jm_at(ev, i)->str, names[i]);
	assert_int_equal(num(j, "samples"), 6);
	assert_int_equal(num(j, "lost_samples"), 7);
	assert_int_equal(num(j, "lost_records"), 1);
	assert_int_equal(num(j, "records"), 2 + 6 + 1);
	assert_int_equal(num(j, "frames"), 5);
	assert_int_equal(num(j, "threads"), 3);
	assert_bool_key(j, "truncated", false);
	assert_int_equal(num(j, "duration_ns"), DURATION_NS);
	assert_int_equal(num(j, "start_clock_ns"), START_CLOCK_NS);
	assert_int_equal(num(j, "sample_freq"), 4000);
	assert_non_null(strstr(f->text, "\"start_wall_ns\": 1700000000000000000,"));
	assert_int_equal(num(jm_get(j, "run_end"), "exit_code"), 3);
	/* UTF-8 kept, other bytes replaced: the output stays valid JSON. */
	assert_non_null(strstr(f->text, "\"command_line\": [\"tdrec\", \"caf\xc3\xa9\\ufffd.bin\"]"));
	assert_null(strchr(f->text, '\xff'));
	/* Per event: the attr as stored and the kernel ids per CPU. */
	e0 = jm_at(jm_get(j, "event_totals"), 0);
	assert_non_null(e0);
	assert_str_key(e0, "name", "slots");
	assert_bool_key(e0, "leader", true);
	assert_int_equal(num(jm_get(e0, "attr"), "sample_type"),
			 PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID |
				 PERF_SAMPLE_TIME | PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD |
				 PERF_SAMPLE_READ);
	assert_int_equal(strlen(jm_get(jm_get(e0, "attr"), "hex")->str),
			 2 * sizeof(struct perf_event_attr));
	ids = jm_get(e0, "ids");
	assert_non_null(ids);
	assert_int_equal(ids->n, 2);
	assert_int_equal(num(jm_at(ids, 0), "cpu"), 0);
	assert_int_equal(num(jm_at(ids, 0), "id"), fx_id(0, 0));
	assert_int_equal(num(jm_at(ids, 1), "cpu"), 1);
	assert_int_equal(num(jm_at(ids, 1), "id"), fx_id(1, 0));
	assert_int_equal(num(jm_at(ids, 1), "pid"), FX_PID);
	assert_bool_key(jm_get(j, "file_status"), "has_trailer", true);
	assert_int_equal(num(e0, "lost_samples"), 0);
	assert_int_equal(num(jm_at(jm_get(j, "event_totals"), 1), "lost_samples"), 5);
	/* The trailer's COUNTED item: slots only. */
	assert_int_equal(num(e0, "counted"), 5000);
	assert_int_equal(num(e0, "counted_time_enabled_ns"), 9);
	assert_int_equal(num(e0, "counted_time_running_ns"), 8);
	assert_int_equal(jm_get(jm_at(jm_get(j, "event_totals"), 1), "counted")->t, JM_NULL);
	assert_int_equal(
		jm_get(jm_at(jm_get(j, "event_totals"), 1), "counted_time_running_ns")->t,
		JM_NULL);
	jm_free(j);
}

static void test_info__text_says_the_same(void **state)
{
	struct fixture *f = *state;

	require_tdrec();
	write_recording(f);
	assert_int_equal(run(f, "info", f->path, NULL), 0);
	assert_non_null(strstr(f->text, "(tdr format 1.2)"));
	assert_non_null(strstr(f->text, "plan:        topdown-l1\n"));
	assert_non_null(strstr(f->text, "samples:     6 (6 attributed), 3 threads with samples\n"));
	assert_non_null(strstr(f->text, "records:     9 in 5 frames\n"));
	assert_non_null(strstr(f->text, "lost:        1 records (7 samples)"));
	assert_non_null(strstr(f->text, "duration:    0.123 s\n"));
	assert_non_null(strstr(f->text, "program:     exit code 3\n"));
	assert_non_null(strstr(f->text, "sampling:    4000 Hz; launched program"));
	assert_non_null(strstr(f->text, "file status: complete"));
	/* slots' counted total, and only slots'. */
	assert_non_null(strstr(f->text, "\n                           counted 5000 over the run, "));
	assert_null(strstr(strstr(f->text, "counted 5000") + 1, "counted "));
	assert_non_null(strstr(f->text, "\n                           5 samples lost "
					"(PERF_FORMAT_LOST)\n  topdown-retiring "));
	assert_null(strstr(f->text, "    sample_type"));
	/* -v: every attr field and the ids */
	assert_int_equal(run(f, "info", "-v", f->path, NULL), 0);
	assert_non_null(strstr(f->text, "    sample_type          0x10197 (IP|TID|TIME|READ|CPU|"
					"PERIOD|IDENTIFIER)\n"));
	assert_non_null(strstr(f->text, "    ids                 100 (cpu 0 pid 10), 200 (cpu 1 "
					"pid 10)\n"));
}

static void test_info__run_end_flags_are_spelled_out(void **state)
{
	struct fixture *f = *state;

	require_tdrec();
	f->end = (struct tdr_run_end){ .duration_ns = 1, .exit_code = -1,
				       .flags = TDR_END_NO_PROGRAM | TDR_END_INTERRUPTED };
	write_recording(f);
	assert_int_equal(run(f, "info", f->path, NULL), 0);
	assert_non_null(strstr(f->text, "program:     none launched (-p or -a); recording stopped "
					"by a signal to tdrec\n"));
	f->end = (struct tdr_run_end){ .duration_ns = 1, .term_signal = 11,
				       .flags = TDR_END_SIGNALLED | TDR_END_WRITE_ERROR };
	write_recording(f);
	assert_int_equal(run(f, "info", f->path, NULL), 0);
	assert_non_null(strstr(f->text, "program:     killed by signal 11 ("));
	assert_non_null(strstr(f->text, "; recording stopped early by a write error\n"));
	assert_non_null(strstr(f->text, "file status: complete ("));
	assert_non_null(strstr(f->text, " bytes), but the recording stopped early at a write error\n"));
}

/* Cut the file at cut bytes. */
static void cut_file(const struct fixture *f, uint64_t cut)
{
	assert_int_equal(truncate(f->path, (off_t)cut), 0);
}

static void test_info__cut_file_reports_its_prefix(void **state)
{
	struct fixture *f = *state;
	struct jm *j;

	require_tdrec();
	for (int inside = 0; inside <= 1; inside++) {
		write_recording(f);
		/* Before the fourth frame (the LOST and tid 13), or 40 bytes
		 * into it: 3 frames, samples at 100, 200 and 300 of tids 11
		 * and 12. */
		cut_file(f, f->frame_off[3] + (inside ? 40 : 0));
		assert_int_equal(run(f, "info", "--json", f->path, NULL), 0);
		j = json_of(f);
		assert_int_equal(num(j, "frames"), 3);
		assert_int_equal(num(j, "samples"), 3);
		assert_int_equal(num(j, "records"), 2 + 3);
		assert_int_equal(num(j, "threads"), 2);
		assert_int_equal(num(j, "lost_samples"), 0);
		assert_bool_key(j, "truncated", true);
		/* No run end: from the start on the sample clock to the last
		 * sample. */
		assert_int_equal(num(j, "duration_ns"), 300 - START_CLOCK_NS);
		assert_bool_key(jm_get(j, "file_status"), "has_trailer", false);
		assert_int_equal(jm_get(jm_at(jm_get(j, "event_totals"), 1), "lost_samples")->t,
				 JM_NULL);
		assert_int_equal(num(jm_get(j, "file_status"), "intact_size"), f->frame_off[3]);
		assert_int_equal(num(jm_get(j, "file_status"), "file_size"),
				 f->frame_off[3] + (inside ? 40 : 0));
		jm_free(j);
		assert_int_equal(run(f, "info", f->path, NULL), 0);
		assert_non_null(strstr(f->text, "records:     5 in 3 frames\n"));
		assert_non_null(strstr(f->text, "file status: TRUNCATED, no trailer"));
		assert_non_null(strstr(f->text, inside ? "(40 bytes missing or unreadable)"
						       : "(0 bytes missing or unreadable)"));
	}
}

static void write_bytes(const char *path, const void *data, size_t sz)
{
	FILE *fp = fopen(path, "wb");

	assert_non_null(fp);
	assert_int_equal(fwrite(data, 1, sz, fp), sz);
	fclose(fp);
}

static void test_info__bad_files_give_one_line_and_exit_1(void **state)
{
	struct fixture *f = *state;
	char path[200];
	uint8_t *data;
	size_t sz;

	require_tdrec();
	snprintf(path, sizeof(path), "%s/none.tdr", f->dir);
	assert_int_equal(run(f, "info", path, NULL), 1);
	assert_one_error_line(f, path, "No such file or directory");

	snprintf(path, sizeof(path), "%s/empty.tdr", f->dir);
	write_bytes(path, "", 0);
	assert_int_equal(run(f, "info", path, NULL), 1);
	assert_one_error_line(f, path, "truncated");

	snprintf(path, sizeof(path), "%s/text.tdr", f->dir);
	write_bytes(path, "hello, this is not a recording\n", 31);
	assert_int_equal(run(f, "info", path, NULL), 1);
	assert_one_error_line(f, path, "not a tdrec or perf.data file");
	/* One wording in every command (issue 17, finding 7). */
	assert_int_equal(run(f, "report", "-i", path, NULL), 1);
	assert_one_error_line(f, path, "not a tdrec or perf.data file");
	assert_int_equal(run(f, "diff", path, path, NULL), 1);
	assert_one_error_line(f, path, "not a tdrec or perf.data file");

	assert_int_equal(run(f, "info", f->dir, NULL), 1);
	assert_one_error_line(f, f->dir, "directory");

	assert_int_equal(run(f, "info", "/dev/null", NULL), 1);
	assert_one_error_line(f, "/dev/null", "not a regular file");

	/* A FIFO is read whole once its writer comes (as perf record -o - |
	 * tdrec report -i - needs); a writer that closes it without writing
	 * leaves it empty. The writer starts after the reader here. */
	snprintf(path, sizeof(path), "%s/fifo.tdr", f->dir);
	assert_int_equal(mkfifo(path, 0644), 0);
	for (int i = 0; i < 2; i++) {
		pid_t writer = fork();

		assert_true(writer >= 0);
		if (writer == 0) {
			int w;

			usleep(200 * 1000);
			w = open(path, O_WRONLY);
			_exit(w < 0 ? 1 : 0); /* opened and closed: nothing written */
		}
		assert_int_equal(run(f, i ? "report" : "info", i ? "-i" : path, i ? path : NULL,
				     NULL),
				 1);
		assert_one_error_line(f, path, "No data available");
		assert_int_equal(waitpid(writer, NULL, 0), writer);
	}
	/* A writer that comes late with a whole recording: it is read. */
	write_recording(f);
	assert_int_equal(tl_slurp(f->path, &data, &sz), 0);
	{
		pid_t writer = fork();

		assert_true(writer >= 0);
		if (writer == 0) {
			int w;

			usleep(200 * 1000);
			w = open(path, O_WRONLY);
			_exit(w >= 0 && write(w, data, sz) == (ssize_t)sz ? 0 : 1);
		}
		assert_int_equal(run(f, "info", path, NULL), 0);
		assert_int_equal(waitpid(writer, NULL, 0), writer);
	}
	free(data);
	data = NULL;
	unlink(path);

	/* A newer major version, checksums valid. */
	write_recording(f);
	assert_int_equal(tl_slurp(f->path, &data, &sz), 0);
	data[TDR_FH_MAJOR] = TDR_FORMAT_MAJOR + 1;
	tdr_test_fixup_crcs(data, sz);
	snprintf(path, sizeof(path), "%s/newer.tdr", f->dir);
	write_bytes(path, data, sz);
	assert_int_equal(run(f, "info", path, NULL), 1);
	assert_one_error_line(f, path, "newer, incompatible format version");

	/* A flipped metadata byte: the file cannot be read at all. */
	data[TDR_FH_MAJOR] = TDR_FORMAT_MAJOR;
	tdr_test_fixup_crcs(data, sz);
	data[TDR_FILE_HDR_SZ + TDR_BLOCK_HDR_SZ + 3] ^= 0x40;
	snprintf(path, sizeof(path), "%s/flipped.tdr", f->dir);
	write_bytes(path, data, sz);
	assert_int_equal(run(f, "info", path, NULL), 1);
	assert_one_error_line(f, path, "corrupt");
	/* With --json the error is a JSON object on stdout. */
	assert_int_equal(run(f, "info", "--json", path, NULL), 1);
	assert_non_null(strstr(f->text, "{\"error\": "));
	assert_non_null(strstr(f->text, "corrupt"));
	free(data);
}

/* $TDREC args... with standard output on /dev/full (closed when !full);
 * returns the exit status, standard error in f->errtext. */
static int run_to(struct fixture *f, bool full, const char *const *args)
{
	const char *argv[16] = {getenv("TDREC")};
	size_t n = 1;
	pid_t pid;
	int st;

	for (; *args && n < 15; args++)
		argv[n++] = *args;
	argv[n] = NULL;
	pid = fork();
	assert_true(pid >= 0);
	if (!pid) {
		int o = open("/dev/full", O_WRONLY);
		int e = open(f->err, O_WRONLY | O_CREAT | O_TRUNC, 0644);

		if (o < 0 || e < 0 || dup2(o, 1) < 0 || dup2(e, 2) < 0)
			_exit(126);
		if (!full)
			close(1);
		alarm(60);
		execv(argv[0], (char *const *)argv);
		_exit(127);
	}
	assert_int_equal(waitpid(pid, &st, 0), pid);
	free(f->errtext);
	f->errtext = slurp_text(f->err);
	assert_true(WIFEXITED(st));
	return WEXITSTATUS(st);
}

/* Output that cannot be written (a full disk) is an error, not a silent 0:
 * one line on standard error, exit 1; the same for the help texts. */
static void test_info__unwritable_output_exits_1(void **state)
{
	struct fixture *f = *state;
	const char *text[] = {"info", f->path, NULL};
	const char *json[] = {"info", "--json", f->path, NULL};
	const char *help[] = {"info", "--help", NULL};
	const char *top[] = {"--help", NULL};

	require_tdrec();
	write_recording(f);
	assert_int_equal(run_to(f, true, text), 1);
	assert_string_equal(f->errtext,
			    "tdrec info: cannot write to standard output: No space left on device\n");
	assert_int_equal(run_to(f, true, json), 1);
	assert_non_null(strstr(f->errtext, "No space left on device"));
	assert_int_equal(run_to(f, true, help), 1);
	assert_non_null(strstr(f->errtext, "No space left on device"));
	assert_int_equal(run_to(f, true, top), 1);
	assert_non_null(strstr(f->errtext, "No space left on device"));
	/* Standard output closed (>&-): the fd is not handed to the file tdrec
	 * opens next, and the output fails as it should. */
	assert_int_equal(run_to(f, false, text), 1);
	assert_string_equal(f->errtext,
			    "tdrec info: cannot write to standard output: Bad file descriptor\n");
}

static void test_info__usage_errors_exit_2(void **state)
{
	struct fixture *f = *state;

	require_tdrec();
	assert_int_equal(run(f, "info", NULL), 2);
	assert_non_null(strstr(f->errtext, "missing FILE"));
	assert_int_equal(run(f, "info", "a.tdr", "b.tdr", NULL), 2);
	assert_int_equal(run(f, "info", "--bogus", "a.tdr", NULL), 2);
	assert_non_null(strstr(f->errtext, "--bogus"));
	assert_int_equal(run(f, "info", "--help", NULL), 0);
	assert_non_null(strstr(f->text, "usage: tdrec info"));
	/* Options that exclude each other ("[--json | -v]", "[--json | --csv]")
	 * are refused, before the file is read. */
	write_recording(f);
	assert_int_equal(run(f, "info", "--json", "-v", f->path, NULL), 2);
	assert_non_null(strstr(f->text, "not both"));
	assert_int_equal(run(f, "report", "-i", f->path, "--csv", "--json", NULL), 2);
	assert_non_null(strstr(f->text, "give --json or --csv, not both"));
	assert_int_equal(run(f, "report", "-i", f->path, "--json", "--csv", NULL), 2);
	assert_int_equal(run(f, "report", "-i", f->path, "--csv", NULL), 0);
	assert_true(!strncmp(f->text, "kind,", 5));
	/* Two ways to group rows: refused, naming both; the same one twice is
	 * fine. */
	assert_int_equal(run(f, "report", "-i", f->path, "--inline", "--lines", NULL), 2);
	assert_non_null(strstr(f->errtext, "--inline and --lines group rows differently"));
	assert_int_equal(run(f, "report", "-i", f->path, "--by", "dso", "--by", "thread", NULL), 2);
	assert_non_null(strstr(f->errtext, "--by dso and --by thread"));
	assert_int_equal(run(f, "diff", "--inline", "--inline", f->path, f->path, NULL), 0);
	assert_int_equal(run(f, "report", "-i", f->path, "--lines", "--by", "lines", NULL), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
#define T(name) cmocka_unit_test_setup_teardown(name, setup, teardown)
		T(test_info__json_has_every_key_with_its_value),
		T(test_info__text_says_the_same),
		T(test_info__run_end_flags_are_spelled_out),
		T(test_info__cut_file_reports_its_prefix),
		T(test_info__unwritable_output_exits_1),
		T(test_info__bad_files_give_one_line_and_exit_1),
		T(test_info__usage_errors_exit_2),
#undef T
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
