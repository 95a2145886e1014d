/*
 * tests/format/fixup_crcs.h - recompute every checksum of a .tdr image.
 *
 * For tests and the fuzz target: after bytes of a file were changed on
 * purpose (a hostile size, a flipped field), make every checksum valid
 * again, so that the reader's checks *behind* the checksums are exercised.
 * Walks the structure of docs/format.md as far as it is intact; anything it
 * cannot walk is left as it is. Header-only (static) so the fuzz target can
 * include it without another source file.
 */
#ifndef TDREC_TESTS_FIXUP_CRCS_H
#define TDREC_TESTS_FIXUP_CRCS_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "format_int.h"
#include "tdrec/tdr_endian.h"

static inline void tdr_test_fixup_crcs(uint8_t *p, size_t sz)
{
	uint64_t off = TDR_FILE_HDR_SZ;

	if (sz < TDR_FILE_HDR_SZ || memcmp(p, TDR_FILE_MAGIC, 8))
		return;
	tdr_put_le32(p + TDR_FH_CRC, tdr_crc32c(0, p, TDR_FH_CRC));
	if (tdr_get_le32(p + TDR_FH_HDR_SZ) % 8 == 0 &&
	    tdr_get_le32(p + TDR_FH_HDR_SZ) >= TDR_FILE_HDR_SZ)
		off = tdr_get_le32(p + TDR_FH_HDR_SZ);
	while (off <= sz && sz - off >= TDR_BLOCK_HDR_SZ) {
		uint8_t *b = p + off;
		uint64_t psz = tdr_get_le64(b + TDR_BH_PAYLOAD_SZ);
		uint8_t *pl = b + TDR_BLOCK_HDR_SZ;

		if (tdr_get_le32(b) != TDR_BLOCK_MAGIC)
			break;
		if (psz <= sz - off - TDR_BLOCK_HDR_SZ) {
			if (tdr_get_le16(b + TDR_BH_TYPE) == TDR_BLOCK_FRAME &&
			    psz >= TDR_FRAME_HDR_SZ)
				tdr_put_le32(pl + TDR_FR_CRC, tdr_crc32c(0, pl, TDR_FR_CRC));
			tdr_put_le32(b + TDR_BH_PAYLOAD_CRC, tdr_crc32c(0, pl, (size_t)psz));
		}
		tdr_put_le32(b + TDR_BH_HDR_CRC, tdr_crc32c(0, b, TDR_BH_HDR_CRC));
		if (psz > sz - off - TDR_BLOCK_HDR_SZ)
			break;
		off = tdr_align8(off + TDR_BLOCK_HDR_SZ + psz);
	}
	if (sz >= TDR_FILE_HDR_SZ + TDR_FOOTER_SZ &&
	    !memcmp(p + sz - TDR_FOOTER_SZ + TDR_FT_MAGIC, TDR_FOOTER_MAGIC, 8)) {
		uint8_t *f = p + sz - TDR_FOOTER_SZ;

		tdr_put_le32(f + TDR_FT_CRC, tdr_crc32c(0, f, TDR_FT_CRC));
	}
}

#endif /* TDREC_TESTS_FIXUP_CRCS_H */
