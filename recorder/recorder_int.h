/*
 * recorder/recorder_int.h - structs and functions shared by the recorder's
 * runtime files (sys, ring, drain, writer_thread, session, proc_synth,
 * machine, targets, open_ladder, recorder) and by stat. Not visible outside
 * recorder/ and its tests.
 *
 * The plan files (plan.c, pmu.c, event_spec.c) have their own plan_int.h.
 */
#ifndef TDREC_RECORDER_INT_H
#define TDREC_RECORDER_INT_H

#include <linux/perf_event.h>
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>

#include "tdrec/format.h"
#include "tdrec/plan.h"
#include "tdrec/recorder.h"

/* ---------------------------------------------------------------------------
 * sys.c: the only code that calls perf_event_open, ioctl on perf fds, mmap
 * and munmap of rings, read of perf fds, pidfd_open and setrlimit. Unit tests
 * may link tests/fakes/fake_sys.c instead (a link-time seam: sys.c holds
 * nothing else, so its object is not pulled from the archive). Every function
 * returns a result >= 0 or -errno.
 */
int tdr_sys_perf_event_open(struct perf_event_attr *attr, pid_t pid, int cpu, int group_fd,
			    unsigned long flags);
int tdr_sys_perf_ioctl(int fd, unsigned long request, unsigned long arg);
/* PERF_EVENT_IOC_ID: *id set on success. */
int tdr_sys_perf_id(int fd, uint64_t *id);
/* Shared read-write mapping of len bytes of fd at offset 0. */
int tdr_sys_mmap(int fd, size_t len, void **out);
int tdr_sys_munmap(void *addr, size_t len);
/* read(2) with EINTR retry; returns the bytes read. */
ssize_t tdr_sys_read(int fd, void *buf, size_t sz);
/* pidfd_open(pid, 0). */
int tdr_sys_pidfd_open(pid_t pid);
/* Raise RLIMIT_NOFILE's soft limit to the hard limit. Returns 1 when it was
 * raised, 0 when it already was at the hard limit, -errno. */
int tdr_sys_raise_nofile(void);

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

/* Use memory at base (one page_sz header page, then data_sz bytes, a power
 * of two) as a ring. For tests and benchmarks. */
void tdr_ring__init_mem(struct tdr_ring *r, void *base, size_t page_sz, uint64_t data_sz);

/* Map 1 + pages pages of fd. Returns 0 or -errno (-EPERM: over the mlock
 * budget). */
int tdr_ring__mmap(struct tdr_ring *r, int fd, int cpu, size_t pages);

/* Add a sampler id to count samples by (group). Returns 0 or -ENOMEM. */
int tdr_ring__add_id(struct tdr_ring *r, uint64_t id, uint32_t group);

/*
 * Copy whole records from the ring to dst (at most cap bytes), reassembling
 * records that wrap the end, then release them to the kernel (data_tail).
 * *copied gets the bytes copied. Bad headers are counted (cnt.resyncs) and
 * skipped by jumping to data_head.
 * Returns: 1 when the next record did not fit in cap (records are left),
 * 0 when the ring is empty.
 * Thread: one drainer per ring; the writer is the kernel (or a test thread).
 */
int tdr_ring__read(struct tdr_ring *r, uint8_t *dst, size_t cap, size_t *copied);

/* Drop the record at the tail (one larger than a whole chunk, which could
 * never be delivered); counted in cnt.oversized. */
void tdr_ring__skip(struct tdr_ring *r);

/* Bytes waiting to be read. */
uint64_t tdr_ring__pending(const struct tdr_ring *r);

/* Unmap (if mapped) and free the id tables. */
void tdr_ring__release(struct tdr_ring *r);

/* ---------------------------------------------------------------------------
 * writer_thread.c: chunk pool, bounded queue, and one thread that hands
 * chunks to a frame sink (tdr_writer__add_frame in production).
 */
struct tdr_chunk {
	struct tdr_chunk *next;
	uint32_t ring;
	size_t sz;  /* bytes used */
	size_t cap; /* bytes allocated in data */
	uint8_t data[];
};

/* Write one frame. Runs on the writer thread. Returns 0 or a negative code. */
typedef int (*tdr_frame_sink_fn)(void *ctx, uint32_t ring, const void *data, size_t sz);

struct tdr_wthread_opts {
	size_t chunk_sz;   /* bytes per chunk (>= the largest record) */
	size_t max_chunks; /* pool limit, >= 2 */
	tdr_frame_sink_fn sink;
	void *ctx;
};

struct tdr_wthread;

/* Start the thread. Returns 0 or -errno / -ENOMEM. */
int tdr_wthread__new(const struct tdr_wthread_opts *opts, struct tdr_wthread **out);
/* A free chunk (sz = 0) or NULL when all max_chunks are in use. Allocates a
 * new chunk only while the pool is below its limit. Drainer thread only. */
