// SPDX-License-Identifier: MIT
// Every error path of the public 3D API: NULL pointers, counts, NaN and
// infinities, radii and sizes, quaternions, non-shapes, dimension
// mismatches both ways, options, failing allocators; on error the outputs
// and caches are unchanged.
#include <float.h>
#include <limits.h>
#include <math.h>
#include <setjmp.h>
#include <stdalign.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <impact/impact.h>

#include "bad_input.h"
#include "counting_alloc.h"

#define V3(x, y, z) imp_vec3_make((x), (y), (z))

static void test_polytope_errors(void **state)
{
	(void)state;
	imp_vec3 pts[4] = {V3(0, 0, 0), V3(1, 0, 0), V3(0, 1, 0), V3(0, 0, 1)};
	imp_shape *out = SENTINEL;
	assert_int_equal(imp_shape_polytope(NULL, 4, 0, &out), IMP_ERR_NULL_ARGUMENT);
	assert_int_equal(imp_shape_polytope(pts, 4, 0, NULL), IMP_ERR_NULL_ARGUMENT);
	assert_int_equal(imp_shape_polytope(pts, 0, 0, &out), IMP_ERR_BAD_COUNT);
	assert_int_equal(imp_shape_polytope(pts, -1, 0, &out), IMP_ERR_BAD_COUNT);
	assert_int_equal(imp_shape_polytope(pts, IMP_POLYTOPE_MAX_POINTS + 1, 0, &out), IMP_ERR_BAD_COUNT);
	assert_int_equal(imp_shape_polytope(pts, INT_MIN, 0, &out), IMP_ERR_BAD_COUNT);
	for (int i = 0; i < 4; ++i) {
		double b = bad_numbers[i];
		for (int k = 0; k < 3; ++k) {
			imp_vec3 q[4];
			memcpy(q, pts, sizeof q);
			double *c = k == 0 ? &q[2].x : (k == 1 ? &q[2].y : &q[2].z);
			*c = b;
			assert_int_equal(imp_shape_polytope(q, 4, 0, &out), IMP_ERR_NOT_FINITE);
		}
		assert_int_equal(imp_shape_polytope(pts, 4, b, &out), IMP_ERR_BAD_RADIUS);
	}
	assert_int_equal(imp_shape_polytope(pts, 4, -1e-300, &out), IMP_ERR_BAD_RADIUS);
	assert_int_equal(imp_shape_polytope(pts, 4, 1e151, &out), IMP_ERR_OUT_OF_RANGE);
	imp_vec3 far[2] = {V3(0, 0, 0), V3(0, 2e150, 0)};
	assert_int_equal(imp_shape_polytope(far, 2, 0, &out), IMP_ERR_OUT_OF_RANGE);
	imp_allocator half = {0};
	counting c = {0};
	half = counting_allocator(&c);
	half.free = NULL;
	assert_int_equal(imp_shape_polytope_ex(pts, 4, 0, &half, &out), IMP_ERR_NULL_ARGUMENT);
	assert_ptr_equal(out, SENTINEL);
}

