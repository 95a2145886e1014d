/*
 * symbolize/symbolizer.c - the public API: DSO cache, result cache, lookups.
 *
 * Responsibility: tdr_symbolizer__new/__lookup/__lookup_kernel/__free. A
 * lookup finds (or opens, once) the object keyed by (path, recorded build-id),
 * then answers (object, file offset) from the result cache or resolves it
 * once: file offset -> ELF vaddr through the PT_LOAD that holds it, the ELF
 * function symbol (elf.c), and DWARF subprogram, inline chain and line
 * (dwarf.c); a perf map or jitdump file (jitmap.c) answers from its list of
 * JIT functions instead. The outermost function is named by its ELF symbol when there is
 * one (so "foo.cold" and "foo.isra.0" stay what the binary calls them), else
 * by its DWARF subprogram. Without lines and inlines, DWARF is opened only
 * for code that no symbol covers (and that is not PLT).
 * Objects and lifecycle: new -> lookup* -> free. Results are copied into the
 * caller's struct tdr_sym; the strings and inline arrays it points to belong
 * to the symbolizer and stay valid (and identical) until __free.
 * Ownership and threads: one symbolizer per thread; no global state besides
 * what libelf/libdw keep themselves.
 */
#include "symbolize_int.h"

#include <errno.h>
#include <gelf.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define LOG_PREFIX "symbolize: "
#include "tdrec/tdr_log.h"
#include "tdrec/tdr_hash.h"
#include "tdrec/tdr_mem.h"

/*
 * One cached result, packed into 64 bytes next to its key so that a cache
 * hit costs one memory access (the table outgrows the CPU caches on big
 * profiles; a separate index plus result array cost two misses per hit).
 */
struct sym_res_ent {
	uint64_t off;
	const char *function;
	uint64_t function_offset;
	uint64_t function_size;
	const char *file;
	const struct tdr_inline_frame *inlines;
	uint32_t dso_idx;
	uint32_t line, column;
	uint16_t inline_cnt;
	uint8_t status;
};

int tdr_symbolizer__new(const struct tdr_symbolizer_opts *opts, struct tdr_symbolizer **out)
{
	struct tdr_symbolizer *s = tdr_calloc(1, sizeof(*s));

	if (!s)
		return -ENOMEM;
	if (opts)
		s->opts = *opts;
	/* The strings and the build-id are copied; the opts keep no pointers. */
	s->opts.kallsyms_path = s->opts.kernel_ref_sym = s->opts.kernel_notes_path = NULL;
	s->opts.kernel_build_id = NULL;
	s->opts.kernel_release = s->opts.running_release = NULL;
	if (opts && ((opts->kallsyms_path && !(s->kallsyms_path = tdr_strdup(opts->kallsyms_path))) ||
		     (opts->kernel_ref_sym &&
		      !(s->kernel.ref_sym = tdr_strdup(opts->kernel_ref_sym))) ||
		     (opts->kernel_notes_path &&
		      !(s->kernel.notes_path = tdr_strdup(opts->kernel_notes_path))) ||
		     (opts->kernel_release && !(s->kernel.release = tdr_strdup(opts->kernel_release))) ||
		     (opts->running_release &&
		      !(s->kernel.running_release = tdr_strdup(opts->running_release))))) {
		tdr_symbolizer__free(s);
		return -ENOMEM;
	}
	if (opts && opts->kernel_build_id) {
		s->kernel.build_id_sz = opts->kernel_build_id_sz < sizeof(s->kernel.build_id)
					    ? opts->kernel_build_id_sz
					    : sizeof(s->kernel.build_id);
		memcpy(s->kernel.build_id, opts->kernel_build_id, s->kernel.build_id_sz);
	}
	s->kernel.ks = s->opts.kallsyms;
	/* Copies only pay off where DWARF is read for every address. */
	s->opts.cache_dir = NULL;
	if (opts && (opts->want_lines || opts->want_inlines) &&
	    tdr_symbolize_dcache__init(&s->dcache, opts->cache_dir, opts->debug_cache_max_sz)) {
		tdr_symbolizer__free(s);
		return -ENOMEM;
	}
	/* libdw reads ELF files through libelf, which needs its version set. */
	elf_version(EV_CURRENT);
	*out = s;
	return 0;
}

static uint64_t dso_key_hash(const char *path, const uint8_t *bid, size_t bid_sz)
{
	/* 0xff, which no path holds, separates the path from the build-id. */
	uint64_t h = tdr_fnv1a(tdr_hash_str(path), "\xff", 1);

	return tdr_hash_u64(tdr_fnv1a(h, bid, bid_sz));
}

