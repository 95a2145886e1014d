/*
 * cli/cmd_export.c - 'tdrec export FILE -o OUT [--format F]': profiles for other tools.
 *
 * Responsibility: the command line of export: the recording, the output
 * file and its format (from --format, else from OUT's name), the value of
 * folded stacks, and --push URL (the pprof to a Pyroscope ingest
 * endpoint). The profile and every format are export/'s.
 * Errors: one line naming the file or option and the reason; exit 1 for a
 * file that cannot be read or written or a push that fails, 2 for usage.
 * See: export/include/tdrec/export.h; docs/export.md.
 */
#include "commands.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tdrec/export.h"
#include "tdrec/tdr_err.h"

static const char usage_text[] =
	"usage: tdrec export [-i FILE | FILE] -o OUT [--format F] [--value V]\n"
	"       tdrec export [-i FILE | FILE] --push URL [--name NAME] [-o OUT ...]\n"
	"\n"
	"Write a recording's stacks (one frame with its inline frames when it has no\n"
	"call stacks) with the samples, every event and the slots of every TopDown\n"
	"category as a profile for other tools (docs/export.md).\n"
	"\n"
	"options:\n"
	"  -i, --input FILE  the recording (.tdr or perf.data; default tdrec.tdr);\n"
	"                    FILE alone says the same\n"
	"  -o, --output OUT  the file to write ('-': standard output, with --format)\n"
	"  --format F        pprof (gzip'd profile.proto: go tool pprof, Pyroscope,\n"
	"                    Parca), folded (flamegraph.pl, inferno), speedscope\n"
	"                    (JSON), html (one self-contained page: flame graph,\n"
	"                    timeline, table); default: from OUT's name (.pb.gz,\n"
	"                    .pprof, .folded, .json, .html)\n"
	"  --value V         folded: the value of each line: samples (default), an\n"
	"                    event name, slots, or a TopDown category (be-bound, ...)\n"
	"  --push URL        send the pprof to a Pyroscope-compatible server:\n"
	"                    POST URL/ingest?format=pprof&name=NAME&from=..&until=..\n"
	"  --name NAME       the application name of --push (default tdrec)\n"
	"  -h, --help        this text\n"
	"\n"
	"exit status: 0 ok, 1 the recording cannot be read, OUT cannot be written or\n"
	"the push failed, 2 usage error\n";

struct export_args {
	const char *in, *out, *format, *value, *push, *name;
};

static int parse_args(int argc, char **argv, struct export_args *a)
{
	enum { OPT_FORMAT = 300, OPT_VALUE, OPT_PUSH, OPT_NAME };
	static const struct option longopts[] = {
	    {"input", required_argument, NULL, 'i'},  {"output", required_argument, NULL, 'o'},
	    {"format", required_argument, NULL, OPT_FORMAT},
	    {"value", required_argument, NULL, OPT_VALUE},
	    {"push", required_argument, NULL, OPT_PUSH},
	    {"name", required_argument, NULL, OPT_NAME},
	    {"help", no_argument, NULL, 'h'},	      {NULL, 0, NULL, 0},
	};
	int c;

	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, ":i:o:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'i': a->in = optarg; break;
		case 'o': a->out = optarg; break;
		case OPT_FORMAT: a->format = optarg; break;
		case OPT_VALUE: a->value = optarg; break;
		case OPT_PUSH: a->push = optarg; break;
		case OPT_NAME: a->name = optarg; break;
		case 'h':
			fputs(usage_text, stdout);
			return 1;
		case ':':
			cli_err("%s needs a value (see 'tdrec export --help')", argv[optind - 1]);
			return -1;
		default:
			cli_err("unknown option '%s' (see 'tdrec export --help')", argv[optind - 1]);
			return -1;
		}
	}
	/* tdrec export FILE, as report, info and archive take it. */
	if (optind < argc && !a->in)
		a->in = argv[optind++];
	if (!a->in)
		a->in = "tdrec.tdr";
	if (optind < argc) {
		cli_err("unexpected argument '%s' (one FILE, with -i or alone)", argv[optind]);
		return -1;
	}
	if (!a->out && !a->push) {
		cli_err("missing -o OUT or --push URL (see 'tdrec export --help')");
		return -1;
	}
	return 0;
}

static int pick_format(const struct export_args *a, enum tdr_export_format *f)
{
	if (a->format) {
		if (!tdr_export_format_parse(a->format, f))
			return 0;
		cli_err("--format: '%s' is not pprof, folded, speedscope or html", a->format);
		return -1;
	}
	if (!strcmp(a->out, "-")) {
		cli_err("-o -: give --format (pprof, folded, speedscope or html)");
		return -1;
	}
	if (!tdr_export_format_from_path(a->out, f))
		return 0;
	cli_err("%s: cannot tell the format from the name (.pb.gz, .folded, .json, .html): "
		"give --format",
		a->out);
	return -1;
}

