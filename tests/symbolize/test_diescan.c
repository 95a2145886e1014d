/*
 * tests/symbolize/test_diescan.c - the DIE scanner (symbolize/diescan.c)
 * and the range list reader (symbolize/rnglist.c) against libdw, and on cut
 * and damaged bytes.
 *
 * The fixtures are built at run time by gcc, g++ and clang (DWARF 4 and 5,
 * split DWARF, compressed sections). For every unit the scanner steps over
 * every DIE in lockstep with libdw's preorder walk (dwarf_child,
 * dwarf_siblingof): same address, tag and children flag at each DIE, and an
 * end-of-children entry exactly where libdw finds no more siblings, and the
 * pc and call attributes libdw reads wherever the scan read them. Then the
 * first unit is copied into a buffer of its exact size, cut at every length
 * and damaged at many places: a scan must stop with NULL or stay inside the
 * copy, never read past it (ASan) nor loop. The range list reader gives,
 * for every DIE with DW_AT_ranges of linked gcc and clang programs, the
 * ranges dwarf_ranges gives, or declines (-EINVAL, left to dwarf_ranges);
 * on a cut copy of .debug_rnglists it never reads past the copy.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <dwarf.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <unistd.h>

#include "sym_fixture.h"
#include "symbolize_int.h"

static char *tmp;
/* Split units scanned (through their skeletons) so far. */
static size_t split_units;

static int setup(void **state)
{
	(void)state;
	tmp = fx_tmpdir();
	return tmp ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	if (!getenv("TDR_KEEP_TMP"))
		fx_rmrf(tmp);
	free(tmp);
	return 0;
}

/* Compile fixture src with cc and flags into tmp/name; returns the path. */
static char *build(const char *name, const char *cc, const char *flags, const char *src)
{
	char *out = NULL;

	assert_true(asprintf(&out, "%s/%s", tmp, name) > 0);
	assert_int_equal(fx_sh("cd '%s' && %s -O2 %s -c -o '%s' '%s/%s'", tmp, cc, flags, out,
			       fx_src_dir(), src),
			 0);
	return out;
}

/* DIEs whose pc attributes the scan read, and compared with libdw's. */
static size_t pc_read;

/* The pc attributes the scan read for die, against libdw's own readers. */
static void same_pc(Dwarf_Die *die, const struct sym_scan_pc *pc)
{
	Dwarf_Attribute at;
	Dwarf_Addr lo, hi;
	Dwarf_Word off;

	if (!pc->read)
		return;
	assert_int_equal(pc->have_low, dwarf_hasattr(die, DW_AT_low_pc));
	assert_int_equal(pc->have_high, dwarf_hasattr(die, DW_AT_high_pc));
	assert_int_equal(pc->have_ranges, dwarf_hasattr(die, DW_AT_ranges));
	/* An addrx index is resolved by rnglist.c (test_rnglist__*). */
	if (pc->have_low && !pc->low_is_index) {
		assert_int_equal(dwarf_lowpc(die, &lo), 0);
		assert_int_equal(pc->low, lo);
	}
	if (pc->have_low && pc->have_high && !pc->low_is_index) {
		assert_int_equal(dwarf_highpc(die, &hi), 0);
		assert_int_equal(pc->high_is_len ? pc->low + pc->high : pc->high, hi);
	}
	if (pc->have_ranges && !pc->ranges_is_index) {
		assert_non_null(dwarf_attr(die, DW_AT_ranges, &at));
		/* dwarf_formudata checks the offset against the section. */
		if (dwarf_formudata(&at, &off) == 0)
			assert_int_equal(pc->ranges, off);
	}
	pc_read += pc->have_low || pc->have_ranges;
}

/* Inline instances whose call attributes the scan read; DIEs whose
 * DW_AT_sibling it read. */
static size_t call_read, sibling_read;

/* The sibling the scan read for die: the DIE dwarf_formref_die finds from
 * its DW_AT_sibling, where dwarf_siblingof goes. */
static void same_sibling(Dwarf_Die *die, const struct sym_scan_die *d)
{
	Dwarf_Attribute at;
	Dwarf_Die sib;

	if (!d->sibling)
		return;
	assert_non_null(dwarf_attr(die, DW_AT_sibling, &at));
	assert_non_null(dwarf_formref_die(&at, &sib));
	assert_ptr_equal(d->sibling, sib.addr);
	sibling_read++;
}

