// SPDX-License-Identifier: MIT
// The static bounding-volume hierarchy of bvh.h.
#include "shape/bvh.h"

#include <float.h>
#include <math.h>
#include <string.h>

/// Bins of the surface area heuristic along the chosen axis.
#define SAH_BINS 16

typedef struct build_ctx {
	const imp_box *boxes;
	double (*cen)[3];  ///< each piece's box centre
	int32_t *idx;      ///< the pieces, reordered as the build splits them
	imp_bvh_node *nodes;
	int32_t next;      ///< the next free node
	int32_t depth;     ///< the deepest path so far
	int dim;
} build_ctx;

/// Adds bin k (count[k] pieces in box[k]) to a side of a split that holds
/// *n pieces in *acc so far.
static void add_bin(const int *count, const imp_box *box, int k, imp_box *acc, int *n)
{
	if (count[k] == 0)
		return;
	*acc = *n == 0 ? box[k] : imp_box_union(acc, &box[k]);
	*n += count[k];
}

/// The bin of centre coordinate x in [lo, lo + ext], ext > 0 and finite.
static int bin_of(double x, double lo, double ext)
{
	double u = (x - lo) / ext * SAH_BINS;
	int k = u >= 0.0 && u < SAH_BINS ? (int)u : (u >= SAH_BINS ? SAH_BINS - 1 : 0);
	return k;
}

/// The split of idx[lo..hi) along `axis` that the binned surface area
/// heuristic prefers, the pieces moved to their sides: returns the index
/// of the first piece of the right side, or lo when no plane splits them
/// (every cost infinite, or every centre in one bin).
static int32_t sah_split(build_ctx *c, int32_t lo, int32_t hi, int axis, double cmin, double ext)
{
	int count[SAH_BINS] = {0};
	imp_box box[SAH_BINS];
	for (int32_t i = lo; i < hi; ++i) {
		int32_t p = c->idx[i];
		int k = bin_of(c->cen[p][axis], cmin, ext);
		box[k] = count[k]++ == 0 ? c->boxes[p] : imp_box_union(&box[k], &c->boxes[p]);
	}
	// Costs of the planes after bins 0 .. SAH_BINS - 2: the left sides
	// swept forwards, the right sides backwards.
	double left_cost[SAH_BINS];
	imp_box acc;
	int n = 0;
	for (int k = 0; k < SAH_BINS - 1; ++k) {
		add_bin(count, box, k, &acc, &n);
		left_cost[k] = n > 0 ? imp_box_area(&acc, c->dim) * n : 0.0;
	}
	int best = -1;
	double best_cost = INFINITY;
	n = 0;
	for (int k = SAH_BINS - 1; k >= 1; --k) {
		add_bin(count, box, k, &acc, &n);
		int32_t left_n = hi - lo - n;
		if (n == 0 || left_n == 0)
			continue;
		double cost = left_cost[k - 1] + imp_box_area(&acc, c->dim) * n;
		if (cost < best_cost) {
			best_cost = cost;
			best = k - 1;
		}
	}
	if (best < 0)
		return lo;
	// Partition: bins 0..best to the left.
	int32_t i = lo, j = hi - 1;
	while (i <= j) {
		if (bin_of(c->cen[c->idx[i]][axis], cmin, ext) <= best) {
			++i;
		} else {
			int32_t t = c->idx[i];
			c->idx[i] = c->idx[j];
			c->idx[j] = t;
			--j;
		}
	}
	return i;
}

