// SPDX-License-Identifier: MIT
// 3D shapes: what each constructor makes, supports against brute force and
// against points sampled on the surfaces, AABBs, topology accessors.
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

#include "oracle3d.h"

static imp_pose3 ident(void)
{
	return imp_pose3_identity();
}

/// A point of the rounded shape's surface in local direction `u` (unit),
/// and the support itself, must agree: s . u >= p . u for every sampled
/// surface point p, with equality at the sample taken along u.
static double support_along(const imp_shape *s, imp_pose3 pose, imp_vec3 d)
{
	imp_vec3 p;
	assert_int_equal(imp_shape_support3(s, pose, d, &p), IMP_OK);
	return imp_vec3_dot(p, d);
}

static void test_polytope_basics(void **state)
{
	(void)state;
	imp_vec3 cube[8];
	for (int k = 0; k < 8; ++k)
		cube[k] = imp_vec3_make(k & 1 ? 1 : -1, k & 2 ? 1 : -1, k & 4 ? 1 : -1);
	imp_shape *s;
	assert_int_equal(imp_shape_polytope(cube, 8, 0.0, &s), IMP_OK);
	assert_int_equal(imp_shape_dim(s), 3);
	assert_int_equal(imp_shape_kind_of(s), IMP_SHAPE_POLYTOPE);
	assert_int_equal(imp_shape_vertex_count(s), 8);
	assert_int_equal(imp_shape_face_count(s), 6);
	assert_int_equal(imp_shape_edge_count(s), 12);
	// Every face a quad, every edge of length 2.
	for (int f = 0; f < 6; ++f) {
		int idx[8];
		assert_int_equal(imp_shape_face(s, f, idx, 8), 4);
	}
	imp_vec3 v[8];
	assert_int_equal(imp_shape_vertices3(s, v, 8), 8);
	for (int e = 0; e < 12; ++e) {
		int a, b;
		assert_int_equal(imp_shape_edge(s, e, &a, &b), IMP_OK);
		assert_true(fabs(imp_vec3_length(imp_vec3_sub(v[a], v[b])) - 2.0) < 1e-15);
	}
	// 2D accessors refuse it, 3D ones refuse 2D shapes.
	imp_vec2 out2[4];
	assert_int_equal(imp_shape_vertices2(s, out2, 4), -1);
	imp_shape *sq;
	assert_int_equal(imp_shape_box2(1, 1, 0, &sq), IMP_OK);
	assert_int_equal(imp_shape_vertices3(sq, v, 8), -1);
	assert_int_equal(imp_shape_face_count(sq), -1);
	imp_shape_destroy(sq);
	// Support along the diagonal is the corner (+1, +1, +1).
	imp_vec3 p;
	assert_int_equal(imp_shape_support3(s, ident(), imp_vec3_make(1, 2, 3), &p), IMP_OK);
	assert_true(p.x == 1 && p.y == 1 && p.z == 1);
	imp_shape_destroy(s);

	// Degenerate clouds give the hull that exists.
	imp_vec3 same[5] = {{1, 2, 3}, {1, 2, 3}, {1, 2, 3}, {1, 2, 3}, {1, 2, 3}};
	assert_int_equal(imp_shape_polytope(same, 5, 0.5, &s), IMP_OK);
	assert_int_equal(imp_shape_vertex_count(s), 1);
	assert_int_equal(imp_shape_face_count(s), 0);
	imp_shape_destroy(s);
	imp_vec3 line[4] = {{0, 0, 0}, {1, 1, 1}, {3, 3, 3}, {2, 2, 2}};
	assert_int_equal(imp_shape_polytope(line, 4, 0.0, &s), IMP_OK);
	assert_int_equal(imp_shape_vertex_count(s), 2);
	assert_int_equal(imp_shape_edge_count(s), 1);
	imp_shape_destroy(s);
	imp_vec3 flat[6] = {{0, 0, 1}, {1, 0, 1}, {1, 1, 1}, {0, 1, 1}, {0.5, 0.5, 1}, {0.5, 0, 1}};
	assert_int_equal(imp_shape_polytope(flat, 6, 0.0, &s), IMP_OK);
	assert_int_equal(imp_shape_vertex_count(s), 4);
	assert_int_equal(imp_shape_face_count(s), 1);
	assert_int_equal(imp_shape_edge_count(s), 4);
	imp_shape_destroy(s);
}

