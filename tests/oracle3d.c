// SPDX-License-Identifier: MIT
// The 3D test oracle: plain brute force, independent of src/ (only the
// inline helpers of <impact/vecmath.h>). See oracle3d.h.
#include "oracle3d.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static imp_vec3 add(imp_vec3 a, imp_vec3 b)
{
	return imp_vec3_add(a, b);
}

static imp_vec3 sub(imp_vec3 a, imp_vec3 b)
{
	return imp_vec3_sub(a, b);
}

static imp_vec3 scale(double s, imp_vec3 a)
{
	return imp_vec3_scale(s, a);
}

/// a + s b.
static imp_vec3 axpy(imp_vec3 a, double s, imp_vec3 b)
{
	return imp_vec3_make(a.x + s * b.x, a.y + s * b.y, a.z + s * b.z);
}

static double dot(imp_vec3 a, imp_vec3 b)
{
	return imp_vec3_dot(a, b);
}

static imp_vec3 cross(imp_vec3 a, imp_vec3 b)
{
	return imp_vec3_cross(a, b);
}

static double len(imp_vec3 a)
{
	return imp_vec3_length(a);
}

static imp_vec3 unit(imp_vec3 a)
{
	return scale(1.0 / len(a), a);
}

static bool same(imp_vec3 a, imp_vec3 b)
{
	return a.x == b.x && a.y == b.y && a.z == b.z;
}

static double max_abs(imp_vec3 a)
{
	return fmax(fabs(a.x), fmax(fabs(a.y), fabs(a.z)));
}

static uint64_t bit(int i)
{
	return (uint64_t)1 << i;
}

static bool has(uint64_t mask, int i)
{
	return (mask >> i) & 1u;
}

static int count(uint64_t mask)
{
	int c = 0;
	for (; mask; mask &= mask - 1)
		c++;
	return c;
}

static void fail(const char *what, int n)
{
	fprintf(stderr, "oracle3d: %s (%d)\n", what, n);
	abort();
}

// ---------------------------------------------------------------------------
// Elementary distances. Every closest point returned is formed as a point
// of the feature (an end, or a combination with parameters inside the
// feature), so a computed distance never undercuts the true one by more
// than the rounding of that point.

double o3_point_segment_distance(imp_vec3 p, imp_vec3 a, imp_vec3 b, imp_vec3 *closest)
{
	imp_vec3 e = sub(b, a);
	double ee = dot(e, e);
	double t = 0.0;
	if (ee > 0.0) {
		t = dot(sub(p, a), e) / ee;
		if (!(t > 0.0))
			t = 0.0;
		if (t > 1.0)
			t = 1.0;
	}
	imp_vec3 c = t == 1.0 ? b : axpy(a, t, e);
	if (closest)
		*closest = c;
	return len(sub(p, c));
}

// The foot of the perpendicular from p to the plane of (a, b, c), when it
// falls inside the triangle. Its barycentric coordinates s, t (along
// b - a, c - a) come from triple products with n = (b - a) x (c - a):
// s = ((p - a) x (c - a)).n / n.n, t = ((b - a) x (p - a)).n / n.n.
static bool foot_in_triangle(imp_vec3 p, imp_vec3 a, imp_vec3 b, imp_vec3 c, imp_vec3 *foot)
{
	imp_vec3 e1 = sub(b, a), e2 = sub(c, a), w = sub(p, a);
	imp_vec3 n = cross(e1, e2);
	double nn = dot(n, n);
	if (!(nn > 0.0))
		return false;
	double s = dot(cross(w, e2), n) / nn;
	double t = dot(cross(e1, w), n) / nn;
	if (!(s >= 0.0 && t >= 0.0 && s + t <= 1.0))
		return false;
	*foot = axpy(axpy(a, s, e1), t, e2);
	return true;
}

double o3_point_triangle_distance(imp_vec3 p, imp_vec3 a, imp_vec3 b, imp_vec3 c, imp_vec3 *closest)
{
	imp_vec3 best_point;
	double best;
	if (foot_in_triangle(p, a, b, c, &best_point)) {
		best = len(sub(p, best_point));
	} else {
		// Otherwise the nearest point is on the boundary.
		imp_vec3 ends[3][2] = {{a, b}, {b, c}, {c, a}};
		best = DBL_MAX;
		for (int i = 0; i < 3; i++) {
			imp_vec3 q;
			double d = o3_point_segment_distance(p, ends[i][0], ends[i][1], &q);
			if (d < best) {
				best = d;
				best_point = q;
			}
		}
	}
	if (closest)
		*closest = best_point;
	return best;
}

double o3_segment_segment_distance(imp_vec3 p0, imp_vec3 p1, imp_vec3 q0, imp_vec3 q1, imp_vec3 *cp,
				   imp_vec3 *cq)
{
	// |P(s) - Q(t)| is convex on [0, 1]^2: its minimum is on the border of
	// the square (an end against the other segment) or inside it, where
	// the connecting line is perpendicular to both segments: with
	// d1 = p1 - p0, d2 = q1 - q0, n = d1 x d2, w = q0 - p0,
	// s = (w x d2).n / n.n and t = (w x d1).n / n.n.
	imp_vec3 ends[4][3] = {{p0, q0, q1}, {p1, q0, q1}, {q0, p0, p1}, {q1, p0, p1}};
	double best = DBL_MAX;
	imp_vec3 bp = p0, bq = q0;
	for (int i = 0; i < 4; i++) {
		imp_vec3 c;
		double d = o3_point_segment_distance(ends[i][0], ends[i][1], ends[i][2], &c);
		if (d < best) {
			best = d;
			bp = i < 2 ? ends[i][0] : c;
			bq = i < 2 ? c : ends[i][0];
		}
	}
	imp_vec3 d1 = sub(p1, p0), d2 = sub(q1, q0), n = cross(d1, d2);
	double nn = dot(n, n);
	if (nn > 0.0) {
		imp_vec3 w = sub(q0, p0);
		double s = dot(cross(w, d2), n) / nn;
		double t = dot(cross(w, d1), n) / nn;
		if (s >= 0.0 && s <= 1.0 && t >= 0.0 && t <= 1.0) {
			imp_vec3 x = axpy(p0, s, d1), y = axpy(q0, t, d2);
			double d = len(sub(y, x));
			if (d < best) {
				best = d;
				bp = x;
				bq = y;
			}
		}
	}
	if (cp)
		*cp = bp;
	if (cq)
		*cq = bq;
	return best;
}

