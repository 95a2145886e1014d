/*
 * tests/recorder_plan/test_event_spec.c - -e parsing and resolution, sysfs
 * format encoding (split ranges, single bits, config1, aliases), CPU lists,
 * PMU discovery errors.
 *
 * Expected configs are computed by hand from the format strings in the
 * fixture trees (docs/kernel.md "sysfs event and format files"), never from the code's output.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "plan_int.h"
#include "support/sysfs_test_util.h"
#include "tdrec/tdr_err.h"

/* ---- tdr_event_spec__parse ------------------------------------------- */

static void test_spec__parse_table(void **state)
{
	static const struct {
		const char *text;
		enum tdr_event_spec_kind kind;
		const char *name, *terms;
		uint64_t config;
		int precise;
	} ok[] = {
	    {"cycles", TDR_SPEC_NAMED, "cycles", "", 0, 0},
	    {"instructions", TDR_SPEC_NAMED, "instructions", "", 0, 0},
	    {"cpu-clock", TDR_SPEC_NAMED, "cpu-clock", "", 0, 0},
	    {"cycles:p", TDR_SPEC_NAMED, "cycles", "", 0, 1},
	    {"instructions:ppp", TDR_SPEC_NAMED, "instructions", "", 0, 3},
	    {"ref-cycles", TDR_SPEC_NAMED, "ref-cycles", "", 0, 0},
	    {"mem-loads", TDR_SPEC_NAMED, "mem-loads", "", 0, 0},
	    {"r01c2", TDR_SPEC_RAW, "r01c2", "", 0x1c2, 0},
	    {"r3C:pp", TDR_SPEC_RAW, "r3C", "", 0x3c, 2},
	    {"rffffffffffffffff", TDR_SPEC_RAW, "rffffffffffffffff", "", UINT64_MAX, 0},
	    {"cpu/event=0x3c,umask=0x0/", TDR_SPEC_PMU, "cpu", "event=0x3c,umask=0x0", 0, 0},
	    {"cpu/event=0xc0/pp", TDR_SPEC_PMU, "cpu", "event=0xc0", 0, 2},
	    {"cpu/event=0xc0/:p", TDR_SPEC_PMU, "cpu", "event=0xc0", 0, 1},
	    {"cpu_core/mem-loads,ldlat=30/", TDR_SPEC_PMU, "cpu_core", "mem-loads,ldlat=30", 0, 0},
	    {"cpu/event=12,edge/", TDR_SPEC_PMU, "cpu", "event=12,edge", 0, 0},
	};
	static const char *const bad[] = {
	    "",
	    "r",
	    "rxyz",
	    "cpu/",
	    "cycles:q",
	    "cycles:",
	    "cycles:pppp",
	    "cpu//",
	    "/event=1/",
	    "cpu/event=xyz/",
	    "cpu/event=1/q",
	    "cpu/event=1/:",
	    "r12345678901234567",
	    "cy cles",
	    "cpu/event=1,,umask=2/",
	    "cpu/=1/",
	    "cpu/event=/",
	};
	struct tdr_event_spec s;

	(void)state;
	log_reset();
	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		memset(&s, 0xa5, sizeof(s));
		assert_int_equal(tdr_event_spec__parse(ok[i].text, &s), 0);
		assert_int_equal(s.kind, ok[i].kind);
		assert_string_equal(s.name, ok[i].name);
		assert_string_equal(s.terms, ok[i].terms);
		assert_true(s.config == ok[i].config);
		assert_int_equal(s.precise, ok[i].precise);
		assert_string_equal(s.text, ok[i].text);
	}
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		test_log_text[0] = '\0';
		assert_int_equal(tdr_event_spec__parse(bad[i], &s), -TDR_E_USAGE);
		/* One logged reason per refusal, naming the text. */
		assert_non_null(strstr(test_log_text, "invalid event"));
	}
	assert_int_equal(tdr_event_spec__parse(NULL, &s), -TDR_E_USAGE);
}

static void test_spec__parse_too_long(void **state)
{
	char text[400];
	struct tdr_event_spec s;

	(void)state;
	memset(text, 'a', sizeof(text) - 1);
	text[sizeof(text) - 1] = '\0';
	assert_int_equal(tdr_event_spec__parse(text, &s), -TDR_E_USAGE);
	text[64] = '\0'; /* a 64-character name does not fit name[64] */
	assert_int_equal(tdr_event_spec__parse(text, &s), -TDR_E_USAGE);
	text[63] = '\0';
	assert_int_equal(tdr_event_spec__parse(text, &s), 0);
}

