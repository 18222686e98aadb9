// SPDX-License-Identifier: MIT
// The shapes' bounding-volume hierarchy (src/shape/bvh.h) against brute
// force: its build (every node holds its pieces, every piece in one leaf,
// the depth bound), box queries, the descent of two hierarchies at once
// and branch and bound, on random boxes and on degenerate sets (equal
// boxes, points, boxes on a line, huge and tiny coordinates).
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

#include "narrow/composite_query.h"
#include "shape/bvh.h"
#include "oracle3d.h"

typedef struct rng {
	uint64_t s;
} rng;

static double uniform(rng *r)
{
	r->s = r->s * 6364136223846793005ULL + 1442695040888963407ULL;
	return (double)(r->s >> 11) * 0x1p-53;
}

static double between(rng *r, double lo, double hi)
{
	return lo + (hi - lo) * uniform(r);
}

/// The default allocator (malloc).
static const imp_allocator *heap(void)
{
	return NULL;
}

/// n boxes of one of several kinds: random, equal, points, on a line,
/// nested, at a scale.
static void make_boxes(rng *r, imp_box *b, int n, int dim, int kind, double scale)
{
	for (int i = 0; i < n; ++i) {
		memset(&b[i], 0, sizeof b[i]);
		for (int k = 0; k < dim; ++k) {
			double c = between(r, -1.0, 1.0), e = between(r, 0.0, 0.1);
			switch (kind) {
			case 1: c = 0.25, e = 0.125; break;             // all equal
			case 2: e = 0.0; break;                          // points
			case 3: c = k == 0 ? c : 0.5, e = 0.01; break;   // on a line
			case 4: c = 0.0, e = 0.001 * (i + 1); break;     // nested
			default: break;
			}
			b[i].lo[k] = scale * (c - e);
			b[i].hi[k] = scale * (c + e);
		}
	}
}

static bool contains(const imp_box *o, const imp_box *in, int dim)
{
	for (int k = 0; k < dim; ++k)
		if (in->lo[k] < o->lo[k] || in->hi[k] > o->hi[k])
			return false;
	return true;
}

/// Walks the hierarchy: every node holds its subtree's boxes, each piece
/// is in one leaf, the depth is as stated and within the bound.
static int check_node(const imp_bvh *t, const imp_box *boxes, int32_t n, int depth, int *seen, int *deepest)
{
	const imp_bvh_node *nd = &t->nodes[n];
	*deepest = depth > *deepest ? depth : *deepest;
	if (nd->right < 0) {
		assert_true(nd->item >= 0 && nd->item < t->count);
		seen[nd->item]++;
		assert_true(contains(&nd->box, &boxes[nd->item], t->dim));
		return 1;
	}
	assert_true(nd->right > n + 1 && nd->right < 2 * t->count - 1);
	assert_true(contains(&nd->box, &t->nodes[n + 1].box, t->dim));
	assert_true(contains(&nd->box, &t->nodes[nd->right].box, t->dim));
	int left = check_node(t, boxes, n + 1, depth + 1, seen, deepest);
	assert_int_equal(nd->right, n + 2 * left - 1 + 1);
	return left + check_node(t, boxes, nd->right, depth + 1, seen, deepest);
}

typedef struct hits {
	int *count;
	int calls;
} hits;

static bool count_item(void *ctx, int32_t item)
{
	hits *h = ctx;
	h->count[item]++;
	h->calls++;
	return true;
}

