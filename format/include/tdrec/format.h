/*
 * format/include/tdrec/format.h - the .tdr profile container: writer and reader.
 *
 * Responsibility: turn a recording (metadata, frames of raw kernel records,
 * optional sections, totals) into a .tdr file and back. It counts and
 * bounds-checks records with tdrec/records.h (the record layouts, included
 * here) but never interprets record bodies: that is parser/'s job.
 * Objects and lifecycle:
 *   writer: tdr_writer__open -> __add_frame / __add_section (repeat)
 *           -> __finish -> __free
 *   reader: tdr_reader__open (or __open_mem) -> accessors, __load_frame
 *           (repeat) -> __free
 * Ownership and threads: a writer is used by one thread. A reader is
 * immutable after open; __load_frame may run on several threads at once as
 * long as each uses its own struct tdr_frame_buf.
 * See: docs/format.md (normative).
 */
#ifndef TDREC_FORMAT_H
#define TDREC_FORMAT_H

#include <linux/perf_event.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tdrec/tdr_api.h"
#include "tdrec/records.h"

#define TDR_FORMAT_MAJOR 1
#define TDR_FORMAT_MINOR 5

/* ---------------------------------------------------------------------------
 * Metadata: what was recorded, where and how. Plain data; every pointer is
 * owned by the struct (tdr_meta__free releases it all).
 */

/* Event flags (struct tdr_event_desc.flags). */
#define TDR_EVENT_LEADER (1u << 0)  /* group leader */
#define TDR_EVENT_SAMPLER (1u << 1) /* the member with a sample period */

/* One kernel-assigned id of an event (PERF_EVENT_IOC_ID), per opened fd. */
struct tdr_event_id {
	uint32_t cpu; /* the CPU the fd was opened on, UINT32_MAX for cpu = -1 */
	uint32_t pid; /* the pid/tid it was opened for, UINT32_MAX for pid = -1 */
	uint64_t id;
};

/* One event of the plan, in group order (leader first). */
struct tdr_event_desc {
	char *name;	  /* e.g. "slots", "topdown-retiring", "cpu-clock" */
	char *pmu_name;	  /* e.g. "cpu", "cpu_core", "software" */
	uint32_t pmu_type; /* attr.type as given */
	uint32_t flags;	  /* TDR_EVENT_* */
	uint32_t group_idx; /* which group of the plan (0 for one-group plans) */
	/* The attr exactly as given to perf_event_open. Stored on disk with its
	 * size; attrs larger than this build's struct are truncated in memory
	 * (attr_disk_sz keeps the original size), smaller ones zero-extended. */
	struct perf_event_attr attr;
	uint32_t attr_disk_sz;
	size_t id_cnt;
	struct tdr_event_id *ids;
};

/* One term of a linear formula: coef * (delta of event event_idx). */
struct tdr_term {
	uint32_t event_idx;
	double coef;
};

/* Category flags. */
#define TDR_CATEGORY_DERIVED (1u << 0) /* computed from other measured values */

struct tdr_wterm;

/*
 * One ratio of two linear combinations of member deltas: sum(num) / sum(den).
 * A factor of the product form may also hold weighted terms (files of minor
 * 5), each coef * delta(event) * (its weight ratio), added to its side:
 * sum(num) + sum(wnum) over sum(den) + sum(wden).
 */
struct tdr_ratio {
	size_t num_cnt;
	struct tdr_term *num;
	size_t den_cnt;
	struct tdr_term *den;
	size_t wnum_cnt;
	struct tdr_wterm *wnum;
	size_t wden_cnt;
	struct tdr_wterm *wden;
};

/* A weighted term: coef * delta(event_idx) * sum(w.num) / sum(w.den), the
 * weight a plain ratio (no weighted terms of its own). Skylake-SP's memory
 * bound has retiring = retire slots / (W * cycles) as the weight of a
 * denominator term (docs/format.md section 5.2). */
struct tdr_wterm {
	uint32_t event_idx;
	double coef;
	struct tdr_ratio w;
};

/* Caps of the product form (docs/format.md section 5.2, since 1.3). */
#define TDR_CATEGORY_MAX_PARTS 16
#define TDR_CATEGORY_MAX_FACTORS 3

