/*
 * tests/fuzz/fuzz_regions.c - libFuzzer target for the REGIONS section
 * reader (format/regions_fmt.c), what tdrec report --regions and tdrec
 * record run on a file a program wrote.
 *
 * The input is a standalone regions file (its 8-byte magic, then section
 * data) or bare section data: the header, every entry, the metadata its
 * family gives, and every category over every entry's deltas are touched.
 * Built with -DTDR_FUZZ=ON and clang; the corpus in
 * tests/fuzz/corpus/regions is also replayed by every ctest run.
 */
#include <stdint.h>
#include <string.h>

#include "tdrec/format.h"
#include "tdrec/regions_fmt.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Where the touched values go, so the compiler cannot drop the reads. */
volatile uint64_t tdr_fuzz_sink;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct tdr_regions_iter it;
	struct tdr_regions_hdr h;
	struct tdr_regions_entry e;
	struct tdr_meta meta = {0};
	uint64_t sink = 0;

	if (size >= TDR_REGIONS_FILE_MAGIC_SZ &&
	    !memcmp(data, TDR_REGIONS_FILE_MAGIC, TDR_REGIONS_FILE_MAGIC_SZ)) {
		data += TDR_REGIONS_FILE_MAGIC_SZ;
		size -= TDR_REGIONS_FILE_MAGIC_SZ;
	}
	if (tdr_regions_iter__init(&it, data, size, &h))
		return 0;
	for (uint32_t i = 0; i < h.event_cnt; i++)
		sink += h.events[i].len + (uint8_t)h.events[i].s[h.events[i].len - 1];
	if (tdr_regions_fmt__meta(&h, &meta) < 0) {
		tdr_meta__clear(&meta);
		return 0;
	}
	while (tdr_regions_iter__next(&it, &e) > 0) {
		sink += e.count + e.tid + (uint8_t)e.name.s[e.name.len - 1];
		for (size_t c = 0; c < meta.category_cnt; c++) {
			double v = tdr_category__value(&meta.categories[c], e.deltas, meta.event_cnt);

			/* Only values an int64_t holds are converted (UB else). */
			sink += v > -9e15 && v < 9e15 ? (uint64_t)(int64_t)(v * 1000) : 1;
		}
	}
	tdr_meta__clear(&meta);
	tdr_fuzz_sink = sink;
	return 0;
}