/* ---- snapshots ----------------------------------------------------------
 * The plan code reads sysfs once (tdr_sysfs__read) and judges the files
 * when it uses them; these tests open one PMU of a fresh snapshot of root
 * (so a file written since is seen) and free every snapshot at the end. */
static struct tdr_sysfs *snaps[64];
static size_t snap_cnt;

static struct tdr_sysfs *snap_of(const char *root, const char *pmu)
{
	struct tdr_sysfs *s = NULL;

	assert_true(snap_cnt < sizeof(snaps) / sizeof(snaps[0]));
	assert_int_equal(tdr_sysfs__read(root, pmu, &s), 0);
	snaps[snap_cnt++] = s;
	return s;
}

static int pmu_open(const char *root, const char *name, struct tdr_pmu *pmu)
{
	return tdr_pmu__open(snap_of(root, name), name, pmu);
}

static int snaps_free(void **state)
{
	(void)state;
	while (snap_cnt)
		tdr_sysfs__free(snaps[--snap_cnt]);
	return 0;
}

/* ---- format encoding through real fixture files ---------------------- */

static void encode_ok(const struct tdr_pmu *pmu, const char *terms, uint64_t config,
		      uint64_t config1)
{
	struct perf_event_attr a = {0};

	assert_int_equal(tdr_pmu__encode(pmu, terms, &a), 0);
	if (a.config != config || a.config1 != config1)
		fail_msg("%s: config 0x%llx config1 0x%llx, want 0x%llx 0x%llx", terms,
			 (unsigned long long)a.config, (unsigned long long)a.config1,
			 (unsigned long long)config, (unsigned long long)config1);
	assert_true(a.config2 == 0);
}

static void test_encode__intel_formats(void **state)
{
	struct tdr_pmu cpu;

	(void)state;
	log_reset();
	assert_int_equal(pmu_open(fixture("icelake-server"), "cpu", &cpu), 0);
	assert_int_equal(cpu.type, 4);
	assert_string_equal(cpu.name, "cpu");
	/* event config:0-7, umask config:8-15 */
	encode_ok(&cpu, "event=0x00,umask=0x4", 0x400, 0);
	encode_ok(&cpu, "event=0x00,umask=0x83", 0x8300, 0);
	/* any is the single bit config:21; a term without a value means 1 */
	encode_ok(&cpu, "event=0x3c,any=1", 0x20003c, 0);
	encode_ok(&cpu, "event=0x3c,any", 0x20003c, 0);
	/* cmask config:24-31, edge config:18, inv config:23 */
	encode_ok(&cpu, "event=0xd,umask=0x3,cmask=1", 0x0100030d, 0);
	encode_ok(&cpu, "event=0xc2,edge,inv", 0x8400c2, 0);
	/* ldlat config1:0-15, frontend config1:0-23, offcore_rsp config1:0-63 */
	encode_ok(&cpu, "event=0xcd,umask=0x1,ldlat=3", 0x1cd, 3);
	encode_ok(&cpu, "frontend=0x400406", 0, 0x400406);
	encode_ok(&cpu, "offcore_rsp=0xffffffffffffffff", 0, UINT64_MAX);
	/* an event alias used as a term expands to its sysfs string */
	encode_ok(&cpu, "mem-loads", 0x1cd, 3);
	/* the raw config words without a format file */
	encode_ok(&cpu, "config=0x1234,config1=7", 0x1234, 7);
}

static void test_encode__errors_name_the_term(void **state)
{
	struct tdr_pmu cpu;
	struct perf_event_attr a = {0};

	(void)state;
	assert_int_equal(pmu_open(fixture("icelake-server"), "cpu", &cpu), 0);
	log_reset();
	assert_int_equal(tdr_pmu__encode(&cpu, "event=0x3c,bogus=1", &a), -ENOENT);
	assert_non_null(strstr(test_log_text, "'bogus'"));
	log_reset();
	/* umask is 8 bits wide */
	assert_int_equal(tdr_pmu__encode(&cpu, "umask=0x100", &a), -EINVAL);
	assert_non_null(strstr(test_log_text, "umask"));
	assert_int_equal(tdr_pmu__encode(&cpu, "event=256", &a), -EINVAL);
	assert_int_equal(tdr_pmu__encode(&cpu, "event=0x3c,,umask=1", &a), -EINVAL);
	assert_int_equal(tdr_pmu__encode(&cpu, "event=0xzz", &a), -EINVAL);
	assert_int_equal(tdr_pmu__encode(&cpu, "", &a), -EINVAL);
	/* a .scale file is not an event */
	assert_false(tdr_pmu__has_event(&cpu, "slots.scale"));
	assert_true(tdr_pmu__has_event(&cpu, "slots"));
	assert_false(tdr_pmu__has_event(&cpu, "../type"));
}

