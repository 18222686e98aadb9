// SPDX-License-Identifier: MIT
// 2D GJK with the barycode sub-distance (Zhang, Wu, Wang, Zhou 2020,
// docs/narrow2d.md): Level 1 overlap (Alg. 6), Level 2 distance
// (Alg. 1-5) and Level 3 closest points, penetration from epa2d.c.
#include <float.h>
#include <math.h>
#include <string.h>

#include "narrow/gjk2d_internal.h"
#include "narrow/composite_query.h"
#include "narrow/query_options.h"

/// Polygon pairs stop on a repeated support vertex; this relative gap only
/// catches rounding noise on top of that.
#define POLYGON_TOLERANCE 1e-14

/// The relative gap below which Nesterov's momentum is switched off (see
/// gjk3d.c).
#define NESTEROV_SWITCH 1e-6

const imp_query_options imp_default_options = {
	.max_iterations = 64,
	.epa_max_iterations = 64,
	.tolerance = 1e-12,
	.support = IMP_SUPPORT_AUTO,
	.hill_climb_min_vertices = IMP_HILL_CLIMB_MIN_VERTICES,
	.penetration = IMP_PENETRATION_AUTO,
	.acceleration = IMP_ACCELERATION_AUTO,
};

imp_query_options imp_default_query_options(void)
{
	return imp_default_options;
}

const char *imp_query_state_string(imp_query_state state)
{
	switch (state) {
	case IMP_STATE_SEPARATED: return "separated";
	case IMP_STATE_TOUCHING: return "touching";
	case IMP_STATE_OVERLAPPING: return "overlapping";
	case IMP_STATE_ITERATION_LIMIT: return "iteration limit";
	case IMP_STATE_DEGENERATE: return "degenerate";
	}
	return "unknown state";
}

bool imp_options_valid(const imp_query_options *o)
{
	return o->max_iterations >= 1 && o->epa_max_iterations >= 1 && isfinite(o->tolerance) &&
	       o->tolerance > 0.0 && o->tolerance < 0.1 && o->support >= IMP_SUPPORT_AUTO &&
	       o->support <= IMP_SUPPORT_HILL_CLIMB && o->hill_climb_min_vertices >= 3 &&
	       o->penetration >= IMP_PENETRATION_AUTO && o->penetration <= IMP_PENETRATION_EPA &&
	       o->acceleration >= IMP_ACCELERATION_AUTO && o->acceleration <= IMP_ACCELERATION_NESTEROV;
}

/// The status of a query whose quick check failed: which argument is bad.
static IMP_NOINLINE imp_status diagnose(const imp_shape *a, const imp_pose2 *pa, const imp_shape *b,
					const imp_pose2 *pb, const imp_query_options *o)
{
	imp_status st = imp_shape_check(a, 2);
	if (st == IMP_OK)
		st = imp_shape_check(b, 2);
	if (st == IMP_OK)
		st = imp_pose2_status(*pa);
	if (st == IMP_OK)
		st = imp_pose2_status(*pb);
	if (st == IMP_OK && !imp_options_valid(o))
		st = IMP_ERR_BAD_OPTIONS;
	return st;
}

/// True when the support of `s` climbs under options `o`.
IMP_ALWAYS_INLINE bool climbs(const imp_shape *s, const imp_query_options *o)
{
	if (o == &imp_default_options)
		return s->climb_auto;
	bool climb = o->support == IMP_SUPPORT_HILL_CLIMB ||
		     (o->support == IMP_SUPPORT_AUTO && s->count >= o->hill_climb_min_vertices);
	return climb && s->count >= 3;
}

IMP_ALWAYS_INLINE void proxy_init(imp_proxy2 *x, const imp_shape *s, const imp_query_options *o)
{
	x->shape = s;
	x->last = -1;
	x->warm = false;
	x->v = s->v;
	x->n = s->count;
	x->climb = climbs(s, o);
}

/// Checks every argument of a query. The common case costs one sum (it
/// carries every NaN and infinity) and two unit tests.
IMP_ALWAYS_INLINE imp_status check_pair(const imp_shape *a, const imp_pose2 *pa, const imp_shape *b,
					const imp_pose2 *pb, const imp_query_options *o)
{
	// One sum of magnitudes checks all four translations for NaN, infinity
	// and range at once; the unit tests fail for any bad rotation.
	double reach = fabs(pa->p.x) + fabs(pa->p.y) + fabs(pb->p.x) + fabs(pb->p.y);
	double ua = pa->q.c * pa->q.c + pa->q.s * pa->q.s - 1.0, ub = pb->q.c * pb->q.c + pb->q.s * pb->q.s - 1.0;
	if (a == NULL || b == NULL || a->magic != IMP_SHAPE_MAGIC || b->magic != IMP_SHAPE_MAGIC || a->dim != 2 ||
	    b->dim != 2 || !(reach <= IMP_MAX_COORDINATE) || !(fabs(ua) <= 1e-9) || !(fabs(ub) <= 1e-9) ||
	    (o != &imp_default_options && !imp_options_valid(o))) {
		// The quick test is stricter than the exact one (the sum of four
		// coordinates each within range can exceed it): go on when the
		// exact one finds nothing wrong.
		return diagnose(a, pa, b, pb, o);
	}
	return IMP_OK;
}

/// Sets up a checked pair with b's pose (q, p) in a's frame.
IMP_ALWAYS_INLINE void setup_pair(imp_gjk2_ctx *c, const imp_shape *a, const imp_shape *b, imp_rot2 q, imp_vec2 p,
				  const imp_query_options *o)
{
	c->q = q;
	c->p = p;
	c->bad = false;
	proxy_init(&c->a, a, o);
	proxy_init(&c->b, b, o);
	c->b_in_a = false;
	c->want_simplex = true;
	// The interior point is only interior when C has area: not for two
	// segments or points, where it would end GJK as a weight on C's
	// boundary with no vertex index.
	c->interior_ok = c->a.n >= 3 || c->b.n >= 3;
	c->b_small = c->b.v != NULL && !c->b.climb && c->b.n <= IMP_PRETRANSFORM_MAX;
}

/// b's vertices in a's frame, b's pose there being (q, p).
IMP_ALWAYS_INLINE void move_b(imp_vec2 *vb, const imp_shape *b, imp_rot2 q, imp_vec2 p)
{
	for (int i = 0; i < b->count; ++i)
		vb[i] = imp_vec2_add(imp_rot2_apply(q, b->v[i]), p);
}

/// Moves b's vertices into a's frame, where that pays (see b_small), once
/// per query.
IMP_ALWAYS_INLINE void pretransform(imp_gjk2_ctx *c)
{
	if (!c->b_small || c->b_in_a)
		return;
	move_b(c->bw, c->b.shape, c->q, c->p);
	c->b.v = c->bw;
	c->b_in_a = true;
}

/// |v| and, where `unit` is given, v / |v|, without squaring v itself: its
/// square leaves double's range below 1e-154 (a gap that small between
/// shapes at unit scale) and gave a normal 10% short of unit length.
static double robust_length(imp_vec2 v, imp_vec2 *unit)
{
	double m = imp_max(fabs(v.x), fabs(v.y));
	if (!(m > 0.0)) {
		if (unit != NULL)
			*unit = imp_vec2_make(1.0, 0.0);
		return 0.0;
	}
	imp_vec2 u = imp_vec2_make(v.x / m, v.y / m);
	double l = sqrt(imp_vec2_dot(u, u));
	if (unit != NULL)
		*unit = imp_vec2_scale(1.0 / l, u);
	return m * l;
}

// ---------------------------------------------------------------------------
// Barycode sub-distance. The simplex is kept newest first: s[0] is the
// vertex just added. Each solver keeps in s[0..k) the smallest subset whose
// hull holds the point of the simplex nearest the origin, writes that point
// to *v and returns k (3: the origin is inside).

/// S1D (Alg. 5) on segment s[0] s[1]. Inside the segment the point is taken
/// along the edge normal rather than as a barycentric sum: its direction is
/// then exact to rounding even when the origin is 1e-9 from a unit edge,
/// which the Level 1 sign tests and touching pairs need.
static inline int solve_segment(imp_svert2 *s, imp_vec2 *v)
{
	imp_vec2 A = s[0].w, B = s[1].w;
	imp_vec2 e = imp_vec2_sub(B, A);
	double ta = imp_vec2_dot(A, e);
	if (ta >= 0.0) {
		*v = A;
		return 1;
	}
	double tb = imp_vec2_dot(B, e);
	if (tb <= 0.0) {
		s[0] = s[1];
		*v = B;
		return 1;
	}
	// A x e or B x e, not A x B (equal in exact arithmetic): the product
	// of the two ends cancels when the edge is short beside them (an edge
	// 1e21 long at 8e28 gave distances 1.6e-9 long), and e is exact there
	// (Sterbenz). The nearer end's: its product with e cancels least (an
	// edge from 3.5e27 to a needle's end at 2.3e32 was 5e-12 long from the
	// far end, which made a step that gained look like a stall).
	// |B|^2 - |A|^2 = e . (A + B) = ta + tb.
	double k = imp_vec2_cross(ta + tb > 0.0 ? A : B, e) / (tb - ta);
	*v = imp_vec2_make(e.y * k, -e.x * k);
	return 2;
}

/// The nearest of the three edges, for a triangle with no area (collinear
/// or repeated points), which the paper leaves out.
static int solve_flat_triangle(imp_svert2 *s, imp_vec2 *v)
{
	imp_svert2 best[2], e[2];
	imp_vec2 bv = {0, 0};
	int bn = 0;
	double bd = INFINITY;
	static const int pairs[3][2] = {{0, 1}, {0, 2}, {1, 2}};
	for (int k = 0; k < 3; ++k) {
		e[0] = s[pairs[k][0]];
		e[1] = s[pairs[k][1]];
		imp_vec2 ev;
		int en = solve_segment(e, &ev);
		double d = imp_vec2_dot(ev, ev);
		if (d < bd) {
			bd = d;
			bn = en;
			bv = ev;
			best[0] = e[0];
			best[1] = e[1];
		}
	}
	s[0] = best[0];
	s[1] = best[1];
	*v = bv;
	return bn;
}

/// ConeRegion (Alg. 4): the origin lies in the vertex cone of s[iv].
static inline int solve_cone(imp_svert2 *s, int iv, int im, int in, imp_vec2 *v)
{
	imp_vec2 V = s[iv].w;
	imp_vec2 mv = imp_vec2_sub(V, s[im].w), nv = imp_vec2_sub(V, s[in].w);
	if (imp_vec2_dot(mv, nv) < 0.0) {
		if (imp_vec2_dot(V, mv) > 0.0) {
			imp_svert2 m = s[im];
			s[0] = s[iv];
			s[1] = m;
			return solve_segment(s, v);
		}
		if (imp_vec2_dot(V, nv) > 0.0) {
			imp_svert2 n = s[in];
			s[0] = s[iv];
			s[1] = n;
			return solve_segment(s, v);
		}
	}
	s[0] = s[iv];
	*v = V;
	return 1;
}

/// S2D (Alg. 3) on triangle s[0] s[1] s[2]. The signs of the three
/// sub-areas against the whole give the barycode; with the newest vertex
/// first only codes 4-7 occur in exact arithmetic, but every code is handled
/// so that a rebuilt (cached) simplex in any order works too.
static inline int solve_triangle(imp_svert2 *s, imp_vec2 *v)
{
	imp_vec2 A = s[0].w, B = s[1].w, C = s[2].w;
	double su = imp_vec2_cross(B, C), sv = imp_vec2_cross(C, A), sw = imp_vec2_cross(A, B);
	double sum = su + sv + sw;
	if (sum == 0.0)
		return solve_flat_triangle(s, v);
	if (sum < 0.0) {
		su = -su;
		sv = -sv;
		sw = -sw;
	}
	int code = (sw > 0.0) | (sv > 0.0) << 1 | (su > 0.0) << 2;
	switch (code) {
	case 7:
		*v = imp_vec2_make(0.0, 0.0);
		return 3;
	case 6:
		return solve_segment(s, v);
	case 5:
		s[1] = s[2];
		return solve_segment(s, v);
	case 3:
		s[0] = s[1];
		s[1] = s[2];
		return solve_segment(s, v);
	case 4:
		return solve_cone(s, 0, 1, 2, v);
	case 2:
		return solve_cone(s, 1, 0, 2, v);
	default:
		return solve_cone(s, 2, 0, 1, v);
	}
}

