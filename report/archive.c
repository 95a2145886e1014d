/*
 * report/archive.c - what the samples reference, symbolized into the
 * file's ARCHIVE section (docs/format.md 7.2).
 *
 * Responsibility: the archive's address collector and its resolution. The
 * collector takes every address a sample references: its own IP and,
 * once call stacks exist, every frame of its stack; each distinct
 * (mapping, file offset) of a mapped file or vDSO, and each kernel
 * address, once (one hash lookup per address, no allocation unless it is
 * new). Resolution asks the symbolizer (through struct tdr_report_symbols,
 * as the report does, with lines and inlines) once per address and keeps
 * the answers that do not depend on what is on disk later: a function, or
 * "no symbol covers it" in an object that was read. Addresses whose object
 * is missing or changed, or kernel addresses without usable kernel
 * symbols, are left out and counted.
 * With several jobs (one per CPU, tdr_report_archive_jobs) the lookups
 * are divided between this process and forked children
 * (archive_shards.c); the answers are then added in one order, so the
 * archive is the same for any number.
 * What it does not do: open files or symbolizers (load.c), or write the
 * section into a file (archive_file.c).
 * Ownership: mapping pointers are borrowed from the parser until
 * __resolve.
 */
#include "report_int.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "tdrec/archive.h"
#include "tdrec/format.h"
#include "tdrec/tdr_hash.h"
#include "tdrec/tdr_hmap.h"
#include "tdrec/tdr_mem.h"


void tdr_report_archiver__release(struct tdr_report_archiver *a)
{
	free(a->ents);
	tdr_hmap__fini(&a->index);
	free(a->cur);
	free(a->spcs);
	free(a->sents);
	free(a->stks);
	free(a->uses);
	tdr_hmap__fini(&a->sindex);
	memset(a, 0, sizeof(*a));
}

struct akey {
	const struct tdr_mapping *map;
	uint64_t off;
	bool kernel;
};

static uint64_t ahash(const struct akey *k)
{
	return tdr_hash_combine((uintptr_t)k->map ^ (k->off * 0x9e3779b97f4a7c15ull), k->kernel);
}

static uint64_t ent_hash(const void *ctx, uint32_t idx)
{
	return ((const struct tdr_report_arch_addr *)ctx)[idx].hash;
}

static bool ent_eq(const void *ctx, uint32_t idx, const void *key)
{
	const struct tdr_report_arch_addr *e = (const struct tdr_report_arch_addr *)ctx + idx;
	const struct akey *k = key;

	return e->off == k->off && e->map == k->map && e->kernel == k->kernel;
}

/* Room for each address of a sample is made before its walk. */
static void note(struct tdr_report_archiver *a, uint32_t idx)
{
	a->cur[a->cur_cnt++] = idx;
}

/* Note k's index as the sample's next address (adding k when new). */
static int add_addr(struct tdr_report_archiver *a, const struct akey *k)
{
	uint64_t h = ahash(k);
	uint32_t idx;
	size_t pos;

	if (tdr_hmap__reserve(&a->index, 4096, ent_hash, a->ents))
		return -ENOMEM;
	idx = tdr_hmap__find(&a->index, h, ent_eq, a->ents, k, &pos);
	if (idx == TDR_HMAP_NONE) {
		if (tdr_ensure_cap(&a->ents, &a->cap, sizeof(*a->ents), a->cnt + 1))
			return -ENOMEM;
		a->ents[a->cnt++] = (struct tdr_report_arch_addr){
		    .map = k->map, .off = k->off, .kernel = k->kernel, .hash = h};
		idx = tdr_hmap__add(&a->index, pos);
	}
	note(a, idx);
	return 0;
}

/* The archive's key of one address, false when it has none (anonymous or
 * unmapped memory, hypervisor and guest code: nothing to symbolize). */
static bool key_of(uint64_t ip, enum tdr_cpumode mode, const struct tdr_mapping *map,
		   uint64_t map_off, struct akey *k)
{
	memset(k, 0, sizeof(*k));
	switch (tdr_addr_place(mode, map)) {
	case TDR_PLACE_KERNEL:
		k->kernel = true;
		k->off = ip;
		return true;
	case TDR_PLACE_FILE:
	case TDR_PLACE_VDSO:
		if (!map->path || !map->path[0])
			return false;
		k->map = map;
		k->off = map_off;
		return true;
	default:
		return false;
	}
}

