/*
 * format/archive_int.h - what the ARCHIVE section's encoder and decoder
 * share (docs/format.md section 7.2): the data header and its fields.
 * Varints are those of codec 1 (codec_cols_int.h).
 */
#ifndef TDR_ARCHIVE_INT_H
#define TDR_ARCHIVE_INT_H

#define TDR_ARCHIVE_HDR_SZ 8 /* u32 raw_sz, u8 method, 3 reserved */
#define TDR_ARCHIVE_OFF_RAW_SZ 0
#define TDR_ARCHIVE_OFF_METHOD 4
#define TDR_ARCHIVE_STORED 0
#define TDR_ARCHIVE_ZSTD 1

#endif /* TDR_ARCHIVE_INT_H */
