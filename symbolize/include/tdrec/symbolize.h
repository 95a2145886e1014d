/*
 * symbolize/include/tdrec/symbolize.h - addresses to functions, inline chains
 * and source lines (libelf, libdw).
 *
 * Responsibility: given a mapped object (path and build-id) and an offset into
 * that file, or a kernel address, tell the function it belongs to, the chain
 * of functions inlined at that address with their call sites, and the source
 * file:line. It never reads recordings and never prints.
 * Objects and lifecycle: tdr_symbolizer__new -> __lookup_* (repeat) -> __free.
 * Caching: one entry per object (keyed by path and build-id), opened once;
 * every (object, offset) is resolved once and cached, so callers may look up
 * the same address many times cheaply.
 * Ownership and threads: results are borrowed and stay valid until the
 * symbolizer is freed. One symbolizer per thread.
 */
#ifndef TDREC_SYMBOLIZE_H
#define TDREC_SYMBOLIZE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tdrec/tdr_api.h"

struct tdr_symbolizer;
struct tdr_kallsyms;
struct tdr_archive;

struct tdr_symbolizer_opts {
	bool want_lines;   /* source file:line of the leaf */
	bool want_inlines; /* inline chains */
	/* Kernel symbols: path to a kallsyms file (NULL = /proc/kallsyms), and
	 * whether it applies (the report runs on the recording host and boot). */
	const char *kallsyms_path;
	bool kallsyms_usable;
	/* The kernel symbol table, possibly being loaded already (see
	 * tdr_kallsyms__new): borrowed, must outlive the symbolizer. When set,
	 * kallsyms_path is not used; when NULL, the symbolizer reads
	 * kallsyms_path itself (no cache) on its first kernel lookup. */
	struct tdr_kallsyms *kallsyms;
	/* Kernel symbols also apply when the recording names its kernel image
	 * (perf.data files, which carry no boot id) and that image is the
	 * running kernel: kernel_build_id equals the build-id in
	 * kernel_notes_path (NULL = /sys/kernel/notes), and kallsyms has the
	 * symbol kernel_ref_sym (perf's "_text") at kernel_ref_addr, the
	 * address it had when recorded (the same KASLR placement). Without
	 * kernel_ref_sym the placement cannot be checked and this does not
	 * apply. Copied by __new. */
	const uint8_t *kernel_build_id;
	size_t kernel_build_id_sz;
	const char *kernel_ref_sym;
	uint64_t kernel_ref_addr;
	const char *kernel_notes_path;
	/* A recording without the kernel's build-id (perf.data without its
	 * BUILD_ID feature: perf record -z, -B, a --switch-output chunk, pipe
	 * mode) names the kernel by its release (OSRELEASE): kallsyms apply
	 * when the running release (running_release; NULL = uname) is the
	 * same and kernel_ref_sym is at kernel_ref_addr (the same KASLR
	 * placement: the same boot). Copied by __new. */
	const char *kernel_release;
	const char *running_release;
	/* When the recording ended (CLOCK_REALTIME, ns; 0 = unknown). An object
	 * recorded without a build-id whose file was modified after this time
	 * is not the one that ran: TDR_SYM_CHANGED, never symbolized. */
	uint64_t recorded_until_ns;
	/* tdrec's cache directory (see tdr_kallsyms_opts.cache_dir); NULL or
	 * "" = none. With want_lines or want_inlines, a debug file (or an
	 * object with its own DWARF) whose .debug_* sections are compressed is
	 * read from an uncompressed copy in <cache_dir>/debug/<build-id>.debug,
	 * written the first time (docs/symbolize.md "Debug file cache").
	 * Copied by __new. */
	const char *cache_dir;
	/* The most bytes those copies take together: a larger copy is not
	 * written, and the least recently used ones are removed to make room
	 * for a new one. 0 = TDR_DEBUG_CACHE_MAX_SZ. */
	uint64_t debug_cache_max_sz;
	/* The recording's archived symbols (docs/format.md 7.2, from
	 * tdr_parser__archive), or NULL. Borrowed: must outlive the
	 * symbolizer. Lookups are answered from it first, without opening any
	 * file; only addresses it does not cover are looked up live
	 * (docs/symbolize.md "Archived symbols"). */
	const struct tdr_archive *archive;
	/* When no debug file is found locally, let libdw ask its debuginfod
	 * client (only when DEBUGINFOD_URLS is set; docs/symbolize.md
	 * "Separate debug information, and no network"). For archiving, which
	 * reads the debug information once for good; reports leave it off
	 * and never wait on the network. */
	bool debuginfod;
};

#define TDR_DEBUG_CACHE_MAX_SZ (1ull << 30)

