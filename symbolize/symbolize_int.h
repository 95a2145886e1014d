/*
 * symbolize/symbolize_int.h - private structures of the symbolizer.
 *
 * Responsibility: the structs shared by the .c files of symbolize/ and the
 * small helpers they share (arena, sorted range tables, demangler). Nothing
 * here is visible outside the module (CMake keeps this directory private).
 * Objects and lifecycle: one struct tdr_symbolizer owns everything: the DSO
 * table (struct sym_dso, one libdwfl session each), the result cache, the
 * arena that holds result strings and inline arrays, and the kernel table.
 * Ownership and threads: single-threaded; all memory is released by
 * tdr_symbolizer__free.
 * Invariants: a DSO is entered in the table only when fully opened (or when
 * its failure status is final); a result is cached only when complete.
 * Addresses: "vaddr" is an ELF virtual address of the file (as in its symbol
 * table); "maddr" is a libdwfl module address, vaddr + sym_dso.main_bias;
 * "pc" is a DWARF address, maddr - sym_dso.dw_bias.
 */
#ifndef TDREC_SYMBOLIZE_INT_H
#define TDREC_SYMBOLIZE_INT_H

#include <byteswap.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/stat.h>

#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>

#include "tdrec/symbolize.h"
#include "tdrec/tdr_arena.h"
#include "tdrec/tdr_hash.h"
#include "tdrec/tdr_hmap.h"

/* ---- sorted range tables ---- */

/* [lo, hi) with the index of what it describes in a side array. */
struct sym_range {
	uint64_t lo, hi;
	uint32_t idx;
};

/*
 * Ranges sorted by lo, with max_hi[i] = max(hi of ranges 0..i) so that a
 * lookup can stop walking back as soon as nothing earlier can contain the
 * address. Overlapping (nested) ranges are allowed: the innermost (latest
 * start) range containing the address wins.
 */
struct sym_range_table {
	struct sym_range *r;
	uint64_t *max_hi;
	size_t cnt;
};

/* Ranges being collected for a table. */
struct sym_range_vec {
	struct sym_range *r;
	size_t cnt, cap;
};

/* Sort r (cnt entries, takes ownership) and build t. Returns 0 or -ENOMEM
 * (r is freed either way). */
int tdr_symbolize_range_table__build(struct sym_range_table *t, struct sym_range *r, size_t cnt);
/* The innermost range containing addr, or NULL. */
const struct sym_range *tdr_symbolize_range_table__find(const struct sym_range_table *t,
							uint64_t addr);
void tdr_symbolize_range_table__free(struct sym_range_table *t);

/* Order of two aliases (symbols at one address): the lower rank first, then
 * (when by_underscores) fewer leading underscores, then the shorter name,
 * then by name. qsort-style result. */
int tdr_symbolize_alias_cmp(int rank_a, const char *a, int rank_b, const char *b,
			    bool by_underscores);

/* ---- reading DWARF's own bytes (diescan.c, rnglist.c) ---- */

/* An unsigned LEB128 at p (below end) into *v; NULL when it runs past end or
 * does not fit 64 bits. */
static inline const uint8_t *sym_read_uleb(const uint8_t *p, const uint8_t *end, uint64_t *v)
{
	uint64_t r = 0;

	for (unsigned shift = 0; p < end; shift += 7) {
		uint8_t b = *p++;

		if (shift >= 64 || (shift == 63 && (b & 0x7e)))
			return NULL;
		r |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80)) {
			*v = r;
			return p;
		}
	}
	return NULL;
}

/* A signed LEB128 at p (below end) into *v; NULL when it runs past end or
 * does not fit 64 bits. */
static inline const uint8_t *sym_read_sleb(const uint8_t *p, const uint8_t *end, int64_t *v)
{
	uint64_t r = 0;

	for (unsigned shift = 0; p < end; shift += 7) {
		uint8_t b = *p++;

		if (shift >= 64)
			return NULL;
		r |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80)) {
			/* The last byte's bit 6 is the sign: extend it. */
			if (shift + 7 < 64 && (b & 0x40))
				r |= ~(uint64_t)0 << (shift + 7);
			*v = (int64_t)r;
			return p;
		}
	}
	return NULL;
}

