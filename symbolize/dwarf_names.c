/*
 * symbolize/dwarf_names.c - the names DWARF gives: a subprogram's, and an
 * inline frame's callee and call site.
 *
 * Responsibility: DW_AT_linkage_name demangled when it is a C++ name, else
 * DW_AT_name, both followed through abstract_origin/specification as
 * dwarf_attr_integrate does, with one dwarf_getattrs pass per DIE; an
 * inline instance as the CU walk's scan read it (its origin and call
 * site), its callee named once per origin. dwarf.c finds the DIEs.
 * Ownership: strings are borrowed from libdw or the symbolizer's demangler
 * (live until the symbolizer is freed); frame arrays go into its arena.
 * See: docs/symbolize.md "How an address is resolved".
 */
#include "symbolize_int.h"

#include <dwarf.h>
#include <errno.h>
#include <string.h>

#include "tdrec/tdr_mem.h"

/*
 * What naming a DIE reads, taken in one pass over each DIE's attributes
 * (dwarf_getattrs) instead of one dwarf_attr scan per attribute: libdw
 * finds an attribute by decoding the DIE's attributes up to it, and
 * dwarf_attr_integrate asks for the name, then abstract_origin, then
 * specification, at every DIE of the chain, three times per name. The
 * answer is the same: each attribute is the first one found along the same
 * chain (abstract_origin, else specification, at most 16 DIEs, as
 * dwarf_attr_integrate follows it; elfutils libdw/dwarf_attr_integrate.c).
 */
enum { NA_LINKAGE, NA_MIPS_LINKAGE, NA_NAME, NA_ORIGIN, NA_SPEC, NA_CALL_FILE, NA_CALL_LINE,
       NA_CALL_COLUMN, NA_CNT };

struct die_attrs {
	Dwarf_Attribute a[NA_CNT];
	bool have[NA_CNT];
};

static int take_attr(Dwarf_Attribute *at, void *arg)
{
	struct die_attrs *da = arg;
	int k;

	switch (dwarf_whatattr(at)) {
	case DW_AT_linkage_name: k = NA_LINKAGE; break;
	case DW_AT_MIPS_linkage_name: k = NA_MIPS_LINKAGE; break;
	case DW_AT_name: k = NA_NAME; break;
	case DW_AT_abstract_origin: k = NA_ORIGIN; break;
	case DW_AT_specification: k = NA_SPEC; break;
	case DW_AT_call_file: k = NA_CALL_FILE; break;
	case DW_AT_call_line: k = NA_CALL_LINE; break;
	case DW_AT_call_column: k = NA_CALL_COLUMN; break;
	default: return DWARF_CB_OK;
	}
	if (!da->have[k]) { /* the first, as dwarf_attr finds it */
		da->a[k] = *at;
		da->have[k] = true;
	}
	return DWARF_CB_OK;
}

/* The attributes of die itself (a failed pass keeps what it read before the
 * failure, as dwarf_attr finds what precedes a bad attribute). */
static void read_attrs(Dwarf_Die *die, struct die_attrs *da)
{
	memset(da->have, 0, sizeof(da->have));
	dwarf_getattrs(die, take_attr, da, 0);
}

/* Display name of the DIE whose own attributes are in da: DW_AT_linkage_name
 * demangled when it is a C++ name, else DW_AT_name (both followed through
 * abstract_origin/specification, along at most chain_max DIEs counting
 * this one); *err = -ENOMEM when demangling could not allocate. */
static const char *die_name(struct tdr_symbolizer *s, struct die_attrs *own, int chain_max,
			    int *err)
{
	const char *str[NA_NAME + 1] = { NULL };
	bool found[NA_NAME + 1] = { false };
	struct die_attrs *da = own;
	struct die_attrs next;
	Dwarf_Die die_mem;
	const char *ln, *name;

	for (int chain = chain_max; chain > 0; chain--) {
		Dwarf_Attribute ref;

		for (int k = NA_LINKAGE; k <= NA_NAME; k++)
			if (!found[k] && da->have[k]) {
				found[k] = true;
				str[k] = dwarf_formstring(&da->a[k]);
			}
		if ((found[NA_LINKAGE] && found[NA_MIPS_LINKAGE] && found[NA_NAME]) || chain == 1)
			break;
		if (da->have[NA_ORIGIN])
			ref = da->a[NA_ORIGIN];
		else if (da->have[NA_SPEC])
			ref = da->a[NA_SPEC];
		else
			break;
		if (!dwarf_formref_die(&ref, &die_mem))
			break;
		read_attrs(&die_mem, &next);
		da = &next;
	}
	ln = str[NA_LINKAGE] ? str[NA_LINKAGE] : str[NA_MIPS_LINKAGE];
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
	name = str[NA_NAME];
	return name ? name : ln;
}

/* The name die_name gives the DIE at origin (asked along at most 15 DIEs:
 * the node that refers to it was the first of 16), kept by the origin's
 * address: one inlined function is called from many places (in the big
 * program of bench/run built by clang, 3,621 inline frames have 1,985
 * origins). die: the origin's DIE, or NULL to find it from the address;
 * *found false when it cannot be found that way. */
