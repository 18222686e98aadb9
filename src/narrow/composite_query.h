// SPDX-License-Identifier: MIT
// Pairwise queries with a non-convex side (composite_query.c): the public
// queries hand such pairs here.
#ifndef IMPACT_NARROW_COMPOSITE_QUERY_H
#define IMPACT_NARROW_COMPOSITE_QUERY_H

#include <stdbool.h>

#include "impact/collision.h"
#include "shape/shape_internal.h"

/// True when a or b is (or claims to be, by its kind) a non-convex shape:
/// the public queries' one test before their convex paths.
static inline bool imp_pair_has_composite(const imp_shape *a, const imp_shape *b)
{
	return (a != NULL && a->kind >= IMP_SHAPE_COMPOUND2) || (b != NULL && b->kind >= IMP_SHAPE_COMPOUND2);
}

bool imp_composite_overlap2(const imp_shape *a, imp_pose2 pa, const imp_shape *b, imp_pose2 pb,
			    imp_simplex_cache *cache, const imp_query_options *options);
bool imp_composite_overlap3(const imp_shape *a, imp_pose3 pa, const imp_shape *b, imp_pose3 pb,
			    imp_simplex_cache *cache, const imp_query_options *options);
double imp_composite_distance2(const imp_shape *a, imp_pose2 pa, const imp_shape *b, imp_pose2 pb,
			       imp_simplex_cache *cache, const imp_query_options *options, int *iterations,
			       imp_query_state *state);
double imp_composite_distance3(const imp_shape *a, imp_pose3 pa, const imp_shape *b, imp_pose3 pb,
			       imp_simplex_cache *cache, const imp_query_options *options, int *iterations,
			       imp_query_state *state);
imp_status imp_composite_closest2(const imp_shape *a, imp_pose2 pa, const imp_shape *b, imp_pose2 pb,
				  imp_simplex_cache *cache, const imp_query_options *options, imp_closest2_result *out);
imp_status imp_composite_closest3(const imp_shape *a, imp_pose3 pa, const imp_shape *b, imp_pose3 pb,
				  imp_simplex_cache *cache, const imp_query_options *options, imp_closest3_result *out);

#endif
