/*
 * tests/fuzz/fuzz_debugcache.c - libFuzzer target for the debug file cache:
 * planning, writing and checking the uncompressed copy of an ELF file
 * whose .debug_* sections are compressed (symbolize/debugcache.c).
 *
 * The input is the original (a debug file or an object with its own
 * DWARF). It is handed to tdr_symbolize_dcache__swap three times: with an
 * empty cache (a copy is planned from the hostile headers and written),
 * again (the copy is checked and used), and after one byte of the copy was
 * flipped at a place the input picks (the copy must be rejected, never
 * parsed, and rewritten). The cache is capped at 8 MiB and emptied after
 * every input. Any bytes must give the original back or a checked copy,
 * never a crash or a sanitizer report. Seeds: tests/fuzz/corpus/debugcache
 * (small binaries built with -gz).
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include <gelf.h>

#include "fuzz_tmp.h"
#include "symbolize_int.h"
#include "tdrec/tdr_log.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void sink(enum tdr_log_level level, const char *fmt, va_list ap)
{
	char buf[512];

	(void)level;
	vsnprintf(buf, sizeof(buf), fmt, ap);
}

/* Swap the original at path; read the first bytes of what comes back. */
static void swap(struct sym_dcache *c, const char *path)
{
	unsigned char b[64];
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return;
	fd = tdr_symbolize_dcache__swap(c, fd, path, NULL, 0);
	if (fd >= 0) {
		if (pread(fd, b, sizeof(b), 0) < 0)
			b[0] = 0;
		close(fd);
	}
}

/* Flip one bit of the one copy in dir at (pick % its size). */
static void damage(const char *dir, uint32_t pick)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char p[4400];

	while (d && (e = readdir(d)) != NULL) {
		struct stat st;
		unsigned char b;
		int fd;

		if (e->d_name[0] == '.')
			continue;
		if (snprintf(p, sizeof(p), "%s/%s", dir, e->d_name) >= (int)sizeof(p))
			continue;
		fd = open(p, O_RDWR | O_CLOEXEC);
		if (fd < 0)
			continue;
		if (!fstat(fd, &st) && st.st_size > 0) {
			off_t at = (off_t)(pick % (uint64_t)st.st_size);

			if (pread(fd, &b, 1, at) == 1) {
				b ^= (unsigned char)(1u << (pick >> 29));
				if (pwrite(fd, &b, 1, at) != 1)
					b = 0;
			}
		}
		close(fd);
	}
	if (d)
		closedir(d);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sym_dcache c;
	const char *dir = fuzz_tmp();
	char path[4200], cache[4200];
	uint32_t pick = 0;

	if (!dir)
		return 0;
	tdr_log_set_sink(sink);
	elf_version(EV_CURRENT); /* as tdr_symbolizer__new does */
	snprintf(cache, sizeof(cache), "%s/cache", dir);
	if (fuzz_tmp_write(dir, "original", data, size, path, sizeof(path)))
		return 0;
	if (tdr_symbolize_dcache__init(&c, cache, 8u << 20))
		return 0;
	for (size_t i = 0; i < size; i++)
		pick = pick * 31 + data[i];
	swap(&c, path);
	swap(&c, path);
	damage(c.dir, pick);
	swap(&c, path);
	tdr_symbolize_dcache__free(&c);
	fuzz_tmp_clear(cache, 0);
	return 0;
}
