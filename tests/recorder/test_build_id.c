/*
 * tests/recorder/test_build_id.c - the recorder's ELF build-id reader.
 *
 * The reader (recorder/build_id.c) is checked against libdw's
 * dwelf_elf_gnu_build_id on real binaries (this test and tdr_prog_spin),
 * and against ELF files built here byte by byte: both classes, notes
 * aligned to 4 and 8, the build-id note after others and in a second
 * segment, descriptors the kernel would not report, and hostile files (every
 * truncation, every byte flipped, sizes near the limits) that must give
 * "none" or the right id, never a crash (ASan build) or a wrong id.
 * What is done with the build-ids (the DSO table) is tested in
 * test_dso_set.c.
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <cmocka.h>

#include "recorder_int.h"
#include "support/elf_build_id.h"
#include "support/test_tmpdir.h"
#include "tdrec/tdr_mem.h"

struct tdir {
	char dir[TEST_TMPDIR_SZ];
	char path[128]; /* dir/f: the file of the test */
};

static int setup(void **state)
{
	struct tdir *t = calloc(1, sizeof(*t));

	if (!t || !test_tmpdir_make(t->dir, "buildid")) {
		free(t);
		return -1;
	}
	snprintf(t->path, sizeof(t->path), "%s/f", t->dir);
	*state = t;
	return 0;
}

static int teardown(void **state)
{
	struct tdir *t = *state;

	test_tmpdir_remove(t->dir);
	free(t);
	return 0;
}

static void write_file(const char *path, const void *data, size_t sz)
{
	FILE *f = fopen(path, "wb");

	assert_non_null(f);
	assert_int_equal(fwrite(data, 1, sz, f), sz);
	assert_int_equal(fclose(f), 0);
}

/* tdr_build_id__read on path. */
static int read_path(const char *path, struct tdr_build_id *bid)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	int err;

	assert_true(fd >= 0);
	memset(bid, 0xa5, sizeof(*bid));
	err = tdr_build_id__read(fd, bid);
	close(fd);
	return err;
}

/* ---- ELF files made by hand ---- */

struct note {
	const char *name;
	uint32_t type;
	const uint8_t *desc;
	uint32_t descsz;
};

struct seg {
	uint32_t type;
	uint64_t align; /* of the notes: 4 or 8 */
	size_t note_cnt;
	struct note notes[3];
};

#define MAX_ELF 4096

static size_t pad(size_t v, size_t a)
{
	return (v + a - 1) / a * a;
}

static void put_nhdr(uint8_t *p, uint32_t namesz, uint32_t descsz, uint32_t type)
{
	memcpy(p, &namesz, 4);
	memcpy(p + 4, &descsz, 4);
	memcpy(p + 8, &type, 4);
}

/* An ELF file (host byte order) of the segments: headers, then each
 * segment's notes. Returns its size in buf (MAX_ELF bytes). */
