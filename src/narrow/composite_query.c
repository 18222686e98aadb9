// SPDX-License-Identifier: MIT
// Pairwise queries on non-convex shapes (shape/composite.h): the mid-phase.
// A pair with a non-convex side walks the side's bounding-volume hierarchy
// (both hierarchies at once when both sides are non-convex), in the frame
// of one side, and hands each pair of children whose boxes pass to the
// convex queries (barycode GJK, EPA). Level 1 stops at the first pair that
// overlaps; Levels 2 and 3 are a branch and bound on the signed distance,
// nearer boxes first, the best pair's answer so far the bound (a box pair
// that overlaps bounds the depth of its children's penetration from
// below: core/box.h, imp_box_bound). The cache keeps the best pair and its
// simplex: the next query on the pair starts from that pair's answer.
#include "narrow/composite_query.h"

#include <assert.h>
#include <float.h>
#include <math.h>
#include <stddef.h>
#include <string.h>

#include "narrow/gjk3d_internal.h"
#include "narrow/query_options.h"
#include "shape/composite.h"

/// The convex side of a query with one non-convex side keeps up to this
/// many core vertices in the other's frame, for the directional bound of
/// the hierarchy's nodes (node_key).
#define IMP_KEY_VERTICES 64

/// A query on a pair with a non-convex side.
typedef struct cq {
	int dim;
	int level;  ///< 1 overlap, 2 distance, 3 closest, 4 advance (imp_composite_advance2/3), 5 contact (imp_composite_contact2/3)
	const imp_shape *a, *b;
	const imp_composite *ca, *cb; ///< NULL for a convex side
	bool cornered;        ///< both sides meshes or height fields (see cornered())
	int hull_n;           ///< the convex side's core vertices kept for the keys (0: none; see hull_moved)
	int32_t memo_ia, memo_ib; ///< the children memo_a, memo_b hold (-2: none)
	const imp_query_options *o;
	bool swapped;          ///< the hierarchy walked alone is b's (a is convex)
	int32_t done_a, done_b; ///< the pair the cache gave, already answered (-2: none)
	// The answer so far.
	bool hit;              ///< Level 1: a pair overlaps
	bool any;              ///< a pair has been answered
	double best;           ///< Levels 2, 3: the least signed distance (Level 2: distance)
	int32_t best_a, best_b; ///< its children (-1: a convex side)
	imp_query_state best_state;
	int iterations, epa_iterations;
	int pairs;             ///< pairs of children answered (narrow-phase calls)
	imp_status st;         ///< the first error a child query gave
	bool degenerate;       ///< a user child's support was not finite
	// Not cleared by begin() (a query far apart costs a few hundred
	// instructions, and clearing these took 80): each written before it
	// is read. The poses of the query's dimension, by begin_posed():
	imp_pose2 pa2, pb2;   ///< the poses given
	imp_pose3 pa3, pb3;
	imp_pose2 rel2;       ///< b's pose in a's frame: child pairs are answered in a's frame
	imp_pose3 rel3;
	imp_mat3 rel_r;       ///< rel3's rotation
	// Level 4, by advance_run() (read at Level 4 only).
	double adv_level;      ///< the distance the advance is to
	double adv_tol;        ///< > 0: each pair's level from its distance instead (imp_composite_schedule2/3)
	double adv_spin;       ///< the turns' part of every pair's rate
	double adv_speed;      ///< |v_a - v_b| + adv_spin: every pair's rate is at most this
	imp_vec3 adv_dv;       ///< v_a - v_b in a's frame (z = 0 in 2D)
	double adv_t;          ///< the least time a pair answered could reach the level in
	double adv_bound;      ///< adv_level + adv_t adv_speed: pairs whose boxes are farther cannot come sooner
	// Level 5, by contact_run() (the velocities in a's frame; b's origin
	// there is rel's).
	double con_tol;        ///< pairs within this distance are in contact
	imp_vec3 con_va, con_wa, con_vb, con_wb;
	double con_speed;      ///< the least normal speed of a pair in contact so far
	bool hull_moved;      ///< hull, hull_c and hull_radius written (by move_hull(), when a key first needs them)
	const imp_shape3 *hull_src; ///< the convex side whose core vertices those are
	imp_bvh_xform hull_at; ///< its motion into the walked side's frame
	imp_vec3 hull[IMP_KEY_VERTICES]; ///< hull_n of them
	imp_vec3 hull_c;      ///< their centre
	double hull_radius;   ///< the convex side's rounding
	imp_closest2_result r2; ///< the best pair's answer (any)
	imp_closest3_result r3;
	imp_simplex_cache best_cache;
	imp_child3 memo_a, memo_b; ///< the children memo_ia, memo_ib (query3)
} cq;

// ---------------------------------------------------------------------------
// One pair of children.

/// Feature of a child's record as a feature of the child: a triangle with
/// no area was given as its segment or point, whose vertices are corners
/// corner[] of the triangle (and its one edge the triangle's edge from
/// corner[0]).
static imp_feature child_feature3(const imp_child3 *ch, imp_feature f)
{
	if (ch->posed || ch->rec.count >= 3)
		return f;
	if (f.kind == IMP_FEATURE_VERTEX && f.index >= 0 && f.index < ch->rec.count)
		f.index = ch->corner[f.index];
	else if (f.kind == IMP_FEATURE_EDGE)
		f.index = ch->corner[0];
	return f;
}

/// One pair's answer, of either dimension.
typedef struct pair_answer {
	double d;              ///< signed distance (Level 1: -1 overlapping, +1 apart)
	imp_query_state state;
	imp_status st;
	int iterations, epa_iterations;
	imp_closest2_result r2;
	imp_closest3_result r3;
} pair_answer;

/// Whether a and b are both meshes or height fields, whose children have
/// corners in their shapes' frames (imp_composite_corners3).
static bool cornered(const cq *q)
{
	return q->dim == 3 && q->ca != NULL && q->cb != NULL &&
	       (q->ca->kind == IMP_SHAPE_MESH || q->ca->kind == IMP_SHAPE_HEIGHTFIELD) &&
	       (q->cb->kind == IMP_SHAPE_MESH || q->cb->kind == IMP_SHAPE_HEIGHTFIELD);
}

/// A lower bound on the distance of children ia and ib of two cornered
/// shapes: the gap between their corners' projections on the line through
/// their centres, b's moved into a's frame, less the radii. A few dozen
/// operations where the pair's query takes a few thousand: most pairs the
/// hierarchy's boxes let through are farther apart along that line than
/// the best pair (a mesh of 960 triangles against another, 0.47 apart: 464
/// pairs a query reached the narrow phase without it, 58 with it).
static double gap_along_centres(const cq *q, int32_t ia, int32_t ib)
{
	imp_vec3 va[6], vb[6];
	int na = imp_composite_corners3(q->ca, ia, va), nb = imp_composite_corners3(q->cb, ib, vb);
	imp_vec3 ca = va[0], cb;
	for (int i = 1; i < na; ++i)
		ca = imp_vec3_add(ca, va[i]);
	ca = imp_vec3_scale(1.0 / na, ca);
	for (int i = 0; i < nb; ++i)
		vb[i] = imp_vec3_add(imp_mat3_apply(&q->rel_r, vb[i]), q->rel3.p);
	cb = vb[0];
	for (int i = 1; i < nb; ++i)
		cb = imp_vec3_add(cb, vb[i]);
	cb = imp_vec3_scale(1.0 / nb, cb);
	imp_vec3 u = imp_vec3_sub(cb, ca);
	double uu = imp_vec3_dot(u, u);
	if (!(uu > 0x1p-900 && uu < 0x1p900))
		return -INFINITY;
	double hi_a = -INFINITY, lo_b = INFINITY;
	for (int i = 0; i < na; ++i)
		hi_a = imp_max(hi_a, imp_vec3_dot(va[i], u));
	for (int i = 0; i < nb; ++i)
		lo_b = imp_min(lo_b, imp_vec3_dot(vb[i], u));
	// Rounding of the projections: a margin of 1e-12 of their size keeps
	// the bound below the distance.
	double len = sqrt(uu), gap = (lo_b - hi_a) / len, size = imp_max(fabs(hi_a), fabs(lo_b)) / len;
	return gap - 1e-12 * size - q->ca->radius - q->cb->radius;
}

