// SPDX-License-Identifier: MIT
// The 3D data set and its brute-force oracle. Nothing here shares code with
// a GJK, EPA or MPR: polytopes are answered from their faces, edges and
// vertices, capsules in closed form, ellipsoids by Newton's method or
// bisection on smooth problems of one or two unknowns, each answer checked
// by a bound from the other side.
#define _POSIX_C_SOURCE 200809L

#include "dataset3d.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bench_util.h"

/// Tries per pair before a cell is declared impossible to sample.
#define DS3_MAX_TRIES 1000

/// How far every other point must stay below a hull triangle's plane: a
/// polytope with four nearly coplanar points is drawn again, so that no
/// hull builder has a reason to merge faces or drop a vertex.
#define DS3_HULL_MARGIN 1e-7

/// The widest interval the oracle accepts for an ellipsoid distance.
#define DS3_CERTIFY 1e-12

static const double k_nan = NAN;

const char *ds3_case_name(ds3_case kind)
{
	switch (kind) {
	case DS3_DISTANT:
		return "distant";
	case DS3_CLOSE:
		return "close";
	case DS3_OVERLAPPING:
		return "overlapping";
	default:
		return "?";
	}
}

const char *ds3_pairing_name(ds3_pairing pairing)
{
	static const char *const names[DS3_PAIRING_COUNT] = {
		"poly8", "poly32", "poly128", "poly512", "box", "capsule", "ellipsoid", "box-ellipsoid",
	};
	return (int)pairing >= 0 && pairing < DS3_PAIRING_COUNT ? names[pairing] : "?";
}

int ds3_pairing_vertices(ds3_pairing pairing)
{
	static const int counts[DS3_PAIRING_COUNT] = {8, 32, 128, 512, 8, 0, 0, 0};
	return (int)pairing >= 0 && pairing < DS3_PAIRING_COUNT ? counts[pairing] : 0;
}

// ---- small vector helpers ---------------------------------------------------

static inline imp_vec3 v3_madd(imp_vec3 a, double s, imp_vec3 b)
{
	return imp_vec3_make(a.x + s * b.x, a.y + s * b.y, a.z + s * b.z);
}

static inline double v3_dist2(imp_vec3 a, imp_vec3 b)
{
	imp_vec3 d = imp_vec3_sub(a, b);
	return imp_vec3_dot(d, d);
}

static inline imp_vec3 v3_normalize(imp_vec3 a)
{
	return imp_vec3_scale(1.0 / imp_vec3_length(a), a);
}

static inline double v3_get(imp_vec3 v, int i)
{
	return i == 0 ? v.x : (i == 1 ? v.y : v.z);
}

static inline void v3_set(imp_vec3 *v, int i, double s)
{
	if (i == 0)
		v->x = s;
	else if (i == 1)
		v->y = s;
	else
		v->z = s;
}

static imp_vec3 v3_nan(void)
{
	return imp_vec3_make(k_nan, k_nan, k_nan);
}

/// Two unit vectors that make a right-handed orthonormal frame with unit n.
static void tangent_frame(imp_vec3 n, imp_vec3 *t1, imp_vec3 *t2)
{
	imp_vec3 other = imp_vec3_make(0.0, 0.0, 1.0);
	if (fabs(n.x) < 0.6)
		other = imp_vec3_make(1.0, 0.0, 0.0);
	else if (fabs(n.y) < 0.6)
		other = imp_vec3_make(0.0, 1.0, 0.0);
	*t1 = v3_normalize(imp_vec3_cross(n, other));
	*t2 = imp_vec3_cross(n, *t1);
}

// ---- random numbers: +, -, *, / and sqrt only, so every machine agrees ----
//
// Draws are separate statements: the order in which a function's arguments
// are evaluated is unspecified (GCC and Clang differ on x86-64).

/// x, y, z uniform in [lo, hi), drawn in that order.
static imp_vec3 random_in_box(bench_rng *rng, double lo, double hi)
{
	double x = bench_rng_range(rng, lo, hi);
	double y = bench_rng_range(rng, lo, hi);
	double z = bench_rng_range(rng, lo, hi);
	return imp_vec3_make(x, y, z);
}

/// Uniform on the unit sphere: a point uniform in the unit ball (by
/// rejection from the cube) pushed out to the sphere.
static imp_vec3 random_unit(bench_rng *rng)
{
	for (;;) {
		imp_vec3 v = random_in_box(rng, -1.0, 1.0);
		double l2 = imp_vec3_dot(v, v);
		if (l2 <= 1.0 && l2 >= 1e-4)
			return imp_vec3_scale(1.0 / sqrt(l2), v);
	}
}

/// A uniform random rotation: a point uniform in the 4D unit ball pushed out
/// to the 3-sphere of unit quaternions.
static imp_quat random_rotation(bench_rng *rng)
{
	for (;;) {
		imp_vec3 v = random_in_box(rng, -1.0, 1.0);
		double x = v.x, y = v.y, z = v.z;
		double w = bench_rng_range(rng, -1.0, 1.0);
		double l2 = x * x + y * y + z * z + w * w;
		if (l2 <= 1.0 && l2 >= 1e-4) {
			double s = 1.0 / sqrt(l2);
			return imp_quat_make(x * s, y * s, z * s, w * s);
		}
	}
}

/// Log-uniform in [lo, hi], that is lo (hi / lo)^u for u uniform, without
/// log or exp (whose last bit differs between C libraries): each bit of u,
/// most significant first, picks the upper or lower half of the interval
/// in the geometric sense, whose midpoint is a square root.
static double random_log_uniform(bench_rng *rng, double lo, double hi)
{
	double u = bench_rng_unit(rng);
	double a = lo, b = hi;
	for (int k = 0; k < 53; k++) {
		double mid = sqrt(a * b);
		u *= 2.0;
		if (u >= 1.0) {
			a = mid;
			u -= 1.0;
		} else {
			b = mid;
		}
	}
	return sqrt(a * b);
}

// ---- hulls -------------------------------------------------------------------

/// The point p[k] such that no point lies above the plane of triangle (u, v,
/// p[k]) taken counter-clockwise from outside, u -> v being a hull edge (v
/// may be a point off the set: iu, iv are -1 for such). One pass of gift
/// wrapping (Chand and Kapur 1970): the planes through line uv holding the
/// other points are ordered by angle, and the last one holds the face.
static int wrap_edge(const imp_vec3 *p, int n, imp_vec3 u, imp_vec3 v, int iu, int iv)
{
	int best = -1;
	imp_vec3 normal = {0.0, 0.0, 0.0};
	imp_vec3 e = imp_vec3_sub(v, u);
	for (int q = 0; q < n; q++) {
		if (q == iu || q == iv)
			continue;
		if (best < 0 || imp_vec3_dot(imp_vec3_sub(p[q], u), normal) > 0.0) {
			best = q;
			normal = imp_vec3_cross(e, imp_vec3_sub(p[q], u));
		}
	}
	return best;
}

