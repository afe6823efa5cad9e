"""The self-contained HTML report: one file, every plot inline SVG, no script, no fetch at view time.

The template (templates/report/capacity.html.j2) holds the presentation; autoescaping is on, so a
scenario name or any other input string is text in the page, never markup. Only the SVG that
matplotlib produced is inserted as markup (matplotlib escapes the text inside it).
"""

from __future__ import annotations

import jinja2

from dualrail_net.capacity import plots
from dualrail_net.capacity.run import CapacityReport
from dualrail_net.render.engine import templates_dir
from dualrail_net.resolve.model import Fabric


def _num(value: float) -> str:
    return f"{value:,.0f}" if abs(value) >= 100 else f"{value:,.2f}"


def _tbps(gbps: float) -> str:
    return f"{gbps / 1000:,.1f}"


def html_report(report: CapacityReport, fabric: Fabric) -> str:
    env = jinja2.Environment(loader=jinja2.FileSystemLoader(str(templates_dir())), autoescape=True,
                             undefined=jinja2.StrictUndefined, trim_blocks=True, lstrip_blocks=True)
    template = env.get_template("report/capacity.html.j2")
    return template.render(
        report=report, f=report.figures, m=report.model, num=_num, tbps=_tbps,
        topologies=[plots.topology(fabric, p) for p in fabric.planes],
        tiers_svg=plots.tier_bandwidth(report.figures), heatmap_svg=plots.failure_heatmap(report.impacts),
        model_svg=plots.model_chart(report.model))


SIGNATURE = "<!DOCTYPE html><!-- dualrail-net capacity report -->"
