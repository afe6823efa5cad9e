"""The twin's FRR start-up: each daemon reads its share of the rendered frr.conf at start-up instead
of receiving it from `vtysh -b`. These tests run real FRR daemons both ways and compare what FRR
ends up running, and feed it configs FRR must refuse. Needs root."""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from dualrail_net.render import render_fabric
from dualrail_net.resolve.model import Fabric
from dualrail_net.twin import frr
from dualrail_net.twin.shell import TwinError, in_ns, run
from dualrail_net.twin.translate import frr_for_vrf
from dualrail_net.verify import vtysh

pytestmark = [
    pytest.mark.root,
    pytest.mark.skipif(os.geteuid() != 0, reason="starts FRR daemons in a namespace"),
    pytest.mark.skipif(shutil.which("vtysh") is None, reason="needs frr"),
]

NS = "drt-frr-start-test"


@pytest.fixture(scope="module")
def rendered(example_fabric: Fabric) -> dict[str, str]:
    return render_fabric(example_fabric).by_path()


@pytest.fixture
def frr_dir() -> Iterator[Path]:
    """A directory the daemons (user frr) can reach: pytest's tmp_path sits under a 0700 folder."""
    path = Path(tempfile.mkdtemp(prefix="drt-frr-start-"))
    path.chmod(0o755)
    yield path
    shutil.rmtree(path, ignore_errors=True)


@pytest.fixture
def namespace() -> Iterator[str]:
    subprocess.run(["ip", "netns", "del", NS], capture_output=True)
    run(["ip", "netns", "add", NS])
    yield NS
    run(["ip", "netns", "del", NS], check=False)


def running_config(rundir: Path) -> str:
    out = run(["vtysh", "--vty_socket", str(rundir), "-c", "show running-config"])
    # vtysh prints its own hostname line first (this host's name): the daemons' follow
    return "\n".join(line for line in out.splitlines() if not line.startswith("hostname "))


def started_by_vtysh(ns: str, rundir: Path, config: str) -> str:
    """FRR's own way, as on a switch at boot: the daemons start with the twin-only settings and
    `vtysh -b` splits the integrated config between them."""
    rundir.mkdir(parents=True)
    (rundir / "frr.conf").write_text(config)
    (rundir / "vtysh.conf").write_text("")
    for daemon, text in frr.STARTUP.items():
        (rundir / f"{daemon}-twin.conf").write_text(text)
    shutil.chown(rundir, "frr", "frr")
    for child in rundir.iterdir():
        shutil.chown(child, "frr", "frr")
    in_ns(ns, ["sh", "-ec", "; ".join(frr.daemon_command(d, rundir) for d in frr.DAEMONS)])
    for daemon in frr.DAEMONS:
        frr.vty_command(rundir, daemon, "show version")
    out = run(["vtysh", "--vty_socket", str(rundir), "--config_dir", str(rundir), "-b"], check=False)
    assert "Error" not in out and "Unknown command" not in out, out
    try:
        return running_config(rundir)
    finally:
        frr.stop(rundir)


def started_by_twin(ns: str, rundir: Path, config: str) -> str:
    frr.start(ns, "twin-switch", rundir, config)
    try:
        return running_config(rundir)
    finally:
        frr.stop(rundir)


@pytest.mark.parametrize("device", ["plane-A/a-leaf-su1-r0", "plane-B/b-leaf-su2-r3", "twin-substitutes/a-spine-1",
                                    "multi-plane/gw-storage-1@plane-b"])
def test_daemons_reading_their_share_run_what_vtysh_would_apply(
        rendered: dict[str, str], namespace: str, frr_dir: Path, device: str) -> None:
    path, _, vrf = device.partition("@")
    config = rendered[f"{path}/frr.conf"]
    if vrf:
        config = frr_for_vrf(config, vrf)
    reference = started_by_vtysh(namespace, frr_dir / "vtysh", config)
    ours = started_by_twin(namespace, frr_dir / "twin", config)
    assert "router bgp" in ours and "route-map" in ours and "ip prefix-list" in ours
    assert ours == reference


def test_a_static_route_after_a_route_map_runs_as_vtysh_runs_it(
        rendered: dict[str, str], namespace: str, frr_dir: Path) -> None:
    """A hand edit adds a static route below the route-maps: vtysh sends it to staticd, which never
    entered the route-map block; the block's `exit` given to staticd took it out of configuration
    mode and the twin refused the line (the oracle's static-route edits found it)."""
    config = rendered["plane-A/a-leaf-su1-r0/frr.conf"].replace(
        "router bgp ", "ip route 10.10.0.0/26 blackhole\nip prefix-list EXTRA seq 5 permit 10.0.0.0/8\nrouter bgp ", 1)
    assert config.index("route-map ") < config.index("ip route 10.10.0.0/26")
    reference = started_by_vtysh(namespace, frr_dir / "vtysh", config)
    ours = started_by_twin(namespace, frr_dir / "twin", config)
    assert "ip route 10.10.0.0/26 blackhole" in ours and "ip prefix-list EXTRA" in ours
    assert ours == reference


