/*
 * plan/sysfs.c - read the sysfs files plans need, once, into a snapshot.
 *
 * Responsibility: the only code of plan/ that touches the file system
 * under the sysfs root. tdr_sysfs__read lists
 * <root>/bus/event_source/devices (in readdir order), and for the PMUs a
 * plan can use (the core PMUs "cpu" and "cpu_*", and the PMU an -e
 * sampler names) reads type, cpus, caps/pmu_name, caps/slots and every file of events/
 * and format/; it also reads <root>/devices/system/cpu/online.
 * tdr_sysfs__read_machine adds what the families are chosen by: the CPU
 * identity (TDREC_CPUID's text, <proc>/cpuinfo, or the arm64 MIDR under
 * the sysfs root) and the NMI watchdog (<proc>/sys/kernel/nmi_watchdog),
 * which holds a counter. Building a plan then reads the snapshot only
 * (pmu.c, plan.c, plan_generic.c, event_spec.c).
 * Why errors are kept, not raised: a plan only fails on the files it uses
 * (a damaged core PMU does not stop the software plan; a bad format file
 * matters only to a term that needs it), and it says so in the same words
 * as before. So each file keeps its read error, and its raw bytes (up to
 * TDR_SYSFS_MAX), and the reader of the snapshot judges and logs
 * (tdr_sysfs_file__text applies the caller's buffer size, as reading the
 * file into that buffer did).
 * Objects and lifecycle: tdr_sysfs__read -> lookups -> tdr_sysfs__free.
 * Ownership and threads: the snapshot owns its strings; read-only after
 * tdr_sysfs__read, so it may be shared.
 * See: plan_int.h; docs/plans.md "Where the facts come from: sysfs".
 */
#define LOG_PREFIX "plan: "

#include "plan_int.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tdrec/tdr_err.h"
#include "tdrec/tdr_log.h"
#include "tdrec/tdr_mem.h"
#include "tdrec/cpuid.h"

const char *tdr_sysfs_root(const char *opt)
{
	const char *env;

	if (opt)
		return opt;
	env = getenv("TDREC_SYSFS");
	if (env && env[0])
		return env;
	return "/sys";
}

/* Read up to TDR_SYSFS_MAX bytes of path into f (err = -errno on failure;
 * more bytes than that are not kept: every caller's buffer is smaller). */
static int read_file(const char *path, struct tdr_sysfs_file *f)
{
	struct stat st;
	char *shrunk;
	ssize_t n;
	int fd;

	f->present = stat(path, &st) == 0;
	f->is_reg = f->present && S_ISREG(st.st_mode);
	f->text = tdr_calloc(1, TDR_SYSFS_MAX + 1);
	if (!f->text)
		return -ENOMEM;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		f->err = -errno;
		return 0;
	}
	while (f->len < TDR_SYSFS_MAX) {
		n = read(fd, f->text + f->len, TDR_SYSFS_MAX - f->len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			f->err = -errno;
			break;
		}
		if (n == 0)
			break;
		f->len += (size_t)n;
	}
	close(fd);
	/* Keep only what was read: a core PMU has dozens of short files. */
	shrunk = realloc(f->text, f->len + 1);
	if (shrunk)
		f->text = shrunk;
	return 0;
}

static void file_clear(struct tdr_sysfs_file *f)
{
	zfree(&f->name);
	zfree(&f->text);
}

int tdr_sysfs_file__text(const struct tdr_sysfs_file *f, char *buf, size_t sz)
{
	size_t len;

	if (!f || !f->present)
		return -ENOENT;
	if (f->err)
		return f->err;
	/* A file that did not fit sz - 1 bytes was "too long" for a reader
	 * with this buffer. */
	if (f->len > sz - 1)
		return -EFBIG;
	len = f->len;
	memcpy(buf, f->text, len);
	while (len && (buf[len - 1] == '\n' || buf[len - 1] == ' ' || buf[len - 1] == '\t'))
		len--;
	buf[len] = '\0';
	return (int)len;
}

/* dir/rel into path; false when it does not fit (then no such file can
 * be asked for either: the readers build the same path). */
static bool path_of(char *path, size_t sz, const char *dir, const char *rel)
{
	int n = snprintf(path, sz, "%s/%s", dir, rel);

	return n >= 0 && (size_t)n < sz;
}

