// SPDX-License-Identifier: MIT
// The 3D convex hull behind imp_shape_polytope: quickhull (Barber, Dobkin,
// Huhdanpaa, "The Quickhull Algorithm for Convex Hulls", ACM TOMS 22(4),
// 1996) on exact orientation tests, then coplanar triangles merged into
// convex polygons within a tolerance.
//
// Robustness, in the order the steps run:
//
// - The points are moved to the centre of their bounding box and scaled by
//   a power of two into (-1, 1): the arithmetic then works at the size of
//   the cloud wherever it sits, and the exact predicate can neither
//   overflow nor underflow. (They are also sorted along a Morton curve, for
//   speed only.)
// - eps = HULL3_EPS_FACTOR * DBL_EPSILON * (sum over the axes of the largest
//   |coordinate| as given): the resolution of the input, since a coordinate
//   is only known to a rounding of its magnitude. It decides the dimension
//   (all points within eps of a point, a line or a plane), which points
//   become vertices (only those more than eps from the hull: Barber et al.'s
//   thick hull) and which faces merge.
// - Whether a point is above a triangle is decided exactly: a floating-point
//   filter, a second one with errors of order DBL_EPSILON^2, and expansion
//   arithmetic when neither can tell. So the triangulated hull is convex
//   without exception, the faces a new point sees form a disc with one
//   simple horizon, and a point left out is inside or within eps of the
//   hull: measured to the faces themselves, not to their planes, which in a
//   slab a few eps thick can pass within eps of a point far beyond the rim.
// - Adjacent faces whose vertices all lie within eps of the plane of one of
//   their triangles are merged. That triangle's plane is an exact
//   supporting plane of the triangulated hull, so every point stays below
//   every face plane, and merging never drifts: a face is measured against
//   one fixed plane, not one refitted after every merge. A merged face keeps
//   its triangles' normals within HULL3_MAX_CONE of its own, so it stays a
//   simple polygon, and faces turned away from each other never merge.
// - A vertex left with two edges on the straight edge between two faces is
//   removed; a merge that would leave one elsewhere (a fold at a rim thinner
//   than eps) is refused. A corner within eps of the chord of its
//   neighbours (collinear, or reflex) is within eps of the hull of the other
//   vertices: such vertices are dropped and the hull of the rest is built
//   again, until every corner is clearly convex.
// - A flat set (within eps of a plane) is projected onto that plane and
//   hulled by Andrew's monotone chain on exact turns. A corner is dropped
//   only within eps of the segment between its neighbours, not merely of
//   their line (see clear_left_turn); the corners where the two chains
//   meet are tested too, on the finished ring.
#include <float.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "shape/hull3d.h"

/// More points than this are refused. A hull of n points has at most 2n
/// faces and 6n half-edges; this keeps every index and count far from
/// INT32_MAX.
#define HULL3_MAX_POINTS (1 << 26)

/// The tolerance in units of DBL_EPSILON times the magnitude of the
/// coordinates. A plane distance computed here is off by a few units (a unit
/// normal rounded, a dot product of differences), and points the caller
/// computed (rotated, scaled) are off the plane they came from by a few
/// more: ten units covers both, and is still about 1e-15 of the size of a
/// cloud about the origin.
#define HULL3_EPS_FACTOR 10.0

/// A merged face's triangles keep their normals within this angle (radians)
/// of the face's normal: below pi / 2, a piece of convex surface projects
/// one to one onto the face's plane, so the face stays a simple polygon.
#define HULL3_MAX_CONE 1.5

/// Coordinates below this (in the scaled frame, where the largest is at
/// least 1/2) are set to zero, so that products of three coordinates and
/// their rounding errors stay normal numbers and the exact predicate is
/// exact. It moves a point by less than 1e-75 of the size of the cloud.
#define HULL3_FLUSH 0x1p-250

// ---------------------------------------------------------------------------
// Exact arithmetic: expansions, sums of doubles kept without rounding
// (Shewchuk, "Adaptive Precision Floating-Point Arithmetic and Fast Robust
// Geometric Predicates", 1997: the two-sum and grow-expansion theorems).

static double axis(imp_vec3 v, int k)
{
	return k == 0 ? v.x : (k == 1 ? v.y : v.z);
}

/// a + b == *s + *e exactly, *s the rounded sum (Knuth's two-sum).
static void two_sum(double a, double b, double *s, double *e)
{
	double x = a + b;
	double bv = x - a;
	double av = x - bv;
	*e = (a - av) + (b - bv);
	*s = x;
}

/// Adds b to the expansion e[0 .. n), whose components do not overlap and
/// grow in magnitude; returns its new length (at most n + 1). Zero
/// components are dropped, so the last component carries the sign of the
/// sum.
static int expansion_add(double *e, int n, double b)
{
	if (b == 0.0)
		return n;
	int m = 0;
	for (int i = 0; i < n; ++i) {
		double s, err;
		two_sum(b, e[i], &s, &err);
		if (err != 0.0)
			e[m++] = err;
		b = s;
	}
	if (b != 0.0)
		e[m++] = b;
	return m;
}

/// Adds x * y * z to the expansion exactly, as four doubles: x * y is
/// p + pe, p * z and pe * z each a product and its rounding error (fma).
static int expansion_add_product(double *e, int n, double x, double y, double z)
{
	double p = x * y, pe = fma(x, y, -p);
	double q = p * z, qe = fma(p, z, -q);
	double r = pe * z, re = fma(pe, z, -r);
	n = expansion_add(e, n, re);
	n = expansion_add(e, n, r);
	n = expansion_add(e, n, qe);
	return expansion_add(e, n, q);
}

/// Adds sign * det(rows x, y, z) to the expansion: six products.
static int expansion_add_det3(double *e, int n, imp_vec3 x, imp_vec3 y, imp_vec3 z, double sign)
{
	n = expansion_add_product(e, n, sign * x.x, y.y, z.z);
	n = expansion_add_product(e, n, -sign * x.x, y.z, z.y);
	n = expansion_add_product(e, n, -sign * x.y, y.x, z.z);
	n = expansion_add_product(e, n, sign * x.y, y.z, z.x);
	n = expansion_add_product(e, n, sign * x.z, y.x, z.y);
	return expansion_add_product(e, n, -sign * x.z, y.y, z.x);
}

/// The sign of det(b - a, c - a, d - a), exactly. The differences are not
/// formed (they round); instead, by multilinearity,
/// det(b - a, c - a, d - a) = det(b, c, d) - det(a, c, d) + det(a, b, d) - det(a, b, c),
/// 24 products of three coordinates summed without rounding. Exact for the
/// prepared points (|x| < 1, and none below HULL3_FLUSH but zero).
static int orient_exact(imp_vec3 a, imp_vec3 b, imp_vec3 c, imp_vec3 d)
{
	double e[100]; // 96 components at most: the length grows by one an addition
	int n = 0;
	n = expansion_add_det3(e, n, b, c, d, 1.0);
	n = expansion_add_det3(e, n, a, c, d, -1.0);
	n = expansion_add_det3(e, n, a, b, d, 1.0);
	n = expansion_add_det3(e, n, a, b, c, -1.0);
	if (n == 0)
		return 0;
	return e[n - 1] > 0.0 ? 1 : -1;
}

/// x * y - z * w where each argument is an unevaluated sum hi + lo, as
/// *hi + *lo, and *mag = |xh yh| + |zh wh|. The leading products are split
/// exactly with fma; the low part gathers their errors and the cross terms
/// (each below DBL_EPSILON times the products) and rounds, so the result is
/// within 40 u^2 * mag of the exact value (u = DBL_EPSILON / 2; the lo * lo
/// terms, below u^2 * mag, are left out).
static void det2_dd(double xh, double xl, double yh, double yl, double zh, double zl, double wh, double wl, double *hi,
		    double *lo, double *mag)
{
	double p = xh * yh, pe = fma(xh, yh, -p);
	double q = zh * wh, qe = fma(zh, wh, -q);
	double s, se;
	two_sum(p, -q, &s, &se);
	*hi = s;
	*lo = se + (pe - qe) + (xh * yl + xl * yh) - (zh * wl + zl * wh);
	*mag = fabs(p) + fabs(q);
}

/// x * y - z * w as above, rounded to one double: within about one rounding
/// of the exact value.
static double det2_accurate(double xh, double xl, double yh, double yl, double zh, double zl, double wh, double wl)
{
	double hi, lo, mag;
	det2_dd(xh, xl, yh, yl, zh, zl, wh, wl, &hi, &lo, &mag);
	return hi + lo;
}

