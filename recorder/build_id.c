/*
 * recorder/build_id.c - the GNU build-id of an ELF file, read from its
 * program headers.
 *
 * Responsibility: for the DSO table (dso_set.c), the build-id the kernel
 * would compute for a mapped file: the NT_GNU_BUILD_ID note's descriptor (1
 * to 20 bytes). It reads the ELF header, the program headers and the
 * PT_NOTE segments into fixed buffers: one pread() of the first page, which
 * holds them all in usual files, more only where it does not; it checks
 * every offset and size against the file before using it: a file that is
 * not ELF, of the other byte order, truncated or hostile simply has no
 * build-id. It does not link libelf (the recorder stays small) and does not
 * look at section headers, which a stripped or damaged file may lack (the
 * kernel does not either). The notes themselves are walked by common/'s
 * note walker (tdr_elf_note.h), which symbolize/ uses on /sys/kernel/notes.
 * Objects and lifecycle: tdr_build_id__read is stateless.
 * Ownership and threads: the caller owns the fd; any thread.
 * See: elf(5) "Notes (Nhdr)"; docs/record.md "Build-ids".
 */
#include "recorder_int.h"

#include <elf.h>
#include <endian.h>
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "tdrec/tdr_elf_note.h"

#if __BYTE_ORDER == __LITTLE_ENDIAN
#define HOST_ELFDATA ELFDATA2LSB
#else
#define HOST_ELFDATA ELFDATA2MSB
#endif

#define NHDR_SZ TDR_ELF_NHDR_SZ
/* Program headers read per pread; a file may have up to 65535 of them. */
#define PHDR_CHUNK 32
/* Bytes of a note segment looked at, and note segments looked at: the
 * build-id note comes first or nearly so in real files, and a hostile file
 * must not make the recorder read for long. */
#define NOTE_SCAN_MAX (64u << 10)
#define NOTE_SEG_MAX 16

/* The file, and its first page: the ELF header, the program headers and
 * the notes of usual files all lie in it, so one pread() reads them. */
struct elf_file {
	int fd;
	size_t head_sz;
	uint8_t head[4096];
};

/* Read up to sz bytes at off, fewer only where the file ends: from the
 * head when they are all in it, else with pread(). Returns the count or
 * -errno. */
static ssize_t read_some(const struct elf_file *f, void *buf, size_t sz, uint64_t off)
{
	size_t done = 0;

	if (off <= f->head_sz && sz <= f->head_sz - off) {
		memcpy(buf, f->head + off, sz);
		return (ssize_t)sz;
	}
	if (off > (uint64_t)INT64_MAX - sz)
		return 0; /* no file is that large */
	while (done < sz) {
		ssize_t n = pread(f->fd, (char *)buf + done, sz - done, (off_t)(off + done));

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			break;
		done += (size_t)n;
	}
	return (ssize_t)done;
}

/* Read exactly sz bytes at off. Returns 0, -ENOENT when the file ends
 * first (a header past its end: no build-id), -errno. */
static int read_at(const struct elf_file *f, void *buf, size_t sz, uint64_t off)
{
	ssize_t n = read_some(f, buf, sz, off);

	if (n < 0)
		return (int)n;
	return (size_t)n == sz ? 0 : -ENOENT;
}

/*
 * Look for the GNU build-id note in the PT_NOTE segment [off, off + sz) of
 * the file, in its first NOTE_SCAN_MAX bytes. The notes are walked
 * (common/tdr_elf_note.h) through a window buffer that moves on to a note
 * when the note's header, name and a build-id's worth of descriptor are not
 * all inside it. Returns 0 with *out set, -ENOENT, -errno.
 */
static int scan_notes(const struct elf_file *f, uint64_t off, uint64_t sz, uint64_t align,
		      struct tdr_build_id *out)
{
	uint8_t win[1024];
	struct tdr_elf_notes w;
	struct tdr_elf_note n;
	ssize_t got;

