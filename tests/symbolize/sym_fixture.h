/*
 * tests/symbolize/sym_fixture.h - helpers for the symbolize tests.
 *
 * Responsibility: run shell commands (compilers, strip, objcopy, objdump,
 * eu-addr2line) in a temporary directory, read an ELF file's symbols,
 * sections, PT_LOAD segments and build-id with libelf (independently of the
 * code under test), list instruction addresses with objdump, and turn both
 * eu-addr2line output and tdrec results into one comparable form.
 * Ownership: every returned pointer is owned by the caller (free / fx_*_free).
 */
#ifndef TDREC_TESTS_SYM_FIXTURE_H
#define TDREC_TESTS_SYM_FIXTURE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tdrec/symbolize.h"

/* Run a shell command; returns its exit status (-1 if it could not run). The
 * command is printed when it fails. */
int fx_sh(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Run a shell command and return its whole stdout (NUL-terminated), or NULL. */
char *fx_sh_out(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Is this program on PATH? */
bool fx_have(const char *prog);

/* The whole file (caller frees; NULL when it cannot be read), its size in
 * *sz; one byte more is allocated. */
unsigned char *fx_read_file(const char *path, size_t *sz);

/* A fresh temporary directory (caller frees the string), and its removal. */
char *fx_tmpdir(void);
void fx_rmrf(const char *dir);
/* Directory of the fixture sources: $TDR_SOURCE_DIR/tests/symbolize/fixtures,
 * else the path compiled in as TDR_SYM_FIXTURES. */
const char *fx_src_dir(void);

struct fx_func {
	char name[128];
	uint64_t lo, size;
};

/* Sized STT_FUNC symbols of path's .symtab. Returns the count (or -1). */
int fx_elf_funcs(const char *path, struct fx_func **out);
/* One defined symbol of any type (fx_elf_syms). */
struct fx_sym {
	char name[128];
	uint64_t value, size;
	int type, bind;
	unsigned shndx;
};

/* Defined symbols of path's table of type sh_type (SHT_SYMTAB or SHT_DYNSYM).
 * Returns the count (0 when there is no such table), or -1. */
int fx_elf_syms(const char *path, unsigned sh_type, struct fx_sym **out);
/* Address and size of the first section called name; false when none. */
bool fx_elf_section(const char *path, const char *name, uint64_t *addr, uint64_t *size);
/* vaddr -> file offset through the PT_LOAD segment containing it. */
bool fx_vaddr_to_off(const char *path, uint64_t vaddr, uint64_t *off);
/* NT_GNU_BUILD_ID of path; returns its size (0 when none). */
size_t fx_build_id(const char *path, uint8_t *buf, size_t cap);

/* Addresses of the instructions of .text (objdump -d). Returns count or -1. */
int fx_insn_addrs(const char *path, uint64_t **out);

/* One address symbolized as eu-addr2line -f -i prints it: (function, place)
 * pairs from the innermost inline to the physical function. */
#define FX_MAX_FRAMES 16
struct fx_frames {
	size_t n;
	char name[FX_MAX_FRAMES][256];
	char place[FX_MAX_FRAMES][512];
	/* eu-addr2line only: its first line "f inlined at PLACE in g" */
	bool first_inlined;
	char first_call[512];
};

/* Run eu-addr2line -a -f -i -C --relative on cnt vaddrs of path. Returns
 * cnt on success (out has cnt entries), -1 on failure. */
int fx_eu_addr2line(const char *path, const uint64_t *vaddrs, size_t cnt, struct fx_frames *out);
/* The same form from a tdrec result. The outermost function name is cut at
 * an ELF clone suffix (".cold", ".constprop.0", " [clone .cold]") because
 * tdrec names it by its ELF symbol and eu-addr2line by its DWARF name. */
void fx_from_sym(const struct tdr_sym *sym, struct fx_frames *out);
/* Print both forms of one address (for failure messages). */
void fx_print_diff(uint64_t vaddr, const struct fx_frames *want, const struct fx_frames *got);
/*
 * Does tdrec's got match eu-addr2line's want? Normally every pair must be
 * equal. One eu-addr2line quirk is allowed for: it computes the -i chain at
 * the start address of the line-table row that holds the address (its
 * dwfl_lineinfo overwrites the address), so where that row starts in another
 * inline instance (clang's line-0 rows, glibc's argp and regexec), its first
 * line (from the address itself: "f inlined at PLACE in g", or just "g")
 * contradicts its own chain. Then only what it printed for the address is
 * compared (innermost name, leaf place, and the "inlined at" call site or
 * the absence of inlines), and *partial is set.
 */
bool fx_frames_match(const struct fx_frames *want, const struct fx_frames *got, bool *partial);

#endif /* TDREC_TESTS_SYM_FIXTURE_H */
