// SPDX-License-Identifier: MIT
// The debug draw and the SVG writer: what each shape kind is drawn as, that
// the outlines lie on the shapes (each drawn point at distance 0 from the
// shape, by the narrow phase), the 3D projection, a world drawn body by
// body, query answers, the SVG file's frame, and every error path.
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include <impact/impact.h>

typedef struct record {
	int polygons, circles, capsules, segments, points, boxes, texts;
	imp_vec2 last[64];
	int last_count;
	double last_radius;
} record;

static void rec_polygon(const imp_vec2 *p, int n, double radius, imp_color c, void *user)
{
	(void)c;
	record *r = user;
	r->polygons++;
	r->last_count = n < 64 ? n : 64;
	memcpy(r->last, p, (size_t)r->last_count * sizeof *p);
	r->last_radius = radius;
}

static void rec_circle(imp_vec2 p, double radius, imp_color c, void *user)
{
	(void)c;
	record *r = user;
	r->circles++;
	r->last[0] = p;
	r->last_count = 1;
	r->last_radius = radius;
}

static void rec_capsule(imp_vec2 a, imp_vec2 b, double radius, imp_color c, void *user)
{
	(void)c;
	record *r = user;
	r->capsules++;
	r->last[0] = a;
	r->last[1] = b;
	r->last_count = 2;
	r->last_radius = radius;
}

static void rec_segment(imp_vec2 a, imp_vec2 b, imp_color c, void *user)
{
	(void)a;
	(void)b;
	(void)c;
	((record *)user)->segments++;
}

static void rec_point(imp_vec2 p, double size, imp_color c, void *user)
{
	(void)p;
	(void)size;
	(void)c;
	((record *)user)->points++;
}

static void rec_aabb(imp_aabb2 b, imp_color c, void *user)
{
	(void)b;
	(void)c;
	((record *)user)->boxes++;
}

static imp_debug_draw recorder(record *r)
{
	memset(r, 0, sizeof *r);
	imp_debug_draw d = imp_default_debug_draw();
	d.polygon = rec_polygon;
	d.circle = rec_circle;
	d.capsule = rec_capsule;
	d.segment = rec_segment;
	d.point = rec_point;
	d.aabb = rec_aabb;
	d.user = r;
	return d;
}

static const imp_color black = {0, 0, 0, 1};

static void test_draw_2d(void **state)
{
	(void)state;
	record r;
	imp_debug_draw d = recorder(&r);
	imp_shape *disc, *cap, *box, *user_like;
	assert_int_equal(imp_shape_circle(imp_vec2_make(0, 0), 0.5, &disc), IMP_OK);
	assert_int_equal(imp_shape_capsule2(imp_vec2_make(-1, 0), imp_vec2_make(1, 0), 0.2, &cap), IMP_OK);
	assert_int_equal(imp_shape_box2(1.0, 0.5, 0.1, &box), IMP_OK);
	imp_pose2 p = imp_pose2_make(3, -2, 0.7);
	assert_int_equal(imp_draw_shape2(&d, disc, p, black), IMP_OK);
	assert_int_equal(r.circles, 1);
	assert_true(fabs(r.last[0].x - 3) < 1e-12 && fabs(r.last[0].y + 2) < 1e-12 && r.last_radius == 0.5);
	assert_int_equal(imp_draw_shape2(&d, cap, p, black), IMP_OK);
	assert_int_equal(r.capsules, 1);
	assert_int_equal(imp_draw_shape2(&d, box, p, black), IMP_OK);
	assert_int_equal(r.polygons, 1);
	assert_int_equal(r.last_count, 4);
	assert_true(r.last_radius == 0.1);
	// The corners drawn are the box's core corners at the pose.
	for (int i = 0; i < 4; i++) {
		imp_vec2 local = imp_pose2_apply_inv(p, r.last[i]);
		assert_true(fabs(fabs(local.x) - 1.0) < 1e-12 && fabs(fabs(local.y) - 0.5) < 1e-12);
	}
	// Errors.
	assert_int_equal(imp_draw_shape2(NULL, box, p, black), IMP_ERR_NULL_ARGUMENT);
	assert_int_equal(imp_draw_shape2(&d, NULL, p, black), IMP_ERR_NULL_ARGUMENT);
	assert_int_equal(imp_draw_shape2(&d, box, imp_pose2_make(NAN, 0, 0), black), IMP_ERR_NOT_FINITE);
	imp_shape *ball;
	assert_int_equal(imp_shape_sphere(imp_vec3_make(0, 0, 0), 1.0, &ball), IMP_OK);
	assert_int_equal(imp_draw_shape2(&d, ball, p, black), IMP_ERR_DIMENSION_MISMATCH);
	// A polygon of more vertices than the drawer's buffer: its outline.
	imp_vec2 ring[100];
	for (int i = 0; i < 100; i++)
		ring[i] = imp_vec2_make(cos(0.0628318 * i), sin(0.0628318 * i));
	assert_int_equal(imp_shape_polygon(ring, 100, 0.0, &user_like), IMP_OK);
	int before = r.polygons;
	assert_int_equal(imp_draw_shape2(&d, user_like, p, black), IMP_OK);
	assert_int_equal(r.polygons, before + 1);
	assert_int_equal(r.last_count, 64);
	for (int i = 0; i < r.last_count; i++) {
		imp_vec2 local = imp_pose2_apply_inv(p, r.last[i]);
		assert_true(fabs(hypot(local.x, local.y) - 1.0) < 1e-2);
	}
	imp_shape_destroy(disc);
	imp_shape_destroy(cap);
	imp_shape_destroy(box);
	imp_shape_destroy(user_like);
	imp_shape_destroy(ball);
}

