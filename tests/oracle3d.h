// SPDX-License-Identifier: MIT
/// @file oracle3d.h
/// A brute-force oracle for small 3D convex polytopes (and spheres, capsules,
/// boxes, ellipsoids through their analytic distances), written
/// independently of the library: only the inline helpers of <impact/vecmath.h>
/// are used. The hull comes from every triple of points, the distance from
/// every vertex-face and edge-edge pair, the overlap and the penetration
/// depth from the separating-axis test. Slow and plain on purpose; the tests
/// trust it, not the library.
///
/// Exactness: the hull's combinatorics come from exact signs (floating
/// point with an error bound, else expansion arithmetic), so faces, edges
/// and vertices are those of the exact hull of the given doubles, and face
/// normals are exact cross products rounded once. Only the dimension uses a
/// tolerance: points within rounding noise (O3_FLAT_TOL relative) of a
/// plane, line or point count as flat, collinear or one point.
#ifndef IMPACT_TESTS_ORACLE3D_H
#define IMPACT_TESTS_ORACLE3D_H

#include <stdbool.h>
#include <stdint.h>

#include <impact/vecmath.h>

/// Most input points of one polytope (a face's point set is a 64-bit mask).
#define O3_MAX_POINTS 64
/// Most supporting planes and edges kept (a strictly convex 64-point hull
/// has at most 124 faces and 186 edges); more aborts o3_poly_make.
#define O3_MAX_FACES 256
#define O3_MAX_EDGES 512
/// Room for the ordered vertex lists of all faces together.
#define O3_MAX_FACE_VERTS 2048
/// Flatness tolerance, relative to the spread of the points plus their
/// largest coordinate: rounding noise, not a modelling choice.
#define O3_FLAT_TOL 1e-14
/// Two flat shapes whose planes are within this angle (radians, as a sine),
/// or a segment this close to parallel to a flat shape's plane, are treated
/// as lying in parallel planes (their Minkowski difference as flat).
#define O3_ANGLE_TOL 1e-12

/// A convex polytope given by points (local frame), its hull found by brute
/// force. Indices refer to p.
typedef struct o3_poly {
	int n;                          ///< input points
	imp_vec3 p[O3_MAX_POINTS];      ///< the input points
	int nv;                         ///< hull vertices
	int vert[O3_MAX_POINTS];        ///< hull vertices, increasing indices into p
	int nf;                         ///< supporting planes (faces)
	imp_vec3 fn[O3_MAX_FACES];      ///< unit outward normal of each face
	double fd[O3_MAX_FACES];        ///< offset: dot(fn, x) <= fd for every point x
	uint64_t fmask[O3_MAX_FACES];   ///< the points on each face's plane (bit i: p[i]; all, if flat)
	int ffirst[O3_MAX_FACES + 1];   ///< face f's polygon is fvert[ffirst[f] .. ffirst[f + 1])
	int fvert[O3_MAX_FACE_VERTS];   ///< hull vertices of each face in angular order
	int ne;                         ///< hull edges
	int edge[O3_MAX_EDGES][2];      ///< pairs of hull vertices (see o3_poly_make)
	int dim;                        ///< 0 point, 1 segment, 2 flat polygon, 3 solid
	uint64_t vmask;                 ///< the hull vertices as a mask
	double tol;                     ///< the flatness tolerance used (see o3_poly_make)
} o3_poly;

/// The hull of pts[0 .. n) (1 <= n <= O3_MAX_POINTS; aborts otherwise),
/// by brute force. Exact duplicates count once (the first copy). With
/// tol = O3_FLAT_TOL (spread + largest coordinate):
/// - dim 0 when all points are within tol of the first: one vertex, no
///   edge, no face.
/// - dim 1 when all are within tol of the line through the farthest pair:
///   the two extreme points are the vertices and the one edge.
/// - dim 2 when all are within tol of the plane of the largest triangle:
///   two faces (the plane, both sides, the polygon in opposite orders); the
///   polygon is the exact 2D hull of the points seen along the normal's
///   largest axis: an edge is a pair whose line has every point on one
///   side, reduced to the two extreme points on that line.
/// - dim 3 otherwise, exactly: a face is a plane through three points with
///   no point beyond it, one per set of points on it; an edge is the two
///   extreme points of those on two faces at once; the vertices are the
///   edges' ends.
void o3_poly_make(o3_poly *out, const imp_vec3 *pts, int n);

