/*
 * tests/recorder_plan/test_plan_output.c - what a plan turns into: the
 * --dry-run text (spot checks of every kind of field), the file metadata
 * (events, notes, TopDown categories), and clean failure when allocations
 * fail at every point.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "plan_int.h"
#include "support/sysfs_test_util.h"
#include "tdrec/format.h"
#include "tdrec/tdr_err.h"
#include "tdrec/tdr_mem.h"

/* tdr_plan__print into a string (caller frees). */
static char *print_plan(const struct tdr_plan *plan)
{
	char *text = NULL;
	size_t sz = 0;
	FILE *f = open_memstream(&text, &sz);

	assert_non_null(f);
	tdr_plan__print(plan, f);
	fclose(f);
	return text;
}

/* The text of event idx: from its "  event N:" line to the next one. */
static char *event_block(char *text, int idx)
{
	char head[32], *start, *end;

	snprintf(head, sizeof(head), "\n  event %d: ", idx);
	start = strstr(text, head);
	assert_non_null(start);
	snprintf(head, sizeof(head), "\n  event %d: ", idx + 1);
	end = strstr(start + 1, head);
	if (!end)
		end = strstr(start + 1, "\ngroup ");
	if (!end)
		end = strstr(start + 1, "\n(attr");
	if (end)
		end[1] = '\0'; /* keep the block's last newline */
	return start;
}

static void has(const char *text, const char *line)
{
	if (!strstr(text, line))
		fail_msg("missing '%s' in:\n%s", line, text);
}

static void has_not(const char *text, const char *line)
{
	if (strstr(text, line))
		fail_msg("unexpected '%s' in:\n%s", line, text);
}

static void test_print__icelake_fields(void **state)
{
	struct tdr_plan_opts o = plan_opts_on("icelake-server");
	struct tdr_plan *plan = NULL;
	char *text, *copy, *ev, line[64];

	(void)state;
	assert_int_equal(tdr_plan__choose(&o, TDR_PLAN_AUTO, &plan), 0);
	text = print_plan(plan);
	has(text, "plan: topdown-l1\n");
	has(text, "note: topdown-l2 not available: the cpu PMU has no topdown-heavy-ops");
	has(text, "group 0: 6 events on 4 CPUs: 0-3\n");

	copy = strdup(text);
	ev = event_block(copy, 0);
	has(ev, "event 0: slots (pmu cpu) leader\n");
	has(ev, "    type                 4 (PMU cpu)\n");
	snprintf(line, sizeof(line), "    size                 %zu\n",
		 sizeof(struct perf_event_attr));
	has(ev, line);
	has(ev, "    config               0x400\n");
	has(ev, "    config1              0x0\n");
	has(ev, "    config2              0x0\n");
	has(ev, "    sample_period        0\n");
	has(ev, "    sample_type          0x10197 (IP|TID|TIME|READ|CPU|PERIOD|IDENTIFIER)\n");
	has(ev, "    read_format          0xf (TOTAL_TIME_ENABLED|TOTAL_TIME_RUNNING|ID|GROUP)\n");
	has(ev, "    disabled             1\n");
	has(ev, "    enable_on_exec       1\n");
	has(ev, "    inherit              1\n");
	has(ev, "    exclude_kernel       1\n");
	has(ev, "    exclude_hv           1\n");
	has(ev, "    sample_id_all        1\n");
	has(ev, "    precise_ip           0\n");
	has(ev, "    wakeup_events        0\n");
	has_not(ev, "mmap");
	has_not(ev, "clockid");
	free(copy);

	copy = strdup(text);
	ev = event_block(copy, 1);
	has(ev, "event 1: cycles (pmu cpu) sampler\n");
	has(ev, "    type                 0 (PERF_TYPE_HARDWARE)\n");
	has(ev, "    config               0x0 (PERF_COUNT_HW_CPU_CYCLES)\n");
	has(ev, "    sample_period        100003\n");
	has(ev, "    mmap                 1\n");
	has(ev, "    mmap2                1\n");
	has(ev, "    comm                 1\n");
	has(ev, "    comm_exec            1\n");
	has(ev, "    task                 1\n");
	has_not(ev, "disabled");
	has_not(ev, "enable_on_exec");
	free(copy);

	copy = strdup(text);
	ev = event_block(copy, 5);
	has(ev, "event 5: topdown-be-bound (pmu cpu)\n");
	has(ev, "    config               0x8300\n");
	has(ev, "    sample_period        0\n");
	has_not(ev, "freq");
	free(copy);
	has(text, "(attr fields not listed are 0)\n");
	free(text);
	tdr_plan__free(plan);
}

