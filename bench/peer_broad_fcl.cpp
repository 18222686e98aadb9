// SPDX-License-Identifier: MIT
// FCL 0.7 as a bench/broad peer: two of its broad-phase managers over
// fcl::Box collision objects with identity rotations (their AABB is then
// exactly centre -+ half side, as the scene's).
//
// Each frame: every object's setTranslation and computeAABB, then the
// manager's update() (all objects moved): the dynamic AABB tree refits its
// nodes and rebalances (incrementally, or top down when too unbalanced);
// the spatial hash empties its table and hashes every object again. Then
// collide(data, callback): the tree calls back each pair of overlapping
// boxes once; the hash calls back each pair of objects sharing a hashed
// cell once, so the callback tests the boxes exactly (for both, the same
// test) and counts.
#include <fcl/broadphase/broadphase_dynamic_AABB_tree.h>
#include <fcl/broadphase/broadphase_spatialhash.h>
#include <fcl/config.h>
#include <fcl/geometry/shape/box.h>
#include <fcl/narrowphase/collision_object.h>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <new>
#include <vector>

#include "peers_broad.h"

typedef fcl::CollisionObject<double> object;

struct fclbp_set {
	const sb_scene *scene;
	std::vector<std::unique_ptr<object>> objects;
	std::unique_ptr<fcl::BroadPhaseCollisionManager<double>> manager;
};

extern "C" const char *fclbp_version(void)
{
	return FCL_VERSION;
}

namespace {

struct count_data {
	const sb_scene *scene;
	long count;
};

bool count_pair(object *a, object *b, void *user)
{
	count_data *d = static_cast<count_data *>(user);
	d->count += sb_overlap(d->scene, (int)(intptr_t)a->getUserData(), (int)(intptr_t)b->getUserData());
	return false; // never stop
}

} // namespace

extern "C" fclbp_set *fclbp_create(const sb_scene *scene, fclbp_method method)
{
	if (scene->dim != 3)
		return nullptr;
	fclbp_set *set = new (std::nothrow) fclbp_set;
	if (!set)
		return nullptr;
	set->scene = scene;
	try {
		if (method == FCLBP_DYNAMIC_TREE) {
			set->manager.reset(new fcl::DynamicAABBTreeCollisionManager<double>());
		} else {
			// The scene's box, padded: objects leaving it would go to
			// the manager's slow list of outsiders.
			fcl::Vector3<double> lo(scene->world_lo[0], scene->world_lo[1], scene->world_lo[2]);
			fcl::Vector3<double> hi(scene->world_hi[0], scene->world_hi[1], scene->world_hi[2]);
			fcl::Vector3<double> pad = (hi - lo) * 0.01 + fcl::Vector3<double>::Ones();
			// Cells of twice the mean side and 10 N buckets: the fastest
			// of cells 0.5 to 4 times the mean side and tables of N or
			// 10 N, tried on the 3D scenes of 10,000 boxes.
			unsigned buckets = (unsigned)(10 * std::max(1000, scene->count));
			double cell = 2.0 * scene->mean_side;
			set->manager.reset(
				new fcl::SpatialHashingCollisionManager<double>(cell, lo - pad, hi + pad, buckets));
		}
		std::vector<object *> all;
		all.reserve((size_t)scene->count);
		set->objects.reserve((size_t)scene->count);
		for (int i = 0; i < scene->count; i++) {
			const double *h = scene->half + 3 * i, *c = scene->center + 3 * i;
			auto box = std::make_shared<fcl::Box<double>>(2.0 * h[0], 2.0 * h[1], 2.0 * h[2]);
			set->objects.emplace_back(new object(box));
			object *o = set->objects.back().get();
			o->setTranslation(fcl::Vector3<double>(c[0], c[1], c[2]));
			o->computeAABB();
			o->setUserData((void *)(intptr_t)i);
			all.push_back(o);
		}
		set->manager->registerObjects(all);
		set->manager->setup();
	} catch (...) {
		delete set;
		return nullptr;
	}
	return set;
}

extern "C" long fclbp_frame(fclbp_set *set)
{
	const sb_scene *s = set->scene;
	for (int i = 0; i < s->count; i++) {
		const double *c = s->center + 3 * i;
		object *o = set->objects[(size_t)i].get();
		o->setTranslation(fcl::Vector3<double>(c[0], c[1], c[2]));
		o->computeAABB();
	}
	set->manager->update();
	count_data d = {s, 0};
	set->manager->collide(&d, count_pair);
	return d.count;
}

extern "C" void fclbp_destroy(fclbp_set *set)
{
	if (!set)
		return;
	set->manager.reset(); // before the objects it points to
	delete set;
}
