/*
 * tests/symbolize/sym_fixture.c - helpers for the symbolize tests.
 *
 * Responsibility: see sym_fixture.h. The ELF readers here use libelf directly
 * and share no code with symbolize/, so that the offset and symbol
 * arithmetic of the module is checked against a second implementation.
 */
#include "sym_fixture.h"

#include <fcntl.h>
#include <gelf.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char *vfmt(const char *fmt, va_list ap)
{
	char *s = NULL;

	if (vasprintf(&s, fmt, ap) < 0)
		return NULL;
	return s;
}

int fx_sh(const char *fmt, ...)
{
	va_list ap;
	char *cmd;
	int st;

	va_start(ap, fmt);
	cmd = vfmt(fmt, ap);
	va_end(ap);
	if (!cmd)
		return -1;
	st = system(cmd);
	st = st == -1 ? -1 : WIFEXITED(st) ? WEXITSTATUS(st) : -1;
	if (st)
		fprintf(stderr, "command failed (%d): %s\n", st, cmd);
	free(cmd);
	return st;
}

char *fx_sh_out(const char *fmt, ...)
{
	size_t len = 0, cap = 0;
	char *buf = NULL, *cmd;
	va_list ap;
	FILE *p;
	int st;

	va_start(ap, fmt);
	cmd = vfmt(fmt, ap);
	va_end(ap);
	if (!cmd)
		return NULL;
	p = popen(cmd, "r");
	if (!p) {
		free(cmd);
		return NULL;
	}
	for (;;) {
		size_t n;

		if (cap - len < 4096) {
			char *nb = realloc(buf, cap ? cap * 2 : 65536);

			if (!nb)
				break;
			buf = nb;
			cap = cap ? cap * 2 : 65536;
		}
		n = fread(buf + len, 1, cap - len - 1, p);
		if (!n)
			break;
		len += n;
	}
	st = pclose(p);
	if (buf)
		buf[len] = '\0';
	if (st != 0 || !buf) {
		fprintf(stderr, "command failed (%d): %s\n", st, cmd);
		free(buf);
		buf = NULL;
	}
	free(cmd);
	return buf;
}

unsigned char *fx_read_file(const char *path, size_t *sz)
{
	FILE *f = fopen(path, "rb");
	unsigned char *buf = NULL;
	long n = -1;

	if (f && !fseek(f, 0, SEEK_END))
		n = ftell(f);
	if (n >= 0 && !fseek(f, 0, SEEK_SET))
		buf = malloc((size_t)n + 1);
	if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
		free(buf);
		buf = NULL;
	}
	if (f)
		fclose(f);
	*sz = buf ? (size_t)n : 0;
	return buf;
}

bool fx_have(const char *prog)
{
	char cmd[256];

	snprintf(cmd, sizeof(cmd), "command -v %s >/dev/null 2>&1", prog);
	return system(cmd) == 0;
}

char *fx_tmpdir(void)
{
	const char *base = getenv("TMPDIR");
	char *dir = NULL;

	if (asprintf(&dir, "%s/tdr-sym-XXXXXX", base && base[0] ? base : "/tmp") < 0)
		return NULL;
	if (!mkdtemp(dir)) {
		free(dir);
		return NULL;
	}
	return dir;
}

void fx_rmrf(const char *dir)
{
	if (dir && strstr(dir, "/tdr-sym-"))
		fx_sh("rm -rf '%s'", dir);
}

const char *fx_src_dir(void)
{
	static char buf[4096];
	const char *root = getenv("TDR_SOURCE_DIR");

	if (root)
		snprintf(buf, sizeof(buf), "%s/tests/symbolize/fixtures", root);
	else
#ifdef TDR_SYM_FIXTURES
		snprintf(buf, sizeof(buf), "%s", TDR_SYM_FIXTURES);
#else
		snprintf(buf, sizeof(buf), "tests/symbolize/fixtures");
#endif
	return buf;
}

static Elf *open_elf(const char *path, int *fd)
{
	Elf *e;

	elf_version(EV_CURRENT);
	*fd = open(path, O_RDONLY);
	if (*fd < 0)
		return NULL;
	e = elf_begin(*fd, ELF_C_READ, NULL);
	if (!e) {
		close(*fd);
		*fd = -1;
	}
	return e;
}