/* An unsigned integer of n bytes (1, 2, 4 or 8) at p, in the object's byte
 * order (swap: not the machine's). */
static inline uint64_t sym_read_un(const uint8_t *p, int n, bool swap)
{
	uint64_t v8;
	uint32_t v4;
	uint16_t v2;

	switch (n) {
	case 1:
		return *p;
	case 2:
		memcpy(&v2, p, 2);
		return swap ? bswap_16(v2) : v2;
	case 4:
		memcpy(&v4, p, 4);
		return swap ? bswap_32(v4) : v4;
	default:
		memcpy(&v8, p, 8);
		return swap ? bswap_64(v8) : v8;
	}
}

/* ---- DW_AT_ranges lists read from the section bytes (rnglist.c) ---- */

/* A DSO's range list sections, as libdw holds them (NULL when absent). */
struct sym_rng_sec {
	Dwarf *dbg;
	const uint8_t *v5, *v4, *addr; /* .debug_rnglists, .debug_ranges, .debug_addr */
	size_t v5_size, v4_size, addr_size;
	bool swap;                     /* the object's byte order is not ours */
};

/* What reading one unit's lists needs; usable false: ask dwarf_ranges. */
struct sym_rng_unit {
	uint64_t base;
	uint64_t addr_base, rnglists_base; /* DW_AT_addr_base, DW_AT_rnglists_base */
	uint16_t version;
	uint8_t addr_size, offset_size;
	bool usable, have_addr_base, have_rnglists_base;
};

void tdr_symbolize_rng__init(struct sym_rng_sec *rs, Dwarf *dbg);
/* Prepare the lists of die's unit. Returns 0, or -EINVAL when they are not
 * read here (split units, other Dwarf handles, unknown versions). */
int tdr_symbolize_rng__unit(struct sym_rng_unit *u, const struct sym_rng_sec *rs, Dwarf_Die *die);
/* Append the non-empty ranges of the list at section offset off, with index
 * idx, to v, as dwarf_ranges gives them. Returns how many, -EINVAL when the
 * list is not one read here (nothing appended: ask dwarf_ranges), or
 * -ENOMEM. */
int tdr_symbolize_rng__read(const struct sym_rng_sec *rs, const struct sym_rng_unit *u,
			    uint64_t off, struct sym_range_vec *v, uint32_t idx);
/* Entry idx of the unit's .debug_addr table (DW_FORM_addrx, DW_RLE_*x).
 * Returns 0, or -EINVAL when it is not there or the unit names no table. */
int tdr_symbolize_rng__addrx(const struct sym_rng_sec *rs, const struct sym_rng_unit *u,
			     uint64_t idx, uint64_t *addr);
/* The section offset of list idx of the unit's DW_FORM_rnglistx table.
 * Returns 0, or -EINVAL. */
int tdr_symbolize_rng__index(const struct sym_rng_sec *rs, const struct sym_rng_unit *u,
			     uint64_t idx, uint64_t *off);

/* ---- stepping over a unit's DIEs by abbreviation (diescan.c) ---- */

/* What the scan does with an attribute's value besides stepping over it:
 * pc attributes, an inline instance's call site and abstract origin, and
 * names of its own (SCAN_NAMED: name, linkage names, specification). */
enum { SCAN_SKIP, SCAN_LOW_PC, SCAN_HIGH_PC, SCAN_RANGES, SCAN_ORIGIN, SCAN_CALL_FILE,
       SCAN_CALL_LINE, SCAN_CALL_COLUMN, SCAN_NAMED, SCAN_SIBLING };

struct sym_scan_attr {
	int8_t size;  /* bytes, or how to find them (diescan.c) */
	uint8_t role; /* SCAN_* */
	uint16_t form;
	uint32_t implicit; /* DW_FORM_implicit_const: its value's index */
};

