"""The real consumers (FRR's parser, ifupdown2) accept every rendered file and reject broken ones."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from dualrail_net.render import render_fabric
from dualrail_net.render.artifacts import write_artifacts
from dualrail_net.resolve.model import Fabric
from dualrail_net.verify import vtysh, vtysh_oracle
from dualrail_net.verify.consumers import FRR_CHECK, IFUPDOWN_CHECK, check_frr, check_ifupdown, unknown_attributes
from dualrail_net.verify.model import DeviceConfig

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


def _edited_leaf_file(out: Path, tmp_path: Path, name: str, old: str, new: str) -> Path:
    """A copy of a-leaf-su1-r0's ``name`` with its first ``old`` made ``new``, alone in a folder."""
    edited = tmp_path / "dev" / name
    edited.parent.mkdir()
    edited.write_text((out / "plane-A/a-leaf-su1-r0" / name).read_text().replace(old, new, 1))
    return edited


@pytest.mark.consumers
@needs_frr
def test_frr_parser_rejects_a_typo(out: Path, tmp_path: Path) -> None:
    bad = _edited_leaf_file(out, tmp_path, "frr.conf", " neighbor 10.11.0.0 remote-as", " neighbor 10.11.0.0 remote-az")
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
    bad = _edited_leaf_file(out, tmp_path, "interfaces", "    address 10.12.0.0/31", "    adress 10.12.0.0/31")
    result = check_ifupdown(tmp_path, [bad])
    assert [f.check for f in result.findings] == [IFUPDOWN_CHECK]
    assert "unknown attribute 'adress'" in result.findings[0].message


@pytest.mark.consumers
@needs_ifupdown2
def test_a_netmask_is_an_attribute_ifupdown2_applies(out: Path, tmp_path: Path) -> None:
    """`netmask` is missing from `ifquery --syntax-help` (address.py marks it compat) but applied."""
    edited = _edited_leaf_file(out, tmp_path, "interfaces", "    address 10.12.0.0/31",
                               "    address 10.12.0.0\n    netmask 255.255.255.254")
    assert check_ifupdown(tmp_path, [edited]).findings == []


@pytest.mark.consumers
@needs_ifupdown2
def test_link_settings_are_attributes_ifupdown2_applies(out: Path, tmp_path: Path) -> None:
    """link-speed, link-autoneg and link-fec belong to ifupdown2's ethtool addon, which loads only
    where ethtool is installed (as on every Cumulus switch): without it they read as unknown."""
    edited = _edited_leaf_file(out, tmp_path, "interfaces", "    address 10.12.0.0/31",
                               "    address 10.12.0.0/31\n    link-speed 400000\n    link-autoneg off\n    link-fec rs")
    assert check_ifupdown(tmp_path, [edited]).findings == []


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
    # a line continued with a backslash is one attribute to ifupdown2 (its value on the next line)
    continued = "auto lo\niface lo inet loopback\n    address \\\n        1.1.1.1/32\n    adress \\\n x\n"
    assert unknown_attributes(continued, frozenset({"address"})) == [(5, "adress")]


def test_a_continued_attribute_is_accepted_by_ifupdown2(tmp_path: Path) -> None:
    path = tmp_path / "interfaces"
    path.write_text("auto swp1\niface swp1\n    address \\\n        10.0.0.1/31\n    mtu 9216\n")
    assert check_ifupdown(tmp_path, [path]).findings == []


def test_shapes_blank_only_what_a_parser_accepts_whatever_it_is() -> None:
    from dualrail_net.verify.shapes import FRR_COMMENTS, IFUPDOWN_COMMENTS, shape_of
    same = ("router bgp 4200001100\n neighbor 10.11.0.0 remote-as 4200001000\n network 10.12.0.0/26\n",
            "router bgp 4200001101\n neighbor 10.11.0.2 remote-as 4200001000\n network 10.12.0.64/26\n")
    assert shape_of(same[0], FRR_COMMENTS) == shape_of(same[1], FRR_COMMENTS)
    # a host address and its network are different statements; out-of-range values stay verbatim
    assert shape_of(" network 10.12.0.1/26", FRR_COMMENTS) == " network I/26"
    assert shape_of(" network 10.12.0.0/26", FRR_COMMENTS) == " network P/26"
    assert shape_of("router bgp 0", FRR_COMMENTS) == "router bgp 0"
    assert shape_of(" neighbor 10.11.0.300 remote-as 7", FRR_COMMENTS) == " neighbor 10.11.0.300 remote-as N"
    assert shape_of(" maximum-paths 64", FRR_COMMENTS) == " maximum-paths 64"  # ranges differ per command
    assert shape_of(" neighbor 10.11.0.0 description two words", FRR_COMMENTS).endswith("two words")
    # '!' is a comment to FRR only: ifupdown2 must still see such a line
    assert shape_of("!x", FRR_COMMENTS) == "#" and shape_of("!x", IFUPDOWN_COMMENTS) == "!x"


