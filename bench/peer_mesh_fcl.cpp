// SPDX-License-Identifier: MIT
// FCL 0.7 as a bench/mesh peer: fcl::BVHModel<OBBRSSd> and <AABBd> for
// meshes (and for height fields, which FCL 0.7 does not have: the surface's
// triangles), called through fcl::collide and fcl::distance as FCL's users
// call them. FCL has no compound: a compound is its children as FCL
// objects, and a query loops over the pairs of children whose AABBs pass,
// the broad-phase-free way of using FCL.
//
// For an AABB hierarchy FCL copies the model and moves its vertices to the
// world frame at every query (BVHShapeCollider, BVHCollide: only oriented
// volumes are queried in place): O(n) a query, which is what FCL's users get.
//
// Conventions: fcl::distance gives -1 for shapes that overlap (and 0 for
// intersecting triangles): every answer <= 0 is an overlap, distance 0.
// A BVHModel is always the first object, as FCL's dispatch tables want.
#include <fcl/config.h>
#include <fcl/geometry/bvh/BVH_model.h>
#include <fcl/geometry/shape/box.h>
#include <fcl/geometry/shape/capsule.h>
#include <fcl/geometry/shape/convex.h>
#include <fcl/geometry/shape/sphere.h>
#include <fcl/math/bv/AABB.h>
#include <fcl/math/bv/OBBRSS.h>
#include <fcl/narrowphase/collision.h>
#include <fcl/narrowphase/collision_object.h>
#include <fcl/narrowphase/distance.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <new>
#include <vector>

#include "peers_mesh.h"

typedef fcl::Transform3<double> transform;
typedef std::vector<transform, Eigen::aligned_allocator<transform>> transform_list;
typedef std::shared_ptr<fcl::CollisionGeometry<double>> geometry_ptr;

struct fclm_model {
	geometry_ptr geom;                 // a mesh, height field or convex shape; NULL for a compound
	std::vector<geometry_ptr> children; // a compound's children
	transform_list child_poses;
};

/// One side of a query: FCL objects for a model's children (one object for
/// a model that is not a compound), moved to each query's pose.
struct side_objects {
	std::vector<std::unique_ptr<fcl::CollisionObject<double>>> objects;
};

struct fclm_set {
	int count;
	std::vector<const fclm_model *> a, b; // per query
	transform_list pa, pb;
	// Per model index: the children's objects on side a and side b.
	std::vector<side_objects> side_a, side_b;
	std::vector<int> ia, ib;
};

extern "C" const char *fclm_version(void)
{
	return FCL_VERSION;
}

static transform make_pose(const imp_pose3 &p)
{
	transform t = transform::Identity();
	t.linear() = fcl::Quaternion<double>(p.q.w, p.q.x, p.q.y, p.q.z).toRotationMatrix();
	t.translation() = fcl::Vector3<double>(p.p.x, p.p.y, p.p.z);
	return t;
}

template <class BV>
static geometry_ptr make_bvh(const std::vector<fcl::Vector3<double>> &points, const std::vector<fcl::Triangle> &tris)
{
	auto model = std::make_shared<fcl::BVHModel<BV>>();
	if (model->beginModel((int)tris.size(), (int)points.size()) != fcl::BVH_OK ||
	    model->addSubModel(points, tris) != fcl::BVH_OK || model->endModel() != fcl::BVH_OK)
		return nullptr;
	return model;
}

/// The triangles of a mesh, or of a height field's surface (split along
/// the diagonal from (c, r) to (c + 1, r + 1), as impact's).
static void surface_of(const mb_geom *g, std::vector<fcl::Vector3<double>> *points, std::vector<fcl::Triangle> *tris)
{
	if (g->kind == MB_MESH) {
		points->reserve((size_t)g->vertex_count);
		for (int i = 0; i < g->vertex_count; i++)
			points->emplace_back(g->vertices[i].x, g->vertices[i].y, g->vertices[i].z);
		tris->reserve((size_t)g->triangle_count);
		for (int t = 0; t < g->triangle_count; t++)
			tris->emplace_back(g->triangles[3 * t], g->triangles[3 * t + 1], g->triangles[3 * t + 2]);
		return;
	}
	points->reserve((size_t)g->rows * (size_t)g->cols);
	for (int r = 0; r < g->rows; r++)
		for (int c = 0; c < g->cols; c++)
			points->emplace_back(c * g->dx, r * g->dy, g->heights[(size_t)r * (size_t)g->cols + (size_t)c]);
	tris->reserve(2 * (size_t)(g->rows - 1) * (size_t)(g->cols - 1));
	for (int r = 0; r + 1 < g->rows; r++) {
		for (int c = 0; c + 1 < g->cols; c++) {
			size_t v00 = (size_t)r * (size_t)g->cols + (size_t)c, v01 = v00 + 1;
			size_t v11 = v01 + (size_t)g->cols, v10 = v00 + (size_t)g->cols;
			tris->emplace_back(v00, v01, v11);
			tris->emplace_back(v00, v11, v10);
		}
	}
}

