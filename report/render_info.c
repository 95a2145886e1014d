/*
 * report/render_info.c - 'tdrec info': what a recording holds, as text or
 * JSON.
 *
 * Responsibility: run an open parser once (samples per sampler event, the
 * sum of each event's deltas, distinct threads with samples, the time span
 * of the samples), then write the metadata, the counts and the file's
 * health. Text is here; the JSON object, a table of its fields, is in
 * render_info_json.c. Opening the file and its error messages stay with the
 * caller (cli/cmd_info.c).
 * Ownership and threads: the parser is borrowed for the call; one thread.
 * See: docs/format.md section 13 (the JSON keys); parser/include/tdrec/parser.h.
 */
#include "info_int.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <time.h>

#include "report_int.h"
#include "tdrec/archive.h"
#include "tdrec/plan.h"
#include "tdrec/tdr_mem.h"

/* ---------------------------------------------------------------------------
 * Counting.
 */
static int on_sample(const struct tdr_sample *s, void *ctx)
{
	struct info *in = ctx;
	size_t i;

	if (s->sampler_idx < in->meta->event_cnt)
		in->ev_samples[s->sampler_idx]++;
	for (i = 0; i < in->meta->event_cnt; i++)
		in->ev_delta[i] += s->deltas[i];
	if (!in->have_time || s->time_ns < in->first_ns)
		in->first_ns = s->time_ns;
	if (!in->have_time || s->time_ns > in->last_ns)
		in->last_ns = s->time_ns;
	in->have_time = true;
	if (s->map && s->map->kind == TDR_MAP_ANON) {
		in->anon_samples++;
		if (tdr_u64map__get(&in->anon_pids, s->pid) == TDR_HMAP_NONE &&
		    tdr_u64map__put(&in->anon_pids, s->pid, 0))
			return -ENOMEM;
	}
	return tdr_u64map__put(&in->tids, s->tid, 0); /* the set of threads seen */
}

uint64_t tdr_report_info_duration(const struct info *in)
{
	const struct tdr_run_end *end = tdr_parser__run_end(in->p);

	if (end)
		return end->duration_ns;
	if (!in->have_time)
		return 0;
	/* No trailer (the recorder was killed): from the start of recording,
	 * when the file says when that was on the sample clock, to the last
	 * sample. */
	if (in->meta->start_clock_ns && in->meta->start_clock_ns <= in->first_ns)
		return in->last_ns - in->meta->start_clock_ns;
	return in->last_ns - in->first_ns;
}

/* As found by the reader: so also for a file without trailer. */
uint64_t tdr_report_info_frames(const struct info *in)
{
	const struct tdr_file_status *fs = tdr_parser__file_status(in->p);

	return fs ? fs->frame_cnt + fs->bad_frames : 0;
}

/* ---------------------------------------------------------------------------
 * Text.
 */
static const char *or_unknown(const char *s)
{
	return s && *s ? s : "(unknown)";
}

/* A string from the file, for a terminal: its control characters as '?'
 * (tdr_textout.h), "(unknown)" when empty. */
struct safe {
	char b[4][512];
	unsigned next;
};

static const char *safe(struct safe *sb, const char *s)
{
	char *b = sb->b[sb->next++ % 4];

	return tdr_text_safe(or_unknown(s), b, sizeof(sb->b[0]));
}

/* "2024-05-01 12:00:00.123 UTC" for a CLOCK_REALTIME time in ns. */
static void format_wall(uint64_t ns, char *buf, size_t sz)
{
	time_t sec = (time_t)(ns / 1000000000u);
	struct tm tm;
	size_t n;

	if (!ns || !gmtime_r(&sec, &tm) || !(n = strftime(buf, sz, "%Y-%m-%d %H:%M:%S", &tm))) {
		snprintf(buf, sz, "(unknown)");
		return;
	}
	snprintf(buf + n, sz - n, ".%03u UTC", (unsigned)(ns % 1000000000u / 1000000u));
}

