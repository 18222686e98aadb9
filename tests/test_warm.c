// SPDX-License-Identifier: MIT
// Warm and cold answers (issue 20, defect 15): collision.h promises that a
// query given a simplex cache answers as one without, within stated
// tolerances. Random pairs of every shape kind, 2D and 3D, separated and
// overlapping, are queried cold (no cache) and warm, with a cache left by
// the same pair at a nearby previous pose, as a simulator's step leaves it;
// Levels 1, 2 and 3 are compared:
//   - Level 1 (overlap): equal, except within the distance tolerance of
//     touching;
//   - separated distances (Levels 2 and 3): within WARM_DISTANCE_TOL of the
//     scene's size;
//   - penetration depths: within WARM_DEPTH_TOL of the scene (curved cores
//     start their penetration from the cold simplex: before, a warm one led
//     the depth descent to another stop, 3.3e-6 of the scene away).
#include <float.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <impact/impact.h>

/// The tolerances collision.h states, relative to the scene's size (the
/// largest coordinate of the two shapes' bounding boxes).
#define WARM_DISTANCE_TOL 1e-9
#define WARM_DEPTH_TOL 1e-9

typedef struct rng {
	uint64_t s;
} rng;

static double uniform(rng *r)
{
	r->s ^= r->s >> 12;
	r->s ^= r->s << 25;
	r->s ^= r->s >> 27;
	return (double)((r->s * 0x2545F4914F6CDD1DULL) >> 11) * (1.0 / 9007199254740992.0);
}

static double between(rng *r, double lo, double hi)
{
	double u = uniform(r);
	return lo + (hi - lo) * u;
}

static int below(rng *r, int n)
{
	int k = (int)(uniform(r) * n);
	return k < n ? k : n - 1;
}

/// The worst differences seen, over the scene's size, for the report.
typedef struct worst {
	double level2, separated, depth_curved, depth_poly;
	int pairs, overlapping, curved_overlapping, failures;
} worst;

static void fail_pair(worst *w, const char *what, int i, double cold, double warm, double scene)
{
	if (w->failures++ < 12)
		print_message("%s, pair %d: cold %.17g, warm %.17g (scene %.3g)\n", what, i, cold, warm, scene);
}

// ---------------------------------------------------------------------------
// 2D.

static imp_shape *shape2(rng *r, bool *curved)
{
	imp_shape *s = NULL;
	int kind = below(r, 6);
	double rad = uniform(r) < 0.5 ? 0.0 : between(r, 0.05, 0.5);
	double w = between(r, 0.2, 1.5);
	double h = between(r, 0.2, 1.5);
	*curved = false;
	switch (kind) {
	case 0:
		imp_shape_circle(imp_vec2_make(0.0, 0.0), w, &s);
		break;
	case 1:
		imp_shape_capsule2(imp_vec2_make(-w, 0.0), imp_vec2_make(w, 0.0), h * 0.5, &s);
		break;
	case 2:
		imp_shape_box2(w, h, rad, &s);
		break;
	case 3: {
		imp_vec2 p[24];
		int n = 3 + below(r, 20);
		for (int i = 0; i < n; ++i) {
			double a = between(r, 0.0, 6.283185307179586);
			double l = between(r, 0.3, 1.0);
			p[i] = imp_vec2_make(w * l * cos(a), h * l * sin(a));
		}
		imp_shape_polygon(p, n, rad, &s);
		break;
	}
	case 4:
		imp_shape_segment2(imp_vec2_make(-w, -h), imp_vec2_make(w, h), &s);
		break;
	default: {
		imp_vec2 p[3] = {{-w, -h}, {w, -h}, {0.0, h}};
		imp_shape_polygon(p, 3, rad, &s);
		break;
	}
	}
	return s;
}

static imp_pose2 pose2(rng *r, double reach)
{
	imp_pose2 p;
	p.p.x = between(r, -reach, reach);
	p.p.y = between(r, -reach, reach);
	p.q = imp_rot2_make(between(r, -3.14159, 3.14159));
	return p;
}

