// SPDX-License-Identifier: MIT
// The planner queries: a shape at a pose (or moving between two poses)
// against the bodies of the world, and the world's own clearance
// (docs/queries.md).
//
// Candidates come from the broad phase's query tree (broad/tree.c): the
// bodies whose boxes meet a search box, or, for the nearest query, the
// boxes best first by a lower bound on the signed distance. The bodies
// whose pose changed since the last update in a way the broad phase does
// not hold yet (new bodies, and bodies whose box left their enlarged box:
// the moved list has them all) are added directly. Candidate sets and
// answers go into memory of the query's own (queries may run on several
// threads at once): the caller's stack, and the world's allocator only past
// that. The lower bounds:
//   boxes apart: the Euclidean gap between them;
//   boxes overlapping: minus the smallest overlap along an axis, since
//   moving one shape by that much along that axis separates the boxes and
//   so the shapes: no penetration is deeper. (A bound of 0 there, which
//   FCL's pruning used, skips deeper penetrations: FCL #403.)
//   the balls of the shapes' reach about their origins: |c_a - c_b| - r_a - r_b.
// Distance queries take candidates in order of the bound and stop when it
// passes the best distance found, or the callback's bound, widened by the
// rounding the bounds carry (widen).
#include <float.h>
#include <math.h>
#include <string.h>

#include "broad/tree.h"
#include "core/alloc.h"
#include "core/sort.h"
#include "narrow/toi_internal.h"
#include "shape/composite.h"
#include "shape/shape3_internal.h"
#include "shape/shape_internal.h"
#include "world/world_internal.h"

imp_query_filter imp_default_query_filter(void)
{
	imp_query_filter f;
	memset(&f, 0, sizeof f);
	f.filter = imp_default_filter();
	return f;
}

/// A query shape at its pose, with what the query sees.
typedef struct qshape {
	const imp_shape *shape;
	imp_pose2 p2;
	imp_pose3 p3;
	imp_box box;          ///< the shape's box at the pose
	double reach;         ///< its largest distance from its origin (imp_shape_reach; INFINITY: not known)
	double slack;         ///< what rounding can take off a lower bound near it (see widen)
	imp_filter filter;
	int32_t ignore;       ///< a slot, or -1
	int32_t pair_slot;    ///< clearance: the body whose pairs are looked for, or -1
	/// A 3D box (box_verdict): its rotation (of the unit quaternion), half
	/// sizes and rounding radius. False for every other shape.
	bool obb;
	imp_mat3 rot;
	imp_vec3 half;
	double round;
} qshape;

/* ---- checks ---- */

static imp_status check_world(const imp_world *w)
{
	if (w == NULL)
		return IMP_ERR_NULL_ARGUMENT;
	return w->busy ? IMP_ERR_BUSY : IMP_OK;
}

/// A public query counts itself among the world's readers from start to
/// end: the user's callbacks, and the support callbacks of user shapes,
/// cannot change the world while it runs (imp_world_busy), on this thread
/// or another. Queries themselves write nothing of the world's: any number
/// run at once, on any threads, nested in each other's callbacks too.
/// Refused inside the step's callback, where the world is mid-change.
#define GUARDED(w, call)                                                                                     \
	do {                                                                                                 \
		imp_status guard_st = check_world(w);                                                        \
		if (guard_st != IMP_OK)                                                                      \
			return guard_st;                                                                     \
		imp_world *guard_w = (imp_world *)(w); /* the count of readers only */                       \
		atomic_fetch_add_explicit(&guard_w->readers, 1, memory_order_acq_rel);                      \
		guard_st = (call);                                                                           \
		atomic_fetch_sub_explicit(&guard_w->readers, 1, memory_order_acq_rel);                      \
		return guard_st;                                                                             \
	} while (0)

static imp_status check_filter(const imp_world *w, const imp_query_filter *f, qshape *q)
{
	q->ignore = -1;
	q->pair_slot = -1;
	if (f == NULL) {
		q->filter = imp_default_filter();
		return IMP_OK;
	}
	q->filter = f->filter;
	if (f->ignore.index != 0 || f->ignore.generation != 0 || f->ignore.world != 0) {
		q->ignore = imp_world_slot_of(w, f->ignore);
		if (q->ignore < 0)
			return IMP_ERR_BAD_ID;
	}
	return IMP_OK;
}

/// A second lower bound on the signed distance, from the balls of the two
/// shapes' reach about their origins: |c_a - c_b| - r_a - r_b. Apart, the
/// shapes lie in the balls; overlapping, moving one that far along the line
/// of centres separates the balls and so the shapes. Rotated boxes overlap
/// as boxes where their balls are apart: this bound then spares the narrow
/// phase. A body's reach is the one the world keeps in its motion record.
static double reach_bound(const imp_world *w, const qshape *q, int32_t s)
{
	const body *b = &w->bodies[s];
	double r = q->reach + w->motions[s].reach;
	if (!(r < INFINITY))
		return -INFINITY;
	imp_vec3 d = w->dim == 2 ? imp_vec3_make(b->pose2.p.x - q->p2.p.x, b->pose2.p.y - q->p2.p.y, 0.0)
				 : imp_vec3_sub(b->pose3.p, q->p3.p);
	return sqrt(imp_vec3_dot(d, d)) - r;
}

/// The rounding a box-or-ball lower bound near a box can carry: boxes are
/// positions plus relative boxes, rounded, and the bounds differences and
/// square roots of them, so a bound can come out a few ulps of the
/// coordinates above the distance the narrow phase gives (a touching pair
/// then pruned at max_distance 0). Bounds are compared with the bound
/// widened by this (widen), never with the bound itself.
static double box_slack(const imp_box *b)
{
	double m = 0.0;
	for (int k = 0; k < 3; k++) // finite boxes: imp_max is fmax, without its call
		m = imp_max(m, imp_max(fabs(b->lo[k]), fabs(b->hi[k])));
	return 64.0 * DBL_EPSILON * m;
}

/// A bound widened by the rounding of the bounds compared with it: the
/// query's slack, and the rounding of the bound's own size.
static double widen(const qshape *q, double bound)
{
	return bound + (q->slack + 64.0 * DBL_EPSILON * fabs(bound));
}

/// Everything a shape query checks, in the order of the header's list;
/// out_given: the query's callback or result pointer is not NULL.
static imp_status begin(const imp_world *w, int dim, const imp_shape *shape, const imp_pose2 *p2,
			const imp_pose3 *p3, const imp_query_filter *filter, bool out_given, qshape *q)
{
	imp_status st = IMP_OK;
	if (shape == NULL || !out_given)
		return IMP_ERR_NULL_ARGUMENT;
	if (dim != w->dim)
		return IMP_ERR_DIMENSION_MISMATCH;
	st = imp_shape_check(shape, dim);
	if (st != IMP_OK)
		return st;
	st = dim == 2 ? imp_pose2_status(*p2) : imp_pose3_status(*p3);
	if (st != IMP_OK)
		return st;
	q->shape = shape;
	if (dim == 2)
		q->p2 = *p2;
	else
		q->p3 = *p3;
	q->obb = dim == 3 && !imp_shape_is_composite(shape) && shape->kind == IMP_SHAPE_BOX3;
	if (q->obb) {
		// imp_world_shape_box's box (the same steps, so the same bits)
		// from the turn the verdict keeps.
		const imp_shape3 *s3 = imp_shape3_of(shape);
		q->rot = imp_pose3_matrix(*p3);
		q->half = s3->size;
		q->round = s3->radius;
		imp_aabb3 a;
		(void)imp_shape3_aabb_rel_m(shape, q->rot, &a); // a box: no supports to fail
		imp_box rel = {{a.lo.x, a.lo.y, a.lo.z}, {a.hi.x, a.hi.y, a.hi.z}};
		st = place_grown(w, &rel, p2, p3, 0.0, &q->box);
	} else {
		st = imp_world_shape_box(w, shape, p2, p3, &q->box);
	}
	if (st != IMP_OK)
		return st;
	q->reach = imp_shape_reach(shape);
	q->slack = box_slack(&q->box);
	return check_filter(w, filter, q);
}

/* ---- candidates ---- */

static imp_box inflate(const imp_box *b, double r, int dim)
{
	imp_box o = *b;
	for (int k = 0; k < dim; k++) {
		o.lo[k] -= r;
		o.hi[k] += r;
	}
	return o;
}

#define GATHER_LOCAL 64

/// A query's candidates, in memory of its own (queries may run on several
/// threads at once): on the caller's stack first, grown from the world's
/// allocator past that; with the traversal memory of the broad phase's
/// tree. gather_init before use, gather_free after; not to be copied.
typedef struct gather {
	const imp_world *w;
	const qshape *q;
	imp_box search;
	int32_t count;   ///< candidates stored
	int32_t seen;    ///< bodies whose box meets the search box, seen by the query or not
	bool oom;
	query_item *items; ///< count of them
	int32_t cap;
	imp_tree_scratch ts;
	query_item local[GATHER_LOCAL];
} gather;

