// SPDX-License-Identifier: MIT
// The world's time-of-impact step (imp_world_step) against independent
// oracles, written against the public headers only:
// - tunnelling: a small box, disc or sphere shot at a 0.01-thick wall at 1
//   to 10^6 per unit time, spinning or not, is reported once, between the
//   first time within the tolerance and the first time within half of it
//   (closed form for discs and spheres, else a dense scan of imp_distance
//   with bisection), with consistent witness points, normal and normal
//   speed; also with the automatic tolerance;
// - random scenes of a few hundred bodies (2D polygons and discs, 3D boxes,
//   spheres and polytopes; static, kinematic and dynamic; velocities, spins
//   and target poses; filters) over three steps, against a brute-force
//   reference of 1000 substeps per step: events in time order, every pair
//   the reference sees in contact reported no later, every event within the
//   tolerance at its time by imp_motion_at; also with velocities changed
//   between steps, and the bounds kept across steps given up when a motion
//   changes (a velocity, a teleport, a body at rest set moving);
// - the same with the Impulse loop (velocities reflected in the callback),
//   the reference run over the bodies' piecewise motions;
// - velocities changed in the callback in small scenes (a ball bouncing in
//   a box, two balls swapping velocities, a chain of bodies set moving one
//   by the other);
// - bodies added and removed between steps, resting contact, target
//   poses, the per-pair call cap, the statistics and the clock;
// - every error path (the world unchanged), the calls refused inside the
//   callback, out of memory at every allocation of a step (also with a
//   callback that sets a body at rest moving);
// - random sequences of every call that changes a world, steps among them,
//   ending with the touching pairs of a world built afresh;
// - determinism (two runs bit for bit; the three broad phases the same).
#include <float.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <impact/impact.h>

#include "counting_alloc.h"
#include "oracle_world.h"

#define V2(x, y) imp_vec2_make((x), (y))
#define V3(x, y, z) imp_vec3_make((x), (y), (z))
#define TWO_PI 6.283185307179586

// ---------------------------------------------------------------------------
// Worlds and bodies.

static imp_world *make_world(int dim, imp_broad_kind kind)
{
	imp_world_def def = imp_default_world_def();
	def.dim = dim;
	def.broad_phase = kind;
	imp_world *w = NULL;
	assert_int_equal(imp_world_create(&def, &w), IMP_OK);
	return w;
}

static imp_body_id add2(imp_world *w, const imp_shape *s, imp_body_type type, imp_pose2 pose)
{
	imp_body_def d = imp_default_body_def();
	d.type = type;
	d.shape = s;
	d.pose2 = pose;
	imp_body_id id;
	assert_int_equal(imp_world_add_body(w, &d, &id), IMP_OK);
	return id;
}

static imp_body_id add3(imp_world *w, const imp_shape *s, imp_body_type type, imp_pose3 pose)
{
	imp_body_def d = imp_default_body_def();
	d.type = type;
	d.shape = s;
	d.pose3 = pose;
	imp_body_id id;
	assert_int_equal(imp_world_add_body(w, &d, &id), IMP_OK);
	return id;
}

static imp_pose3 pose3_at(double x, double y, double z)
{
	return imp_pose3_make(V3(x, y, z), imp_quat_identity());
}

static imp_pose2 get_pose2(const imp_world *w, imp_body_id id)
{
	imp_pose2 p;
	assert_int_equal(imp_body_get_pose2(w, id, &p), IMP_OK);
	return p;
}

static imp_pose3 get_pose3(const imp_world *w, imp_body_id id)
{
	imp_pose3 p;
	assert_int_equal(imp_body_get_pose3(w, id, &p), IMP_OK);
	return p;
}

static double vlen3(imp_vec3 v)
{
	return sqrt(v.x * v.x + v.y * v.y + v.z * v.z);
}

/// Random vectors, one coordinate a statement: the order in which a call's
/// arguments are evaluated is the compiler's, so draws inside one call made
/// other scenes with clang than with gcc.
static imp_vec2 rand2(ow_rng *r, double lo, double hi)
{
	double x = ow_range(r, lo, hi);
	double y = ow_range(r, lo, hi);
	return V2(x, y);
}

static imp_vec3 rand3(ow_rng *r, double lo, double hi)
{
	double x = ow_range(r, lo, hi);
	double y = ow_range(r, lo, hi);
	double z = ow_range(r, lo, hi);
	return V3(x, y, z);
}

/// A pose at a random place in [-e, e] on each axis, turned at random.
static imp_pose2 rand_pose2(ow_rng *r, double e, double turn)
{
	imp_vec2 p = rand2(r, -e, e);
	return imp_pose2_make(p.x, p.y, ow_range(r, 0, turn));
}

static imp_pose3 rand_pose3(ow_rng *r, double e)
{
	imp_vec3 p = rand3(r, -e, e);
	return imp_pose3_make(p, ow_quat(r));
}

static imp_vec3 v2to3(imp_vec2 v)
{
	return V3(v.x, v.y, 0.0);
}

/// The velocity of the world point p of a body moving with (v, w) whose
/// origin is at c: v + w x (p - c); 2D when w has only z.
static imp_vec3 point_velocity(imp_vec3 v, imp_vec3 w, imp_vec3 c, imp_vec3 p)
{
	return imp_vec3_add(v, imp_vec3_cross(w, imp_vec3_sub(p, c)));
}

// ---------------------------------------------------------------------------
// The contact recorder: the callback copies each event (and may react to
// it); every step is checked against what every step must satisfy.

typedef struct recorder recorder;
typedef void react_fn(recorder *r, const imp_contact_event *e);

struct recorder {
	imp_world *w;
	imp_contact_event *ev;
	int n, cap;
	react_fn *react;
	void *ctx;
};

static void rec_on_contact(const imp_contact_event *e, void *user)
{
	recorder *r = user;
	if (r->n == r->cap) {
		r->cap = r->cap ? 2 * r->cap : 64;
		r->ev = realloc(r->ev, (size_t)r->cap * sizeof *r->ev);
		assert_non_null(r->ev);
	}
	r->ev[r->n++] = *e;
	if (r->react)
		r->react(r, e);
}

static void rec_init(recorder *r, imp_world *w)
{
	memset(r, 0, sizeof *r);
	r->w = w;
}

static void rec_free(recorder *r)
{
	free(r->ev);
	memset(r, 0, sizeof *r);
}

static imp_step_opts rec_opts(recorder *r, double tol)
{
	imp_step_opts o = imp_default_step_opts();
	o.tolerance = tol;
	o.on_contact = rec_on_contact;
	o.user = r;
	return o;
}

/// Steps (must succeed) and checks what holds for every step: the contacts
/// are the callback's events in the same order; times nondecreasing in [0,
/// dt] and on the clock; a's index below b's; unit normal (z = 0 in 2D);
/// distance within `tol_max` (skipped when infinite); the witness points
/// as collision.h has them: normal . (point_b - point_a) == distance, and
/// apart exactly by distance along the normal when separated; the clock
/// advanced by dt; the stats' event count and state. Returns the contacts.
static imp_contact_events step_checked(imp_world *w, double dt, const imp_step_opts *o, recorder *r, double tol_max)
{
	int dim = imp_world_dim(w);
	double t0 = imp_world_time(w);
	if (r)
		r->n = 0;
	imp_status st = imp_world_step(w, dt, o);
	if (st != IMP_OK)
		fail_msg("imp_world_step: %s", imp_status_string(st));
	assert_true(imp_world_time(w) == t0 + dt);
	imp_contact_events c = imp_world_get_contacts(w);
	imp_step_stats s = imp_world_get_step_stats(w);
	assert_int_equal(s.events, c.count);
	assert_true((s.state == IMP_STEP_COMPLETE) == (s.capped_pairs == 0));
	if (r && o && o->on_contact == rec_on_contact) {
		assert_int_equal(r->n, c.count);
		if (c.count)
			assert_memory_equal(r->ev, c.items, (size_t)c.count * sizeof *c.items);
	}
	for (int i = 0; i < c.count; ++i) {
		const imp_contact_event *e = &c.items[i];
		if (i > 0 && !(e->t >= c.items[i - 1].t))
			fail_msg("contact %d at t %.17g after contact %d at t %.17g", i, e->t, i - 1, c.items[i - 1].t);
		assert_true(e->t >= 0.0 && e->t <= dt);
		assert_true(e->time == t0 + e->t);
		assert_true(e->a.index < e->b.index);
		assert_true(imp_body_is_valid(w, e->a) && imp_body_is_valid(w, e->b));
		assert_true(fabs(vlen3(e->normal) - 1.0) <= 1e-9);
		if (dim == 2)
			assert_true(e->normal.z == 0.0 && e->point_a.z == 0.0 && e->point_b.z == 0.0);
		if (e->capped && !(e->t == dt && s.capped_pairs > 0))
			fail_msg("contact %d: capped, at t %.17g of a step of %.17g with %d capped pairs", i, e->t, dt,
				 s.capped_pairs);
		if (isfinite(tol_max) && !e->capped && !(e->distance <= tol_max))
			fail_msg("contact %d: distance %.17g above the tolerance %.17g", i, e->distance, tol_max);
		double scale = 1.0 + vlen3(e->point_a);
		imp_vec3 gap = imp_vec3_sub(e->point_b, e->point_a);
		imp_vec3 off = imp_vec3_sub(gap, imp_vec3_scale(e->distance, e->normal));
		if (!(fabs(imp_vec3_dot(gap, e->normal) - e->distance) <= 1e-9 * scale) ||
		    (e->distance >= 0.0 && !(vlen3(off) <= 1e-9 * scale)))
			fail_msg("contact %d: point_b - point_a = (%g %g %g) is not distance %g along the normal", i, gap.x,
				 gap.y, gap.z, e->distance);
		assert_true(isfinite(e->normal_speed));
	}
	return c;
}

/// The number of contacts of the pair {x, y}, and the first one.
static int pair_contacts(imp_contact_events c, imp_body_id x, imp_body_id y, const imp_contact_event **first)
{
	int n = 0;
	if (first)
		*first = NULL;
	for (int i = 0; i < c.count; ++i) {
		const imp_contact_event *e = &c.items[i];
		if ((imp_body_id_equal(e->a, x) && imp_body_id_equal(e->b, y)) ||
		    (imp_body_id_equal(e->a, y) && imp_body_id_equal(e->b, x))) {
			if (n++ == 0 && first)
				*first = e;
		}
	}
	return n;
}

static bool event_names(const imp_contact_event *e, imp_body_id id)
{
	return imp_body_id_equal(e->a, id) || imp_body_id_equal(e->b, id);
}

// ---------------------------------------------------------------------------
// The scan oracle: a pair of shapes moving rigidly, its distance at any
// time by imp_motion2/3_at and imp_distance2/3, and the first time in a
// window at which it falls to a level.

typedef struct mover {
	int dim;
	const imp_shape *a, *b;
	imp_motion2 ma2, mb2;
	imp_motion3 ma3, mb3;
} mover;

static double mover_distance(const mover *m, double t)
{
	if (m->dim == 2)
		return imp_distance2(m->a, imp_motion2_at(m->ma2, t), m->b, imp_motion2_at(m->mb2, t), NULL);
	return imp_distance3(m->a, imp_motion3_at(m->ma3, t), m->b, imp_motion3_at(m->mb3, t), NULL);
}

/// The first of n + 1 evenly spaced times in [lo, hi] at which the distance
/// is at most `level`, refined by bisection down to adjacent doubles;
/// INFINITY when no sample is. The distance at lo must be above the level
/// (the window must start before the contact).
static double first_within(const mover *m, double lo, double hi, int n, double level)
{
	double d_lo = mover_distance(m, lo);
	if (!(d_lo > level))
		fail_msg("scan window starts in contact: distance %.17g at %.17g, level %g", d_lo, lo, level);
	double prev = lo;
	for (int i = 1; i <= n; ++i) {
		double t = i == n ? hi : lo + (hi - lo) * i / n;
		if (mover_distance(m, t) <= level) {
			double a = prev, b = t;
			for (int k = 0; k < 200; ++k) {
				double mid = 0.5 * (a + b);
				if (mid <= a || mid >= b)
					break;
				if (mover_distance(m, mid) <= level)
					b = mid;
				else
					a = mid;
			}
			return b;
		}
		prev = t;
	}
	return INFINITY;
}

// ---------------------------------------------------------------------------
// 1. Tunnelling: a 0.01-thick static wall (x in [-0.005, 0.005], 10 tall
// and deep) and a small dynamic body (a box of half size 0.05, or a disc or
// sphere of radius 0.05) starting at x0 = -0.3 speed - 0.1 and shot along +x
// at `speed` for one step of dt = 1: the whole way through the wall within
// the step, so a fixed-step test would miss it.

/// Returns false (after printing why) when the contact's time or distance
/// is off the oracle's; other failures end the test.
static bool wall_case(int dim, bool round, double speed, double spin, double tol, imp_broad_kind kind)
{
	const double half = 0.05, wall_half = 0.005;
	imp_shape *wall = NULL, *body = NULL;
	double R; // every point of the body within R of its origin
	if (dim == 2) {
		assert_int_equal(imp_shape_box2(wall_half, 5.0, 0.0, &wall), IMP_OK);
		if (round)
			assert_int_equal(imp_shape_circle(V2(0, 0), half, &body), IMP_OK);
		else
			assert_int_equal(imp_shape_box2(half, half, 0.0, &body), IMP_OK);
		R = round ? half : half * sqrt(2.0);
	} else {
		assert_int_equal(imp_shape_box3(wall_half, 5.0, 5.0, 0.0, &wall), IMP_OK);
		if (round)
			assert_int_equal(imp_shape_sphere(V3(0, 0, 0), half, &body), IMP_OK);
		else
			assert_int_equal(imp_shape_box3(half, half, half, 0.0, &body), IMP_OK);
		R = round ? half : half * sqrt(3.0);
	}
	double R_wall = dim == 2 ? sqrt(wall_half * wall_half + 25.0) : sqrt(wall_half * wall_half + 50.0);
	// The contact tolerance in force: automatic is 1e-6 x the smaller bound
	// diameter (world.h).
	double tol_eff = tol > 0.0 ? tol : 2e-6 * fmin(R_wall, R);
	double x0 = -0.3 * speed - 0.1;
	imp_world *w = make_world(dim, kind);
	imp_body_id wid, bid;
	mover m;
	memset(&m, 0, sizeof m);
	m.dim = dim;
	m.a = wall;
	m.b = body;
	imp_vec3 wv; // the body's angular velocity as a vector
	if (dim == 2) {
		wid = add2(w, wall, IMP_BODY_STATIC, imp_pose2_make(0, 0, 0));
		imp_pose2 p = imp_pose2_make(x0, 0.01, 0.3);
		bid = add2(w, body, IMP_BODY_DYNAMIC, p);
		assert_int_equal(imp_body_set_velocity2(w, bid, V2(speed, 0), spin), IMP_OK);
		m.ma2 = (imp_motion2){imp_pose2_make(0, 0, 0), V2(0, 0), 0.0};
		m.mb2 = (imp_motion2){p, V2(speed, 0), spin};
		wv = V3(0, 0, spin);
	} else {
		wid = add3(w, wall, IMP_BODY_STATIC, imp_pose3_identity());
		imp_pose3 p = imp_pose3_make(V3(x0, 0.01, -0.02), imp_quat_from_axis_angle(V3(1, 2, 3), 0.4));
		bid = add3(w, body, IMP_BODY_DYNAMIC, p);
		wv = V3(0, spin, 0.5 * spin);
		assert_int_equal(imp_body_set_velocity3(w, bid, V3(speed, 0, 0), wv), IMP_OK);
		m.ma3 = (imp_motion3){imp_pose3_identity(), V3(0, 0, 0), V3(0, 0, 0)};
		m.mb3 = (imp_motion3){p, V3(speed, 0, 0), wv};
	}
	recorder rec;
	rec_init(&rec, w);
	imp_step_opts o = rec_opts(&rec, tol);
	// A slow spinning body needs more conservative-advancement calls than
	// the cap may allow, and the step then says so
	// (IMP_STEP_PAIR_CAPPED, test_pair_cap); here the cap is out of the way.
	o.max_pair_calls = 1 << 20;
	imp_contact_events c = step_checked(w, 1.0, &o, &rec, tol_eff);
	assert_int_equal(imp_world_get_step_stats(w).state, IMP_STEP_COMPLETE);
	const imp_contact_event *e;
	int n = pair_contacts(c, wid, bid, &e);
	if (n != 1 || c.count != 1)
		fail_msg("%dD %s speed %g spin %g: %d contacts of the pair (%d in all), expected 1", dim,
			 round ? "round" : "box", speed, spin, n, c.count);
	bool wall_is_a = imp_body_id_equal(e->a, wid);

	// The oracle: the first times within the tolerance, within half of it,
	// and touching. The contact is "the first time within the tolerance":
	// no earlier than t_tol (rounding aside), and, since that can only be
	// decided up to a band, no later than the first time within half the
	// tolerance (which is also before touching). The body cannot come within
	// tol_eff before its bounding ball does (t_enter); at t_face its
	// inscribed ball (radius 0.05) reaches the wall, so it touches by then.
	double t_enter = fmax(0.0, (-wall_half - tol_eff - R - x0) / speed * (1.0 - 1e-12));
	double t_face = (-wall_half - half - x0) / speed;
	double t_tol, t_half, t_touch;
	if (round) {
		t_tol = (-wall_half - half - tol_eff - x0) / speed;
		t_half = (-wall_half - half - 0.5 * tol_eff - x0) / speed;
		t_touch = t_face;
	} else {
		t_tol = first_within(&m, t_enter, t_face, 4000, tol_eff);
		t_half = first_within(&m, t_enter, t_face, 4000, 0.5 * tol_eff);
		t_touch = first_within(&m, t_enter, t_face, 4000, 0.0);
		assert_true(isfinite(t_tol) && isfinite(t_half) && isfinite(t_touch));
	}
	// Rounding: positions of size 0.3 speed, computed by the world and here
	// possibly differently: 1e-13 (1 + speed) in distance; in time that over
	// the closing rate seen between the two levels.
	double slack_d = 1e-13 * (1.0 + speed);
	double rate = t_touch > t_tol ? (tol_eff) / (t_touch - t_tol) : speed;
	double slack_t = 4.0 * slack_d / rate + 4.0 * DBL_EPSILON;
	double d = mover_distance(&m, e->t);
	bool ok = e->t <= t_half + slack_t && e->t <= t_touch + slack_t && e->t >= t_tol - slack_t &&
		  d <= tol_eff + slack_d && d >= -slack_d;
	if (!ok)
		print_message("%dD %s speed %g spin %g tol %g%s: contact at t %.17g (distance then %.17g, reported "
			      "%.17g); within the tolerance from %.17g, within half of it from %.17g, touching at %.17g\n",
			      dim, round ? "round" : "box", speed, spin, tol_eff, tol > 0.0 ? "" : " (automatic)", e->t, d,
			      e->distance, t_tol, t_half, t_touch);
	assert_true(fabs(fmax(e->distance, 0.0) - d) <= slack_d + 1e-12);

	// The normal from the wall to the body points along -x; the wall's
	// witness is on its -x face; the normal speed is the closing speed of the
	// body's witness point, negative.
	imp_vec3 n_wb = wall_is_a ? e->normal : imp_vec3_neg(e->normal);
	imp_vec3 p_wall = wall_is_a ? e->point_a : e->point_b, p_body = wall_is_a ? e->point_b : e->point_a;
	if (!(n_wb.x <= -0.99))
		fail_msg("%dD speed %g spin %g: normal (%g %g %g) from the wall to the body", dim, speed, spin, n_wb.x,
			 n_wb.y, n_wb.z);
	assert_true(fabs(p_wall.x + wall_half) <= 1e-9 + slack_d);
	assert_true(e->normal_speed < 0.0);
	imp_vec3 c_body;
	if (dim == 2)
		c_body = v2to3(imp_motion2_at(m.mb2, e->t).p);
	else
		c_body = imp_motion3_at(m.mb3, e->t).p;
	imp_vec3 vp = point_velocity(V3(speed, 0, 0), wv, c_body, p_body);
	double ns = imp_vec3_dot(vp, n_wb); // the wall is still
	if (!(fabs(e->normal_speed - ns) <= 1e-9 * (speed + fabs(spin))))
		fail_msg("%dD speed %g spin %g: normal speed %.17g, expected %.17g", dim, speed, spin, e->normal_speed,
			 ns);
	if (spin == 0.0)
		assert_true(fabs(e->normal_speed + speed) <= 1e-6 * speed);

	// Ballistic: the body ends where its motion takes it.
	if (dim == 2) {
		imp_pose2 want = imp_motion2_at(m.mb2, 1.0), got = get_pose2(w, bid);
		assert_true(fabs(got.p.x - want.p.x) <= 1e-12 * (1.0 + speed) && fabs(got.p.y - want.p.y) <= 1e-12);
		assert_true(fabs(got.q.c - want.q.c) <= 1e-12 && fabs(got.q.s - want.q.s) <= 1e-12);
	} else {
		imp_pose3 want = imp_motion3_at(m.mb3, 1.0), got = get_pose3(w, bid);
		assert_true(vlen3(imp_vec3_sub(got.p, want.p)) <= 1e-12 * (1.0 + speed));
		double dq = fmin(fabs(got.q.x - want.q.x) + fabs(got.q.y - want.q.y) + fabs(got.q.z - want.q.z) +
					 fabs(got.q.w - want.q.w),
				 fabs(got.q.x + want.q.x) + fabs(got.q.y + want.q.y) + fabs(got.q.z + want.q.z) +
					 fabs(got.q.w + want.q.w));
		assert_true(dq <= 1e-12);
	}
	rec_free(&rec);
	imp_world_destroy(w);
	imp_shape_destroy(wall);
	imp_shape_destroy(body);
	return ok;
}

