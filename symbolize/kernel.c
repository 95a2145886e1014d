/*
 * symbolize/kernel.c - kernel addresses through kallsyms.
 *
 * Responsibility: decide once whether kallsyms (the table of kallsyms.c:
 * /proc/kallsyms, opts.kallsyms_path, or the per-boot cache) describe the
 * recorded kernel, then answer lookups by binary search over that table.
 * kallsyms apply when
 * opts.kallsyms_usable says the report runs on the recording host and boot
 * (.tdr files carry the boot id), or when the recording names its kernel
 * image (perf.data: the build-id of [kernel.kallsyms] and the address of
 * its relocation symbol, "_text" or "_stext") and the running kernel has the
 * same build-id (/sys/kernel/notes) at the same address (same KASLR
 * placement). Otherwise, and when the file shows only zero addresses
 * (non-root or kernel.kptr_restrict), every kernel address is
 * TDR_SYM_NO_KERNEL.
 * A symbol ends where the next one starts; the last one covers one page.
 * Kernel lookups are a binary search over borrowed strings, so they are not
 * put in the result cache: repeated lookups still return identical pointers.
 * Names from a table mapped from the cache file are read with pread, once
 * per symbol, into sym_kernel's name pool (struct sym_knames): mapping them
 * made a report resident in most of the 3 MiB name table for a few hundred
 * names (docs/performance.md).
 * Ownership and threads: names point into the table of opts.kallsyms (or of
 * the loader made from opts.kallsyms_path, owned by sym_kernel), or into the
 * name pool; both live until tdr_symbolize_kernel__free.
 * See: docs/symbolize.md "Kernel"; perf's machine__create_kernel_maps (the
 * "[kernel.kallsyms]_text" mapping whose pgoff is _text's address).
 */
#include "symbolize_int.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#define LOG_PREFIX "symbolize: "
#include "tdrec/tdr_log.h"
#include "tdrec/tdr_elf_note.h"
#include "tdrec/tdr_mem.h"

#define NOTES_DEFAULT "/sys/kernel/notes"
#define NOTES_MAX_SZ (1u << 20)
#define LAST_SYM_SPAN 4096
#define KNAME_MAX 512		   /* KSYM_NAME_LEN: the longest kallsyms name */

