// SPDX-License-Identifier: MIT
// The statuses the headers list that the other error tests do not reach:
// coordinates and radii beyond IMP_MAX_COORDINATE in the constructors, a
// compound's child posed beyond the range in the pairwise queries, the
// supports and the debug draw, user supports that fail on a body's or a
// query's box (single queries and batches, where they come part way),
// velocities and target poses (out of memory, a path leaving the range
// inside the step's callback, target poses inside callbacks), negative
// query distances and a ray's bad `ignore`. Each asserts the exact status
// and that the outputs (and the world) are as the header promises.
#include <float.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <impact/impact.h>

#include "bad_input.h"
#include "counting_alloc.h"

#define V2(x, y) imp_vec2_make((x), (y))
#define V3(x, y, z) imp_vec3_make((x), (y), (z))

#define PI 3.14159265358979323846

/// Twice the range: a coordinate or radius every call must refuse.
#define FAR (2.0 * IMP_MAX_COORDINATE)

static imp_world *make_world(int dim, int workers)
{
	imp_world_def def = imp_default_world_def();
	def.dim = dim;
	def.worker_count = workers;
	imp_world *w = NULL;
	assert_int_equal(imp_world_create(&def, &w), IMP_OK);
	return w;
}

static imp_body_id add2(imp_world *w, const imp_shape *s, imp_body_type type, imp_pose2 pose)
{
	imp_body_def d = imp_default_body_def();
	d.shape = s;
	d.type = type;
	d.pose2 = pose;
	imp_body_id id;
	assert_int_equal(imp_world_add_body(w, &d, &id), IMP_OK);
	return id;
}

// ---------------------------------------------------------------------------
// User supports: unit boxes along the axes; off the axes they fail.

static double sgn(double x)
{
	return x > 0.0 ? 1.0 : (x < 0.0 ? -1.0 : 0.0);
}

/// NaN off the axes (a turned body's or query's box asks there).
static imp_vec2 nan_off_axes(const void *user, imp_vec2 d)
{
	(void)user;
	if (d.x != 0.0 && d.y != 0.0)
		return V2(NAN, NAN);
	return V2(sgn(d.x), sgn(d.y));
}

/// Finite but huge off the axes: a box that is not finite.
static imp_vec2 huge_off_axes(const void *user, imp_vec2 d)
{
	(void)user;
	if (d.x != 0.0 && d.y != 0.0)
		return V2(sgn(d.x) * 1e308, sgn(d.y) * 1e308);
	return V2(sgn(d.x), sgn(d.y));
}

/// Off the axes: huge near an axis (a turn of 10 degrees asks there), NaN
/// near the diagonals (45 degrees).
static imp_vec2 mixed_off_axes(const void *user, imp_vec2 d)
{
	(void)user;
	if (d.x == 0.0 || d.y == 0.0)
		return V2(sgn(d.x), sgn(d.y));
	double l = hypot(d.x, d.y);
	if (fabs(d.x) > 0.9 * l || fabs(d.y) > 0.9 * l)
		return V2(sgn(d.x) * 1e308, sgn(d.y) * 1e308);
	return V2(NAN, NAN);
}

/// One axis support beyond the range.
static imp_vec2 far_on_x(const void *user, imp_vec2 d)
{
	(void)user;
	return V2(d.x > 0.0 ? FAR : sgn(d.x), sgn(d.y));
}

static imp_vec3 nan_off_axes3(const void *user, imp_vec3 d)
{
	(void)user;
	int zeros = (d.x == 0.0) + (d.y == 0.0) + (d.z == 0.0);
	if (zeros != 2)
		return V3(NAN, NAN, NAN);
	return V3(sgn(d.x), sgn(d.y), sgn(d.z));
}

static imp_vec3 unit_box3(const void *user, imp_vec3 d)
{
	(void)user;
	return V3(sgn(d.x), sgn(d.y), sgn(d.z));
}

// ---------------------------------------------------------------------------
// Constructors: a coordinate or radius beyond the range, partial allocators.

