/*
 * parser/perfdata.c - perf.data import: file header, attrs and features -> meta.
 *
 * Responsibility: map a perf.data file (the "PERFILE2" file form, little
 * endian), check its header, read the attrs section with each attr's sample
 * ids, and the feature sections tdrec uses (HOSTNAME, OSRELEASE, VERSION,
 * NRCPUS, CPUDESC, CPUID, CMDLINE, EVENT_DESC for names, GROUP_DESC for
 * groups, BUILD_ID for build-ids), and build a struct tdr_meta from them:
 * events in attr order, group leader and sampler flags from GROUP_DESC and
 * the attrs' sample periods, TopDown categories by event name. The data
 * section is read by perfdata_read.c. Pipe-mode files and the other byte
 * order are refused with a clear error.
 * Objects and lifecycle: perfdata_open (from tdr_parser__open) -> run ->
 * perfdata_fini (the parser's source_fini).
 * Ownership: the file stays mapped read-only until the parser is freed.
 * Every offset and size read from the file is checked against the mapping.
 * See: kernel-facts.md section 6; docs/parser.md "perf.data import".
 */
#include "parser_int.h"
#include "perfdata_int.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tdrec/tdr_endian.h"
#include "tdrec/tdr_err.h"
#include "tdrec/tdr_mem.h"

#define LOG_PREFIX "parser: "
#include "tdrec/tdr_log.h"

struct sec {
	uint64_t off, sz;
};

static bool in_file(const struct perfdata *pd, uint64_t off, uint64_t sz)
{
	return off <= pd->sz && sz <= pd->sz - off;
}

static struct sec get_sec(const uint8_t *p)
{
	struct sec s = { tdr_get_le64(p), tdr_get_le64(p + 8) };

	return s;
}

/* perf_header_string: u32 len (NUL and 64-byte padding included) + bytes. */
static int read_str(const uint8_t *base, size_t *pos, size_t end, char **out)
{
	uint32_t len;
	size_t n;

	if (end - *pos < 4)
		return -TDR_E_CORRUPT;
	len = tdr_get_le32(base + *pos);
	*pos += 4;
	if (len > end - *pos)
		return -TDR_E_CORRUPT;
	n = strnlen((const char *)base + *pos, len);
	*out = tdr_strndup((const char *)base + *pos, n);
	*pos += len;
	return *out ? 0 : -ENOMEM;
}

static const char *pmu_name_of(uint32_t type, char *buf, size_t sz)
{
	switch (type) {
	case PERF_TYPE_HARDWARE:
	case PERF_TYPE_HW_CACHE:
	case PERF_TYPE_RAW:
		return "cpu";
	case PERF_TYPE_SOFTWARE:
		return "software";
	case PERF_TYPE_TRACEPOINT:
		return "tracepoint";
	case PERF_TYPE_BREAKPOINT:
		return "breakpoint";
	default:
		snprintf(buf, sz, "pmu%u", type);
		return buf;
	}
}

/* ---------------------------------------------------------------------------
 * Attrs section.
 */
static int read_attrs(struct perfdata *pd, struct tdr_meta *m, uint64_t attr_size, struct sec attrs)
{
	uint64_t n, i, j, abytes;

	if (attr_size < 16 + PERF_ATTR_SIZE_VER0 || attr_size > 4096 || !in_file(pd, attrs.off, attrs.sz))
		return -TDR_E_CORRUPT;
	n = attrs.sz / attr_size;
	if (!n || n > PD_MAX_ATTRS)
		return n ? -TDR_E_LIMIT : -TDR_E_CORRUPT;
	abytes = attr_size - 16;
	m->events = tdr_calloc(n, sizeof(*m->events));
	if (!m->events)
		return -ENOMEM;
	m->event_cnt = n;
	for (i = 0; i < n; i++) {
		const uint8_t *raw = pd->map + attrs.off + i * attr_size;
		struct tdr_event_desc *ev = &m->events[i];
		uint32_t own = tdr_get_le32(raw + 4); /* attr.size */
		size_t cp = abytes < sizeof(ev->attr) ? abytes : sizeof(ev->attr);
		struct sec ids = get_sec(raw + abytes);
		char buf[32];

		if (own && own < cp)
			cp = own; /* zero-extend an older, smaller attr */
		memcpy(&ev->attr, raw, cp);
		ev->attr.size = sizeof(ev->attr);
		ev->attr_disk_sz = own ? own : (uint32_t)abytes;
		ev->pmu_type = ev->attr.type;
		ev->pmu_name = tdr_strdup(pmu_name_of(ev->attr.type, buf, sizeof(buf)));
		ev->group_idx = (uint32_t)i;
		if (!ev->pmu_name)
			return -ENOMEM;
		if (!in_file(pd, ids.off, ids.sz) || ids.sz / 8 > PD_MAX_IDS)
			return -TDR_E_CORRUPT;
		ev->id_cnt = ids.sz / 8;
		ev->ids = tdr_calloc(ev->id_cnt ? ev->id_cnt : 1, sizeof(*ev->ids));
		if (!ev->ids)
			return -ENOMEM;
		for (j = 0; j < ev->id_cnt; j++) {
			ev->ids[j].id = tdr_get_le64(pd->map + ids.off + 8 * j);
			ev->ids[j].cpu = UINT32_MAX; /* unknown: perf.data does not say */
			ev->ids[j].pid = UINT32_MAX;
		}
	}
	return 0;
}