/// Moves the pieces of idx[lo..hi) so that idx[k] has the k-th centre
/// along `axis`, those before it no greater, those after no less
/// (quickselect, the median of three as pivot).
static void select_kth(build_ctx *c, int32_t lo, int32_t hi, int32_t k, int axis)
{
	int32_t *idx = c->idx;
	hi -= 1;
	while (hi > lo) {
		int32_t m = lo + (hi - lo) / 2;
		double a = c->cen[idx[lo]][axis], b = c->cen[idx[m]][axis], d = c->cen[idx[hi]][axis];
		double pivot = a < b ? (b < d ? b : (a < d ? d : a)) : (a < d ? a : (b < d ? d : b));
		int32_t i = lo, j = hi;
		while (i <= j) {
			while (c->cen[idx[i]][axis] < pivot)
				++i;
			while (c->cen[idx[j]][axis] > pivot)
				--j;
			if (i <= j) {
				int32_t t = idx[i];
				idx[i] = idx[j];
				idx[j] = t;
				++i;
				--j;
			}
		}
		if (k <= j)
			hi = j;
		else if (k >= i)
			lo = i;
		else
			return;
	}
}

static int32_t build(build_ctx *c, int32_t lo, int32_t hi, int32_t depth)
{
	int32_t node = c->next++;
	imp_bvh_node *nd = &c->nodes[node];
	memset(nd, 0, sizeof *nd);
	nd->box = c->boxes[c->idx[lo]];
	for (int32_t i = lo + 1; i < hi; ++i)
		nd->box = imp_box_union(&nd->box, &c->boxes[c->idx[i]]);
	c->depth = depth > c->depth ? depth : c->depth;
	if (hi - lo == 1) {
		nd->right = -1;
		nd->item = c->idx[lo];
		return node;
	}
	nd->item = -1;
	double cl[3] = {INFINITY, INFINITY, INFINITY}, ch[3] = {-INFINITY, -INFINITY, -INFINITY};
	for (int32_t i = lo; i < hi; ++i)
		for (int k = 0; k < c->dim; ++k) {
			double x = c->cen[c->idx[i]][k];
			cl[k] = x < cl[k] ? x : cl[k];
			ch[k] = x > ch[k] ? x : ch[k];
		}
	int axis = 0;
	for (int k = 1; k < c->dim; ++k)
		axis = ch[k] - cl[k] > ch[axis] - cl[axis] ? k : axis;
	double ext = ch[axis] - cl[axis];
	int32_t mid = lo;
	if (ext > 0.0 && isfinite(ext) && depth < IMP_BVH_SAH_DEPTH)
		mid = sah_split(c, lo, hi, axis, cl[axis], ext);
	if (mid <= lo || mid >= hi) {
		// No plane of the heuristic (equal centres, a depth past
		// IMP_BVH_SAH_DEPTH): halves by the median centre.
		mid = lo + (hi - lo) / 2;
		select_kth(c, lo, hi, mid, axis);
	}
	build(c, lo, mid, depth + 1);
	int32_t right = build(c, mid, hi, depth + 1);
	c->nodes[node].right = right;
	return node;
}

bool imp_bvh_build(imp_bvh *t, const imp_box *boxes, int32_t n, int dim, const imp_allocator *alloc)
{
	memset(t, 0, sizeof *t);
	t->dim = dim;
	if (n < 1 || n > INT32_MAX / 2)
		return false;
	size_t nodes_bytes = (size_t)(2 * n - 1) * sizeof(imp_bvh_node);
	imp_bvh_node *nodes = imp_alloc(alloc, nodes_bytes);
	int32_t *idx = imp_alloc(alloc, (size_t)n * sizeof *idx);
	double(*cen)[3] = imp_alloc(alloc, (size_t)n * sizeof *cen);
	if (nodes == NULL || idx == NULL || cen == NULL) {
		imp_free(alloc, nodes, nodes_bytes);
		imp_free(alloc, idx, (size_t)n * sizeof *idx);
		imp_free(alloc, cen, (size_t)n * sizeof *cen);
		return false;
	}
	for (int32_t i = 0; i < n; ++i) {
		idx[i] = i;
		for (int k = 0; k < 3; ++k)
			cen[i][k] = 0.5 * boxes[i].lo[k] + 0.5 * boxes[i].hi[k];
	}
	build_ctx c = {boxes, cen, idx, nodes, 0, 0, dim};
	build(&c, 0, n, 1);
	imp_free(alloc, idx, (size_t)n * sizeof *idx);
	imp_free(alloc, cen, (size_t)n * sizeof *cen);
	t->nodes = nodes;
	t->count = n;
	t->depth = c.depth;
	return true;
}

