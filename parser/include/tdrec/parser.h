/*
 * parser/include/tdrec/parser.h - from kernel records to attributed samples.
 *
 * Responsibility: decode the records of a .tdr file or a perf.data file (given
 * each event's perf_event_attr), keep per-stream group reads and compute each
 * sample's delta vector, track every process's address space, and hand out
 * attributed samples through a callback. This is the only interface report/
 * uses; the parser never symbolizes and never prints.
 * Objects and lifecycle:
 *   files:  tdr_parser__open -> __run (once) -> __stats -> __free
 *   direct: tdr_parser__new(meta) -> __feed (repeat, in time order) -> __free
 * Ownership and threads: one parser per thread. Everything a sample points to
 * (mapping, comm, deltas) is borrowed: deltas and comm are valid during the
 * callback only, mappings until the parser is freed.
 * See: docs/parser.md; docs/report.md "Attribution"; docs/kernel.md "Group reads in samples".
 */
#ifndef TDREC_PARSER_H
#define TDREC_PARSER_H

#include <linux/perf_event.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tdrec/tdr_api.h"
#include "tdrec/format.h"

struct tdr_parser;

/* Where an IP is (from header.misc & PERF_RECORD_MISC_CPUMODE_MASK). */
enum tdr_cpumode {
	TDR_MODE_UNKNOWN = 0,
	TDR_MODE_KERNEL,
	TDR_MODE_USER,
	TDR_MODE_HYPERVISOR,
	TDR_MODE_GUEST_KERNEL,
	TDR_MODE_GUEST_USER,
};

enum tdr_map_kind {
	TDR_MAP_FILE = 0, /* a file-backed mapping: path is a file */
	TDR_MAP_ANON,	  /* //anon, [heap], [stack], JIT memory */
	TDR_MAP_VDSO,	  /* [vdso] */
	TDR_MAP_KERNEL,	  /* [kernel.kallsyms] and kernel modules */
};

/* One mapping of a process's address space (from MMAP/MMAP2 records). */
struct tdr_mapping {
	const char *path;
	enum tdr_map_kind kind;
	uint64_t start, len, pgoff;
	uint32_t maj, min; /* device, MMAP2 without build-id only */
	uint64_t ino;
	uint32_t prot, flags;
	uint8_t build_id_sz; /* 0 when unknown */
	uint8_t build_id[20];
};

struct tdr_sample {
	uint64_t time_ns;
	uint32_t cpu;
	uint32_t pid, tid;
	uint64_t ip;
	enum tdr_cpumode cpumode;
	/* Mapping that contains ip, NULL when none is known. */
	const struct tdr_mapping *map;
	/* ip - map->start + map->pgoff: the offset of ip in the mapped file. */
	uint64_t map_off;
	const char *comm;     /* the thread's name, "" when unknown */
	uint32_t sampler_idx; /* meta event index of the event that sampled */
	uint64_t period;
	/* Delta of every event since this stream's previous sample, aligned with
	 * meta->events (event_cnt entries); 0 for events outside this sample's
	 * group. The first sample of a stream carries the counts since the
	 * counters started. */
	const uint64_t *deltas;
	bool first_in_stream;
};

/* Return 0 to continue, a negative code to stop __run/__feed with that code. */
typedef int (*tdr_sample_fn)(const struct tdr_sample *s, void *ctx);

/* Why a stream's baseline was reset (its sample's delta dropped). */
enum tdr_rebase_reason {
	TDR_REBASE_BACKWARDS = 0, /* a member's value went down */
	TDR_REBASE_LOST,	  /* a PERF_RECORD_LOST on the stream's ring */
	TDR_REBASE_THROTTLE,	  /* the sampler was throttled since the last sample */
	TDR_REBASE_NOT_RUNNING,	  /* the group was not running (time_running did not move) */
	TDR_REBASE_REASON_CNT,
};

