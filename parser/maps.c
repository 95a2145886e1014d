/*
 * parser/maps.c - per-process address spaces from MMAP/MMAP2/FORK/COMM/EXIT.
 *
 * Responsibility: keep, for every process, the sorted list of its mappings;
 * copy it to a child process on FORK (not for a new thread, pid == ppid,
 * which shares it), empty it on exec (COMM with PERF_RECORD_MISC_COMM_EXEC)
 * and drop it on the EXIT of the process's main thread (pid == tid). Answer
 * ip -> mapping with a last-hit cache and a binary search. Kernel IPs go to
 * the kernel's mappings (pid -1 records) or the shared "[kernel.kallsyms]"
 * pseudo mapping with map offset = ip.
 * Objects and lifecycle: struct maps inside the parser; tdr_parser_maps_init ->
 * tdr_parser_maps_mmap/fork/exec/exit/find (repeat) -> tdr_parser_maps_fini.
 * Ownership: mapping objects and path strings live in arenas until
 * tdr_parser_maps_fini, so samples may keep pointers to them; a mapping is never changed
 * once published except for a build-id learned later. An mmap over part of
 * an existing mapping splits it into new objects.
 * See: docs/parser.md "Address spaces".
 */
#include "parser_int.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "tdrec/format.h"
#include "tdrec/tdr_mem.h"

#define LOG_PREFIX "parser: "
#include "tdrec/tdr_log.h"

/* ---------------------------------------------------------------------------
 * Setup.
 */
int tdr_parser_maps_init(struct maps *m)
{
	const char *k;

	memset(m, 0, sizeof(*m));
	m->kernel.pid = UINT32_MAX;
	k = tdr_intern__strn(&m->strs, TDR_KERNEL_DSO, strlen(TDR_KERNEL_DSO));
	if (!k)
		return -ENOMEM;
	m->kernel_pseudo.path = k;
	m->kernel_pseudo.kind = TDR_MAP_KERNEL;
	m->kernel_pseudo.start = 0;
	m->kernel_pseudo.len = UINT64_MAX;
	return 0;
}

static void space_free(struct space *s)
{
	zfree(&s->maps);
	s->cnt = s->cap = 0;
	s->last = 0;
}

void tdr_parser_maps_fini(struct maps *m)
{
	size_t i;

	tdr_arena__fini(&m->mem);
	zfree(&m->all);
	for (i = 0; i < m->space_cnt; i++) {
		space_free(m->spaces[i]);
		free(m->spaces[i]);
	}
	zfree(&m->spaces);
	space_free(&m->kernel);
	tdr_u64map__fini(&m->pids);
	tdr_u64map__fini(&m->build_ids);
	tdr_u64map__fini(&m->jitdumps);
	zfree(&m->bids);
	m->bid_cnt = m->bid_cap = 0;
	tdr_intern__fini(&m->strs);
	memset(m, 0, sizeof(*m));
}

static enum tdr_map_kind maps_classify(const char *path, bool kernel)
{
	if (kernel)
		return TDR_MAP_KERNEL;
	if (!strcmp(path, "[vdso]"))
		return TDR_MAP_VDSO;
	if (path[0] == '[' || path[0] == '\0' || !strncmp(path, "//anon", 6) ||
	    !strncmp(path, "/dev/zero", 9) || !strncmp(path, "/anon_hugepage", 14) ||
	    !strncmp(path, "/SYSV", 5) || !strncmp(path, "/memfd:", 7))
		return TDR_MAP_ANON;
	return TDR_MAP_FILE;
}

/* path is the jitdump file of process pid: ".../jit-PID.dump". */
static bool is_jitdump(const char *path, uint32_t pid)
{
	const char *b = strrchr(path, '/');
	char want[32];

	snprintf(want, sizeof(want), "jit-%u.dump", pid);
	return b && !strcmp(b + 1, want);
}

const char *tdr_parser__jitdump(const struct tdr_parser *p, uint32_t pid)
{
	uint32_t i = tdr_u64map__get(&p->maps.jitdumps, pid);

	return i == TDR_HMAP_NONE ? NULL : p->maps.all[i]->path;
}

/* A zeroed mapping with a stable address, listed in m->all. */
static struct tdr_mapping *new_mapping(struct maps *m)
{
	struct tdr_mapping *map;

	if (tdr_ensure_cap(&m->all, &m->all_cap, sizeof(*m->all), m->all_cnt + 1))
		return NULL;
	map = tdr_arena__alloc(&m->mem, sizeof(*map));
	if (!map)
		return NULL;
	memset(map, 0, sizeof(*map));
	m->all[m->all_cnt++] = map;
	return map;
}

/* ---------------------------------------------------------------------------
 * Spaces.
 */
static struct space *space_get(struct maps *m, uint32_t pid, bool create)
{
	uint32_t i;
	struct space *s;

