/*
 * symbolize/elf.c - open one object file: libdwfl session, build-id check,
 * program headers, executable sections and the sorted function symbol table
 * (functions and code labels; the separate debug file's .symtab when the
 * file has none).
 *
 * Responsibility: turn a recorded (path, build-id) into a struct sym_dso that
 * is either usable (status OK) or final in its failure (MISSING, CHANGED).
 * Each object gets its own Dwfl session, reported with dwfl_report_elf at
 * base 0 plus p_vaddr, so libdwfl module addresses are the file's own
 * virtual addresses plus main_bias (0 for ET_EXEC and ET_DYN alike). Separate debug files come
 * from our find_debuginfo callback: libdwfl's build-id lookup
 * (/usr/lib/debug/.build-id/xx/yyyy.debug) and then .gnu_debuglink in the
 * standard directories, searched here so that debuginfod is never contacted
 * (dwfl_standard_find_debuginfo would try it when DEBUGINFOD_URLS is set).
 * The "[vdso]" object is the running process's own vDSO image, copied into a
 * memfd: valid when the report runs on the kernel that recorded.
 * Ownership and threads: the Dwfl owns the file descriptor once reported;
 * symbol names are borrowed from its ELF string tables until tdr_symbolize_dso__close.
 * See: docs/symbolize.md; elfutils libdwfl.h.
 */
#include "symbolize_int.h"

#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <elfutils/libdwelf.h>

#define LOG_PREFIX "symbolize: "
#include "tdrec/tdr_err.h"
#include "tdrec/tdr_log.h"
#include "tdrec/tdr_mem.h"

#define VDSO_NAME "[vdso]"
#define VDSO_MAX_SZ (1u << 20)
#define DEBUG_DIR "/usr/lib/debug"

/*
 * Open path for reading when it is a regular file. The paths come from a
 * recording or from an ELF file's .gnu_debuglink (both untrusted): a path
 * that now names a FIFO would block open() forever, a tty or a tape device
 * would be opened (a tape rewinds on close). So the type is checked with
 * stat() before opening, the open does not block (O_NONBLOCK, cleared after:
 * it means nothing for a regular file) nor take a controlling terminal, and
 * fstat() checks that what was opened is still a regular file. Returns the
 * fd, -EISDIR, -TDR_E_NOTREG or -errno.
 */
int tdr_symbolize_open_regular(const char *path)
{
	struct stat st;
	int fd, err;

	if (stat(path, &st))
		return -errno;
	if (!S_ISREG(st.st_mode))
		return S_ISDIR(st.st_mode) ? -EISDIR : -TDR_E_NOTREG;
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st)) {
		err = -errno;
		close(fd);
		return err;
	}
	if (!S_ISREG(st.st_mode)) {
		close(fd);
		return -TDR_E_NOTREG;
	}
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
	return fd;
}

/* Main files are always given to libdwfl with their descriptor. */
static int find_elf_none(Dwfl_Module *mod, void **userdata, const char *modname,
			 Dwarf_Addr base, char **file_name, Elf **elfp)
{
	(void)mod, (void)userdata, (void)modname, (void)base, (void)file_name;
	*elfp = NULL;
	return -1;
}

/* Open dir/name and keep it when it is not the main file itself and, when the
 * main file has a build-id, when the candidate carries the same one. */
static int try_debug_file(const char *dir, const char *name, const struct stat *main_st,
			  const unsigned char *bid, int bid_sz, char **out_name)
{
	char path[PATH_MAX];
	struct stat st;
	int fd, n;

	n = snprintf(path, sizeof(path), "%s%s%s", dir, dir[0] ? "/" : "", name);
	if (n < 0 || (size_t)n >= sizeof(path))
		return -1;
	fd = tdr_symbolize_open_regular(path);
	if (fd < 0)
		return -1;
	if (fstat(fd, &st) || (main_st && st.st_dev == main_st->st_dev &&
			       st.st_ino == main_st->st_ino))
		goto reject;
	if (bid_sz > 0) {
		Elf *elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
		const void *dbid = NULL;
		ssize_t dn = elf ? dwelf_elf_gnu_build_id(elf, &dbid) : -1;
		bool same = dn == bid_sz && memcmp(dbid, bid, (size_t)dn) == 0;

		elf_end(elf);
		if (!same)
			goto reject;
	}
	*out_name = strdup(path); /* freed by libdwfl with free() */
	return fd;
reject:
	close(fd);
	return -1;
}