static void gather_init(gather *g, const imp_world *w, const qshape *q)
{
	g->w = w;
	g->q = q;
	g->count = g->seen = 0;
	g->oom = false;
	g->items = g->local;
	g->cap = GATHER_LOCAL;
	imp_tree_scratch_init(&g->ts, &w->alloc);
}

static void gather_free(gather *g)
{
	if (g->items != g->local)
		imp_free(&g->w->alloc, g->items, (size_t)g->cap * sizeof *g->items);
	imp_tree_scratch_free(&g->ts);
}

/// Answers held on the stack (6 KB): room is made for every candidate up
/// front, and "all within 1.0" in bench/queries (3D) outgrew 16 in a few
/// queries of every hundred, each paying an allocation; 64, in none of
/// 20,000.
#define RESULTS_LOCAL 64

/// Answers found and not yet delivered (a heap), in memory of the query's
/// own, as the candidates.
typedef struct results {
	const imp_allocator *alloc;
	imp_query_result *items;
	int32_t cap;
	imp_query_result local[RESULTS_LOCAL];
} results;

static void results_init(results *r, const imp_world *w)
{
	r->alloc = &w->alloc;
	r->items = r->local;
	r->cap = RESULTS_LOCAL;
}

static void results_free(results *r)
{
	if (r->items != r->local)
		imp_free(r->alloc, r->items, (size_t)r->cap * sizeof *r->items);
}

/// Room for `need` answers (none kept: called before the first); false
/// when out of memory.
static bool results_room(results *r, int32_t need)
{
	return imp_grow_from(r->alloc, (void **)&r->items, &r->cap, r->local, need, 0, sizeof *r->items);
}

/// Room for `need` candidates; false when out of memory.
static bool gather_room(gather *g, int32_t need)
{
	return imp_grow_from(&g->w->alloc, (void **)&g->items, &g->cap, g->local, need, g->count, sizeof *g->items);
}

/// Whether the query sees body s at all.
static bool visible(const imp_world *w, const qshape *q, int32_t s)
{
	const body *b = &w->bodies[s];
	if (q->pair_slot >= 0) {
		const body *a = &w->bodies[q->pair_slot];
		return s > q->pair_slot && !(a->type == IMP_BODY_STATIC && b->type == IMP_BODY_STATIC) &&
		       imp_filter_should_pair(a->filter, b->filter);
	}
	return s != q->ignore && imp_filter_should_pair(q->filter, b->filter);
}

static bool gather_add(gather *g, int32_t s)
{
	const imp_world *w = g->w;
	const body *b = &w->bodies[s];
	if (!imp_box_overlap(&b->tight, &g->search, w->dim))
		return true;
	g->seen++;
	if (!visible(w, g->q, s))
		return true;
	if (!gather_room(g, g->count + 1)) {
		g->oom = true;
		return false;
	}
	g->items[g->count++] = (query_item){imp_box_bound(&g->q->box, &b->tight, w->dim), s, 0};
	return true;
}

/// True when the broad phase holds body s where it is now.
static bool broad_current(const body *b)
{
	return b->in_broad && b->inside;
}

static bool gather_broad(void *ctx, int32_t s)
{
	gather *g = ctx;
	if (!broad_current(&g->w->bodies[s]))
		return true; // taken from the moved list
	return gather_add(g, s);
}

/// Every body the query sees whose box meets `search`, into g (made by
/// gather_init; its candidates before replaced).
static imp_status gather_all(const imp_world *w, const qshape *q, const imp_box *search, gather *g)
{
	g->q = q;
	g->search = *search;
	g->count = g->seen = 0;
	g->oom = false;
	if (!imp_broad_query(w->broad, search, gather_broad, g, &g->ts) && g->ts.oom)
		g->oom = true;
	// A slot is listed once (a body added in a removed body's slot takes
	// its entry over: body.c).
	for (int32_t i = 0; i < w->moved_count && !g->oom; i++) {
		int32_t s = w->moved[i];
		const body *b = &w->bodies[s];
		if (b->alive && !broad_current(b))
			gather_add(g, s);
	}
	return g->oom ? IMP_ERR_OUT_OF_MEMORY : IMP_OK;
}

#define ITEM_BY_SLOT(x, y) ((x).slot < (y).slot)
IMP_DEFINE_SORT(sort_by_slot, query_item, ITEM_BY_SLOT)
#define ITEM_BY_BOUND(x, y) ((x).lb < (y).lb || ((x).lb == (y).lb && (x).slot < (y).slot))
IMP_DEFINE_SORT(sort_by_bound, query_item, ITEM_BY_BOUND)

/* ---- the narrow phase ---- */

static imp_vec3 v3(imp_vec2 v)
{
	return imp_vec3_make(v.x, v.y, 0.0);
}

/// The radius of a ball about the origin of a convex 3D shape that lies in
/// it: a sphere about its origin, a box, a capsule whose segment the
/// origin halves; -inf for every other shape (none known).
static double inner_radius(const imp_shape3 *s)
{
	if (s->kind == IMP_SHAPE_BOX3)
		return imp_min(imp_min(s->size.x, s->size.y), s->size.z) + s->radius;
	if (s->v == NULL)
		return -INFINITY;
	imp_vec3 a = s->v[0], b = s->v[s->count - 1];
	if ((s->count == 1 || s->count == 2) && a.x == -b.x && a.y == -b.y && a.z == -b.z)
		return s->radius;
	return -INFINITY;
}

/// The distance from the point c to the box [-h, h] (in the box's frame),
/// grown on each axis by g: the square root of the sum of the squared gaps.
static double box_gap(imp_vec3 c, imp_vec3 h, imp_vec3 g)
{
	double ex = imp_max(fabs(c.x) - h.x - g.x, 0.0), ey = imp_max(fabs(c.y) - h.y - g.y, 0.0),
	       ez = imp_max(fabs(c.z) - h.z - g.z, 0.0);
	return sqrt(ex * ex + ey * ey + ez * ez);
}

/// m^T v.
static imp_vec3 mat3_apply_t(const imp_mat3 *m, imp_vec3 v)
{
	const double(*a)[3] = m->m;
	return imp_vec3_make(a[0][0] * v.x + a[1][0] * v.y + a[2][0] * v.z, a[0][1] * v.x + a[1][1] * v.y + a[2][1] * v.z,
			     a[0][2] * v.x + a[1][2] * v.y + a[2][2] * v.z);
}

/// Whether the point x lies in the box [-h, h] rounded by r, by more than
/// band.
static bool box_holds(imp_vec3 x, imp_vec3 h, double r, double band)
{
	double deepest = imp_max(imp_max(fabs(x.x) - h.x, fabs(x.y) - h.y), fabs(x.z) - h.z);
	return deepest < -band || box_gap(x, h, imp_vec3_make(0.0, 0.0, 0.0)) < r - band;
}

/// v clamped to the box [-h, h].
static imp_vec3 box_clamp(imp_vec3 v, imp_vec3 h)
{
	return imp_vec3_make(imp_max(-h.x, imp_min(v.x, h.x)), imp_max(-h.y, imp_min(v.y, h.y)),
			     imp_max(-h.z, imp_min(v.z, h.z)));
}

/// a^T b.
static imp_mat3 mat3_mul_t(const imp_mat3 *a, const imp_mat3 *b)
{
	imp_mat3 o;
	for (int i = 0; i < 3; i++)
		for (int j = 0; j < 3; j++)
			o.m[i][j] = a->m[0][i] * b->m[0][j] + a->m[1][i] * b->m[1][j] + a->m[2][i] * b->m[2][j];
	return o;
}

/// |m|^T v (imp_mat3_abs_apply the other way): the half sizes along the
/// axes of m's frame of a box of half sizes v along the turned axes.
static imp_vec3 mat3_abs_apply_t(const imp_mat3 *m, imp_vec3 v)
{
	const double(*a)[3] = m->m;
	return imp_vec3_make(fabs(a[0][0]) * v.x + fabs(a[1][0]) * v.y + fabs(a[2][0]) * v.z,
			     fabs(a[0][1]) * v.x + fabs(a[1][1]) * v.y + fabs(a[2][1]) * v.z,
			     fabs(a[0][2]) * v.x + fabs(a[1][2]) * v.y + fabs(a[2][2]) * v.z);
}

