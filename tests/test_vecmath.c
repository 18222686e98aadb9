// SPDX-License-Identifier: MIT
// The inline helpers of <impact/vecmath.h> and imp_body_id_is_null, each
// against an independent answer: unit lengths and zero for the zero
// vector, interpolation end points, roll-pitch-yaw against the product of
// the three matrices written out, slerp against its end points, unit
// length and constant angular speed, pose inverses against the identity,
// on random values from a fixed seed and on degenerate ones on purpose.
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <impact/impact.h>

#include "test_rng.h"

#define CASES 2000

static imp_vec3 random_vec3(rng *r, double s)
{
	double x = range(r, -s, s);
	double y = range(r, -s, s);
	double z = range(r, -s, s);
	return imp_vec3_make(x, y, z);
}

static imp_quat random_quat(rng *r)
{
	imp_vec3 axis = random_vec3(r, 1.0);
	double angle = range(r, -3.14159, 3.14159);
	return imp_quat_from_axis_angle(axis, angle);
}

static void near3(imp_vec3 a, imp_vec3 b, double tol)
{
	assert_true(fabs(a.x - b.x) <= tol && fabs(a.y - b.y) <= tol && fabs(a.z - b.z) <= tol);
}

/// The angle between two unit quaternions' rotations.
static double quat_angle(imp_quat q, imp_quat r)
{
	double d = fabs(imp_quat_dot(q, r));
	return 2.0 * acos(d > 1.0 ? 1.0 : d);
}

static void test_vectors(void **state)
{
	(void)state;
	rng r = {11};
	for (int i = 0; i < CASES; i++) {
		double scale = pow(10.0, range(&r, -300.0, 300.0));
		imp_vec3 a = random_vec3(&r, scale), b = random_vec3(&r, scale);
		imp_vec2 a2 = {a.x, a.y}, b2 = {b.x, b.y};
		assert_true(fabs(imp_vec3_length(imp_vec3_normalize(a)) - 1.0) <= 4e-16);
		assert_true(fabs(imp_vec2_length(imp_vec2_normalize(a2)) - 1.0) <= 4e-16);
		// Parallel to the input.
		imp_vec3 u = imp_vec3_normalize(a), a1 = imp_vec3_scale(1.0 / scale, a);
		assert_true(imp_vec3_length(imp_vec3_cross(u, a1)) <= 1e-15 * imp_vec3_length(a1));
		if (scale < 1e150)
			assert_true(imp_vec3_length_sq(a) == imp_vec3_dot(a, a));
		assert_true(imp_vec2_length_sq(a2) == imp_vec2_dot(a2, a2));
		imp_vec2 n2 = imp_vec2_neg(a2);
		assert_true(n2.x == -a2.x && n2.y == -a2.y);
		double t = range(&r, -1.0, 2.0);
		imp_vec3 l = imp_vec3_lerp(a, b, t);
		if (scale < 1e300) {
			near3(l, imp_vec3_add(imp_vec3_scale(1.0 - t, a), imp_vec3_scale(t, b)), 1e-15 * 4.0 * scale);
			near3(imp_vec3_lerp(a, b, 1.0), b, 1e-15 * scale);
		}
		near3(imp_vec3_lerp(a, b, 0.0), a, 0.0);
		imp_vec2 l2 = imp_vec2_lerp(a2, b2, 0.0);
		assert_true(l2.x == a2.x && l2.y == a2.y);
		imp_vec3 lo = imp_vec3_min(a, b), hi = imp_vec3_max(a, b);
		assert_true(lo.x == (a.x < b.x ? a.x : b.x) && hi.y == (a.y > b.y ? a.y : b.y) &&
			    lo.z <= hi.z);
		imp_vec2 lo2 = imp_vec2_min(a2, b2), hi2 = imp_vec2_max(a2, b2);
		assert_true(lo2.x <= hi2.x && lo2.y <= hi2.y && (lo2.x == a2.x || lo2.x == b2.x));
	}
	// The zero vector, and lengths that are not finite: the zero vector.
	imp_vec3 z3 = imp_vec3_normalize(imp_vec3_make(0.0, 0.0, 0.0));
	assert_true(z3.x == 0.0 && z3.y == 0.0 && z3.z == 0.0);
	z3 = imp_vec3_normalize(imp_vec3_make(INFINITY, 1.0, 0.0));
	assert_true(z3.x == 0.0 && z3.y == 0.0 && z3.z == 0.0);
	z3 = imp_vec3_normalize(imp_vec3_make(NAN, 1.0, 0.0));
	assert_true(z3.x == 0.0 && z3.y == 0.0 && z3.z == 0.0);
	imp_vec2 z2 = imp_vec2_normalize(imp_vec2_make(-0.0, 0.0));
	assert_true(z2.x == 0.0 && z2.y == 0.0);
	// The smallest subnormal and the largest double normalize.
	z2 = imp_vec2_normalize(imp_vec2_make(4.9406564584124654e-324, 0.0));
	assert_true(z2.x == 1.0 && z2.y == 0.0);
	z3 = imp_vec3_normalize(imp_vec3_make(1.7976931348623157e308, -1.7976931348623157e308, 0.0));
	assert_true(fabs(z3.x - sqrt(0.5)) <= 2.3e-16 && fabs(z3.y + sqrt(0.5)) <= 2.3e-16 && z3.z == 0.0);
	// min/max of a NaN take the other (fmin/fmax).
	imp_vec2 m = imp_vec2_min(imp_vec2_make(NAN, 1.0), imp_vec2_make(2.0, NAN));
	assert_true(m.x == 2.0 && m.y == 1.0);
}