/* One call attribute as the scan read it, against dwarf_formudata. */
static void same_const(Dwarf_Die *die, int name, bool have, uint64_t v)
{
	Dwarf_Attribute at;
	Dwarf_Word w;

	assert_int_equal(have, dwarf_hasattr(die, name));
	if (!have)
		return;
	assert_non_null(dwarf_attr(die, name, &at));
	assert_int_equal(dwarf_formudata(&at, &w), 0);
	assert_int_equal(v, w);
}

/* The call attributes the scan read for die (an inline instance's only),
 * against libdw's: its origin is the DIE dwarf_formref_die finds. */
static void same_call(Dwarf_Die *die, const struct sym_scan_call *call)
{
	Dwarf_Attribute at;
	Dwarf_Die origin;

	if (dwarf_tag(die) != DW_TAG_inlined_subroutine) {
		assert_false(call->read);
		return;
	}
	if (!call->read)
		return;
	assert_false(dwarf_hasattr(die, DW_AT_name) || dwarf_hasattr(die, DW_AT_linkage_name) ||
		     dwarf_hasattr(die, DW_AT_MIPS_linkage_name) ||
		     dwarf_hasattr(die, DW_AT_specification));
	assert_non_null(dwarf_attr(die, DW_AT_abstract_origin, &at));
	assert_non_null(dwarf_formref_die(&at, &origin));
	assert_ptr_equal(call->origin, origin.addr);
	same_const(die, DW_AT_call_file, call->have_file, call->file);
	same_const(die, DW_AT_call_line, call->have_line, call->line);
	same_const(die, DW_AT_call_column, call->have_column, call->column);
	call_read++;
}

/* Compare the children list starting at p (the scanner's position) with
 * libdw's list from first (NULL: libdw finds no child). Returns the scanner's
 * position after the list's end entry; counts the DIEs in *n. */
static const uint8_t *same_list(const struct sym_die_scan *sc, const uint8_t *p, Dwarf_Die *first,
				size_t *n)
{
	Dwarf_Die cur;
	bool have = first != NULL;

	if (have)
		cur = *first;
	for (;;) {
		struct sym_scan_die d;
		struct sym_scan_pc pc;
		struct sym_scan_call call;
		const uint8_t *at = p;

		p = tdr_symbolize_diescan__next(sc, p, &d, &pc, &call);
		assert_non_null(p);
		if (d.null) {
			assert_false(have);
			return p;
		}
		assert_true(have);
		assert_ptr_equal(at, cur.addr);
		assert_int_equal(d.tag, dwarf_tag(&cur));
		assert_int_equal(d.has_children, dwarf_haschildren(&cur) > 0);
		same_pc(&cur, &pc);
		same_call(&cur, &call);
		same_sibling(&cur, &d);
		++*n;
		if (d.has_children) {
			Dwarf_Die child;

			p = same_list(sc, p, dwarf_child(&cur, &child) == 0 ? &child : NULL, n);
		}
		have = dwarf_siblingof(&cur, &cur) == 0;
	}
}

/* Scan every unit of dbg in lockstep with libdw; returns the DIEs seen. */
static size_t same_units(Dwarf *dbg)
{
	Dwarf_CU *cu = NULL, *next;
	Dwarf_Half version;
	uint8_t unit_type;
	Dwarf_Die cudie, subdie;
	size_t n = 0, units = 0;

	while (dwarf_get_units(dbg, cu, &next, &version, &unit_type, &cudie, &subdie) == 0) {
		Dwarf_Die *top = unit_type == DW_UT_skeleton ? &subdie : &cudie;
		struct sym_die_scan sc;
		struct sym_scan_die d;
		const uint8_t *p;
		Dwarf_Die child;

		cu = next;
		if (unit_type == DW_UT_skeleton && !dwarf_tag(&subdie))
			continue; /* its .dwo was not found */
		assert_int_equal(tdr_symbolize_diescan__init(&sc, top), 0);
		split_units += top == &subdie;
		p = tdr_symbolize_diescan__next(&sc, top->addr, &d, NULL, NULL);
		assert_non_null(p);
		assert_int_equal(d.tag, dwarf_tag(top));
		n++;
		if (d.has_children)
			p = same_list(&sc, p, dwarf_child(top, &child) == 0 ? &child : NULL, &n);
		assert_true(p <= sc.end);
		tdr_symbolize_diescan__free(&sc);
		units++;
	}
	assert_true(units > 0);
	return n;
}

