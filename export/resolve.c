/*
 * export/resolve.c - every location of a profile symbolized once.
 *
 * Responsibility: after the parser ran, look each unique location up in the
 * symbolizer (functions, inline chains, file and line), and turn it into
 * pprof's shape: a mapping (path, address range, offset, build-id) and a
 * list of lines, innermost inline first, each naming a function (name,
 * object, source file). Addresses that do not symbolize get the names
 * 'tdrec report' gives their rows ("[unknown] PATH", "[changed] PATH",
 * "PATH+0xOFF", "[kernel]", "[vdso]", "[anon]", "[unmapped]"), so that a
 * function's share is the same in both (tdr_report_unsym_name). The
 * symbolizer is set up by report/load.c's functions for every command
 * (objects named relative to the recording, kernel symbols of this boot or
 * of the recorded kernel image, objects modified after the recording are
 * not the ones that ran).
 * Ownership: the symbolizer lives only inside tdr_export_resolve.
 */
#include "export_int.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "tdrec/format.h"
#include "tdrec/report.h"
#include "tdrec/symbolize.h"
#include "tdrec/tdr_mem.h"

#define LOG_PREFIX "export: "
#include "tdrec/tdr_log.h"


struct res_ctx {
	struct tdr_profile *p;
	struct tdr_symbolizer *s;
	struct tdr_u64map map_ids; /* parser mapping -> 1 + index */
	char dir[PATH_MAX];
};

static uint64_t func_hash_of(const char *name, const char *dso)
{
	return tdr_hash_combine((uintptr_t)name, (uintptr_t)dso);
}

static uint64_t func_hash(const void *ctx, uint32_t idx)
{
	return ((const struct ex_func *)ctx)[idx].hash;
}

static bool func_eq(const void *ctx, uint32_t idx, const void *key)
{
	const struct ex_func *a = (const struct ex_func *)ctx + idx, *b = key;

	return a->hash == b->hash && a->name == b->name && a->dso == b->dso;
}

long tdr_export_func(struct tdr_profile *p, const char *name, const char *dso, const char *file)
{
	struct ex_func k = {0};
	uint32_t idx;
	size_t pos;
	int err;

	k.name = tdr_intern__str(&p->strs, name);
	k.dso = dso ? tdr_intern__str(&p->strs, dso) : NULL;
	k.file = file ? tdr_intern__str(&p->strs, file) : NULL;
	if (!k.name || (dso && !k.dso) || (file && !k.file))
		return -ENOMEM;
	k.hash = func_hash_of(k.name, k.dso);
	err = tdr_hmap__reserve(&p->func_index, 256, func_hash, p->funcs);
	if (err)
		return err;
	idx = tdr_hmap__find(&p->func_index, k.hash, func_eq, p->funcs, &k, &pos);
	if (idx != TDR_HMAP_NONE) {
		if (!p->funcs[idx].file)
			p->funcs[idx].file = k.file;
		return idx;
	}
	err = tdr_ensure_cap(&p->funcs, &p->func_cap, sizeof(*p->funcs), p->func_cnt + 1);
	if (err)
		return err;
	p->funcs[p->func_cnt] = k;
	tdr_hmap__add(&p->func_index, pos);
	return (long)p->func_cnt++;
}

static int add_line(struct tdr_profile *p, struct ex_loc *l, const char *name, const char *dso,
		    const char *file, uint32_t line)
{
	long f = tdr_export_func(p, name, dso, file);
	int err;

	if (f < 0)
		return (int)f;
	err = tdr_ensure_cap(&p->lines, &p->line_cap, sizeof(*p->lines), p->line_cnt + 1);
	if (err)
		return err;
	if (!l->line_cnt)
		l->line_first = (uint32_t)p->line_cnt;
	p->lines[p->line_cnt++] = (struct ex_line){(uint32_t)f, line};
	l->line_cnt++;
	return 0;
}