static double search_bound(const cq *q);

/// The pair's query in 3D: children ia, ib (-1: the convex side itself).
/// The distance from p to the segment [a, b] (b - a = e, |e|^2 = ee > 0).
static double point_segment(imp_vec3 p, imp_vec3 a, imp_vec3 e, double ee)
{
	imp_vec3 w = imp_vec3_sub(p, a);
	double t = imp_vec3_dot(w, e) / ee;
	t = t < 0.0 ? 0.0 : (t > 1.0 ? 1.0 : t);
	return imp_vec3_length(imp_vec3_sub(w, imp_vec3_scale(t, e)));
}

static void move_hull(cq *q);

/// Levels 1 and 2 for a sphere (a point core) and a mesh's triangle, in
/// closed form: the distance from the centre to the triangle's plane when
/// it is over the triangle, else to the nearest edge. False (GJK answers)
/// for a triangle thinner than 1e-6 of its longest edge, whose plane's
/// turn is ill-defined in rounding, and for coordinates whose squares
/// would leave the range (GJK scales the scene). The answer is GJK's to
/// rounding (Level 1: touching counts as overlap); the pair's simplex
/// cache is left as it was. A sphere near a 1k torus, 346 distance
/// queries 1e-5 to 9e-4 apart, 10.9 triangles a query: 6.95 million
/// instructions with GJK, 4.99 million so (2,526 to 1,959 ns).
static bool sphere_triangle(cq *q, int32_t ia, int32_t ib, pair_answer *x)
{
	const imp_composite *m = q->swapped ? q->cb : q->ca;
	int32_t k = q->swapped ? ib : ia;
	if (m->kind != IMP_SHAPE_MESH || k < 0)
		return false;
	if (!q->hull_moved)
		move_hull(q);
	imp_vec3 p = q->hull[0];
	const int32_t *t = &m->triangles[3 * (size_t)k];
	imp_vec3 a = m->v3[t[0]], b = m->v3[t[1]], c = m->v3[t[2]];
	imp_vec3 e0 = imp_vec3_sub(b, a), e1 = imp_vec3_sub(c, b), e2 = imp_vec3_sub(a, c);
	double l0 = imp_vec3_dot(e0, e0), l1 = imp_vec3_dot(e1, e1), l2 = imp_vec3_dot(e2, e2);
	double ll = imp_max(l0, imp_max(l1, l2));
	imp_vec3 w = imp_vec3_sub(p, a);
	double ww = imp_vec3_dot(w, w);
	if (!(ll > 0x1p-500 && ll < 0x1p500 && ww < 0x1p500))
		return false;
	imp_vec3 n = imp_vec3_cross(e0, imp_vec3_sub(c, a));
	double nn = imp_vec3_dot(n, n);
	if (!(nn > 1e-12 * ll * ll))
		return false;
	double core;
	imp_vec3 wb = imp_vec3_sub(p, b), wc = imp_vec3_sub(p, c);
	if (imp_vec3_dot(imp_vec3_cross(e0, w), n) >= 0.0 && imp_vec3_dot(imp_vec3_cross(e1, wb), n) >= 0.0 &&
	    imp_vec3_dot(imp_vec3_cross(e2, wc), n) >= 0.0)
		core = fabs(imp_vec3_dot(w, n)) / sqrt(nn);
	else
		core = imp_min(point_segment(p, a, e0, l0), imp_min(point_segment(p, b, e1, l1), point_segment(p, c, e2, l2)));
	double d = core - q->hull_radius - m->radius;
	x->iterations = 1;
	if (q->level == 1) {
		x->d = d <= 0.0 ? -1.0 : 1.0;
		return true;
	}
	x->state = d > 0.0 ? IMP_STATE_SEPARATED : (d == 0.0 ? IMP_STATE_TOUCHING : IMP_STATE_OVERLAPPING);
	x->d = d > 0.0 ? d : 0.0;
	return true;
}

static void query3(cq *q, int32_t ia, int32_t ib, imp_simplex_cache *cache, pair_answer *x)
{
	if (q->level <= 2 && q->hull_n == 1 && sphere_triangle(q, ia, ib, x))
		return;
	const imp_shape *sa = q->a, *sb = q->b;
	imp_pose3 pa = imp_pose3_identity(), pb = q->rel3;
	// Each side's last child record is kept: the walk pairs one child
	// with many of the other side's in a row.
	const imp_child3 *xa = &q->memo_a, *xb = &q->memo_b;
	if (ia >= 0) {
		if (q->memo_ia != ia) {
			imp_composite_child3(q->ca, ia, &q->memo_a);
			q->memo_ia = ia;
		}
		sa = xa->shape;
		pa = imp_composite_pose3(pa, xa);
	}
	if (ib >= 0) {
		if (q->memo_ib != ib) {
			imp_composite_child3(q->cb, ib, &q->memo_b);
			q->memo_ib = ib;
		}
		sb = xb->shape;
		pb = imp_composite_pose3(q->rel3, xb);
	}
	// Children in their shapes' frames (a's at the identity, b's at rel3):
	// the pair is answered with the query's own turn, and Level 2 stops
	// once GJK proves the pair farther apart than the best so far.
	bool plain = (ia < 0 || !xa->posed) && (ib < 0 || !xb->posed);
	if (q->level == 1) {
		x->d = (plain ? imp_overlap3_rel(sa, sb, &q->rel_r, q->rel3.p, cache, q->o)
			      : imp_overlap3_ex(sa, pa, sb, pb, cache, q->o))
			       ? -1.0
			       : 1.0;
	} else if (q->level == 2) {
		x->d = plain ? imp_distance3_rel(sa, sb, &q->rel_r, q->rel3.p, search_bound(q), cache, q->o, &x->iterations,
						 &x->state)
			     : imp_distance3_stats(sa, pa, sb, pb, cache, q->o, &x->iterations, &x->state);
	} else {
		imp_closest3_result *r = &x->r3;
		x->st = imp_closest3_ex(sa, pa, sb, pb, cache, q->o, r);
		if (x->st != IMP_OK)
			return;
		x->d = r->distance;
		x->state = r->state;
		x->iterations = r->iterations;
		x->epa_iterations = r->epa_iterations;
		if (ia >= 0)
			r->feature_a = child_feature3(xa, r->feature_a);
		if (ib >= 0)
			r->feature_b = child_feature3(xb, r->feature_b);
		r->child_a = ia;
		r->child_b = ib;
	}
}