/// The hull of n >= 4 points that are all its vertices (points on a sphere)
/// as 2n - 4 triangles, counter-clockwise from outside, by gift wrapping
/// from a first edge across every open edge. Returns the triangle count, or
/// -1 when the result is not a closed surface with every other point at
/// least DS3_HULL_MARGIN below each triangle (four points nearly coplanar,
/// which sampling then avoids).
static int hull_of_extreme_points(const imp_vec3 *p, int n, int *tri)
{
	int max_tri = 2 * n - 4;
	int *owner = calloc((size_t)n * (size_t)n, sizeof *owner); // triangle + 1 holding directed edge i -> j
	if (!owner)
		return -1;
	int a0 = 0;
	for (int i = 1; i < n; i++)
		if (p[i].x > p[a0].x)
			a0 = i;
	// The plane x = p[a0].x touches the hull at a0 only; turning it about
	// the line through a0 along y meets a hull edge a0 b0.
	int b0 = wrap_edge(p, n, p[a0], imp_vec3_add(p[a0], imp_vec3_make(0.0, 1.0, 0.0)), a0, -1);
	int c0 = wrap_edge(p, n, p[a0], p[b0], a0, b0);
	int ok = 1;
	tri[0] = a0;
	tri[1] = b0;
	tri[2] = c0;
	int count = 1;
	for (int k = 0; k < 3; k++)
		owner[tri[k] * n + tri[(k + 1) % 3]] = 1;
	for (int f = 0; f < count && ok; f++) {
		for (int k = 0; k < 3 && ok; k++) {
			int i = tri[3 * f + k], j = tri[3 * f + (k + 1) % 3];
			if (owner[j * n + i])
				continue;
			int q = wrap_edge(p, n, p[j], p[i], j, i);
			int t[3] = {j, i, q};
			if (count == max_tri) {
				ok = 0;
				break;
			}
			for (int m = 0; m < 3; m++)
				if (owner[t[m] * n + t[(m + 1) % 3]])
					ok = 0;
			if (!ok)
				break;
			for (int m = 0; m < 3; m++) {
				tri[3 * count + m] = t[m];
				owner[t[m] * n + t[(m + 1) % 3]] = count + 1;
			}
			count++;
		}
	}
	free(owner);
	if (!ok || count != max_tri)
		return -1;
	// Every triangle must be a hull face with room to spare. With 2n - 4
	// triangles, each directed edge once, that makes the surface the hull.
	for (int f = 0; f < count; f++) {
		imp_vec3 a = p[tri[3 * f]], b = p[tri[3 * f + 1]], c = p[tri[3 * f + 2]];
		imp_vec3 normal = imp_vec3_cross(imp_vec3_sub(b, a), imp_vec3_sub(c, a));
		double len = imp_vec3_length(normal);
		if (!(len > 1e-12))
			return -1;
		normal = imp_vec3_scale(1.0 / len, normal);
		for (int q = 0; q < n; q++) {
			if (q == tri[3 * f] || q == tri[3 * f + 1] || q == tri[3 * f + 2])
				continue;
			if (imp_vec3_dot(imp_vec3_sub(p[q], a), normal) > -DS3_HULL_MARGIN)
				return -1;
		}
	}
	return count;
}

/// The edges of a closed triangulated surface with the triangles on either
/// side. With drop_flat, edges between coplanar triangles (the diagonals of
/// a box face) are left out. Returns the edge count, or -1 when out of
/// memory or an edge has no triangle on one side.
static int edges_of_triangles(const imp_vec3 *v, int nv, const int *tri, int nt, int drop_flat, ds3_edge *out)
{
	int *owner = calloc((size_t)nv * (size_t)nv, sizeof *owner);
	if (!owner)
		return -1;
	for (int f = 0; f < nt; f++)
		for (int k = 0; k < 3; k++)
			owner[tri[3 * f + k] * nv + tri[3 * f + (k + 1) % 3]] = f + 1;
	int count = 0;
	for (int f = 0; f < nt; f++) {
		for (int k = 0; k < 3; k++) {
			int i = tri[3 * f + k], j = tri[3 * f + (k + 1) % 3];
			if (i > j)
				continue;
			int g = owner[j * nv + i] - 1;
			if (g < 0) {
				free(owner);
				return -1; // an open surface
			}
			if (drop_flat) {
				imp_vec3 nf = imp_vec3_cross(imp_vec3_sub(v[tri[3 * f + 1]], v[tri[3 * f]]),
							     imp_vec3_sub(v[tri[3 * f + 2]], v[tri[3 * f]]));
				imp_vec3 ng = imp_vec3_cross(imp_vec3_sub(v[tri[3 * g + 1]], v[tri[3 * g]]),
							     imp_vec3_sub(v[tri[3 * g + 2]], v[tri[3 * g]]));
				if (imp_vec3_dot(v3_normalize(nf), v3_normalize(ng)) > 1.0 - 1e-12)
					continue;
			}
			out[count].v[0] = i;
			out[count].v[1] = j;
			out[count].f[0] = f;
			out[count].f[1] = g;
			count++;
		}
	}
	free(owner);
	return count;
}

// ---- shapes ------------------------------------------------------------------

/// n points uniform on the unit sphere times a scale in [0.8, 1.2], with
/// their hull. Returns 0, or -1 when the hull was refused (draw again).
static int make_polytope(bench_rng *rng, int n, imp_vec3 *v, int *tri, ds3_edge *edges, ds3_shape *s)
{
	double scale = bench_rng_range(rng, 0.8, 1.2);
	for (int i = 0; i < n; i++)
		v[i] = imp_vec3_scale(scale, random_unit(rng));
	int nt = hull_of_extreme_points(v, n, tri);
	if (nt < 0)
		return -1;
	int ne = edges_of_triangles(v, n, tri, nt, 0, edges);
	if (ne != 3 * n - 6)
		return -1;
	memset(s, 0, sizeof *s);
	s->kind = DS3_POLYTOPE;
	s->vertex_count = n;
	s->vertices = v;
	s->triangle_count = nt;
	s->triangles = tri;
	s->edge_count = ne;
	s->edges = edges;
	s->bound = scale;
	return 0;
}

/// A box with half sizes in [0.3, 1.2], its corners (corner k has the sign
/// of bit i of k on axis i), 12 triangles and 12 edges.
static int make_box(bench_rng *rng, imp_vec3 *v, int *tri, ds3_edge *edges, ds3_shape *s)
{
	imp_vec3 h = random_in_box(rng, 0.3, 1.2);
	for (int k = 0; k < 8; k++)
		v[k] = imp_vec3_make(k & 1 ? h.x : -h.x, k & 2 ? h.y : -h.y, k & 4 ? h.z : -h.z);
	// Face (axis i, side s): the corners with bit i equal to s, in the order
	// (-,-), (+,-), (+,+), (-,+) on axes j, k: counter-clockwise about +e_i,
	// since e_j x e_k = e_i; reversed on the negative side.
	int nt = 0;
	for (int i = 0; i < 3; i++) {
		int j = (i + 1) % 3, k = (i + 2) % 3;
		for (int side = 0; side < 2; side++) {
			int ring[4];
			const int sj[4] = {0, 1, 1, 0}, sk[4] = {0, 0, 1, 1};
			for (int m = 0; m < 4; m++)
				ring[m] = (side << i) | (sj[m] << j) | (sk[m] << k);
			if (!side) {
				int t = ring[1];
				ring[1] = ring[3];
				ring[3] = t;
			}
			int *t = tri + 3 * nt;
			t[0] = ring[0], t[1] = ring[1], t[2] = ring[2];
			t[3] = ring[0], t[4] = ring[2], t[5] = ring[3];
			nt += 2;
		}
	}
	int ne = edges_of_triangles(v, 8, tri, nt, 1, edges);
	if (ne != 12)
		return -1;
	memset(s, 0, sizeof *s);
	s->kind = DS3_BOX;
	s->vertex_count = 8;
	s->vertices = v;
	s->triangle_count = nt;
	s->triangles = tri;
	s->edge_count = ne;
	s->edges = edges;
	s->size = h;
	s->bound = imp_vec3_length(h);
	return 0;
}

/// A capsule of half length in [0.2, 1] and radius in [0.2, 0.6].
static void make_capsule(bench_rng *rng, ds3_shape *s)
{
	memset(s, 0, sizeof *s);
	s->kind = DS3_CAPSULE;
	s->half_length = bench_rng_range(rng, 0.2, 1.0);
	s->radius = bench_rng_range(rng, 0.2, 0.6);
	s->bound = s->half_length + s->radius;
}

/// An ellipsoid of semi-axes in [0.3, 1.2].
static void make_ellipsoid(bench_rng *rng, ds3_shape *s)
{
	memset(s, 0, sizeof *s);
	s->kind = DS3_ELLIPSOID;
	s->size = random_in_box(rng, 0.3, 1.2);
	double m = s->size.x > s->size.y ? s->size.x : s->size.y;
	s->bound = m > s->size.z ? m : s->size.z;
}

// ---- closest points between simple features -----------------------------------

