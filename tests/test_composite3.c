// SPDX-License-Identifier: MIT
// Non-convex 3D shapes (meshes, height fields, compounds) in the pairwise
// queries, against a brute force over every pair of children with the
// independent polytope oracle (oracle3d.h): procedural meshes (noisy
// spheres, tori, thin plates, open surfaces, meshes with repeated and
// zero-area triangles), height fields with shapes above, across and under
// the surface, compounds of polytopes, boxes, spheres and capsules; both
// orders of every pair, touching pairs made on purpose, scaled scenes,
// warm caches. Also the constructors' refusals and the accessors.
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

#include "data_dir.h"
#include "oracle3d.h"

#define PI 3.14159265358979323846

/// A shape with the oracle's view of each of its children: the child's
/// polytope, radius and pose in the shape's frame.
typedef struct body {
	imp_shape *shape;
	imp_shape *owned[8]; ///< a compound's children
	int n_owned;
	int n;               ///< children (1 for a convex shape)
	o3_poly *poly;
	double *radius;
	imp_pose3 *pose;
	double scale;        ///< the largest coordinate of the shape's points
} body;

static void body_alloc(body *b, int n)
{
	memset(b, 0, sizeof *b);
	b->n = n;
	b->poly = calloc((size_t)n, sizeof *b->poly);
	b->radius = calloc((size_t)n, sizeof *b->radius);
	b->pose = calloc((size_t)n, sizeof *b->pose);
	assert_non_null(b->poly);
	for (int i = 0; i < n; ++i)
		b->pose[i] = imp_pose3_identity();
}

static void body_free(body *b)
{
	imp_shape_destroy(b->shape);
	for (int i = 0; i < b->n_owned; ++i)
		imp_shape_destroy(b->owned[i]);
	free(b->poly);
	free(b->radius);
	free(b->pose);
}

static double max_coord(const imp_vec3 *p, int n)
{
	double m = 0.0;
	for (int i = 0; i < n; ++i)
		m = fmax(m, fmax(fabs(p[i].x), fmax(fabs(p[i].y), fabs(p[i].z))));
	return m;
}

static void mesh_body(body *b, const imp_vec3 *v, int nv, const int32_t *t, int nt, double radius)
{
	body_alloc(b, nt);
	assert_int_equal(imp_shape_mesh(v, nv, t, nt, radius, &b->shape), IMP_OK);
	for (int i = 0; i < nt; ++i) {
		imp_vec3 p[3] = {v[t[3 * i]], v[t[3 * i + 1]], v[t[3 * i + 2]]};
		o3_poly_make(&b->poly[i], p, 3);
		b->radius[i] = radius;
	}
	b->scale = max_coord(v, nv) + radius;
}

/// A convex body: points (1: sphere, 2: capsule, more: polytope).
static void convex_body(body *b, const imp_vec3 *p, int n, double radius)
{
	body_alloc(b, 1);
	if (n == 1 && radius > 0.0)
		assert_int_equal(imp_shape_sphere(p[0], radius, &b->shape), IMP_OK);
	else if (n == 2 && radius > 0.0)
		assert_int_equal(imp_shape_capsule3(p[0], p[1], radius, &b->shape), IMP_OK);
	else
		assert_int_equal(imp_shape_polytope(p, n, radius, &b->shape), IMP_OK);
	o3_poly_make(&b->poly[0], p, n);
	b->radius[0] = radius;
	b->scale = max_coord(p, n) + radius;
}

// ---------------------------------------------------------------------------
// Procedural meshes.

typedef struct mesh {
	imp_vec3 v[512];
	int32_t t[3 * 1024];
	int nv, nt;
} mesh;

static void tri(mesh *m, int a, int b, int c)
{
	m->t[3 * m->nt] = a;
	m->t[3 * m->nt + 1] = b;
	m->t[3 * m->nt + 2] = c;
	++m->nt;
}

/// A sphere of nu x nv quads, each radius moved by up to `noise`.
static void noisy_sphere(mesh *m, o3_rng *r, int nu, int nv, double rad, double noise)
{
	m->nv = m->nt = 0;
	m->v[m->nv++] = imp_vec3_make(0, 0, rad * (1 + o3_range(r, -noise, noise)));
	for (int j = 1; j < nv; ++j)
		for (int i = 0; i < nu; ++i) {
			double th = PI * j / nv, ph = 2 * PI * i / nu;
			double rr = rad * (1 + o3_range(r, -noise, noise));
			m->v[m->nv++] = imp_vec3_make(rr * sin(th) * cos(ph), rr * sin(th) * sin(ph), rr * cos(th));
		}
	int south = m->nv;
	m->v[m->nv++] = imp_vec3_make(0, 0, -rad * (1 + o3_range(r, -noise, noise)));
	for (int i = 0; i < nu; ++i)
		tri(m, 0, 1 + i, 1 + (i + 1) % nu);
	for (int j = 1; j < nv - 1; ++j)
		for (int i = 0; i < nu; ++i) {
			int a = 1 + (j - 1) * nu + i, b = 1 + (j - 1) * nu + (i + 1) % nu;
			tri(m, a, a + nu, b + nu);
			tri(m, a, b + nu, b);
		}
	for (int i = 0; i < nu; ++i)
		tri(m, south, 1 + (nv - 2) * nu + (i + 1) % nu, 1 + (nv - 2) * nu + i);
}

static void torus(mesh *m, int nu, int nv, double big, double small)
{
	m->nv = m->nt = 0;
	for (int i = 0; i < nu; ++i)
		for (int j = 0; j < nv; ++j) {
			double u = 2 * PI * i / nu, w = 2 * PI * j / nv;
			m->v[m->nv++] = imp_vec3_make((big + small * cos(w)) * cos(u), (big + small * cos(w)) * sin(u),
						      small * sin(w));
		}
	for (int i = 0; i < nu; ++i)
		for (int j = 0; j < nv; ++j) {
			int a = i * nv + j, b = ((i + 1) % nu) * nv + j, c = ((i + 1) % nu) * nv + (j + 1) % nv,
			    d = i * nv + (j + 1) % nv;
			tri(m, a, b, c);
			tri(m, a, c, d);
		}
}

/// An open surface: a grid of n x n quads with random heights, and
/// (thin) a second one `gap` above it.
static void plate(mesh *m, o3_rng *r, int n, double size, double bump, bool thin, double gap)
{
	m->nv = m->nt = 0;
	int layers = thin ? 2 : 1;
	for (int l = 0; l < layers; ++l) {
		int base = m->nv;
		for (int j = 0; j <= n; ++j)
			for (int i = 0; i <= n; ++i)
				m->v[m->nv++] = imp_vec3_make(size * i / n - size / 2, size * j / n - size / 2,
							      l * gap + o3_range(r, -bump, bump));
		for (int j = 0; j < n; ++j)
			for (int i = 0; i < n; ++i) {
				int a = base + j * (n + 1) + i;
				tri(m, a, a + 1, a + n + 2);
				tri(m, a, a + n + 2, a + n + 1);
			}
	}
}

/// Adds repeated triangles, triangles with a repeated corner, collinear
/// ones and single points.
static void degenerate_extras(mesh *m, o3_rng *r)
{
	int nt = m->nt;
	for (int k = 0; k < 6 && k < nt; ++k) {
		int t = o3_int(r, nt);
		int a = m->t[3 * t], b = m->t[3 * t + 1], c = m->t[3 * t + 2];
		switch (k % 3) {
		case 0:
			tri(m, a, b, c); // repeated
			break;
		case 1:
			tri(m, a, a, b); // a segment
			break;
		default:
			tri(m, c, c, c); // a point
			break;
		}
	}
	// Three collinear points.
	imp_vec3 p = m->v[m->t[0]], q = m->v[m->t[1]];
	m->v[m->nv] = imp_vec3_add(p, imp_vec3_scale(0.5, imp_vec3_sub(q, p)));
	tri(m, m->t[0], m->nv, m->t[1]);
	++m->nv;
}

// ---------------------------------------------------------------------------
// The brute force and the checks.

/// The oracle's signed distance of a's child i at pa and b's child j at pb.
static double child_sd(const body *a, int i, imp_pose3 pa, const body *b, int j, imp_pose3 pb)
{
	imp_pose3 wa = imp_pose3_mul(pa, a->pose[i]), wb = imp_pose3_mul(pb, b->pose[j]);
	wa.q = imp_quat_normalize(wa.q);
	wb.q = imp_quat_normalize(wb.q);
	return o3_signed_distance(&a->poly[i], wa, a->radius[i], &b->poly[j], wb, b->radius[j], NULL, NULL, NULL);
}

static double brute(const body *a, imp_pose3 pa, const body *b, imp_pose3 pb, int *bi, int *bj)
{
	double best = INFINITY;
	for (int i = 0; i < a->n; ++i)
		for (int j = 0; j < b->n; ++j) {
			double d = child_sd(a, i, pa, b, j, pb);
			if (d < best) {
				best = d;
				*bi = i;
				*bj = j;
			}
		}
	return best;
}

typedef struct stats {
	int pairs, overlapping, touching;
	double worst; ///< largest error relative to the scene
} stats;

/// The scene's size at these poses.
static double scene_of(const body *a, imp_pose3 pa, const body *b, imp_pose3 pb)
{
	double s = fmax(a->scale, b->scale);
	s += fmax(fabs(pa.p.x) + fabs(pa.p.y) + fabs(pa.p.z), fabs(pb.p.x) + fabs(pb.p.y) + fabs(pb.p.z));
	return fmax(s, 1e-300);
}