/* Every entry of dir (a missing dir has none), each read. */
static int read_dir_files(const char *dir, struct tdr_sysfs_file **out, size_t *cnt)
{
	char path[PATH_MAX];
	size_t cap = 0;
	struct dirent *de;
	int err = 0;
	DIR *d;

	d = opendir(dir);
	if (!d)
		return 0;
	while (!err && (de = readdir(d))) {
		struct tdr_sysfs_file *f;

		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (!path_of(path, sizeof(path), dir, de->d_name))
			continue;
		if (tdr_ensure_cap(out, &cap, sizeof(**out), *cnt + 1)) {
			err = -ENOMEM;
			break;
		}
		f = &(*out)[*cnt];
		memset(f, 0, sizeof(*f));
		(*cnt)++;
		f->name = tdr_strdup(de->d_name);
		err = f->name ? read_file(path, f) : -ENOMEM;
	}
	closedir(d);
	return err;
}

static int read_pmu(const char *root, struct tdr_sysfs_pmu *p)
{
	char devs[PATH_MAX], dir[PATH_MAX], path[PATH_MAX];
	int err = 0;

	if (!path_of(devs, sizeof(devs), root, "bus/event_source/devices") ||
	    !path_of(dir, sizeof(dir), devs, p->name))
		return 0; /* tdr_pmu__open says ENAMETOOLONG */
	p->loaded = true;
	if (path_of(path, sizeof(path), dir, "type"))
		err = read_file(path, &p->type);
	if (!err && path_of(path, sizeof(path), dir, "cpus"))
		err = read_file(path, &p->cpus);
	if (!err && path_of(path, sizeof(path), dir, "caps/pmu_name"))
		err = read_file(path, &p->caps_name);
	if (!err && path_of(path, sizeof(path), dir, "caps/slots"))
		err = read_file(path, &p->caps_slots);
	if (!err && path_of(path, sizeof(path), dir, "caps/branches"))
		err = read_file(path, &p->caps_branches);
	if (!err && path_of(path, sizeof(path), dir, "events"))
		err = read_dir_files(path, &p->events, &p->event_cnt);
	if (!err && path_of(path, sizeof(path), dir, "format"))
		err = read_dir_files(path, &p->formats, &p->format_cnt);
	return err;
}

/* The PMUs a plan may use: the core PMUs (x86 "cpu", "cpu_*"; arm64
 * "armv8_*", drivers/perf/arm_pmuv3.c) and the one -e names. */
static bool wanted(const char *name, const char *extra)
{
	return !strcmp(name, "cpu") || !strncmp(name, "cpu_", 4) || !strncmp(name, "armv8_", 6) ||
	       (extra && !strcmp(name, extra));
}

int tdr_sysfs__read(const char *root, const char *extra_pmu, struct tdr_sysfs **out)
{
	char dir[PATH_MAX], path[PATH_MAX];
	struct tdr_sysfs *s;
	struct dirent *de;
	DIR *d = NULL;
	size_t cap = 0;
	int err = 0;

	s = tdr_calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	s->root = tdr_strdup(root);
	if (!s->root) {
		tdr_sysfs__free(s);
		return -ENOMEM;
	}
	if (path_of(path, sizeof(path), root, "devices/system/cpu/online"))
		err = read_file(path, &s->online);
	if (!err && path_of(dir, sizeof(dir), root, "bus/event_source/devices"))
		d = opendir(dir);
	while (d && !err && (de = readdir(d))) {
		struct tdr_sysfs_pmu *p;
		struct stat st;

		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, "..") ||
		    strlen(de->d_name) >= sizeof(p->name))
			continue;
		if (tdr_ensure_cap(&s->pmus, &cap, sizeof(*s->pmus), s->pmu_cnt + 1)) {
			err = -ENOMEM;
			break;
		}
		p = &s->pmus[s->pmu_cnt++];
		memset(p, 0, sizeof(*p));
		strcpy(p->name, de->d_name);
		/* stat, not lstat: sysfs lists PMUs as symlinks to devices. */
		p->is_dir = path_of(path, sizeof(path), dir, de->d_name) && stat(path, &st) == 0 &&
			    S_ISDIR(st.st_mode);
		if (p->is_dir && wanted(p->name, extra_pmu))
			err = read_pmu(root, p);
	}
	if (d)
		closedir(d);
	if (err) {
		tdr_sysfs__free(s);
		return err;
	}
	*out = s;
	return 0;
}

