// SPDX-License-Identifier: MIT
// The time-of-impact step (imp_world_step; docs/toi.md): each moving body
// gets its box swept over the step in place of its box and pass 1 of the
// update runs on it; the pairs of the moving bodies are queued by a lower
// bound on their time of impact (a time-ordered heap, world/heap.c) and
// processed in time order with the narrow phase and the user's callback,
// which may change velocities (the queue follows); then each body is put
// at its end pose and left in the moved list for the next update's pass 2.
#include <assert.h>
#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "broad/broad.h"
#include "world/heap.h"
#include "world/world_internal.h"
#include "core/alloc.h"
#include "core/inline.h"
#include "core/sort.h"
#include "impact/collision.h"
#include "impact/world.h"
#include "narrow/composite_query.h"
#include "shape/composite.h"
#include "shape/shape_internal.h"
#include "shape/shape3_internal.h"

/* ---- the time-of-impact step ---- */

imp_step_opts imp_default_step_opts(void)
{
	imp_step_opts o;
	memset(&o, 0, sizeof o);
	o.max_pair_calls = 65536;
	return o;
}

static imp_status check_step_opts(const imp_step_opts *o)
{
	if (!isfinite(o->tolerance) || o->tolerance < 0.0 || o->tolerance > IMP_MAX_COORDINATE ||
	    o->max_pair_calls < 1 || !isfinite(o->resting_speed) || o->resting_speed < 0.0)
		return IMP_ERR_BAD_OPTIONS;
	return IMP_OK;
}

/// What the step keeps while it runs.
typedef struct step_ctx {
	double dt;
	double tolerance;     ///< the option: 0 automatic
	double resting;       ///< the option: 0 none
	int max_calls;
	imp_contact_fn *fn;
	void *user;
} step_ctx;

/// The contact tolerance of a pair: the option, or 1e-6 times the smaller
/// of the two bound diameters (the larger when one is a point).
static double pair_tolerance(const imp_world *w, const step_ctx *c, int32_t p, int32_t q)
{
	if (c->tolerance > 0.0)
		return c->tolerance;
	double ra = w->motions[p].reach, rb = w->motions[q].reach;
	double r = imp_min(ra, rb) > 0.0 ? imp_min(ra, rb) : imp_max(ra, rb);
	return r > 0.0 ? 2e-6 * r : 1e-300;
}

/// How far a moving body's swept box reaches beyond its shape, so that every
/// pair within its tolerance has overlapping boxes: the option, or the
/// largest automatic tolerance the body can have in a pair.
static double sweep_grow(const imp_world *w, const step_ctx *c, int32_t s)
{
	if (c->tolerance > 0.0)
		return c->tolerance;
	// A point's pairs take the other body's tolerance, which may be any
	// body's: the largest there is covers them all.
	double r = w->motions[s].reach > 0.0 ? w->motions[s].reach : w->max_reach;
	return 2e-6 * r + 1e-300;
}

/// The box of body s over step times [ta, tb] with its step motion,
/// enlarged by its margin and `grow`: exact for a body that only
/// translates (a convex set swept along a segment is boxed by its two
/// ends), else the box of the ball of its reach about its origin's path.
/// `rel` is the relative box at the base pose's rotation when known (NULL:
/// computed).
static imp_box swept_box(const imp_world *w, int32_t s, double ta, double tb, const imp_box *rel, double grow)
{
	const body *b = &w->bodies[s];
	imp_box box;
	if (vec3_is_zero(imp_world_smotion(w, s)->sw)) {
		// The pose of the other dimension is not written.
		imp_pose2 a2 = imp_pose2_identity(), b2 = a2;
		imp_pose3 a3 = imp_pose3_identity(), b3 = a3;
		imp_world_pose_at(w, s, ta, &a2, &a3);
		imp_world_pose_at(w, s, tb, &b2, &b3);
		imp_box r;
		if (rel != NULL || imp_world_shape_rel_box(w, b->shape, &a2, &a3, &r) == IMP_OK) {
			if (rel != NULL)
				r = *rel;
			imp_box x, y;
			place_box(w, &r, &a2, &a3, &x);
			place_box(w, &r, &b2, &b3, &y);
			box = imp_box_union(&x, &y);
			for (int k = 0; k < w->dim; k++) {
				box.lo[k] -= grow;
				box.hi[k] += grow;
			}
			return box;
		}
	}
	// The origin moves on a segment: its ends need no rotation.
	imp_vec3 pa = imp_world_position_at(w, s, ta), pb = imp_world_position_at(w, s, tb);
	double e = w->motions[s].reach + 0.5 * w->def.margin + grow;
	box = (imp_box){{imp_min(pa.x, pb.x) - e, imp_min(pa.y, pb.y) - e, imp_min(pa.z, pb.z) - e},
			{imp_max(pa.x, pb.x) + e, imp_max(pa.y, pb.y) + e, imp_max(pa.z, pb.z) + e}};
	if (w->dim == 2)
		box.lo[2] = box.hi[2] = 0.0;
	return box;
}

/// One look at a pair at step time t.
typedef struct probe {
	double distance;
	double least;        ///< the least distance over a non-convex pair's pairs of children (else distance)
	int32_t child[2];    ///< a non-convex pair: the children of the answer (-1: a convex side)
	imp_vec3 point_a, point_b, normal;
	double approach;     ///< (v_a - v_b) . n: the rate at which the translations close the gap along n
	double spin;         ///< |w_a x n| r_a + |w_b x n| r_b (r: core reach): the most the turns can add
	                     ///< to it (a turn about n does not move a shape along n)
	double normal_speed; ///< relative normal velocity of the witness points
} probe;

static imp_vec3 point_velocity(imp_vec3 v, imp_vec3 av, imp_vec3 origin, imp_vec3 p)
{
	return imp_vec3_add(v, imp_vec3_cross(av, imp_vec3_sub(p, origin)));
}

