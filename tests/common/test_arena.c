/*
 * tests/common/test_arena.c - the chunk allocator and the string interner.
 *
 * Alignment, big requests beside the current chunk, identity of interned
 * strings (also from unterminated input), and every allocation failure.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "tdrec/tdr_arena.h"
#include "tdrec/tdr_mem.h"

static void test_arena__aligned_and_big_requests(void **state)
{
	struct tdr_arena a = {0};
	char *p, *q, *big, *r;

	(void)state;
	p = tdr_arena__alloc(&a, 3);
	q = tdr_arena__alloc(&a, 1);
	assert_non_null(p);
	assert_non_null(q);
	assert_int_equal((uintptr_t)p % 8, 0);
	assert_int_equal((uintptr_t)q % 8, 0);
	assert_ptr_equal(q, p + 8);
	/* Bigger than a chunk: a chunk of its own; the current one goes on. */
	big = tdr_arena__alloc(&a, 3 * TDR_ARENA_CHUNK_SZ);
	assert_non_null(big);
	memset(big, 1, 3 * TDR_ARENA_CHUNK_SZ);
	r = tdr_arena__alloc(&a, 8);
	assert_ptr_equal(r, q + 8);
	assert_string_equal(tdr_arena__strndup(&a, "abcdef", 3), "abc");
	assert_string_equal(tdr_arena__strdup(&a, "xyz"), "xyz");
	/* Many small ones cross chunk boundaries. */
	for (int i = 0; i < 20000; i++)
		assert_non_null(tdr_arena__alloc(&a, 40));
	assert_null(tdr_arena__alloc(&a, SIZE_MAX - 2));
	tdr_arena__fini(&a);
	tdr_arena__fini(&a); /* twice: a no-op */
}

static void test_arena__allocation_failure(void **state)
{
	struct tdr_arena a = {0};

	(void)state;
	tdr_mem_fail_after(0);
	assert_null(tdr_arena__alloc(&a, 10));
	assert_null(tdr_arena__strdup(&a, "x"));
	tdr_mem_fail_after(-1);
	assert_non_null(tdr_arena__alloc(&a, 10));
	tdr_arena__fini(&a);
}

static void test_intern__same_string_same_pointer(void **state)
{
	struct tdr_intern t = {0};
	const char buf[] = {'a', 'b', 'c', 'd'}; /* not terminated */
	const char *ab, *abc, *ab2, *empty;
	char name[32];

	(void)state;
	ab = tdr_intern__strn(&t, buf, 2);
	abc = tdr_intern__strn(&t, buf, 3);
	ab2 = tdr_intern__str(&t, "ab");
	empty = tdr_intern__str(&t, "");
	assert_string_equal(ab, "ab");
	assert_string_equal(abc, "abc");
	assert_ptr_equal(ab, ab2);
	assert_ptr_not_equal(ab, abc); /* a prefix is another string */
	assert_string_equal(empty, "");
	assert_ptr_equal(tdr_intern__str(&t, ""), empty);
	for (int i = 0; i < 5000; i++) {
		snprintf(name, sizeof(name), "sym_%d", i);
		assert_non_null(tdr_intern__str(&t, name));
	}
	assert_int_equal(tdr_intern__cnt(&t), 5003); /* ab, abc, "", 5000 */
	for (int i = 0; i < 5000; i++) {
		const char *p;

		snprintf(name, sizeof(name), "sym_%d", i);
		p = tdr_intern__str(&t, name);
		assert_string_equal(p, name);
		assert_ptr_equal(p, t.ents[3 + i].s); /* interning order kept */
	}
	assert_ptr_equal(tdr_intern__str(&t, "abc"), abc);
	/* The index is the interning order; the same bytes, the same index. */
	assert_int_equal(tdr_intern__idx(&t, buf, 2), 0);
	assert_int_equal(tdr_intern__idx(&t, "abc", 3), 1);
	assert_int_equal(tdr_intern__idx(&t, "sym_7", 5), 3 + 7);
	assert_int_equal(tdr_intern__idx(&t, "new", 3), 5003);
	assert_string_equal(tdr_intern__at(&t, 5003), "new");
	assert_ptr_equal(tdr_intern__at(&t, 1), abc);
	tdr_intern__fini(&t);
}

static void test_intern__allocation_failure(void **state)
{
	char name[32];

	(void)state;
	for (long n = 0;; n++) {
		struct tdr_intern t = {0};
		const char *p = "";
		int i;

		tdr_mem_fail_after(n);
		for (i = 0; i < 300 && p; i++) {
			snprintf(name, sizeof(name), "s%d", i);
			/* Half through the index form: UINT32_MAX on failure. */
			if (i % 2) {
				uint32_t idx = tdr_intern__idx(&t, name, strlen(name));

				p = idx == UINT32_MAX ? NULL : tdr_intern__at(&t, idx);
			} else {
				p = tdr_intern__str(&t, name);
			}
		}
		tdr_mem_fail_after(-1);
		/* Strings interned before the failure are still found (every
		 * one that was: the count is checked, not taken on trust). */
		assert_int_equal(tdr_intern__cnt(&t), p ? i : i - 1);
		for (size_t j = 0; j < tdr_intern__cnt(&t); j++) {
			snprintf(name, sizeof(name), "s%zu", j);
			assert_ptr_equal(tdr_intern__str(&t, name), t.ents[j].s);
		}
		tdr_intern__fini(&t);
		if (p)
			break;
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_arena__aligned_and_big_requests),
	    cmocka_unit_test(test_arena__allocation_failure),
	    cmocka_unit_test(test_intern__same_string_same_pointer),
	    cmocka_unit_test(test_intern__allocation_failure),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
