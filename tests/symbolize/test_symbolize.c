/*
 * tests/symbolize/test_symbolize.c - unit tests of the symbolizer on this
 * test program itself, a fake kallsyms file and the running vDSO.
 *
 * Covers: statuses (missing, not ELF, changed build-id, offset outside the
 * file's segments), the file offset of a live function taken from
 * /proc/self/maps (as the parser computes map_off) resolving to that function
 * and its source line, identical pointers from the cache, kallsyms parsing
 * and its "unusable" cases, the vDSO image, and allocation failure at every
 * point of a lookup sequence (no crash, -ENOMEM, no leak under ASan).
 * Needs no privileges and no PMU.
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "sym_fixture.h"
#include "symbolize_int.h" /* tdr_sym_status_name */
#include "tdrec/symbolize.h"
#include "tdrec/tdr_mem.h"

struct env {
	char exe[4096];
	char *dir;
};

/* The probe: declared on probe_line, its address is looked up. */
static const unsigned probe_line = __LINE__ + 1;
static __attribute__((noinline)) int symtest_probe(int x)
{
	return x * 3 + 1;
}

/* File offset of a live address, from /proc/self/maps like the parser's
 * map_off = ip - start + pgoff. */
static bool live_offset(const void *p, char *path, size_t path_sz, uint64_t *off)
{
	uintptr_t a = (uintptr_t)p;
	char line[4096];
	bool ok = false;
	FILE *f = fopen("/proc/self/maps", "r");

	if (!f)
		return false;
	while (!ok && fgets(line, sizeof(line), f)) {
		unsigned long lo, hi, pgoff;
		int n = 0;

		if (sscanf(line, "%lx-%lx %*s %lx %*s %*s %n", &lo, &hi, &pgoff, &n) < 3 || !n)
			continue;
		if (a < lo || a >= hi)
			continue;
		line[strcspn(line, "\n")] = '\0';
		snprintf(path, path_sz, "%s", line + n);
		*off = a - lo + pgoff;
		ok = true;
	}
	fclose(f);
	return ok;
}

static int setup(void **state)
{
	struct env *e = calloc(1, sizeof(*e));
	ssize_t n = readlink("/proc/self/exe", e->exe, sizeof(e->exe) - 1);

	if (n <= 0)
		return -1;
	e->exe[n] = '\0';
	e->dir = fx_tmpdir();
	*state = e;
	return e->dir ? 0 : -1;
}

static int teardown(void **state)
{
	struct env *e = *state;

	fx_rmrf(e->dir);
	free(e->dir);
	free(e);
	return 0;
}

static struct tdr_symbolizer *new_sym(const char *kallsyms, bool kusable)
{
	struct tdr_symbolizer_opts o = { .want_lines = true,
					 .want_inlines = true,
					 .kallsyms_path = kallsyms,
					 .kallsyms_usable = kusable };
	struct tdr_symbolizer *s = NULL;

	assert_int_equal(tdr_symbolizer__new(&o, &s), 0);
	return s;
}

static void test_symbolize__status_names(void **state)
{
	(void)state;
	assert_string_equal(tdr_sym_status_name(TDR_SYM_OK), "ok");
	assert_string_equal(tdr_sym_status_name(TDR_SYM_NO_SYMBOL), "no-symbol");
	assert_string_equal(tdr_sym_status_name(TDR_SYM_MISSING), "missing");
	assert_string_equal(tdr_sym_status_name(TDR_SYM_CHANGED), "changed");
	assert_string_equal(tdr_sym_status_name(TDR_SYM_NO_KERNEL), "no-kernel");
	assert_string_equal(tdr_sym_status_name(TDR_SYM_NOT_ELF), "not-elf");
}

static void test_symbolize__live_function_by_file_offset(void **state)
{
	struct tdr_symbolizer *s = new_sym(NULL, false);
	char path[4096];
	struct tdr_sym y;
	struct tdr_dso_ref ref = { .path = path };
	uint64_t off;

	(void)state;
	assert_int_equal(symtest_probe(1), 4);
	assert_true(live_offset((const void *)symtest_probe, path, sizeof(path), &off));
	assert_int_equal(tdr_symbolizer__lookup(s, &ref, off, &y), 0);
	assert_int_equal(y.status, TDR_SYM_OK);
	assert_string_equal(y.function, "symtest_probe");
	assert_int_equal(y.function_offset, 0);
	assert_non_null(y.file);
	assert_non_null(strstr(y.file, "test_symbolize.c"));
	/* The entry belongs to the declarator, the brace or (optimised) the body
	 * line, by compiler and level; exact lines are checked against
	 * eu-addr2line in the integration test. */
	assert_in_range(y.line, probe_line, probe_line + 2);

	assert_int_equal(tdr_symbolizer__lookup(s, &ref, off + 1, &y), 0);
	assert_int_equal(y.status, TDR_SYM_OK);
	assert_string_equal(y.function, "symtest_probe");
	assert_int_equal(y.function_offset, 1);
	tdr_symbolizer__free(s);
}

