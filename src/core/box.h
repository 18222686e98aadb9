// SPDX-License-Identifier: MIT
// Closed axis-aligned boxes in 2D and 3D, and the bounds between them: the
// broad phase's proxies and the bounding-volume hierarchies of shapes
// (shape/bvh.h) are made of them.
#ifndef IMPACT_CORE_BOX_H
#define IMPACT_CORE_BOX_H

#include <math.h>
#include <stdbool.h>

/// A closed box; in 2D lo[2] == hi[2] == 0.
typedef struct imp_box {
	double lo[3], hi[3];
} imp_box;

static inline bool imp_box_overlap(const imp_box *a, const imp_box *b, int dim)
{
	for (int k = 0; k < dim; k++)
		if (a->lo[k] > b->hi[k] || b->lo[k] > a->hi[k])
			return false;
	return true;
}

/// The smallest box holding both.
/// Half the surface area of a box (3D), half its perimeter (2D): how
/// likely a query meets it, for the trees' surface-area heuristics.
static inline double imp_box_area(const imp_box *b, int dim)
{
	double x = b->hi[0] - b->lo[0], y = b->hi[1] - b->lo[1];
	if (dim == 2)
		return x + y;
	double z = b->hi[2] - b->lo[2];
	return x * y + y * z + z * x;
}

static inline imp_box imp_box_union(const imp_box *a, const imp_box *b)
{
	imp_box u;
	for (int k = 0; k < 3; k++) {
		u.lo[k] = a->lo[k] < b->lo[k] ? a->lo[k] : b->lo[k];
		u.hi[k] = a->hi[k] > b->hi[k] ? a->hi[k] : b->hi[k];
	}
	return u;
}

/// The gaps of two boxes along the first dim axes (negative: minus their
/// overlap along that axis) into g[], and the largest of them: the boxes
/// overlap exactly when it is <= 0 (each subtraction keeps the sign of its
/// comparison). No branch but the dimension's.
static inline double imp_box_gaps(const imp_box *a, const imp_box *b, int dim, double g[3])
{
	double m = -INFINITY;
	for (int k = 0; k < 3; k++) {
		double g1 = a->lo[k] - b->hi[k], g2 = b->lo[k] - a->hi[k];
		g[k] = k < dim ? (g1 > g2 ? g1 : g2) : -INFINITY;
		m = m > g[k] ? m : g[k];
	}
	return m;
}

/// The sum of the squares of the positive gaps: the squared Euclidean gap.
static inline double imp_box_gap2(const double g[3])
{
	double p0 = g[0] > 0.0 ? g[0] : 0.0, p1 = g[1] > 0.0 ? g[1] : 0.0, p2 = g[2] > 0.0 ? g[2] : 0.0;
	return p0 * p0 + p1 * p1 + p2 * p2;
}

/// A lower bound on the signed distance between two shapes inside these
/// boxes: the Euclidean gap between boxes apart; for boxes that overlap,
/// minus their smallest overlap along an axis (moving one shape that far
/// along that axis separates the boxes, so no penetration is deeper).
static inline double imp_box_bound(const imp_box *a, const imp_box *b, int dim)
{
	double g[3], m = imp_box_gaps(a, b, dim, g);
	return m > 0.0 ? sqrt(imp_box_gap2(g)) : m;
}

/// imp_box_bound without its square root: sign(x) x^2 of the bound x,
/// which orders boxes the same way (compare it with bound |bound|).
static inline double imp_box_key(const imp_box *a, const imp_box *b, int dim)
{
	double g[3], m = imp_box_gaps(a, b, dim, g);
	return m > 0.0 ? imp_box_gap2(g) : -(m * m);
}

/// True when `inner` lies inside `outer`.
static inline bool imp_box_contains(const imp_box *outer, const imp_box *inner, int dim)
{
	for (int k = 0; k < dim; k++)
		if (inner->lo[k] < outer->lo[k] || inner->hi[k] > outer->hi[k])
			return false;
	return true;
}

#endif