/* Scan path's units in lockstep with libdw. */
static void check_object(const char *path)
{
	int fd = open(path, O_RDONLY);
	Dwarf *dbg;
	size_t n;

	assert_true(fd >= 0);
	dbg = dwarf_begin(fd, DWARF_C_READ);
	assert_non_null(dbg);
	pc_read = call_read = sibling_read = 0;
	n = same_units(dbg);
	/* The fixture has dozens of functions, parameters, types, inlines. */
	assert_true(n > 50);
	assert_true(pc_read > 5);
	assert_true(call_read > 0);
	dwarf_end(dbg);
	close(fd);
}

/* Build src with cc and flags into tmp/name, then check_object it. */
static void check_build(const char *name, const char *cc, const char *flags, const char *src)
{
	char *o = build(name, cc, flags, src);

	check_object(o);
	free(o);
}

static void test_diescan__gcc_dwarf5(void **state)
{
	(void)state;
	check_build("g5.o", "gcc", "-g -gdwarf-5", "fx_main.c");
	assert_true(sibling_read > 0); /* GCC writes DW_AT_sibling */
}

static void test_diescan__gcc_dwarf4(void **state)
{
	(void)state;
	check_build("g4.o", "gcc", "-gdwarf-4", "fx_main.c");
}

static void test_diescan__gcc_dwarf2_and_3(void **state)
{
	(void)state;
	check_build("g2.o", "gcc", "-gdwarf-2 -gstrict-dwarf", "fx_main.c");
	check_build("g3.o", "gcc", "-gdwarf-3", "fx_main.c");
}

static void test_diescan__cplusplus(void **state)
{
	(void)state;
	check_build("cpp.o", "g++", "-g", "fx_cpp.cc");
}

static void test_diescan__clang(void **state)
{
	(void)state;
	if (!fx_have("clang"))
		skip();
	check_build("c5.o", "clang", "-g -gdwarf-5", "fx_main.c");
	check_build("c4.o", "clang", "-gdwarf-4", "fx_main.c");
}

/* Split DWARF: the units of the .dwo, through the skeletons (libdw opens
 * the .dwo next to the object). */
static void test_diescan__split_dwarf(void **state)
{
	char *o = NULL;

	(void)state;
	/* Linked: in an object file, libdw would read the skeleton's
	 * DW_AT_dwo_name before relocation. */
	assert_true(asprintf(&o, "%s/split", tmp) > 0);
	assert_int_equal(fx_sh("cd '%s' && gcc -O2 -g -gsplit-dwarf -o split '%s/fx_main.c' "
			       "'%s/fx_lib.c' && ls ./*.dwo >/dev/null",
			       tmp, fx_src_dir(), fx_src_dir()),
			 0);
	split_units = 0;
	check_object(o);
	assert_int_equal(split_units, 2);
	free(o);
}

/* Compressed sections: libdw decompresses them; the scan reads its copy. */
static void test_diescan__compressed(void **state)
{
	(void)state;
	check_build("gz.o", "gcc", "-g -gz", "fx_main.c");
}

/* A unit whose header claims more bytes than its section holds (libdw's
 * dwarf_next_unit gives that end as it is): the scan declines it, so that
 * nothing reads past the section (a fuzzer found the read). */
