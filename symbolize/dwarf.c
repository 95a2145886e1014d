/*
 * symbolize/dwarf.c - DWARF for one address: subprogram, inline chain with
 * call sites, and the source line (libdw).
 *
 * Responsibility: docs/symbolize.md "How an address is resolved". Per object, once:
 * a sorted table of compile-unit pc ranges (built from each CU's DW_AT_ranges
 * or low/high pc with dwarf_ranges, so it works without .debug_aranges, as
 * clang emits by default). Per CU, once, on first need: one walk into a
 * sorted table of DW_TAG_subprogram pc ranges (namespaces, classes and
 * nested functions included) and, when inline chains are wanted, each
 * subprogram's list of inlined_subroutine DIEs (the subtree of one with a
 * DW_AT_sibling jumped over and marked). Per subprogram, once, on the first
 * address inside it: its name and entry, its marked subtrees listed, and
 * its inlines' pc ranges into a range table of inline instances with
 * parent links. Per
 * inline instance, once: its frame. Per address: CU, subprogram and
 * innermost inline by binary search, the chain by parent links; the leaf
 * line comes from the CU line table (dwarf_getsrc_die). Never a walk of the
 * whole CU per address and never dwarf_getscopes (which walks the CU).
 * Names: dwarf_names.c.
 * Ownership and threads: strings are borrowed from libdw (live until the
 * Dwfl ends, i.e. until the symbolizer is freed); inline arrays go into the
 * symbolizer's arena.
 * See: docs/symbolize.md; elfutils' libdw/libdw.h and libdwfl/libdwfl.h (the API).
 */
#include "symbolize_int.h"

#include <dwarf.h>
#include <errno.h>
#include <gelf.h>
#include <stdlib.h>
#include <string.h>

#define LOG_PREFIX "symbolize: "
#include "tdrec/tdr_log.h"
#include "tdrec/tdr_mem.h"

/* Deeper DIE nesting than this is treated as corrupt (guards recursion);
 * it also bounds inline chains, which the result cache stores in 16 bits. */
#define MAX_DIE_DEPTH 256

static void dwarf_warn_once(struct sym_dso *d, const char *what)
{
	if (d->warned_dwarf)
		return;
	d->warned_dwarf = true;
	tdr_warn("failed to %s in %s: %s", what, d->path, dwarf_errmsg(-1));
}

/* After collecting into v (err: how that went), the table of v; v's array
 * is taken (or freed) either way. Returns 0 or the error. */
static int build_table(struct sym_range_table *t, struct sym_range_vec *v, int err)
{
	if (err) {
		free(v->r);
		return err;
	}
	return tdr_symbolize_range_table__build(t, v->r, v->cnt);
}

/* Append the pc ranges of die with index idx. Returns the number added, or
 * -ENOMEM. A DIE without ranges adds none. */
static int add_die_ranges(struct sym_range_vec *v, Dwarf_Die *die, uint32_t idx)
{
	Dwarf_Addr base, lo, hi;
	ptrdiff_t off = 0;
	int n = 0;

	while ((off = dwarf_ranges(die, off, &base, &lo, &hi)) > 0) {
		if (lo >= hi)
			continue;
		if (tdr_ensure_cap(&v->r, &v->cap, sizeof(*v->r), v->cnt + 1))
			return -ENOMEM;
		v->r[v->cnt++] = (struct sym_range){ .lo = lo, .hi = hi, .idx = idx };
		n++;
	}
	return n;
}

/* The pc attributes of a code DIE, taken in one pass (take_pc_attr). */
struct pc_attrs {
	Dwarf_Attribute low, high, ranges;
	bool have_low, have_high, have_ranges;
};

static int take_pc_attr(Dwarf_Attribute *at, void *arg)
{
	struct pc_attrs *p = arg;

	/* The first of each, as dwarf_attr finds it. */
	switch (dwarf_whatattr(at)) {
	case DW_AT_low_pc:
		if (!p->have_low) {
			p->low = *at;
			p->have_low = true;
		}
		break;
	case DW_AT_high_pc:
		if (!p->have_high) {
			p->high = *at;
			p->have_high = true;
		}
		break;
	case DW_AT_ranges:
		if (!p->have_ranges) {
			p->ranges = *at;
			p->have_ranges = true;
		}
		break;
	default:
		break;
	}
	return DWARF_CB_OK;
}

/* Append [lo, hi) unless empty. Returns the number added, or -ENOMEM. */
static int add_range(struct sym_range_vec *v, uint64_t lo, uint64_t hi, uint32_t idx)
{
	if (lo >= hi)
		return 0;
	if (tdr_ensure_cap(&v->r, &v->cap, sizeof(*v->r), v->cnt + 1))
		return -ENOMEM;
	v->r[v->cnt++] = (struct sym_range){ .lo = lo, .hi = hi, .idx = idx };
	return 1;
}

/* Where a code DIE's DW_AT_ranges lists are read (rnglist.c). */
struct rng_ctx {
	const struct sym_rng_sec *sec;
	const struct sym_rng_unit *unit;
};

