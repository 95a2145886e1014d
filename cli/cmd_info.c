/*
 * cli/cmd_info.c - 'tdrec info [--json] FILE': what a recording holds.
 *
 * Responsibility: open a .tdr or perf.data file through the parser, run it
 * once (to count samples, threads and per-event deltas), and print the
 * metadata, the counts and the file's health as text or as one JSON object.
 * Errors: one line naming the file and the reason, exit 1; usage errors exit 2.
 * See: parser/include/tdrec/parser.h; docs/format.md.
 */
#include "commands.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tdrec/parser.h"
#include "tdrec/tdr_err.h"
#include "tdrec/tdr_log.h"
#include "tdrec/tdr_textout.h"

static const char usage_text[] =
	"usage: tdrec info [--json | -v] FILE\n"
	"\n"
	"Show what a recording holds: host, CPU, kernel, command line, event plan and\n"
	"events, sample and record counts, lost records and samples, throttles,\n"
	"re-based streams, distinct threads with samples, duration, and whether the\n"
	"file is complete. FILE is a .tdr file or a perf.data file (also -z).\n"
	"The samples are read once to count threads and per-event totals.\n"
	"\n"
	"options:\n"
	"  --json         print one JSON object instead of text (with each event's\n"
	"                 attr, main fields and all its bytes in hex, and its ids)\n"
	"  -v, --verbose  text: also every event's perf_event_attr, field by field,\n"
	"                 and its kernel-assigned ids\n"
	"  -h, --help     this text\n"
	"\n"
	"exit status: 0 ok (also for a truncated file read in part: its file status\n"
	"says TRUNCATED), 1 the file cannot be read, 2 usage error\n";

/* Counts gathered while running the parser. */
struct info {
	const struct tdr_meta *meta;
	uint64_t *ev_samples; /* samples per sampler event */
	uint64_t *ev_delta;   /* sum of deltas per event */
	uint32_t *tids;	      /* open-addressing set, 0 = empty slot (tid 0 kept apart) */
	size_t tid_cap, tid_cnt;
	bool tid0;
	uint64_t first_ns, last_ns;
	bool have_time;
};

static int tid_add(struct info *in, uint32_t tid)
{
	size_t i;

	if (!tid) {
		in->tid_cnt += !in->tid0;
		in->tid0 = true;
		return 0;
	}
	if ((in->tid_cnt + 1) * 2 > in->tid_cap) {
		size_t ncap = in->tid_cap ? in->tid_cap * 2 : 1024, j;
		uint32_t *n = calloc(ncap, sizeof(*n));

		if (!n)
			return -ENOMEM;
		for (j = 0; j < in->tid_cap; j++) {
			uint32_t t = in->tids[j];

			if (!t)
				continue;
			for (i = (t * 2654435761u) & (ncap - 1); n[i]; i = (i + 1) & (ncap - 1))
				;
			n[i] = t;
		}
		free(in->tids);
		in->tids = n;
		in->tid_cap = ncap;
	}
	for (i = (tid * 2654435761u) & (in->tid_cap - 1); in->tids[i];
	     i = (i + 1) & (in->tid_cap - 1))
		if (in->tids[i] == tid)
			return 0;
	in->tids[i] = tid;
	in->tid_cnt++;
	return 0;
}

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
	return tid_add(in, s->tid);
}

/* ---------------------------------------------------------------------------
 * JSON output.
 */
/* A JSON string (file strings may hold any bytes: see tdr_textout.h). */
static void jstr(const char *str)
{
	tdr_json_put_string(stdout, str);
}

static void jkey(const char *k, bool *first)
{
	printf("%s\n  ", *first ? "{" : ",");
	*first = false;
	jstr(k);
	fputs(": ", stdout);
}

static const char *source_name(enum tdr_source_kind k)
{
	return k == TDR_SOURCE_PERF_DATA ? "perf.data" : "tdr";
}

