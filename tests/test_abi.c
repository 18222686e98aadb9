// SPDX-License-Identifier: MIT
// The version and the binary interface: imp_version() is the project's
// version (the one pkg-config reports), IMP_ABI_VERSION is the shared
// library's soversion, and the size and alignment of every public struct
// are those recorded for that ABI version. A struct that changes fails
// here until IMP_ABI_VERSION (and meson.build's abi_version) is raised and
// a line for the new version added below (docs/versioning.md): a user's
// program built against one layout never meets a library of another
// under the same soname.
#include <setjmp.h>
#include <stdalign.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <impact/impact.h>

typedef struct layout {
	const char *name;
	size_t size, align;
} layout;

#define L(T) {#T, sizeof(T), alignof(T)}

static const layout LAYOUTS[] = {
	L(imp_allocator), L(imp_simplex_cache), L(imp_query_options), L(imp_closest2_result),
	L(imp_closest3_result), L(imp_motion2), L(imp_motion3), L(imp_toi_options), L(imp_toi2_result),
	L(imp_toi3_result), L(imp_color), L(imp_debug_draw), L(imp_vec2), L(imp_rot2), L(imp_pose2),
	L(imp_aabb2), L(imp_vec3), L(imp_quat), L(imp_mat3), L(imp_pose3), L(imp_aabb3), L(imp_feature),
	L(imp_world_def), L(imp_body_id), L(imp_filter), L(imp_body_def), L(imp_pair_event), L(imp_pair_events),
	L(imp_world_stats), L(imp_contact_event), L(imp_step_opts), L(imp_step_stats), L(imp_contact_events),
	L(imp_query_filter), L(imp_query_result), L(imp_cast_hit), L(imp_cast_options), L(imp_ray_hit),
};
#define LAYOUT_COUNT (sizeof LAYOUTS / sizeof LAYOUTS[0])

/// FNV-1a over every struct's name, size and alignment.
static uint64_t fingerprint(void)
{
	uint64_t h = 14695981039346656037ULL;
	for (size_t i = 0; i < LAYOUT_COUNT; i++) {
		uint64_t v[2] = {LAYOUTS[i].size, LAYOUTS[i].align};
		const unsigned char *p = (const unsigned char *)LAYOUTS[i].name;
		for (; *p; p++)
			h = (h ^ *p) * 1099511628211ULL;
		p = (const unsigned char *)v;
		for (size_t k = 0; k < sizeof v; k++)
			h = (h ^ p[k]) * 1099511628211ULL;
	}
	return h;
}

/// One line per ABI version, never edited once released: the fingerprint
/// of its public structs on x86-64 Linux (LP64), the platform CI runs on.
static const struct {
	int abi;
	uint64_t fingerprint;
} RECORDED[] = {
	{1, UINT64_C(0x0de60fcf285cb544)},
};

static void test_version_matches_the_build(void **state)
{
	(void)state;
	int major, minor, patch;
	assert_int_equal(sscanf(IMPACT_PROJECT_VERSION, "%d.%d.%d", &major, &minor, &patch), 3);
	assert_int_equal(imp_version(), major * 10000 + minor * 100 + patch);
	assert_int_equal(IMP_VERSION_MAJOR, major);
	assert_int_equal(IMP_VERSION_MINOR, minor);
	assert_int_equal(IMP_VERSION_PATCH, patch);
	assert_int_equal(IMP_ABI_VERSION, IMPACT_SOVERSION);
}

static void test_public_structs_match_the_abi_version(void **state)
{
	(void)state;
#if defined(__x86_64__) && defined(__linux__)
	uint64_t now = fingerprint();
	const uint64_t *recorded = NULL;
	for (size_t i = 0; i < sizeof RECORDED / sizeof RECORDED[0]; i++)
		if (RECORDED[i].abi == IMP_ABI_VERSION)
			recorded = &RECORDED[i].fingerprint;
	if (recorded == NULL || *recorded != now) {
		print_error("the public structs' layout (fingerprint 0x%016llx) is not the one recorded for ABI "
			    "version %d: raise IMP_ABI_VERSION and abi_version, and record the new one here\n",
			    (unsigned long long)now, IMP_ABI_VERSION);
		for (size_t i = 0; i < LAYOUT_COUNT; i++)
			print_error("  %-22s size %3zu align %zu\n", LAYOUTS[i].name, LAYOUTS[i].size, LAYOUTS[i].align);
	}
	assert_non_null(recorded);
	assert_true(*recorded == now);
#else
	skip();
#endif
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_version_matches_the_build),
		cmocka_unit_test(test_public_structs_match_the_abi_version),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
