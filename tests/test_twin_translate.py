"""The twin's documented translations (no root needed): VRF-as-namespace and the strict
interfaces -> ip-batch translation used for large twins."""

from __future__ import annotations

from pathlib import Path

import pytest

from dualrail_net.render import render_fabric
from dualrail_net.render.artifacts import write_artifacts
from dualrail_net.resolve.model import Fabric
from dualrail_net.twin.plan import build_plan
from dualrail_net.twin.shell import TwinError
from dualrail_net.twin.translate import frr_for_vrf, interfaces_for_vrf, interfaces_to_ip_batch, without_management


@pytest.fixture(scope="module")
def rendered(example_fabric: Fabric) -> dict[str, str]:
    return render_fabric(example_fabric).by_path()


def test_what_zebra_and_staticd_keep_per_vrf_follows_its_vrf(rendered: dict[str, str]) -> None:
    """A VRF's own `ip route` / `ip protocol` lines (its `vrf X` block, or `ip route ... vrf X`)
    become its namespace's; the top level's belong to the default VRF, no plane's namespace (the
    oracle found a top-level `ip protocol bgp route-map` applied in both planes' namespaces)."""
    text = rendered["multi-plane/gw-storage-1/frr.conf"]
    text = text.replace("vrf plane-a\nexit-vrf", "vrf plane-a\n ip route 10.97.0.0/16 blackhole\n"
                        " ip protocol bgp route-map LOCAL-A-OUT\nexit-vrf")
    text = text.replace("!\nrouter bgp 4200000100 vrf plane-a", "!\nip protocol bgp route-map LOCAL-B-OUT\n"
                        "ip route 10.99.0.0/16 blackhole\nip route 10.98.0.0/16 blackhole vrf plane-b\n"
                        "!\nrouter bgp 4200000100 vrf plane-a")
    def zebra(vrf: str) -> list[str]:
        return [line for line in frr_for_vrf(text, vrf).splitlines() if line.startswith(("ip route", "ip protocol"))]
    assert zebra("plane-a") == ["ip route 10.97.0.0/16 blackhole", "ip protocol bgp route-map LOCAL-A-OUT"]
    assert zebra("plane-b") == ["ip route 10.98.0.0/16 blackhole"]


def test_vrf_becomes_a_namespace(rendered: dict[str, str]) -> None:
    frr = frr_for_vrf(rendered["multi-plane/gw-storage-1/frr.conf"], "plane-b")
    assert "router bgp 4200000100\n" in frr and "vrf plane-" not in frr
    assert "10.23.0.0 remote-as" in frr and "10.13.0.0" not in frr  # only plane B's sessions
    ifaces = interfaces_for_vrf(rendered["multi-plane/gw-storage-1/interfaces"], "plane-b")
    assert "address 10.20.0.92/32" in ifaces and "vrf " not in ifaces.replace("VRF ", "")
    assert "swp33" in ifaces and "iface swp1\n" not in ifaces


def test_a_vrf_block_ends_where_frr_leaves_it_not_where_the_indentation_does(rendered: dict[str, str]) -> None:
    """An un-indented line of plane A's `router bgp ... vrf` block is plane A's (bgpd reads it in
    the block), so plane B's namespace does not get it at the top level (where vtysh refuses it);
    a line only the configuration node takes ends the block (what follows it is read there, as
    bgpd reads it)."""
    text = rendered["multi-plane/gw-storage-1/frr.conf"]
    edited = text.replace(" bgp router-id 10.10.0.92\n", " bgp router-id 10.10.0.92\nbgp default local-preference 50\n", 1)
    assert "bgp default local-preference 50" in frr_for_vrf(edited, "plane-a")
    assert "bgp default local-preference 50" not in frr_for_vrf(edited, "plane-b")
    closed = text.replace(" bgp router-id 10.10.0.92\n", " bgp router-id 10.10.0.92\nip prefix-list X seq 5 permit any\n", 1)
    assert "ip prefix-list X seq 5 permit any" in frr_for_vrf(closed, "plane-b")  # global: every VRF keeps it


def test_interfaces_translation_is_faithful_and_strict(rendered: dict[str, str]) -> None:
    # the twin applies the file without the switch's out-of-band management (it has its own)
    text = without_management(rendered["plane-A/a-leaf-su1-r0/interfaces"])
    assert "eth0" not in text and "iface mgmt" not in text and "iface swp1\n" in text
    cmds = interfaces_to_ip_batch(text, present={"lo", "swp1", "swp33"})
    assert "address add 10.10.0.32/32 dev lo" in cmds
    assert "address add 10.11.0.1/31 dev swp33" in cmds and "link set dev swp33 mtu 9214" in cmds
    assert 'link set dev swp33 alias "a-spine-1:Ethernet1"' in cmds and "link set dev swp33 up" in cmds
    assert not [c for c in cmds if "swp34" in c]  # not cabled in this twin
    with pytest.raises(ValueError, match="adress"):
        interfaces_to_ip_batch(text.replace("    address 10.11.0.1/31", "    adress 10.11.0.1/31"))


def test_an_external_cable_the_manifest_does_not_plan_is_refused(example_fabric: Fabric, tmp_path: Path) -> None:
    """A cabling plan edited apart from the manifest (an external peer's address changed): the twin
    refuses it in one line instead of failing with a traceback."""
    out = tmp_path / "build"
    write_artifacts(render_fabric(example_fabric), out)
    plan = build_plan(out)
    assert [(e.name, e.plane, e.prefixes) for e in plan.externals] == [("storage-a-1", "A", ["172.16.0.0/16"]),
                                                                        ("storage-b-1", "B", ["172.17.0.0/16"])]
    cabling = out / "resolved" / "cabling.csv"
    cabling.write_text(cabling.read_text().replace("storage-a-1,,100.64.0.1/31", "storage-a-1,,100.64.0.9/31"))
    with pytest.raises(TwinError, match="100.64.0.9/31 is not an external peer the manifest plans"):
        build_plan(out)


def test_a_cabling_plan_edited_out_of_shape_is_refused_in_one_line(example_fabric: Fabric, tmp_path: Path) -> None:
    """A short row, a dropped column, a row without its device, a missing file: one line naming the
    file (and the line), never a KeyError or a TypeError from deep inside the twin."""
    out = tmp_path / "build"
    write_artifacts(render_fabric(example_fabric), out)
    cabling = out / "resolved" / "cabling.csv"
    good = cabling.read_text()
    lines = good.splitlines()
    edits = {
        "a short row": ("\n".join(lines[:3] + [",".join(lines[3].split(",")[:4])] + lines[4:]) + "\n", ":4: error: a cable without"),
        "no kind column": ("\n".join(",".join(w for i, w in enumerate(line.split(",")) if i != 1) for line in lines) + "\n",
                           ":1: error: no column kind"),
        "a row without its device": ("\n".join(lines[:2] + [",".join(w if i != 2 else "" for i, w in
                                                                     enumerate(lines[2].split(",")))] + lines[3:]) + "\n",
                                     ":3: error: a cable without its a_device"),
    }
    for desc, (text, said) in edits.items():
        cabling.write_text(text)
        with pytest.raises(TwinError, match=said) as caught:
            build_plan(out)
        assert "\n" not in str(caught.value), desc
    cabling.unlink()
    with pytest.raises(TwinError, match="missing"):
        build_plan(out)
    cabling.write_text(good)
    assert build_plan(out).cables
