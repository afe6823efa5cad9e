"""The report's pictures, drawn with matplotlib and returned as inline SVG text.

Only the object-oriented API (`Figure`, no pyplot): no global state, no display needed. Text stays
text (`svg.fonttype: none`) and ids are salted with a constant, so the same report gives the same
bytes. Math text is off: a scenario name is user input and `$` in it must stay a dollar sign.
"""

from __future__ import annotations

import io
import math
from collections import defaultdict
from typing import Any

import matplotlib

matplotlib.use("Agg")
from matplotlib.axes import Axes  # noqa: E402  (after the backend is chosen)
from matplotlib.figure import Figure  # noqa: E402
from matplotlib.patches import Rectangle  # noqa: E402

from dualrail_net.capacity.failures import ScenarioImpact  # noqa: E402
from dualrail_net.capacity.figures import CapacityFigures  # noqa: E402
from dualrail_net.capacity.run import ModelFigures  # noqa: E402
from dualrail_net.resolve.model import Fabric, Switch  # noqa: E402

RC: dict[Any, Any] = {"svg.fonttype": "none", "svg.hashsalt": "dualrail", "text.parse_math": False, "font.size": 9}
# Above this many switches in a plane the picture shows pods and groups, not every box and cable.
DETAILED_UP_TO = 160
_PLURAL = {"leaf": "leaves", "spine": "spines", "super_spine": "super-spines"}
_TIER_Y = {"server": 0.0, "leaf": 1.0, "spine": 2.0, "super_spine": 3.0}
_RAIL_COLORS = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f",
                "#bcbd22", "#17becf"]


def _svg(fig: Figure) -> str:
    buf = io.StringIO()
    with matplotlib.rc_context(RC):
        fig.savefig(buf, format="svg", bbox_inches="tight", metadata={"Date": None})
    text = buf.getvalue()
    return text[text.index("<svg"):]  # drop the XML prolog and doctype: the SVG is inline in HTML


def _figure(width: float, height: float) -> Figure:
    with matplotlib.rc_context(RC):
        return Figure(figsize=(width, height))


def topology(fabric: Fabric, plane: str, failed: frozenset[str] = frozenset()) -> str:
    switches = [s for s in fabric.plane_switches(plane) if s.role in _TIER_Y]
    with matplotlib.rc_context(RC):
        fig = _figure(9, 3.6)
        ax = fig.subplots()
        if len(switches) <= DETAILED_UP_TO:
            _detailed(ax, fabric, plane, switches, failed)
        else:
            _summarized(ax, fabric, plane, switches)
        ax.set_axis_off()
        ax.set_title(f"plane {plane}")
        return _svg(fig)


def _detailed(ax: Axes, fabric: Fabric, plane: str, switches: list[Switch], failed: frozenset[str]) -> None:
    tiers: dict[str, list[Switch]] = defaultdict(list)
    for s in sorted(switches, key=lambda s: (s.pod, s.index, s.name)):
        tiers[s.role].append(s)
    where: dict[str, tuple[float, float]] = {}
    for role, members in tiers.items():
        for i, s in enumerate(members):
            where[s.name] = ((i + 0.5) / len(members), _TIER_Y[role])
    for link in fabric.links:
        if link.plane == plane and link.a in where and link.b in where:
            (x1, y1), (x2, y2) = where[link.a], where[link.b]
            dead = link.a in failed or link.b in failed
            ax.plot([x1, x2], [y1, y2], color="#d62728" if dead else "#9aa5b1", lw=0.6, ls=":" if dead else "-",
                    zorder=1)
    for role, members in tiers.items():
        xs = [where[s.name][0] for s in members]
        colors = ["#d62728" if s.name in failed else
                  (_RAIL_COLORS[(s.rail or 0) % len(_RAIL_COLORS)] if role == "leaf" else "#34495e")
                  for s in members]
        ax.scatter(xs, [_TIER_Y[role]] * len(xs), s=90, c=colors, marker="s", zorder=2)
        if len(members) <= 24:
            for s in members:
                x, y = where[s.name]
                ax.annotate(s.name, (x, y), textcoords="offset points", xytext=(0, 8), ha="center",
                            fontsize=6, rotation=30)
        ax.text(-0.02, _TIER_Y[role], f"{_PLURAL[role]} ({len(members)})", ha="right", va="center")
    servers: dict[str, int] = defaultdict(int)
    for srv in fabric.servers:
        for port in srv.ports:
            if port.plane == plane:
                servers[port.leaf] += 1
    for leaf, count in servers.items():
        if leaf in where:
            x, _y = where[leaf]
            ax.bar(x, 0.6 * count / max(servers.values()), width=0.6 / max(len(tiers["leaf"]), 1), bottom=0.1,
                   color="#bdc3c7")
    ax.text(-0.02, 0.3, "server ports", ha="right", va="center")
    ax.set_xlim(-0.25, 1.02)
    ax.set_ylim(0, max(_TIER_Y[r] for r in tiers) + 0.5)


