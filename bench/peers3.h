// SPDX-License-Identifier: MIT
/// @file peers3.h
/// What the 3D benchmark compares impact with: libccd's GJK, MPR and EPA
/// (peer_ccd3d.c, when HAVE_CCD), FCL 0.7's two GJK solvers (peer_fcl.cpp,
/// when HAVE_FCL) and Bullet's GJK pair detector (peer_bullet.cpp, when
/// HAVE_BULLET). Each peer keeps its own copy of a cell in its own types
/// (rotations as matrices, made once), and the loops run inside the peer's
/// file so that every method pays one library call per pair, with no state
/// carried from one pair to the next.
///
/// Per peer: `xxx_create(cell)` (NULL when out of memory or the cell's
/// shapes are not handled), `xxx_destroy`, `xxx_loop(set, method, count)`
/// running the method on pairs 0 .. count-1 in order and returning a
/// checksum (the number of overlaps, or the sum of the distances or depths)
/// so that no call can be dropped, and `xxx_one(set, method, i, out)` giving
/// the method's answer for pair i.
#ifndef IMPACT_BENCH_PEERS3_H
#define IMPACT_BENCH_PEERS3_H

#include <stdbool.h>

#include "dataset3d.h"

#ifdef __cplusplus
extern "C" {
#endif

/// One method's answer for one pair; what the method does not say is NaN.
typedef struct peer3_answer {
	/// The method's overlap verdict (distance methods: distance <= 0, or
	/// the library said it could not separate).
	bool overlap;
	/// Separated: the distance. Overlapping: minus the depth (for the
	/// methods that give one). NaN otherwise.
	double distance;
	/// World witness points (a closest pair, or the deepest pair); NaN when
	/// not given.
	imp_vec3 point_a, point_b;
	/// Unit, from a towards b (moving b along it separates); NaN when not
	/// given.
	imp_vec3 normal;
	/// The library's own return value (0, a status, or a bool as 0/1).
	int status;
} peer3_answer;

#ifdef HAVE_CCD
typedef struct ccd3_set ccd3_set;

typedef enum ccd3_method {
	CCD3_GJK = 0,         ///< ccdGJKIntersect: overlap
	CCD3_MPR,             ///< ccdMPRIntersect: overlap
	CCD3_GJK_PENETRATION, ///< ccdGJKPenetration (GJK then EPA): overlap, depth, direction
	CCD3_MPR_PENETRATION, ///< ccdMPRPenetration: overlap, depth, direction
	CCD3_METHOD_COUNT
} ccd3_method;

/// "ccdGJKIntersect", ...
const char *ccd3_method_name(ccd3_method method);
/// Every kind of ds3 shape, through support functions written here (a
/// polytope's scans every vertex, as libccd's own examples do); MPR's
/// interior point is the shape's centre (a polytope's vertex mean). libccd's
/// default tolerances, max_iterations 1000.
ccd3_set *ccd3_create(const ds3_cell *cell);
void ccd3_destroy(ccd3_set *set);
/// The number of overlapping pairs, or the sum of the depths.
double ccd3_loop(const ccd3_set *set, ccd3_method method, int count);
void ccd3_one(const ccd3_set *set, ccd3_method method, int i, peer3_answer *out);
#endif

#ifdef HAVE_FCL
typedef struct fcl3_set fcl3_set;

typedef enum fcl3_method {
	FCL3_CCD_DISTANCE = 0,    ///< GJKSolver_libccd::shapeDistance
	FCL3_CCD_SIGNED_DISTANCE, ///< GJKSolver_libccd::shapeSignedDistance (EPA when overlapping)
	FCL3_CCD_COLLIDE,         ///< GJKSolver_libccd::shapeIntersect, no contact (MPR)
	FCL3_CCD_CONTACT,         ///< GJKSolver_libccd::shapeIntersect with a contact (MPR penetration)
	FCL3_INDEP_DISTANCE,      ///< GJKSolver_indep::shapeDistance
	FCL3_INDEP_COLLIDE,       ///< GJKSolver_indep::shapeIntersect, no contact (GJK then EPA)
	FCL3_INDEP_CONTACT,       ///< GJKSolver_indep::shapeIntersect with a contact
	FCL3_METHOD_COUNT
} fcl3_method;

/// "FCL libccd shapeDistance", ...
const char *fcl3_method_name(fcl3_method method);
/// FCL's version, "0.7.0".
const char *fcl3_version(void);
/// fcl::Convex for polytopes (the hull's triangles as faces), fcl::Box,
/// fcl::Capsule and fcl::Ellipsoid for the others, FCL's default solver
/// settings. FCL answers some pairs in closed form instead of by GJK (see
/// peer_fcl.cpp): that is what its users get.
fcl3_set *fcl3_create(const ds3_cell *cell);
void fcl3_destroy(fcl3_set *set);
/// The number of overlapping pairs, or the sum of the distances or depths.
double fcl3_loop(const fcl3_set *set, fcl3_method method, int count);
void fcl3_one(const fcl3_set *set, fcl3_method method, int i, peer3_answer *out);
#endif

#ifdef HAVE_BULLET
typedef struct bt3_set bt3_set;

typedef enum bt3_method {
	BT3_GJK_EPA = 0, ///< btGjkPairDetector, btVoronoiSimplexSolver, btGjkEpaPenetrationDepthSolver
	BT3_METHOD_COUNT
} bt3_method;

/// "Bullet btGjkPairDetector + EPA".
const char *bt3_method_name(bt3_method method);
/// Bullet's version, "3.24", and "double" or "float" (btScalar).
const char *bt3_version(void);
const char *bt3_precision(void);
/// btConvexHullShape for polytopes, btBoxShape, btCapsuleShapeZ, and for
/// ellipsoids a btConvexInternalShape whose support is the ellipsoid's
/// (Bullet has no ellipsoid). Margins 0: the shapes are the data set's,
/// not grown by Bullet's default 0.04 (a capsule's radius is its margin).
bt3_set *bt3_create(const ds3_cell *cell);
void bt3_destroy(bt3_set *set);
/// The sum of the signed distances.
double bt3_loop(const bt3_set *set, bt3_method method, int count);
void bt3_one(const bt3_set *set, bt3_method method, int i, peer3_answer *out);
#endif

#ifdef __cplusplus
}
#endif

#endif
