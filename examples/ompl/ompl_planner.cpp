// SPDX-License-Identifier: MIT
// impact as the collision checker of OMPL, the Open Motion Planning Library.
//
// OMPL plans; it asks the user two questions, through two classes:
//   - is this state valid?          ompl::base::StateValidityChecker
//   - is the motion between two     ompl::base::MotionValidator
//     states valid (and if not, the
//     last valid state on it)?
// Here a rigid body (the robot: one impact shape, not in the world) moves
// among the static bodies of an impact world, in SE(2) (x, y, yaw) and in
// SE(3) (x, y, z, a unit quaternion), and the answers are impact's planner
// queries:
//   isValid(s)            imp_world_overlap_any at the pose of s (touching
//                         counts as a collision), and OMPL's bounds
//   clearance(s)          imp_world_nearest: the signed distance to the
//                         nearest obstacle (negative: the penetration depth)
//   checkMotion(s1, s2)   imp_world_cast_shape from the pose of s1 to that
//                         of s2: valid exactly when the cast is
//                         IMP_CAST_FREE. A cast passes through no obstacle,
//                         however long the motion: no resolution to tune,
//                         unlike OMPL's DiscreteMotionValidator, which checks
//                         states a fixed fraction of the space's extent apart
//                         and can step over a thin obstacle.
//   checkMotion(s1, s2, lastValid)
//                         the same cast; when it is blocked at fraction t,
//                         lastValid is the state a little before t.
// The cast moves the shape along the same curve as OMPL's interpolate(s1,
// s2, t) (see "The motion" below), so "the cast is free" means "every state
// OMPL's path goes through is valid".
//
// The program plans with RRTConnect (through SimpleSetup) among random
// obstacles and a wall with an opening, once in SE(2) and once in SE(3),
// simplifies the path, and checks the answer itself: every segment of the
// path cast again (free), 200 states a segment along the path checked with
// imp_world_overlap_any (free) and their clearance measured, and random
// blocked motions' cast poses compared with OMPL's interpolation. It exits
// with 1 when a check fails or a query returns an error, and in smoke mode
// also when a problem is not solved exactly. --smoke: wide openings, few
// obstacles, milliseconds; without it the openings are narrower than the
// robot is long (it must turn to pass), the obstacles more, and each
// problem is planned ten more times with new samples, every path checked.
//
// With --out it writes an SVG picture of the SE(2) problem: the obstacles,
// the robot along the simplified path, the start (green) and the goal
// (blue), and the witness segment at the path's smallest clearance.
//
// usage: ompl_planner [--smoke] [--out FILE.svg] [--seed N]
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <utility>
#include <vector>

#include <ompl/base/MotionValidator.h>
#include <ompl/base/ScopedState.h>
#include <ompl/base/SpaceInformation.h>
#include <ompl/base/StateValidityChecker.h>
#include <ompl/base/spaces/SE2StateSpace.h>
#include <ompl/base/spaces/SE3StateSpace.h>
#include <ompl/geometric/PathGeometric.h>
#include <ompl/geometric/SimpleSetup.h>
#include <ompl/geometric/planners/rrt/RRTConnect.h>
#include <ompl/util/Console.h>
#include <ompl/util/RandomNumbers.h>

#include <impact/impact.h>

namespace ob = ompl::base;
namespace og = ompl::geometric;

static const double PI = 3.14159265358979323846;

// ---------------------------------------------------------------------------
// Errors. OMPL's callbacks return a bool or a double, not impact's status:
// a query that fails is printed (the first few), counted, and its state or
// motion called invalid (a planner must never be told "free" when nothing
// was proven); main fails when any occurred.

static std::atomic<int> query_errors{0};

static bool query_ok(imp_status st, const char *what)
{
	if (st == IMP_OK)
		return true;
	if (query_errors.fetch_add(1) < 5)
		std::fprintf(stderr, "ompl_planner: %s: %s\n", what, imp_status_string(st));
	return false;
}

// ---------------------------------------------------------------------------
// States to poses.
//
// SE(2): OMPL's state is x, y and yaw (radians, in (-pi, pi]); impact's
// imp_pose2 is the translation p = (x, y) and the rotation q = (cos yaw,
// sin yaw): x_world = q * x_robot + p, the robot's frame at (x, y) turned
// by yaw, which is what OMPL's SE(2) state means.
//
// SE(3): OMPL's state is x, y, z and an SO(3) state, a unit quaternion whose
// fields are x, y, z (the vector part) and w (the scalar part); impact's
// imp_quat has the same four fields in the same order (vecmath.h), so they
// are copied one to one. OMPL keeps the quaternion unit to 1e-9 (its
// satisfiesBounds, checked first by isValid), well within the 1e-6 impact
// checks (IMP_ERR_BAD_ROTATION), so it is not normalized again here.

static imp_pose2 to_pose(const ob::SE2StateSpace::StateType &s)
{
	return imp_pose2_make(s.getX(), s.getY(), s.getYaw());
}

static imp_pose3 to_pose(const ob::SE3StateSpace::StateType &s)
{
	const ob::SO3StateSpace::StateType &r = s.rotation();
	return imp_pose3_make(imp_vec3_make(s.getX(), s.getY(), s.getZ()), imp_quat_make(r.x, r.y, r.z, r.w));
}

