// SPDX-License-Identifier: MIT
/// @file bad_input.h
/// What the error tests hand the library instead of valid input: records
/// that are not shapes, a sentinel to see outputs left alone, non-finite
/// numbers.
#ifndef IMPACT_TESTS_BAD_INPUT_H
#define IMPACT_TESTS_BAD_INPUT_H

#include <impact/impact.h>

/// A zeroed buffer and one full of 0xA5, large enough for any header the
/// library may read (refilled by bad_input_setup).
extern unsigned char bad_zero_buf[4096];
extern unsigned char bad_junk_buf[4096];
#define NOT_SHAPE ((const imp_shape *)(const void *)bad_zero_buf)
#define JUNK_SHAPE ((const imp_shape *)(const void *)bad_junk_buf)

/// An address no call may write through or return: outputs set to it
/// before a failing call must still hold it after.
extern int bad_sentinel_object;
#define SENTINEL ((imp_shape *)(void *)&bad_sentinel_object)

/// NaN (both signs) and the infinities.
extern const double bad_numbers[4];

/// The cmocka group set-up that fills the two buffers.
int bad_input_setup(void **state);

#endif
