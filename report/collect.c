/*
 * report/collect.c - from parser samples to rows: filter, sum per address, symbolize once.
 *
 * Responsibility: the adapter between the parser and the row table.
 * tdr_report__add_sample filters a sample (pid, tid, comm, object) and sums
 * its deltas into the table of unique addresses: (mapping, file offset) for
 * user code, the IP for kernel code, (pid, tid) or pid for thread and process
 * reports. That is one hash lookup per sample and no allocation unless the
 * address is new. tdr_report__resolve then symbolizes each unique address
 * exactly once and folds it into its row by the report's mode, and counts
 * what could not be symbolized for the warnings.
 * Ownership: mapping pointers are borrowed from the parser until __resolve;
 * thread names are interned in the report's pool.
 * See: docs/report.md "Rows", symbolize.h (statuses).
 */
#include "report_int.h"

#include <errno.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "tdrec/format.h"
#include "tdrec/tdr_mem.h"

#define LOG_PREFIX "report: "
#include "tdrec/tdr_log.h"


void tdr_report_addrtab__release(struct addrtab *t)
{
	free(t->ents);
	free(t->sums);
	tdr_hmap__fini(&t->index);
	memset(t, 0, sizeof(*t));
}

static inline bool addr_order_less(const struct tdr_report_addr_order *a,
				   const struct tdr_report_addr_order *b)
{
	if (a->obj != b->obj)
		return (uintptr_t)a->obj < (uintptr_t)b->obj;
	if (a->off != b->off)
		return a->off < b->off;
	return a->idx < b->idx;
}

static inline void addr_order_swap(struct tdr_report_addr_order *a,
				   struct tdr_report_addr_order *b)
{
	struct tdr_report_addr_order t = *a;

	*a = *b;
	*b = t;
}

/*
 * Quicksort (median of three, the smaller side first, insertion sort below
 * 16 entries) with the comparison inlined: glibc's qsort, a merge sort
 * through a function pointer, cost 6.9 M instructions for 9,000 addresses.
 * The keys are distinct (idx), so no order of equal keys is at stake.
 */
void tdr_report_addr_order_sort(struct tdr_report_addr_order *o, size_t cnt)
{
	while (cnt > 16) {
		struct tdr_report_addr_order *mid = o + cnt / 2, *last = o + cnt - 1, pivot;
		size_t i = 0, j = cnt - 1;

		if (addr_order_less(mid, o))
			addr_order_swap(mid, o);
		if (addr_order_less(last, o))
			addr_order_swap(last, o);
		if (addr_order_less(last, mid))
			addr_order_swap(last, mid);
		pivot = *mid;
		for (;;) {
			while (addr_order_less(&o[i], &pivot))
				i++;
			while (addr_order_less(&pivot, &o[j]))
				j--;
			if (i >= j)
				break;
			addr_order_swap(&o[i], &o[j]);
			i++;
			j--;
		}
		/* [0, j] and [j + 1, cnt): recurse into the smaller one. */
		if (j + 1 < cnt - j - 1) {
			tdr_report_addr_order_sort(o, j + 1);
			o += j + 1;
			cnt -= j + 1;
		} else {
			tdr_report_addr_order_sort(o + j + 1, cnt - j - 1);
			cnt = j + 1;
		}
	}
	for (size_t k = 1; k < cnt; k++) {
		struct tdr_report_addr_order t = o[k];
		size_t m = k;

		for (; m > 0 && addr_order_less(&t, &o[m - 1]); m--)
			o[m] = o[m - 1];
		o[m] = t;
	}
}

int tdr_report_expect(const struct tdr_report_symbols *syms,
		      const struct tdr_report_addr_order *o, size_t cnt,
		      bool (*is_file)(const void *ents, uint32_t idx), const void *ents)
{
	uint64_t *offs;
	int err = 0;

	if (!syms || !syms->expect || !cnt)
		return 0;
	if (!(offs = tdr_malloc(cnt * sizeof(*offs))))
		return -ENOMEM;
	for (size_t i = 0, end; !err && i < cnt; i = end) {
		const struct tdr_mapping *map = o[i].obj;
		size_t n = 0;

		for (end = i; end < cnt && o[end].obj == map; end++)
			if (is_file(ents, o[end].idx))
				offs[n++] = o[end].off;
		if (map && map->path && n) {
			struct tdr_dso_ref ref = tdr_report_dso_ref(map->path, map);

			err = syms->expect(syms->ctx, &ref, offs, n);
		}
	}
	free(offs);
	return err;
}