/// A 3D box query against body s, before the narrow phase. First from the
/// body's origin alone: the distance e from it to the query's core box, in
/// the box's frame, against the radii of two balls about the origin, one
/// holding the body (its reach) and one inside it (inner_radius): apart
/// when e passes the outer ball's radius plus the query's rounding,
/// overlapping when e stays inside the inner one's. A sphere about its
/// origin is both balls: decided but for touching. Then, for a box or a
/// capsule the origin halves, from the body's turn: the gaps between the
/// two as boxes along the query's axes (a capsule: its segment's box) and,
/// for a box, along its own, and the capsule's ends, or the query's
/// origin in the box. Each comparison keeps a band of the query's slack
/// and 2^-30 of the sizes (far above the rounding): what falls in it goes
/// to the narrow phase. 1: overlap, 0: apart, -1: not decided. Not for
/// sizes whose squares would lose their digits (below 2^-300).
static int box_verdict(const imp_world *w, const qshape *q, int32_t s)
{
	const body *b = &w->bodies[s];
	if (imp_shape_is_composite(b->shape))
		return -1;
	const imp_shape3 *sh = imp_shape3_of(b->shape);
	// The body's reach (motion.reach, imp_shape_reach) from the shape in
	// hand, its bound radius but for a user shape: one cache line fewer a
	// candidate, which the large worlds wait for.
	double outer = sh->kind == IMP_SHAPE_USER3 ? w->motions[s].reach : sh->bound_radius;
	double inner = inner_radius(sh);
	if (sh->count == 1 && inner >= 0.0)
		outer = inner; // a sphere about its origin
	if (!(outer > 0x1p-300))
		return -1;
	imp_vec3 d = imp_vec3_sub(b->pose3.p, q->p3.p);
	imp_vec3 c = mat3_apply_t(&q->rot, d), zero = imp_vec3_make(0.0, 0.0, 0.0);
	double e = box_gap(c, q->half, zero);
	double band = q->slack + 0x1p-30 * (fabs(d.x) + fabs(d.y) + fabs(d.z) + outer + q->reach);
	if (e > outer + q->round + band)
		return 0;
	if (e < inner + q->round - band)
		return 1;
	bool box = sh->kind == IMP_SHAPE_BOX3;
	if (!box && !(sh->count == 2 && inner >= 0.0))
		return -1;
	// The body's turn in the query's frame.
	imp_mat3 rb = imp_pose3_matrix(b->pose3);
	double reach = sh->radius + q->round;
	if (!box) {
		imp_vec3 a = mat3_apply_t(&q->rot, imp_mat3_apply(&rb, sh->v[0]));
		imp_vec3 ha = imp_vec3_make(fabs(a.x), fabs(a.y), fabs(a.z));
		if (box_gap(c, q->half, ha) > reach + band)
			return 0;
		double e0 = box_gap(imp_vec3_add(c, a), q->half, zero), e1 = box_gap(imp_vec3_sub(c, a), q->half, zero);
		return imp_min(e0, e1) < reach - band ? 1 : -1;
	}
	imp_mat3 m = mat3_mul_t(&q->rot, &rb); // body to query
	if (box_gap(c, q->half, imp_mat3_abs_apply(&m, sh->size)) > reach + band)
		return 0;
	imp_vec3 cq = imp_vec3_neg(mat3_apply_t(&m, c)); // the query's origin in the body's frame
	if (box_gap(cq, sh->size, mat3_abs_apply_t(&m, q->half)) > reach + band)
		return 0;
	double in_q = imp_min(imp_min(q->half.x, q->half.y), q->half.z);
	if (box_gap(cq, sh->size, zero) < in_q + reach - band)
		return 1;
	// The point of each box nearest the other's origin, in the other.
	if (box_holds(imp_vec3_add(c, imp_mat3_apply(&m, box_clamp(cq, sh->size))), q->half, reach, band))
		return 1;
	return box_holds(imp_vec3_add(cq, mat3_apply_t(&m, box_clamp(c, q->half))), sh->size, reach, band) ? 1 : -1;
}

static bool overlaps(const imp_world *w, const qshape *q, int32_t s)
{
	const body *b = &w->bodies[s];
	if (q->obb) {
		int v = box_verdict(w, q, s);
		if (v >= 0)
			return v;
		return imp_overlap3(q->shape, q->p3, b->shape, b->pose3, NULL);
	}
	// Boxes that meet hold shapes whose balls of reach may not: those are
	// apart, for the price of a square root instead of GJK's set-up and
	// first support. (The bound widened: touching counts as overlap.)
	if (reach_bound(w, q, s) > widen(q, 0.0))
		return false;
	if (w->dim == 2)
		return imp_overlap2(q->shape, q->p2, b->shape, b->pose2, NULL);
	return imp_overlap3(q->shape, q->p3, b->shape, b->pose3, NULL);
}

/// Level 3 between the query shape and a body (imp_world_closest), with
/// the state it ended in; options NULL: the defaults. False when the narrow
/// phase had no answer (a user shape's support failed).
static bool narrow(const imp_world *w, const qshape *q, const body *b, imp_simplex_cache *cache,
		   const imp_query_options *o, imp_query_result *r, imp_query_state *state)
{
	return imp_world_closest(w, q->shape, &q->p2, &q->p3, b->shape, &b->pose2, &b->pose3, cache, o, r, state);
}

/// The exact signed distance to body s. An answer that stopped at the
/// narrow phase's iteration limit is only a bound (a penetration's
/// expanding polygon lies inside the Minkowski difference, so its depth is
/// too shallow), and a curved body far larger than the query shape needs
/// more than the default 64 steps: a disc of radius 144384 about a box of
/// half size 4.27 stopped 173 short of its depth, and the nearest query
/// ranked the body by it (issue 20, defect 17). Such an answer is asked
/// again with limits 4, 16, 64 and 256 times the default, up to the first
/// that converges; the last is kept when none does (the best found).
static bool closest(const imp_world *w, const qshape *q, int32_t s, imp_simplex_cache *cache, imp_query_result *r)
{
	const body *b = &w->bodies[s];
	r->body = imp_world_id_of(w, s);
	imp_query_state state;
	if (!narrow(w, q, b, cache, NULL, r, &state))
		return false;
	for (int limit = 256; limit <= 16384 && state == IMP_STATE_ITERATION_LIMIT; limit *= 4) {
		imp_query_options o = imp_default_query_options();
		o.max_iterations = limit;
		o.epa_max_iterations = limit;
		imp_query_result t = *r;
		if (!narrow(w, q, b, NULL, &o, &t, &state))
			break;
		*r = t;
	}
	return true;
}

/* ---- overlap ---- */

static imp_status overlap_shape(const imp_world *w, int dim, const imp_shape *shape, const imp_pose2 *p2,
				const imp_pose3 *p3, const imp_query_filter *filter, imp_query_fn *fn, void *user)
{
	qshape q;
	imp_status st = begin(w, dim, shape, p2, p3, filter, fn != NULL, &q);
	if (st != IMP_OK)
		return st;
	gather g;
	gather_init(&g, w, &q);
	st = gather_all(w, &q, &q.box, &g);
	if (st == IMP_OK) {
		sort_by_slot(g.items, g.count);
		for (int32_t i = 0; i < g.count; i++) {
			int32_t s = g.items[i].slot;
			if (overlaps(w, &q, s) && !fn(imp_world_id_of(w, s), user))
				break;
		}
	}
	gather_free(&g);
	return st;
}

imp_status imp_world_overlap_shape2(const imp_world *world, const imp_shape *shape, imp_pose2 pose,
				    const imp_query_filter *filter, imp_query_fn *fn, void *user)
{
	GUARDED(world, overlap_shape(world, 2, shape, &pose, NULL, filter, fn, user));
}

imp_status imp_world_overlap_shape3(const imp_world *world, const imp_shape *shape, imp_pose3 pose,
				    const imp_query_filter *filter, imp_query_fn *fn, void *user)
{
	GUARDED(world, overlap_shape(world, 3, shape, NULL, &pose, filter, fn, user));
}

typedef struct any_ctx {
	gather g;
	bool hit;
	int32_t hit_slot; ///< the body that overlaps, when hit
} any_ctx;

static bool any_test(any_ctx *c, int32_t s)
{
	const imp_world *w = c->g.w;
	const body *b = &w->bodies[s];
	if (!visible(w, c->g.q, s) || !imp_box_overlap(&b->tight, &c->g.q->box, w->dim))
		return true;
	c->hit = overlaps(w, c->g.q, s);
	if (c->hit)
		c->hit_slot = s;
	return !c->hit;
}

static bool any_broad(void *ctx, int32_t s)
{
	any_ctx *c = ctx;
	if (!broad_current(&c->g.w->bodies[s]))
		return true;
	return any_test(c, s);
}

