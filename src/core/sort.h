// SPDX-License-Identifier: MIT
// An in-place sort specialised per element type, for the hot sorts (the
// world's begun pairs and events each update, the sweep's new end-points):
// qsort's comparison through a function pointer cost three times as much.
//
//   IMP_DEFINE_SORT(name, type, less)
//
// defines `static void name(type *a, int32_t n)`, sorting a[0..n) so that
// less(a[i + 1], a[i]) is false; `less(x, y)` is an expression on two
// values of `type`. Quicksort (median of three, the smaller side first, so
// the stack stays O(log n)) with insertion sort for short runs, and
// heapsort when the partitions go bad: O(n log n) always. Not stable.
#ifndef IMPACT_CORE_SORT_H
#define IMPACT_CORE_SORT_H

#include <stdint.h>

#define IMP_DEFINE_SORT(name, type, less)                                                                   \
	static void name##_insertion(type *a, int32_t n)                                                    \
	{                                                                                                   \
		for (int32_t i = 1; i < n; i++) {                                                           \
			type v = a[i];                                                                      \
			int32_t j = i;                                                                      \
			while (j > 0 && (less(v, a[j - 1]))) {                                              \
				a[j] = a[j - 1];                                                            \
				j--;                                                                        \
			}                                                                                   \
			a[j] = v;                                                                           \
		}                                                                                           \
	}                                                                                                   \
                                                                                                            \
	static void name##_sift(type *a, int32_t root, int32_t n)                                           \
	{                                                                                                   \
		type v = a[root];                                                                           \
		for (;;) {                                                                                  \
			int32_t c = 2 * root + 1;                                                           \
			if (c >= n)                                                                         \
				break;                                                                      \
			if (c + 1 < n && (less(a[c], a[c + 1])))                                            \
				c++;                                                                        \
			if (!(less(v, a[c])))                                                               \
				break;                                                                      \
			a[root] = a[c];                                                                     \
			root = c;                                                                           \
		}                                                                                           \
		a[root] = v;                                                                                \
	}                                                                                                   \
                                                                                                            \
	static void name##_heap(type *a, int32_t n)                                                         \
	{                                                                                                   \
		for (int32_t i = n / 2 - 1; i >= 0; i--)                                                    \
			name##_sift(a, i, n);                                                               \
		for (int32_t end = n - 1; end > 0; end--) {                                                 \
			type t = a[0];                                                                      \
			a[0] = a[end];                                                                      \
			a[end] = t;                                                                         \
			name##_sift(a, 0, end);                                                             \
		}                                                                                           \
	}                                                                                                   \
                                                                                                            \
	static void name(type *a, int32_t n)                                                                \
	{                                                                                                   \
		int budget = 0; /* halvings allowed: 2 log2 n */                                            \
		for (int32_t m = n; m > 1; m >>= 1)                                                         \
			budget += 2;                                                                        \
		while (n > 16) {                                                                            \
			if (budget-- == 0) {                                                                \
				name##_heap(a, n);                                                          \
				return;                                                                     \
			}                                                                                   \
			/* Median of three to a[0], then Hoare's partition around it. */                    \
			int32_t mid = n / 2;                                                                \
			type t;                                                                             \
			if (less(a[mid], a[0])) {                                                           \
				t = a[mid], a[mid] = a[0], a[0] = t;                                        \
			}                                                                                   \
			if (less(a[n - 1], a[mid])) {                                                       \
				t = a[n - 1], a[n - 1] = a[mid], a[mid] = t;                                \
				if (less(a[mid], a[0])) {                                                   \
					t = a[mid], a[mid] = a[0], a[0] = t;                                \
				}                                                                           \
			}                                                                                   \
			t = a[mid], a[mid] = a[0], a[0] = t;                                                \
			type p = a[0];                                                                      \
			int32_t i = 0, j = n;                                                               \
			for (;;) {                                                                          \
				do                                                                          \
					i++;                                                                \
				while (i < n && (less(a[i], p)));                                           \
				do                                                                          \
					j--;                                                                \
				while (less(p, a[j]));                                                      \
				if (i >= j)                                                                 \
					break;                                                              \
				t = a[i], a[i] = a[j], a[j] = t;                                            \
			}                                                                                   \
			t = a[0], a[0] = a[j], a[j] = t;                                                    \
			/* a[0..j) <= p = a[j] <= a(j..n): sort the smaller side, loop on the other. */     \
			if (j < n - 1 - j) {                                                                \
				name(a, j);                                                                 \
				a += j + 1;                                                                 \
				n -= j + 1;                                                                 \
			} else {                                                                            \
				name(a + j + 1, n - 1 - j);                                                 \
				n = j;                                                                      \
			}                                                                                   \
		}                                                                                           \
		name##_insertion(a, n);                                                                     \
	}

// A binary min-heap on an array specialised per element type, for the
// queries' priority queues (no handles: the world's time-of-impact queue,
// world/heap.c, is the one with handles and key changes).
//
//   IMP_DEFINE_HEAP(name, type, less)
//
// defines `static void name##_push(type *h, int32_t n, type x)`, adding x
// to the heap h[0..n) (room for n + 1), and `static type name##_pop(type
// *h, int32_t n)`, removing and returning the least of h[0..n), n >= 1.
#define IMP_DEFINE_HEAP(name, type, less)                                                                   \
	static void name##_push(type *h, int32_t n, type x)                                                 \
	{                                                                                                   \
		int32_t i = n;                                                                              \
		while (i > 0 && (less(x, h[(i - 1) / 2]))) {                                                \
			h[i] = h[(i - 1) / 2];                                                              \
			i = (i - 1) / 2;                                                                    \
		}                                                                                           \
		h[i] = x;                                                                                   \
	}                                                                                                   \
                                                                                                            \
	static type name##_pop(type *h, int32_t n)                                                          \
	{                                                                                                   \
		type top = h[0], last = h[--n];                                                             \
		int32_t i = 0;                                                                              \
		for (;;) {                                                                                  \
			int32_t c = 2 * i + 1;                                                              \
			if (c >= n)                                                                         \
				break;                                                                      \
			if (c + 1 < n && (less(h[c + 1], h[c])))                                            \
				c++;                                                                        \
			if (!(less(h[c], last)))                                                            \
				break;                                                                      \
			h[i] = h[c];                                                                        \
			i = c;                                                                              \
		}                                                                                           \
		if (n > 0)                                                                                  \
			h[i] = last;                                                                        \
		return top;                                                                                 \
	}

#endif