/// The same in 2D.
static void query2(const cq *q, int32_t ia, int32_t ib, imp_simplex_cache *cache, pair_answer *x)
{
	imp_child2 xa, xb;
	const imp_shape *sa = q->a, *sb = q->b;
	imp_pose2 pa = imp_pose2_identity(), pb = q->rel2;
	if (ia >= 0) {
		imp_composite_child2(q->ca, ia, &xa);
		sa = xa.shape;
		pa = imp_composite_pose2(pa, &xa);
	}
	if (ib >= 0) {
		imp_composite_child2(q->cb, ib, &xb);
		sb = xb.shape;
		pb = imp_composite_pose2(q->rel2, &xb);
	}
	if (q->level == 1) {
		x->d = imp_overlap2_ex(sa, pa, sb, pb, cache, q->o) ? -1.0 : 1.0;
	} else if (q->level == 2) {
		x->d = imp_distance2_stats(sa, pa, sb, pb, cache, q->o, &x->iterations, &x->state);
	} else {
		imp_closest2_result *r = &x->r2;
		x->st = imp_closest2_ex(sa, pa, sb, pb, cache, q->o, r);
		if (x->st != IMP_OK)
			return;
		x->d = r->distance;
		x->state = r->state;
		x->iterations = r->iterations;
		x->epa_iterations = r->epa_iterations;
		r->child_a = ia;
		r->child_b = ib;
	}
}

/// The distance beyond which a pair of children cannot improve the answer:
/// Level 1, overlap (0); Levels 2 and 3, the best distance so far; Level
/// 4, the level plus the distance the fastest rate covers in the least
/// time so far.
static double search_bound(const cq *q)
{
	if (q->level == 1)
		return 0.0;
	if (q->level == 4)
		return q->adv_bound;
	if (q->level == 5)
		return q->con_tol;
	return q->any ? q->best : INFINITY;
}

/// Level 4 on one answered pair: the time its separation along its normal
/// n could fall to the level, at its rate (v_a - v_b) . n plus the turns'
/// part (docs/toi.md); false once a pair is there already.
static bool advance_pair(cq *q, double d, imp_vec3 n)
{
	double rate = imp_vec3_dot(q->adv_dv, n) + q->adv_spin;
	double level = q->adv_level, tol = q->adv_tol;
	if (tol > 0.0)
		level = d > tol ? 0.5 * tol : imp_min(-0.5 * tol, d - 0.5 * tol);
	double t = rate > 0.0 ? imp_max(d - level, 0.0) / rate : INFINITY;
	if (t < q->adv_t) {
		q->adv_t = t;
		// Pairs farther than the bound cannot come sooner; in the
		// schedule, pairs within the tolerance are all looked at.
		q->adv_bound = tol > 0.0 ? imp_max(tol, 0.5 * tol + t * q->adv_speed) : level + t * q->adv_speed;
		q->any = true;
	}
	return q->adv_t > 0.0;
}

/// Level 5 on one answered pair in contact (within con_tol): kept when its
/// witnesses approach faster along its normal than those of the pairs
/// kept so far (the velocity of b's witness less a's, each v + w x (p -
/// origin), along n).
static void contact_pair(cq *q, int32_t ia, int32_t ib, const pair_answer *x, const imp_simplex_cache *cache)
{
	if (!(x->d <= q->con_tol))
		return;
	imp_vec3 pa, pb, n;
	if (q->dim == 2) {
		pa = imp_vec3_make(x->r2.point_a.x, x->r2.point_a.y, 0.0);
		pb = imp_vec3_make(x->r2.point_b.x, x->r2.point_b.y, 0.0);
		n = imp_vec3_make(x->r2.normal.x, x->r2.normal.y, 0.0);
	} else {
		pa = x->r3.point_a;
		pb = x->r3.point_b;
		n = x->r3.normal;
	}
	imp_vec3 ob = q->dim == 2 ? imp_vec3_make(q->rel2.p.x, q->rel2.p.y, 0.0) : q->rel3.p;
	imp_vec3 ua = imp_vec3_add(q->con_va, imp_vec3_cross(q->con_wa, pa));
	imp_vec3 ub = imp_vec3_add(q->con_vb, imp_vec3_cross(q->con_wb, imp_vec3_sub(pb, ob)));
	double speed = imp_vec3_dot(imp_vec3_sub(ub, ua), n);
	if (speed < q->con_speed) {
		q->con_speed = speed;
		q->best = x->d;
		q->best_a = ia;
		q->best_b = ib;
		q->best_state = x->state;
		q->best_cache = *cache;
		q->r2 = x->r2;
		q->r3 = x->r3;
		q->any = true;
	}
}

/// Answers one pair and keeps it when it is the best so far; false when
/// the search should stop (Level 1 found an overlap, Level 2 found 0, an
/// error, a degenerate support, Level 4 a pair at its level).
static bool visit(cq *q, int32_t ia, int32_t ib, const imp_simplex_cache *start)
{
	imp_simplex_cache cache;
	if (start != NULL)
		cache = *start;
	else
		memset(&cache, 0, sizeof cache);
	pair_answer x = {.d = NAN, .state = IMP_STATE_SEPARATED, .st = IMP_OK};
	if (q->cornered && gap_along_centres(q, ia, ib) > search_bound(q))
		return true; // farther apart along one line than a pair that could matter: not this one
	q->pairs++;
	if (q->dim == 2)
		query2(q, ia, ib, &cache, &x);
	else
		query3(q, ia, ib, &cache, &x);
	q->iterations += x.iterations;
	q->epa_iterations += x.epa_iterations;
	if (x.st != IMP_OK) {
		q->st = x.st;
		return false;
	}
	if (x.state == IMP_STATE_DEGENERATE) {
		q->degenerate = true;
		return false;
	}
	double d = x.d;
	imp_query_state state = x.state;
	if (isnan(d)) {
		// A child's pose composed with the composite's left the range of
		// a pose (its query refused it).
		q->st = IMP_ERR_OUT_OF_RANGE;
		return false;
	}
	if (q->level == 4) {
		imp_vec3 n = q->dim == 2 ? imp_vec3_make(x.r2.normal.x, x.r2.normal.y, 0.0) : x.r3.normal;
		return advance_pair(q, d, n);
	}
	if (q->level == 5) {
		contact_pair(q, ia, ib, &x, &cache);
		return true;
	}
	if (q->level == 1) {
		if (d < 0.0) {
			q->hit = true;
			q->best_a = ia;
			q->best_b = ib;
			q->best_cache = cache;
			q->any = true;
			return false;
		}
		return true;
	}
	if (!q->any || d < q->best) {
		q->any = true;
		q->best = d;
		q->best_a = ia;
		q->best_b = ib;
		q->best_state = state;
		q->best_cache = cache;
		if (q->dim == 2)
			q->r2 = x.r2;
		else
			q->r3 = x.r3;
	}
	return !(q->level == 2 && q->best <= 0.0);
}

/// The children of piece p of side `c` (NULL: the convex side, child -1).
static int32_t piece_children(const imp_composite *c, int32_t p, int *n)
{
	if (c == NULL) {
		*n = 1;
		return -1;
	}
	return imp_composite_piece_first(c, p, n);
}

