/*
 * symbolize/diescan.c - step over the DIEs of one unit by their
 * abbreviations, without libdw decoding their attributes.
 *
 * Responsibility: where the CU walk (dwarf.c) only needs each DIE's tag,
 * whether it has children, where it ends, its DW_AT_sibling and, for inline
 * instances, its pc attributes, abstract origin and call site, read them
 * from the unit's bytes. libdw's dwarf_siblingof
 * decodes every attribute of every DIE it steps over and, for a DIE without
 * DW_AT_sibling, steps over its whole subtree again after the caller has
 * walked it. The bytes are those of the DIE addresses libdw hands out
 * (Dwarf_Die.addr; dwarf_die_addr_die turns an address back into a DIE)
 * and of .debug_abbrev as libdw holds it; read here are the unit's
 * abbreviation table (DWARF 5 section 7.5.3), the size of each attribute
 * value from its form (section 7.5.6 "Form Encodings"; DWARF 2 to 4 and the
 * GNU forms of elfutils' dwarf.h), low pc, high pc and DW_AT_ranges in the
 * forms GCC writes and clang's addrx and rnglistx indexes, and references
 * and constants in the forms dwarf_formref_die and dwarf_formudata read. A
 * form not listed, an abbreviation code the table lacks, a length beyond
 * the unit, a unit beyond its section, a table beyond the section: the
 * scan fails (or leaves those attributes unread) and the caller uses libdw, so
 * the scan only decides how fast an answer comes, never what it is.
 * Ownership: a scan borrows the unit's bytes (live as long as the Dwarf)
 * and owns its abbreviation table (tdr_symbolize_diescan__free).
 */
#include "symbolize_int.h"

#include <dwarf.h>
#include <endian.h>
#include <errno.h>
#include <gelf.h>
#include <stdlib.h>
#include <string.h>

#include "tdrec/tdr_mem.h"

/* Bounds of an abbreviation table the scan takes on; a larger one (no
 * compiler writes one) is left to libdw. */
#define MAX_CODE 65535u
#define MAX_ATTRS 256u

/* What a form's value occupies: a fixed size, or how to find it. */
enum { SZ_LEB = -1, SZ_STRING = -2, SZ_BLOCK1 = -3, SZ_BLOCK2 = -4, SZ_BLOCK4 = -5,
       SZ_BLOCK = -6, SZ_INDIRECT = -7, SZ_UNKNOWN = -8 };

static int form_size(const struct sym_die_scan *sc, unsigned form)
{
	switch (form) {
	case DW_FORM_flag_present:
	case DW_FORM_implicit_const:
		return 0;
	case DW_FORM_data1: case DW_FORM_ref1: case DW_FORM_flag: case DW_FORM_strx1:
	case DW_FORM_addrx1:
		return 1;
	case DW_FORM_data2: case DW_FORM_ref2: case DW_FORM_strx2: case DW_FORM_addrx2:
		return 2;
	case DW_FORM_strx3: case DW_FORM_addrx3:
		return 3;
	case DW_FORM_data4: case DW_FORM_ref4: case DW_FORM_strx4: case DW_FORM_addrx4:
	case DW_FORM_ref_sup4:
		return 4;
	case DW_FORM_data8: case DW_FORM_ref8: case DW_FORM_ref_sig8: case DW_FORM_ref_sup8:
		return 8;
	case DW_FORM_data16:
		return 16;
	case DW_FORM_addr:
		return sc->addr_size;
	case DW_FORM_ref_addr: /* an address in DWARF 2, an offset since */
		return sc->version == 2 ? sc->addr_size : sc->offset_size;
	case DW_FORM_strp: case DW_FORM_line_strp: case DW_FORM_sec_offset:
	case DW_FORM_strp_sup: case DW_FORM_GNU_ref_alt: case DW_FORM_GNU_strp_alt:
		return sc->offset_size;
	case DW_FORM_sdata: case DW_FORM_udata: case DW_FORM_ref_udata: case DW_FORM_strx:
	case DW_FORM_addrx: case DW_FORM_loclistx: case DW_FORM_rnglistx:
	case DW_FORM_GNU_addr_index: case DW_FORM_GNU_str_index:
		return SZ_LEB;
	case DW_FORM_string:
		return SZ_STRING;
	case DW_FORM_block1:
		return SZ_BLOCK1;
	case DW_FORM_block2:
		return SZ_BLOCK2;
	case DW_FORM_block4:
		return SZ_BLOCK4;
	case DW_FORM_block: case DW_FORM_exprloc:
		return SZ_BLOCK;
	case DW_FORM_indirect:
		return SZ_INDIRECT;
	default:
		return SZ_UNKNOWN;
	}
}