/// Stops at the first overlap: no candidate array, no sort. *hint (may be
/// NULL): a body that overlapped the previous pose of a batch, asked
/// first (-1: none), and the body that overlaps this pose on return.
static imp_status overlap_any(const imp_world *w, int dim, const imp_shape *shape, const imp_pose2 *p2,
			      const imp_pose3 *p3, const imp_query_filter *filter, bool *out, int32_t *hint)
{
	qshape q;
	imp_status st = begin(w, dim, shape, p2, p3, filter, out != NULL, &q);
	if (st != IMP_OK)
		return st;
	any_ctx c;
	gather_init(&c.g, w, &q);
	c.g.search = q.box;
	c.hit = false;
	c.hit_slot = -1;
	if (hint != NULL && *hint >= 0 && *hint < w->body_high && w->bodies[*hint].alive)
		any_test(&c, *hint);
	if (!c.hit && imp_broad_query(w->broad, &q.box, any_broad, &c, &c.g.ts)) {
		for (int32_t i = 0; i < w->moved_count && !c.hit; i++) {
			int32_t s = w->moved[i];
			const body *b = &w->bodies[s];
			if (b->alive && !broad_current(b))
				any_test(&c, s);
		}
	}
	bool oom = c.g.ts.oom && !c.hit;
	gather_free(&c.g);
	if (oom)
		return IMP_ERR_OUT_OF_MEMORY;
	*out = c.hit;
	if (hint != NULL)
		*hint = c.hit ? c.hit_slot : -1;
	return IMP_OK;
}

imp_status imp_world_overlap_any2(const imp_world *world, const imp_shape *shape, imp_pose2 pose,
				  const imp_query_filter *filter, bool *out)
{
	GUARDED(world, overlap_any(world, 2, shape, &pose, NULL, filter, out, NULL));
}

imp_status imp_world_overlap_any3(const imp_world *world, const imp_shape *shape, imp_pose3 pose,
				  const imp_query_filter *filter, bool *out)
{
	GUARDED(world, overlap_any(world, 3, shape, NULL, &pose, filter, out, NULL));
}

/* ---- nearest ---- */

/// Better: a smaller distance, or the same at a lower index.
static bool better(double d, int32_t s, double best, int32_t best_slot)
{
	return best_slot < 0 || d < best || (d == best && s < best_slot);
}

typedef struct nearest_ctx {
	const imp_world *w;
	const qshape *q;
	double max_distance;
	imp_query_result best;
	int32_t best_slot;
} nearest_ctx;

/// One candidate of the nearest query, given the search's bound (the best
/// distance so far, or max_distance, widened): its exact distance when
/// neither lower bound rules it out; returns the bound for the rest.
static double nearest_try(nearest_ctx *c, int32_t s, double bound)
{
	const body *b = &c->w->bodies[s];
	if (!visible(c->w, c->q, s) || imp_box_bound(&c->q->box, &b->tight, c->w->dim) > bound ||
	    reach_bound(c->w, c->q, s) > bound)
		return bound;
	imp_query_result r;
	if (!closest(c->w, c->q, s, NULL, &r) || r.distance > c->max_distance)
		return bound;
	if (better(r.distance, s, c->best.distance, c->best_slot)) {
		c->best = r;
		c->best_slot = s;
	}
	// Widened: a body at the same distance (a tie, which the lower index
	// wins) is still looked at.
	return fmin(bound, widen(c->q, c->best.distance));
}

static double nearest_visit(void *ctx, int32_t s, double bound)
{
	nearest_ctx *c = ctx;
	if (!broad_current(&c->w->bodies[s]))
		return bound; // taken from the moved list
	return nearest_try(c, s, bound);
}

/// Branch and bound: the bodies the broad phase does not hold where they
/// are first (the moved list), then the broad phase's boxes nearest first,
/// each looked at only while its box's bound is within the best distance.
/// *hint (may be NULL): the body nearest the previous pose of a batch,
/// looked at first so that its distance bounds the search from the start
/// (the answer is the same: only bodies farther than the best are pruned,
/// ties still looked at), and the nearest body on return (-1: none).
static imp_status nearest(const imp_world *w, int dim, const imp_shape *shape, const imp_pose2 *p2, const imp_pose3 *p3,
			  double max_distance, const imp_query_filter *filter, imp_query_result *out, int32_t *hint)
{
	qshape q;
	imp_status st = begin(w, dim, shape, p2, p3, filter, out != NULL, &q);
	if (st != IMP_OK)
		return st;
	if (isnan(max_distance))
		return IMP_ERR_NOT_FINITE;
	nearest_ctx c = {w, &q, max_distance, {.distance = INFINITY}, -1};
	double bound = widen(&q, max_distance);
	if (hint != NULL && *hint >= 0 && *hint < w->body_high && w->bodies[*hint].alive)
		bound = nearest_try(&c, *hint, bound);
	for (int32_t i = 0; i < w->moved_count; i++) {
		int32_t s = w->moved[i];
		const body *b = &w->bodies[s];
		if (b->alive && !broad_current(b))
			bound = nearest_try(&c, s, bound);
	}
	imp_tree_scratch ts;
	imp_tree_scratch_init(&ts, &w->alloc);
	bool ok = imp_broad_nearest(w->broad, &q.box, bound, nearest_visit, &c, &ts);
	imp_tree_scratch_free(&ts);
	if (!ok)
		return IMP_ERR_OUT_OF_MEMORY;
	*out = c.best;
	if (hint != NULL)
		*hint = c.best_slot;
	return IMP_OK;
}

imp_status imp_world_nearest2(const imp_world *world, const imp_shape *shape, imp_pose2 pose, double max_distance,
			      const imp_query_filter *filter, imp_query_result *out)
{
	GUARDED(world, nearest(world, 2, shape, &pose, NULL, max_distance, filter, out, NULL));
}

imp_status imp_world_nearest3(const imp_world *world, const imp_shape *shape, imp_pose3 pose, double max_distance,
			      const imp_query_filter *filter, imp_query_result *out)
{
	GUARDED(world, nearest(world, 3, shape, NULL, &pose, max_distance, filter, out, NULL));
}

/* ---- batches ---- */

/// The checks of a batch before any answer: NULL pointers, the count, the
/// shape, the dimension and every pose (the first bad one's error), so that
/// nothing is written on error; the rest (the filter, max_distance) is the
/// first pose's query's, in the single query's order.
static imp_status batch_check(const imp_world *w, int dim, const imp_shape *shape, const imp_pose2 *p2,
			      const imp_pose3 *p3, int count, const void *out)
{
	if (shape == NULL || out == NULL || (count > 0 && p2 == NULL && p3 == NULL))
		return IMP_ERR_NULL_ARGUMENT;
	if (count < 0)
		return IMP_ERR_BAD_COUNT;
	if (dim != w->dim)
		return IMP_ERR_DIMENSION_MISMATCH;
	imp_status st = imp_shape_check(shape, dim);
	for (int i = 0; i < count && st == IMP_OK; i++)
		st = dim == 2 ? imp_pose2_status(p2[i]) : imp_pose3_status(p3[i]);
	return st;
}

/// A batch cut into ranges for the world's workers: each range runs its
/// poses in turn (each pose's query starting from the body the pose before
/// found), and the error of its first failing pose, if any, is kept with
/// that pose's index so that the batch reports the lowest one.
typedef struct batch_task {
	const imp_world *w;
	int dim;
	const imp_shape *shape;
	const imp_pose2 *p2;
	const imp_pose3 *p3;
	const imp_query_filter *filter;
	double max_distance;
	bool *any_out;              ///< overlap-any answers (or NULL)
	imp_query_result *near_out; ///< nearest answers (or NULL)
	/// The lowest index of a pose whose query failed, times 256, plus
	/// its status (count * 256: none), lowered atomically.
	atomic_llong first_error;
} batch_task;

/// Poses per range: a query costs about a microsecond, a task's hand-over
/// some tens.
#define BATCH_RANGE 64

static void batch_range(int start, int end, int worker, void *context)
{
	(void)worker;
	batch_task *t = context;
	// The nearest query starts from the body the pose before found only
	// when the same body answered the two poses before (poses along a
	// path): on scattered poses the hint is another body's exact distance
	// to compute, one more narrow-phase query a pose for nothing.
	int32_t hint = -1, found = -1, found_before = -1;
	for (int i = start; i < end; i++) {
		const imp_pose2 *p2 = t->p2 != NULL ? &t->p2[i] : NULL;
		const imp_pose3 *p3 = t->p3 != NULL ? &t->p3[i] : NULL;
		imp_status st;
		if (t->any_out != NULL) {
			st = overlap_any(t->w, t->dim, t->shape, p2, p3, t->filter, &t->any_out[i], &hint);
		} else {
			hint = found >= 0 && found == found_before ? found : -1;
			st = nearest(t->w, t->dim, t->shape, p2, p3, t->max_distance, t->filter, &t->near_out[i], &hint);
			found_before = found;
			found = hint;
		}
		if (st == IMP_OK)
			continue;
		// Kept when it is the lowest failing index so far (ranges run
		// in any order); a range stops at its first failure.
		long long mine = (long long)i * 256 + (long long)st;
		long long seen = atomic_load_explicit(&t->first_error, memory_order_relaxed);
		while (mine < seen && !atomic_compare_exchange_weak_explicit(&t->first_error, &seen, mine,
									     memory_order_relaxed, memory_order_relaxed))
			;
		return;
	}
}

