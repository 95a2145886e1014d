/*
 * parser/perfdata.c - perf.data import: file header, attrs and features -> meta.
 *
 * Responsibility: map a perf.data file (the "PERFILE2" file form, little
 * endian), check its header, read the attrs section with each attr's sample
 * ids, and the feature sections tdrec uses (HOSTNAME, OSRELEASE, VERSION,
 * NRCPUS, CPUDESC, CPUID, CMDLINE, EVENT_DESC for names, GROUP_DESC for
 * groups, BUILD_ID for build-ids, PMU_MAPPINGS for PMU names), and build a
 * struct tdr_meta from them: events in attr order, group leader and
 * sampler flags from GROUP_DESC and the attrs' sample periods; names and
 * TopDown categories come from perfdata_td.c. The data
 * section is read by perfdata_read.c, the records that stand for the header
 * in a pipe-mode file by perfdata_pipe.c. The other byte order is refused
 * with a clear error.
 * Objects and lifecycle: tdr_parser_perfdata_open (from tdr_parser__open) -> run ->
 * perfdata_fini (the parser's source_fini).
 * Ownership: the file stays mapped read-only until the parser is freed.
 * Every offset and size read from the file is checked against the mapping.
 * See: docs/kernel.md "perf.data files"; docs/parser.md "perf.data import".
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
#include "tdrec/tdr_mapguard.h"
#include "tdrec/tdr_mem.h"
#include "tdrec/topdown.h"

#define LOG_PREFIX "parser: "
#include "tdrec/tdr_log.h"

struct sec {
	uint64_t off, sz;
};

static bool in_file(const struct perfdata *pd, uint64_t off, uint64_t sz)
{
	return off <= pd->sz && sz <= pd->sz - off;
}

/* A section the file must hold: 0; -TDR_E_TRUNCATED when it runs past the end
 * of the file (the file was cut); -TDR_E_CORRUPT when it cannot exist. */
static int sec_check(const struct perfdata *pd, uint64_t off, uint64_t sz)
{
	if (in_file(pd, off, sz))
		return 0;
	return off + sz < off ? -TDR_E_CORRUPT : -TDR_E_TRUNCATED;
}

static struct sec get_sec(const uint8_t *p)
{
	struct sec s = { tdr_get_le64(p), tdr_get_le64(p + 8) };

	return s;
}

/* perf_header_string: u32 len (NUL and 64-byte padding included) + bytes. */
int tdr_parser_perfdata_read_str(const uint8_t *base, size_t *pos, size_t end, char **out)
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
	if (!*out)
		return -ENOMEM;
	/* Host names, command lines and event names end up on a terminal: no
	 * control characters from a hostile file. */
	for (char *c = *out; *c; c++)
		if ((unsigned char)*c < 0x20 || *c == 0x7f)
			*c = '?';
	return 0;
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

/* Event i from an attr of abytes bytes on disk at raw, with its id_cnt ids
 * at ids (the attrs section of a file, or a pipe's HEADER_ATTR record). */
int tdr_parser_perfdata_attr(struct tdr_meta *m, size_t i, const uint8_t *raw, uint64_t abytes,
			     const uint8_t *ids, uint64_t id_cnt)
{
	struct tdr_event_desc *ev = &m->events[i];
	uint32_t own = tdr_get_le32(raw + 4); /* attr.size */
	size_t cp = abytes < sizeof(ev->attr) ? abytes : sizeof(ev->attr);
	uint64_t j;
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
	if (id_cnt > PD_MAX_IDS)
		return -TDR_E_CORRUPT;
	ev->id_cnt = id_cnt;
	ev->ids = tdr_calloc(ev->id_cnt ? ev->id_cnt : 1, sizeof(*ev->ids));
	if (!ev->ids)
		return -ENOMEM;
	for (j = 0; j < ev->id_cnt; j++) {
		ev->ids[j].id = tdr_get_le64(ids + 8 * j);
		ev->ids[j].cpu = UINT32_MAX; /* unknown: perf.data does not say */
		ev->ids[j].pid = UINT32_MAX;
	}
	return 0;
}

