// SPDX-License-Identifier: MIT
// The expanding polytope algorithm (EPA, van den Bergen 2001) in 3D: from
// a simplex of C = A - B holding the origin, grow a polytope inside C
// toward the face of C nearest the origin.
#include <float.h>
#include <math.h>

#include "narrow/gjk3d_internal.h"

/// Capacity of the polytope, on the stack: a query allocates nothing.
#define EPA_MAX_VERTICES 128
/// A closed triangulated polytope of V vertices has 2V - 4 faces, and
/// removed faces' slots are reused: 256 slots (16 KB) hold any polytope
/// the vertex limit allows.
#define EPA_MAX_FACES (2 * EPA_MAX_VERTICES)

/// A new face nearer the origin than the face it replaces by more than
/// this, relative to the polytope's size, is rounding folding the polytope
/// (see expand). In the 3D test suites sound expansions' new faces came
/// up to 4e-12 of it nearer (planes of sliver faces, rounded), folded ones
/// from 1e-8 (half the depth, or the origin outside); the answers were the
/// same for any value from 1e-13 to 1e-9.
#define EPA_FOLD 1e-9
/// A retried expansion keeps the faces w is less than this (of the scene)
/// above (see imp_epa3).
#define EPA_SEE 1e-12
/// A support this far (of the scene) beyond the nearest face that cannot
/// grow leaves EPA's answer a bound (see imp_epa3).
#define EPA_FAR 1e-6

typedef struct face3 {
	int v[3];       ///< counter-clockwise seen from outside
	int adj[3];     ///< the face across edge v[k] -> v[k + 1]
	imp_vec3 n;     ///< unit outward normal
	double d;       ///< n . (any vertex): the origin's distance to the plane (INFINITY: no area)
	bool live;
} face3;

typedef struct poly3 {
	imp_svert3 v[EPA_MAX_VERTICES];
	int nv;
	face3 f[EPA_MAX_FACES];
	int nf;                      ///< slots ever used; the dead among them are in `spare`
	int spare[EPA_MAX_FACES];    ///< slots of removed faces, for reuse
	int nspare;
} poly3;

/// The plane of triangle (a, b, c), counter-clockwise seen from outside:
/// its unit outward normal into *n and the origin's distance to it.
static double plane_of(imp_vec3 a, imp_vec3 b, imp_vec3 c, imp_vec3 *n)
{
	imp_vec3 m = imp_vec3_cross(imp_vec3_sub(b, a), imp_vec3_sub(c, a));
	double mm = imp_vec3_dot(m, m);
	if (!(mm > 0.0)) {
		// No area (or less than rounding makes of it): never the nearest
		// face, but kept so the polytope stays closed.
		*n = imp_vec3_make(0.0, 0.0, 0.0);
		return INFINITY;
	}
	// sqrt(mm) is |m| only inside double's normal range: a sliver face of
	// a needle had a cross product near 1e-162, whose square is a few
	// subnormals, and its normal came out 1.0108 long (issue 20, finding
	// 29).
	*n = imp_square_in_range(mm) ? imp_vec3_scale(1.0 / sqrt(mm), m) : imp_robust_unit3(m, m);
	// The largest of the three offsets: the plane as far out as rounding
	// allows, so the origin is never judged outside a face it lies on.
	return fmax(fmax(imp_vec3_dot(*n, a), imp_vec3_dot(*n, b)), imp_vec3_dot(*n, c));
}

/// A new face with its plane (n, d) in a spare slot or a fresh one: its
/// index, or -1 when full.
static int add_face_plane(poly3 *p, int a, int b, int c, imp_vec3 n, double d)
{
	int i;
	if (p->nspare > 0)
		i = p->spare[--p->nspare];
	else if (p->nf < EPA_MAX_FACES)
		i = p->nf++;
	else
		return -1;
	face3 *f = &p->f[i];
	f->v[0] = a;
	f->v[1] = b;
	f->v[2] = c;
	f->adj[0] = f->adj[1] = f->adj[2] = -1;
	f->live = true;
	f->n = n;
	f->d = d;
	return i;
}

