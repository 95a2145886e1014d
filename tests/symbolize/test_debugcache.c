/*
 * tests/symbolize/test_debugcache.c - the debug file cache: uncompressed
 * copies of objects and debug files whose DWARF is compressed.
 *
 * Every answer with the cache must equal the answer without it (function,
 * file:line:column and the whole inline chain of every 4th instruction of
 * a program built with -gz). Covered: the first line report writes
 * <cache>/debug/<build-id>.debug (directories 0700, file 0600), the second
 * reads it without rewriting; the copy is the original section by section
 * as `objcopy --decompress-debug-sections` makes it (binutils, independent
 * of libelf's writer), with the same ELF and program headers; nothing is
 * copied without a build-id, without compressed sections, for function
 * reports or with the cache off; a copy cut at many offsets, with bytes
 * flipped anywhere, grown, group-writable, a symbolic link or a directory
 * is ignored with one warning naming it, the answers stay the same and the
 * copy is rewritten to the very same bytes; the cap on disk use (no copy
 * over it, least recently used copies removed, stale temporary files
 * removed, a used copy's age refreshed). End to end ($TDREC): the second
 * `tdrec report --lines` (and --inline) uses the copy and prints exactly
 * what a report with TDREC_CACHE_DIR= (no cache) prints.
 * The symbolizer's counters come from the private symbolize_int.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>
#include <gelf.h>

#include "sym_fixture.h"
#include "symbolize_int.h"
#include "tdrec/symbolize.h"
#include "tdrec/tdr_log.h"
#include "tdrec/tdr_mem.h"

#define DAY_S (24 * 3600)

struct env {
	char *dir;
	char *gz_main, *gz_lib; /* -g -gz=zlib: own compressed DWARF */
	char *plain_main;	/* -g: uncompressed DWARF */
	char *nobid_main;	/* -g -gz=zlib -Wl,--build-id=none */
	char *cache;		/* the cache directory of the current test */
	uint64_t *offs;		/* file offsets of gz_main's chosen instructions */
	size_t cnt;
	struct fx_frames *want; /* answers without the cache */
};

/* Warnings logged while a test holds the sink. */
static int warn_cnt;
static char last_warn[1024];

static void count_sink(enum tdr_log_level level, const char *fmt, va_list ap)
{
	if (level != TDR_LOG_WARN)
		return;
	warn_cnt++;
	vsnprintf(last_warn, sizeof(last_warn), fmt, ap);
}

static char *join(const char *dir, const char *file)
{
	char *p = NULL;

	assert_true(asprintf(&p, "%s/%s", dir, file) > 0);
	return p;
}

/* Every 4th instruction of path's sized functions, as file offsets. */
static size_t pick_offsets(const char *path, uint64_t **out)
{
	struct fx_func *funcs;
	uint64_t *insns;
	int nf = fx_elf_funcs(path, &funcs), ni = fx_insn_addrs(path, &insns);
	size_t cnt = 0, k = 0;

	assert_true(nf > 0 && ni > 0);
	*out = calloc((size_t)ni, sizeof(**out));
	for (int i = 0; i < ni; i++) {
		bool in_func = false;

		for (int f = 0; f < nf && !in_func; f++)
			in_func = insns[i] >= funcs[f].lo && insns[i] < funcs[f].lo + funcs[f].size;
		if (in_func && k++ % 4 == 0)
			assert_true(fx_vaddr_to_off(path, insns[i], &(*out)[cnt++]));
	}
	free(funcs);
	free(insns);
	return cnt;
}

/*
 * Symbolize offs[0..cnt) of path with lines and inlines (want_lines false:
 * function names only) and the cache in cache_dir (NULL: none), capped at
 * max_sz (0: the default). *dc: the cache's counters afterwards (may be
 * NULL); out (may be NULL): the answers.
 */
static void symbolize(const char *path, const uint64_t *offs, size_t cnt, const char *cache_dir,
		      uint64_t max_sz, bool want_lines, struct sym_dcache *dc,
		      struct fx_frames *out)
{
	struct tdr_symbolizer_opts o = {.want_lines = want_lines,
					.want_inlines = want_lines,
					.cache_dir = cache_dir,
					.debug_cache_max_sz = max_sz};
	struct tdr_dso_ref ref = {.path = path};
	struct tdr_symbolizer *s;