static void test_symbolize__cache_returns_identical_pointers(void **state)
{
	struct tdr_symbolizer *s = new_sym(NULL, false);
	struct tdr_sym a, b, c;
	char path[4096], path2[4096];
	struct tdr_dso_ref ref = { .path = path }, ref2 = { .path = path2 };
	uint64_t off;

	(void)state;
	assert_true(live_offset((const void *)setup, path, sizeof(path), &off));
	memcpy(path2, path, sizeof(path)); /* same key, different memory */
	assert_int_equal(tdr_symbolizer__lookup(s, &ref, off + 4, &a), 0);
	assert_int_equal(tdr_symbolizer__lookup(s, &ref, off + 4, &b), 0);
	assert_int_equal(tdr_symbolizer__lookup(s, &ref2, off + 4, &c), 0);
	assert_int_equal(a.status, TDR_SYM_OK);
	assert_string_equal(a.function, "setup");
	assert_ptr_equal(a.function, b.function);
	assert_ptr_equal(a.file, b.file);
	assert_ptr_equal(a.inlines, b.inlines);
	assert_memory_equal(&a, &b, sizeof(a));
	assert_memory_equal(&a, &c, sizeof(a));
	tdr_symbolizer__free(s);
}

static void test_symbolize__missing_and_not_elf(void **state)
{
	struct env *e = *state;
	struct tdr_symbolizer *s = new_sym(NULL, false);
	struct tdr_dso_ref ref = { .path = "/nonexistent/tdrec/libnothing.so" };
	char txt[4200];
	struct tdr_sym y;
	FILE *f;

	assert_int_equal(tdr_symbolizer__lookup(s, &ref, 0x1000, &y), 0);
	assert_int_equal(y.status, TDR_SYM_MISSING);
	assert_null(y.function);
	/* Asked again: the failure is cached, same answer. */
	assert_int_equal(tdr_symbolizer__lookup(s, &ref, 0x2000, &y), 0);
	assert_int_equal(y.status, TDR_SYM_MISSING);

	snprintf(txt, sizeof(txt), "%s/not-elf.txt", e->dir);
	f = fopen(txt, "w");
	assert_non_null(f);
	fputs("this is not an ELF file\n", f);
	fclose(f);
	ref.path = txt;
	assert_int_equal(tdr_symbolizer__lookup(s, &ref, 0, &y), 0);
	/* It exists: not "missing" (issue 17, finding 7). */
	assert_int_equal(y.status, TDR_SYM_NOT_ELF);

	ref.path = "";
	assert_int_equal(tdr_symbolizer__lookup(s, &ref, 0, &y), 0);
	assert_int_equal(y.status, TDR_SYM_MISSING);
	assert_int_equal(tdr_symbolizer__lookup(s, NULL, 0, &y), 0);
	assert_int_equal(y.status, TDR_SYM_MISSING);
	tdr_symbolizer__free(s);
}

/* A FIFO without a writer would block open() forever: the lookup must
 * come back (the alarm turns a hang into a failure) with NOT_ELF, and
 * never have opened it: a writer's non-blocking open then fails with
 * ENXIO (no reader). Devices and directories are not objects either. */
static void test_symbolize__special_files_never_opened(void **state)
{
	struct env *e = *state;
	struct tdr_symbolizer *s = new_sym(NULL, false);
	const char *paths[] = { "/dev/null", "/dev/zero", "/dev/tty", "/" };
	struct tdr_dso_ref ref;
	char fifo[4200];
	struct tdr_sym y;
	int fd;

	snprintf(fifo, sizeof(fifo), "%s/fifo.so", e->dir);
	assert_int_equal(mkfifo(fifo, 0600), 0);
	alarm(60);
	ref = (struct tdr_dso_ref){ .path = fifo };
	assert_int_equal(tdr_symbolizer__lookup(s, &ref, 0x1000, &y), 0);
	assert_int_equal(y.status, TDR_SYM_NOT_ELF);
	fd = open(fifo, O_WRONLY | O_NONBLOCK | O_CLOEXEC);
	assert_int_equal(fd, -1);
	assert_int_equal(errno, ENXIO);
	for (size_t i = 0; i < sizeof(paths) / sizeof(paths[0]); i++) {
		if (access(paths[i], F_OK))
			continue;
		ref.path = paths[i];
		assert_int_equal(tdr_symbolizer__lookup(s, &ref, 0, &y), 0);
		assert_int_equal(y.status, TDR_SYM_NOT_ELF);
	}
	alarm(0);
	tdr_symbolizer__free(s);
}

/* A separate debug file named by .gnu_debuglink that is a FIFO: looking
 * for DWARF must not block on it, and the functions still come from the
 * main file's symbol table. */