struct addr_key {
	const struct addr_ent *e;
	uint64_t hash;
};

static uint64_t addr_hash(const void *ctx, uint32_t idx)
{
	return ((const struct addr_ent *)ctx)[idx].hash;
}

static bool addr_eq(const void *ctx, uint32_t idx, const void *key)
{
	const struct addr_ent *e = (const struct addr_ent *)ctx + idx;
	const struct addr_key *k = key;

	return e->hash == k->hash && e->map == k->e->map && e->off == k->e->off &&
	       e->pid == k->e->pid && e->tid == k->e->tid && e->kind == k->e->kind &&
	       e->core == k->e->core;
}

/* Entry for key (its map/off/pid/tid/kind), created when new. Returns index or -ENOMEM. */
long tdr_report_addr_find_or_add(struct addrtab *t, size_t event_cnt, const struct addr_ent *key)
{
	/* One mix, not two: this runs once per sample, and the hash's latency
	 * comes before the table's first load. */
	struct addr_key k = {
	    .e = key,
	    .hash = tdr_hash_combine((uintptr_t)key->map ^ (key->off * 0x9e3779b97f4a7c15ull),
				     ((uint64_t)key->pid << 32 | key->tid) ^
					 ((uint64_t)key->kind << 60) ^ ((uint64_t)key->core << 52)),
	};
	uint32_t idx;
	size_t pos;
	int err;

	if (t->cnt >= UINT32_MAX - 1)
		return -ENOMEM;
	/* __reserve tests inline first: this runs once per sample. */
	err = tdr_hmap__reserve(&t->index, 4096, addr_hash, t->ents);
	if (err)
		return err;
	idx = tdr_hmap__find(&t->index, k.hash, addr_eq, t->ents, &k, &pos);
	if (idx != TDR_HMAP_NONE)
		return (long)idx;
	err = tdr_ensure_cap(&t->ents, &t->cap, sizeof(*t->ents), t->cnt + 1);
	if (!err)
		err = tdr_report_sums__reserve(&t->sums, &t->sums_cap, event_cnt, t->cnt + 1);
	if (err)
		return err;
	t->ents[t->cnt] = *key;
	t->ents[t->cnt].hash = k.hash;
	t->ents[t->cnt].samples = 0;
	tdr_hmap__add(&t->index, pos);
	return (long)t->cnt++;
}

/* The object name a sample is in, for the --dso filter; NULL when none. */
static const char *sample_dso(const struct tdr_sample *s)
{
	if (s->map && s->map->path)
		return s->map->path;
	return report_kernel_sample(s) ? TDR_KERNEL_DSO : NULL;
}

static bool dso_matches(const struct tdr_report *r, const char *path)
{
	const char *base = tdr_report_basename(path);

	for (size_t i = 0; path && i < r->opts.filter.dso_cnt; i++)
		if (!strcmp(r->f_dsos[i], path) || !strcmp(r->f_dsos[i], base))
			return true;
	return false;
}

static bool u32_in(const uint32_t *v, size_t n, uint32_t x)
{
	for (size_t i = 0; i < n; i++)
		if (v[i] == x)
			return true;
	return false;
}

static bool sample_passes(struct tdr_report *r, const struct tdr_sample *s)
{
	const struct tdr_report_filter *f = &r->opts.filter;

	if (f->pid_cnt && !u32_in(f->pids, f->pid_cnt, s->pid))
		return false;
	if (f->tid_cnt && !u32_in(f->tids, f->tid_cnt, s->tid))
		return false;
	if (f->comm_cnt) {
		bool ok = false;

		for (size_t i = 0; !ok && i < f->comm_cnt; i++)
			ok = s->comm && !strcmp(f->comms[i], s->comm);
		if (!ok)
			return false;
	}
	if (f->dso_cnt) {
		/* Mappings live as long as the parser: cache the last answer. */
		if (!s->map || s->map != r->f_last_map) {
			/* Kernel code also answers to [kernel.kallsyms], whatever its
			 * mapping is called (perf.data: "[kernel.kallsyms]_text"). */
			r->f_last_ok = dso_matches(r, sample_dso(s)) ||
				       (report_kernel_sample(s) && dso_matches(r, TDR_KERNEL_DSO));
			r->f_last_map = s->map;
		}
		if (!r->f_last_ok)
			return false;
	}
	return true;
}

