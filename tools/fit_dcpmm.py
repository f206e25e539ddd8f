#!/usr/bin/env python3
"""Fits the Ambix machine preset (crates/sim/src/tiers.rs, `ambix_dram` and
`ambix_dcpmm`) to the IWB throughput tables of Ambix Figures 2 and 3
(../shared/reference/ambix-iwb.csv).

The model is the one thermocline's performance model computes for IWB's
sequential sweep (crates/sim/src/perf.rs): with T threads and a fraction p of
pages in DRAM, an access costs p*lat_dram + (1-p)*lat_dcpmm of one thread's
time (a write-only entry is one read and one write), and each tier needs
bytes/bandwidth of wall time; the two bounds combine as a soft maximum
(x^n + y^n)^(1/n). Fitted by Nelder-Mead on the relative error of every cell.

Usage: python3 tools/fit_dcpmm.py [path/to/ambix-iwb.csv] [--holdout]

With --holdout it also validates the model out of sample: the cells are split
in two checkerboard halves (alternating DRAM shares within each thread count,
shifted by one between neighbouring thread counts), the model is fitted on
each half and its error reported on the other, overall and per cell type
(read-only / write-only, up to 8 threads / more).
"""
import csv
import math
import sys

ARGS = [a for a in sys.argv[1:] if not a.startswith("--")]
PATH = ARGS[0] if ARGS else "../shared/reference/ambix-iwb.csv"
HOLDOUT = "--holdout" in sys.argv[1:]


def load(path):
    rows = []
    with open(path) as f:
        for line in f:
            if line.startswith("#") or line.startswith("mode"):
                continue
            mode, pct, threads, m = line.strip().split(",")
            rows.append((mode, int(pct) / 100.0, int(threads), float(m)))
    return rows


def model(params, mode, p, t):
    """Million accesses per second."""
    rd, wd, rn, wn, bdr, bdw, bnr, bnw, n = params
    # ns of one thread per entry, and lines per entry.
    if mode == "ro":
        lat = p * rd + (1 - p) * rn
        bw = max(p * 64 / bdr, (1 - p) * 64 / bnr)
        per_entry = 1
    else:
        lat = p * (rd + wd) + (1 - p) * (rn + wn)
        bw = max(p * (64 / bdr + 64 / bdw), (1 - p) * (64 / bnr + 64 / bnw))
        per_entry = 2
    t_lat = lat / t
    t_entry = (t_lat**n + bw**n) ** (1 / n)
    return per_entry / t_entry * 1e3


def loss(params, rows):
    if min(params) <= 0 or params[8] < 1:
        return 1e9
    return sum(((model(params, *r[:3]) - r[3]) / r[3]) ** 2 for r in rows) / len(rows)


def nelder_mead(f, x0, steps, iters=20000):
    pts = [list(x0)]
    for i, s in enumerate(steps):
        x = list(x0)
        x[i] += s
        pts.append(x)
    vals = [f(p) for p in pts]
    for _ in range(iters):
        order = sorted(range(len(pts)), key=lambda i: vals[i])
        pts = [pts[i] for i in order]
        vals = [vals[i] for i in order]
        c = [sum(p[j] for p in pts[:-1]) / (len(pts) - 1) for j in range(len(x0))]
        xr = [c[j] + (c[j] - pts[-1][j]) for j in range(len(x0))]
        fr = f(xr)
        if fr < vals[0]:
            xe = [c[j] + 2 * (c[j] - pts[-1][j]) for j in range(len(x0))]
            fe = f(xe)
            pts[-1], vals[-1] = (xe, fe) if fe < fr else (xr, fr)
        elif fr < vals[-2]:
            pts[-1], vals[-1] = xr, fr
        else:
            xc = [c[j] + 0.5 * (pts[-1][j] - c[j]) for j in range(len(x0))]
            fc = f(xc)
            if fc < vals[-1]:
                pts[-1], vals[-1] = xc, fc
            else:
                for i in range(1, len(pts)):
                    pts[i] = [pts[0][j] + 0.5 * (pts[i][j] - pts[0][j]) for j in range(len(x0))]
                    vals[i] = f(pts[i])
    i = min(range(len(pts)), key=lambda i: vals[i])
    return pts[i], vals[i]


def fit(rows):
    # Starting point: single-thread and saturated cells read off the tables.
    x0 = [15.8, 8.2, 45.6, 83.3, 14.7, 10.3, 3.5, 0.83, 2.0]
    best, val = nelder_mead(lambda x: loss(x, rows), x0, [2, 2, 5, 10, 2, 2, 0.5, 0.2, 0.5])
    return nelder_mead(lambda x: loss(x, rows), best, [1, 1, 3, 5, 1, 1, 0.3, 0.1, 0.3])


def errors(params, rows):
    return [abs(model(params, *r[:3]) - r[3]) / r[3] for r in rows]


def summary(errs):
    if not errs:
        return "no cells"
    return f"mean {sum(errs)/len(errs):.3f}, max {max(errs):.3f} ({len(errs)} cells)"


def halves(rows):
    """Checkerboard: alternate DRAM shares, shifted by one per thread count."""
    threads = sorted({r[2] for r in rows})
    pcts = sorted({r[1] for r in rows})
    a, b = [], []
    for r in rows:
        side = (pcts.index(r[1]) + threads.index(r[2])) % 2
        (a if side == 0 else b).append(r)
    return a, b


def holdout(rows):
    kinds = [
        ("read-only", lambda r: r[0] == "ro"),
        ("write-only", lambda r: r[0] != "ro"),
        ("<= 8 threads", lambda r: r[2] <= 8),
        ("> 8 threads", lambda r: r[2] > 8),
    ]
    a, b = halves(rows)
    out_errs = []
    for name, (train, test) in [("A->B", (a, b)), ("B->A", (b, a))]:
        params, val = fit(train)
        ins, outs = errors(params, train), errors(params, test)
        out_errs.extend(zip(test, outs))
        print(f"fit on half {name[0]}, test on {name[-1]}: in sample {summary(ins)}; "
              f"out of sample {summary(outs)}")
    print(f"out of sample, both folds: {summary([e for _, e in out_errs])}")
    for kind, keep in kinds:
        print(f"  {kind:>13}: {summary([e for r, e in out_errs if keep(r)])}")


def main():
    rows = load(PATH)
    if HOLDOUT:
        holdout(rows)
        return
    best, val = fit(rows)
    names = ["dram read ns/thread", "dram write ns/thread", "dcpmm read ns/thread",
             "dcpmm write ns/thread", "dram read GB/s", "dram write GB/s",
             "dcpmm read GB/s", "dcpmm write GB/s", "soft-max exponent"]
    for n, v in zip(names, best):
        print(f"{n:>24}: {v:.4g}")
    errs = errors(best, rows)
    print(f"rms relative error {math.sqrt(val):.3f}, mean {sum(errs)/len(errs):.3f}, max {max(errs):.3f}")


if __name__ == "__main__":
    main()