/* One part of the product form: the product of factor_cnt ratios. */
struct tdr_part {
	size_t factor_cnt; /* 1 .. TDR_CATEGORY_MAX_FACTORS */
	struct tdr_ratio factors[TDR_CATEGORY_MAX_FACTORS];
};

/*
 * A TopDown category, in one of two forms (docs/format.md section 5.2).
 * Linear (part_cnt 0): value = sum(num) / sum(den), not clamped.
 * Metric-register plans use num = {topdown-X, 1}, den = {slots, 1}; derived
 * level-2 categories subtract (light-ops = retiring - heavy-ops);
 * generic-counter plans use coefficients (AMD bad speculation =
 * (dispatched - retired) / (6 * cycles)).
 * Product (part_cnt > 0, num and den empty; files of minor 3): value = the
 * sum over parts of the product of each part's ratios, each ratio a ratio
 * of sums (Arm retiring = OP_RETIRED/OP_SPEC * (8*CYCLES -
 * STALL_SLOT)/(8*CYCLES); AMD memory bound = backend_stalls/(6*cycles) *
 * load_not_complete/not_complete). Its ratios may hold weighted terms
 * (struct tdr_wterm; files of minor 5): Skylake-SP memory bound.
 */
struct tdr_category {
	char *name;   /* "retiring", "bad-spec", "fe-bound", "be-bound", "heavy-ops", ... */
	char *parent; /* level-1 parent for level 2, NULL for level 1 */
	uint32_t level;
	uint32_t flags; /* TDR_CATEGORY_* */
	size_t num_cnt;
	struct tdr_term *num;
	size_t den_cnt;
	struct tdr_term *den;
	size_t part_cnt;
	struct tdr_part *parts;
};

/* Release what c points to and zero it (c itself is not freed). */
TDR_API void tdr_category__clear(struct tdr_category *c);
/* Whether c has a weighted term (the product form with WPART items,
 * docs/format.md section 5.2, minor 5). */
TDR_API bool tdr_category__weighted(const struct tdr_category *c);
/* Deep copy of src into dst (dst is overwritten; clear it with
 * tdr_category__clear). Returns 0 or -ENOMEM (dst then holds nothing). */
TDR_API int tdr_category__copy(struct tdr_category *dst, const struct tdr_category *src);
/* Whether c is linear and has a denominator (its den is a row's slots). */
TDR_API bool tdr_category__linear(const struct tdr_category *c);
/* Every event index c names is below event_cnt (and every coefficient is
 * finite). */
TDR_API bool tdr_category__valid(const struct tdr_category *c, size_t event_cnt);

/* Recording flags (struct tdr_meta.flags). */
#define TDR_META_INHERIT (1u << 0)     /* groups inherited by child threads/processes */
#define TDR_META_SYSTEM_WIDE (1u << 1) /* -a */
#define TDR_META_ATTACHED (1u << 2)    /* -p: attached to running processes */
#define TDR_META_KERNEL (1u << 3)      /* kernel samples included */

struct tdr_meta {
	char *tdrec_version;
	size_t argc; /* tdrec's own command line */
	char **argv;
	char *hostname;
	char *kernel_release;
	char *boot_id; /* /proc/sys/kernel/random/boot_id, to know if kallsyms apply */
	char *cpu_vendor; /* "GenuineIntel" */
	char *cpu_model_name;
	uint32_t cpu_family, cpu_model, cpu_stepping;
	uint32_t page_sz;
	uint32_t nr_cpus; /* CPUs online when recording */
	char *plan_name;  /* "topdown-l2", "topdown-l1", "software", ... */
	uint32_t flags;	  /* TDR_META_* */
	int32_t clockid;  /* attr.clockid of the sample times, -1 = perf's default clock */
	uint64_t start_wall_ns;	 /* CLOCK_REALTIME at start */
	uint64_t start_clock_ns; /* the sample clock at the same moment */
	uint64_t sample_period;	 /* 0 when sampling by frequency */
	uint64_t sample_freq;	 /* 0 when sampling by period */
	size_t event_cnt;
	struct tdr_event_desc *events;
	size_t category_cnt;
	struct tdr_category *categories;
	size_t note_cnt; /* human-readable notes: plan fallbacks, unmeasured CPUs, ... */
	char **notes;
};

