"""End-to-end against the emulated twin: real FRR in namespaces, real packets. Needs root."""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import NEEDS_TWIN, running_example_twin

from dualrail_net.resolve.model import Fabric
from dualrail_net.twin import lifecycle
from dualrail_net.twin.chaos import run_chaos
from dualrail_net.twin.checks import run_twin_checks, wait_converged
from dualrail_net.twin.shell import in_ns, run

pytestmark = NEEDS_TWIN


@pytest.fixture(scope="module")
def twin(tmp_path_factory: pytest.TempPathFactory, example_fabric: Fabric) -> Iterator[Path]:
    yield from running_example_twin(tmp_path_factory, example_fabric, "twin")


def by_id(results):  # type: ignore[no-untyped-def]
    return {r.check: r for r in results}


def test_clean_example_passes_every_twin_check(twin: Path) -> None:
    results = by_id(run_twin_checks())
    assert set(results) == {"TWIN-BGP-ESTABLISHED", "TWIN-ECMP", "TWIN-REACH", "TWIN-ISOLATION", "TWIN-QOS-FILE"}
    for r in results.values():
        assert r.findings == [], (r.check, [f.message for f in r.findings[:5]])


def test_status_says_what_is_emulated(twin: Path) -> None:
    st = lifecycle.status()
    assert st["up"] and all(all(d.values()) and d for d in st["daemons"].values())
    assert st["substitutes"] == [f"{p}-spine-{i}" for p in "ab" for i in range(1, 5)]
    assert st["vrf_namespaces"] == ["drt-gw-storage-1.plane-a", "drt-gw-storage-1.plane-b"]


def test_ssh_management_verifies_host_keys(twin: Path, tmp_path: Path) -> None:
    mgmt = lifecycle.load_state()["management"]  # type: ignore[index]
    host = mgmt["hosts"]["a-leaf-su1-r0"]["address"]
    base = ["ssh", "-i", mgmt["identity"], "-o", "BatchMode=yes", "-o", "StrictHostKeyChecking=yes"]
    ok = subprocess.run([*base, "-o", f"UserKnownHostsFile={mgmt['known_hosts']}", f"root@{host}", "hostname"],
                        capture_output=True, text=True, timeout=30)
    assert ok.returncode == 0 and ok.stdout.strip() == "a-leaf-su1-r0"
    empty = tmp_path / "known_hosts"
    empty.write_text("")
    refused = subprocess.run([*base, "-o", f"UserKnownHostsFile={empty}", f"root@{host}", "true"],
                             capture_output=True, text=True, timeout=30)
    assert refused.returncode != 0 and "Host key verification failed" in refused.stderr


def test_chaos_losing_spines_never_touches_the_other_plane(twin: Path) -> None:
    result = run_chaos(settle=1.5, outage=2.5, leaf=True)
    phases = {p["phase"]: p for p in result["phases"]}
    one = phases["one spine of plane A"]
    every = phases["all spines of plane A"]
    leaf = phases["one leaf of plane A"]
    for phase in phases.values():
        assert phase["loss"]["B"]["lost"] == 0, phase
        assert phase["loss"]["B"]["sent"] > 0
    assert one["loss"]["A"]["loss_pct"] < 1.0, one
    # the whole plane was down: every plane-A probe crosses the spines, so the outage must show
    assert every["outage_loss"]["A"]["loss_pct"] > 75.0, every
    assert every["outage_loss"]["B"]["lost"] == 0
    assert leaf["outage_loss"]["A"]["lost"] > 0, leaf  # servers on that leaf lose plane A on its rail
    for phase in (one, every, leaf):
        assert phase["recovery_seconds"] is not None and phase["recovery_seconds"] < 60
    assert not [f for r in run_twin_checks() for f in r.findings]


def test_a_wrong_remote_as_is_caught(twin: Path) -> None:
    rundir = lifecycle.rundir("drt-b-leaf-su1-r1")
    vty = ["vtysh", "--vty_socket", str(rundir), "-c", "configure terminal", "-c", "router bgp 4200002101"]
    run([*vty, "-c", "neighbor 10.21.0.64 remote-as 4200002999"])
    try:
        run(["vtysh", "--vty_socket", str(rundir), "-c", "clear bgp *"])
        import time
        time.sleep(2)
        results = by_id(run_twin_checks())
        assert any("10.21.0.64" in f.message for f in results["TWIN-BGP-ESTABLISHED"].findings)
        assert results["TWIN-ECMP"].findings
    finally:
        run([*vty, "-c", "neighbor 10.21.0.64 remote-as 4200002000"])
    wait_converged()


