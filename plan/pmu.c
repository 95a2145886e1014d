/*
 * plan/pmu.c - PMUs of a sysfs snapshot: types, event aliases, format
 * bit ranges, CPU lists.
 *
 * Responsibility: judge the files sysfs.c read once from
 * <root>/bus/event_source/devices/<pmu>/{type, events/, format/, cpus,
 * caps/pmu_name} and <root>/devices/system/cpu/online (it touches no file
 * itself), and turn event terms ("event=0x00,umask=0x4") into config words through the
 * PMU's format files ("config:0-7", "config:0-7,32-35", "config1:0-23",
 * "config:21"). No config value is hard-coded anywhere: the kernel prints
 * both the terms and their bit positions (docs/kernel.md "sysfs event and format files").
 * It does not choose plans (plan.c) or parse -e text (event_spec.c).
 * Objects and lifecycle: struct tdr_pmu is plain data filled by
 * tdr_pmu__open, pointing into the snapshot; errors of a file are logged
 * when the file is used, as when it was read on demand.
 * Invariants: a format's value bits are placed into the format's config bits
 * in ascending bit order, as the perf tool does (pmu_format_value), so
 * "config:0-7,32-35" puts value bits 0-7 at 0-7 and value bits 8-11 at 32-35.
 * See: plan_int.h; docs/kernel.md "sysfs event and format files".
 */
#define LOG_PREFIX "plan: "

#include "plan_int.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tdrec/tdr_err.h"
#include "tdrec/tdr_num.h"
#include "tdrec/tdr_log.h"
#include "tdrec/tdr_mem.h"

#define MAX_CPU 65535

/* A name that is safe as one path component. */
static bool valid_component(const char *name)
{
	return name[0] && strcmp(name, ".") && strcmp(name, "..") && !strchr(name, '/');
}

static int join(char *out, size_t sz, const char *a, const char *b, const char *c)
{
	int n = snprintf(out, sz, "%s/%s%s%s", a, b, c ? "/" : "", c ? c : "");

	return n < 0 || (size_t)n >= sz ? -ENAMETOOLONG : 0;
}

/* A decimal or 0x-hex number filling all of s: the number syntax of sysfs
 * event strings and of perf's event lexer (num_dec, num_hex): a leading 0
 * is not octal, and a sign or trailing junk is an error. */
static int parse_u64(const char *s, uint64_t *out)
{
	return tdr_num_parse_u64(s, strlen(s), 0, UINT64_MAX, out);
}

int tdr_pmu__open(const struct tdr_sysfs *sys, const char *name, struct tdr_pmu *out)
{
	char path[PATH_MAX], buf[64];
	struct tdr_pmu pmu = {0};
	const struct tdr_sysfs_pmu *sp;
	uint64_t type;
	int err;

	/* name may come from -e: keep it to one path component. */
	if (!valid_component(name) || strlen(name) >= sizeof(pmu.name))
		return -ENOENT;
	err = join(pmu.dir, sizeof(pmu.dir), sys->root, "bus/event_source/devices", name);
	if (err)
		return err;
	/* No directory: no such PMU, which callers treat as "not this
	 * machine". A directory without a readable numeric type is damage,
	 * reported as such, never guessed around. */
	sp = tdr_sysfs__pmu(sys, name);
	if (!sp || !sp->is_dir || !sp->loaded)
		return -ENOENT;
	strcpy(pmu.name, name);
	pmu.sp = sp;
	err = join(path, sizeof(path), pmu.dir, "type", NULL);
	if (err)
		return err;
	err = tdr_sysfs_file__text(&sp->type, buf, sizeof(buf));
	if (err < 0) {
		tdr_warn("failed to read PMU type %s: %s", path, tdr_strerror(err));
		return -TDR_E_CORRUPT;
	}
	if (parse_u64(buf, &type) || type > UINT32_MAX) {
		tdr_warn("failed to read PMU type %s: '%s' is not a number", path, buf);
		return -TDR_E_CORRUPT;
	}
	pmu.type = (uint32_t)type;
	*out = pmu;
	return 0;
}

static bool ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	return n >= m && !strcmp(s + n - m, suffix);
}

/* Files beside an event alias that describe it rather than being events. */
static bool is_event_attribute(const char *name)
{
	return ends_with(name, ".scale") || ends_with(name, ".unit") ||
	       ends_with(name, ".per-pkg") || ends_with(name, ".snapshot");
}

