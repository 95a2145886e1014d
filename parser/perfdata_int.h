/*
 * parser/perfdata_int.h - private state of the perf.data importer.
 *
 * Responsibility: what perfdata.c (header, attrs, feature sections -> meta)
 * and perfdata_read.c (data section, zstd, rounds -> tdr_parser__feed) share.
 * See: docs/kernel.md "perf.data files"; tools/perf/Documentation/perf.data-file-format.txt.
 */
#ifndef TDREC_PERFDATA_INT_H
#define TDREC_PERFDATA_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tdrec/cpuid.h"
#include "tdrec/format.h"

struct tdr_td_family;

/* perf_file_header (104 bytes; the old form is 72 bytes, without features). */
#define PD_HEADER_SZ 104
#define PD_HEADER_OLD_SZ 72
#define PD_PIPE_HEADER_SZ 16 /* pipe mode: magic and size only */
#define PD_MAGIC 0x32454c4946524550ULL /* "PERFILE2" read little-endian */

/* Feature bits (perf header.h). */
enum {
	PD_FEAT_BUILD_ID = 2,
	PD_FEAT_HOSTNAME = 3,
	PD_FEAT_OSRELEASE = 4,
	PD_FEAT_VERSION = 5,
	PD_FEAT_NRCPUS = 7,
	PD_FEAT_CPUDESC = 8,
	PD_FEAT_CPUID = 9,
	PD_FEAT_CMDLINE = 11,
	PD_FEAT_EVENT_DESC = 12,
	PD_FEAT_PMU_MAPPINGS = 16,
	PD_FEAT_GROUP_DESC = 17,
	PD_FEAT_COMPRESSED = 27,
};

/* User record types (perf event.h). */
enum {
	PD_REC_USER_FIRST = 64,
	PD_REC_HEADER_ATTR = 64,
	PD_REC_HEADER_TRACING_DATA = 66,
	PD_REC_HEADER_BUILD_ID = 67,
	PD_REC_AUXTRACE = 71,
	PD_REC_HEADER_FEATURE = 80,
	PD_REC_FINISHED_ROUND = 68,
	PD_REC_COMPRESSED = 81,
	PD_REC_COMPRESSED2 = 83,
	/* No perf writes a type from here on (PERF_RECORD_HEADER_MAX is 84 in
	 * perf 6.x; room left for new ones): a record that says so is out of
	 * step. */
	PD_REC_TYPE_END = 128,
};

/* Caps on what a hostile file can make us allocate. */
#define PD_MAX_ATTRS 4096
#define PD_MAX_IDS (1u << 22)
#define PD_MAX_PMUS 4096 /* a large server lists a few hundred (uncore) */
#define PD_MAX_ROUND (512u << 20)  /* bytes of records held for one round */
#define PD_RELEASE_STEP (4u << 20) /* hand back the read mapping in steps this big */

struct pd_ent {
	uint64_t time;
	uint64_t seq;
	size_t off; /* of the record in round[], or with PD_ENT_MAPPED in the data section */
};
/* An aligned record of the file's data section is not copied (pd_ent.off). */
#define PD_ENT_MAPPED ((size_t)1 << (sizeof(size_t) * 8 - 1))

/* One PMU_MAPPINGS entry: a PMU's type (attr.type) and its sysfs name. */
struct pd_pmu {
	uint32_t type;
	char *name;
};

struct perfdata {
	int fd;
	const uint8_t *map; /* the whole file, read-only */
	size_t sz;
	/* map's tdr_mapguard slot (-1: unguarded): a file that shrinks while
	 * it is read gives zeros past its new end, not SIGBUS. */
	int guard;
	bool warned_shrank;
	char *name; /* the file's name, for messages */
	uint64_t data_off, data_sz;
	/* The data section runs to the end of a cut file (perf record killed:
	 * data.size 0; or a copy cut short): a last record that does not fit
	 * is where the file ends, not damage. */
	bool data_to_eof;
	/* A pipe-mode file (perf record -o -): a 16-byte header, then records
	 * only; the data start at offset 16 and run to the end. */
	bool pipe;
	/* What tdr_parser__file_status reports for this file: truncated, and
	 * intact_sz up to the last whole record read. */
	struct tdr_file_status status;
	/* BUILD_ID feature payload, applied once the maps exist */
	uint64_t build_id_off, build_id_sz;
	char *perf_version;
	/* The CPUID header parsed (tdrec/cpuid.h); known false when the file
	 * has none or an unreadable one. cpuid_seen: the header was there. */
	struct tdr_cpuid cpuid;
	bool cpuid_seen;
	/* PMU_MAPPINGS: which PMU each attr.type is (cpu_core is 4 and
	 * cpu_atom a dynamic type such as 10 on hybrid parts). */
	struct pd_pmu *pmus;
	size_t pmu_cnt;
	/* The core PMU type generic hardware and raw events without an
	 * extended type count on: 0 for PERF_TYPE_RAW (4, "cpu" on x86); on
	 * arm64 the dynamic type of the file's one armv8_pmuv3 PMU. */
	uint32_t hw_type;
	/* A TopDown family whose W is the PMU's caps/slots (Arm), which a
	 * perf.data does not record: the table's W is used, and a note says
	 * so. NULL: none. */
	const struct tdr_td_family *width_from_table;
	/* one zstd stream for the whole file */
	void *zds;
	uint8_t *pend; /* decompressed bytes not yet a whole record */
	size_t pend_sz, pend_cap;
	/* records of the current round, 8-byte aligned copies */
	uint8_t *round;
	size_t round_sz, round_cap;
	struct pd_ent *ents;
	size_t ent_cnt, ent_cap;
	struct pd_ent *tmp; /* merge scratch, ent_cap entries */
	size_t tmp_cap;
	size_t round_held; /* bytes of the round's records, copied or in place */
	uint64_t seq, last_time;
	uint64_t compressed_records, rounds, user_records;
	bool warned_round, warned_zstd;
	/* The mapping below this file offset was handed back (release_read). */
	uint64_t released;
};