/// The sign of det(b - a, c - a, d - a) when it can be told with errors of
/// order DBL_EPSILON^2, else 2. The differences are kept exactly (two
/// doubles each), the normal (b - a) x (c - a) as two doubles within
/// 40 u^2 * P (P the sums of |products| of det2_dd), and the dot product
/// with d - a split with fma. Its error is below u |result| +
/// 256 u^2 * (sum |(d - a)_i| (|n_i| + P_i)): a generous count of the
/// roundings of each step, each at most u times terms already of order u.
static int orient_accurate(imp_vec3 a, imp_vec3 b, imp_vec3 c, imp_vec3 d)
{
	double bh[3], bl[3], ch[3], cl[3], dh[3], dl[3];
	for (int k = 0; k < 3; ++k) {
		two_sum(axis(b, k), -axis(a, k), &bh[k], &bl[k]);
		two_sum(axis(c, k), -axis(a, k), &ch[k], &cl[k]);
		two_sum(axis(d, k), -axis(a, k), &dh[k], &dl[k]);
	}
	double nh[3], nl[3], pm[3];
	det2_dd(bh[1], bl[1], ch[2], cl[2], bh[2], bl[2], ch[1], cl[1], &nh[0], &nl[0], &pm[0]);
	det2_dd(bh[2], bl[2], ch[0], cl[0], bh[0], bl[0], ch[2], cl[2], &nh[1], &nl[1], &pm[1]);
	det2_dd(bh[0], bl[0], ch[1], cl[1], bh[1], bl[1], ch[0], cl[0], &nh[2], &nl[2], &pm[2]);
	double sum = 0.0, low = 0.0, mag = 0.0;
	for (int k = 0; k < 3; ++k) {
		double p = dh[k] * nh[k], pe = fma(dh[k], nh[k], -p), t;
		two_sum(sum, p, &sum, &t);
		low += t + pe + dh[k] * nl[k] + dl[k] * nh[k];
		mag += fabs(dh[k]) * (fabs(nh[k]) + pm[k]);
	}
	double o = sum + low;
	double err = 64.0 * DBL_EPSILON * DBL_EPSILON * mag;
	if (err == 0.0) // every product has an exactly zero factor
		return o > 0.0 ? 1 : (o < 0.0 ? -1 : 0);
	if (fabs(o) * (1.0 - 2.0 * DBL_EPSILON) > err)
		return o > 0.0 ? 1 : -1;
	return 2;
}

/// (b - a) x (c - a), each component within about a unit roundoff of its
/// exact value even for a sliver: the differences are kept exactly as two
/// doubles each, so a thin triangle's plane is as good as a fat one's.
static void triangle_normal(imp_vec3 a, imp_vec3 b, imp_vec3 c, double n[3])
{
	double bx, bxl, by, byl, bz, bzl, cx, cxl, cy, cyl, cz, czl;
	two_sum(b.x, -a.x, &bx, &bxl);
	two_sum(b.y, -a.y, &by, &byl);
	two_sum(b.z, -a.z, &bz, &bzl);
	two_sum(c.x, -a.x, &cx, &cxl);
	two_sum(c.y, -a.y, &cy, &cyl);
	two_sum(c.z, -a.z, &cz, &czl);
	n[0] = det2_accurate(by, byl, cz, czl, bz, bzl, cy, cyl);
	n[1] = det2_accurate(bz, bzl, cx, cxl, bx, bxl, cz, czl);
	n[2] = det2_accurate(bx, bxl, cy, cyl, by, byl, cx, cxl);
}

/// |n|, scaled first so that tiny normals do not underflow when squared.
static double norm3(const double n[3])
{
	double m = fmax(fabs(n[0]), fmax(fabs(n[1]), fabs(n[2])));
	if (m == 0.0)
		return 0.0;
	double x = n[0] / m, y = n[1] / m, z = n[2] / m;
	return m * sqrt(x * x + y * y + z * z);
}

/// A bound on the rounding error of face_side's determinant, given the sum
/// of the magnitudes of its three products. The differences p - a round
/// (one unit roundoff), the normal is within one, the dot product adds
/// three: 5 units of DBL_EPSILON / 2, doubled for safety. The constant term
/// covers the normal's DBL_EPSILON^2 part (below 1e-29 for coordinates in
/// (-1, 1)).
static double orient_error_bound(double magnitude)
{
	return 8.0 * DBL_EPSILON * magnitude + 1e-27;
}

// ---------------------------------------------------------------------------
// The working state.

/// A triangle of the hull under construction. Half-edge k of triangle f is
/// 3f + k, from v[k] to v[k + 1]; the merged faces reuse them.
typedef struct face3 {
	int32_t v[3];    ///< corners, counter-clockwise seen from outside
	int32_t nb[3];   ///< the twin of half-edge 3f + k
	imp_vec3 a;      ///< the corner v[0], a copy: face_side reads no other record
	double n[3];     ///< (v1 - v0) x (v2 - v0), see triangle_normal
	double inv_len;  ///< 1 / |n|
	double far_dist; ///< distance of `far` above the plane
	int32_t head;    ///< first point of the conflict list; next free face when dead
	int32_t far;     ///< the point of the list farthest above, or -1
	int32_t visit;   ///< 2 * stamp: visible from the current eye; 2 * stamp + 1: not
	uint8_t alive;   ///< a face of the current hull
	uint8_t queued;  ///< on `stack`
} face3;

/// A face of the merged hull: a loop of half-edges (he_next, he_prev), the
/// triangles' own, with the triangles' twins. Record f starts as triangle f.
typedef struct mface {
	int32_t first;  ///< a half-edge of the face, -1 when merged away
	int32_t rep;    ///< the triangle whose plane the face uses
	int32_t size;   ///< edges
	int32_t queued; ///< on `stack`
	double cone;    ///< bound on the angle from its triangles' normals to rep's
} mface;

typedef struct hull_work {
	const imp_allocator *alloc;
	const imp_vec3 *in;
	int n;
	double eps;
	imp_vec3 *p;      ///< the points, centred, scaled and in spatial order (n)
	int32_t *ints;    ///< one allocation for the 9n integers below
	int32_t *id;      ///< the input index of each point of p (n)
	int32_t *next_pt; ///< conflict lists (n)
	int32_t *subset;  ///< the points being hulled, ascending (n)
	int32_t *buf;     ///< points of the faces a step deletes (n)
	int32_t *cone;    ///< the faces a step creates; the 2D ring (n)
	int32_t *hor;     ///< horizon: vertex and twin half-edge (2n); the 2D chain
	int32_t *vmark;   ///< vertex stamps (n)
	int32_t *vmap;    ///< input index to output index (n)
	face3 *f;
	int32_t *stack; ///< faces to process (fcap)
	int32_t *queue; ///< breadth-first searches (fcap)
	int fcap, fcount, free_head, ns;
	mface *m;         ///< merged faces (mcap)
	int32_t *he_next; ///< next half-edge along its face (3 mcap)
	int32_t *he_prev; ///< previous half-edge along its face (3 mcap)
	int32_t *he_face; ///< the face of a half-edge, -1 when removed (3 mcap)
	int mcap;
	int stamp, vstamp;
} hull_work;

static int32_t he_origin(const hull_work *w, int32_t he)
{
	return w->f[he / 3].v[he % 3];
}

static int32_t he_twin(const hull_work *w, int32_t he)
{
	return w->f[he / 3].nb[he % 3];
}

static void he_set_twin(hull_work *w, int32_t he, int32_t twin)
{
	w->f[he / 3].nb[he % 3] = twin;
}

static void work_free(hull_work *w)
{
	const imp_allocator *a = w->alloc;
	size_t n = (size_t)w->n;
	imp_free(a, w->p, n * sizeof *w->p);
	imp_free(a, w->ints, 9 * n * sizeof *w->ints);
	imp_free(a, w->f, (size_t)w->fcap * sizeof *w->f);
	imp_free(a, w->stack, (size_t)w->fcap * sizeof *w->stack);
	imp_free(a, w->queue, (size_t)w->fcap * sizeof *w->queue);
	imp_free(a, w->m, (size_t)w->mcap * sizeof *w->m);
	imp_free(a, w->he_next, 3 * (size_t)w->mcap * sizeof *w->he_next);
	imp_free(a, w->he_prev, 3 * (size_t)w->mcap * sizeof *w->he_prev);
	imp_free(a, w->he_face, 3 * (size_t)w->mcap * sizeof *w->he_face);
}

static imp_status work_alloc(hull_work *w)
{
	size_t n = (size_t)w->n;
	w->p = imp_alloc(w->alloc, n * sizeof *w->p);
	if (w->p == NULL)
		return IMP_ERR_OUT_OF_MEMORY;
	w->ints = imp_alloc(w->alloc, 9 * n * sizeof *w->ints);
	if (w->ints == NULL)
		return IMP_ERR_OUT_OF_MEMORY;
	w->next_pt = w->ints;
	w->subset = w->ints + n;
	w->buf = w->ints + 2 * n;
	w->cone = w->ints + 3 * n;
	w->vmark = w->ints + 4 * n;
	w->vmap = w->ints + 5 * n;
	w->hor = w->ints + 6 * n;
	w->id = w->ints + 8 * n;
	return IMP_OK;
}

/// Makes room for `need` faces (and as many stack and queue entries),
/// doubling. On failure the arrays are as they were.
static bool reserve_faces(hull_work *w, int need)
{
	if (need <= w->fcap)
		return true;
	int cap = w->fcap > 0 ? w->fcap : 64;
	while (cap < need)
		cap *= 2;
	const imp_allocator *a = w->alloc;
	face3 *f = imp_alloc(a, (size_t)cap * sizeof *f);
	int32_t *stack = imp_alloc(a, (size_t)cap * sizeof *stack);
	int32_t *queue = imp_alloc(a, (size_t)cap * sizeof *queue);
	if (f == NULL || stack == NULL || queue == NULL) {
		imp_free(a, f, (size_t)cap * sizeof *f);
		imp_free(a, stack, (size_t)cap * sizeof *stack);
		imp_free(a, queue, (size_t)cap * sizeof *queue);
		return false;
	}
	if (w->fcap > 0) {
		memcpy(f, w->f, (size_t)w->fcount * sizeof *f);
		memcpy(stack, w->stack, (size_t)w->ns * sizeof *stack);
		memcpy(queue, w->queue, (size_t)w->fcap * sizeof *queue);
	}
	imp_free(a, w->f, (size_t)w->fcap * sizeof *w->f);
	imp_free(a, w->stack, (size_t)w->fcap * sizeof *w->stack);
	imp_free(a, w->queue, (size_t)w->fcap * sizeof *w->queue);
	w->f = f;
	w->stack = stack;
	w->queue = queue;
	w->fcap = cap;
	return true;
}

