/*
 * tests/fuzz/fuzz_reader.c - libFuzzer target for the .tdr reader.
 *
 * Opens the input with tdr_reader__open_mem and touches everything a
 * consumer would: metadata, status, totals (with the counted totals of
 * the trailer's COUNTED item), every frame (loaded and walked
 * record by record), every section, the DSO table's entries and the
 * ARCHIVE section's answers. Each
 * input is tried twice: as it is, and with all its checksums repaired
 * (tests/format/fixup_crcs.h), so that mutations reach the decoders behind
 * the CRC checks instead of stopping there. Built with -DTDR_FUZZ=ON and
 * clang; the corpus in tests/fuzz/corpus/reader is also replayed by every
 * ctest run.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../format/fixup_crcs.h"
#include "format_int.h" /* tdr_reader__open_mem */
#include "tdrec/archive.h"
#include "tdrec/format.h"
#include "tdrec/tdr_log.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Where the touched values go, so the compiler cannot drop the reads. */
volatile uint64_t tdr_fuzz_sink;

static void quiet(enum tdr_log_level level, const char *fmt, va_list ap)
{
	(void)level;
	(void)fmt;
	(void)ap;
}

static size_t touch_str(const char *s)
{
	return s ? strlen(s) : 0;
}

static uint64_t touch_meta(const struct tdr_meta *m)
{
	uint64_t h = touch_str(m->tdrec_version) + touch_str(m->hostname) +
		     touch_str(m->kernel_release) + touch_str(m->boot_id) +
		     touch_str(m->cpu_vendor) + touch_str(m->cpu_model_name) +
		     touch_str(m->plan_name);

	for (size_t i = 0; i < m->argc; i++)
		h += touch_str(m->argv[i]);
	for (size_t i = 0; i < m->note_cnt; i++)
		h += touch_str(m->notes[i]);
	for (size_t i = 0; i < m->event_cnt; i++) {
		const struct tdr_event_desc *e = &m->events[i];

		h += touch_str(e->name) + touch_str(e->pmu_name) + e->attr.config +
		     e->attr_disk_sz;
		for (size_t j = 0; j < e->id_cnt; j++)
			h += e->ids[j].id;
	}
	for (size_t i = 0; i < m->category_cnt; i++) {
		const struct tdr_category *c = &m->categories[i];

		h += touch_str(c->name) + touch_str(c->parent);
		/* Event indexes must be valid: a consumer indexes with them. */
		for (size_t j = 0; j < c->num_cnt; j++)
			h += m->events[c->num[j].event_idx].attr.type;
		for (size_t j = 0; j < c->den_cnt; j++)
			h += m->events[c->den[j].event_idx].attr.type;
	}
	return h;
}

/* The DSO table's entries, as the parser reads them (docs/format.md 7.1). */
static uint64_t touch_dso_table(const struct tdr_reader *r)
{
	struct tdr_dso_iter it;
	struct tdr_dso_entry e;
	const void *d;
	uint64_t h = 0;
	size_t sz;

	if (tdr_reader__section(r, TDR_SECTION_DSO_TABLE, &d, &sz) ||
	    tdr_dso_iter__init(&it, d, sz))
		return 0;
	while (tdr_dso_iter__next(&it, &e) > 0)
		h += (uint8_t)e.path[e.path_len - 1] + e.build_id[TDR_DSO_BUILD_ID_MAX - 1] + e.ino;
	return h;
}

/* The ARCHIVE section, decoded and looked up as symbolize/ does
 * (docs/format.md 7.2): every object, its first and last address and
 * one beside it, and the stored stacks of the first samples. */
