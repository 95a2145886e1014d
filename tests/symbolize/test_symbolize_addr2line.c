/*
 * tests/symbolize/test_symbolize_addr2line.c - tdrec's symbolizer against
 * eu-addr2line on programs built in the test.
 *
 * Each test compiles tests/symbolize/fixtures (a PIE and a shared library,
 * -O2 with always-inline helpers two levels deep, static functions, .cold and
 * .constprop clones) with one compiler and DWARF version, takes every 4th
 * instruction (objdump) of every sized function (libelf symtab) in .text,
 * converts each vaddr to a file offset with libelf (as a sampled ip arrives:
 * an offset into the file), symbolizes it, and requires the same frames as
 * `eu-addr2line -a -f -i -C --relative` prints for that vaddr: the innermost
 * function and the leaf file:line:col, then each outer function with the
 * call site of the frame inside it. File names are compared as full strings
 * exactly as libdw composes them (--relative stops eu-addr2line from
 * prefixing DW_AT_comp_dir a second time). Where eu-addr2line computes its
 * inline chain at another address (see fx_frames_match), only the part it
 * printed for the address itself is compared. The physical function is compared
 * without ELF clone suffixes (tdrec shows "fx_checked.cold", eu-addr2line the
 * DWARF name "fx_checked").
 * Also: two objects with the same DWARF layout (DIEs at the same offsets
 * naming other functions) in one symbolizer, clang output without
 * .debug_aranges, split DWARF, lld layouts where file offset
 * != vaddr, stripped copies (dynsym only), separate debug files found by
 * .gnu_debuglink, debuginfod never contacted, build-id checks, glibc
 * through /usr/lib/debug/.build-id when libc6-dbg is installed, and objects
 * and debug files with compressed DWARF (-gz, objcopy
 * --compress-debug-sections).
 * Run with --cache (ctest test_symbolize_addr2line_cached), every
 * comparison runs twice with a debug file cache in the test's directory:
 * the first symbolizer writes the uncompressed copies, the second reads
 * them, and both must give eu-addr2line's answers; where DWARF is
 * compressed the copy must exist. Every comparison also runs with a
 * symbolizer told of every other function's addresses beforehand
 * (tdr_symbolizer__expect), which lists the others' inline instances on
 * their first lookup (deferred_listed, symbolize_int.h).
 */
#include <arpa/inet.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cmocka.h>

#include "sym_fixture.h"
#include "symbolize_int.h"
#include "tdrec/symbolize.h"

struct env {
	char *dir;
};

/* The debug file cache directory (--cache), NULL without. */
static char *cache_dir;
static bool use_cache;

/* What one comparison saw, so tests can check it was not vacuous. */
struct cmp_stats {
	size_t addrs, max_depth, off_ne_vaddr, with_line, partial;
};

static int setup(void **state)
{
	struct env *e = calloc(1, sizeof(*e));

	if (!fx_have("eu-addr2line") || !fx_have("objdump")) {
		fprintf(stderr, "eu-addr2line or objdump missing: apt-get install elfutils "
				"binutils\n");
		return -1;
	}
	e->dir = fx_tmpdir();
	*state = e;
	if (e->dir && use_cache && asprintf(&cache_dir, "%s/cache", e->dir) < 0)
		return -1;
	return e->dir ? 0 : -1;
}

static int teardown(void **state)
{
	struct env *e = *state;

	if (!getenv("TDR_KEEP_TMP"))
		fx_rmrf(e->dir);
	free(e->dir);
	free(e);
	free(cache_dir);
	cache_dir = NULL;
	return 0;
}

/* Build libfx.so and fx_main into dir/name. Returns the directory. */
static char *build(const struct env *e, const char *name, const char *cc, const char *flags)
{
	const char *src = fx_src_dir();
	char *out = NULL;

	assert_true(asprintf(&out, "%s/%s", e->dir, name) > 0);
	assert_int_equal(fx_sh("mkdir -p '%s'", out), 0);
	assert_int_equal(fx_sh("cd '%s' && %s -O2 %s -fPIC -shared -o libfx.so '%s/fx_lib.c' "
			       "&& %s -O2 %s -o fx_main '%s/fx_main.c' -L. -lfx",
			       out, cc, flags, src, cc, flags, src),
			 0);
	return out;
}

/*
 * glibc's names, see test_addr2line__libc_debug_by_build_id: eu-addr2line
 * prints DW_AT_linkage_name, which for glibc's hidden aliases is the asm
 * name "__GI_x" of the C function x that tdrec shows; and any ELF alias is
 * accepted for the physical function.
 */