/* The location's mapping (1 + index), added the first time it is seen. */
static int loc_mapping(struct res_ctx *c, struct ex_loc *l)
{
	struct tdr_profile *p = c->p;
	const struct tdr_mapping *m = l->map;
	struct ex_mapping *em;
	uint32_t id;
	int err;

	if (!m || l->kind == EX_ANON || l->kind == EX_UNMAPPED)
		return 0;
	id = tdr_u64map__get(&c->map_ids, (uintptr_t)m);
	if (id != TDR_HMAP_NONE) {
		l->mapping = id;
		return 0;
	}
	err = tdr_ensure_cap(&p->maps, &p->map_cap, sizeof(*p->maps), p->map_cnt + 1);
	if (err)
		return err;
	em = &p->maps[p->map_cnt];
	memset(em, 0, sizeof(*em));
	em->path = tdr_intern__str(&p->strs, m->path ? m->path : "");
	if (!em->path)
		return -ENOMEM;
	em->start = m->start;
	em->limit = m->start + m->len;
	em->pgoff = m->pgoff;
	em->build_id_sz = m->build_id_sz <= sizeof(em->build_id) ? m->build_id_sz : 0;
	memcpy(em->build_id, m->build_id, em->build_id_sz);
	em->src = m;
	id = (uint32_t)++p->map_cnt;
	err = tdr_u64map__put(&c->map_ids, (uintptr_t)m, id);
	if (err)
		return err;
	l->mapping = id;
	return 0;
}

/* Lines of a symbolized address: the innermost inline at the address's
 * line, each outer one at the line its callee was inlined at. */
static int sym_lines(struct tdr_profile *p, struct ex_loc *l, const struct tdr_sym *sym,
		     const char *dso)
{
	const char *file = sym->file;
	uint32_t line = sym->line;
	int err;

	for (size_t i = 0; sym->inlines && i < sym->inline_cnt; i++) {
		const struct tdr_inline_frame *in = &sym->inlines[i];

		if (!in->function)
			continue;
		err = add_line(p, l, in->function, dso, file, line);
		if (err)
			return err;
		file = in->call_file;
		line = in->call_line;
	}
	return add_line(p, l, sym->function, dso, file, line);
}

/* The object of a file location, named path. */
static struct tdr_dso_ref loc_ref(const struct ex_loc *l, const char *path)
{
	struct tdr_dso_ref ref = {.path = path};

	if (l->map && l->map->build_id_sz) {
		ref.build_id = l->map->build_id;
		ref.build_id_sz = l->map->build_id_sz;
	}
	return ref;
}

/* The offset a location is looked up at: a caller's return address where
 * its call is. */
static uint64_t loc_off(const struct ex_loc *l)
{
	return l->caller ? tdr_symbolize_caller_addr(l->off) : l->off;
}

/* Tell the symbolizer every file offset before the first lookup: with
 * inline chains, a compile unit's walk then lists the inlines of the
 * sampled functions only (tdr_symbolizer__expect). */
static int expect_locs(struct res_ctx *c, bool archived)
{
	for (size_t i = 0; i < c->p->loc_cnt; i++) {
		const struct ex_loc *l = &c->p->locs[i];
		struct tdr_dso_ref ref;
		uint64_t off = loc_off(l);
		int err;

		if ((l->kind != EX_FILE && l->kind != EX_VDSO) || !l->map || !l->map->path)
			continue;
		ref = loc_ref(l, l->map->path);
		err = tdr_report_expect_near(c->s, c->dir, &ref, &off, 1, archived);
		if (err)
			return err;
	}
	return 0;
}

