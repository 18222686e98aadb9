// SPDX-License-Identifier: MIT
// 3D GJK: the signed-volume sub-distance (Montanari, Petrinic, Barbieri
// 2017) top-down for the tetrahedron, the barycode test (Zhang et al. 2020)
// for triangles in their plane and for segments; Level 1 overlap, Level 2
// distance, Level 3 closest points, penetration from epa3d.c.
#include <float.h>
#include <math.h>
#include <string.h>

#include "narrow/gjk3d_internal.h"
#include "narrow/composite_query.h"
#include "narrow/query_options.h"

/// Polytope pairs stop on a repeated support vertex; this relative gap only
/// catches rounding noise on top of that.
#define POLYTOPE_TOLERANCE 1e-14

/// Scenes whose size is outside [1/BIG, BIG] are scaled by a power of two
/// (exact) into it: the signed volumes are cubes of coordinates and must
/// neither overflow nor underflow.
#define SCALE_BIG 1e60

/// The GJK iteration limit on curved cores, in units of max_iterations.
#define CURVED_ITERATIONS 4

/// EPA iterations on curved cores before the depth descent takes over.
#define CURVED_EPA_ITERATIONS 64

/// The same where both cores are smooth (points and ellipsoids): the
/// descent is Newton's method with the Hessian in closed form there, and
/// EPA only has to give a start in the basin of the deepest minimum. On
/// 1,000 overlapping ellipsoid pairs of bench/narrow3d 8 iterations
/// already gave the depths 48 gave, but on needles and discs (semi-axes
/// 0.05 to 2, tests/test_narrow3d.c) 8 missed the deepest minimum once in
/// 294 pairs, by 1.4e-3; 16 found all of them.
#define SMOOTH_EPA_ITERATIONS 16

/// Smooth cores apart (points and ellipsoids): GJK hands over to Newton's
/// method once v separates (v . w > 0) and the gap between its upper and
/// lower bounds of the distance, (|v|^2 - v . w) / |v|, is below
/// NEWTON_SWITCH times the scene's size: the direction is then within a
/// few degrees, in Newton's basin. Newton runs to a gradient of
/// NEWTON_TOLERANCE relative to the scene in at most NEWTON_ITERATIONS
/// steps (see imp_depth3_nearest). On bench/narrow3d's ellipsoid pairs
/// 0.1 took the fewest instructions of 1e-3 to 0.1 (distant 19.9 GJK
/// iterations became 5.0 steps in all, close 53.8 became 9.4).
#define NEWTON_SWITCH 1e-1
#define NEWTON_TOLERANCE 1e-12
#define NEWTON_ITERATIONS 32

/// A step that leaves |v| where it was (to rounding) while the distance's
/// bounds are further apart than this (relative to |v|^2) is taken, not
/// read as the end of the descent (see flat_step). Stalls closer than
/// this are rounding at the answer: in the 3D test suites, pairs stalled
/// with gaps up to 6e-9 where |v| was over 1e-2 of the scene's reach (an
/// error of 1e-10 of it at most), and with gaps over 1e-3 only where |v|
/// was within 1e-8 of it.
#define STALL_GAP 1e-3

/// How many of GJK's simplices a vertex core against an ellipsoid tries
/// the feature finish from (see feature_finish).
#define MIXED_TRIES 3

/// How many times GJK on curved cores starts again from one point when
/// rounding stalls it with the gap open (see gjk3).
#define GJK_RESTARTS 2

/// How many of GJK's simplices a cylinder or cone tries the cap finish
/// from (see cap_finish).
#define CAP_TRIES 2

static int imp_min_int(int a, int b)
{
	return a < b ? a : b;
}

/// The relative gap below which Nesterov's momentum is switched off.
#define NESTEROV_SWITCH 1e-6

// ---------------------------------------------------------------------------
// Supports.

/// A box's support vertex along d, from its corner table.
IMP_ALWAYS_INLINE int box_support(const imp_shape3 *s, imp_vec3 d)
{
	return s->box_vertex[(d.x > 0.0) | (d.y > 0.0) << 1 | (d.z > 0.0) << 2];
}

/// The support vertex along d of a core searched without climbing, from
/// its vertex list v (its own, or b's moved into a's frame): a box's
/// corner table while v is the box's own corners, else every vertex.
IMP_ALWAYS_INLINE int sharp_support(const imp_shape3 *s, const imp_vec3 *v, imp_vec3 d)
{
	return s->kind == IMP_SHAPE_BOX3 && v == s->v ? box_support(s, d) : imp_support3_brute(v, s->count, d);
}

/// Support vertex of a proxy along local direction d: its index, or -1 for
/// curved and user shapes, with the point in *point (the shape's frame,
/// or a's frame for b's moved vertices).
IMP_ALWAYS_INLINE int proxy_support(imp_proxy3 *x, imp_vec3 d, imp_vec3 *point, bool *bad)
{
	const imp_shape3 *s = x->s;
	if (x->v == NULL) {
		*point = imp_support3_curved(s, d);
		if (s->kind == IMP_SHAPE_USER3 &&
		    !(fabs(point->x) <= IMP_MAX_COORDINATE && fabs(point->y) <= IMP_MAX_COORDINATE &&
		      fabs(point->z) <= IMP_MAX_COORDINATE))
			*bad = true; // NaN, infinite, or beyond the range the queries are exact in
		return -1;
	}
	int i;
	if (s->kind == IMP_SHAPE_BOX3 && x->v == s->v) {
		i = box_support(s, d);
	} else if (x->climb) {
		// From the last support vertex or the nearest axis's, whichever
		// is higher along d: GJK's directions swing widely while the
		// simplex grows around the origin.
		int start = imp_support3_start(s, d);
		if (x->last >= 0 && imp_vec3_dot(x->v[x->last], d) > imp_vec3_dot(x->v[start], d))
			start = x->last;
		i = imp_support3_climb(s, d, start);
	} else {
		i = imp_support3_brute(x->v, s->count, d);
	}
	x->last = i;
	*point = x->v[i];
	return i;
}

void imp_cso_support3(imp_gjk3_ctx *c, imp_vec3 d, imp_svert3 *out)
{
	imp_vec3 pa, pb;
	if (c->scaled) {
		// The cores' own coordinates are not scaled: in a scene of 1e-312
		// a direction of 1e-13 (a scaled v near its answer) times a vertex
		// underflowed to 0 in every dot product, the search took vertex 0,
		// and two tetrahedra through each other were called apart (found
		// with fuzz finding 68). A direction only: brought near unit size
		// by a power of two.
		double m = imp_max3(fabs(d.x), fabs(d.y), fabs(d.z));
		if (m > 0.0 && isfinite(m)) {
			int e = ilogb(m);
			d = imp_vec3_make(ldexp(d.x, -e), ldexp(d.y, -e), ldexp(d.z, -e));
		}
	}
	out->ia = proxy_support(&c->a, d, &pa, &c->bad);
	if (c->b_in_a) {
		out->ib = imp_support3_brute(c->b.v, c->b.s->count, imp_vec3_neg(d));
		pb = c->b.v[out->ib];
	} else {
		out->ib = proxy_support(&c->b, imp_mat3_apply_t(&c->r, imp_vec3_neg(d)), &pb, &c->bad);
		pb = imp_vec3_add(imp_mat3_apply(&c->r, pb), c->p);
	}
	if (c->scaled) {
		pa = imp_vec3_scale(c->scale, pa);
		pb = imp_vec3_scale(c->scale, pb);
	}
	out->a = pa;
	out->w = imp_vec3_sub(pa, pb);
}

/// imp_cso_support3 for the common pair (fast_pair): a searched by brute
/// force or its box table, b's vertices already in a's frame, no scaling.
/// Inline in GJK's loop, where the general support is a call through
/// every case (bench/narrow3d: a third of a query on 8-vertex polytopes).
IMP_ALWAYS_INLINE void cso_support_fast(const imp_gjk3_ctx *c, imp_vec3 d, imp_svert3 *out)
{
	int ia = sharp_support(c->a.s, c->a.v, d);
	int ib = imp_support3_brute(c->b.v, c->b.s->count, imp_vec3_neg(d));
	out->ia = ia;
	out->ib = ib;
	out->a = c->a.v[ia];
	out->w = imp_vec3_sub(out->a, c->b.v[ib]);
}

/// True when the pair can take cso_support_fast.
static bool fast_pair(const imp_gjk3_ctx *c)
{
	return c->a.v != NULL && !c->a.climb && c->b_in_a && !c->scaled;
}

// ---------------------------------------------------------------------------
// Sub-distance. The simplex is kept newest first: s[0] is the vertex just
// added, and in exact arithmetic it is always in the answer. Each solver
// keeps in s[0..k) the smallest subset whose hull holds the point of the
// simplex nearest the origin, its weights in l[0..k), writes the point to
// *v and returns k (4: the origin is inside the tetrahedron).

typedef struct simplex3 {
	imp_svert3 s[4];
	double l[4];
	int n;
	imp_vec3 v;
} simplex3;

/// S1D on segment {x (newest), y}. Inside the segment the nearest point
/// is e x (x x y) / |e|^2, the component of x normal to the edge, which
/// keeps its direction exact when the origin is very near the edge.
static int solve_segment(imp_svert3 x, imp_svert3 y, simplex3 *out)
{
	imp_vec3 e = imp_vec3_sub(y.w, x.w);
	double tx = imp_vec3_dot(x.w, e);
	if (tx >= 0.0) {
		out->s[0] = x;
		out->l[0] = 1.0;
		out->v = x.w;
		return out->n = 1;
	}
	double ty = imp_vec3_dot(y.w, e);
	if (ty <= 0.0) {
		out->s[0] = y;
		out->l[0] = 1.0;
		out->v = y.w;
		return out->n = 1;
	}
	double ee = ty - tx; // |e|^2
	out->s[0] = x;
	out->s[1] = y;
	out->l[0] = ty / ee;
	out->l[1] = -tx / ee;
	out->v = imp_vec3_scale(1.0 / ee, imp_vec3_cross(e, imp_vec3_cross(x.w, y.w)));
	return out->n = 2;
}

static double norm2(imp_vec3 v)
{
	return imp_vec3_dot(v, v);
}

/// *to = *from, the used vertices only.
static void copy_simplex(simplex3 *to, const simplex3 *from)
{
	for (int i = 0; i < from->n; ++i) {
		to->s[i] = from->s[i];
		to->l[i] = from->l[i];
	}
	to->n = from->n;
	to->v = from->v;
}

/// S1D on each of the three edges of a triangle, the nearest kept: for
/// triangles with no area and the codes rounding can give.
static int solve_triangle_edges(imp_svert3 x, imp_svert3 y, imp_svert3 z, simplex3 *out)
{
	simplex3 t;
	solve_segment(x, y, out);
	solve_segment(x, z, &t);
	if (norm2(t.v) < norm2(out->v))
		copy_simplex(out, &t);
	solve_segment(y, z, &t);
	if (norm2(t.v) < norm2(out->v))
		copy_simplex(out, &t);
	return out->n;
}

/// S2D on triangle {x (newest), y, z}: the barycode test (Zhang et al.
/// 2020, Alg. 3) on the triangle projected on the coordinate plane where
/// its normal is largest (Montanari et al. 2017), with the origin's
/// projection on the triangle's plane as the point. The weights are the
/// signed areas of the sub-triangles there; the region tests use 3D dot
/// products, which equal the in-plane ones because the origin's offset
/// from the plane is normal to every edge.
static int solve_triangle(imp_svert3 x, imp_svert3 y, imp_svert3 z, simplex3 *out)
{
	imp_vec3 e1 = imp_vec3_sub(y.w, x.w), e2 = imp_vec3_sub(z.w, x.w);
	imp_vec3 n = imp_vec3_cross(e1, e2);
	double nn = norm2(n), l1 = norm2(e1), l2 = norm2(e2);
	if (nn < 1e-6 * l1 * l2) {
		// A sliver at x (the sine of its angle below 1e-3): the normal
		// from the two shorter edges, at the vertex opposite the longest.
		// A cross product's rounding is eps times the product of its
		// edges' lengths, which for the two long edges of a sliver is
		// the length over the width times its area: the normal of a
		// triangle 1.6e6 long and 2.4e-3 wide (two user boxes, a needle
		// and a plate) from its long edges was tilted by 1.5e-7 about the
		// width, and the origin's projection, 8e5 from the vertices along
		// the length, came out 1.7e-3 nearer than the plane: a distance
		// of 0.0078 answered as 0.0061, the witnesses 0.0078 apart along
		// the normal (issue 20, defect 6, fuzz
		// finding-user3-needle-plate-witness). The three products are the
		// same normal in exact arithmetic; other triangles keep x's.
		imp_vec3 e3 = imp_vec3_sub(z.w, y.w);
		double l3 = norm2(e3);
		if (!(l3 >= l1 && l3 >= l2)) {
			n = l2 >= l1 ? imp_vec3_cross(e3, imp_vec3_neg(e1)) : imp_vec3_cross(e2, e3);
			nn = norm2(n);
		}
	}
	double ax = fabs(n.x), ay = fabs(n.y), az = fabs(n.z);
	if (!(nn > 0.0))
		return solve_triangle_edges(x, y, z, out);
	// Project on the plane of the largest normal component: axes (i, j)
	// in cyclic order after k, so that the projected area is n[k].
	int k = ax >= ay && ax >= az ? 0 : (ay >= az ? 1 : 2);
	double nk = k == 0 ? n.x : (k == 1 ? n.y : n.z);
	imp_vec3 p0 = imp_vec3_scale(imp_vec3_dot(x.w, n) / nn, n);
	imp_vec3 q0 = imp_vec3_sub(x.w, p0), q1 = imp_vec3_sub(y.w, p0), q2 = imp_vec3_sub(z.w, p0);
	// The coordinates (k + 1, k + 2) mod 3 of each point.
	double u0, v0, u1, v1, u2, v2;
	if (k == 0) {
		u0 = q0.y, v0 = q0.z, u1 = q1.y, v1 = q1.z, u2 = q2.y, v2 = q2.z;
	} else if (k == 1) {
		u0 = q0.z, v0 = q0.x, u1 = q1.z, v1 = q1.x, u2 = q2.z, v2 = q2.x;
	} else {
		u0 = q0.x, v0 = q0.y, u1 = q1.x, v1 = q1.y, u2 = q2.x, v2 = q2.y;
	}
	// Signed areas of the sub-triangles opposite each vertex, about p0.
	double cx = u1 * v2 - v1 * u2;
	double cy = u2 * v0 - v2 * u0;
	double cz = u0 * v1 - v0 * u1;
	if (nk < 0.0) {
		cx = -cx;
		cy = -cy;
		cz = -cz;
	}
	int code = (cz > 0.0) | (cy > 0.0) << 1 | (cx > 0.0) << 2;
	switch (code) {
	case 7: {
		double sum = cx + cy + cz;
		out->s[0] = x;
		out->s[1] = y;
		out->s[2] = z;
		out->l[0] = cx / sum;
		out->l[1] = cy / sum;
		out->l[2] = cz / sum;
		out->v = p0;
		return out->n = 3;
	}
	case 6: // z's weight is not positive: edge x y
		return solve_segment(x, y, out);
	case 5: // y's weight is not positive: edge x z
		return solve_segment(x, z, out);
	case 4: // only x's weight is positive: an edge at x, or x itself
		if (imp_vec3_dot(x.w, e1) < 0.0)
			return solve_segment(x, y, out);
		if (imp_vec3_dot(x.w, e2) < 0.0)
			return solve_segment(x, z, out);
		out->s[0] = x;
		out->l[0] = 1.0;
		out->v = x.w;
		return out->n = 1;
	default: // x's weight is not positive: rounding; every edge
		return solve_triangle_edges(x, y, z, out);
	}
}

/// (b - a) . ((c - a) x (d - a)): six times the signed volume of abcd.
static double orient(imp_vec3 a, imp_vec3 b, imp_vec3 c, imp_vec3 d)
{
	return imp_vec3_dot(imp_vec3_sub(b, a), imp_vec3_cross(imp_vec3_sub(c, a), imp_vec3_sub(d, a)));
}

/// S3D on tetrahedron {s[0] (newest), s[1], s[2], s[3]}, top-down: the
/// signed volumes with the origin in place of each vertex are its
/// barycentric weights; the faces through s[0] whose opposite vertex has
/// no positive weight are searched with S2D, the nearest answer kept.
static int solve_tetrahedron(const imp_svert3 *s, simplex3 *out)
{
	imp_vec3 o = {0.0, 0.0, 0.0};
	imp_vec3 w0 = s[0].w, w1 = s[1].w, w2 = s[2].w, w3 = s[3].w;
	double vol = orient(w0, w1, w2, w3);
	double c[4] = {orient(o, w1, w2, w3), orient(w0, o, w2, w3), orient(w0, w1, o, w3), orient(w0, w1, w2, o)};
	if (vol < 0.0)
		for (int j = 0; j < 4; ++j)
			c[j] = -c[j];
	if (vol != 0.0 && c[0] > 0.0 && c[1] > 0.0 && c[2] > 0.0 && c[3] > 0.0) {
		double sum = c[0] + c[1] + c[2] + c[3];
		for (int j = 0; j < 4; ++j) {
			out->s[j] = s[j];
			out->l[j] = c[j] / sum;
		}
		out->v = o;
		return out->n = 4;
	}
	// Faces through s[0]: opposite s[1], s[2], s[3]. Where several are
	// searched the nearest answer is kept, in one of two buffers (best,
	// other), copied out once.
	static const int face[3][2] = {{2, 3}, {1, 3}, {1, 2}};
	bool any = false;
	simplex3 t[2], *best = out, *other = &t[0];
	for (int f = 0; f < 3; ++f) {
		if (vol != 0.0 && c[f + 1] > 0.0)
			continue;
		if (!any) {
			solve_triangle(s[0], s[face[f][0]], s[face[f][1]], best);
			any = true;
			continue;
		}
		solve_triangle(s[0], s[face[f][0]], s[face[f][1]], other);
		if (norm2(other->v) < norm2(best->v)) {
			simplex3 *x = best;
			best = other;
			other = x == out ? &t[1] : x;
		}
	}
	if (!any) {
		// Only s[0]'s own weight is not positive (rounding): every face
		// through it.
		solve_triangle(s[0], s[2], s[3], best);
		for (int f = 1; f < 3; ++f) {
			solve_triangle(s[0], s[face[f][0]], s[face[f][1]], other);
			if (norm2(other->v) < norm2(best->v)) {
				simplex3 *x = best;
				best = other;
				other = x == out ? &t[1] : x;
			}
		}
	}
	if (best != out)
		copy_simplex(out, best);
	return out->n;
}

/// The sub-distance of simplex s[0..n) (newest first) into *out.
static int solve(const imp_svert3 *s, int n, simplex3 *out)
{
	switch (n) {
	case 1:
		out->s[0] = s[0];
		out->l[0] = 1.0;
		out->v = s[0].w;
		return out->n = 1;
	case 2:
		return solve_segment(s[0], s[1], out);
	case 3:
		return solve_triangle(s[0], s[1], s[2], out);
	default:
		return solve_tetrahedron(s, out);
	}
}

int imp_simplex3_nearest(const imp_svert3 *s, int n, imp_svert3 *kept, double *l, imp_vec3 *v)
{
	simplex3 x;
	solve(s, n, &x);
	for (int i = 0; i < x.n; ++i) {
		kept[i] = x.s[i];
		l[i] = x.l[i];
	}
	*v = x.v;
	return x.n;
}

// ---------------------------------------------------------------------------
// Query set-up.