static void glibc_normalise(struct fx_frames *want, struct fx_frames *got, bool have_function)
{
	for (size_t k = 0; k < want->n; k++)
		if (!strncmp(want->name[k], "__GI_", 5))
			memmove(want->name[k], want->name[k] + 5, strlen(want->name[k] + 5) + 1);
	/* The physical function as eu-addr2line named it for the address. */
	if (have_function)
		strcpy(got->name[got->n - 1],
		       want->first_inlined ? want->name[want->n - 1] : want->name[0]);
}

/* First index of sorted v[0..n) that is >= x. */
static size_t lower_bound(const uint64_t *v, size_t n, uint64_t x)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (v[mid] < x)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/*
 * Symbolize the chosen addresses of ref_path's functions in path (the same
 * code, possibly stripped or without aranges) and compare each with
 * eu-addr2line on ref_path. Function symbols come from sym_path (NULL: from
 * ref_path); only functions whose name passes keep (NULL: all) are used.
 */
static struct cmp_stats compare_syms(const char *path, const char *ref_path, const char *sym_path,
				     bool (*keep)(const char *name), bool glibc_names)
{
	struct tdr_symbolizer_opts o = { .want_lines = true, .want_inlines = true };
	struct tdr_dso_ref ref = { .path = path };
	struct fx_frames *want, got;
	struct tdr_symbolizer *s;
	struct fx_func *funcs;
	uint64_t *insns, *addrs;
	struct cmp_stats st = { 0 };
	int nf = fx_elf_funcs(sym_path ? sym_path : ref_path, &funcs);
	int ni = fx_insn_addrs(ref_path, &insns);
	size_t cnt = 0, bad = 0, hinted = 0, deferred_listed = 0, unhinted_inlined = 0;
	uint64_t *hint;
	bool *in_even_func;
	int passes;

	assert_true(nf > 0);
	assert_true(ni > 0);
	addrs = calloc((size_t)ni, sizeof(*addrs));
	in_even_func = calloc((size_t)ni, sizeof(*in_even_func));
	hint = calloc((size_t)ni, sizeof(*hint));
	for (int f = 0, kept = 0; f < nf; f++) {
		size_t k = 0;

		if (keep && !keep(funcs[f].name))
			continue;
		/* objdump lists instructions in address order. */
		for (size_t i = lower_bound(insns, (size_t)ni, funcs[f].lo);
		     i < (size_t)ni && insns[i] < funcs[f].lo + funcs[f].size; i++)
			if (k++ % 4 == 0 && cnt < (size_t)ni) {
				in_even_func[cnt] = kept % 2 == 0;
				addrs[cnt++] = insns[i];
			}
		kept++;
	}
	assert_true(cnt > 0);
	want = calloc(cnt, sizeof(*want));
	assert_int_equal(fx_eu_addr2line(ref_path, addrs, cnt, want), (int)cnt);

	/* With the cache: a first symbolizer writes the copies, a second one
	 * reads them; both are compared. Then one told beforehand
	 * (tdr_symbolizer__expect) of the addresses of every other function
	 * only: the others' inline instances are listed on their first
	 * lookup, with the same answers. */
	o.cache_dir = cache_dir;
	passes = (cache_dir ? 2 : 1) + 1;
	for (int pass = 0; pass < passes; pass++) {
		memset(&st, 0, sizeof(st));
		assert_int_equal(tdr_symbolizer__new(&o, &s), 0);
		if (pass == passes - 1) {
			for (size_t i = 0; i < cnt; i++)
				if (in_even_func[i])
					assert_true(fx_vaddr_to_off(path, addrs[i], &hint[hinted++]));
			/* In two calls, the later addresses first. */
			assert_int_equal(tdr_symbolizer__expect(s, &ref, hint + hinted / 2,
								hinted - hinted / 2),
					 0);
			assert_int_equal(tdr_symbolizer__expect(s, &ref, hint, hinted / 2), 0);
		}
		for (size_t i = 0; i < cnt; i++) {
			struct tdr_sym y;
			bool partial;
			uint64_t off;

			assert_true(fx_vaddr_to_off(path, addrs[i], &off));
			if (off != addrs[i])
				st.off_ne_vaddr++;
			assert_int_equal(tdr_symbolizer__lookup(s, &ref, off, &y), 0);
			fx_from_sym(&y, &got);
			if (glibc_names)
				glibc_normalise(&want[i], &got, y.status == TDR_SYM_OK);
			if (y.inline_cnt > st.max_depth)
				st.max_depth = y.inline_cnt;
			if (y.inline_cnt && !in_even_func[i])
				unhinted_inlined++;
			if (y.file)
				st.with_line++;
			if (!fx_frames_match(&want[i], &got, &partial) && bad++ < 10)
				fx_print_diff(addrs[i], &want[i], &got);
			st.partial += partial;
		}
		if (pass == passes - 1)
			deferred_listed = s->deferred_listed;
		else
			unhinted_inlined = 0;
		tdr_symbolizer__free(s);
	}
	st.addrs = cnt;
	fprintf(stderr,
		"%s: %zu addresses, %zu differ, %zu compared partly, inline depth up to %zu%s; "
		"told of %zu beforehand, inlines of %zu functions listed on lookup\n",
		path, cnt, bad, st.partial, st.max_depth,
		cache_dir ? " (twice: debug file cache written, then read)" : "", hinted,
		deferred_listed);
	assert_int_equal(bad, 0);
	/* The eu-addr2line quirk is an exception, not the rule. */
	assert_true(st.partial * 10 <= cnt);
	/* Functions with inline instances were left to their lookup. */
	if (unhinted_inlined)
		assert_true(deferred_listed > 0);
	free(hint);
	free(in_even_func);
	free(want);
	free(addrs);
	free(insns);
	free(funcs);
	return st;
}