/// add_face_plane with the triangle's own plane.
static int add_face(poly3 *p, int a, int b, int c)
{
	imp_vec3 n;
	double d = plane_of(p->v[a].w, p->v[b].w, p->v[c].w, &n);
	return add_face_plane(p, a, b, c, n, d);
}

static double volume(imp_vec3 a, imp_vec3 b, imp_vec3 c, imp_vec3 d)
{
	return imp_vec3_dot(imp_vec3_sub(b, a), imp_vec3_cross(imp_vec3_sub(c, a), imp_vec3_sub(d, a)));
}

static bool same_w(imp_vec3 a, imp_vec3 b)
{
	return a.x == b.x && a.y == b.y && a.z == b.z;
}

/// Completes GJK's simplex (the origin in its closed hull) to a
/// tetrahedron with volume, by supports away from it. False when C has no
/// volume near it (two coplanar flat shapes): then there is no depth.
static bool complete_simplex(imp_gjk3_ctx *c, poly3 *p)
{
	static const double axes[6][3] = {{1, 0, 0}, {-1, 0, 0}, {0, 1, 0}, {0, -1, 0}, {0, 0, 1}, {0, 0, -1}};
	if (p->nv == 1) {
		for (int k = 0; k < 6 && p->nv == 1; ++k) {
			imp_svert3 w;
			imp_cso_support3(c, imp_vec3_make(axes[k][0], axes[k][1], axes[k][2]), &w);
			if (!same_w(w.w, p->v[0].w))
				p->v[p->nv++] = w;
		}
		if (p->nv == 1)
			return false;
	}
	if (p->nv == 2) {
		imp_vec3 e = imp_vec3_sub(p->v[1].w, p->v[0].w);
		imp_vec3 n1 = imp_any_normal3(e), n2 = imp_vec3_cross(imp_vec3_scale(1.0 / imp_vec3_length(e), e), n1);
		// Six directions around the segment, 60 degrees apart.
		for (int k = 0; k < 6 && p->nv == 2; ++k) {
			double t = k * (3.14159265358979323846 / 3.0);
			imp_vec3 d = imp_vec3_add(imp_vec3_scale(cos(t), n1), imp_vec3_scale(sin(t), n2));
			imp_svert3 w;
			imp_cso_support3(c, d, &w);
			imp_vec3 cr = imp_vec3_cross(e, imp_vec3_sub(w.w, p->v[0].w));
			if (imp_vec3_dot(cr, cr) > 0.0)
				p->v[p->nv++] = w;
		}
		if (p->nv == 2)
			return false;
	}
	if (p->nv == 3) {
		imp_vec3 n = imp_vec3_cross(imp_vec3_sub(p->v[1].w, p->v[0].w), imp_vec3_sub(p->v[2].w, p->v[0].w));
		imp_svert3 up, down;
		imp_cso_support3(c, n, &up);
		imp_cso_support3(c, imp_vec3_neg(n), &down);
		double vu = volume(p->v[0].w, p->v[1].w, p->v[2].w, up.w);
		double vd = volume(p->v[0].w, p->v[1].w, p->v[2].w, down.w);
		if (fabs(vu) >= fabs(vd) && vu != 0.0)
			p->v[p->nv++] = up;
		else if (vd != 0.0)
			p->v[p->nv++] = down;
		else
			return false;
	}
	return true;
}

/// Result for a C with no volume near the origin: depth 0 along the
/// normal of the flat simplex (or any direction).
static void flat_result(const poly3 *p, imp_epa3_result *out)
{
	imp_vec3 n = imp_vec3_make(1.0, 0.0, 0.0);
	if (p->nv >= 3) {
		imp_vec3 m = imp_vec3_cross(imp_vec3_sub(p->v[1].w, p->v[0].w), imp_vec3_sub(p->v[2].w, p->v[0].w));
		n = imp_robust_unit3(m, n);
	} else if (p->nv == 2) {
		n = imp_any_normal3(imp_vec3_sub(p->v[1].w, p->v[0].w));
	}
	// The point of the simplex nearest the origin (the origin itself,
	// within rounding) gives the witnesses.
	imp_svert3 kept[4];
	double l[4];
	imp_vec3 v;
	int k = imp_simplex3_nearest(p->v, p->nv < 4 ? p->nv : 3, kept, l, &v);
	out->normal = n;
	out->depth = 0.0;
	// Where the descent on curved cores starts: both sides of the flat
	// simplex (the caller reads them when the polytope lost every face).
	out->candidate[0] = n;
	out->candidate[1] = imp_vec3_neg(n);
	out->candidates = 2;
	out->spreads = 0;
	out->n = k < 3 ? k : 3;
	for (int i = 0; i < out->n; ++i) {
		out->s[i] = kept[i];
		out->l[i] = l[i];
	}
}

