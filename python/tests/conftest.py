# SPDX-License-Identifier: MIT
import os

import numpy as np
import pytest

import impact_collision as ic

# Under AddressSanitizer (the -Dsanitize=true build) every call is several
# times slower: the loops that only count (leaks, threads) shrink.
SANITIZED = os.environ.get("IMPACT_PYTHON_SANITIZED") == "1"


@pytest.fixture
def rng():
    return np.random.default_rng(20240624)


def random_quats(rng, n):
    q = rng.normal(size=(n, 4))
    return q / np.linalg.norm(q, axis=1, keepdims=True)


def random_poses2(rng, n, spread=3.0):
    return np.column_stack([rng.uniform(-spread, spread, size=(n, 2)), rng.uniform(-np.pi, np.pi, n)])


def random_poses3(rng, n, spread=3.0):
    return np.column_stack([rng.uniform(-spread, spread, size=(n, 3)), random_quats(rng, n)])


def regular_polygon(n, r=1.0, phase=0.0):
    t = phase + 2 * np.pi * np.arange(n) / n
    return np.column_stack([r * np.cos(t), r * np.sin(t)])


def quat_matrix(q):
    """Rotation matrix of a unit quaternion (x, y, z, w): an oracle independent of the C library."""
    x, y, z, w = q
    return np.array([
        [1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)],
        [2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)],
        [2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)],
    ])


def rot2(angle):
    c, s = np.cos(angle), np.sin(angle)
    return np.array([[c, -s], [s, c]])


__all__ = ["ic", "SANITIZED"]
