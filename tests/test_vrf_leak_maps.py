"""Route-maps on the leaks between a multi-plane gateway's VRFs: what crosses is what the maps
let through (ISO-ROUTE-LEAK judges each prefix through them), on EOS (`router general` leaks with
a `subscribe-policy`) as on FRR (tests/test_verify_mutations.py: `import vrf route-map`,
`route-map vpn import|export`)."""

from __future__ import annotations

from pathlib import Path

import pytest

from dualrail_net.verify.checks import run_checks
from dualrail_net.verify.findings import Severity
from dualrail_net.verify.snapshot import load_snapshot
from conftest import built_variant

GW = "multi-plane/gw-storage-1/running-config"


@pytest.fixture(scope="module")
def eos_gateway(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return built_variant(tmp_path_factory.mktemp("eos-gateway"), gateway="eos")


def _errors(build: Path, leak: str) -> set[str]:
    path = build / GW
    clean = path.read_text()
    path.write_text(clean.replace("router bgp 4200000100\n", leak + "router bgp 4200000100\n", 1))
    try:
        results = run_checks(load_snapshot(build))
    finally:
        path.write_text(clean)
    return {r.check for r in results for f in r.findings if f.severity == Severity.ERROR}


LEAK = "router general\n   vrf plane-a\n      leak routes source-vrf plane-b{}\n!\n"


def test_a_leak_between_plane_vrfs_crosses_as_its_subscribe_policy_lets_it(eos_gateway: Path) -> None:
    assert _errors(eos_gateway, "") == set()
    assert {"ISO-VRF-LEAK", "ISO-ROUTE-LEAK"} <= _errors(eos_gateway, LEAK.format(""))
    nothing = "route-map NOTHING deny 10\n!\n" + LEAK.format(" subscribe-policy NOTHING")
    assert _errors(eos_gateway, nothing) == set()
    own = "route-map OWN permit 10\n   match ip address prefix-list PLANE-A\n!\n" + LEAK.format(" subscribe-policy OWN")
    assert _errors(eos_gateway, own) == set()  # (plane B's VRF holds no prefix of plane A's list)
    theirs = "route-map THEIRS permit 10\n   match ip address prefix-list PLANE-B\n!\n" \
        + LEAK.format(" subscribe-policy THEIRS")
    assert "ISO-ROUTE-LEAK" in _errors(eos_gateway, theirs)
    # a policy the file does not define: EOS's reading is not known here, the leak is judged unfiltered
    assert {"ISO-VRF-LEAK", "ISO-ROUTE-LEAK"} <= _errors(eos_gateway, LEAK.format(" subscribe-policy NOSUCH"))


def test_a_plane_vrf_nobody_defines_takes_its_ports_out_of_the_plane(eos_gateway: Path) -> None:
    """The gateway's `vrf instance plane-a` deleted: the ports that name the VRF carry no traffic
    (EOS refuses them or keeps them inactive), so plane A's sessions and routes at the gateway go."""
    path = eos_gateway / GW
    clean = path.read_text()
    path.write_text(clean.replace("vrf instance plane-a\n", "", 1))
    try:
        results = run_checks(load_snapshot(eos_gateway))
    finally:
        path.write_text(clean)
    errors = {r.check: [f.message for f in r.findings if f.severity == Severity.ERROR] for r in results}
    assert errors["LINK-PORT-DOWN"] and all("no `vrf instance plane-a` defines" in m for m in errors["LINK-PORT-DOWN"])
    assert errors["BGP-SESSION-DOWN"] and errors["ROUTE-MISSING"]
