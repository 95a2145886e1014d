/*
 * recorder/recorder_int.h - structs and functions shared by the recording's
 * files (writer_thread, drain, build_id, dso_set, proc_synth, recorder,
 * record_open, record_loop). Not visible outside recorder/ and its tests.
 * What record shares with stat is in tdrec/runtime.h.
 */
#ifndef TDREC_RECORDER_INT_H
#define TDREC_RECORDER_INT_H

#include <linux/perf_event.h>
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <unistd.h>

#include "tdrec/format.h"
#include "tdrec/plan.h"
#include "tdrec/recorder.h"
#include "tdrec/tdr_hmap.h"
#include "tdrec/runtime.h"

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

/* Set the calling thread's nice (not the process's: setpriority on a
 * thread id). Returns 0, or -1 with errno set. */
static inline int tdr_record__set_own_nice(int nice)
{
	return setpriority(PRIO_PROCESS, (id_t)syscall(SYS_gettid), nice);
}

/* Write one frame. Runs on the writer thread. Returns 0 or a negative code. */
typedef int (*tdr_frame_sink_fn)(void *ctx, uint32_t ring, const void *data, size_t sz);

struct tdr_wthread_opts {
	size_t chunk_sz;   /* bytes per chunk (>= the largest record) */
	size_t max_chunks; /* pool limit, >= 2 */
	tdr_frame_sink_fn sink;
	void *ctx;
	/* When set, the thread first moves itself to nice `nice`: its creator
	 * may run raised, and a new thread inherits its creator's nice. */
	bool set_nice;
	int nice;
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
	struct tdr_hmap index; /* files by path, device and inode */
	char *names;
	size_t names_sz, names_cap;
	struct tdr_sid_layout sid; /* the sampler's sample_id trailer (for its TIME) */
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
	int nice_before;  /* the draining thread's nice before it was raised */
	bool nice_raised; /* record_loop.c: tdr_record__drain_priority */
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
/* Per-event totals at the end (record_loop.c): samples by sampler, lost
 * from PERF_FORMAT_LOST, and each group's counted totals, none for a group
 * that never ran (time_running 0: logged, naming it). NULL on -ENOMEM. */
struct tdr_event_totals *tdr_record__event_totals(struct tdr_recorder *rec, uint64_t *fmt_lost);
/* The program's regions (opts->regions_path), as the REGIONS section when
 * the file holds them (regions_embed.c). Problems are logged. */
void tdr_record__embed_regions(struct tdr_recorder *rec);
/* The ARCHIVE section from opts->archive, before the trailer (recorder.c). */
void tdr_record__write_archive(struct tdr_recorder *rec);
/* The run loop and the finish (record_loop.c). */
int tdr_record__loop(struct tdr_recorder *rec);
/* Raise the calling (draining) thread's priority where allowed, before the
 * program starts; tdr_record__loop restores it when the draining ends. */
void tdr_record__drain_priority(struct tdr_recorder *rec);
/* Back to the priority the thread had before tdr_record__drain_priority. */
void tdr_record__drain_priority_restore(struct tdr_recorder *rec);

#endif /* TDREC_RECORDER_INT_H */
