/*
 * symbolize/rnglist.c - a DIE's DW_AT_ranges list read from the section
 * bytes, for the inline instances of the subprograms addresses fall in.
 *
 * Responsibility: the lists of units that are not split: DWARF 5
 * .debug_rnglists (every DW_RLE_* entry; the indexed ones through the
 * unit's .debug_addr table; lists named by DW_FORM_rnglistx through the
 * unit's offset table; DWARF 5 sections 7.25 and 7.27) and DWARF 2 to 4
 * .debug_ranges (address pairs, base address selection, end of list;
 * DWARF 4 section 2.17.3). The answer is what libdw's dwarf_ranges gives
 * (elfutils libdw/dwarf_ranges.c, __libdw_read_begin_end_pair_inc): the
 * same base address (the unit's DW_AT_low_pc, else DW_AT_entry_pc, else 0)
 * and the same entries in the same order. dwarf_ranges costs two attribute
 * scans and its set-up per DIE before the first entry; this costs one read.
 * An entry of another kind, an index without its table (no DW_AT_addr_base
 * or DW_AT_rnglists_base: libdw's defaults are its own), an offset or
 * entry beyond the section, or a section libdw did not leave uncompressed
 * gives -EINVAL with nothing appended: the caller then asks
 * dwarf_ranges, so this only decides how fast an answer comes.
 * Ownership: the section bytes are libdw's (live as long as the Dwarf).
 */
#include "symbolize_int.h"

#include <dwarf.h>
#include <endian.h>
#include <errno.h>
#include <gelf.h>
#include <string.h>

#include "tdrec/tdr_mem.h"

void tdr_symbolize_rng__init(struct sym_rng_sec *rs, Dwarf *dbg)
{
	Elf *elf = dwarf_getelf(dbg);
	GElf_Ehdr eh;

	memset(rs, 0, sizeof(*rs));
	rs->dbg = dbg;
	if (!elf || !gelf_getehdr(elf, &eh))
		return;
	rs->swap = eh.e_ident[EI_DATA] != (BYTE_ORDER == LITTLE_ENDIAN ? ELFDATA2LSB : ELFDATA2MSB);
	tdr_symbolize_section(elf, ".debug_rnglists", &rs->v5, &rs->v5_size);
	tdr_symbolize_section(elf, ".debug_ranges", &rs->v4, &rs->v4_size);
	tdr_symbolize_section(elf, ".debug_addr", &rs->addr, &rs->addr_size);
}

/* The base address libdw gives a unit's range lists (__libdw_cu_base_address). */
static uint64_t unit_base(Dwarf_Die *cudie)
{
	Dwarf_Attribute mem;
	Dwarf_Addr base;

	if (dwarf_lowpc(cudie, &base) == 0 ||
	    dwarf_formaddr(dwarf_attr(cudie, DW_AT_entry_pc, &mem), &base) == 0)
		return base;
	return 0;
}

int tdr_symbolize_rng__unit(struct sym_rng_unit *u, const struct sym_rng_sec *rs, Dwarf_Die *die)
{
	Dwarf_Die cudie;
	Dwarf_Half version;
	Dwarf_Attribute at;
	Dwarf_Word w;
	uint8_t unit_type, addr_size, offset_size;
	uint64_t unit_id;

	memset(u, 0, sizeof(*u));
	if (dwarf_cu_getdwarf(die->cu) != rs->dbg ||
	    dwarf_cu_info(die->cu, &version, &unit_type, &cudie, NULL, &unit_id, &addr_size,
			  &offset_size) != 0)
		return -EINVAL;
	/* Split and skeleton units find their lists through each other. */
	if ((unit_type != DW_UT_compile && unit_type != DW_UT_partial) || version < 2 ||
	    version > 5 || (addr_size != 4 && addr_size != 8))
		return -EINVAL;
	u->version = version;
	u->addr_size = addr_size;
	u->offset_size = offset_size;
	u->base = unit_base(&cudie);
	/* The indexed forms' tables (elfutils __libdw_cu_addr_base,
	 * __libdw_cu_ranges_base); without the attribute, libdw's defaults
	 * are left to libdw. */
	if ((dwarf_attr(&cudie, DW_AT_GNU_addr_base, &at) ||
	     dwarf_attr(&cudie, DW_AT_addr_base, &at)) &&
	    dwarf_formudata(&at, &w) == 0) {
		u->addr_base = w;
		u->have_addr_base = true;
	}
	if (dwarf_attr(&cudie, DW_AT_rnglists_base, &at) && dwarf_formudata(&at, &w) == 0) {
		u->rnglists_base = w;
		u->have_rnglists_base = true;
	}
	u->usable = true;
	return 0;
}

int tdr_symbolize_rng__addrx(const struct sym_rng_sec *rs, const struct sym_rng_unit *u,
			     uint64_t idx, uint64_t *addr)
{
	uint64_t w = u->addr_size;

	if (!u->usable || !u->have_addr_base || !rs->addr || u->addr_base > rs->addr_size ||
	    idx >= (rs->addr_size - u->addr_base) / w)
		return -EINVAL;
	*addr = sym_read_un(rs->addr + u->addr_base + idx * w, (int)w, rs->swap);
	return 0;
}

