/*
 * examples/hotloop.c - the bundled example program for tdrec.
 *
 * A small CPU-bound program with four hot functions that lose their pipeline
 * slots in different ways, so a TopDown report has something to tell:
 *   compute_kernel  - dependent integer arithmetic (mostly retiring)
 *   chase_pointers  - a random linked-list walk over 64 MiB (backend/memory bound)
 *   branchy_filter  - data-dependent branches on random bytes (bad speculation)
 *   hash_blocks     - a hash built from always-inlined helpers (mix64, rotl64)
 * The work is split about 3:3:2:2 in time on a typical machine. On a machine
 * without TopDown (a VM) the report still shows the samples per function.
 *
 * usage: hotloop [SCALE]   (SCALE multiplies the work; default 1, ~1 s)
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

/* Each kernel stays one function of its own name (gcc would otherwise clone
 * it as compute_kernel.constprop.0); clang has no noclone and never clones. */
#ifdef __clang__
#define KERNEL_FN __attribute__((noinline))
#else
#define KERNEL_FN __attribute__((noinline, noclone))
#endif

static inline __attribute__((always_inline)) uint64_t rotl64(uint64_t x, int r)
{
	return (x << r) | (x >> (64 - r));
}

static inline __attribute__((always_inline)) uint64_t mix64(uint64_t h, uint64_t v)
{
	h ^= rotl64(v * 0x9e3779b97f4a7c15ull, 31);
	return rotl64(h, 27) * 5 + 0x52dce729;
}

static uint64_t xorshift(uint64_t *s)
{
	uint64_t x = *s;

	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	return *s = x;
}

KERNEL_FN static uint64_t compute_kernel(uint64_t iters)
{
	uint64_t a = 1, b = 3;

	for (uint64_t i = 0; i < iters; i++) {
		a = a * 6364136223846793005ull + b;
		b ^= a >> 29;
	}
	return a ^ b;
}

struct node {
	struct node *next;
	uint64_t pad[7]; /* one node per cache line */
};

KERNEL_FN static uint64_t chase_pointers(struct node *head, uint64_t steps)
{
	struct node *n = head;
	uint64_t sum = 0;

	for (uint64_t i = 0; i < steps; i++) {
		n = n->next;
		sum += (uintptr_t)n & 0xff;
	}
	return sum;
}

KERNEL_FN static uint64_t branchy_filter(const uint8_t *bytes, size_t n,
							  unsigned rounds)
{
	uint64_t acc = 0;

	for (unsigned r = 0; r < rounds; r++) {
		for (size_t i = 0; i < n; i++) {
			if (bytes[i] < 128)
				acc += bytes[i] * 3;
			else
				acc ^= bytes[i] << 2;
		}
	}
	return acc;
}

KERNEL_FN static uint64_t hash_blocks(const uint64_t *words, size_t n,
						       unsigned rounds)
{
	uint64_t h = 0x1234;

	for (unsigned r = 0; r < rounds; r++)
		for (size_t i = 0; i < n; i++)
			h = mix64(h, words[i]);
	return h;
}

static struct node *build_list(size_t count, uint64_t *seed)
{
	struct node *nodes = malloc(count * sizeof(*nodes));
	size_t *order = malloc(count * sizeof(*order));

	if (!nodes || !order) {
		fprintf(stderr, "hotloop: out of memory\n");
		exit(1);
	}
	for (size_t i = 0; i < count; i++)
		order[i] = i;
	for (size_t i = count - 1; i > 0; i--) {
		size_t j = xorshift(seed) % (i + 1), t = order[i];

		order[i] = order[j];
		order[j] = t;
	}
	for (size_t i = 0; i < count; i++)
		nodes[order[i]].next = &nodes[order[(i + 1) % count]];
	free(order);
	return nodes;
}

int main(int argc, char **argv)
{
	unsigned scale = argc > 1 ? (unsigned)strtoul(argv[1], NULL, 10) : 1;
	uint64_t seed = 88172645463325252ull, result = 0;
	size_t list_nodes = (64u << 20) / sizeof(struct node), data_n = 1u << 16;
	struct node *list;
	uint8_t *bytes = malloc(data_n);
	uint64_t *words = malloc(data_n * sizeof(*words));

	if (!scale || !bytes || !words) {
		fprintf(stderr, "usage: hotloop [SCALE]  (SCALE >= 1)\n");
		return 2;
	}
	list = build_list(list_nodes, &seed);
	for (size_t i = 0; i < data_n; i++) {
		bytes[i] = (uint8_t)xorshift(&seed);
		words[i] = xorshift(&seed);
	}
	for (unsigned s = 0; s < scale; s++) {
		result += compute_kernel(300u * 1000 * 1000);
		result += chase_pointers(list, 2u * 1000 * 1000);
		result += branchy_filter(bytes, data_n, 3500);
		result += hash_blocks(words, data_n, 4000);
	}
	printf("hotloop: result %llx\n", (unsigned long long)result);
	free(list);
	free(bytes);
	free(words);
	return 0;
}
