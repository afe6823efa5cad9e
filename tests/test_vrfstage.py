"""Splitting a gateway's change by plane (deploy/vrfstage.py): the stages change one VRF each, the
last one is exactly the intended files, shared parts refuse, and the split does not depend on
indentation."""

from __future__ import annotations

from pathlib import Path

import pytest

from dualrail_net.deploy.vrfstage import Unsplittable, frr_units, ifupdown_units, plan_stages, shared_changes
from dualrail_net.render import render_fabric
from dualrail_net.resolve.model import Fabric

VRFS = {"A": "plane-a", "B": "plane-b"}


@pytest.fixture(scope="module")
def gateway(example_fabric: Fabric) -> dict[str, str]:
    files = render_fabric(example_fabric).by_path()
    return {name: files[f"multi-plane/gw-storage-1/{name}"] for name in ("frr.conf", "interfaces")}


def _block(text: str, header: str) -> str:
    lines = text.splitlines()
    start = lines.index(header)
    end = next(i for i in range(start, len(lines)) if lines[i] == "exit")
    return "\n".join(lines[start:end + 1])


def test_units_of_the_rendered_gateway(gateway: dict[str, str]) -> None:
    by_key = {u.key: u.vrf for u in frr_units(gateway["frr.conf"]) if u.key}
    assert by_key[("bgp", "plane-a")] == "plane-a" and by_key[("bgp", "plane-b")] == "plane-b"
    # policies belong to the one VRF that uses them, through route-maps down to prefix-lists
    assert by_key[("route-map", "PLANE-A-IN")] == "plane-a" and by_key[("prefix-list", "LOCAL-B")] == "plane-b"
    ifaces = {u.key: u.vrf for u in ifupdown_units(gateway["interfaces"]) if u.key}
    assert ifaces[("iface", "swp1")] == "plane-a" and ifaces[("iface", "swp33")] == "plane-b"
    assert ifaces[("iface", "plane-a")] == "plane-a"  # a VRF device is in its own VRF
    assert ifaces[("iface", "lo")] is None


def test_a_change_in_both_vrfs_goes_one_plane_at_a_time(gateway: dict[str, str]) -> None:
    new = {"frr.conf": gateway["frr.conf"].replace("maximum-paths 64", "maximum-paths 32"),
           "interfaces": gateway["interfaces"].replace("mtu 9214", "mtu 9000")}
    stages = plan_stages(gateway, new, VRFS, ["B", "A"])
    assert [(s.plane, s.vrf) for s in stages] == [("B", "plane-b"), ("A", "plane-a")]
    first = stages[0].files
    assert "maximum-paths 32" in _block(first["frr.conf"], "router bgp 4200000100 vrf plane-b")
    assert "maximum-paths 64" in _block(first["frr.conf"], "router bgp 4200000100 vrf plane-a")
    swp1 = next(u for u in ifupdown_units(first["interfaces"]) if u.key == ("iface", "swp1"))
    swp33 = next(u for u in ifupdown_units(first["interfaces"]) if u.key == ("iface", "swp33"))
    assert any("mtu 9214" in ln for ln in swp1.lines) and any("mtu 9000" in ln for ln in swp33.lines)
    assert stages[-1].files == new


def test_an_unchanged_plane_gets_no_stage_and_no_change_gets_none(gateway: dict[str, str]) -> None:
    new = {"frr.conf": gateway["frr.conf"].replace("network 10.20.0.92/32", "network 10.20.0.92/32\n  redistribute static"),
           "interfaces": gateway["interfaces"]}
    assert [s.plane for s in plan_stages(gateway, new, VRFS, ["A", "B"])] == ["B"]
    assert plan_stages(gateway, gateway, VRFS, ["A", "B"]) == []


def test_a_policy_change_follows_its_vrf(gateway: dict[str, str]) -> None:
    new = dict(gateway, **{"frr.conf": gateway["frr.conf"].replace(
        "ip prefix-list LOCAL-A seq 10 permit 10.10.0.92/32",
        "ip prefix-list LOCAL-A seq 10 permit 10.10.0.92/32\nip prefix-list LOCAL-A seq 20 permit 10.10.0.93/32")})
    stages = plan_stages(gateway, new, VRFS, ["A", "B"])
    assert [s.plane for s in stages] == ["A"]


