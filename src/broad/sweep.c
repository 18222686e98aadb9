// SPDX-License-Identifier: MIT
// Sort-and-sweep (I-Collide; Mirtich 1998, §2.3): the boxes' end-points
// kept sorted along each axis. A moved box's end-points are moved to their
// places by insertion (coherence: a few exchanges each). An exchange of a
// box's min with another's max starts or ends their overlap on that axis:
//   a min passing below a max, or a max above a min: they may now overlap;
//     reported added if they overlap on the other axes;
//   a max passing below a min, or a min above a max: they stop overlapping;
//     reported removed if they still overlap on the other axes.
// The other axes are read from the end-points' places (Bullet's test), not
// the values: one small array. A box's axes are sorted in turn, so an axis
// after the current one still holds its old place; the last report of a
// pair in one move is its state after the move all the same (an overlap
// that the old place gives and the new one takes away is reported removed
// when that axis is sorted). A pair with no exchange kept its state on
// every axis.
//
// At equal values a min sorts before a max, so boxes that touch overlap.
#include <assert.h>
#include <math.h>
#include <string.h>

#include "broad/broad_internal.h"
#include "core/inline.h"
#include "core/sort.h"

typedef struct endpoint {
	double v;
	int32_t id; ///< proxy * 2 + (1 for a max), -1 for a removed proxy's, -2 for a sentinel
} endpoint;

#define SENTINEL (-2)

typedef struct sweep {
	endpoint *ep[3];  ///< ep[k][-1] is -inf and ep[k][count] +inf: insertions stop on them
	                  ///< without testing the index (ep_cap + 2 entries allocated)
	int32_t count;    ///< end-points per axis, dead ones included
	int32_t ep_cap[3];
	int32_t *pos;     ///< per end-point id (proxy * 2 + max), per axis: index in ep[axis], -1 if not stored
	int32_t pos_cap;  ///< proxies
	int32_t dead;     ///< dead end-points per axis
	int32_t *fresh;   ///< proxies inserted since the last flush (not yet in ep)
	int32_t fresh_count, fresh_cap;
	endpoint *buf;    ///< merge room: 2 * fresh_cap end-points
	int32_t buf_cap;
	int32_t *open[2]; ///< the flush's sweep: open intervals, old [0] and fresh [1]
	int32_t open_cap[2];
	int32_t *slot;    ///< per proxy: its index in fresh while fresh, in its open list during a flush
	uint8_t *mark;    ///< per proxy: 1 while fresh
	int32_t slot_cap, mark_cap;
	double width;     ///< at least the widest stored box along x (queries start that far back)
} sweep;

static inline bool ep_less(endpoint a, endpoint b)
{
	return a.v < b.v || (a.v == b.v && (a.id & 1) < (b.id & 1));
}

static inline int32_t *pos_of(sweep *sw, int32_t p, int k, int is_max)
{
	return &sw->pos[(p * 2 + is_max) * 3 + k];
}

imp_status imp_sweep_create(imp_broad *b)
{
	sweep *sw = imp_alloc(b->alloc, sizeof *sw);
	if (sw == NULL)
		return IMP_ERR_OUT_OF_MEMORY;
	memset(sw, 0, sizeof *sw);
	b->impl = sw;
	return IMP_OK;
}

void imp_sweep_destroy(imp_broad *b)
{
	sweep *sw = b->impl;
	for (int k = 0; k < 3; k++)
		if (sw->ep[k] != NULL)
			imp_free(b->alloc, sw->ep[k] - 1, (size_t)(sw->ep_cap[k] + 2) * sizeof(endpoint));
	imp_free(b->alloc, sw->pos, (size_t)sw->pos_cap * 6 * sizeof(int32_t));
	imp_free(b->alloc, sw->fresh, (size_t)sw->fresh_cap * sizeof *sw->fresh);
	imp_free(b->alloc, sw->buf, (size_t)sw->buf_cap * sizeof *sw->buf);
	for (int k = 0; k < 2; k++)
		imp_free(b->alloc, sw->open[k], (size_t)sw->open_cap[k] * sizeof *sw->open[k]);
	imp_free(b->alloc, sw->slot, (size_t)sw->slot_cap * sizeof *sw->slot);
	imp_free(b->alloc, sw->mark, (size_t)sw->mark_cap);
	imp_free(b->alloc, sw, sizeof *sw);
}