/*
 * add_die_ranges for a subprogram or an inline instance, with one pass over
 * its attributes: dwarf_ranges looks for high pc, low pc and DW_AT_ranges
 * with one scan of the DIE's attributes each (dwarf_highpc asks for low pc
 * again) before it reads the first entry of a list, and the CU walk reads
 * the ranges of every subprogram, load_inlines those of every inline
 * instance of a subprogram an address falls in. Same answer: low pc and
 * high pc (an address, or a length from low pc) when both read, else the
 * DW_AT_ranges list (elfutils libdw/dwarf_ranges.c, dwarf_highpc.c), read
 * by rnglist.c where it can, else by dwarf_ranges; a DIE whose attributes
 * do not decode goes to dwarf_ranges itself. Not for unit DIEs (a split
 * unit inherits from its skeleton).
 */
static int add_code_ranges(const struct rng_ctx *rc, struct sym_range_vec *v, Dwarf_Die *die,
			   uint32_t idx)
{
	struct pc_attrs p = { .have_low = false };
	Dwarf_Addr lo, hi;
	Dwarf_Word len;
	int n;

	if (dwarf_getattrs(die, take_pc_attr, &p, 0) != 1)
		return add_die_ranges(v, die, idx);
	if (!p.have_low || !p.have_high || dwarf_formaddr(&p.low, &lo) != 0)
		goto ranges;
	if (dwarf_formaddr(&p.high, &hi) != 0) {
		if (dwarf_formudata(&p.high, &len) != 0)
			goto ranges;
		hi = lo + len;
	}
	return add_range(v, lo, hi, idx);
ranges:
	if (!p.have_ranges)
		return 0;
	if (rc->unit->usable && p.ranges.form == DW_FORM_sec_offset &&
	    dwarf_formudata(&p.ranges, &len) == 0 &&
	    (n = tdr_symbolize_rng__read(rc->sec, rc->unit, len, v, idx)) != -EINVAL)
		return n;
	return add_die_ranges(v, die, idx);
}

/* add_code_ranges for an inline instance, from the pc attributes the CU
 * walk's scan read (node->pc), without a dwarf_getattrs pass. */
static int add_node_ranges(const struct rng_ctx *rc, struct sym_range_vec *v,
			   struct sym_inl_node *node, uint32_t idx)
{
	const struct sym_scan_pc *pc = &node->pc;
	int n;

	uint64_t lo, off;

	if (!pc->read)
		return add_code_ranges(rc, v, &node->die, idx);
	if (pc->have_low && pc->have_high) {
		lo = pc->low;
		/* An index the tables here do not resolve: libdw decides. */
		if (pc->low_is_index && tdr_symbolize_rng__addrx(rc->sec, rc->unit, pc->low, &lo))
			return add_code_ranges(rc, v, &node->die, idx);
		return add_range(v, lo, pc->high_is_len ? lo + pc->high : pc->high, idx);
	}
	if (!pc->have_ranges)
		return 0;
	off = pc->ranges;
	if (rc->unit->usable &&
	    (!pc->ranges_is_index ||
	     !tdr_symbolize_rng__index(rc->sec, rc->unit, pc->ranges, &off)) &&
	    (n = tdr_symbolize_rng__read(rc->sec, rc->unit, off, v, idx)) != -EINVAL)
		return n;
	return add_die_ranges(v, &node->die, idx);
}

/* cu[last]'s size, now that the unit after it starts at next_off (its
 * DIE, so the next header counts as this unit's: near enough). */
static void set_size(struct sym_dso *d, long last, uint64_t last_off, uint64_t next_off)
{
	if (last >= 0 && next_off > last_off)
		d->cu[last].bytes = next_off - last_off;
}

/*
 * Why dw's sections are not safe to hand to libdw 0.188, or NULL. Its line
 * tables read file names from .debug_line_str (and .debug_str) with strlen
 * up to the next NUL: a string section whose data does not end in one is
 * read past its end (a fuzzed file had it; ASan, in dwarf_getsrclines). A
 * .debug_* section of a type other than PROGBITS (or NOBITS, in a stripped
 * file) is converted by libelf as that type (a NOTE's data is rewritten as
 * notes), so its bytes are not the file's: refused as well. The size of
 * .debug_info into *info_size (0: none seen).
 */
static const char *unsafe_sections(Dwarf *dw, const char **section, uint64_t *info_size)
{
	Elf *elf = dwarf_getelf(dw);
	Elf_Scn *scn = NULL;
	size_t shstrndx;

	*info_size = 0;
	if (!elf || elf_getshdrstrndx(elf, &shstrndx))
		return NULL;
	while ((scn = elf_nextscn(elf, scn))) {
		const char *name;
		Elf_Data *data;
		GElf_Shdr sh;

		if (!gelf_getshdr(scn, &sh) || !(name = elf_strptr(elf, shstrndx, sh.sh_name)) ||
		    strncmp(name, ".debug_", 7))
			continue;
		*section = name;
		if (!strcmp(name, ".debug_info"))
			*info_size = sh.sh_size;
		if (sh.sh_type != SHT_PROGBITS && sh.sh_type != SHT_NOBITS)
			return "of a type other than PROGBITS";
		if (sh.sh_type == SHT_NOBITS || (sh.sh_flags & SHF_COMPRESSED) ||
		    (strcmp(name, ".debug_str") && strcmp(name, ".debug_line_str")))
			continue;
		data = elf_getdata(scn, NULL);
		if (data && data->d_size && ((const char *)data->d_buf)[data->d_size - 1])
			return "not ending in a NUL";
	}
	return NULL;
}

