// SPDX-License-Identifier: MIT
// The query tree of the broad phase (tree.c): a dynamic bounding-volume
// tree over the proxies' boxes, for region and nearest queries.
#ifndef IMPACT_BROAD_TREE_H
#define IMPACT_BROAD_TREE_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "broad/broad.h"
#include "core/alloc.h"

typedef struct tnode {
	imp_box box;
	int32_t parent;   ///< NONE at the root; the next free node while free
	int32_t child[2]; ///< internal nodes only
	int32_t height;   ///< 0 for a leaf, -1 while free
	int32_t proxy;    ///< leaves only
} tnode;

typedef struct imp_tree {
	tnode *nodes;
	int32_t cap, root, free_list, leaves;
	int32_t *leaf_of;  ///< per proxy: its leaf, or -1
	int32_t leaf_cap;
	/// The queries' four-wide copy of the tree (imp_tree_wide_build), made
	/// once the tree has gone unchanged for enough queries; valid while
	/// wide_ok (every change clears it). wide_refused: it could not be made
	/// (out of memory, or boxes that floats hold badly), and is not tried
	/// again until the tree changes. Queries on several threads read these
	/// at once (and count quiet): atomics, the copy made under the broad
	/// phase's lock.
	struct wnode *wide;  ///< in wide_mem, at a cache line's start
	void *wide_mem;
	size_t wide_bytes;   ///< wide_mem's size
	int32_t wide_cap, wide_count;
	atomic_int quiet;    ///< queries since the last change
	atomic_bool wide_ok, wide_refused;
	int dim;
	const imp_allocator *alloc;
} imp_tree;

/// A node waiting in the best-first queue with its lower bound.
typedef struct imp_tree_entry {
	double lb;
	int32_t node;
} imp_tree_entry;

#define IMP_TREE_SCRATCH_LOCAL 128
/// The best-first queue's room on the caller's stack (8 KB): a nearest
/// query among 100,000 boxes outgrew 128 entries once in 5,000 queries
/// (bench/queries), and each time paid an allocation.
#define IMP_TREE_HEAP_LOCAL 512

/// What one query walks with, its own, so that queries on one tree may run
/// on several threads at once: the depth-first stack (the wide copy's
/// queue) and the best-first queue, on the caller's stack first and grown
/// from the allocator past that (imp_tree_scratch_free frees it). Not to
/// be copied once made (it points into itself).
typedef struct imp_tree_scratch {
	int32_t *stack;
	int32_t stack_cap;
	imp_tree_entry *heap;
	int32_t heap_cap;
	const imp_allocator *alloc;
	bool oom; ///< a walk could not grow them: it stopped, its answer is incomplete
	int32_t stack_local[IMP_TREE_SCRATCH_LOCAL];
	imp_tree_entry heap_local[IMP_TREE_HEAP_LOCAL];
} imp_tree_scratch;

void imp_tree_scratch_init(imp_tree_scratch *s, const imp_allocator *alloc);
void imp_tree_scratch_free(imp_tree_scratch *s);
/// Room for `need` entries on the scratch's stack now: a depth-first walk
/// of the binary tree needs its height plus two, and then cannot run out
/// of memory part way. False when out of memory.
bool imp_tree_scratch_reserve(imp_tree_scratch *s, int32_t need);

/// Told of each proxy whose box overlaps the query's (or misses it by a
/// float's rounding: see imp_tree_query); false stops.
typedef bool imp_tree_fn(void *ctx, int32_t proxy);

void imp_tree_init(imp_tree *t, int dim, const imp_allocator *alloc);
/// Frees the memory; the tree is then empty (as after init).
void imp_tree_free(imp_tree *t);
/// Room for one more proxy (the next insert cannot fail); false when out
/// of memory, the tree unchanged.
bool imp_tree_reserve(imp_tree *t, int32_t proxy);
/// After imp_tree_reserve(t, proxy). The proxy must not be in the tree.
void imp_tree_insert(imp_tree *t, int32_t proxy, const imp_box *box);
/// No effect for a proxy not in the tree.
void imp_tree_remove(imp_tree *t, int32_t proxy);
void imp_tree_move(imp_tree *t, int32_t proxy, const imp_box *box);
/// Replaces the tree with one over proxies[0..n) (their boxes, each below
/// max_proxy), built top down by median splits: better boxes than n
/// inserts. False when out of memory: the tree is then empty.
bool imp_tree_build(imp_tree *t, const int32_t *proxies, const imp_box *const *boxes, int32_t n, int32_t max_proxy);
/// Every proxy whose box overlaps `box`, each once, and perhaps some whose
/// box misses it by no more than the rounding of doubles to floats (the
/// four-wide copy's boxes are floats rounded outwards: the caller tests
/// the exact boxes of what it is told of); false when fn stopped it or the
/// scratch could not grow (s->oom). On the wide copy when `wide` (made:
/// imp_tree_wide_ready). Adds the nodes looked at to *visits.
bool imp_tree_query(const imp_tree *t, const imp_box *box, bool wide, imp_tree_fn *fn, void *ctx,
		    imp_tree_scratch *s, uint64_t *visits);

/// Whether the wide copy is made and valid.
bool imp_tree_wide_ready(const imp_tree *t);
/// Counts a query of the unchanged tree; true when the wide copy is due
/// (enough queries since the last change, and not refused): the caller
/// then makes it, once, under its lock (imp_tree_wide_build).
bool imp_tree_wide_due(imp_tree *t);
/// Makes the wide copy unless it is made or refused (the caller holds the
/// lock that makes this once).
void imp_tree_wide_build(imp_tree *t);
/// Told of a proxy whose box's lower bound (imp_box_bound) is at most the
/// current bound, or within a float's rounding of it (see
/// imp_tree_nearest); returns the bound for the rest of the search.
typedef double imp_tree_visit_fn(void *ctx, int32_t proxy, double bound);

/// Branch and bound: the proxies in increasing order of the lower bound
/// between their box and `box` (nodes taken from a queue by their own
/// box's bound), while that bound is at most `bound`, which fn may lower.
/// Bounds are compared as keys (imp_box_key against bound |bound|). On the
/// four-wide copy (made once the tree has gone unchanged for a while) the
/// keys are those of the boxes rounded out to floats, never above the
/// exact ones: every proxy the exact keys let through is told of, and
/// perhaps a few more, and the order is the rounded keys'.
/// On the wide copy when `wide` and the box is finite. Stops early when
/// the scratch cannot grow (s->oom).
void imp_tree_nearest(const imp_tree *t, const imp_box *box, bool wide, double bound, imp_tree_visit_fn *fn,
		      void *ctx, imp_tree_scratch *s, uint64_t *visits);
int32_t imp_tree_height(const imp_tree *t);
/// The invariants (for tests): boxes nest, heights, links, leaves.
bool imp_tree_valid(const imp_tree *t);

#endif