// ---------------------------------------------------------------------------
// The motion.
//
// OMPL's SE2StateSpace and SE3StateSpace are compound spaces: interpolate(s1,
// s2, t) interpolates each part with the same t.
//   - The position (RealVectorStateSpace) linearly: the origin moves on the
//     straight segment at constant speed.
//   - SO(2): SO2StateSpace::interpolate goes through the smaller angle: when
//     |yaw2 - yaw1| > pi it goes the other way round, and wraps the result
//     into (-pi, pi]; the angle changes linearly in t.
//   - SO(3): SO3StateSpace::interpolate is slerp along the shorter arc (it
//     negates one quaternion's weight when their dot product is negative):
//     a constant angular velocity.
// imp_world_cast_shape2/3 (world.h) moves the shape "from pose_from to
// pose_to over t in [0, 1], its origin on the straight segment while it
// turns through the smaller angle (3D: the shorter arc) at a constant
// rate": the same curve, at the same parameter, so a cast's fraction t is
// OMPL's t (the contact's pose, hit.pose, is OMPL's interpolate at hit.t;
// check_interpolation below measures it). The one difference is a turn of
// exactly pi (yaw2 = yaw1 +- pi, or opposite quaternions), where both
// directions are shortest: a tie that random states never meet.
//
// Both classes keep pointers to the world and the robot's shape, which
// must outlive them. impact's queries may run on many threads at once while
// no thread changes the world, as OMPL requires of a validity checker
// (its parallel planners call it from several threads).

/// isValid: the robot at the state overlaps no body of the world (and the
/// state is within OMPL's bounds). clearance: the signed distance to the
/// nearest body.
template <class Space>
class ImpactValidityChecker : public ob::StateValidityChecker
{
public:
	using StateType = typename Space::StateType;

	ImpactValidityChecker(const ob::SpaceInformationPtr &si, const imp_world *world, const imp_shape *robot)
		: ob::StateValidityChecker(si), world_(world), robot_(robot)
	{
		specs_.clearanceComputationType = ob::StateValidityCheckerSpecs::EXACT;
	}

	// The overloads this class does not replace stay visible.
	using ob::StateValidityChecker::clearance;
	using ob::StateValidityChecker::isValid;

	bool isValid(const ob::State *state) const override
	{
		calls_.fetch_add(1, std::memory_order_relaxed);
		if (!si_->satisfiesBounds(state))
			return false;
		bool hit = true;
		if (!query_ok(imp_world_overlap_any(world_, robot_, to_pose(*state->as<StateType>()), nullptr, &hit),
			      "imp_world_overlap_any"))
			return false;
		return !hit;
	}

	double clearance(const ob::State *state) const override
	{
		imp_query_result near;
		if (!query_ok(imp_world_nearest(world_, robot_, to_pose(*state->as<StateType>()), INFINITY, nullptr, &near),
			      "imp_world_nearest"))
			return 0.0;
		return near.distance; // INFINITY in an empty world
	}

	/// The states checked so far.
	unsigned long calls() const
	{
		return calls_.load();
	}

private:
	const imp_world *world_;
	const imp_shape *robot_;
	mutable std::atomic<unsigned long> calls_{0};
};

/// The motion from s1 to s2 (s1 valid, as OMPL promises) is valid when the
/// robot's cast along it meets no body, and s2 is within the bounds (the
/// position bounds are a box and the motion's position a segment, so the
/// states between two states within them are within them too).
///
/// imp_world_motion_free gives the same answer as the cast's
/// state == IMP_CAST_FREE, sooner when the motion is blocked (it stops at
/// the first contact it proves, not the earliest): a drop-in for the first
/// checkMotion when the contact's t is not needed.
template <class Space>
class ImpactMotionValidator : public ob::MotionValidator
{
public:
	using StateType = typename Space::StateType;

	ImpactMotionValidator(const ob::SpaceInformationPtr &si, const imp_world *world, const imp_shape *robot)
		: ob::MotionValidator(si), world_(world), robot_(robot)
	{
	}

	bool checkMotion(const ob::State *s1, const ob::State *s2) const override
	{
		imp_cast_hit hit;
		bool free = si_->satisfiesBounds(s2) && cast(s1, s2, &hit) && hit.state == IMP_CAST_FREE;
		free ? ++valid_ : ++invalid_;
		return free;
	}