static void test_tunnelling(void **state)
{
	(void)state;
	const double spins[] = {0.0, 5.0, 50.0};
	int k = 0, bad = 0, bad_auto = 0;
	for (int dim = 2; dim <= 3; ++dim)
		for (int round = 0; round < 2; ++round)
			for (double speed = 1.0; speed <= 1e6; speed *= 10.0)
				for (int s = 0; s < 3; ++s, ++k)
					bad += !wall_case(dim, round, speed, spins[s], 1e-6, (imp_broad_kind)(k % 3));
	// The automatic tolerance: world.h's 1e-6 x the smaller bound diameter.
	bad_auto += !wall_case(2, false, 1e3, 5.0, 0.0, IMP_BROAD_SWEEP);
	bad_auto += !wall_case(3, true, 1e5, 0.0, 0.0, IMP_BROAD_HASH);
	bad_auto += !wall_case(3, false, 10.0, 50.0, 0.0, IMP_BROAD_NAIVE);
	if (bad || bad_auto)
		fail_msg("%d of %d wall cases off the oracle with tolerance 1e-6, %d of 3 with the automatic tolerance", bad,
			 k, bad_auto);
}

// ---------------------------------------------------------------------------
// Random scenes: what the worlds are told, and the motion of every body
// over the step from its pose at the step's start.

typedef struct rbody {
	imp_shape *shape;
	double R; ///< every point of the shape within R of its origin
	imp_body_type type;
	imp_filter filter;
	bool target;    ///< moved by a target pose (kinematic), not a velocity
	imp_motion2 m2; ///< pose at the step's start, velocity
	imp_motion3 m3;
} rbody;

typedef struct rscene {
	int dim, n;
	rbody *b;
} rscene;

static imp_shape *random_shape2(ow_rng *r, double s, double *R)
{
	imp_shape *out = NULL;
	switch (ow_int(r, 3)) {
	case 0: {
		double hx = s * ow_range(r, 0.4, 1.0), hy = s * ow_range(r, 0.4, 1.0), rad = ow_int(r, 3) ? 0.0 : 0.1 * s;
		assert_int_equal(imp_shape_box2(hx, hy, rad, &out), IMP_OK);
		*R = sqrt(hx * hx + hy * hy) + rad;
		break;
	}
	case 1: {
		imp_vec2 p[8];
		int n = 3 + ow_int(r, 6);
		double rad = ow_int(r, 3) ? 0.0 : 0.05 * s;
		*R = 0.0;
		for (int i = 0; i < n; ++i) {
			double a = ow_range(r, 0, TWO_PI), d = s * sqrt(ow_range(r, 0.2, 1.0));
			p[i] = V2(d * cos(a), d * sin(a));
			*R = fmax(*R, sqrt(p[i].x * p[i].x + p[i].y * p[i].y));
		}
		*R += rad;
		assert_int_equal(imp_shape_polygon(p, n, rad, &out), IMP_OK);
		break;
	}
	default: {
		imp_vec2 c = rand2(r, -0.3, 0.3);
		c = V2(c.x * s, c.y * s);
		double rad = s * ow_range(r, 0.5, 1.0);
		assert_int_equal(imp_shape_circle(c, rad, &out), IMP_OK);
		*R = sqrt(c.x * c.x + c.y * c.y) + rad;
		break;
	}
	}
	return out;
}

static imp_shape *random_shape3(ow_rng *r, double s, double *R)
{
	imp_shape *out = NULL;
	switch (ow_int(r, 3)) {
	case 0: {
		double hx = s * ow_range(r, 0.4, 1.0), hy = s * ow_range(r, 0.4, 1.0), hz = s * ow_range(r, 0.4, 1.0);
		double rad = ow_int(r, 3) ? 0.0 : 0.1 * s;
		assert_int_equal(imp_shape_box3(hx, hy, hz, rad, &out), IMP_OK);
		*R = sqrt(hx * hx + hy * hy + hz * hz) + rad;
		break;
	}
	case 1: {
		imp_vec3 p[10];
		int n = 4 + ow_int(r, 7);
		double rad = ow_int(r, 3) ? 0.0 : 0.05 * s;
		*R = 0.0;
		for (int i = 0; i < n; ++i) {
			imp_quat q = ow_quat(r); // its vector part: a direction
			double d = s * cbrt(ow_range(r, 0.1, 1.0));
			double l = sqrt(q.x * q.x + q.y * q.y + q.z * q.z) + 1e-300;
			p[i] = V3(d * q.x / l, d * q.y / l, d * q.z / l);
			*R = fmax(*R, vlen3(p[i]));
		}
		*R += rad;
		assert_int_equal(imp_shape_polytope(p, n, rad, &out), IMP_OK);
		break;
	}
	default: {
		imp_vec2 c2 = rand2(r, -0.3, 0.3);
		imp_vec3 c = V3(c2.x * s, c2.y * s, 0.0);
		double rad = s * ow_range(r, 0.5, 1.0);
		assert_int_equal(imp_shape_sphere(c, rad, &out), IMP_OK);
		*R = vlen3(c) + rad;
		break;
	}
	}
	return out;
}

/// n bodies in a cube of half side `extent`: 15% static, 25% kinematic,
/// the rest dynamic; a sixth of the others at rest; the moving ones with
/// velocities up to 3 per axis (one in twenty at 40), spins up to 5 (none
/// for a quarter); a third of the moving kinematic bodies are given their
/// motion as a target pose (their turn over the step below pi).
static void rscene_make(rscene *sc, int dim, int n, double extent, uint64_t seed)
{
	ow_rng r = {seed};
	sc->dim = dim;
	sc->n = n;
	sc->b = calloc((size_t)n, sizeof *sc->b);
	assert_non_null(sc->b);
	for (int i = 0; i < n; ++i) {
		rbody *b = &sc->b[i];
		double s = ow_range(&r, 0.25, 0.6);
		b->shape = dim == 2 ? random_shape2(&r, s, &b->R) : random_shape3(&r, s, &b->R);
		b->type = ow_random_type(&r);
		b->filter = ow_random_filter(&r);
		bool rest = b->type == IMP_BODY_STATIC || ow_int(&r, 6) == 0;
		double vmax = ow_int(&r, 20) == 0 ? 40.0 : 3.0, wmax = ow_int(&r, 4) == 0 ? 0.0 : 5.0;
		if (rest)
			vmax = wmax = 0.0;
		if (dim == 2) {
			b->m2.pose = rand_pose2(&r, extent, TWO_PI);
			b->m2.v = rand2(&r, -vmax, vmax);
			b->m2.w = ow_range(&r, -wmax, wmax);
		} else {
			b->m3.pose = rand_pose3(&r, extent);
			b->m3.v = rand3(&r, -vmax, vmax);
			imp_vec3 axis = rand3(&r, -1, 1);
			double l = vlen3(axis);
			b->m3.w = l > 0.1 ? imp_vec3_scale(ow_range(&r, -wmax, wmax) / l, axis) : V3(0, 0, 0);
		}
		b->target = !rest && b->type == IMP_BODY_KINEMATIC && ow_int(&r, 3) == 0;
	}
}

static void rscene_free(rscene *sc)
{
	for (int i = 0; i < sc->n; ++i)
		imp_shape_destroy(sc->b[i].shape);
	free(sc->b);
	memset(sc, 0, sizeof *sc);
}

static bool rb_moving(const rscene *sc, int i)
{
	const rbody *b = &sc->b[i];
	if (sc->dim == 2)
		return b->m2.v.x != 0.0 || b->m2.v.y != 0.0 || b->m2.w != 0.0;
	return b->m3.v.x != 0.0 || b->m3.v.y != 0.0 || b->m3.v.z != 0.0 || b->m3.w.x != 0.0 || b->m3.w.y != 0.0 ||
	       b->m3.w.z != 0.0;
}

/// Whether bodies i and j may be reported: not both static, the filter rule
/// (oracle_world's own copy of Box2D's rule), at least one moving.
static bool rb_may_pair(const rscene *sc, int i, int j)
{
	const rbody *a = &sc->b[i], *b = &sc->b[j];
	if (a->type == IMP_BODY_STATIC && b->type == IMP_BODY_STATIC)
		return false;
	return ow_filter_pairs(a->filter, b->filter) && (rb_moving(sc, i) || rb_moving(sc, j));
}

/// Adds the scene's bodies to a world in order, ids into ids[0 .. n).
static void rscene_add(const rscene *sc, imp_world *w, imp_body_id *ids)
{
	for (int i = 0; i < sc->n; ++i) {
		const rbody *b = &sc->b[i];
		imp_body_def d = imp_default_body_def();
		d.type = b->type;
		d.shape = b->shape;
		d.filter = b->filter;
		d.pose2 = b->m2.pose;
		d.pose3 = b->m3.pose;
		assert_int_equal(imp_world_add_body(w, &d, &ids[i]), IMP_OK);
	}
}

/// Gives the world the scene's motions for a step of dt: velocities, or
/// for target bodies the pose their velocity reaches at dt.
static void rscene_set_motions(const rscene *sc, imp_world *w, const imp_body_id *ids, double dt)
{
	for (int i = 0; i < sc->n; ++i) {
		const rbody *b = &sc->b[i];
		if (b->type == IMP_BODY_STATIC)
			continue;
		if (sc->dim == 2) {
			if (b->target)
				assert_int_equal(imp_body_set_target_pose2(w, ids[i], imp_motion2_at(b->m2, dt)), IMP_OK);
			else
				assert_int_equal(imp_body_set_velocity2(w, ids[i], b->m2.v, b->m2.w), IMP_OK);
		} else {
			if (b->target)
				assert_int_equal(imp_body_set_target_pose3(w, ids[i], imp_motion3_at(b->m3, dt)), IMP_OK);
			else
				assert_int_equal(imp_body_set_velocity3(w, ids[i], b->m3.v, b->m3.w), IMP_OK);
		}
	}
}

/// After a step: the scene's poses become the world's (checked against
/// the motions), and target bodies stop.
static void rscene_advance(rscene *sc, const imp_world *w, const imp_body_id *ids, double dt)
{
	for (int i = 0; i < sc->n; ++i) {
		rbody *b = &sc->b[i];
		if (sc->dim == 2) {
			imp_pose2 want = imp_motion2_at(b->m2, dt), got = get_pose2(w, ids[i]);
			double err = fabs(got.p.x - want.p.x) + fabs(got.p.y - want.p.y) + fabs(got.q.c - want.q.c) +
				     fabs(got.q.s - want.q.s);
			if (!(err <= 1e-9))
				fail_msg("body %d ends at (%g %g) off its motion's (%g %g) by %g", i, got.p.x, got.p.y,
					 want.p.x, want.p.y, err);
			b->m2.pose = got;
			if (b->target) {
				b->m2.v = V2(0, 0);
				b->m2.w = 0.0;
				b->target = false;
			}
		} else {
			imp_pose3 want = imp_motion3_at(b->m3, dt), got = get_pose3(w, ids[i]);
			double dq = fmin(fabs(got.q.x - want.q.x) + fabs(got.q.y - want.q.y) + fabs(got.q.z - want.q.z) +
						 fabs(got.q.w - want.q.w),
					 fabs(got.q.x + want.q.x) + fabs(got.q.y + want.q.y) + fabs(got.q.z + want.q.z) +
						 fabs(got.q.w + want.q.w));
			double err = vlen3(imp_vec3_sub(got.p, want.p)) + dq;
			if (!(err <= 1e-9))
				fail_msg("body %d ends off its motion by %g", i, err);
			b->m3.pose = got;
			if (b->target) {
				b->m3.v = V3(0, 0, 0);
				b->m3.w = V3(0, 0, 0);
				b->target = false;
			}
		}
	}
}

static imp_vec3 rb_pos(const rscene *sc, int i)
{
	return sc->dim == 2 ? v2to3(sc->b[i].m2.pose.p) : sc->b[i].m3.pose.p;
}

static imp_vec3 rb_vel(const rscene *sc, int i)
{
	return sc->dim == 2 ? v2to3(sc->b[i].m2.v) : sc->b[i].m3.v;
}

static imp_vec3 rb_ang(const rscene *sc, int i)
{
	return sc->dim == 2 ? V3(0, 0, sc->b[i].m2.w) : sc->b[i].m3.w;
}

static double rb_distance(const rscene *sc, int i, int j, double t)
{
	const rbody *a = &sc->b[i], *b = &sc->b[j];
	if (sc->dim == 2)
		return imp_distance2(a->shape, imp_motion2_at(a->m2, t), b->shape, imp_motion2_at(b->m2, t), NULL);
	return imp_distance3(a->shape, imp_motion3_at(a->m3, t), b->shape, imp_motion3_at(b->m3, t), NULL);
}

/// The signed distance (Level 3) of bodies i and j at time t.
static double rb_signed_distance(const rscene *sc, int i, int j, double t)
{
	const rbody *a = &sc->b[i], *b = &sc->b[j];
	if (sc->dim == 2) {
		imp_closest2_result r;
		assert_int_equal(imp_closest2(a->shape, imp_motion2_at(a->m2, t), b->shape, imp_motion2_at(b->m2, t),
					      NULL, &r),
				 IMP_OK);
		return r.distance;
	}
	imp_closest3_result r;
	assert_int_equal(
		imp_closest3(a->shape, imp_motion3_at(a->m3, t), b->shape, imp_motion3_at(b->m3, t), NULL, &r), IMP_OK);
	return r.distance;
}

/// A pair the reference saw within the tolerance at some substep.
typedef struct ref_pair {
	int i, j;     ///< scene indices, i < j
	int k_tol;    ///< first substep within tol
	int k_half;   ///< first substep within tol / 2 (-1: none)
	double d0;    ///< the distance at the step's start
} ref_pair;

/// The dense reference: every pair that may pair, at substeps k dt / S (k =
/// 0 .. S), brute force. A pair's origins move on straight lines and every
/// point of a body is within R of its origin, so substeps at which the
/// origins are farther apart than R_i + R_j + tol cannot be within the
/// tolerance: only the others are queried (a closed-form interval).
static int reference(const rscene *sc, double dt, double tol, int S, ref_pair **out)
{
	int n = 0, cap = 64;
	ref_pair *p = malloc((size_t)cap * sizeof *p);
	assert_non_null(p);
	double h = dt / S;
	for (int i = 0; i < sc->n; ++i) {
		for (int j = i + 1; j < sc->n; ++j) {
			if (!rb_may_pair(sc, i, j))
				continue;
			imp_vec3 dp = imp_vec3_sub(rb_pos(sc, j), rb_pos(sc, i));
			imp_vec3 dv = imp_vec3_sub(rb_vel(sc, j), rb_vel(sc, i));
			double reach = sc->b[i].R + sc->b[j].R + tol + 1e-9;
			double qa = imp_vec3_dot(dv, dv), qb = 2.0 * imp_vec3_dot(dp, dv);
			double qc = imp_vec3_dot(dp, dp) - reach * reach;
			double t1 = 0.0, t2 = dt;
			if (qa == 0.0) {
				if (qc > 0.0)
					continue;
			} else {
				double disc = qb * qb - 4.0 * qa * qc;
				if (disc < 0.0)
					continue;
				double sq = sqrt(disc);
				t1 = fmax(t1, (-qb - sq) / (2.0 * qa));
				t2 = fmin(t2, (-qb + sq) / (2.0 * qa));
				if (t1 > t2)
					continue;
			}
			int k_lo = (int)floor(t1 / h) - 1, k_hi = (int)ceil(t2 / h) + 1;
			k_lo = k_lo < 0 ? 0 : k_lo;
			k_hi = k_hi > S ? S : k_hi;
			int k_tol = -1, k_half = -1;
			for (int k = k_lo; k <= k_hi; ++k) {
				double d = rb_distance(sc, i, j, dt * k / S);
				if (d <= tol && k_tol < 0)
					k_tol = k;
				if (d <= 0.5 * tol && k_half < 0) {
					k_half = k;
					break; // what the checks need is known
				}
			}
			if (k_tol < 0)
				continue;
			if (n == cap) {
				cap *= 2;
				p = realloc(p, (size_t)cap * sizeof *p);
				assert_non_null(p);
			}
			p[n++] = (ref_pair){i, j, k_tol, k_half, rb_distance(sc, i, j, 0.0)};
		}
	}
	*out = p;
	return n;
}

/// Scene index of a body id (ids in index order of a fresh world are not
/// assumed: a table by slot).
typedef struct id_map {
	int *of; ///< by id.index
	int len;
} id_map;

static void id_map_make(id_map *m, const imp_body_id *ids, int n)
{
	m->len = 1;
	for (int i = 0; i < n; ++i)
		if ((int)ids[i].index + 1 > m->len)
			m->len = (int)ids[i].index + 1;
	m->of = malloc((size_t)m->len * sizeof *m->of);
	assert_non_null(m->of);
	for (int i = 0; i < m->len; ++i)
		m->of[i] = -1;
	for (int i = 0; i < n; ++i)
		m->of[ids[i].index] = i;
}

static int id_map_get(const id_map *m, const imp_body_id *ids, imp_body_id id)
{
	if ((int)id.index >= m->len || m->of[id.index] < 0)
		return -1;
	int i = m->of[id.index];
	return imp_body_id_equal(ids[i], id) ? i : -1;
}