static const char *origin_name(struct tdr_symbolizer *s, struct sym_dso *d, Dwarf *dbg,
			       const uint8_t *origin, Dwarf_Die *die, bool *found, int *err)
{
	struct die_attrs da;
	Dwarf_Die die_mem;
	const char *name;
	uint32_t idx = tdr_u64map__get(&d->origin_name_idx, (uintptr_t)origin);

	*found = true;
	if (idx != TDR_HMAP_NONE)
		return d->origin_names[idx];
	if (!die && !(die = dwarf_die_addr_die(dbg, (void *)origin, &die_mem))) {
		*found = false;
		return NULL;
	}
	read_attrs(die, &da);
	name = die_name(s, &da, 15, err);
	if (*err)
		return NULL;
	/* Not kept when memory is short: asked again next time. */
	if (!tdr_ensure_cap(&d->origin_names, &d->origin_name_cap, sizeof(*d->origin_names),
			    d->origin_name_cnt + 1) &&
	    !tdr_u64map__put(&d->origin_name_idx, (uintptr_t)origin, (uint32_t)d->origin_name_cnt))
		d->origin_names[d->origin_name_cnt++] = name;
	return name;
}

/* The callee name of an inline node whose own attributes are in da: what
 * die_name gives. A node with no name of its own is named by its abstract
 * origin alone (die_name goes there next). */
static const char *callee_name(struct tdr_symbolizer *s, struct sym_dso *d,
			       struct die_attrs *da, int *err)
{
	Dwarf_Die die_mem;
	bool found;

	if (da->have[NA_LINKAGE] || da->have[NA_MIPS_LINKAGE] || da->have[NA_NAME] ||
	    !da->have[NA_ORIGIN] || !dwarf_formref_die(&da->a[NA_ORIGIN], &die_mem))
		return die_name(s, da, 16, err);
	return origin_name(s, d, NULL, die_mem.addr, &die_mem, &found, err);
}

/* A call line or column: v when there is one that fits 32 bits, else 0
 * (unknown). */
static uint32_t call_pos(bool have, uint64_t v)
{
	return have && v <= UINT32_MAX ? (uint32_t)v : 0;
}

static uint32_t attr_udata(struct die_attrs *da, int k)
{
	Dwarf_Word w = 0;

	return call_pos(da->have[k] && dwarf_formudata(&da->a[k], &w) == 0, w);
}

/* The frame of inline node n (its callee and call site), read once. */
static int node_frame(struct tdr_symbolizer *s, struct sym_dso *d, struct sym_cu *c,
		      struct sym_inl_node *n)
{
	struct tdr_inline_frame *f = &n->frame;
	struct die_attrs da;
	Dwarf_Word fidx;
	int err = 0;

	if (n->framed)
		return 0;
	if (!c->files_tried) {
		c->files_tried = true;
		if (dwarf_getsrcfiles(&c->walkdie, &c->files, NULL) != 0)
			c->files = NULL;
	}
	memset(f, 0, sizeof(*f));
	/* As the scan read the node: no attribute pass of libdw's. */
	if (n->call.read) {
		const struct sym_scan_call *sc = &n->call;
		bool found;

		f->function = origin_name(s, d, dwarf_cu_getdwarf(n->die.cu), sc->origin, NULL,
					  &found, &err);
		if (err)
			return err;
		if (found) {
			if (c->files && sc->have_file)
				f->call_file = dwarf_filesrc(c->files, sc->file, NULL, NULL);
			f->call_line = call_pos(sc->have_line, sc->line);
			f->call_column = call_pos(sc->have_column, sc->column);
			n->framed = true;
			return 0;
		}
	}
	read_attrs(&n->die, &da);
	f->function = callee_name(s, d, &da, &err);
	if (err)
		return err;
	if (c->files && da.have[NA_CALL_FILE] &&
	    dwarf_formudata(&da.a[NA_CALL_FILE], &fidx) == 0)
		f->call_file = dwarf_filesrc(c->files, fidx, NULL, NULL);
	f->call_line = attr_udata(&da, NA_CALL_LINE);
	f->call_column = attr_udata(&da, NA_CALL_COLUMN);
	n->framed = true;
	return 0;
}

/* Frames innermost first: s->chain runs outermost first. */
int tdr_symbolize_dwarf_frames(struct tdr_symbolizer *s, struct sym_dso *d, struct sym_cu *c,
			       size_t n, struct sym_dwarf_res *r)
{
	r->inlines = tdr_arena__alloc(&s->arena, n * sizeof(*r->inlines));
	if (!r->inlines)
		return -ENOMEM;
	for (size_t k = 0; k < n; k++) {
		struct sym_inl_node *node = s->chain[n - 1 - k];
		int err = node_frame(s, d, c, node);

		if (err)
			return err;
		r->inlines[k] = node->frame;
	}
	r->inline_cnt = n;
	return 0;
}

/* Read once: kept in c->sub_inl[sub_idx]. */
int tdr_symbolize_dwarf_sub_name(struct tdr_symbolizer *s, struct sym_cu *c, size_t sub_idx)
{
	struct sym_sub_inl *si = &c->sub_inl[sub_idx];
	Dwarf_Die *sub = &c->sub_dies[sub_idx];
	struct die_attrs da;
	Dwarf_Addr entry;
	int err = 0;

	if (si->named)
		return 0;
	read_attrs(sub, &da);
	si->name = die_name(s, &da, 16, &err);
	if (err)
		return err;
	si->has_entry = dwarf_entrypc(sub, &entry) == 0;
	si->entry = si->has_entry ? entry : 0;
	si->named = true;
	return 0;
}