/* Past one value of form (its size sz from form_size) at p; NULL when it
 * does not end inside the unit. indirect: whether an indirect form may
 * follow (not twice, as in libdw). */
static const uint8_t *skip_value(const struct sym_die_scan *sc, const uint8_t *p, int sz,
				 bool indirect)
{
	const uint8_t *end = sc->end;
	uint64_t len;

	switch (sz) {
	case SZ_LEB:
		while (p < end && (*p & 0x80))
			p++;
		return p < end ? p + 1 : NULL;
	case SZ_STRING: {
		const uint8_t *nul = memchr(p, 0, (size_t)(end - p));

		return nul ? nul + 1 : NULL;
	}
	case SZ_BLOCK1:
		if (end - p < 1)
			return NULL;
		len = *p++;
		break;
	case SZ_BLOCK2:
	case SZ_BLOCK4: {
		int n = sz == SZ_BLOCK2 ? 2 : 4;

		if (end - p < n)
			return NULL;
		len = sym_read_un(p, n, sc->swap);
		p += n;
		break;
	}
	case SZ_BLOCK:
		if (!(p = sym_read_uleb(p, end, &len)))
			return NULL;
		break;
	case SZ_INDIRECT: {
		uint64_t form;
		int inner;

		if (!indirect || !(p = sym_read_uleb(p, end, &form)) || form > MAX_CODE)
			return NULL;
		inner = form_size(sc, (unsigned)form);
		/* An implicit constant lives in the abbreviation, not here. */
		if (inner == SZ_UNKNOWN || form == DW_FORM_implicit_const)
			return NULL;
		return skip_value(sc, p, inner, false);
	}
	case SZ_UNKNOWN:
		return NULL;
	default:
		len = (uint64_t)sz;
		break;
	}
	return len <= (uint64_t)(end - p) ? p + len : NULL;
}

void tdr_symbolize_section(Elf *elf, const char *name, const uint8_t **data, size_t *size)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx;

	*data = NULL;
	*size = 0;
	if (elf_getshdrstrndx(elf, &shstrndx) != 0)
		return;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		const char *n;
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh) || !(n = elf_strptr(elf, shstrndx, sh.sh_name)) ||
		    strcmp(n, name))
			continue;
		/* libdw decompresses its sections in place when it opens
		 * them; one still compressed is not the one it reads. */
		if ((sh.sh_flags & SHF_COMPRESSED) || sh.sh_type == SHT_NOBITS ||
		    !(d = elf_getdata(scn, NULL)) || !d->d_buf)
			return;
		*data = d->d_buf;
		*size = d->d_size;
		return;
	}
}

static uint8_t attr_role(uint64_t name)
{
	switch (name) {
	case DW_AT_low_pc: return SCAN_LOW_PC;
	case DW_AT_high_pc: return SCAN_HIGH_PC;
	case DW_AT_ranges: return SCAN_RANGES;
	case DW_AT_abstract_origin: return SCAN_ORIGIN;
	case DW_AT_call_file: return SCAN_CALL_FILE;
	case DW_AT_call_line: return SCAN_CALL_LINE;
	case DW_AT_call_column: return SCAN_CALL_COLUMN;
	case DW_AT_name: case DW_AT_linkage_name: case DW_AT_MIPS_linkage_name:
	case DW_AT_specification:
		return SCAN_NAMED;
	case DW_AT_sibling:
		return SCAN_SIBLING;
	default:
		return SCAN_SKIP;
	}
}