/// The pose moved a little: a step of a simulation.
static imp_pose2 nudge2(rng *r, imp_pose2 p, double step)
{
	imp_pose2 m = p;
	m.p.x += between(r, -step, step);
	m.p.y += between(r, -step, step);
	double a = atan2(p.q.s, p.q.c) + between(r, -step, step);
	m.q = imp_rot2_make(a);
	return m;
}

static void test_warm2(void **state)
{
	(void)state;
	rng r = {0x6A09E667F3BCC908ULL};
	worst w = {0};
	for (int i = 0; i < 12000; ++i) {
		bool ca, cb;
		imp_shape *a = shape2(&r, &ca), *b = shape2(&r, &cb);
		assert_non_null(a);
		assert_non_null(b);
		imp_pose2 pa = pose2(&r, 1.0), pb = pose2(&r, 2.5);
		int how = below(&r, 4);
		double step = how == 0 ? 0.0 : how == 1 ? 1e-3 : how == 2 ? 5e-2 : 0.5;
		imp_pose2 pa0 = nudge2(&r, pa, step), pb0 = nudge2(&r, pb, step);
		imp_aabb2 ba, bb;
		imp_shape_aabb2(a, pa, &ba);
		imp_shape_aabb2(b, pb, &bb);
		double scene = 0.0;
		imp_vec2 corners[4] = {ba.lo, ba.hi, bb.lo, bb.hi};
		for (int k = 0; k < 4; ++k)
			scene = fmax(scene, fmax(fabs(corners[k].x), fabs(corners[k].y)));
		for (int level = 1; level <= 3; ++level) {
			imp_simplex_cache cache = {0};
			imp_closest2_result prev;
			// The cache as the previous step leaves it.
			if (level == 1)
				imp_overlap2(a, pa0, b, pb0, &cache);
			else if (level == 2)
				imp_distance2(a, pa0, b, pb0, &cache);
			else
				imp_closest2(a, pa0, b, pb0, &cache, &prev);
			if (level == 1) {
				bool cold = imp_overlap2(a, pa, b, pb, NULL), warm = imp_overlap2(a, pa, b, pb, &cache);
				double d = imp_distance2(a, pa, b, pb, NULL);
				if (cold != warm && d > WARM_DISTANCE_TOL * scene)
					fail_pair(&w, "2D overlap", i, cold, warm, scene);
			} else if (level == 2) {
				double cold = imp_distance2(a, pa, b, pb, NULL), warm = imp_distance2(a, pa, b, pb, &cache);
				double e = fabs(cold - warm) / scene;
				w.level2 = fmax(w.level2, e);
				if (!(e <= WARM_DISTANCE_TOL))
					fail_pair(&w, "2D distance", i, cold, warm, scene);
			} else {
				imp_closest2_result cold, warm;
				assert_int_equal(imp_closest2(a, pa, b, pb, NULL, &cold), IMP_OK);
				assert_int_equal(imp_closest2(a, pa, b, pb, &cache, &warm), IMP_OK);
				double e = fabs(cold.distance - warm.distance) / scene;
				bool over = cold.distance < 0.0 || warm.distance < 0.0;
				double tol = WARM_DISTANCE_TOL;
				if (over) {
					++w.overlapping;
					w.depth_poly = fmax(w.depth_poly, e);
				} else {
					w.separated = fmax(w.separated, e);
				}
				if (!(e <= tol))
					fail_pair(&w, over ? "2D depth" : "2D separated distance", i, cold.distance,
						  warm.distance, scene);
			}
		}
		++w.pairs;
		imp_shape_destroy(a);
		imp_shape_destroy(b);
	}
	print_message("2D: %d pairs (%d overlapping); warm - cold over the scene: distance %.3g, separated %.3g, "
		      "depth %.3g\n",
		      w.pairs, w.overlapping, w.level2, w.separated, w.depth_poly);
	assert_int_equal(w.failures, 0);
}

