/*
 * tests/symbolize/test_kallsyms.c - the kernel symbol table: parsing, the
 * helper thread and the per-boot cache (symbolize/kallsyms.c, kcache.c).
 *
 * Covers: kallsyms out of address order, an over-long line and a last line
 * without a newline parse to the same table as the ordered file; a table
 * loaded on the helper thread is written to the cache (directory 0700, file
 * 0600) and later loaders use the cache, not the file, until the boot id or
 * the modules list changes; the reference symbols (_text) come from the
 * cache too; tables of zero addresses are never cached; a damaged cache
 * (cut at every offset, every byte flipped, wrong permissions) never
 * crashes, and a damaged header or a cut file falls back to kallsyms with a
 * one-line warning naming the cache file; a load started and freed at once
 * stops cleanly.
 * Every kallsyms file here is fake; no privileges needed.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "sym_fixture.h"
#include "tdrec/symbolize.h"
#include "tdrec/tdr_log.h"

#define BOOT_A "0a8f4c1e-1111-4c2b-9a1e-000000000001"
#define BOOT_B "0a8f4c1e-1111-4c2b-9a1e-000000000002"
#define HDR_SZ 128 /* kcache.c's header */

struct env {
	char *dir;
	char ks[512], cache[512], cache_file[600], modules[512];
};

/* The fake kernel: text symbols (and aliases, data, a zero address). */
struct ksym_line {
	uint64_t addr;
	char type;
	const char *name;
};

static const struct ksym_line fake[] = {
    {0xffffffff81000000ull, 'T', "_text"},
    {0xffffffff81000000ull, 'T', "_stext"},
    {0xffffffff81000000ull, 't', "__pfx_startup"},
    {0xffffffff81000100ull, 'T', "do_one_initcall"},
    {0xffffffff81000180ull, 'D', "some_data"},
    {0xffffffff81000200ull, 't', "local_helper"},
    {0xffffffff81000300ull, 'W', "weak_thing"},
    {0xffffffff81000400ull, 'T', "schedule"},
    {0xffffffffc0a00000ull, 't', "mod_func\t[kvm]"},
    {0xffffffffc0a00080ull, 'T', "mod_other\t[kvm]"},
    {0, 'A', "fixed_percpu_data"},
};

/* Write the fake kallsyms, every name + suffix (module tags kept), in
 * address order or reversed; odd: an over-long garbage line in the middle
 * and no newline after the last line. */
static void write_ks(const char *path, const char *suffix, bool reversed, bool odd)
{
	FILE *f = fopen(path, "w");
	size_t n = sizeof(fake) / sizeof(fake[0]);

	assert_non_null(f);
	for (size_t k = 0; k < n; k++) {
		const struct ksym_line *l = &fake[reversed ? n - 1 - k : k];
		size_t base = strcspn(l->name, "\t");

		if (odd && k == n / 2) {
			for (int i = 0; i < 300000; i++)
				fputc('x', f);
			fputc('\n', f);
		}
		fprintf(f, "%016llx %c %.*s%s%s%s", (unsigned long long)l->addr, l->type, (int)base,
			l->name, suffix, l->name + base, odd && k == n - 1 ? "" : "\n");
	}
	fclose(f);
}

