// SPDX-License-Identifier: MIT
// The test oracle: plain brute force, independent of src/. See oracle2d.h.
#include "oracle2d.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>

static imp_vec2 sub(imp_vec2 a, imp_vec2 b)
{
	return imp_vec2_make(a.x - b.x, a.y - b.y);
}

static double dot(imp_vec2 a, imp_vec2 b)
{
	return a.x * b.x + a.y * b.y;
}

static double cross(imp_vec2 a, imp_vec2 b)
{
	return a.x * b.y - a.y * b.x;
}

static bool same(imp_vec2 a, imp_vec2 b)
{
	return a.x == b.x && a.y == b.y;
}

// Exact sign of the orientation det [b - a, c - a] (Shewchuk's expansion
// arithmetic: every product split exactly by fma, summed without error), so
// the hull and the inside test never contradict themselves on nearly
// collinear points.
static void two_sum(double a, double b, double *s, double *e)
{
	*s = a + b;
	double bv = *s - a;
	double av = *s - bv;
	*e = (a - av) + (b - bv);
}

static int orient_exact(imp_vec2 a, imp_vec2 b, imp_vec2 c)
{
	// det = bx cy - by cx - ax cy + ay cx + ax by - ay bx
	double f[6][2] = {{b.x, c.y}, {-b.y, c.x}, {-a.x, c.y}, {a.y, c.x}, {a.x, b.y}, {-a.y, b.x}};
	double h[13];
	int n = 0;
	for (int i = 0; i < 6; i++) {
		double p = f[i][0] * f[i][1];
		double parts[2] = {fma(f[i][0], f[i][1], -p), p};
		for (int k = 0; k < 2; k++) {
			double q = parts[k];
			for (int j = 0; j < n; j++)
				two_sum(q, h[j], &q, &h[j]);
			h[n++] = q;
		}
	}
	for (int j = n - 1; j >= 0; j--)
		if (h[j] != 0.0)
			return h[j] > 0.0 ? 1 : -1;
	return 0;
}

static int sgn(double x)
{
	return (x > 0.0) - (x < 0.0);
}

int orc_orient(imp_vec2 a, imp_vec2 b, imp_vec2 c)
{
	// Shewchuk's filter: the rounded determinant decides when it is larger
	// than its error bound; otherwise the exact sum does.
	double left = (a.x - c.x) * (b.y - c.y);
	double right = (a.y - c.y) * (b.x - c.x);
	double det = left - right, sum;
	if (left > 0.0) {
		if (right <= 0.0)
			return sgn(det);
		sum = left + right;
	} else if (left < 0.0) {
		if (right >= 0.0)
			return sgn(det);
		sum = -left - right;
	} else {
		return orient_exact(a, b, c);
	}
	double bound = (3.0 + 16.0 * DBL_EPSILON / 2) * (DBL_EPSILON / 2) * sum;
	if (det >= bound || -det >= bound)
		return sgn(det);
	return orient_exact(a, b, c);
}

int orc_hull(const imp_vec2 *p, int n, imp_vec2 *out)
{
	if (n <= 0)
		return 0;
	// The lowest-leftmost point is always a hull vertex.
	int start = 0;
	for (int i = 1; i < n; i++)
		if (p[i].x < p[start].x || (p[i].x == p[start].x && p[i].y < p[start].y))
			start = i;
	int h = 0;
	int cur = start;
	for (;;) {
		out[h++] = p[cur];
		// The next vertex: every point is left of (or on) cur -> next; among
		// collinear candidates ahead the farthest, so collinear points drop.
		int next = -1;
		for (int i = 0; i < n; i++) {
			if (same(p[i], p[cur]))
				continue;
			if (next < 0) {
				next = i;
				continue;
			}
			int o = orc_orient(p[cur], p[next], p[i]);
			if (o < 0) {
				next = i;
			} else if (o == 0) {
				imp_vec2 e = sub(p[next], p[cur]), f = sub(p[i], p[cur]);
				bool ahead = sgn(p[next].x - p[cur].x) == sgn(p[i].x - p[cur].x) &&
					     sgn(p[next].y - p[cur].y) == sgn(p[i].y - p[cur].y);
				bool farther = fabs(f.x) > fabs(e.x) || (fabs(f.x) == fabs(e.x) && fabs(f.y) > fabs(e.y));
				if (ahead && farther)
					next = i;
			}
		}
		if (next < 0)
			break; // every point equals the start: a single point
		cur = next;
		if (same(p[cur], p[start]) || h >= n)
			break;
	}
	return h;
}

double orc_area(const imp_vec2 *v, int n)
{
	double a = 0.0;
	for (int i = 0; i < n; i++)
		a += cross(v[i], v[(i + 1) % n]);
	return 0.5 * a;
}

