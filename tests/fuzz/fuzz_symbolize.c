/*
 * tests/fuzz/fuzz_symbolize.c - libFuzzer target for the ELF/DWARF symbolizer.
 *
 * The input is a mapped object file as a hostile recording could name it:
 * it is written to a file of a private temporary directory and symbolized
 * through the public API (tdr_symbolizer__lookup with lines and inline
 * chains) at 256 file offsets spread over it plus a few fixed ones (on
 * every other input told beforehand of half of them, and asked their
 * compile units and sizes first, as the archiving step does), so the
 * symbol table, the PLT stubs, the sections and segments, the DWARF
 * compile units, subprograms, inline trees and line tables of the fuzzer's
 * file are all walked. libelf and libdw are not instrumented (Debian's
 * build); what ASan and UBSan watch is tdrec's side: every header, count,
 * offset and string libdw hands back. Any bytes must give a status, never
 * a crash or a sanitizer report. Seeds: small real binaries
 * (tests/fuzz/corpus/symbolize).
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "fuzz_tmp.h"
#include "tdrec/symbolize.h"
#include "tdrec/tdr_log.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Format every message (hostile names reach the format arguments), print none. */
static void sink(enum tdr_log_level level, const char *fmt, va_list ap)
{
	char buf[512];

	(void)level;
	vsnprintf(buf, sizeof(buf), fmt, ap);
}

/* Read every string of a result, so a dangling pointer shows under ASan. */
static size_t touch(const struct tdr_sym *r)
{
	size_t n = r->function ? strlen(r->function) : 0;

	n += r->file ? strlen(r->file) : 0;
	for (size_t i = 0; i < r->inline_cnt; i++) {
		n += r->inlines[i].function ? strlen(r->inlines[i].function) : 0;
		n += r->inlines[i].call_file ? strlen(r->inlines[i].call_file) : 0;
	}
	return n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const uint64_t fixed[] = { 0, 1, 0x40, 0x1000, 0x1040, 0x10000, UINT64_MAX };
	struct tdr_symbolizer_opts o = { .want_lines = true, .want_inlines = true };
	struct tdr_symbolizer *s = NULL;
	struct tdr_dso_ref ref = { 0 };
	const char *dir = fuzz_tmp();
	char path[4200];
	volatile size_t sink_n = 0;

	if (!dir)
		return 0;
	tdr_log_set_sink(sink);
	if (fuzz_tmp_write(dir, "object", data, size, path, sizeof(path)))
		return 0;
	ref.path = path;
	if (tdr_symbolizer__new(&o, &s))
		return 0;
	/* On every other input, the symbolizer is first told of half the
	 * offsets (tdr_symbolizer__expect): the CU walk lists only the inlines
	 * of the functions holding them, the others' wait for their lookup. */
	if (size && data[size / 2] & 1) {
		uint64_t half[128], unit[128], bytes[128];

		for (size_t k = 0; k < 128; k++)
			half[k] = size * (2 * k) / 256;
		if (!tdr_symbolizer__units(s, &ref, half, 128, unit, bytes))
			for (size_t k = 0; k < 128; k++)
				sink_n += (size_t)(unit[k] ^ bytes[k]);
		(void)tdr_symbolizer__expect(s, &ref, half, 128);
	}
	for (size_t i = 0; i < sizeof(fixed) / sizeof(fixed[0]); i++) {
		struct tdr_sym r;

		if (!tdr_symbolizer__lookup(s, &ref, fixed[i], &r))
			sink_n += touch(&r);
	}
	for (size_t k = 0; k < 256 && size; k++) {
		struct tdr_sym r;

		if (!tdr_symbolizer__lookup(s, &ref, size * k / 256, &r))
			sink_n += touch(&r);
	}
	tdr_symbolizer__free(s);
	(void)sink_n;
	return 0;
}
