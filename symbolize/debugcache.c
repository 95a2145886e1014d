/*
 * symbolize/debugcache.c - uncompressed copies of debug files whose .debug_*
 * sections are compressed (SHF_COMPRESSED), cached by build-id.
 *
 * Responsibility: libdw 0.188 inflates every compressed .debug_* section of a
 * file when it opens its DWARF. Debian ships its debug files (libc6-dbg,
 * -dbgsym packages) with zlib-compressed sections, so a line or inline
 * report with a few samples in libc spends about half its time in zlib.
 * tdr_symbolize_dcache__swap hands the symbolizer an uncompressed copy instead, kept
 * in <cache>/debug/<build-id hex>.debug and written the first time it is
 * needed. The copy keeps the ELF header, program headers and section
 * headers (same order and contents) and every section's bytes; a compressed
 * section holds its uncompressed data with SHF_COMPRESSED cleared.
 * Layout of a copy:
 *
 *   offset        contents
 *   0             sections that end before the first compressed one, the
 *                 ELF header and the program headers: where they were
 *                 (program headers may only point there, else no copy)
 *   then          every other section, in the order of their offsets in
 *                 the original, each at the next multiple of its alignment
 *   then          the section header table (8-byte aligned; 4 for ELF32)
 *   end - 32      trailer: magic "TDRDBGC\n", u64 size of the ELF part (all
 *                 before the trailer), u64 checksum of the ELF part, u32
 *                 version (1), u32 zero; host byte order
 *
 * The copy's size is therefore known from the original's headers alone.
 * The cache is untrusted input: a copy is used only when it is a regular
 * file of this user that group and others cannot write, of exactly the
 * expected size, with a trailer that checks out and a matching checksum
 * (which catches a copy cut short or damaged in any byte, before libelf
 * parses it), and an ELF whose build-id note is the original's. Anything
 * else: one warning per symbolizer, the copy is rewritten from the
 * original, which is used meanwhile.
 * Disk use is bounded: copies over opts.debug_cache_max_sz are not
 * written, and after a write the least recently used copies (by mtime,
 * refreshed at most once a day on use) are removed until all fit the cap.
 * Objects and lifecycle: struct sym_dcache lives in the symbolizer:
 * __init -> __swap (per object or debug file opened) -> __free.
 * Ownership and threads: single-threaded, like the symbolizer. __swap takes
 * ownership of the fd it is given and returns the one to use.
 * See: docs/symbolize.md "Debug file cache"; gABI "Compressed Sections".
 */
#include "symbolize_int.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <elfutils/libdwelf.h>

#define LOG_PREFIX "symbolize: "
#include "tdrec/tdr_err.h"
#include "tdrec/tdr_log.h"
#include "tdrec/tdr_mem.h"

#define DCACHE_SUBDIR "debug"
#define DCACHE_SUFFIX ".debug"
#define DCACHE_LEVELS 2 /* <cache>/debug and <cache> are checked before use */
#define TRAILER_MAGIC "TDRDBGC\n"
#define TRAILER_VERSION 1
#define TRAILER_SZ 32
#define BUILD_ID_MAX 64
#define HASH_BUF_SZ (256u << 10)
#define TOUCH_AFTER_S (24 * 3600) /* refresh a used copy's mtime at most daily */
#define STALE_TMP_S 3600	  /* a writer's leftover temporary file */
#define COPY_MAX_SZ (1ull << 40)  /* sanity bound on a planned layout */

struct trailer {
	char magic[8];
	uint64_t elf_sz;
	uint64_t sum;
	uint32_t version;
	uint32_t reserved;
};
_Static_assert(sizeof(struct trailer) == TRAILER_SZ, "debug copy trailer layout");

/* One section of the copy. */
struct plan_sec {
	uint64_t off, sz, align, orig_off, orig_sz;
	bool nobits, compressed;
};

/* The copy of one original, computed from its headers. */
struct plan {
	Elf *elf; /* the original, borrowed */
	GElf_Ehdr eh;
	size_t shnum, phnum;
	struct plan_sec *secs; /* by section index; [0] is the null section */
	uint64_t shoff, elf_sz;
	unsigned char bid[BUILD_ID_MAX];
	size_t bid_sz;
	char hex[2 * BUILD_ID_MAX + sizeof(DCACHE_SUFFIX)]; /* the copy's file name */
};