static uint64_t touch_archive(const struct tdr_reader *r)
{
	static struct tdr_archive_frame frames[TDR_ARCHIVE_MAX_INLINES];
	const struct tdr_archive_stats *st;
	struct tdr_archive_sym s;
	struct tdr_archive *a;
	const void *d;
	uint64_t h = 0, frames_cnt;
	size_t sz;

	if (tdr_reader__section(r, TDR_SECTION_ARCHIVE, &d, &sz) || tdr_archive__decode(d, sz, &a))
		return 0;
	st = tdr_archive__stats(a);
	h += st->addrs + st->functions + st->inline_frames + st->strings;
	for (size_t i = 0; i < tdr_archive__dso_cnt(a); i++) {
		const struct tdr_archive_dso *o = tdr_archive__dso(a, i);

		h += (uint8_t)o->path[strlen(o->path) - 1];
		h += (uint64_t)tdr_archive__find_dso(a, o->kind, o->path, o->build_id,
						     o->build_id_sz);
		for (uint64_t off = 0; off < 4; off++) {
			if (tdr_archive__find(a, i, off, &s, frames) < 0)
				continue;
			h += s.status + s.line + s.inline_cnt;
			if (s.function)
				h += (uint8_t)s.function[0];
			for (uint32_t j = 0; j < s.inline_cnt; j++)
				h += s.inlines[j].call_line +
				     (s.inlines[j].function ? (uint8_t)s.inlines[j].function[0] : 0);
		}
	}
	/* The stacks part (7.2 "Stacks"): the first samples of a few frames,
	 * and one frame past its end. */
	if (tdr_archive__has_stacks(a, &frames_cnt)) {
		h += st->stacks + st->stack_samples;
		for (uint64_t f = 0; f < 4 && f <= frames_cnt; f++) {
			for (uint32_t k = 0; k < 4; k++) {
				const uint64_t *pcs = NULL;
				uint32_t n = tdr_archive__stack(a, f, k, &pcs);

				if (n)
					h += n + pcs[0] + pcs[n - 1];
			}
		}
	}
	tdr_archive__free(a);
	return h;
}

static uint64_t exercise(const uint8_t *data, size_t size)
{
	const struct perf_event_header *h;
	struct tdr_frame_buf buf = { 0 };
	const struct tdr_totals *t;
	struct tdr_reader *r;
	uint64_t sum;

	if (tdr_reader__open_mem(data, size, &r))
		return 0;
	sum = touch_meta(tdr_reader__meta(r));
	sum += tdr_reader__status(r)->intact_sz;
	t = tdr_reader__totals(r);
	if (t) {
		sum += t->records;
		for (size_t i = 0; i < t->event_cnt; i++) {
			const struct tdr_event_totals *e = &t->events[i];

			sum += e->samples + e->lost_samples;
			if (e->has_counted)
				sum += e->counted + e->time_enabled_ns + e->time_running_ns;
		}
	}
	if (tdr_reader__run_end(r))
		sum += tdr_reader__run_end(r)->duration_ns;
	for (size_t i = 0; i < tdr_reader__frame_cnt(r); i++) {
		struct tdr_record_iter it;

		sum += tdr_reader__frame(r, i)->raw_sz;
		if (tdr_reader__load_frame(r, i, &buf))
			continue;
		it = (struct tdr_record_iter){ .data = buf.data, .sz = buf.sz };
		while (tdr_records__next(&it, &h) > 0)
			sum += h->type + ((const uint8_t *)h)[h->size - 1];
	}
	for (uint32_t type = 0; type <= 4; type++) {
		const void *d;
		size_t sz;

		if (!tdr_reader__section(r, type, &d, &sz) && sz)
			sum += ((const uint8_t *)d)[0] + ((const uint8_t *)d)[sz - 1];
	}
	sum += touch_dso_table(r);
	sum += touch_archive(r);
	tdr_frame_buf__release(&buf);
	tdr_reader__free(r);
	return sum;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t *copy;

	tdr_log_set_sink(quiet);
	tdr_fuzz_sink += exercise(data, size);
	if (size < TDR_FILE_HDR_SZ || size > (4u << 20))
		return 0;
	copy = malloc(size);
	if (!copy)
		return 0;
	memcpy(copy, data, size);
	tdr_test_fixup_crcs(copy, size);
	if (memcmp(copy, data, size))
		tdr_fuzz_sink += exercise(copy, size);
	free(copy);
	return 0;
}
