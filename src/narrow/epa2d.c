// SPDX-License-Identifier: MIT
// The expanding polygon: penetration depth and direction of two overlapping
// 2D cores (the 2D form of van den Bergen's EPA). C = A - B holds the origin;
// the polygon inside C is grown at its edge nearest the origin until that
// edge lies on C's boundary. Reentrant, no allocation.
#include <math.h>
#include <string.h>

#include "narrow/gjk2d_internal.h"

/// Room for this many polygon vertices: far more than the iterations a
/// query allows by default; reaching it ends the solve as an iteration limit.
#define EPA_CAPACITY 128

/// An edge i -> i + 1 of the polygon: its outward normal, not normalised,
/// and its squared distance from the origin, signed (negative when the
/// origin is, by rounding, outside it), so that no square root is taken
/// until the end.
typedef struct edge {
	imp_vec2 normal;
	double key; ///< sign(n.w) (n.w)^2 / |n|^2; INFINITY for an edge of no length
} edge;

typedef struct polygon {
	imp_svert2 v[EPA_CAPACITY];
	edge e[EPA_CAPACITY];
	int n;
} polygon;

static inline void set_edge(polygon *p, int i)
{
	int j = i + 1 == p->n ? 0 : i + 1;
	imp_vec2 d = imp_vec2_sub(p->v[j].w, p->v[i].w);
	// Counter-clockwise ring: the outward normal is the edge turned clockwise.
	imp_vec2 nrm = imp_vec2_make(d.y, -d.x);
	double nn = imp_vec2_dot(nrm, nrm);
	double h = 0.5 * (imp_vec2_dot(nrm, p->v[i].w) + imp_vec2_dot(nrm, p->v[j].w));
	p->e[i].normal = nrm;
	p->e[i].key = nn > 0.0 ? h / nn * (h >= 0.0 ? h : -h) : INFINITY; // in this order: no overflow
}

static inline int nearest_edge(const polygon *p)
{
	int best = 0;
	double key = p->e[0].key;
	for (int i = 1; i < p->n; ++i) {
		bool lt = p->e[i].key < key;
		best = lt ? i : best;
		key = lt ? p->e[i].key : key;
	}
	return best;
}

/// Inserts w after vertex i and refreshes the two new edges.
static void insert_after(polygon *p, int i, const imp_svert2 *w)
{
	int k = i + 1;
	int tail = p->n - k;
	memmove(&p->v[k + 1], &p->v[k], (size_t)tail * sizeof p->v[0]);
	memmove(&p->e[k + 1], &p->e[k], (size_t)tail * sizeof p->e[0]);
	p->v[k] = *w;
	p->n += 1;
	set_edge(p, i);
	set_edge(p, k);
}

/// Grows segment {s0, s1} (with the origin on it) into a polygon with the
/// supports on both sides. Returns false when C is flat there (no area).
static bool polygon_from_segment(imp_gjk2_ctx *c, const imp_svert2 *s0, const imp_svert2 *s1, polygon *p,
				 double tol)
{
	imp_vec2 e = imp_vec2_sub(s1->w, s0->w);
	imp_vec2 left = imp_vec2_make(-e.y, e.x);
	imp_svert2 wl, wr;
	imp_cso_support2(c, left, &wl);
	imp_cso_support2(c, imp_vec2_make(e.y, -e.x), &wr);
	double len = imp_vec2_length(e);
	bool has_l = imp_vec2_dot(imp_vec2_sub(wl.w, s0->w), left) > tol * len;
	bool has_r = -imp_vec2_dot(imp_vec2_sub(wr.w, s0->w), left) > tol * len;
	if (!has_l && !has_r)
		return false;
	p->n = 0;
	p->v[p->n++] = *s0;
	if (has_r)
		p->v[p->n++] = wr;
	p->v[p->n++] = *s1;
	if (has_l)
		p->v[p->n++] = wl;
	return true;
}

/// A zero-depth answer: the origin on segment {s0, s1} of C, which has no
/// area there to grow into.
static void flat_result(const imp_svert2 *s0, const imp_svert2 *s1, imp_vec2 normal, imp_epa2_result *out)
{
	out->normal = normal;
	out->depth = 0.0;
	out->e0 = *s0;
	out->e1 = *s1;
	imp_vec2 e = imp_vec2_sub(s1->w, s0->w);
	double ee = imp_vec2_dot(e, e);
	double t = ee > 0.0 ? -imp_vec2_dot(s0->w, e) / ee : 0.0;
	out->t = t < 0.0 ? 0.0 : (t > 1.0 ? 1.0 : t);
}