/// The point of segment [a, b] closest to p.
static imp_vec3 closest_on_segment(imp_vec3 p, imp_vec3 a, imp_vec3 b)
{
	imp_vec3 e = imp_vec3_sub(b, a);
	double ee = imp_vec3_dot(e, e);
	double t = ee > 0.0 ? imp_vec3_dot(imp_vec3_sub(p, a), e) / ee : 0.0;
	t = t < 0.0 ? 0.0 : (t > 1.0 ? 1.0 : t);
	return v3_madd(a, t, e);
}

/// The point of triangle (a, b, c) closest to p: p's projection when it
/// falls inside, else the closest point of an edge (the squared distance is
/// convex on the plane, so off its minimum it is least on the boundary).
static imp_vec3 closest_on_triangle(imp_vec3 p, imp_vec3 a, imp_vec3 b, imp_vec3 c)
{
	imp_vec3 n = imp_vec3_cross(imp_vec3_sub(b, a), imp_vec3_sub(c, a));
	double nn = imp_vec3_dot(n, n);
	if (nn > 0.0) {
		imp_vec3 q = v3_madd(p, -imp_vec3_dot(imp_vec3_sub(p, a), n) / nn, n);
		if (imp_vec3_dot(imp_vec3_cross(imp_vec3_sub(b, a), imp_vec3_sub(q, a)), n) >= 0.0 &&
		    imp_vec3_dot(imp_vec3_cross(imp_vec3_sub(c, b), imp_vec3_sub(q, b)), n) >= 0.0 &&
		    imp_vec3_dot(imp_vec3_cross(imp_vec3_sub(a, c), imp_vec3_sub(q, c)), n) >= 0.0)
			return q;
	}
	imp_vec3 best = closest_on_segment(p, a, b);
	imp_vec3 q = closest_on_segment(p, b, c);
	if (v3_dist2(p, q) < v3_dist2(p, best))
		best = q;
	q = closest_on_segment(p, c, a);
	if (v3_dist2(p, q) < v3_dist2(p, best))
		best = q;
	return best;
}

/// The closest points of segments [a0, a1] and [b0, b1]: the stationary
/// point of the squared distance when it lies inside both, else the best
/// of the four endpoint-segment pairs (the minimum of a convex function on
/// the square [0, 1]^2 is inside or on its sides). Returns the squared
/// distance.
static double closest_segments(imp_vec3 a0, imp_vec3 a1, imp_vec3 b0, imp_vec3 b1, imp_vec3 *pa, imp_vec3 *pb)
{
	imp_vec3 d1 = imp_vec3_sub(a1, a0), d2 = imp_vec3_sub(b1, b0), r = imp_vec3_sub(a0, b0);
	double a = imp_vec3_dot(d1, d1), e = imp_vec3_dot(d2, d2), b = imp_vec3_dot(d1, d2);
	double c = imp_vec3_dot(d1, r), f = imp_vec3_dot(d2, r);
	double denom = a * e - b * b;
	double best = DBL_MAX;
	if (denom > 1e-14 * a * e) {
		double s = (b * f - c * e) / denom, t = (a * f - b * c) / denom;
		if (s > 0.0 && s < 1.0 && t > 0.0 && t < 1.0) {
			*pa = v3_madd(a0, s, d1);
			*pb = v3_madd(b0, t, d2);
			best = v3_dist2(*pa, *pb);
		}
	}
	const imp_vec3 ends[4] = {a0, a1, b0, b1};
	for (int k = 0; k < 4; k++) {
		imp_vec3 p = ends[k];
		imp_vec3 q = k < 2 ? closest_on_segment(p, b0, b1) : closest_on_segment(p, a0, a1);
		double d = v3_dist2(p, q);
		if (d < best) {
			best = d;
			*pa = k < 2 ? p : q;
			*pb = k < 2 ? q : p;
		}
	}
	return best;
}

/// The points of lines a0 + s d1 and b0 + t d2 closest to each other
/// (non-parallel lines).
static void closest_lines(imp_vec3 a0, imp_vec3 d1, imp_vec3 b0, imp_vec3 d2, imp_vec3 *pa, imp_vec3 *pb)
{
	imp_vec3 r = imp_vec3_sub(a0, b0);
	double a = imp_vec3_dot(d1, d1), e = imp_vec3_dot(d2, d2), b = imp_vec3_dot(d1, d2);
	double c = imp_vec3_dot(d1, r), f = imp_vec3_dot(d2, r);
	double denom = a * e - b * b;
	*pa = v3_madd(a0, (b * f - c * e) / denom, d1);
	*pb = v3_madd(b0, (a * f - b * c) / denom, d2);
}

// ---- polytopes -----------------------------------------------------------------

/// A polytope or box moved to the world, with scratch flags.
typedef struct world_poly {
	const ds3_shape *s;
	imp_vec3 *v;         ///< world vertices
	imp_vec3 *normal;    ///< world unit normals of the triangles
	unsigned char *near; ///< vertex within reach of the other shape
} world_poly;

static int world_poly_make(world_poly *w, const ds3_shape *s, imp_pose3 pose)
{
	w->s = s;
	w->v = malloc(sizeof *w->v * (size_t)s->vertex_count);
	w->normal = malloc(sizeof *w->normal * (size_t)s->triangle_count);
	w->near = malloc((size_t)s->vertex_count);
	if (!w->v || !w->normal || !w->near)
		return -1;
	imp_mat3 r = imp_mat3_from_quat(pose.q);
	for (int i = 0; i < s->vertex_count; i++)
		w->v[i] = imp_vec3_add(imp_mat3_apply(&r, s->vertices[i]), pose.p);
	for (int f = 0; f < s->triangle_count; f++) {
		const int *t = s->triangles + 3 * f;
		w->normal[f] = v3_normalize(
			imp_vec3_cross(imp_vec3_sub(w->v[t[1]], w->v[t[0]]), imp_vec3_sub(w->v[t[2]], w->v[t[0]])));
	}
	return 0;
}

static void world_poly_free(world_poly *w)
{
	free(w->v);
	free(w->normal);
	free(w->near);
}

/// max over w's vertices of dot(n, v), its index in *arg.
static double poly_max(const world_poly *w, imp_vec3 n, int *arg)
{
	double best = -DBL_MAX;
	for (int i = 0; i < w->s->vertex_count; i++) {
		double s = imp_vec3_dot(n, w->v[i]);
		if (s > best) {
			best = s;
			*arg = i;
		}
	}
	return best;
}

/// min over w's vertices of dot(n, v), its index in *arg.
static double poly_min(const world_poly *w, imp_vec3 n, int *arg)
{
	double best = DBL_MAX;
	for (int i = 0; i < w->s->vertex_count; i++) {
		double s = imp_vec3_dot(n, w->v[i]);
		if (s < best) {
			best = s;
			*arg = i;
		}
	}
	return best;
}

static int triangle_is_near(const world_poly *w, int f)
{
	const int *t = w->s->triangles + 3 * f;
	return w->near[t[0]] || w->near[t[1]] || w->near[t[2]];
}

static int edge_is_near(const world_poly *w, int e)
{
	return w->near[w->s->edges[e].v[0]] || w->near[w->s->edges[e].v[1]];
}

/// True unless the arcs between the normals of a's edge (a1, a2) and the
/// negated normals of b's edge (c1, c2) surely miss each other on the unit
/// sphere: their crossing is what makes the two edges a facet of the
/// Minkowski difference a - b. Each endpoint pair must straddle the other
/// arc's great circle, and the two arcs must reach the same one of the two
/// points where the circles meet (an arc shorter than a half turn holds the
/// one on the side of its midpoint). A little slack keeps a crossing that
/// rounding puts at an arc's end: an extra axis only costs time.
static int arcs_may_cross(imp_vec3 a1, imp_vec3 a2, imp_vec3 c1, imp_vec3 c2)
{
	const double slack = 1e-14;
	imp_vec3 na = imp_vec3_cross(a1, a2), nc = imp_vec3_cross(c1, c2);
	if (imp_vec3_dot(c1, na) * imp_vec3_dot(c2, na) > slack)
		return 0;
	if (imp_vec3_dot(a1, nc) * imp_vec3_dot(a2, nc) > slack)
		return 0;
	imp_vec3 p = imp_vec3_cross(na, nc);
	return imp_vec3_dot(p, imp_vec3_add(a1, a2)) * imp_vec3_dot(p, imp_vec3_add(c1, c2)) >= -slack;
}