static void test_constructor_ranges(void **state)
{
	(void)state;
	imp_shape *out = SENTINEL, *s = NULL;
	// 2D: a centre or point beyond the range; a rounding radius beyond it.
	assert_int_equal(imp_shape_circle(V2(FAR, 0), 1.0, &out), IMP_ERR_OUT_OF_RANGE);
	assert_int_equal(imp_shape_capsule2(V2(0, 0), V2(0, -FAR), 1.0, &out), IMP_ERR_OUT_OF_RANGE);
	assert_int_equal(imp_shape_segment2(V2(-FAR, 0), V2(0, 0), &out), IMP_ERR_OUT_OF_RANGE);
	assert_int_equal(imp_shape_box2(1.0, 1.0, FAR, &out), IMP_ERR_OUT_OF_RANGE);
	assert_int_equal(imp_shape_user2(far_on_x, NULL, 0.0, &out), IMP_ERR_OUT_OF_RANGE);
	assert_int_equal(imp_shape_user2(nan_off_axes, NULL, FAR, &out), IMP_ERR_OUT_OF_RANGE);
	assert_ptr_equal(out, SENTINEL);
	// At the range: taken.
	assert_int_equal(imp_shape_circle(V2(IMP_MAX_COORDINATE, 0), IMP_MAX_COORDINATE, &s), IMP_OK);
	imp_shape_destroy(s);
	assert_int_equal(imp_shape_user2(nan_off_axes, NULL, IMP_MAX_COORDINATE, &s), IMP_OK);
	imp_shape_destroy(s);

	// An allocator with only some functions set, before anything else is
	// looked at: nothing allocated.
	counting c = {.fail_at = -1};
	imp_allocator part = counting_allocator(&c);
	part.free = NULL;
	imp_vec2 pts[3] = {{0, 0}, {1, 0}, {0, 1}};
	assert_int_equal(imp_shape_polygon_ex(pts, 3, 0.0, &part, &out), IMP_ERR_NULL_ARGUMENT);
	part = counting_allocator(&c);
	part.alloc = NULL;
	assert_int_equal(imp_shape_polygon_ex(pts, 3, 0.0, &part, &out), IMP_ERR_NULL_ARGUMENT);
	assert_ptr_equal(out, SENTINEL);
	assert_int_equal(c.calls, 0);

	// 3D.
	assert_int_equal(imp_shape_sphere(V3(0, FAR, 0), 1.0, &out), IMP_ERR_OUT_OF_RANGE);
	assert_int_equal(imp_shape_capsule3(V3(0, 0, 0), V3(0, 0, -FAR), 1.0, &out), IMP_ERR_OUT_OF_RANGE);
	assert_int_equal(imp_shape_box3(1, 1, 1, FAR, &out), IMP_ERR_OUT_OF_RANGE);
	assert_int_equal(imp_shape_cylinder(1, 1, FAR, &out), IMP_ERR_OUT_OF_RANGE);
	assert_int_equal(imp_shape_cone(1, 1, FAR, &out), IMP_ERR_OUT_OF_RANGE);
	assert_int_equal(imp_shape_ellipsoid(1, 2, 3, FAR, &out), IMP_ERR_OUT_OF_RANGE);
	assert_int_equal(imp_shape_user3(unit_box3, NULL, FAR, &out), IMP_ERR_OUT_OF_RANGE);
	assert_ptr_equal(out, SENTINEL);
	assert_int_equal(imp_shape_box3(1, 1, 1, IMP_MAX_COORDINATE, &s), IMP_OK);
	imp_shape_destroy(s);

	// Meshes and height fields: the radius beyond the range; a height
	// field's non-finite radius is a bad radius.
	imp_vec3 v[3] = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}};
	int32_t t[3] = {0, 1, 2};
	assert_int_equal(imp_shape_mesh(v, 3, t, 1, FAR, &out), IMP_ERR_OUT_OF_RANGE);
	double h[6] = {1, 2, 1, 2, 1, 2};
	assert_int_equal(imp_shape_heightfield(h, 2, 3, 1, 1, 0, FAR, &out), IMP_ERR_OUT_OF_RANGE);
	for (int i = 0; i < 4; ++i)
		assert_int_equal(imp_shape_heightfield(h, 2, 3, 1, 1, 0, bad_numbers[i], &out), IMP_ERR_BAD_RADIUS);
	assert_ptr_equal(out, SENTINEL);
	assert_int_equal(imp_shape_mesh(v, 3, t, 1, IMP_MAX_COORDINATE, &s), IMP_OK);
	imp_shape_destroy(s);
	assert_int_equal(imp_shape_heightfield(h, 2, 3, 1, 1, 0, IMP_MAX_COORDINATE, &s), IMP_OK);
	imp_shape_destroy(s);
}

// ---------------------------------------------------------------------------
// A compound's child composed beyond the range.