def test_shared_changes_are_refused(gateway: dict[str, str]) -> None:
    cases = [
        ("frr.conf", "log syslog informational", "log syslog warnings"),            # a global line
        ("interfaces", "address 198.51.100.93/24", "address 198.51.100.94/24"),    # management (its own VRF)
        ("interfaces", "iface lo inet loopback", "iface lo inet loopback\n    address 10.0.0.9/32"),
    ]
    for name, old, new_text in cases:
        new = dict(gateway, **{name: gateway[name].replace(old, new_text)})
        assert new[name] != gateway[name]
        with pytest.raises(Unsplittable):
            plan_stages(gateway, new, VRFS, ["A", "B"])
    # a route-map both VRFs use is shared
    text = gateway["frr.conf"].replace("neighbor 10.23.0.0 route-map PLANE-B-IN in", "neighbor 10.23.0.0 route-map PLANE-A-IN in")
    assert any("route-map PLANE-A-IN" in c for c in shared_changes(
        "frr.conf", text, text.replace("match ip address prefix-list PLANE-A", "match ip address prefix-list PLANE-B")))
    # a file the split does not understand
    with pytest.raises(Unsplittable):
        plan_stages({"qos_features.conf": "a"}, {"qos_features.conf": "b"}, VRFS, ["A", "B"])


def test_a_unit_removed_in_a_later_plane_still_runs_until_its_stage(gateway: dict[str, str]) -> None:
    lines = gateway["interfaces"].split("\n\n")
    without_swp33 = "\n\n".join(block for block in lines if "iface swp33" not in block)
    stages = plan_stages(gateway, {"interfaces": gateway["interfaces"]}, VRFS, ["A", "B"])
    assert stages == []
    stages = plan_stages({"interfaces": gateway["interfaces"]}, {"interfaces": without_swp33}, VRFS, ["A", "B"])
    assert [s.plane for s in stages] == ["B"]
    new_a = gateway["interfaces"].replace("mtu 9214\n    vrf plane-a", "mtu 9000\n    vrf plane-a")
    both = {"interfaces": "\n\n".join(b for b in new_a.split("\n\n") if "iface swp33" not in b)}
    stages = plan_stages({"interfaces": gateway["interfaces"]}, both, VRFS, ["A", "B"])
    assert [s.plane for s in stages] == ["A", "B"]
    assert "iface swp33" in stages[0].files["interfaces"]  # plane B's port stays until B's window
    assert "iface swp33" not in stages[1].files["interfaces"]


def test_the_split_does_not_depend_on_indentation(gateway: dict[str, str]) -> None:
    flat = "\n".join(line.strip() for line in gateway["frr.conf"].splitlines())
    keyed = {u.key: u.vrf for u in frr_units(flat) if u.key}
    indented = {u.key: u.vrf for u in frr_units(gateway["frr.conf"]) if u.key}
    assert keyed == indented
    new = flat.replace("maximum-paths 64", "maximum-paths 32", 1)  # plane-a's block comes first
    stages = plan_stages({"frr.conf": flat}, {"frr.conf": new}, VRFS, ["A", "B"])
    assert [s.plane for s in stages] == ["A"]


def test_example_golden_gateway_is_split(tmp_path: Path, gateway: dict[str, str]) -> None:
    """Every unit of the rendered gateway is either one plane's or shared, and the shared ones are
    only what both planes need (frame lines, lo, management)."""
    shared = {u.key for u in frr_units(gateway["frr.conf"]) if u.key and u.vrf is None}
    assert shared == set()
    shared_ifaces = {u.key for u in ifupdown_units(gateway["interfaces"]) if u.key and u.vrf not in VRFS.values()}
    assert shared_ifaces == {("iface", "lo"), ("iface", "mgmt"), ("iface", "eth0")}


