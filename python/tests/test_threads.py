# SPDX-License-Identifier: MIT
"""The batch calls release the GIL: other threads run meanwhile, and
concurrent batches on shared shapes give the serial answers."""
import threading
import time

import numpy as np

import impact_collision as ic
from conftest import SANITIZED, random_poses3, regular_polygon


def test_concurrent_batches_match_serial(rng):
    a = ic.polytope(rng.normal(size=(40, 3)))
    b = ic.box3(0.5, 0.4, 0.3, radius=0.05)
    n = 5_000 if SANITIZED else 20_000
    stacks = [(random_poses3(rng, n, 2.0), random_poses3(rng, n, 2.0)) for _ in range(4)]
    serial = [(ic.distance_batch(a, pa, b, pb), ic.overlap_batch(a, pa, b, pb)) for pa, pb in stacks]
    results = [None] * len(stacks)
    errors = []

    def work(k):
        try:
            pa, pb = stacks[k]
            for _ in range(3):
                results[k] = (ic.distance_batch(a, pa, b, pb), ic.overlap_batch(a, pa, b, pb))
        except BaseException as e:  # reported below
            errors.append(e)

    threads = [threading.Thread(target=work, args=(k,)) for k in range(len(stacks))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    for (d, o), (sd, so) in zip(results, serial):
        assert np.array_equal(d, sd) and np.array_equal(o, so)


def main_thread_coverage(call):
    """The fraction of `call`'s time (run on a second thread) during which
    the main thread ran Python code. A call that holds the GIL lets it run
    at most once, for a switch interval, if the second thread is switched
    out between reading the clock and making the call."""
    started, done = threading.Event(), threading.Event()
    span = {}

    def work():
        started.set()
        t0 = time.perf_counter()
        call()
        span["t"] = (t0, time.perf_counter())
        done.set()

    t = threading.Thread(target=work)
    t.start()
    started.wait()
    stamps, spins = [], 0
    while not done.is_set():
        spins += 1
        if spins % 64 == 0:
            stamps.append(time.perf_counter())
    t.join()
    t0, t1 = span["t"]
    inside = [s for s in stamps if t0 < s < t1]
    return (max(inside) - min(inside)) / (t1 - t0) if len(inside) > 1 else 0.0


def test_gil_released_during_batch():
    a = ic.polygon(regular_polygon(64))
    b = ic.polygon(regular_polygon(64, 0.5))
    n = 100_000 if SANITIZED else 300_000
    poses = np.column_stack([np.linspace(2, 5, n), np.zeros(n), np.linspace(0, 6, n)])
    out = {}

    def batch():
        out["d"] = ic.distance_batch(a, poses, b, (0.0, 0.0, 0.0))

    coverage = main_thread_coverage(batch)
    assert out["d"].shape == (n,) and np.all(out["d"] > 0)
    assert coverage > 0.5, f"the main thread ran during {coverage:.0%} of the batch"
    # The test's own check: a C call that keeps the GIL (sum over a range) is
    # not taken for one that lets go of it.
    held = main_thread_coverage(lambda: sum(range(3_000_000)))
    assert held < 0.5, f"the check is broken: {held:.0%} with the GIL held"
