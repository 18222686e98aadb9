// SPDX-License-Identifier: MIT
// A static bounding-volume hierarchy over the boxes of a shape's pieces
// (the mid-phase of non-convex shapes): built once, top down (binned
// surface-area heuristic, then median splits below a depth), stored depth
// first in one array, and read only, so any number of threads may query
// one hierarchy at once. Queries allocate nothing: their stacks are
// bounded by IMP_BVH_MAX_DEPTH.
#ifndef IMPACT_SHAPE_BVH_H
#define IMPACT_SHAPE_BVH_H

#include <stdbool.h>
#include <stdint.h>

#include "core/alloc.h"
#include "core/box.h"

/// The most nodes on a path from the root: the build splits by the surface
/// area heuristic down to depth IMP_BVH_SAH_DEPTH, then at the median,
/// which halves the pieces at each level (2^31 pieces need 31 more).
#define IMP_BVH_MAX_DEPTH 64
#define IMP_BVH_SAH_DEPTH 32

/// A node: its box, and either its second child (the first follows it in
/// the array) or, for a leaf, its one piece. One cache line.
typedef struct imp_bvh_node {
	imp_box box;
	int32_t right; ///< internal: the second child's index; leaf: -1
	int32_t item;  ///< leaf: the piece's index; internal: -1
	int32_t pad[2];
} imp_bvh_node;

/// An oriented box: the points c + sum_i t_i ax[i], |t_i| <= e[i]. A
/// node's, fitted to its pieces' points (imp_bvh_fit_obbs).
typedef struct imp_bvh_obb {
	double c[3];     ///< centre
	double e[3];     ///< half sizes along the axes
	double ax[3][3]; ///< unit axes, orthogonal: ax[i] is axis i
} imp_bvh_obb;

typedef struct imp_bvh {
	imp_bvh_node *nodes; ///< 2 n - 1 of them, depth first, the root at 0
	imp_bvh_obb *obb;    ///< each node's oriented box (3D meshes and height fields), or NULL
	int32_t count;       ///< pieces (n >= 1)
	int32_t depth;       ///< the most nodes on a path from the root
	int dim;             ///< 2 or 3
} imp_bvh;

/// Builds the hierarchy over boxes[0..n) (finite, n >= 1), in `dim`
/// dimensions. False when out of memory: *t is then empty (nodes NULL).
bool imp_bvh_build(imp_bvh *t, const imp_box *boxes, int32_t n, int dim, const imp_allocator *alloc);

/// Frees the nodes (the allocator the hierarchy was built with).
void imp_bvh_free(imp_bvh *t, const imp_allocator *alloc);

/// The most points a piece may give imp_bvh_fit_obbs.
#define IMP_BVH_PIECE_POINTS 12

/// Writes the points of piece `item` whose convex hull holds it (its
/// corners) into out; returns how many (1 .. IMP_BVH_PIECE_POINTS).
typedef int imp_bvh_points_fn(void *ctx, int32_t item, double (*out)[3]);

/// Gives each node of a built 3D hierarchy an oriented box holding its
/// pieces' points grown by `grow` (a rounding radius) along each axis: the
/// axes of the points' principal components, or the node's own box (the
/// pieces' boxes hold that growth already) when that is smaller. False
/// when out of memory (t->obb stays NULL).
bool imp_bvh_fit_obbs(imp_bvh *t, imp_bvh_points_fn *fn, void *ctx, double grow, const imp_allocator *alloc);

/// Told of a piece; false stops the query.
typedef bool imp_bvh_item_fn(void *ctx, int32_t item);

/// Every piece whose box overlaps `box` (closed boxes: touching counts),
/// each once; false when fn stopped it.
bool imp_bvh_query(const imp_bvh *t, const imp_box *box, imp_bvh_item_fn *fn, void *ctx);

/// A rigid motion from one frame into another: x' = r x + t (2D: the upper
/// left 2 x 2 of r, t[2] = 0).
typedef struct imp_bvh_xform {
	double r[3][3];
	double t[3];
} imp_bvh_xform;

/// A box holding box `b` moved by x: the moved centre, its half sizes
/// through |r|, grown by rounding's bound so that it holds every moved
/// point of b as computed in doubles.
void imp_box_move(const imp_box *b, const imp_bvh_xform *x, int dim, imp_box *out);

/// o moved by x (3D): centre and axes, its half sizes grown by the
/// rounding of the move.
void imp_obb_move(const imp_bvh_obb *o, const imp_bvh_xform *x, imp_bvh_obb *out);

/// The oriented box of the axis-aligned box b carried by x: the box of a
/// convex shape in its own frame, at its pose in a hierarchy's frame.
void imp_obb_of_box(const imp_box *b, const imp_bvh_xform *x, imp_bvh_obb *out);

