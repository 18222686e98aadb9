// SPDX-License-Identifier: MIT
/// @file data_dir.h
/// Where the tests find the robot meshes they may read: the directory
/// IMPACT_MESHES names, else the data directory beside the source tree
/// (IMPACT_SOURCE_ROOT, which tests/meson.build sets, then
/// ../shared/data/meshes). The project does not ship them: a test that
/// finds neither skips what needs them, with a message.
#ifndef IMPACT_TESTS_DATA_DIR_H
#define IMPACT_TESTS_DATA_DIR_H

#include <stddef.h>

/// The meshes' directory in buf (size n), or NULL when there is none.
const char *test_meshes_dir(char *buf, size_t n);

#endif