double o3_point_box_distance(imp_vec3 p, imp_vec3 half, imp_vec3 *closest)
{
	imp_vec3 c = imp_vec3_make(fmin(fmax(p.x, -half.x), half.x), fmin(fmax(p.y, -half.y), half.y),
				   fmin(fmax(p.z, -half.z), half.z));
	if (closest)
		*closest = c;
	return len(sub(p, c));
}

double o3_point_ellipsoid_distance(imp_vec3 p, imp_vec3 e, imp_vec3 *closest)
{
	double pc[3] = {p.x, p.y, p.z}, ec[3] = {e.x, e.y, e.z};
	double g = 0.0;
	for (int i = 0; i < 3; i++)
		g += (pc[i] / ec[i]) * (pc[i] / ec[i]);
	if (g <= 1.0) {
		if (closest)
			*closest = p;
		return 0.0;
	}
	// The nearest point x satisfies p - x = t grad(sum x_i^2 / e_i^2) / 2,
	// so x_i = e_i^2 p_i / (e_i^2 + t) with t > 0 the root of
	// F(t) = sum (e_i p_i / (e_i^2 + t))^2 - 1. F decreases and is convex,
	// F(0) = g - 1 > 0 and F(hi) < 0 for hi = |(e_i p_i)| since each term
	// is below (e_i p_i / t)^2.
	double lo = 0.0, hi = 0.0, t = 0.0;
	for (int i = 0; i < 3; i++)
		hi += (ec[i] * pc[i]) * (ec[i] * pc[i]);
	hi = sqrt(hi);
	for (int it = 0; it < 2000; it++) {
		double f = -1.0, df = 0.0;
		for (int i = 0; i < 3; i++) {
			double q = ec[i] * ec[i] + t;
			double r = ec[i] * pc[i] / q;
			f += r * r;
			df -= 2.0 * r * r / q;
		}
		if (f > 0.0)
			lo = t;
		else if (f < 0.0)
			hi = t;
		else
			break;
		if (!(nextafter(lo, INFINITY) < hi))
			break; // the bracket holds no other double
		double next = t - f / df;
		if (!(next > lo && next < hi))
			next = 0.5 * (lo + hi);
		if (next == t)
			break;
		t = next;
	}
	// x and p - x each from its own formula, neither by cancellation: p - x
	// = p_i t / (e_i^2 + t) is accurate near the surface, x far from it.
	imp_vec3 d = imp_vec3_make(p.x * t / (e.x * e.x + t), p.y * t / (e.y * e.y + t), p.z * t / (e.z * e.z + t));
	if (closest)
		*closest = imp_vec3_make(e.x * e.x * p.x / (e.x * e.x + t), e.y * e.y * p.y / (e.y * e.y + t),
					 e.z * e.z * p.z / (e.z * e.z + t));
	return len(d);
}

// ---------------------------------------------------------------------------
// Exact signs. A value is kept as an expansion: an unevaluated sum of
// doubles of increasing magnitude that do not overlap (Shewchuk, "Adaptive
// precision floating-point arithmetic and fast robust geometric
// predicates", 1997); products split exactly with fma. Each predicate first
// tries floating point with a bound on its error (a looser one than
// Shewchuk's) and falls back to the exact sum only when the bound does not
// decide. Coordinates are assumed far from overflow and underflow.

enum { EXPANSION_MAX = 100 };

typedef struct expansion {
	int n;
	double c[EXPANSION_MAX];
} expansion;

// a + b = *s + *e exactly.
static void two_sum(double a, double b, double *s, double *e)
{
	*s = a + b;
	double bv = *s - a;
	double av = *s - bv;
	*e = (a - av) + (b - bv);
}

// Adds x to e exactly (Shewchuk's Grow-Expansion, zero components dropped).
static void grow(expansion *e, double x)
{
	int m = 0;
	double q = x;
	for (int i = 0; i < e->n; i++) {
		double h;
		two_sum(q, e->c[i], &q, &h);
		if (h != 0.0)
			e->c[m++] = h;
	}
	if (q != 0.0)
		e->c[m++] = q;
	e->n = m;
}

// Adds s x y exactly (s = 1 or -1).
static void add_product(expansion *e, double s, double x, double y)
{
	double p = x * y;
	grow(e, s * p);
	grow(e, s * fma(x, y, -p));
}

// Adds s x y z exactly.
static void add_product3(expansion *e, double s, double x, double y, double z)
{
	double p = x * y, r = fma(x, y, -p);
	double pz = p * z, rz = r * z;
	grow(e, s * pz);
	grow(e, s * fma(p, z, -pz));
	grow(e, s * rz);
	grow(e, s * fma(r, z, -rz));
}

static int expansion_sign(const expansion *e)
{
	if (e->n == 0)
		return 0;
	return e->c[e->n - 1] > 0.0 ? 1 : -1;
}

// The value, summed from the smallest component up: within an ulp or so.
static double expansion_value(const expansion *e)
{
	double s = 0.0;
	for (int i = 0; i < e->n; i++)
		s += e->c[i];
	return s;
}

static double coord(imp_vec3 p, int k)
{
	return k == 0 ? p.x : k == 1 ? p.y : p.z;
}

// Component k of (b - a) x (c - a), exactly. With (u, v) the axes after k
// in cyclic order it is b_u c_v - b_v c_u - b_u a_v + b_v a_u - a_u c_v +
// a_v c_u: the 2D orientation of the triangle seen along axis k.
static void cross_component(imp_vec3 a, imp_vec3 b, imp_vec3 c, int k, expansion *e)
{
	int u = (k + 1) % 3, v = (k + 2) % 3;
	e->n = 0;
	add_product(e, 1.0, coord(b, u), coord(c, v));
	add_product(e, -1.0, coord(b, v), coord(c, u));
	add_product(e, -1.0, coord(b, u), coord(a, v));
	add_product(e, 1.0, coord(b, v), coord(a, u));
	add_product(e, -1.0, coord(a, u), coord(c, v));
	add_product(e, 1.0, coord(a, v), coord(c, u));
}

