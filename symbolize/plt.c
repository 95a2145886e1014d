/*
 * symbolize/plt.c - names for PLT stubs ("read@plt"), as objdump and perf give them.
 *
 * Responsibility: a PLT stub is code the linker made, with no symbol and no
 * DWARF, yet programs spend time in it (every call into a shared library
 * passes one). On x86-64 every stub jumps through its GOT slot with
 * `jmp *disp32(%rip)` (ff 25), after an optional endbr64 and bnd prefix; the
 * dynamic relocation of that slot (R_X86_64_JUMP_SLOT in .rela.plt, or
 * R_X86_64_GLOB_DAT in .rela.dyn for .plt.got) names the function; for an
 * R_X86_64_IRELATIVE slot (a libc-internal call to an ifunc: memcpy,
 * strchrnul) the addend is the resolver, named by the IFUNC symbol there,
 * else "*ABS*+0x..." as objdump writes it. This file
 * decodes each stub of .plt, .plt.sec and .plt.got that way and returns
 * "name@plt" ranges for the symbol table. The PLT header (PLT0) and the
 * lazy-binding halves of an IBT .plt jump elsewhere and stay unnamed.
 * Other architectures: no stubs are named (NO_SYMBOL, as before).
 * Names are demangled (std::terminate()@plt), like every ELF symbol name.
 * Ownership: names are allocated in the symbolizer's arena.
 * See: binutils bfd/elfxx-x86.c (elf_x86_64_get_synthetic_symtab), which
 * does the same for objdump; the x86-64 psABI, "Procedure Linkage Table".
 */
#include "symbolize_int.h"

#include <errno.h>
#include <gelf.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tdrec/tdr_mem.h"

#ifndef R_X86_64_GLOB_DAT
#define R_X86_64_GLOB_DAT 6
#endif
#ifndef R_X86_64_JUMP_SLOT
#define R_X86_64_JUMP_SLOT 7
#endif
#ifndef R_X86_64_IRELATIVE
#define R_X86_64_IRELATIVE 37
#endif

/* A GOT slot and the name of the function it is relocated to. */
struct got_name {
	uint64_t slot;
	const char *name;
};

static int got_cmp(const void *a, const void *b)
{
	const struct got_name *x = a, *y = b;

	return x->slot < y->slot ? -1 : x->slot > y->slot;
}

/* The IFUNC symbols of a dynamic symbol table, by address (ties: in table
 * order), for naming IRELATIVE slots. */
struct ifunc_syms {
	size_t symscn; /* the table's section index; 0: not read yet */
	struct ifunc_sym {
		uint64_t addr;
		size_t idx;
		const char *name;
	} * v;
	size_t cnt;
};

static int ifunc_cmp(const void *a, const void *b)
{
	const struct ifunc_sym *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return x->idx < y->idx ? -1 : x->idx > y->idx;
}

/* Read the IFUNC symbols of syms (section symscn, names in strndx) once.
 * Returns 0 or -ENOMEM. */
static int ifunc_syms_read(struct ifunc_syms *f, Elf *elf, Elf_Data *syms, size_t sym_cnt,
			   size_t symscn, size_t strndx)
{
	size_t cap = 0;

	if (f->symscn == symscn)
		return 0;
	f->symscn = symscn;
	f->cnt = 0;
	for (size_t i = 0; i < sym_cnt; i++) {
		GElf_Sym sym;
		const char *n;

		if (!gelf_getsym(syms, (int)i, &sym) ||
		    GELF_ST_TYPE(sym.st_info) != STT_GNU_IFUNC ||
		    !(n = elf_strptr(elf, strndx, sym.st_name)) || !n[0])
			continue;
		if (tdr_ensure_cap(&f->v, &cap, sizeof(*f->v), f->cnt + 1))
			return -ENOMEM;
		f->v[f->cnt++] = (struct ifunc_sym){.addr = sym.st_value, .idx = i, .name = n};
	}
	if (f->cnt)
		qsort(f->v, f->cnt, sizeof(*f->v), ifunc_cmp);
	return 0;
}

/* The name of an IRELATIVE slot whose resolver is at addr: the first IFUNC
 * symbol of f there, else "*ABS*+0x..." as objdump writes it (in s's arena;
 * NULL when out of memory). */
static const char *ifunc_name(struct tdr_symbolizer *s, const struct ifunc_syms *f, uint64_t addr)
{
	size_t lo = 0, hi = f->cnt;
	char buf[32], *name;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (f->v[mid].addr < addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < f->cnt && f->v[lo].addr == addr)
		return f->v[lo].name;
	snprintf(buf, sizeof(buf), "*ABS*+0x%" PRIx64, addr);
	name = tdr_arena__alloc(&s->arena, strlen(buf) + 1);
	if (name)
		strcpy(name, buf);
	return name;
}

/* GOT slots named by the dynamic relocations of elf (JUMP_SLOT, GLOB_DAT
 * against a named symbol, IRELATIVE), sorted. Returns the count, or
 * -ENOMEM. */
