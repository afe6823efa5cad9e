"""The real consumers (FRR's parser, ifupdown2) accept every rendered file and reject broken ones."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from dualrail_net.render import render_fabric
from dualrail_net.render.artifacts import write_artifacts
from dualrail_net.resolve.model import Fabric
from dualrail_net.verify.consumers import FRR_CHECK, IFUPDOWN_CHECK, check_frr, check_ifupdown, unknown_attributes

needs_frr = pytest.mark.skipif(shutil.which("vtysh") is None, reason="FRR not installed (apt-get install frr)")
needs_ifupdown2 = pytest.mark.skipif(shutil.which("ifquery") is None, reason="apt-get install ifupdown2")


@pytest.fixture(scope="module")
def out(tmp_path_factory: pytest.TempPathFactory, example_fabric: Fabric) -> Path:
    path = tmp_path_factory.mktemp("render") / "build"
    write_artifacts(render_fabric(example_fabric), path)
    return path


@pytest.mark.consumers
@needs_frr
def test_every_rendered_frr_conf_parses(out: Path) -> None:
    files = sorted(out.rglob("frr.conf"))
    assert len(files) == 17 + 8  # 16 cumulus leaves + the gateway, and the twin substitutes of 8 EOS spines
    result = check_frr(out, files)
    assert not result.skipped and result.findings == []


@pytest.mark.consumers
@needs_frr
def test_frr_parser_rejects_a_typo(out: Path, tmp_path: Path) -> None:
    bad = tmp_path / "bad" / "frr.conf"
    bad.parent.mkdir()
    text = (out / "plane-A/a-leaf-su1-r0/frr.conf").read_text()
    bad.write_text(text.replace(" neighbor 10.11.0.0 remote-as", " neighbor 10.11.0.0 remote-az", 1))
    result = check_frr(tmp_path, [bad])
    assert [f.check for f in result.findings] == [FRR_CHECK]
    assert "line" in result.findings[0].message and "Unknown command" in result.findings[0].message


@pytest.mark.consumers
@needs_ifupdown2
def test_every_rendered_interfaces_file_is_accepted(out: Path) -> None:
    files = sorted(out.rglob("interfaces"))
    assert len(files) == 17 + 8 + 32
    result = check_ifupdown(out, files)
    assert not result.skipped and result.findings == [], [f.message for f in result.findings]


@pytest.mark.consumers
@needs_ifupdown2
def test_ifupdown_unknown_attribute_is_caught(out: Path, tmp_path: Path) -> None:
    """ifup -s exits 0 for 'adress' (it skips it); our attribute check must not."""
    bad = tmp_path / "dev" / "interfaces"
    bad.parent.mkdir()
    text = (out / "plane-A/a-leaf-su1-r0/interfaces").read_text()
    bad.write_text(text.replace("    address 10.12.0.0/31", "    adress 10.12.0.0/31", 1))
    result = check_ifupdown(tmp_path, [bad])
    assert [f.check for f in result.findings] == [IFUPDOWN_CHECK]
    assert "unknown attribute 'adress'" in result.findings[0].message


@pytest.mark.consumers
@needs_ifupdown2
def test_ifupdown_syntax_error_is_caught(tmp_path: Path) -> None:
    bad = tmp_path / "dev" / "interfaces"
    bad.parent.mkdir()
    bad.write_text("auto swp1\niface swp1 inet bogusmethod\n    address 10.0.0.1/31\n")
    result = check_ifupdown(tmp_path, [bad])
    assert result.findings, "ifupdown2 should reject an unknown address method"


def test_unknown_attributes_parser() -> None:
    text = "auto lo\niface lo inet loopback\n    address 1.1.1.1/32\n    adress x\n# c\nauto swp1\n"
    assert unknown_attributes(text, frozenset({"address"})) == [(4, "adress")]