// The exact sign of component k of (b - a) x (c - a).
static int cross_sign(imp_vec3 a, imp_vec3 b, imp_vec3 c, int k)
{
	int u = (k + 1) % 3, v = (k + 2) % 3;
	double t1 = (coord(b, u) - coord(a, u)) * (coord(c, v) - coord(a, v));
	double t2 = (coord(b, v) - coord(a, v)) * (coord(c, u) - coord(a, u));
	double det = t1 - t2, bound = 8.0 * DBL_EPSILON * (fabs(t1) + fabs(t2));
	if (det > bound)
		return 1;
	if (-det > bound)
		return -1;
	expansion e;
	cross_component(a, b, c, k, &e);
	return expansion_sign(&e);
}

// The unit normal of the triangle (a, b, c) (not degenerate) from its
// exact cross product rounded once: accurate however thin the triangle.
static imp_vec3 exact_normal(imp_vec3 a, imp_vec3 b, imp_vec3 c)
{
	double n[3];
	for (int k = 0; k < 3; k++) {
		expansion e;
		cross_component(a, b, c, k, &e);
		n[k] = expansion_value(&e);
	}
	return unit(imp_vec3_make(n[0], n[1], n[2]));
}

// Adds s p.(q x r) exactly.
static void add_det3(expansion *e, double s, imp_vec3 p, imp_vec3 q, imp_vec3 r)
{
	add_product3(e, s, p.x, q.y, r.z);
	add_product3(e, -s, p.x, q.z, r.y);
	add_product3(e, -s, p.y, q.x, r.z);
	add_product3(e, s, p.y, q.z, r.x);
	add_product3(e, s, p.z, q.x, r.y);
	add_product3(e, -s, p.z, q.y, r.x);
}

int o3_side(imp_vec3 a, imp_vec3 b, imp_vec3 c, imp_vec3 d)
{
	// Shewchuk's orient3d, det(a - d, b - d, c - d), is minus the value
	// wanted.
	double adx = a.x - d.x, ady = a.y - d.y, adz = a.z - d.z;
	double bdx = b.x - d.x, bdy = b.y - d.y, bdz = b.z - d.z;
	double cdx = c.x - d.x, cdy = c.y - d.y, cdz = c.z - d.z;
	double det = adx * (bdy * cdz - bdz * cdy) + bdx * (cdy * adz - cdz * ady) + cdx * (ady * bdz - adz * bdy);
	double permanent = (fabs(bdy * cdz) + fabs(bdz * cdy)) * fabs(adx) +
			   (fabs(cdy * adz) + fabs(cdz * ady)) * fabs(bdx) + (fabs(ady * bdz) + fabs(adz * bdy)) * fabs(cdx);
	double bound = 8.0 * DBL_EPSILON * permanent;
	if (det > bound)
		return -1;
	if (-det > bound)
		return 1;
	// det(a - d, b - d, c - d) = [a b c] - [a b d] + [a c d] - [b c d],
	// [p q r] = p.(q x r): the 4x4 determinant with a column of ones.
	expansion e;
	e.n = 0;
	add_det3(&e, -1.0, a, b, c);
	add_det3(&e, 1.0, a, b, d);
	add_det3(&e, -1.0, a, c, d);
	add_det3(&e, 1.0, b, c, d);
	return expansion_sign(&e);
}

// ---------------------------------------------------------------------------
// The hull.

// Of the points in mask (collinear, at least two distinct), the two
// extremes: the smallest and largest coordinate on the axis (other than
// `skip`, -1 for none) along which the line runs most. The comparisons are
// exact, and along a line that coordinate is monotone.
static void line_extremes(const imp_vec3 *p, uint64_t mask, int skip, int *lo, int *hi)
{
	int first = -1, far = -1;
	double best = -1.0;
	for (int i = 0; i < O3_MAX_POINTS; i++) {
		if (!has(mask, i))
			continue;
		if (first < 0) {
			first = i;
			continue;
		}
		double d = len(sub(p[i], p[first]));
		if (d > best) {
			best = d;
			far = i;
		}
	}
	imp_vec3 d = sub(p[far], p[first]);
	int k = -1;
	for (int j = 0; j < 3; j++)
		if (j != skip && (k < 0 || fabs(coord(d, j)) > fabs(coord(d, k))))
			k = j;
	*lo = *hi = first;
	for (int i = 0; i < O3_MAX_POINTS; i++) {
		if (!has(mask, i))
			continue;
		if (coord(p[i], k) < coord(p[*lo], k))
			*lo = i;
		if (coord(p[i], k) > coord(p[*hi], k))
			*hi = i;
	}
}

// Sorts idx[0 .. k) (points of p on a plane with unit normal n, in convex
// position) by angle around their centroid, counter-clockwise seen from
// the tip of n.
static void order_polygon(const imp_vec3 *p, int *idx, int k, imp_vec3 n)
{
	if (k < 3)
		return;
	imp_vec3 c = imp_vec3_make(0.0, 0.0, 0.0);
	for (int i = 0; i < k; i++)
		c = add(c, p[idx[i]]);
	c = scale(1.0 / k, c);
	imp_vec3 u = unit(cross(n, fabs(n.x) < 0.6 ? imp_vec3_make(1.0, 0.0, 0.0) : imp_vec3_make(0.0, 1.0, 0.0)));
	imp_vec3 v = cross(n, u); // (u, v, n) is right-handed
	double angle[O3_MAX_POINTS];
	for (int i = 0; i < k; i++) {
		imp_vec3 d = sub(p[idx[i]], c);
		angle[i] = atan2(dot(d, v), dot(d, u));
	}
	for (int i = 1; i < k; i++)
		for (int j = i; j > 0 && angle[j] < angle[j - 1]; j--) {
			double ta = angle[j];
			angle[j] = angle[j - 1];
			angle[j - 1] = ta;
			int ti = idx[j];
			idx[j] = idx[j - 1];
			idx[j - 1] = ti;
		}
}

static void add_face(o3_poly *o, imp_vec3 n, uint64_t on)
{
	if (o->nf == O3_MAX_FACES)
		fail("too many faces", o->nf);
	o->fn[o->nf] = n;
	o->fmask[o->nf++] = on;
}

