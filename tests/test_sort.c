// SPDX-License-Identifier: MIT
// src/core/sort.h against qsort (the oracle): random arrays with many and
// few duplicates, sorted, reversed, all equal, organ pipes and a
// median-of-three killer, of every length to 300 and some long ones; the
// sort must give qsort's order (the keys are total, ties are whole equal
// records) and keep the multiset.
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "core/sort.h"

typedef struct item {
	uint64_t key;
	uint32_t payload;
} item;

#define ITEM_LESS(x, y) ((x).key < (y).key || ((x).key == (y).key && (x).payload < (y).payload))
IMP_DEFINE_SORT(sort_items, item, ITEM_LESS)

#define KEY_LESS(x, y) ((x) < (y))
IMP_DEFINE_SORT(sort_keys, uint64_t, KEY_LESS)

static int item_cmp(const void *x, const void *y)
{
	const item *a = x, *b = y;
	if (ITEM_LESS(*a, *b))
		return -1;
	return ITEM_LESS(*b, *a);
}

static int key_cmp(const void *x, const void *y)
{
	uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;
	return a < b ? -1 : a > b;
}

static uint64_t next(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

enum { PATTERNS = 8 };

static void fill(item *a, int n, int pattern, uint64_t *rng)
{
	for (int i = 0; i < n; i++) {
		uint64_t k;
		switch (pattern) {
		case 0: k = next(rng); break;                       // distinct
		case 1: k = next(rng) % 4; break;                   // few values
		case 2: k = (uint64_t)i; break;                     // sorted
		case 3: k = (uint64_t)(n - i); break;               // reversed
		case 4: k = 7; break;                               // all equal
		case 5: k = (uint64_t)(i < n / 2 ? i : n - i); break; // organ pipe
		case 6: k = (uint64_t)(i % 2 ? i : n + i / 2); break; // alternating halves
		default: k = (uint64_t)(i % 3 == 0 ? n - i : i); break;
		}
		a[i].key = k;
		a[i].payload = (uint32_t)(next(rng) % 3);
	}
}

static void test_against_qsort(void **state)
{
	(void)state;
	uint64_t rng = 0x5EED5EEDu;
	int lengths[320];
	int nl = 0;
	for (int n = 0; n <= 300; n++)
		lengths[nl++] = n;
	int longer[] = {1000, 4096, 10007, 65536, 100000};
	for (size_t i = 0; i < sizeof longer / sizeof longer[0]; i++)
		lengths[nl++] = longer[i];
	item *a = malloc(100000 * sizeof *a), *b = malloc(100000 * sizeof *b);
	uint64_t *ka = malloc(100000 * sizeof *ka), *kb = malloc(100000 * sizeof *kb);
	assert_non_null(a);
	assert_non_null(b);
	assert_non_null(ka);
	assert_non_null(kb);
	for (int li = 0; li < nl; li++) {
		int n = lengths[li];
		for (int p = 0; p < PATTERNS; p++) {
			fill(a, n, p, &rng);
			if (n > 0)
				memcpy(b, a, (size_t)n * sizeof *a);
			sort_items(a, n);
			if (n > 0)
				qsort(b, (size_t)n, sizeof *b, item_cmp);
			for (int i = 0; i < n; i++) {
				assert_true(a[i].key == b[i].key);
				assert_true(a[i].payload == b[i].payload);
				ka[i] = kb[i] = a[i].key * 2654435761u + (uint64_t)p;
			}
			// The same keys shuffled, as bare integers.
			for (int i = n - 1; i > 0; i--) {
				int j = (int)(next(&rng) % (uint64_t)(i + 1));
				uint64_t t = ka[i];
				ka[i] = ka[j];
				ka[j] = t;
			}
			sort_keys(ka, n);
			if (n > 0)
				qsort(kb, (size_t)n, sizeof *kb, key_cmp);
			for (int i = 0; i < n; i++)
				assert_true(ka[i] == kb[i]);
		}
	}
	free(a);
	free(b);
	free(ka);
	free(kb);
}

/// A median-of-three killer (Musser's sequence) stays O(n log n): the
/// heapsort fallback. Counted through the comparison.
static long comparisons;
#define COUNTED_LESS(x, y) (comparisons++, (x) < (y))
IMP_DEFINE_SORT(sort_counted, int32_t, COUNTED_LESS)

static void test_bad_input_stays_n_log_n(void **state)
{
	(void)state;
	enum { N = 1 << 16 };
	int32_t *a = malloc(N * sizeof *a);
	assert_non_null(a);
	// Musser's median-of-3 killer for k = N / 2.
	int k = N / 2;
	for (int i = 1; i <= k; i++) {
		if (i % 2)
			a[i - 1] = i;
		else
			a[i - 1] = k + i - 1;
		a[k + i - 1] = 2 * i;
	}
	comparisons = 0;
	sort_counted(a, N);
	for (int i = 1; i < N; i++)
		assert_true(a[i - 1] <= a[i]);
	// n log2 n = 1,048,576; a quadratic sort would need about 10^9.
	assert_true(comparisons < 8L * N * 16);
	free(a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_against_qsort),
		cmocka_unit_test(test_bad_input_stays_n_log_n),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