	assert_int_equal(tdr_symbolizer__new(&o, &s), 0);
	for (size_t i = 0; i < cnt; i++) {
		struct tdr_sym y;

		assert_int_equal(tdr_symbolizer__lookup(s, &ref, offs[i], &y), 0);
		assert_int_equal(y.status, TDR_SYM_OK);
		if (out)
			fx_from_sym(&y, &out[i]);
	}
	if (dc)
		*dc = s->dcache;
	tdr_symbolizer__free(s);
}

/* The answers for gz_main with the cache must be those without it. */
static void expect_same_answers(const struct env *e, const struct fx_frames *got)
{
	for (size_t i = 0; i < e->cnt; i++) {
		const struct fx_frames *w = &e->want[i], *g = &got[i];
		bool same = w->n == g->n;

		for (size_t k = 0; same && k < w->n; k++)
			same = !strcmp(w->name[k], g->name[k]) && !strcmp(w->place[k], g->place[k]);
		if (!same) {
			fx_print_diff(e->offs[i], w, g);
			fail();
		}
	}
}

/* Run the lookups of gz_main with the cache; the answers must not change. */
static struct sym_dcache run_cached(const struct env *e, uint64_t max_sz)
{
	struct fx_frames *got = calloc(e->cnt, sizeof(*got));
	struct sym_dcache dc;

	symbolize(e->gz_main, e->offs, e->cnt, e->cache, max_sz, true, &dc, got);
	expect_same_answers(e, got);
	free(got);
	return dc;
}

/* <cache>/debug/<build-id of path>.debug in new memory. */
static char *copy_path(const struct env *e, const char *path)
{
	uint8_t bid[64];
	size_t n = fx_build_id(path, bid, sizeof(bid));
	char *p = malloc(strlen(e->cache) + 2 * n + 16);
	int o;

	assert_true(n > 0);
	o = sprintf(p, "%s/debug/", e->cache);
	for (size_t i = 0; i < n; i++)
		o += sprintf(p + o, "%02x", bid[i]);
	strcpy(p + o, ".debug");
	return p;
}

static void write_file(const char *path, const void *p, size_t n, mode_t mode)
{
	int fd;

	unlink(path);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, mode);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, p, n), (ssize_t)n);
	assert_int_equal(fchmod(fd, mode), 0);
	close(fd);
}

static void set_age(const char *path, time_t age_s)
{
	struct timespec ts[2] = {{.tv_sec = time(NULL) - age_s}, {.tv_sec = time(NULL) - age_s}};

	assert_int_equal(utimensat(AT_FDCWD, path, ts, AT_SYMLINK_NOFOLLOW), 0);
}

static int group_setup(void **state)
{
	struct env *e = calloc(1, sizeof(*e));
	const char *src = fx_src_dir();
	struct fx_frames *ref;

	if (!fx_have("gcc") || !fx_have("objdump") || !fx_have("objcopy")) {
		fprintf(stderr, "gcc, objdump or objcopy missing\n");
		free(e);
		return -1;
	}
	e->dir = fx_tmpdir();
	if (!e->dir)
		return -1;
	*state = e;
	if (fx_sh("cd '%s' && gcc -O2 -g -gz=zlib -fPIC -shared -o libfx.so '%s/fx_lib.c' && "
		  "gcc -O2 -g -gz=zlib -o fx_main '%s/fx_main.c' -L. -lfx && "
		  "gcc -O2 -g -o fx_plain '%s/fx_main.c' -L. -lfx && "
		  "gcc -O2 -g -gz=zlib -Wl,--build-id=none -o fx_nobid '%s/fx_main.c' -L. -lfx",
		  e->dir, src, src, src, src))
		return -1;
	if (asprintf(&e->gz_main, "%s/fx_main", e->dir) < 0 ||
	    asprintf(&e->gz_lib, "%s/libfx.so", e->dir) < 0 ||
	    asprintf(&e->plain_main, "%s/fx_plain", e->dir) < 0 ||
	    asprintf(&e->nobid_main, "%s/fx_nobid", e->dir) < 0)
		return -1;
	e->cnt = pick_offsets(e->gz_main, &e->offs);
	if (e->cnt < 20)
		return -1;
	/* The answers without any cache: the reference. */
	ref = calloc(e->cnt, sizeof(*ref));
	symbolize(e->gz_main, e->offs, e->cnt, NULL, 0, true, NULL, ref);
	e->want = ref;
	return 0;
}