/// One step of a random scene held against the reference (see test 2).
/// Returns the number of failures (each printed).
static int check_scene_step(rscene *sc, imp_world *w, const imp_body_id *ids, double dt, double tol, int S,
			    const char *label)
{
	recorder rec;
	rec_init(&rec, w);
	imp_step_opts o = rec_opts(&rec, tol);
	rscene_set_motions(sc, w, ids, dt);
	imp_contact_events c = step_checked(w, dt, &o, &rec, tol);
	imp_step_stats st = imp_world_get_step_stats(w);
	assert_int_equal(st.state, IMP_STEP_COMPLETE);
	int moving = 0;
	for (int i = 0; i < sc->n; ++i)
		moving += rb_moving(sc, i);
	assert_int_equal(st.moving, moving);
	assert_true(st.queued <= st.candidates && st.queue_peak <= st.queued);
	assert_true(st.heap_ops >= st.queued && st.narrow_calls >= c.count);
	assert_true(st.narrow_calls <= (int64_t)st.candidates + (int64_t)st.queued * imp_default_step_opts().max_pair_calls);
	assert_int_equal(st.rescheduled, 0);

	id_map map;
	id_map_make(&map, ids, sc->n);
	int *ci = malloc((size_t)(c.count + 1) * sizeof *ci), *cj = malloc((size_t)(c.count + 1) * sizeof *cj);
	assert_true(ci && cj);
	int failures = 0;
	// Every event: a pair that may pair, within the tolerance at that time
	// by the motions (imp_motion_at), its normal speed from the motions.
	for (int e = 0; e < c.count; ++e) {
		const imp_contact_event *ev = &c.items[e];
		int i = id_map_get(&map, ids, ev->a), j = id_map_get(&map, ids, ev->b);
		assert_true(i >= 0 && j >= 0);
		ci[e] = i;
		cj[e] = j;
		if (!rb_may_pair(sc, i, j)) {
			print_message("%s: contact of bodies %d and %d, which may not pair\n", label, i, j);
			failures++;
			continue;
		}
		double d = rb_distance(sc, i, j, ev->t);
		if (ev->distance < 0.0)
			d = rb_signed_distance(sc, i, j, ev->t);
		if (!(d <= tol + 1e-9) || !(fabs(fmax(ev->distance, 0.0) - fmax(d, 0.0)) <= 1e-9) ||
		    (ev->distance < 0.0 && !(fabs(ev->distance - d) <= 1e-9))) {
			print_message("%s: contact of %d and %d at t %.17g: distance %.17g by the motions, %.17g reported\n",
				      label, i, j, ev->t, d, ev->distance);
			failures++;
		}
		imp_vec3 ca, cb;
		if (sc->dim == 2) {
			ca = v2to3(imp_motion2_at(sc->b[i].m2, ev->t).p);
			cb = v2to3(imp_motion2_at(sc->b[j].m2, ev->t).p);
		} else {
			ca = imp_motion3_at(sc->b[i].m3, ev->t).p;
			cb = imp_motion3_at(sc->b[j].m3, ev->t).p;
		}
		imp_vec3 va = point_velocity(rb_vel(sc, i), rb_ang(sc, i), ca, ev->point_a);
		imp_vec3 vb = point_velocity(rb_vel(sc, j), rb_ang(sc, j), cb, ev->point_b);
		double ns = imp_vec3_dot(imp_vec3_sub(vb, va), ev->normal);
		if (!(fabs(ns - ev->normal_speed) <= 1e-9 * (1.0 + vlen3(va) + vlen3(vb)))) {
			print_message("%s: contact of %d and %d: normal speed %.17g, by the motions %.17g\n", label, i, j,
				      ev->normal_speed, ns);
			failures++;
		}
	}
	// A pair reported again without approaching separated to twice the
	// tolerance in between:
	// sampled 400 times, the distance falls at most at rate L between samples.
	for (int e = 0; e < c.count; ++e) {
		for (int f = e + 1; f < c.count; ++f) {
			if (ci[f] != ci[e] || cj[f] != cj[e])
				continue;
			if (c.items[f].normal_speed < 0.0)
				break; // an approach of a pair within the tolerance: reported again (world.h)
			int i = ci[e], j = cj[e];
			double L = vlen3(imp_vec3_sub(rb_vel(sc, j), rb_vel(sc, i))) + vlen3(rb_ang(sc, i)) * sc->b[i].R +
				   vlen3(rb_ang(sc, j)) * sc->b[j].R;
			double t1 = c.items[e].t, t2 = c.items[f].t, best = 0.0;
			for (int k = 1; k < 400; ++k)
				best = fmax(best, rb_distance(sc, i, j, t1 + (t2 - t1) * k / 400));
			if (!(best + L * (t2 - t1) / 800 >= 2.0 * tol - 1e-9)) {
				print_message("%s: pair %d %d reported at %.17g and again at %.17g without separating (at "
					      "most %g apart in between)\n",
					      label, i, j, t1, t2, best + L * (t2 - t1) / 800);
				failures++;
			}
			break; // the next one is checked from f
		}
	}
	// Every pair the reference sees in contact: reported, no later. The
	// level is tol / 2: the contract's "within the tolerance" can only be
	// decided up to a band (a pair grazing at exactly the tolerance is
	// undecidable by sampling), and a step that never passes over a time at
	// which a pair is within half the tolerance (docs/toi.md's guarantee)
	// meets it. Pairs within the tolerance at the start: reported at t = 0.
	// Pairs seen within (tol / 2, tol] only are counted, not required.
	ref_pair *ref = NULL;
	int nref = reference(sc, dt, tol, S, &ref);
	int required = 0, band = 0, band_missed = 0, band_late = 0;
	for (int r = 0; r < nref; ++r) {
		const ref_pair *p = &ref[r];
		const imp_contact_event *first = NULL;
		for (int e = 0; e < c.count && !first; ++e)
			if (ci[e] == p->i && cj[e] == p->j)
				first = &c.items[e];
		double t_tol = dt * p->k_tol / S;
		if (p->k_half < 0) {
			band++;
			band_missed += !first;
			band_late += first && first->t > t_tol;
			continue;
		}
		required++;
		double t_half = dt * p->k_half / S;
		if (!first) {
			print_message("%s: pair %d %d within tol/2 at substep %d (t %.17g, distance at start %g) not "
				      "reported\n",
				      label, p->i, p->j, p->k_half, t_half, p->d0);
			failures++;
		} else if (first->t > t_half + 1e-12) {
			print_message("%s: pair %d %d reported at %.17g, within tol/2 already at substep %d (t %.17g)\n",
				      label, p->i, p->j, first->t, p->k_half, t_half);
			failures++;
		} else if (p->d0 <= tol * (1.0 - 1e-9) && first->t != 0.0) {
			print_message("%s: pair %d %d within the tolerance at the start (%g), reported at %.17g\n", label,
				      p->i, p->j, p->d0, first->t);
			failures++;
		}
		if (first)
			band_late += first->t > t_tol + 1e-12;
	}
	print_message("%s: %d contacts (%d pairs the reference requires, %d more within (tol/2, tol] only: %d of "
		      "those not reported; %d pairs reported after a substep within tol); %d narrow calls, %d queued\n",
		      label, c.count, required, band, band_missed, band_late, st.narrow_calls, st.queued);
	assert_true(required >= 10); // the scenes collide enough to test something
	free(ref);
	free(ci);
	free(cj);
	free(map.of);
	rec_free(&rec);
	return failures;
}

/// Between steps: a new random velocity for about a quarter of the dynamic
/// and kinematic bodies that do not follow a target (some set to rest,
/// some bodies at rest set moving), so that the bounds the step keeps
/// across steps must be given up for them.
static void rscene_change_velocities(rscene *sc, ow_rng *r)
{
	for (int i = 0; i < sc->n; ++i) {
		rbody *b = &sc->b[i];
		if (b->type == IMP_BODY_STATIC || b->target || ow_int(r, 4) != 0)
			continue;
		double vmax = ow_int(r, 5) == 0 ? 0.0 : 4.0, wmax = ow_int(r, 2) == 0 ? 0.0 : 4.0;
		if (sc->dim == 2) {
			b->m2.v = rand2(r, -vmax, vmax);
			b->m2.w = ow_range(r, -wmax, wmax);
		} else {
			b->m3.v = rand3(r, -vmax, vmax);
			b->m3.w = rand3(r, -wmax, wmax);
		}
	}
}

static int random_scene_run(int dim, int n, double extent, uint64_t seed, imp_broad_kind kind, bool change)
{
	int failures = 0;
	const double dt = 0.5, tol = 1e-3;
	rscene sc;
	rscene_make(&sc, dim, n, extent, seed);
	ow_rng r = {seed ^ 0x9e3779b97f4a7c15u};
	imp_world *w = make_world(dim, kind);
	imp_body_id *ids = malloc((size_t)n * sizeof *ids);
	assert_non_null(ids);
	rscene_add(&sc, w, ids);
	char label[80];
	for (int s = 0; s < 3; ++s) {
		snprintf(label, sizeof label, "%dD seed %llu step %d%s", dim, (unsigned long long)seed, s,
			 change ? " (velocities changed between steps)" : "");
		failures += check_scene_step(&sc, w, ids, dt, tol, 1000, label);
		rscene_advance(&sc, w, ids, dt);
		if (change)
			rscene_change_velocities(&sc, &r);
	}
	free(ids);
	imp_world_destroy(w);
	rscene_free(&sc);
	return failures;
}

static void test_random_scenes_against_reference(void **state)
{
	(void)state;
	int failures = 0;
	failures += random_scene_run(2, 240, 14.0, 0x5eed2d, IMP_BROAD_HASH, false);
	failures += random_scene_run(2, 200, 12.0, 0xb0d1e5, IMP_BROAD_SWEEP, false);
	failures += random_scene_run(2, 300, 15.0, 0x2d2d2d, IMP_BROAD_NAIVE, false);
	failures += random_scene_run(3, 180, 5.0, 0x5eed3d, IMP_BROAD_SWEEP, false);
	failures += random_scene_run(3, 200, 4.5, 0x3d3d3d, IMP_BROAD_HASH, false);
	failures += random_scene_run(3, 250, 5.5, 0x3d5eed, IMP_BROAD_NAIVE, false);
	failures += random_scene_run(2, 240, 14.0, 0xc4a93e, IMP_BROAD_SWEEP, true);
	failures += random_scene_run(3, 180, 5.0, 0xc4a93f, IMP_BROAD_HASH, true);
	if (failures)
		fail_msg("%d failures against the reference (printed above)", failures);
}

// ---------------------------------------------------------------------------
// 3. Velocities changed in the callback.

/// A ball of radius 0.1 in a box whose inner faces are at +-1 (static walls
/// 0.1 thick), bouncing: the callback reflects the ball's velocity about the
/// contact normal when the contact closes (normal_speed < 0).
typedef struct bounce {
	imp_body_id ball;
	int dim;
	int bounces[3]; ///< per axis
	double speed;   ///< |v|, which reflections keep
} bounce;

static void bounce_react(recorder *r, const imp_contact_event *e)
{
	bounce *b = r->ctx;
	assert_true(event_names(e, b->ball));
	if (!(e->normal_speed < 0.0))
		return;
	imp_vec3 v, wv;
	if (b->dim == 2) {
		imp_vec2 v2;
		double w2;
		assert_int_equal(imp_body_get_velocity2(r->w, b->ball, &v2, &w2), IMP_OK);
		v = v2to3(v2);
	} else {
		assert_int_equal(imp_body_get_velocity3(r->w, b->ball, &v, &wv), IMP_OK);
	}
	// The ball's velocity is what the event's normal speed was made of (a
	// wall is still; the ball's spin is zero).
	double sign = imp_body_id_equal(e->b, b->ball) ? 1.0 : -1.0;
	assert_true(fabs(sign * imp_vec3_dot(v, e->normal) - e->normal_speed) <= 1e-9 * b->speed);
	imp_vec3 nv = imp_vec3_sub(v, imp_vec3_scale(2.0 * imp_vec3_dot(v, e->normal), e->normal));
	int axis = fabs(e->normal.x) > 0.9 ? 0 : (fabs(e->normal.y) > 0.9 ? 1 : 2);
	b->bounces[axis]++;
	if (b->dim == 2)
		assert_int_equal(imp_body_set_velocity2(r->w, b->ball, V2(nv.x, nv.y), 0.0), IMP_OK);
	else
		assert_int_equal(imp_body_set_velocity3(r->w, b->ball, nv, V3(0, 0, 0)), IMP_OK);
}

/// x folded into [-a, a] by reflections at +-a (a triangle wave), and the
/// number of reflections on the way from x0 = 0.
static double fold(double x, double a, int *crossings)
{
	double period = 4.0 * a, u = fmod(x + a, period);
	if (u < 0)
		u += period;
	*crossings = (int)floor((fabs(x) + a) / (2.0 * a));
	return u <= 2.0 * a ? u - a : 3.0 * a - u;
}

static void ball_in_box(int dim)
{
	const double r = 0.1, tol = 1e-6, dt = 0.05, inner = 1.0 - r;
	const int steps = 100;
	imp_world *w = make_world(dim, dim == 2 ? IMP_BROAD_SWEEP : IMP_BROAD_HASH);
	imp_shape *ball = NULL, *walls[3] = {NULL, NULL, NULL};
	bounce b;
	memset(&b, 0, sizeof b);
	b.dim = dim;
	imp_vec3 v0 = dim == 2 ? V3(37.1, 23.3, 0) : V3(37.1, 23.3, -17.9);
	b.speed = vlen3(v0);
	if (dim == 2) {
		assert_int_equal(imp_shape_circle(V2(0, 0), r, &ball), IMP_OK);
		assert_int_equal(imp_shape_box2(0.05, 1.2, 0.0, &walls[0]), IMP_OK);
		assert_int_equal(imp_shape_box2(1.2, 0.05, 0.0, &walls[1]), IMP_OK);
		for (int s = -1; s <= 1; s += 2) {
			add2(w, walls[0], IMP_BODY_STATIC, imp_pose2_make(s * 1.05, 0, 0));
			add2(w, walls[1], IMP_BODY_STATIC, imp_pose2_make(0, s * 1.05, 0));
		}
		b.ball = add2(w, ball, IMP_BODY_DYNAMIC, imp_pose2_make(0, 0, 0));
		assert_int_equal(imp_body_set_velocity2(w, b.ball, V2(v0.x, v0.y), 0.0), IMP_OK);
	} else {
		assert_int_equal(imp_shape_sphere(V3(0, 0, 0), r, &ball), IMP_OK);
		assert_int_equal(imp_shape_box3(0.05, 1.2, 1.2, 0.0, &walls[0]), IMP_OK);
		assert_int_equal(imp_shape_box3(1.2, 0.05, 1.2, 0.0, &walls[1]), IMP_OK);
		assert_int_equal(imp_shape_box3(1.2, 1.2, 0.05, 0.0, &walls[2]), IMP_OK);
		for (int s = -1; s <= 1; s += 2) {
			add3(w, walls[0], IMP_BODY_STATIC, pose3_at(s * 1.05, 0, 0));
			add3(w, walls[1], IMP_BODY_STATIC, pose3_at(0, s * 1.05, 0));
			add3(w, walls[2], IMP_BODY_STATIC, pose3_at(0, 0, s * 1.05));
		}
		b.ball = add3(w, ball, IMP_BODY_DYNAMIC, imp_pose3_identity());
		assert_int_equal(imp_body_set_velocity3(w, b.ball, v0, V3(0, 0, 0)), IMP_OK);
	}
	recorder rec;
	rec_init(&rec, w);
	rec.react = bounce_react;
	rec.ctx = &b;
	imp_step_opts o = rec_opts(&rec, tol);
	int rescheduled = 0, events = 0;
	for (int s = 0; s < steps; ++s) {
		imp_contact_events c = step_checked(w, dt, &o, &rec, tol);
		events += c.count;
		imp_step_stats st = imp_world_get_step_stats(w);
		assert_int_equal(st.state, IMP_STEP_COMPLETE);
		rescheduled += st.rescheduled;
		imp_vec3 p = dim == 2 ? v2to3(get_pose2(w, b.ball).p) : get_pose3(w, b.ball).p;
		if (!(fabs(p.x) <= inner + 1e-9 && fabs(p.y) <= inner + 1e-9 && fabs(p.z) <= inner + 1e-9))
			fail_msg("%dD step %d: the ball at (%g %g %g), beyond a wall", dim, s, p.x, p.y, p.z);
	}
	// Where the ball is and how often it bounced: the unfolded straight
	// motion folded back into the box. Each reflection happens at most the
	// tolerance early, so the ball is off by at most 2 tol per bounce.
	double T = steps * dt;
	int want[3];
	double fx = fold(v0.x * T, inner, &want[0]), fy = fold(v0.y * T, inner, &want[1]),
	       fz = fold(v0.z * T, inner, &want[2]);
	imp_vec3 p = dim == 2 ? v2to3(get_pose2(w, b.ball).p) : get_pose3(w, b.ball).p;
	int total = b.bounces[0] + b.bounces[1] + b.bounces[2];
	double err = fabs(p.x - fx) + fabs(p.y - fy) + fabs(p.z - fz);
	print_message("%dD ball in a box: %d bounces (%d %d %d, folded motion %d %d %d), %d events, %d rescheduled, "
		      "end off the folded motion by %g\n",
		      dim, total, b.bounces[0], b.bounces[1], b.bounces[2], want[0], want[1], want[2], events, rescheduled,
		      err);
	for (int k = 0; k < dim; ++k)
		assert_true(abs(b.bounces[k] - want[k]) <= 1);
	assert_true(err <= 2.0 * tol * (total + 1) + 1e-9);
	assert_true(rescheduled > 0);
	imp_vec3 v;
	if (dim == 2) {
		imp_vec2 v2;
		assert_int_equal(imp_body_get_velocity2(w, b.ball, &v2, NULL), IMP_OK);
		v = v2to3(v2);
	} else {
		assert_int_equal(imp_body_get_velocity3(w, b.ball, &v, NULL), IMP_OK);
	}
	assert_true(fabs(vlen3(v) - b.speed) <= 1e-9 * b.speed);
	rec_free(&rec);
	imp_world_destroy(w);
	imp_shape_destroy(ball);
	for (int k = 0; k < 3; ++k)
		imp_shape_destroy(walls[k]);
}

static void test_ball_in_a_box(void **state)
{
	(void)state;
	ball_in_box(2);
	ball_in_box(3);
}

/// Two bodies (x, y) swap velocities at their contact when it closes (equal
/// masses, elastic, head-on); a contact of `y` with `z` (static or resting)
/// makes y give its velocity to z (or reflect off a static z).
typedef struct swapper {
	int dim;
	int n;
	imp_body_id id[4];
} swapper;

static void get_vel(imp_world *w, int dim, imp_body_id id, imp_vec3 *v)
{
	if (dim == 2) {
		imp_vec2 v2;
		assert_int_equal(imp_body_get_velocity2(w, id, &v2, NULL), IMP_OK);
		*v = v2to3(v2);
	} else {
		assert_int_equal(imp_body_get_velocity3(w, id, v, NULL), IMP_OK);
	}
}

static void set_vel(imp_world *w, int dim, imp_body_id id, imp_vec3 v)
{
	if (dim == 2)
		assert_int_equal(imp_body_set_velocity2(w, id, V2(v.x, v.y), 0.0), IMP_OK);
	else
		assert_int_equal(imp_body_set_velocity3(w, id, v, V3(0, 0, 0)), IMP_OK);
}

static void swap_react(recorder *r, const imp_contact_event *e)
{
	swapper *s = r->ctx;
	if (!(e->normal_speed < 0.0))
		return;
	imp_body_type ta, tb;
	assert_int_equal(imp_body_get_type(r->w, e->a, &ta), IMP_OK);
	assert_int_equal(imp_body_get_type(r->w, e->b, &tb), IMP_OK);
	imp_vec3 va, vb;
	if (ta == IMP_BODY_STATIC || tb == IMP_BODY_STATIC) {
		imp_body_id m = ta == IMP_BODY_STATIC ? e->b : e->a;
		get_vel(r->w, s->dim, m, &va);
		set_vel(r->w, s->dim, m, imp_vec3_sub(va, imp_vec3_scale(2.0 * imp_vec3_dot(va, e->normal), e->normal)));
		return;
	}
	get_vel(r->w, s->dim, e->a, &va);
	get_vel(r->w, s->dim, e->b, &vb);
	set_vel(r->w, s->dim, e->a, vb);
	set_vel(r->w, s->dim, e->b, va);
}

static imp_vec3 body_pos(const imp_world *w, int dim, imp_body_id id)
{
	return dim == 2 ? v2to3(get_pose2(w, id).p) : get_pose3(w, id).p;
}

static imp_body_id add_at(imp_world *w, int dim, const imp_shape *s, imp_body_type type, double x)
{
	return dim == 2 ? add2(w, s, type, imp_pose2_make(x, 0, 0)) : add3(w, s, type, pose3_at(x, 0, 0));
}