/// Whether p and q overlap on every axis but k, read from the end-points'
/// places (at equal values a min is placed first, so places order as the
/// values do). Axes sorted before k in this move are at their new places,
/// those after at their old: a pair that overlapped before the move and
/// first parts on axis k passes, so the test never hides an end.
static inline bool overlap_axis(const int32_t *a, const int32_t *c, int j)
{
	// Two different end-points never share a place.
	return (a[j] < c[3 + j]) & (c[j] < a[3 + j]);
}

static inline bool overlap_others(const sweep *sw, int dim, int k, int32_t p, int32_t q)
{
	const int32_t *a = &sw->pos[p * 6], *c = &sw->pos[q * 6];
	if (dim == 2)
		return overlap_axis(a, c, 1 - k);
	return ((int)overlap_axis(a, c, k == 0 ? 1 : 0) & (int)overlap_axis(a, c, k == 2 ? 1 : 2)) != 0; // both, without a branch
}

/// One insertion of one of p's end-points on axis k, with what its
/// exchanges read kept in locals: p's places on the other two axes (they do
/// not change while axis k is sorted) and their offsets, so that testing
/// another box q reads only q's four places. In 2D the one other axis is
/// tested twice.
typedef struct mover {
	imp_broad *b;
	const int32_t *pos;
	int32_t p;
	bool p_static;     ///< p is static: a static q is not its pair
	int o1, o2;        ///< the other axes
	int32_t lo1, hi1, lo2, hi2; ///< p's places there
	uint64_t tests;
} mover;

static mover mover_make(imp_broad *b, int k, int32_t p)
{
	const sweep *sw = b->impl;
	int j1 = b->dim == 2 ? 1 - k : k == 0 ? 1 : 0;
	int j2 = b->dim == 2 ? j1 : k == 2 ? 1 : 2;
	const int32_t *a = &sw->pos[p * 6];
	mover m = {b, sw->pos, p, b->proxy[p].state == PROXY_STATIC, j1, j2, a[j1], a[3 + j1], a[j2], a[3 + j2], 0};
	return m;
}

/// Whether p and q overlap on the other axes, read from the end-points'
/// places (two different end-points never share a place). Axes sorted
/// before k in this move are at their new places, those after at their
/// old: a pair that overlapped before the move and first parts on axis k
/// passes, so the test never hides an end.
IMP_ALWAYS_INLINE bool mover_overlaps(const mover *m, int32_t q)
{
	const int32_t *c = m->pos + q * 6;
	return (m->lo1 < c[3 + m->o1]) & (c[m->o1] < m->hi1) & (m->lo2 < c[3 + m->o2]) & (c[m->o2] < m->hi2);
}

/// The overlap of p and q may have begun on axis k: reported if they
/// overlap on the others. An axis after k still holds p's old place: if p
/// leaves q there, that axis's sort reports the end, and the last report
/// stands.
IMP_ALWAYS_INLINE void may_begin(mover *m, int32_t q)
{
	if (m->p_static && m->b->proxy[q].state == PROXY_STATIC)
		return;
	m->tests++;
	if (mover_overlaps(m, q))
		m->b->fn(m->b->ctx, m->p, q, true);
}

/// The overlap of p and q ended on axis k: reported only if they still
/// overlap on the others (else it ended before, or never was).
IMP_ALWAYS_INLINE void ended(mover *m, int32_t q)
{
	if (!(m->p_static && m->b->proxy[q].state == PROXY_STATIC) && mover_overlaps(m, q))
		m->b->fn(m->b->ctx, m->p, q, false);
}

// The insertions keep what the loop reads in locals (the places of axis k
// as one pointer, the count of exchanges), so that the rare report through
// the callback does not make the compiler reload them every exchange.

static void sort_down(imp_broad *b, int k, int32_t i)
{
	sweep *sw = b->impl;
	endpoint *a = sw->ep[k];
	int32_t *place = sw->pos + k; ///< place[id * 3]: the place of end-point id on axis k
	endpoint e = a[i];
	int e_max = e.id & 1;
	mover m = mover_make(b, k, e.id >> 1);
	int32_t start = i;
	while (ep_less(e, a[i - 1])) {
		endpoint f = a[i - 1];
		int f_max = f.id & 1;
		if (e_max != f_max) {
			if (e_max)
				ended(&m, f.id >> 1);
			else
				may_begin(&m, f.id >> 1);
		}
		a[i] = f;
		place[f.id * 3] = i;
		i--;
	}
	a[i] = e;
	place[e.id * 3] = i;
	b->counters.swaps += (uint64_t)(start - i);
	b->counters.box_tests += m.tests;
}

