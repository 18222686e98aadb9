// SPDX-License-Identifier: MIT
// Box2D 2.4 as a bench/broad peer: b2BroadPhase, used the way b2World uses
// it. b2BroadPhase only reports the pairs that may have begun (proxies
// whose fat box had to move in the tree, b2_aabbExtension = 0.1 around the
// box, extended by 4 times the displacement); b2ContactManager keeps the
// pairs it was given, in a list and on each body's edge list (AddPair looks
// a pair up on one body's edges), and drops each one whose fat boxes stop
// overlapping (Collide). This file does the same with a pair list and a
// partner list per box, and counts the kept pairs whose exact boxes overlap.
#include <box2d/b2_broad_phase.h>
#include <box2d/b2_collision.h>
#include <box2d/b2_common.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <new>
#include <vector>

#include "peers_broad.h"

namespace {

struct kept_pair {
	int a, b;
};

} // namespace

struct b2bp_set {
	const sb_scene *scene;
	b2BroadPhase broad;
	std::vector<int32> proxy;            // per box
	std::vector<b2Vec2> last;            // per box: the centre last given
	std::vector<kept_pair> pairs;
	std::vector<std::vector<int>> edges; // per box: the partners of its kept pairs

	/// Called by UpdatePairs for each pair of overlapping fat boxes of
	/// which one moved in the tree; the user data are box index + 1.
	void AddPair(void *user_a, void *user_b)
	{
		int a = (int)(intptr_t)user_a - 1, b = (int)(intptr_t)user_b - 1;
		if (a == b)
			return;
		for (int other : edges[(size_t)a])
			if (other == b)
				return;
		pairs.push_back(kept_pair{a, b});
		edges[(size_t)a].push_back(b);
		edges[(size_t)b].push_back(a);
	}
};

extern "C" const char *b2bp_version(void)
{
	static char text[32];
	std::snprintf(text, sizeof text, "%d.%d.%d", (int)b2_version.major, (int)b2_version.minor,
		      (int)b2_version.revision);
	return text;
}

/// The float box containing the double box i.
static b2AABB box_of(const sb_scene *s, int i)
{
	b2AABB box;
	float lx = (float)s->lo[3 * i], ly = (float)s->lo[3 * i + 1];
	float hx = (float)s->hi[3 * i], hy = (float)s->hi[3 * i + 1];
	if ((double)lx > s->lo[3 * i])
		lx = std::nextafter(lx, -INFINITY);
	if ((double)ly > s->lo[3 * i + 1])
		ly = std::nextafter(ly, -INFINITY);
	if ((double)hx < s->hi[3 * i])
		hx = std::nextafter(hx, INFINITY);
	if ((double)hy < s->hi[3 * i + 1])
		hy = std::nextafter(hy, INFINITY);
	box.lowerBound.Set(lx, ly);
	box.upperBound.Set(hx, hy);
	return box;
}

static b2Vec2 centre_of(const sb_scene *s, int i)
{
	return b2Vec2((float)s->center[3 * i], (float)s->center[3 * i + 1]);
}

extern "C" b2bp_set *b2bp_create(const sb_scene *scene)
{
	if (scene->dim != 2)
		return nullptr;
	b2bp_set *set = new (std::nothrow) b2bp_set;
	if (!set)
		return nullptr;
	try {
		size_t n = (size_t)scene->count;
		set->scene = scene;
		set->proxy.resize(n);
		set->last.resize(n);
		set->edges.resize(n);
		set->pairs.reserve(2 * n);
		for (int i = 0; i < scene->count; i++) {
			set->proxy[(size_t)i] = set->broad.CreateProxy(box_of(scene, i), (void *)(intptr_t)(i + 1));
			set->last[(size_t)i] = centre_of(scene, i);
		}
	} catch (...) {
		delete set;
		return nullptr;
	}
	return set;
}

extern "C" long b2bp_frame(b2bp_set *set)
{
	const sb_scene *s = set->scene;
	for (int i = 0; i < s->count; i++) {
		b2Vec2 c = centre_of(s, i);
		set->broad.MoveProxy(set->proxy[(size_t)i], box_of(s, i), c - set->last[(size_t)i]);
		set->last[(size_t)i] = c;
	}
	set->broad.UpdatePairs(set);
	long count = 0;
	for (size_t k = 0; k < set->pairs.size();) {
		kept_pair p = set->pairs[k];
		if (!set->broad.TestOverlap(set->proxy[(size_t)p.a], set->proxy[(size_t)p.b])) {
			for (int end = 0; end < 2; end++) {
				std::vector<int> &e = set->edges[(size_t)(end ? p.b : p.a)];
				int other = end ? p.a : p.b;
				for (size_t q = 0; q < e.size(); q++)
					if (e[q] == other) {
						e[q] = e.back();
						e.pop_back();
						break;
					}
			}
			set->pairs[k] = set->pairs.back();
			set->pairs.pop_back();
			continue;
		}
		count += sb_overlap(s, p.a, p.b);
		k++;
	}
	return count;
}

extern "C" void b2bp_destroy(b2bp_set *set)
{
	delete set;
}