int fx_elf_funcs(const char *path, struct fx_func **out)
{
	struct fx_func *v = NULL;
	Elf_Scn *scn = NULL;
	int fd, cnt = 0;
	Elf *e = open_elf(path, &fd);

	if (!e)
		return -1;
	while ((scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;
		Elf_Data *data;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_SYMTAB)
			continue;
		data = elf_getdata(scn, NULL);
		for (size_t i = 0; data && i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Sym sym;
			const char *name;

			if (!gelf_getsym(data, (int)i, &sym) || GELF_ST_TYPE(sym.st_info) != STT_FUNC ||
			    !sym.st_size || sym.st_shndx == SHN_UNDEF)
				continue;
			name = elf_strptr(e, sh.sh_link, sym.st_name);
			if ((cnt & (cnt - 1)) == 0) /* grow at powers of two */
				v = realloc(v, (size_t)(cnt ? cnt * 2 : 1) * sizeof(*v));
			memset(&v[cnt], 0, sizeof(v[cnt])); /* compared with memcmp */
			snprintf(v[cnt].name, sizeof(v[cnt].name), "%s", name ? name : "");
			v[cnt].lo = sym.st_value;
			v[cnt].size = sym.st_size;
			cnt++;
		}
	}
	elf_end(e);
	close(fd);
	*out = v;
	return cnt;
}

int fx_elf_syms(const char *path, unsigned sh_type, struct fx_sym **out)
{
	struct fx_sym *v = NULL;
	Elf_Scn *scn = NULL;
	int fd, cnt = 0;
	Elf *e = open_elf(path, &fd);

	*out = NULL;
	if (!e)
		return -1;
	while ((scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;
		Elf_Data *data;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != sh_type || !sh.sh_entsize)
			continue;
		data = elf_getdata(scn, NULL);
		for (size_t i = 0; data && i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Sym sym;
			const char *name;

			if (!gelf_getsym(data, (int)i, &sym) || sym.st_shndx == SHN_UNDEF)
				continue;
			name = elf_strptr(e, sh.sh_link, sym.st_name);
			if (!name || !name[0])
				continue;
			if ((cnt & (cnt - 1)) == 0) /* grow at powers of two */
				v = realloc(v, (size_t)(cnt ? cnt * 2 : 1) * sizeof(*v));
			memset(&v[cnt], 0, sizeof(v[cnt]));
			snprintf(v[cnt].name, sizeof(v[cnt].name), "%s", name);
			v[cnt].value = sym.st_value;
			v[cnt].size = sym.st_size;
			v[cnt].type = GELF_ST_TYPE(sym.st_info);
			v[cnt].bind = GELF_ST_BIND(sym.st_info);
			v[cnt].shndx = sym.st_shndx;
			cnt++;
		}
		break; /* one table of each type */
	}
	elf_end(e);
	close(fd);
	*out = v;
	return cnt;
}

bool fx_elf_section(const char *path, const char *name, uint64_t *addr, uint64_t *size)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	bool found = false;
	int fd;
	Elf *e = open_elf(path, &fd);

	if (!e)
		return false;
	if (elf_getshdrstrndx(e, &shstrndx) == 0) {
		while (!found && (scn = elf_nextscn(e, scn))) {
			GElf_Shdr sh;
			const char *n;

			if (!gelf_getshdr(scn, &sh))
				continue;
			n = elf_strptr(e, shstrndx, sh.sh_name);
			if (n && !strcmp(n, name)) {
				*addr = sh.sh_addr;
				*size = sh.sh_size;
				found = true;
			}
		}
	}
	elf_end(e);
	close(fd);
	return found;
}