/* Release everything meta owns and zero it; meta itself is not freed. */
TDR_API void tdr_meta__clear(struct tdr_meta *meta);

/* Deep copy (caller owns dst, clear it with tdr_meta__clear). Returns 0 or -ENOMEM. */
TDR_API int tdr_meta__copy(struct tdr_meta *dst, const struct tdr_meta *src);

/*
 * Add the TopDown categories that fit the events of meta, found by event name:
 * the formulas of the first family of the TopDown table (tdrec/topdown.h,
 * best first) whose events meta has all of, resolved to meta's event
 * indexes (level 1 retiring, bad-spec, fe-bound, be-bound over slots with
 * slots and the four level-1 metrics; the eight level-2 categories too with
 * the four level-2 metrics). Used by the recorder's plans and by perf.data
 * import, so the formulas exist once. Categories already present are kept;
 * nothing is added for a plan without TopDown events.
 * Returns: the number of categories added, -ENOMEM, or -ENOENT when a
 * formula of the table names an unknown category (a table bug).
 */
TDR_API int tdr_meta__add_topdown_categories(struct tdr_meta *meta);

struct tdr_td_family;

/*
 * The same with the formulas of family f, whose events meta must have all
 * of (else nothing is added), each per-width coefficient multiplied by
 * width (0: the family's; a plan passes the W it resolved from a .scale).
 * For plans and imports that know their family: Zen 4 and Zen 5 (or
 * Crestmont and Skymont) have the same event names and other widths.
 * Same returns.
 */
TDR_API int tdr_meta__add_family_categories(struct tdr_meta *meta, const struct tdr_td_family *f,
					    uint32_t width);

/*
 * The same over the events of core PMU pmu only (pmu_name), found by their
 * names without a "pmu/.../" qualification ("cpu_atom/cycles/" is
 * "cycles"), and added even when a category of the same key exists: a
 * hybrid plan stores one family per core PMU (docs/report.md "Core
 * types"). Same returns.
 */
TDR_API int tdr_meta__add_family_categories_on(struct tdr_meta *meta,
					       const struct tdr_td_family *f, uint32_t width,
					       const char *pmu);

/*
 * The value of category c for one vector of member deltas (deltas[i] belongs
 * to meta event i; event_cnt entries): sum(num) / sum(den), or for the
 * product form the sum over parts of the product of their ratios; each
 * ratio is taken of the deltas as given (a row's summed deltas: a ratio of
 * sums), as computed: a
 * formula that subtracts can give a value below 0 (a derived level-2
 * category whose measured child rounds above its parent; dispatched -
 * retired when the counters skid), and counters that do not add up to the
 * slots a value above 1. Neither is clamped: readers flag them
 * (tdr_category_out_of_range). Returns NAN when a denominator (any
 * factor's) is not positive, the value is not finite, or a term names an
 * event at or past event_cnt. The one
 * evaluation of the formulas above, for report/ and tdrec stat.
 */
TDR_API double tdr_category__value(const struct tdr_category *c, const uint64_t *deltas,
				   size_t event_cnt);

/* Is a category value outside [0, 1] (a fraction of slots no CPU can
 * have: noise, skid, or counters that do not add up)? false for NAN. */
TDR_API bool tdr_category_out_of_range(double v);

/* Run end and totals, written in the trailer at clean close. */
#define TDR_END_SIGNALLED (1u << 0)   /* the program died of term_signal */
#define TDR_END_INTERRUPTED (1u << 1) /* recording stopped by SIGINT/SIGTERM/SIGHUP */
#define TDR_END_WRITE_ERROR (1u << 2) /* recording stopped early on a write error */
#define TDR_END_NO_PROGRAM (1u << 3)  /* no program was launched (-p, -a) */

struct tdr_run_end {
	uint64_t duration_ns;
	int32_t exit_code;   /* the program's exit code, when it exited */
	int32_t term_signal; /* the signal that killed it, when TDR_END_SIGNALLED */
	uint32_t flags;	     /* TDR_END_* */
};

