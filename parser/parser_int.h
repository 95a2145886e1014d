/*
 * parser/parser_int.h - private structures shared by the parser's .c files.
 *
 * Responsibility: the decoder (id -> event map, per-event layouts, decoded
 * record shapes), the stream table, the address-space tracker, the thread
 * table and the parser object itself. Nothing here is visible outside parser/.
 * Objects and lifecycle: everything is owned by struct tdr_parser and freed by
 * tdr_parser__free; helpers follow *_init / *_fini pairs.
 * Invariants: decoded records point into the record buffer they came from
 * (no copies); mapping objects and interned strings live until the parser is
 * freed, so samples may keep pointers to them.
 * See: tdrec/records.h (record layouts), uapi perf_event.h; perf's
 * tools/perf/util/evsel.c __perf_evsel__calc_id_pos / calc_is_pos;
 * docs/kernel.md "Record layouts and sample ids".
 */
#ifndef TDREC_PARSER_INT_H
#define TDREC_PARSER_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "tdrec/parser.h"
#include "tdrec/tdr_arena.h"
#include "tdrec/tdr_hmap.h"
#include "tdrec/records.h"

/* Unaligned-safe host-endian loads from kernel records (records.h's). */
static inline uint64_t ld64(const uint8_t *p)
{
	return tdr_rec_ld64(p);
}

static inline uint32_t ld32(const uint8_t *p)
{
	return tdr_rec_ld32(p);
}

/* ---------------------------------------------------------------------------
 * Decoder (decode.c).
 */

/* Layout of one event's records, computed from its attr (tdrec/records.h
 * holds the field order; nothing here repeats it). */
struct ev_info {
	uint64_t sample_type;
	uint64_t read_format;
	bool sample_id_all;
	bool build_id; /* attr.build_id: its MMAP2 records may carry build-ids */
	uint32_t group;	    /* dense group number */
	uint32_t slot;	    /* position of the event in its group */
	uint32_t group_sz;  /* members in the event's group */
	uint32_t group_first; /* meta index of the group's first event */
	struct tdr_sample_layout sl; /* its SAMPLE records */
	struct tdr_user_layout ul;   /* their fields after RAW (call stacks) */
	bool user_stack;	     /* REGS_USER and STACK_USER: unwound offline */
	bool lbr_stack;		     /* BRANCH_STACK with the LBR call-stack filter */
	uint64_t regs_mask;	     /* attr.sample_regs_user */
	/* Its SAMPLE records hold only fields of known size (no CALLCHAIN, RAW
	 * or later field): a record of another size is damaged. */
	bool exact_size;
	/* Its SAMPLE records have the layout tdrec records (decode.c's
	 * FAST_SAMPLE_TYPE, a group read): read the short way. */
	bool fast;
	/* its sample_id trailer (sz 0 without sample_id_all) */
	struct tdr_sid_layout tl;
};

#define ID_RECENT 64 /* a power of two */
struct id_slot {
	uint64_t id;
	uint32_t ev1; /* meta event index + 1, 0 when empty */
};

struct tdr_decoder {
	size_t ev_cnt;
	struct ev_info *ev;
	struct tdr_u64map ids; /* kernel id -> meta event index */
	/* Where the id sits when the event is not known yet (perf id_pos/is_pos):
	 * u64 index in a SAMPLE body, and u64 index counted back from the end
	 * of other records (1 = last). -1 when no id is recorded. */
	int id_pos;
	int is_pos;
	/* Event used when an id is missing or unknown and every event has the
	 * same layout; -1 when layouts differ. */
	int dflt;
	/* u64 index of the time in a SAMPLE body when every event has the same
	 * layout with PERF_SAMPLE_TIME (tdr_decoder__time's short way), else -1. */
	int time_pos;
	bool any_build_id; /* some event has attr.build_id */
	/* Tests only: every sample the general way, to compare both ways. */
	bool no_fast;
	/* Direct-mapped cache of id -> event (ID_RECENT slots; the map's hash
	 * lookup per record showed in the profile). ids never change after
	 * init, so a slot is checked by id only. Written through this pointer
	 * by __decode, so a decoder is used by one thread at a time. */
	struct id_slot *recent;
};

