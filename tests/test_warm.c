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

// ---------------------------------------------------------------------------
// Caches that start GJK far from the answer in huge, stretched scenes
// (issue 20, findings 25 and 27). A cache holding anything is harmless
// (collision.h): with every start the answer is the cold one.

/// The scene's size as collision.h measures it.
static double scene3(const imp_shape *a, imp_pose3 pa, const imp_shape *b, imp_pose3 pb)
{
	imp_aabb3 ba, bb;
	imp_shape_aabb3(a, pa, &ba);
	imp_shape_aabb3(b, pb, &bb);
	imp_vec3 corners[4] = {ba.lo, ba.hi, bb.lo, bb.hi};
	double scene = 0.0;
	for (int k = 0; k < 4; ++k)
		scene = fmax(scene, fmax(fabs(corners[k].x), fmax(fabs(corners[k].y), fabs(corners[k].z))));
	return scene;
}

/// A cache holding only a direction, as a query on a curved core leaves it.
static imp_simplex_cache direction_cache(imp_vec3 d)
{
	imp_simplex_cache c;
	memset(&c, 0, sizeof c);
	c.count = 1;
	c.dim = 3;
	for (int k = 0; k < 4; ++k)
		c.index_a[k] = c.index_b[k] = -1;
	c.direction[0] = d.x;
	c.direction[1] = d.y;
	c.direction[2] = d.z;
	return c;
}

/// Levels 2 and 3 with a cache holding each of the 26 directions of the
/// cube's faces, edges and corners: the distance `expect` (Level 3 within
/// `tol`; Level 2 the same clamped at 0), and Level 3's own identity
/// normal . (point_b - point_a) = distance. The worst error found.
static double every_direction(const imp_shape *a, imp_pose3 pa, const imp_shape *b, imp_pose3 pb, double expect,
			      double tol, const char *what)
{
	double worst = 0.0;
	int bad = 0;
	for (int i = -1; i <= 1; ++i)
		for (int j = -1; j <= 1; ++j)
			for (int k = -1; k <= 1; ++k) {
				if (i == 0 && j == 0 && k == 0)
					continue;
				imp_vec3 d = imp_vec3_make(i, j, k);
				imp_simplex_cache c2 = direction_cache(d), c3 = direction_cache(d);
				double d2 = imp_distance3(a, pa, b, pb, &c2);
				imp_closest3_result r;
				assert_int_equal(imp_closest3(a, pa, b, pb, &c3, &r), IMP_OK);
				imp_vec3 ab = imp_vec3_sub(r.point_b, r.point_a);
				double e2 = fabs(d2 - fmax(expect, 0.0)), e3 = fabs(r.distance - expect);
				double along = fabs(imp_vec3_dot(ab, r.normal) - r.distance);
				double e = fmax(e2, fmax(e3, along));
				if (!(e <= tol) && bad++ < 4)
					print_message("%s, cache direction (%d %d %d): Level 2 %.17g, Level 3 %.17g, "
						      "normal . (b - a) %.17g, expected %.17g\n",
						      what, i, j, k, d2, r.distance, imp_vec3_dot(ab, r.normal), expect);
				worst = fmax(worst, e);
			}
	assert_int_equal(bad, 0);
	return worst;
}