static void test_composed_pose_range(void **state)
{
	(void)state;
	imp_shape *disc, *cmp, *offset, *ball, *cmp3, *offset3;
	assert_int_equal(imp_shape_circle(V2(0, 0), 1.0, &disc), IMP_OK);
	assert_int_equal(imp_shape_sphere(V3(0, 0, 0), 1.0, &ball), IMP_OK);
	const imp_shape *kid2[1] = {disc}, *kid3[1] = {ball};
	imp_pose2 at_origin = imp_pose2_identity(), at_edge = imp_pose2_make(IMP_MAX_COORDINATE, 0, 0);
	imp_pose3 at_origin3 = imp_pose3_identity(), at_edge3 = imp_pose3_make(V3(0, IMP_MAX_COORDINATE, 0), imp_quat_identity());
	assert_int_equal(imp_shape_compound2(kid2, &at_origin, 1, &cmp), IMP_OK);
	assert_int_equal(imp_shape_compound2(kid2, &at_edge, 1, &offset), IMP_OK);
	assert_int_equal(imp_shape_compound3(kid3, &at_origin3, 1, &cmp3), IMP_OK);
	assert_int_equal(imp_shape_compound3(kid3, &at_edge3, 1, &offset3), IMP_OK);

	// Both poses within range, 2e150 apart: b's pose in a's frame is not.
	imp_pose2 right = imp_pose2_make(IMP_MAX_COORDINATE, 0, 0), left = imp_pose2_make(-IMP_MAX_COORDINATE, 0, 0);
	imp_closest2_result r2 = {.distance = 42.0};
	imp_simplex_cache cache;
	memset(&cache, 0, sizeof cache);
	assert_int_equal(imp_closest2(cmp, right, disc, left, &cache, &r2), IMP_ERR_OUT_OF_RANGE);
	assert_int_equal(imp_closest2(disc, right, cmp, left, NULL, &r2), IMP_ERR_OUT_OF_RANGE);
	assert_int_equal(imp_closest2_ex(cmp, right, cmp, left, NULL, NULL, &r2), IMP_ERR_OUT_OF_RANGE);
	assert_true(r2.distance == 42.0);
	assert_int_equal(cache.count, 0);
	// Two convex shapes at the same poses: answered.
	assert_int_equal(imp_closest2(disc, right, disc, left, NULL, &r2), IMP_OK);
	assert_true(fabs(r2.distance - (2.0 * IMP_MAX_COORDINATE - 2.0)) <= 1e-12 * IMP_MAX_COORDINATE);

	imp_pose3 up = imp_pose3_make(V3(0, 0, IMP_MAX_COORDINATE), imp_quat_identity()),
		  down = imp_pose3_make(V3(0, 0, -IMP_MAX_COORDINATE), imp_quat_identity());
	imp_closest3_result r3 = {.distance = 42.0};
	assert_int_equal(imp_closest3(cmp3, up, ball, down, NULL, &r3), IMP_ERR_OUT_OF_RANGE);
	assert_int_equal(imp_closest3_ex(ball, up, cmp3, down, NULL, NULL, &r3), IMP_ERR_OUT_OF_RANGE);
	assert_true(r3.distance == 42.0);
	assert_int_equal(imp_closest3(ball, up, ball, down, NULL, &r3), IMP_OK);
	assert_true(fabs(r3.distance - (2.0 * IMP_MAX_COORDINATE - 2.0)) <= 1e-12 * IMP_MAX_COORDINATE);

	// Supports: the child at 1e150 in a compound at 1e150.
	imp_vec2 s2 = V2(7, 7);
	assert_int_equal(imp_shape_support2(offset, right, V2(1, 0), &s2), IMP_ERR_OUT_OF_RANGE);
	assert_true(s2.x == 7 && s2.y == 7);
	imp_aabb2 box2;
	assert_int_equal(imp_shape_aabb2(offset, right, &box2), IMP_OK); // the box takes no child's pose
	imp_pose2 half = imp_pose2_make(-0.5 * IMP_MAX_COORDINATE, 0, 0);
	assert_int_equal(imp_shape_support2(offset, half, V2(1, 0), &s2), IMP_OK);
	assert_true(fabs(s2.x - (0.5 * IMP_MAX_COORDINATE + 1.0)) <= 1e-12 * IMP_MAX_COORDINATE);
	imp_vec3 s3 = V3(7, 7, 7);
	imp_pose3 high = imp_pose3_make(V3(0, IMP_MAX_COORDINATE, 0), imp_quat_identity());
	assert_int_equal(imp_shape_support3(offset3, high, V3(0, 1, 0), &s3), IMP_ERR_OUT_OF_RANGE);
	assert_true(s3.x == 7 && s3.y == 7 && s3.z == 7);

	imp_shape_destroy(cmp);
	imp_shape_destroy(offset);
	imp_shape_destroy(cmp3);
	imp_shape_destroy(offset3);
	imp_shape_destroy(disc);
	imp_shape_destroy(ball);
}

// ---------------------------------------------------------------------------
// The debug draw.

typedef struct draw_count {
	int polygons, circles;
} draw_count;

static void count_polygon(const imp_vec2 *p, int n, double r, imp_color c, void *user)
{
	(void)p;
	(void)n;
	(void)r;
	(void)c;
	((draw_count *)user)->polygons++;
}

static void count_circle(imp_vec2 p, double r, imp_color c, void *user)
{
	(void)p;
	(void)r;
	(void)c;
	((draw_count *)user)->circles++;
}

