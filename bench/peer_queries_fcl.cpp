// SPDX-License-Identifier: MIT
// FCL 0.7 as bench/queries' peer: the static bodies in a
// DynamicAABBTreeCollisionManager, queried with a CollisionObject per query
// shape, the way FCL answers "does this shape touch anything", "what is
// nearest to it" and "what does it touch".
//
// The manager only walks its tree; each leaf it reaches goes to our callback,
// which runs the narrow phase (fcl::collide or fcl::distance on the pair, with
// FCL's default libccd solver). For the nearest body the callback hands the
// running minimum back to the manager, which descends only into nodes whose
// AABB is nearer than it. FCL's distance without enable_signed_distance
// reports an overlapping pair as -1, except capsule-capsule (closed form),
// which gives its negated depth; either way, once a pair overlaps no AABB is
// nearer and the walk ends, so an overlapping query reports the first
// overlapping body reached, not the deepest.
//
// The manager calls back (its own object, the query) in that order, so the
// callbacks read the body's index from the first object's user data.
#include <fcl/broadphase/broadphase_dynamic_AABB_tree.h>
#include <fcl/config.h>
#include <fcl/geometry/shape/box.h>
#include <fcl/geometry/shape/capsule.h>
#include <fcl/geometry/shape/sphere.h>
#include <fcl/narrowphase/collision.h>
#include <fcl/narrowphase/collision_object.h>
#include <fcl/narrowphase/distance.h>

#include <cmath>
#include <cstdint>
#include <memory>
#include <new>
#include <vector>

#include "peer_queries_fcl.h"

typedef fcl::CollisionObject<double> object;
typedef std::vector<std::unique_ptr<object>> object_list;

struct pqf_world {
	object_list bodies;
	object_list queries; // from pqf_prepare_queries
	std::unique_ptr<fcl::DynamicAABBTreeCollisionManager<double>> manager;
};

extern "C" const char *pqf_version(void)
{
	return "fcl " FCL_VERSION;
}

namespace {

std::shared_ptr<fcl::CollisionGeometry<double>> make_geometry(const pqf_shape *s)
{
	switch (s->kind) {
	case 0:
		return std::make_shared<fcl::Box<double>>(2.0 * s->half[0], 2.0 * s->half[1], 2.0 * s->half[2]);
	case 1:
		return std::make_shared<fcl::Sphere<double>>(s->radius);
	case 2: // FCL's capsule lies along its local z too
		return std::make_shared<fcl::Capsule<double>>(s->radius, 2.0 * s->half[2]);
	default:
		return nullptr;
	}
}

/// The object at the shape's pose with its world AABB computed (the
/// constructor taking a transform runs computeAABB), as the manager reads
/// only that AABB when walking the tree. Null for an unknown kind; throws
/// std::bad_alloc as the caller's try expects.
std::unique_ptr<object> make_object(const pqf_shape *s, intptr_t index)
{
	std::shared_ptr<fcl::CollisionGeometry<double>> geometry = make_geometry(s);
	if (!geometry)
		return nullptr;
	fcl::Transform3<double> tf = fcl::Transform3<double>::Identity();
	// Eigen's quaternion takes w first.
	tf.linear() = fcl::Quaternion<double>(s->quat[3], s->quat[0], s->quat[1], s->quat[2]).toRotationMatrix();
	tf.translation() = fcl::Vector3<double>(s->pos[0], s->pos[1], s->pos[2]);
	std::unique_ptr<object> o(new object(geometry, tf));
	o->setUserData((void *)index);
	return o;
}

int body_index(const object *body)
{
	return (int)(intptr_t)body->getUserData();
}

struct overlap_data {
	fcl::CollisionRequest<double> request; // 1 contact, no contact data: a yes or no
	int count;
	bool stop_at_first;
};

bool overlap_pair(object *body, object *query, void *user)
{
	overlap_data *d = static_cast<overlap_data *>(user);
	fcl::CollisionResult<double> result;
	if (fcl::collide(body, query, d->request, result) == 0)
		return false;
	d->count++;
	return d->stop_at_first;
}

struct nearest_data {
	fcl::DistanceRequest<double> request; // distance only: no nearest points, unsigned
	double best;
	int index;
};

bool nearest_pair(object *body, object *query, void *user, double &dist)
{
	nearest_data *d = static_cast<nearest_data *>(user);
	// A fresh result each pair: DistanceResult keeps the minimum of all it saw.
	fcl::DistanceResult<double> result;
	fcl::distance(body, query, d->request, result);
	if (result.min_distance < d->best) {
		d->best = result.min_distance;
		d->index = body_index(body);
	}
	dist = d->best; // the manager prunes subtrees whose AABB is no nearer
	return false;
}

// The C boundary for both ways of querying: no query (an unknown kind, out
// of memory, an index out of range) or FCL throwing gives -1 or NaN.

int overlaps(pqf_world *w, object *query, bool stop_at_first) noexcept
{
	if (!query)
		return -1;
	overlap_data d = {fcl::CollisionRequest<double>(1, false), 0, stop_at_first};
	try {
		w->manager->collide(query, &d, overlap_pair);
	} catch (...) {
		return -1;
	}
	return d.count;
}

double nearest(pqf_world *w, object *query, int *index) noexcept
{
	*index = -1;
	if (!query)
		return NAN;
	nearest_data d = {fcl::DistanceRequest<double>(false), INFINITY, -1};
	try {
		w->manager->distance(query, &d, nearest_pair);
	} catch (...) {
		return NAN;
	}
	*index = d.index;
	return d.best;
}

std::unique_ptr<object> make_query(const pqf_shape *s) noexcept
{
	try {
		return make_object(s, -1);
	} catch (...) {
		return nullptr;
	}
}

object *prepared(pqf_world *w, int query)
{
	return query >= 0 && (size_t)query < w->queries.size() ? w->queries[(size_t)query].get() : nullptr;
}

} // namespace