static inline int solve(imp_svert2 *s, int n, imp_vec2 *v)
{
	if (n == 3)
		return solve_triangle(s, v);
	if (n == 2)
		return solve_segment(s, v);
	*v = s[0].w;
	return 1;
}

// ---------------------------------------------------------------------------
// Starting points.

/// Rebuilds the cached simplex at the new poses (docs/narrow2d.md, "Simplex cache"). False
/// when the cache is empty, for other shapes, or not usable.
static bool warm_start(imp_gjk2_ctx *c, const imp_simplex_cache *cache, imp_svert2 *s, int *n, imp_vec2 *v)
{
	if (cache == NULL || cache->count < 1 || cache->count > 3 || cache->dim != 2 || c->a.v == NULL ||
	    c->b.v == NULL)
		return false;
	int k = cache->count;
	for (int i = 0; i < k; ++i) {
		int ia = cache->index_a[i], ib = cache->index_b[i];
		if (ia < 0 || ia >= c->a.n || ib < 0 || ib >= c->b.n)
			return false;
		s[i].ia = ia;
		s[i].ib = ib;
		s[i].a = c->a.v[ia];
		s[i].w = imp_vec2_sub(s[i].a, imp_ctx_b_vertex(c, ib));
	}
	// Coherence: climb from the cached vertices, not from the angle table.
	c->a.last = s[0].ia;
	c->b.last = s[0].ib;
	c->a.warm = c->b.warm = true;
	*n = solve(s, k, v);
	return true;
}

static inline bool has_cached_direction(const imp_simplex_cache *cache)
{
	if (cache == NULL || cache->count == 0 || cache->dim != 2)
		return false;
	double dd = cache->direction[0] * cache->direction[0] + cache->direction[1] * cache->direction[1];
	return dd > 0.0 && isfinite(dd);
}

/// The first search direction: the cached one for shapes without vertices,
/// else the difference of two interior points, a point of C (the paper
/// measured this halves the time against a fixed direction). *is_point
/// says whether it is that point of C.
IMP_ALWAYS_INLINE imp_vec2 first_direction(const imp_gjk2_ctx *c, const imp_simplex_cache *cache, bool *is_point)
{
	*is_point = false;
	if (has_cached_direction(cache))
		return imp_vec2_make(cache->direction[0], cache->direction[1]);
	imp_vec2 cb = imp_vec2_add(imp_rot2_apply(c->q, c->b.shape->center), c->p);
	imp_vec2 d = imp_vec2_sub(c->a.shape->center, cb);
	if (d.x == 0.0 && d.y == 0.0)
		return imp_vec2_make(1.0, 0.0);
	*is_point = true;
	return d;
}

static void write_cache(imp_simplex_cache *cache, const imp_svert2 *s, int n, imp_vec2 v)
{
	if (cache == NULL)
		return;
	cache->count = (uint8_t)n;
	cache->dim = 2;
	cache->reserved = 0;
	for (int i = 0; i < 4; ++i) {
		cache->index_a[i] = i < n ? s[i].ia : -1;
		cache->index_b[i] = i < n ? s[i].ib : -1;
	}
	cache->direction[0] = v.x;
	cache->direction[1] = v.y;
	cache->direction[2] = 0.0;
}

static bool has_user_shape(const imp_gjk2_ctx *c)
{
	return c->a.v == NULL || c->b.v == NULL;
}

/// Alg. 6's second exit: with w beyond the line through the origin normal
/// to v (v.w <= 0, v the nearest point of segment AB), the triangle ABw
/// holds the origin when the line through the origin and w separates A and
/// B (Fig. 2b). Signs are compared, not multiplied: products underflow.
static inline bool encloses_origin(imp_vec2 A, imp_vec2 B, imp_vec2 w)
{
	double ca = imp_vec2_cross(A, w), cb = imp_vec2_cross(B, w);
	return !((ca > 0.0 && cb > 0.0) || (ca < 0.0 && cb < 0.0));
}

// ---------------------------------------------------------------------------
// Level 2 and 3: Alg. 1.

typedef struct gjk2_out {
	imp_svert2 s[3];
	int n;
	imp_vec2 v; ///< nearest point of C to the origin
	int iterations;
	imp_query_state state; ///< SEPARATED, OVERLAPPING (origin in C), ITERATION_LIMIT, DEGENERATE
} gjk2_out;

/// The steps in a row gjk_user may take that leave |v| as it was, to
/// rounding, while turning v, before it calls the descent stalled.
#define GJK_LEVEL_STEPS 4

/// The largest coordinate of the simplex's points of C: the scale of the
/// rounding in the sub-distance's answer.
static double simplex_reach(const imp_svert2 *s, int n)
{
	double m = 0.0;
	for (int i = 0; i < n; ++i)
		m = imp_max(m, imp_max(fabs(s[i].w.x), fabs(s[i].w.y)));
	return m;
}

/// Alg. 1 (and, with `boolean`, Alg. 6) where a user shape takes part: the
/// simplex as records that carry the support points (a user shape has no
/// vertex index to find them by). The same steps and exits as gjk_polygons;
/// lengths are compared after scaling (robust_length), as the squares of
/// tiny or huge coordinates leave double's range.
static void gjk_user(imp_gjk2_ctx *c, const imp_simplex_cache *cache, const imp_query_options *o, gjk2_out *out,
		     bool boolean, double R)
{
	imp_svert2 *s = out->s;
	int n;
	imp_vec2 v;
	if (cache == NULL || !warm_start(c, cache, s, &n, &v)) {
		bool interior;
		imp_vec2 d = first_direction(c, cache, &interior), dn = imp_search_dir2(d);
		imp_cso_support2(c, imp_vec2_make(-dn.x, -dn.y), &s[0]);
		n = 1;
		v = s[0].w;
		double dw = imp_vec2_dot(dn, s[0].w);
		if (boolean && !c->bad && dw > 0.0 && dw > R * robust_length(dn, NULL)) {
			// Every point of C lies beyond the line through the origin
			// normal to d (by more than R).
			out->n = 1;
			out->v = dn;
			out->iterations = 0;
			out->state = IMP_STATE_SEPARATED;
			return;
		}
		// The interior point (see gjk_polygons) only for Level 1: EPA, which
		// follows at Level 3, grows its polygon from support points. Not
		// one imp_search_dir2 had to scale: 4.9e-324 from the origin, the
		// next support's reach along it rounded to 0 and GJK stopped there,
		// apart (an ellipse and a plate through each other; fuzz finding 67).
		if (boolean && interior && c->interior_ok && dn.x == d.x && dn.y == d.y) {
			s[1] = (imp_svert2){d, c->a.shape->center, -1, -1};
			n = solve_segment(s, &v);
		}
	}
	pretransform(c);
	double tol = has_user_shape(c) ? o->tolerance : POLYGON_TOLERANCE;
	imp_query_state state = IMP_STATE_ITERATION_LIMIT;
	double len = robust_length(v, NULL);
	int it = 0;
	// Nesterov acceleration on request only: in 2D the default is plain
	// GJK (docs/narrow2d.md); normalised directions for polygons.
	bool accel = o->acceleration == IMP_ACCELERATION_NESTEROV;
	bool normalised = !has_user_shape(c);
	imp_vec2 d_prev = v, w_prev = v;
	int k = 0;
	int level = 0; // steps in a row that left |v| as it was (GJK_LEVEL_STEPS)
	for (;;) {
		if (c->bad) {
			state = IMP_STATE_DEGENERATE;
			break;
		}
		if (n == 3 || len == 0.0 || (boolean && len <= R)) {
			state = IMP_STATE_OVERLAPPING;
			break;
		}
		if (it == o->max_iterations)
			break;
		imp_svert2 w;
		bool momentum = false;
		if (accel) {
			// Nesterov's step (docs/narrow3d.md, "Nesterov acceleration"), as in gjk3d.c.
			double delta = (k + 1.0) / (k + 3.0);
			imp_vec2 y = imp_vec2_add(imp_vec2_scale(delta, v), imp_vec2_scale(1.0 - delta, w_prev));
			double ly = robust_length(y, NULL), ld = robust_length(d_prev, NULL);
			if (normalised && ly > 0.0 && ld > 0.0)
				d_prev = imp_vec2_add(imp_vec2_scale(delta / ld, d_prev), imp_vec2_scale((1.0 - delta) / ly, y));
			else
				d_prev = imp_vec2_add(imp_vec2_scale(delta, d_prev), imp_vec2_scale(1.0 - delta, y));
			++k;
			imp_cso_support2(c, imp_vec2_make(-d_prev.x, -d_prev.y), &w);
			++it;
			if (c->bad) {
				state = IMP_STATE_DEGENERATE;
				break;
			}
			double ld2 = robust_length(d_prev, NULL);
			if (boolean && ld2 > 0.0 && imp_vec2_dot(d_prev, w.w) / ld2 > R) {
				state = IMP_STATE_SEPARATED; // d separates C from the origin too
				break;
			}
			bool known = imp_svert2_same(&w, &s[0]) || (n == 2 && imp_svert2_same(&w, &s[1]));
			if (known || len - imp_vec2_dot(v, w.w) / len <= imp_max(tol, NESTEROV_SWITCH) * len ||
			    2 * k > o->max_iterations) {
				// No progress along v: plain GJK from here on. The first
				// step's direction is v itself, its support plain GJK's.
				accel = false;
				if (k > 1)
					continue;
			} else {
				w_prev = w.w;
				momentum = true;
			}
		} else {
			imp_cso_support2(c, imp_vec2_make(-v.x, -v.y), &w);
			++it;
		}
		if (c->bad) {
			state = IMP_STATE_DEGENERATE;
			break;
		}
		// v.w / |v|: how far w reaches along v.
		double reach = imp_vec2_dot(v, w.w) / len;
		if (!momentum && boolean && reach > R) {
			state = IMP_STATE_SEPARATED; // Alg. 6's first exit
			break;
		}
		// No progress possible: w is already in the simplex, or the duality
		// gap (|v|^2 - v.w) / |v| bounds the error below the tolerance.
		if (!momentum && (imp_svert2_same(&w, &s[0]) || (n == 2 && imp_svert2_same(&w, &s[1])) ||
				  len - reach <= tol * len)) {
			state = IMP_STATE_SEPARATED;
			break;
		}
		if (n == 2 && reach <= 0.0 && encloses_origin(s[0].w, s[1].w, w.w)) {
			s[2] = s[1];
			s[1] = s[0];
			s[0] = w;
			n = 3;
			v = imp_vec2_make(0.0, 0.0);
			state = IMP_STATE_OVERLAPPING;
			break;
		}
		imp_svert2 kept[2] = {s[0], s[1]};
		int kept_n = n;
		imp_vec2 kept_v = v;
		s[n] = s[n - 1];
		if (n == 2)
			s[1] = s[0];
		s[0] = w;
		n = solve(s, n + 1, &v);
		double nlen = robust_length(v, NULL);
		if (!(nlen < len) && accel) {
			accel = false; // the momentum brought nothing: plain GJK from here
			len = nlen;
			continue;
		}
		if (!(nlen < len) && n < 3 && level < GJK_LEVEL_STEPS && (v.x != kept_v.x || v.y != kept_v.y) &&
		    nlen <= len + 8 * DBL_EPSILON * simplex_reach(s, n)) {
			// As near as before to rounding, but v turned: the support
			// along the new v can still gain where the gap says it must.
			// A tiny user ellipse under a long segment's end: the step to
			// the segment's far end brought |v| down by 5e-15 of 61, below
			// its last bit (or a bit up, rounded), and turned v from the
			// ellipse's flank towards its top, 2.7e-7 nearer, which the
			// next support reaches (the cold distance stopped there and a
			// warm one did not).
			++level;
			len = nlen;
			continue;
		}
		if (!(nlen < len)) {
			// Rounding stalled the descent: the simplex before this step
			// is as good as it gets. Not the new one, which can be far
			// worse: a support a rounding away from a vertex of the
			// simplex makes a triangle without area to rounding, whose
			// barycode names any region (a user ellipse in a polygon's
			// margin went from a point 0.003 away to a vertex 3726 away,
			// and the distance with it; fuzz finding 31).
			s[0] = kept[0];
			s[1] = kept[1];
			n = kept_n;
			v = kept_v;
			state = len == 0.0 || (boolean && len <= R) ? IMP_STATE_OVERLAPPING : IMP_STATE_SEPARATED;
			break;
		}
		len = nlen;
		level = 0;
	}
	out->n = n;
	out->v = v;
	out->iterations = it;
	out->state = state;
}

