// SPDX-License-Identifier: MIT
// Pairwise time of impact by conservative advancement (Mirtich 1996;
// docs/toi.md). At time t the closest points give the distance d and
// the unit direction n from a to b. The separation of the two shapes along
// the fixed axis n is a lower bound on their distance at every time, equal
// to d at t; it falls at most at the rate
//     rate = (v_a - v_b) . n + |w_a| r_a + |w_b| r_b
// (r: the largest distance of a point of the shape's core from its origin,
// about which it turns: the rounding adds a ball, whose point farthest
// along n is the core's plus radius x n whatever the turn). So no contact
// happens before t + (d - target) / rate, where the separation could first
// reach `target` = tolerance / 2, and the query steps there. A non-positive
// rate means the separation never falls: no contact at all. The steps
// shrink as d approaches the target, and the query stops once d is within
// the tolerance. The loop starts when the balls of the shapes' reach about
// their origins first come within the tolerance (imp_ball_sweep).
#include <limits.h>
#include <math.h>
#include <string.h>

#include "core/trig.h"
#include "impact/collision.h"
#include "narrow/composite_query.h"
#include "narrow/gjk2d_internal.h"
#include "narrow/toi_internal.h"
#include "shape/composite.h"
#include "shape/shape3_internal.h"
#include "shape/shape_internal.h"

imp_toi_options imp_default_toi_options(void)
{
	imp_toi_options o = {0.0, 64};
	return o;
}

// The turn over t: cosine and sine together from core/trig.h, which the
// search below evaluates at every step. No turn (w t == 0) leaves the
// rotation as it is, bit for bit.
IMP_ALWAYS_INLINE imp_pose2 motion2_at(const imp_motion2 *m_in, double t)
{
	const imp_motion2 m = *m_in;
	imp_pose2 p;
	p.p = imp_vec2_make(m.pose.p.x + m.v.x * t, m.pose.p.y + m.v.y * t);
	double angle = m.w * t;
	if (angle != 0.0) {
		imp_rot2 turn;
		imp_cos_sin(angle, &turn.c, &turn.s);
		p.q = imp_rot2_mul(turn, m.pose.q);
	} else {
		p.q = m.pose.q;
	}
	return p;
}

imp_pose2 imp_motion2_at(imp_motion2 m, double t)
{
	return motion2_at(&m, t);
}

imp_pose3 imp_motion3_at(imp_motion3 m, double t)
{
	imp_pose3 p;
	p.p = imp_vec3_make(m.pose.p.x + m.v.x * t, m.pose.p.y + m.v.y * t, m.pose.p.z + m.v.z * t);
	double speed = imp_vec3_length(m.w), half = 0.5 * speed * t;
	if (half != 0.0) {
		// About the unit axis w / |w|, by speed t.
		double c, s;
		imp_cos_sin(half, &c, &s);
		s /= speed;
		imp_quat turn = {m.w.x * s, m.w.y * s, m.w.z * s, c};
		p.q = imp_quat_mul(turn, m.pose.q);
	} else {
		p.q = m.pose.q;
	}
	return p;
}

static imp_status check_options(const imp_toi_options *o)
{
	if (o == NULL)
		return IMP_OK;
	if (!isfinite(o->tolerance) || o->tolerance < 0.0 || o->tolerance > IMP_MAX_COORDINATE ||
	    o->max_iterations < 1)
		return IMP_ERR_BAD_OPTIONS;
	return IMP_OK;
}

static bool finite_within(double x)
{
	return fabs(x) <= IMP_MAX_COORDINATE; // false for NaN and infinities
}

/// Whether the motion's position, and the angle it turns through, stay
/// within range over [0, t_max] (an angle past it would make the poses'
/// rotations NaN: the search's narrow-phase calls skip the checks).
static bool reach_ok2(const imp_motion2 *m, double t_max)
{
	return finite_within(m->v.x) && finite_within(m->v.y) && finite_within(m->w) && finite_within(m->w * t_max) &&
	       finite_within(m->pose.p.x + m->v.x * t_max) && finite_within(m->pose.p.y + m->v.y * t_max);
}

/// Every component of the velocities finite.
static bool motion3_finite(const imp_motion3 *m)
{
	return isfinite(m->v.x) && isfinite(m->v.y) && isfinite(m->v.z) && isfinite(m->w.x) && isfinite(m->w.y) &&
	       isfinite(m->w.z);
}

