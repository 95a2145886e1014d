/*
 * tests/plan/plan_want.h - the expected perf_event_attrs of plan tests,
 * written out by hand, and the checks that compare a built group with
 * them field by field (shared by test_plan.c and test_plan_generic.c).
 */
#ifndef TDREC_TESTS_PLAN_WANT_H
#define TDREC_TESTS_PLAN_WANT_H

#define ST                                                                                         \
	(PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU |                   \
	 PERF_SAMPLE_PERIOD | PERF_SAMPLE_READ | PERF_SAMPLE_IDENTIFIER)
#define RF                                                                                         \
	(PERF_FORMAT_GROUP | PERF_FORMAT_ID | PERF_FORMAT_TOTAL_TIME_ENABLED |                     \
	 PERF_FORMAT_TOTAL_TIME_RUNNING)
#define PERIOD PLAN_TEST_PERIOD

/* Every member of a sampling plan under plan_opts_on(). */
#define MEMBER                                                                                     \
	.size = sizeof(struct perf_event_attr), .sample_type = ST, .read_format = RF,              \
	.inherit = 1, .exclude_kernel = 1, .exclude_hv = 1, .sample_id_all = 1
/* The leader gates the group for a launched program. */
#define LEADER .disabled = 1, .enable_on_exec = 1
/* The sampler alone has a period and asks for side-band records. */
#define SAMPLER .sample_period = PERIOD, .mmap = 1, .mmap2 = 1, .comm = 1, .comm_exec = 1, .task = 1
/* A member of a counting plan (tdrec stat) under plan_opts_on() + counting. */
#define COUNTER                                                                                    \
	.size = sizeof(struct perf_event_attr), .read_format = RF, .inherit = 1,                   \
	.exclude_kernel = 1, .exclude_hv = 1

struct want {
	const char *name, *pmu;
	uint32_t flags;
	struct perf_event_attr attr;
};

#define L TDR_EVENT_LEADER
#define S TDR_EVENT_SAMPLER

static uint64_t attr_bits(const struct perf_event_attr *a)
{
	uint64_t v;

	memcpy(&v, (const char *)a + offsetof(struct perf_event_attr, read_format) + 8, sizeof(v));
	return v;
}

static void check_attr(const char *name, const struct perf_event_attr *got,
		       const struct perf_event_attr *want)
{
#define CMP(f)                                                                                     \
	if ((uint64_t)got->f != (uint64_t)want->f)                                                 \
		fail_msg("%s: " #f " = 0x%llx, want 0x%llx", name, (unsigned long long)got->f,     \
			 (unsigned long long)want->f);
	CMP(type);
	CMP(size);
	CMP(config);
	CMP(config1);
	CMP(config2);
	CMP(sample_period);
	CMP(sample_type);
	CMP(read_format);
	CMP(precise_ip);
	CMP(clockid);
	CMP(wakeup_events);
	if (attr_bits(got) != attr_bits(want))
		fail_msg("%s: bit fields 0x%llx, want 0x%llx", name,
			 (unsigned long long)attr_bits(got), (unsigned long long)attr_bits(want));
	if (memcmp(got, want, sizeof(*got)))
		fail_msg("%s: attrs differ beyond the checked fields", name);
#undef CMP
}

/* The first n members of g are want[0..n-1]. */
static void check_members(const struct tdr_plan_group *g, const struct want *want, size_t n)
{
	assert_true(g->event_cnt >= n);
	for (size_t i = 0; i < n; i++) {
		assert_string_equal(g->events[i].name, want[i].name);
		assert_string_equal(g->events[i].pmu_name, want[i].pmu);
		assert_int_equal(g->events[i].flags, want[i].flags);
		check_attr(want[i].name, &g->events[i].attr, &want[i].attr);
	}
}

#endif /* TDREC_TESTS_PLAN_WANT_H */