static void sort_up(imp_broad *b, int k, int32_t i)
{
	sweep *sw = b->impl;
	endpoint *a = sw->ep[k];
	int32_t *place = sw->pos + k;
	endpoint e = a[i];
	int e_max = e.id & 1;
	mover m = mover_make(b, k, e.id >> 1);
	int32_t start = i;
	while (ep_less(a[i + 1], e)) {
		endpoint f = a[i + 1];
		int f_max = f.id & 1;
		if (e_max != f_max) {
			if (e_max)
				may_begin(&m, f.id >> 1);
			else
				ended(&m, f.id >> 1);
		}
		a[i] = f;
		place[f.id * 3] = i;
		i++;
	}
	a[i] = e;
	place[e.id * 3] = i;
	b->counters.swaps += (uint64_t)(i - start);
	b->counters.box_tests += m.tests;
}

static void sort_endpoint(imp_broad *b, int k, int32_t i)
{
	const endpoint *a = ((sweep *)b->impl)->ep[k];
	if (ep_less(a[i], a[i - 1]))
		sort_down(b, k, i);
	else
		sort_up(b, k, i);
}

/// Puts the sentinels around each axis's end-points.
static void seal(sweep *sw, int dim)
{
	for (int k = 0; k < dim; k++) {
		sw->ep[k][-1] = (endpoint){-INFINITY, SENTINEL};
		sw->ep[k][sw->count] = (endpoint){INFINITY, SENTINEL};
	}
}

/// Room for `need` end-points on axis k (doubling, from 16), the sentinels
/// in place; false when out of memory, the axis as it was.
static bool ep_reserve(imp_broad *b, sweep *sw, int k, int32_t need)
{
	if (need <= sw->ep_cap[k])
		return true;
	int64_t n = sw->ep_cap[k] > 0 ? sw->ep_cap[k] : 16;
	while (n < need)
		n *= 2;
	if (n > INT32_MAX - 2)
		return false;
	endpoint *block = sw->ep[k] != NULL ? sw->ep[k] - 1 : NULL;
	size_t old = sw->ep[k] != NULL ? (size_t)(sw->ep_cap[k] + 2) * sizeof(endpoint) : 0;
	endpoint *nb = imp_realloc(b->alloc, block, old, (size_t)(n + 2) * sizeof(endpoint));
	if (nb == NULL)
		return false;
	sw->ep[k] = nb + 1;
	sw->ep_cap[k] = (int32_t)n;
	sw->ep[k][-1] = (endpoint){-INFINITY, SENTINEL};
	sw->ep[k][sw->count] = (endpoint){INFINITY, SENTINEL};
	return true;
}

/// Drops the dead end-points of removed proxies, in one pass per axis.
static double box_width(const imp_broad *b, int32_t p)
{
	return b->proxy[p].box.hi[0] - b->proxy[p].box.lo[0];
}

static void compact(imp_broad *b)
{
	sweep *sw = b->impl;
	int32_t n = 0;
	for (int k = 0; k < b->dim; k++) {
		endpoint *a = sw->ep[k];
		n = 0;
		for (int32_t i = 0; i < sw->count; i++) {
			if (a[i].id < 0)
				continue;
			a[n] = a[i];
			*pos_of(sw, a[i].id >> 1, k, a[i].id & 1) = n;
			n++;
		}
	}
	sw->count = n;
	sw->dead = 0;
	seal(sw, b->dim);
	sw->width = 0.0;
	for (int32_t i = 0; i < n; i++)
		if ((sw->ep[0][i].id & 1) == 0)
			sw->width = fmax(sw->width, box_width(b, sw->ep[0][i].id >> 1));
}

