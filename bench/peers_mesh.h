// SPDX-License-Identifier: MIT
/// @file peers_mesh.h
/// What bench/mesh compares impact's non-convex queries with: FCL 0.7
/// (peer_mesh_fcl.cpp, HAVE_FCL) and Bullet 3 (peer_mesh_bullet.cpp,
/// HAVE_BULLET). The program describes every model once as an mb_geom (the
/// same arrays impact's shapes were made from); each peer builds its own
/// model from it, and then runs a cell's queries (pairs of models at pairs
/// of poses) in its own loop, one library call per query, no state carried
/// from one query to the next.
///
/// Per peer: `xxx_build(geom, variant)` (NULL when out of memory or the
/// geometry is not one the variant takes), `xxx_model_free` (NULL is
/// ignored); `xxx_prepare(models, queries, count, ...)` turning the queries'
/// poses into the library's transforms once; `xxx_query(set, level, i)`
/// the answer of query i: level 1, 1 (overlap) or 0; level 2, the distance
/// (0 when overlapping; NaN when the method gives none).
#ifndef IMPACT_BENCH_PEERS_MESH_H
#define IMPACT_BENCH_PEERS_MESH_H

#include <stdbool.h>
#include <stdint.h>

#include <impact/impact.h>

#ifdef __cplusplus
extern "C" {
#endif

/// What a model is.
typedef enum mb_kind {
	MB_MESH = 0,    ///< triangles (vertices, triangles)
	MB_HEIGHTFIELD, ///< heights (rows x cols, spacing dx, dy; impact's layout), solid down to base_z
	MB_COMPOUND,    ///< convex children at poses
	MB_BOX,         ///< half sizes `half`
	MB_SPHERE,      ///< `radius`
	MB_CAPSULE,     ///< `radius`, core segment from z = -half_length to +half_length
	MB_CONVEX,      ///< the hull of `vertices`, whose faces are `triangles` (fans of impact's hull faces)
} mb_kind;

/// A model, in arrays the program owns.
typedef struct mb_geom mb_geom;
struct mb_geom {
	mb_kind kind;
	const imp_vec3 *vertices; ///< MB_MESH, MB_CONVEX
	int vertex_count;
	const int32_t *triangles; ///< three vertex indices a triangle
	int triangle_count;
	const double *heights; ///< MB_HEIGHTFIELD: heights[r * cols + c] at (c dx, r dy)
	int rows, cols;
	double dx, dy, base_z;
	imp_vec3 half;            ///< MB_BOX
	double radius;            ///< MB_SPHERE, MB_CAPSULE
	double half_length;       ///< MB_CAPSULE
	const mb_geom *children;  ///< MB_COMPOUND: convex children
	const imp_pose3 *child_poses;
	int child_count;
};

/// One query: model a at pose pa against model b at pose pb.
typedef struct mb_query {
	int a, b;
	imp_pose3 pa, pb;
} mb_query;

#ifdef HAVE_FCL
typedef struct fclm_model fclm_model;
typedef struct fclm_set fclm_set;

/// How FCL holds a mesh or a height field.
typedef enum fclm_variant {
	FCLM_OBBRSS = 0, ///< fcl::BVHModel<fcl::OBBRSSd>
	FCLM_AABB,       ///< fcl::BVHModel<fcl::AABBd>
	FCLM_VARIANT_COUNT
} fclm_variant;

/// "0.7.0".
const char *fclm_version(void);
/// A mesh as a BVHModel of the variant's volume; a height field as the
/// BVHModel of its surface triangles (FCL 0.7 has no height field), split
/// along the same diagonals; a compound as its children, each an FCL
/// shape with its pose (FCL has no compound: the queries loop over pairs
/// of children); fcl::Box, Sphere, Capsule, Convex for the convex kinds
/// (the variant does not matter for those).
fclm_model *fclm_build(const mb_geom *geom, fclm_variant variant);
void fclm_model_free(fclm_model *model);
/// The queries over models[query.a], models[query.b]. Mesh or height
/// field against a convex shape or mesh: fcl::collide (CollisionRequest
/// defaults: one contact, no contact data) and fcl::distance
/// (DistanceRequest defaults: no nearest points, libccd GJK), the mesh as
/// the first object. A compound on either side: FCL's objects of the
/// children, their AABBs, and collide / distance on the pairs whose AABBs
/// pass (overlap: any; distance: below the least so far).
fclm_set *fclm_prepare(fclm_model *const *models, const mb_query *queries, int count);
void fclm_set_free(fclm_set *set);
double fclm_query(fclm_set *set, int level, int i);
/// Whether fcl::distance answers for these two models: FCL 0.7 has no
/// distance between a BVHModel<AABBd> and a shape (it prints a warning and
/// returns the largest double).
bool fclm_has_distance(const fclm_model *a, const fclm_model *b);
#endif

#ifdef HAVE_BULLET
typedef struct btm_model btm_model;
typedef struct btm_set btm_set;

/// How Bullet holds a mesh.
typedef enum btm_variant {
	BTM_BVH = 0, ///< btBvhTriangleMeshShape (quantized BVH): against convex shapes
	BTM_GIMPACT, ///< btGImpactMeshShape: against another mesh (btGImpactCollisionAlgorithm)
	BTM_VARIANT_COUNT
} btm_variant;

/// "3.24", and "double" or "float" (btScalar).
const char *btm_version(void);
const char *btm_precision(void);
/// A mesh as the variant says (vertices in btScalar, indices int, in
/// arrays the model owns); a height field as btHeightfieldTerrainShape
/// (heights in btScalar, z up, diagonals as impact's); a compound as
/// btCompoundShape; btBoxShape, btSphereShape, btCapsuleShapeZ,
/// btConvexHullShape. Margins 0 but for spheres and capsules, whose radius
/// is their margin in Bullet.
btm_model *btm_build(const mb_geom *geom, btm_variant variant);
void btm_model_free(btm_model *model);
/// The queries through btCollisionWorld::contactPairTest, which is what
/// Bullet's users call for one pair (PyBullet's getClosestPoints): level 1
/// with the callback's m_closestDistanceThreshold 0, overlapping when a
/// contact point has distance <= 0; level 2 with the threshold
/// `distance_cutoff`, the least distance of the contact points (0 when
/// negative; NaN when no point: farther than the cutoff). Mesh against
/// mesh (GImpact) gives contacts only where triangles touch: no distance.
btm_set *btm_prepare(btm_model *const *models, const mb_query *queries, int count, double distance_cutoff);
void btm_set_free(btm_set *set);
double btm_query(btm_set *set, int level, int i);
/// Whether level 2 gives distances for these models (not GImpact pairs).
bool btm_has_distance(const btm_model *a, const btm_model *b);
#endif

#ifdef __cplusplus
}
#endif

#endif