/// Every level in both orders against the brute force; `cache` (may be
/// NULL) is used by the a-b order's Level 3.
static void check_pair(const body *a, imp_pose3 pa, const body *b, imp_pose3 pb, imp_simplex_cache *cache,
		       stats *st)
{
	int bi = -1, bj = -1;
	double want = brute(a, pa, b, pb, &bi, &bj);
	double scene = scene_of(a, pa, b, pb), tol = 1e-9 * scene;
	st->pairs++;
	st->overlapping += want < -tol;
	st->touching += fabs(want) <= tol;
	for (int order = 0; order < 2; ++order) {
		const body *x = order ? b : a, *y = order ? a : b;
		imp_pose3 px = order ? pb : pa, py = order ? pa : pb;
		imp_closest3_result r;
		assert_int_equal(imp_closest3(x->shape, px, y->shape, py, order ? NULL : cache, &r), IMP_OK);
		double err = fabs(r.distance - want);
		if (!(err <= tol)) {
			print_error("closest: %.17g, brute force %.17g (children %d %d; got %d %d; order %d)\n",
				    r.distance, want, order ? bj : bi, order ? bi : bj, r.child_a, r.child_b, order);
			fail();
		}
		st->worst = fmax(st->worst, err / scene);
		assert_true(r.state != IMP_STATE_DEGENERATE);
		// The children named give that answer.
		assert_true(r.child_a >= (x->n > 1 || imp_shape_child_count(x->shape) > 0 ? 0 : -1));
		assert_true(r.child_b >= (y->n > 1 || imp_shape_child_count(y->shape) > 0 ? 0 : -1));
		double named = child_sd(x, r.child_a < 0 ? 0 : r.child_a, px, y, r.child_b < 0 ? 0 : r.child_b, py);
		assert_true(fabs(named - want) <= tol);
		// Witnesses and normal agree with the distance.
		assert_true(fabs(imp_vec3_length(r.normal) - 1.0) <= 1e-9);
		double along = imp_vec3_dot(r.normal, imp_vec3_sub(r.point_b, r.point_a));
		assert_true(fabs(along - r.distance) <= 1e-8 * scene);
		// Levels 1 and 2.
		double d = imp_distance3(x->shape, px, y->shape, py, NULL);
		assert_true(fabs(d - fmax(want, 0.0)) <= tol);
		if (fabs(want) > tol)
			assert_int_equal(imp_overlap3(x->shape, px, y->shape, py, NULL), want < 0.0);
	}
}

static void report(const char *name, const stats *s)
{
	printf("  %-28s %4d pairs (%d overlapping, %d touching), worst error %.2g of the scene\n", name, s->pairs,
	       s->overlapping, s->touching, s->worst);
}

/// b's pose moved along the oracle's normal so that the pair touches.
static imp_pose3 touching_pose(const body *a, imp_pose3 pa, const body *b, imp_pose3 pb)
{
	int bi = 0, bj = 0;
	brute(a, pa, b, pb, &bi, &bj);
	imp_pose3 wa = imp_pose3_mul(pa, a->pose[bi]), wb = imp_pose3_mul(pb, b->pose[bj]);
	imp_vec3 n;
	double sd = o3_signed_distance(&a->poly[bi], wa, a->radius[bi], &b->poly[bj], wb, b->radius[bj], NULL, NULL, &n);
	pb.p = imp_vec3_sub(pb.p, imp_vec3_scale(sd, n));
	return pb;
}

// ---------------------------------------------------------------------------
// Convex shapes to meet the non-convex ones.

/// A vector with coordinates in the three ranges, one draw a statement
/// (gcc and clang order a call's arguments differently).
static imp_vec3 rvec3(o3_rng *r, double xlo, double xhi, double ylo, double yhi, double zlo, double zhi)
{
	double x = o3_range(r, xlo, xhi);
	double y = o3_range(r, ylo, yhi);
	double z = o3_range(r, zlo, zhi);
	return imp_vec3_make(x, y, z);
}

static void random_convex(body *b, o3_rng *r, double size)
{
	imp_vec3 p[8];
	int kind = o3_int(r, 4);
	double radius = kind >= 2 ? o3_range(r, 0.05, 0.3) * size : (o3_int(r, 2) ? 0.0 : 0.1 * size);
	int n = kind == 2 ? 1 : (kind == 3 ? 2 : 8);
	for (int i = 0; i < n; ++i)
		p[i] = o3_vec(r, -size, size);
	if (kind == 1) { // a box as a polytope of its corners
		imp_vec3 h = imp_vec3_scale(size, rvec3(r, 0.2, 1, 0.2, 1, 0.2, 1));
		for (int i = 0; i < 8; ++i)
			p[i] = imp_vec3_make(i & 1 ? h.x : -h.x, i & 2 ? h.y : -h.y, i & 4 ? h.z : -h.z);
	}
	convex_body(b, p, n, radius);
}

static imp_pose3 near_pose(o3_rng *r, double extent)
{
	imp_vec3 p = o3_vec(r, -extent, extent);
	return imp_pose3_make(p, o3_quat(r));
}

static void make_mesh_body(body *b, o3_rng *r, int kind, double scale)
{
	static mesh m;
	switch (kind) {
	case 0:
		noisy_sphere(&m, r, 8, 5, 1.0, 0.15);
		break;
	case 1:
		torus(&m, 8, 5, 1.0, 0.35);
		break;
	case 2:
		plate(&m, r, 4, 2.0, 0.1, false, 0.0);
		break;
	case 3:
		plate(&m, r, 3, 2.0, 0.0, true, 1e-3);
		break;
	default:
		noisy_sphere(&m, r, 6, 4, 1.0, 0.1);
		degenerate_extras(&m, r);
		break;
	}
	for (int i = 0; i < m.nv; ++i)
		m.v[i] = imp_vec3_scale(scale, m.v[i]);
	mesh_body(b, m.v, m.nv, m.t, m.nt, kind == 1 ? 0.05 * scale : 0.0);
}

static void test_mesh_convex(void **state)
{
	(void)state;
	static const char *names[] = {"noisy sphere", "torus", "bumpy plate", "thin plate", "degenerate triangles"};
	for (int kind = 0; kind < 5; ++kind) {
		stats st = {0};
		o3_rng r = {1000 + (uint64_t)kind};
		body mb;
		make_mesh_body(&mb, &r, kind, 1.0);
		for (int i = 0; i < 60; ++i) {
			body cb;
			random_convex(&cb, &r, o3_range(&r, 0.1, 0.6));
			imp_pose3 pm = near_pose(&r, 0.5), pc = near_pose(&r, kind == 2 || kind == 3 ? 0.8 : 1.4);
			check_pair(&mb, pm, &cb, pc, NULL, &st);
			if (i % 4 == 0)
				check_pair(&mb, pm, &cb, touching_pose(&mb, pm, &cb, pc), NULL, &st);
			body_free(&cb);
		}
		body_free(&mb);
		report(names[kind], &st);
		assert_true(st.overlapping > 5 && st.pairs - st.overlapping > 5);
	}
}