IMP_ALWAYS_INLINE void proxy_init(imp_proxy3 *x, const imp_shape3 *s, const imp_query_options *o)
{
	x->s = s;
	x->v = s->v;
	x->last = -1;
	// AUTO in 3D is the shape's own rule (IMP_HILL_CLIMB3_MIN_VERTICES);
	// hill_climb_min_vertices is the 2D crossover.
	bool climbable = s->v != NULL && s->kind != IMP_SHAPE_BOX3 && s->count >= 3;
	bool climb = o->support == IMP_SUPPORT_HILL_CLIMB || (o->support == IMP_SUPPORT_AUTO && s->climb_auto);
	x->climb = climbable && climb;
}

/// The status of a query's arguments.
static imp_status check_query(const imp_shape *a, imp_pose3 pa, const imp_shape *b, imp_pose3 pb,
			      const imp_query_options *o)
{
	imp_status st = imp_shape_check(a, 3);
	if (st == IMP_OK)
		st = imp_shape_check(b, 3);
	if (st == IMP_OK)
		st = imp_pose3_status(pa);
	if (st == IMP_OK)
		st = imp_pose3_status(pb);
	if (st == IMP_OK && o != &imp_default_options && !imp_options_valid(o))
		st = IMP_ERR_BAD_OPTIONS;
	return st;
}

/// Both shapes are live 3D shapes (not freed, not 2D).
IMP_ALWAYS_INLINE bool shapes3_ok(const imp_shape *a, const imp_shape *b)
{
	return a != NULL && b != NULL && a->magic == IMP_SHAPE_MAGIC && b->magic == IMP_SHAPE_MAGIC && a->dim == 3 &&
	       b->dim == 3;
}

/// The quick test of a query's arguments, stricter than check_query: one
/// sum for the translations (it carries every NaN and infinity) and two
/// norm tests (false for any NaN). *na, *nb: the quaternions' |q|^2.
IMP_ALWAYS_INLINE bool quick_args(const imp_shape *a, imp_pose3 pa, const imp_shape *b, imp_pose3 pb,
				  const imp_query_options *o, double *na, double *nb)
{
	double reach = fabs(pa.p.x) + fabs(pa.p.y) + fabs(pa.p.z) + fabs(pb.p.x) + fabs(pb.p.y) + fabs(pb.p.z);
	*na = pa.q.x * pa.q.x + pa.q.y * pa.q.y + pa.q.z * pa.q.z + pa.q.w * pa.q.w;
	*nb = pb.q.x * pb.q.x + pb.q.y * pb.q.y + pb.q.z * pb.q.z + pb.q.w * pb.q.w;
	return shapes3_ok(a, b) && reach <= IMP_MAX_COORDINATE && fabs(*na - 1.0) <= 1e-6 && fabs(*nb - 1.0) <= 1e-6 &&
	       (o == &imp_default_options || imp_options_valid(o));
}

/// A bound on the distance of a tiny shape's points from its origin, with
/// no squares (which underflow): for scenes whose bound radii say < 1e-60.
static double tiny_reach3(const imp_shape3 *s)
{
	if (s->v == NULL)
		return s->bound_radius;
	double m = 0.0;
	for (int i = 0; i < s->count; ++i)
		m = imp_max(m, imp_max3(fabs(s->v[i].x), fabs(s->v[i].y), fabs(s->v[i].z)));
	return 2.0 * m + s->radius;
}

static void setup_rel(imp_gjk3_ctx *c, const imp_shape3 *sa, const imp_shape3 *sb, imp_mat3 r, imp_vec3 p,
		      const imp_query_options *o, bool boolean);

/// Checks everything and sets up the pair in a's frame.
static imp_status setup(imp_gjk3_ctx *c, const imp_shape *a, imp_pose3 pa, const imp_shape *b, imp_pose3 pb,
			const imp_query_options *o, bool boolean)
{
	double na, nb;
	if (!quick_args(a, pa, b, pb, o, &na, &nb)) {
		// The quick test is stricter than the exact one: go on when the
		// exact one finds nothing wrong.
		imp_status st = check_query(a, pa, b, pb, o);
		if (st != IMP_OK)
			return st;
	}
	// b's pose in a's frame: one relative quaternion, one matrix (the
	// quaternions are unit to 1e-6 only, so they are normalised first).
	imp_quat qa = imp_quat_scale(1.0 / sqrt(na), pa.q), qb = imp_quat_scale(1.0 / sqrt(nb), pb.q);
	setup_rel(c, imp_shape3_of(a), imp_shape3_of(b), imp_mat3_from_quat(imp_quat_mul(imp_quat_conj(qa), qb)),
		  imp_quat_rotate_inv(qa, imp_vec3_sub(pb.p, pa.p)), o, boolean);
	return IMP_OK;
}

/// b's vertices moved into a's frame once, where b is a small polytope
/// searched by brute force (its supports then need no turn).
static void move_b_into_a(imp_gjk3_ctx *c)
{
	const imp_shape3 *sb = c->b.s;
	if (sb->v != NULL && !c->b.climb && sb->count <= IMP_PRETRANSFORM3_MAX && sb->kind != IMP_SHAPE_BOX3) {
		for (int i = 0; i < sb->count; ++i)
			c->bw[i] = imp_vec3_add(imp_mat3_apply(&c->r, sb->v[i]), c->p);
		c->b.v = c->bw;
		c->b_in_a = true;
	}
}

/// setup from b's pose in a's frame (rotation r, origin p), for shapes and
/// poses already checked.
static void setup_rel(imp_gjk3_ctx *c, const imp_shape3 *sa, const imp_shape3 *sb, imp_mat3 r, imp_vec3 p,
		      const imp_query_options *o, bool boolean)
{
	c->r = r;
	c->p = p;
	c->cutoff = INFINITY;
	c->bad = false;
	c->b_in_a = false;
	proxy_init(&c->a, sa, o);
	proxy_init(&c->b, sb, o);
	// Cubes of coordinates must stay within double's range: scenes far
	// from unit size are scaled by a power of two, which is exact.
	double size = sa->bound_radius + sb->bound_radius + imp_vec3_length(c->p);
	c->scale = 1.0;
	c->scaled = false;
	if (size < 1.0 / SCALE_BIG) {
		// The bound radii and |p| square coordinates, which underflow
		// below 1e-154: two points 1.3e-284 apart had size 0, were left
		// unscaled, and the squared distance of 0 called them touching
		// (issue 20, defect 6, finding-tiny-points-witness).
		size = tiny_reach3(sa) + tiny_reach3(sb) + fabs(c->p.x) + fabs(c->p.y) + fabs(c->p.z);
	}
	if (size > SCALE_BIG || (size < 1.0 / SCALE_BIG && size > 0.0)) {
		int e;
		frexp(size, &e);
		// 2^1000 at most: 2^-e overflows for scenes below 2^-1023 (a
		// point 1.9e-318 from another was scaled by infinity, and its
		// witnesses came out NaN; issue 20, finding 39). Such a scene
		// stays at least 2^-74 across, whose cubes are well in range.
		c->scale = ldexp(1.0, e < -1000 ? 1000 : -e);
		c->scaled = true;
	}
	c->reach = size * c->scale;
	// Not at Level 1, whose exits often come after one support (1,000
	// distant 8-vertex pairs: 771 cycles a query without, 1,046 with;
	// close pairs the same either way); spheres and capsules always, for
	// their closed form.
	if (!boolean || sb->count <= 2)
		move_b_into_a(c);
}

// ---------------------------------------------------------------------------
// The GJK loop.

typedef struct gjk3_out {
	simplex3 x;     ///< final simplex, weights and nearest point (scaled)
	int iterations;
	imp_query_state state;
	bool closed_form; ///< answered by segment_pair, not GJK: the cache is left alone
} gjk3_out;

static bool same_vertex(const imp_svert3 *p, const imp_svert3 *q)
{
	if (p->ia >= 0 && p->ib >= 0)
		return p->ia == q->ia && p->ib == q->ib;
	return p->w.x == q->w.x && p->w.y == q->w.y && p->w.z == q->w.z;
}

/// Vertex i of a (p_is_a) or of b, in a's frame (scaled).
static imp_vec3 p_vertex(const imp_gjk3_ctx *c, bool p_is_a, int i)
{
	imp_vec3 v;
	if (p_is_a)
		v = c->a.s->v[i];
	else
		v = c->b_in_a ? c->b.v[i] : imp_vec3_add(imp_mat3_apply(&c->r, c->b.s->v[i]), c->p);
	return c->scaled ? imp_vec3_scale(c->scale, v) : v;
}

static bool warm_start(imp_gjk3_ctx *c, const imp_simplex_cache *cache, simplex3 *x)
{
	if (cache == NULL || cache->dim != 3 || cache->count < 1 || cache->count > 4)
		return false;
	const imp_shape3 *sa = c->a.s, *sb = c->b.s;
	if (sa->v == NULL || sb->v == NULL)
		return false;
	imp_svert3 s[4];
	int k = cache->count;
	for (int i = 0; i < k; ++i) {
		int ia = cache->index_a[i], ib = cache->index_b[i];
		if (ia < 0 || ia >= sa->count || ib < 0 || ib >= sb->count)
			return false;
		imp_vec3 pa = p_vertex(c, true, ia), pb = p_vertex(c, false, ib);
		s[i] = (imp_svert3){imp_vec3_sub(pa, pb), pa, ia, ib};
		for (int j = 0; j < i; ++j)
			if (same_vertex(&s[i], &s[j]))
				return false;
	}
	c->a.last = s[0].ia;
	c->b.last = s[0].ib;
	solve(s, k, x);
	return true;
}

static bool has_cached_direction(const imp_simplex_cache *cache)
{
	if (cache == NULL || cache->count == 0 || cache->dim != 3)
		return false;
	double dd = cache->direction[0] * cache->direction[0] + cache->direction[1] * cache->direction[1] +
		    cache->direction[2] * cache->direction[2];
	return dd > 0.0 && isfinite(dd);
}

static void write_cache(imp_simplex_cache *cache, const struct gjk3_out *g)
{
	if (cache == NULL || g->closed_form)
		return;
	const simplex3 *x = &g->x;
	cache->count = (uint8_t)x->n;
	cache->dim = 3;
	cache->reserved = 0;
	for (int i = 0; i < 4; ++i) {
		cache->index_a[i] = i < x->n ? x->s[i].ia : -1;
		cache->index_b[i] = i < x->n ? x->s[i].ib : -1;
	}
	cache->direction[0] = x->v.x;
	cache->direction[1] = x->v.y;
	cache->direction[2] = x->v.z;
}

/// True when |v| (squared: vv) is within rounding of zero for the
/// simplex's coordinates.
static bool at_rounding(const simplex3 *x, double vv)
{
	double m = 0.0;
	for (int i = 0; i < x->n; ++i)
		m = imp_max(m, imp_max3(fabs(x->s[i].w.x), fabs(x->s[i].w.y), fabs(x->s[i].w.z)));
	double tiny = 64 * DBL_EPSILON * m;
	return vv <= tiny * tiny;
}

/// Whether GJK is near enough for Newton's finish (see NEWTON_SWITCH):
/// direction d separates (dw = d . w > 0, w the support along -d) and the
/// lower bound of the distance it gives, dw / |d|, is within NEWTON_SWITCH
/// of the scene of the upper bound |v|.
static bool near_enough(const imp_gjk3_ctx *c, imp_vec3 d, double dw, double v_length)
{
	return dw > 0.0 && v_length - dw / sqrt(norm2(d)) <= NEWTON_SWITCH * c->reach;
}

/// Newton's finish from direction -d (imp_depth3_nearest), within what is
/// left of the iteration limit, its steps added to *iterations: true when
/// it converged, with the answer in x (one vertex, C's nearest point).
static bool newton_finish(imp_gjk3_ctx *c, imp_vec3 d, int limit, simplex3 *x, int *iterations)
{
	imp_svert3 near;
	int steps = 0, budget = imp_min_int(NEWTON_ITERATIONS, limit - *iterations);
	bool done = budget > 0 && imp_depth3_nearest(c, imp_vec3_neg(d), budget, NEWTON_TOLERANCE, &near, &steps);
	*iterations += steps;
	if (done) {
		x->n = 1;
		x->s[0] = near;
		x->l[0] = 1.0;
		x->v = near.w;
	}
	return done;
}

// ---------------------------------------------------------------------------
// A vertex core (polytope, box, segment) against an ellipsoid, apart.
//
// With u the unit direction from the vertex core P to the ellipsoid E, the
// distance is -min over u of g(u) = h_P(u) + h_E(-u) (h: support
// functions). h_P has kinks where P's support changes, so Newton on all of
// g fails; but the feature F of P that holds the nearest point (GJK's
// simplex names it) makes the rest smooth: on a face, u is the face's
// normal; on an edge, u turns on the circle normal to the edge, where both
// ends tie; at a vertex, u is free and h_P(u) = v . u. The answer is
// accepted only if it is optimal: P's support along u is F, and the point
// of F nearest E's support lies in F.

/// The distinct vertex indices of one shape (a's, else b's) among the
/// simplex vertices s[0..n) with positive weight, into idx; their count.
static int weighted_indices(const imp_svert3 *s, const double *l, int n, bool of_a, int *idx)
{
	int k = 0;
	for (int i = 0; i < n; ++i) {
		int v = of_a ? s[i].ia : s[i].ib;
		if (!(l[i] > 0.0) || v < 0)
			continue;
		bool seen = false;
		for (int j = 0; j < k; ++j)
			seen = seen || idx[j] == v;
		if (!seen)
			idx[k++] = v;
	}
	return k;
}

/// P's support along u and E's along -u, from one support of C; P's
/// support vertex index into *ip when ip is given.
static void supports_pe(imp_gjk3_ctx *c, bool p_is_a, imp_vec3 u, imp_vec3 *sp, imp_vec3 *se, int *ip)
{
	imp_svert3 w;
	imp_cso_support3(c, p_is_a ? u : imp_vec3_neg(u), &w);
	imp_vec3 sb = imp_vec3_sub(w.a, w.w);
	*sp = p_is_a ? w.a : sb;
	*se = p_is_a ? sb : w.a;
	if (ip != NULL)
		*ip = p_is_a ? w.ia : w.ib;
}

/// x^T H y for E's support function at -u (a's frame, scaled).
static double e_form(const imp_gjk3_ctx *c, bool p_is_a, imp_vec3 u, imp_vec3 x, imp_vec3 y)
{
	if (p_is_a) {
		// E is b: into b's own frame.
		u = imp_mat3_apply_t(&c->r, u);
		x = imp_mat3_apply_t(&c->r, x);
		y = imp_mat3_apply_t(&c->r, y);
	}
	const imp_shape3 *e = p_is_a ? c->b.s : c->a.s;
	return c->scale * imp_core_form3(e, u, x, y);
}

/// Newton's method for min g(u) over the unit u normal to `axis` (an
/// edge's unit direction), or over all unit u (axis zero: a vertex), with
/// h_P(u) = v . u. *u in: the start; out: the minimum; *q: E's support
/// there. False when it did not converge in `budget` steps.
static bool feature_newton(imp_gjk3_ctx *c, bool p_is_a, imp_vec3 v, imp_vec3 axis, imp_vec3 *u, imp_vec3 *q,
			   int budget, int *steps)
{
	bool edge = norm2(axis) > 0.0;
	imp_vec3 sp, n = *u;
	supports_pe(c, p_is_a, n, &sp, q, NULL);
	double round = 64 * DBL_EPSILON * c->reach;
	while (*steps < budget) {
		imp_vec3 w = imp_vec3_sub(v, *q); // the point of C along n, less P's part off F
		double g = imp_vec3_dot(w, n);
		imp_vec3 e1 = edge ? imp_vec3_cross(axis, n) : imp_any_normal3(n);
		imp_vec3 e2 = imp_vec3_cross(n, e1);
		double g1 = imp_vec3_dot(w, e1), g2 = edge ? 0.0 : imp_vec3_dot(w, e2), gl = hypot(g1, g2);
		double scale = imp_max(c->reach, imp_max3(fabs(w.x), fabs(w.y), fabs(w.z)));
		if (gl <= NEWTON_TOLERANCE * scale) {
			*u = n;
			return true;
		}
		double h11 = e_form(c, p_is_a, n, e1, e1) - g, h12 = 0.0, h22 = 1.0, u1, u2 = 0.0;
		if (!edge) {
			h12 = e_form(c, p_is_a, n, e1, e2);
			h22 = e_form(c, p_is_a, n, e2, e2) - g;
		}
		if (!imp_tangent_newton(g1, g2, h11, h12, h22, &u1, &u2)) {
			// Not convex here (u does not separate yet): a gradient step.
			u1 = -0.5 * g1 / gl;
			u2 = -0.5 * g2 / gl;
		}
		// Backtracking on g, as in the depth descent (epa3d.c).
		bool moved = false;
		for (int half = 0; half < 40 && !moved && *steps < budget; ++half) {
			imp_vec3 m = imp_vec3_add(n, imp_vec3_add(imp_vec3_scale(u1, e1), imp_vec3_scale(u2, e2)));
			m = imp_vec3_scale(1.0 / sqrt(norm2(m)), m);
			imp_vec3 qm;
			supports_pe(c, p_is_a, m, &sp, &qm, NULL);
			++*steps;
			imp_vec3 wm = imp_vec3_sub(v, qm);
			double gm = imp_vec3_dot(wm, m);
			imp_vec3 t = imp_vec3_sub(wm, imp_vec3_scale(gm, m));
			if (edge)
				t = imp_vec3_scale(imp_vec3_dot(t, imp_vec3_cross(axis, m)), imp_vec3_cross(axis, m));
			if (gm < g || (gm <= g + round && sqrt(norm2(t)) < gl)) {
				n = m;
				*q = qm;
				moved = true;
			}
			u1 *= 0.5;
			u2 *= 0.5;
		}
		if (!moved)
			return false;
	}
	return false;
}

/// Writes the answer: F's vertices idx[0..k) (P's indices) with weights
/// l, against E's point q.
static void feature_answer(const imp_gjk3_ctx *c, bool p_is_a, const int *idx, const double *l, int k, imp_vec3 q,
			   simplex3 *x)
{
	x->n = k;
	x->v = imp_vec3_make(0.0, 0.0, 0.0);
	for (int j = 0; j < k; ++j) {
		imp_vec3 pv = p_vertex(c, p_is_a, idx[j]);
		imp_svert3 s = p_is_a ? (imp_svert3){imp_vec3_sub(pv, q), pv, idx[j], -1}
				      : (imp_svert3){imp_vec3_sub(q, pv), q, -1, idx[j]};
		x->s[j] = s;
		x->l[j] = l[j];
		x->v = imp_vec3_add(x->v, imp_vec3_scale(l[j], s.w));
	}
}