/// A vertex of C kept in registers by the polygon loop (gjk_polygons).
typedef struct vtx {
	imp_vec2 w;
	int ia, ib;
} vtx;

/// The nearest point v of the simplex to the origin, held without a
/// division: v = d h / |d|^2 with h = d . (any simplex point), h >= 0. On a
/// vertex d is the vertex and h its squared length; on an edge d is the
/// edge's normal towards it and h = |cross(A, B)|. GJK only needs v's
/// direction for the next support and h for its tests, so the division
/// that makes v (13-20 cycles) leaves the chain of dependent steps that
/// each iteration is; Box2D's GJK does the same with its search direction.
typedef struct near {
	imp_vec2 d;
	double h;
} near;

static inline near near_vertex(imp_vec2 x)
{
	near r = {x, imp_vec2_dot(x, x)};
	if (r.h < 1e-280) {
		// The square of a vertex this near the origin loses its digits (to
		// 0 below 1e-162, which read as contact): scale d to unit size.
		double m = imp_max(fabs(x.x), fabs(x.y));
		if (m > 0.0) {
			r.d = imp_vec2_make(x.x / m, x.y / m);
			r.h = imp_vec2_dot(r.d, x);
		}
	}
	return r;
}

/// S1D on {x (newest), y} for the polygon loop: keeps the needed
/// vertices in *p (and *q) and returns their count.
IMP_ALWAYS_INLINE int small_segment(vtx x, vtx y, vtx *p, vtx *q, near *v)
{
	imp_vec2 e = imp_vec2_sub(y.w, x.w);
	double tx = imp_vec2_dot(x.w, e);
	if (tx >= 0.0) {
		*p = x;
		*v = near_vertex(x.w);
		return 1;
	}
	double ty = imp_vec2_dot(y.w, e);
	if (ty <= 0.0) {
		*p = y;
		*v = near_vertex(y.w);
		return 1;
	}
	// Not x x y, and from the nearer end: see solve_segment.
	double cr = imp_vec2_cross(tx + ty > 0.0 ? x.w : y.w, e);
	*p = x;
	*q = y;
	v->d = cr >= 0.0 ? imp_vec2_make(e.y, -e.x) : imp_vec2_make(-e.y, e.x);
	v->h = cr >= 0.0 ? cr : -cr;
	return 2;
}

/// ConeRegion (Alg. 4) at vertex x of triangle {x, m, n}.
IMP_ALWAYS_INLINE int small_cone(vtx x, vtx m, vtx n, vtx *p, vtx *q, near *v)
{
	imp_vec2 mv = imp_vec2_sub(x.w, m.w), nv = imp_vec2_sub(x.w, n.w);
	if (imp_vec2_dot(mv, nv) < 0.0) {
		if (imp_vec2_dot(x.w, mv) > 0.0)
			return small_segment(x, m, p, q, v);
		if (imp_vec2_dot(x.w, nv) > 0.0)
			return small_segment(x, n, p, q, v);
	}
	*p = x;
	*v = near_vertex(x.w);
	return 1;
}

/// |d| for a lean record's direction d (an edge turned, so as long as
/// the edge): sqrt(d . d) where d . d is well inside double's range,
/// else without squaring (robust_length). An edge 1e-200 long squared to
/// 0 and made the distance -inf (issue 20, defect 6).
static inline double span(imp_vec2 d)
{
	double dd = imp_vec2_dot(d, d);
	if (dd >= 0x1p-960 && dd <= 0x1p960)
		return sqrt(dd);
	return robust_length(d, NULL);
}

/// Scenes whose size (b's offset and both reaches) is outside [1/SCALE2_BIG,
/// SCALE2_BIG] are answered on copies scaled by a power of two (exact):
/// the loops square coordinates, and squares of 1e-154 leave double's
/// range (a scene of 1e-250 gave an overlap test and a distance that
/// disagreed; issue 20, defect 6). Copies are on the stack, so only for
/// polygons of up to SCALE2_MAX_VERTICES vertices; larger ones and user
/// shapes are answered unscaled.
#define SCALE2_BIG 1e100
#define SCALE2_MAX_VERTICES 256
#define SCALE2_TABLE ((IMP_ANGLE_BUCKETS * (int)sizeof(int32_t) + (int)sizeof(imp_vec2) - 1) / (int)sizeof(imp_vec2))

typedef struct scaled2 {
	struct imp_shape a, b;
	/// the vertices, then (from IMP_ANGLE_TABLE_MIN vertices) the
	/// shape's pseudo-angle table, which imp_support_start reads after them
	imp_vec2 va[SCALE2_MAX_VERTICES + SCALE2_TABLE], vb[SCALE2_MAX_VERTICES + SCALE2_TABLE];
	double s; ///< the power of two the copies are scaled by
} scaled2;

static void scale_shape2(const imp_shape *from, double s, imp_vec2 *v, struct imp_shape *to)
{
	*to = *from;
	for (int i = 0; i < from->count; ++i)
		v[i] = imp_vec2_scale(s, from->v[i]);
	if (from->count >= IMP_ANGLE_TABLE_MIN)
		memcpy(v + from->count, from->v + from->count, IMP_ANGLE_BUCKETS * sizeof(int32_t));
	to->v = v;
	to->radius = s * from->radius;
	to->center = imp_vec2_scale(s, from->center);
	to->bound_radius = s * from->bound_radius;
}

/// Fills `x` with scaled copies of a and b (and *p with b's scaled offset)
/// when the scene needs it and the copies fit; false otherwise.
/// The largest coordinate of a polygon's core plus its radius: its size
/// without squares (bound_radius squares, and is 0 below about 1e-154).
static double reach_unsquared2(const imp_shape *s)
{
	double m = 0.0;
	for (int i = 0; i < s->count; ++i)
		m = fmax(m, fmax(fabs(s->v[i].x), fabs(s->v[i].y)));
	return m + s->radius;
}

static IMP_NOINLINE bool scale_pair2(const imp_shape *a, const imp_shape *b, imp_vec2 *p, scaled2 *x)
{
	double size = fabs(p->x) + fabs(p->y) + a->bound_radius + b->bound_radius;
	if (size < 1e-150 && a->v != NULL && b->v != NULL && a->count <= SCALE2_MAX_VERTICES &&
	    b->count <= SCALE2_MAX_VERTICES)
		// A segment 8e-317 long at the other shape's origin has bound
		// radii and offset 0: its size from the coordinates themselves
		// (unscaled, its witnesses came out NaN).
		size = fabs(p->x) + fabs(p->y) + reach_unsquared2(a) + reach_unsquared2(b);
	if (!(size < 1.0 / SCALE2_BIG || size > SCALE2_BIG) || !(size > 0.0) || a->v == NULL || b->v == NULL ||
	    a->count > SCALE2_MAX_VERTICES || b->count > SCALE2_MAX_VERTICES)
		return false;
	x->s = imp_unit_scale2(size);
	scale_shape2(a, x->s, x->va, &x->a);
	scale_shape2(b, x->s, x->vb, &x->b);
	*p = imp_vec2_scale(x->s, *p);
	return true;
}

/// Whether scale_pair2 may apply: a cheap test before it.
static inline bool needs_scale2(const imp_shape *a, const imp_shape *b, imp_vec2 p)
{
	double size = fabs(p.x) + fabs(p.y) + a->bound_radius + b->bound_radius;
	return size < 1.0 / SCALE2_BIG || size > SCALE2_BIG;
}

/// |v_new| < |v_old|. The lengths h / |d| themselves: squared and
/// cross-multiplied forms grow as the sixth power of the coordinates and
/// leave the range of double from 1e51 (and 1e-51) on.
static inline bool nearer(near a, near b)
{
	return a.h / span(a.d) < b.h / span(b.d);
}

/// |v| <= R (the sum of the radii; 0 for sharp shapes).
static inline bool near_within(near v, double R)
{
	return R > 0.0 ? v.h <= R * span(v.d) : v.h == 0.0;
}

/// v.w > R |v|, given dw = d.w: every point of C is farther than R beyond
/// the line through the origin normal to v (Alg. 6's first exit, widened
/// by the radii).
static inline bool near_beyond(near v, double dw, double R)
{
	return R > 0.0 ? dw > R * span(v.d) : dw > 0.0;
}

/// The vertex of C farthest along -d, for polygon pairs.
IMP_ALWAYS_INLINE vtx poly_support(imp_gjk2_ctx *c, imp_vec2 d)
{
	imp_svert2 s;
	imp_cso_support_poly(c, imp_vec2_make(-d.x, -d.y), &s, true);
	vtx w = {s.w, s.ia, s.ib};
	return w;
}

/// GJK converged with the starting interior point still weighted in the
/// simplex (C is a sliver): it has no vertex index for witnesses and
/// features, so GJK goes on from a support vertex alone (p, q or w).
/// False when the simplex holds no interior point.
IMP_ALWAYS_INLINE bool drop_interior(vtx *p, vtx q, vtx w, int *n, near *v)
{
	if (p->ia >= 0 && (*n == 1 || q.ia >= 0))
		return false;
	*p = p->ia >= 0 ? *p : (*n == 2 ? q : w);
	*n = 1;
	*v = near_vertex(p->w);
	return true;
}

/// True when vertex i of the ring v[0..n) is no lower along d than its two
/// neighbours (any n >= 1).
IMP_ALWAYS_INLINE bool ring_max(const imp_vec2 *v, int n, int i, imp_vec2 d)
{
	double sx = imp_vec2_dot(v[i], d);
	return imp_vec2_dot(v[i == 0 ? n - 1 : i - 1], d) <= sx && imp_vec2_dot(v[i + 1 == n ? 0 : i + 1], d) <= sx;
}

/// True when vertex (ia, ib) of C is a support point along -d: a's vertex
/// ia no lower along -d than its two neighbours and b's vertex ib no lower
/// along d than its own (on a convex ring a local maximum is global). Four
/// dot products where a support search takes 2n; GJK's last iteration, which
/// only confirms convergence, is this test when it holds.
///
/// b's ring is read in b's own frame even where its vertices were moved into
/// a's: the hull is convex as built, but moving rounds each vertex, and two
/// vertices a few millionths apart at 3e7 can then make a dent whose side
/// is a false local maximum (a 2D polygon against a box answered 4.0003 for
/// 1.3381, fuzz finding 59).
IMP_ALWAYS_INLINE bool is_support(const imp_gjk2_ctx *c, vtx p, imp_vec2 d)
{
	return ring_max(c->a.v, c->a.n, p.ia, imp_vec2_make(-d.x, -d.y)) &&
	       ring_max(c->b.shape->v, c->b.n, p.ib, imp_rot2_apply_inv(c->q, d));
}

/// The barycode (Alg. 3) of triangle {w (newest), p, q}: bit 0 when the
/// origin is on the triangle's side of edge w p, bit 1 of edge q w, bit 2
/// of edge p q; 0 for a triangle without area. With w newest only codes
/// 4-7 occur in exact arithmetic.
IMP_ALWAYS_INLINE int triangle_code(imp_vec2 w, imp_vec2 p, imp_vec2 q)
{
	double su = imp_vec2_cross(p, q), sv = imp_vec2_cross(q, w), sw = imp_vec2_cross(w, p);
	double sum = su + sv + sw;
	if (sum < 0.0) {
		su = -su;
		sv = -sv;
		sw = -sw;
	}
	return sum == 0.0 ? 0 : ((sw > 0.0) | (sv > 0.0) << 1 | (su > 0.0) << 2);
}

/// Codes 4-6 of triangle {w, p0, q0}: the nearest point is on edge w p0
/// (6), edge w q0 (5) or in w's cone (4). Keeps the vertices that hold it
/// in *p (and *q) and returns their count.
IMP_ALWAYS_INLINE int triangle_step(int code, vtx w, vtx p0, vtx q0, vtx *p, vtx *q, near *v)
{
	if (code == 6)
		return small_segment(w, p0, p, q, v);
	if (code == 5)
		return small_segment(w, q0, p, q, v);
	return small_cone(w, p0, q0, p, q, v);
}

