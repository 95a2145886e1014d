/*
 * common/tdr_elf_note.c - the ELF note walker.
 *
 * Responsibility: see tdr_elf_note.h. Used by recorder/build_id.c (windows
 * of a file's PT_NOTE segments) and symbolize/kernel.c (/sys/kernel/notes),
 * so both read notes with the same size rules.
 * Invariants: positions are segment offsets in uint64_t; every addition is
 * preceded by a check that it stays within sz, so nothing wraps, whatever
 * the bytes say.
 */
#include "tdrec/tdr_elf_note.h"

#include <errno.h>
#include <string.h>

/* elf(5): NT_GNU_BUILD_ID, owner "GNU". */
#define NOTE_GNU_BUILD_ID 3
#define NOTE_GNU_NAME "GNU"

void tdr_elf_notes__init(struct tdr_elf_notes *w, uint64_t sz, uint64_t align, bool swap)
{
	*w = (struct tdr_elf_notes){.sz = sz, .align = align == 8 ? 8 : 4, .swap = swap};
}

void tdr_elf_notes__window(struct tdr_elf_notes *w, const void *buf, size_t sz, uint64_t pos)
{
	w->win = buf;
	w->win_pos = pos;
	w->win_sz = sz;
}

static uint32_t word(const struct tdr_elf_notes *w, const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return w->swap ? __builtin_bswap32(v) : v;
}

/* Round v up to a multiple of align (4 or 8) without overflowing. */
static bool align_up(uint64_t v, uint64_t align, uint64_t *out)
{
	if (v > UINT64_MAX - (align - 1))
		return false;
	*out = (v + align - 1) & ~(align - 1);
	return true;
}

/* Bytes [pos, pos + sz) of the segment, when all are in the window. */
static const uint8_t *in_window(const struct tdr_elf_notes *w, uint64_t pos, uint64_t sz)
{
	if (!w->win || pos < w->win_pos || pos - w->win_pos > w->win_sz ||
	    sz > w->win_sz - (pos - w->win_pos))
		return NULL;
	return w->win + (pos - w->win_pos);
}

int tdr_elf_notes__next(struct tdr_elf_notes *w, struct tdr_elf_note *n)
{
	uint64_t pos = w->pos, desc_off, desc_end, next;
	const uint8_t *h;

	if (pos > w->sz || w->sz - pos < TDR_ELF_NHDR_SZ)
		return 0;
	h = in_window(w, pos, TDR_ELF_NHDR_SZ);
	if (!h)
		return -EAGAIN;
	n->namesz = word(w, h);
	n->descsz = word(w, h + 4);
	n->type = word(w, h + 8);
	n->pos = pos;
	/* Every size is checked against what is left of the segment before it
	 * is added to anything. The descriptor's padding may be missing at
	 * the segment's end (elf(5) pads between notes). */
	if (n->namesz > w->sz - pos - TDR_ELF_NHDR_SZ ||
	    !align_up(pos + TDR_ELF_NHDR_SZ + n->namesz, w->align, &desc_off) || desc_off > w->sz ||
	    n->descsz > w->sz - desc_off) {
		w->pos = w->sz;
		return -EBADMSG;
	}
	desc_end = desc_off + n->descsz;
	n->name = in_window(w, pos + TDR_ELF_NHDR_SZ, n->namesz);
	n->desc = in_window(w, desc_off, n->descsz);
	/* > pos: a note is at least a header. At the end, past sz: done. */
	w->pos = align_up(desc_end, w->align, &next) ? next : UINT64_MAX;
	return 1;
}

bool tdr_elf_note__is_build_id(const struct tdr_elf_note *n)
{
	return n->type == NOTE_GNU_BUILD_ID && n->namesz == sizeof(NOTE_GNU_NAME) && n->name &&
	       !memcmp(n->name, NOTE_GNU_NAME, sizeof(NOTE_GNU_NAME)) && n->descsz > 0 &&
	       n->descsz <= TDR_ELF_BUILD_ID_MAX && n->desc;
}

size_t tdr_elf_notes_build_id(const void *buf, size_t sz, uint64_t align, const uint8_t **id)
{
	struct tdr_elf_notes w;
	struct tdr_elf_note n;

	tdr_elf_notes__init(&w, sz, align, false);
	tdr_elf_notes__window(&w, buf, sz, 0);
	while (tdr_elf_notes__next(&w, &n) > 0) {
		if (tdr_elf_note__is_build_id(&n)) {
			*id = n.desc;
			return n.descsz;
		}
	}
	return 0;
}