/// Barycentric weights of point y in triangle (a, b, d) seen along unit
/// normal n; false when y is outside it. In the triangle's own plane, on
/// axes along its longest edge and across it: a face 6e14 long and 145
/// wide (a box plate) had weights from 3D cross products of its 3e14-long
/// corner vectors, whose rounding (products of 1e29) is 1e-4 of its area,
/// and the point they made was 1.3e10 off the face's nearest point, the
/// distance with it (a distance of 138.6 answered as 1.3e10). Along and
/// across the longest edge the products are only length times width, and
/// the rounding of the across coordinates moves the point by no more than
/// itself.
static bool triangle_weights(imp_vec3 a, imp_vec3 b, imp_vec3 d, imp_vec3 n, imp_vec3 y, double *l)
{
	imp_vec3 ab = imp_vec3_sub(b, a), ad = imp_vec3_sub(d, a), bd = imp_vec3_sub(d, b), ay = imp_vec3_sub(y, a);
	double lab = norm2(ab), lad = norm2(ad), lbd = norm2(bd);
	imp_vec3 e = lab >= lad && lab >= lbd ? ab : (lad >= lbd ? ad : bd);
	imp_vec3 e1 = imp_robust_unit3(e, imp_vec3_make(0.0, 0.0, 0.0));
	imp_vec3 e2 = imp_vec3_cross(n, e1); // e1 x e2 = n: areas below are n . (x x y)
	double bx = imp_vec3_dot(ab, e1), by = imp_vec3_dot(ab, e2), dx = imp_vec3_dot(ad, e1), dy = imp_vec3_dot(ad, e2);
	double yx = imp_vec3_dot(ay, e1), yy = imp_vec3_dot(ay, e2);
	double area = bx * dy - by * dx;
	if (!(area > 0.0))
		return false;
	l[1] = (yx * dy - yy * dx) / area;
	l[2] = (bx * yy - by * yx) / area;
	l[0] = 1.0 - l[1] - l[2];
	if (!(l[0] >= 0.0 && l[1] >= 0.0 && l[2] >= 0.0))
		return false;
	for (int j = 0; j < 3; ++j)
		l[j] = imp_max(l[j], 0.0);
	double sum = l[0] + l[1] + l[2];
	for (int j = 0; j < 3; ++j)
		l[j] /= sum;
	return true;
}

/// The finish for a vertex core against an ellipsoid (see above), from
/// GJK's simplex x and direction -x->v. True with the answer in x.
static bool feature_finish(imp_gjk3_ctx *c, simplex3 *x, int limit, int *iterations)
{
	bool p_is_a = c->a.v != NULL;
	const imp_shape3 *ps = p_is_a ? c->a.s : c->b.s;
	int idx[4];
	int k = weighted_indices(x->s, x->l, x->n, p_is_a, idx);
	if (k == 0)
		return false;
	double vv = norm2(x->v);
	if (!(vv > 0.0))
		return false;
	// u from P to E: C = A - B, so from a to b is -v.
	imp_vec3 u = imp_vec3_scale((p_is_a ? -1.0 : 1.0) / sqrt(vv), x->v);
	double round = 64 * DBL_EPSILON * c->reach;
	int budget = imp_min_int(NEWTON_ITERATIONS, limit - *iterations);
	if (budget <= 0)
		return false;
	imp_vec3 q, sp;
	// Active-set rounds: a feature whose answer fails the optimality test
	// hands over to the feature the test points to (an end of an edge, a
	// face's edge, P's actual support vertex), a few times.
	for (int round_no = 0; round_no < 8; ++round_no) {
		if (k >= 3) {
			// A face: u is its outward normal.
			imp_feature f = imp_shape3_feature(ps, idx, 3);
			if (f.kind != IMP_FEATURE_FACE)
				return false;
			imp_vec3 n = ps->face_normal[f.index];
			u = p_is_a ? n : imp_mat3_apply(&c->r, n);
			supports_pe(c, p_is_a, u, &sp, &q, NULL);
			++*iterations;
			int f0 = ps->face_start[f.index], fn = ps->face_start[f.index + 1] - f0;
			const int32_t *ring = ps->face_vertices + f0;
			imp_vec3 v0 = p_vertex(c, p_is_a, ring[0]);
			double d = imp_vec3_dot(u, imp_vec3_sub(q, v0));
			if (!(d > 0.0) || imp_vec3_dot(u, sp) > imp_vec3_dot(u, v0) + round)
				return false;
			imp_vec3 y = imp_vec3_sub(q, imp_vec3_scale(d, u)); // q on the face's plane
			for (int j = 1; j + 1 < fn; ++j) {
				double l[3];
				if (triangle_weights(v0, p_vertex(c, p_is_a, ring[j]), p_vertex(c, p_is_a, ring[j + 1]), u, y,
						     l)) {
					int tri[3] = {ring[0], ring[j], ring[j + 1]};
					feature_answer(c, p_is_a, tri, l, 3, q, x);
					return true;
				}
			}
			// Outside: the ring's edge y is farthest beyond.
			double worst = -INFINITY;
			for (int j = 0; j < fn; ++j) {
				imp_vec3 s0 = p_vertex(c, p_is_a, ring[j]), s1 = p_vertex(c, p_is_a, ring[(j + 1) % fn]);
				imp_vec3 out = imp_vec3_cross(imp_vec3_sub(s1, s0), u); // outward in the plane
				double beyond = imp_vec3_dot(imp_vec3_sub(y, s0), out) / sqrt(norm2(out));
				if (beyond > worst) {
					worst = beyond;
					idx[0] = ring[j];
					idx[1] = ring[(j + 1) % fn];
				}
			}
			k = 2;
			continue;
		}
		imp_vec3 v1 = p_vertex(c, p_is_a, idx[0]), axis = {0.0, 0.0, 0.0};
		if (k == 2) {
			imp_vec3 e = imp_vec3_sub(p_vertex(c, p_is_a, idx[1]), v1);
			axis = imp_vec3_scale(1.0 / sqrt(norm2(e)), e);
			u = imp_vec3_sub(u, imp_vec3_scale(imp_vec3_dot(u, axis), axis));
			if (!(norm2(u) > 0.0))
				return false;
			u = imp_vec3_scale(1.0 / sqrt(norm2(u)), u);
		}
		int steps = 0;
		bool done = feature_newton(c, p_is_a, v1, axis, &u, &q, budget, &steps);
		*iterations += steps;
		budget -= steps;
		if (!done)
			return false;
		int top;
		supports_pe(c, p_is_a, u, &sp, &q, &top);
		if (!(imp_vec3_dot(u, imp_vec3_sub(q, v1)) > 0.0))
			return false;
		if (imp_vec3_dot(u, sp) > imp_vec3_dot(u, v1) + round) {
			// F is not P's support along u: on from P's support vertex
			// with F, if they make a face (an edge and a third vertex),
			// else with F's first vertex if they make an edge, else alone.
			if (top < 0 || top == idx[0] || (k == 2 && top == idx[1]))
				return false;
			int three[3] = {top, idx[0], idx[1]}, two[2] = {top, idx[0]};
			if (k == 2 && imp_shape3_feature(ps, three, 3).kind == IMP_FEATURE_FACE) {
				memcpy(idx, three, sizeof three);
				k = 3;
			} else {
				k = imp_shape3_feature(ps, two, 2).kind == IMP_FEATURE_EDGE ? 2 : 1;
				memcpy(idx, two, sizeof two);
			}
			continue;
		}
		if (k == 1) {
			double l = 1.0;
			feature_answer(c, p_is_a, idx, &l, 1, q, x);
			return true;
		}
		imp_vec3 v2 = p_vertex(c, p_is_a, idx[1]);
		double t = imp_vec3_dot(imp_vec3_sub(q, v1), imp_vec3_sub(v2, v1)) / norm2(imp_vec3_sub(v2, v1));
		if (!(t >= 0.0 && t <= 1.0)) {
			// The nearest point is beyond an end: on from that end.
			idx[0] = t < 0.0 ? idx[0] : idx[1];
			k = 1;
			continue;
		}
		double l[2] = {1.0 - t, t};
		feature_answer(c, p_is_a, idx, l, 2, q, x);
		return true;
	}
	return false;
}

/// Whether the finish above applies: a core with two or more vertices
/// against an ellipsoid.
static bool vertex_against_ellipsoid(const imp_gjk3_ctx *c)
{
	const imp_shape3 *a = c->a.s, *b = c->b.s;
	return (a->v != NULL && a->count >= 2 && b->kind == IMP_SHAPE_ELLIPSOID) ||
	       (b->v != NULL && b->count >= 2 && a->kind == IMP_SHAPE_ELLIPSOID);
}

/// Whether a plain GJK step from simplex x whose |v|^2 did not fall below
/// vv is kept all the same: the new support w (v . w = vw) is in the new
/// simplex `next`, and the bounds on the distance, vw / |v| <= d <= |v|,
/// are still far apart (vv - vw > STALL_GAP vv). The descent along a new
/// edge from v to w is (vv - vw)^2 / |w - v|^2, which falls below the
/// rounding of vv once w is 1 / sqrt(DBL_EPSILON) = 6.7e7 times farther
/// than |v| (vertices 1e29 away from a shape at the origin): the step is
/// real, only too small for norm2 to see, and its new v turns towards the
/// support that ends the search. Stopping there answered |v| as the
/// distance of pairs whose lower bound was below 0: 2.5e20 for a cone
/// touching a triangle 1.6e29 long, 2.4e12 for a capsule touching a cone
/// 2.1e21 wide (issue 20, findings 25 and 27, where a warm direction led
/// GJK there; other starts can). The other exits end such steps: w
/// repeated, the tolerance, the iteration limit.
IMP_NOINLINE static bool flat_step(const simplex3 *x, const imp_svert3 *w, const simplex3 *next, double vv)
{
	// v . w again, here: kept live across solve() it cost gjk3 1.8% more
	// instructions on ordinary pairs (callgrind).
	double vw = imp_vec3_dot(x->v, w->w);
	return vv - vw > STALL_GAP * vv && same_vertex(&next->s[0], w);
}

// ---------------------------------------------------------------------------
// A flat cap (a cylinder's two end discs, a cone's base) against any core.
//
// GJK converges slowly where the nearest point of C lies inside a flat
// face of one core and the other is curved: the flat core's support along
// any direction but the face's exact normal is a rim point, up to the
// cap's radius aside, and the triangle those make with the simplex gains
// less than rounding once the gap is below about 1e-6 of the scene. A unit
// ball 62.4 above a cylinder's cap of radius 252 stopped 3.2e-7 above the
// distance (issue 20, fuzz finding-ellipsoid-cylinder-swap: the order of
// the pair gave other roundings, and an answer 2e-12 off). The cap's
// normal u is known exactly, so the answer is taken there when it is
// optimal: the other core's support q along -u lies beyond the cap's plane
// and its projection y on the plane lies in the disc. The plane through
// the cap, normal u, then separates the cores with gap u . (q - y) =
// |q - y|, a lower bound that a pair of points attains: the distance.

/// Whether s has a flat cap: a cylinder or a cone.
static bool capped_core(const imp_shape3 *s)
{
	return s->kind == IMP_SHAPE_CYLINDER || s->kind == IMP_SHAPE_CONE;
}

/// The cap finish (see above) for P, a's core (p_is_a) or b's, from GJK's
/// point x->v of C: the cap facing the other core along -v (a to b is -v)
/// is tried. True with a one-vertex answer in x.
static bool cap_finish_of(imp_gjk3_ctx *c, bool p_is_a, simplex3 *x, int *iterations)
{
	const imp_shape3 *ps = p_is_a ? c->a.s : c->b.s;
	// Towards the other core, in P's own frame.
	imp_vec3 towards = imp_vec3_scale(p_is_a ? -1.0 : 1.0, x->v);
	if (!p_is_a)
		towards = imp_mat3_apply_t(&c->r, towards);
	double sz = towards.z > 0.0 ? 1.0 : -1.0;
	if (ps->kind == IMP_SHAPE_CONE && sz > 0.0)
		return false; // a cone's only cap is its base, at -z
	// The cap's centre and normal, in a's frame (scaled).
	imp_vec3 centre = imp_vec3_make(0.0, 0.0, sz * ps->size.z), u = imp_vec3_make(0.0, 0.0, sz);
	if (!p_is_a) {
		centre = imp_vec3_add(imp_mat3_apply(&c->r, centre), c->p);
		u = imp_mat3_apply(&c->r, u);
	}
	if (c->scaled)
		centre = imp_vec3_scale(c->scale, centre);
	imp_vec3 sp, q;
	supports_pe(c, p_is_a, u, &sp, &q, NULL);
	++*iterations;
	if (c->bad)
		return false;
	double d = imp_vec3_dot(u, imp_vec3_sub(q, centre));
	if (!(d > 0.0))
		return false;
	imp_vec3 y = imp_vec3_sub(q, imp_vec3_scale(d, u)); // q on the cap's plane
	imp_vec3 t = imp_vec3_sub(y, centre);
	t = imp_vec3_sub(t, imp_vec3_scale(imp_vec3_dot(t, u), u));
	double rim = ps->size.x * c->scale;
	if (!(norm2(t) <= rim * rim))
		return false;
	imp_svert3 s = p_is_a ? (imp_svert3){imp_vec3_sub(y, q), y, -1, -1} : (imp_svert3){imp_vec3_sub(q, y), q, -1, -1};
	x->n = 1;
	x->s[0] = s;
	x->l[0] = 1.0;
	x->v = s.w;
	return true;
}

// The rim of a cap (where the cap meets the side) against any core: C
// there is the rim circle swept over the other core's nearby feature, and
// its nearest point sits where that curved patch meets the flat one (the
// cap against the other core's face). GJK creeps along the circle,
// gaining a factor 4 of the gap every two steps, and stalled at 7e-9 of
// |v|^2 for a box corner level with a cone's base, 2.9e-8 long and
// 2.2e-7 by the other order (fuzz finding 52; 47 and 46 are of the kind).
// The rim point nearest the other core's witness q is exact: the point of
// the circle along q's direction from the axis. The pair (rim point, q) is
// the answer when C's support along it shows a gap within GJK's tolerance,
// the test GJK itself stops on.

/// The rim circle of P (its frame, unscaled) nearest point x: the circle
/// (z = zr, radius rc) point along x's direction from the axis, into *y;
/// the distance, or +inf on the axis.
static double rim_point(double rc, double zr, imp_vec3 x, imp_vec3 *y)
{
	double rho = hypot(x.x, x.y);
	if (!(rho > 0.0) || !isfinite(rho))
		return INFINITY; // on the axis: every rim point is as near
	*y = imp_vec3_make(rc * (x.x / rho), rc * (x.y / rho), zr);
	return hypot(rho - rc, x.z - zr);
}

/// The slope of half the squared distance to the rim circle along segment
/// a b at t: e . (q - y), q = a + t e, y the rim point nearest q (its own
/// change does not count: y is the nearest).
static double rim_slope(double rc, double zr, imp_vec3 a, imp_vec3 e, double t)
{
	imp_vec3 q = imp_vec3_add(a, imp_vec3_scale(t, e)), y;
	if (!(rim_point(rc, zr, q, &y) < INFINITY))
		return 0.0;
	return imp_vec3_dot(e, imp_vec3_sub(q, y));
}

/// The point of segment a b (P's frame) nearest the rim circle: where the
/// slope changes sign, by bisection to rounding (a search on the distance
/// itself stops at sqrt(eps) of the segment, as the distance is level
/// there: 1.5e-7 along a box edge, which turned the pair's direction off
/// the edge's normal and failed GJK's test). The distance is convex along
/// a segment that stays outside the circle's cylinder (the rim finish's
/// case); elsewhere GJK's test below refuses a wrong answer.
static imp_vec3 segment_near_rim(double rc, double zr, imp_vec3 a, imp_vec3 b)
{
	imp_vec3 e = imp_vec3_sub(b, a);
	double lo = 0.0, hi = 1.0;
	if (!(rim_slope(rc, zr, a, e, 0.0) < 0.0))
		return a;
	if (!(rim_slope(rc, zr, a, e, 1.0) > 0.0))
		return b;
	for (int k = 0; k < 64 && lo < hi; ++k) {
		double mid = 0.5 * (lo + hi);
		if (mid <= lo || mid >= hi)
			break;
		if (rim_slope(rc, zr, a, e, mid) < 0.0)
			lo = mid;
		else
			hi = mid;
	}
	return imp_vec3_add(a, imp_vec3_scale(0.5 * (lo + hi), e));
}

/// A point of P's frame (unscaled) in a's frame (scaled), and back.
static imp_vec3 from_p_frame(const imp_gjk3_ctx *c, bool p_is_a, imp_vec3 v)
{
	if (!p_is_a)
		v = imp_vec3_add(imp_mat3_apply(&c->r, v), c->p);
	return c->scaled ? imp_vec3_scale(c->scale, v) : v;
}

static imp_vec3 to_p_frame(const imp_gjk3_ctx *c, bool p_is_a, imp_vec3 v)
{
	if (c->scaled)
		v = imp_vec3_scale(1.0 / c->scale, v);
	return p_is_a ? v : imp_mat3_apply_t(&c->r, imp_vec3_sub(v, c->p));
}

/// The pair (the rim point nearest ql, ql on the other core; P's frame)
/// as GJK's answer when it passes GJK's test and beats x: true with a
/// one-vertex answer in x.
static bool rim_try(imp_gjk3_ctx *c, bool p_is_a, double rc, double zr, imp_vec3 ql, simplex3 *x, double tol,
		    int *iterations)
{
	imp_vec3 y;
	if (!(rim_point(rc, zr, ql, &y) < INFINITY))
		return false;
	y = from_p_frame(c, p_is_a, y);
	imp_vec3 q = from_p_frame(c, p_is_a, ql);
	imp_svert3 s = p_is_a ? (imp_svert3){imp_vec3_sub(y, q), y, -1, -1} : (imp_svert3){imp_vec3_sub(q, y), q, -1, -1};
	double vv = norm2(s.w);
	if (!(vv > 0.0) || !(vv < norm2(x->v)))
		return false; // GJK's point is as good
	imp_svert3 w;
	imp_cso_support3(c, imp_vec3_neg(s.w), &w);
	++*iterations;
	// GJK's test, with the rounding of the two points' way back to a's
	// frame: 256 ulps of the coordinates along |v| (a box edge level with
	// a rim in a scene of 100 showed a gap of 1.8e-12 of |v|^2 at the exact
	// pair, which an edge's length times the direction's rounding makes).
	double m = imp_max(imp_max3(fabs(y.x), fabs(y.y), fabs(y.z)), imp_max3(fabs(q.x), fabs(q.y), fabs(q.z)));
	double slack = 256.0 * DBL_EPSILON * sqrt(vv) * imp_max(m, imp_max3(fabs(w.w.x), fabs(w.w.y), fabs(w.w.z)));
	if (c->bad || !(vv - imp_vec3_dot(s.w, w.w) <= tol * vv + slack))
		return false;
	x->n = 1;
	x->s[0] = s;
	x->l[0] = 1.0;
	x->v = s.w;
	return true;
}

/// The rim finish (see above) for P, a's core (p_is_a) or b's, from GJK's
/// simplex x: its feature on the other core (a point, or the point of its
/// segment or of a triangle's edges nearest the rim: a box edge level with
/// a cap was 9.6e-8 off from the witness alone), the nearest rim point to
/// it, and GJK's test. A curved other core (an ellipsoid, a cone's side)
/// has no feature in the simplex: not tried (following it by supports, in
/// turn with the nearest rim point, proved none of the fuzz findings of
/// that kind). True with a one-vertex answer in x.
static bool rim_finish_of(imp_gjk3_ctx *c, bool p_is_a, simplex3 *x, double tol, int *iterations)
{
	const imp_shape3 *ps = p_is_a ? c->a.s : c->b.s;
	if ((p_is_a ? c->b.s : c->a.s)->v == NULL)
		return false; // a curved other core: no feature in the simplex
	// The other core's points of the simplex, in P's own frame, without
	// repeats; and its witness.
	imp_vec3 f[4], witness = imp_vec3_make(0.0, 0.0, 0.0);
	int nf = 0;
	for (int i = 0; i < x->n; ++i) {
		imp_vec3 on = to_p_frame(c, p_is_a, p_is_a ? imp_vec3_sub(x->s[i].a, x->s[i].w) : x->s[i].a);
		witness = imp_vec3_add(witness, imp_vec3_scale(x->l[i], on));
		bool seen = false;
		for (int j = 0; j < nf; ++j)
			seen = seen || (f[j].x == on.x && f[j].y == on.y && f[j].z == on.z);
		if (!seen)
			f[nf++] = on;
	}
	double rc = ps->size.x;
	double zr = ps->kind == IMP_SHAPE_CONE || witness.z < 0.0 ? -ps->size.z : ps->size.z;
	imp_vec3 ql = witness, y;
	if (nf == 2) {
		ql = segment_near_rim(rc, zr, f[0], f[1]);
	} else if (nf == 3) {
		double best = INFINITY;
		for (int k = 0; k < 3; ++k) {
			imp_vec3 t = segment_near_rim(rc, zr, f[k], f[(k + 1) % 3]);
			double d = rim_point(rc, zr, t, &y);
			if (d < best) {
				best = d;
				ql = t;
			}
		}
	}
	return rim_try(c, p_is_a, rc, zr, ql, x, tol, iterations);
}

