/*
 * symbolize/demangle.c - C++ names for display, without a build dependency.
 *
 * Responsibility: turn Itanium-ABI mangled names ("_Z...") into readable ones
 * with __cxa_demangle, looked up at run time by dlopen("libstdc++.so.6"). When
 * the library is missing (a pure C system) or a name does not demangle, the
 * mangled name is used as it is. libdw has no demangler of its own.
 * Objects and lifecycle: the library handle and a cache (mangled pointer ->
 * demangled copy in the arena) live in the symbolizer; every name is
 * demangled once however many addresses it covers.
 * Ownership and threads: the mangled strings are borrowed from libelf/libdw
 * and live as long as the symbolizer, so their address is a valid cache key.
 */
#include "symbolize_int.h"

#include <dlfcn.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define LOG_PREFIX "symbolize: "
#include "tdrec/tdr_log.h"
#include "tdrec/tdr_mem.h"

static void demangler_load(struct tdr_symbolizer *s)
{
	s->cxx_tried = true;
	s->cxx_lib = dlopen("libstdc++.so.6", RTLD_LAZY | RTLD_LOCAL);
	if (!s->cxx_lib) {
		tdr_debug("no C++ demangler (libstdc++.so.6: %s); showing mangled names",
			  dlerror());
		return;
	}
	*(void **)&s->cxa_demangle = dlsym(s->cxx_lib, "__cxa_demangle");
	if (!s->cxa_demangle) {
		dlclose(s->cxx_lib);
		s->cxx_lib = NULL;
	}
}

static int dm_grow(struct tdr_symbolizer *s)
{
	size_t cap = s->dm_cap ? s->dm_cap * 2 : 256;
	struct sym_demangle_ent *n = tdr_calloc(cap, sizeof(*n));

	if (!n)
		return -ENOMEM;
	for (size_t i = 0; i < s->dm_cap; i++) {
		const struct sym_demangle_ent *e = &s->dm[i];
		size_t j;

		if (!e->mangled)
			continue;
		j = tdr_hash_u64((uintptr_t)e->mangled) & (cap - 1);
		while (n[j].mangled)
			j = (j + 1) & (cap - 1);
		n[j] = *e;
	}
	free(s->dm);
	s->dm = n;
	s->dm_cap = cap;
	return 0;
}

const char *sym_demangle(struct tdr_symbolizer *s, const char *name)
{
	const char *out = name;
	size_t j;
	char *d;
	int st = -1;

	if (!name || name[0] != '_' || name[1] != 'Z')
		return name;
	if (!s->cxx_tried)
		demangler_load(s);
	if (!s->cxa_demangle)
		return name;

	if (s->dm_cap) {
		j = tdr_hash_u64((uintptr_t)name) & (s->dm_cap - 1);
		for (; s->dm[j].mangled; j = (j + 1) & (s->dm_cap - 1))
			if (s->dm[j].mangled == name)
				return s->dm[j].out;
	}
	if ((s->dm_cnt + 1) * 2 > s->dm_cap && dm_grow(s))
		return NULL;

	/* __cxa_demangle allocates with malloc; copy into the arena. */
	d = s->cxa_demangle(name, NULL, NULL, &st);
	if (d && st == 0) {
		out = sym_arena_strdup(&s->arena, d);
		free(d);
		if (!out)
			return NULL;
	} else {
		free(d);
		if (st == -1) /* the demangler itself ran out of memory */
			return NULL;
	}
	j = tdr_hash_u64((uintptr_t)name) & (s->dm_cap - 1);
	while (s->dm[j].mangled)
		j = (j + 1) & (s->dm_cap - 1);
	s->dm[j].mangled = name;
	s->dm[j].out = out;
	s->dm_cnt++;
	return out;
}

void sym_demangle__free(struct tdr_symbolizer *s)
{
	zfree(&s->dm);
	s->dm_cnt = s->dm_cap = 0;
	if (s->cxx_lib)
		dlclose(s->cxx_lib);
	s->cxx_lib = NULL;
	s->cxa_demangle = NULL;
}