struct sym_scan_abbrev {
	uint32_t first; /* its attributes: sym_die_scan.attrs[first..+cnt) */
	uint16_t cnt, tag;
	bool known, has_children;
	/* has_pc: a pc role; has_call: an inline instance's, with a call
	 * role (ORIGIN to NAMED; only those are read). */
	bool has_pc, has_call;
};

/* One unit's bytes and abbreviations, for tdr_symbolize_diescan__next. */
struct sym_die_scan {
	Dwarf *dbg;                    /* the unit's (a split unit's own) */
	const uint8_t *base, *end;     /* offset 0 of its section; end of the unit */
	const uint8_t *unit, *dies;    /* the unit's header; its first DIE */
	uint8_t addr_size, offset_size;
	uint16_t version;
	bool swap;                     /* the object's byte order is not ours */
	struct sym_scan_abbrev *by_code; /* indexed by abbreviation code */
	size_t code_cnt, code_cap;
	struct sym_scan_attr *attrs;
	size_t attrs_cnt, attrs_cap;
	int64_t *implicit; /* the values of DW_FORM_implicit_const attributes */
	size_t implicit_cnt, implicit_cap;
};

/* One DIE as the scan sees it: the end of its children list (null), or its
 * tag, whether children follow it, and its DW_AT_sibling when that is a
 * reference inside the unit past the DIE's own bytes (else NULL). */
struct sym_scan_die {
	bool null, has_children;
	int tag;
	const uint8_t *sibling;
};

/*
 * A DIE's pc attributes as the scan read them (the first of each, as
 * dwarf_attr finds it): low pc (DW_FORM_addr, or an addrx index), high pc
 * (an address, or a constant length), DW_AT_ranges (DW_FORM_sec_offset, or
 * a rnglistx index). read: every one the DIE has was in one of those forms;
 * else ask libdw.
 */
struct sym_scan_pc {
	uint64_t low, high, ranges;
	bool read, have_low, have_high, high_is_len, have_ranges;
	bool low_is_index;    /* low is a .debug_addr index (DW_FORM_addrx*) */
	bool ranges_is_index; /* ranges is a DW_FORM_rnglistx index */
};

/*
 * What names an inline instance, as the scan read it (the first of each
 * attribute, as dwarf_attr finds it): its abstract origin, a reference
 * inside the unit (DW_FORM_ref1 to ref8, ref_udata) kept as the address
 * of the DIE it names, and DW_AT_call_file, call_line and call_column as
 * dwarf_formudata reads them (data1 to data8, udata, sdata,
 * implicit_const). read: the DIE has an origin in those forms, no name,
 * linkage name or specification of its own, and its call attributes are
 * in those forms; else ask libdw.
 */
struct sym_scan_call {
	const uint8_t *origin;
	uint64_t file, line, column;
	bool read, have_origin, have_file, have_line, have_column;
};

/* The bytes of elf's section name as libdw reads them (it decompresses its
 * sections in place); *data NULL when absent, compressed or empty. */
void tdr_symbolize_section(Elf *elf, const char *name, const uint8_t **data, size_t *size);
/* Prepare a scan of the unit of in_unit. Returns 0, 1 when the unit is not
 * one the scan reads (the caller uses libdw), or -ENOMEM. */
int tdr_symbolize_diescan__init(struct sym_die_scan *sc, Dwarf_Die *in_unit);
/* Read the DIE (or end of a children list) at p into d, its pc attributes
 * into pc and, for an inline instance, its call attributes into call (each
 * unless NULL; call->read is false for other DIEs); returns
 * where the next entry starts, or NULL when p's entry cannot be read inside
 * the unit. */
const uint8_t *tdr_symbolize_diescan__next(const struct sym_die_scan *sc, const uint8_t *p,
					   struct sym_scan_die *d, struct sym_scan_pc *pc,
					   struct sym_scan_call *call);
void tdr_symbolize_diescan__free(struct sym_die_scan *sc);

/* ---- one object file (or the vDSO) ---- */

struct sym_seg {
	uint64_t off, filesz, vaddr, memsz;
	bool exec;
};