/// Alg. 1 for two polygons. The same steps as gjk_user, with the
/// simplex held in locals instead of an array of records, which lets the
/// compiler keep it in registers, and the nearest point held as a `near`.
///
/// With `boolean` (Level 1, Alg. 6) it stops as soon as the answer is known:
/// a separating line with margin R (the sum of the radii) ends it
/// SEPARATED; a point of C within R of the origin, or the enclosure test,
/// ends it OVERLAPPING.
IMP_ALWAYS_INLINE void gjk_polygons(imp_gjk2_ctx *c, const imp_simplex_cache *cache, const imp_query_options *o,
				    gjk2_out *out, bool boolean, double R)
{
	const imp_vec2 *va = c->a.v;
	vtx p = {{0, 0}, 0, 0}, q = p;
	int n;
	near v;
	// b into a's frame before the first support at Levels 2 and 3. Not at
	// Level 1, whose exits come within one or two supports: bench/narrow2d
	// measured overlapping 4- and 8-gons 8-10% slower with it.
	if (!boolean)
		pretransform(c);
	bool warm = cache != NULL && warm_start(c, cache, out->s, &n, &v.d);
	int it = 0;
restart:
	if (warm) {
		v = near_vertex(v.d);
		if (n == 3) {
			out->n = 3;
			out->v = v.d;
			out->iterations = 0;
			out->state = IMP_STATE_OVERLAPPING;
			return;
		}
		p = (vtx){out->s[0].w, out->s[0].ia, out->s[0].ib};
		q = (vtx){out->s[n == 2].w, out->s[n == 2].ia, out->s[n == 2].ib};
	} else {
		bool interior;
		imp_vec2 d = first_direction(c, cache, &interior), dn = imp_search_dir2(d);
		interior = interior && c->interior_ok && dn.x == d.x && dn.y == d.y; // see gjk_user
		p = poly_support(c, dn);
		n = 1;
		v = near_vertex(p.w);
		if (boolean && near_beyond((near){dn, 0.0}, imp_vec2_dot(dn, p.w), R)) {
			// Every point of C lies beyond the line through the origin
			// normal to d (by more than R).
			if (c->want_simplex)
				out->s[0] = (imp_svert2){p.w, va[p.ia], p.ia, p.ib};
			out->n = 1;
			out->v = dn;
			out->iterations = 0;
			out->state = IMP_STATE_SEPARATED;
			return;
		}
		if (interior) {
			vtx ci = {d, -1, -1};
			n = small_segment(p, ci, &p, &q, &v);
		}
	}
	const double tol = o->tolerance < POLYGON_TOLERANCE ? o->tolerance : POLYGON_TOLERANCE;
	imp_query_state state = IMP_STATE_ITERATION_LIMIT;
	vtx r = p; // the third vertex, when the origin is inside
	for (;;) {
		if (v.h == 0.0 || (boolean && near_within(v, R))) {
			state = IMP_STATE_OVERLAPPING;
			break;
		}
		if (it == o->max_iterations)
			break;
		if (p.ia >= 0 && (n == 1 || q.ia >= 0) && is_support(c, p, v.d)) {
			// The support along -v would give p back: converged, and the
			// confirming support (2n dot products) is saved.
			++it;
			state = IMP_STATE_SEPARATED;
			break;
		}
		vtx w = poly_support(c, v.d);
		++it;
		// d.w against h: the gap |v|^2 - v.w scaled by |d|^2 / h > 0.
		double dw = imp_vec2_dot(v.d, w.w);
		if (boolean && near_beyond(v, dw, R)) {
			state = IMP_STATE_SEPARATED; // Alg. 6's first exit
			break;
		}
		if ((w.ia == p.ia && w.ib == p.ib) || (n == 2 && w.ia == q.ia && w.ib == q.ib) || v.h - dw <= tol * v.h) {
			if (drop_interior(&p, q, w, &n, &v))
				continue;
			state = IMP_STATE_SEPARATED;
			break;
		}
		if (n == 2 && dw <= 0.0 && encloses_origin(p.w, q.w, w.w)) {
			r = q;
			q = p;
			p = w;
			n = 3;
			v.h = 0.0;
			state = IMP_STATE_OVERLAPPING;
			break;
		}
		near old = v;
		vtx old_p = p, old_q = q;
		int old_n = n;
		if (n == 1) {
			n = small_segment(w, p, &p, &q, &v);
		} else {
			// S2D with w newest: A = w, B = p, C = q.
			int code = triangle_code(w.w, p.w, q.w);
			vtx p0 = p, q0 = q;
			switch (code) {
			case 7:
				r = q0;
				q = p0;
				p = w;
				n = 3;
				v.h = 0.0;
				break;
			case 6:
			case 5:
			case 4:
				n = triangle_step(code, w, p0, q0, &p, &q, &v);
				break;
			default: {
				// Codes 1-3 (rounding) and 0 (no area): the general solver.
				imp_vec2 ca = c->a.shape->center;
				imp_svert2 t[3] = {{w.w, va[w.ia], w.ia, w.ib},
						   {p0.w, p0.ia >= 0 ? va[p0.ia] : ca, p0.ia, p0.ib},
						   {q0.w, q0.ia >= 0 ? va[q0.ia] : ca, q0.ia, q0.ib}};
				imp_vec2 tv;
				n = solve_triangle(t, &tv);
				v = near_vertex(tv);
				p = (vtx){t[0].w, t[0].ia, t[0].ib};
				q = (vtx){t[1].w, t[1].ia, t[1].ib};
				r = (vtx){t[2].w, t[2].ia, t[2].ib};
				break;
			}
			}
			if (n == 3) {
				state = IMP_STATE_OVERLAPPING;
				break;
			}
		}
		if (v.h != 0.0 && !nearer(v, old)) {
			// Rounding stalled the descent: the simplex before this step
			// is as good as it gets (the new one can be far worse; see
			// gjk_user).
			p = old_p;
			q = old_q;
			n = old_n;
			v = old;
			if (drop_interior(&p, q, w, &n, &v))
				continue;
			if (warm || has_cached_direction(cache)) {
				// A start from the cache (its simplex, or its direction)
				// can leave GJK where no step gains: a vertex of C
				// 1.4e25 from the origin, the next support 3.2e33 away
				// on a line nearly normal to v, with the origin inside C
				// (fuzz finding 72: separated by 1.4e25 warm, overlapping
				// cold). The cold start from the interior point answers
				// instead, with what is left of the iterations.
				warm = false;
				cache = NULL;
				goto restart;
			}
			state = boolean && near_within(v, R) ? IMP_STATE_OVERLAPPING : IMP_STATE_SEPARATED;
			break;
		}
	}
	if (c->want_simplex) {
		vtx keep[3] = {p, q, r};
		for (int i = 0; i < n; ++i)
			out->s[i] = (imp_svert2){keep[i].w, keep[i].ia >= 0 ? va[keep[i].ia] : c->a.shape->center,
						 keep[i].ia, keep[i].ib};
	}
	out->n = n;
	double dd = imp_vec2_dot(v.d, v.d);
	out->v = n == 3 || v.h == 0.0 || !(dd > 0.0) ? imp_vec2_make(0.0, 0.0) : imp_vec2_scale(v.h / dd, v.d);
	out->iterations = it;
	out->state = state;
}

/// The scale window of the lean loop (lean_gjk): pairs whose
/// coordinates, in a's frame, stay within it keep every square and product
/// the loop forms (up to the fourth power) far inside double's range.
#define LEAN_REACH_MIN 1e-30
#define LEAN_REACH_MAX 1e30

/// The most vertices b may have in the lean loop, which moves them into
/// a's frame on the stack.
#define LEAN_MAX_VERTICES 32

/// True when a checked pair can take the lean loop: two polygons, plain
/// GJK, coordinates (b's position p in a's frame) inside the scale window.
/// (lean_gjk adds its own condition on b's size.)
IMP_ALWAYS_INLINE bool lean_ok(const imp_shape *a, const imp_shape *b, imp_vec2 p, const imp_query_options *o)
{
	if (a->v == NULL || b->v == NULL ||
	    (o != &imp_default_options && o->acceleration == IMP_ACCELERATION_NESTEROV))
		return false;
	double reach = fabs(p.x) + fabs(p.y) + a->bound_radius + b->bound_radius;
	return reach >= LEAN_REACH_MIN && reach <= LEAN_REACH_MAX;
}

/// What the lean loop ends with: the simplex (p newest; q and r as n
/// says), the nearest point as a `near` and the iterations.
typedef struct lean_out {
	vtx p, q, r;
	int n;
	near v;
	int iterations;
	bool hit; ///< Level 1 (boolean): the shapes overlap
} lean_out;

/// True when the lean loop's answer says the cores overlap (or touch).
static inline bool lean_overlapping(const lean_out *l)
{
	return l->n == 3 || l->v.h == 0.0;
}

/// The lean loop's nearest point of C (0 when the cores overlap).
static inline imp_vec2 lean_point(const lean_out *l)
{
	if (lean_overlapping(l))
		return imp_vec2_make(0.0, 0.0);
	return imp_vec2_scale(l->v.h / imp_vec2_dot(l->v.d, l->v.d), l->v.d);
}

/// The lean loop's support on a ring v[0..n) along d: hill climbing where
/// `climb`, from vertex `from` (the last support, a step or two away);
/// brute force otherwise and for the first support (from -1), which
/// measured faster than climbing from the angle table there (12-gons).
IMP_ALWAYS_INLINE int lean_support(const imp_vec2 *v, int n, imp_vec2 d, int from, bool climb)
{
	if (!climb || from < 0)
		return imp_support_brute(v, n, d);
	return imp_support_climb(v, n, d, from);
}

/// b as the lean loop reads it: its vertices, either moved into a's frame
/// (`in_a`) or in b's own frame with b's pose (q, p) in a's.
typedef struct lean_b {
	const imp_vec2 *v;
	imp_rot2 q;
	imp_vec2 p;
} lean_b;

/// Vertex i of b in a's frame.
IMP_ALWAYS_INLINE imp_vec2 lean_b_vertex(const lean_b *b, int i, bool in_a)
{
	return in_a ? b->v[i] : imp_vec2_add(imp_rot2_apply(b->q, b->v[i]), b->p);
}

/// A direction of a's frame in the frame b's vertices are in.
IMP_ALWAYS_INLINE imp_vec2 lean_b_dir(const lean_b *b, imp_vec2 d, bool in_a)
{
	return in_a ? d : imp_rot2_apply_inv(b->q, d);
}

/// A simplex as warm_triangle hands it back.
typedef struct warm3 {
	vtx p, q, r;
	near v;
	int n; ///< 0: a triangle without area (the loop starts afresh)
} warm3;

/// lean_warm for a cached triangle, out of line and returning by value:
/// inlined, its switch made the lean loop's code larger, and the
/// overlapping Level 3 cells measured 10-25% slower; writing through
/// pointers to the loop's simplex would keep that out of registers. A
/// triangle rebuilt at new poses can have any barycode: the nearest
/// feature is whichever it names (a bit clear: the origin is beyond that
/// edge), as solve_triangle finds it.
static IMP_NOINLINE warm3 warm_triangle(vtx s0, vtx s1, vtx s2)
{
	warm3 r = {s0, s1, s2, {{0.0, 0.0}, 0.0}, 0};
	int code = triangle_code(s0.w, s1.w, s2.w);
	switch (code) {
	case 7:
		r.n = 3;
		break;
	case 6:
	case 5:
	case 4:
		r.n = triangle_step(code, s0, s1, s2, &r.p, &r.q, &r.v);
		break;
	case 3:
		r.n = small_segment(s1, s2, &r.p, &r.q, &r.v);
		break;
	case 2:
		r.n = small_cone(s1, s0, s2, &r.p, &r.q, &r.v);
		break;
	case 1:
		r.n = small_cone(s2, s0, s1, &r.p, &r.q, &r.v);
		break;
	default:
		break;
	}
	return r;
}

/// The lean loop's warm start: the cached simplex (docs/narrow2d.md, "Simplex cache")
/// rebuilt from its vertex indices at the new poses and reduced to the
/// feature nearest the origin (*r3: a triangle's third vertex). False when
/// the cache is empty or not usable here, or holds a triangle without area
/// (the loop then starts afresh).
IMP_ALWAYS_INLINE bool lean_warm(const imp_simplex_cache *cache, const imp_vec2 *va, int na, const lean_b *b,
				 int nb, bool in_a, vtx *p, vtx *q, vtx *r3, int *n, near *v)
{
	if (cache == NULL || cache->dim != 2 || cache->count < 1 || cache->count > 3)
		return false;
	vtx s[3];
	for (int i = 0; i < cache->count; ++i) {
		int ia = cache->index_a[i], ib = cache->index_b[i];
		if (ia < 0 || ia >= na || ib < 0 || ib >= nb)
			return false;
		s[i] = (vtx){imp_vec2_sub(va[ia], lean_b_vertex(b, ib, in_a)), ia, ib};
	}
	if (cache->count == 3) {
		warm3 r = warm_triangle(s[0], s[1], s[2]);
		*p = r.p;
		*q = r.q;
		*r3 = r.r;
		*v = r.v;
		*n = r.n;
		return r.n > 0;
	}
	if (cache->count == 2) {
		*n = small_segment(s[0], s[1], p, q, v);
	} else {
		*p = s[0];
		*n = 1;
		*v = near_vertex(s[0].w);
	}
	return true;
}

