// SPDX-License-Identifier: MIT
// Motions: a linear and an angular velocity per body, or a target pose the
// next step reaches (docs/toi.md). They live in a per-slot array beside the
// bodies, so that an update's walks over bodies read none of them; a
// motion's serial changes with every change, and each pair keeps its bound
// with the two serials it was found with. Also a body's pose at a time of
// the step in progress, and its velocity over the step.
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

/* ---- motion ---- */

/// Common checks of the motion setters; the slot, or -1 with *st set.
static int32_t motion_slot(imp_world *w, imp_body_id id, int dim, imp_status *st)
{
	*st = IMP_OK;
	if (w == NULL) {
		*st = IMP_ERR_NULL_ARGUMENT;
		return -1;
	}
	if (w->dim != dim) {
		*st = IMP_ERR_DIMENSION_MISMATCH;
		return -1;
	}
	if (imp_world_reading(w)) {
		*st = IMP_ERR_BUSY; // inside a query's callback (the step's may: docs/toi.md)
		return -1;
	}
	int32_t s = imp_world_slot_of(w, id);
	if (s < 0) {
		*st = IMP_ERR_BAD_ID;
		return -1;
	}
	if (w->bodies[s].type == IMP_BODY_STATIC)
		*st = IMP_ERR_STATIC_BODY;
	return *st == IMP_OK ? s : -1;
}

/// Puts a body with a motion in the movers list.
static bool list_mover(imp_world *w, int32_t s)
{
	motion *m = &w->motions[s];
	if (m->listed)
		return true;
	if (!imp_grow(&w->alloc, (void **)&w->movers, &w->mover_cap, w->mover_count + 1, sizeof *w->movers))
		return false;
	w->movers[w->mover_count++] = s;
	m->listed = 1;
	return true;
}

static bool vec3_equal(imp_vec3 a, imp_vec3 b)
{
	return a.x == b.x && a.y == b.y && a.z == b.z;
}

static imp_status set_velocity(imp_world *w, int32_t s, imp_vec3 v, imp_vec3 av)
{
	motion *m = &w->motions[s];
	// The same velocity again (a simulator that sets every body's each
	// frame): nothing changes, and the pairs keep their bounds.
	const step_motion *now = in_step(w, s) ? imp_world_smotion(w, s) : NULL;
	if (!m->has_target && vec3_equal(m->v, v) && vec3_equal(m->w, av) &&
	    (now == NULL || (vec3_equal(now->sv, v) && vec3_equal(now->sw, av))))
		return IMP_OK;
	if (w->in_step) {
		// Inside the step's callback: the new motion starts at the
		// contact's time from where the body is then. Room for the lists
		// was made when the step began.
		double now = w->step_now;
		imp_pose2 p2;
		imp_pose3 p3;
		imp_world_pose_at(w, s, now, &p2, &p3);
		if (!imp_world_path_in_range(imp_world_position_of(w, &p2, &p3), v, w->step_dt - now))
			return IMP_ERR_OUT_OF_RANGE;
		if (!in_step(w, s)) {
			m->step = w->step_stamp;
			m->started = 1;
			w->step_bodies[w->step_body_count++] = s;
		}
		step_motion *sm = imp_world_smotion(w, s);
		if (sm->set_in != w->step_stamp) { // the motion before the step, for step_undo
			sm->set_in = w->step_stamp;
			sm->saved_v = m->v;
			sm->saved_w = m->w;
			sm->saved_target = m->has_target;
		}
		sm->t0 = now;
		sm->base2 = p2;
		sm->base3 = p3;
		sm->sv = v;
		sm->sw = av;
		if (!m->changed) {
			m->changed = 1;
			w->changed[w->changed_count++] = s;
		}
		list_mover(w, s);
	} else if (!list_mover(w, s)) {
		return IMP_ERR_OUT_OF_MEMORY;
	}
	m->v = v;
	m->w = av;
	m->has_target = 0;
	m->serial++;
	return IMP_OK;
}

imp_status imp_body_set_velocity2(imp_world *w, imp_body_id id, imp_vec2 linear, double angular)
{
	imp_status st;
	int32_t s = motion_slot(w, id, 2, &st);
	if (s < 0)
		return st;
	imp_vec3 v = imp_vec3_make(linear.x, linear.y, 0.0), av = imp_vec3_make(0.0, 0.0, angular);
	if ((st = vec3_status(v)) != IMP_OK || (st = vec3_status(av)) != IMP_OK)
		return st;
	return set_velocity(w, s, v, av);
}