/// The best separating axis found so far and where it came from.
typedef struct sat_axis {
	double gap;  ///< min over b of n.y - max over a of n.x
	imp_vec3 n;
	int kind;    ///< 0 a face of a, 1 a face of b, 2 an edge pair
	int ia, ib;  ///< kind 0: b's lowest vertex; 1: a's highest vertex; 2: the edges
} sat_axis;

static int poly_oracle_world(const world_poly *A, const world_poly *B, ds3_answer *out)
{
	const ds3_shape *sa = A->s, *sb = B->s;
	// 1. Every face normal. A face of a is a's highest along its own normal.
	sat_axis best = {-DBL_MAX, {0.0, 0.0, 1.0}, 0, 0, 0};
	for (int f = 0; f < sa->triangle_count; f++) {
		imp_vec3 n = A->normal[f];
		int jb = 0;
		double gap = poly_min(B, n, &jb) - imp_vec3_dot(n, A->v[sa->triangles[3 * f]]);
		if (gap > best.gap)
			best = (sat_axis){gap, n, 0, f, jb};
	}
	for (int f = 0; f < sb->triangle_count; f++) {
		imp_vec3 n = imp_vec3_neg(B->normal[f]);
		int ia = 0;
		double gap = imp_vec3_dot(n, B->v[sb->triangles[3 * f]]) - poly_max(A, n, &ia);
		if (gap > best.gap)
			best = (sat_axis){gap, n, 1, ia, f};
	}
	// 2. Reach. Let a in A, b in B be the pair that decides the answer: a
	// closest pair when apart (|a - b| = distance), or the pair with a - b
	// the nearest point of the boundary of A - B when overlapping (|a - b|
	// = depth). Both are at most U below. For any unit m, m.b >= min_B m.y
	// and m.a >= m.b - |a - b|, so a lies where m.x >= min_B m.y - U, and
	// the features holding a (the decisive face, edge or vertex) have a
	// vertex there: only those need to be tried. Likewise for b.
	// U: the distance between a point of each shape (at least the
	// distance), here the extreme vertex of one and the face of the other
	// that gave the best axis, and the depth the axis bounds from above.
	imp_vec3 m = best.n;
	int ia = 0, jb = 0;
	double top_a = poly_max(A, m, &ia), low_b = poly_min(B, m, &jb);
	double reach;
	if (best.kind == 0) {
		const int *t = sa->triangles + 3 * best.ia;
		imp_vec3 p = B->v[best.ib];
		reach = sqrt(v3_dist2(p, closest_on_triangle(p, A->v[t[0]], A->v[t[1]], A->v[t[2]])));
	} else {
		const int *t = sb->triangles + 3 * best.ib;
		imp_vec3 p = A->v[best.ia];
		reach = sqrt(v3_dist2(p, closest_on_triangle(p, B->v[t[0]], B->v[t[1]], B->v[t[2]])));
	}
	if (-best.gap > reach)
		reach = -best.gap;
	const double slack = 1e-9;
	for (int i = 0; i < sa->vertex_count; i++)
		A->near[i] = imp_vec3_dot(m, A->v[i]) >= low_b - reach - slack;
	for (int j = 0; j < sb->vertex_count; j++)
		B->near[j] = imp_vec3_dot(m, B->v[j]) <= top_a + reach + slack;
	// 3. Edge pairs, when no face normal separates. The gap along an axis
	// is at most what two points of the edges give, so an axis that cannot
	// beat the best is dropped before its vertices are scanned.
	if (best.gap <= 0.0) {
		for (int ea = 0; ea < sa->edge_count; ea++) {
			if (!edge_is_near(A, ea))
				continue;
			const ds3_edge *e1 = &sa->edges[ea];
			imp_vec3 a1 = A->normal[e1->f[0]], a2 = A->normal[e1->f[1]];
			imp_vec3 pa0 = A->v[e1->v[0]];
			imp_vec3 da = imp_vec3_sub(A->v[e1->v[1]], pa0);
			for (int eb = 0; eb < sb->edge_count; eb++) {
				if (!edge_is_near(B, eb))
					continue;
				const ds3_edge *e2 = &sb->edges[eb];
				imp_vec3 c1 = imp_vec3_neg(B->normal[e2->f[0]]), c2 = imp_vec3_neg(B->normal[e2->f[1]]);
				if (!arcs_may_cross(a1, a2, c1, c2))
					continue;
				imp_vec3 pb0 = B->v[e2->v[0]];
				imp_vec3 db = imp_vec3_sub(B->v[e2->v[1]], pb0);
				imp_vec3 n = imp_vec3_cross(da, db);
				double nn = imp_vec3_dot(n, n);
				if (!(nn > 1e-24 * imp_vec3_dot(da, da) * imp_vec3_dot(db, db)))
					continue;
				n = imp_vec3_scale(1.0 / sqrt(nn), n);
				if (imp_vec3_dot(n, imp_vec3_add(a1, a2)) < 0.0)
					n = imp_vec3_neg(n);
				if (imp_vec3_dot(n, imp_vec3_sub(pb0, pa0)) <= best.gap)
					continue;
				int i0 = 0, j0 = 0;
				double gap = poly_min(B, n, &j0) - poly_max(A, n, &i0);
				if (gap > best.gap)
					best = (sat_axis){gap, n, 2, ea, eb};
			}
		}
	}
	if (best.gap <= 0.0) {
		double depth = -best.gap;
		out->overlap = true;
		out->distance = best.gap;
		out->normal = best.n;
		if (best.kind == 0) {
			out->point_b = B->v[best.ib];
			out->point_a = v3_madd(out->point_b, depth, best.n);
		} else if (best.kind == 1) {
			out->point_a = A->v[best.ia];
			out->point_b = v3_madd(out->point_a, -depth, best.n);
		} else {
			const ds3_edge *e1 = &sa->edges[best.ia], *e2 = &sb->edges[best.ib];
			imp_vec3 a0 = A->v[e1->v[0]], b0 = B->v[e2->v[0]];
			closest_lines(a0, imp_vec3_sub(A->v[e1->v[1]], a0), b0, imp_vec3_sub(B->v[e2->v[1]], b0),
				      &out->point_a, &out->point_b);
		}
		return 0;
	}
	// 4. Apart: the least vertex-triangle and edge-edge distance among the
	// features within reach.
	double d2 = DBL_MAX;
	imp_vec3 wa = {0.0, 0.0, 0.0}, wb = {0.0, 0.0, 0.0};
	for (int f = 0; f < sb->triangle_count; f++) {
		if (!triangle_is_near(B, f))
			continue;
		const int *t = sb->triangles + 3 * f;
		for (int i = 0; i < sa->vertex_count; i++) {
			if (!A->near[i])
				continue;
			imp_vec3 q = closest_on_triangle(A->v[i], B->v[t[0]], B->v[t[1]], B->v[t[2]]);
			double d = v3_dist2(A->v[i], q);
			if (d < d2) {
				d2 = d;
				wa = A->v[i];
				wb = q;
			}
		}
	}
	for (int f = 0; f < sa->triangle_count; f++) {
		if (!triangle_is_near(A, f))
			continue;
		const int *t = sa->triangles + 3 * f;
		for (int j = 0; j < sb->vertex_count; j++) {
			if (!B->near[j])
				continue;
			imp_vec3 q = closest_on_triangle(B->v[j], A->v[t[0]], A->v[t[1]], A->v[t[2]]);
			double d = v3_dist2(B->v[j], q);
			if (d < d2) {
				d2 = d;
				wa = q;
				wb = B->v[j];
			}
		}
	}
	for (int ea = 0; ea < sa->edge_count; ea++) {
		if (!edge_is_near(A, ea))
			continue;
		imp_vec3 a0 = A->v[sa->edges[ea].v[0]], a1 = A->v[sa->edges[ea].v[1]];
		for (int eb = 0; eb < sb->edge_count; eb++) {
			if (!edge_is_near(B, eb))
				continue;
			imp_vec3 p, q;
			double d = closest_segments(a0, a1, B->v[sb->edges[eb].v[0]], B->v[sb->edges[eb].v[1]], &p, &q);
			if (d < d2) {
				d2 = d;
				wa = p;
				wb = q;
			}
		}
	}
	double d = sqrt(d2);
	if (!(d >= best.gap - 1e-9))
		return -1; // a distance below a separating gap: the search is broken
	out->overlap = false;
	out->distance = d;
	out->point_a = wa;
	out->point_b = wb;
	out->normal = imp_vec3_scale(1.0 / d, imp_vec3_sub(wb, wa));
	return 0;
}

