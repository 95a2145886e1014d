/*
 * common/include/tdrec/tdr_endian.h - little-endian get/put helpers.
 *
 * On-disk data is little-endian and read byte by byte through these helpers,
 * never by casting or memcpy of packed structs (docs/architecture.md "Conventions"). Unaligned
 * pointers are fine. Kernel records drained from a ring are host-endian; on
 * the little-endian hosts tdrec supports the two agree.
 */
#ifndef TDREC_TDR_ENDIAN_H
#define TDREC_TDR_ENDIAN_H

#include <stdint.h>
#include <string.h>

static inline uint16_t tdr_get_le16(const void *p)
{
	const uint8_t *b = p;

	return (uint16_t)(b[0] | (b[1] << 8));
}

static inline uint32_t tdr_get_le32(const void *p)
{
	const uint8_t *b = p;

	return (uint32_t)b[0] | ((uint32_t)b[1] << 8) | ((uint32_t)b[2] << 16) |
	       ((uint32_t)b[3] << 24);
}

static inline uint64_t tdr_get_le64(const void *p)
{
	return (uint64_t)tdr_get_le32(p) | ((uint64_t)tdr_get_le32((const uint8_t *)p + 4) << 32);
}

static inline void tdr_put_le16(void *p, uint16_t v)
{
	uint8_t *b = p;

	b[0] = (uint8_t)v;
	b[1] = (uint8_t)(v >> 8);
}

static inline void tdr_put_le32(void *p, uint32_t v)
{
	uint8_t *b = p;

	b[0] = (uint8_t)v;
	b[1] = (uint8_t)(v >> 8);
	b[2] = (uint8_t)(v >> 16);
	b[3] = (uint8_t)(v >> 24);
}

static inline void tdr_put_le64(void *p, uint64_t v)
{
	tdr_put_le32(p, (uint32_t)v);
	tdr_put_le32((uint8_t *)p + 4, (uint32_t)(v >> 32));
}

#endif /* TDREC_TDR_ENDIAN_H */