/// Alg. 1 with the barycode sub-distance, for the common case only (see
/// lean_ok), with the simplex in registers: gjk_polygons without what only
/// other cases need (the query context, scaled lengths, the rounding-stall
/// test, the simplex records). `boolean` is Level 1 (Alg. 6's exits with
/// the margin R); `indexed` asks for an answer whose vertices all have
/// indices (Level 3, a cache). `any_climb` picks the copy: brute force
/// with b's vertices moved into a's frame, or hill climbing with b in its
/// own frame. Anything out of the ordinary (a triangle without area, a
/// code only rounding gives, more iterations than C has vertices, a
/// vertex within 1e-140 of the origin, a first support whose square lost
/// its digits, and with `indexed` an answer that holds the interior
/// starting point) returns false, and the general loop answers from the
/// start.
IMP_ALWAYS_INLINE bool lean_run(const imp_shape *a, const imp_shape *b, imp_rot2 q_b, imp_vec2 p_b,
				const imp_query_options *o, const imp_simplex_cache *cache, bool indexed,
				bool boolean, double R, lean_out *out, bool any_climb, bool ca, bool cb)
{
	// Which shapes climb (ca, cb) is a run-time choice only in the copy of
	// the loop made for pairs where one does (any_climb); the other copy,
	// called with both false, is all brute force.
	const imp_vec2 *va = a->v;
	const int na = a->count, nb = b->count;
	// b's vertices are moved into a's frame in the brute-force copy, where
	// every search reads them all; a climb reads a few, so the climbing
	// copy turns each direction into b's frame and moves the vertex found.
	const bool pre = !any_climb;
	imp_vec2 copy[LEAN_MAX_VERTICES];
	lean_b bb = {b->v, q_b, p_b};
	bool moved = false;
	const double tol = o->tolerance < POLYGON_TOLERANCE ? o->tolerance : POLYGON_TOLERANCE;
	const int cap = na + nb + 4 < o->max_iterations ? na + nb + 4 : o->max_iterations;
	vtx p = {{0.0, 0.0}, 0, 0}, q = p;
	int n = 1, ia, ib;
	near v;
	bool hit = false;
	int it = 0;
	out->r.ia = out->r.ib = -1; // r is read only when n is 3, which sets it; GCC cannot tell
	if (pre && (!boolean || (cache != NULL && cache->count > 0))) {
		// Levels 2 and 3 always go on past the first support.
		move_b(copy, b, q_b, p_b);
		bb.v = copy;
		moved = true;
	}
	if (!lean_warm(cache, va, na, &bb, nb, moved, &p, &q, &out->r, &n, &v)) {
		// The first direction: a point of C, the difference of two
		// interior points.
		imp_vec2 d0 = imp_vec2_sub(a->center, imp_vec2_add(imp_rot2_apply(q_b, b->center), p_b));
		bool interior = na >= 3 || nb >= 3;
		if (!(fabs(d0.x) + fabs(d0.y) >= 0x1p-500)) {
			// Centres that coincide, or within 2^-500 (the lean loop's
			// pairs reach 1e-30 at least): a direction that short turns
			// and multiplies into underflow (imp_search_dir2).
			d0 = imp_vec2_make(1.0, 0.0);
			interior = false;
		}
		// Unmoved, b's first support in its own frame: Level 1 often
		// ends after it, before b's vertices would repay their move.
		ia = lean_support(va, na, imp_vec2_make(-d0.x, -d0.y), -1, ca);
		ib = lean_support(bb.v, nb, lean_b_dir(&bb, d0, moved), -1, cb);
		p = (vtx){imp_vec2_sub(va[ia], lean_b_vertex(&bb, ib, moved)), ia, ib};
		n = 1;
		if (boolean && near_beyond((near){d0, 0.0}, imp_vec2_dot(d0, p.w), R)) {
			// Level 1: every point of C lies beyond the line through
			// the origin normal to d0 (by more than R); the cache keeps
			// d0 as its direction, as the general loop's does.
			v = (near){d0, imp_vec2_dot(d0, d0)};
			goto done;
		}
		v = (near){p.w, imp_vec2_dot(p.w, p.w)};
		if (v.h < 1e-280 && (p.w.x != 0.0 || p.w.y != 0.0))
			return false; // a square that lost its digits (0 below 1e-162) is not contact
		if (interior) {
			// The interior point as the simplex's second vertex (no
			// index): a pair that overlaps is then mostly known after
			// one more support.
			vtx ci = {d0, -1, -1};
			n = small_segment(p, ci, &p, &q, &v);
		}
	}
	if (pre && !moved) {
		move_b(copy, b, q_b, p_b);
		bb.v = copy;
	}
	// Counted as the general loop counts: supports, and the support test
	// that confirms convergence (a cached triangle that still holds the
	// origin takes none).
	hit = n == 3;
	while (n < 3) {
		if (!(v.h > 1e-280)) {
			if (v.h == 0.0) {
				hit = true;
				break; // the origin is on C's boundary: touching cores
			}
			return false;
		}
		if (boolean && near_within(v, R)) {
			hit = true;
			break;
		}
		if (it >= cap)
			return false;
		// b's ring in its own frame, where it is convex (is_support).
		if (p.ia >= 0 && (n == 1 || q.ia >= 0) && ring_max(va, na, p.ia, imp_vec2_make(-v.d.x, -v.d.y)) &&
		    ring_max(b->v, nb, p.ib, imp_rot2_apply_inv(q_b, v.d))) {
			++it;
			break; // the support along -v would give p back (and q, on the same line normal to v)
		}
		// Climbing starts from the last support of that shape: p's.
		ia = lean_support(va, na, imp_vec2_make(-v.d.x, -v.d.y), p.ia >= 0 ? p.ia : 0, ca);
		ib = lean_support(bb.v, nb, lean_b_dir(&bb, v.d, pre), p.ib >= 0 ? p.ib : 0, cb);
		++it;
		vtx w = {imp_vec2_sub(va[ia], lean_b_vertex(&bb, ib, pre)), ia, ib};
		double dw = imp_vec2_dot(v.d, w.w);
		if (boolean && near_beyond(v, dw, R))
			break; // Alg. 6's first exit
		if ((ia == p.ia && ib == p.ib) || (n == 2 && ia == q.ia && ib == q.ib) || v.h - dw <= tol * v.h) {
			if (indexed && (p.ia < 0 || (n == 2 && q.ia < 0)))
				return false;
			break;
		}
		if (n == 1) {
			n = small_segment(w, p, &p, &q, &v);
			continue;
		}
		// Alg. 6's second exit (Level 1; at Levels 2 and 3 the barycode
		// finds the same triangle), else S2D with w newest: A = w, B = p,
		// C = q.
		int code = boolean && dw <= 0.0 && encloses_origin(p.w, q.w, w.w) ? 7 : triangle_code(w.w, p.w, q.w);
		if (code == 7) {
			// The triangle holds the origin.
			out->r = q;
			q = p;
			p = w;
			n = 3;
			hit = true;
			break;
		}
		if (code < 4)
			return false;
		n = triangle_step(code, w, p, q, &p, &q, &v);
	}
done:
	out->hit = hit;
	out->p = p;
	out->q = q;
	out->n = n;
	out->v = v;
	out->iterations = it;
	return true;
}

/// The lean loop: one copy for pairs searched by brute force alone (b of
/// at most LEAN_MAX_VERTICES vertices, which it copies), one for pairs
/// where a shape climbs.
IMP_ALWAYS_INLINE bool lean_gjk(const imp_shape *a, const imp_shape *b, imp_rot2 q_b, imp_vec2 p_b,
				const imp_query_options *o, const imp_simplex_cache *cache, bool indexed,
				bool boolean, double R, lean_out *out)
{
	bool ca = climbs(a, o), cb = climbs(b, o);
	if (ca || cb)
		return lean_run(a, b, q_b, p_b, o, cache, indexed, boolean, R, out, true, ca, cb);
	if (b->count > LEAN_MAX_VERTICES)
		return false;
	return lean_run(a, b, q_b, p_b, o, cache, indexed, boolean, R, out, false, false, false);
}

/// The lean loop's simplex into the cache (when there is one), as
/// write_cache does for the general loop.
IMP_ALWAYS_INLINE void lean_write_cache(imp_simplex_cache *cache, const lean_out *l)
{
	if (cache == NULL)
		return;
	const int n = l->n;
	cache->count = (uint8_t)n;
	cache->dim = 2;
	cache->reserved = 0;
	cache->index_a[0] = l->p.ia;
	cache->index_b[0] = l->p.ib;
	cache->index_a[1] = n >= 2 ? l->q.ia : -1;
	cache->index_b[1] = n >= 2 ? l->q.ib : -1;
	cache->index_a[2] = cache->index_b[2] = cache->index_a[3] = cache->index_b[3] = -1;
	if (n == 3) {
		cache->index_a[2] = l->r.ia;
		cache->index_b[2] = l->r.ib;
	}
	imp_vec2 v = lean_point(l);
	cache->direction[0] = v.x;
	cache->direction[1] = v.y;
	cache->direction[2] = 0.0;
}

/// The lean loop's simplex as the general loop's records (a's point of
/// each vertex; the interior starting point's is a's centre).
static void lean_records(const imp_shape *a, const lean_out *l, imp_svert2 *s)
{
	const vtx keep[3] = {l->p, l->q, l->r};
	for (int i = 0; i < l->n; ++i)
		s[i] = (imp_svert2){keep[i].w, keep[i].ia >= 0 ? a->v[keep[i].ia] : a->center, keep[i].ia, keep[i].ib};
}

/// The lean loop's answer as the general loop's, for Level 3.
static void lean_to_gjk(const imp_shape *a, const lean_out *l, gjk2_out *g)
{
	lean_records(a, l, g->s);
	g->n = l->n;
	g->iterations = l->iterations;
	g->v = lean_point(l);
	g->state = lean_overlapping(l) ? IMP_STATE_OVERLAPPING : IMP_STATE_SEPARATED;
}

static void distance_run(imp_gjk2_ctx *c, const imp_simplex_cache *cache, const imp_query_options *o,
			 gjk2_out *out)
{
	if (has_user_shape(c) || o->acceleration == IMP_ACCELERATION_NESTEROV)
		gjk_user(c, cache, o, out, false, 0.0);
	else
		gjk_polygons(c, cache, o, out, false, 0.0);
}

static double distance_general(const imp_shape *a, const imp_shape *b, imp_rot2 q, imp_vec2 p,
			       imp_simplex_cache *cache, const imp_query_options *options, int *iterations,
			       imp_query_state *state);

/// True when point c (in the polygon's frame) lies inside the polygon
/// v[0..n) (counter-clockwise) with cross(c - v[i-1], c - v[i]), which is
/// |edge| times c's distance from the edge's line, above `margin` for every
/// edge: one product per edge, from the differences c - v[i] each used
/// twice. False for fewer than 3 vertices (no point is left of both sides
/// of a segment).
///
/// The edges are tried from the one that ends at vertex f: the SAT
/// (sat2_overlap) starts at the vertex facing the other shape, where a
/// point that is not inside is most likely beyond.
IMP_ALWAYS_INLINE bool deep_inside(const imp_vec2 *v, int n, int f, imp_vec2 c, double margin)
{
	imp_vec2 prev = imp_vec2_sub(c, v[f == 0 ? n - 1 : f - 1]);
	for (int i = f; i < n; i++) {
		imp_vec2 w = imp_vec2_sub(c, v[i]);
		if (!(imp_vec2_cross(prev, w) > margin))
			return false;
		prev = w;
	}
	for (int i = 0; i < f; i++) {
		imp_vec2 w = imp_vec2_sub(c, v[i]);
		if (!(imp_vec2_cross(prev, w) > margin))
			return false;
		prev = w;
	}
	return true;
}