/* Per-event totals, aligned with meta.events. */
struct tdr_event_totals {
	uint64_t samples;      /* PERF_RECORD_SAMPLE records of this event */
	uint64_t lost_samples; /* PERF_FORMAT_LOST at the end, 0 if not available */
	/* The event's count over the whole run, summed over every fd of it
	 * read when the recording ended (trailer item COUNTED, docs/format.md
	 * section 8.1), with the fds' time_enabled and time_running summed
	 * alike. Only meaningful when has_counted: a file written before
	 * format 1.2, by a recorder that was killed, or whose reads failed
	 * has none. */
	bool has_counted;
	uint64_t counted;
	uint64_t time_enabled_ns, time_running_ns;
};

struct tdr_totals {
	/* Counted by the writer from record headers: */
	uint64_t frames;
	uint64_t records;
	uint64_t samples;      /* PERF_RECORD_SAMPLE */
	uint64_t lost_records; /* PERF_RECORD_LOST records */
	uint64_t lost_samples; /* sum of their 'lost' fields (ring buffer full) */
	uint64_t throttles;
	uint64_t unthrottles;
	uint64_t raw_bytes;	   /* record bytes before compression */
	uint64_t compressed_bytes; /* frame payload bytes on disk */
	/* Given by the caller of tdr_writer__finish. Read from a file,
	 * event_cnt is what the file holds, normally meta.event_cnt but not
	 * guaranteed: index events[] only below event_cnt. */
	size_t event_cnt;
	struct tdr_event_totals *events;
};

/* ---------------------------------------------------------------------------
 * Optional sections (payload layouts in docs/format.md).
 */
enum tdr_section_type {
	TDR_SECTION_DSO_TABLE = 1, /* path, device, inode, build-id per mapped file */
	TDR_SECTION_KSYMS = 2,	   /* kernel symbols snapshot */
	TDR_SECTION_ARCHIVE = 3,   /* symbols of the sampled addresses (archive.h) */
	TDR_SECTION_REGIONS = 4,   /* a program's instrumented regions (regions_fmt.h) */
};

/* ---------------------------------------------------------------------------
 * The DSO table section (docs/format.md section 7.1): one entry per file
 * mapped executable during the recording, with the build-id the recorder
 * read from it at the end. Encoded in one go; decoded by an iterator that
 * checks every size against the data and never allocates:
 *
 *   struct tdr_dso_iter it;
 *   struct tdr_dso_entry e;
 *   err = tdr_dso_iter__init(&it, data, sz);
 *   while (!err && (err = tdr_dso_iter__next(&it, &e)) > 0)
 *           use(&e);          // e.path: e.path_len bytes inside data
 *   // err < 0: the table is damaged from entry it.idx on (the entries
 *   // before it were good); it.skipped entries had bad fields.
 */
#define TDR_DSO_PATH_MAX 4096	/* bytes of a path */
#define TDR_DSO_BUILD_ID_MAX 20 /* bytes of a build-id (the kernel's BUILD_ID_SIZE_MAX) */

/* The name of the kernel image among the mapped objects, as perf and tdrec
 * write it (perf.data calls the mapping "[kernel.kallsyms]_text"). */
#define TDR_KERNEL_DSO "[kernel.kallsyms]"

/* What the recorder learnt of a file at the end of the recording. */
enum tdr_dso_status {
	TDR_DSO_BUILD_ID = 0,	 /* build_id is the file's (the only status with one) */
	TDR_DSO_NO_BUILD_ID = 1, /* the mapped file was read: no usable build-id note */
	TDR_DSO_REPLACED = 2,	 /* no file at path with that device and inode any more */
	TDR_DSO_MODIFIED = 3,	 /* that inode, but changed after it was mapped */
	TDR_DSO_UNREADABLE = 4,	 /* the file could not be opened or read */
};

struct tdr_dso_entry {
	const char *path;  /* path_len bytes, no NUL among them (none needed after) */
	size_t path_len;   /* 1..TDR_DSO_PATH_MAX */
	uint32_t maj, min; /* device, as in the MMAP2 records */
	uint64_t ino;
	uint8_t status;	     /* enum tdr_dso_status; a reader may meet later values */
	uint8_t build_id_sz; /* 1..20 with TDR_DSO_BUILD_ID, else 0 */
	uint8_t build_id[TDR_DSO_BUILD_ID_MAX];
};