static void add_edge(o3_poly *o, int i, int j)
{
	if (i > j) {
		int t = i;
		i = j;
		j = t;
	}
	for (int e = 0; e < o->ne; e++)
		if (o->edge[e][0] == i && o->edge[e][1] == j)
			return;
	if (o->ne == O3_MAX_EDGES)
		fail("too many edges", o->ne);
	o->edge[o->ne][0] = i;
	o->edge[o->ne][1] = j;
	o->ne++;
	o->vmask |= bit(i) | bit(j);
}

// A flat polygon with unit normal n: the 2D hull of the points seen along
// the axis k where n is largest (dropping a coordinate is exact), by exact
// orientations: an edge is a pair whose line has every point on one side,
// reduced to the two extreme points on that line.
static void make_flat(o3_poly *o, uint64_t all, imp_vec3 n)
{
	const imp_vec3 *p = o->p;
	int k = 0;
	for (int j = 1; j < 3; j++)
		if (fabs(coord(n, j)) > fabs(coord(n, k)))
			k = j;
	int u = (k + 1) % 3, v = (k + 2) % 3;
	uint64_t seen = 0; // points with the same projection count once
	for (int i = 0; i < o->n; i++) {
		bool dup = !has(all, i);
		for (int j = 0; j < i && !dup; j++)
			dup = has(seen, j) && coord(p[i], u) == coord(p[j], u) && coord(p[i], v) == coord(p[j], v);
		if (!dup)
			seen |= bit(i);
	}
	o->dim = 2;
	o->nf = 2;
	o->fn[0] = n;
	o->fn[1] = scale(-1.0, n);
	o->fmask[0] = o->fmask[1] = all;
	for (int i = 0; i < o->n; i++)
		for (int j = i + 1; j < o->n; j++) {
			if (!has(seen, i) || !has(seen, j))
				continue;
			bool pos = false, neg = false;
			uint64_t on = bit(i) | bit(j);
			for (int l = 0; l < o->n && !(pos && neg); l++) {
				if (!has(seen, l) || l == i || l == j)
					continue;
				int s = cross_sign(p[i], p[j], p[l], k);
				pos = pos || s > 0;
				neg = neg || s < 0;
				if (s == 0)
					on |= bit(l);
			}
			if (pos && neg)
				continue;
			int a, b;
			line_extremes(p, on, k, &a, &b);
			add_edge(o, a, b);
		}
}

// A solid: a face is a plane through three points with no point beyond it
// (exact signs), one per set of points on it; an edge is the two extreme
// points on two faces at once.
static void make_solid(o3_poly *o, uint64_t all)
{
	const imp_vec3 *p = o->p;
	o->dim = 3;
	for (int i = 0; i < o->n; i++)
		for (int j = i + 1; j < o->n; j++)
			for (int k = j + 1; k < o->n; k++) {
				uint64_t tri = bit(i) | bit(j) | bit(k);
				if ((tri & all) != tri)
					continue;
				// A triple on a face found already spans the same plane.
				bool known = false;
				for (int f = 0; f < o->nf && !known; f++)
					known = (o->fmask[f] & tri) == tri;
				if (known)
					continue;
				bool pos = false, neg = false;
				uint64_t on = tri;
				for (int l = 0; l < o->n && !(pos && neg); l++) {
					if (!has(all, l) || has(tri, l))
						continue;
					int s = o3_side(p[i], p[j], p[k], p[l]);
					pos = pos || s > 0;
					neg = neg || s < 0;
					if (s == 0)
						on |= bit(l);
				}
				// Points on both sides: not a face; on neither: the three
				// are collinear (the set is not flat).
				if (pos == neg)
					continue;
				imp_vec3 n = exact_normal(p[i], p[j], p[k]);
				add_face(o, pos ? scale(-1.0, n) : n, on);
			}
	if (o->nf < 4)
		fail("a solid with fewer than 4 faces", o->nf);
	for (int f = 0; f < o->nf; f++)
		for (int g = f + 1; g < o->nf; g++) {
			uint64_t shared = o->fmask[f] & o->fmask[g];
			if (count(shared) < 2)
				continue;
			int a, b;
			line_extremes(p, shared, -1, &a, &b);
			add_edge(o, a, b);
		}
}

void o3_poly_make(o3_poly *out, const imp_vec3 *pts, int n)
{
	if (n < 1 || n > O3_MAX_POINTS)
		fail("o3_poly_make: point count out of range", n);
	memset(out, 0, sizeof *out);
	out->n = n;
	for (int i = 0; i < n; i++)
		out->p[i] = pts[i];
	const imp_vec3 *p = out->p;
	// Exact duplicates count once.
	uint64_t all = 0;
	for (int i = 0; i < n; i++) {
		bool dup = false;
		for (int j = 0; j < i; j++)
			dup = dup || same(p[i], p[j]);
		if (!dup)
			all |= bit(i);
	}
	// The flatness tolerance: rounding-level noise, relative to the spread
	// and the size of the coordinates.
	double spread = 0.0, big = 0.0;
	for (int i = 0; i < n; i++) {
		spread = fmax(spread, len(sub(p[i], p[0])));
		big = fmax(big, max_abs(p[i]));
	}
	double tol = O3_FLAT_TOL * (spread + big);
	out->tol = tol;

	if (spread <= tol) {
		out->dim = 0;
		out->vmask = bit(0);
	} else {
		// Within tol of the line through the farthest pair?
		int i0 = 0, j0 = 0;
		double far = -1.0;
		for (int i = 0; i < n; i++)
			for (int j = i + 1; j < n; j++)
				if (len(sub(p[j], p[i])) > far) {
					far = len(sub(p[j], p[i]));
					i0 = i;
					j0 = j;
				}
		imp_vec3 d = unit(sub(p[j0], p[i0]));
		bool collinear = true;
		for (int l = 0; l < n; l++)
			collinear = collinear && len(cross(sub(p[l], p[i0]), d)) <= tol;
		if (collinear) {
			int a, b;
			line_extremes(p, all, -1, &a, &b);
			out->dim = 1;
			add_edge(out, a, b);
		} else {
			// Within tol of the plane of the largest triangle (its normal
			// exact, so this does not depend on the triangle's shape)?
			int bi = 0, bj = 0, bk = 0;
			double area2 = -1.0;
			for (int i = 0; i < n; i++)
				for (int j = i + 1; j < n; j++)
					for (int k = j + 1; k < n; k++) {
						double m = len(cross(sub(p[j], p[i]), sub(p[k], p[i])));
						if (m > area2) {
							area2 = m;
							bi = i;
							bj = j;
							bk = k;
						}
					}
			imp_vec3 nt = exact_normal(p[bi], p[bj], p[bk]);
			bool flat = true;
			for (int l = 0; l < n; l++)
				flat = flat && fabs(dot(nt, sub(p[l], p[bi]))) <= tol;
			if (flat)
				make_flat(out, all, nt);
			else
				make_solid(out, all);
		}
	}

	for (int i = 0; i < n; i++)
		if (has(out->vmask, i))
			out->vert[out->nv++] = i;
	int used = 0;
	for (int f = 0; f < out->nf; f++) {
		double top = -DBL_MAX;
		for (int i = 0; i < n; i++)
			top = fmax(top, dot(out->fn[f], p[i]));
		out->fd[f] = top;
		out->ffirst[f] = used;
		uint64_t on = out->fmask[f] & out->vmask;
		if (used + count(on) > O3_MAX_FACE_VERTS)
			fail("too many face vertices", used + count(on));
		int first = used;
		for (int i = 0; i < n; i++)
			if (has(on, i))
				out->fvert[used++] = i;
		order_polygon(p, out->fvert + first, used - first, out->fn[f]);
	}
	out->ffirst[out->nf] = used;
}

