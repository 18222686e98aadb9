// SPDX-License-Identifier: MIT
/// @file dataset3d.h
/// The 3D narrow-phase data set: cells of random pairs (one pairing of shape
/// kinds, one case) with a reference answer for every pair from a
/// brute-force oracle that shares no code with any GJK, EPA or MPR.
///
/// Shapes are kept in their local frame plus a pose, the way a user of
/// impact holds them. Polytopes come with the triangles and edges of their
/// hull (the oracle needs them; FCL's Convex wants the faces too).
#ifndef IMPACT_BENCH_DATASET3D_H
#define IMPACT_BENCH_DATASET3D_H

#include <stdbool.h>
#include <stdint.h>

#include <impact/vecmath.h>

#ifdef __cplusplus
extern "C" {
#endif

/// The most vertices a polytope of the oracle may have.
#define DS3_MAX_VERTICES 1024

typedef enum ds3_kind {
	DS3_POLYTOPE = 0, ///< the hull of points on a sphere (every point a vertex)
	DS3_BOX,          ///< [-hx, hx] x [-hy, hy] x [-hz, hz], also given as its 8 corners
	DS3_CAPSULE,      ///< the points within `radius` of the segment z in [-half_length, half_length]
	DS3_ELLIPSOID,    ///< semi-axes size.x, size.y, size.z along x, y, z
	DS3_KIND_COUNT
} ds3_kind;

/// Which shapes a cell pairs. Cells are homogeneous: every pair of a cell
/// has the same kinds (and, for polytopes, the same vertex count).
typedef enum ds3_pairing {
	DS3_POLY8 = 0,     ///< polytope-polytope, 8 vertices each
	DS3_POLY32,        ///< 32 vertices
	DS3_POLY128,       ///< 128 vertices
	DS3_POLY512,       ///< 512 vertices
	DS3_BOXES,         ///< box-box
	DS3_CAPSULES,      ///< capsule-capsule
	DS3_ELLIPSOIDS,    ///< ellipsoid-ellipsoid
	DS3_BOX_ELLIPSOID, ///< a a box, b an ellipsoid
	DS3_PAIRING_COUNT
} ds3_pairing;

typedef enum ds3_case {
	DS3_DISTANT = 0,  ///< separated by a distance uniform in [0.1, 2]
	DS3_CLOSE,        ///< separated by a distance log-uniform in [1e-3, 1e-1]
	DS3_OVERLAPPING,  ///< penetrating by a depth uniform in [1e-3, 0.2]
	DS3_CASE_COUNT
} ds3_case;

/// A hull edge: its two vertices and the two triangles on either side
/// (f[0] holds the directed edge v[0] -> v[1], f[1] the reverse).
typedef struct ds3_edge {
	int v[2];
	int f[2];
} ds3_edge;

/// One shape in its local frame.
typedef struct ds3_shape {
	ds3_kind kind;
	/// Polytope and box: the hull vertices (for a box its corners). NULL
	/// and 0 for capsules and ellipsoids.
	int vertex_count;
	const imp_vec3 *vertices;
	/// Polytope and box: the hull as triangles, 3 vertex indices each,
	/// counter-clockwise seen from outside (a box face is two triangles).
	int triangle_count;
	const int *triangles;
	/// Polytope and box: the hull edges (a box has its 12, not the
	/// diagonals of its triangulated faces).
	int edge_count;
	const ds3_edge *edges;
	/// Box: half sizes; ellipsoid: semi-axes; zero otherwise.
	imp_vec3 size;
	/// Capsule: the radius and the segment's half length; zero otherwise.
	double radius, half_length;
	/// The largest distance of a point of the shape from its local origin.
	double bound;
} ds3_shape;

/// The oracle's answer for one pair. Distances are Euclidean; `normal`
/// points from a towards b.
typedef struct ds3_answer {
	/// True when the shapes share a point (touching counts as overlapping).
	bool overlap;
	/// Separated: the distance (> 0). Overlapping: minus the penetration
	/// depth (the length of the shortest translation of b that separates
	/// the pair), or NaN when the oracle has no depth (ellipsoids).
	double distance;
	/// World points of a and b. Separated: a closest pair. Overlapping with
	/// a known depth: the deepest pair, point_a - point_b = depth * normal.
	/// NaN when unknown.
	imp_vec3 point_a, point_b;
	/// Separated: (point_b - point_a) / distance. Overlapping: the
	/// direction in which moving b by the depth separates the pair. NaN
	/// when unknown.
	imp_vec3 normal;
} ds3_answer;

/// One pair of a cell.
typedef struct ds3_pair {
	const ds3_shape *a, *b;
	imp_pose3 pa, pb;
	/// What sampling asked for: the separation or the depth (> 0).
	double target;
	/// The oracle at pa, pb (for the overlapping ellipsoid pairings the
	/// depth is unknown: overlap is true, the rest NaN).
	ds3_answer ref;
} ds3_pair;

/// All pairs of one (pairing, case) cell; the shapes and their arrays live
/// in the cell.
typedef struct ds3_cell {
	ds3_pairing pairing;
	ds3_case kind;
	int count;
	ds3_pair *pairs;
	ds3_shape *shapes;  ///< 2 * count: a and b of each pair
	imp_vec3 *vertex_pool;
	int *triangle_pool;
	ds3_edge *edge_pool;
} ds3_cell;

/// "distant", "close", "overlapping".
const char *ds3_case_name(ds3_case kind);

/// "poly8", "poly32", "poly128", "poly512", "box", "capsule", "ellipsoid",
/// "box-ellipsoid".
const char *ds3_pairing_name(ds3_pairing pairing);

/// The vertex count of a polytope pairing's shapes (8 for boxes), 0 for the
/// others.
int ds3_pairing_vertices(ds3_pairing pairing);

/// Makes `count` pairs of the given pairing and case; the same seed gives
/// the same cell on every machine with IEEE double arithmetic (the sampling
/// uses +, -, *, / and sqrt only; compiled without contraction into fused
/// multiply-adds, as -std=c11 does in GCC). Each pair is placed by moving b along a
/// line until the oracle says the target separation or depth, and its
/// reference answer is the oracle's at the final poses. Returns 0, or -1 on
/// bad arguments, no memory, or a case that could not be sampled.
int ds3_cell_make(ds3_cell *cell, ds3_pairing pairing, ds3_case kind, int count, uint64_t seed);

void ds3_cell_free(ds3_cell *cell);

/// The brute-force oracle on shapes a, b at poses pa, pb (unit
/// quaternions). Handles polytope or box against polytope or box, capsule
/// against capsule, ellipsoid against ellipsoid, box against ellipsoid
/// (either order).
///
/// - Polytopes and boxes: overlap and depth by the separating-axis test
///   over every face normal and every pair of edges whose arcs cross on the
///   Gauss map (the facet normals of the Minkowski difference); the distance
///   of a separated pair as the least of all vertex-triangle and edge-edge
///   distances. Only features within reach of the other shape are tried,
///   which a bound proves cannot drop the answer.
/// - Capsules: segment-segment distance less the radii (the depth too: the
///   segments never meet in the data set).
/// - Ellipsoids: the distance as the maximum over unit n of the gap between
///   their projections on n (a concave maximisation, by Newton's method on
///   the sphere), accepted only when the gap and the distance between the
///   two support points agree (an interval that must contain the answer);
///   overlap certified by a point inside both. No depth.
/// - Box and ellipsoid: the least distance between the ellipsoid and each
///   box face, edge and corner (plane, line and point distances to an
///   ellipsoid, all by bisection on a monotone function), certified by the
///   gap along the found normal; overlap by a point inside both. No depth.
///
/// Returns 0, or -1 when the kinds are not handled, a polytope has more than
/// DS3_MAX_VERTICES vertices, or an answer could not be certified.
int ds3_oracle(const ds3_shape *a, imp_pose3 pa, const ds3_shape *b, imp_pose3 pb, ds3_answer *out);

#ifdef __cplusplus
}
#endif

#endif
