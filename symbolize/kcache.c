/*
 * symbolize/kcache.c - the per-boot cache file of the kernel symbol table.
 *
 * Responsibility: write a built sym_ktab to one file in the cache directory
 * and map it back, read-only, in later reports of the same boot (the
 * addresses and name offsets; the names are read from the file as needed,
 * by kernel.c, so the table keeps the file open), so that
 * they skip /proc/kallsyms (tens of milliseconds of kernel time). The file
 * is keyed by the boot id and a hash of /proc/modules (module loads and
 * unloads change kallsyms) and of the kallsyms path; a file with another
 * key is simply rebuilt.
 * The cache is untrusted input: every size, offset and ordering the lookup
 * relies on is checked before the mapping is used, and anything that does
 * not check out sends the caller back to kallsyms (never a crash). It is
 * written atomically (a temporary file in the same directory, renamed over
 * the old one), so readers never see a partly written file.
 * Layout (host byte order and alignment: a cache is never moved between
 * machines; the byte-order word rejects a file of another byte order):
 *
 *   offset            size          field
 *   0                 128           struct kcache_hdr below
 *   128               8 * cnt       addresses, strictly increasing, nonzero
 *   128 + 8 * cnt     4 * cnt       name offsets into the string table
 *   128 + 12 * cnt    str_sz        names, NUL-terminated; the last byte is 0
 *
 * Ownership and threads: called from kallsyms.c's loader (the helper thread
 * or the waiting thread); no shared state.
 * See: docs/symbolize.md "Kernel symbol cache".
 */
#include "symbolize_int.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tdrec/tdr_err.h"
#include "tdrec/tdr_hash.h"
#include "tdrec/tdr_mem.h"

#define MODULES_DEFAULT "/proc/modules"
#define KCACHE_MAGIC "TDRKSYM\n"
#define KCACHE_VERSION 1
#define KCACHE_BYTE_ORDER 0x01020304u
#define KCACHE_MAX_CNT (1u << 24)
#define BOOT_ID_SZ 64
#define KCACHE_MAX_SZ (1ull << 30)

struct kcache_hdr {
	char magic[8];
	uint32_t version;
	uint32_t hdr_sz;
	uint64_t key; /* tdr_symbolize_kcache__key */
	uint64_t cnt;
	uint64_t str_sz;
	uint64_t ref_addr[SYM_KREF_CNT];
	uint32_t byte_order;
	uint32_t reserved;	  /* 0 */
	char boot_id[BOOT_ID_SZ]; /* NUL-padded */
};
_Static_assert(sizeof(struct kcache_hdr) == 128, "kcache header layout");

int tdr_symbolize_kcache__key(const char *modules_path, const char *kallsyms_path, uint64_t *key)
{
	/* The key names the cache file on disk: it must stay FNV-1a of these
	 * bytes (tdr_hash.h promises the function never changes). */
	uint64_t h = TDR_FNV1A_INIT;
	char buf[4096];
	int fd, err = 0;

	fd = open(modules_path ? modules_path : MODULES_DEFAULT, O_RDONLY | O_CLOEXEC);
	if (fd < 0 && errno != ENOENT)
		return -errno;
	/* No /proc/modules: a kernel without module support; hashed as empty. */
	while (fd >= 0) {
		ssize_t n = read(fd, buf, sizeof(buf));

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			err = -errno;
		if (n <= 0)
			break;
		h = tdr_fnv1a(h, buf, (size_t)n);
	}
	if (fd >= 0)
		close(fd);
	h = tdr_fnv1a(h, "\0", 1);
	*key = tdr_fnv1a(h, kallsyms_path, strlen(kallsyms_path));
	return err;
}

static void boot_id_field(const char *boot_id, char out[BOOT_ID_SZ])
{
	memset(out, 0, BOOT_ID_SZ);
	strncpy(out, boot_id, BOOT_ID_SZ - 1);
}

/* Check the mapped file m of sz bytes. Returns 1 when it is this boot's
 * table under key, 0 when it is a sound file for another key, or
 * -TDR_E_CORRUPT with *why. */
