/*
 * topdown/cpuid.c - parse a CPU's identity from perf's CPUID string or
 * from /proc/cpuinfo.
 *
 * Responsibility: text in, struct tdr_cpuid out; no file is read here.
 * Every number is checked (digits only, no overflow): a string that is not
 * one of the forms is refused whole, never half-parsed.
 * See: tdrec/cpuid.h; docs/plans.md "CPU identity".
 */
#include "tdrec/cpuid.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tdrec/tdr_num.h"

/* A whole number in base (10, or 16 with an optional 0x prefix; base 0
 * takes a 0x prefix as hex and anything else as decimal) from [s, end). */
static bool parse_num(const char *s, const char *end, int base, uint64_t max, uint64_t *out)
{
	return tdr_num_parse_u64(s, (size_t)(end - s), base, max, out) == 0;
}

/* Text without a trailing '$' or white space: its end. */
static const char *trim_end(const char *s)
{
	const char *end = s + strlen(s);

	while (end > s && (end[-1] == '$' || end[-1] == '\n' || end[-1] == ' ' || end[-1] == '\t'))
		end--;
	return end;
}

static void set_arm(struct tdr_cpuid *c, uint64_t midr)
{
	c->midr = midr;
	snprintf(c->vendor, sizeof(c->vendor), "%s",
		 tdr_cpuid_arm_implementer(c) == 0x41 ? "ARM" : "arm64");
	c->known = true;
}

int tdr_cpuid_parse(const char *text, struct tdr_cpuid *out)
{
	const char *end, *f[4];
	size_t n = 0, vlen;
	char sep;
	uint64_t v[3];

	memset(out, 0, sizeof(*out));
	if (!text)
		return -EINVAL;
	end = trim_end(text);
	/* arm64: the MIDR alone, in hex. */
	if (end - text > 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X')) {
		if (!parse_num(text, end, 16, UINT64_MAX, &v[0]))
			return -EINVAL;
		set_arm(out, v[0]);
		return 0;
	}
	sep = memchr(text, ',', (size_t)(end - text)) ? ',' : '-';
	f[n++] = text;
	for (const char *p = text; p < end; p++)
		if (*p == sep) {
			if (n == 4)
				return -EINVAL;
			f[n++] = p + 1;
		}
	if (n != 4)
		return -EINVAL;
	vlen = (size_t)(f[1] - 1 - f[0]);
	if (!vlen || vlen >= sizeof(out->vendor))
		return -EINVAL;
	/* The comma form is decimal (or 0x hex); the dash form, perf's event
	 * table key, prints model and stepping in hex. */
	if (!parse_num(f[1], f[2] - 1, sep == ',' ? 0 : 10, UINT32_MAX, &v[0]) ||
	    !parse_num(f[2], f[3] - 1, sep == ',' ? 0 : 16, UINT32_MAX, &v[1]) ||
	    !parse_num(f[3], end, sep == ',' ? 0 : 16, UINT32_MAX, &v[2]))
		return -EINVAL;
	memcpy(out->vendor, f[0], vlen);
	out->family = (uint32_t)v[0];
	out->model = (uint32_t)v[1];
	out->stepping = (uint32_t)v[2];
	out->known = true;
	return 0;
}

/* The value of the "key : value" line at line (up to eol), or NULL when
 * the line has another key. */
static const char *line_value(const char *line, const char *eol, const char *key,
			      const char **vend)
{
	size_t klen = strlen(key);
	const char *p = line + klen;

	if ((size_t)(eol - line) < klen || memcmp(line, key, klen))
		return NULL;
	while (p < eol && (*p == ' ' || *p == '\t'))
		p++;
	if (p == eol || *p != ':')
		return NULL;
	p++;
	while (p < eol && (*p == ' ' || *p == '\t'))
		p++;
	*vend = eol;
	while (*vend > p && ((*vend)[-1] == ' ' || (*vend)[-1] == '\t'))
		(*vend)--;
	return p;
}

int tdr_cpuid_from_cpuinfo(const char *text, struct tdr_cpuid *out)
{
	uint64_t impl = 0, variant = 0, part = 0, rev = 0, v;
	bool have_vendor = false, have_impl = false;
	const char *line = text;

	memset(out, 0, sizeof(*out));
	while (line && *line) {
		const char *eol = strchr(line, '\n'), *val, *vend;

		if (!eol)
			eol = line + strlen(line);
		if (eol == line) /* the blank line after the first CPU */
			break;
		if ((val = line_value(line, eol, "vendor_id", &vend))) {
			size_t n = (size_t)(vend - val);

			if (n && n < sizeof(out->vendor)) {
				memcpy(out->vendor, val, n);
				have_vendor = true;
			}
		} else if ((val = line_value(line, eol, "cpu family", &vend))) {
			if (parse_num(val, vend, 10, UINT32_MAX, &v))
				out->family = (uint32_t)v;
		} else if ((val = line_value(line, eol, "model", &vend))) {
			if (parse_num(val, vend, 10, UINT32_MAX, &v))
				out->model = (uint32_t)v;
		} else if ((val = line_value(line, eol, "stepping", &vend))) {
			if (parse_num(val, vend, 10, UINT32_MAX, &v))
				out->stepping = (uint32_t)v;
		} else if ((val = line_value(line, eol, "CPU implementer", &vend))) {
			have_impl = parse_num(val, vend, 0, 0xff, &impl);
		} else if ((val = line_value(line, eol, "CPU variant", &vend))) {
			if (!parse_num(val, vend, 0, 0xf, &variant))
				variant = 0;
		} else if ((val = line_value(line, eol, "CPU part", &vend))) {
			if (!parse_num(val, vend, 0, 0xfff, &part))
				part = 0;
		} else if ((val = line_value(line, eol, "CPU revision", &vend))) {
			if (!parse_num(val, vend, 0, 0xf, &rev))
				rev = 0;
		}
		line = *eol ? eol + 1 : NULL;
	}
	if (have_vendor) {
		out->known = true;
		return 0;
	}
	if (have_impl) {
		/* MIDR_EL1: implementer 31:24, variant 23:20, architecture
		 * 19:16 (0xf: by CPUID scheme), part 15:4, revision 3:0. */
		set_arm(out, impl << 24 | variant << 20 | 0xfull << 16 | part << 4 | rev);
		return 0;
	}
	memset(out, 0, sizeof(*out));
	return -ENOENT;
}

int tdr_cpuid_format(const struct tdr_cpuid *c, char *buf, size_t sz)
{
	if (!c->known)
		return snprintf(buf, sz, "%s", "");
	if (c->midr)
		return snprintf(buf, sz, "0x%016" PRIx64, c->midr);
	return snprintf(buf, sz, "%s,%" PRIu32 ",%" PRIu32 ",%" PRIu32, c->vendor, c->family,
			c->model, c->stepping);
}
