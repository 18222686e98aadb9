// SPDX-License-Identifier: MIT
// The allocator indirection: every allocation of the library goes through here.
#ifndef IMPACT_CORE_ALLOC_H
#define IMPACT_CORE_ALLOC_H

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "impact/base.h"

/// True when all three functions are set or none is.
static inline bool imp_allocator_is_valid(const imp_allocator *a)
{
	if (a == NULL)
		return true;
	bool any = a->alloc || a->realloc || a->free;
	bool all = a->alloc && a->realloc && a->free;
	return !any || all;
}

static inline void *imp_alloc(const imp_allocator *a, size_t size)
{
	if (a != NULL && a->alloc != NULL)
		return a->alloc(size, a->user);
	return malloc(size);
}

/// Resizes a block from old_size to new_size bytes (ptr may be NULL with
/// old_size 0). On failure returns NULL and the block is untouched.
static inline void *imp_realloc(const imp_allocator *a, void *ptr, size_t old_size, size_t new_size)
{
	if (a != NULL && a->realloc != NULL)
		return a->realloc(ptr, old_size, new_size, a->user);
	return realloc(ptr, new_size);
}

static inline void imp_free(const imp_allocator *a, void *ptr, size_t size)
{
	if (ptr == NULL)
		return;
	if (a != NULL && a->free != NULL)
		a->free(ptr, size, a->user);
	else
		free(ptr);
}

/// Grows an array of `elem`-byte items from *cap to at least `need`
/// (doubling, from 16); false when out of memory, the array untouched.
static inline bool imp_grow(const imp_allocator *a, void **array, int32_t *cap, int32_t need, size_t elem)
{
	if (need <= *cap)
		return true;
	int64_t n = *cap > 0 ? *cap : 16;
	while (n < need)
		n *= 2;
	if (n > INT32_MAX)
		n = INT32_MAX;
	void *p = imp_realloc(a, *array, (size_t)*cap * elem, (size_t)n * elem);
	if (p == NULL)
		return false;
	*array = p;
	*cap = (int32_t)n;
	return true;
}

/// imp_grow for an array that starts in the caller's own storage `local`
/// (a query's buffer on its stack): the first growth moves it to the
/// allocator, copying the first `keep` items; later ones reallocate.
/// Doubling; false when out of memory, the array untouched. Free with
/// imp_free unless it is still `local`.
static inline bool imp_grow_from(const imp_allocator *a, void **array, int32_t *cap, const void *local, int32_t need,
				 int32_t keep, size_t elem)
{
	if (need <= *cap || *array != local)
		return imp_grow(a, array, cap, need, elem);
	int64_t n = 2 * (int64_t)*cap > need ? 2 * (int64_t)*cap : need;
	if (n > INT32_MAX)
		n = INT32_MAX;
	void *p = imp_alloc(a, (size_t)n * elem);
	if (p == NULL)
		return false;
	memcpy(p, local, (size_t)keep * elem);
	*array = p;
	*cap = (int32_t)n;
	return true;
}

#endif