	bool checkMotion(const ob::State *s1, const ob::State *s2, std::pair<ob::State *, double> &lastValid) const override
	{
		imp_cast_hit hit;
		double t = 0.0;
		if (!si_->satisfiesBounds(s2) || !cast(s1, s2, &hit)) {
			// Nothing proven past s1 (an error, or leaving the bounds:
			// where is not worked out here): s1 is the last valid state.
			t = 0.0;
		} else if (hit.state == IMP_CAST_FREE) {
			++valid_;
			return true; // lastValid untouched, as OMPL asks
		} else {
			// IMP_CAST_HIT: the robot comes within the cast's tolerance
			// of a body at hit.t and of none before; IMP_CAST_GAVE_UP:
			// nothing met before hit.t, nothing proven after. Either way
			// every state before hit.t is free. The last valid state is
			// taken a little before it (1% of the motion), not at the
			// contact: a planner extends from it, and a cast that starts
			// within the tolerance of a body is blocked at once.
			t = std::max(0.0, hit.t - 0.01);
		}
		if (lastValid.first != nullptr) {
			// OMPL asks for a valid state: checked, and moved back
			// towards s1 should rounding ever make it touch.
			while (t > 0.0) {
				si_->getStateSpace()->interpolate(s1, s2, t, lastValid.first);
				if (si_->isValid(lastValid.first))
					break;
				t = t > 1e-6 ? 0.5 * t : 0.0;
			}
			if (t == 0.0)
				si_->copyState(lastValid.first, s1);
		}
		lastValid.second = t;
		++invalid_;
		return false;
	}

private:
	bool cast(const ob::State *s1, const ob::State *s2, imp_cast_hit *hit) const
	{
		return query_ok(imp_world_cast_shape(world_, robot_, to_pose(*s1->as<StateType>()),
						     to_pose(*s2->as<StateType>()), nullptr, hit),
				"imp_world_cast_shape");
	}

	const imp_world *world_;
	const imp_shape *robot_;
};

// ---------------------------------------------------------------------------
// The scenes: a wall with an opening across the middle, and random convex
// obstacles (a fixed seed: every run draws the same scene), none near the
// start, the goal or the opening.

/// A small deterministic generator (the same numbers on every platform).
static double next_unit(uint64_t *s)
{
	*s = *s * 6364136223846793005u + 1442695040888963407u;
	return (double)(*s >> 11) * (1.0 / 9007199254740992.0);
}

/// A world and the shapes it uses; frees them all.
struct Scene {
	imp_world *world = nullptr;
	std::vector<imp_shape *> obstacles; ///< shapes of the world's bodies
	imp_shape *robot = nullptr;         ///< the query shape (not in the world)
	int random_count = 0;

	Scene() = default;
	Scene(const Scene &) = delete;
	Scene &operator=(const Scene &) = delete;
	~Scene()
	{
		imp_world_destroy(world);
		for (imp_shape *s : obstacles)
			imp_shape_destroy(s);
		imp_shape_destroy(robot);
	}
};

static bool make_world(int dim, Scene *scene)
{
	imp_world_def def = imp_default_world_def();
	def.dim = dim;
	return query_ok(imp_world_create(&def, &scene->world), "imp_world_create");
}

/// Adds a static body of shape s at a 2D or 3D pose; the scene takes s
/// (frees it), whether or not the body could be added.
static bool add_static(Scene *scene, imp_shape *s, const imp_pose2 *p2, const imp_pose3 *p3)
{
	scene->obstacles.push_back(s);
	imp_body_def d = imp_default_body_def();
	d.type = IMP_BODY_STATIC;
	d.shape = s;
	if (p2 != nullptr)
		d.pose2 = *p2;
	if (p3 != nullptr)
		d.pose3 = *p3;
	imp_body_id id;
	return query_ok(imp_world_add_body(scene->world, &d, &id), "imp_world_add_body");
}

/// The SE(2) problem's field.
struct Field2 {
	double width = 20.0, height = 12.0;
	double wall_x = 10.0, opening;          ///< the wall's opening, centred at height / 2
	imp_pose2 start = imp_pose2_make(1.5, 1.5, 0.0);
	imp_pose2 goal = imp_pose2_make(18.5, 2.0, 0.5 * PI);
	double robot_hx = 0.8, robot_hy = 0.25; ///< a 1.6 x 0.5 box
};

static bool build_scene2(const Field2 &f, int count, uint64_t seed, Scene *scene)
{
	if (!make_world(2, scene))
		return false;
	imp_status st = imp_shape_box2(f.robot_hx, f.robot_hy, 0.0, &scene->robot);
	if (!query_ok(st, "imp_shape_box2"))
		return false;
	// The wall: two boxes 0.4 thick, above and below the opening.
	double below = 0.5 * (f.height - f.opening);
	for (int k = 0; k < 2; k++) {
		imp_shape *s = nullptr;
		if (!query_ok(imp_shape_box2(0.2, 0.5 * below, 0.0, &s), "imp_shape_box2"))
			return false;
		imp_pose2 p = imp_pose2_make(f.wall_x, k == 0 ? 0.5 * below : f.height - 0.5 * below, 0.0);
		if (!add_static(scene, s, &p, nullptr))
			return false;
	}
	double robot_reach = std::hypot(f.robot_hx, f.robot_hy);
	for (int tries = 0; scene->random_count < count && tries < 100000; tries++) {
		double x = f.width * next_unit(&seed), y = f.height * next_unit(&seed);
		double size = 0.3 + 0.6 * next_unit(&seed); // the obstacle's reach from its centre
		int kind = (int)(3.0 * next_unit(&seed));
		double angle = 2.0 * PI * next_unit(&seed);
		auto gap = [&](double px, double py) { return std::hypot(x - px, y - py); };
		if (gap(f.start.p.x, f.start.p.y) < size + robot_reach + 0.3 ||
		    gap(f.goal.p.x, f.goal.p.y) < size + robot_reach + 0.3 ||
		    gap(f.wall_x, 0.5 * f.height) < size + f.opening + 0.5 || std::fabs(x - f.wall_x) < size + 0.2)
			continue;
		imp_shape *s = nullptr;
		if (kind == 0) {
			st = imp_shape_box2(0.8 * size, 0.45 * size, 0.0, &s);
		} else if (kind == 1) {
			st = imp_shape_circle(imp_vec2_make(0.0, 0.0), 0.8 * size, &s);
		} else {
			imp_vec2 p[7];
			for (int k = 0; k < 7; k++) {
				double a = 2.0 * PI * (k + 0.5 * next_unit(&seed)) / 7.0;
				p[k] = imp_vec2_make(size * std::cos(a), size * std::sin(a));
			}
			st = imp_shape_polygon(p, 7, 0.0, &s);
		}
		if (!query_ok(st, "making an obstacle"))
			return false;
		imp_pose2 p = imp_pose2_make(x, y, angle);
		if (!add_static(scene, s, &p, nullptr))
			return false;
		scene->random_count++;
	}
	// Not needed by the queries (they see the bodies as they are); it
	// brings the world's own pair tracking up to date.
	return query_ok(imp_world_update(scene->world), "imp_world_update");
}