static struct cmp_stats compare(const char *path, const char *ref_path,
				bool (*keep)(const char *name))
{
	return compare_syms(path, ref_path, NULL, keep, false);
}

static char *join(const char *dir, const char *file)
{
	char *p = NULL;

	assert_true(asprintf(&p, "%s/%s", dir, file) > 0);
	return p;
}

/* Does path have compressed sections (SHF_COMPRESSED)? */
static bool compressed(const char *path)
{
	char *out = fx_sh_out("readelf -t -W '%s' 2>/dev/null | grep -c COMPRESSED; true", path);
	bool yes = out && atoi(out) > 0;

	free(out);
	return yes;
}

/* With the cache (--cache): is there a copy of path (by its build-id) in
 * it exactly when want? Without: nothing to check. */
static void expect_copy(const char *path, bool want)
{
	uint8_t bid[64];
	size_t n = fx_build_id(path, bid, sizeof(bid));
	char copy[1024];
	int o;

	if (!cache_dir)
		return;
	assert_true(n > 0);
	o = snprintf(copy, sizeof(copy), "%s/debug/", cache_dir);
	for (size_t i = 0; i < n; i++)
		o += snprintf(copy + o, sizeof(copy) - (size_t)o, "%02x", bid[i]);
	snprintf(copy + o, sizeof(copy) - (size_t)o, ".debug");
	if (want != (access(copy, R_OK) == 0))
		fail_msg("%s: a copy %s expected (%s)", path, want ? "is" : "is not", copy);
	/* The copy is an uncompressed ELF file with the same build-id. */
	if (want) {
		uint8_t cbid[64];

		assert_int_equal(fx_build_id(copy, cbid, sizeof(cbid)), n);
		assert_memory_equal(cbid, bid, n);
		assert_false(compressed(copy));
	}
}

/* Both binaries of a variant, requiring real inline chains to be compared. */
static void compare_variant(const char *dir)
{
	char *main_path = join(dir, "fx_main"), *lib_path = join(dir, "libfx.so");
	struct cmp_stats a = compare(main_path, main_path, NULL);
	struct cmp_stats b = compare(lib_path, lib_path, NULL);

	assert_true(a.max_depth >= 2); /* fx_step -> fx_mix inlined */
	assert_true(b.max_depth >= 2);
	assert_true(a.with_line > a.addrs / 2);
	assert_true(b.with_line > b.addrs / 2);
	free(main_path);
	free(lib_path);
}

static void test_addr2line__gcc_dwarf5(void **state)
{
	char *dir = build(*state, "gcc5", "gcc", "-g -gdwarf-5");
	char *main_path = join(dir, "fx_main");

	compare_variant(dir);
	expect_copy(main_path, false); /* nothing compressed: never copied */
	free(main_path);
	free(dir);
}

/* DWARF compressed in the objects themselves (-gz): the same answers, from
 * uncompressed copies with --cache. */
static void test_addr2line__gcc_compressed_dwarf(void **state)
{
	char *dir = build(*state, "gz", "gcc", "-g -gz=zlib");
	char *main_path = join(dir, "fx_main"), *lib_path = join(dir, "libfx.so");

	assert_true(compressed(main_path));
	compare_variant(dir);
	expect_copy(main_path, true);
	expect_copy(lib_path, true);
	free(main_path);
	free(lib_path);
	free(dir);
}

static void test_addr2line__gcc_dwarf4(void **state)
{
	char *dir = build(*state, "gcc4", "gcc", "-gdwarf-4");

	compare_variant(dir);
	free(dir);
}

/* eu-addr2line 0.188 finds clang's CUs only through .debug_aranges, which
 * clang emits only when asked (-gdwarf-aranges). */
static void test_addr2line__clang_dwarf5(void **state)
{
	char *dir;

	if (!fx_have("clang"))
		skip();
	dir = build(*state, "clang5", "clang", "-gdwarf-5 -gdwarf-aranges");
	compare_variant(dir);
	free(dir);
}