/// A lower bound on the signed distance between two shapes inside a and b
/// (one frame): the largest gap of their projections on a's and b's axes
/// and on the line through their centres (negative: minus an overlap,
/// which bounds penetration depth from below); returned as soon as one
/// gap exceeds `stop` (the caller's search bound: nothing past it
/// matters). With `edges`, also the nine axes across an edge of each
/// where they separate: with stop 0, > 0 exactly when some axis of the
/// fifteen separates the boxes (Gottschalk's test).
double imp_obb_bound(const imp_bvh_obb *a, const imp_bvh_obb *b, double stop, bool edges);

/// The gap of a and b along the line through their centres alone (a lower
/// bound on the distance, negative where they meet on it; -INFINITY for
/// centres that coincide): the first of imp_obb_bound's, without the turn
/// between the boxes.
double imp_obb_centre_gap(const imp_bvh_obb *a, const imp_bvh_obb *b);

/// Told of a pair of pieces (a's, b's); false stops the traversal.
typedef bool imp_bvh_pair_fn(void *ctx, int32_t ia, int32_t ib);

/// Every pair of pieces whose boxes overlap, a's in its frame and b's
/// moved by b_in_a (imp_box_move) into a's, each pair once: a descent of
/// both hierarchies at once (by their oriented boxes when both have them).
/// False when fn stopped it.
bool imp_bvh_pairs(const imp_bvh *a, const imp_bvh *b, const imp_bvh_xform *b_in_a, imp_bvh_pair_fn *fn, void *ctx);

/// Told of a pair of pieces whose boxes' lower bound (imp_box_bound: the
/// gap, negative for boxes that overlap) is at most `bound`; returns the
/// bound for the rest of the search (the pair's answer, when lower).
typedef double imp_bvh_bound_fn(void *ctx, int32_t ia, int32_t ib, double bound);

/// Branch and bound over pairs of pieces: node pairs whose boxes' lower
/// bound exceeds the current bound are skipped, the nearer of two child
/// pairs is visited first. Returns the final bound. b may be NULL for a
/// single box `query` (in a's frame) standing for b: fn is then told ib 0.
double imp_bvh_nearest(const imp_bvh *a, const imp_bvh *b, const imp_bvh_xform *b_in_a, const imp_box *query,
		       double bound, imp_bvh_bound_fn *fn, void *ctx);

/// A lower bound of the caller's on the distance between the query's
/// shape and anything in `box` (a's frame), combined with the boxes' by
/// imp_bvh_nearest_keyed.
typedef double imp_bvh_key_fn(void *key_ctx, const imp_box *box);

/// imp_bvh_nearest with, for a query box (b NULL), each node's bound the
/// larger of the boxes' and key's (key NULL, or b not NULL: the boxes').
double imp_bvh_nearest_keyed(const imp_bvh *a, const imp_bvh *b, const imp_bvh_xform *b_in_a, const imp_box *query,
			     imp_bvh_key_fn *key, void *key_ctx, double bound, imp_bvh_bound_fn *fn, void *ctx);

/// A lower bound of the caller's on the distance between the query's
/// shape and anything in a node's oriented box.
typedef double imp_bvh_obb_key_fn(void *key_ctx, const imp_bvh_obb *node);

/// imp_bvh_query for a tree with oriented boxes: every piece whose node
/// boxes overlap `box`, whose oriented boxes the caller's key does not
/// hold apart (> 0) and overlap `obb`, all in the tree's frame; box, key
/// and obb may each be NULL (not asked); imp_bvh_query when obb and key
/// are NULL.
bool imp_bvh_query_obb(const imp_bvh *t, const imp_box *box, const imp_bvh_obb *obb, imp_bvh_obb_key_fn *key,
		       void *key_ctx, imp_bvh_item_fn *fn, void *ctx);

/// A sharper lower bound of the caller's on the distance between the
/// contents of two oriented boxes (one frame) whose imp_obb_bound, `lb`,
/// is at most `bound`: any value from lb up to their distance (above
/// bound rules the pair out).
typedef double imp_bvh_obb_pair_fn(void *key_ctx, const imp_bvh_obb *a, const imp_bvh_obb *b, double lb, double bound);

/// imp_bvh_nearest_keyed for trees with oriented boxes: a's against b's
/// (b_in_a) with pair_key (may be NULL), or, b NULL, against the query's
/// box, key and oriented box (in a's frame; any of them may be NULL).
double imp_bvh_nearest_obb(const imp_bvh *a, const imp_bvh *b, const imp_bvh_xform *b_in_a, const imp_box *box,
			   const imp_bvh_obb *query, imp_bvh_obb_key_fn *key, imp_bvh_obb_pair_fn *pair_key,
			   void *key_ctx, double bound, imp_bvh_bound_fn *fn, void *ctx);

#endif
