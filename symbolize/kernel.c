/*
 * symbolize/kernel.c - kernel addresses through kallsyms.
 *
 * Responsibility: decide once whether /proc/kallsyms (or opts.kallsyms_path)
 * describes the recorded kernel, then parse it into a sorted table of text
 * symbols and answer lookups by binary search. kallsyms apply when
 * opts.kallsyms_usable says the report runs on the recording host and boot
 * (.tdr files carry the boot id), or when the recording names its kernel
 * image (perf.data: the build-id of [kernel.kallsyms] and the address of
 * its relocation symbol, "_text") and the running kernel has the same
 * build-id (/sys/kernel/notes) at the same address (same KASLR placement).
 * Otherwise, and when the file shows only zero addresses (non-root or
 * kernel.kptr_restrict), every kernel address is TDR_SYM_NO_KERNEL.
 * A symbol ends where the next one starts; the last one covers one page.
 * Kernel lookups are a binary search over borrowed strings, so they are not
 * put in the result cache: repeated lookups still return identical pointers.
 * Ownership and threads: names point into the file text kept in sym_kernel.
 * See: docs/symbolize.md "Kernel"; perf's machine__create_kernel_maps (the
 * "[kernel.kallsyms]_text" mapping whose pgoff is _text's address).
 */
#include "symbolize_int.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define LOG_PREFIX "symbolize: "
#include "tdrec/tdr_log.h"
#include "tdrec/tdr_mem.h"

#define KALLSYMS_DEFAULT "/proc/kallsyms"
#define NOTES_DEFAULT "/sys/kernel/notes"
#define NOTES_MAX_SZ (1u << 20)
#define KALLSYMS_MAX_SZ (512u << 20)
#define LAST_SYM_SPAN 4096

/* Read a whole (proc) file, whose size stat() does not tell, NUL-terminated. */
static int read_all(const char *path, size_t max_sz, char **out, size_t *out_sz)
{
	char *buf = NULL;
	size_t cap = 0, len = 0;
	int fd, err = 0;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	for (;;) {
		ssize_t n;

		if (tdr_ensure_cap(&buf, &cap, 1, len + 65536 + 1)) {
			err = -ENOMEM;
			break;
		}
		n = read(fd, buf + len, cap - len - 1);
		if (n < 0) {
			err = -errno;
			if (err == -EINTR)
				continue;
			break;
		}
		if (n == 0)
			break;
		len += (size_t)n;
		if (len > max_sz) {
			err = -EFBIG;
			break;
		}
	}
	close(fd);
	if (err) {
		free(buf);
		return err;
	}
	buf[len] = '\0';
	*out = buf;
	*out_sz = len;
	return 0;
}

struct ksym {
	uint64_t addr;
	const char *name;
	int rank;
};

static int ksym_cmp(const void *a, const void *b)
{
	const struct ksym *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	/* Aliases: global (T) before local (t), then the shorter name. */
	return sym_alias_cmp(x->rank, x->name, y->rank, y->name, false);
}

/* Parse "ADDR TYPE NAME[\t[MODULE]]" lines in place. Returns the count of
 * text symbols put in *out (caller frees), or -ENOMEM. *ref_addr is the
 * address of the symbol named ref (any type; 0 when ref is NULL or absent). */
static int parse_kallsyms(char *buf, const char *ref, struct ksym **out, size_t *nonzero,
			  uint64_t *ref_addr)
{
	struct ksym *v = NULL;
	size_t cnt = 0, cap = 0;
	char *p = buf;

	*nonzero = 0;
	*ref_addr = 0;
	while (*p) {
		char *eol = strchr(p, '\n'), *end, *name;
		uint64_t addr;
		char type;

		if (eol)
			*eol = '\0';
		addr = strtoull(p, &end, 16);
		if (end != p && end[0] == ' ' && end[1] && end[2] == ' ') {
			type = end[1];
			name = end + 3;
			name[strcspn(name, " \t")] = '\0';
			if (addr)
				(*nonzero)++;
			if (ref && !*ref_addr && !strcmp(name, ref))
				*ref_addr = addr;
			if (name[0] && addr && (type == 't' || type == 'T' || type == 'w' ||
						type == 'W')) {
				if (tdr_ensure_cap(&v, &cap, sizeof(*v), cnt + 1)) {
					free(v);
					return -ENOMEM;
				}
				v[cnt++] = (struct ksym){ .addr = addr, .name = name,
							  .rank = type == 'T' ? 0
								: type == 'W' ? 1
								: type == 't' ? 2 : 3 };
			}
		}
		if (!eol)
			break;
		p = eol + 1;
	}
	*out = v;
	return (int)cnt;
}

/* Read and index kallsyms; k->usable when they show addresses. *ref_addr:
 * the address of the symbol named ref (see parse_kallsyms). Returns 0 or
 * -ENOMEM. */
