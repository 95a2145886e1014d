/*
 * report/archive_file.c - a finished .tdr file with its symbols archived.
 *
 * Responsibility: `tdrec archive`'s work on a .tdr file: symbolize what
 * its samples reference (tdr_report__archive) and write the recording
 * again, with an ARCHIVE section (docs/format.md 7.2), to OUT or in place.
 * The copy goes through the writer's atomic replace: it is written to
 * "<OUT>.partial" and renamed over OUT only once complete, so an
 * interrupted run leaves the original file as it was. Frames are decoded
 * and written again in their order, with their rings, by the same codecs;
 * the metadata, the other sections (the first of each type) and the
 * trailer's totals, counted totals and run end are copied; an ARCHIVE
 * section the file had is replaced by the new one (which kept its answers).
 * A perf.data file is converted into an archived .tdr instead (below).
 * What it does not do: symbolize (load.c, archive.c).
 */
#include "report_int.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tdrec/archive.h"
#include "tdrec/format.h"
#include "tdrec/tdr_err.h"
#include "tdrec/tdr_mem.h"

#define LOG_PREFIX "archive: "
#include "tdrec/tdr_log.h"

/* Section types looked for in the source (every type format.h defines and
 * a few more that later minors may add). */
#define SECTION_TYPES_COPIED 32

static int copy_body(const struct tdr_reader *r, struct tdr_writer *w)
{
	struct tdr_frame_buf buf = {0};
	int err = 0;

	for (size_t i = 0; !err && i < tdr_reader__frame_cnt(r); i++) {
		err = tdr_reader__load_frame(r, i, &buf);
		if (err) {
			tdr_warn("frame %zu of the recording cannot be read: %s", i, tdr_strerror(err));
			break;
		}
		err = tdr_writer__add_frame(w, tdr_reader__frame(r, i)->ring, buf.data, buf.sz);
	}
	tdr_frame_buf__release(&buf);
	for (uint32_t t = 1; !err && t <= SECTION_TYPES_COPIED; t++) {
		const void *d;
		size_t sz;
		int e;

		if (t == TDR_SECTION_ARCHIVE)
			continue;
		e = tdr_reader__section(r, t, &d, &sz);
		if (e == -ENOENT)
			continue;
		if (e) {
			tdr_warn("section %u of the recording is damaged: %s", t, tdr_strerror(e));
			return e;
		}
		err = tdr_writer__add_section(w, t, d, sz);
	}
	return err;
}

/* ---------------------------------------------------------------------------
 * A perf.data converted into an archived .tdr.
 *
 * The parser reads the perf.data as for a report, and every record it
 * decodes is written, in that order, into frames of the synthetic ring:
 * a .tdr parser feeds those first and in file order, with the same ring
 * rule as perf.data (the record's CPU), so it sees exactly the sequence
 * the perf.data gave. The metadata is the one built from perf's header.
 * The build-ids perf stored for the sampled files go into a DSO table
 * (docs/format.md 7.1) for the mappings that had samples, keyed by their
 * device and inode, so the .tdr's mappings carry the same build-ids and
 * the archive, made from the perf.data, is found for them.
 */
#define CONV_FRAME_SZ (4u << 20)

struct conv {
	const char *out;
	struct tdr_writer *w;
	uint8_t *buf;
	size_t sz;
	uint64_t skipped; /* records the .tdr framing cannot hold (size) */
};

static int conv_flush(struct conv *c)
{
	int err = c->sz ? tdr_writer__add_frame(c->w, TDR_RING_SYNTHETIC, c->buf, c->sz) : 0;

	c->sz = 0;
	return err;
}

static int conv_tap(void *ctx, const struct perf_event_header *h)
{
	struct conv *c = ctx;
	int err;

	/* The parser skips such a record too (tdr_records__next's rule). */
	if (h->size < sizeof(*h) || h->size % 8) {
		c->skipped++;
		return 0;
	}
	if (c->sz + h->size > CONV_FRAME_SZ && (err = conv_flush(c)))
		return err;
	memcpy(c->buf + c->sz, h, h->size);
	c->sz += h->size;
	return 0;
}

static int conv_opened(void *ctx, struct tdr_parser *p)
{
	struct conv *c = ctx;
	struct tdr_writer_opts wo = {.path = c->out, .atomic_replace = true, .archive = true,
				     .codec = TDR_CODEC_COLUMNS};
	int err;

	c->buf = malloc(CONV_FRAME_SZ);
	if (!c->buf)
		return -ENOMEM;
	err = tdr_writer__open(&wo, tdr_parser__meta(p), &c->w);
	if (!err)
		tdr_parser__set_tap(p, conv_tap, c);
	return err;
}

static bool same_file(const struct tdr_dso_entry *e, const struct tdr_mapping *m)
{
	return e->path_len == strlen(m->path) && !memcmp(e->path, m->path, e->path_len) &&
	       e->maj == m->maj && e->min == m->min && e->ino == m->ino;
}

static int add_dso(struct tdr_dso_entry **ents, size_t *cnt, size_t *cap,
		   const struct tdr_mapping *m)
{
	struct tdr_dso_entry *e;
	size_t n;

	if (!m || !m->path || !m->build_id_sz || m->build_id_sz > TDR_DSO_BUILD_ID_MAX)
		return 0;
	n = strlen(m->path);
	if (!n || n > TDR_DSO_PATH_MAX)
		return 0;
	for (size_t i = 0; i < *cnt; i++)
		if (same_file(&(*ents)[i], m))
			return 0;
	if (tdr_ensure_cap(ents, cap, sizeof(**ents), *cnt + 1))
		return -ENOMEM;
	e = &(*ents)[(*cnt)++];
	*e = (struct tdr_dso_entry){.path = m->path, .path_len = n, .maj = m->maj, .min = m->min,
				    .ino = m->ino, .status = TDR_DSO_BUILD_ID,
				    .build_id_sz = m->build_id_sz};
	memcpy(e->build_id, m->build_id, m->build_id_sz);
	return 0;
}

