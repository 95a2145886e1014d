/*
 * tests/fakes/fake_sys.c - scriptable runtime/sys.c for unit tests.
 * See fake_sys.h.
 */
#include "fake_sys.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tdrec/runtime.h"

struct fake_sys fake_sys;

void fake_sys_reset(void)
{
	memset(&fake_sys, 0, sizeof(fake_sys));
	fake_sys.next_id = 1000;
}

int tdr_sys_perf_event_open(struct perf_event_attr *attr, pid_t pid, int cpu, int group_fd,
			    unsigned long flags)
{
	struct fake_open_call *c = NULL;
	int res = 0;

	if (fake_sys.open_cnt < FAKE_SYS_MAX_LOG)
		c = &fake_sys.log[fake_sys.open_cnt];
	fake_sys.open_cnt++;
	if (fake_sys.emfile_always || (fake_sys.emfile_until_raised && !fake_sys.nofile_raised))
		res = -EMFILE;
	else if (fake_sys.open_hook)
		res = fake_sys.open_hook(attr, pid, cpu, fake_sys.open_ctx);
	if (!res) {
		res = open("/dev/null", O_RDONLY | O_CLOEXEC);
		if (res < 0)
			res = -errno;
	}
	if (c) {
		c->attr = *attr;
		c->pid = pid;
		c->cpu = cpu;
		c->group_fd = group_fd;
		c->flags = flags;
		c->result = res;
	}
	return res;
}

int tdr_sys_perf_ioctl(int fd, unsigned long request, unsigned long arg)
{
	(void)fd;
	(void)arg;
	if (request == PERF_EVENT_IOC_SET_OUTPUT)
		fake_sys.set_output_cnt++;
	else if (request == PERF_EVENT_IOC_ENABLE)
		fake_sys.enable_cnt++;
	else if (request == PERF_EVENT_IOC_DISABLE)
		fake_sys.disable_cnt++;
	return 0;
}

int tdr_sys_perf_id(int fd, uint64_t *id)
{
	(void)fd;
	*id = fake_sys.next_id++;
	return 0;
}

int tdr_sys_mmap(int fd, size_t len, void **out)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	void *p;

	(void)fd;
	fake_sys.mmap_cnt++;
	if (fake_sys.mmap_max_pages && len / page - 1 > fake_sys.mmap_max_pages)
		return fake_sys.mmap_errno ? -fake_sys.mmap_errno : -EPERM;
	if (posix_memalign(&p, page, len))
		return -ENOMEM;
	memset(p, 0, len);
	fake_sys.live_maps++;
	*out = p;
	return 0;
}

int tdr_sys_munmap(void *addr, size_t len)
{
	(void)len;
	fake_sys.munmap_cnt++;
	fake_sys.live_maps--;
	free(addr);
	return 0;
}

ssize_t tdr_sys_read(int fd, void *buf, size_t sz)
{
	if (fake_sys.read_hook)
		return fake_sys.read_hook(fd, buf, sz, fake_sys.read_ctx);
	return -EIO;
}

int tdr_sys_pidfd_open(pid_t pid)
{
	(void)pid;
	return -ENOSYS;
}

int tdr_sys_raise_nofile(void)
{
	if (fake_sys.nofile_raised)
		return 0;
	fake_sys.nofile_raised = true;
	return 1;
}