/*
 * The one walk over what a sample references: its own IP, then each
 * caller of its stack at the address a report looks it up by (one byte
 * before the return address, tdr_symbolize_caller_addr), so that every
 * row a report of the stacks makes is answered by the archive.
 */
int tdr_report_archiver__add_sample(struct tdr_report_archiver *a, const struct tdr_sample *s)
{
	struct akey k;
	int err = 0;

	if (s->time_ns < a->first_ns || !a->seen)
		a->first_ns = s->time_ns;
	if (s->time_ns > a->last_ns || !a->seen)
		a->last_ns = s->time_ns;
	a->seen = true;
	a->cur_cnt = 0;
	if (tdr_ensure_cap(&a->cur, &a->cur_cap, sizeof(*a->cur), (size_t)s->frame_cnt + 1))
		return -ENOMEM;
	if (key_of(s->ip, s->cpumode, s->map, s->map_off, &k)) {
		if (k.kernel)
			a->kernel_image = tdr_report_kernel_image(a->kernel_image, s->map);
		err = add_addr(a, &k);
	} else {
		note(a, UINT32_MAX);
	}
	for (uint32_t i = 0; !err && i < s->frame_cnt; i++) {
		const struct tdr_frame *f = &s->frames[i];

		if (!key_of(f->ip, f->cpumode, f->map, f->map_off, &k)) {
			note(a, UINT32_MAX);
			continue;
		}
		k.off = tdr_symbolize_caller_addr(k.off);
		err = add_addr(a, &k);
	}
	return err;
}

/* Only answers that hold whatever is on disk later are kept: a function,
 * or no symbol in an object that was read. Every other status says
 * something about the files found now (missing, changed, not usable),
 * and a later report looks such an address up again. */
static bool keep(const struct tdr_sym *sym, struct tdr_archive_summary *sum)
{
	if (sym->status == TDR_SYM_OK)
		return sym->function != NULL;
	if (sym->status == TDR_SYM_NO_SYMBOL)
		return true;
	if (sym->status == TDR_SYM_CHANGED)
		sum->changed++;
	else if (sym->status == TDR_SYM_NO_KERNEL)
		sum->no_kernel++;
	else
		sum->missing++; /* missing, or not an object it can read */
	return false;
}

static int add_answer(struct tdr_archive_builder *b, long dso, uint64_t off,
		      const struct tdr_sym *sym)
{
	struct tdr_archive_frame fr[TDR_ARCHIVE_MAX_INLINES];
	struct tdr_archive_sym as = {.status = TDR_ARCHIVE_SYM_NO_SYMBOL};

	if (sym->status == TDR_SYM_OK) {
		as = (struct tdr_archive_sym){
		    .status = TDR_ARCHIVE_SYM_OK,
		    .function = sym->function,
		    .function_offset = sym->function_offset,
		    .function_size = sym->function_size,
		    .file = sym->file,
		    .line = sym->line,
		    .column = sym->column,
		    .inline_cnt = sym->inline_cnt < TDR_ARCHIVE_MAX_INLINES
				      ? (uint32_t)sym->inline_cnt
				      : TDR_ARCHIVE_MAX_INLINES,
		    .inlines = fr,
		};
		for (uint32_t i = 0; i < as.inline_cnt; i++)
			fr[i] = (struct tdr_archive_frame){
			    .function = sym->inlines[i].function,
			    .call_file = sym->inlines[i].call_file,
			    .call_line = sym->inlines[i].call_line,
			    .call_column = sym->inlines[i].call_column,
			};
	}
	return tdr_archive_builder__add(b, dso, off, &as);
}

bool tdr_report_arch_addr_is_file(const void *ents, uint32_t idx)
{
	return !((const struct tdr_report_arch_addr *)ents)[idx].kernel;
}

/*
 * The object of each address as the lookups are ordered: every mapping of
 * one file (path and build-id: its segments, each process's copy) is
 * counted as its first one, so that the file's addresses sort together,
 * by offset, and one worker looks each of its code units up.
 */
struct obj_ent {
	const struct tdr_mapping *map;
	uint64_t hash;
};

static uint64_t obj_hash(const struct tdr_mapping *m)
{
	return tdr_hash_combine(tdr_hash_str(m->path),
				tdr_hash_bytes(m->build_id, m->build_id_sz) ^ m->build_id_sz);
}

