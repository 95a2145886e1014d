/*
 * tests/format/testlib.c - shared fixtures for the format/ tests (see testlib.h).
 */
#include "testlib.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "tdrec/tdr_endian.h"
#include "support/test_log.h"
#include "tdrec/tdr_log.h"

static const char *const event_names[10] = {
	"slots",	     "cycles",		  "topdown-retiring",	   "topdown-bad-spec",
	"topdown-fe-bound",  "topdown-be-bound",  "topdown-heavy-ops",	   "topdown-br-mispredict",
	"topdown-fetch-lat", "topdown-mem-bound",
};

const char tl_dso_section[sizeof(TL_DSO_SECTION)] = TL_DSO_SECTION;
const char tl_ksyms_section[sizeof(TL_KSYMS_SECTION)] = TL_KSYMS_SECTION;

void tl_make_meta(struct tdr_meta *m)
{
	static const char *const argv[] = { "tdrec", "record", "-o", "x.tdr", "--", "./app" };

	memset(m, 0, sizeof(*m));
	m->tdrec_version = strdup("0.1.0");
	m->argc = 6;
	m->argv = calloc(6, sizeof(char *));
	for (size_t i = 0; i < 6; i++)
		m->argv[i] = strdup(argv[i]);
	m->hostname = strdup("testhost");
	m->kernel_release = strdup("6.18.0-test");
	m->boot_id = strdup("0f8d5c1e-1111-2222-3333-444455556666");
	m->cpu_vendor = strdup("GenuineIntel");
	m->cpu_model_name = strdup("Intel(R) Xeon(R) Platinum 8480+");
	m->cpu_family = 6;
	m->cpu_model = 0x8f;
	m->cpu_stepping = 8;
	m->page_sz = 4096;
	m->nr_cpus = 2;
	m->plan_name = strdup("topdown-l2");
	m->flags = TDR_META_INHERIT | TDR_META_KERNEL;
	m->clockid = 1; /* CLOCK_MONOTONIC */
	m->start_wall_ns = 1700000000123456789ull;
	m->start_clock_ns = 987654321ull;
	m->sample_period = 0;
	m->sample_freq = 4000;
	m->event_cnt = 10;
	m->events = calloc(10, sizeof(*m->events));
	for (size_t i = 0; i < 10; i++) {
		struct tdr_event_desc *e = &m->events[i];

		e->name = strdup(event_names[i]);
		e->pmu_name = strdup("cpu_core");
		e->pmu_type = 4;
		e->flags = i == 0 ? TDR_EVENT_LEADER : i == 1 ? TDR_EVENT_SAMPLER : 0;
		e->group_idx = 0;
		e->attr.type = 4;
		e->attr.size = sizeof(e->attr);
		e->attr.config = 0x400 + i;
		e->attr.sample_freq = i == 1 ? 4000 : 0;
		e->attr.freq = i == 1;
		e->attr.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_READ;
		e->attr.read_format = PERF_FORMAT_GROUP | PERF_FORMAT_ID;
		e->attr.disabled = i == 0;
		e->attr.inherit = 1;
		e->attr.exclude_hv = 1;
		e->attr_disk_sz = sizeof(e->attr);
		e->id_cnt = 2;
		e->ids = calloc(2, sizeof(*e->ids));
		e->ids[0] = (struct tdr_event_id){ 0, UINT32_MAX, 1000 + i };
		e->ids[1] = (struct tdr_event_id){ 1, 4242, 2000 + i };
	}
	assert_int_equal(tdr_meta__add_topdown_categories(m), 12);
	m->note_cnt = 2;
	m->notes = calloc(2, sizeof(char *));
	m->notes[0] = strdup("plan topdown-l2 chosen");
	m->notes[1] = strdup("");
}

static void assert_str_eq(const char *a, const char *b)
{
	if (!a || !b)
		assert_ptr_equal(a, b);
	else
		assert_string_equal(a, b);
}

/* Two weighted terms (docs/format.md section 5.2, WPART) and their weights. */
static void tl_assert_wterm_equal(const struct tdr_wterm *x, const struct tdr_wterm *y)
{
	assert_int_equal(x->event_idx, y->event_idx);
	assert_true(x->coef == y->coef);
	assert_int_equal(x->w.num_cnt, y->w.num_cnt);
	assert_int_equal(x->w.den_cnt, y->w.den_cnt);
	assert_int_equal(x->w.wnum_cnt + x->w.wden_cnt, 0);
	assert_int_equal(y->w.wnum_cnt + y->w.wden_cnt, 0);
	for (size_t j = 0; j < x->w.num_cnt; j++) {
		assert_int_equal(x->w.num[j].event_idx, y->w.num[j].event_idx);
		assert_true(x->w.num[j].coef == y->w.num[j].coef);
	}
	for (size_t j = 0; j < x->w.den_cnt; j++) {
		assert_int_equal(x->w.den[j].event_idx, y->w.den[j].event_idx);
		assert_true(x->w.den[j].coef == y->w.den[j].coef);
	}
}