int tdr_symbolize_dcache__init(struct sym_dcache *c, const char *cache_dir, uint64_t max_sz)
{
	memset(c, 0, sizeof(*c));
	c->max_sz = max_sz ? max_sz : TDR_DEBUG_CACHE_MAX_SZ;
	if (!cache_dir || !*cache_dir)
		return 0;
	c->dir = tdr_symbolize_cache__path(cache_dir, DCACHE_SUBDIR, "");
	return c->dir ? 0 : -ENOMEM;
}

void tdr_symbolize_dcache__free(struct sym_dcache *c)
{
	zfree(&c->dir);
}

/* ---- checksum ---------------------------------------------------------- */

/*
 * Four independent lanes over 8-byte words (so the multiplies pipeline):
 * every step is a bijection of the lane, so a change confined to one word
 * always changes the result. Not cryptographic: it finds damage, not
 * forgery (whoever can write the copy could also recompute the sum).
 */
struct sum {
	uint64_t lane[4];
	uint64_t len;
};

static const uint64_t SUM_K1 = 0x9e3779b97f4a7c15ull, SUM_K2 = 0xd6e8feb86659fd93ull;

static void sum_init(struct sum *h)
{
	for (int i = 0; i < 4; i++)
		h->lane[i] = SUM_K1 * (uint64_t)(i + 1);
	h->len = 0;
}

static void sum_block(struct sum *h, const unsigned char *p)
{
	for (int k = 0; k < 4; k++) {
		uint64_t w;

		memcpy(&w, p + 8 * k, 8);
		h->lane[k] += w * SUM_K2;
		h->lane[k] = ((h->lane[k] << 29) | (h->lane[k] >> 35)) * SUM_K1;
	}
}

/* Add n bytes: a multiple of 32 in every call but the last (whose tail is
 * padded with zeros; the length goes into the result). */
static void sum_add(struct sum *h, const unsigned char *p, size_t n)
{
	size_t i = 0;

	for (; i + 32 <= n; i += 32)
		sum_block(h, p + i);
	if (i < n) {
		unsigned char tail[32] = {0};

		memcpy(tail, p + i, n - i);
		sum_block(h, tail);
	}
	h->len += n;
}

static uint64_t sum_final(const struct sum *h)
{
	uint64_t v = h->len;

	for (int i = 0; i < 4; i++)
		v = tdr_hash_u64(v ^ h->lane[i]);
	return v;
}

/* Checksum of the first n bytes of fd. Returns 0 or -errno (-EIO: shorter). */
static int sum_file(int fd, uint64_t n, uint64_t *out)
{
	unsigned char *buf = tdr_malloc(HASH_BUF_SZ);
	struct sum h;
	uint64_t off = 0;
	int err = 0;

	if (!buf)
		return -ENOMEM;
	sum_init(&h);
	while (off < n) {
		size_t want = n - off < HASH_BUF_SZ ? (size_t)(n - off) : HASH_BUF_SZ;
		ssize_t got = pread(fd, buf, want, (off_t)off);

		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0) {
			err = got < 0 ? -errno : -EIO;
			break;
		}
		/* Keep every call but the last a multiple of 32 bytes. */
		if ((size_t)got < want && got % 32)
			got -= got % 32;
		sum_add(&h, buf, (size_t)got);
		off += (uint64_t)got;
	}
	free(buf);
	*out = sum_final(&h);
	return err;
}

/* ---- layout ------------------------------------------------------------- */

static uint64_t align_up(uint64_t v, uint64_t a)
{
	return a > 1 ? (v + a - 1) / a * a : v;
}

struct sec_order {
	uint64_t orig_off;
	size_t idx;
};

static int cmp_orig_off(const void *a, const void *b)
{
	const struct sec_order *x = a, *y = b;

	if (x->orig_off != y->orig_off)
		return x->orig_off < y->orig_off ? -1 : 1;
	return x->idx < y->idx ? -1 : x->idx > y->idx;
}

/* Sections and their compressed sizes; *first: the lowest offset of a
 * compressed section. Returns 1 when a compressed .debug_* section exists,
 * 0 when not (or the headers are not sound), -ENOMEM. */