/// The 10 bits of x spread to every third bit (for a Morton key).
static uint32_t spread_bits(uint32_t x)
{
	x = (x | (x << 16)) & 0x030000ffu;
	x = (x | (x << 8)) & 0x0300f00fu;
	x = (x | (x << 4)) & 0x030c30c3u;
	x = (x | (x << 2)) & 0x09249249u;
	return x;
}

/// Point counts up to which spatial_order sorts by insertion.
#define SMALL_ORDER 32

/// Orders the input indices along a Morton curve (a stable radix sort on
/// 10 bits an axis) into w->id: points near each other in space then sit
/// near each other in memory, and so do conflict lists, which halves the
/// time on large inputs (cache misses were most of it). The scratch arrays
/// are ones not in use yet.
static void spatial_order(hull_work *w, const double c[3], const double scale[2])
{
	int32_t *key = w->buf, *perm = w->subset, *tmp = w->vmark;
	for (int i = 0; i < w->n; ++i) {
		uint32_t k = 0;
		for (int j = 0; j < 3; ++j) {
			double x = (axis(w->in[i], j) - c[j]) * scale[0] * scale[1]; // in (-1, 1)
			// Clamped before the conversion: no int holds an infinity
			// or a NaN (undefined behaviour), should one come.
			double y = (x + 1.0) * 512.0;
			uint32_t q = y > 0.0 ? (y < 1023.0 ? (uint32_t)y : 1023u) : 0u;
			k |= spread_bits(q) << j;
		}
		key[i] = (int32_t)k;
		perm[i] = i;
	}
	if (w->n <= SMALL_ORDER) {
		// Few points: an insertion sort, stable like the radix passes
		// below (the same order), without their three 4 KB count arrays,
		// which cost a small shape such as a box most of its build.
		for (int i = 1; i < w->n; ++i) {
			int32_t p = perm[i];
			int j = i;
			for (; j > 0 && key[perm[j - 1]] > key[p]; --j)
				perm[j] = perm[j - 1];
			perm[j] = p;
		}
		memcpy(w->id, perm, (size_t)w->n * sizeof *w->id);
		memset(w->vmark, 0, (size_t)w->n * sizeof *w->vmark);
		return;
	}
	for (int shift = 0; shift < 30; shift += 10) {
		int32_t count[1025] = {0};
		for (int i = 0; i < w->n; ++i)
			++count[((key[perm[i]] >> shift) & 1023) + 1];
		for (int d = 0; d < 1024; ++d)
			count[d + 1] += count[d];
		for (int i = 0; i < w->n; ++i)
			tmp[count[(key[perm[i]] >> shift) & 1023]++] = perm[i];
		int32_t *t = perm;
		perm = tmp;
		tmp = t;
	}
	memcpy(w->id, perm, (size_t)w->n * sizeof *w->id);
	memset(w->vmark, 0, (size_t)w->n * sizeof *w->vmark);
}

/// Centres the points on their bounding box, scales them by a power of two
/// (exact) into (-1, 1), puts them in spatial order, and sets eps, in that
/// frame.
static void prepare_points(hull_work *w)
{
	const imp_vec3 *in = w->in;
	double lo[3], hi[3], c[3];
	for (int k = 0; k < 3; ++k)
		lo[k] = hi[k] = axis(in[0], k);
	for (int i = 1; i < w->n; ++i)
		for (int k = 0; k < 3; ++k) {
			double x = axis(in[i], k);
			lo[k] = fmin(lo[k], x);
			hi[k] = fmax(hi[k], x);
		}
	double big = 0.0;
	for (int k = 0; k < 3; ++k) {
		// Halves first: lo + hi could overflow.
		c[k] = 0.5 * lo[k] + 0.5 * hi[k];
		big = fmax(big, fmax(hi[k] - c[k], c[k] - lo[k]));
	}
	int e = 0;
	if (big > 0.0)
		(void)frexp(big, &e);
	// A power of two (a product by it is exact, bar underflow, which the
	// flush below cuts off anyway), applied in two factors: 2^-e runs from
	// about 2^-1025 to 2^1074 (points a few subnormals apart), beyond
	// double's range at the top. (One factor overflowed to infinity there,
	// and the hull of such points was a single point.)
	double scale[2] = {ldexp(1.0, -e / 2), ldexp(1.0, -(e - e / 2))};
	spatial_order(w, c, scale);
	for (int i = 0; i < w->n; ++i) {
		double x[3];
		for (int k = 0; k < 3; ++k) {
			x[k] = (axis(in[w->id[i]], k) - c[k]) * scale[0] * scale[1];
			if (fabs(x[k]) < HULL3_FLUSH)
				x[k] = 0.0;
		}
		w->p[i] = imp_vec3_make(x[0], x[1], x[2]);
	}
	// The magnitudes as given, not about the centre: a coordinate is only
	// known to DBL_EPSILON times its magnitude, so a cloud of size 1 at 1e6
	// has no shape finer than about 1e-10 and must not get faces from it.
	double size = 0.0;
	for (int k = 0; k < 3; ++k)
		size += fmax(fabs(lo[k]), fabs(hi[k]));
	w->eps = HULL3_EPS_FACTOR * DBL_EPSILON * (size * scale[0] * scale[1]);
}

// ---------------------------------------------------------------------------
// The dimension and the starting points.

/// Lexicographic order on the axes k, k + 1, k + 2 (cyclically).
static int lex_compare(imp_vec3 a, imp_vec3 b, int k)
{
	for (int j = 0; j < 3; ++j) {
		double x = axis(a, (k + j) % 3), y = axis(b, (k + j) % 3);
		if (x != y)
			return x < y ? -1 : 1;
	}
	return 0;
}

static imp_vec3 unit_normal(imp_vec3 a, imp_vec3 b, imp_vec3 c)
{
	double n[3];
	triangle_normal(a, b, c, n);
	double s = 1.0 / norm3(n);
	return imp_vec3_make(n[0] * s, n[1] * s, n[2] * s);
}

/// The dimension of the subset within eps, and its starting points: q[0],
/// q[1] the lexicographic extremes along the widest axis (both vertices of
/// the hull), q[2] the point farthest from their line, q[3] the point
/// farthest from the plane of the three. Ties go to the first in the
/// spatial order (for equal points, the lowest input index).
static int find_simplex(const hull_work *w, int m, int32_t q[4])
{
	const imp_vec3 *p = w->p;
	const int32_t *s = w->subset;
	double lo[3], hi[3];
	for (int k = 0; k < 3; ++k)
		lo[k] = hi[k] = axis(p[s[0]], k);
	for (int i = 1; i < m; ++i)
		for (int k = 0; k < 3; ++k) {
			lo[k] = fmin(lo[k], axis(p[s[i]], k));
			hi[k] = fmax(hi[k], axis(p[s[i]], k));
		}
	int k = 0;
	for (int j = 1; j < 3; ++j)
		if (hi[j] - lo[j] > hi[k] - lo[k])
			k = j;
	int32_t a = s[0], b = s[0];
	for (int i = 1; i < m; ++i) {
		if (lex_compare(p[s[i]], p[a], k) < 0)
			a = s[i];
		if (lex_compare(p[s[i]], p[b], k) > 0)
			b = s[i];
	}
	q[0] = a;
	q[1] = b;
	if (!(hi[k] - lo[k] > w->eps))
		return 0;

	imp_vec3 u = imp_vec3_sub(p[b], p[a]);
	double best = -1.0;
	int32_t c = a;
	for (int i = 0; i < m; ++i) {
		imp_vec3 x = imp_vec3_cross(imp_vec3_sub(p[s[i]], p[a]), u);
		double d = imp_vec3_dot(x, x);
		if (d > best) {
			best = d;
			c = s[i];
		}
	}
	// |x| / |u| is the distance from the line.
	if (!(best > w->eps * w->eps * imp_vec3_dot(u, u)))
		return 1;
	q[2] = c;

	imp_vec3 nrm = unit_normal(p[a], p[b], p[c]);
	best = -1.0;
	int32_t d = a;
	for (int i = 0; i < m; ++i) {
		double h = fabs(imp_vec3_dot(nrm, imp_vec3_sub(p[s[i]], p[a])));
		if (h > best) {
			best = h;
			d = s[i];
		}
	}
	if (!(best > w->eps))
		return 2;
	q[3] = d;
	return 3;
}

// ---------------------------------------------------------------------------
// Quickhull on triangles.

/// A fresh face record: from the free list, else a new slot. -1 when out of
/// memory. A reused slot keeps its `queued` flag: it may still be on the
/// stack, and must not go there twice.
static int face_new(hull_work *w)
{
	if (w->free_head >= 0) {
		int f = w->free_head;
		w->free_head = w->f[f].head;
		return f;
	}
	if (!reserve_faces(w, w->fcount + 1))
		return -1;
	w->f[w->fcount].queued = 0;
	return w->fcount++;
}

static void face_init(hull_work *w, int f, int32_t a, int32_t b, int32_t c)
{
	face3 *t = &w->f[f];
	t->v[0] = a;
	t->v[1] = b;
	t->v[2] = c;
	t->a = w->p[a];
	triangle_normal(w->p[a], w->p[b], w->p[c], t->n);
	t->inv_len = 1.0 / norm3(t->n);
	t->far_dist = -INFINITY;
	t->head = -1;
	t->far = -1;
	t->visit = -1;
	t->alive = 1;
}