static void test_draw_3d(void **state)
{
	(void)state;
	record r;
	imp_debug_draw d = recorder(&r);
	imp_shape *ball, *box, *cyl;
	assert_int_equal(imp_shape_sphere(imp_vec3_make(0, 0, 0), 0.5, &ball), IMP_OK);
	assert_int_equal(imp_shape_box3(1.0, 0.5, 0.25, 0.0, &box), IMP_OK);
	assert_int_equal(imp_shape_cylinder(0.5, 0.3, 0.0, &cyl), IMP_OK);
	imp_pose3 p = {imp_vec3_make(1, 2, 3), imp_quat_from_axis_angle(imp_vec3_make(0, 0, 1), 0.4)};
	assert_int_equal(imp_draw_shape3(&d, ball, p, black), IMP_OK);
	assert_int_equal(r.circles, 1);
	assert_true(fabs(r.last[0].x - 1) < 1e-12 && fabs(r.last[0].y - 2) < 1e-12 && fabs(r.last_radius - 0.5) < 1e-12);
	// Seen from above (identity view), the box's outline is its x-y
	// rectangle turned by 0.4: every point on its border.
	assert_int_equal(imp_draw_shape3(&d, box, p, black), IMP_OK);
	assert_int_equal(r.last_count, 64);
	for (int i = 0; i < 64; i++) {
		double x = r.last[i].x - 1, y = r.last[i].y - 2, c = cos(-0.4), s = sin(-0.4);
		double lx = c * x - s * y, ly = s * x + c * y;
		assert_true(fabs(fabs(lx) - 1.0) < 1e-9 || fabs(fabs(ly) - 0.5) < 1e-9);
		assert_true(fabs(lx) <= 1.0 + 1e-9 && fabs(ly) <= 0.5 + 1e-9);
	}
	// Looking along x (the view turns x onto -z), the cylinder (axis z)
	// shows its side: a rectangle 0.6 wide in y and 1.0 high in z.
	d.view = imp_quat_from_axis_angle(imp_vec3_make(0, 1, 0), 1.5707963267948966);
	assert_int_equal(imp_draw_shape3(&d, cyl, (imp_pose3){imp_vec3_make(0, 0, 0), imp_quat_identity()}, black), IMP_OK);
	double lo_x = INFINITY, hi_x = -INFINITY, lo_y = INFINITY, hi_y = -INFINITY;
	for (int i = 0; i < r.last_count; i++) {
		lo_x = fmin(lo_x, r.last[i].x);
		hi_x = fmax(hi_x, r.last[i].x);
		lo_y = fmin(lo_y, r.last[i].y);
		hi_y = fmax(hi_y, r.last[i].y);
	}
	assert_true(fabs(hi_x - lo_x - 1.0) < 1e-9 && fabs(hi_y - lo_y - 0.6) < 1e-9);
	assert_int_equal(imp_draw_shape3(&d, box, (imp_pose3){imp_vec3_make(0, 0, 0), {0, 0, 0, 2}}, black),
			 IMP_ERR_BAD_ROTATION);
	imp_vec2 plain = imp_draw_project(NULL, imp_vec3_make(1, 2, 3)); // no draw: the identity view
	assert_true(plain.x == 1 && plain.y == 2);
	imp_shape_destroy(ball);
	imp_shape_destroy(box);
	imp_shape_destroy(cyl);
}

