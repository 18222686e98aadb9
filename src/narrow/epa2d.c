// SPDX-License-Identifier: MIT
// The expanding polygon: penetration depth and direction of two overlapping
// 2D cores (the 2D form of van den Bergen's EPA). C = A - B holds the origin;
// the polygon inside C is grown at its edge nearest the origin until that
// edge lies on C's boundary. Reentrant, no allocation.
#include <math.h>
#include <string.h>

#include "narrow/gjk2d_internal.h"
#include "narrow/query_options.h"

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
	/// h[i]: C's support height along the direction that found vertex i
	/// (an upper bound of the depth); INFINITY for the first polygon's.
	double h[EPA_CAPACITY];
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

/// Inserts w, found at support height h, after vertex i and refreshes the
/// two new edges.
static void insert_after(polygon *p, int i, const imp_svert2 *w, double h)
{
	int k = i + 1;
	int tail = p->n - k;
	memmove(&p->v[k + 1], &p->v[k], (size_t)tail * sizeof p->v[0]);
	memmove(&p->e[k + 1], &p->e[k], (size_t)tail * sizeof p->e[0]);
	memmove(&p->h[k + 1], &p->h[k], (size_t)tail * sizeof p->h[0]);
	p->v[k] = *w;
	p->h[k] = h;
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
	imp_svert2 s0 = s[0], s1 = s[n == 2 ? 1 : 0];
	if (n == 3) {
		double area = imp_vec2_cross(imp_vec2_sub(s[1].w, s[0].w), imp_vec2_sub(s[2].w, s[0].w));
		// A sliver (two of its points within rounding of each other, the
		// origin on the line of the others: fuzz finding 55) has no
		// orientation to trust: its longest side is taken as a segment.
		double m = 0.0;
		int i0 = 0, i1 = 1;
		for (int i = 0; i < 3; ++i) {
			imp_vec2 d = imp_vec2_sub(s[(i + 1) % 3].w, s[i].w);
			double dd = imp_vec2_dot(d, d);
			if (dd > m) {
				m = dd;
				i0 = i;
				i1 = (i + 1) % 3;
			}
		}
		if (fabs(area) > 1e-12 * m) {
			p->n = 3;
			p->v[0] = s[0];
			p->v[1] = area > 0.0 ? s[1] : s[2];
			p->v[2] = area > 0.0 ? s[2] : s[1];
			return true;
		}
		s0 = s[i0];
		s1 = s[i1];
	}
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
		flat_result(&s0, &s1, imp_robust_unit2(imp_vec2_make(-e.y, e.x), imp_vec2_make(1.0, 0.0)), out);
		return false;
	}
	return true;
}

/// h_C(u) = u . S_C(u) for u = n0 + s t0 normalised; *w gets S_C(u).
static double support_height(imp_gjk2_ctx *c, imp_vec2 n0, imp_vec2 t0, double s, imp_vec2 *u, imp_svert2 *w)
{
	imp_vec2 d = imp_vec2_add(n0, imp_vec2_scale(s, t0));
	*u = imp_vec2_scale(1.0 / imp_vec2_length(d), d);
	imp_cso_support2(c, *u, w);
	return imp_vec2_dot(*u, w->w);
}

/// The tangent parameter, between 0 and `end` (n0 + end t0 a neighbour
/// edge's normal), up to which the polygon's own support height u . v
/// stays within `top`, v being the polygon vertex whose normal cone that
/// side is. No direction beyond it can hold the depth: there h_C(u) >=
/// u . v > top, and top is h_C(n0). On the cone u . v = a cos(theta) +
/// b sin(theta) is positive and concave in the angle, a <= top at 0, so the
/// directions above top are one interval ending at `end`, found by
/// bisection on the angle (the tangent parameter of a nearly
/// perpendicular neighbour is huge, and would put all but a sliver of
/// the range in the neighbour's face). `end` itself when u . v stays
/// within top up to it: the neighbour's edge is then as shallow, and its
/// side stays in the search.
static double bracket_end(imp_vec2 n0, imp_vec2 t0, imp_vec2 v, double top, double end)
{
	double a = imp_vec2_dot(n0, v), b = imp_vec2_dot(t0, v);
	double in = 0.0, beyond = atan(end);
	if (!(a * cos(beyond) + b * sin(beyond) > top))
		return end;
	for (int k = 0; k < 64; ++k) {
		double m = 0.5 * (in + beyond);
		if (a * cos(m) + b * sin(m) > top)
			beyond = m;
		else
			in = m;
	}
	return tan(beyond);
}