static uint64_t duration_of(const struct tdr_parser *p, const struct info *in)
{
	const struct tdr_run_end *end = tdr_parser__run_end(p);

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

/* FRAME blocks the file holds, readable or not, as found by the reader: so
 * also for a file without trailer (0 for perf.data, which has none). */
static uint64_t frames_of(const struct tdr_parser *p)
{
	const struct tdr_file_status *fs = tdr_parser__file_status(p);

	return fs ? fs->frame_cnt + fs->bad_frames : 0;
}

/* An event's attr: the main fields, then every byte this build knows
 * (min(attr_disk_sz, sizeof)) in hex, so nothing is hidden. */
static void json_attr(const struct tdr_event_desc *e)
{
	const struct perf_event_attr *a = &e->attr;
	const uint8_t *bytes = (const uint8_t *)a;
	size_t n = e->attr_disk_sz < sizeof(*a) ? e->attr_disk_sz : sizeof(*a);
	uint64_t bits;

	/* The bit fields (disabled, inherit, ..., freq, ...) are the u64 after
	 * read_format in every attr version. */
	memcpy(&bits, bytes + offsetof(struct perf_event_attr, read_format) + 8, sizeof(bits));
	printf("\"attr\": {\"type\": %u, \"size\": %u, \"config\": %" PRIu64
	       ", \"config1\": %" PRIu64 ", \"config2\": %" PRIu64 ", \"%s\": %" PRIu64
	       ", \"sample_type\": %" PRIu64 ", \"read_format\": %" PRIu64 ", \"bits\": %" PRIu64
	       ", \"disk_size\": %u, \"hex\": \"",
	       a->type, a->size, (uint64_t)a->config, (uint64_t)a->config1, (uint64_t)a->config2,
	       a->freq ? "sample_freq" : "sample_period", (uint64_t)a->sample_period,
	       (uint64_t)a->sample_type, (uint64_t)a->read_format, bits, e->attr_disk_sz);
	for (size_t i = 0; i < n; i++)
		printf("%02x", bytes[i]);
	fputs("\"}", stdout);
}

/* An event's kernel-assigned ids; cpu and pid are -1 for "any". */
static void json_ids(const struct tdr_event_desc *e)
{
	fputs("\"ids\": [", stdout);
	for (size_t j = 0; j < e->id_cnt; j++)
		printf("%s{\"cpu\": %d, \"pid\": %d, \"id\": %" PRIu64 "}", j ? ", " : "",
		       (int32_t)e->ids[j].cpu, (int32_t)e->ids[j].pid, e->ids[j].id);
	putchar(']');
}

static void print_json(const char *path, const struct tdr_parser *p, const struct info *in)
{
	const struct tdr_totals *tot = tdr_parser__totals(p);
	const struct tdr_meta *m = tdr_parser__meta(p);
	const struct tdr_parse_stats *st = tdr_parser__stats(p);
	const struct tdr_file_status *fs = tdr_parser__file_status(p);
	const struct tdr_run_end *end = tdr_parser__run_end(p);
	bool first = true;
	size_t i;

	jkey("file", &first);
	jstr(path);
	jkey("source", &first);
	jstr(source_name(tdr_parser__source(p)));
	jkey("format_version", &first);
	if (tdr_parser__source(p) == TDR_SOURCE_TDR)
		printf("\"%u.%u\"", tdr_parser__file_status(p)->major,
		       tdr_parser__file_status(p)->minor);
	else
		jstr("perf.data");
	jkey("tdrec_version", &first);
	jstr(m->tdrec_version);
	jkey("plan", &first);
	jstr(m->plan_name);
	jkey("events", &first);
	putchar('[');
	for (i = 0; i < m->event_cnt; i++) {
		fputs(i ? ", " : "", stdout);
		jstr(m->events[i].name);
	}
	putchar(']');
	jkey("samples", &first);
	printf("%" PRIu64, st->samples);
	jkey("samples_attributed", &first);
	printf("%" PRIu64, st->samples_delivered);
	jkey("lost_samples", &first);
	printf("%" PRIu64, st->lost_samples + st->lost_samples_pmu);
	jkey("lost_records", &first);
	printf("%" PRIu64, st->lost_records);
	jkey("records", &first);
	printf("%" PRIu64, st->records);
	jkey("frames", &first);
	printf("%" PRIu64, frames_of(p));
	jkey("threads", &first);
	printf("%zu", in->tid_cnt);
	jkey("truncated", &first);
	fputs(fs && fs->truncated ? "true" : "false", stdout);
	jkey("duration_ns", &first);
	printf("%" PRIu64, duration_of(p, in));
	jkey("start_wall_ns", &first);
	printf("%" PRIu64, m->start_wall_ns);
	jkey("start_clock_ns", &first);
	printf("%" PRIu64, m->start_clock_ns);
	jkey("clockid", &first);
	printf("%d", m->clockid);
	jkey("sample_period", &first);
	printf("%" PRIu64, m->sample_period);
	jkey("sample_freq", &first);
	printf("%" PRIu64, m->sample_freq);
	jkey("mode", &first);
	printf("{\"inherit\": %s, \"system_wide\": %s, \"attached\": %s, \"kernel\": %s}",
	       m->flags & TDR_META_INHERIT ? "true" : "false",
	       m->flags & TDR_META_SYSTEM_WIDE ? "true" : "false",
	       m->flags & TDR_META_ATTACHED ? "true" : "false",
	       m->flags & TDR_META_KERNEL ? "true" : "false");
	jkey("page_size", &first);
	printf("%u", m->page_sz);
	jkey("boot_id", &first);
	jstr(m->boot_id);
	jkey("host", &first);
	jstr(m->hostname);
	jkey("kernel_release", &first);
	jstr(m->kernel_release);
	jkey("cpu", &first);
	printf("{\"vendor\": ");
	jstr(m->cpu_vendor);
	printf(", \"family\": %u, \"model\": %u, \"stepping\": %u, \"model_name\": ",
	       m->cpu_family, m->cpu_model, m->cpu_stepping);
	jstr(m->cpu_model_name);
	printf(", \"nr_cpus\": %u}", m->nr_cpus);
	jkey("command_line", &first);
	putchar('[');
	for (i = 0; i < m->argc; i++) {
		fputs(i ? ", " : "", stdout);
		jstr(m->argv[i]);
	}
	putchar(']');
	jkey("notes", &first);
	putchar('[');
	for (i = 0; i < m->note_cnt; i++) {
		fputs(i ? ", " : "", stdout);
		jstr(m->notes[i]);
	}
	putchar(']');
	jkey("event_totals", &first);
	putchar('[');
	for (i = 0; i < m->event_cnt; i++) {
		const struct tdr_event_desc *e = &m->events[i];

		printf("%s\n    {\"name\": ", i ? "," : "");
		jstr(e->name);
		printf(", \"pmu\": ");
		jstr(e->pmu_name);
		printf(", \"pmu_type\": %u, \"group\": %u, \"leader\": %s, \"sampler\": %s, "
		       "\"samples\": %" PRIu64 ", \"delta_total\": %" PRIu64 ",\n     ",
		       e->pmu_type, e->group_idx, e->flags & TDR_EVENT_LEADER ? "true" : "false",
		       e->flags & TDR_EVENT_SAMPLER ? "true" : "false", in->ev_samples[i],
		       in->ev_delta[i]);
		/* The recorder's own count of this event's lost samples
		 * (PERF_FORMAT_LOST, in the trailer). */
		if (tot && i < tot->event_cnt)
			printf("\"lost_samples\": %" PRIu64 ", ", tot->events[i].lost_samples);
		else
			printf("\"lost_samples\": null, ");
		/* The whole run's count (trailer COUNTED, docs/format.md 8.1). */
		if (tot && i < tot->event_cnt && tot->events[i].has_counted)
			printf("\"counted\": %" PRIu64 ", \"counted_time_enabled_ns\": %" PRIu64
			       ", \"counted_time_running_ns\": %" PRIu64 ",\n     ",
			       tot->events[i].counted, tot->events[i].time_enabled_ns,
			       tot->events[i].time_running_ns);
		else
			printf("\"counted\": null, \"counted_time_enabled_ns\": null, "
			       "\"counted_time_running_ns\": null,\n     ");
		json_attr(e);
		printf(",\n     ");
		json_ids(e);
		putchar('}');
	}
	fputs(m->event_cnt ? "\n  ]" : "]", stdout);
	jkey("rebases", &first);
	putchar('{');
	for (i = 0; i < TDR_REBASE_REASON_CNT; i++) {
		fputs(i ? ", " : "", stdout);
		jstr(tdr_rebase_reason_name((enum tdr_rebase_reason)i));
		printf(": %" PRIu64, st->rebases[i]);
	}
	putchar('}');
	jkey("parse", &first);
	printf("{\"streams\": %" PRIu64 ", \"first_samples\": %" PRIu64 ", \"throttles\": %" PRIu64
	       ", \"unthrottles\": %" PRIu64 ", \"multiplexed_samples\": %" PRIu64
	       ", \"unmapped_samples\": %" PRIu64 ", \"unknown_records\": %" PRIu64
	       ", \"malformed_records\": %" PRIu64 ", \"unknown_ids\": %" PRIu64
	       ", \"bad_frames\": %" PRIu64 ", \"dso_entries\": %" PRIu64
	       ", \"dso_build_ids\": %" PRIu64 ", \"dso_damaged\": %" PRIu64 "}",
	       st->streams, st->first_samples, st->throttles, st->unthrottles,
	       st->multiplexed_samples, st->unmapped_samples, st->unknown_records,
	       st->malformed_records, st->unknown_ids, st->bad_frames, st->dso_entries,
	       st->dso_build_ids, st->dso_damaged);
	jkey("file_status", &first);
	if (fs)
		printf("{\"file_size\": %" PRIu64 ", \"has_trailer\": %s, \"truncated\": %s, "
		       "\"intact_size\": %" PRIu64 ", \"bad_frames\": %u}",
		       fs->file_sz, fs->has_trailer ? "true" : "false",
		       fs->truncated ? "true" : "false", fs->intact_sz, fs->bad_frames);
	else
		fputs("null", stdout);
	jkey("run_end", &first);
	if (end)
		printf("{\"exit_code\": %d, \"term_signal\": %d, \"flags\": %u}", end->exit_code,
		       end->term_signal, end->flags);
	else
		fputs("null", stdout);
	fputs("\n}\n", stdout);
}

/* ---------------------------------------------------------------------------
 * Text output.
 */
static const char *or_unknown(const char *s)
{
	return s && *s ? s : "(unknown)";
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
static void print_settings(const struct tdr_meta *m)
{
	char when[64];

	format_wall(m->start_wall_ns, when, sizeof(when));
	printf("started:     %s", when);
	if (m->start_clock_ns)
		printf("; sample clock (clockid %d) at %.6f s", m->clockid,
		       (double)m->start_clock_ns / 1e9);
	putchar('\n');
	if (m->sample_freq)
		printf("sampling:    %" PRIu64 " Hz", m->sample_freq);
	else if (m->sample_period)
		printf("sampling:    every %" PRIu64 " events", m->sample_period);
	else
		printf("sampling:    (unknown)");
	printf("; %s%s%s", 
	       m->flags & TDR_META_SYSTEM_WIDE ? "system-wide"
	       : m->flags & TDR_META_ATTACHED	 ? "attached to running processes"
					       : "launched program",
	       m->flags & TDR_META_INHERIT ? ", children and threads inherited" : "",
	       m->flags & TDR_META_KERNEL ? ", kernel samples" : ", user samples only");
	if (m->page_sz)
		printf("; page size %u", m->page_sz);
	putchar('\n');
}

/* How the program and the recording ended (the trailer's RUN_END). */
static void print_run_end(const struct tdr_run_end *end)
{
	if (end->flags & TDR_END_NO_PROGRAM)
		printf("program:     none launched (-p or -a)");
	else if (end->flags & TDR_END_SIGNALLED)
		printf("program:     killed by signal %d (%s)", end->term_signal,
		       strsignal(end->term_signal));
	else
		printf("program:     exit code %d", end->exit_code);
	if (end->flags & TDR_END_INTERRUPTED)
		printf("; recording stopped by a signal to tdrec");
	if (end->flags & TDR_END_WRITE_ERROR)
		printf("; recording stopped early by a write error");
	putchar('\n');
}

/* -v: an event's attr field by field (the --dry-run shape) and its ids. */
static void print_event_detail(const struct tdr_event_desc *e)
{
	tdr_attr__print(&e->attr, e->pmu_name, stdout);
	if (e->attr_disk_sz != sizeof(e->attr))
		printf("    (%u attr bytes in the file, this tdrec knows %zu)\n", e->attr_disk_sz,
		       sizeof(e->attr));
	printf("    ids                 ");
	for (size_t j = 0; j < e->id_cnt; j++)
		printf("%s%" PRIu64 " (cpu %d pid %d)", j ? ", " : "", e->ids[j].id,
		       (int32_t)e->ids[j].cpu, (int32_t)e->ids[j].pid);
	printf("%s\n", e->id_cnt ? "" : "(none)");
}

/* An event's counted total, and how much of it the samples' deltas hold. */
static void print_counted(const struct tdr_event_totals *t, uint64_t delta_total)
{
	printf("  %-24s counted %" PRIu64 " over the run", "", t->counted);
	if (t->counted)
		printf(", %.1f%% of it in the samples' deltas",
		       100.0 * (double)delta_total / (double)t->counted);
	putchar('\n');
}

static void print_text(const char *path, const struct tdr_parser *p, const struct info *in,
		       bool verbose)
{
	const struct tdr_totals *tot = tdr_parser__totals(p);
	const struct tdr_meta *m = tdr_parser__meta(p);
	const struct tdr_parse_stats *st = tdr_parser__stats(p);
	const struct tdr_file_status *fs = tdr_parser__file_status(p);
	const struct tdr_run_end *end = tdr_parser__run_end(p);
	uint64_t dur = duration_of(p, in);
	size_t i;

	printf("file:        %s (%s", path, source_name(tdr_parser__source(p)));
	if (tdr_parser__source(p) == TDR_SOURCE_TDR)
		printf(" format %u.%u", tdr_parser__file_status(p)->major,
		       tdr_parser__file_status(p)->minor);
	printf(")\n");
	if (m->tdrec_version)
		printf("recorded by: tdrec %s\n", m->tdrec_version);
	printf("host:        %s, kernel %s\n", or_unknown(m->hostname),
	       or_unknown(m->kernel_release));
	printf("cpu:         %s family %u model %u stepping %u, %s, %u CPUs\n",
	       or_unknown(m->cpu_vendor), m->cpu_family, m->cpu_model, m->cpu_stepping,
	       or_unknown(m->cpu_model_name), m->nr_cpus);
	printf("command:    ");
	for (i = 0; i < m->argc; i++)
		printf(" %s", m->argv[i]);
	printf("%s\n", m->argc ? "" : " (unknown)");
	print_settings(m);
	printf("plan:        %s\n", or_unknown(m->plan_name));
	for (i = 0; i < m->note_cnt; i++)
		printf("note:        %s\n", m->notes[i]);
	printf("events:\n");
	for (i = 0; i < m->event_cnt; i++) {
		const struct tdr_event_desc *e = &m->events[i];

		printf("  %-24s %-10s %-8s samples %-10" PRIu64 " total %-12" PRIu64
		       " type %u config %#" PRIx64 ", %zu ids\n",
		       e->name, or_unknown(e->pmu_name),
		       e->flags & TDR_EVENT_SAMPLER  ? "sampler"
		       : e->flags & TDR_EVENT_LEADER ? "leader"
						     : "",
		       in->ev_samples[i], in->ev_delta[i], e->attr.type, (uint64_t)e->attr.config,
		       e->id_cnt);
		if (tot && i < tot->event_cnt && tot->events[i].lost_samples)
			printf("  %-24s %" PRIu64 " samples lost (PERF_FORMAT_LOST)\n", "",
			       tot->events[i].lost_samples);
		if (tot && i < tot->event_cnt && tot->events[i].has_counted)
			print_counted(&tot->events[i], in->ev_delta[i]);
		if (verbose)
			print_event_detail(e);
	}
	printf("duration:    %.3f s\n", (double)dur / 1e9);
	printf("samples:     %" PRIu64 " (%" PRIu64 " attributed), %zu threads with samples\n",
	       st->samples, st->samples_delivered, in->tid_cnt);
	printf("records:     %" PRIu64 " in %" PRIu64 " frames\n", st->records, frames_of(p));
	printf("lost:        %" PRIu64 " records (%" PRIu64 " samples), %" PRIu64
	       " samples dropped by the PMU\n",
	       st->lost_records, st->lost_samples, st->lost_samples_pmu);
	printf("throttled:   %" PRIu64 " times (%" PRIu64 " unthrottles)\n", st->throttles,
	       st->unthrottles);
	printf("re-based:   ");
	for (i = 0; i < TDR_REBASE_REASON_CNT; i++)
		printf(" %s %" PRIu64 "%s", tdr_rebase_reason_name((enum tdr_rebase_reason)i),
		       st->rebases[i], i + 1 < TDR_REBASE_REASON_CNT ? "," : "\n");
	if (st->multiplexed_samples)
		printf("warning:     %" PRIu64 " samples from a multiplexed group: numbers are "
		       "suspect\n", st->multiplexed_samples);
	if (st->malformed_records || st->unknown_records || st->unknown_ids)
		printf("skipped:     %" PRIu64 " malformed records, %" PRIu64
		       " of unknown type, %" PRIu64 " with unknown ids\n",
		       st->malformed_records, st->unknown_records, st->unknown_ids);
	if (st->dso_entries || st->dso_damaged)
		printf("build-ids:   %" PRIu64 " of %" PRIu64 " mapped files (DSO table)%s\n",
		       st->dso_build_ids, st->dso_entries, st->dso_damaged ? ", damaged" : "");
	if (end)
		print_run_end(end);
	if (!fs)
		return;
	if (!fs->truncated && !fs->bad_frames && !st->bad_frames) {
		/* Whole as a file, but not as a recording: say so here too. */
		printf("file status: complete (%" PRIu64 " bytes)%s\n", fs->file_sz,
		       end && (end->flags & TDR_END_WRITE_ERROR)
			   ? ", but the recording stopped early at a write error"
			   : "");
		return;
	}
	printf("file status: %s%s; %" PRIu64 " of %" PRIu64 " bytes intact (%" PRIu64
	       " bytes missing or unreadable)",
	       fs->truncated ? "TRUNCATED" : "damaged",
	       fs->has_trailer ? "" : ", no trailer (recording did not finish)", fs->intact_sz,
	       fs->file_sz, fs->file_sz - fs->intact_sz);
	if (fs->bad_frames || st->bad_frames)
		printf(", %" PRIu64 " bad frames",
		       st->bad_frames > fs->bad_frames ? st->bad_frames : fs->bad_frames);
	printf("\n");
}

/* Why a file could not be opened. Frames are only checked later, so a
 * damaged or cut file that fails here fails in its header or metadata
 * (docs/format.md section 12 point 1; perf.data: its header and attrs),
 * and nothing of it can be read. */
static const char *open_error_text(int err)
{
	switch (-err) {
	case TDR_E_FORMAT:
		return "not a .tdr or perf.data file";
	case TDR_E_CORRUPT:
		return "corrupt data in the file header or metadata: nothing can be read";
	case TDR_E_TRUNCATED:
		return "file is truncated before its metadata ends: nothing can be read";
	case TDR_E_LIMIT:
		return "metadata above the documented size limits (docs/format.md section 10)";
	default:
		return tdr_strerror(err);
	}
}

int cmd_info(int argc, char **argv)
{
	const char *path = NULL;
	struct tdr_parser *p = NULL;
	struct info in = { 0 };
	bool json = false, verbose = false;
	int i, err, ret = 1;

	for (i = 1; i < argc; i++) {
		if (cli_is_help(argv[i])) {
			fputs(usage_text, stdout);
			return 0;
		} else if (!strcmp(argv[i], "--json")) {
			json = true;
			cli_err_set_json(true);
		} else if (!strcmp(argv[i], "-v") || !strcmp(argv[i], "--verbose")) {
			verbose = true;
		} else if (!strcmp(argv[i], "--")) {
			if (i + 2 == argc && !path) {
				path = argv[i + 1];
				break;
			}
			cli_err("one FILE after '--' (see 'tdrec info --help')");
			return CLI_EXIT_USAGE;
		} else if (argv[i][0] == '-' && argv[i][1]) {
			cli_err("unknown option '%s' (see 'tdrec info --help')", argv[i]);
			return CLI_EXIT_USAGE;
		} else if (path) {
			cli_err("one FILE only (see 'tdrec info --help')");
			return CLI_EXIT_USAGE;
		} else {
			path = argv[i];
		}
	}
	if (!path) {
		cli_err("missing FILE (see 'tdrec info --help')");
		return CLI_EXIT_USAGE;
	}
	if (json && verbose) {
		/* The JSON object always has the attrs and ids -v adds to the text. */
		cli_err("give --json or -v, not both (the JSON has the attrs and ids)");
		return CLI_EXIT_USAGE;
	}
	cli_log_hold();
	err = tdr_parser__open(path, &p);
	cli_log_release(!err);
	if (err) {
		cli_err("%s: %s", path, open_error_text(err));
		return 1;
	}
	in.meta = tdr_parser__meta(p);
	in.ev_samples = calloc(in.meta->event_cnt + 1, sizeof(*in.ev_samples));
	in.ev_delta = calloc(in.meta->event_cnt + 1, sizeof(*in.ev_delta));
	if (!in.ev_samples || !in.ev_delta) {
		cli_err("%s: %s", path, tdr_strerror(-ENOMEM));
		goto out;
	}
	err = tdr_parser__run(p, on_sample, &in);
	if (err) {
		cli_err("%s: failed to read the records: %s", path, tdr_strerror(err));
		goto out;
	}
	if (json)
		print_json(path, p, &in);
	else
		print_text(path, p, &in, verbose);
	ret = 0;
out:
	free(in.ev_samples);
	free(in.ev_delta);
	free(in.tids);
	tdr_parser__free(p);
	return ret;
}