/// The index of the live face nearest the origin.
static int nearest_face(const poly3 *p)
{
	int best = -1;
	for (int i = 0; i < p->nf; ++i)
		if (p->f[i].live && (best < 0 || p->f[i].d < p->f[best].d))
			best = i;
	return best;
}

/// Links the four faces of the first tetrahedron across their edges.
static void link_tetrahedron(poly3 *p)
{
	for (int f = 0; f < 4; ++f)
		for (int k = 0; k < 3; ++k) {
			int a = p->f[f].v[k], b = p->f[f].v[(k + 1) % 3];
			for (int g = 0; g < 4; ++g)
				for (int j = 0; j < 3; ++j)
					if (p->f[g].v[j] == b && p->f[g].v[(j + 1) % 3] == a)
						p->f[f].adj[k] = g;
		}
}

/// The edge of face g that runs from b to a (g's neighbour across a -> b).
static int edge_back(const face3 *g, int a, int b)
{
	for (int j = 0; j < 3; ++j)
		if (g->v[j] == b && g->v[(j + 1) % 3] == a)
			return j;
	return -1;
}

/// How expand ended.
typedef enum expand_result {
	EXPANDED,       ///< w added
	EXPAND_FULL,    ///< out of room (the faces that see w may be gone)
	EXPAND_ROUNDING ///< the new faces would come nearer than `floor`: the polytope as it was
} expand_result;

