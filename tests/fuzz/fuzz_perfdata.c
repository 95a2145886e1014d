/*
 * tests/fuzz/fuzz_perfdata.c - libFuzzer target for the perf.data importer.
 *
 * The input is written to an anonymous memory file and opened by path
 * (/proc/self/fd/N) through tdr_parser__open, then run to the end: header,
 * attrs, feature sections, compressed and plain records. Any bytes must give
 * an error code or a clean run, never a crash or a sanitizer report.
 */
#include <stdint.h>
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>

#include "tdrec/parser.h"
#include "tdrec/tdr_log.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void quiet(enum tdr_log_level level, const char *fmt, va_list ap)
{
	(void)level;
	(void)fmt;
	(void)ap;
}

static int cb(const struct tdr_sample *s, void *ctx)
{
	(void)ctx;
	return s->map && s->map->path[0] == '\x01' ? 1 : 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct tdr_parser *p = NULL;
	char path[64];
	int fd = memfd_create("fuzz_perfdata", MFD_CLOEXEC);

	if (fd < 0)
		return 0;
	tdr_log_set_sink(quiet);
	if (write(fd, data, size) == (ssize_t)size) {
		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
		if (!tdr_parser__open(path, &p))
			tdr_parser__run(p, cb, NULL);
		tdr_parser__free(p);
	}
	close(fd);
	return 0;
}