static void classify(const struct tdr_report *r, const struct tdr_sample *s, struct addr_ent *k)
{
	memset(k, 0, sizeof(*k));
	k->map = s->map;
	if (r->opts.by == TDR_BY_THREAD || r->opts.by == TDR_BY_PROCESS) {
		k->map = NULL;
		k->kind = ADDR_TASK;
		k->pid = s->pid;
		k->tid = r->opts.by == TDR_BY_THREAD ? s->tid : 0;
		return;
	}
	k->kind = tdr_addr_place(s->cpumode, s->map);
	switch (k->kind) {
	case ADDR_HYPERVISOR:
	case ADDR_GUEST:
		k->map = NULL;
		break;
	case ADDR_KERNEL:
		k->off = s->ip;
		break;
	case ADDR_ANON:
		/* JIT code: its process's perf map or jitdump may name it. */
		if (r->opts.by != TDR_BY_DSO) {
			k->off = s->ip;
			k->pid = s->pid;
		}
		break;
	case ADDR_FILE:
	case ADDR_VDSO:
		k->off = s->map_off;
		break;
	default:
		break;
	}
	if (r->opts.by == TDR_BY_DSO)
		k->off = 0;
}

/*
 * A caller frame's address: as classify does for a sample's own ip, with
 * the frame's mode and mapping, looked up one byte before the return
 * address (tdr_symbolize_caller_addr), by function only.
 */
void tdr_report_classify_frame(const struct tdr_report *r, const struct tdr_sample *s,
			       const struct tdr_frame *f, struct addr_ent *k)
{
	struct tdr_sample fs = {.ip = f->ip, .cpumode = f->cpumode, .map = f->map,
				.map_off = f->map_off, .pid = s->pid, .tid = s->tid};

	classify(r, &fs, k);
	if (k->kind == ADDR_KERNEL || k->kind == ADDR_FILE || k->kind == ADDR_VDSO)
		k->off = tdr_symbolize_caller_addr(k->off);
}

/* at[i] += deltas[i] for n events; nothing without deltas. */
static void add_deltas(uint64_t *at, const uint64_t *deltas, size_t n)
{
	for (size_t i = 0; deltas && i < n; i++)
		at[i] += deltas[i];
}