def test_an_exit_at_the_top_level_stops_the_start_as_vtysh_loads_the_file(
        rendered: dict[str, str], namespace: str, frr_dir: Path) -> None:
    """A route-map entry's header deleted: vtysh's reader refuses its `match` at the top level, and
    the entry's `exit` takes it out of configuration mode, so no later line reaches a daemon
    (`vtysh -b`, what loads frr.conf on a switch); bgpd reading its own share went on and ran the
    instance (the oracle, seed 511). The twin now refuses the file as vtysh does."""
    config = rendered["plane-A/a-leaf-su1-r0/frr.conf"].replace("route-map LOCAL-A-OUT permit 10\n", "", 1)
    bgp = config.splitlines().index("router bgp 4200001100") + 1
    try:
        with pytest.raises(TwinError) as refused:
            frr.start(namespace, "twin-switch", frr_dir / "exited", config)
    finally:  # a start that wrongly succeeds leaves its daemons running
        frr.stop(frr_dir / "exited")
    assert f"line {bgp}: router bgp 4200001100 (refused by vtysh" in str(refused.value)


def test_vtysh_s_refusals_include_what_it_never_reads() -> None:
    """A second `exit` out of configuration mode ends vtysh without a word (exit 0): the lines
    after it are never read, and none may reach a daemon (measured with vtysh --dryrun)."""
    if shutil.which("vtysh") is None:
        pytest.skip("vtysh not installed")
    with tempfile.TemporaryDirectory() as work:
        config = "ip route 2.0.0.0/8 blackhole\nexit\nfoo\nexit\nip route 1.0.0.0/8 blackhole\n!\nend\n"
        refused = vtysh.refusals(config, Path(work))
    assert sorted(refused) == [3, 5] and "never read: vtysh ended at line 4" in refused[5]


def test_split_gives_bgp_blocks_to_bgpd_only(rendered: dict[str, str]) -> None:
    config = rendered["plane-A/a-leaf-su1-r0/frr.conf"]
    shares = frr.split_config(config)
    lines = config.splitlines()
    assert all(len(share) == len(lines) for share in shares.values())  # line-aligned
    bgp = [i for i, line in enumerate(lines) if line.startswith(" neighbor ")]
    assert bgp and all(shares["bgpd"][i] == lines[i] and shares["zebra"][i] is None for i in bgp)
    route = lines.index(next(line for line in lines if line.startswith("ip route ")))
    assert all(shares[d][route] == lines[route] for d in frr.DAEMONS)
    vtysh_only = lines.index("service integrated-vtysh-config")
    assert all(shares[d][vtysh_only] is None for d in frr.DAEMONS)
    # a route-map's closing `exit` goes to no daemon; the `router bgp` block's to bgpd
    exits = [i for i, line in enumerate(lines) if line == "exit"]
    bgp_exit = exits[-1]
    assert all(shares[d][i] is None for d in frr.DAEMONS for i in exits[:-1])
    assert shares["bgpd"][bgp_exit] == "exit" and shares["staticd"][bgp_exit] is None


def test_lines_frr_refuses_stop_the_start(rendered: dict[str, str], namespace: str, frr_dir: Path) -> None:
    config = rendered["plane-A/a-leaf-su1-r0/frr.conf"]
    lines = config.splitlines()
    # unknown to every daemon at top level, and unknown to bgpd inside its own block
    top = lines.index(next(line for line in lines if line.startswith("ip route ")))
    lines[top] = lines[top].replace("ip route ", "ip routee ")
    inner = next(i for i, line in enumerate(lines) if line.startswith(" neighbor ") and "remote-as" in line)
    lines[inner] = lines[inner].replace("remote-as", "remote-az")
    try:
        with pytest.raises(TwinError) as refused:
            frr.start(namespace, "twin-switch", frr_dir / "bad", "\n".join(lines) + "\n")
    finally:  # a start that wrongly succeeds leaves its daemons running
        frr.stop(frr_dir / "bad")
    # (vtysh's reader, asked first as `vtysh -b` would load the file, refuses both: no daemon gets them;
    # a line vtysh passes and a daemon refuses is read from the daemons' logs, test below)
    assert f"line {top + 1}: ip routee 10.12.0.0/26 blackhole (refused by vtysh" in str(refused.value)
    assert f"line {inner + 1}: neighbor 10.11.0.0 remote-az 4200001000 (refused by vtysh" in str(refused.value)
    # the one known line before it is fine: zebra took "no ipv6 forwarding" that the others refused
    assert "ipv6" not in str(refused.value)


def test_a_line_one_daemon_knows_is_not_refused() -> None:
    config = "hostname x\nno ipv6 forwarding\nrouter bgp 65000\n bgp router-id 1.1.1.1\nexit\n"
    off = frr.PRELUDE_LINES
    # zebra knows "no ipv6 forwarding"; bgpd and staticd do not: vtysh would accept it
    logs = {d: f"x [AB-CD][EC 1] No such command on config line {off + 2}: no ipv6 forwarding\n"
            for d in ("bgpd", "staticd")}
    assert frr.config_rejections(config, logs, off) == []
    logs["zebra"] = logs["bgpd"]
    assert frr.config_rejections(config, logs, off) == [
        "line 2: no ipv6 forwarding (refused by bgpd, staticd, zebra)"]
    # a line of the bgp block is given to bgpd alone: its word is enough
    warned = {"bgpd": f"x [AB-CD][EC 1] Command returned Warning on config line {off + 4}:  bgp router-id 1.1.1.1\n"}
    assert frr.config_rejections(config, warned, off) == ["line 4: bgp router-id 1.1.1.1 (refused by bgpd)"]
    assert frr.config_rejections(config, {"zebra": "x [A][EC 1] No such command on config line 1: zebra wq 9\n"}, off) \
        == ["zebra refused a twin start-up setting: zebra wq 9"]
