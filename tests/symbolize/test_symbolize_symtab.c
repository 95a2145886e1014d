/*
 * tests/symbolize/test_symbolize_symtab.c - naming functions without DWARF.
 *
 * The function report (no lines, no inlines) must name functions from the
 * symbol tables alone and must not open DWARF where they answer: libdw
 * inflates every compressed .debug_* section of an object when it opens its
 * DWARF, and Debian's separate debug files are zlib-compressed (libc's is
 * ~25 MB inflated). DWARF opens are counted through the symbolizer's
 * dwarf_open_cnt (symbolize_int.h). Every name is compared with what
 * `eu-addr2line -f` prints (the physical function) and every name+offset
 * with `eu-addr2line -S` (symbol+offset), on the same file.
 * Covers: a stripped library whose separate debug file (.gnu_debuglink)
 * holds the only .symtab: a static C function, assembly labels without type
 * or size (before, inside and after a sized function); with lines wanted,
 * DWARF is opened once. When libc6-dbg is installed, the system's libc
 * (static functions only in the debug file's .symtab) and ld.so (_start and
 * _dl_start_user, labels of its debug file's .symtab: the start-up code
 * every profile has samples in). PLT stubs, which eu-addr2line does not
 * name, are compared with objdump's "<name@plt>" labels instead: a stripped
 * library, programs with lazy, IBT (.plt.sec) and .plt.got stubs, C++, and
 * libc and ld.so; none opens DWARF.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <gelf.h>

#include "sym_fixture.h"
#include "symbolize_int.h"
#include "tdrec/symbolize.h"

#define LIBC_PATH "/lib/x86_64-linux-gnu/libc.so.6"
#define LDSO_PATH "/lib64/ld-linux-x86-64.so.2"
#define NAME_SZ 256

struct env {
	char *dir;
};

static int setup(void **state)
{
	struct env *e = calloc(1, sizeof(*e));

	if (!fx_have("eu-addr2line") || !fx_have("objcopy")) {
		fprintf(stderr, "eu-addr2line or objcopy missing: apt-get install elfutils "
				"binutils\n");
		free(e);
		return -1;
	}
	e->dir = fx_tmpdir();
	*state = e;
	return e->dir ? 0 : -1;
}

static int teardown(void **state)
{
	struct env *e = *state;

	if (!getenv("TDR_KEEP_TMP"))
		fx_rmrf(e->dir);
	free(e->dir);
	free(e);
	return 0;
}

/* The debug file of path in /usr/lib/debug/.build-id, or false. */
static bool debug_file_of(const char *path, char *buf, size_t cap)
{
	uint8_t bid[64];
	size_t n = fx_build_id(path, bid, sizeof(bid));
	int o;

	if (n < 2)
		return false;
	o = snprintf(buf, cap, "/usr/lib/debug/.build-id/%02x/", bid[0]);
	for (size_t i = 1; i < n; i++)
		o += snprintf(buf + o, cap - (size_t)o, "%02x", bid[i]);
	snprintf(buf + o, cap - (size_t)o, ".debug");
	return access(buf, R_OK) == 0;
}

/* The value of the symbol called name in syms, or 0. */
static uint64_t sym_value(const struct fx_sym *syms, int n, const char *name)
{
	for (int i = 0; i < n; i++)
		if (!strcmp(syms[i].name, name))
			return syms[i].value;
	return 0;
}

/*
 * eu-addr2line on path for n vaddrs: fn[i] is the physical function of -f
 * ("g" of "f inlined at PLACE in g"), symoff[i] the symbol+offset of -S;
 * "??" where there is none.
 */
static void eu_names(const char *path, const uint64_t *va, size_t n, char (*fn)[NAME_SZ],
		     char (*symoff)[NAME_SZ])
{
	for (int pass = 0; pass < 2; pass++) {
		char *cmd = NULL, *out, *line, *save = NULL;
		size_t len = 0, k = 0, lno = 0;
		FILE *f = open_memstream(&cmd, &len);

		fprintf(f, "eu-addr2line %s -e '%s'", pass ? "-S" : "-f", path);
		for (size_t i = 0; i < n; i++)
			fprintf(f, " 0x%llx", (unsigned long long)va[i]);
		fclose(f);
		out = fx_sh_out("%s", cmd);
		assert_non_null(out);
		/* Two lines per address: the name, then the place. */
		for (line = strtok_r(out, "\n", &save); line && k < n;
		     line = strtok_r(NULL, "\n", &save), lno++) {
			char *dst = pass ? symoff[k] : fn[k];
			const char *in = strstr(line, " in ");

			if (lno % 2)
				continue;
			if (!pass && strstr(line, " inlined at ") && in)
				line = (char *)in + 4;
			if (!strncmp(line, "()+", 3) || !strncmp(line, "??", 2))
				line = "??";
			snprintf(dst, NAME_SZ, "%s", line);
			k++;
		}
		assert_int_equal(k, n);
		free(out);
		free(cmd);
	}
}