/* The recording's settings: when, how often, which threads. */
static void print_settings(const struct tdr_meta *m, FILE *f)
{
	char when[64];

	format_wall(m->start_wall_ns, when, sizeof(when));
	fprintf(f, "started:     %s", when);
	if (m->start_clock_ns)
		fprintf(f, "; sample clock (clockid %d) at %.6f s", m->clockid,
			(double)m->start_clock_ns / 1e9);
	fputc('\n', f);
	if (m->sample_freq)
		fprintf(f, "sampling:    %" PRIu64 " Hz", m->sample_freq);
	else if (m->sample_period)
		fprintf(f, "sampling:    every %" PRIu64 " events", m->sample_period);
	else
		fprintf(f, "sampling:    (unknown)");
	fprintf(f, "; %s%s%s",
		m->flags & TDR_META_SYSTEM_WIDE ? "system-wide"
		: m->flags & TDR_META_ATTACHED	? "attached to running processes"
						: "launched program",
		m->flags & TDR_META_INHERIT ? ", children and threads inherited" : "",
		m->flags & TDR_META_KERNEL ? ", kernel samples" : ", user samples only");
	if (m->page_sz)
		fprintf(f, "; page size %u", m->page_sz);
	fputc('\n', f);
}

/* How the program and the recording ended (the trailer's RUN_END). */
/* Whether the file carries its symbols (docs/format.md 7.2). */
static void print_archive(const struct tdr_parser *p, FILE *f)
{
	const struct tdr_archive *a = tdr_parser__archive(p);
	const struct tdr_archive_stats *st;

	if (tdr_parser__stats(p)->archive_damaged) {
		fprintf(f, "symbols:     archive damaged, not used (symbolized from the files on disk)\n");
		return;
	}
	if (!a) {
		fprintf(f, "symbols:     not archived (symbolized from the files on disk; "
			   "'tdrec archive' stores them)\n");
		return;
	}
	st = tdr_archive__stats(a);
	fprintf(f,
		"symbols:     archived: %" PRIu64 " addresses in %" PRIu64 " objects (%" PRIu64
		" in functions, %" PRIu64 " inline frames), %" PRIu64 " bytes\n",
		st->addrs, st->dsos, st->functions, st->inline_frames, st->data_sz);
	if (st->stack_samples)
		fprintf(f,
			"stacks:      archived: %" PRIu64 " samples' unwound stacks (%" PRIu64
			" distinct)\n",
			st->stack_samples, st->stacks);
}

static void print_run_end(const struct tdr_run_end *end, FILE *f)
{
	if (end->flags & TDR_END_NO_PROGRAM)
		fprintf(f, "program:     none launched (-p or -a)");
	else if (end->flags & TDR_END_SIGNALLED)
		fprintf(f, "program:     killed by signal %d (%s)", end->term_signal,
			strsignal(end->term_signal));
	else
		fprintf(f, "program:     exit code %d", end->exit_code);
	if (end->flags & TDR_END_INTERRUPTED)
		fprintf(f, "; recording stopped by a signal to tdrec");
	if (end->flags & TDR_END_WRITE_ERROR)
		fprintf(f, "; recording stopped early by a write error");
	fputc('\n', f);
}

/* -v: an event's attr field by field (the --dry-run shape) and its ids. */
static void print_event_detail(const struct tdr_event_desc *e, FILE *f)
{
	char pmu[256];

	tdr_attr__print(&e->attr, e->pmu_name ? tdr_text_safe(e->pmu_name, pmu, sizeof(pmu)) : NULL,
			f);
	if (e->attr_disk_sz != sizeof(e->attr))
		fprintf(f, "    (%u attr bytes in the file, this tdrec knows %zu)\n",
			e->attr_disk_sz, sizeof(e->attr));
	fprintf(f, "    ids                 ");
	for (size_t j = 0; j < e->id_cnt; j++)
		fprintf(f, "%s%" PRIu64 " (cpu %d pid %d)", j ? ", " : "", e->ids[j].id,
			(int32_t)e->ids[j].cpu, (int32_t)e->ids[j].pid);
	fprintf(f, "%s\n", e->id_cnt ? "" : "(none)");
}

/* An event's counted total, and how much of it the samples' deltas hold. */
static void print_counted(const struct tdr_event_totals *t, uint64_t delta_total, FILE *f)
{
	fprintf(f, "  %-24s counted %" PRIu64 " over the run", "", t->counted);
	if (t->counted)
		fprintf(f, ", %.1f%% of it in the samples' deltas",
			100.0 * (double)delta_total / (double)t->counted);
	fputc('\n', f);
}

/*
 * Samples in anonymous memory are JIT code, named from the process's perf
 * map or jitdump (docs/symbolize.md "JIT code"): say which processes have
 * one here, so a report of "[anon]" rows is explained before it runs.
 */
