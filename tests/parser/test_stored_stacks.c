/*
 * tests/parser/test_stored_stacks.c - stacks stored in the archive are
 * used instead of unwinding (docs/format.md 7.2 "Stacks", docs/parser.md
 * "Call stacks").
 *
 * The seed is a real `tdrec record --call-graph dwarf` recording of
 * examples/hotloop, archived by the recorder, whose binary is not here:
 * with an unwinder set, every stack copy's stack comes from the archive
 * (the unwinder, a stub that counts its calls, is never called), the
 * stored stack of a sample taken in user mode starts at the sample's own
 * ip (what the unwinder gave when the file was made: an oracle the
 * archive does not contain), and its callers are the sample's last
 * frames. The same frames with one frame more (so the part no longer
 * fits the file) make the parser ignore the part and unwind every copy.
 * Without an unwinder the stored stacks are not used either.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "tdrec/archive.h"
#include "tdrec/format.h"
#include "tdrec/parser.h"

struct run {
	struct tdr_parser *p;
	size_t unwinds, stored, user_first_ok, user_samples, callers_ok;
};

static int stub_unwind(void *ctx, const struct tdr_sample *s, const struct tdr_user_stack *u,
		       uint64_t *pcs, uint32_t max)
{
	struct run *r = ctx;

	(void)s;
	(void)u;
	(void)pcs;
	(void)max;
	r->unwinds++;
	return 0;
}

static int on_sample(const struct tdr_sample *s, void *ctx)
{
	struct run *r = ctx;
	const struct tdr_sample_stack *st = tdr_parser__sample_stack(r->p);
	uint32_t user;

	if (!st->cnt)
		return 0;
	assert_true(st->stored);
	assert_true(st->has_pos);
	r->stored++;
	user = s->cpumode == TDR_MODE_USER ? st->cnt - 1 : st->cnt;
	if (s->cpumode == TDR_MODE_USER) {
		r->user_samples++;
		r->user_first_ok += st->pcs[0] == s->ip;
	}
	/* The callers are the sample's last frames, in user mode. */
	if (user <= s->frame_cnt) {
		bool ok = true;

		for (uint32_t i = 0; i < user; i++) {
			const struct tdr_frame *f = &s->frames[s->frame_cnt - user + i];

			ok &= f->ip == st->pcs[st->cnt - user + i] && f->cpumode == TDR_MODE_USER;
		}
		r->callers_ok += ok;
	}
	return 0;
}

static void parse(const char *path, bool unwinder, struct run *r)
{
	memset(r, 0, sizeof(*r));
	assert_int_equal(tdr_parser__open(path, &r->p), 0);
	if (unwinder)
		tdr_parser__set_unwinder(r->p, stub_unwind, r);
	assert_int_equal(tdr_parser__run(r->p, on_sample, r), 0);
}

static void test_stored_stacks__used_instead_of_unwinding(void **state)
{
	const struct tdr_parse_stats *ps;
	const struct tdr_archive *a;
	struct run r;

	(void)state;
	parse(SEED, true, &r);
	a = tdr_parser__archive(r.p);
	assert_non_null(a);
	ps = tdr_parser__stats(r.p);
	/* Every copy has its stack in the archive: nothing is unwound. */
	assert_true(tdr_archive__stats(a)->stack_samples > 0);
	assert_int_equal(ps->user_stacks, tdr_archive__stats(a)->stack_samples);
	assert_int_equal(ps->user_stacks_stored, ps->user_stacks);
	assert_int_equal(r.stored, ps->user_stacks);
	assert_int_equal(r.unwinds, 0);
	assert_true(r.user_samples > 0);
	assert_int_equal(r.user_first_ok, r.user_samples);
	assert_int_equal(r.callers_ok, r.stored);
	tdr_parser__free(r.p);

	/* No unwinder: the copies are ignored, stored or not. */
	parse(SEED, false, &r);
	assert_int_equal(r.stored, 0);
	assert_int_equal(tdr_parser__stats(r.p)->user_stacks_stored, 0);
	tdr_parser__free(r.p);
}

/* The seed's frames and sections copied, with frame 0 once more at the end. */
static void copy_with_extra_frame(const char *out)
{
	struct tdr_writer_opts wo = {.path = out, .archive = true};
	struct tdr_frame_buf buf = {0};
	struct tdr_reader *rd;
	struct tdr_writer *w;
	const void *payload, *d;
	size_t sz;

	assert_int_equal(tdr_reader__open(SEED, &rd), 0);
	for (size_t i = 0; i < tdr_reader__frame_cnt(rd); i++)
		if (tdr_reader__frame(rd, i)->codec == TDR_CODEC_COLUMNS)
			wo.codec = TDR_CODEC_COLUMNS;
	assert_int_equal(tdr_writer__open(&wo, tdr_reader__meta(rd), &w), 0);
	for (size_t i = 0; i <= tdr_reader__frame_cnt(rd); i++) {
		size_t k = i % tdr_reader__frame_cnt(rd);

		assert_int_equal(tdr_reader__load_frame_block(rd, k, &buf, &payload), 0);
		assert_int_equal(tdr_writer__copy_frame(w, tdr_reader__frame(rd, k), payload), 0);
	}
	for (uint32_t t = 1; t <= 4; t++)
		if (!tdr_reader__section(rd, t, &d, &sz))
			assert_int_equal(tdr_writer__add_section(w, t, d, sz), 0);
	assert_int_equal(tdr_writer__finish(w, NULL, 0, NULL), 0);
	tdr_writer__free(w);
	tdr_frame_buf__release(&buf);
	tdr_reader__free(rd);
}

static void test_stored_stacks__ignored_when_frames_differ(void **state)
{
	char dir[] = "/tmp/tdr-stored-stacks-XXXXXX", path[64];
	struct run r;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/extra.tdr", dir);
	copy_with_extra_frame(path);
	parse(path, true, &r);
	/* The symbols are still used; the stacks are not. */
	assert_non_null(tdr_parser__archive(r.p));
	assert_true(tdr_parser__stats(r.p)->user_stacks > 0);
	assert_int_equal(tdr_parser__stats(r.p)->user_stacks_stored, 0);
	assert_int_equal(r.stored, 0);
	assert_int_equal(r.unwinds, tdr_parser__stats(r.p)->user_stacks);
	tdr_parser__free(r.p);
	unlink(path);
	rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_stored_stacks__used_instead_of_unwinding),
	    cmocka_unit_test(test_stored_stacks__ignored_when_frames_differ),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