static int group_teardown(void **state)
{
	struct env *e = *state;

	if (!getenv("TDR_KEEP_TMP"))
		fx_rmrf(e->dir);
	free(e->dir);
	free(e->gz_main);
	free(e->gz_lib);
	free(e->plain_main);
	free(e->nobid_main);
	free(e->offs);
	free(e->want);
	free(e);
	return 0;
}

/* Each test gets an empty cache directory (not created yet). */
static int setup(void **state)
{
	struct env *e = *state;
	static int n;

	if (asprintf(&e->cache, "%s/cache%d/tdrec", e->dir, n++) < 0)
		return -1;
	warn_cnt = 0;
	return 0;
}

static int teardown(void **state)
{
	struct env *e = *state;

	tdr_log_set_sink(NULL);
	free(e->cache);
	e->cache = NULL;
	return 0;
}

/* The reference itself must be worth comparing: lines and inline chains. */
static void test_debugcache__reference_has_lines_and_inlines(void **state)
{
	struct env *e = *state;
	size_t lines = 0, chains = 0;

	for (size_t i = 0; i < e->cnt; i++) {
		lines += strcmp(e->want[i].place[0], "??:0") != 0;
		chains += e->want[i].n > 1;
	}
	assert_true(lines > e->cnt / 2);
	assert_true(chains > 0);
}

/* First report writes the copy, the second reads it (same inode). */
static void test_debugcache__written_then_used(void **state)
{
	struct env *e = *state;
	char *copy = copy_path(e, e->gz_main), *debug_dir = join(e->cache, "debug");
	struct stat st1, st2;
	struct sym_dcache dc;

	dc = run_cached(e, 0);
	assert_int_equal(dc.written_cnt, 1);
	assert_int_equal(dc.used_cnt, 0);
	assert_int_equal(stat(copy, &st1), 0);
	assert_true(S_ISREG(st1.st_mode));
	assert_int_equal(st1.st_mode & 0777, 0600);
	assert_int_equal(stat(e->cache, &st2), 0);
	assert_int_equal(st2.st_mode & 0777, 0700);
	assert_int_equal(stat(debug_dir, &st2), 0);
	assert_int_equal(st2.st_mode & 0777, 0700);

	dc = run_cached(e, 0);
	assert_int_equal(dc.written_cnt, 0);
	assert_int_equal(dc.used_cnt, 1);
	assert_int_equal(dc.rejected_cnt, 0);
	assert_int_equal(stat(copy, &st2), 0);
	assert_int_equal(st1.st_ino, st2.st_ino);
	free(debug_dir);
	free(copy);
}

/* Section i of an ELF file: header and bytes. */
static void section(Elf *elf, size_t i, GElf_Shdr *sh, Elf_Data **d)
{
	Elf_Scn *scn = elf_getscn(elf, i);

	assert_non_null(scn);
	assert_non_null(gelf_getshdr(scn, sh));
	*d = sh->sh_type == SHT_NOBITS ? NULL : elf_rawdata(scn, NULL);
}

/* The copy is the original uncompressed: binutils' own decompression gives
 * the same sections (name, type, flags, address, size, link, info, bytes),
 * and the ELF and program headers are the original's but for e_shoff. */