/* An executable section of the main file, [lo, hi) in maddr space. plt: made
 * by the linker (.plt, .plt.got, .plt.sec, .iplt), so no DWARF describes it. */
struct sym_sec {
	uint64_t lo, hi;
	bool plt;
};

/* One DW_TAG_inlined_subroutine of a subprogram; parent is the index of the
 * enclosing inline in the same table, -1 for the subprogram itself. Its
 * frame (callee name, call site) is read from the DIE on the first address
 * whose chain holds it, then reused: the addresses of one inline instance
 * share it. */
struct sym_inl_node {
	Dwarf_Die die;
	struct sym_scan_pc pc; /* pc.read false: read them with libdw */
	struct sym_scan_call call; /* call.read false: read them with libdw */
	/* Its children are not listed yet (the CU walk jumped over them by
	 * DW_AT_sibling): load_inlines lists them. depth: the DIE's depth. */
	bool kids_pending;
	uint16_t depth;
	int32_t parent;
	bool framed;
	struct tdr_inline_frame frame;
};

/*
 * All inlined_subroutine DIEs of one subprogram, flattened once (on the first
 * address that falls in the subprogram) into a range table. Nodes are in
 * preorder, so a child's index is above its parent's: among nested ranges
 * containing a pc, the table finds the innermost, and parent links give the
 * chain. This is the two-level subprogram/inline map of llvm-symbolizer.
 */
struct sym_sub_inl {
	/* The subprogram's display name and entry pc, read on its first
	 * address (every address inside it asks for both). */
	bool named;
	bool has_entry; /* dwarf_entrypc answered; else the range's start */
	const char *name;
	uint64_t entry;

	bool loaded;
	bool own_nodes; /* nodes is its own array, not a slice of the CU's */
	/* Its inlines are not listed yet (no expected address was in it when
	 * the CU was walked): load_inlines walks its subtree, the DIE at
	 * depth depth, on its first lookup. */
	bool deferred;
	uint16_t depth;
	struct sym_range_table ranges; /* pc ranges -> nodes[idx] */
	struct sym_inl_node *nodes;
	size_t cnt;
};

/* A compile unit of a DSO's DWARF, with its lazily built subprogram table. */
struct sym_cu {
	Dwarf_Die cudie;   /* for line tables and file names */
	uint64_t bytes;	   /* its DIEs' bytes in .debug_info: what reading it costs */
	Dwarf_Die walkdie; /* the DIE whose tree holds the code: split unit or cudie */
	bool subs_loaded;
	struct sym_range_table subs; /* pc ranges -> sub_dies[idx] */
	Dwarf_Die *sub_dies;
	struct sym_sub_inl *sub_inl; /* parallel to sub_dies */
	struct sym_inl_node *inl_nodes; /* sub_inl[].nodes are slices of it */
	size_t sub_cnt;
	/* The DIE scanner of the unit (scan_state 0: not prepared yet, 1:
	 * ready, -1: not usable), kept for listing deferred subtrees. */
	struct sym_die_scan scan;
	int scan_state;
	Dwarf_Files *files; /* for DW_AT_call_file, NULL until needed */
	bool files_tried;
	struct sym_rng_unit rng; /* for its DW_AT_ranges lists, once subs_loaded */
};

struct sym_dso {
	char *path;
	uint8_t *build_id; /* recorded build-id (part of the key), may be NULL */
	size_t build_id_sz;
	uint64_t hash;
	uint32_t idx; /* position in the symbolizer's table */
	/* TDR_SYM_OK when the object is usable; MISSING or CHANGED for all of it. */
	enum tdr_sym_status status;

	Dwfl *dwfl;
	Dwfl_Module *mod;
	uint64_t main_bias; /* maddr - vaddr */
	struct sym_seg *segs;
	size_t seg_cnt;
	struct sym_sec *secs; /* executable sections, from the main file */
	size_t sec_cnt;

	/* Function symbols: ranges in maddr space, idx into sym_names. */
	struct sym_range_table syms;
	const char **sym_names; /* borrowed from the ELF string table */