/* Open the DWARF of d (main or separate debug file) and build the CU table. */
static int load_dwarf(struct tdr_symbolizer *s, struct sym_dso *d)
{
	struct sym_range_vec v = { 0 };
	Dwarf_CU *cu = NULL, *next;
	Dwarf_Die cudie, subdie;
	Dwarf_Addr bias = 0;
	Dwarf_Half ver;
	uint64_t last_off = 0, info_size;
	long last = -1;
	uint8_t ut;
	size_t cap = 0;
	int rc;

	d->dwarf_tried = true;
	s->dwarf_open_cnt++;
	d->dw = dwfl_module_getdwarf(d->mod, &bias);
	if (!d->dw) {
		tdr_debug("%s: no DWARF: %s", d->path, dwfl_errmsg(-1));
		return 0;
	}
	{
		const char *section = NULL, *why = unsafe_sections(d->dw, &section, &info_size);

		if (why) {
			/* The Dwarf stays the Dwfl's; it is only not used. */
			tdr_warn("%s: DWARF not used: its section %s is %s", d->path, section, why);
			d->dw = NULL;
			return 0;
		}
	}
	d->dw_bias = bias;
	tdr_symbolize_rng__init(&d->rng, d->dw);
	while ((rc = dwarf_get_units(d->dw, cu, &next, &ver, &ut, &cudie, &subdie)) == 0) {
		int tag = dwarf_tag(&cudie), n;
		uint64_t off = dwarf_dieoffset(&cudie);
		struct sym_cu *c;

		cu = next;
		set_size(d, last, last_off, off);
		last = -1;
		if (tag != DW_TAG_compile_unit && tag != DW_TAG_skeleton_unit)
			continue; /* type and partial units hold no code of their own */
		n = add_die_ranges(&v, &cudie, (uint32_t)d->cu_cnt);
		if (n < 0)
			goto nomem;
		if (n == 0)
			continue;
		if (tdr_ensure_cap(&d->cu, &cap, sizeof(*d->cu), d->cu_cnt + 1))
			goto nomem;
		c = &d->cu[d->cu_cnt++];
		memset(c, 0, sizeof(*c));
		c->cudie = cudie;
		last = (long)d->cu_cnt - 1;
		last_off = off;
		/* Split DWARF: the code DIEs are in the split unit. */
		c->walkdie = ut == DW_UT_skeleton && dwarf_tag(&subdie) == DW_TAG_compile_unit
				     ? subdie
				     : cudie;
	}
	if (rc < 0)
		dwarf_warn_once(d, "read compile units");
	set_size(d, last, last_off, info_size);
	if (tdr_symbolize_range_table__build(&d->cus, v.r, v.cnt) == 0)
		return 0;
	v.r = NULL; /* freed by the failed build */
nomem:
	/* Leave no half-built table behind: a later lookup tries again. */
	free(v.r);
	zfree(&d->cu);
	d->cu_cnt = 0;
	d->dwarf_tried = false;
	return -ENOMEM;
}

static bool may_hold_subprograms(int tag)
{
	switch (tag) {
	case DW_TAG_subprogram: /* GNU C nested functions */
	case DW_TAG_lexical_block:
	case DW_TAG_namespace:
	case DW_TAG_class_type:
	case DW_TAG_structure_type:
	case DW_TAG_union_type:
	case DW_TAG_interface_type:
	case DW_TAG_module:
		return true;
	default:
		return false;
	}
}

struct node_vec {
	struct sym_inl_node *n;
	size_t cnt, cap;
};

/* Whether a subprogram's inlines wait for its first lookup (load_inlines),
 * and its DIE's depth. */
struct sub_mark {
	bool deferred;
	uint16_t depth;
};

/* What the walk of a CU collects: the subprograms with code (and their
 * ranges in v), and, when inline chains are wanted, their inlined_subroutine
 * DIEs (nv, in walk order; owner: the subprogram of each, per_sub: how many
 * each subprogram has so far), but only for the subprograms that hold an
 * expected address when the caller gave them (expect, expect_cnt: sorted
 * maddrs; bias: maddr - pc); the others are marked deferred. */
struct sub_walk {
	Dwarf_Off last_off; /* the DIE the walk visited last */
	struct rng_ctx rng;
	struct sym_die_scan *scan; /* the unit's, for inline subtrees (scan_inlines) */
	int *scan_state;
	struct sym_range_vec v;
	Dwarf_Die *die;
	struct sub_mark *mark;
	size_t cnt, cap, mark_cap;
	bool inlines;
	const uint64_t *expect; /* NULL: list every subprogram's inlines */
	size_t expect_cnt;
	uint64_t bias;
	struct node_vec nv;
	uint32_t *owner;
	size_t owner_cap;
	uint32_t *per_sub;
	size_t per_sub_cap;
};

/* Whether one of the walk's expected addresses lies in the last n ranges
 * of w->v (a subprogram's). */
