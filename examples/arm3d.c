// SPDX-License-Identifier: MIT
// A robot arm's clearance and motion checks against a 3D scene.
//
// A 3-link arm of capsules (a base turning about z, then two pitch joints)
// moves through a straight joint-space path among static boxes and
// spheres. For each configuration the program asks the world for the
// nearest obstacle of each link (imp_world_nearest3, the link as a query
// shape: the arm is not in the world), and checks the motion of each link
// to the next configuration (imp_world_cast_shape3). Joint steps are small
// (0.02 rad), so a link's own straight-and-turning motion between two
// configurations stays within a few millimetres of the arm's true path;
// a planner would widen the check by that bound. It prints the clearance
// profile and writes an SVG of the scene seen from an angle, with the arm
// at every tenth configuration coloured by clearance and the witness
// segments to the nearest obstacles.
//
// usage: arm3d [--smoke] [--out FILE.svg]
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <impact/impact.h>

#define LINKS 3

static const double k_length[LINKS] = {0.6, 0.8, 0.6}; ///< link lengths (m)
static const double k_radius = 0.06;

/// The arm's link poses for joint angles q: link 0 stands up from the base
/// (turned by q[0] about z), links 1 and 2 pitch by q[1], q[2]. Each
/// capsule lies along its local z from 0 to its length.
static void arm_poses(const double q[LINKS], imp_pose3 out[LINKS])
{
	imp_quat yaw = imp_quat_from_axis_angle(imp_vec3_make(0, 0, 1), q[0]);
	imp_vec3 base = imp_vec3_make(0, 0, 0.1);
	out[0] = (imp_pose3){base, yaw};
	imp_vec3 tip = imp_vec3_add(base, imp_quat_rotate(yaw, imp_vec3_make(0, 0, k_length[0])));
	double pitch = 0.0;
	for (int i = 1; i < LINKS; i++) {
		pitch += q[i];
		imp_quat r = imp_quat_mul(yaw, imp_quat_from_axis_angle(imp_vec3_make(0, 1, 0), pitch));
		out[i] = (imp_pose3){tip, r};
		tip = imp_vec3_add(tip, imp_quat_rotate(r, imp_vec3_make(0, 0, k_length[i])));
	}
}

static imp_color clearance_color(double d)
{
	if (d <= 0.0)
		return imp_color_make(0.85f, 0.1f, 0.1f, 1.0f);
	double t = fmin(d / 0.2, 1.0);
	return imp_color_make((float)(0.9 - 0.7 * t), (float)(0.3 + 0.5 * t), 0.2f, 1.0f);
}