/// imp_world_closest for a pair with a non-convex body in the step: the
/// contact imp_composite_contact2/3 picks among the pairs of children
/// within tol.
static bool composite_contact(const imp_world *w, const imp_shape *a, const imp_pose2 *a2, const imp_pose3 *a3,
			      imp_vec3 va, imp_vec3 wa, const imp_shape *b, const imp_pose2 *b2, const imp_pose3 *b3,
			      imp_vec3 vb, imp_vec3 wb, double tol, imp_simplex_cache *cache, imp_query_result *r,
			      double *least, int32_t *child, int *pairs)
{
	if (w->dim == 2) {
		imp_closest2_result c;
		if (imp_composite_contact2(a, *a2, imp_vec2_make(va.x, va.y), wa.z, b, *b2, imp_vec2_make(vb.x, vb.y), wb.z,
					   tol, cache, &c, least, pairs) != IMP_OK ||
		    c.state == IMP_STATE_DEGENERATE || !isfinite(c.distance))
			return false;
		r->distance = c.distance;
		r->point = imp_vec3_make(c.point_a.x, c.point_a.y, 0.0);
		r->body_point = imp_vec3_make(c.point_b.x, c.point_b.y, 0.0);
		r->normal = imp_vec3_make(c.normal.x, c.normal.y, 0.0);
		child[0] = c.child_a;
		child[1] = c.child_b;
		return true;
	}
	imp_closest3_result c;
	if (imp_composite_contact3(a, *a3, va, wa, b, *b3, vb, wb, tol, cache, &c, least, pairs) != IMP_OK ||
	    c.state == IMP_STATE_DEGENERATE || !isfinite(c.distance))
		return false;
	r->distance = c.distance;
	r->point = c.point_a;
	r->body_point = c.point_b;
	r->normal = c.normal;
	child[0] = c.child_a;
	child[1] = c.child_b;
	return true;
}

/// Counts n more narrow-phase calls (pairs of children answered) against a
/// pair's max_pair_calls and in the step's statistics: a look at a pair
/// with a non-convex body costs one per pair of children its queries
/// answer, so that the cap bounds the step's work on such a pair as on a
/// convex one (a long chain turning among bodies, its far end fast enough
/// that each look advances by a sliver of the step: fuzz finding,
/// test_step_cap_counts_children).
static void charge(imp_world *w, pair *pr, int n)
{
	if (n <= 0)
		return;
	pr->st->calls = (uint32_t)n <= UINT32_MAX - pr->st->calls ? pr->st->calls + (uint32_t)n : UINT32_MAX;
	w->step_stats.narrow_calls = n <= INT_MAX - w->step_stats.narrow_calls ? w->step_stats.narrow_calls + n : INT_MAX;
	if (pr->st->calls > (uint32_t)w->step_stats.most_pair_calls)
		w->step_stats.most_pair_calls = pr->st->calls <= INT_MAX ? (int)pr->st->calls : INT_MAX;
}

/// The narrow phase on a pair at step time t (Level 3, with the pair's
/// simplex cache). False when the query failed (a user support that is not
/// finite).
static bool probe_pair(imp_world *w, pair *pr, double t, double tol, probe *out)
{
	int32_t sa = key_lo(pr->key), sb = key_hi(pr->key);
	const body *a = &w->bodies[sa], *b = &w->bodies[sb];
	imp_pose2 a2, b2;
	imp_pose3 a3, b3;
	imp_world_pose_at(w, sa, t, &a2, &a3);
	imp_world_pose_at(w, sb, t, &b2, &b3);
	w->step_stats.narrow_calls++;
	imp_vec3 va, wa, vb, wb;
	imp_world_step_velocity(w, sa, &va, &wa);
	imp_world_step_velocity(w, sb, &vb, &wb);
	imp_query_result r;
	if (imp_shape_is_composite(a->shape) || imp_shape_is_composite(b->shape)) {
		// A non-convex pair in contact with several pairs of children
		// (a body in a corner of a level) reports the one it moves into.
		int pairs = 0;
		bool ok = composite_contact(w, a->shape, &a2, &a3, va, wa, b->shape, &b2, &b3, vb, wb, tol, &pr->cache,
					    &r, &out->least, out->child, &pairs);
		charge(w, pr, pairs - 1); // the look counted one
		if (!ok)
			return false;
	} else if (!imp_world_closest(w, a->shape, &a2, &a3, b->shape, &b2, &b3, &pr->cache, NULL, &r, NULL)) {
		return false;
	} else {
		out->least = r.distance;
		out->child[0] = out->child[1] = -1;
	}
	out->distance = r.distance;
	out->point_a = r.point;
	out->point_b = r.body_point;
	out->normal = r.normal;
	// A pair with a non-convex body is scheduled by composite_advance, not
	// by these: another pair of children may close along its own normal.
	out->approach = imp_vec3_dot(imp_vec3_sub(va, vb), out->normal);
	out->spin = imp_vec3_length(imp_vec3_cross(wa, out->normal)) * w->motions[sa].core_reach +
		    imp_vec3_length(imp_vec3_cross(wb, out->normal)) * w->motions[sb].core_reach;
	imp_vec3 pva = point_velocity(va, wa, imp_world_position_of(w, &a2, &a3), out->point_a);
	imp_vec3 pvb = point_velocity(vb, wb, imp_world_position_of(w, &b2, &b3), out->point_b);
	out->normal_speed = imp_vec3_dot(imp_vec3_sub(pvb, pva), out->normal);
	return true;
}