static void test_build_and_query(void **state)
{
	(void)state;
	rng r = {11};
	static const int sizes[] = {1, 2, 3, 7, 64, 500, 3000};
	static const double scales[] = {1.0, 1e-150, 1e150, 1e-5};
	for (int dim = 2; dim <= 3; ++dim)
		for (int kind = 0; kind < 5; ++kind)
			for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; ++si)
				for (size_t sc = 0; sc < sizeof scales / sizeof scales[0]; ++sc) {
					int n = sizes[si];
					imp_box *b = malloc((size_t)n * sizeof *b);
					int *seen = calloc((size_t)n, sizeof *seen), *want = calloc((size_t)n, sizeof *want);
					make_boxes(&r, b, n, dim, kind, scales[sc]);
					imp_bvh t;
					assert_true(imp_bvh_build(&t, b, n, dim, heap()));
					int deepest = 0;
					assert_int_equal(check_node(&t, b, 0, 1, seen, &deepest), n);
					assert_int_equal(deepest, t.depth);
					assert_true(t.depth <= IMP_BVH_MAX_DEPTH);
					for (int i = 0; i < n; ++i)
						assert_int_equal(seen[i], 1);
					// Queries against brute force.
					for (int q = 0; q < 20; ++q) {
						imp_box qb;
						make_boxes(&r, &qb, 1, dim, q % 2 ? 0 : kind, scales[sc]);
						for (int k = 0; k < dim; ++k) {
							qb.lo[k] -= 0.3 * scales[sc] * uniform(&r);
							qb.hi[k] += 0.3 * scales[sc] * uniform(&r);
						}
						memset(seen, 0, (size_t)n * sizeof *seen);
						hits h = {seen, 0};
						assert_true(imp_bvh_query(&t, &qb, count_item, &h));
						for (int i = 0; i < n; ++i) {
							want[i] = imp_box_overlap(&b[i], &qb, dim);
							if (seen[i] != want[i])
								fail_msg("dim %d kind %d n %d scale %g: piece %d seen %d times, overlap %d",
									 dim, kind, n, scales[sc], i, seen[i], want[i]);
						}
					}
					imp_bvh_free(&t, heap());
					free(b);
					free(seen);
					free(want);
				}
}

/// Many equal centres push the heuristic to median splits: the depth stays
/// within the bound.
static void test_depth_bound(void **state)
{
	(void)state;
	enum { N = 100000 };
	imp_box *b = malloc(N * sizeof *b);
	rng r = {12};
	// Exponentially spread boxes along x: each SAH split peels one off.
	for (int i = 0; i < N; ++i) {
		double x = ldexp(1.0, i % 900 - 450) * (1.0 + uniform(&r));
		b[i] = (imp_box){{x, 0.0, 0.0}, {x * 1.0000001, 1.0, 1.0}};
	}
	imp_bvh t;
	assert_true(imp_bvh_build(&t, b, N, 3, heap()));
	print_message("100,000 boxes spread over 2^900: depth %d\n", t.depth);
	assert_true(t.depth <= IMP_BVH_MAX_DEPTH);
	imp_bvh_free(&t, heap());
	free(b);
}

static imp_bvh_xform random_xform(rng *r, int dim, double reach)
{
	imp_bvh_xform x;
	memset(&x, 0, sizeof x);
	if (dim == 2) {
		double a = between(r, 0.0, 6.283185307179586);
		x.r[0][0] = cos(a), x.r[0][1] = -sin(a), x.r[1][0] = sin(a), x.r[1][1] = cos(a), x.r[2][2] = 1.0;
	} else {
		double q[4], l = 0.0;
		for (int k = 0; k < 4; ++k) {
			q[k] = between(r, -1.0, 1.0);
			l += q[k] * q[k];
		}
		l = sqrt(l);
		double w = q[0] / l, a = q[1] / l, b = q[2] / l, c = q[3] / l;
		x.r[0][0] = 1 - 2 * (b * b + c * c), x.r[0][1] = 2 * (a * b - c * w), x.r[0][2] = 2 * (a * c + b * w);
		x.r[1][0] = 2 * (a * b + c * w), x.r[1][1] = 1 - 2 * (a * a + c * c), x.r[1][2] = 2 * (b * c - a * w);
		x.r[2][0] = 2 * (a * c - b * w), x.r[2][1] = 2 * (b * c + a * w), x.r[2][2] = 1 - 2 * (a * a + b * b);
	}
	for (int k = 0; k < dim; ++k)
		x.t[k] = between(r, -reach, reach);
	return x;
}

typedef struct pair_hits {
	int na, nb;
	int *count; ///< na x nb
} pair_hits;

static bool count_pair(void *ctx, int32_t ia, int32_t ib)
{
	pair_hits *h = ctx;
	h->count[ia * h->nb + ib]++;
	return true;
}