static void test_debugcache__copy_is_the_original_uncompressed(void **state)
{
	struct env *e = *state;
	char *copy = copy_path(e, e->gz_main), *ref = join(e->dir, "fx_main.objcopy");
	int fc, fr, fo;
	Elf *ec, *er, *eo;
	GElf_Ehdr hc, ho;
	size_t nc, nr, np, shstr;

	run_cached(e, 0);
	assert_int_equal(fx_sh("objcopy --decompress-debug-sections '%s' '%s'", e->gz_main, ref),
			 0);
	elf_version(EV_CURRENT);
	fc = open(copy, O_RDONLY);
	fr = open(ref, O_RDONLY);
	fo = open(e->gz_main, O_RDONLY);
	ec = elf_begin(fc, ELF_C_READ, NULL);
	er = elf_begin(fr, ELF_C_READ, NULL);
	eo = elf_begin(fo, ELF_C_READ, NULL);
	assert_true(ec && er && eo);
	assert_non_null(gelf_getehdr(ec, &hc));
	assert_non_null(gelf_getehdr(eo, &ho));
	hc.e_shoff = ho.e_shoff;
	assert_memory_equal(&hc, &ho, sizeof(hc));
	assert_int_equal(elf_getphdrnum(ec, &np), 0);
	for (size_t i = 0; i < np; i++) {
		GElf_Phdr pc, po;

		assert_non_null(gelf_getphdr(ec, (int)i, &pc));
		assert_non_null(gelf_getphdr(eo, (int)i, &po));
		assert_memory_equal(&pc, &po, sizeof(pc));
	}
	assert_int_equal(elf_getshdrnum(ec, &nc), 0);
	assert_int_equal(elf_getshdrnum(er, &nr), 0);
	assert_int_equal(nc, nr);
	assert_int_equal(elf_getshdrstrndx(ec, &shstr), 0);
	for (size_t i = 1; i < nc; i++) {
		GElf_Shdr sc, sr;
		Elf_Data *dc, *dr;

		section(ec, i, &sc, &dc);
		section(er, i, &sr, &dr);
		assert_string_equal(elf_strptr(ec, shstr, sc.sh_name),
				    elf_strptr(er, shstr, sr.sh_name));
		assert_false(sc.sh_flags & SHF_COMPRESSED);
		assert_int_equal(sc.sh_type, sr.sh_type);
		assert_int_equal(sc.sh_flags, sr.sh_flags);
		assert_int_equal(sc.sh_addr, sr.sh_addr);
		assert_int_equal(sc.sh_size, sr.sh_size);
		assert_int_equal(sc.sh_link, sr.sh_link);
		assert_int_equal(sc.sh_info, sr.sh_info);
		assert_int_equal(sc.sh_entsize, sr.sh_entsize);
		if (sc.sh_type != SHT_NOBITS)
			assert_int_equal(sc.sh_offset % (sc.sh_addralign ? sc.sh_addralign : 1), 0);
		if (dc || dr) {
			assert_true(dc && dr);
			assert_int_equal(dc->d_size, dr->d_size);
			assert_memory_equal(dc->d_buf, dr->d_buf, dc->d_size);
		}
	}
	elf_end(ec);
	elf_end(er);
	elf_end(eo);
	close(fc);
	close(fr);
	close(fo);
	free(ref);
	free(copy);
}

static bool dir_has_copies(const char *cache)
{
	char *out = fx_sh_out("ls -A '%s/debug' 2>/dev/null | wc -l", cache);
	bool any = out && atoi(out) > 0;

	free(out);
	return any;
}

/* No build-id, nothing compressed, no lines or inlines wanted, cache off. */
static void test_debugcache__never_copied(void **state)
{
	struct env *e = *state;
	struct sym_dcache dc;
	uint64_t *offs;
	size_t n;

	n = pick_offsets(e->plain_main, &offs);
	symbolize(e->plain_main, offs, n, e->cache, 0, true, &dc, NULL);
	assert_int_equal(dc.written_cnt + dc.used_cnt + dc.rejected_cnt, 0);
	free(offs);

	n = pick_offsets(e->nobid_main, &offs);
	symbolize(e->nobid_main, offs, n, e->cache, 0, true, &dc, NULL);
	assert_int_equal(dc.written_cnt + dc.used_cnt + dc.rejected_cnt, 0);
	free(offs);
	assert_false(dir_has_copies(e->cache));

	/* A function report never opens DWARF where symbols answer: no copy. */
	symbolize(e->gz_main, e->offs, e->cnt, e->cache, 0, false, &dc, NULL);
	assert_null(dc.dir);
	assert_int_equal(dc.written_cnt, 0);
	/* An empty directory name turns the cache off. */
	symbolize(e->gz_main, e->offs, e->cnt, "", 0, true, &dc, NULL);
	assert_null(dc.dir);
	assert_int_equal(dc.written_cnt, 0);
	assert_false(dir_has_copies(e->cache));
}

/* One damaged copy: same answers, one warning naming it, rewritten to the
 * good bytes. */
static void expect_rewritten(const struct env *e, const char *copy, const unsigned char *good,
			     size_t good_sz, const char *what)
{
	struct sym_dcache dc;
	unsigned char *now;
	size_t now_sz;

	warn_cnt = 0;
	tdr_log_set_sink(count_sink);
	dc = run_cached(e, 0);
	tdr_log_set_sink(NULL);
	if (dc.rejected_cnt != 1 || dc.written_cnt != 1 || dc.used_cnt != 0 || warn_cnt != 1)
		fail_msg("%s: rejected %zu, written %zu, used %zu, %d warnings", what,
			 dc.rejected_cnt, dc.written_cnt, dc.used_cnt, warn_cnt);
	assert_non_null(strstr(last_warn, copy));
	now = fx_read_file(copy, &now_sz);
	assert_non_null(now);
	assert_int_equal(now_sz, good_sz);
	assert_memory_equal(now, good, good_sz);
	free(now);
}