/*
 * Look up n vaddrs of path (converted to file offsets, as samples arrive)
 * and require tdrec's function+offset to equal eu-addr2line -S and its
 * function to equal eu-addr2line -f; want (optional) gives the expected
 * symbol+offset strings. Returns how many addresses had a function.
 */
static size_t check_names(struct tdr_symbolizer *s, const char *path, const uint64_t *va,
			  size_t n, const char *const *want)
{
	struct tdr_dso_ref ref = { .path = path };
	char (*fn)[NAME_SZ] = calloc(n, NAME_SZ), (*so)[NAME_SZ] = calloc(n, NAME_SZ);
	size_t named = 0, bad = 0;

	eu_names(path, va, n, fn, so);
	for (size_t i = 0; i < n; i++) {
		char got[NAME_SZ];
		struct tdr_sym y;
		uint64_t off;

		assert_true(fx_vaddr_to_off(path, va[i], &off));
		assert_int_equal(tdr_symbolizer__lookup(s, &ref, off, &y), 0);
		if (y.status == TDR_SYM_OK && y.function_offset)
			snprintf(got, sizeof(got), "%s+0x%llx", y.function,
				 (unsigned long long)y.function_offset);
		else
			snprintf(got, sizeof(got), "%s", y.status == TDR_SYM_OK ? y.function : "??");
		named += y.status == TDR_SYM_OK;
		if (strcmp(got, so[i]) || strcmp(y.function ? y.function : "??", fn[i]) ||
		    (want && strcmp(got, want[i]))) {
			fprintf(stderr, "%s 0x%llx: tdrec %s, eu-addr2line -S %s, -f %s%s%s\n", path,
				(unsigned long long)va[i], got, so[i], fn[i], want ? ", want " : "",
				want ? want[i] : "");
			bad++;
		}
		/* No lines, no inlines: nothing that needs DWARF is returned. */
		assert_null(y.file);
		assert_int_equal(y.inline_cnt, 0);
	}
	free(fn);
	free(so);
	assert_int_equal(bad, 0);
	return named;
}

static void test_symtab__labels_from_debug_file(void **state)
{
#if !defined(__x86_64__)
	skip(); /* the fixture is x86-64 assembly */
#endif
	struct env *e = *state;
	struct tdr_symbolizer_opts o = { 0 };
	struct tdr_dso_ref ref;
	struct tdr_symbolizer *s;
	struct fx_sym *syms = NULL, *none = NULL;
	char *lib = NULL, *dbg = NULL;
	uint64_t va[5], off;
	struct tdr_sym y;
	int n;

	assert_true(asprintf(&lib, "%s/libfxl-s.so", e->dir) > 0);
	assert_true(asprintf(&dbg, "%s/libfxl.debug", e->dir) > 0);
	assert_int_equal(fx_sh("cd '%s' && gcc -O2 -g -fPIC -shared -o libfxl.so '%s/fx_labels.S' "
			       "'%s/fx_labels_c.c' && objcopy --only-keep-debug libfxl.so "
			       "libfxl.debug && objcopy --strip-all --add-gnu-debuglink=libfxl.debug "
			       "libfxl.so libfxl-s.so",
			       e->dir, fx_src_dir(), fx_src_dir()),
			 0);
	/* The stripped file has no .symtab; the debug file has every symbol. */
	assert_int_equal(fx_elf_syms(lib, SHT_SYMTAB, &none), 0);
	n = fx_elf_syms(dbg, SHT_SYMTAB, &syms);
	assert_true(n > 0);

	/* Labels: before, inside (named by the sized function) and after a
	 * sized function; a static C function. */
	va[0] = sym_value(syms, n, "fx_label_entry") + 2;
	va[1] = sym_value(syms, n, "fx_label_next") + 2;
	va[2] = sym_value(syms, n, "fx_label_inside") + 2;
	va[3] = sym_value(syms, n, "fx_label_after") + 2;
	va[4] = sym_value(syms, n, "fx_labels_static") + 0x10;
	for (size_t i = 0; i < 5; i++)
		assert_true(va[i] > 0x10);
	{
		char inside[64];
		const char *want[5] = { "fx_label_entry+0x2", "fx_label_next+0x2", inside,
					"fx_label_after+0x2", "fx_labels_static+0x10" };

		snprintf(inside, sizeof(inside), "fx_label_sized+0x%llx",
			 (unsigned long long)(va[2] - sym_value(syms, n, "fx_label_sized")));
		assert_int_equal(tdr_symbolizer__new(&o, &s), 0);
		assert_int_equal(check_names(s, lib, va, 5, want), 5);
	}
	/* All of it from the debug file's .symtab: its DWARF never opened. */
	assert_int_equal(s->dwarf_open_cnt, 0);
	tdr_symbolizer__free(s);

	/* The counter is live: a line needs DWARF, opened once per object. */
	o.want_lines = true;
	ref = (struct tdr_dso_ref){ .path = lib };
	assert_int_equal(tdr_symbolizer__new(&o, &s), 0);
	for (int k = 0; k < 2; k++) {
		assert_true(fx_vaddr_to_off(lib, va[4] + (uint64_t)k, &off));
		assert_int_equal(tdr_symbolizer__lookup(s, &ref, off, &y), 0);
		assert_int_equal(y.status, TDR_SYM_OK);
		assert_string_equal(y.function, "fx_labels_static");
		assert_non_null(y.file);
		assert_non_null(strstr(y.file, "fx_labels_c.c"));
	}
	assert_int_equal(s->dwarf_open_cnt, 1);
	tdr_symbolizer__free(s);
	free(none);
	free(syms);
	free(lib);
	free(dbg);
}

