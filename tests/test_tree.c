// SPDX-License-Identifier: MIT
// The broad phase's region queries: the query tree (src/broad/tree.c),
// built top down and then updated by inserts, moves and removes, and the
// hash's and the sweep's own queries (which answer when the tree could not
// be made), all against a plain loop over every box. Random operation
// sequences with fixed seeds, boxes from points to wide ones, in 2D and 3D;
// the tree's invariants (boxes nest, heights, links) after every
// operation; out of memory at the tree's allocations.
#include <float.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#if defined(__SSE2__)
#include <xmmintrin.h>
#endif

#include "broad/broad_internal.h"
#include "counting_alloc.h"

#define MAX_PROXIES 300

static uint64_t rng_next(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static double rng_range(uint64_t *s, double lo, double hi)
{
	return lo + (hi - lo) * (double)(rng_next(s) >> 11) * (1.0 / 9007199254740992.0);
}

static imp_box random_box(uint64_t *s, int dim)
{
	imp_box b;
	memset(&b, 0, sizeof b);
	// Sizes over four orders of magnitude, some points.
	double size = (rng_next(s) % 8 == 0) ? 0.0 : pow(10.0, rng_range(s, -2.0, 1.0));
	for (int k = 0; k < dim; k++) {
		double c = rng_range(s, -20.0, 20.0);
		double h = 0.5 * size * rng_range(s, 0.2, 1.0);
		b.lo[k] = c - h;
		b.hi[k] = c + h;
	}
	return b;
}

/// The broad phase's rule for the wide copy (broad.c, use_wide): made once
/// the tree has gone unchanged for enough queries.
static bool wide_now(imp_tree *t)
{
	if (imp_tree_wide_ready(t))
		return true;
	if (imp_tree_wide_due(t))
		imp_tree_wide_build(t);
	return imp_tree_wide_ready(t);
}

/// imp_tree_query and imp_tree_nearest as the broad phase asks them, each
/// with a scratch of its own (checked to have been enough).
static bool tq(imp_tree *t, const imp_box *box, imp_tree_fn *fn, void *ctx, uint64_t *visits)
{
	imp_tree_scratch s;
	imp_tree_scratch_init(&s, t->alloc);
	bool r = imp_tree_query(t, box, wide_now(t), fn, ctx, &s, visits);
	assert_false(s.oom);
	imp_tree_scratch_free(&s);
	return r;
}

static void tn(imp_tree *t, const imp_box *box, double bound, imp_tree_visit_fn *fn, void *ctx, uint64_t *visits)
{
	imp_tree_scratch s;
	imp_tree_scratch_init(&s, t->alloc);
	imp_tree_nearest(t, box, wide_now(t), bound, fn, ctx, &s, visits);
	assert_false(s.oom);
	imp_tree_scratch_free(&s);
}

typedef struct found {
	int count[MAX_PROXIES];
	int total;
} found;

static bool note(void *ctx, int32_t p)
{
	found *f = ctx;
	assert_true(p >= 0 && p < MAX_PROXIES);
	f->count[p]++;
	f->total++;
	return true;
}

/// note, then stop the query.
static bool note_once(void *ctx, int32_t p)
{
	note(ctx, p);
	return false;
}

/// x rounded to a float down (dir -1) or up (dir 1), none subnormal (x
/// below the least normal float in size goes out to 0 or to that float):
/// as the tree's four-wide copy rounds its boxes' sides.
static float to_float(double x, int dir)
{
	if (fabs(x) < (double)FLT_MIN) {
		if (x == 0.0 || (x < 0.0) != (dir < 0))
			return 0.0f;
		return dir < 0 ? -FLT_MIN : FLT_MIN;
	}
	float f = (float)x;
	if (dir < 0 && (double)f > x)
		f = nextafterf(f, -INFINITY);
	if (dir > 0 && (double)f < x)
		f = nextafterf(f, INFINITY);
	return f;
}

/// Whether box b misses q by no more than the rounding of both to floats
/// (b's outwards, q's to nearest): the boxes a tree query may tell of
/// besides those that overlap.
static bool near_miss(const imp_box *b, const imp_box *q, int dim)
{
	for (int k = 0; k < dim; k++)
		if (to_float(b->lo[k], -1) > (float)q->hi[k] || (float)q->lo[k] > to_float(b->hi[k], 1))
			return false;
	return true;
}

/// Boxes told of that do not overlap the query's, in all the checks.
static long g_near_misses;

/// A query told to stop at its first box: it returns false exactly when
/// it told of one, and it tells of one when some live box overlaps (a
/// near miss otherwise).
static void check_stop(imp_tree *t, const imp_box *boxes, const bool *live, const imp_box *q, int dim)
{
	found f;
	memset(&f, 0, sizeof f);
	uint64_t visits = 0;
	bool any = false;
	for (int p = 0; p < MAX_PROXIES; p++)
		any = any || (live[p] && imp_box_overlap(&boxes[p], q, dim));
	bool done = tq(t, q, note_once, &f, &visits);
	assert_int_equal(done, f.total == 0);
	if (any)
		assert_int_equal(f.total, 1);
	for (int p = 0; p < MAX_PROXIES; p++)
		if (f.count[p] > 0)
			assert_true(live[p] && near_miss(&boxes[p], q, dim));
}

/// The query's answer against the loop over every live box: each
/// overlapping box once, no other.
static void check_answer(const found *f, const imp_box *boxes, const bool *live, const imp_box *q, int dim)
{
	for (int p = 0; p < MAX_PROXIES; p++) {
		bool want = live[p] && imp_box_overlap(&boxes[p], q, dim);
		assert_int_equal(f->count[p], want ? 1 : 0);
	}
}

/// A tree query's answer: each overlapping box once, and no other but
/// near misses, each at most once.
static void check_tree_answer(const found *f, const imp_box *boxes, const bool *live, const imp_box *q, int dim)
{
	for (int p = 0; p < MAX_PROXIES; p++) {
		if (live[p] && imp_box_overlap(&boxes[p], q, dim)) {
			assert_int_equal(f->count[p], 1);
		} else if (f->count[p] != 0) {
			assert_int_equal(f->count[p], 1);
			assert_true(live[p] && near_miss(&boxes[p], q, dim));
			g_near_misses++;
		}
	}
}

static void run_tree(int dim, uint64_t seed)
{
	imp_allocator a = {0};
	imp_tree t;
	imp_tree_init(&t, dim, &a);
	imp_box boxes[MAX_PROXIES];
	bool live[MAX_PROXIES] = {false};
	uint64_t s = seed;
	// A first set built in one go, then random operations.
	int32_t ids[MAX_PROXIES];
	const imp_box *bp[MAX_PROXIES];
	int n = 0;
	for (int p = 0; p < MAX_PROXIES; p += 2) {
		boxes[p] = random_box(&s, dim);
		live[p] = true;
		ids[n] = p;
		bp[n++] = &boxes[p];
	}
	assert_true(imp_tree_build(&t, ids, bp, n, MAX_PROXIES - 2));
	assert_true(imp_tree_valid(&t));
	uint64_t visits = 0;
	for (int op = 0; op < 3000; op++) {
		int p = (int)(rng_next(&s) % MAX_PROXIES);
		int what = (int)(rng_next(&s) % 4);
		if (what == 0 && !live[p]) {
			boxes[p] = random_box(&s, dim);
			assert_true(imp_tree_reserve(&t, p));
			imp_tree_insert(&t, p, &boxes[p]);
			live[p] = true;
		} else if (what == 1 && live[p]) {
			imp_tree_remove(&t, p);
			live[p] = false;
		} else if (what == 2 && live[p]) {
			// Small moves mostly, some jumps.
			if (rng_next(&s) % 4 == 0) {
				boxes[p] = random_box(&s, dim);
			} else {
				double d = rng_range(&s, -0.5, 0.5);
				for (int k = 0; k < dim; k++) {
					boxes[p].lo[k] += d;
					boxes[p].hi[k] += d;
				}
			}
			imp_tree_move(&t, p, &boxes[p]);
		} else {
			imp_box q = random_box(&s, dim);
			found f;
			memset(&f, 0, sizeof f);
			assert_true(tq(&t, &q, note, &f, &visits));
			check_tree_answer(&f, boxes, live, &q, dim);
			check_stop(&t, boxes, live, &q, dim);
		}
		if (op % 500 == 250) {
			// A burst of queries on a tree that does not change: past the
			// first few they go through the tree's four-wide copy, which
			// the next change must retire.
			for (int k = 0; k < 120; k++) {
				imp_box q = random_box(&s, dim);
				if (k % 40 == 39) {
					// All of space: every box, and no empty lane of the
					// copy (whose box [+inf, -inf] meets this one's sides).
					for (int a = 0; a < dim; a++) {
						q.lo[a] = -INFINITY;
						q.hi[a] = INFINITY;
					}
				}
				found f;
				memset(&f, 0, sizeof f);
				assert_true(tq(&t, &q, note, &f, &visits));
				check_tree_answer(&f, boxes, live, &q, dim);
				check_stop(&t, boxes, live, &q, dim);
			}
			assert_true(t.wide_ok || t.root < 0);
		}
		assert_true(imp_tree_valid(&t));
	}
	// Removing a proxy twice, or one never stored, changes nothing.
	imp_tree_remove(&t, MAX_PROXIES + 5);
	for (int p = 0; p < MAX_PROXIES; p++)
		if (live[p]) {
			imp_tree_remove(&t, p);
			imp_tree_remove(&t, p);
		}
	assert_true(imp_tree_valid(&t));
	assert_int_equal(imp_tree_height(&t), 0);
	imp_tree_free(&t);
}

static void test_tree_2d(void **state)
{
	(void)state;
	run_tree(2, 0x7001);
	run_tree(2, 0x7002);
}

static void test_tree_3d(void **state)
{
	(void)state;
	run_tree(3, 0x7101);
	run_tree(3, 0x7102);
}

/// A tree built in one go over boxes[0 .. MAX_PROXIES), proxy p's box p.
static void build_all(imp_tree *t, int dim, const imp_allocator *a, const imp_box *boxes)
{
	static int32_t ids[MAX_PROXIES];
	static const imp_box *bp[MAX_PROXIES];
	for (int p = 0; p < MAX_PROXIES; p++) {
		ids[p] = p;
		bp[p] = &boxes[p];
	}
	imp_tree_init(t, dim, a);
	assert_true(imp_tree_build(t, ids, bp, MAX_PROXIES, MAX_PROXIES - 1));
}

/// Boxes whose sides floats cannot hold: near 1, far out (1e6, 1e30),
/// beyond float's range (1e39, 1e300), and where floats are subnormal or
/// zero (1e-40, 1e-300), on both sides of 0. Queries touch a box exactly
/// (their low side on its high side, or their high side on its low
/// side), or miss it by one double ulp, and
/// run in bursts on an unchanged tree so that the four-wide copy answers
/// where floats hold the boxes well: no overlapping box is missed, and the
/// one-ulp misses come back as near misses at the scales where floats
/// cannot tell them apart.
static void test_tree_float_edges(void **state)
{
	(void)state;
	const double scales[] = {1.0, 1e6, 1e30, 1e39, 1e300, 1e-40, 1e-300};
	imp_allocator a = {0};
	static imp_box boxes[MAX_PROXIES];
	bool live[MAX_PROXIES];
	uint64_t s = 0x7701;
	long before = g_near_misses;
	for (int dim = 2; dim <= 3; dim++)
		for (size_t si = 0; si < sizeof scales / sizeof scales[0]; si++) {
			double sc = scales[si];
			for (int p = 0; p < MAX_PROXIES; p++) {
				memset(&boxes[p], 0, sizeof boxes[p]);
				for (int k = 0; k < dim; k++) {
					double side = (k + p) % 2 ? -1.0 : 1.0;
					double lo = side * sc * (1.0 + (double)(p % 17) / 3.0 + (double)k / 7.0);
					boxes[p].lo[k] = lo;
					boxes[p].hi[k] = lo + sc * rng_range(&s, 0.01, 0.5) / 3.0;
				}
				live[p] = true;
			}
			imp_tree t;
			build_all(&t, dim, &a, boxes);
			uint64_t visits = 0;
			for (int i = 0; i < 300; i++) {
				const imp_box *b = &boxes[rng_next(&s) % MAX_PROXIES];
				int axis = (int)(rng_next(&s) % (uint64_t)dim);
				imp_box q = *b;
				double w = q.hi[axis] - q.lo[axis];
				if (i % 4 < 2) {
					// Beyond the high side: touching, or one ulp off.
					q.lo[axis] = i % 2 ? b->hi[axis] : nextafter(b->hi[axis], INFINITY);
					q.hi[axis] = q.lo[axis] + w;
				} else {
					// Before the low side.
					q.hi[axis] = i % 2 ? b->lo[axis] : nextafter(b->lo[axis], -INFINITY);
					q.lo[axis] = q.hi[axis] - w;
				}
				found f;
				memset(&f, 0, sizeof f);
				assert_true(tq(&t, &q, note, &f, &visits));
				check_tree_answer(&f, boxes, live, &q, dim);
				check_stop(&t, boxes, live, &q, dim);
			}
			// Floats hold these boxes well near 1 and far out; beyond
			// float's range, and where floats are subnormal, the copy is
			// refused and the binary tree answers.
			assert_int_equal(t.wide_ok, sc >= 1.0 && sc <= 1e30);
			assert_int_equal(t.wide_refused, !t.wide_ok);
			imp_tree_free(&t);
		}
	assert_true(g_near_misses > before);
}

/// A nearest search's record: how often each proxy was told of, and the
/// least bound among them (the search's bound lowered to it when `lower`).
typedef struct near_found {
	found f;
	const imp_box *boxes;
	const imp_box *q;
	int dim;
	bool lower;
	double best;
	int32_t best_proxy;
} near_found;

static double near_note(void *ctx, int32_t p, double bound)
{
	near_found *n = ctx;
	note(&n->f, p);
	double b = imp_box_bound(&n->boxes[p], n->q, n->dim);
	if (b < n->best || (b == n->best && p < n->best_proxy)) {
		n->best = b;
		n->best_proxy = p;
	}
	// Lowered as the world does: widened a little past the bound found, so
	// that a box at the same bound is still looked at.
	return n->lower ? fmin(bound, b + 1e-9 * fabs(b)) : bound;
}

/// Box b with its sides rounded to floats outwards: the four-wide copy's.
static imp_box box_in_floats(const imp_box *b)
{
	imp_box r = *b;
	for (int k = 0; k < 3; k++) {
		r.lo[k] = to_float(b->lo[k], -1);
		r.hi[k] = to_float(b->hi[k], 1);
	}
	return r;
}

/// One nearest query on a tree over boxes[0 .. MAX_PROXIES), against the
/// loop over every box: with the bound fixed, every box whose key is
/// within it told of once, and no other but float-rounded near misses;
/// with the bound lowered as boxes come, the least bound, at the lowest
/// proxy among equals.
static void check_nearest(imp_tree *t, const imp_box *boxes, const imp_box *q, double bound, int dim)
{
	uint64_t visits = 0;
	near_found n;
	memset(&n, 0, sizeof n);
	n.boxes = boxes;
	n.q = q;
	n.dim = dim;
	n.best = INFINITY;
	n.best_proxy = -1;
	tn(t, q, bound, near_note, &n, &visits);
	double bkey = bound * fabs(bound);
	for (int p = 0; p < MAX_PROXIES; p++) {
		if (imp_box_key(&boxes[p], q, dim) <= bkey) {
			assert_int_equal(n.f.count[p], 1);
		} else if (n.f.count[p] != 0) {
			assert_int_equal(n.f.count[p], 1);
			imp_box r = box_in_floats(&boxes[p]);
			assert_true(imp_box_key(&r, q, dim) <= bkey);
		}
	}
	double best = INFINITY;
	int32_t best_proxy = -1;
	for (int p = 0; p < MAX_PROXIES; p++) {
		double b = imp_box_bound(&boxes[p], q, dim);
		if (b < best) {
			best = b;
			best_proxy = p;
		}
	}
	memset(&n.f, 0, sizeof n.f);
	n.lower = true;
	n.best = INFINITY;
	n.best_proxy = -1;
	tn(t, q, INFINITY, near_note, &n, &visits);
	assert_true(n.best == best);
	assert_int_equal(n.best_proxy, best_proxy);
}

/// imp_tree_nearest against the loop over every box, in runs of queries
/// on an unchanged tree (so that the four-wide copy answers past the first
/// few) broken by moves (which retire it). With a fixed bound: every box
/// whose key (imp_box_key) is within the bound's is told of once, and no
/// box but those whose float-rounded box is within it. With the bound
/// lowered to the boxes' bounds as they come: the least bound of all, at
/// the lowest proxy among equals. Queries lie exactly on a box's side, or
/// at a gap along one axis that the bound equals, where a key computed a
/// little too large would drop the box.
static void run_nearest(int dim, uint64_t seed)
{
	imp_allocator a = {0};
	static imp_box boxes[MAX_PROXIES];
	uint64_t s = seed;
	for (int p = 0; p < MAX_PROXIES; p++) {
		// Some boxes twice, in different proxies.
		boxes[p] = p % 10 == 9 ? boxes[p - 1] : random_box(&s, dim);
	}
	imp_tree t;
	build_all(&t, dim, &a, boxes);
	for (int i = 0; i < 400; i++) {
		if (i % 100 == 99) {
			int p = (int)(rng_next(&s) % MAX_PROXIES);
			boxes[p] = random_box(&s, dim);
			imp_tree_move(&t, p, &boxes[p]);
		}
		imp_box q = random_box(&s, dim);
		double bound;
		int mode = i % 4;
		if (mode == 0) {
			bound = INFINITY;
		} else {
			// Beside box p along one axis, at a gap (mode 1), touching
			// (mode 2), or overlapping (mode 3); the bound is p's own.
			const imp_box *b = &boxes[rng_next(&s) % MAX_PROXIES];
			int axis = (int)(rng_next(&s) % (uint64_t)dim);
			for (int k = 0; k < dim; k++) {
				double c = 0.5 * (b->lo[k] + b->hi[k]), h = 0.5 * (q.hi[k] - q.lo[k]);
				q.lo[k] = c - h;
				q.hi[k] = c + h;
			}
			double w = q.hi[axis] - q.lo[axis];
			q.lo[axis] = mode == 1 ? b->hi[axis] + 0.25 : mode == 2 ? b->hi[axis] : b->hi[axis] - 0.5 * w;
			q.hi[axis] = q.lo[axis] + w;
			bound = imp_box_bound(b, &q, dim);
		}
		check_nearest(&t, boxes, &q, bound, dim);
		if (i % 100 == 60)
			assert_true(t.wide_ok);
	}
	imp_tree_free(&t);
}

static void test_tree_nearest(void **state)
{
	(void)state;
	run_nearest(2, 0x7801);
	run_nearest(3, 0x7802);
	run_nearest(3, 0x7803);
}

/// A coordinate near 1, or (a third of the time) one that is subnormal as
/// a float (1e-45 to 1e-38), of either sign.
static double maybe_tiny(uint64_t *s)
{
	double x = rng_range(s, -1.0, 1.0);
	if (rng_next(s) % 3 == 0)
		x = (x < 0.0 ? -1.0 : 1.0) * pow(10.0, rng_range(s, -45.0, -38.0));
	return x;
}

/// Boxes and queries whose sides are often subnormal as floats, queried
/// through the four-wide copy with the processor reading subnormals as
/// zero and flushing them (DAZ and FTZ, where SSE has them), and without:
/// region queries find every box that overlaps, nearest every box within
/// its bound. (The copy keeps no subnormal float: a side of -1e-39 read
/// as 0 would have moved inwards.)
static void test_tree_subnormal_floats(void **state)
{
	(void)state;
	imp_allocator a = {0};
	static imp_box boxes[MAX_PROXIES];
	bool live[MAX_PROXIES];
	uint64_t s = 0x7901;
	for (int daz = 0; daz < 2; daz++)
		for (int dim = 2; dim <= 3; dim++) {
			for (int p = 0; p < MAX_PROXIES; p++) {
				memset(&boxes[p], 0, sizeof boxes[p]);
				for (int k = 0; k < dim; k++) {
					double x = maybe_tiny(&s), y = maybe_tiny(&s);
					boxes[p].lo[k] = fmin(x, y);
					boxes[p].hi[k] = fmax(x, y);
				}
				live[p] = true;
			}
			imp_tree t;
			build_all(&t, dim, &a, boxes);
#if defined(__SSE2__)
			unsigned csr = _mm_getcsr();
			if (daz)
				_mm_setcsr(csr | 0x8040u); // FTZ | DAZ
#endif
			uint64_t visits = 0;
			for (int i = 0; i < 200; i++) {
				imp_box q;
				memset(&q, 0, sizeof q);
				for (int k = 0; k < dim; k++) {
					double x = maybe_tiny(&s), y = maybe_tiny(&s);
					q.lo[k] = fmin(x, y);
					q.hi[k] = fmax(x, y);
				}
				found f;
				memset(&f, 0, sizeof f);
				assert_true(tq(&t, &q, note, &f, &visits));
				check_tree_answer(&f, boxes, live, &q, dim);
				check_nearest(&t, boxes, &q, i % 2 ? 0.0 : 1e-39, dim);
			}
#if defined(__SSE2__)
			_mm_setcsr(csr);
#endif
			assert_true(t.wide_ok);
			imp_tree_free(&t);
		}
}

/// The built tree is balanced: its height is the least a binary tree of
/// its leaves can have.
static void test_tree_build_height(void **state)
{
	(void)state;
	imp_allocator a = {0};
	static imp_box boxes[1000];
	int32_t ids[1000];
	const imp_box *bp[1000];
	uint64_t s = 0x7201;
	for (int n = 1; n <= 1000; n = n * 3 + 1) {
		for (int i = 0; i < n; i++) {
			boxes[i] = random_box(&s, 3);
			ids[i] = i;
			bp[i] = &boxes[i];
		}
		imp_tree t;
		imp_tree_init(&t, 3, &a);
		assert_true(imp_tree_build(&t, ids, bp, n, n - 1));
		assert_true(imp_tree_valid(&t));
		int h = 0;
		while ((1 << h) < n)
			h++;
		assert_int_equal(imp_tree_height(&t), h);
		imp_tree_free(&t);
	}
}

/// Out of memory at every allocation of a build and of a reserve: false,
/// and the tree empty (build) or unchanged (reserve), nothing leaked.
/// Counts each proxy a nearest query tells of, and checks that they come
/// in increasing order of their key.
typedef struct queue_count {
	const imp_box *boxes;
	imp_box q;
	int dim;
	int told[4000];
	int total;
	double last;
} queue_count;

static double queue_note(void *ctx, int32_t p, double bound)
{
	queue_count *c = ctx;
	double key = imp_box_key(&c->boxes[p], &c->q, c->dim);
	assert_true(key >= c->last * (1.0 - 0x1p-20));
	c->last = key;
	c->told[p]++;
	c->total++;
	return bound;
}

/// A nearest query whose best-first queue outgrows the room on the
/// caller's stack (IMP_TREE_HEAP_LOCAL): 4000 boxes on a sphere about the
/// query, all within an infinite bound, so that the queue holds most of the
/// tree's nodes at once. Every box is told of once, in order; and when the
/// queue cannot grow, the walk stops with oom set, having told of each box
/// at most once.
static void test_tree_nearest_big_queue(void **state)
{
	(void)state;
	enum { N = 4000 };
	static imp_box boxes[N];
	static int32_t ids[N];
	static const imp_box *bp[N];
	uint64_t s = 0x7a01;
	for (int dim = 2; dim <= 3; dim++) {
		for (int i = 0; i < N; i++) {
			double u[3] = {rng_range(&s, -1, 1), rng_range(&s, -1, 1), dim == 3 ? rng_range(&s, -1, 1) : 0.0};
			double n = sqrt(u[0] * u[0] + u[1] * u[1] + u[2] * u[2]) + 1e-300;
			memset(&boxes[i], 0, sizeof boxes[i]);
			for (int k = 0; k < dim; k++) {
				boxes[i].lo[k] = 50.0 * u[k] / n - 0.1;
				boxes[i].hi[k] = 50.0 * u[k] / n + 0.1;
			}
			ids[i] = i;
			bp[i] = &boxes[i];
		}
		for (int wide = 0; wide < 2; wide++) {
			for (int fail = 0; fail < 2; fail++) {
				counting c = {.fail_at = -1};
				imp_allocator a = counting_allocator(&c);
				imp_tree t;
				imp_tree_init(&t, dim, &a);
				assert_true(imp_tree_build(&t, ids, bp, N, N - 1));
				if (wide)
					imp_tree_wide_build(&t);
				bool w = wide && imp_tree_wide_ready(&t);
				assert_true(w == (wide != 0));
				static queue_count qc;
				memset(&qc, 0, sizeof qc);
				qc.boxes = boxes;
				qc.dim = dim;
				qc.last = -INFINITY;
				imp_tree_scratch sc;
				imp_tree_scratch_init(&sc, &a);
				long calls = c.calls;
				if (fail)
					c.fail_at = c.calls + 1;
				uint64_t visits = 0;
				imp_tree_nearest(&t, &qc.q, w, INFINITY, queue_note, &qc, &sc, &visits);
				c.fail_at = -1;
				assert_true(c.calls > calls); // the queue grew, or tried to
				assert_int_equal(sc.oom, fail != 0);
				if (!fail)
					assert_int_equal(qc.total, N);
				else
					assert_true(qc.total < N);
				for (int i = 0; i < N; i++)
					assert_true(qc.told[i] == (fail ? qc.told[i] != 0 : 1));
				imp_tree_scratch_free(&sc);
				imp_tree_free(&t);
				assert_int_equal(c.live, 0);
			}
		}
	}
}

static void test_tree_oom(void **state)
{
	(void)state;
	static imp_box boxes[200];
	int32_t ids[200];
	const imp_box *bp[200];
	uint64_t s = 0x7301;
	for (int i = 0; i < 200; i++) {
		boxes[i] = random_box(&s, 2);
		ids[i] = i;
		bp[i] = &boxes[i];
	}
	for (int k = 1; k < 12; k++) {
		counting c = {.fail_at = -1};
		imp_allocator a = counting_allocator(&c);
		imp_tree t;
		imp_tree_init(&t, 2, &a);
		c.fail_at = c.calls + k;
		bool built = imp_tree_build(&t, ids, bp, 100, 99);
		assert_true(imp_tree_valid(&t));
		if (!built)
			assert_int_equal(imp_tree_height(&t), 0);
		for (int i = 100; i < 200; i++) {
			c.fail_at = c.calls + 1;
			if (imp_tree_reserve(&t, i))
				imp_tree_insert(&t, i, &boxes[i]);
			assert_true(imp_tree_valid(&t));
		}
		c.fail_at = -1;
		imp_tree_free(&t);
		assert_int_equal(c.live, 0);
		assert_false(c.size_mismatch);
	}
}

/// The hash's and the sweep's own queries, and the broad phase's (through
/// the tree), against the loop: through the broad phase's interface, with
/// moves and removes between queries.
static void ignore_pair(void *ctx, int32_t p, int32_t q, bool added)
{
	(void)ctx;
	(void)p;
	(void)q;
	(void)added;
}

static void run_kind(imp_broad_kind kind, int dim, uint64_t seed)
{
	imp_allocator a = {0};
	imp_broad_def def = {kind, dim, 0.5, 1.0, &a, ignore_pair, NULL};
	imp_broad *b = NULL;
	assert_int_equal(imp_broad_create(&def, &b), IMP_OK);
	imp_box boxes[MAX_PROXIES];
	bool live[MAX_PROXIES] = {false};
	uint64_t s = seed;
	for (int p = 0; p < MAX_PROXIES; p += 3) {
		boxes[p] = random_box(&s, dim);
		live[p] = true;
		assert_int_equal(imp_broad_insert(b, p, &boxes[p], p % 2 == 0), IMP_OK);
	}
	imp_broad_flush(b);
	for (int op = 0; op < 600; op++) {
		int p = (int)(rng_next(&s) % MAX_PROXIES);
		int what = (int)(rng_next(&s) % 4);
		if (what == 0 && !live[p]) {
			boxes[p] = random_box(&s, dim);
			assert_int_equal(imp_broad_insert(b, p, &boxes[p], false), IMP_OK);
			live[p] = true;
			if (rng_next(&s) % 2)
				imp_broad_flush(b); // sometimes not: the sweep's fresh proxies are queried too
		} else if (what == 1 && live[p]) {
			imp_broad_remove(b, p);
			live[p] = false;
		} else if (what == 2 && live[p]) {
			boxes[p] = random_box(&s, dim);
			assert_int_equal(imp_broad_move(b, p, &boxes[p]), IMP_OK);
		} else {
			imp_box q = random_box(&s, dim);
			found f;
			memset(&f, 0, sizeof f);
			if (kind == IMP_BROAD_HASH)
				assert_true(imp_hash_query(b, &q, note, &f));
			else if (kind == IMP_BROAD_SWEEP)
				assert_true(imp_sweep_query(b, &q, note, &f));
			else
				assert_true(imp_broad_query_all(b, &q, note, &f));
			check_answer(&f, boxes, live, &q, dim);
			memset(&f, 0, sizeof f);
			imp_tree_scratch ts;
			imp_tree_scratch_init(&ts, b->alloc);
			assert_true(imp_broad_query(b, &q, note, &f, &ts));
			imp_tree_scratch_free(&ts);
			check_tree_answer(&f, boxes, live, &q, dim);
			assert_true(imp_tree_valid(&b->tree));
		}
	}
	imp_broad_destroy(b);
}

static void test_broad_queries(void **state)
{
	(void)state;
	for (int dim = 2; dim <= 3; dim++) {
		run_kind(IMP_BROAD_HASH, dim, 0x7401 + (uint64_t)dim);
		run_kind(IMP_BROAD_SWEEP, dim, 0x7501 + (uint64_t)dim);
		run_kind(IMP_BROAD_NAIVE, dim, 0x7601 + (uint64_t)dim);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tree_2d),		  cmocka_unit_test(test_tree_3d),
		cmocka_unit_test(test_tree_build_height), cmocka_unit_test(test_tree_oom),
					   cmocka_unit_test(test_tree_nearest_big_queue),
		cmocka_unit_test(test_broad_queries),	  cmocka_unit_test(test_tree_float_edges),
		cmocka_unit_test(test_tree_nearest),	  cmocka_unit_test(test_tree_subnormal_floats),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