imp_status imp_body_set_velocity3(imp_world *w, imp_body_id id, imp_vec3 linear, imp_vec3 angular)
{
	imp_status st;
	int32_t s = motion_slot(w, id, 3, &st);
	if (s < 0)
		return st;
	if ((st = vec3_status(linear)) != IMP_OK || (st = vec3_status(angular)) != IMP_OK)
		return st;
	return set_velocity(w, s, linear, angular);
}

/// The velocity in effect: the step's while the body moves in a step, else
/// the one set.
static void velocity_of(const imp_world *w, int32_t s, imp_vec3 *v, imp_vec3 *av)
{
	const motion *m = &w->motions[s];
	if (in_step(w, s)) {
		*v = imp_world_smotion(w, s)->sv;
		*av = imp_world_smotion(w, s)->sw;
	} else {
		*v = m->v;
		*av = m->w;
	}
}

/// The getters' common part: the velocity in effect for a body of a world
/// of dimension `dim`.
static imp_status get_velocity(const imp_world *w, imp_body_id id, int dim, bool any_out, imp_vec3 *v,
			       imp_vec3 *av)
{
	if (w == NULL || !any_out)
		return IMP_ERR_NULL_ARGUMENT;
	int32_t s = imp_world_slot_of(w, id);
	if (s < 0)
		return IMP_ERR_BAD_ID;
	if (w->dim != dim)
		return IMP_ERR_DIMENSION_MISMATCH;
	velocity_of(w, s, v, av);
	return IMP_OK;
}

imp_status imp_body_get_velocity2(const imp_world *w, imp_body_id id, imp_vec2 *linear, double *angular)
{
	imp_vec3 v, av;
	imp_status st = get_velocity(w, id, 2, linear != NULL || angular != NULL, &v, &av);
	if (st == IMP_OK && linear != NULL)
		*linear = imp_vec2_make(v.x, v.y);
	if (st == IMP_OK && angular != NULL)
		*angular = av.z;
	return st;
}

imp_status imp_body_get_velocity3(const imp_world *w, imp_body_id id, imp_vec3 *linear, imp_vec3 *angular)
{
	imp_vec3 v, av;
	imp_status st = get_velocity(w, id, 3, linear != NULL || angular != NULL, &v, &av);
	if (st == IMP_OK && linear != NULL)
		*linear = v;
	if (st == IMP_OK && angular != NULL)
		*angular = av;
	return st;
}

static imp_status set_target(imp_world *w, imp_body_id id, const imp_pose2 *p2, const imp_pose3 *p3)
{
	if (w != NULL && imp_world_busy(w))
		return IMP_ERR_BUSY;
	imp_status st;
	int32_t s = motion_slot(w, id, p2 != NULL ? 2 : 3, &st);
	if (s < 0)
		return st;
	st = p2 != NULL ? imp_pose2_status(*p2) : imp_pose3_status(*p3);
	if (st != IMP_OK)
		return st;
	if (!list_mover(w, s))
		return IMP_ERR_OUT_OF_MEMORY;
	motion *m = &w->motions[s];
	if (p2 != NULL)
		m->target2 = *p2;
	else
		m->target3 = *p3;
	m->has_target = 1;
	m->serial++;
	return IMP_OK;
}

imp_status imp_body_set_target_pose2(imp_world *w, imp_body_id id, imp_pose2 target)
{
	return set_target(w, id, &target, NULL);
}

imp_status imp_body_set_target_pose3(imp_world *w, imp_body_id id, imp_pose3 target)
{
	return set_target(w, id, NULL, &target);
}

void imp_world_target_velocity(const imp_world *w, int32_t s, double dt, imp_vec3 *v, imp_vec3 *av)
{
	const body *b = &w->bodies[s];
	const motion *m = &w->motions[s];
	if (w->dim == 2) {
		*v = imp_vec3_make((m->target2.p.x - b->pose2.p.x) / dt, (m->target2.p.y - b->pose2.p.y) / dt, 0.0);
		*av = imp_vec3_make(0.0, 0.0, imp_turn2(b->pose2.q, m->target2.q) / dt);
		return;
	}
	*v = imp_vec3_scale(1.0 / dt, imp_vec3_sub(m->target3.p, b->pose3.p));
	*av = imp_vec3_scale(1.0 / dt, imp_turn3(b->pose3.q, m->target3.q));
}