static bool dso_key_eq(const struct sym_dso *d, uint64_t h, const struct tdr_dso_ref *ref,
		       size_t bid_sz)
{
	return d->hash == h && d->build_id_sz == bid_sz && strcmp(d->path, ref->path) == 0 &&
	       (bid_sz == 0 || memcmp(d->build_id, ref->build_id, bid_sz) == 0);
}

static uint64_t dso_hash(const void *ctx, uint32_t idx)
{
	return ((struct sym_dso *const *)ctx)[idx]->hash;
}

struct dso_key {
	const struct tdr_dso_ref *ref;
	size_t bid_sz;
	uint64_t hash;
};

static bool dso_eq(const void *ctx, uint32_t idx, const void *key)
{
	const struct dso_key *k = key;

	return dso_key_eq(((struct sym_dso *const *)ctx)[idx], k->hash, k->ref, k->bid_sz);
}

static void dso_free(struct sym_dso *d)
{
	if (!d)
		return;
	tdr_symbolize_dso__close(d);
	tdr_symbolize_jit__close(d);
	free(d->expect);
	free(d->path);
	free(d->build_id);
	free(d);
}

/* The object for ref, opened on first use. Returns 0 (with *out) or -ENOMEM. */
static int dso_get(struct tdr_symbolizer *s, const struct tdr_dso_ref *ref, struct sym_dso **out)
{
	size_t bid_sz = ref->build_id ? ref->build_id_sz : 0;
	struct sym_dso *d = s->dso_last;
	struct dso_key k;
	uint32_t i;
	size_t pos;
	int err;

	/* Most lookups are in the object of the previous one: compared
	 * directly, that costs less than hashing the path byte by byte. */
	if (d && dso_key_eq(d, d->hash, ref, bid_sz)) {
		*out = d;
		return 0;
	}
	k = (struct dso_key){.ref = ref, .bid_sz = bid_sz,
			     .hash = dso_key_hash(ref->path, ref->build_id, bid_sz)};
	if (tdr_hmap__reserve(&s->dso_index, 64, dso_hash, s->dsos))
		return -ENOMEM;
	i = tdr_hmap__find(&s->dso_index, k.hash, dso_eq, s->dsos, &k, &pos);
	if (i != TDR_HMAP_NONE) {
		s->dso_last = s->dsos[i];
		*out = s->dsos[i];
		return 0;
	}
	if (tdr_ensure_cap(&s->dsos, &s->dso_cap, sizeof(*s->dsos), s->dso_cnt + 1))
		return -ENOMEM;

	d = tdr_calloc(1, sizeof(*d));
	if (!d)
		return -ENOMEM;
	d->path = tdr_strdup(ref->path);
	d->build_id = bid_sz ? tdr_malloc(bid_sz) : NULL;
	if (!d->path || (bid_sz && !d->build_id)) {
		dso_free(d);
		return -ENOMEM;
	}
	if (bid_sz)
		memcpy(d->build_id, ref->build_id, bid_sz);
	d->build_id_sz = bid_sz;
	d->hash = k.hash;
	d->idx = (uint32_t)s->dso_cnt;
	d->dcache = &s->dcache;
	d->debuginfod = s->opts.debuginfod;
	err = tdr_symbolize_jit_path(d->path) ? tdr_symbolize_jit__open(s, d)
					       : tdr_symbolize_dso__open(s, d);
	if (err) {
		dso_free(d);
		return err;
	}
	/* A final failure keeps only its status: release the files now. */
	if (d->status != TDR_SYM_OK)
		tdr_symbolize_dso__close(d);

	/* pos is still the empty slot: opening adds no object to the table. */
	s->dsos[s->dso_cnt++] = d;
	tdr_hmap__add(&s->dso_index, pos);
	s->dso_last = d;
	*out = d;
	return 0;
}

static uint64_t res_hash(uint32_t dso_idx, uint64_t off)
{
	return tdr_hash_u64(off ^ ((uint64_t)dso_idx << 40) ^ ((uint64_t)dso_idx >> 24));
}

struct res_key {
	uint32_t dso_idx;
	uint64_t off;
};

static uint64_t res_hash_of(const void *ctx, uint32_t idx)
{
	const struct sym_res_ent *e = (const struct sym_res_ent *)ctx + idx;

	return res_hash(e->dso_idx, e->off);
}

static bool res_eq(const void *ctx, uint32_t idx, const void *key)
{
	const struct sym_res_ent *e = (const struct sym_res_ent *)ctx + idx;
	const struct res_key *k = key;

	return e->off == k->off && e->dso_idx == k->dso_idx;
}

static const struct sym_res_ent *res_find(struct tdr_symbolizer *s, uint32_t dso_idx,
					   uint64_t off)
{
	struct res_key k = {.dso_idx = dso_idx, .off = off};
	uint32_t i = tdr_hmap__find(&s->res_index, res_hash(dso_idx, off), res_eq, s->res, &k, NULL);

	return i == TDR_HMAP_NONE ? NULL : &s->res[i];
}