static int plan_sections(struct plan *p, uint64_t *first)
{
	size_t shstrndx;
	bool debug = false;

	if (elf_getshdrstrndx(p->elf, &shstrndx))
		return 0;
	p->secs = tdr_calloc(p->shnum, sizeof(*p->secs));
	if (!p->secs)
		return -ENOMEM;
	*first = UINT64_MAX;
	for (size_t i = 1; i < p->shnum; i++) {
		struct plan_sec *s = &p->secs[i];
		Elf_Scn *scn = elf_getscn(p->elf, i);
		GElf_Shdr sh;
		GElf_Chdr ch;
		const char *name;

		if (!scn || !gelf_getshdr(scn, &sh))
			return 0;
		*s = (struct plan_sec){.orig_off = sh.sh_offset,
				       .orig_sz = sh.sh_size,
				       .sz = sh.sh_size,
				       .align = sh.sh_addralign,
				       .nobits = sh.sh_type == SHT_NOBITS};
		if (!s->nobits && (s->orig_off > COPY_MAX_SZ || s->orig_sz > COPY_MAX_SZ))
			return 0;
		if (!(sh.sh_flags & SHF_COMPRESSED))
			continue;
		/* gABI: never on allocated sections; libelf refuses them too. */
		if ((sh.sh_flags & SHF_ALLOC) || s->nobits || !gelf_getchdr(scn, &ch) ||
		    ch.ch_size > COPY_MAX_SZ || ch.ch_addralign > (1u << 16))
			return 0;
		s->compressed = true;
		s->sz = ch.ch_size;
		s->align = ch.ch_addralign;
		if (s->orig_off < *first)
			*first = s->orig_off;
		name = elf_strptr(p->elf, shstrndx, sh.sh_name);
		debug |= name && !strncmp(name, ".debug_", 7);
	}
	return debug;
}

/*
 * Plan the copy of elf (see the layout above). Returns 1 when it has a
 * build-id and compressed .debug_* sections and a copy can be laid out, 0
 * when it is not to be copied, -ENOMEM.
 */
static int plan_build(struct plan *p, Elf *elf)
{
	const int host_data = __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__ ? ELFDATA2LSB : ELFDATA2MSB;
	struct sec_order *order;
	uint64_t first, cursor, end;
	size_t n = 0, shent;
	const void *bid;
	ssize_t bid_sz;
	int rc;

	memset(p, 0, sizeof(*p));
	p->elf = elf;
	if (elf_kind(elf) != ELF_K_ELF || !gelf_getehdr(elf, &p->eh) ||
	    p->eh.e_ident[EI_DATA] != host_data || elf_getshdrnum(elf, &p->shnum) ||
	    elf_getphdrnum(elf, &p->phnum) || p->shnum < 2)
		return 0;
	bid_sz = dwelf_elf_gnu_build_id(elf, &bid);
	if (bid_sz <= 0 || bid_sz > BUILD_ID_MAX)
		return 0;
	p->bid_sz = (size_t)bid_sz;
	memcpy(p->bid, bid, p->bid_sz);
	for (size_t i = 0; i < p->bid_sz; i++)
		snprintf(p->hex + 2 * i, 3, "%02x", p->bid[i]);
	strcat(p->hex, DCACHE_SUFFIX);
	rc = plan_sections(p, &first);
	if (rc <= 0)
		return rc;

	/* What stays in place: the ELF header, program header table and every
	 * segment's bytes must lie before the first compressed section. */
	cursor = gelf_fsize(elf, ELF_T_EHDR, 1, EV_CURRENT);
	if (p->phnum) {
		end =
		    p->eh.e_phoff + (uint64_t)p->phnum * gelf_fsize(elf, ELF_T_PHDR, 1, EV_CURRENT);
		if (end > first)
			return 0;
		cursor = end > cursor ? end : cursor;
	}
	for (size_t i = 0; i < p->phnum; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(elf, (int)i, &ph) ||
		    (ph.p_filesz && (ph.p_offset > first || ph.p_filesz > first - ph.p_offset)))
			return 0;
	}
	order = tdr_calloc(p->shnum, sizeof(*order));
	if (!order)
		return -ENOMEM;
	for (size_t i = 1; i < p->shnum; i++) {
		struct plan_sec *s = &p->secs[i];

		if (!s->compressed &&
		    (s->nobits ? s->orig_off <= first : s->orig_off + s->orig_sz <= first)) {
			s->off = s->orig_off;
			end = s->nobits ? 0 : s->orig_off + s->orig_sz;
			cursor = end > cursor ? end : cursor;
		} else {
			order[n++] = (struct sec_order){.orig_off = s->orig_off, .idx = i};
		}
	}
	qsort(order, n, sizeof(*order), cmp_orig_off);
	for (size_t k = 0; k < n; k++) {
		struct plan_sec *s = &p->secs[order[k].idx];

		s->off = align_up(cursor, s->align);
		if (!s->nobits)
			cursor = s->off + s->sz;
		if (cursor > COPY_MAX_SZ) {
			free(order);
			return 0;
		}
	}
	free(order);
	shent = gelf_fsize(elf, ELF_T_SHDR, 1, EV_CURRENT);
	p->shoff = align_up(cursor, p->eh.e_ident[EI_CLASS] == ELFCLASS32 ? 4 : 8);
	p->elf_sz = p->shoff + (uint64_t)p->shnum * shent;
	return 1;
}