/// Supports of every kind, checked against surface samples: no sample
/// reaches farther along the direction than the support, and the support
/// lies on the surface (its own distance from the core is the radius).
static void test_supports_sampled(void **state)
{
	(void)state;
	imp_shape *shapes[8];
	imp_vec3 pts[20];
	o3_rng r = {7};
	for (int i = 0; i < 20; ++i)
		pts[i] = o3_vec(&r, -1, 1);
	assert_int_equal(imp_shape_polytope(pts, 20, 0.1, &shapes[0]), IMP_OK);
	assert_int_equal(imp_shape_sphere(imp_vec3_make(0.1, 0.2, 0.3), 0.7, &shapes[1]), IMP_OK);
	assert_int_equal(imp_shape_capsule3(imp_vec3_make(0, 0, -1), imp_vec3_make(0.2, 0.1, 1), 0.3, &shapes[2]),
			 IMP_OK);
	assert_int_equal(imp_shape_box3(1, 0.5, 0.25, 0.05, &shapes[3]), IMP_OK);
	assert_int_equal(imp_shape_cylinder(0.8, 0.4, 0.0, &shapes[4]), IMP_OK);
	assert_int_equal(imp_shape_cone(0.8, 0.5, 0.1, &shapes[5]), IMP_OK);
	assert_int_equal(imp_shape_ellipsoid(1.0, 0.5, 0.3, 0.0, &shapes[6]), IMP_OK);
	assert_int_equal(imp_shape_ellipsoid(0.6, 0.6, 0.6, 0.2, &shapes[7]), IMP_OK);
	for (int k = 0; k < 8; ++k) {
		imp_pose3 pose = o3_pose(&r, 3.0);
		// The support along d must reach at least as far as the support
		// along any other direction (each a point of the shape).
		imp_vec3 sup[200];
		imp_vec3 dir[200];
		for (int i = 0; i < 200; ++i) {
			dir[i] = o3_unit(&r);
			assert_int_equal(imp_shape_support3(shapes[k], pose, dir[i], &sup[i]), IMP_OK);
		}
		for (int i = 0; i < 200; ++i) {
			double best = imp_vec3_dot(sup[i], dir[i]);
			for (int j = 0; j < 200; ++j)
				if (!(imp_vec3_dot(sup[j], dir[i]) <= best + 1e-12))
					fail_msg("shape %d: support %d beaten by %d", k, i, j);
			// The direction's length does not matter.
			double tiny = support_along(shapes[k], pose, imp_vec3_scale(1e-200, dir[i])) / 1e-200;
			if (!(fabs(tiny - best) <= 1e-12 * fmax(1.0, fabs(best))))
				fail_msg("shape %d: support along a 1e-200 direction reaches %.17g, not %.17g", k, tiny,
					 best);
		}
		// The AABB holds every support and touches the extreme ones.
		imp_aabb3 box;
		assert_int_equal(imp_shape_aabb3(shapes[k], pose, &box), IMP_OK);
		for (int i = 0; i < 200; ++i) {
			assert_true(sup[i].x >= box.lo.x - 1e-12 && sup[i].x <= box.hi.x + 1e-12);
			assert_true(sup[i].y >= box.lo.y - 1e-12 && sup[i].y <= box.hi.y + 1e-12);
			assert_true(sup[i].z >= box.lo.z - 1e-12 && sup[i].z <= box.hi.z + 1e-12);
		}
		imp_vec3 px;
		assert_int_equal(imp_shape_support3(shapes[k], pose, imp_vec3_make(1, 0, 0), &px), IMP_OK);
		assert_true(fabs(px.x - box.hi.x) <= 1e-12 * fmax(1.0, fabs(px.x)));
		assert_int_equal(imp_shape_support3(shapes[k], pose, imp_vec3_make(0, 0, -1), &px), IMP_OK);
		assert_true(fabs(px.z - box.lo.z) <= 1e-12 * fmax(1.0, fabs(px.z)));
	}
	// Analytic supports.
	imp_vec3 p;
	assert_int_equal(imp_shape_support3(shapes[4], ident(), imp_vec3_make(3, 4, 1), &p), IMP_OK);
	assert_true(fabs(p.x - 0.24) < 1e-15 && fabs(p.y - 0.32) < 1e-15 && p.z == 0.8);
	assert_int_equal(imp_shape_support3(shapes[5], ident(), imp_vec3_make(0, 0, 1), &p), IMP_OK);
	assert_true(p.x == 0 && p.y == 0 && fabs(p.z - 0.9) < 1e-15); // apex plus radius
	assert_int_equal(imp_shape_support3(shapes[6], ident(), imp_vec3_make(0, 1, 0), &p), IMP_OK);
	assert_true(p.x == 0 && fabs(p.y - 0.5) < 1e-15 && p.z == 0);
	assert_int_equal(imp_shape_support3(shapes[3], ident(), imp_vec3_make(-1, 1, -1), &p), IMP_OK);
	imp_vec3 corner = {-1, 0.5, -0.25};
	imp_vec3 n = imp_vec3_scale(0.05 / sqrt(3.0), imp_vec3_make(-1, 1, -1));
	assert_true(imp_vec3_length(imp_vec3_sub(p, imp_vec3_add(corner, n))) < 1e-15);
	for (int k = 0; k < 8; ++k)
		imp_shape_destroy(shapes[k]);
}

/// The ellipsoid's support is the surface point whose normal is d: its
/// distance (point-ellipsoid oracle) from a point far along d matches.
static void test_ellipsoid_support_oracle(void **state)
{
	(void)state;
	o3_rng r = {11};
	imp_vec3 e = {1.3, 0.4, 0.7};
	imp_shape *s;
	assert_int_equal(imp_shape_ellipsoid(e.x, e.y, e.z, 0.0, &s), IMP_OK);
	for (int i = 0; i < 10000; ++i) {
		imp_vec3 d = o3_unit(&r);
		imp_vec3 p;
		assert_int_equal(imp_shape_support3(s, ident(), d, &p), IMP_OK);
		// On the surface.
		double f = p.x * p.x / (e.x * e.x) + p.y * p.y / (e.y * e.y) + p.z * p.z / (e.z * e.z);
		assert_true(fabs(f - 1.0) < 1e-14);
		// The oracle's nearest point to p + 5 d is p itself.
		imp_vec3 q = imp_vec3_add(p, imp_vec3_scale(5.0, d)), c;
		double dist = o3_point_ellipsoid_distance(q, e, &c);
		assert_true(fabs(dist - 5.0) < 1e-12);
		assert_true(imp_vec3_length(imp_vec3_sub(c, p)) < 1e-9);
	}
	imp_shape_destroy(s);
}