static int load_kallsyms(struct tdr_symbolizer *s, const char *ref, uint64_t *ref_addr)
{
	struct sym_kernel *k = &s->kernel;
	const char *path = s->kallsyms_path ? s->kallsyms_path : KALLSYMS_DEFAULT;
	struct sym_range *r = NULL;
	struct ksym *v = NULL;
	size_t sz, nonzero, out = 0;
	int n, err;

	err = read_all(path, KALLSYMS_MAX_SZ, &k->buf, &sz);
	if (err == -ENOMEM)
		return err;
	if (err) {
		tdr_warn("failed to read kernel symbols %s: %s", path, strerror(-err));
		return 0;
	}
	n = parse_kallsyms(k->buf, ref, &v, &nonzero, ref_addr);
	if (n < 0) {
		zfree(&k->buf);
		return n;
	}
	if (!nonzero || !n) {
		tdr_warn("kernel symbols in %s show no addresses (not root, or "
			 "kernel.kptr_restrict); kernel samples stay unsymbolized", path);
		free(v);
		zfree(&k->buf);
		return 0;
	}
	qsort(v, (size_t)n, sizeof(*v), ksym_cmp);
	r = tdr_calloc((size_t)n, sizeof(*r));
	k->names = tdr_calloc((size_t)n, sizeof(*k->names));
	if (!r || !k->names)
		goto nomem;
	for (int i = 0; i < n;) {
		int j = i;

		while (j < n && v[j].addr == v[i].addr)
			j++;
		k->names[out] = v[i].name;
		r[out] = (struct sym_range){ .lo = v[i].addr,
					     .hi = j < n ? v[j].addr : v[i].addr + LAST_SYM_SPAN,
					     .idx = (uint32_t)out };
		out++;
		i = j;
	}
	free(v);
	v = NULL;
	err = sym_range_table__build(&k->syms, r, out);
	r = NULL;
	if (err)
		goto nomem;
	k->usable = true;
	return 0;
nomem:
	free(v);
	free(r);
	zfree(&k->names);
	zfree(&k->buf);
	return -ENOMEM;
}

/* The GNU build-id in a blob of ELF notes (/sys/kernel/notes, host byte
 * order): its size, 0 when there is none. */
static size_t notes_build_id(const uint8_t *p, size_t sz, const uint8_t **id)
{
	size_t pos = 0;

	while (sz - pos >= 12) {
		uint32_t namesz, descsz, type;
		uint64_t nsz, dsz;

		memcpy(&namesz, p + pos, 4);
		memcpy(&descsz, p + pos + 4, 4);
		memcpy(&type, p + pos + 8, 4);
		nsz = ((uint64_t)namesz + 3) & ~3ull;
		dsz = ((uint64_t)descsz + 3) & ~3ull;
		if (nsz + dsz > sz - pos - 12)
			break;
		if (type == 3 /* NT_GNU_BUILD_ID */ && namesz == 4 && !memcmp(p + pos + 12, "GNU", 4)) {
			*id = p + pos + 12 + nsz;
			return descsz;
		}
		pos += 12 + nsz + dsz;
	}
	return 0;
}

/* Is the recorded kernel image (build-id) the running kernel? Returns 1, 0
 * or -ENOMEM. */
static int recorded_kernel_running(const struct sym_kernel *k)
{
	const char *path = k->notes_path ? k->notes_path : NOTES_DEFAULT;
	const uint8_t *id = NULL;
	char *buf = NULL;
	size_t sz, id_sz;
	bool same;
	int err;

	if (!k->build_id_sz || !k->ref_sym)
		return 0;
	err = read_all(path, NOTES_MAX_SZ, &buf, &sz);
	if (err == -ENOMEM)
		return err;
	if (err) {
		tdr_debug("failed to read the running kernel's build-id %s: %s", path,
			  strerror(-err));
		return 0;
	}
	id_sz = notes_build_id((const uint8_t *)buf, sz, &id);
	same = id_sz && id_sz <= 20 &&
	       sym_build_id_matches(k->build_id, k->build_id_sz, id, (int)id_sz);
	free(buf);
	return same ? 1 : 0;
}

/* Decide once whether kallsyms describe the recorded kernel, loading them
 * when they do. Returns 0 or -ENOMEM. */
static int kernel_decide(struct tdr_symbolizer *s)
{
	struct sym_kernel *k = &s->kernel;
	bool by_image = !s->opts.kallsyms_usable;
	uint64_t ref_addr = 0;
	int err;

	if (by_image) {
		err = recorded_kernel_running(k);
		if (err <= 0) {
			k->tried = !err;
			return err;
		}
	}
	err = load_kallsyms(s, by_image ? k->ref_sym : NULL, &ref_addr);
	if (err)
		return err; /* out of memory: nothing kept, the next lookup tries again */
	k->tried = true;
	if (!k->usable || !by_image || ref_addr == s->opts.kernel_ref_addr)
		return 0;
	if (ref_addr)
		tdr_warn("the running kernel has the recorded build-id, but %s is at 0x%llx, "
			 "not at 0x%llx as recorded (another boot): kernel samples stay "
			 "unsymbolized",
			 k->ref_sym, (unsigned long long)ref_addr,
			 (unsigned long long)s->opts.kernel_ref_addr);
	else
		tdr_warn("the running kernel has the recorded build-id, but no symbol %s to "
			 "check its placement: kernel samples stay unsymbolized",
			 k->ref_sym);
	sym_range_table__free(&k->syms);
	zfree(&k->names);
	zfree(&k->buf);
	k->usable = false;
	return 0;
}

int sym_kernel__lookup(struct tdr_symbolizer *s, uint64_t ip, struct tdr_sym *out)
{
	struct sym_kernel *k = &s->kernel;
	const struct sym_range *r;
	int err;

	memset(out, 0, sizeof(*out));
	out->status = TDR_SYM_NO_KERNEL;
	if (!k->tried && (err = kernel_decide(s)))
		return err;
	if (!k->usable)
		return 0;
	r = sym_range_table__find(&k->syms, ip);
	if (!r) {
		out->status = TDR_SYM_NO_SYMBOL;
		return 0;
	}
	out->status = TDR_SYM_OK;
	out->function = k->names[r->idx];
	out->function_offset = ip - r->lo;
	return 0;
}

void sym_kernel__free(struct sym_kernel *k)
{
	sym_range_table__free(&k->syms);
	zfree(&k->names);
	zfree(&k->buf);
	zfree(&k->ref_sym);
	zfree(&k->notes_path);
	k->tried = k->usable = false;
}
