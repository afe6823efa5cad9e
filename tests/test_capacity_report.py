"""Issue 19: the HTML report in a real headless browser (Chromium from Debian).

The page must load with no console message at all (it carries no script, so any message is an
error: a blocked fetch, a CSP violation, a parse error), show its plots in a screenshot, need no
network, and keep hostile input strings as text.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest
from dualrail_net.capacity.failures import Scenario
from dualrail_net.capacity.report import html_report
from dualrail_net.capacity.run import capacity_report
from dualrail_net.resolve.model import Fabric
from dualrail_net.sot.load import LoadedInventory

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
pytestmark = pytest.mark.skipif(CHROMIUM is None, reason="chromium is installed by .ci/setup")


def _browse(page: Path, tmp_path: Path, *action: str) -> tuple[list[str], str]:
    """Open ``page`` headless; (console messages, stdout). ``action``: --dump-dom or --screenshot=FILE."""
    assert CHROMIUM is not None
    proc = subprocess.run(
        [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-extensions",
         f"--user-data-dir={tmp_path / 'profile'}", "--enable-logging=stderr", "--v=0", "--window-size=1280,3400",
         *action, page.as_uri()], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr[-2000:]
    console = [line for line in proc.stderr.splitlines() if ":CONSOLE" in line]
    return console, proc.stdout


def _report(example_loaded: LoadedInventory, fabric: Fabric, scenarios: list[Scenario] | None = None) -> str:
    return html_report(capacity_report(example_loaded.inventory, fabric, scenarios=scenarios), fabric)


def test_report_loads_clean_and_shows_its_plots(tmp_path: Path, example_loaded: LoadedInventory,
                                                example_fabric: Fabric) -> None:
    from PIL import Image

    page = tmp_path / "report.html"
    page.write_text(_report(example_loaded, example_fabric))
    console, dom = _browse(page, tmp_path, "--dump-dom")
    assert console == []
    assert dom.count("<svg") == 5  # two plane topologies, tiers, heat map, model
    assert 'id="verdict"' in dom and "Within every bound." in dom
    shot = tmp_path / "shot.png"
    console, _ = _browse(page, tmp_path, f"--screenshot={shot}")
    assert console == []
    image = Image.open(shot).convert("RGB")
    colors = {c for _n, c in image.getcolors(maxcolors=1 << 24) or []}
    # the heat map's "100% left" green and "0% left" red, and the rail colours of the topology
    for wanted in ((0, 104, 55), (165, 0, 38), (31, 119, 180), (255, 127, 14)):
        assert any(sum(abs(a - b) for a, b in zip(c, wanted)) < 12 for c in colors), wanted


def test_the_console_check_fires_on_a_broken_page(tmp_path: Path, example_loaded: LoadedInventory,
                                                  example_fabric: Fabric) -> None:
    """The check above is not blind: a script slipped into the page is refused by its own
    Content-Security-Policy and the refusal reaches the console; so does a fetch of anything."""
    text = _report(example_loaded, example_fabric)
    for injected in ("<script>console.log('hello')</script>", '<img src="https://example.invalid/x.png">'):
        page = tmp_path / "broken.html"
        page.write_text(text.replace("</body>", injected + "</body>"))
        console, _ = _browse(page, tmp_path, "--dump-dom")
        assert console and "Content Security Policy" in " ".join(console), injected


def test_report_needs_no_network(example_loaded: LoadedInventory, example_fabric: Fabric) -> None:
    text = _report(example_loaded, example_fabric)
    refs = re.findall(r'(?:src|href)="([^"]*)"', text)
    # local references inside the SVG, and the heat map's pixels inline (matplotlib embeds them)
    outside = [r[:40] for r in refs if not r.startswith(("#", "data:image/png;base64,"))]
    assert refs and not outside, outside
    assert "<script" not in text and "<link" not in text
    assert "default-src 'none'" in text


def test_hostile_scenario_names_stay_text(tmp_path: Path, example_loaded: LoadedInventory,
                                          example_fabric: Fabric) -> None:
    name = "<script>alert(1)</script> $x^{2}$ & \"quoted\""
    page = tmp_path / "report.html"
    page.write_text(_report(example_loaded, example_fabric, [Scenario(name, ("a-spine-1",))]))
    assert "<script>alert" not in page.read_text()
    console, dom = _browse(page, tmp_path, "--dump-dom")
    assert console == []
    assert "&lt;script&gt;alert(1)&lt;/script&gt; $x^{2}$ &amp; \"quoted\"" in dom  # the table cell, as text
    assert "$x^{2}$" in dom  # the heat map label too: math text is off, the dollar signs stay


def test_the_100k_picture_is_summarised() -> None:
    """Above DETAILED_UP_TO switches a plane is drawn by pod, not box by box (the report stays small)."""
    from dualrail_net.capacity import plots
    from dualrail_net.resolve import resolve_fabric
    from dualrail_net.sot.synthetic import Shape, synthetic_inventory

    fabric = resolve_fabric(synthetic_inventory(Shape(tiers=3, rails=8, sus_per_pod=2, pods=20, spines_per_pod=4,
                                                      super_spines_per_group=2, servers_per_su=2, leaf_uplinks=4,
                                                      spine_downlinks=16, spine_uplinks=4, super_spine_downlinks=32,
                                                      border_ports=0)))
    svg = plots.topology(fabric, "A")
    assert "20 pods, 4 not drawn" in svg and "leaves (320)" in svg and "super-spines" in svg
    assert len(svg) < 200_000



def test_pictures_drawn_in_a_forked_child_give_the_same_page(example_loaded: LoadedInventory,
                                                             example_fabric: Fabric) -> None:
    report = capacity_report(example_loaded.inventory, example_fabric)
    forked = html_report(report, example_fabric, parallel_from=1)
    assert forked == html_report(report, example_fabric, parallel_from=10**9)
    assert forked.count("<svg") >= 5