static void test_symbolize__debuglink_fifo_not_opened(void **state)
{
	struct env *e = *state;
	struct tdr_symbolizer *s;
	char src[4200], prog[4200], dbg[4200];
	struct tdr_dso_ref ref = { .path = prog };
	struct tdr_sym y;
	FILE *f;
	uint64_t off = 0;
	char *out;

	snprintf(src, sizeof(src), "%s/dl.c", e->dir);
	snprintf(prog, sizeof(prog), "%s/dl", e->dir);
	snprintf(dbg, sizeof(dbg), "%s/dl.debug", e->dir);
	f = fopen(src, "w");
	assert_non_null(f);
	fputs("int dl_func(int x) { return x * 7 + 1; }\n"
	      "int main(int c, char **v) { (void)v; return dl_func(c); }\n", f);
	fclose(f);
	assert_int_equal(fx_sh("gcc -O1 -g -o '%s' '%s' && objcopy --only-keep-debug '%s' '%s' && "
			       "objcopy --strip-debug --add-gnu-debuglink='%s' '%s'",
			       prog, src, prog, dbg, dbg, prog),
			 0);
	/* The file offset of dl_func, from an independent reader. */
	out = fx_sh_out("nm '%s' | awk '$3 == \"dl_func\" { print $1 }'", prog);
	assert_non_null(out);
	off = strtoull(out, NULL, 16);
	free(out);
	out = fx_sh_out("readelf -lW '%s' | awk '$1 == \"LOAD\" && / E 0x/ "
			"{ print $2, $3 }'", prog);
	assert_non_null(out);
	{
		unsigned long long fo, va;

		assert_int_equal(sscanf(out, "%llx %llx", &fo, &va), 2);
		off = off - va + fo;
	}
	free(out);
	assert_int_equal(unlink(dbg), 0);
	assert_int_equal(mkfifo(dbg, 0600), 0);
	alarm(60);
	s = new_sym(NULL, false);
	assert_int_equal(tdr_symbolizer__lookup(s, &ref, off, &y), 0);
	assert_int_equal(y.status, TDR_SYM_OK);
	assert_string_equal(y.function, "dl_func");
	assert_null(y.file); /* no DWARF: the FIFO was not read */
	tdr_symbolizer__free(s);
	alarm(0);
}

static void test_symbolize__build_id_checked(void **state)
{
	struct env *e = *state;
	struct tdr_symbolizer *s = new_sym(NULL, false);
	uint8_t bid[64], padded[20] = { 0 };
	struct tdr_dso_ref ref = { .path = e->exe };
	struct tdr_sym y;
	char path[4096];
	size_t n = fx_build_id(e->exe, bid, sizeof(bid));
	uint64_t off;

	assert_true(n >= 8); /* Debian's gcc links with --build-id */
	assert_true(live_offset((const void *)symtest_probe, path, sizeof(path), &off));

	ref.build_id = bid;
	ref.build_id_sz = n;
	assert_int_equal(tdr_symbolizer__lookup(s, &ref, off, &y), 0);
	assert_int_equal(y.status, TDR_SYM_OK);
	assert_string_equal(y.function, "symtest_probe");

	/* A recorder may zero-pad to 20 bytes. */
	if (n < sizeof(padded)) {
		memcpy(padded, bid, n);
		ref.build_id = padded;
		ref.build_id_sz = sizeof(padded);
		assert_int_equal(tdr_symbolizer__lookup(s, &ref, off, &y), 0);
		assert_int_equal(y.status, TDR_SYM_OK);
	}

	bid[n / 2] ^= 0x5a;
	ref.build_id = bid;
	assert_int_equal(tdr_symbolizer__lookup(s, &ref, off, &y), 0);
	assert_int_equal(y.status, TDR_SYM_CHANGED);
	assert_null(y.function);
	assert_null(y.file);
	assert_int_equal(tdr_symbolizer__lookup(s, &ref, off + 2, &y), 0);
	assert_int_equal(y.status, TDR_SYM_CHANGED);

	/* The same path without a recorded build-id is still symbolized. */
	ref.build_id = NULL;
	ref.build_id_sz = 0;
	assert_int_equal(tdr_symbolizer__lookup(s, &ref, off, &y), 0);
	assert_int_equal(y.status, TDR_SYM_OK);
	tdr_symbolizer__free(s);
}

static void test_symbolize__offset_outside_segments(void **state)
{
	struct env *e = *state;
	struct tdr_symbolizer *s = new_sym(NULL, false);
	struct tdr_dso_ref ref = { .path = e->exe };
	struct tdr_sym y;

	assert_int_equal(tdr_symbolizer__lookup(s, &ref, 1ull << 40, &y), 0);
	assert_int_equal(y.status, TDR_SYM_NO_SYMBOL);
	assert_null(y.function);
	tdr_symbolizer__free(s);
}

static char *write_kallsyms(const struct env *e, const char *name, const char *text)
{
	char *path = NULL;
	FILE *f;

	assert_true(asprintf(&path, "%s/%s", e->dir, name) > 0);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
	return path;
}

static const char fake_kallsyms[] =
	"ffffffff81000000 T _text\n"
	"ffffffff81000000 T _stext\n"
	"ffffffff81000000 t __pfx_startup\n"
	"ffffffff81000100 T do_one_initcall\n"
	"ffffffff81000180 D some_data\n"
	"ffffffff81000200 t local_helper\n"
	"ffffffff81000300 W weak_thing\n"
	"ffffffff81000400 T schedule\n"
	"ffffffffc0a00000 t mod_func\t[kvm]\n"
	"ffffffffc0a00080 T mod_other\t[kvm]\n"
	"garbage line\n"
	"0000000000000000 A fixed_percpu_data\n";