/// Inserting is deferred to the next flush, which merges all the new
/// end-points at once: n inserts then cost one sort of theirs and one pass
/// over the axes, not n insertion sorts from the end of the arrays. Every
/// allocation happens here, so that the flush cannot fail.
imp_status imp_sweep_insert(imp_broad *b, int32_t p)
{
	sweep *sw = b->impl;
	if (p >= sw->pos_cap) {
		int32_t old = sw->pos_cap;
		int32_t need = p + 1;
		int64_t n = old > 0 ? old : 16;
		while (n < need)
			n *= 2;
		void *np = imp_realloc(b->alloc, sw->pos, (size_t)old * 6 * sizeof(int32_t), (size_t)n * 6 * sizeof(int32_t));
		if (np == NULL)
			return IMP_ERR_OUT_OF_MEMORY;
		sw->pos = np;
		sw->pos_cap = (int32_t)n;
		memset(sw->pos + (size_t)old * 6, 0xff, (size_t)(n - old) * 6 * sizeof(int32_t));
	}
	int32_t stored = (sw->count - sw->dead) / 2 + sw->fresh_count + 1;
	int32_t mark_old = sw->mark_cap;
	for (int k = 0; k < b->dim; k++)
		if (!ep_reserve(b, sw, k, sw->count + 2 * sw->fresh_count + 2))
			return IMP_ERR_OUT_OF_MEMORY;
	if (!imp_grow(b->alloc, (void **)&sw->fresh, &sw->fresh_cap, sw->fresh_count + 1, sizeof *sw->fresh) ||
	    !imp_grow(b->alloc, (void **)&sw->buf, &sw->buf_cap, 2 * sw->fresh_count + 2, sizeof *sw->buf) ||
	    !imp_grow(b->alloc, (void **)&sw->open[0], &sw->open_cap[0], stored, sizeof *sw->open[0]) ||
	    !imp_grow(b->alloc, (void **)&sw->open[1], &sw->open_cap[1], sw->fresh_count + 1, sizeof *sw->open[1]) ||
	    !imp_grow(b->alloc, (void **)&sw->slot, &sw->slot_cap, b->cap, sizeof *sw->slot) ||
	    !imp_grow(b->alloc, (void **)&sw->mark, &sw->mark_cap, b->cap, 1))
		return IMP_ERR_OUT_OF_MEMORY;
	memset(sw->mark + mark_old, 0, (size_t)(sw->mark_cap - mark_old));
	for (int k = 0; k < 6; k++)
		sw->pos[p * 6 + k] = -1;
	sw->mark[p] = 1;
	sw->slot[p] = sw->fresh_count;
	sw->fresh[sw->fresh_count++] = p;
	return IMP_OK;
}

/// End-points in order, ties (equal value and kind) by id so that the
/// order is the same whatever the insertion order.
#define EP_ORDER(x, y) (ep_less(x, y) || (!ep_less(y, x) && (x).id < (y).id))
IMP_DEFINE_SORT(ep_sort, endpoint, EP_ORDER)

/// Merges the fresh end-points (sorted in buf[0..m)) into ep[k][0..count),
/// from the back, and sets every position.
static void merge_axis(sweep *sw, int k, int32_t m)
{
	endpoint *a = sw->ep[k];
	int32_t i = sw->count - 1, j = m - 1, o = sw->count + m - 1;
	while (j >= 0) {
		// Old ones first at ties: they stay before the new.
		if (i >= 0 && ep_less(sw->buf[j], a[i]))
			a[o--] = a[i--];
		else
			a[o--] = sw->buf[j--];
	}
	for (int32_t t = 0; t < sw->count + m; t++)
		*pos_of(sw, a[t].id >> 1, k, a[t].id & 1) = t;
}

/// A pair met in the flush's sweep along x: reported if the boxes overlap
/// on the other axes (every place is final here).
static void flush_pair(imp_broad *b, int32_t p, int32_t q)
{
	if (both_static(b, p, q))
		return;
	b->counters.box_tests++;
	if (overlap_others(b->impl, b->dim, 0, p, q))
		b->fn(b->ctx, p, q, true);
}

/// Fresh proxies from which the flush finds their pairs through a tree
/// (flush_by_tree) rather than the sweep along x.
#define TREE_FRESH_MIN 32

typedef struct tree_visit {
	imp_broad *b;
	int32_t p;
	bool p_fresh;
} tree_visit;

/// A fresh proxy q whose box may meet p's: reported if the exact boxes
/// overlap, once per pair (two fresh ones from the lower proxy).
static bool tree_meet(void *ctx, int32_t q)
{
	tree_visit *v = ctx;
	imp_broad *b = v->b;
	if (q == v->p || (v->p_fresh && q < v->p) || both_static(b, v->p, q))
		return true;
	b->counters.box_tests++;
	if (imp_box_overlap(&b->proxy[v->p].box, &b->proxy[q].box, b->dim))
		b->fn(b->ctx, v->p, q, true);
	return true;
}