void imp_bvh_free(imp_bvh *t, const imp_allocator *alloc)
{
	if (t->nodes != NULL)
		imp_free(alloc, t->nodes, (size_t)(2 * t->count - 1) * sizeof(imp_bvh_node));
	t->nodes = NULL;
	t->count = 0;
	t->depth = 0;
}

bool imp_bvh_query(const imp_bvh *t, const imp_box *box, imp_bvh_item_fn *fn, void *ctx)
{
	int32_t stack[IMP_BVH_MAX_DEPTH];
	int sp = 0;
	int32_t n = 0;
	for (;;) {
		const imp_bvh_node *nd = &t->nodes[n];
		if (imp_box_overlap(&nd->box, box, t->dim)) {
			if (nd->right < 0) {
				if (!fn(ctx, nd->item))
					return false;
			} else {
				stack[sp++] = nd->right;
				n = n + 1;
				continue;
			}
		}
		if (sp == 0)
			return true;
		n = stack[--sp];
	}
}

void imp_box_move(const imp_box *b, const imp_bvh_xform *x, int dim, imp_box *out)
{
	double c[3], e[3], m = 0.0;
	for (int k = 0; k < 3; ++k) {
		c[k] = 0.5 * b->lo[k] + 0.5 * b->hi[k];
		e[k] = 0.5 * b->hi[k] - 0.5 * b->lo[k];
	}
	for (int i = 0; i < dim; ++i) {
		double ci = x->t[i], ei = 0.0;
		for (int j = 0; j < dim; ++j) {
			ci += x->r[i][j] * c[j];
			ei += fabs(x->r[i][j]) * e[j];
		}
		out->lo[i] = ci;
		out->hi[i] = ei;
		m = fmax(m, fabs(ci) + ei + fabs(x->t[i]));
	}
	// Rounding of the products and sums: a few ulps of the largest
	// magnitude taken part.
	double grow = 16.0 * DBL_EPSILON * m + DBL_MIN;
	for (int i = 0; i < dim; ++i) {
		double ci = out->lo[i], ei = out->hi[i];
		out->lo[i] = ci - ei - grow;
		out->hi[i] = ci + ei + grow;
	}
	for (int i = dim; i < 3; ++i)
		out->lo[i] = out->hi[i] = 0.0;
}

/// A node pair waiting on the traversal's stack, with its boxes' bound.
typedef struct pair_entry {
	int32_t a, b;
	double key;
} pair_entry;

/// A node pair of the branch and bound, with b's box in a's frame: carried
/// along, it is moved once per node of b the search splits, not once per
/// pair it looks at (20 distance queries of two meshes of 960 triangles:
/// 6.5 million instructions of moves before, 2.7 million after).
typedef struct near_entry {
	int32_t a, b;
	double key;
	imp_box bb;
} near_entry;

bool imp_bvh_pairs(const imp_bvh *a, const imp_bvh *b, const imp_bvh_xform *b_in_a, imp_bvh_pair_fn *fn, void *ctx)
{
	pair_entry stack[2 * IMP_BVH_MAX_DEPTH + 2];
	int sp = 0, dim = a->dim;
	int32_t na = 0, nb = 0, moved = -1;
	imp_box bb;
	for (;;) {
		const imp_bvh_node *A = &a->nodes[na], *B = &b->nodes[nb];
		// b's box in a's frame, moved again only when the node changes
		// (the descent stays on one node of b while it splits a's).
		if (nb != moved) {
			imp_box_move(&B->box, b_in_a, dim, &bb);
			moved = nb;
		}
		if (imp_box_overlap(&A->box, &bb, dim)) {
			bool la = A->right < 0, lb = B->right < 0;
			if (la && lb) {
				if (!fn(ctx, A->item, B->item))
					return false;
			} else if (lb || (!la && imp_box_area(&A->box, dim) >= imp_box_area(&bb, dim))) {
				stack[sp++] = (pair_entry){A->right, nb, 0.0};
				na = na + 1;
				continue;
			} else {
				stack[sp++] = (pair_entry){na, B->right, 0.0};
				nb = nb + 1;
				continue;
			}
		}
		if (sp == 0)
			return true;
		--sp;
		na = stack[sp].a;
		nb = stack[sp].b;
	}
}

