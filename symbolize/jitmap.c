/*
 * symbolize/jitmap.c - symbols of JIT code: perf map files and jitdump files.
 *
 * Responsibility: a JIT (node --perf-basic-prof, a JVM agent, LuaJIT, ...)
 * describes the code it generates in /tmp/perf-PID.map, one text line per
 * function ("START SIZE name", hex without 0x), or in a jitdump file
 * (jit-PID.dump: a binary header, then JIT_CODE_LOAD records with the
 * code's address, size and name, and JIT_CODE_MOVE records). Such a file
 * is treated as an object of the symbolizer: its "file offset" is the code's
 * address in the process, so lookups, the result cache and everything built
 * on tdr_symbolizer__lookup (the archive of a .tdr) work as for an ELF file.
 * Not here: which file belongs to which process (report/load.c), ELF files
 * (elf.c), the jitted-PID-N.so files perf inject --jit writes (ELF files).
 * Limits: names lose control characters; later lines (or records) win over
 * earlier ones at the same address (the JIT reused the memory); at most
 * JIT_MAX_ENTRIES functions per file.
 * See: docs/symbolize.md "JIT code"; tools/perf/Documentation/jit-interface.txt
 * and jitdump-specification.txt in the Linux source.
 */
#include "symbolize_int.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tdrec/tdr_endian.h"
#include "tdrec/tdr_mem.h"

#define LOG_PREFIX "symbolize: "
#include "tdrec/tdr_log.h"

#define JIT_MAX_ENTRIES (1u << 22)
#define JIT_MAX_FILE (1ull << 32)
#define JITDUMP_MAGIC 0x4A695444u /* "JiTD" */

struct jit_ent {
	uint64_t lo, hi;
	uint32_t seq; /* position in the file: later wins */
	const char *name;
};

struct sym_jit {
	struct sym_range_table ranges; /* -> names[idx] */
	const char **names;
};

bool tdr_symbolize_jit_path(const char *path)
{
	const char *b = strrchr(path, '/');
	unsigned pid;
	char tail[8];

	b = b ? b + 1 : path;
	return (sscanf(b, "perf-%u.ma%7s", &pid, tail) == 2 && !strcmp(tail, "p")) ||
	       (sscanf(b, "jit-%u.dum%7s", &pid, tail) == 2 && !strcmp(tail, "p"));
}

static const char *clean_name(struct tdr_arena *a, const char *s, size_t n)
{
	char *c = tdr_arena__strndup(a, s, n);

	for (char *p = c; p && *p; p++)
		if ((unsigned char)*p < 0x20 || *p == 0x7f)
			*p = '?';
	return c;
}

static int add(struct jit_ent **v, size_t *cnt, size_t *cap, uint64_t lo, uint64_t sz,
	       const char *name)
{
	if (!name)
		return -ENOMEM;
	if (!sz || lo + sz < lo || *cnt >= JIT_MAX_ENTRIES)
		return 0;
	if (tdr_ensure_cap(v, cap, sizeof(**v), *cnt + 1))
		return -ENOMEM;
	(*v)[*cnt] = (struct jit_ent){lo, lo + sz, (uint32_t)*cnt, name};
	(*cnt)++;
	return 0;
}

/* perf map: "START SIZE name\n", hex numbers without 0x. */
static int read_map(struct tdr_arena *a, const char *buf, size_t len, struct jit_ent **v,
		    size_t *cnt, size_t *cap)
{
	const char *p = buf, *end = buf + len;

	while (p < end) {
		const char *eol = memchr(p, '\n', (size_t)(end - p));
		const char *le = eol ? eol : end;
		char *q;
		uint64_t lo, sz;
		int err;

		lo = strtoull(p, &q, 16);
		if (q > p && q < le && *q == ' ') {
			const char *s = q + 1;

			sz = strtoull(s, &q, 16);
			if (q > s && q < le && *q == ' ') {
				err = add(v, cnt, cap, lo, sz, clean_name(a, q + 1, (size_t)(le - q - 1)));
				if (err)
					return err;
			}
		}
		p = le + 1;
	}
	return 0;
}

/* jitdump: header (u32 magic, version, total_size, elf_mach, pad1, pid;
 * u64 timestamp, flags), then records (u32 id, total_size; u64 timestamp).
 * JIT_CODE_LOAD (0): u32 pid, tid; u64 vma, code_addr, code_size,
 * code_index; name; code. JIT_CODE_MOVE (1): u32 pid, tid; u64 vma,
 * old_code_addr, new_code_addr, code_size, code_index. */
