/*
 * format/regions_fmt.c - the REGIONS section: encode, and iterate with
 * bounds checks.
 *
 * Responsibility: docs/format.md section 7.3 and its rules for damaged
 * data, as dso_table.c does for section 7.1: the header and every name
 * are checked before use, region_cnt against the size before the first
 * entry, every entry_sz against what is left. An entry with a bad name
 * inside a sound entry_sz is skipped; an entry_sz that cannot be right
 * ends the walk. It includes no private header of format/, because
 * libtdrec compiles it into itself (libtdrec/CMakeLists.txt).
 * Objects and lifecycle: see tdrec/regions_fmt.h.
 * See: docs/format.md section 7.3.
 */
#include "tdrec/regions_fmt.h"

#include <errno.h>
#include <stdbool.h>
#include <string.h>

#include "tdrec/tdr_endian.h"
#include "tdrec/tdr_err.h"
#include "tdrec/tdr_mem.h"
#include "tdrec/topdown.h"

#define HDR_FIXED_SZ 40
#define ENTRY_HDR_SZ 24

static size_t align8(size_t v)
{
	return (v + 7) & ~(size_t)7;
}

static bool str_ok(const struct tdr_regions_str *s)
{
	return s->s && s->len && s->len <= TDR_REGIONS_NAME_MAX && !memchr(s->s, 0, s->len);
}

static size_t hdr_size(const struct tdr_regions_hdr *h)
{
	size_t sz = HDR_FIXED_SZ + 2 + h->family.len;

	for (uint32_t i = 0; i < h->event_cnt; i++)
		sz += 2 + h->events[i].len;
	return align8(sz);
}

static size_t entry_size(uint32_t event_cnt, size_t name_len)
{
	return align8(ENTRY_HDR_SZ + 8 * (size_t)event_cnt + name_len);
}

static uint8_t *put_str(uint8_t *p, const struct tdr_regions_str *s)
{
	tdr_put_le16(p, (uint16_t)s->len);
	memcpy(p + 2, s->s, s->len);
	return p + 2 + s->len;
}

int tdr_regions_fmt__encode(const struct tdr_regions_hdr *hdr,
			    const struct tdr_regions_entry *ents, size_t cnt, void **out,
			    size_t *out_sz)
{
	size_t sz, pos;
	uint8_t *b, *p;

	*out = NULL;
	*out_sz = 0;
	if (!hdr->event_cnt || hdr->event_cnt > TDR_REGIONS_EVENTS_MAX || cnt > UINT32_MAX ||
	    !str_ok(&hdr->family))
		return -EINVAL;
	for (uint32_t i = 0; i < hdr->event_cnt; i++)
		if (!str_ok(&hdr->events[i]))
			return -EINVAL;
	sz = hdr_size(hdr);
	for (size_t i = 0; i < cnt; i++) {
		if (!str_ok(&ents[i].name))
			return -EINVAL;
		sz += entry_size(hdr->event_cnt, ents[i].name.len);
	}
	b = tdr_calloc(1, sz);
	if (!b)
		return -ENOMEM;
	tdr_put_le32(b, TDR_REGIONS_VERSION);
	tdr_put_le32(b + 4, hdr->method);
	tdr_put_le32(b + 8, hdr->event_cnt);
	tdr_put_le32(b + 12, (uint32_t)cnt);
	tdr_put_le32(b + 16, hdr->width);
	tdr_put_le32(b + 20, hdr->pid);
	tdr_put_le64(b + 24, hdr->resets);
	tdr_put_le64(b + 32, hdr->errors);
	p = put_str(b + HDR_FIXED_SZ, &hdr->family);
	for (uint32_t i = 0; i < hdr->event_cnt; i++)
		p = put_str(p, &hdr->events[i]);
	pos = hdr_size(hdr);
	for (size_t i = 0; i < cnt; i++) {
		const struct tdr_regions_entry *e = &ents[i];
		size_t esz = entry_size(hdr->event_cnt, e->name.len);

		p = b + pos;
		tdr_put_le32(p, (uint32_t)esz);
		tdr_put_le32(p + 4, e->tid);
		tdr_put_le64(p + 8, e->count);
		tdr_put_le16(p + 16, (uint16_t)e->name.len);
		for (uint32_t k = 0; k < hdr->event_cnt; k++)
			tdr_put_le64(p + ENTRY_HDR_SZ + 8 * k, e->deltas[k]);
		memcpy(p + ENTRY_HDR_SZ + 8 * hdr->event_cnt, e->name.s, e->name.len);
		pos += esz;
	}
	*out = b;
	*out_sz = sz;
	return 0;
}

