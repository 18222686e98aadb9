// SPDX-License-Identifier: MIT
// The 3D shape record and its support functions, shared by the 3D narrow
// phase.
#ifndef IMPACT_SHAPE3_INTERNAL_H
#define IMPACT_SHAPE3_INTERNAL_H

#include <stddef.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "shape/shape_internal.h"

/// Polytopes with at least this many vertices climb under the default
/// options. bench/narrow3d, whose 1000 pairs of distinct shapes are cold
/// in the caches on every query, measured brute force faster at 32 and 128
/// vertices (its scan streams through memory), the climb over the nodes
/// (imp_climb_node3) from the start table 2 – 3 times faster at 512, and
/// 6 – 14 times fewer instructions (docs/narrow3d.md).
#define IMP_HILL_CLIMB3_MIN_VERTICES 512

/// Polytopes with at least this many vertices get climb nodes and a start
/// table (imp_climb_node3).
#define IMP_CLIMB_NODE_MIN_VERTICES 32

/// Neighbours kept in a climb node; longer lists are in node_more.
#define IMP_CLIMB_NODE_NB 19

/// One vertex of a polytope for hill climbing, one cache line: its point
/// and its neighbours, so that a step of a climb over a shape cold in the
/// caches waits for one line per neighbour rather than for the offsets,
/// then the list, then the points (three loads in a chain). Made for
/// hulls of up to 65,535 vertices (uint16_t indices), with the vertices'
/// own indices.
typedef struct imp_climb_node3 {
	imp_vec3 p;
	uint16_t n; ///< neighbours
	/// The neighbours; when n > IMP_CLIMB_NODE_NB, nb[0] | nb[1] << 16 is
	/// where they start in node_more.
	uint16_t nb[IMP_CLIMB_NODE_NB];
} imp_climb_node3;

_Static_assert(sizeof(imp_climb_node3) == 64, "one cache line");

/// The start table's cells per cube face side: directions are binned by
/// the face of the cube their ray crosses and a G x G grid on it (cells
/// at most 14 degrees across at 8), each holding the support vertex along
/// its centre's direction.
#define IMP_CLIMB_GRID 8
#define IMP_CLIMB_CELLS (6 * IMP_CLIMB_GRID * IMP_CLIMB_GRID)

/// The cold part of a 3D shape: user shapes and custom allocators.
typedef struct imp_shape_cold3 {
	imp_support3_fn *support;
	const void *user;
	imp_allocator allocator;
	size_t bytes; ///< size of the allocation
} imp_shape_cold3;

/// A 3D shape. Its first fields are those of struct imp_shape (the same
/// offsets, checked below), so the dimension-independent accessors read
/// either. One allocation holds this record, then the vertices, adjacency
/// and topology of a polytope, then the cold part where needed.
typedef struct imp_shape3 {
	uint32_t magic;
	uint8_t dim;          ///< 3
	uint8_t kind;
	uint8_t climb_auto;   ///< hill climbing under the default options
	uint8_t reserved;
	int32_t count;        ///< core vertices (polytope, box, sphere: 1, capsule: 2), 0 for curved and user shapes
	int32_t base_offset;  ///< the allocation starts this many bytes before the record
	double radius;
	const imp_vec3 *v;    ///< core vertices, NULL for curved and user shapes
	const int32_t *adj_start; ///< count + 1 offsets into adj (polytopes and boxes)
	const int32_t *adj;   ///< vertex neighbours along hull edges
	imp_vec3 center;      ///< a point inside the core, local frame
	imp_vec3 size;        ///< box half sizes; cylinder and cone (radius, radius, half height); ellipsoid semi-axes
	double bound_radius;  ///< max distance of a point of the rounded shape from the local origin
	imp_shape_cold3 *cold; ///< NULL for built-in shapes made with the default allocator
	int8_t box_vertex[8]; ///< box: the vertex index of corner (x > 0) | (y > 0) << 1 | (z > 0) << 2
	int32_t ne, nf;       ///< edges and faces of the hull
	const int32_t *edges; ///< 2 * ne vertex indices
	const int32_t *face_start; ///< nf + 1 offsets into face_vertices
	const int32_t *face_vertices;
	const imp_vec3 *face_normal; ///< unit outward
	int hull_dim;         ///< 0 point, 1 segment, 2 flat polygon, 3 solid (polytopes and boxes)
	const int32_t *adj_edge;   ///< the edge index of each adjacency entry
	const int32_t *vface_start; ///< count + 1 offsets into vface
	const int32_t *vface;      ///< the faces around each vertex
	int32_t axis_start[6];     ///< support vertices along +x, -x, +y, -y, +z, -z: where climbing starts
	const struct imp_climb_node3 *node; ///< the climb's vertex records, NULL: the climb reads v and adj
	const uint16_t *node_more; ///< neighbour lists longer than IMP_CLIMB_NODE_NB, by node offsets
	const uint16_t *start_cell; ///< IMP_CLIMB_CELLS start vertices by direction (with node only)
} imp_shape3;

