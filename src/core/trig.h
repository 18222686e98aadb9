// SPDX-License-Identifier: MIT
/// @file trig.h
/// Cosine and sine of one angle together, for the motions' poses
/// (imp_motion2_at, imp_motion3_at), which time of impact evaluates at
/// every step of its search. libm's sin and cos (or sincos) cost about 100
/// instructions each; the angles here are a body's turn over part of a
/// frame, mostly well under a radian, where this costs about 30 for both.
///
/// The angle is reduced to r in [-pi/4, pi/4] by the nearest multiple
/// k pi/2, with pi/2 in three parts whose first two have 33 significant
/// bits, so that k times each is exact for |k| < 2^20 (Cody and Waite's
/// reduction). On r both Taylor series are cut where the next term is below
/// 1e-16 of the result (sine to r^15, cosine to r^16). The answer is within
/// an ulp or two of the exact one; angles beyond 1e5 radians, infinities
/// and NaN go to libm.
#ifndef IMPACT_CORE_TRIG_H
#define IMPACT_CORE_TRIG_H

#include <math.h>

#include "core/inline.h"

/// pi/2 = PIO2_1 + PIO2_2 + PIO2_3 (to about 1e-37), and 2/pi.
#define IMP_PIO2_1 0x1.921fb544p+0
#define IMP_PIO2_2 0x1.0b4611a6p-34
#define IMP_PIO2_3 0x1.3198a2e037073p-69
#define IMP_TWO_OVER_PI 0x1.45f306dc9c883p-1

/// *c = cos(x), *s = sin(x).
IMP_ALWAYS_INLINE void imp_cos_sin(double x, double *c, double *s)
{
	if (!(fabs(x) <= 1e5)) {
		*c = cos(x);
		*s = sin(x);
		return;
	}
	double kf = x * IMP_TWO_OVER_PI;
	long k = (long)(kf + (kf >= 0.0 ? 0.5 : -0.5));
	double kd = (double)k;
	double r = ((x - kd * IMP_PIO2_1) - kd * IMP_PIO2_2) - kd * IMP_PIO2_3;
	double z = r * r;
	// Both series in Horner form in z = r^2.
	double sn = r + r * z * (-1.0 / 6.0 + z * (1.0 / 120.0 + z * (-1.0 / 5040.0 + z * (1.0 / 362880.0 +
			     z * (-1.0 / 39916800.0 + z * (1.0 / 6227020800.0 + z * (-1.0 / 1307674368000.0)))))));
	double cs = 1.0 - 0.5 * z + z * z * (1.0 / 24.0 + z * (-1.0 / 720.0 + z * (1.0 / 40320.0 + z * (-1.0 / 3628800.0 +
			     z * (1.0 / 479001600.0 + z * (-1.0 / 87178291200.0 + z * (1.0 / 20922789888000.0)))))));
	switch (k & 3) {
	case 0:
		*c = cs;
		*s = sn;
		break;
	case 1:
		*c = -sn;
		*s = cs;
		break;
	case 2:
		*c = -cs;
		*s = -sn;
		break;
	default:
		*c = sn;
		*s = -cs;
		break;
	}
}

#endif