/// The cap finish for whichever core has a cap (a's first).
static bool cap_finish(imp_gjk3_ctx *c, simplex3 *x, int *iterations)
{
	if (!(norm2(x->v) > 0.0))
		return false;
	return (capped_core(c->a.s) && cap_finish_of(c, true, x, iterations)) ||
	       (capped_core(c->b.s) && cap_finish_of(c, false, x, iterations));
}

/// The rim finish for whichever core has a cap (a's first): tried where
/// rounding stalls GJK only (from each near-enough step as the cap finish
/// is, it cost 28% more instructions on separated cylinder and cone pairs).
static bool rim_finish(imp_gjk3_ctx *c, simplex3 *x, double tol, int *iterations)
{
	if (!(norm2(x->v) > 0.0))
		return false;
	return (capped_core(c->a.s) && rim_finish_of(c, true, x, tol, iterations)) ||
	       (capped_core(c->b.s) && rim_finish_of(c, false, x, tol, iterations));
}

/// How many support pairs the dual polish may spend (see dual_polish).
#define POLISH_SUPPORTS 600

/// u turned by an angle of about |t| towards t (t normal to u), unit.
static imp_vec3 polish_turn(imp_vec3 u, imp_vec3 t)
{
	imp_vec3 m = imp_vec3_add(u, t);
	return imp_vec3_scale(1.0 / imp_vec3_length(m), m);
}

/// The lower bound of the distance along unit u: every point of C lies at
/// least u . w from the origin along u, w = C's support along -u.
static double polish_bound(imp_gjk3_ctx *c, imp_vec3 u, imp_svert3 *w)
{
	return -imp_depth3_height(c, imp_vec3_neg(u), w);
}

/// The jump of a core's support point when u turns by `eps` either way
/// along t: about eps times the curvature radius where the support is
/// unique, and a face's or a segment's extent where it is not (a
/// cylinder's rims: its axis, its length). `on_a`: a's points, else b's.
static imp_vec3 polish_jump(imp_gjk3_ctx *c, imp_vec3 u, imp_vec3 t, double eps, bool on_a)
{
	imp_svert3 p, q;
	(void)polish_bound(c, polish_turn(u, imp_vec3_scale(eps, t)), &p);
	(void)polish_bound(c, polish_turn(u, imp_vec3_scale(-eps, t)), &q);
	return on_a ? imp_vec3_sub(p.a, q.a) : imp_vec3_sub(imp_vec3_sub(p.a, p.w), imp_vec3_sub(q.a, q.w));
}

/// The dual polish, for curved cores where rounding stalls GJK with its
/// gap open. The distance is the largest lower bound u . s_C(-u) over unit
/// directions u, and the bound is a support and a dot product, exact to
/// rounding however thin the simplex has gone. Its superlevel sets on the
/// sphere are convex (h_C(u) + t|u| is convex), so a local maximum is the
/// distance; but where a core's support jumps (a cylinder's side between
/// its rims, a cap) the bound has a ridge, and a search along fixed axes
/// stalls on a ridge it does not follow. The stalled simplex shows the
/// ridge: its new support lies across it (the other rim, the length of the
/// cylinder away), so the search's axes are along the ridge (normal to u
/// and to that jump) and across it. A compass search on those axes (the
/// step from 1e-3 radians, doubled where a move gains and halved where
/// none does, down to 1e-13; POLISH_SUPPORTS at most) finds the maximum;
/// the answer is then the foot of the plane, bound * u, a point of C when
/// one core's support there is unique (the ellipsoid, the needle's end):
/// that core's support point and the foot give both witnesses. An
/// ellipsoid level with a cylinder's cap stalled 2.4e-8 long warm (fuzz
/// finding 58), a needle level with a cylinder's cap 2.2e-7 (61). The
/// answer is taken only when the bound closes the gap to |v| within 1e-5
/// of it; otherwise GJK's stays.
static bool dual_polish(imp_gjk3_ctx *c, simplex3 *x, double tol, int *iterations)
{
	double vv = norm2(x->v);
	if (!(vv > 0.0))
		return false;
	double U = sqrt(vv);
	imp_vec3 u = imp_vec3_scale(1.0 / U, x->v);
	imp_svert3 w;
	double best = polish_bound(c, u, &w);
	if (!(U - best > 0.5 * tol * U))
		return false; // GJK's answer is proven already
	double start = best;
	// The ridge: where a core's support jumps. The simplex's new support
	// lies across it, roughly (its other points differ too: 2.5e-4 off
	// for the needle of finding 61, enough to make every step along it
	// cross the ridge and lose); the jump itself, seen by turning u a
	// little across, is the jumping feature's extent, exactly. The axes
	// are then along the ridge (normal to u and the jump) and across it.
	imp_vec3 e = imp_vec3_sub(w.w, x->v);
	imp_vec3 across = imp_vec3_sub(e, imp_vec3_scale(imp_vec3_dot(e, u), u));
	double la = imp_vec3_length(across);
	int spent = 1;
	double still = 1e-4 * c->reach;
	if (la > 0.0 && isfinite(la)) {
		across = imp_vec3_scale(1.0 / la, across);
		for (double eps = 1e-8; eps <= 1e-4; eps *= 100.0) {
			imp_vec3 ja = polish_jump(c, u, across, eps, true), jb = polish_jump(c, u, across, eps, false);
			spent += 4;
			imp_vec3 j = norm2(ja) >= norm2(jb) ? ja : jb;
			if (imp_vec3_length(j) > still) {
				e = j;
				break;
			}
		}
	}
	imp_vec3 t1 = imp_vec3_cross(u, e);
	double l1 = imp_vec3_length(t1);
	t1 = l1 > 0.0 && isfinite(l1) ? imp_vec3_scale(1.0 / l1, t1) : imp_any_normal3(u);
	imp_vec3 t2 = imp_vec3_cross(u, t1);
	for (double step = 1e-3; step >= 1e-13 && spent < POLISH_SUPPORTS;) {
		imp_vec3 next = u;
		double gain = best;
		imp_svert3 nw = w;
		const imp_vec3 axes[4] = {t1, t2, imp_vec3_neg(t1), imp_vec3_neg(t2)};
		for (int k = 0; k < 4; ++k) {
			imp_vec3 m = polish_turn(u, imp_vec3_scale(step, axes[k]));
			imp_svert3 mw;
			double b = polish_bound(c, m, &mw);
			++spent;
			if (b > gain) {
				gain = b;
				next = m;
				nw = mw;
			}
		}
		if (gain > best) {
			best = gain;
			u = next;
			w = nw;
			// The axes follow u; a step that gains is tried twice as long.
			t1 = imp_vec3_cross(u, e);
			l1 = imp_vec3_length(t1);
			t1 = l1 > 0.0 && isfinite(l1) ? imp_vec3_scale(1.0 / l1, t1) : imp_any_normal3(u);
			t2 = imp_vec3_cross(u, t1);
			step = imp_min(2.0 * step, 1e-3);
		} else {
			step *= 0.5;
		}
	}
	*iterations += spent;
	if (!(best > start && best <= U * (1.0 + 1e-12) && U - best <= 1e-5 * U))
		return false;
	// The witnesses: the core whose support holds still is the unique one.
	spent += 4;
	double ja = imp_vec3_length(polish_jump(c, u, t2, 1e-8, true));
	double jb = imp_vec3_length(polish_jump(c, u, t2, 1e-8, false));
	imp_vec3 foot = imp_vec3_scale(best, u);
	imp_vec3 a;
	if (ja <= still && ja <= jb)
		a = w.a;
	else if (jb <= still)
		a = imp_vec3_add(imp_vec3_sub(w.a, w.w), foot); // b's point plus the foot
	else
		return false;
	x->n = 1;
	x->s[0] = (imp_svert3){foot, a, ja <= jb ? w.ia : -1, ja <= jb ? -1 : w.ib};
	x->l[0] = 1.0;
	x->v = foot;
	return true;
}

/// Alg. 1 in 3D. With `boolean` (Level 1, Alg. 6) it stops as soon as the
/// answer is known: a separating plane with margin R (the sum of the radii,
/// scaled) ends it SEPARATED; a point of C within R of the origin, or the
/// origin inside the simplex, ends it OVERLAPPING.
static void gjk3(imp_gjk3_ctx *c, const imp_simplex_cache *cache, const imp_query_options *o, gjk3_out *out,
		 bool boolean, double R)
{
	// The simplex is x; each step's answer goes to the other buffer, and
	// the two swap: no copy per iteration.
	simplex3 spare_buf, *x = &out->x, *spare = &spare_buf;
	out->iterations = 0;
	bool curved = c->a.v == NULL || c->b.v == NULL;
	double tol = curved ? o->tolerance : POLYTOPE_TOLERANCE;
	// GJK converges linearly on curved cores: close pairs took up to ~100
	// iterations to the default tolerance in tests/test_narrow3d.c, so
	// they get CURVED_ITERATIONS times the limit.
	int limit = curved ? CURVED_ITERATIONS * o->max_iterations : o->max_iterations;
	const bool fast = fast_pair(c);
	if (!warm_start(c, cache, x)) {
		imp_vec3 d;
		if (has_cached_direction(cache)) {
			d = imp_vec3_make(cache->direction[0], cache->direction[1], cache->direction[2]);
		} else {
			// The difference of two interior points: a point of C,
			// usually near the answer.
			imp_vec3 cb = imp_vec3_add(imp_mat3_apply(&c->r, c->b.s->center), c->p);
			d = imp_vec3_sub(c->a.s->center, cb);
			if (d.x == 0.0 && d.y == 0.0 && d.z == 0.0)
				d = imp_vec3_make(1.0, 0.0, 0.0);
		}
		// A direction only: brought to unit size, as the centres are not
		// scaled and a cached one may be tiny (|d| of 1e-70 squared to 0
		// and made overlapping shapes of that size separated; issue 20,
		// defect 6).
		double dm = imp_max3(fabs(d.x), fabs(d.y), fabs(d.z));
		if (dm > 0.0)
			d = imp_vec3_make(d.x / dm, d.y / dm, d.z / dm);
		else
			d = imp_vec3_make(1.0, 0.0, 0.0);
		imp_svert3 w;
		if (fast)
			cso_support_fast(c, imp_vec3_neg(d), &w);
		else
			imp_cso_support3(c, imp_vec3_neg(d), &w);
		x->s[0] = w;
		x->l[0] = 1.0;
		x->v = w.w;
		x->n = 1;
		if (boolean && imp_vec3_dot(d, w.w) > R * imp_vec3_length(d)) {
			out->state = c->bad ? IMP_STATE_DEGENERATE : IMP_STATE_SEPARATED;
			return;
		}
	}
	// A squared length under which v may be rounding noise: checked exactly
	// by at_rounding, against the simplex's own coordinates.
	double near_zero = 1e-20 * c->reach * c->reach;
	// Nesterov acceleration on request only: on bench/narrow3d's cells the
	// momentum was faster on separated ellipsoid pairs (5 to 22%) but
	// slower on overlapping ones and on box-ellipsoid pairs (9 to 31%),
	// and the default must never be more than 5% slower than plain GJK
	// (docs/narrow3d.md). Normalised directions for polytopes (Eq. 30).
	bool accel = o->acceleration == IMP_ACCELERATION_NESTEROV;
	bool normalised = !curved;
	// Momentum is switched off once x is this near to converged (relative
	// gap): at GJK's own 1e-12 the momentum kept running to the iteration
	// limit on 7% of distant ellipsoid pairs; from 1e-6 on it takes fewer
	// iterations than plain GJK on distant and close pairs (20,000 random
	// ellipsoid pairs: 15.1 against 15.3 distant, 21.1 against 24.5 at
	// 0.1 to 1, 42.5 against 48.5 at 1e-3 to 0.1).
	double switch_tol = imp_max(tol, NESTEROV_SWITCH);
	imp_vec3 d_prev = x->v, w_prev = x->v;
	// Levels 2 and 3 on smooth cores finish by Newton's method (with or
	// without the momentum), once GJK is near enough.
	bool newton = !boolean && curved && imp_gjk3_smooth(c);
	int mixed = !boolean && curved && !accel && vertex_against_ellipsoid(c) ? MIXED_TRIES : 0;
	int capped = !boolean && curved && !accel && (capped_core(c->a.s) || capped_core(c->b.s)) ? CAP_TRIES : 0;
	int k = 0;
	simplex3 best;
	bool have_best = false;
	int restarts = 0;
	imp_query_state state = IMP_STATE_ITERATION_LIMIT;
	for (;;) {
		if (c->bad) {
			state = IMP_STATE_DEGENERATE;
			break;
		}
		if (x->n == 4) {
			state = IMP_STATE_OVERLAPPING;
			break;
		}
		double vv = norm2(x->v);
		if (vv == 0.0 || (boolean && vv <= R * R) || (vv < near_zero && at_rounding(x, vv))) {
			// The origin is in C, or within rounding of its boundary
			// (the weights of a simplex through the origin leave a v of
			// 1e-17 or so): contact. EPA (Level 3) tells which.
			state = IMP_STATE_OVERLAPPING;
			break;
		}
		if (out->iterations >= limit) {
			// Creeping along a rim to the limit: the rim finish may prove
			// the answer.
			if (!boolean && curved && (capped_core(c->a.s) || capped_core(c->b.s)) &&
			    rim_finish(c, x, tol, &out->iterations))
				state = IMP_STATE_SEPARATED;
			break;
		}
		imp_svert3 w;
		if (accel) {
			// Nesterov's step (docs/narrow3d.md, "Nesterov acceleration"): the direction leans on
			// the previous one and on a point extrapolated past x.
			double delta = (k + 1.0) / (k + 3.0);
			imp_vec3 y = imp_vec3_add(imp_vec3_scale(delta, x->v), imp_vec3_scale(1.0 - delta, w_prev));
			double ly = imp_vec3_length(y), ld = imp_vec3_length(d_prev);
			if (normalised && ly > 0.0 && ld > 0.0)
				d_prev = imp_vec3_add(imp_vec3_scale(delta / ld, d_prev), imp_vec3_scale((1.0 - delta) / ly, y));
			else
				d_prev = imp_vec3_add(imp_vec3_scale(delta, d_prev), imp_vec3_scale(1.0 - delta, y));
			++k;
			imp_cso_support3(c, imp_vec3_neg(d_prev), &w);
			++out->iterations;
			double dw = imp_vec3_dot(d_prev, w.w);
			if (c->bad) {
				state = IMP_STATE_DEGENERATE;
				break;
			}
			if (boolean && dw > R * imp_vec3_length(d_prev)) {
				state = IMP_STATE_SEPARATED; // d separates C from the origin too
				break;
			}
			if (newton && near_enough(c, d_prev, dw, sqrt(vv))) {
				if (newton_finish(c, d_prev, limit, x, &out->iterations)) {
					state = IMP_STATE_SEPARATED;
					break;
				}
				newton = false;
			}
			bool known = false;
			for (int i = 0; i < x->n; ++i)
				known = known || same_vertex(&w, &x->s[i]);
			// Also switched off halfway through the iteration budget,
			// which leaves plain GJK room to converge (20,000 random
			// curved pairs: a box-ellipsoid pair ran the momentum to the
			// limit of 64 where plain GJK needed 32).
			if (known || vv - imp_vec3_dot(x->v, w.w) <= switch_tol * vv || 2 * k > limit) {
				// No progress along x (Eq. 28): plain GJK from here on,
				// with its own stopping test. The first step's direction
				// is x itself, so its support is plain GJK's.
				accel = false;
				if (k > 1)
					continue;
			}
			w_prev = w.w;
		} else {
			if (fast)
				cso_support_fast(c, imp_vec3_neg(x->v), &w);
			else
				imp_cso_support3(c, imp_vec3_neg(x->v), &w);
			++out->iterations;
		}
		if (c->bad) {
			state = IMP_STATE_DEGENERATE;
			break;
		}
		double vw = imp_vec3_dot(x->v, w.w);
		if (!accel) {
			if (boolean && vw > R * sqrt(vv)) {
				state = IMP_STATE_SEPARATED; // Alg. 6's first exit
				break;
			}
			if (vw > c->cutoff * sqrt(vv)) {
				// Farther apart than the caller asks about: |v|, above
				// the cut-off, is its answer.
				state = IMP_STATE_SEPARATED;
				break;
			}
			bool repeated = false;
			for (int i = 0; i < x->n; ++i)
				repeated = repeated || same_vertex(&w, &x->s[i]);
			if (repeated || vv - vw <= tol * vv) {
				state = IMP_STATE_SEPARATED;
				break;
			}
			if (newton && near_enough(c, x->v, vw, sqrt(vv))) {
				if (newton_finish(c, x->v, limit, x, &out->iterations)) {
					state = IMP_STATE_SEPARATED;
					break;
				}
				newton = false;
			}
			if (capped > 0 && near_enough(c, x->v, vw, sqrt(vv))) {
				--capped;
				if (cap_finish(c, x, &out->iterations)) {
					state = IMP_STATE_SEPARATED;
					break;
				}
			}
			if (mixed > 0 && near_enough(c, x->v, vw, sqrt(vv))) {
				// A feature that fails now (an end of an edge holds the
				// answer, or the simplex has not found the feature yet)
				// is tried again as GJK moves on, up to MIXED_TRIES times.
				--mixed;
				if (feature_finish(c, x, limit, &out->iterations)) {
					state = IMP_STATE_SEPARATED;
					break;
				}
			}
		}
		imp_svert3 s[4];
		s[0] = w;
		for (int i = 0; i < x->n; ++i)
			s[i + 1] = x->s[i];
		solve(s, x->n + 1, spare);
		if (spare->n < 4 && !(norm2(spare->v) < vv) && (accel || !flat_step(x, &s[0], spare, vv))) {
			if (accel) {
				accel = false;
				continue;
			}
			// Rounding stalled the descent with the gap still open: the
			// simplex has gone long and thin (a cylinder's two rims
			// alternating as supports, 84 apart for a gap of 1e-5), and
			// its next points gain less than rounding. GJK starts again
			// from the new support alone, keeping the best simplex (an
			// ellipsoid level with a cylinder's cap stalled at a gap of
			// 4.2e-9 warm, 6.6e-7 off the cold answer, which ran on; a
			// tiny ball 0.08 inside a cone 0.17 thick and 5e7 wide was
			// called apart by the overlap test and the distance).
			if (curved && restarts < GJK_RESTARTS && vv - vw > tol * vv) {
				if (!have_best || vv < norm2(best.v)) {
					copy_simplex(&best, x);
					have_best = true;
				}
				++restarts;
				x->n = 1;
				x->s[0] = w;
				x->l[0] = 1.0;
				x->v = w.w;
				continue;
			}
			// Rounding stalled the descent: v is as good as it gets,
			// unless a rim finish does better (GJK creeps along a rim).
			if (!boolean && curved && !((capped_core(c->a.s) || capped_core(c->b.s)) &&
						    rim_finish(c, x, tol, &out->iterations)))
				(void)dual_polish(c, x, tol, &out->iterations);
			state = boolean && vv <= R * R ? IMP_STATE_OVERLAPPING : IMP_STATE_SEPARATED;
			break;
		}
		simplex3 *t = x;
		x = spare;
		spare = t;
	}
	if (have_best && state != IMP_STATE_OVERLAPPING && norm2(best.v) < norm2(x->v))
		copy_simplex(x, &best); // a restart ended no nearer
	if (x != &out->x)
		copy_simplex(&out->x, x);
	if (!boolean && state != IMP_STATE_OVERLAPPING && out->x.n == 3) {
		// On a sliver triangle (a cone 1e-26 thin against a polytope; an
		// ellipsoid against a box plate 2.5e13 long) S2D's v, the
		// origin's projection on the plane, is off along the normal (good
		// to 1e-6 there: v came out 4.5e-7 nearer than any point of C, so
		// 4.5e-7 below normal . (b - a)), and its weights, from areas on a
		// coordinate plane, put their point off along the triangle (6e7
		// off on the plate). The answer is then the point of the weights
		// taken again on axes along the longest edge (triangle_weights),
		// where their rounding moves it by no more than the coordinates':
		// a point of C, which the witnesses are made of. Slivers only: the
		// test costs a fraction of the recomputation.
		simplex3 *f = &out->x;
		imp_vec3 a = f->s[0].w, b = f->s[1].w, d = f->s[2].w;
		imp_vec3 ab = imp_vec3_sub(b, a), ad = imp_vec3_sub(d, a), n = imp_vec3_cross(ab, ad);
		double e2 = imp_max3(norm2(ab), norm2(ad), norm2(imp_vec3_sub(d, b)));
		double l[3];
		if (!(norm2(n) >= 1e-6 * e2 * e2) &&
		    triangle_weights(a, b, d, imp_robust_unit3(n, imp_vec3_make(0.0, 0.0, 0.0)), imp_vec3_make(0.0, 0.0, 0.0),
				     l)) {
			f->v = imp_vec3_make(0.0, 0.0, 0.0);
			for (int i = 0; i < 3; ++i) {
				f->l[i] = l[i];
				f->v = imp_vec3_add(f->v, imp_vec3_scale(l[i], f->s[i].w));
			}
		}
	}
	out->state = state;
}