static void test_print__options_and_hybrid(void **state)
{
	struct tdr_plan_opts o = plan_opts_on("alderlake-hybrid");
	struct tdr_event_spec spec;
	struct tdr_plan *plan = NULL;
	char *text, *ev;

	(void)state;
	o.sample_period = 0;
	o.sample_freq = 4000;
	o.clockid = CLOCK_MONOTONIC_RAW;
	o.read_lost = true;
	o.kernel = true;
	assert_int_equal(tdr_event_spec__parse("instructions:ppp", &spec), 0);
	o.sampler = &spec;
	assert_int_equal(tdr_plan__choose(&o, TDR_PLAN_AUTO, &plan), 0);
	text = print_plan(plan);
	has(text, "plan: topdown-l2\n");
	has(text, "note: hybrid CPU: TopDown is measured on cpu_core CPUs 0-15 only; "
		  "CPUs 16-23 (cpu_atom) are not measured\n");
	has(text, "group 0: 10 events on 16 CPUs: 0-15\n");
	has_not(text, "exclude_kernel");
	ev = event_block(text, 1);
	has(ev, "event 1: instructions (pmu cpu_core) sampler\n");
	has(ev, "    config               0x400000001 (PMU type 4, PERF_COUNT_HW_INSTRUCTIONS)\n");
	has(ev, "    sample_freq          4000\n");
	has(ev, "    freq                 1\n");
	has(ev, "    precise_ip           3\n");
	has(ev, "    clockid              4 (CLOCK_MONOTONIC_RAW)\n");
	has(ev, "    use_clockid          1\n");
	has(ev, "|GROUP|LOST)\n");
	free(text);
	tdr_plan__free(plan);

	/* software names */
	o = plan_opts_on("vm");
	assert_int_equal(tdr_plan__choose(&o, TDR_PLAN_AUTO, &plan), 0);
	text = print_plan(plan);
	has(text, "event 0: cpu-clock (pmu software) leader sampler\n");
	has(text, "    type                 1 (PERF_TYPE_SOFTWARE)\n");
	has(text, "    config               0x3 (PERF_COUNT_SW_CONTEXT_SWITCHES)\n");
	has(text, "group 0: 4 events on 2 CPUs: 0-1\n");
	free(text);
	tdr_plan__free(plan);
}

static void test_meta__topdown_l2_events_and_categories(void **state)
{
	struct tdr_plan_opts o = plan_opts_on("sapphire-rapids");
	struct tdr_plan *plan = NULL;
	struct tdr_meta meta = {0};

	(void)state;
	assert_int_equal(tdr_plan__choose(&o, TDR_PLAN_AUTO, &plan), 0);
	assert_int_equal(tdr_plan__to_meta(plan, &meta), 0);
	assert_string_equal(meta.plan_name, "topdown-l2");
	assert_int_equal(meta.event_cnt, 10);
	for (size_t i = 0; i < meta.event_cnt; i++) {
		const struct tdr_event_desc *d = &meta.events[i];

		assert_string_equal(d->name, plan->groups[0].events[i].name);
		assert_string_equal(d->pmu_name, "cpu");
		assert_int_equal(d->pmu_type, i == 1 ? PERF_TYPE_HARDWARE : 4);
		assert_int_equal(d->flags, i == 0   ? TDR_EVENT_LEADER
					   : i == 1 ? TDR_EVENT_SAMPLER
						    : 0);
		assert_int_equal(d->group_idx, 0);
		assert_memory_equal(&d->attr, &plan->groups[0].events[i].attr, sizeof(d->attr));
		assert_int_equal(d->attr_disk_sz, sizeof(struct perf_event_attr));
		assert_int_equal(d->id_cnt, 0); /* the session fills ids */
		assert_null(d->ids);
	}
	assert_string_equal(meta.events[0].name, "slots");
	assert_string_equal(meta.events[9].name, "topdown-mem-bound");
	/* 4 level-1 categories, 4 measured and 4 derived level-2 ones */
	assert_int_equal(meta.category_cnt, 12);
	assert_true(meta.sample_period == 100003);
	assert_true(meta.sample_freq == 0);
	assert_int_equal(meta.clockid, -1);
	assert_int_equal(meta.note_cnt, 0);
	tdr_meta__clear(&meta);
	tdr_plan__free(plan);
}