/// A quick proof that two polygons' cores overlap, b at offset p in a's
/// frame, d being b's centre minus a's in a's frame and e a's centre minus
/// b's in b's frame: one point lies inside both. The point is on the
/// segment between the two centres (each a point of its core, the mean of
/// its vertices), at the fraction of the way from a's that a's reach is of
/// both reaches: the midpoint for shapes of one size, near the small one's
/// centre for a small shape on a large one. It is placed in each shape's
/// frame by that shape's own arithmetic (d and e). With L the scene's size
/// (b's offset plus both reaches), rounding moves the point by a few ulps
/// of L and each cross product by a few ulps of L^2, and a rotation 2e-9
/// from unit (what the pose check lets through) moves it by 4e-9 L; the
/// margin, 2^-23 L^2 on each cross product, which is at most 2L long times
/// the point's distance from the edge, covers them 15 times over. fa and fb:
/// the vertices whose edges are tried first (deep_inside). False says
/// nothing.
IMP_ALWAYS_INLINE bool cores_share_point_at(const imp_shape *a, const imp_shape *b, imp_vec2 p, imp_vec2 d,
					    imp_vec2 e, int fa, int fb)
{
	const double ra = a->bound_radius, rb = b->bound_radius;
	const double size = fabs(p.x) + fabs(p.y) + ra + rb;
	const double margin = 0x1p-23 * size * size;
	const double t = ra / (ra + rb);
	imp_vec2 xa = imp_vec2_add(a->center, imp_vec2_scale(t, d));
	if (!(imp_vec2_dot(xa, xa) <= ra * ra) || !deep_inside(a->v, a->count, fa, xa, margin))
		return false;
	imp_vec2 xb = imp_vec2_add(b->center, imp_vec2_scale(1.0 - t, e));
	return deep_inside(b->v, b->count, fb, xb, margin);
}

/// b's centre minus a's in a's frame, b at (q, p) there.
IMP_ALWAYS_INLINE imp_vec2 centre_offset_in_a(const imp_shape *a, const imp_shape *b, imp_rot2 q, imp_vec2 p)
{
	return imp_vec2_sub(imp_vec2_add(imp_rot2_apply(q, b->center), p), a->center);
}

/// a's centre minus b's in b's frame, b at (q, p) in a's.
IMP_ALWAYS_INLINE imp_vec2 centre_offset_in_b(const imp_shape *a, const imp_shape *b, imp_rot2 q, imp_vec2 p)
{
	return imp_vec2_sub(imp_rot2_apply_inv(q, imp_vec2_sub(a->center, p)), b->center);
}

/// cores_share_point_at with the centres' offsets worked out, the edges
/// tried in ring order.
IMP_ALWAYS_INLINE bool cores_share_point(const imp_shape *a, const imp_shape *b, imp_rot2 q, imp_vec2 p)
{
	return cores_share_point_at(a, b, p, centre_offset_in_a(a, b, q, p), centre_offset_in_b(a, b, q, p), 0, 0);
}

/// Level 2 body shared by imp_distance2 and imp_distance2_stats.
IMP_ALWAYS_INLINE double distance_query(const imp_shape *a, const imp_pose2 *pa, const imp_shape *b, const imp_pose2 *pb,
			     imp_simplex_cache *cache, const imp_query_options *options, int *iterations,
			     imp_query_state *state)
{
	if (options == NULL)
		options = &imp_default_options;
	if (check_pair(a, pa, b, pb, options) != IMP_OK)
		return NAN;
	imp_rot2 q = imp_rot2_mul_inv(pa->q, pb->q);
	imp_vec2 p = imp_pose2_apply_inv(*pa, pb->p);
	lean_out l;
	bool lean = lean_ok(a, b, p, options);
	// The quick answer: not with a cache, which GJK keeps up to date, nor
	// with options, which are GJK's knobs, nor for imp_distance2_stats,
	// which reports GJK's iterations.
	if (lean && cache == NULL && options == &imp_default_options && iterations == NULL &&
	    cores_share_point(a, b, q, p))
		return 0.0;
	// Without a cache the lean loop is compiled apart: no warm start to
	// try, no indexed answer to keep.
	if (lean &&
	    (cache == NULL ? lean_gjk(a, b, q, p, options, NULL, false, false, 0.0, &l)
			   : lean_gjk(a, b, q, p, options, cache, true, false, 0.0, &l))) {
		lean_write_cache(cache, &l);
		double core = lean_overlapping(&l) ? 0.0 : l.v.h / span(l.v.d);
		if (iterations != NULL)
			*iterations = l.iterations;
		double d = core - a->radius - b->radius;
		if (state != NULL)
			*state = core == 0.0 ? IMP_STATE_OVERLAPPING
				: d > 0.0 ? IMP_STATE_SEPARATED : d == 0.0 ? IMP_STATE_TOUCHING : IMP_STATE_OVERLAPPING;
		return d > 0.0 ? d : 0.0;
	}
	return distance_general(a, b, q, p, cache, options, iterations, state);
}

/// Level 2 through the general loop; out of line, as closest_general.
static IMP_NOINLINE double distance_general(const imp_shape *a, const imp_shape *b, imp_rot2 q, imp_vec2 p,
					    imp_simplex_cache *cache, const imp_query_options *options,
					    int *iterations, imp_query_state *state)
{
	scaled2 x;
	if (needs_scale2(a, b, p) && scale_pair2(a, b, &p, &x)) {
		double d = distance_general(&x.a, &x.b, q, p, cache, options, iterations, state);
		return d / x.s;
	}
	imp_gjk2_ctx c;
	setup_pair(&c, a, b, q, p, options);
	gjk2_out g;
	c.want_simplex = cache != NULL;
	distance_run(&c, cache, options, &g);
	write_cache(cache, g.s, g.n, g.v);
	if (iterations != NULL)
		*iterations = g.iterations;
	if (state != NULL)
		*state = g.state;
	if (g.state == IMP_STATE_DEGENERATE)
		return NAN;
	if (g.state == IMP_STATE_OVERLAPPING)
		return 0.0;
	double d = robust_length(g.v, NULL) - a->radius - b->radius;
	if (state != NULL && g.state == IMP_STATE_SEPARATED && d <= 0.0)
		*state = d == 0.0 ? IMP_STATE_TOUCHING : IMP_STATE_OVERLAPPING;
	return d > 0.0 ? d : 0.0;
}

double imp_distance2_ex(const imp_shape *a, imp_pose2 pa, const imp_shape *b, imp_pose2 pb,
			imp_simplex_cache *cache, const imp_query_options *options)
{
	if (imp_pair_has_composite(a, b))
		return imp_composite_distance2(a, pa, b, pb, cache, options, NULL, NULL);
	return distance_query(a, &pa, b, &pb, cache, options, NULL, NULL);
}

double imp_distance2(const imp_shape *a, imp_pose2 pa, const imp_shape *b, imp_pose2 pb, imp_simplex_cache *cache)
{
	if (imp_pair_has_composite(a, b))
		return imp_composite_distance2(a, pa, b, pb, cache, NULL, NULL, NULL);
	return distance_query(a, &pa, b, &pb, cache, NULL, NULL, NULL);
}

double imp_distance2_stats(const imp_shape *a, imp_pose2 pa, const imp_shape *b, imp_pose2 pb,
			   imp_simplex_cache *cache, const imp_query_options *options, int *iterations,
			   imp_query_state *state)
{
	if (imp_pair_has_composite(a, b))
		return imp_composite_distance2(a, pa, b, pb, cache, options, iterations, state);
	return distance_query(a, &pa, b, &pb, cache, options, iterations, state);
}

static bool overlap_general(const imp_shape *a, const imp_shape *b, imp_rot2 q, imp_vec2 p, imp_simplex_cache *cache,
			    const imp_query_options *options);
static bool overlap_gjk(const imp_shape *a, const imp_shape *b, imp_rot2 q, imp_vec2 p, imp_simplex_cache *cache,
			const imp_query_options *options);

/// Level 1 of two sharp polygons (no rounding, both with area) goes by the
/// separating-axis test instead of GJK when their vertices number this
/// many or fewer together: with the calipers below an edge that does not
/// separate reads a vertex or two, and the test measured faster than GJK
/// on every cell of bench/narrow2d (4- to 24-gons, docs/narrow2d.md).
/// The stack holds b's moved vertices.
#define SAT2_MAX_VERTICES 48

/// The SAT first tries the point inside both cores (cores_share_point_at)
/// when the centres are within sqrt of this of the sum of the reaches:
/// on pairs farther apart the proof seldom holds and costs its cross
/// products (callgrind, bench cells: 0.25 and 0.49 measured 5-100
/// instructions worse than 0.36 on the overlapping or touching cells).
/// Only a choice of order: the SAT decides either way.
#define SAT2_SHARE_POINT_REACH2 0.36

/// True when every vertex of o lies strictly beyond the line of the edge
/// prev -> cur (counter-clockwise ring): its outward normal separates. A
/// vertex on the line (touching) does not separate, as Level 1 counts
/// touching shapes overlapping. The scan starts at *j, the calipers
/// (Shamos 1978): o's vertex found not beyond the previous edge. As the
/// edges turn counter-clockwise, o's lowest vertex along their normals
/// turns the same way, so the vertex not beyond the next edge is most
/// often *j itself or a step ahead, and the scan of an edge that does
/// not separate stops there. Each verdict is the plain sign tests: a
/// vertex not beyond, or every vertex beyond.
IMP_ALWAYS_INLINE bool sat2_edge_separates(imp_vec2 prev, imp_vec2 cur, const imp_vec2 *o, int no, int *j)
{
	// The outward normal, unnormalised: only signs are compared, against
	// the line's offset along it.
	const double nx = cur.y - prev.y, ny = prev.x - cur.x;
	const double offset = nx * cur.x + ny * cur.y;
	for (int i = *j; i < no; i++)
		if (!(nx * o[i].x + ny * o[i].y > offset)) {
			*j = i;
			return false;
		}
	for (int i = 0; i < *j; i++)
		if (!(nx * o[i].x + ny * o[i].y > offset)) {
			*j = i;
			return false;
		}
	return true;
}

/// True when one of the edges of the ring s (counter-clockwise, ns
/// vertices) that end at vertices lo .. hi - 1 (0 <= lo <= hi <= ns)
/// separates s from o; *j is the calipers' vertex of o
/// (sat2_edge_separates). Ranges, not a count from a first edge: the loop
/// then needs no wrap of its index.
IMP_ALWAYS_INLINE bool sat2_edges_separate(const imp_vec2 *s, int ns, int lo, int hi, const imp_vec2 *o, int no,
					   int *j)
{
	for (int i = lo; i < hi; i++)
		if (sat2_edge_separates(s[i == 0 ? ns - 1 : i - 1], s[i], o, no, j))
			return true;
	return false;
}

/// The edges of s but the two about vertex f (those that end at f and
/// f + 1), in ring order from f + 2.
IMP_ALWAYS_INLINE bool sat2_rest_separate(const imp_vec2 *s, int ns, int f, const imp_vec2 *o, int no, int *j)
{
	int g = f + 2;
	if (g >= ns)
		return sat2_edges_separate(s, ns, g - ns, f, o, no, j);
	return sat2_edges_separate(s, ns, g, ns, o, no, j) || sat2_edges_separate(s, ns, 0, f, o, no, j);
}

/// The two edges of s about vertex f.
IMP_ALWAYS_INLINE bool sat2_pair_separates(const imp_vec2 *s, int ns, int f, const imp_vec2 *o, int no, int *j)
{
	imp_vec2 prev = s[f == 0 ? ns - 1 : f - 1], cur = s[f], next = s[f + 1 == ns ? 0 : f + 1];
	return sat2_edge_separates(prev, cur, o, no, j) || sat2_edge_separates(cur, next, o, no, j);
}

/// The vertex of polygon s farthest along d (its own frame), climbing from
/// the start table's vertex; vertex 0 below the table's size, where a
/// brute-force search cost more than the order it gave saved (4-gons
/// overlapping 582 instructions against 506, docs/narrow2d.md).
IMP_ALWAYS_INLINE int sat2_facing(const imp_shape *s, const imp_vec2 *v, imp_vec2 d)
{
	if (s->count < IMP_ANGLE_TABLE_MIN)
		return 0;
	return imp_support_climb(v, s->count, d, imp_support_start(s, d));
}