def test_a_servers_nic_qos_and_sysctl_change_goes_one_planes_ports_at_a_time(example_fabric: Fabric) -> None:
    """The NIC QoS program runs every port line of its plan, and sysctl -p every line: pushed whole
    with the first plane's stage they would change the other plane's NIC ports too. Their port lines
    follow their port's plane (a port's sysctls too; the host-wide ones go with the first stage);
    a new program (code outside the plan) goes with any stage; a port line the new plan drops keeps
    running, inside the plan, until its plane's stage."""
    from dualrail_net.deploy.runner import SERVER_CARRIED
    from dualrail_net.deploy.vrfstage import nic_qos_units, port_units
    from dualrail_net.verify.model import ServerConfig
    from dualrail_net.verify.parsers import read_nic_qos
    files = render_fabric(example_fabric).by_path()
    running = {name: files[f"servers/gpu001/{name}"] for name in ("interfaces", "nic-qos.sh", "sysctl.conf", "nccl.env")}
    server = next(s for s in example_fabric.servers if s.name == "gpu001")
    ports = {p.ifname: p.plane for p in server.ports}
    a_port = next(p for p, plane in ports.items() if plane == "A")
    b_ports = [p for p, plane in ports.items() if plane == "B"]
    assert {u.key for u in nic_qos_units(running["nic-qos.sh"]) if u.key} == {("port", p) for p in ports}
    program = running["nic-qos.sh"].replace("mtu=9214", "mtu=9000").replace(
        "set -u\n", "set -u\n# a newer program\numask 022\n", 1)
    dropped = next(line for line in program.splitlines() if line.startswith(f"port {b_ports[0]} "))
    sysctl = running["sysctl.conf"].replace(f"net.ipv4.conf.{a_port}.rp_filter = 2", f"net.ipv4.conf.{a_port}.rp_filter = 0")
    sysctl = sysctl.replace(f"net.ipv4.conf.{b_ports[1]}.rp_filter = 2", f"net.ipv4.conf.{b_ports[1]}.rp_filter = 0")
    sysctl = sysctl.replace("net.ipv4.conf.all.arp_announce = 2", "net.ipv4.conf.all.arp_announce = 1")
    new = {**running, "interfaces": running["interfaces"].replace("mtu 9214", "mtu 9000"),
           "nic-qos.sh": program.replace(dropped + "\n", ""), "sysctl.conf": sysctl}
    assert "nic-qos.sh" not in SERVER_CARRIED and "sysctl.conf" not in SERVER_CARRIED
    stages = plan_stages(running, new, {"A": "A", "B": "B"}, ["A", "B"], units=port_units(ports),
                         carried=SERVER_CARRIED)
    assert [s.plane for s in stages] == ["A", "B"] and stages[-1].files == new
    first = ServerConfig(name="gpu001")
    read_nic_qos(stages[0].files["nic-qos.sh"], first)
    assert first.nic_qos[a_port].settings["mtu"] == "9000"
    assert {first.nic_qos[p].settings["mtu"] for p in b_ports} == {"9214"}  # plane B's ports as they run
    assert "umask 022" in stages[0].files["nic-qos.sh"]  # the new code with the first stage
    assert not first.unmodelled  # the dropped B line still runs, inside the plan
    # a port's sysctls follow its plane; the host-wide ones go with the first stage
    staged_sysctl = stages[0].files["sysctl.conf"]
    assert f"net.ipv4.conf.{a_port}.rp_filter = 0" in staged_sysctl
    assert f"net.ipv4.conf.{b_ports[1]}.rp_filter = 2" in staged_sysctl
    assert "net.ipv4.conf.all.arp_announce = 1" in staged_sysctl
    assert sorted(staged_sysctl.splitlines()) == sorted(  # one line per setting, none lost or doubled
        running["sysctl.conf"].replace(f"{a_port}.rp_filter = 2", f"{a_port}.rp_filter = 0")
        .replace("all.arp_announce = 2", "all.arp_announce = 1").splitlines())


def test_a_change_of_only_what_goes_first_still_gets_its_stage(example_fabric: Fabric) -> None:
    """A new NIC QoS program with the same plan, or a host-wide sysctl alone, changes no port: it is
    still pushed (with one stage, the first plane's), never left out as "no change"."""
    from dualrail_net.deploy.runner import SERVER_CARRIED
    from dualrail_net.deploy.vrfstage import port_units
    files = render_fabric(example_fabric).by_path()
    running = {name: files[f"servers/gpu001/{name}"] for name in ("interfaces", "nic-qos.sh", "sysctl.conf")}
    server = next(s for s in example_fabric.servers if s.name == "gpu001")
    ports = {p.ifname: p.plane for p in server.ports}
    for name, old, new_text in (("nic-qos.sh", "set -u\n", "set -u\numask 022\n"),
                                ("sysctl.conf", "all.arp_announce = 2", "all.arp_announce = 1")):
        assert old in running[name]
        new = {**running, name: running[name].replace(old, new_text, 1)}
        stages = plan_stages(running, new, {"A": "A", "B": "B"}, ["B", "A"], units=port_units(ports),
                             carried=SERVER_CARRIED)
        assert [s.plane for s in stages] == ["B"] and stages[0].files == new, name
    assert plan_stages(running, running, {"A": "A", "B": "B"}, ["A", "B"], units=port_units(ports),
                       carried=SERVER_CARRIED) == []
