// SPDX-License-Identifier: MIT
/// @file bench_util.h
/// Small helpers shared by the benchmarks: a monotonic clock, a seeded random
/// generator, medians, and a description of the machine. Header-only; a file
/// that includes it must define _POSIX_C_SOURCE (for clock_gettime) first.
#ifndef IMPACT_BENCH_UTIL_H
#define IMPACT_BENCH_UTIL_H

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <sys/utsname.h>

/// Nanoseconds on CLOCK_MONOTONIC (never steps back, unlike the wall clock).
static inline double bench_now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

/// splitmix64 (Steele, Lea, Flood 2014): one 64-bit state, every seed fine,
/// and the same sequence on every platform, which is what a fixed data set needs.
typedef struct bench_rng {
	uint64_t state;
} bench_rng;

static inline uint64_t bench_rng_next(bench_rng *r)
{
	uint64_t z = (r->state += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/// Uniform in [0, 1), 53 random bits.
static inline double bench_rng_unit(bench_rng *r)
{
	return (double)(bench_rng_next(r) >> 11) * 0x1.0p-53;
}

/// Uniform in [lo, hi).
static inline double bench_rng_range(bench_rng *r, double lo, double hi)
{
	return lo + (hi - lo) * bench_rng_unit(r);
}

/// A markdown table cell of nanoseconds ("-" for NaN): one decimal below
/// 10,000, none from there.
static inline void bench_put_ns(FILE *f, double ns)
{
	if (ns != ns)
		fprintf(f, " - |");
	else if (ns >= 10000.0)
		fprintf(f, " %.0f |", ns);
	else
		fprintf(f, " %.1f |", ns);
}

/// A markdown table cell of num / den ("-" when either is NaN or den is
/// not positive).
static inline void bench_put_ratio(FILE *f, double num, double den)
{
	if (num != num || den != den || !(den > 0.0))
		fprintf(f, " - |");
	else
		fprintf(f, " %.2f |", num / den);
}

static inline int bench_compare_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/// The median of values[0 .. count) (sorts them in place); 0 for count 0.
static inline double bench_median(double *values, int count)
{
	if (count <= 0)
		return 0.0;
	qsort(values, (size_t)count, sizeof values[0], bench_compare_double);
	if (count % 2)
		return values[count / 2];
	return 0.5 * (values[count / 2 - 1] + values[count / 2]);
}

/// The CPU's "model name" from /proc/cpuinfo, or "unknown CPU".
static inline void bench_cpu_model(char *out, size_t size)
{
	snprintf(out, size, "unknown CPU");
	FILE *f = fopen("/proc/cpuinfo", "r");
	if (!f)
		return;
	char line[512];
	while (fgets(line, sizeof line, f)) {
		if (strncmp(line, "model name", 10) != 0)
			continue;
		const char *colon = strchr(line, ':');
		if (!colon)
			continue;
		colon++;
		while (*colon == ' ' || *colon == '\t')
			colon++;
		snprintf(out, size, "%s", colon);
		out[strcspn(out, "\n")] = '\0';
		break;
	}
	fclose(f);
}

/// The number of "processor" lines in /proc/cpuinfo (0 when unknown).
static inline int bench_cpu_count(void)
{
	FILE *f = fopen("/proc/cpuinfo", "r");
	if (!f)
		return 0;
	char line[512];
	int n = 0;
	while (fgets(line, sizeof line, f))
		if (strncmp(line, "processor", 9) == 0)
			n++;
	fclose(f);
	return n;
}

/// Parses a whole decimal (or 0x) integer in [lo, hi] into *out.
static inline bool bench_parse_int(const char *s, int lo, int hi, int *out)
{
	char *end;
	errno = 0;
	long v = strtol(s, &end, 0);
	if (errno || end == s || *end || v < lo || v > hi)
		return false;
	*out = (int)v;
	return true;
}

/// The machine a run is on and when: "system release arch" (with the
/// node name when `node`), and the UTC date to the minute.
static inline void bench_describe_run(char *machine, size_t machine_size, bool node, char *date, size_t date_size)
{
	struct utsname u;
	if (uname(&u) != 0)
		snprintf(machine, machine_size, "unknown");
	else if (node)
		snprintf(machine, machine_size, "%s %s %s (%s)", u.sysname, u.release, u.machine, u.nodename);
	else
		snprintf(machine, machine_size, "%s %s %s", u.sysname, u.release, u.machine);
	time_t now = time(NULL);
	struct tm tm;
	if (date_size > 0)
		date[0] = 0;
	if (gmtime_r(&now, &tm))
		strftime(date, date_size, "%Y-%m-%d %H:%M UTC", &tm);
}

#endif