/* Fields of the sample_id trailer, or the same fields of a SAMPLE
 * (struct tdr_sample_id's have bits). */
#define DEC_HAVE_TID TDR_SID_TID
#define DEC_HAVE_TIME TDR_SID_TIME
#define DEC_HAVE_ID TDR_SID_ID
#define DEC_HAVE_CPU TDR_SID_CPU
#define DEC_HAVE_STREAM_ID TDR_SID_STREAM_ID

struct dec_rec {
	uint32_t type;
	uint16_t misc;
	int ev;		/* meta event index, -1 when unknown */
	bool unknown_id; /* an id was recorded but matches no event */
	struct tdr_sample_id sid;
	union {
		struct {
			struct tdr_sample_rec sample;
			struct tdr_sample_user user; /* when the event's ul asks */
		};
		struct {
			uint32_t pid, tid;
			uint64_t addr, len, pgoff;
			uint32_t maj, min;
			uint64_t ino;
			uint32_t prot, flags;
			uint8_t build_id_sz; /* MMAP2 with the build-id flag, for an event with attr.build_id */
			const uint8_t *build_id;
			const char *filename;
		} mmap;
		struct {
			uint32_t pid, tid;
			const char *comm;
		} comm;
		struct {
			uint32_t pid, ppid, tid, ptid;
			uint64_t time;
		} task; /* FORK and EXIT */
		struct {
			uint64_t id, lost;
		} lost;
		struct {
			uint64_t lost;
		} lost_samples;
		struct {
			uint64_t time, id, stream_id;
		} throttle;
	};
};

/* Decode results besides 0. */
#define DEC_SKIP 1 /* a record type the parser does not use: skipped */

int tdr_decoder__init(struct tdr_decoder *d, const struct tdr_meta *meta);
void tdr_decoder__fini(struct tdr_decoder *d);
/* Decode one record of hdr->size bytes. Returns 0, DEC_SKIP or -TDR_E_CORRUPT. */
int tdr_decoder__decode(const struct tdr_decoder *d, const struct perf_event_header *hdr,
			struct dec_rec *out);
/* Timestamp of a record without a full decode. Returns true when it has one. */
bool tdr_decoder__time(const struct tdr_decoder *d, const struct perf_event_header *hdr,
		       uint64_t *time_ns);

/* ---------------------------------------------------------------------------
 * Streams (streams.c).
 */

/* Largest group whose samples are turned into deltas (kernel groups are far
 * smaller in practice; a TopDown L2 group has 10 members). */
#define TDR_MAX_GROUP 256
#define STREAM_RECENT 64 /* a power of two */
struct stream {
	uint64_t id;	  /* sampler id from the record */
	uint32_t x;	  /* tid, or cpu in system-wide mode */
	uint32_t ev;	  /* sampler's meta index */
	uint32_t ring;	  /* ring of the previous sample */
	uint32_t pending; /* bit per enum tdr_rebase_reason, applied at the next sample */
	/* The cached entry ids cover every member, entry j being group slot j
	 * (the kernel's order): a sample whose ids all match the cache takes
	 * the short way in tdr_parser_streams_sample. */
	bool in_order;
	uint64_t lost_seq; /* parser lost sequence at the previous sample */
	uint64_t time_enabled, time_running;
	uint64_t time_ns; /* sample time of the previous sample (have_time) */
	bool have_time;
	size_t pool_off; /* first of group_sz prev values, then group_sz ids, then events */
};

struct stream_tab {
	struct stream *s;
	size_t cnt, cap;
	struct tdr_hmap index; /* (id, x) -> index into s */
	uint64_t *pool;
	size_t pool_cnt, pool_cap;
	size_t last; /* last-hit cache, index into s or SIZE_MAX */
	/* Direct-mapped cache of recent streams (index + 1, 0 when empty):
	 * samples of a few threads interleave, so one last hit is not enough
	 * and a hash lookup per sample showed in the profile. Streams are
	 * never removed, so an entry stays valid; it is checked by key. */
	uint32_t recent[STREAM_RECENT];
	/* Lost sequence numbers: each LOST record bumps seq and stamps its ring. */
	uint64_t lost_seq;
	uint64_t lost_any_seq; /* LOST records whose ring is unknown */
	/* The first sample time seen: a stream's first delta counts from
	 * about then (tdr_parser_streams_sample's plausibility check). */
	uint64_t origin_ns;
	bool have_origin;
	uint64_t *ring_lost_seq;
	size_t ring_cap;
};