static bool expected_in(const struct sub_walk *w, int n)
{
	for (size_t i = w->v.cnt - (size_t)n; i < w->v.cnt; i++) {
		uint64_t lo = w->v.r[i].lo + w->bias, hi = w->v.r[i].hi + w->bias;
		size_t a = 0, b = w->expect_cnt;

		while (a < b) { /* the first expected address >= lo */
			size_t m = a + (b - a) / 2;

			if (w->expect[m] < lo)
				a = m + 1;
			else
				b = m;
		}
		if (a < w->expect_cnt && w->expect[a] < hi)
			return true;
	}
	return false;
}

/* Add die, at DIE depth depth, whose n ranges v ends with, as the next
 * subprogram; its inlines are deferred when the caller expects no address
 * in it. Returns 0 or -ENOMEM. */
static int add_sub(struct sub_walk *w, Dwarf_Die *die, int n, int depth)
{
	if (tdr_ensure_cap(&w->die, &w->cap, sizeof(*w->die), w->cnt + 1))
		return -ENOMEM;
	if (w->inlines) {
		if (tdr_ensure_cap(&w->per_sub, &w->per_sub_cap, sizeof(*w->per_sub), w->cnt + 1) ||
		    tdr_ensure_cap(&w->mark, &w->mark_cap, sizeof(*w->mark), w->cnt + 1))
			return -ENOMEM;
		w->per_sub[w->cnt] = 0;
		w->mark[w->cnt] = (struct sub_mark){ .deferred = w->expect && !expected_in(w, n),
						     .depth = (uint16_t)depth };
	}
	w->die[w->cnt++] = *die;
	return 0;
}

/* List die as the next inline of subprogram sub, inside inline inl_parent,
 * with its pc and call attributes as the scan read them (pc NULL: not
 * read). Returns its index in the subprogram's list, -1 when the list is
 * full (it and its subtree are left out), or -ENOMEM (as -2). */
static int64_t add_inline(struct sub_walk *w, long sub, int32_t inl_parent, const Dwarf_Die *die,
			  const struct sym_scan_pc *pc, const struct sym_scan_call *call)
{
	struct node_vec *nv = &w->nv;

	if (w->per_sub[sub] >= INT32_MAX || nv->cnt >= UINT32_MAX)
		return -1;
	if (tdr_ensure_cap(&nv->n, &nv->cap, sizeof(*nv->n), nv->cnt + 1) ||
	    tdr_ensure_cap(&w->owner, &w->owner_cap, sizeof(*w->owner), nv->cnt + 1))
		return -2;
	w->owner[nv->cnt] = (uint32_t)sub;
	nv->n[nv->cnt++] = (struct sym_inl_node){
	    .die = *die, .pc = pc ? *pc : (struct sym_scan_pc){ .read = false },
	    .call = pc ? *call : (struct sym_scan_call){ .read = false }, .parent = inl_parent};
	return w->per_sub[sub]++;
}

static bool in_inline_scope(int tag)
{
	return tag == DW_TAG_lexical_block || tag == DW_TAG_try_block || tag == DW_TAG_catch_block;
}

/* The scan of the walk's unit (of die), prepared on first use; NULL when
 * the unit is not one it reads. */
static const struct sym_die_scan *scan_of(struct sub_walk *w, Dwarf_Die *die)
{
	if (*w->scan_state == 0)
		*w->scan_state = tdr_symbolize_diescan__init(w->scan, die) == 0 ? 1 : -1;
	return *w->scan_state > 0 ? w->scan : NULL;
}

/*
 * The inlines under an inline instance (node me of subprogram sub, its DIE
 * at die_addr, its children from children on, at DIE depth depth), read by
 * the scanner (diescan.c) and listed as walk_cu lists them, each with its
 * pc attributes; *next is set to the DIE after the instance's subtree,
 * *has_next false when none follows. Instead of libdw's walk, which costs
 * a dwarf_tag and a dwarf_siblingof per DIE, and then a dwarf_siblingof of
 * the instance that steps over the whole subtree again (compilers give
 * inline instances no DW_AT_sibling). Returns 0, 1 when the scan cannot
 * read the subtree (none of it listed: the caller walks it with libdw), or
 * -ENOMEM.
 */
