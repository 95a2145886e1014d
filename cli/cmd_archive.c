/*
 * cli/cmd_archive.c - 'tdrec archive FILE [-o OUT]': store the symbols of
 * a recording's samples in the recording.
 *
 * Responsibility: the command line and its messages. The work is
 * tdr_report__archive_file (report/archive_file.c): the samples' addresses
 * symbolized, with lines and inlines, into the file's ARCHIVE section
 * (docs/format.md 7.2), so that report, diff and info answer the same
 * after the binaries are rebuilt, moved or deleted; a perf.data becomes
 * an archived .tdr.
 * Errors: one line naming the file and the reason, exit 1; usage errors
 * exit 2.
 * See: docs/symbolize.md "Archived symbols".
 */
#include "commands.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "tdrec/report.h"
#include "tdrec/tdr_err.h"

static const char usage_text[] =
	"usage: tdrec archive [-o OUT] [-j N] FILE\n"
	"\n"
	"Store in a recording the symbols of every address its samples reference:\n"
	"function, inline chain, source file and line (docs/symbolize.md \"Archived\n"
	"symbols\"), and the unwound call stacks of a --call-graph dwarf\n"
	"recording. report, diff and info then answer from the file itself, the\n"
	"same after the binaries are rebuilt, moved or deleted. 'tdrec record'\n"
	"does this by default at the end of a recording; use this command for a\n"
	"file recorded with --no-archive or by an older tdrec, while the binaries\n"
	"it ran are still there. A file archived already keeps what its archive\n"
	"holds and gains what the files on disk give now.\n"
	"\n"
	"FILE is a complete .tdr file, rewritten in place (through FILE.partial,\n"
	"renamed over it only when complete), or a perf.data file, converted\n"
	"into an archived .tdr written to FILE.tdr (its build-ids found as for\n"
	"a report: perf's ~/.debug cache, /usr/lib/debug/.build-id). A report of\n"
	"that .tdr equals the perf.data's report, and stays so after the\n"
	"binaries change.\n"
	"\n"
	"options:\n"
	"  -o, --output OUT  write the archived recording to OUT instead\n"
	"  -j, --jobs N      symbolize in up to N processes, 1 to 8 (default: one\n"
	"                    per CPU tdrec may run on, up to 8), from 128 addresses\n"
	"                    each; the archive is the same for any N\n"
	"  -h, --help        this text\n"
	"\n"
	"exit status: 0 ok, 1 the file cannot be read or written, 2 usage error\n";

static const char *error_text(int err)
{
	switch (-err) {
	case TDR_E_FORMAT:
		return "not a .tdr or perf.data file";
	case TDR_E_TRUNCATED:
		return "the recording is truncated or has damaged frames: only a complete "
		       "recording is archived";
	case EEXIST:
		return "a .partial file of the output exists (another tdrec writing it, or "
		       "one that was killed): remove it first";
	default:
		return tdr_strerror(err);
	}
}

int cmd_archive(int argc, char **argv)
{
	const char *path = NULL, *out = NULL;
	struct tdr_report_load_opts lo;
	struct tdr_archive_summary sum;
	char boot_id[64], cache[PATH_MAX];
	uint64_t jobs = 0;
	int err;

	for (int i = 1; i < argc; i++) {
		if (cli_is_help(argv[i])) {
			fputs(usage_text, stdout);
			return 0;
		} else if (!strcmp(argv[i], "-o") || !strcmp(argv[i], "--output")) {
			if (i + 1 == argc || !argv[i + 1][0]) {
				cli_err("%s needs a file name (see 'tdrec archive --help')", argv[i]);
				return CLI_EXIT_USAGE;
			}
			out = argv[++i];
		} else if (!strcmp(argv[i], "-j") || !strcmp(argv[i], "--jobs")) {
			if (i + 1 == argc) {
				cli_err("%s needs a number (see 'tdrec archive --help')", argv[i]);
				return CLI_EXIT_USAGE;
			}
			if (cli_parse_count(argv[i], argv[i + 1], 1, 8, &jobs))
				return CLI_EXIT_USAGE;
			i++;
		} else if ((err = cli_file_operand(argc, argv, &i, &path))) {
			return err;
		}
	}
	if ((err = cli_file_given(path)))
		return err;
	cli_load_opts(&lo, boot_id, sizeof(boot_id), cache, sizeof(cache));
	lo.jobs = (unsigned)jobs;
	cli_log_hold();
	err = tdr_report__archive_file(path, out, &lo, &sum);
	cli_log_release(!err);
	if (err) {
		cli_err("%s: %s", path, error_text(err));
		return 1;
	}
	fprintf(stderr,
		"tdrec archive: %s: symbols of %" PRIu64 " of %" PRIu64
		" addresses archived (%" PRIu64 " objects, %zu bytes",
		sum.out, sum.archived, sum.addrs, sum.objects, sum.bytes);
	if (sum.workers > 1)
		fprintf(stderr, "; looked up by %" PRIu64 " processes", sum.workers);
	fputs(")\n", stderr);
	if (sum.missing || sum.changed || sum.no_kernel)
		fprintf(stderr,
			"tdrec archive: not archived: %" PRIu64 " addresses in missing objects, "
			"%" PRIu64 " in objects changed since the recording, %" PRIu64
			" kernel addresses without usable kernel symbols; a report looks "
			"those up in the files it finds\n",
			sum.missing, sum.changed, sum.no_kernel);
	return 0;
}