static void head_on(int dim)
{
	const double r = 0.1, tol = 1e-6;
	imp_world *w = make_world(dim, IMP_BROAD_HASH);
	imp_shape *ball = NULL;
	if (dim == 2)
		assert_int_equal(imp_shape_circle(V2(0, 0), r, &ball), IMP_OK);
	else
		assert_int_equal(imp_shape_sphere(V3(0, 0, 0), r, &ball), IMP_OK);
	swapper s = {dim, 2, {{0, 0, 0}}};
	s.id[0] = add_at(w, dim, ball, IMP_BODY_DYNAMIC, -1.0);
	s.id[1] = add_at(w, dim, ball, IMP_BODY_DYNAMIC, 1.0);
	set_vel(w, dim, s.id[0], V3(3, 0, 0));
	set_vel(w, dim, s.id[1], V3(-1, 0, 0));
	recorder rec;
	rec_init(&rec, w);
	rec.react = swap_react;
	rec.ctx = &s;
	imp_step_opts o = rec_opts(&rec, tol);
	imp_contact_events c = step_checked(w, 1.0, &o, &rec, tol);
	// Gap 1.8 closing at 4: contact at 0.45, then A goes back at -1 and B on
	// at +3: A at -2 + 4 t_c, B at 1 - t_c + 3 (1 - t_c) = 4 - 4 t_c... with
	// t_c at most tol / 4 early.
	assert_int_equal(c.count, 1);
	assert_true(c.items[0].t <= 0.45 + 1e-12 && c.items[0].t >= 0.45 - tol / 4 - 1e-12);
	assert_true(fabs(c.items[0].normal_speed + 4.0) <= 1e-9);
	imp_vec3 pa = body_pos(w, dim, s.id[0]), pb = body_pos(w, dim, s.id[1]);
	double tc = c.items[0].t;
	assert_true(fabs(pa.x - (-2.0 + 4.0 * tc)) <= 1e-12 && fabs(pb.x - (4.0 - 4.0 * tc)) <= 1e-12);
	assert_true(pa.x <= -0.2 + 1e-12 && pa.x >= -0.2 - tol - 1e-12);
	imp_vec3 va, vb;
	get_vel(w, dim, s.id[0], &va);
	get_vel(w, dim, s.id[1], &vb);
	assert_true(va.x == -1.0 && vb.x == 3.0);
	assert_int_equal(imp_world_get_step_stats(w).rescheduled > 0, 1);
	// Apart and moving apart: nothing more.
	c = step_checked(w, 1.0, &o, &rec, tol);
	assert_int_equal(c.count, 0);
	rec_free(&rec);
	imp_world_destroy(w);
	imp_shape_destroy(ball);
}

/// A moving ball A hits B at rest and stops, giving B its velocity; B hits
/// C at rest the same way; C bounces off a static wall: three contacts in
/// one step, the second and third of bodies at rest at the step's start.
static void chain(int dim)
{
	const double r = 0.1, tol = 1e-6;
	imp_world *w = make_world(dim, dim == 2 ? IMP_BROAD_NAIVE : IMP_BROAD_SWEEP);
	imp_shape *ball = NULL, *wall = NULL;
	if (dim == 2) {
		assert_int_equal(imp_shape_circle(V2(0, 0), r, &ball), IMP_OK);
		assert_int_equal(imp_shape_box2(0.005, 1.0, 0.0, &wall), IMP_OK);
	} else {
		assert_int_equal(imp_shape_sphere(V3(0, 0, 0), r, &ball), IMP_OK);
		assert_int_equal(imp_shape_box3(0.005, 1.0, 1.0, 0.0, &wall), IMP_OK);
	}
	swapper s = {dim, 4, {{0, 0, 0}}};
	s.id[0] = add_at(w, dim, ball, IMP_BODY_DYNAMIC, 0.0);
	s.id[1] = add_at(w, dim, ball, IMP_BODY_DYNAMIC, 0.5);
	s.id[2] = add_at(w, dim, ball, IMP_BODY_DYNAMIC, 1.0);
	s.id[3] = add_at(w, dim, wall, IMP_BODY_STATIC, 1.5);
	set_vel(w, dim, s.id[0], V3(1, 0, 0));
	recorder rec;
	rec_init(&rec, w);
	rec.react = swap_react;
	rec.ctx = &s;
	imp_step_opts o = rec_opts(&rec, tol);
	imp_contact_events c = step_checked(w, 1.0, &o, &rec, tol);
	// A-B at 0.3, B-C at 0.6, C-wall at 0.995 (each up to tol early, and
	// the errors add up).
	const double want[3] = {0.3, 0.6, 0.995};
	if (c.count != 3)
		fail_msg("%dD chain: %d contacts, expected 3", dim, c.count);
	for (int k = 0; k < 3; ++k) {
		assert_true(event_names(&c.items[k], s.id[k]) && event_names(&c.items[k], s.id[k + 1]));
		if (!(c.items[k].t <= want[k] + 1e-12 && c.items[k].t >= want[k] - (k + 1) * tol - 1e-12))
			fail_msg("%dD chain: contact %d at %.17g, expected %g", dim, k, c.items[k].t, want[k]);
		assert_true(fabs(c.items[k].normal_speed + 1.0) <= 1e-9);
	}
	// C comes back from the wall and ends at 1.5 - 0.005 - 0.1 - (1 - t3).
	imp_vec3 pc = body_pos(w, dim, s.id[2]), pa = body_pos(w, dim, s.id[0]), pb = body_pos(w, dim, s.id[1]);
	assert_true(fabs(pc.x - (1.0 + (c.items[2].t - c.items[1].t) - (1.0 - c.items[2].t))) <= 1e-12);
	assert_true(fabs(pa.x - c.items[0].t) <= 1e-12);
	assert_true(fabs(pb.x - (0.5 + c.items[1].t - c.items[0].t)) <= 1e-12);
	rec_free(&rec);
	imp_world_destroy(w);
	imp_shape_destroy(ball);
	imp_shape_destroy(wall);
}

static void test_velocity_changes_in_callback(void **state)
{
	(void)state;
	for (int dim = 2; dim <= 3; ++dim) {
		head_on(dim);
		chain(dim);
	}
}

// ---------------------------------------------------------------------------
// Random scenes with the Impulse loop: the callback reflects the velocity of
// each dynamic body of a closing contact about the normal (and stops its
// spin). The test keeps every body's motion as pieces (a new piece from the
// contact's time, from where the body is then, as world.h has it), holds
// each event against the pieces in force when it is given, and after the
// step runs the dense reference over the pieces: every pair within half the
// tolerance at a substep while one of its bodies moves is reported no later.

typedef struct piece {
	double t;       ///< the piece holds from this time of the step
	imp_motion2 m2; ///< the pose at t and the velocity
	imp_motion3 m3;
} piece;

typedef struct track {
	piece *p;
	int n, cap;
} track;

typedef struct impulse_ctx {
	const rscene *sc;
	track *tr;
	const imp_body_id *ids;
	id_map map;
	double tol;
	int failures, changes;
} impulse_ctx;

static void track_push(track *tr, piece p)
{
	if (tr->n == tr->cap) {
		tr->cap = tr->cap ? 2 * tr->cap : 4;
		tr->p = realloc(tr->p, (size_t)tr->cap * sizeof *tr->p);
		assert_non_null(tr->p);
	}
	tr->p[tr->n++] = p;
}

/// The piece in force at time t (the last one begun by then).
static const piece *track_at(const track *tr, double t)
{
	int k = tr->n - 1;
	while (k > 0 && tr->p[k].t > t)
		k--;
	return &tr->p[k];
}

static bool piece_moving(int dim, const piece *p)
{
	if (dim == 2)
		return p->m2.v.x != 0.0 || p->m2.v.y != 0.0 || p->m2.w != 0.0;
	return vlen3(p->m3.v) != 0.0 || vlen3(p->m3.w) != 0.0;
}

static imp_vec3 piece_origin(int dim, const piece *p, double t)
{
	return dim == 2 ? v2to3(imp_motion2_at(p->m2, t - p->t).p) : imp_motion3_at(p->m3, t - p->t).p;
}

static double piece_distance(const rscene *sc, int i, const piece *pi, int j, const piece *pj, double t)
{
	if (sc->dim == 2)
		return imp_distance2(sc->b[i].shape, imp_motion2_at(pi->m2, t - pi->t), sc->b[j].shape,
				     imp_motion2_at(pj->m2, t - pj->t), NULL);
	return imp_distance3(sc->b[i].shape, imp_motion3_at(pi->m3, t - pi->t), sc->b[j].shape,
			     imp_motion3_at(pj->m3, t - pj->t), NULL);
}

static void impulse_react(recorder *r, const imp_contact_event *e)
{
	impulse_ctx *c = r->ctx;
	const rscene *sc = c->sc;
	int dim = sc->dim;
	int ij[2] = {id_map_get(&c->map, c->ids, e->a), id_map_get(&c->map, c->ids, e->b)};
	assert_true(ij[0] >= 0 && ij[1] >= 0);
	const piece *p[2] = {&c->tr[ij[0]].p[c->tr[ij[0]].n - 1], &c->tr[ij[1]].p[c->tr[ij[1]].n - 1]};
	// The event against the motions in force now.
	double d = piece_distance(sc, ij[0], p[0], ij[1], p[1], e->t);
	imp_vec3 vel[2];
	for (int k = 0; k < 2; ++k) {
		imp_vec3 v = dim == 2 ? v2to3(p[k]->m2.v) : p[k]->m3.v, w = dim == 2 ? V3(0, 0, p[k]->m2.w) : p[k]->m3.w;
		vel[k] = point_velocity(v, w, piece_origin(dim, p[k], e->t), k ? e->point_b : e->point_a);
	}
	double ns = imp_vec3_dot(imp_vec3_sub(vel[1], vel[0]), e->normal);
	if (!(d <= c->tol + 1e-9 || e->capped) || !(fabs(fmax(e->distance, 0.0) - d) <= 1e-9) ||
	    !(fabs(ns - e->normal_speed) <= 1e-9 * (1.0 + vlen3(vel[0]) + vlen3(vel[1])))) {
		print_message("impulse: contact of %d and %d at %.17g: distance %.17g (by the pieces %.17g), normal "
			      "speed %.17g (by the pieces %.17g)\n",
			      ij[0], ij[1], e->t, e->distance, d, e->normal_speed, ns);
		c->failures++;
	}
	if (!(e->normal_speed < 0.0))
		return;
	for (int k = 0; k < 2; ++k) {
		if (sc->b[ij[k]].type != IMP_BODY_DYNAMIC)
			continue;
		imp_vec3 v, wv;
		get_vel(r->w, dim, e->a.index == c->ids[ij[k]].index ? e->a : e->b, &v);
		imp_vec3 want = dim == 2 ? v2to3(p[k]->m2.v) : p[k]->m3.v;
		assert_memory_equal(&v, &want, sizeof v); // the world's velocity is the one set
		double vn = imp_vec3_dot(v, e->normal);
		// a leaves against the normal, b along it.
		if (!((k == 0 && vn > 0.0) || (k == 1 && vn < 0.0)))
			continue;
		v = imp_vec3_sub(v, imp_vec3_scale(2.0 * vn, e->normal));
		wv = V3(0, 0, 0);
		set_vel(r->w, dim, c->ids[ij[k]], v);
		piece np;
		memset(&np, 0, sizeof np);
		np.t = e->t;
		if (dim == 2)
			np.m2 = (imp_motion2){imp_motion2_at(p[k]->m2, e->t - p[k]->t), V2(v.x, v.y), 0.0};
		else
			np.m3 = (imp_motion3){imp_motion3_at(p[k]->m3, e->t - p[k]->t), v, wv};
		track_push(&c->tr[ij[k]], np);
		p[k] = &c->tr[ij[k]].p[c->tr[ij[k]].n - 1]; // the push may have moved it
		c->changes++;
	}
}

static void impulse_scene(int dim, int n, double extent, uint64_t seed, imp_broad_kind kind)
{
	const double dt = 0.5, tol = 1e-3;
	const int S = 1000;
	rscene sc;
	rscene_make(&sc, dim, n, extent, seed);
	for (int i = 0; i < n; ++i)
		sc.b[i].target = false; // velocities only
	imp_world *w = make_world(dim, kind);
	imp_body_id *ids = malloc((size_t)n * sizeof *ids);
	track *tr = calloc((size_t)n, sizeof *tr);
	assert_true(ids && tr);
	rscene_add(&sc, w, ids);
	rscene_set_motions(&sc, w, ids, dt);
	for (int i = 0; i < n; ++i) {
		piece p;
		memset(&p, 0, sizeof p);
		p.m2 = sc.b[i].m2;
		p.m3 = sc.b[i].m3;
		track_push(&tr[i], p);
	}
	impulse_ctx ctx;
	memset(&ctx, 0, sizeof ctx);
	ctx.sc = &sc;
	ctx.tr = tr;
	ctx.ids = ids;
	ctx.tol = tol;
	id_map_make(&ctx.map, ids, n);
	recorder rec;
	rec_init(&rec, w);
	rec.react = impulse_react;
	rec.ctx = &ctx;
	imp_step_opts o = rec_opts(&rec, tol);
	imp_contact_events c = step_checked(w, dt, &o, &rec, tol);
	imp_step_stats st = imp_world_get_step_stats(w);
	// Reflecting each body's own speed never settles a body squeezed within
	// the tolerance between two others: its pairs take turns at one time
	// until the cap (docs/toi.md); they are then reported at the step's end.
	if (st.capped_pairs > 0)
		print_message("impulse: %d pairs capped (a body squeezed between others)\n", st.capped_pairs);
	assert_true(ctx.changes > 10 && st.rescheduled > 0);
	int failures = ctx.failures;
	// Every body ends where its pieces take it.
	for (int i = 0; i < n; ++i) {
		const piece *p = &tr[i].p[tr[i].n - 1];
		imp_vec3 want = piece_origin(dim, p, dt), got = body_pos(w, dim, ids[i]);
		if (!(vlen3(imp_vec3_sub(got, want)) <= 1e-9)) {
			print_message("impulse: body %d ends at (%g %g %g), its pieces at (%g %g %g)\n", i, got.x, got.y,
				      got.z, want.x, want.y, want.z);
			failures++;
		}
	}
	// The reference over the pieces. Each body's origin stays in the box of
	// its pieces' segments; every point within R of it.
	imp_vec3 *lo = malloc((size_t)n * sizeof *lo), *hi = malloc((size_t)n * sizeof *hi);
	assert_true(lo && hi);
	for (int i = 0; i < n; ++i) {
		lo[i] = hi[i] = piece_origin(dim, &tr[i].p[0], 0.0);
		for (int k = 0; k < tr[i].n; ++k) {
			double t_end = k + 1 < tr[i].n ? tr[i].p[k + 1].t : dt;
			imp_vec3 e[2] = {piece_origin(dim, &tr[i].p[k], tr[i].p[k].t), piece_origin(dim, &tr[i].p[k], t_end)};
			for (int m = 0; m < 2; ++m) {
				lo[i] = V3(fmin(lo[i].x, e[m].x), fmin(lo[i].y, e[m].y), fmin(lo[i].z, e[m].z));
				hi[i] = V3(fmax(hi[i].x, e[m].x), fmax(hi[i].y, e[m].y), fmax(hi[i].z, e[m].z));
			}
		}
	}
	int required = 0;
	for (int i = 0; i < n; ++i) {
		for (int j = i + 1; j < n; ++j) {
			const rbody *a = &sc.b[i], *b = &sc.b[j];
			if ((a->type == IMP_BODY_STATIC && b->type == IMP_BODY_STATIC) || !ow_filter_pairs(a->filter, b->filter))
				continue;
			double reach = a->R + b->R + tol;
			if (lo[i].x > hi[j].x + reach || lo[j].x > hi[i].x + reach || lo[i].y > hi[j].y + reach ||
			    lo[j].y > hi[i].y + reach || lo[i].z > hi[j].z + reach || lo[j].z > hi[i].z + reach)
				continue;
			int first = -1;
			double d0 = INFINITY;
			for (int k = 0; k <= S && first < 0; ++k) {
				double t = dt * k / S;
				const piece *pi = track_at(&tr[i], t), *pj = track_at(&tr[j], t);
				if (!piece_moving(dim, pi) && !piece_moving(dim, pj))
					continue;
				if (vlen3(imp_vec3_sub(piece_origin(dim, pi, t), piece_origin(dim, pj, t))) > reach)
					continue;
				double d = piece_distance(&sc, i, pi, j, pj, t);
				if (k == 0)
					d0 = d;
				if (d <= 0.5 * tol)
					first = k;
			}
			if (first < 0)
				continue;
			required++;
			const imp_contact_event *ev = NULL;
			for (int e = 0; e < c.count && !ev; ++e)
				if (imp_body_id_equal(c.items[e].a, ids[i]) && imp_body_id_equal(c.items[e].b, ids[j]))
					ev = &c.items[e];
			double t_first = dt * first / S;
			if (!ev || ev->t > t_first + 1e-12 || (d0 <= tol * (1.0 - 1e-9) && ev->t != 0.0)) {
				print_message("impulse: pair %d %d within tol/2 at substep %d (t %.17g) reported %s%.17g\n", i,
					      j, first, t_first, ev ? "at " : "never ", ev ? ev->t : 0.0);
				failures++;
			}
		}
	}
	print_message("%dD impulse seed %llu: %d contacts, %d velocity changes, %d rescheduled, %d pairs required by "
		      "the reference, %d narrow calls\n",
		      dim, (unsigned long long)seed, c.count, ctx.changes, st.rescheduled, required, st.narrow_calls);
	if (failures)
		fail_msg("%dD impulse seed %llu: %d failures", dim, (unsigned long long)seed, failures);
	assert_true(required > 10);
	for (int i = 0; i < n; ++i)
		free(tr[i].p);
	free(tr);
	free(lo);
	free(hi);
	free(ids);
	free(ctx.map.of);
	rec_free(&rec);
	imp_world_destroy(w);
	rscene_free(&sc);
}

static void test_random_impulse_scenes(void **state)
{
	(void)state;
	impulse_scene(2, 240, 12.0, 0x1a2b, IMP_BROAD_HASH);
	impulse_scene(2, 200, 10.0, 0x3c4d, IMP_BROAD_SWEEP);
	impulse_scene(3, 200, 4.5, 0x5e6f, IMP_BROAD_SWEEP);
	impulse_scene(3, 160, 4.0, 0x7a8b, IMP_BROAD_NAIVE);
}

// ---------------------------------------------------------------------------
// 4. Bodies added and removed between steps.

static void add_remove(int dim)
{
	const double tol = 1e-6;
	imp_world *w = make_world(dim, IMP_BROAD_HASH);
	imp_shape *ball = NULL, *wall = NULL;
	if (dim == 2) {
		assert_int_equal(imp_shape_circle(V2(0, 0), 0.1, &ball), IMP_OK);
		assert_int_equal(imp_shape_box2(0.05, 1.0, 0.0, &wall), IMP_OK);
	} else {
		assert_int_equal(imp_shape_sphere(V3(0, 0, 0), 0.1, &ball), IMP_OK);
		assert_int_equal(imp_shape_box3(0.05, 1.0, 1.0, 0.0, &wall), IMP_OK);
	}
	recorder rec;
	rec_init(&rec, w);
	imp_step_opts o = rec_opts(&rec, tol);
	// A moves +x at 1 from 0; B moves -x at 1 from 3: they would meet at 1.4.
	imp_body_id a = add_at(w, dim, ball, IMP_BODY_DYNAMIC, 0.0);
	imp_body_id b = add_at(w, dim, ball, IMP_BODY_DYNAMIC, 3.0);
	set_vel(w, dim, a, V3(1, 0, 0));
	set_vel(w, dim, b, V3(-1, 0, 0));
	assert_int_equal(step_checked(w, 0.5, &o, &rec, tol).count, 0);
	assert_int_equal(imp_world_remove_body(w, b), IMP_OK);
	// Stale: refused everywhere.
	assert_false(imp_body_is_valid(w, b));
	imp_vec3 v;
	imp_vec2 v2;
	double w2;
	if (dim == 2) {
		assert_int_equal(imp_body_set_velocity2(w, b, V2(1, 0), 0.0), IMP_ERR_BAD_ID);
		assert_int_equal(imp_body_get_velocity2(w, b, &v2, &w2), IMP_ERR_BAD_ID);
		assert_int_equal(imp_body_set_target_pose2(w, b, imp_pose2_identity()), IMP_ERR_BAD_ID);
	} else {
		assert_int_equal(imp_body_set_velocity3(w, b, V3(1, 0, 0), V3(0, 0, 0)), IMP_ERR_BAD_ID);
		assert_int_equal(imp_body_get_velocity3(w, b, &v, NULL), IMP_ERR_BAD_ID);
		assert_int_equal(imp_body_set_target_pose3(w, b, imp_pose3_identity()), IMP_ERR_BAD_ID);
	}
	// Past the time they would have met: nothing.
	assert_int_equal(step_checked(w, 1.5, &o, &rec, tol).count, 0);
	// A is at 2; a static wall added at 2.45 (face at 2.4): hit at 0.3. The
	// new body may take B's slot: B's id stays stale, the event names C.
	imp_body_id wall_id = add_at(w, dim, wall, IMP_BODY_STATIC, 2.45);
	assert_false(imp_body_id_equal(wall_id, b));
	assert_false(imp_body_is_valid(w, b));
	imp_contact_events c = step_checked(w, 1.0, &o, &rec, tol);
	assert_int_equal(c.count, 1);
	assert_true(event_names(&c.items[0], wall_id) && event_names(&c.items[0], a));
	assert_true(c.items[0].t <= 0.3 + 1e-12 && c.items[0].t >= 0.3 - tol - 1e-12);
	// A new dynamic body is at rest; one added in the path of a moving body
	// is hit; removing the moving body silences it.
	imp_body_id d = add_at(w, dim, ball, IMP_BODY_DYNAMIC, 10.0);
	get_vel(w, dim, d, &v);
	assert_true(v.x == 0.0 && v.y == 0.0 && v.z == 0.0);
	set_vel(w, dim, d, V3(-2, 0, 0));
	imp_body_id e = add_at(w, dim, ball, IMP_BODY_DYNAMIC, 9.0); // gap 0.8: hit at 0.4
	c = step_checked(w, 1.0, &o, &rec, tol);
	assert_int_equal(pair_contacts(c, d, e, NULL), 1);
	assert_int_equal(imp_world_remove_body(w, d), IMP_OK);
	c = step_checked(w, 1.0, &o, &rec, tol);
	for (int i = 0; i < c.count; ++i)
		assert_false(event_names(&c.items[i], d));
	assert_int_equal(imp_world_body_count(w), 3);
	rec_free(&rec);
	imp_world_destroy(w);
	imp_shape_destroy(ball);
	imp_shape_destroy(wall);
}