static void test_encode__amd_split_range(void **state)
{
	struct tdr_pmu cpu;
	struct perf_event_attr a = {0};

	(void)state;
	log_reset();
	assert_int_equal(pmu_open(fixture("amd-zen4"), "cpu", &cpu), 0);
	/* event = config:0-7,32-35: value bits 0-7 at 0-7, bits 8-11 at 32-35 */
	encode_ok(&cpu, "event=0x1a0", 0x1000000a0ull, 0);
	encode_ok(&cpu, "event=0xfff,umask=0x1", 0xf000001ffull, 0);
	encode_ok(&cpu, "event=0x76", 0x76, 0);
	assert_int_equal(tdr_pmu__encode(&cpu, "event=0x1000", &a), -EINVAL);
	/* AMD has no any term */
	assert_int_equal(tdr_pmu__encode(&cpu, "event=0x76,any=1", &a), -ENOENT);
}

static void test_encode__bad_format_files(void **state)
{
	static const char *const broken[] = {"config3:0-7", "config:8-", "config:70",
					     "config:5-3",  "config:",	 "conf:0-7",
					     "config:1,,2", ""};
	const char *root = tree_new();
	char rootc[64];
	struct tdr_pmu pmu;
	struct perf_event_attr a = {0};

	(void)state;
	log_reset();
	strcpy(rootc, root);
	tree_write(rootc, "bus/event_source/devices/x/type", "30\n");
	tree_write(rootc, "bus/event_source/devices/x/format/lo", "config2:0-3,60-63\n");
	assert_int_equal(pmu_open(rootc, "x", &pmu), 0);
	assert_int_equal(pmu.type, 30);
	assert_int_equal(tdr_pmu__encode(&pmu, "lo=0xab", &a), 0);
	assert_true(a.config2 == 0xa00000000000000bull);
	for (size_t i = 0; i < sizeof(broken) / sizeof(broken[0]); i++) {
		tree_write(rootc, "bus/event_source/devices/x/format/t", broken[i]);
		assert_int_equal(pmu_open(rootc, "x", &pmu), 0);
		test_log_text[0] = '\0';
		assert_int_equal(tdr_pmu__encode(&pmu, "t=1", &a), -TDR_E_CORRUPT);
		assert_non_null(strstr(test_log_text, "format"));
	}
	tree_rm(rootc);
}

static void test_pmu__open_errors(void **state)
{
	const char *root = tree_new();
	char rootc[64];
	struct tdr_pmu pmu;

	(void)state;
	log_reset();
	strcpy(rootc, root);
	tree_write(rootc, "bus/event_source/devices/words/type", "four\n");
	tree_write(rootc, "bus/event_source/devices/empty/type", "");
	tree_write(rootc, "bus/event_source/devices/notype/format/event", "config:0-7\n");
	assert_int_equal(pmu_open(rootc, "words", &pmu), -TDR_E_CORRUPT);
	assert_non_null(strstr(test_log_text, "'four' is not a number"));
	assert_int_equal(pmu_open(rootc, "empty", &pmu), -TDR_E_CORRUPT);
	assert_int_equal(pmu_open(rootc, "notype", &pmu), -TDR_E_CORRUPT);
	assert_int_equal(pmu_open(rootc, "absent", &pmu), -ENOENT);
	assert_int_equal(pmu_open(rootc, "..", &pmu), -ENOENT);
	tree_rm(rootc);
	/* the damaged fixture: type is a directory */
	assert_int_equal(pmu_open(fixture("broken-type"), "cpu", &pmu), -TDR_E_CORRUPT);
	/* the software PMU exists with type 1 and has no events directory */
	assert_int_equal(pmu_open(fixture("vm"), "software", &pmu), 0);
	assert_int_equal(pmu.type, PERF_TYPE_SOFTWARE);
	assert_false(tdr_pmu__has_event(&pmu, "cpu-clock"));
	assert_int_equal(pmu_open(fixture("vm"), "cpu", &pmu), -ENOENT);
}

/* ---- CPU lists -------------------------------------------------------- */

