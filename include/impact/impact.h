// SPDX-License-Identifier: MIT
/// @file impact.h
/// impact: a two-phase collision engine for 2D and 3D. Include this header.
#ifndef IMPACT_IMPACT_H
#define IMPACT_IMPACT_H

#include "base.h"
#include "vecmath.h"
#include "shape.h"
#include "collision.h"
#include "world.h"
#include "draw.h"

#endif