/*
 * Encode cnt entries as DSO table section data, in a new buffer (caller
 * frees *out, also for cnt 0).
 * Returns: 0, -EINVAL (an entry the format cannot hold: path_len 0 or above
 * TDR_DSO_PATH_MAX, a NUL in the path, build_id_sz above TDR_DSO_BUILD_ID_MAX,
 * or not 1..20 exactly with TDR_DSO_BUILD_ID; more than UINT32_MAX entries),
 * -ENOMEM.
 */
TDR_API int tdr_dso_table__encode(const struct tdr_dso_entry *ents, size_t cnt, void **out,
				  size_t *out_sz);

struct tdr_dso_iter {
	const uint8_t *data;
	size_t sz, pos;
	uint32_t cnt;	  /* entry_cnt of the table */
	uint32_t idx;	  /* index of the next entry */
	uint32_t skipped; /* entries with bad fields, left out */
};

/* Start reading DSO table data (borrowed: it must outlive the iterator).
 * Returns: 0, -TDR_E_CORRUPT (shorter than its 8-byte header, or entry_cnt
 * above what its size can hold). */
TDR_API int tdr_dso_iter__init(struct tdr_dso_iter *it, const void *data, size_t sz);

/* The next good entry. Returns: 1 with *e set (pointing into the data), 0
 * after the last entry, -TDR_E_CORRUPT when entry it->idx cannot be
 * delimited (its entry_sz is too small, not a multiple of 8, or runs past
 * the data): that entry and those after it are lost. */
TDR_API int tdr_dso_iter__next(struct tdr_dso_iter *it, struct tdr_dso_entry *e);

/* ---------------------------------------------------------------------------
 * Writer.
 */
struct tdr_writer;

struct tdr_writer_opts {
	const char *path; /* final file name */
	/* When true, write to "<path>.partial" and rename it to path only in
	 * a __finish that succeeds, so an existing file is never clobbered by
	 * an incomplete one (without __finish, after an error, or after
	 * __keep_partial the data stays under the .partial name). An existing
	 * "<path>.partial" (another writer's, running or killed) is never
	 * truncated: __open fails with -EEXIST. When false, write path
	 * directly. */
	bool atomic_replace;
	int zstd_level; /* 0 = default (3) */
	/* Frame codec: TDR_CODEC_RAW_ZSTD (0, the default) compresses the raw
	 * records; TDR_CODEC_COLUMNS (1) first splits sample records into
	 * predicted columns (docs/format.md section 6.1), several times
	 * smaller; TDR_CODEC_CHAINED (2) is codec 1 whose model and block 0
	 * carry across the frames of a ring (section 6.2), smaller again
	 * when frames are small. Frames without samples are always written
	 * with codec 0. */
	uint8_t codec;
	/* An ARCHIVE section (docs/format.md 7.2) will be added: the file
	 * header says minor 4. */
	bool archive;
};
#define TDR_CODEC_RAW_ZSTD 0
#define TDR_CODEC_COLUMNS 1
#define TDR_CODEC_CHAINED 2

/*
 * Create the file and write the file header and the metadata block.
 * meta is borrowed for the call only.
 * Returns: 0, -errno (open/write), -ENOMEM, -TDR_E_ZSTD, -TDR_E_LIMIT (meta
 * above the caps of docs/format.md section 10). On failure a file that was
 * created is removed again.
 */
TDR_API int tdr_writer__open(const struct tdr_writer_opts *opts, const struct tdr_meta *meta,
			     struct tdr_writer **out);

/*
 * Compress and append one frame: sz bytes of whole kernel records drained
 * from ring (a CPU number, or TDR_RING_SYNTHETIC for records tdrec made
 * itself). sz must be at most TDR_FRAME_MAX_RAW. Record headers are walked to
 * count records; a record that overruns the buffer (or whose size is below 8
 * or not a multiple of 8, the tdr_records__next rule) gives -TDR_E_CORRUPT
 * and nothing is written. sz == 0 writes nothing and returns 0. records need no
 * particular alignment.
 * Returns: 0, -errno (write: -ENOSPC on a full disk), -TDR_E_ZSTD, -TDR_E_LIMIT,
 * -ENOMEM, -EINVAL (after __finish).
 * After a write error the file still ends after the last complete frame (a
 * half-written block is cut off with ftruncate) and later calls may retry;
 * if even the cut fails, every later call returns the first error.
 */