/*
 * The unit's abbreviation table, from p (its start in .debug_abbrev) to
 * end: entries of code, tag, children flag and (name, form) pairs ending
 * in two zeros, an implicit constant after its form, the table ending in a
 * zero code (DWARF 5 section 7.5.3). Returns 0, 1 when it is not one the
 * scan takes on (cut short, codes or attribute lists beyond its bounds),
 * or -ENOMEM. A code given twice keeps its first entry.
 */
static int read_abbrevs(struct sym_die_scan *sc, const uint8_t *p, const uint8_t *end)
{
	uint64_t code, tag, name, form;
	int64_t implicit;

	while ((p = sym_read_uleb(p, end, &code)) && code != 0) {
		struct sym_scan_abbrev e = { .first = (uint32_t)sc->attrs_cnt, .known = true };
		unsigned n = 0;

		if (code > MAX_CODE || !(p = sym_read_uleb(p, end, &tag)) || tag > UINT16_MAX ||
		    p >= end)
			return 1;
		e.tag = (uint16_t)tag;
		e.has_children = *p++ != 0;
		for (;;) {
			uint8_t role;

			if (!(p = sym_read_uleb(p, end, &name)) || !(p = sym_read_uleb(p, end, &form)))
				return 1;
			if (name == 0 && form == 0)
				break;
			implicit = 0;
			if (form == DW_FORM_implicit_const && !(p = sym_read_sleb(p, end, &implicit)))
				return 1;
			if (++n > MAX_ATTRS || form > UINT16_MAX)
				return 1;
			if (tdr_ensure_cap(&sc->attrs, &sc->attrs_cap, sizeof(*sc->attrs),
					   sc->attrs_cnt + 1))
				return -ENOMEM;
			if (form == DW_FORM_implicit_const) {
				if (sc->implicit_cnt >= UINT32_MAX ||
				    tdr_ensure_cap(&sc->implicit, &sc->implicit_cap,
						   sizeof(*sc->implicit), sc->implicit_cnt + 1))
					return -ENOMEM;
				sc->implicit[sc->implicit_cnt] = implicit;
			}
			role = attr_role(name);
			e.has_pc |= role >= SCAN_LOW_PC && role <= SCAN_RANGES;
			e.has_call |= role >= SCAN_ORIGIN && role <= SCAN_NAMED &&
				      tag == DW_TAG_inlined_subroutine;
			sc->attrs[sc->attrs_cnt++] = (struct sym_scan_attr){
			    .size = (int8_t)form_size(sc, (unsigned)form), .role = role,
			    .form = (uint16_t)form,
			    .implicit = (uint32_t)(form == DW_FORM_implicit_const ? sc->implicit_cnt++
										   : 0)};
		}
		e.cnt = (uint16_t)n;
		if (code >= sc->code_cnt) {
			size_t cnt = sc->code_cnt;

			if (tdr_ensure_cap(&sc->by_code, &sc->code_cap, sizeof(*sc->by_code), code + 1))
				return -ENOMEM;
			memset(sc->by_code + cnt, 0, (code + 1 - cnt) * sizeof(*sc->by_code));
			sc->code_cnt = code + 1;
		}
		if (!sc->by_code[code].known)
			sc->by_code[code] = e;
	}
	return p ? 0 : 1;
}

