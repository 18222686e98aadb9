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
	if (t->obb != NULL)
		imp_free(alloc, t->obb, (size_t)(2 * t->count - 1) * sizeof(imp_bvh_obb));
	t->nodes = NULL;
	t->obb = NULL;
	t->count = 0;
	t->depth = 0;
}

bool imp_bvh_query(const imp_bvh *t, const imp_box *box, imp_bvh_item_fn *fn, void *ctx)
{
	return imp_bvh_query_obb(t, box, NULL, NULL, NULL, fn, ctx);
}

bool imp_bvh_query_obb(const imp_bvh *t, const imp_box *box, const imp_bvh_obb *obb, imp_bvh_obb_key_fn *key,
		       void *key_ctx, imp_bvh_item_fn *fn, void *ctx)
{
	int32_t stack[IMP_BVH_MAX_DEPTH];
	int sp = 0;
	int32_t n = 0;
	for (;;) {
		const imp_bvh_node *nd = &t->nodes[n];
		bool meet = (box == NULL || imp_box_overlap(&nd->box, box, t->dim)) &&
			    (key == NULL || key(key_ctx, &t->obb[n]) <= 0.0) &&
			    (obb == NULL || imp_obb_bound(&t->obb[n], obb, 0.0, true) <= 0.0);
		if (meet) {
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
	union {
		imp_box bb;      ///< axis-aligned
		imp_bvh_obb ob;  ///< oriented
	} v;
} near_entry;

/// Half the surface area of an oriented box: which node of a pair to split.
static double obb_area(const imp_bvh_obb *o)
{
	return o->e[0] * o->e[1] + o->e[1] * o->e[2] + o->e[2] * o->e[0];
}

bool imp_bvh_pairs(const imp_bvh *a, const imp_bvh *b, const imp_bvh_xform *b_in_a, imp_bvh_pair_fn *fn, void *ctx)
{
	pair_entry stack[2 * IMP_BVH_MAX_DEPTH + 2];
	int sp = 0, dim = a->dim;
	int32_t na = 0, nb = 0, moved = -1;
	bool oriented = a->obb != NULL && b->obb != NULL;
	imp_box bb;
	imp_bvh_obb ob;
	for (;;) {
		const imp_bvh_node *A = &a->nodes[na], *B = &b->nodes[nb];
		// b's box in a's frame, moved again only when the node changes
		// (the descent stays on one node of b while it splits a's).
		if (nb != moved) {
			if (oriented)
				imp_obb_move(&b->obb[nb], b_in_a, &ob);
			else
				imp_box_move(&B->box, b_in_a, dim, &bb);
			moved = nb;
		}
		bool meet = oriented ? imp_obb_bound(&a->obb[na], &ob, 0.0, true) <= 0.0 : imp_box_overlap(&A->box, &bb, dim);
		if (meet) {
			bool la = A->right < 0, lb = B->right < 0;
			double area_a = oriented ? obb_area(&a->obb[na]) : imp_box_area(&A->box, dim);
			double area_b = oriented ? obb_area(&ob) : imp_box_area(&bb, dim);
			if (la && lb) {
				if (!fn(ctx, A->item, B->item))
					return false;
			} else if (lb || (!la && area_a >= area_b)) {
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

// ---------------------------------------------------------------------------
// Oriented boxes.

/// The eigenvectors of the symmetric 3 x 3 matrix a (destroyed) as the
/// columns of v: cyclic Jacobi rotations until the off-diagonal part is
/// negligible against the diagonal.
static void eigen_sym3(double a[3][3], double v[3][3])
{
	static const int P[3] = {0, 0, 1}, Q[3] = {1, 2, 2};
	for (int i = 0; i < 3; ++i)
		for (int j = 0; j < 3; ++j)
			v[i][j] = i == j ? 1.0 : 0.0;
	for (int sweep = 0; sweep < 32; ++sweep) {
		double off = a[0][1] * a[0][1] + a[0][2] * a[0][2] + a[1][2] * a[1][2];
		double diag = a[0][0] * a[0][0] + a[1][1] * a[1][1] + a[2][2] * a[2][2];
		if (!(off > 1e-30 * diag))
			return;
		for (int k = 0; k < 3; ++k) {
			int p = P[k], q = Q[k];
			double apq = a[p][q];
			if (apq == 0.0)
				continue;
			// The rotation that zeroes a[p][q]: tan of its angle t, the
			// smaller root of t^2 + 2 theta t - 1 = 0.
			double theta = (a[q][q] - a[p][p]) / (2.0 * apq);
			double t = fabs(theta) > 1e150 ? 0.5 / theta
						       : (theta >= 0.0 ? 1.0 : -1.0) / (fabs(theta) + sqrt(theta * theta + 1.0));
			double c = 1.0 / sqrt(t * t + 1.0), s = t * c;
			a[p][p] -= t * apq;
			a[q][q] += t * apq;
			a[p][q] = a[q][p] = 0.0;
			int r = 3 - p - q;
			double arp = a[r][p], arq = a[r][q];
			a[r][p] = a[p][r] = c * arp - s * arq;
			a[r][q] = a[q][r] = s * arp + c * arq;
			for (int i = 0; i < 3; ++i) {
				double vp = v[i][p], vq = v[i][q];
				v[i][p] = c * vp - s * vq;
				v[i][q] = s * vp + c * vq;
			}
		}
	}
}

/// Makes the rows of ax an orthonormal right-handed frame near them; false
/// when they are too degenerate for it.
static bool orthonormal(double ax[3][3])
{
	double n0 = sqrt(ax[0][0] * ax[0][0] + ax[0][1] * ax[0][1] + ax[0][2] * ax[0][2]);
	if (!(n0 > 0.5 && n0 < 2.0))
		return false;
	for (int k = 0; k < 3; ++k)
		ax[0][k] /= n0;
	double d = ax[0][0] * ax[1][0] + ax[0][1] * ax[1][1] + ax[0][2] * ax[1][2];
	for (int k = 0; k < 3; ++k)
		ax[1][k] -= d * ax[0][k];
	double n1 = sqrt(ax[1][0] * ax[1][0] + ax[1][1] * ax[1][1] + ax[1][2] * ax[1][2]);
	if (!(n1 > 0.5 && n1 < 2.0))
		return false;
	for (int k = 0; k < 3; ++k)
		ax[1][k] /= n1;
	ax[2][0] = ax[0][1] * ax[1][2] - ax[0][2] * ax[1][1];
	ax[2][1] = ax[0][2] * ax[1][0] - ax[0][0] * ax[1][2];
	ax[2][2] = ax[0][0] * ax[1][1] - ax[0][1] * ax[1][0];
	return true;
}

/// The points under a node: how many, their mean and the sums of the
/// products of their deviations (m2[j][k], j <= k used).
typedef struct point_stats {
	double count;
	double mean[3];
	double m2[3][3];
} point_stats;

typedef struct fit_ctx {
	const imp_bvh *t;
	imp_bvh_points_fn *fn;
	void *ctx;
	const int32_t *leaf_item; ///< the pieces of the leaves in array order
	const int32_t *leaf_rank; ///< leaves before each node index
	const int32_t *size;      ///< nodes in each node's subtree
	point_stats *stats;       ///< each node's
	double grow;
} fit_ctx;

/// The statistics of one piece's points.
static void piece_stats(const fit_ctx *f, int32_t item, point_stats *st)
{
	double p[IMP_BVH_PIECE_POINTS][3];
	int np = f->fn(f->ctx, item, p);
	memset(st, 0, sizeof *st);
	st->count = np;
	for (int i = 0; i < np; ++i)
		for (int k = 0; k < 3; ++k)
			st->mean[k] += p[i][k] / np;
	for (int i = 0; i < np; ++i)
		for (int j = 0; j < 3; ++j)
			for (int k = j; k < 3; ++k)
				st->m2[j][k] += (p[i][j] - st->mean[j]) * (p[i][k] - st->mean[k]);
}

/// The statistics of the union of two point sets (Chan, Golub and
/// LeVeque's pairwise update): every node's in one pass from its children,
/// deviations about the means, so rounding does not grow with the distance
/// from the origin.
static void merge_stats(const point_stats *a, const point_stats *b, point_stats *out)
{
	double n = a->count + b->count, d[3];
	for (int k = 0; k < 3; ++k)
		d[k] = b->mean[k] - a->mean[k];
	double w = a->count * b->count / n;
	for (int k = 0; k < 3; ++k)
		out->mean[k] = a->mean[k] + d[k] * (b->count / n);
	for (int j = 0; j < 3; ++j)
		for (int k = j; k < 3; ++k)
			out->m2[j][k] = a->m2[j][k] + b->m2[j][k] + d[j] * d[k] * w;
	out->count = n;
}

/// The extents of the points of leaves [l0, l1) along the rows of ax into
/// lo, hi, and the largest magnitude of a coordinate into *scale.
static void extents(const fit_ctx *f, int32_t l0, int32_t l1, double ax[3][3], double lo[3], double hi[3], double *scale)
{
	double p[IMP_BVH_PIECE_POINTS][3];
	for (int k = 0; k < 3; ++k) {
		lo[k] = INFINITY;
		hi[k] = -INFINITY;
	}
	double m = 0.0;
	for (int32_t l = l0; l < l1; ++l) {
		int np = f->fn(f->ctx, f->leaf_item[l], p);
		for (int i = 0; i < np; ++i)
			for (int k = 0; k < 3; ++k) {
				double x = ax[k][0] * p[i][0] + ax[k][1] * p[i][1] + ax[k][2] * p[i][2];
				lo[k] = x < lo[k] ? x : lo[k];
				hi[k] = x > hi[k] ? x : hi[k];
				double a = fabs(p[i][k]);
				m = a > m ? a : m;
			}
	}
	*scale = m;
}

/// Orders o's axes by extent, the thinnest first: the separating-axis
/// tests try a node's axes in order, and a piece of surface is most often
/// told apart along its normal.
static void thinnest_first(imp_bvh_obb *o)
{
	for (int i = 1; i < 3; ++i)
		for (int j = i; j > 0 && o->e[j] < o->e[j - 1]; --j) {
			double e = o->e[j], ax[3];
			o->e[j] = o->e[j - 1];
			o->e[j - 1] = e;
			memcpy(ax, o->ax[j], sizeof ax);
			memcpy(o->ax[j], o->ax[j - 1], sizeof ax);
			memcpy(o->ax[j - 1], ax, sizeof ax);
		}
}

/// The oriented box of node n: along the principal axes of its points
/// (one pass over them for the extents), or its own axis-aligned box when
/// that is smaller.
static void fit_node(const fit_ctx *f, int32_t n, imp_bvh_obb *o)
{
	int32_t l0 = f->leaf_rank[n], l1 = l0 + (f->size[n] + 1) / 2;
	const point_stats *st = &f->stats[n];
	double cov[3][3], ax[3][3], v[3][3];
	for (int j = 0; j < 3; ++j)
		for (int k = j; k < 3; ++k)
			cov[j][k] = cov[k][j] = st->m2[j][k] / st->count;
	eigen_sym3(cov, v);
	for (int i = 0; i < 3; ++i)
		for (int k = 0; k < 3; ++k)
			ax[i][k] = v[k][i];
	double lo[3] = {0, 0, 0}, hi[3] = {0, 0, 0}, scale = 0.0, area = INFINITY, volume = INFINITY;
	if (orthonormal(ax)) {
		extents(f, l0, l1, ax, lo, hi, &scale);
		double x = hi[0] - lo[0], y = hi[1] - lo[1], z = hi[2] - lo[2];
		area = x * y + y * z + z * x;
		volume = x * y * z;
	}
	// The frame's own axes, the node's box (which holds its pieces,
	// rounding included), when it is smaller: in volume (a flat piece's
	// frame is the flat one), then in area.
	const imp_box *b = &f->t->nodes[n].box;
	double bx = b->hi[0] - b->lo[0], by = b->hi[1] - b->lo[1], bz = b->hi[2] - b->lo[2];
	double box_volume = bx * by * bz, box_area = bx * by + by * bz + bz * bx;
	if (!(volume < box_volume || (volume == box_volume && area <= box_area))) {
		double m = 0.0;
		for (int k = 0; k < 3; ++k) {
			o->c[k] = 0.5 * b->lo[k] + 0.5 * b->hi[k];
			o->e[k] = 0.5 * b->hi[k] - 0.5 * b->lo[k];
			m = fmax(m, fmax(fabs(b->lo[k]), fabs(b->hi[k])));
			for (int i = 0; i < 3; ++i)
				o->ax[k][i] = k == i ? 1.0 : 0.0;
		}
		for (int k = 0; k < 3; ++k)
			o->e[k] += 4.0 * DBL_EPSILON * m; // the halving's rounding
		return;
	}
	// Rounding of the projections and of the centre: a few ulps of the
	// points' magnitude.
	double pad = f->grow + 128.0 * DBL_EPSILON * scale + DBL_MIN;
	memcpy(o->ax, ax, sizeof o->ax);
	double mid[3];
	for (int i = 0; i < 3; ++i) {
		mid[i] = 0.5 * lo[i] + 0.5 * hi[i];
		o->e[i] = (0.5 * hi[i] - 0.5 * lo[i]) + pad;
	}
	for (int k = 0; k < 3; ++k)
		o->c[k] = mid[0] * ax[0][k] + mid[1] * ax[1][k] + mid[2] * ax[2][k];
	thinnest_first(o);
}

bool imp_bvh_fit_obbs(imp_bvh *t, imp_bvh_points_fn *fn, void *ctx, double grow, const imp_allocator *alloc)
{
	if (t->nodes == NULL || t->dim != 3)
		return false;
	int32_t nn = 2 * t->count - 1;
	imp_bvh_obb *obb = imp_alloc(alloc, (size_t)nn * sizeof *obb);
	int32_t *leaf_item = imp_alloc(alloc, (size_t)t->count * sizeof(int32_t));
	int32_t *leaf_rank = imp_alloc(alloc, (size_t)nn * sizeof(int32_t));
	int32_t *size = imp_alloc(alloc, (size_t)nn * sizeof(int32_t));
	point_stats *stats = imp_alloc(alloc, (size_t)nn * sizeof *stats);
	bool ok = obb != NULL && leaf_item != NULL && leaf_rank != NULL && size != NULL && stats != NULL;
	if (ok) {
		int32_t leaves = 0;
		for (int32_t n = 0; n < nn; ++n) {
			leaf_rank[n] = leaves;
			if (t->nodes[n].right < 0)
				leaf_item[leaves++] = t->nodes[n].item;
		}
		fit_ctx f = {t, fn, ctx, leaf_item, leaf_rank, size, stats, grow};
		// Subtrees and statistics: children follow their parent, so
		// backwards.
		for (int32_t n = nn - 1; n >= 0; --n) {
			const imp_bvh_node *nd = &t->nodes[n];
			if (nd->right < 0) {
				size[n] = 1;
				piece_stats(&f, nd->item, &stats[n]);
			} else {
				size[n] = 1 + size[n + 1] + size[nd->right];
				merge_stats(&stats[n + 1], &stats[nd->right], &stats[n]);
			}
		}
		for (int32_t n = 0; n < nn; ++n)
			fit_node(&f, n, &obb[n]);
		t->obb = obb;
	} else {
		imp_free(alloc, obb, (size_t)nn * sizeof *obb);
	}
	imp_free(alloc, leaf_item, (size_t)t->count * sizeof(int32_t));
	imp_free(alloc, leaf_rank, (size_t)nn * sizeof(int32_t));
	imp_free(alloc, size, (size_t)nn * sizeof(int32_t));
	imp_free(alloc, stats, (size_t)nn * sizeof *stats);
	return ok;
}

/// A moved box's half sizes: grown by the rounding of the move's products
/// and sums, with m the largest magnitude of a moved centre coordinate
/// and its translation.
static inline void obb_grow(const double e[3], double m, double out[3])
{
	double grow = 16.0 * DBL_EPSILON * (m + e[0] + e[1] + e[2]) + DBL_MIN;
	for (int k = 0; k < 3; ++k)
		out[k] = e[k] + grow;
}

void imp_obb_move(const imp_bvh_obb *o, const imp_bvh_xform *x, imp_bvh_obb *out)
{
	double m = 0.0;
	for (int i = 0; i < 3; ++i) {
		double c = x->t[i];
		for (int j = 0; j < 3; ++j)
			c += x->r[i][j] * o->c[j];
		out->c[i] = c;
		double mi = fabs(c) + fabs(x->t[i]);
		m = mi > m ? mi : m;
	}
	for (int a = 0; a < 3; ++a)
		for (int i = 0; i < 3; ++i)
			out->ax[a][i] = x->r[i][0] * o->ax[a][0] + x->r[i][1] * o->ax[a][1] + x->r[i][2] * o->ax[a][2];
	obb_grow(o->e, m, out->e);
}

void imp_obb_of_box(const imp_box *b, const imp_bvh_xform *x, imp_bvh_obb *out)
{
	// imp_obb_move of the box's own oriented box written out: its axes
	// are the frame's, so the moved axes are x's columns (exactly).
	double c[3], e[3], h = 0.0, m = 0.0;
	for (int k = 0; k < 3; ++k) {
		c[k] = 0.5 * b->lo[k] + 0.5 * b->hi[k];
		e[k] = 0.5 * b->hi[k] - 0.5 * b->lo[k];
		double l = fabs(b->lo[k]), u = fabs(b->hi[k]);
		h = l > h ? l : h;
		h = u > h ? u : h;
	}
	// The halving's rounding.
	for (int k = 0; k < 3; ++k)
		e[k] += 4.0 * DBL_EPSILON * h;
	for (int i = 0; i < 3; ++i) {
		double ci = x->t[i] + x->r[i][0] * c[0] + x->r[i][1] * c[1] + x->r[i][2] * c[2];
		out->c[i] = ci;
		double mi = fabs(ci) + fabs(x->t[i]);
		m = mi > m ? mi : m;
		for (int a = 0; a < 3; ++a)
			out->ax[a][i] = x->r[i][a];
	}
	obb_grow(e, m, out->e);
}

double imp_obb_centre_gap(const imp_bvh_obb *a, const imp_bvh_obb *b)
{
	double d[3] = {b->c[0] - a->c[0], b->c[1] - a->c[1], b->c[2] - a->c[2]};
	double dd = d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
	if (!(dd > 0x1p-900 && dd < 0x1p900))
		return -INFINITY;
	double reach = 0.0, len = sqrt(dd);
	for (int i = 0; i < 3; ++i) {
		reach += a->e[i] * fabs(d[0] * a->ax[i][0] + d[1] * a->ax[i][1] + d[2] * a->ax[i][2]);
		reach += b->e[i] * fabs(d[0] * b->ax[i][0] + d[1] * b->ax[i][1] + d[2] * b->ax[i][2]);
	}
	double margin = 1e-12 * (a->e[0] + a->e[1] + a->e[2] + b->e[0] + b->e[1] + b->e[2] + fabs(d[0]) + fabs(d[1]) +
				 fabs(d[2]));
	return len - reach / len - margin;
}

/// The gap along a.ax[i] x b.ax[j] (i1, i2 and j1, j2 the other two
/// indices in turn), before the margin.
static inline double edge_gap(const imp_bvh_obb *a, const imp_bvh_obb *b, const double ta[3], double r[3][3],
			      double ar[3][3], int i, int i1, int i2, int j, int j1, int j2)
{
	return fabs(ta[i1] * r[i2][j] - ta[i2] * r[i1][j]) - (a->e[i1] * ar[i2][j] + a->e[i2] * ar[i1][j]) -
	       (b->e[j1] * ar[i][j2] + b->e[j2] * ar[i][j1]);
}

double imp_obb_bound(const imp_bvh_obb *a, const imp_bvh_obb *b, double stop, bool edges)
{
	double d[3] = {b->c[0] - a->c[0], b->c[1] - a->c[1], b->c[2] - a->c[2]};
	// Rounding of the products: every gap is taken 1e-12 of the scene
	// lower (|d|_1 >= |d|, no square root).
	double margin = 1e-12 * (a->e[0] + a->e[1] + a->e[2] + b->e[0] + b->e[1] + b->e[2] + fabs(d[0]) + fabs(d[1]) +
				 fabs(d[2]));
	double ta[3], tb[3];
	for (int i = 0; i < 3; ++i) {
		ta[i] = d[0] * a->ax[i][0] + d[1] * a->ax[i][1] + d[2] * a->ax[i][2];
		tb[i] = d[0] * b->ax[i][0] + d[1] * b->ax[i][1] + d[2] * b->ax[i][2];
	}
	double best = -INFINITY;
	if (!edges) {
		// First the line through the centres (u . ax = t / |d|), which
		// needs no turn between the boxes: boxes far apart for their
		// size are told apart along it.
		double dd = d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
		if (dd > 0x1p-900 && dd < 0x1p900) {
			double len = sqrt(dd);
			double g = len -
				   (a->e[0] * fabs(ta[0]) + a->e[1] * fabs(ta[1]) + a->e[2] * fabs(ta[2]) +
				    b->e[0] * fabs(tb[0]) + b->e[1] * fabs(tb[1]) + b->e[2] * fabs(tb[2])) /
					   len -
				   margin;
			if (g > stop)
				return g;
			best = g;
		}
	}
	// a's axes, each with its row of the turn between the boxes, then b's:
	// each gap is a bound; past `stop` it is enough.
	double r[3][3], ar[3][3];
	for (int i = 0; i < 3; ++i) {
		const double *u = a->ax[i];
		for (int j = 0; j < 3; ++j) {
			r[i][j] = u[0] * b->ax[j][0] + u[1] * b->ax[j][1] + u[2] * b->ax[j][2];
			ar[i][j] = fabs(r[i][j]) + 1e-15;
		}
		double g = fabs(ta[i]) - a->e[i] - (b->e[0] * ar[i][0] + b->e[1] * ar[i][1] + b->e[2] * ar[i][2]) - margin;
		if (g > stop)
			return g;
		best = g > best ? g : best;
	}
	for (int j = 0; j < 3; ++j) {
		double g = fabs(tb[j]) - b->e[j] - (a->e[0] * ar[0][j] + a->e[1] * ar[1][j] + a->e[2] * ar[2][j]) - margin;
		if (g > stop)
			return g;
		best = g > best ? g : best;
	}
	if (edges) {
		// a.ax[i] x b.ax[j]: the projection of d is ta[i+1] r[i+2][j] -
		// ta[i+2] r[i+1][j] (indices mod 3), the radii as in Gottschalk.
		// The axis is not unit (its length sin(angle) <= 1), so a
		// positive gap along it is below the true one: still a bound.
		// The fifteen axes decide two boxes; the centre line is left out.
		// Written out with constant indices, which keeps r in registers
		// (a loop over index tables cost half again as many instructions).
		double g[9];
		g[0] = edge_gap(a, b, ta, r, ar, 0, 1, 2, 0, 1, 2);
		g[1] = edge_gap(a, b, ta, r, ar, 0, 1, 2, 1, 2, 0);
		g[2] = edge_gap(a, b, ta, r, ar, 0, 1, 2, 2, 0, 1);
		g[3] = edge_gap(a, b, ta, r, ar, 1, 2, 0, 0, 1, 2);
		g[4] = edge_gap(a, b, ta, r, ar, 1, 2, 0, 1, 2, 0);
		g[5] = edge_gap(a, b, ta, r, ar, 1, 2, 0, 2, 0, 1);
		g[6] = edge_gap(a, b, ta, r, ar, 2, 0, 1, 0, 1, 2);
		g[7] = edge_gap(a, b, ta, r, ar, 2, 0, 1, 1, 2, 0);
		g[8] = edge_gap(a, b, ta, r, ar, 2, 0, 1, 2, 0, 1);
		for (int k = 0; k < 9; ++k) {
			double gk = g[k] - margin;
			if (gk > 0.0 && gk > stop)
				return gk;
			best = gk > 0.0 && gk > best ? gk : best;
		}
	}
	return best;
}

// ---------------------------------------------------------------------------
// Branch and bound.

/// A branch and bound's fixed parts.
typedef struct near_ctx {
	const imp_bvh *a, *b;
	const imp_bvh_xform *x;
	const imp_box *box;        ///< b NULL: the query's box (NULL: none)
	const imp_bvh_obb *query;  ///< b NULL, oriented: the query's oriented box
	imp_bvh_key_fn *key;       ///< b NULL, not oriented: the caller's bound, or NULL
	imp_bvh_obb_key_fn *okey;  ///< b NULL, oriented: the caller's bound, or NULL
	imp_bvh_obb_pair_fn *pkey; ///< b's, oriented: the caller's sharper bound, or NULL
	void *key_ctx;
	bool oriented;
	int dim;
} near_ctx;

/// Node nb of b moved into a's frame, into e.
static void near_move(const near_ctx *c, int32_t nb, near_entry *e)
{
	if (c->oriented)
		imp_obb_move(&c->b->obb[nb], c->x, &e->v.ob);
	else
		imp_box_move(&c->b->nodes[nb].box, c->x, c->dim, &e->v.bb);
}

/// The bound of node na of a against e's volume of b, or against the
/// query: the boxes', then the caller's, then the oriented boxes' (when
/// there is a query box), each asked only while the node is not ruled
/// out.
static double near_key(const near_ctx *c, int32_t na, const near_entry *e, double bound)
{
	if (c->b != NULL && c->oriented) {
		const imp_bvh_obb *A = &c->a->obb[na], *B = &e->v.ob;
		if (c->pkey == NULL)
			return imp_obb_bound(A, B, bound, false);
		// Boxes apart along the line through their centres, but not by
		// the bound: the caller's bound (GJK on the boxes) settles them;
		// boxes that meet on that line most likely overlap, and the
		// separating axes are the cheaper try. UR10 links 0.06 to 0.5
		// apart, 578 distance queries: 1,138 million instructions with
		// the axes alone, 688 with GJK after them, 529 with GJK alone,
		// 564 so; 1e-5 to 9e-4 apart: 243, 402, 396 and 269 million.
		double g = imp_obb_centre_gap(A, B);
		if (g > bound)
			return g;
		return g >= 0.0 ? c->pkey(c->key_ctx, A, B, g, bound) : imp_obb_bound(A, B, bound, false);
	}
	if (c->b != NULL)
		return imp_box_bound(&c->a->nodes[na].box, &e->v.bb, c->dim);
	const imp_box *box = &c->a->nodes[na].box;
	double k = c->box != NULL ? imp_box_bound(box, c->box, c->dim) : -INFINITY;
	if (k <= bound && (c->key != NULL || c->okey != NULL)) {
		double u = c->oriented ? c->okey(c->key_ctx, &c->a->obb[na]) : c->key(c->key_ctx, box);
		k = u > k ? u : k;
	}
	if (c->oriented && c->query != NULL && k <= bound) {
		double o = imp_obb_bound(&c->a->obb[na], c->query, bound, false);
		k = o > k ? o : k;
	}
	return k;
}

/// Whether a's node na, rather than e's volume of b, is the one to split:
/// the larger.
static bool split_a(const near_ctx *c, int32_t na, const near_entry *e)
{
	if (c->oriented)
		return obb_area(&c->a->obb[na]) >= obb_area(&e->v.ob);
	return imp_box_area(&c->a->nodes[na].box, c->dim) >= imp_box_area(&e->v.bb, c->dim);
}

static double nearest(const near_ctx *c, double bound, imp_bvh_bound_fn *fn, void *ctx)
{
	near_entry stack[2 * IMP_BVH_MAX_DEPTH + 2];
	int sp = 0;
	near_entry cur;
	memset(&cur, 0, sizeof cur);
	if (c->b != NULL)
		near_move(c, 0, &cur);
	cur.key = near_key(c, 0, &cur, bound);
	for (;;) {
		if (cur.key <= bound) {
			const imp_bvh_node *A = &c->a->nodes[cur.a];
			const imp_bvh_node *B = c->b != NULL ? &c->b->nodes[cur.b] : NULL;
			bool la = A->right < 0, lb = B == NULL || B->right < 0;
			if (la && lb) {
				bound = fn(ctx, A->item, B != NULL ? B->item : 0, bound);
			} else if (lb || (!la && split_a(c, cur.a, &cur))) {
				// a's node splits; b's volume is carried along.
				int32_t a1 = cur.a + 1, a2 = A->right;
				double k1 = near_key(c, a1, &cur, bound), k2 = near_key(c, a2, &cur, bound);
				bool first = k1 <= k2;
				if ((first ? k2 : k1) <= bound) {
					stack[sp] = cur;
					stack[sp].a = first ? a2 : a1;
					stack[sp++].key = first ? k2 : k1;
				}
				cur.a = first ? a1 : a2;
				cur.key = first ? k1 : k2;
				continue;
			} else {
				// b's node splits: its children are moved.
				near_entry c1, c2;
				c1.a = c2.a = cur.a;
				c1.b = cur.b + 1;
				c2.b = B->right;
				near_move(c, c1.b, &c1);
				near_move(c, c2.b, &c2);
				c1.key = near_key(c, cur.a, &c1, bound);
				c2.key = near_key(c, cur.a, &c2, bound);
				// The nearer first; the other waits.
				bool first = c1.key <= c2.key;
				if ((first ? c2.key : c1.key) <= bound)
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

double imp_bvh_nearest(const imp_bvh *a, const imp_bvh *b, const imp_bvh_xform *b_in_a, const imp_box *query,
		       double bound, imp_bvh_bound_fn *fn, void *ctx)
{
	return imp_bvh_nearest_keyed(a, b, b_in_a, query, NULL, NULL, bound, fn, ctx);
}

double imp_bvh_nearest_keyed(const imp_bvh *a, const imp_bvh *b, const imp_bvh_xform *b_in_a, const imp_box *query,
			     imp_bvh_key_fn *key, void *key_ctx, double bound, imp_bvh_bound_fn *fn, void *ctx)
{
	near_ctx c = {a, b, b_in_a, query, NULL, b != NULL ? NULL : key, NULL, NULL, key_ctx, false, a->dim};
	return nearest(&c, bound, fn, ctx);
}

double imp_bvh_nearest_obb(const imp_bvh *a, const imp_bvh *b, const imp_bvh_xform *b_in_a, const imp_box *box,
			   const imp_bvh_obb *query, imp_bvh_obb_key_fn *key, imp_bvh_obb_pair_fn *pair_key,
			   void *key_ctx, double bound, imp_bvh_bound_fn *fn, void *ctx)
{
	near_ctx c = {a, b, b_in_a, box, query, NULL, b != NULL ? NULL : key, b != NULL ? pair_key : NULL, key_ctx, true, 3};
	return nearest(&c, bound, fn, ctx);
}