static void test_draw_errors(void **state)
{
	(void)state;
	draw_count n = {0, 0};
	imp_debug_draw d = imp_default_debug_draw();
	d.polygon = count_polygon;
	d.circle = count_circle;
	d.user = &n;
	imp_color black = imp_color_make(0, 0, 0, 1);
	imp_shape *user2, *user3, *disc, *cmp, *ball, *cmp3;
	assert_int_equal(imp_shape_user2(nan_off_axes, NULL, 0.0, &user2), IMP_OK);
	assert_int_equal(imp_shape_user3(nan_off_axes3, NULL, 0.0, &user3), IMP_OK);
	// A user support's non-finite point: nothing drawn.
	assert_int_equal(imp_draw_shape2(&d, user2, imp_pose2_identity(), black), IMP_ERR_NOT_FINITE);
	assert_int_equal(imp_draw_shape3(&d, user3, imp_pose3_identity(), black), IMP_ERR_NOT_FINITE);
	assert_int_equal(n.polygons + n.circles, 0);

	// A compound whose second child lands beyond the range: the first is
	// drawn, then the error.
	assert_int_equal(imp_shape_circle(V2(0, 0), 1.0, &disc), IMP_OK);
	assert_int_equal(imp_shape_sphere(V3(0, 0, 0), 1.0, &ball), IMP_OK);
	const imp_shape *kids2[2] = {disc, disc}, *kids3[2] = {ball, ball};
	imp_pose2 poses2[2] = {imp_pose2_identity(), imp_pose2_make(IMP_MAX_COORDINATE, 0, 0)};
	imp_pose3 poses3[2] = {imp_pose3_identity(), imp_pose3_make(V3(0, 0, -IMP_MAX_COORDINATE), imp_quat_identity())};
	assert_int_equal(imp_shape_compound2(kids2, poses2, 2, &cmp), IMP_OK);
	assert_int_equal(imp_shape_compound3(kids3, poses3, 2, &cmp3), IMP_OK);
	assert_int_equal(imp_draw_shape2(&d, cmp, imp_pose2_make(IMP_MAX_COORDINATE, 0, 0), black),
			 IMP_ERR_OUT_OF_RANGE);
	assert_int_equal(n.circles, 1);
	assert_int_equal(imp_draw_shape3(&d, cmp3, imp_pose3_make(V3(0, 0, -IMP_MAX_COORDINATE), imp_quat_identity()),
					 black),
			 IMP_ERR_OUT_OF_RANGE);
	assert_int_equal(n.circles, 2);
	// Within range both children are drawn.
	assert_int_equal(imp_draw_shape2(&d, cmp, imp_pose2_identity(), black), IMP_OK);
	assert_int_equal(n.circles, 4);
	assert_int_equal(n.polygons, 0);

	imp_shape_destroy(cmp);
	imp_shape_destroy(cmp3);
	imp_shape_destroy(disc);
	imp_shape_destroy(ball);
	imp_shape_destroy(user2);
	imp_shape_destroy(user3);
}

// ---------------------------------------------------------------------------
// A user support failing on a body's or a query's box.

static void test_user_box_in_world(void **state)
{
	(void)state;
	imp_shape *nan_user, *huge_user, *box;
	assert_int_equal(imp_shape_user2(nan_off_axes, NULL, 0.0, &nan_user), IMP_OK);
	assert_int_equal(imp_shape_user2(huge_off_axes, NULL, 0.0, &huge_user), IMP_OK);
	assert_int_equal(imp_shape_box2(1, 1, 0, &box), IMP_OK);
	imp_world *w = make_world(2, 1);
	add2(w, box, IMP_BODY_STATIC, imp_pose2_identity());
	assert_int_equal(imp_world_update(w), IMP_OK);
	uint64_t h = imp_world_state_hash(w);
	imp_pose2 turned = imp_pose2_make(10, 0, 0.7);

	// Adding: a turned body's box asks off the axes.
	imp_body_def d = imp_default_body_def();
	d.shape = nan_user;
	d.pose2 = turned;
	imp_body_id id = {7, 7, 7};
	assert_int_equal(imp_world_add_body(w, &d, &id), IMP_ERR_NOT_FINITE);
	d.shape = huge_user;
	assert_int_equal(imp_world_add_body(w, &d, &id), IMP_ERR_OUT_OF_RANGE);
	assert_true(id.index == 7 && id.generation == 7 && id.world == 7);
	assert_int_equal(imp_world_body_count(w), 1);
	assert_true(imp_world_state_hash(w) == h);

	// Turning a body that was added unturned.
	imp_body_id a = add2(w, nan_user, IMP_BODY_DYNAMIC, imp_pose2_make(10, 0, 0));
	imp_body_id b = add2(w, huge_user, IMP_BODY_DYNAMIC, imp_pose2_make(20, 0, 0));
	assert_int_equal(imp_world_update(w), IMP_OK);
	h = imp_world_state_hash(w);
	assert_int_equal(imp_body_set_pose2(w, a, turned), IMP_ERR_NOT_FINITE);
	assert_int_equal(imp_body_set_pose2(w, b, turned), IMP_ERR_OUT_OF_RANGE);
	imp_pose2 p;
	assert_int_equal(imp_body_get_pose2(w, a, &p), IMP_OK);
	assert_true(p.p.x == 10 && p.q.c == 1.0 && p.q.s == 0.0);
	assert_true(imp_world_state_hash(w) == h);

	// Single queries with the shape turned: nothing written.
	bool any = true;
	assert_int_equal(imp_world_overlap_any2(w, nan_user, imp_pose2_make(0, 50, 0.7), NULL, &any), IMP_ERR_NOT_FINITE);
	imp_query_result r = {.distance = 42.0};
	assert_int_equal(imp_world_nearest2(w, huge_user, imp_pose2_make(0, 50, 0.7), 1.0, NULL, &r),
			 IMP_ERR_OUT_OF_RANGE);
	assert_true(any && r.distance == 42.0);
	// Unturned, answered.
	assert_int_equal(imp_world_overlap_any2(w, nan_user, imp_pose2_make(0, 50, 0), NULL, &any), IMP_OK);
	assert_false(any);

	imp_world_destroy(w);
	imp_shape_destroy(nan_user);
	imp_shape_destroy(huge_user);
	imp_shape_destroy(box);
}