static void test_add_and_remove_between_steps(void **state)
{
	(void)state;
	add_remove(2);
	add_remove(3);
}

// ---------------------------------------------------------------------------
// 5. Resting contact: a box (half size 0.5) on a static floor (top at y = 0
// in 2D, z = 0 in 3D), half the tolerance above it.

typedef struct rest_ctx {
	int dim;
	imp_body_id box;
	int calls;
} rest_ctx;

static void rest_zero_react(recorder *r, const imp_contact_event *e)
{
	rest_ctx *c = r->ctx;
	c->calls++;
	assert_true(event_names(e, c->box));
	if (e->normal_speed < 0.0)
		set_vel(r->w, c->dim, c->box, V3(0, 0, 0));
}

/// Returns the number of steps with the wrong contacts (each printed).
static int resting(int dim)
{
	int bad = 0;
	const double tol = 1e-4, dt = 0.1;
	imp_world *w = make_world(dim, IMP_BROAD_SWEEP);
	imp_shape *floor_shape = NULL, *box = NULL;
	imp_body_id fl, bx;
	const double y0 = 0.5 + 0.5 * tol;
	if (dim == 2) {
		assert_int_equal(imp_shape_box2(5.0, 0.5, 0.0, &floor_shape), IMP_OK);
		assert_int_equal(imp_shape_box2(0.5, 0.5, 0.0, &box), IMP_OK);
		fl = add2(w, floor_shape, IMP_BODY_STATIC, imp_pose2_make(0, -0.5, 0));
		bx = add2(w, box, IMP_BODY_DYNAMIC, imp_pose2_make(0.3, y0, 0));
	} else {
		assert_int_equal(imp_shape_box3(5.0, 5.0, 0.5, 0.0, &floor_shape), IMP_OK);
		assert_int_equal(imp_shape_box3(0.5, 0.5, 0.5, 0.0, &box), IMP_OK);
		fl = add3(w, floor_shape, IMP_BODY_STATIC, pose3_at(0, 0, -0.5));
		bx = add3(w, box, IMP_BODY_DYNAMIC, pose3_at(0.3, -0.2, y0));
	}
	imp_vec3 down = dim == 2 ? V3(0, -1, 0) : V3(0, 0, -1);
	rest_ctx ctx = {dim, bx, 0};
	recorder rec;
	rec_init(&rec, w);
	rec.react = rest_zero_react;
	rec.ctx = &ctx;
	imp_step_opts o = rec_opts(&rec, tol);
	// Gravity each step, zeroed by the callback: one contact at t = 0 a step,
	// the box does not move, the step takes a few narrow-phase calls.
	for (int s = 0; s < 20; ++s) {
		set_vel(w, dim, bx, down);
		imp_contact_events c = step_checked(w, dt, &o, &rec, tol);
		imp_step_stats st = imp_world_get_step_stats(w);
		if (c.count != 1 || pair_contacts(c, fl, bx, NULL) != 1)
			fail_msg("%dD resting, step %d: %d contacts, expected 1", dim, s, c.count);
		assert_true(c.items[0].t == 0.0);
		assert_int_equal(st.state, IMP_STEP_COMPLETE);
		assert_true(st.narrow_calls <= 8);
		imp_vec3 p = body_pos(w, dim, bx);
		assert_true((dim == 2 ? p.y : p.z) == y0);
	}
	// No motion at all: the pair is not looked at.
	imp_contact_events c = step_checked(w, dt, &o, &rec, tol);
	assert_int_equal(c.count, 0);
	assert_int_equal(imp_world_get_step_stats(w).narrow_calls, 0);
	assert_int_equal(imp_world_get_step_stats(w).moving, 0);
	// The callback does nothing: the box sinks into the floor and through it
	// at 0.77; it is within the tolerance of the floor until its top passes
	// the floor's bottom by tol, at (2 + 1.5 tol) / 0.77 = 2.597...: reported
	// once in each of the steps 0 .. 25, at their start, never after.
	rec.react = NULL;
	set_vel(w, dim, bx, imp_vec3_scale(0.77, down));
	for (int s = 0; s < 30; ++s) {
		c = step_checked(w, dt, &o, &rec, tol);
		imp_step_stats st = imp_world_get_step_stats(w);
		int want = s <= 25 ? 1 : 0;
		if (c.count != want || pair_contacts(c, fl, bx, NULL) != want || (want && c.items[0].t != 0.0)) {
			print_message("%dD sinking, step %d (the box %s the floor at its start): %d contacts%s, expected %d at "
				      "t = 0\n",
				      dim, s, want ? "overlapping" : "clear of", c.count, c.count ? " (first not at t = 0)" : "",
				      want);
			bad++;
		}
		assert_int_equal(st.state, IMP_STEP_COMPLETE);
		assert_true(st.narrow_calls <= 16);
	}
	rec_free(&rec);
	imp_world_destroy(w);
	imp_shape_destroy(floor_shape);
	imp_shape_destroy(box);
	return bad;
}

static void test_resting_contact(void **state)
{
	(void)state;
	int bad = resting(2) + resting(3);
	if (bad)
		fail_msg("%d steps without the resting contact's report (printed above)", bad);
}

// ---------------------------------------------------------------------------
// 6. Target poses.

typedef struct target_ctx {
	int dim;
	imp_body_id body;
	imp_vec3 v, w; ///< the velocity that reaches the target
	int checked;
} target_ctx;

static void target_react(recorder *r, const imp_contact_event *e)
{
	target_ctx *c = r->ctx;
	assert_true(event_names(e, c->body));
	imp_vec3 v, w;
	if (c->dim == 2) {
		imp_vec2 v2;
		double w2;
		assert_int_equal(imp_body_get_velocity2(r->w, c->body, &v2, &w2), IMP_OK);
		v = v2to3(v2);
		w = V3(0, 0, w2);
	} else {
		assert_int_equal(imp_body_get_velocity3(r->w, c->body, &v, &w), IMP_OK);
	}
	if (!(vlen3(imp_vec3_sub(v, c->v)) <= 1e-12 * vlen3(c->v) && vlen3(imp_vec3_sub(w, c->w)) <= 1e-12 * vlen3(c->w)))
		fail_msg("velocity towards the target (%g %g %g | %g %g %g), expected (%g %g %g | %g %g %g)", v.x, v.y, v.z,
			 w.x, w.y, w.z, c->v.x, c->v.y, c->v.z, c->w.x, c->w.y, c->w.z);
	c->checked++;
}

/// Returns false (after printing why) when the body does not end exactly on
/// the target; other failures end the test.
static bool target_case(int dim, double angle)
{
	bool exact = true;
	const double tol = 1e-6, dt = 0.5;
	imp_world *w = make_world(dim, IMP_BROAD_HASH);
	imp_shape *box = NULL, *obstacle = NULL;
	imp_body_id kb, ob;
	target_ctx ctx;
	memset(&ctx, 0, sizeof ctx);
	ctx.dim = dim;
	mover m;
	memset(&m, 0, sizeof m);
	m.dim = dim;
	// Through the smaller angle: the turn wrapped into [-pi, pi].
	double turn = remainder(angle, TWO_PI);
	if (dim == 2) {
		assert_int_equal(imp_shape_box2(0.5, 0.25, 0.0, &box), IMP_OK);
		assert_int_equal(imp_shape_circle(V2(0, 0), 0.2, &obstacle), IMP_OK);
		imp_pose2 start = imp_pose2_make(0, 0, 0.0), goal = imp_pose2_make(4, 1, angle);
		kb = add2(w, box, IMP_BODY_KINEMATIC, start);
		ob = add2(w, obstacle, IMP_BODY_STATIC, imp_pose2_make(2.0, 0.9, 0));
		assert_int_equal(imp_body_set_target_pose2(w, kb, goal), IMP_OK);
		ctx.v = V3(4 / dt, 1 / dt, 0);
		ctx.w = V3(0, 0, turn / dt);
		m.a = box;
		m.b = obstacle;
		m.ma2 = (imp_motion2){start, V2(ctx.v.x, ctx.v.y), ctx.w.z};
		m.mb2 = (imp_motion2){imp_pose2_make(2.0, 0.9, 0), V2(0, 0), 0.0};
	} else {
		assert_int_equal(imp_shape_box3(0.5, 0.25, 0.25, 0.0, &box), IMP_OK);
		assert_int_equal(imp_shape_sphere(V3(0, 0, 0), 0.2, &obstacle), IMP_OK);
		imp_vec3 axis = V3(0.3, 0.4, 1.0);
		axis = imp_vec3_scale(1.0 / vlen3(axis), axis);
		imp_pose3 start = imp_pose3_identity();
		imp_pose3 goal = imp_pose3_make(V3(4, 1, 0.5), imp_quat_from_axis_angle(axis, angle));
		kb = add3(w, box, IMP_BODY_KINEMATIC, start);
		ob = add3(w, obstacle, IMP_BODY_STATIC, pose3_at(2.0, 0.9, 0.1));
		assert_int_equal(imp_body_set_target_pose3(w, kb, goal), IMP_OK);
		ctx.v = V3(4 / dt, 1 / dt, 0.5 / dt);
		ctx.w = imp_vec3_scale(turn / dt, axis);
		m.a = box;
		m.b = obstacle;
		m.ma3 = (imp_motion3){start, ctx.v, ctx.w};
		m.mb3 = (imp_motion3){pose3_at(2.0, 0.9, 0.1), V3(0, 0, 0), V3(0, 0, 0)};
	}
	ctx.body = kb;
	recorder rec;
	rec_init(&rec, w);
	rec.react = target_react;
	rec.ctx = &ctx;
	imp_step_opts o = rec_opts(&rec, tol);
	// A step of dt = 0 keeps the target for the next step.
	assert_int_equal(step_checked(w, 0.0, &o, &rec, tol).count, 0);
	imp_contact_events c = step_checked(w, dt, &o, &rec, tol);
	const imp_contact_event *e;
	assert_true(pair_contacts(c, kb, ob, &e) >= 1);
	assert_int_equal(ctx.checked, c.count);
	double t_tol = first_within(&m, 0.0, dt, 4000, tol), t_touch = first_within(&m, 0.0, dt, 4000, 0.0);
	assert_true(isfinite(t_touch));
	double d = mover_distance(&m, e->t);
	if (!(e->t <= t_touch + 1e-9 && e->t >= t_tol - 1e-9 && d <= tol + 1e-9))
		fail_msg("%dD target, angle %g: contact at %.17g (distance %.17g), within tol from %.17g, touching at "
			 "%.17g",
			 dim, angle, e->t, d, t_tol, t_touch);
	// Exactly on the target (bit for bit the pose a teleport there gives,
	// in a world of its own), then stopped.
	imp_world *tw = make_world(dim, IMP_BROAD_NAIVE);
	imp_body_id tb = dim == 2 ? add2(tw, box, IMP_BODY_KINEMATIC, imp_pose2_identity())
				  : add3(tw, box, IMP_BODY_KINEMATIC, imp_pose3_identity());
	if (dim == 2) {
		imp_pose2 goal = imp_pose2_make(4, 1, angle), got = get_pose2(w, kb);
		assert_int_equal(imp_body_set_pose2(tw, tb, goal), IMP_OK);
		goal = get_pose2(tw, tb);
		if (!(got.p.x == goal.p.x && got.p.y == goal.p.y && got.q.c == goal.q.c && got.q.s == goal.q.s)) {
			print_message("2D target angle %g: ends at (%.17g %.17g; c %.17g s %.17g), the target is (%.17g "
				      "%.17g; c %.17g s %.17g)\n",
				      angle, got.p.x, got.p.y, got.q.c, got.q.s, goal.p.x, goal.p.y, goal.q.c, goal.q.s);
			exact = false;
		}
		imp_vec2 v2;
		double w2;
		assert_int_equal(imp_body_get_velocity2(w, kb, &v2, &w2), IMP_OK);
		assert_true(v2.x == 0.0 && v2.y == 0.0 && w2 == 0.0);
	} else {
		imp_vec3 axis = V3(0.3, 0.4, 1.0);
		axis = imp_vec3_scale(1.0 / vlen3(axis), axis);
		assert_int_equal(imp_body_set_pose3(tw, tb, imp_pose3_make(V3(4, 1, 0.5), imp_quat_from_axis_angle(axis, angle))),
				 IMP_OK);
		imp_quat q = get_pose3(tw, tb).q;
		imp_pose3 got = get_pose3(w, kb);
		bool same = got.q.x == q.x && got.q.y == q.y && got.q.z == q.z && got.q.w == q.w;
		bool neg = got.q.x == -q.x && got.q.y == -q.y && got.q.z == -q.z && got.q.w == -q.w;
		if (!(got.p.x == 4.0 && got.p.y == 1.0 && got.p.z == 0.5) || !(same || neg)) {
			print_message("3D target angle %g: ends at (%.17g %.17g %.17g; %.17g %.17g %.17g %.17g), the target "
				      "is (4 1 0.5; %.17g %.17g %.17g %.17g)\n",
				      angle, got.p.x, got.p.y, got.p.z, got.q.x, got.q.y, got.q.z, got.q.w, q.x, q.y, q.z, q.w);
			exact = false;
		}
		imp_vec3 v, wv;
		assert_int_equal(imp_body_get_velocity3(w, kb, &v, &wv), IMP_OK);
		assert_true(vlen3(v) == 0.0 && vlen3(wv) == 0.0);
	}
	imp_world_destroy(tw);
	imp_pose2 stop2 = dim == 2 ? get_pose2(w, kb) : imp_pose2_identity();
	imp_pose3 stop3 = dim == 3 ? get_pose3(w, kb) : imp_pose3_identity();
	c = step_checked(w, dt, &o, &rec, tol);
	assert_int_equal(c.count, 0);
	assert_int_equal(imp_world_get_step_stats(w).moving, 0);
	if (dim == 2) {
		imp_pose2 now = get_pose2(w, kb);
		assert_memory_equal(&now, &stop2, sizeof now);
	} else {
		imp_pose3 now = get_pose3(w, kb);
		assert_memory_equal(&now, &stop3, sizeof now);
	}
	// A velocity set after a target drops it.
	if (dim == 2) {
		assert_int_equal(imp_body_set_target_pose2(w, kb, imp_pose2_make(-5, 0, 0)), IMP_OK);
		assert_int_equal(imp_body_set_velocity2(w, kb, V2(0, -1), 0.0), IMP_OK);
		imp_pose2 before = get_pose2(w, kb);
		step_checked(w, dt, &o, &rec, tol);
		imp_pose2 after = get_pose2(w, kb);
		assert_true(fabs(after.p.x - before.p.x) <= 1e-15 && fabs(after.p.y - (before.p.y - dt)) <= 1e-12);
	} else {
		assert_int_equal(imp_body_set_target_pose3(w, kb, pose3_at(-5, 0, 0)), IMP_OK);
		assert_int_equal(imp_body_set_velocity3(w, kb, V3(0, -1, 0), V3(0, 0, 0)), IMP_OK);
		imp_pose3 before = get_pose3(w, kb);
		step_checked(w, dt, &o, &rec, tol);
		imp_pose3 after = get_pose3(w, kb);
		assert_true(fabs(after.p.x - before.p.x) <= 1e-15 && fabs(after.p.y - (before.p.y - dt)) <= 1e-12);
	}
	rec_free(&rec);
	imp_world_destroy(w);
	imp_shape_destroy(box);
	imp_shape_destroy(obstacle);
	return exact;
}

static void test_target_poses(void **state)
{
	(void)state;
	int bad = 0;
	for (int dim = 2; dim <= 3; ++dim) {
		bad += !target_case(dim, 2.5);
		bad += !target_case(dim, 5.0); // the smaller angle: 5 - 2 pi, the other way
		bad += !target_case(dim, -4.0);
	}
	if (bad)
		fail_msg("%d of 6 target cases not exactly on the target (printed above)", bad);
}

// ---------------------------------------------------------------------------
// 7. The per-pair call cap; 8. the statistics and the clock.

/// A spinning box 1.5 from a wall, hitting it within the step: conservative
/// advancement needs several calls for it.
static imp_world *spinning_approach(imp_shape **wall, imp_shape **box, imp_body_id *bid)
{
	imp_world *w = make_world(2, IMP_BROAD_SWEEP);
	assert_int_equal(imp_shape_box2(0.05, 3.0, 0.0, wall), IMP_OK);
	assert_int_equal(imp_shape_box2(0.3, 0.2, 0.0, box), IMP_OK);
	add2(w, *wall, IMP_BODY_STATIC, imp_pose2_make(0, 0, 0));
	*bid = add2(w, *box, IMP_BODY_DYNAMIC, imp_pose2_make(-1.5, 0.1, 0.2));
	assert_int_equal(imp_body_set_velocity2(w, *bid, V2(2, 0.1), 7.0), IMP_OK);
	return w;
}

static void test_pair_cap(void **state)
{
	(void)state;
	imp_shape *wall = NULL, *box = NULL;
	imp_body_id bid;
	imp_world *w = spinning_approach(&wall, &box, &bid);
	imp_step_opts o = imp_default_step_opts();
	o.tolerance = 1e-6;
	o.max_pair_calls = 1;
	step_checked(w, 1.0, &o, NULL, 1e-6);
	imp_step_stats st = imp_world_get_step_stats(w);
	assert_int_equal(st.state, IMP_STEP_PAIR_CAPPED);
	assert_true(st.capped_pairs > 0);
	// One look a pair, and one more for each capped pair's report at the
	// step's end.
	assert_true(st.narrow_calls <= st.queued + st.capped_pairs);
	imp_contact_events capped = imp_world_get_contacts(w);
	assert_true(capped.count >= 1);
	assert_true(capped.items[capped.count - 1].capped && capped.items[capped.count - 1].t == 1.0);
	imp_world_destroy(w);
	imp_shape_destroy(wall);
	imp_shape_destroy(box);
	// The same with the default cap: complete, the contact found.
	w = spinning_approach(&wall, &box, &bid);
	o = imp_default_step_opts();
	o.tolerance = 1e-6;
	imp_contact_events c = step_checked(w, 1.0, &o, NULL, 1e-6);
	st = imp_world_get_step_stats(w);
	assert_int_equal(st.state, IMP_STEP_COMPLETE);
	assert_int_equal(st.capped_pairs, 0);
	assert_int_equal(c.count, 1);
	assert_true(st.narrow_calls > 1);
	imp_world_destroy(w);
	imp_shape_destroy(wall);
	imp_shape_destroy(box);
}

