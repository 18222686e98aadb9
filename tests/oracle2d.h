// SPDX-License-Identifier: MIT
/// @file oracle2d.h
/// A brute-force oracle for 2D convex polygons, written independently of the
/// library: its own hull (gift wrapping), distances by every vertex-edge
/// pair, overlap and penetration depth by the separating-axis test. Slow and
/// plain on purpose; the tests trust it, not the library.
#ifndef IMPACT_TESTS_ORACLE2D_H
#define IMPACT_TESTS_ORACLE2D_H

#include <stdbool.h>
#include <stdint.h>

#include <impact/impact.h>

/// Convex hull by gift wrapping, O(n h). Writes the hull counter-clockwise
/// into out (capacity n) without duplicate or collinear vertices and returns
/// its vertex count: 1 (all points equal), 2 (a segment) or more.
int orc_hull(const imp_vec2 *points, int n, imp_vec2 *out);

/// The exact sign (-1, 0, 1) of the orientation of (a, b, c): 1 when c is
/// left of a -> b. Exact arithmetic (error-free products and sums).
int orc_orient(imp_vec2 a, imp_vec2 b, imp_vec2 c);

/// Signed area of a polygon (positive when counter-clockwise).
double orc_area(const imp_vec2 *v, int n);

/// Distance from p to segment [a, b] (a point when a == b); *closest (may be
/// NULL) gets the nearest point of the segment.
double orc_point_segment(imp_vec2 p, imp_vec2 a, imp_vec2 b, imp_vec2 *closest);

/// Distance from p to the convex polygon region v[0..n) (CCW hull, any n >= 1);
/// 0 inside.
double orc_point_polygon(imp_vec2 p, const imp_vec2 *v, int n);

/// Signed distance from p to the boundary of the convex polygon region:
/// negative inside (only possible for n >= 3).
double orc_point_polygon_signed(imp_vec2 p, const imp_vec2 *v, int n);

/// Separating-axis test of two convex polygons (CCW hulls, n >= 1): true when
/// the closed regions intersect (touching counts).
bool orc_sat_overlap(const imp_vec2 *a, int na, const imp_vec2 *b, int nb);

/// The SAT penetration: the minimum, over the candidate axes u (the edge
/// normals of the Minkowski difference a - b: a's outward edge normals, b's
/// inward ones, both normals and directions of a segment), of
/// max_a(u) - min_b(u): the shortest translation of b along u that separates
/// them. Negative when some axis separates. *axis gets the best u; *unique is
/// set when every axis within `tie` of the minimum is parallel to it.
double orc_sat_depth(const imp_vec2 *a, int na, const imp_vec2 *b, int nb, double tie,
		     imp_vec2 *axis, bool *unique);

/// Overlap by a different method (edge-edge intersection and vertex
/// containment), used to check the SAT itself.
bool orc_overlap_brute(const imp_vec2 *a, int na, const imp_vec2 *b, int nb);

/// Exact distance between two convex polygons by brute force over every
/// vertex-edge pair, both ways; 0 when they overlap (SAT). *pa, *pb (may be
/// NULL) get a closest pair.
double orc_core_distance(const imp_vec2 *a, int na, const imp_vec2 *b, int nb, imp_vec2 *pa,
			 imp_vec2 *pb);

/// The full oracle answer for two rounded polygons in the world frame.
typedef struct orc_result {
	double sd;          ///< signed distance (< 0: penetration depth)
	double core_sd;     ///< signed distance of the cores
	bool overlap;       ///< sd <= 0
	imp_vec2 pa, pb;    ///< one closest (or deepest) pair; pb - pa = sd * normal
	imp_vec2 normal;    ///< from a to b
	bool unique_normal; ///< the normal is well defined (no tie, not near 0)
	bool unique_points; ///< the witness pair is unique (no parallel faces)
	double scene;       ///< max abs coordinate (+ radius), at least 1
} orc_result;

/// Oracle for hulls a (radius ra) and b (radius rb) in the world frame.
void orc_query(const imp_vec2 *a, int na, double ra, const imp_vec2 *b, int nb, double rb,
	       orc_result *out);

/// Signed distance only (cheaper than orc_query).
double orc_signed_distance(const imp_vec2 *a, int na, double ra, const imp_vec2 *b, int nb, double rb);

/// Scene size: max abs coordinate of both vertex sets plus the largest
/// radius, at least 1.
double orc_scene(const imp_vec2 *a, int na, double ra, const imp_vec2 *b, int nb, double rb);

/// out[i] = pose * v[i].
void orc_transform(imp_pose2 pose, const imp_vec2 *v, int n, imp_vec2 *out);

/// A small deterministic generator (splitmix64).
typedef struct orc_rng {
	uint64_t s;
} orc_rng;

uint64_t orc_next(orc_rng *r);
/// Uniform in [0, 1).
double orc_uniform(orc_rng *r);
/// Uniform in [lo, hi).
double orc_range(orc_rng *r, double lo, double hi);
/// Uniform integer in [0, n).
int orc_int(orc_rng *r, int n);
/// (uniform in [xlo, xhi), then uniform in [ylo, yhi)): x drawn first, so
/// the sequence does not depend on the compiler's argument order.
imp_vec2 orc_vec(orc_rng *r, double xlo, double xhi, double ylo, double yhi);

#endif