/// Puts a pair in the heap at step time t (or moves it there if queued).
static void heap_at(imp_world *w, pair *pr, double t)
{
	if (pr->st->queued) {
		imp_heap_update(&w->queue, pr->st->handle, t);
		return;
	}
	// Room was reserved for every pair of the world; new pairs made by a
	// callback's motion reserve theirs in reschedule(). Equal times come
	// out in the order of the pairs' body slots, whatever the broad phase.
	imp_status st = imp_heap_push(&w->queue, t, pr->key, pr->st->slot, &pr->st->handle);
	assert(st == IMP_OK);
	(void)st;
	pr->st->queued = 1;
	if (imp_heap_count(&w->queue) > w->step_stats.queue_peak)
		w->step_stats.queue_peak = imp_heap_count(&w->queue);
}

/// Queues a pair at step time t. A pair queued again at the time being
/// processed (a callback changed a motion, or a look found it must be looked
/// at again at once) waits for the next sweep at that time, after every pair
/// now due there: simultaneous contacts go round in sweeps (a column resting
/// on a floor is seen bottom to top, then again), never depth first between
/// two of them.
static void queue_at(imp_world *w, pair *pr, double t)
{
	if (t <= w->queue_now) {
		if (pr->st->queued && imp_heap_key(&w->queue, pr->st->handle) <= t)
			return; // due in this sweep
		if (pr->st->queued) {
			imp_heap_remove(&w->queue, pr->st->handle);
			pr->st->queued = 0;
		}
		if (pr->st->deferred == 0)
			w->deferred[w->deferred_count++] = pr;
		pr->st->deferred = 1;
		return;
	}
	if (pr->st->deferred == 1)
		pr->st->deferred = 2;
	heap_at(w, pr, t);
}

/// Takes a pair out of the queue and the next sweep.
static void unqueue(imp_world *w, pair *pr)
{
	if (pr->st->queued) {
		imp_heap_remove(&w->queue, pr->st->handle);
		pr->st->queued = 0;
	}
	if (pr->st->deferred == 1)
		pr->st->deferred = 2;
}

/// The next sweep at queue_now: the deferred pairs into the heap there.
static void next_sweep(imp_world *w)
{
	bool any = false;
	for (int32_t i = 0; i < w->deferred_count; i++) {
		pair *pr = w->deferred[i];
		if (pr->st->deferred == 1) {
			heap_at(w, pr, w->queue_now);
			any = true;
		}
		pr->st->deferred = 0;
	}
	w->deferred_count = 0;
	w->step_stats.sweeps += any;
}

/// Records a bound: no contact within the tolerance tol before step time t,
/// while the two bodies' motions hold. Returns t.
static double record_bound(imp_world *w, pair *pr, double t, double tol)
{
	pr->st->toi = w->time + t;
	pr->st->toi_tol = tol;
	pr->st->toi_ok = 1;
	pr->st->toi_serial[0] = w->motions[key_lo(pr->key)].serial;
	pr->st->toi_serial[1] = w->motions[key_hi(pr->key)].serial;
	return t;
}

/// Records a bound and queues the pair there when it falls within the step.
static void schedule(imp_world *w, pair *pr, double t, double tol)
{
	if (record_bound(w, pr, t, tol) <= w->step_dt)
		queue_at(w, pr, t);
}

/// A bound found without the narrow phase: the first step time from t on
/// at which the balls of the two bodies' reach about their origins (which
/// hold them however they turn) come within the tolerance, in closed form
/// (+inf: never, with these motions).
static double ball_bound(const imp_world *w, const pair *pr, double t, double tol)
{
	int32_t sa = key_lo(pr->key), sb = key_hi(pr->key);
	imp_vec3 va, wa, vb, wb, pa = imp_world_position_at(w, sa, t), pb = imp_world_position_at(w, sb, t);
	imp_world_step_velocity(w, sa, &va, &wa);
	imp_world_step_velocity(w, sb, &vb, &wb);
	double closest;
	double r = w->motions[sa].reach + w->motions[sb].reach + tol;
	return t + imp_ball_sweep(imp_vec3_sub(pb, pa), imp_vec3_sub(vb, va), r, INFINITY, &closest);
}

/// Gives a pair of the step the key t: queued there when t falls within the
/// step, else out of the queue with t kept as its bound.
static void rekey(imp_world *w, pair *pr, double t, double tol)
{
	if (t <= w->step_dt) {
		queue_at(w, pr, t);
		return;
	}
	unqueue(w, pr);
	record_bound(w, pr, t, tol);
}

/// For a pair with a non-convex body, after its look at t: the first time
/// some pair of children could reach its level, each at the rate along its
/// own normal (imp_composite_advance2/3 with the tolerance: a pair in
/// contact by schedule_contact's rule, another by schedule_advance's;
/// docs/toi.md); the whole pair's rate bounds it when that query fails.
static double composite_advance(imp_world *w, pair *pr, double t, double tol)
{
	int32_t sa = key_lo(pr->key), sb = key_hi(pr->key);
	const body *a = &w->bodies[sa], *b = &w->bodies[sb];
	imp_pose2 a2, b2;
	imp_pose3 a3, b3;
	imp_world_pose_at(w, sa, t, &a2, &a3);
	imp_world_pose_at(w, sb, t, &b2, &b3);
	imp_vec3 va, wa, vb, wb;
	imp_world_step_velocity(w, sa, &va, &wa);
	imp_world_step_velocity(w, sb, &vb, &wb);
	double spin = imp_vec3_length(wa) * w->motions[sa].core_reach + imp_vec3_length(wb) * w->motions[sb].core_reach;
	imp_vec3 dv = imp_vec3_sub(va, vb);
	int pairs = 0;
	double dt = w->dim == 2 ? imp_composite_advance2(a->shape, a2, b->shape, b2, imp_vec2_make(dv.x, dv.y), spin, 0.0,
							 tol, &pairs)
				: imp_composite_advance3(a->shape, a3, b->shape, b3, dv, spin, 0.0, tol, &pairs);
	charge(w, pr, pairs > 1 ? pairs : 1);
	if (isnan(dt)) {
		double rate = imp_vec3_length(dv) + spin;
		dt = rate > 0.0 ? 0.5 * tol / rate : INFINITY;
	}
	return dt;
}