/* ---------------------------------------------------------------------------
 * Features.
 */
static int feat_event_desc(struct tdr_meta *m, const uint8_t *b, size_t end)
{
	size_t pos = 8, i, j;
	uint32_t nr, asz;
	int err;

	if (end < 8)
		return -TDR_E_CORRUPT;
	nr = tdr_get_le32(b);
	asz = tdr_get_le32(b + 4);
	for (i = 0; i < nr; i++) {
		uint32_t nr_ids;
		uint64_t first_id = 0;
		char *name = NULL;

		if (end - pos < (size_t)asz + 4)
			return -TDR_E_CORRUPT;
		pos += asz;
		nr_ids = tdr_get_le32(b + pos);
		pos += 4;
		err = read_str(b, &pos, end, &name);
		if (err)
			return err;
		if ((uint64_t)nr_ids * 8 > end - pos) {
			free(name);
			return -TDR_E_CORRUPT;
		}
		if (nr_ids)
			first_id = tdr_get_le64(b + pos);
		pos += (size_t)nr_ids * 8;
		/* Match by id; fall back to the position when there are none. */
		for (j = 0; j < m->event_cnt; j++)
			if (nr_ids ? m->events[j].id_cnt && m->events[j].ids[0].id == first_id : j == i)
				break;
		if (j < m->event_cnt && !m->events[j].name) {
			m->events[j].name = name;
			name = NULL;
		}
		free(name);
	}
	return 0;
}

static int feat_group_desc(struct tdr_meta *m, const uint8_t *b, size_t end)
{
	size_t pos = 4, i, k;
	uint32_t nr;
	int err;

	if (end < 4)
		return -TDR_E_CORRUPT;
	nr = tdr_get_le32(b);
	for (i = 0; i < nr; i++) {
		char *name = NULL;
		uint32_t leader, members;

		err = read_str(b, &pos, end, &name);
		free(name);
		if (err)
			return err;
		if (end - pos < 8)
			return -TDR_E_CORRUPT;
		leader = tdr_get_le32(b + pos);
		members = tdr_get_le32(b + pos + 4);
		pos += 8;
		if (leader >= m->event_cnt || members > m->event_cnt - leader)
			return -TDR_E_CORRUPT;
		/* A group's members follow their leader in attr order. */
		for (k = leader; k < (size_t)leader + members; k++)
			m->events[k].group_idx = leader;
	}
	return 0;
}

static int feat_cmdline(struct tdr_meta *m, const uint8_t *b, size_t end)
{
	size_t pos = 4, i;
	uint32_t nr;
	int err;

	if (end < 4)
		return -TDR_E_CORRUPT;
	nr = tdr_get_le32(b);
	if (nr > end / 4)
		return -TDR_E_CORRUPT;
	m->argv = tdr_calloc(nr ? nr : 1, sizeof(*m->argv));
	if (!m->argv)
		return -ENOMEM;
	for (i = 0; i < nr; i++) {
		err = read_str(b, &pos, end, &m->argv[i]);
		if (err)
			return err;
		m->argc++;
	}
	return 0;
}

static void parse_cpuid(struct tdr_meta *m, const char *s)
{
	unsigned fam, model, step;
	const char *comma = strchr(s, ',');

	/* x86: "GenuineIntel,6,143,8"; other architectures: kept whole. */
	if (comma && sscanf(comma + 1, "%u,%u,%u", &fam, &model, &step) == 3) {
		m->cpu_vendor = tdr_strndup(s, (size_t)(comma - s));
		m->cpu_family = fam;
		m->cpu_model = model;
		m->cpu_stepping = step;
	} else {
		m->cpu_vendor = tdr_strdup(s);
	}
}

