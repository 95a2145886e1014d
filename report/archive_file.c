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
 * What it does not do: symbolize (load.c, archive.c), or convert perf.data
 * files.
 */
#include "report_int.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "tdrec/archive.h"
#include "tdrec/format.h"
#include "tdrec/tdr_err.h"

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

int tdr_report__archive_file(const char *in, const char *out,
			     const struct tdr_report_load_opts *lopts,
			     struct tdr_archive_summary *sum)
{
	struct tdr_writer_opts wo = {.path = out, .atomic_replace = true, .archive = true};
	const struct tdr_totals *tot;
	struct tdr_writer *w = NULL;
	struct tdr_reader *r = NULL;
	void *data = NULL;
	size_t sz = 0;
	int err;

	memset(sum, 0, sizeof(*sum));
	err = tdr_reader__open(in, &r);
	if (err)
		return err;
	if (!tdr_reader__status(r)->has_trailer || tdr_reader__status(r)->truncated ||
	    tdr_reader__status(r)->bad_frames) {
		err = -TDR_E_TRUNCATED;
		goto out;
	}
	err = tdr_report__archive(in, lopts, 3, &data, &sz, sum);
	if (err)
		goto out;
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