/// The side of face t's plane point i is on (1 above, -1 below, 0 on),
/// exactly; *dist its distance above the plane, rounded.
static int face_side(const hull_work *w, const face3 *t, int32_t i, double *dist)
{
	imp_vec3 a = t->a, q = w->p[i];
	double dx = q.x - a.x, dy = q.y - a.y, dz = q.z - a.z;
	double o = dx * t->n[0] + dy * t->n[1] + dz * t->n[2];
	double mag = fabs(dx * t->n[0]) + fabs(dy * t->n[1]) + fabs(dz * t->n[2]);
	*dist = o * t->inv_len;
	double err = orient_error_bound(mag);
	if (o > err)
		return 1;
	if (o < -err)
		return -1;
	int sign = orient_accurate(a, w->p[t->v[1]], w->p[t->v[2]], q);
	return sign != 2 ? sign : orient_exact(a, w->p[t->v[1]], w->p[t->v[2]], q);
}

/// Puts point i (dist above it) on face f's conflict list; a face with a
/// point more than eps above goes on the stack.
static void list_push(hull_work *w, int f, int32_t i, double dist)
{
	face3 *t = &w->f[f];
	w->next_pt[i] = t->head;
	t->head = i;
	if (dist > t->far_dist) {
		t->far_dist = dist;
		t->far = i;
	}
	if (t->far_dist > w->eps && !t->queued) {
		t->queued = 1;
		w->stack[w->ns++] = f;
	}
}

/// Assigns point i to one of the faces cand[0 .. nc) it is above: the first
/// it is more than eps above, else the one it is farthest above. A point
/// above none is inside the hull and is dropped. The search starts at
/// cand[start] and goes round; returns where it stopped, the start for the
/// next point (points come face by face, and neighbours tend to land on
/// the same new face: on a finely divided cylinder this saves nearly all
/// the tests).
static int assign_point(hull_work *w, int32_t i, const int32_t *cand, int nc, int start)
{
	int best = -1, at = start;
	double best_dist = 0.0;
	for (int j = 0, c = start; j < nc; ++j, c = c + 1 == nc ? 0 : c + 1) {
		double d;
		if (face_side(w, &w->f[cand[c]], i, &d) <= 0)
			continue;
		if (d > w->eps) {
			best = cand[c];
			best_dist = d;
			at = c;
			break;
		}
		if (best < 0 || d > best_dist) {
			best = cand[c];
			best_dist = d;
			at = c;
		}
	}
	if (best >= 0)
		list_push(w, best, i, best_dist);
	return at;
}

static double point_segment_distance(imp_vec3 q, imp_vec3 a, imp_vec3 b)
{
	imp_vec3 ab = imp_vec3_sub(b, a), aq = imp_vec3_sub(q, a);
	double t = imp_vec3_dot(aq, ab), l2 = imp_vec3_dot(ab, ab);
	t = t <= 0.0 ? 0.0 : (t >= l2 ? 1.0 : t / l2);
	return imp_vec3_length(imp_vec3_sub(aq, imp_vec3_scale(t, ab)));
}

/// The distance from point i to face t (the triangle, not its plane).
static double face_distance(const hull_work *w, const face3 *t, int32_t i)
{
	imp_vec3 q = w->p[i], n = imp_vec3_make(t->n[0], t->n[1], t->n[2]);
	bool inside = true;
	for (int k = 0; k < 3; ++k) {
		imp_vec3 a = w->p[t->v[k]], b = w->p[t->v[(k + 1) % 3]];
		inside = inside && imp_vec3_dot(imp_vec3_cross(imp_vec3_sub(b, a), imp_vec3_sub(q, a)), n) >= 0.0;
	}
	if (inside)
		return fabs(imp_vec3_dot(imp_vec3_sub(q, w->p[t->v[0]]), n)) * t->inv_len;
	double d = INFINITY;
	for (int k = 0; k < 3; ++k)
		d = fmin(d, point_segment_distance(q, w->p[t->v[k]], w->p[t->v[(k + 1) % 3]]));
	return d;
}

/// Where point i stands against the faces it sees: the face it is farthest
/// above and how far (plane distance), and its distance to the hull (the
/// nearest visible triangle: the hull's closest point to an outside point
/// is on a face the point sees).
typedef struct near_point {
	int face;
	double above, gap;
} near_point;

/// Marks the faces visible from point i (exactly above their planes),
/// searching from face f0, which must be one; they are left in
/// w->queue[0 .. return value). With `np`, also measures i against them.
static int visible_faces(hull_work *w, int f0, int32_t i, near_point *np)
{
	int vis = 2 * ++w->stamp, hid = vis + 1;
	int nvis = 0;
	w->queue[nvis++] = f0;
	w->f[f0].visit = vis;
	if (np != NULL) {
		np->face = f0;
		(void)face_side(w, &w->f[f0], i, &np->above);
		np->gap = face_distance(w, &w->f[f0], i);
	}
	for (int j = 0; j < nvis; ++j) {
		int f = w->queue[j];
		for (int k = 0; k < 3; ++k) {
			int g = w->f[f].nb[k] / 3;
			face3 *t = &w->f[g];
			if (t->visit == vis || t->visit == hid)
				continue;
			double d;
			t->visit = face_side(w, t, i, &d) > 0 ? vis : hid;
			if (t->visit != vis)
				continue;
			w->queue[nvis++] = g;
			if (np != NULL) {
				if (d > np->above) {
					np->face = g;
					np->above = d;
				}
				np->gap = fmin(np->gap, face_distance(w, t, i));
			}
		}
	}
	return nvis;
}

/// One quickhull step: the farthest point of face f0 becomes a vertex. The
/// faces it sees are deleted, a cone of new faces joins it to the horizon
/// (walked edge by edge around the visible faces), and the deleted faces'
/// points go to the new faces.
static imp_status add_eye(hull_work *w, int f0)
{
	int32_t eye = w->f[f0].far;
	int nvis = visible_faces(w, f0, eye, NULL);
	int hid = 2 * w->stamp + 1;

	// The horizon: the edges of visible faces whose twin is hidden. Exact
	// tests make the visible faces a disc, so they form one cycle; from a
	// horizon edge the next one starts at its end, found by turning about
	// that vertex through visible faces.
	int fs = -1, ks = 0;
	for (int j = 0; j < nvis && fs < 0; ++j)
		for (int k = 0; k < 3; ++k)
			if (w->f[w->f[w->queue[j]].nb[k] / 3].visit == hid) {
				fs = w->queue[j];
				ks = k;
				break;
			}
	int h = 0, f = fs, k = ks;
	do {
		w->hor[2 * h] = w->f[f].v[k];
		w->hor[2 * h + 1] = w->f[f].nb[k];
		++h;
		k = (k + 1) % 3;
		for (;;) {
			int32_t he = w->f[f].nb[k];
			if (w->f[he / 3].visit == hid)
				break;
			f = he / 3;
			k = (he % 3 + 1) % 3;
		}
	} while (f != fs || k != ks);

	int nbuf = 0;
	for (int j = 0; j < nvis; ++j) {
		int g = w->queue[j];
		for (int32_t i = w->f[g].head; i >= 0; i = w->next_pt[i])
			if (i != eye)
				w->buf[nbuf++] = i;
		w->f[g].alive = 0;
		w->f[g].head = w->free_head;
		w->free_head = g;
	}

	for (int j = 0; j < h; ++j) {
		int g = face_new(w);
		if (g < 0)
			return IMP_ERR_OUT_OF_MEMORY;
		w->cone[j] = g;
	}
	for (int j = 0; j < h; ++j) {
		int g = w->cone[j];
		face_init(w, g, w->hor[2 * j], w->hor[2 * ((j + 1) % h)], eye);
		int32_t twin = w->hor[2 * j + 1];
		w->f[g].nb[0] = twin;
		he_set_twin(w, twin, 3 * g);
		w->f[g].nb[1] = 3 * w->cone[(j + 1) % h] + 2;
		w->f[g].nb[2] = 3 * w->cone[(j + h - 1) % h] + 1;
	}
	for (int j = 0, start = 0; j < nbuf; ++j)
		start = assign_point(w, w->buf[j], w->cone, h, start);
	return IMP_OK;
}

/// The points left on conflict lists are at most eps above their face, but
/// may be farther above a face they were never tested against (one made
/// after they were assigned), or farther than eps from the hull though
/// within eps of every plane it sees: beyond an edge between faces that
/// are nearly opposite, at the rim of a slab a few eps thick. Each is
/// checked against every face it sees and moved to the one it is farthest
/// above; one more than eps from the hull either way is made that face's
/// next vertex. Returns whether quickhull must go on.
static bool recheck_near_points(hull_work *w)
{
	bool more = false;
	for (int f = 0; f < w->fcount; ++f) {
		if (!w->f[f].alive || w->f[f].head < 0)
			continue;
		int32_t i = w->f[f].head;
		w->f[f].head = -1;
		w->f[f].far = -1;
		w->f[f].far_dist = -INFINITY;
		while (i >= 0) {
			int32_t next = w->next_pt[i];
			near_point np;
			(void)visible_faces(w, f, i, &np);
			bool out = np.above > w->eps || np.gap > w->eps;
			list_push(w, np.face, i, out ? INFINITY : np.above);
			more = more || out;
			i = next;
		}
	}
	return more;
}