static bool pair_is_composite(const imp_world *w, const pair *pr)
{
	return imp_shape_is_composite(w->bodies[key_lo(pr->key)].shape) ||
	       imp_shape_is_composite(w->bodies[key_hi(pr->key)].shape);
}

/// A pair within the tolerance, after its look at t: looked at again when
/// its distance may have fallen by half the tolerance (to below half the
/// tolerance under the contact, or by a turn: its far side can come down),
/// or when its separation along the normal may have grown to twice the
/// tolerance (then a contact is a new one). A pair whose distance nothing
/// makes fall nor grow is left for the step: only a change of motion, which
/// queues it again, can make it approach. A pair overlapping by more than
/// the tolerance is looked at again, while it approaches, when it may have
/// sunk half the tolerance below its last report (judge), and not for its
/// separation: it is the user's to separate.
static void schedule_contact(imp_world *w, pair *pr, const probe *p, double t, double tol, bool approach)
{
	// The pair was just taken from the queue: it is in neither the heap
	// nor the next sweep.
	pr->st->toi_ok = 0; // looked at afresh in the next step
	if (pair_is_composite(w, pr)) {
		// Each pair of children by the rule below for a pair in contact,
		// and one farther than the tolerance by schedule_advance's (a new
		// contact of another pair of children is to be seen when it comes
		// within half the tolerance, as another pair of bodies would be):
		// the first of those times (composite_advance). Not for a
		// separation: the next look sees it.
		(void)approach;
		double next = t + composite_advance(w, pr, t, tol);
		if (next <= w->step_dt)
			queue_at(w, pr, imp_max(next, t));
		return;
	}
	double rate = p->approach + p->spin, next = INFINITY;
	if (p->distance < -tol && approach && rate > 0.0)
		next = t + imp_max(p->distance - pr->st->rep_distance + 0.5 * tol, 0.5 * tol) / rate;
	else if (p->distance >= -tol && rate > 0.0)
		next = t + imp_max(p->distance + 0.5 * tol, 0.5 * tol) / rate;
	else if (p->distance >= -tol && rate < 0.0)
		next = t + (2.0 * tol - p->distance) / -rate;
	if (next <= w->step_dt)
		queue_at(w, pr, imp_max(next, t));
}

/// A pair apart by more than the tolerance: conservative advancement
/// (docs/toi.md) to where the gap could first be half the tolerance.
static void schedule_advance(imp_world *w, pair *pr, const probe *p, double t, double tol)
{
	if (pair_is_composite(w, pr)) {
		schedule(w, pr, t + composite_advance(w, pr, t, tol), tol);
		return;
	}
	double rate = p->approach + p->spin;
	schedule(w, pr, rate > 0.0 ? t + (p->distance - 0.5 * tol) / rate : INFINITY, tol);
}

/// Makes pr one of the step's pairs (its slot in the queued array, its
/// call count); room reserved by the caller. A pair reported in an earlier
/// step is looked at afresh from this step's start (so a contact that lasts
/// is reported once a step): true if so.
static bool enlist(imp_world *w, pair *pr)
{
	bool was_contact = pr->st->contact;
	pr->st->contact = 0;
	pr->st->step = w->step_stamp;
	pr->st->calls = 0;
	pr->st->queued = 0;
	pr->st->deferred = 0;
	pr->st->capped = 0;
	pr->st->rep_approach = 0;
	pr->st->slot = w->queued_count;
	w->queued[w->queued_count++] = pr;
	return was_contact;
}

/// Whether the two bodies of a pair have the motions they had when the
/// serials were taken.
static bool same_motions(const imp_world *w, const pair *pr, const uint32_t serial[2])
{
	return serial[0] == w->motions[key_lo(pr->key)].serial && serial[1] == w->motions[key_hi(pr->key)].serial;
}

/// Whether a pair's bound still holds for the tolerance tol: found with the
/// motions the bodies have now, for a tolerance no smaller.
static bool bound_holds(const imp_world *w, const pair *pr, double tol)
{
	return pr->st->toi_ok && tol <= pr->st->toi_tol && same_motions(w, pr, pr->st->toi_serial);
}

/// After the callback: each body whose motion it changed gets its box swept
/// over the rest of the step (the broad phase told when it leaves its
/// enlarged box) and each of its pairs is looked at again from time t.
static imp_status reschedule(imp_world *w, const step_ctx *c, double t)
{
	for (int32_t i = 0; i < w->changed_count; i++) {
		int32_t s = w->changed[i];
		body *b = &w->bodies[s];
		w->motions[s].changed = 0;
		imp_box rest = swept_box(w, s, t, c->dt, NULL, sweep_grow(w, c, s));
		imp_box grown = imp_box_union(&b->tight, &rest);
		set_tight(w, s, &grown);
		if (b->in_broad && !box_contains_all(&b->fat, &b->tight)) {
			w->oom = false;
			b->fat = fatten(w, b);
			imp_status st = imp_broad_move(w->broad, s, &b->fat);
			w->step_stats.broad_moves++;
			if (st != IMP_OK || w->oom) {
				// Out of the broad phase: the next update inserts it again
				// (room in the moved list was made when the step began).
				imp_broad_remove(w->broad, s);
				b->in_broad = 0;
				imp_world_mark_moved(w, s);
				return IMP_ERR_OUT_OF_MEMORY;
			}
		}
		if (!imp_grow(&w->alloc, (void **)&w->queued, &w->queued_cap, w->queued_count + w->pair_count,
			      sizeof *w->queued) ||
		    !imp_grow(&w->alloc, (void **)&w->deferred, &w->deferred_cap, w->queued_count + w->pair_count,
			      sizeof *w->deferred) ||
		    imp_heap_reserve(&w->queue, w->pair_count) != IMP_OK)
			return IMP_ERR_OUT_OF_MEMORY;
		for (pair *pr = b->pairs; pr != NULL; pr = list_next(pr, s)) {
			if (pr->st->step != w->step_stamp)
				enlist(w, pr);
			if (pr->st->capped)
				continue; // left for the step, reported at its end
			double tol = pair_tolerance(w, c, key_lo(pr->key), key_hi(pr->key));
			rekey(w, pr, ball_bound(w, pr, t, tol), tol);
			w->step_stats.rescheduled++;
		}
	}
	w->changed_count = 0;
	return IMP_OK;
}