struct tdr_chunk *tdr_wthread__get(struct tdr_wthread *w);
/* Queue a filled chunk (ownership passes to the thread); an empty one goes
 * straight back to the pool. */
void tdr_wthread__submit(struct tdr_wthread *w, struct tdr_chunk *c);
/* Give back an unused chunk. */
void tdr_wthread__put(struct tdr_wthread *w, struct tdr_chunk *c);
/* An fd that becomes readable when a chunk returns to the pool (eventfd);
 * read it to clear. */
int tdr_wthread__wake_fd(const struct tdr_wthread *w);
void tdr_wthread__clear_wake(struct tdr_wthread *w);
/* The sink's first error, 0 while all frames were written. After an error
 * the thread drops (and counts) every further chunk. Any thread. */
int tdr_wthread__error(const struct tdr_wthread *w);
/* Bytes dropped after an error. */
uint64_t tdr_wthread__dropped(const struct tdr_wthread *w);
/* Write everything queued, stop and join the thread. Returns the first
 * error or 0. Idempotent. */
int tdr_wthread__stop(struct tdr_wthread *w);
/* Stop (if needed) and free the pool. NULL is fine. */
void tdr_wthread__free(struct tdr_wthread *w);

/* ---------------------------------------------------------------------------
 * drain.c: rings -> chunks. One current chunk per ring; a full chunk goes to
 * the writer thread. Never blocks: a ring without a chunk (pool exhausted)
 * is left for the kernel to fill (it then counts PERF_RECORD_LOST).
 */
struct tdr_drain_ring {
	struct tdr_ring *ring; /* borrowed */
	uint32_t ring_id;      /* frame ring number: the CPU */
	struct tdr_chunk *cur;
	bool starved; /* had data but no chunk */
};

struct tdr_drain {
	struct tdr_wthread *wt; /* borrowed */
	size_t ring_cnt;
	struct tdr_drain_ring *rings;
	uint64_t starved_cnt; /* times a ring found no chunk */
};

/* Returns 0 or -ENOMEM. rings are borrowed. */
int tdr_drain__init(struct tdr_drain *d, struct tdr_wthread *wt, struct tdr_ring **rings,
		    size_t ring_cnt);
/* Drain every ring once (until empty or starved). Returns the bytes moved. */
uint64_t tdr_drain__all(struct tdr_drain *d);
/* Hand every non-empty current chunk to the writer thread. */
void tdr_drain__flush(struct tdr_drain *d);
/* True when some ring is starved (poll the wake fd). */
bool tdr_drain__starved(const struct tdr_drain *d);
/* Give current chunks back. */
void tdr_drain__release(struct tdr_drain *d);

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
 * build_id.c: the GNU build-id of an ELF file.
 */
#define TDR_BUILD_ID_MAX TDR_DSO_BUILD_ID_MAX /* what an MMAP2 record holds */

struct tdr_build_id {
	uint8_t sz; /* 0: none */
	uint8_t id[TDR_BUILD_ID_MAX];
};

/*
 * Read the NT_GNU_BUILD_ID note of the ELF file open on fd (borrowed), found
 * through its PT_NOTE program headers, with a few pread()s; every offset and
 * size is checked against the file.
 * Returns: 0 with *out set (sz 1..20, the rest zero); -ENOENT when the file
 * has none: not ELF, the other byte order, truncated, malformed headers, no
 * note, or a descriptor of 0 or more than 20 bytes (which the kernel does
 * not report either); -errno when reading fails.
 */
int tdr_build_id__read(int fd, struct tdr_build_id *out);

/* ---------------------------------------------------------------------------
 * dso_set.c: the files mapped executable during a recording (from the
 * MMAP2 records written to the file), and their build-ids at the end.
 *
 *   tdr_dso_set__init(&s, sampler_sample_type);
 *   tdr_dso_set__scan(&s, records, sz);     // each frame, one thread
 *   tdr_dso_set__resolve(&s, NULL, wall);   // once, at the end
 *   tdr_dso_set__encode(&s, &data, &sz);    // the DSO table section
 *   tdr_dso_set__free(&s);
 */
#define TDR_DSO_SET_MAX_FILES (1u << 16)
#define TDR_DSO_SET_MAX_NAMES (16u << 20) /* bytes of paths kept */

struct tdr_dso_file {
	uint64_t hash; /* of path, device and inode */
	uint64_t ino;
	uint64_t first_ns; /* sample clock of its first MMAP2 record; 0: unknown */
	uint32_t maj, min;
	uint32_t pid;	   /* the process of that record (its /proc/PID/root) */
	uint32_t path_off; /* into names, NUL-terminated there */
	uint16_t path_len;
	uint8_t status; /* enum tdr_dso_status, set by __resolve */
	struct tdr_build_id bid;
};

