/*
 * tests/common/test_mapguard.c - a guarded file mapping read past the end
 * of a file that shrank gives zeros and says where (tdr_mapguard.h); an
 * unguarded one still dies of SIGBUS, as before the guard was installed.
 */
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "tdrec/tdr_mapguard.h"

#define FILE_SZ (64 * 4096)

/* A temporary file of FILE_SZ bytes of 0xab, mapped read-only. */
static const uint8_t *map_file(char *path, int *fd)
{
	uint8_t buf[4096];
	void *m;

	strcpy(path, "/tmp/tdrec-mapguard-XXXXXX");
	*fd = mkstemp(path);
	assert_true(*fd >= 0);
	memset(buf, 0xab, sizeof(buf));
	for (int i = 0; i < FILE_SZ / 4096; i++)
		assert_int_equal(write(*fd, buf, sizeof(buf)), sizeof(buf));
	m = mmap(NULL, FILE_SZ, PROT_READ, MAP_PRIVATE, *fd, 0);
	assert_true(m != MAP_FAILED);
	return m;
}

static void test_mapguard__shrunk_file_reads_zeros(void **state)
{
	const size_t page = (size_t)sysconf(_SC_PAGESIZE);
	char path[64];
	uint64_t off = 0, sum = 0;
	const uint8_t *m;
	int fd, slot;

	(void)state;
	m = map_file(path, &fd);
	slot = tdr_mapguard__add(m, FILE_SZ);
	assert_true(slot >= 0);
	assert_int_equal(m[FILE_SZ - 1], 0xab); /* resident, then cut away */
	assert_false(tdr_mapguard__faulted(slot, &off));
	assert_int_equal(ftruncate(fd, 10 * 4096 + 100), 0);
	/* Before the new end: the file's bytes; in its last page past the
	 * end: zeros (the kernel's, no fault); past that page: zeros (the
	 * guard's). */
	assert_int_equal(m[10 * 4096 + 99], 0xab);
	assert_int_equal(m[10 * 4096 + 100], 0);
	assert_false(tdr_mapguard__faulted(slot, &off));
	for (size_t i = 0; i < FILE_SZ; i++)
		sum += m[i];
	assert_int_equal(sum, (uint64_t)0xab * (10 * 4096 + 100));
	assert_true(tdr_mapguard__faulted(slot, &off));
	assert_int_equal(off, ((10 * 4096 + 100) + page - 1) / page * page);
	tdr_mapguard__remove(slot);
	munmap((void *)m, FILE_SZ);
	close(fd);
	unlink(path);
}

/* Another mapping, not guarded, of a file that shrank: the process dies of
 * SIGBUS as it would without the guard. In a child that installs the
 * guard over SIGBUS's default action (cmocka has its own handler). */
static void test_mapguard__other_mappings_still_fault(void **state)
{
	int status;
	pid_t pid;

	(void)state;
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		char path[64], other[64];
		const uint8_t *m, *u;
		int fd, ufd;

		signal(SIGBUS, SIG_DFL);
		m = map_file(path, &fd);
		u = map_file(other, &ufd);
		unlink(path);
		unlink(other);
		if (tdr_mapguard__add(m, FILE_SZ) < 0 || ftruncate(ufd, 0))
			_exit(2);
		(void)*(volatile const uint8_t *)(u + FILE_SZ / 2);
		_exit(0);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFSIGNALED(status));
	assert_int_equal(WTERMSIG(status), SIGBUS);
}

static void test_mapguard__slots_run_out_and_come_back(void **state)
{
	int s[TDR_MAPGUARD_SLOTS];
	static const uint8_t page[1] __attribute__((aligned(4096)));

	(void)state;
	for (int i = 0; i < TDR_MAPGUARD_SLOTS; i++) {
		s[i] = tdr_mapguard__add(page, 1);
		assert_true(s[i] >= 0);
	}
	assert_int_equal(tdr_mapguard__add(page, 1), -1);
	tdr_mapguard__remove(s[3]);
	assert_int_equal(tdr_mapguard__add(page, 1), s[3]);
	for (int i = 0; i < TDR_MAPGUARD_SLOTS; i++)
		tdr_mapguard__remove(s[i]);
	assert_int_equal(tdr_mapguard__add(NULL, 1), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_mapguard__other_mappings_still_fault),
		cmocka_unit_test(test_mapguard__shrunk_file_reads_zeros),
		cmocka_unit_test(test_mapguard__slots_run_out_and_come_back),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