/// True when the shapes' bounding circles about their origins are apart,
/// b's origin at p in a's frame: then so are the polygons the SAT would
/// compare. Rigorous: b's vertices are moved by a rotation q with |q|
/// within 2e-9 of 1 (the pose check's 1e-9 on |q|^2 for each pose), which
/// moves them up to 2e-9 rb farther; moving them rounds by a few ulps of
/// |p| + rb, and the squares and sums here and in the bound radii (hypot)
/// by a few ulps; when the test holds the circles are apart by 2^-20 (ra +
/// rb) and 2^-21 |p| at least, hundreds of times all of that.
/// (test_sat2d's test_circle_margin fails without the factor.)
IMP_ALWAYS_INLINE bool sat2_circles_apart(const imp_shape *a, const imp_shape *b, imp_vec2 p)
{
	const double r = (a->bound_radius + b->bound_radius) * (1.0 + 0x1p-20);
	return p.x * p.x + p.y * p.y > r * r;
}

/// The separating-axis test in a's frame (b at q, p there): two convex
/// polygons with area are apart exactly when an edge normal of one of them
/// separates them (a separating line can always be turned onto an edge).
/// Degenerate cores (a point, a segment) have too few axes and are not
/// asked here. The axes most likely to separate come first: the two edges
/// of each polygon about its vertex farthest towards the other's centre,
/// a's then b's, then the rest of a's and of b's.
static bool sat2_overlap(const imp_shape *a, const imp_shape *b, imp_rot2 q, imp_vec2 p)
{
	const int na = a->count, nb = b->count;
	if (sat2_circles_apart(a, b, p))
		return false;
	// The vertex of each polygon facing the other's centre: the quick
	// proof of overlap tries its edges first, the SAT its axes.
	const imp_vec2 d = centre_offset_in_a(a, b, q, p), e = centre_offset_in_b(a, b, q, p);
	int ja = sat2_facing(a, a->v, d), jb = sat2_facing(b, b->v, e);
	const double rr = a->bound_radius + b->bound_radius;
	if (imp_vec2_dot(d, d) <= SAT2_SHARE_POINT_REACH2 * rr * rr && cores_share_point_at(a, b, p, d, e, ja, jb))
		return true;
	imp_vec2 w[SAT2_MAX_VERTICES];
	for (int j = 0; j < nb; j++)
		w[j] = imp_vec2_add(imp_rot2_apply(q, b->v[j]), p);
	int sa = ja, sb = jb;
	return !sat2_pair_separates(a->v, na, sa, w, nb, &jb) && !sat2_pair_separates(w, nb, sb, a->v, na, &ja) &&
	       !sat2_rest_separate(a->v, na, sa, w, nb, &jb) && !sat2_rest_separate(w, nb, sb, a->v, na, &ja);
}

IMP_ALWAYS_INLINE bool overlap_query(const imp_shape *a, const imp_pose2 *pa, const imp_shape *b, const imp_pose2 *pb,
				     imp_simplex_cache *cache, const imp_query_options *options)
{
	if (options == NULL)
		options = &imp_default_options;
	if (check_pair(a, pa, b, pb, options) != IMP_OK)
		return false;
	imp_rot2 q = imp_rot2_mul_inv(pa->q, pb->q);
	imp_vec2 p = imp_pose2_apply_inv(*pa, pb->p);
	// The separating-axis test: sharp polygons with area, no cache to
	// keep up to date (GJK's warm start is what a world's coherent frames
	// want), default options (the others are GJK's own knobs), and
	// coordinates in the lean loop's range, where products of two stay far
	// from overflow and underflow.
	if (cache == NULL && options == &imp_default_options && a->count >= 3 && b->count >= 3 &&
	    a->count + b->count <= SAT2_MAX_VERTICES && a->radius + b->radius == 0.0 && lean_ok(a, b, p, options))
		return sat2_overlap(a, b, q, p);
	return overlap_gjk(a, b, q, p, cache, options);
}

/// Level 1 by GJK: the lean loop where it applies, else the general
/// loops. Out of line: inlined, its frame (1 KB, six saved registers and
/// spills) was paid by every query, the SAT's too (callgrind: 4-gons took
/// about 200 instructions before the SAT began).
static IMP_NOINLINE bool overlap_gjk(const imp_shape *a, const imp_shape *b, imp_rot2 q, imp_vec2 p,
				     imp_simplex_cache *cache, const imp_query_options *options)
{
	double R = a->radius + b->radius;
	lean_out l;
	if (lean_ok(a, b, p, options) && lean_gjk(a, b, q, p, options, cache, false, true, R, &l)) {
		lean_write_cache(cache, &l);
		return l.hit;
	}
	return overlap_general(a, b, q, p, cache, options);
}

/// Level 1 through the general loops; out of line, as closest_general.
static IMP_NOINLINE bool overlap_general(const imp_shape *a, const imp_shape *b, imp_rot2 q, imp_vec2 p,
					 imp_simplex_cache *cache, const imp_query_options *options)
{
	scaled2 x;
	if (needs_scale2(a, b, p) && scale_pair2(a, b, &p, &x))
		return overlap_general(&x.a, &x.b, q, p, cache, options);
	double R = a->radius + b->radius;
	imp_gjk2_ctx c;
	setup_pair(&c, a, b, q, p, options);
	gjk2_out g;
	c.want_simplex = cache != NULL;
	if (has_user_shape(&c) || options->acceleration == IMP_ACCELERATION_NESTEROV)
		gjk_user(&c, cache, options, &g, true, R);
	else
		gjk_polygons(&c, cache, options, &g, true, R);
	write_cache(cache, g.s, g.n, g.v);
	if (g.state == IMP_STATE_ITERATION_LIMIT)
		return robust_length(g.v, NULL) <= R;
	return g.state == IMP_STATE_OVERLAPPING;
}

bool imp_overlap2_ex(const imp_shape *a, imp_pose2 pa, const imp_shape *b, imp_pose2 pb,
		     imp_simplex_cache *cache, const imp_query_options *options)
{
	if (imp_pair_has_composite(a, b))
		return imp_composite_overlap2(a, pa, b, pb, cache, options);
	return overlap_query(a, &pa, b, &pb, cache, options);
}

bool imp_overlap2(const imp_shape *a, imp_pose2 pa, const imp_shape *b, imp_pose2 pb, imp_simplex_cache *cache)
{
	if (imp_pair_has_composite(a, b))
		return imp_composite_overlap2(a, pa, b, pb, cache, NULL);
	return overlap_query(a, &pa, b, &pb, cache, NULL);
}

// ---------------------------------------------------------------------------
// Level 3.

/// Vertex i of shape `which` (0: a, 1: b) in a's frame.
static imp_vec2 vertex_in_a(const imp_gjk2_ctx *c, int which, int i)
{
	return which == 0 ? c->a.v[i] : imp_ctx_b_vertex(c, i);
}

static double point_segment_distance2(imp_vec2 p, imp_vec2 a, imp_vec2 b)
{
	imp_vec2 e = imp_vec2_sub(b, a), ap = imp_vec2_sub(p, a);
	double ee = imp_vec2_dot(e, e);
	double t = ee > 0.0 ? imp_vec2_dot(ap, e) / ee : 0.0;
	t = t < 0.0 ? 0.0 : (t > 1.0 ? 1.0 : t);
	imp_vec2 d = imp_vec2_sub(ap, imp_vec2_scale(t, e));
	return imp_vec2_dot(d, d);
}

/// The edge of the core nearest to p, for two simplex indices i0 and i1
/// that are not neighbours (slivers: see feature_of). Every edge is tried,
/// not only those next to i0 and i1: on a thin ring of many vertices the
/// simplex's two vertices can be several edges apart, all of them along
/// one line to rounding, and the witness then lies on an edge between
/// (a 36-gon 1e-13 thin: witness 2e-2 of its size from the edge next to
/// either). Rare, so the O(n) scan costs nothing on ordinary pairs.
static int nearest_edge_of(const imp_gjk2_ctx *c, int which, int n, int i0, int i1, imp_vec2 p)
{
	(void)i1;
	double best = INFINITY;
	int index = i0;
	imp_vec2 v0 = vertex_in_a(c, which, 0);
	for (int e = 0; e < n; ++e) {
		imp_vec2 v1 = vertex_in_a(c, which, e + 1 == n ? 0 : e + 1);
		double d = point_segment_distance2(p, v0, v1);
		if (d < best) {
			best = d;
			index = e;
		}
		v0 = v1;
	}
	return index;
}

/// The feature of a polygon core with n vertices holding a witness, from
/// the simplex's vertex indices i0 and i1 (-1: one vertex only), where that
/// needs no geometry: a vertex, an edge of a segment, or the edge between
/// two neighbours. False for two indices that are not neighbours (a
/// sliver: feature_of finds the edge).
static inline bool simple_feature(int n, int i0, int i1, imp_feature *f)
{
	f->index = i0;
	if (i1 < 0 || i1 == i0) {
		f->kind = IMP_FEATURE_VERTEX;
		return true;
	}
	f->kind = IMP_FEATURE_EDGE;
	if (n == 2)
		f->index = 0;
	else if (i1 == (i0 + 1 == n ? 0 : i0 + 1))
		f->index = i0;
	else if (i0 == (i1 + 1 == n ? 0 : i1 + 1))
		f->index = i1;
	else
		return false;
	return true;
}

/// The feature of a polygon core holding the witness `p` (a's frame), from
/// the simplex's vertex indices i0 and i1 (-1: one vertex only). Two
/// adjacent indices make an edge. Two others happen on slivers whose long
/// edges are parallel to rounding: then the edge next to either vertex
/// nearest to p is taken.
IMP_ALWAYS_INLINE imp_feature feature_of(const imp_gjk2_ctx *c, int which, int i0, int i1, imp_vec2 p)
{
	const imp_proxy2 *x = which == 0 ? &c->a : &c->b;
	imp_feature f = {IMP_FEATURE_NONE, -1};
	if (i0 < 0) {
		// The interior point that starts GJK has no index; its weight is 0.
		i0 = i1;
		i1 = -1;
	}
	if (x->v == NULL || i0 < 0)
		return f;
	if (!simple_feature(x->n, i0, i1, &f))
		f.index = nearest_edge_of(c, which, x->n, i0, i1, p);
	return f;
}

/// Largest coordinate the sub-distance worked with: the scale of rounding.
static double simplex_scale(const imp_svert2 *s, int n)
{
	double m = 0.0;
	for (int i = 0; i < n; ++i) {
		m = imp_max(m, imp_max(fabs(s[i].a.x), fabs(s[i].a.y)));
		imp_vec2 b = imp_svert2_b(&s[i]);
		m = imp_max(m, imp_max(fabs(b.x), fabs(b.y)));
	}
	return m;
}

/// The answer when a support gave NaN or infinity (a user shape's): no
/// distance, no points, the iterations so far.
static imp_status degenerate_result(imp_closest2_result r, imp_closest2_result *out)
{
	r.distance = NAN;
	r.point_a = r.point_b = r.normal = imp_vec2_make(NAN, NAN);
	r.state = IMP_STATE_DEGENERATE;
	*out = r;
	return IMP_OK;
}

/// The witnesses (a's frame) of the point of C's edge w0 w1 nearest the
/// origin, from the edge's ends (w = a - b, with a's point a): Alg. 5's
/// barycentric weights.
IMP_ALWAYS_INLINE void edge_witnesses(imp_vec2 w0, imp_vec2 a0, imp_vec2 w1, imp_vec2 a1, imp_vec2 *pa_local,
				      imp_vec2 *pb_local)
{
	imp_vec2 e = imp_vec2_sub(w1, w0);
	double ta = imp_vec2_dot(w0, e), tb = imp_vec2_dot(w1, e);
	double l1 = -ta / (tb - ta), l0 = 1.0 - l1;
	*pa_local = imp_vec2_add(imp_vec2_scale(l0, a0), imp_vec2_scale(l1, a1));
	*pb_local = imp_vec2_add(imp_vec2_scale(l0, imp_vec2_sub(a0, w0)), imp_vec2_scale(l1, imp_vec2_sub(a1, w1)));
}

/// The largest coordinate of the lean loop's simplex (simplex_scale).
static double lean_scale(const imp_shape *a, const lean_out *l)
{
	imp_svert2 sv[3];
	lean_records(a, l, sv);
	return simplex_scale(sv, l->n);
}