void tl_assert_meta_equal(const struct tdr_meta *a, const struct tdr_meta *b)
{
	assert_str_eq(a->tdrec_version, b->tdrec_version);
	assert_int_equal(a->argc, b->argc);
	for (size_t i = 0; i < a->argc; i++)
		assert_str_eq(a->argv[i], b->argv[i]);
	assert_str_eq(a->hostname, b->hostname);
	assert_str_eq(a->kernel_release, b->kernel_release);
	assert_str_eq(a->boot_id, b->boot_id);
	assert_str_eq(a->cpu_vendor, b->cpu_vendor);
	assert_str_eq(a->cpu_model_name, b->cpu_model_name);
	assert_int_equal(a->cpu_family, b->cpu_family);
	assert_int_equal(a->cpu_model, b->cpu_model);
	assert_int_equal(a->cpu_stepping, b->cpu_stepping);
	assert_int_equal(a->page_sz, b->page_sz);
	assert_int_equal(a->nr_cpus, b->nr_cpus);
	assert_str_eq(a->plan_name, b->plan_name);
	assert_int_equal(a->flags, b->flags);
	assert_int_equal(a->clockid, b->clockid);
	assert_int_equal(a->start_wall_ns, b->start_wall_ns);
	assert_int_equal(a->start_clock_ns, b->start_clock_ns);
	assert_int_equal(a->sample_period, b->sample_period);
	assert_int_equal(a->sample_freq, b->sample_freq);
	assert_int_equal(a->event_cnt, b->event_cnt);
	for (size_t i = 0; i < a->event_cnt; i++) {
		const struct tdr_event_desc *x = &a->events[i], *y = &b->events[i];

		assert_str_eq(x->name, y->name);
		assert_str_eq(x->pmu_name, y->pmu_name);
		assert_int_equal(x->pmu_type, y->pmu_type);
		assert_int_equal(x->flags, y->flags);
		assert_int_equal(x->group_idx, y->group_idx);
		assert_memory_equal(&x->attr, &y->attr, sizeof(x->attr));
		assert_int_equal(x->attr_disk_sz, y->attr_disk_sz);
		assert_int_equal(x->id_cnt, y->id_cnt);
		for (size_t j = 0; j < x->id_cnt; j++) {
			assert_int_equal(x->ids[j].cpu, y->ids[j].cpu);
			assert_int_equal(x->ids[j].pid, y->ids[j].pid);
			assert_int_equal(x->ids[j].id, y->ids[j].id);
		}
	}
	assert_int_equal(a->category_cnt, b->category_cnt);
	for (size_t i = 0; i < a->category_cnt; i++) {
		const struct tdr_category *x = &a->categories[i], *y = &b->categories[i];

		assert_str_eq(x->name, y->name);
		assert_str_eq(x->parent, y->parent);
		assert_int_equal(x->level, y->level);
		assert_int_equal(x->flags, y->flags);
		assert_int_equal(x->num_cnt, y->num_cnt);
		assert_int_equal(x->den_cnt, y->den_cnt);
		for (size_t j = 0; j < x->num_cnt; j++) {
			assert_int_equal(x->num[j].event_idx, y->num[j].event_idx);
			assert_true(x->num[j].coef == y->num[j].coef);
		}
		for (size_t j = 0; j < x->den_cnt; j++) {
			assert_int_equal(x->den[j].event_idx, y->den[j].event_idx);
			assert_true(x->den[j].coef == y->den[j].coef);
		}
		assert_int_equal(x->part_cnt, y->part_cnt);
		for (size_t p = 0; p < x->part_cnt; p++) {
			assert_int_equal(x->parts[p].factor_cnt, y->parts[p].factor_cnt);
			for (size_t f = 0; f < x->parts[p].factor_cnt; f++) {
				const struct tdr_ratio *u = &x->parts[p].factors[f];
				const struct tdr_ratio *v = &y->parts[p].factors[f];

				assert_int_equal(u->num_cnt, v->num_cnt);
				assert_int_equal(u->den_cnt, v->den_cnt);
				for (size_t j = 0; j < u->num_cnt; j++) {
					assert_int_equal(u->num[j].event_idx, v->num[j].event_idx);
					assert_true(u->num[j].coef == v->num[j].coef);
				}
				for (size_t j = 0; j < u->den_cnt; j++) {
					assert_int_equal(u->den[j].event_idx, v->den[j].event_idx);
					assert_true(u->den[j].coef == v->den[j].coef);
				}
				assert_int_equal(u->wnum_cnt, v->wnum_cnt);
				assert_int_equal(u->wden_cnt, v->wden_cnt);
				for (size_t j = 0; j < u->wnum_cnt + u->wden_cnt; j++)
					tl_assert_wterm_equal(j < u->wnum_cnt ? &u->wnum[j]
									     : &u->wden[j - u->wnum_cnt],
							      j < u->wnum_cnt ? &v->wnum[j]
									     : &v->wden[j - u->wnum_cnt]);
			}
		}
	}
	assert_int_equal(a->note_cnt, b->note_cnt);
	for (size_t i = 0; i < a->note_cnt; i++)
		assert_str_eq(a->notes[i], b->notes[i]);
}