static int scan_inlines(struct sub_walk *w, const uint8_t *die_addr, const uint8_t *children,
			long sub, int32_t me, int depth, Dwarf_Die *next, bool *has_next)
{
	const struct sym_die_scan *sc = w->scan;
	size_t nv_cnt = w->nv.cnt;
	uint32_t per_sub = w->per_sub[sub];
	/* Per open children list: the inline its DIEs are in, and whether
	 * inlines are listed there (not under other DIEs). */
	int32_t parent[MAX_DIE_DEPTH + 1];
	bool listed[MAX_DIE_DEPTH + 1];
	const uint8_t *p = children, *last = die_addr;
	struct sym_scan_die d;
	struct sym_scan_pc pc;
	struct sym_scan_call call;
	int level = 0;

	if (depth > MAX_DIE_DEPTH)
		return 1;
	parent[0] = me;
	listed[0] = true;
	for (;;) {
		const uint8_t *at = p;

		if (!(p = tdr_symbolize_diescan__next(sc, p, &d, &pc, &call)))
			goto unreadable;
		if (d.null) {
			if (level-- == 0)
				break;
			continue;
		}
		last = at;
		if (d.has_children && depth + level + 1 > MAX_DIE_DEPTH)
			goto unreadable;
		if (d.has_children) {
			parent[level + 1] = parent[level];
			listed[level + 1] = listed[level] && in_inline_scope(d.tag);
		}
		/* Children that list nothing (a call site's parameters, a
		 * local type): jump over them where DW_AT_sibling says how. */
		if (d.has_children && !listed[level + 1] && d.tag != DW_TAG_inlined_subroutine &&
		    d.sibling) {
			p = d.sibling;
			continue;
		}
		if (listed[level] && d.tag == DW_TAG_inlined_subroutine) {
			Dwarf_Die node;
			int64_t idx;

			if (!dwarf_die_addr_die(sc->dbg, (void *)at, &node))
				goto unreadable;
			idx = add_inline(w, sub, parent[level], &node, &pc, &call);
			if (idx == -2)
				return -ENOMEM;
			if (d.has_children) {
				listed[level + 1] = idx >= 0;
				parent[level + 1] = (int32_t)idx;
			}
		}
		if (d.has_children)
			level++;
	}
	w->last_off = (Dwarf_Off)(last - sc->base);
	*has_next = p < sc->end && *p != 0 && dwarf_die_addr_die(sc->dbg, (void *)p, next);
	return 0;
unreadable:
	w->nv.cnt = nv_cnt;
	w->per_sub[sub] = per_sub;
	return 1;
}

/* Move child to its next sibling; *known: the scan has moved it already,
 * more telling whether there was one. Returns whether there is one. */
static bool next_sibling(Dwarf_Die *child, bool *known, bool more)
{
	if (*known) {
		*known = false;
		return more;
	}
	return dwarf_siblingof(child, child) == 0;
}

static int list_subtree(struct sub_walk *w, Dwarf_Die *die, const uint8_t *after, long sub,
			int32_t me, int depth, bool *has_next);

static int walk_cu(struct sub_walk *w, Dwarf_Die *parent, long sub, int32_t inl_parent,
		   bool subs, int depth)
{
	Dwarf_Die child;
	bool known = false, more = false;
	int err;

	if (depth > MAX_DIE_DEPTH || dwarf_child(parent, &child) != 0)
		return 0;
	do {
		int tag, n;
		Dwarf_Off here;
		bool in_subs, in_inl;

		tag = dwarf_tag(&child);
		here = dwarf_dieoffset(&child);
		/* A preorder walk only moves forward in the unit. A
		 * DW_AT_sibling that points back, or into a subtree already
		 * walked (hostile or corrupt DWARF), would make the walk visit
		 * DIEs again, forever or exponentially often, listing
		 * subprograms until memory ran out: each DIE is visited once. */
		if (here == (Dwarf_Off)-1 || here <= w->last_off)
			break;
		w->last_off = here;

		if (subs && tag == DW_TAG_subprogram) {
			long me = -1;

			n = add_code_ranges(&w->rng, &w->v, &child, (uint32_t)w->cnt);
			if (n < 0)
				return n;
			if (n > 0) {
				if ((err = add_sub(w, &child, n, depth)))
					return err;
				me = w->inlines && !w->mark[w->cnt - 1].deferred ? (long)w->cnt - 1
										  : -1;
			}
			if (dwarf_haschildren(&child) > 0 &&
			    (err = walk_cu(w, &child, me, -1, true, depth + 1)))
				return err;
			continue;
		}
		if (sub >= 0 && tag == DW_TAG_inlined_subroutine) {
			const struct sym_die_scan *sc = scan_of(w, &child);
			bool kids = dwarf_haschildren(&child) > 0;
			const uint8_t *after = NULL;
			struct sym_scan_die d;
			struct sym_scan_pc pc;
			struct sym_scan_call call;
			int64_t me;

			/* The scan must read the DIE as libdw did. */
			if (sc &&
			    (after = tdr_symbolize_diescan__next(sc, child.addr, &d, &pc, &call)) &&
			    (d.null || d.tag != tag || d.has_children != kids))
				after = NULL;
			me = add_inline(w, sub, inl_parent, &child, after ? &pc : NULL, &call);
			if (me == -2)
				return -ENOMEM;
			/* No subprograms inside an inline instance. */
			if (me < 0 || !kids)
				continue;
			/* A DW_AT_sibling lets the walk jump, as libdw does: the
			 * children are listed if an address falls in the
			 * subprogram (load_inlines). Most subprograms of a big
			 * unit never see one. */
			if (after && d.sibling &&
			    dwarf_die_addr_die(sc->dbg, (void *)d.sibling, &child)) {
				struct sym_inl_node *node = &w->nv.n[w->nv.cnt - 1];

				node->kids_pending = true;
				node->depth = (uint16_t)depth;
				known = more = true;
				continue;
			}
			err = list_subtree(w, &child, after, sub, (int32_t)me, depth + 1, &more);
			if (err < 0)
				return err;
			known = err == 0; /* then child is the next sibling */
			continue;
		}
		in_subs = subs && may_hold_subprograms(tag);
		in_inl = sub >= 0 && in_inline_scope(tag);
		if ((in_subs || in_inl) && dwarf_haschildren(&child) > 0 &&
		    (err = walk_cu(w, &child, in_inl ? sub : -1, inl_parent, in_subs, depth + 1)))
			return err;
	} while (next_sibling(&child, &known, more));
	return 0;
}

