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
 * Threads: with several symbolizers (one per CPU, tdr_report_archive_jobs)
 * the lookups are split by object file and compile unit, each symbolizer
 * in a thread of its own with the units it alone reads; the answers are
 * then added in one order, so the archive is the same for any number.
 * What it does not do: open files or symbolizers (load.c), or write the
 * section into a file (archive_file.c).
 * Ownership: mapping pointers are borrowed from the parser until
 * __resolve.
 */
#include "report_int.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>

#include "tdrec/archive.h"
#include "tdrec/format.h"
#include "tdrec/tdr_hash.h"
#include "tdrec/tdr_hmap.h"
#include "tdrec/tdr_mem.h"

#define LOG_PREFIX "report: "
#include "tdrec/tdr_log.h"


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

static bool arch_addr_is_file(const void *ents, uint32_t idx)
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

/* A run of the lookup order that one symbolizer answers, in a thread of its
 * own unless it is the first. Its answers (answers[entry index]) borrow
 * from that symbolizer. */
struct shard {
	const struct tdr_report_symbols *syms;
	const struct tdr_report_arch_addr *ents;
	const struct tdr_report_addr_order *o;
	struct tdr_sym *answers;
	size_t cnt;
	struct tdr_log_capture *log;
	pthread_t thread;
	bool started;
	int err;
};

static void shard_run(struct shard *sh)
{
	int err = tdr_report_expect(sh->syms, sh->o, sh->cnt, arch_addr_is_file, sh->ents);

	for (size_t i = 0; !err && i < sh->cnt; i++) {
		const struct tdr_report_arch_addr *e = &sh->ents[sh->o[i].idx];
		struct tdr_sym *sym = &sh->answers[sh->o[i].idx];

		*sym = (struct tdr_sym){.status = TDR_SYM_MISSING};
		if (e->kernel) {
			err = sh->syms->lookup_kernel(sh->syms->ctx, e->off, sym);
			if (!err && sym->status == TDR_SYM_MISSING)
				sym->status = TDR_SYM_NO_KERNEL;
		} else {
			struct tdr_dso_ref ref = {.path = e->map->path};

			if (e->map->build_id_sz) {
				ref.build_id = e->map->build_id;
				ref.build_id_sz = e->map->build_id_sz;
			}
			err = sh->syms->lookup(sh->syms->ctx, &ref, e->off, sym);
		}
	}
	sh->err = err;
}

static void *shard_thread(void *arg)
{
	struct shard *sh = arg;

	tdr_log_capture__start(sh->log);
	shard_run(sh);
	tdr_log_capture__stop();
	return NULL;
}

/*
 * How many symbolizers share the lookups: one per TDR_ARCHIVE_SHARD_MIN
 * addresses, at most max. Each loads the symbol table of every file it
 * looks up; the code units (their line tables and DIEs, nearly all of the
 * work) are split between them.
 */
static size_t shard_cnt(size_t addrs, size_t max)
{
	size_t n = addrs / TDR_ARCHIVE_SHARD_MIN;

	if (max > TDR_ARCHIVE_JOBS_MAX)
		max = TDR_ARCHIVE_JOBS_MAX;
	return n < 1 ? 1 : n < max ? n : max;
}

size_t tdr_report_archive_jobs(unsigned asked, size_t addrs)
{
	cpu_set_t cpus;

	if (!asked)
		asked = sched_getaffinity(0, sizeof(cpus), &cpus) ? 1 : (unsigned)CPU_COUNT(&cpus);
	return shard_cnt(addrs, asked);
}

/* The object file of o[i] (a mapping), as the symbolizer is asked for it. */
static struct tdr_dso_ref ref_of(const struct tdr_report_addr_order *o)
{
	const struct tdr_mapping *map = o->obj;
	struct tdr_dso_ref ref = {.path = map->path};

	if (map->build_id_sz) {
		ref.build_id = map->build_id;
		ref.build_id_sz = map->build_id_sz;
	}
	return ref;
}

struct unit_key {
	uint64_t unit, off;
	uint32_t idx;
};

static int unit_key_cmp(const void *pa, const void *pb)
{
	const struct unit_key *a = pa, *b = pb;

	if (a->unit != b->unit)
		return a->unit < b->unit ? -1 : 1;
	if (a->off != b->off)
		return a->off < b->off ? -1 : 1;
	return a->idx < b->idx ? -1 : a->idx > b->idx;
}

/*
 * Where to end a shard that should end at ideal. Inside the run of one
 * file's addresses, the run is put in the order of their compile units
 * (a unit's code may lie in several places: hot and cold parts) and the
 * shard ends where the unit changes, or at an end of the run, whichever is
 * nearest; so no unit (its line table and DIEs: the cost of a lookup) is
 * read by two symbolizers. syms is the first shard's, which opens the file.
 */