/* The snapshot's events/<event>, NULL when there is none. */
static const struct tdr_sysfs_file *event_file(const struct tdr_pmu *pmu, const char *event)
{
	char path[PATH_MAX];

	if (!valid_component(event) || is_event_attribute(event))
		return NULL;
	if (join(path, sizeof(path), pmu->dir, "events", event))
		return NULL;
	return tdr_sysfs_pmu__file(pmu->sp->events, pmu->sp->event_cnt, event);
}

bool tdr_pmu__has_event(const struct tdr_pmu *pmu, const char *event)
{
	const struct tdr_sysfs_file *f = event_file(pmu, event);

	return f && f->is_reg;
}

int tdr_pmu__event_terms(const struct tdr_pmu *pmu, const char *event, char *buf, size_t sz)
{
	char path[PATH_MAX];
	int err;

	if (!tdr_pmu__has_event(pmu, event))
		return -ENOENT;
	err = join(path, sizeof(path), pmu->dir, "events", event);
	if (err)
		return err;
	err = tdr_sysfs_file__text(event_file(pmu, event), buf, sz);
	if (err <= 0) {
		tdr_warn("failed to read event %s: %s", path,
			 err ? tdr_strerror(err) : "empty file");
		return -TDR_E_CORRUPT;
	}
	return 0;
}

/* One "N" or "N-M" (decimal, N <= M <= max) at *p, *p moved past it.
 * Returns false when it is not one. Used for format bits and CPU lists. */
static bool parse_range(const char **p, unsigned long max, unsigned long *lo, unsigned long *hi)
{
	char *end;

	if (**p < '0' || **p > '9')
		return false;
	*lo = strtoul(*p, &end, 10);
	*hi = *lo;
	*p = end;
	if (**p == '-') {
		(*p)++;
		if (**p < '0' || **p > '9')
			return false;
		*hi = strtoul(*p, &end, 10);
		*p = end;
	}
	return *lo <= *hi && *hi <= max;
}

/* A parsed format file: which attr word and which of its bits. */
struct format {
	int word;      /* 0 = config, 1 = config1, 2 = config2 */
	uint64_t mask; /* the bits, filled in ascending order */
};

/* Parse "config1:0-7,32-35" or "config:21". Returns 0 or -EINVAL. */
static int parse_format(const char *text, struct format *f)
{
	const char *p;

	if (!strncmp(text, "config1:", 8)) {
		f->word = 1;
		p = text + 8;
	} else if (!strncmp(text, "config2:", 8)) {
		f->word = 2;
		p = text + 8;
	} else if (!strncmp(text, "config:", 7)) {
		f->word = 0;
		p = text + 7;
	} else {
		return -EINVAL; /* config3 and unknown words: this build cannot set them */
	}
	/* A comma-separated list of bits or bit ranges; the kernel prints them
	 * ascending, but the mask makes the order irrelevant anyway. */
	f->mask = 0;
	for (;;) {
		unsigned long lo, hi;

		if (!parse_range(&p, 63, &lo, &hi))
			return -EINVAL;
		for (unsigned long b = lo; b <= hi; b++)
			f->mask |= 1ull << b;
		if (!*p)
			return 0;
		if (*p++ != ',')
			return -EINVAL;
	}
}

/* Read format/<term>. Returns 0, -ENOENT (no such term), -TDR_E_CORRUPT. */
static int read_format(const struct tdr_pmu *pmu, const char *term, struct format *f)
{
	char path[PATH_MAX], buf[256];
	int err;

	if (!valid_component(term))
		return -ENOENT;
	err = join(path, sizeof(path), pmu->dir, "format", term);
	if (err)
		return err;
	err = tdr_sysfs_file__text(
	    tdr_sysfs_pmu__file(pmu->sp->formats, pmu->sp->format_cnt, term), buf, sizeof(buf));
	if (err == -ENOENT)
		return -ENOENT;
	if (err < 0) {
		tdr_warn("failed to read format %s: %s", path, tdr_strerror(err));
		return -TDR_E_CORRUPT;
	}
	if (parse_format(buf, f)) {
		tdr_warn("failed to parse format %s: '%s' is not config[12]:BITS", path, buf);
		return -TDR_E_CORRUPT;
	}
	return 0;
}