/// The bound of node box `box` against the query: the boxes', or the
/// caller's where larger (imp_bvh_nearest_keyed); the caller's only asked
/// when the boxes' does not already rule the node out (it costs more).
static double query_key(const imp_box *box, const imp_box *query, int dim, imp_bvh_key_fn *key, void *key_ctx,
			double bound)
{
	double k = imp_box_bound(box, query, dim);
	if (key != NULL && k <= bound) {
		double c = key(key_ctx, box);
		k = c > k ? c : k;
	}
	return k;
}

double imp_bvh_nearest(const imp_bvh *a, const imp_bvh *b, const imp_bvh_xform *b_in_a, const imp_box *query,
		       double bound, imp_bvh_bound_fn *fn, void *ctx)
{
	return imp_bvh_nearest_keyed(a, b, b_in_a, query, NULL, NULL, bound, fn, ctx);
}

double imp_bvh_nearest_keyed(const imp_bvh *a, const imp_bvh *b, const imp_bvh_xform *b_in_a, const imp_box *query,
			     imp_bvh_key_fn *key, void *key_ctx, double bound, imp_bvh_bound_fn *fn, void *ctx)
{
	if (b != NULL)
		key = NULL;
	near_entry stack[2 * IMP_BVH_MAX_DEPTH + 2];
	int sp = 0, dim = a->dim;
	near_entry cur = {0, 0, 0.0, {{0, 0, 0}, {0, 0, 0}}};
	// The box of b's root in a's frame (the query box when b is NULL).
	if (b == NULL)
		cur.bb = *query;
	else
		imp_box_move(&b->nodes[0].box, b_in_a, dim, &cur.bb);
	cur.key = query_key(&a->nodes[0].box, &cur.bb, dim, key, key_ctx, bound);
	for (;;) {
		if (cur.key <= bound) {
			const imp_bvh_node *A = &a->nodes[cur.a];
			const imp_bvh_node *B = b != NULL ? &b->nodes[cur.b] : NULL;
			bool la = A->right < 0, lb = B == NULL || B->right < 0;
			if (la && lb) {
				bound = fn(ctx, A->item, B != NULL ? B->item : 0, bound);
			} else {
				near_entry c1, c2;
				if (lb || (!la && imp_box_area(&A->box, dim) >= imp_box_area(&cur.bb, dim))) {
					c1 = (near_entry){cur.a + 1, cur.b, 0.0, cur.bb};
					c2 = (near_entry){A->right, cur.b, 0.0, cur.bb};
					c1.key = query_key(&a->nodes[c1.a].box, &cur.bb, dim, key, key_ctx, bound);
					c2.key = query_key(&a->nodes[c2.a].box, &cur.bb, dim, key, key_ctx, bound);
				} else {
					c1.a = c2.a = cur.a;
					c1.b = cur.b + 1;
					c2.b = B->right;
					imp_box_move(&b->nodes[c1.b].box, b_in_a, dim, &c1.bb);
					imp_box_move(&b->nodes[c2.b].box, b_in_a, dim, &c2.bb);
					c1.key = imp_box_bound(&A->box, &c1.bb, dim);
					c2.key = imp_box_bound(&A->box, &c2.bb, dim);
				}
				// The nearer first; the other waits.
				bool first = c1.key <= c2.key;
				stack[sp++] = first ? c2 : c1;
				cur = first ? c1 : c2;
				continue;
			}
		}
		if (sp == 0)
			return bound;
		cur = stack[--sp];
	}
}
