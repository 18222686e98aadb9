// SPDX-License-Identifier: MIT
// The 2D GJK working set, shared by GJK (gjk2d.c) and EPA (epa2d.c).
#ifndef IMPACT_GJK2D_INTERNAL_H
#define IMPACT_GJK2D_INTERNAL_H

#include <math.h>
#include <stdbool.h>
#include <stdint.h>

#include "impact/collision.h"
#include "shape/shape_internal.h"

/// A vertex of the Minkowski difference C = A - B with where it came from.
/// Everything is in a's local frame.
typedef struct imp_svert2 {
	imp_vec2 w;  ///< a - b
	imp_vec2 a;  ///< support point on a's core (b's is a - w)
	int32_t ia;  ///< vertex index on a (-1 for user shapes)
	int32_t ib;
} imp_svert2;

/// One shape as GJK sees it.
typedef struct imp_proxy2 {
	const imp_vec2 *v; ///< core vertices, NULL for a user shape
	int n;             ///< vertex count, 0 for a user shape
	bool climb;        ///< hill-climbing support (needs n >= 3)
	int last;          ///< last support vertex; -1: none yet
	bool warm;         ///< climb from `last` rather than from the angle table
	const imp_shape *shape;
} imp_proxy2;

/// Small polygons b searched by brute force get their vertices moved into
/// a's frame once per query: each support then skips turning the direction
/// and moving the point, which sit on GJK's chain of dependent operations
/// (bench/narrow2d: fewer cycles from 3 iterations on 4-gons).
#define IMP_PRETRANSFORM_MAX 12

/// The pair: b's pose in a's frame, so a's supports need no transform.
typedef struct imp_gjk2_ctx {
	imp_proxy2 a, b;
	imp_rot2 q;
	imp_vec2 p;
	bool bad;       ///< a user support returned a non-finite point
	bool b_small;   ///< b is a polygon of at most IMP_PRETRANSFORM_MAX vertices, searched by brute force
	bool b_in_a;    ///< b.v points at bw: b's vertices already in a's frame
	bool interior_ok; ///< GJK may start from an interior point (no EPA after it)
	bool want_simplex; ///< the final simplex is read (a cache, Level 3): write it out
	imp_vec2 bw[IMP_PRETRANSFORM_MAX];
} imp_gjk2_ctx;

/// Vertex i of b in a's frame.
static inline imp_vec2 imp_ctx_b_vertex(const imp_gjk2_ctx *c, int i)
{
	return c->b_in_a ? c->b.v[i] : imp_vec2_add(imp_rot2_apply(c->q, c->b.v[i]), c->p);
}

/// `poly` is a compile-time constant where the caller knows both shapes
/// are polygons, so the user-shape branch disappears from the hot loops.
IMP_ALWAYS_INLINE int imp_proxy2_support(imp_proxy2 *x, imp_vec2 d, imp_vec2 *point, bool *bad, bool poly)
{
	if (!poly && x->v == NULL) {
		*point = x->shape->cold->support(x->shape->cold->user, d);
		if (!(fabs(point->x) <= IMP_MAX_COORDINATE && fabs(point->y) <= IMP_MAX_COORDINATE))
			*bad = true; // NaN, infinite, or beyond the range the queries are exact in
		return -1;
	}
	int i;
	if (x->climb) {
		// The angle table gives a start a step or two from the answer; without
		// one (small polygons) the last support vertex is as good.
		int start = (x->warm && x->last >= 0) || x->n < IMP_ANGLE_TABLE_MIN ? (x->last >= 0 ? x->last : 0)
										 : imp_support_start(x->shape, d);
		i = imp_support_climb(x->v, x->n, d, start);
	} else {
		i = imp_support_brute(x->v, x->n, d);
	}
	x->last = i;
	*point = x->v[i];
	return i;
}

/// The vertex of C farthest along d: a's support along d minus b's along -d.
IMP_ALWAYS_INLINE void imp_cso_support_poly(imp_gjk2_ctx *c, imp_vec2 d, imp_svert2 *out, bool poly)
{
	imp_vec2 pa, pb;
	out->ia = imp_proxy2_support(&c->a, d, &pa, &c->bad, poly);
	if (c->b_in_a) {
		out->ib = imp_support_brute(c->b.v, c->b.n, imp_vec2_make(-d.x, -d.y));
		pb = c->b.v[out->ib];
	} else {
		imp_vec2 db = imp_rot2_apply_inv(c->q, imp_vec2_make(-d.x, -d.y));
		out->ib = imp_proxy2_support(&c->b, db, &pb, &c->bad, poly);
		pb = imp_vec2_add(imp_rot2_apply(c->q, pb), c->p);
	}
	out->a = pa;
	out->w = imp_vec2_sub(pa, pb);
}

static inline void imp_cso_support2(imp_gjk2_ctx *c, imp_vec2 d, imp_svert2 *out)
{
	imp_cso_support_poly(c, d, out, false);
}