void o3_poly_box(o3_poly *out, imp_vec3 half)
{
	imp_vec3 c[8];
	for (int i = 0; i < 8; i++)
		c[i] = imp_vec3_make(i & 1 ? half.x : -half.x, i & 2 ? half.y : -half.y, i & 4 ? half.z : -half.z);
	o3_poly_make(out, c, 8);
}

// ---------------------------------------------------------------------------
// Features in the world.

// The input points of a at pose pa.
static void place(const o3_poly *a, imp_pose3 pa, imp_vec3 *w)
{
	for (int i = 0; i < a->n; i++)
		w[i] = imp_pose3_apply(pa, a->p[i]);
}

// The edges to visit: a point hull has one, of zero length.
static int segment_count(const o3_poly *a)
{
	return a->dim == 0 ? 1 : a->ne;
}

static void segment_ends(const o3_poly *a, int s, int *i, int *j)
{
	if (a->dim == 0) {
		*i = *j = a->vert[0];
	} else {
		*i = a->edge[s][0];
		*j = a->edge[s][1];
	}
}

// The faces whose triangles cover the hull: a flat polygon's back face
// repeats its front.
static int covering_faces(const o3_poly *a)
{
	return a->dim == 2 ? 1 : a->nf;
}

// Triangle t (1 <= t <= k - 2) of the fan over face f's polygon, from its
// first vertex; returns the polygon's vertex count k.
static int face_size(const o3_poly *a, int f)
{
	return a->ffirst[f + 1] - a->ffirst[f];
}

static void fan_triangle(const o3_poly *a, const imp_vec3 *w, int f, int t, imp_vec3 *x, imp_vec3 *y, imp_vec3 *z)
{
	const int *v = a->fvert + a->ffirst[f];
	*x = w[v[0]];
	*y = w[v[t]];
	*z = w[v[t + 1]];
}

typedef struct pair {
	double d;
	imp_vec3 a, b;
} pair;

static void keep(pair *best, double d, imp_vec3 x, imp_vec3 y)
{
	if (d < best->d) {
		best->d = d;
		best->a = x;
		best->b = y;
	}
}

// Each vertex of a against each face triangle of b; with `swap` the pair
// goes in as (b's point, a's point).
static void vertices_to_faces(const o3_poly *a, const imp_vec3 *wa, const o3_poly *b, const imp_vec3 *wb, bool swap,
			      pair *best)
{
	for (int i = 0; i < a->nv; i++) {
		imp_vec3 v = wa[a->vert[i]];
		for (int f = 0; f < covering_faces(b); f++)
			for (int t = 1; t + 1 < face_size(b, f); t++) {
				imp_vec3 x, y, z, c;
				fan_triangle(b, wb, f, t, &x, &y, &z);
				double d = o3_point_triangle_distance(v, x, y, z, &c);
				if (swap)
					keep(best, d, c, v);
				else
					keep(best, d, v, c);
			}
	}
}

static pair feature_pair(const o3_poly *a, const imp_vec3 *wa, const o3_poly *b, const imp_vec3 *wb)
{
	pair best = {DBL_MAX, wa[a->vert[0]], wb[b->vert[0]]};
	vertices_to_faces(a, wa, b, wb, false, &best);
	vertices_to_faces(b, wb, a, wa, true, &best);
	for (int s = 0; s < segment_count(a); s++)
		for (int t = 0; t < segment_count(b); t++) {
			int i, j, k, l;
			segment_ends(a, s, &i, &j);
			segment_ends(b, t, &k, &l);
			imp_vec3 x, y;
			double d = o3_segment_segment_distance(wa[i], wa[j], wb[k], wb[l], &x, &y);
			keep(&best, d, x, y);
		}
	return best;
}

double o3_feature_distance(const o3_poly *a, imp_pose3 pa, const o3_poly *b, imp_pose3 pb, imp_vec3 *ca,
			   imp_vec3 *cb)
{
	imp_vec3 wa[O3_MAX_POINTS], wb[O3_MAX_POINTS];
	place(a, pa, wa);
	place(b, pb, wb);
	pair best = feature_pair(a, wa, b, wb);
	if (ca)
		*ca = best.a;
	if (cb)
		*cb = best.b;
	return best.d;
}

// Whether a world point is inside every face plane of a solid.
static bool inside_planes(imp_vec3 p, const o3_poly *a, imp_pose3 pa, double tol)
{
	imp_vec3 x = imp_pose3_apply_inv(pa, p);
	for (int f = 0; f < a->nf; f++)
		if (dot(a->fn[f], x) - a->fd[f] > tol)
			return false;
	return true;
}