/// The exact gap between two boxes (Euclidean; negative: minus the least
/// overlap along an axis), as a naive narrow phase.
static double box_distance(const imp_box *a, const imp_box *b, int dim)
{
	double g2 = 0.0, m = -INFINITY;
	for (int k = 0; k < dim; ++k) {
		double g = fmax(a->lo[k] - b->hi[k], b->lo[k] - a->hi[k]);
		m = fmax(m, g);
		if (g > 0.0)
			g2 += g * g;
	}
	return m > 0.0 ? sqrt(g2) : m;
}

typedef struct near_ctx {
	const imp_box *a, *b_moved;
	int nb, dim, calls;
} near_ctx;

static double pair_distance(void *ctx, int32_t ia, int32_t ib, double bound)
{
	near_ctx *c = ctx;
	c->calls++;
	double d = box_distance(&c->a[ia], &c->b_moved[ib], c->dim);
	return d < bound ? d : bound;
}

/// A key for imp_bvh_nearest_keyed: the query box's own distance to the
/// node's (a valid bound, as the boxes' is), counted.
typedef struct key_ctx {
	const imp_box *q;
	int dim, calls;
} key_ctx;

static double node_distance_key(void *ctx, const imp_box *box)
{
	key_ctx *k = ctx;
	k->calls++;
	return box_distance(box, k->q, k->dim);
}

static void test_pairs_and_nearest(void **state)
{
	(void)state;
	rng r = {13};
	long calls = 0, brute = 0;
	for (int dim = 2; dim <= 3; ++dim)
		for (int it = 0; it < 300; ++it) {
			int na = 1 + (int)(uniform(&r) * 200), nb = 1 + (int)(uniform(&r) * 200);
			int kind = it % 5;
			imp_box *a = malloc((size_t)na * sizeof *a), *b = malloc((size_t)nb * sizeof *b);
			imp_box *bm = malloc((size_t)nb * sizeof *bm);
			make_boxes(&r, a, na, dim, kind, 1.0);
			make_boxes(&r, b, nb, dim, (kind + it / 5) % 5, 1.0);
			imp_bvh ta, tb;
			assert_true(imp_bvh_build(&ta, a, na, dim, heap()));
			assert_true(imp_bvh_build(&tb, b, nb, dim, heap()));
			imp_bvh_xform x = random_xform(&r, dim, it % 3 == 0 ? 3.0 : 1.0);
			for (int j = 0; j < nb; ++j)
				imp_box_move(&b[j], &x, dim, &bm[j]);
			// Every pair whose boxes (b's moved) overlap, each once, and
			// nothing else.
			int *count = calloc((size_t)na * nb, sizeof *count);
			pair_hits h = {na, nb, count};
			assert_true(imp_bvh_pairs(&ta, &tb, &x, count_pair, &h));
			for (int i = 0; i < na; ++i)
				for (int j = 0; j < nb; ++j) {
					int want = imp_box_overlap(&a[i], &bm[j], dim);
					if (count[i * nb + j] != want)
						fail_msg("dim %d, case %d: pair (%d, %d) told %d times, boxes overlap %d", dim, it, i, j,
							 count[i * nb + j], want);
				}
			// Branch and bound against the least pair distance.
			double best = INFINITY;
			for (int i = 0; i < na; ++i)
				for (int j = 0; j < nb; ++j)
					best = fmin(best, box_distance(&a[i], &bm[j], dim));
			near_ctx c = {a, bm, nb, dim, 0};
			double got = imp_bvh_nearest(&ta, &tb, &x, NULL, INFINITY, pair_distance, &c);
			if (got != best)
				fail_msg("dim %d, case %d: nearest %.17g, brute force %.17g", dim, it, got, best);
			calls += c.calls;
			brute += (long)na * nb;
			// One box against the hierarchy.
			imp_box q = bm[0];
			double bq = INFINITY;
			for (int i = 0; i < na; ++i)
				bq = fmin(bq, box_distance(&a[i], &q, dim));
			near_ctx cq = {a, &q, 1, dim, 0};
			assert_true(imp_bvh_nearest(&ta, NULL, NULL, &q, INFINITY, pair_distance, &cq) == bq);
			// With the caller's key: the same answer, the key asked.
			key_ctx kc = {&q, dim, 0};
			near_ctx ck = {a, &q, 1, dim, 0};
			assert_true(imp_bvh_nearest_keyed(&ta, NULL, NULL, &q, node_distance_key, &kc, INFINITY, pair_distance,
							  &ck) == bq);
			assert_true(kc.calls > 0);
			imp_bvh_free(&ta, heap());
			imp_bvh_free(&tb, heap());
			free(a);
			free(b);
			free(bm);
			free(count);
		}
	print_message("branch and bound: %ld pair calls for %ld pairs (%.1f%%)\n", calls, brute, 100.0 * calls / brute);
}

