/*
 * tests/recorder/test_machine.c - the recording's CPU facts from a fake
 * /proc (runtime/machine.c through tdrec/cpuid.h).
 *
 * An x86 /proc/cpuinfo with two CPUs and a flags line longer than any line
 * buffer gives the first CPU's vendor, family, model, stepping and model
 * name; an arm64 one (no vendor_id) gives the MIDR in perf's CPUID form,
 * rebuilt by hand below from its fields.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "tdrec/format.h"
#include "tdrec/runtime.h"

static char root[64];

static void write_cpuinfo(const char *text)
{
	char path[128];
	FILE *f;

	snprintf(root, sizeof(root), "/tmp/tdr_machine_XXXXXX");
	assert_non_null(mkdtemp(root));
	snprintf(path, sizeof(path), "%s/cpuinfo", root);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static void remove_root(void)
{
	char path[128];

	snprintf(path, sizeof(path), "%s/cpuinfo", root);
	unlink(path);
	rmdir(root);
}

static void test_machine__x86_first_cpu(void **state)
{
	struct tdr_meta m = {0};
	char *text = malloc(8192);
	size_t len;

	(void)state;
	assert_non_null(text);
	len = (size_t)snprintf(text, 8192,
			       "processor\t: 0\nvendor_id\t: AuthenticAMD\ncpu family\t: 25\n"
			       "model\t\t: 17\nmodel name\t: AMD EPYC 9654 96-Core Processor\n"
			       "stepping\t: 1\nflags\t\t:");
	/* A flags line of 3000 bytes. */
	while (len < 3000)
		len += (size_t)snprintf(text + len, 8192 - len, " avx512f");
	snprintf(text + len, 8192 - len,
		 "\n\nprocessor\t: 1\nvendor_id\t: GenuineIntel\ncpu family\t: 6\n"
		 "model\t\t: 85\nmodel name\t: other\nstepping\t: 7\n\n");
	write_cpuinfo(text);
	free(text);
	assert_int_equal(tdr_machine__fill(&m, root), 0);
	remove_root();
	assert_string_equal(m.cpu_vendor, "AuthenticAMD");
	assert_int_equal(m.cpu_family, 25);
	assert_int_equal(m.cpu_model, 17);
	assert_int_equal(m.cpu_stepping, 1);
	assert_string_equal(m.cpu_model_name, "AMD EPYC 9654 96-Core Processor");
	tdr_meta__clear(&m);
}

static void test_machine__arm64_midr(void **state)
{
	struct tdr_meta m = {0};

	(void)state;
	/* Neoverse V2: implementer 0x41, variant 0, architecture 0xf (by
	 * CPUID scheme), part 0xd4f, revision 0: 0x410fd4f0. */
	write_cpuinfo("processor\t: 0\nBogoMIPS\t: 2000.00\nFeatures\t: fp asimd\n"
		      "CPU implementer\t: 0x41\nCPU architecture: 8\nCPU variant\t: 0x0\n"
		      "CPU part\t: 0xd4f\nCPU revision\t: 0\n\n");
	assert_int_equal(tdr_machine__fill(&m, root), 0);
	remove_root();
	assert_string_equal(m.cpu_vendor, "0x00000000410fd4f0");
	assert_int_equal(m.cpu_family, 0);
	assert_int_equal(m.cpu_model, 0);
	assert_null(m.cpu_model_name);
	tdr_meta__clear(&m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_machine__x86_first_cpu),
	    cmocka_unit_test(test_machine__arm64_midr),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