static void test_symbolize__kallsyms_parsed_and_sorted(void **state)
{
	char *path = write_kallsyms(*state, "kallsyms", fake_kallsyms);
	struct tdr_symbolizer *s = new_sym(path, true);
	struct tdr_sym y, y2;

	assert_int_equal(tdr_symbolizer__lookup_kernel(s, 0xffffffff81000000ull, &y), 0);
	assert_int_equal(y.status, TDR_SYM_OK);
	assert_string_equal(y.function, "_text"); /* global, then shortest alias */
	assert_int_equal(y.function_offset, 0);

	assert_int_equal(tdr_symbolizer__lookup_kernel(s, 0xffffffff81000123ull, &y), 0);
	assert_string_equal(y.function, "do_one_initcall");
	assert_int_equal(y.function_offset, 0x23);
	/* Data symbols do not end a function. */
	assert_int_equal(tdr_symbolizer__lookup_kernel(s, 0xffffffff810001f0ull, &y), 0);
	assert_string_equal(y.function, "do_one_initcall");
	assert_int_equal(tdr_symbolizer__lookup_kernel(s, 0xffffffff81000250ull, &y), 0);
	assert_string_equal(y.function, "local_helper");
	assert_int_equal(tdr_symbolizer__lookup_kernel(s, 0xffffffff81000300ull, &y), 0);
	assert_string_equal(y.function, "weak_thing");
	assert_int_equal(tdr_symbolizer__lookup_kernel(s, 0xffffffff81000410ull, &y), 0);
	assert_string_equal(y.function, "schedule");
	assert_int_equal(tdr_symbolizer__lookup_kernel(s, 0xffffffffc0a00010ull, &y), 0);
	assert_string_equal(y.function, "mod_func");
	assert_int_equal(tdr_symbolizer__lookup_kernel(s, 0xffffffffc0a000ffull, &y), 0);
	assert_string_equal(y.function, "mod_other");
	assert_int_equal(y.function_offset, 0x7f);

	/* Same address twice: same string. */
	assert_int_equal(tdr_symbolizer__lookup_kernel(s, 0xffffffffc0a000ffull, &y2), 0);
	assert_ptr_equal(y.function, y2.function);

	/* Below the first symbol, and far after the last one. */
	assert_int_equal(tdr_symbolizer__lookup_kernel(s, 0xffffffff80000000ull, &y), 0);
	assert_int_equal(y.status, TDR_SYM_NO_SYMBOL);
	assert_int_equal(tdr_symbolizer__lookup_kernel(s, 0xffffffffc0b00000ull, &y), 0);
	assert_int_equal(y.status, TDR_SYM_NO_SYMBOL);
	tdr_symbolizer__free(s);
	free(path);
}

static void test_symbolize__kallsyms_unusable(void **state)
{
	char *zeros = write_kallsyms(*state, "kallsyms-zero",
				     "0000000000000000 T _text\n"
				     "0000000000000000 T schedule\n");
	char *good = write_kallsyms(*state, "kallsyms-good", fake_kallsyms);
	struct tdr_symbolizer *s;
	struct tdr_sym y;

	/* Not the recording host: never consulted. */
	s = new_sym(good, false);
	assert_int_equal(tdr_symbolizer__lookup_kernel(s, 0xffffffff81000123ull, &y), 0);
	assert_int_equal(y.status, TDR_SYM_NO_KERNEL);
	assert_null(y.function);
	tdr_symbolizer__free(s);

	/* kptr_restrict / non-root: all addresses read as zero. */
	s = new_sym(zeros, true);
	assert_int_equal(tdr_symbolizer__lookup_kernel(s, 0xffffffff81000123ull, &y), 0);
	assert_int_equal(y.status, TDR_SYM_NO_KERNEL);
	tdr_symbolizer__free(s);

	s = new_sym("/nonexistent/kallsyms", true);
	assert_int_equal(tdr_symbolizer__lookup_kernel(s, 0xffffffff81000123ull, &y), 0);
	assert_int_equal(y.status, TDR_SYM_NO_KERNEL);
	tdr_symbolizer__free(s);
	free(zeros);
	free(good);
}

/* ELF notes as /sys/kernel/notes shows them: a Xen note first, then the
 * GNU build-id (host byte order, name and descriptor padded to 4 bytes). */
static char *write_notes(const struct env *e, const char *name, const uint8_t *bid, size_t n)
{
	static const uint32_t xen[] = {4, 4, 0x12, 0x006e6558 /* "Xen\0" */, 0xffffffff};
	uint32_t hdr[3] = {4, (uint32_t)n, 3 /* NT_GNU_BUILD_ID */};
	char *path = NULL;
	FILE *f;

	assert_true(asprintf(&path, "%s/%s", e->dir, name) > 0);
	f = fopen(path, "w");
	assert_non_null(f);
	fwrite(xen, sizeof(xen), 1, f);
	fwrite(hdr, sizeof(hdr), 1, f);
	fwrite("GNU", 4, 1, f);
	fwrite(bid, n, 1, f);
	fwrite("\0\0\0", (4 - n % 4) % 4, 1, f);
	fclose(f);
	return path;
}

/* A perf.data recording names its kernel image (build-id, and the address
 * _text had): kallsyms apply when the running kernel is that image, placed
 * at the same address, even without a boot id. */