static void test_builtin_errors(void **state)
{
	(void)state;
	imp_shape *out = SENTINEL;
	const double bad_sizes[] = {0.0, -1.0, NAN, INFINITY, -INFINITY};
	for (int i = 0; i < 5; ++i) {
		double b = bad_sizes[i];
		assert_int_equal(imp_shape_sphere(V3(0, 0, 0), b, &out), IMP_ERR_BAD_RADIUS);
		assert_int_equal(imp_shape_capsule3(V3(0, 0, 0), V3(1, 0, 0), b, &out), IMP_ERR_BAD_RADIUS);
		assert_int_equal(imp_shape_box3(b, 1, 1, 0, &out), IMP_ERR_BAD_RADIUS);
		assert_int_equal(imp_shape_box3(1, b, 1, 0, &out), IMP_ERR_BAD_RADIUS);
		assert_int_equal(imp_shape_box3(1, 1, b, 0, &out), IMP_ERR_BAD_RADIUS);
		assert_int_equal(imp_shape_cylinder(b, 1, 0, &out), IMP_ERR_BAD_RADIUS);
		assert_int_equal(imp_shape_cylinder(1, b, 0, &out), IMP_ERR_BAD_RADIUS);
		assert_int_equal(imp_shape_cone(b, 1, 0, &out), IMP_ERR_BAD_RADIUS);
		assert_int_equal(imp_shape_cone(1, b, 0, &out), IMP_ERR_BAD_RADIUS);
		assert_int_equal(imp_shape_ellipsoid(b, 1, 1, 0, &out), IMP_ERR_BAD_RADIUS);
		assert_int_equal(imp_shape_ellipsoid(1, 1, b, 0, &out), IMP_ERR_BAD_RADIUS);
		if (b != 0.0) {
			// Rounding radii may be 0, not negative or non-finite.
			assert_int_equal(imp_shape_box3(1, 1, 1, b, &out), IMP_ERR_BAD_RADIUS);
			assert_int_equal(imp_shape_cylinder(1, 1, b, &out), IMP_ERR_BAD_RADIUS);
			assert_int_equal(imp_shape_cone(1, 1, b, &out), IMP_ERR_BAD_RADIUS);
			assert_int_equal(imp_shape_ellipsoid(1, 1, 1, b, &out), IMP_ERR_BAD_RADIUS);
		}
	}
	for (int i = 0; i < 4; ++i) {
		assert_int_equal(imp_shape_sphere(V3(bad_numbers[i], 0, 0), 1, &out), IMP_ERR_NOT_FINITE);
		assert_int_equal(imp_shape_capsule3(V3(0, 0, 0), V3(0, 0, bad_numbers[i]), 1, &out), IMP_ERR_NOT_FINITE);
	}
	assert_int_equal(imp_shape_box3(1e151, 1, 1, 0, &out), IMP_ERR_OUT_OF_RANGE);
	assert_int_equal(imp_shape_ellipsoid(1, 1e151, 1, 0, &out), IMP_ERR_OUT_OF_RANGE);
	assert_int_equal(imp_shape_sphere(V3(0, 0, 0), 1, NULL), IMP_ERR_NULL_ARGUMENT);
	assert_int_equal(imp_shape_box3(1, 1, 1, 0, NULL), IMP_ERR_NULL_ARGUMENT);
	assert_int_equal(imp_shape_cylinder(1, 1, 0, NULL), IMP_ERR_NULL_ARGUMENT);
	assert_int_equal(imp_shape_user3(NULL, NULL, 0, &out), IMP_ERR_NULL_ARGUMENT);
	assert_ptr_equal(out, SENTINEL);
	// Zero-length capsules are spheres.
	imp_shape *s;
	assert_int_equal(imp_shape_capsule3(V3(1, 1, 1), V3(1, 1, 1), 0.5, &s), IMP_OK);
	assert_int_equal(imp_shape_vertex_count(s), 1);
	imp_shape_destroy(s);
}

static imp_vec3 nan_support(const void *user, imp_vec3 d)
{
	(void)user;
	(void)d;
	return V3(NAN, 0, 0);
}

static imp_vec3 huge_support(const void *user, imp_vec3 d)
{
	(void)user;
	return d.x > 0 ? V3(1e200, 0, 0) : V3(0, 0, 0);
}

/// Finite at construction (the six axis directions), NaN afterwards.
static imp_vec3 late_nan_support(const void *user, imp_vec3 d)
{
	(void)user;
	bool axis = (d.x == 0) + (d.y == 0) + (d.z == 0) == 2;
	return axis ? imp_vec3_scale(0.5, d) : V3(NAN, NAN, NAN);
}

static void test_user_errors(void **state)
{
	(void)state;
	imp_shape *out = SENTINEL;
	assert_int_equal(imp_shape_user3(nan_support, NULL, 0, &out), IMP_ERR_NOT_FINITE);
	assert_int_equal(imp_shape_user3(huge_support, NULL, 0, &out), IMP_ERR_OUT_OF_RANGE);
	assert_int_equal(imp_shape_user3(late_nan_support, NULL, -1, &out), IMP_ERR_BAD_RADIUS);
	assert_int_equal(imp_shape_user3(late_nan_support, NULL, 0, NULL), IMP_ERR_NULL_ARGUMENT);
	assert_ptr_equal(out, SENTINEL);
	// A support that turns NaN later makes queries degenerate, not crash.
	imp_shape *u, *b;
	assert_int_equal(imp_shape_user3(late_nan_support, NULL, 0, &u), IMP_OK);
	assert_int_equal(imp_shape_box3(1, 1, 1, 0, &b), IMP_OK);
	imp_pose3 pa = imp_pose3_identity(), pb = {{3, 0.1, 0.2}, imp_quat_identity()};
	assert_true(isnan(imp_distance3(u, pa, b, pb, NULL)));
	imp_closest3_result r;
	assert_int_equal(imp_closest3(u, pa, b, pb, NULL, &r), IMP_OK);
	assert_int_equal(r.state, IMP_STATE_DEGENERATE);
	assert_true(isnan(r.distance));
	assert_false(imp_overlap3(u, pa, b, pb, NULL)); // degenerate: no answer, so no overlap claimed
	imp_vec3 p;
	assert_int_equal(imp_shape_support3(u, pa, V3(1, 1, 0), &p), IMP_ERR_NOT_FINITE);
	imp_shape_destroy(u);
	imp_shape_destroy(b);
}