static void test_cpulist__parse_and_format(void **state)
{
	static const struct {
		const char *text;
		size_t cnt;
		int first, last;
		const char *back;
	} ok[] = {
	    {"0-3,8,10-11\n", 7, 0, 11, "0-3,8,10-11"},
	    {"0", 1, 0, 0, "0"},
	    {"16-23\n", 8, 16, 23, "16-23"},
	    {"5,3,3,4", 3, 3, 5, "3-5"},
	    {"0-65535", 65536, 0, 65535, "0-65535"},
	};
	static const char *const bad[] = {"a",	"1-",	 "-1",	   "3-1", "1,,2",
					  "1,", "65536", "0-3\n4", "1 2"};
	int *cpus;
	size_t cnt;
	char buf[64];

	(void)state;
	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		assert_int_equal(tdr_cpulist__parse(ok[i].text, &cpus, &cnt), 0);
		assert_int_equal(cnt, ok[i].cnt);
		assert_int_equal(cpus[0], ok[i].first);
		assert_int_equal(cpus[cnt - 1], ok[i].last);
		tdr_cpulist__format(cpus, cnt, buf, sizeof(buf));
		assert_string_equal(buf, ok[i].back);
		free(cpus);
	}
	assert_int_equal(tdr_cpulist__parse("\n", &cpus, &cnt), 0);
	assert_int_equal(cnt, 0);
	assert_null(cpus);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_int_equal(tdr_cpulist__parse(bad[i], &cpus, &cnt), -TDR_E_CORRUPT);
}

static void test_cpulist__online_from_fixture(void **state)
{
	int *cpus;
	size_t cnt;

	(void)state;
	assert_int_equal(tdr_sysfs__online_cpus(snap_of(fixture("alderlake-hybrid"), NULL), &cpus,
						&cnt),
			 0);
	assert_int_equal(cnt, 24);
	assert_int_equal(cpus[23], 23);
	free(cpus);
	log_reset();
	assert_int_equal(tdr_sysfs__online_cpus(snap_of("/nonexistent", NULL), &cpus, &cnt),
			 -ENOENT);
	assert_non_null(strstr(test_log_text, "online"));
}

/* ---- resolving a spec against a machine ------------------------------- */

struct resolve_case {
	const char *tree, *text;
	int err;
	uint32_t type;
	uint64_t config, config1;
	int precise;
	const char *name, *pmu;
};