enum tdr_sym_status {
	TDR_SYM_OK = 0,	   /* function found */
	TDR_SYM_NO_SYMBOL, /* object read, but no symbol covers the address */
	TDR_SYM_MISSING,   /* object file not found or unreadable */
	TDR_SYM_CHANGED,   /* object's build-id differs from the recorded one, or,
			    * none recorded, its file is newer than the recording */
	TDR_SYM_NO_KERNEL, /* kernel address, kernel symbols not usable */
	TDR_SYM_NOT_ELF,   /* object path exists but is not an ELF file (or not a
			    * regular file: a directory, FIFO or device, never
			    * opened) */
};

/* One inlined call, innermost first. */
struct tdr_inline_frame {
	const char *function;  /* the inlined callee */
	const char *call_file; /* where it was inlined (in the next outer function) */
	uint32_t call_line;
	uint32_t call_column;
};

struct tdr_sym {
	enum tdr_sym_status status;
	/* The physical (outermost, not inlined) function, demangled when it is a
	 * C++ name; NULL unless status is TDR_SYM_OK. */
	const char *function;
	uint64_t function_offset; /* address - start of function */
	uint64_t function_size;	  /* bytes of the ELF symbol; 0 when unknown */
	/* Source location of the address itself (the innermost inline's line);
	 * NULL/0 when unknown or not requested. */
	const char *file;
	uint32_t line;
	uint32_t column;
	size_t inline_cnt;
	const struct tdr_inline_frame *inlines; /* innermost first */
};

/* A mapped object as recorded. build_id may be NULL (build_id_sz 0) when unknown. */
struct tdr_dso_ref {
	const char *path;
	const uint8_t *build_id;
	size_t build_id_sz;
};

/* Returns: 0 or -ENOMEM. */
TDR_API int tdr_symbolizer__new(const struct tdr_symbolizer_opts *opts,
				struct tdr_symbolizer **out);

/*
 * Symbolize offset file_off of the object dso (an offset into the file, as
 * the parser's tdr_sample.map_off). The object's build-id is checked once
 * against dso->build_id when both are known. A dso named perf-PID.map or
 * jit-PID.dump is a JIT's list of functions (perf map file, jitdump) and
 * file_off is then the address in process PID (docs/symbolize.md "JIT
 * code").
 * Returns: 0 with *out filled (see out->status), or -ENOMEM. Errors of the
 * object itself (missing, changed, no DWARF) are statuses, not return codes.
 */
TDR_API int tdr_symbolizer__lookup(struct tdr_symbolizer *s, const struct tdr_dso_ref *dso,
				   uint64_t file_off, struct tdr_sym *out);

/*
 * Say which offsets of dso will be looked up (any order; may be called
 * again, the lists add up). A hint for speed only: with want_inlines, the
 * walk of a compile unit then lists the inline instances of the functions
 * that hold one of these offsets, and lists any other function's on its
 * first lookup; without a hint, every function's are listed as its unit
 * is walked. Answers are the same either way. Returns 0 or -ENOMEM.
 */
TDR_API int tdr_symbolizer__expect(struct tdr_symbolizer *s, const struct tdr_dso_ref *dso,
				   const uint64_t *file_offs, size_t cnt);

/*
 * The compile unit of each of file_offs[0..cnt) in dso, for dividing
 * lookups between workers so that no unit is read by two: unit[i] is an
 * index of its unit (equal index, same unit), or UINT64_MAX when the
 * archive answers it, or no unit covers it (no DWARF, the object missing
 * or changed); bytes[i] the unit's size in .debug_info (about what reading
 * it costs), 0 with UINT64_MAX. Opens the object and its list of units as
 * a lookup would. Returns 0 or -ENOMEM.
 */
TDR_API int tdr_symbolizer__units(struct tdr_symbolizer *s, const struct tdr_dso_ref *dso,
				  const uint64_t *file_offs, size_t cnt, uint64_t *unit,
				  uint64_t *bytes);

/*
 * Only from the archive (opts.archive): the answer for (dso, file_off) if
 * it is archived (__lookup does this first itself; a caller that looks up
 * an object under another path than the recorded one asks with the
 * recorded one first). Returns: 1 with *out filled, 0 when not archived,
 * -ENOMEM.
 */
TDR_API int tdr_symbolizer__lookup_archived(struct tdr_symbolizer *s,
					    const struct tdr_dso_ref *dso, uint64_t file_off,
					    struct tdr_sym *out);

/* How many lookups the archive answered, and how many it did not cover
 * (then looked up live); both 0 without an archive. */
TDR_API void tdr_symbolizer__archive_counts(const struct tdr_symbolizer *s, uint64_t *archived,
					    uint64_t *live);

/* Symbolize a kernel address. Returns: 0 or -ENOMEM. */
TDR_API int tdr_symbolizer__lookup_kernel(struct tdr_symbolizer *s, uint64_t ip,
					  struct tdr_sym *out);

/* Why kernel symbols are not usable, in a few words ("recorded on kernel
 * 6.1.0, running 6.18.4"), once a kernel lookup has decided it; NULL when
 * they are usable or none was looked up. Valid until __free. */