static void test_symbolize__kallsyms_by_recorded_kernel_image(void **state)
{
	static const uint8_t bid[20] = {0x4a, 0x5a, 0x9b, 0x0a, 0xff, 0xb6, 0x6c, 0x43, 0x7a, 0xbc,
					0xd4, 0x55, 0xd2, 0x73, 0x8a, 0xf8, 0x79, 0x98, 0x5f, 0xa9};
	uint8_t other[20];
	char *ks = write_kallsyms(*state, "kallsyms-image", fake_kallsyms);
	char *notes = write_notes(*state, "notes", bid, sizeof(bid));
	struct tdr_symbolizer_opts o = {.kallsyms_path = ks,
					.kernel_notes_path = notes,
					.kernel_build_id = bid,
					.kernel_build_id_sz = sizeof(bid),
					.kernel_ref_sym = "_text",
					.kernel_ref_addr = 0xffffffff81000000ull};
	struct {
		const char *what;
		const uint8_t *bid;
		const char *ref_sym;
		uint64_t ref_addr;
		enum tdr_sym_status want;
	} cases[] = {
	    {"same image, same place", bid, "_text", 0xffffffff81000000ull, TDR_SYM_OK},
	    {"another boot (KASLR)", bid, "_text", 0xffffffff9a000000ull, TDR_SYM_NO_KERNEL},
	    {"another kernel", other, "_text", 0xffffffff81000000ull, TDR_SYM_NO_KERNEL},
	    {"no build-id recorded", NULL, "_text", 0xffffffff81000000ull, TDR_SYM_NO_KERNEL},
	    {"place not recorded", bid, NULL, 0, TDR_SYM_NO_KERNEL},
	    {"symbol not in kallsyms", bid, "_nonexistent", 0xffffffff81000000ull,
	     TDR_SYM_NO_KERNEL},
	};

	memcpy(other, bid, sizeof(other));
	other[7] ^= 1;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct tdr_symbolizer *s = NULL;
		struct tdr_sym y;
		char ref_sym[32];

		/* The symbolizer copies what it keeps: pass a stack copy. */
		snprintf(ref_sym, sizeof(ref_sym), "%s", cases[i].ref_sym ? cases[i].ref_sym : "");
		o.kernel_build_id = cases[i].bid;
		o.kernel_ref_sym = cases[i].ref_sym ? ref_sym : NULL;
		o.kernel_ref_addr = cases[i].ref_addr;
		assert_int_equal(tdr_symbolizer__new(&o, &s), 0);
		memset(ref_sym, 'x', sizeof(ref_sym) - 1);
		assert_int_equal(tdr_symbolizer__lookup_kernel(s, 0xffffffff81000123ull, &y), 0);
		if (y.status != cases[i].want)
			print_error("%s: status %s\n", cases[i].what, tdr_sym_status_name(y.status));
		assert_int_equal(y.status, cases[i].want);
		if (cases[i].want == TDR_SYM_OK)
			assert_string_equal(y.function, "do_one_initcall");
		tdr_symbolizer__free(s);
	}

	/* A build-id zero-padded to 20 bytes still matches a shorter one. */
	free(notes);
	notes = write_notes(*state, "notes-short", bid, 16);
	{
		uint8_t padded[20] = {0};
		struct tdr_symbolizer *s = NULL;
		struct tdr_sym y;

		memcpy(padded, bid, 16);
		o.kernel_notes_path = notes;
		o.kernel_build_id = padded;
		o.kernel_ref_sym = "_text";
		o.kernel_ref_addr = 0xffffffff81000000ull;
		assert_int_equal(tdr_symbolizer__new(&o, &s), 0);
		assert_int_equal(tdr_symbolizer__lookup_kernel(s, 0xffffffff81000123ull, &y), 0);
		assert_int_equal(y.status, TDR_SYM_OK);
		tdr_symbolizer__free(s);
	}
	free(notes);
	free(ks);
}

/* A perf.data without the kernel's build-id (perf record -z, -B, pipe
 * mode) names its kernel by release: kallsyms apply when the running
 * release is the same and _text is where it was recorded; otherwise the
 * symbolizer says why (the report prints it). */
static void test_symbolize__kallsyms_by_release_without_build_id(void **state)
{
	char *ks = write_kallsyms(*state, "kallsyms-release", fake_kallsyms);
	struct {
		const char *what, *recorded, *running;
		uint64_t ref_addr;
		enum tdr_sym_status want;
		const char *why;
	} cases[] = {
	    {"same release, same place", "6.1.0-test", "6.1.0-test", 0xffffffff81000000ull,
	     TDR_SYM_OK, NULL},
	    {"another release", "6.1.0-test", "6.18.4", 0xffffffff81000000ull, TDR_SYM_NO_KERNEL,
	     "recorded on kernel 6.1.0-test, running 6.18.4"},
	    {"same release, another boot", "6.1.0-test", "6.1.0-test", 0xffffffff9a000000ull,
	     TDR_SYM_NO_KERNEL, "but _text is at 0xffffffff81000000, not at 0xffffffff9a000000"},
	    {"no release either", NULL, "6.1.0-test", 0xffffffff81000000ull, TDR_SYM_NO_KERNEL,
	     "neither the kernel's build-id nor its release"},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct tdr_symbolizer_opts o = {.kallsyms_path = ks,
						.kernel_ref_sym = "_text",
						.kernel_ref_addr = cases[i].ref_addr,
						.kernel_release = cases[i].recorded,
						.running_release = cases[i].running};
		struct tdr_symbolizer *s = NULL;
		struct tdr_sym y;

		assert_int_equal(tdr_symbolizer__new(&o, &s), 0);
		assert_int_equal(tdr_symbolizer__lookup_kernel(s, 0xffffffff81000123ull, &y), 0);
		if (y.status != cases[i].want)
			print_error("%s: status %s\n", cases[i].what, tdr_sym_status_name(y.status));
		assert_int_equal(y.status, cases[i].want);
		if (cases[i].why) {
			assert_non_null(tdr_symbolizer__kernel_why(s));
			if (!strstr(tdr_symbolizer__kernel_why(s), cases[i].why))
				fail_msg("%s: why '%s'", cases[i].what, tdr_symbolizer__kernel_why(s));
		} else {
			assert_string_equal(y.function, "do_one_initcall");
			assert_null(tdr_symbolizer__kernel_why(s));
		}
		tdr_symbolizer__free(s);
	}
	free(ks);
}

