/*
 * cli/cmd_info.c - 'tdrec info [--json] FILE': what a recording holds.
 *
 * Responsibility: the command line, opening the file through the parser
 * and saying why it cannot be read; what the file holds is written by
 * tdr_report_info (report/render_info.c), as text or as one JSON object.
 * Errors: one line naming the file and the reason, exit 1; usage errors exit 2.
 * See: report/include/tdrec/report.h; docs/format.md section 13.
 */
#include "commands.h"

#include <stdio.h>
#include <string.h>

#include "tdrec/parser.h"
#include "tdrec/report.h"
#include "tdrec/tdr_err.h"

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
	"says TRUNCATED), 1 the file cannot be read or is damaged (a perf.data whose\n"
	"records go out of step: its file status says damaged), 2 usage error\n";

/* Why a file could not be opened (not a recording: tdr_strerror's words,
 * as report and diff say it). Frames are only checked later, so a
 * damaged or cut file that fails here fails in its header or metadata
 * (docs/format.md section 12 point 1; perf.data: its header and attrs),
 * and nothing of it can be read. */
static const char *open_error_text(int err)
{
	switch (-err) {
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
	bool json = false, verbose = false;
	int i, err;

	for (i = 1; i < argc; i++) {
		if (cli_is_help(argv[i])) {
			fputs(usage_text, stdout);
			return 0;
		} else if (!strcmp(argv[i], "--json")) {
			json = true;
			cli_err_set_json(true);
		} else if (!strcmp(argv[i], "-v") || !strcmp(argv[i], "--verbose")) {
			verbose = true;
		} else if ((err = cli_file_operand(argc, argv, &i, &path))) {
			return err;
		}
	}
	if ((err = cli_file_given(path)))
		return err;
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
	err = tdr_report_info(p,
			      &(struct tdr_info_opts){.path = path,
						      .fmt = json ? TDR_FMT_JSON : TDR_FMT_TEXT,
						      .verbose = verbose},
			      stdout);
	if (err)
		cli_err("%s: failed to read the records: %s", path, tdr_strerror(err));
	else if (tdr_parser__file_status(p) && tdr_parser__file_status(p)->damaged) {
		cli_err("%s: the file is damaged (its records go out of step)", path);
		err = -TDR_E_CORRUPT;
	}
	tdr_parser__free(p);
	return err ? 1 : 0;
}