/* Read a whole (small) file, whose size stat() does not tell (sysfs),
 * NUL-terminated. */
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

		if (tdr_ensure_cap(&buf, &cap, 1, len + 4096 + 1)) {
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

/* Is the recorded kernel image (build-id) the running kernel? Returns 1, 0
 * or -ENOMEM. */
static int recorded_kernel_running(struct sym_kernel *k)
{
	const char *path = k->notes_path ? k->notes_path : NOTES_DEFAULT;
	const uint8_t *id = NULL;
	char *buf = NULL;
	size_t sz = 0, id_sz;
	bool same;
	int err;

	if (!k->ref_sym) {
		snprintf(k->why, sizeof(k->why),
			 "the recording names no kernel image and no boot id");
		return 0;
	}
	if (!k->build_id_sz) {
		/* No build-id: the release, then the placement (kernel_decide). */
		struct utsname u;
		const char *running = k->running_release;

		if (!running && !uname(&u))
			running = u.release;
		if (!k->release) {
			snprintf(k->why, sizeof(k->why),
				 "the recording has neither the kernel's build-id nor its release");
			return 0;
		}
		if (!running || strcmp(running, k->release)) {
			snprintf(k->why, sizeof(k->why), "recorded on kernel %.80s, running %.80s",
				 k->release, running ? running : "(unknown)");
			return 0;
		}
		return 1;
	}
	err = read_all(path, NOTES_MAX_SZ, &buf, &sz);
	if (err == -ENOMEM)
		return err;
	if (err) {
		tdr_debug("failed to read the running kernel's build-id %s: %s", path,
			  strerror(-err));
		return 0;
	}
	/* /sys/kernel/notes: the kernel's own notes, 4-byte aligned, host
	 * byte order (kernel/ksysfs.c). */
	id_sz = tdr_elf_notes_build_id(buf, sz, 4, &id);
	same = id_sz && tdr_symbolize_build_id_matches(k->build_id, k->build_id_sz, id, (int)id_sz);
	free(buf);
	if (!same)
		snprintf(k->why, sizeof(k->why),
			 "the recorded kernel's build-id is not the running kernel's (%s)", path);
	return same ? 1 : 0;
}

/* kallsyms' address of the symbol named ref: the table keeps perf's
 * reference symbols only. */
static uint64_t ref_addr_of(const struct sym_ktab *t, const char *ref)
{
	if (!strcmp(ref, "_text"))
		return t->ref_addr[SYM_KREF_TEXT];
	if (!strcmp(ref, "_stext"))
		return t->ref_addr[SYM_KREF_STEXT];
	return 0;
}

/* Decide once whether kallsyms describe the recorded kernel, loading them
 * when they do. Returns 0 or -ENOMEM. */
static int kernel_decide(struct tdr_symbolizer *s)
{
	struct sym_kernel *k = &s->kernel;
	bool by_image = !s->opts.kallsyms_usable;
	const struct sym_ktab *t;
	const char *path;
	uint64_t ref_addr;
	int err;

	if (by_image) {
		err = recorded_kernel_running(k);
		if (err <= 0) {
			k->tried = !err;
			return err;
		}
	}
	if (!k->ks) {
		struct tdr_kallsyms_opts ko = {.path = s->kallsyms_path};

		err = tdr_kallsyms__new(&ko, &k->own_ks);
		if (err)
			return err;
		k->ks = k->own_ks;
	}
	err = tdr_symbolize_kallsyms__table(k->ks, &t, &path);
	if (err)
		return err; /* out of memory: nothing kept, the next lookup tries again */
	k->tried = true;
	if (!t) {
		snprintf(k->why, sizeof(k->why),
			 "%s shows no addresses (not root, or kernel.kptr_restrict)", path);
		return 0;
	}
	ref_addr = by_image ? ref_addr_of(t, k->ref_sym) : 0;
	if (!by_image || ref_addr == s->opts.kernel_ref_addr) {
		k->tab = t;
		k->usable = true;
		return 0;
	}
	if (ref_addr)
		snprintf(k->why, sizeof(k->why),
			 "the running kernel has the recorded %s, but %s is at 0x%llx, not at "
			 "0x%llx as recorded (another boot)",
			 k->build_id_sz ? "build-id" : "release", k->ref_sym,
			 (unsigned long long)ref_addr, (unsigned long long)s->opts.kernel_ref_addr);
	else
		snprintf(k->why, sizeof(k->why),
			 "the running kernel has the recorded %s, but no symbol %s in %s to "
			 "check its placement",
			 k->build_id_sz ? "build-id" : "release", k->ref_sym, path);
	return 0;
}

static uint64_t kname_hash(const void *ctx, uint32_t i)
{
	return tdr_hash_u64(((const struct sym_kname *)ctx)[i].idx);
}

static bool kname_eq(const void *ctx, uint32_t i, const void *key)
{
	return ((const struct sym_kname *)ctx)[i].idx == *(const size_t *)key;
}

/* Symbol idx's name from a table whose names are in its file: read once,
 * then the same pointer. Returns 0 with *name (NULL when the file cannot be
 * read), or -ENOMEM. */
static int knames_get(struct sym_knames *n, const struct sym_ktab *t, size_t idx, const char **name)
{
	char buf[KNAME_MAX + 1];
	size_t j, off = t->name_off[idx], want;
	const char *nul;
	ssize_t got;
	uint32_t i;

	*name = NULL;
	if (tdr_hmap__reserve(&n->index, 256, kname_hash, n->ents) ||
	    tdr_ensure_cap(&n->ents, &n->ents_cap, sizeof(*n->ents), n->index.cnt + 1))
		return -ENOMEM;
	i = tdr_hmap__find(&n->index, tdr_hash_u64(idx), kname_eq, n->ents, &idx, &j);
	if (i != TDR_HMAP_NONE) {
		*name = n->ents[i].name;
		return 0;
	}
	want = t->str_sz - off < sizeof(buf) - 1 ? t->str_sz - off : sizeof(buf) - 1;
	got = pread(t->str_fd, buf, want, (off_t)(t->str_pos + off));
	if (got <= 0)
		return 0;
	nul = memchr(buf, '\0', (size_t)got);
	if (!(*name = tdr_arena__strndup(&n->mem, buf, nul ? (size_t)(nul - buf) : (size_t)got)))
		return -ENOMEM;
	n->ents[n->index.cnt] = (struct sym_kname){.idx = idx, .name = *name};
	tdr_hmap__add(&n->index, j);
	return 0;
}

static void knames_free(struct sym_knames *n)
{
	tdr_arena__fini(&n->mem);
	tdr_hmap__fini(&n->index);
	free(n->ents);
	memset(n, 0, sizeof(*n));
}

int tdr_symbolize_kernel__lookup(struct tdr_symbolizer *s, uint64_t ip, struct tdr_sym *out)
{
	struct sym_kernel *k = &s->kernel;
	const struct sym_ktab *t;
	size_t lo = 0, hi;
	int err;

	memset(out, 0, sizeof(*out));
	out->status = TDR_SYM_NO_KERNEL;
	if (!k->tried && (err = kernel_decide(s)))
		return err;
	if (!k->usable)
		return 0;
	/* The last symbol starting at or below ip; it ends where the next one
	 * starts (the last one LAST_SYM_SPAN bytes after its start). */
	t = k->tab;
	hi = t->cnt;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (t->addr[mid] <= ip)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo || (lo == t->cnt && ip - t->addr[lo - 1] >= LAST_SYM_SPAN)) {
		out->status = TDR_SYM_NO_SYMBOL;
		return 0;
	}
	if (!t->str_in_file)
		out->function = t->str + t->name_off[lo - 1];
	else if ((err = knames_get(&k->names, t, lo - 1, &out->function)))
		return err;
	if (!out->function) {
		out->status = TDR_SYM_NO_SYMBOL;
		return 0;
	}
	out->status = TDR_SYM_OK;
	out->function_offset = ip - t->addr[lo - 1];
	return 0;
}

void tdr_symbolize_kernel__free(struct sym_kernel *k)
{
	tdr_kallsyms__free(k->own_ks);
	k->own_ks = k->ks = NULL;
	k->tab = NULL;
	zfree(&k->ref_sym);
	zfree(&k->notes_path);
	zfree(&k->release);
	zfree(&k->running_release);
	k->why[0] = '\0';
	knames_free(&k->names);
	k->tried = k->usable = false;
}

const char *tdr_symbolizer__kernel_why(const struct tdr_symbolizer *s)
{
	return s->kernel.tried && !s->kernel.usable && s->kernel.why[0] ? s->kernel.why : NULL;
}