/*
 * List the inlines under inline instance die (node me of subprogram sub;
 * its children at DIE depth depth, from after on as the scanner reads
 * them, NULL when it cannot): by scan_inlines, which moves die to the DIE
 * after the subtree (*has_next false when none follows), else by libdw's
 * walk. Returns 0 (scanned), 1 (walked by libdw; die unmoved) or -ENOMEM.
 */
static int list_subtree(struct sub_walk *w, Dwarf_Die *die, const uint8_t *after, long sub,
			int32_t me, int depth, bool *has_next)
{
	int err = after ? scan_inlines(w, die->addr, after, sub, me, depth, die, has_next) : 1;

	if (err != 1)
		return err;
	w->last_off = dwarf_dieoffset(die);
	err = walk_cu(w, die, sub, me, false, depth);
	return err ? err : 1;
}

static void free_walk(struct sub_walk *w)
{
	free(w->nv.n);
	free(w->owner);
	free(w->per_sub);
	free(w->mark);
	free(w->die);
}

/* Hand each subprogram its inlines: one array for the CU (c->inl_nodes),
 * each subprogram's in walk order in one slice of it. Returns 0 or
 * -ENOMEM. */
static int share_inlines(struct sym_cu *c, struct sub_walk *w)
{
	struct sym_inl_node *all;
	size_t at = 0, k;

	if (!w->nv.cnt)
		return 0;
	/* Usually each subprogram's inlines are one run already (only a
	 * nested function's interleave with its parent's): then they stay
	 * where the walk put them. */
	for (k = 1; k < w->nv.cnt && w->owner[k - 1] <= w->owner[k]; k++)
		;
	if (k == w->nv.cnt) {
		for (size_t i = 0; i < w->cnt; i++) {
			c->sub_inl[i].nodes = w->nv.n + at;
			c->sub_inl[i].cnt = w->per_sub[i];
			at += w->per_sub[i];
		}
		c->inl_nodes = w->nv.n;
		w->nv.n = NULL;
		return 0;
	}
	all = tdr_malloc(w->nv.cnt * sizeof(*all));
	if (!all)
		return -ENOMEM;
	/* per_sub becomes each slice's next free place. */
	for (size_t i = 0; i < w->cnt; i++) {
		uint32_t n = w->per_sub[i];

		c->sub_inl[i].nodes = all + at;
		c->sub_inl[i].cnt = n;
		w->per_sub[i] = (uint32_t)at;
		at += n;
	}
	for (k = 0; k < w->nv.cnt; k++)
		all[w->per_sub[w->owner[k]]++] = w->nv.n[k];
	c->inl_nodes = all;
	return 0;
}

/* The CU's subprogram range table, built on first use. */
static int load_subs(struct tdr_symbolizer *s, struct sym_dso *d, struct sym_cu *c)
{
	struct sub_walk w = { .inlines = s->opts.want_inlines,
			      .last_off = dwarf_dieoffset(&c->walkdie),
			      .rng = { &d->rng, &c->rng },
			      .scan = &c->scan,
			      .scan_state = &c->scan_state,
			      .expect = d->expect_given ? d->expect : NULL,
			      .expect_cnt = d->expect_cnt,
			      .bias = d->dw_bias };
	int err;

	if (d->expect_given) {
		tdr_symbolize_expect__sort(d);
		w.expect_cnt = d->expect_cnt;
	}
	tdr_symbolize_rng__unit(&c->rng, &d->rng, &c->walkdie);
	err = build_table(&c->subs, &w.v, walk_cu(&w, &c->walkdie, -1, -1, true, 0));
	if (!err && w.cnt) {
		c->sub_inl = tdr_calloc(w.cnt, sizeof(*c->sub_inl));
		if (!c->sub_inl || share_inlines(c, &w)) {
			zfree(&c->sub_inl);
			tdr_symbolize_range_table__free(&c->subs);
			err = -ENOMEM;
		}
		for (size_t i = 0; !err && w.inlines && i < w.cnt; i++) {
			c->sub_inl[i].deferred = w.mark[i].deferred;
			c->sub_inl[i].depth = w.mark[i].depth;
		}
	}
	if (err) {
		free_walk(&w);
		return err;
	}
	c->sub_dies = w.die;
	w.die = NULL;
	c->sub_cnt = w.cnt;
	c->subs_loaded = true;
	free_walk(&w);
	return 0;
}

/*
 * List the children the CU walk jumped over (kids_pending): the subprogram's
 * nodes again, each pending one followed by the instances of its subtree,
 * as the walk would have listed them there (the scanner, else libdw), so
 * that the list stays in preorder. Into an array of the subprogram's own.
 * Returns 0 or -ENOMEM.
 */
