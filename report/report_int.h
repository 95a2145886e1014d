/*
 * report/report_int.h - the report's private structures, shared by its .c files.
 *
 * Responsibility: the string pool, the row table (rows keyed by interned
 * strings, with summed deltas), the address table (samples summed per unique
 * address before symbolization), the copied schema (events and category
 * formulas) and struct tdr_report itself. Nothing outside report/ sees these.
 * Invariants: every string in a row key is interned in the report's pool, so
 * two keys are equal exactly when their pointers are; sums of row i live at
 * sums[i * event_cnt].
 */
#ifndef TDREC_REPORT_INT_H
#define TDREC_REPORT_INT_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tdrec/report.h"
#include "tdrec/tdr_arena.h"
#include "tdrec/tdr_hmap.h"
#include "tdrec/tdr_json.h"
#include "tdrec/tdr_textout.h"

/* The report's rows and the diff's, as the renderers and the tests read
 * them (tdrec/report.h keeps the objects opaque). */
/* A row's identity. Unused fields are NULL/0. Strings are copied. */
struct tdr_row_key {
	const char *name;	  /* function, "[unknown] path", thread name, object path */
	const char *dso;	  /* object path, NULL when none */
	const char *inlined_into; /* TDR_BY_INLINE: the function the name is inlined into */
	const char *file;	  /* TDR_BY_LINE: source file, NULL when unknown */
	uint32_t line;
	uint32_t pid, tid; /* TDR_BY_THREAD / TDR_BY_PROCESS */
	uint32_t core;	   /* reports split by core type: 1 + its index, else 0 */
};

/* A finished row (or the totals). Borrowed from the report. */
struct tdr_report_row {
	const char *name;
	const char *dso;
	const char *inlined_into;
	const char *file;
	uint32_t line;
	uint32_t pid, tid;
	uint32_t core; /* reports split by core type: 1 + its index, else 0 */
	uint64_t samples;
	const uint64_t *events; /* summed deltas, one per meta event */
	double share;		/* fraction of the (filtered) samples, 0..1 */
	double slots_share;	/* fraction of all slots, NAN without TopDown */
	/* One fraction of the row's own slots per category (meta order), NAN
	 * where the row has no slots; NULL when the plan has no categories. */
	const double *topdown;
	/* --children: the row's own samples (samples, share and the rest are
	 * inclusive there); otherwise equal to samples and share. */
	uint64_t self_samples;
	double self_share;
	bool low_confidence; /* samples < min_samples */
	int bottleneck;	     /* level-1 category index, or -1 */
	int bottleneck_l2;   /* level-2 child of bottleneck above its threshold, or -1 */
};

/* The object a symbolizer is asked for: path, and map's build-id when it
 * has one (map may be NULL). */
static inline struct tdr_dso_ref tdr_report_dso_ref(const char *path,
						    const struct tdr_mapping *map)
{
	struct tdr_dso_ref ref = {.path = path};

	if (map && map->build_id_sz) {
		ref.build_id = map->build_id;
		ref.build_id_sz = map->build_id_sz;
	}
	return ref;
}

/* Where __resolve gets symbols: the real symbolizer, or a fake in tests. */
struct tdr_report_symbols {
	int (*lookup)(void *ctx, const struct tdr_dso_ref *dso, uint64_t file_off,
		      struct tdr_sym *out);
	int (*lookup_kernel)(void *ctx, uint64_t ip, struct tdr_sym *out);
	/* The offsets of dso that lookups will ask for, before they do
	 * (tdr_symbolizer__expect); NULL: none said. */
	int (*expect)(void *ctx, const struct tdr_dso_ref *dso, const uint64_t *file_offs,
		      size_t cnt);
	/* The compile unit of each offset and its size (tdr_symbolizer__units);
	 * NULL: unknown, as if every offset were in one unit. */
	int (*units)(void *ctx, const struct tdr_dso_ref *dso, const uint64_t *file_offs,
		     size_t cnt, uint64_t *unit, uint64_t *bytes);
	/* JIT code in anonymous memory of process pid: the function at ip,
	 * and in *source the file that named it (a perf map or jitdump).
	 * NULL: none looked up. */
	int (*lookup_jit)(void *ctx, uint32_t pid, uint64_t ip, struct tdr_sym *out,
			  const char **source);
	/* Why kernel symbols are not usable (tdr_symbolizer__kernel_why), or
	 * NULL; NULL function: not known. */
	const char *(*kernel_why)(void *ctx);
	void *ctx;
};

struct tdr_diff_side {
	uint64_t samples;
	double share;	       /* 0 when the function is absent on this side */
	const double *topdown; /* category fractions (OLD's order), NULL when not compared */
};