static int write_format(const struct tdr_profile *p, enum tdr_export_format f, size_t value,
			FILE *out)
{
	uint8_t *buf = NULL;
	size_t sz = 0;
	int err;

	switch (f) {
	case TDR_EXPORT_PPROF:
		err = tdr_export_pprof(p, &buf, &sz);
		if (!err && fwrite(buf, 1, sz, out) != sz)
			err = -EIO;
		free(buf);
		return err;
	case TDR_EXPORT_FOLDED:
		return tdr_export_folded(p, value, out);
	case TDR_EXPORT_SPEEDSCOPE:
		return tdr_export_speedscope(p, out);
	case TDR_EXPORT_HTML:
		return tdr_export_html(p, out);
	case TDR_EXPORT_FORMAT_CNT:
		break;
	}
	return -EINVAL;
}

static int write_file(const struct export_args *a, const struct tdr_profile *p,
		      enum tdr_export_format f, size_t value)
{
	bool std = !strcmp(a->out, "-");
	FILE *out = std ? stdout : fopen(a->out, "wb");
	int err;

	if (!out) {
		cli_err("%s: cannot create: %s", a->out, strerror(errno));
		return 1;
	}
	err = write_format(p, f, value, out);
	if (!std && fclose(out) && !err)
		err = -errno;
	if (err) {
		cli_err("%s: failed to write: %s", a->out, tdr_strerror(err));
		if (!std)
			remove(a->out);
		return 1;
	}
	return 0;
}

static int push(const struct export_args *a, const struct tdr_profile *p)
{
	uint64_t from, until;
	uint8_t *buf = NULL;
	size_t sz = 0;
	char why[256] = "";
	int err;

	if (!tdr_export_push_available()) {
		cli_err("--push: not built in (tdrec was built without libcurl: install "
			"libcurl4-openssl-dev and rebuild)");
		return 1;
	}
	if (!tdr_profile__span(p, &from, &until)) {
		/* No wall clock in the recording (a perf.data file without
		 * perf's clock data): the ingest API needs one, so the samples'
		 * span is placed to end now (docs/export.md "Push"). */
		uint64_t now = (uint64_t)time(NULL) * 1000000000u;

		from = now - (until - from);
		until = now;
	}
	err = tdr_export_pprof(p, &buf, &sz);
	if (!err)
		err = tdr_export_push(a->push, a->name ? a->name : "tdrec", from / 1000000000u,
				      (until + 999999999u) / 1000000000u, buf, sz, why, sizeof(why));
	free(buf);
	if (err) {
		cli_err("--push %s: %s", a->push, why[0] ? why : tdr_strerror(err));
		return 1;
	}
	return 0;
}

int cmd_export(int argc, char **argv)
{
	struct export_args a = {0};
	struct tdr_report_load_opts lo;
	char boot_id[64], cache[PATH_MAX];
	enum tdr_export_format f = TDR_EXPORT_PPROF;
	struct tdr_profile *p = NULL;
	size_t value = 0;
	int err, rc;

	rc = parse_args(argc, argv, &a);
	if (rc)
		return rc > 0 ? 0 : CLI_EXIT_USAGE;
	if (a.out && pick_format(&a, &f))
		return CLI_EXIT_USAGE;
	if (a.value && (!a.out || f != TDR_EXPORT_FOLDED)) {
		cli_err("--value applies to folded output only (pprof, speedscope and html carry "
			"every value)");
		return CLI_EXIT_USAGE;
	}
	cli_load_opts(&lo, boot_id, sizeof(boot_id), cache, sizeof(cache));
	cli_log_hold();
	err = tdr_profile__load(a.in, &lo, a.out && f == TDR_EXPORT_HTML, &p);
	cli_log_release(!err);
	if (err) {
		cli_err("%s: %s", a.in, tdr_strerror(err));
		return 1;
	}
	if (a.value) {
		int v = tdr_profile__value_find(p, a.value);

		if (v < 0) {
			cli_err("--value: '%s' is not samples, slots, an event or a TopDown "
				"category of %s",
				a.value, a.in);
			tdr_profile__free(p);
			return CLI_EXIT_USAGE;
		}
		value = (size_t)v;
	}
	rc = a.out ? write_file(&a, p, f, value) : 0;
	if (!rc && a.push)
		rc = push(&a, p);
	tdr_profile__free(p);
	return rc;
}