static void test_debugcache__damaged_copy_ignored_and_rewritten(void **state)
{
	struct env *e = *state;
	char *copy = copy_path(e, e->gz_main), *other = join(e->dir, "other.debug");
	unsigned char *good, *bad;
	size_t sz, cuts[] = {0, 1, 16, 63, 64, 4096, 0, 0, 0, 0};
	size_t flips[64], nflip = 0;
	char what[64];

	run_cached(e, 0);
	good = fx_read_file(copy, &sz);
	assert_non_null(good);
	bad = malloc(sz + 1);
	cuts[6] = sz / 2;
	cuts[7] = sz - 33;
	cuts[8] = sz - 32;
	cuts[9] = sz - 1;
	for (size_t i = 0; i < TDR_ARRAY_SIZE(cuts); i++) {
		snprintf(what, sizeof(what), "cut at %zu", cuts[i]);
		write_file(copy, good, cuts[i], 0600);
		expect_rewritten(e, copy, good, sz, what);
	}
	/* Bytes flipped: the ELF header, the build-id note's area, the end of
	 * the ELF part, the trailer, and spread over the file (fixed seed). */
	for (size_t o = 0; o < 64; o += 7)
		flips[nflip++] = o;
	for (size_t o = sz - 40; o < sz; o += 5)
		flips[nflip++] = o;
	srand(7);
	while (nflip < TDR_ARRAY_SIZE(flips))
		flips[nflip++] = (size_t)rand() % sz;
	for (size_t i = 0; i < nflip; i++) {
		memcpy(bad, good, sz);
		bad[flips[i]] ^= 0x5a;
		snprintf(what, sizeof(what), "byte %zu flipped", flips[i]);
		write_file(copy, bad, sz, 0600);
		expect_rewritten(e, copy, good, sz, what);
	}
	/* One byte more. */
	memcpy(bad, good, sz);
	bad[sz] = 0;
	write_file(copy, bad, sz + 1, 0600);
	expect_rewritten(e, copy, good, sz, "grown");
	/* Writable by others. */
	write_file(copy, good, sz, 0666);
	expect_rewritten(e, copy, good, sz, "mode 0666");
	/* A symbolic link to a good copy. */
	write_file(other, good, sz, 0600);
	unlink(copy);
	assert_int_equal(symlink(other, copy), 0);
	expect_rewritten(e, copy, good, sz, "symbolic link");
	free(bad);
	free(good);
	free(other);
	free(copy);
}

/* A directory where the copy belongs cannot be replaced: the original is
 * used, with one warning. */
static void test_debugcache__directory_in_the_way(void **state)
{
	struct env *e = *state;
	char *copy = copy_path(e, e->gz_main);
	struct sym_dcache dc;

	run_cached(e, 0);
	assert_int_equal(unlink(copy), 0);
	assert_int_equal(mkdir(copy, 0700), 0);
	tdr_log_set_sink(count_sink);
	dc = run_cached(e, 0);
	dc = run_cached(e, 0);
	tdr_log_set_sink(NULL);
	assert_int_equal(dc.used_cnt + dc.written_cnt, 0);
	assert_int_equal(warn_cnt, 2); /* once per symbolizer */
	assert_non_null(strstr(last_warn, copy));
	rmdir(copy);
	free(copy);
}

/* The debug cache's directories get the checks its files get (issue 17,
 * finding 3): with <cache>/debug a link to another directory (another
 * user's link to a root-only one), or the cache directory writable by
 * others, or another user's, nothing is read, written or pruned there,
 * the answers do not change, one warning per symbolizer says why. */