int tdr_symbolize_diescan__init(struct sym_die_scan *sc, Dwarf_Die *in_unit)
{
	Dwarf_Die cudie;
	Dwarf_Half version;
	Dwarf_Off abbrev_off, unit_off, next_off, die_off;
	uint8_t addr_size, offset_size, a2, o2;
	Dwarf_Half v2;
	Dwarf_Off ab2;
	const uint8_t *abbrev, *info;
	size_t hsize, abbrev_size, info_size;
	GElf_Ehdr ehdr;
	Elf *elf;
	int err;

	memset(sc, 0, sizeof(*sc));
	sc->dbg = dwarf_cu_getdwarf(in_unit->cu);
	if (!sc->dbg || !dwarf_cu_die(in_unit->cu, &cudie, &version, &abbrev_off, &addr_size,
				      &offset_size, NULL, NULL))
		return 1;
	/* The unit's extent, from its header in .debug_info; a unit that is
	 * not there (a DWARF 4 type unit) is left to libdw. */
	die_off = dwarf_dieoffset(&cudie);
	unit_off = die_off - dwarf_cuoffset(&cudie);
	if (dwarf_next_unit(sc->dbg, unit_off, &next_off, &hsize, &v2, &ab2, &a2, &o2, NULL,
			    NULL) != 0 ||
	    v2 != version || ab2 != abbrev_off || a2 != addr_size || o2 != offset_size ||
	    unit_off + hsize != die_off || next_off <= die_off)
		return 1;
	if (version < 2 || version > 5 || (addr_size != 4 && addr_size != 8) ||
	    (offset_size != 4 && offset_size != 8))
		return 1;
	elf = dwarf_getelf(sc->dbg);
	if (!elf || !gelf_getehdr(elf, &ehdr))
		return 1;
	sc->swap = ehdr.e_ident[EI_DATA] != (BYTE_ORDER == LITTLE_ENDIAN ? ELFDATA2LSB : ELFDATA2MSB);
	/* The unit must lie inside the section libdw read it from:
	 * dwarf_next_unit gives the end a unit's header claims, which a
	 * damaged header puts past the section. */
	tdr_symbolize_section(elf, ".debug_info", &info, &info_size);
	if (!info)
		tdr_symbolize_section(elf, ".debug_info.dwo", &info, &info_size);
	if (!info || (uintptr_t)cudie.addr - (uintptr_t)info != die_off || next_off > info_size)
		return 1;
	sc->base = info;
	sc->end = sc->base + next_off;
	sc->unit = sc->base + unit_off;
	sc->dies = sc->base + die_off;
	sc->addr_size = addr_size;
	sc->offset_size = offset_size;
	sc->version = version;

	/* The unit's abbreviations (a split unit's are in the .dwo's section). */
	tdr_symbolize_section(elf, ".debug_abbrev", &abbrev, &abbrev_size);
	if (!abbrev)
		tdr_symbolize_section(elf, ".debug_abbrev.dwo", &abbrev, &abbrev_size);
	if (!abbrev || abbrev_off >= abbrev_size)
		return 1;
	err = read_abbrevs(sc, abbrev + abbrev_off, abbrev + abbrev_size);
	if (err)
		tdr_symbolize_diescan__free(sc);
	return err;
}

/*
 * Take the value at p (form, size sz, ending at next) of an attribute with a
 * pc role into pc, when it is the first of its name and in a form read here
 * (those dwarf_formaddr and dwarf_formudata read the same way: elfutils
 * libdw/dwarf_formaddr.c, dwarf_formudata.c); any other form clears
 * pc->read.
 */
/* A .debug_addr index (DW_FORM_addrx, addrx1 to addrx4, GNU_addr_index) at
 * p, ending at next; false for any other form. */