	if (m->last_space && m->last_space->pid == pid)
		return m->last_space;
	i = tdr_u64map__get(&m->pids, pid);
	if (i != TDR_HMAP_NONE) {
		m->last_space = m->spaces[i];
		return m->spaces[i];
	}
	if (!create)
		return NULL;
	if (tdr_ensure_cap(&m->spaces, &m->space_cap, sizeof(*m->spaces), m->space_cnt + 1))
		return NULL;
	s = tdr_calloc(1, sizeof(*s));
	if (!s)
		return NULL;
	s->pid = pid;
	if (tdr_u64map__put(&m->pids, pid, (uint32_t)m->space_cnt)) {
		free(s);
		return NULL;
	}
	m->spaces[m->space_cnt++] = s;
	m->last_space = s;
	return s;
}

static uint64_t map_end(const struct tdr_mapping *mp)
{
	uint64_t e = mp->start + mp->len;

	return e < mp->start ? UINT64_MAX : e;
}

/* Copy of o restricted to [start, end), as a new object. */
static const struct tdr_mapping *piece(struct maps *m, const struct tdr_mapping *o,
				       uint64_t start, uint64_t end)
{
	struct tdr_mapping *n = new_mapping(m);

	if (!n)
		return NULL;
	*n = *o;
	n->start = start;
	n->len = end - start;
	n->pgoff = o->pgoff + (start - o->start);
	return n;
}

/* Insert nm, replacing whatever it overlaps (a new mmap over an old range). */
static int space_insert(struct maps *m, struct space *s, const struct tdr_mapping *nm)
{
	uint64_t ns = nm->start, ne = map_end(nm);
	const struct tdr_mapping *add[3];
	size_t lo = 0, hi = s->cnt, i, k, nadd = 0;

	/* First mapping that ends after ns. */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (map_end(s->maps[mid]) <= ns)
			lo = mid + 1;
		else
			hi = mid;
	}
	i = lo;
	for (k = i; k < s->cnt && s->maps[k]->start < ne; k++)
		;
	/* [i, k) overlap nm: keep their parts outside [ns, ne). */
	if (i < k && s->maps[i]->start < ns) {
		add[nadd] = piece(m, s->maps[i], s->maps[i]->start, ns);
		if (!add[nadd++])
			return -ENOMEM;
	}
	add[nadd++] = nm;
	if (i < k && map_end(s->maps[k - 1]) > ne) {
		add[nadd] = piece(m, s->maps[k - 1], ne, map_end(s->maps[k - 1]));
		if (!add[nadd++])
			return -ENOMEM;
	}
	if (tdr_ensure_cap(&s->maps, &s->cap, sizeof(*s->maps), s->cnt - (k - i) + nadd))
		return -ENOMEM;
	memmove(s->maps + i + nadd, s->maps + k, (s->cnt - k) * sizeof(*s->maps));
	memcpy(s->maps + i, add, nadd * sizeof(*add));
	s->cnt = s->cnt - (k - i) + nadd;
	s->last = i;
	return 0;
}

static const struct tdr_mapping *space_find(struct space *s, uint64_t ip)
{
	size_t lo = 0, hi = s->cnt;
	const struct tdr_mapping *mp;

	if (s->last < s->cnt) {
		mp = s->maps[s->last];
		if (ip >= mp->start && ip - mp->start < mp->len)
			return mp;
	}
	/* Last mapping whose start <= ip. */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (s->maps[mid]->start <= ip)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return NULL;
	mp = s->maps[lo - 1];
	if (ip - mp->start >= mp->len)
		return NULL;
	s->last = lo - 1;
	return mp;
}

/* Build-id learned for path (interned pointer) before its mappings appeared:
 * the latest one for the path, among those for its device and inode when
 * they were given (the DSO table: a path may have been another file). */
static void apply_known_build_id(struct maps *m, struct tdr_mapping *mp)
{
	uint32_t i = tdr_u64map__get(&m->build_ids, (uint64_t)(uintptr_t)mp->path);

	/* perf lists the kernel image as "[kernel.kallsyms]" in its build-id
	 * table but maps it as "[kernel.kallsyms]_text" (relocation symbol
	 * appended). */
	if (i == TDR_HMAP_NONE && mp->kind == TDR_MAP_KERNEL &&
	    !strncmp(mp->path, m->kernel_pseudo.path, 17))
		i = tdr_u64map__get(&m->build_ids, (uint64_t)(uintptr_t)m->kernel_pseudo.path);

	if (mp->build_id_sz)
		return;
	for (; i != TDR_HMAP_NONE; i = m->bids[i].next) {
		const struct build_id *b = &m->bids[i];

		if (!b->has_dev || (b->maj == mp->maj && b->min == mp->min && b->ino == mp->ino)) {
			mp->build_id_sz = b->sz;
			memcpy(mp->build_id, b->id, sizeof(mp->build_id));
			return;
		}
	}
}

