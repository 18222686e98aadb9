// SPDX-License-Identifier: MIT
// Bullet as a narrow3d peer: btGjkPairDetector with a btVoronoiSimplexSolver
// and a btGjkEpaPenetrationDepthSolver, as Bullet's convex-convex algorithm
// uses them, for the signed distance, a witness point on each shape and the
// normal. Built against bullet-float64 when found (btScalar double), else
// against the float build: bt3_precision says which.
//
// Shapes: btConvexHullShape (polytopes), btBoxShape, btCapsuleShapeZ, and an
// ellipsoid shape written here, since Bullet has none (btMultiSphereShape
// with a non-uniform scaling is not an ellipsoid): its support is the
// ellipsoid's exact support point. Margins are 0, so that every shape is the
// data set's and not grown by Bullet's default margin of 0.04; a capsule
// keeps its radius as its margin, which is how Bullet defines it.
#include <btBulletCollisionCommon.h>
#include <BulletCollision/NarrowPhaseCollision/btGjkEpaPenetrationDepthSolver.h>
#include <BulletCollision/NarrowPhaseCollision/btGjkPairDetector.h>
#include <BulletCollision/NarrowPhaseCollision/btPointCollector.h>
#include <BulletCollision/NarrowPhaseCollision/btVoronoiSimplexSolver.h>

#include <cmath>
#include <cstdio>
#include <memory>
#include <new>
#include <vector>

#include "peers3.h"

/// The ellipsoid sum (x_i / a_i)^2 <= 1: support point A^2 d / |A d|.
ATTRIBUTE_ALIGNED16(class) bt3_ellipsoid : public btConvexInternalShape
{
	btVector3 m_axes;

public:
	BT_DECLARE_ALIGNED_ALLOCATOR();

	explicit bt3_ellipsoid(const btVector3 &axes) : m_axes(axes)
	{
		m_shapeType = CUSTOM_CONVEX_SHAPE_TYPE;
		setMargin(0);
	}

	btVector3 localGetSupportingVertexWithoutMargin(const btVector3 &d) const override
	{
		btVector3 q = m_axes * m_axes * d;
		btScalar g = btSqrt(q.dot(d));
		return g > btScalar(0) ? q / g : btVector3(0, 0, 0);
	}

	void batchedUnitVectorGetSupportingVertexWithoutMargin(const btVector3 *vectors, btVector3 *out,
							       int count) const override
	{
		for (int i = 0; i < count; i++)
			out[i] = localGetSupportingVertexWithoutMargin(vectors[i]);
	}

	void calculateLocalInertia(btScalar, btVector3 &inertia) const override
	{
		inertia.setZero();
	}

	const char *getName() const override
	{
		return "bt3_ellipsoid";
	}
};

typedef btAlignedObjectArray<btTransform> transform_list;

struct bt3_set {
	int count;
	std::vector<std::unique_ptr<btConvexShape>> shapes; // a then b of each pair
	transform_list poses;
};

extern "C" const char *bt3_method_name(bt3_method method)
{
	return method == BT3_GJK_EPA ? "Bullet btGjkPairDetector + EPA" : "?";
}

extern "C" const char *bt3_version(void)
{
	static char text[16];
	std::snprintf(text, sizeof text, "%d.%02d", btGetVersion() / 100, btGetVersion() % 100);
	return text;
}

extern "C" const char *bt3_precision(void)
{
	return sizeof(btScalar) == sizeof(double) ? "double" : "float";
}

static std::unique_ptr<btConvexShape> make_shape(const ds3_shape *s)
{
	std::unique_ptr<btConvexShape> shape;
	switch (s->kind) {
	case DS3_POLYTOPE: {
		btConvexHullShape *hull = new btConvexHullShape();
		for (int i = 0; i < s->vertex_count; i++)
			hull->addPoint(btVector3(btScalar(s->vertices[i].x), btScalar(s->vertices[i].y),
						 btScalar(s->vertices[i].z)),
				       false);
		hull->recalcLocalAabb();
		shape.reset(hull);
		break;
	}
	case DS3_BOX:
		shape.reset(new btBoxShape(btVector3(btScalar(s->size.x), btScalar(s->size.y), btScalar(s->size.z))));
		break;
	case DS3_CAPSULE:
		// Height: the distance between the centres of the end spheres.
		return std::unique_ptr<btConvexShape>(
			new btCapsuleShapeZ(btScalar(s->radius), btScalar(2.0 * s->half_length)));
	case DS3_ELLIPSOID:
		shape.reset(
			new bt3_ellipsoid(btVector3(btScalar(s->size.x), btScalar(s->size.y), btScalar(s->size.z))));
		break;
	default:
		return nullptr;
	}
	// btBoxShape keeps its outer size when the margin changes.
	shape->setMargin(0);
	return shape;
}

