/*
 * tests/common/test_elf_note.c - the ELF note walker on good and hostile notes.
 *
 * Notes are built byte by byte: 4 and 8 alignment, the other byte order,
 * sizes that run past the segment (or wrap), truncated headers, build-ids
 * of no and too many bytes, and a walk through a window that moves.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "tdrec/tdr_elf_note.h"

struct buf {
	uint8_t b[512];
	size_t sz;
};

static void put32(struct buf *b, uint32_t v, bool swap)
{
	if (swap)
		v = __builtin_bswap32(v);
	memcpy(b->b + b->sz, &v, 4);
	b->sz += 4;
}

static void pad(struct buf *b, size_t align)
{
	while (b->sz % align)
		b->b[b->sz++] = 0;
}

/* One note; the descriptor is padded unless it ends the segment unpadded. */
static void note(struct buf *b, uint32_t type, const char *name, uint32_t namesz,
		 const uint8_t *desc, uint32_t descsz, size_t align, bool swap, bool pad_desc)
{
	put32(b, namesz, swap);
	put32(b, descsz, swap);
	put32(b, type, swap);
	memcpy(b->b + b->sz, name, namesz);
	b->sz += namesz;
	pad(b, align);
	memcpy(b->b + b->sz, desc, descsz);
	b->sz += descsz;
	if (pad_desc)
		pad(b, align);
}

static const uint8_t ID[20] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20};

static void test_elf_note__build_id_after_other_notes(void **state)
{
	struct buf b = {0};
	const uint8_t *id = NULL;

	(void)state;
	note(&b, 1, "GNU", 4, ID, 16, 4, false, true);	      /* NT_GNU_ABI_TAG */
	note(&b, 3, "Linux", 6, ID, 5, 4, false, true);	      /* not the GNU owner */
	note(&b, 3, "GNU", 4, ID, 20, 4, false, true);
	assert_int_equal(tdr_elf_notes_build_id(b.b, b.sz, 4, &id), 20);
	assert_memory_equal(id, ID, 20);
}

static void test_elf_note__alignment_8_and_other_byte_order(void **state)
{
	struct tdr_elf_notes w;
	struct tdr_elf_note n;
	struct buf b = {0};

	(void)state;
	note(&b, 5, "ab", 3, ID, 3, 8, true, true);
	note(&b, 3, "GNU", 4, ID, 8, 8, true, true);
	/* 12 + 3 -> 16, + 3 -> 24; 24 + 12 + 4 -> 40, + 8 -> 48 */
	assert_int_equal(b.sz, 48);
	tdr_elf_notes__init(&w, b.sz, 8, true);
	tdr_elf_notes__window(&w, b.b, b.sz, 0);
	assert_int_equal(tdr_elf_notes__next(&w, &n), 1);
	assert_int_equal(n.type, 5);
	assert_int_equal(n.namesz, 3);
	assert_int_equal(n.pos, 0);
	assert_false(tdr_elf_note__is_build_id(&n));
	assert_int_equal(tdr_elf_notes__next(&w, &n), 1);
	assert_int_equal(n.pos, 24);
	assert_true(tdr_elf_note__is_build_id(&n));
	assert_memory_equal(n.desc, ID, 8);
	assert_int_equal(tdr_elf_notes__next(&w, &n), 0);
}

static void test_elf_note__unpadded_last_descriptor(void **state)
{
	struct buf b = {0};
	const uint8_t *id;

	(void)state;
	note(&b, 3, "GNU", 4, ID, 7, 4, false, false);
	assert_int_equal(b.sz % 4, 3);
	assert_int_equal(tdr_elf_notes_build_id(b.b, b.sz, 4, &id), 7);
	/* One byte short: the descriptor runs past the segment. */
	assert_int_equal(tdr_elf_notes_build_id(b.b, b.sz - 1, 4, &id), 0);
}