static void write_text(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static int setup(void **state)
{
	struct env *e = calloc(1, sizeof(*e));

	e->dir = fx_tmpdir();
	if (!e->dir)
		return -1;
	snprintf(e->ks, sizeof(e->ks), "%s/kallsyms", e->dir);
	snprintf(e->cache, sizeof(e->cache), "%s/home/.cache/tdrec", e->dir);
	snprintf(e->cache_file, sizeof(e->cache_file), "%s/kallsyms.bin", e->cache);
	snprintf(e->modules, sizeof(e->modules), "%s/modules", e->dir);
	write_text(e->modules, "kvm 1392640 0 - Live 0xffffffffc0a00000\n");
	*state = e;
	return 0;
}

static int teardown(void **state)
{
	struct env *e = *state;

	fx_rmrf(e->dir);
	free(e->dir);
	free(e);
	return 0;
}

/* Warnings, kept for the test to look at. */
static char warned[4096];
static int warn_cnt;

static void keep_sink(enum tdr_log_level level, const char *fmt, va_list ap)
{
	if (level != TDR_LOG_WARN)
		return;
	vsnprintf(warned, sizeof(warned), fmt, ap);
	warn_cnt++;
}

static struct tdr_kallsyms *new_ks(const struct env *e, const char *boot_id, bool start)
{
	struct tdr_kallsyms_opts o = {
	    .path = e->ks, .cache_dir = e->cache, .boot_id = boot_id, .modules_path = e->modules};
	struct tdr_kallsyms *k = NULL;

	assert_int_equal(tdr_kallsyms__new(&o, &k), 0);
	if (start)
		assert_int_equal(tdr_kallsyms__start(k), 0);
	return k;
}

static struct tdr_symbolizer *sym_on(struct tdr_kallsyms *k)
{
	struct tdr_symbolizer_opts o = {.kallsyms = k, .kallsyms_usable = true};
	struct tdr_symbolizer *s = NULL;

	assert_int_equal(tdr_symbolizer__new(&o, &s), 0);
	return s;
}

static void expect(struct tdr_symbolizer *s, uint64_t ip, const char *name, const char *suffix,
		   uint64_t off)
{
	char want[128];
	struct tdr_sym y;

	assert_int_equal(tdr_symbolizer__lookup_kernel(s, ip, &y), 0);
	if (!name) {
		assert_int_equal(y.status, TDR_SYM_NO_SYMBOL);
		return;
	}
	snprintf(want, sizeof(want), "%s%s", name, suffix);
	assert_int_equal(y.status, TDR_SYM_OK);
	assert_string_equal(y.function, want);
	assert_int_equal(y.function_offset, off);
}

/* The fake kernel's answers, names with suffix. */
static void expect_fake(struct tdr_kallsyms *k, const char *suffix)
{
	struct tdr_symbolizer *s = sym_on(k);

	expect(s, 0xffffffff81000000ull, "_text", suffix, 0); /* global, then shortest */
	expect(s, 0xffffffff81000123ull, "do_one_initcall", suffix, 0x23);
	expect(s, 0xffffffff810001f0ull, "do_one_initcall", suffix, 0xf0); /* not data */
	expect(s, 0xffffffff81000250ull, "local_helper", suffix, 0x50);
	expect(s, 0xffffffff81000300ull, "weak_thing", suffix, 0);
	expect(s, 0xffffffff81000410ull, "schedule", suffix, 0x10);
	expect(s, 0xffffffffc0a00010ull, "mod_func", suffix, 0x10);
	expect(s, 0xffffffffc0a000ffull, "mod_other", suffix, 0x7f);
	expect(s, 0xffffffffc0a01080ull - 1, "mod_other", suffix, 0xfff); /* last: one page */
	expect(s, 0xffffffffc0a01080ull, NULL, "", 0);
	expect(s, 0xffffffff80000000ull, NULL, "", 0);
	tdr_symbolizer__free(s);
}

static void test_kallsyms__order_and_odd_lines_do_not_matter(void **state)
{
	struct env *e = *state;
	struct tdr_kallsyms_opts o = {.path = e->ks};
	struct tdr_kallsyms *k = NULL;

	for (int v = 0; v < 4; v++) {
		write_ks(e->ks, "", v & 1, v & 2);
		assert_int_equal(tdr_kallsyms__new(&o, &k), 0);
		if (v & 1)
			tdr_kallsyms__start(k);
		expect_fake(k, "");
		tdr_kallsyms__free(k);
	}
}

static void file_mode(const char *path, mode_t want)
{
	struct stat st;

	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 0777, want);
}

static void test_kallsyms__cache_used_until_boot_or_modules_change(void **state)
{
	struct env *e = *state;
	struct tdr_kallsyms *k;

	fx_rmrf(e->cache);
	write_ks(e->ks, "", false, false);
	k = new_ks(e, BOOT_A, true);
	expect_fake(k, "");
	tdr_kallsyms__free(k); /* waits for the cache write */
	file_mode(e->cache, 0700);
	file_mode(e->cache_file, 0600);

	/* kallsyms change, the key does not: the names come from the cache. */
	write_ks(e->ks, "_v2", false, false);
	k = new_ks(e, BOOT_A, true);
	expect_fake(k, "");
	tdr_kallsyms__free(k);
	k = new_ks(e, BOOT_A, false);
	expect_fake(k, "");
	tdr_kallsyms__free(k);

	/* Another boot: rebuilt from kallsyms, and cached again. */
	k = new_ks(e, BOOT_B, false);
	expect_fake(k, "_v2");
	tdr_kallsyms__free(k);
	write_ks(e->ks, "_v3", false, false);
	k = new_ks(e, BOOT_B, false);
	expect_fake(k, "_v2");
	tdr_kallsyms__free(k);

	/* A module loaded: rebuilt. */
	write_text(e->modules, "kvm 1392640 0 - Live 0xffffffffc0a00000\n"
			       "dummy 16384 0 - Live 0xffffffffc0b00000\n");
	k = new_ks(e, BOOT_B, true);
	expect_fake(k, "_v3");
	tdr_kallsyms__free(k);

	/* No boot id, or no directory: no cache. */
	write_ks(e->ks, "_v4", false, false);
	k = new_ks(e, NULL, false);
	expect_fake(k, "_v4");
	tdr_kallsyms__free(k);
	k = new_ks(e, BOOT_B, false);
	expect_fake(k, "_v3");
	tdr_kallsyms__free(k);
}