static void test_stats_and_clock(void **state)
{
	(void)state;
	// NULL: zeroed, empty.
	imp_step_stats z = imp_world_get_step_stats(NULL);
	imp_step_stats zero;
	memset(&zero, 0, sizeof zero);
	assert_memory_equal(&z, &zero, sizeof z);
	assert_int_equal(imp_world_get_contacts(NULL).count, 0);
	assert_true(imp_world_time(NULL) == 0.0);
	imp_step_opts d = imp_default_step_opts();
	assert_true(d.tolerance == 0.0 && d.max_pair_calls == 65536 && d.resting_speed == 0.0 && d.on_contact == NULL &&
		    d.user == NULL);

	imp_shape *wall = NULL, *box = NULL;
	imp_body_id bid;
	imp_world *w = spinning_approach(&wall, &box, &bid);
	assert_true(imp_world_time(w) == 0.0);
	assert_int_equal(imp_world_get_contacts(w).count, 0); // no step yet
	double clock = 0.0;
	const double dts[] = {0.1, 0.25, 0.0, 0.7, 1e-3, 0.3};
	recorder rec;
	rec_init(&rec, w);
	imp_step_opts o = rec_opts(&rec, 1e-6);
	int events = 0;
	for (int s = 0; s < 6; ++s) {
		imp_contact_events c = step_checked(w, dts[s], &o, &rec, 1e-6);
		clock += dts[s];
		assert_true(imp_world_time(w) == clock);
		imp_step_stats st = imp_world_get_step_stats(w);
		events += c.count;
		if (dts[s] > 0.0)
			assert_int_equal(st.moving, 1);
		assert_true(st.candidates <= 1 && st.queued <= st.candidates && st.queue_peak <= st.queued);
		assert_true(st.heap_ops >= st.queued && st.narrow_calls >= c.count);
		assert_int_equal(st.rescheduled, 0);
		assert_int_equal(st.state, IMP_STEP_COMPLETE);
	}
	assert_int_equal(events, 1);
	// NULL options: the defaults.
	assert_int_equal(imp_world_step(w, 0.5, NULL), IMP_OK);
	clock += 0.5;
	assert_true(imp_world_time(w) == clock);
	rec_free(&rec);
	imp_world_destroy(w);

	// A random scene: the stats against the scene.
	rscene sc;
	rscene_make(&sc, 2, 120, 9.0, 77);
	w = make_world(2, IMP_BROAD_HASH);
	imp_body_id ids[120];
	rscene_add(&sc, w, ids);
	rscene_set_motions(&sc, w, ids, 0.5);
	rec_init(&rec, w);
	o = rec_opts(&rec, 1e-3);
	imp_contact_events c = step_checked(w, 0.5, &o, &rec, 1e-3);
	imp_step_stats st = imp_world_get_step_stats(w);
	int moving = 0;
	for (int i = 0; i < sc.n; ++i)
		moving += rb_moving(&sc, i);
	assert_int_equal(st.moving, moving);
	assert_int_equal(st.events, c.count);
	assert_true(c.count > 0);
	// Distinct pairs reported: each a candidate and queued.
	int distinct = 0;
	for (int i = 0; i < c.count; ++i) {
		bool seen = false;
		for (int j = 0; j < i && !seen; ++j)
			seen = imp_body_id_equal(c.items[i].a, c.items[j].a) && imp_body_id_equal(c.items[i].b, c.items[j].b);
		distinct += !seen;
	}
	assert_true(st.candidates >= distinct && st.queued >= distinct);
	assert_true(st.queue_peak >= 1 && st.queue_peak <= st.queued);
	assert_true(st.heap_ops >= st.queued);
	assert_true(st.narrow_calls >= st.queued);
	print_message("stats: %d moving, %d candidates, %d queued (peak %d), %d narrow calls, %lld heap ops, %d events\n",
		      st.moving, st.candidates, st.queued, st.queue_peak, st.narrow_calls, (long long)st.heap_ops,
		      st.events);
	rec_free(&rec);
	imp_world_destroy(w);
	rscene_free(&sc);
	imp_shape_destroy(wall);
	imp_shape_destroy(box);
}


/// A step that runs out of memory leaves no contacts, also when the step
/// before it had some (its arrays are reserved before anything else, and a
/// failure there once returned with the last step's contacts still given).
static void test_out_of_memory_clears_contacts(void **state)
{
	(void)state;
	imp_shape *disc = NULL;
	assert_int_equal(imp_shape_circle(V2(0, 0), 0.5, &disc), IMP_OK);
	int tried = 0;
	for (long k = 0; k < 64; ++k) {
		counting cnt;
		memset(&cnt, 0, sizeof cnt);
		cnt.fail_at = -1;
		imp_world_def def = imp_default_world_def();
		def.dim = 2;
		def.allocator = counting_allocator(&cnt);
		imp_world *w = NULL;
		assert_int_equal(imp_world_create(&def, &w), IMP_OK);
		imp_body_id a = add2(w, disc, IMP_BODY_DYNAMIC, imp_pose2_make(0, 0, 0));
		imp_body_id b = add2(w, disc, IMP_BODY_DYNAMIC, imp_pose2_make(3, 0, 0));
		assert_int_equal(imp_body_set_velocity2(w, a, V2(1, 0), 0.0), IMP_OK);
		assert_int_equal(imp_body_set_velocity2(w, b, V2(-1, 0), 0.0), IMP_OK);
		assert_int_equal(imp_world_step(w, 2.0, NULL), IMP_OK);
		assert_int_equal(imp_world_get_contacts(w).count, 1);
		// More moving bodies than the arrays have room for.
		for (int i = 0; i < 30; ++i) {
			imp_body_id id = add2(w, disc, IMP_BODY_DYNAMIC, imp_pose2_make(10.0 + 0.9 * i, 0, 0));
			assert_int_equal(imp_body_set_velocity2(w, id, V2(0, 1), 0.0), IMP_OK);
		}
		assert_int_equal(imp_world_update(w), IMP_OK);
		cnt.fail_at = cnt.calls + k;
		imp_status st = imp_world_step(w, 0.5, NULL);
		cnt.fail_at = -1;
		if (st == IMP_OK) {
			imp_world_destroy(w);
			break;
		}
		assert_int_equal(st, IMP_ERR_OUT_OF_MEMORY);
		tried++;
		if (imp_world_get_contacts(w).count != 0)
			fail_msg("allocation %ld of the step failed: the last step's %d contacts are still given", k,
				 imp_world_get_contacts(w).count);
		imp_world_destroy(w);
		assert_int_equal(cnt.live, 0);
	}
	print_message("a step after a step with a contact: %d failing allocations, none left contacts\n", tried);
	assert_true(tried > 0);
	imp_shape_destroy(disc);
}

// ---------------------------------------------------------------------------
// 9. Bad input: the documented status, the world unchanged.

typedef struct snapshot {
	uint64_t hash;
	double time;
	int bodies;
	imp_vec3 v[4], w[4];
} snapshot;

static snapshot snap(const imp_world *w, const imp_body_id *ids, int n)
{
	snapshot s;
	memset(&s, 0, sizeof s);
	s.hash = imp_world_state_hash(w);
	s.time = imp_world_time(w);
	s.bodies = imp_world_body_count(w);
	for (int i = 0; i < n; ++i) {
		if (imp_world_dim(w) == 2) {
			imp_vec2 v;
			double a;
			assert_int_equal(imp_body_get_velocity2(w, ids[i], &v, &a), IMP_OK);
			s.v[i] = v2to3(v);
			s.w[i] = V3(0, 0, a);
		} else {
			assert_int_equal(imp_body_get_velocity3(w, ids[i], &s.v[i], &s.w[i]), IMP_OK);
		}
	}
	return s;
}

static void assert_same(snapshot a, snapshot b)
{
	assert_true(a.hash == b.hash);
	assert_true(a.time == b.time);
	assert_int_equal(a.bodies, b.bodies);
	assert_memory_equal(a.v, b.v, sizeof a.v);
	assert_memory_equal(a.w, b.w, sizeof a.w);
}