/// Spheres against a soup of separate triangles (no edge shared, so that
/// each region of each triangle, its three edges, corners and both faces,
/// is the answer somewhere): well-shaped, slivers 1e-5 and 1e-7 of their
/// length thick, with a repeated corner, collinear; the mesh sharp and
/// rounded. The sphere-triangle pairs take their own closed form
/// (composite_query.c, sphere_triangle) at Levels 1 and 2, GJK at Level 3
/// and for the slivers: every level against the brute force. And a sphere
/// resting exactly on a triangle's face, edge and corner overlaps it
/// (touching counts).
static void test_sphere_triangle_soup(void **state)
{
	(void)state;
	o3_rng r = {4400};
	for (int rounded = 0; rounded < 2; ++rounded) {
		mesh *m = calloc(1, sizeof *m);
		assert_non_null(m);
		for (int k = 0; k < 12; ++k) {
			imp_vec3 o = imp_vec3_make(3.0 * (k % 4), 3.0 * (k / 4), 0.0);
			imp_vec3 a = imp_vec3_add(o, o3_vec(&r, -1.0, 1.0));
			imp_vec3 b = imp_vec3_add(o, o3_vec(&r, -1.0, 1.0));
			imp_vec3 c = imp_vec3_add(o, o3_vec(&r, -1.0, 1.0));
			if (k == 8 || k == 9) {
				// A sliver: c off the segment ab by 1e-5 or 1e-7 of it.
				imp_vec3 e = imp_vec3_sub(b, a), side = o3_vec(&r, -1.0, 1.0);
				side = imp_vec3_sub(side, imp_vec3_scale(imp_vec3_dot(side, e) / imp_vec3_dot(e, e), e));
				double t = o3_range(&r, 0.2, 0.8);
				double h = (k == 8 ? 1e-5 : 1e-7) * imp_vec3_length(e) / imp_vec3_length(side);
				c = imp_vec3_add(imp_vec3_add(a, imp_vec3_scale(t, e)), imp_vec3_scale(h, side));
			} else if (k == 10) {
				c = b; // a repeated corner
			} else if (k == 11) {
				c = imp_vec3_add(a, imp_vec3_scale(0.3, imp_vec3_sub(b, a))); // collinear
			}
			m->v[m->nv] = a;
			m->v[m->nv + 1] = b;
			m->v[m->nv + 2] = c;
			tri(m, m->nv, m->nv + 1, m->nv + 2);
			m->nv += 3;
		}
		body mb;
		mesh_body(&mb, m->v, m->nv, m->t, m->nt, rounded ? 0.05 : 0.0);
		stats st = {0};
		for (int i = 0; i < 240; ++i) {
			int k = o3_int(&r, m->nt);
			const int32_t *t = &m->t[3 * k];
			// About a corner, an edge's point or the face's middle.
			double w0 = o3_uniform(&r), w1 = o3_uniform(&r) * (1.0 - w0);
			int region = o3_int(&r, 3);
			if (region == 0)
				w0 = 1.0, w1 = 0.0;
			else if (region == 1)
				w1 = 1.0 - w0;
			imp_vec3 at = imp_vec3_add(imp_vec3_add(imp_vec3_scale(w0, m->v[t[0]]), imp_vec3_scale(w1, m->v[t[1]])),
						   imp_vec3_scale(1.0 - w0 - w1, m->v[t[2]]));
			imp_vec3 c = imp_vec3_add(at, o3_vec(&r, -0.6, 0.6));
			body sb;
			convex_body(&sb, &c, 1, o3_range(&r, 0.05, 0.5));
			imp_pose3 pm = imp_pose3_identity(), ps = imp_pose3_identity();
			check_pair(&mb, pm, &sb, ps, NULL, &st);
			if (i % 3 == 0)
				check_pair(&mb, pm, &sb, touching_pose(&mb, pm, &sb, ps), NULL, &st);
			body_free(&sb);
		}
		report(rounded ? "spheres, rounded soup" : "spheres, triangle soup", &st);
		assert_true(st.overlapping > 10 && st.pairs - st.overlapping > 10 && st.touching > 10);
		body_free(&mb);
		free(m);
	}
	// Resting exactly on the face, an edge and a corner of a triangle in
	// z = 0: distance 0, overlapping (touching counts), in both orders.
	imp_vec3 v[3] = {{0, 0, 0}, {4, 0, 0}, {0, 4, 0}};
	int32_t t3[3] = {0, 1, 2};
	imp_shape *plate, *ball;
	assert_int_equal(imp_shape_mesh(v, 3, t3, 1, 0.0, &plate), IMP_OK);
	assert_int_equal(imp_shape_sphere(imp_vec3_make(0, 0, 0), 0.5, &ball), IMP_OK);
	imp_vec3 rest[3] = {{1, 1, 0.5}, {2, -0.5, 0}, {-0.5, 0, 0}};
	for (int i = 0; i < 3; ++i) {
		imp_pose3 pb = imp_pose3_make(rest[i], imp_quat_identity());
		assert_true(imp_distance3(plate, imp_pose3_identity(), ball, pb, NULL) == 0.0);
		assert_true(imp_distance3(ball, pb, plate, imp_pose3_identity(), NULL) == 0.0);
		assert_true(imp_overlap3(plate, imp_pose3_identity(), ball, pb, NULL));
		assert_true(imp_overlap3(ball, pb, plate, imp_pose3_identity(), NULL));
		pb.p.z += 1e-9;
		pb.p.y += i == 1 ? -1e-9 : 0.0;
		pb.p.x += i == 2 ? -1e-9 : 0.0;
		assert_false(imp_overlap3(plate, imp_pose3_identity(), ball, pb, NULL));
	}
	imp_shape_destroy(ball);
	imp_shape_destroy(plate);
}

static void test_mesh_mesh(void **state)
{
	(void)state;
	stats st = {0};
	o3_rng r = {2000};
	for (int i = 0; i < 24; ++i) {
		body a, b;
		make_mesh_body(&a, &r, i % 5, 1.0);
		make_mesh_body(&b, &r, (i / 5 + 2) % 5, o3_range(&r, 0.4, 1.0));
		imp_pose3 pa = near_pose(&r, 0.3), pb = near_pose(&r, 1.2);
		check_pair(&a, pa, &b, pb, NULL, &st);
		if (i % 3 == 0)
			check_pair(&a, pa, &b, touching_pose(&a, pa, &b, pb), NULL, &st);
		body_free(&a);
		body_free(&b);
	}
	report("mesh against mesh", &st);
	assert_true(st.overlapping > 3 && st.pairs - st.overlapping > 3);
}

// ---------------------------------------------------------------------------
// Height fields.

static void heightfield_body(body *b, o3_rng *r, int rows, int cols, double dx, double dy, double base,
			     double radius)
{
	double h[64];
	for (int i = 0; i < rows * cols; ++i)
		h[i] = o3_range(r, 0.0, 1.0);
	int cells = (rows - 1) * (cols - 1);
	body_alloc(b, 2 * cells);
	assert_int_equal(imp_shape_heightfield(h, rows, cols, dx, dy, base, radius, &b->shape), IMP_OK);
	assert_int_equal(imp_shape_child_count(b->shape), 2 * cells);
	for (int rr = 0; rr < rows - 1; ++rr)
		for (int c = 0; c < cols - 1; ++c) {
			int cell = rr * (cols - 1) + c;
			// The documented split: (c, r) (c+1, r) (c+1, r+1) and (c, r) (c+1, r+1) (c, r+1).
			int cr[2][3][2] = {{{c, rr}, {c + 1, rr}, {c + 1, rr + 1}}, {{c, rr}, {c + 1, rr + 1}, {c, rr + 1}}};
			for (int t = 0; t < 2; ++t) {
				imp_vec3 p[6];
				for (int k = 0; k < 3; ++k) {
					int x = cr[t][k][0], y = cr[t][k][1];
					p[k] = imp_vec3_make(x * dx, y * dy, h[y * cols + x]);
					p[3 + k] = imp_vec3_make(x * dx, y * dy, base);
				}
				o3_poly_make(&b->poly[2 * cell + t], p, 6);
				b->radius[2 * cell + t] = radius;
			}
		}
	b->scale = fmax((cols - 1) * dx, fmax((rows - 1) * dy, fmax(1.0, fabs(base)))) + radius;
}

static void test_heightfield_convex(void **state)
{
	(void)state;
	stats st = {0};
	o3_rng r = {3000};
	for (int f = 0; f < 4; ++f) {
		body hb;
		heightfield_body(&hb, &r, 5 + f % 2, 6, 0.5, 0.4, -1.0, f == 3 ? 0.05 : 0.0);
		imp_pose3 ph = f == 2 ? near_pose(&r, 0.5) : imp_pose3_identity();
		for (int i = 0; i < 40; ++i) {
			body cb;
			random_convex(&cb, &r, o3_range(&r, 0.1, 0.5));
			// Above, across and under the surface (down to the base).
			imp_vec3 at = rvec3(&r, -0.5, 2.8, -0.5, 2.2, -1.2, 2.0);
			imp_pose3 pc = imp_pose3_make(imp_pose3_apply(ph, at), o3_quat(&r));
			check_pair(&hb, ph, &cb, pc, NULL, &st);
			if (i % 5 == 0)
				check_pair(&hb, ph, &cb, touching_pose(&hb, ph, &cb, pc), NULL, &st);
			body_free(&cb);
		}
		body_free(&hb);
	}
	report("height field against convex", &st);
	assert_true(st.overlapping > 10 && st.pairs - st.overlapping > 10);
}

// ---------------------------------------------------------------------------
// Compounds.

static void compound_body(body *b, o3_rng *r, int n)
{
	body_alloc(b, n);
	const imp_shape *kids[8];
	for (int i = 0; i < n; ++i) {
		body cb;
		random_convex(&cb, r, o3_range(r, 0.2, 0.5));
		b->owned[i] = cb.shape;
		cb.shape = NULL;
		b->poly[i] = cb.poly[0];
		b->radius[i] = cb.radius[0];
		b->pose[i] = near_pose(r, 0.8);
		kids[i] = b->owned[i];
		b->scale = fmax(b->scale, cb.scale + 1.5);
		body_free(&cb);
	}
	b->n_owned = n;
	assert_int_equal(imp_shape_compound3(kids, b->pose, n, &b->shape), IMP_OK);
}

static void test_compounds(void **state)
{
	(void)state;
	stats st = {0};
	o3_rng r = {4000};
	for (int i = 0; i < 60; ++i) {
		body a, b;
		compound_body(&a, &r, 1 + o3_int(&r, 6));
		if (i % 3 == 0)
			compound_body(&b, &r, 1 + o3_int(&r, 6));
		else if (i % 3 == 1)
			make_mesh_body(&b, &r, i % 5, 0.7);
		else
			random_convex(&b, &r, 0.4);
		imp_pose3 pa = near_pose(&r, 0.3), pb = near_pose(&r, 1.2);
		check_pair(&a, pa, &b, pb, NULL, &st);
		if (i % 4 == 0)
			check_pair(&a, pa, &b, touching_pose(&a, pa, &b, pb), NULL, &st);
		body_free(&a);
		body_free(&b);
	}
	report("compounds", &st);
	assert_true(st.overlapping > 3 && st.pairs - st.overlapping > 3);
}