struct tdr_parse_stats {
	uint64_t records;
	uint64_t samples;	    /* SAMPLE records decoded */
	uint64_t samples_delivered; /* handed to the callback */
	uint64_t unknown_records;   /* record types skipped */
	uint64_t malformed_records; /* bounds check failed: skipped */
	uint64_t unknown_ids;	    /* samples (or group entries) whose id matches no event */
	uint64_t lost_records;	    /* PERF_RECORD_LOST */
	uint64_t lost_samples;	    /* sum of their lost fields */
	uint64_t lost_samples_pmu;  /* PERF_RECORD_LOST_SAMPLES sums */
	uint64_t throttles, unthrottles;
	uint64_t first_samples; /* samples that opened a stream */
	uint64_t rebases[TDR_REBASE_REASON_CNT];
	uint64_t multiplexed_samples; /* time_running < time_enabled */
	uint64_t unmapped_samples;    /* user-mode IP in no known mapping */
	/* Samples whose deltas no counter could reach in the time since the
	 * stream's previous sample (a damaged file, e.g. a flipped bit in a
	 * perf.data, which has no checksums): not attributed, the stream
	 * re-based (docs/parser.md "Plausibility"). */
	uint64_t implausible_samples;
	uint64_t streams;
	uint64_t bad_frames; /* frames that could not be read (checksum, codec) */
	/* The .tdr DSO table (docs/format.md 7.1): entries read, those with a
	 * build-id (given to the mappings of that file), and entries lost to
	 * damage (1 for a table unreadable as a whole). */
	uint64_t dso_entries, dso_build_ids, dso_damaged;
};

/* What kind of file a parser reads. */
enum tdr_source_kind {
	TDR_SOURCE_TDR = 0,
	TDR_SOURCE_PERF_DATA,
	TDR_SOURCE_DIRECT, /* tdr_parser__new + __feed */
};

/*
 * Open a .tdr file or a perf.data file (told apart by magic) and build the
 * metadata (for perf.data: events, names, attrs and ids from the header and
 * feature sections; TopDown categories by event name).
 * Returns: 0, -errno, -TDR_E_FORMAT, -TDR_E_VERSION, -TDR_E_CORRUPT, ...
 */
TDR_API int tdr_parser__open(const char *path, struct tdr_parser **out);

/*
 * A parser for records fed by the caller (tests, live use). meta is copied.
 * Returns: 0 or -ENOMEM.
 */
TDR_API int tdr_parser__new(const struct tdr_meta *meta, struct tdr_parser **out);

/*
 * Decode one record (hdr->size bytes) and call cb for a sample. ring is the
 * ring (CPU) the record came from, for LOST handling; TDR_RING_SYNTHETIC when
 * unknown. Records must come in time order per ring and, for correct deltas,
 * in time order per stream. Returns: 0, or what cb returned.
 */
TDR_API int tdr_parser__feed(struct tdr_parser *p, uint32_t ring,
			     const struct perf_event_header *hdr, tdr_sample_fn cb, void *ctx);

/*
 * Read every record of the opened file in time order (merging rings by
 * timestamp) and call cb for every attributed sample. Unreadable frames are
 * counted in stats and skipped. Returns: 0, what cb returned, or -errno.
 */
TDR_API int tdr_parser__run(struct tdr_parser *p, tdr_sample_fn cb, void *ctx);

TDR_API const struct tdr_meta *tdr_parser__meta(const struct tdr_parser *p);
TDR_API const struct tdr_parse_stats *tdr_parser__stats(const struct tdr_parser *p);
TDR_API enum tdr_source_kind tdr_parser__source(const struct tdr_parser *p);
/* File status of a .tdr or perf.data file (NULL for a direct parser). For
 * perf.data, truncated means the file was cut (perf record killed, or a copy
 * cut short) and intact_sz is final after __run: the end of the last whole
 * record; major/minor are 0. Totals and run end exist for .tdr files with a
 * trailer only (NULL otherwise). */
TDR_API const struct tdr_file_status *tdr_parser__file_status(const struct tdr_parser *p);
TDR_API const struct tdr_totals *tdr_parser__totals(const struct tdr_parser *p);
TDR_API const struct tdr_run_end *tdr_parser__run_end(const struct tdr_parser *p);

/* Name of a rebase reason, e.g. "counter went backwards". */
TDR_API const char *tdr_rebase_reason_name(enum tdr_rebase_reason r);

TDR_API void tdr_parser__free(struct tdr_parser *p);

#endif /* TDREC_PARSER_H */
