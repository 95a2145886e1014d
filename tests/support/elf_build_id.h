/*
 * tests/support/elf_build_id.h - a file's GNU build-id as libdw reads it:
 * the oracle of the recorder's own reader (tests/recorder).
 *
 * Static inline, for tests that link libdw and libelf and include cmocka
 * first. A test binary includes it once.
 */
#ifndef TDREC_TESTS_ELF_BUILD_ID_H
#define TDREC_TESTS_ELF_BUILD_ID_H

#include <fcntl.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include <elfutils/libdwelf.h>
#include <gelf.h>

/* The build-id of path into id (20 bytes); fails the test when the file
 * cannot be read or has none. Returns its size (1..20). */
static inline size_t test_file_build_id(const char *path, uint8_t id[20])
{
	const void *bid = NULL;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	Elf *elf;
	ssize_t n;

	assert_true(fd >= 0);
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ, NULL);
	assert_non_null(elf);
	n = dwelf_elf_gnu_build_id(elf, &bid);
	assert_true(n > 0 && n <= 20);
	memset(id, 0, 20);
	memcpy(id, bid, (size_t)n);
	elf_end(elf);
	close(fd);
	return (size_t)n;
}

#endif /* TDREC_TESTS_ELF_BUILD_ID_H */