/// On a curved (user) shape the polygon only approaches C, and its
/// nearest edge can stop short of the tolerance within the iteration
/// limit (the review measured depth errors up to 8e-4). The depth is the
/// least support height h_C(u) = u . S_C(u) over unit directions u, a
/// function of one angle in 2D: minimised here by golden section, one
/// support per step, to an angle of 1e-13: a smooth minimum is exact to
/// rounding long before, but at a face of a polygon core (h_C's kink,
/// the face's length its slope) an angle of 1e-10 left 1.7e-10 on a
/// face 124 long. h_C has a local minimum at every face of C, so the search
/// runs only where the polygon leaves room for a depth below h_C(n0),
/// the height along the best edge's normal (bracket_end), within the
/// normals of the best edge's neighbours: between a box's long faces the
/// whole half turn to the neighbours' normals held the far face, whose
/// height of 62.3 was once taken for a depth of 0.75. Taken only when the
/// minimum is inside that range (not on an end: then it lies outside, as
/// on nearly concentric circles, where h_C is almost flat), no higher than
/// h_C(n0) and no lower than the polygon's depth, which bounds it from
/// below. The answer stays at the iteration limit when the options cut
/// the polygon short (max_iterations below the default).
///
/// Runs about edge `best` of the polygon, whose depth (its nearest edge's
/// distance, a lower bound) is `floor`; true when it found a minimum, then
/// in *out (normal, depth, the support as both ends). Counts its supports
/// in *iterations.
static bool refine_curved(imp_gjk2_ctx *c, const polygon *p, int best, double floor, imp_epa2_result *out,
			  int *iterations)
{
	imp_vec2 n0 = p->e[best].normal;
	n0 = imp_vec2_scale(1.0 / imp_vec2_length(n0), n0);
	imp_vec2 t0 = imp_vec2_make(-n0.y, n0.x);
	imp_vec2 np = p->e[best == 0 ? p->n - 1 : best - 1].normal;
	imp_vec2 nn = p->e[best + 1 == p->n ? 0 : best + 1].normal;
	// The neighbours' normals as tangent parameters (negative before n0).
	double lo = imp_vec2_dot(np, n0) > 0.0 ? imp_vec2_dot(np, t0) / imp_vec2_dot(np, n0) : -1.0;
	double hi = imp_vec2_dot(nn, n0) > 0.0 ? imp_vec2_dot(nn, t0) / imp_vec2_dot(nn, n0) : 1.0;
	if (!(lo < 0.0) || !(hi > 0.0) || !isfinite(lo) || !isfinite(hi))
		return false;
	const double g = 0.6180339887498949;
	imp_vec2 u1, u2, ue, u0;
	imp_svert2 w1, w2, we, w0;
	// The cone of the edge's start is on the side before n0, its end's after.
	double top = support_height(c, n0, t0, 0.0, &u0, &w0);
	if (c->bad || !isfinite(top))
		return false;
	lo = bracket_end(n0, t0, p->v[best].w, top, lo);
	hi = bracket_end(n0, t0, p->v[best + 1 == p->n ? 0 : best + 1].w, top, hi);
	if (!(lo < 0.0) || !(hi > 0.0))
		return false;
	// The ends first: a minimum on an end is no minimum of h_C, and then
	// the polygon's answer stands. Told by where the search ends, not only
	// by the heights, which near a face of C are equal to rounding.
	const double lo0 = lo, hi0 = hi, margin = 1e-6 * (hi - lo);
	double flo = support_height(c, n0, t0, lo, &ue, &we), fhi = support_height(c, n0, t0, hi, &ue, &we);
	double x1 = hi - g * (hi - lo), x2 = lo + g * (hi - lo);
	double f1 = support_height(c, n0, t0, x1, &u1, &w1), f2 = support_height(c, n0, t0, x2, &u2, &w2);
	int steps = 4;
	for (; steps < 84 && hi - lo > 1e-13 && !c->bad; ++steps) {
		if (f1 < f2) {
			hi = x2;
			x2 = x1;
			f2 = f1;
			u2 = u1;
			w2 = w1;
			x1 = hi - g * (hi - lo);
			f1 = support_height(c, n0, t0, x1, &u1, &w1);
		} else {
			lo = x1;
			x1 = x2;
			f1 = f2;
			u1 = u2;
			w1 = w2;
			x2 = lo + g * (hi - lo);
			f2 = support_height(c, n0, t0, x2, &u2, &w2);
		}
	}
	*iterations += steps;
	bool first = f1 < f2;
	double fb = first ? f1 : f2;
	if (c->bad || !(hi - lo <= 1e-13) || !(lo > lo0 + margin && hi < hi0 - margin) || !(fb < flo && fb < fhi))
		return false;
	// At a face of C (a kink of h_C) the search ends within its angle of
	// the face's normal, n0 when the polygon's edge lies on that face.
	bool at_n0 = top <= fb;
	fb = at_n0 ? top : fb;
	if (!(fb >= floor - 1e-12 * (floor + 1.0)))
		return false;
	out->normal = at_n0 ? u0 : (first ? u1 : u2);
	out->depth = fb > 0.0 ? fb : 0.0;
	out->e0 = out->e1 = at_n0 ? w0 : (first ? w1 : w2);
	out->t = 0.0;
	return true;
}