/// Adds vertex w: removes the faces that see it, grown from face fi across
/// edges (so the hole is one connected patch even where rounding makes
/// far faces look visible), and closes the hole with a cone of faces from
/// its horizon, linked to the faces around it. A polytope that grows
/// inside C has no face nearer the origin than its nearest one had: a new
/// face nearer than `floor` means rounding misjudged which faces see w
/// (a w within rounding of the planes of many small faces, around the
/// nearest point of a curved C), and the cone would make the polytope
/// fold in on itself: then nothing is changed (EXPAND_ROUNDING). A face
/// sees w when w is above its plane by more than `see` (0, or a margin
/// for a retry: see imp_epa3).
static expand_result expand(poly3 *p, int fi, const imp_svert3 *w, double floor, double see)
{
	if (p->nv == EPA_MAX_VERTICES)
		return EXPAND_FULL;
	int iw = p->nv;
	// The horizon: edge a -> b of a removed face, the kept face g across it.
	int horizon[EPA_MAX_FACES][3];
	int nh = 0;
	int removed[EPA_MAX_FACES];
	int nr = 0;
	p->f[fi].live = false;
	removed[nr++] = fi;
	// The removed faces double as the flood fill's queue.
	for (int next = 0; next < nr; ++next) {
		const face3 *f = &p->f[removed[next]];
		for (int k = 0; k < 3; ++k) {
			int g = f->adj[k];
			if (g < 0)
				continue; // unlinked (a horizon that rounding left open)
			face3 *h = &p->f[g];
			if (!h->live)
				continue; // removed already: inside the hole
			// Faces without area (d infinite) never see w.
			if (imp_vec3_dot(h->n, w->w) > h->d + see) {
				h->live = false;
				removed[nr++] = g;
			} else {
				if (nh == EPA_MAX_FACES)
					return EXPAND_FULL; // a horizon longer than any the polytope can have
				horizon[nh][0] = f->v[k];
				horizon[nh][1] = f->v[(k + 1) % 3];
				horizon[nh][2] = g;
				++nh;
			}
		}
	}
	// The new faces' planes, checked before anything changes but the
	// removed faces' flags.
	imp_vec3 normal[EPA_MAX_FACES];
	double offset[EPA_MAX_FACES];
	double nearest = INFINITY;
	for (int e = 0; e < nh; ++e) {
		offset[e] = plane_of(p->v[horizon[e][0]].w, p->v[horizon[e][1]].w, w->w, &normal[e]);
		nearest = fmin(nearest, offset[e]);
	}
	if (nearest < floor) {
		for (int i = 0; i < nr; ++i)
			p->f[removed[i]].live = true;
		return EXPAND_ROUNDING;
	}
	// The removed faces' slots take the new ones (their links were read
	// above and are not read again).
	for (int i = 0; i < nr; ++i)
		p->spare[p->nspare++] = removed[i];
	if (EPA_MAX_FACES - p->nf + p->nspare < nh)
		return EXPAND_FULL;
	p->v[p->nv++] = *w;
	// The cone: face (a, b, w) for each horizon edge; its neighbours are
	// the kept face across a -> b and the cone faces starting at b and
	// ending at a.
	int starts_at[EPA_MAX_VERTICES];
	for (int i = 0; i < p->nv; ++i)
		starts_at[i] = -1;
	int made[EPA_MAX_FACES];
	for (int e = 0; e < nh; ++e) {
		int a = horizon[e][0], b = horizon[e][1], g = horizon[e][2];
		int nf = add_face_plane(p, a, b, iw, normal[e], offset[e]);
		made[e] = nf;
		p->f[nf].adj[0] = g;
		int j = edge_back(&p->f[g], a, b);
		if (j >= 0)
			p->f[g].adj[j] = nf;
		starts_at[a] = nf;
	}
	for (int e = 0; e < nh; ++e) {
		face3 *f = &p->f[made[e]];
		int next = starts_at[f->v[1]];
		if (next < 0)
			continue;
		f->adj[1] = next;            // across b -> w: the face (b, c, w)
		p->f[next].adj[2] = made[e]; // its edge w -> b
	}
	return EXPANDED;
}

/// The live face nearest the origin, nearer than `below`, whose normal is
/// `apart` or less (dot product) from each of the na normals a[] and nb
/// normals b[]; -1 when none is.
static int nearest_apart(const poly3 *p, const imp_vec3 *a, int na, const imp_vec3 *b, int nb, double apart,
			 double below)
{
	int pick = -1;
	for (int i = 0; i < p->nf; ++i) {
		const face3 *f = &p->f[i];
		if (!f->live || !(f->d < below) || (pick >= 0 && !(f->d < p->f[pick].d)))
			continue;
		bool taken = false;
		for (int k = 0; k < na && !taken; ++k)
			taken = imp_vec3_dot(a[k], f->n) > apart;
		for (int k = 0; k < nb && !taken; ++k)
			taken = imp_vec3_dot(b[k], f->n) > apart;
		pick = taken ? pick : i;
	}
	return pick;
}