static bool read_index(const struct sym_die_scan *sc, const struct sym_scan_attr *at,
		       const uint8_t *p, const uint8_t *next, uint64_t *v)
{
	switch (at->form) {
	case DW_FORM_addrx: case DW_FORM_GNU_addr_index:
		return sym_read_uleb(p, next, v) != NULL;
	case DW_FORM_addrx1: case DW_FORM_addrx2: case DW_FORM_addrx4:
		*v = sym_read_un(p, at->size, sc->swap);
		return true;
	case DW_FORM_addrx3:
		*v = sc->swap ? (uint64_t)p[0] << 16 | (uint64_t)p[1] << 8 | p[2]
			      : (uint64_t)p[2] << 16 | (uint64_t)p[1] << 8 | p[0];
		return true;
	default:
		return false;
	}
}

static void take_pc(const struct sym_die_scan *sc, const struct sym_scan_attr *at,
		    const uint8_t *p, const uint8_t *next, struct sym_scan_pc *pc)
{
	uint64_t v;

	switch (at->role) {
	case SCAN_LOW_PC:
		if (pc->have_low)
			return;
		pc->have_low = true;
		if (at->form == DW_FORM_addr)
			pc->low = sym_read_un(p, at->size, sc->swap);
		else if (read_index(sc, at, p, next, &pc->low))
			pc->low_is_index = true;
		else
			pc->read = false;
		return;
	case SCAN_HIGH_PC:
		if (pc->have_high)
			return;
		pc->have_high = true;
		switch (at->form) {
		case DW_FORM_addr:
			pc->high = sym_read_un(p, at->size, sc->swap);
			pc->high_is_len = false;
			return;
		case DW_FORM_data1: case DW_FORM_data2: case DW_FORM_data4: case DW_FORM_data8:
			pc->high = sym_read_un(p, at->size, sc->swap);
			pc->high_is_len = true;
			return;
		case DW_FORM_udata:
			if (!sym_read_uleb(p, next, &v))
				break;
			pc->high = v;
			pc->high_is_len = true;
			return;
		default:
			break;
		}
		pc->read = false;
		return;
	case SCAN_RANGES:
		if (pc->have_ranges)
			return;
		pc->have_ranges = true;
		if (at->form == DW_FORM_sec_offset) {
			pc->ranges = sym_read_un(p, at->size, sc->swap);
		} else if (at->form == DW_FORM_rnglistx && sym_read_uleb(p, next, &v)) {
			pc->ranges = v;
			pc->ranges_is_index = true;
		} else {
			pc->read = false;
		}
		return;
	default:
		return;
	}
}

/* A constant at p (ending at next) as dwarf_formudata reads it; false for
 * a form it does not read that way (then libdw is asked). */
static bool read_const(const struct sym_die_scan *sc, const struct sym_scan_attr *at,
		       const uint8_t *p, const uint8_t *next, uint64_t *v)
{
	int64_t sv;

	switch (at->form) {
	case DW_FORM_data1: case DW_FORM_data2: case DW_FORM_data4: case DW_FORM_data8:
		*v = sym_read_un(p, at->size, sc->swap);
		return true;
	case DW_FORM_udata:
		return sym_read_uleb(p, next, v) != NULL;
	case DW_FORM_sdata:
		if (!sym_read_sleb(p, next, &sv))
			return false;
		*v = (uint64_t)sv;
		return true;
	case DW_FORM_implicit_const:
		*v = (uint64_t)sc->implicit[at->implicit];
		return true;
	default:
		return false;
	}
}

/* The DIE a unit-relative reference at p (ending at next) names, when it
 * lies among the unit's DIEs; else NULL (one to a header, past the unit or
 * in another form is libdw's to judge). */
static const uint8_t *read_unit_ref(const struct sym_die_scan *sc, const struct sym_scan_attr *at,
				    const uint8_t *p, const uint8_t *next)
{
	uint64_t v;

	if (at->form == DW_FORM_ref1 || at->form == DW_FORM_ref2 || at->form == DW_FORM_ref4 ||
	    at->form == DW_FORM_ref8)
		v = sym_read_un(p, at->size, sc->swap);
	else if (at->form != DW_FORM_ref_udata || !sym_read_uleb(p, next, &v))
		return NULL;
	if (v < (uint64_t)(sc->dies - sc->unit) || v >= (uint64_t)(sc->end - sc->unit))
		return NULL;
	return sc->unit + v;
}