/// Out of memory: the build says so and leaves the hierarchy empty.
static int fail_after;

static void *failing_alloc(size_t size, void *user)
{
	(void)user;
	if (fail_after-- <= 0)
		return NULL;
	return malloc(size);
}

static void *failing_realloc(void *p, size_t old_size, size_t size, void *user)
{
	(void)user;
	(void)old_size;
	return realloc(p, size);
}

static void failing_free(void *p, size_t size, void *user)
{
	(void)user;
	(void)size;
	free(p);
}

static void test_out_of_memory(void **state)
{
	(void)state;
	imp_box b[10];
	rng r = {14};
	make_boxes(&r, b, 10, 3, 0, 1.0);
	imp_allocator a = {failing_alloc, failing_realloc, failing_free, NULL};
	for (int k = 0; k < 3; ++k) {
		fail_after = k;
		imp_bvh t;
		assert_false(imp_bvh_build(&t, b, 10, 3, &a));
		assert_null(t.nodes);
	}
	fail_after = 3;
	imp_bvh t;
	assert_true(imp_bvh_build(&t, b, 10, 3, &a));
	imp_bvh_free(&t, &a);
}

// ---------------------------------------------------------------------------
// Oriented boxes.

/// A triangle soup for imp_bvh_fit_obbs: 3 points a piece.
typedef struct soup {
	double (*p)[3];
	int n; ///< triangles
} soup;

static int soup_points(void *ctx, int32_t item, double (*out)[3])
{
	const soup *s = ctx;
	memcpy(out, s->p[3 * item], 3 * sizeof *out);
	return 3;
}

/// Triangles of a kind: random, on one tilted plane, on one line, all
/// equal points, a turned thin sheet; at a scale.
static void make_soup(rng *r, soup *s, int kind, double scale)
{
	double ax[3] = {between(r, -1, 1), between(r, -1, 1), between(r, -1, 1)};
	double ay[3] = {between(r, -1, 1), between(r, -1, 1), between(r, -1, 1)};
	for (int i = 0; i < 3 * s->n; ++i) {
		double u = between(r, -1, 1), v = between(r, -1, 1), w = between(r, -1, 1);
		double *p = s->p[i];
		switch (kind) {
		case 1: // a plane through 0 spanned by ax, ay
			for (int k = 0; k < 3; ++k)
				p[k] = u * ax[k] + v * ay[k];
			break;
		case 2: // a line
			for (int k = 0; k < 3; ++k)
				p[k] = u * ax[k];
			break;
		case 3: // one point
			for (int k = 0; k < 3; ++k)
				p[k] = 0.3 * ax[k];
			break;
		case 4: // a thin sheet
			for (int k = 0; k < 3; ++k)
				p[k] = u * ax[k] + v * ay[k] + 1e-9 * w;
			break;
		default: // small triangles scattered
			if (i % 3 == 0) {
				p[0] = u;
				p[1] = v;
				p[2] = w;
			} else {
				for (int k = 0; k < 3; ++k)
					p[k] = s->p[i - i % 3][k] + 0.05 * between(r, -1, 1);
			}
			break;
		}
	}
	for (int i = 0; i < 3 * s->n; ++i)
		for (int k = 0; k < 3; ++k)
			s->p[i][k] *= scale;
}

/// Point p lies in o: its coordinates along the axes within the extents.
static bool obb_holds(const imp_bvh_obb *o, const double p[3])
{
	for (int i = 0; i < 3; ++i) {
		double t = 0.0;
		for (int k = 0; k < 3; ++k)
			t += o->ax[i][k] * (p[k] - o->c[k]);
		if (!(fabs(t) <= o->e[i]))
			return false;
	}
	return true;
}