/// Non-convex shapes: a chain's segments as capsules on its points, a
/// compound's children, a mesh's triangles as edges (a degenerate one as
/// its segment or point), a height field's surface triangles.
static void test_draw_nonconvex(void **state)
{
	(void)state;
	record r;
	imp_debug_draw d = recorder(&r);
	imp_vec2 pts[4] = {{0, 0}, {1, 0}, {1, 1}, {0, 1}};
	imp_shape *chain, *disc, *compound;
	assert_int_equal(imp_shape_chain(pts, 4, true, 0.1, &chain), IMP_OK);
	imp_pose2 at = imp_pose2_make(5, 0, 0.5);
	assert_int_equal(imp_draw_shape2(&d, chain, at, black), IMP_OK);
	assert_int_equal(r.capsules, 4);
	// The last segment joins point 3 to point 0, placed at the pose.
	imp_vec2 p3 = imp_pose2_apply(at, pts[3]), p0 = imp_pose2_apply(at, pts[0]);
	assert_true(fabs(r.last[0].x - p3.x) < 1e-12 && fabs(r.last[1].y - p0.y) < 1e-12 && r.last_radius == 0.1);
	assert_int_equal(imp_shape_circle(imp_vec2_make(0, 0), 0.5, &disc), IMP_OK);
	const imp_shape *kids[2] = {disc, disc};
	imp_pose2 poses[2] = {imp_pose2_make(0, 0, 0), imp_pose2_make(2, 0, 0)};
	assert_int_equal(imp_shape_compound2(kids, poses, 2, &compound), IMP_OK);
	assert_int_equal(imp_draw_shape2(&d, compound, imp_pose2_make(0, 1, 0), black), IMP_OK);
	assert_int_equal(r.circles, 2);
	assert_true(fabs(r.last[0].x - 2) < 1e-12 && fabs(r.last[0].y - 1) < 1e-12);

	imp_vec3 v[4] = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
	int32_t tris[9] = {0, 1, 2, 0, 0, 3, 2, 2, 2}; // a triangle, a segment, a point
	imp_shape *mesh, *field;
	assert_int_equal(imp_shape_mesh(v, 4, tris, 3, 0.0, &mesh), IMP_OK);
	assert_int_equal(imp_draw_shape3(&d, mesh, (imp_pose3){imp_vec3_make(0, 0, 0), imp_quat_identity()}, black), IMP_OK);
	assert_int_equal(r.segments, 4);
	assert_int_equal(r.points, 1);
	double h[6] = {1, 2, 3, 1, 2, 3};
	assert_int_equal(imp_shape_heightfield(h, 2, 3, 1, 1, 0, 0, &field), IMP_OK);
	assert_int_equal(imp_draw_shape3(&d, field, (imp_pose3){imp_vec3_make(0, 0, 0), imp_quat_identity()}, black), IMP_OK);
	assert_int_equal(r.segments, 4 + 4 * 3);
	assert_int_equal(imp_draw_shape2(&d, mesh, imp_pose2_make(0, 0, 0), black), IMP_ERR_DIMENSION_MISMATCH);
	imp_shape_destroy(field);
	imp_shape_destroy(mesh);
	imp_shape_destroy(compound);
	imp_shape_destroy(disc);
	imp_shape_destroy(chain);
}

static void test_draw_world(void **state)
{
	(void)state;
	record r;
	imp_debug_draw d = recorder(&r);
	d.draw_aabbs = true;
	imp_world_def def = imp_default_world_def();
	def.dim = 2;
	imp_world *w;
	assert_int_equal(imp_world_create(&def, &w), IMP_OK);
	imp_shape *box;
	assert_int_equal(imp_shape_box2(0.5, 0.5, 0.0, &box), IMP_OK);
	imp_body_def bd = imp_default_body_def();
	bd.shape = box;
	imp_body_id ids[3];
	for (int i = 0; i < 3; i++) {
		bd.pose2 = imp_pose2_make(2.0 * i, 0, 0);
		assert_int_equal(imp_world_add_body(w, &bd, &ids[i]), IMP_OK);
	}
	assert_int_equal(imp_world_remove_body(w, ids[1]), IMP_OK);
	assert_int_equal(imp_world_draw(w, &d), IMP_OK);
	assert_int_equal(r.polygons, 2);
	assert_int_equal(r.boxes, 2);
	assert_int_equal(imp_world_draw(NULL, &d), IMP_ERR_NULL_ARGUMENT);
	assert_int_equal(imp_world_draw(w, NULL), IMP_ERR_NULL_ARGUMENT);
	imp_query_result q;
	assert_int_equal(imp_world_nearest2(w, box, imp_pose2_make(1.0, 3.0, 0), INFINITY, NULL, &q), IMP_OK);
	imp_draw_query_result(&d, &q, black);
	assert_int_equal(r.segments, 1);
	assert_int_equal(r.points, 2);
	imp_draw_query_result(&d, NULL, black); // ignored
	imp_world_destroy(w);
	imp_shape_destroy(box);
}

