/*
 * tests/parser/pd_writer.h - write perf.data files for parser tests.
 *
 * Responsibility: lay out a perf.data file the way perf record does (file
 * form, "PERFILE2", 104-byte header): sample ids of each attr, the attrs
 * section, the data section, the feature table at data.offset + data.size
 * and the feature payloads (HOSTNAME, OSRELEASE, VERSION, CPUDESC, CPUID,
 * CMDLINE, EVENT_DESC, GROUP_DESC, BUILD_ID, PMU_MAPPINGS). examples/gen_topdown_examples.c
 * writes the shipped example files with it. The data can be written as perf -z does:
 * PDW_COMPRESSED (81) or COMPRESSED2 (83) records that are chunks of
 * ONE zstd stream, flushed every `chunk` input bytes so that records straddle
 * two compressed records, with each FINISHED_ROUND written uncompressed
 * between them. Test code only: it aborts on allocation failure.
 * See: docs/kernel.md "perf.data files"; perf's perf.data-file-format.txt.
 */
#ifndef TDREC_TESTS_PD_WRITER_H
#define TDREC_TESTS_PD_WRITER_H

#include <linux/perf_event.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct pdw_event {
	const char *name; /* EVENT_DESC name */
	struct perf_event_attr attr;
	const uint64_t *ids;
	size_t id_cnt;
};

struct pdw_group {
	const char *name; /* NULL: perf's "{anon_group}" is an empty string */
	uint32_t leader, nr;
};

struct pdw_build_id {
	const char *path;
	uint8_t id[20];
	uint8_t sz;
};

/* A PMU_MAPPINGS entry (hybrid parts: cpu_core 4, cpu_atom 10). */
struct pdw_pmu {
	uint32_t type;
	const char *name;
};

enum pdw_cut {
	PDW_COMPLETE = 0,
	/* perf record killed: data.size 0, features announced but not written */
	PDW_KILLED,
};

struct pdw_opts {
	const struct pdw_event *ev;
	size_t ev_cnt;
	const struct pdw_group *groups;
	size_t group_cnt;
	const char *hostname, *osrelease, *version, *cpuid, *cpudesc;
	/* Bytes per attr (attrs section and EVENT_DESC), attr.size set to it;
	 * 0: sizeof(struct perf_event_attr) of this build. */
	uint32_t attr_size;
	const char *const *argv;
	size_t argc;
	const struct pdw_build_id *bids;
	size_t bid_cnt;
	/* PMU_MAPPINGS, written when pmu_cnt or pmu_raw_sz is not 0; pmu_raw:
	 * the payload's bytes as they are (damaged ones for tests). */
	const struct pdw_pmu *pmus;
	size_t pmu_cnt;
	const uint8_t *pmu_raw;
	size_t pmu_raw_sz;
	/* 0: records as they are; PDW_COMPRESSED or PDW_COMPRESSED2 */
	uint32_t compress;
	size_t chunk; /* input bytes per compressed record (with compress) */
	enum pdw_cut cut;
	size_t cut_tail; /* bytes cut off the end of the file */
};

/* The user record types the writer knows (perf's event.h). */
#define PDW_FINISHED_ROUND 68
#define PDW_ID_INDEX 69
#define PDW_THREAD_MAP 73
#define PDW_CPU_MAP 74
#define PDW_TIME_CONV 79
#define PDW_COMPRESSED 81
#define PDW_FINISHED_INIT 82
#define PDW_COMPRESSED2 83

/*
 * Write path: the header, attrs and features from o, and the data section
 * from the records in data[0..sz) (kernel and perf user records, 8-byte
 * aligned). Returns the file's size.
 */
size_t pdw_write(const char *path, const struct pdw_opts *o, const uint8_t *data, size_t sz);

#endif /* TDREC_TESTS_PD_WRITER_H */