struct tdr_parser; /* forward */

void tdr_parser_streams_fini(struct stream_tab *t);
/* A LOST record on ring (TDR_RING_SYNTHETIC when unknown). Returns 0 or -ENOMEM. */
int tdr_parser_streams_lost(struct stream_tab *t, uint32_t ring);
/* THROTTLE/UNTHROTTLE for sampler id; x is the tid/cpu, UINT32_MAX when unknown. */
void tdr_parser_streams_throttle(struct stream_tab *t, uint64_t id, uint32_t x);
/*
 * Compute the deltas of one decoded sample into p->deltas. Returns 1 when
 * the sample is to be delivered, 0 when it re-based its stream or carried no
 * values, -ENOMEM.
 */
int tdr_parser_streams_sample(struct tdr_parser *p, uint32_t ring, const struct dec_rec *r,
			      bool *first);

/* ---------------------------------------------------------------------------
 * Strings and address spaces (maps.c).
 */
struct build_id {
	uint8_t id[20];
	uint8_t sz;
	bool has_dev; /* for the file with this device and inode only */
	uint32_t maj, min;
	uint64_t ino;
	uint32_t next; /* an older one for the same path, TDR_HMAP_NONE at the end */
};

struct space {
	uint32_t pid;
	size_t cnt, cap;
	const struct tdr_mapping **maps; /* sorted by start, non-overlapping */
	size_t last;			 /* last-hit cache */
};

struct maps {
	struct tdr_intern strs;
	struct tdr_arena mem;		   /* every tdr_mapping, freed at the end only */
	struct tdr_mapping **all;	   /* each of them, in creation order */
	size_t all_cnt, all_cap;
	struct tdr_u64map pids;	  /* pid -> index into spaces */
	struct space **spaces;
	size_t space_cnt, space_cap;
	struct space *last_space;
	struct space kernel; /* kernel and module mappings (pid -1, cpumode kernel) */
	struct tdr_mapping kernel_pseudo;
	struct tdr_u64map build_ids; /* interned path pointer -> index into bids */
	struct build_id *bids;
	size_t bid_cnt, bid_cap;
	/* pid -> index into all: the jit-PID.dump file the process mapped
	 * (a JIT's marker for perf, tools/perf/Documentation/jitdump-specification.txt). */
	struct tdr_u64map jitdumps;
};

int tdr_parser_maps_init(struct maps *m);
void tdr_parser_maps_fini(struct maps *m);
int tdr_parser_maps_mmap(struct maps *m, const struct dec_rec *r);
int tdr_parser_maps_fork(struct maps *m, uint32_t pid, uint32_t ppid);
void tdr_parser_maps_exec(struct maps *m, uint32_t pid);
void tdr_parser_maps_exit(struct maps *m, uint32_t pid);
/* Find the mapping of ip for pid; NULL when none. */
const struct tdr_mapping *tdr_parser_maps_find(struct maps *m, uint32_t pid, uint64_t ip,
					       enum tdr_cpumode mode);
/* Attach a build-id to every mapping of path (perf.data's BUILD_ID feature).
 * Mappings created later with that path get it too. Returns 0 or -ENOMEM. */
int tdr_parser_maps_set_build_id(struct maps *m, const char *path, const uint8_t *id, size_t sz);
/* The same for the mappings of path (len bytes) whose MMAP2 records had
 * this device and inode (the .tdr DSO table). */
int tdr_parser_maps_set_file_build_id(struct maps *m, const char *path, size_t len, uint32_t maj,
				      uint32_t min, uint64_t ino, const uint8_t *id, size_t sz);

/* ---------------------------------------------------------------------------
 * Threads (comm per tid).
 */
struct thread {
	uint32_t tid, pid;
	const char *comm;
};

