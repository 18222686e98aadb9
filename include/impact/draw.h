// SPDX-License-Identifier: MIT
/// @file draw.h
/// Pictures: a debug-draw interface that shapes, worlds and query answers
/// draw through (Box2D's b2Draw is the model: a table of callbacks the user
/// fills), and an SVG writer that fills it, so that a scene and the answers
/// about it can be looked at instead of read as numbers.
///
/// Everything is drawn in 2D world coordinates. 3D shapes and worlds are
/// drawn through an orthographic projection: each point is turned by the
/// `view` rotation and its z dropped (the identity looks down -z, onto the
/// x-y plane); a 3D shape is drawn as the outline of its projection.
#ifndef IMPACT_DRAW_H
#define IMPACT_DRAW_H

#include <stdbool.h>

#include "base.h"
#include "vecmath.h"
#include "shape.h"
#include "world.h"

#ifdef __cplusplus
extern "C" {
#endif

/// A colour, each part in [0, 1].
typedef struct imp_color {
	float r, g, b, a;
} imp_color;

static inline imp_color imp_color_make(float r, float g, float b, float a)
{
	imp_color c = {r, g, b, a};
	return c;
}

/// The callbacks a picture is drawn through. Any callback may be NULL (that
/// kind of item is then not drawn). `user` is passed back to each.
typedef struct imp_debug_draw {
	/// A convex polygon (counter-clockwise), grown by `radius` (0: sharp).
	void (*polygon)(const imp_vec2 *points, int count, double radius, imp_color color, void *user);
	void (*circle)(imp_vec2 center, double radius, imp_color color, void *user);
	/// The points within `radius` of the segment p0 p1.
	void (*capsule)(imp_vec2 p0, imp_vec2 p1, double radius, imp_color color, void *user);
	void (*segment)(imp_vec2 p0, imp_vec2 p1, imp_color color, void *user);
	/// A dot of `size` (world units across).
	void (*point)(imp_vec2 p, double size, imp_color color, void *user);
	void (*aabb)(imp_aabb2 box, imp_color color, void *user);
	void (*text)(imp_vec2 p, const char *text, imp_color color, void *user);
	void *user;
	/// The rotation of the orthographic projection for 3D (unit; the
	/// identity looks onto the x-y plane).
	imp_quat view;
	/// What imp_world_draw draws: the bodies' shapes, their boxes.
	bool draw_shapes;
	bool draw_aabbs;
} imp_debug_draw;

/// All callbacks NULL, the identity view, shapes drawn, boxes not.
IMP_API imp_debug_draw imp_default_debug_draw(void);

/// A 3D point through the view: its 2D picture coordinates (a NULL draw:
/// the identity view).
IMP_API imp_vec2 imp_draw_project(const imp_debug_draw *draw, imp_vec3 p);

/// Draws a 2D shape at a pose: a polygon (with its radius), a circle, a
/// capsule, or the outline of a user shape (its supports in 64 directions).
/// Errors: IMP_ERR_NULL_ARGUMENT, IMP_ERR_BAD_SHAPE, IMP_ERR_DIMENSION_MISMATCH,
/// the pose's (IMP_ERR_NOT_FINITE, IMP_ERR_BAD_ROTATION, IMP_ERR_OUT_OF_RANGE),
/// IMP_ERR_NOT_FINITE (a user support's point: the outline is not drawn),
/// IMP_ERR_OUT_OF_RANGE (a compound child's pose composed with `pose`); a
/// compound's children before the failing one are drawn.
IMP_API imp_status imp_draw_shape2(const imp_debug_draw *draw, const imp_shape *shape, imp_pose2 pose,
				   imp_color color);
/// Draws a 3D shape at a pose through the view: the outline of its
/// projection (its supports in 64 directions of the picture's plane), a
/// circle for a sphere. Errors as imp_draw_shape2.
IMP_API imp_status imp_draw_shape3(const imp_debug_draw *draw, const imp_shape *shape, imp_pose3 pose,
				   imp_color color);

/// Draws every body of a world (grey static, blue kinematic, orange
/// dynamic) and, with draw_aabbs, their boxes. Errors: IMP_ERR_NULL_ARGUMENT.
IMP_API imp_status imp_world_draw(const imp_world *world, const imp_debug_draw *draw);

/// Draws a distance answer: the witness segment from point to body_point,
/// and both points (3D through the view).
IMP_API void imp_draw_query_result(const imp_debug_draw *draw, const imp_query_result *result, imp_color color);

/// An SVG file being written.
typedef struct imp_svg imp_svg;

/// Starts an SVG picture of the world region `view` (y up, as in the
/// world), `width` pixels wide (the height follows the region's shape).
/// Errors: IMP_ERR_NULL_ARGUMENT, IMP_ERR_BAD_OPTIONS (an empty or
/// non-finite region, a width outside 16 .. 16384, a region so tall or thin
/// that the height would be outside 1 .. 16384), IMP_ERR_OUT_OF_MEMORY,
/// IMP_ERR_IO (the file cannot be opened for writing).
IMP_API imp_status imp_svg_open(const char *path, imp_aabb2 view, int width, imp_svg **out);

/// The debug draw that writes into the picture (identity view, shapes on).
IMP_API imp_debug_draw imp_svg_draw(imp_svg *svg);

/// Finishes the file and frees the writer (NULL is ignored). IMP_OK, or
/// IMP_ERR_IO when writing failed (a full disk); the writer is freed
/// either way.
IMP_API imp_status imp_svg_close(imp_svg *svg);

#ifdef __cplusplus
}
#endif

#endif