/// A step of GJK whose descent is too small for |v|^2's rounding to show
/// (a new vertex 1e8 times farther than v) ended the search as if it had
/// converged: a shape at the origin crossed by a triangle's edge 1.5e29
/// long (distance 0: the edge runs along the z axis, through the shape)
/// answered 1e21 from some starts, 6.7e-9 of the scene. Every start, and a
/// cache left by the same pair 1e22 apart along y, must answer 0.
static void test_warm_stretched_triangle(void **state)
{
	(void)state;
	imp_shape *shapes[4];
	assert_int_equal(imp_shape_cone(1.0, 0.5, 0.0, &shapes[0]), IMP_OK);
	assert_int_equal(imp_shape_cone(0.0625, 1e-15, 0.0, &shapes[1]), IMP_OK);
	assert_int_equal(imp_shape_ellipsoid(0.5, 0.25, 1.0, 0.0, &shapes[2]), IMP_OK);
	assert_int_equal(imp_shape_cylinder(1.0, 0.5, 0.0, &shapes[3]), IMP_OK);
	imp_pose3 at = imp_pose3_identity();
	double worst = 0.0;
	for (int s = 0; s < 4; ++s)
		for (double x = 1e19; x <= 1e22; x *= 3.1622776601683795) {
			imp_vec3 t[3] = {{0.0, 0.0, -1.5e29}, {0.0, 0.0, 38.0}, {x, 38.0, 109.0}};
			imp_shape *tri;
			assert_int_equal(imp_shape_polytope(t, 3, 0.0, &tri), IMP_OK);
			double scene = scene3(shapes[s], at, tri, at), tol = WARM_DISTANCE_TOL * scene;
			assert_true(imp_distance3(shapes[s], at, tri, at, NULL) <= tol);
			worst = fmax(worst, every_direction(shapes[s], at, tri, at, 0.0, tol, "stretched triangle") / scene);
			// The cache of a step before, the triangle 1e22 away along y.
			imp_pose3 before = at;
			before.p.y = 1e22;
			imp_simplex_cache cache = {0};
			assert_true(imp_distance3(shapes[s], at, tri, before, &cache) > 0.0);
			double d = imp_distance3(shapes[s], at, tri, at, &cache);
			worst = fmax(worst, d / scene);
			if (!(d <= tol))
				print_message("shape %d, x %g: warm from 1e22 apart: %.17g\n", s, x, d);
			assert_true(d <= tol);
			imp_shape_destroy(tri);
		}
	for (int s = 0; s < 4; ++s)
		imp_shape_destroy(shapes[s]);
	print_message("stretched triangle: worst error %.3g of the scene\n", worst);
}

/// The fuzz findings themselves (tests/fuzz/corpus/pairwise): a cache left
/// by the cold Level 3 query, then Level 2 with it. finding-cone-polytope-
/// cache: a cone 0.125 tall against a triangle 1.6e29 long, touching to
/// rounding, answered 2.5e20 warm (0 cold). finding-capsule3-cone-cache: a
/// capsule 2.6e21 long through the rim of a cone 2.1e21 wide and 6.3 tall,
/// touching to rounding, answered 2.4e12 warm.
static void test_warm_findings_cache(void **state)
{
	(void)state;
	imp_pose3 at = imp_pose3_identity();
	int failures = 0;
	for (int f = 0; f < 2; ++f) {
		imp_shape *a, *b;
		imp_pose3 pa = at, pb = at;
		if (f == 0) {
			imp_vec3 t[3] = {{-1.8203125, 3.4885963577522431e+21, -1.5733005685984849e+29},
					 {-9.9999999999999995e-21, -8.1466951240560803e-16, 38.125},
					 {2.5231867272305941e+20, 38.125, 109.0}};
			assert_int_equal(imp_shape_cone(0.0625, 1.0000000000000001e-15, 0.0, &a), IMP_OK);
			assert_int_equal(imp_shape_polytope(t, 3, 0.0, &b), IMP_OK);
		} else {
			assert_int_equal(imp_shape_capsule3(imp_vec3_make(-4.7659820449832649e-26, 109.75,
									  -1.5580292982880778e+21),
							    imp_vec3_make(-2.1483251086467835e+21, 0.0234375, 2.91796875),
							    109.375, &a),
					 IMP_OK);
			assert_int_equal(imp_shape_cone(3.1640625, 2.1483251086467835e+21, 8.4736484495806508e-10, &b),
					 IMP_OK);
			pa.p.x = -4.9591167925315254e-39;
		}
		double scene = scene3(a, pa, b, pb), tol = WARM_DISTANCE_TOL * scene;
		double cold = imp_distance3(a, pa, b, pb, NULL);
		imp_closest3_result r;
		imp_simplex_cache cache = {0};
		assert_int_equal(imp_closest3(a, pa, b, pb, &cache, &r), IMP_OK);
		for (int pass = 0; pass < 2; ++pass) {
			double warm = imp_distance3(a, pa, b, pb, &cache);
			if (!(fabs(warm - cold) <= tol) && failures++ < 4)
				print_message("finding %d, pass %d: warm %.17g, cold %.17g (tolerance %g)\n", f, pass, warm,
					      cold, tol);
		}
		if (failures == 0)
			(void)every_direction(a, pa, b, pb, fmin(cold, 0.0), tol,
					      f == 0 ? "cone-polytope" : "capsule-cone");
		imp_shape_destroy(a);
		imp_shape_destroy(b);
	}
	assert_int_equal(failures, 0);
}

// ---------------------------------------------------------------------------
// Options against the defaults (issue 20, finding 30): a smaller tolerance
// must not give a worse depth.