/* debuglink in the directory of file_name (absolute), its .debug/, and
 * /usr/lib/debug/<dir>/: the default debuginfo path ":.debug:/usr/lib/debug". */
static int search_debuglink(const char *file_name, const char *debuglink,
			    const unsigned char *bid, int bid_sz, char **out_name)
{
	char dir[PATH_MAX], sub[PATH_MAX];
	struct stat main_st, *mst = NULL;
	const char *slash = strrchr(file_name, '/');
	int fd;

	if (file_name[0] != '/' || (size_t)(slash - file_name) >= sizeof(dir))
		return -1;
	if (stat(file_name, &main_st) == 0)
		mst = &main_st;
	memcpy(dir, file_name, (size_t)(slash - file_name));
	dir[slash - file_name] = '\0';

	fd = try_debug_file(dir[0] ? dir : "/", debuglink, mst, bid, bid_sz, out_name);
	if (fd < 0 && snprintf(sub, sizeof(sub), "%s/.debug", dir) < (int)sizeof(sub))
		fd = try_debug_file(sub, debuglink, mst, bid, bid_sz, out_name);
	if (fd < 0 && snprintf(sub, sizeof(sub), DEBUG_DIR "%s", dir) < (int)sizeof(sub))
		fd = try_debug_file(sub, debuglink, mst, bid, bid_sz, out_name);
	return fd;
}

/*
 * Dwfl_Callbacks.find_debuginfo without network: the build-id tree first (the
 * standard libdwfl callback for it), then the .gnu_debuglink name next to the
 * file, and next to its symlink target. An absolute link name (a dwz
 * alternate file) is tried as it is. A debuglink candidate is accepted when
 * its build-id equals the main file's (its CRC is not checked when the main
 * file has no build-id).
 */
static int find_debuginfo_local(Dwfl_Module *mod, void **userdata, const char *modname,
				Dwarf_Addr base, const char *file_name, const char *debuglink,
				GElf_Word crc, char **debuginfo_file_name)
{
	const unsigned char *bid = NULL;
	GElf_Addr bid_vaddr;
	char *canon;
	int fd, bid_sz;

	fd = dwfl_build_id_find_debuginfo(mod, userdata, modname, base, file_name, debuglink, crc,
					  debuginfo_file_name);
	if (fd >= 0 || !debuglink || !debuglink[0] || !file_name)
		return fd;
	bid_sz = dwfl_module_build_id(mod, &bid, &bid_vaddr);
	if (debuglink[0] == '/')
		return try_debug_file("", debuglink, NULL, NULL, 0, debuginfo_file_name);
	fd = search_debuglink(file_name, debuglink, bid, bid_sz, debuginfo_file_name);
	if (fd >= 0)
		return fd;
	canon = realpath(file_name, NULL);
	if (canon && strcmp(canon, file_name))
		fd = search_debuglink(canon, debuglink, bid, bid_sz, debuginfo_file_name);
	free(canon);
	return fd;
}

/* libdwfl asks for a dwz alternate file with the .gnu_debugaltlink name as
 * debuglink, and for the module's debug file with the main file's own
 * .gnu_debuglink name (or none). */
static bool asks_for_altlink(Dwfl_Module *mod, const char *debuglink)
{
	GElf_Addr bias;
	GElf_Word crc;
	const char *own = NULL;
	Elf *elf;

	if (!debuglink)
		return false;
	elf = dwfl_module_getelf(mod, &bias);
	if (elf)
		own = dwelf_elf_gnu_debuglink(elf, &crc);
	return !own || strcmp(own, debuglink) != 0;
}

/* DEBUG_DIR/.build-id/xx/yyyy.debug for the module's build-id, when it
 * carries that build-id: the path dwfl_build_id_find_debuginfo tries. */