/// Every pair of children of pieces pa (a's) and pb (b's); false to stop.
static bool visit_pieces(cq *q, int32_t pa, int32_t pb)
{
	int na, nb;
	int32_t fa = piece_children(q->ca, pa, &na), fb = piece_children(q->cb, pb, &nb);
	for (int i = 0; i < na; ++i)
		for (int j = 0; j < nb; ++j) {
			int32_t ia = q->ca != NULL ? fa + i : -1, ib = q->cb != NULL ? fb + j : -1;
			if (ia == q->done_a && ib == q->done_b)
				continue;
			if (!visit(q, ia, ib, NULL))
				return false;
		}
	return true;
}

/// The pieces a walk of one hierarchy reports are the walked side's; the
/// other side is convex.
static bool pieces_of_walk(cq *q, int32_t item, int32_t other)
{
	return q->swapped ? visit_pieces(q, other, item) : visit_pieces(q, item, other);
}

static bool pair_fn(void *ctx, int32_t ia, int32_t ib)
{
	cq *q = ctx;
	if (q->ca != NULL && q->cb != NULL)
		return visit_pieces(q, ia, ib);
	return pieces_of_walk(q, ia, ib);
}

static bool item_fn(void *ctx, int32_t item)
{
	return pieces_of_walk(ctx, item, 0);
}

static double bound_fn(void *ctx, int32_t ia, int32_t ib, double bound)
{
	cq *q = ctx;
	bool go = pair_fn(ctx, ia, ib);
	if (!go)
		return -INFINITY; // stop: nothing lies below
	(void)bound;
	return search_bound(q);
}

// ---------------------------------------------------------------------------
// The walk.

/// The motion from b's frame into a's, from the relative pose begin_posed
/// made (3D).
static imp_bvh_xform rel_xform3(const cq *q)
{
	imp_bvh_xform x;
	memcpy(x.r, q->rel_r.m, sizeof x.r);
	x.t[0] = q->rel3.p.x;
	x.t[1] = q->rel3.p.y;
	x.t[2] = q->rel3.p.z;
	return x;
}

static imp_bvh_xform xform2(imp_pose2 pa, imp_pose2 pb)
{
	imp_rot2 q = imp_rot2_mul_inv(pa.q, pb.q);
	double n = sqrt(q.c * q.c + q.s * q.s);
	q.c /= n;
	q.s /= n;
	imp_vec2 t = imp_pose2_apply_inv(pa, pb.p);
	imp_bvh_xform x = {{{q.c, -q.s, 0.0}, {q.s, q.c, 0.0}, {0.0, 0.0, 1.0}}, {t.x, t.y, 0.0}};
	return x;
}

/// The box of convex shape s at pose `at` (relative to the walked side's
/// frame).
static imp_status convex_box(const cq *q, const imp_shape *s, const imp_pose2 *at2, const imp_pose3 *at3, imp_box *out)
{
	if (q->dim == 2) {
		imp_aabb2 a = {{0, 0}, {0, 0}};
		imp_status st = imp_shape2_aabb_unchecked(s, *at2, &a);
		*out = (imp_box){{a.lo.x, a.lo.y, 0.0}, {a.hi.x, a.hi.y, 0.0}};
		return st;
	}
	imp_aabb3 a = {{0, 0, 0}, {0, 0, 0}};
	imp_status st = imp_shape3_aabb_unchecked(s, *at3, &a);
	*out = (imp_box){{a.lo.x, a.lo.y, a.lo.z}, {a.hi.x, a.hi.y, a.hi.z}};
	return st;
}

static imp_pose2 unit_pose2(imp_pose2 p)
{
	double n = sqrt(p.q.c * p.q.c + p.q.s * p.q.s);
	p.q.c /= n;
	p.q.s /= n;
	return p;
}

/// The pose of `of` in the frame of `in`, of the rotations of their
/// quaternions made unit (checked poses: within 1e-6 of unit). One square
/// root: |conj(qi) qo| = |qi| |qo|, and qi's matrix scaled by 2 / |qi|^2 is
/// the rotation of qi / |qi|.
static imp_pose3 relative3(imp_pose3 in, imp_pose3 of)
{
	imp_quat qi = in.q, qo = of.q;
	double ni = qi.x * qi.x + qi.y * qi.y + qi.z * qi.z + qi.w * qi.w;
	double no = qo.x * qo.x + qo.y * qo.y + qo.z * qo.z + qo.w * qo.w;
	imp_mat3 m = imp_mat3_from_quat_scaled(qi, 2.0 / ni);
	imp_quat r = imp_quat_mul(imp_quat_conj(qi), qo);
	double l = sqrt(ni * no);
	imp_pose3 out = {imp_mat3_apply_t(&m, imp_vec3_sub(of.p, in.p)), {r.x / l, r.y / l, r.z / l, r.w / l}};
	return out;
}

/// a's pose in b's frame, from rel3 (b's in a's).
static imp_pose3 inverse3(const cq *q)
{
	imp_vec3 t = imp_mat3_apply_t(&q->rel_r, q->rel3.p);
	imp_pose3 r = {imp_vec3_scale(-1.0, t), imp_quat_conj(q->rel3.q)};
	return r;
}

/// The motion of the convex side into the walked side's frame (3D): rel3's,
/// or its inverse when the walked side is b's.
static imp_bvh_xform convex_xform3(const cq *q)
{
	imp_bvh_xform x;
	imp_vec3 t = q->rel3.p;
	if (!q->swapped) {
		memcpy(x.r, q->rel_r.m, sizeof x.r);
		x.t[0] = t.x;
		x.t[1] = t.y;
		x.t[2] = t.z;
		return x;
	}
	for (int i = 0; i < 3; ++i)
		for (int j = 0; j < 3; ++j)
			x.r[i][j] = q->rel_r.m[j][i];
	for (int i = 0; i < 3; ++i)
		x.t[i] = -(x.r[i][0] * t.x + x.r[i][1] * t.y + x.r[i][2] * t.z);
	return x;
}

static imp_pose2 relative2(imp_pose2 in, imp_pose2 of)
{
	imp_bvh_xform x = xform2(in, of);
	imp_pose2 r = {{x.t[0], x.t[1]}, {x.r[0][0], x.r[1][0]}};
	return r;
}

/// A node's bound against a convex side of vertices: the gap between the
/// node's box (centre c, half sizes e along the axes ax, or along the
/// frame's when ax is NULL) and the convex core along the line from the
/// core's centre to the box's centre (min over the box of u . x less max
/// over the core), less the convex side's radius (the box holds the walked
/// side's). An axis-aligned box of a turned convex shape is up to sqrt(3)
/// times its size along each axis, and near a surface it meets the boxes
/// of many triangles the shape does not come near; along the line between
/// the centres it does not grow.
static double centre_line_key(cq *q, const double c[3], const double e[3], const double (*ax)[3])
{
	if (!q->hull_moved)
		move_hull(q);
	imp_vec3 u = imp_vec3_make(c[0] - q->hull_c.x, c[1] - q->hull_c.y, c[2] - q->hull_c.z);
	double uu = imp_vec3_dot(u, u);
	if (!(uu > 0x1p-900 && uu < 0x1p900))
		return -INFINITY;
	u = imp_vec3_scale(1.0 / sqrt(uu), u);
	double lo_box = u.x * c[0] + u.y * c[1] + u.z * c[2];
	for (int i = 0; i < 3; ++i) {
		double along = ax == NULL ? (i == 0 ? u.x : (i == 1 ? u.y : u.z))
					  : u.x * ax[i][0] + u.y * ax[i][1] + u.z * ax[i][2];
		lo_box -= e[i] * fabs(along);
	}
	double hi_core = -INFINITY;
	for (int i = 0; i < q->hull_n; ++i)
		hi_core = imp_max(hi_core, imp_vec3_dot(u, q->hull[i]));
	double size = imp_max(fabs(lo_box), fabs(hi_core));
	return lo_box - hi_core - q->hull_radius - 1e-12 * size;
}

