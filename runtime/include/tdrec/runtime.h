/*
 * runtime/include/tdrec/runtime.h - what 'tdrec record' and 'tdrec stat'
 * share: the program or processes measured, signals as an fd, perf_event
 * groups opened on every CPU with the kernel's fallbacks, mmap rings, the
 * system call seam and the machine's facts.
 *
 * Responsibility: the layer between an event plan (tdrec/plan.h) and the
 * two commands built on it (tdrec/recorder.h, tdrec/stat.h). It is internal
 * to the tdrec program: the recorder and stat modules and their tests use it;
 * it is not a stable API.
 *
 * Objects and lifecycle:
 *   tdr_sigwatch__open -> __read (repeat) -> __close        signals as an fd
 *   tdr_launch__start -> __go -> __poll / __wait -> __free  the program
 *   tdr_targets__init -> __make -> ... -> __release         what is measured
 *   tdr_session__open -> __read_group -> __disable -> __free  the fds
 *   tdr_ring__mmap -> __add_id -> __read (repeat) -> __release
 * Ownership and threads: single owner objects, used from one thread.
 * See: docs/record.md; docs/kernel.md.
 */
#ifndef TDREC_RUNTIME_H
#define TDREC_RUNTIME_H

#include <linux/perf_event.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/types.h>

#include "tdrec/tdr_api.h"
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
	/* SIGINT, SIGTERM, SIGHUP that tdrec inherited ignored, which a
	 * launched program inherits ignored too (exec keeps SIG_IGN). SIGINT
	 * and SIGTERM are read anyway; SIGHUP ignored is left ignored. */
	sigset_t ignored;
};

/* Close the fd and restore the old mask (signals still pending are then
 * delivered as usual). Safe on a zeroed or closed struct with fd = -1. */
TDR_API void tdr_sigwatch__close(struct tdr_sigwatch *sw);

/* ---------------------------------------------------------------------------
 * Launching a program.
 */
struct tdr_launch;

/* The child's pid (perf_event_open's pid for it). */
TDR_API pid_t tdr_launch__pid(const struct tdr_launch *l);

/*
 * Let the child exec and wait until the exec has either succeeded or failed.
 * Returns: 0 when the program runs, -errno of a failed exec (-ENOENT for a
 * missing program; the child has then exited with 127, and been reaped).
 */
TDR_API int tdr_launch__go(struct tdr_launch *l);

/* Reap the child if it has ended, without waiting. Returns 1 when it has
 * ended (now or before), 0 when it still runs, -errno. */
TDR_API int tdr_launch__poll(struct tdr_launch *l);
/* Wait for the child to end. Returns 0 or -errno. */
TDR_API int tdr_launch__wait(struct tdr_launch *l);

/* After the child ended: its exit code (0..255), or -1 when it died of a
 * signal, which *term_signal then holds (0 otherwise). */
TDR_API int tdr_launch__exit_code(const struct tdr_launch *l, int *term_signal);

/* Free l. A child never released by __go is killed (SIGKILL) and reaped; a
 * running child is left running (not reaped). NULL is fine. */
TDR_API void tdr_launch__free(struct tdr_launch *l);

/* ---------------------------------------------------------------------------
 * A session: every group of a plan opened on every CPU for every target.
 */
struct tdr_session;