static int read_attrs(struct perfdata *pd, struct tdr_meta *m, uint64_t attr_size, struct sec attrs)
{
	uint64_t n, i, abytes;
	int err;

	if (attr_size < 16 + PERF_ATTR_SIZE_VER0 || attr_size > 4096)
		return -TDR_E_CORRUPT;
	err = sec_check(pd, attrs.off, attrs.sz);
	if (err)
		return err;
	n = attrs.sz / attr_size;
	if (!n || n > PD_MAX_ATTRS)
		return -TDR_E_CORRUPT; /* perf writes a few attrs, never thousands */
	abytes = attr_size - 16;
	m->events = tdr_calloc(n, sizeof(*m->events));
	if (!m->events)
		return -ENOMEM;
	m->event_cnt = n;
	for (i = 0; i < n; i++) {
		const uint8_t *raw = pd->map + attrs.off + i * attr_size;
		struct sec ids = get_sec(raw + abytes);

		if (ids.sz / 8 > PD_MAX_IDS)
			return -TDR_E_CORRUPT;
		err = sec_check(pd, ids.off, ids.sz);
		if (!err)
			err = tdr_parser_perfdata_attr(m, i, raw, abytes, pd->map + ids.off,
						       ids.sz / 8);
		if (err)
			return err;
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
		err = tdr_parser_perfdata_read_str(b, &pos, end, &name);
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

		err = tdr_parser_perfdata_read_str(b, &pos, end, &name);
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
		err = tdr_parser_perfdata_read_str(b, &pos, end, &m->argv[i]);
		if (err)
			return err;
		m->argc++;
	}
	return 0;
}

/*
 * The CPUID header through the one identity parser (tdrec/cpuid.h), which
 * plans and runtime/machine.c use too. x86 ("AuthenticAMD,25,17,1"):
 * vendor, family, model, stepping into meta; arm64 (the MIDR,
 * "0x00000000410fd4f0") and anything the parser does not know: the string
 * whole as the vendor, as runtime/machine.c stores an arm64 identity.
 */
static int parse_cpuid(struct perfdata *pd, struct tdr_meta *m, const char *s)
{
	pd->cpuid_seen = true;
	if (!tdr_cpuid_parse(s, &pd->cpuid) && !pd->cpuid.midr) {
		m->cpu_vendor = tdr_strdup(pd->cpuid.vendor);
		m->cpu_family = pd->cpuid.family;
		m->cpu_model = pd->cpuid.model;
		m->cpu_stepping = pd->cpuid.stepping;
	} else {
		m->cpu_vendor = tdr_strdup(s);
	}
	return m->cpu_vendor ? 0 : -ENOMEM;
}

int tdr_parser_perfdata_feature(struct perfdata *pd, struct tdr_meta *m, int bit, uint64_t off,
				uint64_t sz)
{
	struct sec s = {off, sz};
	const uint8_t *b = pd->map + s.off;
	size_t end = s.sz, pos = 0;
	char *str = NULL;
	int err = 0;

	switch (bit) {
	case PD_FEAT_HOSTNAME:
		return m->hostname ? 0 : tdr_parser_perfdata_read_str(b, &pos, end, &m->hostname);
	case PD_FEAT_OSRELEASE:
		return m->kernel_release ? 0 : tdr_parser_perfdata_read_str(b, &pos, end, &m->kernel_release);
	case PD_FEAT_CPUDESC:
		return m->cpu_model_name ? 0 : tdr_parser_perfdata_read_str(b, &pos, end, &m->cpu_model_name);
	case PD_FEAT_VERSION:
		return pd->perf_version ? 0 : tdr_parser_perfdata_read_str(b, &pos, end, &pd->perf_version);
	case PD_FEAT_NRCPUS:
		if (end < 8)
			return -TDR_E_CORRUPT;
		m->nr_cpus = tdr_get_le32(b + 4); /* { u32 nr_cpus_avail, nr_cpus_online } */
		return 0;
	case PD_FEAT_CPUID:
		err = tdr_parser_perfdata_read_str(b, &pos, end, &str);
		if (!err && !m->cpu_vendor)
			err = parse_cpuid(pd, m, str);
		free(str);
		return err;
	case PD_FEAT_CMDLINE:
		return m->argv ? 0 : feat_cmdline(m, b, end);
	case PD_FEAT_EVENT_DESC:
		return feat_event_desc(m, b, end);
	case PD_FEAT_GROUP_DESC:
		return feat_group_desc(m, b, end);
	case PD_FEAT_PMU_MAPPINGS:
		return tdr_parser_perfdata_pmu_mappings(pd, b, end);
	case PD_FEAT_BUILD_ID:
		pd->build_id_off = s.off;
		pd->build_id_sz = s.sz;
		return 0;
	default:
		return 0;
	}
}