static void test_accessors_invalid(void **state)
{
	(void)state;
	imp_vec3 v[4];
	int idx[4], e0, e1;
	const imp_shape *bad[3] = {NULL, NOT_SHAPE, JUNK_SHAPE};
	for (int i = 0; i < 3; ++i) {
		assert_int_equal(imp_shape_vertices3(bad[i], v, 4), -1);
		assert_int_equal(imp_shape_face_count(bad[i]), -1);
		assert_int_equal(imp_shape_edge_count(bad[i]), -1);
		assert_int_equal(imp_shape_face(bad[i], 0, idx, 4), -1);
		assert_int_not_equal(imp_shape_edge(bad[i], 0, &e0, &e1), IMP_OK);
	}
	imp_shape *s;
	assert_int_equal(imp_shape_box3(1, 2, 3, 0, &s), IMP_OK);
	assert_int_equal(imp_shape_vertices3(s, NULL, 1), -1);
	assert_int_equal(imp_shape_vertices3(s, NULL, 0), 8);
	assert_int_equal(imp_shape_vertices3(s, v, -1), -1);
	assert_int_equal(imp_shape_face(s, 6, idx, 4), -1);
	assert_int_equal(imp_shape_face(s, -1, idx, 4), -1);
	assert_int_equal(imp_shape_face(s, 0, NULL, 4), -1);
	assert_int_equal(imp_shape_edge(s, 12, &e0, &e1), IMP_ERR_BAD_COUNT);
	assert_int_equal(imp_shape_edge(s, -1, &e0, &e1), IMP_ERR_BAD_COUNT);
	assert_int_equal(imp_shape_edge(s, 0, NULL, &e1), IMP_ERR_NULL_ARGUMENT);
	imp_shape *sq;
	assert_int_equal(imp_shape_box2(1, 1, 0, &sq), IMP_OK);
	assert_int_equal(imp_shape_edge(sq, 0, &e0, &e1), IMP_ERR_DIMENSION_MISMATCH);
	imp_shape_destroy(sq);
	imp_shape_destroy(s);
}

static void test_pose3_validity(void **state)
{
	(void)state;
	assert_true(imp_pose3_is_valid(imp_pose3_identity()));
	imp_pose3 p = imp_pose3_identity();
	// A float-normalised quaternion passes; one 1e-5 off does not.
	p.q = imp_quat_make(0.0f, 0.0f, (float)sin(0.3), (float)cos(0.3));
	assert_true(imp_pose3_is_valid(p));
	p.q = imp_quat_make(0, 0, 0, 1.00001);
	assert_false(imp_pose3_is_valid(p));
	p.q = imp_quat_make(0, 0, 0, 0);
	assert_false(imp_pose3_is_valid(p));
	for (int i = 0; i < 4; ++i) {
		p = imp_pose3_identity();
		p.p.y = bad_numbers[i];
		assert_false(imp_pose3_is_valid(p));
		p = imp_pose3_identity();
		p.q.x = bad_numbers[i];
		assert_false(imp_pose3_is_valid(p));
	}
	p = imp_pose3_identity();
	p.p.z = 2e150;
	assert_false(imp_pose3_is_valid(p));
}