int tdr_symbolize_rng__index(const struct sym_rng_sec *rs, const struct sym_rng_unit *u,
			     uint64_t idx, uint64_t *off)
{
	uint64_t w = u->offset_size;

	/* As dwarf_ranges reads DW_FORM_rnglistx (libdw/dwarf_ranges.c):
	 * an offset from the table's start, entry idx of the table. */
	if (!u->usable || !u->have_rnglists_base || !rs->v5 || w > rs->v5_size ||
	    u->rnglists_base > rs->v5_size - w || idx > (rs->v5_size - w - u->rnglists_base) / w)
		return -EINVAL;
	*off = sym_read_un(rs->v5 + u->rnglists_base + idx * w, (int)w, rs->swap) +
	       u->rnglists_base;
	return 0;
}

static int add(struct sym_range_vec *v, uint64_t lo, uint64_t hi, uint32_t idx, int *n)
{
	if (lo >= hi) /* as the CU walk skips them from dwarf_ranges */
		return 0;
	if (tdr_ensure_cap(&v->r, &v->cap, sizeof(*v->r), v->cnt + 1))
		return -ENOMEM;
	v->r[v->cnt++] = (struct sym_range){ .lo = lo, .hi = hi, .idx = idx };
	++*n;
	return 0;
}

/* The DWARF 5 list at p (inside data .. end). Returns entries added, or
 * -EINVAL / -ENOMEM. */
static int read_v5(const struct sym_rng_sec *rs, const struct sym_rng_unit *u, const uint8_t *p,
		   const uint8_t *end, struct sym_range_vec *v, uint32_t idx)
{
	uint64_t base = u->base, a, b;
	size_t w = u->addr_size;
	int n = 0;

	while (p < end) {
		switch (*p++) {
		case DW_RLE_end_of_list:
			return n;
		case DW_RLE_offset_pair:
			if (!(p = sym_read_uleb(p, end, &a)) || !(p = sym_read_uleb(p, end, &b)))
				return -EINVAL;
			if (add(v, base + a, base + b, idx, &n))
				return -ENOMEM;
			break;
		case DW_RLE_base_addressx:
			if (!(p = sym_read_uleb(p, end, &a)) || tdr_symbolize_rng__addrx(rs, u, a, &base))
				return -EINVAL;
			break;
		case DW_RLE_startx_endx:
			if (!(p = sym_read_uleb(p, end, &a)) || !(p = sym_read_uleb(p, end, &b)) ||
			    tdr_symbolize_rng__addrx(rs, u, a, &a) ||
			    tdr_symbolize_rng__addrx(rs, u, b, &b))
				return -EINVAL;
			if (add(v, a, b, idx, &n))
				return -ENOMEM;
			break;
		case DW_RLE_startx_length:
			if (!(p = sym_read_uleb(p, end, &a)) || !(p = sym_read_uleb(p, end, &b)) ||
			    tdr_symbolize_rng__addrx(rs, u, a, &a))
				return -EINVAL;
			if (add(v, a, a + b, idx, &n))
				return -ENOMEM;
			break;
		case DW_RLE_base_address:
			if ((size_t)(end - p) < w)
				return -EINVAL;
			base = sym_read_un(p, u->addr_size, rs->swap);
			p += w;
			break;
		case DW_RLE_start_end:
			if ((size_t)(end - p) < 2 * w)
				return -EINVAL;
			a = sym_read_un(p, u->addr_size, rs->swap);
			b = sym_read_un(p + w, u->addr_size, rs->swap);
			p += 2 * w;
			if (add(v, a, b, idx, &n))
				return -ENOMEM;
			break;
		case DW_RLE_start_length:
			if ((size_t)(end - p) < w)
				return -EINVAL;
			a = sym_read_un(p, u->addr_size, rs->swap);
			if (!(p = sym_read_uleb(p + w, end, &b)))
				return -EINVAL;
			if (add(v, a, a + b, idx, &n))
				return -ENOMEM;
			break;
		default:
			return -EINVAL;
		}
	}
	return -EINVAL;
}

/* The DWARF 2 to 4 list at p. Returns entries added, or -EINVAL / -ENOMEM. */
static int read_v4(const struct sym_rng_sec *rs, const struct sym_rng_unit *u, const uint8_t *p,
		   const uint8_t *end, struct sym_range_vec *v, uint32_t idx)
{
	uint64_t base = u->base;
	uint64_t escape = u->addr_size == 8 ? UINT64_MAX : UINT32_MAX;
	size_t w = u->addr_size;
	int n = 0;

	while ((size_t)(end - p) >= 2 * w) {
		uint64_t a = sym_read_un(p, u->addr_size, rs->swap), b = sym_read_un(p + w, u->addr_size, rs->swap);

		p += 2 * w;
		if (a == escape) {
			if (b == escape)
				return -EINVAL;
			base = b;
			continue;
		}
		if (a == 0 && b == 0)
			return n;
		if (add(v, base + a, base + b, idx, &n))
			return -ENOMEM;
	}
	return -EINVAL;
}

int tdr_symbolize_rng__read(const struct sym_rng_sec *rs, const struct sym_rng_unit *u,
			    uint64_t off, struct sym_range_vec *v, uint32_t idx)
{
	size_t before = v->cnt;
	const uint8_t *data = u->version >= 5 ? rs->v5 : rs->v4;
	size_t size = u->version >= 5 ? rs->v5_size : rs->v4_size;
	int n;

	if (!u->usable || !data || off >= size)
		return -EINVAL;
	n = u->version >= 5 ? read_v5(rs, u, data + off, data + size, v, idx)
			    : read_v4(rs, u, data + off, data + size, v, idx);
	if (n < 0)
		v->cnt = before;
	return n;
}