double o3_point_polytope_distance(imp_vec3 p, const o3_poly *a, imp_pose3 pa, imp_vec3 *closest)
{
	if (a->dim == 3 && inside_planes(p, a, pa, 0.0)) {
		if (closest)
			*closest = p;
		return 0.0;
	}
	imp_vec3 w[O3_MAX_POINTS];
	place(a, pa, w);
	pair best = {DBL_MAX, p, w[a->vert[0]]};
	for (int f = 0; f < covering_faces(a); f++)
		for (int t = 1; t + 1 < face_size(a, f); t++) {
			imp_vec3 x, y, z, c;
			fan_triangle(a, w, f, t, &x, &y, &z);
			keep(&best, o3_point_triangle_distance(p, x, y, z, &c), p, c);
		}
	for (int s = 0; s < segment_count(a); s++) {
		int i, j;
		imp_vec3 c;
		segment_ends(a, s, &i, &j);
		keep(&best, o3_point_segment_distance(p, w[i], w[j], &c), p, c);
	}
	if (closest)
		*closest = best.b;
	return best.d;
}

bool o3_point_in_polytope(imp_vec3 p, const o3_poly *a, imp_pose3 pa, double tol)
{
	if (a->dim == 3)
		return inside_planes(p, a, pa, tol);
	return o3_point_polytope_distance(p, a, pa, NULL) <= tol;
}

// ---------------------------------------------------------------------------
// The separating-axis test.

typedef struct axis_search {
	const o3_poly *a, *b;
	const imp_vec3 *wa, *wb;
	imp_quat qa, qb;
	bool stop_when_separated; // return at the first separating axis
	double best;              // the smallest overlap so far
	imp_vec3 axis;            // and its axis
	double other;             // the smallest overlap on an axis not parallel to `axis`
} axis_search;

static bool parallel(imp_vec3 u, imp_vec3 v)
{
	return dot(u, v) >= 1.0 - 1e-12;
}

// Records h, the overlap along u. `other` stays the minimum over the axes
// visited that are not parallel to `axis`: when a new best is not parallel
// to the old one, the old best is that minimum (every axis so far had an
// overlap at least as large).
static void record(axis_search *s, imp_vec3 u, double h)
{
	if (h < s->best) {
		if (!parallel(u, s->axis))
			s->other = s->best;
		s->best = h;
		s->axis = u;
	} else if (h < s->other && !parallel(u, s->axis)) {
		s->other = h;
	}
}

// Both u and -u: max over a of u.x minus min over b of u.x is how far b
// must move along u to be clear of a; the same along -u.
static void consider(axis_search *s, imp_vec3 u)
{
	double alo = DBL_MAX, ahi = -DBL_MAX, blo = DBL_MAX, bhi = -DBL_MAX;
	for (int i = 0; i < s->a->nv; i++) {
		double h = dot(u, s->wa[s->a->vert[i]]);
		if (h < alo)
			alo = h;
		if (h > ahi)
			ahi = h;
	}
	for (int i = 0; i < s->b->nv; i++) {
		double h = dot(u, s->wb[s->b->vert[i]]);
		if (h < blo)
			blo = h;
		if (h > bhi)
			bhi = h;
	}
	record(s, u, ahi - blo);
	record(s, scale(-1.0, u), bhi - alo);
}

static bool separated_enough(const axis_search *s)
{
	return s->stop_when_separated && s->best < 0.0;
}

// Both signs of: every face normal of a and of b (a flat polygon's two
// faces are its plane normal), every edge-of-a x edge-of-b cross product
// that is not exactly zero.
static void visit_axes(axis_search *s)
{
	const o3_poly *polys[2] = {s->a, s->b};
	imp_quat rot[2] = {s->qa, s->qb};
	for (int k = 0; k < 2; k++)
		for (int f = 0; f < polys[k]->nf; f++) {
			consider(s, imp_quat_rotate(rot[k], polys[k]->fn[f]));
			if (separated_enough(s))
				return;
		}
	for (int ea = 0; ea < s->a->ne; ea++)
		for (int eb = 0; eb < s->b->ne; eb++) {
			const int *i = s->a->edge[ea], *j = s->b->edge[eb];
			imp_vec3 c = cross(sub(s->wa[i[1]], s->wa[i[0]]), sub(s->wb[j[1]], s->wb[j[0]]));
			double l = len(c);
			if (!(l > 0.0))
				continue;
			consider(s, scale(1.0 / l, c));
			if (separated_enough(s))
				return;
		}
}

// The in-face normal of every edge in every face plane: n x e for each
// face normal n of a or b and each edge e of a or b. In exact arithmetic
// the axes above suffice; but when both shapes are flat or thin and nearly
// coplanar, every face normal of a - b is nearly the common plane normal
// and separates them (in the plane) only by a margin below rounding. These
// are the plane's 2D axes, so only edges within 1e-3 radians of the face's
// plane are taken. Any axis is a valid direction, so extra ones never
// undercut the minimum translation.
static void visit_in_face_axes(axis_search *s)
{
	const o3_poly *polys[2] = {s->a, s->b};
	const imp_vec3 *w[2] = {s->wa, s->wb};
	imp_quat rot[2] = {s->qa, s->qb};
	for (int k = 0; k < 2; k++)
		for (int f = 0; f < polys[k]->nf; f++) {
			imp_vec3 n = imp_quat_rotate(rot[k], polys[k]->fn[f]);
			for (int m = 0; m < 2; m++)
				for (int e = 0; e < polys[m]->ne; e++) {
					const int *i = polys[m]->edge[e];
					imp_vec3 d = sub(w[m][i[1]], w[m][i[0]]);
					imp_vec3 c = cross(n, d);
					double l = len(c);
					if (!(l > 0.0) || fabs(dot(n, d)) > 1e-3 * len(d))
						continue;
					consider(s, scale(1.0 / l, c));
					if (separated_enough(s))
						return;
				}
		}
}

static axis_search search_of(const o3_poly *a, imp_pose3 pa, const imp_vec3 *wa, const o3_poly *b, imp_pose3 pb,
			     const imp_vec3 *wb)
{
	axis_search s = {a, b, wa, wb, pa.q, pb.q, false, DBL_MAX, {0.0, 0.0, 0.0}, DBL_MAX};
	return s;
}

double o3_sat_depth(const o3_poly *a, imp_pose3 pa, const o3_poly *b, imp_pose3 pb, imp_vec3 *axis)
{
	imp_vec3 wa[O3_MAX_POINTS], wb[O3_MAX_POINTS];
	place(a, pa, wa);
	place(b, pb, wb);
	axis_search s = search_of(a, pa, wa, b, pb, wb);
	visit_axes(&s);
	visit_in_face_axes(&s);
	if (axis)
		*axis = s.axis;
	return s.best;
}