_Static_assert(offsetof(imp_shape3, magic) == offsetof(struct imp_shape, magic), "shared header");
_Static_assert(offsetof(imp_shape3, dim) == offsetof(struct imp_shape, dim), "shared header");
_Static_assert(offsetof(imp_shape3, kind) == offsetof(struct imp_shape, kind), "shared header");
_Static_assert(offsetof(imp_shape3, count) == offsetof(struct imp_shape, count), "shared header");
_Static_assert(offsetof(imp_shape3, base_offset) == offsetof(struct imp_shape, base_offset), "shared header");
_Static_assert(offsetof(imp_shape3, radius) == offsetof(struct imp_shape, radius), "shared header");

static inline const imp_shape3 *imp_shape3_of(const imp_shape *s)
{
	return (const imp_shape3 *)(const void *)s;
}

/// IMP_OK when `t` is a valid 3D pose: finite, translation within
/// IMP_MAX_COORDINATE, |q|^2 within 1e-6 of 1; else why not.
static inline imp_status imp_pose3_status(imp_pose3 t)
{
	// The common case in one test: |q|^2 within 1e-6 of 1 holds only for
	// a finite q (a NaN, an infinity or a huge component fails it), and
	// the range test only for a finite translation.
	double n = t.q.x * t.q.x + t.q.y * t.q.y + t.q.z * t.q.z + t.q.w * t.q.w;
	if (fabs(t.p.x) <= IMP_MAX_COORDINATE && fabs(t.p.y) <= IMP_MAX_COORDINATE && fabs(t.p.z) <= IMP_MAX_COORDINATE &&
	    fabs(n - 1.0) <= 1e-6)
		return IMP_OK;
	// Which error: x * 0 is 0 for a finite x and NaN for an infinite or NaN
	// one, one test for all seven.
	if (t.p.x * 0.0 + t.p.y * 0.0 + t.p.z * 0.0 + t.q.x * 0.0 + t.q.y * 0.0 + t.q.z * 0.0 + t.q.w * 0.0 != 0.0)
		return IMP_ERR_NOT_FINITE;
	if (!(fabs(t.p.x) <= IMP_MAX_COORDINATE && fabs(t.p.y) <= IMP_MAX_COORDINATE &&
	      fabs(t.p.z) <= IMP_MAX_COORDINATE))
		return IMP_ERR_OUT_OF_RANGE;
	return IMP_ERR_BAD_ROTATION;
}

/// The rotation matrix of a checked pose's quaternion, normalised first.
static inline imp_mat3 imp_pose3_matrix(imp_pose3 t)
{
	// The matrix of q / |q| with one division and no square root.
	double n = t.q.x * t.q.x + t.q.y * t.q.y + t.q.z * t.q.z + t.q.w * t.q.w;
	if (!(n > 0.0))
		return imp_mat3_from_quat(imp_quat_identity());
	return imp_mat3_from_quat_scaled(t.q, 2.0 / n);
}