/// The triangulated hull of the subset from the simplex q: every point of
/// the subset ends inside it, or within eps of it and at most eps above
/// each face it sees.
static imp_status build_triangulation(hull_work *w, int m, const int32_t q[4])
{
	w->fcount = 0;
	w->free_head = -1;
	w->ns = 0;
	if (!reserve_faces(w, 4))
		return IMP_ERR_OUT_OF_MEMORY;
	int32_t a = q[0], b = q[1], c = q[2], d = q[3];
	// Faces (a, b, c), (a, d, b), (b, d, c), (c, d, a) face outwards when d
	// is below (a, b, c).
	int32_t t = face_new(w);
	face_init(w, t, a, b, c);
	double dist;
	if (face_side(w, &w->f[t], d, &dist) > 0) {
		b = q[2];
		c = q[1];
		face_init(w, t, a, b, c);
	}
	int32_t tri[4][3] = {{a, b, c}, {a, d, b}, {b, d, c}, {c, d, a}};
	int32_t faces[4] = {t, 0, 0, 0};
	for (int j = 1; j < 4; ++j) {
		faces[j] = face_new(w);
		face_init(w, faces[j], tri[j][0], tri[j][1], tri[j][2]);
	}
	for (int j = 0; j < 4; ++j)
		for (int k = 0; k < 3; ++k)
			for (int l = 0; l < 4; ++l)
				for (int r = 0; r < 3; ++r)
					if (tri[l][r] == tri[j][(k + 1) % 3] && tri[l][(r + 1) % 3] == tri[j][k])
						w->f[faces[j]].nb[k] = 3 * faces[l] + r;
	for (int i = 0; i < m; ++i) {
		int32_t s = w->subset[i];
		if (s != a && s != b && s != c && s != d)
			(void)assign_point(w, s, faces, 4, 0);
	}
	for (;;) {
		while (w->ns > 0) {
			int f = w->stack[--w->ns];
			w->f[f].queued = 0;
			if (!w->f[f].alive || !(w->f[f].far_dist > w->eps))
				continue;
			imp_status st = add_eye(w, f);
			if (st != IMP_OK)
				return st;
		}
		if (!recheck_near_points(w))
			return IMP_OK;
	}
}

// ---------------------------------------------------------------------------
// Merging coplanar faces. The loops are doubly linked and a merge works
// from the smaller face's side, so that absorbing triangles one by one into
// a face of many vertices (the cap of a finely divided cylinder) costs the
// triangles, not the face.

static void requeue(hull_work *w, int f)
{
	if (w->m[f].first >= 0 && !w->m[f].queued) {
		w->m[f].queued = 1;
		w->stack[w->ns++] = f;
	}
}

/// Signed distance of point i above the plane of triangle r.
static double plane_dist(const hull_work *w, int r, int32_t i)
{
	const face3 *t = &w->f[r];
	imp_vec3 d = imp_vec3_sub(w->p[i], w->p[t->v[0]]);
	return (d.x * t->n[0] + d.y * t->n[1] + d.z * t->n[2]) * t->inv_len;
}

/// True when every vertex of face f is within eps of the plane of triangle r.
static bool face_on_plane(const hull_work *w, int f, int r)
{
	int32_t e = w->m[f].first;
	do {
		if (!(fabs(plane_dist(w, r, he_origin(w, e))) <= w->eps))
			return false;
		e = w->he_next[e];
	} while (e != w->m[f].first);
	return true;
}

/// The angle between the normals of triangles r and s.
static double normal_angle(const hull_work *w, int r, int s)
{
	const face3 *a = &w->f[r], *b = &w->f[s];
	double c = (a->n[0] * b->n[0] + a->n[1] * b->n[1] + a->n[2] * b->n[2]) * a->inv_len * b->inv_len;
	return acos(fmax(-1.0, fmin(1.0, c)));
}

/// The cone (see mface) of faces a and b merged on the plane of `owner`,
/// by the triangle inequality on the sphere of directions.
static double merged_cone(const hull_work *w, int a, int b, int owner)
{
	int r = w->m[owner].rep;
	return fmax(w->m[a].cone + normal_angle(w, w->m[a].rep, r), w->m[b].cone + normal_angle(w, w->m[b].rep, r));
}

/// The face, a or b, on whose plane the two can merge: all their vertices
/// within eps of it, and the cone of the merged face below HULL3_MAX_CONE
/// (which also keeps faces turned away from each other apart: in a slab
/// not much thicker than eps the top would fold onto the bottom). -1 when
/// neither. A face with a triangle more than twice the other's is tried
/// first (its normal is the better conditioned), else the face with more
/// vertices (then only the other's are visited): so a face changes its
/// plane, and has all its vertices visited, only as often as its largest
/// triangle doubles. Each face's vertices already are within eps of its
/// own plane.
static int merge_plane(const hull_work *w, int a, int b, int32_t e)
{
	// e, an edge of a on b: the corners before it in a and after its twin
	// in b are on one face only. Both off the other's plane rules out the
	// merge at once, as it does between most faces.
	int32_t t = he_twin(w, e);
	int32_t xa = he_origin(w, w->he_prev[e]), xb = he_origin(w, w->he_next[w->he_next[t]]);
	bool b_fits = fabs(plane_dist(w, w->m[a].rep, xb)) <= w->eps;
	bool a_fits = fabs(plane_dist(w, w->m[b].rep, xa)) <= w->eps;
	if (!a_fits && !b_fits)
		return -1;
	double la = w->f[w->m[a].rep].inv_len, lb = w->f[w->m[b].rep].inv_len; // 1 / (2 area)
	int first = 2.0 * la < lb ? a : (2.0 * lb < la ? b : (w->m[a].size >= w->m[b].size ? a : b));
	int second = first == a ? b : a;
	bool fits[2] = {first == a ? b_fits : a_fits, first == a ? a_fits : b_fits};
	if (fits[0] && face_on_plane(w, second, w->m[first].rep) && merged_cone(w, a, b, first) < HULL3_MAX_CONE)
		return first;
	if (fits[1] && face_on_plane(w, first, w->m[second].rep) && merged_cone(w, a, b, second) < HULL3_MAX_CONE)
		return second;
	return -1;
}

/// True when triangles r and s face the same way (their normals make an
/// acute angle).
static bool planes_agree(const hull_work *w, int r, int s)
{
	const face3 *a = &w->f[r], *b = &w->f[s];
	return a->n[0] * b->n[0] + a->n[1] * b->n[1] + a->n[2] * b->n[2] > 0.0;
}

/// True when the vertex between half-edges e_in and e_out (consecutive
/// along a face, or about to be) has no other edge.
static bool has_two_edges(const hull_work *w, int32_t e_in, int32_t e_out)
{
	return w->he_next[he_twin(w, e_out)] == he_twin(w, e_in);
}

/// True when the vertex between half-edges e_in and e_out lies within eps of
/// the segment between its neighbours along them.
static bool on_chord(const hull_work *w, int32_t e_in, int32_t e_out)
{
	imp_vec3 a = w->p[he_origin(w, e_in)], x = w->p[he_origin(w, e_out)];
	imp_vec3 b = w->p[he_origin(w, he_twin(w, e_out))];
	imp_vec3 ab = imp_vec3_sub(b, a), ax = imp_vec3_sub(x, a);
	if (!(imp_vec3_dot(ax, ab) >= 0.0) || !(imp_vec3_dot(imp_vec3_sub(x, b), ab) <= 0.0))
		return false;
	return imp_vec3_length(imp_vec3_cross(ax, ab)) <= w->eps * imp_vec3_length(ab);
}

/// True when merging faces a and b into one on the plane of triangle r
/// would leave the vertex between e_in and e_out with two edges, off their
/// chord, next to a face c that cannot merge with them. Such a vertex is a
/// real corner that only two faces meet at: a fold, at a rim thinner than
/// eps, of the top face onto the bottom one or onto a sliver of the rim.
/// (Off the chord next to a face that can merge, it is a corner between two
/// pieces of one face, gone when they merge.)
static bool leaves_fold(const hull_work *w, int32_t e_in, int32_t e_out, int a, int b, int r)
{
	if (!has_two_edges(w, e_in, e_out) || on_chord(w, e_in, e_out))
		return false;
	int c = w->he_face[he_twin(w, e_in)];
	int rc = w->m[c].rep;
	if (!planes_agree(w, r, rc))
		return true;
	if (face_on_plane(w, c, r))
		return false;
	return !(face_on_plane(w, a, rc) && face_on_plane(w, b, rc));
}

/// True when face a is one of the faces about the origin of half-edge e,
/// turning from e through its twin and the next edge out.
static bool vertex_on_face(const hull_work *w, int32_t e, int a)
{
	int32_t x = e;
	do {
		if (w->he_face[x] == a)
			return true;
		x = w->he_next[he_twin(w, x)];
	} while (x != e);
	return false;
}

/// Merges face b into face a, which takes the plane of `owner` and the
/// given cone. Their common boundary must be one chain of edges and they
/// must share no other vertex, else the merged face would wrap around the
/// faces between them; and the merge must not leave a fold at either end
/// of the chain (see leaves_fold). Otherwise nothing changes and false is
/// returned. The chain's inner vertices go with it (only these two faces
/// met there). seams[0], seams[1]: the half-edges of a into the chain's
/// two ends.
static bool merge_faces(hull_work *w, int a, int b, int owner, double cone, int32_t seams[2])
{
	// The chain, found along b: one run of b's edges whose twins are a's.
	int32_t start = w->m[b].first, e = start, sb = -1;
	int k = 0, runs = 0;
	do {
		if (w->he_face[he_twin(w, e)] == a) {
			++k;
			if (w->he_face[he_twin(w, w->he_prev[e])] != a) {
				++runs;
				sb = e;
			}
		}
		e = w->he_next[e];
	} while (e != start);
	if (runs != 1 || k == w->m[b].size)
		return false;
	int32_t eb = sb;
	for (int i = 1; i < k; ++i)
		eb = w->he_next[eb];
	// Along a the twins run the other way, from twin(eb) to twin(sb).
	int32_t s = he_twin(w, eb), last = he_twin(w, sb), x = s;
	for (int i = 1; i < k; ++i)
		x = w->he_next[x];
	int32_t pa = w->he_prev[s], na = w->he_next[last];
	if (x != last || w->he_face[he_twin(w, pa)] == b || w->he_face[he_twin(w, na)] == b)
		return false;
	int32_t nb = w->he_next[eb], pb = w->he_prev[sb];
	for (x = w->he_next[nb]; x != sb; x = w->he_next[x])
		if (vertex_on_face(w, x, a))
			return false;
	int r = w->m[owner].rep;
	if (leaves_fold(w, pa, nb, a, b, r) || leaves_fold(w, pb, na, a, b, r))
		return false;

	for (x = nb;; x = w->he_next[x]) {
		w->he_face[x] = a;
		if (x == pb)
			break;
	}
	x = s;
	for (int i = 0; i < k; ++i) {
		int32_t nx = w->he_next[x];
		w->he_face[x] = -1;
		w->he_face[he_twin(w, x)] = -1;
		x = nx;
	}
	w->he_next[pa] = nb;
	w->he_prev[nb] = pa;
	w->he_next[pb] = na;
	w->he_prev[na] = pb;
	w->m[a].first = pa;
	w->m[a].rep = r;
	w->m[a].cone = cone;
	w->m[a].size += w->m[b].size - 2 * k;
	w->m[b].first = -1;
	seams[0] = pa;
	seams[1] = pb;
	return true;
}

