/*
 * symbolize/diescan.c - step over the DIEs of one unit by their
 * abbreviations, without decoding their attributes.
 *
 * Responsibility: where the CU walk (dwarf.c) only needs each DIE's tag,
 * whether it has children and where it ends, read that from the unit's
 * bytes. libdw's dwarf_siblingof decodes every attribute of every DIE it
 * steps over and, for a DIE without DW_AT_sibling, steps over its whole
 * subtree again after the caller has walked it. The abbreviations are read
 * by libdw (dwarf_getabbrev), the bytes are those of the DIE addresses libdw
 * hands out (Dwarf_Die.addr; dwarf_die_addr_die turns an address back into
 * a DIE); only the size of each attribute value is computed here, from its
 * form (DWARF 5, section 7.5.6 "Form Encodings"; DWARF 2 to 4 and the GNU
 * forms of elfutils' dwarf.h). A form not listed, an abbreviation code the
 * table lacks, a length beyond the unit or an object of the other byte
 * order makes the scan fail: the caller then walks with libdw, so the scan
 * only decides how fast an answer comes, never what it is.
 * Ownership: a scan borrows the unit's bytes (live as long as the Dwarf)
 * and owns its abbreviation table (tdr_symbolize_diescan__free).
 */
#include "symbolize_int.h"

#include <byteswap.h>
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

/* An unsigned LEB128 at *p (below end) into *v; NULL when it runs past end
 * or does not fit 64 bits. */
static const uint8_t *read_uleb(const uint8_t *p, const uint8_t *end, uint64_t *v)
{
	uint64_t r = 0;

	for (unsigned shift = 0; p < end; shift += 7) {
		uint8_t b = *p++;

		if (shift >= 64 || (shift == 63 && (b & 0x7e)))
			return NULL;
		r |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80)) {
			*v = r;
			return p;
		}
	}
	return NULL;
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
	case SZ_BLOCK2: {
		uint16_t v;

		if (end - p < 2)
			return NULL;
		memcpy(&v, p, 2);
		len = sc->swap ? bswap_16(v) : v;
		p += 2;
		break;
	}
	case SZ_BLOCK4: {
		uint32_t v;

		if (end - p < 4)
			return NULL;
		memcpy(&v, p, 4);
		len = sc->swap ? bswap_32(v) : v;
		p += 4;
		break;
	}
	case SZ_BLOCK:
		if (!(p = read_uleb(p, end, &len)))
			return NULL;
		break;
	case SZ_INDIRECT: {
		uint64_t form;
		int inner;

		if (!indirect || !(p = read_uleb(p, end, &form)) || form > MAX_CODE)
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

/* Append code's entry from libdw's abbreviation a. Returns 0, 1 when the
 * table is beyond what the scan takes on, or -ENOMEM. */
static int add_abbrev(struct sym_die_scan *sc, Dwarf_Abbrev *a)
{
	unsigned code = dwarf_getabbrevcode(a);
	struct sym_scan_abbrev *e;
	size_t n = 0;

	if (code == 0 || code > MAX_CODE)
		return 1;
	if (code >= sc->code_cnt) {
		size_t cnt = sc->code_cnt;

		if (tdr_ensure_cap(&sc->by_code, &sc->code_cap, sizeof(*sc->by_code), code + 1))
			return -ENOMEM;
		memset(sc->by_code + cnt, 0, (code + 1 - cnt) * sizeof(*sc->by_code));
		sc->code_cnt = code + 1;
	}
	e = &sc->by_code[code];
	if (e->known) /* a code given twice: libdw keeps the first */
		return 0;
	e->first = (uint32_t)sc->sizes_cnt;
	/* Attributes until libdw says the index is past the end: not up to
	 * dwarf_getattrcnt, which counts one too many after an implicit
	 * constant (elfutils 0.188). */
	for (;; n++) {
		unsigned name, form;
		Dwarf_Sword data;

		if (dwarf_getabbrevattr_data(a, n, &name, &form, &data, NULL) != 0)
			break;
		if (n == MAX_ATTRS)
			return 1;
		if (tdr_ensure_cap(&sc->sizes, &sc->sizes_cap, sizeof(*sc->sizes), sc->sizes_cnt + 1))
			return -ENOMEM;
		sc->sizes[sc->sizes_cnt++] = (int8_t)form_size(sc, form);
	}
	e->cnt = (uint16_t)n;
	e->tag = (uint16_t)dwarf_getabbrevtag(a);
	e->has_children = dwarf_abbrevhaschildren(a) > 0;
	e->known = true;
	return 0;
}

int tdr_symbolize_diescan__init(struct sym_die_scan *sc, Dwarf_Die *in_unit)
{
	Dwarf_Die cudie;
	Dwarf_Half version;
	Dwarf_Off abbrev_off, unit_off, next_off, die_off;
	uint8_t addr_size, offset_size, a2, o2;
	Dwarf_Half v2;
	Dwarf_Off ab2;
	size_t hsize, len;
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
	sc->base = (const uint8_t *)cudie.addr - die_off;
	sc->end = sc->base + next_off;
	sc->addr_size = addr_size;
	sc->offset_size = offset_size;
	sc->version = version;

	/* The unit's abbreviations, in table order, until the end marker. */
	for (Dwarf_Off off = 0;; off += len) {
		Dwarf_Abbrev *a = dwarf_getabbrev(&cudie, off, &len);

		if (a == DWARF_END_ABBREV)
			return 0;
		if (!a || len == 0)
			break;
		if ((err = add_abbrev(sc, a))) {
			tdr_symbolize_diescan__free(sc);
			return err;
		}
	}
	tdr_symbolize_diescan__free(sc);
	return 1;
}

const uint8_t *tdr_symbolize_diescan__next(const struct sym_die_scan *sc, const uint8_t *p,
					   struct sym_scan_die *d)
{
	const struct sym_scan_abbrev *e;
	uint64_t code;

	if (p < sc->base || p >= sc->end || !(p = read_uleb(p, sc->end, &code)))
		return NULL;
	d->null = code == 0;
	if (d->null)
		return p;
	if (code >= sc->code_cnt || !(e = &sc->by_code[code])->known)
		return NULL;
	d->tag = e->tag;
	d->has_children = e->has_children;
	for (uint32_t i = e->first; i < e->first + e->cnt; i++) {
		int sz = sc->sizes[i];

		if (sz >= 0 && (uint64_t)sz <= (uint64_t)(sc->end - p))
			p += sz;
		else if (!(p = skip_value(sc, p, sz, true)))
			return NULL;
	}
	return p;
}

void tdr_symbolize_diescan__free(struct sym_die_scan *sc)
{
	zfree(&sc->by_code);
	zfree(&sc->sizes);
	sc->code_cnt = sc->code_cap = sc->sizes_cnt = sc->sizes_cap = 0;
}