static int res_insert(struct tdr_symbolizer *s, uint32_t dso_idx, uint64_t off,
		      const struct tdr_sym *sym)
{
	struct res_key k = {.dso_idx = dso_idx, .off = off};
	size_t j, n = s->res_index.cnt;

	if (tdr_hmap__reserve(&s->res_index, 4096, res_hash_of, s->res) ||
	    tdr_ensure_cap(&s->res, &s->res_cap, sizeof(*s->res), n + 1))
		return -ENOMEM;
	(void)tdr_hmap__find(&s->res_index, res_hash(dso_idx, off), res_eq, s->res, &k, &j);
	s->res[n] = (struct sym_res_ent){
		.off = off,
		.function = sym->function,
		.function_offset = sym->function_offset,
		.function_size = sym->function_size,
		.file = sym->file,
		.inlines = sym->inlines,
		.dso_idx = dso_idx,
		.line = sym->line,
		.column = sym->column,
		.inline_cnt = (uint16_t)sym->inline_cnt, /* capped by dwarf.c */
		.status = (uint8_t)sym->status,
	};
	tdr_hmap__add(&s->res_index, j);
	return 0;
}

static void res_copy(const struct sym_res_ent *e, struct tdr_sym *out)
{
	*out = (struct tdr_sym){
		.status = (enum tdr_sym_status)e->status,
		.function = e->function,
		.function_offset = e->function_offset,
		.function_size = e->function_size,
		.file = e->file,
		.line = e->line,
		.column = e->column,
		.inline_cnt = e->inline_cnt,
		.inlines = e->inlines,
	};
}

/* Resolve (d, off) from scratch into *out. Returns 0 or -ENOMEM. */
static int resolve(struct tdr_symbolizer *s, struct sym_dso *d, uint64_t off, struct tdr_sym *out)
{
	struct sym_dwarf_res dr = { 0 };
	const struct sym_range *sr;
	uint64_t maddr;
	int err;

	memset(out, 0, sizeof(*out));
	out->status = TDR_SYM_NO_SYMBOL;
	if (d->jit) {
		tdr_symbolize_jit__resolve(d, off, out);
		return 0;
	}
	if (!tdr_symbolize_dso__off_to_maddr(d, off, &maddr))
		return 0;
	sr = tdr_symbolize_range_table__find(&d->syms, maddr);
	/*
	 * DWARF only when asked for, or to name code the symbol table misses,
	 * except PLT stubs, which no DWARF describes. Opening it costs much
	 * more than all the rest (libdw inflates every compressed .debug_*
	 * section at once: ~25 MB for Debian's libc), so the function report
	 * must not open it for what the symbol table (which, for a file
	 * without one, comes from its separate debug file) already names.
	 */
	if (s->opts.want_lines || s->opts.want_inlines ||
	    (!sr && !tdr_symbolize_dso__in_plt(d, maddr))) {
		err = tdr_symbolize_dwarf__resolve(s, d, maddr, &dr);
		if (err)
			return err;
	}
	if (sr) {
		out->function = tdr_symbolize_demangle(s, d->sym_names[sr->idx]);
		if (!out->function)
			return -ENOMEM;
		out->function_offset = maddr - sr->lo;
		out->function_size = sr->hi - sr->lo;
	} else if (dr.sub_name) {
		out->function = dr.sub_name;
		out->function_offset = maddr - dr.sub_entry;
	}
	if (out->function)
		out->status = TDR_SYM_OK;
	out->file = dr.file;
	out->line = dr.line;
	out->column = dr.column;
	out->inline_cnt = dr.inline_cnt;
	out->inlines = dr.inlines;
	return 0;
}