/*
 * Many functions with ELF aliases at their addresses: a symbol table big
 * enough that its sort takes several address digits, and in it the alias
 * rule (global over weak, fewer leading underscores, shorter, then by
 * name) picks each function's name. Function k: f_k, the weak alias w_k
 * and the global __g_k always; e_k (same length, first by name) when k is
 * even; the longer ff_k when k is a multiple of 3. And one function with
 * 26 names.
 */
static void test_symtab__aliases_in_a_large_table(void **state)
{
	enum { FUNCS = 300 };
	struct env *e = *state;
	struct tdr_symbolizer_opts o = { 0 };
	struct tdr_dso_ref ref;
	struct tdr_symbolizer *s;
	struct fx_sym *syms = NULL;
	char *src = NULL, *lib = NULL;
	FILE *f;
	int n;

	assert_true(asprintf(&src, "%s/fx_alias.c", e->dir) > 0);
	assert_true(asprintf(&lib, "%s/libfxa.so", e->dir) > 0);
	f = fopen(src, "w");
	assert_non_null(f);
	fprintf(f, "volatile int fx_sink;\n");
	for (int k = 0; k < FUNCS; k++) {
		fprintf(f, "void f_%d(void) { fx_sink += %d; }\n", k, k);
		fprintf(f, "void w_%d(void) __attribute__((weak, alias(\"f_%d\")));\n", k, k);
		fprintf(f, "void __g_%d(void) __attribute__((alias(\"f_%d\")));\n", k, k);
		if (k % 2 == 0)
			fprintf(f, "void e_%d(void) __attribute__((alias(\"f_%d\")));\n", k, k);
		if (k % 3 == 0)
			fprintf(f, "void ff_%d(void) __attribute__((alias(\"f_%d\")));\n", k, k);
	}
	/* One address with 26 names (a run sorted by qsort, not insertion). */
	fprintf(f, "void many_names(void) { fx_sink += 7; }\n");
	for (int k = 0; k < 24; k++)
		fprintf(f, "void m%02d(void) __attribute__((alias(\"many_names\")));\n", k);
	fprintf(f, "void zz(void) __attribute__((weak, alias(\"many_names\")));\n");
	fprintf(f, "void yy(void) __attribute__((alias(\"many_names\")));\n");
	assert_int_equal(fclose(f), 0);
	assert_int_equal(fx_sh("cd '%s' && gcc -O1 -fPIC -shared -o '%s' '%s'", e->dir, lib, src),
			 0);
	n = fx_elf_syms(lib, SHT_SYMTAB, &syms);
	assert_true(n > 3 * FUNCS);
	ref = (struct tdr_dso_ref){ .path = lib };
	assert_int_equal(tdr_symbolizer__new(&o, &s), 0);
	for (int k = 0; k < FUNCS; k++) {
		char name[32], want[32];
		struct tdr_sym y;
		uint64_t off;

		snprintf(name, sizeof(name), "f_%d", k);
		snprintf(want, sizeof(want), "%s_%d", k % 2 == 0 ? "e" : "f", k);
		assert_true(fx_vaddr_to_off(lib, sym_value(syms, n, name), &off));
		assert_int_equal(tdr_symbolizer__lookup(s, &ref, off, &y), 0);
		assert_int_equal(y.status, TDR_SYM_OK);
		assert_string_equal(y.function, want);
		assert_int_equal(y.function_offset, 0);
	}
	{
		struct tdr_sym y;
		uint64_t off;

		/* global over weak (zz), then shorter (yy over m00..m23) */
		assert_true(fx_vaddr_to_off(lib, sym_value(syms, n, "many_names"), &off));
		assert_int_equal(tdr_symbolizer__lookup(s, &ref, off, &y), 0);
		assert_int_equal(y.status, TDR_SYM_OK);
		assert_string_equal(y.function, "yy");
	}
	tdr_symbolizer__free(s);
	free(syms);
	free(lib);
	free(src);
}