bool fx_vaddr_to_off(const char *path, uint64_t vaddr, uint64_t *off)
{
	bool ok = false;
	size_t n = 0;
	int fd;
	Elf *e = open_elf(path, &fd);

	if (!e)
		return false;
	elf_getphdrnum(e, &n);
	for (size_t i = 0; i < n && !ok; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(e, (int)i, &ph) || ph.p_type != PT_LOAD)
			continue;
		if (vaddr >= ph.p_vaddr && vaddr < ph.p_vaddr + ph.p_filesz) {
			*off = vaddr - ph.p_vaddr + ph.p_offset;
			ok = true;
		}
	}
	elf_end(e);
	close(fd);
	return ok;
}

size_t fx_build_id(const char *path, uint8_t *buf, size_t cap)
{
	Elf_Scn *scn = NULL;
	size_t got = 0;
	int fd;
	Elf *e = open_elf(path, &fd);

	if (!e)
		return 0;
	while (!got && (scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;
		GElf_Nhdr nh;
		size_t off = 0, noff, doff;
		Elf_Data *data;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOTE)
			continue;
		data = elf_getdata(scn, NULL);
		while (data && (off = gelf_getnote(data, off, &nh, &noff, &doff)) > 0) {
			if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 &&
			    !memcmp((char *)data->d_buf + noff, "GNU", 4) && nh.n_descsz <= cap) {
				memcpy(buf, (char *)data->d_buf + doff, nh.n_descsz);
				got = nh.n_descsz;
				break;
			}
		}
	}
	elf_end(e);
	close(fd);
	return got;
}

int fx_insn_addrs(const char *path, uint64_t **out)
{
	char *text = fx_sh_out("objdump -d --no-show-raw-insn -j .text '%s'", path);
	uint64_t *v = NULL;
	int cnt = 0;

	if (!text)
		return -1;
	for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
		char *end;
		uint64_t a;

		/* Instruction lines look like "    1190:\tmov ...". */
		if (line[0] != ' ')
			continue;
		a = strtoull(line, &end, 16);
		if (end == line || *end != ':' || end[1] != '\t')
			continue;
		if ((cnt & (cnt - 1)) == 0) /* grow at powers of two */
			v = realloc(v, (size_t)(cnt ? cnt * 2 : 1) * sizeof(*v));
		v[cnt++] = a;
	}
	free(text);
	*out = v;
	return cnt;
}

/* "name inlined at f:l:c in x" -> "name". */
static void set_name(char *dst, size_t cap, const char *line)
{
	const char *cut = strstr(line, " inlined at ");
	size_t n = cut ? (size_t)(cut - line) : strlen(line);

	if (n >= cap)
		n = cap - 1;
	memcpy(dst, line, n);
	dst[n] = '\0';
}

/* "name inlined at PLACE in outer": remember PLACE. */
static void set_first_call(struct fx_frames *fr, const char *line)
{
	const char *at = strstr(line, " inlined at "), *in;

	if (!at)
		return;
	at += strlen(" inlined at ");
	in = strstr(at, " in ");
	if (!in)
		return;
	fr->first_inlined = true;
	snprintf(fr->first_call, sizeof(fr->first_call), "%.*s", (int)(in - at), at);
}

/* ELF clone suffixes of the physical function: see fx_from_sym. */
static void cut_clone_suffix(char *name)
{
	char *p = strstr(name, " [clone ");

	if (p)
		*p = '\0';
	else if (!strchr(name, '(') && (p = strchr(name, '.')) && p != name)
		*p = '\0';
}

