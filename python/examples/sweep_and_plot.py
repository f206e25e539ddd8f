"""A small sweep and its chart: slowdown against the fast tier's size for
four managers on the built-in multi-phase workload (its 8 s, on the rate
machine), three seeds each.

    python python/examples/sweep_and_plot.py [OUT_DIR]

Writes OUT_DIR/table.csv (one row per cell), OUT_DIR/slowdown.png, and
prints the mean slowdown per manager and size. Run it again: every cell is
already there, so it only redraws. Add executor="ray" to the sweep call to
run the cells as Ray tasks.
"""

import sys

import matplotlib

matplotlib.use("Agg")  # no display needed
import matplotlib.pyplot as plt

import thermocline

out = sys.argv[1] if len(sys.argv) > 1 else "example-sweep"
spec = {
    "name": "example",
    "seeds": [1, 2, 3],
    "grid": {
        "backend": ["rate"],
        "workload": ["multiphase"],
        "manager": ["first-touch", "ambix", "autonuma-tiering", "memos-placement"],
        "fast_capacity": ["25%", "50%", "75%"],
    },
}
s = thermocline.sweep(spec, out)
print(f"{s.cells} cells, {s.resumed} already there")

t = s.table
t["fast %"] = t["run.fast_capacity"].str.rstrip("%").astype(int)
mean = t.groupby(["run.manager", "fast %"])["slowdown"].mean().unstack("run.manager") * 100
print(mean.round(2).to_string())

ax = mean.plot(marker="o", title="multiphase on the rate machine, mean of 3 seeds")
ax.set_xlabel("fast tier (% of the footprint)")
ax.set_ylabel("slowdown (%)")
plt.savefig(f"{out}/slowdown.png", dpi=100, bbox_inches="tight")
print(f"wrote {out}/slowdown.png")