void imp_epa3(imp_gjk3_ctx *c, const imp_svert3 *s, int n, int max_iterations, double tol, imp_epa3_result *out)
{
	poly3 p;
	p.nv = 0;
	p.nf = 0;
	p.nspare = 0;
	for (int i = 0; i < n; ++i) {
		bool dup = false;
		for (int j = 0; j < p.nv; ++j)
			dup = dup || same_w(p.v[j].w, s[i].w);
		if (!dup)
			p.v[p.nv++] = s[i];
	}
	// Set before any return: closest3_general reads the candidates after
	// every early one, and read an unset count past the six (issue 20,
	// defect 2: the polytope of a needle-thin ellipsoid and a sphere lost
	// every face).
	out->iterations = 0;
	out->limit = false;
	out->candidates = 0;
	out->spreads = 0;
	if (p.nv == 4 && volume(p.v[0].w, p.v[1].w, p.v[2].w, p.v[3].w) == 0.0)
		p.nv = 3;
	if (p.nv < 4 && !complete_simplex(c, &p)) {
		flat_result(&p, out);
		return;
	}
	if (c->bad)
		return;
	// The tetrahedron's faces, each turned so that the fourth vertex is
	// behind it.
	if (volume(p.v[0].w, p.v[1].w, p.v[2].w, p.v[3].w) > 0.0) {
		imp_svert3 t = p.v[1];
		p.v[1] = p.v[2];
		p.v[2] = t;
	}
	add_face(&p, 0, 1, 2);
	add_face(&p, 0, 3, 1);
	add_face(&p, 0, 2, 3);
	add_face(&p, 1, 3, 2);
	link_tetrahedron(&p);
	double scale = 0.0;
	for (int i = 0; i < 4; ++i)
		scale = fmax(scale, fmax(fabs(p.v[i].w.x), fmax(fabs(p.v[i].w.y), fabs(p.v[i].w.z))));
	double abs_tol = tol * scale;
	double top = INFINITY; // the least support height measured: h's minimum is no higher
	int fi;
	for (;;) {
		fi = nearest_face(&p);
		if (fi < 0 || p.f[fi].d == INFINITY) {
			flat_result(&p, out);
			out->limit = true;
			return;
		}
		if (out->iterations == max_iterations) {
			out->limit = true;
			break;
		}
		face3 *f = &p.f[fi];
		imp_svert3 w;
		imp_cso_support3(c, f->n, &w);
		++out->iterations;
		if (c->bad)
			return;
		double hw = imp_vec3_dot(f->n, w.w);
		top = hw < top ? hw : top;
		bool known = false;
		for (int k = 0; k < 3; ++k) {
			const imp_svert3 *q = &p.v[f->v[k]];
			known = known || (w.ia >= 0 && w.ib >= 0 ? (w.ia == q->ia && w.ib == q->ib) : same_w(w.w, q->w));
		}
		if (known || imp_vec3_dot(f->n, w.w) - f->d <= abs_tol)
			break;
		expand_result grown = expand(&p, fi, &w, p.f[fi].d - EPA_FOLD * scale, 0.0);
		if (grown == EXPAND_ROUNDING) {
			// w within rounding of a neighbour's plane, judged to see
			// it: the origin on the axis of a cone, on an edge of the
			// first tetrahedron, and w the rim point opposite another,
			// in the plane of that edge's other face (fuzz finding 54's
			// kin: a ball 1.5 inside a cone answered depth 0). Again with
			// faces that w is within 1e-12 of the scene above kept.
			grown = expand(&p, fi, &w, p.f[fi].d - EPA_FOLD * scale, EPA_SEE * scale);
		}
		if (grown == EXPAND_ROUNDING) {
			// The face is as near as rounding can tell, unless w is far
			// beyond it: then the answer is only a bound, and curved
			// cores go on to the descent.
			out->limit = imp_vec3_dot(f->n, w.w) - f->d > EPA_FAR * scale;
			break;
		}
		if (grown == EXPAND_FULL) {
			out->limit = true;
			fi = nearest_face(&p);
			if (fi < 0 || p.f[fi].d == INFINITY) {
				flat_result(&p, out); // no face left to answer from
				return;
			}
			break;
		}
	}
	// The normals of the nearest faces, where a descent on curved cores
	// starts (h has a local minimum near each face of a box, say).
	out->candidates = 0;
	int pick;
	while (out->candidates < IMP_EPA3_CANDIDATES &&
	       (pick = nearest_apart(&p, out->candidate, out->candidates, NULL, 0, 0.999, INFINITY)) >= 0)
		out->candidate[out->candidates++] = p.f[pick].n;
	// Faces apart from those (and from each other) by more than 45
	// degrees: h's local minima can differ by less than the polytope sags
	// (a box's six faces inside a large ball), and the nearest faces then
	// crowd into the wrong ones. Only faces nearer than the least support
	// height measured: no other can hold the minimum.
	out->spreads = 0;
	while (out->spreads < IMP_EPA3_CANDIDATES &&
	       (pick = nearest_apart(&p, out->candidate, out->candidates, out->spread, out->spreads, 0.7, top)) >= 0) {
		out->spread_d[out->spreads] = p.f[pick].d;
		out->spread[out->spreads++] = p.f[pick].n;
	}
	// Coplanar faces tie on their distance, and the projection of the
	// origin lies in only one of them: of the faces within rounding of the
	// nearest plane, the one whose own nearest point is nearest.
	double slack = 4.0 * abs_tol + 64 * DBL_EPSILON * scale;
	double best = INFINITY;
	for (int i = 0; i < p.nf; ++i) {
		const face3 *f = &p.f[i];
		if (!f->live || !(f->d <= p.f[fi].d + slack))
			continue;
		imp_svert3 tri[3] = {p.v[f->v[0]], p.v[f->v[1]], p.v[f->v[2]]};
		imp_svert3 kept[4];
		double l[4];
		imp_vec3 v;
		int k = imp_simplex3_nearest(tri, 3, kept, l, &v);
		double vv = imp_vec3_dot(v, v);
		if (vv < best) {
			best = vv;
			out->n = k < 3 ? k : 3;
			for (int j = 0; j < out->n; ++j) {
				out->s[j] = kept[j];
				out->l[j] = l[j];
			}
			out->normal = f->n;
			// The depth the witnesses hold (the nearest point's offset
			// along the normal), not the plane's largest offset: they
			// differ on a sliver face, whose normal is only as good as
			// its rounding, and the answer must keep normal . (b - a) =
			// distance (a needle across a long segment: 1.4e-7 apart;
			// issue 20, defect 6).
			//
			// That point is the weights' sum, not v: v is the origin's
			// projection on the triangle's plane, and on a sliver face
			// (a segment through a box 1e-10 thin) the plane's normal is
			// good to 1e-6 only, so v and the weighted point differ by
			// far more than rounding along it (depth 3e-59 against the
			// witnesses' 1.1e-60 in a scene of 1e-50).
			imp_vec3 held = imp_vec3_make(0.0, 0.0, 0.0);
			for (int j = 0; j < out->n; ++j)
				held = imp_vec3_add(held, imp_vec3_scale(l[j], kept[j].w));
			double along = imp_vec3_dot(f->n, held);
			out->depth = along > 0.0 ? along : 0.0;
		}
	}
}

