/*
 * symbolize/archived.c - answers from the recording's ARCHIVE section.
 *
 * Responsibility: when the symbolizer was given the file's archive
 * (tdr_symbolizer_opts.archive, docs/format.md 7.2), answer a lookup from
 * it before any file is opened, so that a report of an archived profile
 * does not depend on what is on disk: the archive holds what the
 * symbolizer answered, with lines and inlines, when it was made; this
 * file hands out what the caller's options ask for (no lines, no inlines:
 * the same as a live lookup with those options). Addresses the archive
 * does not cover are counted, and looked up live by the caller.
 * What it does not do: decode the section (format/archive_dec.c) or
 * decide what to archive (report/archive.c).
 * Ownership: strings are the archive's (it must outlive the symbolizer);
 * inline arrays are converted once per address into the symbolizer's
 * arena, so repeated lookups return the same pointers.
 */
#include "symbolize_int.h"

#include <errno.h>
#include <string.h>

#include "tdrec/archive.h"
#include "tdrec/format.h"
#include "tdrec/tdr_mem.h"


/* The inline array of address idx, in the caller's form, made once. */
static const struct tdr_inline_frame *frames_of(struct tdr_symbolizer *s, long idx,
						const struct tdr_archive_sym *as, int *err)
{
	const struct tdr_archive_stats *st = tdr_archive__stats(s->opts.archive);
	struct tdr_inline_frame *f;

	if (!s->arch_frames) {
		s->arch_frames = tdr_calloc(st->addrs + 1, sizeof(*s->arch_frames));
		if (!s->arch_frames) {
			*err = -ENOMEM;
			return NULL;
		}
	}
	if (s->arch_frames[idx])
		return s->arch_frames[idx];
	f = tdr_arena__alloc(&s->arena, as->inline_cnt * sizeof(*f));
	if (!f) {
		*err = -ENOMEM;
		return NULL;
	}
	for (uint32_t i = 0; i < as->inline_cnt; i++)
		f[i] = (struct tdr_inline_frame){
		    .function = as->inlines[i].function,
		    .call_file = as->inlines[i].call_file,
		    .call_line = as->inlines[i].call_line,
		    .call_column = as->inlines[i].call_column,
		};
	s->arch_frames[idx] = f;
	return f;
}

/* The archive's entry for (kind, path, build-id, off) into *as and frames:
 * its index, or -1 when not archived (or no archive). */
static long entry_of(const struct tdr_symbolizer *s, uint8_t kind, const char *path,
		     const uint8_t *bid, size_t bid_sz, uint64_t off, struct tdr_archive_sym *as,
		     struct tdr_archive_frame *frames)
{
	long d;

	if (!s->opts.archive)
		return -1;
	d = tdr_archive__find_dso(s->opts.archive, kind, path, bid, bid_sz);
	return d < 0 ? -1 : tdr_archive__find(s->opts.archive, (size_t)d, off, as, frames);
}

/* Look (kind, path, build-id, off) up. Returns 1 with *out set, 0 when not
 * archived, -ENOMEM. */
static int find(struct tdr_symbolizer *s, uint8_t kind, const char *path, const uint8_t *bid,
		size_t bid_sz, uint64_t off, struct tdr_sym *out)
{
	struct tdr_archive_frame frames[TDR_ARCHIVE_MAX_INLINES];
	struct tdr_archive_sym as;
	long idx;
	int err = 0;

	if (!s->opts.archive)
		return 0;
	idx = entry_of(s, kind, path, bid, bid_sz, off, &as, frames);
	if (idx < 0) {
		s->arch_live++;
		return 0;
	}
	memset(out, 0, sizeof(*out));
	if (as.status != TDR_ARCHIVE_SYM_OK) {
		out->status = TDR_SYM_NO_SYMBOL;
		s->arch_hits++;
		return 1;
	}
	out->status = TDR_SYM_OK;
	out->function = as.function;
	out->function_offset = as.function_offset;
	out->function_size = as.function_size;
	if (s->opts.want_lines) {
		out->file = as.file;
		out->line = as.line;
		out->column = as.column;
	}
	if (s->opts.want_inlines && as.inline_cnt) {
		out->inlines = frames_of(s, idx, &as, &err);
		if (err)
			return err;
		out->inline_cnt = as.inline_cnt;
	}
	s->arch_hits++;
	return 1;
}

int tdr_symbolizer__lookup_archived(struct tdr_symbolizer *s, const struct tdr_dso_ref *dso,
				    uint64_t file_off, struct tdr_sym *out)
{
	if (!dso || !dso->path || !dso->path[0])
		return 0;
	return find(s, TDR_ARCHIVE_FILE, dso->path, dso->build_id,
		    dso->build_id ? dso->build_id_sz : 0, file_off, out);
}

bool tdr_symbolize_archived__covers(const struct tdr_symbolizer *s, const struct tdr_dso_ref *dso,
				    uint64_t file_off)
{
	struct tdr_archive_frame frames[TDR_ARCHIVE_MAX_INLINES];
	struct tdr_archive_sym as;

	return entry_of(s, TDR_ARCHIVE_FILE, dso->path, dso->build_id,
			dso->build_id ? dso->build_id_sz : 0, file_off, &as, frames) >= 0;
}

int tdr_symbolize_archived__kernel(struct tdr_symbolizer *s, uint64_t ip, struct tdr_sym *out)
{
	return find(s, TDR_ARCHIVE_KERNEL, TDR_KERNEL_DSO, NULL, 0, ip, out);
}

void tdr_symbolizer__archive_counts(const struct tdr_symbolizer *s, uint64_t *archived,
				    uint64_t *live)
{
	*archived = s->arch_hits;
	*live = s->arch_live;
}
