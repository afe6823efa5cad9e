"""The self-contained HTML report: one file, every plot inline SVG, no script, no fetch at view time.

The template (templates/report/capacity.html.j2) holds the presentation and renders through the
same escaping regime as every other file (OutputFormat.HTML: every printed value is HTML-escaped),
so a scenario name or any other input string is text in the page, never markup. Only the SVG that
matplotlib produced is passed as `Escaped` (matplotlib escapes the text inside it).
"""

from __future__ import annotations

from dualrail_net.capacity import plots
from dualrail_net.capacity.model import HOURS_PER_YEAR
from dualrail_net.capacity.run import CapacityReport
from dualrail_net.forked import Forked, can_fork
from dualrail_net.render.engine import template, templates_dir
from dualrail_net.render.escape import Escaped
from dualrail_net.resolve.model import Fabric


def _num(value: float) -> str:
    return f"{value:,.0f}" if abs(value) >= 100 else f"{value:,.2f}"


def _pct(share: float, digits: int) -> str:
    return f"{100 * share:.{digits}f}"


def _per_year(rate_per_hour: float, digits: int) -> str:
    return f"{rate_per_hour * HOURS_PER_YEAR:.{digits}f}"


def _tbps(gbps: float) -> str:
    return f"{gbps / 1000:,.1f}"


# From this many switches the planes' topology pictures are drawn in a forked child while the parent
# draws the other plots (drawing is most of the report's time; the pictures are independent).
PARALLEL_FROM = 2000


def html_report(report: CapacityReport, fabric: Fabric, parallel_from: int | None = None) -> str:
    page = template(str(templates_dir()), "report/capacity.html.j2")
    threshold = PARALLEL_FROM if parallel_from is None else parallel_from
    child: Forked[list[str]] | None = None
    if len(fabric.switches) >= threshold and can_fork():
        child = Forked(lambda _tick: [plots.topology(fabric, p) for p in fabric.planes],
                       "the planes' topology pictures")
    others = (plots.tier_bandwidth(report.figures), plots.failure_heatmap(report.impacts),
              plots.model_chart(report.model))
    pictures = child.result() if child is not None else [plots.topology(fabric, p) for p in fabric.planes]
    return page.render(
        report=report, f=report.figures, m=report.model, num=_num, tbps=_tbps, pct=_pct, per_year=_per_year,
        topologies=[Escaped(svg) for svg in pictures], tiers_svg=Escaped(others[0]),
        heatmap_svg=Escaped(others[1]), model_svg=Escaped(others[2]))


SIGNATURE = "<!DOCTYPE html><!-- dualrail-net capacity report -->"