static bool in_table(const struct fx_sym *syms, int n, const char *name)
{
	for (int i = 0; i < n; i++)
		if (!strcmp(syms[i].name, name))
			return true;
	return false;
}

/* Code symbols other than idx at the same address (aliases)? */
static bool has_alias(const struct fx_sym *syms, int n, int idx)
{
	for (int i = 0; i < n; i++) {
		int t = syms[i].type;

		if (i != idx && syms[i].value == syms[idx].value &&
		    (t == STT_FUNC || t == STT_GNU_IFUNC || t == STT_NOTYPE))
			return true;
	}
	return false;
}

/*
 * libc.so.6 has only .dynsym; its static functions are named by the .symtab
 * of its debug file. Unaliased ones (so that the alias rule does not decide
 * the name) without clone suffixes (eu-addr2line -f prints DWARF names),
 * every 25th, looked up in their middle.
 */
static void test_symtab__libc_static_functions_without_dwarf(void **state)
{
	struct tdr_symbolizer_opts o = { 0 };
	struct fx_sym *syms = NULL, *dyn = NULL, *none = NULL;
	struct tdr_symbolizer *s;
	uint64_t *va;
	size_t cnt = 0, named;
	char dbg[256];
	int n, nd, k = 0;

	(void)state;
	if (!debug_file_of(LIBC_PATH, dbg, sizeof(dbg)))
		skip(); /* libc6-dbg not installed */
	if (fx_elf_syms(LIBC_PATH, SHT_SYMTAB, &none) != 0) {
		free(none);
		skip(); /* a libc with its own .symtab: not the case tested */
	}
	n = fx_elf_syms(dbg, SHT_SYMTAB, &syms);
	nd = fx_elf_syms(LIBC_PATH, SHT_DYNSYM, &dyn);
	assert_true(n > 1000);
	assert_true(nd > 100);
	va = calloc((size_t)n + 1, sizeof(*va));
	for (int i = 0; i < n; i++) {
		const struct fx_sym *y = &syms[i];

		if (y->type != STT_FUNC || y->bind != STB_LOCAL || y->size < 16 ||
		    strchr(y->name, '.') || has_alias(syms, n, i) || k++ % 25)
			continue;
		assert_false(in_table(dyn, nd, y->name)); /* only in the debug file */
		va[cnt++] = y->value + y->size / 2;
	}
	assert_true(cnt >= 20);
	assert_int_equal(tdr_symbolizer__new(&o, &s), 0);
	named = check_names(s, LIBC_PATH, va, cnt, NULL);
	fprintf(stderr, "%s: %zu addresses, %zu named, %zu DWARF opened\n", LIBC_PATH, cnt, named,
		s->dwarf_open_cnt);
	assert_int_equal(named, cnt);
	/* The names did not open libc's DWARF. */
	assert_int_equal(s->dwarf_open_cnt, 0);
	tdr_symbolizer__free(s);
	free(va);
	free(syms);
	free(dyn);
}