/// The pairs of the fresh proxies through a tree over their boxes, built
/// top down by median splits (O(m log m)): each fresh box and each old one
/// asks it for the fresh boxes it meets. The sweep along x meets every
/// interval open at once, which in 3D is about n^(2/3) of n boxes spread
/// evenly: n^(5/3) tests for n inserts (64k boxes 0.73 s, 256k 14 s); the
/// tree's queries cost about log m each plus the pairs. False when out of
/// memory for the tree (nothing reported; the sweep then does it).
static bool flush_by_tree(imp_broad *b)
{
	sweep *sw = b->impl;
	int32_t m = sw->fresh_count, max_proxy = 0;
	const imp_box **boxes = imp_alloc(b->alloc, (size_t)m * sizeof *boxes);
	if (boxes == NULL)
		return false;
	for (int32_t f = 0; f < m; f++) {
		int32_t p = sw->fresh[f];
		boxes[f] = &b->proxy[p].box;
		max_proxy = p > max_proxy ? p : max_proxy;
	}
	imp_tree t;
	imp_tree_init(&t, b->dim, b->alloc);
	bool ok = imp_tree_build(&t, sw->fresh, boxes, m, max_proxy);
	imp_free(b->alloc, boxes, (size_t)m * sizeof *boxes);
	if (!ok)
		return false;
	// The fresh boxes in the order of the tree's leaves in memory, which
	// the build laid out in pre-order: boxes near in space one after the
	// other, so that each query walks the paths the last one warmed.
	tree_visit v = {b, 0, true};
	uint64_t visits = 0; // not queries: the counter of queries is left alone
	imp_tree_scratch scratch;
	imp_tree_scratch_init(&scratch, b->alloc);
	if (!imp_tree_scratch_reserve(&scratch, imp_tree_height(&t) + 2)) {
		imp_tree_free(&t);
		return false; // before any pair is reported
	}
	for (int32_t i = 0; i < t.cap; i++) {
		if (t.nodes[i].height != 0)
			continue;
		v.p = t.nodes[i].proxy;
		imp_tree_query(&t, &b->proxy[v.p].box, false, tree_meet, &v, &scratch, &visits);
	}
	// The old boxes, from their min end-points along x.
	v.p_fresh = false;
	const endpoint *a = sw->ep[0];
	for (int32_t i = 0; i < sw->count; i++) {
		int32_t id = a[i].id;
		if (id < 0 || (id & 1) != 0 || sw->mark[id >> 1])
			continue;
		v.p = id >> 1;
		imp_tree_query(&t, &b->proxy[v.p].box, false, tree_meet, &v, &scratch, &visits);
	}
	assert(!scratch.oom); // the room was made for the tree's height
	imp_tree_scratch_free(&scratch);
	imp_tree_free(&t);
	return true;
}

/// Stores the fresh proxies and reports their pairs: the new end-points
/// sorted and merged axis by axis, then (from TREE_FRESH_MIN fresh ones)
/// flush_by_tree, or one sweep along x in which every interval opening
/// meets the open ones (a fresh one meets all, an old one only the fresh).
static void flush(imp_broad *b)
{
	sweep *sw = b->impl;
	if (sw->fresh_count == 0)
		return;
	if (sw->dead > 0)
		compact(b);
	int32_t m = 2 * sw->fresh_count;
	for (int32_t f = 0; f < sw->fresh_count; f++)
		sw->width = fmax(sw->width, box_width(b, sw->fresh[f]));
	for (int k = 0; k < b->dim; k++) {
		for (int32_t f = 0; f < sw->fresh_count; f++) {
			int32_t p = sw->fresh[f];
			sw->buf[2 * f] = (endpoint){b->proxy[p].box.lo[k], p * 2};
			sw->buf[2 * f + 1] = (endpoint){b->proxy[p].box.hi[k], p * 2 + 1};
		}
		ep_sort(sw->buf, m);
		merge_axis(sw, k, m);
	}
	sw->count += m;
	seal(sw, b->dim);
	if (sw->fresh_count >= TREE_FRESH_MIN && flush_by_tree(b)) {
		for (int32_t f = 0; f < sw->fresh_count; f++)
			sw->mark[sw->fresh[f]] = 0;
		sw->fresh_count = 0;
		return;
	}
	int32_t n[2] = {0, 0};
	const endpoint *a = sw->ep[0];
	for (int32_t t = 0; t < sw->count; t++) {
		int32_t p = a[t].id >> 1;
		int f = sw->mark[p];
		int32_t *list = sw->open[f];
		if ((a[t].id & 1) == 0) {
			for (int32_t i = 0; i < n[1]; i++)
				flush_pair(b, p, sw->open[1][i]);
			if (f)
				for (int32_t i = 0; i < n[0]; i++)
					flush_pair(b, p, sw->open[0][i]);
			sw->slot[p] = n[f];
			list[n[f]++] = p;
		} else {
			int32_t i = sw->slot[p], last = list[--n[f]];
			list[i] = last;
			sw->slot[last] = i;
		}
	}
	for (int32_t f = 0; f < sw->fresh_count; f++)
		sw->mark[sw->fresh[f]] = 0;
	sw->fresh_count = 0;
}