/// A batch: checked whole (nothing written on error), then run in ranges
/// on the world's workers. An error of what every pose shares (a bad
/// filter or max_distance) fails each range's first pose before it writes
/// anything, so the batch reports it as the single query would, nothing
/// written; otherwise (out of memory) the error of the lowest failing pose
/// is the batch's, and answers of other poses may have been written.
static imp_status run_batch(batch_task *t, int count)
{
	imp_status st = batch_check(t->w, t->dim, t->shape, t->p2, t->p3, count,
				    t->any_out != NULL ? (const void *)t->any_out : (const void *)t->near_out);
	if (st != IMP_OK)
		return st;
	long long none = (long long)count * 256;
	atomic_init(&t->first_error, none);
	imp_world_run_task(t->w, batch_range, count, BATCH_RANGE, t);
	long long first = atomic_load_explicit(&t->first_error, memory_order_relaxed);
	return first < none ? (imp_status)(first % 256) : IMP_OK;
}

static imp_status overlap_any_batch(const imp_world *w, int dim, const imp_shape *shape, const imp_pose2 *p2,
				    const imp_pose3 *p3, int count, const imp_query_filter *filter, bool *out)
{
	batch_task t = {.w = w, .dim = dim, .shape = shape, .p2 = p2, .p3 = p3, .filter = filter, .any_out = out};
	return run_batch(&t, count);
}

static imp_status nearest_batch(const imp_world *w, int dim, const imp_shape *shape, const imp_pose2 *p2,
				const imp_pose3 *p3, int count, double max_distance, const imp_query_filter *filter,
				imp_query_result *out)
{
	batch_task t = {.w = w, .dim = dim, .shape = shape, .p2 = p2, .p3 = p3, .filter = filter,
			.max_distance = max_distance, .near_out = out};
	return run_batch(&t, count);
}

imp_status imp_world_overlap_any_batch2(const imp_world *world, const imp_shape *shape, const imp_pose2 *poses,
					int count, const imp_query_filter *filter, bool *out)
{
	GUARDED(world, overlap_any_batch(world, 2, shape, poses, NULL, count, filter, out));
}

imp_status imp_world_overlap_any_batch3(const imp_world *world, const imp_shape *shape, const imp_pose3 *poses,
					int count, const imp_query_filter *filter, bool *out)
{
	GUARDED(world, overlap_any_batch(world, 3, shape, NULL, poses, count, filter, out));
}

imp_status imp_world_nearest_batch2(const imp_world *world, const imp_shape *shape, const imp_pose2 *poses, int count,
				    double max_distance, const imp_query_filter *filter, imp_query_result *out)
{
	GUARDED(world, nearest_batch(world, 2, shape, poses, NULL, count, max_distance, filter, out));
}

imp_status imp_world_nearest_batch3(const imp_world *world, const imp_shape *shape, const imp_pose3 *poses, int count,
				    double max_distance, const imp_query_filter *filter, imp_query_result *out)
{
	GUARDED(world, nearest_batch(world, 3, shape, NULL, poses, count, max_distance, filter, out));
}

/* ---- every body within a distance ---- */

/// The found bodies wait in a binary heap ordered by (distance, index) until
/// no candidate left can come before them: the candidates' lower bounds are
/// sorted, so the heap's top is delivered once it is below the next bound.
/// A candidate is only looked at when its bound comes up: the callback's
/// smaller bound prunes the narrow phase, not only the answers.
#define RESULT_LESS(x, y)                                                                                    \
	((x).distance < (y).distance || ((x).distance == (y).distance && (x).body.index < (y).body.index))
IMP_DEFINE_HEAP(heap, imp_query_result, RESULT_LESS)

static imp_status query_distance(const imp_world *w, int dim, const imp_shape *shape, const imp_pose2 *p2,
				 const imp_pose3 *p3, double max_distance, const imp_query_filter *filter,
				 imp_distance_fn *fn, void *user)
{
	qshape q;
	imp_status st = begin(w, dim, shape, p2, p3, filter, fn != NULL, &q);
	if (st != IMP_OK)
		return st;
	if (!isfinite(max_distance))
		return IMP_ERR_NOT_FINITE;
	imp_box search = inflate(&q.box, fmax(widen(&q, max_distance), 0.0), dim);
	gather g;
	results rs;
	gather_init(&g, w, &q);
	results_init(&rs, w);
	st = gather_all(w, &q, &search, &g);
	if (st == IMP_OK && !results_room(&rs, g.count))
		st = IMP_ERR_OUT_OF_MEMORY;
	if (st != IMP_OK) {
		gather_free(&g);
		results_free(&rs);
		return st;
	}
	imp_query_result *found_heap = rs.items;
	sort_by_bound(g.items, g.count);
	double bound = max_distance;
	int32_t next = 0, found = 0;
	for (;;) {
		// With no candidate left, lb is +inf, which a bound widened to +inf
		// (max_distance near DBL_MAX) does not pass: `more` ends the walk.
		bool more = next < g.count;
		double lb = more ? g.items[next].lb : INFINITY;
		double wide = widen(&q, bound);
		if (found > 0 && (!more || found_heap[0].distance < lb || lb > wide)) {
			imp_query_result r = heap_pop(found_heap, found--);
			if (r.distance > bound)
				continue; // pruned by a bound given after it was found
			double b = fn(&r, user);
			if (!(b >= bound)) // smaller, or NaN: the rest must come within it
				bound = isnan(b) ? -INFINITY : b;
			if (bound == -INFINITY)
				break;
			continue;
		}
		if (!more || lb > wide)
			break;
		int32_t s = g.items[next++].slot;
		imp_query_result r;
		if (reach_bound(w, &q, s) <= wide && closest(w, &q, s, NULL, &r) && r.distance <= bound)
			heap_push(found_heap, found++, r);
	}
	gather_free(&g);
	results_free(&rs);
	return IMP_OK;
}

imp_status imp_world_query_distance2(const imp_world *world, const imp_shape *shape, imp_pose2 pose, double max_distance,
				     const imp_query_filter *filter, imp_distance_fn *fn, void *user)
{
	GUARDED(world, query_distance(world, 2, shape, &pose, NULL, max_distance, filter, fn, user));
}

imp_status imp_world_query_distance3(const imp_world *world, const imp_shape *shape, imp_pose3 pose, double max_distance,
				     const imp_query_filter *filter, imp_distance_fn *fn, void *user)
{
	GUARDED(world, query_distance(world, 3, shape, NULL, &pose, max_distance, filter, fn, user));
}

/* ---- body to body, and the world's clearance ---- */

/// Body a as a query shape.
static qshape body_shape(const imp_world *w, int32_t a)
{
	const body *b = &w->bodies[a];
	qshape q;
	memset(&q, 0, sizeof q);
	q.shape = b->shape;
	q.p2 = b->pose2;
	q.p3 = b->pose3;
	q.box = b->tight;
	q.reach = w->motions[a].reach;
	q.slack = box_slack(&q.box);
	q.filter = b->filter;
	q.ignore = a;
	q.pair_slot = a;
	return q;
}

static pair *find_pair(const imp_world *w, int32_t lo, int32_t hi)
{
	return imp_world_find_pair(w, (uint64_t)(uint32_t)lo << 32 | (uint32_t)hi);
}

static void swap_result(imp_query_result *r, imp_body_id b)
{
	imp_vec3 p = r->point;
	r->point = r->body_point;
	r->body_point = p;
	r->normal = imp_vec3_scale(-1.0, r->normal);
	r->body = b;
}

/// Level 3 between bodies a and b with the pair's cache when the world
/// keeps the pair (its cache is for the lower slot as the first shape).
static bool body_distance(const imp_world *w, int32_t a, int32_t b, imp_query_result *r)
{
	int32_t lo = a < b ? a : b, hi = a < b ? b : a;
	const pair *pr = find_pair(w, lo, hi);
	qshape q = body_shape(w, lo);
	// The pair's cache warms the query from a copy: queries write nothing
	// of the world's (they may run on several threads at once), and each
	// starts from the cache as the last update left it.
	imp_simplex_cache cache;
	if (pr != NULL)
		cache = pr->cache;
	if (!closest(w, &q, hi, pr != NULL ? &cache : NULL, r))
		return false;
	if (lo != a)
		swap_result(r, imp_world_id_of(w, b));
	return true;
}