// The direction that makes a hull less than solid: a flat polygon's plane
// normal, a segment's direction (world).
static imp_vec3 flat_direction(const o3_poly *a, imp_pose3 pa)
{
	if (a->dim == 2)
		return imp_quat_rotate(pa.q, a->fn[0]);
	return unit(imp_quat_rotate(pa.q, sub(a->p[a->edge[0][1]], a->p[a->edge[0][0]])));
}

bool o3_difference_is_solid(const o3_poly *a, imp_pose3 pa, const o3_poly *b, imp_pose3 pb)
{
	if (a->dim == 3 || b->dim == 3)
		return true;
	if (a->dim + b->dim < 3)
		return false; // point + anything flat, or two segments: within a plane
	imp_vec3 da = flat_direction(a, pa), db = flat_direction(b, pb);
	if (a->dim == 2 && b->dim == 2)
		return len(cross(da, db)) > O3_ANGLE_TOL;
	return fabs(dot(da, db)) > O3_ANGLE_TOL; // a plane normal and a segment
}

static bool segment_crosses_triangle(imp_vec3 p0, imp_vec3 p1, imp_vec3 a, imp_vec3 b, imp_vec3 c)
{
	imp_vec3 n = cross(sub(b, a), sub(c, a));
	double h0 = dot(n, sub(p0, a)), h1 = dot(n, sub(p1, a));
	if ((h0 > 0.0 && h1 > 0.0) || (h0 < 0.0 && h1 < 0.0) || h0 == h1)
		return false;
	imp_vec3 x = axpy(p0, h0 / (h0 - h1), sub(p1, p0)), foot;
	return foot_in_triangle(x, a, b, c, &foot);
}

static bool edges_cross_faces(const o3_poly *a, const imp_vec3 *wa, const o3_poly *b, const imp_vec3 *wb)
{
	for (int s = 0; s < segment_count(a); s++) {
		int i, j;
		segment_ends(a, s, &i, &j);
		for (int f = 0; f < covering_faces(b); f++)
			for (int t = 1; t + 1 < face_size(b, f); t++) {
				imp_vec3 x, y, z;
				fan_triangle(b, wb, f, t, &x, &y, &z);
				if (segment_crosses_triangle(wa[i], wa[j], x, y, z))
					return true;
			}
	}
	return false;
}

bool o3_overlap_brute(const o3_poly *a, imp_pose3 pa, const o3_poly *b, imp_pose3 pb)
{
	imp_vec3 wa[O3_MAX_POINTS], wb[O3_MAX_POINTS];
	place(a, pa, wa);
	place(b, pb, wb);
	for (int i = 0; i < a->nv; i++)
		if (o3_point_in_polytope(wa[a->vert[i]], b, pb, 0.0))
			return true;
	for (int i = 0; i < b->nv; i++)
		if (o3_point_in_polytope(wb[b->vert[i]], a, pa, 0.0))
			return true;
	if (edges_cross_faces(a, wa, b, wb) || edges_cross_faces(b, wb, a, wa))
		return true;
	return feature_pair(a, wa, b, wb).d == 0.0;
}

// ---------------------------------------------------------------------------
// The query.

// The vertices of a within tol of its highest along u.
static int support_set(const o3_poly *a, const imp_vec3 *w, imp_vec3 u, double tol, int *idx)
{
	double top = -DBL_MAX;
	for (int i = 0; i < a->nv; i++)
		top = fmax(top, dot(u, w[a->vert[i]]));
	int k = 0;
	for (int i = 0; i < a->nv; i++)
		if (dot(u, w[a->vert[i]]) >= top - tol)
			idx[k++] = a->vert[i];
	return k;
}

// The nearest points of two convex polygons (or segments, or points) P and
// Q, both in planes perpendicular to n: vertices against fan triangles,
// edges against edges, after putting each in angular order.
static pair polygon_pair(const imp_vec3 *pp, int np, const imp_vec3 *qq, int nq, imp_vec3 n)
{
	const imp_vec3 *pts[2] = {pp, qq};
	int cnt[2] = {np, nq};
	int order[2][O3_MAX_POINTS];
	for (int k = 0; k < 2; k++) {
		for (int i = 0; i < cnt[k]; i++)
			order[k][i] = i;
		order_polygon(pts[k], order[k], cnt[k], n);
	}
	pair best = {DBL_MAX, pp[0], qq[0]};
	for (int k = 0; k < 2; k++) {
		const imp_vec3 *v = pts[k], *o = pts[1 - k];
		const int *oi = order[1 - k];
		for (int i = 0; i < cnt[k]; i++)
			for (int t = 1; t + 1 < cnt[1 - k]; t++) {
				imp_vec3 c;
				double d = o3_point_triangle_distance(v[i], o[oi[0]], o[oi[t]], o[oi[t + 1]], &c);
				if (k == 0)
					keep(&best, d, v[i], c);
				else
					keep(&best, d, c, v[i]);
			}
	}
	for (int i = 0; i < np; i++)
		for (int j = 0; j < nq; j++) {
			imp_vec3 x, y;
			double d = o3_segment_segment_distance(pp[order[0][i]], pp[order[0][(i + 1) % np]], qq[order[1][j]],
							       qq[order[1][(j + 1) % nq]], &x, &y);
			keep(&best, d, x, y);
		}
	return best;
}

// The closest (or deepest) pair is unique when one support set along the
// normal is a single vertex, or both are segments that are not parallel.
static bool support_pair_unique(const o3_poly *a, const imp_vec3 *wa, const o3_poly *b, const imp_vec3 *wb,
				imp_vec3 n, double tol)
{
	int ia[O3_MAX_POINTS], ib[O3_MAX_POINTS];
	int ka = support_set(a, wa, n, tol, ia);
	int kb = support_set(b, wb, scale(-1.0, n), tol, ib);
	if (ka == 1 || kb == 1)
		return true;
	if (ka == 2 && kb == 2)
		return len(cross(unit(sub(wa[ia[1]], wa[ia[0]])), unit(sub(wb[ib[1]], wb[ib[0]])))) > 1e-6;
	return false;
}