static void test_diescan__unit_longer_than_section(void **state)
{
	char *o = build("long.o", "gcc", "-g -gdwarf-5", "fx_main.c");
	char *bad = NULL;
	Dwarf_CU *cu = NULL, *next;
	Dwarf_Half version;
	uint8_t unit_type;
	Dwarf_Die cudie, subdie;
	struct sym_die_scan sc;
	const uint8_t *info;
	size_t info_size;
	size_t shstrndx;
	Elf_Scn *scn = NULL;
	off_t info_off = -1;
	uint32_t len = 0x3ffffff0; /* 32-bit DWARF, far past the section */
	Dwarf *dbg;
	Elf *elf;
	int fd;

	(void)state;
	assert_true(asprintf(&bad, "%s/long-bad.o", tmp) > 0);
	assert_int_equal(fx_sh("cp '%s' '%s'", o, bad), 0);
	fd = open(bad, O_RDWR);
	assert_true(fd >= 0);
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ, NULL);
	assert_non_null(elf);
	assert_int_equal(elf_getshdrstrndx(elf, &shstrndx), 0);
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;

		assert_non_null(gelf_getshdr(scn, &sh));
		if (!strcmp(elf_strptr(elf, shstrndx, sh.sh_name), ".debug_info"))
			info_off = (off_t)sh.sh_offset;
	}
	elf_end(elf);
	assert_true(info_off > 0);
	assert_int_equal(pwrite(fd, &len, sizeof(len), info_off), (ssize_t)sizeof(len));
	close(fd);

	fd = open(bad, O_RDONLY);
	dbg = dwarf_begin(fd, DWARF_C_READ);
	assert_non_null(dbg);
	assert_int_equal(dwarf_get_units(dbg, cu, &next, &version, &unit_type, &cudie, &subdie), 0);
	tdr_symbolize_section(dwarf_getelf(dbg), ".debug_info", &info, &info_size);
	assert_non_null(info);
	assert_true(info_size < len);
	assert_int_equal(tdr_symbolize_diescan__init(&sc, &cudie), 1);
	dwarf_end(dbg);
	close(fd);
	free(bad);
	free(o);
}

/* Scan the whole unit in sc (base .. end) linearly from p; returns whether it
 * stopped on an unreadable entry (NULL) rather than at the end. Levels are
 * not tracked: every entry is read, null or not, as far as the bytes go. */
static bool scan_to_end(const struct sym_die_scan *sc, const uint8_t *p)
{
	while (p && p < sc->end) {
		struct sym_scan_die d;

		p = tdr_symbolize_diescan__next(sc, p, &d, NULL, NULL);
	}
	return p == NULL;
}

/*
 * The first unit (at offset 0) of a gcc object copied into a heap buffer of
 * exactly its size, so that ASan sees any read past it: cut at every
 * length, a scan ends at the cut (NULL, or exactly at the end when the cut
 * falls between entries); with bytes set to 0xff here and there (lengths,
 * codes and LEB128s that run on), it still never reads past the copy.
 */
static void test_diescan__cut_and_damaged_units(void **state)
{
	char *o = build("cut.o", "gcc", "-g -gdwarf-5", "fx_main.c");
	int fd = open(o, O_RDONLY);
	Dwarf_CU *cu = NULL, *next;
	Dwarf_Half version;
	uint8_t unit_type;
	Dwarf_Die cudie, subdie;
	struct sym_die_scan sc, cut;
	Dwarf *dbg;
	size_t die_off, len, stopped = 0;

	(void)state;
	assert_true(fd >= 0);
	dbg = dwarf_begin(fd, DWARF_C_READ);
	assert_non_null(dbg);
	assert_int_equal(dwarf_get_units(dbg, cu, &next, &version, &unit_type, &cudie, &subdie), 0);
	assert_int_equal(tdr_symbolize_diescan__init(&sc, &cudie), 0);
	assert_int_equal(dwarf_dieoffset(&cudie) - dwarf_cuoffset(&cudie), 0);
	die_off = (size_t)((const uint8_t *)cudie.addr - sc.base);
	len = (size_t)(sc.end - sc.base);
	assert_false(scan_to_end(&sc, cudie.addr));

	for (size_t cut_at = die_off; cut_at < len; cut_at++) {
		uint8_t *copy = malloc(cut_at);

		assert_non_null(copy);
		memcpy(copy, sc.base, cut_at);
		cut = sc;
		cut.base = copy;
		cut.end = copy + cut_at;
		stopped += scan_to_end(&cut, copy + die_off);
		free(copy);
	}
	/* Most cuts fall inside an entry. */
	assert_true(stopped > (len - die_off) / 2);

	for (size_t at = die_off; at < len; at += 7) {
		uint8_t *copy = malloc(len);

		assert_non_null(copy);
		memcpy(copy, sc.base, len);
		copy[at] = 0xff;
		if (at + 1 < len)
			copy[at + 1] = 0xff;
		cut = sc;
		cut.base = copy;
		cut.end = copy + len;
		scan_to_end(&cut, copy + die_off);
		free(copy);
	}
	tdr_symbolize_diescan__free(&sc);
	dwarf_end(dbg);
	close(fd);
	free(o);
}

/* Every range of die's list as dwarf_ranges gives it (empty ones left out,
 * as the CU walk leaves them out). */