static int open_by_build_id(Dwfl_Module *mod, char **out_name)
{
	const unsigned char *bid = NULL;
	GElf_Addr bid_vaddr;
	char name[2 * 64 + sizeof("/.debug")];
	int n = dwfl_module_build_id(mod, &bid, &bid_vaddr), len;

	if (n < 2 || n > 64)
		return -1;
	len = snprintf(name, sizeof(name), "%02x/", bid[0]);
	for (int i = 1; i < n; i++)
		len += snprintf(name + len, sizeof(name) - (size_t)len, "%02x", bid[i]);
	snprintf(name + len, sizeof(name) - (size_t)len, ".debug");
	return try_debug_file(DEBUG_DIR "/.build-id", name, NULL, bid, n, out_name);
}

/*
 * Dwfl_Callbacks.find_debuginfo: find_debuginfo_local, and with the debug
 * file cache on (the module's userdata, set by report_fd) the file found is
 * handed over as its uncompressed copy (debugcache.c). libdwfl's build-id
 * lookup cannot serve then: it keeps the ELF handle it opened on the file
 * it found and reads that, whatever descriptor the callback returns; so the
 * same path is tried here first. A dwz alternate file is left as libdwfl
 * finds it, never copied. The name stays the original's, for messages and
 * for relative alternate file names.
 */
static int find_debuginfo_cached(Dwfl_Module *mod, void **userdata, const char *modname,
				 Dwarf_Addr base, const char *file_name, const char *debuglink,
				 GElf_Word crc, char **debuginfo_file_name)
{
	struct sym_dcache *c = *userdata;
	int fd;

	if (!c || asks_for_altlink(mod, debuglink))
		return find_debuginfo_local(mod, userdata, modname, base, file_name, debuglink, crc,
					    debuginfo_file_name);
	fd = open_by_build_id(mod, debuginfo_file_name);
	if (fd < 0)
		fd = find_debuginfo_local(mod, userdata, modname, base, file_name, debuglink, crc,
					  debuginfo_file_name);
	return fd < 0 ? fd : tdr_symbolize_dcache__swap(c, fd, *debuginfo_file_name, NULL, 0);
}

static const Dwfl_Callbacks dso_callbacks = {
	.find_elf = find_elf_none,
	.find_debuginfo = find_debuginfo_cached,
	.section_address = dwfl_offline_section_address,
};

/*
 * Dwfl_Callbacks.find_debuginfo of an archiving symbolizer
 * (tdr_symbolizer_opts.debuginfod): the local search above first; when it
 * finds nothing, libdwfl's standard callback, which searches its default
 * paths and then, only when DEBUGINFOD_URLS is set, asks libdw's debuginfod
 * client (libdebuginfod, loaded by libdw when installed; DEBUGINFOD_TIMEOUT
 * and DEBUGINFOD_CACHE_PATH apply). Archiving is the one moment the debug
 * information is read for good, so it may wait on a server; a report never
 * does (dso_callbacks).
 */
static int find_debuginfo_net(Dwfl_Module *mod, void **userdata, const char *modname,
			      Dwarf_Addr base, const char *file_name, const char *debuglink,
			      GElf_Word crc, char **debuginfo_file_name)
{
	int fd = find_debuginfo_cached(mod, userdata, modname, base, file_name, debuglink, crc,
				       debuginfo_file_name);
	const char *urls = getenv("DEBUGINFOD_URLS");

	/* Without a server named, the standard callback would only search the
	 * directories searched above again, after loading libdebuginfod (and
	 * with it libcurl: 15 M instructions) to learn that there is none. */
	if (fd >= 0 || !urls || !*urls)
		return fd;
	return dwfl_standard_find_debuginfo(mod, userdata, modname, base, file_name, debuglink,
					    crc, debuginfo_file_name);
}

static const Dwfl_Callbacks dso_callbacks_net = {
	.find_elf = find_elf_none,
	.find_debuginfo = find_debuginfo_net,
	.section_address = dwfl_offline_section_address,
};

/* Copy the running vDSO (getauxval(AT_SYSINFO_EHDR)) into a memfd so that it
 * goes through the same path as a file. Returns an fd or -errno. */