static size_t make_elf(uint8_t *buf, bool is64, const struct seg *segs, size_t seg_cnt)
{
	size_t ehsz = is64 ? sizeof(Elf64_Ehdr) : sizeof(Elf32_Ehdr);
	size_t phsz = is64 ? sizeof(Elf64_Phdr) : sizeof(Elf32_Phdr);
	size_t pos = pad(ehsz + seg_cnt * phsz, 8);

	memset(buf, 0, MAX_ELF);
	for (size_t s = 0; s < seg_cnt; s++) {
		size_t start = pos, a = segs[s].align;

		for (size_t n = 0; n < segs[s].note_cnt; n++) {
			const struct note *nt = &segs[s].notes[n];
			uint32_t namesz = (uint32_t)strlen(nt->name) + 1;

			put_nhdr(buf + pos, namesz, nt->descsz, nt->type);
			memcpy(buf + pos + 12, nt->name, namesz);
			pos = pad(pos + 12 + namesz, a);
			memcpy(buf + pos, nt->desc, nt->descsz);
			pos = pad(pos + nt->descsz, a);
		}
		if (is64) {
			Elf64_Phdr ph = {.p_type = segs[s].type,
					 .p_offset = start,
					 .p_filesz = pos - start,
					 .p_memsz = pos - start,
					 .p_align = a};

			memcpy(buf + ehsz + s * phsz, &ph, phsz);
		} else {
			Elf32_Phdr ph = {.p_type = segs[s].type,
					 .p_offset = (uint32_t)start,
					 .p_filesz = (uint32_t)(pos - start),
					 .p_memsz = (uint32_t)(pos - start),
					 .p_align = (uint32_t)a};

			memcpy(buf + ehsz + s * phsz, &ph, phsz);
		}
	}
	memcpy(buf, ELFMAG, SELFMAG);
	buf[EI_CLASS] = is64 ? ELFCLASS64 : ELFCLASS32;
	buf[EI_DATA] = *(const uint8_t *)&(uint16_t){1} ? ELFDATA2LSB : ELFDATA2MSB;
	buf[EI_VERSION] = EV_CURRENT;
/* The header fields are the same in both classes, in types of their size. */
#define FILL_EHDR(Ehdr, Phdr)                                                                      \
	do {                                                                                       \
		Ehdr h;                                                                            \
		memcpy(&h, buf, sizeof(h));                                                        \
		h.e_type = ET_DYN;                                                                 \
		h.e_phoff = sizeof(Ehdr);                                                          \
		h.e_ehsize = sizeof(Ehdr);                                                         \
		h.e_phentsize = sizeof(Phdr);                                                      \
		h.e_phnum = (uint16_t)seg_cnt;                                                     \
		memcpy(buf, &h, sizeof(h));                                                        \
	} while (0)
	if (is64)
		FILL_EHDR(Elf64_Ehdr, Elf64_Phdr);
	else
		FILL_EHDR(Elf32_Ehdr, Elf32_Phdr);
#undef FILL_EHDR
	return pos;
}

static const uint8_t id20[20] = {0xde, 0xad, 0xbe, 0xef, 1,  2,	 3,  4,	 5,  6,
				 7,    8,    9,	   10,	 11, 12, 13, 14, 15, 16};
static const uint8_t abi[16] = {0, 0, 0, 0, 3, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0};
static const uint8_t prop[16] = {2, 0, 0, 0xc0, 4, 0, 0, 0, 3, 0, 0, 0, 0, 0, 0, 0};

/* A typical shared object: .note.gnu.property in an 8-aligned segment,
 * then .note.gnu.build-id after .note.ABI-tag in a 4-aligned one. */
static size_t typical(uint8_t *buf, bool is64)
{
	const struct seg segs[] = {
	    {PT_LOAD, 8, 0, {{0}}},
	    {PT_NOTE, 8, 1, {{"GNU", NT_GNU_PROPERTY_TYPE_0, prop, sizeof(prop)}}},
	    {PT_NOTE,
	     4,
	     2,
	     {{"GNU", NT_GNU_ABI_TAG, abi, sizeof(abi)}, {"GNU", NT_GNU_BUILD_ID, id20, 20}}},
	};

	return make_elf(buf, is64, segs, 3);
}

static void assert_id(const struct tdr_build_id *b, const uint8_t *id, size_t sz)
{
	assert_int_equal(b->sz, sz);
	assert_memory_equal(b->id, id, sz);
	for (size_t i = sz; i < TDR_BUILD_ID_MAX; i++)
		assert_int_equal(b->id[i], 0);
}

/* ---- tests ---- */

/* libdw's reading of the same files is the oracle. */
static void check_against_libdw(const char *path)
{
	struct tdr_build_id b;
	uint8_t want[20];
	size_t n = test_file_build_id(path, want);

	assert_int_equal(read_path(path, &b), 0);
	assert_id(&b, want, n);
}