/// Removes the vertex between half-edges e and out = next(e), which has
/// two edges: e and the twin of out take the straight edge past it.
static void splice_vertex(hull_work *w, int32_t e, int32_t out)
{
	int32_t tin = he_twin(w, e), tout = he_twin(w, out);
	int f = w->he_face[e], g = w->he_face[tin];
	int32_t after = w->he_next[out], after_g = w->he_next[tin];
	w->he_next[e] = after;
	w->he_prev[after] = e;
	w->he_next[tout] = after_g;
	w->he_prev[after_g] = tout;
	he_set_twin(w, e, tout);
	he_set_twin(w, tout, e);
	w->he_face[out] = -1;
	w->he_face[tin] = -1;
	if (w->m[f].first == out)
		w->m[f].first = e;
	if (w->m[g].first == tin)
		w->m[g].first = tout;
	--w->m[f].size;
	--w->m[g].size;
}

/// Merges b into a (see merge_faces), then removes the vertices at the
/// chain's ends left with two edges on their chord: on the straight edge
/// between two faces. Where that would leave a face of two edges, the
/// triangle is merged instead (its corners all lie on the other face), and
/// so on at that merge's ends and at the ends of each straightened edge. A
/// vertex with two edges off its chord stays: its two faces can merge (see
/// leaves_fold), and do later, or the vertex is dropped as a flat corner
/// (drop_flat_corners). Returns the half-edge of a
/// before the merged part (where scanning goes on), -1 when nothing was
/// merged or a itself went.
static int32_t merge_and_clean(hull_work *w, int a, int b, int owner)
{
	int32_t seams[2];
	if (!merge_faces(w, a, b, owner, merged_cone(w, a, b, owner), seams))
		return -1;
	int32_t resume = seams[0];
	// A cascade of more than a few triangle merges is left to the flat
	// corner check.
	int32_t todo[16];
	int nt = 0;
	todo[nt++] = seams[0];
	todo[nt++] = seams[1];
	while (nt > 0) {
		int32_t e = todo[--nt];
		if (w->he_face[e] < 0)
			continue;
		int32_t out = w->he_next[e];
		if (!has_two_edges(w, e, out) || !on_chord(w, e, out))
			continue;
		int f = w->he_face[e], g = w->he_face[he_twin(w, e)];
		if (w->m[f].size == 3 || w->m[g].size == 3) {
			// The triangle is within eps of a segment: its normal means
			// nothing and the cone stays.
			int keep = w->m[f].size == 3 ? g : f, gone = keep == f ? g : f;
			if (nt <= 14 && merge_faces(w, keep, gone, keep, w->m[keep].cone, seams)) {
				todo[nt++] = seams[0];
				todo[nt++] = seams[1];
				requeue(w, keep);
			}
			continue;
		}
		splice_vertex(w, e, out);
		requeue(w, g);
		// The new edge's ends may have two edges already, now on a chord.
		if (nt <= 14) {
			todo[nt++] = e;
			todo[nt++] = w->he_prev[e];
		}
	}
	if (w->m[a].first < 0)
		return -1;
	return w->he_face[resume] == a ? resume : w->m[a].first;
}

/// Turns the triangles into half-edge loops and merges neighbours while
/// some pair is mergeable (see merge_plane). Each face is scanned edge by
/// edge, on after each merge, until a whole lap brings none. Each merge
/// removes a face, so this ends; a face changed by another's merge is
/// scanned again.
static imp_status merge_coplanar_faces(hull_work *w)
{
	if (w->fcount > w->mcap) {
		const imp_allocator *al = w->alloc;
		size_t old = (size_t)w->mcap, cap = (size_t)w->fcount;
		imp_free(al, w->m, old * sizeof *w->m);
		imp_free(al, w->he_next, 3 * old * sizeof *w->he_next);
		imp_free(al, w->he_prev, 3 * old * sizeof *w->he_prev);
		imp_free(al, w->he_face, 3 * old * sizeof *w->he_face);
		w->m = imp_alloc(al, cap * sizeof *w->m);
		w->he_next = imp_alloc(al, 3 * cap * sizeof *w->he_next);
		w->he_prev = imp_alloc(al, 3 * cap * sizeof *w->he_prev);
		w->he_face = imp_alloc(al, 3 * cap * sizeof *w->he_face);
		w->mcap = (int)cap;
		if (w->m == NULL || w->he_next == NULL || w->he_prev == NULL || w->he_face == NULL)
			return IMP_ERR_OUT_OF_MEMORY; // work_free frees what was allocated
	}
	w->ns = 0;
	for (int f = 0; f < w->fcount; ++f) {
		bool alive = w->f[f].alive;
		for (int k = 0; k < 3; ++k) {
			w->he_next[3 * f + k] = 3 * f + (k + 1) % 3;
			w->he_prev[3 * f + k] = 3 * f + (k + 2) % 3;
			w->he_face[3 * f + k] = alive ? f : -1;
		}
		mface *m = &w->m[f];
		m->first = alive ? 3 * f : -1;
		m->rep = f;
		m->size = 3;
		m->queued = 0;
		m->cone = 0.0;
		requeue(w, f);
	}
	while (w->ns > 0) {
		int f = w->stack[--w->ns];
		w->m[f].queued = 0;
		int32_t e = w->m[f].first;
		int quiet = 0;
		while (w->m[f].first >= 0 && quiet < w->m[f].size) {
			int g = w->he_face[he_twin(w, e)];
			int owner = merge_plane(w, f, g, e);
			int32_t resume = owner >= 0 ? merge_and_clean(w, f, g, owner) : -1;
			if (resume >= 0) {
				quiet = 0;
				e = resume;
			} else if (w->m[f].first >= 0) {
				++quiet;
				e = w->he_face[e] == f ? w->he_next[e] : w->m[f].first;
			}
		}
	}
	return IMP_OK;
}

/// Checks every corner of every face: u, v, x consecutive, v must lie more
/// than eps outside the chord u x, in the face's plane. A corner that does
/// not is within eps of the hull of the other vertices, and is dropped, but
/// only while u and x stay: two near-duplicate corners are each on the
/// chord of their neighbours, and dropping both would lose the corner
/// itself. So a dropped vertex protects its chord's ends until the next
/// round. Returns -1 when all corners are clear, else the number of
/// vertices kept, listed in w->subset (ascending) for the next build.
static int drop_flat_corners(hull_work *w)
{
	int kept = ++w->vstamp, bad = ++w->vstamp, protect = ++w->vstamp;
	int nbad = 0;
	for (int f = 0; f < w->fcount; ++f) {
		if (w->m[f].first < 0)
			continue;
		const face3 *r = &w->f[w->m[f].rep];
		imp_vec3 n = imp_vec3_make(r->n[0] * r->inv_len, r->n[1] * r->inv_len, r->n[2] * r->inv_len);
		int32_t e = w->m[f].first;
		do {
			int32_t e0 = e, e1 = w->he_next[e];
			int32_t u = he_origin(w, e), v = he_origin(w, e1), x = he_origin(w, w->he_next[e1]);
			e = e1;
			if (w->vmark[v] == bad || w->vmark[v] == protect)
				continue;
			imp_vec3 chord = imp_vec3_sub(w->p[x], w->p[u]), uv = imp_vec3_sub(w->p[v], w->p[u]);
			double h = imp_vec3_dot(n, imp_vec3_cross(uv, chord));
			// h / |chord| is v's distance outside the chord: a reflex corner
			// (the face is a simple polygon, see HULL3_MAX_CONE) is inside
			// the hull of the face's other corners, a flat one between u
			// and x is within eps of it. One beyond x or u is not: the
			// corner to drop there is x or u. A vertex with two edges is
			// no corner either.
			double c2 = imp_vec3_dot(chord, chord), t = imp_vec3_dot(uv, chord);
			bool flat = h < 0.0 || (h <= w->eps * sqrt(c2) && t >= 0.0 && t <= c2);
			bool clear = !flat && !has_two_edges(w, e0, e);
			if (clear || w->vmark[u] == bad || w->vmark[x] == bad) {
				w->vmark[v] = kept;
				continue;
			}
			w->vmark[v] = bad;
			w->vmark[u] = protect;
			w->vmark[x] = protect;
			++nbad;
		} while (e != w->m[f].first);
	}
	if (nbad == 0)
		return -1;
	int m = 0;
	for (int i = 0; i < w->n; ++i)
		if (w->vmark[i] == kept || w->vmark[i] == protect)
			w->subset[m++] = i;
	return m;
}

// ---------------------------------------------------------------------------
// Output.