extern "C" pqf_world *pqf_create(const pqf_shape *bodies, int count)
{
	pqf_world *w = new (std::nothrow) pqf_world;
	if (!w)
		return nullptr;
	try {
		std::vector<object *> all;
		all.reserve((size_t)count);
		w->bodies.reserve((size_t)count);
		for (int i = 0; i < count; i++) {
			w->bodies.push_back(make_object(&bodies[i], i));
			if (!w->bodies.back()) {
				pqf_destroy(w);
				return nullptr;
			}
			all.push_back(w->bodies.back().get());
		}
		w->manager.reset(new fcl::DynamicAABBTreeCollisionManager<double>());
		w->manager->registerObjects(all);
		w->manager->setup();
	} catch (...) {
		pqf_destroy(w);
		return nullptr;
	}
	return w;
}

extern "C" void pqf_destroy(pqf_world *w)
{
	if (!w)
		return;
	w->manager.reset(); // before the objects its tree points to
	delete w;
}

// The query object lives to the end of each return's expression.

extern "C" bool pqf_any_overlap(pqf_world *w, const pqf_shape *query)
{
	return overlaps(w, make_query(query).get(), true) > 0;
}

extern "C" double pqf_nearest(pqf_world *w, const pqf_shape *query, int *index)
{
	return nearest(w, make_query(query).get(), index);
}

extern "C" int pqf_overlap_count(pqf_world *w, const pqf_shape *query)
{
	return overlaps(w, make_query(query).get(), false);
}

extern "C" bool pqf_prepare_queries(pqf_world *w, const pqf_shape *queries, int count)
{
	try {
		// Built aside, so that a failure keeps the queries prepared before.
		object_list made;
		made.reserve((size_t)count);
		for (int i = 0; i < count; i++) {
			made.push_back(make_object(&queries[i], -1));
			if (!made.back())
				return false;
		}
		w->queries.swap(made);
		return true;
	} catch (...) {
		return false;
	}
}

extern "C" bool pqf_any_overlap_prepared(pqf_world *w, int query)
{
	return overlaps(w, prepared(w, query), true) > 0;
}

extern "C" double pqf_nearest_prepared(pqf_world *w, int query, int *index)
{
	return nearest(w, prepared(w, query), index);
}

extern "C" int pqf_overlap_count_prepared(pqf_world *w, int query)
{
	return overlaps(w, prepared(w, query), false);
}
