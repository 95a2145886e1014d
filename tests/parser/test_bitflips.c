/*
 * tests/parser/test_bitflips.c - one flipped bit in a perf.data file (which
 * has no checksums) must never give absurd numbers silently (issue 17,
 * finding 6: a flip gave 72 million seconds of CPU in a 0.5 s recording).
 *
 * tests/data/software-group.perf.data is a real perf record of a
 * {cpu-clock,task-clock,page-faults} group (90 samples, 1.08 s, 2 CPUs).
 * 300 copies, each with one bit of its data section flipped (spread over
 * every byte position of the records, so high bytes of counter values are
 * hit), are parsed. The oracle is the undamaged file's totals and the
 * physics of the counters: a damaged copy's clock totals may exceed the
 * clean ones by at most what 2 CPUs can count in 100 s (a flip the
 * plausibility check cannot see is at most its 10 s slack per sample on
 * each CPU, docs/parser.md "Plausibility"), page faults by at most 64 per
 * ns of that; and the check must have caught some flips.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cmocka.h>

#include "tdrec/parser.h"
#include "support/test_log.h"
#include "tdrec/tdr_log.h"

#define FLIPS 300
#define EV_MAX 8
#define ROOM_NS (100ull * 1000000000ull * 2) /* 100 s on 2 CPUs */

struct sums {
	uint64_t d[EV_MAX];
	size_t ev_cnt;
};

static int add_deltas(const struct tdr_sample *s, void *ctx)
{
	struct sums *u = ctx;

	for (size_t i = 0; i < u->ev_cnt; i++)
		u->d[i] += s->deltas[i];
	return 0;
}

/* Parse the bytes; 0 with *u and *st, or the open error. */
static int parse(const uint8_t *b, size_t n, struct sums *u, struct tdr_parse_stats *st)
{
	struct tdr_parser *p = NULL;
	char path[64];
	int fd = memfd_create("flip", MFD_CLOEXEC), err;

	assert_true(fd >= 0);
	assert_int_equal(write(fd, b, n), (ssize_t)n);
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	memset(u, 0, sizeof(*u));
	err = tdr_parser__open(path, &p);
	if (!err) {
		u->ev_cnt = tdr_parser__meta(p)->event_cnt;
		if (u->ev_cnt > EV_MAX)
			u->ev_cnt = EV_MAX;
		tdr_parser__run(p, add_deltas, u); /* an error mid-way keeps what was read */
		*st = *tdr_parser__stats(p);
		tdr_parser__free(p);
	}
	close(fd);
	return err;
}

static uint64_t le64(const uint8_t *p)
{
	uint64_t v = 0;

	for (int i = 7; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

static void test_bitflips__no_silent_absurd_totals(void **state)
{
	const char *src = getenv("TDR_SOURCE_DIR");
	char path[512];
	struct sums clean, got;
	struct tdr_parse_stats st;
	uint8_t *b;
	size_t n, caught = 0, opened = 0;
	uint64_t data_off, data_sz;
	FILE *f;

	(void)state;
	assert_non_null(src);
	snprintf(path, sizeof(path), "%s/tests/data/software-group.perf.data", src);
	f = fopen(path, "rb");
	assert_non_null(f);
	b = malloc(1 << 20);
	n = fread(b, 1, 1 << 20, f);
	fclose(f);
	/* perf.data header: magic, size, attr_size, attrs {offset, size},
	 * data {offset, size} (perf's perf.data-file-format.txt). */
	data_off = le64(b + 40);
	data_sz = le64(b + 48);
	assert_true(data_off + data_sz <= n && data_sz > 1000);
	test_log_quiet();
	assert_int_equal(parse(b, n, &clean, &st), 0);
	assert_int_equal(clean.ev_cnt, 3);
	assert_int_equal(st.implausible_samples, 0); /* a sound file passes */
	assert_int_equal(st.malformed_records, 0);
	assert_true(clean.d[0] > 100000000ull); /* cpu-clock: 0.3 s */

	for (size_t i = 0; i < FLIPS; i++) {
		size_t pos = (size_t)data_off + (i * 7919u) % (size_t)data_sz;
		uint8_t bit = (uint8_t)(1u << (i * 3 % 8));

		b[pos] ^= bit;
		if (!parse(b, n, &got, &st)) {
			opened++;
			caught += st.implausible_samples > 0;
			for (size_t e = 0; e < 2; e++) /* cpu-clock, task-clock */
				if (got.d[e] > clean.d[e] + ROOM_NS)
					fail_msg("flip %zu (byte %zu bit %u): event %zu total %" PRIu64
						 " ns against %" PRIu64 " clean",
						 i, pos, bit, e, got.d[e], clean.d[e]);
			if (got.d[2] > clean.d[2] + ROOM_NS * 64)
				fail_msg("flip %zu: page faults %" PRIu64, i, got.d[2]);
		}
		b[pos] ^= bit;
	}
	test_log_stop();
	print_message("%zu of %d flipped files opened, %zu with implausible samples dropped\n",
		      opened, FLIPS, caught);
	assert_true(opened > FLIPS / 2);
	assert_true(caught > 0);
	free(b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bitflips__no_silent_absurd_totals),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