static void hull_release(imp_hull3 *h, const imp_allocator *a, size_t nfv)
{
	size_t nv = (size_t)h->nv, ne = (size_t)h->ne, nf = (size_t)h->nf;
	imp_free(a, h->v, nv * sizeof *h->v);
	imp_free(a, h->edges, 2 * ne * sizeof *h->edges);
	imp_free(a, h->face_start, (nf + 1) * sizeof *h->face_start);
	imp_free(a, h->face_vertices, nfv * sizeof *h->face_vertices);
	imp_free(a, h->face_normal, nf * sizeof *h->face_normal);
	imp_free(a, h->face_offset, nf * sizeof *h->face_offset);
	imp_free(a, h->adj_start, (nv + 1) * sizeof *h->adj_start);
	imp_free(a, h->adj, 2 * ne * sizeof *h->adj);
	memset(h, 0, sizeof *h);
}

void imp_hull3_free(imp_hull3 *hull, const imp_allocator *allocator)
{
	if (hull == NULL)
		return;
	size_t nfv = hull->face_start != NULL ? (size_t)hull->face_start[hull->nf] : 0;
	hull_release(hull, allocator, nfv);
}

static void *alloc_array(const imp_allocator *a, size_t count, size_t size, bool *failed)
{
	if (count == 0)
		return NULL;
	void *p = imp_alloc(a, count * size);
	*failed = *failed || p == NULL;
	return p;
}

/// Allocates the output's arrays (empty ones stay NULL, the two offset
/// arrays always have their one closing entry) and sets its counts.
static imp_status hull_alloc(imp_hull3 *h, const imp_allocator *a, int dim, int nv, int ne, int nf, int nfv)
{
	memset(h, 0, sizeof *h);
	h->dim = dim;
	h->nv = nv;
	h->ne = ne;
	h->nf = nf;
	bool failed = false;
	h->v = alloc_array(a, (size_t)nv, sizeof *h->v, &failed);
	h->edges = alloc_array(a, 2 * (size_t)ne, sizeof *h->edges, &failed);
	h->face_start = alloc_array(a, (size_t)nf + 1, sizeof *h->face_start, &failed);
	h->face_vertices = alloc_array(a, (size_t)nfv, sizeof *h->face_vertices, &failed);
	h->face_normal = alloc_array(a, (size_t)nf, sizeof *h->face_normal, &failed);
	h->face_offset = alloc_array(a, (size_t)nf, sizeof *h->face_offset, &failed);
	h->adj_start = alloc_array(a, (size_t)nv + 1, sizeof *h->adj_start, &failed);
	h->adj = alloc_array(a, 2 * (size_t)ne, sizeof *h->adj, &failed);
	if (failed) {
		hull_release(h, a, (size_t)nfv);
		return IMP_ERR_OUT_OF_MEMORY;
	}
	h->face_start[0] = 0;
	h->face_start[nf] = nfv;
	h->adj_start[0] = 0;
	h->adj_start[nv] = 2 * ne;
	return IMP_OK;
}

static int compare_int32(const void *pa, const void *pb)
{
	int32_t a = *(const int32_t *)pa, b = *(const int32_t *)pb;
	return (a > b) - (a < b);
}

/// Fills the edge list from the adjacency: (i, j) for each neighbour j > i,
/// so edges come sorted.
static void edges_from_adjacency(imp_hull3 *h)
{
	int k = 0;
	for (int i = 0; i < h->nv; ++i)
		for (int32_t j = h->adj_start[i]; j < h->adj_start[i + 1]; ++j)
			if (h->adj[j] > i) {
				h->edges[2 * k] = i;
				h->edges[2 * k + 1] = h->adj[j];
				++k;
			}
}

/// The outer plane offset of a face: the largest dot(n, v) over its
/// vertices, in the caller's coordinates.
static double face_offset_of(const imp_hull3 *h, imp_vec3 n, int f)
{
	double d = -INFINITY;
	for (int32_t j = h->face_start[f]; j < h->face_start[f + 1]; ++j)
		d = fmax(d, imp_vec3_dot(n, h->v[h->face_vertices[j]]));
	return d;
}

/// A point or a segment: the vertices in ids[0 .. nv).
static imp_status output_point_or_segment(const hull_work *w, const int32_t *ids, int nv, imp_hull3 *out)
{
	imp_status st = hull_alloc(out, w->alloc, nv - 1, nv, nv - 1, 0, 0);
	if (st != IMP_OK)
		return st;
	for (int i = 0; i < nv; ++i)
		out->v[i] = w->in[w->id[ids[i]]];
	if (nv == 2) {
		out->edges[0] = 0;
		out->edges[1] = 1;
		out->adj_start[1] = 1;
		out->adj[0] = 1;
		out->adj[1] = 0;
	}
	return IMP_OK;
}

typedef struct point2 {
	double x, y;
	int32_t id;
} point2;

static int compare_point2(const void *pa, const void *pb)
{
	const point2 *a = pa, *b = pb;
	if (a->x != b->x)
		return a->x < b->x ? -1 : 1;
	if (a->y != b->y)
		return a->y < b->y ? -1 : 1;
	return (a->id > b->id) - (a->id < b->id);
}

/// Adds x * y to the expansion exactly, as two doubles (fma).
static int expansion_add_product2(double *e, int n, double x, double y)
{
	double p = x * y, pe = fma(x, y, -p);
	n = expansion_add(e, n, pe);
	return expansion_add(e, n, p);
}

/// The sign of the cross product (b - a) x (c - a): 1 for a left turn at
/// b, -1 for a right one, 0 when the three are collinear. A floating-point
/// filter, then, by multilinearity, the six products of
/// bx cy - by cx - ax cy + ay cx + ax by - ay bx summed without rounding
/// (exact for coordinates below 4 in magnitude and none below HULL3_FLUSH
/// but zero, as output_polygon makes them).
static int orient2(point2 a, point2 b, point2 c)
{
	double ux = b.x - a.x, uy = b.y - a.y, vx = c.x - a.x, vy = c.y - a.y;
	double l = ux * vy, r = uy * vx, o = l - r;
	// The differences, the products and the difference each round once:
	// 3 units of DBL_EPSILON / 2 of |l| + |r|, doubled.
	double err = 3.0 * DBL_EPSILON * (fabs(l) + fabs(r));
	if (o > err)
		return 1;
	if (o < -err)
		return -1;
	double e[12];
	int n = 0;
	n = expansion_add_product2(e, n, b.x, c.y);
	n = expansion_add_product2(e, n, -b.y, c.x);
	n = expansion_add_product2(e, n, -a.x, c.y);
	n = expansion_add_product2(e, n, a.y, c.x);
	n = expansion_add_product2(e, n, a.x, b.y);
	n = expansion_add_product2(e, n, -a.y, b.x);
	if (n == 0)
		return 0;
	return e[n - 1] > 0.0 ? 1 : -1;
}

/// True when the chain a, b, c keeps b: it turns left at b (exactly) and b
/// is more than eps from the segment a c, not only from its line. Sorted
/// lexicographically, points one rounding apart in x (a point of the plane
/// a hair off it makes the projection of a straight row slant) come in the
/// order of y; b can then lie on the line through a and c far beyond c,
/// a corner of the hull, which a test against the line would drop
/// (finding 56: the vertex (0.121, 0, 0) of 16 points in y = 0, one of
/// them 7e-35 below, was dropped as on the line through two points near
/// the origin). Anything within eps of the segment (collinear between its
/// ends, a near duplicate of either) or on the right is dropped.
static bool clear_left_turn(point2 a, point2 b, point2 c, double eps)
{
	if (orient2(a, b, c) <= 0)
		return false;
	double ux = b.x - a.x, uy = b.y - a.y, vx = c.x - a.x, vy = c.y - a.y;
	double c2 = vx * vx + vy * vy, t = ux * vx + uy * vy;
	double dx, dy;
	if (t <= 0.0) {
		dx = ux;
		dy = uy;
	} else if (t >= c2) {
		dx = b.x - c.x;
		dy = b.y - c.y;
	} else {
		// Distance to the line; the turn is left, so the cross product is
		// (within rounding) positive.
		return ux * vy - uy * vx > eps * sqrt(c2);
	}
	return sqrt(dx * dx + dy * dy) > eps;
}

/// Drops the corners of ring[0 .. k) (positions into q) that clear_left_turn
/// does not keep with their neighbours on the ring, one at a time, each
/// judged against the ring as it is then; next and prev (room for k) are
/// scratch. The ring keeps its order, starting anywhere; returns its length.
/// Every test after a drop is of a corner the drop changed, so this is
/// linear in k.
static int drop_flat_ring_corners(const point2 *q, int32_t *ring, int k, int32_t *next, int32_t *prev, double eps)
{
	for (int i = 0; i < k; ++i) {
		next[i] = i + 1 < k ? i + 1 : 0;
		prev[i] = i > 0 ? i - 1 : k - 1;
	}
	// clear: how many corners just behind v passed with the neighbours they
	// have now.
	int v = 0, clear = 0, left = k;
	while (left >= 3 && clear < left) {
		int u = prev[v], x = next[v];
		if (clear_left_turn(q[ring[u]], q[ring[v]], q[ring[x]], eps)) {
			++clear;
			v = x;
			continue;
		}
		next[u] = x;
		prev[x] = u;
		--left;
		// u, and x when the run went all round to it, have a new neighbour.
		clear = clear > 0 ? clear - 1 : 0;
		if (clear > left - 2)
			clear = left - 2 > 0 ? left - 2 : 0;
		v = u;
	}
	for (int i = 0; i < left; ++i, v = next[v])
		prev[i] = ring[v];
	memcpy(ring, prev, (size_t)left * sizeof *ring);
	return left;
}