/// Edge i's answer: its normal, its distance as the depth, and the point
/// of it nearest the origin's foot.
static void edge_answer(const polygon *p, int i, imp_epa2_result *out)
{
	int next = i + 1 == p->n ? 0 : i + 1;
	out->e0 = p->v[i];
	out->e1 = p->v[next];
	imp_vec2 nrm = p->e[i].normal;
	out->normal = imp_vec2_scale(1.0 / imp_vec2_length(nrm), nrm);
	double key = p->e[i].key;
	out->depth = key > 0.0 ? sqrt(key) : 0.0;
	imp_vec2 e = imp_vec2_sub(out->e1.w, out->e0.w);
	imp_vec2 foot = imp_vec2_scale(out->depth, out->normal);
	double t = imp_vec2_dot(imp_vec2_sub(foot, out->e0.w), e) / imp_vec2_dot(e, e);
	out->t = t < 0.0 ? 0.0 : (t > 1.0 ? 1.0 : t);
}

/// Polygon cores of at most this many vertices have their faces' normals
/// tried as directions of the depth on a curved C (see imp_epa2).
#define FACE_NORMAL_TRIES 64

/// The depth along each face normal of polygon core x (a's, or b's when
/// is_b, whose faces push b out along minus their normal), kept when
/// lower than out's.
static void try_face_normals2(imp_gjk2_ctx *c, const imp_proxy2 *x, bool is_b, imp_epa2_result *out)
{
	if (x->v == NULL || x->n < 2 || x->n > FACE_NORMAL_TRIES)
		return;
	for (int i = 0; i < x->n && !c->bad; ++i) {
		int j = i + 1 == x->n ? 0 : i + 1;
		if (x->n == 2 && i == 1)
			j = 0; // a segment's two sides
		imp_vec2 v0 = is_b ? imp_ctx_b_vertex(c, i) : x->v[i], v1 = is_b ? imp_ctx_b_vertex(c, j) : x->v[j];
		imp_vec2 d = imp_vec2_sub(v1, v0);
		double len = imp_vec2_length(d);
		if (!(len > 0.0))
			continue;
		imp_vec2 n = imp_vec2_make(d.y / len, -d.x / len);
		if (is_b)
			n = imp_vec2_scale(-1.0, n);
		imp_vec2 u;
		imp_svert2 w;
		double h = support_height(c, n, imp_vec2_make(-n.y, n.x), 0.0, &u, &w);
		++out->iterations;
		if (!c->bad && h < out->depth) {
			out->normal = u;
			out->depth = h > 0.0 ? h : 0.0;
			out->e0 = out->e1 = w;
			out->t = 0.0;
		}
	}
}