static inline double imp_max3(double a, double b, double c)
{
	return imp_max(imp_max(a, b), c);
}

/// Index of the vertex farthest along d, every vertex tried, the lowest of
/// equal ones.
#if defined(__SSE2__)
/// Two vertices a step: vertices i and i + 1 are six doubles, (x y) (z x')
/// (y' z'), multiplied by (dx dy) (dz dx) (dy dz) and regrouped so that
/// each lane's sum is imp_vec3_dot's, in its order (the same values as the
/// loop below); each lane keeps its first best by a compare mask (a NaN
/// never wins, as there), and the lanes' tie goes to the lower index. Both
/// lanes start at vertex 0, so that a NaN there wins, as it does in the
/// loop. Without the branch a new best costs, and with half the
/// instructions: bench/narrow3d's 32-vertex Level 1 cells (docs/narrow3d.md).
IMP_ALWAYS_INLINE int imp_support3_brute(const imp_vec3 *v, int n, imp_vec3 d)
{
	_Static_assert(sizeof(imp_vec3) == 3 * sizeof(double), "packed coordinates");
	const double *p = &v[1].x;
	const __m128d dxy = _mm_set_pd(d.y, d.x), dzx = _mm_set_pd(d.x, d.z), dyz = _mm_set_pd(d.z, d.y);
	const __m128d two = _mm_set1_pd(2.0);
	__m128d best = _mm_set1_pd(imp_vec3_dot(v[0], d)), at = _mm_setzero_pd(), idx = _mm_set_pd(2.0, 1.0);
	int i = 1;
	for (; i + 1 < n; i += 2, p += 6) {
		__m128d a = _mm_mul_pd(_mm_loadu_pd(p), dxy), b = _mm_mul_pd(_mm_loadu_pd(p + 2), dzx),
			c = _mm_mul_pd(_mm_loadu_pd(p + 4), dyz);
		// (x dx + y dy) + z dz in each lane.
		__m128d dot = _mm_add_pd(_mm_add_pd(_mm_shuffle_pd(a, b, 2), _mm_shuffle_pd(a, c, 1)),
					 _mm_shuffle_pd(b, c, 2));
		__m128d gt = _mm_cmpgt_pd(dot, best);
		best = _mm_max_pd(dot, best); // dot where gt, else best (a NaN dot keeps best)
		at = _mm_or_pd(_mm_and_pd(gt, idx), _mm_andnot_pd(gt, at));
		idx = _mm_add_pd(idx, two);
	}
	double bv[2], bi[2];
	_mm_storeu_pd(bv, best);
	_mm_storeu_pd(bi, at);
	int k = bv[1] > bv[0] || (bv[1] == bv[0] && bi[1] < bi[0]);
	int besti = (int)bi[k];
	if (i < n && imp_vec3_dot(v[i], d) > bv[k])
		besti = i;
	return besti;
}
#else
IMP_ALWAYS_INLINE int imp_support3_brute(const imp_vec3 *v, int n, imp_vec3 d)
{
	int best = 0;
	double bv = imp_vec3_dot(v[0], d);
	for (int i = 1; i < n; ++i) {
		double s = imp_vec3_dot(v[i], d);
		if (s > bv) {
			bv = s;
			best = i;
		}
	}
	return best;
}
#endif

/// One step of a climb from vertex i at height *best along d: the best of
/// its n neighbours (wide's, else narrow's), points every `stride` bytes
/// from pts, higher than *best (then raised to it), else i.
IMP_ALWAYS_INLINE int imp_climb_step(const char *pts, size_t stride, const int32_t *wide, const uint16_t *narrow,
				     int n, imp_vec3 d, int i, double *best)
{
	int next = i;
	for (int k = 0; k < n; ++k) {
		int j = wide != NULL ? wide[k] : narrow[k];
		double sj = imp_vec3_dot(*(const imp_vec3 *)(const void *)(pts + (size_t)j * stride), d);
		if (sj > *best) {
			*best = sj;
			next = j;
		}
	}
	return next;
}

