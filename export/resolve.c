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
 * function's share is the same in both. The symbolizer is set up with
 * the rules of report/load.c (objects named relative to the recording,
 * kernel symbols of this boot or of the recorded kernel image, objects
 * modified after the recording are not the ones that ran).
 * Ownership: the symbolizer lives only inside tdr_export_resolve.
 */
#include "export_int.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "tdrec/symbolize.h"
#include "tdrec/tdr_mem.h"

#define LOG_PREFIX "export: "
#include "tdrec/tdr_log.h"

#define KERNEL_DSO "[kernel.kallsyms]"

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

/* An object named by a relative path is looked up next to the recording
 * (report/load.c: the synthetic examples name synthetic-demo.elf). */
static int lookup_file(struct res_ctx *c, const struct tdr_dso_ref *dso, uint64_t off,
		       struct tdr_sym *out)
{
	struct tdr_dso_ref near = *dso;
	char path[PATH_MAX];

	if (dso->path && dso->path[0] && dso->path[0] != '/' && dso->path[0] != '[' &&
	    (size_t)snprintf(path, sizeof(path), "%s/%s", c->dir, dso->path) < sizeof(path)) {
		near.path = path;
		dso = &near;
	}
	return tdr_symbolizer__lookup(c->s, dso, off, out);
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

static int resolve_loc(struct res_ctx *c, struct ex_loc *l)
{
	struct tdr_profile *p = c->p;
	struct tdr_sym sym = {.status = TDR_SYM_MISSING};
	const char *path = l->map && l->map->path ? l->map->path : NULL;
	/* A caller's return address is looked up where its call is. */
	uint64_t off = l->caller ? tdr_symbolize_caller_addr(l->off) : l->off;
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
		if (!path || !strncmp(path, KERNEL_DSO, strlen(KERNEL_DSO)))
			path = KERNEL_DSO;
		err = tdr_symbolizer__lookup_kernel(c->s, off, &sym);
		if (err)
			return err;
		if (sym.status == TDR_SYM_MISSING)
			sym.status = TDR_SYM_NO_KERNEL;
		break;
	case EX_FILE:
	case EX_VDSO: {
		struct tdr_dso_ref ref = {0};

		path = path ? path : (l->kind == EX_VDSO ? "[vdso]" : "[unknown]");
		ref.path = path;
		if (l->map && l->map->build_id_sz) {
			ref.build_id = l->map->build_id;
			ref.build_id_sz = l->map->build_id_sz;
		}
		err = lookup_file(c, &ref, off, &sym);
		if (err)
			return err;
		if (l->kind == EX_VDSO && sym.status != TDR_SYM_OK)
			return add_line(p, l, "[vdso]", path, NULL, 0);
		break;
	}
	}
	switch (sym.status) {
	case TDR_SYM_OK:
		if (sym.function)
			return sym_lines(p, l, &sym, path);
		break;
	case TDR_SYM_MISSING:
		snprintf(buf, sizeof(buf), "[unknown] %s", path);
		return add_line(p, l, buf, path, NULL, 0);
	case TDR_SYM_NOT_ELF:
		snprintf(buf, sizeof(buf), "[not ELF] %s", path);
		return add_line(p, l, buf, path, NULL, 0);
	case TDR_SYM_CHANGED:
		snprintf(buf, sizeof(buf), "[changed] %s", path);
		return add_line(p, l, buf, path, NULL, 0);
	case TDR_SYM_NO_KERNEL:
		return add_line(p, l, "[kernel]", path, NULL, 0);
	case TDR_SYM_NO_SYMBOL:
		break;
	}
	snprintf(buf, sizeof(buf), "%s+0x%" PRIx64, path, l->off);
	return add_line(p, l, buf, path, NULL, 0);
}

/* When the recording ended on the wall clock (0 = unknown): objects written
 * later are not the ones that ran (tdr_symbolizer_opts.recorded_until_ns). */
static uint64_t recorded_until(const struct tdr_profile *p)
{
	if (!p->start_wall_ns)
		return 0;
	if (p->duration_ns)
		return p->start_wall_ns + p->duration_ns;
	if (p->first_ns <= p->last_ns && p->last_ns >= p->start_clock_ns)
		return p->start_wall_ns + (p->last_ns - p->start_clock_ns);
	return 0;
}

int tdr_export_resolve(struct tdr_profile *p, const char *path, const struct tdr_meta *meta,
		       const struct tdr_report_load_opts *lopts)
{
	struct tdr_kallsyms_opts ko = {.path = lopts->kallsyms_path,
				       .cache_dir = lopts->cache_dir,
				       .boot_id = lopts->boot_id};
	struct tdr_symbolizer_opts so = {
	    .want_lines = true,
	    .want_inlines = true,
	    .recorded_until_ns = recorded_until(p),
	    .cache_dir = lopts->cache_dir,
	    .kallsyms_path = lopts->kallsyms_path,
	    .kernel_notes_path = lopts->kernel_notes_path,
	};
	const struct tdr_mapping *k = p->kernel_image;
	struct tdr_kallsyms *ks = NULL;
	struct res_ctx c = {.p = p};
	const char *slash = strrchr(path, '/');
	int err;

	so.kallsyms_usable = meta->boot_id && lopts->boot_id && *meta->boot_id &&
			     !strcmp(meta->boot_id, lopts->boot_id);
	if (k && k->path[strlen(KERNEL_DSO)]) {
		so.kernel_build_id = k->build_id;
		so.kernel_build_id_sz = k->build_id_sz;
		so.kernel_ref_sym = k->path + strlen(KERNEL_DSO);
		so.kernel_ref_addr = k->pgoff;
	}
	err = tdr_kallsyms__new(&ko, &ks);
	if (err)
		return err;
	so.kallsyms = ks;
	err = tdr_symbolizer__new(&so, &c.s);
	if (err)
		goto out;
	if (slash)
		snprintf(c.dir, sizeof(c.dir), "%.*s", (int)(slash - path + (slash == path)), path);
	else
		snprintf(c.dir, sizeof(c.dir), ".");
	for (size_t i = 0; !err && i < p->loc_cnt; i++)
		err = resolve_loc(&c, &p->locs[i]);
out:
	tdr_u64map__fini(&c.map_ids);
	tdr_symbolizer__free(c.s);
	tdr_kallsyms__free(ks);
	return err;
}