/// h(n) = n . S_C(n): how far C reaches along unit n, an upper bound of
/// the penetration depth, with the support in *w.
double imp_depth3_height(imp_gjk3_ctx *c, imp_vec3 n, imp_svert3 *w)
{
	imp_cso_support3(c, n, w);
	return imp_vec3_dot(n, w->w);
}

static imp_vec3 unit3(imp_vec3 v)
{
	return imp_vec3_scale(1.0 / imp_vec3_length(v), v);
}

/// Cosine and sine of k pi / 8, k = 0 .. 15: the pattern search's sixteen
/// directions (a table: they were a sine and a cosine each, a seventh of
/// the time of a curved penetration).
#define C8 0.92387953251128674
#define S8 0.38268343236508977
#define R8 0.70710678118654752
static const double compass[16][2] = {{1, 0},   {C8, S8},   {R8, R8},   {S8, C8},   {0, 1},   {-S8, C8},
				      {-R8, R8}, {-C8, S8}, {-1, 0},    {-C8, -S8}, {-R8, -R8}, {-S8, -C8},
				      {0, -1},   {S8, -C8}, {R8, -R8},  {C8, -S8}};

/// Whether a core's support function is smooth with a Hessian known in
/// closed form: a point (a sphere's core) or an ellipsoid.
static bool smooth_core(const imp_shape3 *s)
{
	return s->kind == IMP_SHAPE_ELLIPSOID || (s->v != NULL && s->count == 1);
}

bool imp_gjk3_smooth(const imp_gjk3_ctx *c)
{
	return smooth_core(c->a.s) && smooth_core(c->b.s);
}

