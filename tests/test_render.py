"""Rendering: golden files per platform, logic-free templates, output layout, drift check."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from dualrail_net.render import render_fabric
from dualrail_net.render.artifacts import drift, write_artifacts
from dualrail_net.render.engine import templates_dir
from dualrail_net.resolve.model import Fabric

GOLDEN = Path(__file__).parent / "golden"
GOLDEN_FILES = [
    "plane-A/a-leaf-su1-r0/interfaces",
    "plane-A/a-leaf-su1-r0/frr.conf",
    "plane-A/a-leaf-su1-r0/qos_features.conf",
    "plane-A/a-leaf-su1-r0/ntp.conf",
    "plane-A/a-leaf-su1-r0/rsyslog.conf",
    "plane-A/a-leaf-su1-r0/resolv.conf",
    "plane-A/a-leaf-su1-r0/tacplus_servers",
    "plane-B/b-leaf-su2-r3/frr.conf",
    "plane-A/a-spine-1/running-config",
    "plane-B/b-spine-4/running-config",
    "multi-plane/gw-storage-1/interfaces",
    "multi-plane/gw-storage-1/frr.conf",
    "servers/gpu001/interfaces",
    "servers/gpu001/nccl.env",
    "servers/gpu001/sysctl.conf",
    "servers/gpu017/nccl.env",
    "servers/gpu001/nccl-topo.xml",
    "servers/gpu017/nccl-topo.xml",
    "ib-plane-IBA/opensm.conf",
    "ib-plane-IBA/opensm-standby.conf",
]


@pytest.fixture(scope="module")
def rendered(example_fabric: Fabric) -> dict[str, str]:
    return render_fabric(example_fabric).by_path()


@pytest.mark.parametrize("path", GOLDEN_FILES)
def test_golden(rendered: dict[str, str], path: str) -> None:
    golden = GOLDEN / path
    if os.environ.get("UPDATE_GOLDEN"):
        golden.parent.mkdir(parents=True, exist_ok=True)
        golden.write_text(rendered[path])
    assert rendered[path] == golden.read_text(), f"{path} differs from tests/golden (UPDATE_GOLDEN=1 to accept)"


# platform variants of the example (conftest.platform_variant): the files of one leaf (and the NVUE
# gateway), under tests/golden/<platform>/
VARIANT_GOLDEN_FILES = [("sonic_variant", "sonic", "plane-A/a-leaf-su1-r0/config_db.json"),
                        ("sonic_variant", "sonic", "plane-A/a-leaf-su1-r0/frr.conf"),
                        ("nvue_variant", "cumulus-nvue", "plane-A/a-leaf-su1-r0/startup.yaml"),
                        ("nvue_variant", "cumulus-nvue", "multi-plane/gw-storage-1/startup.yaml")]


@pytest.mark.parametrize("variant,platform,path", VARIANT_GOLDEN_FILES, ids=[f"{v[1]}/{v[2]}" for v in VARIANT_GOLDEN_FILES])
def test_golden_platform_variants(request: pytest.FixtureRequest, variant: str, platform: str, path: str) -> None:
    golden = GOLDEN / platform / path
    text = (request.getfixturevalue(variant) / path).read_text()
    if os.environ.get("UPDATE_GOLDEN"):
        golden.parent.mkdir(parents=True, exist_ok=True)
        golden.write_text(text)
    assert text == golden.read_text(), f"{platform}/{path} differs from tests/golden (UPDATE_GOLDEN=1 to accept)"


def test_one_folder_per_plane_and_device(rendered: dict[str, str], example_fabric: Fabric) -> None:
    for sw in example_fabric.switches.values():
        folder = f"plane-{sw.plane}/{sw.name}" if sw.plane else f"multi-plane/{sw.name}"
        files = [p for p in rendered if p.startswith(folder + "/")]
        expected = {"cumulus": {"interfaces", "frr.conf", "qos_features.conf", "ntp.conf", "rsyslog.conf",
                                    "resolv.conf", "tacplus_servers"}, "eos": {"running-config"}}
        assert {f.rsplit("/", 1)[1] for f in files} == expected[sw.platform]
    # plane-A folders hold only plane-A devices: a diff there touches plane A only
    for path in rendered:
        if path.startswith("plane-A/"):
            assert path.split("/")[1].startswith("a-")
    assert "resolved/cabling.csv" in rendered and "resolved/fabric.json" in rendered
    assert "manifest.json" in rendered


def test_both_platforms_and_planes_rendered(rendered: dict[str, str]) -> None:
    assert any(p.startswith("plane-A/") and p.endswith("frr.conf") for p in rendered)
    assert any(p.startswith("plane-B/") and p.endswith("running-config") for p in rendered)


def test_plane_configs_mention_only_their_plane(rendered: dict[str, str], example_fabric: Fabric) -> None:
    def nets(plane: str) -> list[str]:
        return [p.rsplit(".", 2)[0] + "." for p in example_fabric.planes[plane].pools.values()]

    for path, text in rendered.items():
        for mine, other in (("A", "B"), ("B", "A")):
            if path.startswith(f"plane-{mine}/"):
                assert f"PLANE-{other}" not in text, path
                assert not [n for n in nets(other) if n in text], path


def test_templates_hold_no_arithmetic() -> None:
    """Templates lay values out; numbers are computed in render/structured.py."""
    arithmetic = re.compile(r"\{\{[^}]*?(\s[-+*/%]\s|\|\s*(int|float|sum)\b|ipaddr|ipmath)[^}]*\}\}")
    for path in Path(templates_dir()).rglob("*.j2"):
        text = path.read_text()
        assert not arithmetic.search(text), f"{path}: arithmetic in a template"
        assert "{% set" not in text, f"{path}: computed variables in a template"


def test_drift_check(tmp_path: Path, example_fabric: Fabric) -> None:
    result = render_fabric(example_fabric)
    out = tmp_path / "build"
    assert write_artifacts(result, out) == len(result.artifacts)
    assert drift(result, out).clean
    assert write_artifacts(result, out) == 0  # unchanged files are not rewritten
    leaf = out / "plane-A/a-leaf-su1-r0/frr.conf"
    leaf.write_text(leaf.read_text().replace("maximum-paths 64", "maximum-paths 1"))
    (out / "plane-B/stray.conf").write_text("x")
    (out / "servers/gpu001/nccl.env").unlink()
    d = drift(result, out)
    assert d.changed == ["plane-A/a-leaf-su1-r0/frr.conf"]
    assert d.extra == ["plane-B/stray.conf"]
    assert d.missing == ["servers/gpu001/nccl.env"]
    write_artifacts(result, out)
    # a file dualrail did not write is never deleted: it stays, and the drift check keeps naming it
    assert (out / "plane-B/stray.conf").read_text() == "x"
    assert drift(result, out).extra == ["plane-B/stray.conf"] and not drift(result, out).changed
    (out / "plane-B/stray.conf").unlink()
    assert drift(result, out).clean


def test_rerender_removes_only_what_the_previous_render_wrote(tmp_path: Path, example_fabric: Fabric) -> None:
    result = render_fabric(example_fabric)
    out = tmp_path / "build"
    write_artifacts(result, out)
    (out / "notes.txt").write_text("mine")
    smaller = type(result)([a for a in result.artifacts if not a.path.startswith("servers/gpu032/")])
    write_artifacts(smaller, out)
    assert not (out / "servers/gpu032").exists()  # the removed server's files and folder are gone
    assert (out / "notes.txt").read_text() == "mine"
    assert (out / "servers/gpu031/nccl.env").exists()


def _render_both(fabric: Fabric, monkeypatch: pytest.MonkeyPatch) -> tuple[dict[str, str], dict[str, str]]:
    import functools

    from dualrail_net.render import engine, pipeline
    fast = render_fabric(fabric).by_path()
    with monkeypatch.context() as m:
        m.setattr(pipeline, "template", functools.partial(engine.template, plain=True))
        plain = render_fabric(fabric).by_path()
    return fast, plain


@pytest.mark.parametrize("roles", [{}, {"leaf": "sonic"}, {"leaf": "cumulus-nvue", "gateway": "cumulus-nvue"},
                                   {"leaf": "eos", "spine": "cumulus"}], ids=["example", "sonic", "nvue", "eos-leaves"])
def test_fast_attribute_lookup_renders_what_jinja_renders(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                         roles: dict[str, str]) -> None:
    """FabricEnvironment (dict keys looked up before Python attributes) against Jinja's own
    environment: every file of the example and of its platform variants, byte for byte."""
    from conftest import platform_variant

    from dualrail_net.resolve import resolve_fabric
    from dualrail_net.sot.load import load_inventory
    fabric = resolve_fabric(load_inventory(platform_variant(tmp_path, **roles)).inventory)
    fast, plain = _render_both(fabric, monkeypatch)
    assert fast.keys() == plain.keys() and len(fast) > 100
    assert [p for p in fast if fast[p] != plain[p]] == []


def test_fast_attribute_lookup_keeps_jinjas_answers() -> None:
    """The edge cases of the lookup order: a key named like a dict method, a missing key (strict:
    an error in both), a dict subclass, an object's attribute."""
    import collections

    import jinja2

    from dualrail_net.render.engine import FabricEnvironment

    class Port:
        name = "swp1"

    cases = [("{{ d.name }}", {"d": {"name": "x"}}),
             ("{{ d['items'] }}|{{ d.items()|list|length }}", {"d": {"items": [1, 2, 3]}}),
             ("{{ d.keys is defined }}", {"d": {"keys": 1}}),
             ("{{ d.a }}", {"d": collections.OrderedDict(a=1)}),
             ("{{ d.name }}", {"d": Port()}),
             ("{{ d.missing }}", {"d": {"name": "x"}}),
             ("{{ d.missing is defined }}", {"d": {}})]
    for source, context in cases:
        answers = []
        for cls in (jinja2.Environment, FabricEnvironment):
            env = cls(undefined=jinja2.StrictUndefined)
            try:
                answers.append(env.from_string(source).render(**context))
            except jinja2.UndefinedError as exc:
                answers.append(f"error: {exc}")
        assert answers[0] == answers[1], source