static size_t libdw_ranges(Dwarf_Die *die, struct sym_range *out, size_t cap)
{
	Dwarf_Addr base, lo, hi;
	ptrdiff_t off = 0;
	size_t n = 0;

	while ((off = dwarf_ranges(die, off, &base, &lo, &hi)) > 0)
		if (lo < hi && n < cap)
			out[n++] = (struct sym_range){ .lo = lo, .hi = hi };
	return n;
}

struct rng_count {
	size_t read, declined, addrx;
};

/* Compare the lists of every DIE with DW_AT_ranges under parent. */
static void same_ranges_under(const struct sym_rng_sec *rs, const struct sym_rng_unit *u,
			      Dwarf_Die *parent, struct rng_count *cnt)
{
	Dwarf_Die die;

	if (dwarf_child(parent, &die) != 0)
		return;
	do {
		Dwarf_Attribute at;
		Dwarf_Word off;

		if (dwarf_attr(&die, DW_AT_low_pc, &at) &&
		    (at.form == DW_FORM_addrx || at.form == DW_FORM_addrx1 ||
		     at.form == DW_FORM_addrx2 || at.form == DW_FORM_addrx4)) {
			Dwarf_Addr lo;
			uint64_t idx = 0, got;

			/* The index as the form holds it, resolved here and by libdw. */
			if (at.form == DW_FORM_addrx)
				assert_non_null(sym_read_uleb(at.valp, at.valp + 10, &idx));
			else
				idx = sym_read_un(at.valp, at.form == DW_FORM_addrx1   ? 1
							   : at.form == DW_FORM_addrx2 ? 2
										       : 4,
						  false);
			assert_int_equal(dwarf_lowpc(&die, &lo), 0);
			assert_int_equal(tdr_symbolize_rng__addrx(rs, u, idx, &got), 0);
			assert_int_equal(got, lo);
			cnt->addrx++;
		}
		if (dwarf_attr(&die, DW_AT_ranges, &at) && !dwarf_hasattr(&die, DW_AT_high_pc)) {
			struct sym_range want[64];
			struct sym_range_vec got = { 0 };
			size_t n = libdw_ranges(&die, want, 64);
			uint64_t idx = 0;
			int r = -EINVAL;

			if (u->usable && at.form == DW_FORM_sec_offset &&
			    dwarf_formudata(&at, &off) == 0)
				r = tdr_symbolize_rng__read(rs, u, off, &got, 7);
			if (u->usable && at.form == DW_FORM_rnglistx &&
			    sym_read_uleb(at.valp, at.valp + 10, &idx) &&
			    tdr_symbolize_rng__index(rs, u, idx, &off) == 0)
				r = tdr_symbolize_rng__read(rs, u, off, &got, 7);
			if (r == -EINVAL) {
				assert_int_equal(got.cnt, 0);
				cnt->declined++;
			} else {
				assert_int_equal(r, (int)n);
				assert_int_equal(got.cnt, n);
				for (size_t i = 0; i < n; i++) {
					assert_int_equal(got.r[i].lo, want[i].lo);
					assert_int_equal(got.r[i].hi, want[i].hi);
					assert_int_equal(got.r[i].idx, 7);
				}
				cnt->read++;
			}
			free(got.r);
		}
		if (dwarf_haschildren(&die) > 0)
			same_ranges_under(rs, u, &die, cnt);
	} while (dwarf_siblingof(&die, &die) == 0);
}

/* Build a linked fixture program with cc and flags; compare every list. */
static struct rng_count same_ranges(const char *name, const char *cc, const char *flags)
{
	struct rng_count cnt = { 0 };
	Dwarf_CU *cu = NULL, *next;
	Dwarf_Half version;
	uint8_t unit_type;
	Dwarf_Die cudie, subdie;
	struct sym_rng_sec rs;
	char *path = NULL;
	Dwarf *dbg;
	int fd;