static void test_support_aabb_errors(void **state)
{
	(void)state;
	imp_shape *s;
	assert_int_equal(imp_shape_cylinder(1, 1, 0, &s), IMP_OK);
	imp_pose3 pose = imp_pose3_identity();
	imp_vec3 out = V3(7, 7, 7);
	imp_aabb3 box = {{7, 7, 7}, {7, 7, 7}};
	assert_int_equal(imp_shape_support3(NULL, pose, V3(1, 0, 0), &out), IMP_ERR_NULL_ARGUMENT);
	assert_int_equal(imp_shape_support3(NOT_SHAPE, pose, V3(1, 0, 0), &out), IMP_ERR_BAD_SHAPE);
	assert_int_equal(imp_shape_support3(s, pose, V3(1, 0, 0), NULL), IMP_ERR_NULL_ARGUMENT);
	assert_int_equal(imp_shape_support3(s, pose, V3(0, 0, 0), &out), IMP_ERR_NOT_FINITE);
	for (int i = 0; i < 4; ++i)
		assert_int_equal(imp_shape_support3(s, pose, V3(1, bad_numbers[i], 0), &out), IMP_ERR_NOT_FINITE);
	imp_pose3 bad = pose;
	bad.q.w = 2;
	assert_int_equal(imp_shape_support3(s, bad, V3(1, 0, 0), &out), IMP_ERR_BAD_ROTATION);
	assert_int_equal(imp_shape_aabb3(s, bad, &box), IMP_ERR_BAD_ROTATION);
	bad = pose;
	bad.p.x = NAN;
	assert_int_equal(imp_shape_aabb3(s, bad, &box), IMP_ERR_NOT_FINITE);
	assert_int_equal(imp_shape_aabb3(NULL, pose, &box), IMP_ERR_NULL_ARGUMENT);
	assert_int_equal(imp_shape_aabb3(s, pose, NULL), IMP_ERR_NULL_ARGUMENT);
	assert_true(out.x == 7 && box.lo.x == 7);
	// 2D shapes in 3D calls and back.
	imp_shape *sq;
	assert_int_equal(imp_shape_box2(1, 1, 0, &sq), IMP_OK);
	assert_int_equal(imp_shape_support3(sq, pose, V3(1, 0, 0), &out), IMP_ERR_DIMENSION_MISMATCH);
	assert_int_equal(imp_shape_aabb3(sq, pose, &box), IMP_ERR_DIMENSION_MISMATCH);
	imp_vec2 o2;
	imp_aabb2 b2;
	assert_int_equal(imp_shape_support2(s, imp_pose2_identity(), imp_vec2_make(1, 0), &o2),
			 IMP_ERR_DIMENSION_MISMATCH);
	assert_int_equal(imp_shape_aabb2(s, imp_pose2_identity(), &b2), IMP_ERR_DIMENSION_MISMATCH);
	imp_shape_destroy(sq);
	imp_shape_destroy(s);
}

/// Every query refuses bad arguments the same way, and leaves the cache
/// and the result as they were.
static void expect_invalid3(const imp_shape *a, imp_pose3 pa, const imp_shape *b, imp_pose3 pb,
			    const imp_query_options *o, imp_status want)
{
	imp_simplex_cache cache, before;
	memset(&cache, 0x5A, sizeof cache);
	before = cache;
	assert_false(imp_overlap3_ex(a, pa, b, pb, &cache, o));
	assert_true(isnan(imp_distance3_ex(a, pa, b, pb, &cache, o)));
	int it = 77;
	imp_query_state st = (imp_query_state)77;
	assert_true(isnan(imp_distance3_stats(a, pa, b, pb, &cache, o, &it, &st)));
	assert_int_equal(it, 77);
	assert_int_equal(st, 77);
	imp_closest3_result r, r0;
	memset(&r, 0x33, sizeof r);
	r0 = r;
	assert_int_equal(imp_closest3_ex(a, pa, b, pb, &cache, o, &r), want);
	assert_memory_equal(&r, &r0, sizeof r);
	assert_memory_equal(&cache, &before, sizeof cache);
}