static void test_svg(void **state)
{
	(void)state;
	char path[] = "test_draw_svg_XXXXXX";
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	imp_svg *svg = NULL;
	imp_aabb2 view = {{-1, -1}, {3, 1}};
	assert_int_equal(imp_svg_open(NULL, view, 400, &svg), IMP_ERR_NULL_ARGUMENT);
	assert_int_equal(imp_svg_open(path, view, 400, NULL), IMP_ERR_NULL_ARGUMENT);
	assert_int_equal(imp_svg_open(path, (imp_aabb2){{0, 0}, {0, 1}}, 400, &svg), IMP_ERR_BAD_OPTIONS);
	assert_int_equal(imp_svg_open(path, (imp_aabb2){{0, 0}, {NAN, 1}}, 400, &svg), IMP_ERR_BAD_OPTIONS);
	assert_int_equal(imp_svg_open(path, view, 8, &svg), IMP_ERR_BAD_OPTIONS);
	assert_int_equal(imp_svg_open(path, (imp_aabb2){{0, 0}, {1, 1e7}}, 1000, &svg), IMP_ERR_BAD_OPTIONS);
	assert_int_equal(imp_svg_open(path, (imp_aabb2){{0, 0}, {1e-310, 1}}, 1000, &svg), IMP_ERR_BAD_OPTIONS);
	assert_int_equal(imp_svg_open(path, (imp_aabb2){{0, 0}, {1e7, 1}}, 1000, &svg), IMP_OK); // 1 pixel high
	assert_int_equal(imp_svg_close(svg), IMP_OK);
	svg = NULL;
	assert_int_equal(imp_svg_open("/nonexistent-dir/x.svg", view, 400, &svg), IMP_ERR_IO);
	assert_null(svg);
	// A file that opens but cannot be written (Linux's /dev/full: every
	// write fails with ENOSPC): the close reports it.
	if (access("/dev/full", W_OK) == 0) {
		assert_int_equal(imp_svg_open("/dev/full", view, 400, &svg), IMP_OK);
		imp_debug_draw full = imp_svg_draw(svg);
		for (int i = 0; i < 1000; ++i)
			full.text(imp_vec2_make(0, 0), "a line that fills the stream's buffer", black, full.user);
		assert_int_equal(imp_svg_close(svg), IMP_ERR_IO);
		svg = NULL;
	}
	assert_int_equal(imp_svg_open(path, view, 400, &svg), IMP_OK);
	imp_debug_draw d = imp_svg_draw(svg);
	imp_shape *box;
	assert_int_equal(imp_shape_box2(0.5, 0.25, 0.05, &box), IMP_OK);
	assert_int_equal(imp_draw_shape2(&d, box, imp_pose2_make(0, 0, 0.3), black), IMP_OK);
	d.circle(imp_vec2_make(1, 0), 0.3, black, d.user);
	d.capsule(imp_vec2_make(0, 0), imp_vec2_make(1, 1), 0.1, black, d.user);
	d.segment(imp_vec2_make(0, 0), imp_vec2_make(1, 1), black, d.user);
	d.point(imp_vec2_make(0, 0), 0.1, black, d.user);
	d.aabb((imp_aabb2){{0, 0}, {1, 1}}, black, d.user);
	d.text(imp_vec2_make(0, 0), "a < b & c", black, d.user);
	d.polygon(NULL, 3, 0.0, black, d.user); // ignored, no element written
	assert_int_equal(imp_svg_close(svg), IMP_OK);
	assert_int_equal(imp_svg_close(NULL), IMP_OK);
	FILE *f = fdopen(fd, "r");
	assert_non_null(f);
	char buf[8192];
	size_t n = fread(buf, 1, sizeof buf - 1, f);
	buf[n] = 0;
	fclose(f);
	remove(path);
	assert_true(strncmp(buf, "<svg ", 5) == 0);
	assert_non_null(strstr(buf, "width=\"400\" height=\"200\""));
	assert_non_null(strstr(buf, "<polygon "));
	assert_null(strstr(strstr(buf, "<polygon ") + 1, "<polygon ")); // the NULL one wrote nothing
	assert_non_null(strstr(buf, "a &lt; b &amp; c"));
	assert_true(n > 7 && strcmp(buf + n - 7, "</svg>\n") == 0);
	imp_shape_destroy(box);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_draw_2d),
		cmocka_unit_test(test_draw_3d),
		cmocka_unit_test(test_draw_nonconvex),
		cmocka_unit_test(test_draw_world),
		cmocka_unit_test(test_svg),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