// ---------------------------------------------------------------------------
// Batches: errors found while answering.

#define BATCH 200

/// A byte no bool holds: an answer left unwritten.
#define UNWRITTEN 0x55

/// The first byte of each answer.
static void answer_bytes(const bool *any, unsigned char *bytes)
{
	for (int i = 0; i < BATCH; ++i)
		memcpy(&bytes[i], (const unsigned char *)&any[i], 1);
}

static void test_batch_errors_while_answering(void **state)
{
	(void)state;
	imp_shape *mixed, *box;
	assert_int_equal(imp_shape_user2(mixed_off_axes, NULL, 0.0, &mixed), IMP_OK);
	assert_int_equal(imp_shape_box2(1, 1, 0, &box), IMP_OK);
	for (int workers = 1; workers <= 4; workers += 3) {
		imp_world *w = make_world(2, workers);
		add2(w, box, IMP_BODY_STATIC, imp_pose2_identity());
		imp_body_id gone = add2(w, box, IMP_BODY_STATIC, imp_pose2_make(5, 0, 0));
		assert_int_equal(imp_world_remove_body(w, gone), IMP_OK);
		assert_int_equal(imp_world_update(w), IMP_OK);
		// Unturned poses far from the body (no narrow phase), but for two
		// turned ones: 45 degrees (a NaN support) and 10 degrees (a box
		// not finite). The lower of the two gives the batch's status.
		static imp_pose2 poses[BATCH];
		static bool any[BATCH];
		static imp_query_result near[BATCH];
		unsigned char bytes[BATCH];
		for (int order = 0; order < 2; ++order) {
			int lo = 90, hi = 130;
			for (int i = 0; i < BATCH; ++i)
				poses[i] = imp_pose2_make(i, 50, 0);
			poses[lo].q = imp_pose2_make(0, 0, order == 0 ? (0.25 * PI) : (PI / 18.0)).q;
			poses[hi].q = imp_pose2_make(0, 0, order == 0 ? (PI / 18.0) : (0.25 * PI)).q;
			imp_status want = order == 0 ? IMP_ERR_NOT_FINITE : IMP_ERR_OUT_OF_RANGE;
			// The answers' bytes start at UNWRITTEN (read back as bytes,
			// never as bool).
			memset(any, UNWRITTEN, sizeof any);
			for (int i = 0; i < BATCH; ++i)
				near[i].distance = 42.0;
			assert_int_equal(imp_world_overlap_any_batch2(w, mixed, poses, BATCH, NULL, any), want);
			assert_int_equal(imp_world_nearest_batch2(w, mixed, poses, BATCH, 1.0, NULL, near), want);
			// The failing poses' answers are not written; any other's is
			// either not written or the right one (no body near).
			answer_bytes(any, bytes);
			assert_true(bytes[lo] == UNWRITTEN && bytes[hi] == UNWRITTEN);
			assert_true(near[lo].distance == 42.0 && near[hi].distance == 42.0);
			for (int i = 0; i < BATCH; ++i) {
				assert_true(bytes[i] == UNWRITTEN || bytes[i] == 0);
				if (near[i].distance != 42.0)
					assert_true(near[i].distance == INFINITY && near[i].body.index == 0);
			}
		}
		// What the poses share is checked before any answer: nothing
		// written, whatever fails later.
		imp_query_filter f = imp_default_query_filter();
		f.ignore = gone;
		memset(any, UNWRITTEN, sizeof any);
		for (int i = 0; i < BATCH; ++i)
			near[i].distance = 42.0;
		assert_int_equal(imp_world_overlap_any_batch2(w, mixed, poses, BATCH, &f, any), IMP_ERR_BAD_ID);
		assert_int_equal(imp_world_nearest_batch2(w, mixed, poses, BATCH, NAN, NULL, near), IMP_ERR_NOT_FINITE);
		answer_bytes(any, bytes);
		for (int i = 0; i < BATCH; ++i)
			assert_true(bytes[i] == UNWRITTEN && near[i].distance == 42.0);
		imp_world_destroy(w);
	}
	imp_shape_destroy(mixed);
	imp_shape_destroy(box);
}