int tdr_symbolizer__lookup(struct tdr_symbolizer *s, const struct tdr_dso_ref *dso,
			   uint64_t file_off, struct tdr_sym *out)
{
	const struct sym_res_ent *e;
	struct sym_dso *d;
	struct tdr_sym tmp;
	int err;

	memset(out, 0, sizeof(*out));
	if (!dso || !dso->path || !dso->path[0]) {
		out->status = TDR_SYM_MISSING;
		return 0;
	}
	/* The recording's own symbols first (archived.c): no file is opened
	 * for what they cover. */
	err = tdr_symbolizer__lookup_archived(s, dso, file_off, out);
	if (err)
		return err < 0 ? err : 0;
	err = dso_get(s, dso, &d);
	if (err)
		return err;
	if (d->status != TDR_SYM_OK) {
		out->status = d->status;
		return 0;
	}
	e = res_find(s, d->idx, file_off);
	if (e) {
		res_copy(e, out);
		return 0;
	}
	err = resolve(s, d, file_off, &tmp);
	if (!err)
		err = res_insert(s, d->idx, file_off, &tmp);
	if (err)
		return err;
	*out = tmp;
	return 0;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

int tdr_symbolizer__expect(struct tdr_symbolizer *s, const struct tdr_dso_ref *dso,
			   const uint64_t *file_offs, size_t cnt)
{
	struct sym_dso *d;
	size_t live = 0;
	int err;

	if (!dso || !dso->path || !dso->path[0])
		return 0;
	/* What the archive answers opens no file (lookup does the same). */
	for (size_t i = 0; i < cnt; i++)
		live += !tdr_symbolize_archived__covers(s, dso, file_offs[i]);
	if (!live)
		return 0;
	err = dso_get(s, dso, &d);
	if (err)
		return err;
	if (d->status != TDR_SYM_OK || d->jit)
		return 0;
	if (live > SIZE_MAX / 2 - d->expect_cnt ||
	    tdr_ensure_cap(&d->expect, &d->expect_cap, sizeof(*d->expect), d->expect_cnt + live))
		return -ENOMEM;
	for (size_t i = 0; i < cnt; i++) {
		uint64_t maddr;

		if ((live == cnt || !tdr_symbolize_archived__covers(s, dso, file_offs[i])) &&
		    tdr_symbolize_dso__off_to_maddr(d, file_offs[i], &maddr))
			d->expect[d->expect_cnt++] = maddr;
	}
	/* Sorted when a walk needs them: a recording of many processes has
	 * one call per mapping of a library. */
	d->expect_sorted = false;
	d->expect_given = true;
	return 0;
}

int tdr_symbolizer__units(struct tdr_symbolizer *s, const struct tdr_dso_ref *dso,
			  const uint64_t *file_offs, size_t cnt, uint64_t *unit, uint64_t *bytes)
{
	struct sym_dso *d = NULL;
	int err = 0;

	for (size_t i = 0; i < cnt; i++) {
		unit[i] = UINT64_MAX;
		bytes[i] = 0;
	}
	if (!dso || !dso->path || !dso->path[0])
		return 0;
	for (size_t i = 0; !err && i < cnt; i++) {
		uint64_t maddr;

		if (tdr_symbolize_archived__covers(s, dso, file_offs[i]))
			continue;
		if (!d && (err = dso_get(s, dso, &d)))
			break;
		if (d->status != TDR_SYM_OK || d->jit)
			break;
		if (tdr_symbolize_dso__off_to_maddr(d, file_offs[i], &maddr))
			err = tdr_symbolize_dwarf__unit(s, d, maddr, &unit[i], &bytes[i]);
	}
	return err;
}

void tdr_symbolize_expect__sort(struct sym_dso *d)
{
	size_t kept = 0;

	if (d->expect_sorted)
		return;
	qsort(d->expect, d->expect_cnt, sizeof(*d->expect), cmp_u64);
	for (size_t i = 0; i < d->expect_cnt; i++)
		if (!kept || d->expect[kept - 1] != d->expect[i])
			d->expect[kept++] = d->expect[i];
	d->expect_cnt = kept;
	d->expect_sorted = true;
}

int tdr_symbolizer__lookup_kernel(struct tdr_symbolizer *s, uint64_t ip, struct tdr_sym *out)
{
	int err = tdr_symbolize_archived__kernel(s, ip, out);

	if (err)
		return err < 0 ? err : 0;
	return tdr_symbolize_kernel__lookup(s, ip, out);
}

const char *tdr_sym_status_name(enum tdr_sym_status st)
{
	switch (st) {
	case TDR_SYM_OK:
		return "ok";
	case TDR_SYM_NO_SYMBOL:
		return "no-symbol";
	case TDR_SYM_MISSING:
		return "missing";
	case TDR_SYM_CHANGED:
		return "changed";
	case TDR_SYM_NO_KERNEL:
		return "no-kernel";
	case TDR_SYM_NOT_ELF:
		return "not-elf";
	}
	return "unknown";
}

void tdr_symbolizer__free(struct tdr_symbolizer *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->dso_cnt; i++)
		dso_free(s->dsos[i]);
	free(s->dsos);
	tdr_hmap__fini(&s->dso_index);
	tdr_hmap__fini(&s->res_index);
	free(s->res);
	free(s->chain);
	free(s->inl_map);
	free(s->arch_frames);
	tdr_symbolize_kernel__free(&s->kernel);
	tdr_symbolize_demangle__free(s);
	tdr_arena__fini(&s->arena);
	tdr_symbolize_dcache__free(&s->dcache);
	free(s->kallsyms_path);
	free(s);
}
