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
 * (mapping, comm, deltas, frames) is borrowed: deltas, comm and frames are
 * valid during the callback only, mappings until the parser is freed.
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

/* Where an address lies, from its CPU mode and mapping: the rule every
 * consumer (report rows, the archive, exports) classifies addresses by. */
enum tdr_addr_place {
	TDR_PLACE_FILE = 0,   /* a file-backed mapping: look up by file offset */
	TDR_PLACE_KERNEL,     /* kernel mode or a kernel mapping: by address */
	TDR_PLACE_VDSO,	      /* [vdso]: by offset in its image */
	TDR_PLACE_ANON,	      /* anonymous memory (JIT code): by address */
	TDR_PLACE_UNMAPPED,   /* a user address in no known mapping */
	TDR_PLACE_HYPERVISOR, /* the hypervisor */
	TDR_PLACE_GUEST,      /* a guest's kernel or user code */
};

static inline enum tdr_addr_place tdr_addr_place(enum tdr_cpumode mode,
						 const struct tdr_mapping *map)
{
	if (mode == TDR_MODE_HYPERVISOR)
		return TDR_PLACE_HYPERVISOR;
	if (mode == TDR_MODE_GUEST_KERNEL || mode == TDR_MODE_GUEST_USER)
		return TDR_PLACE_GUEST;
	if (mode == TDR_MODE_KERNEL || (map && map->kind == TDR_MAP_KERNEL))
		return TDR_PLACE_KERNEL;
	if (!map)
		return TDR_PLACE_UNMAPPED;
	if (map->kind == TDR_MAP_ANON)
		return TDR_PLACE_ANON;
	return map->kind == TDR_MAP_VDSO ? TDR_PLACE_VDSO : TDR_PLACE_FILE;
}

/*
 * One caller of a sample, from PERF_SAMPLE_CALLCHAIN (the PERF_CONTEXT_*
 * markers dropped). ip is the return address as the kernel gives it: who
 * symbolizes a caller looks up ip - 1 (tdr_symbolize_caller_addr).
 */
struct tdr_frame {
	uint64_t ip;
	enum tdr_cpumode cpumode;	/* from the last PERF_CONTEXT_* marker */
	const struct tdr_mapping *map;	/* NULL when unknown */
	uint64_t map_off;		/* as tdr_sample.map_off */
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
	/* The callers, innermost first, not including the sample's own ip;
	 * frame_cnt 0 without stacks. Valid during the callback only. */
	const struct tdr_frame *frames;
	uint32_t frame_cnt;
};

/*
 * A user stack copy to unwind (PERF_SAMPLE_REGS_USER + STACK_USER, i.e.
 * --call-graph dwarf), borrowed during the call: regs holds one u64 per
 * bit of mask (the attr's sample_regs_user), in bit order; stack the
 * stack_sz bytes copied from the stack pointer.
 */
struct tdr_user_stack {
	uint64_t mask;
	const uint8_t *regs;
	const uint8_t *stack;
	uint64_t stack_sz;
};
/* Most program counters one unwind may give (perf's default max stack + 1). */
#define TDR_UNWIND_MAX_PCS 128
/* Walk s's user stack into pcs (at most max): the user pc first, then each
 * caller's return address. Returns the count, or a negative code to stop
 * __run/__feed with it. */
typedef int (*tdr_unwind_fn)(void *ctx, const struct tdr_sample *s,
			     const struct tdr_user_stack *u, uint64_t *pcs, uint32_t max);

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
	uint64_t user_stacks;	      /* samples with a user stack copy (dwarf) */
	uint64_t user_stacks_unwound; /* of those, unwound to at least one caller */
	uint64_t user_stacks_stored;  /* of those, taken from the file's archive */
	/* Samples whose deltas no counter could reach in the time since the
	 * stream's previous sample (a damaged file, e.g. a flipped bit in a
	 * perf.data, which has no checksums): not attributed, the stream
	 * re-based (docs/parser.md "Plausibility"). */
	uint64_t implausible_samples;
	uint64_t streams;
	uint64_t bad_frames; /* frames that could not be read (checksum, codec) */
	/* .tdr frames past the file's end when they were read: the file shrank
	 * after it was opened (truncated, or overwritten by cp). */
	uint64_t truncated_frames;
	/* The .tdr DSO table (docs/format.md 7.1): entries read, those with a
	 * build-id (given to the mappings of that file), and entries lost to
	 * damage (1 for a table unreadable as a whole). */
	uint64_t dso_entries, dso_build_ids, dso_damaged;
	/* 1 when the file has an ARCHIVE section that is damaged and not used
	 * (docs/format.md 7.2). */
	uint64_t archive_damaged;
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

/*
 * Unwind user stack copies with fn (e.g. symbolize's tdr_unwinder, through
 * report/): their frames follow the callchain's in tdr_sample.frames.
 * Without one, a sample's stack copy is ignored (kernel frames only).
 * With one, a sample whose unwound stack the file's archive stores
 * (docs/format.md 7.2, "Stacks") takes it from there, and fn is called
 * only for the others: the stored stacks do not depend on the binaries on
 * disk.
 */
TDR_API void tdr_parser__set_unwinder(struct tdr_parser *p, tdr_unwind_fn fn, void *ctx);
/* The mapping of addr in process pid as the records so far describe it
 * (for an unwinder's objects), or NULL. */
TDR_API const struct tdr_mapping *tdr_parser__find_mapping(struct tdr_parser *p, uint32_t pid,
							   uint64_t addr);

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
/* The jitdump file (.../jit-PID.dump) process pid mapped, as a JIT does so
 * that perf sees it; NULL when none. Valid until __free. */
TDR_API const char *tdr_parser__jitdump(const struct tdr_parser *p, uint32_t pid);

/*
 * Call tap with every record, exactly as it is fed to the decoder (for a
 * perf.data file: after the per-round time sort, without perf's own
 * records), before it is decoded; a nonzero return stops __run with it.
 * For writing the records again (tdrec archive converts a perf.data into
 * a .tdr). Set before __run; NULL removes it.
 */
typedef int (*tdr_record_tap_fn)(void *ctx, const struct perf_event_header *hdr);
TDR_API void tdr_parser__set_tap(struct tdr_parser *p, tdr_record_tap_fn tap, void *ctx);

/* The symbols archived in the file (docs/format.md 7.2), decoded at open;
 * NULL when it has none or it is damaged (stats.archive_damaged). Borrowed:
 * valid until __free. */
struct tdr_archive;
TDR_API const struct tdr_archive *tdr_parser__archive(const struct tdr_parser *p);

/*
 * The user stack of the sample being delivered (valid during the sample
 * callback only): what the unwinder gave or the archive stored, pcs
 * innermost first (the user pc, then each return address); cnt 0 when the
 * sample had no stack copy or none was unwound. has_pos: the sample's
 * place in a .tdr file (frame index, ordinal among the frame's
 * PERF_RECORD_SAMPLE records), which names it in the archive's stacks.
 */
struct tdr_sample_stack {
	const uint64_t *pcs;
	uint32_t cnt;
	bool stored; /* from the file's archive, not unwound now */
	bool has_pos;
	uint64_t frame;
	uint32_t ord;
};
TDR_API const struct tdr_sample_stack *tdr_parser__sample_stack(const struct tdr_parser *p);

/* Name of a rebase reason, e.g. "counter went backwards". */
TDR_API const char *tdr_rebase_reason_name(enum tdr_rebase_reason r);

TDR_API void tdr_parser__free(struct tdr_parser *p);

#endif /* TDREC_PARSER_H */