/// The same batches with every pose unturned: answered, so the answers the
/// test above sees unwritten are false (no body near) when written.
static void test_batch_unturned_answers(void **state)
{
	(void)state;
	imp_shape *mixed, *box;
	assert_int_equal(imp_shape_user2(mixed_off_axes, NULL, 0.0, &mixed), IMP_OK);
	assert_int_equal(imp_shape_box2(1, 1, 0, &box), IMP_OK);
	imp_world *w = make_world(2, 1);
	add2(w, box, IMP_BODY_STATIC, imp_pose2_identity());
	assert_int_equal(imp_world_update(w), IMP_OK);
	static imp_pose2 poses[BATCH];
	static bool any[BATCH];
	for (int i = 0; i < BATCH; ++i) {
		poses[i] = imp_pose2_make(i, 50, 0);
		any[i] = true;
	}
	assert_int_equal(imp_world_overlap_any_batch2(w, mixed, poses, BATCH, NULL, any), IMP_OK);
	for (int i = 0; i < BATCH; ++i)
		assert_false(any[i]);
	imp_world_destroy(w);
	imp_shape_destroy(mixed);
	imp_shape_destroy(box);
}

// ---------------------------------------------------------------------------
// Velocities and target poses.

static void test_motion_out_of_memory(void **state)
{
	(void)state;
	imp_shape *disc, *ball;
	assert_int_equal(imp_shape_circle(V2(0, 0), 0.5, &disc), IMP_OK);
	assert_int_equal(imp_shape_sphere(V3(0, 0, 0), 0.5, &ball), IMP_OK);
	for (int dim = 2; dim <= 3; ++dim) {
		for (int target = 0; target < 2; ++target) {
			counting c = {.fail_at = -1};
			imp_world_def def = imp_default_world_def();
			def.dim = dim;
			def.allocator = counting_allocator(&c);
			imp_world *w = NULL;
			assert_int_equal(imp_world_create(&def, &w), IMP_OK);
			imp_body_def d = imp_default_body_def();
			d.shape = dim == 2 ? (const imp_shape *)disc : ball;
			imp_body_id id;
			assert_int_equal(imp_world_add_body(w, &d, &id), IMP_OK);
			assert_int_equal(imp_world_update(w), IMP_OK);
			uint64_t h = imp_world_state_hash(w);
			// The first motion of the world makes its list of movers.
			c.fail_at = c.calls;
			imp_status st;
			if (target)
				st = dim == 2 ? imp_body_set_target_pose2(w, id, imp_pose2_make(1, 0, 0))
					      : imp_body_set_target_pose3(w, id, imp_pose3_make(V3(1, 0, 0), imp_quat_identity()));
			else
				st = dim == 2 ? imp_body_set_velocity2(w, id, V2(1, 0), 0.5)
					      : imp_body_set_velocity3(w, id, V3(1, 0, 0), V3(0, 0, 0.5));
			assert_int_equal(st, IMP_ERR_OUT_OF_MEMORY);
			assert_true(c.calls > c.fail_at);
			c.fail_at = -1;
			assert_true(imp_world_state_hash(w) == h);
			// Nothing moves in a step: the motion was not set.
			assert_int_equal(imp_world_step(w, 1.0, NULL), IMP_OK);
			assert_int_equal(imp_world_get_step_stats(w).moving, 0);
			imp_vec3 v = V3(7, 7, 7), av = V3(7, 7, 7);
			if (dim == 2) {
				imp_vec2 v2;
				double a2;
				assert_int_equal(imp_body_get_velocity2(w, id, &v2, &a2), IMP_OK);
				v = V3(v2.x, v2.y, 0);
				av = V3(0, 0, a2);
			} else {
				assert_int_equal(imp_body_get_velocity3(w, id, &v, &av), IMP_OK);
			}
			assert_true(v.x == 0 && v.y == 0 && v.z == 0 && av.x == 0 && av.y == 0 && av.z == 0);
			// With memory, the same call is taken.
			if (target)
				st = dim == 2 ? imp_body_set_target_pose2(w, id, imp_pose2_make(1, 0, 0))
					      : imp_body_set_target_pose3(w, id, imp_pose3_make(V3(1, 0, 0), imp_quat_identity()));
			else
				st = dim == 2 ? imp_body_set_velocity2(w, id, V2(1, 0), 0.5)
					      : imp_body_set_velocity3(w, id, V3(1, 0, 0), V3(0, 0, 0.5));
			assert_int_equal(st, IMP_OK);
			assert_int_equal(imp_world_step(w, 1.0, NULL), IMP_OK);
			assert_int_equal(imp_world_get_step_stats(w).moving, 1);
			imp_world_destroy(w);
			assert_int_equal(c.live, 0);
		}
	}
	imp_shape_destroy(disc);
	imp_shape_destroy(ball);
}

typedef struct callback_velocity {
	imp_world *w;
	imp_body_id mover;
	int calls;
	imp_status too_far, kept, back;
	imp_vec2 v_after;
} callback_velocity;