static int poly_oracle(const ds3_shape *a, imp_pose3 pa, const ds3_shape *b, imp_pose3 pb, ds3_answer *out)
{
	if (a->vertex_count > DS3_MAX_VERTICES || b->vertex_count > DS3_MAX_VERTICES)
		return -1;
	world_poly A = {0}, B = {0};
	int rc = -1;
	if (world_poly_make(&A, a, pa) == 0 && world_poly_make(&B, b, pb) == 0)
		rc = poly_oracle_world(&A, &B, out);
	world_poly_free(&A);
	world_poly_free(&B);
	return rc;
}

// ---- capsules --------------------------------------------------------------------

static int capsule_oracle(const ds3_shape *a, imp_pose3 pa, const ds3_shape *b, imp_pose3 pb, ds3_answer *out)
{
	imp_vec3 za = imp_quat_rotate(pa.q, imp_vec3_make(0.0, 0.0, a->half_length));
	imp_vec3 zb = imp_quat_rotate(pb.q, imp_vec3_make(0.0, 0.0, b->half_length));
	imp_vec3 p, q;
	double d = sqrt(closest_segments(imp_vec3_sub(pa.p, za), imp_vec3_add(pa.p, za), imp_vec3_sub(pb.p, zb),
					 imp_vec3_add(pb.p, zb), &p, &q));
	double radii = a->radius + b->radius;
	out->overlap = d <= radii;
	if (!(d > 1e-12)) {
		// Crossing segments: the depth is not radii - d. Never in the data.
		out->distance = k_nan;
		out->point_a = out->point_b = out->normal = v3_nan();
		return 0;
	}
	// A - B is the parallelogram of the segments' differences rounded by
	// the radii: its boundary is radii - d away from the origin.
	imp_vec3 u = imp_vec3_scale(1.0 / d, imp_vec3_sub(q, p));
	out->distance = d - radii;
	out->normal = u;
	out->point_a = v3_madd(p, a->radius, u);
	out->point_b = v3_madd(q, -b->radius, u);
	return 0;
}

// ---- ellipsoids --------------------------------------------------------------------

/// An ellipsoid in some frame: centre, rotation (frame from local) and
/// semi-axes.
typedef struct ellipsoid {
	imp_vec3 c;
	imp_mat3 r;
	double axes[3];
} ellipsoid;

static ellipsoid ellipsoid_at(const ds3_shape *s, imp_pose3 pose)
{
	ellipsoid e = {pose.p, imp_mat3_from_quat(pose.q), {s->size.x, s->size.y, s->size.z}};
	return e;
}

/// (x - c)^T M (x - c) - 1 with M the ellipsoid's quadratic form: < 0 inside.
static double ellipsoid_level(const ellipsoid *e, imp_vec3 x)
{
	imp_vec3 m = imp_mat3_apply_t(&e->r, imp_vec3_sub(x, e->c));
	double s = 0.0;
	for (int i = 0; i < 3; i++) {
		double t = v3_get(m, i) / e->axes[i];
		s += t * t;
	}
	return s - 1.0;
}

/// g(n) = max over the ellipsoid of n.(x - c) for any n != 0, its gradient
/// (the support point less c) and, when hess is not NULL, its Hessian
/// (Q - s s^T) / g with Q = R diag(axes^2) R^T.
static double ellipsoid_reach(const ellipsoid *e, imp_vec3 n, imp_vec3 *grad, double hess[3][3])
{
	imp_vec3 m = imp_mat3_apply_t(&e->r, n);
	double q[3], g2 = 0.0;
	for (int i = 0; i < 3; i++) {
		double a2 = e->axes[i] * e->axes[i];
		q[i] = a2 * v3_get(m, i);
		g2 += a2 * v3_get(m, i) * v3_get(m, i);
	}
	double g = sqrt(g2);
	imp_vec3 s = imp_vec3_scale(1.0 / g, imp_mat3_apply(&e->r, imp_vec3_make(q[0], q[1], q[2])));
	*grad = s;
	if (hess) {
		for (int i = 0; i < 3; i++)
			for (int j = 0; j < 3; j++) {
				double qij = 0.0;
				for (int k = 0; k < 3; k++)
					qij += e->r.m[i][k] * e->axes[k] * e->axes[k] * e->r.m[j][k];
				hess[i][j] = (qij - v3_get(s, i) * v3_get(s, j)) / g;
			}
	}
	return g;
}

/// The gap between two ellipsoids along unit n: min over b of n.y - max
/// over a of n.x; and w = y - x for the support points x of a along n and y
/// of b along -n, the gradient of the gap (extended to all n != 0).
static double ellipsoid_gap(const ellipsoid *a, const ellipsoid *b, imp_vec3 n, imp_vec3 *x, imp_vec3 *y,
			    double hess[3][3])
{
	imp_vec3 sa, sb;
	double ha[3][3], hb[3][3];
	double ga = ellipsoid_reach(a, n, &sa, hess ? ha : NULL);
	double gb = ellipsoid_reach(b, n, &sb, hess ? hb : NULL);
	*x = imp_vec3_add(a->c, sa);
	*y = imp_vec3_sub(b->c, sb);
	if (hess)
		for (int i = 0; i < 3; i++)
			for (int j = 0; j < 3; j++)
				hess[i][j] = -(ha[i][j] + hb[i][j]);
	return imp_vec3_dot(n, imp_vec3_sub(b->c, a->c)) - ga - gb;
}

static double quad_form(double h[3][3], imp_vec3 u, imp_vec3 v)
{
	double s = 0.0;
	for (int i = 0; i < 3; i++)
		for (int j = 0; j < 3; j++)
			s += v3_get(u, i) * h[i][j] * v3_get(v, j);
	return s;
}

