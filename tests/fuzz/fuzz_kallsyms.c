/*
 * tests/fuzz/fuzz_kallsyms.c - libFuzzer target for the kernel symbol table:
 * kallsyms text and the per-boot cache file.
 *
 * The first byte picks what the rest is. Even: the text of a kallsyms file
 * ("%px %c %s\t[%s]" lines, kernel/kallsyms.c s_show), parsed with no
 * cache. Odd: the cache file <cache>/kallsyms.bin (docs/symbolize.md
 * "Kernel symbol cache"), loaded for boot "fuzz-boot" and a kallsyms path
 * that does not exist, so a file the checks reject leaves no table. Either
 * way the table is then searched: fixed addresses, and around each of the
 * first symbols. Any bytes must give a table or none, never a crash or a
 * sanitizer report. Seeds: tests/fuzz/corpus/kallsyms (lines from a real
 * /proc/kallsyms, and a cache file tdrec wrote from them).
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "fuzz_tmp.h"
#include "symbolize_int.h"
#include "tdrec/tdr_log.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The kallsyms path of the cached case: the key hashes this name. */
#define CACHED_KALLSYMS "/nonexistent/tdrec-fuzz/kallsyms"

static void sink(enum tdr_log_level level, const char *fmt, va_list ap)
{
	char buf[512];

	(void)level;
	vsnprintf(buf, sizeof(buf), fmt, ap);
}

static size_t lookup(struct tdr_symbolizer *s, uint64_t ip)
{
	struct tdr_sym r;

	if (tdr_symbolizer__lookup_kernel(s, ip, &r) || !r.function)
		return 0;
	return strlen(r.function);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const uint64_t fixed[] = { 0, 1, 0xffffffff81000000ull, 0xffffffffc0000000ull,
					  UINT64_MAX };
	struct tdr_kallsyms_opts ko = { 0 };
	struct tdr_symbolizer_opts so = { .kallsyms_usable = true };
	struct tdr_kallsyms *k = NULL;
	struct tdr_symbolizer *s = NULL;
	const struct sym_ktab *t = NULL;
	const char *dir = fuzz_tmp(), *kpath = NULL;
	char path[4200], cache[4200], modules[4200];
	volatile size_t n = 0;

	if (!dir || !size)
		return 0;
	tdr_log_set_sink(sink);
	snprintf(modules, sizeof(modules), "%s/no-modules", dir);
	if (data[0] & 1) {
		snprintf(cache, sizeof(cache), "%s/cache", dir);
		mkdir(cache, 0700);
		if (fuzz_tmp_write(cache, SYM_KCACHE_NAME, data + 1, size - 1, path, sizeof(path)))
			return 0;
		ko = (struct tdr_kallsyms_opts){ .path = CACHED_KALLSYMS, .cache_dir = cache,
						 .boot_id = "fuzz-boot", .modules_path = modules };
	} else {
		if (fuzz_tmp_write(dir, "kallsyms", data + 1, size - 1, path, sizeof(path)))
			return 0;
		ko.path = path;
	}
	if (tdr_kallsyms__new(&ko, &k))
		return 0;
	so.kallsyms = k;
	if (!tdr_symbolizer__new(&so, &s)) {
		for (size_t i = 0; i < sizeof(fixed) / sizeof(fixed[0]); i++)
			n += lookup(s, fixed[i]);
		if (!tdr_symbolize_kallsyms__table(k, &t, &kpath) && t) {
			for (size_t i = 0; i < t->cnt && i < 16; i++) {
				n += lookup(s, t->addr[i] - 1);
				n += lookup(s, t->addr[i]);
				n += lookup(s, t->addr[i] + 1);
			}
			if (t->cnt)
				n += lookup(s, t->addr[t->cnt - 1] + 0x10000);
		}
		tdr_symbolizer__free(s);
	}
	tdr_kallsyms__free(k);
	(void)n;
	return 0;
}