/// The SE(3) problem's room.
struct Field3 {
	double size = 10.0;
	double wall_x = 5.0, window; ///< a square window in the wall, centred at (5, 5)
	imp_pose3 start = imp_pose3_make(imp_vec3_make(1.0, 1.0, 1.0), imp_quat_identity());
	imp_pose3 goal = imp_pose3_make(imp_vec3_make(9.0, 9.0, 2.0), imp_quat_from_rpy(0.3, -0.5, 1.2));
	double robot_h[3] = {0.5, 0.15, 0.1}; ///< a 1.0 x 0.3 x 0.2 box
};

static bool build_scene3(const Field3 &f, int count, uint64_t seed, Scene *scene)
{
	if (!make_world(3, scene))
		return false;
	imp_status st = imp_shape_box3(f.robot_h[0], f.robot_h[1], f.robot_h[2], 0.0, &scene->robot);
	if (!query_ok(st, "imp_shape_box3"))
		return false;
	// The wall, 0.3 thick: four boxes around the window.
	double c = 0.5 * f.size, w = 0.5 * f.window, side = c - w;
	const double boxes[4][4] = {
		// centre y, centre z, half y, half z
		{0.5 * side, c, 0.5 * side, c},                  // y below the window, all z
		{f.size - 0.5 * side, c, 0.5 * side, c},         // y above, all z
		{c, 0.5 * side, w, 0.5 * side},                  // under the window
		{c, f.size - 0.5 * side, w, 0.5 * side},         // over it
	};
	for (const auto &b : boxes) {
		imp_shape *s = nullptr;
		if (!query_ok(imp_shape_box3(0.15, b[2], b[3], 0.0, &s), "imp_shape_box3"))
			return false;
		imp_pose3 p = imp_pose3_from_translation(imp_vec3_make(f.wall_x, b[0], b[1]));
		if (!add_static(scene, s, nullptr, &p))
			return false;
	}
	double robot_reach = std::sqrt(f.robot_h[0] * f.robot_h[0] + f.robot_h[1] * f.robot_h[1] +
				       f.robot_h[2] * f.robot_h[2]);
	for (int tries = 0; scene->random_count < count && tries < 100000; tries++) {
		imp_vec3 at = imp_vec3_make(f.size * next_unit(&seed), f.size * next_unit(&seed), f.size * next_unit(&seed));
		double size = 0.4 + 0.6 * next_unit(&seed);
		int kind = (int)(5.0 * next_unit(&seed));
		imp_quat turn = imp_quat_from_rpy(2.0 * PI * next_unit(&seed), 2.0 * PI * next_unit(&seed),
						  2.0 * PI * next_unit(&seed));
		auto gap = [&](imp_vec3 p) { return imp_vec3_length(imp_vec3_sub(at, p)); };
		if (gap(f.start.p) < size + robot_reach + 0.3 || gap(f.goal.p) < size + robot_reach + 0.3 ||
		    gap(imp_vec3_make(f.wall_x, c, c)) < size + f.window + 0.5 || std::fabs(at.x - f.wall_x) < size + 0.15)
			continue;
		imp_shape *s = nullptr;
		switch (kind) {
		case 0:
			st = imp_shape_box3(0.7 * size, 0.5 * size, 0.35 * size, 0.0, &s);
			break;
		case 1:
			st = imp_shape_sphere(imp_vec3_make(0.0, 0.0, 0.0), 0.8 * size, &s);
			break;
		case 2:
			st = imp_shape_capsule3(imp_vec3_make(0.0, 0.0, -0.6 * size), imp_vec3_make(0.0, 0.0, 0.6 * size),
						0.3 * size, &s);
			break;
		case 3:
			st = imp_shape_cylinder(0.6 * size, 0.5 * size, 0.0, &s);
			break;
		default: {
			imp_vec3 p[10];
			for (imp_vec3 &q : p) {
				imp_vec3 d = imp_vec3_make(next_unit(&seed) - 0.5, next_unit(&seed) - 0.5, next_unit(&seed) - 0.5);
				q = imp_vec3_scale(size * (0.6 + 0.4 * next_unit(&seed)), imp_vec3_normalize(d));
			}
			st = imp_shape_polytope(p, 10, 0.0, &s);
			break;
		}
		}
		if (!query_ok(st, "making an obstacle"))
			return false;
		imp_pose3 p = imp_pose3_make(at, imp_quat_normalize(turn));
		if (!add_static(scene, s, nullptr, &p))
			return false;
		scene->random_count++;
	}
	return query_ok(imp_world_update(scene->world), "imp_world_update");
}