static int list_pending(struct sym_dso *d, struct sym_cu *c, struct sym_sub_inl *si)
{
	struct sub_walk w = { .inlines = true,
			      .rng = { &d->rng, &c->rng },
			      .scan = &c->scan,
			      .scan_state = &c->scan_state };
	int32_t *map = NULL;
	size_t i;
	int err = 0;

	for (i = 0; i < si->cnt && !si->nodes[i].kids_pending; i++)
		;
	if (i == si->cnt)
		return 0;
	if (!(map = tdr_malloc(si->cnt * sizeof(*map))) ||
	    tdr_ensure_cap(&w.per_sub, &w.per_sub_cap, sizeof(*w.per_sub), 1)) {
		free(map);
		free_walk(&w);
		return -ENOMEM;
	}
	w.per_sub[0] = 0;
	for (i = 0; !err && i < si->cnt; i++) {
		struct sym_inl_node n = si->nodes[i];
		const struct sym_die_scan *sc;
		const uint8_t *after = NULL;
		struct sym_scan_die sd;
		Dwarf_Die next;
		bool has_next;

		if (w.nv.cnt >= INT32_MAX ||
		    tdr_ensure_cap(&w.nv.n, &w.nv.cap, sizeof(*w.nv.n), w.nv.cnt + 1)) {
			err = -ENOMEM;
			break;
		}
		map[i] = (int32_t)w.nv.cnt;
		n.parent = n.parent >= 0 ? map[n.parent] : -1;
		n.kids_pending = false;
		w.nv.n[w.nv.cnt++] = n;
		w.per_sub[0]++;
		if (!si->nodes[i].kids_pending)
			continue;
		sc = scan_of(&w, &n.die);
		if (sc && (after = tdr_symbolize_diescan__next(sc, n.die.addr, &sd, NULL, NULL)) &&
		    (sd.null || sd.tag != DW_TAG_inlined_subroutine || !sd.has_children))
			after = NULL;
		next = n.die;
		err = list_subtree(&w, &next, after, 0, map[i], n.depth + 1, &has_next);
		err = err > 0 ? 0 : err;
	}
	free(map);
	if (!err) {
		if (si->own_nodes)
			free(si->nodes);
		si->nodes = w.nv.n;
		si->cnt = w.nv.cnt;
		si->own_nodes = true;
		w.nv.n = NULL;
	}
	free_walk(&w);
	return err;
}

/*
 * List the inlines of a subprogram the CU walk deferred (sym_sub_inl
 * deferred): the walk of its subtree alone, as the CU walk would have
 * listed them (nested subprograms have their own). Returns 0 or -ENOMEM.
 */
static int list_deferred(struct sym_dso *d, struct sym_cu *c, size_t sub_idx)
{
	struct sym_sub_inl *si = &c->sub_inl[sub_idx];
	struct sub_walk w = { .inlines = true,
			      .last_off = dwarf_dieoffset(&c->sub_dies[sub_idx]),
			      .rng = { &d->rng, &c->rng },
			      .scan = &c->scan,
			      .scan_state = &c->scan_state };
	int err;

	if (tdr_ensure_cap(&w.per_sub, &w.per_sub_cap, sizeof(*w.per_sub), 1))
		return -ENOMEM;
	w.per_sub[0] = 0;
	err = walk_cu(&w, &c->sub_dies[sub_idx], 0, -1, false, si->depth + 1);
	if (!err) {
		si->nodes = w.nv.n;
		si->cnt = w.per_sub[0];
		si->own_nodes = true;
		si->deferred = false;
		w.nv.n = NULL;
	}
	free_walk(&w);
	return err;
}

/*
 * The inline table of subprogram sub_idx of c, built on first use from the
 * inlined_subroutine DIEs the CU walk listed (in preorder, with parent
 * links): each one's pc ranges are read; one without any is left out with
 * everything inside it (no code of its own, nor in its children). The
 * nodes are renumbered in place, keeping their order.
 */
static int load_inlines(struct tdr_symbolizer *s, struct sym_dso *d, struct sym_cu *c,
			size_t sub_idx)
{
	const struct rng_ctx rc = { &d->rng, &c->rng };
	struct sym_sub_inl *si = &c->sub_inl[sub_idx];
	struct sym_inl_node *nodes;
	struct sym_range_vec v = { 0 };
	int32_t *map;
	size_t kept = 0;
	int err = 0;

	if (si->deferred) {
		if ((err = list_deferred(d, c, sub_idx)))
			return err;
		s->deferred_listed++;
	}
	if ((err = list_pending(d, c, si)))
		return err;
	nodes = si->nodes;
	if (tdr_ensure_cap(&s->inl_map, &s->inl_map_cap, sizeof(*s->inl_map), si->cnt))
		return -ENOMEM;
	map = s->inl_map;
	for (size_t i = 0; i < si->cnt; i++) {
		int32_t parent = nodes[i].parent;
		int n;

		map[i] = -1;
		if (parent >= 0 && map[parent] < 0)
			continue; /* inside a left-out inline */
		n = add_node_ranges(&rc, &v, &nodes[i], (uint32_t)kept);
		if (n < 0) {
			err = n;
			break;
		}
		if (n == 0)
			continue;
		map[i] = (int32_t)kept;
		nodes[kept] = (struct sym_inl_node){ .die = nodes[i].die, .pc = nodes[i].pc,
						     .call = nodes[i].call,
						     .parent = parent >= 0 ? map[parent] : -1 };
		kept++;
	}
	err = build_table(&si->ranges, &v, err);
	if (err) {
		/* The list is half renumbered: drop it, the next lookup finds
		 * no inlines here rather than wrong ones. */
		si->cnt = 0;
		return err;
	}
	si->cnt = kept;
	si->loaded = true;
	return 0;
}