int fx_eu_addr2line(const char *path, const uint64_t *vaddrs, size_t cnt, struct fx_frames *out)
{
	char in[] = "/tmp/tdr-sym-eu-XXXXXX";
	char *text, *save = NULL;
	long cur = -1;
	bool want_name = true;
	FILE *f;
	int fd = mkstemp(in);

	if (fd < 0)
		return -1;
	f = fdopen(fd, "w");
	for (size_t i = 0; i < cnt; i++)
		fprintf(f, "0x%llx\n", (unsigned long long)vaddrs[i]);
	fclose(f);
	text = fx_sh_out("eu-addr2line -a -f -i -C --relative -e '%s' < '%s'", path, in);
	unlink(in);
	if (!text)
		return -1;
	memset(out, 0, cnt * sizeof(*out));
	/* Per address: "0x...", then (function, place) line pairs. */
	for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		struct fx_frames *fr;

		if (!strncmp(line, "0x", 2) && !strchr(line, ' ') && !strchr(line, ':')) {
			cur++;
			want_name = true;
			if ((size_t)cur >= cnt)
				break;
			continue;
		}
		if (cur < 0)
			continue;
		fr = &out[cur];
		if (fr->n >= FX_MAX_FRAMES)
			continue;
		if (want_name) {
			set_name(fr->name[fr->n], sizeof(fr->name[0]), line);
			if (fr->n == 0)
				set_first_call(fr, line);
		} else {
			snprintf(fr->place[fr->n], sizeof(fr->place[0]), "%s", line);
			fr->n++;
		}
		want_name = !want_name;
	}
	free(text);
	if (cur + 1 != (long)cnt)
		return -1;
	for (size_t i = 0; i < cnt; i++)
		if (out[i].n)
			cut_clone_suffix(out[i].name[out[i].n - 1]);
	return (int)cnt;
}

static void fmt_place(char *dst, size_t cap, const char *file, uint32_t line, uint32_t col)
{
	/* As eu-addr2line's print_src: file:line[:col], "??:0" when unknown. */
	if (!file)
		snprintf(dst, cap, "??:0");
	else if (col)
		snprintf(dst, cap, "%s:%u:%u", file, line, col);
	else
		snprintf(dst, cap, "%s:%u", file, line);
}

void fx_from_sym(const struct tdr_sym *sym, struct fx_frames *out)
{
	const char *file = sym->file;
	uint32_t line = sym->line, col = sym->column;

	memset(out, 0, sizeof(*out));
	for (size_t k = 0; k < sym->inline_cnt && out->n < FX_MAX_FRAMES - 1; k++) {
		const struct tdr_inline_frame *f = &sym->inlines[k];

		snprintf(out->name[out->n], sizeof(out->name[0]), "%s",
			 f->function ? f->function : "??");
		fmt_place(out->place[out->n], sizeof(out->place[0]), file, line, col);
		out->n++;
		/* The next outer frame's place is where this one was inlined. */
		file = f->call_file;
		line = f->call_line;
		col = f->call_column;
	}
	snprintf(out->name[out->n], sizeof(out->name[0]), "%s",
		 sym->status == TDR_SYM_OK && sym->function ? sym->function : "??");
	cut_clone_suffix(out->name[out->n]);
	fmt_place(out->place[out->n], sizeof(out->place[0]), file, line, col);
	out->n++;
}

bool fx_frames_match(const struct fx_frames *want, const struct fx_frames *got, bool *partial)
{
	/* eu-addr2line contradicts itself when its first line (computed at the
	 * address) and its chain (computed at the line row's start) disagree:
	 * an inline on the first line but another caller or none in the chain,
	 * or no inline on the first line but a chain. */
	bool inconsistent = want->first_inlined
				    ? want->n < 2 || strcmp(want->first_call, want->place[1])
				    : want->n >= 2;

	*partial = inconsistent;
	if (inconsistent) {
		if (strcmp(want->name[0], got->name[0]) || strcmp(want->place[0], got->place[0]))
			return false;
		if (!want->first_inlined)
			return got->n == 1;
		return got->n >= 2 && !strcmp(want->first_call, got->place[1]);
	}
	if (want->n != got->n)
		return false;
	for (size_t i = 0; i < want->n; i++)
		if (strcmp(want->name[i], got->name[i]) || strcmp(want->place[i], got->place[i]))
			return false;
	return true;
}

void fx_print_diff(uint64_t vaddr, const struct fx_frames *want, const struct fx_frames *got)
{
	fprintf(stderr, "address 0x%llx:\n  eu-addr2line:\n", (unsigned long long)vaddr);
	for (size_t i = 0; i < want->n; i++)
		fprintf(stderr, "    %s @ %s\n", want->name[i], want->place[i]);
	fprintf(stderr, "  tdrec:\n");
	for (size_t i = 0; i < got->n; i++)
		fprintf(stderr, "    %s @ %s\n", got->name[i], got->place[i]);
}
