// SPDX-License-Identifier: MIT
// EXPECT(cond, fmt, ...): a check that counts its failures in the test
// file's `static int fails` and prints the first EXPECT_SHOWN of them (8
// unless the file defines it first), so that one test reports many cases;
// the test ends with assert_int_equal(fails, 0).
#ifndef IMPACT_TEST_EXPECT_H
#define IMPACT_TEST_EXPECT_H

#ifndef EXPECT_SHOWN
#define EXPECT_SHOWN 8
#endif

#define EXPECT(cond, ...)                                                                                              \
	do {                                                                                                           \
		if (!(cond)) {                                                                                         \
			if (fails++ < EXPECT_SHOWN)                                                                    \
				print_message("FAIL %s:%d: %s: ", __FILE__, __LINE__, #cond),                          \
					print_message(__VA_ARGS__), print_message("\n");                               \
		}                                                                                                      \
	} while (0)

#endif