static void test_build_id__real_binaries_as_libdw_reads_them(void **state)
{
	(void)state;
	check_against_libdw("/proc/self/exe");
	check_against_libdw(SPIN_PATH);
}

static void test_build_id__both_classes_and_alignments(void **state)
{
	struct tdir *t = *state;
	uint8_t buf[MAX_ELF];
	struct tdr_build_id b;
	const uint8_t id8[8] = {9, 8, 7, 6, 5, 4, 3, 2};
	/* The build-id second in an 8-aligned segment: the first note's
	 * padding decides where it is. */
	const struct seg seg8[] = {
	    {PT_NOTE,
	     8,
	     2,
	     {{"GNU", NT_GNU_ABI_TAG, abi, 12}, {"GNU", NT_GNU_BUILD_ID, id8, sizeof(id8)}}}};

	write_file(t->path, buf, typical(buf, true));
	assert_int_equal(read_path(t->path, &b), 0);
	assert_id(&b, id20, 20);
	write_file(t->path, buf, typical(buf, false));
	assert_int_equal(read_path(t->path, &b), 0);
	assert_id(&b, id20, 20);
	write_file(t->path, buf, make_elf(buf, true, seg8, 1));
	assert_int_equal(read_path(t->path, &b), 0);
	assert_id(&b, id8, sizeof(id8));
}

/* What the kernel would not put in an MMAP2 record is not a build-id. */
static void test_build_id__none_or_unusable(void **state)
{
	struct tdir *t = *state;
	uint8_t buf[MAX_ELF], big[24] = {1};
	struct tdr_build_id b;
	const struct seg no_id[] = {{PT_NOTE, 4, 1, {{"GNU", NT_GNU_ABI_TAG, abi, sizeof(abi)}}}};
	const struct seg empty[] = {{PT_NOTE, 4, 1, {{"GNU", NT_GNU_BUILD_ID, id20, 0}}}};
	const struct seg too_big[] = {{PT_NOTE, 4, 1, {{"GNU", NT_GNU_BUILD_ID, big, 24}}}};
	const struct seg other_owner[] = {{PT_NOTE, 4, 1, {{"Go", NT_GNU_BUILD_ID, id20, 20}}}};
	const struct seg not_a_note[] = {{PT_LOAD, 4, 1, {{"GNU", NT_GNU_BUILD_ID, id20, 20}}}};
	const struct seg *cases[] = {no_id, empty, too_big, other_owner, not_a_note};
	size_t sz;

	for (size_t i = 0; i < TDR_ARRAY_SIZE(cases); i++) {
		write_file(t->path, buf, make_elf(buf, true, cases[i], 1));
		assert_int_equal(read_path(t->path, &b), -ENOENT);
	}
	/* Not ELF, empty, the other byte order, an unknown class. */
	write_file(t->path, "#!/bin/sh\necho hello\n", 21);
	assert_int_equal(read_path(t->path, &b), -ENOENT);
	write_file(t->path, "", 0);
	assert_int_equal(read_path(t->path, &b), -ENOENT);
	sz = typical(buf, true);
	buf[EI_DATA] = buf[EI_DATA] == ELFDATA2LSB ? ELFDATA2MSB : ELFDATA2LSB;
	write_file(t->path, buf, sz);
	assert_int_equal(read_path(t->path, &b), -ENOENT);
	sz = typical(buf, true);
	buf[EI_CLASS] = 3;
	write_file(t->path, buf, sz);
	assert_int_equal(read_path(t->path, &b), -ENOENT);
}

/* Cut the file at every length: the id is found exactly when the whole
 * build-id note is there, and is then right. */