static int one_feature(struct perfdata *pd, struct tdr_meta *m, int bit, struct sec s)
{
	const uint8_t *b = pd->map + s.off;
	size_t end = s.sz, pos = 0;
	char *str = NULL;
	int err = 0;

	switch (bit) {
	case PD_FEAT_HOSTNAME:
		return m->hostname ? 0 : read_str(b, &pos, end, &m->hostname);
	case PD_FEAT_OSRELEASE:
		return m->kernel_release ? 0 : read_str(b, &pos, end, &m->kernel_release);
	case PD_FEAT_CPUDESC:
		return m->cpu_model_name ? 0 : read_str(b, &pos, end, &m->cpu_model_name);
	case PD_FEAT_VERSION:
		return pd->perf_version ? 0 : read_str(b, &pos, end, &pd->perf_version);
	case PD_FEAT_NRCPUS:
		if (end < 8)
			return -TDR_E_CORRUPT;
		m->nr_cpus = tdr_get_le32(b + 4); /* { u32 nr_cpus_avail, nr_cpus_online } */
		return 0;
	case PD_FEAT_CPUID:
		err = read_str(b, &pos, end, &str);
		if (!err && !m->cpu_vendor)
			parse_cpuid(m, str);
		free(str);
		return err;
	case PD_FEAT_CMDLINE:
		return m->argv ? 0 : feat_cmdline(m, b, end);
	case PD_FEAT_EVENT_DESC:
		return feat_event_desc(m, b, end);
	case PD_FEAT_GROUP_DESC:
		return feat_group_desc(m, b, end);
	case PD_FEAT_BUILD_ID:
		pd->build_id_off = s.off;
		pd->build_id_sz = s.sz;
		return 0;
	default:
		return 0;
	}
}

static int read_features(struct perfdata *pd, struct tdr_meta *m, const uint8_t *bitmap)
{
	uint64_t tab = pd->data_off + pd->data_sz;
	int bit, k = 0, err;

	for (bit = 0; bit < 256; bit++) {
		struct sec s;

		if (!(tdr_get_le64(bitmap + 8 * (bit / 64)) & (1ULL << (bit % 64))))
			continue;
		if (!in_file(pd, tab + 16u * (uint64_t)k, 16))
			return -TDR_E_TRUNCATED;
		s = get_sec(pd->map + tab + 16u * (uint64_t)k++);
		if (!in_file(pd, s.off, s.sz)) {
			tdr_warn("perf.data feature %d lies outside the file: ignored", bit);
			continue;
		}
		err = one_feature(pd, m, bit, s);
		if (err == -ENOMEM)
			return err;
		if (err)
			tdr_warn("perf.data feature %d is damaged: ignored", bit);
	}
	return 0;
}

/* ---------------------------------------------------------------------------
 * Meta.
 */
static int finish_meta(struct perfdata *pd, struct tdr_meta *m)
{
	const struct tdr_event_desc *sampler = NULL;
	char note[160];
	size_t i;

	for (i = 0; i < m->event_cnt; i++) {
		struct tdr_event_desc *ev = &m->events[i];

		if (!ev->name) {
			snprintf(note, sizeof(note), "event%zu", i);
			ev->name = tdr_strdup(note);
			if (!ev->name)
				return -ENOMEM;
		}
		if (ev->group_idx == i)
			ev->flags |= TDR_EVENT_LEADER;
		/* sample_period and sample_freq share a union in the attr */
		if (ev->attr.sample_period) {
			ev->flags |= TDR_EVENT_SAMPLER;
			if (!sampler)
				sampler = ev;
		}
	}
	if (sampler) {
		if (sampler->attr.freq)
			m->sample_freq = sampler->attr.sample_freq;
		else
			m->sample_period = sampler->attr.sample_period;
		if (sampler->attr.inherit)
			m->flags |= TDR_META_INHERIT;
		if (!sampler->attr.exclude_kernel)
			m->flags |= TDR_META_KERNEL;
		m->clockid = sampler->attr.use_clockid ? sampler->attr.clockid : -1;
	} else {
		m->clockid = -1;
	}
	for (i = 0; i < m->argc; i++)
		if (!strcmp(m->argv[i], "-a") || !strcmp(m->argv[i], "--all-cpus"))
			m->flags |= TDR_META_SYSTEM_WIDE;
	m->plan_name = tdr_strdup("perf.data");
	m->notes = tdr_calloc(1, sizeof(*m->notes));
	if (!m->plan_name || !m->notes)
		return -ENOMEM;
	snprintf(note, sizeof(note), "imported from a perf.data file written by perf %s",
		 pd->perf_version ? pd->perf_version : "(version unknown)");
	m->notes[0] = tdr_strdup(note);
	if (!m->notes[0])
		return -ENOMEM;
	m->note_cnt = 1;
	return tdr_meta__add_topdown_categories(m) < 0 ? -ENOMEM : 0;
}

