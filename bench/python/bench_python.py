#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""bench/python: what a call from Python costs over the same call in C,
measured in the same run on the same data.

    PYTHONPATH=build/python /usr/bin/python3 bench/python/bench_python.py [--quick] [--c-side build/bench/python/c_side]

`meson test --benchmark python` runs the quick mode (small counts, 3
repeats, under 20 s) when the Python package is built.

Sections (each time a median over repeated runs; the C and the Python
measurements of a row are interleaved within each repetition, in an order
rotated from one repetition to the next, so that a slow spell of the machine
falls on both and neither side always runs first):

1. Single pairwise calls: `distance` and `overlap` on two 8-gons (2D) and a
   box and a 20-point polytope (3D), called N times from a Python loop with
   the pose as a tuple and as a float64 array, against the C loop of the
   same call (`impact_collision._impact._c_loop_time`, in this process,
   poses made into structs before its clock starts). Overhead = Python - C
   per call (the Python loop's own iteration included).
2. Single world queries: `World.overlap_any(shape, pose)` and
   `World.nearest(shape, pose)` on a 10k-body world (3D: boxes and spheres;
   2D: boxes and discs; static, spread uniformly as in bench/queries) with a
   box and a sphere (disc) at random poses, against `imp_world_overlap_any`
   and `imp_world_nearest` in the C program c_side (bench/python/c_side.c),
   which reads the scene this script writes and builds the same world. Its
   answers are checked equal to Python's (hits, nearest indices, the sum of
   the distances bit for bit) before timing.
3. Batches of N poses: `overlap_batch` / `distance_batch` against the C loop
   (structs ready, and rows made into poses in the loop as the batch does);
   `World.overlap_any_batch` / `World.nearest_batch` against c_side's loop of
   single calls (structs, rows) and its batch call.