struct tdr_diff_row {
	const char *name;
	const char *dso;	  /* basename */
	const char *inlined_into; /* by inline: the function it is inlined into */
	struct tdr_diff_side old, new;
	double share_change;	      /* new.share - old.share */
	const double *topdown_change; /* per category, new - old (NAN if either has no slots) */
	bool only_old, only_new;
};

/* ---- string pool (strpool.c) --------------------------------------------- */

/* The report's strings: a tdr_intern (common/) with the report's NULL and
 * error conventions. A zeroed struct is empty. */
struct strpool {
	struct tdr_intern in;
};

/* Interned copy of s (NULL for NULL), or NULL with *err = -ENOMEM. */
const char *tdr_report_strpool__intern(struct strpool *p, const char *s, int *err);
void tdr_report_strpool__release(struct strpool *p);

/* A growable list of owned strings (the warnings of a report or a diff). A
 * zeroed struct is empty. */
struct strlist {
	char **v;
	size_t cnt, cap;
};

/* Append a formatted line (cut at 1 KiB). Returns 0 or -ENOMEM. */
int tdr_report_strlist__addf(struct strlist *l, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
int tdr_report_strlist__vaddf(struct strlist *l, const char *fmt, va_list ap)
    __attribute__((format(printf, 2, 0)));
/* Entry idx, or NULL past the end. */
const char *tdr_report_strlist__at(const struct strlist *l, size_t idx);
void tdr_report_strlist__release(struct strlist *l);

/* Is the sample in kernel code (its mode, or a kernel mapping)? */
static inline bool report_kernel_sample(const struct tdr_sample *s)
{
	return s->cpumode == TDR_MODE_KERNEL || (s->map && s->map->kind == TDR_MAP_KERNEL);
}

/* ---- the archive's addresses (archive.c) ----
 * Every distinct address the samples reference (IP, stack frames): a file
 * or vDSO mapping and the offset in its file, or a kernel address. */
struct tdr_report_arch_addr {
	const struct tdr_mapping *map; /* NULL for the kernel */
	uint64_t off;		       /* file offset, or kernel address */
	uint64_t hash;
	bool kernel;
	bool kept; /* its answer went into the archive (__resolve) */
};

/* One distinct unwound user stack (archive_stacks.c): its pcs and the
 * addresses (ents indexes, UINT32_MAX: none) its frames were keyed by. */
struct tdr_report_arch_stack {
	size_t first_pc, first_ent;
	uint32_t cnt, ent_cnt;
	uint64_t hash;
};

struct tdr_report_arch_use {
	uint64_t frame;
	uint32_t ord, stack;
};

struct tdr_report_archiver {
	struct tdr_report_arch_addr *ents;
	size_t cnt, cap;
	struct tdr_hmap index;
	/* This sample's address indexes: its ip, then each frame
	 * (UINT32_MAX: not archived), for its stack (add_stack). */
	uint32_t *cur;
	size_t cur_cap;
	uint32_t cur_cnt;
	/* Unwound user stacks (archive_stacks.c). */
	uint64_t *spcs;
	size_t spc_cnt, spc_cap;
	uint32_t *sents;
	size_t sent_cnt, sent_cap;
	struct tdr_report_arch_stack *stks;
	size_t stk_cnt, stk_cap;
	struct tdr_hmap sindex;
	struct tdr_report_arch_use *uses;
	size_t use_cnt, use_cap;
	/* What the symbolizer's options need (load.c): the kernel image of a
	 * perf.data file, and the samples' first and last time. */
	const struct tdr_mapping *kernel_image;
	uint64_t first_ns, last_ns;
	bool seen;
};

struct tdr_archive_builder;
struct tdr_archive_summary;
/* Add the addresses of one sample. Returns 0 or -ENOMEM. */
int tdr_report_archiver__add_sample(struct tdr_report_archiver *a, const struct tdr_sample *s);
/* The unwound user stack of the sample just added (st->cnt pcs; kept when
 * at least one caller), at (frame, ord) of the file written. Returns 0 or
 * -ENOMEM. */
int tdr_report_archiver__add_stack(struct tdr_report_archiver *a, const struct tdr_sample *s,
				   const struct tdr_sample_stack *st, uint64_t frame,
				   uint32_t ord);
/* After __resolve: the stacks whose every address was archived go into b
 * (for a file of frame_cnt frames); counts in sum. Nothing without stacks.
 * Returns 0, -ENOMEM. */
int tdr_report_archiver__stacks(struct tdr_report_archiver *a, struct tdr_archive_builder *b,
				uint64_t frame_cnt, struct tdr_archive_summary *sum);
/*
 * Symbolize each address once and add the answers to keep to b; counts in
 * sum. With jobs > 1 (tdr_report_archive_jobs: at most one per
 * TDR_ARCHIVE_SHARD_MIN addresses), the lookups may be shared with up to
 * jobs - 1 forked children, unit by unit (archive_shards.c); the archive
 * is the same for any jobs. Returns 0, -ENOMEM or what a lookup returned.
 */
#define TDR_ARCHIVE_JOBS_MAX 8
#define TDR_ARCHIVE_SHARD_MIN 128
int tdr_report_archiver__resolve(struct tdr_report_archiver *a,
				 const struct tdr_report_symbols *syms, size_t jobs,
				 struct tdr_archive_builder *b, struct tdr_archive_summary *sum);
void tdr_report_archiver__release(struct tdr_report_archiver *a);
/* Whether entry idx of ents (struct tdr_report_arch_addr) is a file offset. */
bool tdr_report_arch_addr_is_file(const void *ents, uint32_t idx);

/* ---- the lookups of __resolve (archive_shards.c) ---- */
struct tdr_report_addr_order;
/* How many jobs for addrs addresses: asked (0: as many as CPUs this
 * thread may run on), at most TDR_ARCHIVE_JOBS_MAX and one per
 * TDR_ARCHIVE_SHARD_MIN addresses, at least 1. */
size_t tdr_report_archive_jobs(unsigned asked, size_t addrs);
/* The answers, by entry index; strings and inline frames that children
 * gave live in bufs and frames. */
struct tdr_report_arch_answers {
	struct tdr_sym *sym;
	void *bufs[TDR_ARCHIVE_JOBS_MAX];
	size_t buf_cnt;
	struct tdr_arena frames;
};
/* Answer every entry of a, order[0 .. a->cnt) being the lookup order
 * (the same on return); the processes that took work into *workers.
 * Returns 0, -ENOMEM or what a lookup returned. */
int tdr_report_archive_lookup(struct tdr_report_archiver *a, const struct tdr_report_symbols *syms,
			      size_t jobs, struct tdr_report_addr_order *order,
			      struct tdr_report_arch_answers *out, uint64_t *workers);
void tdr_report_arch_answers__fini(struct tdr_report_arch_answers *out);

/* tdr_report__archive with hooks (load.c): opened right after the parser
 * opened the file (before any record is read), ran after every sample went
 * through the collector (its mappings still valid). Either returns 0 or an
 * error that ends the run. */
struct tdr_report_archive_hooks {
	int (*opened)(void *ctx, struct tdr_parser *p);
	int (*ran)(void *ctx, const struct tdr_report_archiver *a);
	/* The place the sample being added will have in the file written
	 * (frame index, ordinal among its frame's samples), and at the end
	 * that file's frame count; NULL: the place in the file read. */
	bool (*pos)(void *ctx, uint64_t *frame, uint32_t *ord);
	uint64_t (*frame_cnt)(void *ctx);
	void *ctx;
};
int tdr_report_archive_run(const char *path, const struct tdr_report_load_opts *lopts,
			   int zstd_level, const struct tdr_report_archive_hooks *h, void **data,
			   size_t *sz, struct tdr_archive_summary *sum);

/* ---- table storage (aggregate.c) ----------------------------------------
 * The row table and the address table keep their entries in an array, each
 * entry with its hash, next to a block of event_cnt sums per entry, and
 * find entries through a tdr_hmap index (linear probing, load <= 1/2).
 */
/* Room for need entries of event_cnt sums each (*cap counts entries); the
 * new sums are zero. Nothing to do when event_cnt is 0. Returns 0 or
 * -ENOMEM. */
int tdr_report_sums__reserve(uint64_t **sums, size_t *cap, size_t event_cnt, size_t need);

/* ---- row table (aggregate.c) --------------------------------------------- */

struct row_ent {
	struct tdr_row_key key; /* interned strings */
	uint64_t hash;
	uint64_t samples;
};

struct rowtab {
	struct row_ent *rows;
	size_t cnt, cap;
	uint64_t *sums; /* sums_cap * event_cnt */
	size_t sums_cap;
	struct tdr_hmap index;
};

/* Row of an interned key, created with zero sums when new. Returns the row
 * index (>= 0) or -ENOMEM. */
int tdr_report_rowtab__find_or_add(struct rowtab *t, size_t event_cnt,
				   const struct tdr_row_key *key);
void tdr_report_rowtab__release(struct rowtab *t);

/* ---- address table (collect.c) ------------------------------------------ */

enum addr_kind {
	ADDR_FILE = TDR_PLACE_FILE,		/* off = file offset */
	ADDR_KERNEL = TDR_PLACE_KERNEL,		/* off = ip */
	ADDR_VDSO = TDR_PLACE_VDSO,		/* off = file offset in the vdso image */
	ADDR_ANON = TDR_PLACE_ANON,		/* JIT code; off = ip, pid set; by dso 0 */
	ADDR_UNMAPPED = TDR_PLACE_UNMAPPED,	/* off = 0 */
	ADDR_HYPERVISOR = TDR_PLACE_HYPERVISOR, /* off = 0 */
	ADDR_GUEST = TDR_PLACE_GUEST,		/* off = 0 */
	ADDR_TASK,				/* by thread or process: pid/tid only */
};

struct addr_ent {
	const struct tdr_mapping *map; /* borrowed from the parser */
	uint64_t off;
	uint32_t pid, tid;
	uint32_t kind;	  /* enum addr_kind */
	uint32_t core;	  /* the sampler's core type (tdr_row_key.core) */
	const char *comm; /* interned, thread and process reports only */
	uint64_t hash;
	uint64_t samples;
};

struct addrtab {
	struct addr_ent *ents;
	size_t cnt, cap;
	uint64_t *sums; /* sums_cap * event_cnt */
	size_t sums_cap;
	struct tdr_hmap index;
};

void tdr_report_addrtab__release(struct addrtab *t);

/*
 * The order in which a report or the archive looks its addresses up: by
 * object, then offset. The symbolizer's tables and an object's line table
 * are then read in address order rather than in the order samples first
 * met them: on bench/run's 2,000-function program about 5% less CPU for
 * the same instructions. obj groups one object's addresses (a mapping, or
 * NULL for the kernel); idx is the address's index in its table.
 */
struct tdr_report_addr_order {
	const void *obj;
	uint64_t off;
	uint32_t idx;
};

/* Tell syms (its expect) which offsets of each object file will be looked
 * up: o[0..cnt) in lookup order, its obj a struct tdr_mapping (NULL: none);
 * is_file(ents, idx) says which entries are file offsets. Returns 0 or
 * -ENOMEM. */
int tdr_report_expect(const struct tdr_report_symbols *syms,
		      const struct tdr_report_addr_order *o, size_t cnt,
		      bool (*is_file)(const void *ents, uint32_t idx), const void *ents);

/* Sort o[0..cnt) into lookup order. */
void tdr_report_addr_order_sort(struct tdr_report_addr_order *o, size_t cnt);

/* ---- call stacks (stacks.c) ---------------------------------------------
 * Each sample's stack as the address-table indexes of its own address and
 * its callers', innermost first; equal stacks are kept once, with their
 * samples and summed deltas. After symbolization (__fold) every stack is
 * turned into rows: inclusive sums per row (children), or the sums of
 * each edge at the chosen function (callers, callees).
 */
struct stack_ent {
	uint64_t hash;
	size_t off;   /* first address index in pool */
	uint32_t len; /* 1 + callers */
	uint64_t samples;
};

struct stacktab {
	struct stack_ent *ents;
	size_t cnt, cap;
	uint32_t *pool;
	size_t pool_cnt, pool_cap;
	uint64_t *sums; /* sums_cap * event_cnt */
	size_t sums_cap;
	struct tdr_hmap index;
	uint32_t *cur; /* this sample's address indexes */
	size_t cur_cap;
	uint64_t with_callers; /* kept samples that had a caller */
	/* After __fold: per row (rows.cnt at the fold) samples and sums. */
	uint64_t *row_samples;
	uint64_t *row_sums;
	size_t row_cnt;
	/* callers/callees: the samples with the function on their stack. */
	uint64_t func_samples;
	uint64_t *func_sums;
	bool folded;
};

struct addr_ent;
/* Add sample s's stack (its own address self_idx, then each frame, as
 * core) when the report wants stacks. Returns 0 or -ENOMEM. */
int tdr_report_stacks__add(struct tdr_report *r, const struct tdr_sample *s, uint32_t self_idx,
			   uint32_t core, bool counts);
/* After every address has its row (addr_row[i], rows.cnt rows so far):
 * fold the stacks into per-row sums. Returns 0 or -ENOMEM. */
int tdr_report_stacks__fold(struct tdr_report *r, const int *addr_row);
void tdr_report_stacks__release(struct stacktab *t);
/* The address-table entry of a caller frame (collect.c). */
void tdr_report_classify_frame(const struct tdr_report *r, const struct tdr_sample *s,
			       const struct tdr_frame *f, struct addr_ent *k);
long tdr_report_addr_find_or_add(struct addrtab *t, size_t event_cnt, const struct addr_ent *key);
/* A row for key (interned here), created when new; its index or -ENOMEM. */
int tdr_report__add_row(struct tdr_report *r, const struct tdr_row_key *key,
			const uint64_t *deltas, uint64_t samples);

/* ---- schema --------------------------------------------------------------- */

#define TDR_REPORT_MAX_SGROUPS 8
/* A row whose sampling groups' shares differ by more than this factor is
 * named in a note (groups.c). */
#define TDR_REPORT_GROUP_SKEW 4.0

enum event_unit {
	UNIT_COUNT = 0,
	UNIT_NS,    /* software clocks: shown as milliseconds */
	UNIT_DUMMY, /* counts nothing (perf's dummy event for side-band records): no text column */
};

struct rep_category {
	char *name;
	char *parent;
	uint32_t level;
	int parent_idx;	  /* level-1 category index of a level-2 one, else -1 */
	double threshold; /* NAN: never a bottleneck */
	struct tdr_category f; /* the recording's formula (format.h), a deep copy */
};

/* ---- the report ------------------------------------------------------------ */

struct tdr_report {
	struct tdr_report_opts opts;
	bool regions; /* rows are libtdrec regions (regions.c): named so */
	/* Filter copies (opts.filter points here). */
	uint32_t *f_pids, *f_tids;
	char **f_dsos, **f_comms;
	const struct tdr_mapping *f_last_map; /* dso filter cache */
	bool f_last_ok;

	size_t event_cnt;
	char **event_names;
	char **event_labels;   /* text column labels, distinct (labels.c) */
	uint32_t *event_units; /* enum event_unit */
	size_t cat_cnt;
	struct rep_category *cats;
	int slots_cat; /* category whose denominator is "the row's slots", -1 = none */
	/* A perf.data file with several sampling events (perf record -e a -e b):
	 * samples and shares are those of the first one, as perf report shows
	 * each event apart; the others' samples add only their deltas. -1 when
	 * there is one sampling event (every sample counts). */
	int primary_sampler;
	uint64_t other_samples; /* samples of the other sampling events */
	/* Hybrid parts (docs/report.md "Core types"): the categories of a
	 * file come per core PMU (cpu_core, cpu_atom), each over its own
	 * events. A category key that several core types have is one column
	 * whose formula holds every core type's terms: a row holds the samples
	 * of one core type only (its key's core), whose deltas are in that
	 * core type's events only, so the other terms are 0 and the value is
	 * that core type's formula. core_cnt < 2: not split. */
	size_t core_cnt;
	char **core_names;
	uint32_t *event_core; /* per event: 1 + core index, 0: none */
	struct tdr_report_row *core_totals; /* per core type, at __finish */
	uint64_t *core_sums;		    /* core_cnt * event_cnt */
	double *core_vals;		    /* core_cnt * cat_cnt */

	/* Several sampling groups of one core PMU (groups.c, docs/report.md
	 * "Sampling groups"): the sampler of each, in group order; every
	 * sample counts. sgroup_cnt < 2: not such a file. */
	size_t sgroup_cnt;
	size_t sgroup_sampler[TDR_REPORT_MAX_SGROUPS];

	/* Recording. */
	char *plan, *command, *host, *cpu, *file, *boot_id;
	enum tdr_source_kind source;
	bool have_end;
	bool damaged; /* the file's records went out of step (tdr_file_status) */
	struct tdr_run_end end;
	uint64_t first_ns, last_ns;

	struct strlist warnings;

	/* Counted against attributed (counted.c): per event, the sum of every
	 * sample's deltas before filters, and the recording's counted total
	 * (meaningful where has_counted). */
	uint64_t *attributed, *counted;
	bool *has_counted;
	bool any_counted;
	bool user_only;		 /* samples in user mode only (no TDR_META_KERNEL) */
	bool system_wide;	 /* -a: streams are CPUs, not threads */
	uint64_t rebased;	 /* samples whose deltas the parser dropped */
	double slots_attributed; /* attributed / counted slots, NAN when unknown */

	struct strpool pool;
	struct rowtab rows;
	struct addrtab addrs;
	struct stacktab stacks;
	char *stack_func; /* opts.stack_func's copy */
	/* The mapping of the kernel image ("[kernel.kallsyms]...") with a
	 * build-id, from the first kernel sample that has one; borrowed from
	 * the parser until __resolve; load.c hands it to the symbolizer. */
	const struct tdr_mapping *kernel_image;
	uint64_t seen, kept;
	bool resolved;

	/* Finished table. */
	bool finished;
	struct tdr_report_row *view; /* one per row, sorted */
	size_t view_cnt;	     /* rows.cnt, or the edges of --callers/--callees */
	double *cat_vals;	     /* (rows.cnt + 1) * cat_cnt; totals last */
	struct tdr_report_row totals;
	uint64_t *total_sums;
	const struct tdr_report_row **visible;
	size_t visible_cnt;
};

/* Value of category c over summed deltas: num / den as computed (below 0 or
 * above 1 when the counters say so), NAN when den <= 0. */
double tdr_report_category_value(const struct tdr_report *r, const struct rep_category *c,
				 const uint64_t *sums);
/* Is the row's category cat (every category when cat < 0) outside [0, 1]? */
bool tdr_report_row_out_of_range(const struct tdr_report *r, const struct tdr_report_row *row,
				 int cat);
/* The row's slots (denominator of slots_cat), 0 without TopDown. */
double tdr_report_slots(const struct tdr_report *r, const uint64_t *sums);

/* ---- core types (cores.c) ------------------------------------------------ */

/* After the categories are copied: split the report by core type when the
 * categories come per core PMU with the same keys (merging them, see
 * struct tdr_report). Returns 0 or -ENOMEM. */
int tdr_report_cores__init(struct tdr_report *r, const struct tdr_meta *meta);
void tdr_report_cores__release(struct tdr_report *r);
/* The name of core (1-based, tdr_row_key.core), NULL for 0. */
const char *tdr_report_core_name(const struct tdr_report *r, uint32_t core);

/* ---- sampling groups (groups.c) ------------------------------------------ */

/* After the core types: recognise a file sampled in several groups whose
 * categories read several of them (struct tdr_report sgroup_*). */
void tdr_report_groups__init(struct tdr_report *r, const struct tdr_meta *meta);
/* Group g's share of the row: its sampler's summed deltas over all the
 * groups' samplers' (with a fixed period, its share of the samples); NAN
 * when not split or the row sampled nothing. */
double tdr_report_group_share(const struct tdr_report *r, const struct tdr_report_row *row,
			      size_t g);
/* Does one group have under 1/TDR_REPORT_GROUP_SKEW of another's share? */
bool tdr_report_groups_unbalanced(const struct tdr_report *r, const struct tdr_report_row *row);
/* At __finish, after the rows: the note naming unbalanced rows. */
void tdr_report_groups__finish(struct tdr_report *r);

/* ---- counted totals (counted.c) ------------------------------------------ */

/* Allocate the per-event arrays (tdr_report__new). Returns 0 or -ENOMEM. */
int tdr_report_counted__init(struct tdr_report *r);
void tdr_report_counted__release(struct tdr_report *r);
/* At __finish, after the totals: the attributed totals of a report without
 * samples, the slots share, and the note. */
void tdr_report_counted__finish(struct tdr_report *r);
/* v in event e's unit for text: "12850", "218.3 ms". Returns the length. */
size_t tdr_report_counted__fmt(const struct tdr_report *r, size_t e, uint64_t v, char *buf,
			       size_t sz);

/* Base name of a path ("" stays ""). */
const char *tdr_report_basename(const char *path);

/* ---- rendering helpers (render_util.c) ----------------------------------- */

/* The text table's column label of a software event ("cpu-ms" for
 * "cpu-clock" or perf's "cpu-clock:ppp"), or NULL. --sort takes it too. */
const char *tdr_report_event_short(const char *name);
/* The text column width of an event, and its label there. */
#define REPORT_EV_LABEL_W 8
/* labels[i] (allocated, at most REPORT_EV_LABEL_W columns) for names[i], no
 * two alike (labels.c). Returns 0 or -ENOMEM (labels so far allocated). */
int tdr_report_event_labels(char *const *names, size_t cnt, char **labels);

/* Text (report and diff tables). Widths are display columns (code points,
 * tdr_text_cols); control characters print as '?'. */
/* Where tdr_report_text_put_fit cuts what does not fit. */
enum text_cut {
	CUT_END,    /* "abc..." (header values, notes) */
	CUT_START,  /* "...xyz" (paths) */
	CUT_MIDDLE, /* "ab...yz", the tail a little longer: names, whose start
		     * (namespace, function) and end (method and parameters,
		     * "(inlined into f)") both tell rows apart */
};
/* s in at most w columns, cut as `cut` says. */
void tdr_report_text_put_fit(FILE *f, const char *s, size_t w, enum text_cut cut);
/* A C++ name for the text tables (cxxname.c): level 0 as it is, 1 without
 * the return type of a template function, 2 also with parameter lists as
 * "(...)", 3 also with template arguments nested in others as "<...>", 4
 * with only the first template argument ("<double, ...>"), 5 with every
 * template argument list as "<...>". */
#define REPORT_CXX_LEVELS 6
void tdr_report_cxx_shorten(const char *name, unsigned level, char *buf, size_t sz);
/* A row's text name in buf: "name", "prefix name" ("file:line name") or
 * "name (inlined into f)", its C++ names shortened level by level until it
 * fits fit columns (or as short as it gets). Returns the columns at its
 * start that a cut keeps whole (see tdr_report_text_put_name). */
size_t tdr_report_text_row_name(char *buf, size_t sz, size_t fit, const char *prefix,
				const char *name, const char *inlined_into);
/* The columns tdr_report_text_put_name leaves a name of a row with object obj and tag
 * in w columns when both do not fit. */
size_t tdr_report_text_name_room(size_t w, const char *obj, const char *tag);
/* A table's last column in w columns: name, two spaces and obj (between on
 * and off; NULL or "" for none), then tag (NULL for none). When all does
 * not fit, the name is cut first, in the middle, its first keep columns
 * (what tells the row apart: "f" of "f (inlined into g)", "file:line ")
 * kept whole when they leave the end a quarter of the column; the object
 * keeps at least a few columns, so it never silently disappears. */
void tdr_report_text_put_name(FILE *f, size_t w, const char *name, size_t keep, const char *obj,
			      const char *tag, const char *on, const char *off);

/* The list as a JSON array of strings, one per line ("[]" when empty). */
void tdr_report_json_put_strings(struct tdr_json *j, const struct strlist *l);

int tdr_report_render_text(const struct tdr_report *r, const struct tdr_render_opts *o, FILE *out);
int tdr_report_render_json(const struct tdr_report *r, const struct tdr_render_opts *o, FILE *out);
int tdr_report_render_csv(const struct tdr_report *r, const struct tdr_render_opts *o, FILE *out);

/* Short column label of a category ("retiring" -> "Retire"; unknown names
 * are returned as they are), and its one-character glyph for text bars. */
const char *tdr_report_category_label(const char *name);
char tdr_report_category_glyph(const char *name);
/* Duration of the recording: the run end's, else first to last sample.
 * Returns false when unknown. */
bool tdr_report_duration(const struct tdr_report *r, uint64_t *ns, bool *from_samples);
const char *tdr_report_source_name(enum tdr_source_kind k);
/* Describe the run end ("exit 0", "killed by signal 9", ...) into buf. */
void tdr_report_describe_end(const struct tdr_report *r, char *buf, size_t sz);

/* ---------------------------------------------------------------------------
 * Used inside the module and by its tests only (no other module calls these).
 */
/*
 * Parse a --sort argument against a recording's metadata: "samples", "share",
 * "slots", "name", any category name of meta ("be-bound", "mem-bound"), or
 * any event name of meta ("page-faults").
 * Returns: 0, or -TDR_E_USAGE when the name matches nothing.
 */
int tdr_report_sort__parse(const struct tdr_meta *meta, const char *text,
			   struct tdr_report_sort *out);

/*
 * Make an empty report for a recording described by meta (events and
 * categories are copied; meta is borrowed for the call). Recording details
 * (command, host, CPU, plan, notes as warnings) are taken from meta too.
 * Returns: 0, -ENOMEM, -EINVAL (opts out of range, a category term naming an
 * event that does not exist).
 */
int tdr_report__new(const struct tdr_meta *meta, const struct tdr_report_opts *opts,
		    struct tdr_report **out);

/*
 * Add samples (usually 1) whose summed deltas (one per meta event) belong to
 * the row key. This is the layer under __add_sample; filters do not apply.
 * Returns: 0, -ENOMEM, -EINVAL after __finish.
 */
int tdr_report__add(struct tdr_report *r, const struct tdr_row_key *key, const uint64_t *deltas,
		    uint64_t samples);

/*
 * Add one parser sample: apply the filters, then sum it into the table of
 * unique (mapping, offset) addresses (or the thread/process/object when the
 * report is by one of those). s->map must stay valid until __resolve (the
 * parser keeps mappings until it is freed). No allocation unless the address
 * is new. Returns: 0, -ENOMEM, -EINVAL after __finish.
 */
int tdr_report__add_sample(struct tdr_report *r, const struct tdr_sample *s);

/*
 * Symbolize every unique address added by __add_sample once and fold it into
 * its row (by the report's mode); counts unsymbolized samples and changed or
 * missing objects for the warnings. May be called once, before __finish;
 * syms may be NULL for reports by object, thread or process.
 * Returns: 0, -ENOMEM, or what a lookup returned.
 */
int tdr_report__resolve(struct tdr_report *r, const struct tdr_report_symbols *syms);

/* Recording facts that are not in meta. Each may be NULL. */
void tdr_report__set_run(struct tdr_report *r, const char *file, enum tdr_source_kind source,
			 const struct tdr_run_end *end);

/*
 * Turn the parser's statistics and the file's state into warnings: lost
 * samples, re-based deltas by reason, multiplexing, unmapped samples, bad
 * frames, truncated file. Either pointer may be NULL.
 */
void tdr_report__note_parse(struct tdr_report *r, const struct tdr_parse_stats *st,
			    const struct tdr_file_status *fs);

/*
 * The recording's counted totals: ev[e] (cnt entries, aligned with meta's
 * events; borrowed for the call; NULL for none) is what event e counted
 * over the whole run (struct tdr_event_totals, has_counted). __finish
 * compares each with the event's attributed total, the sum of its deltas
 * over every sample given to __add_sample before filters, and adds one
 * note naming the events the samples attribute clearly less of (below
 * TDR_REPORT_ATTRIBUTED_MIN, by at least TDR_REPORT_UNATTRIBUTED_MIN_GAP
 * units), with both numbers and the reason. docs/report.md "Counted totals".
 * Returns: 0, -EINVAL after __finish.
 */
#define TDR_REPORT_ATTRIBUTED_MIN 0.90
/* --lines: a note when at least this fraction of the samples has no source
 * line (objects without a DWARF line table). */
#define TDR_REPORT_NO_LINE_NOTE 0.05
#define TDR_REPORT_UNATTRIBUTED_MIN_GAP 100 /* fewer unattributed events are noise */
int tdr_report__set_counted(struct tdr_report *r, const struct tdr_event_totals *ev, size_t cnt);

/* Event idx's counted total: true with *out set, false when the recording
 * has none for it. */
bool tdr_report__counted(const struct tdr_report *r, size_t idx, uint64_t *out);
/* Event idx's attributed total (before filters; a report built with
 * __add alone: the sum of its rows). 0 before __finish. */
uint64_t tdr_report__attributed(const struct tdr_report *r, size_t idx);
/* The attributed share of the counted slots (TopDown plans), NAN when the
 * plan has no slots or the recording no counted slots, or before __finish. */
double tdr_report__slots_attributed(const struct tdr_report *r);

/* Add a warning line (shown in the header and in the JSON warnings). */
void tdr_report__warn(struct tdr_report *r, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/*
 * Compute every row: shares, categories, low-confidence and bottleneck flags,
 * the totals; then sort by opts.sort and hide rows under min_share.
 * Returns: 0 or -ENOMEM.
 */
int tdr_report__finish(struct tdr_report *r);

/* What the rows are, for headers and JSON "by": tdr_report_by_name, or
 * "region" / "region-thread" for a report of regions. */
const char *tdr_report_rows_name(const struct tdr_report *r);

/* Visible rows (after min_share), sorted; and the totals of all rows. */
size_t tdr_report__row_cnt(const struct tdr_report *r);
const struct tdr_report_row *tdr_report__row(const struct tdr_report *r, size_t idx);
const struct tdr_report_row *tdr_report__totals(const struct tdr_report *r);

/* The schema's category levels, and the warnings (borrowed). */
uint32_t tdr_report__category_level(const struct tdr_report *r, size_t idx);
size_t tdr_report__warning_cnt(const struct tdr_report *r);
const char *tdr_report__warning(const struct tdr_report *r, size_t idx);

/* Samples offered to __add_sample, and how many passed the filters. */
uint64_t tdr_report__samples_seen(const struct tdr_report *r);
uint64_t tdr_report__samples_kept(const struct tdr_report *r);

/*
 * Threshold above which category idx is a bottleneck (fraction of slots), or
 * NAN when the category is never flagged (retiring and its children,
 * unknown names): the TopDown table's (tdrec/topdown.h), which tdrec stat
 * reads too. See docs/report.md "Thresholds".
 */
double tdr_report__threshold(const struct tdr_report *r, size_t idx);

size_t tdr_diff__row_cnt(const struct tdr_diff *d);
const struct tdr_diff_row *tdr_diff__row(const struct tdr_diff *d, size_t idx);
/* Categories compared (0 when plans differ or have no TopDown). */
size_t tdr_diff__category_cnt(const struct tdr_diff *d);
const char *tdr_diff__category_name(const struct tdr_diff *d, size_t idx);
size_t tdr_diff__warning_cnt(const struct tdr_diff *d);
const char *tdr_diff__warning(const struct tdr_diff *d, size_t idx);

#endif /* TDREC_REPORT_INT_H */