static int vdso_memfd(void)
{
	const unsigned char *img = (const void *)getauxval(AT_SYSINFO_EHDR);
	const Elf64_Ehdr *eh = (const void *)img;
	uint64_t sz;
	int fd, err;

	if (!img)
		return -ENOENT;
	if (memcmp(eh->e_ident, ELFMAG, SELFMAG) || eh->e_ident[EI_CLASS] != ELFCLASS64)
		return -ENOEXEC;
	/* The image is the whole vdso.so: headers, sections and section
	 * headers all lie inside the mapping. */
	sz = eh->e_shoff + (uint64_t)eh->e_shnum * eh->e_shentsize;
	for (unsigned i = 0; i < eh->e_phnum; i++) {
		const Elf64_Phdr *ph = (const void *)(img + eh->e_phoff + i * eh->e_phentsize);

		if (ph->p_type == PT_LOAD && ph->p_offset + ph->p_filesz > sz)
			sz = ph->p_offset + ph->p_filesz;
	}
	if (sz < sizeof(*eh) || sz > VDSO_MAX_SZ)
		return -E2BIG;
	fd = memfd_create("tdrec-vdso", MFD_CLOEXEC);
	if (fd < 0)
		return -errno;
	for (uint64_t done = 0; done < sz;) {
		ssize_t n = write(fd, img + done, sz - done);

		if (n <= 0) {
			err = n < 0 ? -errno : -EIO;
			close(fd);
			return err;
		}
		done += (uint64_t)n;
	}
	return fd;
}

bool tdr_symbolize_build_id_matches(const uint8_t *rec, size_t rec_sz, const unsigned char *file,
				    int file_sz)
{
	if (file_sz <= 0 || rec_sz < (size_t)file_sz)
		return false;
	if (memcmp(rec, file, (size_t)file_sz))
		return false;
	for (size_t i = (size_t)file_sz; i < rec_sz; i++)
		if (rec[i])
			return false;
	return true;
}

/* Was the open file fd modified after the recording ended (opts.recorded_until_ns)? */
static bool newer_than_recording(const struct tdr_symbolizer *s, int fd)
{
	struct stat st;
	uint64_t mtime_ns;

	if (!s->opts.recorded_until_ns || fstat(fd, &st) || st.st_mtim.tv_sec < 0)
		return false;
	mtime_ns = (uint64_t)st.st_mtim.tv_sec * 1000000000ull + (uint64_t)st.st_mtim.tv_nsec;
	return mtime_ns > s->opts.recorded_until_ns;
}

static int load_segments(struct sym_dso *d, Elf *elf)
{
	size_t n = 0;

	if (elf_getphdrnum(elf, &n) || !n)
		return 0;
	d->segs = tdr_calloc(n, sizeof(*d->segs));
	if (!d->segs)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD)
			continue;
		d->segs[d->seg_cnt++] = (struct sym_seg){
			.off = ph.p_offset,
			.filesz = ph.p_filesz,
			.vaddr = ph.p_vaddr,
			.memsz = ph.p_memsz,
			.exec = ph.p_flags & PF_X,
		};
	}
	return 0;
}

bool tdr_symbolize_dso__off_to_maddr(const struct sym_dso *d, uint64_t off, uint64_t *maddr)
{
	/* Executable segments first: samples land in code. */
	for (int pass = 0; pass < 2; pass++) {
		for (size_t i = 0; i < d->seg_cnt; i++) {
			const struct sym_seg *g = &d->segs[i];

			if (g->exec != (pass == 0))
				continue;
			if (off >= g->off && off - g->off < g->filesz) {
				*maddr = off - g->off + g->vaddr + d->main_bias;
				return true;
			}
		}
	}
	return false;
}

struct sym_cand {
	uint64_t lo, size;
	const char *name;
	int rank;
};

/* Functions before code labels (STT_NOTYPE), then global over weak over
 * local. */
static int sym_rank(int type, int bind)
{
	return (type == STT_NOTYPE ? 3 : 0) + (bind == STB_GLOBAL ? 0 : bind == STB_WEAK ? 1 : 2);
}

/* Order by address, then the alias to show first: function over label,
 * global over weak over local, fewer leading underscores, shorter, then by
 * name (deterministic). */
static int cand_cmp(const void *a, const void *b)
{
	const struct sym_cand *x = a, *y = b;

	if (x->lo != y->lo)
		return x->lo < y->lo ? -1 : 1;
	return tdr_symbolize_alias_cmp(x->rank, x->name, y->rank, y->name, true);
}