static geometry_ptr make_convex(const mb_geom *g)
{
	switch (g->kind) {
	case MB_BOX:
		return std::make_shared<fcl::Box<double>>(2.0 * g->half.x, 2.0 * g->half.y, 2.0 * g->half.z);
	case MB_SPHERE:
		return std::make_shared<fcl::Sphere<double>>(g->radius);
	case MB_CAPSULE:
		return std::make_shared<fcl::Capsule<double>>(g->radius, 2.0 * g->half_length);
	case MB_CONVEX: {
		auto vertices = std::make_shared<std::vector<fcl::Vector3<double>>>();
		auto faces = std::make_shared<std::vector<int>>();
		for (int i = 0; i < g->vertex_count; i++)
			vertices->emplace_back(g->vertices[i].x, g->vertices[i].y, g->vertices[i].z);
		for (int t = 0; t < g->triangle_count; t++) {
			faces->push_back(3);
			for (int k = 0; k < 3; k++)
				faces->push_back(g->triangles[3 * t + k]);
		}
		return std::make_shared<fcl::Convex<double>>(vertices, g->triangle_count, faces);
	}
	default:
		return nullptr;
	}
}

extern "C" fclm_model *fclm_build(const mb_geom *g, fclm_variant variant)
{
	fclm_model *m = new (std::nothrow) fclm_model;
	if (!m)
		return nullptr;
	try {
		if (g->kind == MB_MESH || g->kind == MB_HEIGHTFIELD) {
			std::vector<fcl::Vector3<double>> points;
			std::vector<fcl::Triangle> tris;
			surface_of(g, &points, &tris);
			m->geom = variant == FCLM_AABB ? make_bvh<fcl::AABB<double>>(points, tris)
						       : make_bvh<fcl::OBBRSS<double>>(points, tris);
		} else if (g->kind == MB_COMPOUND) {
			for (int i = 0; i < g->child_count; i++) {
				m->children.push_back(make_convex(&g->children[i]));
				m->child_poses.push_back(make_pose(g->child_poses[i]));
				if (!m->children.back()) {
					delete m;
					return nullptr;
				}
			}
			return m;
		} else {
			m->geom = make_convex(g);
		}
	} catch (...) {
		m->geom = nullptr;
	}
	if (!m->geom) {
		delete m;
		return nullptr;
	}
	return m;
}

extern "C" void fclm_model_free(fclm_model *m)
{
	delete m;
}

static bool is_bvh(const fcl::CollisionGeometry<double> *g)
{
	return g->getObjectType() == fcl::OT_BVH;
}

static void make_side(const fclm_model *m, side_objects *s)
{
	if (m->geom) {
		s->objects.emplace_back(new fcl::CollisionObject<double>(m->geom));
		return;
	}
	for (const geometry_ptr &c : m->children)
		s->objects.emplace_back(new fcl::CollisionObject<double>(c));
}

extern "C" bool fclm_has_distance(const fclm_model *a, const fclm_model *b)
{
	// FCL 0.7 has no distance between a BVHModel<AABB> and a shape.
	bool bvh_a = a->geom && is_bvh(a->geom.get()), bvh_b = b->geom && is_bvh(b->geom.get());
	bool aabb_a = bvh_a && a->geom->getNodeType() == fcl::BV_AABB;
	bool aabb_b = bvh_b && b->geom->getNodeType() == fcl::BV_AABB;
	return !((aabb_a && !bvh_b) || (aabb_b && !bvh_a));
}