int tdr_parser_maps_mmap(struct maps *m, const struct dec_rec *r)
{
	bool kernel = r->mmap.pid == UINT32_MAX ||
		      (r->misc & PERF_RECORD_MISC_CPUMODE_MASK) == PERF_RECORD_MISC_KERNEL ||
		      (r->misc & PERF_RECORD_MISC_CPUMODE_MASK) == PERF_RECORD_MISC_GUEST_KERNEL;
	struct tdr_mapping *mp;
	struct space *s;

	if (!r->mmap.len)
		return 0;
	s = kernel ? &m->kernel : space_get(m, r->mmap.pid, true);
	mp = s ? new_mapping(m) : NULL;
	if (!mp)
		return -ENOMEM; /* new_mapping zeroes it */
	mp->path = tdr_intern__strn(&m->strs, r->mmap.filename, strlen(r->mmap.filename));
	if (!mp->path)
		return -ENOMEM;
	mp->kind = maps_classify(mp->path, kernel);
	mp->start = r->mmap.addr;
	mp->len = r->mmap.len;
	mp->pgoff = r->mmap.pgoff;
	mp->maj = r->mmap.maj;
	mp->min = r->mmap.min;
	mp->ino = r->mmap.ino;
	mp->prot = r->mmap.prot;
	mp->flags = r->mmap.flags;
	if (r->mmap.build_id) {
		mp->build_id_sz = r->mmap.build_id_sz;
		memcpy(mp->build_id, r->mmap.build_id, r->mmap.build_id_sz);
	} else {
		apply_known_build_id(m, mp);
	}
	if (!kernel && is_jitdump(mp->path, r->mmap.pid) &&
	    tdr_u64map__put(&m->jitdumps, r->mmap.pid, (uint32_t)(m->all_cnt - 1)))
		return -ENOMEM;
	return space_insert(m, s, mp);
}

int tdr_parser_maps_fork(struct maps *m, uint32_t pid, uint32_t ppid)
{
	struct space *parent, *child;

	if (pid == ppid)
		return 0; /* a new thread shares its process's address space */
	parent = space_get(m, ppid, false);
	child = space_get(m, pid, true);
	if (!child)
		return -ENOMEM;
	child->cnt = 0;
	child->last = 0;
	if (!parent || !parent->cnt)
		return 0;
	if (tdr_ensure_cap(&child->maps, &child->cap, sizeof(*child->maps), parent->cnt))
		return -ENOMEM;
	memcpy(child->maps, parent->maps, parent->cnt * sizeof(*child->maps));
	child->cnt = parent->cnt;
	return 0;
}

void tdr_parser_maps_exec(struct maps *m, uint32_t pid)
{
	struct space *s = space_get(m, pid, false);

	if (s) {
		s->cnt = 0;
		s->last = 0;
	}
}

void tdr_parser_maps_exit(struct maps *m, uint32_t pid)
{
	struct space *s = space_get(m, pid, false);

	/* The space's entry stays (ids are never removed from the map), empty. */
	if (s)
		space_free(s);
}

const struct tdr_mapping *tdr_parser_maps_find(struct maps *m, uint32_t pid, uint64_t ip,
					       enum tdr_cpumode mode)
{
	const struct tdr_mapping *mp;
	struct space *s;

	if (mode == TDR_MODE_KERNEL || mode == TDR_MODE_GUEST_KERNEL) {
		mp = space_find(&m->kernel, ip);
		return mp ? mp : &m->kernel_pseudo;
	}
	s = space_get(m, pid, false);
	return s ? space_find(s, ip) : NULL;
}

/* A build-id for path (len bytes), for the file with device and inode dev
 * (NULL: any file at path). */
static int add_build_id(struct maps *m, const char *path, size_t len, const struct build_id *dev,
			const uint8_t *id, size_t sz)
{
	const char *ip = tdr_intern__strn(&m->strs, path, len);
	struct build_id *b;
	size_t i;

	if (!ip)
		return -ENOMEM;
	if (sz > 20)
		sz = 20;
	if (tdr_ensure_cap(&m->bids, &m->bid_cap, sizeof(*m->bids), m->bid_cnt + 1))
		return -ENOMEM;
	b = &m->bids[m->bid_cnt];
	memset(b, 0, sizeof(*b));
	if (dev) {
		b->has_dev = true;
		b->maj = dev->maj;
		b->min = dev->min;
		b->ino = dev->ino;
	}
	memcpy(b->id, id, sz);
	b->sz = (uint8_t)sz;
	/* The newest first: the path's chain starts here. */
	b->next = tdr_u64map__get(&m->build_ids, (uint64_t)(uintptr_t)ip);
	if (tdr_u64map__put(&m->build_ids, (uint64_t)(uintptr_t)ip, (uint32_t)m->bid_cnt))
		return -ENOMEM;
	m->bid_cnt++;
	for (i = 0; i < m->all_cnt; i++)
		if (m->all[i]->path == ip && !m->all[i]->build_id_sz)
			apply_known_build_id(m, m->all[i]);
	return 0;
}

int tdr_parser_maps_set_build_id(struct maps *m, const char *path, const uint8_t *id, size_t sz)
{
	return add_build_id(m, path, strlen(path), NULL, id, sz);
}

int tdr_parser_maps_set_file_build_id(struct maps *m, const char *path, size_t len, uint32_t maj,
				      uint32_t min, uint64_t ino, const uint8_t *id, size_t sz)
{
	const struct build_id dev = {.maj = maj, .min = min, .ino = ino};

	return add_build_id(m, path, len, &dev, id, sz);
}
