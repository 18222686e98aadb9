// SPDX-License-Identifier: MIT
// A binary min-heap with modifiable keys: the time-of-impact queue of the
// world (Mirtich 1998, §4; docs/toi.md). Each entry holds a key (a
// time), a value (what the caller queues: a pair) and is named by a handle
// that stays valid until the entry is popped or removed, so that its key
// can be changed or the entry removed in O(log n) wherever it sits.
//
// Order: by key, then by a tie-breaker the caller gives with the key, then
// by value, then by handle, so that equal times come out in an order the
// caller chooses (the world gives each pair's body slots), whatever the
// history of the heap. Keys are not NaN (+inf is allowed: "never").
//
// Memory goes through the caller's allocator; an operation that cannot get
// memory fails with IMP_ERR_OUT_OF_MEMORY and leaves the heap as it was.
#ifndef IMPACT_WORLD_HEAP_H
#define IMPACT_WORLD_HEAP_H

#include <stdbool.h>
#include <stdint.h>

#include "impact/base.h"

typedef struct imp_heap_entry {
	double key;
	uint64_t tie;     ///< orders equal keys
	int32_t value;
	int32_t handle;
} imp_heap_entry;

typedef struct imp_heap {
	const imp_allocator *alloc; ///< NULL: malloc
	imp_heap_entry *items;      ///< heap order
	int32_t count, cap;
	int32_t *where;             ///< per handle: its index in items, or the next free handle (-2 - next)
	int32_t handles;            ///< handles made so far (where has room for handle_cap)
	int32_t handle_cap;
	int32_t free_handle;        ///< a free handle, or -1
	uint64_t ops;               ///< pushes, pops, removals and key changes since creation
} imp_heap;

/// An empty heap; `alloc` must outlive it (NULL: malloc).
void imp_heap_init(imp_heap *h, const imp_allocator *alloc);
/// Frees the heap's memory; the heap is then empty and can be used again.
void imp_heap_clear(imp_heap *h);

/// Drops every entry (their handles become free), keeping the memory.
void imp_heap_empty(imp_heap *h);

/// Room for `n` entries without allocating.
imp_status imp_heap_reserve(imp_heap *h, int32_t n);

/// Queues `value` at `key` (equal keys ordered by `tie`); writes the
/// entry's handle.
imp_status imp_heap_push(imp_heap *h, double key, uint64_t tie, int32_t value, int32_t *handle);
/// Changes the key of a queued entry (its tie stays).
imp_status imp_heap_update(imp_heap *h, int32_t handle, double key);
/// Removes a queued entry.
imp_status imp_heap_remove(imp_heap *h, int32_t handle);
/// The first entry (smallest key) without removing it; false when empty.
bool imp_heap_peek(const imp_heap *h, imp_heap_entry *out);
/// Removes the first entry and writes it; false when empty. Its handle is
/// free again.
bool imp_heap_pop(imp_heap *h, imp_heap_entry *out);

/// Whether `handle` names a queued entry.
bool imp_heap_contains(const imp_heap *h, int32_t handle);
/// The key of a queued entry (NaN for a handle that names none).
double imp_heap_key(const imp_heap *h, int32_t handle);

static inline int32_t imp_heap_count(const imp_heap *h)
{
	return h->count;
}

#endif