/* Cache directories get the checks cache files get (issue 17, finding 3):
 * a link (another user's cache -> /root-only-dir), a directory others can
 * write, or another user's is neither read nor written; the symbols come
 * from kallsyms, with one warning naming the reason. */
static void test_kallsyms__untrusted_cache_directory(void **state)
{
	struct env *e = *state;
	char victim[600], victim_file[700];
	struct tdr_kallsyms *k;
	struct stat st;

	/* The cache directory is a symbolic link to somewhere else. */
	fx_rmrf(e->cache);
	snprintf(victim, sizeof(victim), "%s/victim", e->dir);
	snprintf(victim_file, sizeof(victim_file), "%s/kallsyms.bin", victim);
	assert_int_equal(mkdir(victim, 0700), 0);
	assert_int_equal(fx_sh("mkdir -p '%s' && rmdir '%s'", e->cache, e->cache), 0);
	assert_int_equal(symlink(victim, e->cache), 0);
	write_ks(e->ks, "", false, false);
	tdr_log_set_sink(keep_sink);
	warn_cnt = 0;
	k = new_ks(e, BOOT_A, true);
	expect_fake(k, "");
	tdr_kallsyms__free(k);
	assert_int_equal(warn_cnt, 1);
	assert_non_null(strstr(warned, "a cache directory is a symbolic link"));
	assert_int_equal(stat(victim_file, &st), -1);
	assert_int_equal(unlink(e->cache), 0);

	/* A sound cache, then its directory made writable by others: the
	 * cache (suffix "") is no longer read, nor rewritten. */
	k = new_ks(e, BOOT_A, false);
	expect_fake(k, "");
	tdr_kallsyms__free(k);
	assert_int_equal(stat(e->cache_file, &st), 0);
	assert_int_equal(chmod(e->cache, 0777), 0);
	write_ks(e->ks, "_v2", false, false);
	warn_cnt = 0;
	k = new_ks(e, BOOT_A, false);
	expect_fake(k, "_v2");
	tdr_kallsyms__free(k);
	assert_int_equal(warn_cnt, 1);
	assert_non_null(strstr(warned, "writable by group or others"));
	assert_int_equal(chmod(e->cache, 0700), 0);
	k = new_ks(e, BOOT_A, false);
	expect_fake(k, ""); /* the old cache, never rewritten */
	tdr_kallsyms__free(k);

	/* Another user's (root can make one here). */
	if (geteuid() == 0) {
		assert_int_equal(chown(e->cache, 65534, 65534), 0);
		warn_cnt = 0;
		k = new_ks(e, BOOT_A, false);
		expect_fake(k, "_v2");
		tdr_kallsyms__free(k);
		assert_non_null(strstr(warned, "another user's"));
	}
	tdr_log_set_sink(NULL);
}

/* A perf.data recording's placement check (_text at the recorded address)
 * works on a table mapped from the cache. */
