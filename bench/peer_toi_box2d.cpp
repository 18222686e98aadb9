// SPDX-License-Identifier: MIT
// Box2D 2.4 as bench/toi's peer: b2TimeOfImpact on the pairs of a scene,
// proxies set from each shape's core vertices and radius (b2_polygonRadius
// for polygons, as b2PolygonShape has; the disc's radius for discs), sweeps
// with localCenter 0 so that the body turns about its origin as impact's
// motions do, tMax 1.
#include <box2d/b2_common.h>
#include <box2d/b2_distance.h>
#include <box2d/b2_settings.h>
#include <box2d/b2_time_of_impact.h>

#include <new>

#include "peer_toi_box2d.h"

struct b2t_set {
	int shape_count;
	int pair_count;
	b2Vec2 *vertices;       // every shape's vertices, b2_maxPolygonVertices a shape
	b2DistanceProxy *proxies;
	int *pair_shapes;       // a's then b's shape of each pair
	b2Sweep *sweeps;        // a's then b's sweep of each pair
};

extern "C" double b2t_linear_slop(void)
{
	return b2_linearSlop;
}

extern "C" double b2t_polygon_radius(void)
{
	return b2_polygonRadius;
}

extern "C" int b2t_max_vertices(void)
{
	return b2_maxPolygonVertices;
}

static b2Sweep to_b2(const b2t_sweep &s)
{
	b2Sweep w;
	w.localCenter.SetZero();
	w.c0.Set((float)s.c0.x, (float)s.c0.y);
	w.c.Set((float)s.c.x, (float)s.c.y);
	w.a0 = (float)s.a0;
	w.a = (float)s.a;
	w.alpha0 = 0.0f;
	return w;
}

extern "C" b2t_set *b2t_create(const b2t_shape *shapes, int shape_count, const b2t_pair *pairs, int pair_count)
{
	for (int i = 0; i < shape_count; i++)
		if (shapes[i].count < 1 || shapes[i].count > b2_maxPolygonVertices)
			return nullptr;
	b2t_set *set = new (std::nothrow) b2t_set();
	if (!set)
		return nullptr;
	set->shape_count = shape_count;
	set->pair_count = pair_count;
	set->vertices = new (std::nothrow) b2Vec2[(size_t)shape_count * b2_maxPolygonVertices + 1];
	set->proxies = new (std::nothrow) b2DistanceProxy[(size_t)shape_count + 1];
	set->pair_shapes = new (std::nothrow) int[(size_t)pair_count * 2 + 1];
	set->sweeps = new (std::nothrow) b2Sweep[(size_t)pair_count * 2 + 1];
	if (!set->vertices || !set->proxies || !set->pair_shapes || !set->sweeps) {
		b2t_destroy(set);
		return nullptr;
	}
	for (int i = 0; i < shape_count; i++) {
		b2Vec2 *v = set->vertices + (size_t)i * b2_maxPolygonVertices;
		for (int k = 0; k < shapes[i].count; k++)
			v[k].Set((float)shapes[i].vertices[k].x, (float)shapes[i].vertices[k].y);
		set->proxies[i].Set(v, shapes[i].count, (float)shapes[i].radius);
	}
	for (int i = 0; i < pair_count; i++) {
		set->pair_shapes[2 * i] = pairs[i].shape_a;
		set->pair_shapes[2 * i + 1] = pairs[i].shape_b;
		set->sweeps[2 * i] = to_b2(pairs[i].sweep_a);
		set->sweeps[2 * i + 1] = to_b2(pairs[i].sweep_b);
	}
	return set;
}

extern "C" void b2t_destroy(b2t_set *set)
{
	if (!set)
		return;
	delete[] set->vertices;
	delete[] set->proxies;
	delete[] set->pair_shapes;
	delete[] set->sweeps;
	delete set;
}

extern "C" void b2t_run(const b2t_set *set, int *state, float *t)
{
	b2TOIInput input;
	input.tMax = 1.0f;
	for (int i = 0; i < set->pair_count; i++) {
		input.proxyA = set->proxies[set->pair_shapes[2 * i]];
		input.proxyB = set->proxies[set->pair_shapes[2 * i + 1]];
		input.sweepA = set->sweeps[2 * i];
		input.sweepB = set->sweeps[2 * i + 1];
		b2TOIOutput output;
		b2TimeOfImpact(&output, &input);
		state[i] = (int)output.state;
		t[i] = output.t;
	}
}