static double clamp01(double x)
{
	return x < 0.0 ? 0.0 : (x > 1.0 ? 1.0 : x);
}

/// |v| without squaring v (imp_robust_length3).
static double robust_length3(imp_vec3 v)
{
	return imp_robust_length3(v);
}

/// -v / |v|, the normal from a to b for C's nearest point v, unit at any
/// length (imp_robust_unit3); `fallback` for v = 0.
static imp_vec3 robust_normal3(imp_vec3 v, imp_vec3 fallback)
{
	return imp_robust_unit3(imp_vec3_neg(v), fallback);
}

/// The parameters s, t in [0, 1] of the nearest points p0 + s (p1 - p0)
/// and q0 + t (q1 - q0) of two segments (either may be a point):
/// minimising |P(s) - Q(t)|^2 over the unit square, the interior critical
/// point if it lies inside, else the best clamped edge.
IMP_ALWAYS_INLINE void segment_params(imp_vec3 p0, imp_vec3 p1, imp_vec3 q0, imp_vec3 q1, double *s_out,
				      double *t_out)
{
	imp_vec3 d1 = imp_vec3_sub(p1, p0), d2 = imp_vec3_sub(q1, q0), r = imp_vec3_sub(p0, q0);
	double a = imp_vec3_dot(d1, d1), e = imp_vec3_dot(d2, d2), f = imp_vec3_dot(d2, r);
	double cc = imp_vec3_dot(d1, r), b = imp_vec3_dot(d1, d2);
	double sp = 0.0, tq = 0.0;
	// A segment whose square is below 2^-1020 is a point: 1 / |d|^2 would
	// be infinite (a capsule core 1e-9 long in a scene of 1e149, scaled to
	// unit size, made the overlap test's point NaN and answered apart,
	// fuzz finding 65), and the segment is within 1e-154 of its end.
	const double tiny = 0x1p-1020;
	a = a >= tiny ? a : 0.0;
	e = e >= tiny ? e : 0.0;
	if (a > 0.0 && e > 0.0) {
		// The divisions are independent of each other, so they overlap
		// in the pipeline instead of waiting for one another.
		double den = a * e - b * b, ia = 1.0 / a, ie = 1.0 / e;
		// Parallel segments (den 0): any s works; 0, then t and s are
		// corrected below.
		sp = den > 0.0 ? clamp01((b * f - cc * e) / den) : 0.0;
		tq = (b * sp + f) * ie;
		if (tq < 0.0) {
			tq = 0.0;
			sp = clamp01(-cc * ia);
		} else if (tq > 1.0) {
			tq = 1.0;
			sp = clamp01((b - cc) * ia);
		}
	} else if (a > 0.0) {
		sp = clamp01(-cc / a);
	} else if (e > 0.0) {
		tq = clamp01(f / e);
	}
	*s_out = sp;
	*t_out = tq;
}

/// Spheres and capsules (cores of one or two vertices) inside GJK's set-up
/// (the scaled and unusual cases; segments3_make serves the rest): the
/// nearest points of two segments in closed form, as FCL and Box2D answer
/// these pairs, written out as GJK's answer would be (the simplex of the
/// corner points of C = A - B that carry the nearest point, with their
/// weights).
static void segment_pair(const imp_gjk3_ctx *c, gjk3_out *out, bool boolean, double R)
{
	const imp_vec3 *pa = c->a.v, *pb = c->b.v;
	int na = c->a.s->count, nb = c->b.s->count;
	imp_vec3 p0 = pa[0], p1 = pa[na - 1], q0 = pb[0], q1 = pb[nb - 1];
	if (c->scaled) {
		p0 = imp_vec3_scale(c->scale, p0);
		p1 = imp_vec3_scale(c->scale, p1);
		q0 = imp_vec3_scale(c->scale, q0);
		q1 = imp_vec3_scale(c->scale, q1);
	}
	imp_vec3 d1 = imp_vec3_sub(p1, p0), d2 = imp_vec3_sub(q1, q0);
	double sp, tq;
	segment_params(p0, p1, q0, q1, &sp, &tq);
	// P - Q as a combination of the corners p_i - q_j.
	double ws[2] = {1.0 - sp, sp}, wt[2] = {1.0 - tq, tq};
	imp_vec3 ps[2] = {p0, p1}, qs[2] = {q0, q1};
	simplex3 *x = &out->x;
	x->n = 0;
	for (int i = 0; i < 2; ++i)
		for (int j = 0; j < 2; ++j) {
			double l = ws[i] * wt[j];
			if (!(l > 0.0) || (i == 1 && na == 1) || (j == 1 && nb == 1))
				continue;
			x->s[x->n] = (imp_svert3){imp_vec3_sub(ps[i], qs[j]), ps[i], i == 1 ? na - 1 : 0, j == 1 ? nb - 1 : 0};
			x->l[x->n++] = l;
		}
	imp_vec3 P = imp_vec3_add(p0, imp_vec3_scale(sp, d1)), Q = imp_vec3_add(q0, imp_vec3_scale(tq, d2));
	x->v = imp_vec3_sub(P, Q);
	double vv = norm2(x->v);
	out->iterations = 0;
	out->closed_form = true;
	out->state = vv == 0.0 || (boolean && vv <= R * R) ? IMP_STATE_OVERLAPPING : IMP_STATE_SEPARATED;
}

/// GJK, or the closed form for two cores of at most two vertices.
static void run_query(imp_gjk3_ctx *c, const imp_simplex_cache *cache, const imp_query_options *o, gjk3_out *out,
		      bool boolean, double R)
{
	out->closed_form = false;
	if (c->a.v != NULL && c->b.v != NULL && c->a.s->count <= 2 && c->b.s->count <= 2 && c->b_in_a)
		segment_pair(c, out, boolean, R);
	else
		gjk3(c, cache, o, out, boolean, R);
}

// ---------------------------------------------------------------------------
// Spheres and capsules without GJK's set-up.
//
// Two cores of at most two vertices need neither b's pose in a's frame nor
// GJK's context: each pose turns its own core's ends (the matrix of q / |q|,
// 1 / |q|^2 by two terms of its series), and segment_params finds the
// nearest points. The
// frame has a's position as origin and the world's axes: positions are
// subtracted first, exactly for nearby bodies far from the origin, and the
// answer needs no turn back to the world.

typedef struct segments3 {
	const imp_shape3 *a, *b;
	imp_vec3 p0, p1, q0, q1; ///< the core ends (p1 = p0 for a sphere)
	double s, t;             ///< the nearest points' parameters along them
	imp_vec3 P, Q;           ///< the nearest points of the cores
	imp_vec3 v;              ///< P - Q
} segments3;

/// A quick filter before segments3_make: other pairs go on without its
/// checks.
static inline bool maybe_segments(const imp_shape *a, const imp_shape *b)
{
	// Curved and user shapes have no vertices (count 0): not for this path.
	return a != NULL && b != NULL && a->count >= 1 && a->count <= 2 && b->count >= 1 && b->count <= 2;
}

/// Fills `g` for two cores of at most two vertices at valid poses within
/// the range that needs no scaling; returns false for anything else (bad
/// arguments included), which the general path answers.
static bool segments3_make(const imp_shape *a, const imp_pose3 *pap, const imp_shape *b, const imp_pose3 *pbp,
			   const imp_query_options *o, segments3 *g)
{
	imp_pose3 pa = *pap, pb = *pbp;
	double na, nb;
	if (!quick_args(a, pa, b, pb, o, &na, &nb))
		return false;
	const imp_shape3 *sa = imp_shape3_of(a), *sb = imp_shape3_of(b);
	imp_vec3 d = imp_vec3_sub(pb.p, pa.p);
	double size = sa->bound_radius + sb->bound_radius + fabs(d.x) + fabs(d.y) + fabs(d.z);
	if (sa->v == NULL || sb->v == NULL || sa->count > 2 || sb->count > 2 || !(size <= SCALE_BIG) ||
	    !(size >= 1.0 / SCALE_BIG))
		return false;
	// 2 / n without a division: with e = n - 1, |e| <= 1e-6, 1 / n = 1 - e
	// + e^2 - ..., and the terms left out are below 1e-18.
	double ea = na - 1.0, eb = nb - 1.0;
	imp_mat3 ra = imp_mat3_from_quat_scaled(pa.q, 2.0 * (1.0 - ea * (1.0 - ea)));
	imp_mat3 rb = imp_mat3_from_quat_scaled(pb.q, 2.0 * (1.0 - eb * (1.0 - eb)));
	g->a = sa;
	g->b = sb;
	g->p0 = imp_mat3_apply(&ra, sa->v[0]);
	g->p1 = sa->count == 2 ? imp_mat3_apply(&ra, sa->v[1]) : g->p0;
	g->q0 = imp_vec3_add(imp_mat3_apply(&rb, sb->v[0]), d);
	g->q1 = sb->count == 2 ? imp_vec3_add(imp_mat3_apply(&rb, sb->v[1]), d) : g->q0;
	segment_params(g->p0, g->p1, g->q0, g->q1, &g->s, &g->t);
	g->P = imp_vec3_add(g->p0, imp_vec3_scale(g->s, imp_vec3_sub(g->p1, g->p0)));
	g->Q = imp_vec3_add(g->q0, imp_vec3_scale(g->t, imp_vec3_sub(g->q1, g->q0)));
	g->v = imp_vec3_sub(g->P, g->Q);
	return true;
}

/// True when the cores meet (their nearest points coincide).
static bool segments3_cross(const segments3 *g)
{
	return g->v.x == 0.0 && g->v.y == 0.0 && g->v.z == 0.0;
}

/// The feature of a core of one or two vertices holding the point at
/// parameter u along it.
static imp_feature segment_feature(const imp_shape3 *s, double u)
{
	if (s->count == 2 && u > 0.0 && u < 1.0) {
		int idx[2] = {0, 1};
		return imp_shape3_feature(s, idx, 2);
	}
	return (imp_feature){IMP_FEATURE_VERTEX, s->count == 2 && u >= 1.0 ? 1 : 0};
}

/// Level 3 for cores apart (the caller has checked segments3_cross).
static void segments3_closest(const segments3 *g, imp_pose3 pa, imp_closest3_result *out)
{
	double len = robust_length3(g->v), ra = g->a->radius, rb = g->b->radius;
	imp_vec3 n = robust_normal3(g->v, imp_vec3_make(1.0, 0.0, 0.0));
	imp_closest3_result r = {0};
	r.distance = len - ra - rb;
	r.point_a = imp_vec3_add(imp_vec3_add(g->P, imp_vec3_scale(ra, n)), pa.p);
	r.point_b = imp_vec3_add(imp_vec3_sub(g->Q, imp_vec3_scale(rb, n)), pa.p);
	r.normal = n;
	r.feature_a = segment_feature(g->a, g->s);
	r.feature_b = segment_feature(g->b, g->t);
	// Touching: |distance| within rounding of the coordinates the closed
	// form worked with.
	double scene = 0.0;
	const imp_vec3 *ends[4] = {&g->p0, &g->p1, &g->q0, &g->q1};
	for (int i = 0; i < 4; ++i)
		scene = imp_max(scene, imp_max3(fabs(ends[i]->x), fabs(ends[i]->y), fabs(ends[i]->z)));
	double touch = 64 * DBL_EPSILON * imp_max(scene, imp_max(ra, rb));
	if (fabs(r.distance) <= touch)
		r.state = IMP_STATE_TOUCHING;
	else
		r.state = r.distance < 0.0 ? IMP_STATE_OVERLAPPING : IMP_STATE_SEPARATED;
	*out = r;
}

// ---------------------------------------------------------------------------
// Levels 1 and 2.

// ---------------------------------------------------------------------------
// Two overlapping boxes: the penetration by the separating-axis test.
//
// For two convex polytopes the depth is the least overlap of their
// projections over the normals of the faces of C = A - B: for boxes, the
// three face normals of each and the nine cross products of their edge
// directions, each projection in closed form. That is exact like EPA's
// answer and needs no support search; the witnesses are the deepest
// features' points: B's support vertex and its foot on A's face (or the
// other way round), or the nearest points of two edges.

/// What the test found, in a's frame (unscaled).
typedef struct box_depth {
	double depth;
	imp_vec3 normal;   ///< from a to b
	imp_vec3 pa, pb;   ///< pa - pb = depth * normal
} box_depth;

/// The corner of a box (half sizes h) by the signs of d's coordinates
/// (0 counts as +).
static imp_vec3 box_corner(imp_vec3 h, imp_vec3 d)
{
	return imp_vec3_make(d.x >= 0.0 ? h.x : -h.x, d.y >= 0.0 ? h.y : -h.y, d.z >= 0.0 ? h.z : -h.z);
}

static double axis_of(imp_vec3 v, int k)
{
	return k == 0 ? v.x : (k == 1 ? v.y : v.z);
}

static imp_vec3 with_axis(imp_vec3 v, int k, double x)
{
	if (k == 0)
		v.x = x;
	else if (k == 1)
		v.y = x;
	else
		v.z = x;
	return v;
}

/// Nearest points of lines p + s u and q + t w (not parallel): false when
/// either lies beyond its segment's half length (lu, lw) by more than
/// `slack`.
static bool edge_points(imp_vec3 p, imp_vec3 u, double lu, imp_vec3 q, imp_vec3 w, double lw, double slack,
			imp_vec3 *x, imp_vec3 *y)
{
	imp_vec3 r = imp_vec3_sub(p, q);
	double b = imp_vec3_dot(u, w), d = imp_vec3_dot(u, r), e = imp_vec3_dot(w, r), den = 1.0 - b * b;
	if (!(den > 0.0))
		return false;
	double sp = (b * e - d) / den, tq = (e - b * d) / den;
	if (!(fabs(sp) <= lu + slack && fabs(tq) <= lw + slack))
		return false;
	*x = imp_vec3_add(p, imp_vec3_scale(sp, u));
	*y = imp_vec3_add(q, imp_vec3_scale(tq, w));
	return true;
}

/// The corners of a box (half sizes h) farthest along d, in ring order:
/// 1 (a vertex), 2 (an edge) or 4 (a face), a coordinate counting as free
/// where d's is within tol of 0.
static int deepest_ring(imp_vec3 h, imp_vec3 d, double tol, imp_vec3 *ring)
{
	int free_axis[3], nf = 0;
	for (int k = 0; k < 3; ++k)
		if (fabs(axis_of(d, k)) <= tol)
			free_axis[nf++] = k;
	imp_vec3 c = box_corner(h, d);
	if (nf == 0) {
		ring[0] = c;
		return 1;
	}
	if (nf == 1) {
		ring[0] = with_axis(c, free_axis[0], axis_of(h, free_axis[0]));
		ring[1] = with_axis(c, free_axis[0], -axis_of(h, free_axis[0]));
		return 2;
	}
	if (nf == 3)
		return 0; // d is 0: no deepest feature
	static const int sign[4][2] = {{1, 1}, {-1, 1}, {-1, -1}, {1, -1}};
	for (int m = 0; m < 4; ++m) {
		imp_vec3 x = with_axis(c, free_axis[0], sign[m][0] * axis_of(h, free_axis[0]));
		ring[m] = with_axis(x, free_axis[1], sign[m][1] * axis_of(h, free_axis[1]));
	}
	return 4;
}

/// The centre of the part of polygon ring[0..n) (1, 2 or 4 points, lying
/// on a plane normal to axis `ax`) inside the box's face rectangle: the
/// two other coordinates within the half sizes h (plus tol). False when
/// nothing is inside.
static bool clip_centre(const imp_vec3 *ring, int n, imp_vec3 h, int ax, double tol, imp_vec3 *out)
{
	int u = (ax + 1) % 3, v = (ax + 2) % 3;
	double pu[12], pv[12], qu[12], qv[12];
	int m = n;
	for (int j = 0; j < n; ++j) {
		pu[j] = axis_of(ring[j], u);
		pv[j] = axis_of(ring[j], v);
	}
	// Sutherland-Hodgman against u <= hu, -u <= hu, v <= hv, -v <= hv.
	for (int side = 0; side < 4 && m > 0; ++side) {
		double lim = (side < 2 ? axis_of(h, u) : axis_of(h, v)) + tol, sg = side % 2 ? -1.0 : 1.0;
		double *cu = side < 2 ? pu : pv; // the coordinate clipped
		int k = 0;
		for (int j = 0; j < m && k < 10; ++j) {
			int jn = (j + 1) % m;
			double a = sg * cu[j] - lim, b = sg * cu[jn] - lim;
			if (a <= 0.0) {
				qu[k] = pu[j];
				qv[k++] = pv[j];
			}
			if ((a < 0.0 && b > 0.0) || (a > 0.0 && b < 0.0)) {
				double t = a / (a - b);
				qu[k] = pu[j] + t * (pu[jn] - pu[j]);
				qv[k++] = pv[j] + t * (pv[jn] - pv[j]);
			}
		}
		m = k;
		for (int j = 0; j < m; ++j) {
			pu[j] = qu[j];
			pv[j] = qv[j];
		}
	}
	if (m == 0)
		return false;
	double su = 0.0, sv = 0.0, sa = 0.0;
	for (int j = 0; j < m; ++j) {
		su += pu[j];
		sv += pv[j];
	}
	for (int j = 0; j < n; ++j)
		sa += axis_of(ring[j], ax);
	imp_vec3 c = {0.0, 0.0, 0.0};
	c = with_axis(c, u, su / m);
	c = with_axis(c, v, sv / m);
	*out = with_axis(c, ax, sa / n);
	return true;
}