/// A contact: stored, given to the callback, and the motions it changed
/// taken into account.
static imp_status report(imp_world *w, const step_ctx *c, pair *pr, const probe *p, double t, bool capped)
{
	if (w->contact_count == w->contact_cap &&
	    !imp_grow(&w->alloc, (void **)&w->contacts, &w->contact_cap, w->contact_count + 1, sizeof *w->contacts))
		return IMP_ERR_OUT_OF_MEMORY;
	imp_contact_event *e = &w->contacts[w->contact_count++];
	memset(e, 0, sizeof *e); // the padding too: events compare bit for bit
	e->a = imp_world_id_of(w, key_lo(pr->key));
	e->b = imp_world_id_of(w, key_hi(pr->key));
	e->t = t;
	e->time = w->time + t;
	e->distance = p->distance;
	e->point_a = p->point_a;
	e->point_b = p->point_b;
	e->normal = p->normal;
	e->normal_speed = p->normal_speed;
	e->capped = capped;
	w->step_stats.events++;
	if (c->fn == NULL)
		return IMP_OK;
	w->busy = true;
	w->in_step = true;
	w->step_now = t;
	c->fn(e, c->user);
	w->in_step = false;
	w->busy = false;
	return w->changed_count > 0 ? reschedule(w, c, t) : IMP_OK;
}

/// What a look at a pair within the tolerance leads to.
typedef enum verdict {
	WATCH,    ///< not reported; queued again (schedule_contact)
	REPORT,   ///< reported, then queued again
	DECLINED, ///< an approach reported and left as it was: left until a motion changes
} verdict;

/// A look at a pair at step time t found it within the tolerance tol:
/// whether to report it. The first time in the step it is (a new contact, or
/// a resting one seen at the step's start), always. After that, when it
/// approaches fast enough to overlap by more than the tolerance at the
/// step's end if it kept that speed (or faster than the resting speed, when
/// the option gives one) and it is not
/// the approach it was last reported with: a callback has changed either
/// body's motion since, or the last report was not of an approach. An
/// approach reported and left as it was is the user's choice: not reported
/// again until a motion changes. A pair overlapping by more than the
/// tolerance (it began the step so, or was let through) is reported again
/// only once it has also sunk half the tolerance deeper than at its last
/// report: its approaches cannot take turns with a neighbour's without end
/// at one time (a body stuck in another and reflected off a third), and it
/// is seen again as long as it is pushed deeper.
static verdict judge(const imp_world *w, const step_ctx *c, const pair *pr, const probe *p, double t, double tol,
		     bool *approach)
{
	double vn = p->normal_speed;
	// In a step of no time (an Impulse pass without motion) every approach.
	*approach = (c->resting > 0.0 && vn < -c->resting) ||
		    (vn < 0.0 && (c->dt == 0.0 || p->distance + vn * (c->dt - t) < -tol));
	if (!pr->st->contact)
		return REPORT;
	if (!*approach)
		return WATCH;
	// A non-convex pair's contact with other children than its last
	// report's is another contact (as another pair of bodies would be).
	if (p->child[0] != pr->st->rep_child[0] || p->child[1] != pr->st->rep_child[1])
		return REPORT;
	if (pr->st->rep_approach && same_motions(w, pr, pr->st->rep_serial))
		return DECLINED;
	return p->distance >= -tol || p->distance < pr->st->rep_distance - 0.5 * tol ? REPORT : WATCH;
}

/// The most contacts one look reports on a pair with a non-convex body.
#define COMPOSITE_REPORTS 8

/// After a look reported an approach of a pair with a non-convex body and
/// the callback changed a motion: the pair again at once, while another
/// pair of its children within the tolerance approaches (imp_composite_
/// contact2/3 picks the fastest), up to COMPOSITE_REPORTS contacts in all.
/// A body resting in a valley of a level touches two of its segments: as
/// two bodies, each would be a pair reported in the same sweep; as one, the
/// pair answers one of them a look (simulation2d's wavy floor: one look a
/// report left 1 step of 420 ending with an overlap 1.4 times the
/// tolerance; this, none).
static imp_status composite_reports(imp_world *w, const step_ctx *c, pair *pr, double t, double tol)
{
	for (int k = 1; k < COMPOSITE_REPORTS && !same_motions(w, pr, pr->st->rep_serial); ++k) {
		probe p;
		pr->st->calls++;
		if (!probe_pair(w, pr, t, tol, &p) || p.distance > tol)
			return IMP_OK;
		bool approach;
		if (judge(w, c, pr, &p, t, tol, &approach) != REPORT || !approach)
			return IMP_OK;
		pr->st->rep_distance = p.distance;
		pr->st->rep_child[0] = p.child[0];
		pr->st->rep_child[1] = p.child[1];
		pr->st->rep_serial[0] = w->motions[key_lo(pr->key)].serial;
		pr->st->rep_serial[1] = w->motions[key_hi(pr->key)].serial;
		schedule_contact(w, pr, &p, t, tol, approach);
		imp_status st = report(w, c, pr, &p, t, false);
		if (st != IMP_OK)
			return st;
	}
	return IMP_OK;
}

