/*
 * recorder/include/tdrec/recorder.h - the runtime of 'tdrec record': launch or
 * attach, open perf_event groups per CPU, drain the rings into a .tdr file.
 *
 * Responsibility: everything between a chosen event plan (tdrec/plan.h) and
 * a finished .tdr file (tdrec/format.h): starting the program with a start
 * pipe, signals, opening every group on every CPU with the kernel's
 * fallbacks, mmap rings, the drain loop and the writer thread, synthesized
 * MMAP2/COMM records for -p/-a, host metadata and the run's totals.
 * It never writes to stdout and never exits: cli/ prints the summary line
 * and turns tdr_record_summary into an exit status.
 *
 * Objects and lifecycle (three layers; the lower two work without sampling,
 * for 'tdrec stat'):
 *   tdr_sigwatch__open -> __read (repeat) -> __close        signals as an fd
 *   tdr_launch__start -> __go -> __poll / __wait -> __free  the program
 *   tdr_session__open -> __enable / __read_group -> __free  the fds
 *   tdr_recorder__new -> __run (once) -> __summary -> __free
 *
 * Usage (what cli/cmd_record.c does):
 *   struct tdr_record_opts o = { .what.argv = prog_argv, .sample_freq = 4000, ... };
 *   err = tdr_recorder__new(&o, &rec);       // plan, fork, groups, file
 *   if (!err) err = tdr_recorder__run(rec);  // until the program ends
 *   sum = tdr_recorder__summary(rec);        // exit status, counts, why
 *
 * Ownership and threads: single owner objects, used from one thread;
 * tdr_recorder__run starts and joins one writer thread of its own.
 * See: docs/record.md; shared kernel-facts.md sections 4, 7, 8.
 */
#ifndef TDREC_RECORDER_H
#define TDREC_RECORDER_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/signalfd.h>
#include <sys/types.h>

#include "tdrec/format.h"
#include "tdrec/plan.h"

/* ---------------------------------------------------------------------------
 * What 'record' and 'stat' measure: the options the two commands share.
 */
struct tdr_target_opts {
	/* A program (argv, NULL-terminated), or pids (-p, each a process whose
	 * threads are all measured), or system_wide (-a, with or without a
	 * program). Borrowed for the life of the object given them. */
	char *const *argv;
	const pid_t *pids;
	size_t pid_cnt;
	bool system_wide;
	bool kernel;		      /* kernel mode too (exclude_kernel = 0) */
	enum tdr_plan_kind plan_kind; /* TDR_PLAN_AUTO (0): the best that fits */
	const char *sysfs_root;	      /* NULL: $TDREC_SYSFS, else /sys */
};

/* ---------------------------------------------------------------------------
 * Signals as a file descriptor.
 */

/*
 * SIGINT, SIGTERM, SIGHUP and SIGCHLD blocked in the calling thread (and in
 * the threads it starts later) and readable from fd, so a poll() loop sees
 * them without a handler or global state. old_mask is what a launched
 * program must get back (tdr_launch__start takes it).
 */
struct tdr_sigwatch {
	int fd; /* signalfd, non-blocking, close-on-exec; -1 when closed */
	sigset_t old_mask;
};

/* Block the signals and open the fd. Call before starting any thread.
 * Returns: 0 or -errno. */
int tdr_sigwatch__open(struct tdr_sigwatch *sw);
/* Read one pending signal. Returns 1 with *si set, 0 when none is pending, -errno. */
int tdr_sigwatch__read(struct tdr_sigwatch *sw, struct signalfd_siginfo *si);
/* Close the fd and restore the old mask (signals still pending are then
 * delivered as usual). Safe on a zeroed or closed struct with fd = -1. */
void tdr_sigwatch__close(struct tdr_sigwatch *sw);

/* ---------------------------------------------------------------------------
 * Launching a program.
 */
struct tdr_launch;

/*
 * Fork a child that waits on a start pipe, then (after tdr_launch__go)
 * restores child_mask (NULL: empty mask) and execvp()s argv[0]. The child is
 * in tdrec's process group, so the terminal's Ctrl-C reaches it directly.
 * argv is borrowed for the call (the child has its own copy).
 * Returns: 0 or -errno (pipe, fork).
 */
int tdr_launch__start(char *const argv[], const sigset_t *child_mask, struct tdr_launch **out);

/* The child's pid (perf_event_open's pid for it). */
pid_t tdr_launch__pid(const struct tdr_launch *l);