// A normal for cores that meet in a flat way (the answer does not depend
// on it): a flat shape's plane normal, else perpendicular to a segment.
static imp_vec3 touching_normal(const o3_poly *a, imp_pose3 pa, const o3_poly *b, imp_pose3 pb)
{
	if (a->dim == 2)
		return flat_direction(a, pa);
	if (b->dim == 2)
		return scale(-1.0, flat_direction(b, pb));
	const o3_poly *s = a->dim == 1 ? a : b->dim == 1 ? b : NULL;
	if (!s)
		return imp_vec3_make(0.0, 0.0, 1.0);
	imp_vec3 d = flat_direction(s, s == a ? pa : pb);
	return unit(cross(d, fabs(d.x) < 0.6 ? imp_vec3_make(1.0, 0.0, 0.0) : imp_vec3_make(0.0, 1.0, 0.0)));
}

void o3_query(const o3_poly *a, imp_pose3 pa, double ra, const o3_poly *b, imp_pose3 pb, double rb,
	      o3_result *out)
{
	imp_vec3 wa[O3_MAX_POINTS], wb[O3_MAX_POINTS];
	place(a, pa, wa);
	place(b, pb, wb);
	double scene = 0.0;
	for (int i = 0; i < a->nv; i++)
		scene = fmax(scene, max_abs(wa[a->vert[i]]));
	for (int i = 0; i < b->nv; i++)
		scene = fmax(scene, max_abs(wb[b->vert[i]]));
	scene = fmax(scene + fmax(ra, rb), 1.0);
	double ftol = 1e-9 * scene;

	imp_vec3 ca, cb, n;
	double core_sd;
	bool unique_normal = true;
	axis_search s = search_of(a, pa, wa, b, pb, wb);
	bool solid = o3_difference_is_solid(a, pa, b, pb);
	if (solid) {
		s.stop_when_separated = true;
		visit_axes(&s);
		if (s.best >= 0.0)
			visit_in_face_axes(&s);
	}
	if (solid && s.best >= 0.0) {
		// No axis separates: every face normal of the solid a - b was
		// visited, so the smallest overlap is the minimum translation.
		double depth = s.best;
		n = s.axis;
		core_sd = -depth;
		unique_normal = !(s.other <= depth + 1e-6 * scene); // no other axis ties
		// The deepest pair: a point of a's support face along n that b's
		// support face, moved by the depth, also holds.
		int ia[O3_MAX_POINTS], ib[O3_MAX_POINTS];
		int ka = support_set(a, wa, n, ftol, ia);
		int kb = support_set(b, wb, scale(-1.0, n), ftol, ib);
		imp_vec3 pp[O3_MAX_POINTS] = {{0.0, 0.0, 0.0}}, qq[O3_MAX_POINTS] = {{0.0, 0.0, 0.0}};
		for (int i = 0; i < ka; i++)
			pp[i] = wa[ia[i]];
		for (int i = 0; i < kb; i++)
			qq[i] = axpy(wb[ib[i]], depth, n);
		ca = polygon_pair(pp, ka, qq, kb, n).a;
		cb = axpy(ca, -depth, n);
	} else {
		// Apart (some axis separates), or both in parallel planes or
		// lines: the feature pairs give the distance.
		pair best = feature_pair(a, wa, b, wb);
		core_sd = best.d;
		ca = best.a;
		cb = best.b;
		n = best.d > 0.0 ? scale(1.0 / best.d, sub(cb, ca)) : touching_normal(a, pa, b, pb);
	}
	if (fabs(core_sd) <= 1e-6 * scene)
		unique_normal = false; // the direction is ill-conditioned near contact
	out->scene = scene;
	out->core_sd = core_sd;
	out->sd = core_sd - ra - rb;
	out->overlap = core_sd <= 0.0;
	out->normal = n;
	out->pa = axpy(ca, ra, n);
	out->pb = axpy(cb, -rb, n);
	out->unique_normal = unique_normal;
	out->unique_points = unique_normal && support_pair_unique(a, wa, b, wb, n, ftol);
}

double o3_signed_distance(const o3_poly *a, imp_pose3 pa, double ra, const o3_poly *b, imp_pose3 pb, double rb,
			  imp_vec3 *wa, imp_vec3 *wb, imp_vec3 *normal)
{
	o3_result r;
	o3_query(a, pa, ra, b, pb, rb, &r);
	if (wa)
		*wa = r.pa;
	if (wb)
		*wb = r.pb;
	if (normal)
		*normal = r.normal;
	return r.sd;
}

// ---------------------------------------------------------------------------
// Random numbers.

uint64_t o3_next(o3_rng *r)
{
	uint64_t z = (r->s += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

double o3_uniform(o3_rng *r)
{
	return (double)(o3_next(r) >> 11) * 0x1.0p-53;
}

double o3_range(o3_rng *r, double lo, double hi)
{
	return lo + (hi - lo) * o3_uniform(r);
}

int o3_int(o3_rng *r, int n)
{
	return (int)(o3_next(r) % (uint64_t)n);
}

imp_vec3 o3_vec(o3_rng *r, double lo, double hi)
{
	double x = o3_range(r, lo, hi);
	double y = o3_range(r, lo, hi);
	double z = o3_range(r, lo, hi);
	return imp_vec3_make(x, y, z);
}

imp_vec3 o3_unit(o3_rng *r)
{
	for (;;) {
		imp_vec3 v = o3_vec(r, -1.0, 1.0);
		double l = len(v);
		if (l > 1e-3 && l <= 1.0)
			return scale(1.0 / l, v);
	}
}

imp_quat o3_quat(o3_rng *r)
{
	for (;;) {
		double x = o3_range(r, -1.0, 1.0);
		double y = o3_range(r, -1.0, 1.0);
		double z = o3_range(r, -1.0, 1.0);
		double w = o3_range(r, -1.0, 1.0);
		double l = sqrt(x * x + y * y + z * z + w * w);
		if (l > 1e-3 && l <= 1.0)
			return imp_quat_make(x / l, y / l, z / l, w / l);
	}
}

imp_pose3 o3_pose(o3_rng *r, double extent)
{
	imp_vec3 p = o3_vec(r, -extent, extent);
	return imp_pose3_make(p, o3_quat(r));
}