/// centre_line_key for a node's axis-aligned box.
static double node_key(void *ctx, const imp_box *box)
{
	double c[3], e[3];
	for (int k = 0; k < 3; ++k) {
		c[k] = 0.5 * box->lo[k] + 0.5 * box->hi[k];
		e[k] = 0.5 * box->hi[k] - 0.5 * box->lo[k];
	}
	return centre_line_key(ctx, c, e, NULL);
}

/// node_key for a node's oriented box. A point core (a sphere): its
/// signed distance from the box, exactly, less its radius. Otherwise
/// centre_line_key.
static double node_key_obb(void *ctx, const imp_bvh_obb *o)
{
	cq *q = ctx;
	if (q->hull_n == 1) {
		if (!q->hull_moved)
			move_hull(q);
		// The point's signed distance from the box: outside, its
		// distance; inside, minus its depth (the box holds the walked
		// side's rounding too: a sphere whose centre is deep in the box
		// may be as deep in what the box holds).
		double d[3] = {q->hull[0].x - o->c[0], q->hull[0].y - o->c[1], q->hull[0].z - o->c[2]};
		double out = 0.0, depth = INFINITY, size = 0.0;
		for (int i = 0; i < 3; ++i) {
			double t = fabs(d[0] * o->ax[i][0] + d[1] * o->ax[i][1] + d[2] * o->ax[i][2]) - o->e[i];
			out += t > 0.0 ? t * t : 0.0;
			depth = imp_min(depth, -t);
			size += fabs(o->c[i]) + o->e[i] + fabs(d[i]);
		}
		double sd = out > 0.0 ? sqrt(out) : -depth;
		return sd - q->hull_radius - 1e-12 * size;
	}
	return centre_line_key(q, o->c, o->e, (const double(*)[3])o->ax);
}

/// The point of oriented box o farthest along u.
static imp_vec3 obb_support(const imp_bvh_obb *o, imp_vec3 u)
{
	double p[3] = {o->c[0], o->c[1], o->c[2]};
	for (int i = 0; i < 3; ++i) {
		const double *ax = o->ax[i];
		double e = u.x * ax[0] + u.y * ax[1] + u.z * ax[2] >= 0.0 ? o->e[i] : -o->e[i];
		p[0] += e * ax[0];
		p[1] += e * ax[1];
		p[2] += e * ax[2];
	}
	return imp_vec3_make(p[0], p[1], p[2]);
}

/// The most GJK steps imp_obb_gap takes.
#define IMP_NODE_GAP_STEPS 6

/// imp_obb_gap: a lower bound on the distance between two oriented boxes
/// of nodes (one frame), sharper than the separating axes' (lb) when the
/// boxes stand askew: GJK on their Minkowski difference, which stops once a plane
/// holds them further apart than `bound` (the pair is ruled out), once
/// its simplex comes within bound (it cannot be), or after
/// IMP_NODE_GAP_STEPS steps. Each support's plane bounds the distance from
/// below: v . w / |v| for the difference's support w along -v. On the
/// UR10 links 0.06 to 0.5 apart, the exact box distance instead of the
/// axes' bound let 5 times fewer triangle pairs through to GJK.
double imp_obb_gap(const imp_bvh_obb *a, const imp_bvh_obb *b, double lb, double bound)
{
	double size = 0.0;
	for (int k = 0; k < 3; ++k)
		size += a->e[k] + b->e[k] + fabs(a->c[k]) + fabs(b->c[k]);
	double margin = 1e-12 * size; // the supports' rounding
	imp_svert3 s[4], kept[4];
	double l[4];
	int n = 0;
	imp_vec3 v = imp_vec3_make(a->c[0] - b->c[0], a->c[1] - b->c[1], a->c[2] - b->c[2]);
	for (int step = 0; step < IMP_NODE_GAP_STEPS; ++step) {
		double vv = imp_vec3_dot(v, v);
		if (!(vv > 0x1p-900 && vv < 0x1p900))
			return lb;
		if (step > 0 && vv <= bound * bound)
			return lb; // within the bound: not ruled out
		imp_vec3 pa = obb_support(a, imp_vec3_neg(v)), pb = obb_support(b, v);
		imp_vec3 w = imp_vec3_sub(pa, pb);
		double len = sqrt(vv), low = imp_vec3_dot(v, w) / len - margin;
		lb = low > lb ? low : lb;
		if (lb > bound)
			return lb;
		// w joins the simplex (newest first); v becomes its point nearest
		// the origin.
		for (int i = n; i > 0; --i)
			s[i] = s[i - 1];
		s[0] = (imp_svert3){w, pa, -1, -1};
		n = imp_simplex3_nearest(s, n + 1, kept, l, &v);
		if (n == 4)
			return lb; // the boxes overlap
		for (int i = 0; i < n; ++i)
			s[i] = kept[i];
	}
	return lb;
}

/// imp_obb_gap as the hierarchies' pair key.
static double node_gap(void *ctx, const imp_bvh_obb *a, const imp_bvh_obb *b, double lb, double bound)
{
	(void)ctx;
	return imp_obb_gap(a, b, lb, bound);
}

/// Keeps the convex side's core vertices in the walked side's frame (at
/// `at`) for node_key, when it has few enough.
static void keep_hull(cq *q, const imp_shape *convex, const imp_bvh_xform *at)
{
	q->hull_n = 0;
	const imp_shape3 *s = imp_shape3_of(convex);
	if (q->dim != 3 || s->v == NULL || s->count < 1 || s->count > IMP_KEY_VERTICES)
		return;
	q->hull_n = s->count;
	q->hull_src = s;
	q->hull_at = *at;
	q->hull_moved = false;
}

/// The core vertices keep_hull() named, moved: when a node's key first
/// needs them (a query whose root box the convex side's misses moves none).
static void move_hull(cq *q)
{
	const imp_shape3 *s = q->hull_src;
	const imp_bvh_xform *x = &q->hull_at;
	imp_vec3 c = {0, 0, 0};
	for (int i = 0; i < s->count; ++i) {
		imp_vec3 v = s->v[i];
		q->hull[i] = imp_vec3_make(x->r[0][0] * v.x + x->r[0][1] * v.y + x->r[0][2] * v.z + x->t[0],
					   x->r[1][0] * v.x + x->r[1][1] * v.y + x->r[1][2] * v.z + x->t[1],
					   x->r[2][0] * v.x + x->r[2][1] * v.y + x->r[2][2] * v.z + x->t[2]);
		c = imp_vec3_add(c, q->hull[i]);
	}
	q->hull_c = imp_vec3_scale(1.0 / s->count, c);
	q->hull_radius = s->radius;
	q->hull_moved = true;
}