// ---------------------------------------------------------------------------
// The self-checks.

/// How far a cast's pose at its t is from OMPL's state: the distance
/// between the origins and the angle of the rotation between them.
static std::pair<double, double> pose_gap(const imp_pose3 &cast, const ob::SE2StateSpace::StateType &s)
{
	double yaw = 2.0 * std::atan2(cast.q.z, cast.q.w); // the cast's 2D pose: a turn about z
	return {std::hypot(cast.p.x - s.getX(), cast.p.y - s.getY()), std::fabs(std::remainder(yaw - s.getYaw(), 2.0 * PI))};
}

static std::pair<double, double> pose_gap(const imp_pose3 &cast, const ob::SE3StateSpace::StateType &s)
{
	imp_pose3 p = to_pose(s);
	imp_quat d = imp_quat_mul(imp_quat_conj(cast.q), p.q);
	double v = std::sqrt(d.x * d.x + d.y * d.y + d.z * d.z);
	return {imp_vec3_length(imp_vec3_sub(cast.p, p.p)), 2.0 * std::atan2(v, std::fabs(d.w))};
}

/// What check_path found.
struct PathCheck {
	bool segments_free = true; ///< every segment's cast IMP_CAST_FREE
	int dense_states = 0;
	int dense_invalid = 0;     ///< dense states overlapping a body (or out of bounds)
	double min_clearance = INFINITY;
	double overlap_us = 0.0, nearest_us = 0.0; ///< a query's mean time
};

