/*
 * tests/support/synth.h - write kernel-format perf records for tests.
 *
 * Responsibility: build PERF_RECORD_* records byte for byte as the kernel
 * lays them out for a given perf_event_attr (SAMPLE with the READ group,
 * MMAP/MMAP2, COMM, FORK, EXIT, LOST, LOST_SAMPLES, THROTTLE/UNTHROTTLE,
 * sample_id trailers when attr.sample_id_all), appended to a growable
 * buffer; plus a helper that adds events to a struct tdr_meta. Test code
 * only: it aborts on allocation failure instead of returning errors.
 * Usage:
 *   struct synth_buf b = {0};
 *   size_t off = synth_sample(&b, &attr, &(struct synth_sample){ .ip = 0x1000, ... });
 *   const struct perf_event_header *h = synth_rec(&b, off);
 *   ... synth_buf_release(&b);
 * Every record is 8-byte aligned and its header.size is exact. Records are
 * host-endian, as in a kernel ring.
 */
#ifndef TDREC_TESTS_SYNTH_H
#define TDREC_TESTS_SYNTH_H

#include <linux/perf_event.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tdrec/format.h"

struct synth_buf {
	uint8_t *data;
	size_t sz, cap;
};

void synth_buf_reset(struct synth_buf *b);   /* sz = 0, keeps memory */
void synth_buf_release(struct synth_buf *b); /* frees; b is zeroed */
/* The record that starts at byte offset off. */
const struct perf_event_header *synth_rec(const struct synth_buf *b, size_t off);

/* The sample_id fields (written where attr.sample_type asks for them). */
struct synth_sid {
	uint32_t pid, tid;
	uint64_t time;
	uint64_t id; /* PERF_SAMPLE_ID and PERF_SAMPLE_IDENTIFIER */
	uint64_t stream_id;
	uint32_t cpu;
};

struct synth_sample {
	uint16_t misc; /* 0 means PERF_RECORD_MISC_USER */
	struct synth_sid sid;
	uint64_t ip, addr, period;
	/* PERF_SAMPLE_READ: nr entries (1 for the non-group form). */
	uint64_t time_enabled, time_running;
	size_t nr;
	const uint64_t *values;
	const uint64_t *ids;  /* per entry, when read_format has PERF_FORMAT_ID */
	const uint64_t *lost; /* per entry, when PERF_FORMAT_LOST; NULL = zeros */
	/* PERF_SAMPLE_CALLCHAIN and PERF_SAMPLE_RAW */
	size_t callchain_nr;
	const uint64_t *callchain;
	uint32_t raw_sz;
	const void *raw;
};

/* Each returns the byte offset of the new record in b. */
size_t synth_sample(struct synth_buf *b, const struct perf_event_attr *a,
		    const struct synth_sample *s);
/* MMAP2 (MMAP when mmap1 is true). build_id != NULL sets
 * PERF_RECORD_MISC_MMAP_BUILD_ID. misc adds cpumode bits (0 = user). */
size_t synth_mmap(struct synth_buf *b, const struct perf_event_attr *a, bool mmap1, uint16_t misc,
		  uint32_t pid, uint32_t tid, uint64_t addr, uint64_t len, uint64_t pgoff,
		  const char *filename, const uint8_t *build_id, uint8_t build_id_sz,
		  const struct synth_sid *sid);
/* MMAP2 with device and inode, and misc exactly as given (0 = user): a
 * test may set PERF_RECORD_MISC_MMAP_BUILD_ID on it, as the kernel leaks
 * it (docs/record.md "Build-ids"). */
struct synth_dev {
	uint32_t maj, min;
	uint64_t ino;
	uint32_t prot;
};
size_t synth_mmap2_dev(struct synth_buf *b, const struct perf_event_attr *a, uint16_t misc,
		       uint32_t pid, uint32_t tid, uint64_t addr, uint64_t len, uint64_t pgoff,
		       const struct synth_dev *dev, const char *filename,
		       const struct synth_sid *sid);
size_t synth_comm(struct synth_buf *b, const struct perf_event_attr *a, uint32_t pid, uint32_t tid,
		  const char *comm, bool exec, const struct synth_sid *sid);
/* FORK (exit false) or EXIT (exit true). */
size_t synth_task(struct synth_buf *b, const struct perf_event_attr *a, bool exit, uint32_t pid,
		  uint32_t ppid, uint32_t tid, uint32_t ptid, uint64_t time,
		  const struct synth_sid *sid);
size_t synth_lost(struct synth_buf *b, const struct perf_event_attr *a, uint64_t id,
		  uint64_t lost, const struct synth_sid *sid);
size_t synth_lost_samples(struct synth_buf *b, const struct perf_event_attr *a, uint64_t lost,
			  const struct synth_sid *sid);
/* THROTTLE (unthrottle false) or UNTHROTTLE. */
size_t synth_throttle(struct synth_buf *b, const struct perf_event_attr *a, bool unthrottle,
		      uint64_t time, uint64_t id, uint64_t stream_id, const struct synth_sid *sid);
/* Any record: header plus payload (padded to 8 bytes unless raw_size). */
size_t synth_raw(struct synth_buf *b, uint32_t type, uint16_t misc, const void *payload,
		 size_t sz);

/*
 * Append an event to meta (name and pmu copied). ids: id_cnt ids, the CPU
 * each was opened on (cpus NULL: UINT32_MAX, i.e. cpu -1) and the pid they
 * were opened for (UINT32_MAX: system-wide).
 * Returns the new event's index.
 */
size_t synth_meta_add_event(struct tdr_meta *meta, const char *name,
			    const struct perf_event_attr *a, uint32_t flags, uint32_t group_idx,
			    const uint64_t *ids, const uint32_t *cpus, uint32_t pid,
			    size_t id_cnt);

/* A sampling-read attr: sample_type and read_format as the recorder sets them
 * (IDENTIFIER|IP|TID|TIME|CPU|PERIOD|READ, GROUP|ID|ENABLED|RUNNING,
 * sample_id_all). */
void synth_attr_group(struct perf_event_attr *a, uint64_t period);

/* Give every event of meta (a plan's, which has none) one id: first_id
 * plus its index, opened on cpu for pid. */
void synth_meta_give_ids(struct tdr_meta *meta, uint64_t first_id, uint32_t cpu, uint32_t pid);

/*
 * One cumulative read of the group of meta's events [first, first + cnt)
 * (ids as synth_meta_give_ids gave them), sampled by its leader at ip:
 * sid gives pid, tid, time and cpu (its id is the leader's), the period
 * is period, time enabled and running are the sample's time.
 */
size_t synth_group_read(struct synth_buf *b, const struct tdr_meta *meta, size_t first,
			size_t cnt, uint64_t first_id, struct synth_sid sid, uint64_t ip,
			uint64_t period, const uint64_t *vals);

#endif /* TDREC_TESTS_SYNTH_H */