double orc_point_segment(imp_vec2 p, imp_vec2 a, imp_vec2 b, imp_vec2 *closest)
{
	imp_vec2 e = sub(b, a);
	double ee = dot(e, e);
	double t = 0.0;
	if (ee > 0.0) {
		t = dot(sub(p, a), e) / ee;
		if (t < 0.0)
			t = 0.0;
		if (t > 1.0)
			t = 1.0;
	}
	imp_vec2 c = imp_vec2_make(a.x + t * e.x, a.y + t * e.y);
	if (t == 1.0)
		c = b;
	if (closest)
		*closest = c;
	return imp_vec2_length(sub(p, c));
}

// The number of edges to visit: a point has one (degenerate) edge, a
// segment one, a polygon n.
static int edge_count(int n)
{
	return n <= 2 ? 1 : n;
}

static double boundary_distance(imp_vec2 p, const imp_vec2 *v, int n)
{
	double best = DBL_MAX;
	for (int i = 0; i < edge_count(n); i++) {
		double d = orc_point_segment(p, v[i], v[(i + 1) % n], NULL);
		if (d < best)
			best = d;
	}
	return best;
}

static bool inside(imp_vec2 p, const imp_vec2 *v, int n)
{
	if (n < 3)
		return false;
	for (int i = 0; i < n; i++)
		if (orc_orient(v[i], v[(i + 1) % n], p) < 0)
			return false;
	return true;
}

double orc_point_polygon(imp_vec2 p, const imp_vec2 *v, int n)
{
	if (inside(p, v, n))
		return 0.0;
	return boundary_distance(p, v, n);
}

double orc_point_polygon_signed(imp_vec2 p, const imp_vec2 *v, int n)
{
	double d = boundary_distance(p, v, n);
	return inside(p, v, n) ? -d : d;
}

static void project(const imp_vec2 *v, int n, imp_vec2 u, double *lo, double *hi)
{
	*lo = DBL_MAX;
	*hi = -DBL_MAX;
	for (int i = 0; i < n; i++) {
		double d = dot(v[i], u);
		if (d < *lo)
			*lo = d;
		if (d > *hi)
			*hi = d;
	}
}

static imp_vec2 unit(imp_vec2 d)
{
	double l = imp_vec2_length(d);
	return imp_vec2_make(d.x / l, d.y / l);
}

// Candidate axes u and their depth max_a(u) - min_b(u). They are the edge
// normals of the Minkowski difference C = A - B, which is all the SAT
// needs: the outward normals of A's edges, the negated outward normals of
// B's edges; for a segment both normals and both directions (the normals of
// its zero-length end caps); for two points the line through them. An
// outward edge normal of a convex polygon has the edge itself as the
// polygon's support, so each axis costs one scan of the other polygon.
// The largest projection of convex polygon v on u, found by climbing from
// vertex i both ways (u is near an edge normal at i, but with nearly
// collinear neighbours the support may be a few vertices away).
static double climb_max(const imp_vec2 *v, int n, int i, imp_vec2 u)
{
	double best = dot(v[i], u);
	for (int step = 1; step >= -1; step -= 2) {
		int j = i;
		for (int k = 0; k < n; k++) {
			int next = (j + step + n) % n;
			double d = dot(v[next], u);
			if (!(d > best))
				break;
			best = d;
			j = next;
		}
	}
	return best;
}

typedef struct axis_list {
	imp_vec2 *u;
	double *depth;
	int n;
} axis_list;

static void add(axis_list *l, imp_vec2 u, double depth)
{
	l->u[l->n] = u;
	l->depth[l->n++] = depth;
}

static void add_scanned(axis_list *l, imp_vec2 u, const imp_vec2 *a, int na, const imp_vec2 *b, int nb)
{
	double alo, ahi, blo, bhi;
	project(a, na, u, &alo, &ahi);
	project(b, nb, u, &blo, &bhi);
	add(l, u, ahi - blo);
}

static void sat_axes(const imp_vec2 *a, int na, const imp_vec2 *b, int nb, axis_list *l)
{
	if (na >= 3) {
		for (int i = 0; i < na; i++) {
			imp_vec2 p = a[i], q = a[(i + 1) % na];
			imp_vec2 u = unit(imp_vec2_make(q.y - p.y, p.x - q.x));
			double blo, bhi;
			project(b, nb, u, &blo, &bhi);
			add(l, u, climb_max(a, na, i, u) - blo);
		}
	}
	if (nb >= 3) {
		for (int j = 0; j < nb; j++) {
			imp_vec2 p = b[j], q = b[(j + 1) % nb];
			imp_vec2 u = unit(imp_vec2_make(p.y - q.y, q.x - p.x));
			double alo, ahi;
			project(a, na, u, &alo, &ahi);
			add(l, u, ahi + climb_max(b, nb, j, imp_vec2_make(-u.x, -u.y)));
		}
	}
	const imp_vec2 *polys[2] = {a, b};
	int counts[2] = {na, nb};
	for (int s = 0; s < 2; s++) {
		if (counts[s] != 2)
			continue;
		imp_vec2 e = sub(polys[s][1], polys[s][0]);
		imp_vec2 dirs[4] = {unit(imp_vec2_make(e.y, -e.x)), unit(imp_vec2_make(-e.y, e.x)), unit(e),
				    unit(imp_vec2_make(-e.x, -e.y))};
		for (int k = 0; k < 4; k++)
			add_scanned(l, dirs[k], a, na, b, nb);
	}
	if (na == 1 && nb == 1 && !same(a[0], b[0])) {
		imp_vec2 d = unit(sub(b[0], a[0]));
		add_scanned(l, d, a, na, b, nb);
		add_scanned(l, imp_vec2_make(-d.x, -d.y), a, na, b, nb);
	}
}