static int resolve_loc(struct res_ctx *c, struct ex_loc *l)
{
	struct tdr_profile *p = c->p;
	struct tdr_sym sym = {.status = TDR_SYM_MISSING};
	const char *path = l->map && l->map->path ? l->map->path : NULL;
	uint64_t off = loc_off(l);
	char buf[PATH_MAX + 64];
	int err;

	err = loc_mapping(c, l);
	if (err)
		return err;
	switch ((enum ex_kind)l->kind) {
	case EX_HYPERVISOR:
		return add_line(p, l, "[hypervisor]", NULL, NULL, 0);
	case EX_GUEST:
		return add_line(p, l, "[guest]", NULL, NULL, 0);
	case EX_UNMAPPED:
		return add_line(p, l, "[unmapped]", NULL, NULL, 0);
	case EX_ANON:
		return add_line(p, l, "[anon]", path, NULL, 0);
	case EX_KERNEL:
		if (!path || !strncmp(path, TDR_KERNEL_DSO, strlen(TDR_KERNEL_DSO)))
			path = TDR_KERNEL_DSO;
		err = tdr_symbolizer__lookup_kernel(c->s, off, &sym);
		if (err)
			return err;
		if (sym.status == TDR_SYM_MISSING)
			sym.status = TDR_SYM_NO_KERNEL;
		break;
	case EX_FILE:
	case EX_VDSO: {
		struct tdr_dso_ref ref;

		path = path ? path : (l->kind == EX_VDSO ? "[vdso]" : "[unknown]");
		ref = loc_ref(l, path);
		err = tdr_report_lookup_near(c->s, c->dir, &ref, off, &sym);
		if (err)
			return err;
		if (l->kind == EX_VDSO && sym.status != TDR_SYM_OK)
			return add_line(p, l, "[vdso]", path, NULL, 0);
		break;
	}
	}
	if (sym.status == TDR_SYM_OK && sym.function)
		return sym_lines(p, l, &sym, path);
	return add_line(p, l, tdr_report_unsym_name(sym.status, path, l->off, buf, sizeof(buf)),
			path, NULL, 0);
}

/* Whether a mapped file is the program a thread named comm runs: the
 * kernel's comm is the file's name cut to 15 bytes (TASK_COMM_LEN). */
static bool runs_as(const char *path, const char *comm)
{
	const char *slash = strrchr(path, '/');
	const char *base = slash ? slash + 1 : path;
	size_t n = strlen(comm);

	return n && (strlen(base) == n || (n == 15 && strlen(base) > 15)) && !strncmp(base, comm, n);
}

/* The program's own file first among the mappings: pprof takes the first
 * mapping for the main binary (its "File:" line, and what `-symbolize`
 * and the source views start from). Mapping ids are 1 + index, so the
 * two swapped mappings' locations swap ids too. */
static void main_mapping_first(struct tdr_profile *p)
{
	size_t k = p->map_cnt;

	for (size_t i = 0; i < p->map_cnt && k == p->map_cnt; i++)
		for (size_t t = 0; t < p->thread_cnt && k == p->map_cnt; t++)
			if (p->threads[t].comm && runs_as(p->maps[i].path, p->threads[t].comm))
				k = i;
	if (k == 0 || k == p->map_cnt)
		return;
	struct ex_mapping tmp = p->maps[0];

	p->maps[0] = p->maps[k];
	p->maps[k] = tmp;
	for (size_t i = 0; i < p->loc_cnt; i++) {
		if (p->locs[i].mapping == 1)
			p->locs[i].mapping = (uint32_t)k + 1;
		else if (p->locs[i].mapping == k + 1)
			p->locs[i].mapping = 1;
	}
}

int tdr_export_resolve(struct tdr_profile *p, const char *path, const struct tdr_meta *meta,
		       const struct tdr_archive *archive, const struct tdr_report_load_opts *lopts)
{
	struct tdr_symbolizer_opts so = {
	    .want_lines = true,
	    .want_inlines = true,
	    .archive = archive, /* the file's own symbols answer first */
	    .recorded_until_ns =
		tdr_report_recorded_until(meta, p->duration_ns, p->first_ns, p->last_ns),
	};
	struct tdr_kallsyms *ks = NULL;
	struct res_ctx c = {.p = p};
	int err;

	err = tdr_report_kallsyms_new(lopts, &ks);
	if (err)
		return err;
	tdr_report_symbolizer_opts(meta, p->kernel_image, lopts, ks, &so);
	err = tdr_symbolizer__new(&so, &c.s);
	if (err)
		goto out;
	tdr_report_recording_dir(path, c.dir, sizeof(c.dir));
	err = expect_locs(&c, archive != NULL);
	for (size_t i = 0; !err && i < p->loc_cnt; i++)
		err = resolve_loc(&c, &p->locs[i]);
	if (!err)
		main_mapping_first(p);
out:
	tdr_u64map__fini(&c.map_ids);
	tdr_symbolizer__free(c.s);
	tdr_kallsyms__free(ks);
	return err;
}
