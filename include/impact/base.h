// SPDX-License-Identifier: MIT
/// @file base.h
/// Status codes, allocator and version of impact.
#ifndef IMPACT_BASE_H
#define IMPACT_BASE_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(_WIN32) && defined(IMPACT_SHARED_BUILD)
#define IMP_API __declspec(dllexport)
#elif defined(__GNUC__)
#define IMP_API __attribute__((visibility("default")))
#else
#define IMP_API
#endif

#define IMP_VERSION_MAJOR 0
#define IMP_VERSION_MINOR 1
#define IMP_VERSION_PATCH 0

/// The ABI version: the shared library's soversion (libimpact.so.N). It
/// changes with every change of the binary interface: a public struct's
/// size, alignment or field order, an enum's values, a function's
/// signature or removal (docs/versioning.md). tests/test_abi.c fails when
/// a public struct changes and this does not.
#define IMP_ABI_VERSION 1

/// The version the library was built as: major * 10000 + minor * 100 + patch.
IMP_API int imp_version(void);

/// What a fallible call did. IMP_OK is zero; every other value is an error
/// after which the call's outputs and the objects it was given are unchanged.
typedef enum imp_status {
	IMP_OK = 0,
	IMP_ERR_NULL_ARGUMENT,      ///< a required pointer was NULL
	IMP_ERR_NOT_FINITE,         ///< a NaN or an infinity in a number
	IMP_ERR_BAD_COUNT,          ///< a count out of its allowed range
	IMP_ERR_BAD_RADIUS,         ///< a radius or size negative or not finite
	IMP_ERR_BAD_ROTATION,       ///< a rotation that is not unit length (2D: |q|^2 within 1e-9 of 1; a quaternion: within 1e-6): normalize it (imp_quat_normalize)
	IMP_ERR_DIMENSION_MISMATCH, ///< a 3D object given to a 2D call or back
	IMP_ERR_BAD_SHAPE,          ///< not an impact shape: a zeroed or foreign record (a destroyed shape must not be used: its memory is gone)
	IMP_ERR_BAD_OPTIONS,        ///< an options struct (imp_world_def, imp_query_options, imp_step_opts, imp_cast_options, an SVG view) with a field out of range
	IMP_ERR_OUT_OF_MEMORY,      ///< the allocator returned NULL
	IMP_ERR_OUT_OF_RANGE,       ///< a coordinate, radius or size beyond IMP_MAX_COORDINATE (or an ellipsoid semi-axis below IMP_MIN_SEMI_AXIS)
	IMP_ERR_BAD_ID,             ///< an id that names no live object of this world (stale, foreign or null)
	IMP_ERR_BUSY,               ///< a call the world cannot take now (from inside one of its callbacks)
	IMP_ERR_UNSUPPORTED,        ///< a shape kind the call does not take (a compound inside a compound)
	IMP_ERR_IO,                 ///< a file that cannot be opened, read or written
	IMP_ERR_PARSE,              ///< a file whose contents do not parse
	IMP_ERR_STATIC_BODY,        ///< a velocity or target pose given to a static body: make it kinematic or dynamic
	IMP_ERR_BAD_BODY_TYPE,      ///< a body type other than IMP_BODY_STATIC, IMP_BODY_KINEMATIC and IMP_BODY_DYNAMIC
	IMP_STATUS_COUNT
} imp_status;

/// The largest magnitude of a coordinate, radius, size or translation the
/// library accepts. Products of two such numbers stay finite in double, and
/// the queries never multiply more than two coordinates, so answers are
/// exact to rounding over the whole range (tested from 1e-150 to 1e150).
#define IMP_MAX_COORDINATE 1e150

/// A short English name for a status ("ok", "null argument", ...). Never NULL;
/// an unknown value gives "unknown status".
IMP_API const char *imp_status_string(imp_status status);

/// Where impact gets memory. All three functions must be set, or none (a
/// zeroed struct means malloc/realloc/free): a struct with only some set is
/// refused with IMP_ERR_NULL_ARGUMENT. `user` is passed back to each.
typedef struct imp_allocator {
	void *(*alloc)(size_t size, void *user);
	void *(*realloc)(void *ptr, size_t old_size, size_t new_size, void *user);
	void (*free)(void *ptr, size_t size, void *user);
	void *user;
} imp_allocator;

#ifdef __cplusplus
}
#endif

#endif
