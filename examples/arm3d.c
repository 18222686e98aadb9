// SPDX-License-Identifier: MIT
// A robot arm of triangle meshes: its clearance, its motions and its own
// collisions, checked against a 3D scene.
//
// The arm has the UR10's kinematic chain (six revolute joints; the link
// frames and joint axes of the robot's description: a base, a shoulder
// turning about z, then the shoulder, elbow and three wrist joints), and
// each link's shape is a triangle mesh (imp_shape_mesh): read from the
// seven STL files named on the command line, in the order base, shoulder,
// upper arm, forearm, wrist 1, wrist 2, wrist 3 (the UR10's collision
// meshes fit), or, with none, a closed tube the program makes to fill each
// link's extent. It moves along a straight joint-space path among static
// boxes and spheres. For each configuration the program asks the world for
// the nearest obstacle of each moving link (imp_world_nearest3, the link's
// mesh as the query shape: the arm is not in the world), checks the motion
// of each link to the next configuration (imp_world_cast_shape3), and
// checks the arm against itself: the distance between each two links two
// or more joints apart (imp_distance3, mesh against mesh; neighbours touch
// at their joint). It prints the clearance profile and writes an SVG of
// the scene seen from an angle, with the arm at a few configurations (its
// triangles' edges) coloured by clearance and the witness segments to the
// nearest obstacles.
//
// usage: arm3d [--smoke] [--out FILE.svg] [BASE.stl SHOULDER.stl UPPERARM.stl FOREARM.stl WRIST1.stl
//               WRIST2.stl WRIST3.stl]
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <impact/impact.h>

#define LINKS 7 ///< the base and six moving links
#define PI 3.14159265358979323846

/// Joint k (1..6) places link k in link k - 1's frame: a translation, a
/// fixed-axis roll-pitch-yaw turn, then the joint's turn about its axis.
typedef struct joint {
	imp_vec3 origin;
	imp_vec3 rpy;
	imp_vec3 axis;
} joint;

/// The UR10's chain (metres, radians).
static const joint k_joint[LINKS] = {
	{{0, 0, 0}, {0, 0, 0}, {0, 0, 1}},               // the base does not move
	{{0, 0, 0.1273}, {0, 0, 0}, {0, 0, 1}},          // shoulder pan
	{{0, 0.220941, 0}, {0, PI / 2, 0}, {0, 1, 0}},  // shoulder lift
	{{0, -0.1719, 0.612}, {0, 0, 0}, {0, 1, 0}},    // elbow
	{{0, 0, 0.5723}, {0, PI / 2, 0}, {0, 1, 0}},    // wrist 1
	{{0, 0.1149, 0}, {0, 0, 0}, {0, 0, 1}},         // wrist 2
	{{0, 0, 0.1157}, {0, 0, 0}, {0, 1, 0}},         // wrist 3
};

/// Each link's extent in its frame (the UR10's meshes' boxes): the tubes
/// made when no files are given fill them.
static const imp_vec3 k_extent[LINKS][2] = {
	{{-0.075, -0.092, 0.0}, {0.075, 0.075, 0.038}},   {{-0.075, -0.075, -0.089}, {0.075, 0.086, 0.088}},
	{{-0.075, -0.135, -0.074}, {0.075, 0.042, 0.674}}, {{-0.06, -0.069, -0.059}, {0.06, 0.067, 0.619}},
	{{-0.046, 0.061, -0.057}, {0.045, 0.161, 0.062}},  {{-0.046, -0.057, 0.062}, {0.046, 0.062, 0.162}},
	{{-0.045, 0.062, -0.044}, {0.045, 0.092, 0.046}},
};

/// The links' poses for joint angles q[1..6] (q[0] unused).
static void arm_poses(const double q[LINKS], imp_pose3 out[LINKS])
{
	out[0] = imp_pose3_identity();
	for (int k = 1; k < LINKS; k++) {
		const joint *j = &k_joint[k];
		imp_quat r = imp_quat_mul(imp_quat_from_axis_angle(imp_vec3_make(0, 0, 1), j->rpy.z),
					  imp_quat_mul(imp_quat_from_axis_angle(imp_vec3_make(0, 1, 0), j->rpy.y),
						       imp_quat_from_axis_angle(imp_vec3_make(1, 0, 0), j->rpy.x)));
		imp_pose3 place = imp_pose3_make(j->origin, r);
		imp_pose3 turn = imp_pose3_make(imp_vec3_make(0, 0, 0), imp_quat_from_axis_angle(j->axis, q[k]));
		out[k] = imp_pose3_mul(imp_pose3_mul(out[k - 1], place), turn);
		out[k].q = imp_quat_normalize(out[k].q);
	}
}