/// The box of convex shape s in its own frame: from its extreme vertices
/// along the axes for a shape of core vertices (the support vertices its
/// hill climbing starts from), else from its supports.
static imp_status local_box(const imp_shape *shape, imp_box *out)
{
	const imp_shape3 *s = imp_shape3_of(shape);
	if (s->v != NULL && s->count >= 1 &&
	    (s->kind == IMP_SHAPE_POLYTOPE || s->kind == IMP_SHAPE_BOX3 || s->kind == IMP_SHAPE_SPHERE ||
	     s->kind == IMP_SHAPE_CAPSULE3)) {
		for (int k = 0; k < 3; ++k) {
			int32_t hi = s->axis_start[2 * k], lo = s->axis_start[2 * k + 1];
			assert(hi >= 0 && hi < s->count && lo >= 0 && lo < s->count);
			const double *vh = &s->v[hi].x, *vl = &s->v[lo].x;
			out->hi[k] = vh[k] + s->radius;
			out->lo[k] = vl[k] - s->radius;
		}
		return IMP_OK;
	}
	imp_aabb3 a = {{0, 0, 0}, {0, 0, 0}};
	imp_status st = imp_shape3_aabb_unchecked(shape, imp_pose3_identity(), &a);
	*out = (imp_box){{a.lo.x, a.lo.y, a.lo.z}, {a.hi.x, a.hi.y, a.hi.z}};
	return st;
}

/// The oriented box of convex shape s (its own frame's box) moved by `at`
/// into a hierarchy's frame.
static imp_status convex_obb(const imp_shape *s, const imp_bvh_xform *at, imp_bvh_obb *out)
{
	imp_box b;
	imp_status st = local_box(s, &b);
	if (st != IMP_OK)
		return st;
	imp_obb_of_box(&b, at, out);
	return IMP_OK;
}

/// The axis-aligned box of an oriented box (the rounding of its products
/// covered as imp_box_move covers its own).
static void box_of_obb(const imp_bvh_obb *o, imp_box *out)
{
	double m = 0.0;
	for (int i = 0; i < 3; ++i) {
		double r = o->e[0] * fabs(o->ax[0][i]) + o->e[1] * fabs(o->ax[1][i]) + o->e[2] * fabs(o->ax[2][i]);
		out->lo[i] = o->c[i] - r;
		out->hi[i] = o->c[i] + r;
		m = imp_max(m, fabs(o->c[i]) + r);
	}
	double pad = 8.0 * DBL_EPSILON * m;
	for (int i = 0; i < 3; ++i) {
		out->lo[i] -= pad;
		out->hi[i] += pad;
	}
}

/// Whether the roots' oriented boxes of a and b (b_in_a) are apart along
/// the line through their centres: b's centre moved, the projections of
/// b's axes taken in b's frame, no box moved (a far pair of meshes costs
/// the query's set-up and this).
static bool roots_apart(const imp_bvh *a, const imp_bvh *b, const imp_bvh_xform *x)
{
	const imp_bvh_obb *A = &a->obb[0], *B = &b->obb[0];
	double d[3], db[3];
	for (int i = 0; i < 3; ++i)
		d[i] = x->r[i][0] * B->c[0] + x->r[i][1] * B->c[1] + x->r[i][2] * B->c[2] + x->t[i] - A->c[i];
	for (int j = 0; j < 3; ++j)
		db[j] = x->r[0][j] * d[0] + x->r[1][j] * d[1] + x->r[2][j] * d[2]; // d in b's frame
	double dd = d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
	if (!(dd > 0x1p-900 && dd < 0x1p900))
		return false;
	double reach = 0.0, size = 0.0;
	for (int i = 0; i < 3; ++i) {
		reach += A->e[i] * fabs(d[0] * A->ax[i][0] + d[1] * A->ax[i][1] + d[2] * A->ax[i][2]);
		reach += B->e[i] * fabs(db[0] * B->ax[i][0] + db[1] * B->ax[i][1] + db[2] * B->ax[i][2]);
		size += A->e[i] + B->e[i] + fabs(A->c[i]) + fabs(B->c[i]) + fabs(x->t[i]);
	}
	// Rounding of the move and the products: 1e-12 of the scene.
	return sqrt(dd) - reach / sqrt(dd) > 1e-12 * size;
}

/// Walks the hierarchies: Level 1 by the overlap of boxes, Levels 2 and 3
/// branch and bound from q->best. Meshes and height fields in 3D walk by
/// their oriented boxes.
static imp_status walk(cq *q)
{
	const imp_bvh *tree;
	imp_box box;
	imp_bvh_obb obb;
	imp_bvh_xform x;
	bool both = q->ca != NULL && q->cb != NULL, oriented;
	if (both) {
		tree = &q->ca->bvh;
		x = q->dim == 2 ? xform2(q->pa2, q->pb2) : rel_xform3(q);
		oriented = tree->obb != NULL && q->cb->bvh.obb != NULL;
	} else {
		// The convex side's box in the other's frame.
		q->swapped = q->ca == NULL;
		const imp_shape *convex = q->swapped ? q->a : q->b;
		tree = q->swapped ? &q->cb->bvh : &q->ca->bvh;
		imp_pose2 at2 = {{0, 0}, {1, 0}};
		imp_pose3 at3 = imp_pose3_identity();
		if (q->dim == 2)
			at2 = q->swapped ? relative2(q->pb2, q->pa2) : relative2(q->pa2, q->pb2);
		else
			at3 = q->swapped ? inverse3(q) : q->rel3;
		oriented = tree->obb != NULL;
		imp_bvh_xform cx = {{{1, 0, 0}, {0, 1, 0}, {0, 0, 1}}, {0, 0, 0}};
		if (q->dim == 3) {
			cx = convex_xform3(q);
			// Level 1 keeps small cores only (spheres, capsules,
			// boxes): moving many vertices costs more than a quick
			// answer saves.
			if (q->level >= 2 || imp_shape3_of(convex)->count <= 8)
				keep_hull(q, convex, &cx);
		}
		imp_status st = IMP_OK;
		if (!oriented)
			st = convex_box(q, convex, &at2, &at3, &box);
		else if (q->hull_n != 1) {
			// The oriented box, and its axis-aligned box; a point core
			// (a sphere) has neither: its key is exact.
			st = convex_obb(convex, &cx, &obb);
			box_of_obb(&obb, &box);
		}
		if (st != IMP_OK) {
			q->degenerate = true; // a user support that is not finite
			return IMP_OK;
		}
	}
	if (q->level == 1) {
		if (both && oriented && roots_apart(tree, &q->cb->bvh, &x))
			return IMP_OK;
		if (both)
			imp_bvh_pairs(tree, &q->cb->bvh, &x, pair_fn, q);
		else if (oriented)
			// A sphere's key is exact for a box (no other test is
			// asked); other cores' keys come before the fifteen axes,
			// which they cost less than.
			imp_bvh_query_obb(tree, q->hull_n == 1 ? NULL : &box, q->hull_n == 1 ? NULL : &obb,
					  q->hull_n > 0 ? node_key_obb : NULL, q, item_fn, q);
		else
			imp_bvh_query(tree, &box, item_fn, q);
		return q->st;
	}
	double bound = search_bound(q);
	if (oriented)
		imp_bvh_nearest_obb(tree, both ? &q->cb->bvh : NULL, both ? &x : NULL, q->hull_n == 1 ? NULL : &box,
				    q->hull_n == 1 ? NULL : &obb,
				    q->hull_n > 0 ? node_key_obb : NULL, node_gap, q, bound, bound_fn, q);
	else
		imp_bvh_nearest_keyed(tree, both ? &q->cb->bvh : NULL, both ? &x : NULL, both ? NULL : &box,
				      q->hull_n > 0 ? node_key : NULL, q, bound, bound_fn, q);
	return q->st;
}