static bool reach_ok3(const imp_motion3 *m, double t_max)
{
	return finite_within(m->v.x) && finite_within(m->v.y) && finite_within(m->v.z) && finite_within(m->w.x) &&
	       finite_within(m->w.y) && finite_within(m->w.z) && finite_within(m->w.x * t_max) &&
	       finite_within(m->w.y * t_max) && finite_within(m->w.z * t_max) &&
	       finite_within(m->pose.p.x + m->v.x * t_max) && finite_within(m->pose.p.y + m->v.y * t_max) &&
	       finite_within(m->pose.p.z + m->v.z * t_max);
}

/// imp_ball_sweep on numbers whose squares and products are normal
/// doubles (ball_sweep_scaled makes them so).
IMP_ALWAYS_INLINE double ball_sweep_core(imp_vec3 c, imp_vec3 u, double r, double t_max, double *closest)
{
	double a = imp_vec3_dot(u, u), b = imp_vec3_dot(c, u), cc = imp_vec3_dot(c, c);
	// The time in [0, t_max] when the centres are closest, and their gap.
	double tc = a > 0.0 && b < 0.0 ? imp_min(-b / a, t_max) : 0.0;
	*closest = tc;
	// Rounding of the squares and the root below is far under this margin.
	double r2 = r * (1.0 + 1e-9);
	r2 *= r2;
	if (cc <= r2)
		return 0.0;
	imp_vec3 m = imp_vec3_add(c, imp_vec3_scale(tc, u));
	if (!(imp_vec3_dot(m, m) <= r2))
		return INFINITY; // never within r over [0, t_max] (NaN: never either)
	// |c + u t|^2 = r2 has a root before tc: the first, in the form that
	// does not cancel (b < 0 here).
	double disc = b * b - a * (cc - r2);
	double t = (cc - r2) / (-b + sqrt(imp_max(disc, 0.0)));
	return imp_max(0.0, t * (1.0 - 1e-9));
}

static inline double max_abs3(imp_vec3 v)
{
	return imp_max(fabs(v.x), imp_max(fabs(v.y), fabs(v.z)));
}

/// imp_ball_sweep past the range where ball_sweep_core's squares are
/// finite and normal: c and r divided by a power of two 2^kc near their
/// size, u by 2^ku near its, in the time tau = t 2^(ku - kc), where
/// |c + u t| = 2^kc |C + U tau|. Powers of two: the scaling is exact, and
/// the answer is the one the core would give with room for its squares.
/// Out of line: rare.
static IMP_NOINLINE double ball_sweep_scaled(imp_vec3 c, imp_vec3 u, double r, double t_max, double *closest)
{
	double mc = imp_max(max_abs3(c), r), mu = max_abs3(u);
	int kc = mc > 0.0 ? ilogb(mc) : 0, ku = mu > 0.0 ? ilogb(mu) : 0;
	imp_vec3 C = imp_vec3_make(ldexp(c.x, -kc), ldexp(c.y, -kc), ldexp(c.z, -kc));
	imp_vec3 U = imp_vec3_make(ldexp(u.x, -ku), ldexp(u.y, -ku), ldexp(u.z, -ku));
	double tau_c, tau = ball_sweep_core(C, U, ldexp(r, -kc), ldexp(t_max, ku - kc), &tau_c);
	*closest = imp_min(ldexp(tau_c, kc - ku), t_max);
	return ldexp(tau, kc - ku);
}

double imp_ball_sweep(imp_vec3 c, imp_vec3 u, double r, double t_max, double *closest)
{
	// Within 2^-240 .. 2^240 the squares and products of c, r and u are
	// normal doubles. Past it b * b and a * (cc - r2) overflowed: balls
	// 4e28 apart at a speed of 1e150 took NaN for the discriminant, so the
	// root lost its square root and came out twice the first contact (a
	// time of impact that stepped over 6.7e23 of overlap).
	double mc = imp_max(max_abs3(c), r), mu = max_abs3(u);
	if (mc >= 0x1p-240 && mc <= 0x1p240 && mu <= 0x1p240 && (mu >= 0x1p-240 || mu == 0.0))
		return ball_sweep_core(c, u, r, t_max, closest);
	return ball_sweep_scaled(c, u, r, t_max, closest);
}

/// What the loop needs of one distance query at time t: the distance and
/// the rate at which the separation along the closest direction can fall
/// at most; the caller keeps the rest (witness points, normal).
typedef struct toi_probe {
	bool ok;
	double distance;
	double rate;
	int work; ///< narrow-phase calls: 1, or the pairs of children a non-convex pair's queries answered
} toi_probe;

