/*
 * symbolize/kernel.c - kernel addresses through kallsyms.
 *
 * Responsibility: parse /proc/kallsyms (or opts.kallsyms_path) once into a
 * sorted table of text symbols and answer lookups by binary search. Only
 * used when opts.kallsyms_usable says the report runs on the recording host
 * and boot; otherwise, and when the file shows only zero addresses (non-root
 * or kernel.kptr_restrict), every kernel address is TDR_SYM_NO_KERNEL.
 * A symbol ends where the next one starts; the last one covers one page.
 * Kernel lookups are a binary search over borrowed strings, so they are not
 * put in the result cache: repeated lookups still return identical pointers.
 * Ownership and threads: names point into the file text kept in sym_kernel.
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
#define KALLSYMS_MAX_SZ (512u << 20)
#define LAST_SYM_SPAN 4096

/* Read a whole (proc) file, whose size stat() does not tell, NUL-terminated. */
static int read_all(const char *path, char **out, size_t *out_sz)
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
		if (len > KALLSYMS_MAX_SZ) {
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
	size_t lx, ly;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	/* Aliases: global (T) before local (t), then the shorter name. */
	if (x->rank != y->rank)
		return x->rank - y->rank;
	lx = strlen(x->name);
	ly = strlen(y->name);
	if (lx != ly)
		return lx < ly ? -1 : 1;
	return strcmp(x->name, y->name);
}

/* Parse "ADDR TYPE NAME[\t[MODULE]]" lines in place. Returns the count of
 * text symbols put in *out (caller frees), or -ENOMEM. */
static int parse_kallsyms(char *buf, struct ksym **out, size_t *nonzero)
{
	struct ksym *v = NULL;
	size_t cnt = 0, cap = 0;
	char *p = buf;

	*nonzero = 0;
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

static int load_kallsyms(struct tdr_symbolizer *s)
{
	struct sym_kernel *k = &s->kernel;
	const char *path = s->kallsyms_path ? s->kallsyms_path : KALLSYMS_DEFAULT;
	struct sym_range *r = NULL;
	struct ksym *v = NULL;
	size_t sz, nonzero, out = 0;
	int n, err;

	err = read_all(path, &k->buf, &sz);
	if (err == -ENOMEM)
		return err;
	if (err) {
		tdr_warn("failed to read kernel symbols %s: %s", path, strerror(-err));
		k->tried = true;
		return 0;
	}
	n = parse_kallsyms(k->buf, &v, &nonzero);
	if (n < 0) {
		zfree(&k->buf);
		return n;
	}
	if (!nonzero || !n) {
		tdr_warn("kernel symbols in %s show no addresses (not root, or "
			 "kernel.kptr_restrict); kernel samples stay unsymbolized", path);
		free(v);
		zfree(&k->buf);
		k->tried = true;
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
	k->tried = true;
	k->usable = true;
	return 0;
nomem:
	free(v);
	free(r);
	zfree(&k->names);
	zfree(&k->buf);
	return -ENOMEM;
}

int sym_kernel__lookup(struct tdr_symbolizer *s, uint64_t ip, struct tdr_sym *out)
{
	struct sym_kernel *k = &s->kernel;
	const struct sym_range *r;
	int err;

	memset(out, 0, sizeof(*out));
	out->status = TDR_SYM_NO_KERNEL;
	if (!s->opts.kallsyms_usable)
		return 0;
	if (!k->tried && (err = load_kallsyms(s)))
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
	k->tried = k->usable = false;
}
