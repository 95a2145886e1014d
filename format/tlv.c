/*
 * format/tlv.c - byte buffers, TLV items and fixed header encoders.
 *
 * Responsibility: the small building blocks shared by the writer and the
 * codecs: a growable output buffer with a sticky error, TLV item encoding
 * (u32 tag, u32 len, value) and a bounds-checked TLV cursor, and the block
 * and frame header encoders. Decoding of fixed headers lives in reader.c,
 * next to its validation.
 * Ownership: struct tdr_buf owns its data (tdr_buf__release frees it).
 * See: docs/format.md sections 3 (block header), 4 (TLV), 6 (frame header).
 */
#include "format_int.h"

#include <errno.h>
#include <string.h>

#include "tdrec/tdr_endian.h"
#include "tdrec/tdr_err.h"
#include "tdrec/tdr_mem.h"

uint8_t *tdr_buf__put(struct tdr_buf *b, size_t n)
{
	uint8_t *p;

	if (b->err)
		return NULL;
	if (n > SIZE_MAX - b->sz) {
		b->err = -EOVERFLOW;
		return NULL;
	}
	b->err = tdr_ensure_cap(&b->data, &b->cap, 1, b->sz + n);
	if (b->err)
		return NULL;
	p = b->data + b->sz;
	b->sz += n;
	return p;
}

void tdr_buf__release(struct tdr_buf *b)
{
	zfree(&b->data);
	b->sz = 0;
	b->cap = 0;
	b->err = 0;
}

void tdr_buf__tlv(struct tdr_buf *b, uint32_t tag, const void *val, size_t len)
{
	uint8_t *p;

	if (len > UINT32_MAX) {
		if (!b->err)
			b->err = -TDR_E_LIMIT;
		return;
	}
	p = tdr_buf__put(b, TDR_TLV_HDR_SZ + len);
	if (!p)
		return;
	tdr_put_le32(p, tag);
	tdr_put_le32(p + 4, (uint32_t)len);
	if (len)
		memcpy(p + TDR_TLV_HDR_SZ, val, len);
}

void tdr_buf__tlv_u32(struct tdr_buf *b, uint32_t tag, uint32_t v)
{
	uint8_t le[4];

	tdr_put_le32(le, v);
	tdr_buf__tlv(b, tag, le, sizeof(le));
}

void tdr_buf__tlv_u64(struct tdr_buf *b, uint32_t tag, uint64_t v)
{
	uint8_t le[8];

	tdr_put_le64(le, v);
	tdr_buf__tlv(b, tag, le, sizeof(le));
}

void tdr_buf__tlv_str(struct tdr_buf *b, uint32_t tag, const char *s)
{
	size_t len;

	if (!s)
		return; /* absent field: readers leave the pointer NULL */
	len = strlen(s);
	if (len > TDR_MAX_STR_SZ) {
		if (!b->err)
			b->err = -TDR_E_LIMIT;
		return;
	}
	tdr_buf__tlv(b, tag, s, len);
}

size_t tdr_buf__tlv_begin(struct tdr_buf *b, uint32_t tag)
{
	size_t pos = b->sz;
	uint8_t *p = tdr_buf__put(b, TDR_TLV_HDR_SZ);

	if (p) {
		tdr_put_le32(p, tag);
		tdr_put_le32(p + 4, 0); /* patched by tdr_buf__tlv_end */
	}
	return pos;
}

void tdr_buf__tlv_end(struct tdr_buf *b, size_t pos)
{
	size_t len;

	if (b->err)
		return;
	len = b->sz - pos - TDR_TLV_HDR_SZ;
	if (len > UINT32_MAX) {
		b->err = -TDR_E_LIMIT;
		return;
	}
	tdr_put_le32(b->data + pos + 4, (uint32_t)len);
}

int tdr_tlv__next(struct tdr_tlv_iter *it, uint32_t *tag, const uint8_t **val, size_t *len)
{
	uint32_t l;

	if (it->pos == it->sz)
		return 0;
	if (it->pos > it->sz || it->sz - it->pos < TDR_TLV_HDR_SZ)
		return -TDR_E_CORRUPT;
	*tag = tdr_get_le32(it->data + it->pos);
	l = tdr_get_le32(it->data + it->pos + 4);
	if (l > it->sz - it->pos - TDR_TLV_HDR_SZ)
		return -TDR_E_CORRUPT;
	*val = it->data + it->pos + TDR_TLV_HDR_SZ;
	*len = l;
	it->pos += TDR_TLV_HDR_SZ + (size_t)l;
	return 1;
}

void tdr_block__put_hdr(uint8_t hdr[TDR_BLOCK_HDR_SZ], uint16_t type, uint64_t payload_sz,
			uint32_t payload_crc)
{
	tdr_put_le32(hdr + TDR_BH_MAGIC, TDR_BLOCK_MAGIC);
	tdr_put_le16(hdr + TDR_BH_TYPE, type);
	tdr_put_le16(hdr + TDR_BH_FLAGS, 0);
	tdr_put_le64(hdr + TDR_BH_PAYLOAD_SZ, payload_sz);
	tdr_put_le32(hdr + TDR_BH_PAYLOAD_CRC, payload_crc);
	tdr_put_le32(hdr + TDR_BH_HDR_CRC, tdr_crc32c(0, hdr, TDR_BH_HDR_CRC));
}

void tdr_frame__put_hdr(uint8_t hdr[TDR_FRAME_HDR_SZ], const struct tdr_frame_info *fi)
{
	memset(hdr, 0, TDR_FRAME_HDR_SZ);
	hdr[TDR_FR_CODEC] = fi->codec;
	if (fi->codec == TDR_CODEC_CHAIN) { /* 24 bits, section 6.2 */
		hdr[TDR_FR_LINK] = (uint8_t)fi->link;
		hdr[TDR_FR_LINK + 1] = (uint8_t)(fi->link >> 8);
		hdr[TDR_FR_LINK + 2] = (uint8_t)(fi->link >> 16);
	}
	tdr_put_le32(hdr + TDR_FR_RING, fi->ring);
	tdr_put_le32(hdr + TDR_FR_RAW_SZ, fi->raw_sz);
	tdr_put_le32(hdr + TDR_FR_COMP_SZ, fi->comp_sz);
	tdr_put_le32(hdr + TDR_FR_RECORD_CNT, fi->record_cnt);
	tdr_put_le32(hdr + TDR_FR_CRC, tdr_crc32c(0, hdr, TDR_FR_CRC));
}