/*
 * Let the child exec and wait until the exec has either succeeded or failed.
 * Returns: 0 when the program runs, -errno of a failed exec (-ENOENT for a
 * missing program; the child has then exited with 127, and been reaped).
 */
int tdr_launch__go(struct tdr_launch *l);

/* Send sig to the child unless it has been reaped. Returns 0 or -errno. */
int tdr_launch__signal(struct tdr_launch *l, int sig);

/* Whether the child has moved to a process group of its own (setsid,
 * setpgid): a terminal's signals to tdrec's group then miss it. */
bool tdr_launch__left_pgrp(const struct tdr_launch *l);

/* Reap the child if it has ended, without waiting. Returns 1 when it has
 * ended (now or before), 0 when it still runs, -errno. */
int tdr_launch__poll(struct tdr_launch *l);
/* Wait for the child to end. Returns 0 or -errno. */
int tdr_launch__wait(struct tdr_launch *l);

/* After the child ended: its exit code (0..255), or -1 when it died of a
 * signal, which *term_signal then holds (0 otherwise). */
int tdr_launch__exit_code(const struct tdr_launch *l, int *term_signal);

/* Free l. A child never released by __go is killed (SIGKILL) and reaped; a
 * running child is left running (not reaped). NULL is fine. */
void tdr_launch__free(struct tdr_launch *l);

/* ---------------------------------------------------------------------------
 * A session: every group of a plan opened on every CPU for every target.
 */
struct tdr_session;

struct tdr_session_opts {
	const struct tdr_plan *plan; /* borrowed for the call; attrs are copied */
	/* perf_event_open pids, one set of groups per pid per CPU: the launched
	 * child, the threads of -p processes (tids), or a single -1 for -a. */
	const pid_t *pids;
	size_t pid_cnt;
	/* Data pages per ring (power of two), one ring per CPU, mapped on the
	 * sampler and shared with PERF_EVENT_IOC_SET_OUTPUT. 0: no rings (a
	 * counting session, or a plan without sampler). On EPERM from mmap the
	 * session halves the pages (down to min_mmap_pages, 0 means 8) and opens
	 * again; the sampler gets watermark = 1 and wakeup_watermark = a quarter
	 * of the ring. */
	size_t mmap_pages;
	size_t min_mmap_pages;
};

enum tdr_open_stage {
	TDR_STAGE_OPEN = 0, /* perf_event_open */
	TDR_STAGE_ID,	    /* PERF_EVENT_IOC_ID */
	TDR_STAGE_MMAP,	    /* mmap of a ring (after halving down to the minimum) */
	TDR_STAGE_OUTPUT,   /* PERF_EVENT_IOC_SET_OUTPUT */
	TDR_STAGE_ENABLE,   /* PERF_EVENT_IOC_ENABLE of a group that counts from open */
};

/* What failed when tdr_session__open failed. */
struct tdr_open_error {
	int err; /* -errno */
	enum tdr_open_stage stage;
	size_t group_idx, event_idx;
	char event_name[64];
	int cpu;
	pid_t pid;
	size_t mmap_pages; /* pages of the last mmap attempt (TDR_STAGE_MMAP) */
};

/*
 * Open every group of opts->plan on each of its CPUs for each pid: leader
 * with group_fd -1, then the members into it, close-on-exec; read every
 * event's id; map the rings; then start the groups that count from open
 * (leaders without enable_on_exec: they are opened disabled, see
 * tdr_session__prepare_plan). Nothing is logged: the caller explains *fail.
 * Returns: 0, or -errno with *fail filled (when fail is not NULL).
 */
int tdr_session__open(const struct tdr_session_opts *opts, struct tdr_session **out,
		      struct tdr_open_error *fail);

/*
 * Apply to plan, in place, the changes tdr_session__open makes to the attrs
 * it opens, so that --dry-run shows exactly what would be opened:
 *   - a leader without enable_on_exec gets disabled = 1 (the session starts
 *     the group once everything is open: members added to a running
 *     CPU-wide group are never scheduled in, and would read 0);
 *   - with rings (mmap_pages > 0), the sampler gets watermark = 1 and
 *     wakeup_watermark = a quarter of the ring.
 * Idempotent.
 */
void tdr_session__prepare_plan(struct tdr_plan *plan, size_t mmap_pages);

/* Enable / disable every group (ioctl on each leader with PERF_IOC_FLAG_GROUP).
 * Returns: 0 or the first -errno. */
int tdr_session__enable(struct tdr_session *s);
int tdr_session__disable(struct tdr_session *s);

/* Data pages per ring actually mapped (0 without rings). */
size_t tdr_session__mmap_pages(const struct tdr_session *s);

