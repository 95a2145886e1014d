/*
 * report/warnings.c - what the report header says about the recording.
 *
 * Responsibility: turn the parser's statistics, the file's state and the run
 * end into warning lines (lost samples, re-based deltas by reason,
 * multiplexing, unmapped samples, skipped records, truncated file, a recording
 * stopped early) and describe how the run ended. Numbers only come from the
 * structs handed in; nothing is guessed.
 */
#include "report_int.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "tdrec/tdr_mem.h"

/* Own texts for the parser's re-base reasons (enum tdr_rebase_reason), so
 * this file does not need the parser library. */
static const char *const rebase_text[TDR_REBASE_REASON_CNT] = {
    [TDR_REBASE_BACKWARDS] = "a counter went backwards",
    [TDR_REBASE_LOST] = "records were lost on the stream's ring",
    [TDR_REBASE_THROTTLE] = "the sampler was throttled",
    [TDR_REBASE_NOT_RUNNING] = "the group was not running",
};

static double pct(uint64_t part, uint64_t whole)
{
	return whole ? 100.0 * (double)part / (double)whole : 0.0;
}

void tdr_report__note_parse(struct tdr_report *r, const struct tdr_parse_stats *st,
			    const struct tdr_file_status *fs)
{
	if (fs && fs->damaged) {
		r->damaged = true;
		tdr_report__warn(r,
				 "file is damaged: its records are out of step from byte %" PRIu64
				 " of %" PRIu64 " on (perf cannot read it either); only the "
				 "records before that are counted",
				 fs->intact_sz, fs->file_sz);
	}
	if (fs && fs->truncated)
		tdr_report__warn(r,
				 "file is truncated (the recording did not finish cleanly): "
				 "read the first %" PRIu64 " of %" PRIu64 " bytes",
				 fs->intact_sz, fs->file_sz);
	if (st) {
		uint64_t lost = st->lost_samples + st->lost_samples_pmu;

		if (!st->samples)
			tdr_report__warn(r, "no samples in this recording");
		if (lost)
			tdr_report__warn(r,
					 "lost %" PRIu64 " samples (%.1f%% of %" PRIu64
					 "): the ring buffer was full; sample less often (-F/-c)",
					 lost, pct(lost, lost + st->samples), lost + st->samples);
		/* --call-graph dwarf: copies the unwinder found no caller in
		 * (stack too small for the frame, objects that cannot be read). */
		if (r->opts.stacks && st->user_stacks &&
		    st->user_stacks_unwound < st->user_stacks - st->user_stacks / 10)
			tdr_report__warn(r,
					 "%" PRIu64 " of %" PRIu64
					 " user stack copies gave no caller: their objects "
					 "could not be read, or the copy is too small (--call-graph "
					 "dwarf,SIZE)",
					 st->user_stacks - st->user_stacks_unwound, st->user_stacks);
		r->rebased = 0;
		for (int i = 0; i < TDR_REBASE_REASON_CNT; i++)
			r->rebased += st->rebases[i];
		for (int i = 0; i < TDR_REBASE_REASON_CNT; i++)
			if (st->rebases[i])
				tdr_report__warn(r,
						 "%" PRIu64
						 " samples (%.1f%%) carry no deltas: their "
						 "stream was re-based because %s",
						 st->rebases[i], pct(st->rebases[i], st->samples),
						 rebase_text[i]);
		if (st->multiplexed_samples)
			tdr_report__warn(
			    r,
			    "%" PRIu64 " samples (%.1f%%) come from a multiplexed group "
			    "(time running < time enabled)",
			    st->multiplexed_samples, pct(st->multiplexed_samples, st->samples));
		if (st->throttles)
			tdr_report__warn(r,
					 "the kernel throttled sampling %" PRIu64
					 " times (perf_event_max_sample_rate)",
					 st->throttles);
		if (st->unmapped_samples)
			tdr_report__warn(
			    r, "%" PRIu64 " user samples (%.1f%%) are in no known mapping",
			    st->unmapped_samples, pct(st->unmapped_samples, st->samples));
		if (st->malformed_records)
			tdr_report__warn(r, "skipped %" PRIu64 " malformed records",
					 st->malformed_records);
		if (st->unknown_ids)
			tdr_report__warn(r,
					 "skipped %" PRIu64 " records of events not in the "
					 "recording's metadata",
					 st->unknown_ids);
		if (st->implausible_samples)
			tdr_report__warn(r,
					 "skipped %" PRIu64 " samples whose deltas are larger "
					 "than their time allows (damaged values; docs/parser.md "
					 "\"Plausibility\")",
					 st->implausible_samples);
	}
	if (st && st->truncated_frames)
		tdr_report__warn(r,
				 "file is truncated: it became shorter while it was read "
				 "(overwritten or cut); %" PRIu64 " frames past its new end "
				 "were skipped",
				 st->truncated_frames);
	if ((st && st->bad_frames) || (fs && fs->bad_frames))
		tdr_report__warn(r,
				 "%" PRIu64 " frames could not be read (checksum or codec) "
				 "and were skipped",
				 st && st->bad_frames ? st->bad_frames : (uint64_t)fs->bad_frames);
}

bool tdr_report__damaged(const struct tdr_report *r)
{
	return r->damaged;
}

void tdr_report__set_run(struct tdr_report *r, const char *file, enum tdr_source_kind source,
			 const struct tdr_run_end *end)
{
	if (file) {
		free(r->file);
		r->file = tdr_strdup(file); /* NULL on ENOMEM: the header omits it */
	}
	r->source = source;
	r->have_end = end != NULL;
	if (!end)
		return;
	r->end = *end;
	if (end->flags & TDR_END_WRITE_ERROR)
		tdr_report__warn(r, "recording stopped early on a write error (disk full?)");
}

void tdr_report_describe_end(const struct tdr_report *r, char *buf, size_t sz)
{
	const struct tdr_run_end *e = &r->end;

	if (!r->have_end)
		snprintf(buf, sz, "run end not recorded");
	else if (e->flags & TDR_END_NO_PROGRAM)
		snprintf(buf, sz, "%s",
			 e->flags & TDR_END_INTERRUPTED ? "attached, stopped by signal"
							: "attached");
	else if (e->flags & TDR_END_SIGNALLED)
		snprintf(buf, sz, "killed by signal %d", e->term_signal);
	else if (e->flags & TDR_END_INTERRUPTED)
		snprintf(buf, sz, "interrupted");
	else
		snprintf(buf, sz, "exit %d", e->exit_code);
}