/// The separating-axis test on boxes a (half sizes ha, at the origin,
/// unrotated) and b (half sizes hb, rotation r, centre p): false when an
/// axis separates them; else the least overlap over the fifteen axes into
/// *best, with the axis: kind 0 a's face *ia, 1 b's face *ib, 2 the edges
/// *ia x *ib.
static bool box_axes(imp_vec3 ha, imp_vec3 hb, const imp_mat3 *r, imp_vec3 p, double *best_out, int *kind_out,
		     int *ia_out, int *ib_out)
{
	// R[i][j] = ea[i] . eb[j] (a's axis i, b's axis j: r's column j), and
	// b's centre in b's frame.
	const double(*R)[3] = r->m;
	double h1[3] = {ha.x, ha.y, ha.z}, h2[3] = {hb.x, hb.y, hb.z}, c1[3] = {p.x, p.y, p.z};
	imp_vec3 pl = imp_mat3_apply_t(r, p);
	double c2[3] = {pl.x, pl.y, pl.z};
	// First the line through the centres, which is not one of the axes
	// but separates most pairs that are apart: they leave at once.
	double pp = norm2(p);
	if (pp > 0.0) {
		double ra = ha.x * fabs(p.x) + ha.y * fabs(p.y) + ha.z * fabs(p.z);
		double rb = h2[0] * fabs(c2[0]) + h2[1] * fabs(c2[1]) + h2[2] * fabs(c2[2]);
		if (ra + rb < pp)
			return false;
	}
	double A[3][3];
	for (int i = 0; i < 3; ++i)
		for (int j = 0; j < 3; ++j)
			A[i][j] = fabs(R[i][j]);
	double best = INFINITY;
	int kind = -1, ia = -1, ib = -1; // 0: a's face ia, 1: b's face ib, 2: edges ia x ib
	// The face axes first: they are cheap, and separate most pairs apart.
	for (int i = 0; i < 3; ++i) {
		double s = h1[i] + h2[0] * A[i][0] + h2[1] * A[i][1] + h2[2] * A[i][2] - fabs(c1[i]);
		if (s < 0.0)
			return false; // a separating axis: apart
		if (s < best) {
			best = s;
			kind = 0;
			ia = i;
		}
	}
	for (int j = 0; j < 3; ++j) {
		double s = h1[0] * A[0][j] + h1[1] * A[1][j] + h1[2] * A[2][j] + h2[j] - fabs(c2[j]);
		if (s < 0.0)
			return false;
		if (s < best) {
			best = s;
			kind = 1;
			ib = j;
		}
	}
	// ea[i] x eb[j] = (0, -R[i2][j], R[i1][j]) in the (i, i1, i2) order:
	// the projections of both boxes and of p on it, over its length
	// (from those two components: 1 - R[i][j]^2 would cancel).
	for (int i = 0; i < 3; ++i) {
		int i1 = (i + 1) % 3, i2 = (i + 2) % 3;
		for (int j = 0; j < 3; ++j) {
			int j1 = (j + 1) % 3, j2 = (j + 2) % 3;
			double len2 = R[i1][j] * R[i1][j] + R[i2][j] * R[i2][j];
			if (!(len2 > 1e-20))
				continue; // parallel edges: the face axes cover them
			double ra = h1[i1] * A[i2][j] + h1[i2] * A[i1][j], rb = h2[j1] * A[i][j2] + h2[j2] * A[i][j1];
			double d = c1[i2] * R[i1][j] - c1[i1] * R[i2][j];
			double s = ra + rb - fabs(d);
			if (s < 0.0)
				return false;
			s /= sqrt(len2);
			if (s < best) {
				best = s;
				kind = 2;
				ia = i;
				ib = j;
			}
		}
	}
	*best_out = best;
	*kind_out = kind;
	*ia_out = ia;
	*ib_out = ib;
	return true;
}

/// The separating-axis depth of boxes a and b (see box_axes). False when
/// an axis separates them, or when rounding leaves the witnesses
/// undecided (an edge axis whose features are not both edges, or a clip
/// that keeps nothing): GJK, and EPA, answer then.
static bool box_box_depth(imp_vec3 ha, imp_vec3 hb, const imp_mat3 *r, imp_vec3 p, box_depth *out)
{
	double best;
	int kind, ia, ib;
	if (!box_axes(ha, hb, r, p, &best, &kind, &ia, &ib) || kind < 0 || !(best >= 0.0))
		return false;
	const double(*R)[3] = r->m;
	double size = ha.x + ha.y + ha.z + hb.x + hb.y + hb.z + sqrt(norm2(p));
	imp_vec3 ea[3] = {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}}, eb[3];
	for (int j = 0; j < 3; ++j)
		eb[j] = imp_vec3_make(R[0][j], R[1][j], R[2][j]);
	imp_vec3 axis;
	if (kind == 0)
		axis = ea[ia];
	else if (kind == 1)
		axis = eb[ib];
	else
		axis = imp_vec3_scale(1.0 / sqrt(norm2(imp_vec3_cross(ea[ia], eb[ib]))), imp_vec3_cross(ea[ia], eb[ib]));
	if (imp_vec3_dot(axis, p) < 0.0)
		axis = imp_vec3_neg(axis);
	double tol = 64 * DBL_EPSILON * size;
	imp_vec3 nb = imp_mat3_apply_t(r, axis); // the normal in b's frame
	out->depth = best;
	out->normal = axis;
	if (kind == 2) {
		// a's edge along ea[ia] at the corner farthest along the normal,
		// b's along eb[ib] at the corner farthest against it.
		imp_vec3 ca = with_axis(box_corner(ha, axis), ia, 0.0);
		imp_vec3 cb = imp_vec3_add(imp_mat3_apply(r, with_axis(box_corner(hb, imp_vec3_neg(nb)), ib, 0.0)), p);
		for (int k = 0; k < 3; ++k)
			if (k != ia && fabs(axis_of(axis, k)) <= tol)
				return false; // a face of a, not an edge: undecided
		for (int k = 0; k < 3; ++k)
			if (k != ib && fabs(axis_of(nb, k)) <= tol)
				return false;
		return edge_points(ca, ea[ia], axis_of(ha, ia), cb, eb[ib], axis_of(hb, ib), tol, &out->pa, &out->pb);
	}
	// A face axis of one box: the other box's deepest feature along it (a
	// vertex, or an edge or face lying flat on the face) overlaps the face
	// once moved by the depth; a point of that overlap is b's witness (a
	// vertex's own foot, else the centre of the feature clipped to the
	// face), and a's is that point moved back by the depth.
	imp_vec3 z = imp_vec3_scale(best, axis), ring[4];
	int n;
	if (kind == 0) {
		n = deepest_ring(hb, imp_vec3_neg(nb), tol, ring);
		for (int m = 0; m < n; ++m)
			ring[m] = imp_vec3_add(imp_mat3_apply(r, ring[m]), p);
		if (!clip_centre(ring, n, ha, ia, tol, &out->pb))
			return false;
		out->pa = imp_vec3_add(out->pb, z);
		return true;
	}
	n = deepest_ring(ha, axis, tol, ring);
	for (int m = 0; m < n; ++m)
		ring[m] = imp_mat3_apply_t(r, imp_vec3_sub(imp_vec3_sub(ring[m], z), p)); // into b's frame
	imp_vec3 local;
	if (!clip_centre(ring, n, hb, ib, tol, &local))
		return false;
	out->pb = imp_vec3_add(imp_mat3_apply(r, local), p);
	out->pa = imp_vec3_add(out->pb, z);
	return true;
}

/// The feature of a box (half sizes h) holding local point x on its
/// surface: each coordinate at a face (within tol) fixes that side.
static imp_feature box_feature(const imp_shape3 *s, imp_vec3 x, double tol)
{
	int side[3], fixed = 0;
	for (int k = 0; k < 3; ++k) {
		double c = axis_of(x, k), h = axis_of(s->size, k);
		side[k] = c >= h - tol ? 1 : (c <= -h + tol ? -1 : 0);
		fixed += side[k] != 0;
	}
	imp_feature none = {IMP_FEATURE_NONE, -1};
	if (fixed == 0)
		return none;
	// Corners with the fixed signs (free coordinates both ways).
	int idx[4], n = 0;
	for (int corner = 0; corner < 8 && n < 4; ++corner) {
		bool fits = true;
		for (int k = 0; k < 3; ++k) {
			int sgn = corner >> k & 1 ? 1 : -1;
			fits = fits && (side[k] == 0 || side[k] == sgn);
		}
		if (fits)
			idx[n++] = s->box_vertex[corner];
	}
	return imp_shape3_feature(s, idx, n >= 3 ? 3 : n);
}

/// The point of the box (half sizes h) nearest q, in its frame.
static imp_vec3 box_clamp(imp_vec3 h, imp_vec3 q)
{
	return imp_vec3_make(imp_max(-h.x, imp_min(q.x, h.x)), imp_max(-h.y, imp_min(q.y, h.y)),
			     imp_max(-h.z, imp_min(q.z, h.z)));
}

/// A box (half sizes h) and a point q in its frame: the box's point
/// nearest q and the normal from the box towards q, with the signed depth
/// (minus the distance when q is outside; inside, the distance to the
/// nearest face, whose normal it is).
static void box_point(imp_vec3 h, imp_vec3 q, imp_vec3 *on_box, imp_vec3 *normal, double *depth)
{
	imp_vec3 x = box_clamp(h, q);
	imp_vec3 d = imp_vec3_sub(q, x);
	double l = robust_length3(d);
	if (l > 0.0) {
		*on_box = x;
		// Not d times 1 / l: a point 5.4e-312 off a box's face had a
		// normal of infinities (issue 20, finding 21).
		*normal = imp_robust_unit3(d, imp_vec3_make(1.0, 0.0, 0.0));
		*depth = -l;
		return;
	}
	int k = 0;
	double best = INFINITY;
	for (int j = 0; j < 3; ++j) {
		double gap = axis_of(h, j) - fabs(axis_of(q, j));
		if (gap < best) {
			best = gap;
			k = j;
		}
	}
	double side = axis_of(q, k) >= 0.0 ? 1.0 : -1.0;
	*on_box = with_axis(q, k, side * axis_of(h, k));
	*normal = with_axis(imp_vec3_make(0.0, 0.0, 0.0), k, side);
	*depth = best;
}

/// A box (half sizes h) and the segment s0 s1 in its frame: their
/// distance, with the nearest points and the segment's parameter there; 0
/// when they meet. The squared distance from the box along the segment is
/// convex and piecewise quadratic, its pieces ending where the segment
/// crosses a face's plane: each piece's minimum in closed form, the least
/// kept.
static double box_segment(imp_vec3 h, imp_vec3 s0, imp_vec3 s1, imp_vec3 *on_box, imp_vec3 *on_seg, double *t_out)
{
	imp_vec3 d = imp_vec3_sub(s1, s0);
	*on_box = *on_seg = s0;
	*t_out = 0.0;
	double cut[8];
	int nc = 0;
	cut[nc++] = 0.0;
	for (int k = 0; k < 3; ++k) {
		double dk = axis_of(d, k), ok = axis_of(s0, k), hk = axis_of(h, k);
		if (dk == 0.0)
			continue;
		for (int side = -1; side <= 1; side += 2) {
			double t = (side * hk - ok) / dk;
			if (t > 0.0 && t < 1.0)
				cut[nc++] = t;
		}
	}
	cut[nc++] = 1.0;
	for (int i = 1; i < nc; ++i) // a few values: insertion
		for (int j = i; j > 0 && cut[j - 1] > cut[j]; --j) {
			double x = cut[j];
			cut[j] = cut[j - 1];
			cut[j - 1] = x;
		}
	// Candidates: every cut (the segment's ends among them), and each
	// piece's own minimum where it lies inside the piece. On a piece each
	// coordinate stays above, inside or below its slab, so the squared
	// distance is A t^2 + B t + C there.
	double cand[15];
	int n = 0;
	for (int i = 0; i < nc; ++i)
		cand[n++] = cut[i];
	for (int i = 0; i + 1 < nc; ++i) {
		double ta = cut[i], tb = cut[i + 1], tm = 0.5 * (ta + tb), A = 0.0, B = 0.0;
		for (int k = 0; k < 3; ++k) {
			double dk = axis_of(d, k), ok = axis_of(s0, k), hk = axis_of(h, k), x = ok + dk * tm;
			if (x > hk || x < -hk) {
				A += dk * dk;
				B += 2.0 * dk * (ok - (x > hk ? hk : -hk));
			}
		}
		double t = A > 0.0 ? -B / (2.0 * A) : ta;
		if (t > ta && t < tb)
			cand[n++] = t;
	}
	double best = INFINITY;
	for (int i = 0; i < n; ++i) {
		imp_vec3 p = imp_vec3_add(s0, imp_vec3_scale(cand[i], d)), x = box_clamp(h, p);
		double dist = robust_length3(imp_vec3_sub(p, x));
		if (dist < best) {
			best = dist;
			*on_box = x;
			*on_seg = p;
			*t_out = cand[i];
		}
	}
	return best;
}

/// Level 3's closed forms, in a's frame (unscaled), with the features
/// holding the witnesses. Two boxes: the separating-axis test (false when
/// an axis separates them, or its witnesses are undecided). A box and a
/// sphere's point or a capsule's segment: that core against the box, in
/// the box's frame (false for a segment meeting the box). False: GJK.
static bool closed_form3(const imp_gjk3_ctx *c, box_depth *bd, imp_feature *fa, imp_feature *fb)
{
	const imp_shape3 *sa = c->a.s, *sb = c->b.s;
	bool box_a = sa->kind == IMP_SHAPE_BOX3 && sa->hull_dim == 3, box_b = sb->kind == IMP_SHAPE_BOX3 && sb->hull_dim == 3;
	if (!box_a && !box_b)
		return false;
	double tol = 64 * DBL_EPSILON * (sa->bound_radius + sb->bound_radius + sqrt(norm2(c->p)));
	if (box_a && box_b) {
		if (!box_box_depth(sa->size, sb->size, &c->r, c->p, bd))
			return false;
		*fa = box_feature(sa, bd->pa, tol);
		*fb = box_feature(sb, imp_mat3_apply_t(&c->r, imp_vec3_sub(bd->pb, c->p)), tol);
		return true;
	}
	// One box; the other core a point or a segment, into the box's frame.
	const imp_shape3 *box = box_a ? sa : sb, *other = box_a ? sb : sa;
	if (other->v == NULL || other->count > 2)
		return false;
	imp_vec3 e[2];
	for (int m = 0; m < other->count; ++m)
		e[m] = box_a ? imp_vec3_add(imp_mat3_apply(&c->r, other->v[m]), c->p)
			     : imp_mat3_apply_t(&c->r, imp_vec3_sub(other->v[m], c->p));
	imp_vec3 on_box, on_other, n; // n: from the box to the other
	imp_feature fo = {IMP_FEATURE_VERTEX, 0};
	if (other->count == 1) {
		on_other = e[0];
		box_point(box->size, on_other, &on_box, &n, &bd->depth);
	} else {
		double t = 0.0, dist = box_segment(box->size, e[0], e[1], &on_box, &on_other, &t);
		// They meet, or are within rounding of it: GJK and EPA. (A box
		// 1.3e-16 thin crossed by a segment came out 9.5e-17 apart here,
		// and 1.9 deep with the shapes swapped; fuzz finding 76.)
		if (!(dist > tol))
			return false;
		n = imp_robust_unit3(imp_vec3_sub(on_other, on_box), imp_vec3_make(1.0, 0.0, 0.0));
		bd->depth = -dist;
		fo = segment_feature(other, t);
	}
	imp_feature fx = box_feature(box, on_box, tol);
	if (box_a) {
		bd->pa = on_box;
		bd->pb = on_other;
		bd->normal = n;
		*fa = fx;
		*fb = fo;
	} else {
		bd->pa = imp_vec3_add(imp_mat3_apply(&c->r, on_other), c->p);
		bd->pb = imp_vec3_add(imp_mat3_apply(&c->r, on_box), c->p);
		bd->normal = imp_vec3_neg(imp_mat3_apply(&c->r, n));
		*fa = fo;
		*fb = fx;
	}
	return true;
}

// ---------------------------------------------------------------------------
// Level 1 by Minkowski portal refinement (Snethen, "XenoCollide: Complex
// Collision Made Simple", Game Programming Gems 7, 2008).
//
// A ray from v0, a point of C = A - B (the difference of the two cores'
// interior points), through the origin leaves C somewhere; MPR keeps a
// triangle of support points (the portal) that the ray passes through and
// pushes it out along its normal until either the origin lies on v0's side
// of it (inside the tetrahedron v0 + portal: overlap) or the support plane
// along its normal leaves the origin outside (apart). Each iteration is one
// support and a few cross products, against GJK's sub-distance.
//
// Both answers are certificates, with margins far above rounding, so MPR is
// never less exact than GJK: "overlap" needs the origin at least
// MPR_MARGIN * reach from every face plane of the tetrahedron (its points are
// points of C to rounding, and a ball of that radius in the tetrahedron
// stays in the hull of points moved by less than it); "apart" needs the
// support plane at least that far from the origin. Anything else (touching
// within the margin, flat or degenerate C, coincident centres, non-finite
// user supports, the iteration budget) is MPR_UNDECIDED and goes to GJK.

/// Relative margin (of the scene's reach) of MPR's certificates: rounding
/// moves the support points by about 1e-15 of it.
#define MPR_MARGIN 1e-12
/// Supports MPR may take before handing the pair to GJK.
#define MPR_ITERATIONS 32

typedef enum mpr_answer { MPR_APART, MPR_OVERLAP, MPR_UNDECIDED } mpr_answer;

/// Whether MPR may take both cores' supports inline (mpr_support): vertex
/// lists searched by brute force or a box's table, or closed-form curved
/// cores; no scaling, no user callback (whose points are checked).
static bool mpr_fast_pair(const imp_gjk3_ctx *c)
{
	return !c->scaled && !c->a.climb && !c->b.climb && c->a.s->kind != IMP_SHAPE_USER3 &&
	       c->b.s->kind != IMP_SHAPE_USER3;
}

/// A core's support point along d in its own frame (a box by its table).
IMP_ALWAYS_INLINE imp_vec3 mpr_core_point(const imp_proxy3 *x, imp_vec3 d)
{
	const imp_shape3 *s = x->s;
	if (x->v == NULL)
		return imp_support3_curved(s, d);
	return x->v[sharp_support(s, x->v, d)];
}

/// C's support point along d (a's frame): inline for mpr_fast_pair's
/// pairs, with b's direction and point turned here when its vertices were
/// not moved (MPR keeps no vertex indices), else the general support.
IMP_ALWAYS_INLINE imp_vec3 mpr_support(imp_gjk3_ctx *c, bool fast, imp_vec3 d)
{
	if (fast) {
		imp_vec3 pa = mpr_core_point(&c->a, d), pb;
		if (c->b_in_a)
			pb = mpr_core_point(&c->b, imp_vec3_neg(d));
		else
			pb = imp_vec3_add(imp_mat3_apply(&c->r, mpr_core_point(&c->b, imp_mat3_apply_t(&c->r, imp_vec3_neg(d)))),
					  c->p);
		return imp_vec3_sub(pa, pb);
	}
	imp_svert3 w;
	imp_cso_support3(c, d, &w);
	return w.w;
}

/// The support plane along n at height h = n . s_C(n) < 0 leaves the
/// origin outside C by more than the margin: h^2 > (margin reach)^2 |n|^2.
IMP_ALWAYS_INLINE bool mpr_apart(double h, imp_vec3 n, double margin2)
{
	return h < 0.0 && h * h > margin2 * norm2(n);
}

