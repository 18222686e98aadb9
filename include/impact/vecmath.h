// SPDX-License-Identifier: MIT
/// @file vecmath.h
/// Vectors, rotations, poses and boxes. Inline, no allocation, no checks:
/// these are the building blocks; the library's entry points check input.
#ifndef IMPACT_VECMATH_H
#define IMPACT_VECMATH_H

#include <math.h>

#ifdef __cplusplus
extern "C" {
#endif

/// A 2D vector or point.
typedef struct imp_vec2 {
	double x, y;
} imp_vec2;

/// A 2D rotation as its cosine and sine (unit length: c^2 + s^2 = 1).
typedef struct imp_rot2 {
	double c, s;
} imp_rot2;

/// A rigid 2D pose: x_world = q * x_local + p.
typedef struct imp_pose2 {
	imp_vec2 p;
	imp_rot2 q;
} imp_pose2;

/// An axis-aligned box, lo <= hi on each axis.
typedef struct imp_aabb2 {
	imp_vec2 lo, hi;
} imp_aabb2;

static inline imp_vec2 imp_vec2_make(double x, double y)
{
	imp_vec2 v = {x, y};
	return v;
}

static inline imp_vec2 imp_vec2_add(imp_vec2 a, imp_vec2 b)
{
	return imp_vec2_make(a.x + b.x, a.y + b.y);
}

static inline imp_vec2 imp_vec2_sub(imp_vec2 a, imp_vec2 b)
{
	return imp_vec2_make(a.x - b.x, a.y - b.y);
}

static inline imp_vec2 imp_vec2_scale(double s, imp_vec2 a)
{
	return imp_vec2_make(s * a.x, s * a.y);
}

static inline double imp_vec2_dot(imp_vec2 a, imp_vec2 b)
{
	return a.x * b.x + a.y * b.y;
}

/// The z of the 3D cross product (a.x, a.y, 0) x (b.x, b.y, 0).
static inline double imp_vec2_cross(imp_vec2 a, imp_vec2 b)
{
	return a.x * b.y - a.y * b.x;
}

static inline double imp_vec2_length(imp_vec2 a)
{
	return sqrt(a.x * a.x + a.y * a.y);
}

static inline double imp_vec2_length_sq(imp_vec2 a)
{
	return a.x * a.x + a.y * a.y;
}

static inline imp_vec2 imp_vec2_neg(imp_vec2 a)
{
	return imp_vec2_make(-a.x, -a.y);
}

/// a scaled to unit length; the zero vector for a zero vector (and for one
/// with a component not finite), so that a caller tests the answer, not
/// the input (Box2D's b2Normalize does the same). Scaled by its largest
/// component first: subnormal and huge vectors normalize too.
static inline imp_vec2 imp_vec2_normalize(imp_vec2 a)
{
	double m = fmax(fabs(a.x), fabs(a.y));
	if (!(m > 0.0) || !isfinite(m) || isnan(a.x) || isnan(a.y))
		return imp_vec2_make(0.0, 0.0);
	imp_vec2 b = {a.x / m, a.y / m};
	double l = imp_vec2_length(b);
	return imp_vec2_make(b.x / l, b.y / l);
}

/// a + t (b - a): a at t = 0, b at t = 1.
static inline imp_vec2 imp_vec2_lerp(imp_vec2 a, imp_vec2 b, double t)
{
	return imp_vec2_make(a.x + t * (b.x - a.x), a.y + t * (b.y - a.y));
}

/// The componentwise minimum and maximum.
static inline imp_vec2 imp_vec2_min(imp_vec2 a, imp_vec2 b)
{
	return imp_vec2_make(fmin(a.x, b.x), fmin(a.y, b.y));
}

static inline imp_vec2 imp_vec2_max(imp_vec2 a, imp_vec2 b)
{
	return imp_vec2_make(fmax(a.x, b.x), fmax(a.y, b.y));
}

/// The rotation by `angle` radians (counter-clockwise).
static inline imp_rot2 imp_rot2_make(double angle)
{
	imp_rot2 q = {cos(angle), sin(angle)};
	return q;
}

static inline imp_rot2 imp_rot2_identity(void)
{
	imp_rot2 q = {1.0, 0.0};
	return q;
}

static inline double imp_rot2_angle(imp_rot2 q)
{
	return atan2(q.s, q.c);
}

static inline imp_vec2 imp_rot2_apply(imp_rot2 q, imp_vec2 v)
{
	return imp_vec2_make(q.c * v.x - q.s * v.y, q.s * v.x + q.c * v.y);
}

static inline imp_vec2 imp_rot2_apply_inv(imp_rot2 q, imp_vec2 v)
{
	return imp_vec2_make(q.c * v.x + q.s * v.y, -q.s * v.x + q.c * v.y);
}

/// q * r (first r, then q).
static inline imp_rot2 imp_rot2_mul(imp_rot2 q, imp_rot2 r)
{
	imp_rot2 o = {q.c * r.c - q.s * r.s, q.s * r.c + q.c * r.s};
	return o;
}

/// q^-1 * r.
static inline imp_rot2 imp_rot2_mul_inv(imp_rot2 q, imp_rot2 r)
{
	imp_rot2 o = {q.c * r.c + q.s * r.s, q.c * r.s - q.s * r.c};
	return o;
}

/// The pose at (x, y) turned by `angle` radians.
static inline imp_pose2 imp_pose2_make(double x, double y, double angle)
{
	imp_pose2 t = {{x, y}, imp_rot2_make(angle)};
	return t;
}

static inline imp_pose2 imp_pose2_identity(void)
{
	imp_pose2 t = {{0.0, 0.0}, {1.0, 0.0}};
	return t;
}

/// A local point to the world.
static inline imp_vec2 imp_pose2_apply(imp_pose2 t, imp_vec2 v)
{
	return imp_vec2_add(imp_rot2_apply(t.q, v), t.p);
}

/// A world point to the local frame.
static inline imp_vec2 imp_pose2_apply_inv(imp_pose2 t, imp_vec2 v)
{
	return imp_rot2_apply_inv(t.q, imp_vec2_sub(v, t.p));
}

/// a * b: first b, then a.
static inline imp_pose2 imp_pose2_mul(imp_pose2 a, imp_pose2 b)
{
	imp_pose2 o = {imp_pose2_apply(a, b.p), imp_rot2_mul(a.q, b.q)};
	return o;
}

/// a^-1 * b: b expressed in a's frame.
static inline imp_pose2 imp_pose2_mul_inv(imp_pose2 a, imp_pose2 b)
{
	imp_pose2 o = {imp_pose2_apply_inv(a, b.p), imp_rot2_mul_inv(a.q, b.q)};
	return o;
}

/// The pose that undoes a: imp_pose2_mul(imp_pose2_inv(a), a) is the
/// identity (to rounding).
static inline imp_pose2 imp_pose2_inv(imp_pose2 a)
{
	return imp_pose2_mul_inv(a, imp_pose2_identity());
}

/// A translation only.
static inline imp_pose2 imp_pose2_from_translation(imp_vec2 p)
{
	imp_pose2 o = {p, imp_rot2_identity()};
	return o;
}

static inline int imp_aabb2_overlap(imp_aabb2 a, imp_aabb2 b)
{
	return a.lo.x <= b.hi.x && b.lo.x <= a.hi.x && a.lo.y <= b.hi.y && b.lo.y <= a.hi.y;
}

// ---------------------------------------------------------------------------
// 3D

/// A 3D vector or point.
typedef struct imp_vec3 {
	double x, y, z;
} imp_vec3;

/// A 3D rotation as a unit quaternion (x, y, z vector part, w scalar part).
typedef struct imp_quat {
	double x, y, z, w;
} imp_quat;

/// A 3D rotation as a matrix, rows first: x_world = m * x_local. The
/// queries turn a pose's quaternion into one once per call (a matrix
/// rotates a vector in 15 operations, a quaternion in about 30); users who
/// hold matrices convert with imp_quat_from_mat3.
typedef struct imp_mat3 {
	double m[3][3];
} imp_mat3;

/// A rigid 3D pose: x_world = q * x_local + p.
typedef struct imp_pose3 {
	imp_vec3 p;
	imp_quat q;
} imp_pose3;

/// An axis-aligned 3D box, lo <= hi on each axis.
typedef struct imp_aabb3 {
	imp_vec3 lo, hi;
} imp_aabb3;

static inline imp_vec3 imp_vec3_make(double x, double y, double z)
{
	imp_vec3 v = {x, y, z};
	return v;
}

static inline imp_vec3 imp_vec3_add(imp_vec3 a, imp_vec3 b)
{
	return imp_vec3_make(a.x + b.x, a.y + b.y, a.z + b.z);
}

static inline imp_vec3 imp_vec3_sub(imp_vec3 a, imp_vec3 b)
{
	return imp_vec3_make(a.x - b.x, a.y - b.y, a.z - b.z);
}

static inline imp_vec3 imp_vec3_scale(double s, imp_vec3 a)
{
	return imp_vec3_make(s * a.x, s * a.y, s * a.z);
}

static inline imp_vec3 imp_vec3_neg(imp_vec3 a)
{
	return imp_vec3_make(-a.x, -a.y, -a.z);
}

static inline double imp_vec3_dot(imp_vec3 a, imp_vec3 b)
{
	return a.x * b.x + a.y * b.y + a.z * b.z;
}

static inline imp_vec3 imp_vec3_cross(imp_vec3 a, imp_vec3 b)
{
	return imp_vec3_make(a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x);
}

static inline double imp_vec3_length(imp_vec3 a)
{
	return sqrt(imp_vec3_dot(a, a));
}

static inline double imp_vec3_length_sq(imp_vec3 a)
{
	return imp_vec3_dot(a, a);
}

/// a scaled to unit length; the zero vector for a zero vector (and for one
/// with a component not finite). Scaled by its largest component first:
/// subnormal and huge vectors normalize too.
static inline imp_vec3 imp_vec3_normalize(imp_vec3 a)
{
	double m = fmax(fmax(fabs(a.x), fabs(a.y)), fabs(a.z));
	if (!(m > 0.0) || !isfinite(m) || isnan(a.x) || isnan(a.y) || isnan(a.z))
		return imp_vec3_make(0.0, 0.0, 0.0);
	imp_vec3 b = {a.x / m, a.y / m, a.z / m};
	double l = imp_vec3_length(b);
	return imp_vec3_make(b.x / l, b.y / l, b.z / l);
}

/// a + t (b - a): a at t = 0, b at t = 1.
static inline imp_vec3 imp_vec3_lerp(imp_vec3 a, imp_vec3 b, double t)
{
	return imp_vec3_make(a.x + t * (b.x - a.x), a.y + t * (b.y - a.y), a.z + t * (b.z - a.z));
}

/// The componentwise minimum and maximum.
static inline imp_vec3 imp_vec3_min(imp_vec3 a, imp_vec3 b)
{
	return imp_vec3_make(fmin(a.x, b.x), fmin(a.y, b.y), fmin(a.z, b.z));
}

static inline imp_vec3 imp_vec3_max(imp_vec3 a, imp_vec3 b)
{
	return imp_vec3_make(fmax(a.x, b.x), fmax(a.y, b.y), fmax(a.z, b.z));
}

static inline imp_quat imp_quat_make(double x, double y, double z, double w)
{
	imp_quat q = {x, y, z, w};
	return q;
}

static inline imp_quat imp_quat_identity(void)
{
	imp_quat q = {0.0, 0.0, 0.0, 1.0};
	return q;
}

/// The rotation by `angle` radians about `axis` (any non-zero length).
static inline imp_quat imp_quat_from_axis_angle(imp_vec3 axis, double angle)
{
	double l = imp_vec3_length(axis);
	double s = l > 0.0 ? sin(0.5 * angle) / l : 0.0;
	imp_quat q = {axis.x * s, axis.y * s, axis.z * s, l > 0.0 ? cos(0.5 * angle) : 1.0};
	return q;
}

/// q * r (first r, then q).
static inline imp_quat imp_quat_mul(imp_quat q, imp_quat r)
{
	imp_quat o = {q.w * r.x + q.x * r.w + q.y * r.z - q.z * r.y, q.w * r.y - q.x * r.z + q.y * r.w + q.z * r.x,
		      q.w * r.z + q.x * r.y - q.y * r.x + q.z * r.w, q.w * r.w - q.x * r.x - q.y * r.y - q.z * r.z};
	return o;
}

/// The inverse of a unit quaternion.
static inline imp_quat imp_quat_conj(imp_quat q)
{
	imp_quat o = {-q.x, -q.y, -q.z, q.w};
	return o;
}

static inline imp_quat imp_quat_scale(double s, imp_quat q)
{
	imp_quat o = {s * q.x, s * q.y, s * q.z, s * q.w};
	return o;
}

/// q scaled to unit length (the identity for a zero quaternion).
static inline imp_quat imp_quat_normalize(imp_quat q)
{
	double l = sqrt(q.x * q.x + q.y * q.y + q.z * q.z + q.w * q.w);
	if (!(l > 0.0))
		return imp_quat_identity();
	imp_quat o = {q.x / l, q.y / l, q.z / l, q.w / l};
	return o;
}

static inline double imp_quat_dot(imp_quat q, imp_quat r)
{
	return q.x * r.x + q.y * r.y + q.z * r.z + q.w * r.w;
}

/// Roll about x, then pitch about y, then yaw about z, all about the fixed
/// axes (URDF's and ROS's rpy): Rz(yaw) Ry(pitch) Rx(roll).
static inline imp_quat imp_quat_from_rpy(double roll, double pitch, double yaw)
{
	double cr = cos(0.5 * roll), sr = sin(0.5 * roll);
	double cp = cos(0.5 * pitch), sp = sin(0.5 * pitch);
	double cy = cos(0.5 * yaw), sy = sin(0.5 * yaw);
	imp_quat q = {sr * cp * cy - cr * sp * sy, cr * sp * cy + sr * cp * sy, cr * cp * sy - sr * sp * cy,
		      cr * cp * cy + sr * sp * sy};
	return q;
}

/// The rotation a fraction t of the way from unit quaternion q to r along
/// the shorter arc, at constant angular speed (q at t = 0, r or -r at
/// t = 1); unit length. Nearly equal rotations are interpolated linearly
/// and normalized, where the arc's formula would divide by almost zero.
static inline imp_quat imp_quat_slerp(imp_quat q, imp_quat r, double t)
{
	double d = imp_quat_dot(q, r);
	if (d < 0.0) {
		d = -d;
		r = imp_quat_scale(-1.0, r);
	}
	double a, b;
	if (d > 0.9995) {
		a = 1.0 - t;
		b = t;
	} else {
		double th = acos(d), sn = sin(th);
		a = sin((1.0 - t) * th) / sn;
		b = sin(t * th) / sn;
	}
	return imp_quat_normalize(
		imp_quat_make(a * q.x + b * r.x, a * q.y + b * r.y, a * q.z + b * r.z, a * q.w + b * r.w));
}

/// Rotates v by the unit quaternion q.
static inline imp_vec3 imp_quat_rotate(imp_quat q, imp_vec3 v)
{
	// v + 2w (u x v) + 2 u x (u x v), u the vector part.
	imp_vec3 u = {q.x, q.y, q.z};
	imp_vec3 t = imp_vec3_scale(2.0, imp_vec3_cross(u, v));
	return imp_vec3_add(imp_vec3_add(v, imp_vec3_scale(q.w, t)), imp_vec3_cross(u, t));
}

static inline imp_vec3 imp_quat_rotate_inv(imp_quat q, imp_vec3 v)
{
	return imp_quat_rotate(imp_quat_conj(q), v);
}

/// The matrix of quaternion q with the products of its components scaled
/// by f: f = 2 for a unit q, 2 / |q|^2 for the rotation of q / |q|.
static inline imp_mat3 imp_mat3_from_quat_scaled(imp_quat q, double f)
{
	double x2 = q.x * f, y2 = q.y * f, z2 = q.z * f;
	double xx = q.x * x2, yy = q.y * y2, zz = q.z * z2;
	double xy = q.x * y2, xz = q.x * z2, yz = q.y * z2;
	double wx = q.w * x2, wy = q.w * y2, wz = q.w * z2;
	imp_mat3 r = {{{1.0 - (yy + zz), xy - wz, xz + wy},
		       {xy + wz, 1.0 - (xx + zz), yz - wx},
		       {xz - wy, yz + wx, 1.0 - (xx + yy)}}};
	return r;
}

/// The matrix of the unit quaternion q.
static inline imp_mat3 imp_mat3_from_quat(imp_quat q)
{
	return imp_mat3_from_quat_scaled(q, 2.0);
}

/// The unit quaternion of a rotation matrix (Shepperd's method: the
/// largest of the four candidates, so no division by a small number).
static inline imp_quat imp_quat_from_mat3(imp_mat3 r)
{
	double(*m)[3] = r.m;
	double tr = m[0][0] + m[1][1] + m[2][2];
	imp_quat q;
	if (tr >= m[0][0] && tr >= m[1][1] && tr >= m[2][2]) {
		double s = 2.0 * sqrt(1.0 + tr);
		q = imp_quat_make((m[2][1] - m[1][2]) / s, (m[0][2] - m[2][0]) / s, (m[1][0] - m[0][1]) / s, 0.25 * s);
	} else if (m[0][0] >= m[1][1] && m[0][0] >= m[2][2]) {
		double s = 2.0 * sqrt(1.0 + m[0][0] - m[1][1] - m[2][2]);
		q = imp_quat_make(0.25 * s, (m[0][1] + m[1][0]) / s, (m[0][2] + m[2][0]) / s, (m[2][1] - m[1][2]) / s);
	} else if (m[1][1] >= m[2][2]) {
		double s = 2.0 * sqrt(1.0 + m[1][1] - m[0][0] - m[2][2]);
		q = imp_quat_make((m[0][1] + m[1][0]) / s, 0.25 * s, (m[1][2] + m[2][1]) / s, (m[0][2] - m[2][0]) / s);
	} else {
		double s = 2.0 * sqrt(1.0 + m[2][2] - m[0][0] - m[1][1]);
		q = imp_quat_make((m[0][2] + m[2][0]) / s, (m[1][2] + m[2][1]) / s, 0.25 * s, (m[1][0] - m[0][1]) / s);
	}
	return imp_quat_normalize(q);
}

/// m * v.
static inline imp_vec3 imp_mat3_apply(const imp_mat3 *r, imp_vec3 v)
{
	const double(*m)[3] = r->m;
	return imp_vec3_make(m[0][0] * v.x + m[0][1] * v.y + m[0][2] * v.z, m[1][0] * v.x + m[1][1] * v.y + m[1][2] * v.z,
			     m[2][0] * v.x + m[2][1] * v.y + m[2][2] * v.z);
}

/// m^T * v (the inverse rotation).
static inline imp_vec3 imp_mat3_apply_t(const imp_mat3 *r, imp_vec3 v)
{
	const double(*m)[3] = r->m;
	return imp_vec3_make(m[0][0] * v.x + m[1][0] * v.y + m[2][0] * v.z, m[0][1] * v.x + m[1][1] * v.y + m[2][1] * v.z,
			     m[0][2] * v.x + m[1][2] * v.y + m[2][2] * v.z);
}

/// a^T * b.
static inline imp_mat3 imp_mat3_mul_t(const imp_mat3 *a, const imp_mat3 *b)
{
	imp_mat3 o;
	for (int i = 0; i < 3; ++i)
		for (int j = 0; j < 3; ++j)
			o.m[i][j] = a->m[0][i] * b->m[0][j] + a->m[1][i] * b->m[1][j] + a->m[2][i] * b->m[2][j];
	return o;
}

static inline imp_pose3 imp_pose3_identity(void)
{
	imp_pose3 t = {{0.0, 0.0, 0.0}, {0.0, 0.0, 0.0, 1.0}};
	return t;
}

/// The pose at p turned by the unit quaternion q.
static inline imp_pose3 imp_pose3_make(imp_vec3 p, imp_quat q)
{
	imp_pose3 t = {p, q};
	return t;
}

/// A local point to the world.
static inline imp_vec3 imp_pose3_apply(imp_pose3 t, imp_vec3 v)
{
	return imp_vec3_add(imp_quat_rotate(t.q, v), t.p);
}

/// A world point to the local frame.
static inline imp_vec3 imp_pose3_apply_inv(imp_pose3 t, imp_vec3 v)
{
	return imp_quat_rotate_inv(t.q, imp_vec3_sub(v, t.p));
}

/// a * b: first b, then a.
static inline imp_pose3 imp_pose3_mul(imp_pose3 a, imp_pose3 b)
{
	imp_pose3 o = {imp_pose3_apply(a, b.p), imp_quat_mul(a.q, b.q)};
	return o;
}

/// a^-1 * b: b expressed in a's frame.
static inline imp_pose3 imp_pose3_mul_inv(imp_pose3 a, imp_pose3 b)
{
	imp_pose3 o = {imp_pose3_apply_inv(a, b.p), imp_quat_mul(imp_quat_conj(a.q), b.q)};
	return o;
}

/// The pose that undoes a: imp_pose3_mul(imp_pose3_inv(a), a) is the
/// identity (to rounding).
static inline imp_pose3 imp_pose3_inv(imp_pose3 a)
{
	return imp_pose3_mul_inv(a, imp_pose3_identity());
}

/// A translation only.
static inline imp_pose3 imp_pose3_from_translation(imp_vec3 p)
{
	return imp_pose3_make(p, imp_quat_identity());
}

static inline int imp_aabb3_overlap(imp_aabb3 a, imp_aabb3 b)
{
	return a.lo.x <= b.hi.x && b.lo.x <= a.hi.x && a.lo.y <= b.hi.y && b.lo.y <= a.hi.y && a.lo.z <= b.hi.z &&
	       b.lo.z <= a.hi.z;
}

#ifdef __cplusplus
}
#endif

#endif
