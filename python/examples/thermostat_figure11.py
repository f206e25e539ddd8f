"""Thermostat's Figure 11 from a sweep: the mean cold fraction (the share
of the footprint in slow memory, time-weighted over the run) and the
achieved slowdown of each application model at tolerable slowdowns of 3,
6 and 10%, drawn from the cells of examples/sweeps/thermostat-sensitivity.toml.

    python python/examples/thermostat_figure11.py OUT [--duration S] [--ray [ADDRESS]]

The cells are the runs of `thermocline reproduce thermostat-sensitivity`,
so the table printed is that reproduction's (at the paper's lengths the
24 runs take a long while: use --ray to spread them, or --duration to cap
them, as `reproduce --duration` does). Writes OUT/figure11.png.
"""

import argparse
import os
import sys
import tomllib

import thermocline

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
SPEC = os.path.join(ROOT, "examples", "sweeps", "thermostat-sensitivity.toml")


def cold_fraction(window):
    """Slow-tier share of the resident bytes in one metrics window."""
    total = sum(window["resident_bytes"])
    return sum(window["resident_bytes"][1:]) / total if total else 0.0


def time_mean(report, f):
    """Time-weighted mean of f over the report's windows (each window
    weighs the time since the one before)."""
    prev = area = 0.0
    for w in report.windows:
        area += f(w) * (w["t_s"] - prev)
        prev = w["t_s"]
    return area / prev if prev > 0 else 0.0


def figure(sweep):
    """{model: [(target, mean cold fraction, slowdown)]} in the spec's order."""
    table = sweep.table
    reports = sweep.reports()
    key = "thermostat-badgertrap.slowdown"
    out = {}
    for _, row in table.iterrows():
        r = reports[row["id"]]
        out.setdefault(row["run.workload"], []).append(
            (float(row[key]), time_mean(r, cold_fraction), r.slowdown)
        )
    return out


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("out")
    p.add_argument("--duration", type=float)
    p.add_argument("--ray", nargs="?", const="", default=None, metavar="ADDRESS")
    a = p.parse_args(argv)
    with open(SPEC, "rb") as f:
        spec = tomllib.load(f)
    if a.duration:
        spec["duration_s"] = a.duration
    s = thermocline.sweep(spec, a.out, executor="local" if a.ray is None else "ray",
                          address=a.ray or None)
    fig = figure(s)
    print("model                3%: cold  slowdown    6%: cold  slowdown   10%: cold  slowdown")
    for model, points in fig.items():
        cells = "".join(f" {c * 100:>10.1f}% {d * 100:>8.2f}%" for _, c, d in points)
        print(f"{model:<18}{cells}")

    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig_, ax = plt.subplots()
    for model, points in fig.items():
        ax.plot([t * 100 for t, _, _ in points], [c * 100 for _, c, _ in points], marker="o", label=model)
    ax.set_xlabel("tolerable slowdown (%)")
    ax.set_ylabel("mean cold fraction (%)")
    ax.set_title("Thermostat Figure 11: cold fraction by tolerable slowdown")
    # beside the axes: inside, it hides the points of the top lines
    ax.legend(fontsize="small", loc="center left", bbox_to_anchor=(1.02, 0.5))
    fig_.savefig(os.path.join(a.out, "figure11.png"), dpi=100, bbox_inches="tight")
    print(f"wrote {a.out}/figure11.png")
    return 0


if __name__ == "__main__":
    sys.exit(main())