	if (sz > NOTE_SCAN_MAX)
		sz = NOTE_SCAN_MAX;
	tdr_elf_notes__init(&w, sz, align, false);
	while (w.pos <= sz && sz - w.pos >= NHDR_SZ) {
		if (!w.win_sz || w.pos + NHDR_SZ + 4 + TDR_BUILD_ID_MAX > w.win_pos + w.win_sz) {
			/* A segment may claim more than the file has: what is
			 * there is read, and a note past the end is not. */
			got = read_some(f, win, sz - w.pos < sizeof(win) ? sz - w.pos : sizeof(win),
					off + w.pos);
			if (got < 0)
				return (int)got;
			if ((size_t)got < NHDR_SZ)
				return -ENOENT; /* the file ends inside this note's header */
			tdr_elf_notes__window(&w, win, (size_t)got, w.pos);
		}
		/* The header is in the window now: only a corrupt note ends
		 * the walk early. */
		if (tdr_elf_notes__next(&w, &n) <= 0)
			return -ENOENT;
		if (tdr_elf_note__is_build_id(&n)) {
			memset(out, 0, sizeof(*out));
			out->sz = (uint8_t)n.descsz;
			memcpy(out->id, n.desc, n.descsz);
			return 0;
		}
	}
	return -ENOENT;
}

/* One program header, either class, as the fields we need. */
struct phdr {
	uint32_t type;
	uint64_t offset, filesz, align;
};

static void get_phdr(const uint8_t *p, bool is64, struct phdr *ph)
{
	if (is64) {
		Elf64_Phdr h;

		memcpy(&h, p, sizeof(h));
		*ph = (struct phdr){h.p_type, h.p_offset, h.p_filesz, h.p_align};
	} else {
		Elf32_Phdr h;

		memcpy(&h, p, sizeof(h));
		*ph = (struct phdr){h.p_type, h.p_offset, h.p_filesz, h.p_align};
	}
}

int tdr_build_id__read(int fd, struct tdr_build_id *out)
{
	struct elf_file f = {.fd = fd};
	uint8_t ehdr[sizeof(Elf64_Ehdr)], phdrs[PHDR_CHUNK * sizeof(Elf64_Phdr)];
	uint64_t phoff;
	size_t phentsize, phnum, notes = 0;
	ssize_t head;
	bool is64;
	int err;

	head = read_some(&f, f.head, sizeof(f.head), 0);
	if (head < 0)
		return (int)head;
	f.head_sz = (size_t)head;
	err = read_at(&f, ehdr, sizeof(Elf32_Ehdr), 0);
	if (err)
		return err;
	if (memcmp(ehdr, ELFMAG, SELFMAG) || ehdr[EI_DATA] != HOST_ELFDATA ||
	    (ehdr[EI_CLASS] != ELFCLASS32 && ehdr[EI_CLASS] != ELFCLASS64))
		return -ENOENT;
	is64 = ehdr[EI_CLASS] == ELFCLASS64;
	if (is64) {
		Elf64_Ehdr h;

		err = read_at(&f, ehdr, sizeof(h), 0);
		if (err)
			return err;
		memcpy(&h, ehdr, sizeof(h));
		phoff = h.e_phoff;
		phentsize = h.e_phentsize;
		phnum = h.e_phnum;
	} else {
		Elf32_Ehdr h;

		memcpy(&h, ehdr, sizeof(h));
		phoff = h.e_phoff;
		phentsize = h.e_phentsize;
		phnum = h.e_phnum;
	}
	/* PN_XNUM (the count in section 0) is for files with more than 65534
	 * headers: not a mapped executable or library. */
	if (phentsize != (is64 ? sizeof(Elf64_Phdr) : sizeof(Elf32_Phdr)) || !phnum ||
	    phnum == PN_XNUM || phoff > UINT64_MAX - phnum * phentsize)
		return -ENOENT;
	for (size_t i = 0; i < phnum && notes < NOTE_SEG_MAX; i += PHDR_CHUNK) {
		size_t n = phnum - i < PHDR_CHUNK ? phnum - i : PHDR_CHUNK;

		err = read_at(&f, phdrs, n * phentsize, phoff + i * phentsize);
		if (err)
			return err;
		for (size_t k = 0; k < n && notes < NOTE_SEG_MAX; k++) {
			struct phdr ph;

			get_phdr(phdrs + k * phentsize, is64, &ph);
			if (ph.type != PT_NOTE || ph.offset > UINT64_MAX - ph.filesz)
				continue;
			notes++;
			/* Notes are 4-byte aligned, or 8 in a segment aligned to 8
			 * (elf(5)); anything else is treated as 4, as the kernel does. */
			err = scan_notes(&f, ph.offset, ph.filesz, ph.align == 8 ? 8 : 4, out);
			if (err != -ENOENT)
				return err;
		}
	}
	return -ENOENT;
}
