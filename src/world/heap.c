// SPDX-License-Identifier: MIT
// The time-of-impact queue: a binary min-heap over an array, with a handle
// table (handle -> index) kept up to date on every move, so that an entry
// can be found, re-keyed or removed in O(log n). See heap.h.
#include "world/heap.h"

#include <math.h>
#include <string.h>

#include "core/alloc.h"

/// a before b: by key, then tie, then value, then handle (a total order:
/// equal times come out the same way whatever the heap's history).
static inline bool before(const imp_heap_entry *a, const imp_heap_entry *b)
{
	if (a->key != b->key)
		return a->key < b->key;
	if (a->tie != b->tie)
		return a->tie < b->tie;
	if (a->value != b->value)
		return a->value < b->value;
	return a->handle < b->handle;
}

static inline void place(imp_heap *h, int32_t i, imp_heap_entry e)
{
	h->items[i] = e;
	h->where[e.handle] = i;
}

static void sift_up(imp_heap *h, int32_t i)
{
	imp_heap_entry e = h->items[i];
	while (i > 0) {
		int32_t parent = (i - 1) / 2;
		if (!before(&e, &h->items[parent]))
			break;
		place(h, i, h->items[parent]);
		i = parent;
	}
	place(h, i, e);
}

static void sift_down(imp_heap *h, int32_t i)
{
	imp_heap_entry e = h->items[i];
	for (;;) {
		int32_t c = 2 * i + 1;
		if (c >= h->count)
			break;
		if (c + 1 < h->count && before(&h->items[c + 1], &h->items[c]))
			c++;
		if (!before(&h->items[c], &e))
			break;
		place(h, i, h->items[c]);
		i = c;
	}
	place(h, i, e);
}

/// Moves entry i to where it belongs after its key changed either way.
static void restore(imp_heap *h, int32_t i)
{
	if (i > 0 && before(&h->items[i], &h->items[(i - 1) / 2]))
		sift_up(h, i);
	else
		sift_down(h, i);
}

void imp_heap_init(imp_heap *h, const imp_allocator *alloc)
{
	memset(h, 0, sizeof *h);
	h->alloc = alloc;
	h->free_handle = -1;
}

void imp_heap_clear(imp_heap *h)
{
	imp_free(h->alloc, h->items, (size_t)h->cap * sizeof *h->items);
	imp_free(h->alloc, h->where, (size_t)h->handle_cap * sizeof *h->where);
	imp_heap_init(h, h->alloc);
}

void imp_heap_empty(imp_heap *h)
{
	h->count = 0;
	h->handles = 0;
	h->free_handle = -1;
}

imp_status imp_heap_reserve(imp_heap *h, int32_t n)
{
	if (h == NULL)
		return IMP_ERR_NULL_ARGUMENT;
	if (n < 0 || n > (1 << 30))
		return IMP_ERR_BAD_COUNT;
	if (!imp_grow(h->alloc, (void **)&h->items, &h->cap, n, sizeof *h->items) ||
	    !imp_grow(h->alloc, (void **)&h->where, &h->handle_cap, n, sizeof *h->where))
		return IMP_ERR_OUT_OF_MEMORY;
	return IMP_OK;
}

static bool queued(const imp_heap *h, int32_t handle)
{
	return handle >= 0 && handle < h->handles && h->where[handle] >= 0;
}

imp_status imp_heap_push(imp_heap *h, double key, uint64_t tie, int32_t value, int32_t *handle)
{
	if (h == NULL || handle == NULL)
		return IMP_ERR_NULL_ARGUMENT;
	if (isnan(key))
		return IMP_ERR_NOT_FINITE;
	if (h->count >= (1 << 30))
		return IMP_ERR_BAD_COUNT;
	// Both arrays grown before anything changes.
	if (!imp_grow(h->alloc, (void **)&h->items, &h->cap, h->count + 1, sizeof *h->items))
		return IMP_ERR_OUT_OF_MEMORY;
	if (h->free_handle < 0 &&
	    !imp_grow(h->alloc, (void **)&h->where, &h->handle_cap, h->handles + 1, sizeof *h->where))
		return IMP_ERR_OUT_OF_MEMORY;
	int32_t id;
	if (h->free_handle >= 0) {
		id = h->free_handle;
		h->free_handle = -2 - h->where[id];
	} else {
		id = h->handles++;
	}
	int32_t i = h->count++;
	place(h, i, (imp_heap_entry){key, tie, value, id});
	sift_up(h, i);
	h->ops++;
	*handle = id;
	return IMP_OK;
}

imp_status imp_heap_update(imp_heap *h, int32_t handle, double key)
{
	if (h == NULL)
		return IMP_ERR_NULL_ARGUMENT;
	if (!queued(h, handle))
		return IMP_ERR_BAD_ID;
	if (isnan(key))
		return IMP_ERR_NOT_FINITE;
	int32_t i = h->where[handle];
	h->items[i].key = key;
	restore(h, i);
	h->ops++;
	return IMP_OK;
}

/// Takes entry i out: the last entry fills its place; the handle is freed.
static void take(imp_heap *h, int32_t i)
{
	int32_t id = h->items[i].handle;
	int32_t last = --h->count;
	if (i != last) {
		place(h, i, h->items[last]);
		restore(h, i);
	}
	h->where[id] = -2 - h->free_handle;
	h->free_handle = id;
	h->ops++;
}

imp_status imp_heap_remove(imp_heap *h, int32_t handle)
{
	if (h == NULL)
		return IMP_ERR_NULL_ARGUMENT;
	if (!queued(h, handle))
		return IMP_ERR_BAD_ID;
	take(h, h->where[handle]);
	return IMP_OK;
}

bool imp_heap_peek(const imp_heap *h, imp_heap_entry *out)
{
	if (h == NULL || h->count == 0)
		return false;
	if (out != NULL)
		*out = h->items[0];
	return true;
}

bool imp_heap_pop(imp_heap *h, imp_heap_entry *out)
{
	if (h == NULL || h->count == 0)
		return false;
	if (out != NULL)
		*out = h->items[0];
	take(h, 0);
	return true;
}

bool imp_heap_contains(const imp_heap *h, int32_t handle)
{
	return h != NULL && queued(h, handle);
}

double imp_heap_key(const imp_heap *h, int32_t handle)
{
	if (h == NULL || !queued(h, handle))
		return NAN;
	return h->items[h->where[handle]].key;
}