void imp_epa2(imp_gjk2_ctx *c, const imp_svert2 *s, int n, int max_iterations, double tol,
	      imp_epa2_result *out)
{
	polygon p;
	out->iterations = 0;
	out->limit = false;
	if (!initial_polygon(c, s, n, tol, &p, out))
		return;
	for (int i = 0; i < p.n; ++i) {
		set_edge(&p, i);
		p.h[i] = INFINITY;
	}

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
		if (imp_svert2_same(&w, &p.v[best]) || imp_svert2_same(&w, &p.v[next]))
			break;
		// Converged when w is no farther out than the edge (by tol).
		double gap = imp_vec2_dot(nrm, imp_vec2_sub(w.w, p.v[best].w));
		double len = sqrt(imp_vec2_dot(nrm, nrm));
		if (gap <= tol * len)
			break;
		insert_after(&p, best, &w, imp_vec2_dot(nrm, w.w) / len);
	}
	if (p.e[best].key == INFINITY) {
		int next = best + 1 == p.n ? 0 : best + 1;
		out->e0 = p.v[best];
		out->e1 = p.v[next];
		out->normal = imp_vec2_make(1.0, 0.0);
		out->depth = 0.0;
		out->t = 0.0;
		return;
	}
	edge_answer(&p, best, out);
	if (!(out->limit && (c->a.v == NULL || c->b.v == NULL) && out->depth > 0.0))
		return;
	// Two basins: about the nearest edge, and about the vertex found at
	// the least support height. The chords of a polygon inscribed in a
	// large curved C sag more than its basins differ: a user ellipse 0.5
	// off the centre of a user circle of radius 4518 had its nearest edge
	// on the far side, 4518.4999 deep for 4517.5 (fuzz finding 70), while
	// the heights measured at the vertices, which do not sag, told the
	// sides apart.
	imp_epa2_result r, r2;
	bool found = refine_curved(c, &p, best, out->depth, &r, &out->iterations);
	int low = 0;
	for (int i = 1; i < p.n; ++i)
		low = p.h[i] < p.h[low] ? i : low;
	if (isfinite(p.h[low])) {
		int before = low == 0 ? p.n - 1 : low - 1;
		int side = p.e[before].key < p.e[low].key ? before : low;
		if (side != best && refine_curved(c, &p, side, out->depth, &r2, &out->iterations) &&
		    (!found || r2.depth < r.depth)) {
			r = r2;
			found = true;
		}
	}
	if (found) {
		out->normal = r.normal;
		out->depth = r.depth;
		out->e0 = r.e0;
		out->e1 = r.e1;
		out->t = 0.0;
		// A polygon cut short by the options (fewer iterations than the
		// default) leaves the search bracketed far off: a local minimum it
		// finds is the best found, not the depth (a user circle of radius
		// 510 in a thin polygon, 510.125 at 7 iterations as exact; fuzz
		// findings 43, 44 and a user shape 27198 deep for 27123 at one).
		out->limit = max_iterations < imp_default_options.epa_max_iterations;
	}
	// Where a core is a polygon, h_C is kinked along its faces' normals and
	// its minimum may sit there, away from the polygon's nearest edge: a
	// box 0.125 off the centre of a user circle of radius 25088 came out
	// through the far side, 0.25 deeper (the chords' sagitta, about 30,
	// hid which side was nearer; fuzz finding 57), and its face's normal
	// gives 25092.125. Those directions are tried as they are, for polygon
	// cores of at most FACE_NORMAL_TRIES vertices.
	try_face_normals2(c, &c->a, false, out);
	try_face_normals2(c, &c->b, true, out);
}
