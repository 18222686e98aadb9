// SPDX-License-Identifier: MIT
// Bullet as a bench/mesh peer. A query is btCollisionWorld::contactPairTest
// on two collision objects, which is how Bullet answers one pair outside a
// simulation (PyBullet's getClosestPoints is this call with the callback's
// m_closestDistanceThreshold set to the distance asked for): the dispatcher
// finds the algorithm for the two shapes and runs it once.
//
// - mesh against convex: btBvhTriangleMeshShape, btConvexConcaveCollisionAlgorithm
//   (GJK and EPA per triangle near the convex shape's box, grown by the threshold);
// - mesh against mesh: btGImpactMeshShape, btGImpactCollisionAlgorithm (registered
//   here for contact and closest-point queries): it reports contacts of
//   touching triangles only, so no distances;
// - height field: btHeightfieldTerrainShape, a surface like a mesh's (its
//   local origin is the middle of its box: the model keeps the offset from
//   impact's frame);
// - compounds: btCompoundShape (btCompoundCollisionAlgorithm,
//   btCompoundCompoundCollisionAlgorithm).
#include <btBulletCollisionCommon.h>
#include <BulletCollision/CollisionShapes/btHeightfieldTerrainShape.h>
#include <BulletCollision/Gimpact/btGImpactCollisionAlgorithm.h>
#include <BulletCollision/Gimpact/btGImpactShape.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>
#include <new>
#include <vector>

#include "peers_mesh.h"

struct btm_model {
	mb_kind kind;
	btm_variant variant;
	// What the shapes point into: declared first, freed last.
	std::vector<btScalar> vertices;
	std::vector<int> indices;
	std::vector<double> heights;
	std::unique_ptr<btTriangleIndexVertexArray> mesh;
	std::vector<std::unique_ptr<btCollisionShape>> children;
	std::unique_ptr<btCollisionShape> shape;
	btTransform offset; // impact's model frame to Bullet's shape frame
};

struct btm_set {
	btDefaultCollisionConfiguration config;
	btCollisionDispatcher dispatcher;
	btDbvtBroadphase broadphase;
	btCollisionWorld world;
	btGImpactCollisionAlgorithm::CreateFunc gimpact_create;
	btCollisionObject object_a, object_b;
	int count;
	double cutoff;
	std::vector<const btm_model *> a, b;
	btAlignedObjectArray<btTransform> pa, pb;

	btm_set() : dispatcher(&config), world(&dispatcher, &broadphase, &config)
	{
		btGImpactCollisionAlgorithm::registerAlgorithm(&dispatcher);
		for (int i = 0; i < MAX_BROADPHASE_COLLISION_TYPES; i++) {
			dispatcher.registerClosestPointsCreateFunc(GIMPACT_SHAPE_PROXYTYPE, i, &gimpact_create);
			dispatcher.registerClosestPointsCreateFunc(i, GIMPACT_SHAPE_PROXYTYPE, &gimpact_create);
		}
	}
};

extern "C" const char *btm_version(void)
{
	static char text[16];
	std::snprintf(text, sizeof text, "%d.%02d", btGetVersion() / 100, btGetVersion() % 100);
	return text;
}

extern "C" const char *btm_precision(void)
{
	return sizeof(btScalar) == sizeof(double) ? "double" : "float";
}

static btTransform make_pose(const imp_pose3 &p)
{
	return btTransform(btQuaternion(btScalar(p.q.x), btScalar(p.q.y), btScalar(p.q.z), btScalar(p.q.w)),
			   btVector3(btScalar(p.p.x), btScalar(p.p.y), btScalar(p.p.z)));
}

static btCollisionShape *make_convex(const mb_geom *g)
{
	btConvexInternalShape *s;
	switch (g->kind) {
	case MB_BOX:
		s = new btBoxShape(btVector3(btScalar(g->half.x), btScalar(g->half.y), btScalar(g->half.z)));
		break;
	case MB_SPHERE:
		return new btSphereShape(btScalar(g->radius));
	case MB_CAPSULE:
		// Height: the distance between the centres of the end spheres.
		return new btCapsuleShapeZ(btScalar(g->radius), btScalar(2.0 * g->half_length));
	case MB_CONVEX: {
		btConvexHullShape *hull = new btConvexHullShape();
		for (int i = 0; i < g->vertex_count; i++)
			hull->addPoint(btVector3(btScalar(g->vertices[i].x), btScalar(g->vertices[i].y),
						 btScalar(g->vertices[i].z)),
				       false);
		hull->recalcLocalAabb();
		s = hull;
		break;
	}
	default:
		return nullptr;
	}
	// btBoxShape keeps its outer size when the margin changes.
	s->setMargin(0);
	return s;
}

static btCollisionShape *make_mesh(const mb_geom *g, btm_variant variant, btm_model *m)
{
	m->vertices.reserve(3 * (size_t)g->vertex_count);
	for (int i = 0; i < g->vertex_count; i++) {
		m->vertices.push_back(btScalar(g->vertices[i].x));
		m->vertices.push_back(btScalar(g->vertices[i].y));
		m->vertices.push_back(btScalar(g->vertices[i].z));
	}
	m->indices.assign(g->triangles, g->triangles + 3 * (size_t)g->triangle_count);
	m->mesh.reset(new btTriangleIndexVertexArray(g->triangle_count, m->indices.data(), 3 * (int)sizeof(int),
						     g->vertex_count, m->vertices.data(),
						     3 * (int)sizeof(btScalar)));
	if (variant == BTM_GIMPACT) {
		btGImpactMeshShape *s = new btGImpactMeshShape(m->mesh.get());
		s->setMargin(0);
		s->updateBound();
		return s;
	}
	btBvhTriangleMeshShape *s = new btBvhTriangleMeshShape(m->mesh.get(), true, true);
	s->setMargin(0);
	return s;
}

