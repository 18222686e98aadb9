// SPDX-License-Identifier: MIT
// The 3D hull (src/shape/hull3d.c), an internal module: every output is
// checked against the definition of a convex hull (all points inside, faces
// planar and convex, every other vertex strictly below each face, Euler's
// formula, each edge in two faces with opposite directions, adjacency equal
// to the edges), small sets against a brute-force oracle over supporting
// planes, degenerate sets against their known hulls, and every failing
// allocation for leaks.
#include <float.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "shape/hull3d.h"

static int fails;

#include "test_expect.h"

// ---------------------------------------------------------------------------
// Random numbers (splitmix64) and point clouds.

typedef struct rng {
	uint64_t s;
} rng;

static uint64_t rng_next(rng *r)
{
	uint64_t z = (r->s += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static double rng_uniform(rng *r)
{
	return (double)(rng_next(r) >> 11) * 0x1p-53;
}

static double rng_range(rng *r, double lo, double hi)
{
	return lo + (hi - lo) * rng_uniform(r);
}

static int rng_int(rng *r, int n)
{
	return (int)(rng_next(r) % (uint64_t)n);
}

static double rng_gauss(rng *r)
{
	double u = rng_uniform(r), v = rng_uniform(r);
	return sqrt(-2.0 * log(u + 1e-300)) * cos(6.283185307179586 * v);
}

static imp_vec3 V3(double x, double y, double z)
{
	return imp_vec3_make(x, y, z);
}

enum { CLOUD_CUBE, CLOUD_SPHERE, CLOUD_ELLIPSOID, CLOUD_GAUSS, CLOUD_KINDS };

static const char *cloud_name[CLOUD_KINDS] = {"cube", "sphere", "ellipsoid", "gauss"};

static imp_vec3 random_unit(rng *r)
{
	for (;;) {
		imp_vec3 g = V3(rng_gauss(r), rng_gauss(r), rng_gauss(r));
		double l = imp_vec3_length(g);
		if (l > 1e-3)
			return imp_vec3_scale(1.0 / l, g);
	}
}

static void make_cloud(rng *r, int kind, imp_vec3 *p, int n)
{
	for (int i = 0; i < n; i++) {
		switch (kind) {
		case CLOUD_CUBE:
			p[i] = V3(rng_range(r, -1, 1), rng_range(r, -1, 1), rng_range(r, -1, 1));
			break;
		case CLOUD_SPHERE:
			p[i] = random_unit(r);
			break;
		case CLOUD_ELLIPSOID: {
			imp_vec3 u = random_unit(r);
			p[i] = V3(3.0 * u.x, u.y, 0.25 * u.z);
			break;
		}
		default:
			p[i] = V3(rng_gauss(r), rng_gauss(r), rng_gauss(r));
			break;
		}
	}
}

/// A random rotation matrix (rows), from a random unit quaternion.
static void random_rotation(rng *r, double m[3][3])
{
	double q[4], l = 0;
	for (int i = 0; i < 4; i++) {
		q[i] = rng_gauss(r);
		l += q[i] * q[i];
	}
	l = sqrt(l);
	double x = q[0] / l, y = q[1] / l, z = q[2] / l, w = q[3] / l;
	m[0][0] = 1 - 2 * (y * y + z * z), m[0][1] = 2 * (x * y - z * w), m[0][2] = 2 * (x * z + y * w);
	m[1][0] = 2 * (x * y + z * w), m[1][1] = 1 - 2 * (x * x + z * z), m[1][2] = 2 * (y * z - x * w);
	m[2][0] = 2 * (x * z - y * w), m[2][1] = 2 * (y * z + x * w), m[2][2] = 1 - 2 * (x * x + y * y);
}

static imp_vec3 rotate(double m[3][3], imp_vec3 v)
{
	return V3(m[0][0] * v.x + m[0][1] * v.y + m[0][2] * v.z, m[1][0] * v.x + m[1][1] * v.y + m[1][2] * v.z,
		  m[2][0] * v.x + m[2][1] * v.y + m[2][2] * v.z);
}

static void shuffle(rng *r, imp_vec3 *p, int n)
{
	for (int i = n - 1; i > 0; i--) {
		int j = rng_int(r, i + 1);
		imp_vec3 t = p[i];
		p[i] = p[j];
		p[j] = t;
	}
}

// ---------------------------------------------------------------------------
// The checker.

static int compare_vec3(const void *pa, const void *pb)
{
	const imp_vec3 *a = pa, *b = pb;
	if (a->x != b->x)
		return a->x < b->x ? -1 : 1;
	if (a->y != b->y)
		return a->y < b->y ? -1 : 1;
	if (a->z != b->z)
		return a->z < b->z ? -1 : 1;
	return 0;
}

static int compare_u64(const void *pa, const void *pb)
{
	uint64_t a = *(const uint64_t *)pa, b = *(const uint64_t *)pb;
	return (a > b) - (a < b);
}

static bool same_point(imp_vec3 a, imp_vec3 b)
{
	return a.x == b.x && a.y == b.y && a.z == b.z;
}

static uint64_t key(int32_t a, int32_t b)
{
	return ((uint64_t)(uint32_t)a << 32) | (uint32_t)b;
}

static bool has_key(const uint64_t *k, int n, uint64_t x)
{
	return bsearch(&x, k, (size_t)n, sizeof *k, compare_u64) != NULL;
}

typedef struct cloud_scale {
	imp_vec3 centre;
	double size; ///< largest distance from the bounding box centre
	double tol;  ///< distances allowed out of a plane
} cloud_scale;

static cloud_scale scale_of(const imp_vec3 *p, int n)
{
	imp_vec3 lo = p[0], hi = p[0];
	for (int i = 1; i < n; i++) {
		lo = V3(fmin(lo.x, p[i].x), fmin(lo.y, p[i].y), fmin(lo.z, p[i].z));
		hi = V3(fmax(hi.x, p[i].x), fmax(hi.y, p[i].y), fmax(hi.z, p[i].z));
	}
	cloud_scale s;
	s.centre = V3(0.5 * lo.x + 0.5 * hi.x, 0.5 * lo.y + 0.5 * hi.y, 0.5 * lo.z + 0.5 * hi.z);
	s.size = 0;
	for (int i = 0; i < n; i++)
		s.size = fmax(s.size, imp_vec3_length(imp_vec3_sub(p[i], s.centre)));
	// The input's own resolution: coordinates round to DBL_EPSILON of their
	// magnitude (the hull's tolerance is 10 of these; drops add a few).
	double mag = fmax(fabs(lo.x), fabs(hi.x)) + fmax(fabs(lo.y), fabs(hi.y)) + fmax(fabs(lo.z), fabs(hi.z));
	s.tol = 1e-12 * s.size + 100 * DBL_EPSILON * mag + 1e-300;
	return s;
}

static double l1(imp_vec3 v)
{
	return fabs(v.x) + fabs(v.y) + fabs(v.z);
}

/// Edges: valid, lower index first, distinct; adjacency: valid and the same
/// pairs as the edges, both ways. Returns the sorted directed pairs.
static uint64_t *check_graph(const imp_hull3 *h)
{
	int nv = h->nv, ne = h->ne;
	uint64_t *ek = malloc((size_t)(2 * ne + 1) * sizeof *ek);
	for (int i = 0; i < ne; i++) {
		int32_t a = h->edges[2 * i], b = h->edges[2 * i + 1];
		EXPECT(a >= 0 && b < nv && a < b, "edge %d = (%d, %d)", i, a, b);
		ek[2 * i] = key(a, b);
		ek[2 * i + 1] = key(b, a);
	}
	qsort(ek, (size_t)(2 * ne), sizeof *ek, compare_u64);
	for (int i = 1; i < 2 * ne; i++)
		EXPECT(ek[i] != ek[i - 1], "duplicate edge");
	EXPECT(h->adj_start[0] == 0 && h->adj_start[nv] == 2 * ne, "adjacency offsets %d .. %d", h->adj_start[0],
	       h->adj_start[nv]);
	uint64_t *ak = malloc((size_t)(2 * ne + 1) * sizeof *ak);
	int na = 0;
	for (int i = 0; i < nv; i++) {
		EXPECT(h->adj_start[i + 1] >= h->adj_start[i], "adjacency offsets decrease at %d", i);
		for (int32_t j = h->adj_start[i]; j < h->adj_start[i + 1] && na < 2 * ne; j++) {
			EXPECT(h->adj[j] >= 0 && h->adj[j] < nv && h->adj[j] != i, "neighbour %d of %d", h->adj[j], i);
			ak[na++] = key(i, h->adj[j]);
		}
	}
	qsort(ak, (size_t)na, sizeof *ak, compare_u64);
	EXPECT(na == 2 * ne && (ne == 0 || memcmp(ak, ek, (size_t)na * sizeof *ak) == 0),
	       "adjacency differs from the edge list");
	free(ak);
	return ek;
}

/// Every hull vertex is an input point, bit for bit, and no two coincide.
static void check_vertices(const imp_hull3 *h, const imp_vec3 *p, int n)
{
	imp_vec3 *sp = malloc((size_t)n * sizeof *sp), *sv = malloc((size_t)h->nv * sizeof *sv);
	memcpy(sp, p, (size_t)n * sizeof *sp);
	memcpy(sv, h->v, (size_t)h->nv * sizeof *sv);
	qsort(sp, (size_t)n, sizeof *sp, compare_vec3);
	qsort(sv, (size_t)h->nv, sizeof *sv, compare_vec3);
	for (int i = 0; i < h->nv; i++) {
		EXPECT(bsearch(&sv[i], sp, (size_t)n, sizeof *sp, compare_vec3) != NULL,
		       "vertex (%.17g, %.17g, %.17g) is not an input point", sv[i].x, sv[i].y, sv[i].z);
		EXPECT(i == 0 || !same_point(sv[i], sv[i - 1]), "two vertices at (%.17g, %.17g, %.17g)", sv[i].x,
		       sv[i].y, sv[i].z);
	}
	free(sp);
	free(sv);
}

/// The checks of a solid hull. `strict` (a fraction of the size): how far
/// below a face every vertex not on it must be, and how far outside the
/// chord of its neighbours every corner must be. Negative: how far above a
/// face a vertex not on it may be (rounding, in near-flat sets); corners
/// are then still strictly convex.
static void check_polytope(const imp_hull3 *h, const imp_vec3 *p, int n, const cloud_scale *cs, double strict)
{
	int nv = h->nv, ne = h->ne, nf = h->nf;
	double tol = cs->tol, margin = strict * cs->size, corner = fmax(margin, 0.0);
	EXPECT(nv >= 4 && nf >= 4 && ne >= 6, "nv %d ne %d nf %d", nv, ne, nf);
	EXPECT(nv - ne + nf == 2, "Euler: %d - %d + %d", nv, ne, nf);
	uint64_t *ek = check_graph(h);
	for (int i = 0; i < nv; i++)
		EXPECT(h->adj_start[i + 1] - h->adj_start[i] >= 3, "vertex %d has %d edges", i,
		       h->adj_start[i + 1] - h->adj_start[i]);

	// Directed edges of the faces: each edge once each way.
	EXPECT(h->face_start[0] == 0 && h->face_start[nf] == 2 * ne, "face vertices %d, edges %d", h->face_start[nf],
	       ne);
	uint64_t *fk = malloc((size_t)(2 * ne + 1) * sizeof *fk);
	int nk = 0;
	for (int f = 0; f < nf; f++) {
		int32_t s = h->face_start[f], k = h->face_start[f + 1] - s;
		EXPECT(k >= 3, "face %d has %d vertices", f, k);
		for (int j = 0; j < k && nk < 2 * ne; j++)
			fk[nk++] = key(h->face_vertices[s + j], h->face_vertices[s + (j + 1) % k]);
	}
	qsort(fk, (size_t)nk, sizeof *fk, compare_u64);
	EXPECT(nk == 2 * ne && memcmp(fk, ek, (size_t)nk * sizeof *fk) == 0,
	       "face edges are not each edge once in each direction");
	free(fk);
	free(ek);

	imp_vec3 centroid = V3(0, 0, 0);
	for (int i = 0; i < nv; i++)
		centroid = imp_vec3_add(centroid, imp_vec3_sub(h->v[i], h->v[0]));
	centroid = imp_vec3_add(h->v[0], imp_vec3_scale(1.0 / nv, centroid));

	char *on = malloc((size_t)nv);
	// Point-face pairs: all of them up to a budget, else a sample of faces.
	long budget = 20000000;
	int stride = (int)(((long)nf * (n + nv)) / budget) + 1;
	for (int f = 0; f < nf; f++) {
		imp_vec3 nrm = h->face_normal[f];
		double d = h->face_offset[f];
		int32_t s = h->face_start[f], k = h->face_start[f + 1] - s;
		// Distances are taken from the face's first vertex v0 (exact
		// differences, where dot(n, x) - d would round at the size of the
		// coordinates), from the outer plane: top, the highest vertex.
		imp_vec3 v0 = h->v[h->face_vertices[s]];
		double top = -INFINITY, mag = 0;
		for (int j = 0; j < k; j++) {
			top = fmax(top, imp_vec3_dot(nrm, imp_vec3_sub(h->v[h->face_vertices[s + j]], v0)));
			mag = fmax(mag, l1(h->v[h->face_vertices[s + j]]));
		}
		EXPECT(fabs(imp_vec3_length(nrm) - 1.0) <= 1e-12, "face %d normal length %.17g", f,
		       imp_vec3_length(nrm));
		EXPECT(fabs(imp_vec3_dot(nrm, v0) + top - d) <= 8 * DBL_EPSILON * mag + 1e-300,
		       "face %d offset %.17g, outer plane at %.17g", f, d, imp_vec3_dot(nrm, v0) + top);
		EXPECT(imp_vec3_dot(nrm, imp_vec3_sub(centroid, v0)) - top < 0, "face %d does not face outwards", f);
		memset(on, 0, (size_t)nv);
		for (int j = 0; j < k; j++) {
			int32_t u = h->face_vertices[s + j], v = h->face_vertices[s + (j + 1) % k],
				w = h->face_vertices[s + (j + 2) % k];
			on[u] = 1;
			double off = top - imp_vec3_dot(nrm, imp_vec3_sub(h->v[u], v0));
			EXPECT(off <= tol, "face %d vertex %d off its plane by %.3g", f, u, off);
			// Convex and counter-clockwise about the normal, no corner on the
			// chord of its neighbours.
			imp_vec3 chord = imp_vec3_sub(h->v[w], h->v[u]);
			double turn = imp_vec3_dot(nrm, imp_vec3_cross(imp_vec3_sub(h->v[v], h->v[u]), chord));
			EXPECT(turn > corner * imp_vec3_length(chord), "face %d corner %d: %.3g outside its chord", f,
			       v, turn / imp_vec3_length(chord));
		}
		if (f % stride != 0)
			continue;
		for (int i = 0; i < nv; i++) {
			if (on[i])
				continue;
			double dist = imp_vec3_dot(nrm, imp_vec3_sub(h->v[i], v0)) - top;
			EXPECT(dist < -margin, "vertex %d is %.3g below face %d, not on it", i, -dist, f);
		}
		for (int i = 0; i < n; i++) {
			double dist = imp_vec3_dot(nrm, imp_vec3_sub(p[i], v0)) - top;
			EXPECT(dist <= tol, "point %d is %.3g outside face %d", i, dist, f);
			EXPECT(imp_vec3_dot(nrm, p[i]) <= d + tol + 4e-16 * l1(p[i]),
			       "point %d outside face %d's offset", i, f);
		}
	}
	free(on);
}

/// A flat hull: a convex ring counter-clockwise about the face normal, every
/// point on the plane and inside the ring.
static void check_polygon(const imp_hull3 *h, const imp_vec3 *p, int n, const cloud_scale *cs, double strict)
{
	int nv = h->nv;
	double tol = cs->tol;
	EXPECT(nv >= 3 && h->ne == nv && h->nf == 1, "nv %d ne %d nf %d", nv, h->ne, h->nf);
	EXPECT(h->face_start[0] == 0 && h->face_start[1] == nv, "ring of %d", h->face_start[1]);
	uint64_t *ek = check_graph(h);
	for (int j = 0; j < nv; j++) {
		int32_t a = h->face_vertices[j], b = h->face_vertices[(j + 1) % nv];
		EXPECT(has_key(ek, 2 * h->ne, key(a, b)), "ring step %d -> %d is not an edge", a, b);
	}
	free(ek);
	imp_vec3 nrm = h->face_normal[0];
	EXPECT(fabs(imp_vec3_length(nrm) - 1.0) <= 1e-12, "normal length %.17g", imp_vec3_length(nrm));
	imp_vec3 v0 = h->v[h->face_vertices[0]];
	EXPECT(fabs(imp_vec3_dot(nrm, v0) - h->face_offset[0]) <= tol + 1e-15 * l1(v0), "offset");
	for (int j = 0; j < nv; j++) {
		imp_vec3 u = h->v[h->face_vertices[j]], v = h->v[h->face_vertices[(j + 1) % nv]],
			 w = h->v[h->face_vertices[(j + 2) % nv]];
		imp_vec3 chord = imp_vec3_sub(w, u);
		double turn = imp_vec3_dot(nrm, imp_vec3_cross(imp_vec3_sub(v, u), chord));
		EXPECT(turn > fmax(strict, 0.0) * cs->size * imp_vec3_length(chord),
		       "ring corner %d: %.3g outside its chord", (j + 1) % nv, turn / imp_vec3_length(chord));
	}
	for (int i = 0; i < n; i++) {
		EXPECT(fabs(imp_vec3_dot(nrm, imp_vec3_sub(p[i], v0))) <= tol, "point %d off the plane by %.3g", i,
		       imp_vec3_dot(nrm, imp_vec3_sub(p[i], v0)));
		for (int j = 0; j < nv; j++) {
			imp_vec3 u = h->v[h->face_vertices[j]], v = h->v[h->face_vertices[(j + 1) % nv]];
			imp_vec3 e = imp_vec3_sub(v, u);
			double side = imp_vec3_dot(nrm, imp_vec3_cross(e, imp_vec3_sub(p[i], u))) / imp_vec3_length(e);
			EXPECT(side >= -tol, "point %d outside ring edge %d by %.3g", i, j, -side);
		}
	}
}

/// Support functions: along any direction the farthest input point is no
/// farther than the farthest hull vertex (within tol). Equal support
/// functions mean equal convex sets, so this sees a point left out beyond
/// an edge, which plane distances miss when the faces there are nearly
/// parallel to the way it sticks out.
static void check_support(const imp_hull3 *h, const imp_vec3 *p, int n, const cloud_scale *cs)
{
	rng r = {(uint64_t)n * 7919u};
	for (int k = 0; k < 106; k++) {
		imp_vec3 d = k < 6 ? V3(k == 0 ? 1 : (k == 1 ? -1 : 0), k == 2 ? 1 : (k == 3 ? -1 : 0),
					k == 4 ? 1 : (k == 5 ? -1 : 0))
				   : random_unit(&r);
		double hp = -INFINITY, hv = -INFINITY;
		int best = 0;
		for (int i = 0; i < n; i++)
			if (imp_vec3_dot(d, imp_vec3_sub(p[i], cs->centre)) > hp)
				hp = imp_vec3_dot(d, imp_vec3_sub(p[i], cs->centre)), best = i;
		for (int i = 0; i < h->nv; i++)
			hv = fmax(hv, imp_vec3_dot(d, imp_vec3_sub(h->v[i], cs->centre)));
		EXPECT(hp - hv <= cs->tol, "along (%.3f, %.3f, %.3f) point %d is %.3g beyond the hull", d.x, d.y, d.z,
		       best, hp - hv);
	}
}

/// Builds the hull of p[0 .. n), checks it against the definition and
/// returns it (the caller frees it).
static imp_hull3 check_hull(const imp_vec3 *p, int n, double strict)
{
	imp_hull3 h;
	memset(&h, 0, sizeof h);
	imp_status st = imp_hull3_build(p, n, NULL, &h);
	EXPECT(st == IMP_OK, "status %d for %d points", (int)st, n);
	if (st != IMP_OK)
		return h;
	cloud_scale cs = scale_of(p, n);
	EXPECT(h.dim >= 0 && h.dim <= 3, "dim %d", h.dim);
	EXPECT(h.nv >= 1 && h.nv <= n, "%d vertices of %d points", h.nv, n);
	check_vertices(&h, p, n);
	check_support(&h, p, n, &cs);
	if (h.dim == 3) {
		check_polytope(&h, p, n, &cs, strict);
	} else if (h.dim == 2) {
		check_polygon(&h, p, n, &cs, strict);
	} else if (h.dim == 1) {
		EXPECT(h.nv == 2 && h.ne == 1 && h.nf == 0, "segment: nv %d ne %d nf %d", h.nv, h.ne, h.nf);
		uint64_t *ek = check_graph(&h);
		free(ek);
		imp_vec3 a = h.v[0], u = imp_vec3_sub(h.v[1], h.v[0]);
		double len = imp_vec3_length(u);
		EXPECT(len > 0, "segment of length 0");
		for (int i = 0; i < n; i++) {
			imp_vec3 d = imp_vec3_sub(p[i], a);
			double t = imp_vec3_dot(d, u) / len;
			double off = imp_vec3_length(imp_vec3_cross(d, u)) / len;
			EXPECT(off <= cs.tol && t >= -cs.tol && t <= len + cs.tol, "point %d: %.3g along, %.3g off", i,
			       t, off);
		}
	} else {
		EXPECT(h.nv == 1 && h.ne == 0 && h.nf == 0, "point: nv %d ne %d nf %d", h.nv, h.ne, h.nf);
		EXPECT(h.adj_start[0] == 0 && h.adj_start[1] == 0, "point adjacency");
		for (int i = 0; i < n; i++)
			EXPECT(imp_vec3_length(imp_vec3_sub(p[i], h.v[0])) <= cs.tol, "point %d away from the vertex",
			       i);
	}
	return h;
}

// ---------------------------------------------------------------------------
// Random clouds.

static void test_random_clouds(void **state)
{
	(void)state;
	fails = 0;
	static const int sizes[] = {4, 5, 6, 7, 8, 10, 13, 16, 25, 40, 64, 100, 200, 500, 1000, 2000};
	imp_vec3 *p = malloc(2000 * sizeof *p);
	int runs = 0;
	for (int kind = 0; kind < CLOUD_KINDS; kind++)
		for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++) {
			int n = sizes[si];
			int seeds = n <= 16 ? 40 : (n <= 200 ? 8 : (n <= 500 ? 2 : 1));
			for (int seed = 0; seed < seeds; seed++) {
				rng r = {(uint64_t)(1000 * kind + 7 * n + seed)};
				make_cloud(&r, kind, p, n);
				imp_hull3 h = check_hull(p, n, 1e-9);
				EXPECT(h.dim == 3, "%s n %d seed %d: dim %d", cloud_name[kind], n, seed, h.dim);
				if (kind == CLOUD_SPHERE)
					EXPECT(h.nv == n, "sphere n %d seed %d: %d vertices", n, seed, h.nv);
				imp_hull3_free(&h, NULL);
				runs++;
				if (fails) {
					print_message("failed: %s n %d seed %d\n", cloud_name[kind], n, seed);
					goto done;
				}
			}
		}
done:
	free(p);
	print_message("random clouds: %d hulls checked\n", runs);
	assert_int_equal(fails, 0);
}

// The oracle: for points in general position, p is a vertex exactly when
// some plane through p and two other points has every other point strictly
// on one side (a supporting plane of a face).
static void oracle_vertices(const imp_vec3 *p, int n, bool *vertex)
{
	for (int i = 0; i < n; i++)
		vertex[i] = false;
	for (int i = 0; i < n; i++)
		for (int j = i + 1; j < n; j++)
			for (int k = j + 1; k < n; k++) {
				imp_vec3 nrm = imp_vec3_cross(imp_vec3_sub(p[j], p[i]), imp_vec3_sub(p[k], p[i]));
				int above = 0, below = 0;
				for (int l = 0; l < n; l++) {
					if (l == i || l == j || l == k)
						continue;
					double s = imp_vec3_dot(nrm, imp_vec3_sub(p[l], p[i]));
					above += s > 0;
					below += s < 0;
				}
				if (above == 0 || below == 0)
					vertex[i] = vertex[j] = vertex[k] = true;
			}
}

static void test_oracle_small(void **state)
{
	(void)state;
	fails = 0;
	imp_vec3 p[12];
	bool oracle[12];
	int runs = 0;
	for (int kind = 0; kind < CLOUD_KINDS; kind++)
		for (int n = 4; n <= 12; n++)
			for (int seed = 0; seed < 150; seed++) {
				rng r = {(uint64_t)(77 + 100000 * kind + 1000 * n + seed)};
				make_cloud(&r, kind, p, n);
				oracle_vertices(p, n, oracle);
				imp_hull3 h = check_hull(p, n, 1e-9);
				bool mine[12] = {false};
				for (int i = 0; i < h.nv; i++)
					for (int j = 0; j < n; j++)
						if (same_point(h.v[i], p[j]))
							mine[j] = true;
				for (int j = 0; j < n; j++)
					EXPECT(mine[j] == oracle[j], "%s n %d seed %d: point %d vertex %d, oracle %d",
					       cloud_name[kind], n, seed, j, mine[j], oracle[j]);
				imp_hull3_free(&h, NULL);
				runs++;
			}
	print_message("oracle: %d small sets compared\n", runs);
	assert_int_equal(fails, 0);
}

// ---------------------------------------------------------------------------
// Degenerate input.

static void test_points_equal(void **state)
{
	(void)state;
	fails = 0;
	imp_vec3 p[100];
	for (int n = 1; n <= 100; n += 33) {
		for (int i = 0; i < n; i++)
			p[i] = V3(0.1, -7.25, 1e6);
		imp_hull3 h = check_hull(p, n, 0);
		EXPECT(h.dim == 0 && h.nv == 1 && same_point(h.v[0], p[0]), "n %d: dim %d nv %d", n, h.dim, h.nv);
		imp_hull3_free(&h, NULL);
	}
	// Within rounding of one point: still a point.
	for (int i = 0; i < 50; i++)
		p[i] = V3(1.0 + i * 0x1p-52, 2.0, 3.0 - (i % 3) * 0x1p-51);
	imp_hull3 h = check_hull(p, 50, 0);
	EXPECT(h.dim == 0, "dim %d", h.dim);
	imp_hull3_free(&h, NULL);
	assert_int_equal(fails, 0);
}

/// True when the two hulls have the same dimension, counts and vertex
/// coordinates.
static bool same_hull(const imp_hull3 *a, const imp_hull3 *b)
{
	if (a->dim != b->dim || a->nv != b->nv || a->ne != b->ne || a->nf != b->nf)
		return false;
	imp_vec3 *sa = malloc((size_t)a->nv * sizeof *sa), *sb = malloc((size_t)b->nv * sizeof *sb);
	memcpy(sa, a->v, (size_t)a->nv * sizeof *sa);
	memcpy(sb, b->v, (size_t)b->nv * sizeof *sb);
	qsort(sa, (size_t)a->nv, sizeof *sa, compare_vec3);
	qsort(sb, (size_t)b->nv, sizeof *sb, compare_vec3);
	bool same = memcmp(sa, sb, (size_t)a->nv * sizeof *sa) == 0;
	free(sa);
	free(sb);
	return same;
}

static void test_duplicates(void **state)
{
	(void)state;
	fails = 0;
	imp_vec3 p[200], q[800];
	for (int kind = 0; kind < CLOUD_KINDS; kind++)
		for (int seed = 0; seed < 5; seed++) {
			rng r = {(uint64_t)(31 + 10 * kind + seed)};
			int n = 5 + rng_int(&r, 150);
			make_cloud(&r, kind, p, n);
			int m = 0;
			for (int i = 0; i < n; i++)
				for (int c = 0; c < 1 + (i % 4); c++)
					q[m++] = p[i];
			shuffle(&r, q, m);
			imp_hull3 a = check_hull(p, n, 1e-9), b = check_hull(q, m, 1e-9);
			EXPECT(same_hull(&a, &b), "%s seed %d: duplicates change the hull", cloud_name[kind], seed);
			imp_hull3_free(&a, NULL);
			imp_hull3_free(&b, NULL);
		}
	assert_int_equal(fails, 0);
}

static void test_collinear(void **state)
{
	(void)state;
	fails = 0;
	imp_vec3 p[300];
	rng r = {5};
	for (int it = 0; it < 40; it++) {
		int n = 2 + rng_int(&r, 299);
		bool exact = it % 2 == 0;
		imp_vec3 o = V3(rng_range(&r, -10, 10), rng_range(&r, -10, 10), rng_range(&r, -10, 10));
		imp_vec3 d = exact ? V3(1, -2, 3) : random_unit(&r);
		double tmin = INFINITY, tmax = -INFINITY;
		for (int i = 0; i < n; i++) {
			double t = exact ? (double)rng_int(&r, 1000) - 500 : rng_range(&r, -5, 5);
			if (i < 2)
				t = i == 0 ? -600 : 600; // distinct ends
			p[i] = exact ? V3(o.x + t * d.x, o.y + t * d.y, o.z + t * d.z)
				     : imp_vec3_add(o, imp_vec3_scale(t, d));
			tmin = fmin(tmin, t);
			tmax = fmax(tmax, t);
		}
		shuffle(&r, p, n);
		imp_hull3 h = check_hull(p, n, 0);
		EXPECT(h.dim == 1 && h.nv == 2, "it %d: dim %d nv %d", it, h.dim, h.nv);
		if (h.nv == 2) {
			double len = imp_vec3_length(imp_vec3_sub(h.v[0], h.v[1]));
			EXPECT(fabs(len - (tmax - tmin) * imp_vec3_length(d)) <= 1e-12 * len, "it %d: length %.17g", it,
			       len);
		}
		imp_hull3_free(&h, NULL);
	}
	assert_int_equal(fails, 0);
}

/// The number of corners of the 2D hull of integer points, brute force and
/// exact: point i is a corner when, for some other point j, every point is
/// on the left of the line i -> j or on the ray from i through j (so i is
/// an end of the hull's edge along that line).
static int exact_ring_count(const int (*c)[2], int n)
{
	int count = 0;
	for (int i = 0; i < n; i++) {
		bool corner = false;
		for (int j = 0; j < n && !corner; j++) {
			long dx = c[j][0] - c[i][0], dy = c[j][1] - c[i][1];
			if (dx == 0 && dy == 0)
				continue;
			bool ok = true;
			for (int k = 0; k < n && ok; k++) {
				long ex = c[k][0] - c[i][0], ey = c[k][1] - c[i][1];
				long cr = dx * ey - dy * ex;
				if (cr < 0)
					ok = false;
				else if (cr == 0 && dx * ex + dy * ey < 0)
					ok = false; // a point on the line behind i: i is not an end
			}
			corner = ok;
		}
		// Distinct points only count once.
		for (int k = 0; k < i && corner; k++)
			if (c[k][0] == c[i][0] && c[k][1] == c[i][1])
				corner = false;
		count += corner;
	}
	return count;
}

static void test_coplanar(void **state)
{
	(void)state;
	fails = 0;
	enum { N = 400 };
	imp_vec3 p[N];
	int c[N][2];
	rng r = {11};
	for (int it = 0; it < 60; it++) {
		int n = 3 + rng_int(&r, N - 3);
		// Integer plane coordinates on integer axes: exactly coplanar.
		imp_vec3 o = V3(rng_int(&r, 100) - 50, rng_int(&r, 100) - 50, rng_int(&r, 100) - 50);
		imp_vec3 u = V3(1, 2, 0), v = V3(0, -1, 3);
		int range = it % 3 == 0 ? 10 : 1000;
		for (int i = 0; i < n; i++) {
			c[i][0] = rng_int(&r, range);
			c[i][1] = rng_int(&r, range);
			if (it % 4 == 1) // on a circle: many corners
			{
				double a = rng_range(&r, 0, 6.283185307179586);
				c[i][0] = (int)lround(400 * cos(a)), c[i][1] = (int)lround(400 * sin(a));
			}
			p[i] = imp_vec3_add(o, imp_vec3_add(imp_vec3_scale(c[i][0], u), imp_vec3_scale(c[i][1], v)));
		}
		c[0][0] = 0, c[0][1] = 0, c[1][0] = range, c[1][1] = 0, c[2][0] = 0, c[2][1] = range; // not collinear
		for (int i = 0; i < 3; i++)
			p[i] = imp_vec3_add(o, imp_vec3_add(imp_vec3_scale(c[i][0], u), imp_vec3_scale(c[i][1], v)));
		imp_hull3 h = check_hull(p, n, 1e-9);
		EXPECT(h.dim == 2, "it %d: dim %d", it, h.dim);
		int want = exact_ring_count((const int(*)[2])c, n);
		EXPECT(h.nv == want, "it %d: %d ring vertices, oracle %d", it, h.nv, want);
		imp_hull3_free(&h, NULL);
	}
	// A grid: its four corners.
	int n = 0;
	for (int i = 0; i < 10; i++)
		for (int j = 0; j < 10; j++)
			p[n++] = V3(i * 0.1, 0.5, j * 0.3);
	imp_hull3 h = check_hull(p, n, 1e-9);
	EXPECT(h.dim == 2 && h.nv == 4, "grid: dim %d nv %d", h.dim, h.nv);
	imp_hull3_free(&h, NULL);
	// A rotated grid (rounded off its plane): still the four corners.
	double m[3][3];
	random_rotation(&r, m);
	for (int i = 0; i < n; i++)
		p[i] = rotate(m, p[i]);
	h = check_hull(p, n, 1e-9);
	EXPECT(h.dim == 2 && h.nv == 4, "rotated grid: dim %d nv %d", h.dim, h.nv);
	imp_hull3_free(&h, NULL);
	// A rotated random planar set.
	for (int i = 0; i < 300; i++)
		p[i] = rotate(m, V3(rng_range(&r, -1, 1), rng_range(&r, -2, 2), 0.25));
	h = check_hull(p, 300, 1e-9);
	EXPECT(h.dim == 2, "rotated plane: dim %d", h.dim);
	imp_hull3_free(&h, NULL);
	assert_int_equal(fails, 0);
}

/// A cube's corners with duplicates and points on its faces, edges and
/// centre, optionally rotated.
static int cube_with_extras(rng *r, imp_vec3 *p, bool rotated)
{
	int n = 0;
	for (int c = 0; c < 8; c++)
		for (int d = 0; d < 3; d++)
			p[n++] = V3(c & 1 ? 1 : -1, c & 2 ? 1 : -1, c & 4 ? 1 : -1);
	for (int i = 0; i < 300; i++) {
		double a = rng_range(r, -1, 1), b = rng_range(r, -1, 1), s = rng_int(r, 2) ? 1 : -1;
		switch (i % 4) {
		case 0: // on a face
			p[n++] = i % 3 == 0 ? V3(s, a, b) : (i % 3 == 1 ? V3(a, s, b) : V3(a, b, s));
			break;
		case 1: // on an edge
			p[n++] = i % 3 == 0 ? V3(s, rng_int(r, 2) ? 1 : -1, a)
					    : (i % 3 == 1 ? V3(a, s, rng_int(r, 2) ? 1 : -1)
							  : V3(s, a, rng_int(r, 2) ? 1 : -1));
			break;
		case 2: // edge midpoints, face centres, the centre
			p[n++] = V3(rng_int(r, 3) - 1, rng_int(r, 3) - 1, rng_int(r, 3) - 1);
			break;
		default: // inside
			p[n++] = V3(0.99 * a, 0.99 * b, rng_range(r, -0.99, 0.99));
			break;
		}
	}
	if (rotated) {
		double m[3][3];
		random_rotation(r, m);
		for (int i = 0; i < n; i++)
			p[i] = rotate(m, p[i]);
	}
	shuffle(r, p, n);
	return n;
}

static void expect_cube(const imp_hull3 *h, const char *what, int it)
{
	EXPECT(h->dim == 3 && h->nv == 8 && h->ne == 12 && h->nf == 6, "%s %d: dim %d nv %d ne %d nf %d", what, it,
	       h->dim, h->nv, h->ne, h->nf);
	for (int f = 0; f < h->nf; f++)
		EXPECT(h->face_start[f + 1] - h->face_start[f] == 4, "%s %d: face %d has %d vertices", what, it, f,
		       h->face_start[f + 1] - h->face_start[f]);
}

static void test_cube(void **state)
{
	(void)state;
	fails = 0;
	imp_vec3 p[400];
	for (int it = 0; it < 40; it++) {
		rng r = {(uint64_t)(100 + it)};
		int n = cube_with_extras(&r, p, it % 2 == 1);
		imp_hull3 h = check_hull(p, n, 1e-9);
		expect_cube(&h, it % 2 ? "rotated cube" : "cube", it);
		imp_hull3_free(&h, NULL);
	}
	// Only the eight corners, in every rotation of the input order.
	for (int it = 0; it < 8; it++) {
		imp_vec3 c[8];
		for (int i = 0; i < 8; i++)
			c[i] = V3((i + it) & 1 ? 0.5 : -0.5, (i + it) & 2 ? 2 : -2, (i + it) & 4 ? 3 : -3);
		imp_hull3 h = check_hull(c, 8, 1e-9);
		expect_cube(&h, "corners", it);
		imp_hull3_free(&h, NULL);
	}
	assert_int_equal(fails, 0);
}

static void test_cube_grid(void **state)
{
	(void)state;
	fails = 0;
	imp_vec3 *p = malloc(1000 * sizeof *p);
	for (int it = 0; it < 4; it++) {
		rng r = {(uint64_t)(9 + it)};
		double m[3][3];
		random_rotation(&r, m);
		int n = 0;
		for (int i = 0; i < 10; i++)
			for (int j = 0; j < 10; j++)
				for (int k = 0; k < 10; k++) {
					p[n] = V3(i, j * 0.5, k * 0.25);
					if (it >= 2)
						p[n] = rotate(m, p[n]);
					n++;
				}
		if (it % 2)
			shuffle(&r, p, n);
		imp_hull3 h = check_hull(p, n, 1e-9);
		expect_cube(&h, it >= 2 ? "rotated grid" : "grid", it);
		imp_hull3_free(&h, NULL);
	}
	free(p);
	assert_int_equal(fails, 0);
}

/// Other polytopes with many coplanar and collinear points: a prism of
/// regular polygons with points along its edges and on its faces, and an
/// octahedron with points on its faces.
static void test_polytopes(void **state)
{
	(void)state;
	fails = 0;
	imp_vec3 *p = malloc(4000 * sizeof *p);
	for (int it = 0; it < 12; it++) {
		rng r = {(uint64_t)(300 + it)};
		int k = 3 + it;
		int n = 0;
		for (int i = 0; i < k; i++) {
			double a = 6.283185307179586 * i / k, b = 6.283185307179586 * (i + 1) / k;
			imp_vec3 c0 = V3(cos(a), sin(a), 0), c1 = V3(cos(b), sin(b), 0);
			for (int j = 0; j < 20; j++) {
				double t = rng_uniform(&r), z = rng_range(&r, -1, 1);
				imp_vec3 e = imp_vec3_add(imp_vec3_scale(1 - t, c0), imp_vec3_scale(t, c1));
				p[n++] = V3(e.x, e.y, j % 3 == 0 ? -1 : (j % 3 == 1 ? 1 : z)); // edges and sides
			}
			p[n++] = V3(c0.x, c0.y, -1);
			p[n++] = V3(c0.x, c0.y, 1);
		}
		if (it % 2) {
			double m[3][3];
			random_rotation(&r, m);
			for (int i = 0; i < n; i++)
				p[i] = rotate(m, p[i]);
		}
		shuffle(&r, p, n);
		imp_hull3 h = check_hull(p, n, 1e-9);
		EXPECT(h.dim == 3 && h.nv == 2 * k && h.nf == k + 2 && h.ne == 3 * k, "prism %d: nv %d nf %d ne %d", k,
		       h.nv, h.nf, h.ne);
		imp_hull3_free(&h, NULL);
	}
	// Octahedron with points on its faces (barycentric, rounded).
	rng r = {17};
	int n = 0;
	imp_vec3 ax[6] = {V3(1, 0, 0), V3(-1, 0, 0), V3(0, 1, 0), V3(0, -1, 0), V3(0, 0, 1), V3(0, 0, -1)};
	for (int i = 0; i < 6; i++)
		p[n++] = ax[i];
	for (int i = 0; i < 2000; i++) {
		double a = rng_uniform(&r), b = rng_uniform(&r) * (1 - a), c = 1 - a - b;
		p[n++] = V3(rng_int(&r, 2) ? a : -a, rng_int(&r, 2) ? b : -b, rng_int(&r, 2) ? c : -c);
	}
	shuffle(&r, p, n);
	imp_hull3 h = check_hull(p, n, 1e-9);
	EXPECT(h.dim == 3 && h.nv == 6 && h.nf == 8 && h.ne == 12, "octahedron: nv %d nf %d ne %d", h.nv, h.nf, h.ne);
	imp_hull3_free(&h, NULL);
	free(p);
	assert_int_equal(fails, 0);
}

static void test_scales(void **state)
{
	(void)state;
	fails = 0;
	imp_vec3 *p = malloc(1000 * sizeof *p), *q = malloc(1000 * sizeof *q);
	for (int kind = 0; kind < CLOUD_KINDS; kind++) {
		rng r = {(uint64_t)(500 + kind)};
		make_cloud(&r, kind, p, 1000);
		imp_hull3 h0 = check_hull(p, 1000, 1e-9);
		// Scaled by powers of two: exactly the same hull.
		for (int e = -60; e <= 60; e += 40) {
			for (int i = 0; i < 1000; i++)
				q[i] = imp_vec3_scale(ldexp(1.0, e), p[i]);
			imp_hull3 h = check_hull(q, 1000, 1e-9);
			EXPECT(h.nv == h0.nv && h.nf == h0.nf && h.ne == h0.ne &&
				       memcmp(h.face_vertices, h0.face_vertices, (size_t)h.face_start[h.nf] * 4) == 0,
			       "%s scaled by 2^%d: another hull", cloud_name[kind], e);
			imp_hull3_free(&h, NULL);
		}
		// Tiny, huge, and far from the origin.
		static const double scales[] = {1e-6, 1e6, 1e-140, 1e140};
		for (int s = 0; s < 4; s++) {
			for (int i = 0; i < 1000; i++)
				q[i] = imp_vec3_scale(scales[s], p[i]);
			imp_hull3 h = check_hull(q, 1000, 1e-9);
			EXPECT(h.dim == 3, "scale %g: dim %d", scales[s], h.dim);
			imp_hull3_free(&h, NULL);
		}
		static const double offsets[] = {1e6, -3e8, 1e3};
		for (int s = 0; s < 3; s++) {
			for (int i = 0; i < 1000; i++)
				q[i] = imp_vec3_add(V3(offsets[s], -offsets[s], 0.5 * offsets[s]), p[i]);
			imp_hull3 h = check_hull(q, 1000, 1e-9);
			EXPECT(h.dim == 3, "offset %g: dim %d", offsets[s], h.dim);
			// Far out, the tolerance grows with the coordinates; a corner or
			// two within it may go.
			EXPECT(h.nv >= h0.nv - 3 && h.nv <= h0.nv, "offset %g: %d vertices, %d at the origin",
			       offsets[s], h.nv, h0.nv);
			imp_hull3_free(&h, NULL);
		}
		imp_hull3_free(&h0, NULL);
	}
	free(p);
	free(q);
	assert_int_equal(fails, 0);
}

static void test_near_coplanar(void **state)
{
	(void)state;
	fails = 0;
	imp_vec3 *p = malloc(3000 * sizeof *p);
	for (int it = 0; it < 12; it++) {
		rng r = {(uint64_t)(700 + it)};
		double noise = it < 6 ? 1e-13 : 1e-17;
		double m[3][3];
		random_rotation(&r, m);
		int n = 200 + 250 * it;
		for (int i = 0; i < n; i++) {
			p[i] = V3(rng_range(&r, -1, 1), rng_range(&r, -1, 1), noise * rng_range(&r, -1, 1));
			if (it % 2)
				p[i] = rotate(m, p[i]);
		}
		// Strictness 0: a slab 1e-13 thick has vertices that close to
		// faces they are not on.
		imp_hull3 h = check_hull(p, n, 0);
		if (noise < 1e-15)
			EXPECT(h.dim == 2, "noise %g: dim %d", noise, h.dim);
		imp_hull3_free(&h, NULL);
	}
	// Coplanar points with a box's corners: a box whose faces carry noise
	// well below the tolerance keeps its 8 corners and 6 faces.
	for (int it = 0; it < 6; it++) {
		rng r = {(uint64_t)(800 + it)};
		int n = 0;
		for (int c = 0; c < 8; c++)
			p[n++] = V3(c & 1 ? 2 : -2, c & 2 ? 1 : -1, c & 4 ? 0.5 : -0.5);
		for (int i = 0; i < 1500; i++) {
			double a = rng_range(&r, -1, 1), b = rng_range(&r, -1, 1), e = 1e-16 * rng_range(&r, -1, 0);
			int s = rng_int(&r, 2) ? 1 : -1;
			p[n++] = i % 3 == 0
					 ? V3(s * (2 + e), a, 0.5 * b)
					 : (i % 3 == 1 ? V3(2 * a, s * (1 + e), 0.5 * b) : V3(2 * a, b, s * (0.5 + e)));
		}
		shuffle(&r, p, n);
		imp_hull3 h = check_hull(p, n, 1e-9);
		expect_cube(&h, "noisy box", it);
		imp_hull3_free(&h, NULL);
	}
	free(p);
	assert_int_equal(fails, 0);
}

/// Sets within a few eps of degenerate, where tolerance decisions interact:
/// a rotated box with points on its faces, edges and corners moved by noise
/// around the tolerance, slabs and needles a few eps thick, two planes at a
/// tiny dihedral angle, clouds far from the origin (eps large against their
/// size), rotated clouds snapped to a coarse grid, clusters of near
/// duplicates. Whatever the hull, it must pass every check, the support
/// functions included (which see points left out beyond a knife edge).
static void test_near_degenerate(void **state)
{
	(void)state;
	fails = 0;
	static const double noises[] = {1e-16, 1e-15, 3e-15, 1e-14, 3e-14, 1e-13};
	imp_vec3 *p = malloc(2000 * sizeof *p);
	int runs = 0;
	for (int kind = 0; kind < 7; kind++)
		for (int it = 0; it < 36; it++) {
			rng r = {(uint64_t)(60000 + 1000 * kind + it)};
			double noise = noises[it % 6], m[3][3];
			random_rotation(&r, m);
			int n = 0;
			switch (kind) {
			case 0:
				n = cube_with_extras(&r, p, true);
				for (int i = 0; i < n; i++)
					p[i] = imp_vec3_add(p[i],
							    imp_vec3_scale(noise * rng_uniform(&r), random_unit(&r)));
				break;
			case 1: // slab
			case 2: // needle
				n = 300;
				for (int i = 0; i < n; i++) {
					double a = rng_range(&r, -1, 1), b = rng_range(&r, -1, 1),
					       c = rng_range(&r, -1, 1);
					p[i] = rotate(m, kind == 1 ? V3(a, b, 10 * noise * c)
								   : V3(a, 10 * noise * b, 10 * noise * c));
				}
				break;
			case 3: { // two planes at a tiny angle, and a far point
				double angle = 1e4 * noise * rng_uniform(&r);
				for (int i = 0; i < 300; i++) {
					double x = rng_range(&r, -1, 1), y = rng_range(&r, -1, 1);
					p[n++] = rotate(m, V3(x, y, -angle * fabs(x)));
				}
				p[n++] = rotate(m, V3(0, 0, -1));
				break;
			}
			case 4: { // far from the origin
				n = 50 + rng_int(&r, 1000);
				make_cloud(&r, rng_int(&r, CLOUD_KINDS), p, n);
				double off = pow(10.0, 3 + rng_int(&r, 12));
				for (int i = 0; i < n; i++)
					p[i] = imp_vec3_add(p[i], V3(off, -0.7 * off, 0.3 * off));
				break;
			}
			case 5: { // snapped to a grid
				n = 20 + rng_int(&r, 500);
				make_cloud(&r, rng_int(&r, CLOUD_KINDS), p, n);
				double q = 2 + rng_int(&r, 20);
				for (int i = 0; i < n; i++) {
					imp_vec3 v = rotate(m, p[i]);
					p[i] = V3(round(v.x * q) / q, round(v.y * q) / q, round(v.z * q) / q);
				}
				break;
			}
			default: { // near duplicates
				int k = 10 + rng_int(&r, 100);
				make_cloud(&r, rng_int(&r, CLOUD_KINDS), p, k);
				n = k;
				for (int i = 0; i < 3 * k; i++)
					p[n++] = imp_vec3_add(p[rng_int(&r, k)],
							      imp_vec3_scale(noise * rng_uniform(&r), random_unit(&r)));
				break;
			}
			}
			shuffle(&r, p, n);
			imp_hull3 h = check_hull(p, n, -1e-15);
			imp_hull3_free(&h, NULL);
			runs++;
			if (fails) {
				print_message("failed: kind %d it %d noise %g\n", kind, it, noise);
				goto done;
			}
		}
done:
	free(p);
	print_message("near-degenerate: %d hulls checked\n", runs);
	assert_int_equal(fails, 0);
}

// ---------------------------------------------------------------------------
// Nearly flat sets: points in a plane and a few a hair off it.

/// The independent check: along every direction d of a fixed set, the
/// hull's farthest vertex reaches as far as the farthest input point, within
/// a tiny part of the magnitude of the coordinates; and every vertex is an
/// input point. The directions: the axes and box diagonals, random ones,
/// and for each point the direction to it from the points' mean, which is
/// outward at a corner of a flat set. Returns whether all held.
static bool support_holds_all(const imp_hull3 *h, const imp_vec3 *p, int n, const char *what, int seed)
{
	double mag = 0.0;
	imp_vec3 mean = V3(0, 0, 0);
	for (int i = 0; i < n; i++) {
		mag = fmax(mag, l1(p[i]));
		mean = imp_vec3_add(mean, imp_vec3_scale(1.0 / n, p[i]));
	}
	double tol = 64 * DBL_EPSILON * mag;
	bool ok = true;
	for (int i = 0; i < h->nv && ok; i++) {
		bool found = false;
		for (int j = 0; j < n && !found; j++)
			found = same_point(h->v[i], p[j]);
		EXPECT(found, "%s %d: vertex (%.17g, %.17g, %.17g) is not an input point", what, seed, h->v[i].x,
		       h->v[i].y, h->v[i].z);
		ok = found;
	}
	rng r = {(uint64_t)seed * 31u + 5u};
	int nd = 26 + 100 + n;
	for (int k = 0; k < nd && ok; k++) {
		imp_vec3 d;
		if (k < 26) {
			int c = k < 13 ? k : k + 1; // the 26 neighbours of a cell, skipping its centre
			d = V3(c % 3 - 1, c / 3 % 3 - 1, c / 9 - 1);
		} else if (k < 126) {
			d = random_unit(&r);
		} else {
			d = imp_vec3_sub(p[k - 126], mean);
			if (!(imp_vec3_length(d) > 0))
				continue;
		}
		double hp = -INFINITY, hv = -INFINITY;
		int best = 0;
		for (int i = 0; i < n; i++)
			if (imp_vec3_dot(d, p[i]) > hp)
				hp = imp_vec3_dot(d, p[i]), best = i;
		for (int i = 0; i < h->nv; i++)
			hv = fmax(hv, imp_vec3_dot(d, h->v[i]));
		double len = imp_vec3_length(d);
		EXPECT(hv >= hp - tol * len, "%s %d: along (%.3g, %.3g, %.3g) point %d is %.3g beyond the hull", what,
		       seed, d.x / len, d.y / len, d.z / len, best, (hp - hv) / len);
		ok = hv >= hp - tol * len;
	}
	return ok;
}

/// Finding 56 (tests/fuzz/corpus/pairwise/finding-polytope-sliver-hull):
/// 16 points in y = 0 but point 6, 7.0e-35 below. The hull lost the vertex
/// (0.12109375, 0, 0): its box ended at x = 8.3e-39, and its support along
/// (1, -1, -1) reached 7.0e-35 where point 9 gives 0.121. Without point 8
/// it reached 0.027 only.
static void test_sliver_finding56(void **state)
{
	(void)state;
	fails = 0;
	static const imp_vec3 p[16] = {
		{8.2659121190329433e-39, 0, 0},
		{-2.625, 0, 1.5510257743299007},
		{8.2659121190329433e-39, 0, 172.5},
		{0.02734375, 0, 0},
		{8.2659121190329433e-39, 0, 0},
		{-2.625, 0, 1.5510257743299007},
		{8.2659121190329433e-39, -7.0177012744090564e-35, 0},
		{1.6543612251060638e-24, 0, 0},
		{1.0000000000000001e-15, 0, 0},
		{0.12109375, 0, 0},
		{8.2659121190329433e-39, 0, 0},
		{-2.625, 0, 1.5510257743299007},
		{8.2659121190329433e-39, 0, 0},
		{0, 0, 0},
		{8.2659121190329433e-39, 0, 0},
		{8.2659121190329433e-39, 0, 0},
	};
	for (int drop = -1; drop < 16; drop++) {
		imp_vec3 q[16];
		int n = 0;
		for (int i = 0; i < 16; i++)
			if (i != drop)
				q[n++] = p[i];
		imp_hull3 h = check_hull(q, n, 0);
		// Within the tolerance of a plane: the flat hull, whose corners are
		// the near origin, (0.121, 0, 0) (but without it, (0.027, 0, 0)),
		// and the two far points (without point 2, only one).
		int nv = drop == 2 ? 3 : 4;
		EXPECT(h.dim == 2 && h.nv == nv, "without point %d: dim %d, %d vertices", drop, h.dim, h.nv);
		double xmax = -INFINITY, reach = -INFINITY;
		for (int i = 0; i < h.nv; i++) {
			xmax = fmax(xmax, h.v[i].x);
			reach = fmax(reach, h.v[i].x - h.v[i].y - h.v[i].z);
		}
		double want = drop == 9 ? 0.02734375 : 0.12109375;
		EXPECT(xmax == want, "without point %d: the hull ends at x = %.17g, not %.17g", drop, xmax, want);
		EXPECT(reach == want, "without point %d: support along (1, -1, -1) %.17g, not %.17g", drop, reach,
		       want);
		(void)support_holds_all(&h, q, n, "finding 56 without point", drop);
		imp_hull3_free(&h, NULL);
	}
	assert_int_equal(fails, 0);
}

/// One coordinate of a point of a nearly flat set, at scale s: often zero,
/// a few roundings of the scale or far below it, or an ordinary value.
static double flat_coordinate(rng *r, double s)
{
	switch (rng_int(r, 6)) {
	case 0:
		return 0.0;
	case 1: // tiny: subnormal-scale to a few roundings of s
		return s * pow(10.0, -rng_range(r, 13, 42)) * (rng_int(r, 2) ? 1 : -1);
	case 2: // on a coarse grid: ties along the axes
		return s * (rng_int(r, 17) - 8) / 8.0;
	default:
		return s * rng_range(r, -1, 1);
	}
}

/// Random nearly flat sets (fixed seeds): points in a plane (y = 0, or
/// rotated; 4 to 48 of them, with duplicates and collinear rows, rows
/// along the axes through points near the origin among them), and one to
/// three moved off it by 1e-40 to 1e-10 of the scale, against
/// support_holds_all: every input point within the hull along every
/// direction tried, every vertex an input point; and check_hull.
static void test_nearly_flat_property(void **state)
{
	(void)state;
	fails = 0;
	enum { MAXN = 64 };
	imp_vec3 p[MAXN];
	int runs = 0, dims[4] = {0, 0, 0, 0};
	for (int seed = 0; seed < 20000; seed++) {
		rng r = {(uint64_t)(900000 + seed)};
		double s = pow(2.0, rng_range(&r, -30, 30));
		bool rotated = rng_int(&r, 3) == 0;
		int n = 4 + rng_int(&r, 45);
		// Often long along z, from z = 0 up, with a row across that end
		// (along x at z = 0): the points lexicographically first, where
		// the flat hull's ring starts.
		bool row_at_end = rng_int(&r, 2);
		double stretch = row_at_end ? pow(10.0, rng_range(&r, 0, 2)) : 1.0;
		int row[MAXN], nrow = 0;
		for (int i = 0; i < n; i++) {
			int kind = i < 3 ? 0 : rng_int(&r, 6);
			if (kind == 4) {
				p[i] = V3(flat_coordinate(&r, s), 0, row_at_end ? 0.0 : p[0].z);
				row[nrow++] = i;
			} else if (kind == 1) { // a duplicate
				p[i] = p[rng_int(&r, i)];
			} else if (kind == 2 || kind == 3) { // on a row through an earlier point
				imp_vec3 a = p[rng_int(&r, i)];
				double t = flat_coordinate(&r, s);
				int axis_row = rng_int(&r, 3);
				if (axis_row == 0)
					p[i] = V3(a.x + t, 0, a.z);
				else if (axis_row == 1)
					p[i] = V3(a.x, 0, row_at_end ? a.z + fabs(t) : a.z + t);
				else {
					imp_vec3 b = p[rng_int(&r, i)];
					p[i] = imp_vec3_add(a, imp_vec3_scale(rng_range(&r, 0, 1), imp_vec3_sub(b, a)));
					p[i].y = 0;
				}
			} else {
				double z = flat_coordinate(&r, s);
				p[i] = V3(flat_coordinate(&r, s), 0, row_at_end ? stretch * fabs(z) : z);
			}
		}
		// Moved off the plane: any point, or the row's first (smallest x,
		// the start of the ring when the row is at the end).
		int first = nrow > 0 ? row[0] : 0;
		for (int j = 1; j < nrow; j++)
			if (p[row[j]].x < p[first].x)
				first = row[j];
		int off = 1 + rng_int(&r, 3);
		for (int j = 0; j < off; j++) {
			int i = j == 0 && rng_int(&r, 2) ? first : rng_int(&r, n);
			p[i].y += (rng_int(&r, 2) ? 1 : -1) * s * pow(10.0, -rng_range(&r, 10, 40));
		}
		if (rotated) {
			double m[3][3];
			random_rotation(&r, m);
			for (int i = 0; i < n; i++)
				p[i] = rotate(m, p[i]);
		}
		// The definition's checks too (a flat ring strictly convex, every
		// point on its plane), with the tolerances of near-degenerate sets.
		imp_hull3 h = check_hull(p, n, -1e-15);
		if (h.nv == 0)
			break; // not built: check_hull said why
		dims[h.dim]++;
		bool ok = support_holds_all(&h, p, n, "nearly flat seed", seed);
		imp_hull3_free(&h, NULL);
		runs++;
		if (!ok || fails) {
			print_message("failed: nearly flat seed %d\n", seed);
			break;
		}
	}
	print_message("nearly flat: %d sets checked, dimensions 0-3: %d %d %d %d\n", runs, dims[0], dims[1], dims[2],
		      dims[3]);
	assert_int_equal(fails, 0);
}

static void test_deterministic(void **state)
{
	(void)state;
	fails = 0;
	imp_vec3 *p = malloc(3000 * sizeof *p);
	rng r = {42};
	int n = cube_with_extras(&r, p, true);
	make_cloud(&r, CLOUD_GAUSS, p + n, 3000 - n);
	imp_hull3 a, b;
	assert_int_equal(imp_hull3_build(p, 3000, NULL, &a), IMP_OK);
	assert_int_equal(imp_hull3_build(p, 3000, NULL, &b), IMP_OK);
	EXPECT(a.nv == b.nv && a.ne == b.ne && a.nf == b.nf, "counts differ");
	EXPECT(memcmp(a.v, b.v, (size_t)a.nv * sizeof *a.v) == 0, "vertices differ");
	EXPECT(memcmp(a.edges, b.edges, (size_t)a.ne * 8) == 0, "edges differ");
	EXPECT(memcmp(a.face_vertices, b.face_vertices, (size_t)a.face_start[a.nf] * 4) == 0, "faces differ");
	EXPECT(memcmp(a.face_normal, b.face_normal, (size_t)a.nf * sizeof *a.face_normal) == 0, "normals differ");
	EXPECT(memcmp(a.adj, b.adj, (size_t)a.ne * 8) == 0, "adjacency differs");
	imp_hull3_free(&a, NULL);
	imp_hull3_free(&b, NULL);
	// Another order of the same points: the same hull.
	make_cloud(&r, CLOUD_SPHERE, p, 500);
	assert_int_equal(imp_hull3_build(p, 500, NULL, &a), IMP_OK);
	shuffle(&r, p, 500);
	assert_int_equal(imp_hull3_build(p, 500, NULL, &b), IMP_OK);
	EXPECT(same_hull(&a, &b), "order changes the hull");
	imp_hull3_free(&a, NULL);
	imp_hull3_free(&b, NULL);
	// Freeing a zeroed hull is fine, twice too.
	imp_hull3 z;
	memset(&z, 0, sizeof z);
	imp_hull3_free(&z, NULL);
	imp_hull3_free(&z, NULL);
	assert_int_equal(imp_hull3_build(p, 0, NULL, &z), IMP_ERR_BAD_COUNT);
	assert_int_equal(imp_hull3_build(p, -3, NULL, &z), IMP_ERR_BAD_COUNT);
	free(p);
	assert_int_equal(fails, 0);
}

// The largest set: 2^20 points, 2^18 in a sanitizer build.
#if defined(__SANITIZE_ADDRESS__)
#define BIG_LOG2 18
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define BIG_LOG2 18
#endif
#endif
#ifndef BIG_LOG2
#define BIG_LOG2 20
#endif

static double seconds(clock_t t0)
{
	return (double)(clock() - t0) / CLOCKS_PER_SEC;
}

static void test_large(void **state)
{
	(void)state;
	fails = 0;
	enum { BIG = 1 << BIG_LOG2 };
	imp_vec3 *p = malloc((size_t)BIG * sizeof *p);
	rng r = {2024};
	make_cloud(&r, CLOUD_SPHERE, p, 10000);
	clock_t t0 = clock();
	imp_hull3 h = check_hull(p, 10000, 1e-9);
	EXPECT(h.nv == 10000, "sphere: %d vertices of 10000", h.nv);
	imp_hull3_free(&h, NULL);
	t0 = clock();
	assert_int_equal(imp_hull3_build(p, 10000, NULL, &h), IMP_OK);
	double t10k = seconds(t0);
	imp_hull3_free(&h, NULL);

	// Larger sets are timed, and checked only in outline: the checks above
	// would take longer than the hull, under the sanitizers most of all.
	make_cloud(&r, CLOUD_SPHERE, p, 100000);
	t0 = clock();
	assert_int_equal(imp_hull3_build(p, 100000, NULL, &h), IMP_OK);
	double t100k = seconds(t0);
	EXPECT(h.nv == 100000 && h.nf == 2 * 100000 - 4 && h.ne == 3 * 100000 - 6, "100k sphere: %d vertices %d faces",
	       h.nv, h.nf);
	imp_hull3_free(&h, NULL);

	make_cloud(&r, CLOUD_CUBE, p, BIG);
	t0 = clock();
	assert_int_equal(imp_hull3_build(p, BIG, NULL, &h), IMP_OK);
	double tbig = seconds(t0);
	EXPECT(h.dim == 3 && h.nv > 100 && h.nv - h.ne + h.nf == 2, "2^%d in a cube: %d vertices", BIG_LOG2, h.nv);
	imp_hull3_free(&h, NULL);
	print_message("sphere 10k: %.3f s, sphere 100k: %.3f s, cube 2^%d: %.3f s\n", t10k, t100k, BIG_LOG2, tbig);
	free(p);
	assert_int_equal(fails, 0);
}

// ---------------------------------------------------------------------------
// Out of memory: fail the k-th allocation for every k.

typedef struct counting {
	long calls, fail_at, live, bad_sizes, reallocs;
} counting;

static void *counting_alloc(size_t size, void *user)
{
	counting *c = user;
	if (++c->calls == c->fail_at)
		return NULL;
	unsigned char *b = malloc(size + 16);
	if (b == NULL)
		return NULL;
	memcpy(b, &size, sizeof size);
	c->live++;
	return b + 16;
}

static void counting_free(void *ptr, size_t size, void *user)
{
	counting *c = user;
	unsigned char *b = (unsigned char *)ptr - 16;
	size_t s;
	memcpy(&s, b, sizeof s);
	c->bad_sizes += s != size;
	c->live--;
	free(b);
}

static void *counting_realloc(void *ptr, size_t old_size, size_t new_size, void *user)
{
	(void)ptr;
	(void)old_size;
	(void)new_size;
	((counting *)user)->reallocs++;
	return NULL;
}

static void test_out_of_memory(void **state)
{
	(void)state;
	fails = 0;
	imp_vec3 *p = malloc(5000 * sizeof *p);
	rng r = {99};
	for (int set = 0; set < 8; set++) {
		int n;
		switch (set) {
		case 0:
			n = 3000;
			make_cloud(&r, CLOUD_SPHERE, p, n);
			break;
		case 1:
			n = cube_with_extras(&r, p, true);
			break;
		case 2:
			n = 300;
			for (int i = 0; i < n; i++)
				p[i] = V3(rng_range(&r, -1, 1), rng_range(&r, -1, 1), 2.0);
			break;
		case 3:
			n = 50;
			for (int i = 0; i < n; i++)
				p[i] = V3(i, 2 * i, -i);
			break;
		case 4:
			n = 7;
			for (int i = 0; i < n; i++)
				p[i] = V3(1, 2, 3);
			break;
		case 5:
			n = 2000;
			for (int i = 0; i < n; i++)
				p[i] = V3(rng_range(&r, -1, 1), rng_range(&r, -1, 1), 1e-13 * rng_range(&r, -1, 1));
			break;
		case 6: {
			// Noise just above the tolerance: corners are dropped and the
			// hull built again, twice (when this was written).
			rng q = {4007};
			n = cube_with_extras(&q, p, true);
			for (int i = 0; i < n; i++)
				p[i] = imp_vec3_add(p[i], imp_vec3_scale(1e-14 * rng_uniform(&q), random_unit(&q)));
			break;
		}
		default: {
			// A slab 3e-15 thick: built again after dropping corners, then
			// found flat.
			rng q = {9016};
			double m[3][3];
			random_rotation(&q, m);
			n = 300;
			for (int i = 0; i < n; i++)
				p[i] = rotate(m, V3(rng_range(&q, -1, 1), rng_range(&q, -1, 1),
						    3e-15 * rng_range(&q, -1, 1)));
			break;
		}
		}
		long k;
		for (k = 1;; k++) {
			counting c = {0, k, 0, 0, 0};
			imp_allocator a = {counting_alloc, counting_realloc, counting_free, &c};
			imp_hull3 h, before;
			memset(&h, 0xab, sizeof h);
			memcpy(&before, &h, sizeof h);
			imp_status st = imp_hull3_build(p, n, &a, &h);
			if (st == IMP_ERR_OUT_OF_MEMORY) {
				EXPECT(c.live == 0, "set %d, allocation %ld failed: %ld blocks leaked", set, k, c.live);
				EXPECT(memcmp(&h, &before, sizeof h) == 0,
				       "set %d, allocation %ld failed: output touched", set, k);
				EXPECT(c.calls >= k, "out of memory without a failed allocation");
				continue;
			}
			EXPECT(st == IMP_OK, "set %d: status %d", set, (int)st);
			EXPECT(c.calls < k, "set %d: allocation %ld failed, yet IMP_OK", set, k);
			if (st == IMP_OK)
				imp_hull3_free(&h, &a);
			EXPECT(c.live == 0, "set %d: %ld blocks leaked after free", set, c.live);
			EXPECT(c.bad_sizes == 0 && c.reallocs == 0, "set %d: %ld frees with a wrong size, %ld reallocs",
			       set, c.bad_sizes, c.reallocs);
			break;
		}
		print_message("out of memory, set %d: %ld allocations\n", set, k - 1);
	}
	free(p);
	assert_int_equal(fails, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_random_clouds), cmocka_unit_test(test_oracle_small),
		cmocka_unit_test(test_points_equal),  cmocka_unit_test(test_duplicates),
		cmocka_unit_test(test_collinear),     cmocka_unit_test(test_coplanar),
		cmocka_unit_test(test_cube),          cmocka_unit_test(test_cube_grid),
		cmocka_unit_test(test_polytopes),     cmocka_unit_test(test_scales),
		cmocka_unit_test(test_near_coplanar), cmocka_unit_test(test_near_degenerate),
		cmocka_unit_test(test_sliver_finding56), cmocka_unit_test(test_nearly_flat_property),
		cmocka_unit_test(test_deterministic), cmocka_unit_test(test_large),
		cmocka_unit_test(test_out_of_memory),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