static void test_addr2line__clang_dwarf4(void **state)
{
	char *dir;

	if (!fx_have("clang"))
		skip();
	dir = build(*state, "clang4", "clang", "-gdwarf-4 -gdwarf-aranges");
	compare_variant(dir);
	free(dir);
}

/* tdrec builds its own CU table, so it needs no aranges: the binary without
 * them must give what eu-addr2line says for the same code with them. */
static void test_addr2line__clang_without_aranges(void **state)
{
	char *with, *without, *p1, *p2;
	struct fx_func *f1, *f2;
	int n1, n2;

	if (!fx_have("clang"))
		skip();
	with = build(*state, "clang-ar", "clang", "-gdwarf-5 -gdwarf-aranges");
	without = build(*state, "clang-noar", "clang", "-gdwarf-5");
	p1 = join(with, "fx_main");
	p2 = join(without, "fx_main");
	assert_int_equal(fx_sh("! readelf -S '%s' | grep -q debug_aranges", p2), 0);
	n1 = fx_elf_funcs(p1, &f1);
	n2 = fx_elf_funcs(p2, &f2);
	assert_int_equal(n1, n2);
	assert_memory_equal(f1, f2, (size_t)n1 * sizeof(*f1)); /* same code layout */
	compare(p2, p1, NULL);
	free(f1);
	free(f2);
	free(p1);
	free(p2);
	free(with);
	free(without);
}

/* Split DWARF (.dwo next to the objects, found through the skeleton units):
 * tdrec on it equals eu-addr2line on the same code built with plain -g
 * (eu-addr2line 0.188 shows no inline chains for split units). */
static void test_addr2line__split_dwarf(void **state)
{
	char *plain = build(*state, "split-ref", "gcc", "-g");
	char *split = build(*state, "split", "gcc", "-g -gsplit-dwarf");
	char *p1 = join(plain, "fx_main"), *p2 = join(split, "fx_main");
	struct fx_func *f1, *f2;
	int n1 = fx_elf_funcs(p1, &f1), n2 = fx_elf_funcs(p2, &f2);

	assert_int_equal(fx_sh("ls '%s'/*.dwo >/dev/null", split), 0);
	assert_int_equal(n1, n2);
	assert_memory_equal(f1, f2, (size_t)n1 * sizeof(*f1)); /* same code layout */
	assert_true(compare(p2, p1, NULL).max_depth >= 2);
	free(f1);
	free(f2);
	free(p1);
	free(p2);
	free(plain);
	free(split);
}

/* lld places text at a file offset different from its vaddr (gcc's default
 * ld keeps them equal), which exercises the PT_LOAD conversion. */
static void test_addr2line__lld_offsets_differ_from_vaddrs(void **state)
{
	char *dir, *m, *l;
	struct cmp_stats a, b;

	if (!fx_have("ld.lld"))
		skip();
	dir = build(*state, "gcc-lld", "gcc", "-g -fuse-ld=lld");
	m = join(dir, "fx_main");
	l = join(dir, "libfx.so");
	a = compare(m, m, NULL);
	b = compare(l, l, NULL);
	assert_int_equal(a.off_ne_vaddr, a.addrs);
	assert_int_equal(b.off_ne_vaddr, b.addrs);
	free(m);
	free(l);
	free(dir);
}

static void test_addr2line__cplusplus_names(void **state)
{
	struct env *e = *state;
	char *dir, *path;
	struct cmp_stats st;

	if (!fx_have("g++"))
		skip();
	dir = join(e->dir, "cpp");
	path = join(dir, "fx_cpp");
	assert_int_equal(fx_sh("mkdir -p '%s' && g++ -O2 -g -o '%s' '%s/fx_cpp.cc'", dir, path,
			       fx_src_dir()),
			 0);
	st = compare(path, path, NULL);
	assert_true(st.max_depth >= 1);
	free(path);
	free(dir);
}