// ---------------------------------------------------------------------------
// 3D.

static imp_quat quat(rng *r)
{
	double x = between(r, -1.0, 1.0);
	double y = between(r, -1.0, 1.0);
	double z = between(r, -1.0, 1.0);
	double s = between(r, -1.0, 1.0);
	double l = sqrt(x * x + y * y + z * z + s * s);
	return imp_quat_make(x / l, y / l, z / l, s / l);
}

static imp_shape *shape3(rng *r, bool *curved)
{
	imp_shape *s = NULL;
	int kind = below(r, 8);
	double rad = uniform(r) < 0.5 ? 0.0 : between(r, 0.05, 0.4);
	double e0 = between(r, 0.2, 1.5);
	double e1 = between(r, 0.2, 1.5);
	double e2 = between(r, 0.2, 1.5);
	if (uniform(r) < 0.25)
		e2 *= 0.05; // flat
	if (uniform(r) < 0.15)
		e1 *= 0.05; // a needle, with the above
	*curved = kind >= 4 && kind <= 6;
	switch (kind) {
	case 0:
		*curved = true; // a sphere's core is a point: its depth is in closed form, but curved for C
		imp_shape_sphere(imp_vec3_make(0.0, 0.0, 0.0), e0, &s);
		break;
	case 1:
		imp_shape_capsule3(imp_vec3_make(-e0, 0.0, 0.0), imp_vec3_make(e0, 0.0, 0.0), e1 * 0.5, &s);
		*curved = true;
		break;
	case 2:
		imp_shape_box3(e0, e1, e2, rad, &s);
		break;
	case 3: {
		imp_vec3 p[24];
		int n = 4 + below(r, 20);
		for (int i = 0; i < n; ++i) {
			double x = between(r, -1.0, 1.0);
			double y = between(r, -1.0, 1.0);
			double z = between(r, -1.0, 1.0);
			p[i] = imp_vec3_make(e0 * x, e1 * y, e2 * z);
		}
		imp_shape_polytope(p, n, rad, &s);
		break;
	}
	case 4:
		imp_shape_cylinder(e0, e1, rad, &s);
		break;
	case 5:
		imp_shape_cone(e0, e1, rad, &s);
		break;
	case 6:
		imp_shape_ellipsoid(e0, e1, e2, rad, &s);
		break;
	default: {
		imp_vec3 p[4] = {{e0, 0.0, 0.0}, {0.0, e1, 0.0}, {0.0, 0.0, e2}, {-e0, -e1, -e2}};
		imp_shape_polytope(p, 4, rad, &s);
		break;
	}
	}
	return s;
}

static imp_pose3 pose3(rng *r, double reach)
{
	imp_pose3 p;
	p.p.x = between(r, -reach, reach);
	p.p.y = between(r, -reach, reach);
	p.p.z = between(r, -reach, reach);
	p.q = quat(r);
	return p;
}

static imp_pose3 nudge3(rng *r, imp_pose3 p, double step)
{
	imp_pose3 m = p;
	m.p.x += between(r, -step, step);
	m.p.y += between(r, -step, step);
	m.p.z += between(r, -step, step);
	imp_vec3 axis = imp_vec3_make(between(r, -1.0, 1.0), between(r, -1.0, 1.0), between(r, -1.0, 1.0));
	double l = sqrt(axis.x * axis.x + axis.y * axis.y + axis.z * axis.z);
	if (l > 0.0) {
		imp_quat t = imp_quat_from_axis_angle(imp_vec3_scale(1.0 / l, axis), between(r, -step, step));
		m.q = imp_quat_mul(t, p.q);
		double n = sqrt(m.q.x * m.q.x + m.q.y * m.q.y + m.q.z * m.q.z + m.q.w * m.q.w);
		m.q = imp_quat_make(m.q.x / n, m.q.y / n, m.q.z / n, m.q.w / n);
	}
	return m;
}