int tdr_report__add_sample(struct tdr_report *r, const struct tdr_sample *s)
{
	struct addr_ent key;
	struct addr_ent *e;
	uint64_t *sums;
	long idx;
	bool counts;
	int err = 0;

	if (r->finished || r->resolved)
		return -EINVAL;
	/* A sample of another sampling event than the first (perf.data) adds
	 * its deltas, not a sample. */
	counts = r->primary_sampler < 0 || s->sampler_idx == (uint32_t)r->primary_sampler;
	if (counts)
		r->seen++;
	else
		r->other_samples++;
	/* Before the filters: what all samples attribute (counted.c); for a
	 * sample that passes them, in the same loop as its address's sums
	 * below. Local copies of the pointers and count: through r and s the
	 * compiler must reload them after every store (they may alias). */
	if (!sample_passes(r, s)) {
		add_deltas(r->attributed, s->deltas, r->event_cnt);
		return 0;
	}
	if (counts)
		r->kept++;
	if (s->time_ns < r->first_ns)
		r->first_ns = s->time_ns;
	if (s->time_ns > r->last_ns)
		r->last_ns = s->time_ns;
	classify(r, s, &key);
	/* Split by core type: the sampler's (cores.c). */
	key.core = r->core_cnt && s->sampler_idx < r->event_cnt ? r->event_core[s->sampler_idx] : 0;
	if (key.kind == ADDR_KERNEL)
		r->kernel_image = tdr_report_kernel_image(r->kernel_image, s->map);
	idx = tdr_report_addr_find_or_add(&r->addrs, r->event_cnt, &key);
	if (idx < 0) {
		add_deltas(r->attributed, s->deltas, r->event_cnt);
		return (int)idx;
	}
	e = &r->addrs.ents[idx];
	if (counts)
		e->samples++;
	if (r->event_cnt && s->deltas) {
		const uint64_t *dl = s->deltas;
		uint64_t *at = r->attributed;
		size_t n = r->event_cnt;

		sums = r->addrs.sums + (size_t)idx * n;
		for (size_t i = 0; i < n; i++) {
			at[i] += dl[i];
			sums[i] += dl[i];
		}
	}
	if (key.kind == ADDR_TASK && s->comm) {
		/* A thread's latest name wins; a process is named by its main thread. */
		bool take = !e->comm || (r->opts.by == TDR_BY_THREAD
					     ? strcmp(e->comm, s->comm)
					     : s->tid == s->pid && strcmp(e->comm, s->comm));

		if (take && *s->comm) {
			e->comm = tdr_report_strpool__intern(&r->pool, s->comm, &err);
			if (err)
				return err;
		}
	}
	/* Last: it may add addresses (and move e). */
	if (r->opts.stacks)
		return tdr_report_stacks__add(r, s, (uint32_t)idx, key.core, counts);
	return 0;
}

/* What resolving an address gave, for the warnings. */
#define NO_LINE_DSOS 4

struct unsym_counts {
	uint64_t missing, changed, no_symbol, no_kernel, no_map;
	uint64_t jit; /* named by a JIT's perf map or jitdump file */
	const char *kernel_why; /* why kernel symbols are not usable, or NULL */
	const char *jit_source;
	size_t jit_sources;
	/* --lines: samples in a function with no source line (no DWARF line
	 * table), and the first few objects they are in. */
	uint64_t no_line;
	struct {
		const char *dso;
		uint64_t samples;
	} no_line_dsos[NO_LINE_DSOS];
};

static void count_no_line(struct unsym_counts *uc, const char *dso, uint64_t samples)
{
	uc->no_line += samples;
	for (size_t i = 0; dso && i < NO_LINE_DSOS; i++) {
		if (!uc->no_line_dsos[i].dso)
			uc->no_line_dsos[i].dso = dso;
		if (!strcmp(uc->no_line_dsos[i].dso, dso)) {
			uc->no_line_dsos[i].samples += samples;
			return;
		}
	}
}

/* By its build-id, else by its release and placement (a perf.data without
 * the BUILD_ID feature: symbolize/kernel.c). */
const struct tdr_mapping *tdr_report_kernel_image(const struct tdr_mapping *cur,
						   const struct tdr_mapping *m)
{
	if ((!cur || !cur->build_id_sz) && m && m->path &&
	    !strncmp(m->path, TDR_KERNEL_DSO, strlen(TDR_KERNEL_DSO)) && (!cur || m->build_id_sz))
		return m;
	return cur;
}

/* The tags of unsymbolized rows; warn_unsymbolized names their objects. */
#define TAG_MISSING "[unknown] "
#define TAG_NOT_ELF "[not ELF] " /* the same width as TAG_MISSING */
#define TAG_CHANGED "[changed] "

const char *tdr_report_unsym_name(enum tdr_sym_status status, const char *path, uint64_t off,
				  char *buf, size_t sz)
{
	const char *tag = NULL;

	switch (status) {
	case TDR_SYM_MISSING:
		tag = TAG_MISSING;
		break;
	case TDR_SYM_NOT_ELF:
		tag = TAG_NOT_ELF;
		break;
	case TDR_SYM_CHANGED:
		tag = TAG_CHANGED;
		break;
	case TDR_SYM_NO_KERNEL:
		return "[kernel]";
	case TDR_SYM_OK:
	case TDR_SYM_NO_SYMBOL:
		break;
	}
	if (tag)
		snprintf(buf, sz, "%s%s", tag, path);
	else
		snprintf(buf, sz, "%s+0x%" PRIx64, path, off);
	return buf;
}