static __u64 *attr_word(struct perf_event_attr *attr, int word)
{
	return word == 0 ? &attr->config : word == 1 ? &attr->config1 : &attr->config2;
}

/* Place value into f's bits of its word. Returns 0 or -EINVAL (too wide). */
static int place_value(const struct format *f, uint64_t value, struct perf_event_attr *attr)
{
	__u64 *w = attr_word(attr, f->word);
	uint64_t out = 0;
	unsigned vbit = 0;

	/* Value bit vbit goes to the vbit-th set bit of the mask. */
	for (unsigned b = 0; b < 64; b++) {
		if (!(f->mask & (1ull << b)))
			continue;
		if (value & (1ull << vbit))
			out |= 1ull << b;
		vbit++;
	}
	/* Bits left over do not fit the field: refuse rather than drop them. */
	if (vbit < 64 && value >> vbit)
		return -EINVAL;
	*w = (*w & ~f->mask) | out;
	return 0;
}

static int encode_terms(const struct tdr_pmu *pmu, const char *terms, struct perf_event_attr *attr,
			int depth);

/* Encode one "key" or "key=value" term. */
static int encode_term(const struct tdr_pmu *pmu, char *term, const char *all,
		       struct perf_event_attr *attr, int depth)
{
	char *eq = strchr(term, '='), alias[TDR_SYSFS_MAX];
	uint64_t value = 1;
	struct format f;
	int err;

	if (eq) {
		*eq = '\0';
		if (parse_u64(eq + 1, &value)) {
			tdr_warn("bad value '%s' for term '%s' of %s PMU (in '%s')", eq + 1, term,
				 pmu->name, all);
			return -EINVAL;
		}
	}
	if (!term[0]) {
		tdr_warn("empty term in '%s' for %s PMU", all, pmu->name);
		return -EINVAL;
	}
	/* Precedence, as in perf: a format file, then the raw config words,
	 * then an alias name; anything else is an unknown term. */
	err = read_format(pmu, term, &f);
	if (err == -ENOENT && eq &&
	    (!strcmp(term, "config") || !strcmp(term, "config1") || !strcmp(term, "config2"))) {
		/* perf's raw config terms: the whole word. */
		*attr_word(attr, term[6] ? term[6] - '0' : 0) = value;
		return 0;
	}
	if (err == -ENOENT && !eq && depth == 0 && tdr_pmu__has_event(pmu, term)) {
		/* "pmu/alias/": an event name used as a term. */
		err = tdr_pmu__event_terms(pmu, term, alias, sizeof(alias));
		return err ? err : encode_terms(pmu, alias, attr, depth + 1);
	}
	if (err == -ENOENT) {
		tdr_warn("%s PMU has no format term '%s' (%s/format/%s is missing; needed by '%s')",
			 pmu->name, term, pmu->dir, term, all);
		return -ENOENT;
	}
	if (err)
		return err;
	if (place_value(&f, value, attr)) {
		tdr_warn("value 0x%llx does not fit term '%s' of %s PMU (in '%s')",
			 (unsigned long long)value, term, pmu->name, all);
		return -EINVAL;
	}
	return 0;
}

static int encode_terms(const struct tdr_pmu *pmu, const char *terms, struct perf_event_attr *attr,
			int depth)
{
	char buf[TDR_SYSFS_MAX], *save = NULL, *tok;
	int err;

	if (strlen(terms) >= sizeof(buf) || !terms[0]) {
		tdr_warn("bad terms '%s' for %s PMU", terms, pmu->name);
		return -EINVAL;
	}
	strcpy(buf, terms);
	/* An empty term between commas is an error; strtok_r would hide it. */
	if (buf[0] == ',' || strstr(buf, ",,") || buf[strlen(buf) - 1] == ',') {
		tdr_warn("empty term in '%s' for %s PMU", terms, pmu->name);
		return -EINVAL;
	}
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		err = encode_term(pmu, tok, terms, attr, depth);
		if (err)
			return err;
	}
	return 0;
}

int tdr_pmu__encode(const struct tdr_pmu *pmu, const char *terms, struct perf_event_attr *attr)
{
	return encode_terms(pmu, terms, attr, 0);
}