static uint32_t rnd(uint32_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 17;
	*s ^= *s << 5;
	return *s;
}

static uint8_t *put_hdr(uint8_t *p, uint32_t type, uint16_t misc, uint16_t size)
{
	struct perf_event_header h = { .type = type, .misc = misc, .size = size };

	memcpy(p, &h, sizeof(h));
	return p + sizeof(h);
}

size_t tl_make_records(uint8_t *buf, size_t cap, uint32_t seed, size_t n, struct tl_counts *c)
{
	uint32_t s = seed * 2654435761u + 1;
	size_t pos = 0;

	for (size_t i = 0; i < n; i++) {
		uint32_t kind = rnd(&s) % 8;
		uint16_t size;
		uint8_t *p = buf + pos, *body;
		uint64_t v;

		switch (kind) {
		case 0: /* PERF_RECORD_LOST { u64 id; u64 lost; } */
			size = 24;
			break;
		case 1: /* THROTTLE / UNTHROTTLE { u64 time, id, stream_id; } */
		case 2:
			size = 32;
			break;
		case 3: /* COMM { u32 pid, tid; char comm[16]; } */
			size = 32;
			break;
		default: /* SAMPLE with a group read of varying length */
			size = (uint16_t)(8 + 8 * (3 + rnd(&s) % 10));
			break;
		}
		assert_true(pos + size <= cap);
		body = put_hdr(p, kind == 0 ? PERF_RECORD_LOST
			       : kind == 1 ? PERF_RECORD_THROTTLE
			       : kind == 2 ? PERF_RECORD_UNTHROTTLE
			       : kind == 3 ? PERF_RECORD_COMM
					   : PERF_RECORD_SAMPLE,
			       PERF_RECORD_MISC_USER, size);
		for (uint8_t *q = body; q < p + size; q += 8) {
			v = ((uint64_t)rnd(&s) << 32) | (i & 0xff);
			memcpy(q, &v, 8);
		}
		c->records++;
		switch (kind) {
		case 0:
			v = 1 + rnd(&s) % 100;
			memcpy(body + 8, &v, 8);
			c->lost_records++;
			c->lost_samples += v;
			break;
		case 1:
			c->throttles++;
			break;
		case 2:
			c->unthrottles++;
			break;
		case 3:
			memcpy(body + 8, "app\0\0\0\0\0\0\0\0\0\0\0\0", 16);
			break;
		default:
			c->samples++;
			break;
		}
		pos += size;
	}
	return pos;
}

void tl_std_init(struct tl_std *std)
{
	static const uint32_t rings[TL_STD_FRAMES] = { 0, 1, 0, TDR_RING_SYNTHETIC };

	memset(std, 0, sizeof(*std));
	for (size_t i = 0; i < TL_STD_FRAMES; i++) {
		std->ring[i] = rings[i];
		std->frame_sz[i] = tl_make_records(std->frame[i], sizeof(std->frame[i]),
						   (uint32_t)i + 1, 5 + 4 * i, &std->counts);
	}
	for (size_t i = 0; i < 10; i++) {
		std->ev[i].samples = 100 * i + 7;
		std->ev[i].lost_samples = i;
		/* Counted totals for every other event: the others are unknown. */
		std->ev[i].has_counted = i % 2;
		if (i % 2) {
			std->ev[i].counted = 1000000007ull * i;
			std->ev[i].time_enabled_ns = 5000000000ull + i;
			std->ev[i].time_running_ns = 4000000000ull + i;
		}
	}
	std->end = (struct tdr_run_end){ .duration_ns = 1234567890,
					 .exit_code = 3,
					 .term_signal = 0,
					 .flags = TDR_END_INTERRUPTED };
}

int tl_write_std(const char *path, const struct tl_std *std, bool finish)
{
	struct tdr_meta m;
	int err;

	tl_make_meta(&m);
	err = tl_write_std_meta(path, std, &m, finish);
	tdr_meta__clear(&m);
	return err;
}

