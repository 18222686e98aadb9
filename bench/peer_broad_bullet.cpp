// SPDX-License-Identifier: MIT
// Bullet as a bench/broad peer: btDbvtBroadphase (two dynamic trees, fat
// boxes with a margin and velocity prediction, pairs kept in a hashed pair
// cache and cleaned incrementally) and btAxisSweep3 (incremental sort and
// sweep on quantised end points, pairs added and removed as end points
// cross). Each frame is what btCollisionWorld::performDiscreteCollisionDetection
// does before the narrow phase: setAabb for every moved object (every one
// here), calculateOverlappingPairs, then the dispatcher's walk over the
// pair array; here the walk counts the pairs whose exact boxes overlap
// (the cache may hold pairs of fat or quantised boxes only).
//
// No dispatcher is given: there are no collision algorithms to free when a
// pair is removed. btAxisSweep3's ray-cast accelerator (a second, Dbvt
// broad phase fed with every proxy) is turned off: no rays are cast here.
#include <btBulletCollisionCommon.h>

#include <cstdint>
#include <cstdio>
#include <new>
#include <vector>

#include "peers_broad.h"

/// btAxisSweep3's handles are 16-bit: at most 32767, and Bullet's own
/// default is 16384.
static const int k_sweep16_max = 16000;

struct btbp_set {
	const sb_scene *scene;
	btbp_method method;
	btBroadphaseInterface *broad;
	std::vector<btBroadphaseProxy *> proxy;
};

extern "C" const char *btbp_version(void)
{
	static char text[32];
	std::snprintf(text, sizeof text, "%d.%02d %s", btGetVersion() / 100, btGetVersion() % 100,
		      sizeof(btScalar) == sizeof(double) ? "double" : "float");
	return text;
}

static btVector3 lo_of(const sb_scene *s, int i)
{
	return btVector3((btScalar)s->lo[3 * i], (btScalar)s->lo[3 * i + 1], (btScalar)s->lo[3 * i + 2]);
}

static btVector3 hi_of(const sb_scene *s, int i)
{
	return btVector3((btScalar)s->hi[3 * i], (btScalar)s->hi[3 * i + 1], (btScalar)s->hi[3 * i + 2]);
}

extern "C" btbp_set *btbp_create(const sb_scene *scene, btbp_method method)
{
	// A float btScalar would round the boxes (not outwards): compared
	// counts would differ by near-touching pairs. Debian's double build
	// is what bench/meson.build looks for first.
	if (scene->dim != 3 || sizeof(btScalar) != sizeof(double))
		return nullptr;
	btbp_set *set = new (std::nothrow) btbp_set;
	if (!set)
		return nullptr;
	set->scene = scene;
	set->method = method;
	set->broad = nullptr;
	try {
		if (method == BTBP_DBVT) {
			set->broad = new btDbvtBroadphase();
		} else {
			// The world's box, padded by a tenth of its size: AxisSweep3
			// quantises within it and clamps what leaves it.
			btVector3 lo((btScalar)scene->world_lo[0], (btScalar)scene->world_lo[1],
				     (btScalar)scene->world_lo[2]);
			btVector3 hi((btScalar)scene->world_hi[0], (btScalar)scene->world_hi[1],
				     (btScalar)scene->world_hi[2]);
			btVector3 pad = (hi - lo) * btScalar(0.1) + btVector3(1, 1, 1);
			if (scene->count <= k_sweep16_max)
				set->broad = new btAxisSweep3(lo - pad, hi + pad, (unsigned short)(scene->count + 1),
							      nullptr, true);
			else
				set->broad = new bt32BitAxisSweep3(lo - pad, hi + pad, (unsigned)(scene->count + 1),
								   nullptr, true);
		}
		set->proxy.resize((size_t)scene->count);
		for (int i = 0; i < scene->count; i++)
			set->proxy[(size_t)i] =
				set->broad->createProxy(lo_of(scene, i), hi_of(scene, i), BOX_SHAPE_PROXYTYPE,
							(void *)(intptr_t)i, int(btBroadphaseProxy::DefaultFilter),
							int(btBroadphaseProxy::AllFilter), nullptr);
	} catch (...) {
		btbp_destroy(set);
		return nullptr;
	}
	return set;
}

extern "C" long btbp_frame(btbp_set *set)
{
	const sb_scene *s = set->scene;
	for (int i = 0; i < s->count; i++)
		set->broad->setAabb(set->proxy[(size_t)i], lo_of(s, i), hi_of(s, i), nullptr);
	set->broad->calculateOverlappingPairs(nullptr);
	btBroadphasePairArray &pairs = set->broad->getOverlappingPairCache()->getOverlappingPairArray();
	long count = 0;
	for (int k = 0; k < pairs.size(); k++) {
		int a = (int)(intptr_t)pairs[k].m_pProxy0->m_clientObject;
		int b = (int)(intptr_t)pairs[k].m_pProxy1->m_clientObject;
		count += sb_overlap(s, a, b);
	}
	return count;
}

namespace {

/// Asks the pair cache to remove every pair.
struct remove_all : btOverlapCallback {
	bool processOverlap(btBroadphasePair &) override
	{
		return true;
	}
};

} // namespace

extern "C" void btbp_destroy(btbp_set *set)
{
	if (!set)
		return;
	if (set->broad) {
		// btDbvtBroadphase allocates each proxy; btAxisSweep3's handles
		// live in its own array, freed with it (removing them one by one
		// would cost O(N) each).
		if (set->method == BTBP_DBVT) {
			// destroyProxy scans the whole pair cache for the proxy's
			// pairs: empty it first (removing each pair by hash).
			remove_all everything;
			set->broad->getOverlappingPairCache()->processAllOverlappingPairs(&everything, nullptr);
			for (btBroadphaseProxy *p : set->proxy)
				if (p)
					set->broad->destroyProxy(p, nullptr);
		}
		delete set->broad;
	}
	delete set;
}