static btCollisionShape *make_heightfield(const mb_geom *g, btm_model *m)
{
	size_t n = (size_t)g->rows * (size_t)g->cols;
	m->heights.assign(g->heights, g->heights + n);
	double lo = *std::min_element(m->heights.begin(), m->heights.end());
	double hi = *std::max_element(m->heights.begin(), m->heights.end());
	// flipQuadEdges: Bullet splits a cell along the other diagonal by
	// default (its distances then differed from impact's and FCL's by up to
	// 1.6e-3 on the smoke terrain; 2e-16 flipped).
	btHeightfieldTerrainShape *s = new btHeightfieldTerrainShape(g->cols, g->rows, m->heights.data(), btScalar(lo),
								     btScalar(hi), 2, true);
	s->setLocalScaling(btVector3(btScalar(g->dx), btScalar(g->dy), 1));
	s->setMargin(0);
	m->offset.setIdentity();
	m->offset.setOrigin(btVector3(btScalar(0.5 * (g->cols - 1) * g->dx), btScalar(0.5 * (g->rows - 1) * g->dy),
				      btScalar(0.5 * (lo + hi))));
	return s;
}

static btCollisionShape *make_compound(const mb_geom *g, btm_model *m)
{
	btCompoundShape *s = new btCompoundShape(true, g->child_count);
	for (int i = 0; i < g->child_count; i++) {
		btCollisionShape *c = make_convex(&g->children[i]);
		if (!c) {
			delete s;
			return nullptr;
		}
		m->children.emplace_back(c);
		s->addChildShape(make_pose(g->child_poses[i]), c);
	}
	return s;
}

extern "C" btm_model *btm_build(const mb_geom *g, btm_variant variant)
{
	btm_model *m = new (std::nothrow) btm_model;
	if (!m)
		return nullptr;
	m->kind = g->kind;
	m->variant = variant;
	m->offset.setIdentity();
	try {
		switch (g->kind) {
		case MB_MESH:
			m->shape.reset(make_mesh(g, variant, m));
			break;
		case MB_HEIGHTFIELD:
			m->shape.reset(make_heightfield(g, m));
			break;
		case MB_COMPOUND:
			m->shape.reset(make_compound(g, m));
			break;
		default:
			m->shape.reset(make_convex(g));
			break;
		}
	} catch (...) {
		m->shape.reset();
	}
	if (!m->shape) {
		delete m;
		return nullptr;
	}
	return m;
}

extern "C" void btm_model_free(btm_model *m)
{
	delete m;
}

extern "C" bool btm_has_distance(const btm_model *a, const btm_model *b)
{
	return !(a->kind == MB_MESH && a->variant == BTM_GIMPACT) && !(b->kind == MB_MESH && b->variant == BTM_GIMPACT);
}

extern "C" btm_set *btm_prepare(btm_model *const *models, const mb_query *q, int count, double cutoff)
{
	btm_set *set = new (std::nothrow) btm_set;
	if (!set)
		return nullptr;
	try {
		set->count = count;
		set->cutoff = cutoff;
		for (int i = 0; i < count; i++) {
			const btm_model *ma = models[q[i].a], *mb = models[q[i].b];
			if (!ma || !mb) {
				delete set;
				return nullptr;
			}
			set->a.push_back(ma);
			set->b.push_back(mb);
			set->pa.push_back(make_pose(q[i].pa) * ma->offset);
			set->pb.push_back(make_pose(q[i].pb) * mb->offset);
		}
	} catch (...) {
		delete set;
		return nullptr;
	}
	return set;
}

extern "C" void btm_set_free(btm_set *set)
{
	delete set;
}

/// The least distance of the contact points contactPairTest reports.
struct least_distance : btCollisionWorld::ContactResultCallback {
	double least = INFINITY;

	btScalar addSingleResult(btManifoldPoint &cp, const btCollisionObjectWrapper *, int, int,
				 const btCollisionObjectWrapper *, int, int) override
	{
		least = std::min(least, double(cp.getDistance()));
		return 0;
	}
};

/// Level 2: NaN when no contact point came within the cutoff.
extern "C" double btm_query(btm_set *set, int level, int i)
{
	set->object_a.setCollisionShape(const_cast<btCollisionShape *>(set->a[(size_t)i]->shape.get()));
	set->object_b.setCollisionShape(const_cast<btCollisionShape *>(set->b[(size_t)i]->shape.get()));
	set->object_a.setWorldTransform(set->pa[i]);
	set->object_b.setWorldTransform(set->pb[i]);
	least_distance cb;
	cb.m_closestDistanceThreshold = btScalar(level == 1 ? 0.0 : set->cutoff);
	set->world.contactPairTest(&set->object_a, &set->object_b, cb);
	if (level == 1)
		return cb.least <= 0.0 ? 1.0 : 0.0;
	if (std::isinf(cb.least))
		return NAN;
	return cb.least > 0.0 ? cb.least : 0.0;
}