int tl_write_std_meta(const char *path, const struct tl_std *std, const struct tdr_meta *m,
		      bool finish)
{
	struct tdr_writer_opts opts = { .path = path, .codec = std->codec };
	struct tdr_writer *w = NULL;
	int err;

	err = tdr_writer__open(&opts, m, &w);
	if (err)
		return err;
	for (size_t i = 0; !err && i < TL_STD_FRAMES; i++) {
		err = tdr_writer__add_frame(w, std->ring[i], std->frame[i], std->frame_sz[i]);
		if (!err && i == 1)
			err = tdr_writer__add_section(w, TDR_SECTION_DSO_TABLE, tl_dso_section,
						      sizeof(tl_dso_section));
	}
	if (!err)
		err = tdr_writer__add_section(w, TDR_SECTION_KSYMS, tl_ksyms_section,
					      sizeof(tl_ksyms_section));
	if (!err && finish)
		err = tdr_writer__finish(w, std->ev, 10, &std->end);
	tdr_writer__free(w);
	return err;
}

int tl_slurp(const char *path, uint8_t **data, size_t *sz)
{
	struct stat st;
	ssize_t n;
	int fd = open(path, O_RDONLY);

	if (fd < 0)
		return -errno;
	if (fstat(fd, &st)) {
		close(fd);
		return -errno;
	}
	*data = malloc((size_t)st.st_size + 1);
	n = read(fd, *data, (size_t)st.st_size);
	close(fd);
	if (n != st.st_size) {
		free(*data);
		return -EIO;
	}
	*sz = (size_t)n;
	return 0;
}

char *tl_mkdtemp(void)
{
	char *d = strdup("/tmp/tdr_format_test_XXXXXX");

	assert_non_null(mkdtemp(d));
	return d;
}

void tl_rmdir(char *dir)
{
	DIR *d;
	struct dirent *e;

	if (!dir)
		return;
	d = opendir(dir);
	while (d && (e = readdir(d))) {
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			unlink(tl_path(dir, e->d_name));
	}
	if (d)
		closedir(d);
	rmdir(dir);
	free(dir);
}

const char *tl_path(const char *dir, const char *name)
{
	static char buf[4096];

	snprintf(buf, sizeof(buf), "%s/%s", dir, name);
	return buf;
}

void tl_quiet(void)
{
	test_log_quiet();
}

void tl_loud(void)
{
	test_log_stop();
}

void tl_put_file_hdr(struct tdr_buf *b, uint16_t major, uint16_t minor)
{
	uint8_t *p = tdr_buf__put(b, TDR_FILE_HDR_SZ);

	assert_non_null(p);
	memset(p, 0, TDR_FILE_HDR_SZ);
	memcpy(p, TDR_FILE_MAGIC, 8);
	tdr_put_le16(p + TDR_FH_MAJOR, major);
	tdr_put_le16(p + TDR_FH_MINOR, minor);
	tdr_put_le32(p + TDR_FH_HDR_SZ, TDR_FILE_HDR_SZ);
	tdr_put_le32(p + TDR_FH_CRC, tdr_crc32c(0, p, TDR_FH_CRC));
}

uint64_t tl_put_block(struct tdr_buf *b, uint16_t type, const void *payload, size_t sz)
{
	uint64_t off = b->sz;
	size_t pad = (size_t)(tdr_align8(sz) - sz);
	uint8_t *p = tdr_buf__put(b, TDR_BLOCK_HDR_SZ + sz + pad);

	assert_non_null(p);
	tdr_block__put_hdr(p, type, sz, tdr_crc32c(0, payload, sz));
	if (sz)
		memcpy(p + TDR_BLOCK_HDR_SZ, payload, sz);
	memset(p + TDR_BLOCK_HDR_SZ + sz, 0, pad);
	return off;
}

void tl_put_footer(struct tdr_buf *b, uint64_t trailer_off)
{
	uint8_t *p = tdr_buf__put(b, TDR_FOOTER_SZ);

	assert_non_null(p);
	memset(p, 0, TDR_FOOTER_SZ);
	tdr_put_le64(p + TDR_FT_TRAILER_OFF, trailer_off);
	tdr_put_le32(p + TDR_FT_CRC, tdr_crc32c(0, p, TDR_FT_CRC));
	memcpy(p + TDR_FT_MAGIC, TDR_FOOTER_MAGIC, 8);
}

size_t tl_blocks(const uint8_t *data, size_t sz, struct tl_block *out, size_t max)
{
	uint64_t off = TDR_FILE_HDR_SZ;
	size_t n = 0;

	while (n < max && off + TDR_BLOCK_HDR_SZ <= sz &&
	       tdr_get_le32(data + off) == TDR_BLOCK_MAGIC) {
		out[n].off = off;
		out[n].type = tdr_get_le16(data + off + TDR_BH_TYPE);
		out[n].payload_sz = tdr_get_le64(data + off + TDR_BH_PAYLOAD_SZ);
		out[n].end = tdr_align8(off + TDR_BLOCK_HDR_SZ + out[n].payload_sz);
		off = out[n++].end;
	}
	return n;
}