/// The box [-half, half] (8 corners).
void o3_poly_box(o3_poly *out, imp_vec3 half);

/// The exact sign of (d - a).((b - a) x (c - a)): 1 when d is on the side
/// the normal of the triangle (a, b, c) points to, 0 when the four points
/// are coplanar (or a, b, c collinear).
int o3_side(imp_vec3 a, imp_vec3 b, imp_vec3 c, imp_vec3 d);

/// Distance from p to segment [a, b] (a point when a == b); *closest (may be
/// NULL) gets the nearest point of the segment.
double o3_point_segment_distance(imp_vec3 p, imp_vec3 a, imp_vec3 b, imp_vec3 *closest);

/// Distance from p to the triangle (a, b, c) (any shape, also degenerate);
/// *closest (may be NULL) gets its nearest point.
double o3_point_triangle_distance(imp_vec3 p, imp_vec3 a, imp_vec3 b, imp_vec3 c, imp_vec3 *closest);

/// Distance between segments [p0, p1] and [q0, q1] (either may be a point);
/// *cp, *cq (may be NULL) get a closest pair.
double o3_segment_segment_distance(imp_vec3 p0, imp_vec3 p1, imp_vec3 q0, imp_vec3 q1, imp_vec3 *cp,
				   imp_vec3 *cq);

/// Distance from world point p to polytope a at pose pa; 0 inside (then
/// *closest = p). *closest (may be NULL) gets the nearest point (world).
double o3_point_polytope_distance(imp_vec3 p, const o3_poly *a, imp_pose3 pa, imp_vec3 *closest);

/// Whether world point p is in a at pa: within `tol` of every face plane
/// for a solid, within distance `tol` for a flat or lower hull.
bool o3_point_in_polytope(imp_vec3 p, const o3_poly *a, imp_pose3 pa, double tol);

/// Distance from p to the box [-half, half] (local frame); 0 inside (then
/// *closest = p). *closest may be NULL.
double o3_point_box_distance(imp_vec3 p, imp_vec3 half, imp_vec3 *closest);

/// Distance from p to the ellipsoid with semi-axes e (all > 0) centred at the
/// origin, axes along x, y, z; 0 inside (then *closest = p). Outside, the
/// nearest point is x_i = e_i^2 p_i / (e_i^2 + t) where t > 0 solves
/// sum (e_i p_i / (e_i^2 + t))^2 = 1; Newton on t from 0 (monotone: the sum
/// is convex and decreasing) kept inside a shrinking bracket, bisecting when a
/// step would leave it, until t stops changing. *closest may be NULL.
double o3_point_ellipsoid_distance(imp_vec3 p, imp_vec3 e, imp_vec3 *closest);

/// The smallest distance over every feature pair of the cores in the world:
/// each vertex against each face triangle of the other, each edge against
/// each edge (a point hull has one zero-length edge). This is the distance
/// when the cores are disjoint, and whenever both lie in one plane or line;
/// for crossing solids it is not 0. *ca, *cb (may be NULL) get the pair.
double o3_feature_distance(const o3_poly *a, imp_pose3 pa, const o3_poly *b, imp_pose3 pb, imp_vec3 *ca,
			   imp_vec3 *cb);

/// The separating-axis test over the candidate axes (both signs of every
/// face normal of a and b, a flat shape's plane normal, every edge-of-a x
/// edge-of-b cross product, and every face normal x edge, which keeps
/// nearly coplanar thin shapes separable under rounding): the minimum of
/// max_a(u) - min_b(u), the shortest move of b along u that separates.
/// Negative: that axis separates. When o3_difference_is_solid holds, these
/// are all the face normals of the Minkowski difference, so a result >= 0
/// means overlap and is the minimum translation distance. *axis (may be
/// NULL) gets the minimising u (from a to b). Returns DBL_MAX, and a zero
/// axis, when there is no candidate (two points, a point and a segment,
/// parallel segments).
double o3_sat_depth(const o3_poly *a, imp_pose3 pa, const o3_poly *b, imp_pose3 pb, imp_vec3 *axis);

