// SPDX-License-Identifier: MIT
// The 3D GJK working set, shared by GJK (gjk3d.c) and EPA (epa3d.c).
#ifndef IMPACT_GJK3D_INTERNAL_H
#define IMPACT_GJK3D_INTERNAL_H

#include <math.h>
#include <stdbool.h>
#include <stdint.h>

#include "impact/collision.h"
#include "shape/shape3_internal.h"

/// A vertex of the Minkowski difference C = A - B with where it came
/// from, in a's local frame (scaled by the context's `scale`).
typedef struct imp_svert3 {
	imp_vec3 w;  ///< a - b
	imp_vec3 a;  ///< support point on a's core (b's is a - w)
	int32_t ia;  ///< vertex index on a (-1 for curved and user shapes)
	int32_t ib;
} imp_svert3;

/// Small polytopes b searched by brute force get their vertices moved into
/// a's frame once per query.
#define IMP_PRETRANSFORM3_MAX 16

/// One shape as GJK sees it.
typedef struct imp_proxy3 {
	const imp_shape3 *s;
	const imp_vec3 *v; ///< vertices searched (b's may be moved into a's frame), NULL for curved and user shapes
	bool climb;        ///< hill climbing over the edge graph
	int last;          ///< last support vertex, -1: none yet
} imp_proxy3;

/// The pair: b's pose in a's frame, so a's supports need no transform.
typedef struct imp_gjk3_ctx {
	imp_proxy3 a, b;
	imp_mat3 r;     ///< b's rotation in a's frame
	imp_vec3 p;     ///< b's origin in a's frame
	double scale;   ///< a power of two every point is multiplied by (1 unless the scene is huge or tiny)
	bool scaled;
	double reach;   ///< bound of the scene's size after scaling: both bound radii and b's distance
	double cutoff;  ///< Level 2: GJK stops once the cores are proven farther apart than this (scaled; INFINITY: never)
	bool b_in_a;    ///< b.v holds b's vertices in a's frame
	bool bad;       ///< a user support returned a non-finite point
	imp_vec3 bw[IMP_PRETRANSFORM3_MAX];
} imp_gjk3_ctx;

/// Level 1 for the mid-phase (narrow/composite_query.c): a pair of
/// checked convex shapes, b's pose in a's frame given as rotation r and
/// origin p (a pair of children answers in one frame, turned once a
/// query); as imp_overlap3_ex otherwise.
bool imp_overlap3_rel(const imp_shape *a, const imp_shape *b, const imp_mat3 *r, imp_vec3 p, imp_simplex_cache *cache,
		      const imp_query_options *options);

/// Level 2 likewise, for a branch and bound: a pair GJK proves farther
/// apart than `cutoff` stops there and answers a value above it (not its
/// distance), with its cache as GJK left it.
double imp_distance3_rel(const imp_shape *a, const imp_shape *b, const imp_mat3 *r, imp_vec3 p, double cutoff,
			 imp_simplex_cache *cache, const imp_query_options *options, int *iterations,
			 imp_query_state *state);

/// The vertex of C farthest along d (a's frame, scaled).
void imp_cso_support3(imp_gjk3_ctx *c, imp_vec3 d, imp_svert3 *out);

/// The point of the hull of s[0..n) (1 to 4 vertices, newest first)
/// nearest the origin: the kept vertices with their weights into kept[] and
/// l[], the point into *v; returns how many were kept (4: the origin is
/// inside the tetrahedron).
int imp_simplex3_nearest(const imp_svert3 *s, int n, imp_svert3 *kept, double *l, imp_vec3 *v);

/// How many face normals EPA hands to the depth descent on curved cores.
#define IMP_EPA3_CANDIDATES 6

