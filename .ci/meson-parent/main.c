// SPDX-License-Identifier: MIT
// CI: impact as a Meson subproject: two shapes' distance.
#include <stdio.h>

#include <impact/impact.h>

int main(void)
{
	imp_shape *a = NULL, *b = NULL;
	if (imp_shape_circle(imp_vec2_make(0.0, 0.0), 1.0, &a) != IMP_OK ||
	    imp_shape_circle(imp_vec2_make(0.0, 0.0), 0.5, &b) != IMP_OK)
		return 1;
	imp_pose2 pa = imp_pose2_identity(), pb = imp_pose2_identity();
	pb.p.x = 3.0;
	double d = imp_distance2(a, pa, b, pb, NULL);
	printf("impact as a subproject: distance %.3f (expected 1.500)\n", d);
	imp_shape_destroy(a);
	imp_shape_destroy(b);
	return d > 1.4999 && d < 1.5001 ? 0 : 1;
}