typedef toi_probe toi_query(void *ctx, double t);

/// Conservative advancement over [0, t_max] (see the top of the file).
/// Writes the time the last query was made at (t_max when separated), the
/// number of queries and the narrow-phase calls they took (toi_probe.work);
/// stops at the iteration limit after max_iterations queries or once the
/// calls reach max_work.
static imp_toi_state advance_loop(toi_query *query, void *ctx, double tol, double t_start, double t_max,
				  int max_iterations, int max_work, double *t_out, int *iterations, int *work)
{
	double target = 0.5 * tol, t = t_start;
	*work = 0;
	for (int it = 1;; it++) {
		toi_probe p = query(ctx, t);
		*iterations = it;
		*t_out = t;
		*work = p.work <= INT_MAX - *work ? *work + p.work : INT_MAX;
		if (!p.ok)
			return IMP_TOI_FAILED;
		if (p.distance <= tol)
			return t == 0.0 ? IMP_TOI_OVERLAPPED : IMP_TOI_HIT;
		// A rate that is not positive: the separation never falls.
		double dt = p.rate > 0.0 ? (p.distance - target) / p.rate : INFINITY;
		if (!(t + dt <= t_max)) {
			*t_out = t_max;
			return IMP_TOI_SEPARATED;
		}
		if (it >= max_iterations || *work >= max_work)
			return IMP_TOI_ITERATION_LIMIT;
		t += dt;
	}
}

/// The automatic tolerance: 1e-6 of the shapes' reaches, but not below the
/// rounding of the scene where it starts (2^-44 of its largest coordinate,
/// and 64 subnormal units): two points have reach 0, and a tolerance of 0
/// asks their distance to reach 0 exactly; a point moving 1.4e-310 onto
/// another, turning, was 1.6e-322 short at the end by the rotation's
/// rounding, and the cast called the motion free where motion_free found
/// it ending in contact (fuzz finding 51). The path is left out: at huge
/// speeds it would make the tolerance larger than the early gaps.
static double auto_tolerance(double ra, double rb, imp_vec3 pa, imp_vec3 pb)
{
	double m = imp_max(imp_max(fabs(pa.x), imp_max(fabs(pa.y), fabs(pa.z))),
			   imp_max(fabs(pb.x), imp_max(fabs(pb.y), fabs(pb.z))));
	return imp_max(1e-6 * (ra + rb), imp_max(0x1p-44 * m, 0x1p-1068));
}

/// The answer when the shapes' balls (their reach about their origins)
/// never come within the tolerance: no query needed. The gap of the balls
/// where their centres are closest, a lower bound on the shapes' distance
/// over the whole interval, with the balls' closest points there.
typedef struct ball_answer {
	double distance;
	imp_vec3 point_a, point_b, normal;
} ball_answer;

/// |d| and d / |d| for d outside the range where d . d is a normal double:
/// divided by its largest coordinate first. Out of line: rare.
static IMP_NOINLINE double scaled_length3(imp_vec3 d, imp_vec3 *unit)
{
	double m = imp_max(fabs(d.x), imp_max(fabs(d.y), fabs(d.z)));
	if (!(m > 0.0)) {
		*unit = imp_vec3_make(1.0, 0.0, 0.0);
		return 0.0;
	}
	imp_vec3 u = imp_vec3_make(d.x / m, d.y / m, d.z / m);
	double lu = imp_vec3_length(u);
	*unit = imp_vec3_make(u.x / lu, u.y / lu, u.z / lu);
	return m * lu;
}

IMP_ALWAYS_INLINE ball_answer ball_gap(imp_vec3 pa, imp_vec3 va, double ra, imp_vec3 pb, imp_vec3 vb, double rb,
				       double t)
{
	ball_answer r;
	imp_vec3 ca = imp_vec3_add(pa, imp_vec3_scale(t, va)), cb = imp_vec3_add(pb, imp_vec3_scale(t, vb));
	imp_vec3 d = imp_vec3_sub(cb, ca);
	// The length and direction of d from its square only where that is a
	// normal double: squares of coordinates below 1e-154 are subnormal or
	// 0 (balls 1e-160 apart answered a normal of length 1.00001 and a
	// distance 6e-6 short; at 1e-320 the inverse length is infinite).
	double dd = imp_vec3_dot(d, d), len;
	if (dd >= 0x1p-960 && dd <= 0x1p960) {
		len = sqrt(dd);
		r.normal = imp_vec3_scale(1.0 / len, d);
	} else {
		len = scaled_length3(d, &r.normal);
	}
	r.distance = len - ra - rb;
	r.point_a = imp_vec3_add(ca, imp_vec3_scale(ra, r.normal));
	r.point_b = imp_vec3_sub(cb, imp_vec3_scale(rb, r.normal));
	return r;
}