static int conv_ran(void *ctx, const struct tdr_report_archiver *a)
{
	struct conv *c = ctx;
	struct tdr_dso_entry *ents = NULL;
	size_t cnt = 0, cap = 0, sz;
	void *data = NULL;
	int err = conv_flush(c);

	for (size_t i = 0; !err && i < a->cnt; i++)
		err = add_dso(&ents, &cnt, &cap, a->ents[i].map);
	if (!err)
		err = add_dso(&ents, &cnt, &cap, a->kernel_image);
	if (!err)
		err = tdr_dso_table__encode(ents, cnt, &data, &sz);
	if (!err)
		err = tdr_writer__add_section(c->w, TDR_SECTION_DSO_TABLE, data, sz);
	free(data);
	free(ents);
	return err;
}

static int convert_perfdata(const char *in, const char *out,
			    const struct tdr_report_load_opts *lopts,
			    struct tdr_archive_summary *sum)
{
	struct conv c = {.out = out};
	struct tdr_report_archive_hooks h = {.opened = conv_opened, .ran = conv_ran, .ctx = &c};
	void *data = NULL;
	size_t sz = 0;
	int err;

	err = tdr_report_archive_run(in, lopts, 3, &h, &data, &sz, sum);
	if (!err)
		err = tdr_writer__add_section(c.w, TDR_SECTION_ARCHIVE, data, sz);
	if (!err)
		err = tdr_writer__finish(c.w, NULL, 0, NULL);
	if (c.skipped)
		tdr_warn("%" PRIu64 " records of %s with a size that is not a multiple of 8 were "
			 "left out",
			 c.skipped, in);
	if (err && c.w) {
		/* Nothing half-written stays behind: the .partial was ours. */
		char partial[PATH_MAX];

		if ((size_t)snprintf(partial, sizeof(partial), "%s.partial", out) < sizeof(partial))
			unlink(partial);
	}
	tdr_writer__free(c.w);
	free(c.buf);
	free(data);
	return err;
}

int tdr_report__archive_file(const char *in, const char *out,
			     const struct tdr_report_load_opts *lopts,
			     struct tdr_archive_summary *sum)
{
	struct tdr_writer_opts wo = {.atomic_replace = true, .archive = true};
	const struct tdr_totals *tot;
	struct tdr_writer *w = NULL;
	struct tdr_reader *r = NULL;
	void *data = NULL;
	size_t sz = 0;
	int err;

	memset(sum, 0, sizeof(*sum));
	{
		/* A perf.data is converted; told apart by the parser, which
		 * knows both kinds (the .tdr reader would log a refusal). */
		struct tdr_parser *p = NULL;
		bool perf = !tdr_parser__open(in, &p) && tdr_parser__source(p) == TDR_SOURCE_PERF_DATA;

		tdr_parser__free(p);
		if (perf) {
			char conv_out[sizeof(sum->out)];
			int n = out ? snprintf(conv_out, sizeof(conv_out), "%s", out)
				    : snprintf(conv_out, sizeof(conv_out), "%s.tdr", in);

			if (n < 0 || (size_t)n >= sizeof(conv_out))
				return -ENAMETOOLONG;
			err = convert_perfdata(in, conv_out, lopts, sum);
			/* The run reset sum: name the output now. */
			memcpy(sum->out, conv_out, (size_t)n + 1);
			return err;
		}
	}
	err = tdr_reader__open(in, &r);
	if (err)
		return err;
	if (!out)
		out = in;
	if ((size_t)snprintf(sum->out, sizeof(sum->out), "%s", out) >= sizeof(sum->out)) {
		err = -ENAMETOOLONG;
		goto out;
	}
	if (!tdr_reader__status(r)->has_trailer || tdr_reader__status(r)->truncated ||
	    tdr_reader__status(r)->bad_frames) {
		err = -TDR_E_TRUNCATED;
		goto out;
	}
	err = tdr_report__archive(in, lopts, 3, &data, &sz, sum);
	snprintf(sum->out, sizeof(sum->out), "%s", out); /* reset by the run */
	if (err)
		goto out;
	wo.path = out;
	for (size_t i = 0; i < tdr_reader__frame_cnt(r); i++)
		if (tdr_reader__frame(r, i)->codec > wo.codec &&
		    tdr_reader__frame(r, i)->codec <= TDR_CODEC_CHAINED)
			wo.codec = tdr_reader__frame(r, i)->codec; /* the most compact one */
	err = tdr_writer__open(&wo, tdr_reader__meta(r), &w);
	if (err)
		goto out;
	err = copy_body(r, w);
	if (!err)
		err = tdr_writer__add_section(w, TDR_SECTION_ARCHIVE, data, sz);
	if (!err) {
		tot = tdr_reader__totals(r);
		err = tdr_writer__finish(w, tot ? tot->events : NULL, tot ? tot->event_cnt : 0,
					 tdr_reader__run_end(r));
	}
out:
	tdr_writer__free(w);
	tdr_reader__free(r);
	free(data);
	return err;
}