/* A string at *pos (u16 length, bytes) inside sz bytes. */
static bool get_str(const uint8_t *d, size_t sz, size_t *pos, struct tdr_regions_str *s)
{
	if (sz - *pos < 2)
		return false;
	s->len = tdr_get_le16(d + *pos);
	if (sz - *pos - 2 < s->len)
		return false;
	s->s = (const char *)d + *pos + 2;
	*pos += 2 + s->len;
	return str_ok(s);
}

int tdr_regions_iter__init(struct tdr_regions_iter *it, const void *data, size_t sz,
			   struct tdr_regions_hdr *hdr)
{
	const uint8_t *d = data;
	size_t pos = HDR_FIXED_SZ;

	memset(it, 0, sizeof(*it));
	memset(hdr, 0, sizeof(*hdr));
	if (sz < HDR_FIXED_SZ)
		return -TDR_E_CORRUPT;
	if (tdr_get_le32(d) != TDR_REGIONS_VERSION)
		return -TDR_E_VERSION;
	hdr->method = tdr_get_le32(d + 4);
	hdr->event_cnt = tdr_get_le32(d + 8);
	hdr->region_cnt = tdr_get_le32(d + 12);
	hdr->width = tdr_get_le32(d + 16);
	hdr->pid = tdr_get_le32(d + 20);
	hdr->resets = tdr_get_le64(d + 24);
	hdr->errors = tdr_get_le64(d + 32);
	if (!hdr->event_cnt || hdr->event_cnt > TDR_REGIONS_EVENTS_MAX ||
	    !get_str(d, sz, &pos, &hdr->family))
		return -TDR_E_CORRUPT;
	for (uint32_t i = 0; i < hdr->event_cnt; i++)
		if (!get_str(d, sz, &pos, &hdr->events[i]))
			return -TDR_E_CORRUPT;
	pos = align8(pos);
	/* Every entry takes at least its header, its deltas and one name byte. */
	if (pos > sz || hdr->region_cnt > (sz - pos) / entry_size(hdr->event_cnt, 1))
		return -TDR_E_CORRUPT;
	it->data = d;
	it->sz = sz;
	it->pos = pos;
	it->event_cnt = hdr->event_cnt;
	it->cnt = hdr->region_cnt;
	return 0;
}

int tdr_regions_iter__next(struct tdr_regions_iter *it, struct tdr_regions_entry *e)
{
	for (; it->idx < it->cnt; it->idx++) {
		const uint8_t *p = it->data + it->pos;
		size_t left = it->sz - it->pos, esz, name_len;

		if (left < ENTRY_HDR_SZ)
			return -TDR_E_CORRUPT;
		esz = tdr_get_le32(p);
		name_len = tdr_get_le16(p + 16);
		if (esz % 8 || esz > left || esz < entry_size(it->event_cnt, name_len))
			return -TDR_E_CORRUPT;
		it->pos += esz;
		memset(e, 0, sizeof(*e));
		e->tid = tdr_get_le32(p + 4);
		e->count = tdr_get_le64(p + 8);
		e->name.s = (const char *)p + ENTRY_HDR_SZ + 8 * it->event_cnt;
		e->name.len = name_len;
		if (!str_ok(&e->name)) {
			it->skipped++;
			continue;
		}
		for (uint32_t k = 0; k < it->event_cnt; k++)
			e->deltas[k] = tdr_get_le64(p + ENTRY_HDR_SZ + 8 * k);
		it->idx++;
		return 1;
	}
	return 0;
}

int tdr_regions_fmt__meta(const struct tdr_regions_hdr *hdr, struct tdr_meta *meta)
{
	char fam[TDR_REGIONS_NAME_MAX + 1];
	const struct tdr_td_family *f;

	if (hdr->event_cnt > TDR_REGIONS_EVENTS_MAX)
		return -EINVAL;
	memcpy(fam, hdr->family.s, hdr->family.len);
	fam[hdr->family.len] = 0;
	meta->plan_name = tdr_strdup(fam);
	meta->events = tdr_calloc(hdr->event_cnt, sizeof(*meta->events));
	if (!meta->plan_name || !meta->events)
		return -ENOMEM;
	meta->event_cnt = hdr->event_cnt;
	for (uint32_t i = 0; i < hdr->event_cnt; i++) {
		struct tdr_event_desc *e = &meta->events[i];

		e->name = tdr_strndup(hdr->events[i].s, hdr->events[i].len);
		e->pmu_name = tdr_strdup("regions");
		if (!e->name || !e->pmu_name)
			return -ENOMEM;
		e->flags = i ? 0 : TDR_EVENT_LEADER;
	}
	f = tdr_topdown_family(fam);
	return f ? tdr_meta__add_family_categories(meta, f, hdr->width) : 0;
}