#define TDR_RING_SYNTHETIC UINT32_MAX
#define TDR_FRAME_MAX_RAW (64u << 20)
TDR_API int tdr_writer__add_frame(struct tdr_writer *w, uint32_t ring, const void *records,
				  size_t sz);

/*
 * Append a frame read from another .tdr file as it is (its header src,
 * whose offset is ignored, and its comp_sz payload bytes, as
 * tdr_reader__load_frame_block gives them): no decoding, no encoding. The
 * TOTALS count its frame, records and bytes; what only its records tell
 * (samples, lost, throttles) the caller adds with __add_counts (e.g. the
 * source file's totals once all its frames are copied). Returns: as
 * __add_frame, and -EINVAL for an unknown codec, a raw size of 0 or above
 * TDR_FRAME_MAX_RAW, or a codec 1 frame into a writer not opened with
 * TDR_CODEC_COLUMNS (the file's minor would not announce it).
 */
struct tdr_frame_info;
struct tdr_record_counts;
TDR_API int tdr_writer__copy_frame(struct tdr_writer *w, const struct tdr_frame_info *src,
				   const void *payload);
/* Add record counts to the TOTALS (records itself excepted). */
TDR_API void tdr_writer__add_counts(struct tdr_writer *w, const struct tdr_record_counts *c);

/* Append an optional section (type: enum tdr_section_type), at most 1 GiB.
 * Same errors. */
TDR_API int tdr_writer__add_section(struct tdr_writer *w, uint32_t type, const void *data,
				    size_t sz);

/* Totals counted so far (frames, records, ...); events is NULL here. */
TDR_API const struct tdr_totals *tdr_writer__totals(const struct tdr_writer *w);

/* Bytes written to the file so far. */
TDR_API uint64_t tdr_writer__file_size(const struct tdr_writer *w);

/*
 * Write the trailer (index, totals with ev_totals of ev_cnt entries, run end),
 * flush and close the file, and rename it into place when atomic_replace
 * (unless __keep_partial was called).
 * Returns: 0 or -errno / -TDR_E_*. On failure the frames already written stay
 * readable under the .partial name; an existing file at path is untouched.
 */
TDR_API int tdr_writer__finish(struct tdr_writer *w, const struct tdr_event_totals *ev_totals,
			       size_t ev_cnt, const struct tdr_run_end *end);

/* The recording is incomplete though the writer saw no error (the caller's
 * own failure, e.g. a frame it could not hand over): __finish still writes
 * the trailer but leaves the file under its .partial name, and an existing
 * file at path untouched. Only meaningful with atomic_replace. */
TDR_API void tdr_writer__keep_partial(struct tdr_writer *w);

/* Free the writer. Without __finish, the file is closed as it is (readable up
 * to its last complete frame) and left under its current name. NULL is fine. */
TDR_API void tdr_writer__free(struct tdr_writer *w);

/* ---------------------------------------------------------------------------
 * Reader.
 */
struct tdr_reader;

struct tdr_frame_info {
	uint64_t offset;     /* of the frame block in the file */
	uint32_t ring;	     /* CPU, or TDR_RING_SYNTHETIC */
	uint8_t codec;	     /* TDR_CODEC_RAW_ZSTD or TDR_CODEC_COLUMNS */
	uint32_t raw_sz;     /* bytes after decompression */
	uint32_t comp_sz;    /* payload bytes in the file */
	uint32_t record_cnt; /* records in the frame */
	uint32_t link;	     /* codec 2: place in its ring's chain, 0 = first */
};

struct tdr_file_status {
	uint64_t file_sz;
	bool has_trailer;      /* closed cleanly */
	bool truncated;	       /* ends inside a block, or has no trailer */
	uint64_t intact_sz;    /* bytes up to the end of the last complete block */
	/* FRAME blocks listed (from the trailer index or the scan): the same as
	 * tdr_reader__frame_cnt, so a truncated file without trailer still
	 * says how many frames it holds. */
	uint64_t frame_cnt;
	/* Frame blocks found at open whose frame header was damaged; they are
	 * left out of the frame list. The reader is immutable after open, so
	 * frames that fail later in tdr_reader__load_frame (payload checksum,
	 * codec, sizes) are NOT counted here: callers count those themselves. */
	uint32_t bad_frames;
	uint16_t major, minor; /* format version of the file */
	/* perf.data: its records went out of step (a bad size, a type no
	 * perf writes) at intact_sz, in a file that was not cut: the rest
	 * cannot be read (perf cannot read it either). */
	bool damaged;
};