/// The distance between two ellipsoids is the largest gap over unit n
/// (separating hyperplanes), and the gap is concave and smooth in n:
/// Newton's method on the sphere (the Riemannian Hessian is the Hessian on
/// the tangent plane less gap * I) with a backtracking line search, from
/// the best of a few directions. At any n, gap(n) <= distance <= |y - x|
/// (x, y support points, points of the two shapes): the answer is accepted
/// when that interval is narrower than DS3_CERTIFY. When the best gap stays
/// <= 0, the midpoint of the support points, inside both shapes when the
/// gap is a local maximum of a modest overlap, certifies the overlap.
static int ellipsoid_oracle(const ds3_shape *sa, imp_pose3 pa, const ds3_shape *sb, imp_pose3 pb, ds3_answer *out)
{
	ellipsoid a = ellipsoid_at(sa, pa), b = ellipsoid_at(sb, pb);
	imp_vec3 x, y;
	imp_vec3 c = imp_vec3_sub(b.c, a.c);
	imp_vec3 n = imp_vec3_length(c) > 0.0 ? v3_normalize(c) : imp_vec3_make(0.0, 0.0, 1.0);
	double gap = ellipsoid_gap(&a, &b, n, &x, &y, NULL);
	for (int k = 0; k < 26; k++) {
		int i = k < 13 ? k : k + 1; // the 26 neighbours of the centre of a 3x3x3 grid
		imp_vec3 m = v3_normalize(imp_vec3_make(i % 3 - 1.0, (i / 3) % 3 - 1.0, i / 9 - 1.0));
		imp_vec3 xm, ym;
		double g = ellipsoid_gap(&a, &b, m, &xm, &ym, NULL);
		if (g > gap) {
			gap = g;
			n = m;
		}
	}
	double scale = 1.0 + imp_vec3_length(c);
	for (int it = 0; it < 100; it++) {
		double h[3][3];
		gap = ellipsoid_gap(&a, &b, n, &x, &y, h);
		imp_vec3 w = imp_vec3_sub(y, x);
		if (gap > 0.0 && imp_vec3_length(w) - gap <= 1e-15 * scale)
			break;
		imp_vec3 t1, t2;
		tangent_frame(n, &t1, &t2);
		double g1 = imp_vec3_dot(t1, w), g2 = imp_vec3_dot(t2, w);
		double k11 = quad_form(h, t1, t1) - gap, k12 = quad_form(h, t1, t2), k22 = quad_form(h, t2, t2) - gap;
		double det = k11 * k22 - k12 * k12;
		double s1, s2;
		if (k11 < 0.0 && det > 0.0) {
			s1 = -(k22 * g1 - k12 * g2) / det;
			s2 = -(k11 * g2 - k12 * g1) / det;
		} else {
			double step = 1.0 / (fabs(k11) + fabs(k22) + fabs(k12) + 1e-3);
			s1 = step * g1;
			s2 = step * g2;
		}
		int moved = 0;
		for (int half = 0; half < 60; half++) {
			imp_vec3 m = v3_normalize(v3_madd(v3_madd(n, s1, t1), s2, t2));
			imp_vec3 xm, ym;
			if (ellipsoid_gap(&a, &b, m, &xm, &ym, NULL) > gap) {
				n = m;
				moved = 1;
				break;
			}
			s1 *= 0.5;
			s2 *= 0.5;
		}
		if (!moved)
			break;
	}
	gap = ellipsoid_gap(&a, &b, n, &x, &y, NULL);
	double upper = sqrt(v3_dist2(x, y));
	if (gap > 0.0) {
		if (!(upper - gap <= DS3_CERTIFY))
			return -1;
		out->overlap = false;
		out->distance = gap;
		out->point_a = x;
		out->point_b = y;
		out->normal = n;
		return 0;
	}
	imp_vec3 mid = imp_vec3_scale(0.5, imp_vec3_add(x, y));
	if (!(ellipsoid_level(&a, mid) < 0.0 && ellipsoid_level(&b, mid) < 0.0))
		return -1;
	out->overlap = true;
	out->distance = k_nan;
	out->point_a = out->point_b = out->normal = v3_nan();
	return 0;
}

// ---- a box and an ellipsoid ------------------------------------------------------------

/// The root t > 0 of sum_i (a_i y_i / (t + a_i^2))^2 = 1 for a point y
/// outside the axis-aligned ellipsoid (or ellipse, dim 2) of semi-axes a,
/// and the closest point x_i = a_i^2 y_i / (t + a_i^2) (Eberly, "Distance
/// from a point to an ellipse, an ellipsoid, or a hyperellipsoid", 2011).
/// The left side falls from above 1 at t = 0 to at most 1 at t = |y| max a:
/// bisection to the last bit. Returns |x - y|.
static double closest_on_axis_ellipsoid(int dim, const double *axes, const double *y, double *x)
{
	double len2 = 0.0, amax = 0.0;
	for (int i = 0; i < dim; i++) {
		len2 += y[i] * y[i];
		if (axes[i] > amax)
			amax = axes[i];
	}
	double lo = 0.0, hi = sqrt(len2) * amax;
	for (;;) {
		double t = 0.5 * (lo + hi);
		if (!(t > lo && t < hi))
			break;
		double s = 0.0;
		for (int i = 0; i < dim; i++) {
			double q = axes[i] * y[i] / (t + axes[i] * axes[i]);
			s += q * q;
		}
		if (s > 1.0)
			lo = t;
		else
			hi = t;
	}
	double t = 0.5 * (lo + hi), d2 = 0.0;
	for (int i = 0; i < dim; i++) {
		double a2 = axes[i] * axes[i];
		x[i] = a2 * y[i] / (t + a2);
		d2 += (x[i] - y[i]) * (x[i] - y[i]);
	}
	return sqrt(d2);
}

/// Candidate closest pair of a box (the frame's origin, half sizes h) and
/// an ellipsoid; keeps the least.
typedef struct box_ellipsoid_best {
	double d;
	imp_vec3 on_box, on_ellipsoid;
} box_ellipsoid_best;

static void keep_closer(box_ellipsoid_best *best, double d, imp_vec3 on_box, imp_vec3 on_ellipsoid)
{
	if (d < best->d) {
		best->d = d;
		best->on_box = on_box;
		best->on_ellipsoid = on_ellipsoid;
	}
}

/// The distance of a box and an ellipsoid that do not meet is the least
/// distance from the ellipsoid to a face, an edge or a corner of the box,
/// each taken only when its nearest point to the ellipsoid lies inside the
/// feature (else a smaller feature has it): a face by the ellipsoid's
/// support point along the face normal (a plane), an edge by the ellipse
/// the ellipsoid casts along the edge (a line), a corner by the point
/// distance. All in the box's frame.
static void box_ellipsoid_features(imp_vec3 h, const ellipsoid *e, box_ellipsoid_best *best)
{
	best->d = DBL_MAX;
	best->on_box = best->on_ellipsoid = imp_vec3_make(0.0, 0.0, 0.0);
	double q[3][3]; // R diag(axes^2) R^T
	for (int i = 0; i < 3; i++)
		for (int j = 0; j < 3; j++) {
			q[i][j] = 0.0;
			for (int k = 0; k < 3; k++)
				q[i][j] += e->r.m[i][k] * e->axes[k] * e->axes[k] * e->r.m[j][k];
		}
	for (int i = 0; i < 3; i++) {
		int j = (i + 1) % 3, k = (i + 2) % 3;
		double hi = v3_get(h, i), hj = v3_get(h, j), hk = v3_get(h, k);
		for (int side = -1; side <= 1; side += 2) {
			// Face x_i = side * h_i: the ellipsoid's lowest point along the
			// outward normal.
			imp_vec3 n = {0.0, 0.0, 0.0};
			v3_set(&n, i, side);
			imp_vec3 s;
			ellipsoid_reach(e, n, &s, NULL);
			imp_vec3 z = imp_vec3_sub(e->c, s);
			double d = side * v3_get(z, i) - hi;
			if (d > 0.0 && fabs(v3_get(z, j)) <= hj && fabs(v3_get(z, k)) <= hk) {
				imp_vec3 on_box = z;
				v3_set(&on_box, i, side * hi);
				keep_closer(best, d, on_box, z);
			}
		}
		// Edges along axis i: the ellipsoid seen along e_i is an ellipse in
		// the (j, k) plane with matrix S (the (j, k) block of Q).
		double sjj = q[j][j], sjk = q[j][k], skk = q[k][k];
		double mean = 0.5 * (sjj + skk), dev = sqrt(0.25 * (sjj - skk) * (sjj - skk) + sjk * sjk);
		double l1 = mean + dev, l2 = mean - dev;
		// Unit eigenvector of l1 (the other is its perpendicular).
		double ux, uy;
		if (fabs(sjk) > 0.0 || sjj != skk) {
			double ax = sjk, ay = l1 - sjj, bx = l1 - skk, by = sjk;
			if (ax * ax + ay * ay >= bx * bx + by * by) {
				ux = ax;
				uy = ay;
			} else {
				ux = bx;
				uy = by;
			}
			double ul = sqrt(ux * ux + uy * uy);
			ux /= ul;
			uy /= ul;
		} else {
			ux = 1.0;
			uy = 0.0;
		}
		double axes2[2] = {sqrt(l1), sqrt(l2)};
		for (int sj = -1; sj <= 1; sj += 2) {
			for (int sk = -1; sk <= 1; sk += 2) {
				double pj = sj * hj - v3_get(e->c, j), pk = sk * hk - v3_get(e->c, k);
				double y2[2] = {ux * pj + uy * pk, -uy * pj + ux * pk};
				if ((y2[0] * y2[0]) / l1 + (y2[1] * y2[1]) / l2 <= 1.0)
					continue; // the edge's line meets the ellipsoid
				double x2[2];
				double d = closest_on_axis_ellipsoid(2, axes2, y2, x2);
				// The outward normal there is along y - x; the ellipsoid's
				// point over it is its support point along that normal.
				double mj = ux * (y2[0] - x2[0]) - uy * (y2[1] - x2[1]);
				double mk = uy * (y2[0] - x2[0]) + ux * (y2[1] - x2[1]);
				imp_vec3 m = {0.0, 0.0, 0.0};
				v3_set(&m, j, mj);
				v3_set(&m, k, mk);
				imp_vec3 s;
				ellipsoid_reach(e, m, &s, NULL);
				imp_vec3 on_e = imp_vec3_add(e->c, s);
				double t = v3_get(on_e, i);
				if (fabs(t) > hi)
					continue;
				imp_vec3 on_box = {0.0, 0.0, 0.0};
				v3_set(&on_box, i, t);
				v3_set(&on_box, j, sj * hj);
				v3_set(&on_box, k, sk * hk);
				keep_closer(best, d, on_box, on_e);
			}
		}
	}
	for (int corner = 0; corner < 8; corner++) {
		imp_vec3 v = imp_vec3_make(corner & 1 ? h.x : -h.x, corner & 2 ? h.y : -h.y, corner & 4 ? h.z : -h.z);
		if (ellipsoid_level(e, v) <= 0.0)
			continue;
		imp_vec3 yl = imp_mat3_apply_t(&e->r, imp_vec3_sub(v, e->c));
		double y3[3] = {yl.x, yl.y, yl.z}, x3[3];
		double d = closest_on_axis_ellipsoid(3, e->axes, y3, x3);
		keep_closer(best, d, v, imp_vec3_add(e->c, imp_mat3_apply(&e->r, imp_vec3_make(x3[0], x3[1], x3[2]))));
	}
}