	assert_true(asprintf(&path, "%s/%s", tmp, name) > 0);
	assert_int_equal(fx_sh("cd '%s' && %s -O2 %s -o '%s' '%s/fx_main.c' '%s/fx_lib.c'", tmp, cc,
			       flags, path, fx_src_dir(), fx_src_dir()),
			 0);
	fd = open(path, O_RDONLY);
	assert_true(fd >= 0);
	dbg = dwarf_begin(fd, DWARF_C_READ);
	assert_non_null(dbg);
	tdr_symbolize_rng__init(&rs, dbg);
	while (dwarf_get_units(dbg, cu, &next, &version, &unit_type, &cudie, &subdie) == 0) {
		struct sym_rng_unit u;

		cu = next;
		tdr_symbolize_rng__unit(&u, &rs, &cudie);
		same_ranges_under(&rs, &u, &cudie, &cnt);
	}
	dwarf_end(dbg);
	close(fd);
	free(path);
	return cnt;
}

static void test_rnglist__gcc_dwarf5_and_4(void **state)
{
	struct rng_count c5 = same_ranges("r5", "gcc", "-g -gdwarf-5");
	struct rng_count c4 = same_ranges("r4", "gcc", "-gdwarf-4");

	(void)state;
	/* gcc -O2 gives inline instances and blocks lists, all read here. */
	assert_true(c5.read >= 5);
	assert_int_equal(c5.declined, 0);
	assert_true(c4.read >= 5);
	assert_int_equal(c4.declined, 0);
}

/* clang's DWARF 5 lists and low pcs are indexed (DW_FORM_rnglistx,
 * DW_RLE_*x entries, DW_FORM_addrx): read through the unit's tables. */
static void test_rnglist__clang(void **state)
{
	struct rng_count c5, c4;

	(void)state;
	if (!fx_have("clang"))
		skip();
	c5 = same_ranges("rc5", "clang", "-g -gdwarf-5");
	c4 = same_ranges("rc4", "clang", "-gdwarf-4");
	assert_true(c5.read > 0);
	assert_int_equal(c5.declined, 0);
	assert_true(c5.addrx > 0);
	assert_true(c4.read > 0);
}

/* The first list of a gcc program's .debug_rnglists, in a copy of the
 * section cut at every length: read or declined, never past the copy. */
static void test_rnglist__cut_section(void **state)
{
	char *path = NULL;
	struct sym_rng_sec rs, cut;
	struct sym_rng_unit u = { .version = 5, .addr_size = 8, .usable = true };
	size_t read = 0;
	Dwarf *dbg;
	int fd;

	(void)state;
	assert_true(asprintf(&path, "%s/rcut", tmp) > 0);
	assert_int_equal(fx_sh("cd '%s' && gcc -O2 -g -gdwarf-5 -o rcut '%s/fx_main.c' "
			       "'%s/fx_lib.c'",
			       tmp, fx_src_dir(), fx_src_dir()),
			 0);
	fd = open(path, O_RDONLY);
	assert_true(fd >= 0);
	dbg = dwarf_begin(fd, DWARF_C_READ);
	assert_non_null(dbg);
	tdr_symbolize_rng__init(&rs, dbg);
	assert_non_null(rs.v5);
	for (size_t len = 0; len <= rs.v5_size; len++) {
		uint8_t *copy = malloc(len ? len : 1);

		assert_non_null(copy);
		memcpy(copy, rs.v5, len);
		cut = rs;
		cut.v5 = copy;
		cut.v5_size = len;
		/* Every offset of the copy as a list start: entries of any kind. */
		for (size_t off = 0; off < len; off++) {
			struct sym_range_vec v = { 0 };
			int r = tdr_symbolize_rng__read(&cut, &u, off, &v, 0);

			assert_true(r == -EINVAL || r >= 0);
			assert_int_equal(v.cnt, r > 0 ? (size_t)r : 0);
			read += r > 0;
			free(v.r);
		}
		free(copy);
	}
	assert_true(read > 0);
	dwarf_end(dbg);
	close(fd);
	free(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_diescan__gcc_dwarf5),
		cmocka_unit_test(test_diescan__gcc_dwarf4),
		cmocka_unit_test(test_diescan__gcc_dwarf2_and_3),
		cmocka_unit_test(test_diescan__cplusplus),
		cmocka_unit_test(test_diescan__clang),
		cmocka_unit_test(test_diescan__split_dwarf),
		cmocka_unit_test(test_diescan__compressed),
		cmocka_unit_test(test_diescan__cut_and_damaged_units),
		cmocka_unit_test(test_diescan__unit_longer_than_section),
		cmocka_unit_test(test_rnglist__gcc_dwarf5_and_4),
		cmocka_unit_test(test_rnglist__clang),
		cmocka_unit_test(test_rnglist__cut_section),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