/// Index of the vertex farthest along d by hill climbing over the hull's
/// edge graph from vertex i (docs/narrow3d.md, "Shapes"): on a convex polytope a
/// vertex with no higher neighbour is a support vertex. Each step moves to
/// the best neighbour, which needs fewer steps than the first better one.
/// Over the climb nodes when the shape has them, else over v and adj.
IMP_ALWAYS_INLINE int imp_support3_climb(const imp_shape3 *s, imp_vec3 d, int i)
{
	const imp_climb_node3 *node = s->node;
	if (node != NULL) {
		const char *pts = (const char *)(const void *)&node[0].p;
		double best = imp_vec3_dot(node[i].p, d);
		for (;;) {
			const imp_climb_node3 *x = &node[i];
			const uint16_t *nb = x->nb;
			if (x->n > IMP_CLIMB_NODE_NB)
				nb = s->node_more + ((uint32_t)x->nb[0] | (uint32_t)x->nb[1] << 16);
			int next = imp_climb_step(pts, sizeof *node, NULL, nb, x->n, d, i, &best);
			if (next == i)
				return i;
			i = next;
		}
	}
	const char *pts = (const char *)(const void *)s->v;
	double best = imp_vec3_dot(s->v[i], d);
	for (;;) {
		int first = s->adj_start[i];
		int next = imp_climb_step(pts, sizeof *s->v, s->adj + first, NULL, s->adj_start[i + 1] - first, d, i,
					  &best);
		if (next == i)
			return i;
		i = next;
	}
}

/// The start table's cell of direction d: the cube face its ray crosses
/// (the axis of its largest component and that component's sign) and the
/// grid square of the other two components over the largest. d = 0 or
/// not finite gives some cell, any start being right for a climb.
static inline int imp_climb_cell(imp_vec3 d)
{
	double ax = fabs(d.x), ay = fabs(d.y), az = fabs(d.z);
	int k;
	double m, u, w;
	if (ax >= ay && ax >= az) {
		k = d.x < 0.0;
		m = ax, u = d.y, w = d.z;
	} else if (ay >= az) {
		k = 2 + (d.y < 0.0);
		m = ay, u = d.z, w = d.x;
	} else {
		k = 4 + (d.z < 0.0);
		m = az, u = d.x, w = d.y;
	}
	// u / m and w / m are in [-1, 1]; NaN (m = 0) fails both tests and
	// takes 0, as does -inf (m subnormal, r infinite).
	const double half = 0.5 * IMP_CLIMB_GRID;
	double r = half / m, fu = u * r + half, fw = w * r + half;
	int iu = fu >= 0.0 ? (fu < IMP_CLIMB_GRID ? (int)fu : IMP_CLIMB_GRID - 1) : 0;
	int iw = fw >= 0.0 ? (fw < IMP_CLIMB_GRID ? (int)fw : IMP_CLIMB_GRID - 1) : 0;
	return (k * IMP_CLIMB_GRID + iu) * IMP_CLIMB_GRID + iw;
}

/// A first vertex for climbing along d: the start table's (the support
/// vertex of its cell's centre direction) when the shape has one, else
/// the support vertex of the axis direction nearest to d.
static inline int imp_support3_start(const imp_shape3 *s, imp_vec3 d)
{
	if (s->start_cell != NULL)
		return s->start_cell[imp_climb_cell(d)];
	double ax = fabs(d.x), ay = fabs(d.y), az = fabs(d.z);
	int k = ax >= ay && ax >= az ? (d.x < 0.0) : (ay >= az ? 2 + (d.y < 0.0) : 4 + (d.z < 0.0));
	return s->axis_start[k];
}