/* The feature sections listed in the header bitmap. One that is damaged or
 * lies outside the file is skipped; one warning names them all. */
static int read_features(struct perfdata *pd, struct tdr_meta *m, const uint8_t *bitmap,
			 const char *name, bool *have_groups)
{
	uint64_t tab = pd->data_off + pd->data_sz, cut_at = pd->sz;
	int bit, k = 0, err, bad_cnt = 0, cut_cnt = 0;
	char bad[96] = "";

	for (bit = 0; bit < 256; bit++) {
		struct sec s;

		if (!(tdr_get_le64(bitmap + 8 * (bit / 64)) & (1ULL << (bit % 64))))
			continue;
		if (!in_file(pd, tab + 16u * (uint64_t)k, 16)) {
			cut_cnt++;
			if (tab < cut_at)
				cut_at = tab;
			continue;
		}
		s = get_sec(pd->map + tab + 16u * (uint64_t)k++);
		err = in_file(pd, s.off, s.sz) ? tdr_parser_perfdata_feature(pd, m, bit, s.off, s.sz) : -TDR_E_TRUNCATED;
		if (err == -ENOMEM)
			return err;
		if (!err && bit == PD_FEAT_GROUP_DESC)
			*have_groups = true;
		if (err == -TDR_E_TRUNCATED) {
			cut_cnt++;
			if (s.off < cut_at)
				cut_at = s.off;
		} else if (err && bad_cnt++ < 8)
			snprintf(bad + strlen(bad), sizeof(bad) - strlen(bad), "%s%d",
				 bad[0] ? "," : "", bit);
	}
	if (cut_cnt) {
		/* perf writes the features last: the file was cut after its data. */
		pd->status.truncated = true;
		pd->status.intact_sz = cut_at;
		tdr_warn("perf.data %s ends inside its feature sections: %d of them missing", name,
			 cut_cnt);
	}
	if (bad_cnt)
		tdr_warn("perf.data %s: %d damaged feature sections ignored (bits %s%s)", name,
			 bad_cnt, bad, bad_cnt > 8 ? ",..." : "");
	return 0;
}

/* ---------------------------------------------------------------------------
 * Meta.
 */

/*
 * Groups when the file has no GROUP_DESC (it was cut before its features):
 * perf puts a group's members right after their leader, all with
 * PERF_FORMAT_GROUP and the same sample_type, and opens only the leader
 * disabled (the members follow it). Without this, a group read would match
 * no group and every member but the sampler would be lost.
 */
static void infer_groups(struct tdr_meta *m)
{
	size_t i;

	for (i = 1; i < m->event_cnt; i++) {
		const struct perf_event_attr *a = &m->events[i].attr;
		uint32_t li = m->events[i - 1].group_idx;
		const struct perf_event_attr *l = &m->events[li].attr;

		if ((a->read_format & PERF_FORMAT_GROUP) && (l->read_format & PERF_FORMAT_GROUP) &&
		    l->disabled && !a->disabled && a->sample_type == l->sample_type &&
		    (a->sample_type & PERF_SAMPLE_READ))
			m->events[i].group_idx = li;
	}
}