/// Rx(roll), Ry(pitch), Rz(yaw) written out, applied to v in that order.
static imp_vec3 rpy_by_matrices(double roll, double pitch, double yaw, imp_vec3 v)
{
	double c = cos(roll), s = sin(roll);
	imp_vec3 a = {v.x, c * v.y - s * v.z, s * v.y + c * v.z};
	c = cos(pitch);
	s = sin(pitch);
	imp_vec3 b = {c * a.x + s * a.z, a.y, -s * a.x + c * a.z};
	c = cos(yaw);
	s = sin(yaw);
	return imp_vec3_make(c * b.x - s * b.y, s * b.x + c * b.y, b.z);
}

static void test_rotations(void **state)
{
	(void)state;
	rng r = {23};
	for (int i = 0; i < CASES; i++) {
		double roll = range(&r, -3.2, 3.2), pitch = range(&r, -1.6, 1.6), yaw = range(&r, -3.2, 3.2);
		imp_quat q = imp_quat_from_rpy(roll, pitch, yaw);
		assert_true(fabs(imp_quat_dot(q, q) - 1.0) <= 1e-15);
		imp_vec3 v = random_vec3(&r, 1.0);
		near3(imp_quat_rotate(q, v), rpy_by_matrices(roll, pitch, yaw, v), 1e-14);
		// The same as three axis-angle rotations composed.
		imp_quat c = imp_quat_mul(imp_quat_from_axis_angle(imp_vec3_make(0, 0, 1), yaw),
					  imp_quat_mul(imp_quat_from_axis_angle(imp_vec3_make(0, 1, 0), pitch),
						       imp_quat_from_axis_angle(imp_vec3_make(1, 0, 0), roll)));
		assert_true(quat_angle(q, c) <= 1e-7);
		// Through the matrix and back.
		assert_true(quat_angle(imp_quat_from_mat3(imp_mat3_from_quat(q)), q) <= 1e-7);

		imp_quat a = random_quat(&r), b = random_quat(&r);
		imp_quat s0 = imp_quat_slerp(a, b, 0.0), s1 = imp_quat_slerp(a, b, 1.0);
		assert_true(quat_angle(s0, a) <= 1e-7 && quat_angle(s1, b) <= 1e-7);
		double total = quat_angle(a, b), t = uniform(&r);
		imp_quat st = imp_quat_slerp(a, b, t);
		assert_true(fabs(imp_quat_dot(st, st) - 1.0) <= 1e-15);
		// Constant speed along the shorter arc.
		assert_true(fabs(quat_angle(a, st) - t * total) <= 1e-6);
		assert_true(fabs(quat_angle(st, b) - (1.0 - t) * total) <= 1e-6);
	}
	// Equal and opposite quaternions (the same rotation), and nearly equal
	// ones (the linear branch).
	imp_quat q = imp_quat_from_rpy(0.3, -0.2, 1.1);
	imp_quat m = imp_quat_scale(-1.0, q);
	for (double t = 0.0; t <= 1.0; t += 0.25) {
		assert_true(quat_angle(imp_quat_slerp(q, q, t), q) <= 1e-7);
		assert_true(quat_angle(imp_quat_slerp(q, m, t), q) <= 1e-7);
		imp_quat near = imp_quat_mul(imp_quat_from_axis_angle(imp_vec3_make(1, 2, 3), 1e-9), q);
		imp_quat sn = imp_quat_slerp(q, near, t);
		assert_true(fabs(imp_quat_dot(sn, sn) - 1.0) <= 1e-15 && quat_angle(sn, q) <= 1e-7);
	}
}

