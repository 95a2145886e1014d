/*
 * format/records.c - walk the kernel record headers of a buffer.
 *
 * Responsibility: bounds-checked iteration over a run of perf records
 * (struct perf_event_header + body), as drained from a ring or loaded from a
 * frame. Only the header is looked at; bodies are parser/'s business.
 * Objects and lifecycle: struct tdr_record_iter is caller-owned plain data.
 * Invariants: a record is accepted only when 8 <= size, size is a multiple
 * of 8 and it ends within the buffer, so a caller can read h->size bytes at
 * h without checks.
 * See: docs/format.md section 6 (frame payload); perf_event_open(2),
 * "MMAP layout" (struct perf_event_header).
 */
#include "tdrec/format.h"

#include "tdrec/tdr_endian.h"
#include "tdrec/tdr_err.h"

int tdr_records__next(struct tdr_record_iter *it, const struct perf_event_header **hdr)
{
	uint16_t size;

	if (it->pos >= it->sz)
		return it->pos == it->sz ? 0 : -TDR_E_CORRUPT;
	if (it->sz - it->pos < sizeof(struct perf_event_header))
		return -TDR_E_CORRUPT;
	/* perf_event_header.size, read bytewise: the buffer need not be
	 * aligned. Records are host-endian (kernel ABI; little-endian hosts
	 * only). The kernel pads every record to a multiple of 8 bytes
	 * (perf_prepare_sample, perf_event_comm_event, ...), so a size that is
	 * not one is damage, and rejecting it keeps every returned header
	 * 8-byte aligned when the buffer is. */
	size = tdr_get_le16(it->data + it->pos + 6);
	if (size < sizeof(struct perf_event_header) || size % 8 || size > it->sz - it->pos)
		return -TDR_E_CORRUPT;
	*hdr = (const struct perf_event_header *)(it->data + it->pos);
	it->pos += size;
	return 1;
}