/* ---- reading a copy ------------------------------------------------------ */

/*
 * Open and check the copy at path for plan p. Returns its fd, -ENOENT when
 * there is none, -TDR_E_CORRUPT with *why when it does not check out, or
 * another -errno.
 */
static int copy_open(const struct plan *p, const char *path, const char **why)
{
	struct trailer t;
	struct stat st;
	const void *bid = NULL;
	ssize_t bid_sz = -1;
	uint64_t sum;
	Elf *elf;
	int fd, err;

	*why = NULL;
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0 && errno == ELOOP) {
		*why = "a symbolic link";
		return -TDR_E_CORRUPT;
	}
	if (fd < 0)
		return -errno;
	err = tdr_symbolize_cache__check(fd, &st, why);
	if (err)
		goto err_out;
	err = -TDR_E_CORRUPT;
	if ((uint64_t)st.st_size != p->elf_sz + TRAILER_SZ) {
		*why = "not of the size its original needs";
		goto err_out;
	}
	if (pread(fd, &t, sizeof(t), (off_t)p->elf_sz) != (ssize_t)sizeof(t) ||
	    memcmp(t.magic, TRAILER_MAGIC, sizeof(t.magic)) || t.version != TRAILER_VERSION ||
	    t.reserved || t.elf_sz != p->elf_sz) {
		*why = "bad trailer";
		goto err_out;
	}
	/* The checksum first: libelf never parses a damaged copy. */
	err = sum_file(fd, p->elf_sz, &sum);
	if (err)
		goto err_out;
	err = -TDR_E_CORRUPT;
	if (sum != t.sum) {
		*why = "checksum mismatch (damaged)";
		goto err_out;
	}
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (elf && elf_kind(elf) == ELF_K_ELF)
		bid_sz = dwelf_elf_gnu_build_id(elf, &bid);
	if (bid_sz != (ssize_t)p->bid_sz || memcmp(bid, p->bid, p->bid_sz)) {
		*why = elf && elf_kind(elf) == ELF_K_ELF ? "another build-id" : "not ELF";
		elf_end(elf);
		goto err_out;
	}
	elf_end(elf);
	/* Least recently used goes first when pruning: mark the use (daily). */
	if (time(NULL) - st.st_mtime > TOUCH_AFTER_S)
		futimens(fd, NULL);
	return fd;
err_out:
	close(fd);
	return err;
}

/* ---- writing a copy ------------------------------------------------------ */

/* Copy section i of p into a new section of out. Returns 0 or -TDR_E_ELF. */
static int copy_section(const struct plan *p, Elf *out, size_t i)
{
	const struct plan_sec *s = &p->secs[i];
	Elf_Scn *scn = elf_getscn(p->elf, i), *o = elf_newscn(out);
	Elf_Data *src = NULL, *dst;
	GElf_Shdr sh;

	if (!scn || !o)
		return -TDR_E_ELF;
	/* elf_compress with type 0 inflates the section in libelf's memory
	 * and updates its header (size, alignment, SHF_COMPRESSED cleared). */
	if (s->compressed && elf_compress(scn, 0, 0) != 1)
		return -TDR_E_ELF;
	if (!gelf_getshdr(scn, &sh) || sh.sh_size != s->sz || (sh.sh_flags & SHF_COMPRESSED))
		return -TDR_E_ELF;
	sh.sh_offset = s->off;
	if (!s->nobits && s->sz) {
		/* The file's bytes as they are (no type conversion): the raw
		 * data, or the inflated data, which is ELF_T_BYTE for
		 * .debug_* (PROGBITS). */
		src = s->compressed ? elf_getdata(scn, NULL) : elf_rawdata(scn, NULL);
		if (!src || src->d_size != s->sz || !src->d_buf ||
		    (s->compressed && src->d_type != ELF_T_BYTE))
			return -TDR_E_ELF;
		dst = elf_newdata(o);
		if (!dst)
			return -TDR_E_ELF;
		*dst = (Elf_Data){.d_buf = src->d_buf,
				  .d_type = ELF_T_BYTE,
				  .d_size = s->sz,
				  .d_align = 1,
				  .d_version = EV_CURRENT};
	}
	return gelf_update_shdr(o, &sh) ? 0 : -TDR_E_ELF;
}