/* No build-id was recorded: a file written after the recording ended is not
 * the one that ran, and is never symbolized; one recorded with its
 * build-id is checked by the build-id alone. */
static void test_symbolize__file_newer_than_recording_is_changed(void **state)
{
	struct env *e = *state;
	struct tdr_symbolizer_opts o = {0};
	struct tdr_dso_ref ref = {0};
	struct timespec when[2] = {{.tv_sec = 1700000000}, {.tv_sec = 1700000000}};
	const uint64_t mtime_ns = 1700000000ull * 1000000000ull;
	uint8_t bid[64];
	char copy[4096], path[4096];
	uint64_t off;
	struct tdr_symbolizer *s;
	struct tdr_sym y;
	size_t n;

	assert_true(live_offset((const void *)symtest_probe, path, sizeof(path), &off));
	snprintf(copy, sizeof(copy), "%s/copy-of-test", e->dir);
	assert_int_equal(fx_sh("cp '%s' '%s'", e->exe, copy), 0);
	assert_int_equal(utimensat(AT_FDCWD, copy, when, 0), 0);
	n = fx_build_id(copy, bid, sizeof(bid));
	ref.path = copy;

	/* Recording ended a second after the file was written: the same file. */
	o.recorded_until_ns = mtime_ns + 1000000000ull;
	assert_int_equal(tdr_symbolizer__new(&o, &s), 0);
	assert_int_equal(tdr_symbolizer__lookup(s, &ref, off, &y), 0);
	assert_int_equal(y.status, TDR_SYM_OK);
	assert_string_equal(y.function, "symtest_probe");
	tdr_symbolizer__free(s);

	/* Recording ended before: changed, for every address. */
	o.recorded_until_ns = mtime_ns - 1;
	assert_int_equal(tdr_symbolizer__new(&o, &s), 0);
	assert_int_equal(tdr_symbolizer__lookup(s, &ref, off, &y), 0);
	assert_int_equal(y.status, TDR_SYM_CHANGED);
	assert_null(y.function);
	assert_int_equal(tdr_symbolizer__lookup(s, &ref, off + 4, &y), 0);
	assert_int_equal(y.status, TDR_SYM_CHANGED);
	/* With its build-id recorded, the file is checked by that. */
	assert_true(n >= 8);
	ref.build_id = bid;
	ref.build_id_sz = n;
	assert_int_equal(tdr_symbolizer__lookup(s, &ref, off, &y), 0);
	assert_int_equal(y.status, TDR_SYM_OK);
	tdr_symbolizer__free(s);

	/* The end of the recording unknown (0): no check. */
	o.recorded_until_ns = 0;
	ref.build_id = NULL;
	ref.build_id_sz = 0;
	assert_int_equal(tdr_symbolizer__new(&o, &s), 0);
	assert_int_equal(tdr_symbolizer__lookup(s, &ref, off, &y), 0);
	assert_int_equal(y.status, TDR_SYM_OK);
	tdr_symbolizer__free(s);
}

/* perf record keeps a copy of each object in its build-id cache
 * ($HOME/.debug/.build-id/xx/yyyy/elf): an object deleted or rebuilt since
 * the recording is symbolized from that copy when it has the recorded
 * build-id, and stays MISSING / CHANGED without one. */
static void test_symbolize__perf_build_id_cache(void **state)
{
	struct env *e = *state;
	char *home = getenv("HOME") ? strdup(getenv("HOME")) : NULL;
	char dir[4096], path[4096];
	uint8_t bid[64];
	size_t n = fx_build_id(e->exe, bid, sizeof(bid));
	struct tdr_dso_ref gone = {.path = "/nonexistent/dir/prog", .build_id = bid,
				   .build_id_sz = n};
	struct tdr_dso_ref other = {.path = "/bin/sh", .build_id = bid, .build_id_sz = n};
	struct tdr_symbolizer *s;
	struct tdr_sym y;
	uint64_t off;
	int len;

	assert_true(n >= 8);
	assert_true(live_offset((const void *)symtest_probe, path, sizeof(path), &off));
	assert_int_equal(setenv("HOME", e->dir, 1), 0);

	/* Not in the cache: missing, changed. */
	s = new_sym(NULL, false);
	assert_int_equal(tdr_symbolizer__lookup(s, &gone, off, &y), 0);
	assert_int_equal(y.status, TDR_SYM_MISSING);
	assert_int_equal(tdr_symbolizer__lookup(s, &other, off, &y), 0);
	assert_int_equal(y.status, TDR_SYM_CHANGED);
	tdr_symbolizer__free(s);

	/* perf's layout: .build-id/xx/yyyy is a directory holding elf. */
	len = snprintf(dir, sizeof(dir), "%s/.debug/.build-id/%02x/", e->dir, bid[0]);
	for (size_t i = 1; i < n; i++)
		len += snprintf(dir + len, sizeof(dir) - (size_t)len, "%02x", bid[i]);
	assert_int_equal(fx_sh("mkdir -p '%s' && cp '%s' '%s/elf'", dir, e->exe, dir), 0);
	s = new_sym(NULL, false);
	assert_int_equal(tdr_symbolizer__lookup(s, &gone, off, &y), 0);
	assert_int_equal(y.status, TDR_SYM_OK);
	assert_string_equal(y.function, "symtest_probe");
	assert_int_equal(tdr_symbolizer__lookup(s, &other, off, &y), 0);
	assert_int_equal(y.status, TDR_SYM_OK);
	assert_string_equal(y.function, "symtest_probe");
	tdr_symbolizer__free(s);

	/* A cached file with another build-id is not taken. */
	assert_int_equal(fx_sh("cp /bin/sh '%s/elf'", dir), 0);
	s = new_sym(NULL, false);
	assert_int_equal(tdr_symbolizer__lookup(s, &gone, off, &y), 0);
	assert_int_equal(y.status, TDR_SYM_MISSING);
	tdr_symbolizer__free(s);

	if (home)
		setenv("HOME", home, 1);
	else
		unsetenv("HOME");
	free(home);
}