static void test_spec__resolve_table(void **state)
{
	static const struct resolve_case cases[] = {
	    /* generic names: PERF_TYPE_HARDWARE / PERF_TYPE_SOFTWARE */
	    {"icelake-server", "cycles", 0, PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, 0, 0,
	     "cycles", "cpu"},
	    {"icelake-server", "instructions:pp", 0, PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS,
	     0, 2, "instructions", "cpu"},
	    {"icelake-server", "branch-misses", 0, PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_MISSES,
	     0, 0, "branch-misses", "cpu"},
	    {"icelake-server", "cache-misses", 0, PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_MISSES, 0,
	     0, "cache-misses", "cpu"},
	    {"icelake-server", "cpu-clock", 0, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK, 0, 0,
	     "cpu-clock", "software"},
	    {"vm", "task-clock", 0, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK, 0, 0,
	     "task-clock", "software"},
	    /* hybrid: the cpu_core type (4) in config bits 32-63 */
	    {"alderlake-hybrid", "cycles", 0, PERF_TYPE_HARDWARE, 0x400000000ull, 0, 0, "cycles",
	     "cpu_core"},
	    {"alderlake-hybrid", "instructions", 0, PERF_TYPE_HARDWARE, 0x400000001ull, 0, 0,
	     "instructions", "cpu_core"},
	    {"alderlake-hybrid", "cpu-clock", 0, PERF_TYPE_SOFTWARE, 0, 0, 0, "cpu-clock",
	     "software"},
	    /* raw: the core PMU's type */
	    {"icelake-server", "r01c2", 0, 4, 0x1c2, 0, 0, "r01c2", "cpu"},
	    {"alderlake-hybrid", "r01c2:p", 0, 4, 0x1c2, 0, 1, "r01c2", "cpu_core"},
	    {"vm", "r01c2", 0, PERF_TYPE_RAW, 0x1c2, 0, 0, "r01c2", "cpu"},
	    /* sysfs names of the core PMU */
	    {"icelake-server", "mem-loads", 0, 4, 0x1cd, 3, 0, "mem-loads", "cpu"},
	    {"alderlake-hybrid", "topdown-retiring", 0, 4, 0x8000, 0, 0, "topdown-retiring",
	     "cpu_core"},
	    /* PMU/terms/ through that PMU's format files */
	    {"icelake-server", "cpu/event=0x3c,umask=0x0/", 0, 4, 0x3c, 0, 0,
	     "cpu/event=0x3c,umask=0x0/", "cpu"},
	    {"icelake-server", "cpu/event=0xc0/pp", 0, 4, 0xc0, 0, 2, "cpu/event=0xc0/", "cpu"},
	    {"alderlake-hybrid", "cpu_atom/event=0xc2,umask=0x0/", 0, 10, 0xc2, 0, 0,
	     "cpu_atom/event=0xc2,umask=0x0/", "cpu_atom"},
	    {"amd-zen4", "cpu/event=0x1a0/", 0, 4, 0x1000000a0ull, 0, 0, "cpu/event=0x1a0/", "cpu"},
	    {"icelake-server", "power/energy-pkg/", 0, 21, 0x02, 0, 0, "power/energy-pkg/",
	     "power"},
	    /* errors */
	    {"icelake-server", "nosuch", -TDR_E_USAGE, 0, 0, 0, 0, NULL, NULL},
	    {"vm", "mem-loads", -TDR_E_USAGE, 0, 0, 0, 0, NULL, NULL},
	    {"icelake-server", "cpu/nosuch=1/", -TDR_E_USAGE, 0, 0, 0, 0, NULL, NULL},
	    {"icelake-server", "cpu/umask=0x100/", -TDR_E_USAGE, 0, 0, 0, 0, NULL, NULL},
	    {"alderlake-hybrid", "cpu/event=0x3c/", -TDR_E_USAGE, 0, 0, 0, 0, NULL, NULL},
	    {"vm", "nopmu/event=1/", -TDR_E_USAGE, 0, 0, 0, 0, NULL, NULL},
	    {"broken-type", "cpu/event=1/", -TDR_E_CORRUPT, 0, 0, 0, 0, NULL, NULL},
	};

	(void)state;
	log_reset();
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct resolve_case *c = &cases[i];
		struct tdr_plan_env env = {.root = fixture(c->tree)};
		struct tdr_plan_event ev = {0};
		struct tdr_event_spec spec;
		char root[4096];

		strcpy(root, env.root);
		env.root = root;
		assert_int_equal(tdr_event_spec__parse(c->text, &spec), 0);
		/* the env the plan code would build: one snapshot with the PMU
		 * -e names, then cpu_core first, then cpu */
		env.sys = snap_of(root, spec.kind == TDR_SPEC_PMU ? spec.name : NULL);
		if (!tdr_pmu__open(env.sys, "cpu_core", &env.core))
			env.has_core = env.hybrid = true;
		else if (!tdr_pmu__open(env.sys, "cpu", &env.core))
			env.has_core = true;
		if (tdr_event_spec__resolve(&spec, &env, &ev) != c->err)
			fail_msg("%s on %s: want %d", c->text, c->tree, c->err);
		if (c->err)
			continue;
		if (ev.attr.type != c->type || ev.attr.config != c->config ||
		    ev.attr.config1 != c->config1 || ev.attr.precise_ip != (unsigned)c->precise)
			fail_msg("%s on %s: type %u config 0x%llx config1 0x%llx precise %u",
				 c->text, c->tree, ev.attr.type, (unsigned long long)ev.attr.config,
				 (unsigned long long)ev.attr.config1, (unsigned)ev.attr.precise_ip);
		assert_string_equal(ev.name, c->name);
		assert_string_equal(ev.pmu_name, c->pmu);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_teardown(test_spec__parse_table, snaps_free),
	    cmocka_unit_test_teardown(test_spec__parse_too_long, snaps_free),
	    cmocka_unit_test_teardown(test_encode__intel_formats, snaps_free),
	    cmocka_unit_test_teardown(test_encode__errors_name_the_term, snaps_free),
	    cmocka_unit_test_teardown(test_encode__amd_split_range, snaps_free),
	    cmocka_unit_test_teardown(test_encode__bad_format_files, snaps_free),
	    cmocka_unit_test_teardown(test_pmu__open_errors, snaps_free),
	    cmocka_unit_test_teardown(test_cpulist__parse_and_format, snaps_free),
	    cmocka_unit_test_teardown(test_cpulist__online_from_fixture, snaps_free),
	    cmocka_unit_test_teardown(test_spec__resolve_table, snaps_free),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