static imp_vec3 sphere_support(const void *user, imp_vec3 d)
{
	double r = *(const double *)user;
	return imp_vec3_scale(r / imp_vec3_length(d), d);
}

/// A box's AABB (|R| h) is the AABB of its eight corners made a polytope,
/// to the bit, at random poses and at axis-aligned ones.
static void test_box_aabb_matches_corners(void **state)
{
	(void)state;
	o3_rng r = {0xB0C5};
	for (int t = 0; t < 2000; ++t) {
		double h[3];
		for (int k = 0; k < 3; ++k)
			h[k] = t % 7 == 0 ? 1e-9 : o3_range(&r, 1e-3, 10.0);
		double radius = t % 3 == 0 ? 0.0 : o3_range(&r, 0.0, 1.0);
		imp_vec3 c[8];
		for (int k = 0; k < 8; ++k)
			c[k] = imp_vec3_make(k & 1 ? h[0] : -h[0], k & 2 ? h[1] : -h[1], k & 4 ? h[2] : -h[2]);
		imp_shape *box = NULL, *hull = NULL;
		assert_int_equal(imp_shape_box3(h[0], h[1], h[2], radius, &box), IMP_OK);
		assert_int_equal(imp_shape_polytope(c, 8, radius, &hull), IMP_OK);
		imp_pose3 pose = o3_pose(&r, 100.0);
		if (t % 5 == 0)
			pose.q = imp_quat_make(0, 0, 0, 1);
		imp_aabb3 a, b;
		assert_int_equal(imp_shape_aabb3(box, pose, &a), IMP_OK);
		assert_int_equal(imp_shape_aabb3(hull, pose, &b), IMP_OK);
		assert_memory_equal(&a, &b, sizeof a);
		imp_shape_destroy(box);
		imp_shape_destroy(hull);
	}
}