static void far_velocity_on_contact(const imp_contact_event *e, void *user)
{
	(void)e;
	callback_velocity *c = user;
	if (c->calls++ > 0)
		return;
	// 1e150 is a velocity within range, but over the 9 units of time left
	// the body would travel 9e150.
	c->too_far = imp_body_set_velocity2(c->w, c->mover, V2(IMP_MAX_COORDINATE, 0), 0.0);
	double a;
	c->kept = imp_body_get_velocity2(c->w, c->mover, &c->v_after, &a);
	c->back = imp_body_set_velocity2(c->w, c->mover, V2(-1, 0), 0.0);
}

static void test_velocity_path_in_step(void **state)
{
	(void)state;
	imp_shape *disc;
	assert_int_equal(imp_shape_circle(V2(0, 0), 1.0, &disc), IMP_OK);
	imp_world *w = make_world(2, 1);
	imp_body_id mover = add2(w, disc, IMP_BODY_DYNAMIC, imp_pose2_identity());
	add2(w, disc, IMP_BODY_STATIC, imp_pose2_make(3, 0, 0));
	assert_int_equal(imp_body_set_velocity2(w, mover, V2(1, 0), 0.0), IMP_OK);
	callback_velocity c = {.w = w, .mover = mover, .v_after = V2(7, 7)};
	imp_step_opts o = imp_default_step_opts();
	o.on_contact = far_velocity_on_contact;
	o.user = &c;
	assert_int_equal(imp_world_step(w, 10.0, &o), IMP_OK);
	assert_true(c.calls >= 1);
	assert_int_equal(c.too_far, IMP_ERR_OUT_OF_RANGE);
	assert_int_equal(c.kept, IMP_OK);
	assert_true(c.v_after.x == 1.0 && c.v_after.y == 0.0);
	assert_int_equal(c.back, IMP_OK);
	// It turned back at the contact (t about 1): it ends near x = 1 - 9.
	imp_pose2 p;
	assert_int_equal(imp_body_get_pose2(w, mover, &p), IMP_OK);
	assert_true(fabs(p.p.x - (-8.0)) < 1e-3);
	imp_world_destroy(w);
	imp_shape_destroy(disc);
}

typedef struct inside_calls {
	imp_world *w;
	imp_body_id body;
	int calls;
	imp_status target, velocity;
} inside_calls;

/// Inside a callback: a target pose (refused) and then a velocity.
static void try_target_and_velocity(inside_calls *c, imp_vec2 velocity)
{
	c->calls++;
	c->target = imp_body_set_target_pose2(c->w, c->body, imp_pose2_make(5, 5, 0));
	c->velocity = imp_body_set_velocity2(c->w, c->body, velocity, 0.0);
}

static bool target_in_pair_walk(imp_body_id a, imp_body_id b, void *user)
{
	(void)a;
	(void)b;
	try_target_and_velocity(user, V2(1, 0));
	return false;
}

static bool target_in_query(imp_body_id id, void *user)
{
	(void)id;
	try_target_and_velocity(user, V2(0, 0));
	return false;
}

static void test_target_inside_callbacks(void **state)
{
	(void)state;
	imp_shape *disc;
	assert_int_equal(imp_shape_circle(V2(0, 0), 1.0, &disc), IMP_OK);
	imp_world *w = make_world(2, 1);
	imp_body_id a = add2(w, disc, IMP_BODY_DYNAMIC, imp_pose2_identity());
	add2(w, disc, IMP_BODY_DYNAMIC, imp_pose2_make(1, 0, 0));
	assert_int_equal(imp_body_set_velocity2(w, a, V2(1, 0), 0.0), IMP_OK);
	assert_int_equal(imp_world_update(w), IMP_OK);
	uint64_t h = imp_world_state_hash(w);
	// Inside the pair walk: a target pose is refused; a velocity is taken
	// (the one it has: nothing changes).
	inside_calls c = {.w = w, .body = a};
	assert_int_equal(imp_world_for_each_pair(w, target_in_pair_walk, &c), IMP_OK);
	assert_int_equal(c.calls, 1);
	assert_int_equal(c.target, IMP_ERR_BUSY);
	assert_int_equal(c.velocity, IMP_OK);
	assert_true(imp_world_state_hash(w) == h);
	// Inside a query: both refused.
	c = (inside_calls){.w = w, .body = a};
	assert_int_equal(imp_world_overlap_shape2(w, disc, imp_pose2_identity(), NULL, target_in_query, &c), IMP_OK);
	assert_int_equal(c.calls, 1);
	assert_int_equal(c.target, IMP_ERR_BUSY);
	assert_int_equal(c.velocity, IMP_ERR_BUSY);
	assert_true(imp_world_state_hash(w) == h);
	imp_vec2 v;
	assert_int_equal(imp_body_get_velocity2(w, a, &v, NULL), IMP_OK);
	assert_true(v.x == 1.0 && v.y == 0.0);
	imp_world_destroy(w);
	imp_shape_destroy(disc);
}

// ---------------------------------------------------------------------------
// Distances below zero, a ray's `ignore`.

typedef struct hits {
	int n;
	double first;
} hits;

static double collect(const imp_query_result *r, void *user)
{
	hits *h = user;
	if (h->n++ == 0)
		h->first = r->distance;
	return INFINITY;
}