/// Looks at a pair popped at step time t: a contact reported, or the pair
/// queued again.
static imp_status look(imp_world *w, const step_ctx *c, pair *pr, double t)
{
	pr->st->calls++;
	if ((int)pr->st->calls > w->step_stats.most_pair_calls)
		w->step_stats.most_pair_calls = (int)pr->st->calls;
	probe p;
	double tol = pair_tolerance(w, c, key_lo(pr->key), key_hi(pr->key));
	if (!probe_pair(w, pr, t, tol, &p)) {
		pr->st->toi_ok = 0; // a user support failed: looked at again next step
		return IMP_OK;
	}
	if (p.distance > tol) {
		pr->st->contact = 0;
		schedule_advance(w, pr, &p, t, tol);
		return IMP_OK;
	}
	bool approach;
	verdict v = judge(w, c, pr, &p, t, tol, &approach);
	if (v == DECLINED) {
		pr->st->toi_ok = 0; // out of the queue since it was taken, until a motion changes
		return IMP_OK;
	}
	pr->st->contact = 1;
	if (v == REPORT) {
		pr->st->rep_distance = p.distance;
		pr->st->rep_child[0] = p.child[0];
		pr->st->rep_child[1] = p.child[1];
	}
	schedule_contact(w, pr, &p, t, tol, approach);
	if (v != REPORT)
		return IMP_OK;
	pr->st->rep_approach = approach;
	pr->st->rep_serial[0] = w->motions[key_lo(pr->key)].serial;
	pr->st->rep_serial[1] = w->motions[key_hi(pr->key)].serial;
	imp_status st = report(w, c, pr, &p, t, false);
	if (approach && same_motions(w, pr, pr->st->rep_serial)) {
		// The callback left the approach as it was: declined now rather
		// than at the next look.
		unqueue(w, pr);
		pr->st->toi_ok = 0;
	}
	if (st == IMP_OK && approach && pair_is_composite(w, pr))
		st = composite_reports(w, c, pr, t, tol);
	return st;
}

/// The queue processed in time order to the end of the step: the pairs due
/// at one time in sweeps (those queued again at that time wait for the
/// next), each pair at most max_calls looks.
static imp_status run_queue(imp_world *w, const step_ctx *c)
{
	for (;;) {
		imp_heap_entry e;
		bool any = imp_heap_peek(&w->queue, &e);
		if (w->deferred_count > 0 && (!any || e.key > w->queue_now)) {
			next_sweep(w);
			continue;
		}
		if (!any || e.key > c->dt)
			return IMP_OK;
		imp_heap_pop(&w->queue, &e);
		pair *pr = w->queued[e.value];
		pr->st->queued = 0;
		w->queue_now = e.key;
		if (pr->st->calls >= (uint32_t)c->max_calls) {
			if (!pr->st->capped)
				w->step_stats.capped_pairs++;
			pr->st->capped = 1;
			pr->st->toi_ok = 0;
			continue;
		}
		imp_status st = look(w, c, pr, e.key);
		if (st != IMP_OK)
			return st;
	}
}

static int pair_ptr_cmp(const void *x, const void *y)
{
	uint64_t a = (*(pair *const *)x)->key, b = (*(pair *const *)y)->key;
	return (a > b) - (a < b);
}

/// The pairs that reached the cap, looked at and reported at the step's
/// end (in the order of their body slots), so that a pair the step gave up
/// on is never silently left: the callback sees where it stands and may
/// respond, and whatever its response makes due at the end is processed
/// (which may cap more pairs: reported in turn).
static imp_status report_capped(imp_world *w, const step_ctx *c)
{
	for (;;) {
		int32_t n = 0;
		if (w->step_stats.capped_pairs == 0)
			return IMP_OK;
		if (!imp_grow(&w->alloc, (void **)&w->capped, &w->capped_cap, w->queued_count, sizeof *w->capped))
			return IMP_ERR_OUT_OF_MEMORY;
		for (int32_t i = 0; i < w->queued_count; i++)
			if (w->queued[i]->st->capped == 1)
				w->capped[n++] = w->queued[i];
		if (n == 0)
			return IMP_OK;
		qsort(w->capped, (size_t)n, sizeof *w->capped, pair_ptr_cmp);
		w->queue_now = c->dt;
		for (int32_t i = 0; i < n; i++) {
			pair *pr = w->capped[i];
			pr->st->capped = 2;
			probe p;
			if (!probe_pair(w, pr, c->dt, pair_tolerance(w, c, key_lo(pr->key), key_hi(pr->key)), &p))
				continue;
			imp_status st = report(w, c, pr, &p, c->dt, true);
			if (st != IMP_OK)
				return st;
		}
		imp_status st = run_queue(w, c);
		if (st != IMP_OK)
			return st;
	}
}

/// Room for everything the step can need apart from new pairs and
/// contacts: every body may move, every pair be queued.
static bool step_reserve(imp_world *w)
{
	int32_t n = w->body_high;
	int32_t had = w->smotion_cap;
	if (!imp_grow(&w->alloc, (void **)&w->smotions, &w->smotion_cap, n, sizeof *w->smotions))
		return false;
	if (w->smotion_cap > had) // set_in 0 is no step's stamp
		memset(w->smotions + had, 0, (size_t)(w->smotion_cap - had) * sizeof *w->smotions);
	return imp_world_pair_steps_reserve(w) &&
	       imp_grow(&w->alloc, (void **)&w->step_bodies, &w->step_body_cap, n, sizeof *w->step_bodies) &&
	       imp_grow(&w->alloc, (void **)&w->changed, &w->changed_cap, n, sizeof *w->changed) &&
	       imp_grow(&w->alloc, (void **)&w->movers, &w->mover_cap, n, sizeof *w->movers) &&
	       imp_grow(&w->alloc, (void **)&w->moved, &w->moved_cap, w->moved_count + n, sizeof *w->moved) &&
	       imp_grow(&w->alloc, (void **)&w->queued, &w->queued_cap, w->pair_count, sizeof *w->queued) &&
	       imp_grow(&w->alloc, (void **)&w->deferred, &w->deferred_cap, w->pair_count, sizeof *w->deferred) &&
	       imp_heap_reserve(&w->queue, w->pair_count) == IMP_OK;
}