/// The point of the circle of radius r about the z axis farthest along d's
/// xy part (the origin when d is along z), in x and y, and r |d_xy| in z.
/// |d_xy| is taken on d scaled by its larger xy component when its square
/// would leave double's normal range: a direction 1e-159 off the z axis
/// made r / |d_xy| infinite for a cylinder of radius 1e150, and its support
/// NaN (issue 20, fuzz finding 41).
static inline imp_vec3 imp_rim3(double r, imp_vec3 d)
{
	double l2 = d.x * d.x + d.y * d.y;
	if (l2 >= 0x1p-960 && l2 <= 0x1p960) {
		double l = sqrt(l2), k = r / l;
		return imp_vec3_make(k * d.x, k * d.y, r * l);
	}
	double m = imp_max(fabs(d.x), fabs(d.y));
	if (!(m > 0.0))
		return imp_vec3_make(0.0, 0.0, 0.0);
	double ux = d.x / m, uy = d.y / m, lu = sqrt(ux * ux + uy * uy);
	return imp_vec3_make(r * (ux / lu), r * (uy / lu), r * lu * m);
}

/// The core's point farthest along local direction d (not normalised, not
/// zero) for the shapes without vertices; ties broken toward the axis.
static inline imp_vec3 imp_support3_curved(const imp_shape3 *s, imp_vec3 d)
{
	imp_vec3 e = s->size;
	switch (s->kind) {
	case IMP_SHAPE_CYLINDER: {
		imp_vec3 r = imp_rim3(e.x, d);
		return imp_vec3_make(r.x, r.y, d.z >= 0.0 ? e.z : -e.z);
	}
	case IMP_SHAPE_CONE: {
		// The apex, or the rim point of the base along d's xy part:
		// whichever reaches farther along d.
		imp_vec3 r = imp_rim3(e.x, d);
		if (e.z * d.z >= r.z - e.z * d.z)
			return imp_vec3_make(0.0, 0.0, e.z);
		return imp_vec3_make(r.x, r.y, -e.z);
	}
	case IMP_SHAPE_ELLIPSOID: {
		// x = E^2 d / |E d|, E = diag(semi-axes); d scaled first so that
		// its squares neither overflow nor vanish.
		double m = imp_max3(fabs(d.x), fabs(d.y), fabs(d.z));
		imp_vec3 u = imp_vec3_make(e.x * (d.x / m), e.y * (d.y / m), e.z * (d.z / m));
		double l = imp_vec3_length(u);
		return imp_vec3_make(e.x * u.x / l, e.y * u.y / l, e.z * u.z / l);
	}
	default:
		return s->cold->support(s->cold->user, d);
	}
}

/// The smallest feature (vertex, edge, face) of a polytope's core holding
/// the k distinct vertices idx[0 .. k) (1 <= k <= 3); NONE when they share
/// none (rounding gave weights to vertices of no common face).
imp_feature imp_shape3_feature(const imp_shape3 *s, const int *idx, int k);

/// Frees a 3D shape: imp_shape_destroy's 3D half.
void imp_shape3_release(imp_shape3 *s);

/// The box of a curved or user core rotated by r (no radius, no
/// translation); IMP_ERR_NOT_FINITE when a support is not finite.
imp_status imp_shape3_aabb_support(const imp_shape3 *s, const imp_mat3 *r, imp_aabb3 *core);

/// |m| v: the half sizes along the axes of a box of half sizes v turned by
/// m (each row's terms made positive).
static inline imp_vec3 imp_mat3_abs_apply(const imp_mat3 *m, imp_vec3 v)
{
	const double(*a)[3] = m->m;
	return imp_vec3_make(fabs(a[0][0]) * v.x + fabs(a[0][1]) * v.y + fabs(a[0][2]) * v.z,
			     fabs(a[1][0]) * v.x + fabs(a[1][1]) * v.y + fabs(a[1][2]) * v.z,
			     fabs(a[2][0]) * v.x + fabs(a[2][1]) * v.y + fabs(a[2][2]) * v.z);
}

