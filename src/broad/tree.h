// SPDX-License-Identifier: MIT
// The query tree of the broad phase (tree.c): a dynamic bounding-volume
// tree over the proxies' boxes, for region and nearest queries.
#ifndef IMPACT_BROAD_TREE_H
#define IMPACT_BROAD_TREE_H

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
	int32_t *stack;    ///< the queries' traversal stack
	int32_t stack_cap;
	struct tree_entry *heap; ///< the best-first traversal's queue
	int32_t heap_cap;
	/// The queries' four-wide copy of the tree (wide_build), made once the
	/// tree has gone unchanged for enough queries; valid while wide_ok
	/// (every change clears it). wide_refused: it could not be made (out
	/// of memory, or boxes that floats hold badly), and is not tried again
	/// until the tree changes.
	struct wnode *wide;  ///< in wide_mem, at a cache line's start
	void *wide_mem;
	size_t wide_bytes;   ///< wide_mem's size
	int32_t wide_cap, wide_count;
	int32_t quiet;     ///< queries since the last change
	bool wide_ok, wide_refused;
	int dim;
	const imp_allocator *alloc;
} imp_tree;

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
/// the exact boxes of what it is told of); false when fn stopped it. Adds
/// the nodes looked at to *visits.
bool imp_tree_query(imp_tree *t, const imp_box *box, imp_tree_fn *fn, void *ctx, uint64_t *visits);
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
void imp_tree_nearest(imp_tree *t, const imp_box *box, double bound, imp_tree_visit_fn *fn, void *ctx,
		      uint64_t *visits);
int32_t imp_tree_height(const imp_tree *t);
/// The invariants (for tests): boxes nest, heights, links, leaves.
bool imp_tree_valid(const imp_tree *t);

#endif