@pytest.mark.consumers
@needs_frr
@needs_ifupdown2
def test_once_per_shape_equals_once_per_file(out: Path, tmp_path: Path) -> None:
    """The shape path parses 5 frr.conf and 5 interfaces files for the example's 25 and 57, and finds
    exactly what parsing every file finds, on a copy where some files are broken by value (an ASN
    out of range, an octet above 255: shapes of their own) and by syntax."""
    import shutil
    from dualrail_net.verify.consumers import by_shape
    from dualrail_net.verify.shapes import FRR_COMMENTS, IFUPDOWN_COMMENTS

    broken = tmp_path / "build"
    shutil.copytree(out, broken)
    leaf = broken / "plane-A/a-leaf-su1-r1/frr.conf"
    leaf.write_text(leaf.read_text().replace("router bgp 4200001", "router bgp 9200001", 1))
    other = broken / "plane-B/b-leaf-su2-r3/frr.conf"
    other.write_text(other.read_text().replace(" remote-as", " remote-az", 1))
    port = broken / "servers/gpu007/interfaces"
    port.write_text(port.read_text().replace("    address 10.", "    address 10.300.", 1))
    typo = broken / "servers/gpu009/interfaces"  # an attribute ifupdown2 would skip: its own shape too
    typo.write_text(typo.read_text().replace("    mtu ", "    mut ", 1))
    frr, ifaces = sorted(broken.rglob("frr.conf")), sorted(broken.rglob("interfaces"))
    assert len(by_shape(sorted(out.rglob("frr.conf")), FRR_COMMENTS)) == 5
    assert len(by_shape(sorted(out.rglob("interfaces")), IFUPDOWN_COMMENTS)) == 5
    fast, slow = check_frr(broken, frr), check_frr(broken, frr, shapes=False)
    assert [f.message for f in fast.findings] == [f.message for f in slow.findings]
    assert {f.devices[0] for f in fast.findings} == {"a-leaf-su1-r1", "b-leaf-su2-r3"}
    fast_i, slow_i = check_ifupdown(broken, ifaces), check_ifupdown(broken, ifaces, shapes=False)
    assert [f.message for f in fast_i.findings] == [f.message for f in slow_i.findings]
    assert {f.devices[0] for f in fast_i.findings} == {"gpu007", "gpu009"}


@pytest.mark.consumers
@needs_frr
def test_frr_lines_refused_after_a_top_level_exit_are_rejections_though_vtysh_exits_0(out: Path, tmp_path: Path) -> None:
    """A route-map entry's header deleted: its `match` is refused at the top level and the entry's
    `exit` leaves configuration mode, so every later line (the BGP instance) is refused; vtysh
    --dryrun prints each refusal and exits 0 (FRR 8.4, measured)."""
    bad = _edited_leaf_file(out, tmp_path, "frr.conf", "route-map LOCAL-A-OUT permit 10\n", "")
    result = check_frr(tmp_path, [bad])
    assert [f.check for f in result.findings] == [FRR_CHECK]
    assert "Unknown command" in result.findings[0].message


@pytest.mark.consumers
@needs_frr
def test_frr_lines_never_read_after_vtysh_ended_are_rejections(out: Path, tmp_path: Path) -> None:
    """Two `exit`s after the first route-map: the first leaves configuration mode, the second ends
    vtysh, which prints nothing and exits 0; every line below is never applied."""
    bad = _edited_leaf_file(out, tmp_path, "frr.conf", "\nexit\n", "\nexit\nexit\nexit\n")
    assert subprocess.run(["vtysh", "--dryrun", "-f", str(bad)], capture_output=True).returncode == 0
    result = check_frr(tmp_path, [bad])
    assert [f.check for f in result.findings] == [FRR_CHECK]
    assert "never read: vtysh ended" in result.findings[0].message


@pytest.mark.consumers
@needs_frr
def test_the_frr_reader_applies_what_vtysh_reads_on_seeded_line_edits(out: Path, tmp_path: Path) -> None:
    """verify/vtysh_oracle.py: 150 seeded line edits of the example's frr.conf files (lines deleted,
    moved, repeated; `exit`, `end`, block headers, other nodes' lines inserted); the reader applies
    no line vtysh refuses or never reads, and leaves configuration mode only where vtysh does
    (benchmarks/bench_vtysh_reader.py runs it at length)."""
    texts = [p.read_text() for p in sorted(out.rglob("frr.conf"))]
    found = vtysh_oracle.run(16, 150, texts, tmp_path)
    assert [d.lines[:2] for d in found] == []


@pytest.mark.consumers
@needs_frr
def test_the_vtysh_oracle_catches_a_reader_that_ignores_exits(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A reader that took a top-level `exit` for nothing (as this one did before the twin's seed 511)
    applies the BGP instance vtysh never configures: the oracle says so."""
    real = vtysh_oracle.frr.parse_frr

    def exits_ignored(text: str, dev: DeviceConfig, file: str = "frr.conf") -> None:
        real("\n".join("!" if line.strip() in ("exit", "quit") else line for line in text.split("\n")), dev, file)

    text = "ip route 1.0.0.0/8 blackhole\n match ip address prefix-list P\nexit\nrouter bgp 65000\n neighbor 1.1.1.1 remote-as 65001\n"
    assert vtysh_oracle.compare(text, tmp_path) is None
    monkeypatch.setattr(vtysh_oracle.frr, "parse_frr", exits_ignored)
    found = vtysh_oracle.compare(text, tmp_path)
    assert found is not None and [line for line, _what, _text in found.lines] == [4, 5]


@pytest.mark.consumers
@needs_frr
def test_vtysh_s_line_numbers_are_the_reader_s(tmp_path: Path) -> None:
    """vtysh and the reader break lines at newlines only: a form feed inside a line splits nothing."""
    refused = vtysh.refusals("ip route 1.0.0.0/8 blackhole\x0c\nfoo\n", tmp_path)
    assert list(refused) == [2] and "foo" in refused[2]