/* Row key of a symbolized address in the report's mode. buf holds made-up names. */
static void key_from_sym(const struct tdr_report *r, const struct tdr_sym *sym, const char *dso,
			 uint64_t off, struct tdr_row_key *k, char *buf, size_t bufsz,
			 struct unsym_counts *uc, uint64_t samples)
{
	k->dso = dso;
	switch (sym->status) {
	case TDR_SYM_OK:
		if (!sym->function) {
			uc->no_symbol += samples;
			break;
		}
		k->name = sym->function;
		if (r->opts.by == TDR_BY_INLINE && sym->inline_cnt && sym->inlines &&
		    sym->inlines[0].function) {
			k->name = sym->inlines[0].function;
			k->inlined_into = sym->function;
		}
		if (r->opts.by == TDR_BY_LINE && sym->file) {
			k->file = sym->file;
			k->line = sym->line;
		} else if (r->opts.by == TDR_BY_LINE && dso && dso[0] != '[') {
			count_no_line(uc, dso, samples);
		}
		return;
	case TDR_SYM_MISSING:
	case TDR_SYM_NOT_ELF:
		uc->missing += samples;
		break;
	case TDR_SYM_CHANGED:
		uc->changed += samples;
		break;
	case TDR_SYM_NO_KERNEL:
		uc->no_kernel += samples;
		break;
	case TDR_SYM_NO_SYMBOL:
		uc->no_symbol += samples;
		break;
	}
	k->name = tdr_report_unsym_name(sym->status, dso, off, buf, bufsz);
}

static int resolve_one(struct tdr_report *r, const struct tdr_report_symbols *syms,
		       const struct addr_ent *e, struct tdr_row_key *k, char *buf, size_t bufsz,
		       struct unsym_counts *uc)
{
	struct tdr_sym sym = {.status = TDR_SYM_MISSING};
	const char *path = e->map && e->map->path ? e->map->path : NULL;
	int err = 0;

	switch (e->kind) {
	case ADDR_TASK:
		k->name = e->comm ? e->comm : "[unknown]";
		k->pid = e->pid;
		k->tid = e->tid;
		return 0;
	case ADDR_HYPERVISOR:
		k->name = "[hypervisor]";
		return 0;
	case ADDR_GUEST:
		k->name = "[guest]";
		return 0;
	case ADDR_UNMAPPED:
		k->name = "[unmapped]";
		uc->no_map += e->samples;
		return 0;
	case ADDR_ANON:
		if (r->opts.by != TDR_BY_DSO && syms && syms->lookup_jit) {
			const char *src = NULL;

			err = syms->lookup_jit(syms->ctx, e->pid, e->off, &sym, &src);
			if (err)
				return err;
			if (sym.status == TDR_SYM_OK && src) {
				key_from_sym(r, &sym, src, e->off, k, buf, bufsz, uc, e->samples);
				uc->jit += e->samples;
				if (!uc->jit_source || strcmp(uc->jit_source, src)) {
					uc->jit_sources++;
					if (!uc->jit_source)
						uc->jit_source = tdr_report_strpool__intern(
						    &r->pool, src, &err);
				}
				return err;
			}
		}
		k->name = r->opts.by == TDR_BY_DSO && path ? path : "[anon]";
		k->dso = path;
		uc->no_map += e->samples;
		return 0;
	case ADDR_KERNEL:
		/* The kernel image is [kernel.kallsyms] (perf.data calls its
		 * mapping "[kernel.kallsyms]_text"); modules keep their path. */
		if (!path || !strncmp(path, TDR_KERNEL_DSO, strlen(TDR_KERNEL_DSO)))
			path = TDR_KERNEL_DSO;
		if (r->opts.by == TDR_BY_DSO)
			break;
		if (syms && syms->lookup_kernel)
			err = syms->lookup_kernel(syms->ctx, e->off, &sym);
		else
			sym.status = TDR_SYM_NO_KERNEL;
		if (err)
			return err;
		if (sym.status == TDR_SYM_MISSING)
			sym.status = TDR_SYM_NO_KERNEL;
		key_from_sym(r, &sym, path, e->off, k, buf, bufsz, uc, e->samples);
		return 0;
	case ADDR_VDSO:
	case ADDR_FILE:
		path = path ? path : (e->kind == ADDR_VDSO ? "[vdso]" : "[unknown]");
		if (r->opts.by == TDR_BY_DSO)
			break;
		if (syms && syms->lookup) {
			struct tdr_dso_ref ref = tdr_report_dso_ref(path, e->map);

			err = syms->lookup(syms->ctx, &ref, e->off, &sym);
			if (err)
				return err;
		}
		if (e->kind == ADDR_VDSO && sym.status != TDR_SYM_OK) {
			/* No image of the vdso to read: one row for it. */
			k->name = "[vdso]";
			k->dso = path;
			uc->no_symbol += e->samples;
			return 0;
		}
		key_from_sym(r, &sym, path, e->off, k, buf, bufsz, uc, e->samples);
		return 0;
	}
	/* By object. */
	k->name = path;
	k->dso = path;
	return 0;
}