static void test_negative_distance_bounds(void **state)
{
	(void)state;
	imp_shape *box;
	assert_int_equal(imp_shape_box2(1, 1, 0, &box), IMP_OK);
	imp_world *w = make_world(2, 1);
	imp_body_id a = add2(w, box, IMP_BODY_STATIC, imp_pose2_identity());
	assert_int_equal(imp_world_update(w), IMP_OK);
	imp_pose2 at = imp_pose2_make(1.5, 0, 0); // overlapping the body by 0.5
	hits h = {0, 0.0};
	assert_int_equal(imp_world_query_distance2(w, box, at, -0.25, NULL, collect, &h), IMP_OK);
	assert_int_equal(h.n, 1);
	assert_true(fabs(h.first + 0.5) < 1e-12);
	h = (hits){0, 0.0};
	assert_int_equal(imp_world_query_distance2(w, box, at, -1.0, NULL, collect, &h), IMP_OK);
	assert_int_equal(h.n, 0);
	assert_int_equal(imp_world_query_distance2(w, box, at, -INFINITY, NULL, collect, &h), IMP_ERR_NOT_FINITE);
	assert_int_equal(h.n, 0);
	imp_query_result r;
	assert_int_equal(imp_world_nearest2(w, box, at, -0.25, NULL, &r), IMP_OK);
	assert_true(imp_body_id_equal(r.body, a) && fabs(r.distance + 0.5) < 1e-12);
	assert_int_equal(imp_world_nearest2(w, box, at, -1.0, NULL, &r), IMP_OK);
	assert_true(imp_body_id_is_null(r.body) && r.distance == INFINITY);
	imp_world_destroy(w);
	imp_shape_destroy(box);
}

static bool ray_never(const imp_ray_hit *hit, void *user)
{
	(void)hit;
	++*(int *)user;
	return true;
}

static void test_ray_bad_ignore(void **state)
{
	(void)state;
	imp_shape *box, *cube;
	assert_int_equal(imp_shape_box2(1, 1, 0, &box), IMP_OK);
	assert_int_equal(imp_shape_box3(1, 1, 1, 0, &cube), IMP_OK);
	imp_world *w2 = make_world(2, 1), *w3 = make_world(3, 1);
	add2(w2, box, IMP_BODY_STATIC, imp_pose2_identity());
	imp_body_id gone = add2(w2, box, IMP_BODY_STATIC, imp_pose2_make(5, 0, 0));
	assert_int_equal(imp_world_remove_body(w2, gone), IMP_OK);
	imp_body_def d = imp_default_body_def();
	d.shape = cube;
	imp_body_id live3;
	assert_int_equal(imp_world_add_body(w3, &d, &live3), IMP_OK);
	imp_query_filter f = imp_default_query_filter();
	f.ignore = gone;
	imp_ray_hit hit = {.t = 42.0};
	int calls = 0;
	assert_int_equal(imp_world_ray_cast2(w2, V2(-5, 0), V2(5, 0), &f, &hit), IMP_ERR_BAD_ID);
	assert_int_equal(imp_world_ray_cast_all2(w2, V2(-5, 0), V2(5, 0), &f, ray_never, &calls), IMP_ERR_BAD_ID);
	// Another world's id.
	f.ignore = live3;
	assert_int_equal(imp_world_ray_cast2(w2, V2(-5, 0), V2(5, 0), &f, &hit), IMP_ERR_BAD_ID);
	f.ignore = gone;
	assert_int_equal(imp_world_ray_cast3(w3, V3(-5, 0, 0), V3(5, 0, 0), &f, &hit), IMP_ERR_BAD_ID);
	assert_int_equal(imp_world_ray_cast_all3(w3, V3(-5, 0, 0), V3(5, 0, 0), &f, ray_never, &calls), IMP_ERR_BAD_ID);
	assert_true(hit.t == 42.0 && calls == 0);
	// A live id is ignored: the 3D ray meets nothing else.
	f.ignore = live3;
	assert_int_equal(imp_world_ray_cast3(w3, V3(-5, 0, 0), V3(5, 0, 0), &f, &hit), IMP_OK);
	assert_true(imp_body_id_is_null(hit.body) && hit.t == 1.0);
	imp_world_destroy(w2);
	imp_world_destroy(w3);
	imp_shape_destroy(box);
	imp_shape_destroy(cube);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_constructor_ranges),
		cmocka_unit_test(test_composed_pose_range),
		cmocka_unit_test(test_draw_errors),
		cmocka_unit_test(test_user_box_in_world),
		cmocka_unit_test(test_batch_errors_while_answering),
		cmocka_unit_test(test_batch_unturned_answers),
		cmocka_unit_test(test_motion_out_of_memory),
		cmocka_unit_test(test_velocity_path_in_step),
		cmocka_unit_test(test_target_inside_callbacks),
		cmocka_unit_test(test_negative_distance_bounds),
		cmocka_unit_test(test_ray_bad_ignore),
	};
	return cmocka_run_group_tests(tests, bad_input_setup, NULL);
}