static void test_debugcache__untrusted_directories(void **state)
{
	struct env *e = *state;
	char *debug_dir = join(e->cache, "debug"), *victim = join(e->dir, "victim");
	char *decoy = join(victim, "00.debug");
	struct sym_dcache dc;
	struct stat st;

	assert_int_equal(fx_sh("mkdir -p '%s' '%s'", e->cache, victim), 0);
	write_file(decoy, "old", 3, 0600);
	set_age(decoy, 400 * 24 * 3600);
	assert_int_equal(symlink(victim, debug_dir), 0);
	tdr_log_set_sink(count_sink);
	dc = run_cached(e, 1); /* a cap of 1 byte: a write would prune the decoy */
	tdr_log_set_sink(NULL);
	assert_int_equal(dc.used_cnt + dc.written_cnt + dc.pruned_cnt, 0);
	assert_int_equal(warn_cnt, 1);
	assert_non_null(strstr(last_warn, "a cache directory is a symbolic link"));
	assert_int_equal(stat(decoy, &st), 0); /* not pruned */
	{
		char *n = fx_sh_out("ls -A '%s' | wc -l", victim);

		assert_non_null(n);
		assert_int_equal(atoi(n), 1); /* nothing written */
		free(n);
	}
	assert_int_equal(unlink(debug_dir), 0);

	/* The cache directory writable by others. */
	assert_int_equal(chmod(e->cache, 0777), 0);
	warn_cnt = 0;
	tdr_log_set_sink(count_sink);
	dc = run_cached(e, 0);
	tdr_log_set_sink(NULL);
	assert_int_equal(dc.used_cnt + dc.written_cnt, 0);
	assert_int_equal(warn_cnt, 1);
	assert_non_null(strstr(last_warn, "writable by group or others"));
	assert_int_equal(stat(debug_dir, &st), -1);

	/* Another user's. */
	assert_int_equal(chmod(e->cache, 0700), 0);
	if (geteuid() == 0) {
		assert_int_equal(chown(e->cache, 65534, 65534), 0);
		warn_cnt = 0;
		tdr_log_set_sink(count_sink);
		dc = run_cached(e, 0);
		tdr_log_set_sink(NULL);
		assert_int_equal(dc.used_cnt + dc.written_cnt, 0);
		assert_non_null(strstr(last_warn, "another user's"));
		assert_int_equal(chown(e->cache, 0, 0), 0);
	}
	/* Sound again: written. */
	dc = run_cached(e, 0);
	assert_int_equal(dc.written_cnt, 1);
	free(decoy);
	free(victim);
	free(debug_dir);
}

static uint64_t file_size(const char *path)
{
	struct stat st;

	assert_int_equal(stat(path, &st), 0);
	return (uint64_t)st.st_size;
}

/* The cap: no copy over it; the least recently used copies make room; old
 * temporary files go; a used copy's age is refreshed. */
static void test_debugcache__disk_use_capped(void **state)
{
	struct env *e = *state;
	char *a = copy_path(e, e->gz_main), *b = copy_path(e, e->gz_lib);
	char *stale, *fresh;
	uint64_t *lib_offs, a_sz, b_sz, cap;
	struct sym_dcache dc;
	struct stat st;
	size_t lib_cnt;

	/* Sizes, from copies written without a cap. */
	lib_cnt = pick_offsets(e->gz_lib, &lib_offs);
	run_cached(e, 0);
	symbolize(e->gz_lib, lib_offs, lib_cnt, e->cache, 0, true, NULL, NULL);
	a_sz = file_size(a);
	b_sz = file_size(b);
	assert_int_equal(unlink(a), 0);
	assert_int_equal(unlink(b), 0);

	/* A cap below the copy: nothing written, no warning, same answers. */
	tdr_log_set_sink(count_sink);
	dc = run_cached(e, a_sz - 1);
	tdr_log_set_sink(NULL);
	assert_int_equal(dc.written_cnt, 0);
	assert_int_equal(warn_cnt, 0);
	assert_int_equal(access(a, F_OK), -1);

	/* Room for one of the two: writing B removes A, the older. */
	cap = (a_sz > b_sz ? a_sz : b_sz) + 1;
	assert_true(cap < a_sz + b_sz);
	dc = run_cached(e, cap);
	assert_int_equal(dc.written_cnt, 1);
	set_age(a, 2 * DAY_S);
	stale = join(e->cache, "debug/.0011.debug.AbCdEf");
	fresh = join(e->cache, "debug/.0022.debug.GhIjKl");
	write_file(stale, "x", 1, 0600);
	write_file(fresh, "x", 1, 0600);
	set_age(stale, 2 * 3600);
	symbolize(e->gz_lib, lib_offs, lib_cnt, e->cache, cap, true, &dc, NULL);
	assert_int_equal(dc.written_cnt, 1);
	assert_int_equal(dc.pruned_cnt, 1);
	assert_int_equal(access(a, F_OK), -1);
	assert_int_equal(access(b, F_OK), 0);
	assert_int_equal(access(stale, F_OK), -1); /* a writer that died */
	assert_int_equal(access(fresh, F_OK), 0);  /* maybe one still writing */

	/* A copy used after more than a day is marked as used now. */
	set_age(b, 3 * DAY_S);
	symbolize(e->gz_lib, lib_offs, lib_cnt, e->cache, cap, true, &dc, NULL);
	assert_int_equal(dc.used_cnt, 1);
	assert_int_equal(stat(b, &st), 0);
	assert_true(st.st_mtime > time(NULL) - 3600);
	free(stale);
	free(fresh);
	free(lib_offs);
	free(a);
	free(b);
}