static void test_kallsyms__reference_symbol_from_cache(void **state)
{
	static const uint8_t bid[4] = {9, 8, 7, 6};
	static const uint32_t hdr[3] = {4, 4, 3 /* NT_GNU_BUILD_ID */};
	struct env *e = *state;
	char notes[600];
	struct tdr_kallsyms *k;
	struct tdr_symbolizer *s;
	struct tdr_sym y;
	FILE *f;

	snprintf(notes, sizeof(notes), "%s/notes", e->dir);
	f = fopen(notes, "w");
	assert_non_null(f);
	fwrite(hdr, sizeof(hdr), 1, f);
	fwrite("GNU", 4, 1, f);
	fwrite(bid, sizeof(bid), 1, f);
	fclose(f);
	fx_rmrf(e->cache);
	write_ks(e->ks, "", false, false);
	for (int pass = 0; pass < 2; pass++) {
		for (int good = 0; good < 2; good++) {
			struct tdr_symbolizer_opts o = {.kernel_notes_path = notes,
							.kernel_build_id = bid,
							.kernel_build_id_sz = sizeof(bid),
							.kernel_ref_sym = good ? "_stext" : "_text",
							.kernel_ref_addr =
							    good ? 0xffffffff81000000ull
								 : 0xffffffff82000000ull};

			k = new_ks(e, BOOT_A, false);
			o.kallsyms = k;
			assert_int_equal(tdr_symbolizer__new(&o, &s), 0);
			assert_int_equal(
			    tdr_symbolizer__lookup_kernel(s, 0xffffffff81000123ull, &y), 0);
			assert_int_equal(y.status, good ? TDR_SYM_OK : TDR_SYM_NO_KERNEL);
			tdr_symbolizer__free(s);
			tdr_kallsyms__free(k);
		}
		/* Second pass: from the cache only (the file is gone). */
		if (!pass)
			assert_int_equal(unlink(e->ks), 0);
	}
}

static void test_kallsyms__zero_addresses_never_cached(void **state)
{
	struct env *e = *state;
	struct tdr_kallsyms *k;
	struct tdr_symbolizer *s;
	struct tdr_sym y;
	struct stat st;

	fx_rmrf(e->cache);
	write_text(e->ks, "0000000000000000 T _text\n0000000000000000 T schedule\n");
	warn_cnt = 0;
	tdr_log_set_sink(keep_sink);
	k = new_ks(e, BOOT_A, true);
	s = sym_on(k);
	assert_int_equal(tdr_symbolizer__lookup_kernel(s, 0xffffffff81000123ull, &y), 0);
	assert_int_equal(y.status, TDR_SYM_NO_KERNEL);
	tdr_symbolizer__free(s);
	tdr_kallsyms__free(k);
	tdr_log_set_sink(NULL);
	assert_int_equal(warn_cnt, 1);
	assert_non_null(strstr(warned, "show no addresses"));
	assert_int_equal(stat(e->cache_file, &st), -1);
	assert_int_equal(errno, ENOENT);
}

static void put_cache(const struct env *e, const unsigned char *b, size_t n, mode_t mode)
{
	FILE *f;

	unlink(e->cache_file);
	f = fopen(e->cache_file, "wb");
	assert_non_null(f);
	assert_int_equal(fwrite(b, 1, n, f), n);
	fclose(f);
	assert_int_equal(chmod(e->cache_file, mode), 0);
}

/* Load with the cache holding (b, n): any outcome but a crash for a damaged
 * body; with fallback, the names must be kallsyms' ("_v2"), and with
 * warning, one warning must name the cache file (a header that is sound but
 * for another boot or key is rebuilt silently). */
static void load_damaged(const struct env *e, const unsigned char *b, size_t n, mode_t mode,
			 bool fallback, bool warning)
{
	struct tdr_kallsyms *k;
	struct tdr_symbolizer *s;
	struct tdr_sym y;

	put_cache(e, b, n, mode);
	warn_cnt = 0;
	k = new_ks(e, BOOT_A, false);
	if (fallback) {
		expect_fake(k, "_v2");
		if (warning) {
			assert_int_equal(warn_cnt, 1);
			assert_non_null(strstr(warned, e->cache_file));
		}
	} else {
		s = sym_on(k);
		for (uint64_t ip = 0xffffffff80fffff0ull; ip < 0xffffffff81000500ull; ip += 0x40) {
			assert_int_equal(tdr_symbolizer__lookup_kernel(s, ip, &y), 0);
			assert_true(y.status == TDR_SYM_OK || y.status == TDR_SYM_NO_SYMBOL);
			if (y.status == TDR_SYM_OK)
				assert_true(strlen(y.function) < 4096);
		}
		tdr_symbolizer__free(s);
	}
	tdr_kallsyms__free(k);
}