/// Far from unit size: the same scenes scaled by 1e-5 and 1e5.
static void test_scaled(void **state)
{
	(void)state;
	double scales[] = {1e-5, 1e5};
	for (int s = 0; s < 2; ++s) {
		stats st = {0};
		o3_rng r = {5000 + (uint64_t)s};
		body mb;
		make_mesh_body(&mb, &r, 0, scales[s]);
		for (int i = 0; i < 30; ++i) {
			body cb;
			random_convex(&cb, &r, o3_range(&r, 0.1, 0.6) * scales[s]);
			imp_pose3 pm = near_pose(&r, 0.5 * scales[s]), pc = near_pose(&r, 1.8 * scales[s]);
			check_pair(&mb, pm, &cb, pc, NULL, &st);
			body_free(&cb);
		}
		body_free(&mb);
		report(s == 0 ? "scaled by 1e-5" : "scaled by 1e5", &st);
	}
}

/// A cache carried along a path gives the answers of no cache, and names
/// the children that answered.
static void test_warm_path(void **state)
{
	(void)state;
	stats st = {0};
	o3_rng r = {6000};
	body a, b;
	make_mesh_body(&a, &r, 1, 1.0);
	make_mesh_body(&b, &r, 0, 0.5);
	imp_simplex_cache cache = {0};
	imp_pose3 pa = imp_pose3_identity();
	for (int i = 0; i < 60; ++i) {
		double t = i / 59.0;
		imp_pose3 pb = imp_pose3_make(imp_vec3_make(3.0 - 4.0 * t, 0.3, 0.2 * sin(5 * t)),
					      imp_quat_from_axis_angle(imp_vec3_make(0, 0, 1), t));
		check_pair(&a, pa, &b, pb, &cache, &st);
		if (cache.count > 0) {
			assert_true(cache.child_a >= 1 && cache.child_a <= a.n);
			assert_true(cache.child_b >= 1 && cache.child_b <= b.n);
		}
	}
	body_free(&a);
	body_free(&b);
	report("a warm path", &st);
	// A cache from another pair is harmless: children out of range.
	imp_simplex_cache junk;
	memset(&junk, 0x7f, sizeof junk);
	body c, d;
	make_mesh_body(&c, &r, 0, 1.0);
	random_convex(&d, &r, 0.3);
	imp_pose3 pc = imp_pose3_identity(), pd = near_pose(&r, 1.5);
	int bi, bj;
	double want = brute(&c, pc, &d, pd, &bi, &bj);
	imp_closest3_result res;
	assert_int_equal(imp_closest3(c.shape, pc, d.shape, pd, &junk, &res), IMP_OK);
	assert_true(fabs(res.distance - want) <= 1e-9 * 3);
	body_free(&c);
	body_free(&d);
}

// ---------------------------------------------------------------------------
// Time of impact.

/// The time of impact of a and b on their motions against the brute force
/// sampled along the motions: no pair of children overlaps before the
/// answer (no tunnelling), and at a hit the pair is within the tolerance.
static void check_toi(const body *a, imp_motion3 ma, const body *b, imp_motion3 mb, int *hits, int *misses,
		      int *limits)
{
	imp_toi3_result r;
	assert_int_equal(imp_time_of_impact3(a->shape, ma, b->shape, mb, 1.0, &r), IMP_OK);
	assert_true(r.state != IMP_TOI_FAILED);
	double scene = fmax(a->scale, b->scale) + 4.0, tol = 1e-6 * scene;
	// Nothing overlaps before the answer's time: 60 times along [0, t).
	double end = r.state == IMP_TOI_SEPARATED ? 1.0 : r.t;
	for (int k = 0; k < 60 && r.state != IMP_TOI_OVERLAPPED; ++k) {
		double s = end * k / 60.0;
		int bi, bj;
		double d = brute(a, imp_motion3_at(ma, s), b, imp_motion3_at(mb, s), &bi, &bj);
		if (!(d > -tol)) {
			print_error("overlap %.3g at t = %.6g before the answer %.6g (state %d)\n", d, s, r.t, r.state);
			fail();
		}
	}
	if (r.state == IMP_TOI_HIT || r.state == IMP_TOI_OVERLAPPED) {
		int bi, bj;
		double d = brute(a, imp_motion3_at(ma, r.t), b, imp_motion3_at(mb, r.t), &bi, &bj);
		assert_true(d <= 1e-5 * scene); // within the tolerance (1e-6 of the reaches)
		assert_true(fabs(r.distance - d) <= 1e-9 * scene);
		++*hits;
	} else if (r.state == IMP_TOI_ITERATION_LIMIT) {
		++*limits; // no contact before t: checked above
	} else {
		assert_int_equal(r.state, IMP_TOI_SEPARATED);
		// And none at the end either.
		int bi, bj;
		assert_true(brute(a, imp_motion3_at(ma, 1.0), b, imp_motion3_at(mb, 1.0), &bi, &bj) > 0.0);
		++*misses;
	}
}

static void test_time_of_impact(void **state)
{
	(void)state;
	o3_rng r = {8000};
	int hits = 0, misses = 0, limits = 0;
	for (int i = 0; i < 40; ++i) {
		body a, b;
		make_mesh_body(&a, &r, i % 5, 1.0);
		if (i % 3 == 0)
			make_mesh_body(&b, &r, (i + 1) % 5, 0.5);
		else if (i % 3 == 1)
			compound_body(&b, &r, 1 + o3_int(&r, 4));
		else
			random_convex(&b, &r, 0.3);
		imp_motion3 ma = {near_pose(&r, 0.2), o3_vec(&r, -0.5, 0.5), o3_vec(&r, -1, 1)};
		imp_pose3 start = near_pose(&r, 1.0);
		start.p = imp_vec3_add(start.p, imp_vec3_make(3.0, 0.0, 0.0));
		imp_motion3 mb = {start, o3_vec(&r, -1, 1), o3_vec(&r, -2, 2)};
		mb.v.x -= 4.0; // toward a, mostly
		check_toi(&a, ma, &b, mb, &hits, &misses, &limits);
		body_free(&a);
		body_free(&b);
	}
	printf("  time of impact: %d hits, %d misses, %d at the iteration limit; no overlap before any answer\n", hits,
	       misses, limits);
	assert_true(hits > 5 && misses > 5);
}

/// A small fast ball through a thin open plate, in one step: the time
/// of impact finds the crossing (no tunnelling), at the analytic time.
static void test_no_tunnelling(void **state)
{
	(void)state;
	mesh m;
	o3_rng r = {8100};
	plate(&m, &r, 8, 2.0, 0.0, false, 0.0); // z = 0, x and y in [-1, 1]
	imp_shape *plane, *ball;
	assert_int_equal(imp_shape_mesh(m.v, m.nv, m.t, m.nt, 0.0, &plane), IMP_OK);
	assert_int_equal(imp_shape_sphere(imp_vec3_make(0, 0, 0), 0.01, &ball), IMP_OK);
	for (int i = 0; i < 50; ++i) {
		double x = o3_range(&r, -0.9, 0.9), y = o3_range(&r, -0.9, 0.9), speed = o3_range(&r, 10, 1000);
		imp_motion3 still = {imp_pose3_identity(), {0, 0, 0}, {0, 0, 0}};
		imp_motion3 fast = {imp_pose3_make(imp_vec3_make(x, y, 5.0), imp_quat_identity()), {0, 0, -speed}, {0, 0, 0}};
		imp_toi3_result t;
		assert_int_equal(imp_time_of_impact3(plane, still, ball, fast, 1.0, &t), IMP_OK);
		assert_int_equal(t.state, IMP_TOI_HIT);
		double want = (5.0 - 0.01) / speed;
		assert_true(fabs(t.t - want) <= 1e-5 * (5.0 / speed) + 1e-6 / speed);
		assert_true(t.t <= want);
	}
	imp_shape_destroy(ball);
	imp_shape_destroy(plane);
}

// ---------------------------------------------------------------------------
// The world.

static bool count_pair(imp_body_id a, imp_body_id b, void *user)
{
	(void)a;
	(void)b;
	++*(int *)user;
	return true;
}

typedef struct first_contact {
	int count;
	double t;
	imp_body_id a, b;
} first_contact;

static void on_contact(const imp_contact_event *e, void *user)
{
	first_contact *f = user;
	if (f->count++ == 0) {
		f->t = e->t;
		f->a = e->a;
		f->b = e->b;
	}
}