/// Andrew's monotone chain on q[0 .. m) (sorted here), counter-clockwise;
/// positions into q go to ring (room for 2m). Each corner of the chains is
/// tested against its final neighbours but the two ends, where the lower
/// and upper chains meet: those are tested last, on the ring (next and
/// prev, room for m each, are scratch for that). Returns the ring's length.
static int planar_ring(point2 *q, int m, int32_t *ring, int32_t *next, int32_t *prev, double eps)
{
	qsort(q, (size_t)m, sizeof *q, compare_point2);
	int k = 0;
	for (int i = 0; i < m; ++i) {
		while (k >= 2 && !clear_left_turn(q[ring[k - 2]], q[ring[k - 1]], q[i], eps))
			--k;
		ring[k++] = i;
	}
	for (int i = m - 2, lower = k + 1; i >= 0; --i) {
		while (k >= lower && !clear_left_turn(q[ring[k - 2]], q[ring[k - 1]], q[i], eps))
			--k;
		ring[k++] = i;
	}
	k = k > 1 ? k - 1 : k;
	return k >= 3 ? drop_flat_ring_corners(q, ring, k, next, prev, eps) : k;
}

/// A flat hull: the ring of the subset's points in the plane of q[0 .. 3),
/// counter-clockwise about that plane's normal. A ring that comes out
/// shorter than three (points just over eps off a line in 3D but not in
/// the plane) gives a segment or a point.
static imp_status output_polygon(hull_work *w, int m, const int32_t q[4], imp_hull3 *out)
{
	const imp_vec3 *p = w->p;
	imp_vec3 a = p[q[0]];
	imp_vec3 n = unit_normal(a, p[q[1]], p[q[2]]);
	imp_vec3 e1 = imp_vec3_sub(p[q[1]], a);
	e1 = imp_vec3_scale(1.0 / imp_vec3_length(e1), e1);
	imp_vec3 e2 = imp_vec3_cross(n, e1);
	point2 *q2 = imp_alloc(w->alloc, (size_t)m * sizeof *q2);
	if (q2 == NULL)
		return IMP_ERR_OUT_OF_MEMORY;
	for (int i = 0; i < m; ++i) {
		imp_vec3 d = imp_vec3_sub(p[w->subset[i]], a);
		// Flushed like the points (see HULL3_FLUSH), for orient2.
		double x = imp_vec3_dot(d, e1), y = imp_vec3_dot(d, e2);
		q2[i].x = fabs(x) < HULL3_FLUSH ? 0.0 : x;
		q2[i].y = fabs(y) < HULL3_FLUSH ? 0.0 : y;
		q2[i].id = w->subset[i];
	}
	// buf and next_pt are free: no quickhull runs after this.
	int k = planar_ring(q2, m, w->hor, w->buf, w->next_pt, w->eps);
	for (int i = 0; i < k; ++i)
		w->cone[i] = q2[w->hor[i]].id;
	imp_free(w->alloc, q2, (size_t)m * sizeof *q2);
	if (k < 3)
		return output_point_or_segment(w, w->cone, k, out);

	imp_status st = hull_alloc(out, w->alloc, 2, k, k, 1, k);
	if (st != IMP_OK)
		return st;
	for (int i = 0; i < k; ++i) {
		out->v[i] = w->in[w->id[w->cone[i]]];
		out->face_vertices[i] = i;
		// Neighbours i - 1 and i + 1, ascending.
		int lo = i == 0 ? 1 : i - 1, hi = i == 0 ? k - 1 : (i + 1) % k;
		out->adj_start[i] = 2 * i;
		out->adj[2 * i] = lo < hi ? lo : hi;
		out->adj[2 * i + 1] = lo < hi ? hi : lo;
	}
	edges_from_adjacency(out);
	out->face_normal[0] = n;
	out->face_offset[0] = face_offset_of(out, n, 0);
	return IMP_OK;
}

/// The merged polytope: vertices in ascending input order, adjacency
/// sorted, edges sorted, faces in construction order, each starting at its
/// lowest vertex.
static imp_status output_polytope(hull_work *w, imp_hull3 *out)
{
	int mark = ++w->vstamp;
	int nf = 0, nfv = 0, nv = 0;
	for (int i = 0; i < w->n; ++i)
		w->vmap[i] = -1;
	for (int f = 0; f < w->fcount; ++f) {
		if (w->m[f].first < 0)
			continue;
		++nf;
		int32_t e = w->m[f].first;
		do {
			int32_t v = he_origin(w, e);
			if (w->vmark[v] != mark) {
				w->vmark[v] = mark;
				w->vmap[w->id[v]] = nv++;
			}
			++nfv;
			e = w->he_next[e];
		} while (e != w->m[f].first);
	}
	// Output numbers ascending with the input index.
	for (int i = 0, k = 0; i < w->n; ++i)
		if (w->vmap[i] >= 0)
			w->vmap[i] = k++;
	imp_status st = hull_alloc(out, w->alloc, 3, nv, nfv / 2, nf, nfv);
	if (st != IMP_OK)
		return st;
	for (int i = 0; i < w->n; ++i)
		if (w->vmap[i] >= 0)
			out->v[w->vmap[i]] = w->in[i];
	// From here on vmap is by position in p.
	for (int f = 0; f < w->fcount; ++f) {
		if (w->m[f].first < 0)
			continue;
		int32_t e = w->m[f].first;
		do {
			int32_t v = he_origin(w, e);
			w->vmark[v] = w->vmap[w->id[v]];
			e = w->he_next[e];
		} while (e != w->m[f].first);
	}
	int32_t *out_of = w->vmark; // position in p to output index, for vertices

	// Adjacency: each half-edge gives its origin one neighbour.
	int32_t *start = out->adj_start;
	for (int i = 0; i <= nv; ++i)
		start[i] = 0;
	for (int f = 0; f < w->fcount; ++f) {
		if (w->m[f].first < 0)
			continue;
		int32_t e = w->m[f].first;
		do {
			++start[out_of[he_origin(w, e)] + 1];
			e = w->he_next[e];
		} while (e != w->m[f].first);
	}
	for (int i = 0; i < nv; ++i)
		start[i + 1] += start[i];
	int32_t *cursor = w->buf;
	for (int i = 0; i < nv; ++i)
		cursor[i] = start[i];
	int nfo = 0, fv = 0;
	for (int f = 0; f < w->fcount; ++f) {
		if (w->m[f].first < 0)
			continue;
		int32_t e = w->m[f].first, low = e;
		do {
			int32_t u = out_of[he_origin(w, e)];
			out->adj[cursor[u]++] = out_of[he_origin(w, he_twin(w, e))];
			if (u < out_of[he_origin(w, low)])
				low = e;
			e = w->he_next[e];
		} while (e != w->m[f].first);
		out->face_start[nfo] = fv;
		e = low;
		do {
			out->face_vertices[fv++] = out_of[he_origin(w, e)];
			e = w->he_next[e];
		} while (e != low);
		const face3 *r = &w->f[w->m[f].rep];
		imp_vec3 n = imp_vec3_make(r->n[0] * r->inv_len, r->n[1] * r->inv_len, r->n[2] * r->inv_len);
		out->face_normal[nfo] = n;
		++nfo;
		out->face_start[nfo] = fv;
		out->face_offset[nfo - 1] = face_offset_of(out, n, nfo - 1);
	}
	for (int i = 0; i < nv; ++i)
		qsort(out->adj + start[i], (size_t)(start[i + 1] - start[i]), sizeof *out->adj, compare_int32);
	edges_from_adjacency(out);
	return IMP_OK;
}

/// The two points of the subset farthest apart along q[0] -> q[1].
static void segment_ends(const hull_work *w, int m, const int32_t q[4], int32_t ends[2])
{
	imp_vec3 a = w->p[q[0]], u = imp_vec3_sub(w->p[q[1]], a);
	double lo = INFINITY, hi = -INFINITY;
	ends[0] = q[0];
	ends[1] = q[1];
	for (int i = 0; i < m; ++i) {
		int32_t s = w->subset[i];
		double t = imp_vec3_dot(imp_vec3_sub(w->p[s], a), u);
		if (t < lo) {
			lo = t;
			ends[0] = s;
		}
		if (t > hi) {
			hi = t;
			ends[1] = s;
		}
	}
}

imp_status imp_hull3_build(const imp_vec3 *points, int count, const imp_allocator *allocator, imp_hull3 *out)
{
	if (count < 1 || count > HULL3_MAX_POINTS)
		return IMP_ERR_BAD_COUNT;
	hull_work w;
	memset(&w, 0, sizeof w);
	w.alloc = allocator;
	w.in = points;
	w.n = count;
	w.free_head = -1;
	imp_hull3 res;
	memset(&res, 0, sizeof res);
	imp_status st = work_alloc(&w);
	if (st == IMP_OK) {
		prepare_points(&w);
		int m = count;
		for (int i = 0; i < m; ++i)
			w.subset[i] = i;
		for (;;) {
			int32_t q[4];
			int dim = find_simplex(&w, m, q);
			if (dim == 0) {
				st = output_point_or_segment(&w, q, 1, &res);
				break;
			}
			if (dim == 1) {
				int32_t ends[2];
				segment_ends(&w, m, q, ends);
				st = output_point_or_segment(&w, ends, 2, &res);
				break;
			}
			if (dim == 2) {
				st = output_polygon(&w, m, q, &res);
				break;
			}
			st = build_triangulation(&w, m, q);
			if (st == IMP_OK)
				st = merge_coplanar_faces(&w);
			if (st != IMP_OK)
				break;
			int kept = drop_flat_corners(&w);
			if (kept < 0) {
				st = output_polytope(&w, &res);
				break;
			}
			m = kept;
		}
	}
	work_free(&w);
	if (st == IMP_OK)
		*out = res;
	return st;
}