static void test_meta__software_has_notes_and_no_categories(void **state)
{
	struct tdr_plan_opts o = plan_opts_on("vm");
	struct tdr_plan *plan = NULL;
	struct tdr_meta meta = {0};

	(void)state;
	o.sample_period = 0;
	o.sample_freq = 999;
	o.clockid = CLOCK_MONOTONIC;
	assert_int_equal(tdr_plan__choose(&o, TDR_PLAN_AUTO, &plan), 0);
	assert_int_equal(tdr_plan__to_meta(plan, &meta), 0);
	assert_string_equal(meta.plan_name, "software");
	assert_int_equal(meta.event_cnt, 4);
	assert_int_equal(meta.events[0].flags, TDR_EVENT_LEADER | TDR_EVENT_SAMPLER);
	assert_string_equal(meta.events[0].pmu_name, "software");
	assert_int_equal(meta.events[0].pmu_type, PERF_TYPE_SOFTWARE);
	assert_int_equal(meta.category_cnt, 0);
	assert_int_equal(meta.note_cnt, 2);
	assert_string_equal(meta.notes[0], plan->notes[0]);
	assert_string_equal(meta.notes[1], plan->notes[1]);
	assert_true(meta.sample_freq == 999);
	assert_true(meta.sample_period == 0);
	assert_int_equal(meta.clockid, CLOCK_MONOTONIC);
	tdr_meta__clear(&meta);
	tdr_plan__free(plan);
}

static void test_meta__level1_categories(void **state)
{
	struct tdr_plan_opts o = plan_opts_on("icelake-server");
	struct tdr_plan *plan = NULL;
	struct tdr_meta meta = {0};

	(void)state;
	assert_int_equal(tdr_plan__choose(&o, TDR_PLAN_AUTO, &plan), 0);
	assert_int_equal(tdr_plan__to_meta(plan, &meta), 0);
	assert_int_equal(meta.category_cnt, 4);
	assert_int_equal(meta.note_cnt, 1);
	tdr_meta__clear(&meta);
	tdr_plan__free(plan);
}

/* Fail the Nth allocation for N = 0, 1, ... until the call succeeds: every
 * failure must be a clean -ENOMEM, with nothing leaked (ASan checks). */
static void test_fault__choose_and_to_meta(void **state)
{
	static const char *const trees[] = {"alderlake-hybrid", "amd-zen4", "vm"};

	(void)state;
	log_reset();
	for (size_t t = 0; t < sizeof(trees) / sizeof(trees[0]); t++) {
		struct tdr_plan_opts o = plan_opts_on(trees[t]);
		struct tdr_plan *plan = NULL;
		struct tdr_event_spec spec;
		int err = -ENOMEM, n;

		assert_int_equal(tdr_event_spec__parse("cycles", &spec), 0);
		o.sampler = &spec;
		for (n = 0; n < 1000; n++) {
			tdr_mem_fail_after(n);
			err = tdr_plan__choose(&o, TDR_PLAN_AUTO, &plan);
			tdr_mem_fail_after(-1);
			if (!err)
				break;
			assert_int_equal(err, -ENOMEM);
			assert_null(plan);
		}
		assert_int_equal(err, 0);
		assert_true(n > 0);
		for (n = 0; n < 1000; n++) {
			struct tdr_meta meta = {0};

			tdr_mem_fail_after(n);
			err = tdr_plan__to_meta(plan, &meta);
			tdr_mem_fail_after(-1);
			tdr_meta__clear(&meta);
			if (!err)
				break;
			assert_int_equal(err, -ENOMEM);
		}
		assert_int_equal(err, 0);
		assert_true(n > 0);
		tdr_plan__free(plan);
	}
	tdr_plan__free(NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_print__icelake_fields),
	    cmocka_unit_test(test_print__options_and_hybrid),
	    cmocka_unit_test(test_meta__topdown_l2_events_and_categories),
	    cmocka_unit_test(test_meta__software_has_notes_and_no_categories),
	    cmocka_unit_test(test_meta__level1_categories),
	    cmocka_unit_test(test_fault__choose_and_to_meta),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