/* ld.so's start-up code: labels of its debug file's .symtab (STT_NOTYPE). */
static void test_symtab__ldso_start_labels(void **state)
{
	struct tdr_symbolizer_opts o = { 0 };
	struct fx_sym *syms = NULL;
	struct tdr_symbolizer *s;
	char dbg[256], *ldso = realpath(LDSO_PATH, NULL);
	uint64_t va[2];
	int n;

	(void)state;
	if (!ldso || !debug_file_of(ldso, dbg, sizeof(dbg))) {
		free(ldso);
		skip(); /* libc6-dbg not installed */
	}
	n = fx_elf_syms(dbg, SHT_SYMTAB, &syms);
	va[0] = sym_value(syms, n, "_start");
	va[1] = sym_value(syms, n, "_dl_start_user") + 2;
	if (va[0] == 0 || va[1] == 2) {
		free(syms);
		free(ldso);
		skip(); /* another glibc layout */
	}
	{
		const char *want[2] = { "_start", "_dl_start_user+0x2" };

		assert_int_equal(tdr_symbolizer__new(&o, &s), 0);
		assert_int_equal(check_names(s, ldso, va, 2, want), 2);
	}
	assert_int_equal(s->dwarf_open_cnt, 0);
	tdr_symbolizer__free(s);
	free(syms);
	free(ldso);
}

/* The IFUNC symbol readelf lists in path's dynamic symbols at addr, in name
 * ("" when none). */