/// A world of a static height field and mesh, moving compounds and meshes
/// and convex bodies: its touching pairs equal the pairwise queries over
/// every pair of bodies, its queries equal them too, a fast ball stepped
/// onto the terrain makes contact at the analytic time, and a ray meets the
/// terrain where it should.
static void test_world(void **state)
{
	(void)state;
	o3_rng r = {9000};
	body terrain, plate_b, bodies[12];
	heightfield_body(&terrain, &r, 6, 6, 1.0, 1.0, -1.0, 0.0);
	make_mesh_body(&plate_b, &r, 2, 1.0);
	imp_world_def wd = imp_default_world_def();
	wd.dim = 3;
	imp_world *w;
	assert_int_equal(imp_world_create(&wd, &w), IMP_OK);
	const imp_shape *shapes[14];
	imp_pose3 poses[14];
	imp_body_id ids[14];
	int n = 0;
	imp_body_def bd = imp_default_body_def();
	bd.type = IMP_BODY_STATIC;
	bd.shape = terrain.shape;
	bd.pose3 = imp_pose3_identity();
	shapes[n] = bd.shape;
	poses[n] = bd.pose3;
	assert_int_equal(imp_world_add_body(w, &bd, &ids[n++]), IMP_OK);
	bd.shape = plate_b.shape;
	bd.pose3 = imp_pose3_make(imp_vec3_make(2.5, 2.5, 1.5), o3_quat(&r));
	shapes[n] = bd.shape;
	poses[n] = bd.pose3;
	assert_int_equal(imp_world_add_body(w, &bd, &ids[n++]), IMP_OK);
	bd.type = IMP_BODY_DYNAMIC;
	for (int i = 0; i < 12; ++i) {
		if (i % 3 == 0)
			compound_body(&bodies[i], &r, 1 + o3_int(&r, 4));
		else if (i % 3 == 1)
			make_mesh_body(&bodies[i], &r, i % 5, 0.4);
		else
			random_convex(&bodies[i], &r, 0.3);
		bd.shape = bodies[i].shape;
		imp_vec3 at = rvec3(&r, 0.0, 5.0, 0.0, 5.0, 0.0, 2.0);
		bd.pose3 = imp_pose3_make(at, o3_quat(&r));
		shapes[n] = bd.shape;
		poses[n] = bd.pose3;
		assert_int_equal(imp_world_add_body(w, &bd, &ids[n++]), IMP_OK);
	}
	assert_int_equal(imp_world_update(w), IMP_OK);
	int pairs = 0, want = 0;
	assert_int_equal(imp_world_for_each_pair(w, count_pair, &pairs), IMP_OK);
	for (int i = 0; i < n; ++i)
		for (int j = i + 1; j < n; ++j)
			if (i >= 2 || j >= 2) // two static bodies never pair
				want += imp_overlap3(shapes[i], poses[i], shapes[j], poses[j], NULL);
	printf("  world: %d bodies, %d touching pairs\n", n, pairs);
	assert_int_equal(pairs, want);
	assert_true(pairs > 2);

	// Queries with a non-convex query shape and non-convex bodies.
	for (int k = 0; k < 20; ++k) {
		const imp_shape *qs = bodies[k % 12].shape;
		imp_vec3 at = rvec3(&r, 0.0, 5.0, 0.0, 5.0, -0.5, 2.0);
		imp_pose3 qp = imp_pose3_make(at, o3_quat(&r));
		bool any;
		assert_int_equal(imp_world_overlap_any3(w, qs, qp, NULL, &any), IMP_OK);
		bool brute_any = false;
		double best = INFINITY;
		for (int i = 0; i < n; ++i) {
			brute_any |= imp_overlap3(qs, qp, shapes[i], poses[i], NULL);
			imp_closest3_result c;
			assert_int_equal(imp_closest3(qs, qp, shapes[i], poses[i], NULL, &c), IMP_OK);
			best = fmin(best, c.distance);
		}
		assert_int_equal(any, brute_any);
		imp_query_result nr;
		assert_int_equal(imp_world_nearest3(w, qs, qp, INFINITY, NULL, &nr), IMP_OK);
		assert_true(fabs(nr.distance - best) <= 1e-9 * 10);
	}

	// A fast small ball dropped onto the terrain in one step: contact at
	// the first time its distance from the brute force reaches 0.
	imp_shape *ball;
	assert_int_equal(imp_shape_sphere(imp_vec3_make(0, 0, 0), 0.05, &ball), IMP_OK);
	imp_world *w2;
	assert_int_equal(imp_world_create(&wd, &w2), IMP_OK);
	imp_body_id tid, bid;
	bd = imp_default_body_def();
	bd.type = IMP_BODY_STATIC;
	bd.shape = terrain.shape;
	bd.pose3 = imp_pose3_identity();
	assert_int_equal(imp_world_add_body(w2, &bd, &tid), IMP_OK);
	bd.type = IMP_BODY_DYNAMIC;
	bd.shape = ball;
	bd.pose3 = imp_pose3_make(imp_vec3_make(2.3, 2.7, 30.0), imp_quat_identity());
	assert_int_equal(imp_world_add_body(w2, &bd, &bid), IMP_OK);
	assert_int_equal(imp_body_set_velocity3(w2, bid, imp_vec3_make(0, 0, -500.0), imp_vec3_make(0, 0, 0)), IMP_OK);
	imp_step_opts so = imp_default_step_opts();
	first_contact fc = {0};
	so.on_contact = on_contact;
	so.user = &fc;
	assert_int_equal(imp_world_step(w2, 0.1, &so), IMP_OK);
	assert_true(fc.count >= 1);
	// The analytic time: the ball's lowest point meets the terrain's
	// surface below it; bisect on the brute-force distance, up to the time
	// its centre is at z = -0.5, inside the terrain's solid (heights in
	// [0, 1], base -1).
	body ballb;
	imp_vec3 c0 = {0, 0, 0};
	convex_body(&ballb, &c0, 1, 0.05);
	double lo = 0.0, hi = 30.5 / 500.0;
	for (int it = 0; it < 60; ++it) {
		double mid = 0.5 * (lo + hi);
		int bi, bj;
		imp_pose3 at = imp_pose3_make(imp_vec3_make(2.3, 2.7, 30.0 - 500.0 * mid), imp_quat_identity());
		if (brute(&terrain, imp_pose3_identity(), &ballb, at, &bi, &bj) > 0.0)
			lo = mid;
		else
			hi = mid;
	}
	printf("  a ball at 500 m/s onto the terrain: contact at t = %.9f, brute force %.9f\n", fc.t, lo);
	assert_true(fc.t <= hi && fc.t >= lo - 1e-6);
	// A ray down onto the terrain meets it where the ball's centre would.
	imp_ray_hit hit;
	assert_int_equal(imp_world_ray_cast3(w2, imp_vec3_make(2.3, 2.7, 30.0), imp_vec3_make(2.3, 2.7, -30.0), NULL, &hit),
			 IMP_OK);
	assert_true(hit.body.index == tid.index);
	body pt;
	convex_body(&pt, &c0, 1, 0.0);
	lo = 0.0, hi = 30.5 / 60.0;
	for (int it = 0; it < 60; ++it) {
		double mid = 0.5 * (lo + hi);
		int bi, bj;
		imp_pose3 at = imp_pose3_make(imp_vec3_make(2.3, 2.7, 30.0 - 60.0 * mid), imp_quat_identity());
		if (brute(&terrain, imp_pose3_identity(), &pt, at, &bi, &bj) > 0.0)
			lo = mid;
		else
			hi = mid;
	}
	assert_true(fabs(hit.t - lo) <= 1e-6);
	assert_true(hit.normal.z > 0.0);
	body_free(&pt);
	body_free(&ballb);
	imp_world_destroy(w2);
	imp_shape_destroy(ball);
	imp_world_destroy(w);
	for (int i = 0; i < 12; ++i)
		body_free(&bodies[i]);
	body_free(&plate_b);
	body_free(&terrain);
}

// ---------------------------------------------------------------------------
// The UR10 arm's meshes (when they are beside the source tree: data_dir.h).

#define UR10_LINKS 7

typedef struct ur10 {
	imp_shape *mesh[UR10_LINKS];
	imp_vec3 *v[UR10_LINKS];   ///< each link's vertices (link frame)
	int32_t *t[UR10_LINKS];    ///< and triangles
	int nt[UR10_LINKS];
	imp_vec3 origin_p[UR10_LINKS], origin_rpy[UR10_LINKS], axis[UR10_LINKS]; ///< joint k - 1 -> k (k >= 1)
} ur10;

/// The numbers of attribute `name` (`name="a b c"`) at or after `from`.
static bool urdf_triple(const char *from, const char *name, imp_vec3 *out)
{
	const char *at = strstr(from, name);
	return at != NULL && sscanf(at + strlen(name), "\"%lf %lf %lf\"", &out->x, &out->y, &out->z) == 3;
}

/// Reads the seven links' meshes and the six revolute joints of the URDF;
/// false when the data is not there.
static bool ur10_load(ur10 *u)
{
	char dir_buf[4096];
	const char *dir = test_meshes_dir(dir_buf, sizeof dir_buf);
	if (dir == NULL)
		return false;
	memset(u, 0, sizeof *u);
	static const char *names[UR10_LINKS] = {"base", "shoulder", "upperarm", "forearm", "wrist1", "wrist2", "wrist3"};
	for (int k = 0; k < UR10_LINKS; ++k) {
		char path[4200];
		snprintf(path, sizeof path, "%s/ur10-%s.stl", dir, names[k]);
		assert_int_equal(imp_shape_mesh_from_file(path, 0.0, &u->mesh[k]), IMP_OK);
		int nv = imp_shape_vertex_count(u->mesh[k]);
		u->nt[k] = imp_shape_face_count(u->mesh[k]);
		u->v[k] = malloc((size_t)nv * sizeof *u->v[k]);
		u->t[k] = malloc((size_t)u->nt[k] * 3 * sizeof *u->t[k]);
		assert_int_equal(imp_shape_vertices3(u->mesh[k], u->v[k], nv), nv);
		for (int i = 0; i < u->nt[k]; ++i)
			assert_int_equal(imp_shape_face(u->mesh[k], i, u->t[k] + 3 * i, 3), 3);
	}
	char path[4200];
	snprintf(path, sizeof path, "%s/ur10_robot.urdf", dir);
	FILE *fp = fopen(path, "rb");
	assert_non_null(fp);
	static char text[1 << 16];
	size_t n = fread(text, 1, sizeof text - 1, fp);
	fclose(fp);
	text[n] = 0;
	const char *at = text;
	for (int k = 1; k < UR10_LINKS; ++k) {
		at = strstr(at, "type=\"revolute\"");
		assert_non_null(at);
		assert_true(urdf_triple(at, "rpy=", &u->origin_rpy[k]) && urdf_triple(at, "xyz=", &u->origin_p[k]));
		const char *axis = strstr(at, "<axis");
		assert_true(axis != NULL && urdf_triple(axis, "xyz=", &u->axis[k]));
		at = axis;
	}
	return true;
}