/// The pair of finding-polytope-cone-options: a polytope whose core is the
/// segment p0 p1 (its third point repeats p0), rounded by ra, and a cone
/// of half height hc and base radius rc, rounded by rb.
typedef struct seg_cone {
	long double p0[3], p1[3], ra, hc, rc, rb;
	imp_pose3 pa, pb;
} seg_cone;

/// v turned by unit quaternion q (or back, with `inverse`).
static void turn(imp_quat q, bool inverse, const long double *v, long double *out)
{
	long double x = inverse ? -q.x : q.x, y = inverse ? -q.y : q.y, z = inverse ? -q.z : q.z, w = q.w;
	long double tx = 2 * (y * v[2] - z * v[1]), ty = 2 * (z * v[0] - x * v[2]), tz = 2 * (x * v[1] - y * v[0]);
	out[0] = v[0] + w * tx + (y * tz - z * ty);
	out[1] = v[1] + w * ty + (z * tx - x * tz);
	out[2] = v[2] + w * tz + (x * ty - y * tx);
}

/// How far the rounded segment reaches along unit n (world frame), plus
/// how far the rounded cone reaches along -n: the depth along n, whose
/// minimum over n is the penetration depth. In long double, from the
/// shapes' own parameters: the segment's support is an end, the cone's its
/// apex (0, 0, hc) or a point of its base rim at z = -hc.
static long double seg_cone_h(const seg_cone *g, const long double *n)
{
	long double l[3], m[3] = {-n[0], -n[1], -n[2]}, k[3];
	turn(g->pa.q, true, n, l);
	long double e0 = l[0] * g->p0[0] + l[1] * g->p0[1] + l[2] * g->p0[2];
	long double e1 = l[0] * g->p1[0] + l[1] * g->p1[1] + l[2] * g->p1[2];
	long double ha = (e0 > e1 ? e0 : e1) + n[0] * g->pa.p.x + n[1] * g->pa.p.y + n[2] * g->pa.p.z + g->ra;
	turn(g->pb.q, true, m, k);
	long double apex = g->hc * k[2], rim = g->rc * sqrtl(k[0] * k[0] + k[1] * k[1]) - g->hc * k[2];
	long double hb = (apex > rim ? apex : rim) + m[0] * g->pb.p.x + m[1] * g->pb.p.y + m[2] * g->pb.p.z + g->rb;
	return ha + hb;
}

