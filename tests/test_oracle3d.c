// SPDX-License-Identifier: MIT
// Self-checks of the 3D oracle (no library queries): the tests are only as
// good as it is. Analytic cases with known answers, its hull against the
// definition and Euler's formula, its SAT against a different overlap test
// and against moving b by the depth, invariance under rigid motions,
// symmetry, and prisms against a 2D computation written here.
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "oracle3d.h"

#define V(x, y, z) imp_vec3_make((x), (y), (z))

#define assert_close(got, want, tol)                                                                          \
	do {                                                                                                  \
		double got_ = (got), want_ = (want), tol_ = (tol);                                            \
		if (!(fabs(got_ - want_) <= tol_)) {                                                          \
			print_error("%s = %.17g, want %.17g (tol %g)\n", #got, got_, want_, tol_);            \
			fail();                                                                               \
		}                                                                                             \
	} while (0)

#define assert_vec_close(got, want, tol)                                                                      \
	do {                                                                                                  \
		imp_vec3 g_ = (got), w_ = (want);                                                             \
		double t_ = (tol);                                                                            \
		if (!(imp_vec3_length(imp_vec3_sub(g_, w_)) <= t_)) {                                         \
			print_error("%s = (%.17g, %.17g, %.17g), want (%.17g, %.17g, %.17g) (tol %g)\n", #got, \
				    g_.x, g_.y, g_.z, w_.x, w_.y, w_.z, t_);                                  \
			fail();                                                                               \
		}                                                                                             \
	} while (0)

static imp_pose3 at(double x, double y, double z)
{
	return imp_pose3_make(V(x, y, z), imp_quat_identity());
}

static imp_pose3 turned(double x, double y, double z, imp_quat q)
{
	return imp_pose3_make(V(x, y, z), q);
}

static double dist(imp_vec3 a, imp_vec3 b)
{
	return imp_vec3_length(imp_vec3_sub(a, b));
}

// Random input points of a random family (scattered, on a sphere, flat,
// collinear, one point repeated, a box with inner points, an integer grid,
// nearly flat or collinear, one to three points), within about `s` of a random centre, sometimes with
// a duplicate. Returns the count (1 .. max_n, max_n >= 12).
static int random_points(o3_rng *r, imp_vec3 *out, int max_n, double s)
{
	imp_vec3 c = o3_vec(r, -s, s);
	int n = 0;
	switch (o3_int(r, 10)) {
	case 0:
		n = 1 + o3_int(r, max_n - 1);
		for (int i = 0; i < n; i++)
			out[i] = imp_vec3_add(c, o3_vec(r, -s, s));
		break;
	case 1: {
		n = 4 + o3_int(r, max_n - 4);
		double radius = o3_range(r, 0.2, 1.0) * s;
		for (int i = 0; i < n; i++)
			out[i] = imp_vec3_add(c, imp_vec3_scale(radius, o3_unit(r)));
		break;
	}
	case 2: {
		imp_vec3 u = o3_unit(r);
		imp_vec3 v = imp_vec3_cross(u, o3_unit(r));
		v = imp_vec3_scale(1.0 / imp_vec3_length(v), v);
		n = 3 + o3_int(r, max_n - 3);
		for (int i = 0; i < n; i++) {
			double a = o3_range(r, -s, s);
			double b = o3_range(r, -s, s);
			out[i] = imp_vec3_add(c, imp_vec3_add(imp_vec3_scale(a, u), imp_vec3_scale(b, v)));
		}
		break;
	}
	case 3: {
		imp_vec3 d = o3_unit(r);
		n = 2 + o3_int(r, 5);
		for (int i = 0; i < n; i++)
			out[i] = imp_vec3_add(c, imp_vec3_scale(o3_range(r, -s, s), d));
		break;
	}
	case 4:
		n = 1 + o3_int(r, 3);
		for (int i = 0; i < n; i++)
			out[i] = c;
		break;
	case 5: {
		imp_vec3 h = o3_vec(r, 0.1 * s, s);
		for (int i = 0; i < 8; i++)
			out[n++] = imp_vec3_add(c, V(i & 1 ? h.x : -h.x, i & 2 ? h.y : -h.y, i & 4 ? h.z : -h.z));
		int extra = o3_int(r, 4);
		for (int i = 0; i < extra; i++)
			out[n++] = imp_vec3_add(c, V(o3_range(r, -h.x, h.x), o3_range(r, -h.y, h.y), o3_range(r, -h.z, h.z)));
		break;
	}
	case 6: {
		// Exact coordinates: coplanar and collinear triples, duplicates.
		n = 1 + o3_int(r, max_n - 1);
		double g = 0.5 * s;
		for (int i = 0; i < n; i++) {
			double x = g * (o3_int(r, 3) - 1);
			double y = g * (o3_int(r, 3) - 1);
			double z = g * (o3_int(r, 3) - 1);
			out[i] = V(x, y, z);
		}
		break;
	}
	case 7: {
		// Nearly flat or nearly collinear: noise of 1e-14 .. 1e-5 relative.
		imp_vec3 u = o3_unit(r);
		imp_vec3 v = imp_vec3_cross(u, o3_unit(r));
		v = imp_vec3_scale(o3_int(r, 2) ? 1.0 / imp_vec3_length(v) : 0.0, v);
		double noise = s * pow(10.0, -o3_range(r, 5, 14));
		n = 3 + o3_int(r, max_n - 3);
		for (int i = 0; i < n; i++) {
			double a = o3_range(r, -s, s);
			double b = o3_range(r, -s, s);
			out[i] = imp_vec3_add(c, imp_vec3_add(imp_vec3_add(imp_vec3_scale(a, u), imp_vec3_scale(b, v)),
							      o3_vec(r, -noise, noise)));
		}
		break;
	}
	default:
		n = 1 + o3_int(r, 3);
		for (int i = 0; i < n; i++)
			out[i] = imp_vec3_add(c, o3_vec(r, -s, s));
		break;
	}
	if (n < max_n && o3_int(r, 4) == 0) {
		int k = o3_int(r, n);
		out[n] = out[k];
		n++;
	}
	return n;
}

// A point of a given by its index, in the world.
static imp_vec3 world(const o3_poly *a, imp_pose3 pa, int i)
{
	return imp_pose3_apply(pa, a->p[i]);
}

// ---------------------------------------------------------------------------
// The hull.

static void test_hull_known(void **state)
{
	(void)state;
	static o3_poly h;
	// A cube with its centre, face centres, edge midpoints and duplicates.
	imp_vec3 cube[40];
	int n = 0;
	for (int x = -1; x <= 1; x++)
		for (int y = -1; y <= 1; y++)
			for (int z = -1; z <= 1; z++)
				cube[n++] = V(x, y, z);
	cube[n++] = V(1, 1, 1);
	cube[n++] = V(0, 0, 0);
	o3_poly_make(&h, cube, n);
	assert_int_equal(h.dim, 3);
	assert_int_equal(h.nv, 8);
	assert_int_equal(h.nf, 6);
	assert_int_equal(h.ne, 12);
	for (int f = 0; f < h.nf; f++) {
		assert_true(h.fd[f] == 1.0);
		assert_int_equal(h.ffirst[f + 1] - h.ffirst[f], 4);
	}
	for (int i = 0; i < h.nv; i++)
		assert_true(fabs(h.p[h.vert[i]].x) == 1 && fabs(h.p[h.vert[i]].y) == 1 && fabs(h.p[h.vert[i]].z) == 1);
	for (int e = 0; e < h.ne; e++)
		assert_true(dist(h.p[h.edge[e][0]], h.p[h.edge[e][1]]) == 2.0);

	imp_vec3 tet[] = {V(0, 0, 0), V(1, 0, 0), V(0, 1, 0), V(0, 0, 1), V(0.1, 0.1, 0.1), V(0.5, 0, 0)};
	o3_poly_make(&h, tet, 6);
	assert_true(h.dim == 3 && h.nv == 4 && h.nf == 4 && h.ne == 6);

	imp_vec3 oct[] = {V(1, 0, 0), V(-1, 0, 0), V(0, 1, 0), V(0, -1, 0), V(0, 0, 1), V(0, 0, -1), V(0, 0, 0)};
	o3_poly_make(&h, oct, 7);
	assert_true(h.dim == 3 && h.nv == 6 && h.nf == 8 && h.ne == 12);

	// A prism over a regular 7-gon, and a 64-point sphere (Euler).
	imp_vec3 prism[14];
	for (int i = 0; i < 7; i++) {
		double a = 2 * 3.141592653589793 * i / 7;
		prism[i] = V(cos(a), sin(a), -1);
		prism[7 + i] = V(cos(a), sin(a), 1);
	}
	o3_poly_make(&h, prism, 14);
	assert_true(h.dim == 3 && h.nv == 14 && h.nf == 9 && h.ne == 21);
	imp_vec3 sphere[O3_MAX_POINTS];
	for (int i = 0; i < O3_MAX_POINTS; i++) {
		double z = 1.0 - (2.0 * i + 1.0) / O3_MAX_POINTS, rho = sqrt(1.0 - z * z);
		double a = 2.399963229728653 * i;
		sphere[i] = V(rho * cos(a), rho * sin(a), z);
	}
	o3_poly_make(&h, sphere, O3_MAX_POINTS);
	assert_true(h.dim == 3 && h.nv == O3_MAX_POINTS);
	assert_int_equal(h.nv - h.ne + h.nf, 2);

	// Flat: a square with its centre, an edge midpoint and a duplicate.
	imp_vec3 sq[] = {V(0, 0, 2), V(1, 0, 2), V(1, 1, 2), V(0, 1, 2), V(0.5, 0.5, 2), V(0.5, 0, 2), V(1, 1, 2)};
	o3_poly_make(&h, sq, 7);
	assert_true(h.dim == 2 && h.nv == 4 && h.ne == 4 && h.nf == 2);
	assert_true(fabs(h.fn[0].z) == 1.0 && h.fn[1].z == -h.fn[0].z);
	assert_true(h.fd[0] == 2.0 * h.fn[0].z && h.fd[1] == -2.0 * h.fn[0].z);
	imp_vec3 tri[] = {V(0, 0, 0), V(1, 2, 3), V(-1, 0.5, 2)};
	o3_poly_make(&h, tri, 3);
	assert_true(h.dim == 2 && h.nv == 3 && h.ne == 3);

	// Collinear, two points, one point.
	imp_vec3 line[] = {V(1, 1, 1), V(3, 3, 3), V(-1, -1, -1), V(0, 0, 0), V(3, 3, 3)};
	o3_poly_make(&h, line, 5);
	assert_true(h.dim == 1 && h.nv == 2 && h.ne == 1 && h.nf == 0);
	assert_true(h.edge[0][0] == 1 && h.edge[0][1] == 2);
	o3_poly_make(&h, line, 2);
	assert_true(h.dim == 1 && h.nv == 2 && h.ne == 1);
	imp_vec3 pt[] = {V(4, 5, 6), V(4, 5, 6), V(4, 5, 6)};
	o3_poly_make(&h, pt, 3);
	assert_true(h.dim == 0 && h.nv == 1 && h.ne == 0 && h.nf == 0);
	o3_poly_make(&h, pt, 1);
	assert_true(h.dim == 0 && h.nv == 1);

	// Flat to rounding noise; beyond it, a pyramid however flat.
	imp_vec3 bump[] = {V(0, 0, 0), V(1, 0, 0), V(1, 1, 0), V(0, 1, 0), V(0.5, 0.5, 1e-15)};
	o3_poly_make(&h, bump, 5);
	assert_true(h.dim == 2 && h.nv == 4);
	for (int k = 13; k >= 1; k -= 4) {
		bump[4].z = pow(10.0, -k);
		o3_poly_make(&h, bump, 5);
		assert_true(h.dim == 3 && h.nv == 5 && h.nf == 5 && h.ne == 8);
		// The side normals, (0, -t, 1/2) / |.| and its turns, to an ulp or
		// two however flat (t the apex height).
		double t = bump[4].z, l = sqrt(0.25 + t * t);
		for (int f = 0; f < h.nf; f++) {
			if (h.fn[f].z == -1.0)
				continue;
			assert_close(fmax(fabs(h.fn[f].x), fabs(h.fn[f].y)), t / l, 4e-16 * t / l);
			assert_close(fmin(fabs(h.fn[f].x), fabs(h.fn[f].y)), 0.0, 0);
			assert_close(h.fn[f].z, 0.5 / l, 4e-16);
		}
	}
	// Far from the origin, small: still a cube.
	imp_vec3 far[8];
	for (int i = 0; i < 8; i++)
		far[i] = V(1e6 + (i & 1), -2e6 + ((i >> 1) & 1), 3e6 + ((i >> 2) & 1));
	o3_poly_make(&h, far, 8);
	assert_true(h.dim == 3 && h.nv == 8 && h.nf == 6 && h.ne == 12);
	// A box with a corner moved 1e-13 off the plane x = 1: that face
	// folds into two triangles.
	o3_poly_box(&h, V(1, 2, 3));
	assert_true(h.dim == 3 && h.nv == 8 && h.nf == 6 && h.ne == 12);
	imp_vec3 box[8];
	for (int i = 0; i < 8; i++)
		box[i] = h.p[i];
	box[7].x += 1e-13;
	o3_poly_make(&h, box, 8);
	assert_true(h.dim == 3 && h.nv == 8 && h.nf == 7 && h.ne == 13);
}

// The exact side test, where rounding would lie.
static void test_exact_side(void **state)
{
	(void)state;
	imp_vec3 o = V(0, 0, 0), x = V(1, 0, 0), y = V(0, 1, 0);
	assert_int_equal(o3_side(o, x, y, V(0, 0, 1)), 1);
	assert_int_equal(o3_side(o, x, y, V(5, -3, -1e-300)), -1);
	assert_int_equal(o3_side(o, x, y, V(5, -3, 0)), 0);
	assert_int_equal(o3_side(o, y, x, V(0, 0, 1)), -1);
	// Collinear a, b, c: 0 for any d.
	assert_int_equal(o3_side(V(1e8 + 1, 2e8 + 2, 3e8 + 3), V(1e8 + 2, 2e8 + 4, 3e8 + 6), V(1e8, 2e8, 3e8), V(7, 1, 2)),
			 0);
	// Integer points on one plane (d = a + 3 e1 - 2 e2, all exact), where
	// the rounded determinant is about -1.5e20; then 1 off the plane.
	imp_vec3 pa = V(-534581668645077, 504614031676447, -226463908032132);
	imp_vec3 e1 = V(-238782144763, -624079756596, -801321177347), e2 = V(-147097321870, 22202977456, 971127047719);
	imp_vec3 pb = imp_vec3_add(pa, e1), pc = imp_vec3_add(pa, e2);
	imp_vec3 pd = imp_vec3_add(pa, imp_vec3_add(imp_vec3_scale(3, e1), imp_vec3_scale(-2, e2)));
	imp_vec3 rn = imp_vec3_cross(imp_vec3_sub(pb, pa), imp_vec3_sub(pc, pa));
	assert_true(imp_vec3_dot(rn, imp_vec3_sub(pd, pa)) != 0.0);
	assert_int_equal(o3_side(pa, pb, pc, pd), 0);
	assert_int_equal(o3_side(pa, pb, pc, V(pd.x + 1, pd.y, pd.z)), rn.x > 0 ? 1 : -1);
	assert_int_equal(o3_side(pa, pb, pc, V(pd.x, pd.y - 1, pd.z)), rn.y > 0 ? -1 : 1);
	// Exactly coplanar points with awkward coordinates (integers times
	// 2^-30 plus a large offset), then one ulp off the plane.
	o3_rng rng = {9};
	for (int it = 0; it < 2000; it++) {
		double off = o3_range(&rng, -1e6, 1e6), u = 0x1p-30;
		imp_vec3 a = V(off + u * o3_int(&rng, 1 << 20), off + u * o3_int(&rng, 1 << 20), off + u * o3_int(&rng, 1 << 20));
		imp_vec3 e1 = V(u * o3_int(&rng, 1024), u * o3_int(&rng, 1024), u * o3_int(&rng, 1024));
		imp_vec3 e2 = V(u * o3_int(&rng, 1024), u * o3_int(&rng, 1024), u * o3_int(&rng, 1024));
		int k = o3_int(&rng, 7) - 3, m = o3_int(&rng, 7) - 3;
		imp_vec3 b = imp_vec3_add(a, e1), c = imp_vec3_add(a, e2);
		imp_vec3 d = imp_vec3_add(a, imp_vec3_add(imp_vec3_scale(k, e1), imp_vec3_scale(m, e2)));
		imp_vec3 n = imp_vec3_cross(e1, e2);
		if (n.z == 0.0)
			continue;
		assert_int_equal(o3_side(a, b, c, d), 0);
		assert_int_equal(o3_side(d, c, b, a), 0);
		imp_vec3 up = d;
		up.z = nextafter(d.z, INFINITY);
		assert_int_equal(o3_side(a, b, c, up), n.z > 0 ? 1 : -1);
		assert_int_equal(o3_side(b, a, c, up), n.z > 0 ? -1 : 1);
		// Far from degenerate, the plain floating-point sign.
		imp_vec3 p[4] = {o3_vec(&rng, -1, 1), o3_vec(&rng, -1, 1), o3_vec(&rng, -1, 1), o3_vec(&rng, -1, 1)};
		double f = imp_vec3_dot(imp_vec3_sub(p[3], p[0]),
					imp_vec3_cross(imp_vec3_sub(p[1], p[0]), imp_vec3_sub(p[2], p[0])));
		if (fabs(f) > 1e-9)
			assert_int_equal(o3_side(p[0], p[1], p[2], p[3]), f > 0 ? 1 : -1);
	}
}

// Each face polygon's consecutive vertices are edges, and each edge is on
// exactly two of them (for a solid).
static int edge_uses(const o3_poly *h, int i, int j)
{
	int uses = 0;
	for (int f = 0; f < h->nf; f++) {
		const int *v = h->fvert + h->ffirst[f];
		int k = h->ffirst[f + 1] - h->ffirst[f];
		for (int t = 0; t < k; t++) {
			int a = v[t], b = v[(t + 1) % k];
			uses += (a == i && b == j) || (a == j && b == i);
		}
	}
	return uses;
}

// Random point sets against the definition: faces support every point and
// hold three vertices, vertices are extreme, the vertices' support equals
// the points' support in every direction, Euler's formula, and the face
// polygons agree with the edges found from face pairs.
static void test_hull_definition(void **state)
{
	(void)state;
	static o3_poly h;
	o3_rng rng = {11};
	imp_vec3 p[O3_MAX_POINTS];
	int dims[4] = {0};
	for (int it = 0; it < 700; it++) {
		int n = random_points(&rng, p, it % 10 == 0 ? O3_MAX_POINTS : 24, o3_range(&rng, 0.01, 100.0));
		o3_poly_make(&h, p, n);
		dims[h.dim]++;
		double tol = h.tol;
		double scale = 0.0;
		for (int i = 0; i < n; i++)
			scale = fmax(scale, dist(p[i], p[0]));
		for (int f = 0; f < h.nf; f++) {
			int on = 0;
			for (int i = 0; i < n; i++) {
				double d = imp_vec3_dot(h.fn[f], p[i]) - h.fd[f];
				assert_true(d <= 0.0);
				on += d >= -4 * tol && ((h.vmask >> i) & 1);
			}
			assert_true(on >= 3);
			assert_close(imp_vec3_length(h.fn[f]), 1.0, 1e-15);
		}
		for (int k = 0; k < 30; k++) {
			imp_vec3 u = o3_unit(&rng);
			double all = -INFINITY, verts = -INFINITY;
			for (int i = 0; i < n; i++)
				all = fmax(all, imp_vec3_dot(u, p[i]));
			for (int i = 0; i < h.nv; i++)
				verts = fmax(verts, imp_vec3_dot(u, p[h.vert[i]]));
			assert_true(verts >= all - 4 * tol);
		}
		if (h.dim == 3) {
			assert_int_equal(h.nv - h.ne + h.nf, 2);
			for (int e = 0; e < h.ne; e++)
				assert_int_equal(edge_uses(&h, h.edge[e][0], h.edge[e][1]), 2);
			// Each vertex is the unique top along the sum of its faces' normals.
			for (int i = 0; i < h.nv; i++) {
				int v = h.vert[i];
				imp_vec3 u = V(0, 0, 0);
				for (int f = 0; f < h.nf; f++)
					if ((h.fmask[f] >> v) & 1)
						u = imp_vec3_add(u, h.fn[f]);
				for (int j = 0; j < n; j++)
					if (dist(p[j], p[v]) > tol)
						assert_true(imp_vec3_dot(u, p[j]) < imp_vec3_dot(u, p[v]));
			}
		} else if (h.dim == 2) {
			assert_true(h.nv >= 3 && h.ne == h.nv);
			for (int e = 0; e < h.ne; e++)
				assert_int_equal(edge_uses(&h, h.edge[e][0], h.edge[e][1]), 2);
			for (int i = 0; i < n; i++)
				assert_true(fabs(imp_vec3_dot(h.fn[0], p[i]) - h.fd[0]) <= 4 * tol);
		} else if (h.dim == 1) {
			assert_true(h.nv == 2 && h.ne == 1);
			for (int i = 0; i < n; i++)
				assert_true(o3_point_segment_distance(p[i], p[h.vert[0]], p[h.vert[1]], NULL) <= 4 * tol);
		} else {
			assert_true(h.nv == 1 && scale <= tol);
		}
	}
	print_message("hull: dims 0..3: %d %d %d %d\n", dims[0], dims[1], dims[2], dims[3]);
	for (int d = 0; d < 4; d++)
		assert_true(dims[d] > 20);
}

// ---------------------------------------------------------------------------
// Elementary distances.

// min over t in [0, 1] of f by golden-section search (f convex).
typedef struct seg_pair {
	imp_vec3 p0, p1, q0, q1;
} seg_pair;

static imp_vec3 lerp(imp_vec3 a, imp_vec3 b, double t)
{
	return imp_vec3_add(a, imp_vec3_scale(t, imp_vec3_sub(b, a)));
}

static double inner_min(const seg_pair *s, double u)
{
	imp_vec3 x = lerp(s->p0, s->p1, u);
	double lo = 0.0, hi = 1.0;
	for (int i = 0; i < 70; i++) {
		double m1 = lo + (hi - lo) * 0.381966, m2 = hi - (hi - lo) * 0.381966;
		if (dist(x, lerp(s->q0, s->q1, m1)) <= dist(x, lerp(s->q0, s->q1, m2)))
			hi = m2;
		else
			lo = m1;
	}
	return fmin(dist(x, lerp(s->q0, s->q1, 0.5 * (lo + hi))),
		    fmin(dist(x, s->q0), dist(x, s->q1)));
}

// The distance of two segments by nested golden-section search of the
// convex |P(u) - Q(v)|, a method unlike the oracle's.
static double segment_distance_search(const seg_pair *s)
{
	double lo = 0.0, hi = 1.0;
	for (int i = 0; i < 70; i++) {
		double m1 = lo + (hi - lo) * 0.381966, m2 = hi - (hi - lo) * 0.381966;
		if (inner_min(s, m1) <= inner_min(s, m2))
			hi = m2;
		else
			lo = m1;
	}
	return fmin(inner_min(s, 0.5 * (lo + hi)), fmin(inner_min(s, 0.0), inner_min(s, 1.0)));
}

static void test_segment_segment(void **state)
{
	(void)state;
	imp_vec3 cp, cq;
	// Parallel with overlapping spans: any pair across the overlap.
	assert_close(o3_segment_segment_distance(V(0, 0, 0), V(2, 0, 0), V(1, 1, 0), V(3, 1, 0), &cp, &cq), 1.0, 0);
	assert_true(cp.x >= 1 && cp.x <= 2 && cq.x == cp.x && cp.y == 0 && cq.y == 1);
	// Crossing.
	assert_close(o3_segment_segment_distance(V(-1, 0, 0), V(1, 0, 0), V(0, -1, 0), V(0, 1, 0), &cp, &cq), 0.0, 0);
	assert_vec_close(cp, V(0, 0, 0), 0);
	// Skew, interior to both; skew with an end clamped.
	assert_close(o3_segment_segment_distance(V(-1, 0, 0), V(1, 0, 0), V(0, -1, 2), V(0, 1, 2), &cp, &cq), 2.0, 0);
	assert_vec_close(cp, V(0, 0, 0), 0);
	assert_vec_close(cq, V(0, 0, 2), 0);
	assert_close(o3_segment_segment_distance(V(0, 0, 0), V(1, 0, 0), V(2, -1, 1), V(2, 1, 1), &cp, &cq), sqrt(2.0),
		     1e-16);
	assert_vec_close(cp, V(1, 0, 0), 0);
	assert_vec_close(cq, V(2, 0, 1), 0);
	// Collinear apart.
	assert_close(o3_segment_segment_distance(V(0, 0, 0), V(1, 0, 0), V(3, 0, 0), V(4, 0, 0), &cp, &cq), 2.0, 0);
	assert_vec_close(cp, V(1, 0, 0), 0);
	assert_vec_close(cq, V(3, 0, 0), 0);
	// Degenerate: point-point, point-segment both ways.
	assert_close(o3_segment_segment_distance(V(1, 2, 3), V(1, 2, 3), V(4, 6, 3), V(4, 6, 3), &cp, &cq), 5.0, 0);
	assert_close(o3_segment_segment_distance(V(0, 1, 0), V(0, 1, 0), V(-1, 0, 0), V(1, 0, 0), &cp, &cq), 1.0, 0);
	assert_vec_close(cq, V(0, 0, 0), 0);
	assert_close(o3_segment_segment_distance(V(-1, 0, 0), V(1, 0, 0), V(3, 0, 4), V(3, 0, 4), &cp, &cq),
		     sqrt(20.0), 1e-15);
	assert_vec_close(cp, V(1, 0, 0), 0);
	// Random against nested golden-section search; the pair is on the
	// segments at the distance returned.
	o3_rng rng = {5};
	for (int it = 0; it < 300; it++) {
		seg_pair s = {o3_vec(&rng, -1, 1), o3_vec(&rng, -1, 1), o3_vec(&rng, -1, 1), o3_vec(&rng, -1, 1)};
		if (it % 3 == 0) // parallel
			s.q1 = imp_vec3_add(s.q0, imp_vec3_scale(o3_range(&rng, -2, 2), imp_vec3_sub(s.p1, s.p0)));
		if (it % 7 == 0)
			s.p1 = s.p0;
		double d = o3_segment_segment_distance(s.p0, s.p1, s.q0, s.q1, &cp, &cq);
		assert_close(d, segment_distance_search(&s), 1e-9);
		assert_close(dist(cp, cq), d, 1e-15);
		assert_true(o3_point_segment_distance(cp, s.p0, s.p1, NULL) <= 1e-15);
		assert_true(o3_point_segment_distance(cq, s.q0, s.q1, NULL) <= 1e-15);
		double sw = o3_segment_segment_distance(s.q0, s.q1, s.p0, s.p1, NULL, NULL);
		assert_close(sw, d, 1e-15);
	}
}

static void test_point_triangle(void **state)
{
	(void)state;
	imp_vec3 a = V(0, 0, 0), b = V(2, 0, 0), c = V(0, 2, 0), q;
	struct {
		imp_vec3 p, want;
		double d;
	} cases[] = {
		{V(0.5, 0.5, 3), V(0.5, 0.5, 0), 3},              // face, above
		{V(0.5, 0.5, -1), V(0.5, 0.5, 0), 1},             // face, below
		{V(-1, -1, 1), a, sqrt(3.0)},                     // vertex a
		{V(3, -1, 0), b, sqrt(2.0)},                      // vertex b
		{V(-1, 3, 0.5), c, sqrt(2.25)},                   // vertex c
		{V(1, -1, 1), V(1, 0, 0), sqrt(2.0)},             // edge ab
		{V(2, 2, 0), V(1, 1, 0), sqrt(2.0)},              // edge bc
		{V(-1, 1, 0), V(0, 1, 0), 1},                     // edge ca
		{V(0.25, 0.25, 0), V(0.25, 0.25, 0), 0},          // on it
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		assert_close(o3_point_triangle_distance(cases[i].p, a, b, c, &q), cases[i].d, 1e-15);
		assert_vec_close(q, cases[i].want, 1e-15);
		// Any vertex order.
		assert_close(o3_point_triangle_distance(cases[i].p, c, a, b, NULL), cases[i].d, 1e-15);
		assert_close(o3_point_triangle_distance(cases[i].p, b, a, c, NULL), cases[i].d, 1e-15);
	}
	// Degenerate triangles: a segment, a point.
	assert_close(o3_point_triangle_distance(V(1, 1, 0), V(0, 0, 0), V(1, 0, 0), V(2, 0, 0), &q), 1.0, 0);
	assert_vec_close(q, V(1, 0, 0), 0);
	assert_close(o3_point_triangle_distance(V(1, 1, 1), V(0, 0, 0), V(0, 0, 0), V(0, 0, 0), &q), sqrt(3.0), 0);
	// Random: the point returned is on the triangle at that distance, and
	// no sampled point of the triangle is nearer.
	o3_rng rng = {6};
	for (int it = 0; it < 300; it++) {
		imp_vec3 p = o3_vec(&rng, -2, 2), x = o3_vec(&rng, -1, 1), y = o3_vec(&rng, -1, 1), z = o3_vec(&rng, -1, 1);
		double d = o3_point_triangle_distance(p, x, y, z, &q);
		assert_close(dist(p, q), d, 1e-15);
		imp_vec3 n = imp_vec3_cross(imp_vec3_sub(y, x), imp_vec3_sub(z, x));
		assert_true(fabs(imp_vec3_dot(n, imp_vec3_sub(q, x))) <= 1e-14 * imp_vec3_length(n));
		for (int i = 0; i <= 20; i++)
			for (int j = 0; i + j <= 20; j++) {
				imp_vec3 s = imp_vec3_add(x, imp_vec3_add(imp_vec3_scale(i / 20.0, imp_vec3_sub(y, x)),
									 imp_vec3_scale(j / 20.0, imp_vec3_sub(z, x))));
				assert_true(d <= dist(p, s) + 1e-15);
			}
	}
}

static void test_point_box_ellipsoid(void **state)
{
	(void)state;
	imp_vec3 half = V(1, 2, 3), q;
	assert_close(o3_point_box_distance(V(3, 0, 0), half, &q), 2.0, 0);
	assert_vec_close(q, V(1, 0, 0), 0);
	assert_close(o3_point_box_distance(V(2, 3, 0), half, &q), sqrt(2.0), 1e-16);
	assert_vec_close(q, V(1, 2, 0), 0);
	assert_close(o3_point_box_distance(V(-2, -3, -4), half, &q), sqrt(3.0), 1e-16);
	assert_vec_close(q, V(-1, -2, -3), 0);
	assert_close(o3_point_box_distance(V(0.5, -1, 2), half, &q), 0.0, 0);
	// The same as the polytope of the box.
	static o3_poly box;
	o3_poly_box(&box, half);
	o3_rng rng = {7};
	for (int it = 0; it < 200; it++) {
		imp_vec3 p = o3_vec(&rng, -5, 5), c1, c2;
		double d1 = o3_point_box_distance(p, half, &c1);
		double d2 = o3_point_polytope_distance(p, &box, imp_pose3_identity(), &c2);
		assert_close(d2, d1, 1e-15);
		assert_vec_close(c2, c1, 1e-14);
		assert_int_equal(o3_point_in_polytope(p, &box, imp_pose3_identity(), 0.0), d1 == 0.0);
	}

	// Ellipsoids: on the axes, inside, spheres.
	imp_vec3 e = V(3, 2, 1);
	assert_close(o3_point_ellipsoid_distance(V(5, 0, 0), e, &q), 2.0, 1e-15);
	assert_vec_close(q, V(3, 0, 0), 1e-15);
	assert_close(o3_point_ellipsoid_distance(V(0, -4, 0), e, &q), 2.0, 1e-15);
	assert_vec_close(q, V(0, -2, 0), 1e-15);
	assert_close(o3_point_ellipsoid_distance(V(0, 0, 1.5), e, &q), 0.5, 1e-15);
	assert_close(o3_point_ellipsoid_distance(V(1, 1, 0.1), e, &q), 0.0, 0);
	assert_vec_close(q, V(1, 1, 0.1), 0);
	for (int it = 0; it < 500; it++) {
		double r = o3_range(&rng, 0.01, 10);
		imp_vec3 p = imp_vec3_scale(r * o3_range(&rng, 1.0, it % 2 ? 2.0 : 1e4), o3_unit(&rng));
		double d = o3_point_ellipsoid_distance(p, V(r, r, r), &q);
		assert_close(d, imp_vec3_length(p) - r, 4e-16 * imp_vec3_length(p));
		assert_close(imp_vec3_length(q), r, 1e-15 * r);
	}
	// General ellipsoids: the point is on the surface, p - q is along the
	// surface normal there, and no sampled surface point is nearer.
	for (int it = 0; it < 300; it++) {
		imp_vec3 ax = o3_vec(&rng, 0.05, 3);
		imp_vec3 p = imp_vec3_scale(o3_range(&rng, 0, it % 3 ? 3.0 : 100.0), o3_vec(&rng, -2, 2));
		double d = o3_point_ellipsoid_distance(p, ax, &q);
		double g = (p.x / ax.x) * (p.x / ax.x) + (p.y / ax.y) * (p.y / ax.y) + (p.z / ax.z) * (p.z / ax.z);
		if (g <= 1.0) {
			assert_true(d == 0.0);
			continue;
		}
		assert_close(dist(p, q), d, 1e-14 * (1 + d));
		double s = (q.x / ax.x) * (q.x / ax.x) + (q.y / ax.y) * (q.y / ax.y) + (q.z / ax.z) * (q.z / ax.z);
		assert_close(s, 1.0, 1e-14);
		imp_vec3 grad = V(q.x / (ax.x * ax.x), q.y / (ax.y * ax.y), q.z / (ax.z * ax.z));
		imp_vec3 c = imp_vec3_cross(grad, imp_vec3_sub(p, q));
		assert_true(imp_vec3_length(c) <= 1e-13 * imp_vec3_length(grad) * (d + 1e-300) + 1e-14 * imp_vec3_length(grad));
		assert_true(imp_vec3_dot(grad, imp_vec3_sub(p, q)) >= 0.0);
		for (int k = 0; k < 200; k++) {
			imp_vec3 u = o3_unit(&rng);
			imp_vec3 sp = V(ax.x * u.x, ax.y * u.y, ax.z * u.z);
			assert_true(d <= dist(p, sp) + 1e-14);
		}
	}
	// Near the surface: a point h along the normal of a surface point is h
	// away (to the rounding of the coordinates).
	for (int it = 0; it < 300; it++) {
		imp_vec3 ax = o3_vec(&rng, 0.5, 2);
		imp_vec3 u = o3_unit(&rng);
		imp_vec3 x0 = V(ax.x * u.x, ax.y * u.y, ax.z * u.z);
		imp_vec3 n = V(x0.x / (ax.x * ax.x), x0.y / (ax.y * ax.y), x0.z / (ax.z * ax.z));
		n = imp_vec3_scale(1.0 / imp_vec3_length(n), n);
		double h = pow(10.0, -o3_range(&rng, 1, 12));
		imp_vec3 p = imp_vec3_add(x0, imp_vec3_scale(h, n));
		double d = o3_point_ellipsoid_distance(p, ax, &q);
		if (d == 0.0)
			continue; // rounded inside
		assert_close(d, h, 1e-15);
		assert_vec_close(q, x0, 1e-15);
	}
}

// ---------------------------------------------------------------------------
// Polytope pairs with known answers.

static void test_cubes(void **state)
{
	(void)state;
	static o3_poly a, b;
	o3_poly_box(&a, V(0.5, 0.5, 0.5));
	o3_poly_box(&b, V(0.5, 0.5, 0.5));
	imp_pose3 id = imp_pose3_identity();
	o3_result r;
	imp_vec3 wa, wb, n;

	// Face on face, 1 apart; rounded.
	o3_query(&a, id, 0, &b, at(2, 0.2, 0.3), 0, &r);
	assert_close(r.sd, 1.0, 0);
	assert_vec_close(r.normal, V(1, 0, 0), 0);
	assert_true(r.pa.x == 0.5 && r.pb.x == 1.5 && r.pa.y == r.pb.y && r.pa.z == r.pb.z);
	assert_true(r.pa.y >= -0.3 && r.pa.y <= 0.5 && r.pa.z >= -0.2 && r.pa.z <= 0.5);
	assert_true(r.unique_normal && !r.unique_points && !r.overlap);
	assert_close(o3_signed_distance(&a, id, 0.1, &b, at(2, 0.2, 0.3), 0.2, &wa, &wb, &n), 0.7, 1e-15);
	assert_close(wa.x, 0.6, 1e-15);
	assert_close(wb.x, 1.3, 1e-15);

	// Edge across edge at 90 degrees: a turned 45 degrees about z shows an
	// edge along z at x = sqrt(1/2); b turned the same, then 90 degrees about
	// x, shows an edge along y at x = 2 - sqrt(1/2).
	double h = sqrt(0.5);
	imp_quat qz = imp_quat_from_axis_angle(V(0, 0, 1), 0.25 * 3.141592653589793);
	imp_quat qx = imp_quat_from_axis_angle(V(1, 0, 0), 0.5 * 3.141592653589793);
	o3_query(&a, turned(0, 0, 0, qz), 0, &b, turned(2, 0, 0, imp_quat_mul(qx, qz)), 0, &r);
	assert_close(r.sd, 2 - 2 * h, 1e-15);
	assert_vec_close(r.pa, V(h, 0, 0), 1e-15);
	assert_vec_close(r.pb, V(2 - h, 0, 0), 1e-15);
	assert_vec_close(r.normal, V(1, 0, 0), 1e-15);
	assert_true(r.unique_normal && r.unique_points);

	// Vertex on face: b turned so its corner (1, 1, 1) / 2 points along -x.
	imp_vec3 diag = V(1 / sqrt(3.0), 1 / sqrt(3.0), 1 / sqrt(3.0));
	imp_quat qv = imp_quat_from_axis_angle(imp_vec3_cross(diag, V(-1, 0, 0)),
					       acos(imp_vec3_dot(diag, V(-1, 0, 0))));
	double cx = 0.5 + 0.25 + 0.5 * sqrt(3.0);
	o3_query(&a, id, 0, &b, turned(cx, 0, 0, qv), 0, &r);
	assert_close(r.sd, 0.25, 1e-15);
	assert_vec_close(r.pa, V(0.5, 0, 0), 1e-15);
	assert_vec_close(r.pb, V(0.75, 0, 0), 1e-15);
	assert_true(r.unique_points);
	// The same with a's corner on b's face (swapped).
	o3_query(&b, turned(cx, 0, 0, qv), 0, &a, id, 0, &r);
	assert_close(r.sd, 0.25, 1e-15);
	assert_vec_close(r.pa, V(0.75, 0, 0), 1e-15);
	assert_vec_close(r.normal, V(-1, 0, 0), 1e-15);

	// Overlapping by 0.2 along x (0.9 in y, 1 in z); rounded.
	o3_query(&a, id, 0, &b, at(0.8, 0.1, 0), 0, &r);
	assert_close(r.sd, -0.2, 1e-15);
	assert_vec_close(r.normal, V(1, 0, 0), 0);
	assert_true(r.overlap && r.unique_normal && !r.unique_points);
	assert_close(r.pa.x, 0.5, 0);
	assert_close(r.pb.x, 0.3, 1e-15);
	assert_true(r.pa.y >= -0.4 - 1e-15 && r.pa.y <= 0.5 && fabs(r.pa.z) <= 0.5);
	assert_close(o3_signed_distance(&a, id, 0.1, &b, at(0.8, 0.1, 0), 0.2, &wa, &wb, &n), -0.5, 1e-15);
	assert_close(wa.x, 0.6, 1e-15);
	assert_close(wb.x, 0.1, 1e-15);
	// Deepest along z, and the other way.
	assert_close(o3_signed_distance(&a, id, 0, &b, at(0.1, 0.05, 0.9), 0, NULL, NULL, &n), -0.1, 1e-15);
	assert_vec_close(n, V(0, 0, 1), 0);
	assert_close(o3_signed_distance(&a, id, 0, &b, at(0.1, -0.7, 0.3), 0, NULL, NULL, &n), -0.3, 1e-15);
	assert_vec_close(n, V(0, -1, 0), 0);
	// Touching, and coincident (six tied axes).
	assert_close(o3_signed_distance(&a, id, 0, &b, at(1, 0.5, -0.25), 0, NULL, NULL, NULL), 0.0, 1e-15);
	o3_query(&a, id, 0, &b, id, 0, &r);
	assert_close(r.sd, -1.0, 0);
	assert_true(!r.unique_normal && !r.unique_points);
	// Corner on corner, apart.
	assert_close(o3_signed_distance(&a, id, 0, &b, at(2, 2, 2), 0, &wa, &wb, NULL), sqrt(3.0), 1e-15);
	assert_vec_close(wa, V(0.5, 0.5, 0.5), 0);
	assert_vec_close(wb, V(1.5, 1.5, 1.5), 0);
}

static void test_tetrahedron_point(void **state)
{
	(void)state;
	static o3_poly t, p;
	imp_vec3 tv[] = {V(0, 0, 0), V(1, 0, 0), V(0, 1, 0), V(0, 0, 1)};
	o3_poly_make(&t, tv, 4);
	imp_vec3 origin = V(0, 0, 0);
	o3_poly_make(&p, &origin, 1);
	imp_pose3 id = imp_pose3_identity();
	struct {
		imp_vec3 at, closest;
		double sd;
	} cases[] = {
		{V(1, 1, 1), V(1 / 3.0, 1 / 3.0, 1 / 3.0), 2 / sqrt(3.0)}, // slanted face
		{V(-1, -1, -1), V(0, 0, 0), sqrt(3.0)},                   // vertex
		{V(0.5, 0.5, -1), V(0.5, 0.5, 0), 1},                     // edge
		{V(0.2, 0.3, -2), V(0.2, 0.3, 0), 2},                     // face z = 0
		{V(2, -1, -1), V(1, 0, 0), sqrt(3.0)},                    // vertex
		{V(0.1, 0.2, 0.3), V(0.1, 0.2, 0.3), -0.1},               // inside: 0.1 to x = 0
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		imp_pose3 pp = at(cases[i].at.x, cases[i].at.y, cases[i].at.z);
		o3_result r;
		o3_query(&t, id, 0, &p, pp, 0, &r);
		assert_close(r.sd, cases[i].sd, 1e-15);
		assert_vec_close(r.pb, cases[i].at, 0);
		if (cases[i].sd > 0)
			assert_vec_close(r.pa, cases[i].closest, 1e-15);
		else
			assert_vec_close(r.normal, V(-1, 0, 0), 0);
		// Point queries, and a sphere of radius 0.25 there.
		imp_vec3 c;
		double d = o3_point_polytope_distance(cases[i].at, &t, id, &c);
		assert_close(d, fmax(cases[i].sd, 0.0), 1e-15);
		assert_vec_close(c, cases[i].closest, 1e-15);
		assert_int_equal(o3_point_in_polytope(cases[i].at, &t, id, 0.0), cases[i].sd < 0);
		assert_close(o3_signed_distance(&p, pp, 0.25, &t, id, 0, NULL, NULL, NULL), cases[i].sd - 0.25, 1e-15);
	}
}

// Points, segments, flat polygons against each other and against solids.
static void test_degenerate_pairs(void **state)
{
	(void)state;
	static o3_poly tri, tri2, seg, seg2, pt, sq, cube;
	imp_pose3 id = imp_pose3_identity();
	imp_vec3 tv[] = {V(-1, -1, 0), V(1, -1, 0), V(0, 1, 0)};
	o3_poly_make(&tri, tv, 3);
	o3_poly_make(&tri2, tv, 3);
	imp_vec3 sv[] = {V(0, 0, -0.3), V(0, 0, 0.5)};
	o3_poly_make(&seg, sv, 2);
	imp_vec3 sv2[] = {V(-2, 0, 0), V(2, 0, 0)};
	o3_poly_make(&seg2, sv2, 2);
	imp_vec3 origin = V(0, 0, 0);
	o3_poly_make(&pt, &origin, 1);
	imp_vec3 sqv[] = {V(-1, -1, 0), V(1, -1, 0), V(1, 1, 0), V(-1, 1, 0)};
	o3_poly_make(&sq, sqv, 4);
	o3_poly_box(&cube, V(0.5, 0.5, 0.5));
	imp_vec3 n, wa, wb;
	o3_result r;

	// A segment through a triangle: lift it 0.3 (sideways needs 1/sqrt(5)).
	assert_close(o3_signed_distance(&tri, id, 0, &seg, id, 0, NULL, NULL, &n), -0.3, 1e-15);
	assert_vec_close(n, V(0, 0, 1), 0);
	assert_true(o3_overlap_brute(&tri, id, &seg, id));
	// Beside it (nearest to the corner (1, -1)), and above it.
	assert_close(o3_signed_distance(&tri, id, 0, &seg, at(3, 0, 0), 0, &wa, &wb, NULL), sqrt(5.0), 1e-15);
	assert_vec_close(wa, V(1, -1, 0), 1e-15);
	assert_vec_close(wb, V(3, 0, 0), 1e-15);
	assert_close(o3_signed_distance(&tri, id, 0, &seg, at(0, 0, 1), 0, &wa, &wb, NULL), 0.7, 1e-15);
	assert_vec_close(wa, V(0, 0, 0), 1e-15);
	// Coplanar triangles: apart in the plane, overlapping (depth 0).
	assert_close(o3_signed_distance(&tri, id, 0, &tri2, at(3, 0, 0), 0, NULL, NULL, NULL), 1.0, 1e-15);
	o3_query(&tri, id, 0, &tri2, at(0.5, 0.2, 0), 0, &r);
	assert_close(r.sd, 0.0, 1e-15);
	assert_true(!r.unique_normal);
	// Parallel planes, 0.5 apart; tilted a little (below the angle
	// tolerance, and above it) and crossing.
	assert_close(o3_signed_distance(&tri, id, 0, &tri2, at(0.3, 0.1, 0.5), 0, NULL, NULL, &n), 0.5, 1e-15);
	assert_vec_close(n, V(0, 0, 1), 1e-15);
	imp_quat tilt = imp_quat_from_axis_angle(V(1, 0, 0), 0.1);
	o3_query(&tri, id, 0, &tri2, turned(0, 0.2, 0, tilt), 0, &r);
	assert_true(r.overlap && r.sd < -1e-3);
	// Segments: parallel, crossing, skew (capsules), collinear apart.
	assert_close(o3_signed_distance(&seg2, id, 0, &seg2, at(1, 1, 0), 0, NULL, NULL, &n), 1.0, 0);
	assert_vec_close(n, V(0, 1, 0), 0);
	imp_quat qz = imp_quat_from_axis_angle(V(0, 0, 1), 0.5 * 3.141592653589793);
	assert_close(o3_signed_distance(&seg2, id, 0, &seg2, turned(0.5, 0.5, 0, qz), 0, NULL, NULL, NULL), 0.0, 1e-15);
	assert_close(o3_signed_distance(&seg2, id, 0.25, &seg2, turned(0.5, 0.5, 2, qz), 0.25, &wa, &wb, &n), 1.5,
		     1e-15);
	assert_vec_close(wa, V(0.5, 0, 0.25), 1e-15);
	assert_vec_close(wb, V(0.5, 0, 1.75), 1e-15);
	assert_close(o3_signed_distance(&seg2, id, 0, &seg2, at(5, 0, 0), 0, NULL, NULL, NULL), 1.0, 0);
	// Points (spheres), a point on a segment, a point in a square.
	assert_close(o3_signed_distance(&pt, at(1, 2, 3), 0.5, &pt, at(4, 6, 3), 1.5, &wa, &wb, &n), 3.0, 1e-15);
	assert_vec_close(wa, V(1.3, 2.4, 3), 1e-15);
	assert_vec_close(wb, V(3.1, 4.8, 3), 1e-15);
	assert_vec_close(n, V(0.6, 0.8, 0), 1e-15);
	assert_close(o3_signed_distance(&pt, at(1, 2, 3), 0.5, &pt, at(1, 2, 3), 1.5, NULL, NULL, NULL), -2.0, 0);
	assert_close(o3_signed_distance(&pt, at(1.5, 0, 0), 0, &seg2, id, 0, NULL, NULL, NULL), 0.0, 0);
	assert_close(o3_signed_distance(&pt, at(0.5, 0.5, 0), 0, &sq, id, 0, NULL, NULL, NULL), 0.0, 0);
	assert_close(o3_signed_distance(&pt, at(0.5, 0.5, 2), 0, &sq, id, 0, NULL, NULL, &n), 2.0, 0);
	assert_vec_close(n, V(0, 0, -1), 0);
	// A square through a cube: lift the cube 0.2.
	assert_close(o3_signed_distance(&sq, id, 0, &cube, at(0, 0, 0.3), 0, NULL, NULL, &n), -0.2, 1e-15);
	assert_vec_close(n, V(0, 0, 1), 0);
	// A segment through a cube: lift the segment 0.2.
	assert_close(o3_signed_distance(&cube, id, 0, &seg2, at(0, 0.1, 0.3), 0, NULL, NULL, &n), -0.2, 1e-15);
	assert_vec_close(n, V(0, 0, 1), 0);
	// A point inside the cube, 0.1 from the face y = 0.5.
	assert_close(o3_signed_distance(&cube, id, 0, &pt, at(0.2, 0.4, -0.1), 0, NULL, NULL, &n), -0.1, 1e-15);
	assert_vec_close(n, V(0, 1, 0), 0);
	// Two squares crossing at right angles: b in the plane x = 0, z from
	// -0.3 to 1.7: lift it 0.3.
	imp_quat qy = imp_quat_from_axis_angle(V(0, 1, 0), 0.5 * 3.141592653589793);
	assert_close(o3_signed_distance(&sq, id, 0, &sq, turned(0, 0, 0.7, qy), 0, NULL, NULL, &n), -0.3, 1e-15);
	assert_vec_close(n, V(0, 0, 1), 1e-15);
	// A segment parallel to the square's plane: above it, in it.
	assert_close(o3_signed_distance(&sq, id, 0, &seg2, at(0, 0.5, 0.25), 0, NULL, NULL, &n), 0.25, 0);
	assert_close(o3_signed_distance(&sq, id, 0, &seg2, at(0, 0.5, 0), 0, NULL, NULL, NULL), 0.0, 0);
	assert_close(o3_signed_distance(&sq, id, 0, &seg2, at(0, 1.5, 0), 0, NULL, NULL, NULL), 0.5, 0);
	// A segment vertical through the square: C is solid, depth 0.3 (down).
	assert_close(o3_signed_distance(&sq, id, 0, &seg, at(0.5, 0.5, 0), 0, NULL, NULL, &n), -0.3, 1e-15);
	assert_vec_close(n, V(0, 0, 1), 0);
}

// ---------------------------------------------------------------------------
// Random pairs.

typedef struct body {
	o3_poly poly;
	double radius;
	imp_pose3 pose;
} body;

static void random_body(o3_rng *r, body *b, int max_n)
{
	imp_vec3 p[O3_MAX_POINTS];
	int n = random_points(r, p, max_n, o3_range(r, 0.2, 2.0));
	// Centred on the pose, so that the offsets below decide the overlap.
	imp_vec3 c = V(0, 0, 0);
	for (int i = 0; i < n; i++)
		c = imp_vec3_add(c, imp_vec3_scale(1.0 / n, p[i]));
	for (int i = 0; i < n; i++)
		p[i] = imp_vec3_sub(p[i], c);
	o3_poly_make(&b->poly, p, n);
	b->radius = o3_int(r, 3) == 0 ? o3_range(r, 0, 0.5) : 0.0;
	b->pose = o3_pose(r, 2.0);
}

// The witnesses: pb - pa = sd normal; the core points (pa - ra n, pb + rb
// n) lie on the cores.
static void check_witnesses(const o3_result *r, const body *a, const body *b)
{
	double tol = 1e-9 * r->scene;
	assert_close(imp_vec3_length(r->normal), 1.0, 1e-12);
	assert_vec_close(imp_vec3_sub(r->pb, r->pa), imp_vec3_scale(r->sd, r->normal), tol);
	imp_vec3 ca = imp_vec3_sub(r->pa, imp_vec3_scale(a->radius, r->normal));
	imp_vec3 cb = imp_vec3_add(r->pb, imp_vec3_scale(b->radius, r->normal));
	assert_true(o3_point_polytope_distance(ca, &a->poly, a->pose, NULL) <= tol);
	assert_true(o3_point_polytope_distance(cb, &b->poly, b->pose, NULL) <= tol);
}

// The SAT against edges crossing faces and containment; the feature
// distance against the SAT's gap and every vertex pair; the depth against
// every direction and against moving b by it.
static void test_sat_vs_brute(void **state)
{
	(void)state;
	o3_rng rng = {21};
	static body a, b, moved;
	long checked = 0, overlapping = 0, solid_overlaps = 0;
	for (int it = 0; it < 1500; it++) {
		random_body(&rng, &a, 20);
		random_body(&rng, &b, 20);
		b.pose.p = imp_vec3_add(a.pose.p, o3_vec(&rng, -1.2, 1.2));
		o3_result r;
		o3_query(&a.poly, a.pose, a.radius, &b.poly, b.pose, b.radius, &r);
		check_witnesses(&r, &a, &b);
		double scene = r.scene;
		double d = o3_feature_distance(&a.poly, a.pose, &b.poly, b.pose, NULL, NULL);
		for (int i = 0; i < a.poly.nv; i++)
			for (int j = 0; j < b.poly.nv; j++)
				assert_true(d <= dist(world(&a.poly, a.pose, a.poly.vert[i]),
						      world(&b.poly, b.pose, b.poly.vert[j])) + 1e-15 * scene);
		bool solid = o3_difference_is_solid(&a.poly, a.pose, &b.poly, b.pose);
		double sat = o3_sat_depth(&a.poly, a.pose, &b.poly, b.pose, NULL);
		if (sat < 0.0)
			assert_true(d >= -sat - 1e-14 * scene);
		if (fabs(r.core_sd) <= 1e-9 * scene)
			continue;
		checked++;
		overlapping += r.core_sd < 0;
		assert_int_equal(r.core_sd < 0, o3_overlap_brute(&a.poly, a.pose, &b.poly, b.pose));
		if (!solid || r.core_sd > 0)
			continue;
		solid_overlaps++;
		double depth = -r.core_sd;
		// No direction needs less than the depth.
		imp_vec3 wa[O3_MAX_POINTS], wb[O3_MAX_POINTS];
		for (int i = 0; i < a.poly.n; i++)
			wa[i] = world(&a.poly, a.pose, i);
		for (int i = 0; i < b.poly.n; i++)
			wb[i] = world(&b.poly, b.pose, i);
		for (int k = 0; k < 50; k++) {
			imp_vec3 u = o3_unit(&rng);
			double top = -INFINITY, bottom = INFINITY;
			for (int i = 0; i < a.poly.nv; i++)
				top = fmax(top, imp_vec3_dot(u, wa[a.poly.vert[i]]));
			for (int i = 0; i < b.poly.nv; i++)
				bottom = fmin(bottom, imp_vec3_dot(u, wb[b.poly.vert[i]]));
			assert_true(top - bottom >= depth - 1e-14 * scene);
		}
		// Moving b by depth + eps along the normal leaves a gap of eps
		// (found by the feature pairs); by depth - eps it still overlaps.
		double eps = 1e-3 * fmin(1.0, depth);
		moved = b;
		moved.pose.p = imp_vec3_add(b.pose.p, imp_vec3_scale(depth + eps, r.normal));
		o3_result m;
		o3_query(&a.poly, a.pose, 0, &moved.poly, moved.pose, 0, &m);
		assert_close(m.core_sd, eps, 1e-12 * scene);
		moved.pose.p = imp_vec3_add(b.pose.p, imp_vec3_scale(depth - eps, r.normal));
		o3_query(&a.poly, a.pose, 0, &moved.poly, moved.pose, 0, &m);
		assert_true(m.core_sd < 0 && m.core_sd >= -eps - 1e-12 * scene);
	}
	print_message("oracle3d SAT vs brute: %ld checked, %ld overlapping (%ld with a solid difference)\n", checked,
		      overlapping, solid_overlaps);
	assert_true(overlapping > checked / 10 && overlapping < checked * 9 / 10);
	assert_true(solid_overlaps > checked / 10);
}

static imp_pose3 pose_mul(imp_pose3 m, imp_pose3 p)
{
	return imp_pose3_mul(m, p);
}

// The same pair under a common rigid motion; and swapped.
static void test_invariance_symmetry(void **state)
{
	(void)state;
	o3_rng rng = {31};
	static body a, b, ma, mb;
	int normals = 0, points = 0;
	for (int it = 0; it < 1500; it++) {
		random_body(&rng, &a, it % 10 == 0 ? 32 : 16);
		random_body(&rng, &b, it % 10 == 0 ? 32 : 16);
		b.pose.p = imp_vec3_add(a.pose.p, o3_vec(&rng, -2, 2));
		if (it % 4 == 0)
			b.pose.q = a.pose.q; // parallel faces and edges: ties
		o3_result r, m, s;
		o3_query(&a.poly, a.pose, a.radius, &b.poly, b.pose, b.radius, &r);
		imp_pose3 motion = o3_pose(&rng, 10.0);
		ma = a;
		mb = b;
		ma.pose = pose_mul(motion, a.pose);
		mb.pose = pose_mul(motion, b.pose);
		o3_query(&ma.poly, ma.pose, ma.radius, &mb.poly, mb.pose, mb.radius, &m);
		double tol = 1e-12 * fmax(r.scene, m.scene);
		assert_close(m.sd, r.sd, tol);
		check_witnesses(&m, &ma, &mb);
		if (r.unique_normal && m.unique_normal)
			assert_vec_close(m.normal, imp_quat_rotate(motion.q, r.normal), 1e-9);
		if (r.unique_points && m.unique_points) {
			assert_vec_close(m.pa, imp_pose3_apply(motion, r.pa), 1e-9 * m.scene);
			assert_vec_close(m.pb, imp_pose3_apply(motion, r.pb), 1e-9 * m.scene);
		}
		o3_query(&b.poly, b.pose, b.radius, &a.poly, a.pose, a.radius, &s);
		assert_close(s.sd, r.sd, 1e-12 * r.scene);
		check_witnesses(&s, &b, &a);
		if (r.unique_normal && s.unique_normal) {
			assert_vec_close(s.normal, imp_vec3_scale(-1.0, r.normal), 1e-9);
			normals++;
		}
		if (r.unique_points && s.unique_points) {
			assert_vec_close(s.pa, r.pb, 1e-9 * r.scene);
			assert_vec_close(s.pb, r.pa, 1e-9 * r.scene);
			points++;
		}
	}
	print_message("invariance, symmetry: 1500 pairs, %d with a unique normal, %d with unique points\n", normals,
		      points);
	assert_true(normals > 500 && points > 300);
}

// ---------------------------------------------------------------------------
// Prisms: a convex polygon extruded to z in [-1, 1] against another of the
// same height is the 2D problem, written here from scratch.

typedef struct pt2 {
	double x, y;
} pt2;

static double seg2(pt2 p, pt2 a, pt2 b)
{
	double ex = b.x - a.x, ey = b.y - a.y;
	double t = ((p.x - a.x) * ex + (p.y - a.y) * ey) / (ex * ex + ey * ey);
	t = fmin(fmax(t, 0.0), 1.0);
	return hypot(p.x - a.x - t * ex, p.y - a.y - t * ey);
}

// Distance of disjoint convex polygons: every vertex against every edge.
static double distance2(const pt2 *a, int na, const pt2 *b, int nb)
{
	double best = INFINITY;
	for (int i = 0; i < na; i++)
		for (int j = 0; j < nb; j++) {
			best = fmin(best, seg2(a[i], b[j], b[(j + 1) % nb]));
			best = fmin(best, seg2(b[j], a[i], a[(i + 1) % na]));
		}
	return best;
}

// The smallest move of b (along either normal of any edge of either
// polygon) that clears a; negative when some edge normal separates them.
static double depth2(const pt2 *a, int na, const pt2 *b, int nb)
{
	double best = INFINITY;
	const pt2 *polys[2] = {a, b};
	int counts[2] = {na, nb};
	for (int k = 0; k < 2; k++)
		for (int i = 0; i < counts[k]; i++) {
			pt2 p = polys[k][i], q = polys[k][(i + 1) % counts[k]];
			double ux = q.y - p.y, uy = p.x - q.x, l = hypot(ux, uy);
			for (int s = -1; s <= 1; s += 2) {
				double top = -INFINITY, bottom = INFINITY;
				for (int j = 0; j < na; j++)
					top = fmax(top, s * (ux * a[j].x + uy * a[j].y) / l);
				for (int j = 0; j < nb; j++)
					bottom = fmin(bottom, s * (ux * b[j].x + uy * b[j].y) / l);
				best = fmin(best, top - bottom);
			}
		}
	return best;
}

// A convex polygon: k points on an ellipse at sorted angles, centred at c.
static int random_polygon(o3_rng *r, pt2 *out, pt2 c)
{
	int k = 3 + o3_int(r, 10);
	double angle[16];
	for (int i = 0; i < k; i++)
		angle[i] = o3_range(r, 0, 2 * 3.141592653589793);
	for (int i = 1; i < k; i++)
		for (int j = i; j > 0 && angle[j] < angle[j - 1]; j--) {
			double t = angle[j];
			angle[j] = angle[j - 1];
			angle[j - 1] = t;
		}
	double rx = o3_range(r, 0.2, 3.0), ry = o3_range(r, 0.2, 3.0), turn = o3_range(r, 0, 3.2);
	int n = 0;
	for (int i = 0; i < k; i++) {
		if (i > 0 && angle[i] - angle[i - 1] < 1e-3)
			continue;
		double x = rx * cos(angle[i]), y = ry * sin(angle[i]);
		out[n].x = c.x + cos(turn) * x - sin(turn) * y;
		out[n].y = c.y + sin(turn) * x + cos(turn) * y;
		n++;
	}
	return n;
}

static void test_lift2d(void **state)
{
	(void)state;
	o3_rng rng = {41};
	static o3_poly a, b;
	int apart = 0, deep = 0, shallow = 0;
	for (int it = 0; it < 800; it++) {
		pt2 pa[16], pb[16];
		int na = random_polygon(&rng, pa, (pt2){0, 0});
		double ox = o3_range(&rng, -3, 3), oy = o3_range(&rng, -3, 3);
		int nb = random_polygon(&rng, pb, (pt2){ox, oy});
		if (na < 3 || nb < 3)
			continue;
		double depth = depth2(pa, na, pb, nb);
		if (fabs(depth) < 1e-9)
			continue;
		imp_vec3 va[32], vb[32];
		for (int i = 0; i < na; i++) {
			va[2 * i] = V(pa[i].x, pa[i].y, -1);
			va[2 * i + 1] = V(pa[i].x, pa[i].y, 1);
		}
		for (int i = 0; i < nb; i++) {
			vb[2 * i] = V(pb[i].x, pb[i].y, -1);
			vb[2 * i + 1] = V(pb[i].x, pb[i].y, 1);
		}
		o3_poly_make(&a, va, 2 * na);
		o3_poly_make(&b, vb, 2 * nb);
		assert_true(a.dim == 3 && a.nf == na + 2 && a.ne == 3 * na);
		// The same rigid motion for both.
		imp_pose3 motion = it % 2 ? o3_pose(&rng, 5.0) : imp_pose3_identity();
		o3_result r;
		o3_query(&a, motion, 0, &b, motion, 0, &r);
		double want;
		if (depth < 0) {
			want = distance2(pa, na, pb, nb);
			apart++;
			assert_close(imp_quat_rotate_inv(motion.q, r.normal).z, 0.0, 1e-9);
		} else {
			want = -fmin(depth, 2.0);
			if (depth < 2.0)
				shallow++;
			else
				deep++;
		}
		assert_close(r.sd, want, 1e-12 * r.scene);
	}
	print_message("lift2d: %d apart, %d overlapping less than the height, %d more\n", apart, shallow, deep);
	assert_true(apart > 100 && shallow > 100 && deep > 10);
}

// Thin, nearly flat polygons (z noise: solids, not flat) in one plane: the
// answer is the 2D one to within the noise (overlapping in the plane, they
// may still miss each other by up to the noise). Every face normal of
// a - b is then nearly the plane normal; the first half has random
// offsets, the second places b's extreme vertex a small gap from a's at
// noise just above the flatness tolerance and far from the origin, where
// those normals separate the two by a margin below rounding and the
// in-face axes must (without them about 1 in 150 of these fails).
static void test_nearly_coplanar(void **state)
{
	(void)state;
	o3_rng rng = {43};
	static o3_poly a, b;
	int apart = 0, over = 0, solids = 0;
	for (int it = 0; it < 2400; it++) {
		bool gap = it >= 600;
		pt2 pa[16], pb[16];
		int na = random_polygon(&rng, pa, (pt2){0, 0});
		int nb = random_polygon(&rng, pb, (pt2){o3_range(&rng, -3, 3), o3_range(&rng, -3, 3)});
		if (gap) {
			double t = o3_range(&rng, 0, 2 * 3.141592653589793), ux = cos(t), uy = sin(t);
			int ia = 0, ib = 0;
			for (int i = 0; i < na; i++)
				if (ux * pa[i].x + uy * pa[i].y > ux * pa[ia].x + uy * pa[ia].y)
					ia = i;
			for (int i = 0; i < nb; i++)
				if (ux * pb[i].x + uy * pb[i].y < ux * pb[ib].x + uy * pb[ib].y)
					ib = i;
			double g = pow(10.0, -o3_range(&rng, 3, 9));
			double sx = pa[ia].x + g * ux - pb[ib].x, sy = pa[ia].y + g * uy - pb[ib].y;
			for (int i = 0; i < nb; i++) {
				pb[i].x += sx;
				pb[i].y += sy;
			}
		}
		if (na < 3 || nb < 3)
			continue;
		double depth = depth2(pa, na, pb, nb);
		double noise = pow(10.0, gap ? -o3_range(&rng, 12.8, 13.7) : -o3_range(&rng, 5, 13));
		if (fabs(depth) < 1e3 * noise)
			continue;
		imp_vec3 va[16], vb[16];
		for (int i = 0; i < na; i++)
			va[i] = V(pa[i].x, pa[i].y, o3_range(&rng, -noise, noise));
		for (int i = 0; i < nb; i++)
			vb[i] = V(pb[i].x, pb[i].y, o3_range(&rng, -noise, noise));
		o3_poly_make(&a, va, na);
		o3_poly_make(&b, vb, nb);
		solids += a.dim == 3 && b.dim == 3;
		imp_pose3 motion = gap ? o3_pose(&rng, 100.0) : it % 2 ? o3_pose(&rng, 5.0) : imp_pose3_identity();
		o3_result r;
		o3_query(&a, motion, 0, &b, motion, 0, &r);
		if (depth < 0) {
			apart++;
			assert_close(r.sd, distance2(pa, na, pb, nb), 10 * noise + 1e-12 * r.scene);
		} else {
			over++;
			assert_close(r.sd, 0.0, 4 * noise + 1e-12 * r.scene);
		}
	}
	print_message("nearly coplanar: %d apart, %d overlapping, %d both solid\n", apart, over, solids);
	assert_true(apart > 1000 && over > 100 && solids > 700);
}

// ---------------------------------------------------------------------------
// Cost, for the report: not a check.

static double seconds(void)
{
	return (double)clock() / CLOCKS_PER_SEC;
}

static void test_cost(void **state)
{
	(void)state;
	o3_rng rng = {51};
	static o3_poly a[2], b[2];
	imp_vec3 p[32];
	int sizes[2] = {8, 32};
	for (int s = 0; s < 2; s++) {
		int n = sizes[s];
		double t0 = seconds();
		int makes = 20;
		for (int k = 0; k < makes; k++) {
			for (int i = 0; i < n; i++)
				p[i] = o3_unit(&rng);
			o3_poly_make(&a[s], p, n);
		}
		double t1 = seconds();
		for (int i = 0; i < n; i++)
			p[i] = imp_vec3_scale(o3_range(&rng, 0.8, 1.0), o3_unit(&rng));
		o3_poly_make(&b[s], p, n);
		int queries = 200;
		double tq[2] = {0, 0};
		int nq[2] = {0, 0};
		for (int k = 0; k < queries; k++) {
			imp_pose3 pb = o3_pose(&rng, 2.0);
			double q0 = seconds();
			double sd = o3_signed_distance(&a[s], imp_pose3_identity(), 0, &b[s], pb, 0, NULL, NULL, NULL);
			double q1 = seconds();
			tq[sd < 0] += q1 - q0;
			nq[sd < 0]++;
		}
		print_message("cost, %d points (%d vertices, %d faces, %d edges): make %.3g ms; query apart %.3g ms (%d), "
			      "overlapping %.3g ms (%d)\n",
			      n, a[s].nv, a[s].nf, a[s].ne, 1e3 * (t1 - t0) / makes, 1e3 * tq[0] / fmax(nq[0], 1), nq[0],
			      1e3 * tq[1] / fmax(nq[1], 1), nq[1]);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_exact_side),
		cmocka_unit_test(test_hull_known),
		cmocka_unit_test(test_hull_definition),
		cmocka_unit_test(test_segment_segment),
		cmocka_unit_test(test_point_triangle),
		cmocka_unit_test(test_point_box_ellipsoid),
		cmocka_unit_test(test_cubes),
		cmocka_unit_test(test_tetrahedron_point),
		cmocka_unit_test(test_degenerate_pairs),
		cmocka_unit_test(test_sat_vs_brute),
		cmocka_unit_test(test_invariance_symmetry),
		cmocka_unit_test(test_lift2d),
		cmocka_unit_test(test_nearly_coplanar),
		cmocka_unit_test(test_cost),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
