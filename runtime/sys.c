/*
 * runtime/sys.c - the recorder's system-call seam.
 *
 * Responsibility: the only place that calls perf_event_open, ioctl on perf
 * fds, mmap/munmap of rings, read on perf fds, pidfd_open and setrlimit.
 * Each wrapper returns a result >= 0 or -errno, so callers follow the error
 * convention (docs/architecture.md "Conventions") without touching errno.
 * This file holds nothing else on purpose: unit tests link
 * tests/fakes/fake_sys.c, which defines the same functions, and the linker
 * then never pulls this object out of the static library.
 * See: perf_event_open(2); recorder_int.h for the contract.
 */
#include "tdrec/runtime.h"

#include <errno.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434
#endif

int tdr_sys_perf_event_open(struct perf_event_attr *attr, pid_t pid, int cpu, int group_fd,
			    unsigned long flags)
{
	long fd = syscall(SYS_perf_event_open, attr, pid, cpu, group_fd, flags);

	if (fd < 0)
		return -errno;
	return (int)fd;
}

int tdr_sys_perf_ioctl(int fd, unsigned long request, unsigned long arg)
{
	int ret = ioctl(fd, request, arg);

	if (ret < 0)
		return -errno;
	return ret;
}

int tdr_sys_perf_id(int fd, uint64_t *id)
{
	__u64 v = 0;

	if (ioctl(fd, PERF_EVENT_IOC_ID, &v) < 0)
		return -errno;
	*id = v;
	return 0;
}

int tdr_sys_mmap(int fd, size_t len, void **out)
{
	/* PROT_WRITE makes the ring non-overwriting: the kernel honours
	 * data_tail and reports PERF_RECORD_LOST instead (docs/kernel.md "Ring buffer"). */
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);

	if (p == MAP_FAILED)
		return -errno;
	*out = p;
	return 0;
}

int tdr_sys_munmap(void *addr, size_t len)
{
	if (munmap(addr, len) < 0)
		return -errno;
	return 0;
}

ssize_t tdr_sys_read(int fd, void *buf, size_t sz)
{
	ssize_t n;

	do {
		n = read(fd, buf, sz);
	} while (n < 0 && errno == EINTR);
	if (n < 0)
		return -errno;
	return n;
}

int tdr_sys_pidfd_open(pid_t pid)
{
	long fd = syscall(SYS_pidfd_open, pid, 0);

	if (fd < 0)
		return -errno;
	return (int)fd;
}

int tdr_sys_raise_nofile(void)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) < 0)
		return -errno;
	if (rl.rlim_cur >= rl.rlim_max)
		return 0;
	rl.rlim_cur = rl.rlim_max;
	if (setrlimit(RLIMIT_NOFILE, &rl) < 0)
		return -errno;
	return 1;
}