static int kcache_check(const unsigned char *m, size_t sz, int fd, const char *boot_id,
			uint64_t key, const char **why)
{
	const struct kcache_hdr *h = (const void *)m;
	const uint64_t *addr;
	const uint32_t *off;
	char bid[BOOT_ID_SZ], last;

	*why = NULL;
	if (sz < sizeof(*h))
		*why = "shorter than its header";
	else if (memcmp(h->magic, KCACHE_MAGIC, sizeof(h->magic)))
		*why = "not a tdrec kernel symbol cache (bad magic)";
	else if (h->version != KCACHE_VERSION || h->hdr_sz != sizeof(*h) ||
		 h->byte_order != KCACHE_BYTE_ORDER)
		*why = "another version or byte order";
	else if (h->reserved || h->boot_id[BOOT_ID_SZ - 1])
		*why = "bad header";
	if (*why)
		return -TDR_E_CORRUPT;
	boot_id_field(boot_id, bid);
	if (memcmp(h->boot_id, bid, BOOT_ID_SZ) || h->key != key)
		return 0;
	if (!h->cnt || h->cnt > KCACHE_MAX_CNT || h->cnt * 12 > sz - sizeof(*h) ||
	    h->str_sz != sz - sizeof(*h) - h->cnt * 12 || !h->str_sz) {
		*why = "its sizes do not add up";
		return -TDR_E_CORRUPT;
	}
	addr = (const uint64_t *)(m + sizeof(*h));
	off = (const uint32_t *)(m + sizeof(*h) + h->cnt * 8);
	/* Read, not mapped: the names are read from fd (symbolize_int.h). */
	if (pread(fd, &last, 1, (off_t)(sz - 1)) != 1 || last) {
		*why = "unterminated string table";
		return -TDR_E_CORRUPT;
	}
	for (size_t i = 0; i < h->cnt; i++) {
		if (!addr[i] || (i && addr[i] <= addr[i - 1])) {
			*why = "addresses out of order";
			return -TDR_E_CORRUPT;
		}
		if (off[i] >= h->str_sz) {
			*why = "a name offset out of bounds";
			return -TDR_E_CORRUPT;
		}
	}
	return 1;
}

int tdr_symbolize_kcache__load(const char *dir, const char *boot_id, uint64_t key,
			       struct sym_ktab *t, const char **why)
{
	const struct kcache_hdr *h;
	struct stat st;
	uint64_t sz = 0;
	char *path;
	void *m;
	int fd, err;

	*why = NULL;
	err = tdr_symbolize_cache__dir_check(dir, 1, why);
	if (err)
		return err == -ENOENT ? 0 : err;
	path = tdr_symbolize_cache__path(dir, SYM_KCACHE_NAME, "");
	if (!path)
		return -ENOMEM;
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	err = fd < 0 ? -errno : 0;
	free(path);
	if (fd < 0)
		return err == -ENOENT ? 0 : err;
	err = tdr_symbolize_cache__check(fd, &st, why);
	if (!err)
		sz = (uint64_t)st.st_size;
	if (!err && (sz < sizeof(*h) || sz > KCACHE_MAX_SZ)) {
		*why = "shorter than its header, or too large";
		err = -TDR_E_CORRUPT;
	}
	if (err) {
		close(fd);
		return err;
	}
	m = mmap(NULL, (size_t)sz, PROT_READ, MAP_PRIVATE, fd, 0);
	err = m == MAP_FAILED ? -errno : 0;
	if (!err)
		err = kcache_check(m, (size_t)sz, fd, boot_id, key, why);
	if (err != 1) {
		if (m != MAP_FAILED)
			munmap(m, (size_t)sz);
		close(fd);
		return err;
	}
	h = m;
	memset(t, 0, sizeof(*t));
	t->map = m;
	t->map_sz = (size_t)sz;
	t->cnt = h->cnt;
	t->addr = (const uint64_t *)((const char *)m + sizeof(*h));
	t->name_off = (const uint32_t *)(t->addr + t->cnt);
	t->str_in_file = true;
	t->str_fd = fd;
	t->str_pos = sizeof(*h) + t->cnt * 12;
	t->str_sz = h->str_sz;
	memcpy(t->ref_addr, h->ref_addr, sizeof(t->ref_addr));
	return 1;
}

int tdr_symbolize_kcache__store(const char *dir, const char *boot_id, uint64_t key,
				const struct sym_ktab *t)
{
	struct kcache_hdr h = {.version = KCACHE_VERSION,
			       .hdr_sz = sizeof(h),
			       .key = key,
			       .cnt = t->cnt,
			       .str_sz = t->str_sz,
			       .byte_order = KCACHE_BYTE_ORDER};
	char *tmp;
	int fd, err;

	memcpy(h.magic, KCACHE_MAGIC, sizeof(h.magic));
	memcpy(h.ref_addr, t->ref_addr, sizeof(h.ref_addr));
	boot_id_field(boot_id, h.boot_id);
	fd = tdr_symbolize_cache__create(dir, 1, SYM_KCACHE_NAME, &tmp);
	if (fd < 0)
		return fd;
	err = tdr_symbolize_cache__write_all(fd, &h, sizeof(h));
	if (!err)
		err = tdr_symbolize_cache__write_all(fd, t->addr, t->cnt * sizeof(*t->addr));
	if (!err)
		err =
		    tdr_symbolize_cache__write_all(fd, t->name_off, t->cnt * sizeof(*t->name_off));
	if (!err)
		err = tdr_symbolize_cache__write_all(fd, t->str, t->str_sz);
	if (close(fd) && !err)
		err = -errno;
	return tdr_symbolize_cache__finish(dir, SYM_KCACHE_NAME, tmp, err);
}