/// Builds the first polygon from GJK's simplex. False when the answer is
/// already known (C flat or a point), then written to *out.
static bool initial_polygon(imp_gjk2_ctx *c, const imp_svert2 *s, int n, double tol, polygon *p,
			    imp_epa2_result *out)
{
	if (n == 3) {
		p->n = 3;
		p->v[0] = s[0];
		bool ccw = imp_vec2_cross(imp_vec2_sub(s[1].w, s[0].w), imp_vec2_sub(s[2].w, s[0].w)) > 0.0;
		p->v[1] = ccw ? s[1] : s[2];
		p->v[2] = ccw ? s[2] : s[1];
		return true;
	}
	imp_svert2 s0 = s[0], s1 = s[n == 2 ? 1 : 0];
	imp_vec2 e = imp_vec2_sub(s1.w, s0.w);
	if (n == 1 || imp_vec2_dot(e, e) == 0.0) {
		// The origin is a point of C: find a second point along some axis.
		static const imp_vec2 axes[4] = {{1, 0}, {0, 1}, {-1, 0}, {0, -1}};
		bool found = false;
		for (int k = 0; k < 4 && !found; ++k) {
			imp_cso_support2(c, axes[k], &s1);
			found = imp_vec2_dot(imp_vec2_sub(s1.w, s0.w), axes[k]) > tol;
		}
		if (!found) {
			// C is a single point: every direction separates at once.
			flat_result(&s0, &s0, imp_vec2_make(1.0, 0.0), out);
			return false;
		}
		e = imp_vec2_sub(s1.w, s0.w);
	}
	if (!polygon_from_segment(c, &s0, &s1, p, tol)) {
		flat_result(&s0, &s1, imp_vec2_scale(1.0 / imp_vec2_length(e), imp_vec2_make(-e.y, e.x)), out);
		return false;
	}
	return true;
}

void imp_epa2(imp_gjk2_ctx *c, const imp_svert2 *s, int n, int max_iterations, double tol,
	      imp_epa2_result *out)
{
	polygon p;
	out->iterations = 0;
	out->limit = false;
	if (!initial_polygon(c, s, n, tol, &p, out))
		return;
	for (int i = 0; i < p.n; ++i)
		set_edge(&p, i);

	int best;
	for (;;) {
		best = nearest_edge(&p);
		if (p.e[best].key == INFINITY)
			break;
		if (out->iterations == max_iterations || p.n == EPA_CAPACITY) {
			out->limit = true;
			break;
		}
		int next = best + 1 == p.n ? 0 : best + 1;
		imp_vec2 nrm = p.e[best].normal;
		imp_svert2 w;
		// The support along the edge normal lies between the edge's ends on
		// each shape: climb from one of them.
		imp_cso_support2_near(c, nrm, &p.v[best], &w);
		out->iterations += 1;
		if (c->bad)
			break;
		if (imp_svert2_same(&w, &p.v[best], false) || imp_svert2_same(&w, &p.v[next], false))
			break;
		// Converged when w is no farther out than the edge (by tol).
		double gap = imp_vec2_dot(nrm, imp_vec2_sub(w.w, p.v[best].w));
		if (gap <= tol * sqrt(imp_vec2_dot(nrm, nrm)))
			break;
		insert_after(&p, best, &w);
	}
	int next = best + 1 == p.n ? 0 : best + 1;
	out->e0 = p.v[best];
	out->e1 = p.v[next];
	if (p.e[best].key == INFINITY) {
		out->normal = imp_vec2_make(1.0, 0.0);
		out->depth = 0.0;
		out->t = 0.0;
		return;
	}
	imp_vec2 nrm = p.e[best].normal;
	double len = imp_vec2_length(nrm);
	out->normal = imp_vec2_scale(1.0 / len, nrm);
	double key = p.e[best].key;
	out->depth = key > 0.0 ? sqrt(key) : 0.0;
	imp_vec2 e = imp_vec2_sub(out->e1.w, out->e0.w);
	imp_vec2 foot = imp_vec2_scale(out->depth, out->normal);
	double t = imp_vec2_dot(imp_vec2_sub(foot, out->e0.w), e) / imp_vec2_dot(e, e);
	out->t = t < 0.0 ? 0.0 : (t > 1.0 ? 1.0 : t);
}