static void test_addr2line__stripped_uses_dynsym(void **state)
{
	struct tdr_symbolizer_opts o = { .want_lines = true, .want_inlines = true };
	char *dir = build(*state, "strip", "gcc", "-g");
	char *lib = join(dir, "libfx.so"), *stripped = join(dir, "libfx-stripped.so");
	struct tdr_dso_ref ref = { .path = stripped };
	struct tdr_symbolizer *s;
	struct fx_func *funcs;
	int n = fx_elf_funcs(lib, &funcs), seen = 0;

	assert_int_equal(fx_sh("strip --strip-all -o '%s' '%s'", stripped, lib), 0);
	assert_int_equal(tdr_symbolizer__new(&o, &s), 0);
	for (int i = 0; i < n; i++) {
		struct tdr_sym y;
		uint64_t off;

		if (strcmp(funcs[i].name, "lib_work") && strcmp(funcs[i].name, "lib_accumulate"))
			continue;
		assert_true(fx_vaddr_to_off(lib, funcs[i].lo + 2, &off));
		assert_int_equal(tdr_symbolizer__lookup(s, &ref, off, &y), 0);
		if (!strcmp(funcs[i].name, "lib_work")) {
			/* exported: still in .dynsym */
			assert_int_equal(y.status, TDR_SYM_OK);
			assert_string_equal(y.function, "lib_work");
			assert_int_equal(y.function_offset, 2);
		} else {
			/* static: gone with .symtab */
			assert_int_equal(y.status, TDR_SYM_NO_SYMBOL);
			assert_null(y.function);
		}
		assert_null(y.file);
		assert_int_equal(y.inline_cnt, 0);
		seen++;
	}
	assert_int_equal(seen, 2);
	tdr_symbolizer__free(s);
	free(funcs);
	free(lib);
	free(stripped);
	free(dir);
}

/* DWARF moved to a separate file named by .gnu_debuglink, next to the
 * binary, in its .debug/ directory, and next to the target of a symlink:
 * same answers as the original. */
static void test_addr2line__debuglink(void **state)
{
	char *dir = build(*state, "dlink", "gcc", "-g");
	char *lib = join(dir, "libfx.so"), *main_path = join(dir, "fx_main");
	char *lib_dl = join(dir, "libfx-dl.so"), *main_dl = join(dir, "fx_main-dl");
	char *link = join(dir, "elsewhere/libfx-link.so");

	assert_int_equal(fx_sh("cd '%s' && objcopy --only-keep-debug libfx.so libfx.debug && "
			       "objcopy --strip-debug --add-gnu-debuglink=libfx.debug libfx.so "
			       "libfx-dl.so",
			       dir),
			 0);
	assert_int_equal(fx_sh("cd '%s' && mkdir -p .debug && objcopy --only-keep-debug fx_main "
			       ".debug/fx_main.debug && cd .debug && objcopy --strip-debug "
			       "--add-gnu-debuglink=fx_main.debug ../fx_main ../fx_main-dl",
			       dir),
			 0);
	assert_int_equal(fx_sh("cd '%s' && mkdir -p elsewhere && ln -sf ../libfx-dl.so "
			       "elsewhere/libfx-link.so",
			       dir),
			 0);
	assert_int_equal(fx_sh("! readelf -S '%s' | grep -q debug_info", lib_dl), 0);
	assert_true(compare(lib_dl, lib, NULL).max_depth >= 2);
	assert_true(compare(main_dl, main_path, NULL).max_depth >= 2);
	assert_true(compare(link, lib, NULL).max_depth >= 2);
	free(link);
	free(lib);
	free(main_path);
	free(lib_dl);
	free(main_dl);
	free(dir);
}

/* A compressed separate debug file found by .gnu_debuglink (as Debian
 * ships them): the same answers, from its uncompressed copy with --cache. */
static void test_addr2line__debuglink_compressed(void **state)
{
	char *dir = build(*state, "dlinkz", "gcc", "-g");
	char *lib = join(dir, "libfx.so"), *lib_dl = join(dir, "libfx-dl.so");
	char *dbg = join(dir, "libfx.debug");

	assert_int_equal(fx_sh("cd '%s' && objcopy --only-keep-debug "
			       "--compress-debug-sections=zlib libfx.so libfx.debug && "
			       "objcopy --strip-debug --add-gnu-debuglink=libfx.debug libfx.so "
			       "libfx-dl.so",
			       dir),
			 0);
	assert_true(compressed(dbg));
	assert_false(compressed(lib_dl));
	assert_true(compare(lib_dl, lib, NULL).max_depth >= 2);
	expect_copy(dbg, true);
	free(dbg);
	free(lib);
	free(lib_dl);
	free(dir);
}

/* An archiving symbolizer (opts.debuginfod) asks libdw's debuginfod client
 * for a debug file not found locally when DEBUGINFOD_URLS is set: a local
 * listener (no network) gets the connection; the answer is what the local
 * files give. Without DEBUGINFOD_URLS the same symbolizer answers the same
 * and contacts nothing. Skipped without libdebuginfod (libdw loads it). */