double orc_sat_depth(const imp_vec2 *a, int na, const imp_vec2 *b, int nb, double tie,
		     imp_vec2 *axis, bool *unique)
{
	enum { SMALL = 256 };
	imp_vec2 axes_small[SMALL];
	double depth_small[SMALL];
	int cap = na + nb + 16;
	axis_list l = {axes_small, depth_small, 0};
	if (cap > SMALL) {
		l.u = malloc((size_t)cap * sizeof *l.u);
		l.depth = malloc((size_t)cap * sizeof *l.depth);
	}
	sat_axes(a, na, b, nb, &l);
	double best = DBL_MAX;
	int bi = -1;
	for (int i = 0; i < l.n; i++)
		if (l.depth[i] < best) {
			best = l.depth[i];
			bi = i;
		}
	bool uniq = true;
	imp_vec2 u = imp_vec2_make(1.0, 0.0);
	if (bi < 0) {
		best = 0.0; // two coincident points: touching, any direction
		uniq = false;
	} else {
		u = l.u[bi];
		for (int i = 0; i < l.n; i++)
			if (l.depth[i] <= best + tie && dot(l.u[i], u) < 1.0 - 1e-12)
				uniq = false;
	}
	if (l.u != axes_small) {
		free(l.u);
		free(l.depth);
	}
	if (axis)
		*axis = u;
	if (unique)
		*unique = uniq;
	return best;
}

bool orc_sat_overlap(const imp_vec2 *a, int na, const imp_vec2 *b, int nb)
{
	return orc_sat_depth(a, na, b, nb, 0.0, NULL, NULL) >= 0.0;
}

static bool in_box(imp_vec2 a, imp_vec2 b, imp_vec2 p)
{
	return fmin(a.x, b.x) <= p.x && p.x <= fmax(a.x, b.x) && fmin(a.y, b.y) <= p.y &&
	       p.y <= fmax(a.y, b.y);
}

static bool segments_intersect(imp_vec2 p1, imp_vec2 p2, imp_vec2 q1, imp_vec2 q2)
{
	int d1 = orc_orient(q1, q2, p1), d2 = orc_orient(q1, q2, p2);
	int d3 = orc_orient(p1, p2, q1), d4 = orc_orient(p1, p2, q2);
	if (((d1 > 0 && d2 < 0) || (d1 < 0 && d2 > 0)) && ((d3 > 0 && d4 < 0) || (d3 < 0 && d4 > 0)))
		return true;
	if (d1 == 0 && in_box(q1, q2, p1))
		return true;
	if (d2 == 0 && in_box(q1, q2, p2))
		return true;
	if (d3 == 0 && in_box(p1, p2, q1))
		return true;
	if (d4 == 0 && in_box(p1, p2, q2))
		return true;
	return false;
}

bool orc_overlap_brute(const imp_vec2 *a, int na, const imp_vec2 *b, int nb)
{
	for (int i = 0; i < edge_count(na); i++)
		for (int j = 0; j < edge_count(nb); j++)
			if (segments_intersect(a[i], a[(i + 1) % na], b[j], b[(j + 1) % nb]))
				return true;
	return inside(a[0], b, nb) || inside(b[0], a, na);
}

double orc_core_distance(const imp_vec2 *a, int na, const imp_vec2 *b, int nb, imp_vec2 *pa,
			 imp_vec2 *pb)
{
	if (orc_sat_overlap(a, na, b, nb)) {
		if (pa)
			*pa = a[0];
		if (pb)
			*pb = a[0];
		return 0.0;
	}
	double best = DBL_MAX;
	imp_vec2 ba = a[0], bb = b[0];
	for (int i = 0; i < na; i++)
		for (int j = 0; j < edge_count(nb); j++) {
			imp_vec2 c;
			double d = orc_point_segment(a[i], b[j], b[(j + 1) % nb], &c);
			if (d < best) {
				best = d;
				ba = a[i];
				bb = c;
			}
		}
	for (int j = 0; j < nb; j++)
		for (int i = 0; i < edge_count(na); i++) {
			imp_vec2 c;
			double d = orc_point_segment(b[j], a[i], a[(i + 1) % na], &c);
			if (d < best) {
				best = d;
				ba = c;
				bb = b[j];
			}
		}
	if (pa)
		*pa = ba;
	if (pb)
		*pb = bb;
	return best;
}