static int got_names(struct tdr_symbolizer *s, Elf *elf, struct got_name **out)
{
	struct got_name *v = NULL;
	struct ifunc_syms ifuncs = {0};
	size_t cnt = 0, cap = 0;
	Elf_Scn *scn = NULL;

	while ((scn = elf_nextscn(elf, scn)) != NULL) {
		Elf_Scn *symscn;
		Elf_Data *data, *syms;
		GElf_Shdr sh, symsh;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_RELA || !sh.sh_entsize)
			continue;
		symscn = elf_getscn(elf, sh.sh_link);
		if (!symscn || !gelf_getshdr(symscn, &symsh) || symsh.sh_type != SHT_DYNSYM)
			continue;
		data = elf_getdata(scn, NULL);
		syms = elf_getdata(symscn, NULL);
		for (size_t i = 0; data && syms && i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Rela rela;
			GElf_Sym sym;
			const char *name;
			uint64_t type;

			if (!gelf_getrela(data, (int)i, &rela))
				break;
			type = GELF_R_TYPE(rela.r_info);
			if (type == R_X86_64_IRELATIVE) {
				name = ifunc_syms_read(
					   &ifuncs, elf, syms,
					   symsh.sh_entsize ? symsh.sh_size / symsh.sh_entsize : 0,
					   sh.sh_link, symsh.sh_link)
					   ? NULL
					   : ifunc_name(s, &ifuncs, (uint64_t)rela.r_addend);
				if (!name) {
					free(ifuncs.v);
					free(v);
					return -ENOMEM;
				}
			} else {
				if ((type != R_X86_64_JUMP_SLOT && type != R_X86_64_GLOB_DAT) ||
				    !gelf_getsym(syms, (int)GELF_R_SYM(rela.r_info), &sym))
					continue;
				name = elf_strptr(elf, symsh.sh_link, sym.st_name);
				if (!name || !name[0])
					continue;
			}
			if (tdr_ensure_cap(&v, &cap, sizeof(*v), cnt + 1)) {
				free(ifuncs.v);
				free(v);
				return -ENOMEM;
			}
			v[cnt++] = (struct got_name){.slot = rela.r_offset, .name = name};
		}
	}
	free(ifuncs.v);
	if (cnt)
		qsort(v, cnt, sizeof(*v), got_cmp);
	*out = v;
	return (int)cnt;
}

static const char *got_lookup(const struct got_name *v, size_t n, uint64_t slot)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (v[mid].slot < slot)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n && v[lo].slot == slot ? v[lo].name : NULL;
}

/* The GOT slot a stub of sz bytes at p (vaddr addr) jumps through: the
 * first `ff 25 disp32` in it. Returns false when it has none. */
static bool stub_slot(const uint8_t *p, size_t sz, uint64_t addr, uint64_t *slot)
{
	for (size_t i = 0; i + 6 <= sz; i++) {
		if (p[i] == 0xff && p[i + 1] == 0x25) {
			int32_t disp =
			    (int32_t)((uint32_t)p[i + 2] | (uint32_t)p[i + 3] << 8 |
				      (uint32_t)p[i + 4] << 16 | (uint32_t)p[i + 5] << 24);

			*slot = addr + i + 6 + (uint64_t)(int64_t)disp;
			return true;
		}
	}
	return false;
}

static bool is_plt_section(const char *name)
{
	return name &&
	       (!strcmp(name, ".plt") || !strcmp(name, ".plt.sec") || !strcmp(name, ".plt.got"));
}

int tdr_symbolize_plt__stubs(struct tdr_symbolizer *s, Elf *elf, struct sym_plt_stub **out,
			     size_t *cnt)
{
	struct sym_plt_stub *v = NULL;
	struct got_name *got = NULL;
	size_t n = 0, cap = 0, shstrndx;
	Elf_Scn *scn = NULL;
	GElf_Ehdr eh;
	int got_cnt, err = 0;

	*out = NULL;
	*cnt = 0;
	if (!gelf_getehdr(elf, &eh) || eh.e_machine != EM_X86_64 ||
	    elf_getshdrstrndx(elf, &shstrndx))
		return 0;
	got_cnt = got_names(s, elf, &got);
	if (got_cnt <= 0)
		return got_cnt;
	while (!err && (scn = elf_nextscn(elf, scn)) != NULL) {
		GElf_Shdr sh;
		Elf_Data *data;
		size_t step;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_PROGBITS ||
		    !is_plt_section(elf_strptr(elf, shstrndx, sh.sh_name)))
			continue;
		data = elf_getdata(scn, NULL);
		step = sh.sh_entsize ? sh.sh_entsize : 16;
		if (!data || !data->d_buf || data->d_size < sh.sh_size || step > 64)
			continue;
		for (uint64_t k = 0; k + step <= sh.sh_size; k += step) {
			const char *name;
			uint64_t slot;
			char *full;

			if (!stub_slot((const uint8_t *)data->d_buf + k, step, sh.sh_addr + k,
				       &slot) ||
			    !(name = got_lookup(got, (size_t)got_cnt, slot)))
				continue;
			/* C++ names are demangled before the suffix is added. */
			name = tdr_symbolize_demangle(s, name);
			full =
			    name ? tdr_arena__alloc(&s->arena, strlen(name) + sizeof("@plt")) : NULL;
			if (!full || tdr_ensure_cap(&v, &cap, sizeof(*v), n + 1)) {
				err = -ENOMEM;
				break;
			}
			strcpy(full, name);
			strcat(full, "@plt");
			v[n++] = (struct sym_plt_stub){
			    .vaddr = sh.sh_addr + k, .size = step, .name = full};
		}
	}
	free(got);
	if (err) {
		free(v);
		return err;
	}
	*out = v;
	*cnt = n;
	return 0;
}