static void test_addr2line__debuginfod_asked_when_archiving(void **state)
{
	struct tdr_symbolizer_opts o = {.want_lines = true, .want_inlines = true,
					.debuginfod = true};
	struct sockaddr_in sa = {.sin_family = AF_INET};
	socklen_t sl = sizeof(sa);
	char *dir = build(*state, "dinfod-arch", "gcc", "-g");
	char *lib = join(dir, "libfx.so"), *stripped = join(dir, "libfx-nodebug.so");
	char url[64], *cache = join(dir, "cache");
	struct tdr_dso_ref ref = {.path = stripped};
	struct tdr_symbolizer *s;
	struct tdr_sym y, z;
	void *h;
	int ls, c;

	assert_int_equal(fx_sh("strip --strip-debug -o '%s' '%s'", stripped, lib), 0);
	/* Unset: nothing asked, the local answer; and libdebuginfod not even
	 * loaded (looked for before anything here loads it). */
	unsetenv("DEBUGINFOD_URLS");
	assert_int_equal(tdr_symbolizer__new(&o, &s), 0);
	assert_int_equal(tdr_symbolizer__lookup(s, &ref, 0x1000, &z), 0);
	tdr_symbolizer__free(s);
	assert_int_equal(fx_sh("! grep -q libdebuginfod /proc/%d/maps", (int)getpid()), 0);

	h = dlopen("libdebuginfod.so.1", RTLD_NOW);
	if (!h) {
		fprintf(stderr, "no libdebuginfod.so.1: skipped\n");
		free(cache);
		free(lib);
		free(stripped);
		free(dir);
		skip();
	}
	dlclose(h);

	ls = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
	assert_true(ls >= 0);
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	assert_int_equal(bind(ls, (struct sockaddr *)&sa, sizeof(sa)), 0);
	assert_int_equal(listen(ls, 8), 0);
	assert_int_equal(getsockname(ls, (struct sockaddr *)&sa, &sl), 0);
	snprintf(url, sizeof(url), "http://127.0.0.1:%u", ntohs(sa.sin_port));
	setenv("DEBUGINFOD_URLS", url, 1);
	setenv("DEBUGINFOD_TIMEOUT", "1", 1);
	setenv("DEBUGINFOD_CACHE_PATH", cache, 1);
	assert_int_equal(tdr_symbolizer__new(&o, &s), 0);
	assert_int_equal(tdr_symbolizer__lookup(s, &ref, 0x1000, &y), 0);
	unsetenv("DEBUGINFOD_URLS");
	unsetenv("DEBUGINFOD_TIMEOUT");
	unsetenv("DEBUGINFOD_CACHE_PATH");
	c = accept(ls, NULL, NULL);
	assert_true(c >= 0);
	close(c);
	close(ls);
	/* The server gave nothing: the same answer as without it. */
	assert_int_equal(y.status, z.status);
	if (z.function)
		assert_string_equal(y.function, z.function);
	assert_null(y.file);
	tdr_symbolizer__free(s);
	free(cache);
	free(lib);
	free(stripped);
	free(dir);
}

/* With DEBUGINFOD_URLS pointing at a local listener, resolving a binary
 * without local debug info must not connect to it. */
static void test_addr2line__debuginfod_never_contacted(void **state)
{
	struct tdr_symbolizer_opts o = { .want_lines = true, .want_inlines = true };
	struct sockaddr_in sa = { .sin_family = AF_INET };
	socklen_t sl = sizeof(sa);
	char *dir = build(*state, "dinfod", "gcc", "-g");
	char *lib = join(dir, "libfx.so"), *stripped = join(dir, "libfx-nodebug.so");
	char url[64], *cache = join(dir, "cache");
	struct tdr_dso_ref ref = { .path = stripped };
	struct tdr_symbolizer *s;
	struct tdr_sym y;
	int ls, c;

	assert_int_equal(fx_sh("strip --strip-debug -o '%s' '%s'", stripped, lib), 0);
	ls = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
	assert_true(ls >= 0);
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	assert_int_equal(bind(ls, (struct sockaddr *)&sa, sizeof(sa)), 0);
	assert_int_equal(listen(ls, 8), 0);
	assert_int_equal(getsockname(ls, (struct sockaddr *)&sa, &sl), 0);
	snprintf(url, sizeof(url), "http://127.0.0.1:%u", ntohs(sa.sin_port));
	setenv("DEBUGINFOD_URLS", url, 1);
	setenv("DEBUGINFOD_TIMEOUT", "2", 1);
	setenv("DEBUGINFOD_CACHE_PATH", cache, 1);

	assert_int_equal(tdr_symbolizer__new(&o, &s), 0);
	assert_int_equal(tdr_symbolizer__lookup(s, &ref, 0x1000, &y), 0);
	tdr_symbolizer__free(s);
	unsetenv("DEBUGINFOD_URLS");
	unsetenv("DEBUGINFOD_TIMEOUT");
	unsetenv("DEBUGINFOD_CACHE_PATH");

	c = accept(ls, NULL, NULL);
	assert_true(c < 0 && (errno == EAGAIN || errno == EWOULDBLOCK));
	close(ls);
	free(cache);
	free(lib);
	free(stripped);
	free(dir);
}

