// SPDX-License-Identifier: MIT
// Where the tests find their data (data_dir.h).
#define _POSIX_C_SOURCE 200809L
#include "data_dir.h"

#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

static int is_dir(const char *path)
{
	struct stat sb;
	return path != NULL && stat(path, &sb) == 0 && S_ISDIR(sb.st_mode);
}

const char *test_meshes_dir(char *buf, size_t n)
{
	const char *dir = getenv("IMPACT_MESHES");
	if (dir != NULL) {
		snprintf(buf, n, "%s", dir);
		return is_dir(buf) ? buf : NULL;
	}
	const char *root = getenv("IMPACT_SOURCE_ROOT");
	if (root == NULL)
		return NULL;
	snprintf(buf, n, "%s/../shared/data/meshes", root);
	return is_dir(buf) ? buf : NULL;
}