/*
 * Sort candidates into cand_cmp's order: by address with a stable radix
 * sort (8-bit digits, skipping the digits all addresses share), then each
 * run of one address (aliases, a few at most) with cand_cmp.
 * With libc's symbol table (thousands of symbols), qsort's comparisons
 * were most of the time a report by function spent symbolizing. Without
 * memory for the scratch copy, qsort does it.
 */
static void sort_cands(struct sym_cand *c, size_t cnt)
{
	size_t count[8][256] = {{0}};
	struct sym_cand *tmp, *src = c, *dst;

	if (cnt < 2 || !(tmp = tdr_malloc(cnt * sizeof(*tmp)))) {
		qsort(c, cnt, sizeof(*c), cand_cmp);
		return;
	}
	for (size_t i = 0; i < cnt; i++)
		for (unsigned d = 0; d < 8; d++)
			count[d][(c[i].lo >> (8 * d)) & 0xff]++;
	dst = tmp;
	for (unsigned d = 0; d < 8; d++) {
		size_t pos = 0;

		if (count[d][(c[0].lo >> (8 * d)) & 0xff] == cnt)
			continue; /* every address has this digit */
		for (unsigned b = 0; b < 256; b++) {
			size_t n = count[d][b];

			count[d][b] = pos;
			pos += n;
		}
		for (size_t i = 0; i < cnt; i++)
			dst[count[d][(src[i].lo >> (8 * d)) & 0xff]++] = src[i];
		dst = src;
		src = src == c ? tmp : c;
	}
	if (src != c)
		memcpy(c, src, cnt * sizeof(*c));
	free(tmp);
	/* Each run of one address: by insertion when short, else by qsort (a
	 * file with thousands of symbols at one address stays n log n). */
	for (size_t lo = 0, hi; lo < cnt; lo = hi) {
		for (hi = lo + 1; hi < cnt && c[hi].lo == c[lo].lo; hi++)
			;
		if (hi - lo > 16) {
			qsort(c + lo, hi - lo, sizeof(*c), cand_cmp);
			continue;
		}
		for (size_t i = lo + 1; i < hi; i++) {
			struct sym_cand x = c[i];
			size_t j = i;

			for (; j > lo && cand_cmp(&c[j - 1], &x) > 0; j--)
				c[j] = c[j - 1];
			c[j] = x;
		}
	}
}

/* Executable sections of the main file: where code symbols may lie, and
 * which code is PLT. A file without section headers leaves secs NULL. */
static int load_sections(struct sym_dso *d, Elf *elf)
{
	size_t n = 0, shstrndx;
	Elf_Scn *scn = NULL;

	if (elf_getshdrnum(elf, &n) || n == 0 || elf_getshdrstrndx(elf, &shstrndx))
		return 0;
	d->secs = tdr_calloc(n, sizeof(*d->secs));
	if (!d->secs)
		return -ENOMEM;
	while ((scn = elf_nextscn(elf, scn)) != NULL) {
		const char *name;
		GElf_Shdr sh;

		if (!gelf_getshdr(scn, &sh) || !sh.sh_size ||
		    (sh.sh_flags & (SHF_ALLOC | SHF_EXECINSTR)) != (SHF_ALLOC | SHF_EXECINSTR))
			continue;
		name = elf_strptr(elf, shstrndx, sh.sh_name);
		d->secs[d->sec_cnt++] = (struct sym_sec){
			.lo = sh.sh_addr + d->main_bias,
			.hi = sh.sh_addr + d->main_bias + sh.sh_size,
			/* .plt, .plt.got, .plt.sec (IBT), .iplt (static IFUNC) */
			.plt = name && (!strncmp(name, ".plt", 4) || !strcmp(name, ".iplt")),
		};
	}
	return 0;
}

bool tdr_symbolize_dso__in_plt(const struct sym_dso *d, uint64_t maddr)
{
	for (size_t i = 0; i < d->sec_cnt; i++)
		if (maddr >= d->secs[i].lo && maddr < d->secs[i].hi)
			return d->secs[i].plt;
	return false;
}

/* End of the segment (maddr) holding maddr, or 0 when none does; exec: only
 * executable segments. */