/// Every node's oriented box holds its leaves' points grown by the radius
/// (the points pushed out along each axis), its axes orthonormal.
static void check_obbs(const imp_bvh *t, const soup *s, double grow)
{
	int32_t nn = 2 * t->count - 1;
	int32_t *stack = malloc((size_t)nn * sizeof *stack);
	for (int32_t n = 0; n < nn; ++n) {
		const imp_bvh_obb *o = &t->obb[n];
		for (int i = 0; i < 3; ++i)
			for (int j = 0; j < 3; ++j) {
				double d = o->ax[i][0] * o->ax[j][0] + o->ax[i][1] * o->ax[j][1] + o->ax[i][2] * o->ax[j][2];
				assert_true(fabs(d - (i == j)) < 1e-12);
			}
		int sp = 0;
		stack[sp++] = n;
		while (sp > 0) {
			int32_t m = stack[--sp];
			if (t->nodes[m].right >= 0) {
				stack[sp++] = m + 1;
				stack[sp++] = t->nodes[m].right;
				continue;
			}
			for (int v = 0; v < 3; ++v) {
				const double *p = s->p[3 * t->nodes[m].item + v];
				for (int a = 0; a < 3; ++a)
					for (int sg = -1; sg <= 1; sg += 2) {
						double q[3];
						for (int k = 0; k < 3; ++k)
							q[k] = p[k] + sg * grow * o->ax[a][k];
						assert_true(obb_holds(o, q));
					}
			}
		}
	}
	free(stack);
}

static void test_obb_fit(void **state)
{
	(void)state;
	rng r = {21};
	const double scales[] = {1.0, 1e-7, 1e7};
	for (int kind = 0; kind < 5; ++kind)
		for (int si = 0; si < 3; ++si)
			for (int it = 0; it < 4; ++it) {
				soup s = {NULL, 1 + (int)(uniform(&r) * 300)};
				s.p = malloc((size_t)(3 * s.n) * sizeof *s.p);
				make_soup(&r, &s, kind, scales[si]);
				// The pieces' boxes hold the rounding, as a shape's do.
				double grow = it % 2 == 0 ? 0.0 : 0.01 * scales[si];
				imp_box *b = malloc((size_t)s.n * sizeof *b);
				for (int i = 0; i < s.n; ++i)
					for (int k = 0; k < 3; ++k) {
						b[i].lo[k] = fmin(s.p[3 * i][k], fmin(s.p[3 * i + 1][k], s.p[3 * i + 2][k])) - grow;
						b[i].hi[k] = fmax(s.p[3 * i][k], fmax(s.p[3 * i + 1][k], s.p[3 * i + 2][k])) + grow;
					}
				imp_bvh t;
				assert_true(imp_bvh_build(&t, b, s.n, 3, heap()));
				assert_true(imp_bvh_fit_obbs(&t, soup_points, &s, grow, heap()));
				check_obbs(&t, &s, grow);
				// A flat leaf's box is flat: the triangle's own frame.
				if (kind == 0) {
					for (int32_t n = 0; n < 2 * s.n - 1; ++n)
						if (t.nodes[n].right < 0) {
							const imp_bvh_obb *o = &t.obb[n];
							double thin = fmin(o->e[0], fmin(o->e[1], o->e[2])) - grow;
							assert_true(thin < 1e-9 * scales[si]);
						}
				}
				imp_bvh_free(&t, heap());
				free(b);
				free(s.p);
			}
}

/// A random oriented box: centre within `reach`, random frame, extents up
/// to 1 (some flat).
static void random_obb(rng *r, imp_bvh_obb *o, double reach)
{
	double q[4], n = 0.0;
	for (int k = 0; k < 4; ++k) {
		q[k] = between(r, -1, 1);
		n += q[k] * q[k];
	}
	n = sqrt(n);
	for (int k = 0; k < 4; ++k)
		q[k] /= n;
	imp_mat3 m = imp_mat3_from_quat((imp_quat){q[0], q[1], q[2], q[3]});
	for (int i = 0; i < 3; ++i) {
		o->c[i] = between(r, -reach, reach);
		o->e[i] = uniform(r) < 0.2 ? 0.0 : between(r, 0.0, 1.0);
		for (int k = 0; k < 3; ++k)
			o->ax[i][k] = m.m[k][i];
	}
}