static void test_warm3(void **state)
{
	(void)state;
	rng r = {0xBB67AE8584CAA73BULL};
	worst w = {0};
	for (int i = 0; i < 20000; ++i) {
		bool ca, cb;
		imp_shape *a = shape3(&r, &ca), *b = shape3(&r, &cb);
		assert_non_null(a);
		assert_non_null(b);
		imp_pose3 pa = pose3(&r, 1.0), pb = pose3(&r, 2.5);
		int how = below(&r, 4);
		double step = how == 0 ? 0.0 : how == 1 ? 1e-3 : how == 2 ? 5e-2 : 0.5;
		imp_pose3 pa0 = nudge3(&r, pa, step), pb0 = nudge3(&r, pb, step);
		imp_aabb3 ba, bb;
		imp_shape_aabb3(a, pa, &ba);
		imp_shape_aabb3(b, pb, &bb);
		double scene = 0.0;
		imp_vec3 corners[4] = {ba.lo, ba.hi, bb.lo, bb.hi};
		for (int k = 0; k < 4; ++k)
			scene = fmax(scene, fmax(fabs(corners[k].x), fmax(fabs(corners[k].y), fabs(corners[k].z))));
		for (int level = 1; level <= 3; ++level) {
			imp_simplex_cache cache = {0};
			imp_closest3_result prev;
			if (level == 1)
				imp_overlap3(a, pa0, b, pb0, &cache);
			else if (level == 2)
				imp_distance3(a, pa0, b, pb0, &cache);
			else
				imp_closest3(a, pa0, b, pb0, &cache, &prev);
			if (level == 1) {
				bool cold = imp_overlap3(a, pa, b, pb, NULL), warm = imp_overlap3(a, pa, b, pb, &cache);
				double d = imp_distance3(a, pa, b, pb, NULL);
				if (cold != warm && d > WARM_DISTANCE_TOL * scene)
					fail_pair(&w, "3D overlap", i, cold, warm, scene);
			} else if (level == 2) {
				double cold = imp_distance3(a, pa, b, pb, NULL), warm = imp_distance3(a, pa, b, pb, &cache);
				double e = fabs(cold - warm) / scene;
				w.level2 = fmax(w.level2, e);
				if (!(e <= WARM_DISTANCE_TOL))
					fail_pair(&w, "3D distance", i, cold, warm, scene);
			} else {
				imp_closest3_result cold, warm;
				assert_int_equal(imp_closest3(a, pa, b, pb, NULL, &cold), IMP_OK);
				assert_int_equal(imp_closest3(a, pa, b, pb, &cache, &warm), IMP_OK);
				double e = fabs(cold.distance - warm.distance) / scene;
				bool over = cold.distance < 0.0 || warm.distance < 0.0;
				bool curved = ca || cb;
				double tol = over && curved ? WARM_DEPTH_TOL : WARM_DISTANCE_TOL;
				if (over) {
					++w.overlapping;
					if (curved) {
						++w.curved_overlapping;
						w.depth_curved = fmax(w.depth_curved, e);
					} else {
						w.depth_poly = fmax(w.depth_poly, e);
					}
				} else {
					w.separated = fmax(w.separated, e);
				}
				if (!(e <= tol))
					fail_pair(&w, over ? "3D depth" : "3D separated distance", i, cold.distance,
						  warm.distance, scene);
			}
		}
		++w.pairs;
		imp_shape_destroy(a);
		imp_shape_destroy(b);
	}
	print_message("3D: %d pairs (%d overlapping, %d of them curved); warm - cold over the scene: distance %.3g, "
		      "separated %.3g, depth %.3g curved, %.3g polytopes\n",
		      w.pairs, w.overlapping, w.curved_overlapping, w.level2, w.separated, w.depth_curved,
		      w.depth_poly);
	assert_int_equal(w.failures, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_warm2),
		cmocka_unit_test(test_warm3),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
