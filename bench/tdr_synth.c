/*
 * bench/tdr_synth.c - write a large synthetic .tdr recording, fast.
 *
 * Recording ten million samples on this 2-CPU VM takes minutes of a busy
 * machine; measuring how a report's time and memory grow with the file
 * needs such files at will. This writes SAMPLES samples of a TopDown
 * level-1 sampling-read group (6 members, the recorder's sample layout:
 * tests/support/synth.c) from 4 threads of one process on 2 CPUs, 10 us
 * apart per CPU (a 100 kHz recording), through the real writer with the
 * column codec, in frames of FRAME_SAMPLES samples per ring (the recorder
 * writes chunks of up to 4 MiB). The IPs fall in 4096 places of one
 * mapping of MAPPED_FILE (default: this program), so the report resolves
 * functions as it would for a real program.
 * FRAME_SAMPLES and CODEC (1 or 2, docs/format.md 6.1, 6.2) change the
 * frames, to measure what small frames cost (a 1 kHz recording drains
 * about 500 samples per ring and frame).
 * usage: tdr_synth SAMPLES OUT.tdr [MAPPED_FILE [FRAME_SAMPLES [CODEC]]]
 */
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support/synth.h"
#include "tdrec/format.h"
#include "tdrec/tdr_err.h"

/* bench/CMakeLists.txt builds each bench .c file alone: take the record writer in. */
#include "support/synth.c"

#define FRAME_SAMPLES 20000 /* per ring, by default */
#define PID 1000

int main(int argc, char **argv)
{
	static const char *const names[6] = {
	    "slots",	       "cycles", "topdown-retiring", "topdown-bad-spec", "topdown-fe-bound",
	    "topdown-be-bound"};
	uint64_t vals[4][2][6] = {{{0}}}, ena[4][2] = {{0}};
	struct tdr_writer_opts o = {.codec = TDR_CODEC_COLUMNS};
	char mapped[PATH_MAX];
	struct synth_buf b[2] = {{0}}, sb = {0};
	struct tdr_meta meta = {0};
	struct synth_sid sid = {.pid = PID, .tid = PID, .id = 101};
	struct perf_event_attr a;
	struct tdr_writer *w;
	size_t n, i, frame_samples = FRAME_SAMPLES;
	int err;

	if (argc < 3 || argc > 6) {
		fprintf(stderr,
			"usage: tdr_synth SAMPLES OUT.tdr [MAPPED_FILE [FRAME_SAMPLES [CODEC]]]\n");
		return 2;
	}
	if (argc > 4 && !(frame_samples = strtoull(argv[4], NULL, 10)))
		frame_samples = FRAME_SAMPLES;
	if (argc > 5)
		o.codec = (uint8_t)strtoul(argv[5], NULL, 10);
	n = strtoull(argv[1], NULL, 10);
	o.path = argv[2];
	if (!realpath(argc > 3 ? argv[3] : "/proc/self/exe", mapped)) {
		perror("tdr_synth: mapped file");
		return 1;
	}
	synth_attr_group(&a, 100000);
	for (i = 0; i < 6; i++) {
		uint64_t ids[2] = {100 + i, 200 + i};
		uint32_t cpus[2] = {0, 1};

		synth_meta_add_event(&meta, names[i], &a,
				     i == 0   ? TDR_EVENT_LEADER
				     : i == 1 ? TDR_EVENT_SAMPLER
					      : 0,
				     0, ids, cpus, PID, 2);
	}
	meta.plan_name = strdup("topdown-l1");
	meta.flags = TDR_META_INHERIT;
	err = tdr_writer__open(&o, &meta, &w);
	if (err)
		goto out;
	synth_mmap(&sb, &a, false, 0, PID, PID, 0x555555554000ull, 0x100000, 0, mapped, NULL, 0,
		   &sid);
	for (unsigned t = 0; t < 4; t++) {
		char comm[16];

		snprintf(comm, sizeof(comm), "synth-%u", t);
		synth_comm(&sb, &a, PID, PID + t, comm, false, &sid);
	}
	err = tdr_writer__add_frame(w, TDR_RING_SYNTHETIC, sb.data, sb.sz);
	for (i = 0; !err && i < n; i++) {
		/* per CPU: one sample every 10 us; threads take turns in runs
		 * of 64 samples, as a scheduler's time slices would */
		unsigned c = i % 2, t = (unsigned)((i / 2 / 64) % 2) * 2 + c;
		uint64_t ids[6], x = i * 0x9e3779b97f4a7c15ull;
		struct synth_sample s = {0};

		for (int k = 0; k < 6; k++) {
			/* slots 4 per cycle; the four categories share them */
			static const unsigned share[6] = {4, 1, 2, 0, 1, 0};
			uint64_t cyc = 300000 + (x >> 40) % 20000;

			vals[t][c][k] += k == 1	  ? cyc
					 : k == 0 ? 4 * cyc
						  : share[k] * cyc / 2 + (x >> (k * 8)) % 97;
			ids[k] = (c ? 200 : 100) + (uint64_t)k;
		}
		ena[t][c] += 10000;
		s.sid.pid = PID;
		s.sid.tid = PID + t;
		s.sid.time = 1000000000ull + (i / 2) * 10000 + c * 3;
		s.sid.id = ids[1];
		s.sid.cpu = c;
		s.ip = 0x555555554000ull + 0x1000 + ((x >> 20) % 4096) * 16;
		s.period = 100000;
		s.time_enabled = s.time_running = ena[t][c];
		s.nr = 6;
		s.values = vals[t][c];
		s.ids = ids;
		synth_sample(&b[c], &a, &s);
		if (i + 2 >= n || (i / 2 + 1) % frame_samples == 0) {
			if (b[c].sz)
				err = tdr_writer__add_frame(w, c, b[c].data, b[c].sz);
			synth_buf_reset(&b[c]);
		}
	}
	if (!err) {
		struct tdr_run_end end = {.duration_ns = (n / 2) * 10000};

		err = tdr_writer__finish(w, NULL, 0, &end);
	}
	tdr_writer__free(w);
out:
	synth_buf_release(&b[0]);
	synth_buf_release(&b[1]);
	synth_buf_release(&sb);
	tdr_meta__clear(&meta);
	if (err) {
		fprintf(stderr, "tdr_synth: %s: %s\n", o.path, tdr_strerror(err));
		return 1;
	}
	return 0;
}
