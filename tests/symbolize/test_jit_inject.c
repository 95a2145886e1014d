/*
 * tests/symbolize/test_jit_inject.c - the ELF files of `perf inject --jit`.
 *
 * perf inject --jit turns each function of a jitdump file into a small ELF
 * file, jitted-PID-N.so (tools/perf/util/genelf.c), and points the samples
 * at it with an MMAP2 record whose pgoff is the file offset of .text
 * (tools/perf/util/jitdump.c). genelf puts .text and its one PT_LOAD at
 * file offset and address 0x80, not 0, and the function's one symbol (local,
 * in .symtab whose sh_info is 0) at the start of .text.
 * Checked: (1) such a file, laid out here byte by byte, names its function
 * at every offset of its code and nothing outside it; (2) the same for an
 * ET_DYN whose first PT_LOAD starts far from 0 with a second function
 * after the first (the general case: the first PT_LOAD's address must not
 * shift the symbols); (3) end to end, when node and perf work here: perf
 * record of node --perf-prof, perf inject --jit, then tdrec report names
 * the same hottest JS functions with the same shares as perf report.
 * Label: integration ((3) runs perf; it skips without node or perf).
 */
#include <elf.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "support/test_run.h"

#include "report/json_mini.h"
#include "tdrec/symbolize.h"

struct ctx {
	char dir[64];
	char path[128];
	struct tdr_symbolizer *s;
};

static int setup(void **state)
{
	struct ctx *c = calloc(1, sizeof(*c));

	if (!c)
		return -1;
	snprintf(c->dir, sizeof(c->dir), "/tmp/tdr-jitinject-XXXXXX");
	if (!mkdtemp(c->dir))
		return -1;
	snprintf(c->path, sizeof(c->path), "%s/jitted-4242-7.so", c->dir);
	if (tdr_symbolizer__new(NULL, &c->s))
		return -1;
	*state = c;
	return 0;
}

