// SPDX-License-Identifier: MIT
// The time of impact resumed where an earlier run stopped (the world's
// casts, src/world/query.c).
#ifndef IMPACT_TOI_INTERNAL_H
#define IMPACT_TOI_INTERNAL_H

#include "impact/collision.h"

/// imp_time_of_impact2/3_ex with the search starting at t_start in
/// [0, t_max] instead of 0: the caller has proven [0, t_start) free (an
/// earlier run that stopped at its iteration limit there). The motions are
/// still given from time 0, so the poses are those of one run. The answer
/// is OVERLAPPED only when t_start is 0; t_start outside [0, t_max] is
/// IMP_ERR_OUT_OF_RANGE.
///
/// The search also stops at IMP_TOI_ITERATION_LIMIT once its narrow-phase
/// calls reach max_work (INT_MAX: no such limit), and *work (work may be
/// NULL) gets the calls it took: one a query on a convex pair, and on a
/// pair with a non-convex side one per pair of children its queries answer
/// (the closest pair's and the advance's), as the world's step counts
/// them against max_pair_calls. A grazing approach takes thousands of
/// queries (conservative advancement steps by the gap over a rate that
/// does not fall as the gap does); counted by children, the cast's budget
/// bounds the work on a mesh or height field as on a convex body.
imp_status imp_time_of_impact2_from(const imp_shape *a, imp_motion2 ma, const imp_shape *b, imp_motion2 mb,
				    double t_start, double t_max, const imp_toi_options *options, int max_work, int *work,
				    imp_toi2_result *out);
imp_status imp_time_of_impact3_from(const imp_shape *a, imp_motion3 ma, const imp_shape *b, imp_motion3 mb,
				    double t_start, double t_max, const imp_toi_options *options, int max_work, int *work,
				    imp_toi3_result *out);

#endif