/* Put file into perf's build-id cache under the first n bytes of bid. */
static void put_in_perf_cache(const char *root, const uint8_t *bid, size_t n, const char *file)
{
	char dir[4096];
	int len = snprintf(dir, sizeof(dir), "%s/.debug/.build-id/%02x/", root, bid[0]);

	for (size_t i = 1; i < n; i++)
		len += snprintf(dir + len, sizeof(dir) - (size_t)len, "%02x", bid[i]);
	assert_int_equal(fx_sh("mkdir -p '%s' && cp '%s' '%s/elf'", dir, file, dir), 0);
}

/* A build-id may end in a zero byte: the cache is searched under the
 * recorded size first (the last byte was once dropped as padding, so an
 * object whose build-id ended in 00 was never found), and a build-id that
 * a recorder padded to 20 bytes is still found under its own size. */
static void test_symbolize__perf_cache_build_id_ending_in_zero(void **state)
{
	struct env *e = *state;
	char *home = getenv("HOME") ? strdup(getenv("HOME")) : NULL;
	char prog[4096], *addr;
	uint8_t zero_end[20] = {0x12, 0x34, 0x56, 0x78, 0x9a, 0xbc, 0xde, 0xf0, 0x11, 0x22,
				0x33, 0x44, 0x55, 0x66, 0x77, 0x88, 0x99, 0xaa, 0xbb, 0x00};
	uint8_t padded[20] = {0xfe, 0xdc, 0xba, 0x98, 0x76, 0x54, 0x32, 0x10};
	struct tdr_dso_ref gone = {.path = "/nonexistent/dir/zprog", .build_id = zero_end,
				   .build_id_sz = sizeof(zero_end)};
	struct tdr_symbolizer *s;
	struct tdr_sym y;
	uint64_t off;

	assert_int_equal(setenv("HOME", e->dir, 1), 0);
	snprintf(prog, sizeof(prog), "%s/zprog", e->dir);
	/* A PIE built by GNU ld: .text's file offsets equal its addresses. */
	assert_int_equal(fx_sh("printf 'int zfunc(int x) { return x * 3; }\\nint main(void) "
			       "{ return zfunc(2); }\\n' > '%s.c' && gcc -O1 -o '%s' '%s.c' "
			       "-Wl,--build-id=0x123456789abcdef0112233445566778899aabb00",
			       prog, prog, prog),
			 0);
	addr = fx_sh_out("nm '%s' | awk '$3 == \"zfunc\" { print $1 }'", prog);
	assert_non_null(addr);
	off = strtoull(addr, NULL, 16);
	free(addr);
	put_in_perf_cache(e->dir, zero_end, sizeof(zero_end), prog);
	s = new_sym(NULL, false);
	assert_int_equal(tdr_symbolizer__lookup(s, &gone, off, &y), 0);
	assert_int_equal(y.status, TDR_SYM_OK);
	assert_string_equal(y.function, "zfunc");
	tdr_symbolizer__free(s);

	/* An 8-byte build-id recorded padded to 20, cached under 8 bytes. */
	assert_int_equal(fx_sh("gcc -O1 -o '%s' '%s.c' -Wl,--build-id=0xfedcba9876543210", prog,
			       prog),
			 0);
	addr = fx_sh_out("nm '%s' | awk '$3 == \"zfunc\" { print $1 }'", prog);
	assert_non_null(addr);
	off = strtoull(addr, NULL, 16);
	free(addr);
	put_in_perf_cache(e->dir, padded, 8, prog);
	gone.build_id = padded;
	s = new_sym(NULL, false);
	assert_int_equal(tdr_symbolizer__lookup(s, &gone, off, &y), 0);
	assert_int_equal(y.status, TDR_SYM_OK);
	assert_string_equal(y.function, "zfunc");
	tdr_symbolizer__free(s);

	if (home)
		setenv("HOME", home, 1);
	else
		unsetenv("HOME");
	free(home);
}

/* Offset of a dynamic symbol in the running vDSO image, read with libelf. */
static bool vdso_sym_off(const char *want, uint64_t *off)
{
	const Elf64_Ehdr *eh = (const void *)getauxval(AT_SYSINFO_EHDR);
	Elf_Scn *scn = NULL;
	bool ok = false;
	Elf *e;

	if (!eh)
		return false;
	elf_version(EV_CURRENT);
	/* The image ends with its section headers (see symbolize/elf.c). */
	e = elf_memory((char *)eh, eh->e_shoff + (size_t)eh->e_shnum * eh->e_shentsize);
	while (e && !ok && (scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_DYNSYM)
			continue;
		d = elf_getdata(scn, NULL);
		for (size_t i = 0; d && i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Sym sym;
			const char *n;

			if (!gelf_getsym(d, (int)i, &sym))
				continue;
			n = elf_strptr(e, sh.sh_link, sym.st_name);
			if (n && !strcmp(n, want)) {
				*off = sym.st_value; /* the vDSO has p_offset == p_vaddr */
				ok = true;
			}
		}
	}
	elf_end(e);
	return ok;
}

