/*
 * tests/parser/test_run.c - .tdr files end to end: writer -> tdr_parser__run,
 * and 'tdrec info' on the same files.
 *
 * Frames from two rings hold records whose timestamps interleave, and one
 * thread migrates between the rings (a different sampler id per CPU). __run
 * must deliver every sample in time order with the deltas computed by hand,
 * after the synthetic frame's mmap and comm. A frame with a flipped byte is
 * counted in bad_frames and skipped. A file cut while it is read gives
 * truncated_frames, not a crash.
 */
#include <errno.h>
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

#include "parser/parser_fixture.h"
#include "tdrec/tdr_err.h"

struct rx {
	char dir[64];
	char path[128];
	uint64_t times[64];
	uint64_t ips[64];
	uint64_t d0[64]; /* slots delta of each delivered sample */
	size_t n;
	bool mapped_all;
	char comm[32];
};

static int rx_cb(const struct tdr_sample *s, void *ctx)
{
	struct rx *r = ctx;

	if (r->n < 64) {
		r->times[r->n] = s->time_ns;
		r->ips[r->n] = s->ip;
		r->d0[r->n] = s->deltas[0];
	}
	r->n++;
	if (!s->map || strcmp(s->map->path, "/usr/bin/app"))
		r->mapped_all = false;
	snprintf(r->comm, sizeof(r->comm), "%s", s->comm);
	return 0;
}

/*
 * ring 0, frame 1: t=100 tid 11 slots 1000; t=300 tid 12 slots 400
 * ring 1, frame 1: t=200 tid 11 slots  700 (migrated: cpu1 series)
 * ring 0, frame 2: t=500 tid 11 slots 1600
 * ring 1, frame 2: t=400 tid 12 slots  900 (cpu1 series of tid 12); t=600 tid 11 slots 1000
 * Expected order 100..600; slots deltas: 1000, 700, 400, 900, 600, 300.
 */
static int write_file(struct rx *r, bool corrupt_ring1_frame2)
{
	struct fx *f = fx_new(6, TDR_META_INHERIT, true);
	struct tdr_writer_opts o = { .path = r->path };
	struct tdr_writer *w;
	struct synth_buf b = { 0 };
	struct synth_sid sid = fx_sid(0, 11, 1);
	int err;

	f->meta.plan_name = strdup("topdown-l1");
	err = tdr_writer__open(&o, &f->meta, &w);
	if (err)
		goto out;
	synth_mmap(&b, &f->attr, false, 0, FX_PID, 11, 0x400000, 0x10000, 0, "/usr/bin/app", NULL,
		   0, &sid);
	synth_comm(&b, &f->attr, FX_PID, 11, "app", false, &sid);
	synth_comm(&b, &f->attr, FX_PID, 12, "app-worker", false, &sid);
	err = tdr_writer__add_frame(w, TDR_RING_SYNTHETIC, b.data, b.sz);
	synth_buf_reset(&b);
	fx_add_l1_sample(f, &b, 0, 11, 100, FX_IP_A, 1000);
	fx_add_l1_sample(f, &b, 0, 12, 300, FX_IP_B, 400);
	err = err ? err : tdr_writer__add_frame(w, 0, b.data, b.sz);
	synth_buf_reset(&b);
	fx_add_l1_sample(f, &b, 1, 11, 200, FX_IP_B, 700);
	err = err ? err : tdr_writer__add_frame(w, 1, b.data, b.sz);
	synth_buf_reset(&b);
	fx_add_l1_sample(f, &b, 0, 11, 500, FX_IP_A, 1600);
	err = err ? err : tdr_writer__add_frame(w, 0, b.data, b.sz);
	synth_buf_reset(&b);
	fx_add_l1_sample(f, &b, 1, 12, 400, FX_IP_A, 900);
	fx_add_l1_sample(f, &b, 1, 11, 600, FX_IP_B, 1000);
	err = err ? err : tdr_writer__add_frame(w, 1, b.data, b.sz);
	if (!err) {
		struct tdr_run_end end = { .duration_ns = 123456789 };

		err = tdr_writer__finish(w, NULL, 0, &end);
	}
	tdr_writer__free(w);
	if (!err && corrupt_ring1_frame2) {
		/* flip a byte in the last frame's payload (the frame before the trailer) */
		struct tdr_reader *rd;
		uint64_t off;
		FILE *fp;

		err = tdr_reader__open(r->path, &rd);
		if (err)
			goto out;
		off = tdr_reader__frame(rd, 4)->offset + 24 + 24 + 2; /* in the zstd data */
		tdr_reader__free(rd);
		fp = fopen(r->path, "r+b");
		if (!fp) {
			err = -1;
			goto out;
		}
		fseek(fp, (long)off, SEEK_SET);
		int c = fgetc(fp);
		fseek(fp, (long)off, SEEK_SET);
		fputc(c ^ 0x5a, fp);
		fclose(fp);
	}
out:
	synth_buf_release(&b);
	fx_free(f);
	return err;
}