void imp_sweep_flush(imp_broad *b)
{
	flush(b);
}

imp_status imp_sweep_move(imp_broad *b, int32_t p, const imp_box *old)
{
	sweep *sw = b->impl;
	flush(b);
	if (sw->dead > 0)
		compact(b);
	const imp_box *box = &b->proxy[p].box;
	sw->width = fmax(sw->width, box_width(b, p));
	for (int k = 0; k < b->dim; k++) {
		int32_t imin = *pos_of(sw, p, k, 0), imax = *pos_of(sw, p, k, 1);
		sw->ep[k][imin].v = box->lo[k];
		sw->ep[k][imax].v = box->hi[k];
		// Move first the end-point that leads, so that neither has to pass
		// the other.
		if (box->lo[k] < old->lo[k]) {
			sort_endpoint(b, k, imin);
			sort_endpoint(b, k, *pos_of(sw, p, k, 1));
		} else {
			sort_endpoint(b, k, imax);
			sort_endpoint(b, k, *pos_of(sw, p, k, 0));
		}
	}
	return IMP_OK;
}

void imp_sweep_remove(imp_broad *b, int32_t p)
{
	sweep *sw = b->impl;
	// A fresh proxy leaves the list; nothing of it is stored yet.
	if (p < sw->mark_cap && sw->mark[p]) {
		int32_t i = sw->slot[p], last = sw->fresh[--sw->fresh_count];
		sw->fresh[i] = last;
		sw->slot[last] = i;
		sw->mark[p] = 0;
		return;
	}
	if (p >= sw->pos_cap || *pos_of(sw, p, 0, 0) < 0)
		return;
	for (int k = 0; k < b->dim; k++) {
		for (int m = 0; m < 2; m++) {
			int32_t *i = pos_of(sw, p, k, m);
			sw->ep[k][*i].id = -1;
			*i = -1;
		}
	}
	sw->dead += 2;
}

/// The boxes whose min along x lies in [box.lo.x - width, box.hi.x]: a
/// binary search to the first, then a walk along the sorted end-points
/// (width, the widest box stored, only grows between compactions). Fresh
/// proxies, not yet sorted in, are tested one by one.
bool imp_sweep_query(const imp_broad *b, const imp_box *box, imp_broad_query_fn *fn, void *ctx)
{
	sweep *sw = b->impl;
	if (sw->count > 0) {
		const endpoint *a = sw->ep[0];
		double from = box->lo[0] - sw->width;
		int32_t lo = 0, hi = sw->count;
		while (lo < hi) {
			int32_t mid = lo + (hi - lo) / 2;
			if (a[mid].v < from)
				lo = mid + 1;
			else
				hi = mid;
		}
		for (int32_t i = lo; i < sw->count && a[i].v <= box->hi[0]; i++) {
			int32_t id = a[i].id;
			if (id < 0 || (id & 1) != 0)
				continue;
			if (imp_box_overlap(&b->proxy[id >> 1].box, box, b->dim) && !fn(ctx, id >> 1))
				return false;
		}
	}
	for (int32_t f = 0; f < sw->fresh_count; f++) {
		int32_t p = sw->fresh[f];
		if (imp_box_overlap(&b->proxy[p].box, box, b->dim) && !fn(ctx, p))
			return false;
	}
	return true;
}
