/*
 * symbolize/dwarf.c - DWARF for one address: subprogram, inline chain with
 * call sites, and the source line (libdw).
 *
 * Responsibility: docs/symbolize.md "How an address is resolved". Per object, once:
 * a sorted table of compile-unit pc ranges (built from each CU's DW_AT_ranges
 * or low/high pc with dwarf_ranges, so it works without .debug_aranges, as
 * clang emits by default). Per CU, once, on first need: a sorted table of
 * DW_TAG_subprogram pc ranges (namespaces, classes and nested functions
 * included). Per subprogram, once, on the first address inside it: its
 * subtree is walked (inlined_subroutine and lexical blocks only) into a range
 * table of inline instances with parent links. Per address: CU, subprogram
 * and innermost inline by binary search, the chain by parent links; the leaf
 * line comes from the CU line table (dwarf_getsrc_die). Never a walk of the
 * whole CU per address and never dwarf_getscopes (which walks the CU).
 * Names: DW_AT_linkage_name demangled when it is a C++ name, else DW_AT_name
 * (both followed through abstract_origin/specification).
 * Ownership and threads: strings are borrowed from libdw (live until the
 * Dwfl ends, i.e. until the symbolizer is freed); inline arrays go into the
 * symbolizer's arena.
 * See: docs/symbolize.md; elfutils' libdw/libdw.h and libdwfl/libdwfl.h (the API).
 */
#include "symbolize_int.h"

#include <dwarf.h>
#include <errno.h>
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

struct range_vec {
	struct sym_range *r;
	size_t cnt, cap;
};

/* After collecting into v (err: how that went), the table of v; v's array
 * is taken (or freed) either way. Returns 0 or the error. */
static int build_table(struct sym_range_table *t, struct range_vec *v, int err)
{
	if (err) {
		free(v->r);
		return err;
	}
	return tdr_symbolize_range_table__build(t, v->r, v->cnt);
}

/* Append the pc ranges of die with index idx. Returns the number added, or
 * -ENOMEM. A DIE without ranges adds none. */
static int add_die_ranges(struct range_vec *v, Dwarf_Die *die, uint32_t idx)
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