/// The rate that makes the loop's step (d - target) / rate the time the
/// non-convex advance found (imp_composite_advance2/3: every pair of
/// children at the rate along its own normal; the closest pair's normal
/// alone does not bound the others), 0 when no pair approaches.
static double composite_rate_of(double d, double target, double dt)
{
	if (!(dt < INFINITY))
		return 0.0;
	return dt > 0.0 ? (d - target) / dt : INFINITY;
}

/// |v_a - v_b| for a pair with a non-convex side (>= 0), -1 for a convex
/// pair: which of the two rates the loop takes.
static double composite_rate(const imp_shape *a, const imp_shape *b, imp_vec3 dv)
{
	if (!imp_kind_is_composite(a->kind) && !imp_kind_is_composite(b->kind))
		return -1.0;
	double m = imp_max(fabs(dv.x), imp_max(fabs(dv.y), fabs(dv.z)));
	if (!(m > 0.0))
		return 0.0;
	// Velocities of opposite signs near the largest double differ by
	// more than it; a subnormal m has no finite reciprocal (dv scaled by
	// 1 / m was NaN, which took a chain for a convex shape and read its
	// record as a polygon's): divided, never NaN.
	if (!(m < INFINITY))
		return INFINITY;
	imp_vec3 u = imp_vec3_make(dv.x / m, dv.y / m, dv.z / m);
	return m * imp_vec3_length(u);
}

typedef struct toi2_ctx {
	const imp_shape *a, *b;
	imp_motion2 ma, mb;
	double spin;
	double speed;         ///< non-convex pairs: |v_a - v_b| (>= 0; -1 for a convex pair)
	double target;        ///< the distance the advance is to (half the tolerance)
	imp_simplex_cache cache;
	imp_closest2_result c;
} toi2_ctx;

static toi_probe query2(void *ctx, double t)
{
	toi2_ctx *q = ctx;
	toi_probe p = {false, 0.0, 0.0, 1};
	// The shapes were checked and the motions stay within range over the
	// interval: the poses need no checks.
	imp_pose2 pa = motion2_at(&q->ma, t), pb = motion2_at(&q->mb, t);
	int pairs = 0;
	imp_status st = q->speed >= 0.0 ? imp_composite_closest2(q->a, pa, q->b, pb, &q->cache, NULL, &q->c, &pairs)
					: imp_closest2_checked(q->a, pa, q->b, pb, &q->cache, &q->c);
	p.work = imp_max(pairs, 1);
	if (st != IMP_OK || q->c.state == IMP_STATE_DEGENERATE)
		return p;
	p.ok = true;
	p.distance = q->c.distance;
	if (q->speed < 0.0) {
		p.rate = (q->ma.v.x - q->mb.v.x) * q->c.normal.x + (q->ma.v.y - q->mb.v.y) * q->c.normal.y + q->spin;
		return p;
	}
	if (p.distance <= 2.0 * q->target)
		return p; // within the tolerance: the loop stops here
	double dt = imp_composite_advance2(q->a, pa, q->b, pb, imp_vec2_sub(q->ma.v, q->mb.v), q->spin, q->target, 0.0, &pairs);
	p.work += pairs;
	p.ok = !isnan(dt);
	p.rate = composite_rate_of(p.distance, q->target, dt);
	return p;
}

imp_status imp_time_of_impact2_ex(const imp_shape *a, imp_motion2 ma, const imp_shape *b, imp_motion2 mb,
				  double t_max, const imp_toi_options *options, imp_toi2_result *out)
{
	return imp_time_of_impact2_from(a, ma, b, mb, 0.0, t_max, options, INT_MAX, NULL, out);
}