/// Whether the origin lies on the inner side of the plane through p, p + e,
/// p + f (oriented by e x f) by more than the margin: the distance is
/// -p . (e x f) / |e x f| >= -p . (e x f) / (|e| |f|), and the triple
/// product's rounding is below 1e-15 |p| |e| |f|. Squares, no roots:
/// extreme scenes whose squares leave double's range just fail it.
IMP_ALWAYS_INLINE bool mpr_inside_face(imp_vec3 p, imp_vec3 e, imp_vec3 f, double margin2)
{
	double t = -imp_vec3_dot(p, imp_vec3_cross(e, f));
	return t > 0.0 && t * t > margin2 * norm2(e) * norm2(f);
}

/// The certificate of overlap: the origin inside tetrahedron v0 v1 v2 v3
/// (positively oriented) by the margin from each of its four faces.
static bool mpr_encloses(imp_vec3 v0, imp_vec3 v1, imp_vec3 v2, imp_vec3 v3, double margin2)
{
	imp_vec3 e1 = imp_vec3_sub(v1, v0), e2 = imp_vec3_sub(v2, v0), e3 = imp_vec3_sub(v3, v0);
	return mpr_inside_face(v0, e1, e2, margin2) && mpr_inside_face(v0, e2, e3, margin2) &&
	       mpr_inside_face(v0, e3, e1, margin2) &&
	       mpr_inside_face(v1, imp_vec3_sub(v3, v1), imp_vec3_sub(v2, v1), margin2);
}

/// Level 1 of the pair set up in c, cores only (the radii sum is 0);
/// `fast`: mpr_fast_pair, a constant in each of mpr_overlap's two copies.
IMP_ALWAYS_INLINE mpr_answer mpr_run(imp_gjk3_ctx *c, const bool fast)
{
	double margin = MPR_MARGIN * c->reach, margin2 = margin * margin;
	imp_vec3 cb = imp_vec3_add(imp_mat3_apply(&c->r, c->b.s->center), c->p);
	imp_vec3 v0 = imp_vec3_scale(c->scale, imp_vec3_sub(c->a.s->center, cb));
	// Coincident interior points: no ray. GJK decides (the origin is then
	// a point of C only to rounding).
	if (!(norm2(v0) > 0.0))
		return MPR_UNDECIDED;
	// Portal discovery. v1: the support towards the origin from v0.
	imp_vec3 n = imp_vec3_neg(v0);
	imp_vec3 v1 = mpr_support(c, fast, n);
	double h = imp_vec3_dot(n, v1);
	if (!(h > 0.0))
		return mpr_apart(h, n, margin2) && !c->bad ? MPR_APART : MPR_UNDECIDED;
	// v2: the support normal to the plane of v0, v1 and the origin.
	n = imp_vec3_cross(v1, v0);
	if (!(norm2(n) > 1e-24 * norm2(v1) * norm2(v0)))
		return MPR_UNDECIDED; // the origin on the line v0 v1, or nearly
	imp_vec3 v2 = mpr_support(c, fast, n);
	h = imp_vec3_dot(n, v2);
	if (!(h > 0.0))
		return mpr_apart(h, n, margin2) && !c->bad ? MPR_APART : MPR_UNDECIDED;
	// The triangle v0 v1 v2's normal, turned towards the origin.
	n = imp_vec3_cross(imp_vec3_sub(v1, v0), imp_vec3_sub(v2, v0));
	if (imp_vec3_dot(n, v0) > 0.0) {
		imp_vec3 t = v1;
		v1 = v2;
		v2 = t;
		n = imp_vec3_neg(n);
	}
	// v3 beyond it; while the origin lies outside a side face of the
	// tetrahedron v0 v1 v2 v3 through v0, that face's outer vertex is
	// replaced by v3 (the triangle keeps its orientation, and n is again
	// (v1 - v0) x (v2 - v0)).
	imp_vec3 v3;
	int k = 2;
	for (;;) {
		if (++k > MPR_ITERATIONS || c->bad)
			return MPR_UNDECIDED;
		v3 = mpr_support(c, fast, n);
		h = imp_vec3_dot(n, v3);
		if (!(h > 0.0))
			return mpr_apart(h, n, margin2) && !c->bad ? MPR_APART : MPR_UNDECIDED;
		if (imp_vec3_dot(v0, imp_vec3_cross(v2, v3)) > 0.0)
			v1 = v3; // beyond face v0 v2 v3
		else if (imp_vec3_dot(v0, imp_vec3_cross(v3, v1)) > 0.0)
			v2 = v3; // beyond face v0 v3 v1
		else
			break;
		n = imp_vec3_cross(imp_vec3_sub(v1, v0), imp_vec3_sub(v2, v0));
	}
	// Refinement: the ray from v0 through the origin crosses the portal
	// v1 v2 v3, whose normal m points away from v0.
	for (;;) {
		imp_vec3 m = imp_vec3_cross(imp_vec3_sub(v2, v1), imp_vec3_sub(v3, v1));
		if (imp_vec3_dot(m, v1) >= 0.0) {
			// The origin is on v0's side of the portal.
			return mpr_encloses(v0, v1, v2, v3, margin2) && !c->bad ? MPR_OVERLAP : MPR_UNDECIDED;
		}
		if (++k > MPR_ITERATIONS || c->bad)
			return MPR_UNDECIDED;
		imp_vec3 v4 = mpr_support(c, fast, m);
		h = imp_vec3_dot(m, v4);
		if (!(h > 0.0))
			return mpr_apart(h, m, margin2) && !c->bad ? MPR_APART : MPR_UNDECIDED;
		// The origin lies between the portal and the support plane: when
		// they are within the margin of each other it is too near C's
		// boundary for MPR to tell.
		double gap = h - imp_vec3_dot(m, v1);
		if (!(gap * gap > margin2 * norm2(m)))
			return MPR_UNDECIDED;
		// The new portal: v4 with the two old vertices whose cone holds
		// the ray, told by the sides of the plane through v0, v4 and the
		// origin (e_i = v_i . (v0 x v4)).
		imp_vec3 y = imp_vec3_cross(v0, v4);
		double e1 = imp_vec3_dot(v1, y), e2 = imp_vec3_dot(v2, y), e3 = imp_vec3_dot(v3, y);
		if (e1 <= 0.0 && e2 >= 0.0)
			v3 = v4;
		else if (e2 <= 0.0 && e3 >= 0.0)
			v1 = v4;
		else if (e3 <= 0.0 && e1 >= 0.0)
			v2 = v4;
		else
			return MPR_UNDECIDED; // rounding has lost the ray
	}
}

/// mpr_run with the supports chosen once: inline for the common pairs.
IMP_NOINLINE static mpr_answer mpr_overlap(imp_gjk3_ctx *c)
{
	return mpr_fast_pair(c) ? mpr_run(c, true) : mpr_run(c, false);
}

static double overlap_radius(const imp_gjk3_ctx *c)
{
	return (c->a.s->radius + c->b.s->radius) * c->scale;
}

/// Asks for the lines of a core's vertex list that a brute-force support
/// scans, so that they arrive while the set-up computes the pair's frame.
/// bench/narrow3d's shapes are cold in the caches on every query: its
/// 32-vertex Level 1 cells took 1.3 to 1.7 of libccd MPR's time without
/// this, 1.05 to 1.2 with it, 0.9 with the shapes in the caches.
IMP_ALWAYS_INLINE void prefetch_core(const imp_shape *s)
{
	const imp_shape3 *t = imp_shape3_of(s);
	if (t->v == NULL || t->climb_auto)
		return;
	const char *p = (const char *)(const void *)t->v, *end = (const char *)(const void *)(t->v + t->count);
	for (; p < end; p += 64)
		IMP_PREFETCH(p);
}

/// Level 1 for every pair segments3_make does not take.
IMP_NOINLINE static bool overlap3_general(const imp_shape *a, const imp_pose3 *pa, const imp_shape *b,
					  const imp_pose3 *pb, imp_simplex_cache *cache,
					  const imp_query_options *options)
{
	imp_gjk3_ctx c;
	if (shapes3_ok(a, b)) {
		prefetch_core(a);
		prefetch_core(b);
	}
	if (setup(&c, a, *pa, b, *pb, options, true) != IMP_OK)
		return false;
	gjk3_out g;
	double R = overlap_radius(&c);
	if (R == 0.0 && c.a.s->kind == IMP_SHAPE_BOX3 && c.b.s->kind == IMP_SHAPE_BOX3 && c.a.s->hull_dim == 3 &&
	    c.b.s->hull_dim == 3) {
		// Two sharp boxes: the separating-axis test decides, exactly
		// (touching counts as overlap), in closed form; GJK's cache is
		// left as it was.
		double best;
		int kind, ia, ib;
		return box_axes(c.a.s->size, c.b.s->size, &c.r, c.p, &best, &kind, &ia, &ib);
	}
	if (cache == NULL && R == 0.0) {
		// Sharp cores and no cache to keep (a world passes one per pair,
		// and GJK's simplex is what it holds): MPR first, which needs
		// fewer supports and no sub-distance on close and overlapping
		// pairs (docs/narrow3d.md, "Level 1 by portal refinement"); GJK
		// takes what it leaves.
		// Rounded shapes keep GJK, whose exits carry the radii.
		move_b_into_a(&c);
		mpr_answer m = mpr_overlap(&c);
		if (m != MPR_UNDECIDED)
			return m == MPR_OVERLAP;
	}
	run_query(&c, cache, options, &g, true, R);
	write_cache(cache, &g);
	if (g.state == IMP_STATE_ITERATION_LIMIT)
		return imp_vec3_length(g.x.v) <= R;
	return g.state == IMP_STATE_OVERLAPPING;
}

/// True when the bounding spheres of two convex 3D shapes are apart by more
/// than rounding (a margin of 2^-30 of their radii, far above it): the
/// shapes do not overlap. One comparison before any setup: distant pairs (a
/// world's candidates whose boxes only just overlap) end here. A rotation
/// keeps lengths, so only the origins' distance counts. Anything not a
/// valid pair of 3D shapes is left to the full checks; a pose that is not
/// finite or out of range either fails the comparison (NaN) and goes on to
/// them, or ends here with false, which is Level 1's answer for it anyway.
/// Not for reaches whose square would lose its digits (below 2^-300).
IMP_ALWAYS_INLINE bool spheres_apart3(const imp_shape *a, imp_pose3 pa, const imp_shape *b, imp_pose3 pb)
{
	if (!shapes3_ok(a, b))
		return false;
	double reach = imp_shape3_of(a)->bound_radius + imp_shape3_of(b)->bound_radius;
	return reach > 0x1p-300 && norm2(imp_vec3_sub(pb.p, pa.p)) > reach * reach * (1.0 + 0x1p-30);
}

bool imp_overlap3_ex(const imp_shape *a, imp_pose3 pa, const imp_shape *b, imp_pose3 pb, imp_simplex_cache *cache,
		     const imp_query_options *options)
{
	if (imp_pair_has_composite(a, b))
		return imp_composite_overlap3(a, pa, b, pb, cache, options);
	if (spheres_apart3(a, pa, b, pb))
		return false;
	if (options == NULL)
		options = &imp_default_options;
	segments3 sg;
	if (maybe_segments(a, b) && segments3_make(a, &pa, b, &pb, options, &sg)) {
		double R = a->radius + b->radius;
		return norm2(sg.v) <= R * R || segments3_cross(&sg);
	}
	return overlap3_general(a, &pa, b, &pb, cache, options);
}

bool imp_overlap3(const imp_shape *a, imp_pose3 pa, const imp_shape *b, imp_pose3 pb, imp_simplex_cache *cache)
{
	return imp_overlap3_ex(a, pa, b, pb, cache, NULL);
}

/// Level 2 for every pair segments3_make does not take.
IMP_NOINLINE static double distance3_general(const imp_shape *a, const imp_pose3 *pa, const imp_shape *b,
					     const imp_pose3 *pb, imp_simplex_cache *cache,
					     const imp_query_options *options, int *iterations, imp_query_state *state)
{
	imp_gjk3_ctx c;
	if (setup(&c, a, *pa, b, *pb, options, false) != IMP_OK)
		return NAN;
	gjk3_out g;
	run_query(&c, cache, options, &g, false, 0.0);
	write_cache(cache, &g);
	if (iterations != NULL)
		*iterations = g.iterations;
	if (state != NULL)
		*state = g.state;
	if (g.state == IMP_STATE_DEGENERATE)
		return NAN;
	if (g.state == IMP_STATE_OVERLAPPING)
		return 0.0;
	double d = robust_length3(g.x.v) / c.scale - a->radius - b->radius;
	if (state != NULL && g.state == IMP_STATE_SEPARATED && d <= 0.0)
		*state = d == 0.0 ? IMP_STATE_TOUCHING : IMP_STATE_OVERLAPPING;
	return d > 0.0 ? d : 0.0;
}

/// Level 2 of every public entry, the poses by address: the entries pass
/// them on without copying them again (a sphere or capsule pair's query is
/// a few hundred instructions, and each copy of two poses is 30 of them).
IMP_ALWAYS_INLINE double distance3_query(const imp_shape *a, const imp_pose3 *pa, const imp_shape *b,
					 const imp_pose3 *pb, imp_simplex_cache *cache, const imp_query_options *options,
					 int *iterations, imp_query_state *state)
{
	if (imp_pair_has_composite(a, b))
		return imp_composite_distance3(a, *pa, b, *pb, cache, options, iterations, state);
	if (options == NULL)
		options = &imp_default_options;
	segments3 sg;
	if (maybe_segments(a, b) && segments3_make(a, pa, b, pb, options, &sg)) {
		bool cross = segments3_cross(&sg);
		double d = cross ? 0.0 : robust_length3(sg.v) - a->radius - b->radius;
		if (iterations != NULL)
			*iterations = 0;
		if (state != NULL)
			*state = cross || d < 0.0 ? IMP_STATE_OVERLAPPING
						  : (d == 0.0 ? IMP_STATE_TOUCHING : IMP_STATE_SEPARATED);
		return d > 0.0 ? d : 0.0;
	}
	return distance3_general(a, pa, b, pb, cache, options, iterations, state);
}

double imp_distance3_stats(const imp_shape *a, imp_pose3 pa, const imp_shape *b, imp_pose3 pb,
			   imp_simplex_cache *cache, const imp_query_options *options, int *iterations,
			   imp_query_state *state)
{
	return distance3_query(a, &pa, b, &pb, cache, options, iterations, state);
}

double imp_distance3_ex(const imp_shape *a, imp_pose3 pa, const imp_shape *b, imp_pose3 pb,
			imp_simplex_cache *cache, const imp_query_options *options)
{
	return distance3_query(a, &pa, b, &pb, cache, options, NULL, NULL);
}

double imp_distance3(const imp_shape *a, imp_pose3 pa, const imp_shape *b, imp_pose3 pb, imp_simplex_cache *cache)
{
	return distance3_query(a, &pa, b, &pb, cache, NULL, NULL, NULL);
}

// ---------------------------------------------------------------------------
// The mid-phase's entries (gjk3d_internal.h).

bool imp_overlap3_rel(const imp_shape *a, const imp_shape *b, const imp_mat3 *r, imp_vec3 p, imp_simplex_cache *cache,
		      const imp_query_options *options)
{
	imp_gjk3_ctx c;
	setup_rel(&c, imp_shape3_of(a), imp_shape3_of(b), *r, p, options, true);
	gjk3_out g;
	run_query(&c, cache, options, &g, true, overlap_radius(&c));
	write_cache(cache, &g);
	if (g.state == IMP_STATE_ITERATION_LIMIT)
		return imp_vec3_length(g.x.v) <= overlap_radius(&c);
	return g.state == IMP_STATE_OVERLAPPING;
}

double imp_distance3_rel(const imp_shape *a, const imp_shape *b, const imp_mat3 *r, imp_vec3 p, double cutoff,
			 imp_simplex_cache *cache, const imp_query_options *options, int *iterations,
			 imp_query_state *state)
{
	imp_gjk3_ctx c;
	setup_rel(&c, imp_shape3_of(a), imp_shape3_of(b), *r, p, options, false);
	// The cores' cut-off, scaled as the points are.
	double core_cut = (cutoff + a->radius + b->radius) * c.scale;
	c.cutoff = core_cut >= 0.0 ? core_cut : 0.0;
	gjk3_out g;
	run_query(&c, cache, options, &g, false, 0.0);
	write_cache(cache, &g);
	*iterations = g.iterations;
	*state = g.state;
	if (g.state == IMP_STATE_DEGENERATE)
		return NAN;
	if (g.state == IMP_STATE_OVERLAPPING)
		return 0.0;
	double d = robust_length3(g.x.v) / c.scale - a->radius - b->radius;
	if (g.state == IMP_STATE_SEPARATED && d <= 0.0)
		*state = d == 0.0 ? IMP_STATE_TOUCHING : IMP_STATE_OVERLAPPING;
	return d > 0.0 ? d : 0.0;
}

// ---------------------------------------------------------------------------
// Level 3.

/// The feature of one shape's core holding the witness made of the kept
/// simplex vertices with positive weight (`which`: 0 for a, 1 for b).
static imp_feature feature_of(const imp_proxy3 *x, const imp_svert3 *s, const double *l, int n, int which)
{
	imp_feature none = {IMP_FEATURE_NONE, -1};
	if (x->v == NULL)
		return none;
	int idx[4];
	int k = weighted_indices(s, l, n, which == 0, idx);
	if (k == 0 || k > 3)
		return none;
	return imp_shape3_feature(x->s, idx, k);
}

/// Polytopes with at most this many faces have each face normal tried as
/// a penetration direction against a curved core.
#define FACE_NORMAL_TRIES 64

static void try_face_normals(imp_gjk3_ctx *c, const imp_proxy3 *x, bool is_b, imp_epa3_result *e)
{
	const imp_shape3 *s = x->s;
	if (s->v == NULL || s->nf == 0 || s->nf > FACE_NORMAL_TRIES)
		return;
	for (int f = 0; f < s->nf; ++f) {
		// a pushed along its own outward normal's opposite is b moving
		// out through a's face: the direction from a to b is a's normal;
		// for b's faces, minus b's normal (in a's frame).
		imp_vec3 n = is_b ? imp_vec3_neg(imp_mat3_apply(&c->r, s->face_normal[f])) : s->face_normal[f];
		imp_depth3_try(c, n, e);
		if (s->hull_dim == 2) // a flat polygon's one face stands for both sides
			imp_depth3_try(c, imp_vec3_neg(n), e);
	}
}

/// The most distinct support points try_support_kinks keeps.
#define KINK_POINTS 6

/// h at angle x on the great circle through unit u0 along unit t.
static double circle_h(imp_gjk3_ctx *c, imp_vec3 u0, imp_vec3 t, double x)
{
	imp_svert3 w;
	return imp_depth3_height(c, imp_vec3_add(imp_vec3_scale(cos(x), u0), imp_vec3_scale(sin(x), t)), &w);
}

/// The lowest h on the arc of the great circle through unit u0 along unit
/// t (normal to u0), within `span` radians either way: golden section to
/// 1e-11 radians. h is smooth along a kink's circle (the same support
/// vertices hold all along it) and has one minimum near u0.
static imp_vec3 kink_circle_min(imp_gjk3_ctx *c, imp_vec3 u0, imp_vec3 t, double span)
{
	const double g = 0.6180339887498949;
	double lo = -span, hi = span;
	double x1 = hi - g * (hi - lo), x2 = lo + g * (hi - lo);
	double f1 = circle_h(c, u0, t, x1), f2 = circle_h(c, u0, t, x2);
	while (hi - lo > 1e-11 && !c->bad) {
		if (f1 <= f2) {
			hi = x2;
			x2 = x1;
			f2 = f1;
			x1 = hi - g * (hi - lo);
			f1 = circle_h(c, u0, t, x1);
		} else {
			lo = x1;
			x1 = x2;
			f1 = f2;
			x2 = lo + g * (hi - lo);
			f2 = circle_h(c, u0, t, x2);
		}
	}
	double x = 0.5 * (lo + hi);
	return imp_vec3_add(imp_vec3_scale(cos(x), u0), imp_vec3_scale(sin(x), t));
}