static imp_status world_distance(const imp_world *world, imp_body_id a, imp_body_id b, imp_query_result *closest_out)
{
	if (closest_out == NULL)
		return IMP_ERR_NULL_ARGUMENT;
	int32_t sa = imp_world_slot_of(world, a), sb = imp_world_slot_of(world, b);
	if (sa < 0 || sb < 0 || sa == sb)
		return IMP_ERR_BAD_ID;
	imp_query_result r;
	if (!body_distance(world, sa, sb, &r)) {
		r.body = b;
		r.distance = NAN;
		r.point = r.body_point = r.normal = imp_vec3_make(NAN, NAN, NAN);
	}
	*closest_out = r;
	return IMP_OK;
}

imp_status imp_world_distance(const imp_world *world, imp_body_id a, imp_body_id b, imp_query_result *closest_out)
{
	GUARDED(world, world_distance(world, a, b, closest_out));
}

static imp_status clearance(const imp_world *w, double margin, imp_clearance_fn *fn, void *user)
{
	if (fn == NULL)
		return IMP_ERR_NULL_ARGUMENT;
	if (!(margin >= 0.0) || !isfinite(margin))
		return IMP_ERR_BAD_RADIUS;
	// Room for every body as a candidate before the first callback: a
	// failure later would leave the user with part of the pairs.
	gather g;
	gather_init(&g, w, NULL);
	// (The tree's walk holds at most a node per body, and four more.)
	if (!gather_room(&g, w->body_count) || !imp_tree_scratch_reserve(&g.ts, w->body_count + 8)) {
		gather_free(&g);
		return IMP_ERR_OUT_OF_MEMORY;
	}
	imp_status st = IMP_OK;
	bool go = true;
	for (int32_t a = 0; a < w->body_high && go; a++) {
		if (!w->bodies[a].alive)
			continue;
		qshape q = body_shape(w, a);
		double wide = widen(&q, margin);
		imp_box search = inflate(&q.box, wide, w->dim);
		st = gather_all(w, &q, &search, &g);
		if (st != IMP_OK)
			break; // cannot happen: the room was made above
		sort_by_slot(g.items, g.count);
		imp_body_id ida = imp_world_id_of(w, a);
		for (int32_t i = 0; i < g.count && go; i++) {
			int32_t b = g.items[i].slot;
			if (g.items[i].lb > wide)
				continue;
			imp_query_result r;
			if (body_distance(w, a, b, &r) && r.distance <= margin)
				go = fn(ida, &r, user);
		}
	}
	gather_free(&g);
	return st;
}

imp_status imp_world_clearance(const imp_world *w, double margin, imp_clearance_fn *fn, void *user)
{
	GUARDED(w, clearance(w, margin, fn, user));
}

/* ---- motion validity ---- */

/// The motion from pose_from to pose_to over [0, 1]: the origin on the
/// segment, the turn through the smaller angle (as a target pose of the
/// world's step).
static void motion_between(int dim, const imp_pose2 *f2, const imp_pose2 *t2, const imp_pose3 *f3,
			   const imp_pose3 *t3, imp_motion2 *m2, imp_motion3 *m3)
{
	if (dim == 2)
		*m2 = (imp_motion2){*f2, imp_vec2_sub(t2->p, f2->p), imp_turn2(f2->q, t2->q)};
	else
		*m3 = (imp_motion3){*f3, imp_vec3_sub(t3->p, f3->p), imp_turn3(f3->q, t3->q)};
}

/// A shape moving over [0, 1], and the box its motion sweeps.
typedef struct cast {
	const imp_shape *shape;
	imp_motion2 m2;
	imp_motion3 m3;
	imp_box sweep;
	double reach;     ///< imp_shape_reach of the shape
} cast;

/// Sets up the motion from the query's pose (q) to the end pose, and its
/// swept box: both ends' boxes when the shape only translates, else also
/// the ball of its reach about its origin along the segment.
static imp_status cast_begin(const imp_world *w, const qshape *q, const imp_pose2 *t2, const imp_pose3 *t3, cast *c)
{
	int dim = w->dim;
	imp_status st = dim == 2 ? imp_pose2_status(*t2) : imp_pose3_status(*t3);
	if (st != IMP_OK)
		return st;
	imp_box to_box;
	st = imp_world_shape_box(w, q->shape, t2, t3, &to_box);
	if (st != IMP_OK)
		return st;
	c->shape = q->shape;
	c->reach = q->reach;
	motion_between(dim, &q->p2, t2, &q->p3, t3, &c->m2, &c->m3);
	// Both ends within range, but a path longer than the range along an
	// axis is a velocity the time of impact refuses: refused here too (it
	// was taken for "no contact").
	imp_vec3 v = dim == 2 ? imp_vec3_make(c->m2.v.x, c->m2.v.y, 0.0) : c->m3.v;
	if (!(fabs(v.x) <= IMP_MAX_COORDINATE && fabs(v.y) <= IMP_MAX_COORDINATE && fabs(v.z) <= IMP_MAX_COORDINATE))
		return IMP_ERR_OUT_OF_RANGE;
	c->sweep = imp_box_union(&q->box, &to_box);
	bool turns = dim == 2 ? c->m2.w != 0.0 : (c->m3.w.x != 0.0 || c->m3.w.y != 0.0 || c->m3.w.z != 0.0);
	if (turns) {
		imp_vec3 f = dim == 2 ? imp_vec3_make(q->p2.p.x, q->p2.p.y, 0.0) : q->p3.p;
		imp_vec3 t = dim == 2 ? imp_vec3_make(t2->p.x, t2->p.y, 0.0) : t3->p;
		imp_box seg = {{fmin(f.x, t.x), fmin(f.y, t.y), fmin(f.z, t.z)}, {fmax(f.x, t.x), fmax(f.y, t.y), fmax(f.z, t.z)}};
		imp_box ball = inflate(&seg, q->reach, dim);
		c->sweep = imp_box_union(&c->sweep, &ball);
	}
	return IMP_OK;
}

/// What one body did to a cast: nothing over the interval, met at t (at
/// t = 0 within the tolerance: `inside`), or not proven either way past t.
typedef enum meet_kind { MEET_NONE, MEET_HIT, MEET_GAVE_UP } meet_kind;

typedef struct meet {
	meet_kind kind;
	bool inside;       ///< met at t = 0: overlapping (or within the tolerance) at the start
	double t;
	imp_vec3 point_a;  ///< on the moving shape at t
	imp_vec3 point_b;  ///< on the body at t
	imp_vec3 normal;   ///< from the shape to the body
} meet;

/// The time-of-impact options of one run of a cast against a body: runs of
/// the pairwise default length (64 queries) within the cast's budget (the
/// run's calls are also held to what is left of it).
static imp_toi_options run_options(const imp_cast_options *o, int spent)
{
	imp_toi_options t = imp_default_toi_options();
	t.tolerance = o->tolerance;
	int left = o->max_iterations - spent;
	if (left < t.max_iterations)
		t.max_iterations = left;
	return t;
}

/// The cast against body s over [0, t_max], with the witness on the body
/// and the normal from the shape to the body. A run of the time of impact
/// that stops at its iteration limit is resumed from where it stopped (the
/// motion before it is proven free) while that run advanced the time and
/// the budget (options->max_iterations narrow-phase calls against this
/// body: a query on a non-convex pair counts each pair of children it
/// answers, toi_internal.h) lasts; then, or when a distance query fails,
/// the cast gives up at the time reached: a motion check must not call
/// free a motion it could not prove free. A pairwise error (none is
/// expected: cast_begin checked what the time of impact checks) gives up
/// at t = 0.
static meet cast_one(const imp_world *w, const cast *c, int32_t s, double t_max, const imp_cast_options *o)
{
	const body *b = &w->bodies[s];
	meet m;
	memset(&m, 0, sizeof m);
	m.kind = MEET_GAVE_UP;
	double t_from = 0.0;
	int spent = 0;
	for (;;) {
		imp_toi_options to = run_options(o, spent);
		imp_toi_state state;
		int work;
		if (w->dim == 2) {
			imp_motion2 mb = {b->pose2, imp_vec2_make(0.0, 0.0), 0.0};
			imp_toi2_result r;
			if (imp_time_of_impact2_from(c->shape, c->m2, b->shape, mb, t_from, t_max, &to,
						     o->max_iterations - spent, &work, &r) != IMP_OK)
				return m;
			state = r.state;
			m.t = r.t;
			m.point_a = v3(r.point_a);
			m.point_b = v3(r.point_b);
			m.normal = v3(r.normal);
		} else {
			imp_motion3 mb = {b->pose3, imp_vec3_make(0.0, 0.0, 0.0), imp_vec3_make(0.0, 0.0, 0.0)};
			imp_toi3_result r;
			if (imp_time_of_impact3_from(c->shape, c->m3, b->shape, mb, t_from, t_max, &to,
						     o->max_iterations - spent, &work, &r) != IMP_OK)
				return m;
			state = r.state;
			m.t = r.t;
			m.point_a = r.point_a;
			m.point_b = r.point_b;
			m.normal = r.normal;
		}
		spent += work;
		switch (state) {
		case IMP_TOI_SEPARATED:
			m.kind = MEET_NONE;
			return m;
		case IMP_TOI_OVERLAPPED:
			m.inside = true;
			m.kind = MEET_HIT;
			return m;
		case IMP_TOI_HIT:
			m.kind = MEET_HIT;
			return m;
		case IMP_TOI_ITERATION_LIMIT:
			// Resumed while the run moved the bound on the time of
			// contact forward and the budget lasts.
			if (m.t > t_from && spent < o->max_iterations) {
				t_from = m.t;
				continue;
			}
			m.kind = MEET_GAVE_UP;
			return m;
		default: // IMP_TOI_FAILED: a user support gave no point
			m.kind = MEET_GAVE_UP;
			return m;
		}
	}
}