static uint64_t seg_end(const struct sym_dso *d, uint64_t maddr, bool exec)
{
	for (size_t i = 0; i < d->seg_cnt; i++) {
		uint64_t lo = d->segs[i].vaddr + d->main_bias;

		if (exec && !d->segs[i].exec)
			continue;
		if (maddr >= lo && maddr - lo < d->segs[i].memsz)
			return lo + d->segs[i].memsz;
	}
	return 0;
}

/* End of the code holding maddr: its executable section, or its executable
 * segment in a file without section headers; 0 when maddr is not code. */
static uint64_t code_end(const struct sym_dso *d, uint64_t maddr)
{
	if (!d->secs)
		return seg_end(d, maddr, true);
	for (size_t i = 0; i < d->sec_cnt; i++)
		if (maddr >= d->secs[i].lo && maddr < d->secs[i].hi)
			return d->secs[i].hi;
	return 0;
}

/*
 * Function symbols (symtab, else dynsym, as libdwfl picks: the main file, a
 * separate debug file, or .gnu_debugdata) into a sorted range table. A file
 * without .symtab whose debug file has one (Debian's libc and ld.so) thus
 * gets all its functions, static ones included, from that file's .symtab,
 * which is never compressed: naming a function does not need DWARF.
 * Code labels (STT_NOTYPE symbols in executable sections: assembly entry
 * points such as ld.so's _start and _dl_start_user) count too, as they do
 * for eu-addr2line. Aliases at one address collapse to one name. A symbol
 * without size extends to the next symbol or the end of its section
 * (segment); like libdwfl, one that lies inside a sized symbol (a label in
 * a function) is left out, so that the function keeps its whole range.
 */
static int load_symbols(struct tdr_symbolizer *s, struct sym_dso *d, Elf *elf)
{
	struct sym_cand *c = NULL;
	struct sym_range *r = NULL;
	struct sym_plt_stub *plt = NULL;
	uint64_t sized_end = 0;
	size_t cnt = 0, out = 0, plt_cnt = 0;
	int n, err;

	n = dwfl_module_getsymtab(d->mod);
	if (n <= 0) {
		tdr_debug("%s: no symbol table: %s", d->path, dwfl_errmsg(-1));
		return 0;
	}
	err = tdr_symbolize_plt__stubs(s, elf, &plt, &plt_cnt);
	if (err)
		return err;
	err = -ENOMEM;
	c = tdr_calloc((size_t)n + plt_cnt, sizeof(*c));
	if (!c)
		goto out;
	/* PLT stubs are named like objdump's "read@plt"; last among aliases. */
	for (size_t i = 0; i < plt_cnt; i++)
		c[cnt++] = (struct sym_cand){.lo = plt[i].vaddr + d->main_bias,
					     .size = plt[i].size, .name = plt[i].name, .rank = 6};
	for (int i = 0; i < n; i++) {
		GElf_Sym sym;
		GElf_Addr addr;
		GElf_Word shndx;
		const char *name = dwfl_module_getsym_info(d->mod, i, &sym, &addr, &shndx, NULL,
							   NULL);
		int type = GELF_ST_TYPE(sym.st_info);

		/* A value of 0 is no code (as libdwfl's own lookup has it);
		 * tested on the file's value, not on the biased address. */
		if (!name || !name[0] || shndx == SHN_UNDEF || sym.st_value == 0)
			continue;
		if (type != STT_FUNC && type != STT_GNU_IFUNC &&
		    (type != STT_NOTYPE || !code_end(d, addr)))
			continue;
		c[cnt++] = (struct sym_cand){ .lo = addr, .size = sym.st_size, .name = name,
					      .rank = sym_rank(type, GELF_ST_BIND(sym.st_info)) };
	}
	sort_cands(c, cnt);

	r = tdr_calloc(cnt ? cnt : 1, sizeof(*r));
	d->sym_names = tdr_calloc(cnt ? cnt : 1, sizeof(*d->sym_names));
	if (!r || !d->sym_names)
		goto out;
	for (size_t i = 0, j; i < cnt; i = j) {
		uint64_t size = 0;

		for (j = i; j < cnt && c[j].lo == c[i].lo; j++)
			if (c[j].size > size)
				size = c[j].size;
		if (size) {
			if (c[i].lo + size > sized_end)
				sized_end = c[i].lo + size;
		} else if (c[i].lo < sized_end) {
			continue; /* a label inside a sized symbol */
		}
		d->sym_names[out] = c[i].name;
		r[out] = (struct sym_range){ .lo = c[i].lo, .hi = c[i].lo + size, .idx = (uint32_t)out };
		if (!size) {
			uint64_t end = code_end(d, c[i].lo);

			if (!end)
				end = seg_end(d, c[i].lo, false);
			if (j < cnt && (!end || c[j].lo < end))
				end = c[j].lo;
			r[out].hi = end > c[i].lo ? end : c[i].lo + 1;
		}
		out++;
	}
	err = tdr_symbolize_range_table__build(&d->syms, r, out);
	r = NULL;
out:
	free(plt);
	free(c);
	free(r);
	return err;
}