static uint64_t obj_ent_hash(const void *ctx, uint32_t idx)
{
	return ((const struct obj_ent *)ctx)[idx].hash;
}

static bool obj_ent_eq(const void *ctx, uint32_t idx, const void *key)
{
	const struct tdr_mapping *a = ((const struct obj_ent *)ctx)[idx].map, *b = key;

	return a->build_id_sz == b->build_id_sz && !strcmp(a->path, b->path) &&
	       !memcmp(a->build_id, b->build_id, a->build_id_sz);
}

static int lookup_order(const struct tdr_report_archiver *a, struct tdr_report_addr_order *order)
{
	const struct tdr_mapping *last = NULL, *last_obj = NULL;
	struct tdr_hmap index = {0};
	struct obj_ent *objs = NULL;
	size_t cnt = 0, cap = 0;
	int err = 0;

	for (size_t i = 0; i < a->cnt; i++) {
		const struct tdr_mapping *m = a->ents[i].map;
		uint32_t idx;
		uint64_t h;
		size_t pos;

		if (m && m != last) {
			h = obj_hash(m);
			if ((err = tdr_hmap__reserve(&index, 64, obj_ent_hash, objs)))
				break;
			idx = tdr_hmap__find(&index, h, obj_ent_eq, objs, m, &pos);
			if (idx == TDR_HMAP_NONE) {
				if ((err = tdr_ensure_cap(&objs, &cap, sizeof(*objs), cnt + 1)))
					break;
				objs[cnt++] = (struct obj_ent){.map = m, .hash = h};
				idx = tdr_hmap__add(&index, pos);
			}
			last = m;
			last_obj = objs[idx].map;
		}
		order[i] = (struct tdr_report_addr_order){
		    .obj = m ? last_obj : NULL, .off = a->ents[i].off, .idx = (uint32_t)i};
	}
	tdr_hmap__fini(&index);
	free(objs);
	if (!err)
		tdr_report_addr_order_sort(order, a->cnt);
	return err;
}

int tdr_report_archiver__resolve(struct tdr_report_archiver *a,
				 const struct tdr_report_symbols *syms, size_t jobs,
				 struct tdr_archive_builder *b, struct tdr_archive_summary *sum)
{
	struct tdr_report_addr_order *order = tdr_malloc((a->cnt + 1) * sizeof(*order));
	struct tdr_report_arch_answers ans = {.sym = tdr_malloc((a->cnt + 1) * sizeof(*ans.sym))};
	const void *last_obj = NULL;
	long kernel = -1, last_dso = -1;
	int err = 0;

	if (!order || !ans.sym) {
		err = -ENOMEM;
		goto out;
	}
	sum->addrs = a->cnt;
	err = lookup_order(a, order);
	if (!err)
		err = tdr_report_archive_lookup(a, syms, jobs, order, &ans, &sum->workers);
	for (size_t oi = 0; !err && oi < a->cnt; oi++) {
		size_t i = order[oi].idx;
		const struct tdr_report_arch_addr *e = &a->ents[i];
		const struct tdr_sym *sym = &ans.sym[i];
		long dso;

		if (!keep(sym, sum))
			continue;
		a->ents[i].kept = true; /* unless left out below */
		if (e->kernel) {
			if (kernel < 0)
				kernel = tdr_archive_builder__dso(b, TDR_ARCHIVE_KERNEL,
								  TDR_KERNEL_DSO, NULL, 0);
			dso = kernel;
		} else if (order[oi].obj == last_obj) {
			dso = last_dso; /* addresses come file by file */
		} else {
			dso = tdr_archive_builder__dso(b, TDR_ARCHIVE_FILE, e->map->path,
						       e->map->build_id, e->map->build_id_sz);
			last_obj = order[oi].obj;
			last_dso = dso;
		}
		if (dso == -EINVAL) {
			a->ents[i].kept = false;
			continue; /* a path the format cannot hold: looked up live later */
		}
		if (dso < 0) {
			err = (int)dso;
			break;
		}
		err = add_answer(b, dso, e->off, sym);
		if (err == -EINVAL) {
			a->ents[i].kept = false;
			err = 0;
			continue; /* a name above the format's caps: looked up live later */
		}
		if (err)
			break;
		sum->archived++;
	}
out:
	free(order);
	tdr_report_arch_answers__fini(&ans);
	return err;
}