static void test_elf_note__hostile_sizes(void **state)
{
	static const uint32_t bad[][2] = {
	    {UINT32_MAX, 4}, {4, UINT32_MAX}, {UINT32_MAX - 2, UINT32_MAX - 2}, {200, 0}, {4, 200},
	};
	const uint8_t *id;

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct buf b = {0};
		struct tdr_elf_notes w;
		struct tdr_elf_note n;

		put32(&b, bad[i][0], false);
		put32(&b, bad[i][1], false);
		put32(&b, 3, false);
		memcpy(b.b + b.sz, "GNU", 4);
		b.sz += 4 + 20;
		tdr_elf_notes__init(&w, b.sz, 4, false);
		tdr_elf_notes__window(&w, b.b, b.sz, 0);
		assert_int_equal(tdr_elf_notes__next(&w, &n), -EBADMSG);
		assert_int_equal(tdr_elf_notes__next(&w, &n), 0); /* the walk is over */
		assert_int_equal(tdr_elf_notes_build_id(b.b, b.sz, 4, &id), 0);
	}
	/* Shorter than a header: no note; no build-id in an empty segment. */
	assert_int_equal(tdr_elf_notes_build_id(ID, 11, 4, &id), 0);
	assert_int_equal(tdr_elf_notes_build_id(ID, 0, 4, &id), 0);
}

static void test_elf_note__build_id_of_no_or_too_many_bytes_skipped(void **state)
{
	uint8_t long_id[24] = {0};
	struct buf b = {0};
	const uint8_t *id;

	(void)state;
	note(&b, 3, "GNU", 4, ID, 0, 4, false, true);
	note(&b, 3, "GNU", 4, long_id, 21, 4, false, true);
	note(&b, 3, "GNU", 3, ID, 20, 4, false, true); /* name without its NUL */
	assert_int_equal(tdr_elf_notes_build_id(b.b, b.sz, 4, &id), 0);
	note(&b, 3, "GNU", 4, ID, 1, 4, false, true);
	assert_int_equal(tdr_elf_notes_build_id(b.b, b.sz, 4, &id), 1);
	assert_int_equal(id[0], 1);
}

static void test_elf_note__window_moves(void **state)
{
	struct tdr_elf_notes w;
	struct tdr_elf_note n;
	struct buf b = {0};
	int seen = 0, r;

	(void)state;
	note(&b, 1, "GNU", 4, ID, 16, 4, false, true); /* 32 bytes */
	note(&b, 3, "GNU", 4, ID, 20, 4, false, true); /* 36 bytes */
	tdr_elf_notes__init(&w, b.sz, 4, false);
	/* No window yet: the walker asks for one. */
	assert_int_equal(tdr_elf_notes__next(&w, &n), -EAGAIN);
	/* A window of 50 bytes holds the first note and the next one's header
	 * and name, not its descriptor. */
	tdr_elf_notes__window(&w, b.b, 50, 0);
	assert_int_equal(tdr_elf_notes__next(&w, &n), 1);
	assert_non_null(n.desc);
	assert_int_equal(tdr_elf_notes__next(&w, &n), 1);
	assert_int_equal(n.pos, 32);
	assert_null(n.desc); /* not all in the window */
	assert_false(tdr_elf_note__is_build_id(&n));
	/* The caller moves the window to the note and walks it again. */
	w.pos = n.pos;
	tdr_elf_notes__window(&w, b.b + 32, b.sz - 32, 32);
	while ((r = tdr_elf_notes__next(&w, &n)) > 0)
		seen += tdr_elf_note__is_build_id(&n);
	assert_int_equal(r, 0);
	assert_int_equal(seen, 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_elf_note__build_id_after_other_notes),
	    cmocka_unit_test(test_elf_note__alignment_8_and_other_byte_order),
	    cmocka_unit_test(test_elf_note__unpadded_last_descriptor),
	    cmocka_unit_test(test_elf_note__hostile_sizes),
	    cmocka_unit_test(test_elf_note__build_id_of_no_or_too_many_bytes_skipped),
	    cmocka_unit_test(test_elf_note__window_moves),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