static btTransform make_pose(imp_pose3 p)
{
	return btTransform(btQuaternion(btScalar(p.q.x), btScalar(p.q.y), btScalar(p.q.z), btScalar(p.q.w)),
			   btVector3(btScalar(p.p.x), btScalar(p.p.y), btScalar(p.p.z)));
}

extern "C" bt3_set *bt3_create(const ds3_cell *cell)
{
	bt3_set *set = new (std::nothrow) bt3_set;
	if (!set)
		return nullptr;
	try {
		set->count = cell->count;
		set->shapes.reserve((size_t)cell->count * 2);
		for (int i = 0; i < cell->count; i++) {
			const ds3_pair *p = &cell->pairs[i];
			set->shapes.push_back(make_shape(p->a));
			set->shapes.push_back(make_shape(p->b));
			if (!set->shapes[2 * i] || !set->shapes[2 * i + 1]) {
				delete set;
				return nullptr;
			}
			set->poses.push_back(make_pose(p->pa));
			set->poses.push_back(make_pose(p->pb));
		}
	} catch (...) {
		delete set;
		return nullptr;
	}
	return set;
}

extern "C" void bt3_destroy(bt3_set *set)
{
	delete set;
}

/// One query with a fresh detector (no separating axis kept from the last
/// pair), the way btConvexConvexAlgorithm makes one per call.
static void closest_points(const bt3_set *set, int i, btVoronoiSimplexSolver *simplex,
			   btGjkEpaPenetrationDepthSolver *epa, btPointCollector *out)
{
	btGjkPairDetector detector(set->shapes[2 * i].get(), set->shapes[2 * i + 1].get(), simplex, epa);
	btGjkPairDetector::ClosestPointInput input;
	input.m_transformA = set->poses[2 * i];
	input.m_transformB = set->poses[2 * i + 1];
	detector.getClosestPoints(input, *out, nullptr);
}

extern "C" double bt3_loop(const bt3_set *set, bt3_method method, int count)
{
	if (method != BT3_GJK_EPA)
		return 0.0;
	btVoronoiSimplexSolver simplex;
	btGjkEpaPenetrationDepthSolver epa;
	double sum = 0.0;
	for (int i = 0; i < count; i++) {
		btPointCollector out;
		closest_points(set, i, &simplex, &epa, &out);
		if (out.m_hasResult)
			sum += double(out.m_distance);
	}
	return sum;
}

extern "C" void bt3_one(const bt3_set *set, bt3_method method, int i, peer3_answer *out)
{
	out->distance = NAN;
	out->point_a = out->point_b = out->normal = imp_vec3_make(NAN, NAN, NAN);
	out->overlap = false;
	out->status = -1;
	if (method != BT3_GJK_EPA)
		return;
	btVoronoiSimplexSolver simplex;
	btGjkEpaPenetrationDepthSolver epa;
	btPointCollector r;
	closest_points(set, i, &simplex, &epa, &r);
	out->status = r.m_hasResult;
	if (!r.m_hasResult)
		return;
	// Bullet's normal points from b to a, its point is on b, and the point
	// on a is that point plus the signed distance along the normal.
	double d = double(r.m_distance);
	imp_vec3 n = imp_vec3_make(r.m_normalOnBInWorld.x(), r.m_normalOnBInWorld.y(), r.m_normalOnBInWorld.z());
	out->distance = d;
	out->overlap = d <= 0.0;
	out->point_b = imp_vec3_make(r.m_pointInWorld.x(), r.m_pointInWorld.y(), r.m_pointInWorld.z());
	out->point_a = imp_vec3_add(out->point_b, imp_vec3_scale(d, n));
	out->normal = imp_vec3_neg(n);
}
