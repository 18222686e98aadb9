// SPDX-License-Identifier: MIT
/// @file peers_broad.h
/// What bench/broad compares impact's world with: the broad phases of
/// Box2D 2.4 (peer_broad_box2d.cpp, HAVE_BOX2D, 2D), Chipmunk2D 7
/// (peer_broad_chipmunk.c, HAVE_CHIPMUNK, 2D), Bullet 3 (peer_broad_bullet.cpp,
/// HAVE_BULLET, 3D) and FCL 0.7 (peer_broad_fcl.cpp, HAVE_FCL, 3D).
///
/// Per peer: `xxx_create(scene, method)` puts the scene's boxes, as they
/// are now, into the library's structure (NULL when out of memory or the
/// scene's dimension is not the library's); `xxx_frame(set)` is one frame
/// of the benchmark: it gives the library every box's current bounding box
/// (every box moves every frame), lets it update its pairs, walks them all,
/// and returns the number of pairs whose exact boxes overlap (sb_overlap:
/// the libraries keep enlarged boxes, or report candidates, so the walk
/// filters them as a user would); `xxx_destroy`. The set keeps a pointer to
/// the scene, which must outlive it.
#ifndef IMPACT_BENCH_PEERS_BROAD_H
#define IMPACT_BENCH_PEERS_BROAD_H

#include "scene_broad.h"

#ifdef __cplusplus
extern "C" {
#endif

#ifdef HAVE_BOX2D
typedef struct b2bp_set b2bp_set;

/// "2.4.1".
const char *b2bp_version(void);
/// b2BroadPhase (a b2DynamicTree with its margin and displacement
/// prediction) and, as b2ContactManager keeps them, the pairs it reported:
/// each frame MoveProxy for every box, UpdatePairs adding the new pairs,
/// then every kept pair whose fat boxes no longer overlap is dropped and
/// the others are tested exactly. Boxes in float, rounded outwards.
b2bp_set *b2bp_create(const sb_scene *scene);
long b2bp_frame(b2bp_set *set);
void b2bp_destroy(b2bp_set *set);
#endif

#ifdef HAVE_CHIPMUNK
typedef struct cpbp_set cpbp_set;

typedef enum cpbp_method {
	CPBP_BBTREE = 0, ///< cpBBTreeNew (cpSpace's default), with a velocity function as cpSpace sets
	CPBP_SPACE_HASH, ///< cpSpaceHashNew (cpSpaceUseSpatialHash), cell = the mean side, 10 N cells
	CPBP_METHOD_COUNT
} cpbp_method;

/// "7.0.3".
const char *cpbp_version(void);
/// Each frame one cpSpatialIndexReindexQuery, which reinserts what moved
/// and calls back every pair of overlapping (enlarged) boxes once.
cpbp_set *cpbp_create(const sb_scene *scene, cpbp_method method);
long cpbp_frame(cpbp_set *set);
void cpbp_destroy(cpbp_set *set);
#endif

#ifdef HAVE_BULLET
typedef struct btbp_set btbp_set;

typedef enum btbp_method {
	BTBP_DBVT = 0, ///< btDbvtBroadphase, its default hashed pair cache
	BTBP_SAP,      ///< btAxisSweep3 (bt32BitAxisSweep3 above 16,000 boxes), no ray-cast accelerator
	BTBP_METHOD_COUNT
} btbp_method;

/// "3.24 double".
const char *btbp_version(void);
/// Each frame setAabb for every box, calculateOverlappingPairs, then a walk
/// of the pair cache's array.
btbp_set *btbp_create(const sb_scene *scene, btbp_method method);
long btbp_frame(btbp_set *set);
void btbp_destroy(btbp_set *set);
#endif

#ifdef HAVE_FCL
typedef struct fclbp_set fclbp_set;

typedef enum fclbp_method {
	FCLBP_DYNAMIC_TREE = 0, ///< DynamicAABBTreeCollisionManager
	FCLBP_SPATIAL_HASH,     ///< SpatialHashingCollisionManager, cell = twice the mean side, 10 N buckets
	FCLBP_METHOD_COUNT
} fclbp_method;

/// "0.7.0".
const char *fclbp_version(void);
/// fcl::Box collision objects, identity rotation. Each frame every
/// object's translation and computeAABB, the manager's update(), and
/// collide() with a callback that counts.
fclbp_set *fclbp_create(const sb_scene *scene, fclbp_method method);
long fclbp_frame(fclbp_set *set);
void fclbp_destroy(fclbp_set *set);
#endif

#ifdef __cplusplus
}
#endif

#endif