/* Report fd (the file name) to a new libdwfl session of d, which owns fd
 * from then on. Returns 0 with d->mod set, 0 with d->mod NULL when the file
 * is not readable ELF (*why says so), or -ENOMEM. */
static int report_fd(struct sym_dso *d, int fd, const char *name, char *why, size_t why_sz)
{
	void **userdata;

	d->dwfl = dwfl_begin(d->debuginfod ? &dso_callbacks_net : &dso_callbacks);
	if (!d->dwfl) {
		close(fd);
		return -ENOMEM;
	}
	dwfl_report_begin(d->dwfl);
	/* An object with its own compressed DWARF: its uncompressed copy,
	 * reported under the object's name (the same headers and build-id). */
	if (d->dcache && d->dcache->dir)
		fd = tdr_symbolize_dcache__swap(d->dcache, fd, name, d->build_id, d->build_id_sz);
	/* Base 0 plus p_vaddr: module addresses are the file's vaddrs, also
	 * when the first PT_LOAD does not start at 0. Without add_p_vaddr an
	 * ET_DYN gets bias -(first p_vaddr): for perf inject's jitted-PID-N.so
	 * (perf's genelf: .text and its PT_LOAD at 0x80 in the file and in
	 * memory) the function would sit at module address 0, which is no
	 * code address. On success libdwfl owns fd. */
	d->mod = dwfl_report_elf(d->dwfl, name, name, fd, 0, true);
	if (!d->mod) {
		snprintf(why, why_sz, "failed to read ELF %s: %s", name, dwfl_errmsg(-1));
		close(fd);
		return 0;
	}
	/* For find_debuginfo_cached: the cache, or NULL when it is off. */
	dwfl_module_info(d->mod, &userdata, NULL, NULL, NULL, NULL, NULL, NULL);
	*userdata = d->dcache && d->dcache->dir ? d->dcache : NULL;
	dwfl_report_end(d->dwfl, NULL, NULL);
	return 0;
}

/* Does the reported module carry the recorded build-id (any, when none was
 * recorded)? */
static bool module_is_recorded(const struct sym_dso *d)
{
	const unsigned char *bid = NULL;
	GElf_Addr bid_vaddr;
	int bid_sz;

	if (!d->build_id_sz)
		return true;
	bid_sz = dwfl_module_build_id(d->mod, &bid, &bid_vaddr);
	return tdr_symbolize_build_id_matches(d->build_id, d->build_id_sz, bid, bid_sz);
}

/* The path of perf's copy of an object whose build-id is the first n
 * bytes of d's, in buf. Returns false when it does not fit. */
static bool perf_cache_path(const struct sym_dso *d, size_t n, const char *home, char *buf,
			    size_t sz)
{
	size_t len = (size_t)snprintf(buf, sz, "%s/.debug/.build-id/%02x/", home, d->build_id[0]);

	for (size_t i = 1; i < n && len + 3 < sz; i++)
		len += (size_t)snprintf(buf + len, sz - len, "%02x", d->build_id[i]);
	if (len + sizeof("/elf") > sz)
		return false;
	strcpy(buf + len, "/elf");
	return true;
}

/* perf record keeps a copy of every object it saw in its build-id cache,
 * $HOME/.debug/.build-id/xx/yyyy/elf: the binary that ran, after it was
 * rebuilt or deleted. The recorded size first (a build-id may end in a
 * zero byte), then without trailing zeros: some recorders pad every
 * build-id to 20 bytes. Returns an open fd (path in buf) or -1. */