/// What EPA found: the face of C nearest the origin.
typedef struct imp_epa3_result {
	imp_vec3 normal;    ///< unit outward normal of that face (from a to b)
	double depth;       ///< distance from the origin to the face, >= 0
	imp_svert3 s[3];    ///< the face's vertices
	double l[3];        ///< barycentric weights of the nearest point
	int n;              ///< vertices used (1 to 3)
	int iterations;
	bool limit;         ///< stopped by the iteration limit or the polytope's capacity
	imp_vec3 candidate[IMP_EPA3_CANDIDATES]; ///< normals of the nearest faces (distinct), nearest first
	int candidates;
	/// Normals of faces more than 45 degrees from every candidate and from
	/// each other, nearest first, with their distances (lower bounds of h
	/// over their directions): where the descent also starts when the
	/// best it found lies above such a bound (see closest3_general).
	imp_vec3 spread[IMP_EPA3_CANDIDATES];
	double spread_d[IMP_EPA3_CANDIDATES];
	int spreads;
} imp_epa3_result;

/// Expanding polytope (EPA) from GJK's final simplex s[0..n) whose hull
/// holds the origin (n may be < 4 when the origin lies on C's boundary or
/// the simplex is flat: it is completed first). `tol` is relative.
void imp_epa3(imp_gjk3_ctx *c, const imp_svert3 *s, int n, int max_iterations, double tol, imp_epa3_result *out);

/// Penetration of curved cores, where EPA's faces only approach C: the
/// minimum over unit n of h(n) = max over C of n . x (the depth), by a
/// Newton descent on the sphere of directions from n (finite-difference
/// Hessian, backtracking). Writes a one-vertex answer (the support along
/// the final n), adds its iterations to out->iterations, and returns true
/// when the gradient vanished to `tol` (relative) or the pattern search's
/// step fell to `tol`; false when max_iterations (4 x it for the pattern
/// search) stopped it first.
bool imp_depth3_refine(imp_gjk3_ctx *c, imp_vec3 n, int max_iterations, double tol, imp_epa3_result *out);

/// The Newton step (u1, u2) on the tangent plane of the sphere of
/// directions: the Hessian [h11 h12; h12 h22] solved against the gradient
/// (g1, g2) where it is positive definite; else false, and the caller takes
/// a gradient step of its own size.
static inline bool imp_tangent_newton(double g1, double g2, double h11, double h12, double h22, double *u1,
				      double *u2)
{
	double det = h11 * h22 - h12 * h12;
	if (!(h11 > 0.0 && det > 0.0))
		return false;
	*u1 = -(h22 * g1 - h12 * g2) / det;
	*u2 = -(h11 * g2 - h12 * g1) / det;
	return true;
}

/// |v| without squaring v: v divided by its largest coordinate first
/// (divided, not multiplied by the inverse, which is infinite for a
/// subnormal one). 0 for v = 0. Squares leave double's range below 1e-154
/// and above 1e154 (two concentric spheres 1e-310 from the origin answered
/// NaN; issue 20, defect 6).
static inline double imp_robust_length3(imp_vec3 v)
{
	double m = imp_max3(fabs(v.x), fabs(v.y), fabs(v.z));
	if (!(m > 0.0))
		return 0.0;
	imp_vec3 u = imp_vec3_make(v.x / m, v.y / m, v.z / m);
	return m * sqrt(imp_vec3_dot(u, u));
}

/// v / |v| by the same scaling as imp_robust_length3, unit at any length
/// (1 / |v| is infinite for a subnormal |v|, and |v| of a vector near
/// 1e-162 is 1% off when computed from its subnormal square); `fallback`
/// for v = 0.
static inline imp_vec3 imp_robust_unit3(imp_vec3 v, imp_vec3 fallback)
{
	double m = imp_max3(fabs(v.x), fabs(v.y), fabs(v.z));
	if (!(m > 0.0))
		return fallback;
	imp_vec3 u = imp_vec3_make(v.x / m, v.y / m, v.z / m);
	double l = sqrt(imp_vec3_dot(u, u));
	return imp_vec3_make(u.x / l, u.y / l, u.z / l);
}