static void test_kallsyms__damaged_cache_never_crashes(void **state)
{
	struct env *e = *state;
	struct tdr_kallsyms *k;
	unsigned char *good, *bad;
	size_t n;

	fx_rmrf(e->cache);
	write_ks(e->ks, "", false, false);
	k = new_ks(e, BOOT_A, false);
	expect_fake(k, "");
	tdr_kallsyms__free(k);
	good = fx_read_file(e->cache_file, &n);
	assert_non_null(good);
	assert_true(n > HDR_SZ);
	/* From here on kallsyms name differently: a fallback shows. */
	write_ks(e->ks, "_v2", false, false);
	tdr_log_set_sink(keep_sink);
	for (size_t cut = 0; cut < n; cut++)
		load_damaged(e, good, cut, 0600, true, true);
	bad = malloc(n);
	for (size_t at = 0; at < n; at++) {
		/* Header bytes are all checked but the reference addresses
		 * (offsets 40-55), which this report does not use. */
		bool checked = at < HDR_SZ && !(at >= 40 && at < 56);

		memcpy(bad, good, n);
		bad[at] ^= 0xff;
		load_damaged(e, bad, n, 0600, checked, false);
	}
	/* Writable by others: not trusted. */
	load_damaged(e, good, n, 0622, true, true);
	tdr_log_set_sink(NULL);
	free(bad);
	free(good);
}

static void test_kallsyms__started_and_freed_at_once(void **state)
{
	struct env *e = *state;
	FILE *f = fopen(e->ks, "w");

	/* Big enough that the helper is still reading when freed. */
	assert_non_null(f);
	for (unsigned i = 0; i < 200000; i++)
		fprintf(f, "%016llx T fn_%u\n", 0xffffffff81000000ull + 16ull * i, i);
	fclose(f);
	fx_rmrf(e->cache);
	for (int i = 0; i < 20; i++) {
		struct tdr_kallsyms *k = new_ks(e, BOOT_A, true);

		tdr_kallsyms__free(k);
	}
}

/* A table with many long names, from the cache (whose names kernel.c reads
 * from the file into its pool, chunk by chunk): every name right, and a
 * second lookup in the same function gives the same pointer. */
static void test_kallsyms__many_names_from_cache(void **state)
{
	enum { CNT = 3000 };
	struct env *e = *state;
	const char *first[CNT];
	struct tdr_symbolizer *s;
	struct tdr_kallsyms *k;
	char want[128];
	FILE *f;

	fx_rmrf(e->cache);
	f = fopen(e->ks, "w");
	assert_non_null(f);
	for (int i = 0; i < CNT; i++)
		fprintf(f, "%016llx T a_rather_long_kernel_function_name_number_%05d\n",
			0xffffffff81000000ull + 0x100ull * (unsigned)i, i);
	fclose(f);
	k = new_ks(e, BOOT_A, true);
	s = sym_on(k);
	expect(s, 0xffffffff81000000ull, "a_rather_long_kernel_function_name_number_00000", "", 0);
	tdr_symbolizer__free(s);
	tdr_kallsyms__free(k);		    /* waits for the cache write */
	assert_int_equal(unlink(e->ks), 0); /* from now on, the cache only */
	for (int pass = 0; pass < 2; pass++) {
		k = new_ks(e, BOOT_A, pass == 0);
		s = sym_on(k);
		for (int round = 0; round < 2; round++) {
			for (int i = CNT - 1; i >= 0; i--) {
				struct tdr_sym y;

				assert_int_equal(
				    tdr_symbolizer__lookup_kernel(s,
								  0xffffffff81000000ull +
								      0x100ull * (unsigned)i +
								      0x10u * (unsigned)round,
								  &y),
				    0);
				assert_int_equal(y.status, TDR_SYM_OK);
				snprintf(want, sizeof(want),
					 "a_rather_long_kernel_function_name_number_%05d", i);
				assert_string_equal(y.function, want);
				if (round == 0)
					first[i] = y.function;
				else
					assert_ptr_equal(y.function, first[i]);
			}
		}
		tdr_symbolizer__free(s);
		tdr_kallsyms__free(k);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_kallsyms__order_and_odd_lines_do_not_matter),
	    cmocka_unit_test(test_kallsyms__cache_used_until_boot_or_modules_change),
	    cmocka_unit_test(test_kallsyms__reference_symbol_from_cache),
	    cmocka_unit_test(test_kallsyms__zero_addresses_never_cached),
	    cmocka_unit_test(test_kallsyms__damaged_cache_never_crashes),
	    cmocka_unit_test(test_kallsyms__started_and_freed_at_once),
	    cmocka_unit_test(test_kallsyms__untrusted_cache_directory),
	    cmocka_unit_test(test_kallsyms__many_names_from_cache),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