#define THREAD_RECENT 64 /* a power of two */
struct threads {
	struct tdr_u64map idx;
	struct thread *t;
	size_t cnt, cap;
	size_t last;
	/* Direct-mapped cache by tid (index + 1, 0 when empty), as the
	 * streams' one: threads are never removed, so a hit is checked by tid. */
	uint32_t recent[THREAD_RECENT];
};

/* ---------------------------------------------------------------------------
 * The parser.
 */
struct perfdata; /* perfdata_int.h */

struct tdr_parser {
	struct tdr_meta meta;
	enum tdr_source_kind source;
	struct tdr_decoder dec;
	struct stream_tab streams;
	struct maps maps;
	struct threads threads;
	struct tdr_parse_stats stats;
	uint64_t *deltas; /* meta.event_cnt scratch entries */
	uint64_t *cur;	  /* scratch: this sample's values by group slot */
	uint32_t *cur_ev; /* scratch: meta index per group slot */
	/* 1 for a clock event (cpu-clock, task-clock: nanoseconds, which
	 * cannot move faster than time), else 0; by meta index (streams.c's
	 * plausibility check, one byte load per member and sample) */
	uint8_t *ev_clock;
	struct tdr_frame *frames; /* scratch: this sample's callers (callchain.c) */
	size_t frame_cap;
	/* User stack copies (--call-graph dwarf): the caller's unwinder. */
	tdr_unwind_fn unwind;
	void *unwind_ctx;
	uint64_t *pcs; /* scratch: TDR_UNWIND_MAX_PCS */
	/* The place in the file of the record being fed (run.c; .tdr only),
	 * for the stacks the file's archive stores (callchain.c). */
	bool rec_pos;
	uint64_t rec_frame;
	uint32_t rec_ord;
	bool stored_stacks; /* the archive's stacks part fits the file's frames */
	struct tdr_sample_stack ustack; /* the delivered sample's user stack */
	bool system_wide;
	/* ids of fds that count on every CPU (opened with cpu -1) or that are
	 * system-wide: only there does time_running < time_enabled mean
	 * multiplexing (a per-CPU task event also shows it after a migration). */
	struct tdr_u64map id_everywhere;
	/* File sources (run.c, perfdata.c); source_fini releases them. */
	void (*source_fini)(struct tdr_parser *p);
	struct tdr_reader *reader;
	struct perfdata *pd;
	struct tdr_archive *archive; /* the file's ARCHIVE section, NULL when none */
	tdr_record_tap_fn tap;	     /* tdr_parser__set_tap */
	void *tap_ctx;
	bool ran;
};

/* Set up everything that depends on p->meta (decoder, scratch). */
int tdr_parser_setup(struct tdr_parser *p);
/* Frames loaded on a helper thread (preload.c): one slot per ring, at most
 * one job in flight per slot; __wait returns tdr_reader__load_frame's result. */
struct preload;
int tdr_parser_preload__new(const struct tdr_reader *r, size_t slot_cnt, struct preload **out);
void tdr_parser_preload__submit(struct preload *pl, size_t slot, size_t frame,
				struct tdr_frame_buf *buf);
int tdr_parser_preload__wait(struct preload *pl, size_t slot);
void tdr_parser_preload__free(struct preload *pl);

/* A sample's callers from its PERF_SAMPLE_CALLCHAIN (callchain.c) into
 * p->frames: sets s->frames and s->frame_cnt. Returns 0 or -ENOMEM. */
int tdr_parser_callchain(struct tdr_parser *p, const struct dec_rec *r, struct tdr_sample *s);

/* perf.data files (perfdata.c): open fills p->meta and p->pd, sets up the
 * parser and its source_fini; tdr_parser_perfdata_read_data (perfdata_int.h) feeds. */
/* perfdata.c: a perf.data file (either form) on fd, which it takes
 * (closed on failure too); name is for messages. */
int tdr_parser_perfdata_open(struct tdr_parser *p, int fd, const char *name);
/* perfdata_pipe.c: the whole of a pipe (fd, taken) copied into an
 * anonymous memory file, *out its descriptor, read from offset 0. */
int tdr_parser_spool(int fd, const char *name, int *out);

#endif /* TDREC_PARSER_INT_H */