/* Open the DWARF of d (main or separate debug file) and build the CU table. */
static int load_dwarf(struct tdr_symbolizer *s, struct sym_dso *d)
{
	struct range_vec v = { 0 };
	Dwarf_CU *cu = NULL, *next;
	Dwarf_Die cudie, subdie;
	Dwarf_Addr bias = 0;
	Dwarf_Half ver;
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
	d->dw_bias = bias;
	while ((rc = dwarf_get_units(d->dw, cu, &next, &ver, &ut, &cudie, &subdie)) == 0) {
		int tag = dwarf_tag(&cudie), n;
		struct sym_cu *c;

		cu = next;
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
		/* Split DWARF: the code DIEs are in the split unit. */
		c->walkdie = ut == DW_UT_skeleton && dwarf_tag(&subdie) == DW_TAG_compile_unit
				     ? subdie
				     : cudie;
	}
	if (rc < 0)
		dwarf_warn_once(d, "read compile units");
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

struct die_vec {
	Dwarf_Die *die;
	size_t cnt, cap;
};

static int collect_subs(Dwarf_Die *parent, struct range_vec *v, struct die_vec *dv, int depth)
{
	Dwarf_Die child;

	if (depth > MAX_DIE_DEPTH || dwarf_child(parent, &child) != 0)
		return 0;
	do {
		int tag = dwarf_tag(&child), n;

		if (tag == DW_TAG_subprogram) {
			n = add_die_ranges(v, &child, (uint32_t)dv->cnt);
			if (n < 0)
				return n;
			if (n > 0) {
				if (tdr_ensure_cap(&dv->die, &dv->cap, sizeof(*dv->die), dv->cnt + 1))
					return -ENOMEM;
				dv->die[dv->cnt++] = child;
			}
		}
		if (may_hold_subprograms(tag) && dwarf_haschildren(&child) > 0) {
			n = collect_subs(&child, v, dv, depth + 1);
			if (n < 0)
				return n;
		}
	} while (dwarf_siblingof(&child, &child) == 0);
	return 0;
}

/* The CU's subprogram range table, built on first use. */
static int load_subs(struct sym_cu *c)
{
	struct range_vec v = { 0 };
	struct die_vec dv = { 0 };
	int err;

	err = build_table(&c->subs, &v, collect_subs(&c->walkdie, &v, &dv, 0));
	if (!err && dv.cnt) {
		c->sub_inl = tdr_calloc(dv.cnt, sizeof(*c->sub_inl));
		if (!c->sub_inl) {
			tdr_symbolize_range_table__free(&c->subs);
			err = -ENOMEM;
		}
	}
	if (err) {
		free(dv.die);
		return err;
	}
	c->sub_dies = dv.die;
	c->sub_cnt = dv.cnt;
	c->subs_loaded = true;
	return 0;
}

struct node_vec {
	struct sym_inl_node *n;
	size_t cnt, cap;
};

/*
 * Preorder walk of a subprogram's code DIEs: every inlined_subroutine with pc
 * ranges becomes a node (with its ranges); lexical and try/catch blocks are
 * looked into but are not frames. Nested subprograms are not entered: they
 * have their own entry in the CU's subprogram table.
 */
static int collect_inlines(Dwarf_Die *parent, int32_t parent_node, struct range_vec *v,
			   struct node_vec *nv, int depth)
{
	Dwarf_Die child;

	if (depth > MAX_DIE_DEPTH || dwarf_child(parent, &child) != 0)
		return 0;
	do {
		int tag = dwarf_tag(&child), n;
		int32_t me = parent_node;

		if (tag == DW_TAG_inlined_subroutine) {
			if (nv->cnt >= INT32_MAX)
				return 0;
			n = add_die_ranges(v, &child, (uint32_t)nv->cnt);
			if (n < 0)
				return n;
			if (n == 0)
				continue; /* no code of its own, nor in its children */
			if (tdr_ensure_cap(&nv->n, &nv->cap, sizeof(*nv->n), nv->cnt + 1))
				return -ENOMEM;
			me = (int32_t)nv->cnt;
			nv->n[nv->cnt++] = (struct sym_inl_node){ .die = child, .parent = parent_node };
		} else if (tag != DW_TAG_lexical_block && tag != DW_TAG_try_block &&
			   tag != DW_TAG_catch_block) {
			continue;
		}
		if (dwarf_haschildren(&child) > 0) {
			n = collect_inlines(&child, me, v, nv, depth + 1);
			if (n < 0)
				return n;
		}
	} while (dwarf_siblingof(&child, &child) == 0);
	return 0;
}

/* The inline table of subprogram sub_idx of c, built on first use. */
static int load_inlines(struct sym_cu *c, size_t sub_idx)
{
	struct sym_sub_inl *si = &c->sub_inl[sub_idx];
	struct range_vec v = { 0 };
	struct node_vec nv = { 0 };
	int err;

	err = build_table(&si->ranges, &v, collect_inlines(&c->sub_dies[sub_idx], -1, &v, &nv, 0));
	if (err) {
		free(nv.n);
		return err;
	}
	si->nodes = nv.n;
	si->cnt = nv.cnt;
	si->loaded = true;
	return 0;
}

/* Put the inline chain at pc, outermost first, in s->chain; *n its length. */
static int inline_chain(struct tdr_symbolizer *s, struct sym_cu *c, size_t sub_idx,
			Dwarf_Addr pc, size_t *n)
{
	struct sym_sub_inl *si = &c->sub_inl[sub_idx];
	const struct sym_range *r;
	size_t depth = 0;
	int err;

	*n = 0;
	if (!si->loaded && (err = load_inlines(c, sub_idx)))
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
		s->chain[--depth] = si->nodes[i].die;
	return 0;
}

/* Display name of a subprogram or inlined_subroutine DIE; *err = -ENOMEM
 * when demangling could not allocate. */
static const char *die_name(struct tdr_symbolizer *s, Dwarf_Die *die, int *err)
{
	Dwarf_Attribute a;
	const char *ln, *name;

	ln = dwarf_formstring(dwarf_attr_integrate(die, DW_AT_linkage_name, &a));
	if (!ln)
		ln = dwarf_formstring(dwarf_attr_integrate(die, DW_AT_MIPS_linkage_name, &a));
	if (ln && ln[0] == '_' && ln[1] == 'Z') {
		const char *dm = tdr_symbolize_demangle(s, ln);

		if (!dm) {
			*err = -ENOMEM;
			return NULL;
		}
		if (dm != ln)
			return dm;
	}
	/* C names (and C++ names that did not demangle): the source name; the
	 * linkage name only when there is nothing else. */
	name = dwarf_diename(die);
	return name ? name : ln;
}

static uint32_t die_udata(Dwarf_Die *die, unsigned int at)
{
	Dwarf_Attribute a;
	Dwarf_Word w;

	if (dwarf_formudata(dwarf_attr(die, at, &a), &w) != 0 || w > UINT32_MAX)
		return 0;
	return (uint32_t)w;
}

/* Build the innermost-first frames from s->chain[0..n) (outermost first). */
static int make_frames(struct tdr_symbolizer *s, struct sym_cu *c, size_t n,
		       struct sym_dwarf_res *r)
{
	int err = 0;

	r->inlines = tdr_arena__alloc(&s->arena, n * sizeof(*r->inlines));
	if (!r->inlines)
		return -ENOMEM;
	if (!c->files_tried) {
		c->files_tried = true;
		if (dwarf_getsrcfiles(&c->walkdie, &c->files, NULL) != 0)
			c->files = NULL;
	}
	for (size_t k = 0; k < n; k++) {
		Dwarf_Die *die = &s->chain[n - 1 - k];
		struct tdr_inline_frame *f = &r->inlines[k];
		Dwarf_Attribute a;
		Dwarf_Word fidx;

		memset(f, 0, sizeof(*f));
		f->function = die_name(s, die, &err);
		if (err)
			return err;
		if (c->files && dwarf_formudata(dwarf_attr(die, DW_AT_call_file, &a), &fidx) == 0)
			f->call_file = dwarf_filesrc(c->files, fidx, NULL, NULL);
		f->call_line = die_udata(die, DW_AT_call_line);
		f->call_column = die_udata(die, DW_AT_call_column);
	}
	r->inline_cnt = n;
	return 0;
}

int tdr_symbolize_dwarf__resolve(struct tdr_symbolizer *s, struct sym_dso *d, uint64_t maddr,
				 struct sym_dwarf_res *r)
{
	const struct sym_range *cr, *sr;
	Dwarf_Die *sub;
	struct sym_cu *c;
	Dwarf_Addr pc, entry;
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

	if (!c->subs_loaded && (err = load_subs(c)))
		return err;
	sr = tdr_symbolize_range_table__find(&c->subs, pc);
	if (!sr)
		return 0;
	sub = &c->sub_dies[sr->idx];
	r->sub_name = die_name(s, sub, &err);
	if (err)
		return err;
	if (dwarf_entrypc(sub, &entry) != 0)
		entry = sr->lo;
	r->sub_entry = entry + d->dw_bias;

	if (!s->opts.want_inlines)
		return 0;
	err = inline_chain(s, c, sr->idx, pc, &n);
	if (err)
		return err;
	return n ? make_frames(s, c, n, r) : 0;
}

void tdr_symbolize_dwarf__free(struct sym_dso *d)
{
	for (size_t i = 0; i < d->cu_cnt; i++) {
		struct sym_cu *c = &d->cu[i];

		for (size_t j = 0; c->sub_inl && j < c->sub_cnt; j++) {
			tdr_symbolize_range_table__free(&c->sub_inl[j].ranges);
			free(c->sub_inl[j].nodes);
		}
		zfree(&c->sub_inl);
		tdr_symbolize_range_table__free(&c->subs);
		zfree(&c->sub_dies);
	}
	zfree(&d->cu);
	d->cu_cnt = 0;
	tdr_symbolize_range_table__free(&d->cus);
	/* d->dw belongs to the Dwfl and ends with it. */
	d->dw = NULL;
}
