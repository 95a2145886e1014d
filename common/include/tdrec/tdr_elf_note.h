/*
 * common/include/tdrec/tdr_elf_note.h - walk the notes of an ELF note
 * segment (or of /sys/kernel/notes) held in a byte buffer.
 *
 * Responsibility: the one reader of ELF notes in tdrec, and of the GNU
 * build-id note among them. It does not read files and does not use libelf:
 * the recorder feeds it windows of a PT_NOTE segment read with pread(), the
 * symbolizer the whole of /sys/kernel/notes.
 * A note is three 4-byte words (namesz, descsz, type), the name padded to
 * the alignment, the descriptor padded likewise; the header is the same in
 * both ELF classes. Notes are 4-byte aligned, or 8 in a segment aligned to 8.
 * Invariants: every size is checked against the segment before it is added
 * to anything; a note whose sizes do not fit ends the walk as corrupt.
 * Call protocol:
 *
 *	struct tdr_elf_notes w;
 *	struct tdr_elf_note n;
 *
 *	tdr_elf_notes__init(&w, seg_sz, 4, false);
 *	tdr_elf_notes__window(&w, buf, buf_sz, 0);  // all or part of the segment
 *	while ((err = tdr_elf_notes__next(&w, &n)) > 0)
 *		if (tdr_elf_note__is_build_id(&n)) ...
 *
 * __next returns -EAGAIN when the next note's header is not in the window:
 * give a window starting at w.pos (or stop).
 * See: elf(5) "Notes (Nhdr)"; kernel fs/binfmt_elf.c (note alignment).
 */
#ifndef TDREC_TDR_ELF_NOTE_H
#define TDREC_TDR_ELF_NOTE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tdrec/tdr_api.h"

/* A note header's bytes. */
#define TDR_ELF_NHDR_SZ 12
/* The longest build-id the kernel records (BUILD_ID_SIZE_MAX). */
#define TDR_ELF_BUILD_ID_MAX 20

struct tdr_elf_notes {
	uint64_t sz;	    /* bytes of the segment */
	uint64_t pos;	    /* segment offset of the next note */
	uint64_t align;	    /* 4 or 8 */
	bool swap;	    /* the notes are in the other byte order than the host */
	const uint8_t *win; /* borrowed: bytes [win_pos, win_pos + win_sz) of the segment */
	uint64_t win_pos, win_sz;
};

struct tdr_elf_note {
	uint32_t type;
	uint32_t namesz, descsz;   /* as written (namesz counts the name's NUL) */
	uint64_t pos;		   /* segment offset of the note's header */
	const uint8_t *name;	   /* NULL when not all in the window */
	const uint8_t *desc;	   /* NULL when not all in the window */
};

/* Start a walk over a segment of sz bytes. align: the segment's alignment
 * (8 means 8, anything else 4, as the kernel reads it); swap: the notes
 * are in the other byte order. No window yet. */
TDR_API void tdr_elf_notes__init(struct tdr_elf_notes *w, uint64_t sz, uint64_t align, bool swap);

/* Show the walk sz bytes of the segment, from segment offset pos, at buf
 * (borrowed until the next __window or the end of the walk). */
TDR_API void tdr_elf_notes__window(struct tdr_elf_notes *w, const void *buf, size_t sz,
				   uint64_t pos);

/*
 * The next note. Returns 1 with *n, 0 at the end of the segment, -EAGAIN
 * when the next header is not (all) in the window (w->pos stays on it),
 * -EBADMSG when the note's sizes run past the segment (the walk is over).
 */
TDR_API int tdr_elf_notes__next(struct tdr_elf_notes *w, struct tdr_elf_note *n);

/* Is n a GNU build-id (NT_GNU_BUILD_ID, name "GNU", 1 to 20 bytes), with its
 * name and descriptor in the window? */
TDR_API bool tdr_elf_note__is_build_id(const struct tdr_elf_note *n);

/*
 * The GNU build-id among the notes in buf (sz bytes, a whole segment, in the
 * host's byte order). Returns its size (1 to 20) with *id pointing into
 * buf, or 0 when there is none or the notes are corrupt before it.
 */
TDR_API size_t tdr_elf_notes_build_id(const void *buf, size_t sz, uint64_t align,
				      const uint8_t **id);

#endif /* TDREC_TDR_ELF_NOTE_H */