static void obb_poly(const imp_bvh_obb *o, o3_poly *out)
{
	imp_vec3 v[8];
	for (int i = 0; i < 8; ++i) {
		double p[3];
		for (int k = 0; k < 3; ++k)
			p[k] = o->c[k] + ((i & 1) ? 1 : -1) * o->e[0] * o->ax[0][k] + ((i & 2) ? 1 : -1) * o->e[1] * o->ax[1][k] +
			       ((i & 4) ? 1 : -1) * o->e[2] * o->ax[2][k];
		v[i] = imp_vec3_make(p[0], p[1], p[2]);
	}
	o3_poly_make(out, v, 8);
}

/// imp_obb_bound against the oracle's signed distance of the two boxes:
/// never above it; with edges, > 0 exactly when the boxes are apart.
static void test_obb_bound(void **state)
{
	(void)state;
	rng r = {22};
	int apart = 0, near = 0;
	for (int it = 0; it < 3000; ++it) {
		imp_bvh_obb a, b;
		double reach = it % 3 == 0 ? 4.0 : 1.5;
		random_obb(&r, &a, reach);
		random_obb(&r, &b, reach);
		o3_poly pa, pb;
		obb_poly(&a, &pa);
		obb_poly(&b, &pb);
		double sd = o3_signed_distance(&pa, imp_pose3_identity(), 0.0, &pb, imp_pose3_identity(), 0.0, NULL, NULL, NULL);
		double lb = imp_obb_bound(&a, &b, INFINITY, false), sep = imp_obb_bound(&a, &b, 0.0, true);
		double full = imp_obb_bound(&a, &b, INFINITY, true);
		assert_true(full <= sd + 1e-12);
		assert_true(lb <= sd + 1e-12);
		// Fifteen axes tell any two boxes apart.
		if (sd > 1e-9) {
			assert_true(sep > 0.0);
			++apart;
			near += lb > 0.5 * sd;
		}
		if (sd < -1e-9)
			assert_true(sep <= 0.0);
	}
	assert_true(apart > 500);
	// The bound is no formality: most boxes apart get at least half
	// their distance.
	assert_true(near > apart / 2);
}

/// imp_obb_gap against the oracle: never above the boxes' distance, above
/// the bound only for boxes farther apart than it, and sharper than the
/// axes' bound on boxes askew (it proves most pairs apart that are).
static void test_obb_gap(void **state)
{
	(void)state;
	rng r = {23};
	int apart = 0, proved = 0, needed = 0, sharper = 0;
	for (int it = 0; it < 3000; ++it) {
		imp_bvh_obb a, b;
		random_obb(&r, &a, it % 2 == 0 ? 4.0 : 1.5);
		random_obb(&r, &b, it % 2 == 0 ? 4.0 : 1.5);
		o3_poly pa, pb;
		obb_poly(&a, &pa);
		obb_poly(&b, &pb);
		double sd = o3_signed_distance(&pa, imp_pose3_identity(), 0.0, &pb, imp_pose3_identity(), 0.0, NULL, NULL, NULL);
		double lb = imp_obb_bound(&a, &b, INFINITY, false);
		// Bounds around the distance: below it (nothing provable), just
		// below, and above.
		double f = uniform(&r);
		double bound = sd > 0.0 ? sd * (f < 0.3 ? 0.5 : (f < 0.6 ? 0.999 : 1.5)) : 0.1;
		double g = imp_obb_gap(&a, &b, lb, bound);
		assert_true(g >= lb);
		assert_true(g <= sd + 1e-12);
		if (g > bound)
			assert_true(sd > bound);
		if (sd > 1e-6 && bound < 0.999 * sd + 1e-15) {
			++apart;
			proved += g > bound;
			if (lb <= bound) {
				// The axes could not rule the pair out.
				++needed;
				sharper += g > bound;
			}
		}
	}
	assert_true(apart > 500 && needed > 100);
	assert_true(proved > apart * 9 / 10);
	assert_true(sharper > needed * 9 / 10);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_build_and_query),
		cmocka_unit_test(test_depth_bound),
		cmocka_unit_test(test_pairs_and_nearest),
		cmocka_unit_test(test_out_of_memory),
		cmocka_unit_test(test_obb_fit),
		cmocka_unit_test(test_obb_bound),
		cmocka_unit_test(test_obb_gap),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