def _summarized(ax: Axes, fabric: Fabric, plane: str, switches: list[Switch]) -> None:
    counts: dict[tuple[str, int], int] = defaultdict(int)
    for s in switches:
        counts[(s.role, s.pod)] += 1
    pods = sorted({pod for role, pod in counts if role != "super_spine"})
    shown = pods if len(pods) <= 16 else pods[:8] + pods[-8:]
    cells: dict[str, dict[int, float]] = defaultdict(dict)
    for i, pod in enumerate(shown):
        x = (i + 0.5) / len(shown)
        for role in ("leaf", "spine"):
            n = counts.get((role, pod), 0)
            if n:
                ax.add_patch(Rectangle((x - 0.4 / len(shown), _TIER_Y[role] - 0.15), 0.8 / len(shown), 0.3,
                                       color="#34495e" if role == "spine" else "#1f77b4"))
                ax.text(x, _TIER_Y[role] - 0.3, str(n), ha="center", va="top", fontsize=6)
                cells[role][pod] = x
        ax.plot([x, x], [_TIER_Y["leaf"] + 0.15, _TIER_Y["spine"] - 0.15], color="#9aa5b1", lw=1)
    supers = sum(n for (role, _), n in counts.items() if role == "super_spine")
    top = 2.0
    if supers:
        top = 3.0
        ax.add_patch(Rectangle((0.05, 2.85), 0.9, 0.3, color="#2c3e50"))
        ax.text(0.5, 3.0, f"{supers} super-spines", ha="center", va="center", color="white")
        for x in cells["spine"].values():
            ax.plot([x, 0.5], [2.15, 2.85], color="#9aa5b1", lw=0.5)
    if len(shown) < len(pods):
        ax.text(0.5, 0.45, f"{len(pods)} pods, {len(pods) - len(shown)} not drawn (first and last 8 shown)",
                ha="center")
    leaves = sum(n for (role, _), n in counts.items() if role == "leaf")
    spines = sum(n for (role, _), n in counts.items() if role == "spine")
    ax.text(-0.02, 1.0, f"leaves ({leaves})", ha="right", va="center")
    ax.text(-0.02, 2.0, f"spines ({spines})", ha="right", va="center")
    ax.set_xlim(-0.25, 1.02)
    ax.set_ylim(0.3, top + 0.4)


def tier_bandwidth(figures: CapacityFigures) -> str:
    with matplotlib.rc_context(RC):
        fig = _figure(7, 3.2)
        ax = fig.subplots()
        labels = ["servers"] + [f"{t}\nuplinks" for t in ("leaf", "spine") if any(
            tf.tier == t and tf.up_gbps for p in figures.planes for tf in p.tiers)] + ["bisection"]
        width = 0.8 / max(len(figures.planes), 1)
        for k, p in enumerate(figures.planes):
            ups = {t.tier: t.up_gbps for t in p.tiers}
            values = [p.server_gbps] + [ups.get(lbl.split("\n")[0], 0.0) for lbl in labels[1:-1]] + [p.bisection_gbps]
            xs = [i + (k - (len(figures.planes) - 1) / 2) * width for i in range(len(labels))]
            ax.bar(xs, [v / 1000 for v in values], width=width, label=f"plane {p.plane}")
        ax.set_xticks(range(len(labels)), labels)
        ax.set_ylabel("Tbit/s")
        ax.legend()
        ax.grid(axis="y", alpha=0.3)
        return _svg(fig)


def failure_heatmap(impacts: list[ScenarioImpact]) -> str:
    """Rows: scenarios; columns: plane/rail; cell: % of the healthy cross-fabric bandwidth left."""
    columns = sorted({(p, r) for i in impacts for p, x in i.planes.items() for r in x.rail_gbps})
    data = [[i.planes[p].rail_pct(r) if p in i.planes else 100.0 for p, r in columns] for i in impacts]
    with matplotlib.rc_context(RC):
        fig = _figure(max(5.0, 0.45 * len(columns) + 3), max(2.5, 0.32 * len(impacts) + 1.2))
        ax = fig.subplots()
        image = ax.imshow(data, cmap="RdYlGn", vmin=0, vmax=100, aspect="auto")
        ax.set_xticks(range(len(columns)), [f"{p}/r{r}" for p, r in columns], rotation=45, ha="right")
        ax.set_yticks(range(len(impacts)), [i.scenario.name[:60] for i in impacts])
        if len(columns) * len(impacts) <= 120:  # beyond that the colours say it; numbers are in the table
            for y, row in enumerate(data):
                for x, value in enumerate(row):
                    ax.text(x, y, f"{value:.0f}", ha="center", va="center", fontsize=7)
        fig.colorbar(image, ax=ax, label="% of the plane/rail bandwidth left")
        return _svg(fig)


def model_chart(model: ModelFigures) -> str:
    with matplotlib.rc_context(RC):
        fig = _figure(8, 2.8)
        axes = fig.subplots(1, 3)
        times = [t if math.isfinite(t) else 0.0 for t in (model.single_seconds, model.dual_seconds)]  # no bandwidth: no bar
        axes[0].bar(["one plane", "two planes"], times, color=["#7f8c8d", "#27ae60"])
        axes[0].set_title(f"all-to-all, {model.nodes} nodes (s)")
        axes[1].bar(["one plane", "two planes"], [1.0, model.job.time_ratio], color=["#7f8c8d", "#27ae60"])
        axes[1].set_title("iteration time (relative)")
        if model.availability:
            a = model.availability
            axes[2].bar(["one plane", "two planes"], [100 * a.single_outage_probability, 100 * a.dual_outage_probability],
                        color=["#7f8c8d", "#27ae60"])
            axes[2].set_title(f"job outage over {a.job_hours / 24:g} days (%)")
        else:
            axes[2].set_axis_off()
        return _svg(fig)