/// The end every Level 3 answer shares: the radii onto the core witnesses
/// (a's frame), the world frame, and the state. Touching: |distance|
/// within rounding of the coordinates GJK worked with; the simplex's scale
/// (of s[0..n), else of the lean loop's l) is only read when the distance
/// is small against a cheap bound of it (the shapes' reach from a's
/// origin).
IMP_ALWAYS_INLINE void closest_finish(const imp_shape *a, imp_pose2 pa, const imp_shape *b, imp_vec2 p_b,
				      imp_vec2 pa_local, imp_vec2 pb_local, imp_vec2 normal, double core, bool limit,
				      const imp_svert2 *s, int n, const lean_out *l, imp_closest2_result *r)
{
	double ra = a->radius, rb = b->radius;
	pa_local = imp_vec2_add(pa_local, imp_vec2_scale(ra, normal));
	pb_local = imp_vec2_sub(pb_local, imp_vec2_scale(rb, normal));
	r->distance = core - ra - rb;
	r->point_a = imp_pose2_apply(pa, pa_local);
	r->point_b = imp_pose2_apply(pa, pb_local);
	r->normal = imp_rot2_apply(pa.q, normal);
	double reach = a->bound_radius + b->bound_radius + fabs(p_b.x) + fabs(p_b.y);
	bool small = fabs(r->distance) <= 64 * DBL_EPSILON * reach;
	double touch = 0.0;
	if (small)
		touch = 64 * DBL_EPSILON * imp_max(s != NULL ? simplex_scale(s, n) : lean_scale(a, l), imp_max(ra, rb));
	if (limit)
		r->state = IMP_STATE_ITERATION_LIMIT;
	else if (small && fabs(r->distance) <= touch)
		r->state = IMP_STATE_TOUCHING;
	else
		r->state = r->distance < 0.0 ? IMP_STATE_OVERLAPPING : IMP_STATE_SEPARATED;
}

/// The witnesses of a penetration solver's answer (a's frame): the point
/// at t along its edge e0 e1, on each shape.
IMP_ALWAYS_INLINE void penetration_witnesses(const imp_epa2_result *e, imp_vec2 *pa_local, imp_vec2 *pb_local)
{
	*pa_local = imp_vec2_add(e->e0.a, imp_vec2_scale(e->t, imp_vec2_sub(e->e1.a, e->e0.a)));
	imp_vec2 b0 = imp_svert2_b(&e->e0), b1 = imp_svert2_b(&e->e1);
	*pb_local = imp_vec2_add(b0, imp_vec2_scale(e->t, imp_vec2_sub(b1, b0)));
}

/// The vertex indices of each shape's feature at a penetration solver's
/// answer: the edge's start (its end when t is 1) and, strictly inside
/// the edge, its end (-1 otherwise), for feature_of / simple_feature.
IMP_ALWAYS_INLINE void penetration_indices(const imp_epa2_result *e, int *a0, int *a1, int *b0, int *b1)
{
	bool two = e->t > 0.0 && e->t < 1.0;
	const imp_svert2 *f0 = e->t < 1.0 ? &e->e0 : &e->e1;
	*a0 = f0->ia;
	*b0 = f0->ib;
	*a1 = two ? e->e1.ia : -1;
	*b1 = two ? e->e1.ib : -1;
}

/// Level 3 for two polygon cores the lean loop found overlapping: the
/// walk's depth straight from the shapes, without the query context.
/// False for a sliver feature, which closest_query answers.
IMP_ALWAYS_INLINE bool lean_penetration(const imp_shape *a, imp_pose2 pa, const imp_shape *b, imp_rot2 q_b,
					imp_vec2 p_b, const lean_out *l, imp_closest2_result *out)
{
	imp_epa2_result e;
	imp_walk2_rings(a->v, a->count, b->v, b->count, q_b, p_b, a->sharp || b->sharp, &e);
	imp_closest2_result r = {.iterations = l->iterations, .epa_iterations = e.iterations};
	int a0, a1, b0, b1;
	penetration_indices(&e, &a0, &a1, &b0, &b1);
	if (!simple_feature(a->count, a0, a1, &r.feature_a) || !simple_feature(b->count, b0, b1, &r.feature_b))
		return false;
	imp_vec2 pa_local, pb_local;
	penetration_witnesses(&e, &pa_local, &pb_local);
	closest_finish(a, pa, b, p_b, pa_local, pb_local, e.normal, e.depth > 0.0 ? -e.depth : 0.0, e.limit, NULL, 0,
		       l, &r);
	*out = r;
	return true;
}

/// Level 3 for a pair whose lean loop ended apart (no interior point in
/// the simplex): the same answer closest_query builds from the general
/// loop's, straight from the loop's simplex. False for a sliver (two
/// witness indices that are not neighbours), which closest_query answers.
IMP_ALWAYS_INLINE bool lean_closest(const imp_shape *a, imp_pose2 pa, const imp_shape *b, imp_vec2 p_b,
				    const lean_out *l, imp_closest2_result *out)
{
	imp_closest2_result r = {.iterations = l->iterations};
	if (!simple_feature(a->count, l->p.ia, l->n == 2 ? l->q.ia : -1, &r.feature_a) ||
	    !simple_feature(b->count, l->p.ib, l->n == 2 ? l->q.ib : -1, &r.feature_b))
		return false;
	// The nearest point of C is d h / |d|^2: its length h / |d|, its
	// direction d / |d|; the normal from a to b is the opposite.
	imp_vec2 normal;
	double core = l->v.h / robust_length(l->v.d, &normal);
	normal = imp_vec2_scale(-1.0, normal);
	const imp_vec2 *va = a->v;
	imp_vec2 pa_local, pb_local;
	if (l->n == 1) {
		pa_local = va[l->p.ia];
		pb_local = imp_vec2_sub(pa_local, l->p.w);
	} else {
		edge_witnesses(l->p.w, va[l->p.ia], l->q.w, va[l->q.ia], &pa_local, &pb_local);
	}
	closest_finish(a, pa, b, p_b, pa_local, pb_local, normal, core, false, NULL, 0, l, &r);
	*out = r;
	return true;
}

static imp_status closest_general(const imp_shape *a, imp_pose2 pa, const imp_shape *b, imp_rot2 q, imp_vec2 p,
				  imp_simplex_cache *cache, const imp_query_options *options, bool walk,
				  const lean_out *l, imp_closest2_result *out);

IMP_ALWAYS_INLINE imp_status closest_query(const imp_shape *a, imp_pose2 pa, const imp_shape *b, imp_pose2 pb,
					   imp_simplex_cache *cache, const imp_query_options *options,
					   imp_closest2_result *out, bool checked)
{
	if (!checked) {
		if (out == NULL)
			return IMP_ERR_NULL_ARGUMENT;
		if (options == NULL)
			options = &imp_default_options;
		imp_status st = check_pair(a, &pa, b, &pb, options);
		if (st != IMP_OK)
			return st;
	}
	imp_rot2 q = imp_rot2_mul_inv(pa.q, pb.q);
	imp_vec2 p = imp_pose2_apply_inv(pa, pb.p);
	// EPA grows its polygon from GJK's simplex, which must then hold
	// support points only; the walk needs no simplex.
	bool walk = a->v != NULL && b->v != NULL && options->penetration == IMP_PENETRATION_AUTO &&
		    a->count + b->count <= IMP_WALK_MAX_EDGES;
	lean_out l;
	bool lean = walk && lean_ok(a, b, p, options) && lean_gjk(a, b, q, p, options, cache, true, false, 0.0, &l);
	if (lean && (lean_overlapping(&l) ? lean_penetration(a, pa, b, q, p, &l, out) : lean_closest(a, pa, b, p, &l, out))) {
		lean_write_cache(cache, &l);
		return IMP_OK;
	}
	return closest_general(a, pa, b, q, p, cache, options, walk, lean ? &l : NULL, out);
}

/// Level 3 through the general loop (or from the lean loop's answer `l`,
/// when it has one but lean_closest could not use it), the penetration
/// solvers, and the feature search for slivers. Out of line: the lean
/// path, which needs none of its context, then keeps a small frame.
static IMP_NOINLINE imp_status closest_general(const imp_shape *a, imp_pose2 pa, const imp_shape *b,
							    imp_rot2 q, imp_vec2 p, imp_simplex_cache *cache,
							    const imp_query_options *options, bool walk,
							    const lean_out *l, imp_closest2_result *out)
{
	scaled2 x;
	if (needs_scale2(a, b, p) && scale_pair2(a, b, &p, &x)) {
		// The scaled scene with a at the origin, then back.
		imp_pose2 at_origin = {{0.0, 0.0}, pa.q};
		imp_status st = closest_general(&x.a, at_origin, &x.b, q, p, cache, options, walk, NULL, out);
		double back = 1.0 / x.s;
		out->distance *= back;
		out->point_a = imp_vec2_add(pa.p, imp_vec2_scale(back, out->point_a));
		out->point_b = imp_vec2_add(pa.p, imp_vec2_scale(back, out->point_b));
		return st;
	}
	imp_gjk2_ctx c;
	setup_pair(&c, a, b, q, p, options);
	c.interior_ok = c.interior_ok && walk;
	gjk2_out g;
	if (l != NULL)
		lean_to_gjk(a, l, &g);
	else
		distance_run(&c, cache, options, &g);
	write_cache(cache, g.s, g.n, g.v);

	imp_closest2_result r = {.iterations = g.iterations};
	r.feature_a.index = r.feature_b.index = -1;
	if (g.state == IMP_STATE_DEGENERATE)
		return degenerate_result(r, out);
	imp_vec2 pa_local, pb_local, normal;
	double core;
	bool limit = g.state == IMP_STATE_ITERATION_LIMIT;
	if (g.state == IMP_STATE_OVERLAPPING) {
		imp_epa2_result e;
		double scale = simplex_scale(g.s, g.n);
		double rel = imp_max(has_user_shape(&c) ? options->tolerance : 1e-13, 16 * DBL_EPSILON);
		double tol = rel * imp_max(scale, 1e-300);
		if (walk)
			imp_walk2(&c, &e);
		else
			imp_epa2(&c, g.s, g.n, options->epa_max_iterations, tol, &e);
		if (c.bad)
			return degenerate_result(r, out);
		r.epa_iterations = e.iterations;
		limit = limit || e.limit;
		core = e.depth > 0.0 ? -e.depth : 0.0;
		normal = e.normal;
		penetration_witnesses(&e, &pa_local, &pb_local);
		int a0, a1, b0, b1;
		penetration_indices(&e, &a0, &a1, &b0, &b1);
		r.feature_a = feature_of(&c, 0, a0, a1, pa_local);
		r.feature_b = feature_of(&c, 1, b0, b1, pb_local);
	} else {
		core = robust_length(g.v, &normal);
		normal = imp_vec2_scale(-1.0, normal);
		if (g.n == 1) {
			pa_local = g.s[0].a;
			pb_local = imp_svert2_b(&g.s[0]);
			r.feature_a = feature_of(&c, 0, g.s[0].ia, -1, pa_local);
			r.feature_b = feature_of(&c, 1, g.s[0].ib, -1, pb_local);
		} else {
			edge_witnesses(g.s[0].w, g.s[0].a, g.s[1].w, g.s[1].a, &pa_local, &pb_local);
			r.feature_a = feature_of(&c, 0, g.s[0].ia, g.s[1].ia, pa_local);
			r.feature_b = feature_of(&c, 1, g.s[0].ib, g.s[1].ib, pb_local);
		}
	}
	closest_finish(a, pa, b, c.p, pa_local, pb_local, normal, core, limit, g.s, g.n, NULL, &r);
	*out = r;
	return IMP_OK;
}

imp_status imp_closest2_ex(const imp_shape *a, imp_pose2 pa, const imp_shape *b, imp_pose2 pb,
			   imp_simplex_cache *cache, const imp_query_options *options, imp_closest2_result *out)
{
	if (imp_pair_has_composite(a, b)) {
		if (out == NULL)
			return IMP_ERR_NULL_ARGUMENT;
		return imp_composite_closest2(a, pa, b, pb, cache, options, out, NULL);
	}
	imp_status st = closest_query(a, pa, b, pb, cache, options, out, false);
	if (st == IMP_OK)
		out->child_a = out->child_b = -1;
	return st;
}

imp_status imp_closest2(const imp_shape *a, imp_pose2 pa, const imp_shape *b, imp_pose2 pb,
			imp_simplex_cache *cache, imp_closest2_result *out)
{
	return imp_closest2_ex(a, pa, b, pb, cache, NULL, out);
}

imp_status imp_closest2_checked(const imp_shape *a, imp_pose2 pa, const imp_shape *b, imp_pose2 pb,
				imp_simplex_cache *cache, imp_closest2_result *out)
{
	return closest_query(a, pa, b, pb, cache, &imp_default_options, out, true);
}
