// SPDX-License-Identifier: MIT
// Box2D 2.4 as a narrow2d peer: b2Distance on the data set's polygons in
// float, used the way Box2D's own b2TestOverlap uses it (proxies set from the
// vertices with radius 0, a fresh simplex cache, useRadii false).
#include <box2d/b2_distance.h>
#include <box2d/b2_common.h>
#include <box2d/b2_settings.h>

#include <cstdio>
#include <cstdlib>
#include <new>

#include "peers.h"

struct b2p_set {
	int count;
	int vertices;
	b2Vec2 *pool;        // a's then b's local vertices of each pair
	b2Transform *poses;  // a's then b's pose of each pair
};

extern "C" const char *b2p_version(void)
{
	static char text[32];
	std::snprintf(text, sizeof text, "%d.%d.%d", (int)b2_version.major, (int)b2_version.minor,
		      (int)b2_version.revision);
	return text;
}

static b2Transform to_b2(imp_pose2 t)
{
	b2Transform x;
	x.p.Set((float)t.p.x, (float)t.p.y);
	x.q.s = (float)t.q.s;
	x.q.c = (float)t.q.c;
	return x;
}

extern "C" b2p_set *b2p_create(const ds_cell *cell)
{
	b2p_set *set = new (std::nothrow) b2p_set;
	if (!set)
		return nullptr;
	set->count = cell->count;
	set->vertices = cell->vertices;
	set->pool = new (std::nothrow) b2Vec2[(size_t)cell->count * 2 * (size_t)cell->vertices];
	set->poses = new (std::nothrow) b2Transform[(size_t)cell->count * 2];
	if (!set->pool || !set->poses) {
		b2p_destroy(set);
		return nullptr;
	}
	for (int i = 0; i < cell->count; i++) {
		const ds_pair *p = &cell->pairs[i];
		b2Vec2 *a = set->pool + (size_t)(2 * i) * (size_t)cell->vertices;
		b2Vec2 *b = a + cell->vertices;
		for (int k = 0; k < cell->vertices; k++) {
			a[k].Set((float)p->va[k].x, (float)p->va[k].y);
			b[k].Set((float)p->vb[k].x, (float)p->vb[k].y);
		}
		set->poses[2 * i] = to_b2(p->pa);
		set->poses[2 * i + 1] = to_b2(p->pb);
	}
	return set;
}

extern "C" void b2p_destroy(b2p_set *set)
{
	if (!set)
		return;
	delete[] set->pool;
	delete[] set->poses;
	delete set;
}

static inline b2DistanceOutput distance_of(const b2p_set *set, int i)
{
	const b2Vec2 *a = set->pool + (size_t)(2 * i) * (size_t)set->vertices;
	b2DistanceInput input;
	input.proxyA.Set(a, set->vertices, 0.0f);
	input.proxyB.Set(a + set->vertices, set->vertices, 0.0f);
	input.transformA = set->poses[2 * i];
	input.transformB = set->poses[2 * i + 1];
	input.useRadii = false;
	b2SimplexCache cache;
	cache.count = 0;
	b2DistanceOutput output;
	b2Distance(&output, &cache, &input);
	return output;
}

extern "C" double b2p_distance_loop(const b2p_set *set, int count)
{
	double sum = 0.0;
	for (int i = 0; i < count; i++)
		sum += distance_of(set, i).distance;
	return sum;
}

extern "C" int b2p_overlap_loop(const b2p_set *set, int count)
{
	int n = 0;
	for (int i = 0; i < count; i++)
		n += distance_of(set, i).distance < 10.0f * b2_epsilon;
	return n;
}

extern "C" double b2p_distance_one(const b2p_set *set, int i, int *iterations, imp_vec2 *wa, imp_vec2 *wb)
{
	b2DistanceOutput out = distance_of(set, i);
	if (iterations)
		*iterations = out.iterations;
	if (wa)
		*wa = imp_vec2_make(out.pointA.x, out.pointA.y);
	if (wb)
		*wb = imp_vec2_make(out.pointB.x, out.pointB.y);
	return out.distance;
}

extern "C" bool b2p_overlap_one(const b2p_set *set, int i)
{
	return distance_of(set, i).distance < 10.0f * b2_epsilon;
}