/// Whether |v|^2 = v . v is far enough inside double's normal range that
/// sqrt(v . v) is |v| to rounding (else imp_robust_length3).
static inline bool imp_square_in_range(double vv)
{
	return vv >= 0x1p-960 && vv <= 0x1p960;
}

/// A unit vector normal to e (any length but zero).
static inline imp_vec3 imp_any_normal3(imp_vec3 e)
{
	imp_vec3 axis = fabs(e.x) <= fabs(e.y) && fabs(e.x) <= fabs(e.z)
				? imp_vec3_make(1.0, 0.0, 0.0)
				: (fabs(e.y) <= fabs(e.z) ? imp_vec3_make(0.0, 1.0, 0.0) : imp_vec3_make(0.0, 0.0, 1.0));
	imp_vec3 n = imp_vec3_cross(e, axis);
	double l = imp_vec3_length(n);
	if (!(l > 1e-150 && l < 1e150)) {
		// |n|^2 underflows or overflows (an edge 1.3e-284 long gave NaN
		// normals: issue 20, defect 6): n scaled by its largest
		// coordinate first; any unit normal for e = 0.
		double m = fmax(fabs(n.x), fmax(fabs(n.y), fabs(n.z)));
		if (!(m > 0.0) || !isfinite(m))
			return fabs(e.z) <= fabs(e.x) ? imp_vec3_make(0.0, 0.0, 1.0) : imp_vec3_make(1.0, 0.0, 0.0);
		n = imp_vec3_make(n.x / m, n.y / m, n.z / m);
		l = imp_vec3_length(n);
	}
	return imp_vec3_scale(1.0 / l, n);
}

/// x^T H y for the Hessian H of a smooth core's support function at unit
/// local direction d: 0 for a point; for the ellipsoid with semi-axes e,
/// h(d) = |E d| and H = (E^2 - g g^T / l^2) / l with g = E^2 d, l = |E d|.
static inline double imp_core_form3(const imp_shape3 *s, imp_vec3 d, imp_vec3 x, imp_vec3 y)
{
	if (s->kind != IMP_SHAPE_ELLIPSOID)
		return 0.0;
	imp_vec3 e = s->size;
	imp_vec3 e2 = imp_vec3_make(e.x * e.x, e.y * e.y, e.z * e.z);
	imp_vec3 g = imp_vec3_make(e2.x * d.x, e2.y * d.y, e2.z * d.z);
	double l2 = imp_vec3_dot(g, d); // |E d|^2
	double l = sqrt(l2);
	double xy = e2.x * x.x * y.x + e2.y * x.y * y.y + e2.z * x.z * y.z;
	return (xy - imp_vec3_dot(g, x) * imp_vec3_dot(g, y) / l2) / l;
}

/// Both cores smooth with a Hessian in closed form (points and
/// ellipsoids): Newton's method on h then converges quadratically.
bool imp_gjk3_smooth(const imp_gjk3_ctx *c);

/// Separated smooth cores: the point of C nearest the origin by the same
/// descent from direction n (h(n) < 0 there, any length given). Writes
/// the support at the last direction into *w (its point w->w is that
/// nearest point) and the steps into *iterations; true when the gradient
/// vanished to `tol` with h still below 0.
bool imp_depth3_nearest(imp_gjk3_ctx *c, imp_vec3 n, int max_iterations, double tol, imp_svert3 *w, int *iterations);

/// h(n) = n . s_C(n), C's support height along n (unit for a depth), the
/// support into *w.
double imp_depth3_height(imp_gjk3_ctx *c, imp_vec3 n, imp_svert3 *w);

/// h(n) along unit direction n (any length given): when lower than
/// out->depth, n becomes the answer (one vertex, the support along n).
bool imp_depth3_try(imp_gjk3_ctx *c, imp_vec3 n, imp_epa3_result *out);

#endif
