/*
 * runtime/machine.c - host facts for the recording's metadata.
 *
 * Responsibility: hostname and kernel release (uname), boot_id (so a report
 * knows whether /proc/kallsyms still applies), the first CPU's vendor,
 * family, model, stepping and model name from /proc/cpuinfo, the page size
 * and the online CPU count. A fact that cannot be read is left empty: the
 * recording goes on without it.
 * Objects and lifecycle: plain functions over struct tdr_meta.
 * Ownership: strings put into meta are owned by meta (tdr_meta__clear).
 * See: tdrec/format.h struct tdr_meta.
 */
#include "runtime_int.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "tdrec/tdr_mem.h"

/* Replace *dst with a copy of src (trailing whitespace removed). */
static int set_str(char **dst, const char *src)
{
	size_t n = strlen(src);
	char *c;

	while (n && (src[n - 1] == '\n' || src[n - 1] == ' ' || src[n - 1] == '\t'))
		n--;
	c = tdr_strndup(src, n);
	if (!c)
		return -ENOMEM;
	free(*dst);
	*dst = c;
	return 0;
}

static FILE *proc_open(const char *proc_root, const char *rel)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/%s", proc_root ? proc_root : "/proc", rel);
	return fopen(path, "re");
}

/* "key\t: value" lines of the first processor block. */
static int read_cpuinfo(struct tdr_meta *meta, const char *proc_root)
{
	FILE *f = proc_open(proc_root, "cpuinfo");
	char line[512];
	int err = 0;

	if (!f)
		return 0;
	while (!err && fgets(line, sizeof(line), f)) {
		char *colon = strchr(line, ':');
		char *val;

		if (line[0] == '\n')
			break; /* end of the first CPU's block */
		if (!colon)
			continue;
		val = colon + 1;
		while (*val == ' ')
			val++;
		if (!strncmp(line, "vendor_id", 9))
			err = set_str(&meta->cpu_vendor, val);
		else if (!strncmp(line, "model name", 10))
			err = set_str(&meta->cpu_model_name, val);
		else if (!strncmp(line, "cpu family", 10))
			meta->cpu_family = (uint32_t)strtoul(val, NULL, 10);
		else if (!strncmp(line, "model\t", 6) || !strncmp(line, "model ", 6))
			meta->cpu_model = (uint32_t)strtoul(val, NULL, 10);
		else if (!strncmp(line, "stepping", 8))
			meta->cpu_stepping = (uint32_t)strtoul(val, NULL, 10);
	}
	fclose(f);
	return err;
}

int tdr_machine__fill(struct tdr_meta *meta, const char *proc_root)
{
	struct utsname u;
	char line[128];
	FILE *f;
	long v;
	int err;

	if (!uname(&u)) {
		err = set_str(&meta->hostname, u.nodename);
		if (!err)
			err = set_str(&meta->kernel_release, u.release);
		if (err)
			return err;
	}
	f = proc_open(proc_root, "sys/kernel/random/boot_id");
	if (f) {
		err = fgets(line, sizeof(line), f) ? set_str(&meta->boot_id, line) : 0;
		fclose(f);
		if (err)
			return err;
	}
	err = read_cpuinfo(meta, proc_root);
	if (err)
		return err;
	v = sysconf(_SC_PAGESIZE);
	meta->page_sz = v > 0 ? (uint32_t)v : 0;
	v = sysconf(_SC_NPROCESSORS_ONLN);
	meta->nr_cpus = v > 0 ? (uint32_t)v : 0;
	return 0;
}

/* One integer from a /proc/sys file, or INT_MIN. */
static int proc_int(const char *proc_root, const char *rel)
{
	FILE *f = proc_open(proc_root, rel);
	int v = INT_MIN;

	if (!f)
		return INT_MIN;
	if (fscanf(f, "%d", &v) != 1)
		v = INT_MIN;
	fclose(f);
	return v;
}

int tdr_machine__paranoid(const char *proc_root)
{
	return proc_int(proc_root, "sys/kernel/perf_event_paranoid");
}

int tdr_machine__max_sample_rate(const char *proc_root)
{
	return proc_int(proc_root, "sys/kernel/perf_event_max_sample_rate");
}

int tdr_machine__mlock_kb(const char *proc_root)
{
	return proc_int(proc_root, "sys/kernel/perf_event_mlock_kb");
}