static void test_addr2line__build_id_none_vs_recorded(void **state)
{
	struct tdr_symbolizer_opts o = { .want_lines = true };
	char *dir = build(*state, "nobid", "gcc", "-g -Wl,--build-id=none");
	char *path = join(dir, "fx_main");
	uint8_t bid[20], recorded[20];
	struct tdr_dso_ref ref = { .path = path };
	struct tdr_symbolizer *s;
	struct fx_func *funcs;
	struct tdr_sym y;
	uint64_t off;
	int n = fx_elf_funcs(path, &funcs);

	assert_int_equal(fx_build_id(path, bid, sizeof(bid)), 0);
	assert_true(n > 0);
	assert_true(fx_vaddr_to_off(path, funcs[0].lo, &off));
	assert_int_equal(tdr_symbolizer__new(&o, &s), 0);
	/* Unknown recorded build-id: nothing to check, symbolized. */
	assert_int_equal(tdr_symbolizer__lookup(s, &ref, off, &y), 0);
	assert_int_equal(y.status, TDR_SYM_OK);
	/* Recorded one, file has none: not the recorded binary. */
	memset(recorded, 0x11, sizeof(recorded));
	ref.build_id = recorded;
	ref.build_id_sz = sizeof(recorded);
	assert_int_equal(tdr_symbolizer__lookup(s, &ref, off, &y), 0);
	assert_int_equal(y.status, TDR_SYM_CHANGED);
	tdr_symbolizer__free(s);
	free(funcs);
	free(path);
	free(dir);
}

/*
 * glibc: separate debug info through /usr/lib/debug/.build-id (libc6-dbg).
 * Its functions have many ELF aliases (modf, __modf, __GI___modf); tdrec
 * shows one ELF name and eu-addr2line the DWARF linkage name, so the
 * physical function's name is not compared here, and inline names are
 * compared without glibc's "__GI_" asm prefix (see glibc_normalise). All
 * places and the chain depth are compared as everywhere else.
 */
static bool libc_keep(const char *name)
{
	static int k;

	/* A sample of functions keeps the test fast: every 10th. */
	return name[0] != '_' && k++ % 10 == 0;
}

static void test_addr2line__libc_debug_by_build_id(void **state)
{
	const char *libc = "/lib/x86_64-linux-gnu/libc.so.6";
	uint8_t bid[64];
	size_t n = fx_build_id(libc, bid, sizeof(bid));
	struct cmp_stats st;
	char dbg[256];
	int o;

	(void)state;
	if (n < 2)
		skip();
	o = snprintf(dbg, sizeof(dbg), "/usr/lib/debug/.build-id/%02x/", bid[0]);
	for (size_t i = 1; i < n; i++)
		o += snprintf(dbg + o, sizeof(dbg) - (size_t)o, "%02x", bid[i]);
	snprintf(dbg + o, sizeof(dbg) - (size_t)o, ".debug");
	if (access(dbg, R_OK) != 0)
		skip(); /* libc6-dbg not installed */
	/* libc.so.6 itself has no .symtab: the function list comes from the
	 * debug file, the code and eu-addr2line's answers from libc.so.6. */
	st = compare_syms(libc, libc, dbg, libc_keep, true);
	assert_true(st.addrs > 100);
	assert_true(st.max_depth >= 2);
	expect_copy(dbg, compressed(dbg));
}

/*
 * Two objects built from one source (fixtures/fx_twin.c) with names that
 * differ in one letter: their DWARF has the same layout, so the same DIE
 * offsets name different functions. In copies without .symtab (the DWARF
 * kept), twin_outer, hidden and so not in .dynsym, is named by DWARF.
 * One symbolizer, its lookups alternating between the two copies, must
 * give each eu-addr2line's answer for it: what the symbolizer keeps per
 * subprogram and per inline instance (names, entries, frames) belongs to
 * one object, never to an offset.
 */