struct tdr_dso_set {
	struct tdr_dso_file *files; /* in order of first sight */
	size_t cnt, cap;
	uint32_t *slots; /* open addressing: index + 1 into files, 0 = empty */
	size_t slot_cap; /* a power of two, at least twice cnt */
	char *names;
	size_t names_sz, names_cap;
	unsigned time_back; /* TIME's u64 index from a record's end (1 = last); 0: none */
	uint64_t dropped;   /* MMAP2 records of files not kept (caps, no memory) */
};

/* Start an empty set for records whose sample_id trailer follows
 * sample_type (the sampler's; attr.sample_id_all is set by every plan). */
void tdr_dso_set__init(struct tdr_dso_set *s, uint64_t sample_type);

/*
 * Add the executable file mappings of the MMAP2 records among sz bytes of
 * whole records (a frame: they tile it; a bad header ends the scan). Only
 * names that start with '/' are files ([vdso], //anon and the like are
 * not). Device and inode are read whatever misc says: tdrec's events never
 * have attr.build_id, and the kernel may leave PERF_RECORD_MISC_MMAP_BUILD_ID
 * set in their records (docs/record.md "Build-ids"). Allocates only for a
 * file not seen before; a file that cannot be kept is counted in dropped.
 */
void tdr_dso_set__scan(struct tdr_dso_set *s, const void *records, size_t sz);

/*
 * Read the build-id of every file once, only where the file at its path
 * (else at <proc_root>/PID/root/PATH, for another mount namespace) is still
 * a regular file with the recorded device and inode and was not changed
 * after it was first mapped (st_ctime later than first_ns + clock_to_wall_ns,
 * the wall clock at that moment): sets each file's status and build-id.
 * proc_root: NULL for "/proc".
 */
void tdr_dso_set__resolve(struct tdr_dso_set *s, const char *proc_root, int64_t clock_to_wall_ns);

/* The DSO table section data of the set (caller frees *out).
 * Returns 0 or -ENOMEM. */
int tdr_dso_set__encode(const struct tdr_dso_set *s, void **out, size_t *sz);

/* Whether a file's stat (st) is the mapped file (maj, min, ino): the same
 * inode and device, or the same inode on a file system whose stat shows
 * another device than its mappings (btrfs, overlayfs: fs_type is statfs's
 * f_type, 0 when unknown). */
bool tdr_dso__same_file(uint32_t maj, uint32_t min, uint64_t ino, const struct stat *st,
			long fs_type);

void tdr_dso_set__free(struct tdr_dso_set *s);

/* ---------------------------------------------------------------------------
 * proc_synth.c: MMAP2 and COMM records for processes that already run.
 */

/* The sample_id trailer values written after each synthesized record. */
struct tdr_synth_id {
	uint64_t sample_type; /* of the sampler: which fields the trailer has */
	uint64_t time_ns;     /* the sample clock before the events were opened */
	uint32_t cpu;
	uint64_t id; /* the sampler's id on that CPU (ID and IDENTIFIER) */
};

/* A growable byte buffer of records. */
struct tdr_synth_buf {
	uint8_t *data;
	size_t sz, cap;
};

/*
 * Append COMM records for every thread of pid (from /proc/PID/task/ * /comm)
 * and MMAP2 records for its executable mappings (from /proc/PID/maps).
 * proc_root: NULL for "/proc". Returns: 0, -ENOENT (the process is gone),
 * -ENOMEM.
 */
int tdr_synth__process(struct tdr_synth_buf *buf, const char *proc_root, pid_t pid,
		       const struct tdr_synth_id *sid);

/* Thread ids of pid from /proc/PID/task (caller frees *tids).
 * Returns the count, -ENOENT, -ENOMEM. */
int tdr_proc__tids(const char *proc_root, pid_t pid, pid_t **tids);
/* Every process id in /proc (caller frees). Returns the count or -errno. */
int tdr_proc__pids(const char *proc_root, pid_t **pids);

/* ---------------------------------------------------------------------------
 * machine.c: host metadata.
 */

/* Fill hostname, kernel_release, boot_id, cpu_* fields, page_sz and nr_cpus
 * of meta from uname(2), proc_root (NULL: "/proc") and sysconf.
 * Returns: 0 or -ENOMEM (facts that cannot be read stay NULL / 0). */
int tdr_machine__fill(struct tdr_meta *meta, const char *proc_root);

/* perf_event_paranoid's value, or INT_MIN when it cannot be read. */
int tdr_machine__paranoid(const char *proc_root);
/* kernel.perf_event_max_sample_rate (the highest -F the kernel accepts), or
 * INT_MIN when it cannot be read. */
int tdr_machine__max_sample_rate(const char *proc_root);
/* kernel.perf_event_mlock_kb, or INT_MIN. */
int tdr_machine__mlock_kb(const char *proc_root);

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
int tdr_targets__init(struct tdr_targets *t, const char *who, const char *doing,
		      const struct tdr_target_opts *o);