/* Run a shell command, returning its exit status and stdout (caller frees). */
static int run(char **out, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int run(char **out, const char *fmt, ...)
{
	char cmd[8192];
	va_list ap;
	char *o;
	int st;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	/* fx_sh_out gives stdout only; the status comes from a marker line. */
	strncat(cmd, "; echo \"@status=$?\"", sizeof(cmd) - strlen(cmd) - 1);
	o = fx_sh_out("%s", cmd);
	assert_non_null(o);
	st = atoi(strrchr(o, '@') + strlen("@status="));
	*strrchr(o, '@') = '\0';
	*out = o;
	return st;
}

/*
 * End to end: a program with compressed DWARF (and calls into libc),
 * recorded with tdrec; the first line report writes the copy, the second
 * uses it (not rewritten) and prints exactly what the first printed and
 * what a report without the cache (TDREC_CACHE_DIR=) prints; --inline too.
 */
static void test_debugcache__second_report_uses_the_copy(void **state)
{
	struct env *e = *state;
	const char *tdrec = getenv("TDREC");
	char *prog = join(e->dir, "fx_libc_loop"), *tdr = join(e->dir, "e2e.tdr");
	char *copy, *out = NULL, *first, *second, *nocache;
	/* Each mode with what its report must show of the program. */
	const char *modes[][2] = {{"--lines", "fx_libc_loop.c:"}, {"--inline", " mix "}};
	struct stat st1, st2;
	int st;

	if (!tdrec)
		skip();
	assert_int_equal(
	    fx_sh("gcc -O2 -g -gz=zlib -o '%s' '%s/fx_libc_loop.c'", prog, fx_src_dir()), 0);
	copy = copy_path(e, prog);
	/* Not archived: the reports are to read the debug file. */
	st = run(&out, "'%s' record -q --no-archive -o '%s' -- '%s' 2>&1", tdrec, tdr, prog);
	if (st && strstr(out, "perf_event_paranoid")) {
		free(out);
		skip();
	}
	assert_true(st == 0 || st == 1); /* the program's own exit status */
	free(out);
	for (size_t m = 0; m < TDR_ARRAY_SIZE(modes); m++) {
		assert_int_equal(run(&first, "TDREC_CACHE_DIR='%s' '%s' report %s -i '%s' 2>&1",
				     e->cache, tdrec, modes[m][0], tdr),
				 0);
		assert_int_equal(stat(copy, &st1), 0);
		assert_int_equal(run(&second, "TDREC_CACHE_DIR='%s' '%s' report %s -i '%s' 2>&1",
				     e->cache, tdrec, modes[m][0], tdr),
				 0);
		assert_int_equal(stat(copy, &st2), 0);
		assert_int_equal(st1.st_ino, st2.st_ino);
		assert_int_equal(run(&nocache, "TDREC_CACHE_DIR= '%s' report %s -i '%s' 2>&1",
				     tdrec, modes[m][0], tdr),
				 0);
		assert_string_equal(first, nocache);
		assert_string_equal(second, nocache);
		/* Not vacuous: the program's code is named from its DWARF. */
		assert_non_null(strstr(second, modes[m][1]));
		free(first);
		free(second);
		free(nocache);
	}
	free(copy);
	free(prog);
	free(tdr);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
#define T(name) cmocka_unit_test_setup_teardown(test_debugcache__##name, setup, teardown)
	    T(reference_has_lines_and_inlines),
	    T(written_then_used),
	    T(copy_is_the_original_uncompressed),
	    T(never_copied),
	    T(damaged_copy_ignored_and_rewritten),
	    T(directory_in_the_way),
	    T(untrusted_directories),
	    T(disk_use_capped),
	    T(second_report_uses_the_copy),
#undef T
	};

	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