4. Peers: Shapely (Debian's python3-shapely), a 2D geometry library, on the
   same 8-gons at the same poses: `Polygon.intersects` and
   `Polygon.distance`, on polygons placed beforehand and with the pose
   applied in the call (`shapely.affinity.affine_transform`). Skipped with a
   message when Shapely is not installed.
"""
import argparse
import gc
import math
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np

import impact_collision as ic

try:
    import shapely
    from shapely import affinity as shapely_affinity
    from shapely.geometry import Polygon as ShapelyPolygon
except ImportError:
    shapely = None

perf_ns = time.perf_counter_ns

# The Python collision packages looked for at run time (import name, Debian
# package). Only Shapely offers a call comparable per call from Python here.
PEER_MODULES = [
    ("shapely", "python3-shapely"),
    ("fcl", "python3-fcl"),
    ("pybullet", "python3-pybullet"),
    ("trimesh", "python3-trimesh"),
    ("coal", "python3-coal"),
    ("hppfcl", "python3-hppfcl"),
    ("open3d", "python3-open3d"),
    ("pymunk", "python3-pymunk"),
]


def parse_args():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="small counts and 3 repeats (a smoke run, < 20 s)")
    ap.add_argument("--c-side", help="the c_side program (default: bench/python/c_side beside the package's build)")
    ap.add_argument("--reps", type=int, help="repeats of each measurement (default 7, quick 3)")
    return ap.parse_args()


class Config:
    def __init__(self, quick, reps):
        self.quick = quick
        self.reps = reps or (3 if quick else 7)
        self.n_single = 10_000 if quick else 100_000  # pairwise single calls per timed loop
        self.n_world_single = 1_000 if quick else 20_000  # world single queries per timed loop
        self.n_batch = 10_000 if quick else 100_000  # poses of a batch
        self.world_bodies = 10_000
        self.n_shapely_batch = 2_000 if quick else 20_000


def med(xs):
    return statistics.median(xs)


def fmt_ns(ns):
    if ns != ns:
        return "-"
    return f"{ns:.0f}" if abs(ns) >= 1000 else f"{ns:.1f}"


def table(header, aligns, rows):
    print("| " + " | ".join(header) + " |")
    print("| " + " | ".join("---:" if a == "r" else "---" for a in aligns) + " |")
    for r in rows:
        print("| " + " | ".join(r) + " |")
    print()


# ---- timed Python loops (locals only; the loop's own iteration is counted)


def loop_pair(fn, a, pa, b, pb, n):
    r = range(n)
    t0 = perf_ns()
    for _ in r:
        fn(a, pa, b, pb)
    return (perf_ns() - t0) / n


def loop_empty(n):
    r = range(n)
    t0 = perf_ns()
    for _ in r:
        pass
    return (perf_ns() - t0) / n


def loop_world(fn, shape, poses):
    t0 = perf_ns()
    for p in poses:
        fn(shape, p)
    return (perf_ns() - t0) / len(poses)


def run_rotated(rep, measures):
    """Runs the (list, thunk) pairs of one row, each appending its time, in an
    order rotated by the repetition's number, so that no side always runs
    first (or right after the other process)."""
    k = rep % len(measures)
    for out, thunk in measures[k:] + measures[:k]:
        out.append(thunk())


def once(fn, *args):
    t0 = perf_ns()
    fn(*args)
    return perf_ns() - t0


# ---- shapes, poses, scenes


def ngon(n, r):
    t = 2 * np.pi * np.arange(n) / n
    return np.column_stack([r * np.cos(t), r * np.sin(t)])


def random_quats(rng, n):
    # Shoemake's uniform rotation, as (qx, qy, qz, qw).
    u1, u2, u3 = rng.random(n), 2 * np.pi * rng.random(n), 2 * np.pi * rng.random(n)
    a, b = np.sqrt(1 - u1), np.sqrt(u1)
    return np.column_stack([a * np.sin(u2), a * np.cos(u2), b * np.sin(u3), b * np.cos(u3)])


def random_poses(rng, dim, n, lo, hi):
    """(n, 7) rows: 3D x y z qx qy qz qw; 2D x y angle and four zeros."""
    out = np.zeros((n, 7))
    if dim == 3:
        out[:, :3] = rng.uniform(lo, hi, (n, 3))
        out[:, 3:] = random_quats(rng, n)
    else:
        out[:, :2] = rng.uniform(lo, hi, (n, 2))
        out[:, 2] = rng.uniform(-np.pi, np.pi, n)
    return out


MAGIC = float(0x1A5C3E)


class Scene:
    """A world of n static boxes and spheres (discs), sides 0.4 to 1.2, radii
    0.2 to 0.5, spread uniformly over a cube (square) of side 2 n^(1/dim)
    (about one body per 2^dim cube of side 2, as in bench/queries), and
    query poses in the same region. Query shapes: a box (1.0 x 0.6 x 0.8)
    and a sphere (disc) of radius 0.4."""

    QUERY_SHAPES = np.array([[0, 0.5, 0.3, 0.4, 0.0], [1, 0.0, 0.0, 0.0, 0.4]])
    QUERY_NAMES = ["box", "sphere"]

    def __init__(self, dim, n, nq, seed):
        rng = np.random.default_rng(seed)
        self.dim, self.n, self.nq = dim, n, nq
        self.side = 2.0 * n ** (1.0 / dim)
        self.bodies = np.zeros((n, 12))
        self.bodies[:, 0] = rng.integers(0, 2, n)
        self.bodies[:, 1:4] = rng.uniform(0.2, 0.6, (n, 3))
        self.bodies[:, 4] = rng.uniform(0.2, 0.5, n)
        self.bodies[:, 5:12] = random_poses(rng, dim, n, 0.0, self.side)
        self.poses7 = random_poses(rng, dim, nq, 0.0, self.side)
        pw = 3 if dim == 2 else 7
        self.poses = np.ascontiguousarray(self.poses7[:, :pw])  # the stack Python's batches take
        if dim == 2:
            self.query_names = ["box", "disc"]
        else:
            self.query_names = list(self.QUERY_NAMES)

    def make_shape(self, row):
        kind, hx, hy, hz, r = row
        if self.dim == 2:
            return ic.box2(hx, hy) if kind == 0 else ic.circle(r)
        return ic.box3(hx, hy, hz) if kind == 0 else ic.sphere(r)

    def write(self, path):
        header = np.array([MAGIC, 1, self.dim, self.n, len(self.QUERY_SHAPES), self.nq, 0, 0], dtype=np.float64)
        with open(path, "wb") as f:
            for arr in (header, self.bodies, self.QUERY_SHAPES, self.poses7):
                np.ascontiguousarray(arr, dtype="<f8").tofile(f)

    def world(self):
        w = ic.World(self.dim)
        pw = 3 if self.dim == 2 else 7
        for row in self.bodies:
            w.add_body(self.make_shape(row[:5]), tuple(float(v) for v in row[5:5 + pw]), "static")
        w.update()
        self.query_shapes = [self.make_shape(row) for row in self.QUERY_SHAPES]
        return w


class CSide:
    """c_side --serve over a pipe: one command, one answer line."""

    def __init__(self, exe, scene_path):
        self.p = subprocess.Popen([exe, scene_path, "--serve"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  text=True, bufsize=1)

    def ask(self, mode, op, q, n):
        self.p.stdin.write(f"{mode} {op} {q} {n}\n")
        self.p.stdin.flush()
        line = self.p.stdout.readline().split()
        if not line or line[0] == "error":
            raise RuntimeError(f"c_side: {' '.join(line) or 'no answer (did it exit?)'}")
        return float(line[0]), int(line[1]), int(line[2]), float(line[3])

    def close(self):
        try:
            self.p.stdin.write("quit\n")
            self.p.stdin.close()
        except OSError:
            pass
        self.p.wait(timeout=30)


def default_c_side():
    # build/python/impact_collision/__init__.py -> build/bench/python/c_side
    build = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(ic.__file__))))
    return os.path.join(build, "bench", "python", "c_side")


# ---- 1. single pairwise calls


def pair_cases():
    rng = np.random.default_rng(1)
    a2, b2 = ic.polygon(ngon(8, 1.0)), ic.polygon(ngon(8, 0.7))
    a3 = ic.box3(0.5, 0.4, 0.3)
    b3 = ic.polytope(rng.normal(size=(20, 3)) * 0.5)
    return [
        ("2D 8-gons", a2, b2, (0.0, 0.0, 0.0), (2.5, 0.3, 0.4)),
        ("3D box / polytope", a3, b3, (0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0), (2.0, 0.3, 0.1, 0.0, 0.0, 0.0, 1.0)),
    ]


def shapely_pose(geom, pose):
    x, y, ang = pose
    c, s = math.cos(ang), math.sin(ang)
    return shapely_affinity.affine_transform(geom, [c, -s, s, c, x, y])


def shapely_loop_placed(fn, a, b, n):
    r = range(n)
    t0 = perf_ns()
    for _ in r:
        fn(a, b)
    return (perf_ns() - t0) / n


def shapely_loop_posed(fn, a, b, pb, n):
    # b moved to its pose in every call (a's pose is the identity: not moved).
    r = range(n)
    aff = shapely_affinity.affine_transform
    cos, sin = math.cos, math.sin
    t0 = perf_ns()
    for _ in r:
        x, y, ang = pb
        c, s = cos(ang), sin(ang)
        fn(a, aff(b, [c, -s, s, c, x, y]))
    return (perf_ns() - t0) / n


def section_single(cfg, shp):
    n, reps = cfg.n_single, cfg.reps
    cases = pair_cases()
    rows = []
    empty = []
    peer = {}
    results = {}
    for name, a, b, pa, pb in cases:
        for op, fn in (("distance", ic.distance), ("overlap", ic.overlap)):
            results[(name, op)] = {"c": [], "tuple": [], "array": []}
    if shp:
        sa, sb = shp["a"], shp["b"]
        sb_placed = shapely_pose(sb, cases[0][4])
        for op in ("distance", "overlap"):
            peer[op] = {"impact": [], "placed": [], "posed": []}
    for rep in range(reps):
        empty.append(loop_empty(n))
        for name, a, b, pa, pb in cases:
            pa_arr, pb_arr = np.array(pa), np.array(pb)
            for op, fn in (("distance", ic.distance), ("overlap", ic.overlap)):
                r = results[(name, op)]
                run_rotated(rep, [
                    (r["c"], lambda: ic._impact._c_loop_time(op, a, pa_arr, b, pb_arr, n)[0] / n * 1e9),
                    (r["tuple"], lambda: loop_pair(fn, a, pa, b, pb, n)),
                    (r["array"], lambda: loop_pair(fn, a, pa_arr, b, pb_arr, n)),
                ])
        if shp:
            _, a, b, pa, pb = cases[0]
            for op, fn, sfn in (("distance", ic.distance, ShapelyPolygon.distance),
                                ("overlap", ic.overlap, ShapelyPolygon.intersects)):
                m = max(1, n // 10)  # Shapely's calls are slower: fewer of them
                run_rotated(rep, [
                    (peer[op]["impact"], lambda: loop_pair(fn, a, pa, b, pb, m)),
                    (peer[op]["placed"], lambda: shapely_loop_placed(sfn, sa, sb_placed, m)),
                    (peer[op]["posed"], lambda: shapely_loop_posed(sfn, sa, sb, pb, m)),
                ])
    print(f"## Single pairwise calls: ns per call, median of {reps} runs of {n} calls\n")
    print("C: `_c_loop_time`'s C loop of the same call (poses made into structs before its clock).")
    print("Python: a `for` loop of the call with the poses as tuples or as float64 arrays; the loop's")
    print(f"own iteration ({fmt_ns(med(empty))} ns, an empty loop) is counted in the Python columns and the overhead.\n")
    for (name, op), r in results.items():
        c, t, arr = med(r["c"]), med(r["tuple"]), med(r["array"])
        over_t, over_a = t - c, arr - c
        rows.append([name, op, fmt_ns(c), fmt_ns(t), fmt_ns(arr), fmt_ns(over_t), fmt_ns(over_a),
                     "yes" if max(over_t, over_a) <= 1000 else "NO"])
    table(["pair", "op", "C loop", "Py tuple", "Py array", "overhead tuple", "overhead array", "<= 1 us"],
          "llrrrrrl", rows)
    return peer


def print_peer_single(cfg, peer, shp_check):
    if not peer:
        return
    m = max(1, cfg.n_single // 10)
    print(f"## Peer: Shapely {shapely.__version__} (GEOS {shapely_geos()}), 2D 8-gons from Python: ns per call, "
          f"median of {cfg.reps} runs of {m} calls\n")
    print("Same polygons, same poses (a at the identity, b at (2.5, 0.3, 0.4): apart). impact: ic.distance /")
    print("ic.overlap with tuple poses. Shapely placed: Polygon.distance / Polygon.intersects on b placed")
    print("beforehand (the query alone). Shapely + pose: b moved to its pose in the call (math.cos/sin, then")
    print("shapely.affinity.affine_transform; a is not moved, its pose being the identity), then the query.")
    print(f"Check: {shp_check}\n")
    rows = []
    for op, sname in (("distance", "distance"), ("overlap", "intersects")):
        r = peer[op]
        i, p, q = med(r["impact"]), med(r["placed"]), med(r["posed"])
        rows.append([f"{op} / {sname}", fmt_ns(i), fmt_ns(p), fmt_ns(q), f"{p / i:.2f}", f"{q / i:.2f}"])
    table(["op (impact / Shapely)", "impact", "Shapely placed", "Shapely + pose", "placed / impact",
           "+ pose / impact"], "lrrrrr", rows)


def shapely_geos():
    try:
        return ".".join(str(v) for v in shapely.geos.geos_version)
    except AttributeError:
        return "?"


def shapely_setup():
    if shapely is None:
        return None, None
    a = ShapelyPolygon(ngon(8, 1.0))
    b = ShapelyPolygon(ngon(8, 0.7))
    # Check: the same answers as impact at a few poses.
    rng = np.random.default_rng(5)
    ia, ib = ic.polygon(ngon(8, 1.0)), ic.polygon(ngon(8, 0.7))
    worst, disagree, k = 0.0, 0, 200
    for _ in range(k):
        pose = (rng.uniform(-2.5, 2.5), rng.uniform(-2.5, 2.5), rng.uniform(-math.pi, math.pi))
        bp = shapely_pose(b, pose)
        d_imp = ic.distance(ia, (0, 0, 0), ib, pose)
        if d_imp > 0:
            worst = max(worst, abs(d_imp - a.distance(bp)))
        if bool(ic.overlap(ia, (0, 0, 0), ib, pose)) != bool(a.intersects(bp)):
            disagree += 1
    check = (f"over {k} random poses, Shapely's distance equals impact's to {worst:.1e} where apart, "
             f"overlap/intersects disagree {disagree} times")
    return {"a": a, "b": b}, check


# ---- 2. single world queries, 3. batches


def build_world_rigs(cfg, c_side, tmpdir):
    rigs = []
    for dim in (3, 2):
        sc = Scene(dim, cfg.world_bodies, max(cfg.n_batch, cfg.n_world_single), seed=0x51E7 + dim)
        path = os.path.join(tmpdir, f"scene{dim}.bin")
        sc.write(path)
        w = sc.world()
        cs = CSide(c_side, path)
        rigs.append((sc, w, cs))
    return rigs


def check_world(rigs, n_single, n_batch):
    """Python's answers against c_side's on the same poses; raises when they differ."""
    lines = []
    for sc, w, cs in rigs:
        for q, qs in enumerate(sc.query_shapes):
            tuples = [tuple(map(float, r)) for r in sc.poses[:n_single]]
            any_py = [w.overlap_any(qs, p) for p in tuples]
            near_py = [w.nearest(qs, p) for p in tuples]
            hits = sum(any_py)
            idx = sum(r.id & 0xFFFFFFFF for r in near_py)
            dsum = 0.0
            for r in near_py:
                dsum += r.distance
            _, c_hits, _, _ = cs.ask("single", "any", q, n_single)
            _, c_nhits, c_idx, c_dsum = cs.ask("single", "nearest", q, n_single)
            if c_hits != hits or c_idx != idx or c_dsum != dsum:
                raise SystemExit(f"bench_python: {sc.dim}D {sc.query_names[q]}: c_side's answers differ from "
                                 f"Python's (hits {c_hits} vs {hits}, indices {c_idx} vs {idx}, "
                                 f"distance sums {c_dsum!r} vs {dsum!r})")
            b_any = w.overlap_any_batch(qs, sc.poses[:n_batch])
            ids, dist = w.nearest_batch(qs, sc.poses[:n_batch])[:2]
            _, cb_hits, _, _ = cs.ask("batch", "any", q, n_batch)
            _, _, cb_idx, cb_dsum = cs.ask("batch", "nearest", q, n_batch)
            bd = 0.0
            for d in dist.tolist():
                bd += d
            b_idx = int(np.sum(ids & np.uint64(0xFFFFFFFF)))
            if cb_hits != int(b_any.sum()) or cb_idx != b_idx or cb_dsum != bd:
                raise SystemExit(f"bench_python: {sc.dim}D {sc.query_names[q]}: batch answers differ from c_side's")
            lines.append(f"{sc.dim}D {sc.query_names[q]}: {hits} of {n_single} single poses overlap a body "
                         f"({100.0 * hits / n_single:.0f}%), {int(b_any.sum())} of {n_batch} batch poses")
    return lines


def section_world(cfg, rigs, check_lines):
    n, reps = cfg.n_world_single, cfg.reps
    res = {}
    for sc, w, cs in rigs:
        tuples = [tuple(map(float, r)) for r in sc.poses[:n]]
        arrays = [np.array(r) for r in sc.poses[:n]]
        sc.tuples, sc.arrays = tuples, arrays
        for q in range(len(sc.query_shapes)):
            for op in ("any", "nearest"):
                res[(sc.dim, q, op)] = {"c": [], "tuple": [], "array": []}
    for rep in range(reps):
        for sc, w, cs in rigs:
            for q, qs in enumerate(sc.query_shapes):
                for op, fn in (("any", w.overlap_any), ("nearest", w.nearest)):
                    r = res[(sc.dim, q, op)]
                    run_rotated(rep, [
                        (r["c"], lambda: cs.ask("single", op, q, n)[0]),
                        (r["tuple"], lambda: loop_world(fn, qs, sc.tuples)),
                        (r["array"], lambda: loop_world(fn, qs, sc.arrays)),
                    ])
    print(f"## Single world queries: ns per call, median of {reps} runs of {n} calls (each on another pose)\n")
    print(f"Worlds of {cfg.world_bodies} static bodies (3D: boxes and spheres; 2D: boxes and discs), hash broad")
    print("phase, one worker. C: c_side's loop of imp_world_overlap_any / imp_world_nearest on the same world")
    print("built from the same file, over the same poses (structs made before its clock). Python: a `for`")
    print("loop over a list of tuple poses, or of 1-D float64 arrays. Answers checked identical first:")
    for line in check_lines:
        print(f"- {line}")
    print()
    rows = []
    for sc, w, cs in rigs:
        for q in range(len(sc.query_shapes)):
            for op, pname in (("any", "overlap_any"), ("nearest", "nearest")):
                r = res[(sc.dim, q, op)]
                c, t, arr = med(r["c"]), med(r["tuple"]), med(r["array"])
                rows.append([f"{sc.dim}D", sc.query_names[q], pname, fmt_ns(c), fmt_ns(t), fmt_ns(arr),
                             fmt_ns(t - c), fmt_ns(arr - c), "yes" if max(t - c, arr - c) <= 1000 else "NO"])
    table(["world", "query", "op", "C loop", "Py tuple", "Py array", "overhead tuple", "overhead array", "<= 1 us"],
          "lllrrrrrl", rows)


def section_batch(cfg, rigs, shp):
    n, reps = cfg.n_batch, cfg.reps
    rng = np.random.default_rng(2)
    pair = {}
    cases = pair_cases()
    stacks = {}
    for name, a, b, pa, pb in cases:
        if a.dim == 2:
            stacks[name] = np.column_stack([rng.uniform(-3, 3, (n, 2)), rng.uniform(-np.pi, np.pi, n)])
        else:
            qq = rng.normal(size=(n, 4))
            stacks[name] = np.column_stack([rng.uniform(-3, 3, (n, 3)), qq / np.linalg.norm(qq, axis=1, keepdims=True)])
        for op in ("distance", "overlap"):
            pair[(name, op)] = {"structs": [], "rows": [], "batch": []}
    world = {}
    for sc, w, cs in rigs:
        for q in range(len(sc.query_shapes)):
            for op in ("any", "nearest"):
                world[(sc.dim, q, op)] = {"structs": [], "rows": [], "cbatch": [], "batch": []}
    peer = None
    if shp:
        m = cfg.n_shapely_batch
        st = stacks[cases[0][0]][:m]
        placed = [shapely_pose(shp["b"], tuple(r)) for r in st.tolist()]
        peer = {"impact": {"distance": [], "overlap": []}, "distance": [], "overlap": [], "m": m, "placed": placed,
                "stack": st}
    gc.collect()
    def shapely_loop(sfn, sa, placed, m):
        t0 = perf_ns()
        for g in placed:
            sfn(sa, g)
        return (perf_ns() - t0) / m

    for rep in range(reps):
        for name, a, b, pa, pb in cases:
            pa_arr, poses = np.array(pa), stacks[name]
            for op, fn in (("distance", ic.distance_batch), ("overlap", ic.overlap_batch)):
                r = pair[(name, op)]
                run_rotated(rep, [
                    (r["structs"], lambda: ic._impact._c_loop_time(op, a, pa_arr, b, poses, 1)[0] / n * 1e9),
                    (r["rows"], lambda: ic._impact._c_loop_time(op, a, pa_arr, b, poses, 1, True)[0] / n * 1e9),
                    (r["batch"], lambda: once(fn, a, pa_arr, b, poses) / n),
                ])
        for sc, w, cs in rigs:
            for q, qs in enumerate(sc.query_shapes):
                for op, fn in (("any", w.overlap_any_batch), ("nearest", w.nearest_batch)):
                    r = world[(sc.dim, q, op)]
                    run_rotated(rep, [
                        (r["structs"], lambda: cs.ask("single", op, q, n)[0]),
                        (r["rows"], lambda: cs.ask("rows", op, q, n)[0]),
                        (r["cbatch"], lambda: cs.ask("batch", op, q, n)[0]),
                        (r["batch"], lambda: once(fn, qs, sc.poses[:n]) / n),
                    ])
        if peer:
            _, a, b, pa, pb = cases[0]
            m, st, placed = peer["m"], peer["stack"], peer["placed"]
            sa = shp["a"]
            for op, fn, sfn in (("distance", ic.distance_batch, ShapelyPolygon.distance),
                                ("overlap", ic.overlap_batch, ShapelyPolygon.intersects)):
                run_rotated(rep, [
                    (peer["impact"][op], lambda: once(fn, a, np.array(pa), b, st) / m),
                    (peer[op], lambda: shapely_loop(sfn, sa, placed, m)),
                ])
    print(f"## Batches of {n} poses: ns per item, median of {reps} runs\n")
    print("Pairwise (a's pose single, b's stacked): C structs is `_c_loop_time`'s C loop over ready")
    print("imp_pose2/3 structs; C rows reads the same (N, 3) / (N, 7) rows and makes the poses in the loop, as")
    print("the batch must (a 2D row's angle costs a sincos). Python: one `overlap_batch` / `distance_batch` call")
    print("(argument checks, the rows made into poses, the output array).\n")
    rows = []
    for (name, op), r in pair.items():
        s, ro, b = med(r["structs"]), med(r["rows"]), med(r["batch"])
        rows.append([name, f"{op}_batch", fmt_ns(s), fmt_ns(ro), fmt_ns(b), f"{b / s:.2f}", f"{b / ro:.2f}",
                     "yes" if b / ro <= 1.2 else "NO"])
    table(["pair", "call", "C structs", "C rows", "Py batch", "batch / structs", "batch / rows", "<= 1.2x rows"],
          "llrrrrrl", rows)
    print(f"World (the worlds above, {n} query poses): c_side's loop of single calls over ready structs (C")
    print("structs) and making each pose from its row in the loop (C rows), and its one imp_world_*_batch")
    print("call (C batch), against one `World.overlap_any_batch` / `World.nearest_batch` call from Python.")
    print("The C batch first tries the body found for the previous pose (a hint for poses along a path):")
    print("on these random poses that is one more narrow-phase call per pose, so batch / C batch is the")
    print("binding's own cost and batch / structs includes the hint's.\n")
    rows = []
    for sc, w, cs in rigs:
        for q in range(len(sc.query_shapes)):
            for op, pname in (("any", "overlap_any_batch"), ("nearest", "nearest_batch")):
                r = world[(sc.dim, q, op)]
                s, ro, cb, b = med(r["structs"]), med(r["rows"]), med(r["cbatch"]), med(r["batch"])
                rows.append([f"{sc.dim}D", sc.query_names[q], pname, fmt_ns(s), fmt_ns(ro), fmt_ns(cb), fmt_ns(b),
                             f"{b / s:.2f}", f"{b / ro:.2f}", f"{b / cb:.2f}", "yes" if b / s <= 1.2 else "NO"])
    table(["world", "query", "call", "C structs", "C rows", "C batch", "Py batch", "batch / structs", "batch / rows",
           "batch / C batch", "<= 1.2x structs"], "lllrrrrrrrl", rows)
    if peer:
        m = peer["m"]
        print(f"Peer: Shapely has no batch call in {shapely.__version__}: a Python loop over {m} polygons placed")
        print("beforehand (the placing not timed) against impact's batch over the same poses; ns per item.\n")
        rows = []
        for op, sname in (("distance", "distance"), ("overlap", "intersects")):
            i, p = med(peer["impact"][op]), med(peer[op])
            rows.append([f"{op}_batch / loop of {sname}", fmt_ns(i), fmt_ns(p), f"{p / i:.1f}"])
        table(["2D 8-gons (impact / Shapely)", "impact batch", "Shapely loop (placed)", "Shapely / impact"], "lrrr",
              rows)


def describe_run(cfg, c_side):
    u = platform.uname()
    cpu = "unknown CPU"
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    print(f"# bench/python ({'quick' if cfg.quick else 'full'} mode)\n")
    print(f"- machine: {u.system} {u.release} {u.machine}, {cpu}, {os.cpu_count()} CPUs")
    print(f"- date: {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}")
    print(f"- Python {platform.python_version()} ({sys.executable}), numpy {np.__version__}, "
          f"impact_collision {getattr(ic, '__version__', '?')} from {os.path.dirname(ic.__file__)}")
    print(f"- c_side: {c_side or 'not found'}")
    found = []
    for mod, pkg in PEER_MODULES:
        try:
            __import__(mod)
            found.append(f"{mod} ({pkg}): found")
        except ImportError:
            found.append(f"{mod} ({pkg}): not installed")
    print(f"- peers: {'; '.join(found)}")
    print()


def main():
    args = parse_args()
    cfg = Config(args.quick, args.reps)
    c_side = args.c_side or default_c_side()
    if not (os.path.isfile(c_side) and os.access(c_side, os.X_OK)):
        print(f"bench_python: c_side not found at {c_side}: the world sections are skipped "
              "(build bench/python, or pass --c-side)", file=sys.stderr)
        c_side = None
    describe_run(cfg, c_side)
    t_start = time.perf_counter()
    shp, shp_check = shapely_setup()
    if shp is None:
        print("Shapely not installed (Debian: apt-get install python3-shapely): no peer rows.\n")
    gc_was = gc.isenabled()
    gc.disable()
    try:
        peer = section_single(cfg, shp)
        print_peer_single(cfg, peer, shp_check)
        with tempfile.TemporaryDirectory(prefix="bench_python_") as tmpdir:
            rigs = []
            try:
                if c_side:
                    rigs = build_world_rigs(cfg, c_side, tmpdir)
                    lines = check_world(rigs, cfg.n_world_single, cfg.n_batch)
                    section_world(cfg, rigs, lines)
                section_batch(cfg, rigs, shp)
            finally:
                for _, w, cs in rigs:
                    cs.close()
                    w.close()
    finally:
        if gc_was:
            gc.enable()
    print(f"total time {time.perf_counter() - t_start:.1f} s")


if __name__ == "__main__":
    main()