static void unit_ld(long double *v)
{
	long double l = sqrtl(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
	for (int k = 0; k < 3; ++k)
		v[k] /= l;
}

/// The penetration depth by brute force: the least depth along 20,000
/// directions spread over the sphere (a Fibonacci lattice), the best eight
/// refined by a pattern search of 32 directions in their tangent plane down
/// to a step of 1e-17: an upper bound on the depth (the search can stop on
/// a kink of h, here 2.3e-7 of the scene above the query's answer).
static long double seg_cone_depth(const seg_cone *g)
{
	enum { N = 20000, KEEP = 8 };
	long double best[KEEP][3], bh[KEEP];
	for (int k = 0; k < KEEP; ++k)
		bh[k] = INFINITY;
	for (int i = 0; i < N; ++i) {
		long double z = 1 - 2 * (i + 0.5L) / N, r = sqrtl(1 - z * z), phi = i * 2.39996322972865332L;
		long double n[3] = {r * cosl(phi), r * sinl(phi), z};
		long double h = seg_cone_h(g, n);
		int worst = 0;
		for (int k = 1; k < KEEP; ++k)
			if (bh[k] > bh[worst])
				worst = k;
		if (h < bh[worst]) {
			bh[worst] = h;
			memcpy(best[worst], n, sizeof n);
		}
	}
	long double least = INFINITY;
	for (int k = 0; k < KEEP; ++k) {
		long double *n = best[k], h = bh[k];
		for (long double step = 0.1L; step > 1e-17L;) {
			long double a[3] = {fabsl(n[0]) < 0.9L ? 1 : 0, fabsl(n[0]) < 0.9L ? 0 : 1, 0};
			long double t1[3] = {n[1] * a[2] - n[2] * a[1], n[2] * a[0] - n[0] * a[2], n[0] * a[1] - n[1] * a[0]};
			unit_ld(t1);
			long double t2[3] = {n[1] * t1[2] - n[2] * t1[1], n[2] * t1[0] - n[0] * t1[2], n[0] * t1[1] - n[1] * t1[0]};
			bool better = false;
			for (int j = 0; j < 32; ++j) {
				long double c = cosl(j * 0.19634954084936207740L), s = sinl(j * 0.19634954084936207740L);
				long double m[3];
				for (int q = 0; q < 3; ++q)
					m[q] = n[q] + step * (c * t1[q] + s * t2[q]);
				unit_ld(m);
				long double hm = seg_cone_h(g, m);
				if (hm < h) {
					h = hm;
					memcpy(n, m, sizeof m);
					better = true;
				}
			}
			if (!better)
				step *= 0.5L;
		}
		if (h < least)
			least = h;
	}
	return least;
}

/// finding-polytope-cone-options: with the options the bytes chose (GJK
/// limit 174, EPA limit 64, tolerance 2^-51, no acceleration) the depth
/// was 5.562949e21, with the defaults 5.562089e21 (1.5e-4 apart). The
/// brute-force depth is the defaults' (to 1e-11 of it): at the tighter
/// tolerance EPA expanded its polytope by a support within rounding of
/// many small faces, the polytope folded in (its nearest face went from
/// 1.27e21 to 6.3e20, then behind the origin), and the depth descent
/// started from the folded faces' normals stopped on a kink of the cone's
/// rim. With every tolerance the answer must be a true depth along its
/// normal (h there, by the shapes' own supports), no worse than brute
/// force's, and the same as the defaults' within 1e-9 of the scene.
static void test_options_polytope_cone(void **state)
{
	(void)state;
	seg_cone g = {
		.p0 = {109.375L, -2.1483251086467835e+21L, -2.1483251086467835e+21L},
		.p1 = {-2.1483251086467835e+21L, -2.1692540030926466e-07L, 0.0L},
		.ra = 2.1483251086467835e+21L,
		.hc = 2.1425605011237492e+21L,
		.rc = 2.1483251086467835e+21L,
		.rb = 2.1483251086467835e+21L,
	};
	g.pa.p = imp_vec3_make(109.375, -7.28125, -2.1483251086467835e+21);
	g.pa.q = imp_quat_make(0.0, 0.0, 0.0, 1.0);
	g.pb.p = imp_vec3_make(0.0, -2.1483251086467835e+21, -2.1483251086467835e+21);
	g.pb.q = imp_quat_make(-0.56762265912698318, -0.18279373768496066, -0.56762265912698318, -0.56762265912698318);
	imp_vec3 pts[3] = {{(double)g.p0[0], (double)g.p0[1], (double)g.p0[2]},
			   {(double)g.p1[0], (double)g.p1[1], (double)g.p1[2]},
			   {(double)g.p0[0], (double)g.p0[1], (double)g.p0[2]}};
	imp_shape *a, *b;
	assert_int_equal(imp_shape_polytope(pts, 3, (double)g.ra, &a), IMP_OK);
	assert_int_equal(imp_shape_cone((double)g.hc, (double)g.rc, (double)g.rb, &b), IMP_OK);
	// The quaternion as the query normalises it.
	double ql = sqrt(g.pb.q.x * g.pb.q.x + g.pb.q.y * g.pb.q.y + g.pb.q.z * g.pb.q.z + g.pb.q.w * g.pb.q.w);
	imp_pose3 pb_unit = g.pb;
	pb_unit.q = imp_quat_make(g.pb.q.x / ql, g.pb.q.y / ql, g.pb.q.z / ql, g.pb.q.w / ql);
	seg_cone gu = g;
	gu.pb = pb_unit;
	double want = (double)seg_cone_depth(&gu);
	double scene = scene3(a, g.pa, b, g.pb);
	const double tolerances[] = {1e-12, 0x1p-51, 1e-15, 1e-14, 1e-13};
	imp_closest3_result d;
	assert_int_equal(imp_closest3(a, g.pa, b, g.pb, NULL, &d), IMP_OK);
	int failures = 0;
	for (int t = 0; t < 5; ++t)
		for (int variant = 0; variant < 2; ++variant) {
			imp_query_options o = imp_default_query_options();
			o.tolerance = tolerances[t];
			if (variant == 1) {
				o.max_iterations = 174;
				o.epa_max_iterations = 64;
				o.acceleration = IMP_ACCELERATION_NONE;
			}
			imp_closest3_result r;
			assert_int_equal(imp_closest3_ex(a, g.pa, b, g.pb, NULL, &o, &r), IMP_OK);
			long double n[3] = {r.normal.x, r.normal.y, r.normal.z};
			double along = (double)seg_cone_h(&gu, n);
			double own = fabs(along + r.distance) / scene, worse = (-r.distance - want) / scene;
			double apart = fabs(r.distance - d.distance) / scene;
			if (!(r.state == IMP_STATE_OVERLAPPING && own <= 1e-9 && worse <= 1e-9 && apart <= 1e-9) &&
			    failures++ < 4)
				print_message("tolerance %g%s: depth %.17g (%s; h along its normal %.17g), brute force "
					      "%.17g, defaults %.17g\n",
					      tolerances[t], variant ? " and the finding's limits" : "", -r.distance,
					      imp_query_state_string(r.state), along, want, -d.distance);
		}
	assert_int_equal(failures, 0);
	imp_shape_destroy(a);
	imp_shape_destroy(b);
}

/// A 2D polygon reaching 1e31 to 1e34 with a short edge near its middle,
/// and a small rounded point inside it near that edge. A start from the
/// cache (the simplex or direction an overlap query left) could put GJK
/// on the polygon's far vertex 1e25 below, whose next support lies 1e33
/// away on a line nearly normal to v: no step gained, and the loop's stall
/// exit answered separated by 1.37e25 where the cold query, starting from
/// the interior point, found the overlap (fuzz finding 72, 4e-9 of the
/// scene). The fuzz target's sequence: closest, distance and overlap with
/// one cache, twice, each against the query without it.
static void test_warm_huge_polygon_point(void **state)
{
	(void)state;
	rng r = {0x72f00d};
	int fails = 0;
	double worst = 0.0;
	for (int i = 0; i < 3000; ++i) {
		double l1 = pow(10.0, between(&r, 31.0, 34.0)), l2 = pow(10.0, between(&r, 23.0, 26.0));
		imp_vec2 pts[5] = {{-l1, 0.0},
				   {0.0, -l2},
				   {between(&r, 10.0, 100.0), -l2 * between(&r, 0.05, 0.5)},
				   {between(&r, 1.0, 10.0), between(&r, 10.0, 100.0)},
				   {0.0, between(&r, 5.0, 20.0)}};
		imp_vec2 pt = {between(&r, -2.0, 2.0), between(&r, -2.0, 2.0)};
		imp_shape *a, *b;
		assert_int_equal(imp_shape_polygon(pts, 5, 0.0, &a), IMP_OK);
		assert_int_equal(imp_shape_polygon(&pt, 1, between(&r, 0.5, 20.0), &b), IMP_OK);
		imp_pose2 pa = pose2(&r, 0.01), pb = {{0.0, 0.0}, {1.0, 0.0}};
		imp_aabb2 ba, bb;
		assert_int_equal(imp_shape_aabb2(a, pa, &ba), IMP_OK);
		assert_int_equal(imp_shape_aabb2(b, pb, &bb), IMP_OK);
		double scene = fmax(fmax(fmax(fabs(ba.lo.x), fabs(ba.hi.x)), fmax(fabs(ba.lo.y), fabs(ba.hi.y))),
				    fmax(fmax(fabs(bb.lo.x), fabs(bb.hi.x)), fmax(fabs(bb.lo.y), fabs(bb.hi.y))));
		double tol = WARM_DISTANCE_TOL * scene;
		imp_closest2_result cold, warm;
		assert_int_equal(imp_closest2(a, pa, b, pb, NULL, &cold), IMP_OK);
		double d = imp_distance2(a, pa, b, pb, NULL);
		bool ov = imp_overlap2(a, pa, b, pb, NULL);
		imp_simplex_cache cache = {0};
		for (int pass = 0; pass < 2; ++pass) {
			assert_int_equal(imp_closest2(a, pa, b, pb, &cache, &warm), IMP_OK);
			double dw = imp_distance2(a, pa, b, pb, &cache);
			bool ow = imp_overlap2(a, pa, b, pb, &cache);
			double err = fmax(fabs(warm.distance - cold.distance), fabs(dw - d));
			worst = fmax(worst, err / scene);
			if (!(err <= tol && ow == ov) && ++fails <= 3)
				print_message("case %d, pass %d: closest %.17g warm, %.17g cold; distance %.17g, %.17g; "
					      "overlap %d, %d\n",
					      i, pass, warm.distance, cold.distance, dw, d, ow, ov);
		}
		imp_shape_destroy(a);
		imp_shape_destroy(b);
	}
	print_message("huge polygons about a point: worst warm-cold difference %.3g of the scene\n", worst);
	assert_int_equal(fails, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_warm2),
		cmocka_unit_test(test_warm3),
		cmocka_unit_test(test_warm_stretched_triangle),
		cmocka_unit_test(test_warm_findings_cache),
		cmocka_unit_test(test_warm_huge_polygon_point),
		cmocka_unit_test(test_options_polytope_cone),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