/// A vertex core's kinks near the answer. Where a core has vertices (a
/// polytope, or a user shape given by its support, which may be one), h is
/// kinked along the circles of directions normal to its edges and at its
/// face normals, and the minimum may sit on such a kink, where the
/// descents zig-zag and stop off it: a ball-like ellipsoid about a box,
/// whose depth is along a circle normal to a box edge, 47.41105 deep for
/// 47.41101 by one order (the other found it); about a user box, 71.2592
/// for 71.2556 (0.03 radians off a face normal). The core's support points
/// along directions around the answer's normal (1e-2, 1e-4 and 1e-6 radians
/// away, four ways) are the vertices whose cones meet near it: the normal
/// of each plane through three of them, pointed as the answer's, is tried
/// as it is, and the circle normal to each pair's edge is searched for its
/// lowest h within 0.1 radians of the answer.
static void try_support_kinks(imp_gjk3_ctx *c, const imp_proxy3 *x, bool is_b, imp_epa3_result *e)
{
	if (x->s->kind != IMP_SHAPE_USER3 && x->s->v == NULL)
		return; // a curved core: its kinks (caps, rims) are tried by their own
	imp_vec3 n = e->normal;
	imp_vec3 t1 = imp_any_normal3(n), t2 = imp_vec3_cross(n, t1);
	imp_vec3 p[KINK_POINTS];
	int np = 0;
	for (double eps = 1e-2; eps >= 1e-6 && np < KINK_POINTS && !c->bad; eps *= 1e-2) {
		const imp_vec3 dirs[4] = {t1, t2, imp_vec3_neg(t1), imp_vec3_neg(t2)};
		for (int k = 0; k < 4 && np < KINK_POINTS; ++k) {
			imp_svert3 w;
			imp_cso_support3(c, imp_vec3_add(n, imp_vec3_scale(eps, dirs[k])), &w);
			imp_vec3 q = is_b ? imp_vec3_sub(w.a, w.w) : w.a;
			bool seen = false;
			for (int j = 0; j < np; ++j)
				seen = seen || (p[j].x == q.x && p[j].y == q.y && p[j].z == q.z);
			if (!seen)
				p[np++] = q;
		}
	}
	for (int i = 0; i < np && !c->bad; ++i)
		for (int j = i + 1; j < np; ++j) {
			// The circle normal to edge p_i p_j, from n's projection on
			// its plane.
			imp_vec3 ed = imp_vec3_sub(p[j], p[i]);
			double el = imp_vec3_length(ed);
			if (!(el > 0.0) || !isfinite(el))
				continue;
			ed = imp_vec3_scale(1.0 / el, ed);
			imp_vec3 u0 = imp_vec3_sub(n, imp_vec3_scale(imp_vec3_dot(n, ed), ed));
			double ul = imp_vec3_length(u0);
			if (ul > 0.9) {
				u0 = imp_vec3_scale(1.0 / ul, u0);
				imp_depth3_try(c, kink_circle_min(c, u0, imp_vec3_cross(ed, u0), 0.1), e);
			}
			for (int k = j + 1; k < np; ++k) {
				imp_vec3 q = imp_vec3_cross(imp_vec3_sub(p[j], p[i]), imp_vec3_sub(p[k], p[i]));
				double l = imp_vec3_length(q);
				if (l > 0.0 && isfinite(l))
					imp_depth3_try(c, imp_vec3_scale(imp_vec3_dot(q, n) < 0.0 ? -1.0 / l : 1.0 / l, q), e);
			}
		}
}

/// Whether h along unit n (its value h) is a local minimum on the sphere
/// of directions: no direction 1e-6 away in eight ways is lower. A kink's
/// minimum (a flat face's normal, a rim's circle) passes where a descent
/// zig-zags to its iteration limit.
static bool sphere_local_min(imp_gjk3_ctx *c, imp_vec3 n, double h)
{
	imp_vec3 e1 = imp_any_normal3(n), e2 = imp_vec3_cross(n, e1);
	for (int k = 0; k < 8 && !c->bad; ++k) {
		double t = 0.7853981633974483 * k;
		imp_vec3 m = imp_vec3_add(n, imp_vec3_add(imp_vec3_scale(1e-6 * cos(t), e1), imp_vec3_scale(1e-6 * sin(t), e2)));
		m = imp_vec3_scale(1.0 / imp_vec3_length(m), m);
		imp_svert3 w;
		if (imp_depth3_height(c, m, &w) < h)
			return false;
	}
	return !c->bad;
}

/// A cylinder's caps and a cone's base are flat: h is kinked along their
/// normals, and its minimum may sit there (a capsule on a cylinder's axis,
/// pushed out through the bottom cap 0.25 less deep than through the side,
/// answered the side: the descents go down the smooth side only; fuzz
/// finding 54). Those directions are tried as they are, as a polytope's
/// face normals are; an answer they lower is no longer at the iteration
/// limit when it is a local minimum on the sphere and may_clear.
static void try_cap_normals(imp_gjk3_ctx *c, const imp_proxy3 *x, bool is_b, bool may_clear, imp_epa3_result *e)
{
	const imp_shape3 *s = x->s;
	if (!capped_core(s))
		return;
	for (int k = s->kind == IMP_SHAPE_CONE ? 1 : 0; k < 2; ++k) {
		imp_vec3 out_normal = imp_vec3_make(0.0, 0.0, k == 0 ? 1.0 : -1.0);
		imp_vec3 n = is_b ? imp_vec3_neg(imp_mat3_apply(&c->r, out_normal)) : out_normal;
		if (imp_depth3_try(c, n, e) && may_clear && e->limit && sphere_local_min(c, e->normal, e->depth))
			e->limit = false;
	}
}

/// Outward direction (cos lat cos phi, cos lat sin phi, sin lat) of a core
/// in its frame, as a direction from a to b (b's outward ones negated).
static imp_vec3 circle_direction(const imp_gjk3_ctx *c, bool is_b, double cl, double sl, double phi)
{
	imp_vec3 u = imp_vec3_make(cl * cos(phi), cl * sin(phi), sl);
	return is_b ? imp_vec3_neg(imp_mat3_apply(&c->r, u)) : u;
}

/// A cylinder's side meets its caps at two rims, and h is kinked along
/// the directions where its support leaves one rim for the other: the
/// equator (a cylinder) or the latitude of the side's normals (a cone,
/// atan(r / 2h)). A ball inside pushed out through the side goes along one
/// of those, and the descents, which follow smooth valleys, stopped 2.2e-5
/// short on a thin cylinder. Along that circle h is as smooth as the other
/// core: a search in its one angle from the best normal's, steps halved to
/// 1e-12. An answer it lowers is no longer at the iteration limit when
/// it is a local minimum on the sphere (sphere_local_min) and may_clear.
static void try_kink_circle(imp_gjk3_ctx *c, const imp_proxy3 *x, bool is_b, bool may_clear, imp_epa3_result *e)
{
	const imp_shape3 *s = x->s;
	if (!capped_core(s) || c->bad)
		return;
	imp_vec3 u = is_b ? imp_mat3_apply_t(&c->r, imp_vec3_neg(e->normal)) : e->normal;
	if (!(hypot(u.x, u.y) > 1e-6))
		return; // along the axis: a cap's way out
	double lat = s->kind == IMP_SHAPE_CONE ? atan2(s->size.x, 2.0 * s->size.z) : 0.0;
	double cl = cos(lat), sl = sin(lat);
	double phi = atan2(u.y, u.x);
	imp_vec3 n = circle_direction(c, is_b, cl, sl, phi);
	imp_svert3 w;
	imp_cso_support3(c, n, &w);
	double h = imp_vec3_dot(n, w.w);
	double step = 0.125;
	for (int budget = 160; step > 1e-12 && budget > 0 && !c->bad; --budget) {
		bool better = false;
		for (int k = 0; k < 2 && !better; ++k) {
			double t = phi + (k == 0 ? step : -step);
			imp_vec3 m = circle_direction(c, is_b, cl, sl, t);
			imp_svert3 wm;
			imp_cso_support3(c, m, &wm);
			double hm = imp_vec3_dot(m, wm.w);
			if (hm < h) {
				phi = t;
				n = m;
				h = hm;
				w = wm;
				better = true;
			}
		}
		step = better ? fmin(2.0 * step, 0.5) : 0.5 * step;
	}
	if (!c->bad && h < e->depth) {
		e->normal = n;
		e->depth = h > 0.0 ? h : 0.0;
		e->s[0] = w;
		e->l[0] = 1.0;
		e->n = 1;
		// A descent stopped by its limit was zig-zagging down this kink.
		if (may_clear && e->limit && step <= 1e-12 && sphere_local_min(c, n, h))
			e->limit = false;
	}
}

static imp_status degenerate_result3(imp_closest3_result r, imp_closest3_result *out)
{
	r.distance = NAN;
	r.point_a = r.point_b = r.normal = imp_vec3_make(NAN, NAN, NAN);
	r.state = IMP_STATE_DEGENERATE;
	*out = r;
	return IMP_OK;
}

/// The largest coordinate of the simplex's points: the scale rounding is
/// measured against.
static double simplex_scale3(const imp_svert3 *s, int n)
{
	double m = 0.0;
	for (int i = 0; i < n; ++i) {
		m = imp_max(m, imp_max3(fabs(s[i].a.x), fabs(s[i].a.y), fabs(s[i].a.z)));
		imp_vec3 b = imp_vec3_sub(s[i].a, s[i].w);
		m = imp_max(m, imp_max3(fabs(b.x), fabs(b.y), fabs(b.z)));
	}
	return m;
}

/// Level 3 for every pair segments3_make does not take, and for cores
/// that meet.
IMP_NOINLINE static imp_status closest3_general(const imp_shape *a, const imp_pose3 *pa, const imp_shape *b,
						const imp_pose3 *pb, imp_simplex_cache *cache,
						const imp_query_options *options, imp_closest3_result *out)
{
	imp_gjk3_ctx c;
	imp_status st = setup(&c, a, *pa, b, *pb, options, false);
	if (st != IMP_OK)
		return st;
	// Closed forms where they exist (closed_form3); GJK is not needed then.
	box_depth bd;
	imp_feature fa, fb;
	bool closed = closed_form3(&c, &bd, &fa, &fb);
	gjk3_out g;
	if (closed) {
		g.state = IMP_STATE_OVERLAPPING;
		g.iterations = 0;
		g.x.n = 0;
		g.closed_form = true; // the cache is left as it was
	} else {
		bool warm = cache != NULL && (cache->count > 0 || has_cached_direction(cache));
		run_query(&c, cache, options, &g, false, 0.0);
		if (warm && g.state == IMP_STATE_OVERLAPPING && (c.a.v == NULL || c.b.v == NULL)) {
			// Curved cores overlapping: EPA and the depth descent start
			// from GJK's final simplex, and a warm one (from another
			// pose) led them to another stop within the descent's
			// tolerance (depths 3e-6 of the scene apart; issue 20, defect
			// 15). The penetration starts from the cold simplex, so the
			// cache changes no penetration answer.
			int warm_iterations = g.iterations;
			c.a.last = c.b.last = -1;
			run_query(&c, NULL, options, &g, false, 0.0);
			g.iterations += warm_iterations;
		}
	}
	write_cache(cache, &g);

	imp_closest3_result r = {.iterations = g.iterations};
	r.feature_a.index = r.feature_b.index = -1;
	if (g.state == IMP_STATE_DEGENERATE)
		return degenerate_result3(r, out);
	imp_vec3 pa_local = {0.0, 0.0, 0.0}, pb_local = {0.0, 0.0, 0.0}, normal;
	double core;
	bool limit = g.state == IMP_STATE_ITERATION_LIMIT;
	const imp_svert3 *ws;
	const double *wl;
	int wn;
	imp_epa3_result e;
	if (closed) {
		// Unscaled: the closed forms work on the shapes' own sizes.
		imp_vec3 pa_s = imp_vec3_scale(c.scale, bd.pa), pb_s = imp_vec3_scale(c.scale, bd.pb);
		e.s[0] = (imp_svert3){imp_vec3_sub(pa_s, pb_s), pa_s, -1, -1};
		e.l[0] = 1.0;
		e.n = 1;
		r.epa_iterations = 1;
		core = -bd.depth * c.scale;
		normal = bd.normal;
		ws = e.s;
		wl = e.l;
		wn = 1;
	} else if (g.state == IMP_STATE_OVERLAPPING) {
		bool curved = c.a.v == NULL || c.b.v == NULL;
		double rel = imp_max(curved ? options->tolerance : 1e-13, 16 * DBL_EPSILON);
		// On curved cores EPA only sets the start of the descent below.
		int epa_cap = curved ? imp_min_int(options->epa_max_iterations,
						   imp_gjk3_smooth(&c) ? SMOOTH_EPA_ITERATIONS : CURVED_EPA_ITERATIONS)
				     : options->epa_max_iterations;
		imp_epa3(&c, g.x.s, g.x.n, epa_cap, rel, &e);
		if (!c.bad && curved && e.limit) {
			// EPA's faces only approach a curved C: finish by descent
			// on the depth function from EPA's best normal.
			// h has a local minimum near each face of a box, say:
			// descents from the normals of EPA's nearest faces, the
			// lowest kept.
			// A descent stopped by epa_max_iterations still gives a
			// depth (an upper bound): when the lowest is such a one,
			// the answer is IMP_STATE_ITERATION_LIMIT (issue 20, defect
			// 16: one iteration answered a depth 18% off as exact).
			imp_epa3_result best;
			bool found = false, stopped = false;
			// The nearest faces' normals, then the spread ones whose
			// face lies nearer than the best depth found so far: the
			// polytope is inside C, so a face's distance bounds h from
			// below over its directions, and a face above the best
			// cannot hold a lower minimum (ordinary pairs skip them; a
			// user box nearly centred in a large ball took 102.838 for
			// 102.731 without them, fuzz finding 74).
			for (int k = 0; k < e.candidates + e.spreads && !c.bad; ++k) {
				bool spread = k >= e.candidates;
				if (spread && found && !(e.spread_d[k - e.candidates] < best.depth))
					continue;
				imp_epa3_result f = e;
				f.limit = false;
				f.iterations = 0;
				bool done = imp_depth3_refine(&c, spread ? e.spread[k - e.candidates] : e.candidate[k],
							      options->epa_max_iterations, imp_gjk3_smooth(&c) ? 1e-12 : 1e-9, &f);
				if (!c.bad && (!found || f.depth < best.depth)) {
					best = f;
					found = true;
					stopped = !done;
				}
				e.iterations += f.iterations;
			}
			// EPA cut short by the options (fewer iterations than its
			// own budget) starts the descents far off: a local minimum
			// they reach is the best found, not the depth (two user
			// boxes rounded by 450 at one pose, 911.2 deep at 3 EPA
			// iterations for 906.5, as exact; and a cylinder in a
			// cylinder 215.6 for 214.1 at one).
			bool may_clear = epa_cap == (imp_gjk3_smooth(&c) ? SMOOTH_EPA_ITERATIONS : CURVED_EPA_ITERATIONS);
			if (found) {
				best.iterations = e.iterations;
				best.limit = stopped || !may_clear;
				e = best;
				// Where a core is a polytope, h is kinked and its
				// minimum may sit on a kink, along a face normal (a box
				// pushed out through its face): those directions are
				// tried as they are.
				try_face_normals(&c, &c.a, false, &e);
				try_face_normals(&c, &c.b, true, &e);
				// A local minimum these find clears the limit only when
				// EPA ran its own budget (may_clear).
				try_kink_circle(&c, &c.a, false, may_clear, &e);
				try_kink_circle(&c, &c.b, true, may_clear, &e);
				try_cap_normals(&c, &c.a, false, may_clear, &e);
				try_cap_normals(&c, &c.b, true, may_clear, &e);
				try_support_kinks(&c, &c.a, false, &e);
				try_support_kinks(&c, &c.b, true, &e);
			}
		}
		if (c.bad)
			return degenerate_result3(r, out);
		r.epa_iterations = e.iterations;
		limit = limit || e.limit;
		core = -e.depth;
		normal = e.normal;
		ws = e.s;
		wl = e.l;
		wn = e.n;
	} else {
		double len = robust_length3(g.x.v);
		core = len;
		normal = robust_normal3(g.x.v, imp_vec3_make(1.0, 0.0, 0.0));
		ws = g.x.s;
		wl = g.x.l;
		wn = g.x.n;
	}
	for (int i = 0; i < wn; ++i) {
		pa_local = imp_vec3_add(pa_local, imp_vec3_scale(wl[i], ws[i].a));
		pb_local = imp_vec3_add(pb_local, imp_vec3_scale(wl[i], imp_vec3_sub(ws[i].a, ws[i].w)));
	}
	if (closed) {
		r.feature_a = fa;
		r.feature_b = fb;
	} else {
		r.feature_a = feature_of(&c.a, ws, wl, wn, 0);
		r.feature_b = feature_of(&c.b, ws, wl, wn, 1);
	}
	double inv = 1.0 / c.scale;
	double scene = simplex_scale3(ws, wn) * inv;
	pa_local = imp_vec3_scale(inv, pa_local);
	pb_local = imp_vec3_scale(inv, pb_local);
	core *= inv;
	double ra = a->radius, rb = b->radius;
	pa_local = imp_vec3_add(pa_local, imp_vec3_scale(ra, normal));
	pb_local = imp_vec3_sub(pb_local, imp_vec3_scale(rb, normal));
	r.distance = core - ra - rb;
	imp_mat3 rot = imp_pose3_matrix(*pa);
	r.point_a = imp_vec3_add(imp_mat3_apply(&rot, pa_local), pa->p);
	r.point_b = imp_vec3_add(imp_mat3_apply(&rot, pb_local), pa->p);
	r.normal = imp_mat3_apply(&rot, normal);
	// Touching: |distance| within rounding of the coordinates GJK worked
	// with.
	double touch = 64 * DBL_EPSILON * imp_max(scene, imp_max(ra, rb));
	if (limit)
		r.state = IMP_STATE_ITERATION_LIMIT;
	else if (fabs(r.distance) <= touch)
		r.state = IMP_STATE_TOUCHING;
	else
		r.state = r.distance < 0.0 ? IMP_STATE_OVERLAPPING : IMP_STATE_SEPARATED;
	*out = r;
	return IMP_OK;
}

imp_status imp_closest3_ex(const imp_shape *a, imp_pose3 pa, const imp_shape *b, imp_pose3 pb,
			   imp_simplex_cache *cache, const imp_query_options *options, imp_closest3_result *out)
{
	if (out == NULL)
		return IMP_ERR_NULL_ARGUMENT;
	if (imp_pair_has_composite(a, b))
		return imp_composite_closest3(a, pa, b, pb, cache, options, out, NULL);
	if (options == NULL)
		options = &imp_default_options;
	segments3 sg;
	imp_status st = IMP_OK;
	if (maybe_segments(a, b) && segments3_make(a, &pa, b, &pb, options, &sg) && !segments3_cross(&sg)) {
		// Cores apart: the closed form's answer (cores that meet need
		// EPA).
		segments3_closest(&sg, pa, out);
	} else {
		st = closest3_general(a, &pa, b, &pb, cache, options, out);
	}
	if (st == IMP_OK)
		out->child_a = out->child_b = -1;
	return st;
}

imp_status imp_closest3(const imp_shape *a, imp_pose3 pa, const imp_shape *b, imp_pose3 pb,
			imp_simplex_cache *cache, imp_closest3_result *out)
{
	return imp_closest3_ex(a, pa, b, pb, cache, NULL, out);
}