/* --lines: say when many samples have no source line, and where. */
static void warn_no_line(struct tdr_report *r, const struct unsym_counts *uc)
{
	double tot = r->kept ? (double)r->kept : 1.0;
	char objs[512];
	size_t len = 0;

	if ((double)uc->no_line < TDR_REPORT_NO_LINE_NOTE * tot)
		return;
	objs[0] = '\0';
	for (size_t i = 0; i < NO_LINE_DSOS && uc->no_line_dsos[i].dso && len < sizeof(objs); i++)
		len += (size_t)snprintf(objs + len, sizeof(objs) - len, "%s%s %.1f%%",
					i ? ", " : "", tdr_report_basename(uc->no_line_dsos[i].dso),
					100.0 * (double)uc->no_line_dsos[i].samples / tot);
	tdr_report__warn(r,
			 "note: %.1f%% of samples have no source line (their object has no DWARF "
			 "line table: build with -g, or install its debug file): %s%s",
			 100.0 * (double)uc->no_line / tot, objs,
			 uc->no_line_dsos[NO_LINE_DSOS - 1].dso ? ", ..." : "");
}

static void warn_unsymbolized(struct tdr_report *r, const struct unsym_counts *uc)
{
	uint64_t bad = uc->missing + uc->changed + uc->no_symbol + uc->no_kernel + uc->no_map;
	double tot = r->kept ? (double)r->kept : 1.0;
	size_t listed = 0, more = 0;

	if (!bad)
		return;
	tdr_report__warn(r,
			 "%.1f%% of samples (%" PRIu64 ") could not be symbolized: "
			 "missing binary %" PRIu64 ", changed binary %" PRIu64
			 ", no symbol %" PRIu64 ", kernel %" PRIu64
			 ", unmapped or anonymous %" PRIu64,
			 100.0 * (double)bad / tot, bad, uc->missing, uc->changed, uc->no_symbol,
			 uc->no_kernel, uc->no_map);
	/* Name the missing and changed objects: their rows are "[unknown] path"
	 * and "[changed] path". */
	for (size_t i = 0; i < r->rows.cnt; i++) {
		const struct row_ent *e = &r->rows.rows[i];
		bool changed = !strncmp(e->key.name, TAG_CHANGED, strlen(TAG_CHANGED));
		bool not_elf = !strncmp(e->key.name, TAG_NOT_ELF, strlen(TAG_NOT_ELF));

		if (!changed && !not_elf && strncmp(e->key.name, TAG_MISSING, strlen(TAG_MISSING)))
			continue;
		if (listed >= 8) {
			more++;
			continue;
		}
		listed++;
		tdr_report__warn(
		    r, "%s: %s (%.1f%% of samples)",
		    changed ? "binary changed since the recording (other build-id, or modified "
			      "after the recording), not symbolized"
		    : not_elf ? "not an ELF file (or not a regular file), not symbolized"
			    : "binary not found",
		    e->key.name + strlen(TAG_MISSING), 100.0 * (double)e->samples / tot);
	}
	if (more)
		tdr_report__warn(r, "... and %zu more missing or changed binaries", more);
	/* The usual cause: the program was rebuilt in place before the
	 * report (or the OLD side of a diff). Say how to keep the old one. */
	if (uc->changed)
		tdr_report__warn(r, "to report on a binary rebuilt since, keep the old one in "
				    "perf's build-id cache before rebuilding (perf buildid-cache "
				    "-a FILE): tdrec reads it from there (docs/symbolize.md)");
	if (uc->no_kernel && uc->kernel_why)
		tdr_report__warn(r,
				 "kernel symbols not usable: %s; %" PRIu64 " samples shown as [kernel]",
				 uc->kernel_why, uc->no_kernel);
	else if (uc->no_kernel)
		tdr_report__warn(r,
				 "kernel symbols not usable (the recorded kernel is not the running "
				 "one, or /proc/kallsyms hides addresses): %" PRIu64
				 " samples shown as [kernel]",
				 uc->no_kernel);
}

