/*
 * bench/symbolize_bench.c - how fast the symbolizer resolves addresses.
 *
 * Usage: symbolize_bench [ELF file] [stride bytes] [--no-inlines] [--cold-only]
 *                        [--cache DIR]
 * Default: /lib/x86_64-linux-gnu/libc.so.6 (full DWARF when libc6-dbg is
 * installed, found through /usr/lib/debug/.build-id), stride 4, no debug
 * file cache (--cache: tdrec's cache directory, as TDREC_CACHE_DIR; the
 * first run writes the uncompressed copy, later runs read it).
 *
 * Takes every stride-th byte offset of the file's executable PT_LOAD
 * segments as one unique address (a profile's unique ips), then measures:
 *   cold  - first lookup of each address: opening the object, symbol table,
 *           CU and subprogram tables on first need, inline walk, line;
 *   warm  - the same addresses again, answered from the result cache;
 *   mixed - 4M lookups drawn with a skewed distribution over them, as a
 *           report's samples would be.
 * Prints rates (per second of this thread's CPU time) and how many addresses
 * had a function, a line and inlines.
 * Not a test: nothing is asserted.
 */
#include <elf.h>
#include <stdbool.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "tdrec/symbolize.h"

static double now_s(void)
{
	struct timespec ts;

	/* CPU time of this thread: the machine is shared, wall time is noisy. */
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* File offsets of every stride-th byte of the executable segments. */
static size_t exec_offsets(const char *path, unsigned stride, uint64_t **out)
{
	const Elf64_Ehdr *eh;
	uint64_t *v = NULL;
	size_t cnt = 0;
	struct stat st;
	void *map;
	int fd = open(path, O_RDONLY);

	if (fd < 0 || fstat(fd, &st))
		return 0;
	map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (map == MAP_FAILED)
		return 0;
	eh = map;
	if (memcmp(eh->e_ident, ELFMAG, SELFMAG) || eh->e_ident[EI_CLASS] != ELFCLASS64)
		goto out;
	for (unsigned i = 0; i < eh->e_phnum; i++) {
		const Elf64_Phdr *ph =
			(const void *)((const char *)map + eh->e_phoff + i * eh->e_phentsize);

		if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_X))
			continue;
		v = realloc(v, (cnt + ph->p_filesz / stride + 1) * sizeof(*v));
		for (uint64_t o = 0; o < ph->p_filesz; o += stride)
			v[cnt++] = ph->p_offset + o;
	}
out:
	munmap(map, (size_t)st.st_size);
	*out = v;
	return cnt;
}

static long peak_rss_kib(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_maxrss;
}

int main(int argc, char **argv)
{
	const char *path = "/lib/x86_64-linux-gnu/libc.so.6";
	struct tdr_symbolizer_opts o = { .want_lines = true, .want_inlines = true };
	struct tdr_symbolizer *s;
	unsigned stride = 4;
	size_t n, with_fn = 0, with_line = 0, with_inl = 0, depth = 0;
	const size_t mixed_n = 4u << 20;
	uint64_t *offs, seed = 0x9e3779b97f4a7c15ull;
	struct tdr_dso_ref ref;
	double t0, cold, warm, mixed;
	bool cold_only = false;
	long rss0;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--no-inlines"))
			o.want_inlines = false;
		else if (!strcmp(argv[i], "--cold-only"))
			cold_only = true;
		else if (!strcmp(argv[i], "--cache") && i + 1 < argc)
			o.cache_dir = argv[++i];
		else if (argv[i][0] >= '0' && argv[i][0] <= '9')
			stride = (unsigned)strtoul(argv[i], NULL, 0);
		else
			path = argv[i];
	}
	if (!stride)
		stride = 1;
	n = exec_offsets(path, stride, &offs);
	if (!n) {
		fprintf(stderr, "no executable segment in %s\n", path);
		return 1;
	}
	ref = (struct tdr_dso_ref){ .path = path };
	rss0 = peak_rss_kib();
	if (tdr_symbolizer__new(&o, &s))
		return 1;

	t0 = now_s();
	for (size_t i = 0; i < n; i++) {
		struct tdr_sym y;

		if (tdr_symbolizer__lookup(s, &ref, offs[i], &y))
			return 1;
		with_fn += y.status == TDR_SYM_OK;
		with_line += y.file != NULL;
		with_inl += y.inline_cnt > 0;
		depth += y.inline_cnt;
	}
	cold = now_s() - t0;
	if (cold_only) {
		printf("cold: %zu addresses in %.3f s = %.0f addresses/s\n", n, cold,
		       (double)n / cold);
		tdr_symbolizer__free(s);
		free(offs);
		return 0;
	}

	t0 = now_s();
	for (size_t i = 0; i < n; i++) {
		struct tdr_sym y;

		tdr_symbolizer__lookup(s, &ref, offs[i], &y);
	}
	warm = now_s() - t0;

	/* Skewed: most samples hit a few hot addresses (squared uniform). */
	t0 = now_s();
	for (size_t i = 0; i < mixed_n; i++) {
		struct tdr_sym y;
		double u;

		seed ^= seed << 13, seed ^= seed >> 7, seed ^= seed << 17;
		u = (double)(seed >> 11) / 9007199254740992.0;
		tdr_symbolizer__lookup(s, &ref, offs[(size_t)(u * u * (double)n)], &y);
	}
	mixed = now_s() - t0;

	printf("object: %s (stride %u, inlines %s)\n", path, stride,
	       o.want_inlines ? "on" : "off");
	printf("unique addresses: %zu; with function %.1f%%, with line %.1f%%, with inlines "
	       "%.1f%% (mean depth %.2f where any)\n",
	       n, 100.0 * (double)with_fn / (double)n, 100.0 * (double)with_line / (double)n,
	       100.0 * (double)with_inl / (double)n,
	       with_inl ? (double)depth / (double)with_inl : 0.0);
	printf("cold (first lookup, incl. opening): %.3f s = %.0f addresses/s\n", cold,
	       (double)n / cold);
	printf("warm (cached):                      %.3f s = %.0f lookups/s\n", warm,
	       (double)n / warm);
	printf("mixed (%zu skewed lookups):      %.3f s = %.0f lookups/s\n", mixed_n, mixed,
	       (double)mixed_n / mixed);
	printf("peak RSS: %ld MiB (+%ld MiB over start)\n", peak_rss_kib() / 1024,
	       (peak_rss_kib() - rss0) / 1024);
	tdr_symbolizer__free(s);
	free(offs);
	return 0;
}