void tdr_sysfs__free(struct tdr_sysfs *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->pmu_cnt; i++) {
		struct tdr_sysfs_pmu *p = &s->pmus[i];

		file_clear(&p->type);
		file_clear(&p->cpus);
		file_clear(&p->caps_name);
		file_clear(&p->caps_slots);
		file_clear(&p->caps_branches);
		for (size_t j = 0; j < p->event_cnt; j++)
			file_clear(&p->events[j]);
		for (size_t j = 0; j < p->format_cnt; j++)
			file_clear(&p->formats[j]);
		free(p->events);
		free(p->formats);
	}
	free(s->pmus);
	file_clear(&s->online);
	free(s->root);
	free(s);
}

const struct tdr_sysfs_pmu *tdr_sysfs__pmu(const struct tdr_sysfs *s, const char *name)
{
	for (size_t i = 0; i < s->pmu_cnt; i++)
		if (!strcmp(s->pmus[i].name, name))
			return &s->pmus[i];
	return NULL;
}

const struct tdr_sysfs_file *tdr_sysfs_pmu__file(const struct tdr_sysfs_file *files, size_t cnt,
						 const char *name)
{
	for (size_t i = 0; i < cnt; i++)
		if (!strcmp(files[i].name, name))
			return &files[i];
	return NULL;
}

/* Up to sz - 1 bytes of path, NUL-terminated; -errno when unreadable. */
static int read_small(const char *path, char *buf, size_t sz)
{
	size_t len = 0;
	ssize_t n;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	while (len < sz - 1) {
		n = read(fd, buf + len, sz - 1 - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		len += (size_t)n;
	}
	close(fd);
	buf[len] = '\0';
	return 0;
}

int tdr_sysfs__read_machine(struct tdr_sysfs *s, const char *proc_root, const char *cpuid,
			    const char *from)
{
	/* The first CPU's block of /proc/cpuinfo is well under this. */
	static const size_t cpuinfo_max = 16384;
	char path[PATH_MAX], small[32], *text;

	s->nmi_watchdog = -1;
	memset(&s->cpu, 0, sizeof(s->cpu));
	s->cpu_from[0] = '\0';
	if (proc_root && path_of(path, sizeof(path), proc_root, "sys/kernel/nmi_watchdog") &&
	    !read_small(path, small, sizeof(small)) && (small[0] == '0' || small[0] == '1'))
		s->nmi_watchdog = small[0] - '0';
	if (cpuid) {
		if (tdr_cpuid_parse(cpuid, &s->cpu)) {
			tdr_warn("%s='%s' is not a CPU identity: give perf's CPUID form, e.g. "
				 "AuthenticAMD,25,17,1 or GenuineIntel,6,85,7",
				 from, cpuid);
			return -TDR_E_USAGE;
		}
		snprintf(s->cpu_from, sizeof(s->cpu_from), "%s", from);
		return 0;
	}
	text = tdr_malloc(cpuinfo_max);
	if (!text)
		return -ENOMEM;
	if (proc_root && path_of(path, sizeof(path), proc_root, "cpuinfo") &&
	    !read_small(path, text, cpuinfo_max) && !tdr_cpuid_from_cpuinfo(text, &s->cpu)) {
		/* For messages: the real file by its name, a fake one as such. */
		snprintf(s->cpu_from, sizeof(s->cpu_from), "%s",
			 strcmp(proc_root, "/proc") ? "the given cpuinfo" : "/proc/cpuinfo");
	} else if (path_of(path, sizeof(path), s->root,
			   "devices/system/cpu/cpu0/regs/identification/midr_el1") &&
		   !read_small(path, text, 64) && !tdr_cpuid_parse(text, &s->cpu)) {
		/* arm64: the kernel prints the MIDR as 0x%016llx. */
		snprintf(s->cpu_from, sizeof(s->cpu_from), "midr_el1");
	}
	free(text);
	return 0;
}
