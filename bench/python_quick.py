#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Quick measure of the Python calls' overhead against the same C calls in
the same process (impact_collision._impact._c_loop_time runs the plain C
loop over the same shapes and poses, the poses made into imp_pose2/3
structs before its clock starts).

    PYTHONPATH=build/python /usr/bin/python3 bench/python_quick.py [--quick]

Single calls: 1e5 calls of distance / overlap on two 8-gons (2D) and a box
and a 20-point polytope (3D), from Python with the pose as a tuple and as a
float64 array, against a C loop of 1e5 calls. Batches: distance_batch and
overlap_batch over 1e5 poses against the C loop over the same 1e5 poses.
Each time is the median of several repeats.
"""
import statistics
import sys
import timeit

import numpy as np

import impact_collision as ic

QUICK = "--quick" in sys.argv
N = 10_000 if QUICK else 100_000
REPEAT = 3 if QUICK else 7


def median_time(fn, number=1):
    return statistics.median(timeit.repeat(fn, number=number, repeat=REPEAT)) / number


def c_loop(op, a, pa, b, pb, repeat=1, convert=False):
    return statistics.median(ic._impact._c_loop_time(op, a, pa, b, pb, repeat, convert)[0] for _ in range(REPEAT))


def ngon(n, r):
    t = 2 * np.pi * np.arange(n) / n
    return np.column_stack([r * np.cos(t), r * np.sin(t)])


def main():
    rng = np.random.default_rng(1)
    a2, b2 = ic.polygon(ngon(8, 1.0)), ic.polygon(ngon(8, 0.7))
    a3 = ic.box3(0.5, 0.4, 0.3)
    b3 = ic.polytope(rng.normal(size=(20, 3)) * 0.5)
    cases = [
        ("2D 8-gons", a2, b2, (0.0, 0.0, 0.0), (2.5, 0.3, 0.4)),
        ("3D box/polytope", a3, b3, (0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0), (2.0, 0.3, 0.1, 0.0, 0.0, 0.0, 1.0)),
    ]
    print(f"single calls: ns per call, median of {REPEAT} runs of {N} calls")
    print(f"{'pair':18} {'op':9} {'C loop':>8} {'Py tuple':>9} {'Py array':>9} {'overhead (tuple)':>17}")
    for name, a, b, pa, pb in cases:
        for op, fn in (("distance", ic.distance), ("overlap", ic.overlap)):
            c = c_loop(op, a, np.array(pa), b, np.array(pb), N) / N
            pa_arr, pb_arr = np.array(pa), np.array(pb)
            t_tuple = median_time(lambda: fn(a, pa, b, pb), N)
            t_arr = median_time(lambda: fn(a, pa_arr, b, pb_arr), N)
            print(f"{name:18} {op:9} {c * 1e9:8.0f} {t_tuple * 1e9:9.0f} {t_arr * 1e9:9.0f} {(t_tuple - c) * 1e9:14.0f} ns")
    print()
    print(f"batches of {N} poses (b's poses stacked, a's single): ns per item")
    print("C structs: the C loop over ready imp_pose2/3 structs; C rows: over the same (N, 3)/(N, 7) rows,")
    print("made into poses in the loop as the batch does (a 2D row's angle costs a sincos)")
    print(f"{'pair':18} {'op':9} {'C structs':>9} {'C rows':>8} {'batch':>8} {'/ structs':>10} {'/ rows':>7}")
    for name, a, b, pa, pb in cases:
        dim = a.dim
        if dim == 2:
            poses = np.column_stack([rng.uniform(-3, 3, (N, 2)), rng.uniform(-np.pi, np.pi, N)])
        else:
            q = rng.normal(size=(N, 4))
            poses = np.column_stack([rng.uniform(-3, 3, (N, 3)), q / np.linalg.norm(q, axis=1, keepdims=True)])
        pa_arr = np.array(pa)
        for op, fn in (("distance", ic.distance_batch), ("overlap", ic.overlap_batch)):
            c = c_loop(op, a, pa_arr, b, poses) / N
            cr = c_loop(op, a, pa_arr, b, poses, convert=True) / N
            t = median_time(lambda: fn(a, pa_arr, b, poses)) / N
            print(f"{name:18} {op:9} {c * 1e9:9.1f} {cr * 1e9:8.1f} {t * 1e9:8.1f} {t / c:10.3f} {t / cr:7.3f}")


if __name__ == "__main__":
    main()