static int setup(void **state)
{
	struct rx *r = calloc(1, sizeof(*r));

	snprintf(r->dir, sizeof(r->dir), "/tmp/tdr-run-XXXXXX");
	if (!mkdtemp(r->dir))
		return -1;
	snprintf(r->path, sizeof(r->path), "%s/t.tdr", r->dir);
	r->mapped_all = true;
	*state = r;
	return 0;
}

static int teardown(void **state)
{
	struct rx *r = *state;

	unlink(r->path);
	rmdir(r->dir);
	free(r);
	return 0;
}

static void test_run__rings_merged_in_time_order(void **state)
{
	struct rx *r = *state;
	static const uint64_t want_t[] = { 100, 200, 300, 400, 500, 600 };
	static const uint64_t want_d[] = { 1000, 700, 400, 900, 600, 300 };
	struct tdr_parser *p;

	assert_int_equal(write_file(r, false), 0);
	assert_int_equal(tdr_parser__open(r->path, &p), 0);
	assert_int_equal(tdr_parser__source(p), TDR_SOURCE_TDR);
	assert_int_equal(tdr_parser__run(p, rx_cb, r), 0);
	assert_int_equal(r->n, 6);
	for (size_t i = 0; i < 6; i++) {
		assert_int_equal(r->times[i], want_t[i]);
		assert_int_equal(r->d0[i], want_d[i]);
	}
	assert_true(r->mapped_all);
	assert_string_equal(r->comm, "app");
	assert_int_equal(tdr_parser__stats(p)->streams, 4);
	assert_int_equal(tdr_parser__stats(p)->bad_frames, 0);
	assert_non_null(tdr_parser__file_status(p));
	assert_false(tdr_parser__file_status(p)->truncated);
	assert_int_equal(tdr_parser__run_end(p)->duration_ns, 123456789);
	/* __run runs once */
	assert_int_equal(tdr_parser__run(p, rx_cb, r), -EINVAL);
	tdr_parser__free(p);
}

static void test_run__bad_frame_counted_and_skipped(void **state)
{
	struct rx *r = *state;
	struct tdr_parser *p;

	assert_int_equal(write_file(r, true), 0);
	assert_int_equal(tdr_parser__open(r->path, &p), 0);
	assert_int_equal(tdr_parser__run(p, rx_cb, r), 0);
	assert_int_equal(r->n, 4); /* the two samples of the damaged frame are gone */
	assert_int_equal(tdr_parser__stats(p)->bad_frames, 1);
	tdr_parser__free(p);
}

/*
 * A file that shrinks while it is read (finding: the mapped reader died of
 * SIGBUS). Ring 0 holds SHRINK_FRAMES frames of one sample each. The
 * callback cuts the file 30 bytes into frame K+2 when it gets the sample of
 * frame K: frames up to K+1 are read (K+1 may already be loading on the
 * helper thread, but lies wholly before the cut), frame K+2 gives a short
 * read and every later one none at all. Nothing else in the file is read
 * after open (the DSO table is read before the first sample).
 */
#define SHRINK_FRAMES 12
#define SHRINK_AT 4

struct shrink {
	const char *path;
	off_t cut;
	size_t n;
};

static int shrink_cb(const struct tdr_sample *s, void *ctx)
{
	struct shrink *k = ctx;

	if (s->time_ns != 100 * (k->n + 1))
		return -EINVAL; /* in order, none left out before the cut */
	if (++k->n == SHRINK_AT && truncate(k->path, k->cut))
		return -errno;
	return 0;
}