/// The movers list pruned of bodies without a motion, and each left checked
/// for the step: its end position within range.
static imp_status step_check(imp_world *w, double dt)
{
	int32_t kept = 0;
	imp_status result = IMP_OK;
	for (int32_t i = 0; i < w->mover_count; i++) {
		int32_t s = w->movers[i];
		motion *m = &w->motions[s];
		const body *b = &w->bodies[s];
		if (!b->alive || b->type == IMP_BODY_STATIC || !has_motion(m)) {
			m->listed = 0;
			continue;
		}
		w->movers[kept++] = s;
		if (result != IMP_OK)
			continue;
		if (m->has_target) {
			// The target is within range; the velocity that reaches it in
			// dt must be too, as a velocity set is (a tiny dt gives a huge one).
			imp_vec3 v, av;
			if (dt > 0.0)
				imp_world_target_velocity(w, s, dt, &v, &av);
			if (dt > 0.0 && (vec3_status(v) != IMP_OK || vec3_status(av) != IMP_OK))
				result = IMP_ERR_OUT_OF_RANGE;
			continue;
		}
		if (!imp_world_path_in_range(imp_world_position_of(w, &b->pose2, &b->pose3), m->v, dt) || !(m->reach <= IMP_MAX_COORDINATE))
			result = IMP_ERR_OUT_OF_RANGE;
	}
	w->mover_count = kept;
	return result;
}

/// The step's start: each moving body's step motion (a target turned into
/// the velocity that reaches it) and its box swept over the step in place
/// of its box, for the broad phase.
static void step_begin(imp_world *w, const step_ctx *c)
{
	w->step_body_count = 0;
	for (int32_t i = 0; i < w->mover_count; i++) {
		int32_t s = w->movers[i];
		motion *m = &w->motions[s];
		body *b = &w->bodies[s];
		if (m->has_target && c->dt == 0.0)
			continue; // a target waits for a step that has time
		step_motion *sm = imp_world_smotion(w, s);
		m->step = w->step_stamp;
		m->started = 0;
		m->changed = 0;
		sm->t0 = 0.0;
		sm->base2 = b->pose2;
		sm->base3 = b->pose3;
		if (m->has_target) {
			imp_world_target_velocity(w, s, c->dt, &sm->sv, &sm->sw);
			m->serial++; // a new velocity each step
		} else {
			sm->sv = m->v;
			sm->sw = m->w;
		}
		w->step_bodies[w->step_body_count++] = s;
		imp_box swept = swept_box(w, s, 0.0, c->dt, &b->rel, sweep_grow(w, c, s));
		set_tight(w, s, &swept);
		b->inside = box_contains_all(&b->fat, &b->tight);
		imp_world_mark_moved(w, s);
	}
}

/// Puts back each moving body's box at its pose (the step failed: the poses
/// are the ones it began with) and the motions the callback set: the world
/// as it was before the step.
static void step_undo(imp_world *w)
{
	for (int32_t i = 0; i < w->step_body_count; i++) {
		int32_t s = w->step_bodies[i];
		body *b = &w->bodies[s];
		motion *m = &w->motions[s];
		step_motion *sm = imp_world_smotion(w, s);
		if (sm->set_in == w->step_stamp) {
			m->v = sm->saved_v;
			m->w = sm->saved_w;
			m->has_target = sm->saved_target;
			sm->set_in = 0;
		}
		imp_box placed;
		place_box(w, &b->rel, &b->pose2, &b->pose3, &placed);
		set_tight(w, s, &placed);
		b->inside = box_contains_all(&b->fat, &b->tight);
		m->step = 0;
		m->changed = 0;
		m->serial++; // bounds found in the failed step do not hold
	}
	w->changed_count = 0;
	w->step_body_count = 0;
	w->contact_count = 0;
	imp_heap_empty(&w->queue);
}

/// The step's end: each moving body at its pose at dt (a target exactly),
/// its box there, marked moved for the next update.
static void step_commit(imp_world *w, const step_ctx *c)
{
	for (int32_t i = 0; i < w->step_body_count; i++) {
		int32_t s = w->step_bodies[i];
		body *b = &w->bodies[s];
		motion *m = &w->motions[s];
		imp_pose2 p2;
		imp_pose3 p3;
		bool target = m->has_target; // a velocity set in the callback drops it
		if (target) {
			p2 = m->target2;
			p3 = m->target3;
			m->has_target = 0;
			m->v = m->w = imp_vec3_make(0.0, 0.0, 0.0);
			m->serial++;
		} else {
			imp_world_pose_at(w, s, c->dt, &p2, &p3);
		}
		// Turned: the rotation is not the one b->rel was made for (the
		// step's start), bit for bit. Not "the step's angular velocity is
		// not 0, or a target": a callback that stopped a turning body at a
		// contact (imp_body_set_velocity2 inside the step) left sw at 0
		// with the body turned up to then, and its box stayed that of the
		// old rotation, so the next update missed pairs it touched (fuzz
		// findings 34, 38 and 40). A pose that did not turn keeps its
		// rotation exactly (imp_motion2_at, imp_motion3_at).
		bool turned = !same_rotation(w, b, &p2, &p3);
		// A computed rotation renormalised, so that rounding cannot pile
		// up over many steps; a target is the user's, bit for bit, and so
		// is a rotation the step did not turn.
		if (turned && !target) {
			if (w->dim == 2) {
				double l = sqrt(p2.q.c * p2.q.c + p2.q.s * p2.q.s);
				p2.q.c /= l;
				p2.q.s /= l;
			} else {
				p3.q = imp_quat_normalize(p3.q);
			}
		}
		if (w->dim == 2)
			b->pose2 = p2;
		else
			b->pose3 = p3;
		m->step = 0;
		imp_box rel;
		if (turned && imp_world_shape_rel_box(w, b->shape, &b->pose2, &b->pose3, &rel) == IMP_OK)
			b->rel = rel;
		else if (turned) // a user support that failed: the ball of the reach
			b->rel = (imp_box){{-m->reach, -m->reach, w->dim == 3 ? -m->reach : 0.0},
					   {m->reach, m->reach, w->dim == 3 ? m->reach : 0.0}};
		imp_box placed;
		place_box(w, &b->rel, &b->pose2, &b->pose3, &placed);
		set_tight(w, s, &placed);
		b->inside = box_contains_all(&b->fat, &b->tight);
		imp_world_mark_changed(w, s);
	}
	w->step_body_count = 0;
}