static int read_dump(struct tdr_arena *a, const uint8_t *b, size_t len, struct jit_ent **v,
		     size_t *cnt, size_t *cap)
{
	size_t pos;
	int err;

	if (len < 40 || tdr_get_le32(b) != JITDUMP_MAGIC)
		return -EINVAL; /* not one, or the other byte order */
	pos = tdr_get_le32(b + 8);
	if (pos < 40 || pos > len)
		return -EINVAL;
	while (len - pos >= 16) {
		uint32_t id = tdr_get_le32(b + pos), sz = tdr_get_le32(b + pos + 4);
		const uint8_t *r = b + pos + 16;

		if (sz < 16 || sz > len - pos)
			break; /* cut or damaged: keep what was read */
		if (id == 0 && sz >= 16 + 40 + 1) {
			const char *name = (const char *)r + 40;
			size_t max = sz - 16 - 40;
			size_t n = strnlen(name, max);

			err = add(v, cnt, cap, tdr_get_le64(r + 16), tdr_get_le64(r + 24),
				  clean_name(a, name, n));
			if (err)
				return err;
		} else if (id == 1 && sz >= 16 + 48) {
			uint64_t from = tdr_get_le64(r + 16), to = tdr_get_le64(r + 24);

			/* The code moved: its name goes with it. */
			for (size_t i = *cnt; i-- > 0;)
				if ((*v)[i].lo == from) {
					err = add(v, cnt, cap, to, tdr_get_le64(r + 32), (*v)[i].name);
					if (err)
						return err;
					break;
				}
		} else if (id == 3) {
			break; /* JIT_CODE_CLOSE */
		}
		pos += sz;
	}
	return 0;
}

static int ent_cmp(const void *x, const void *y)
{
	const struct jit_ent *a = x, *b = y;

	if (a->lo != b->lo)
		return a->lo < b->lo ? -1 : 1;
	return a->seq < b->seq ? -1 : a->seq > b->seq;
}

static int build(struct tdr_symbolizer *s, struct sym_jit *j, struct jit_ent *v, size_t cnt)
{
	struct sym_range *r;
	size_t n = 0;

	if (cnt)
		qsort(v, cnt, sizeof(*v), ent_cmp);
	r = tdr_calloc(cnt ? cnt : 1, sizeof(*r));
	j->names = tdr_calloc(cnt ? cnt : 1, sizeof(*j->names));
	if (!r || !j->names) {
		free(r);
		return -ENOMEM;
	}
	for (size_t i = 0; i < cnt; i++) {
		/* The same start again: the later entry replaces it. */
		if (n && r[n - 1].lo == v[i].lo)
			n--;
		r[n] = (struct sym_range){v[i].lo, v[i].hi, (uint32_t)n};
		j->names[n] = v[i].name;
		n++;
	}
	(void)s;
	return tdr_symbolize_range_table__build(&j->ranges, r, n);
}

int tdr_symbolize_jit__open(struct tdr_symbolizer *s, struct sym_dso *d)
{
	struct jit_ent *v = NULL;
	size_t cnt = 0, cap = 0, len = 0;
	uint8_t *buf = NULL;
	struct sym_jit *j;
	FILE *f;
	int err;

	d->status = TDR_SYM_MISSING;
	f = fopen(d->path, "rb");
	if (!f)
		return 0;
	for (;;) {
		size_t got;

		if (tdr_ensure_cap(&buf, &cap, 1, len + 65536)) {
			err = -ENOMEM;
			goto out;
		}
		got = fread(buf + len, 1, cap - len, f);
		len += got;
		if (!got || len > JIT_MAX_FILE)
			break;
	}
	j = tdr_calloc(1, sizeof(*j));
	if (!j) {
		err = -ENOMEM;
		goto out;
	}
	cap = 0;
	if (len >= 4 && tdr_get_le32(buf) == JITDUMP_MAGIC)
		err = read_dump(&s->arena, buf, len, &v, &cnt, &cap);
	else
		err = read_map(&s->arena, (const char *)buf, len, &v, &cnt, &cap);
	if (!err)
		err = build(s, j, v, cnt);
	if (err) {
		tdr_symbolize_range_table__free(&j->ranges);
		free(j->names);
		free(j);
		if (err == -EINVAL) {
			tdr_warn("%s: not a jitdump file this build reads", d->path);
			err = 0;
		}
		goto out;
	}
	d->jit = j;
	d->status = TDR_SYM_OK;
	err = 0;
out:
	fclose(f);
	free(buf);
	free(v);
	return err;
}

void tdr_symbolize_jit__resolve(const struct sym_dso *d, uint64_t addr, struct tdr_sym *out)
{
	const struct sym_range *r = tdr_symbolize_range_table__find(&d->jit->ranges, addr);

	memset(out, 0, sizeof(*out));
	out->status = TDR_SYM_NO_SYMBOL;
	if (!r)
		return;
	out->status = TDR_SYM_OK;
	out->function = d->jit->names[r->idx];
	out->function_offset = addr - r->lo;
}

void tdr_symbolize_jit__close(struct sym_dso *d)
{
	if (!d->jit)
		return;
	tdr_symbolize_range_table__free(&d->jit->ranges);
	free(d->jit->names);
	free(d->jit);
	d->jit = NULL;
}