/// A closed tube of `sides` sides, with its two caps, along the longest
/// side of the box [lo, hi] and as thick as the box's thinner sides allow.
static imp_status tube_mesh(imp_vec3 lo, imp_vec3 hi, int sides, imp_shape **out)
{
	double e[3] = {hi.x - lo.x, hi.y - lo.y, hi.z - lo.z}, c[3] = {0.5 * (lo.x + hi.x), 0.5 * (lo.y + hi.y),
									0.5 * (lo.z + hi.z)};
	int ax = e[0] >= e[1] && e[0] >= e[2] ? 0 : (e[1] >= e[2] ? 1 : 2), u = (ax + 1) % 3, v = (ax + 2) % 3;
	double r = 0.5 * fmin(e[u], e[v]);
	imp_vec3 pts[2 * 64 + 2];
	int32_t tri[3 * 4 * 64];
	int n = 0, t = 0;
	for (int end = 0; end < 2; end++)
		for (int s = 0; s < sides; s++) {
			double p[3], a = 2.0 * PI * s / sides;
			p[ax] = c[ax] + (end ? 0.5 : -0.5) * e[ax];
			p[u] = c[u] + r * cos(a);
			p[v] = c[v] + r * sin(a);
			pts[n++] = imp_vec3_make(p[0], p[1], p[2]);
		}
	for (int end = 0; end < 2; end++) {
		double p[3] = {c[0], c[1], c[2]};
		p[ax] += (end ? 0.5 : -0.5) * e[ax];
		pts[n++] = imp_vec3_make(p[0], p[1], p[2]);
	}
	for (int s = 0; s < sides; s++) {
		int a = s, b = (s + 1) % sides, a2 = sides + s, b2 = sides + (s + 1) % sides;
		int32_t quad[12] = {a, b, b2, a, b2, a2, 2 * sides, b, a, 2 * sides + 1, a2, b2};
		memcpy(tri + t, quad, sizeof quad);
		t += 12;
	}
	return imp_shape_mesh(pts, n, tri, t / 3, 0.0, out);
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
	const char *files[LINKS];
	int nfiles = 0;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--smoke"))
			smoke = true;
		else if (!strcmp(argv[i], "--out") && i + 1 < argc)
			out = argv[++i];
		else if (argv[i][0] != '-' && nfiles < LINKS)
			files[nfiles++] = argv[i];
		else
			nfiles = -1;
	}
	if (nfiles != 0 && nfiles != LINKS) {
		fprintf(stderr, "usage: arm3d [--smoke] [--out FILE.svg] [seven STL files: base shoulder upperarm "
				"forearm wrist1 wrist2 wrist3]\n");
		return 2;
	}
	// The links' meshes.
	imp_shape *link[LINKS] = {NULL};
	for (int k = 0; k < LINKS; k++) {
		int line = 0;
		imp_status st = nfiles ? imp_shape_mesh_from_file_ex(files[k], 0.0, &line, &link[k])
				       : tube_mesh(k_extent[k][0], k_extent[k][1], 24, &link[k]);
		if (st != IMP_OK) {
			fprintf(stderr, "arm3d: link %d (%s): %s", k, nfiles ? files[k] : "made", imp_status_string(st));
			if (line > 0)
				fprintf(stderr, " at line %d", line);
			fprintf(stderr, "\n");
			return 1;
		}
	}
	int triangles = 0;
	for (int k = 0; k < LINKS; k++)
		triangles += imp_shape_face_count(link[k]);
	printf("links: %s, %d triangles in all\n", nfiles ? "read from the STL files" : "tubes made here", triangles);

	imp_world_def def = imp_default_world_def();
	def.dim = 3;
	imp_world *w;
	if (imp_world_create(&def, &w) != IMP_OK)
		return 1;
	// The scene: a table, a post, boxes and spheres around the arm.
	enum { OBSTACLES = 7 };
	imp_shape *shapes[OBSTACLES];
	imp_pose3 where[OBSTACLES];
	imp_quat id = imp_quat_identity();
	imp_shape_box3(0.4, 0.5, 0.03, 0.0, &shapes[0]);
	where[0] = (imp_pose3){imp_vec3_make(0.0, 0.95, 0.25), id};
	imp_shape_box3(0.05, 0.05, 0.7, 0.0, &shapes[1]);
	where[1] = (imp_pose3){imp_vec3_make(0.75, 0.6, 0.7), id};
	imp_shape_sphere(imp_vec3_make(0, 0, 0), 0.15, &shapes[2]);
	where[2] = (imp_pose3){imp_vec3_make(-0.6, 0.7, 1.1), id};
	imp_shape_sphere(imp_vec3_make(0, 0, 0), 0.1, &shapes[3]);
	where[3] = (imp_pose3){imp_vec3_make(0.5, -0.6, 0.9), id};
	imp_shape_box3(0.12, 0.12, 0.12, 0.02, &shapes[4]);
	where[4] = (imp_pose3){imp_vec3_make(0.15, 0.9, 0.4), imp_quat_from_axis_angle(imp_vec3_make(0, 0, 1), 0.5)};
	imp_shape_box3(0.3, 0.05, 0.3, 0.0, &shapes[5]);
	where[5] = (imp_pose3){imp_vec3_make(-0.2, -0.9, 0.8), id};
	imp_shape_sphere(imp_vec3_make(0, 0, 0), 0.12, &shapes[6]);
	where[6] = (imp_pose3){imp_vec3_make(0.1, 0.5, 1.6), id};
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

	// The path: from the arm raised to the side, down over the table, in
	// steps of at most 0.02 rad per joint.
	const double q0[LINKS] = {0, -1.2, -1.4, 0.6, -0.8, 1.2, 0.0};
	const double q1[LINKS] = {0, 0.35, -0.5, 1.7, -1.0, -1.3, 0.8};
	int steps = smoke ? 20 : 160;
	imp_svg *svg;
	imp_aabb2 view = {{-1.6, -0.9}, {1.6, 2.1}};
	if (imp_svg_open(out, view, 900, &svg) != IMP_OK)
		return 1;
	imp_debug_draw draw = imp_svg_draw(svg);
	// Looking from the front right and above: turn the world about z, then
	// tip it towards the viewer.
	draw.view = imp_quat_mul(imp_quat_from_axis_angle(imp_vec3_make(1, 0, 0), -1.15),
				 imp_quat_from_axis_angle(imp_vec3_make(0, 0, 1), -0.6));
	imp_world_draw(w, &draw);
	double min_clearance = INFINITY, min_self = INFINITY;
	int first_blocked = -1, blocked_link = -1, self_a = -1, self_b = -1;
	double blocked_t = 1.0;
	printf("step   clearance  link  nearest body   self  links\n");
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
		for (int i = 1; i < LINKS; i++) {
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
		// The arm against itself: links two or more joints apart.
		double self = INFINITY;
		int sa = -1, sb = -1;
		for (int a = 0; a < LINKS; a++)
			for (int b = a + 2; b < LINKS; b++) {
				double d = imp_distance3(link[a], poses[a], link[b], poses[b], NULL);
				if (d < self) {
					self = d;
					sa = a;
					sb = b;
				}
			}
		if (self < min_self) {
			min_self = self;
			self_a = sa;
			self_b = sb;
		}
		min_clearance = fmin(min_clearance, best);
		if (k % (steps / 10) == 0)
			printf("%4d %11.4f %5d  %4u %13.4f  %d-%d\n", k, best, best_link, near[best_link].body.index, self, sa,
			       sb);
		if (k % (steps / 4) == 0) {
			imp_draw_shape3(&draw, link[0], poses[0], imp_color_make(0.4f, 0.4f, 0.45f, 1.0f));
			for (int i = 1; i < LINKS; i++) {
				imp_draw_shape3(&draw, link[i], poses[i], clearance_color(near[i].distance));
				imp_draw_query_result(&draw, &near[i], imp_color_make(0.2f, 0.2f, 0.8f, 0.9f));
			}
		}
	}
	if (imp_svg_close(svg) != IMP_OK)
		return 1;
	printf("\n%d configurations: smallest clearance %.4f m; smallest distance between links two joints apart "
	       "%.4f m (links %d and %d)\n",
	       steps + 1, min_clearance, min_self, self_a, self_b);
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