static uint64_t box_rng(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/// Index of the point equal to p in v[0..n), or -1.
static int find_point(const imp_vec3 *v, int n, imp_vec3 p)
{
	for (int i = 0; i < n; ++i)
		if (v[i].x == p.x && v[i].y == p.y && v[i].z == p.z)
			return i;
	return -1;
}

/// imp_shape_box3 makes its hull directly; the hull of the same eight
/// corners by quickhull (imp_shape_polytope) must be the same polytope:
/// the same vertices, edges and faces (each face's ring in the same
/// cyclic order), and the same supports. Sizes from 1e-6 to 1e6 on each
/// axis, so thin slabs and needles too (test_thin_box goes below the
/// hull's tolerance, where the polytope is flat and the box is not).
static void test_box_matches_hull(void **state)
{
	(void)state;
	uint64_t seed = 0xb0c5b0c5;
	for (int t = 0; t < 400; ++t) {
		double h[3];
		for (int k = 0; k < 3; ++k)
			h[k] = pow(10.0, -6.0 + 12.0 * (double)(box_rng(&seed) >> 11) * 0x1p-53);
		if (t % 50 == 0) {
			// Just above and below 1e-12 of the sum.
			h[0] = 1.0;
			h[1] = 2.0;
			h[2] = (t % 100 == 0 ? 4e-12 : 2e-13) * 3.0;
		}
		imp_vec3 corner[8];
		for (int k = 0; k < 8; ++k)
			corner[k] = imp_vec3_make(k & 1 ? h[0] : -h[0], k & 2 ? h[1] : -h[1], k & 4 ? h[2] : -h[2]);
		imp_shape *box, *hull;
		assert_int_equal(imp_shape_box3(h[0], h[1], h[2], 0.0, &box), IMP_OK);
		assert_int_equal(imp_shape_polytope(corner, 8, 0.0, &hull), IMP_OK);
		int nv = imp_shape_vertex_count(box), nf = imp_shape_face_count(box), ne = imp_shape_edge_count(box);
		assert_int_equal(nv, imp_shape_vertex_count(hull));
		assert_int_equal(nf, imp_shape_face_count(hull));
		assert_int_equal(ne, imp_shape_edge_count(hull));
		imp_vec3 vb[8], vh[8];
		assert_int_equal(imp_shape_vertices3(box, vb, 8), nv);
		assert_int_equal(imp_shape_vertices3(hull, vh, 8), nv);
		int map[8]; // box vertex -> hull vertex
		for (int i = 0; i < nv; ++i) {
			map[i] = find_point(vh, nv, vb[i]);
			assert_true(map[i] >= 0);
		}
		for (int e = 0; e < ne; ++e) {
			int a, b, found = 0;
			assert_int_equal(imp_shape_edge(box, e, &a, &b), IMP_OK);
			for (int g = 0; g < ne; ++g) {
				int c, d;
				assert_int_equal(imp_shape_edge(hull, g, &c, &d), IMP_OK);
				found += (c == map[a] && d == map[b]) || (c == map[b] && d == map[a]);
			}
			assert_int_equal(found, 1);
		}
		for (int f = 0; f < nf; ++f) {
			int rb[8], n = imp_shape_face(box, f, rb, 8), found = 0;
			for (int g = 0; g < nf; ++g) {
				int rh[8];
				if (imp_shape_face(hull, g, rh, 8) != n)
					continue;
				for (int shift = 0; shift < n; ++shift) {
					bool same = true;
					for (int i = 0; i < n; ++i)
						same = same && map[rb[i]] == rh[(i + shift) % n];
					found += same;
				}
			}
			assert_int_equal(found, 1);
		}
		for (int d = 0; d < 20; ++d) {
			imp_vec3 u = {(double)(int64_t)box_rng(&seed), (double)(int64_t)box_rng(&seed),
				      (double)(int64_t)box_rng(&seed)};
			imp_vec3 pb, ph;
			assert_int_equal(imp_shape_support3(box, ident(), u, &pb), IMP_OK);
			assert_int_equal(imp_shape_support3(hull, ident(), u, &ph), IMP_OK);
			assert_true(imp_vec3_dot(pb, u) == imp_vec3_dot(ph, u));
		}
		imp_shape_destroy(box);
		imp_shape_destroy(hull);
	}
}

static void test_user_shape(void **state)
{
	(void)state;
	double r = 0.75;
	imp_shape *u, *s;
	assert_int_equal(imp_shape_user3(sphere_support, &r, 0.25, &u), IMP_OK);
	assert_int_equal(imp_shape_kind_of(u), IMP_SHAPE_USER3);
	assert_int_equal(imp_shape_vertex_count(u), 0);
	assert_int_equal(imp_shape_sphere(imp_vec3_make(0, 0, 0), 1.0, &s), IMP_OK);
	imp_aabb3 b1, b2;
	imp_pose3 pose = {{1, 2, 3}, imp_quat_from_axis_angle(imp_vec3_make(1, 1, 0), 0.3)};
	assert_int_equal(imp_shape_aabb3(u, pose, &b1), IMP_OK);
	assert_int_equal(imp_shape_aabb3(s, pose, &b2), IMP_OK);
	assert_true(fabs(b1.lo.x - b2.lo.x) < 1e-14 && fabs(b1.hi.z - b2.hi.z) < 1e-14);
	imp_shape_destroy(u);
	imp_shape_destroy(s);
}

/// 10,000 points on a sphere: every point a vertex, the hull closed
/// (Euler), and the supports of the shape exact.
static void test_large_polytope(void **state)
{
	(void)state;
	enum { N = 10000 };
	imp_vec3 *pts = malloc(N * sizeof *pts);
	assert_non_null(pts);
	o3_rng r = {5};
	for (int i = 0; i < N; ++i)
		pts[i] = o3_unit(&r);
	imp_shape *s;
	assert_int_equal(imp_shape_polytope(pts, N, 0.0, &s), IMP_OK);
	int nv = imp_shape_vertex_count(s), ne = imp_shape_edge_count(s), nf = imp_shape_face_count(s);
	assert_int_equal(nv, N);
	assert_int_equal(nv - ne + nf, 2);
	for (int i = 0; i < 1000; ++i) {
		imp_vec3 d = o3_unit(&r), p;
		assert_int_equal(imp_shape_support3(s, ident(), d, &p), IMP_OK);
		double best = -INFINITY;
		for (int j = 0; j < N; ++j)
			best = fmax(best, imp_vec3_dot(pts[j], d));
		assert_true(imp_vec3_dot(p, d) == best);
	}
	imp_shape_destroy(s);
	free(pts);
}

/// Points a few subnormals apart: the hull's spatial ordering scaled them by
/// 2^1073 (an infinity) and converted that to an int, undefined behaviour
/// that clang's UBSan reports (float-cast-overflow; gcc's does not check it),
/// and (issue 20, defect 7) the hull itself came out a single point: the
/// points were scaled by that infinity too. Sets of small integers times the
/// least subnormal (and times 2^k: subnormal and just normal), whose
/// coordinates the test divides back exactly: the hull's vertices are the
/// brute-force oracle's on the integers, and every support reaches the
/// largest value over the input points, to the rounding of its dot products
/// (a few least subnormals).
static void test_subnormal_polytope(void **state)
{
	(void)state;
	const double d = 4.9406564584124654e-324; // the least subnormal
	imp_vec3 p[5] = {{0, 0, 0}, {3 * d, 0, 0}, {0, 2 * d, 0}, {0, 0, 5 * d}, {d, d, d}};
	imp_shape *s = NULL;
	assert_int_equal(imp_shape_polytope(p, 5, 0.0, &s), IMP_OK);
	// (d, d, d) is beyond the plane x/3 + y/2 + z/5 = 1: five vertices.
	assert_int_equal(imp_shape_vertex_count(s), 5);
	imp_pose3 id = imp_pose3_make(imp_vec3_make(0, 0, 0), imp_quat_identity());
	const imp_vec3 dirs[3] = {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
	const imp_vec3 want[3] = {{3 * d, 0, 0}, {0, 2 * d, 0}, {0, 0, 5 * d}};
	for (int k = 0; k < 3; k++) {
		imp_vec3 out;
		assert_int_equal(imp_shape_support3(s, id, dirs[k], &out), IMP_OK);
		assert_true(out.x == want[k].x && out.y == want[k].y && out.z == want[k].z);
	}
	imp_shape_destroy(s);

	o3_rng rng = {7007};
	int bad_vertices = 0, bad_support = 0;
	for (int t = 0; t < 300; ++t) {
		int n = 4 + o3_int(&rng, 12);
		int up = t % 4 == 0 ? 0 : (t % 4 == 1 ? 3 : (t % 4 == 2 ? 40 : 1060));
		double unit = ldexp(d, up); // 2^(up - 1074); 1 / unit may overflow
		int back_exp = 1074 - up;
		imp_vec3 k[16], q[16];
		for (int i = 0; i < n; ++i) {
			k[i] = imp_vec3_make(o3_int(&rng, 13) - 6, o3_int(&rng, 13) - 6, o3_int(&rng, 13) - 6);
			q[i] = imp_vec3_scale(unit, k[i]);
		}
		o3_poly oracle;
		o3_poly_make(&oracle, k, n);
		assert_int_equal(imp_shape_polytope(q, n, 0.0, &s), IMP_OK);
		imp_vec3 v[16];
		int nv = imp_shape_vertices3(s, v, 16);
		bool same = nv == oracle.nv;
		for (int i = 0; i < nv && same; ++i) {
			imp_vec3 back = imp_vec3_make(ldexp(v[i].x, back_exp), ldexp(v[i].y, back_exp), ldexp(v[i].z, back_exp));
			bool found = false;
			for (int j = 0; j < oracle.nv; ++j) {
				imp_vec3 o = k[oracle.vert[j]];
				found = found || (o.x == back.x && o.y == back.y && o.z == back.z);
			}
			same = found;
		}
		bad_vertices += !same;
		for (int r = 0; r < 30; ++r) {
			imp_vec3 u = o3_unit(&rng), out;
			assert_int_equal(imp_shape_support3(s, id, u, &out), IMP_OK);
			double best = -INFINITY;
			for (int i = 0; i < n; ++i)
				best = fmax(best, imp_vec3_dot(k[i], u));
			imp_vec3 back = imp_vec3_make(ldexp(out.x, back_exp), ldexp(out.y, back_exp), ldexp(out.z, back_exp));
			// The support's dot products of subnormal coordinates round
			// to multiples of the least subnormal: a few of them, in the
			// units of the integers, is the most it can miss by.
			double tol = 4.0 * ldexp(1.0, -up) + 1e-12;
			bad_support += !(best - imp_vec3_dot(back, u) <= tol);
		}
		imp_shape_destroy(s);
	}
	print_message("subnormal polytopes: %d hulls unlike the oracle's, %d supports short of brute force\n",
		      bad_vertices, bad_support);
	assert_int_equal(bad_vertices, 0);
	assert_int_equal(bad_support, 0);
}

/// A point of the box [-h, h] (local frame of pose) within tol of it.
static bool in_box(imp_vec3 h, imp_pose3 pose, imp_vec3 world, double tol)
{
	imp_vec3 l = imp_quat_rotate_inv(pose.q, imp_vec3_sub(world, pose.p));
	return fabs(l.x) <= h.x + tol && fabs(l.y) <= h.y + tol && fabs(l.z) <= h.z + tol;
}

/// Issue 20, defect 3: a box with one half size <= 1e-15 of the others was
/// flattened to four corners and its corner table named corners it did not
/// have (a plate 1.375 x 1e-20 x 1.25 answered its bottom along +z, its
/// distances and witnesses were off and a warm cache changed them). Over
/// thin half sizes from 1e-1 down to the least subnormal on each axis: the
/// supports equal brute force over the eight corners; distances to a
/// sphere equal the analytic distance (witness on the box at the nearest
/// point), distances to a tetrahedron the brute-force oracle's, with a
/// cold and a warm cache alike, and the polytope of the same corners
/// within the thin size of them.
static void test_thin_box(void **state)
{
	(void)state;
	const double thin[] = {1e-1, 1e-2, 1e-4, 1e-8, 1e-12, 1e-15, 1e-16, 1e-20, 1e-50, 1e-100, 1e-200, 1e-300,
			       4.9406564584124654e-324};
	const double base[2] = {1.375, 1.25};
	imp_vec3 tet[4] = {{0, 0, 0}, {0.75, 0, 0}, {0, 0.5, 0.25}, {0.125, 0.25, 0.875}};
	o3_poly otet, obox;
	o3_poly_make(&otet, tet, 4);
	imp_shape *sph = NULL, *tetra = NULL;
	assert_int_equal(imp_shape_sphere(imp_vec3_make(0, 0, 0), 0.5, &sph), IMP_OK);
	assert_int_equal(imp_shape_polytope(tet, 4, 0.0, &tetra), IMP_OK);
	o3_rng rng = {20203};
	int bad_support = 0, bad_dist = 0, bad_witness = 0, bad_warm = 0, bad_poly = 0;
	for (size_t t = 0; t < sizeof thin / sizeof thin[0]; ++t) {
		for (int axis = 0; axis < 3; ++axis) {
			double h[3];
			for (int k = 0, j = 0; k < 3; ++k)
				h[k] = k == axis ? thin[t] : base[j++];
			imp_vec3 half = imp_vec3_make(h[0], h[1], h[2]);
			imp_vec3 corner[8];
			for (int k = 0; k < 8; ++k)
				corner[k] = imp_vec3_make(k & 1 ? h[0] : -h[0], k & 2 ? h[1] : -h[1], k & 4 ? h[2] : -h[2]);
			imp_shape *box = NULL, *poly = NULL;
			assert_int_equal(imp_shape_box3(h[0], h[1], h[2], 0.0, &box), IMP_OK);
			assert_int_equal(imp_shape_polytope(corner, 8, 0.0, &poly), IMP_OK);
			o3_poly_box(&obox, half);
			// Supports: the axes, the diagonals and random directions.
			for (int d = 0; d < 80; ++d) {
				imp_vec3 u = d < 27 ? imp_vec3_make(d % 3 - 1, d / 3 % 3 - 1, d / 9 - 1) : o3_unit(&rng);
				if (u.x == 0 && u.y == 0 && u.z == 0)
					continue;
				imp_vec3 p;
				assert_int_equal(imp_shape_support3(box, ident(), u, &p), IMP_OK);
				double best = -INFINITY;
				for (int k = 0; k < 8; ++k)
					best = fmax(best, imp_vec3_dot(corner[k], u));
				bad_support += imp_vec3_dot(p, u) != best || find_point(corner, 8, p) < 0;
			}
			imp_simplex_cache warm_s = {0}, warm_t = {0};
			for (int q = 0; q < 40; ++q) {
				imp_pose3 pb = ident();
				// At a random direction 0.25 .. 3 beyond the sphere's reach.
				imp_vec3 dir = o3_unit(&rng);
				pb.p = imp_vec3_scale(2.6 + o3_range(&rng, 0.25, 3.0), dir);
				pb.q = o3_quat(&rng);
				imp_vec3 near;
				double exact = o3_point_box_distance(pb.p, half, &near) - 0.5;
				if (!(exact > 0.0))
					continue;
				imp_closest3_result r;
				assert_int_equal(imp_closest3(box, ident(), sph, pb, NULL, &r), IMP_OK);
				double tol = 1e-12 * 4.0;
				bad_dist += !(fabs(r.distance - exact) <= tol);
				bad_witness += !(imp_vec3_length(imp_vec3_sub(r.point_a, near)) <= 1e-9) ||
					       !in_box(half, ident(), r.point_a, tol) ||
					       !(fabs(imp_vec3_dot(r.normal, imp_vec3_sub(r.point_b, r.point_a)) - r.distance) <=
						 tol);
				double w1 = imp_distance3(box, ident(), sph, pb, &warm_s);
				double w2 = imp_distance3(box, ident(), sph, pb, &warm_s);
				bad_warm += !(fabs(w1 - exact) <= tol) || !(fabs(w2 - exact) <= tol);
				double dp = imp_distance3(poly, ident(), sph, pb, NULL);
				bad_poly += !(fabs(dp - exact) <= tol + thin[t]);
				// The tetrahedron against the oracle.
				double od = o3_signed_distance(&obox, ident(), 0.0, &otet, pb, 0.0, NULL, NULL, NULL);
				if (!(od > 0.0))
					continue;
				assert_int_equal(imp_closest3(box, ident(), tetra, pb, NULL, &r), IMP_OK);
				// The oracle's box is flat below its own tolerance (1e-14).
				double otol = tol + (thin[t] < 1e-13 ? thin[t] : 0.0);
				bad_dist += !(fabs(r.distance - od) <= otol);
				bad_witness += !in_box(half, ident(), r.point_a, tol) ||
					       !(fabs(imp_vec3_dot(r.normal, imp_vec3_sub(r.point_b, r.point_a)) - r.distance) <=
						 tol);
				w1 = imp_distance3(box, ident(), tetra, pb, &warm_t);
				w2 = imp_distance3(box, ident(), tetra, pb, &warm_t);
				bad_warm += !(fabs(w1 - r.distance) <= tol) || !(fabs(w2 - r.distance) <= tol);
				dp = imp_distance3(poly, ident(), tetra, pb, NULL);
				bad_poly += !(fabs(dp - od) <= otol + thin[t]);
			}
			imp_shape_destroy(box);
			imp_shape_destroy(poly);
		}
	}
	print_message("thin boxes: bad supports %d, distances %d, witnesses %d, warm %d, polytope %d\n", bad_support,
		      bad_dist, bad_witness, bad_warm, bad_poly);
	assert_int_equal(bad_support, 0);
	assert_int_equal(bad_dist, 0);
	assert_int_equal(bad_witness, 0);
	assert_int_equal(bad_warm, 0);
	assert_int_equal(bad_poly, 0);
	// The plate of the report: along +z its top, distance 2.625 analytic.
	imp_shape *plate = NULL;
	assert_int_equal(imp_shape_box3(1.375, 1e-20, 1.25, 0.0, &plate), IMP_OK);
	imp_vec3 top;
	assert_int_equal(imp_shape_support3(plate, ident(), imp_vec3_make(0, 0, 1), &top), IMP_OK);
	assert_true(top.z == 1.25);
	imp_shape_destroy(plate);
	imp_shape_destroy(sph);
	imp_shape_destroy(tetra);
}

/// A checked answer of a shape at the origin against a unit sphere at p:
/// the distance `want` (analytic) at every level, finite witnesses and
/// normal, normal . (b - a) = distance; and a finite box equal to `lo`, `hi`.
static int check_against_unit_sphere(imp_shape *s, imp_vec3 p, double want, imp_vec3 lo, imp_vec3 hi)
{
	int bad = 0;
	imp_shape *u = NULL;
	assert_int_equal(imp_shape_sphere(imp_vec3_make(0, 0, 0), 1.0, &u), IMP_OK);
	imp_pose3 at = imp_pose3_make(p, imp_quat_identity());
	imp_aabb3 box;
	bad += imp_shape_aabb3(s, ident(), &box) != IMP_OK;
	bad += !(box.lo.x == lo.x && box.lo.y == lo.y && box.lo.z == lo.z && box.hi.x == hi.x && box.hi.y == hi.y &&
		 box.hi.z == hi.z);
	double d = imp_distance3(s, ident(), u, at, NULL);
	bad += !(fabs(d - want) <= 1e-12 * fmax(1.0, want));
	bad += imp_overlap3(s, ident(), u, at, NULL) != (want <= 0.0);
	imp_closest3_result r;
	bad += imp_closest3(s, ident(), u, at, NULL, &r) != IMP_OK;
	bad += !(fabs(r.distance - want) <= 1e-12 * fmax(1.0, want));
	bad += !(isfinite(r.point_a.x) && isfinite(r.point_a.y) && isfinite(r.point_a.z) && isfinite(r.point_b.x) &&
		 isfinite(r.point_b.y) && isfinite(r.point_b.z) && fabs(imp_vec3_length(r.normal) - 1.0) <= 1e-12);
	bad += !(fabs(imp_vec3_dot(r.normal, imp_vec3_sub(r.point_b, r.point_a)) - r.distance) <= 1e-12);
	imp_shape_destroy(u);
	if (bad)
		print_message("shape kind %d against a unit sphere at (%g, %g, %g): distance %.17g (want %.17g), closest "
			      "%.17g, box (%g %g %g | %g %g %g)\n",
			      imp_shape_kind_of(s), p.x, p.y, p.z, d, want, r.distance, box.lo.x, box.lo.y, box.lo.z,
			      box.hi.x, box.hi.y, box.hi.z);
	return bad;
}

/// Issue 20, defect 5: a semi-axis of 1e-200 was accepted by
/// imp_shape_ellipsoid and made a broken shape (its box not finite, the
/// world refusing it, distance 0 to a unit sphere 2 away while the overlap
/// test said false). Semi-axes below IMP_MIN_SEMI_AXIS (whose squares the
/// support divides by underflow) are refused with IMP_ERR_OUT_OF_RANGE,
/// *out untouched; at the limit the ellipsoid answers right. So are
/// ellipsoids whose longest semi-axis exceeds IMP_MAX_ELLIPSOID_ASPECT
/// times the shortest (their supports slide the needle's length under a
/// direction's rounding). The other
/// curved shapes and rounding radii, which square no size, take any
/// positive size down to the least subnormal and answer right; sizes beyond
/// IMP_MAX_COORDINATE are refused for all (within it, answers are exact to
/// the scene's size, which test_narrow3d checks).
static void test_size_limits(void **state)
{
	(void)state;
	const double tiny[] = {1.4e-150, 1e-151, 1e-155, 1e-200, 1e-300, 4.9406564584124654e-324};
	imp_shape *sentinel = (imp_shape *)(uintptr_t)0x1234, *s = sentinel;
	for (size_t i = 0; i < sizeof tiny / sizeof tiny[0]; ++i) {
		double t = tiny[i];
		if (t >= IMP_MIN_SEMI_AXIS)
			continue;
		for (int k = 0; k < 4; ++k) {
			double e[3] = {1, 1, 1};
			for (int j = 0; j < 3; ++j)
				if (k == j || k == 3)
					e[j] = t;
			s = sentinel;
			assert_int_equal(imp_shape_ellipsoid(e[0], e[1], e[2], 0.0, &s), IMP_ERR_OUT_OF_RANGE);
			assert_ptr_equal(s, sentinel);
		}
	}
	// Beyond the range, and bad values keeping their errors.
	assert_int_equal(imp_shape_ellipsoid(1e151, 1, 1, 0.0, &s), IMP_ERR_OUT_OF_RANGE);
	assert_int_equal(imp_shape_ellipsoid(0.0, 1, 1, 0.0, &s), IMP_ERR_BAD_RADIUS);
	assert_int_equal(imp_shape_ellipsoid(1e-200, 1, NAN, 0.0, &s), IMP_ERR_BAD_RADIUS);
	assert_int_equal(imp_shape_ellipsoid(1e-200, 1, 1, -1.0, &s), IMP_ERR_BAD_RADIUS);
	assert_int_equal(imp_shape_ellipsoid(1e-200, 1, 1, 0.0, NULL), IMP_ERR_NULL_ARGUMENT);
	assert_int_equal(imp_shape_cylinder(1e151, 1, 0.0, &s), IMP_ERR_OUT_OF_RANGE);
	assert_int_equal(imp_shape_cone(1, 1e151, 0.0, &s), IMP_ERR_OUT_OF_RANGE);
	assert_int_equal(imp_shape_sphere(imp_vec3_make(0, 0, 0), 1e151, &s), IMP_ERR_OUT_OF_RANGE);
	// The aspect limit: at it, accepted; beyond it (the fuzz target's needle
	// 4.2e16 by 0.156, called overlapping a box 378 away), refused.
	const double A = IMP_MAX_ELLIPSOID_ASPECT;
	assert_int_equal(imp_shape_ellipsoid(23.15625, 0.15625, 41823223297343488.0, 37.71875, &s), IMP_ERR_OUT_OF_RANGE);
	assert_int_equal(imp_shape_ellipsoid(1.0, nextafter(A, INFINITY), 1.0, 0.0, &s), IMP_ERR_OUT_OF_RANGE);
	assert_int_equal(imp_shape_ellipsoid(2.0 * A, 1.5, 2.0, 0.0, &s), IMP_ERR_OUT_OF_RANGE);
	assert_ptr_equal(s, sentinel);
	assert_int_equal(imp_shape_ellipsoid(1.0, A, 1.0, 0.0, &s), IMP_OK);
	imp_shape_destroy(s);
	s = sentinel;

	int bad = 0;
	// The ellipsoid at the limits: the least semi-axis, flat along x as far
	// as the aspect limit allows, and the same along every axis.
	const double m = IMP_MIN_SEMI_AXIS, w = A * m;
	assert_int_equal(imp_shape_ellipsoid(m, w, w, 0.0, &s), IMP_OK);
	bad += check_against_unit_sphere(s, imp_vec3_make(3, 0, 0), 2.0, imp_vec3_make(-m, -w, -w),
					 imp_vec3_make(m, w, w));
	bad += check_against_unit_sphere(s, imp_vec3_make(0, 0, 4), 3.0, imp_vec3_make(-m, -w, -w),
					 imp_vec3_make(m, w, w));
	imp_shape_destroy(s);
	assert_int_equal(imp_shape_ellipsoid(m, m, m, 0.0, &s), IMP_OK);
	bad += check_against_unit_sphere(s, imp_vec3_make(3, 0, 0), 2.0, imp_vec3_make(-m, -m, -m),
					 imp_vec3_make(m, m, m));
	imp_shape_destroy(s);
	// The other curved shapes and the rounding radius, every tiny size.
	for (size_t i = 0; i < sizeof tiny / sizeof tiny[0]; ++i) {
		double t = tiny[i];
		imp_vec3 o = imp_vec3_make(0, 0, 0);
		assert_int_equal(imp_shape_sphere(o, t, &s), IMP_OK);
		bad += check_against_unit_sphere(s, imp_vec3_make(3, 0, 0), 2.0, imp_vec3_make(-t, -t, -t),
						 imp_vec3_make(t, t, t));
		imp_shape_destroy(s);
		assert_int_equal(imp_shape_capsule3(imp_vec3_make(0, 0, -1), imp_vec3_make(0, 0, 1), t, &s), IMP_OK);
		bad += check_against_unit_sphere(s, imp_vec3_make(3, 0, 0), 2.0, imp_vec3_make(-t, -t, -1 - t),
						 imp_vec3_make(t, t, 1 + t));
		imp_shape_destroy(s);
		assert_int_equal(imp_shape_cylinder(t, 1, 0.0, &s), IMP_OK); // a disc
		bad += check_against_unit_sphere(s, imp_vec3_make(0, 0, 3), 2.0, imp_vec3_make(-1, -1, -t),
						 imp_vec3_make(1, 1, t));
		imp_shape_destroy(s);
		assert_int_equal(imp_shape_cylinder(1, t, 0.0, &s), IMP_OK); // a needle
		bad += check_against_unit_sphere(s, imp_vec3_make(3, 0, 0), 2.0, imp_vec3_make(-t, -t, -1),
						 imp_vec3_make(t, t, 1));
		imp_shape_destroy(s);
		assert_int_equal(imp_shape_cone(t, 1, 0.0, &s), IMP_OK);
		bad += check_against_unit_sphere(s, imp_vec3_make(0, 0, 3), 2.0, imp_vec3_make(-1, -1, -t),
						 imp_vec3_make(1, 1, t));
		imp_shape_destroy(s);
		assert_int_equal(imp_shape_cone(1, t, 0.0, &s), IMP_OK);
		bad += check_against_unit_sphere(s, imp_vec3_make(3, 0, 0), 2.0, imp_vec3_make(-t, -t, -1),
						 imp_vec3_make(t, t, 1));
		imp_shape_destroy(s);
		assert_int_equal(imp_shape_ellipsoid(1, 1, 1, t, &s), IMP_OK); // a rounding radius
		bad += check_against_unit_sphere(s, imp_vec3_make(3, 0, 0), 1.0, imp_vec3_make(-1 - t, -1 - t, -1 - t),
						 imp_vec3_make(1 + t, 1 + t, 1 + t));
		imp_shape_destroy(s);
	}
	print_message("size limits: %d bad answers\n", bad);
	assert_int_equal(bad, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_polytope_basics),
		cmocka_unit_test(test_supports_sampled),
		cmocka_unit_test(test_ellipsoid_support_oracle),
		cmocka_unit_test(test_box_aabb_matches_corners),
		cmocka_unit_test(test_box_matches_hull),
		cmocka_unit_test(test_user_shape),
		cmocka_unit_test(test_large_polytope),
		cmocka_unit_test(test_subnormal_polytope),
		cmocka_unit_test(test_thin_box),
		cmocka_unit_test(test_size_limits),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