extern "C" fclm_set *fclm_prepare(fclm_model *const *models, const mb_query *q, int count)
{
	fclm_set *set = new (std::nothrow) fclm_set;
	if (!set)
		return nullptr;
	try {
		set->count = count;
		int nmodels = 0;
		for (int i = 0; i < count; i++)
			nmodels = std::max(nmodels, std::max(q[i].a, q[i].b) + 1);
		set->side_a.resize((size_t)nmodels);
		set->side_b.resize((size_t)nmodels);
		for (int i = 0; i < count; i++) {
			const fclm_model *ma = models[q[i].a], *mb = models[q[i].b];
			if (!ma || !mb) {
				delete set;
				return nullptr;
			}
			set->a.push_back(ma);
			set->b.push_back(mb);
			set->ia.push_back(q[i].a);
			set->ib.push_back(q[i].b);
			set->pa.push_back(make_pose(q[i].pa));
			set->pb.push_back(make_pose(q[i].pb));
			if (set->side_a[(size_t)q[i].a].objects.empty())
				make_side(ma, &set->side_a[(size_t)q[i].a]);
			if (set->side_b[(size_t)q[i].b].objects.empty())
				make_side(mb, &set->side_b[(size_t)q[i].b]);
		}
	} catch (...) {
		delete set;
		return nullptr;
	}
	return set;
}

extern "C" void fclm_set_free(fclm_set *set)
{
	delete set;
}

/// One pair of FCL geometries: overlap (level 1) or distance (level 2,
/// 0 when overlapping); the BVHModel first.
static double pair_query(int level, const fcl::CollisionGeometry<double> *ga, const transform &ta,
			 const fcl::CollisionGeometry<double> *gb, const transform &tb)
{
	if (!is_bvh(ga) && is_bvh(gb))
		return pair_query(level, gb, tb, ga, ta);
	if (level == 1) {
		fcl::CollisionRequest<double> request;
		fcl::CollisionResult<double> result;
		return fcl::collide(ga, ta, gb, tb, request, result) > 0 ? 1.0 : 0.0;
	}
	fcl::DistanceRequest<double> request;
	fcl::DistanceResult<double> result;
	double d = fcl::distance(ga, ta, gb, tb, request, result);
	return d > 0.0 ? d : 0.0;
}

/// Moves a side's objects to the pose of the model (composed with each
/// child's pose) and updates their AABBs.
static void place(const fclm_model *m, side_objects *s, const transform &pose)
{
	if (m->geom) {
		s->objects[0]->setTransform(pose);
		s->objects[0]->computeAABB();
		return;
	}
	for (size_t k = 0; k < s->objects.size(); k++) {
		s->objects[k]->setTransform(pose * m->child_poses[k]);
		s->objects[k]->computeAABB();
	}
}

/// A query with a compound side: every pair of objects whose AABBs pass.
static double children_query(int level, side_objects *sa, side_objects *sb)
{
	double best = std::numeric_limits<double>::infinity();
	for (const auto &oa : sa->objects) {
		for (const auto &ob : sb->objects) {
			const fcl::AABB<double> &ba = oa->getAABB(), &bb = ob->getAABB();
			if (level == 1 ? !ba.overlap(bb) : ba.distance(bb) >= best)
				continue;
			double r = pair_query(level, oa->collisionGeometry().get(), oa->getTransform(),
					      ob->collisionGeometry().get(), ob->getTransform());
			if (level == 1 && r > 0.0)
				return 1.0;
			if (level == 2 && r < best) {
				best = r;
				if (best <= 0.0)
					return 0.0;
			}
		}
	}
	return level == 1 ? 0.0 : best;
}

extern "C" double fclm_query(fclm_set *set, int level, int i)
{
	const fclm_model *ma = set->a[(size_t)i], *mb = set->b[(size_t)i];
	if (ma->geom && mb->geom)
		return pair_query(level, ma->geom.get(), set->pa[(size_t)i], mb->geom.get(), set->pb[(size_t)i]);
	side_objects *sa = &set->side_a[(size_t)set->ia[(size_t)i]], *sb = &set->side_b[(size_t)set->ib[(size_t)i]];
	place(ma, sa, set->pa[(size_t)i]);
	place(mb, sb, set->pb[(size_t)i]);
	return children_query(level, sa, sb);
}
