// SPDX-License-Identifier: MIT
// A C++ program built against the installed library (CI: through CMake's
// find_package and through pkg-config): a world, an update, a query.
#include <cstdio>

#include <impact/impact.h>

int main()
{
	imp_world_def def = imp_default_world_def();
	imp_world *world = nullptr;
	if (imp_world_create(&def, &world) != IMP_OK)
		return 1;
	imp_shape *box = nullptr, *ball = nullptr;
	if (imp_shape_box3(0.5, 0.5, 0.5, 0.0, &box) != IMP_OK ||
	    imp_shape_sphere(imp_vec3_make(0.0, 0.0, 0.0), 0.25, &ball) != IMP_OK)
		return 1;
	imp_body_def body = imp_default_body_def();
	body.shape = box;
	imp_body_id id;
	if (imp_world_add_body(world, &body, &id) != IMP_OK || imp_world_update(world) != IMP_OK)
		return 1;
	imp_query_result near;
	imp_pose3 at = imp_pose3_identity();
	at.p = imp_vec3_make(2.0, 0.0, 0.0);
	if (imp_world_nearest3(world, ball, at, 10.0, nullptr, &near) != IMP_OK)
		return 1;
	std::printf("impact %d: nearest body at %.3f (expected 1.250)\n", imp_version(), near.distance);
	imp_world_destroy(world);
	imp_shape_destroy(ball);
	imp_shape_destroy(box);
	return near.distance > 1.2499 && near.distance < 1.2501 ? 0 : 1;
}