/* Decompression buffer, reusable across frames. Zero-initialise it; release
 * with tdr_frame_buf__release. data is valid until the next load or release. */
struct tdr_frame_buf {
	uint8_t *data;
	size_t sz;  /* valid bytes */
	size_t cap; /* allocated bytes */
	uint8_t *block;	  /* the frame's block as read from the file, private */
	size_t block_cap; /* allocated bytes of block */
	void *dctx; /* decompression context, private */
	void *codec; /* codec 1 decoder state, private */
};
TDR_API void tdr_frame_buf__release(struct tdr_frame_buf *buf);

/*
 * Open a .tdr file. Reads the header and metadata, then the trailer index if
 * present, else scans block headers up to the last complete frame. The file
 * stays open and is read with pread as frames are loaded, never mapped: the
 * memory held is one compressed frame per struct tdr_frame_buf.
 * Returns: 0, -errno, -TDR_E_NOTREG (a pipe or a device: frames are read by
 * offset),
 * -TDR_E_FORMAT (not a .tdr file), -TDR_E_VERSION (newer
 * major version), -TDR_E_CORRUPT / -TDR_E_TRUNCATED (header or metadata bad),
 * -TDR_E_LIMIT. A file truncated after its metadata opens fine: check
 * tdr_reader__status().
 */
TDR_API int tdr_reader__open(const char *path, struct tdr_reader **out);

TDR_API const struct tdr_meta *tdr_reader__meta(const struct tdr_reader *r);
TDR_API const struct tdr_file_status *tdr_reader__status(const struct tdr_reader *r);
/* Totals and run end from the trailer; NULL when the file has no trailer. */
TDR_API const struct tdr_totals *tdr_reader__totals(const struct tdr_reader *r);
TDR_API const struct tdr_run_end *tdr_reader__run_end(const struct tdr_reader *r);

TDR_API size_t tdr_reader__frame_cnt(const struct tdr_reader *r);
TDR_API const struct tdr_frame_info *tdr_reader__frame(const struct tdr_reader *r, size_t idx);

/*
 * Read frame idx, verify its checksum and decompress it into buf. Safe on
 * several threads at once, each with its own buf.
 * Returns: 0, -TDR_E_CORRUPT (checksum, codec or size mismatch, a record
 * overrunning the frame, headers changed since open), -TDR_E_TRUNCATED
 * (the file has become shorter than the frame's end since open: it was
 * truncated or overwritten while read), -TDR_E_ZSTD, -ENOMEM, -EINVAL
 * (idx), -errno (a read error).
 */
TDR_API int tdr_reader__load_frame(const struct tdr_reader *r, size_t idx,
				   struct tdr_frame_buf *buf);
/* Read frame idx's block and verify its checksum (as __load_frame),
 * without decompressing: *payload is its comp_sz payload bytes (after the
 * frame header), in buf until its next load. For copying a frame as it
 * is (tdr_writer__copy_frame). Same errors, no -TDR_E_ZSTD. */
TDR_API int tdr_reader__load_frame_block(const struct tdr_reader *r, size_t idx,
					 struct tdr_frame_buf *buf, const void **payload);

/* Find an optional section (the first of that type), read it on the first
 * call (kept by the reader for the next ones) and verify its checksum.
 * Returns 0 and sets data/sz (borrowed, valid while r lives; data is 8-byte
 * aligned), -ENOENT, -TDR_E_CORRUPT, -TDR_E_TRUNCATED (the file shrank
 * since open), -ENOMEM or -errno. Not to be called from two threads at
 * once (__load_frame may run meanwhile). */
TDR_API int tdr_reader__section(const struct tdr_reader *r, uint32_t type, const void **data,
				size_t *sz);

TDR_API void tdr_reader__free(struct tdr_reader *r);

/* Walking the records of a buffer (struct tdr_record_iter,
 * tdr_records__next) and reading their bodies: tdrec/records.h. */

#endif /* TDREC_FORMAT_H */
