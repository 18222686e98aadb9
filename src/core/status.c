// SPDX-License-Identifier: MIT
#include "impact/base.h"

int imp_version(void)
{
	return IMP_VERSION_MAJOR * 10000 + IMP_VERSION_MINOR * 100 + IMP_VERSION_PATCH;
}

const char *imp_status_string(imp_status status)
{
	switch (status) {
	case IMP_OK: return "ok";
	case IMP_ERR_NULL_ARGUMENT: return "null argument";
	case IMP_ERR_NOT_FINITE: return "not finite";
	case IMP_ERR_BAD_COUNT: return "count out of range";
	case IMP_ERR_BAD_RADIUS: return "bad radius or size";
	case IMP_ERR_BAD_ROTATION:
		return "rotation not unit length (a 2D rotation within 1e-9, a quaternion within 1e-6): normalize it "
		       "first (imp_quat_normalize, imp_rot2_make from the angle)";
	case IMP_ERR_DIMENSION_MISMATCH: return "dimension mismatch";
	case IMP_ERR_BAD_SHAPE: return "not a live shape";
	case IMP_ERR_BAD_OPTIONS: return "an options field out of range";
	case IMP_ERR_OUT_OF_MEMORY: return "out of memory";
	case IMP_ERR_OUT_OF_RANGE: return "out of range (beyond IMP_MAX_COORDINATE, or a semi-axis below IMP_MIN_SEMI_AXIS)";
	case IMP_ERR_BAD_ID: return "stale or foreign id";
	case IMP_ERR_BUSY: return "world busy in a callback";
	case IMP_ERR_UNSUPPORTED: return "shape kind not supported by this call";
	case IMP_ERR_IO: return "file cannot be opened, read or written";
	case IMP_ERR_PARSE: return "file does not parse";
	case IMP_ERR_STATIC_BODY:
		return "static body: only a kinematic or dynamic body takes a velocity or a target pose";
	case IMP_ERR_BAD_BODY_TYPE: return "body type not IMP_BODY_STATIC, IMP_BODY_KINEMATIC or IMP_BODY_DYNAMIC";
	case IMP_STATUS_COUNT: break;
	}
	return "unknown status";
}