static void readelf_ifunc(const char *path, uint64_t addr, char *name, size_t sz)
{
	char *out = fx_sh_out("readelf -W --dyn-syms '%s' 2>/dev/null", path);
	char *line, *save = NULL;

	assert_non_null(out);
	name[0] = '\0';
	/* "  1271: 000000000009d670   129 IFUNC   WEAK   DEFAULT   16 strchrnul@@GLIBC_2.2.5" */
	for (line = strtok_r(out, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		unsigned long long v;
		char type[32], sym[200];

		if (sscanf(line, " %*u: %llx %*s %31s %*s %*s %*s %199s", &v, type, sym) == 3 &&
		    v == addr && !strcmp(type, "IFUNC")) {
			sym[strcspn(sym, "@")] = '\0';
			snprintf(name, sz, "%s", sym);
			break;
		}
	}
	free(out);
}

/* objdump's PLT stubs of path: "<name@plt>" labels (demangled), not the
 * PLT header ("<x@plt-0x10>"). An IRELATIVE stub ("<*ABS*+0x9d670@plt>",
 * a call to an ifunc) is expected as the IFUNC symbol readelf shows at
 * that address ("strchrnul@plt"), else as objdump writes it.
 * Returns the count; addrs and names (NAME_SZ each) are the caller's. */
static size_t objdump_plt(const char *path, uint64_t **addrs, char (**names)[NAME_SZ],
			  size_t *irel)
{
	char *out = fx_sh_out("objdump -d -C -j .plt -j .plt.sec -j .plt.got '%s' 2>/dev/null",
			      path);
	char *line, *save = NULL;
	size_t n = 0;

	assert_non_null(out);
	*addrs = calloc(4096, sizeof(**addrs));
	*names = calloc(4096, NAME_SZ);
	for (line = strtok_r(out, "\n", &save); line && n < 4096; line = strtok_r(NULL, "\n", &save)) {
		unsigned long long a;
		char name[NAME_SZ];
		size_t len;

		/* "0000000000001030 <read@plt>:" */
		if (sscanf(line, "%llx <%255[^\n]", &a, name) != 2)
			continue;
		len = strlen(name);
		if (len < 7 || strcmp(name + len - 2, ">:"))
			continue;
		name[len - 2] = '\0';
		if (len - 2 < 4 || strcmp(name + len - 6, "@plt"))
			continue;
		(*addrs)[n] = a;
		snprintf((*names)[n], NAME_SZ, "%s", name);
		if (!strncmp(name, "*ABS*+0x", 8)) {
			char ifunc[NAME_SZ - 8];

			readelf_ifunc(path, strtoull(name + 8, NULL, 16), ifunc, sizeof(ifunc));
			if (ifunc[0])
				snprintf((*names)[n], NAME_SZ, "%s@plt", ifunc);
			(*irel)++;
		}
		n++;
	}
	free(out);
	return n;
}

/* Every stub objdump names, looked up 2 bytes in, is "name@plt+0x2"; the
 * PLT header is not named; no DWARF is opened. Returns the stub count;
 * *irel the IRELATIVE ones among them. */
static size_t check_plt(const char *path, size_t *irel)
{
	struct tdr_symbolizer_opts o = { 0 };
	struct tdr_dso_ref ref = { .path = path };
	struct tdr_symbolizer *s;
	char (*names)[NAME_SZ] = NULL;
	uint64_t *addrs = NULL, lo, sz, off;
	size_t n, bad = 0;
	struct tdr_sym y;

	*irel = 0;
	n = objdump_plt(path, &addrs, &names, irel);
	assert_int_equal(tdr_symbolizer__new(&o, &s), 0);
	for (size_t i = 0; i < n; i++) {
		assert_true(fx_vaddr_to_off(path, addrs[i] + 2, &off));
		assert_int_equal(tdr_symbolizer__lookup(s, &ref, off, &y), 0);
		if (y.status != TDR_SYM_OK || strcmp(y.function, names[i]) ||
		    y.function_offset != 2) {
			fprintf(stderr, "%s 0x%llx: objdump %s, tdrec %s+0x%llx\n", path,
				(unsigned long long)addrs[i], names[i],
				y.function ? y.function : "??",
				(unsigned long long)y.function_offset);
			bad++;
		}
	}
	assert_int_equal(bad, 0);
	/* The lazy-binding header at the start of .plt jumps to the resolver. */
	if (fx_elf_section(path, ".plt", &lo, &sz) && sz >= 16 &&
	    fx_vaddr_to_off(path, lo + 2, &off)) {
		assert_int_equal(tdr_symbolizer__lookup(s, &ref, off, &y), 0);
		assert_int_not_equal(y.status, TDR_SYM_OK);
	}
	assert_int_equal(s->dwarf_open_cnt, 0);
	tdr_symbolizer__free(s);
	free(addrs);
	free(names);
	return n;
}

/* PLT stubs are named as objdump (and perf) name them: "puts@plt". */
static void test_symtab__plt_stubs_named_like_objdump(void **state)
{
	static const struct {
		const char *file, *cc, *flags;
	} builds[] = {
	    /* lazy binding: .plt, and .plt.got for __cxa_finalize */
	    {"plt-lazy", "gcc", "-O2 -g -pie -fPIE"},
	    /* IBT: the named stubs are in .plt.sec, .plt has the lazy halves */
	    {"plt-ibt", "gcc", "-O2 -g -pie -fPIE -fcf-protection=full -Wl,-z,ibtplt"},
	    /* bind now, stripped: names from .dynsym and relocations only */
	    {"plt-now", "gcc", "-O2 -pie -fPIE -Wl,-z,now -s"},
	    /* C++: names demangled like objdump -C */
	    {"plt-cxx", "g++", "-O2 -g -x c++ -pie -fPIE"},
	};
	static const char src[] =
	    "#include <stdio.h>\n#include <stdlib.h>\n#include <string.h>\n"
	    "int main(int c, char **v)\n{\n"
	    "\tchar *p = (char *)malloc(64);\n"
	    "#ifdef __cplusplus\n\tint *q = new int[c];\n\tprintf(\"%p\\n\", (void *)q);\n"
	    "\tdelete[] q;\n#endif\n"
	    "\tstrcpy(p, v[0]);\n\tputs(p);\n\tprintf(\"%d\\n\", c);\n\tfree(p);\n"
	    "\treturn (int)strlen(v[0]) > 9999;\n}\n";
	struct env *e = *state;
	char path[512];
	size_t irel;
	FILE *f;

#if !defined(__x86_64__)
	skip(); /* stubs are decoded for x86-64 only */
#endif
	if (!fx_have("objdump"))
		skip();
	snprintf(path, sizeof(path), "%s/plt.c", e->dir);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(src, f);
	fclose(f);
	for (size_t i = 0; i < sizeof(builds) / sizeof(builds[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", e->dir, builds[i].file);
		assert_int_equal(fx_sh("cd '%s' && %s %s -o %s plt.c", e->dir, builds[i].cc,
				       builds[i].flags, builds[i].file),
				 0);
		assert_true(check_plt(path, &irel) >= 4);
	}
	/* The system's libc and ld.so (stripped; their PLT stubs are not in
	 * their debug files' .symtab either). glibc's calls to its own ifuncs
	 * (memcpy, strchrnul) go through IRELATIVE stubs. */
	check_plt(LIBC_PATH, &irel);
	print_message("libc: %zu IRELATIVE PLT stubs\n", irel);
	{
		char *ldso = realpath(LDSO_PATH, NULL);

		if (ldso)
			check_plt(ldso, &irel);
		free(ldso);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_symtab__labels_from_debug_file),
		cmocka_unit_test(test_symtab__aliases_in_a_large_table),
		cmocka_unit_test(test_symtab__libc_static_functions_without_dwarf),
		cmocka_unit_test(test_symtab__ldso_start_labels),
		cmocka_unit_test(test_symtab__plt_stubs_named_like_objdump),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