	/* DWARF, loaded on first need. */
	bool dwarf_tried;
	Dwarf *dw; /* NULL when the object has no usable DWARF */
	uint64_t dw_bias;
	struct sym_range_table cus; /* pc ranges -> cu[idx] */
	struct sym_cu *cu;
	size_t cu_cnt;
	struct sym_rng_sec rng; /* range list sections of dw */
	/* Callee names of inline frames by their abstract origin (the DIE's
	 * address in the section data): one inlined function is called from
	 * many places, and its name is read once. */
	struct tdr_u64map origin_name_idx; /* -> origin_names[] */
	const char **origin_names;
	size_t origin_name_cnt, origin_name_cap;

	bool warned_dwarf; /* one DWARF error message per object */

	/* The addresses (maddr) the caller said it will look up
	 * (tdr_symbolizer__expect; sorted and distinct once expect_sorted):
	 * with inline chains, a CU walk lists the inlines of the subprograms
	 * that hold one of them, and defers the others' to their first
	 * lookup. expect_given false: no list, every subprogram's inlines
	 * listed as its CU is walked. */
	bool expect_given, expect_sorted;
	uint64_t *expect;
	size_t expect_cnt, expect_cap;

	/* The symbolizer's debug file cache, borrowed; its dir is NULL when
	 * off (function reports: no DWARF to speed up). */
	struct sym_dcache *dcache;
	/* Ask debuginfod for a debug file not found locally
	 * (tdr_symbolizer_opts.debuginfod; elf.c find_debuginfo_net). */
	bool debuginfod;

	/* A perf map or jitdump file (jitmap.c) instead of an ELF file: its
	 * offsets are addresses in the process. NULL for ELF files. */
	struct sym_jit *jit;
};

/* ---- JIT code: perf map and jitdump files (jitmap.c) ---- */

/* path names a perf map file (perf-PID.map) or a jitdump (jit-PID.dump). */
bool tdr_symbolize_jit_path(const char *path);
/* Read d->path; d->status MISSING when it cannot be read. 0 or -ENOMEM. */
int tdr_symbolize_jit__open(struct tdr_symbolizer *s, struct sym_dso *d);
void tdr_symbolize_jit__resolve(const struct sym_dso *d, uint64_t addr, struct tdr_sym *out);
void tdr_symbolize_jit__close(struct sym_dso *d);

/* What the DWARF walk found for one address. */
struct sym_dwarf_res {
	const char *sub_name; /* physical subprogram name (demangled), or NULL */
	uint64_t sub_entry;   /* its entry maddr, valid when sub_name != NULL */
	const char *file;
	uint32_t line, column;
	size_t inline_cnt;
	struct tdr_inline_frame *inlines; /* arena memory, innermost first */
};

/* ---- kernel symbols ---- */

/*
 * The kernel's text symbols: addr[] sorted, distinct and nonzero, symbol i
 * covering [addr[i], addr[i + 1]) (the last one LAST_SYM_SPAN bytes), named
 * str + name_off[i]. Built from kallsyms text (kallsyms.c) or mapped from the
 * per-boot cache (kcache.c); the storage is either heap[] or map.
 */
enum { SYM_KREF_TEXT, SYM_KREF_STEXT, SYM_KREF_CNT };

struct sym_ktab {
	size_t cnt;
	const uint64_t *addr;
	const uint32_t *name_off;
	const char *str; /* names, each NUL-terminated; str[str_sz - 1] == 0 */
	size_t str_sz;
	/* Or, when str is NULL (a table mapped from the cache file), the names
	 * are read from str_fd at str_pos: a report needs a few of them, and
	 * mapping the table maps most of it (tdr_symbolize_kernel__lookup). */
	bool str_in_file;
	int str_fd;
	uint64_t str_pos;
	/* perf's reference symbols "_text" and "_stext" (any type; 0 = absent),
	 * to check the kernel's placement against a perf.data recording. */
	uint64_t ref_addr[SYM_KREF_CNT];
	void *heap[3];
	void *map;
	size_t map_sz;
};