// ---------------------------------------------------------------------------
// The cache.

/// The child pair the cache names for this pair of shapes, if it names
/// one that exists: a non-convex side's child is 1 + its index, a convex
/// side's 0.
static bool cached_pair(const cq *q, const imp_simplex_cache *cache, int32_t *ia, int32_t *ib)
{
	if (cache == NULL || cache->count == 0 || cache->dim != q->dim)
		return false;
	int32_t a = cache->child_a - 1, b = cache->child_b - 1;
	bool ok_a = q->ca != NULL ? a >= 0 && a < q->ca->count : a == -1;
	bool ok_b = q->cb != NULL ? b >= 0 && b < q->cb->count : b == -1;
	if (!ok_a || !ok_b)
		return false;
	*ia = a;
	*ib = b;
	return true;
}

static void write_cache(const cq *q, imp_simplex_cache *cache)
{
	if (cache == NULL || !q->any)
		return;
	*cache = q->best_cache;
	cache->child_a = q->best_a + 1;
	cache->child_b = q->best_b + 1;
}

/// Sets up a query; IMP_OK or why the arguments are refused.
static imp_status begin(cq *q, int dim, int level, const imp_shape *a, const imp_shape *b,
			const imp_query_options *o)
{
	memset(q, 0, offsetof(cq, pa2));
	q->memo_ia = q->memo_ib = -2;
	q->dim = dim;
	q->level = level;
	q->a = a;
	q->b = b;
	q->o = o == NULL ? &imp_default_options : o;
	q->done_a = q->done_b = -2;
	q->best = INFINITY;
	imp_status st = imp_shape_check(a, dim);
	if (st == IMP_OK)
		st = imp_shape_check(b, dim);
	if (st == IMP_OK && q->o != &imp_default_options && !imp_options_valid(q->o))
		st = IMP_ERR_BAD_OPTIONS;
	if (st != IMP_OK)
		return st;
	q->ca = imp_kind_is_composite(a->kind) ? imp_composite_of(a) : NULL;
	q->cb = imp_kind_is_composite(b->kind) ? imp_composite_of(b) : NULL;
	return IMP_OK;
}

/// The cached pair first (its answer bounds the rest), then the walk.
static imp_status run(cq *q, imp_simplex_cache *cache)
{
	int32_t ia, ib;
	if (cached_pair(q, cache, &ia, &ib)) {
		q->done_a = ia;
		q->done_b = ib;
		if (!visit(q, ia, ib, cache) || q->st != IMP_OK)
			goto done;
	}
	imp_status st = walk(q);
	if (st != IMP_OK)
		return st;
done:
	if (q->st != IMP_OK)
		return q->st;
	if (!q->degenerate)
		write_cache(q, cache);
	return IMP_OK;
}

// ---------------------------------------------------------------------------
// The entry points.

/// begin() and the poses' check, for a query of either dimension (the
/// other dimension's poses are ignored).
static imp_status begin_posed(cq *q, int dim, int level, const imp_shape *a, const imp_pose2 *a2, const imp_pose3 *a3,
			      const imp_shape *b, const imp_pose2 *b2, const imp_pose3 *b3, const imp_query_options *o)
{
	imp_status st = begin(q, dim, level, a, b, o);
	if (st == IMP_OK)
		st = dim == 2 ? imp_pose2_status(*a2) : imp_pose3_status(*a3);
	if (st == IMP_OK)
		st = dim == 2 ? imp_pose2_status(*b2) : imp_pose3_status(*b3);
	if (st != IMP_OK)
		return st;
	if (dim == 2) {
		q->pa2 = *a2;
		q->pb2 = *b2;
		q->rel2 = relative2(*a2, *b2);
	} else {
		q->pa3 = *a3;
		q->pb3 = *b3;
		q->rel3 = relative3(*a3, *b3);
		q->rel_r = imp_mat3_from_quat(q->rel3.q);
		q->cornered = cornered(q);
	}
	return IMP_OK;
}

bool imp_composite_overlap3(const imp_shape *a, imp_pose3 pa, const imp_shape *b, imp_pose3 pb,
			    imp_simplex_cache *cache, const imp_query_options *options)
{
	cq q;
	if (begin_posed(&q, 3, 1, a, NULL, &pa, b, NULL, &pb, options) != IMP_OK)
		return false;
	return run(&q, cache) == IMP_OK && q.hit;
}

bool imp_composite_overlap2(const imp_shape *a, imp_pose2 pa, const imp_shape *b, imp_pose2 pb,
			    imp_simplex_cache *cache, const imp_query_options *options)
{
	cq q;
	if (begin_posed(&q, 2, 1, a, &pa, NULL, b, &pb, NULL, options) != IMP_OK)
		return false;
	return run(&q, cache) == IMP_OK && q.hit;
}

/// Level 2's answer: the distance, its iterations and state.
static double distance_answer(cq *q, imp_simplex_cache *cache, int *iterations, imp_query_state *state)
{
	if (run(q, cache) != IMP_OK)
		return NAN;
	if (iterations != NULL)
		*iterations = q->iterations;
	if (q->degenerate) {
		if (state != NULL)
			*state = IMP_STATE_DEGENERATE;
		return NAN;
	}
	if (state != NULL)
		*state = q->best_state;
	return q->best;
}

double imp_composite_distance3(const imp_shape *a, imp_pose3 pa, const imp_shape *b, imp_pose3 pb,
			       imp_simplex_cache *cache, const imp_query_options *options, int *iterations,
			       imp_query_state *state)
{
	cq q;
	if (begin_posed(&q, 3, 2, a, NULL, &pa, b, NULL, &pb, options) != IMP_OK)
		return NAN;
	return distance_answer(&q, cache, iterations, state);
}

double imp_composite_distance2(const imp_shape *a, imp_pose2 pa, const imp_shape *b, imp_pose2 pb,
			       imp_simplex_cache *cache, const imp_query_options *options, int *iterations,
			       imp_query_state *state)
{
	cq q;
	if (begin_posed(&q, 2, 2, a, &pa, NULL, b, &pb, NULL, options) != IMP_OK)
		return NAN;
	return distance_answer(&q, cache, iterations, state);
}

/// Level 3's answer: the best pair's, with the iterations of every pair,
/// or a degenerate one (no field valid) when a user child's support was
/// not finite. The fields common to both dimensions through pointers.
static void closest_common(const cq *q, double *distance, imp_feature *fa, imp_feature *fb, int *ca, int *cb,
			   int *iterations, int *epa_iterations, imp_query_state *state)
{
	if (q->degenerate || !q->any) {
		*distance = NAN;
		*fa = *fb = (imp_feature){IMP_FEATURE_NONE, -1};
		*ca = *cb = -1;
		*state = IMP_STATE_DEGENERATE;
	}
	*iterations = q->iterations;
	*epa_iterations = q->epa_iterations;
}