double orc_scene(const imp_vec2 *a, int na, double ra, const imp_vec2 *b, int nb, double rb)
{
	double s = 0.0;
	for (int i = 0; i < na; i++)
		s = fmax(s, fmax(fabs(a[i].x), fabs(a[i].y)));
	for (int i = 0; i < nb; i++)
		s = fmax(s, fmax(fabs(b[i].x), fabs(b[i].y)));
	s += fmax(ra, rb);
	return fmax(s, 1.0);
}

static int face_count(const imp_vec2 *v, int n, imp_vec2 u, bool max_side, double tol)
{
	double lo, hi;
	project(v, n, u, &lo, &hi);
	int c = 0;
	for (int i = 0; i < n; i++) {
		double d = dot(v[i], u);
		if (max_side ? d >= hi - tol : d <= lo + tol)
			c++;
	}
	return c;
}

static imp_vec2 extreme(const imp_vec2 *v, int n, imp_vec2 u)
{
	int best = 0;
	for (int i = 1; i < n; i++)
		if (dot(v[i], u) > dot(v[best], u))
			best = i;
	return v[best];
}

void orc_query(const imp_vec2 *a, int na, double ra, const imp_vec2 *b, int nb, double rb,
	       orc_result *out)
{
	double scene = orc_scene(a, na, ra, b, nb, rb);
	imp_vec2 ca, cb, n;
	double core_sd;
	bool uniq;
	double d = orc_core_distance(a, na, b, nb, &ca, &cb);
	if (d > 0.0) {
		core_sd = d;
		n = imp_vec2_make((cb.x - ca.x) / d, (cb.y - ca.y) / d);
		uniq = true;
	} else {
		double depth = orc_sat_depth(a, na, b, nb, 1e-6 * scene, &n, &uniq);
		core_sd = -depth;
		// The deepest pair: a's support along n and b's along -n; one of the
		// two faces is a vertex unless the faces are parallel edges.
		if (face_count(a, na, n, true, 1e-9 * scene) == 1) {
			ca = extreme(a, na, n);
			cb = imp_vec2_make(ca.x - depth * n.x, ca.y - depth * n.y);
		} else {
			cb = extreme(b, nb, imp_vec2_make(-n.x, -n.y));
			ca = imp_vec2_make(cb.x + depth * n.x, cb.y + depth * n.y);
		}
	}
	if (fabs(core_sd) <= 1e-6 * scene)
		uniq = false; // the direction is ill-conditioned near core contact
	out->scene = scene;
	out->core_sd = core_sd;
	out->sd = core_sd - ra - rb;
	out->overlap = out->sd <= 0.0;
	out->normal = n;
	out->pa = imp_vec2_make(ca.x + ra * n.x, ca.y + ra * n.y);
	out->pb = imp_vec2_make(cb.x - rb * n.x, cb.y - rb * n.y);
	out->unique_normal = uniq;
	double ftol = 1e-9 * scene;
	out->unique_points = uniq && !(face_count(a, na, n, true, ftol) >= 2 &&
				       face_count(b, nb, n, false, ftol) >= 2);
}

double orc_signed_distance(const imp_vec2 *a, int na, double ra, const imp_vec2 *b, int nb, double rb)
{
	double d = orc_core_distance(a, na, b, nb, NULL, NULL);
	if (d <= 0.0)
		d = -orc_sat_depth(a, na, b, nb, 0.0, NULL, NULL);
	return d - ra - rb;
}

void orc_transform(imp_pose2 pose, const imp_vec2 *v, int n, imp_vec2 *out)
{
	for (int i = 0; i < n; i++)
		out[i] = imp_pose2_apply(pose, v[i]);
}

uint64_t orc_next(orc_rng *r)
{
	uint64_t z = (r->s += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

double orc_uniform(orc_rng *r)
{
	return (double)(orc_next(r) >> 11) * 0x1.0p-53;
}

double orc_range(orc_rng *r, double lo, double hi)
{
	return lo + (hi - lo) * orc_uniform(r);
}

int orc_int(orc_rng *r, int n)
{
	return (int)(orc_next(r) % (uint64_t)n);
}

imp_vec2 orc_vec(orc_rng *r, double xlo, double xhi, double ylo, double yhi)
{
	double x = orc_range(r, xlo, xhi);
	double y = orc_range(r, ylo, yhi);
	return imp_vec2_make(x, y);
}