/// The Hessian of h on the sphere of directions at unit n, in the tangent
/// basis (e1, e2), for smooth cores: the Hessian of C's support function
/// (a's, plus b's at -n, which is even in n, turned into a's frame) less
/// h itself, from the curvature of the sphere.
static void smooth_tangent_hessian(const imp_gjk3_ctx *c, imp_vec3 n, imp_vec3 e1, imp_vec3 e2, double h,
				   double *h11, double *h12, double *h22)
{
	const imp_shape3 *sa = c->a.s, *sb = c->b.s;
	imp_vec3 nb = imp_mat3_apply_t(&c->r, n), f1 = imp_mat3_apply_t(&c->r, e1), f2 = imp_mat3_apply_t(&c->r, e2);
	double a11 = imp_core_form3(sa, n, e1, e1) + imp_core_form3(sb, nb, f1, f1);
	double a12 = imp_core_form3(sa, n, e1, e2) + imp_core_form3(sb, nb, f1, f2);
	double a22 = imp_core_form3(sa, n, e2, e2) + imp_core_form3(sb, nb, f2, f2);
	double k = c->scale; // every point, so h and its Hessian, scaled by it
	*h11 = k * a11 - h;
	*h12 = k * a12;
	*h22 = k * a22 - h;
}

/// The length of the gradient of h at unit n: the part of the support
/// point w normal to n.
static double tangent_length(imp_vec3 n, imp_vec3 w)
{
	return imp_vec3_length(imp_vec3_sub(w, imp_vec3_scale(imp_vec3_dot(w, n), n)));
}

/// The minimum of h(n) = max over C of n . x over unit n, by Newton's
/// method on the sphere from n (see imp_depth3_refine). On return n, h and
/// w are the last direction, its h and its support; *iterations counts the
/// steps. True when the gradient vanished to tol relative to the scene.
static bool newton_descent(imp_gjk3_ctx *c, imp_vec3 *np, double *hp, imp_svert3 *wp, int max_iterations, double tol,
			   int *iterations)
{
	imp_vec3 n = *np;
	imp_svert3 w = *wp;
	double h = *hp;
	bool smooth = imp_gjk3_smooth(c), converged = false;
	int it = 0;
	for (; it < max_iterations && !c->bad; ++it) {
		// Tangent basis at n, the gradient of h there (the tangential
		// part of the support point) and its Hessian: in closed form on
		// smooth cores, else by finite differences.
		imp_vec3 e1 = imp_any_normal3(n), e2 = imp_vec3_cross(n, e1);
		double g1 = imp_vec3_dot(w.w, e1), g2 = imp_vec3_dot(w.w, e2), gl = hypot(g1, g2);
		// The scene's size: h and the support carry rounding of the
		// coordinates, which are that large even where h is near 0.
		double scale = imp_max(imp_max(fabs(h), c->reach), imp_max3(fabs(w.w.x), fabs(w.w.y), fabs(w.w.z)));
		if (gl <= tol * scale) {
			converged = true;
			break;
		}
		double h11, h22, h12;
		if (smooth) {
			smooth_tangent_hessian(c, n, e1, e2, h, &h11, &h12, &h22);
		} else {
			const double eps = 1e-6;
			imp_svert3 w1, w2;
			imp_cso_support3(c, unit3(imp_vec3_add(n, imp_vec3_scale(eps, e1))), &w1);
			imp_cso_support3(c, unit3(imp_vec3_add(n, imp_vec3_scale(eps, e2))), &w2);
			h11 = imp_vec3_dot(imp_vec3_sub(w1.w, w.w), e1) / eps - h;
			h22 = imp_vec3_dot(imp_vec3_sub(w2.w, w.w), e2) / eps - h;
			h12 = 0.5 * (imp_vec3_dot(imp_vec3_sub(w2.w, w.w), e1) + imp_vec3_dot(imp_vec3_sub(w1.w, w.w), e2)) / eps;
		}
		double u1, u2;
		if (!imp_tangent_newton(g1, g2, h11, h12, h22, &u1, &u2)) {
			// Not convex there (an edge or vertex of a polytope):
			// a gradient step of the size the gradient suggests.
			u1 = -g1 / scale;
			u2 = -g2 / scale;
		}
		// Backtracking: accept the first step that lowers h, along the
		// Newton step, else along the gradient (the Hessian of a kinked
		// h can point uphill). Near the minimum a Newton step lowers h by
		// less than h's rounding: on smooth cores a step that leaves h
		// within that rounding and shortens the gradient is taken too.
		double round = 64 * DBL_EPSILON * scale;
		bool moved = false;
		for (int dir = 0; dir < 2 && !moved; ++dir) {
			if (dir == 1) {
				u1 = -g1 / gl * 0.5;
				u2 = -g2 / gl * 0.5;
			}
			for (int half = 0; half < 40; ++half) {
				imp_vec3 m =
					unit3(imp_vec3_add(n, imp_vec3_add(imp_vec3_scale(u1, e1), imp_vec3_scale(u2, e2))));
				imp_svert3 wm;
				double hm = imp_depth3_height(c, m, &wm);
				if (hm < h || (smooth && hm <= h + round && tangent_length(m, wm.w) < gl)) {
					n = m;
					h = hm;
					w = wm;
					moved = true;
					break;
				}
				u1 *= 0.5;
				u2 *= 0.5;
			}
		}
		if (!moved)
			break;
	}
	*np = n;
	*hp = h;
	*wp = w;
	*iterations = it;
	return converged;
}