TDR_API const char *tdr_symbolizer__kernel_why(const struct tdr_symbolizer *s);

TDR_API void tdr_symbolizer__free(struct tdr_symbolizer *s);

/*
 * Unwinding user stack copies (recordings made with --call-graph dwarf):
 * libdw's unwinder over the copied stack, one libdwfl session per process.
 * The caller says where objects are mapped (find, e.g. from the parser's
 * address spaces): path, start, length and file offset of the mapping of
 * addr in process pid; false when none (or anonymous memory).
 */
struct tdr_unwinder;

struct tdr_unwind_map {
	const char *path;
	uint64_t start, len, pgoff;
	/* The object's recorded build-id (0 bytes: unknown); a file with
	 * another one is not used. */
	uint8_t build_id_sz;
	uint8_t build_id[20];
};
typedef bool (*tdr_unwind_find_fn)(void *ctx, uint32_t pid, uint64_t addr,
				   struct tdr_unwind_map *out);

/* One sample's user state, as the kernel recorded it (borrowed). */
struct tdr_unwind_regs {
	uint32_t pid, tid;
	uint64_t mask;		/* the attr's sample_regs_user */
	const uint8_t *regs;	/* one u64 per mask bit, in bit order (NULL: none) */
	const uint8_t *stack;	/* the copy of the stack from its pointer */
	uint64_t stack_sz;	/* bytes of it that hold data */
};

/* Returns: 0 or -ENOMEM. */
TDR_API int tdr_unwinder__new(tdr_unwind_find_fn find, void *ctx, struct tdr_unwinder **out);
/*
 * Walk the frames of regs into pcs (at most max): the interrupted pc
 * first, then each caller's return address as found on the stack (look
 * callers up with tdr_symbolize_caller_addr). The walk ends at the end of
 * the copy, at an object that cannot be read, or at max.
 * Returns the number of pcs (0 when the registers are missing, no object is
 * mapped at the pc, or this architecture is not x86_64 or aarch64), or
 * -ENOMEM.
 */
TDR_API int tdr_unwinder__unwind(struct tdr_unwinder *u, const struct tdr_unwind_regs *regs,
				 uint64_t *pcs, uint32_t max);
TDR_API void tdr_unwinder__free(struct tdr_unwinder *u);

/*
 * The address to look up for a caller frame (a parser tdr_frame): a return
 * address points after its call, which may be the first byte of the next
 * function or line (after a call to a noreturn function), so callers are
 * looked up one byte earlier, as perf's unwinders do. It applies alike to
 * a map offset (tdr_frame.map_off) and a kernel address. Never for the
 * sample's own ip, which is the interrupted instruction itself.
 */
static inline uint64_t tdr_symbolize_caller_addr(uint64_t ret_addr)
{
	return ret_addr ? ret_addr - 1 : 0;
}

/*
 * The kernel symbol table (kallsyms), loaded ahead of the first kernel
 * lookup. Reading /proc/kallsyms costs tens of milliseconds of kernel time,
 * so a report starts the load on a helper thread as soon as it sees a kernel
 * sample, and keeps a per-boot cache of the parsed table (docs/symbolize.md
 * "Kernel symbol cache").
 *
 *   tdr_kallsyms__new(opts, &k)       nothing read yet
 *   tdr_kallsyms__start(k)            optional: load on a helper thread now
 *   tdr_symbolizer_opts.kallsyms = k  the first kernel lookup waits for it
 *                                     (or loads it, when not started)
 *   tdr_symbolizer__free(s); tdr_kallsyms__free(k)
 *
 * Threads: the helper thread only reads files, builds the table and writes
 * the cache; it never logs (problems are logged by the thread that waits
 * for the table, and by __free).
 */
struct tdr_kallsyms_opts {
	const char *path; /* NULL = /proc/kallsyms */
	/* The cache's directory (created 0700 when missing); NULL or "" = no
	 * cache. The cache is keyed by boot_id (NULL or "" = no cache), a hash
	 * of modules_path (NULL = /proc/modules) and path. */
	const char *cache_dir;
	const char *boot_id;
	const char *modules_path;
};

/* Returns: 0 or -ENOMEM; *out is set only on success. Strings are copied. */
TDR_API int tdr_kallsyms__new(const struct tdr_kallsyms_opts *opts, struct tdr_kallsyms **out);

/* Start loading on a helper thread (once; later calls do nothing). When no
 * thread can be started the table is loaded by the first lookup instead.
 * Returns: 0. */
TDR_API int tdr_kallsyms__start(struct tdr_kallsyms *k);

/* Stop a load still running (or wait for the cache being written), join
 * the helper thread, release the table. Logs a failed cache write. */
TDR_API void tdr_kallsyms__free(struct tdr_kallsyms *k);

#endif /* TDREC_SYMBOLIZE_H */