/// The first body the cast meets or gives up on (ties: the lower index),
/// nearest boxes first so that an early answer bounds the other bodies'
/// queries: past a body's time nothing changes the answer.
static imp_status cast_first(const imp_world *w, const qshape *q, const cast *c, const imp_cast_options *o, int32_t *slot,
			     meet *best)
{
	gather g;
	gather_init(&g, w, q);
	imp_status st = gather_all(w, q, &c->sweep, &g);
	if (st != IMP_OK) {
		gather_free(&g);
		return st;
	}
	sort_by_bound(g.items, g.count);
	*slot = -1;
	best->kind = MEET_NONE;
	best->inside = false;
	best->t = 1.0;
	for (int32_t i = 0; i < g.count; i++) {
		int32_t s = g.items[i].slot;
		meet m = cast_one(w, c, s, best->t, o);
		if (m.kind == MEET_NONE)
			continue;
		if (*slot < 0 || m.t < best->t || (m.t == best->t && s < *slot)) {
			*slot = s;
			*best = m;
		}
	}
	gather_free(&g);
	return IMP_OK;
}

imp_cast_options imp_default_cast_options(void)
{
	imp_cast_options o = {0.0, 4096};
	return o;
}

static imp_status check_cast_options(const imp_cast_options *o)
{
	if (!isfinite(o->tolerance) || o->tolerance < 0.0 || o->tolerance > IMP_MAX_COORDINATE ||
	    o->max_iterations < 1)
		return IMP_ERR_BAD_OPTIONS;
	return IMP_OK;
}

/// The shape's pose at t of the cast's motion (2D: a rotation about z).
static imp_pose3 cast_pose(int dim, const cast *c, double t)
{
	if (dim == 3)
		return imp_motion3_at(c->m3, t);
	imp_pose2 p = imp_motion2_at(c->m2, t);
	return (imp_pose3){imp_vec3_make(p.p.x, p.p.y, 0.0),
			   imp_quat_from_axis_angle(imp_vec3_make(0.0, 0.0, 1.0), atan2(p.q.s, p.q.c))};
}

static imp_status cast_shape(const imp_world *w, int dim, const imp_shape *shape, const imp_pose2 *f2, const imp_pose2 *t2,
			     const imp_pose3 *f3, const imp_pose3 *t3, const imp_query_filter *filter,
			     const imp_cast_options *options, imp_cast_hit *hit)
{
	qshape q;
	imp_status st = begin(w, dim, shape, f2, f3, filter, hit != NULL, &q);
	if (st != IMP_OK)
		return st;
	imp_cast_options o = options != NULL ? *options : imp_default_cast_options();
	st = check_cast_options(&o);
	if (st != IMP_OK)
		return st;
	cast c;
	st = cast_begin(w, &q, t2, t3, &c);
	if (st != IMP_OK)
		return st;
	int32_t slot;
	meet m;
	st = cast_first(w, &q, &c, &o, &slot, &m);
	if (st != IMP_OK)
		return st;
	imp_cast_hit best;
	memset(&best, 0, sizeof best);
	best.t = 1.0;
	best.state = IMP_CAST_FREE;
	if (slot >= 0) {
		best.body = imp_world_id_of(w, slot);
		best.t = m.t;
		best.point = m.point_a;
		best.normal = m.normal;
		best.state = m.kind == MEET_HIT ? IMP_CAST_HIT : IMP_CAST_GAVE_UP;
		best.started_inside = m.inside;
	}
	best.pose = cast_pose(dim, &c, best.t);
	*hit = best;
	return IMP_OK;
}

imp_status imp_world_cast_shape2(const imp_world *world, const imp_shape *shape, imp_pose2 pose_from, imp_pose2 pose_to,
				 const imp_query_filter *filter, imp_cast_hit *hit)
{
	GUARDED(world, cast_shape(world, 2, shape, &pose_from, &pose_to, NULL, NULL, filter, NULL, hit));
}

imp_status imp_world_cast_shape3(const imp_world *world, const imp_shape *shape, imp_pose3 pose_from, imp_pose3 pose_to,
				 const imp_query_filter *filter, imp_cast_hit *hit)
{
	GUARDED(world, cast_shape(world, 3, shape, NULL, NULL, &pose_from, &pose_to, filter, NULL, hit));
}

imp_status imp_world_cast_shape2_ex(const imp_world *world, const imp_shape *shape, imp_pose2 pose_from, imp_pose2 pose_to,
				    const imp_query_filter *filter, const imp_cast_options *options, imp_cast_hit *hit)
{
	GUARDED(world, cast_shape(world, 2, shape, &pose_from, &pose_to, NULL, NULL, filter, options, hit));
}

imp_status imp_world_cast_shape3_ex(const imp_world *world, const imp_shape *shape, imp_pose3 pose_from, imp_pose3 pose_to,
				    const imp_query_filter *filter, const imp_cast_options *options, imp_cast_hit *hit)
{
	GUARDED(world, cast_shape(world, 3, shape, NULL, NULL, &pose_from, &pose_to, filter, options, hit));
}

/* ---- motion_free ---- */

/// The moving shape at one time of its motion: its pose, box and origin.
typedef struct sample {
	imp_pose2 p2;
	imp_pose3 p3;
	imp_box box;
	imp_vec3 origin;
} sample;

static imp_status sample_at(const imp_world *w, const cast *c, double t, sample *out)
{
	if (w->dim == 2) {
		out->p2 = imp_motion2_at(c->m2, t);
		out->origin = v3(out->p2.p);
	} else {
		out->p3 = imp_motion3_at(c->m3, t);
		out->origin = out->p3.p;
	}
	return imp_world_shape_box(w, c->shape, &out->p2, &out->p3, &out->box);
}

/// Whether the shape at a sample overlaps body s (touching counts).
static bool overlaps_at(const imp_world *w, const cast *c, int32_t s, const sample *at)
{
	const body *b = &w->bodies[s];
	// Apart when their boxes or their balls of reach are (the balls'
	// gap widened by its rounding: touching must not be ruled out).
	if (!imp_box_overlap(&b->tight, &at->box, w->dim))
		return false;
	imp_vec3 bo = w->dim == 2 ? v3(b->pose2.p) : b->pose3.p, d = imp_vec3_sub(bo, at->origin);
	double r = c->reach + w->motions[s].reach, gap = sqrt(imp_vec3_dot(d, d)) - r;
	if (r < INFINITY && gap > box_slack(&at->box) + 64.0 * DBL_EPSILON * r)
		return false;
	if (w->dim == 2)
		return imp_overlap2(c->shape, at->p2, b->shape, b->pose2, NULL);
	return imp_overlap3(c->shape, at->p3, b->shape, b->pose3, NULL);
}

/// The times at which motion_free first looks for an overlap: the end,
/// then the middle.
static const double k_samples[] = {1.0, 0.5};
enum { SAMPLES = (int)(sizeof k_samples / sizeof k_samples[0]) };