def test_a_cable_between_planes_is_caught_by_packets_and_rib(twin: Path) -> None:
    """Splice the planes together behind the configs' back: a cable between two leaves of different
    planes and static routes across it. The twin must see traffic and routes cross."""
    a, b = "drt-a-leaf-su1-r0", "drt-b-leaf-su1-r0"
    run(["ip", "link", "add", "name", "leak0", "netns", a, "type", "veth", "peer", "name", "leak0", "netns", b])
    try:
        in_ns(a, ["ip", "addr", "add", "192.0.0.0/31", "dev", "leak0"])
        in_ns(b, ["ip", "addr", "add", "192.0.0.1/31", "dev", "leak0"])
        in_ns(a, ["ip", "link", "set", "leak0", "up"])
        in_ns(b, ["ip", "link", "set", "leak0", "up"])
        in_ns(a, ["ip", "route", "add", "10.22.0.0/26", "via", "192.0.0.1"])
        in_ns(b, ["ip", "route", "add", "10.12.0.0/26", "via", "192.0.0.0"])
        results = by_id(run_twin_checks())
        iso = [f.message for f in results["TWIN-ISOLATION"].findings]
        assert any("reached 10.22.0." in m for m in iso), iso
        assert any("has a route to 10.22.0.0/26 of plane B" in m for m in iso), iso
    finally:
        in_ns(a, ["ip", "link", "del", "leak0"], check=False)


def test_kernel_routes_read_over_netlink_match_ip(twin: Path) -> None:
    """The convergence poll reads kernel tables over rtnetlink: it must see what `ip route` sees."""
    import json

    from dualrail_net.twin import netlink

    def shape(r: dict) -> tuple:  # type: ignore[type-arg]
        return (r["dst"], r.get("protocol"), r.get("gateway"), r.get("type", "unicast"),
                sorted(h.get("gateway", "") for h in r.get("nexthops", [])))

    for ns in ("drt-a-leaf-su1-r0", "drt-b-spine-1", "drt-gw-storage-1.plane-a"):
        ip = json.loads(run(["ip", "-n", ns, "-j", "route", "show"]))
        mine = netlink.routes(ns)
        assert sorted(map(shape, mine)) == sorted(map(shape, ip)), ns
        if "leaf" in ns:
            assert any(len(r.get("nexthops", [])) > 1 for r in mine)  # the ECMP routes are in the comparison


def test_vty_socket_answers_what_vtysh_answers(twin: Path) -> None:
    import json

    from dualrail_net.twin import frr
    from dualrail_net.twin.shell import TwinError

    rundir = lifecycle.rundir("drt-a-leaf-su1-r0")
    via_vtysh = json.loads(run(["vtysh", "--vty_socket", str(rundir), "-c", "show bgp summary json"]))
    direct = frr.vtysh_json(rundir, "show bgp summary json")
    assert direct["ipv4Unicast"]["peers"].keys() == via_vtysh["ipv4Unicast"]["peers"].keys()
    assert {p["state"] for p in direct["ipv4Unicast"]["peers"].values()} == {"Established"}
    running = run(["vtysh", "--vty_socket", str(rundir), "-c", "show running-config"])
    assert "no zebra nexthop kernel enable" in running and "bgp route-map delay-timer 0" in running
    with pytest.raises(TwinError, match="refused"):
        frr.vty_command(rundir, "bgpd", "show no-such-thing")


def test_a_twin_without_servers_says_what_it_cannot_check(twin: Path) -> None:
    """`twin up --no-servers` has no NICs to probe from: TWIN-REACH is skipped with the reason and
    chaos refuses, instead of failing on a missing namespace."""
    import json as _json

    from dualrail_net.twin.chaos import run_chaos
    from dualrail_net.twin.checks import TwinView, check_reachability
    from dualrail_net.twin.shell import TwinError

    state = lifecycle.load_state()
    assert state is not None
    without = _json.loads(_json.dumps(state)) | {"servers_up": False}
    result = check_reachability(TwinView(without))
    assert result.skipped and "--no-servers" in result.skipped and not result.findings
    real = lifecycle._state_path().read_text()
    lifecycle._state_path().write_text(_json.dumps(without))
    try:
        with pytest.raises(TwinError, match="servers"):
            run_chaos()
    finally:
        lifecycle._state_path().write_text(real)


def test_a_server_cut_off_from_its_leaf_is_caught(twin: Path) -> None:
    """TWIN-REACH with real packets: take the leaf port of one server NIC down and the pairs over
    that NIC fail; bring it back and the check passes again."""
    from dualrail_net.twin.checks import TwinView, check_reachability

    view = TwinView(lifecycle.load_state() or {})
    server = sorted(view.servers)[0]
    ifname, ip, _plane = view.server_ports(server)[0]
    ns = view.server_ns[server]
    cable = next(c for c in view.plan.cables if (c.a_ns, c.a_port) == (ns, ifname) or (c.b_ns, c.b_port) == (ns, ifname))
    leaf_ns, leaf_port = (cable.b_ns, cable.b_port) if cable.a_ns == ns else (cable.a_ns, cable.a_port)
    in_ns(leaf_ns, ["ip", "link", "set", leaf_port, "down"])
    try:
        found = check_reachability(view).findings
        assert found and all(f.check == "TWIN-REACH" for f in found)
        assert any(ip in f.message for f in found), [f.message for f in found[:5]]
    finally:
        in_ns(leaf_ns, ["ip", "link", "set", leaf_port, "up"])
    wait_converged()
    import time
    deadline = time.monotonic() + 30
    while check_reachability(view).findings and time.monotonic() < deadline:
        time.sleep(1)
    assert check_reachability(view).findings == []


