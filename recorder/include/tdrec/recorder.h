/*
 * recorder/include/tdrec/recorder.h - 'tdrec record': from a chosen event
 * plan to a finished .tdr file.
 *
 * Responsibility: on top of the runtime (tdrec/runtime.h: program or
 * targets, signals, groups on every CPU, rings), the recording itself: the
 * drain loop and the writer thread, synthesized MMAP2/COMM records for
 * -p/-a, the DSO table with build-ids, host metadata and the run's totals.
 * It never writes to stdout and never exits: cli/ prints the summary line
 * and turns tdr_record_summary into an exit status.
 *
 * Objects and lifecycle: tdr_recorder__new -> __run (once) -> __summary -> __free
 *
 * Usage (what cli/cmd_record.c does):
 *   struct tdr_record_opts o = { .what.argv = prog_argv, .sample_freq = 4000, ... };
 *   err = tdr_recorder__new(&o, &rec);       // plan, fork, groups, file
 *   if (!err) err = tdr_recorder__run(rec);  // until the program ends
 *   sum = tdr_recorder__summary(rec);        // exit status, counts, why
 *
 * Ownership and threads: single owner, used from one thread;
 * tdr_recorder__run starts and joins one writer thread of its own.
 * See: docs/record.md.
 */
#ifndef TDREC_RECORDER_H
#define TDREC_RECORDER_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/signalfd.h>
#include <sys/types.h>

#include "tdrec/tdr_api.h"
#include "tdrec/format.h"
#include "tdrec/plan.h"
#include "tdrec/runtime.h"

/* ---------------------------------------------------------------------------
 * The recorder.
 */
struct tdr_recorder;

#define TDR_RECORD_DEFAULT_FREQ 4000
#define TDR_RECORD_DEFAULT_OUTPUT "tdrec.tdr"
#define TDR_RECORD_FLUSH_MS 500 /* a frame is written at least this often */
#define TDR_DRAIN_NICE -10	 /* the draining thread's nice, where allowed */

struct tdr_record_opts {
	struct tdr_target_opts what;	      /* what to record, which plan */
	const char *output;		      /* NULL: TDR_RECORD_DEFAULT_OUTPUT */
	const struct tdr_event_spec *sampler; /* NULL: the plan's default */
	/* More -e events (tdr_plan_opts.extra): read in the software plan's group. */
	const struct tdr_event_spec *extra;
	size_t extra_cnt;
	uint64_t sample_period;		      /* at most one of period and freq; */
	uint64_t sample_freq;		      /* both 0: TDR_RECORD_DEFAULT_FREQ */
	size_t mmap_pages;		      /* 0: TDR_RECORD_DEFAULT_PAGES */
	bool no_inherit;
	/* Call stacks (-g, --call-graph); stack_size: dwarf's copy, 0 for the
	 * default. With dwarf and no mmap_pages, the rings are larger. */
	enum tdr_call_graph call_graph;
	uint32_t stack_size;
	int zstd_level; /* 0: the writer's default */
	/* A regions file the program writes through libtdrec (docs/regions.md),
	 * embedded as the REGIONS section when it holds regions at the end;
	 * NULL: none (borrowed). */
	const char *regions_path;
	/* tdrec's own command line, for the metadata (borrowed). */
	size_t tdrec_argc;
	char *const *tdrec_argv;
	/*
	 * The archiving step (docs/record.md "Archiving"), NULL for none:
	 * called once at the end, after the last frame and the DSO table and
	 * before the trailer, with the path of the file being written (every
	 * block in it complete, readable as a file without trailer). It
	 * returns the ARCHIVE section data (docs/format.md 7.2) in a buffer
	 * the recorder frees, or an error (the file is then finished without
	 * one). The recorder itself does not symbolize: cli/ passes
	 * tdr_report__archive.
	 */
	int (*archive)(void *ctx, const char *path, void **data, size_t *sz);
	void *archive_ctx;
};

/* How the run ended and what was written (tdr_recorder__summary). */
struct tdr_record_summary {
	const char *path; /* the output file */
	bool launched;	  /* a program was started */
	int exec_err;	  /* -errno when the program could not be started */
	bool exited;	  /* the program ended: exit_code or term_signal */
	int exit_code;	  /* -1 when it died of a signal */
	int term_signal;
	int stop_signal;   /* the signal that stopped the recording (-p, -a), 0 if none */
	int write_err;	   /* -errno / -TDR_E_* when writing the file failed, else 0 */
	bool file_written; /* the file was finished (trailer written) */
	uint64_t samples;  /* SAMPLE records written */
	uint64_t lost;	   /* samples lost (ring full), best of both counts */
	uint64_t throttles;
	uint64_t file_sz;
	uint64_t duration_ns;
};

/*
 * Prepare a recording: choose and build the plan (falling back visibly),
 * start the program (held before exec) or list the -p threads, open the
 * session, create the file, write the metadata and the synthesized records.
 * opts is borrowed for the recorder's life. Errors are logged once, with
 * what to do. Nothing is written to an existing output file on failure.
 * Returns: 0, -TDR_E_USAGE (bad options), -TDR_E_NOPLAN, -EACCES/-EPERM,
 * -EMFILE, -ENOENT (a -p process that does not exist), -errno.
 */
TDR_API int tdr_recorder__new(const struct tdr_record_opts *opts, struct tdr_recorder **out);

/*
 * --dry-run: the plan a recording with opts would try first, every attr
 * exactly as tdr_session__open would open it (tdr_session__prepare_plan,
 * with opts' ring size). Opens nothing and starts nothing; PERF_FORMAT_LOST
 * is assumed to be accepted (a real run probes it and drops it if not).
 * Problems are logged once, as tdr_recorder__new logs them.
 * Returns: 0 with *out set (the caller frees it with tdr_plan__free),
 * -TDR_E_USAGE, -TDR_E_NOPLAN, -TDR_E_CORRUPT, -ENOENT, -ENOMEM.
 */
TDR_API int tdr_recorder__plan(const struct tdr_record_opts *opts, struct tdr_plan **out);

/*
 * Run the program (or keep attached) and drain the rings until it ends or
 * until SIGINT/SIGTERM/SIGHUP (forwarded to a launched program; stop -p/-a
 * without a program), then finish the file. Call once.
 * Returns: 0 when the recording is complete (whatever the program's exit
 * status: see the summary), the exec error (-ENOENT...) when the program
 * could not start (the output file is then not created), or the write error.
 */
TDR_API int tdr_recorder__run(struct tdr_recorder *rec);

/* The summary; valid until __free. */
TDR_API const struct tdr_record_summary *tdr_recorder__summary(const struct tdr_recorder *rec);

/* Free everything (a program never started is killed). NULL is fine. */
TDR_API void tdr_recorder__free(struct tdr_recorder *rec);

#endif /* TDREC_RECORDER_H */