static double seconds_since(std::chrono::steady_clock::time_point t0)
{
	return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

/// The path checked again, apart from the planner: each segment cast, and
/// `per_segment` states along each (OMPL's interpolate) checked for
/// overlap, with their clearance.
template <class Space>
static PathCheck check_path(const ob::SpaceInformationPtr &si, const Scene &scene, const og::PathGeometric &path,
			    int per_segment)
{
	using StateType = typename Space::StateType;
	using Pose = decltype(to_pose(std::declval<const StateType &>())); // imp_pose2 or imp_pose3
	const ob::StateSpacePtr &space = si->getStateSpace();
	PathCheck r;
	std::vector<Pose> poses;
	ob::State *s = si->allocState();
	for (std::size_t i = 0; i + 1 < path.getStateCount(); i++) {
		const ob::State *a = path.getState(i), *b = path.getState(i + 1);
		imp_cast_hit hit;
		if (!query_ok(imp_world_cast_shape(scene.world, scene.robot, to_pose(*a->as<StateType>()),
						   to_pose(*b->as<StateType>()), nullptr, &hit),
			      "imp_world_cast_shape") ||
		    hit.state != IMP_CAST_FREE)
			r.segments_free = false;
		for (int k = 0; k <= per_segment; k++) {
			if (k == per_segment && i + 2 < path.getStateCount())
				continue; // the next segment's first state
			space->interpolate(a, b, (double)k / per_segment, s);
			r.dense_invalid += !si->satisfiesBounds(s);
			poses.push_back(to_pose(*s->as<StateType>()));
		}
	}
	si->freeState(s);
	r.dense_states = (int)poses.size();
	auto t0 = std::chrono::steady_clock::now();
	for (const Pose &p : poses) {
		bool overlap = true;
		if (!query_ok(imp_world_overlap_any(scene.world, scene.robot, p, nullptr, &overlap), "imp_world_overlap_any"))
			overlap = true;
		r.dense_invalid += overlap;
	}
	r.overlap_us = 1e6 * seconds_since(t0) / std::max<std::size_t>(1, poses.size());
	t0 = std::chrono::steady_clock::now();
	for (const Pose &p : poses) {
		imp_query_result near;
		if (query_ok(imp_world_nearest(scene.world, scene.robot, p, INFINITY, nullptr, &near), "imp_world_nearest"))
			r.min_clearance = std::min(r.min_clearance, near.distance);
	}
	r.nearest_us = 1e6 * seconds_since(t0) / std::max<std::size_t>(1, poses.size());
	return r;
}

/// What check_interpolation found.
struct InterpolationCheck {
	int motions = 0, blocked = 0;
	double position_gap = 0.0, angle_gap = 0.0; ///< largest, cast pose vs OMPL's interpolate
	int bad_last_valid = 0; ///< lastValid states not valid, or not reachable by a free cast
	double cast_us = 0.0;   ///< a cast's mean time
};

/// Random motions from a valid state to any state: where the cast is
/// blocked, its pose at hit.t against OMPL's interpolate(s1, s2, hit.t),
/// and the validator's lastValid (a valid state, the motion to it free).
template <class Space>
static InterpolationCheck check_interpolation(const ob::SpaceInformationPtr &si, const Scene &scene,
					      const ImpactMotionValidator<Space> &validator, int motions)
{
	using StateType = typename Space::StateType;
	InterpolationCheck r;
	ob::StateSamplerPtr sampler = si->allocStateSampler();
	ob::State *s1 = si->allocState(), *s2 = si->allocState(), *s = si->allocState(), *last = si->allocState();
	for (int m = 0; m < motions; m++) {
		do
			sampler->sampleUniform(s1);
		while (!si->isValid(s1));
		sampler->sampleUniform(s2);
		r.motions++;
		imp_cast_hit hit;
		auto t0 = std::chrono::steady_clock::now();
		imp_status st = imp_world_cast_shape(scene.world, scene.robot, to_pose(*s1->as<StateType>()),
						     to_pose(*s2->as<StateType>()), nullptr, &hit);
		r.cast_us += 1e6 * seconds_since(t0);
		if (!query_ok(st, "imp_world_cast_shape") || hit.state == IMP_CAST_FREE)
			continue;
		r.blocked++;
		si->getStateSpace()->interpolate(s1, s2, hit.t, s);
		std::pair<double, double> gap = pose_gap(hit.pose, *s->as<StateType>());
		r.position_gap = std::max(r.position_gap, gap.first);
		r.angle_gap = std::max(r.angle_gap, gap.second);
		std::pair<ob::State *, double> lastValid(last, -1.0);
		if (validator.checkMotion(s1, s2, lastValid) || lastValid.second < 0.0 || lastValid.second > hit.t ||
		    !si->isValid(last)) {
			r.bad_last_valid++;
			continue;
		}
		if (lastValid.second > 0.0) {
			imp_cast_hit back;
			if (!query_ok(imp_world_cast_shape(scene.world, scene.robot, to_pose(*s1->as<StateType>()),
							   to_pose(*last->as<StateType>()), nullptr, &back),
				      "imp_world_cast_shape") ||
			    back.state != IMP_CAST_FREE)
				r.bad_last_valid++;
		}
	}
	si->freeState(s1);
	si->freeState(s2);
	si->freeState(s);
	si->freeState(last);
	r.cast_us /= std::max(1, r.motions);
	return r;
}

// ---------------------------------------------------------------------------
// Planning.

struct Options {
	bool smoke = false;
	const char *out = nullptr;
	uint64_t seed = 20261125;
};

/// Plans from start to goal with RRTConnect, simplifies, checks. Returns
/// true when nothing failed (in smoke mode: and the problem was solved
/// exactly); *solution receives the simplified path.
template <class Space>
static bool plan(const char *name, const std::shared_ptr<Space> &space, const Scene &scene, const ob::State *start,
		 const ob::State *goal, const Options &opt, std::shared_ptr<og::PathGeometric> *solution)
{
	auto t0 = std::chrono::steady_clock::now();
	og::SimpleSetup ss(space);
	const ob::SpaceInformationPtr &si = ss.getSpaceInformation();
	auto checker = std::make_shared<ImpactValidityChecker<Space>>(si, scene.world, scene.robot);
	auto validator = std::make_shared<ImpactMotionValidator<Space>>(si, scene.world, scene.robot);
	ss.setStateValidityChecker(checker);
	// Set before setup(): SpaceInformation::setup() installs its discrete
	// validator only when none is set.
	si->setMotionValidator(validator);
	ss.setStartAndGoalStates(ob::ScopedState<>(space, start), ob::ScopedState<>(space, goal));
	ss.setPlanner(std::make_shared<og::RRTConnect>(si));
	ss.setup();
	if (!si->isValid(start) || !si->isValid(goal)) {
		std::printf("  FAILED: the start or the goal is not valid\n");
		return false;
	}

	// A generous limit: the problems take milliseconds; a slow machine
	// (or a sanitizer build) must not turn the smoke run red.
	double limit = opt.smoke ? 10.0 : 30.0;
	ob::PlannerStatus status = ss.solve(limit);
	bool exact = status == ob::PlannerStatus::EXACT_SOLUTION;
	std::printf("  RRTConnect: %s in %.3f s (limit %.0f s): %lu states checked, %u motions checked (%u free)\n",
		    status.asString().c_str(), ss.getLastPlanComputationTime(), limit, checker->calls(),
		    validator->getCheckedMotionCount(), validator->getValidMotionCount());
	if (!ss.haveSolutionPath()) {
		std::printf("  %sno path\n", opt.smoke ? "FAILED: " : "");
		return !opt.smoke;
	}
	bool ok = exact || !opt.smoke;
	if (!ok)
		std::printf("  FAILED: no exact solution\n");

	// The planner's path, then the simplified one (shortcuts, each a
	// checkMotion): both checked.
	og::PathGeometric raw = ss.getSolutionPath();
	ss.simplifySolution();
	const og::PathGeometric &path = ss.getSolutionPath();
	std::printf("  path: %zu states, length %.3f; simplified in %.3f s: %zu states, length %.3f\n",
		    raw.getStateCount(), raw.length(), ss.getLastSimplificationTime(), path.getStateCount(),
		    path.length());
	auto t1 = std::chrono::steady_clock::now();
	const int per_segment = 200;
	for (int k = 0; k < 2; k++) {
		PathCheck c = check_path<Space>(si, scene, k == 0 ? raw : path, per_segment);
		std::printf("  check (%s path): every segment's cast %s; %d states along it (%d a segment): %d "
			    "colliding, smallest clearance %.4f (%.2f us an overlap_any, %.2f us a nearest)\n",
			    k == 0 ? "planner's" : "simplified", c.segments_free ? "free" : "NOT free", c.dense_states,
			    per_segment, c.dense_invalid, c.min_clearance, c.overlap_us, c.nearest_us);
		if (exact && !(c.segments_free && c.dense_invalid == 0)) {
			std::printf("  FAILED: the planner's exact solution is not collision-free\n");
			ok = false;
		}
	}
	InterpolationCheck ic = check_interpolation<Space>(si, scene, *validator, opt.smoke ? 200 : 2000);
	std::printf("  check (motion model): %d random motions (%.2f us a cast), %d blocked: the cast's pose and OMPL's "
		    "interpolate at the hit's t differ by %.1e in position, %.1e rad; lastValid %s\n",
		    ic.motions, ic.cast_us, ic.blocked, ic.position_gap, ic.angle_gap,
		    ic.bad_last_valid == 0 ? "valid and reached freely every time" : "WRONG");
	if (ic.position_gap > 1e-9 || ic.angle_gap > 1e-9 || ic.bad_last_valid != 0) {
		std::printf("  FAILED: impact's cast does not follow OMPL's interpolation\n");
		ok = false;
	}
	*solution = std::make_shared<og::PathGeometric>(path);
	double checks = seconds_since(t1);

	// The full run: the same problem again with new samples, every exact
	// solution checked (segments cast, states along them free).
	if (!opt.smoke) {
		const int trials = 10;
		int solved = 0, bad = 0;
		std::vector<double> times;
		for (int k = 0; k < trials; k++) {
			ss.clear();
			bool again = ss.solve(limit) == ob::PlannerStatus::EXACT_SOLUTION;
			times.push_back(ss.getLastPlanComputationTime());
			solved += again;
			if (again) {
				PathCheck c = check_path<Space>(si, scene, ss.getSolutionPath(), 20);
				bad += !c.segments_free || c.dense_invalid != 0;
			}
		}
		std::sort(times.begin(), times.end());
		std::printf("  again %d times: %d solved exactly (planning time median %.3f s, max %.3f s), %d of them "
			    "not collision-free\n",
			    trials, solved, 0.5 * (times[trials / 2 - 1] + times[trials / 2]), times.back(), bad);
		if (bad != 0)
			ok = false;
	}
	std::printf("  %s: %.3f s in all (the checks %.3f s)\n", name, seconds_since(t0), checks);
	return ok;
}

// ---------------------------------------------------------------------------
// The picture of the SE(2) problem.

static bool draw_se2(const char *file, const Field2 &f, const Scene &scene, const og::PathGeometric &path)
{
	imp_svg *svg = nullptr;
	imp_aabb2 view = {{0.0, 0.0}, {f.width, f.height}};
	if (!query_ok(imp_svg_open(file, view, 1200, &svg), file))
		return false;
	imp_debug_draw draw = imp_svg_draw(svg);
	bool ok = query_ok(imp_world_draw(scene.world, &draw), "imp_world_draw");
	// The robot along the path, and the witness segment where it comes
	// nearest to an obstacle.
	og::PathGeometric dense(path);
	dense.interpolate(std::max<unsigned>(60, 8 * (unsigned)path.getStateCount()));
	imp_query_result least = {};
	least.distance = INFINITY;
	for (std::size_t i = 0; i < dense.getStateCount() && ok; i++) {
		imp_pose2 p = to_pose(*dense.getState(i)->as<ob::SE2StateSpace::StateType>());
		imp_query_result near;
		ok = query_ok(imp_world_nearest2(scene.world, scene.robot, p, INFINITY, nullptr, &near), "imp_world_nearest2") &&
		     query_ok(imp_draw_shape2(&draw, scene.robot, p, imp_color_make(0.95f, 0.55f, 0.1f, 0.6f)), "imp_draw_shape2");
		if (ok && near.distance < least.distance)
			least = near;
	}
	for (std::size_t i = 0; i + 1 < path.getStateCount(); i++) {
		imp_pose2 a = to_pose(*path.getState(i)->as<ob::SE2StateSpace::StateType>());
		imp_pose2 b = to_pose(*path.getState(i + 1)->as<ob::SE2StateSpace::StateType>());
		draw.segment(a.p, b.p, imp_color_make(0.1f, 0.1f, 0.1f, 1.0f), draw.user);
	}
	imp_color green = imp_color_make(0.1f, 0.7f, 0.2f, 1.0f), blue = imp_color_make(0.1f, 0.3f, 0.9f, 1.0f);
	ok = ok && query_ok(imp_draw_shape2(&draw, scene.robot, f.start, green), "imp_draw_shape2") &&
	     query_ok(imp_draw_shape2(&draw, scene.robot, f.goal, blue), "imp_draw_shape2");
	if (least.distance < INFINITY)
		imp_draw_query_result(&draw, &least, imp_color_make(0.8f, 0.0f, 0.6f, 1.0f));
	return query_ok(imp_svg_close(svg), file) && ok;
}

// ---------------------------------------------------------------------------

int main(int argc, char **argv)
{
	Options opt;
	for (int i = 1; i < argc; i++) {
		if (!std::strcmp(argv[i], "--smoke")) {
			opt.smoke = true;
		} else if (!std::strcmp(argv[i], "--out") && i + 1 < argc) {
			opt.out = argv[++i];
		} else if (!std::strcmp(argv[i], "--seed") && i + 1 < argc) {
			opt.seed = std::strtoull(argv[++i], nullptr, 10);
		} else {
			std::fprintf(stderr, "usage: ompl_planner [--smoke] [--out FILE.svg] [--seed N]\n");
			return 2;
		}
	}
	// Before any of OMPL's generators is made: the same samples, so the
	// same plans, on every run.
	std::uint_fast32_t ompl_seed = (std::uint_fast32_t)(opt.seed & 0xffffffffu);
	ompl::RNG::setSeed(ompl_seed != 0 ? ompl_seed : 1); // OMPL refuses 0
	ompl::msg::setLogLevel(ompl::msg::LOG_WARN);
	auto t0 = std::chrono::steady_clock::now();
	bool ok = true;

	// SE(2): a 1.6 x 0.5 box through a wall's opening. Smoke: a wide
	// opening, few obstacles; the full run: an opening narrower than the
	// robot is long, so it must turn to pass, and more obstacles.
	{
		Field2 f;
		f.opening = opt.smoke ? 2.0 : 1.0;
		Scene scene;
		if (!build_scene2(f, opt.smoke ? 15 : 45, opt.seed, &scene))
			return 1;
		std::printf("SE(2): %.0f x %.0f field, a wall with a %.2f opening and %d random obstacles; robot 1.6 x 0.5; "
			    "start (%.1f, %.1f, %.2f), goal (%.1f, %.1f, %.2f)\n",
			    f.width, f.height, f.opening, scene.random_count, f.start.p.x, f.start.p.y,
			    imp_rot2_angle(f.start.q), f.goal.p.x, f.goal.p.y, imp_rot2_angle(f.goal.q));
		auto space = std::make_shared<ob::SE2StateSpace>();
		ob::RealVectorBounds bounds(2);
		bounds.setLow(0, 0.0);
		bounds.setHigh(0, f.width);
		bounds.setLow(1, 0.0);
		bounds.setHigh(1, f.height);
		space->setBounds(bounds);
		ob::ScopedState<ob::SE2StateSpace> start(space), goal(space);
		start->setXY(f.start.p.x, f.start.p.y);
		start->setYaw(imp_rot2_angle(f.start.q));
		goal->setXY(f.goal.p.x, f.goal.p.y);
		goal->setYaw(imp_rot2_angle(f.goal.q));
		std::shared_ptr<og::PathGeometric> path;
		ok = plan("SE(2)", space, scene, start.get(), goal.get(), opt, &path) && ok;
		if (opt.out != nullptr && path) {
			if (draw_se2(opt.out, f, scene, *path))
				std::printf("  picture: %s\n", opt.out);
			else
				ok = false;
		}
	}

	// SE(3): a 1.0 x 0.3 x 0.2 box through a square window.
	{
		Field3 f;
		f.window = opt.smoke ? 1.6 : 1.0;
		Scene scene;
		if (!build_scene3(f, opt.smoke ? 15 : 60, opt.seed + 1, &scene))
			return 1;
		std::printf("SE(3): %.0f^3 room, a wall with a %.2f x %.2f window and %d random obstacles; robot 1.0 x 0.3 "
			    "x 0.2; start (%.0f, %.0f, %.0f), goal (%.0f, %.0f, %.0f) turned\n",
			    f.size, f.window, f.window, scene.random_count, f.start.p.x, f.start.p.y, f.start.p.z,
			    f.goal.p.x, f.goal.p.y, f.goal.p.z);
		auto space = std::make_shared<ob::SE3StateSpace>();
		ob::RealVectorBounds bounds(3);
		bounds.setLow(0.0);
		bounds.setHigh(f.size);
		space->setBounds(bounds);
		ob::ScopedState<ob::SE3StateSpace> start(space), goal(space);
		const imp_pose3 *ends[2] = {&f.start, &f.goal};
		ob::SE3StateSpace::StateType *states[2] = {start.get(), goal.get()};
		for (int k = 0; k < 2; k++) {
			states[k]->setXYZ(ends[k]->p.x, ends[k]->p.y, ends[k]->p.z);
			ob::SO3StateSpace::StateType &r = states[k]->rotation();
			r.x = ends[k]->q.x;
			r.y = ends[k]->q.y;
			r.z = ends[k]->q.z;
			r.w = ends[k]->q.w;
		}
		std::shared_ptr<og::PathGeometric> path;
		ok = plan("SE(3)", space, scene, start.get(), goal.get(), opt, &path) && ok;
	}

	if (query_errors.load() != 0) {
		std::printf("%d queries failed\n", query_errors.load());
		ok = false;
	}
	std::printf("%s in %.3f s\n", ok ? "ok" : "FAILED", seconds_since(t0));
	return ok ? 0 : 1;
}