def test_a_switch_without_its_qos_file_is_caught(twin: Path) -> None:
    """No switchd runs in the twin: the QoS file is placed, and its absence is what is checked."""
    placed = lifecycle.rundir("drt-a-leaf-su1-r0") / "qos_features.conf"
    kept = placed.read_text()
    placed.unlink()
    try:
        results = by_id(run_twin_checks())
        assert any("a-leaf-su1-r0" in f.message for f in results["TWIN-QOS-FILE"].findings)
    finally:
        placed.write_text(kept)
    assert by_id(run_twin_checks())["TWIN-QOS-FILE"].findings == []


def test_capacity_model_predicts_the_ecmp_width_the_twin_shows(twin: Path, example_fabric: Fabric) -> None:
    """Issue 19: the what-if model's ECMP width on every leaf toward every other leaf equals what the
    real FRR installs when the devices are failed for real: one spine of plane A, every spine of B,
    one leaf of A."""
    from dualrail_net.twin.widths import compare_under_failure

    one = compare_under_failure(example_fabric, ["a-spine-1"])
    assert not one.disagreements, sorted(one.disagreements.items())[:5]
    assert {w for (leaf, _), w in one.predicted.items() if leaf.startswith("a-")} == {3}
    assert {w for (leaf, _), w in one.predicted.items() if leaf.startswith("b-")} == {4}
    every = compare_under_failure(example_fabric, [f"b-spine-{i}" for i in range(1, 5)])
    assert not every.disagreements, sorted(every.disagreements.items())[:5]
    assert {w for (leaf, _), w in every.predicted.items() if leaf.startswith("b-")} == {0}
    assert {w for (leaf, _), w in every.predicted.items() if leaf.startswith("a-")} == {4}
    assert len(every.observed) == len(every.predicted) == 2 * 8 * 7
    # a leaf: its server block is withdrawn everywhere in its plane, the other leaves keep full width
    leaf = compare_under_failure(example_fabric, ["a-leaf-su1-r0"])
    assert not leaf.disagreements, sorted(leaf.disagreements.items())[:5]
    assert {w for (src, dst), w in leaf.predicted.items() if dst == "a-leaf-su1-r0"} == {0}
    assert {w for (src, dst), w in leaf.predicted.items() if dst != "a-leaf-su1-r0"} == {4}


def test_servers_run_the_nic_qos_program_against_their_nic_double(twin: Path) -> None:
    """Every twin server's nic-qos.sh ran for real at `twin up`, against the server's NIC double (a
    failure would have stopped it): run dry against the double now, it finds every setting in place,
    the MTU read from the veth ifupdown2 configured; without the double it names what it cannot set
    on each port (no mlnx_qos here) and nothing for the MTU."""
    from dualrail_net.twin import nic_double
    from dualrail_net.twin.lifecycle import rundir

    state = lifecycle.load_state()
    assert state is not None
    ns = lifecycle.plan_from_state(state).servers[0].ns
    program = rundir(ns) / "nic-qos.sh"
    double = nic_double.NicDouble(rundir(ns) / nic_double.FOLDER)
    ports = [port for port, _rdma in nic_double.planned_ports(program.read_text())]
    assert len(ports) == 8 and {double.trust(port) for port in ports} == {"dscp"}
    with_double = in_ns(ns, double.run_program(program, "--dry-run"))
    assert with_double.strip() == "nic-qos: every setting already in place"
    out = in_ns(ns, ["sh", str(program), "--dry-run"])
    for port in ports:
        assert f"would set {port} trust/pfc (not possible here: mlnx_qos not installed" in out
        assert f"{port} mtu" not in out


def test_losses_are_placed_by_each_probers_own_start() -> None:
    """A prober started 1 s after the run counts its losses from its own start: a loss it saw 2 s in
    happened 3 s into the run. Without that shift the outage window of a loaded run slid off the
    outage (71.7% measured where every plane-A probe was lost)."""
    from dualrail_net.twin.chaos import window_loss
    t0 = 1000.0
    late = {"ns1": [{"dst": "10.12.0.1", "lost_at": [2.0, 2.05, 2.1], "started": t0 + 1.0},
                    {"dst": "10.22.0.1", "lost_at": [], "started": t0 + 1.0}]}
    plane = {"10.12.0.1": "A", "10.22.0.1": "B"}.get
    # the outage: 3.0 to 3.15 s of the run
    assert window_loss(late, plane, t0 + 3.0, t0 + 3.15, 0.05) == {"A": {"sent": 3, "lost": 3},
                                                                  "B": {"sent": 3, "lost": 0}}
    assert window_loss(late, plane, t0 + 2.0, t0 + 2.15, 0.05)["A"]["lost"] == 0