/// The support along d, hill climbing (where the shapes climb) from the
/// vertices of `near`, a vertex of C whose support direction is close to d.
static inline void imp_cso_support2_near(imp_gjk2_ctx *c, imp_vec2 d, const imp_svert2 *near, imp_svert2 *out)
{
	c->a.last = near->ia;
	c->b.last = near->ib;
	c->a.warm = c->b.warm = true;
	imp_cso_support_poly(c, d, out, false);
	c->a.warm = c->b.warm = false;
}

/// The support point on b's core (a's frame).
static inline imp_vec2 imp_svert2_b(const imp_svert2 *s)
{
	return imp_vec2_sub(s->a, s->w);
}

/// True when the two vertices are the same vertex of C: by vertex indices
/// where both shapes have them, else by position.
static inline bool imp_svert2_same(const imp_svert2 *x, const imp_svert2 *y)
{
	if (x->ia >= 0 && x->ib >= 0)
		return x->ia == y->ia && x->ib == y->ib;
	return x->w.x == y->w.x && x->w.y == y->w.y;
}

/// What the penetration solver found: the edge of C nearest the origin.
typedef struct imp_epa2_result {
	imp_vec2 normal;   ///< unit outward normal of that edge (from a to b)
	double depth;      ///< distance from the origin to the edge, >= 0
	imp_svert2 e0, e1; ///< the edge's ends
	double t;          ///< the nearest point is e0 + t (e1 - e0)
	int iterations;
	bool limit;        ///< stopped by the iteration limit or the polygon's capacity
} imp_epa2_result;

/// Expanding-polygon penetration solver (the 2D EPA): from GJK's final
/// simplex s[0..n) whose hull holds the origin, the boundary point of C
/// nearest to the origin. `tol` is absolute.
void imp_epa2(imp_gjk2_ctx *c, const imp_svert2 *s, int n, int max_iterations, double tol,
	      imp_epa2_result *out);

/// The power of two that brings a magnitude m > 0 to about 1, clamped to
/// [2^-1000, 2^1000] so that it and its inverse are finite. Unclamped, the
/// smallest subnormal (2^-1074) asks for 2^1073, which is infinite: a
/// capsule whose core is that short, touching a point, came out of the
/// walk with NaN witnesses (fuzz finding 37). Scaling by a power of two is
/// exact; a scene the clamp leaves off unit size is still far inside the
/// range whose squares the solvers form.
static inline double imp_unit_scale2(double m)
{
	int e;
	frexp(m, &e);
	e = e < -1000 ? -1000 : (e > 1000 ? 1000 : e);
	return ldexp(1.0, -e);
}

/// A search direction d, brought near unit size by a power of two (exact)
/// where its largest coordinate lies outside [2^-500, 2^500], and left as it
/// is elsewhere. GJK's first direction is the difference of the shapes'
/// centres: 4.9e-324 apart, a support along it turned into b's frame lost
/// its direction to underflow (0.195 times 4.9e-324 is 0), and its dot
/// products are a subnormal or 0; an ellipse through a box's centre was
/// called apart (fuzz finding 66).
static inline imp_vec2 imp_search_dir2(imp_vec2 d)
{
	double m = fabs(d.x) > fabs(d.y) ? fabs(d.x) : fabs(d.y);
	if (!(m > 0.0) || (m >= 0x1p-500 && m <= 0x1p500))
		return d;
	double k = imp_unit_scale2(m);
	return imp_vec2_make(d.x * k, d.y * k);
}

/// v / |v| at any length: v divided by its largest coordinate first (1 / |v|
/// is infinite for a subnormal |v|: EPA's normal of a flat difference
/// 1e-310 long was NaN, fuzz finding 53); `fallback` for v = 0.
static inline imp_vec2 imp_robust_unit2(imp_vec2 v, imp_vec2 fallback)
{
	double m = fabs(v.x) > fabs(v.y) ? fabs(v.x) : fabs(v.y);
	if (!(m > 0.0))
		return fallback;
	imp_vec2 u = imp_vec2_make(v.x / m, v.y / m);
	return imp_vec2_scale(1.0 / imp_vec2_length(u), u);
}

/// The walk holds both rings' edges on the stack: polygon pairs with more
/// vertices between them go to EPA.
#define IMP_WALK_MAX_EDGES 256

/// Penetration of two overlapping polygon cores (both with vertices, at
/// most IMP_WALK_MAX_EDGES between them):
/// exact, by one walk around C's edges (walk2d.c). Same result as imp_epa2.
void imp_walk2(const imp_gjk2_ctx *c, imp_epa2_result *out);

/// imp_walk2 on two rings: a's vertices (its frame), b's in its own frame
/// with b's pose (q, p_b) in a's; `sharp` when either is (imp_shape.sharp).
void imp_walk2_rings(const imp_vec2 *va, int na, const imp_vec2 *vb, int nb, imp_rot2 q, imp_vec2 p_b, bool sharp,
		     imp_epa2_result *out);

/// imp_closest2 (default options) for a caller that has checked both
/// shapes and whose poses are valid by construction (finite, within range,
/// unit rotations): the time-of-impact search, which makes its poses from
/// checked motions. The argument checks are skipped.
imp_status imp_closest2_checked(const imp_shape *a, imp_pose2 pa, const imp_shape *b, imp_pose2 pb,
				imp_simplex_cache *cache, imp_closest2_result *out);

#endif