static bool addr_is_file(const void *ents, uint32_t idx)
{
	uint32_t kind = ((const struct addr_ent *)ents)[idx].kind;

	return kind == ADDR_FILE || kind == ADDR_VDSO;
}

int tdr_report__resolve(struct tdr_report *r, const struct tdr_report_symbols *syms)
{
	struct unsym_counts uc = {0};
	char buf[4096 + 64];
	struct tdr_report_addr_order *order;
	int *addr_row = NULL;
	int err = 0, idx;

	if (r->finished || r->resolved)
		return -EINVAL;
	/* With stacks, the row of every address is kept for the fold. */
	if (r->opts.stacks && !(addr_row = tdr_calloc(r->addrs.cnt + 1, sizeof(*addr_row))))
		return -ENOMEM;
	order = tdr_malloc((r->addrs.cnt + 1) * sizeof(*order));
	if (!order) {
		free(addr_row);
		return -ENOMEM;
	}
	for (size_t i = 0; i < r->addrs.cnt; i++)
		order[i] = (struct tdr_report_addr_order){
		    .obj = r->addrs.ents[i].map, .off = r->addrs.ents[i].off, .idx = (uint32_t)i};
	tdr_report_addr_order_sort(order, r->addrs.cnt);
	/* Only inline chains use the hint (the walk lists inlines). */
	if (r->opts.by == TDR_BY_INLINE)
		err = tdr_report_expect(syms, order, r->addrs.cnt, addr_is_file, r->addrs.ents);
	for (size_t oi = 0; !err && oi < r->addrs.cnt; oi++) {
		size_t i = order[oi].idx;
		const struct addr_ent *e = &r->addrs.ents[i];
		struct tdr_row_key k = {.core = e->core};

		err = resolve_one(r, syms, e, &k, buf, sizeof(buf), &uc);
		if (!err && !k.name)
			k.name = "[unknown]";
		if (err)
			break;
		idx = tdr_report__add_row(r, &k,
					  r->event_cnt ? r->addrs.sums + i * r->event_cnt : NULL,
					  e->samples);
		if (idx < 0) {
			err = idx;
			break;
		}
		if (addr_row)
			addr_row[i] = idx;
	}
	free(order);
	if (!err && addr_row)
		err = tdr_report_stacks__fold(r, addr_row);
	free(addr_row);
	if (err)
		return err;
	r->resolved = true;
	r->kernel_image = NULL; /* the parser may go now */
	if (uc.no_kernel && syms && syms->kernel_why)
		uc.kernel_why = syms->kernel_why(syms->ctx);
	if (r->opts.by <= TDR_BY_LINE)
		warn_unsymbolized(r, &uc);
	if (uc.jit)
		tdr_report__warn(r,
				 "note: %" PRIu64 " samples (%.1f%%) of JIT code named from %s%s "
				 "(docs/symbolize.md \"JIT code\")",
				 uc.jit, 100.0 * (double)uc.jit / (r->kept ? (double)r->kept : 1.0),
				 uc.jit_source, uc.jit_sources > 1 ? " and other JIT files" : "");
	warn_no_line(r, &uc);
	tdr_report_addrtab__release(&r->addrs);
	return 0;
}