/* Write the ELF part of p's copy to fd (ELF_F_LAYOUT: our offsets). */
static int copy_elf(const struct plan *p, int fd)
{
	Elf *out = elf_begin(fd, ELF_C_WRITE, NULL);
	GElf_Ehdr eh = p->eh;
	GElf_Shdr sh0;
	int err = -TDR_E_ELF;

	if (!out || !gelf_newehdr(out, p->eh.e_ident[EI_CLASS]))
		goto out;
	if (p->phnum && !gelf_newphdr(out, p->phnum))
		goto out;
	for (size_t i = 0; i < p->phnum; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(p->elf, (int)i, &ph) || !gelf_update_phdr(out, (int)i, &ph))
			goto out;
	}
	for (size_t i = 1; i < p->shnum; i++) {
		err = copy_section(p, out, i);
		if (err)
			goto out;
	}
	err = -TDR_E_ELF;
	/* Section 0 carries the extended section count and string table
	 * index of files with very many sections. */
	if (!gelf_getshdr(elf_getscn(p->elf, 0), &sh0) ||
	    !gelf_update_shdr(elf_getscn(out, 0), &sh0))
		goto out;
	eh.e_shoff = p->shoff;
	if (!gelf_update_ehdr(out, &eh))
		goto out;
	elf_flagelf(out, ELF_C_SET, ELF_F_LAYOUT);
	/* A failed write (a full disk) leaves its errno: the better message. */
	errno = 0;
	if (elf_update(out, ELF_C_WRITE) < 0) {
		err = errno ? -errno : -TDR_E_ELF;
		goto out;
	}
	err = 0;
out:
	if (err == -TDR_E_ELF)
		tdr_debug("failed to lay out a copy of a debug file: %s", elf_errmsg(-1));
	elf_end(out);
	return err;
}

/*
 * Write p's copy as c->dir/p->hex. Returns the new copy's fd (read and
 * written through, positioned anywhere) or a negative code.
 */
static int copy_write(const struct plan *p, const struct sym_dcache *c)
{
	struct trailer t = {
	    .magic = TRAILER_MAGIC, .elf_sz = p->elf_sz, .version = TRAILER_VERSION};
	struct stat st;
	char *tmp;
	int fd, err;

	fd = tdr_symbolize_cache__create(c->dir, DCACHE_LEVELS, p->hex, &tmp);
	if (fd < 0)
		return fd;
	err = copy_elf(p, fd);
	if (!err && fstat(fd, &st))
		err = -errno;
	/* libelf wrote exactly the planned layout, or the size check of every
	 * later reader would reject it. */
	if (!err && (uint64_t)st.st_size != p->elf_sz)
		err = -TDR_E_ELF;
	if (!err)
		err = sum_file(fd, p->elf_sz, &t.sum);
	if (!err) {
		ssize_t w = pwrite(fd, &t, sizeof(t), (off_t)p->elf_sz);

		if (w < 0)
			err = -errno;
		else if (w != (ssize_t)sizeof(t))
			err = -EIO;
	}
	err = tdr_symbolize_cache__finish(c->dir, p->hex, tmp, err);
	if (err) {
		close(fd);
		return err;
	}
	return fd;
}

/* ---- disk use ------------------------------------------------------------ */

struct entry {
	char *name;
	uint64_t sz;
	struct timespec mtime;
};

static int cmp_mtime(const void *a, const void *b)
{
	const struct entry *x = a, *y = b;

	if (x->mtime.tv_sec != y->mtime.tv_sec)
		return x->mtime.tv_sec < y->mtime.tv_sec ? -1 : 1;
	if (x->mtime.tv_nsec != y->mtime.tv_nsec)
		return x->mtime.tv_nsec < y->mtime.tv_nsec ? -1 : 1;
	return strcmp(x->name, y->name);
}

static bool is_copy_name(const char *n)
{
	size_t len = strlen(n);

	return n[0] != '.' && len > sizeof(DCACHE_SUFFIX) - 1 &&
	       !strcmp(n + len - (sizeof(DCACHE_SUFFIX) - 1), DCACHE_SUFFIX);
}

/*
 * Remove the least recently used copies (never keep, just written) until
 * the copies take at most c->max_sz bytes, and temporary files of writers
 * that died. Best effort: a directory that cannot be read is left alone.
 */