/* Open sw (signals as an fd: tdr_sigwatch__open) before any fork or thread;
 * a failure is logged once with t's prefix. Returns 0 or -errno. */
int tdr_targets__open_signals(const struct tdr_targets *t, struct tdr_sigwatch *sw);

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
 * group; the third one kills it (SIGKILL, with a line). Without a program
 * the first one ends the run (ss->stop_signal).
 * Returns true when the run ends: the program ended, or a stop signal.
 */
bool tdr_targets__signals(const struct tdr_targets *t, struct tdr_launch *launch,
			  struct tdr_sigwatch *sw, struct tdr_sigstate *ss);
/* After the run: wait until a launched program (launch, NULL: none) has
 * ended, applying signals meanwhile, so Ctrl-C still reaches it. */
void tdr_targets__wait_program(const struct tdr_targets *t, struct tdr_launch *launch,
			       struct tdr_sigwatch *sw, struct tdr_sigstate *ss);
/* The plan options that follow from the targets: kernel, kernel_sw_counts,
 * inherit (not with -a), enable_on_exec (a program without -a). */
void tdr_targets__plan_opts(const struct tdr_targets *t, struct tdr_plan_opts *p);
/* tdr_plan__choose for these targets (the plan logs why no plan fits). */
int tdr_targets__choose_plan(const struct tdr_targets *t, const struct tdr_plan_opts *p,
			     enum tdr_plan_kind kind, struct tdr_plan **out);
/* Start the program when there is one (held before exec, *launch set;
 * child_mask as tdr_launch__start takes it), and fill pids: -p: every
 * thread of every process, and a pidfd for each process; -a: one pid -1;
 * else the program. Returns 0, -ENOENT (a process that does not exist),
 * -ENOMEM, -errno (logged where the context is known). t is valid for
 * __release in every case. */
int tdr_targets__make(struct tdr_targets *t, const sigset_t *child_mask,
		      struct tdr_launch **launch);
/* -p: one poll entry per process, pfds[0, proc_cnt), for __all_gone. */
void tdr_targets__poll_fds(const struct tdr_targets *t, struct pollfd *pfds);
/* -p: mark the processes that ended, from the poll entries of
 * __poll_fds (set to -1 once gone), or with kill(pid, 0) on a tick where
 * there is no pidfd (before Linux 5.3). Returns true when every process
 * has ended; always false without -p. */
bool tdr_targets__all_gone(struct tdr_targets *t, struct pollfd *pfds, bool tick);
/* Close the pidfds and free what __make filled. */
void tdr_targets__release(struct tdr_targets *t);

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
int tdr_ladder__open(struct tdr_ladder *l);

/* ---------------------------------------------------------------------------
 * recorder.c / record_open.c: the recorder object.
 */
struct tdr_recorder {
	const struct tdr_record_opts *opts; /* borrowed */
	struct tdr_record_summary sum;
	struct tdr_sigwatch sw;
	struct tdr_launch *launch;
	struct tdr_plan_opts popts;
	struct tdr_plan *plan;
	struct tdr_session *session;
	size_t mmap_pages; /* asked for */
	struct tdr_targets tg;
	bool inherit_fallback;
	bool read_lost;
	struct tdr_meta meta;
	struct tdr_writer *writer;
	/* Files seen mapped, for the DSO table: filled by whoever writes
	 * frames (tdr_record__add_frame: this thread, then the writer
	 * thread until it is joined), read at the end. */
	struct tdr_dso_set dsos;
	char *partial_path; /* "<output>.partial" when atomic_replace */
	uint64_t start_clock_ns, start_wall_ns, start_mono_ns;
	bool ran;
};

/* Whether the kernel accepts PERF_FORMAT_LOST (one probe). */
bool tdr_record__probe_read_lost(void);
/* Open rec->session from rec->plan, with the fallbacks; logs refusals.
 * Returns 0 or -errno. */
int tdr_record__open(struct tdr_recorder *rec);
/* Append a note line to rec->meta. Returns 0 or -ENOMEM. */
int tdr_record__add_note(struct tdr_recorder *rec, const char *line);
/* Write one frame of records to the file, noting the files they map
 * (rec->dsos). Returns what tdr_writer__add_frame returned. */
int tdr_record__add_frame(struct tdr_recorder *rec, uint32_t ring, const void *data, size_t sz);
/* The DSO table: the build-ids of rec->dsos, as a section of the file.
 * Problems are logged; the recording's file stays good without it. */
void tdr_record__write_dso_table(struct tdr_recorder *rec);
/* The run loop and the finish (record_loop.c). */
int tdr_record__loop(struct tdr_recorder *rec);

#endif /* TDREC_RECORDER_INT_H */
