// SPDX-License-Identifier: MIT
/// @file peer_queries_fcl.h
/// FCL 0.7's DynamicAABBTreeCollisionManager as bench/queries' peer
/// (peer_queries_fcl.cpp): the world's static bodies registered once, then
/// queried with one shape at a time through the manager's collide() and
/// distance() with a query CollisionObject, as FCL users ask "what does this
/// shape touch" and "what is nearest to it".
#ifndef IMPACT_BENCH_PEER_QUERIES_FCL_H
#define IMPACT_BENCH_PEER_QUERIES_FCL_H

#include <stdbool.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// One static body or query shape, in world coordinates.
typedef struct pqf_shape {
	int kind;          ///< 0: box (half extents in half[3]); 1: sphere (radius); 2: capsule (radius, half length along local z in half[2])
	double half[3];
	double radius;
	double pos[3];
	double quat[4];    ///< unit quaternion x, y, z, w
} pqf_shape;

typedef struct pqf_world pqf_world;

/// Builds FCL collision objects for the bodies and a DynamicAABBTreeCollisionManager
/// holding them (registerObjects, setup). NULL when out of memory or FCL throws
/// (or a body's kind is none of the three).
pqf_world *pqf_create(const pqf_shape *bodies, int count);
void pqf_destroy(pqf_world *w);

/// Whether any body overlaps the query shape: manager->collide(query_object, data, callback)
/// with a callback that stops at the first contact (num_max_contacts 1, enable_contact false).
/// The query object is made once per call from the shape (FCL needs a CollisionObject);
/// to be fair, pqf_prepare_queries() lets the caller build it before timing.
/// False also when the query cannot be made or FCL throws.
bool pqf_any_overlap(pqf_world *w, const pqf_shape *query);

/// The nearest body and its distance: manager->distance(query_object, data, callback)
/// with a callback keeping the minimum (fcl::distance per pair with DistanceRequest
/// enable_nearest_points false, and returning the running minimum as the callback's dist
/// so the manager prunes). Returns the distance (0 or negative as FCL reports for
/// overlapping pairs) and writes the body index to *index (-1 if none). With no
/// bodies: INFINITY; on failure (bad query, FCL throws): NaN, index -1.
double pqf_nearest(pqf_world *w, const pqf_shape *query, int *index);

/// Every body overlapping the query: the count (collide with a callback that never stops).
/// -1 on failure.
int pqf_overlap_count(pqf_world *w, const pqf_shape *query);

/// Query objects made in advance, so that the timed loop measures the queries only:
/// pqf_prepare_queries makes one CollisionObject per query shape; the _prepared
/// functions take its index. Returns false when out of memory (or FCL throws, or a
/// kind is unknown); the queries prepared before are then kept. An index out of
/// range fails as a bad query does above.
bool pqf_prepare_queries(pqf_world *w, const pqf_shape *queries, int count);
bool pqf_any_overlap_prepared(pqf_world *w, int query);
double pqf_nearest_prepared(pqf_world *w, int query, int *index);
int pqf_overlap_count_prepared(pqf_world *w, int query);
/// "fcl x.y.z" from FCL's version macros, for the report.
const char *pqf_version(void);

#ifdef __cplusplus
}
#endif

#endif