/// The pairs of the moving bodies whose swept boxes overlap, queued at the
/// bound they keep from earlier steps (skipped when it lies past the step)
/// or at the step's start.
static void step_candidates(imp_world *w, const step_ctx *c)
{
	for (int32_t i = 0; i < w->step_body_count; i++) {
		int32_t s = w->step_bodies[i];
		pair *next;
		for (pair *pr = w->bodies[s].pairs; pr != NULL; pr = next) {
			next = list_next(pr, s);
			if (pr->st->step == w->step_stamp)
				continue;
			if (pr->hot->doomed) {
				// Gone from the broad phase: deleted here unless the next
				// update owes it an end event, so that a world that is only
				// stepped does not keep the pairs its bodies left behind.
				if (!pr->hot->touching)
					imp_world_pair_delete(w, pr);
				continue;
			}
			bool was_contact = enlist(w, pr);
			const body *a = &w->bodies[key_lo(pr->key)], *b = &w->bodies[key_hi(pr->key)];
			if (!box_overlap_all(&a->tight, &b->tight))
				continue;
			w->step_stats.candidates++;
			// The bound kept from earlier steps, or a new one from the
			// balls (kept for the steps to come when it is past this one).
			double tol = pair_tolerance(w, c, key_lo(pr->key), key_hi(pr->key));
			double t = !was_contact && bound_holds(w, pr, tol)
					   ? imp_max(pr->st->toi - w->time, 0.0)
					   : record_bound(w, pr, ball_bound(w, pr, 0.0, tol), tol);
			if (t > c->dt)
				continue;
			queue_at(w, pr, t);
			w->step_stats.queued++;
		}
	}
}

imp_status imp_world_step(imp_world *w, double dt, const imp_step_opts *opts)
{
	if (w == NULL)
		return IMP_ERR_NULL_ARGUMENT;
	if (imp_world_busy(w))
		return IMP_ERR_BUSY;
	if (isnan(dt) || isinf(dt))
		return IMP_ERR_NOT_FINITE;
	if (dt < 0.0 || dt > IMP_MAX_COORDINATE)
		return IMP_ERR_OUT_OF_RANGE;
	imp_step_opts o = opts != NULL ? *opts : imp_default_step_opts();
	imp_status st = check_step_opts(&o);
	if (st != IMP_OK)
		return st;
	if ((st = step_check(w, dt)) != IMP_OK)
		return st;
	// From here a failure leaves no contacts of an earlier step behind.
	memset(&w->step_stats, 0, sizeof w->step_stats);
	w->contact_count = 0;
	if (!step_reserve(w))
		return IMP_ERR_OUT_OF_MEMORY;
	step_ctx c = {dt, o.tolerance, o.resting_speed, o.max_pair_calls, o.on_contact, o.user};
	w->changed_count = 0;
	w->queued_count = 0;
	w->deferred_count = 0;
	w->queue_now = -INFINITY;
	w->step_dt = dt;
	if (++w->step_stamp == 0)
		w->step_stamp = 1;
	uint64_t ops0 = w->queue.ops;
	imp_heap_empty(&w->queue);

	// The broad phase over the swept boxes (pass 1 of an update), its
	// statistics kept apart from the update's.
	step_begin(w, &c);
	w->step_stats.moving = w->step_body_count;
	int looked_at = 0; // the update's statistic, not the step's
	st = imp_world_broad_update(w, &looked_at, &w->step_stats.broad_moves);
	if (st == IMP_OK && !step_reserve(w)) // the pass may have made pairs
		st = IMP_ERR_OUT_OF_MEMORY;
	if (st != IMP_OK) {
		step_undo(w);
		return st;
	}
	step_candidates(w, &c);
	st = run_queue(w, &c);
	if (st == IMP_OK)
		st = report_capped(w, &c);
	w->step_stats.heap_ops = (int64_t)(w->queue.ops - ops0);
	imp_heap_empty(&w->queue);
	for (int32_t i = 0; i < w->queued_count; i++)
		w->queued[i]->st->queued = w->queued[i]->st->deferred = 0;
	w->deferred_count = 0;
	if (st != IMP_OK) {
		step_undo(w);
		return st;
	}
	step_commit(w, &c);
	w->time += dt;
	w->step_stats.state = w->step_stats.capped_pairs > 0 ? IMP_STEP_PAIR_CAPPED : IMP_STEP_COMPLETE;
	return IMP_OK;
}

imp_contact_events imp_world_get_contacts(const imp_world *w)
{
	imp_contact_events e = {NULL, 0};
	if (w != NULL) {
		e.items = w->contacts;
		e.count = w->contact_count;
	}
	return e;
}

imp_step_stats imp_world_get_step_stats(const imp_world *w)
{
	imp_step_stats s;
	memset(&s, 0, sizeof s);
	return w != NULL ? w->step_stats : s;
}

double imp_world_time(const imp_world *w)
{
	return w != NULL ? w->time : 0.0;
}