/// The cast's answer to "is the motion free?" without its earliest body.
/// An overlap anywhere on the motion is a contact the cast meets by then
/// (or gives up before), proven by one boolean query: the candidates,
/// nearest boxes first, are asked at the end pose, then at the middle
/// (3D, 10k bodies as in bench/queries, 1,000 blocked and 1,000 free
/// motions of 2 units, instructions a query by callgrind: the end alone,
/// 13,771 blocked and 11,644 free; with the middle, 8,667 and 12,313; with
/// the quarters too, 7,511 and 13,690; the cast, 39,064 and 11,158).
/// Then each candidate gets the cast's own search over the whole motion
/// (the cast's answer per body: the cast bounds a body's search by an
/// earlier hit only once it is not free), and the first body met or given
/// up on ends the query. Free exactly when the cast is IMP_CAST_FREE.
static imp_status motion_free(const imp_world *w, int dim, const imp_shape *shape, const imp_pose2 *f2, const imp_pose2 *t2,
			      const imp_pose3 *f3, const imp_pose3 *t3, const imp_query_filter *filter, bool *out)
{
	qshape q;
	imp_status st = begin(w, dim, shape, f2, f3, filter, out != NULL, &q);
	if (st != IMP_OK)
		return st;
	imp_cast_options o = imp_default_cast_options();
	cast c;
	st = cast_begin(w, &q, t2, t3, &c);
	if (st != IMP_OK)
		return st;
	gather g;
	gather_init(&g, w, &q);
	st = gather_all(w, &q, &c.sweep, &g);
	if (st != IMP_OK) {
		gather_free(&g);
		return st;
	}
	sort_by_bound(g.items, g.count);
	bool free_motion = true;
	for (int k = 0; k < SAMPLES && free_motion && g.count > 0; k++) {
		sample at;
		if (sample_at(w, &c, k_samples[k], &at) != IMP_OK)
			break; // (cannot happen: the motion is within range) the searches below answer
		for (int32_t i = 0; i < g.count && free_motion; i++)
			free_motion = !overlaps_at(w, &c, g.items[i].slot, &at);
	}
	for (int32_t i = 0; i < g.count && free_motion; i++)
		free_motion = cast_one(w, &c, g.items[i].slot, 1.0, &o).kind == MEET_NONE;
	gather_free(&g);
	*out = free_motion;
	return IMP_OK;
}

imp_status imp_world_motion_free2(const imp_world *world, const imp_shape *shape, imp_pose2 pose_from, imp_pose2 pose_to,
				  const imp_query_filter *filter, bool *out)
{
	GUARDED(world, motion_free(world, 2, shape, &pose_from, &pose_to, NULL, NULL, filter, out));
}

imp_status imp_world_motion_free3(const imp_world *world, const imp_shape *shape, imp_pose3 pose_from, imp_pose3 pose_to,
				  const imp_query_filter *filter, bool *out)
{
	GUARDED(world, motion_free(world, 3, shape, NULL, NULL, &pose_from, &pose_to, filter, out));
}

/* ---- rays ---- */

/// The world's point shape (made with the world), and a cast of it from
/// `from` to `to`.
static imp_status ray_begin(const imp_world *w, int dim, imp_vec3 from, imp_vec3 to, const imp_query_filter *filter,
			    bool out_given, qshape *q, cast *c)
{
	imp_status st = IMP_OK;
	if (dim != w->dim)
		return IMP_ERR_DIMENSION_MISMATCH;
	imp_pose2 f2 = {{from.x, from.y}, {1.0, 0.0}}, t2 = {{to.x, to.y}, {1.0, 0.0}};
	imp_pose3 f3 = {from, {0.0, 0.0, 0.0, 1.0}}, t3 = {to, {0.0, 0.0, 0.0, 1.0}};
	st = begin(w, dim, w->ray_point, &f2, &f3, filter, out_given, q);
	if (st != IMP_OK)
		return st;
	return cast_begin(w, q, &t2, &t3, c);
}

/// A ray's hit on body `slot` (-1: none) at t, with the cast's normal from
/// the point to the body. The point is the ray's own at t, from + t (to -
/// from), as Box2D answers, not the cast's witness on the body: the search
/// stops once the gap is within the time-of-impact tolerance, 1e-6 of the
/// shapes' reach, so the body's witness lies up to that far from the ray
/// (0.0015 off a ray of length 50 against a body of reach 3040, issue 20's
/// defect 19), and off the ray wherever it meets a face obliquely. Met at
/// t = 0, the ray started inside the body (or within the tolerance of it):
/// the point is the ray's start and the normal the ray's direction reversed
/// (zero for a ray of length 0), not the witness of the penetration, which
/// is off the ray and would face along it.
static imp_ray_hit ray_hit(const imp_world *w, const cast *c, int32_t slot, double t, imp_vec3 normal)
{
	imp_ray_hit h = {.t = t};
	if (slot < 0) {
		h.t = 1.0;
		return h;
	}
	h.body = imp_world_id_of(w, slot);
	if (t == 0.0) {
		imp_vec3 d = w->dim == 2 ? v3(c->m2.v) : c->m3.v;
		double len = imp_vec3_length(d);
		h.started_inside = true;
		h.point = w->dim == 2 ? v3(c->m2.pose.p) : c->m3.pose.p;
		h.normal = len > 0.0 ? imp_vec3_scale(-1.0 / len, d) : imp_vec3_make(0.0, 0.0, 0.0);
		return h;
	}
	imp_vec3 from = w->dim == 2 ? v3(c->m2.pose.p) : c->m3.pose.p;
	imp_vec3 d = w->dim == 2 ? v3(c->m2.v) : c->m3.v;
	h.point = imp_vec3_make(from.x + t * d.x, from.y + t * d.y, from.z + t * d.z);
	h.normal = imp_vec3_scale(-1.0, normal);
	return h;
}

static imp_status ray_cast(const imp_world *w, int dim, imp_vec3 from, imp_vec3 to, const imp_query_filter *filter,
			   imp_ray_hit *hit)
{
	qshape q;
	cast c;
	imp_status st = ray_begin(w, dim, from, to, filter, hit != NULL, &q, &c);
	if (st != IMP_OK)
		return st;
	imp_cast_options o = imp_default_cast_options();
	int32_t slot;
	meet m;
	st = cast_first(w, &q, &c, &o, &slot, &m);
	if (st != IMP_OK)
		return st;
	*hit = ray_hit(w, &c, slot, m.t, m.normal);
	return IMP_OK;
}

imp_status imp_world_ray_cast2(const imp_world *world, imp_vec2 from, imp_vec2 to, const imp_query_filter *filter,
			       imp_ray_hit *hit)
{
	GUARDED(world, ray_cast(world, 2, v3(from), v3(to), filter, hit));
}

imp_status imp_world_ray_cast3(const imp_world *world, imp_vec3 from, imp_vec3 to, const imp_query_filter *filter,
			       imp_ray_hit *hit)
{
	GUARDED(world, ray_cast(world, 3, from, to, filter, hit));
}

static imp_status ray_cast_all(const imp_world *w, int dim, imp_vec3 from, imp_vec3 to, const imp_query_filter *filter,
			       imp_ray_fn *fn, void *user)
{
	qshape q;
	cast c;
	imp_status st = ray_begin(w, dim, from, to, filter, fn != NULL, &q, &c);
	if (st != IMP_OK)
		return st;
	gather g;
	results rs;
	gather_init(&g, w, &q);
	results_init(&rs, w);
	st = gather_all(w, &q, &c.sweep, &g);
	if (st == IMP_OK && !results_room(&rs, g.count))
		st = IMP_ERR_OUT_OF_MEMORY;
	if (st != IMP_OK) {
		gather_free(&g);
		results_free(&rs);
		return st;
	}
	// Every candidate's first contact (the time in `distance`), then the
	// hits in order of time.
	imp_cast_options o = imp_default_cast_options();
	int32_t found = 0;
	for (int32_t i = 0; i < g.count; i++) {
		int32_t s = g.items[i].slot;
		meet m = cast_one(w, &c, s, 1.0, &o);
		if (m.kind == MEET_NONE)
			continue;
		imp_query_result r = {imp_world_id_of(w, s), m.t, m.point_a, m.point_b, m.normal};
		heap_push(rs.items, found++, r);
	}
	gather_free(&g);
	while (found > 0) {
		imp_query_result r = heap_pop(rs.items, found--);
		imp_ray_hit h = ray_hit(w, &c, (int32_t)r.body.index - 1, r.distance, r.normal);
		if (!fn(&h, user))
			break;
	}
	results_free(&rs);
	return IMP_OK;
}

imp_status imp_world_ray_cast_all2(const imp_world *world, imp_vec2 from, imp_vec2 to, const imp_query_filter *filter,
				   imp_ray_fn *fn, void *user)
{
	GUARDED(world, ray_cast_all(world, 2, v3(from), v3(to), filter, fn, user));
}

imp_status imp_world_ray_cast_all3(const imp_world *world, imp_vec3 from, imp_vec3 to, const imp_query_filter *filter,
				   imp_ray_fn *fn, void *user)
{
	GUARDED(world, ray_cast_all(world, 3, from, to, filter, fn, user));
}