/* Take the value at p (ending at next) of an attribute with a call role
 * into call, when it is the first of its name and in a form read here; any
 * other form, or a name of the DIE's own, clears call->read. */
static void take_call(const struct sym_die_scan *sc, const struct sym_scan_attr *at,
		      const uint8_t *p, const uint8_t *next, struct sym_scan_call *call)
{
	bool *have;
	uint64_t *dst;

	switch (at->role) {
	case SCAN_ORIGIN:
		if (call->have_origin)
			return;
		call->have_origin = true;
		if (!(call->origin = read_unit_ref(sc, at, p, next)))
			call->read = false;
		return;
	case SCAN_CALL_FILE: have = &call->have_file; dst = &call->file; break;
	case SCAN_CALL_LINE: have = &call->have_line; dst = &call->line; break;
	case SCAN_CALL_COLUMN: have = &call->have_column; dst = &call->column; break;
	case SCAN_NAMED:
		call->read = false;
		return;
	default:
		return;
	}
	if (*have)
		return;
	*have = true;
	if (!read_const(sc, at, p, next, dst))
		call->read = false;
}

const uint8_t *tdr_symbolize_diescan__next(const struct sym_die_scan *sc, const uint8_t *p,
					   struct sym_scan_die *d, struct sym_scan_pc *pc,
					   struct sym_scan_call *call)
{
	const struct sym_scan_abbrev *e;
	uint64_t code;
	bool want_pc, want_call;

	if (p < sc->base || p >= sc->end || !(p = sym_read_uleb(p, sc->end, &code)))
		return NULL;
	d->null = code == 0;
	if (pc)
		*pc = (struct sym_scan_pc){ .read = true };
	if (call)
		call->read = false;
	if (d->null)
		return p;
	if (code >= sc->code_cnt || !(e = &sc->by_code[code])->known)
		return NULL;
	d->tag = e->tag;
	d->has_children = e->has_children;
	d->sibling = NULL;
	want_pc = pc && e->has_pc;
	want_call = call && e->has_call;
	if (want_call)
		*call = (struct sym_scan_call){ .read = true };
	for (uint32_t i = e->first; i < e->first + e->cnt; i++) {
		const struct sym_scan_attr *at = &sc->attrs[i];
		const uint8_t *at_p = p;

		if (at->size >= 0 && (uint64_t)at->size <= (uint64_t)(sc->end - p))
			p += at->size;
		else if (!(p = skip_value(sc, p, at->size, true)))
			return NULL;
		if (at->role == SCAN_SKIP)
			continue;
		if (at->role <= SCAN_RANGES) {
			if (want_pc)
				take_pc(sc, at, at_p, p, pc);
		} else if (at->role == SCAN_SIBLING) {
			if (!d->sibling)
				d->sibling = read_unit_ref(sc, at, at_p, p);
		} else if (want_call) {
			take_call(sc, at, at_p, p, call);
		}
	}
	/* A sibling inside the DIE's own bytes, or before them, is no jump
	 * forward: stepping over the children is left to the caller. */
	if (d->sibling && d->sibling < p)
		d->sibling = NULL;
	/* Without an origin, libdw names it (or says it has no name). */
	if (want_call && !call->have_origin)
		call->read = false;
	return p;
}

void tdr_symbolize_diescan__free(struct sym_die_scan *sc)
{
	zfree(&sc->by_code);
	zfree(&sc->attrs);
	zfree(&sc->implicit);
	sc->code_cnt = sc->code_cap = sc->attrs_cnt = sc->attrs_cap = 0;
	sc->implicit_cnt = sc->implicit_cap = 0;
}