/// imp_shape3_aabb_rel from the rotation's matrix r (imp_pose3_matrix).
static inline imp_status imp_shape3_aabb_rel_m(const imp_shape *shape, imp_mat3 r, imp_aabb3 *rel)
{
	const imp_shape3 *s = imp_shape3_of(shape);
	imp_aabb3 box;
	if (s->kind == IMP_SHAPE_BOX3) {
		// |R| h: the corner farthest along each axis, the same sums as the
		// vertex loop below gives (all its terms made positive), so the same
		// bits.
		imp_vec3 e = imp_mat3_abs_apply(&r, s->size);
		box.lo = imp_vec3_neg(e);
		box.hi = e;
	} else if (s->v != NULL) {
		imp_vec3 w = imp_mat3_apply(&r, s->v[0]);
		box.lo = box.hi = w;
		for (int i = 1; i < s->count; ++i) {
			w = imp_mat3_apply(&r, s->v[i]);
			box.lo = imp_vec3_make(imp_min(box.lo.x, w.x), imp_min(box.lo.y, w.y), imp_min(box.lo.z, w.z));
			box.hi = imp_vec3_make(imp_max(box.hi.x, w.x), imp_max(box.hi.y, w.y), imp_max(box.hi.z, w.z));
		}
	} else {
		imp_status st = imp_shape3_aabb_support(s, &r, &box);
		if (st != IMP_OK)
			return st;
	}
	double rad = s->radius;
	rel->lo = imp_vec3_sub(box.lo, imp_vec3_make(rad, rad, rad));
	rel->hi = imp_vec3_add(box.hi, imp_vec3_make(rad, rad, rad));
	return IMP_OK;
}

/// The box of a checked shape rotated by q, radius included, relative to
/// its position: the box at pose (p, q) is this plus p (the world reuses it
/// while a body only translates). Inline: boxes as |R| h, polytopes by
/// their vertices, the rest by supports.
static inline imp_status imp_shape3_aabb_rel(const imp_shape *shape, imp_quat q, imp_aabb3 *rel)
{
	imp_pose3 at = {{0.0, 0.0, 0.0}, q};
	return imp_shape3_aabb_rel_m(shape, imp_pose3_matrix(at), rel);
}

/// imp_shape_aabb3 for a shape and pose the caller has checked.
static inline imp_status imp_shape3_aabb_unchecked(const imp_shape *shape, imp_pose3 pose, imp_aabb3 *out)
{
	imp_aabb3 rel;
	imp_status st = imp_shape3_aabb_rel(shape, pose.q, &rel);
	if (st != IMP_OK)
		return st;
	out->lo = imp_vec3_add(rel.lo, pose.p);
	out->hi = imp_vec3_add(rel.hi, pose.p);
	return IMP_OK;
}

/// The largest distance of a point of a checked shape (2D or 3D, rounded)
/// from its origin, about which a body turns: the bound radius, or for a
/// user shape the farthest corner of its box (whose faces its supports give
/// exactly); +inf when a user support is not finite. In shape/reach.c.
double imp_shape_reach(const imp_shape *s);

/// The same for the core (the shape without its rounding radius): what a
/// turn about the origin moves. Its rounding adds radius x n to the core's
/// point farthest along any n, so the separation along n of two shapes
/// changes with their turns at most at |w| times this. In shape/reach.c.
double imp_shape_core_reach(const imp_shape *s);

/// Two balls whose centres are c apart (b's minus a's) at time 0 and move
/// apart at velocity u: the first time in [0, t_max] when the centres are
/// within r of each other (0 when they are already), or +inf when they are
/// not within r at any time of [0, t_max]; rounding can only make it
/// earlier. *closest: the time in [0, t_max] at which the centres are
/// closest. The shapes inside the balls of their reach about their origins,
/// however they turn, cannot touch before it. In narrow/toi.c.
double imp_ball_sweep(imp_vec3 c, imp_vec3 u, double r, double t_max, double *closest);

#endif