static int finish_meta(struct perfdata *pd, struct tdr_meta *m, bool have_groups)
{
	const struct tdr_event_desc *sampler = NULL;
	char note[160];
	size_t i;
	int err;

	if (!have_groups)
		infer_groups(m);
	/* Names, PMUs and the TopDown categories of each core PMU. */
	err = tdr_parser_perfdata_topdown(pd, m);
	if (err)
		return err;
	for (i = 0; i < m->event_cnt; i++) {
		struct tdr_event_desc *ev = &m->events[i];

		if (ev->group_idx == i)
			ev->flags |= TDR_EVENT_LEADER;
		/* sample_period and sample_freq share a union in the attr; perf's
		 * side-band "dummy" event has a period but never samples. */
		if (ev->attr.sample_period && !(ev->attr.type == PERF_TYPE_SOFTWARE &&
						ev->attr.config == PERF_COUNT_SW_DUMMY)) {
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
	m->notes = tdr_calloc(2, sizeof(*m->notes));
	if (!m->plan_name || !m->notes)
		return -ENOMEM;
	snprintf(note, sizeof(note), "imported from a perf.data file written by perf %s",
		 pd->perf_version ? pd->perf_version : "(version unknown)");
	m->notes[0] = tdr_strdup(note);
	if (!m->notes[0])
		return -ENOMEM;
	m->note_cnt = 1;
	if (pd->width_from_table) {
		snprintf(note, sizeof(note),
			 "%s: W = %u slots a cycle, the TopDown table's (a perf.data does not "
			 "record the PMU's caps/slots)",
			 pd->width_from_table->name, pd->width_from_table->width);
		m->notes[1] = tdr_strdup(note);
		if (!m->notes[1])
			return -ENOMEM;
		m->note_cnt = 2;
	}
	return 0;
}

/* One perf_record_header_build_id record of sz bytes (8 <= sz, checked):
 * its build-id for its file name. 0, -ENOMEM; a damaged one is ignored. */
int tdr_parser_perfdata_build_id(struct tdr_parser *p, const uint8_t *rec, size_t sz)
{
	uint16_t misc = tdr_get_le16(rec + 2);
	const char *name = (const char *)rec + 36;
	uint8_t idsz = 20;

	if (sz < 37)
		return 0;
	if (misc & (1u << 15)) /* PERF_RECORD_MISC_BUILD_ID_SIZE */
		idsz = rec[12 + 20] <= 20 ? rec[12 + 20] : 20;
	if (!memchr(name, '\0', sz - 36u))
		return 0;
	return tdr_parser_maps_set_build_id(&p->maps, name, rec + 12, idsz);
}

/* BUILD_ID feature: perf_record_header_build_id records, sized by header.size. */
static int apply_build_ids(struct tdr_parser *p, struct perfdata *pd)
{
	const uint8_t *b = pd->map + pd->build_id_off;
	uint64_t pos = 0, end = pd->build_id_sz;
	int err;

	while (end - pos >= 8) {
		uint16_t sz = tdr_get_le16(b + pos + 6);

		if (sz < 37 || sz > end - pos)
			break; /* damaged: keep what was read */
		err = tdr_parser_perfdata_build_id(p, b + pos, sz);
		if (err)
			return err;
		pos += sz;
	}
	return 0;
}

static void perfdata_fini(struct tdr_parser *p)
{
	struct perfdata *pd = p->pd;

	if (!pd)
		return;
	tdr_parser_perfdata_read_fini(pd);
	tdr_mapguard__remove(pd->guard);
	if (pd->map)
		munmap((void *)pd->map, pd->sz);
	free(pd->name);
	zclose(pd->fd);
	free(pd->perf_version);
	tdr_parser_perfdata_pmus_free(pd);
	free(pd);
	p->pd = NULL;
}

static int parse_file(struct tdr_parser *p, const char *name);

int tdr_parser_perfdata_open(struct tdr_parser *p, int fd, const char *name)
{
	struct perfdata *pd = tdr_calloc(1, sizeof(*pd));
	const uint8_t *h;
	struct stat st;
	int err;

	if (!pd) {
		close(fd);
		return -ENOMEM;
	}
	pd->fd = fd;
	pd->guard = -1;
	p->pd = pd;
	p->source = TDR_SOURCE_PERF_DATA;
	p->source_fini = perfdata_fini;
	if (fstat(pd->fd, &st))
		return -errno;
	if ((uint64_t)st.st_size < PD_PIPE_HEADER_SZ) {
		tdr_warn("failed to read perf.data %s: file too short for a header", name);
		return -TDR_E_TRUNCATED;
	}
	pd->sz = (size_t)st.st_size;
	pd->name = tdr_strdup(name);
	if (!pd->name)
		return -ENOMEM;
	h = mmap(NULL, pd->sz, PROT_READ, MAP_PRIVATE, pd->fd, 0);
	if (h == MAP_FAILED)
		return -errno;
	pd->map = h;
	pd->guard = tdr_mapguard__add(h, pd->sz);
	err = parse_file(p, name);
	if (!err && tdr_parser_perfdata_shrank(pd))
		err = -TDR_E_TRUNCATED; /* its header and features may be zeros */
	return err;
}

bool tdr_parser_perfdata_shrank(struct perfdata *pd)
{
	uint64_t off;
	struct stat st;

	if (!tdr_mapguard__faulted(pd->guard, &off))
		return false;
	pd->status.truncated = true;
	pd->status.has_trailer = false;
	if (pd->status.intact_sz > off)
		pd->status.intact_sz = off;
	if (!pd->warned_shrank) {
		pd->warned_shrank = true;
		if (fstat(pd->fd, &st))
			st.st_size = -1;
		tdr_warn("perf.data %s shrank while it was read (%zu bytes, now %lld): what lay "
			 "past byte %llu is not in the report",
			 pd->name ? pd->name : "", pd->sz, (long long)st.st_size,
			 (unsigned long long)off);
	}
	return true;
}

/* Header, attrs, features, meta and parser setup over the mapped file. */
static int parse_file(struct tdr_parser *p, const char *name)
{
	struct perfdata *pd = p->pd;
	const uint8_t *h = pd->map;
	uint64_t hsz, magic;
	struct sec attrs, data;
	int err;

	bool have_groups = false;

	pd->status.file_sz = pd->sz;
	pd->status.intact_sz = pd->sz;
	if (pd->sz < PD_PIPE_HEADER_SZ)
		return -TDR_E_TRUNCATED;
	magic = tdr_get_le64(h);
	if (magic == __builtin_bswap64(PD_MAGIC)) {
		tdr_warn("failed to read perf.data %s: big-endian files are not supported", name);
		return -TDR_E_FORMAT;
	}
	if (magic != PD_MAGIC)
		return -TDR_E_FORMAT;
	hsz = tdr_get_le64(h + 8);
	if (hsz == PD_PIPE_HEADER_SZ) {
		/* perf record -o -: attrs and features are records too. */
		pd->pipe = true;
		err = tdr_parser_perfdata_pipe_scan(pd, &p->meta, name, &have_groups);
		if (!err)
			err = finish_meta(pd, &p->meta, have_groups);
		return err ? err : tdr_parser_setup(p);
	}
	if (hsz != PD_HEADER_SZ && hsz != PD_HEADER_OLD_SZ) {
		tdr_warn("failed to read perf.data %s: header size %llu, not a size perf writes",
			 name, (unsigned long long)hsz);
		return -TDR_E_FORMAT;
	}
	if (pd->sz < hsz) {
		tdr_warn("failed to read perf.data %s: the file ends inside its header", name);
		return -TDR_E_TRUNCATED;
	}
	attrs = get_sec(h + 24);
	data = get_sec(h + 40);
	if (data.off < hsz || !in_file(pd, data.off, 0)) {
		tdr_warn("failed to read perf.data %s: data section at %llu, outside the file",
			 name, (unsigned long long)data.off);
		return data.off < hsz ? -TDR_E_CORRUPT : -TDR_E_TRUNCATED;
	}
	pd->data_off = data.off;
	pd->data_sz = data.sz;
	/* A file cut short still has its records up to the end. perf record
	 * writes data.size only when it finishes: 0 means it was killed. A
	 * finished file with no records has its feature table right at
	 * data.offset instead, whose bytes 6-7 (high bits of a file offset) are
	 * 0, never a record's size. */
	if (!in_file(pd, data.off, data.sz) ||
	    (!data.sz && pd->sz - data.off >= 8 && tdr_get_le16(h + data.off + 6) >= 8)) {
		pd->data_sz = pd->sz - data.off;
		pd->data_to_eof = true;
		pd->status.truncated = true;
	}
	err = read_attrs(pd, &p->meta, tdr_get_le64(h + 16), attrs);
	if (err) {
		tdr_warn("failed to read perf.data %s: attrs section: %s", name, tdr_strerror(err));
		return err;
	}
	if (hsz == PD_HEADER_SZ && !pd->data_to_eof) {
		err = read_features(pd, &p->meta, h + 72, name, &have_groups);
		if (err)
			return err;
	}
	/* perf's counterpart of a trailer: data.size and the features, written
	 * when perf record finishes. */
	pd->status.has_trailer = !pd->status.truncated;
	err = finish_meta(pd, &p->meta, have_groups);
	if (!err)
		err = tdr_parser_setup(p);
	if (err)
		return err;
	/* Without per-id CPU information, running < enabled cannot be told from a
	 * migration, except for per-CPU (system-wide) events. */
	if (!(p->meta.flags & TDR_META_SYSTEM_WIDE))
		tdr_u64map__fini(&p->id_everywhere);
	return pd->build_id_sz ? apply_build_ids(p, pd) : 0;
}