static void ur10_free(ur10 *u)
{
	for (int k = 0; k < UR10_LINKS; ++k) {
		imp_shape_destroy(u->mesh[k]);
		free(u->v[k]);
		free(u->t[k]);
	}
}

/// The links' poses at joint angles q[1..6] (the base at the identity):
/// each link the previous one's pose, then its joint's origin (xyz, then
/// fixed-axis roll, pitch, yaw), then the turn about its axis.
static void ur10_poses(const ur10 *u, const double *q, imp_pose3 *pose)
{
	pose[0] = imp_pose3_identity();
	for (int k = 1; k < UR10_LINKS; ++k) {
		imp_vec3 rpy = u->origin_rpy[k];
		imp_quat r = imp_quat_mul(imp_quat_from_axis_angle(imp_vec3_make(0, 0, 1), rpy.z),
					  imp_quat_mul(imp_quat_from_axis_angle(imp_vec3_make(0, 1, 0), rpy.y),
						       imp_quat_from_axis_angle(imp_vec3_make(1, 0, 0), rpy.x)));
		imp_pose3 origin = imp_pose3_make(u->origin_p[k], r);
		imp_pose3 turn = imp_pose3_make(imp_vec3_make(0, 0, 0), imp_quat_from_axis_angle(u->axis[k], q[k]));
		pose[k] = imp_pose3_mul(imp_pose3_mul(pose[k - 1], origin), turn);
		pose[k].q = imp_quat_normalize(pose[k].q);
	}
}

/// The brute force on two links at poses: every pair of triangles, the
/// oracle's signed distance of each pair that a bounding sphere of each
/// triangle does not rule out (the spheres' gap is below any distance of
/// the triangles, and minus their radii' sum below any depth) from coming
/// below `bound`: the least, or INFINITY when none comes below it. Called
/// with the library's answer plus a margin, it checks that answer both
/// ways (a pair below it is found; none below means it is too low) in a
/// fraction of the time.
static double ur10_brute(const ur10 *u, int a, imp_pose3 pa, int b, imp_pose3 pb, double bound)
{
	int na = u->nt[a], nb = u->nt[b];
	imp_vec3 *ta = malloc((size_t)na * 3 * sizeof *ta), *tb = malloc((size_t)nb * 3 * sizeof *tb);
	double *rad = malloc((size_t)(na + nb) * sizeof *rad);
	imp_vec3 *cen = malloc((size_t)(na + nb) * sizeof *cen);
	for (int side = 0; side < 2; ++side) {
		int k = side ? b : a, n = side ? nb : na;
		imp_pose3 p = side ? pb : pa;
		imp_vec3 *t = side ? tb : ta;
		for (int i = 0; i < n; ++i) {
			imp_vec3 c = {0, 0, 0};
			for (int j = 0; j < 3; ++j) {
				t[3 * i + j] = imp_pose3_apply(p, u->v[k][u->t[k][3 * i + j]]);
				c = imp_vec3_add(c, t[3 * i + j]);
			}
			c = imp_vec3_scale(1.0 / 3.0, c);
			double r = 0.0;
			for (int j = 0; j < 3; ++j)
				r = fmax(r, imp_vec3_length(imp_vec3_sub(t[3 * i + j], c)));
			cen[side * na + i] = c;
			rad[side * na + i] = r * (1.0 + 1e-12) + 1e-15;
		}
	}
	double best = INFINITY;
	static o3_poly pa_poly, pb_poly;
	for (int i = 0; i < na; ++i) {
		bool made = false;
		for (int j = 0; j < nb; ++j) {
			double lb = imp_vec3_length(imp_vec3_sub(cen[i], cen[na + j])) - rad[i] - rad[na + j];
			if (lb > fmin(best, bound))
				continue;
			if (!made)
				o3_poly_make(&pa_poly, ta + 3 * i, 3);
			made = true;
			o3_poly_make(&pb_poly, tb + 3 * j, 3);
			best = fmin(best, o3_signed_distance(&pa_poly, imp_pose3_identity(), 0.0, &pb_poly, imp_pose3_identity(),
							   0.0, NULL, NULL, NULL));
		}
	}
	free(ta);
	free(tb);
	free(rad);
	free(cen);
	return best;
}

/// Links of the UR10 against each other at random poses near each other,
/// and the arm against itself (links two or more apart in the chain) at
/// random joint angles: every Level against the brute force over pairs of
/// triangles.
static void test_ur10(void **state)
{
	(void)state;
	ur10 u;
	if (!ur10_load(&u)) {
		print_message("no mesh directory (IMPACT_MESHES, or the data beside the source tree): the UR10 is skipped\n");
		skip();
	}
	o3_rng r = {11000};
	int pairs = 0, overlapping = 0;
	double worst = 0.0;
	for (int i = 0; i < 20; ++i) {
		int a = o3_int(&r, UR10_LINKS), b = o3_int(&r, UR10_LINKS);
		imp_pose3 pa = near_pose(&r, 0.05), pb = near_pose(&r, 0.12);
		imp_closest3_result c;
		assert_int_equal(imp_closest3(u.mesh[a], pa, u.mesh[b], pb, NULL, &c), IMP_OK);
		double want = ur10_brute(&u, a, pa, b, pb, c.distance + 1e-6);
		double err = fabs(c.distance - want);
		if (!(err <= 1e-9)) {
			print_error("links %d and %d: %.17g, brute force %.17g\n", a, b, c.distance, want);
			fail();
		}
		worst = fmax(worst, err);
		assert_true(fabs(imp_distance3(u.mesh[a], pa, u.mesh[b], pb, NULL) - fmax(want, 0.0)) <= 1e-9);
		if (fabs(want) > 1e-9)
			assert_int_equal(imp_overlap3(u.mesh[a], pa, u.mesh[b], pb, NULL), want < 0.0);
		pairs++;
		overlapping += want < 0.0;
	}
	int self_pairs = 0, close = 0;
	for (int i = 0; i < 12; ++i) {
		double q[UR10_LINKS] = {0};
		for (int k = 1; k < UR10_LINKS; ++k)
			q[k] = o3_range(&r, -3.14159, 3.14159);
		imp_pose3 pose[UR10_LINKS];
		ur10_poses(&u, q, pose);
		for (int a = 0; a < UR10_LINKS; ++a)
			for (int b = a + 2; b < UR10_LINKS; ++b) {
				imp_closest3_result c;
				assert_int_equal(imp_closest3(u.mesh[a], pose[a], u.mesh[b], pose[b], NULL, &c), IMP_OK);
				double d = imp_distance3(u.mesh[a], pose[a], u.mesh[b], pose[b], NULL);
				assert_true(fabs(d - fmax(c.distance, 0.0)) <= 1e-9);
				self_pairs++;
				if (!(c.distance < 0.02))
					continue; // the brute force on the close pairs only: its time grows with the distance
				double want = ur10_brute(&u, a, pose[a], b, pose[b], c.distance + 1e-6);
				assert_true(fabs(c.distance - want) <= 1e-9);
				if (!(fabs(d - fmax(want, 0.0)) <= 1e-9)) {
					print_error("configuration %d, links %d and %d: %.17g, brute force %.17g\n", i, a, b, d, want);
					fail();
				}
				worst = fmax(worst, fabs(d - fmax(want, 0.0)));
				close++;
			}
	}
	printf("  UR10: %d link pairs at random poses (%d overlapping), %d self pairs along 12 configurations (%d within "
	       "2 cm, against the brute force), worst error %.2g m\n",
	       pairs, overlapping, self_pairs, close, worst);
	ur10_free(&u);
}

/// A mesh whose every corner is one subnormal point: its triangles are that
/// point rounded by the mesh's radius, and a query answers as on the point
/// made a polytope (fuzz finding 75: the child's bound radius came out
/// infinite, 1 / 4.9e-324 overflowing, and an ellipsoid's distance was
/// 16.963188 for 16.963137).
static void test_subnormal_mesh(void **state)
{
	(void)state;
	const double t = -4.9406564584124654e-324;
	imp_vec3 c = {t, t, t}, v[6] = {c, c, c, c, c, c};
	int32_t tri[6] = {1, 1, 1, 2, 0, 5};
	imp_shape *mesh, *point, *ell;
	assert_int_equal(imp_shape_mesh(v, 6, tri, 2, 10.671875, &mesh), IMP_OK);
	assert_int_equal(imp_shape_polytope(v, 1, 10.671875, &point), IMP_OK);
	assert_int_equal(imp_shape_ellipsoid(7.6171875, 5.453125, 10.640625, 0.0, &ell), IMP_OK);
	imp_pose3 pe = imp_pose3_make(imp_vec3_make(-10.671875, 6, 0.625), imp_quat_identity());
	imp_pose3 pm = imp_pose3_make(imp_vec3_make(24, 0, 0), imp_quat_identity());
	double want = imp_distance3(ell, pe, point, pm, NULL);
	assert_true(fabs(imp_distance3(ell, pe, mesh, pm, NULL) - want) <= 1e-12 * 40);
	imp_closest3_result r;
	assert_int_equal(imp_closest3(mesh, pm, ell, pe, NULL, &r), IMP_OK);
	assert_true(fabs(r.distance - want) <= 1e-12 * 40);
	imp_shape_destroy(ell);
	imp_shape_destroy(point);
	imp_shape_destroy(mesh);
}