/// The box point nearest to the ellipsoid's centre in the ellipsoid's own
/// metric (a convex quadratic over the box, by cyclic coordinate descent);
/// returns its level: < 0 means a point of the box inside the ellipsoid.
static double box_deepest_level(imp_vec3 h, const ellipsoid *e)
{
	// P = R diag(1 / axes^2) R^T.
	double p[3][3];
	for (int i = 0; i < 3; i++)
		for (int j = 0; j < 3; j++) {
			p[i][j] = 0.0;
			for (int k = 0; k < 3; k++)
				p[i][j] += e->r.m[i][k] * e->r.m[j][k] / (e->axes[k] * e->axes[k]);
		}
	double z[3] = {0.0, 0.0, 0.0}, c[3] = {e->c.x, e->c.y, e->c.z}, hh[3] = {h.x, h.y, h.z};
	for (int i = 0; i < 3; i++)
		z[i] = c[i] < -hh[i] ? -hh[i] : (c[i] > hh[i] ? hh[i] : c[i]);
	for (int sweep = 0; sweep < 500; sweep++) {
		int changed = 0;
		for (int i = 0; i < 3; i++) {
			double s = 0.0;
			for (int j = 0; j < 3; j++)
				if (j != i)
					s += p[i][j] * (z[j] - c[j]);
			double t = c[i] - s / p[i][i];
			t = t < -hh[i] ? -hh[i] : (t > hh[i] ? hh[i] : t);
			changed |= t != z[i];
			z[i] = t;
		}
		if (!changed)
			break;
	}
	return ellipsoid_level(e, imp_vec3_make(z[0], z[1], z[2]));
}

static int box_ellipsoid_oracle(const ds3_shape *box, imp_pose3 pbox, const ds3_shape *ell, imp_pose3 pell,
				ds3_answer *out)
{
	// Everything in the box's frame.
	imp_mat3 rb = imp_mat3_from_quat(pbox.q), re = imp_mat3_from_quat(pell.q);
	ellipsoid e = {imp_mat3_apply_t(&rb, imp_vec3_sub(pell.p, pbox.p)), imp_mat3_mul_t(&rb, &re),
		       {ell->size.x, ell->size.y, ell->size.z}};
	if (box_deepest_level(box->size, &e) < 0.0) {
		out->overlap = true;
		out->distance = k_nan;
		out->point_a = out->point_b = out->normal = v3_nan();
		return 0;
	}
	box_ellipsoid_best best;
	box_ellipsoid_features(box->size, &e, &best);
	if (best.d == DBL_MAX || !(best.d > 0.0))
		return -1;
	// Certificate: the gap along the found normal bounds the distance from
	// below, the found pair from above.
	imp_vec3 u = imp_vec3_scale(1.0 / best.d, imp_vec3_sub(best.on_ellipsoid, best.on_box));
	imp_vec3 s;
	double g = ellipsoid_reach(&e, u, &s, NULL);
	double gap = imp_vec3_dot(u, e.c) - g -
		     (box->size.x * fabs(u.x) + box->size.y * fabs(u.y) + box->size.z * fabs(u.z));
	if (!(best.d - gap <= DS3_CERTIFY))
		return -1;
	out->overlap = false;
	out->distance = best.d;
	out->point_a = imp_vec3_add(imp_mat3_apply(&rb, best.on_box), pbox.p);
	out->point_b = imp_vec3_add(imp_mat3_apply(&rb, best.on_ellipsoid), pbox.p);
	out->normal = imp_mat3_apply(&rb, u);
	return 0;
}

// ---- the oracle -----------------------------------------------------------------------------

static int is_polytope(const ds3_shape *s)
{
	return s->kind == DS3_POLYTOPE || s->kind == DS3_BOX;
}

int ds3_oracle(const ds3_shape *a, imp_pose3 pa, const ds3_shape *b, imp_pose3 pb, ds3_answer *out)
{
	if (!a || !b || !out)
		return -1;
	if (is_polytope(a) && is_polytope(b))
		return poly_oracle(a, pa, b, pb, out);
	if (a->kind == DS3_CAPSULE && b->kind == DS3_CAPSULE)
		return capsule_oracle(a, pa, b, pb, out);
	if (a->kind == DS3_ELLIPSOID && b->kind == DS3_ELLIPSOID)
		return ellipsoid_oracle(a, pa, b, pb, out);
	if (a->kind == DS3_BOX && b->kind == DS3_ELLIPSOID)
		return box_ellipsoid_oracle(a, pa, b, pb, out);
	if (a->kind == DS3_ELLIPSOID && b->kind == DS3_BOX) {
		int rc = box_ellipsoid_oracle(b, pb, a, pa, out);
		if (rc == 0) {
			imp_vec3 t = out->point_a;
			out->point_a = out->point_b;
			out->point_b = t;
			out->normal = imp_vec3_neg(out->normal);
		}
		return rc;
	}
	return -1;
}

// ---- sampling --------------------------------------------------------------------------------

/// Storage of one shape inside the cell's pools.
typedef struct shape_slot {
	imp_vec3 *v;
	int *tri;
	ds3_edge *edges;
} shape_slot;

static int make_shape(bench_rng *rng, ds3_kind kind, int n, shape_slot slot, ds3_shape *s)
{
	switch (kind) {
	case DS3_POLYTOPE:
		for (int tries = 0; tries < DS3_MAX_TRIES; tries++)
			if (make_polytope(rng, n, slot.v, slot.tri, slot.edges, s) == 0)
				return 0;
		return -1;
	case DS3_BOX:
		return make_box(rng, slot.v, slot.tri, slot.edges, s);
	case DS3_CAPSULE:
		make_capsule(rng, s);
		return 0;
	case DS3_ELLIPSOID:
		make_ellipsoid(rng, s);
		return 0;
	default:
		return -1;
	}
}

static imp_pose3 moved(imp_pose3 pose, double t, imp_vec3 u)
{
	pose.p = v3_madd(pose.p, -t, u);
	return pose;
}

/// b's pose moved by -t u from pb0 until a polytope pair penetrates by
/// `depth`. The depth along that line is concave and piecewise linear (the
/// least of the facets' offsets) with slope normal.u: Newton's method from
/// below climbs it piece by piece. Returns 0 with the answer, or -1.
static int push_polytopes(const ds3_pair *p, imp_pose3 pb0, imp_vec3 u, double t, double depth, imp_pose3 *pb,
			  ds3_answer *ref)
{
	for (int it = 0; it < 50; it++) {
		*pb = moved(pb0, t, u);
		if (ds3_oracle(p->a, p->pa, p->b, *pb, ref) != 0 || !ref->overlap)
			return -1;
		double got = -ref->distance;
		if (fabs(got - depth) <= 1e-13)
			return 0;
		double slope = imp_vec3_dot(ref->normal, u);
		if (slope < 0.05)
			return -1;
		t += (depth - got) / slope;
	}
	return fabs(-ref->distance - depth) <= 1e-9 ? 0 : -1;
}

