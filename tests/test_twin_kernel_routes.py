"""A Cumulus switch's post-up `ip route` commands against real zebra and bgpd in the twin: the
route the command puts in the kernel is read in by zebra at distance 0 and wins its prefix over
BGP's (the BGP route stays, not selected), as the model predicts (platforms/cumulus/kernel_routes)."""

from __future__ import annotations

import re
import time
from pathlib import Path

from dualrail_net.render import render_fabric
from dualrail_net.render.artifacts import write_artifacts
from dualrail_net.resolve import resolve_fabric
from dualrail_net.sot.synthetic import Shape, synthetic_inventory
from dualrail_net.twin import lifecycle, oracle
from conftest import NEEDS_TWIN

pytestmark = NEEDS_TWIN

LEAF, OTHER = "b-leaf-su1-r0", "b-leaf-su1-r1"


def test_a_post_up_blackhole_takes_a_prefix_from_bgp_as_zebra_does(tmp_path: Path) -> None:
    out = tmp_path / "build"
    write_artifacts(render_fabric(resolve_fabric(synthetic_inventory(
        Shape(spines_per_pod=2, sus_per_pod=1, rails=2, servers_per_su=2)))), out)
    other_block = re.findall(r"^ip route (\S+) blackhole$", next(out.rglob(f"{OTHER}/frr.conf")).read_text(), re.M)[0]
    interfaces = next(out.rglob(f"{LEAF}/interfaces"))
    text = interfaces.read_text()
    uplink = re.search(r"^iface (\S+)\n(?:    .*\n)*?    address (\S+)/31\n", text, re.M)
    assert uplink
    stanza_end = text.index("\n\n", uplink.start())
    interfaces.write_text(text[:stanza_end] + f"\n    post-up ip route add blackhole {other_block}" + text[stanza_end:])
    lifecycle.up(out, servers=False)
    try:
        switches = oracle.compared_devices(lifecycle.plan_from_state(lifecycle.load_state()))
        predicted = oracle.predict(out, [sw.device for sw in switches])
        deadline = time.monotonic() + 90
        while True:  # until the twin agrees with the model; what still differs at the deadline fails
            differences = oracle.disagreements(predicted, oracle.observe(switches, lifecycle.rundir))
            if not differences or time.monotonic() > deadline:
                break
            time.sleep(1)
        assert differences == {}
        # not vacuous: the leaf selects no BGP route for the other leaf's block (its kernel route
        # wins), a leaf of the same plane without the command does
        assert other_block not in dict(predicted[LEAF].routes)
        assert any(other_block in dict(p.routes) for name, p in predicted.items() if name not in (LEAF, OTHER))
    finally:
        lifecycle.down()
    assert not lifecycle.our_namespaces()
