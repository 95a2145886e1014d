/*
 * tests/format/dump_frames.c - write the raw records of every frame of a .tdr
 * file to stdout, in file order, as tdrec's reader decodes them.
 *
 * usage: dump_frames FILE. Frames that fail to load are left out. Test helper
 * only: tests/format/independent_reader.py compares these bytes with its own
 * decoding, made from docs/format.md alone. Exit 0, or 1 when the file cannot
 * be opened.
 */
#include <stdio.h>

#include "tdrec/format.h"

int main(int argc, char **argv)
{
	struct tdr_frame_buf buf = { 0 };
	struct tdr_reader *r;

	if (argc != 2 || tdr_reader__open(argv[1], &r))
		return 1;
	for (size_t i = 0; i < tdr_reader__frame_cnt(r); i++)
		if (!tdr_reader__load_frame(r, i, &buf))
			fwrite(buf.data, 1, buf.sz, stdout);
	tdr_frame_buf__release(&buf);
	tdr_reader__free(r);
	return 0;
}