/* cachefile.c: files in the cache directory (docs/symbolize.md). */
/* dir/name suffix in new memory (caller frees), or NULL. */
char *tdr_symbolize_cache__path(const char *dir, const char *name, const char *suffix);
int tdr_symbolize_cache__write_all(int fd, const void *p, size_t n);
/* Is dir, and each of its levels - 1 parents, a directory (not a symbolic
 * link) of this user that group and others cannot write? Returns 0,
 * -TDR_E_UNSAFE with *why when one that exists is not, -ENOENT when one is
 * absent (and the others are sound), or another -errno. */
int tdr_symbolize_cache__dir_check(const char *dir, int levels, const char **why);
/* Create dir (and its parents, mode 0700) when missing, check it as
 * tdr_symbolize_cache__dir_check does (levels), and make a temporary file
 * in it for dir/name (mode 0600). Returns its fd, *tmp its path (caller
 * passes it to tdr_symbolize_cache__finish), -TDR_E_UNSAFE or -errno. */
int tdr_symbolize_cache__create(const char *dir, int levels, const char *name, char **tmp);
/* When err is 0, rename tmp over dir/name; else (or when that fails) remove
 * tmp. Takes ownership of tmp; the fd stays open. Returns err, or -errno. */
int tdr_symbolize_cache__finish(const char *dir, const char *name, char *tmp, int err);
/* Check the open cache file fd: a regular file of this user, not writable by
 * group or others. Returns 0 with *st, -errno, or -TDR_E_CORRUPT with *why. */
int tdr_symbolize_cache__check(int fd, struct stat *st, const char **why);

/* debugcache.c: uncompressed copies of debug files (docs/symbolize.md
 * "Debug file cache"), in <cache>/debug. */
struct sym_dcache {
	char *dir;	 /* <cache>/debug; NULL: no copies are used or written */
	uint64_t max_sz; /* bytes all copies may take together */
	bool warned;	 /* one warning per symbolizer */
	/* What happened (tests and benchmarks read these). */
	size_t used_cnt, written_cnt, rejected_cnt, pruned_cnt;
};

/* Set up c for the cache directory cache_dir (NULL or "": off); max_sz 0:
 * TDR_DEBUG_CACHE_MAX_SZ. Returns 0 or -ENOMEM. */
int tdr_symbolize_dcache__init(struct sym_dcache *c, const char *cache_dir, uint64_t max_sz);
void tdr_symbolize_dcache__free(struct sym_dcache *c);
/*
 * The file to read for the ELF file open on fd (name: for messages): when
 * it has a build-id (equal to rec, when rec_sz) and compressed .debug_*
 * sections, its checked uncompressed copy, written first when missing or
 * damaged; else fd itself. Takes ownership of fd and returns the fd to use
 * (fd, or the copy's with fd closed). Never fails: on any problem (logged
 * at most once per c) the original is used.
 */
int tdr_symbolize_dcache__swap(struct sym_dcache *c, int fd, const char *name, const uint8_t *rec,
			       size_t rec_sz);

/* kcache.c: the per-boot cache file of a sym_ktab (docs/symbolize.md). */
#define SYM_KCACHE_NAME "kallsyms.bin"
/* The cache key's hash of modules_path's contents and kallsyms_path.
 * Returns 0 or -errno (modules_path unreadable; absent counts as empty). */
int tdr_symbolize_kcache__key(const char *modules_path, const char *kallsyms_path, uint64_t *key);
/* Map and check the cache file dir/SYM_KCACHE_NAME. Returns 1 with *t filled, 0 when the
 * file is absent or was written for another boot or key, or a negative code
 * when it is damaged (*why says how). */
int tdr_symbolize_kcache__load(const char *dir, const char *boot_id, uint64_t key,
			       struct sym_ktab *t, const char **why);
/* Write t as dir/SYM_KCACHE_NAME (a temporary file renamed over it),
 * creating dir (0700) when missing. Returns 0 or -errno. */
int tdr_symbolize_kcache__store(const char *dir, const char *boot_id, uint64_t key,
				const struct sym_ktab *t);