static void test_run__file_shrinking_while_read(void **state)
{
	struct rx *r = *state;
	struct fx *f = fx_new(6, TDR_META_INHERIT, true);
	struct tdr_writer_opts o = { .path = r->path };
	struct shrink k = { .path = r->path };
	struct synth_buf b = { 0 };
	struct synth_sid sid = fx_sid(0, 11, 1);
	const struct tdr_parse_stats *st;
	struct tdr_writer *w;
	struct tdr_reader *rd;
	struct tdr_parser *p;

	assert_int_equal(tdr_writer__open(&o, &f->meta, &w), 0);
	synth_mmap(&b, &f->attr, false, 0, FX_PID, 11, 0x400000, 0x10000, 0, "/usr/bin/app", NULL,
		   0, &sid);
	assert_int_equal(tdr_writer__add_frame(w, TDR_RING_SYNTHETIC, b.data, b.sz), 0);
	for (unsigned i = 1; i <= SHRINK_FRAMES; i++) {
		synth_buf_reset(&b);
		fx_add_l1_sample(f, &b, 0, 11, 100 * i, FX_IP_A, 1000);
		assert_int_equal(tdr_writer__add_frame(w, 0, b.data, b.sz), 0);
	}
	assert_int_equal(tdr_writer__finish(w, NULL, 0, NULL), 0);
	tdr_writer__free(w);
	synth_buf_release(&b);
	fx_free(f);
	/* file frame 0 is the synthetic one: the sample of time 100 K is in
	 * file frame K */
	assert_int_equal(tdr_reader__open(r->path, &rd), 0);
	assert_int_equal(tdr_reader__frame_cnt(rd), SHRINK_FRAMES + 1);
	k.cut = (off_t)tdr_reader__frame(rd, SHRINK_AT + 2)->offset + 30;
	tdr_reader__free(rd);

	assert_int_equal(tdr_parser__open(r->path, &p), 0);
	assert_int_equal(tdr_parser__run(p, shrink_cb, &k), 0);
	assert_int_equal(k.n, SHRINK_AT + 1);
	st = tdr_parser__stats(p);
	assert_int_equal(st->truncated_frames, SHRINK_FRAMES - SHRINK_AT - 1);
	assert_int_equal(st->bad_frames, 0);
	tdr_parser__free(p);
}

static int run_capture(const char *cmd, char *out, size_t sz)
{
	FILE *f = popen(cmd, "r");
	size_t n;

	if (!f)
		return -1;
	n = fread(out, 1, sz - 1, f);
	out[n] = '\0';
	return WEXITSTATUS(pclose(f));
}

static void test_run__info_json_and_text(void **state)
{
	struct rx *r = *state;
	const char *tdrec = getenv("TDREC");
	char cmd[512], out[8192];

	if (!tdrec || access(tdrec, X_OK)) {
		print_message("TDREC not set or not built: skipped\n");
		skip();
	}
	assert_int_equal(write_file(r, false), 0);
	snprintf(cmd, sizeof(cmd), "'%s' info --json '%s'", tdrec, r->path);
	assert_int_equal(run_capture(cmd, out, sizeof(out)), 0);
	/* The file's own version: frames of codec 0 only make a 1.0 file. */
	assert_non_null(strstr(out, "\"format_version\": \"1.0\""));
	assert_non_null(strstr(out, "\"plan\": \"topdown-l1\""));
	assert_non_null(strstr(out, "\"events\": [\"slots\", \"cycles\", \"topdown-retiring\""));
	assert_non_null(strstr(out, "\"samples\": 6,"));
	assert_non_null(strstr(out, "\"threads\": 2,"));
	assert_non_null(strstr(out, "\"frames\": 5,"));
	assert_non_null(strstr(out, "\"truncated\": false"));
	assert_non_null(strstr(out, "\"duration_ns\": 123456789"));
	assert_non_null(strstr(out, "\"lost_samples\": 0"));
	/* text */
	snprintf(cmd, sizeof(cmd), "'%s' info '%s'", tdrec, r->path);
	assert_int_equal(run_capture(cmd, out, sizeof(out)), 0);
	assert_non_null(strstr(out, "6 (6 attributed), 2 threads with samples"));
	assert_non_null(strstr(out, "file status: complete"));
	/* a cut file (inside its trailer) says it is truncated */
	struct stat st;

	assert_int_equal(stat(r->path, &st), 0);
	assert_int_equal(truncate(r->path, st.st_size - 60), 0);
	assert_int_equal(run_capture(cmd, out, sizeof(out)), 0);
	assert_non_null(strstr(out, "TRUNCATED"));
	/* errors: one line, exit 1; usage: exit 2 */
	snprintf(cmd, sizeof(cmd), "'%s' info '%s/none' 2>&1", tdrec, r->dir);
	assert_int_equal(run_capture(cmd, out, sizeof(out)), 1);
	assert_non_null(strstr(out, "none: "));
	assert_non_null(strchr(out, '\n'));
	assert_null(strchr(strchr(out, '\n') + 1, '\n')); /* exactly one line */
	snprintf(cmd, sizeof(cmd), "'%s' info 2>/dev/null", tdrec);
	assert_int_equal(run_capture(cmd, out, sizeof(out)), 2);
	snprintf(cmd, sizeof(cmd), "'%s' info --bogus x 2>/dev/null", tdrec);
	assert_int_equal(run_capture(cmd, out, sizeof(out)), 2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_run__rings_merged_in_time_order, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_run__bad_frame_counted_and_skipped, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_run__info_json_and_text, setup, teardown),
		cmocka_unit_test_setup_teardown(test_run__file_shrinking_while_read, setup,
						teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