/* Put the inline chain at pc, outermost first, in s->chain; *n its length. */
static int inline_chain(struct tdr_symbolizer *s, struct sym_dso *d, struct sym_cu *c,
			size_t sub_idx, Dwarf_Addr pc, size_t *n)
{
	struct sym_sub_inl *si = &c->sub_inl[sub_idx];
	const struct sym_range *r;
	size_t depth = 0;
	int err;

	*n = 0;
	if (!si->loaded && (err = load_inlines(s, d, c, sub_idx)))
		return err;
	r = tdr_symbolize_range_table__find(&si->ranges, pc);
	if (!r)
		return 0;
	for (int32_t i = (int32_t)r->idx; i >= 0 && depth <= si->cnt; i = si->nodes[i].parent)
		depth++;
	if (tdr_ensure_cap(&s->chain, &s->chain_cap, sizeof(*s->chain), depth))
		return -ENOMEM;
	/* Parent links run inner to outer; fill the chain from its end. */
	*n = depth;
	for (int32_t i = (int32_t)r->idx; i >= 0 && depth > 0; i = si->nodes[i].parent)
		s->chain[--depth] = &si->nodes[i];
	return 0;
}

int tdr_symbolize_dwarf__resolve(struct tdr_symbolizer *s, struct sym_dso *d, uint64_t maddr,
				 struct sym_dwarf_res *r)
{
	const struct sym_range *cr, *sr;
	const struct sym_sub_inl *si;
	struct sym_cu *c;
	Dwarf_Addr pc;
	size_t n = 0;
	int err = 0;

	memset(r, 0, sizeof(*r));
	if (!d->dwarf_tried && (err = load_dwarf(s, d)))
		return err;
	if (!d->dw || maddr < d->dw_bias)
		return 0;
	pc = maddr - d->dw_bias;
	cr = tdr_symbolize_range_table__find(&d->cus, pc);
	if (!cr)
		return 0;
	c = &d->cu[cr->idx];

	if (s->opts.want_lines) {
		Dwarf_Line *line = dwarf_getsrc_die(&c->cudie, pc);
		int lineno = 0, col = 0;

		if (line) {
			r->file = dwarf_linesrc(line, NULL, NULL);
			dwarf_lineno(line, &lineno);
			dwarf_linecol(line, &col);
			r->line = lineno > 0 ? (uint32_t)lineno : 0;
			r->column = col > 0 ? (uint32_t)col : 0;
		}
	}

	if (!c->subs_loaded && (err = load_subs(s, d, c)))
		return err;
	sr = tdr_symbolize_range_table__find(&c->subs, pc);
	if (!sr)
		return 0;
	if ((err = tdr_symbolize_dwarf_sub_name(s, c, sr->idx)))
		return err;
	si = &c->sub_inl[sr->idx];
	r->sub_name = si->name;
	r->sub_entry = (si->has_entry ? si->entry : sr->lo) + d->dw_bias;

	if (!s->opts.want_inlines)
		return 0;
	err = inline_chain(s, d, c, sr->idx, pc, &n);
	if (err)
		return err;
	return n ? tdr_symbolize_dwarf_frames(s, d, c, n, r) : 0;
}

int tdr_symbolize_dwarf__unit(struct tdr_symbolizer *s, struct sym_dso *d, uint64_t maddr,
			      uint64_t *unit, uint64_t *bytes)
{
	const struct sym_range *cr;
	int err;

	*unit = UINT64_MAX;
	*bytes = 0;
	if (!d->dwarf_tried && (err = load_dwarf(s, d)))
		return err;
	if (!d->dw || maddr < d->dw_bias)
		return 0;
	cr = tdr_symbolize_range_table__find(&d->cus, maddr - d->dw_bias);
	if (cr) {
		*unit = cr->idx;
		*bytes = d->cu[cr->idx].bytes;
	}
	return 0;
}

void tdr_symbolize_dwarf__free(struct sym_dso *d)
{
	for (size_t i = 0; i < d->cu_cnt; i++) {
		struct sym_cu *c = &d->cu[i];

		for (size_t j = 0; c->sub_inl && j < c->sub_cnt; j++) {
			tdr_symbolize_range_table__free(&c->sub_inl[j].ranges);
			if (c->sub_inl[j].own_nodes)
				free(c->sub_inl[j].nodes);
		}
		zfree(&c->sub_inl);
		zfree(&c->inl_nodes);
		if (c->scan_state > 0)
			tdr_symbolize_diescan__free(&c->scan);
		c->scan_state = 0;
		tdr_symbolize_range_table__free(&c->subs);
		zfree(&c->sub_dies);
	}
	zfree(&d->cu);
	d->cu_cnt = 0;
	tdr_symbolize_range_table__free(&d->cus);
	tdr_u64map__fini(&d->origin_name_idx);
	zfree(&d->origin_names);
	d->origin_name_cnt = d->origin_name_cap = 0;
	/* d->dw belongs to the Dwfl and ends with it. */
	d->dw = NULL;
}