static void test_poses(void **state)
{
	(void)state;
	rng r = {37};
	for (int i = 0; i < CASES; i++) {
		imp_pose3 a = imp_pose3_make(random_vec3(&r, 100.0), random_quat(&r));
		imp_pose3 id = imp_pose3_mul(imp_pose3_inv(a), a);
		near3(id.p, imp_vec3_make(0, 0, 0), 1e-12);
		assert_true(quat_angle(id.q, imp_quat_identity()) <= 1e-7);
		imp_vec3 v = random_vec3(&r, 10.0);
		near3(imp_pose3_apply(imp_pose3_inv(a), imp_pose3_apply(a, v)), v, 1e-12);
		near3(imp_pose3_apply(imp_pose3_inv(a), v), imp_pose3_apply_inv(a, v), 1e-12);
		imp_pose3 tr = imp_pose3_from_translation(v);
		near3(imp_pose3_apply(tr, a.p), imp_vec3_add(a.p, v), 0.0);

		double ang = range(&r, -3.2, 3.2);
		imp_pose2 b = imp_pose2_make(range(&r, -50, 50), range(&r, -50, 50), ang);
		imp_pose2 id2 = imp_pose2_mul(b, imp_pose2_inv(b));
		assert_true(fabs(id2.p.x) <= 1e-12 && fabs(id2.p.y) <= 1e-12 && fabs(id2.q.s) <= 1e-15 &&
			    fabs(id2.q.c - 1.0) <= 1e-15);
		imp_vec2 w = {v.x, v.y};
		imp_vec2 back = imp_pose2_apply(imp_pose2_inv(b), imp_pose2_apply(b, w));
		assert_true(fabs(back.x - w.x) <= 1e-12 && fabs(back.y - w.y) <= 1e-12);
		imp_pose2 t2 = imp_pose2_from_translation(w);
		assert_true(t2.p.x == w.x && t2.p.y == w.y && t2.q.c == 1.0 && t2.q.s == 0.0);
	}
}

static void test_body_id_is_null(void **state)
{
	(void)state;
	imp_body_id zero = {0, 0, 0};
	assert_true(imp_body_id_is_null(zero));
	imp_world_def d = imp_default_world_def();
	imp_world *w = NULL;
	assert_int_equal(imp_world_create(&d, &w), IMP_OK);
	imp_shape *s = NULL;
	assert_int_equal(imp_shape_sphere(imp_vec3_make(0, 0, 0), 1.0, &s), IMP_OK);
	imp_body_def bd = imp_default_body_def();
	bd.shape = s;
	imp_body_id id;
	assert_int_equal(imp_world_add_body(w, &bd, &id), IMP_OK);
	assert_false(imp_body_id_is_null(id));
	// A query that finds nothing answers the null id.
	imp_query_result near;
	imp_pose3 far = imp_pose3_from_translation(imp_vec3_make(100, 0, 0));
	assert_int_equal(imp_world_update(w), IMP_OK);
	assert_int_equal(imp_world_nearest3(w, s, far, 1.0, NULL, &near), IMP_OK);
	assert_true(imp_body_id_is_null(near.body));
	imp_world_destroy(w);
	imp_shape_destroy(s);
}

/// A quaternion read with four digits is refused, with a status string
/// that says what to do; normalized, it is taken.
static void test_rotation_status_says_what_to_do(void **state)
{
	(void)state;
	imp_shape *s = NULL;
	assert_int_equal(imp_shape_sphere(imp_vec3_make(0, 0, 0), 1.0, &s), IMP_OK);
	imp_aabb3 box;
	imp_pose3 p = imp_pose3_make(imp_vec3_make(0, 0, 0), imp_quat_make(0.7071, 0.0, 0.0, 0.7071));
	assert_int_equal(imp_shape_aabb3(s, p, &box), IMP_ERR_BAD_ROTATION);
	assert_non_null(strstr(imp_status_string(IMP_ERR_BAD_ROTATION), "imp_quat_normalize"));
	p.q = imp_quat_normalize(p.q);
	assert_int_equal(imp_shape_aabb3(s, p, &box), IMP_OK);
	imp_shape_destroy(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_vectors),
		cmocka_unit_test(test_rotations),
		cmocka_unit_test(test_poses),
		cmocka_unit_test(test_body_id_is_null),
		cmocka_unit_test(test_rotation_status_says_what_to_do),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