static int open_perf_cache(const struct sym_dso *d, char *buf, size_t sz)
{
	const char *home = getenv("HOME");
	size_t n = d->build_id_sz, unpadded = n;
	int fd;

	while (unpadded > 0 && !d->build_id[unpadded - 1])
		unpadded--;
	if (!home || !*home || unpadded < 2)
		return -1;
	if (!perf_cache_path(d, n, home, buf, sz))
		return -1;
	fd = tdr_symbolize_open_regular(buf);
	if (fd >= 0 || unpadded == n || !perf_cache_path(d, unpadded, home, buf, sz))
		return fd < 0 ? -1 : fd;
	fd = tdr_symbolize_open_regular(buf);
	return fd < 0 ? -1 : fd;
}

int tdr_symbolize_dso__open(struct tdr_symbolizer *s, struct sym_dso *d)
{
	GElf_Addr bias = 0;
	bool vdso = strcmp(d->path, VDSO_NAME) == 0;
	char why[PATH_MAX + 128], cached[PATH_MAX];
	int fd, err;
	Elf *elf;

	d->status = TDR_SYM_MISSING;
	fd = vdso ? vdso_memfd() : tdr_symbolize_open_regular(d->path);
	if (fd < 0) {
		snprintf(why, sizeof(why), "failed to open %s: %s", d->path, tdr_strerror(fd));
		/* It exists, but is a directory, FIFO or device: not an object. */
		if (fd == -TDR_E_NOTREG || fd == -EISDIR)
			d->status = TDR_SYM_NOT_ELF;
	} else if (!vdso && !d->build_id_sz && newer_than_recording(s, fd)) {
		/* Nothing recorded to compare with, but this file was written
		 * after the run: symbolizing it could name the wrong code. */
		tdr_warn("%s: modified after the recording ended and no build-id was recorded "
			 "to check it; not symbolized", d->path);
		close(fd);
		d->status = TDR_SYM_CHANGED;
		return 0;
	} else {
		err = report_fd(d, fd, d->path, why, sizeof(why));
		if (err)
			return err;
		if (d->mod && module_is_recorded(d))
			goto load;
		if (d->mod) {
			snprintf(why, sizeof(why),
				 "%s: build-id differs from the recorded one (file changed since "
				 "recording); not symbolized",
				 d->path);
			d->status = TDR_SYM_CHANGED;
		} else {
			d->status = TDR_SYM_NOT_ELF;
		}
		tdr_symbolize_dso__close(d);
	}
	/* The file is gone or another one: perf's copy of the recorded one. */
	if (!vdso && d->build_id_sz && (fd = open_perf_cache(d, cached, sizeof(cached))) >= 0) {
		char why_cache[PATH_MAX + 128];

		err = report_fd(d, fd, cached, why_cache, sizeof(why_cache));
		if (err)
			return err;
		if (d->mod && module_is_recorded(d)) {
			tdr_info("%s: symbolized from perf's build-id cache, %s", d->path, cached);
			goto load;
		}
		tdr_symbolize_dso__close(d);
	}
	tdr_warn("%s", why);
	return 0;
load:
	elf = dwfl_module_getelf(d->mod, &bias);
	if (!elf) {
		tdr_warn("failed to read ELF %s: %s", d->path, dwfl_errmsg(-1));
		d->status = TDR_SYM_MISSING;
		return 0;
	}
	d->main_bias = bias;
	if (load_segments(d, elf) || load_sections(d, elf) || load_symbols(s, d, elf))
		return -ENOMEM;
	d->status = TDR_SYM_OK;
	return 0;
}

void tdr_symbolize_dso__close(struct sym_dso *d)
{
	tdr_symbolize_dwarf__free(d);
	tdr_symbolize_range_table__free(&d->syms);
	zfree(&d->sym_names);
	zfree(&d->segs);
	d->seg_cnt = 0;
	zfree(&d->secs);
	d->sec_cnt = 0;
	if (d->dwfl)
		dwfl_end(d->dwfl);
	d->dwfl = NULL;
	d->mod = NULL;
}