/// Level 3's answer of a query that has run, in the world frame.
static void closest_out3(const cq *q, imp_pose3 pa, imp_closest3_result *out)
{
	imp_closest3_result r = q->degenerate || !q->any ? (imp_closest3_result){.distance = NAN} : q->r3;
	if (!q->degenerate && q->any) {
		// From a's frame into the world.
		imp_mat3 m = imp_pose3_matrix(pa);
		r.point_a = imp_vec3_add(imp_mat3_apply(&m, r.point_a), pa.p);
		r.point_b = imp_vec3_add(imp_mat3_apply(&m, r.point_b), pa.p);
		r.normal = imp_mat3_apply(&m, r.normal);
	}
	closest_common(q, &r.distance, &r.feature_a, &r.feature_b, &r.child_a, &r.child_b, &r.iterations,
		       &r.epa_iterations, &r.state);
	*out = r;
}

imp_status imp_composite_closest3(const imp_shape *a, imp_pose3 pa, const imp_shape *b, imp_pose3 pb,
				  imp_simplex_cache *cache, const imp_query_options *options, imp_closest3_result *out,
				  int *pairs)
{
	cq q;
	imp_status st = begin_posed(&q, 3, 3, a, NULL, &pa, b, NULL, &pb, options);
	if (st == IMP_OK)
		st = run(&q, cache);
	if (pairs != NULL)
		*pairs = st == IMP_OK ? q.pairs : 0;
	if (st == IMP_OK)
		closest_out3(&q, pa, out);
	return st;
}

/// Level 3's answer of a query that has run, in the world frame: 2D.
static void closest_out2(const cq *q, imp_pose2 pa, imp_closest2_result *out)
{
	imp_closest2_result r = q->degenerate || !q->any ? (imp_closest2_result){.distance = NAN} : q->r2;
	if (!q->degenerate && q->any) {
		// From a's frame into the world.
		imp_pose2 u = unit_pose2(pa);
		r.point_a = imp_pose2_apply(u, r.point_a);
		r.point_b = imp_pose2_apply(u, r.point_b);
		r.normal = imp_rot2_apply(u.q, r.normal);
	}
	closest_common(q, &r.distance, &r.feature_a, &r.feature_b, &r.child_a, &r.child_b, &r.iterations,
		       &r.epa_iterations, &r.state);
	*out = r;
}

imp_status imp_composite_closest2(const imp_shape *a, imp_pose2 pa, const imp_shape *b, imp_pose2 pb,
				  imp_simplex_cache *cache, const imp_query_options *options, imp_closest2_result *out,
				  int *pairs)
{
	cq q;
	imp_status st = begin_posed(&q, 2, 3, a, &pa, NULL, b, &pb, NULL, options);
	if (st == IMP_OK)
		st = run(&q, cache);
	if (pairs != NULL)
		*pairs = st == IMP_OK ? q.pairs : 0;
	if (st == IMP_OK)
		closest_out2(&q, pa, out);
	return st;
}

/// Level 5 after Level 3 has run on q: among the pairs of children within
/// tol (when the closest is), the one whose witnesses approach fastest.
static void contact_run(cq *q, double tol, imp_vec3 va, imp_vec3 wa, imp_vec3 vb, imp_vec3 wb)
{
	if (q->degenerate || !q->any || !(q->best <= tol))
		return;
	q->level = 5;
	q->con_tol = tol;
	q->con_va = va;
	q->con_wa = wa;
	q->con_vb = vb;
	q->con_wb = wb;
	q->con_speed = 0.0; // a pair kept must approach
	q->done_a = q->done_b = -2;
	(void)walk(q);
}

imp_status imp_composite_contact3(const imp_shape *a, imp_pose3 pa, imp_vec3 va, imp_vec3 wa, const imp_shape *b,
				  imp_pose3 pb, imp_vec3 vb, imp_vec3 wb, double tol, imp_simplex_cache *cache,
				  imp_closest3_result *out, double *least, int *pairs)
{
	cq q;
	*pairs = 0;
	imp_status st = begin_posed(&q, 3, 3, a, NULL, &pa, b, NULL, &pb, NULL);
	if (st == IMP_OK)
		st = run(&q, cache);
	*pairs = q.pairs;
	if (st != IMP_OK)
		return st;
	*least = q.best;
	imp_mat3 m = imp_pose3_matrix(pa);
	contact_run(&q, tol, imp_mat3_apply_t(&m, va), imp_mat3_apply_t(&m, wa), imp_mat3_apply_t(&m, vb),
		    imp_mat3_apply_t(&m, wb));
	*pairs = q.pairs;
	if (q.st != IMP_OK)
		return q.st;
	closest_out3(&q, pa, out);
	return IMP_OK;
}

imp_status imp_composite_contact2(const imp_shape *a, imp_pose2 pa, imp_vec2 va, double wa, const imp_shape *b,
				  imp_pose2 pb, imp_vec2 vb, double wb, double tol, imp_simplex_cache *cache,
				  imp_closest2_result *out, double *least, int *pairs)
{
	cq q;
	*pairs = 0;
	imp_status st = begin_posed(&q, 2, 3, a, &pa, NULL, b, &pb, NULL, NULL);
	if (st == IMP_OK)
		st = run(&q, cache);
	*pairs = q.pairs;
	if (st != IMP_OK)
		return st;
	*least = q.best;
	imp_rot2 r = unit_pose2(pa).q;
	imp_vec2 la = imp_rot2_apply_inv(r, va), lb = imp_rot2_apply_inv(r, vb);
	contact_run(&q, tol, imp_vec3_make(la.x, la.y, 0.0), imp_vec3_make(0.0, 0.0, wa), imp_vec3_make(lb.x, lb.y, 0.0),
		    imp_vec3_make(0.0, 0.0, wb));
	*pairs = q.pairs;
	if (q.st != IMP_OK)
		return q.st;
	closest_out2(&q, pa, out);
	return IMP_OK;
}

/// Level 4 set up from the motion's parts and run; the time or NaN.
static double advance_run(cq *q, imp_vec3 dv_local, double spin, double level, double tol, int *pairs)
{
	q->adv_level = level;
	q->adv_tol = tol;
	q->adv_spin = spin;
	q->adv_dv = dv_local;
	q->adv_speed = imp_vec3_length(dv_local) + spin;
	q->adv_t = INFINITY;
	q->adv_bound = INFINITY;
	imp_status st = run(q, NULL);
	if (pairs != NULL)
		*pairs = q->pairs;
	if (st != IMP_OK || q->degenerate)
		return NAN;
	return q->adv_t;
}

double imp_composite_advance3(const imp_shape *a, imp_pose3 pa, const imp_shape *b, imp_pose3 pb, imp_vec3 dv,
			      double spin, double level, double tol, int *pairs)
{
	cq q;
	if (pairs != NULL)
		*pairs = 0;
	if (begin_posed(&q, 3, 4, a, NULL, &pa, b, NULL, &pb, NULL) != IMP_OK)
		return NAN;
	imp_mat3 m = imp_pose3_matrix(pa);
	return advance_run(&q, imp_mat3_apply_t(&m, dv), spin, level, tol, pairs);
}

double imp_composite_advance2(const imp_shape *a, imp_pose2 pa, const imp_shape *b, imp_pose2 pb, imp_vec2 dv,
			      double spin, double level, double tol, int *pairs)
{
	cq q;
	if (pairs != NULL)
		*pairs = 0;
	if (begin_posed(&q, 2, 4, a, &pa, NULL, b, &pb, NULL, NULL) != IMP_OK)
		return NAN;
	imp_vec2 l = imp_rot2_apply_inv(unit_pose2(pa).q, dv);
	return advance_run(&q, imp_vec3_make(l.x, l.y, 0.0), spin, level, tol, pairs);
}