void tdr_pmu__caps_name(const struct tdr_pmu *pmu, char *buf, size_t sz)
{
	char path[PATH_MAX];

	buf[0] = '\0';
	if (join(path, sizeof(path), pmu->dir, "caps", "pmu_name") ||
	    tdr_sysfs_file__text(&pmu->sp->caps_name, buf, sz) < 0)
		buf[0] = '\0';
}

/* A bitmap of all possible CPUs sorts and de-duplicates for free; 8 KiB of
 * stack is fine for a function called a few times per run. */
int tdr_cpulist__parse(const char *text, int **cpus, size_t *cnt)
{
	uint64_t bm[(MAX_CPU + 1) / 64] = {0};
	const char *p = text;
	size_t n = 0, i = 0;
	int *arr;

	while (*p == ' ' || *p == '\t')
		p++;
	while (*p && *p != '\n') {
		unsigned long lo, hi;

		if (!parse_range(&p, MAX_CPU, &lo, &hi))
			return -TDR_E_CORRUPT;
		for (unsigned long c = lo; c <= hi; c++)
			bm[c / 64] |= 1ull << (c % 64);
		if (*p == ',') {
			p++;
			if (*p < '0' || *p > '9')
				return -TDR_E_CORRUPT;
		}
	}
	if (*p == '\n' && p[1] != '\0')
		return -TDR_E_CORRUPT;
	for (size_t w = 0; w < TDR_ARRAY_SIZE(bm); w++)
		n += (size_t)__builtin_popcountll(bm[w]);
	*cnt = n;
	*cpus = NULL;
	if (!n)
		return 0;
	arr = tdr_calloc(n, sizeof(*arr));
	if (!arr)
		return -ENOMEM;
	for (int c = 0; c <= MAX_CPU; c++)
		if (bm[c / 64] & (1ull << (c % 64)))
			arr[i++] = c;
	*cpus = arr;
	return 0;
}

void tdr_cpulist__format(const int *cpus, size_t cnt, char *buf, size_t sz)
{
	size_t len = 0;

	if (!sz)
		return;
	buf[0] = '\0';
	for (size_t i = 0; i < cnt;) {
		size_t j = i;
		int n;

		while (j + 1 < cnt && cpus[j + 1] == cpus[j] + 1)
			j++;
		if (j == i)
			n = snprintf(buf + len, sz - len, "%s%d", i ? "," : "", cpus[i]);
		else
			n = snprintf(buf + len, sz - len, "%s%d-%d", i ? "," : "", cpus[i],
				     cpus[j]);
		if (n < 0 || (size_t)n >= sz - len)
			return; /* truncated; snprintf left it terminated */
		len += (size_t)n;
		i = j + 1;
	}
}

/* Parse the CPU list file f of the snapshot; path names it in messages. */
static int read_cpulist(const struct tdr_sysfs_file *f, const char *path, int **cpus, size_t *cnt)
{
	char buf[TDR_SYSFS_MAX];
	int err;

	/* A missing file is for the caller to judge (non-hybrid PMUs have no
	 * cpus file); any other failure means a damaged sysfs. */
	err = tdr_sysfs_file__text(f, buf, sizeof(buf));
	if (err == -ENOENT)
		return err;
	if (err < 0) {
		tdr_warn("failed to read CPU list %s: %s", path, tdr_strerror(err));
		return -TDR_E_CORRUPT;
	}
	err = tdr_cpulist__parse(buf, cpus, cnt);
	if (err == -TDR_E_CORRUPT)
		tdr_warn("failed to parse CPU list %s: '%s'", path, buf);
	return err;
}

int tdr_pmu__cpus(const struct tdr_pmu *pmu, int **cpus, size_t *cnt)
{
	char path[PATH_MAX];
	int err;

	err = join(path, sizeof(path), pmu->dir, "cpus", NULL);
	return err ? err : read_cpulist(&pmu->sp->cpus, path, cpus, cnt);
}

int tdr_sysfs__online_cpus(const struct tdr_sysfs *sys, int **cpus, size_t *cnt)
{
	char path[PATH_MAX];
	int err;

	err = join(path, sizeof(path), sys->root, "devices/system/cpu/online", NULL);
	if (err)
		return err;
	err = read_cpulist(&sys->online, path, cpus, cnt);
	if (err == -ENOENT)
		tdr_warn("failed to read online CPUs %s: %s", path, tdr_strerror(err));
	return err;
}
