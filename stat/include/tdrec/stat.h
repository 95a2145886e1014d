/*
 * stat/include/tdrec/stat.h - 'tdrec stat': count a plan's groups (no
 * sampling) for a program, running processes or the whole system, and show
 * slots and the TopDown breakdown for the whole run, per interval and per
 * thread.
 *
 * Responsibility: choose a counting plan (tdr_plan__choose with counting =
 * true), open it per CPU for every target with the same fallback ladder as
 * 'record' (a plan the kernel refuses falls back visibly), read every group
 * at least every TDR_STAT_READ_MS (the kernel resets the metric registers on
 * each read, so short read intervals keep TopDown precise; event->count is
 * monotonic, so differences of successive reads are valid), sum the deltas,
 * and write text, JSON or CSV. Categories come only from the plan's formulas
 * (format.h struct tdr_category, through tdr_category__value); counts are
 * never scaled for multiplexing, which is shown instead.
 * Per thread (--per-thread), for a launched program or -p: a side-band ring
 * per CPU (a dummy event with task/comm records, inherited) announces every
 * new thread, which then gets its own non-inherited groups; the inherited
 * groups still give the exact total, and what the threads' own groups missed
 * (the moments between a thread's creation and its groups being opened) is
 * a row of its own ("not attributed"). See docs/stat.md for why the kernel's
 * inherit_stat READ records are not used.
 * It never writes to stdout and never exits: the caller gives the stream
 * and turns the summary into an exit status.
 *
 * Objects and lifecycle:
 *   tdr_stat__new (plan, program held before exec or targets, groups)
 *   -> tdr_stat__run (once: interval rows are written as they happen)
 *   -> tdr_stat__render (the whole-run output) -> __summary -> __free
 *
 * Ownership and threads: one owner thread; opts is borrowed for the
 * object's life (opts->out too).
 * See: docs/stat.md; docs/kernel.md "TopDown metric values", "TopDown group rules";
 * tdrec/recorder.h (the session and launch layers used here).
 */
#ifndef TDREC_STAT_H
#define TDREC_STAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "tdrec/plan.h"
#include "tdrec/runtime.h"

struct tdr_stat;

enum tdr_stat_format {
	TDR_STAT_TEXT = 0,
	TDR_STAT_JSON, /* one document, written by tdr_stat__render */
	TDR_STAT_CSV,  /* a header line, interval rows as they happen, then the rest */
};

#define TDR_STAT_READ_MS 1000	    /* every group is read at least this often */
#define TDR_STAT_MIN_INTERVAL_MS 10 /* the smallest -I */
#define TDR_STAT_MAX_INTERVAL_MS 3600000

struct tdr_stat_opts {
	struct tdr_target_opts what; /* what to count, which plan */
	bool per_thread;	     /* a row per thread (not with -a) */
	uint64_t interval_ms;	     /* -I: a row per interval; 0 = whole run only */
	FILE *out;		     /* where rows go (borrowed), e.g. stdout */
	enum tdr_stat_format fmt;
};

/* How the run ended. */
struct tdr_stat_summary {
	bool launched;	 /* a program was started */
	int exec_err;	 /* -errno when the program could not be started */
	bool exited;	 /* the program ended: exit_code or term_signal */
	int exit_code;	 /* -1 when it died of a signal */
	int term_signal; /* the signal that killed the program, 0 if none */
	int stop_signal; /* the signal that stopped counting (-p, -a), 0 if none */
	uint64_t duration_ns;
	uint64_t intervals; /* interval rows written */
	size_t threads;	    /* thread rows (--per-thread) */
	int write_err;	    /* -errno of the first failed write to out (not logged), else 0 */
};

/*
 * Prepare: check opts, choose and build the counting plan, start the program
 * (held before exec) or list the -p threads, open every group with the
 * fallbacks (logging each step once). Nothing is written to opts->out.
 * Returns: 0, -TDR_E_USAGE (bad options: logged), -TDR_E_NOPLAN,
 * -EACCES/-EPERM (explained), -EMFILE, -ENOENT/-ESRCH (a -p process that does
 * not exist), -ENOMEM, -errno. *out is set only on success (caller owns).
 */
int tdr_stat__new(const struct tdr_stat_opts *opts, struct tdr_stat **out);

/*
 * Release the launched program (its exec starts the counters); nothing to do
 * for -p/-a, whose groups count once open. Optional: __run does it when it
 * was not done. Nothing is written to opts->out, so a caller can wait for a
 * run that really starts before it empties an output file. Call at most once.
 * Returns: 0, the exec error (-ENOENT, -EACCES, -EISDIR: logged), -EINVAL
 * when called twice or after __run.
 */
int tdr_stat__start(struct tdr_stat *st);

/*
 * Release the program (or keep counting -p/-a) and read the groups until the
 * program ends, every -p process has ended, or a signal stops it: SIGINT,
 * SIGTERM and SIGHUP are forwarded to a launched program (a terminal's own
 * signal is not sent twice; the third one kills it), and stop -p/-a without
 * a program. Interval rows go to opts->out as they happen. Call once.
 * Returns: 0 when counting completed (whatever the program's status: see the
 * summary), the exec error (-ENOENT: nothing was written), -ENOMEM, -EINVAL
 * when called twice.
 */
int tdr_stat__run(struct tdr_stat *st);

/*
 * Write the whole-run output to opts->out: the total (slots and the TopDown
 * breakdown with the main bottleneck marked, or the software counts and why
 * TopDown is not available), the per-thread rows, and for JSON the intervals.
 * Returns: 0, -EINVAL (before a completed __run), or the write error
 * (-errno, also in the summary's write_err; not logged: the caller knows
 * the stream's name).
 */
int tdr_stat__render(struct tdr_stat *st);

/* The summary; valid until __free. */
const struct tdr_stat_summary *tdr_stat__summary(const struct tdr_stat *st);

/* Free everything (a program never released is killed). NULL is fine. */
void tdr_stat__free(struct tdr_stat *st);

#endif /* TDREC_STAT_H */