static void test_build_id__every_truncation(void **state)
{
	struct tdir *t = *state;
	uint8_t buf[MAX_ELF];
	struct tdr_build_id b;

	for (int is64 = 0; is64 < 2; is64++) {
		size_t sz = typical(buf, is64);

		for (size_t cut = 0; cut <= sz; cut++) {
			int err;

			write_file(t->path, buf, cut);
			err = read_path(t->path, &b);
			if (cut == sz) {
				assert_int_equal(err, 0);
				assert_id(&b, id20, 20);
			} else {
				/* The segment is cut, so it runs past the file. */
				assert_int_equal(err, -ENOENT);
			}
		}
	}
}

/* Every byte flipped, one at a time: never a crash, and a build-id found
 * is 1..20 bytes long. */
static void test_build_id__every_byte_flipped(void **state)
{
	struct tdir *t = *state;
	uint8_t buf[MAX_ELF];
	struct tdr_build_id b;
	size_t sz = typical(buf, true);
	size_t found = 0;

	for (size_t i = 0; i < sz; i++) {
		for (int v = 0; v < 2; v++) {
			uint8_t old = buf[i];
			int err;

			buf[i] = v ? (uint8_t)~old : 0xff;
			write_file(t->path, buf, sz);
			err = read_path(t->path, &b);
			buf[i] = old;
			assert_true(err == 0 || err == -ENOENT);
			if (!err) {
				assert_true(b.sz >= 1 && b.sz <= TDR_BUILD_ID_MAX);
				found++;
			}
		}
	}
	assert_true(found > 0); /* most flips are in bytes the reader ignores */
}

/* Sizes at the limits of their fields, pointing far outside the file. */
static void test_build_id__hostile_sizes(void **state)
{
	struct tdir *t = *state;
	uint8_t buf[MAX_ELF];
	struct tdr_build_id b;
	size_t sz = typical(buf, true), note_off, ph2 = sizeof(Elf64_Ehdr) + 2 * sizeof(Elf64_Phdr);
	Elf64_Phdr ph;
	Elf64_Ehdr eh;

	memcpy(&ph, buf + ph2, sizeof(ph));
	note_off = ph.p_offset;
	for (int c = 0; c < 8; c++) {
		uint8_t m[MAX_ELF];
		Elf64_Phdr p = ph;
		uint32_t v = 0xffffffffu;

		memcpy(m, buf, sz);
		memcpy(&eh, m, sizeof(eh));
		switch (c) {
		case 0: /* namesz of the first note */
			memcpy(m + note_off, &v, 4);
			break;
		case 1: /* descsz of the first note */
			memcpy(m + note_off + 4, &v, 4);
			break;
		case 2: /* far more than the file has */
			p.p_filesz = 1ull << 40;
			break;
		case 3:
			p.p_offset = UINT64_MAX - 4;
			p.p_filesz = 16;
			break;
		case 4:
			eh.e_phnum = 0xffff; /* PN_XNUM */
			break;
		case 5:
			eh.e_phnum = 0xfffe;
			eh.e_phoff = UINT64_MAX - 100;
			break;
		case 6:
			eh.e_phentsize = 1;
			break;
		case 7: /* offset + size past 2^64 */
			p.p_filesz = UINT64_MAX;
			break;
		}
		memcpy(m + ph2, &p, sizeof(p));
		if (c >= 4 && c <= 6)
			memcpy(m, &eh, sizeof(eh));
		write_file(t->path, m, sz);
		assert_int_equal(read_path(t->path, &b), c == 2 ? 0 : -ENOENT);
		if (c == 2) /* a huge segment still starts with the note */
			assert_id(&b, id20, 20);
	}
}

int main(void)
{
#define T(f) cmocka_unit_test_setup_teardown(test_build_id__##f, setup, teardown)
	const struct CMUnitTest tests[] = {
	    T(real_binaries_as_libdw_reads_them),
	    T(both_classes_and_alignments),
	    T(none_or_unusable),
	    T(every_truncation),
	    T(every_byte_flipped),
	    T(hostile_sizes),
	};
#undef T

	return cmocka_run_group_tests(tests, NULL, NULL);
}