/* kallsyms.c: wait for k's table, or load it now when no helper thread
 * runs. Returns 0 with *t (NULL when kallsyms could not be read or show no
 * addresses; logged here, once) or -ENOMEM (nothing kept: a later call
 * tries again). *path: the file kallsyms were read from, for messages. */
int tdr_symbolize_kallsyms__table(struct tdr_kallsyms *k, const struct sym_ktab **t,
				  const char **path);

/* Kernel names read from a cache file (sym_ktab.str_in_file), once each:
 * a map from symbol index to a copy in an arena that never moves, so the
 * names live as long as the symbolizer. */
struct sym_kname {
	size_t idx; /* symbol index */
	const char *name;
};

struct sym_knames {
	struct sym_kname *ents; /* index.cnt of them */
	size_t ents_cap;
	struct tdr_hmap index;
	struct tdr_arena mem;
};

struct sym_kernel {
	bool tried;		     /* the decision below has been made */
	bool usable;		     /* kallsyms apply to the recording and were loaded */
	struct tdr_kallsyms *ks;     /* opts.kallsyms, or own_ks */
	struct tdr_kallsyms *own_ks; /* made from opts.kallsyms_path when needed */
	const struct sym_ktab *tab;  /* ks's table, when usable */
	/* The recorded kernel image (opts.kernel_*), copied. */
	uint8_t build_id[20];
	size_t build_id_sz;
	char *ref_sym;
	char *notes_path;
	char *release, *running_release; /* opts.kernel_release, running_release */
	char why[200];			 /* why not usable; "" when usable or undecided */
	struct sym_knames names;
};

/* ---- the symbolizer ---- */

struct sym_res_ent;

typedef char *(*sym_cxa_demangle_fn)(const char *mangled, char *buf, size_t *len, int *status);

struct sym_demangle_ent {
	const char *mangled; /* key: pointer identity (strings owned by libdw/libelf) */
	const char *out;
};

struct tdr_symbolizer {
	struct tdr_symbolizer_opts opts;
	char *kallsyms_path;

	/* DSOs: an array plus its index (by path and build-id). */
	struct sym_dso **dsos;
	size_t dso_cnt, dso_cap;
	struct tdr_hmap dso_index;
	struct sym_dso *dso_last; /* the object of the previous lookup (dso_get) */

	/* Results: an array (res_index.cnt entries) indexed on (dso idx, offset). */
	struct sym_res_ent *res;
	size_t res_cap;
	struct tdr_hmap res_index;

	struct tdr_arena arena; /* results: names, inline arrays */

	/* C++ demangler, looked up at run time (no build dependency). */
	bool cxx_tried;
	void *cxx_lib;
	sym_cxa_demangle_fn cxa_demangle;
	struct sym_demangle_ent *dm; /* dm_index.cnt entries, indexed by mangled */
	size_t dm_cap;
	struct tdr_hmap dm_index;

	/* Scratch for the inline walk, reused across lookups. */
	struct sym_inl_node **chain;
	size_t chain_cap;
	int32_t *inl_map; /* load_inlines: old node index -> new */
	size_t inl_map_cap;

	/* How many objects had their DWARF opened (dwfl_module_getdwarf): the
	 * tests check that naming functions alone never opens it. */
	size_t dwarf_open_cnt;
	/* How many subprograms' inlines were listed on their first lookup
	 * (tdr_symbolizer__expect said nothing of them; for tests). */
	size_t deferred_listed;

	struct sym_kernel kernel;

	struct sym_dcache dcache;

	/* Answers from opts.archive (archived.c): each address's inline array,
	 * made on first use; lookups answered by it and those it did not cover. */
	const struct tdr_inline_frame **arch_frames;
	uint64_t arch_hits, arch_live;
};

/* elf.c */
/* Open path for reading only when it is a regular file, without blocking
 * on a FIFO or taking a terminal. Returns the fd, -EISDIR, -TDR_E_NOTREG or
 * -errno. */
int tdr_symbolize_open_regular(const char *path);
/* Does the recorded build-id (rec; recorders may zero-pad it to 20 bytes)
 * equal the file's (file_sz <= 0: the file has none)? */