/// Whether a - b has an interior: some hull is solid, or the two are a flat
/// polygon and a segment or polygon not parallel to its plane (by
/// O3_ANGLE_TOL). Otherwise both lie in parallel planes or lines, the cores
/// can only meet in a flat way, the minimum translation distance of
/// overlapping cores is 0 and o3_feature_distance is exact.
bool o3_difference_is_solid(const o3_poly *a, imp_pose3 pa, const o3_poly *b, imp_pose3 pb);

/// Overlap of the cores by a different method than the SAT, to check it:
/// a vertex of one inside the other, an edge of one crossing a face
/// triangle of the other, or a feature distance of 0. Touching (within
/// rounding) may go either way.
bool o3_overlap_brute(const o3_poly *a, imp_pose3 pa, const o3_poly *b, imp_pose3 pb);

/// The full oracle answer for two rounded polytopes in the world.
typedef struct o3_result {
	double sd;          ///< signed distance (< 0: minus the penetration depth)
	double core_sd;     ///< signed distance of the cores: sd = core_sd - ra - rb
	bool overlap;       ///< the cores overlap or touch (core_sd <= 0)
	imp_vec3 pa, pb;    ///< closest (or deepest) points on the rounded shapes; pb - pa = sd * normal
	imp_vec3 normal;    ///< unit, from a to b (b moves along it to separate)
	bool unique_normal; ///< the normal is well defined (no tie, cores not near contact)
	bool unique_points; ///< the witness pair is unique (not face on face, not parallel edges)
	double scene;       ///< largest absolute world coordinate of a vertex, plus the larger radius, at least 1
} o3_result;

/// The oracle for polytope a at pose pa, radius ra, and b at pb, rb.
/// - Cores apart: the feature distance, its pair, normal (cb - ca) / d.
/// - Cores overlapping with a solid difference: the SAT minimum is the
///   minimum translation distance; the normal its axis; the witness pair the
///   nearest points of a's support face along the normal and of b's moved
///   by the depth, so that cb = ca - depth * normal.
/// - Both in parallel planes or lines (not solid): the feature distance,
///   0 when they meet (depth 0 is exact then).
/// Rounded shapes: sd = core_sd - ra - rb in every case, pa = ca + ra n,
/// pb = cb - rb n. When the cores touch (|core_sd| at rounding level) either
/// branch may answer and the normal is arbitrary.
void o3_query(const o3_poly *a, imp_pose3 pa, double ra, const o3_poly *b, imp_pose3 pb, double rb,
	      o3_result *out);

/// Signed distance between two rounded polytopes at poses: > 0 distance,
/// < 0 minus the penetration depth (minimum translation distance), radii
/// included. *wa, *wb (may be NULL) get the witness points (world) on the
/// rounded shapes and *normal (may be NULL) the unit normal from a to b, as
/// in o3_query. Spheres and capsules are a 1- or 2-point polytope with a
/// radius.
double o3_signed_distance(const o3_poly *a, imp_pose3 pa, double ra, const o3_poly *b, imp_pose3 pb, double rb,
			  imp_vec3 *wa, imp_vec3 *wb, imp_vec3 *normal);

/// A small deterministic generator (splitmix64).
typedef struct o3_rng {
	uint64_t s;
} o3_rng;

uint64_t o3_next(o3_rng *r);
/// Uniform in [0, 1).
double o3_uniform(o3_rng *r);
/// Uniform in [lo, hi).
double o3_range(o3_rng *r, double lo, double hi);
/// Uniform integer in [0, n).
int o3_int(o3_rng *r, int n);
/// Uniform in the cube [lo, hi)^3 (x, then y, then z drawn).
imp_vec3 o3_vec(o3_rng *r, double lo, double hi);
/// Uniform on the unit sphere.
imp_vec3 o3_unit(o3_rng *r);
/// A uniformly random rotation.
imp_quat o3_quat(o3_rng *r);
/// A random rotation at a position uniform in [-extent, extent)^3.
imp_pose3 o3_pose(o3_rng *r, double extent);

#endif