static int unit_split(const struct tdr_report_symbols *syms, struct tdr_report_addr_order *o,
		      size_t cnt, size_t ideal, size_t *at)
{
	size_t lo = ideal, hi = ideal, best, n;
	struct unit_key *keys;
	uint64_t *offs, *unit;
	struct tdr_dso_ref ref;
	int err;

	*at = ideal;
	if (ideal == 0 || ideal >= cnt || !o[ideal].obj || o[ideal - 1].obj != o[ideal].obj)
		return 0;
	while (lo > 0 && o[lo - 1].obj == o[ideal].obj)
		lo--;
	while (hi < cnt && o[hi].obj == o[ideal].obj)
		hi++;
	best = ideal - lo <= hi - ideal ? lo : hi;
	n = hi - lo;
	offs = tdr_malloc(n * sizeof(*offs));
	unit = tdr_malloc(n * sizeof(*unit));
	keys = tdr_malloc(n * sizeof(*keys));
	err = offs && unit && keys ? 0 : -ENOMEM;
	for (size_t i = 0; !err && i < n; i++)
		offs[i] = o[lo + i].off;
	ref = ref_of(&o[lo]);
	if (!err && syms->units)
		err = syms->units(syms->ctx, &ref, offs, n, unit);
	else if (!err)
		err = 1; /* units unknown: one unit */
	if (!err) {
		for (size_t i = 0; i < n; i++)
			keys[i] = (struct unit_key){.unit = unit[i], .off = o[lo + i].off,
						    .idx = o[lo + i].idx};
		qsort(keys, n, sizeof(*keys), unit_key_cmp);
		for (size_t i = 0; i < n; i++)
			o[lo + i] = (struct tdr_report_addr_order){
			    .obj = o[lo + i].obj, .off = keys[i].off, .idx = keys[i].idx};
		for (size_t i = 1; i < n; i++) {
			size_t at_i = lo + i;
			size_t dist = at_i > ideal ? at_i - ideal : ideal - at_i;
			size_t best_dist = best > ideal ? best - ideal : ideal - best;

			if (keys[i - 1].unit != keys[i].unit && dist < best_dist)
				best = at_i;
		}
	}
	free(offs);
	free(unit);
	free(keys);
	*at = best;
	return err < 0 ? err : 0;
}

/* Look every address up, shards[1..] in threads of their own; answers[i]
 * is the answer to entry i. The order of a file's addresses may change
 * (unit_split). Messages come out as one thread would give them: those of
 * shard 0, then of shard 1, ..., each once. */
static int lookup_all(struct tdr_report_archiver *a, const struct tdr_report_symbols *syms,
		      size_t syms_cnt, struct tdr_report_addr_order *order,
		      struct tdr_sym *answers)
{
	struct tdr_log_capture logs[TDR_ARCHIVE_JOBS_MAX] = {0};
	struct shard sh[TDR_ARCHIVE_JOBS_MAX] = {0};
	size_t kernel = 0, n, files, at = 0;
	int err = 0;

	while (kernel < a->cnt && !order[kernel].obj)
		kernel++; /* the kernel's addresses sort first: shard 0's */
	files = a->cnt - kernel;
	n = shard_cnt(files, syms_cnt);
	for (size_t k = 0; !err && k < n; k++) {
		size_t end = a->cnt;

		if (k + 1 < n)
			err = unit_split(&syms[0], order, a->cnt, kernel + files * (k + 1) / n, &end);
		if (end < at)
			end = at;
		sh[k] = (struct shard){.syms = &syms[k], .ents = a->ents, .o = order + at,
				       .answers = answers, .cnt = end - at, .log = &logs[k]};
		at = end;
	}
	if (err)
		return err;
	for (size_t k = 0; n > 1 && k < n; k++)
		tdr_debug("archiving: symbolizer %zu of %zu looks up %zu addresses", k + 1, n, sh[k].cnt);
	if (n == 1) {
		shard_run(&sh[0]);
		return sh[0].err;
	}
	for (size_t k = 1; k < n; k++)
		if (sh[k].cnt)
			sh[k].started = !pthread_create(&sh[k].thread, NULL, shard_thread, &sh[k]);
	tdr_log_capture__start(&logs[0]);
	shard_run(&sh[0]);
	for (size_t k = 1; k < n; k++) {
		if (sh[k].started)
			pthread_join(sh[k].thread, NULL);
		else if (sh[k].cnt)
			shard_run(&sh[k]); /* no thread to be had: here, after the others */
	}
	tdr_log_capture__stop();
	tdr_log_capture__replay(logs, n);
	for (size_t k = 0; !err && k < n; k++)
		err = sh[k].err;
	return err;
}

int tdr_report_archiver__resolve(struct tdr_report_archiver *a,
				 const struct tdr_report_symbols *syms, size_t syms_cnt,
				 struct tdr_archive_builder *b, struct tdr_archive_summary *sum)
{
	struct tdr_report_addr_order *order = tdr_malloc((a->cnt + 1) * sizeof(*order));
	struct tdr_sym *answers = tdr_malloc((a->cnt + 1) * sizeof(*answers));
	const void *last_obj = NULL;
	long kernel = -1, last_dso = -1;
	int err = 0;

	if (!order || !answers) {
		err = -ENOMEM;
		goto out;
	}
	sum->addrs = a->cnt;
	err = lookup_order(a, order);
	if (!err)
		err = lookup_all(a, syms, syms_cnt, order, answers);
	if (!err && syms_cnt > 1)
		tdr_report_addr_order_sort(order, a->cnt); /* file by file, by offset */
	for (size_t oi = 0; !err && oi < a->cnt; oi++) {
		size_t i = order[oi].idx;
		const struct tdr_report_arch_addr *e = &a->ents[i];
		const struct tdr_sym *sym = &answers[i];
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
	free(answers);
	return err;
}