#define EXPECT(call, status)                                                                                         \
	do {                                                                                                         \
		imp_status got_ = (call);                                                                            \
		if (got_ != (status))                                                                                \
			fail_msg("%s: %s, expected %s", #call, imp_status_string(got_), imp_status_string(status));      \
	} while (0)

static void test_bad_input(void **state)
{
	(void)state;
	imp_world *w2 = make_world(2, IMP_BROAD_HASH), *w3 = make_world(3, IMP_BROAD_SWEEP);
	imp_shape *b2 = NULL, *b3 = NULL;
	assert_int_equal(imp_shape_box2(0.5, 0.5, 0.0, &b2), IMP_OK);
	assert_int_equal(imp_shape_box3(0.5, 0.5, 0.5, 0.0, &b3), IMP_OK);
	// 2D: a static body, a kinematic and a dynamic one moving, one removed.
	imp_body_id s2 = add2(w2, b2, IMP_BODY_STATIC, imp_pose2_make(0, 0, 0));
	imp_body_id k2 = add2(w2, b2, IMP_BODY_KINEMATIC, imp_pose2_make(3, 0, 0));
	imp_body_id d2 = add2(w2, b2, IMP_BODY_DYNAMIC, imp_pose2_make(-3, 0, 0));
	imp_body_id gone2 = add2(w2, b2, IMP_BODY_DYNAMIC, imp_pose2_make(9, 9, 0));
	assert_int_equal(imp_world_remove_body(w2, gone2), IMP_OK);
	assert_int_equal(imp_body_set_velocity2(w2, k2, V2(-1, 0), 0.5), IMP_OK);
	assert_int_equal(imp_body_set_velocity2(w2, d2, V2(1, 0.2), -0.5), IMP_OK);
	assert_int_equal(imp_world_step(w2, 0.25, NULL), IMP_OK);
	imp_body_id s3 = add3(w3, b3, IMP_BODY_STATIC, imp_pose3_identity());
	imp_body_id d3 = add3(w3, b3, IMP_BODY_DYNAMIC, pose3_at(-3, 0, 0));
	assert_int_equal(imp_body_set_velocity3(w3, d3, V3(1, 0, 0), V3(0, 0, 1)), IMP_OK);
	imp_body_id ids2[2] = {k2, d2}, ids3[1] = {d3};
	snapshot before2 = snap(w2, ids2, 2), before3 = snap(w3, ids3, 1);
	imp_step_opts o = imp_default_step_opts();

	// The step.
	EXPECT(imp_world_step(NULL, 1.0, NULL), IMP_ERR_NULL_ARGUMENT);
	EXPECT(imp_world_step(NULL, 1.0, &o), IMP_ERR_NULL_ARGUMENT);
	const double not_finite[] = {NAN, -NAN, INFINITY, -INFINITY};
	for (int i = 0; i < 4; ++i) {
		EXPECT(imp_world_step(w2, not_finite[i], NULL), IMP_ERR_NOT_FINITE);
		EXPECT(imp_world_step(w3, not_finite[i], &o), IMP_ERR_NOT_FINITE);
	}
	EXPECT(imp_world_step(w2, 2e150, NULL), IMP_ERR_OUT_OF_RANGE);
	const double negative[] = {-1.0, -1e-300, -2e150};
	for (int i = 0; i < 3; ++i) {
		// A negative dt is not documented with a status of its own: out of
		// range or bad options, never a step.
		imp_status st = imp_world_step(w2, negative[i], NULL);
		if (st != IMP_ERR_OUT_OF_RANGE && st != IMP_ERR_BAD_OPTIONS)
			fail_msg("dt %g: %s", negative[i], imp_status_string(st));
	}
	const double bad_tol[] = {-1.0, -1e-300, NAN, INFINITY, -INFINITY, 2e150};
	for (int i = 0; i < 6; ++i) {
		o = imp_default_step_opts();
		o.tolerance = bad_tol[i];
		EXPECT(imp_world_step(w2, 1.0, &o), IMP_ERR_BAD_OPTIONS);
		EXPECT(imp_world_step(w3, 1.0, &o), IMP_ERR_BAD_OPTIONS);
	}
	const int bad_calls[] = {0, -1, INT32_MIN};
	for (int i = 0; i < 3; ++i) {
		o = imp_default_step_opts();
		o.max_pair_calls = bad_calls[i];
		EXPECT(imp_world_step(w2, 1.0, &o), IMP_ERR_BAD_OPTIONS);
	}
	const double bad_resting[] = {-1.0, -1e-300, NAN, INFINITY, -INFINITY};
	for (int i = 0; i < 5; ++i) {
		o = imp_default_step_opts();
		o.resting_speed = bad_resting[i];
		EXPECT(imp_world_step(w2, 1.0, &o), IMP_ERR_BAD_OPTIONS);
		EXPECT(imp_world_step(w3, 1.0, &o), IMP_ERR_BAD_OPTIONS);
	}
	// A body that would leave the coordinate range.
	assert_int_equal(imp_body_set_velocity2(w2, d2, V2(1e150, 0), 0.0), IMP_OK);
	EXPECT(imp_world_step(w2, 10.0, NULL), IMP_ERR_OUT_OF_RANGE);
	assert_int_equal(imp_body_set_velocity2(w2, d2, V2(1, 0.2), -0.5), IMP_OK);
	assert_same(before2, snap(w2, ids2, 2));

	// Velocities.
	EXPECT(imp_body_set_velocity2(NULL, d2, V2(1, 0), 0.0), IMP_ERR_NULL_ARGUMENT);
	EXPECT(imp_body_set_velocity3(NULL, d3, V3(1, 0, 0), V3(0, 0, 0)), IMP_ERR_NULL_ARGUMENT);
	for (int i = 0; i < 4; ++i) {
		double x = not_finite[i];
		EXPECT(imp_body_set_velocity2(w2, d2, V2(x, 0), 0.0), IMP_ERR_NOT_FINITE);
		EXPECT(imp_body_set_velocity2(w2, d2, V2(0, x), 0.0), IMP_ERR_NOT_FINITE);
		EXPECT(imp_body_set_velocity2(w2, k2, V2(0, 0), x), IMP_ERR_NOT_FINITE);
		EXPECT(imp_body_set_velocity3(w3, d3, V3(0, 0, x), V3(0, 0, 0)), IMP_ERR_NOT_FINITE);
		EXPECT(imp_body_set_velocity3(w3, d3, V3(0, 0, 0), V3(x, 0, 0)), IMP_ERR_NOT_FINITE);
	}
	EXPECT(imp_body_set_velocity2(w2, d2, V2(2e150, 0), 0.0), IMP_ERR_OUT_OF_RANGE);
	EXPECT(imp_body_set_velocity2(w2, d2, V2(0, 0), -2e150), IMP_ERR_OUT_OF_RANGE);
	EXPECT(imp_body_set_velocity3(w3, d3, V3(0, -2e150, 0), V3(0, 0, 0)), IMP_ERR_OUT_OF_RANGE);
	EXPECT(imp_body_set_velocity3(w3, d3, V3(0, 0, 0), V3(0, 0, 2e150)), IMP_ERR_OUT_OF_RANGE);
	EXPECT(imp_body_set_velocity2(w2, s2, V2(1, 0), 0.0), IMP_ERR_STATIC_BODY);
	EXPECT(imp_body_set_velocity3(w3, s3, V3(1, 0, 0), V3(0, 0, 0)), IMP_ERR_STATIC_BODY);
	EXPECT(imp_body_set_velocity3(w2, d2, V3(1, 0, 0), V3(0, 0, 0)), IMP_ERR_DIMENSION_MISMATCH);
	EXPECT(imp_body_set_velocity2(w3, d3, V2(1, 0), 0.0), IMP_ERR_DIMENSION_MISMATCH);
	EXPECT(imp_body_set_velocity2(w2, gone2, V2(1, 0), 0.0), IMP_ERR_BAD_ID);
	imp_body_id null_id = {0, 0, 0};
	EXPECT(imp_body_set_velocity2(w2, null_id, V2(1, 0), 0.0), IMP_ERR_BAD_ID);
	EXPECT(imp_body_set_velocity3(w3, d2, V3(1, 0, 0), V3(0, 0, 0)), IMP_ERR_BAD_ID); // another world's id
	imp_vec2 v2;
	double a2;
	imp_vec3 v3;
	EXPECT(imp_body_get_velocity2(w2, d2, NULL, NULL), IMP_ERR_NULL_ARGUMENT);
	EXPECT(imp_body_get_velocity3(w3, d3, NULL, NULL), IMP_ERR_NULL_ARGUMENT);
	EXPECT(imp_body_get_velocity2(NULL, d2, &v2, &a2), IMP_ERR_NULL_ARGUMENT);
	EXPECT(imp_body_get_velocity2(w2, gone2, &v2, &a2), IMP_ERR_BAD_ID);
	EXPECT(imp_body_get_velocity3(w2, d2, &v3, NULL), IMP_ERR_DIMENSION_MISMATCH);
	// A static body's velocity: zero (it cannot be given one).
	v2 = V2(7, 7);
	a2 = 7.0;
	EXPECT(imp_body_get_velocity2(w2, s2, &v2, &a2), IMP_OK);
	assert_true(v2.x == 0.0 && v2.y == 0.0 && a2 == 0.0);

	// Target poses.
	imp_pose2 bad_rot = imp_pose2_make(1, 0, 0);
	bad_rot.q.c = 2.0;
	EXPECT(imp_body_set_target_pose2(NULL, d2, imp_pose2_identity()), IMP_ERR_NULL_ARGUMENT);
	EXPECT(imp_body_set_target_pose2(w2, d2, imp_pose2_make(NAN, 0, 0)), IMP_ERR_NOT_FINITE);
	EXPECT(imp_body_set_target_pose2(w2, d2, imp_pose2_make(INFINITY, 0, 0)), IMP_ERR_NOT_FINITE);
	EXPECT(imp_body_set_target_pose2(w2, d2, bad_rot), IMP_ERR_BAD_ROTATION);
	EXPECT(imp_body_set_target_pose2(w2, d2, imp_pose2_make(2e150, 0, 0)), IMP_ERR_OUT_OF_RANGE);
	EXPECT(imp_body_set_target_pose2(w2, s2, imp_pose2_identity()), IMP_ERR_STATIC_BODY);
	EXPECT(imp_body_set_target_pose2(w2, gone2, imp_pose2_identity()), IMP_ERR_BAD_ID);
	EXPECT(imp_body_set_target_pose2(w3, d3, imp_pose2_identity()), IMP_ERR_DIMENSION_MISMATCH);
	EXPECT(imp_body_set_target_pose3(w2, d2, imp_pose3_identity()), IMP_ERR_DIMENSION_MISMATCH);
	imp_pose3 bad_q = imp_pose3_identity();
	bad_q.q.w = 0.5;
	EXPECT(imp_body_set_target_pose3(w3, d3, bad_q), IMP_ERR_BAD_ROTATION);
	EXPECT(imp_body_set_target_pose3(w3, d3, pose3_at(0, NAN, 0)), IMP_ERR_NOT_FINITE);
	EXPECT(imp_body_set_target_pose3(w3, d3, pose3_at(0, 0, -2e150)), IMP_ERR_OUT_OF_RANGE);
	EXPECT(imp_body_set_target_pose3(w3, s3, imp_pose3_identity()), IMP_ERR_STATIC_BODY);
	assert_same(before2, snap(w2, ids2, 2));
	assert_same(before3, snap(w3, ids3, 1));
	// And the worlds still step as before the failed calls.
	assert_int_equal(imp_world_step(w2, 0.25, NULL), IMP_OK);
	assert_int_equal(imp_world_step(w3, 0.25, NULL), IMP_OK);
	assert_true(imp_world_time(w2) == 0.5 && imp_world_time(w3) == 0.25);
	imp_world_destroy(w2);
	imp_world_destroy(w3);
	imp_shape_destroy(b2);
	imp_shape_destroy(b3);
}

/// What the callback tried, and got.
typedef struct busy_ctx {
	int dim;
	const imp_shape *shape;
	imp_body_id ball, other;
	int calls;
	imp_status add, remove, set_pose, set_filter, step, update, target, velocity, get_pose;
} busy_ctx;

static bool count_pair(imp_body_id a, imp_body_id b, void *user)
{
	(void)a;
	(void)b;
	(*(int *)user)++;
	return true;
}

static void busy_react(recorder *r, const imp_contact_event *e)
{
	(void)e;
	busy_ctx *c = r->ctx;
	if (c->calls++)
		return;
	imp_body_def d = imp_default_body_def();
	d.shape = c->shape;
	d.pose2 = imp_pose2_make(50, 50, 0);
	d.pose3 = pose3_at(50, 50, 50);
	imp_body_id id;
	c->add = imp_world_add_body(r->w, &d, &id);
	c->remove = imp_world_remove_body(r->w, c->other);
	c->set_filter = imp_body_set_filter(r->w, c->ball, imp_default_filter());
	c->step = imp_world_step(r->w, 1.0, NULL);
	c->update = imp_world_update(r->w);
	if (c->dim == 2) {
		c->set_pose = imp_body_set_pose2(r->w, c->ball, imp_pose2_make(0, 5, 0));
		c->target = imp_body_set_target_pose2(r->w, c->ball, imp_pose2_make(0, 5, 0));
		imp_pose2 p;
		c->get_pose = imp_body_get_pose2(r->w, c->ball, &p);
		c->velocity = imp_body_set_velocity2(r->w, c->ball, V2(-1, 0), 0.0);
	} else {
		c->set_pose = imp_body_set_pose3(r->w, c->ball, pose3_at(0, 5, 0));
		c->target = imp_body_set_target_pose3(r->w, c->ball, pose3_at(0, 5, 0));
		imp_pose3 p;
		c->get_pose = imp_body_get_pose3(r->w, c->ball, &p);
		c->velocity = imp_body_set_velocity3(r->w, c->ball, V3(-1, 0, 0), V3(0, 0, 0));
	}
}

typedef struct pair_step_ctx {
	imp_world *w;
	imp_status st;
} pair_step_ctx;

static bool step_in_for_each(imp_body_id a, imp_body_id b, void *user)
{
	(void)a;
	(void)b;
	pair_step_ctx *c = user;
	c->st = imp_world_step(c->w, 1.0, NULL);
	return false;
}

static void test_busy_inside_callback(void **state)
{
	(void)state;
	for (int dim = 2; dim <= 3; ++dim) {
		imp_world *w = make_world(dim, IMP_BROAD_HASH);
		imp_shape *ball = NULL, *wall = NULL;
		if (dim == 2) {
			assert_int_equal(imp_shape_circle(V2(0, 0), 0.1, &ball), IMP_OK);
			assert_int_equal(imp_shape_box2(0.05, 1.0, 0.0, &wall), IMP_OK);
		} else {
			assert_int_equal(imp_shape_sphere(V3(0, 0, 0), 0.1, &ball), IMP_OK);
			assert_int_equal(imp_shape_box3(0.05, 1.0, 1.0, 0.0, &wall), IMP_OK);
		}
		busy_ctx c;
		memset(&c, 0, sizeof c);
		c.dim = dim;
		c.shape = ball;
		imp_body_id wall_id = add_at(w, dim, wall, IMP_BODY_STATIC, 1.0);
		c.ball = add_at(w, dim, ball, IMP_BODY_DYNAMIC, 0.0);
		c.other = add_at(w, dim, ball, IMP_BODY_DYNAMIC, -5.0);
		set_vel(w, dim, c.ball, V3(2, 0, 0)); // hits the wall (face at 0.95) at 0.425
		recorder rec;
		rec_init(&rec, w);
		rec.react = busy_react;
		rec.ctx = &c;
		imp_step_opts o = rec_opts(&rec, 1e-6);
		imp_contact_events ev = step_checked(w, 1.0, &o, &rec, 1e-6);
		assert_int_equal(c.calls, 1);
		assert_int_equal(ev.count, 1);
		assert_true(event_names(&ev.items[0], wall_id));
		EXPECT(c.add, IMP_ERR_BUSY);
		EXPECT(c.remove, IMP_ERR_BUSY);
		EXPECT(c.set_pose, IMP_ERR_BUSY);
		EXPECT(c.set_filter, IMP_ERR_BUSY);
		EXPECT(c.step, IMP_ERR_BUSY);
		EXPECT(c.update, IMP_ERR_BUSY);
		EXPECT(c.target, IMP_ERR_BUSY);
		EXPECT(c.get_pose, IMP_OK);
		EXPECT(c.velocity, IMP_OK);
		// Nothing the refused calls asked for happened; the velocity set in
		// the callback took effect at the contact: the ball went back.
		assert_int_equal(imp_world_body_count(w), 3);
		assert_true(imp_body_is_valid(w, c.other));
		double t = ev.items[0].t;
		imp_vec3 p = body_pos(w, dim, c.ball);
		assert_true(fabs(p.x - (2.0 * t - (1.0 - t))) <= 1e-12 && p.y == 0.0);
		assert_true(fabs(imp_world_time(w) - 1.0) == 0.0);
		// A step inside imp_world_for_each_pair: refused too.
		assert_int_equal(imp_world_update(w), IMP_OK);
		// The other ball teleported onto the wall: a touching pair.
		if (dim == 2)
			assert_int_equal(imp_body_set_pose2(w, c.other, imp_pose2_make(1, 0, 0)), IMP_OK);
		else
			assert_int_equal(imp_body_set_pose3(w, c.other, pose3_at(1, 0, 0)), IMP_OK);
		assert_int_equal(imp_world_update(w), IMP_OK);
		pair_step_ctx ps = {w, IMP_OK};
		int pairs = 0;
		assert_int_equal(imp_world_for_each_pair(w, count_pair, &pairs), IMP_OK);
		assert_true(pairs > 0);
		uint64_t h = imp_world_state_hash(w);
		assert_int_equal(imp_world_for_each_pair(w, step_in_for_each, &ps), IMP_OK);
		EXPECT(ps.st, IMP_ERR_BUSY);
		assert_true(imp_world_state_hash(w) == h && imp_world_time(w) == 1.0);
		rec_free(&rec);
		imp_world_destroy(w);
		imp_shape_destroy(ball);
		imp_shape_destroy(wall);
	}
}

/// Out of memory at every allocation of a step: the step fails with
/// IMP_ERR_OUT_OF_MEMORY and the world is as it was; once the allocations
/// succeed, the step gives the contacts of a world that never failed.
static void test_out_of_memory(void **state)
{
	(void)state;
	for (int dim = 2; dim <= 3; ++dim) {
		rscene sc;
		rscene_make(&sc, dim, 40, dim == 2 ? 5.0 : 3.0, 0xa110c + (uint64_t)dim);
		imp_body_id ref_ids[40], ids[40];
		imp_world *ref = make_world(dim, IMP_BROAD_HASH);
		rscene_add(&sc, ref, ref_ids);
		rscene_set_motions(&sc, ref, ref_ids, 0.5);
		imp_step_opts o = imp_default_step_opts();
		o.tolerance = 1e-3;
		assert_int_equal(imp_world_step(ref, 0.5, &o), IMP_OK);
		imp_contact_events want = imp_world_get_contacts(ref);
		assert_true(want.count > 0);

		counting cnt;
		memset(&cnt, 0, sizeof cnt);
		cnt.fail_at = -1;
		imp_world_def def = imp_default_world_def();
		def.dim = dim;
		def.allocator = counting_allocator(&cnt);
		imp_world *w = NULL;
		assert_int_equal(imp_world_create(&def, &w), IMP_OK);
		rscene_add(&sc, w, ids);
		rscene_set_motions(&sc, w, ids, 0.5);
		uint64_t h = imp_world_state_hash(w);
		int failures = 0;
		for (long k = 0;; ++k) {
			cnt.fail_at = cnt.calls + k;
			imp_status st = imp_world_step(w, 0.5, &o);
			cnt.fail_at = -1;
			if (st == IMP_OK)
				break;
			EXPECT(st, IMP_ERR_OUT_OF_MEMORY);
			failures++;
			assert_true(imp_world_state_hash(w) == h && imp_world_time(w) == 0.0);
			assert_true(k < 10000);
		}
		imp_contact_events got = imp_world_get_contacts(w);
		assert_int_equal(got.count, want.count);
		for (int i = 0; i < got.count; ++i) {
			const imp_contact_event *x = &got.items[i], *y = &want.items[i];
			assert_true(x->a.index == y->a.index && x->b.index == y->b.index);
			assert_true(fabs(x->t - y->t) <= 1e-12);
		}
		print_message("%dD: the step failed cleanly at %d allocations\n", dim, failures);
		assert_true(failures > 0 || cnt.allocs == 0);
		imp_world_destroy(w);
		assert_int_equal(cnt.live, 0);
		assert_false(cnt.size_mismatch);
		imp_world_destroy(ref);
		rscene_free(&sc);
	}
}

/// Pairs touching after an update, as "lo hi" slot pairs in a small array.
static bool collect_pair(imp_body_id a, imp_body_id b, void *user)
{
	int *p = user;
	p[1 + 2 * p[0]] = (int)a.index;
	p[2 + 2 * p[0]] = (int)b.index;
	p[0]++;
	return p[0] < 8;
}

/// One world of test_out_of_memory_in_callback: balls a (moving along x)
/// and b (at rest) and a wall far below b, updated once so that nothing is
/// left in the moved list.
static imp_world *oom_world(int dim, const imp_allocator *alloc, const imp_shape *ball, const imp_shape *wall,
			    imp_body_id *a, imp_body_id *b)
{
	imp_world_def def = imp_default_world_def();
	def.dim = dim;
	def.broad_phase = IMP_BROAD_HASH;
	if (alloc != NULL)
		def.allocator = *alloc;
	imp_world *w = NULL;
	assert_int_equal(imp_world_create(&def, &w), IMP_OK);
	*a = add_at(w, dim, ball, IMP_BODY_DYNAMIC, 0.0);
	*b = add_at(w, dim, ball, IMP_BODY_DYNAMIC, 2.0);
	if (dim == 2)
		add2(w, wall, IMP_BODY_STATIC, imp_pose2_make(2.0, -60.0, 0.0));
	else
		add3(w, wall, IMP_BODY_STATIC, pose3_at(2.0, -60.0, 0.0));
	set_vel(w, dim, *a, V3(10, 0, 0));
	assert_int_equal(imp_world_update(w), IMP_OK);
	return w;
}

/// The kick: when a reaches b, a stops and b goes down at 100.
static void kick_react(recorder *r, const imp_contact_event *e)
{
	swapper *s = r->ctx;
	if (!(e->normal_speed < 0.0) || !imp_body_id_equal(e->a, s->id[0]) || !imp_body_id_equal(e->b, s->id[1]))
		return;
	set_vel(r->w, s->dim, s->id[0], V3(0, 0, 0));
	set_vel(r->w, s->dim, s->id[1], V3(0, -100, 0));
}

/// Out of memory inside the callback's work: a ball hits a ball at rest,
/// the callback kicks the struck ball down (it starts moving mid-step, far
/// beyond its enlarged box, into cells of the hash that nothing held yet,
/// so the move allocates), so it must be swept again and moved in the
/// broad phase, where it meets a wall it had no pair with; a move that
/// fails drops it from the broad phase, and the next update must insert it
/// again. For each k, a fresh world whose k-th
/// allocation of the step fails: the step returns IMP_ERR_OUT_OF_MEMORY
/// with the poses and the clock as they were; with the velocities set back,
/// the step then gives the contacts of a world that never failed, and the
/// struck ball is still in the broad phase (moved onto a body made
/// afterwards, it touches it after an update).
static void test_out_of_memory_in_callback(void **state)
{
	(void)state;
	for (int dim = 2; dim <= 3; ++dim) {
		const double r = 0.25, tol = 1e-6;
		imp_shape *ball = NULL, *wall = NULL;
		if (dim == 2) {
			assert_int_equal(imp_shape_circle(V2(0, 0), r, &ball), IMP_OK);
			assert_int_equal(imp_shape_box2(2.0, 0.05, 0.0, &wall), IMP_OK);
		} else {
			assert_int_equal(imp_shape_sphere(V3(0, 0, 0), r, &ball), IMP_OK);
			assert_int_equal(imp_shape_box3(2.0, 0.05, 2.0, 0.0, &wall), IMP_OK);
		}
		imp_body_id ra, rb;
		imp_world *ref = oom_world(dim, NULL, ball, wall, &ra, &rb);
		swapper sw = {dim, 2, {ra, rb}};
		recorder rec;
		rec_init(&rec, ref);
		rec.react = kick_react;
		rec.ctx = &sw;
		imp_step_opts ro = rec_opts(&rec, tol);
		assert_int_equal(imp_world_step(ref, 1.0, &ro), IMP_OK);
		imp_contact_events want = imp_world_get_contacts(ref);
		// a reaches b at (2 - 2r) / 10; b then reaches the wall at y = -60 + 0.05.
		assert_int_equal(want.count, 2);
		double t1 = (2.0 - 2.0 * r) / 10.0, t2 = t1 + (60.0 - 0.05 - r) / 100.0;
		assert_true(want.items[0].t <= t1 && want.items[0].t >= t1 - tol);
		assert_true(want.items[1].t <= t2 && want.items[1].t >= t2 - 2.0 * tol);
		add_at(ref, dim, wall, IMP_BODY_STATIC, -20.0);
		if (dim == 2)
			assert_int_equal(imp_body_set_pose2(ref, rb, imp_pose2_make(-20.2, 0, 0)), IMP_OK);
		else
			assert_int_equal(imp_body_set_pose3(ref, rb, pose3_at(-20.2, 0, 0)), IMP_OK);
		assert_int_equal(imp_world_update(ref), IMP_OK);
		int pr[17] = {0};
		assert_int_equal(imp_world_for_each_pair(ref, collect_pair, pr), IMP_OK);
		assert_int_equal(pr[0], 1);

		int failures = 0;
		for (long k = 0;; ++k) {
			counting cnt;
			memset(&cnt, 0, sizeof cnt);
			cnt.fail_at = -1;
			imp_allocator al = counting_allocator(&cnt);
			imp_body_id a, b;
			imp_world *w = oom_world(dim, &al, ball, wall, &a, &b);
			recorder rw;
			rec_init(&rw, w);
			swapper sk = {dim, 2, {a, b}};
			rw.react = kick_react;
			rw.ctx = &sk;
			imp_step_opts wo = rec_opts(&rw, tol);
			imp_vec3 pa = body_pos(w, dim, a), pb = body_pos(w, dim, b);
			cnt.fail_at = cnt.calls + k;
			imp_status st = imp_world_step(w, 1.0, &wo);
			cnt.fail_at = -1;
			bool done = st == IMP_OK;
			if (!done) {
				EXPECT(st, IMP_ERR_OUT_OF_MEMORY);
				failures++;
				imp_vec3 qa = body_pos(w, dim, a), qb = body_pos(w, dim, b);
				assert_true(qa.x == pa.x && qb.x == pb.x && imp_world_time(w) == 0.0);
				assert_int_equal(imp_world_get_contacts(w).count, 0);
				// The callback may have run: the velocities as they were.
				set_vel(w, dim, a, V3(10, 0, 0));
				set_vel(w, dim, b, V3(0, 0, 0));
				assert_int_equal(imp_world_step(w, 1.0, &wo), IMP_OK);
			}
			imp_contact_events got = imp_world_get_contacts(w);
			assert_int_equal(got.count, want.count);
			for (int i = 0; i < got.count; ++i) {
				assert_true(got.items[i].a.index == want.items[i].a.index &&
					    got.items[i].b.index == want.items[i].b.index);
				assert_true(fabs(got.items[i].t - want.items[i].t) <= 1e-12);
			}
			add_at(w, dim, wall, IMP_BODY_STATIC, -20.0);
			if (dim == 2)
				assert_int_equal(imp_body_set_pose2(w, b, imp_pose2_make(-20.2, 0, 0)), IMP_OK);
			else
				assert_int_equal(imp_body_set_pose3(w, b, pose3_at(-20.2, 0, 0)), IMP_OK);
			assert_int_equal(imp_world_update(w), IMP_OK);
			int pw[17] = {0};
			assert_int_equal(imp_world_for_each_pair(w, collect_pair, pw), IMP_OK);
			assert_memory_equal(pr, pw, sizeof pr);
			rec_free(&rw);
			imp_world_destroy(w);
			assert_int_equal(cnt.live, 0);
			assert_false(cnt.size_mismatch);
			if (done)
				break;
			assert_true(k < 10000);
		}
		print_message("%dD: the step with a callback failed cleanly at each of %d allocations\n", dim, failures);
		assert_true(failures > 0);
		rec_free(&rec);
		imp_world_destroy(ref);
		imp_shape_destroy(ball);
		imp_shape_destroy(wall);
	}
}

/// Moves b to x on the axis, at rest.
static void place_x(imp_world *w, int dim, imp_body_id b, double x)
{
	if (dim == 2)
		assert_int_equal(imp_body_set_pose2(w, b, imp_pose2_make(x, 0, 0)), IMP_OK);
	else
		assert_int_equal(imp_body_set_pose3(w, b, pose3_at(x, 0, 0)), IMP_OK);
}

/// Sets a velocity along x and a slow turn (about z in 3D).
static void set_vx_turn(imp_world *w, int dim, imp_body_id id, double vx, double turn)
{
	if (dim == 2)
		assert_int_equal(imp_body_set_velocity2(w, id, V2(vx, 0), turn), IMP_OK);
	else
		assert_int_equal(imp_body_set_velocity3(w, id, V3(vx, 0, 0), V3(0, 0, turn)), IMP_OK);
}

/// The time the pairwise query gives for shape s on a and b moving from
/// their poses in w at velocities along x (va, vb) and turns (ta, tb).
static double pairwise_time(const imp_world *w, int dim, const imp_shape *s, imp_body_id a, imp_body_id b, double va,
			    double ta, double vb, double tb, double t_max)
{
	imp_toi_options o = imp_default_toi_options();
	o.tolerance = 1e-6;
	o.max_iterations = 1000;
	if (dim == 2) {
		imp_motion2 ma = {get_pose2(w, a), V2(va, 0), ta}, mb = {get_pose2(w, b), V2(vb, 0), tb};
		imp_toi2_result r;
		assert_int_equal(imp_time_of_impact2_ex(s, ma, s, mb, t_max, &o, &r), IMP_OK);
		assert_int_equal(r.state, IMP_TOI_HIT);
		return r.t;
	}
	imp_motion3 ma = {get_pose3(w, a), V3(va, 0, 0), V3(0, 0, ta)}, mb = {get_pose3(w, b), V3(vb, 0, 0), V3(0, 0, tb)};
	imp_toi3_result r;
	assert_int_equal(imp_time_of_impact3_ex(s, ma, s, mb, t_max, &o, &r), IMP_OK);
	assert_int_equal(r.state, IMP_TOI_HIT);
	return r.t;
}

/// The bounds a step keeps for the steps after it hold only while both
/// bodies' motions do. Two unit boxes 0.05 apart, turning slowly and
/// drifting apart, are a candidate pair every step (a turning body's swept
/// box is its ball's) with a bound of "never" (the drift outruns the
/// turn), so their steps make no narrow-phase call; the bound must be given
/// up when a velocity turns the pair round, when a body is teleported, and
/// when a body at rest is set moving.
static void test_bounds_follow_motion(void **state)
{
	(void)state;
	for (int dim = 2; dim <= 3; ++dim) {
		imp_shape *box = NULL;
		if (dim == 2)
			assert_int_equal(imp_shape_box2(0.5, 0.5, 0.0, &box), IMP_OK);
		else
			assert_int_equal(imp_shape_box3(0.5, 0.5, 0.5, 0.0, &box), IMP_OK);
		imp_world *w = make_world(dim, IMP_BROAD_SWEEP);
		imp_body_id a = add_at(w, dim, box, IMP_BODY_DYNAMIC, 0.0);
		imp_body_id b = add_at(w, dim, box, IMP_BODY_DYNAMIC, 1.05);
		imp_step_opts o = imp_default_step_opts();
		o.tolerance = 1e-6;
		// Apart at 0.02 (a turn of 0.01 moves a box's side at most 0.0071).
		set_vx_turn(w, dim, a, -0.01, 0.01);
		set_vx_turn(w, dim, b, 0.01, 0.01);
		for (int k = 0; k < 3; ++k) {
			assert_int_equal(imp_world_step(w, 0.5, &o), IMP_OK);
			assert_int_equal(imp_world_get_contacts(w).count, 0);
			assert_int_equal(imp_world_get_step_stats(w).candidates, 1);
		}
		assert_int_equal(imp_world_get_step_stats(w).narrow_calls, 0); // the bound held
		// a turned round: gap about 0.08, closing at 0.99.
		set_vx_turn(w, dim, a, 1.0, 0.01);
		double want = pairwise_time(w, dim, box, a, b, 1.0, 0.01, 0.01, 0.01, 0.5);
		assert_int_equal(imp_world_step(w, 0.5, &o), IMP_OK);
		imp_contact_events c = imp_world_get_contacts(w);
		assert_int_equal(c.count, 1);
		assert_true(fabs(c.items[0].t - want) <= 1e-6);
		// Apart and drifting apart again, then b teleported onto a.
		set_vx_turn(w, dim, a, 0.0, 0.01);
		imp_vec3 pa = body_pos(w, dim, a);
		place_x(w, dim, b, pa.x + 1.05);
		set_vx_turn(w, dim, b, 0.03, 0.01);
		for (int k = 0; k < 2; ++k) {
			assert_int_equal(imp_world_step(w, 0.5, &o), IMP_OK);
			assert_int_equal(imp_world_get_contacts(w).count, 0);
		}
		assert_int_equal(imp_world_get_step_stats(w).narrow_calls, 0);
		pa = body_pos(w, dim, a);
		place_x(w, dim, b, pa.x + 0.99); // the drift goes on from there
		assert_int_equal(imp_world_step(w, 0.5, &o), IMP_OK);
		c = imp_world_get_contacts(w);
		assert_int_equal(c.count, 1);
		assert_true(c.items[0].t == 0.0);
		// b at rest, a drifting away from it; then a stops and b, at rest
		// until now, is set moving at it.
		pa = body_pos(w, dim, a);
		place_x(w, dim, b, pa.x + 1.05);
		set_vx_turn(w, dim, b, 0.0, 0.0);
		set_vx_turn(w, dim, a, -0.03, 0.01);
		for (int k = 0; k < 2; ++k) {
			assert_int_equal(imp_world_step(w, 0.5, &o), IMP_OK);
			assert_int_equal(imp_world_get_contacts(w).count, 0);
		}
		assert_int_equal(imp_world_get_step_stats(w).narrow_calls, 0);
		set_vx_turn(w, dim, a, 0.0, 0.0);
		set_vx_turn(w, dim, b, -1.0, 0.0); // gap under 0.08 at 1
		want = pairwise_time(w, dim, box, a, b, 0.0, 0.0, -1.0, 0.0, 0.5);
		assert_int_equal(imp_world_step(w, 0.5, &o), IMP_OK);
		c = imp_world_get_contacts(w);
		assert_int_equal(c.count, 1);
		assert_true(fabs(c.items[0].t - want) <= 1e-6 && want < 0.08);
		imp_world_destroy(w);
		imp_shape_destroy(box);
	}
}

// ---------------------------------------------------------------------------
// Random sequences of every call that changes a world, steps among them.

enum { FZ_SLOTS = 48 };

typedef struct fuzz {
	imp_world *w;
	int dim;
	ow_rng r;
	imp_body_id ids[FZ_SLOTS];
	bool alive[FZ_SLOTS];
	long velocity_changes;
} fuzz;

/// The callback of the sequences: sometimes a new velocity for one of the
/// two bodies, sometimes a call that must be refused.
static void fuzz_contact(const imp_contact_event *e, void *user)
{
	fuzz *f = user;
	assert_true(imp_body_is_valid(f->w, e->a) && imp_body_is_valid(f->w, e->b));
	if (ow_int(&f->r, 3) == 0) {
		imp_body_id x = ow_int(&f->r, 2) ? e->a : e->b;
		imp_body_type t;
		assert_int_equal(imp_body_get_type(f->w, x, &t), IMP_OK);
		imp_vec2 v = rand2(&f->r, -10, 10);
		double spin = ow_range(&f->r, -2, 2);
		imp_status st = f->dim == 2 ? imp_body_set_velocity2(f->w, x, v, spin)
					    : imp_body_set_velocity3(f->w, x, V3(v.x, 0, v.y), V3(0, spin, 0));
		assert_int_equal(st, t == IMP_BODY_STATIC ? IMP_ERR_STATIC_BODY : IMP_OK);
		f->velocity_changes += st == IMP_OK;
	}
	if (ow_int(&f->r, 20) == 0) {
		EXPECT(imp_world_step(f->w, 0.1, NULL), IMP_ERR_BUSY);
		EXPECT(imp_world_update(f->w), IMP_ERR_BUSY);
		EXPECT(imp_world_remove_body(f->w, e->a), IMP_ERR_BUSY);
	}
}

/// Pairs touching after an update, as slot numbers of the sequence, in a
/// FZ_SLOTS x FZ_SLOTS table.
typedef struct fuzz_pairs {
	const fuzz *f;
	const imp_body_id *ids;
	bool *touch;
} fuzz_pairs;

static int fuzz_slot(const imp_body_id *ids, const bool *alive, imp_body_id id)
{
	for (int k = 0; k < FZ_SLOTS; ++k)
		if (alive[k] && imp_body_id_equal(ids[k], id))
			return k;
	return -1;
}

static bool fuzz_collect(imp_body_id a, imp_body_id b, void *user)
{
	fuzz_pairs *p = user;
	int i = fuzz_slot(p->ids, p->f->alive, a), j = fuzz_slot(p->ids, p->f->alive, b);
	assert_true(i >= 0 && j >= 0);
	p->touch[i * FZ_SLOTS + j] = p->touch[j * FZ_SLOTS + i] = true;
	return true;
}

/// Adds, removes, teleports, re-filters, velocities, targets, updates and
/// steps (with a callback that changes velocities) in a random order, on
/// three kinds of bodies and four shapes: every call answers as documented,
/// every step's contacts are in time order within the step, and at the end
/// the touching pairs after an update are those of a world built afresh
/// from the bodies as they are (nothing in the broad phase or the pair
/// table went stale).
static void fuzz_run(int dim, imp_broad_kind kind, uint64_t seed, int ops)
{
	fuzz f;
	memset(&f, 0, sizeof f);
	f.dim = dim;
	f.r.s = seed;
	imp_shape *shapes[4];
	if (dim == 2) {
		assert_int_equal(imp_shape_box2(0.3, 0.2, 0.0, &shapes[0]), IMP_OK);
		assert_int_equal(imp_shape_circle(V2(0, 0), 0.25, &shapes[1]), IMP_OK);
		assert_int_equal(imp_shape_box2(3.0, 0.1, 0.01, &shapes[2]), IMP_OK);
		imp_vec2 tri[3] = {{0, 0}, {0.5, 0}, {0, 0.4}};
		assert_int_equal(imp_shape_polygon(tri, 3, 0.0, &shapes[3]), IMP_OK);
	} else {
		assert_int_equal(imp_shape_box3(0.3, 0.2, 0.25, 0.0, &shapes[0]), IMP_OK);
		assert_int_equal(imp_shape_sphere(V3(0, 0, 0), 0.25, &shapes[1]), IMP_OK);
		assert_int_equal(imp_shape_box3(3.0, 0.1, 3.0, 0.01, &shapes[2]), IMP_OK);
		assert_int_equal(imp_shape_capsule3(V3(0, 0, 0), V3(0.5, 0, 0), 0.1, &shapes[3]), IMP_OK);
	}
	imp_world_def def = imp_default_world_def();
	def.dim = dim;
	def.broad_phase = kind;
	assert_int_equal(imp_world_create(&def, &f.w), IMP_OK);
	imp_step_opts so = imp_default_step_opts();
	so.on_contact = fuzz_contact;
	so.user = &f;
	so.tolerance = 1e-3;
	long steps = 0, contacts = 0;
	for (int it = 0; it < ops; ++it) {
		int k = ow_int(&f.r, FZ_SLOTS), op = ow_int(&f.r, 10);
		if (!f.alive[k] || op == 0) {
			if (f.alive[k]) {
				assert_int_equal(imp_world_remove_body(f.w, f.ids[k]), IMP_OK);
				f.alive[k] = false;
				continue;
			}
			imp_body_def bd = imp_default_body_def();
			bd.type = (imp_body_type)ow_int(&f.r, 3);
			bd.shape = shapes[ow_int(&f.r, 4)];
			bd.pose2 = rand_pose2(&f.r, 4, 6);
			bd.pose3 = rand_pose3(&f.r, 4);
			bd.filter.group = ow_int(&f.r, 5) == 0 ? (ow_int(&f.r, 2) ? 1 : -1) : 0;
			assert_int_equal(imp_world_add_body(f.w, &bd, &f.ids[k]), IMP_OK);
			f.alive[k] = true;
			continue;
		}
		imp_body_type t;
		assert_int_equal(imp_body_get_type(f.w, f.ids[k], &t), IMP_OK);
		imp_status want = t == IMP_BODY_STATIC ? IMP_ERR_STATIC_BODY : IMP_OK;
		switch (op) {
		case 1:
		case 2: {
			imp_vec3 v = rand3(&f.r, -20, 20);
			imp_vec2 spin = rand2(&f.r, -5, 5);
			EXPECT(dim == 2 ? imp_body_set_velocity2(f.w, f.ids[k], V2(v.x, v.y), spin.x)
					: imp_body_set_velocity3(f.w, f.ids[k], v, V3(spin.x, spin.y, 0)),
			       want);
			break;
		}
		case 3:
			EXPECT(dim == 2 ? imp_body_set_target_pose2(f.w, f.ids[k], rand_pose2(&f.r, 4, 10))
					: imp_body_set_target_pose3(f.w, f.ids[k], rand_pose3(&f.r, 4)),
			       want);
			break;
		case 4:
			if (dim == 2)
				EXPECT(imp_body_set_pose2(f.w, f.ids[k], imp_pose2_make(ow_range(&f.r, -4, 4), 0, 1.0)), IMP_OK);
			else
				EXPECT(imp_body_set_pose3(f.w, f.ids[k], pose3_at(ow_range(&f.r, -4, 4), 0, 0)), IMP_OK);
			break;
		case 5: {
			imp_filter fl = imp_default_filter();
			fl.group = ow_int(&f.r, 3) - 1;
			fl.mask = ow_int(&f.r, 2) ? ~(uint64_t)0 : 2;
			EXPECT(imp_body_set_filter(f.w, f.ids[k], fl), IMP_OK);
			break;
		}
		case 6:
			EXPECT(imp_world_update(f.w), IMP_OK);
			break;
		default: {
			double dt = ow_int(&f.r, 8) == 0 ? 0.0 : ow_range(&f.r, 0, 0.2);
			EXPECT(imp_world_step(f.w, dt, &so), IMP_OK);
			imp_contact_events c = imp_world_get_contacts(f.w);
			for (int i = 0; i < c.count; ++i) {
				assert_true(c.items[i].t >= (i > 0 ? c.items[i - 1].t : 0.0) && c.items[i].t <= dt);
				assert_true(c.items[i].a.index < c.items[i].b.index);
			}
			steps++;
			contacts += c.count;
			// Bodies that flew far are brought back.
			for (int j = 0; j < FZ_SLOTS; ++j) {
				if (!f.alive[j] || vlen3(body_pos(f.w, dim, f.ids[j])) <= 40.0)
					continue;
				if (dim == 2)
					EXPECT(imp_body_set_pose2(f.w, f.ids[j], imp_pose2_make(0, 0, 0)), IMP_OK);
				else
					EXPECT(imp_body_set_pose3(f.w, f.ids[j], pose3_at(0, 0, 0)), IMP_OK);
			}
		}
		}
	}
	// The touching pairs against a world built afresh from the bodies.
	EXPECT(imp_world_update(f.w), IMP_OK);
	imp_world *fresh = NULL;
	assert_int_equal(imp_world_create(&def, &fresh), IMP_OK);
	imp_body_id fresh_ids[FZ_SLOTS];
	for (int k = 0; k < FZ_SLOTS; ++k) {
		if (!f.alive[k])
			continue;
		imp_body_def bd = imp_default_body_def();
		assert_int_equal(imp_body_get_type(f.w, f.ids[k], &bd.type), IMP_OK);
		assert_int_equal(imp_body_get_shape(f.w, f.ids[k], &bd.shape), IMP_OK);
		assert_int_equal(imp_body_get_filter(f.w, f.ids[k], &bd.filter), IMP_OK);
		if (dim == 2)
			assert_int_equal(imp_body_get_pose2(f.w, f.ids[k], &bd.pose2), IMP_OK);
		else
			assert_int_equal(imp_body_get_pose3(f.w, f.ids[k], &bd.pose3), IMP_OK);
		assert_int_equal(imp_world_add_body(fresh, &bd, &fresh_ids[k]), IMP_OK);
	}
	EXPECT(imp_world_update(fresh), IMP_OK);
	bool *t1 = calloc(FZ_SLOTS * FZ_SLOTS, sizeof *t1), *t2 = calloc(FZ_SLOTS * FZ_SLOTS, sizeof *t2);
	assert_true(t1 && t2);
	fuzz_pairs p1 = {&f, f.ids, t1}, p2 = {&f, fresh_ids, t2};
	EXPECT(imp_world_for_each_pair(f.w, fuzz_collect, &p1), IMP_OK);
	EXPECT(imp_world_for_each_pair(fresh, fuzz_collect, &p2), IMP_OK);
	int touching = 0;
	for (int i = 0; i < FZ_SLOTS * FZ_SLOTS; ++i) {
		touching += t1[i];
		if (t1[i] != t2[i])
			fail_msg("%dD seed %llu: slots %d and %d touch in %s world only", dim, (unsigned long long)seed,
				 i / FZ_SLOTS, i % FZ_SLOTS, t1[i] ? "the stepped" : "the fresh");
	}
	print_message("%dD sequence (seed %llu): %d calls, %ld steps, %ld contacts, %ld velocity changes in the "
		      "callback, %d touching at the end as afresh\n",
		      dim, (unsigned long long)seed, ops, steps, contacts, f.velocity_changes, touching / 2);
	free(t1);
	free(t2);
	imp_world_destroy(fresh);
	imp_world_destroy(f.w);
	for (int i = 0; i < 4; ++i)
		imp_shape_destroy(shapes[i]);
}

static void test_random_call_sequences(void **state)
{
	(void)state;
	fuzz_run(2, IMP_BROAD_SWEEP, 0xf0220d, 3000);
	fuzz_run(2, IMP_BROAD_HASH, 0xf0220e, 3000);
	fuzz_run(3, IMP_BROAD_SWEEP, 0xf0330d, 3000);
	fuzz_run(3, IMP_BROAD_HASH, 0xf0330e, 3000);
}

// ---------------------------------------------------------------------------
// 10. Determinism.

/// Reflects both bodies' velocities about the normal when they close: a
/// deterministic velocity change for the determinism runs.
static void reflect_react(recorder *r, const imp_contact_event *e)
{
	if (!(e->normal_speed < 0.0))
		return;
	int dim = imp_world_dim(r->w);
	imp_body_id ids[2] = {e->a, e->b};
	for (int k = 0; k < 2; ++k) {
		imp_body_type t;
		assert_int_equal(imp_body_get_type(r->w, ids[k], &t), IMP_OK);
		if (t != IMP_BODY_DYNAMIC)
			continue;
		imp_vec3 v;
		get_vel(r->w, dim, ids[k], &v);
		double vn = imp_vec3_dot(v, e->normal);
		// a moves against the normal, b along it, after the contact.
		if ((k == 0 && vn > 0.0) || (k == 1 && vn < 0.0))
			set_vel(r->w, dim, ids[k], imp_vec3_sub(v, imp_vec3_scale(2.0 * vn, e->normal)));
	}
}

typedef struct run {
	imp_contact_event *ev;
	int n;
	uint64_t hash[3];
} run;

static void run_scene(int dim, uint64_t seed, imp_broad_kind kind, react_fn *react, run *out)
{
	rscene sc;
	rscene_make(&sc, dim, 150, dim == 2 ? 11.0 : 5.0, seed);
	imp_world *w = make_world(dim, kind);
	imp_body_id ids[150];
	rscene_add(&sc, w, ids);
	recorder rec;
	rec_init(&rec, w);
	rec.react = react;
	imp_step_opts o = rec_opts(&rec, 1e-3);
	memset(out, 0, sizeof *out);
	for (int s = 0; s < 3; ++s) {
		if (s == 0)
			rscene_set_motions(&sc, w, ids, 0.4);
		imp_contact_events c = step_checked(w, 0.4, &o, &rec, 1e-3);
		out->ev = realloc(out->ev, (size_t)(out->n + c.count + 1) * sizeof *out->ev);
		assert_non_null(out->ev);
		memcpy(out->ev + out->n, c.items, (size_t)c.count * sizeof *c.items);
		out->n += c.count;
		out->hash[s] = imp_world_state_hash(w);
	}
	rec_free(&rec);
	imp_world_destroy(w);
	rscene_free(&sc);
}

/// Two events the same but for the world serial in the ids.
static bool same_event(const imp_contact_event *x, const imp_contact_event *y)
{
	imp_contact_event a = *x, b = *y;
	a.a.world = a.b.world = b.a.world = b.b.world = 0;
	return memcmp(&a, &b, sizeof a) == 0;
}

static int cmp_event(const void *p, const void *q)
{
	const imp_contact_event *x = p, *y = q;
	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	if (x->a.index != y->a.index)
		return x->a.index < y->a.index ? -1 : 1;
	if (x->b.index != y->b.index)
		return x->b.index < y->b.index ? -1 : 1;
	return 0;
}

static void test_determinism(void **state)
{
	(void)state;
	for (int dim = 2; dim <= 3; ++dim) {
		// Twice the same: bit for bit, with and without velocity changes.
		for (int react = 0; react < 2; ++react) {
			run x, y;
			run_scene(dim, 0xd37 + (uint64_t)dim, IMP_BROAD_HASH, react ? reflect_react : NULL, &x);
			run_scene(dim, 0xd37 + (uint64_t)dim, IMP_BROAD_HASH, react ? reflect_react : NULL, &y);
			assert_true(x.n > 0);
			assert_int_equal(x.n, y.n);
			for (int i = 0; i < x.n; ++i)
				if (!same_event(&x.ev[i], &y.ev[i]))
					fail_msg("%dD run twice: contact %d differs", dim, i);
			assert_memory_equal(x.hash, y.hash, sizeof x.hash);
			free(x.ev);
			free(y.ev);
		}
		// The three broad phases, ballistic: the same contacts (pairs and
		// times; equal times may come in another order), the same end.
		run r[3];
		for (int k = 0; k < 3; ++k) {
			run_scene(dim, 0xb20ad + (uint64_t)dim, (imp_broad_kind)k, NULL, &r[k]);
			qsort(r[k].ev, (size_t)r[k].n, sizeof *r[k].ev, cmp_event);
		}
		for (int k = 1; k < 3; ++k) {
			if (r[k].n != r[0].n)
				fail_msg("%dD: broad phase %d gives %d contacts, the hash %d", dim, k, r[k].n, r[0].n);
			for (int i = 0; i < r[0].n; ++i) {
				const imp_contact_event *p = &r[0].ev[i], *q = &r[k].ev[i];
				if (p->a.index != q->a.index || p->b.index != q->b.index || p->time != q->time)
					fail_msg("%dD: broad phase %d, contact %d: (%u %u at %.17g), the hash (%u %u at %.17g)",
						 dim, k, i, q->a.index, q->b.index, q->time, p->a.index, p->b.index,
						 p->time);
			}
			assert_memory_equal(r[k].hash, r[0].hash, sizeof r[0].hash);
		}
		print_message("%dD determinism: %d contacts over three steps\n", dim, r[0].n);
		for (int k = 0; k < 3; ++k)
			free(r[k].ev);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tunnelling),
		cmocka_unit_test(test_random_scenes_against_reference),
		cmocka_unit_test(test_bounds_follow_motion),
		cmocka_unit_test(test_random_call_sequences),
		cmocka_unit_test(test_ball_in_a_box),
		cmocka_unit_test(test_velocity_changes_in_callback),
		cmocka_unit_test(test_random_impulse_scenes),
		cmocka_unit_test(test_add_and_remove_between_steps),
		cmocka_unit_test(test_resting_contact),
		cmocka_unit_test(test_target_poses),
		cmocka_unit_test(test_pair_cap),
		cmocka_unit_test(test_stats_and_clock),
		cmocka_unit_test(test_bad_input),
		cmocka_unit_test(test_busy_inside_callback),
		cmocka_unit_test(test_out_of_memory),
		cmocka_unit_test(test_out_of_memory_in_callback),
		cmocka_unit_test(test_out_of_memory_clears_contacts),
		cmocka_unit_test(test_determinism),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