static int test_run(char **out, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int teardown(void **state)
{
	struct ctx *c = *state;

	tdr_symbolizer__free(c->s);
	test_run(NULL, "rm -rf '%s'", c->dir);
	free(c);
	return 0;
}

struct fn {
	const char *name;
	uint64_t off, size; /* within the code */
};

/*
 * Write an ELF64 ET_DYN file as genelf lays it out: the ELF header, one
 * program header, the code at file offset code_off mapped at vaddr by one
 * R+X PT_LOAD, then .shstrtab, .symtab (local function symbols, sh_info 0
 * as genelf leaves it), .strtab and the section headers.
 */
static void write_elf(const char *path, uint64_t code_off, uint64_t vaddr, size_t code_sz,
		      const struct fn *fns, size_t fn_cnt)
{
	static const char shstr[] = "\0.text\0.shstrtab\0.symtab\0.strtab";
	unsigned char buf[8192] = {0};
	Elf64_Ehdr *eh = (Elf64_Ehdr *)buf;
	Elf64_Phdr *ph = (Elf64_Phdr *)(buf + sizeof(*eh));
	Elf64_Shdr sh[5] = {{0}};
	Elf64_Sym syms[8] = {{0}};
	char strtab[512] = "";
	size_t str_len = 1, pos;
	FILE *f;

	assert_true(fn_cnt < 8 && code_off >= sizeof(*eh) + sizeof(*ph));
	memcpy(eh->e_ident, ELFMAG, SELFMAG);
	eh->e_ident[EI_CLASS] = ELFCLASS64;
	eh->e_ident[EI_DATA] = ELFDATA2LSB;
	eh->e_ident[EI_VERSION] = EV_CURRENT;
	eh->e_type = ET_DYN;
	eh->e_machine = EM_X86_64;
	eh->e_version = EV_CURRENT;
	eh->e_entry = vaddr;
	eh->e_phoff = sizeof(*eh);
	eh->e_ehsize = sizeof(*eh);
	eh->e_phentsize = sizeof(*ph);
	eh->e_phnum = 1;
	eh->e_shentsize = sizeof(Elf64_Shdr);
	eh->e_shnum = 5;
	eh->e_shstrndx = 2;
	*ph = (Elf64_Phdr){.p_type = PT_LOAD, .p_flags = PF_R | PF_X, .p_offset = code_off,
			   .p_vaddr = vaddr, .p_paddr = vaddr, .p_filesz = code_sz,
			   .p_memsz = code_sz, .p_align = 8};
	memset(buf + code_off, 0x90, code_sz); /* nops */
	pos = code_off + code_sz;

	sh[1] = (Elf64_Shdr){.sh_name = 1, .sh_type = SHT_PROGBITS,
			     .sh_flags = SHF_ALLOC | SHF_EXECINSTR, .sh_addr = vaddr,
			     .sh_offset = code_off, .sh_size = code_sz, .sh_addralign = 16};
	sh[2] = (Elf64_Shdr){.sh_name = 7, .sh_type = SHT_STRTAB, .sh_offset = pos,
			     .sh_size = sizeof(shstr), .sh_addralign = 1};
	memcpy(buf + pos, shstr, sizeof(shstr));
	pos = (pos + sizeof(shstr) + 7) & ~(size_t)7;
	for (size_t i = 0; i < fn_cnt; i++) {
		syms[i + 1] = (Elf64_Sym){.st_name = (Elf64_Word)str_len,
					  .st_info = ELF64_ST_INFO(STB_LOCAL, STT_FUNC),
					  .st_shndx = 1, .st_value = vaddr + fns[i].off,
					  .st_size = fns[i].size};
		memcpy(strtab + str_len, fns[i].name, strlen(fns[i].name) + 1);
		str_len += strlen(fns[i].name) + 1;
	}
	sh[3] = (Elf64_Shdr){.sh_name = 17, .sh_type = SHT_SYMTAB, .sh_offset = pos,
			     .sh_size = (fn_cnt + 1) * sizeof(Elf64_Sym), .sh_link = 4,
			     .sh_info = 0, .sh_addralign = 8, .sh_entsize = sizeof(Elf64_Sym)};
	memcpy(buf + pos, syms, sh[3].sh_size);
	pos += sh[3].sh_size;
	sh[4] = (Elf64_Shdr){.sh_name = 25, .sh_type = SHT_STRTAB, .sh_offset = pos,
			     .sh_size = str_len, .sh_addralign = 1};
	memcpy(buf + pos, strtab, str_len);
	pos = (pos + str_len + 7) & ~(size_t)7;
	eh->e_shoff = pos;
	memcpy(buf + pos, sh, sizeof(sh));
	pos += sizeof(sh);
	assert_true(pos <= sizeof(buf));

	f = fopen(path, "wb");
	assert_non_null(f);
	assert_int_equal(fwrite(buf, 1, pos, f), pos);
	assert_int_equal(fclose(f), 0);
}

/* Look up file offset off: want name at offset fn_off, or nothing. */
static void want(struct ctx *c, uint64_t off, const char *name, uint64_t fn_off)
{
	struct tdr_dso_ref ref = {.path = c->path};
	struct tdr_sym sym;

	assert_int_equal(tdr_symbolizer__lookup(c->s, &ref, off, &sym), 0);
	if (!name) {
		if (sym.status == TDR_SYM_OK)
			fail_msg("offset 0x%llx: '%s', want no symbol", (unsigned long long)off,
				 sym.function);
		assert_int_equal(sym.status, TDR_SYM_NO_SYMBOL);
		return;
	}
	if (sym.status != TDR_SYM_OK)
		fail_msg("offset 0x%llx: status %d, want %s", (unsigned long long)off,
			 (int)sym.status, name);
	assert_string_equal(sym.function, name);
	assert_int_equal(sym.function_offset, fn_off);
}

/* perf's genelf: .text at 0x80 in the file and in memory, the symbol at
 * its start. The samples' MMAP2 pgoff is 0x80, so their file offsets are
 * 0x80 + (ip - start). */
static void test_jit_inject__genelf_layout(void **state)
{
	struct ctx *c = *state;
	const struct fn fn = {"JS:*hotLoop /tmp/x/hot.js:1:17", 0, 0x30};

	write_elf(c->path, 0x80, 0x80, 0x30, &fn, 1);
	want(c, 0x80, fn.name, 0);
	want(c, 0x80 + 0x13, fn.name, 0x13);
	want(c, 0x80 + 0x2f, fn.name, 0x2f);
	want(c, 0x80 + 0x30, NULL, 0); /* past the code */
	want(c, 0x40, NULL, 0);	       /* the headers: not loaded */
}

/* The general case: the first PT_LOAD at file offset 0x100 and address
 * 0x400100 (as a prelinked library or a linker script can put it), two
 * functions. The file offset 0x100 + k is the address 0x400100 + k. */
static void test_jit_inject__first_load_far_from_zero(void **state)
{
	struct ctx *c = *state;
	const struct fn fns[] = {{"first_fn", 0, 0x20}, {"second_fn", 0x20, 0x40}};

	write_elf(c->path, 0x100, 0x400100, 0x60, fns, 2);
	want(c, 0x100, "first_fn", 0);
	want(c, 0x100 + 0x1f, "first_fn", 0x1f);
	want(c, 0x100 + 0x20, "second_fn", 0);
	want(c, 0x100 + 0x5f, "second_fn", 0x3f);
	want(c, 0x100 + 0x60, NULL, 0);
}

static const char hot_js[] =
    "function hotLoop(n) { let s = 0; for (let i = 0; i < n; i++) s += Math.sqrt(i) * (i & 7);"
    " return s; }\n"
    "function otherWork(n) { let a = []; for (let i = 0; i < n; i++) a.push(i ^ (i >> 3));"
    " return a.length; }\n"
    "let t = 0; const end = Date.now() + 1200;\n"
    "while (Date.now() < end) { t += hotLoop(200000); t += otherWork(20000); }\n"
    "if (t <= 0) console.log('never');\n";

/* perf report's rows "  52.20%  jitted-1-2.so  [.] JS:*hotLoop ..." whose
 * object is a jitted-*.so: object, name and share, at most cap. */
struct prow {
	char dso[128], name[512];
	double share;
};

static size_t perf_jit_rows(const char *out, struct prow *rows, size_t cap)
{
	size_t n = 0;

	for (const char *l = out; l && *l && n < cap; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
		const char *sym = strstr(l, "[.] "), *eol = strchr(l, '\n');
		const char *dso = strstr(l, "jitted-");
		size_t len;

		if (l[0] == '#' || !sym || (eol && sym > eol) || !dso || dso > sym)
			continue;
		rows[n].share = atof(l) / 100;
		len = strcspn(dso, " ");
		snprintf(rows[n].dso, sizeof(rows[n].dso), "%.*s", (int)len, dso);
		sym += 4;
		len = eol ? (size_t)(eol - sym) : strlen(sym);
		while (len && sym[len - 1] == ' ')
			len--;
		snprintf(rows[n].name, sizeof(rows[n].name), "%.*s", (int)len, sym);
		n++;
	}
	return n;
}

/* node --perf-prof, perf record, perf inject --jit: tdrec names the JIT
 * functions from the jitted-*.so files as perf report does, same shares. */
static void test_jit_inject__perf_inject_agrees_with_perf(void **state)
{
	struct ctx *c = *state;
	const char *tdrec = getenv("TDREC");
	struct prow want_rows[3];
	char *out;
	size_t n;
	FILE *f;
	char js[128];

	if (!tdrec ||
	    test_run(NULL, "command -v node >/dev/null 2>&1 && command -v perf >/dev/null 2>&1")) {
		print_message("node or perf is not installed: skipped\n");
		skip();
	}
	snprintf(js, sizeof(js), "%s/hot.js", c->dir);
	f = fopen(js, "w");
	assert_non_null(f);
	fputs(hot_js, f);
	fclose(f);
	if (test_run(NULL,
		"cd '%s' && perf record -q -k 1 -e cpu-clock -c 250000 -o raw.data node "
		"--perf-prof hot.js >/dev/null 2>&1",
		c->dir)) {
		print_message("perf record failed (perf_event_paranoid?): skipped\n");
		skip();
	}
	if (test_run(NULL, "cd '%s' && perf inject --jit -i raw.data -o inj.data >/dev/null 2>&1",
		c->dir) ||
	    test_run(NULL, "ls '%s'/jitted-*.so >/dev/null 2>&1", c->dir)) {
		print_message("perf inject --jit wrote no jitted-*.so: skipped\n");
		skip();
	}
	assert_int_equal(test_run(&out,
			     "perf report -i '%s/inj.data' --stdio --sort dso,sym 2>/dev/null",
			     c->dir),
			 0);
	n = perf_jit_rows(out, want_rows, 3);
	free(out);
	assert_true(n >= 1);
	if (strncmp(want_rows[0].name, "JS:", 3) || !strstr(want_rows[0].name, "hotLoop"))
		fail_msg("perf's top JIT row '%s', want JS:...hotLoop", want_rows[0].name);

	assert_int_equal(test_run(&out, "'%s' report -i '%s/inj.data' --json", tdrec, c->dir), 0);
	{
		size_t where = 0;
		struct jm *j = jm_parse(out, &where);
		const struct jm *rows;

		assert_non_null(j);
		rows = jm_get(j, "rows");
		assert_non_null(rows);
		/* One row per (object, function), as perf's dso,sym: a function
		 * compiled again lives in another jitted-*.so. */
		for (size_t k = 0; k < n; k++) {
			const struct prow *w = &want_rows[k];
			double share = -1;

			for (size_t i = 0; i < rows->n; i++) {
				const struct jm *r = jm_at(rows, i);
				const char *dso = jm_get(r, "dso")->str, *base = strrchr(dso, '/');

				if (!strcmp(jm_get(r, "name")->str, w->name) &&
				    !strcmp(base ? base + 1 : dso, w->dso))
					share = jm_get(r, "share")->num;
			}
			if (share < 0)
				fail_msg("tdrec has no row '%s' in %s (perf: %.3f)", w->name, w->dso,
					 w->share);
			if (share - w->share > 0.02 || w->share - share > 0.02)
				fail_msg("%s: tdrec %.3f, perf %.3f", w->name, share, w->share);
		}
		/* No row left as a bare jitted-*.so offset. */
		for (size_t i = 0; i < rows->n; i++) {
			const char *name = jm_get(jm_at(rows, i), "name")->str;

			if (strstr(name, "jitted-") && strstr(name, ".so+0x"))
				fail_msg("unnamed JIT row '%s'", name);
		}
		jm_free(j);
	}
	free(out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_jit_inject__genelf_layout, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_jit_inject__first_load_far_from_zero, setup,
					    teardown),
	    cmocka_unit_test_setup_teardown(test_jit_inject__perf_inject_agrees_with_perf, setup,
					    teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