/// A sphere deep inside a thickly rounded mesh: its centre inside a node's
/// box, which holds the mesh's rounding. The sphere's node bound was its
/// centre's distance from the box less its radius, -radius for a centre
/// inside: above the depth of the children the box holds, which were
/// pruned (fuzz_composite: -14.46 answered, -30.54 over the children).
static void test_sphere_deep_in_rounded_mesh(void **state)
{
	(void)state;
	imp_vec3 v[5] = {{0, 0, 0}, {-5.5, 0, 0}, {0, 0, 16}, {-0.375, 0.0117, 24.8}, {0, 0, -0.7}};
	int32_t tri[12] = {1, 2, 0, 2, 3, 3, 4, 1, 0, 0, 3, 1};
	const int nt = 4;
	const double radius = 27.5;
	imp_shape *mesh, *ball;
	assert_int_equal(imp_shape_mesh(v, 5, tri, nt, radius, &mesh), IMP_OK);
	o3_rng r = {77};
	for (int i = 0; i < 200; ++i) {
		imp_vec3 c = imp_vec3_make(o3_range(&r, -10, 10), o3_range(&r, -10, 10), o3_range(&r, -5, 30));
		assert_int_equal(imp_shape_sphere(c, o3_range(&r, 0.5, 4.0), &ball), IMP_OK);
		double want = INFINITY;
		for (int k = 0; k < nt; ++k) {
			imp_vec3 p[3] = {v[tri[3 * k]], v[tri[3 * k + 1]], v[tri[3 * k + 2]]};
			imp_shape *child;
			assert_int_equal(imp_shape_polytope(p, 3, radius, &child), IMP_OK);
			imp_closest3_result x;
			assert_int_equal(imp_closest3(child, imp_pose3_identity(), ball, imp_pose3_identity(), NULL, &x), IMP_OK);
			want = fmin(want, x.distance);
			imp_shape_destroy(child);
		}
		imp_closest3_result got;
		assert_int_equal(imp_closest3(mesh, imp_pose3_identity(), ball, imp_pose3_identity(), NULL, &got), IMP_OK);
		assert_true(fabs(got.distance - want) <= 1e-9 * 60.0);
		assert_int_equal(imp_closest3(ball, imp_pose3_identity(), mesh, imp_pose3_identity(), NULL, &got), IMP_OK);
		assert_true(fabs(got.distance - want) <= 1e-9 * 60.0);
		imp_shape_destroy(ball);
	}
	imp_shape_destroy(mesh);
}

// ---------------------------------------------------------------------------
// Constructors and accessors.

static void test_constructors(void **state)
{
	(void)state;
	imp_vec3 v[4] = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
	int32_t t[6] = {0, 1, 2, 0, 2, 3};
	imp_shape *s = NULL, *keep = (imp_shape *)&s;
	imp_shape *out = keep;
	assert_int_equal(imp_shape_mesh(NULL, 4, t, 2, 0.0, &out), IMP_ERR_NULL_ARGUMENT);
	assert_int_equal(imp_shape_mesh(v, 4, NULL, 2, 0.0, &out), IMP_ERR_NULL_ARGUMENT);
	assert_int_equal(imp_shape_mesh(v, 4, t, 2, 0.0, NULL), IMP_ERR_NULL_ARGUMENT);
	assert_int_equal(imp_shape_mesh(v, 0, t, 2, 0.0, &out), IMP_ERR_BAD_COUNT);
	assert_int_equal(imp_shape_mesh(v, 4, t, 0, 0.0, &out), IMP_ERR_BAD_COUNT);
	assert_int_equal(imp_shape_mesh(v, 3, t, 2, 0.0, &out), IMP_ERR_BAD_COUNT); // index 3 out of range
	int32_t neg[3] = {0, -1, 2};
	assert_int_equal(imp_shape_mesh(v, 4, neg, 1, 0.0, &out), IMP_ERR_BAD_COUNT);
	assert_int_equal(imp_shape_mesh(v, 4, t, 2, -1.0, &out), IMP_ERR_BAD_RADIUS);
	assert_int_equal(imp_shape_mesh(v, 4, t, 2, NAN, &out), IMP_ERR_BAD_RADIUS);
	imp_vec3 bad[4] = {{0, 0, 0}, {NAN, 0, 0}, {0, 1, 0}, {0, 0, 1}};
	assert_int_equal(imp_shape_mesh(bad, 4, t, 2, 0.0, &out), IMP_ERR_NOT_FINITE);
	bad[1] = imp_vec3_make(2e150, 0, 0);
	assert_int_equal(imp_shape_mesh(bad, 4, t, 2, 0.0, &out), IMP_ERR_OUT_OF_RANGE);
	assert_ptr_equal(out, keep);

	double h[6] = {1, 2, 3, 4, 5, 6};
	assert_int_equal(imp_shape_heightfield(NULL, 2, 3, 1, 1, 0, 0, &out), IMP_ERR_NULL_ARGUMENT);
	assert_int_equal(imp_shape_heightfield(h, 1, 6, 1, 1, 0, 0, &out), IMP_ERR_BAD_COUNT);
	assert_int_equal(imp_shape_heightfield(h, 2, 3, 0, 1, 0, 0, &out), IMP_ERR_BAD_RADIUS);
	assert_int_equal(imp_shape_heightfield(h, 2, 3, 1, INFINITY, 0, 0, &out), IMP_ERR_NOT_FINITE);
	assert_int_equal(imp_shape_heightfield(h, 2, 3, 1, 1, 1.0, 0, &out), IMP_ERR_OUT_OF_RANGE); // base not below
	assert_int_equal(imp_shape_heightfield(h, 2, 3, 1, 1, 0, -1, &out), IMP_ERR_BAD_RADIUS);
	h[4] = NAN;
	assert_int_equal(imp_shape_heightfield(h, 2, 3, 1, 1, 0, 0, &out), IMP_ERR_NOT_FINITE);
	h[4] = 5;
	assert_ptr_equal(out, keep);

	imp_shape *box, *ball, *chain;
	assert_int_equal(imp_shape_box3(1, 1, 1, 0, &box), IMP_OK);
	assert_int_equal(imp_shape_sphere(imp_vec3_make(0, 0, 0), 1, &ball), IMP_OK);
	imp_vec2 cp[2] = {{0, 0}, {1, 0}};
	assert_int_equal(imp_shape_chain(cp, 2, false, 0, &chain), IMP_OK);
	const imp_shape *kids[2] = {box, ball};
	imp_pose3 poses[2] = {imp_pose3_identity(), imp_pose3_identity()};
	poses[1].p.x = 3;
	assert_int_equal(imp_shape_compound3(NULL, poses, 2, &out), IMP_ERR_NULL_ARGUMENT);
	assert_int_equal(imp_shape_compound3(kids, NULL, 2, &out), IMP_ERR_NULL_ARGUMENT);
	assert_int_equal(imp_shape_compound3(kids, poses, 0, &out), IMP_ERR_BAD_COUNT);
	const imp_shape *with_null[2] = {box, NULL};
	assert_int_equal(imp_shape_compound3(with_null, poses, 2, &out), IMP_ERR_NULL_ARGUMENT);
	const imp_shape *with_2d[2] = {box, chain};
	assert_int_equal(imp_shape_compound3(with_2d, poses, 2, &out), IMP_ERR_DIMENSION_MISMATCH);
	imp_pose3 bad_pose[2] = {imp_pose3_identity(), imp_pose3_identity()};
	bad_pose[1].q.w = 2;
	assert_int_equal(imp_shape_compound3(kids, bad_pose, 2, &out), IMP_ERR_BAD_ROTATION);
	bad_pose[1].q.w = 1;
	bad_pose[1].p.y = NAN;
	assert_int_equal(imp_shape_compound3(kids, bad_pose, 2, &out), IMP_ERR_NOT_FINITE);
	assert_ptr_equal(out, keep);

	imp_shape *compound, *mesh, *field;
	assert_int_equal(imp_shape_compound3(kids, poses, 2, &compound), IMP_OK);
	const imp_shape *nested[2] = {box, compound};
	assert_int_equal(imp_shape_compound3(nested, poses, 2, &out), IMP_ERR_UNSUPPORTED);
	assert_int_equal(imp_shape_mesh(v, 4, t, 2, 0.25, &mesh), IMP_OK);
	assert_int_equal(imp_shape_heightfield(h, 2, 3, 1, 1, 0, 0, &field), IMP_OK);

	// Accessors.
	assert_int_equal(imp_shape_dim(compound), 3);
	assert_int_equal(imp_shape_kind_of(compound), IMP_SHAPE_COMPOUND3);
	assert_int_equal(imp_shape_kind_of(mesh), IMP_SHAPE_MESH);
	assert_int_equal(imp_shape_kind_of(field), IMP_SHAPE_HEIGHTFIELD);
	assert_int_equal(imp_shape_child_count(compound), 2);
	assert_int_equal(imp_shape_child_count(mesh), 2);
	assert_int_equal(imp_shape_child_count(field), 4);
	assert_int_equal(imp_shape_child_count(box), 0);
	assert_int_equal(imp_shape_child_count(NULL), -1);
	assert_true(imp_shape_radius(mesh) == 0.25);
	assert_int_equal(imp_shape_vertex_count(mesh), 4);
	imp_vec3 back[4];
	assert_int_equal(imp_shape_vertices3(mesh, back, 4), 4);
	assert_memory_equal(back, v, sizeof back);
	assert_int_equal(imp_shape_face_count(mesh), 2);
	int corners[3];
	assert_int_equal(imp_shape_face(mesh, 1, corners, 3), 3);
	assert_int_equal(corners[0], 0);
	assert_int_equal(corners[2], 3);
	assert_int_equal(imp_shape_face(mesh, 2, corners, 3), -1);
	assert_int_equal(imp_shape_vertex_count(compound), 0);
	assert_int_equal(imp_shape_edge_count(mesh), 0);

	// Boxes and supports against the corners.
	o3_rng r = {7};
	for (int i = 0; i < 50; ++i) {
		imp_pose3 p = near_pose(&r, 2.0);
		imp_vec3 d = o3_unit(&r);
		imp_vec3 sp;
		assert_int_equal(imp_shape_support3(mesh, p, d, &sp), IMP_OK);
		double best = -INFINITY;
		for (int k = 0; k < 4; ++k)
			best = fmax(best, imp_vec3_dot(imp_pose3_apply(p, v[k]), d));
		assert_true(fabs(imp_vec3_dot(sp, d) - (best + 0.25)) <= 1e-12);
		// The box holds the shape (its supports along the axes) and
		// lies within the box of its local box turned (the world's and
		// the peers' box; this one follows the hierarchy's upper nodes).
		imp_aabb3 box_m;
		assert_int_equal(imp_shape_aabb3(mesh, p, &box_m), IMP_OK);
		imp_vec3 llo = v[0], lhi = v[0];
		for (int k = 1; k < 4; ++k) {
			llo = imp_vec3_make(fmin(llo.x, v[k].x), fmin(llo.y, v[k].y), fmin(llo.z, v[k].z));
			lhi = imp_vec3_make(fmax(lhi.x, v[k].x), fmax(lhi.y, v[k].y), fmax(lhi.z, v[k].z));
		}
		imp_mat3 rm = imp_mat3_from_quat(imp_quat_normalize(p.q));
		imp_vec3 lc = imp_vec3_scale(0.5, imp_vec3_add(llo, lhi)), le = imp_vec3_scale(0.5, imp_vec3_sub(lhi, llo));
		imp_vec3 wc = imp_pose3_apply(p, lc);
		for (int a = 0; a < 3; ++a) {
			imp_vec3 ax = imp_vec3_make(a == 0, a == 1, a == 2);
			double reach = fabs(rm.m[a][0]) * (le.x + 0.25) + fabs(rm.m[a][1]) * (le.y + 0.25) + fabs(rm.m[a][2]) * (le.z + 0.25);
			double c = a == 0 ? wc.x : (a == 1 ? wc.y : wc.z);
			double lo = a == 0 ? box_m.lo.x : (a == 1 ? box_m.lo.y : box_m.lo.z);
			double hi = a == 0 ? box_m.hi.x : (a == 1 ? box_m.hi.y : box_m.hi.z);
			imp_vec3 up, down;
			assert_int_equal(imp_shape_support3(mesh, p, ax, &up), IMP_OK);
			assert_int_equal(imp_shape_support3(mesh, p, imp_vec3_neg(ax), &down), IMP_OK);
			assert_true(imp_vec3_dot(up, ax) <= hi + 1e-12 && imp_vec3_dot(down, ax) >= lo - 1e-12);
			assert_true(hi <= c + reach + 1e-12 && lo >= c - reach - 1e-12);
		}
		assert_int_equal(imp_shape_support3(compound, p, d, &sp), IMP_OK);
		imp_vec3 s1, s2;
		imp_shape_support3(box, imp_pose3_mul(p, poses[0]), d, &s1);
		imp_shape_support3(ball, imp_pose3_mul(p, poses[1]), d, &s2);
		assert_true(fabs(imp_vec3_dot(sp, d) - fmax(imp_vec3_dot(s1, d), imp_vec3_dot(s2, d))) <= 1e-12);
		assert_int_equal(imp_shape_support3(field, p, d, &sp), IMP_OK);
		imp_aabb3 box_f;
		assert_int_equal(imp_shape_aabb3(field, p, &box_f), IMP_OK);
		assert_true(sp.x >= box_f.lo.x - 1e-12 && sp.x <= box_f.hi.x + 1e-12);
	}
	// Wrong dimension, bad shapes.
	imp_closest3_result res;
	assert_int_equal(imp_closest3(mesh, imp_pose3_identity(), chain, imp_pose3_identity(), NULL, &res),
			 IMP_ERR_DIMENSION_MISMATCH);
	assert_true(isnan(imp_distance3(mesh, imp_pose3_identity(), NULL, imp_pose3_identity(), NULL)));
	imp_pose3 nan_pose = imp_pose3_identity();
	nan_pose.p.x = NAN;
	assert_false(imp_overlap3(mesh, nan_pose, box, imp_pose3_identity(), NULL));
	assert_int_equal(imp_closest3(mesh, nan_pose, box, imp_pose3_identity(), NULL, &res), IMP_ERR_NOT_FINITE);

	imp_shape_destroy(field);
	imp_shape_destroy(mesh);
	imp_shape_destroy(compound);
	imp_shape_destroy(chain);
	imp_shape_destroy(ball);
	imp_shape_destroy(box);
}

