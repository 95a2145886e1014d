/*
 * runtime/machine.c - host facts for the recording's metadata.
 *
 * Responsibility: hostname and kernel release (uname), boot_id (so a report
 * knows whether /proc/kallsyms still applies), the first CPU's identity
 * (tdrec/cpuid.h parses /proc/cpuinfo: vendor, family, model, stepping; the
 * MIDR on arm64) and model name, the page size and the online CPU count. A fact that cannot be read is left empty: the
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

#include "tdrec/cpuid.h"
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

	snprintf(path, sizeof(path), "%s/%s", tdr_proc__root(proc_root), rel);
	return fopen(path, "re");
}

/*
 * The first processor block of /proc/cpuinfo: the identity through the one
 * parser of tdrec/cpuid.h (the same that reads perf.data's CPUID header),
 * the model name from its own line (not part of the identity). x86 keeps
 * vendor, family, model and stepping; arm64 has no vendor_id line and its
 * identity is the MIDR, stored as cpu_vendor in perf's CPUID form
 * ("0x00000000410fd4f0", what perf writes in perf.data) with the numbers 0.
 */
static int read_cpuinfo(struct tdr_meta *meta, const char *proc_root)
{
	FILE *f = proc_open(proc_root, "cpuinfo");
	struct tdr_cpuid id;
	char *text, *end, buf[40];
	size_t len = 0, cap = 64 * 1024;
	const char *name;
	int err = 0;

	if (!f)
		return 0;
	text = tdr_malloc(cap);
	if (!text) {
		fclose(f);
		return -ENOMEM;
	}
	/* The first block is a few KiB (x86 "flags" is the longest line);
	 * later CPUs' blocks are not needed. */
	while (len + 1 < cap) {
		size_t n = fread(text + len, 1, cap - 1 - len, f);

		if (!n)
			break;
		len += n;
	}
	fclose(f);
	text[len] = '\0';
	end = strstr(text, "\n\n");
	if (end)
		end[1] = '\0';
	if (!tdr_cpuid_from_cpuinfo(text, &id)) {
		if (id.midr) {
			tdr_cpuid_format(&id, buf, sizeof(buf));
			err = set_str(&meta->cpu_vendor, buf);
		} else {
			err = set_str(&meta->cpu_vendor, id.vendor);
			meta->cpu_family = id.family;
			meta->cpu_model = id.model;
			meta->cpu_stepping = id.stepping;
		}
	}
	name = strstr(text, "model name");
	if (!err && name && (name == text || name[-1] == '\n')) {
		const char *val = strchr(name, ':'), *eol = strchr(name, '\n');

		if (val && (!eol || val < eol)) {
			char *v;

			val++;
			while (*val == ' ' || *val == '\t')
				val++;
			v = tdr_strndup(val, eol ? (size_t)(eol - val) : strlen(val));
			err = v ? set_str(&meta->cpu_model_name, v) : -ENOMEM;
			free(v);
		}
	}
	free(text);
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
