/*
 * tests/libtdrec/outside.c - an outside program using libtdrec as
 * installed (install_test.sh builds it with pkg-config against a
 * temporary prefix): the public header only, one region ten times.
 * Exit 0 when the region counted ten pairs.
 */
#include <stdio.h>
#include <string.h>

#include <tdrec/regions.h>

/* Work the compiler must keep. */
static volatile unsigned long sink;

int main(void)
{
	struct tdr_regions *rs;
	struct tdr_regions_thread *t;
	struct tdr_region_value v;
	int id, err = tdr_regions__open(NULL, &rs);

	if (err) {
		fprintf(stderr, "outside: open: %s\n", strerror(-err));
		return 1;
	}
	id = tdr_regions__region(rs, "outside");
	err = tdr_regions__thread_open(rs, &t);
	if (err || id < 0) {
		fprintf(stderr, "outside: thread: %s\n", strerror(-err));
		return 1;
	}
	for (int i = 0; i < 10; i++) {
		tdr_regions_thread__begin(t, id);
		for (int k = 0; k < 100000; k++)
			sink += (unsigned long)k;
		tdr_regions_thread__end(t, id);
	}
	tdr_regions_thread__read(t, id, &v);
	printf("outside: family %s, %llu pairs, %s %llu\n", tdr_regions__family(rs),
	       (unsigned long long)v.count, tdr_regions__event_name(rs, 0),
	       (unsigned long long)v.events[0]);
	tdr_regions_thread__close(t);
	tdr_regions__free(rs);
	return v.count == 10 && v.events[0] > 0 ? 0 : 1;
}