/// An offset primitive (docs: boxes, cylinders, cones and ellipsoids are
/// centred; one off its body's origin is a compound of that one child at
/// its pose): the compound answers as the child at the composed pose, for
/// overlap, distance and closest points, against probes all around.
static void test_offset_primitive(void **state)
{
	(void)state;
	imp_shape *kids[4] = {NULL, NULL, NULL, NULL}, *probe = NULL;
	assert_int_equal(imp_shape_box3(0.5, 0.2, 0.3, 0.0, &kids[0]), IMP_OK);
	assert_int_equal(imp_shape_cylinder(0.4, 0.3, 0.01, &kids[1]), IMP_OK);
	assert_int_equal(imp_shape_cone(0.4, 0.3, 0.0, &kids[2]), IMP_OK);
	assert_int_equal(imp_shape_ellipsoid(0.5, 0.3, 0.2, 0.0, &kids[3]), IMP_OK);
	assert_int_equal(imp_shape_sphere(imp_vec3_make(0, 0, 0), 0.15, &probe), IMP_OK);
	imp_pose3 local = imp_pose3_make(imp_vec3_make(1.0, -0.5, 0.25), imp_quat_from_rpy(0.3, -0.7, 1.2));
	uint64_t seed = 0x0ff5e7;
	int overlapping = 0;
	for (int k = 0; k < 4; k++) {
		imp_shape *one = NULL;
		const imp_shape *child = kids[k];
		assert_int_equal(imp_shape_compound3(&child, &local, 1, &one), IMP_OK);
		for (int i = 0; i < 200; i++) {
			seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
			double u = (double)(seed >> 11) / 9007199254740992.0;
			seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
			double v = (double)(seed >> 11) / 9007199254740992.0;
			seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
			double w = (double)(seed >> 11) / 9007199254740992.0;
			imp_pose3 body = imp_pose3_make(imp_vec3_make(0.2, 0.1, -0.3), imp_quat_from_rpy(0.1, 0.2, -0.4));
			imp_pose3 at = imp_pose3_from_translation(
				imp_vec3_add(imp_pose3_apply(body, local.p), imp_vec3_make(2.4 * u - 1.2, 2.4 * v - 1.2, 2.4 * w - 1.2)));
			imp_pose3 composed = imp_pose3_mul(body, local);
			bool o1 = imp_overlap3(one, body, probe, at, NULL), o2 = imp_overlap3(child, composed, probe, at, NULL);
			assert_int_equal(o1, o2);
			overlapping += o1;
			double d1 = imp_distance3(one, body, probe, at, NULL), d2 = imp_distance3(child, composed, probe, at, NULL);
			assert_true(fabs(d1 - d2) <= 1e-9);
			imp_closest3_result c1, c2;
			assert_int_equal(imp_closest3(one, body, probe, at, NULL, &c1), IMP_OK);
			assert_int_equal(imp_closest3(child, composed, probe, at, NULL, &c2), IMP_OK);
			assert_true(fabs(c1.distance - c2.distance) <= 1e-6);
			if (c1.distance > 1e-6) {
				assert_true(imp_vec3_length(imp_vec3_sub(c1.point_a, c2.point_a)) <= 1e-6);
				assert_int_equal(c1.child_a, 0);
			}
		}
		imp_shape_destroy(one);
	}
	assert_true(overlapping > 20 && overlapping < 780);
	for (int k = 0; k < 4; k++)
		imp_shape_destroy(kids[k]);
	imp_shape_destroy(probe);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_constructors),
		cmocka_unit_test(test_mesh_convex),
		cmocka_unit_test(test_sphere_triangle_soup),
		cmocka_unit_test(test_mesh_mesh),
		cmocka_unit_test(test_heightfield_convex),
		cmocka_unit_test(test_compounds),
		cmocka_unit_test(test_offset_primitive),
		cmocka_unit_test(test_scaled),
		cmocka_unit_test(test_warm_path),
		cmocka_unit_test(test_time_of_impact),
		cmocka_unit_test(test_no_tunnelling),
		cmocka_unit_test(test_world),
		cmocka_unit_test(test_ur10),
		cmocka_unit_test(test_subnormal_mesh),
		cmocka_unit_test(test_sphere_deep_in_rounded_mesh),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
