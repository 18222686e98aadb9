// SPDX-License-Identifier: MIT
// The bad inputs of the error tests.
#include "bad_input.h"

#include <math.h>
#include <stdalign.h>
#include <string.h>

alignas(16) unsigned char bad_zero_buf[4096];
alignas(16) unsigned char bad_junk_buf[4096];
int bad_sentinel_object;
const double bad_numbers[4] = {NAN, -NAN, INFINITY, -INFINITY};

int bad_input_setup(void **state)
{
	(void)state;
	memset(bad_zero_buf, 0, sizeof bad_zero_buf);
	memset(bad_junk_buf, 0xA5, sizeof bad_junk_buf);
	return 0;
}
