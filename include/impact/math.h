// SPDX-License-Identifier: MIT
/// @file math.h
/// Vectors, rotations, poses and boxes. Inline, no allocation, no checks:
/// these are the building blocks; the library's entry points check input.
#ifndef IMPACT_MATH_H
#define IMPACT_MATH_H

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

static inline int imp_aabb2_overlap(imp_aabb2 a, imp_aabb2 b)
{
	return a.lo.x <= b.hi.x && b.lo.x <= a.hi.x && a.lo.y <= b.hi.y && b.lo.y <= a.hi.y;
}

#ifdef __cplusplus
}
#endif

#endif