static void prune(struct sym_dcache *c, const char *keep)
{
	struct entry *e = NULL;
	size_t cnt = 0, cap = 0;
	uint64_t total = 0;
	struct dirent *de;
	DIR *d = opendir(c->dir);
	int dfd;

	if (!d)
		return;
	dfd = dirfd(d);
	while ((de = readdir(d)) != NULL) {
		struct stat st;
		bool tmp = de->d_name[0] == '.' && strstr(de->d_name, DCACHE_SUFFIX ".");

		if ((!tmp && !is_copy_name(de->d_name)) ||
		    fstatat(dfd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) || !S_ISREG(st.st_mode))
			continue;
		if (tmp) {
			if (time(NULL) - st.st_mtime > STALE_TMP_S)
				unlinkat(dfd, de->d_name, 0);
			continue;
		}
		total += (uint64_t)st.st_size;
		if (!strcmp(de->d_name, keep))
			continue;
		if (tdr_ensure_cap(&e, &cap, sizeof(*e), cnt + 1))
			break;
		e[cnt].name = tdr_strdup(de->d_name);
		if (!e[cnt].name)
			break;
		e[cnt].sz = (uint64_t)st.st_size;
		e[cnt++].mtime = st.st_mtim;
	}
	if (cnt)
		qsort(e, cnt, sizeof(*e), cmp_mtime);
	for (size_t i = 0; i < cnt && total > c->max_sz; i++) {
		if (unlinkat(dfd, e[i].name, 0) == 0) {
			total -= e[i].sz;
			c->pruned_cnt++;
		}
	}
	for (size_t i = 0; i < cnt; i++)
		free(e[i].name);
	free(e);
	closedir(d);
}

/* ---- the entry point ----------------------------------------------------- */

/* The first problem of the run is warned about; later ones are not. */
static bool first_warning(struct sym_dcache *c)
{
	bool first = !c->warned;

	c->warned = true;
	return first;
}

int tdr_symbolize_dcache__swap(struct sym_dcache *c, int fd, const char *name, const uint8_t *rec,
			       size_t rec_sz)
{
	struct plan p;
	const char *why;
	char *path = NULL;
	Elf *elf;
	int rc, cfd = -1;

	if (!c->dir || fd < 0)
		return fd;
	/* Absent is fine (created when a copy is written); another user's
	 * directory, or a link, is never read, written or pruned. */
	rc = tdr_symbolize_cache__dir_check(c->dir, DCACHE_LEVELS, &why);
	if (rc && rc != -ENOENT) {
		if (first_warning(c))
			tdr_warn("not using the debug file cache %s: %s", c->dir,
				 why ? why : tdr_strerror(rc));
		return fd;
	}
	/* Private: elf_compress (when writing) updates headers in place. */
	elf = elf_begin(fd, ELF_C_READ_MMAP_PRIVATE, NULL);
	if (!elf)
		return fd;
	rc = plan_build(&p, elf);
	/* Not the recorded object: the caller rejects it, copying is waste. */
	if (rc == 1 && rec_sz && !tdr_symbolize_build_id_matches(rec, rec_sz, p.bid, (int)p.bid_sz))
		rc = 0;
	if (rc == 1 && !(path = tdr_symbolize_cache__path(c->dir, p.hex, "")))
		rc = -ENOMEM;
	if (rc != 1)
		goto out;
	cfd = copy_open(&p, path, &why);
	if (cfd >= 0) {
		c->used_cnt++;
		goto out;
	}
	if (cfd == -TDR_E_CORRUPT) {
		c->rejected_cnt++;
		if (first_warning(c))
			tdr_warn("ignoring the cached debug file %s (rewriting it): %s", path, why);
	} else if (cfd != -ENOENT && first_warning(c)) {
		tdr_warn("failed to open the cached debug file %s: %s", path, tdr_strerror(cfd));
	}
	if (p.elf_sz + TRAILER_SZ > c->max_sz) {
		tdr_debug("%s: its uncompressed copy (%" PRIu64 " bytes) is over the cache's "
			  "cap; not cached",
			  name, p.elf_sz + TRAILER_SZ);
		goto out;
	}
	cfd = copy_write(&p, c);
	if (cfd < 0) {
		if (first_warning(c))
			tdr_warn("failed to write the cached debug file %s: %s", path,
				 tdr_strerror(cfd));
		goto out;
	}
	c->written_cnt++;
	prune(c, p.hex);
out:
	free(p.secs);
	free(path);
	elf_end(elf);
	if (cfd < 0)
		return fd;
	close(fd);
	return cfd;
}