imp_status imp_time_of_impact2_from(const imp_shape *a, imp_motion2 ma, const imp_shape *b, imp_motion2 mb,
				    double t_start, double t_max, const imp_toi_options *options, int max_work, int *work,
				    imp_toi2_result *out)
{
	if (work != NULL)
		*work = 0;
	if (out == NULL)
		return IMP_ERR_NULL_ARGUMENT;
	imp_status st = imp_shape_check(a, 2);
	if (st == IMP_OK)
		st = imp_shape_check(b, 2);
	if (st == IMP_OK)
		st = imp_pose2_status(ma.pose);
	if (st == IMP_OK)
		st = imp_pose2_status(mb.pose);
	if (st == IMP_OK)
		st = check_options(options);
	if (st != IMP_OK)
		return st;
	if (isnan(t_max) || isinf(t_max) || !(isfinite(ma.v.x) && isfinite(ma.v.y) && isfinite(ma.w) && isfinite(mb.v.x) && isfinite(mb.v.y) && isfinite(mb.w)))
		return IMP_ERR_NOT_FINITE;
	if (!(t_max >= 0.0) || !(t_start >= 0.0 && t_start <= t_max) || !reach_ok2(&ma, t_max) || !reach_ok2(&mb, t_max))
		return IMP_ERR_OUT_OF_RANGE;
	imp_toi_options o = options != NULL ? *options : imp_default_toi_options();
	double ra = imp_shape_reach(a), rb = imp_shape_reach(b);
	toi2_ctx q;
	q.a = a, q.b = b, q.ma = ma, q.mb = mb;
	q.spin = fabs(ma.w) * imp_shape_core_reach(a) + fabs(mb.w) * imp_shape_core_reach(b);
	q.speed = composite_rate(a, b, imp_vec3_make(ma.v.x - mb.v.x, ma.v.y - mb.v.y, 0.0));
	memset(&q.cache, 0, sizeof q.cache);
	q.c = (imp_closest2_result){.distance = 0.0};
	imp_toi2_result r = {.iterations = 0};
	imp_vec3 pa = imp_vec3_make(ma.pose.p.x, ma.pose.p.y, 0.0), pb = imp_vec3_make(mb.pose.p.x, mb.pose.p.y, 0.0);
	imp_vec3 va = imp_vec3_make(ma.v.x, ma.v.y, 0.0), vb = imp_vec3_make(mb.v.x, mb.v.y, 0.0);
	double tol = o.tolerance > 0.0 ? o.tolerance : auto_tolerance(ra, rb, pa, pb), tc;
	q.target = 0.5 * tol;
	double t0 = imp_ball_sweep(imp_vec3_sub(pb, pa), imp_vec3_sub(vb, va), ra + rb + 0.5 * tol, t_max, &tc);
	if (!(t0 <= t_max)) {
		ball_answer g = ball_gap(pa, va, ra, pb, vb, rb, tc);
		r.state = IMP_TOI_SEPARATED;
		r.t = t_max;
		r.distance = g.distance;
		r.point_a = imp_vec2_make(g.point_a.x, g.point_a.y);
		r.point_b = imp_vec2_make(g.point_b.x, g.point_b.y);
		r.normal = imp_vec2_make(g.normal.x, g.normal.y);
		*out = r;
		return IMP_OK;
	}
	int spent;
	r.state = advance_loop(query2, &q, tol, imp_max(t0, t_start), t_max, o.max_iterations, max_work, &r.t,
			       &r.iterations, &spent);
	if (work != NULL)
		*work = spent;
	r.distance = q.c.distance;
	r.point_a = q.c.point_a;
	r.point_b = q.c.point_b;
	r.normal = q.c.normal;
	*out = r;
	return IMP_OK;
}

imp_status imp_time_of_impact2(const imp_shape *a, imp_motion2 ma, const imp_shape *b, imp_motion2 mb,
			       double t_max, imp_toi2_result *out)
{
	return imp_time_of_impact2_ex(a, ma, b, mb, t_max, NULL, out);
}

typedef struct toi3_ctx {
	const imp_shape *a, *b;
	imp_motion3 ma, mb;
	double spin;
	double speed;         ///< as toi2_ctx's
	double target;
	imp_simplex_cache cache;
	imp_closest3_result c;
} toi3_ctx;