static void test_query_errors(void **state)
{
	(void)state;
	imp_shape *a, *b, *sq;
	assert_int_equal(imp_shape_box3(1, 1, 1, 0, &a), IMP_OK);
	assert_int_equal(imp_shape_ellipsoid(1, 0.5, 0.5, 0.1, &b), IMP_OK);
	assert_int_equal(imp_shape_box2(1, 1, 0, &sq), IMP_OK);
	imp_pose3 pa = imp_pose3_identity(), pb = {{0.5, 0, 0}, imp_quat_identity()};
	expect_invalid3(NULL, pa, b, pb, NULL, IMP_ERR_NULL_ARGUMENT);
	expect_invalid3(a, pa, NULL, pb, NULL, IMP_ERR_NULL_ARGUMENT);
	expect_invalid3(NOT_SHAPE, pa, b, pb, NULL, IMP_ERR_BAD_SHAPE);
	expect_invalid3(a, pa, JUNK_SHAPE, pb, NULL, IMP_ERR_BAD_SHAPE);
	expect_invalid3(sq, pa, b, pb, NULL, IMP_ERR_DIMENSION_MISMATCH);
	expect_invalid3(a, pa, sq, pb, NULL, IMP_ERR_DIMENSION_MISMATCH);
	for (int i = 0; i < 4; ++i) {
		imp_pose3 p = pb;
		p.p.x = bad_numbers[i];
		expect_invalid3(a, pa, b, p, NULL, IMP_ERR_NOT_FINITE);
		p = pa;
		p.q.z = bad_numbers[i];
		expect_invalid3(a, p, b, pb, NULL, IMP_ERR_NOT_FINITE);
	}
	imp_pose3 p = pb;
	p.q = imp_quat_make(1, 1, 0, 0);
	expect_invalid3(a, pa, b, p, NULL, IMP_ERR_BAD_ROTATION);
	p = pb;
	p.p.y = -2e150;
	expect_invalid3(a, pa, b, p, NULL, IMP_ERR_OUT_OF_RANGE);
	imp_query_options o = imp_default_query_options();
	o.acceleration = (imp_acceleration_mode)7;
	expect_invalid3(a, pa, b, pb, &o, IMP_ERR_BAD_OPTIONS);
	o = imp_default_query_options();
	o.max_iterations = 0;
	expect_invalid3(a, pa, b, pb, &o, IMP_ERR_BAD_OPTIONS);
	// The 2D queries refuse 3D shapes.
	imp_closest2_result r2;
	assert_int_equal(imp_closest2(a, imp_pose2_identity(), sq, imp_pose2_identity(), NULL, &r2),
			 IMP_ERR_DIMENSION_MISMATCH);
	assert_true(isnan(imp_distance2(sq, imp_pose2_identity(), b, imp_pose2_identity(), NULL)));
	// No result pointer.
	assert_int_equal(imp_closest3(a, pa, b, pb, NULL, NULL), IMP_ERR_NULL_ARGUMENT);
	// The valid query works and overlaps.
	assert_true(imp_overlap3(a, pa, b, pb, NULL));
	imp_shape_destroy(a);
	imp_shape_destroy(b);
	imp_shape_destroy(sq);
}

static void test_allocator3(void **state)
{
	(void)state;
	enum { N = 3000 };
	imp_vec3 *pts = malloc(N * sizeof *pts);
	assert_non_null(pts);
	for (int i = 0; i < N; ++i) {
		// Points spread over a sphere (a spiral): all of them vertices.
		double z = 1.0 - (2.0 * i + 1.0) / N, t = 2.399963229728653 * i;
		double rr = sqrt(1.0 - z * z);
		pts[i] = V3(rr * cos(t), rr * sin(t), z);
	}
	counting c = {0};
	c.fail_at = -1;
	imp_allocator al = counting_allocator(&c);
	imp_shape *s = NULL;
	assert_int_equal(imp_shape_polytope_ex(pts, N, 0.1, &al, &s), IMP_OK);
	assert_int_equal(imp_shape_vertex_count(s), N);
	imp_closest3_result r;
	imp_pose3 pb = {{0.5, 0, 0}, imp_quat_identity()};
	assert_int_equal(imp_closest3(s, imp_pose3_identity(), s, pb, NULL, &r), IMP_OK);
	imp_shape_destroy(s);
	assert_int_equal(c.live, 0);
	assert_false(c.size_mismatch);
	long calls_needed = c.calls;
	print_message("polytope_ex of %d points: %ld allocator calls\n", N, calls_needed);
	for (long k = 0; k <= calls_needed; ++k) {
		c = (counting){0};
		c.fail_at = k;
		imp_shape *out = SENTINEL;
		imp_status st = imp_shape_polytope_ex(pts, N, 0.1, &al, &out);
		if (k < calls_needed) {
			assert_int_equal(st, IMP_ERR_OUT_OF_MEMORY);
			assert_ptr_equal(out, SENTINEL);
		} else {
			assert_int_equal(st, IMP_OK);
			imp_shape_destroy(out);
		}
		assert_int_equal(c.live, 0);
		assert_false(c.size_mismatch);
	}
	free(pts);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_polytope_errors),
		cmocka_unit_test(test_builtin_errors),
		cmocka_unit_test(test_user_errors),
		cmocka_unit_test(test_accessors_invalid),
		cmocka_unit_test(test_pose3_validity),
		cmocka_unit_test(test_support_aabb_errors),
		cmocka_unit_test(test_query_errors),
		cmocka_unit_test(test_allocator3),
	};
	return cmocka_run_group_tests(tests, bad_input_setup, NULL);
}