/// Samples the shapes and poses of pair i. Returns 0, or -1 when no try fitted.
static int sample_pair(bench_rng *rng, ds3_cell *cell, int i, shape_slot slot_a, shape_slot slot_b)
{
	static const ds3_kind kinds[DS3_PAIRING_COUNT][2] = {
		{DS3_POLYTOPE, DS3_POLYTOPE}, {DS3_POLYTOPE, DS3_POLYTOPE}, {DS3_POLYTOPE, DS3_POLYTOPE},
		{DS3_POLYTOPE, DS3_POLYTOPE}, {DS3_BOX, DS3_BOX},           {DS3_CAPSULE, DS3_CAPSULE},
		{DS3_ELLIPSOID, DS3_ELLIPSOID}, {DS3_BOX, DS3_ELLIPSOID},
	};
	int n = ds3_pairing_vertices(cell->pairing);
	ds3_pair *p = &cell->pairs[i];
	ds3_shape *sa = &cell->shapes[2 * i], *sb = &cell->shapes[2 * i + 1];
	p->a = sa;
	p->b = sb;
	for (int tries = 0; tries < DS3_MAX_TRIES; tries++) {
		if (make_shape(rng, kinds[cell->pairing][0], n, slot_a, sa) != 0 ||
		    make_shape(rng, kinds[cell->pairing][1], n, slot_b, sb) != 0)
			return -1;
		imp_vec3 pos = random_in_box(rng, -5.0, 5.0);
		p->pa = imp_pose3_make(pos, random_rotation(rng));
		imp_vec3 dir = random_unit(rng);
		imp_pose3 pb0 =
			imp_pose3_make(v3_madd(p->pa.p, sa->bound + sb->bound + 0.5, dir), random_rotation(rng));
		switch (cell->kind) {
		case DS3_DISTANT:
			p->target = bench_rng_range(rng, 0.1, 2.0);
			break;
		case DS3_CLOSE:
			p->target = random_log_uniform(rng, 1e-3, 1e-1);
			break;
		default:
			p->target = bench_rng_range(rng, 1e-3, 0.2);
			break;
		}
		// Far apart, the oracle gives the separation d0 along u. Moving b by
		// -t u for t <= d0 leaves the same closest pair and shrinks the
		// distance by exactly t (a and b stay on either side of the
		// planes normal to u through the pair).
		ds3_answer far;
		if (ds3_oracle(sa, p->pa, sb, pb0, &far) != 0 || far.overlap)
			continue;
		double d0 = far.distance;
		imp_vec3 u = far.normal;
		if (cell->kind != DS3_OVERLAPPING) {
			p->pb = moved(pb0, d0 - p->target, u);
			if (ds3_oracle(sa, p->pa, sb, p->pb, &p->ref) != 0 || p->ref.overlap ||
			    fabs(p->ref.distance - p->target) > 1e-9)
				continue;
			return 0;
		}
		double depth = p->target;
		if (is_polytope(sa) && is_polytope(sb)) {
			if (push_polytopes(p, pb0, u, d0 + depth, depth, &p->pb, &p->ref) != 0)
				continue;
			return 0;
		}
		p->pb = moved(pb0, d0 + depth, u);
		if (ds3_oracle(sa, p->pa, sb, p->pb, &p->ref) != 0 || !p->ref.overlap)
			continue;
		if (sa->kind == DS3_CAPSULE) {
			if (fabs(-p->ref.distance - depth) > 1e-9)
				continue;
			return 0;
		}
		// Ellipsoids: a's closest point moved depth / 2 into a is inside
		// both, which proves the overlap whatever the oracle found.
		imp_vec3 inside = v3_madd(far.point_a, -0.5 * depth, u);
		imp_mat3 ra = imp_mat3_from_quat(p->pa.q), rb = imp_mat3_from_quat(p->pb.q);
		imp_vec3 la = imp_mat3_apply_t(&ra, imp_vec3_sub(inside, p->pa.p));
		imp_vec3 lb = imp_mat3_apply_t(&rb, imp_vec3_sub(inside, p->pb.p));
		int in_a = sa->kind == DS3_BOX ? fabs(la.x) < sa->size.x && fabs(la.y) < sa->size.y &&
							fabs(la.z) < sa->size.z
					       : (la.x / sa->size.x) * (la.x / sa->size.x) +
							(la.y / sa->size.y) * (la.y / sa->size.y) +
							(la.z / sa->size.z) * (la.z / sa->size.z) < 1.0;
		int in_b = (lb.x / sb->size.x) * (lb.x / sb->size.x) + (lb.y / sb->size.y) * (lb.y / sb->size.y) +
			   (lb.z / sb->size.z) * (lb.z / sb->size.z) < 1.0;
		if (!in_a || !in_b)
			continue;
		return 0;
	}
	return -1;
}

int ds3_cell_make(ds3_cell *cell, ds3_pairing pairing, ds3_case kind, int count, uint64_t seed)
{
	if (!cell || (int)pairing < 0 || pairing >= DS3_PAIRING_COUNT || (int)kind < 0 || kind >= DS3_CASE_COUNT ||
	    count < 1)
		return -1;
	memset(cell, 0, sizeof *cell);
	cell->pairing = pairing;
	cell->kind = kind;
	cell->count = count;
	// The box of the box-ellipsoid pairing needs room for its corners.
	int nv = pairing == DS3_BOX_ELLIPSOID ? 8 : ds3_pairing_vertices(pairing);
	size_t shapes = (size_t)count * 2;
	cell->pairs = calloc((size_t)count, sizeof *cell->pairs);
	cell->shapes = calloc(shapes, sizeof *cell->shapes);
	if (nv > 0) {
		cell->vertex_pool = calloc(shapes * (size_t)nv, sizeof *cell->vertex_pool);
		cell->triangle_pool = calloc(shapes * (size_t)(3 * (2 * nv - 4)), sizeof *cell->triangle_pool);
		cell->edge_pool = calloc(shapes * (size_t)(3 * nv - 6), sizeof *cell->edge_pool);
	}
	if (!cell->pairs || !cell->shapes ||
	    (nv > 0 && (!cell->vertex_pool || !cell->triangle_pool || !cell->edge_pool))) {
		ds3_cell_free(cell);
		return -1;
	}
	// One stream per cell, so a cell does not change when another is resized.
	bench_rng rng = {seed ^ ((uint64_t)(pairing + 1) << 32) ^ ((uint64_t)(kind + 1) << 48)};
	(void)bench_rng_next(&rng);
	for (int i = 0; i < count; i++) {
		shape_slot slot[2] = {{NULL, NULL, NULL}, {NULL, NULL, NULL}};
		if (nv > 0)
			for (int k = 0; k < 2; k++) {
				size_t s = (size_t)(2 * i + k);
				slot[k].v = cell->vertex_pool + s * (size_t)nv;
				slot[k].tri = cell->triangle_pool + s * (size_t)(3 * (2 * nv - 4));
				slot[k].edges = cell->edge_pool + s * (size_t)(3 * nv - 6);
			}
		if (sample_pair(&rng, cell, i, slot[0], slot[1]) != 0) {
			ds3_cell_free(cell);
			return -1;
		}
	}
	return 0;
}

void ds3_cell_free(ds3_cell *cell)
{
	if (!cell)
		return;
	free(cell->pairs);
	free(cell->shapes);
	free(cell->vertex_pool);
	free(cell->triangle_pool);
	free(cell->edge_pool);
	cell->pairs = NULL;
	cell->shapes = NULL;
	cell->vertex_pool = NULL;
	cell->triangle_pool = NULL;
	cell->edge_pool = NULL;
	cell->count = 0;
}