static void test_symbolize__vdso_from_own_image(void **state)
{
	struct tdr_symbolizer *s = new_sym(NULL, false);
	struct tdr_dso_ref ref = { .path = "[vdso]" };
	uint8_t wrong[20];
	struct tdr_sym y;
	uint64_t off = 0;

	(void)state;
	if (!vdso_sym_off("__vdso_clock_gettime", &off)) {
		tdr_symbolizer__free(s);
		skip();
	}
	assert_int_equal(tdr_symbolizer__lookup(s, &ref, off + 1, &y), 0);
	assert_int_equal(y.status, TDR_SYM_OK);
	assert_true(!strcmp(y.function, "__vdso_clock_gettime") ||
		    !strcmp(y.function, "clock_gettime"));
	assert_int_equal(y.function_offset, 1);

	/* Recorded on another kernel: its vDSO build-id differs. */
	memset(wrong, 0xab, sizeof(wrong));
	ref.build_id = wrong;
	ref.build_id_sz = sizeof(wrong);
	assert_int_equal(tdr_symbolizer__lookup(s, &ref, off, &y), 0);
	assert_int_equal(y.status, TDR_SYM_CHANGED);
	tdr_symbolizer__free(s);
}

/* One full session: DSO open, DWARF, result cache growth, kernel table
 * (by boot, or by the recorded kernel image when notes is given). */
static int session(const char *exe_path, uint64_t off, const char *kallsyms, const char *notes)
{
	static const uint8_t bid[4] = {1, 2, 3, 4};
	struct tdr_symbolizer_opts o = { .want_lines = true,
					 .want_inlines = true,
					 .kallsyms_path = kallsyms,
					 .kallsyms_usable = !notes,
					 .kernel_notes_path = notes,
					 .kernel_build_id = bid,
					 .kernel_build_id_sz = sizeof(bid),
					 .kernel_ref_sym = "_stext",
					 .kernel_ref_addr = 0xffffffff81000000ull };
	struct tdr_dso_ref ref = { .path = exe_path };
	struct tdr_symbolizer *s = NULL;
	struct tdr_sym y;
	int err;

	err = tdr_symbolizer__new(&o, &s);
	if (err)
		return err;
	for (int i = 0; i < 1500 && !err; i++)
		err = tdr_symbolizer__lookup(s, &ref, off + (uint64_t)(i % 700), &y);
	if (!err)
		err = tdr_symbolizer__lookup_kernel(s, 0xffffffff81000123ull, &y);
	if (!err && y.status != TDR_SYM_OK)
		err = -EINVAL;
	tdr_symbolizer__free(s);
	return err;
}

static void test_symbolize__allocation_failures_are_clean(void **state)
{
	static const uint8_t bid[4] = {1, 2, 3, 4};
	char *ks = write_kallsyms(*state, "kallsyms-fault", fake_kallsyms);
	char *notes = write_notes(*state, "notes-fault", bid, sizeof(bid));
	char path[4096];
	uint64_t off;
	long n;
	int err;

	assert_true(live_offset((const void *)setup, path, sizeof(path), &off));
	for (int by_image = 0; by_image < 2; by_image++) {
		err = -ENOMEM;
		for (n = 0; n < 100000 && err == -ENOMEM; n++) {
			tdr_mem_fail_after(n);
			err = session(path, off, ks, by_image ? notes : NULL);
			tdr_mem_fail_after(-1);
			assert_true(err == 0 || err == -ENOMEM);
		}
		assert_int_equal(err, 0);
		assert_true(n > 5); /* the loop did hit failures on the way */
	}
	free(notes);
	free(ks);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_symbolize__status_names),
		cmocka_unit_test(test_symbolize__live_function_by_file_offset),
		cmocka_unit_test(test_symbolize__cache_returns_identical_pointers),
		cmocka_unit_test(test_symbolize__missing_and_not_elf),
		cmocka_unit_test(test_symbolize__special_files_never_opened),
		cmocka_unit_test(test_symbolize__debuglink_fifo_not_opened),
		cmocka_unit_test(test_symbolize__build_id_checked),
		cmocka_unit_test(test_symbolize__offset_outside_segments),
		cmocka_unit_test(test_symbolize__kallsyms_parsed_and_sorted),
		cmocka_unit_test(test_symbolize__kallsyms_unusable),
		cmocka_unit_test(test_symbolize__kallsyms_by_recorded_kernel_image),
		cmocka_unit_test(test_symbolize__kallsyms_by_release_without_build_id),
		cmocka_unit_test(test_symbolize__file_newer_than_recording_is_changed),
		cmocka_unit_test(test_symbolize__perf_build_id_cache),
		cmocka_unit_test(test_symbolize__perf_cache_build_id_ending_in_zero),
		cmocka_unit_test(test_symbolize__vdso_from_own_image),
		cmocka_unit_test(test_symbolize__allocation_failures_are_clean),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
