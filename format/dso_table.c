/*
 * format/dso_table.c - the DSO table section: encode, and iterate with
 * bounds checks.
 *
 * Responsibility: the byte layout of docs/format.md section 7.1 and its
 * rules for a damaged table. Encoding checks each entry against the caps,
 * so a writer cannot produce a table a reader would refuse. Decoding trusts
 * nothing: the entry count is checked against the data size before the
 * first entry is read, every entry_sz against what is left, and every field
 * before it is returned. An entry with bad fields inside a sound entry_sz is
 * skipped (the chain goes on); an entry_sz that cannot be right ends the
 * walk, since the entries after it cannot be found.
 * What it does not do: interpret statuses or match entries to mappings
 * (parser/), or read build-ids from files (recorder/).
 * Objects and lifecycle: tdr_dso_table__encode is stateless; struct
 * tdr_dso_iter lives on the caller's stack (__init -> __next repeat).
 * Ownership: decoded entries point into the caller's data.
 * See: docs/format.md section 7.1.
 */
#include "format_int.h"

#include <errno.h>
#include <string.h>

#include "tdrec/tdr_endian.h"
#include "tdrec/tdr_err.h"
#include "tdrec/tdr_mem.h"

#define TABLE_HDR_SZ 8
#define ENTRY_HDR_SZ 24
/* The smallest entry: its header and a path of one byte, padded. */
#define ENTRY_MIN_SZ 32

static size_t align8(size_t v)
{
	return (v + 7) & ~(size_t)7;
}

/* The bytes an entry needs (without what a later version may add). */
static size_t entry_need(size_t path_len, size_t build_id_sz)
{
	return align8(ENTRY_HDR_SZ + path_len + build_id_sz);
}

/* Whether the format can hold e (the writer's side of the reader's checks). */
static bool entry_ok(const struct tdr_dso_entry *e)
{
	if (!e->path_len || e->path_len > TDR_DSO_PATH_MAX || memchr(e->path, 0, e->path_len) ||
	    e->build_id_sz > TDR_DSO_BUILD_ID_MAX)
		return false;
	/* A build-id goes with TDR_DSO_BUILD_ID, and only with it. */
	return (e->status == TDR_DSO_BUILD_ID) == (e->build_id_sz > 0);
}

int tdr_dso_table__encode(const struct tdr_dso_entry *ents, size_t cnt, void **out, size_t *out_sz)
{
	size_t sz = TABLE_HDR_SZ, pos = TABLE_HDR_SZ;
	uint8_t *b;

	*out = NULL;
	*out_sz = 0;
	if (cnt > UINT32_MAX)
		return -EINVAL;
	for (size_t i = 0; i < cnt; i++) {
		if (!entry_ok(&ents[i]))
			return -EINVAL;
		sz += entry_need(ents[i].path_len, ents[i].build_id_sz);
	}
	/* Zeroed: reserved bytes and padding are written as zero. */
	b = tdr_calloc(1, sz);
	if (!b)
		return -ENOMEM;
	tdr_put_le32(b, (uint32_t)cnt);
	for (size_t i = 0; i < cnt; i++) {
		const struct tdr_dso_entry *e = &ents[i];
		size_t esz = entry_need(e->path_len, e->build_id_sz);
		uint8_t *p = b + pos;

		tdr_put_le32(p, (uint32_t)esz);
		tdr_put_le16(p + 4, (uint16_t)e->path_len);
		p[6] = e->build_id_sz;
		p[7] = e->status;
		tdr_put_le32(p + 8, e->maj);
		tdr_put_le32(p + 12, e->min);
		tdr_put_le64(p + 16, e->ino);
		memcpy(p + ENTRY_HDR_SZ, e->path, e->path_len);
		memcpy(p + ENTRY_HDR_SZ + e->path_len, e->build_id, e->build_id_sz);
		pos += esz;
	}
	*out = b;
	*out_sz = sz;
	return 0;
}

int tdr_dso_iter__init(struct tdr_dso_iter *it, const void *data, size_t sz)
{
	memset(it, 0, sizeof(*it));
	if (sz < TABLE_HDR_SZ)
		return -TDR_E_CORRUPT;
	it->data = data;
	it->sz = sz;
	it->pos = TABLE_HDR_SZ;
	it->cnt = tdr_get_le32(it->data);
	/* Every entry takes at least ENTRY_MIN_SZ bytes: a count the data
	 * cannot hold is not believed (and nothing is read on its word). */
	if (it->cnt > (sz - TABLE_HDR_SZ) / ENTRY_MIN_SZ) {
		it->cnt = 0;
		return -TDR_E_CORRUPT;
	}
	return 0;
}

int tdr_dso_iter__next(struct tdr_dso_iter *it, struct tdr_dso_entry *e)
{
	while (it->idx < it->cnt) {
		const uint8_t *p = it->data + it->pos;
		size_t left = it->sz - it->pos, esz, path_len, bid_sz;

		if (left < ENTRY_HDR_SZ)
			return -TDR_E_CORRUPT;
		esz = tdr_get_le32(p);
		path_len = tdr_get_le16(p + 4);
		bid_sz = p[6];
		/* entry_sz delimits the entry: it must cover the fields it
		 * announces (a later version may add bytes after them). */
		if (esz % 8 || esz > left || esz < entry_need(path_len, bid_sz))
			return -TDR_E_CORRUPT;
		it->pos += esz;
		it->idx++;
		memset(e, 0, sizeof(*e));
		e->path = (const char *)p + ENTRY_HDR_SZ;
		e->path_len = path_len;
		e->build_id_sz = (uint8_t)bid_sz;
		e->status = p[7];
		e->maj = tdr_get_le32(p + 8);
		e->min = tdr_get_le32(p + 12);
		e->ino = tdr_get_le64(p + 16);
		if (!entry_ok(e)) {
			/* Delimited, but not usable: left out, the walk goes on. */
			it->skipped++;
			continue;
		}
		memcpy(e->build_id, p + ENTRY_HDR_SZ + path_len, bid_sz);
		return 1;
	}
	return 0;
}
