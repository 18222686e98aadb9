// SPDX-License-Identifier: MIT
// The query options shared by the 2D and 3D narrow phases.
#ifndef IMPACT_QUERY_OPTIONS_H
#define IMPACT_QUERY_OPTIONS_H

#include <stdbool.h>

#include "impact/collision.h"

/// The defaults. Queries compare an options pointer with its address to
/// skip checking and reading them field by field.
extern const imp_query_options imp_default_options;

/// True when every field is in its documented range.
bool imp_options_valid(const imp_query_options *o);

#endif