/* Data pages per ring of 'tdrec record' unless --mmap-pages says otherwise. */
#define TDR_RECORD_DEFAULT_PAGES 128

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
TDR_API int tdr_session__open(const struct tdr_session_opts *opts, struct tdr_session **out,
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
TDR_API void tdr_session__prepare_plan(struct tdr_plan *plan, size_t mmap_pages);

/* Disable every group (ioctl on each leader with PERF_IOC_FLAG_GROUP).
 * Returns: 0 or the first -errno. */
TDR_API int tdr_session__disable(struct tdr_session *s);

/* Data pages per ring actually mapped (0 without rings). */
TDR_API size_t tdr_session__mmap_pages(const struct tdr_session *s);

/* CPUs of group g. */
TDR_API size_t tdr_session__cpu_cnt(const struct tdr_session *s, size_t g);

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
TDR_API int tdr_session__read_group(struct tdr_session *s, size_t g, size_t cpu_idx, size_t pid_idx,
				    struct tdr_group_read *out);

/*
 * Put the session into meta: overwrite each event's attr (meta events are
 * in plan order, group by group, as tdr_plan__to_meta writes them) with the
 * attr as opened and add its ids (one struct tdr_event_id per fd).
 * Returns: 0, -ENOMEM, -EINVAL when meta's events do not match the plan.
 */
TDR_API int tdr_session__fill_meta(const struct tdr_session *s, struct tdr_meta *meta);

/* Close everything. NULL is fine. */
TDR_API void tdr_session__free(struct tdr_session *s);

/* ---------------------------------------------------------------------------
 * sys.c: the only code that calls perf_event_open, ioctl on perf fds, mmap
 * and munmap of rings, read of perf fds, pidfd_open and setrlimit. Unit tests
 * may link tests/fakes/fake_sys.c instead (a link-time seam: sys.c holds
 * nothing else, so its object is not pulled from the archive). Every function
 * returns a result >= 0 or -errno.
 */
TDR_API int tdr_sys_perf_event_open(struct perf_event_attr *attr, pid_t pid, int cpu, int group_fd,
				    unsigned long flags);
TDR_API int tdr_sys_perf_ioctl(int fd, unsigned long request, unsigned long arg);
/* PERF_EVENT_IOC_ID: *id set on success. */
TDR_API int tdr_sys_perf_id(int fd, uint64_t *id);
/* Shared read-write mapping of len bytes of fd at offset 0. */
TDR_API int tdr_sys_mmap(int fd, size_t len, void **out);
TDR_API int tdr_sys_munmap(void *addr, size_t len);
/* read(2) with EINTR retry; returns the bytes read. */
TDR_API ssize_t tdr_sys_read(int fd, void *buf, size_t sz);
/* pidfd_open(pid, 0). */
TDR_API int tdr_sys_pidfd_open(pid_t pid);
/* Raise RLIMIT_NOFILE's soft limit to the hard limit. Returns 1 when it was
 * raised, 0 when it already was at the hard limit, -errno. */
TDR_API int tdr_sys_raise_nofile(void);

/* ---------------------------------------------------------------------------
 * ring.c: one perf_event mmap ring (or an in-memory stand-in for tests).
 */

/* Counters kept while draining a ring (no logging on the hot path). */
struct tdr_ring_counts {
	uint64_t bytes;
	uint64_t records;
	uint64_t samples;
	uint64_t lost_records; /* PERF_RECORD_LOST */
	uint64_t lost_samples; /* sum of their lost fields */
	uint64_t throttles;
	uint64_t resyncs;   /* bad headers: the ring was skipped to data_head */
	uint64_t oversized; /* records larger than a whole chunk: skipped */
};

struct tdr_ring {
	void *base;    /* the mapping: the perf_event_mmap_page, then data */
	size_t map_sz; /* 0 for a ring given by tdr_ring__init_mem */
	struct perf_event_mmap_page *pg;
	uint8_t *data;
	uint64_t data_sz; /* power of two */
	uint64_t tail;	  /* our copy of data_tail */
	int fd;		  /* the fd that was mapped (borrowed), -1 for memory rings */
	int cpu;
	/* Ids whose SAMPLE records are counted separately (samplers outputting
	 * into this ring), PERF_SAMPLE_IDENTIFIER being the first body u64. */
	size_t id_cnt;
	uint64_t *ids;	     /* owned */
	uint32_t *id_groups; /* owned: the plan group of ids[i] */
	uint64_t group_samples[TDR_PLAN_MAX_GROUPS];
	bool count_by_id; /* ids valid and samples carry IDENTIFIER */
	struct tdr_ring_counts cnt;
};

/* Map 1 + pages pages of fd. Returns 0 or -errno (-EPERM: over the mlock
 * budget). */
TDR_API int tdr_ring__mmap(struct tdr_ring *r, int fd, int cpu, size_t pages);

/*
 * Copy whole records from the ring to dst (at most cap bytes), reassembling
 * records that wrap the end, then release them to the kernel (data_tail).
 * *copied gets the bytes copied. Bad headers are counted (cnt.resyncs) and
 * skipped by jumping to data_head.
 * Returns: 1 when the next record did not fit in cap (records are left),
 * 0 when the ring is empty.
 * Thread: one drainer per ring; the writer is the kernel (or a test thread).
 */
TDR_API int tdr_ring__read(struct tdr_ring *r, uint8_t *dst, size_t cap, size_t *copied);

/* Drop the record at the tail (one larger than a whole chunk, which could
 * never be delivered); counted in cnt.oversized. */
TDR_API void tdr_ring__skip(struct tdr_ring *r);

/* Bytes waiting to be read. */
TDR_API uint64_t tdr_ring__pending(const struct tdr_ring *r);

/* Unmap (if mapped) and free the id tables. */
TDR_API void tdr_ring__release(struct tdr_ring *r);

/* ---------------------------------------------------------------------------
 * session.c internals used by recorder.c.
 */
struct tdr_session_group {
	size_t event_cnt;
	struct tdr_plan_event events[TDR_PLAN_MAX_EVENTS]; /* names, flags, attrs as opened */
	int sampler_idx;				   /* -1 without sampler */
	size_t cpu_cnt;
	int *cpus;
	/* fds[(cpu_idx * pid_cnt + pid_idx) * event_cnt + e], ids alike */
	int *fds;
	uint64_t *ids;
};

struct tdr_session {
	size_t group_cnt;
	struct tdr_session_group groups[TDR_PLAN_MAX_GROUPS];
	size_t pid_cnt;
	pid_t *pids;
	size_t mmap_pages;
	size_t ring_cnt;
	struct tdr_ring *rings; /* one per CPU that has a sampler */
};

/* fd index helper. */
static inline size_t tdr_session_slot(const struct tdr_session *s,
				      const struct tdr_session_group *g, size_t cpu_idx,
				      size_t pid_idx, size_t e)
{
	return (cpu_idx * s->pid_cnt + pid_idx) * g->event_cnt + e;
}

/* ---------------------------------------------------------------------------
 * proc.c: processes and threads from /proc.
 */

/* proc_root, or "/proc" when it is NULL. */
TDR_API const char *tdr_proc__root(const char *proc_root);
/* Thread ids of pid from /proc/PID/task (caller frees *tids).
 * Returns the count, -ENOENT, -ENOMEM. */
TDR_API int tdr_proc__tids(const char *proc_root, pid_t pid, pid_t **tids);
/* Every process id in /proc (caller frees). Returns the count or -errno. */
TDR_API int tdr_proc__pids(const char *proc_root, pid_t **pids);

/* ---------------------------------------------------------------------------
 * machine.c: host metadata.
 */

/* Fill hostname, kernel_release, boot_id, cpu_* fields, page_sz and nr_cpus
 * of meta from uname(2), proc_root (NULL: "/proc") and sysconf.
 * Returns: 0 or -ENOMEM (facts that cannot be read stay NULL / 0). */
TDR_API int tdr_machine__fill(struct tdr_meta *meta, const char *proc_root);

/* kernel.perf_event_max_sample_rate (the highest -F the kernel accepts), or
 * INT_MIN when it cannot be read. */
TDR_API int tdr_machine__max_sample_rate(const char *proc_root);

/* ---------------------------------------------------------------------------
 * targets.c: what 'record' and 'stat' measure, and the perf_event_open pids
 * that follow. Embedded in tdr_recorder and tdr_stat.
 */
struct pollfd;

struct tdr_targets {
	/* The description, set by the caller from its options. */
	const char *who;       /* "record" or "stat": the prefix of the messages */
	const char *doing;     /* "recording" or "counting" (what paranoid 2 allows) */
	char *const *argv;     /* a program to launch, or NULL (borrowed) */
	const pid_t *procs;    /* -p: the processes (borrowed) */
	size_t proc_cnt;       /* -p: how many */
	bool system_wide;      /* -a */
	bool kernel;	       /* kernel mode too */
	const char *proc_root; /* NULL: "/proc" (tests: a fake tree for the sysctls) */
	/* Filled by tdr_targets__make; owned. */
	pid_t *pids;	  /* perf_event_open pids (-1: every task of a CPU) */
	pid_t *pid_procs; /* -p: the process of each pid */
	size_t cnt;	  /* pids */
	int *pidfds;	  /* -p: one per process, -1 where pidfd_open failed */
	bool *gone;	  /* -p: the process has ended */
};

/* Describe what o says to measure (who and doing as in the struct, static
 * strings; the rest from o, borrowed for t's life) and check it: exactly one
 * of a program, -p and -a (or -a with a program), else a line logged with
 * who's prefix. t is filled either way. Returns 0 or -TDR_E_USAGE. */
TDR_API int tdr_targets__init(struct tdr_targets *t, const char *who, const char *doing,
			      const struct tdr_target_opts *o);
/* Open sw (signals as an fd: tdr_sigwatch__open) before any fork or thread;
 * a failure is logged once with t's prefix. Returns 0 or -errno. */
TDR_API int tdr_targets__open_signals(const struct tdr_targets *t, struct tdr_sigwatch *sw);

/* What signals did to a run (the record and stat loops keep one). */
struct tdr_sigstate {
	int cnt;	  /* SIGINT, SIGTERM and SIGHUP received */
	bool interrupted; /* cnt > 0 */
	int stop_signal;  /* without a program: the signal that ended the run */
};

/*
 * The signal policy of record and stat (docs/record.md "Signals"): apply
 * every signal pending on sw. SIGCHLD: has the launched program (launch;
 * NULL for -p, and -a alone) ended? SIGINT, SIGTERM, SIGHUP with a program:
 * forwarded to it, except a terminal's (SI_KERNEL), which reached the
 * program through tdrec's process group, unless the program has left that
 * group; as SIGTERM when the program inherited it ignored (sw->ignored),
 * as perf ends its workload; the third one kills it (SIGKILL, with a line). Without a program
 * the first one ends the run (ss->stop_signal).
 * Returns true when the run ends: the program ended, or a stop signal.
 */
TDR_API bool tdr_targets__signals(const struct tdr_targets *t, struct tdr_launch *launch,
				  struct tdr_sigwatch *sw, struct tdr_sigstate *ss);
/* After the run: wait until a launched program (launch, NULL: none) has
 * ended, applying signals meanwhile, so Ctrl-C still reaches it. */
TDR_API void tdr_targets__wait_program(const struct tdr_targets *t, struct tdr_launch *launch,
				       struct tdr_sigwatch *sw, struct tdr_sigstate *ss);
/* The plan options that follow from the targets: kernel, kernel_sw_counts,
 * inherit (not with -a), enable_on_exec (a program without -a). */
TDR_API void tdr_targets__plan_opts(const struct tdr_targets *t, struct tdr_plan_opts *p);
/* tdr_plan__choose for these targets (the plan logs why no plan fits). */
TDR_API int tdr_targets__choose_plan(const struct tdr_targets *t, const struct tdr_plan_opts *p,
				     enum tdr_plan_kind kind, struct tdr_plan **out);
/* Start the program when there is one (held before exec, *launch set;
 * child_mask as tdr_launch__start takes it), and fill pids: -p: every
 * thread of every process, and a pidfd for each process; -a: one pid -1;
 * else the program. Returns 0, -ENOENT (a process that does not exist),
 * -ENOMEM, -errno (logged where the context is known). t is valid for
 * __release in every case. */
TDR_API int tdr_targets__make(struct tdr_targets *t, const sigset_t *child_mask,
			      struct tdr_launch **launch);
/* -p: one poll entry per process, pfds[0, proc_cnt), for __all_gone. */
TDR_API void tdr_targets__poll_fds(const struct tdr_targets *t, struct pollfd *pfds);
/* -p: mark the processes that ended, from the poll entries of
 * __poll_fds (set to -1 once gone), or with kill(pid, 0) on a tick where
 * there is no pidfd (before Linux 5.3). Returns true when every process
 * has ended; always false without -p. */
TDR_API bool tdr_targets__all_gone(struct tdr_targets *t, struct pollfd *pfds, bool tick);
/* Close the pidfds and free what __make filled. */
TDR_API void tdr_targets__release(struct tdr_targets *t);

/* ---------------------------------------------------------------------------
 * open_ladder.c: open a plan with the fallbacks of docs/record.md
 * "Fallbacks", for record (a session with rings) and stat (counting groups).
 */

/* Open plan (the caller keeps what opened). Returns 0, or what
 * tdr_session__open returned with *fail filled. */
typedef int (*tdr_ladder_open_fn)(void *ctx, const struct tdr_plan *plan,
				  struct tdr_open_error *fail);
/* Keep a fallback line (a note of the run). Returns 0 or -ENOMEM. */
typedef int (*tdr_ladder_note_fn)(void *ctx, const char *line);

struct tdr_ladder {
	const struct tdr_targets *tg; /* what is opened for: the messages */
	struct tdr_plan_opts *popts;  /* plans are rebuilt with these */
	struct tdr_plan **plan;	      /* in: the chosen plan; out: the one that opened */
	tdr_ladder_open_fn open;
	tdr_ladder_note_fn note;
	void *ctx; /* for open and note */
	/* Record: an inherited plan sampling with PERF_SAMPLE_READ that gets
	 * EINVAL is tried once more without inherit (before about 6.12). */
	bool retry_noinherit;
	bool noinherit; /* out: it opened only that way (popts->inherit is false) */
};

/*
 * Open *l->plan with l->open; an event the kernel refuses moves to the next
 * plan (a line logged and noted), EMFILE raises RLIMIT_NOFILE once, and
 * every other failure is explained once (perf_event_paranoid,
 * perf_event_mlock_kb, a process gone) with tg's prefix.
 * Returns: 0, -ENOMEM (not logged), or the error of the last try.
 */
TDR_API int tdr_ladder__open(struct tdr_ladder *l);

#endif /* TDREC_RUNTIME_H */