static void print_jit(const struct info *in, FILE *f)
{
	size_t n = tdr_u64map__cnt(&in->anon_pids);

	if (!in->anon_samples)
		return;
	fprintf(f, "jit:         %" PRIu64 " samples in anonymous memory of %zu process%s:",
		in->anon_samples, n, n == 1 ? "" : "es");
	for (size_t i = 0; i < n && i < 4; i++) {
		uint32_t pid = (uint32_t)in->anon_pids.ents[i].key;
		const char *dump = tdr_parser__jitdump(in->p, pid);
		char map[64];

		snprintf(map, sizeof(map), "/tmp/perf-%" PRIu32 ".map", pid);
		fprintf(f, "%s pid %" PRIu32 " %s", i ? "," : "", pid,
			!access(map, R_OK) ? map
			: dump && !access(dump, R_OK) ? dump
						      : "(no perf map or jitdump here)");
	}
	fprintf(f, "%s\n", n > 4 ? ", ..." : "");
}

static void print_text(const struct info *in, bool verbose, FILE *f)
{
	const struct tdr_parser *p = in->p;
	const char *path = in->path;
	const struct tdr_totals *tot = tdr_parser__totals(p);
	const struct tdr_meta *m = tdr_parser__meta(p);
	const struct tdr_parse_stats *st = tdr_parser__stats(p);
	const struct tdr_file_status *fs = tdr_parser__file_status(p);
	const struct tdr_run_end *end = tdr_parser__run_end(p);
	uint64_t dur = tdr_report_info_duration(in);
	struct safe sb = {.next = 0};
	size_t i;

	/* Every string below comes from the file (or names it): through safe(). */
	fprintf(f, "file:        %s (%s", safe(&sb, path),
		tdr_report_source_name(tdr_parser__source(in->p)));
	if (tdr_parser__source(p) == TDR_SOURCE_TDR)
		fprintf(f, " format %u.%u", tdr_parser__file_status(p)->major,
			tdr_parser__file_status(p)->minor);
	fprintf(f, ")\n");
	if (m->tdrec_version)
		fprintf(f, "recorded by: tdrec %s\n", safe(&sb, m->tdrec_version));
	fprintf(f, "host:        %s, kernel %s\n", safe(&sb, m->hostname),
		safe(&sb, m->kernel_release));
	fprintf(f, "cpu:         %s family %u model %u stepping %u, %s, %u CPUs\n",
		safe(&sb, m->cpu_vendor), m->cpu_family, m->cpu_model, m->cpu_stepping,
		safe(&sb, m->cpu_model_name), m->nr_cpus);
	fprintf(f, "command:    ");
	for (i = 0; i < m->argc; i++) {
		fputc(' ', f);
		tdr_text_put(f, m->argv[i]);
	}
	fprintf(f, "%s\n", m->argc ? "" : " (unknown)");
	print_settings(m, f);
	fprintf(f, "plan:        %s\n", safe(&sb, m->plan_name));
	for (i = 0; i < m->note_cnt; i++) {
		fputs("note:        ", f);
		tdr_text_put(f, m->notes[i]);
		fputc('\n', f);
	}
	fprintf(f, "events:\n");
	for (i = 0; i < m->event_cnt; i++) {
		const struct tdr_event_desc *e = &m->events[i];

		fprintf(f,
			"  %-24s %-10s %-8s samples %-10" PRIu64 " total %-12" PRIu64
			" type %u config %#" PRIx64 ", %zu ids\n",
			safe(&sb, e->name), safe(&sb, e->pmu_name),
			e->flags & TDR_EVENT_SAMPLER  ? "sampler"
			: e->flags & TDR_EVENT_LEADER ? "leader"
						      : "",
			in->ev_samples[i], in->ev_delta[i], e->attr.type, (uint64_t)e->attr.config,
			e->id_cnt);
		if (tot && i < tot->event_cnt && tot->events[i].lost_samples)
			fprintf(f, "  %-24s %" PRIu64 " samples lost (PERF_FORMAT_LOST)\n", "",
				tot->events[i].lost_samples);
		if (tot && i < tot->event_cnt && tot->events[i].has_counted)
			print_counted(&tot->events[i], in->ev_delta[i], f);
		if (verbose)
			print_event_detail(e, f);
	}
	fprintf(f, "duration:    %.3f s\n", (double)dur / 1e9);
	fprintf(f, "samples:     %" PRIu64 " (%" PRIu64 " attributed), %zu threads with samples\n",
		st->samples, st->samples_delivered, tdr_u64map__cnt(&in->tids));
	fprintf(f, "records:     %" PRIu64 " in %" PRIu64 " frames\n", st->records,
		tdr_report_info_frames(in));
	fprintf(f,
		"lost:        %" PRIu64 " records (%" PRIu64 " samples), %" PRIu64
		" samples dropped by the PMU\n",
		st->lost_records, st->lost_samples, st->lost_samples_pmu);
	fprintf(f, "throttled:   %" PRIu64 " times (%" PRIu64 " unthrottles)\n", st->throttles,
		st->unthrottles);
	fprintf(f, "re-based:   ");
	for (i = 0; i < TDR_REBASE_REASON_CNT; i++)
		fprintf(f, " %s %" PRIu64 "%s", tdr_rebase_reason_name((enum tdr_rebase_reason)i),
			st->rebases[i], i + 1 < TDR_REBASE_REASON_CNT ? "," : "\n");
	if (st->multiplexed_samples)
		fprintf(f,
			"warning:     %" PRIu64 " samples from a multiplexed group: numbers are "
			"suspect\n",
			st->multiplexed_samples);
	if (st->malformed_records || st->unknown_records || st->unknown_ids)
		fprintf(f,
			"skipped:     %" PRIu64 " malformed records, %" PRIu64
			" of unknown type, %" PRIu64 " with unknown ids\n",
			st->malformed_records, st->unknown_records, st->unknown_ids);
	if (st->implausible_samples)
		fprintf(f,
			"skipped:     %" PRIu64 " samples with deltas larger than their time "
			"allows (damaged values)\n",
			st->implausible_samples);
	if (st->dso_entries || st->dso_damaged)
		fprintf(f, "build-ids:   %" PRIu64 " of %" PRIu64 " mapped files (DSO table)%s\n",
			st->dso_build_ids, st->dso_entries, st->dso_damaged ? ", damaged" : "");
	print_archive(p, f);
	print_jit(in, f);
	if (end)
		print_run_end(end, f);
	if (!fs)
		return;
	if (!fs->truncated && !fs->bad_frames && !st->bad_frames && !st->truncated_frames &&
	    !fs->damaged) {
		/* Whole as a file, but not as a recording: say so here too. */
		fprintf(f, "file status: complete (%" PRIu64 " bytes)%s\n", fs->file_sz,
			end && (end->flags & TDR_END_WRITE_ERROR)
			    ? ", but the recording stopped early at a write error"
			    : "");
		return;
	}
	fprintf(f,
		"file status: %s%s; %" PRIu64 " of %" PRIu64 " bytes intact (%" PRIu64
		" bytes missing or unreadable)",
		fs->truncated || st->truncated_frames ? "TRUNCATED" : "damaged",
		fs->has_trailer ? "" : ", no trailer (recording did not finish)", fs->intact_sz,
		fs->file_sz, fs->file_sz - fs->intact_sz);
	if (fs->bad_frames || st->bad_frames)
		fprintf(f, ", %" PRIu64 " bad frames",
			st->bad_frames > fs->bad_frames ? st->bad_frames : fs->bad_frames);
	if (st->truncated_frames)
		fprintf(f, ", %" PRIu64 " frames past its end (it shrank while read)",
			st->truncated_frames);
	fprintf(f, "\n");
}

int tdr_report_info(struct tdr_parser *p, const struct tdr_info_opts *o, FILE *out)
{
	struct info in = {.path = o->path, .p = p, .meta = tdr_parser__meta(p)};
	int err;

	if (o->fmt != TDR_FMT_TEXT && o->fmt != TDR_FMT_JSON)
		return -EINVAL;
	in.ev_samples = tdr_calloc(in.meta->event_cnt + 1, sizeof(*in.ev_samples));
	in.ev_delta = tdr_calloc(in.meta->event_cnt + 1, sizeof(*in.ev_delta));
	err = in.ev_samples && in.ev_delta ? tdr_parser__run(p, on_sample, &in) : -ENOMEM;
	if (!err && o->fmt == TDR_FMT_JSON)
		tdr_report_info_render_json(&in, out);
	else if (!err)
		print_text(&in, o->verbose, out);
	free(in.ev_samples);
	free(in.ev_delta);
	tdr_u64map__fini(&in.tids);
	tdr_u64map__fini(&in.anon_pids);
	return err;
}