/* Targets (pids) and CPUs of group g. */
size_t tdr_session__pid_cnt(const struct tdr_session *s);
size_t tdr_session__cpu_cnt(const struct tdr_session *s, size_t g);
int tdr_session__cpu(const struct tdr_session *s, size_t g, size_t cpu_idx);

/* The attr as opened (after the session's own changes) of event e of group g. */
const struct perf_event_attr *tdr_session__attr(const struct tdr_session *s, size_t g, size_t e);

/* One group read (read(2) on the leader, PERF_FORMAT_GROUP). */
struct tdr_group_read {
	uint64_t time_enabled, time_running; /* 0 when not in read_format */
	size_t value_cnt;
	uint64_t values[TDR_PLAN_MAX_EVENTS];
	uint64_t ids[TDR_PLAN_MAX_EVENTS];
	uint64_t lost[TDR_PLAN_MAX_EVENTS]; /* 0 without PERF_FORMAT_LOST */
};

/* Read group g on CPU index cpu_idx for target pid_idx. The attrs need
 * PERF_FORMAT_GROUP. Returns: 0, -errno, -TDR_E_CORRUPT (short read). */
int tdr_session__read_group(struct tdr_session *s, size_t g, size_t cpu_idx, size_t pid_idx,
			    struct tdr_group_read *out);

/*
 * Put the session into meta: overwrite each event's attr (meta events are
 * in plan order, group by group, as tdr_plan__to_meta writes them) with the
 * attr as opened and add its ids (one struct tdr_event_id per fd).
 * Returns: 0, -ENOMEM, -EINVAL when meta's events do not match the plan.
 */
int tdr_session__fill_meta(const struct tdr_session *s, struct tdr_meta *meta);

/* Close everything. NULL is fine. */
void tdr_session__free(struct tdr_session *s);

/* ---------------------------------------------------------------------------
 * The recorder.
 */
struct tdr_recorder;

#define TDR_RECORD_DEFAULT_FREQ 4000
#define TDR_RECORD_DEFAULT_PAGES 128
#define TDR_RECORD_DEFAULT_OUTPUT "tdrec.tdr"
#define TDR_RECORD_FLUSH_MS 500 /* a frame is written at least this often */

struct tdr_record_opts {
	struct tdr_target_opts what;	      /* what to record, which plan */
	const char *output;		      /* NULL: TDR_RECORD_DEFAULT_OUTPUT */
	const struct tdr_event_spec *sampler; /* NULL: the plan's default */
	uint64_t sample_period;		      /* at most one of period and freq; */
	uint64_t sample_freq;		      /* both 0: TDR_RECORD_DEFAULT_FREQ */
	size_t mmap_pages;		      /* 0: TDR_RECORD_DEFAULT_PAGES */
	bool no_inherit;
	int zstd_level; /* 0: the writer's default */
	/* tdrec's own command line, for the metadata (borrowed). */
	size_t tdrec_argc;
	char *const *tdrec_argv;
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
int tdr_recorder__new(const struct tdr_record_opts *opts, struct tdr_recorder **out);

/*
 * --dry-run: the plan a recording with opts would try first, every attr
 * exactly as tdr_session__open would open it (tdr_session__prepare_plan,
 * with opts' ring size). Opens nothing and starts nothing; PERF_FORMAT_LOST
 * is assumed to be accepted (a real run probes it and drops it if not).
 * Problems are logged once, as tdr_recorder__new logs them.
 * Returns: 0 with *out set (the caller frees it with tdr_plan__free),
 * -TDR_E_USAGE, -TDR_E_NOPLAN, -TDR_E_CORRUPT, -ENOENT, -ENOMEM.
 */
int tdr_recorder__plan(const struct tdr_record_opts *opts, struct tdr_plan **out);

/*
 * Run the program (or keep attached) and drain the rings until it ends or
 * until SIGINT/SIGTERM/SIGHUP (forwarded to a launched program; stop -p/-a
 * without a program), then finish the file. Call once.
 * Returns: 0 when the recording is complete (whatever the program's exit
 * status: see the summary), the exec error (-ENOENT...) when the program
 * could not start (the output file is then not created), or the write error.
 */
int tdr_recorder__run(struct tdr_recorder *rec);

/* The summary; valid until __free. */
const struct tdr_record_summary *tdr_recorder__summary(const struct tdr_recorder *rec);

/* Free everything (a program never started is killed). NULL is fine. */
void tdr_recorder__free(struct tdr_recorder *rec);

#endif /* TDREC_RECORDER_H */
