# SPDX-License-Identifier: MIT
"""No leaks: reference counts of the arguments unchanged, no growth of
Python's traced memory or of the process's resident memory over many
calls (error paths included), shapes freed with their objects."""
import gc
import sys
import tracemalloc

import numpy as np
import pytest

import impact_collision as ic
from conftest import SANITIZED, random_poses3, regular_polygon

N = 20_000 if SANITIZED else 100_000


def rss_bytes():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * 4096


def calls(a2, b2, a3, b3, pa2, pb2, pa3, pb3, stack3, bad):
    ic.distance(a2, pa2, b2, pb2)
    ic.overlap(a3, pa3, b3, pb3)
    r = ic.closest(a3, pa3, b3, pb3)
    assert r.distance > 0
    ic.time_of_impact(a2, (pa2, (1.0, 0.0), 0.5), b2, (pb2, (0.0, 0.0), 0.0), 1.0)
    ic.distance_batch(a3, stack3, b3, pb3)
    try:
        ic.distance(a2, bad, b2, pb2)
    except ic.Error:
        pass
    try:
        ic.closest(a2, (0, 0), b2, pb2)
    except ValueError:
        pass


def test_refcounts_unchanged():
    a2, b2 = ic.polygon(regular_polygon(8)), ic.circle(0.5)
    a3, b3 = ic.box3(1, 1, 1), ic.sphere(0.5)
    pa2, pb2 = np.array([0.0, 0.0, 0.1]), [3.0, 0.0, 0.0]
    pa3, pb3 = np.array([0, 0, 0, 0, 0, 0, 1.0]), (3.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0)
    stack3 = np.tile(pa3, (10, 1))
    bad = np.array([np.nan, 0, 0])
    objs = [a2, b2, a3, b3, pa2, pb2, pa3, pb3, stack3, bad]
    before = [sys.getrefcount(o) for o in objs]
    for _ in range(1000):
        calls(a2, b2, a3, b3, pa2, pb2, pa3, pb3, stack3, bad)
    assert [sys.getrefcount(o) for o in objs] == before


def test_no_growth_over_many_calls():
    a2, b2 = ic.polygon(regular_polygon(8)), ic.polygon(regular_polygon(8), 0.1)
    a3, b3 = ic.box3(1, 1, 1), ic.sphere(0.5)
    pa2, pb2 = np.array([0.0, 0.0, 0.1]), (3.0, 0.0, 0.0)
    pa3, pb3 = np.array([0, 0, 0, 0, 0, 0, 1.0]), (3.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0)
    stack3 = np.tile(pa3, (10, 1))
    bad = np.array([np.nan, 0, 0])
    args = (a2, b2, a3, b3, pa2, pb2, pa3, pb3, stack3, bad)
    for _ in range(2000):  # warm up: caches, interned strings, free lists
        calls(*args)
    gc.collect()
    tracemalloc.start()
    try:
        for _ in range(200):
            calls(*args)
        gc.collect()
        t0, _ = tracemalloc.get_traced_memory()
        rss0 = rss_bytes()
        for _ in range(N // 8):  # 8 calls each: N calls
            calls(*args)
        gc.collect()
        t1, _ = tracemalloc.get_traced_memory()
        rss1 = rss_bytes()
    finally:
        tracemalloc.stop()
    assert t1 - t0 < 16 * 1024, f"traced memory grew by {t1 - t0} bytes over {N} calls"
    if not SANITIZED:  # AddressSanitizer holds freed blocks back (its quarantine)
        assert rss1 - rss0 < 4 * 1024 * 1024, f"resident memory grew by {rss1 - rss0} bytes"


@pytest.mark.skipif(SANITIZED, reason="AddressSanitizer holds freed blocks back (its quarantine): RSS grows")
def test_shapes_freed(rng):
    pts = rng.normal(size=(64, 3))
    for _ in range(300):  # warm up
        ic.polytope(pts).vertices
    gc.collect()
    rss0 = rss_bytes()
    for _ in range(N // 20):
        s = ic.polytope(pts, 0.1)
        s.vertices, s.edges, s.faces
        ic.polygon(pts[:, :2])
        ic.ellipsoid(1, 2, 3)
        try:
            ic.polygon(np.full((4, 2), np.nan))
        except ic.Error:
            pass
    del s
    gc.collect()
    rss1 = rss_bytes()
    # 5,000 hulls of 64 points kept alive would take tens of megabytes.
    assert rss1 - rss0 < 4 * 1024 * 1024, f"resident memory grew by {rss1 - rss0} bytes"


def test_shape_outlives_nothing():
    """A result keeps no reference to its shapes; a shape dies with its last reference."""
    import weakref

    s = ic.sphere(1.0)
    with pytest.raises(TypeError):
        weakref.ref(s)  # no weak references: shapes are plain values
    before = sys.getrefcount(s)
    r = ic.closest(s, random_poses3(np.random.default_rng(1), 1)[0], ic.sphere(1.0), (5, 0, 0, 0, 0, 0, 1))
    assert sys.getrefcount(s) == before
    del r