bool tdr_symbolize_build_id_matches(const uint8_t *rec, size_t rec_sz, const unsigned char *file,
				    int file_sz);
int tdr_symbolize_dso__open(struct tdr_symbolizer *s, struct sym_dso *d);
void tdr_symbolize_dso__close(struct sym_dso *d);
/* File offset -> maddr. Returns false when no PT_LOAD holds the offset. */
bool tdr_symbolize_dso__off_to_maddr(const struct sym_dso *d, uint64_t off, uint64_t *maddr);
/* Sort d->expect and drop repeats, unless done since the last
 * tdr_symbolizer__expect (symbolizer.c). */
void tdr_symbolize_expect__sort(struct sym_dso *d);
/* Is maddr in a PLT section (linker-made stubs that no DWARF describes)? */
bool tdr_symbolize_dso__in_plt(const struct sym_dso *d, uint64_t maddr);

/* plt.c: the named PLT stubs of the main file elf (x86-64; none elsewhere),
 * in vaddr space; names in s's arena. *out (caller frees) may be NULL with
 * *cnt 0. Returns 0 or -ENOMEM. */
struct sym_plt_stub {
	uint64_t vaddr, size;
	const char *name;
};
int tdr_symbolize_plt__stubs(struct tdr_symbolizer *s, Elf *elf, struct sym_plt_stub **out,
			     size_t *cnt);

/* dwarf_names.c: the name and entry of subprogram sub_idx of c, read
 * once; the innermost-first inline frames of s->chain[0..n) (outermost
 * first) into r. Return 0 or -ENOMEM. */
int tdr_symbolize_dwarf_sub_name(struct tdr_symbolizer *s, struct sym_cu *c, size_t sub_idx);
int tdr_symbolize_dwarf_frames(struct tdr_symbolizer *s, struct sym_dso *d, struct sym_cu *c,
			       size_t n, struct sym_dwarf_res *r);
/* dwarf.c: fill r for maddr (r is zeroed first). Returns 0 or -ENOMEM. */
int tdr_symbolize_dwarf__resolve(struct tdr_symbolizer *s, struct sym_dso *d, uint64_t maddr,
				 struct sym_dwarf_res *r);
/* dwarf.c: the index of the compile unit holding maddr into *unit
 * (UINT64_MAX: none) and its size in bytes into *bytes (0: none). Returns
 * 0 or -ENOMEM. */
int tdr_symbolize_dwarf__unit(struct tdr_symbolizer *s, struct sym_dso *d, uint64_t maddr,
			      uint64_t *unit, uint64_t *bytes);
void tdr_symbolize_dwarf__free(struct sym_dso *d);

/* archived.c: a kernel address from opts.archive. Returns 1 (answered), 0
 * (not archived, or no archive), -ENOMEM. */
/* Whether the archive answers (dso, file_off), without counting a lookup. */
bool tdr_symbolize_archived__covers(const struct tdr_symbolizer *s, const struct tdr_dso_ref *dso,
				    uint64_t file_off);
int tdr_symbolize_archived__kernel(struct tdr_symbolizer *s, uint64_t ip, struct tdr_sym *out);

/* kernel.c */
int tdr_symbolize_kernel__lookup(struct tdr_symbolizer *s, uint64_t ip, struct tdr_sym *out);
void tdr_symbolize_kernel__free(struct sym_kernel *k);

/* demangle.c: the display name of a symbol or DWARF linkage name; returns
 * name itself when it is not a C++ name or cannot be demangled, NULL only on
 * allocation failure. The result lives until the symbolizer is freed. */
const char *tdr_symbolize_demangle(struct tdr_symbolizer *s, const char *name);
void tdr_symbolize_demangle__free(struct tdr_symbolizer *s);

/* ---------------------------------------------------------------------------
 * Used inside the module and by its tests only (no other module calls these).
 */
/* Name of a status, e.g. "changed". */
const char *tdr_sym_status_name(enum tdr_sym_status st);

#endif /* TDREC_SYMBOLIZE_INT_H */