bool imp_depth3_refine(imp_gjk3_ctx *c, imp_vec3 n, int max_iterations, double tol, imp_epa3_result *out)
{
	imp_svert3 w;
	n = unit3(n);
	double h = imp_depth3_height(c, n, &w);
	int it = 0;
	bool converged = newton_descent(c, &n, &h, &w, max_iterations, tol, &it);
	if (!converged && !c->bad) {
		// No lower h along the Newton step or the gradient, or no end to
		// the descent: a minimum, or a kink (where C has an edge of a
		// polytope swept along a curve, h is smooth only along the
		// edge's great circle and the steps zig-zag). A pattern search in
		// sixteen directions of the tangent plane follows such a valley
		// down, to a step of 1e-13.
		converged = true;
		imp_vec3 e1 = imp_any_normal3(n), e2 = imp_vec3_cross(n, e1);
		double step = 1e-3;
		int budget = 4 * max_iterations;
		while (step > 1e-13 && budget-- > 0) {
			bool better = false;
			for (int k = 0; k < 16 && !better; ++k) {
				imp_vec3 m = unit3(imp_vec3_add(n, imp_vec3_add(imp_vec3_scale(step * compass[k][0], e1),
										 imp_vec3_scale(step * compass[k][1], e2))));
				imp_svert3 wm;
				double hm = imp_depth3_height(c, m, &wm);
				if (hm < h) {
					n = m;
					h = hm;
					w = wm;
					better = true;
				}
			}
			++it;
			if (better) {
				step *= 2.0;
				e1 = imp_any_normal3(n);
				e2 = imp_vec3_cross(n, e1);
			} else {
				step *= 0.5;
			}
		}
		// Stopped by the budget before the step reached its end: an
		// iteration limit, which the caller reports (issue 20, defect 16:
		// epa_max_iterations 1 answered a depth 18% off as exact).
		converged = step <= tol;
	}
	out->normal = n;
	out->depth = h > 0.0 ? h : 0.0;
	out->s[0] = w;
	out->l[0] = 1.0;
	out->n = 1;
	out->iterations += it;
	return converged;
}

bool imp_depth3_nearest(imp_gjk3_ctx *c, imp_vec3 n, int max_iterations, double tol, imp_svert3 *w, int *iterations)
{
	n = unit3(n);
	double h = imp_depth3_height(c, n, w);
	if (c->bad || !(h < 0.0))
		return false;
	bool converged = newton_descent(c, &n, &h, w, max_iterations, tol, iterations);
	return converged && !c->bad && h < 0.0;
}

bool imp_depth3_try(imp_gjk3_ctx *c, imp_vec3 n, imp_epa3_result *out)
{
	imp_svert3 w;
	n = unit3(n);
	double h = imp_depth3_height(c, n, &w);
	if (c->bad || !(h < out->depth))
		return false;
	out->normal = n;
	out->depth = h > 0.0 ? h : 0.0;
	out->s[0] = w;
	out->l[0] = 1.0;
	out->n = 1;
	return true;
}
