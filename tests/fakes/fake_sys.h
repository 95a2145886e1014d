/*
 * tests/fakes/fake_sys.h - a scriptable stand-in for runtime/sys.c.
 *
 * Linked into a test instead of sys.c (a link-time seam: the recorder
 * library's sys.o is then never pulled). perf_event_open returns real fds
 * (of /dev/null, so closing them is harmless) unless the test's open hook
 * says otherwise; ids count up from 1000; mmap returns zeroed heap memory
 * (a fake perf_event_mmap_page + data) and can refuse sizes above a limit
 * with EPERM, like the kernel's mlock budget; EMFILE can be given until
 * RLIMIT_NOFILE is "raised" (or for ever). Every open is logged for the test to check.
 * One test thread only.
 */
#ifndef TDREC_TESTS_FAKE_SYS_H
#define TDREC_TESTS_FAKE_SYS_H

#include <linux/perf_event.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define FAKE_SYS_MAX_LOG 512

struct fake_open_call {
	struct perf_event_attr attr;
	pid_t pid;
	int cpu;
	int group_fd;
	unsigned long flags;
	int result; /* fd or -errno */
};

/* Return 0 to let an open succeed, or -errno to fail it. */
typedef int (*fake_open_hook_fn)(const struct perf_event_attr *a, pid_t pid, int cpu, void *ctx);

/* What read(2) of fd gives: bytes written to buf, or -errno. */
typedef ssize_t (*fake_read_hook_fn)(int fd, void *buf, size_t sz, void *ctx);

struct fake_sys {
	fake_open_hook_fn open_hook;
	void *open_ctx;
	fake_read_hook_fn read_hook; /* NULL: every read gives -EIO */
	void *read_ctx;
	size_t mmap_max_pages; /* 0: no limit; above it mmap gives -mmap_errno */
	int mmap_errno;	       /* 0: EPERM (the mlock budget); ENOMEM: too large */
	bool emfile_until_raised;
	bool emfile_always; /* EMFILE whatever the limit (already at the hard limit) */
	bool nofile_raised;
	uint64_t next_id;
	size_t open_cnt; /* calls, successful or not */
	struct fake_open_call log[FAKE_SYS_MAX_LOG];
	size_t mmap_cnt, munmap_cnt, set_output_cnt, enable_cnt, disable_cnt;
	size_t live_maps;
};

extern struct fake_sys fake_sys;

/* Reset everything (call in each test's setup). */
void fake_sys_reset(void);

#endif /* TDREC_TESTS_FAKE_SYS_H */