/* BUILD_ID feature: perf_record_header_build_id records, sized by header.size. */
static int apply_build_ids(struct tdr_parser *p, struct perfdata *pd)
{
	const uint8_t *b = pd->map + pd->build_id_off;
	uint64_t pos = 0, end = pd->build_id_sz;
	int err;

	while (end - pos >= 8) {
		uint16_t misc = tdr_get_le16(b + pos + 2), sz = tdr_get_le16(b + pos + 6);
		const char *name = (const char *)b + pos + 36;
		uint8_t idsz = 20;

		if (sz < 37 || sz > end - pos)
			break; /* damaged: keep what was read */
		if (misc & (1u << 15)) /* PERF_RECORD_MISC_BUILD_ID_SIZE */
			idsz = b[pos + 12 + 20] <= 20 ? b[pos + 12 + 20] : 20;
		if (memchr(name, '\0', sz - 36u)) {
			err = maps_set_build_id(&p->maps, name, b + pos + 12, idsz);
			if (err)
				return err;
		}
		pos += sz;
	}
	return 0;
}

static void perfdata_fini(struct tdr_parser *p)
{
	struct perfdata *pd = p->pd;

	if (!pd)
		return;
	perfdata_read_fini(pd);
	if (pd->map)
		munmap((void *)pd->map, pd->sz);
	zclose(pd->fd);
	free(pd->perf_version);
	free(pd);
	p->pd = NULL;
}

static int parse_file(struct tdr_parser *p, const char *name);

int perfdata_open(struct tdr_parser *p, const char *path)
{
	struct perfdata *pd = tdr_calloc(1, sizeof(*pd));
	const uint8_t *h;
	struct stat st;

	if (!pd)
		return -ENOMEM;
	pd->fd = -1;
	p->pd = pd;
	p->source = TDR_SOURCE_PERF_DATA;
	p->source_fini = perfdata_fini;
	pd->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (pd->fd < 0)
		return -errno;
	if (fstat(pd->fd, &st))
		return -errno;
	if ((uint64_t)st.st_size < PD_HEADER_OLD_SZ) {
		tdr_warn("failed to read perf.data %s: file too short for a header", path);
		return -TDR_E_TRUNCATED;
	}
	pd->sz = (size_t)st.st_size;
	h = mmap(NULL, pd->sz, PROT_READ, MAP_PRIVATE, pd->fd, 0);
	if (h == MAP_FAILED)
		return -errno;
	pd->map = h;
	return parse_file(p, path);
}

/* Header, attrs, features, meta and parser setup over the mapped file. */
static int parse_file(struct tdr_parser *p, const char *name)
{
	struct perfdata *pd = p->pd;
	const uint8_t *h = pd->map;
	uint64_t hsz, magic;
	struct sec attrs, data;
	int err;

	if (pd->sz < PD_HEADER_OLD_SZ)
		return -TDR_E_TRUNCATED;
	magic = tdr_get_le64(h);
	if (magic == __builtin_bswap64(PD_MAGIC)) {
		tdr_warn("failed to read perf.data %s: big-endian files are not supported", name);
		return -TDR_E_FORMAT;
	}
	if (magic != PD_MAGIC)
		return -TDR_E_FORMAT;
	hsz = tdr_get_le64(h + 8);
	if (hsz != PD_HEADER_SZ && hsz != PD_HEADER_OLD_SZ) {
		tdr_warn("failed to read perf.data %s: header size %llu (pipe-mode files are not "
			 "supported)", name, (unsigned long long)hsz);
		return -TDR_E_FORMAT;
	}
	attrs = get_sec(h + 24);
	data = get_sec(h + 40);
	if (!in_file(pd, data.off, 0)) {
		tdr_warn("failed to read perf.data %s: data section outside the file", name);
		return -TDR_E_CORRUPT;
	}
	pd->data_off = data.off;
	/* A file cut short (perf killed) still has its records up to the end. */
	pd->data_sz = in_file(pd, data.off, data.sz) ? data.sz : pd->sz - data.off;
	err = read_attrs(pd, &p->meta, tdr_get_le64(h + 16), attrs);
	if (err) {
		tdr_warn("failed to read perf.data %s: bad attrs section: %s", name,
			 tdr_strerror(err));
		return err;
	}
	if (hsz == PD_HEADER_SZ && data.sz == pd->data_sz) {
		err = read_features(pd, &p->meta, h + 72);
		if (err)
			return err;
	}
	err = finish_meta(pd, &p->meta);
	if (!err)
		err = parser_setup(p);
	if (err)
		return err;
	/* Without per-id CPU information, running < enabled cannot be told from a
	 * migration, except for per-CPU (system-wide) events. */
	if (!(p->meta.flags & TDR_META_SYSTEM_WIDE))
		u64map_fini(&p->id_everywhere);
	return pd->build_id_sz ? apply_build_ids(p, pd) : 0;
}
