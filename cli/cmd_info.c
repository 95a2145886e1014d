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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tdrec/parser.h"
#include "tdrec/tdr_err.h"
#include "tdrec/tdr_log.h"

static const char usage_text[] =
	"usage: tdrec info [--json] FILE\n"
	"\n"
	"Show what a recording holds: host, CPU, kernel, command line, event plan and\n"
	"events, sample and record counts, lost records and samples, throttles,\n"
	"re-based streams, distinct threads with samples, duration, and whether the\n"
	"file is complete. FILE is a .tdr file or a perf.data file (also -z).\n"
	"The samples are read once to count threads and per-event totals.\n"
	"\n"
	"options:\n"
	"  --json      print one JSON object instead of text\n"
	"  -h, --help  this text\n"
	"\n"
	"exit status: 0 ok, 1 the file cannot be read, 2 usage error\n";

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
static void jstr(const char *s)
{
	if (!s) {
		fputs("null", stdout);
		return;
	}
	putchar('"');
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			printf("\\%c", c);
		else if (c < 0x20)
			printf("\\u%04x", c);
		else
			putchar(c);
	}
	putchar('"');
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
	return in->have_time ? in->last_ns - in->first_ns : 0;
}

static void print_json(const char *path, const struct tdr_parser *p, const struct info *in)
{
	const struct tdr_meta *m = tdr_parser__meta(p);
	const struct tdr_parse_stats *st = tdr_parser__stats(p);
	const struct tdr_file_status *fs = tdr_parser__file_status(p);
	const struct tdr_totals *tot = tdr_parser__totals(p);
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
	printf("%" PRIu64, tot ? tot->frames : 0);
	jkey("threads", &first);
	printf("%zu", in->tid_cnt);
	jkey("truncated", &first);
	fputs(fs && fs->truncated ? "true" : "false", stdout);
	jkey("duration_ns", &first);
	printf("%" PRIu64, duration_of(p, in));
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
		printf(", \"leader\": %s, \"sampler\": %s, \"samples\": %" PRIu64
		       ", \"delta_total\": %" PRIu64 "}",
		       e->flags & TDR_EVENT_LEADER ? "true" : "false",
		       e->flags & TDR_EVENT_SAMPLER ? "true" : "false", in->ev_samples[i],
		       in->ev_delta[i]);
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
	printf("{\"streams\": %" PRIu64 ", \"first_samples\": %" PRIu64
	       ", \"throttles\": %" PRIu64 ", \"unthrottles\": %" PRIu64
	       ", \"multiplexed_samples\": %" PRIu64 ", \"unmapped_samples\": %" PRIu64
	       ", \"unknown_records\": %" PRIu64 ", \"malformed_records\": %" PRIu64
	       ", \"unknown_ids\": %" PRIu64 ", \"bad_frames\": %" PRIu64 "}",
	       st->streams, st->first_samples, st->throttles, st->unthrottles,
	       st->multiplexed_samples, st->unmapped_samples, st->unknown_records,
	       st->malformed_records, st->unknown_ids, st->bad_frames);
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

static void print_text(const char *path, const struct tdr_parser *p, const struct info *in)
{
	const struct tdr_meta *m = tdr_parser__meta(p);
	const struct tdr_parse_stats *st = tdr_parser__stats(p);
	const struct tdr_file_status *fs = tdr_parser__file_status(p);
	const struct tdr_totals *tot = tdr_parser__totals(p);
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
	printf("plan:        %s\n", or_unknown(m->plan_name));
	for (i = 0; i < m->note_cnt; i++)
		printf("note:        %s\n", m->notes[i]);
	printf("events:\n");
	for (i = 0; i < m->event_cnt; i++) {
		const struct tdr_event_desc *e = &m->events[i];

		printf("  %-24s %-10s %-8s samples %-10" PRIu64 " total %" PRIu64 "\n", e->name,
		       or_unknown(e->pmu_name),
		       e->flags & TDR_EVENT_SAMPLER  ? "sampler"
		       : e->flags & TDR_EVENT_LEADER ? "leader"
						     : "",
		       in->ev_samples[i], in->ev_delta[i]);
	}
	printf("duration:    %.3f s\n", (double)dur / 1e9);
	printf("samples:     %" PRIu64 " (%" PRIu64 " attributed), %zu threads with samples\n",
	       st->samples, st->samples_delivered, in->tid_cnt);
	printf("records:     %" PRIu64 " in %" PRIu64 " frames\n", st->records,
	       tot ? tot->frames : 0);
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
	if (end && (end->flags & TDR_END_NO_PROGRAM))
		printf("program:     none (attached with -p, or -a without a program)\n");
	else if (end)
		printf("program:     %s %d\n",
		       end->flags & TDR_END_SIGNALLED ? "killed by signal" : "exit code",
		       end->flags & TDR_END_SIGNALLED ? end->term_signal : end->exit_code);
	if (!fs)
		return;
	if (!fs->truncated && !fs->bad_frames && !st->bad_frames) {
		printf("file status: complete (%" PRIu64 " bytes)\n", fs->file_sz);
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

int cmd_info(int argc, char **argv)
{
	const char *path = NULL;
	struct tdr_parser *p = NULL;
	struct info in = { 0 };
	bool json = false;
	int i, err, ret = 1;

	for (i = 1; i < argc; i++) {
		if (cli_is_help(argv[i])) {
			fputs(usage_text, stdout);
			return 0;
		} else if (!strcmp(argv[i], "--json")) {
			json = true;
			cli_err_set_json(true);
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
	cli_log_hold();
	err = tdr_parser__open(path, &p);
	cli_log_release(!err);
	if (err) {
		cli_err("%s: %s", path, err == -TDR_E_FORMAT ? "not a .tdr or perf.data file"
							       : tdr_strerror(err));
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
		print_text(path, p, &in);
	ret = 0;
out:
	free(in.ev_samples);
	free(in.ev_delta);
	free(in.tids);
	tdr_parser__free(p);
	return ret;
}