static toi_probe query3(void *ctx, double t)
{
	toi3_ctx *q = ctx;
	toi_probe p = {false, 0.0, 0.0, 1};
	imp_pose3 pa = imp_motion3_at(q->ma, t), pb = imp_motion3_at(q->mb, t);
	int pairs = 0;
	imp_status st = q->speed >= 0.0 ? imp_composite_closest3(q->a, pa, q->b, pb, &q->cache, NULL, &q->c, &pairs)
					: imp_closest3(q->a, pa, q->b, pb, &q->cache, &q->c);
	p.work = imp_max(pairs, 1);
	if (st != IMP_OK || q->c.state == IMP_STATE_DEGENERATE)
		return p;
	p.ok = true;
	p.distance = q->c.distance;
	if (q->speed < 0.0) {
		p.rate = imp_vec3_dot(imp_vec3_sub(q->ma.v, q->mb.v), q->c.normal) + q->spin;
		return p;
	}
	if (p.distance <= 2.0 * q->target)
		return p; // within the tolerance: the loop stops here
	double dt = imp_composite_advance3(q->a, pa, q->b, pb, imp_vec3_sub(q->ma.v, q->mb.v), q->spin, q->target, 0.0, &pairs);
	p.work += pairs;
	p.ok = !isnan(dt);
	p.rate = composite_rate_of(p.distance, q->target, dt);
	return p;
}

imp_status imp_time_of_impact3_ex(const imp_shape *a, imp_motion3 ma, const imp_shape *b, imp_motion3 mb,
				  double t_max, const imp_toi_options *options, imp_toi3_result *out)
{
	return imp_time_of_impact3_from(a, ma, b, mb, 0.0, t_max, options, INT_MAX, NULL, out);
}

imp_status imp_time_of_impact3_from(const imp_shape *a, imp_motion3 ma, const imp_shape *b, imp_motion3 mb,
				    double t_start, double t_max, const imp_toi_options *options, int max_work, int *work,
				    imp_toi3_result *out)
{
	if (work != NULL)
		*work = 0;
	if (out == NULL)
		return IMP_ERR_NULL_ARGUMENT;
	imp_status st = imp_shape_check(a, 3);
	if (st == IMP_OK)
		st = imp_shape_check(b, 3);
	if (st == IMP_OK)
		st = imp_pose3_status(ma.pose);
	if (st == IMP_OK)
		st = imp_pose3_status(mb.pose);
	if (st == IMP_OK)
		st = check_options(options);
	if (st != IMP_OK)
		return st;
	if (isnan(t_max) || isinf(t_max) || !(motion3_finite(&ma) && motion3_finite(&mb)))
		return IMP_ERR_NOT_FINITE;
	if (!(t_max >= 0.0) || !(t_start >= 0.0 && t_start <= t_max) || !reach_ok3(&ma, t_max) || !reach_ok3(&mb, t_max))
		return IMP_ERR_OUT_OF_RANGE;
	imp_toi_options o = options != NULL ? *options : imp_default_toi_options();
	double ra = imp_shape_reach(a), rb = imp_shape_reach(b);
	toi3_ctx q;
	memset(&q, 0, sizeof q);
	q.a = a, q.b = b, q.ma = ma, q.mb = mb;
	q.spin = imp_vec3_length(ma.w) * imp_shape_core_reach(a) + imp_vec3_length(mb.w) * imp_shape_core_reach(b);
	q.speed = composite_rate(a, b, imp_vec3_sub(ma.v, mb.v));
	imp_toi3_result r;
	memset(&r, 0, sizeof r);
	double tol = o.tolerance > 0.0 ? o.tolerance : auto_tolerance(ra, rb, ma.pose.p, mb.pose.p), tc;
	q.target = 0.5 * tol;
	double t0 = imp_ball_sweep(imp_vec3_sub(mb.pose.p, ma.pose.p), imp_vec3_sub(mb.v, ma.v), ra + rb + 0.5 * tol,
				   t_max, &tc);
	if (!(t0 <= t_max)) {
		ball_answer g = ball_gap(ma.pose.p, ma.v, ra, mb.pose.p, mb.v, rb, tc);
		r.state = IMP_TOI_SEPARATED;
		r.t = t_max;
		r.distance = g.distance;
		r.point_a = g.point_a;
		r.point_b = g.point_b;
		r.normal = g.normal;
		*out = r;
		return IMP_OK;
	}
	int spent;
	r.state = advance_loop(query3, &q, tol, imp_max(t0, t_start), t_max, o.max_iterations, max_work, &r.t,
			       &r.iterations, &spent);
	if (work != NULL)
		*work = spent;
	r.distance = q.c.distance;
	r.point_a = q.c.point_a;
	r.point_b = q.c.point_b;
	r.normal = q.c.normal;
	*out = r;
	return IMP_OK;
}

imp_status imp_time_of_impact3(const imp_shape *a, imp_motion3 ma, const imp_shape *b, imp_motion3 mb,
			       double t_max, imp_toi3_result *out)
{
	return imp_time_of_impact3_ex(a, ma, b, mb, t_max, NULL, out);
}