int main(int argc, char **argv)
{
	bool smoke = false;
	const char *out = "arm3d.svg";
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--smoke"))
			smoke = true;
		else if (!strcmp(argv[i], "--out") && i + 1 < argc)
			out = argv[++i];
		else {
			fprintf(stderr, "usage: arm3d [--smoke] [--out FILE.svg]\n");
			return 2;
		}
	}
	imp_world_def def = imp_default_world_def();
	def.dim = 3;
	imp_world *w;
	if (imp_world_create(&def, &w) != IMP_OK)
		return 1;
	// The scene: a table, a shelf post, boxes and spheres around the arm.
	enum { OBSTACLES = 7 };
	imp_shape *shapes[OBSTACLES];
	imp_pose3 where[OBSTACLES];
	imp_quat id = imp_quat_identity();
	imp_shape_box3(0.5, 0.4, 0.05, 0.0, &shapes[0]);
	where[0] = (imp_pose3){imp_vec3_make(0.9, 0.0, 0.35), id};
	imp_shape_box3(0.05, 0.05, 0.6, 0.0, &shapes[1]);
	where[1] = (imp_pose3){imp_vec3_make(0.2, 0.9, 0.6), id};
	imp_shape_sphere(imp_vec3_make(0, 0, 0), 0.15, &shapes[2]);
	where[2] = (imp_pose3){imp_vec3_make(0.55, 0.55, 1.1), id};
	imp_shape_sphere(imp_vec3_make(0, 0, 0), 0.1, &shapes[3]);
	where[3] = (imp_pose3){imp_vec3_make(-0.5, 0.6, 0.9), id};
	imp_shape_box3(0.15, 0.15, 0.15, 0.02, &shapes[4]);
	where[4] = (imp_pose3){imp_vec3_make(0.8, 0.1, 0.55), imp_quat_from_axis_angle(imp_vec3_make(0, 0, 1), 0.5)};
	imp_shape_box3(0.3, 0.05, 0.3, 0.0, &shapes[5]);
	where[5] = (imp_pose3){imp_vec3_make(-0.2, -0.7, 0.8), id};
	imp_shape_sphere(imp_vec3_make(0, 0, 0), 0.12, &shapes[6]);
	where[6] = (imp_pose3){imp_vec3_make(0.1, 0.55, 1.5), id};
	for (int i = 0; i < OBSTACLES; i++) {
		imp_body_def d = imp_default_body_def();
		d.type = IMP_BODY_STATIC;
		d.shape = shapes[i];
		d.pose3 = where[i];
		imp_body_id body;
		if (shapes[i] == NULL || imp_world_add_body(w, &d, &body) != IMP_OK)
			return 1;
	}
	imp_world_update(w);
	imp_shape *link[LINKS];
	for (int i = 0; i < LINKS; i++)
		if (imp_shape_capsule3(imp_vec3_make(0, 0, 0), imp_vec3_make(0, 0, k_length[i]), k_radius, &link[i]) != IMP_OK)
			return 1;

	// The path: from reaching left and high to reaching forward, low over
	// the table, in steps of at most 0.02 rad per joint.
	const double q0[LINKS] = {2.2, 0.3, 0.9}, q1[LINKS] = {-0.3, 1.25, 0.9};
	int steps = smoke ? 20 : 160;
	imp_svg *svg;
	imp_aabb2 view = {{-1.6, -0.6}, {1.6, 2.0}};
	if (imp_svg_open(out, view, 900, &svg) != IMP_OK)
		return 1;
	imp_debug_draw draw = imp_svg_draw(svg);
	// Looking from the front right and above: turn the world about z, then
	// tip it towards the viewer.
	draw.view = imp_quat_mul(imp_quat_from_axis_angle(imp_vec3_make(1, 0, 0), -1.15),
				 imp_quat_from_axis_angle(imp_vec3_make(0, 0, 1), -0.6));
	imp_world_draw(w, &draw);
	double min_clearance = INFINITY;
	int first_blocked = -1, blocked_link = -1;
	double blocked_t = 1.0;
	printf("step   clearance  link  nearest body\n");
	for (int k = 0; k <= steps; k++) {
		double u = (double)k / steps, q[LINKS], qn[LINKS];
		for (int j = 0; j < LINKS; j++) {
			q[j] = q0[j] + u * (q1[j] - q0[j]);
			qn[j] = q0[j] + fmin(1.0, u + 1.0 / steps) * (q1[j] - q0[j]);
		}
		imp_pose3 poses[LINKS], next[LINKS];
		arm_poses(q, poses);
		arm_poses(qn, next);
		double best = INFINITY;
		int best_link = -1;
		imp_query_result near[LINKS];
		for (int i = 0; i < LINKS; i++) {
			if (imp_world_nearest3(w, link[i], poses[i], INFINITY, NULL, &near[i]) != IMP_OK)
				return 1;
			if (near[i].distance < best) {
				best = near[i].distance;
				best_link = i;
			}
			if (k < steps && first_blocked < 0) {
				imp_cast_hit hit;
				if (imp_world_cast_shape3(w, link[i], poses[i], next[i], NULL, &hit) != IMP_OK)
					return 1;
				if (hit.body.index != 0) {
					first_blocked = k;
					blocked_link = i;
					blocked_t = hit.t;
				}
			}
		}
		min_clearance = fmin(min_clearance, best);
		if (k % (steps / 10) == 0) {
			printf("%4d %11.4f %5d  %u\n", k, best, best_link, near[best_link].body.index);
			for (int i = 0; i < LINKS; i++) {
				imp_draw_shape3(&draw, link[i], poses[i], clearance_color(near[i].distance));
				imp_draw_query_result(&draw, &near[i], imp_color_make(0.2f, 0.2f, 0.8f, 0.9f));
			}
		}
	}
	if (imp_svg_close(svg) != IMP_OK)
		return 1;
	printf("\n%d configurations: smallest clearance %.4f m\n", steps + 1, min_clearance);
	if (first_blocked >= 0)
		printf("first blocked motion: link %d, from step %d to %d, at t = %.4f of that step\n", blocked_link,
		       first_blocked, first_blocked + 1, blocked_t);
	else
		printf("every motion between configurations is free\n");
	printf("picture: %s\n", out);
	for (int i = 0; i < LINKS; i++)
		imp_shape_destroy(link[i]);
	imp_world_destroy(w);
	for (int i = 0; i < OBSTACLES; i++)
		imp_shape_destroy(shapes[i]);
	return 0;
}