/* perfdata.c: did the file shrink while it was read (a mapped page past
 * its new end read as zeros)? Then the status says truncated where it
 * shrank, and one warning says so. */
bool tdr_parser_perfdata_shrank(struct perfdata *pd);

/* perfdata.c: a perf_header_string at base + *pos (end: the payload's
 * size), copied without control characters. 0, -TDR_E_CORRUPT, -ENOMEM. */
int tdr_parser_perfdata_read_str(const uint8_t *base, size_t *pos, size_t end, char **out);

/* perfdata.c: event i of m (m->events allocated) from an attr of abytes
 * bytes at raw and its id_cnt ids at ids. 0, -TDR_E_CORRUPT, -ENOMEM. */
int tdr_parser_perfdata_attr(struct tdr_meta *m, size_t i, const uint8_t *raw, uint64_t abytes,
			     const uint8_t *ids, uint64_t id_cnt);
/* perfdata.c: the feature section bit, sz bytes at off in the file. */
int tdr_parser_perfdata_feature(struct perfdata *pd, struct tdr_meta *m, int bit, uint64_t off,
				uint64_t sz);
/* perfdata.c: one perf_record_header_build_id record (sz >= 8). 0, -ENOMEM. */
int tdr_parser_perfdata_build_id(struct tdr_parser *p, const uint8_t *rec, size_t sz);

/* perfdata_pipe.c: the attrs and features of a pipe-mode file from its
 * HEADER_ATTR and HEADER_FEATURE records; sets the data section. */
int tdr_parser_perfdata_pipe_scan(struct perfdata *pd, struct tdr_meta *m, const char *name,
				  bool *have_groups);
/* perfdata_pipe.c: the bytes that follow the record rec of sz bytes in the
 * stream outside its size (HEADER_TRACING_DATA in pipe mode, AUXTRACE). */
uint64_t tdr_parser_perfdata_trailing(const struct perfdata *pd, const uint8_t *rec, size_t sz);

/* perfdata_td.c: PMU_MAPPINGS (payload b, end bytes) into pd->pmus, all
 * or nothing. 0, -TDR_E_CORRUPT, -ENOMEM. */
int tdr_parser_perfdata_pmu_mappings(struct perfdata *pd, const uint8_t *b, size_t end);
void tdr_parser_perfdata_pmus_free(struct perfdata *pd);
/* The core PMU type an attr counts on: a hardware event's extended type
 * (config bits 32-63), else pd->hw_type or PERF_TYPE_RAW (4, the core PMU
 * "cpu" or "cpu_core"); a raw event's likewise; a dynamic type as it is.
 * 0 for software, tracepoint and breakpoint events. */
uint32_t tdr_parser_perfdata_core_type(const struct perfdata *pd, const struct perf_event_attr *a);
/* The PMU name PMU_MAPPINGS gives type, or NULL. */
const char *tdr_parser_perfdata_pmu_name(const struct perfdata *pd, uint32_t type);
/* Event names, PMU names and TopDown categories of the file's events:
 * one TopDown family per core PMU (docs/parser.md "perf.data import"). */
int tdr_parser_perfdata_topdown(struct perfdata *pd, struct tdr_meta *m);

/* perfdata_read.c */
int tdr_parser_perfdata_read_data(struct tdr_parser *p, tdr_sample_fn cb, void *ctx);
/* Sort ents[0..n) by (time, seq) using tmp (n entries) as scratch; returns
 * the sorted array, ents or tmp. */
struct pd_ent *tdr_parser_perfdata_sort_ents(struct pd_ent *ents, struct pd_ent *tmp, size_t n);
void tdr_parser_perfdata_read_fini(struct perfdata *pd);

#endif /* TDREC_PERFDATA_INT_H */
