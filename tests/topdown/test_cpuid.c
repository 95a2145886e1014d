/*
 * tests/topdown/test_cpuid.c - a CPU's identity from perf's CPUID string
 * and from /proc/cpuinfo (tdrec/cpuid.h).
 *
 * The strings are those perf writes (the perf.data CPUID header of this
 * VM reads "AuthenticAMD,25,17,1") and the /proc/cpuinfo layouts of x86
 * and arm64 kernels; anything else is refused whole.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "tdrec/cpuid.h"

static void test_cpuid__perf_comma_form(void **state)
{
	struct tdr_cpuid c;
	char buf[64];

	(void)state;
	assert_int_equal(tdr_cpuid_parse("AuthenticAMD,25,17,1", &c), 0);
	assert_true(c.known);
	assert_string_equal(c.vendor, "AuthenticAMD");
	assert_int_equal(c.family, 25);
	assert_int_equal(c.model, 17);
	assert_int_equal(c.stepping, 1);
	assert_int_equal(c.midr, 0);
	tdr_cpuid_format(&c, buf, sizeof(buf));
	assert_string_equal(buf, "AuthenticAMD,25,17,1");
	/* Hex with 0x, a trailing '$' or newline. */
	assert_int_equal(tdr_cpuid_parse("GenuineIntel,6,0x55,7$\n", &c), 0);
	assert_int_equal(c.model, 0x55);
	assert_int_equal(c.stepping, 7);
}

static void test_cpuid__perf_dash_form_is_hex(void **state)
{
	struct tdr_cpuid c;

	(void)state;
	/* perf's event-table key: family decimal, model and stepping hex. */
	assert_int_equal(tdr_cpuid_parse("GenuineIntel-6-55-7", &c), 0);
	assert_string_equal(c.vendor, "GenuineIntel");
	assert_int_equal(c.family, 6);
	assert_int_equal(c.model, 0x55);
	assert_int_equal(c.stepping, 7);
	assert_int_equal(tdr_cpuid_parse("AuthenticAMD-26-2-0", &c), 0);
	assert_int_equal(c.family, 26);
	assert_int_equal(c.model, 2);
}

static void test_cpuid__arm64_midr(void **state)
{
	struct tdr_cpuid c;
	char buf[64];

	(void)state;
	assert_int_equal(tdr_cpuid_parse("0x00000000410fd4f0", &c), 0);
	assert_string_equal(c.vendor, "ARM");
	assert_int_equal(tdr_cpuid_arm_implementer(&c), 0x41);
	assert_int_equal(tdr_cpuid_arm_part(&c), 0xd4f);
	tdr_cpuid_format(&c, buf, sizeof(buf));
	assert_string_equal(buf, "0x00000000410fd4f0");
	assert_int_equal(tdr_cpuid_parse("0x510f8000", &c), 0);
	assert_string_equal(c.vendor, "arm64"); /* another implementer */
}

static void test_cpuid__bad_strings_refused_whole(void **state)
{
	static const char *const bad[] = {
	    "",	 "GenuineIntel",	 "GenuineIntel,6,85",	    "GenuineIntel,6,85,7,1",
	    ",6,85,7", "GenuineIntel,6,8x5,7", "GenuineIntel,,85,7", "GenuineIntel,6,85,",
	    "GenuineIntel,99999999999,85,7", "0x",  "0xfffffffffffffffff",
	    "AVeryLongVendorName,6,85,7",
	};
	struct tdr_cpuid c;

	(void)state;
	assert_int_equal(tdr_cpuid_parse(NULL, &c), -EINVAL);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		memset(&c, 0x55, sizeof(c));
		if (tdr_cpuid_parse(bad[i], &c) != -EINVAL)
			fail_msg("accepted '%s'", bad[i]);
		assert_false(c.known);
		assert_string_equal(c.vendor, "");
	}
}

static void test_cpuid__x86_cpuinfo_first_cpu(void **state)
{
	static const char text[] = "processor\t: 0\n"
				   "vendor_id\t: GenuineIntel\n"
				   "cpu family\t: 6\n"
				   "model\t\t: 143\n"
				   "model name\t: Intel(R) Xeon(R) Platinum 8480+\n"
				   "stepping\t: 8\n"
				   "\n"
				   "processor\t: 1\n"
				   "vendor_id\t: AuthenticAMD\n"
				   "cpu family\t: 25\n";
	struct tdr_cpuid c;

	(void)state;
	assert_int_equal(tdr_cpuid_from_cpuinfo(text, &c), 0);
	assert_string_equal(c.vendor, "GenuineIntel");
	assert_int_equal(c.family, 6);
	assert_int_equal(c.model, 143); /* "model name" is another key */
	assert_int_equal(c.stepping, 8);
}

static void test_cpuid__arm64_cpuinfo_makes_midr(void **state)
{
	/* Neoverse V2 r0p1 as an arm64 kernel prints it. */
	static const char text[] = "processor\t: 0\n"
				   "BogoMIPS\t: 2000.00\n"
				   "Features\t: fp asimd evtstrm\n"
				   "CPU implementer\t: 0x41\n"
				   "CPU architecture: 8\n"
				   "CPU variant\t: 0x0\n"
				   "CPU part\t: 0xd4f\n"
				   "CPU revision\t: 1\n";
	struct tdr_cpuid c;

	(void)state;
	assert_int_equal(tdr_cpuid_from_cpuinfo(text, &c), 0);
	assert_int_equal(c.midr, 0x410fd4f1);
	assert_string_equal(c.vendor, "ARM");
	assert_int_equal(tdr_cpuid_arm_part(&c), 0xd4f);
	assert_int_equal(tdr_cpuid_from_cpuinfo("processor\t: 0\n", &c), -ENOENT);
	assert_false(c.known);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_cpuid__perf_comma_form),
	    cmocka_unit_test(test_cpuid__perf_dash_form_is_hex),
	    cmocka_unit_test(test_cpuid__arm64_midr),
	    cmocka_unit_test(test_cpuid__bad_strings_refused_whole),
	    cmocka_unit_test(test_cpuid__x86_cpuinfo_first_cpu),
	    cmocka_unit_test(test_cpuid__arm64_cpuinfo_makes_midr),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