static void test_addr2line__same_dwarf_offsets_two_objects(void **state)
{
	const struct env *e = *state;
	const char *twin[2] = { "a", "b" };
	char *path[2];
	uint64_t *addrs[2], dinfo[2], dsize[2];
	struct fx_frames *want[2];
	struct tdr_symbolizer_opts o = { .want_lines = true, .want_inlines = true };
	struct tdr_symbolizer *s;
	size_t cnt[2] = { 0, 0 }, bad = 0, deep = 0, compared = 0;

	for (int t = 0; t < 2; t++) {
		struct fx_func *funcs;
		uint64_t *insns;
		int nf, ni;

		assert_true(asprintf(&path[t], "%s/libtwin_%s.so", e->dir, twin[t]) > 0);
		assert_int_equal(fx_sh("cd '%s' && gcc -O2 -g -fPIC -shared -DTWIN=%s -o full_%s.so "
				       "'%s/fx_twin.c' && strip --strip-all --keep-section='.debug_*' "
				       "full_%s.so -o '%s'",
				       e->dir, twin[t], twin[t], fx_src_dir(), twin[t], path[t]),
				 0);
		assert_true(fx_elf_section(path[t], ".debug_info", &dinfo[t], &dsize[t]));
		/* The functions' addresses from the full build. */
		{
			char *full = NULL;

			assert_true(asprintf(&full, "%s/full_%s.so", e->dir, twin[t]) > 0);
			nf = fx_elf_funcs(full, &funcs);
			free(full);
		}
		ni = fx_insn_addrs(path[t], &insns);
		assert_true(nf > 0 && ni > 0);
		addrs[t] = calloc((size_t)ni, sizeof(*addrs[t]));
		for (int f = 0; f < nf; f++) {
			if (strncmp(funcs[f].name, "twin_outer_", 11))
				continue;
			for (size_t i = lower_bound(insns, (size_t)ni, funcs[f].lo);
			     i < (size_t)ni && insns[i] < funcs[f].lo + funcs[f].size; i++)
				addrs[t][cnt[t]++] = insns[i];
		}
		assert_true(cnt[t] > 0);
		want[t] = calloc(cnt[t], sizeof(*want[t]));
		assert_int_equal(fx_eu_addr2line(path[t], addrs[t], cnt[t], want[t]),
				 (int)cnt[t]);
		free(insns);
		free(funcs);
	}
	/* The premise: the same layout (same code, same DWARF size). */
	assert_int_equal(dsize[0], dsize[1]);
	assert_int_equal(cnt[0], cnt[1]);
	assert_memory_equal(addrs[0], addrs[1], cnt[0] * sizeof(*addrs[0]));

	assert_int_equal(tdr_symbolizer__new(&o, &s), 0);
	/* Each address of one object, then the same offset in the other: the
	 * second is answered after the first one's subprogram and inline
	 * instances were read and kept. */
	for (size_t i = 0; i < cnt[0]; i++) {
		for (int t = 0; t < 2; t++) {
			struct tdr_dso_ref ref = { .path = path[t] };
			struct fx_frames got;
			struct tdr_sym y;
			bool partial;
			uint64_t off;

			assert_true(fx_vaddr_to_off(path[t], addrs[t][i], &off));
			assert_int_equal(tdr_symbolizer__lookup(s, &ref, off, &y), 0);
			assert_int_equal(y.status, TDR_SYM_OK);
			/* Each object's own names, at every level. */
			assert_non_null(strstr(y.function, t ? "_b" : "_a"));
			for (size_t k = 0; k < y.inline_cnt; k++)
				assert_non_null(strstr(y.inlines[k].function, t ? "_b" : "_a"));
			deep += y.inline_cnt >= 2;
			fx_from_sym(&y, &got);
			if (!fx_frames_match(&want[t][i], &got, &partial) && bad++ < 10)
				fx_print_diff(addrs[t][i], &want[t][i], &got);
			compared++;
		}
	}
	tdr_symbolizer__free(s);
	fprintf(stderr, "twins: %zu addresses compared, %zu differ, %zu with 2+ inlines\n",
		compared, bad, deep);
	assert_int_equal(bad, 0);
	assert_true(deep > 0);
	for (int t = 0; t < 2; t++) {
		free(want[t]);
		free(addrs[t]);
		free(path[t]);
	}
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_addr2line__gcc_dwarf5),
		cmocka_unit_test(test_addr2line__gcc_dwarf4),
		cmocka_unit_test(test_addr2line__gcc_compressed_dwarf),
		cmocka_unit_test(test_addr2line__clang_dwarf5),
		cmocka_unit_test(test_addr2line__clang_dwarf4),
		cmocka_unit_test(test_addr2line__clang_without_aranges),
		cmocka_unit_test(test_addr2line__split_dwarf),
		cmocka_unit_test(test_addr2line__lld_offsets_differ_from_vaddrs),
		cmocka_unit_test(test_addr2line__cplusplus_names),
		cmocka_unit_test(test_addr2line__stripped_uses_dynsym),
		cmocka_unit_test(test_addr2line__debuglink),
		cmocka_unit_test(test_addr2line__debuglink_compressed),
		cmocka_unit_test(test_addr2line__debuginfod_never_contacted),
		cmocka_unit_test(test_addr2line__debuginfod_asked_when_archiving),
		cmocka_unit_test(test_addr2line__build_id_none_vs_recorded),
		cmocka_unit_test(test_addr2line__libc_debug_by_build_id),
		cmocka_unit_test(test_addr2line__same_dwarf_offsets_two_objects),
	};

	use_cache = argc > 1 && !strcmp(argv[1], "--cache");
	return cmocka_run_group_tests(tests, setup, teardown);
}
