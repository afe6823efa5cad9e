"""Proof that every verification check fires: break the rendered output (or the inventory) in each
way the checks cover and assert the right check id fires; the clean example has zero findings."""

from __future__ import annotations

import csv
import json
import re
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from dualrail_net.render import render_fabric
from dualrail_net.render.artifacts import write_artifacts
from dualrail_net.resolve import resolve_fabric
from dualrail_net.resolve.model import Fabric
from dualrail_net.sot.synthetic import Shape, synthetic_inventory
from dualrail_net.verify.checks import REGISTRY, run_checks
from dualrail_net.verify.snapshot import load_snapshot
from dualrail_net.verify.findings import Severity


@pytest.fixture(scope="module")
def clean(tmp_path_factory: pytest.TempPathFactory, example_fabric: Fabric) -> Path:
    out = tmp_path_factory.mktemp("clean") / "build"
    write_artifacts(render_fabric(example_fabric), out)
    return out


def edit(path: Path, old: str, new: str, count: int = 1) -> None:
    text = path.read_text()
    assert old in text, f"mutation target {old!r} not in {path}"
    path.write_text(text.replace(old, new, count))


def edit_each(path: Path, *pairs: str) -> None:
    """edit with each (old, new) pair of ``pairs`` in turn."""
    for old, new in zip(pairs[::2], pairs[1::2]):
        edit(path, old, new)


# the spine's rendered line for the administrator's planned key (EOS: its primary key)
NETOPS_KEY = "username netops ssh-key ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIEXAMPLEEXAMPLEEXAMPLEEXAMPLEEXAMPLEEXAMPLEE netops@example\n"
FIRST_RULE = "    post-up ip rule add from 10.12.0.1 lookup 101 priority 101\n"  # gpu001's plane-A port's


def after_first_rule(command: str) -> Callable[[Path], None]:
    """A mutation: a post-up ``command`` in gpu001's interfaces file, right after its first rule."""
    return lambda r: edit(r / "servers/gpu001/interfaces", FIRST_RULE, f"{FIRST_RULE}    post-up {command}\n")


def crlf(path: Path) -> None:
    """The file with CRLF line ends, as an editor on another system saves it."""
    path.write_bytes(path.read_bytes().replace(b"\n", b"\r\n"))


def edit_all(root: Path, pattern: str, old: str, new: str) -> None:
    hit = False
    for path in root.glob(pattern):
        text = path.read_text()
        if old in text:
            path.write_text(text.replace(old, new))
            hit = True
    assert hit, f"no file under {pattern} contains {old!r}"


def edit_lines(path: Path, drop: Callable[[str], bool]) -> None:
    lines = path.read_text().split("\n")
    kept = [line for line in lines if not drop(line)]
    assert len(kept) < len(lines), f"no line of {path} matched"
    path.write_text("\n".join(kept))


def edit_cabling(root: Path, match: Callable[[dict[str, str]], bool], **changes: str) -> None:
    path = root / "resolved/cabling.csv"
    rows = list(csv.DictReader(path.open()))
    hits = [r for r in rows if match(r)]
    assert hits, "no cabling row matched"
    hits[0].update(changes)
    with path.open("w", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=list(rows[0]), lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)


def edit_manifest(root: Path, change: Callable[[dict], None]) -> None:
    path = root / "manifest.json"
    data = json.loads(path.read_text())
    change(data)
    path.write_text(json.dumps(data))


LEAF_A = "plane-A/a-leaf-su1-r0"
SPINE_A = "plane-A/a-spine-1"
GW = "multi-plane/gw-storage-1"


def _cable_to_wrong_plane(r: Path) -> None:
    edit_cabling(r, lambda row: row["a_device"] == "a-leaf-su1-r0" and row["b_device"] == "a-spine-1",
                 b_device="b-spine-1")


def _bridge_across_planes(r: Path) -> None:
    with (r / GW / "interfaces").open("a") as fh:
        fh.write("\nauto br0\niface br0\n    bridge-ports swp1 swp33\n")


def _remove_spine_side_of_session(r: Path) -> None:
    path = r / SPINE_A / "running-config"
    lines = [line for line in path.read_text().splitlines() if "neighbor 10.11.0.1 " not in line]
    path.write_text("\n".join(lines) + "\n")


def _drop_relax(r: Path) -> None:
    for path in r.rglob("frr.conf"):
        path.write_text(path.read_text().replace(" bgp bestpath as-path multipath-relax\n", ""))


def _remove_plane_b_spine(r: Path) -> None:
    def change(m: dict) -> None:
        del m["devices"]["b-spine-4"]
    edit_manifest(r, change)


def _firmware_b(r: Path) -> None:
    def change(m: dict) -> None:
        for meta in m["devices"].values():
            if meta["plane"] == "B" and meta["role"] == "leaf":
                meta["firmware"] = "5.10.0"
    edit_manifest(r, change)


def _network_without_rib(r: Path) -> None:
    """The anchor of the leaf's server block is gone: FRR's import check keeps the network unadvertised."""
    edit(r / LEAF_A / "frr.conf", "ip route 10.12.0.0/26 blackhole\n", "")


def _port_without_routes(r: Path) -> None:
    """Plane B's rail-0 port loses its table's default route and the main table's plane-B routes."""
    path = r / "servers/gpu001/interfaces"
    text = path.read_text()
    text = text.replace("    post-up ip route replace default via 10.22.0.0 dev ens1f1np1 table 102\n", "")
    text = "\n".join(line for line in text.split("\n") if not (line.startswith("    post-up ip route replace 10.2")))
    path.write_text(text)
    for other in ("ens2f1np1", "ens3f1np1", "ens4f1np1"):  # the other plane-B ports keep their own tables
        assert f"dev {other} table" in text


def _same_asn_on_two_leaves(r: Path) -> None:
    """a-leaf-su1-r1 takes a-leaf-su1-r0's ASN (and the spines follow): each drops the other's routes."""
    edit(r / "plane-A/a-leaf-su1-r1/frr.conf", "router bgp 4200001101", "router bgp 4200001100")
    for spine in r.glob("plane-A/a-spine-*/running-config"):
        edit(spine, "remote-as 4200001101", "remote-as 4200001100")


def _same_asn_taken_back(r: Path) -> None:
    """Two leaves sharing an ASN, each taking the other's routes back with `allowas-in` (as FRR
    does: loop prevention lets N copies of the receiver's own ASN through)."""
    _same_asn_on_two_leaves(r)
    for leaf in ("a-leaf-su1-r0", "a-leaf-su1-r1"):
        path = r / "plane-A" / leaf / "frr.conf"
        text = path.read_text()
        spines = re.findall(r"^  neighbor (\S+) route-map \S+ in$", text, re.M)
        path.write_text(text.replace("  maximum-paths 64\n", "".join(f"  neighbor {s} allowas-in 1\n" for s in spines)
                                     + "  maximum-paths 64\n"))


def _ecn_plane_b(r: Path) -> None:
    edit_all(r, "plane-B/*/qos_features.conf", "min_threshold_bytes = 150000", "min_threshold_bytes = 160000")
    edit_all(r, "plane-B/*/running-config", "minimum-threshold 150000 bytes", "minimum-threshold 160000 bytes")


def _prepend_toward_one_spine(r: Path) -> None:
    """The leaf's first spine gets its prefixes over a route-map that prepends the leaf's ASN."""
    path = r / LEAF_A / "frr.conf"
    edit(path, "  neighbor 10.11.0.0 route-map LOCAL-A-OUT out\n", "  neighbor 10.11.0.0 route-map DRAIN-OUT out\n")
    edit(path, "route-map LOCAL-A-OUT permit 10\n", "route-map DRAIN-OUT permit 10\n match ip address prefix-list "
               "LOCAL-A\n set as-path prepend 4200001100\nroute-map LOCAL-A-OUT permit 10\n")


def _strip_everywhere(r: Path) -> None:
    """Every spine of plane A strips the private ASNs from what it sends every leaf: every path
    arrives one AS long alike (the leaves' own ASNs are kept, so nothing comes back to them)."""
    for spine in sorted((r / "plane-A").glob("a-spine-*")):
        path = spine / "running-config"
        text = path.read_text()
        path.write_text(re.sub(r"^(   neighbor (\S+) route-map PLANE-A-OUT out\n)",
                               lambda m: f"{m.group(1)}   neighbor {m.group(2)} remove-private-as\n", text, flags=re.M))


def _local_as_toward_spine(r: Path, options: str = "") -> None:
    """The leaf presents AS 4200009999 to its first spine (a migration), and that spine expects it:
    the session comes up; without no-prepend and replace-as the paths over it are one AS longer
    each way."""
    edit(r / LEAF_A / "frr.conf", " neighbor 10.11.0.0 remote-as 4200001000\n",
         f" neighbor 10.11.0.0 remote-as 4200001000\n neighbor 10.11.0.0 local-as 4200009999{options}\n")
    edit(r / SPINE_A / "running-config", "   neighbor 10.11.0.1 remote-as 4200001100\n",
         "   neighbor 10.11.0.1 remote-as 4200009999\n")


def _one_spine_sets(r: Path, line: str) -> None:
    """The leaf takes its first spine's routes through a route-map that sets ``line``."""
    path = r / LEAF_A / "frr.conf"
    edit(path, "  neighbor 10.11.0.0 route-map PLANE-A-IN in\n", "  neighbor 10.11.0.0 route-map ONE-IN in\n")
    edit(path, "route-map PLANE-A-IN permit 10\n", "route-map ONE-IN permit 10\n match ip address prefix-list "
               f"PLANE-A\n {line}\nroute-map PLANE-A-IN permit 10\n")


def _spine_med_to_one_leaf(r: Path) -> None:
    """a-spine-1 (EOS) sends a-leaf-su1-r0 its routes with MED 50, the other leaves with none."""
    path = r / SPINE_A / "running-config"
    edit(path, "   neighbor 10.11.0.1 route-map PLANE-A-OUT out\n", "   neighbor 10.11.0.1 route-map MED-OUT out\n")
    edit(path, "route-map PLANE-A-OUT permit 10\n", "route-map MED-OUT permit 10\n   match ip address prefix-list "
               "PLANE-A\n   set metric 50\n!\nroute-map PLANE-A-OUT permit 10\n")


def _missing_med_worst(r: Path) -> None:
    """a-leaf-su1-r0 compares a path without a MED as the highest MED."""
    edit(r / LEAF_A / "frr.conf", "router bgp 4200001100\n", "router bgp 4200001100\n bgp bestpath med missing-as-worst\n")


def _prepend_from_one_spine(r: Path) -> None:
    """The leaf takes its first spine's routes through a route-map that prepends that spine's ASN."""
    path = r / LEAF_A / "frr.conf"
    edit(path, "  neighbor 10.11.0.0 route-map PLANE-A-IN in\n", "  neighbor 10.11.0.0 route-map LONGER-IN in\n")
    edit(path, "route-map PLANE-A-IN permit 10\n", "route-map LONGER-IN permit 10\n match ip address prefix-list "
               "PLANE-A\n set as-path prepend 4200001000\nroute-map PLANE-A-IN permit 10\n")


def _leaf_redistributes(r: Path, *lines: str) -> None:
    """The first leaf's `network` statements replaced by ``lines`` (redistribution)."""
    path = r / LEAF_A / "frr.conf"
    kept = [line for line in path.read_text().splitlines(keepends=True) if not line.strip().startswith("network ")]
    path.write_text("".join(kept))
    _leaf_af(r, *lines)


def _missing_policy(r: Path, lines: str = "", af: str = "", drop: str = "",
                    map_line: tuple[str, str] | None = None) -> None:
    """EOS `missing-policy` on spine A1: ``lines`` under `router bgp`, ``af`` under its `address-family
    ipv4`, ``drop`` taken out, ``map_line`` (an entry's line, a line to put under it) added."""
    path = r / SPINE_A / "running-config"
    if lines:
        edit(path, "   timers bgp 3 9\n", "   timers bgp 3 9\n" + lines)
    if af:
        edit(path, "   network 10.10.0.0/32\n", "   network 10.10.0.0/32\n   !\n   address-family ipv4\n" + af)
    if drop:
        edit(path, drop, "")
    if map_line:
        edit(path, map_line[0], map_line[0] + map_line[1])


def _leaf_af(r: Path, *lines: str) -> None:
    """Statements added to the first leaf's IPv4 unicast address family."""
    edit(r / LEAF_A / "frr.conf", " address-family ipv4 unicast\n",
         " address-family ipv4 unicast\n" + "".join(f"  {line}\n" for line in lines))


def _leaf_neighbor(r: Path, statement: str) -> None:
    """One more statement for the first leaf's neighbor a-spine-1 (10.11.0.0)."""
    edit(r / LEAF_A / "frr.conf", " neighbor 10.11.0.0 description a-spine-1:Ethernet1\n",
         f" neighbor 10.11.0.0 description a-spine-1:Ethernet1\n neighbor 10.11.0.0 {statement}\n")


def _slow_hold(r: Path) -> None:
    """The spine's `timers bgp` removed (EOS then offers 180 s) and the leaf on FRR's traditional
    profile (180 s): the session between them holds for 180 s."""
    edit(r / SPINE_A / "running-config", "   timers bgp 3 9\n", "")
    edit(r / LEAF_A / "frr.conf", "frr defaults datacenter", "frr defaults traditional")


def _uplink_post_up(root: Path, command: str) -> None:
    """A post-up command in the stanza of LEAF_A's first uplink."""
    edit(root / LEAF_A / "interfaces", "    alias a-spine-1:Ethernet1\n",
         f"    alias a-spine-1:Ethernet1\n    post-up {command}\n")


def _after_first_uplink(root: Path, *statements: str) -> None:
    """``statements`` in LEAF_A's frr.conf right after its first uplink neighbor's description."""
    anchor = " neighbor 10.11.0.0 description a-spine-1:Ethernet1\n"
    edit(root / LEAF_A / "frr.conf", anchor, anchor + "".join(f" {st}\n" for st in statements))


def _below_leaf_static(root: Path, lines: str) -> None:
    """``lines`` in LEAF_A's frr.conf right below its static route of its server block."""
    anchor = "ip route 10.12.0.0/26 blackhole\n"
    edit(root / LEAF_A / "frr.conf", anchor, anchor + lines)


MUTATIONS: list[tuple[str, str, Callable[[Path], None]]] = [
    ("zebra shuts a leaf's uplink in frr.conf (`interface swp33` / `shutdown`)", "LINK-PORT-DOWN",
     lambda r: edit(r / LEAF_A / "frr.conf", "\nend\n", "\ninterface swp33\n shutdown\nexit\nend\n")),
    ("a second `router bgp` block with another ASN (bgpd: already running as the first)", "BGP-CONFIG-REFUSED",
     lambda r: edit(r / LEAF_A / "frr.conf", "\nend\n", "\nrouter bgp 65000\n neighbor 10.11.0.0 shutdown\nexit\nend\n")),
    ("a leaf's prefix-list entry written again under its seq as deny (it replaces the permit)", "ROUTE-MISSING",
     lambda r: edit(r / LEAF_A / "frr.conf", "ip prefix-list LOCAL-A seq 20 permit 10.12.0.0/26\n",
                    "ip prefix-list LOCAL-A seq 20 permit 10.12.0.0/26\nip prefix-list LOCAL-A seq 20 deny 10.12.0.0/26\n")),
    # `no ...` pasted after a statement takes it back, as FRR and EOS read the file line by line
    ("a leaf's network statement in bgpd's classful form (10.12.0.0 is a /8 to it: no route for that)",
     "ROUTE-MISSING", lambda r: edit(r / LEAF_A / "frr.conf", "  network 10.12.0.0/26\n", "  network 10.12.0.0\n")),
    ("a pasted `no ip route` in address-and-mask form takes a leaf's blackhole", "ROUTE-MISSING",
     lambda r: edit(r / LEAF_A / "frr.conf", "!\nrouter bgp", "no ip route 10.12.0.0 255.255.255.192 blackhole\n!\nrouter bgp")),
    ("a leaf's blackhole given distance 255 (never installed: its network statement advertises nothing)",
     "ROUTE-MISSING", lambda r: edit(r / LEAF_A / "frr.conf", "ip route 10.12.0.0/26 blackhole\n",
                                     "ip route 10.12.0.0/26 blackhole 255\n")),
    ("a pasted `no ip route` takes a leaf's blackhole (its network's RIB route)", "ROUTE-MISSING",
     lambda r: edit(r / LEAF_A / "frr.conf", "\nend\n", "\nno ip route 10.12.0.0/26 blackhole\nend\n")),
    ("a pasted `no ip prefix-list LOCAL-A seq 20`", "ROUTE-MISSING",
     lambda r: edit(r / LEAF_A / "frr.conf", "\nend\n", "\nno ip prefix-list LOCAL-A seq 20\nend\n")),
    ("a pasted `no route-map LOCAL-A-OUT permit 10` (the map is gone)", "ROUTE-UNDEFINED-REF",
     lambda r: edit(r / LEAF_A / "frr.conf", "\nend\n", "\nno route-map LOCAL-A-OUT permit 10\nend\n")),
    ("a pasted `no neighbor` on a leaf", "BGP-SESSION-MISSING",
     lambda r: edit(r / LEAF_A / "frr.conf", "\nend\n", "\nrouter bgp 4200001100\n no neighbor 10.11.0.0\nexit\nend\n")),
    ("a leaf's outbound route-map entry re-entered as deny", "ROUTE-MISSING",
     lambda r: edit(r / LEAF_A / "frr.conf", "\nend\n", "\nroute-map LOCAL-A-OUT deny 10\nexit\nend\n")),
    ("EOS `default interface Ethernet1` after its block", "ADDR-P2P-MISMATCH",
     lambda r: edit(r / SPINE_A / "running-config", "interface Loopback0\n",
                    "default interface Ethernet1\n!\ninterface Loopback0\n")),
    ("EOS `no ip address` on a spine port", "ADDR-P2P-MISMATCH",
     lambda r: edit(r / SPINE_A / "running-config", "   ip address 10.11.0.0/31\n",
                    "   ip address 10.11.0.0/31\n   no ip address\n")),
    ("EOS `no priority-flow-control priority 3` on a spine port", "QOS-PFC",
     lambda r: edit(r / SPINE_A / "running-config", "   priority-flow-control priority 3 no-drop\n",
                    "   priority-flow-control priority 3 no-drop\n   no priority-flow-control priority 3\n", 1)),
    ("EOS `bgp missing-policy direction in action deny` on a spine, one neighbor without a route-map in",
     "ROUTE-MISSING", lambda r: _missing_policy(r, "   bgp missing-policy direction in action deny\n",
                                               drop="   neighbor 10.11.0.1 route-map PLANE-A-IN in\n")),
    ("EOS `missing-policy ... deny-in-out` of one neighbor without a route-map in: what it is sent stops too",
     "ROUTE-MISSING", lambda r: _missing_policy(r, "   neighbor 10.11.0.1 missing-policy direction in action deny-in-out\n",
                                               drop="   neighbor 10.11.0.1 route-map PLANE-A-IN in\n")),
    ("EOS `missing-policy direction out action deny` under `address-family ipv4`, one neighbor without a route-map out",
     "ROUTE-MISSING", lambda r: _missing_policy(r, af="      bgp missing-policy direction out action deny\n",
                                               drop="   neighbor 10.11.0.1 route-map PLANE-A-OUT out\n")),
    ("EOS `missing-policy include prefix-list` where the in-policy matches on a prefix-list nobody defined",
     "ROUTE-MISSING", lambda r: _missing_policy(r, "   bgp missing-policy include prefix-list direction in action deny\n",
                                               map_line=("route-map PLANE-A-IN permit 10\n",
                                                         "   match ip address prefix-list NOT-DEFINED\n"))),
    ("EOS `no qos trust` on a spine port (EOS's untrusted port: everything in class 0)", "QOS-TRUST",
     lambda r: edit(r / SPINE_A / "running-config", "   qos trust dscp\n", "   no qos trust\n")),
    ("EOS `no qos trust dscp` on a spine port", "QOS-TRUST",
     lambda r: edit(r / SPINE_A / "running-config", "   qos trust dscp\n", "   no qos trust dscp\n")),
    ("EOS `qos trust dscp` then `no qos trust` on a spine port (the last line decides)", "QOS-TRUST",
     lambda r: edit(r / SPINE_A / "running-config", "   qos trust dscp\n", "   qos trust dscp\n   no qos trust\n")),
    ("NCCL_IB_TC=0104: a leading 0 is octal to NCCL's strtoll (68: DSCP 17, not RoCE's 26)",
     "HOST-NCCL-TC", lambda r: edit(r / "servers/gpu001/nccl.env", "NCCL_IB_TC=104", "NCCL_IB_TC=0104")),
    ("NCCL_IB_GID_INDEX=0x0 (hex 0 to NCCL: GID 0, RoCEv1)", "HOST-NCCL-GID",
     lambda r: edit(r / "servers/gpu001/nccl.env", "NCCL_IB_GID_INDEX=3", "NCCL_IB_GID_INDEX=0x0")),
    ("EOS `default neighbor X` on a spine (EOS's default: no such neighbor)", "BGP-SESSION-MISSING",
     lambda r: edit(r / SPINE_A / "running-config", "   network 10.10.0.0/32\n",
                    "   network 10.10.0.0/32\n   default neighbor 10.11.0.1\n")),
    ("EOS `no neighbor X remote-as` on a spine (the neighbor keeps its other lines, no session)", "BGP-SESSION-MISSING",
     lambda r: edit(r / SPINE_A / "running-config", "   network 10.10.0.0/32\n",
                    "   network 10.10.0.0/32\n   no neighbor 10.11.0.1 remote-as\n")),
    ("EOS `default network` of a spine's loopback", "ROUTE-MISSING",
     lambda r: edit(r / SPINE_A / "running-config", "   network 10.10.0.0/32\n",
                    "   network 10.10.0.0/32\n   default network 10.10.0.0/32\n")),
    ("EOS `default route-map` of a spine's in-policy entry", "ROUTE-MISSING",
     lambda r: edit(r / SPINE_A / "running-config", "\nend\n", "\ndefault route-map PLANE-A-IN permit 10\nend\n")),
    ("EOS `default username netops` at the end of a spine's file", "MGMT-USER",
     lambda r: edit(r / SPINE_A / "running-config", "\nend\n", "\ndefault username netops\nend\n")),
    ("EOS `no neighbor` on a spine", "BGP-SESSION-MISSING",
     lambda r: edit(r / SPINE_A / "running-config", "   neighbor 10.11.0.1 route-map PLANE-A-OUT out\n",
                    "   neighbor 10.11.0.1 route-map PLANE-A-OUT out\n   no neighbor 10.11.0.1\n")),
    ("a leaf in a BGP confederation (its spines see AS 65000)", "BGP-SESSION-DOWN",
     lambda r: edit(r / LEAF_A / "frr.conf", " bgp router-id 10.10.0.32\n",
                    " bgp router-id 10.10.0.32\n bgp confederation identifier 65000\n")),
    # FRR completes abbreviated keywords as its terminal does (verify/parsers/frr_cli.py)
    ("a leaf's session shut in FRR's short words (`nei X shut`)", "BGP-SESSION-MISSING",
     lambda r: edit(r / LEAF_A / "frr.conf", " neighbor 10.11.0.0 description a-spine-1:Ethernet1\n",
                    " neighbor 10.11.0.0 description a-spine-1:Ethernet1\n nei 10.11.0.0 shut\n")),
    ("a leaf's network withdrawn in short words (`no net`)", "ROUTE-MISSING",
     lambda r: edit(r / LEAF_A / "frr.conf", "  network 10.12.0.0/26\n",
                    "  network 10.12.0.0/26\n  no net 10.12.0.0/26\n")),
    # (the twin, seed 511: the leaf ended with no BGP route at all; verify had read the `exit` as the end
    # of an unknown block and kept the instance)
    ("a route-map entry's header deleted: its `exit` leaves configuration mode, BGP is never configured",
     "ROUTE-MISSING", lambda r: edit(r / LEAF_A / "frr.conf", "route-map LOCAL-A-OUT permit 10\n", "")),
    ("a route-map line FRR cannot complete (`match i address`: ip or ipv6)", "BGP-CONFIG-REFUSED",
     lambda r: edit(r / LEAF_A / "frr.conf", " match ip address prefix-list LOCAL-A\n",
                    " match i address prefix-list LOCAL-A\n")),
    ("an EOS port range shut (`interface Ethernet1-2`)", "LINK-PORT-DOWN",
     lambda r: edit(r / SPINE_A / "running-config", "interface Ethernet1\n",
                    "interface Ethernet1-2\n   shutdown\n!\ninterface Ethernet1\n")),
    ("an EOS port shut under its short name (`interface ethernet 1`)", "LINK-PORT-DOWN",
     lambda r: edit(r / SPINE_A / "running-config", "interface Ethernet1\n",
                    "interface ethernet 1\n   shutdown\n!\ninterface Ethernet1\n")),
    ("EOS `no ip routing` after `ip routing` on a spine (how EOS prints routing off)", "ROUTE-MISSING",
     lambda r: edit(r / SPINE_A / "running-config", "\nend\n", "\nno ip routing\nend\n")),
    ("EOS `default ip routing` after `ip routing` on a spine (EOS's default: routing off)", "ROUTE-MISSING",
     lambda r: edit(r / SPINE_A / "running-config", "\nend\n", "\ndefault ip routing\nend\n")),
    ("EOS `no username netops` at the end of a spine's file (the only account gone)", "MGMT-USER",
     lambda r: edit(r / SPINE_A / "running-config", "\nend\n", "\nno username netops\nend\n")),
    ("EOS `nopassword` on the administrator (its SSH key kept): anyone logs in as it", "MGMT-USER",
     lambda r: edit(r / SPINE_A / "running-config", "role network-admin secret sha512 ${secret:netops-password}",
                    "role network-admin nopassword")),
    ("an EOS account the plan does not name (`username backdoor privilege 15 ...`)", "MGMT-USER",
     lambda r: edit(r / SPINE_A / "running-config", "\nend\n",
                    "\nusername backdoor privilege 15 role network-admin secret sha512 ${secret:netops-password}\nend\n")),
    ("EOS `ip route vrf mgmt 192.0.2.0/24 Null0`: the NTP, syslog, DNS and TACACS+ servers' subnet dropped",
     "MGMT-SERVER-ROUTE",
     lambda r: edit(r / SPINE_A / "running-config", "\nend\n", "\nip route vrf mgmt 192.0.2.0/24 Null0\nend\n")),
    ("FRR `ip route 192.0.2.49/32 reject vrf mgmt` on a Cumulus leaf: its TACACS+ server unreachable",
     "MGMT-SERVER-ROUTE",
     lambda r: edit(r / LEAF_A / "frr.conf", "\nend\n", "\nip route 192.0.2.49/32 reject vrf mgmt\nend\n")),
    ("a `vrf mgmt` block's `ip route 192.0.2.0/24 blackhole` on a Cumulus leaf", "MGMT-SERVER-ROUTE",
     lambda r: edit(r / LEAF_A / "frr.conf", "\nend\n", "\nvrf mgmt\n ip route 192.0.2.0/24 blackhole\nexit-vrf\nend\n")),
    ("EOS: a second SSH key for the administrator, one the plan does not name", "MGMT-USER",
     lambda r: edit(r / SPINE_A / "running-config", NETOPS_KEY,
                    NETOPS_KEY + "username netops ssh-key ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAABAQC7xyz someone@laptop\n")),
    ("EOS: a secondary SSH key (`ssh-key secondary`) for the administrator that the plan does not name", "MGMT-USER",
     lambda r: edit(r / SPINE_A / "running-config", NETOPS_KEY,
                    NETOPS_KEY + "username netops ssh-key secondary ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAABAQC7xyz a@b\n")),
    ("EOS: the administrator's planned SSH key removed (a replace drops it)", "MGMT-USER",
     lambda r: edit(r / SPINE_A / "running-config", NETOPS_KEY, "")),
    ("EOS `no lldp transmit` on a spine's fabric port (the cabling audit loses that cable)", "MGMT-SERVICES",
     lambda r: edit(r / SPINE_A / "running-config", "      priority strict\n!\ninterface Ethernet2\n",
                    "      priority strict\n   no lldp transmit\n!\ninterface Ethernet2\n")),
    ("a Cumulus leaf's post-up `ip link set eth0 down` (under a fabric port: ifupdown2 runs it all the same)",
     "MGMT-ADDRESS", lambda r: edit(r / LEAF_A / "interfaces", "    alias gpu001:ens1f0np0\n",
                                    "    alias gpu001:ens1f0np0\n    post-up ip link set eth0 down\n")),
    ("a Cumulus leaf's post-up `ip link set eth0 nomaster` (the management port out of its VRF)", "MGMT-ADDRESS",
     lambda r: edit(r / LEAF_A / "interfaces", "    vrf mgmt\n", "    vrf mgmt\n    post-up ip link set eth0 nomaster\n")),
    ("EOS `server-port 2222` under `management ssh` (deploy connects to 22)", "MGMT-ACCESS",
     lambda r: edit(r / SPINE_A / "running-config", "management ssh\n", "management ssh\n   server-port 2222\n")),
    ("EOS eAPI moved to `protocol https port 8443`", "MGMT-ACCESS",
     lambda r: edit(r / SPINE_A / "running-config", "management api http-commands\n",
                    "management api http-commands\n   protocol https port 8443\n")),
    ("EOS eAPI over plain HTTP only (`no protocol https`, `protocol http`)", "MGMT-ACCESS",
     lambda r: edit(r / SPINE_A / "running-config", "management api http-commands\n",
                    "management api http-commands\n   no protocol https\n   protocol http\n")),
    ("EOS `no ntp server` for both of a spine's servers at the end of its file", "MGMT-SERVICES",
     lambda r: edit(r / SPINE_A / "running-config", "\nend\n",
                    "\nno ntp server vrf mgmt 192.0.2.10\nno ntp server vrf mgmt 192.0.2.11\nend\n")),
    ("EOS `no management api http-commands` on a spine", "MGMT-ACCESS",
     lambda r: edit(r / SPINE_A / "running-config", "\nend\n", "\nno management api http-commands\nend\n")),
    ("EOS `no tacacs-server host` of the login group's server", "MGMT-AAA",
     lambda r: edit(r / SPINE_A / "running-config", "\nend\n", "\nno tacacs-server host 192.0.2.49 vrf mgmt\nend\n")),
    ("EOS `no hostname` (the switch is named localhost)", "MGMT-HOSTNAME",
     lambda r: edit(r / SPINE_A / "running-config", "\nend\n", "\nno hostname\nend\n")),
    ("EOS `router bgp` repeated at the end with a neighbor shut (the blocks merge)", "BGP-SESSION-MISSING",
     lambda r: edit(r / SPINE_A / "running-config", "\nend\n",
                    "\nrouter bgp 4200001000\n   neighbor 10.11.0.1 shutdown\nend\n")),
    ("EOS `no random-detect ecn` in a spine port's RoCE queue", "QOS-ECN",
     lambda r: edit(r / SPINE_A / "running-config", "max-mark-probability 100\n   !\n   tx-queue 6\n",
                    "max-mark-probability 100\n      no random-detect ecn\n   !\n   tx-queue 6\n", 1)),
    ("EOS RoCE queue's ECN line with a word EOS does not take after its thresholds (the line is refused)", "QOS-ECN",
     lambda r: edit(r / SPINE_A / "running-config", "maximum-threshold 1500000 bytes max-mark-probability 100\n   !\n"
                    "   tx-queue 6\n", "maximum-threshold 1500000 bytes mgmt 100\n   !\n   tx-queue 6\n", 1)),
    ("EOS RoCE queue's ECN line cut after its maximum threshold's value (no unit: refused)", "QOS-ECN",
     lambda r: edit(r / SPINE_A / "running-config", "maximum-threshold 1500000 bytes max-mark-probability 100\n   !\n"
                    "   tx-queue 6\n", "maximum-threshold 1500000\n   !\n   tx-queue 6\n", 1)),
    ("EOS `no seq 20` in a spine's plane prefix-list (the server subnets refused)", "ROUTE-MISSING",
     lambda r: edit(r / SPINE_A / "running-config", "   seq 20 permit 10.12.0.0/20 le 32\n",
                    "   seq 20 permit 10.12.0.0/20 le 32\n   no seq 20\n", 1)),
    ("EOS `no vrf mgmt` under `management ssh`", "MGMT-ACCESS",
     lambda r: edit(r / SPINE_A / "running-config", "management ssh\n   vrf mgmt\n      no shutdown\n",
                    "management ssh\n   vrf mgmt\n      no shutdown\n   no vrf mgmt\n")),
    ("EOS `no server` in the login group (no TACACS+ server asked)", "MGMT-AAA",
     lambda r: edit(r / SPINE_A / "running-config", "   server 192.0.2.49 vrf mgmt\n",
                    "   server 192.0.2.49 vrf mgmt\n   no server 192.0.2.49 vrf mgmt\n")),
    ("EOS command authorization through TACACS+ only (`aaa authorization commands all default group ...`)",
     "MGMT-AAA",
     lambda r: edit(r / SPINE_A / "running-config", "aaa authorization exec default group dualrail local\n",
                    "aaa authorization exec default group dualrail local\n"
                    "aaa authorization comm all default group dualrail\n")),
    ("EOS without its `hostname` line (a full replace leaves EOS's default, localhost)", "MGMT-HOSTNAME",
     lambda r: edit(r / SPINE_A / "running-config", "hostname a-spine-1\n", "")),
    # EOS reads a line in the mode the lines above it entered, whatever its indentation
    ("an EOS port shut by a line at column 0 under its block", "LINK-PORT-DOWN",
     lambda r: edit(r / SPINE_A / "running-config", "   description a-leaf-su1-r0:swp33\n",
                    "   description a-leaf-su1-r0:swp33\nshutdown\n")),
    ("an EOS session shut by a line pasted at column 0 after `router bgp`'s lines", "BGP-SESSION-MISSING",
     lambda r: edit(r / SPINE_A / "running-config", "   network 10.10.0.0/32\n",
                    "   network 10.10.0.0/32\nneighbor 10.11.0.1 shutdown\n")),
    # EOS completes shortened keywords as its CLI does (platforms/eos/keywords.py)
    ("an EOS port shut in short words (`shut`)", "LINK-PORT-DOWN",
     lambda r: edit(r / SPINE_A / "running-config", "   description a-leaf-su1-r0:swp33\n",
                    "   description a-leaf-su1-r0:swp33\n   shut\n")),
    ("an EOS port block opened in short words (`int Et1`, then `shutdown`)", "LINK-PORT-DOWN",
     lambda r: edit(r / SPINE_A / "running-config", "interface Loopback0\n",
                    "int Et1\n   shutdown\n!\ninterface Loopback0\n")),
    ("an EOS session shut in short words (`nei X shut`)", "BGP-SESSION-MISSING",
     lambda r: edit(r / SPINE_A / "running-config", "   neighbor 10.11.0.1 description a-leaf-su1-r0:swp33\n",
                    "   neighbor 10.11.0.1 description a-leaf-su1-r0:swp33\n   nei 10.11.0.1 shut\n")),
    ("an EOS port's PFC taken back in short words (`no priority-flow-control pri 3`)", "QOS-PFC",
     lambda r: edit(r / SPINE_A / "running-config", "   priority-flow-control priority 3 no-drop\n",
                    "   priority-flow-control priority 3 no-drop\n   no priority-flow-control pri 3\n", 1)),
    ("cable to the wrong plane", "ISO-CROSS-PLANE-LINK", _cable_to_wrong_plane),
    ("plane-B subnet on a plane-A port", "ISO-FOREIGN-SUBNET",
     lambda r: edit(r / LEAF_A / "interfaces", "address 10.11.0.1/31", "address 10.21.0.1/31")),
    ("shared subnet between planes", "ISO-CROSS-PLANE-LINK",
     lambda r: edit(r / "plane-B/b-leaf-su1-r0/interfaces", "address 10.21.0.1/31", "address 10.11.0.3/31")),
    ("bridge across planes on the gateway", "ISO-L2-DOMAIN", _bridge_across_planes),
    ("BGP session toward the other plane", "ISO-CROSS-PLANE-BGP",
     lambda r: edit(r / LEAF_A / "frr.conf", "neighbor 10.11.0.0 remote-as", "neighbor 10.21.0.0 remote-as")),
    ("VRF import between planes", "ISO-VRF-LEAK",
     lambda r: edit(r / GW / "frr.conf", "  network 10.20.0.92/32\n", "  network 10.20.0.92/32\n  import vrf plane-a\n")),
    ("leaked route: plane-B leaf originates a plane-A prefix", "ISO-ROUTE-LEAK",
     lambda r: edit(r / "plane-B/b-leaf-su1-r0/frr.conf", "  network 10.22.0.0/26\n",
                    "  network 10.22.0.0/26\n  network 10.12.0.0/26\n")),
    ("a static route to plane B's servers through a gateway and the port it is on (`ip route P GW PORT`)",
     "ISO-ROUTE-LEAK", lambda r: edit(r / LEAF_A / "frr.conf", "ip route 10.12.0.0/26 blackhole\n",
                                      "ip route 10.12.0.0/26 blackhole\nip route 10.22.0.0/20 10.11.0.0 swp33\n")),
    ("the gateway passes its external peer's next hop on to one spine (`attribute-unchanged next-hop`)",
     "ROUTE-MISSING", lambda r: edit(r / GW / "frr.conf", "  neighbor 10.13.0.16 route-map LOCAL-A-OUT out\n",
                                     "  neighbor 10.13.0.16 route-map LOCAL-A-OUT out\n"
                                     "  neighbor 10.13.0.16 attribute-unchanged next-hop\n")),
    ("a static route to a supernet of plane B's server block (10.22.0.0/16 around its /20)", "ISO-ROUTE-LEAK",
     lambda r: _below_leaf_static(r, "ip route 10.22.0.0/16 10.11.0.0\n")),
    ("a leaf originates a supernet of plane B's server block into plane A", "ISO-ROUTE-LEAK",
     lambda r: (_below_leaf_static(r, "ip route 10.22.0.0/16 blackhole\n"),
                edit(r / LEAF_A / "frr.conf", "  network 10.12.0.0/26\n", "  network 10.12.0.0/26\n  network 10.22.0.0/16\n"),
                edit(r / LEAF_A / "frr.conf", "ip prefix-list LOCAL-A seq 20 permit 10.12.0.0/26\n",
                     "ip prefix-list LOCAL-A seq 20 permit 10.12.0.0/26\nip prefix-list LOCAL-A seq 30 permit 10.22.0.0/16\n"))),
    ("a static route to plane B's servers out of a port with `onlink` (the port alone decides)",
     "ISO-ROUTE-LEAK", lambda r: edit(r / LEAF_A / "frr.conf", "ip route 10.12.0.0/26 blackhole\n",
                                      "ip route 10.12.0.0/26 blackhole\nip route 10.22.0.0/20 192.0.2.1 swp33 onlink\n")),
    ("a static route through a gateway and a port the gateway is not on (zebra never installs it)",
     "ROUTE-DEAD-POLICY", lambda r: edit(r / LEAF_A / "frr.conf", "ip route 10.12.0.0/26 blackhole\n",
                                         "ip route 10.12.0.0/26 blackhole\nip route 10.22.0.0/20 10.11.0.0 swp34\n")),
    ("leaked route through a VRF import", "ISO-ROUTE-LEAK",
     lambda r: edit(r / GW / "frr.conf", "  network 10.20.0.92/32\n", "  network 10.20.0.92/32\n  import vrf plane-a\n")),
    ("leaked route through a VRF import whose route-map lets plane A's list through", "ISO-ROUTE-LEAK",
     lambda r: edit_each(r / GW / "frr.conf", "  network 10.20.0.92/32\n",
                         "  network 10.20.0.92/32\n  import vrf plane-a\n  import vrf route-map ONLY-A\n",
                         "\nend", "\nroute-map ONLY-A permit 10\n match ip address prefix-list PLANE-A\nexit\n!\nend")),
    ("a VRF import's route-map named but never defined (bgpd imports nothing)", "ROUTE-UNDEFINED-REF",
     lambda r: edit(r / GW / "frr.conf", "  network 10.20.0.92/32\n",
                    "  network 10.20.0.92/32\n  import vrf plane-a\n  route-map vpn import NOSUCH\n")),
    ("a plane prefix-list entry whose ge is below its length (FRR refuses it: the servers' subnets are denied)",
     "ROUTE-MISSING",
     lambda r: edit(r / LEAF_A / "frr.conf", "ip prefix-list PLANE-A seq 20 permit 10.12.0.0/20 le 32",
                    "ip prefix-list PLANE-A seq 20 permit 10.12.0.0/20 ge 16 le 32")),
    ("a prefix-list entry with `le 33` (FRR's grammar takes 0-32: no command, the load fails)", "BGP-CONFIG-REFUSED",
     lambda r: edit(r / LEAF_A / "frr.conf", "ip prefix-list PLANE-A seq 20 permit 10.12.0.0/20 le 32",
                    "ip prefix-list PLANE-A seq 20 permit 10.12.0.0/20 le 33")),
    ("an inbound route-map entry numbered 0 (FRR refuses it: the map stays undefined)", "BGP-CONFIG-REFUSED",
     lambda r: edit(r / LEAF_A / "frr.conf", "route-map PLANE-A-IN permit 10", "route-map PLANE-A-IN permit 0")),
    ("static route into the other plane", "ISO-ROUTE-LEAK",
     lambda r: edit(r / LEAF_A / "frr.conf", "ip route 10.12.0.0/26 blackhole\n",
                    "ip route 10.12.0.0/26 blackhole\nip route 10.22.0.0/20 10.11.0.0\n")),
    ("server routes a plane-B prefix via its plane-A NIC", "ISO-SERVER-PLANE",
     lambda r: edit(r / "servers/gpu001/interfaces", "post-up ip route replace 10.10.0.0/24 via 10.12.0.0",
                    "post-up ip route replace 10.20.0.0/24 via 10.12.0.0")),
    ("a server's main-table route to plane B's storage prefix deleted (unbound traffic leaves the fabric)",
     "HOST-FORWARDING",
     lambda r: edit(r / "servers/gpu001/interfaces", "    post-up ip route replace 172.17.0.0/16 via 10.22.0.0 dev "
                    "ens1f1np1\n", "")),
    ("a server's main-table route to plane B's loopbacks run at `down` instead of `post-up`", "HOST-FORWARDING",
     lambda r: edit(r / "servers/gpu001/interfaces", "post-up ip route replace 10.20.0.0/24 via 10.22.0.0",
                    "down ip route replace 10.20.0.0/24 via 10.22.0.0")),
    ("a server's main-table route to plane A's servers written with bits beyond its length (the kernel refuses it)",
     "HOST-FORWARDING",
     lambda r: edit(r / "servers/gpu001/interfaces", "post-up ip route replace 10.12.0.0/20 via 10.12.0.0 dev ens1f0np0",
                    "post-up ip route replace 10.12.0.2/20 via 10.12.0.0 dev ens1f0np0")),
    ("a server's main-table route to plane A's servers through a port that does not exist", "HOST-FORWARDING",
     lambda r: edit(r / "servers/gpu001/interfaces", "post-up ip route replace 10.12.0.0/20 via 10.12.0.0 dev ens1f0np0",
                    "post-up ip route replace 10.12.0.0/20 via 10.12.0.0 dev enable")),
    ("a server's `auto` line names another interface than its NIC port (the stanza is never applied)",
     "ADDR-P2P-MISMATCH",
     lambda r: edit(r / "servers/gpu001/interfaces", "auto ens1f0np0\n", "auto true\n")),
    ("a leaf's management VRF stanza left out of the auto class (`ifup -a`: \"vrf master not found\")", "MGMT-ADDRESS",
     lambda r: edit(r / LEAF_A / "interfaces", "auto mgmt\n", "auto yes\n")),
    ("a leaf's `auto` line names another interface than its server port (the stanza is never applied)",
     "LINK-PORT-DOWN",
     lambda r: edit(r / LEAF_A / "interfaces", "auto swp1\n", "auto swp1x\n")),
    ("a server rule for every source sends all traffic to plane A's table", "HOST-FORWARDING",
     lambda r: edit(r / "servers/gpu001/interfaces", "ip rule add from 10.12.0.1 lookup 101 priority 101",
                    "ip rule add from all lookup 101 priority 101")),
    ("a blackhole in a port's table over another leaf's servers", "HOST-FORWARDING",
     after_first_rule("ip route add blackhole 10.12.0.64/26 table 101")),
    ("a server spreads plane A's prefix over both NICs (multipath: half the flows cross planes)", "ISO-SERVER-PLANE",
     lambda r: edit(r / "servers/gpu001/interfaces", "post-up ip route replace 10.12.0.0/20 via 10.12.0.0 dev ens1f0np0",
                    "post-up ip route replace 10.12.0.0/20 nexthop via 10.12.0.0 dev ens1f0np0 "
                    "nexthop via 10.22.0.0 dev ens1f1np1")),
    ("a port's table made multipath over both NICs (its source's flows cross planes)", "HOST-FORWARDING",
     lambda r: edit(r / "servers/gpu001/interfaces", "post-up ip route replace default via 10.12.0.0 dev ens1f0np0 "
                    "table 101", "post-up ip route replace default table 101 nexthop via 10.12.0.0 dev ens1f0np0 "
                    "weight 3 nexthop via 10.22.0.0 dev ens1f1np1")),
    ("a server rule sends every source's traffic to plane B's loopbacks into plane A's table", "HOST-FORWARDING",
     after_first_rule("ip rule add to 10.20.0.0/24 lookup 101 priority 50")),
    ("a server rule of type unreachable for a port's own source", "HOST-FORWARDING",
     after_first_rule("ip rule add from 10.12.0.1 unreachable priority 100")),
    ("a prohibit rule for a plane-B gateway above its stanza (the routes through it fail to go in)", "HOST-FORWARDING",
     after_first_rule("ip rule add to 10.22.0.0/32 prohibit priority 90")),
    ("a server rule for everything but plane A's source into plane A's table", "HOST-FORWARDING",
     after_first_rule("ip rule add not from 10.12.0.1 lookup 101 priority 50")),
    ("server port policy-routed out of another NIC", "ISO-SERVER-PLANE",
     lambda r: edit(r / "servers/gpu001/interfaces", "ip rule add from 10.12.0.1 lookup 101",
                    "ip rule add from 10.12.0.1 lookup 102")),
    ("a leaf blackholes another leaf's server subnet (BGP still shows its paths)", "ROUTE-FIB-OVERRIDE",
     lambda r: edit(r / LEAF_A / "frr.conf", "ip route 10.12.0.0/26 blackhole\n",
                    "ip route 10.12.0.0/26 blackhole\nip route 10.12.0.64/26 blackhole\n")),
    ("a leaf blackholes half of another leaf's server subnet", "ROUTE-FIB-OVERRIDE",
     lambda r: edit(r / LEAF_A / "frr.conf", "ip route 10.12.0.0/26 blackhole\n",
                    "ip route 10.12.0.0/26 blackhole\nip route 10.12.0.96/27 blackhole\n")),
    ("an EOS spine pins a leaf's subnet to one next hop", "ROUTE-FIB-OVERRIDE",
     lambda r: edit(r / SPINE_A / "running-config", "ip routing\n", "ip routing\nip route 10.12.0.64/26 10.11.0.65\n")),
    ("zebra keeps the BGP routes out of the kernel (ip protocol bgp route-map that denies)", "ROUTE-FIB-OVERRIDE",
     lambda r: edit(r / LEAF_A / "frr.conf", "ip route 10.12.0.0/26 blackhole\n",
                    "ip route 10.12.0.0/26 blackhole\nroute-map NOFIB deny 10\nexit\nip protocol bgp route-map NOFIB\n")),
    ("distance bgp 255 on a leaf: BGP's routes are never installed", "ROUTE-FIB-OVERRIDE",
     lambda r: edit(r / LEAF_A / "frr.conf", "  maximum-paths 64\n", "  maximum-paths 64\n  distance bgp 255 255 255\n")),
    ("distance bgp 255 on an EOS spine", "ROUTE-FIB-OVERRIDE",
     lambda r: edit(r / SPINE_A / "running-config", "   router-id 10.10.0.0\n", "   router-id 10.10.0.0\n   distance bgp 255\n")),
    ("a static under another leaf's subnet at distance 100 wins over distance bgp 150", "ROUTE-FIB-OVERRIDE",
     lambda r: (edit(r / LEAF_A / "frr.conf", "ip route 10.12.0.0/26 blackhole\n",
                     "ip route 10.12.0.0/26 blackhole\nip route 10.12.0.64/26 blackhole 100\n"),
                edit(r / LEAF_A / "frr.conf", "  maximum-paths 64\n", "  maximum-paths 64\n  distance bgp 150 200 200\n"))),
    ("a table-map that denies every route: bgpd hands zebra nothing", "ROUTE-FIB-OVERRIDE",
     lambda r: edit(r / LEAF_A / "frr.conf", "  maximum-paths 64\n",
                    "  maximum-paths 64\n  table-map LOCAL-A-OUT\n")),
    ("a table-map naming a route-map nobody defines (nothing is installed)", "ROUTE-UNDEFINED-REF",
     lambda r: edit(r / LEAF_A / "frr.conf", "  maximum-paths 64\n", "  maximum-paths 64\n  table-map NOINSTALL\n")),
    ("ip protocol names a route-map nobody defines (zebra installs nothing from BGP)", "ROUTE-UNDEFINED-REF",
     lambda r: edit(r / LEAF_A / "frr.conf", "ip route 10.12.0.0/26 blackhole\n",
                    "ip route 10.12.0.0/26 blackhole\nip protocol bgp route-map NOFIB\n")),
    ("an access list on a spine port drops BGP both ways", "BGP-SESSION-DOWN",
     lambda r: (edit(r / SPINE_A / "running-config", "interface Ethernet1\n   description a-leaf-su1-r0:swp33\n",
                     "interface Ethernet1\n   description a-leaf-su1-r0:swp33\n   ip access-group BLOCK in\n"),
                edit(r / SPINE_A / "running-config", "ip routing\n", "ip routing\n!\nip access-list BLOCK\n"
                     "   10 deny tcp any any eq bgp\n   20 deny tcp any eq bgp any\n   30 permit ip any any\n"))),
    ("a control-plane access list without BGP (every session of the spine)", "BGP-SESSION-DOWN",
     lambda r: edit(r / SPINE_A / "running-config", "ip routing\n", "ip routing\n!\nip access-list CP\n"
                    "   10 permit icmp any any\n   20 permit tcp any any eq ssh\n!\nsystem control-plane\n"
                    "   ip access-group CP in\n")),
    ("an access list on a spine port that lets BGP through and drops the rest (RoCE lost)", "ROUTE-ACL-DROP",
     lambda r: (edit(r / SPINE_A / "running-config", "interface Ethernet1\n   description a-leaf-su1-r0:swp33\n",
                     "interface Ethernet1\n   description a-leaf-su1-r0:swp33\n   ip access-group BGP-ONLY in\n"),
                edit(r / SPINE_A / "running-config", "ip routing\n", "ip routing\n!\nip access-list BGP-ONLY\n"
                     "   10 permit tcp any any eq bgp\n   20 permit tcp any eq bgp any\n   30 permit icmp any any\n"))),
    ("an access list out on a spine port that drops RoCE toward the leaf (BGP stays up)", "ROUTE-ACL-DROP",
     lambda r: (edit(r / SPINE_A / "running-config", "interface Ethernet1\n   description a-leaf-su1-r0:swp33\n",
                     "interface Ethernet1\n   description a-leaf-su1-r0:swp33\n   ip access-group NO-ROCE out\n"),
                edit(r / SPINE_A / "running-config", "ip routing\n", "ip routing\n!\nip access-list NO-ROCE\n"
                     "   10 deny udp any any eq 4791\n   20 permit ip any any\n"))),
    ("an access-list entry the model does not read", "CONFIG-UNMODELLED",
     lambda r: edit(r / SPINE_A / "running-config", "ip routing\n", "ip routing\n!\nip access-list X\n"
                    "   10 permit tcp any any established\n")),
    ("duplicate IP", "ADDR-DUPLICATE-IP",
     lambda r: edit(r / "plane-A/a-leaf-su1-r1/interfaces", "address 10.10.0.33/32", "address 10.10.0.32/32")),
    ("overlapping subnets", "ADDR-OVERLAP",
     lambda r: edit(r / LEAF_A / "interfaces", "address 10.11.0.1/31", "address 10.11.0.1/30")),
    ("/31 ends that do not pair", "ADDR-P2P-MISMATCH",
     lambda r: edit(r / LEAF_A / "interfaces", "address 10.11.0.3/31", "address 10.11.0.5/31")),
    ("a leaf's server port kept down (no session to notice it)", "LINK-PORT-DOWN",
     lambda r: edit(r / LEAF_A / "interfaces", "    alias gpu001:ens1f0np0\n", "    alias gpu001:ens1f0np0\n    link-down yes\n")),
    ("a leaf's server port without its auto line (ifupdown2 never brings it up)", "LINK-PORT-DOWN",
     lambda r: edit(r / LEAF_A / "interfaces", "auto swp1\n", "")),
    ("a gateway's last stanza moves a plane-A port into plane B's VRF (`ip link set swp1 master plane-b`)",
     "ISO-FOREIGN-SUBNET",
     lambda r: (r / GW / "interfaces").write_text((r / GW / "interfaces").read_text().rstrip("\n")
                                                  + "\n    post-up ip link set swp1 master plane-b\n")),
    ("a gateway's last stanza takes a plane-A port out of its VRF (`ip link set dev swp1 nomaster`)",
     "ADDR-PORT-VRF",
     lambda r: (r / GW / "interfaces").write_text((r / GW / "interfaces").read_text().rstrip("\n")
                                                  + "\n    post-up ip link set dev swp1 nomaster\n")),
    ("a gateway's post-up route in plane B's kernel table out of a plane-A port", "ISO-VRF-LEAK",
     lambda r: edit(r / GW / "interfaces", "    vrf-table 1002\n",
                    "    vrf-table 1002\n    post-up ip route add 10.12.0.0/20 dev swp1 table 1002\n")),
    ("a gateway's policy rule resolving plane A's servers in plane B's table", "ISO-VRF-LEAK",
     lambda r: edit(r / GW / "interfaces", "    vrf-table 1001\n",
                    "    vrf-table 1001\n    up ip rule add from 10.12.0.0/20 lookup 1002 pref 500\n")),
    ("a gateway's policy rule for what arrives on a plane-A port, into plane B's table", "ISO-VRF-LEAK",
     lambda r: edit(r / GW / "interfaces", "    vrf-table 1001\n",
                    "    vrf-table 1001\n    up ip rule add iif swp1 table 1002\n")),
    ("a gateway's policy rule for every source but plane B's, into plane B's table", "ISO-VRF-LEAK",
     lambda r: edit(r / GW / "interfaces", "    vrf-table 1001\n",
                    "    vrf-table 1001\n    up ip rule add not from 10.22.0.0/20 lookup 1002\n")),
    ("a leaf's post-up route for plane B's servers via a spine (switchd programs kernel routes)", "ISO-ROUTE-LEAK",
     lambda r: edit(r / LEAF_A / "interfaces", "    alias a-spine-1:Ethernet1\n",
                    "    alias a-spine-1:Ethernet1\n    post-up ip route add 10.22.0.0/20 via 10.11.0.0\n")),
    ("a leaf's post-up multipath route for plane B's servers via two spines", "ISO-ROUTE-LEAK",
     lambda r: edit(r / LEAF_A / "interfaces", "    alias a-spine-2:Ethernet1\n",
                    "    alias a-spine-2:Ethernet1\n    post-up ip route add 10.22.0.0/20 nexthop via 10.11.0.0 dev swp33 "
                    "nexthop via 10.11.0.2 dev swp34\n")),
    ("a leaf's post-up onlink route for plane B's servers through a gateway on no subnet of the port",
     "ISO-ROUTE-LEAK", lambda r: edit(r / LEAF_A / "interfaces", "    alias a-spine-1:Ethernet1\n",
                                      "    alias a-spine-1:Ethernet1\n    post-up ip route add 10.22.0.0/20 via "
                                      "192.0.2.1 dev swp33 onlink\n")),
    ("a leaf's post-up deletes its uplink's connected route (ip route del of the link's /31)", "BGP-SESSION-DOWN",
     lambda r: _uplink_post_up(r, "ip route del 10.11.0.0/31 dev swp33")),
    ("a leaf's post-up deletes a server port's connected route (no dev named)", "LINK-PORT-DOWN",
     lambda r: _uplink_post_up(r, "ip route del 10.12.0.0/31")),
    ("a leaf's post-up deletes an uplink's subnet out of another port (no such route there: it fails)",
     "PORTS-UNMODELLED", lambda r: _uplink_post_up(r, "ip route del 10.11.0.0/31 dev swp34")),
    ("a leaf's post-up route for another leaf's servers over the other spine's port (the kernel refuses it)",
     "PORTS-UNMODELLED", lambda r: edit(r / LEAF_A / "interfaces", "    alias a-spine-1:Ethernet1\n",
                                        "    alias a-spine-1:Ethernet1\n    post-up ip route add 10.12.0.64/26 via "
                                        "10.11.0.2 dev swp33\n")),
    ("a leaf's post-up route for plane B's servers written with bits beyond its length (the kernel refuses it)",
     "PORTS-UNMODELLED", lambda r: edit(r / LEAF_A / "interfaces", "    alias a-spine-1:Ethernet1\n",
                                        "    alias a-spine-1:Ethernet1\n    post-up ip route add 10.22.0.2/20 via "
                                        "10.11.0.0\n")),
    ("a leaf's post-up deletes its uplink's /31 written with the host bit (the kernel refuses it: the link stays)",
     "PORTS-UNMODELLED", lambda r: _uplink_post_up(r, "ip route del 10.11.0.1/31 dev swp33")),
    ("a leaf's post-up policy rule that ends its own packets' lookup (`ip rule add iif lo prohibit`)",
     "BGP-SESSION-DOWN", lambda r: edit(r / LEAF_A / "interfaces", "    alias a-spine-1:Ethernet1\n",
                                        "    alias a-spine-1:Ethernet1\n    post-up ip rule add iif lo prohibit\n")),
    ("a leaf's post-up route for another leaf's servers over one spine", "ROUTE-FIB-OVERRIDE",
     lambda r: edit(r / LEAF_A / "interfaces", "    alias a-spine-1:Ethernet1\n",
                    "    alias a-spine-1:Ethernet1\n    up ip route replace 10.12.0.64/26 via 10.11.0.0\n")),
    ("a leaf's interfaces file sources files of its own (not in the rendered folder)", "PORTS-UNMODELLED",
     lambda r: edit(r / LEAF_A / "interfaces", "source /etc/network/interfaces.d/*.intf\n",
                    "source /etc/network/interfaces.d/*.intf\nsource-directory /etc/network/local.d\n")),
    ("a VLAN sub-interface's MTU below the plane's (its own line beats its parent's)", "QOS-MTU",
     lambda r: edit(r / LEAF_A / "interfaces", "auto swp33\n",
                    "auto swp33.100\niface swp33.100\n    address 10.99.0.1/31\n    mtu 1500\n\nauto swp33\n")),
    ("a server port without its auto line (never configured: no address, no routes)", "ADDR-P2P-MISMATCH",
     lambda r: edit(r / "servers/gpu001/interfaces", "auto ens1f0np0\n", "")),
    ("a server port moved into a VRF no plane runs in", "ADDR-PORT-VRF",
     lambda r: edit(r / LEAF_A / "interfaces", "    alias gpu001:ens1f0np0\n", "    alias gpu001:ens1f0np0\n    vrf blue\n")),
    ("a leaf's session to a spine without keepalives (`timers 0 0` on one end)", "BGP-HOLD-TIME",
     lambda r: _leaf_neighbor(r, "timers 0 0")),
    ("both ends of a session at 180 s (EOS's default, FRR's traditional profile)", "BGP-HOLD-TIME", _slow_hold),
    ("a leaf that connects to another TCP port, its spine waiting passively (neither end opens)",
     "BGP-SESSION-DOWN", lambda r: (_leaf_neighbor(r, "port 1790"), _spine_neighbor(r, "passive"))),
    ("a leaf sends its prefixes with NO_EXPORT (the spines pass them to no other leaf)", "BGP-COMMUNITY-STOP",
     lambda r: edit(r / LEAF_A / "frr.conf", "route-map LOCAL-A-OUT permit 10\n match ip address prefix-list LOCAL-A\n",
                    "route-map LOCAL-A-OUT permit 10\n match ip address prefix-list LOCAL-A\n"
                    " set community 65535:65282 additive\n")),
    ("an EOS spine tags what it takes from the leaves no-advertise", "BGP-COMMUNITY-STOP",
     lambda r: edit(r / SPINE_A / "running-config", "route-map PLANE-A-IN permit 10\n",
                    "route-map PLANE-A-IN permit 10\n   set community no-advertise\n")),
    ("an EOS spine keeps at most one route from a leaf (maximum-accepted-routes: the rest dropped)",
     "BGP-PREFIX-LIMIT", lambda r: _spine_neighbor(r, "maximum-accepted-routes 1")),
    ("loopback not advertised", "ADDR-LOOPBACK-NOT-ADVERTISED",
     lambda r: edit(r / LEAF_A / "frr.conf", "  network 10.10.0.32/32\n", "")),
    ("ASN typo on one end", "BGP-PEER-MISMATCH",
     lambda r: edit(r / LEAF_A / "frr.conf", "neighbor 10.11.0.0 remote-as 4200001000",
                    "neighbor 10.11.0.0 remote-as 4200001001")),
    ("a leaf's AS changed by hand on the leaf and on every spine alike (sessions up, routes flow)", "BGP-ASN-PLAN",
     lambda r: (edit(r / LEAF_A / "frr.conf", "router bgp 4200001100", "router bgp 4200001199"),
                edit_all(r, "plane-A/a-spine-*/running-config", "remote-as 4200001100\n", "remote-as 4200001199\n"))),
    ("session configured on one end only", "BGP-ONE-SIDED", _remove_spine_side_of_session),
    ("cabled uplink without a session", "BGP-SESSION-MISSING", _remove_spine_side_of_session),
    ("an EOS daemon block that runs a program of its own (not Arista's TerminAttr)", "CONFIG-UNMODELLED",
     lambda r: edit(r / SPINE_A / "running-config", "lldp run\n",
                    "lldp run\ndaemon TerminAttr\n   exec /mnt/flash/agent\n   no shutdown\n")),
    ("duplicate router-id", "BGP-ROUTER-ID-DUP",
     lambda r: edit(r / "plane-A/a-leaf-su1-r1/frr.conf", "bgp router-id 10.10.0.33", "bgp router-id 10.10.0.32")),
    ("maximum-paths 1 with 4 spines", "ECMP-MAX-PATHS",
     lambda r: edit(r / LEAF_A / "frr.conf", "maximum-paths 64", "maximum-paths 1")),
    ("DSCP map differs on one switch", "QOS-DSCP-MAP",
     lambda r: edit(r / SPINE_A / "running-config", "qos map dscp 26 to traffic-class 3",
                    "qos map dscp 26 to traffic-class 4")),
    ("CNPs on another priority of the same queue on one switch (its priority map differs)", "QOS-DSCP-MAP",
     lambda r: edit(r / LEAF_A / "qos_features.conf",
                    "traffic.cos_6.priority_source.dscp = [48]", "traffic.cos_5.priority_source.dscp = [48]\n"
                    "traffic.cos_5.egress_queue = 6")),
    ("PFC on priority 4 on one port", "QOS-PFC",
     lambda r: edit(r / SPINE_A / "running-config", "priority-flow-control priority 3 no-drop",
                    "priority-flow-control priority 4 no-drop")),
    ("ECN min > max", "QOS-ECN",
     lambda r: edit(r / LEAF_A / "qos_features.conf", "min_threshold_bytes = 150000", "min_threshold_bytes = 2000000")),
    ("RED drops on the RoCE class beside ECN (red_enable)", "QOS-ECN",
     lambda r: edit(r / LEAF_A / "qos_features.conf", "red_enable = false", "red_enable = true")),
    ("a PFC group listed that has no port_set", "PORTS-UNMODELLED",
     lambda r: edit(r / LEAF_A / "qos_features.conf", "pfc.port_group_list = [roce_pfc]",
                    "pfc.port_group_list = [roce_pfc, spare]")),
    ("a second ECN group with ECN off naming a port the first names", "PORTS-UNMODELLED",
     lambda r: edit(r / LEAF_A / "qos_features.conf", "ecn_red.port_group_list = [roce_ecn]",
                    "ecn_red.port_group_list = [roce_ecn,off]\necn_red.off.egress_queue_list = [3]\n"
                    "ecn_red.off.port_set = swp1\necn_red.off.ecn_enable = false")),
    ("a traffic class switchd does not have in traffic_class_list", "PORTS-UNMODELLED",
     lambda r: edit(r / LEAF_A / "qos_features.conf", "[0,1,2,3,4,5,6,7]", "[0,1,2,3,4,5,9000,7]")),
    ("the RoCE queue left out of traffic_class_list", "PORTS-UNMODELLED",
     lambda r: edit(r / LEAF_A / "qos_features.conf", "[0,1,2,3,4,5,6,7]", "[0,1,2,4,5,6,7]")),
    ("MTU differs on one port", "QOS-MTU",
     lambda r: edit(r / LEAF_A / "interfaces", "    mtu 9214\n", "    mtu 9000\n")),
    ("CNP on the lossless class", "QOS-CNP",
     lambda r: edit(r / SPINE_A / "running-config", "qos map dscp 48 to traffic-class 6",
                    "qos map dscp 48 to traffic-class 3")),
    ("CNPs scheduled by weight on a Cumulus leaf", "QOS-CNP",
     lambda r: edit(r / LEAF_A / "qos_features.conf", "egress_queue_6.mode = strict", "egress_queue_6.mode = dwrr")),
    ("CNPs scheduled by weight on one EOS port", "QOS-CNP",
     lambda r: edit(r / SPINE_A / "running-config", "      priority strict\n", "")),
    ("planes with different ECN", "QOS-PLANE-SYMMETRY", _ecn_plane_b),
    ("a plane with one spine fewer", "SYM-COUNTS", _remove_plane_b_spine),
    ("a plane-B link at another speed", "SYM-SPEED",
     lambda r: edit_cabling(r, lambda row: row["plane"] == "B" and row["kind"] == "leaf-spine", speed="400G")),
    ("planes on different firmware", "SYM-FIRMWARE", _firmware_b),
    ("NCCL uses plane A's HCAs only", "HOST-NCCL-HCA",
     lambda r: edit(r / "servers/gpu001/nccl.env", "NCCL_IB_HCA==mlx5_0:1,mlx5_1:1,mlx5_2:1,mlx5_3:1,mlx5_4:1,"
                    "mlx5_5:1,mlx5_6:1,mlx5_7:1", "NCCL_IB_HCA==mlx5_0:1,mlx5_2:1,mlx5_4:1,mlx5_6:1")),
    ("NCCL lists a device the server lacks", "HOST-NCCL-HCA",
     lambda r: edit(r / "servers/gpu001/nccl.env", "mlx5_7:1\n", "mlx5_7:1,mlx5_9:1\n")),
    ("NCCL's prefix match on 'mlx5' also takes the InfiniBand HCAs", "HOST-NCCL-HCA",
     lambda r: edit(r / "servers/gpu001/nccl.env", "NCCL_IB_HCA==mlx5_0:1,mlx5_1:1,mlx5_2:1,mlx5_3:1,mlx5_4:1,"
                    "mlx5_5:1,mlx5_6:1,mlx5_7:1", "NCCL_IB_HCA=mlx5")),
    ("NCCL told to leave out plane B's devices (an exclusion list)", "HOST-NCCL-HCA",
     lambda r: edit(r / "servers/gpu001/nccl.env", "NCCL_IB_HCA==mlx5_0:1,mlx5_1:1,mlx5_2:1,mlx5_3:1,mlx5_4:1,"
                    "mlx5_5:1,mlx5_6:1,mlx5_7:1", "NCCL_IB_HCA=^mlx5_1,mlx5_3,mlx5_5,mlx5_7,mlx5_8,mlx5_9")),
    ("NCCL's traffic class with the ECN bits set to Congestion Experienced", "HOST-NCCL-TC",
     lambda r: edit(r / "servers/gpu001/nccl.env", "NCCL_IB_TC=104", "NCCL_IB_TC=107")),
    ("an EOS spine's routed port made a port-channel member (its own address is not used)", "LINK-PORT-DOWN",
     lambda r: edit(r / SPINE_A / "running-config", "   ip address 10.11.0.0/31\n",
                    "   ip address 10.11.0.0/31\n   channel-group 1 mode active\n")),
    ("a leaf's uplink enslaved to a bond without an address", "LINK-PORT-DOWN",
     lambda r: edit(r / LEAF_A / "interfaces", "auto swp1\n", "auto bond0\niface bond0\n    bond-slaves swp33\n\nauto swp1\n")),
    ("a leaf's uplink enslaved to a bridge (the ASIC routes nothing on a bridge's member)", "LINK-PORT-DOWN",
     lambda r: edit(r / LEAF_A / "interfaces", "auto swp1\n", "auto br0\niface br0\n    bridge-ports swp1 swp2\n\nauto swp1\n")),
    ("a leaf's uplink made a DHCP client (ifupdown2 applies none of the stanza's addresses)", "ROUTE-MISSING",
     lambda r: edit(r / LEAF_A / "interfaces", "iface swp33\n", "iface swp33 inet dhcp\n")),
    ("two of a server's fabric ports enslaved to a bond without an address", "HOST-FORWARDING",
     lambda r: edit(r / "servers/gpu001/interfaces", "# nic0 port 1:",
                    "auto bond0\niface bond0\n    bond-slaves ens1f0np0 ens2f0np0\n\n# nic0 port 1:")),
    ("a leaf's server port taken down by a post-up command", "LINK-PORT-DOWN",
     lambda r: edit(r / LEAF_A / "interfaces", "    address 10.12.0.0/31\n",
                    "    address 10.12.0.0/31\n    post-up ip link set swp1 down\n")),
    ("a leaf's uplink taken down by an abbreviated post-up command in a later stanza", "BGP-SESSION-DOWN",
     lambda r: edit(r / LEAF_A / "interfaces", "    address 10.11.0.7/31\n",
                    "    address 10.11.0.7/31\n    post-up ip l s dev swp33 down\n")),
    ("the cabling plan deleted (every check comparing with it would find nothing)", "LINK-PLAN",
     lambda r: (r / "resolved/cabling.csv").unlink()),
    ("the cabling plan emptied to its header", "LINK-PLAN",
     lambda r: (r / "resolved/cabling.csv").write_text(
         (r / "resolved/cabling.csv").read_text().splitlines()[0] + "\n")),
    ("an IB plane's cabling plan deleted", "LINK-PLAN", lambda r: (r / "ib-plane-IBA/cabling.csv").unlink()),
    ("a leaf's server port's address deleted by a post-up command", "ADDR-P2P-MISMATCH",
     lambda r: edit(r / LEAF_A / "interfaces", "    address 10.12.0.0/31\n",
                    "    address 10.12.0.0/31\n    post-up ip addr del 10.12.0.0/31 dev swp1\n")),
    ("a leaf holds its spine's address on a second port: its connection to it stays on the leaf (the twin)",
     "BGP-SESSION-DOWN",
     lambda r: edit(r / LEAF_A / "interfaces", "    address 10.11.0.3/31\n",
                    "    address 10.11.0.3/31\n    post-up ip a a 10.11.0.0/31 dev swp34\n")),
    ("a leaf's loopback given a second switch's address by a post-up command", "ADDR-DUPLICATE-IP",
     lambda r: edit(r / LEAF_A / "interfaces", "    address 10.10.0.32/32\n",
                    "    address 10.10.0.32/32\n    post-up ip a a 10.10.0.33/32 dev lo\n")),
    ("a leaf's server port given MTU 1500 by a post-up command", "QOS-MTU",
     lambda r: edit(r / LEAF_A / "interfaces", "    address 10.12.0.0/31\n",
                    "    address 10.12.0.0/31\n    post-up ip link set dev swp1 mtu 1500\n")),
    ("a server's fabric port taken down by a post-up command", "HOST-FORWARDING",
     lambda r: edit(r / "servers/gpu001/interfaces", "    address 10.12.0.65/31\n",
                    "    address 10.12.0.65/31\n    post-up ip link set ens2f0np0 down\n")),
    ("NCCL on a RoCEv1 GID", "HOST-NCCL-GID",
     lambda r: edit(r / "servers/gpu001/nccl.env", "NCCL_IB_GID_INDEX=3", "NCCL_IB_GID_INDEX=1")),
    ("NCCL marks another traffic class", "HOST-NCCL-TC",
     lambda r: edit(r / "servers/gpu001/nccl.env", "NCCL_IB_TC=104", "NCCL_IB_TC=96")),
    ("strict rp_filter on one port (and conf.all off)", "HOST-SYSCTL",
     lambda r: (edit(r / "servers/gpu001/sysctl.conf", "net.ipv4.conf.ens1f0np0.rp_filter = 2",
                     "net.ipv4.conf.ens1f0np0.rp_filter = 1"),
                edit(r / "servers/gpu001/sysctl.conf", "net.ipv4.conf.all.rp_filter = 2", "net.ipv4.conf.all.rp_filter = 0"))),
    ("strict rp_filter on every port through conf.all", "HOST-SYSCTL",
     lambda r: (edit(r / "servers/gpu001/sysctl.conf", "net.ipv4.conf.all.rp_filter = 2",
                     "net.ipv4.conf.all.rp_filter = 1"),
                _drop_port_rp_filter(r / "servers/gpu001/sysctl.conf"))),
    ("a server that forwards IPv4 between its ports (planes)", "HOST-SYSCTL",
     lambda r: edit(r / "servers/gpu001/sysctl.conf", "net.ipv4.conf.all.arp_ignore = 1",
                    "net.ipv4.conf.all.arp_ignore = 1\nnet.ipv4.ip_forward = 1")),
    ("one fabric port forwards", "HOST-SYSCTL",
     lambda r: edit(r / "servers/gpu001/sysctl.conf", "net.ipv4.conf.all.arp_ignore = 1",
                    "net.ipv4.conf.all.arp_ignore = 1\nnet.ipv4.conf.ens1f0np0.forwarding = 1")),
    ("a leaf uplink that does not forward what it receives (ifupdown2 ip-forward off)", "LINK-NO-FORWARDING",
     lambda r: edit(r / LEAF_A / "interfaces", "    address 10.11.0.1/31\n", "    address 10.11.0.1/31\n    ip-forward off\n")),
    ("a leaf server port whose forwarding a post-up sysctl turns off", "LINK-NO-FORWARDING",
     lambda r: edit(r / LEAF_A / "interfaces", "    address 10.12.0.0/31\n",
                    "    address 10.12.0.0/31\n    post-up sysctl -w net.ipv4.conf.swp1.forwarding=0\n")),
    ("a leaf whose post-up turns every port's forwarding off (net.ipv4.ip_forward)", "LINK-NO-FORWARDING",
     lambda r: edit(r / LEAF_A / "interfaces", "    address 10.12.0.0/31\n",
                    "    address 10.12.0.0/31\n    post-up sysctl -w net.ipv4.ip_forward=0\n")),
    ("a server NIC's own forwarding switch turned on in its interfaces file (ifupdown2's `ip-forward`)", "HOST-SYSCTL",
     lambda r: edit(r / "servers/gpu001/interfaces", "    address 10.12.0.1/31\n",
                    "    address 10.12.0.1/31\n    ip-forward on\n")),
    ("a sysctl verify does not judge", "HOST-UNMODELLED",
     lambda r: edit(r / "servers/gpu001/sysctl.conf", "net.ipv4.conf.all.arp_ignore = 1",
                    "net.ipv4.conf.all.arp_ignore = 1\nnet.ipv4.fib_multipath_hash_policy = 1")),
    ("an NCCL variable verify does not judge", "HOST-UNMODELLED",
     lambda r: edit(r / "servers/gpu001/nccl.env", "NCCL_CROSS_NIC=0", "NCCL_CROSS_NIC=0\nNCCL_ALGO=Tree")),
    ("NCCL's RDMA transport switched off", "HOST-NCCL-TRANSPORT",
     lambda r: edit(r / "servers/gpu001/nccl.env", "NCCL_CROSS_NIC=0", "NCCL_CROSS_NIC=0\nNCCL_IB_DISABLE=1")),
    ("NCCL told never to use GPUDirect RDMA", "HOST-NCCL-TRANSPORT",
     lambda r: edit(r / "servers/gpu001/nccl.env", "NCCL_CROSS_NIC=0", "NCCL_CROSS_NIC=0\nNCCL_NET_GDR_LEVEL=LOC")),
    ("NCCL told never to use peer-to-peer between GPUs", "HOST-NCCL-TRANSPORT",
     lambda r: edit(r / "servers/gpu001/nccl.env", "NCCL_CROSS_NIC=0", "NCCL_CROSS_NIC=0\nNCCL_P2P_DISABLE=1")),
    ("NCCL forced onto sockets", "HOST-NCCL-TRANSPORT",
     lambda r: edit(r / "servers/gpu001/nccl.env", "NCCL_CROSS_NIC=0", "NCCL_CROSS_NIC=0\nNCCL_NET=Socket")),
    ("NCCL opens no queue pair per connection", "HOST-NCCL-TRANSPORT",
     lambda r: edit(r / "servers/gpu001/nccl.env", "NCCL_IB_QPS_PER_CONNECTION=2", "NCCL_IB_QPS_PER_CONNECTION=0")),
    ("UCX limited to TCP (MPI never uses the RDMA ports)", "HOST-NCCL-TRANSPORT",
     lambda r: edit(r / "servers/gpu001/nccl.env", "UCX_IB_GID_INDEX=3\n", "UCX_IB_GID_INDEX=3\nUCX_TLS=tcp,sm,self\n")),
    ("a DHCP client on a server's fabric port (what it is answered is not modelled)", "HOST-UNMODELLED",
     lambda r: edit(r / "servers/gpu001/interfaces", "iface ens1f0np0\n", "iface ens1f0np0 inet dhcp\n")),
    ("NCCL rings may cross NICs (and planes)", "HOST-NCCL-TRANSPORT",
     lambda r: edit(r / "servers/gpu001/nccl.env", "NCCL_CROSS_NIC=0", "NCCL_CROSS_NIC=1")),
    ("NCCL_CROSS_NIC left to NCCL's default (2)", "HOST-NCCL-TRANSPORT",
     lambda r: edit(r / "servers/gpu001/nccl.env", "NCCL_CROSS_NIC=0\n", "")),
    ("Open MPI's TCP over a fabric port", "HOST-NCCL-TRANSPORT",
     lambda r: edit(r / "servers/gpu001/nccl.env", "OMPI_MCA_btl_tcp_if_include=eno1",
                    "OMPI_MCA_btl_tcp_if_include=ens1f0np0")),
    ("a leaf gives RoCE 1/51 of each port (DWRR weight 1)", "QOS-SCHEDULER",
     lambda r: edit(r / LEAF_A / "qos_features.conf", "scheduling.roce_sched.egress_queue_3.weight = 50",
                    "scheduling.roce_sched.egress_queue_3.weight = 1")),
    ("RoCE in strict priority on a leaf", "QOS-SCHEDULER",
     lambda r: edit(r / LEAF_A / "qos_features.conf", "scheduling.roce_sched.egress_queue_3.mode = dwrr",
                    "scheduling.roce_sched.egress_queue_3.mode = strict")),
    ("an EOS port's RoCE queue without its bandwidth share", "QOS-SCHEDULER",
     lambda r: edit(r / SPINE_A / "running-config", "   tx-queue 3\n      bandwidth percent 50\n", "   tx-queue 3\n", 1)),
    ("PFC headroom cut to 100 bytes", "QOS-PFC-HEADROOM",
     lambda r: edit(r / LEAF_A / "qos_features.conf", "pfc.roce_pfc.xoff_size = 18000", "pfc.roce_pfc.xoff_size = 100")),
    ("PFC headroom sized for a 3 m cable on a 10 m plan", "QOS-PFC-HEADROOM",
     lambda r: edit(r / LEAF_A / "qos_features.conf", "pfc.roce_pfc.cable_length = 10", "pfc.roce_pfc.cable_length = 3")),
    ("unmarked traffic in the lossless priority (port_default_priority)", "QOS-DEFAULT-CLASS",
     lambda r: edit(r / LEAF_A / "qos_features.conf", "traffic.port_default_priority = 0",
                    "traffic.port_default_priority = 3")),
    ("a spine port forced to 100G on an 800G link", "LINK-CONFIG",
     lambda r: edit(r / SPINE_A / "running-config", "   description a-leaf-su1-r0:swp33\n",
                    "   description a-leaf-su1-r0:swp33\n   speed 100g-4\n")),
    ("a leaf's server port forced to 400G where the NIC port is planned at 200G", "LINK-CONFIG",
     lambda r: edit(r / LEAF_A / "interfaces", "    mtu 9214\n", "    mtu 9214\n    link-speed 400000\n", 1)),
    ("a leaf uplink forced to 100G (link-speed)", "LINK-CONFIG",
     lambda r: edit(r / LEAF_A / "interfaces", "    alias a-spine-1:Ethernet1\n",
                    "    alias a-spine-1:Ethernet1\n    link-speed 100000\n")),
    ("the two ends of a link force different FEC", "LINK-CONFIG",
     lambda r: (edit(r / LEAF_A / "interfaces", "    alias a-spine-1:Ethernet1\n",
                     "    alias a-spine-1:Ethernet1\n    link-fec rs\n"),
                edit(r / SPINE_A / "running-config", "   description a-leaf-su1-r0:swp33\n",
                     "   description a-leaf-su1-r0:swp33\n   error-correction encoding fire-code\n"))),
    ("FEC off on both ends of an 800G uplink (they agree, but PAM4 lanes need RS FEC)", "LINK-CONFIG",
     lambda r: (edit(r / LEAF_A / "interfaces", "    alias a-spine-1:Ethernet1\n",
                     "    alias a-spine-1:Ethernet1\n    link-fec off\n"),
                edit(r / SPINE_A / "running-config", "   description a-leaf-su1-r0:swp33\n",
                     "   description a-leaf-su1-r0:swp33\n   no error-correction encoding\n"))),
    ("a plane-A server port with a second address from plane B", "ISO-SERVER-PLANE",
     lambda r: edit(r / "servers/gpu001/interfaces", "    address 10.12.0.1/31\n",
                    "    address 10.12.0.1/31\n    address 10.22.0.99/31\n")),
    ("a plane-A server port given a plane-B address by a post-up command", "ISO-SERVER-PLANE",
     lambda r: edit(r / "servers/gpu001/interfaces", "    address 10.12.0.1/31\n",
                    "    address 10.12.0.1/31\n    post-up ip addr add 10.22.0.99/31 dev ens1f0np0\n")),
    ("a server port's address flushed by a later stanza's post-up command", "ADDR-P2P-MISMATCH",
     lambda r: edit(r / "servers/gpu001/interfaces", "    address 10.22.0.1/31\n",
                    "    address 10.22.0.1/31\n    post-up ip -4 a flush dev ens1f0np0\n")),
    ("a server port put in a VRF (not judged)", "HOST-UNMODELLED",
     lambda r: edit(r / "servers/gpu001/interfaces", "    address 10.12.0.1/31\n", "    address 10.12.0.1/31\n    vrf blue\n")),
    ("a server bridge over both planes' ports", "ISO-SERVER-PLANE",
     lambda r: edit(r / "servers/gpu001/interfaces", "# nic0 port 1",
                    "auto br0\niface br0\n    bridge-ports ens1f0np0 ens1f1np1\n\n# nic0 port 1")),
    ("a server bridge enslaving one fabric port", "ISO-SERVER-PLANE",
     lambda r: edit(r / "servers/gpu001/interfaces", "# nic0 port 1",
                    "auto br0\niface br0\n    bridge-ports ens1f0np0\n\n# nic0 port 1")),
    ("a server that answers no ARP request (arp_ignore 8)", "HOST-SYSCTL",
     lambda r: edit(r / "servers/gpu001/sysctl.conf", "net.ipv4.conf.all.arp_ignore = 1", "net.ipv4.conf.all.arp_ignore = 8")),
    ("RDMA-CM marks every packet Congestion Experienced (ToS ECN bits 11)", "HOST-NIC-QOS",
     lambda r: edit(r / "servers/gpu001/nic-qos.sh", "port ens1f0np0 mlx5_0 mtu=9214 trust=dscp pfc=3 ecn=3 cnp_dscp=48 cnp_prio=6 roce_tos=104", "port ens1f0np0 mlx5_0 mtu=9214 trust=dscp pfc=3 ecn=3 cnp_dscp=48 cnp_prio=6 roce_tos=107")),
    ("a second plan line for one NIC port (it runs last: PFC on another priority)", "HOST-NIC-QOS",
     lambda r: edit(r / "servers/gpu001/nic-qos.sh", "port ens1f0np0 mlx5_0 mtu=9214 trust=dscp pfc=3 ecn=3 cnp_dscp=48 cnp_prio=6 roce_tos=104\n", "port ens1f0np0 mlx5_0 mtu=9214 trust=dscp pfc=3 ecn=3 cnp_dscp=48 cnp_prio=6 roce_tos=104\nport ens1f0np0 mlx5_0 mtu=9214 trust=dscp pfc=4 ecn=3 cnp_dscp=48 cnp_prio=6 roce_tos=104\n")),
    ("a NIC port's plan line with a setting the program does not take (it exits 1: the unit fails)", "HOST-NIC-QOS",
     lambda r: edit(r / "servers/gpu001/nic-qos.sh", "cnp_prio=6 roce_tos=104\n", "cnp_prio=6 roce_tos=104 pfc_wd=1\n")),
    ("the NIC trusts PCP while the leaf trusts DSCP", "HOST-NIC-QOS",
     lambda r: edit(r / "servers/gpu001/nic-qos.sh", "trust=dscp", "trust=pcp")),
    ("the NIC pauses another priority than the leaf", "HOST-NIC-QOS",
     lambda r: edit(r / "servers/gpu001/nic-qos.sh", "pfc=3 ", "pfc=4 ")),
    ("RDMA-CM marks another DSCP than RoCE's", "HOST-NIC-QOS",
     lambda r: edit(r / "servers/gpu001/nic-qos.sh", "roce_tos=104", "roce_tos=96")),
    ("the NIC ignores ECN on the RoCE priority", "HOST-NIC-QOS",
     lambda r: edit(r / "servers/gpu001/nic-qos.sh", "ecn=3 ", "ecn=0 ")),
    ("CNPs marked with another DSCP", "HOST-NIC-QOS",
     lambda r: edit(r / "servers/gpu001/nic-qos.sh", "cnp_dscp=48", "cnp_dscp=46")),
    ("CNPs in another priority than the leaf gives their DSCP", "HOST-NIC-QOS",
     lambda r: edit(r / "servers/gpu001/nic-qos.sh", "cnp_prio=6", "cnp_prio=5")),
    ("a NIC port left out of the plan", "HOST-NIC-QOS",
     lambda r: edit_lines(r / "servers/gpu001/nic-qos.sh", lambda line: line.startswith("port ens2f1np1 "))),
    ("an `exit 0` among the NIC QoS plan's lines: the ports below it are never set", "HOST-NIC-QOS",
     lambda r: edit(r / "servers/gpu001/nic-qos.sh", "port ens2f1np1 ", "exit 0\nport ens2f1np1 ")),
    ("a `return` pasted near the top of nccl.env: the launcher stops sourcing it there", "HOST-NCCL-HCA",
     lambda r: edit(r / "servers/gpu001/nccl.env", "NCCL_IB_HCA==", "return 0\nNCCL_IB_HCA==")),
    ("no nic-qos.sh at all", "HOST-NIC-QOS", lambda r: (r / "servers/gpu001/nic-qos.sh").unlink()),
    ("the nic-qos program edited", "HOST-NIC-QOS-PROGRAM",
     lambda r: edit(r / "servers/gpu001/nic-qos.sh", 'put "$ROOT/sys/class/net/$ifname/ecn/roce_rp/enable/$prio" 1',
                    'put "$ROOT/sys/class/net/$ifname/ecn/roce_rp/enable/$prio" 0')),
    ("a host MTU above its leaf's", "HOST-MTU",
     lambda r: edit(r / "servers/gpu001/interfaces", "    mtu 9214", "    mtu 9216")),
    ("a nic-qos MTU that fights the interfaces file", "HOST-MTU",
     lambda r: edit(r / "servers/gpu001/nic-qos.sh", "mtu=9214", "mtu=9000")),
    ("a nic-qos line verify cannot read", "HOST-UNMODELLED",
     lambda r: edit(r / "servers/gpu001/nic-qos.sh", "cnp_prio=6 roce_tos=104\n", "cnp_prio=6 roce_tos=104 tos=$X\n")),
    ("ARP answered by any port", "HOST-SYSCTL",
     lambda r: edit(r / "servers/gpu001/sysctl.conf", "net.ipv4.conf.all.arp_ignore = 1", "net.ipv4.conf.all.arp_ignore = 0")),
    ("a BGP neighbor shut down: no session on that uplink", "BGP-SESSION-MISSING",
     lambda r: edit(r / LEAF_A / "frr.conf", " neighbor 10.11.0.0 description", " neighbor 10.11.0.0 shutdown\n"
                    " neighbor 10.11.0.0 description")),
    ("a leaf presents another ASN to one spine (local-as)", "BGP-SESSION-DOWN",
     lambda r: edit(r / LEAF_A / "frr.conf", " neighbor 10.11.0.0 remote-as 4200001000\n",
                    " neighbor 10.11.0.0 remote-as 4200001000\n neighbor 10.11.0.0 local-as 4200009999\n")),
    ("a listen range whose peer-group has no remote-as (bgpd refuses the range)", "BGP-CONFIG-REFUSED",
     lambda r: _dynamic_leaf(r, group_lines="")),
    ("a gateway's listen range that holds not its external peer's address", "BGP-EXTERNAL-DOWN",
     lambda r: (_dynamic_external(r), edit(r / GW / "frr.conf", "listen range 100.64.0.0/31", "listen range 100.64.0.2/31"))),
    ("a listen range that holds none of the spines' addresses", "ROUTE-MISSING",
     lambda r: _dynamic_leaf(r, listen="10.11.8.0/29")),
    ("a listen range given while another, overlapping one is (bgpd refuses the second)", "BGP-CONFIG-REFUSED",
     lambda r: _dynamic_leaf(r, listen="10.11.0.0/30", extra=" bgp listen range 10.11.0.0/29 peer-group SPINES\n")),
    ("remote-as internal toward a spine of another AS", "BGP-PEER-MISMATCH",
     lambda r: edit(r / LEAF_A / "frr.conf", " neighbor 10.11.0.0 remote-as 4200001000", " neighbor 10.11.0.0 remote-as internal")),
    ("a listen range of a group with remote-as internal (the spines are another AS)", "BGP-PEER-MISMATCH",
     lambda r: _dynamic_leaf(r, group_lines=" neighbor SPINES remote-as internal\n")),
    ("a listen limit of 2 for 4 spines (which 2 is left to who connects first)", "CONFIG-UNMODELLED",
     lambda r: _dynamic_leaf(r, extra=" bgp listen limit 2\n")),
    ("a listen limit of 2 for 4 spines: the leaf's ECMP width falls", "ROUTE-ECMP-WIDTH",
     lambda r: _dynamic_leaf(r, extra=" bgp listen limit 2\n")),
    ("a listen range whose members are told to be passive, toward a passive spine", "BGP-SESSION-DOWN",
     lambda r: (_dynamic_leaf(r), edit(r / SPINE_A / "running-config", "   neighbor 10.11.0.1 route-map PLANE-A-IN in\n",
                                       "   neighbor 10.11.0.1 route-map PLANE-A-IN in\n   neighbor 10.11.0.1 passive\n"))),
    ("an EOS spine taking its leaves by a listen range whose remote-as is one leaf's", "BGP-PEER-MISMATCH",
     lambda r: _dynamic_spine(r, "remote-as 4200001100")),
    ("an EOS spine's listen range whose peer-filter leaves one leaf's AS out", "ROUTE-MISSING",
     lambda r: _dynamic_spine(r, "peer-filter LEAF-AS", "   10 match as-range 4200001100-4200001106 result accept\n")),
    ("an EOS spine's listen range whose peer-filter rejects one leaf's AS first", "ROUTE-MISSING",
     lambda r: _dynamic_spine(r, "peer-filter LEAF-AS", "   20 match as-range 4200001100-4200001107 result accept\n"
                                                        "   10 match as-range 4200001103 result reject\n")),
    ("an EOS spine's listen range naming a peer-filter nobody defined", "ROUTE-UNDEFINED-REF",
     lambda r: _dynamic_spine(r, "peer-filter LEAF-AS")),
    ("an EOS spine's in-policy matching an AS-path list one leaf's AS is not in", "ROUTE-MISSING",
     lambda r: _eos_as_path_match(r, ["ip as-path access-list FABRIC permit ^42000011(0[0-6])$ any",
                                      "ip as-path access-list FABRIC permit ^4200000100$"])),
    ("an EOS AS-path list whose origin is not `any` (not judged: said)", "CONFIG-UNMODELLED",
     lambda r: _eos_as_path_match(r, ["ip as-path access-list FABRIC permit .* igp"])),
    ("a /32 blackhole of a spine's address on a leaf (longer than the link's /31)", "BGP-SESSION-DOWN",
     lambda r: edit(r / LEAF_A / "frr.conf", "ip route 10.12.0.0/26 blackhole\n",
                    "ip route 10.12.0.0/26 blackhole\nip route 10.11.0.0/32 blackhole 250\n")),
    ("a static route into another kernel table (zebra keeps it out of the VRF's RIB: said)", "CONFIG-UNMODELLED",
     lambda r: edit(r / LEAF_A / "frr.conf", "ip route 10.12.0.0/26 blackhole\n",
                    "ip route 10.12.0.0/26 blackhole\nip route 10.12.0.1/32 10.11.0.2 table 100\n")),
    ("a /32 of a server's address toward a spine on its leaf", "ROUTE-FIB-OVERRIDE",
     lambda r: edit(r / LEAF_A / "frr.conf", "ip route 10.12.0.0/26 blackhole\n",
                    "ip route 10.12.0.0/26 blackhole\nip route 10.12.0.1/32 10.11.0.2\n")),
    ("a /32 blackhole of a server's address on its leaf, floating", "ROUTE-FIB-OVERRIDE",
     lambda r: edit(r / LEAF_A / "frr.conf", "ip route 10.12.0.0/26 blackhole\n",
                    "ip route 10.12.0.0/26 blackhole\nip route 10.12.0.1/32 blackhole 250\n")),
    ("a /32 Null0 of the management gateway in an EOS spine's management VRF", "MGMT-ROUTE",
     lambda r: edit(r / SPINE_A / "running-config", "ip route vrf mgmt 0.0.0.0/0 198.51.100.254\n",
                    "ip route vrf mgmt 0.0.0.0/0 198.51.100.254\nip route vrf mgmt 198.51.100.254/32 Null0\n")),
    ("a /32 blackhole of the gateway's planned storage peer in its VRF", "BGP-EXTERNAL-DOWN",
     lambda r: edit(r / GW / "frr.conf", "vrf plane-a\nexit-vrf\n",
                    "vrf plane-a\n ip route 100.64.0.1/32 blackhole\nexit-vrf\n")),
    ("zebra gives a leaf's BGP routes a source address it does not have (set src in ip protocol bgp route-map)",
     "ROUTE-FIB-OVERRIDE",
     lambda r: edit(r / LEAF_A / "frr.conf", "router bgp 4200001100\n",
                    "route-map SRC permit 10\n set src 10.10.0.99\nexit\nip protocol bgp route-map SRC\n"
                    "router bgp 4200001100\n")),
    ("GTSM on one end of a leaf's uplink (ttl-security hops 1)", "BGP-SESSION-DOWN",
     lambda r: edit(r / LEAF_A / "frr.conf", " neighbor 10.11.0.0 remote-as 4200001000\n",
                    " neighbor 10.11.0.0 remote-as 4200001000\n neighbor 10.11.0.0 ttl-security hops 1\n")),
    ("a leaf refuses its spines' OPENs: bgp minimum-holdtime 20 above their offered 9 s", "BGP-SESSION-DOWN",
     lambda r: edit(r / LEAF_A / "frr.conf", " bgp router-id", " bgp minimum-holdtime 20\n bgp router-id")),
    ("a leaf's server prefix as a backdoor network (bgpd never originates it)", "ROUTE-MISSING",
     lambda r: edit(r / LEAF_A / "frr.conf", "  network 10.12.0.0/26\n", "  network 10.12.0.0/26\n  network 10.12.0.0/26 backdoor\n")),
    ("an EOS spine port's lossless priority made lossy again (priority-flow-control priority 3 drop)", "QOS-PFC",
     lambda r: edit(r / SPINE_A / "running-config", "   priority-flow-control priority 3 no-drop\n",
                    "   priority-flow-control priority 3 no-drop\n   priority-flow-control priority 3 drop\n")),
    ("an EOS spine rewrites RoCE's DSCP to 0 as it leaves (qos rewrite dscp, class 3 to dscp 0)", "QOS-DSCP-MAP",
     lambda r: edit(r / SPINE_A / "running-config", "qos map dscp 48 to traffic-class 6\n",
                    "qos map dscp 48 to traffic-class 6\nqos map traffic-class 3 to dscp 0\nqos rewrite dscp\n")),
    ("an EOS spine rewrites CNPs' DSCP as they leave (qos rewrite dscp, class 6 to dscp 46)", "QOS-DSCP-MAP",
     lambda r: edit(r / SPINE_A / "running-config", "qos map dscp 48 to traffic-class 6\n",
                    "qos map dscp 48 to traffic-class 6\nqos rewrite dscp\nqos map traffic-class 6 7 to dscp 46\n")),
    ("an EOS spine shapes the RoCE queue to 10% of the port (tx-queue 3 shape rate 10 percent)", "QOS-SCHEDULER",
     lambda r: edit(r / SPINE_A / "running-config", "      bandwidth percent 50\n",
                    "      bandwidth percent 50\n      shape rate 10 percent\n")),
    ("an EOS spine port shaped to 20% (shape rate 20 percent on the port: every class in it)", "QOS-SCHEDULER",
     lambda r: edit(r / SPINE_A / "running-config", "   qos trust dscp\n", "   qos trust dscp\n   shape rate 20 percent\n")),
    ("both ends of a session wait (EOS transport connection-mode passive, FRR passive)", "BGP-SESSION-DOWN",
     lambda r: (_spine_neighbor(r, "transport connection-mode passive"),
                edit(r / LEAF_A / "frr.conf", " neighbor 10.11.0.0 description a-spine-1:Ethernet1\n",
                     " neighbor 10.11.0.0 description a-spine-1:Ethernet1\n neighbor 10.11.0.0 passive\n"))),
    ("a leaf that does not forward IPv4 (FRR no ip forwarding)", "ROUTE-NOT-FORWARDED",
     lambda r: edit(r / LEAF_A / "frr.conf", "no ipv6 forwarding\n", "no ipv6 forwarding\nno ip forwarding\n")),
    ("a leaf's whole BGP shut down (bgp shutdown)", "ROUTE-MISSING",
     lambda r: edit(r / LEAF_A / "frr.conf", " bgp router-id", " bgp shutdown\n bgp router-id")),
    ("a spine's whole BGP shut down (EOS router bgp shutdown)", "ROUTE-MISSING",
     lambda r: edit(r / SPINE_A / "running-config", "   router-id 10.10.0.0\n", "   router-id 10.10.0.0\n   shutdown\n")),
    ("an aggregate that hides the leaf's prefixes", "ROUTE-MISSING",
     lambda r: edit(r / LEAF_A / "frr.conf", "  network 10.10.0.32/32\n",
                    "  network 10.10.0.32/32\n  aggregate-address 10.12.0.0/20 summary-only\n")),
    ("an as-set aggregate in the address-and-mask form that hides the leaf's prefixes (its set holds the "
     "spines' AS: they drop it)", "ROUTE-MISSING",
     lambda r: (edit(r / LEAF_A / "frr.conf", "  network 10.10.0.32/32\n",
                     "  network 10.10.0.32/32\n  aggregate-address 10.12.0.0 255.255.240.0 as-set summary-only\n"),
                edit(r / LEAF_A / "frr.conf", "ip prefix-list LOCAL-A seq 20 permit 10.12.0.0/26\n",
                     "ip prefix-list LOCAL-A seq 20 permit 10.12.0.0/26\nip prefix-list LOCAL-A seq 30 permit "
                     "10.12.0.0/20\n"))),
    ("a route-map set line verify cannot judge (the graceful-shutdown community)", "CONFIG-UNMODELLED",
     lambda r: edit(r / LEAF_A / "frr.conf", " match ip address prefix-list LOCAL-A\n",
                    " match ip address prefix-list LOCAL-A\n set community graceful-shutdown\n")),
    ("a community of RFC 1997's reserved range (0:N) set on a leaf's routes", "CONFIG-UNMODELLED",
     lambda r: edit(r / LEAF_A / "frr.conf", " match ip address prefix-list LOCAL-A\n",
                    " match ip address prefix-list LOCAL-A\n set community 0:1\n")),
    ("an EOS prefix-list entry that takes the servers' block at /24 only (`eq 24`): the /26 subnets are "
     "denied", "ROUTE-MISSING",
     lambda r: edit(r / SPINE_A / "running-config", "   seq 20 permit 10.12.0.0/20 le 32\n",
                    "   seq 20 permit 10.12.0.0/20 eq 24\n")),
    ("a leaf prefers one spine by local preference: it installs that spine alone", "ROUTE-ECMP-WIDTH",
     lambda r: _one_spine_sets(r, "set local-preference 200")),
    ("a leaf gives one spine's routes a weight: it installs that spine alone", "ROUTE-ECMP-WIDTH",
     lambda r: _one_spine_sets(r, "set weight 100")),
    ("a leaf gives one spine a neighbor weight: it installs that spine alone", "ROUTE-ECMP-WIDTH",
     lambda r: edit(r / LEAF_A / "frr.conf", "  maximum-paths 64\n", "  maximum-paths 64\n  neighbor 10.11.0.2 weight 100\n")),
    ("a leaf's inbound route-map sets a next hop no port reaches: every learned path is inaccessible",
     "ROUTE-MISSING", lambda r: edit(r / LEAF_A / "frr.conf", "route-map PLANE-A-IN permit 10\n match ip address "
                                     "prefix-list PLANE-A\n", "route-map PLANE-A-IN permit 10\n match ip address "
                                     "prefix-list PLANE-A\n set ip next-hop 192.0.2.1\n")),
    ("an EOS spine sends routes with their next hop unchanged (a leaf it learned them from)", "ROUTE-ECMP-WIDTH",
     lambda r: edit(r / SPINE_A / "running-config", "route-map PLANE-A-OUT permit 10\n   match ip address prefix-list "
                    "PLANE-A\n", "route-map PLANE-A-OUT permit 10\n   match ip address prefix-list PLANE-A\n"
                    "   set ip next-hop unchanged\n")),
    ("a leaf sends its own routes with its loopback as next hop (not on the spine's subnets)", "ROUTE-MISSING",
     lambda r: edit(r / LEAF_A / "frr.conf", "route-map LOCAL-A-OUT permit 10\n match ip address prefix-list LOCAL-A\n",
                    "route-map LOCAL-A-OUT permit 10\n match ip address prefix-list LOCAL-A\n set ip next-hop 10.10.0.32\n")),
    ("a leaf's inbound route-map moves every next hop to one spine: it forwards to that spine alone",
     "ROUTE-ECMP-WIDTH",
     lambda r: edit(r / LEAF_A / "frr.conf", "route-map PLANE-A-IN permit 10\n match ip address prefix-list PLANE-A\n",
                    "route-map PLANE-A-IN permit 10\n match ip address prefix-list PLANE-A\n set ip next-hop 10.11.0.0\n")),
    ("a leaf's inbound route-map sends every path to a server's address (not followed: said so)",
     "ROUTE-POLICY-UNMODELLED",
     lambda r: edit(r / LEAF_A / "frr.conf", "route-map PLANE-A-IN permit 10\n match ip address prefix-list PLANE-A\n",
                    "route-map PLANE-A-IN permit 10\n match ip address prefix-list PLANE-A\n set ip next-hop 10.12.0.5\n")),
    ("a leaf filters what one spine sends by its own-prefixes list (nothing it learns passes)",
     "ROUTE-ECMP-WIDTH", lambda r: edit(r / LEAF_A / "frr.conf", "  maximum-paths 64\n",
                                        "  maximum-paths 64\n  neighbor 10.11.0.2 prefix-list LOCAL-A in\n")),
    ("an EOS spine filters what it sends one leaf by a prefix-list nobody defines", "ROUTE-UNDEFINED-REF",
     lambda r: edit(r / SPINE_A / "running-config", "   router-id 10.10.0.0\n",
                    "   router-id 10.10.0.0\n   neighbor 10.11.0.1 prefix-list NOSUCH out\n")),
    ("a leaf's outbound prefix-list drops its server subnet toward every spine", "ROUTE-MISSING",
     lambda r: edit(r / LEAF_A / "frr.conf", "ip prefix-list LOCAL-A seq 10 permit 10.10.0.32/32\n",
                    "ip prefix-list LOCAL-A seq 10 permit 10.10.0.32/32\nip prefix-list LO-ONLY seq 10 permit "
                    "10.10.0.32/32\n") or edit(r / LEAF_A / "frr.conf", "  maximum-paths 64\n", "  maximum-paths 64\n"
                    + "".join(f"  neighbor 10.11.0.{i} prefix-list LO-ONLY out\n" for i in (0, 2, 4, 6)))),
    ("an EOS spine sends one leaf its routes with the next hops it learned them with", "ROUTE-ECMP-WIDTH",
     lambda r: edit(r / SPINE_A / "running-config", "   router-id 10.10.0.0\n",
                    "   router-id 10.10.0.0\n   neighbor 10.11.0.1 next-hop-unchanged\n")),
    ("an EOS control-plane list in the management VRF without SSH (everyone locked out)", "MGMT-ACL",
     lambda r: edit(r / SPINE_A / "running-config", "ip routing\n", "ip routing\n!\nip access-list MGMT-CP\n"
                    "   10 permit icmp any any\n   20 permit tcp any any eq https\n!\nsystem control-plane\n"
                    "   ip access-group MGMT-CP vrf mgmt in\n")),
    ("an EOS list on the management port itself that denies SSH", "MGMT-ACL",
     lambda r: edit(r / SPINE_A / "running-config", "   vrf mgmt\n   ip address 198.51.100.1/24\n",
                    "   vrf mgmt\n   ip address 198.51.100.1/24\n   ip access-group NOSSH in\n!\nip access-list NOSSH\n"
                    "   10 deny tcp any any eq ssh\n   20 permit ip any any\n")),
    ("an EOS control-plane list in the management VRF that denies SSH first", "MGMT-ACL",
     lambda r: edit(r / SPINE_A / "running-config", "ip routing\n", "ip routing\n!\nip access-list MGMT-CP\n"
                    "   10 deny tcp any any eq 22\n   20 permit ip any any\n!\nsystem control-plane\n"
                    "   ip access-group MGMT-CP vrf mgmt in\n")),
    ("an EOS SSH access list in the management VRF whose deny comes before the jump host's permit",
     "MGMT-ACL", lambda r: edit(r / SPINE_A / "running-config", "management ssh\n", "ip access-list standard SSH-IN\n"
                                "   10 deny any\n   20 permit 192.0.2.10/32\n!\nmanagement ssh\n"
                                "   ip access-group SSH-IN vrf mgmt in\n")),
    ("an EOS SSH list that permits only what the control-plane list denies", "MGMT-ACL",
     lambda r: edit(r / SPINE_A / "running-config", "management ssh\n", "ip access-list CP\n"
                    "   10 deny tcp 192.0.2.0/24 any eq 22\n   20 permit ip any any\n!\nip access-list standard SSH-IN\n"
                    "   10 permit 192.0.2.0/24\n!\nsystem control-plane\n   ip access-group CP vrf mgmt in\n!\n"
                    "management ssh\n   ip access-group SSH-IN vrf mgmt in\n")),
    ("an EOS eAPI access list in the management VRF that admits SSH only", "MGMT-ACL",
     lambda r: edit(r / SPINE_A / "running-config", "management api http-commands\n   no shutdown\n   vrf mgmt\n"
                    "      no shutdown\n", "ip access-list API-IN\n   10 permit tcp any any eq 22\n!\n"
                    "management api http-commands\n   no shutdown\n   vrf mgmt\n      no shutdown\n"
                    "      ip access-group API-IN\n")),
    ("an EOS spine strips the private ASNs toward one leaf: its paths arrive shorter, the leaf takes it alone",
     "ROUTE-ECMP-WIDTH", lambda r: edit(r / SPINE_A / "running-config", "   neighbor 10.11.0.1 route-map PLANE-A-OUT out\n",
                                        "   neighbor 10.11.0.1 route-map PLANE-A-OUT out\n"
                                        "   neighbor 10.11.0.1 remove-private-as all\n")),
    ("the gateway strips the storage peer's private ASN toward one spine: every leaf takes that spine alone "
     "for storage", "ROUTE-ECMP-WIDTH",
     lambda r: edit(r / "multi-plane/gw-storage-1/frr.conf", "  neighbor 10.13.0.0 route-map LOCAL-A-OUT out\n",
                    "  neighbor 10.13.0.0 route-map LOCAL-A-OUT out\n  neighbor 10.13.0.0 remove-private-AS all\n")),
    ("the gateway presents another ASN to its storage peer (local-as): the planned peer refuses it",
     "BGP-EXTERNAL-DOWN", lambda r: edit(r / "multi-plane/gw-storage-1/frr.conf", " neighbor 100.64.0.1 remote-as 65100\n",
                                         " neighbor 100.64.0.1 remote-as 65100\n neighbor 100.64.0.1 local-as 4200009999\n")),
    ("the gateway opens its storage session without capabilities: its 4-octet ASN goes as AS_TRANS",
     "BGP-EXTERNAL-DOWN", lambda r: edit(r / "multi-plane/gw-storage-1/frr.conf", " neighbor 100.64.0.1 remote-as 65100\n",
                                         " neighbor 100.64.0.1 remote-as 65100\n"
                                         " neighbor 100.64.0.1 dont-capability-negotiate\n")),
    ("a leaf presents another ASN to one spine (local-as), which expects it: the paths over it grow by one AS",
     "ROUTE-ECMP-WIDTH", _local_as_toward_spine),
    ("an EOS spine replaces the private ASNs toward one leaf (the loop effects are not followed: said)",
     "ROUTE-POLICY-UNMODELLED", lambda r: edit(r / SPINE_A / "running-config",
                                               "   neighbor 10.11.0.1 route-map PLANE-A-OUT out\n",
                                               "   neighbor 10.11.0.1 route-map PLANE-A-OUT out\n"
                                               "   neighbor 10.11.0.1 remove-private-as all replace-as\n")),
    ("an EOS spine offers one leaf a default route its inbound route-map takes (where it leads: said)",
     "ROUTE-POLICY-UNMODELLED", lambda r: edit(r / SPINE_A / "running-config",
                                               "   neighbor 10.11.0.1 route-map PLANE-A-OUT out\n",
                                               "   neighbor 10.11.0.1 route-map PLANE-A-OUT out\n"
                                               "   neighbor 10.11.0.1 default-originate always\n")
     or edit(r / LEAF_A / "frr.conf", "route-map PLANE-A-IN permit 10\n match ip address prefix-list PLANE-A\nexit\n",
             "route-map PLANE-A-IN permit 10\n match ip address prefix-list PLANE-A\nexit\n"
             "route-map PLANE-A-IN permit 20\nexit\n")),
    ("a leaf gives one spine's routes a higher MED: it leaves that spine out", "ROUTE-ECMP-WIDTH",
     lambda r: _one_spine_sets(r, "set metric 50")),
    ("a spine sends one leaf a higher MED: that leaf leaves the spine out", "ROUTE-ECMP-WIDTH", _spine_med_to_one_leaf),
    ("a leaf that takes a missing MED as the worst, and one spine sends it a MED: that spine alone is installed",
     "ROUTE-ECMP-WIDTH", lambda r: (_spine_med_to_one_leaf(r), _missing_med_worst(r))),
    ("a leaf prepends its spines' ASN to what it sends them: they drop it (loop prevention)", "ROUTE-MISSING",
     lambda r: edit(r / LEAF_A / "frr.conf", " match ip address prefix-list LOCAL-A\n",
                    " match ip address prefix-list LOCAL-A\n set as-path prepend 4200001000\n")),
    ("a leaf prepends another leaf's ASN: that leaf drops its prefixes (loop prevention)", "ROUTE-MISSING",
     lambda r: edit(r / LEAF_A / "frr.conf", " match ip address prefix-list LOCAL-A\n",
                    " match ip address prefix-list LOCAL-A\n set as-path prepend 4200001101\n")),
    ("a spine prepends one leaf's ASN to what it sends another (EOS): that leaf loses the spine's paths",
     "ROUTE-ECMP-WIDTH", lambda r: edit(r / SPINE_A / "running-config", "route-map PLANE-A-OUT permit 10\n",
                                        "route-map PLANE-A-OUT permit 10\n   set as-path prepend 4200001101\n")),
    ("a leaf gives one spine's routes ORIGIN incomplete: it leaves that spine out", "ROUTE-ECMP-WIDTH",
     lambda r: _one_spine_sets(r, "set origin incomplete")),
    ("a spine's drain left in place: it prepends its ASN to everything it sends", "ROUTE-ECMP-WIDTH",
     lambda r: edit(r / SPINE_A / "running-config", "route-map PLANE-A-OUT permit 10\n",
                    "route-map PLANE-A-OUT permit 10\n   set as-path prepend 4200001000 4200001000\n")),
    ("a leaf prepends toward one spine only: the other leaves lose that spine for its prefixes",
     "ROUTE-ECMP-WIDTH", _prepend_toward_one_spine),
    ("a leaf prepends what one spine sends it: it loses that spine for every prefix", "ROUTE-ECMP-WIDTH",
     _prepend_from_one_spine),
    ("a network statement without a route in the RIB", "ROUTE-MISSING", _network_without_rib),
    ("a network statement without a route in the RIB (named)", "ROUTE-DEAD-NETWORK", _network_without_rib),
    ("a deny sequence drops the leaf's server subnet", "ROUTE-MISSING",
     lambda r: edit(r / LEAF_A / "frr.conf", "ip prefix-list LOCAL-A seq 10", "ip prefix-list LOCAL-A seq 5 deny "
                    "10.12.0.0/26\nip prefix-list LOCAL-A seq 10")),
    ("a spine's route-map denies in a first sequence: one next hop fewer", "ROUTE-ECMP-WIDTH",
     lambda r: edit(r / SPINE_A / "running-config", "route-map PLANE-A-OUT permit 10",
                    "route-map PLANE-A-OUT deny 5\n   match ip address prefix-list LOCAL-X\n"
                    "ip prefix-list LOCAL-X\n   seq 10 permit 10.12.0.0/26\nroute-map PLANE-A-OUT permit 10")),
    ("a route-map name that is not defined", "ROUTE-UNDEFINED-REF",
     lambda r: edit(r / LEAF_A / "frr.conf", "route-map LOCAL-A-OUT permit 10", "route-map LOCAL-A-OUTX permit 10")),
    ("a spine shuts its session to a leaf: one next hop fewer", "ROUTE-ECMP-WIDTH",
     lambda r: edit(r / SPINE_A / "running-config", "   neighbor 10.11.0.1 description",
                    "   neighbor 10.11.0.1 shutdown\n   neighbor 10.11.0.1 description")),
    ("no bgp default ipv4-unicast without activate", "BGP-SESSION-DOWN",
     lambda r: edit(r / LEAF_A / "frr.conf", " bgp router-id", " no bgp default ipv4-unicast\n bgp router-id")),
    ("no bgp default ipv4-unicast below a leaf's first neighbor: the three created after it carry nothing",
     "BGP-SESSION-DOWN",
     lambda r: edit(r / LEAF_A / "frr.conf", " neighbor 10.11.0.0 remote-as 4200001000\n",
                    " neighbor 10.11.0.0 remote-as 4200001000\n no bgp default ipv4-unicast\n")),
    ("no bgp default ipv4-unicast: the leaf's prefixes are gone", "ROUTE-MISSING",
     lambda r: edit(r / LEAF_A / "frr.conf", " bgp router-id", " no bgp default ipv4-unicast\n bgp router-id")),
    ("two leaves with one ASN: eBGP loop prevention", "ROUTE-MISSING", _same_asn_on_two_leaves),
    ("an EOS port left a switchport", "BGP-SESSION-DOWN",
     lambda r: edit(r / SPINE_A / "running-config", "   no switchport\n", "")),
    ("an EOS port shut down", "BGP-SESSION-DOWN",
     lambda r: edit(r / SPINE_A / "running-config", "   no switchport\n", "   no switchport\n   shutdown\n")),
    ("a Cumulus leaf classifies by PCP", "QOS-TRUST",
     lambda r: edit(r / LEAF_A / "qos_features.conf", "packet_priority_source_set = [dscp]",
                    "packet_priority_source_set = [pcp]")),
    ("an EOS port trusts CoS", "QOS-TRUST",
     lambda r: edit(r / SPINE_A / "running-config", "qos trust dscp", "qos trust cos")),
    ("PFC pause frames not sent (tx off)", "QOS-PFC",
     lambda r: edit(r / LEAF_A / "qos_features.conf", "pfc.roce_pfc.tx_enable = true", "pfc.roce_pfc.tx_enable = false")),
    # switchd sends and honours pause frames only where the file enables them: a key left out or
    # misspelt (reported unmodelled) enables nothing
    ("PFC pause frames honoured by nobody (rx_enable left out)", "QOS-PFC",
     lambda r: edit(r / LEAF_A / "qos_features.conf", "pfc.roce_pfc.rx_enable = true\n", "")),
    ("PFC transmit misspelt (tx_enabled)", "QOS-PFC",
     lambda r: edit(r / LEAF_A / "qos_features.conf", "pfc.roce_pfc.tx_enable = true", "pfc.roce_pfc.tx_enabled = true")),
    ("ECN marking not enabled (ecn_enable left out)", "QOS-ECN",
     lambda r: edit(r / LEAF_A / "qos_features.conf", "ecn_red.roce_ecn.ecn_enable = true\n", "")),
    ("PFC not switched on on an EOS port", "QOS-PFC",
     lambda r: edit(r / SPINE_A / "running-config", "   priority-flow-control on\n", "")),
    ("a qos_features.conf key verify cannot judge", "PORTS-UNMODELLED",
     lambda r: edit(r / LEAF_A / "qos_features.conf", "traffic.port_default_priority = 0",
                    "traffic.port_default_priority = 0\nsource.packet_priority_remark = true")),
    ("an interfaces attribute verify cannot judge", "PORTS-UNMODELLED",
     lambda r: edit(r / LEAF_A / "interfaces", "    mtu 9214\n", "    mtu 9214\n    bond-slaves swp1\n", 1)),
    ("a server post-up command verify cannot judge", "HOST-UNMODELLED",
     lambda r: edit(r / "servers/gpu001/interfaces", "    post-up ip rule add", "    post-up tc qdisc add dev x root fq\n"
                    "    post-up ip rule add", 1)),
    ("a plane-A source policy-routed into plane B's table", "HOST-FORWARDING",
     lambda r: edit(r / "servers/gpu001/interfaces", "post-up ip rule add from 10.12.0.1 lookup 101 priority 101",
                    "post-up ip rule add from 10.12.0.1 lookup 102 priority 101")),
    ("an earlier rule captures a whole plane's sources", "HOST-FORWARDING",
     after_first_rule("ip rule add from 10.12.0.0/20 lookup 102 priority 50")),
    ("a port whose plane has no route at all", "HOST-FORWARDING", _port_without_routes),
    ("a plane-B route names a plane-A source (src): unbound sockets leak it", "HOST-FORWARDING",
     lambda r: edit(r / "servers/gpu001/interfaces", "post-up ip route replace 10.20.0.0/24 via 10.22.0.0 dev ens1f1np1\n",
                    "post-up ip route replace 10.20.0.0/24 via 10.22.0.0 dev ens1f1np1 src 10.12.0.1\n")),
    ("a table's default route names a source configured only later (the kernel refuses it)", "HOST-FORWARDING",
     lambda r: edit(r / "servers/gpu001/interfaces", "default via 10.12.0.0 dev ens1f0np0 table 101",
                    "default via 10.12.0.0 dev ens1f0np0 src 10.22.0.1 table 101")),
    ("an EOS switch loses its management address", "MGMT-ADDRESS",
     lambda r: edit(r / SPINE_A / "running-config", "   ip address 198.51.100.1/24\n", "")),
    ("a Cumulus management port outside the management VRF", "MGMT-ADDRESS",
     lambda r: edit(r / LEAF_A / "interfaces", "    gateway 198.51.100.254\n    vrf mgmt\n", "    gateway 198.51.100.254\n")),
    ("an EOS management VRF without its default route", "MGMT-ROUTE",
     lambda r: edit(r / SPINE_A / "running-config", "ip route vrf mgmt 0.0.0.0/0 198.51.100.254\n", "")),
    ("a Cumulus management port without its gateway", "MGMT-ROUTE",
     lambda r: edit(r / LEAF_A / "interfaces", "    gateway 198.51.100.254\n", "")),
    ("EOS SSH shut in the management VRF", "MGMT-ACCESS",
     lambda r: edit(r / SPINE_A / "running-config", "management ssh\n   vrf mgmt\n      no shutdown\n",
                    "management ssh\n   vrf mgmt\n      shutdown\n")),
    ("EOS API served in the default VRF only", "MGMT-ACCESS",
     lambda r: edit(r / SPINE_A / "running-config", "management api http-commands\n   no shutdown\n   vrf mgmt\n"
                    "      no shutdown\n", "management api http-commands\n   no shutdown\n")),
    ("an EOS switch without its NTP servers", "MGMT-SERVICES",
     lambda r: edit_lines(r / SPINE_A / "running-config", lambda line: line.startswith("ntp server "))),
    ("a Cumulus switch without its NTP servers", "MGMT-SERVICES",
     lambda r: edit_lines(r / LEAF_A / "ntp.conf", lambda line: line.startswith("server "))),
    ("a Cumulus switch whose syslog leaves outside the management VRF", "MGMT-SERVICES",
     lambda r: edit(r / LEAF_A / "rsyslog.conf", 'Device="mgmt" ', "")),
    ("a Cumulus name server without `# vrf mgmt` (resolved in the default VRF)", "MGMT-SERVICES",
     lambda r: edit(r / LEAF_A / "resolv.conf", " # vrf mgmt", "")),
    ("a Cumulus syslog action over TCP (the collector listens on UDP 514)", "MGMT-SERVICES",
     lambda r: edit(r / LEAF_A / "rsyslog.conf", 'Protocol="udp"', 'Protocol="tcp"')),
    ("an EOS logging host on another port", "MGMT-SERVICES",
     lambda r: edit(r / SPINE_A / "running-config", "host 192.0.2.20\n", "host 192.0.2.20 1514\n")),
    ("an EOS switch named as another", "MGMT-HOSTNAME",
     lambda r: edit(r / SPINE_A / "running-config", "hostname a-spine-1\n", "hostname a-spine-2\n")),
    ("a Cumulus switch's frr.conf named as another", "MGMT-HOSTNAME",
     lambda r: edit(r / LEAF_A / "frr.conf", "hostname a-leaf-su1-r0\n", "hostname a-leaf-su1-r9\n")),
    ("a Cumulus switch without its name server file", "MGMT-SERVICES",
     lambda r: (r / LEAF_A / "resolv.conf").unlink()),
    ("a Cumulus NTP line the model does not know", "PORTS-UNMODELLED",
     lambda r: edit(r / LEAF_A / "ntp.conf", "driftfile", "tos minsane 3\ndriftfile")),
    ("a Cumulus NTP server marked noselect (never sets the clock)", "MGMT-SERVICES",
     lambda r: edit(r / LEAF_A / "ntp.conf", "server 192.0.2.10 iburst", "server 192.0.2.10 iburst noselect")),
    ("Cumulus `restrict default ignore` with one server let back in (the other's replies dropped)", "MGMT-SERVICES",
     lambda r: edit(r / LEAF_A / "ntp.conf", "driftfile", "restrict default ignore\nrestrict 192.0.2.10\ndriftfile")),
    ("Cumulus `disable ntp` (no server sets the clock)", "MGMT-SERVICES",
     lambda r: edit(r / LEAF_A / "ntp.conf", "driftfile", "disable ntp\ndriftfile")),
    ("a Cumulus NTP server the plan does not name", "MGMT-SERVICES",
     lambda r: edit(r / LEAF_A / "ntp.conf", "server 192.0.2.11 iburst\n",
                    "server 192.0.2.11 iburst\nserver 203.0.113.5 iburst\n")),
    ("the planned name server after three others (glibc asks the first three)", "MGMT-SERVICES",
     lambda r: edit(r / LEAF_A / "resolv.conf", "nameserver 192.0.2.53 # vrf mgmt\n", "".join(
         f"nameserver 192.0.2.5{n} # vrf mgmt\n" for n in (0, 1, 2, 3)))),
    ("a Cumulus legacy forwarding line (`*.* @host`: no device, the default VRF)", "MGMT-SERVICES",
     lambda r: edit(r / LEAF_A / "rsyslog.conf", 'action(type="omfwd" Target="192.0.2.20" Device="mgmt" Port="514" '
                    'Protocol="udp")', "*.* @192.0.2.20:514")),
    ("a Cumulus TACACS+ client without its shared key", "MGMT-AAA",
     lambda r: edit(r / LEAF_A / "tacplus_servers", "secret=${secret:tacacs-key}\n", "")),
    ("EOS's RoCE class sent out another tx-queue (`qos map traffic-class 3 to tx-queue 4`: no ECN, no share)",
     "QOS-ECN", lambda r: edit(r / SPINE_A / "running-config", "qos map dscp 48 to traffic-class 6\n",
                               "qos map dscp 48 to traffic-class 6\nqos map traffic-class 3 to tx-queue 4\n")),
    ("an EOS TACACS+ host without a key (none shared either)", "MGMT-AAA",
     lambda r: edit(r / SPINE_A / "running-config", " key 0 ${secret:tacacs-key}", "")),
    ("an EOS TACACS+ host the plan does not name, in the login group", "MGMT-AAA",
     lambda r: edit(r / SPINE_A / "running-config", "aaa group server tacacs+ dualrail\n",
                    "tacacs-server host 192.0.2.77 vrf mgmt key 0 ${secret:tacacs-key}\n"
                    "aaa group server tacacs+ dualrail\n   server 192.0.2.77 vrf mgmt\n")),
    ("the EOS login group's server moved out of the management VRF (the group asks a host nobody defined)",
     "MGMT-AAA", lambda r: edit(r / SPINE_A / "running-config", "   server 192.0.2.49 vrf mgmt\n", "   server 192.0.2.49\n")),
    ("EOS logins through a TACACS+ group nobody defined", "MGMT-AAA",
     lambda r: edit(r / SPINE_A / "running-config", "aaa authentication login default group dualrail local",
                    "aaa authentication login default group ops local")),
    ("an EOS NTP server queried in the default VRF (the fabric's)", "MGMT-SERVICES",
     lambda r: edit(r / SPINE_A / "running-config", "ntp server vrf mgmt 192.0.2.10\n", "ntp server 192.0.2.10\n")),
    ("an EOS line pasted indented under a line that opens no mode (`ip name-server`): EOS takes it in the "
     "mode above or refuses it; said, not read as nothing", "CONFIG-UNMODELLED",
     lambda r: edit(r / SPINE_A / "running-config", "ip name-server vrf mgmt 192.0.2.53\n",
                    "ip name-server vrf mgmt 192.0.2.53\n   neighbor 10.11.0.1 shutdown\n")),
    ("an EOS `neighbor ... shutdown` pasted indented under another neighbor statement: EOS takes it in "
     "router bgp (indentation means nothing to it), and the session goes down", "BGP-ONE-SIDED",
     lambda r: edit(r / SPINE_A / "running-config", "   neighbor 10.11.0.1 route-map PLANE-A-OUT out\n",
                    "   neighbor 10.11.0.1 route-map PLANE-A-OUT out\n      neighbor 10.11.0.1 shutdown\n")),
    ("a queue's ECN line pasted indented under an EOS BGP neighbor statement (no block of it is read)",
     "CONFIG-UNMODELLED",
     lambda r: edit(r / SPINE_A / "running-config", "   neighbor 10.11.0.1 route-map PLANE-A-OUT out\n",
                    "   neighbor 10.11.0.1 route-map PLANE-A-OUT out\n      random-detect ecn minimum-threshold "
                    "150000 bytes maximum-threshold 1500000 bytes\n")),
    ("an EOS TACACS+ host on another port (reported, not passed over)", "CONFIG-UNMODELLED",
     lambda r: edit(r / SPINE_A / "running-config", "tacacs-server host 192.0.2.49 vrf mgmt key",
                    "tacacs-server host 192.0.2.49 vrf mgmt port 4949 key")),
    ("an EOS logging host the plan does not name", "MGMT-SERVICES",
     lambda r: edit(r / SPINE_A / "running-config", "logging vrf mgmt host 192.0.2.20\n",
                    "logging vrf mgmt host 192.0.2.20\nlogging vrf mgmt host 192.0.2.21\n")),
    ("an EOS switch with LLDP off", "MGMT-SERVICES",
     lambda r: edit(r / SPINE_A / "running-config", "\nlldp run\n", "\nno lldp run\n")),
    ("EOS logins through TACACS+ only (no local fallback)", "MGMT-AAA",
     lambda r: edit(r / SPINE_A / "running-config", "aaa authentication login default group dualrail local",
                    "aaa authentication login default group dualrail")),
    ("EOS exec authorization through TACACS+ only (local users get no shell)", "MGMT-AAA",
     lambda r: edit(r / SPINE_A / "running-config", "aaa authorization exec default group dualrail local",
                    "aaa authorization exec default group dualrail")),
    ("EOS TACACS+ server outside the management VRF", "MGMT-AAA",
     lambda r: edit(r / SPINE_A / "running-config", "tacacs-server host 192.0.2.49 vrf mgmt ",
                    "tacacs-server host 192.0.2.49 ")),
    ("a Cumulus TACACS+ client outside the management VRF", "MGMT-AAA",
     lambda r: edit(r / LEAF_A / "tacplus_servers", "vrf=mgmt\n", "")),
    ("a Cumulus switch without its TACACS+ file", "MGMT-AAA", lambda r: (r / LEAF_A / "tacplus_servers").unlink()),
    ("a Cumulus TACACS+ `vrf=` line indented (the client skips a line that starts with a blank: the default VRF)",
     "MGMT-AAA", lambda r: edit(r / LEAF_A / "tacplus_servers", "vrf=mgmt\n", "  vrf=mgmt\n")),
    ("a Cumulus TACACS+ `vrf = mgmt` (the client reads a line up to its first blank: no setting)", "MGMT-AAA",
     lambda r: edit(r / LEAF_A / "tacplus_servers", "vrf=mgmt\n", "vrf = mgmt\n")),
    ("a Cumulus name server on an indented line (glibc reads keywords at the line's start only)", "MGMT-SERVICES",
     lambda r: edit(r / LEAF_A / "resolv.conf", "nameserver 192.0.2.53", "\tnameserver 192.0.2.53")),
    ("a Cumulus `nameserver 192.0.2.53#vrf mgmt` (glibc reads the address up to a blank: not one)", "MGMT-SERVICES",
     lambda r: edit(r / LEAF_A / "resolv.conf", "nameserver 192.0.2.53 # vrf mgmt", "nameserver 192.0.2.53#vrf mgmt")),
    ("a Cumulus `sortlist` line ending in a CR (glibc's res_init loops on it: every lookup hangs)", "MGMT-SERVICES",
     lambda r: edit(r / LEAF_A / "resolv.conf", "nameserver 192.0.2.53", "sortlist 192.0.2.0/255.255.255.0\r\n"
                                                                         "nameserver 192.0.2.53")),
    ("an EOS user's hash written into the file (a secret in git)", "MGMT-SECRET",
     lambda r: edit(r / SPINE_A / "running-config", "secret sha512 ${secret:netops-password}", "secret sha512 $6$salt$hash")),
    ("an EOS TACACS+ key written into the file", "MGMT-SECRET",
     lambda r: edit(r / SPINE_A / "running-config", "key 0 ${secret:tacacs-key}", "key 0 hunter22")),
    ("an EOS SNMP community added in clear", "MGMT-SECRET",
     lambda r: edit(r / SPINE_A / "running-config", "lldp run\n", "lldp run\nsnmp-server community public ro\n")),
    ("a Cumulus TACACS+ key written into the file", "MGMT-SECRET",
     lambda r: edit(r / LEAF_A / "tacplus_servers", "secret=${secret:tacacs-key}", "secret=hunter22")),
    ("a BGP session password written into frr.conf (a TCP MD5 key in git)", "BGP-SECRET",
     lambda r: edit(r / LEAF_A / "frr.conf", " neighbor 10.11.0.0 description",
                    " neighbor 10.11.0.0 password s3cret\n neighbor 10.11.0.0 description")),
    ("an EOS BGP password in its reversible type-7 form", "BGP-SECRET",
     lambda r: _spine_neighbor(r, "password 7 0123456789ABCDEF")),
    ("a Cumulus TACACS+ setting the model does not know", "PORTS-UNMODELLED",
     lambda r: edit(r / LEAF_A / "tacplus_servers", "vrf=mgmt\n", "vrf=mgmt\nlogin=pap\n")),
    ("an EOS switch without its users", "MGMT-USER",
     lambda r: edit_lines(r / SPINE_A / "running-config", lambda line: line.startswith("username "))),
    ("a route-map entry after a match-everything entry", "ROUTE-DEAD-POLICY",
     lambda r: edit(r / LEAF_A / "frr.conf", "route-map LOCAL-A-OUT permit 10\n match ip address prefix-list LOCAL-A\n",
                    "route-map LOCAL-A-OUT permit 5\nexit\nroute-map LOCAL-A-OUT permit 10\n"
                    " match ip address prefix-list LOCAL-A\n")),
    ("a prefix-list nothing matches", "ROUTE-DEAD-POLICY",
     lambda r: edit(r / LEAF_A / "frr.conf", "ip prefix-list LOCAL-A seq 10", "ip prefix-list OLD seq 5 permit "
                    "10.0.0.0/8\nip prefix-list LOCAL-A seq 10")),
    ("two plane VRFs on one kernel table", "ISO-VRF-LEAK",
     lambda r: edit(r / GW / "interfaces", "vrf-table 1002", "vrf-table 1001")),
    ("an EOS spine without ip routing", "BGP-SESSION-DOWN",
     lambda r: edit(r / SPINE_A / "running-config", "ip routing\n", "")),
    # the leaf accepts 17 prefixes from each spine (19 sent, its own 2 refused for its ASN in the path)
    ("a receive limit well below what a spine sends: the session is torn down", "BGP-SESSION-DOWN",
     lambda r: _leaf_af(r, "neighbor 10.11.0.0 maximum-prefix 15")),
    ("a receive limit torn down takes the spine's next hop away", "ROUTE-ECMP-WIDTH",
     lambda r: _leaf_af(r, "neighbor 10.11.0.0 maximum-prefix 2 90 restart 5")),
    ("a receive limit one below what a spine sends (FRR accepts the route that crosses it)", "BGP-PREFIX-LIMIT",
     lambda r: _leaf_af(r, "neighbor 10.11.0.0 maximum-prefix 16")),
    ("a route-map entry that also matches a community list nobody defines (bgpd: no list, no match)", "ROUTE-MISSING",
     lambda r: _leaf_clause(r, "PLANE-A-IN", "match community NOPE")),
    ("a route-map entry matching an AS-path list nobody defines", "ROUTE-UNDEFINED-REF",
     lambda r: _leaf_clause(r, "LOCAL-A-OUT", "match as-path NOPE")),
    ("a route-map entry matching an access list nobody defines (`match ip address NAME`)", "ROUTE-MISSING",
     lambda r: _leaf_clause(r, "PLANE-A-IN", "match ip address NOACL")),
    ("a route-map entry matching next hops by a prefix-list nobody defines", "ROUTE-UNDEFINED-REF",
     lambda r: _leaf_clause(r, "PLANE-A-IN", "match ip next-hop prefix-list NOPL")),
    ("a route-map entry also matches the IPv6 list of its prefix-list's name (bgpd: no IPv4 route matches)",
     "ROUTE-MISSING", lambda r: _leaf_clause(r, "LOCAL-A-OUT", "match ipv6 address prefix-list LOCAL-A")),
    ("a route-map entry also matches an IPv6 prefix-list that permits any (measured on the twin: nothing matches)",
     "ROUTE-DEAD-POLICY", lambda r: _leaf_clause(r, "PLANE-A-IN", "match ipv6 address prefix-list V6",
                                                 before="ipv6 prefix-list V6 seq 5 permit any\n")),
    ("an access list the route-map matches leaves the server subnets out", "ROUTE-MISSING",
     lambda r: _leaf_acl(r, "access-list PA seq 10 permit 10.10.0.0/24\naccess-list PA seq 30 permit 172.16.0.0/16\n", "PA")),
    ("an access list entry made exact-match (the /32 loopbacks inside the /24 no longer match)", "ROUTE-MISSING",
     lambda r: _leaf_acl(r, ZEBRA_ACL.replace("10.10.0.0/24", "10.10.0.0/24 exact-match"), "PA")),
    ("a cisco-style access list that denies one leaf's loopback first (`deny host`)", "ROUTE-MISSING",
     lambda r: _leaf_acl(r, "access-list 10 deny host 10.10.0.33\naccess-list 10 permit any\n", "10")),
    ("an access list with only a remark (an empty list permits nothing)", "ROUTE-MISSING",
     lambda r: _leaf_acl(r, "access-list PA remark to be filled in\n", "PA")),
    ("an extended access list that leaves the external prefixes out (their addresses are not in 10/8)",
     "ROUTE-MISSING", lambda r: _leaf_acl(r, "access-list 100 permit ip 10.0.0.0 0.255.255.255 any\n", "100")),
    ("an extended access list that takes only /32s (the server subnets' netmasks do not match)", "ROUTE-MISSING",
     lambda r: _leaf_acl(r, "access-list 101 permit ip any host 255.255.255.255\n", "101")),
    ("an access list with a wildcard that is not a prefix's host bits (not evaluated)", "CONFIG-UNMODELLED",
     lambda r: _leaf_acl(r, "access-list 100 permit ip 10.0.0.0 0.255.0.255 any\n", "100")),
    ("a distribute-list that denies everything from one spine", "ROUTE-ECMP-WIDTH",
     lambda r: _leaf_distribute(r, "neighbor 10.11.0.0 distribute-list DL in", "access-list DL deny any\n")),
    ("a distribute-list on an access list nobody defines", "ROUTE-UNDEFINED-REF",
     lambda r: _leaf_distribute(r, "neighbor 10.11.0.0 distribute-list NODL in")),
    ("a distribute-list beside a prefix-list of the same direction (bgpd refuses the second)", "BGP-CONFIG-REFUSED",
     lambda r: _leaf_distribute(r, "neighbor 10.11.0.0 prefix-list PLANE-A in\n  neighbor 10.11.0.0 distribute-list DL in",
                                "access-list DL permit any\n")),
    ("a leaf advertises only routes tagged with a community nothing sets (a standard list)", "ROUTE-MISSING",
     lambda r: _leaf_clause(r, "LOCAL-A-OUT", "match community TAGGED",
                            before="bgp community-list standard TAGGED seq 5 permit 65000:100 no-export\n!\n")),
    ("an expanded community-list whose first entry a route without communities matches denies it", "ROUTE-MISSING",
     lambda r: _leaf_clause(r, "PLANE-A-IN", "match community 120",
                            before="bgp community-list 120 deny ^$\nbgp community-list 120 permit .*\n!\n")),
    ("a numbered standard community-list in a permit entry (no route of the fabric carries 65000:7)", "ROUTE-MISSING",
     lambda r: _leaf_clause(r, "PLANE-A-IN", "match community 7 exact-match",
                            before="bgp community-list 7 seq 10 permit 65000:7\n!\n")),
    ("a match on a community list the config defines (its entries are not evaluated)", "CONFIG-UNMODELLED",
     lambda r: _leaf_clause(r, "PLANE-A-IN", "match community ANY",
                                before="bgp community-list standard ANY seq 5 permit internet\n!\n")),
    ("a leaf redistributes its connected routes through its outbound map in place of its network statements "
     "(the server subnet is a static blackhole, not connected)", "ROUTE-MISSING",
     lambda r: _leaf_redistributes(r, "redistribute connected route-map LOCAL-A-OUT")),
    ("a leaf's server-subnet network statement through a route-map nobody defines (bgpd advertises nothing)",
     "ROUTE-UNDEFINED-REF", lambda r: edit(r / LEAF_A / "frr.conf", "  network 10.12.0.0/26\n",
                                           "  network 10.12.0.0/26 route-map NOPE\n")),
    ("a leaf's server-subnet network statement through a route-map that permits only its loopback",
     "ROUTE-MISSING", lambda r: (edit(r / LEAF_A / "frr.conf", "  network 10.12.0.0/26\n",
                                      "  network 10.12.0.0/26 route-map LOOP-ONLY\n"),
                                 edit(r / LEAF_A / "frr.conf", "router bgp 4200001100\n",
                                      "ip prefix-list LOOP seq 5 permit 10.10.0.32/32\n!\nroute-map LOOP-ONLY permit 10\n"
                                      " match ip address prefix-list LOOP\nexit\n!\nrouter bgp 4200001100\n"))),
    ("an EOS spine's loopback network statement through a route-map that denies everything", "ROUTE-MISSING",
     lambda r: edit(r / SPINE_A / "running-config", "   network 10.10.0.0/32\n",
                    "   network 10.10.0.0/32 route-map NOTHING\n!\nroute-map NOTHING deny 10\n")),
    ("the gateway's outbound map toward plane A's storage peer matches plane B's list (it sends plane A nothing)",
     "BGP-EXTERNAL-EXPORT", lambda r: edit(r / GW / "frr.conf", "route-map EXTERNAL-A-OUT permit 10\n match ip address "
                                           "prefix-list PLANE-A\n", "route-map EXTERNAL-A-OUT permit 10\n match ip "
                                           "address prefix-list PLANE-B\n")),
    ("a prefix-list out toward plane A's storage peer that keeps the server subnets back", "BGP-EXTERNAL-EXPORT",
     lambda r: edit(r / GW / "frr.conf", "  neighbor 100.64.0.1 route-map EXTERNAL-A-OUT out\n",
                    "  neighbor 100.64.0.1 route-map EXTERNAL-A-OUT out\n  neighbor 100.64.0.1 prefix-list LOCAL-A out\n")),
    ("a filter-list out toward plane A's storage peer on an AS-path list nobody defines (it sends nothing)",
     "BGP-EXTERNAL-EXPORT",
     lambda r: edit(r / GW / "frr.conf", "  neighbor 100.64.0.1 route-map EXTERNAL-A-OUT out\n",
                    "  neighbor 100.64.0.1 route-map EXTERNAL-A-OUT out\n  neighbor 100.64.0.1 filter-list ANY out\n")),
    ("no outbound route-map toward plane B's storage peer with ebgp-requires-policy on", "BGP-EXTERNAL-EXPORT",
     lambda r: (edit(r / GW / "frr.conf", "  neighbor 100.64.0.3 route-map EXTERNAL-B-OUT out\n", ""),
                edit(r / GW / "frr.conf", "frr defaults datacenter", "frr defaults traditional"))),
    ("a leaf's session toward an address on no connected subnet with ebgp-multihop (one-sided: said so)",
     "BGP-ONE-SIDED", lambda r: edit(r / LEAF_A / "frr.conf", " neighbor 10.11.0.0 description",
                                     " neighbor 10.10.0.1 remote-as 4200001000\n neighbor 10.10.0.1 ebgp-multihop 3\n"
                                     " neighbor 10.11.0.0 description")),
    ("a leaf redistributes through a route-map nobody defines", "ROUTE-UNDEFINED-REF",
     lambda r: _leaf_redistributes(r, "redistribute connected route-map NOPE", "redistribute static route-map NOPE")),
    ("a leaf redistributes through a route-map that also sets a MED (not followed: said so)", "CONFIG-UNMODELLED",
     lambda r: (_leaf_redistributes(r, "redistribute connected route-map LOCAL-A-OUT",
                                    "redistribute static route-map LOCAL-A-OUT"),
                edit(r / LEAF_A / "frr.conf", " match ip address prefix-list LOCAL-A\n",
                     " match ip address prefix-list LOCAL-A\n set metric 50\n"))),
    ("a leaf's inbound route-map goes on (on-match next) to an entry that matches only the loopbacks: bgpd denies "
     "the rest", "ROUTE-MISSING",
     lambda r: _leaf_clause(r, "PLANE-A-IN", "on-match next",
                            before="ip prefix-list LOOPS seq 5 permit 10.10.0.0/24 le 32\n!\n"
                                   "route-map PLANE-A-IN permit 20\n match ip address prefix-list LOOPS\nexit\n!\n")),
    ("a leaf's outbound route-map calls a map that denies its server subnet", "ROUTE-MISSING",
     lambda r: _leaf_clause(r, "LOCAL-A-OUT", "call NO-SERVERS",
                            before="route-map NO-SERVERS deny 10\n match ip address prefix-list SERVERS\nexit\n!\n"
                                   "route-map NO-SERVERS permit 20\nexit\n!\n"
                                   "ip prefix-list SERVERS seq 5 permit 10.12.0.0/26\n!\n")),
    ("a leaf takes from one spine only the paths of the spine's own AS (filter-list in)", "ROUTE-ECMP-WIDTH",
     lambda r: _leaf_distribute(r, "neighbor 10.11.0.0 filter-list SP in",
                                "bgp as-path access-list SP seq 5 permit ^4200001000$\n")),
    ("a route-map entry matches only the paths one leaf's AS originated (match as-path)", "ROUTE-MISSING",
     lambda r: _leaf_clause(r, "PLANE-A-IN", "match as-path ONE",
                            before="bgp as-path access-list ONE seq 5 permit _4200001101$\n!\n")),
    # `match` on what a route carries, as bgpd compares it (the twin's `match-attribute` edits)
    ("a leaf's outbound map matches ORIGIN incomplete (its network statements are igp)", "ROUTE-MISSING",
     lambda r: _leaf_clause(r, "LOCAL-A-OUT", "match origin incomplete")),
    ("a leaf's outbound map matches one spine by `match peer` (outbound it matches no peer)", "ROUTE-MISSING",
     lambda r: _leaf_clause(r, "LOCAL-A-OUT", "match peer 10.11.0.0")),
    ("a leaf's inbound map matches a tag (tags do not cross BGP)", "ROUTE-MISSING",
     lambda r: _leaf_clause(r, "PLANE-A-IN", "match tag 5")),
    ("a leaf takes from one spine only routes of LOCAL_PREF 100 (an eBGP route carries none)", "ROUTE-ECMP-WIDTH",
     lambda r: _one_spine_sets(r, "match local-preference 100")),
    ("a leaf takes from one spine only routes of MED 10 (the spine sends none)", "ROUTE-ECMP-WIDTH",
     lambda r: _one_spine_sets(r, "match metric 10")),
    ("a leaf takes from one spine only what another spine sends (match peer in)", "ROUTE-ECMP-WIDTH",
     lambda r: _one_spine_sets(r, "match peer 10.11.0.2")),
    ("a leaf's inbound map matches zebra's `match ip address prefix-len 32`, which bgpd does not implement",
     "ROUTE-DEAD-POLICY", lambda r: _leaf_clause(r, "PLANE-A-IN", "match ip address prefix-len 32")),
    ("a leaf takes only the routes whose next hop is its first spine (match ip next-hop address)",
     "ROUTE-ECMP-WIDTH", lambda r: _leaf_clause(r, "PLANE-A-IN", "match ip next-hop address 10.11.0.0")),
    ("a leaf takes only routes without a next hop (match ip next-hop type blackhole: none it learns)",
     "ROUTE-MISSING", lambda r: _leaf_clause(r, "PLANE-A-IN", "match ip next-hop type blackhole")),
    ("a leaf's outbound entry matches with probability 0", "ROUTE-MISSING",
     lambda r: _leaf_clause(r, "LOCAL-A-OUT", "match probability 0")),
    ("a leaf prepends the last AS three times on one spine's routes (set as-path prepend last-as 3)",
     "ROUTE-ECMP-WIDTH", lambda r: _one_spine_sets(r, "set as-path prepend last-as 3")),
    ("a leaf's default local preference is 50, and one spine's routes are set to 100: only that spine is installed",
     "ROUTE-ECMP-WIDTH", lambda r: (edit(r / LEAF_A / "frr.conf", " bgp router-id 10.10.0.32\n",
                                         " bgp router-id 10.10.0.32\n bgp default local-preference 50\n"),
                                    _one_spine_sets(r, "set local-preference 100"))),
    ("a leaf sends each spine at most one of its two prefixes (maximum-prefix-out 1)", "BGP-PREFIX-LIMIT",
     lambda r: edit(r / LEAF_A / "frr.conf", "  maximum-paths 64\n",
                    "  maximum-paths 64\n  neighbor 10.11.0.0 maximum-prefix-out 1\n")),
    ("a leaf raises the MED of one spine's routes by 10 (set metric +10)", "ROUTE-ECMP-WIDTH",
     lambda r: _one_spine_sets(r, "set metric +10")),
    ("a leaf adds 10 to one spine's local preference (an eBGP route carries none: 10, below the others' 100)",
     "ROUTE-ECMP-WIDTH", lambda r: _one_spine_sets(r, "set local-preference +10")),
    ("an AS-path list whose first entry denies one leaf's AS, on one spine's session", "ROUTE-ECMP-WIDTH",
     lambda r: _leaf_distribute(r, "neighbor 10.11.0.4 filter-list D in",
                                "bgp as-path access-list D seq 5 deny _4200001102$\n"
                                "bgp as-path access-list D seq 10 permit .*\n")),
    ("a leaf sends a spine only paths through the spine's AS (an outbound filter-list: nothing of its own)",
     "ROUTE-ECMP-WIDTH", lambda r: _leaf_distribute(r, "neighbor 10.11.0.0 filter-list VIA out",
                                                    "bgp as-path access-list VIA permit _4200001000_\n")),
    ("a filter-list on an AS-path list nobody defines", "ROUTE-UNDEFINED-REF",
     lambda r: _leaf_distribute(r, "neighbor 10.11.0.2 filter-list NOPE in")),
    ("a filter-list on an AS-path list with an escape (not read: not evaluated)", "CONFIG-UNMODELLED",
     lambda r: _leaf_distribute(r, "neighbor 10.11.0.0 filter-list ESC in",
                                "bgp as-path access-list ESC permit ^[0-9]+\\.[0-9]+$\n")),
    ("an EOS spine presents another ASN to one leaf (local-as ... no-prepend replace-as)", "BGP-SESSION-DOWN",
     lambda r: _spine_neighbor(r, "local-as 4200001999 no-prepend replace-as")),
    ("GTSM on the EOS end of a session only (ttl maximum-hops)", "BGP-SESSION-DOWN",
     lambda r: _spine_neighbor(r, "ttl maximum-hops 1")),
    ("an EOS password toward a leaf that sets none (its encrypted form is not compared, its presence is)",
     "BGP-SESSION-DOWN", lambda r: _spine_neighbor(r, "password 7 0123456789ABCDEF")),
    ("an EOS spine limits a leaf to fewer routes than it sends", "BGP-SESSION-DOWN",
     lambda r: edit(r / SPINE_A / "running-config", "   neighbor 10.11.0.1 description",
                    "   neighbor 10.11.0.1 maximum-routes 1\n   neighbor 10.11.0.1 description")),
    ("a TCP MD5 password on the leaf's end of a session only", "BGP-SESSION-DOWN",
     lambda r: edit(r / LEAF_A / "frr.conf", " neighbor 10.11.0.0 description",
                    " neighbor 10.11.0.0 password s3cret\n neighbor 10.11.0.0 description")),
    ("both ends of a session open from their loopbacks (update-source): neither connection is accepted",
     "BGP-SESSION-DOWN", lambda r: (edit(r / LEAF_A / "frr.conf", " neighbor 10.11.0.0 description",
                                         " neighbor 10.11.0.0 update-source lo\n neighbor 10.11.0.0 description"),
                                    _spine_neighbor(r, "update-source Loopback0"))),
    ("a leaf opens from its loopback toward a spine that waits passively", "BGP-SESSION-DOWN",
     lambda r: (edit(r / LEAF_A / "frr.conf", " neighbor 10.11.0.0 description",
                     " neighbor 10.11.0.0 update-source 10.10.0.32\n neighbor 10.11.0.0 description"),
                _spine_neighbor(r, "passive"))),
    ("both ends of a session wait passively", "BGP-SESSION-DOWN",
     lambda r: (edit(r / LEAF_A / "frr.conf", " neighbor 10.11.0.0 description",
                     " neighbor 10.11.0.0 passive\n neighbor 10.11.0.0 description"),
                edit(r / SPINE_A / "running-config", "   neighbor 10.11.0.1 description",
                     "   neighbor 10.11.0.1 passive\n   neighbor 10.11.0.1 description"))),
    ("a receive limit that also counts what the policy denies (force)", "CONFIG-UNMODELLED",
     lambda r: _leaf_af(r, "neighbor 10.11.0.0 maximum-prefix 100 force")),
    # measured on FRR 8.4: "% Invalid command. Not an internal neighbor", and vtysh -b exits 13
    ("a route-reflector client on an eBGP session (bgpd refuses the line)", "BGP-CONFIG-REFUSED",
     lambda r: _leaf_af(r, "neighbor 10.11.0.0 route-reflector-client")),
    ("a route-reflector client on an iBGP session (reflection is not modelled)", "CONFIG-UNMODELLED",
     lambda r: (edit(r / LEAF_A / "frr.conf", " neighbor 10.11.0.0 description",
                     " neighbor 10.11.0.200 remote-as internal\n neighbor 10.11.0.0 description"),
                _leaf_af(r, "neighbor 10.11.0.200 route-reflector-client"))),
    ("a shell line verify cannot judge", "HOST-UNMODELLED",
     lambda r: edit(r / "servers/gpu001/nccl.env", "NCCL_CROSS_NIC=0\n", "NCCL_CROSS_NIC=0\nexport PATH=$PATH:/opt/x\n")),
    ("NCCL told to read no topology file", "HOST-NCCL-TOPO",
     lambda r: edit_lines(r / "servers/gpu001/nccl.env", lambda line: line.startswith("NCCL_TOPO_FILE="))),
    ("the first NIC's PCIe link halved in the topology (`link_width=\"8\"`: NCCL takes the file's)", "HOST-NCCL-TOPO",
     lambda r: edit(r / "servers/gpu001/nccl-topo.xml", 'link_width="16"', 'link_width="8"')),
    ("the first NIC's PCIe link a generation down in the topology", "HOST-NCCL-TOPO",
     lambda r: edit(r / "servers/gpu001/nccl-topo.xml", 'link_speed="32.0 GT/s PCIe"', 'link_speed="16.0 GT/s PCIe"')),
    ("a CPU affinity written into the topology (NCCL takes it; not judged)", "HOST-UNMODELLED",
     lambda r: edit(r / "servers/gpu001/nccl-topo.xml", '<cpu numaid="0">', '<cpu numaid="0" affinity="0000ffff">')),
    ("a stanza for the server's front-end port in its fabric interfaces file", "HOST-FOREIGN-PORT",
     lambda r: (r / "servers/gpu001/interfaces").write_text((r / "servers/gpu001/interfaces").read_text()
                                                             + "\nauto eno1\niface eno1\n    address 10.99.0.1/24\n")),
    ("a post-up command taking the server's front-end port down", "HOST-FOREIGN-PORT",
     lambda r: edit(r / "servers/gpu001/interfaces", FIRST_RULE, FIRST_RULE + "    post-up ip link set eno1 down\n")),
    ("the topology file not deployed", "HOST-NCCL-TOPO", lambda r: (r / "servers/gpu017/nccl-topo.xml").unlink()),
    ("a topology file NCCL cannot parse", "HOST-NCCL-TOPO",
     lambda r: edit(r / "servers/gpu001/nccl-topo.xml", "</system>", "</sytem>")),
    ("a GPU missing from the topology", "HOST-NCCL-TOPO",
     lambda r: edit_lines(r / "servers/gpu001/nccl-topo.xml", lambda line: '"0000:1c:00.0"' in line)),
    ("a NIC under the other socket in the topology", "HOST-NCCL-TOPO",
     lambda r: edit(r / "servers/gpu017/nccl-topo.xml", '<cpu numaid="1">', '<cpu numaid="0">')),
    ("two NICs' RDMA devices swapped in the topology (same socket)", "HOST-NCCL-TOPO",
     lambda r: edit(r / "servers/gpu001/nccl-topo.xml", 'name="mlx5_0" dev="0"', 'name="mlx5_2" dev="0"')
     or edit(r / "servers/gpu001/nccl-topo.xml", 'name="mlx5_2" dev="2"', 'name="mlx5_0" dev="2"')),
    ("a GPU under another PCIe switch of its socket in the topology", "HOST-NCCL-TOPO",
     lambda r: edit(r / "servers/gpu001/nccl-topo.xml", '<pci busid="0000:1c:00.0" class="0x030200"/>\n', "")
     or edit(r / "servers/gpu001/nccl-topo.xml", '<pci busid="0000:3c:00.0" class="0x030200"/>\n',
             '<pci busid="0000:3c:00.0" class="0x030200"/>\n      <pci busid="0000:1c:00.0" class="0x030200"/>\n')),
    ("GPUDirect RDMA off for one net in the topology", "HOST-NCCL-TOPO",
     lambda r: edit(r / "servers/gpu001/nccl-topo.xml", 'speed="200000" gdr="1"', 'speed="200000" gdr="0"')),
    ("a net's NCCL device index changed in the topology", "HOST-NCCL-TOPO",
     lambda r: edit(r / "servers/gpu001/nccl-topo.xml", 'name="mlx5_3" dev="3"', 'name="mlx5_3" dev="5"')),
    ("a net named after a device the server lacks", "HOST-NCCL-TOPO",
     lambda r: edit(r / "servers/gpu001/nccl-topo.xml", 'name="mlx5_7"', 'name="mlx5_17"')),
    ("UCX over one plane's devices only", "HOST-NCCL-TRANSPORT",
     lambda r: edit(r / "servers/gpu001/nccl.env", "UCX_NET_DEVICES=mlx5_0:1,mlx5_1:1,", "UCX_NET_DEVICES=mlx5_0:1,")),
    ("a neighbor's route-map above its remote-as (bgpd refuses it)", "BGP-CONFIG-REFUSED",
     lambda r: edit(r / LEAF_A / "frr.conf", " neighbor 10.11.0.0 remote-as",
                    " neighbor 10.11.0.0 route-map PLANE-A-IN in\n neighbor 10.11.0.0 remote-as")),
    ("a /30 on an uplink makes the next uplink's address its broadcast", "BGP-SESSION-MISSING",
     lambda r: edit(r / LEAF_A / "interfaces", "address 10.11.0.1/31", "address 10.11.0.1/30")),
    ("UCX on a RoCEv1 GID", "HOST-NCCL-TRANSPORT",
     lambda r: edit(r / "servers/gpu001/nccl.env", "UCX_IB_GID_INDEX=3", "UCX_IB_GID_INDEX=1")),
    ("UCX in a class without PFC", "HOST-NCCL-TRANSPORT",
     lambda r: edit(r / "servers/gpu001/nccl.env", "UCX_IB_TRAFFIC_CLASS=104", "UCX_IB_TRAFFIC_CLASS=0")),
    ("UCX's devices named without their port (UCX matches `device:port` exactly: no RDMA port selected)",
     "HOST-NCCL-TRANSPORT",
     lambda r: edit(r / "servers/gpu001/nccl.env", "UCX_NET_DEVICES=mlx5_0:1,mlx5_1:1,mlx5_2:1,mlx5_3:1,mlx5_4:1,"
                    "mlx5_5:1,mlx5_6:1,mlx5_7:1", "UCX_NET_DEVICES=mlx5_0,mlx5_1,mlx5_2,mlx5_3,mlx5_4,mlx5_5,mlx5_6,"
                    "mlx5_7")),
    ("UCX's traffic class written in hex (UCX reads decimal digits only: 0)", "HOST-NCCL-TRANSPORT",
     lambda r: edit(r / "servers/gpu001/nccl.env", "UCX_IB_TRAFFIC_CLASS=104", "UCX_IB_TRAFFIC_CLASS=0x68")),
    ("UCX's GID index left to UCX (`auto`)", "HOST-NCCL-TRANSPORT",
     lambda r: edit(r / "servers/gpu001/nccl.env", "UCX_IB_GID_INDEX=3", "UCX_IB_GID_INDEX=auto")),
    ("a plane's HCA list naming the other plane's device", "HOST-NCCL-TRANSPORT",
     lambda r: edit(r / "servers/gpu017/nccl.env", "DUALRAIL_PLANE_A_HCA=mlx5_0:1", "DUALRAIL_PLANE_A_HCA=mlx5_4:1")),
    ("an IB plane's HCA swapped with the other plane's", "HOST-NCCL-TRANSPORT",
     lambda r: edit(r / "servers/gpu001/nccl.env", "DUALRAIL_IB_IBA_HCA=mlx5_8:1", "DUALRAIL_IB_IBA_HCA=mlx5_9:1")),
    ("an HCA entry naming a port the device does not have (each NIC port is its own device, port 1)", "HOST-NCCL-HCA",
     lambda r: edit(r / "servers/gpu001/nccl.env", "NCCL_IB_HCA==mlx5_0:1", "NCCL_IB_HCA==mlx5_0:2")),
    ("UCX told a port the device does not have", "HOST-NCCL-TRANSPORT",
     lambda r: edit(r / "servers/gpu001/nccl.env", "UCX_NET_DEVICES=mlx5_0:1", "UCX_NET_DEVICES=mlx5_0:2")),
    ("a default route in the main table through a fabric port (the front end's default replaced)", "HOST-FORWARDING",
     lambda r: edit(r / "servers/gpu001/interfaces", "    post-up ip route replace 10.10.0.0/24 via 10.12.0.0 dev ens1f0np0\n",
                    "    post-up ip route replace 10.10.0.0/24 via 10.12.0.0 dev ens1f0np0\n"
                    "    post-up ip route replace default via 10.12.0.0 dev ens1f0np0\n")),
    ("a QP timeout out of the verbs range", "HOST-NCCL-TRANSPORT",
     lambda r: edit(r / "servers/gpu001/nccl.env", "NCCL_IB_TIMEOUT=22", "NCCL_IB_TIMEOUT=40")),
    ("a QP timeout that gives up after 1 ms (a silently dead link costs the plane BGP's hold time)",
     "HOST-NCCL-TRANSPORT", lambda r: edit(r / "servers/gpu001/nccl.env", "NCCL_IB_TIMEOUT=22", "NCCL_IB_TIMEOUT=5")),
    ("QP retries cut to one at NCCL's old default timeout (2.1 s in all)", "HOST-NCCL-TRANSPORT",
     lambda r: (edit(r / "servers/gpu001/nccl.env", "NCCL_IB_TIMEOUT=22", "NCCL_IB_TIMEOUT=18"),
                edit(r / "servers/gpu001/nccl.env", "NCCL_IB_RETRY_CNT=7", "NCCL_IB_RETRY_CNT=1"))),
    ("NCCL bootstrapping over a fabric port", "HOST-NCCL-TRANSPORT",
     lambda r: edit(r / "servers/gpu001/nccl.env", "NCCL_SOCKET_IFNAME==eno1", "NCCL_SOCKET_IFNAME==ens1f0np0")),
    ("the NIC QoS unit runs another program", "HOST-NIC-QOS-UNIT",
     lambda r: edit(r / "servers/gpu001/dualrail-nic-qos.service", "ExecStart=/usr/local/sbin/dualrail-nic-qos",
                    "ExecStart=/bin/true")),
    ("the NIC QoS program's failure ignored (ExecStart=-...)", "HOST-NIC-QOS-UNIT",
     lambda r: edit(r / "servers/gpu001/dualrail-nic-qos.service", "ExecStart=/usr/local/sbin/dualrail-nic-qos",
                    "ExecStart=-/usr/local/sbin/dualrail-nic-qos")),
    ("a second command before the NIC QoS program", "HOST-NIC-QOS-UNIT",
     lambda r: edit(r / "servers/gpu001/dualrail-nic-qos.service", "ExecStart=/usr/local/sbin/dualrail-nic-qos",
                    "ExecStart=/bin/sh -c 'echo 0 > /sys/x'\nExecStart=/usr/local/sbin/dualrail-nic-qos")),
    ("the NIC QoS unit run only when a path exists (ConditionPathExists=)", "HOST-NIC-QOS-UNIT",
     lambda r: edit(r / "servers/gpu001/dualrail-nic-qos.service", "[Service]\n",
                    "ConditionPathExists=/etc/dualrail/enable-qos\n[Service]\n")),
    ("a command the unit runs first (ExecStartPre=: reported, not judged)", "HOST-UNMODELLED",
     lambda r: edit(r / "servers/gpu001/dualrail-nic-qos.service", "ExecStart=", "ExecStartPre=/bin/false\nExecStart=")),
    ("the NIC QoS program saved with CRLF line ends (`#!/bin/sh\\r`: it never runs)", "HOST-SHELL-TEXT",
     lambda r: crlf(r / "servers/gpu001/nic-qos.sh")),
    ("nccl.env saved with CRLF line ends (a sourcing shell keeps the CR in every value)", "HOST-SHELL-TEXT",
     lambda r: crlf(r / "servers/gpu001/nccl.env")),
    ("the NIC QoS unit not started at boot", "HOST-NIC-QOS-UNIT",
     lambda r: edit_lines(r / "servers/gpu001/dualrail-nic-qos.service", lambda line: line.startswith("WantedBy="))),
    ("the NIC QoS unit not deployed", "HOST-NIC-QOS-UNIT",
     lambda r: (r / "servers/gpu017/dualrail-nic-qos.service").unlink()),
    ("a second `vrf` line above a gateway port's own (ifupdown2 applies a stanza's first: plane B's port in "
     "plane A's VRF)", "ISO-FOREIGN-SUBNET",
     lambda r: edit(r / GW / "interfaces", "    address 10.23.0.1/31\n", "    address 10.23.0.1/31\n    vrf plane-a\n")),
    ("a second `mtu` line above a leaf uplink's own (ifupdown2 applies the first)", "QOS-MTU",
     lambda r: edit(r / LEAF_A / "interfaces", "    address 10.11.0.1/31\n", "    address 10.11.0.1/31\n    mtu 1500\n")),
    ("a server's rail rule taken back on its own line by the shell (`...; ip rule del ...`)", "HOST-FORWARDING",
     lambda r: edit(r / "servers/gpu001/interfaces", "    post-up ip rule add from 10.12.0.65 lookup 103 priority 103\n",
                    "    post-up ip rule add from 10.12.0.65 lookup 103 priority 103; ip rule del from 10.12.0.65\n")),
    ("a server's rail route deleted by a later post-up (`ip route del default table 103`)", "HOST-FORWARDING",
     lambda r: edit(r / "servers/gpu001/interfaces", "    pre-down ip rule del from 10.12.0.65 lookup 103 priority 103\n",
                    "    pre-down ip rule del from 10.12.0.65 lookup 103 priority 103\n"
                    "    post-up ip route del default table 103\n")),
    ("a copy of a leaf's frr.conf kept beside it (neither verified nor deployed)", "BUILD-FOREIGN-FILE",
     lambda r: (r / LEAF_A / "frr.conf.orig").write_text((r / LEAF_A / "frr.conf").read_text())),
    ("a device folder the plan does not have, with a config in it", "BUILD-FOREIGN-FILE",
     lambda r: ((r / "plane-A" / "a-leaf-su9-r0").mkdir(), (r / "plane-A" / "a-leaf-su9-r0" / "frr.conf")
                .write_text((r / LEAF_A / "frr.conf").read_text()))),
    ("an EOS spine on the ribd routing model (verify reads BGP as the multi-agent model does: said so)",
     "CONFIG-UNMODELLED",
     lambda r: edit(r / SPINE_A / "running-config", "model multi-agent", "model ribd")),
    ("an EOS spine port bound to an access list nobody defined (not judged: said so)", "CONFIG-UNMODELLED",
     lambda r: edit(r / SPINE_A / "running-config", "   ip address 10.11.0.0/31\n",
                    "   ip address 10.11.0.0/31\n   ip access-group NO-ROCE in\n")),
    ("the RoCE traffic class unset again further down nccl.env", "HOST-NCCL-TC",
     lambda r: edit(r / "servers/gpu001/nccl.env", "NCCL_IB_TC=104\n", "NCCL_IB_TC=104\nunset NCCL_IB_TC\n")),
    ("UCX's traffic class taken from a variable nccl.env sets to another class", "HOST-NCCL-TRANSPORT",
     lambda r: edit(r / "servers/gpu001/nccl.env", "UCX_IB_TRAFFIC_CLASS=104", "UCX_IB_TRAFFIC_CLASS=${NCCL_IB_GID_INDEX}")),
    ("a topology element NCCL does not have", "HOST-UNMODELLED",
     lambda r: edit(r / "servers/gpu001/nccl-topo.xml", "<nic>", "<nic>\n<port speed=\"1\"/>", 1)),
]


WARNING_CHECKS = {"ROUTE-DEAD-NETWORK", "ROUTE-DEAD-POLICY", "BGP-PREFIX-LIMIT", "BUILD-FOREIGN-FILE", "BGP-ASN-PLAN"}  # harmless until proven (or until the next change): warnings


def test_clean_example_has_zero_findings(clean: Path) -> None:
    results = run_checks(load_snapshot(clean))
    assert {r.check for r in results} == {spec.id for spec in REGISTRY}
    findings = [f.to_dict() for r in results for f in r.findings]
    assert findings == []


@pytest.mark.parametrize("desc,check_id,mutate", MUTATIONS, ids=[m[0] for m in MUTATIONS])
def test_mutation_is_caught(clean: Path, tmp_path: Path, desc: str, check_id: str,
                            mutate: Callable[[Path], None]) -> None:
    broken = tmp_path / "build"
    shutil.copytree(clean, broken)
    mutate(broken)
    results = {r.check: r for r in run_checks(load_snapshot(broken))}
    # an UNMODELLED check reports what verify could not judge: a warning, by design
    wanted = {"error", "warning"} if check_id.endswith("-UNMODELLED") or check_id in WARNING_CHECKS else {"error"}
    fired = [f for f in results[check_id].findings if f.severity.value in wanted]
    assert fired, f"{desc}: {check_id} did not fire; fired instead: " + \
        str({c: [f.message for f in r.findings] for c, r in results.items() if r.findings})
    assert all(f.message and f.why for f in fired)


def _unindent(r: Path) -> None:
    for path in r.rglob("frr.conf"):
        path.write_text("\n".join(line.strip() for line in path.read_text().splitlines()) + "\n")


def _peer_group(r: Path) -> None:
    """The leaf's four spine neighbors as one peer-group carrying ASN and route-maps."""
    path = r / LEAF_A / "frr.conf"
    text = path.read_text()
    for spine in ("10.11.0.0", "10.11.0.2", "10.11.0.4", "10.11.0.6"):
        text = text.replace(f" neighbor {spine} remote-as 4200001000\n", f" neighbor {spine} peer-group SPINES\n")
        text = text.replace(f"  neighbor {spine} route-map PLANE-A-IN in\n", "")
        text = text.replace(f"  neighbor {spine} route-map LOCAL-A-OUT out\n", "")
    text = text.replace(" bgp router-id 10.10.0.32\n", " bgp router-id 10.10.0.32\n neighbor SPINES peer-group\n"
                        " neighbor SPINES remote-as external\n")
    text = text.replace("  maximum-paths 64\n", "  neighbor SPINES route-map PLANE-A-IN in\n"
                        "  neighbor SPINES route-map LOCAL-A-OUT out\n  maximum-paths 64\n")
    path.write_text(text)


def _dynamic_leaf(r: Path, listen: str = "10.11.0.0/29", group_lines: str = " neighbor SPINES remote-as external\n",
                  extra: str = "") -> None:
    """The leaf's four spine neighbors dropped for a listen range (FRR dynamic neighbors): the
    spines, which keep naming the leaf, connect and become members of SPINES."""
    path = r / LEAF_A / "frr.conf"
    text = path.read_text()
    for spine in ("10.11.0.0", "10.11.0.2", "10.11.0.4", "10.11.0.6"):
        text = "".join(line for line in text.splitlines(keepends=True) if f"neighbor {spine} " not in line)
    text = text.replace(" bgp router-id 10.10.0.32\n", " bgp router-id 10.10.0.32\n neighbor SPINES peer-group\n"
                        + group_lines + f" bgp listen range {listen} peer-group SPINES\n" + extra)
    text = text.replace("  maximum-paths 64\n", "  neighbor SPINES route-map PLANE-A-IN in\n"
                        "  neighbor SPINES route-map LOCAL-A-OUT out\n  maximum-paths 64\n")
    path.write_text(text)


def _eos_as_path_match(r: Path, lines: list[str]) -> None:
    """The EOS spine's PLANE-A-IN also matches AS-path list FABRIC, made of ``lines``."""
    path = r / SPINE_A / "running-config"
    text = path.read_text().replace("router bgp", "\n".join(lines) + "\n!\nrouter bgp", 1)
    rm = "route-map PLANE-A-IN permit 10\n   match ip address prefix-list PLANE-A\n"
    assert rm in text
    path.write_text(text.replace(rm, rm + "   match as-path FABRIC\n", 1))


def _dynamic_spine(r: Path, how: str, peer_filter: str | None = None) -> None:
    """The EOS spine's eight leaf neighbors dropped for a listen range of peer group LEAVES (EOS
    dynamic neighbors: the range says the peers' AS, ``how``: `remote-as N` or `peer-filter F`,
    with ``peer_filter`` the filter's entries); the leaves keep naming the spine and connect."""
    path = r / SPINE_A / "running-config"
    text = "".join(line for line in path.read_text().splitlines(keepends=True)
                   if not re.match(r"   neighbor 10\.11\.[01]\.\d+ ", line))
    text = text.replace("   maximum-paths 64 ecmp 64\n", "   maximum-paths 64 ecmp 64\n   neighbor LEAVES peer group\n"
                        "   neighbor LEAVES route-map PLANE-A-IN in\n   neighbor LEAVES route-map PLANE-A-OUT out\n"
                        f"   bgp listen range 10.11.0.0/23 peer group LEAVES {how}\n", 1)
    if peer_filter is not None:
        text = text.replace("router bgp", f"peer-filter LEAF-AS\n{peer_filter}!\nrouter bgp", 1)
    path.write_text(text)


def _gateway_listens(r: Path, dropped: tuple[str, ...], group: str, asn: int, listen: str, maps: tuple[str, str]) -> None:
    """The gateway's plane-A VRF takes the peers at ``dropped`` by a listen range of ``group`` (its
    route-maps in and out: ``maps``) instead of naming them (they keep naming the gateway)."""
    path = r / GW / "frr.conf"
    text = path.read_text()
    for address in dropped:
        text = "".join(line for line in text.splitlines(keepends=True) if f"neighbor {address} " not in line)
    text = text.replace(" bgp router-id 10.10.0.92\n", f" bgp router-id 10.10.0.92\n neighbor {group} peer-group\n"
                        f" neighbor {group} remote-as {asn}\n bgp listen range {listen} peer-group {group}\n")
    text = text.replace("  network 10.10.0.92/32\n", f"  network 10.10.0.92/32\n  neighbor {group} route-map {maps[0]} in\n"
                        f"  neighbor {group} route-map {maps[1]} out\n")
    path.write_text(text)


def _dynamic_gateway(r: Path) -> None:
    """The gateway's four spines of plane A (in their default VRF) taken by a listen range."""
    _gateway_listens(r, ("10.13.0.0", "10.13.0.8", "10.13.0.16", "10.13.0.24"), "SPINES", 4200001000, "10.13.0.0/27",
                     ("PLANE-A-IN", "LOCAL-A-OUT"))


def _dynamic_external(r: Path) -> None:
    """The gateway's storage peer of plane A (planned, not rendered) taken by a listen range."""
    _gateway_listens(r, ("100.64.0.1",), "STORAGE", 65100, "100.64.0.0/31", ("EXTERNAL-A-IN", "EXTERNAL-A-OUT"))


def _netmask(r: Path) -> None:
    """The leaf's first uplink address written with ifupdown2's netmask attribute instead of /31."""
    edit(r / LEAF_A / "interfaces", "    address 10.11.0.1/31\n", "    address 10.11.0.1\n    netmask 255.255.255.254\n")


def _drop_port_rp_filter(path: Path) -> None:
    """The per-port rp_filter lines removed (each port then holds the default, 1 taken as strict)."""
    path.write_text("".join(line for line in path.read_text().splitlines(keepends=True)
                            if not (".rp_filter" in line and ".all." not in line)))


def _leaf_clause(root: Path, route_map: str, clause: str, before: str = "") -> None:
    """One more clause in the leaf's route-map ROUTE_MAP (entry 10, which matches its prefix-list),
    with ``before`` (a definition) above the route-map."""
    head = f"route-map {route_map} permit 10\n"
    text = (root / LEAF_A / "frr.conf").read_text()
    start = text.index(head)
    end = text.index("\n", start + len(head)) + 1  # after the entry's match line
    (root / LEAF_A / "frr.conf").write_text(text[:start] + before + text[start:end] + f" {clause}\n" + text[end:])


def _leaf_acl(root: Path, definitions: str, name: str) -> None:
    """The leaf's inbound route-map matches access list NAME (``definitions``) in place of its
    prefix-list PLANE-A (which goes: it would be matched by nothing)."""
    path = root / LEAF_A / "frr.conf"
    lines = [line for line in path.read_text().splitlines(keepends=True) if not line.startswith("ip prefix-list PLANE-A ")]
    text = "".join(lines).replace(" match ip address prefix-list PLANE-A\n", f" match ip address {name}\n", 1)
    path.write_text(text.replace("route-map PLANE-A-IN permit 10\n", definitions + "route-map PLANE-A-IN permit 10\n", 1))


# the leaf's plane-A prefix-list as an access list, zebra-style (prefixes) and cisco-style (wildcards)
ZEBRA_ACL = ("access-list PA seq 10 permit 10.10.0.0/24\naccess-list PA seq 20 permit 10.12.0.0/20\n"
             "access-list PA seq 30 permit 172.16.0.0/16\n")
CISCO_ACL = ("access-list 10 permit 10.10.0.0 0.0.0.255\naccess-list 10 permit 10.12.0.0 0.0.15.255\n"
             "access-list 10 permit 172.16.0.0 0.0.255.255\n")


def _leaf_distribute(root: Path, statement: str, definitions: str = "") -> None:
    """A statement for the leaf's session to a-spine-1 (10.11.0.0) in its address family, with
    ``definitions`` (access lists) above ``router bgp``."""
    _leaf_af(root, statement)
    if definitions:
        edit(root / LEAF_A / "frr.conf", "router bgp 4200001100\n", definitions + "router bgp 4200001100\n")


def _spine_neighbor(root: Path, statement: str) -> None:
    """One more statement for the EOS spine's neighbor a-leaf-su1-r0 (10.11.0.1)."""
    edit(root / SPINE_A / "running-config", "   neighbor 10.11.0.1 route-map PLANE-A-OUT out\n",
         f"   neighbor 10.11.0.1 route-map PLANE-A-OUT out\n   neighbor 10.11.0.1 {statement}\n")


VALID_EDITS: list[tuple[str, Callable[[Path], None]]] = [
    # EOS keeps an address typed on a switchport ("! IP configuration will be ignored while interface
    # EthernetN is not a routed port.") and uses it once `no switchport` follows in the block
    ("EOS `ip address` above `no switchport` in a fabric port's block (EOS keeps it until the port is routed)",
     lambda r: edit(r / SPINE_A / "running-config", "   no switchport\n   ip address 10.11.0.0/31\n",
                    "   ip address 10.11.0.0/31\n   no switchport\n")),
    ("EOS LLDP off then on again on a fabric port, and off on the management port",
     lambda r: edit_each(r / SPINE_A / "running-config", "      priority strict\n!\ninterface Ethernet2\n",
                         "      priority strict\n   no lldp receive\n   lldp receive\n!\ninterface Ethernet2\n",
                         "   ip address 198.51.100.1/24\n", "   ip address 198.51.100.1/24\n   no lldp transmit\n")),
    ("the NICs' PCIe links left out of the topology file (NCCL detects them)",
     lambda r: edit(r / "servers/gpu001/nccl-topo.xml", ' link_speed="32.0 GT/s PCIe" link_width="16"', "", count=4)),
    ("EOS: the planned SSH key written again, and as the secondary key too (one key in both slots)",
     lambda r: edit(r / SPINE_A / "running-config", NETOPS_KEY,
                    NETOPS_KEY + NETOPS_KEY + NETOPS_KEY.replace("ssh-key ", "ssh-key secondary "))),
    ("EOS: the planned SSH key's comment changed or dropped (sshd matches type and body)",
     lambda r: edit(r / SPINE_A / "running-config", " netops@example\n", "\n")),
    ("EOS SSH and eAPI on their own ports said aloud (`server-port 22`, `protocol https port 443`, `protocol http`)",
     lambda r: edit_each(r / SPINE_A / "running-config", "management ssh\n", "management ssh\n   server-port 22\n",
                         "management api http-commands\n",
                         "management api http-commands\n   protocol https port 443\n   protocol http\n")),
    ("a blackhole in the management VRF for a network no planned server is on, and a floating one over theirs",
     lambda r: edit(r / SPINE_A / "running-config", "\nend\n", "\nip route vrf mgmt 203.0.113.0/24 Null0\n"
                    "ip route vrf mgmt 192.0.2.0/24 Null0 255\nend\n")),
    ("EOS `nopassword` on the administrator, then its secret again (EOS keeps the later of the two)",
     lambda r: edit(r / SPINE_A / "running-config", "\nend\n",
                    "\nusername netops nopassword\nusername netops secret sha512 ${secret:netops-password}\nend\n")),
    ("a leaf's post-up route to a prefix of no plane via a spine (a kernel route beside BGP's)",
     lambda r: edit(r / LEAF_A / "interfaces", "    alias a-spine-1:Ethernet1\n",
                    "    alias a-spine-1:Ethernet1\n    post-up ip route add 192.0.2.128/25 via 10.11.0.0\n")),
    ("EOS RoCE queue shaped at or above its planned share, another queue shaped, a shape taken back",
     lambda r: (edit(r / SPINE_A / "running-config", "      bandwidth percent 50\n",
                     "      bandwidth percent 50\n      shape rate 50 percent\n", count=1),
                edit(r / SPINE_A / "running-config", "   tx-queue 6\n      priority strict\n",
                     "   tx-queue 6\n      priority strict\n      shape rate 5 percent\n", count=1),
                edit(r / SPINE_A / "running-config", "      bandwidth percent 50\n",
                     "      bandwidth percent 50\n      shape rate 5 percent\n      no shape rate\n"))),
    ("EOS secondary address added, then removed by `no ip address A/L secondary` (the primary stays)",
     lambda r: edit(r / SPINE_A / "running-config", "   ip address 10.11.0.0/31\n",
                    "   ip address 10.11.0.0/31\n   ip address 10.99.0.1/31 secondary\n"
                    "   no ip address 10.99.0.1 255.255.255.254 secondary\n")),
    ("a VLAN sub-interface on a leaf's uplink (it takes its parent port's queues and MTU)",
     lambda r: edit(r / LEAF_A / "interfaces", "auto swp33\n",
                    "auto swp33.100\niface swp33.100\n    address 10.99.0.1/31\n\nauto swp33\n")),
    ("EOS `default shutdown` under a spine's router bgp (not shut: EOS's default)",
     lambda r: edit(r / SPINE_A / "running-config", "   network 10.10.0.0/32\n",
                    "   network 10.10.0.0/32\n   default shutdown\n")),
    ("EOS `no bgp bestpath as-path multipath-relax` then `default ...` (EOS's default: relaxed)",
     lambda r: edit(r / SPINE_A / "running-config", "   network 10.10.0.0/32\n",
                    "   network 10.10.0.0/32\n   no bgp bestpath as-path multipath-relax\n"
                    "   default bgp bestpath as-path multipath-relax\n")),
    ("EOS `no lldp run` then `default lldp run` (EOS runs LLDP by default)",
     lambda r: edit(r / SPINE_A / "running-config", "lldp run\n", "no lldp run\ndefault lldp run\n")),
    ("NCCL_IB_TC in hex and NCCL_IB_GID_INDEX in octal (NCCL reads its numbers with strtoll, base 0)",
     lambda r: edit_each(r / "servers/gpu001/nccl.env", "NCCL_IB_TC=104", "NCCL_IB_TC=0x68",
                         "NCCL_IB_GID_INDEX=3", "NCCL_IB_GID_INDEX=03")),
    ("NCCL_IB_TIMEOUT in hex (NCCL's strtoll reads 0x16 as 22)",
     lambda r: edit(r / "servers/gpu001/nccl.env", "NCCL_IB_TIMEOUT=22", "NCCL_IB_TIMEOUT=0x16")),
    ("EOS `default qos trust` on a spine's routed port (its default: dscp)",
     lambda r: edit(r / SPINE_A / "running-config", "   qos trust dscp\n", "   default qos trust\n")),
    ("EOS `no qos trust` then `qos trust dscp` on a spine port (the last line decides)",
     lambda r: edit(r / SPINE_A / "running-config", "   qos trust dscp\n", "   no qos trust\n   qos trust dscp\n")),
    ("EOS `bgp missing-policy` deny both ways on a spine whose neighbors all have both route-maps",
     lambda r: _missing_policy(r, "   bgp missing-policy direction in action deny\n"
                                  "   bgp missing-policy direction out action deny-in-out\n")),
    ("EOS missing-policy deny in, and `permit` for the one neighbor without a route-map in",
     lambda r: _missing_policy(r, "   bgp missing-policy direction in action deny\n"
                                  "   neighbor 10.11.0.1 missing-policy direction in action permit\n",
                               drop="   neighbor 10.11.0.1 route-map PLANE-A-IN in\n")),
    ("EOS missing-policy deny under `router bgp`, `permit` under its `address-family ipv4`",
     lambda r: _missing_policy(r, "   bgp missing-policy direction in action deny\n",
                               af="      bgp missing-policy direction in action permit\n",
                               drop="   neighbor 10.11.0.1 route-map PLANE-A-IN in\n")),
    ("EOS missing-policy deny taken back by `no bgp missing-policy direction in`",
     lambda r: _missing_policy(r, "   bgp missing-policy direction in action deny\n"
                                  "   no bgp missing-policy direction in\n",
                               drop="   neighbor 10.11.0.1 route-map PLANE-A-IN in\n")),
    ("EOS `missing-policy direction in action deny-in-out` where a neighbor lacks only its route-map out",
     lambda r: _missing_policy(r, "   bgp missing-policy direction in action deny-in-out\n",
                               drop="   neighbor 10.11.0.1 route-map PLANE-A-OUT out\n")),
    ("an EOS spine's in-policy matching an AS-path list of every leaf's and the gateway's AS",
     lambda r: _eos_as_path_match(r, ["ip as-path access-list FABRIC deny _65000_ any",
                                      "ip as-path access-list FABRIC permit ^4200001[0-9]+$ any",
                                      "ip as-path access-list FABRIC permit ^4200000100_"])),  # (and storage's AS behind it)
    ("an EOS spine taking its leaves by a listen range whose peer-filter accepts their ASes",
     lambda r: _dynamic_spine(r, "peer-filter LEAF-AS", "   match as-range 4200001100-4200001103 result accept\n"
                                                        "   match as-range 4200001104-4200001107 result accept\n")),
    ("an EOS spine's listen range whose peer-filter has no entries (every AS)",
     lambda r: _dynamic_spine(r, "peer-filter LEAF-AS", "")),
    ("a leaf's server port's address written twice (ifupdown2 adds it once)", lambda r: edit(
        r / LEAF_A / "interfaces", "    address 10.12.0.0/31\n", "    address 10.12.0.0/31\n    address 10.12.0.0/31\n")),
    ("an address added to a later stanza's port by an earlier post-up (the later stanza purges it)", lambda r: edit(
        r / LEAF_A / "interfaces", "    address 10.12.0.0/31\n",
        "    address 10.12.0.0/31\n    post-up ip addr add 10.12.0.4/31 dev swp2\n")),
    ("EOS `bgp default ipv4-unicast` and graceful-restart timers written out", lambda r: edit(
        r / SPINE_A / "running-config", "   timers bgp 3 9\n",
        "   timers bgp 3 9\n   bgp default ipv4-unicast\n   graceful-restart restart-time 300\n")),
    # an import between the plane VRFs whose route-map lets nothing through (bgpd applies it to
    # every route leaked in) or that the exporter's `route-map vpn export` stops: nothing crosses
    ("a VRF import between planes through a deny-all route-map", lambda r: edit_each(
        r / GW / "frr.conf", "  network 10.20.0.92/32\n",
        "  network 10.20.0.92/32\n  import vrf plane-a\n  import vrf route-map NOTHING\n",
        "\nend", "\nroute-map NOTHING deny 10\nexit\n!\nend")),
    ("a VRF import whose exporter's vpn export map lets nothing out", lambda r: edit_each(
        r / GW / "frr.conf", "  network 10.20.0.92/32\n", "  network 10.20.0.92/32\n  import vrf plane-a\n",
        "  network 10.10.0.92/32\n", "  network 10.10.0.92/32\n  route-map vpn export NOTHING\n",
        "\nend", "\nroute-map NOTHING deny 10\nexit\n!\nend")),
    ("`no bgp default ipv4-unicast` below a leaf's neighbors (bgpd activated each when it created it: "
     "measured on FRR 8.4)",
     lambda r: edit(r / LEAF_A / "frr.conf", " neighbor 10.11.0.6 remote-as 4200001000\n",
                    " neighbor 10.11.0.6 remote-as 4200001000\n no bgp default ipv4-unicast\n")),
    ("EOS `router bgp` repeated: a neighbor shut, then `no neighbor X shutdown` (the blocks merge; the "
     "session is back)",
     lambda r: edit(r / SPINE_A / "running-config", "\nend\n", "\nrouter bgp 4200001000\n   neighbor 10.11.0.1 shutdown\n"
                    "!\nrouter bgp 4200001000\n   no neighbor 10.11.0.1 shutdown\nend\n")),
    ("a leaf's inbound route-map taken back (`no neighbor X route-map M in`: the spines send only the plane)",
     lambda r: edit(r / LEAF_A / "frr.conf", "  maximum-paths 64\n",
                    "  maximum-paths 64\n  no neighbor 10.11.0.0 route-map PLANE-A-IN in\n")),
    ("EOS's `neighbor default send-community` on a spine (every neighbor's default, not a neighbor)",
     lambda r: edit(r / SPINE_A / "running-config", "   timers bgp 3 9\n", "   timers bgp 3 9\n   neighbor default send-community\n")),
    ("UCX's GID index and traffic class taken from NCCL's variables in nccl.env (`$NAME`, `${NAME}`)",
     lambda r: (edit(r / "servers/gpu001/nccl.env", "UCX_IB_TRAFFIC_CLASS=104", "UCX_IB_TRAFFIC_CLASS=$NCCL_IB_TC"),
                edit(r / "servers/gpu001/nccl.env", "UCX_IB_GID_INDEX=3", 'UCX_IB_GID_INDEX="${NCCL_IB_GID_INDEX}"'))),
    ("a server's rules and routes in shell forms (`true &&`, a comment, a redirection, `sh -c`, `$IFACE`, "
     "a continued line)",
     lambda r: (edit(r / "servers/gpu001/interfaces", "    post-up ip rule add from 10.12.0.65 lookup 103 priority 103\n",
                     "    post-up true && ip rule add from 10.12.0.65 lookup 103 priority 103 # rail 1\n"),
                edit(r / "servers/gpu001/interfaces", "    post-up ip rule add from 10.12.0.1 lookup 101 priority 101\n",
                     "    post-up sh -c 'ip rule add from 10.12.0.1 lookup 101 priority 101' 2>/dev/null\n"),
                edit(r / "servers/gpu001/interfaces", "    post-up ip route replace default via 10.12.0.64 dev ens2f0np0 "
                     "table 103\n", "    post-up ip route replace default via 10.12.0.64 \\\n        dev $IFACE table 103\n"))),
    ("every auto line of a leaf's interfaces as one `auto all`",
     lambda r: (edit_lines(r / LEAF_A / "interfaces", lambda line: line.startswith("auto ")),
                edit(r / LEAF_A / "interfaces", "iface lo inet loopback\n", "auto all\niface lo inet loopback\n"))),
    ("a leaf's blackhole written with an address and a netmask",
     lambda r: edit(r / LEAF_A / "frr.conf", "ip route 10.12.0.0/26 blackhole\n", "ip route 10.12.0.0 255.255.255.192 Null0\n")),
    ("a leaf's network statement written with an address and a mask",
     lambda r: edit(r / LEAF_A / "frr.conf", "  network 10.12.0.0/26\n", "  network 10.12.0.0 mask 255.255.255.192\n")),
    ("a server's sysctl lines with a leading '-' and one glob for every port's rp_filter",
     lambda r: (edit(r / "servers/gpu001/sysctl.conf", "net.ipv4.conf.all.arp_ignore = 1", "-net.ipv4.conf.all.arp_ignore = 1"),
                edit_lines(r / "servers/gpu001/sysctl.conf", lambda line: ".rp_filter" in line),
                edit(r / "servers/gpu001/sysctl.conf", "-net.ipv4", "net.ipv4.conf.*.rp_filter = 2\n-net.ipv4"))),
    ("a second plan line for one NIC port that says the same, and NCCL's path levels left open",
     lambda r: (edit(r / "servers/gpu001/nic-qos.sh", "port ens1f0np0 mlx5_0 mtu=9214 trust=dscp pfc=3 ecn=3 cnp_dscp=48 cnp_prio=6 roce_tos=104\n", "port ens1f0np0 mlx5_0 mtu=9214 trust=dscp pfc=3 ecn=3 cnp_dscp=48 cnp_prio=6 roce_tos=104\nport ens1f0np0 mlx5_0 mtu=9214 trust=dscp pfc=3 ecn=3 cnp_dscp=48 cnp_prio=6 roce_tos=104\n"),
                edit(r / "servers/gpu001/nccl.env", "NCCL_CROSS_NIC=0", "NCCL_CROSS_NIC=0\nNCCL_NET_GDR_LEVEL=PHB\nNCCL_P2P_LEVEL=NVL"))),
    ("a leaf uplink's forwarding said on (its default), and turned off then on again by sysctl",
     lambda r: edit(r / LEAF_A / "interfaces", "    address 10.11.0.1/31\n",
                    "    address 10.11.0.1/31\n    ip-forward on\n    post-up sysctl -w net.ipv4.conf.swp33.forwarding=0\n"
                    "    post-up sysctl -w net.ipv4.conf.swp33.forwarding=1\n")),
    ("a zebra interface block in a leaf's frr.conf: described, link-detect, shut and brought back",
     lambda r: edit(r / LEAF_A / "frr.conf", "\nend\n",
                    "\ninterface swp33\n description uplink\n link-detect\n shutdown\n no shutdown\nexit\nend\n")),
    ("a deny added to a leaf's prefix-list without seq (numbered after the permit: 25)",
     lambda r: edit(r / LEAF_A / "frr.conf", "ip prefix-list LOCAL-A seq 20 permit 10.12.0.0/26\n",
                    "ip prefix-list LOCAL-A seq 20 permit 10.12.0.0/26\nip prefix-list LOCAL-A deny 10.12.0.0/26\n")),
    ("a leaf's outbound route-map entry re-entered to set MED 0",
     lambda r: edit(r / LEAF_A / "frr.conf", "\nend\n", "\nroute-map LOCAL-A-OUT permit 10\n set metric 0\nexit\nend\n")),
    ("EOS `default qos trust` after `qos trust dscp` on a routed port (DSCP, its default there)",
     lambda r: edit(r / SPINE_A / "running-config", "   qos trust dscp\n", "   qos trust dscp\n   default qos trust\n", 1)),
    ("an EOS route-map entry without its sequence number (EOS takes 10)",
     lambda r: edit(r / SPINE_A / "running-config", "route-map PLANE-A-IN permit 10\n", "route-map PLANE-A-IN permit\n")),
    ("a leaf in `bgp max-med administrative` (each spine hears its prefixes from it alone)",
     lambda r: edit(r / LEAF_A / "frr.conf", " bgp router-id 10.10.0.32\n",
                    " bgp router-id 10.10.0.32\n bgp max-med administrative\n")),
    ("a leaf's frr.conf in FRR's short words (`net`, `nei X route-m`, `addr ipv4 uni`)",
     lambda r: (edit(r / LEAF_A / "frr.conf", "  network 10.12.0.0/26\n", "  net 10.12.0.0/26\n"),
                edit(r / LEAF_A / "frr.conf", "  neighbor 10.11.0.0 route-map PLANE-A-IN in\n",
                     "  nei 10.11.0.0 route-m PLANE-A-IN in\n"),
                edit(r / LEAF_A / "frr.conf", " address-family ipv4 unicast\n", " addr ipv4 uni\n"),
                edit(r / LEAF_A / "frr.conf", "ip route 10.12.0.0/26 blackhole\n", "ip ro 10.12.0.0/26 black\n"))),
    ("an EOS port's lines repeated in a block for a port list (`interface Et1,Et2`)",
     lambda r: edit(r / SPINE_A / "running-config", "interface Ethernet1\n",
                    "interface Et1,Et2\n   load-interval 5\n!\ninterface Ethernet1\n")),
    ("an EOS login banner whose text reads like commands (the text up to EOF configures nothing); FRR's agentx",
     lambda r: (edit(r / SPINE_A / "running-config", "lldp run\n", "lldp run\nbanner login\nauthorized access only\n"
                     "interface Ethernet1\n   shutdown\nno ip routing\nEOF\n"),
                edit(r / LEAF_A / "frr.conf", "service integrated-vtysh-config\n",
                     "service integrated-vtysh-config\nagentx\n"))),
    ("an EOS list on the management port that lets the management network in",
     lambda r: edit(r / SPINE_A / "running-config", "   vrf mgmt\n   ip address 198.51.100.1/24\n",
                    "   vrf mgmt\n   ip address 198.51.100.1/24\n   ip access-group MGMT-IN in\n!\nip access-list MGMT-IN\n"
                    "   10 permit tcp 198.51.100.0/24 any eq ssh\n   20 permit ip any any\n")),
    ("an EOS spine's BGP logs neighbor changes, breaks ties by router-id and helps graceful restarts",
     lambda r: edit(r / SPINE_A / "running-config", "   router-id 10.10.0.0\n",
                    "   router-id 10.10.0.0\n   bgp log-neighbor-changes\n   bgp bestpath tie-break router-id\n"
                    "   graceful-restart-helper\n")),
    ("NCCL's and UCX's traffic class 106 (DSCP 26 with ECT(0): the ECN bits are not the class)",
     lambda r: (edit(r / "servers/gpu001/nccl.env", "NCCL_IB_TC=104", "NCCL_IB_TC=106"),
                edit(r / "servers/gpu001/nccl.env", "UCX_IB_TRAFFIC_CLASS=104", "UCX_IB_TRAFFIC_CLASS=106"))),
    ("UCX's GID index with a leading zero (decimal to UCX) and its traffic class left to its default (106 on "
     "RoCEv2: DSCP 26)",
     lambda r: (edit(r / "servers/gpu001/nccl.env", "UCX_IB_GID_INDEX=3", "UCX_IB_GID_INDEX=03"),
                edit(r / "servers/gpu001/nccl.env", "UCX_IB_TRAFFIC_CLASS=104\n", ""))),
    ("NCCL's HCA list as prefixes (no mlx5_1x on the server: each entry matches one device)",
     lambda r: edit(r / "servers/gpu001/nccl.env", "NCCL_IB_HCA==", "NCCL_IB_HCA=")),
    ("NCCL's HCA list as the InfiniBand HCAs left out (every RoCE device used)",
     lambda r: edit(r / "servers/gpu002/nccl.env", "NCCL_IB_HCA==mlx5_0:1,mlx5_1:1,mlx5_2:1,mlx5_3:1,mlx5_4:1,"
                    "mlx5_5:1,mlx5_6:1,mlx5_7:1", "NCCL_IB_HCA=^mlx5_8,mlx5_9")),
    ("post-up commands that take a port down and bring it up again, and set the MTU it has",
     lambda r: (edit(r / LEAF_A / "interfaces", "    address 10.12.0.0/31\n",
                     "    address 10.12.0.0/31\n    post-up ip link set swp1 down\n    post-up ip link set swp1 up\n"
                     "    post-up ip link set dev swp1 mtu 9214\n"),
                edit(r / "servers/gpu001/interfaces", "    address 10.12.0.65/31\n",
                     "    address 10.12.0.65/31\n    post-up ip link set dev ens2f0np0 up\n"))),
    ("a leaf's session to its first spine with ebgp-multihop 2, disable-connected-check and the extended-nexthop "
     "capability (between connected ends nothing changes); a vty block with a timeout",
     lambda r: (edit(r / LEAF_A / "frr.conf", " neighbor 10.11.0.0 description",
                     " neighbor 10.11.0.0 ebgp-multihop 2\n neighbor 10.11.0.0 disable-connected-check\n"
                     " neighbor 10.11.0.0 capability extended-nexthop\n neighbor 10.11.0.0 description"),
                edit(r / LEAF_A / "frr.conf", "log syslog informational\n",
                     "log syslog informational\nline vty\n exec-timeout 0 0\n access-class VTY\nexit\n"))),
    ("an EOS spine's local logging and clock settings",
     lambda r: edit(r / SPINE_A / "running-config", "lldp run\n",
                    "lldp run\nlogging buffered 10000\nlogging console errors\nclock timezone UTC\n")),
    ("the gateway sends plane A's storage peer the plane's prefixes through a list of its own (the loopbacks and "
     "server subnets)", lambda r: edit(r / GW / "frr.conf", "route-map EXTERNAL-A-OUT permit 10\n match ip address "
                                       "prefix-list PLANE-A\n", "ip prefix-list OWN-A seq 5 permit 10.10.0.0/24 le 32\n"
                                       "ip prefix-list OWN-A seq 10 permit 10.12.0.0/20 le 26\n!\n"
                                       "route-map EXTERNAL-A-OUT permit 10\n match ip address prefix-list OWN-A\n")),
    ("NCCL's QP timeout and retry count left to NCCL's defaults (20 and 7: 34 s)",
     lambda r: (edit(r / "servers/gpu001/nccl.env", "NCCL_IB_TIMEOUT=22\n", ""),
                edit(r / "servers/gpu001/nccl.env", "NCCL_IB_RETRY_CNT=7\n", ""))),
    ("a leaf's network statements through its outbound route-map (it permits both)",
     lambda r: (edit(r / LEAF_A / "frr.conf", "  network 10.12.0.0/26\n", "  network 10.12.0.0/26 route-map LOCAL-A-OUT\n"),
                edit(r / LEAF_A / "frr.conf", "  network 10.10.0.32/32\n",
                     "  network 10.10.0.32/32 route-map LOCAL-A-OUT\n"))),
    ("an EOS spine's ipv4 address-family block above its neighbors (bgpd's order rule is not EOS's)",
     lambda r: edit(r / SPINE_A / "running-config", "   router-id 10.10.0.0\n",
                    "   router-id 10.10.0.0\n   !\n   address-family ipv4\n      neighbor 10.11.0.1 activate\n   !\n")),
    ("a leaf redistributes with a metric (the MED its routes leave with: one originator, and eBGP sends a learned "
     "route on without it)", lambda r: _leaf_redistributes(r, "redistribute connected metric 50 route-map LOCAL-A-OUT",
                                                          "redistribute static route-map LOCAL-A-OUT metric 50")),
    ("a leaf's inbound route-map goes on (on-match goto) to an entry that sets a MED on everything alike",
     lambda r: _leaf_clause(r, "PLANE-A-IN", "on-match goto 30",
                            before="route-map PLANE-A-IN deny 20\nexit\n!\n"
                                   "route-map PLANE-A-IN permit 30\n set metric 10\nexit\n!\n")),
    ("a leaf's outbound route-map calls a map nobody defines (bgpd goes on as without it)",
     lambda r: _leaf_clause(r, "LOCAL-A-OUT", "call NOBODY")),
    ("one end of a session opens from its loopback: the other end's connection brings it up (measured in the twin)",
     lambda r: edit(r / LEAF_A / "frr.conf", " neighbor 10.11.0.0 description",
                    " neighbor 10.11.0.0 update-source lo\n neighbor 10.11.0.0 description")),
    ("both ends open from the port's own addresses (update-source the port, its address)",
     lambda r: (edit(r / LEAF_A / "frr.conf", " neighbor 10.11.0.0 description",
                     " neighbor 10.11.0.0 update-source swp33\n neighbor 10.11.0.0 description"),
                _spine_neighbor(r, "update-source Ethernet1"))),
    ("a leaf gives every spine's routes ORIGIN egp alike (the route-map all its sessions use)",
     lambda r: edit(r / LEAF_A / "frr.conf", " match ip address prefix-list PLANE-A\n",
                    " match ip address prefix-list PLANE-A\n set origin egp\n")),
    ("a leaf prepends a private ASN no device has toward every spine alike (longer everywhere, no loop)",
     lambda r: edit(r / LEAF_A / "frr.conf", " match ip address prefix-list LOCAL-A\n",
                    " match ip address prefix-list LOCAL-A\n set as-path prepend 65000 65000\n")),
    ("a leaf redistributes its connected and static routes through its outbound map in place of its network "
     "statements", lambda r: _leaf_redistributes(r, "redistribute connected route-map LOCAL-A-OUT",
                                                 "redistribute static route-map LOCAL-A-OUT")),
    ("the leaf's plane-A prefix-list as an extended access list (source: the prefixes, destination: any mask)",
     lambda r: _leaf_acl(r, "access-list 120 permit ip 10.10.0.0 0.0.0.255 any\n"
                            "access-list 120 permit ip 10.12.0.0 0.0.15.255 any\n"
                            "access-list 120 permit ip 172.16.0.0 0.0.255.255 any\n", "120")),
    ("a leaf sends its spines only the routes it originates (filter-list out, `^$`)",
     lambda r: _leaf_distribute(r, "neighbor 10.11.0.0 filter-list OWN out", "bgp as-path access-list OWN permit ^$\n")),
    ("`match` clauses every route a leaf sends or takes passes: ORIGIN igp, MED 0, the spine it comes from",
     lambda r: (_leaf_clause(r, "LOCAL-A-OUT", "match origin igp"), _leaf_clause(r, "PLANE-A-IN", "match metric 0"),
                _one_spine_sets(r, "match peer 10.11.0.0"))),
    ("a leaf's default local preference is 200, and one spine's routes are set to 200 too",
     lambda r: (edit(r / LEAF_A / "frr.conf", " bgp router-id 10.10.0.32\n",
                     " bgp router-id 10.10.0.32\n bgp default local-preference 200\n"),
                _one_spine_sets(r, "set local-preference 200"))),
    ("a leaf sends each spine at most 100 prefixes (more than it has), and lowers every spine's MED alike",
     lambda r: (edit(r / LEAF_A / "frr.conf", "  maximum-paths 64\n",
                     "  maximum-paths 64\n  neighbor 10.11.0.0 maximum-prefix-out 100\n"),
                _leaf_clause(r, "PLANE-A-IN", "set metric -10"))),
    ("a leaf sends only routes without a next hop (its own: match ip next-hop type blackhole), prepends last-as "
     "on them (they have none), and matches with probability 100",
     lambda r: (_leaf_clause(r, "LOCAL-A-OUT", "match ip next-hop type blackhole"),
                _leaf_clause(r, "LOCAL-A-OUT", "set as-path prepend last-as 2"),
                _leaf_clause(r, "PLANE-A-IN", "match probability 100"))),
    ("a leaf's inbound map first denies routes of LOCAL_PREF 100 (none learned over eBGP carries one)",
     lambda r: edit(r / LEAF_A / "frr.conf", "route-map PLANE-A-IN permit 10\n",
                    "route-map PLANE-A-IN deny 5\n match local-preference 100\nexit\n!\nroute-map PLANE-A-IN permit 10\n")),
    ("a route-map entry also matches every path that came through the spines' AS (match as-path)",
     lambda r: _leaf_clause(r, "PLANE-A-IN", "match as-path VIA",
                            before="bgp as-path access-list VIA seq 5 permit ^4200001000_\n!\n")),
    ("EOS session timing toward a leaf: BFD, timers, graceful restart, the pre-policy copy",
     lambda r: [_spine_neighbor(r, s) for s in ("bfd", "timers 1 3", "graceful-restart", "rib-in pre-policy retain")]),
    ("FRR session timing toward a spine: BFD, timers, the advertisement interval",
     lambda r: edit(r / LEAF_A / "frr.conf", " neighbor 10.11.0.0 description a-spine-1:Ethernet1\n",
                    " neighbor 10.11.0.0 description a-spine-1:Ethernet1\n neighbor 10.11.0.0 bfd\n"
                    " neighbor 10.11.0.0 timers 1 3\n neighbor 10.11.0.0 advertisement-interval 0\n")),
    ("a leaf's minimum hold time at its spines' offer (bgp minimum-holdtime 9), and 20 taken back",
     lambda r: edit(r / LEAF_A / "frr.conf", " bgp router-id",
                    " bgp minimum-holdtime 9\n bgp minimum-holdtime 20\n no bgp minimum-holdtime\n bgp minimum-holdtime 9\n"
                    " bgp router-id")),
    ("a backdoor network stated again without backdoor (the last statement decides)",
     lambda r: edit(r / LEAF_A / "frr.conf", "  network 10.12.0.0/26\n",
                    "  network 10.12.0.0/26 backdoor\n  network 10.12.0.0/26\n")),
    ("an EOS port's lossless priority set drop and then no-drop again; priority 4 drop (it was lossy)",
     lambda r: edit(r / SPINE_A / "running-config", "   priority-flow-control priority 3 no-drop\n",
                    "   priority-flow-control priority 3 drop\n   priority-flow-control priority 3 no-drop\n"
                    "   priority-flow-control priority 4 drop\n")),
    ("one end of a session waits (EOS transport connection-mode passive)",
     lambda r: _spine_neighbor(r, "transport connection-mode passive")),
    ("GTSM on both ends of a session (EOS ttl maximum-hops, FRR ttl-security hops)",
     lambda r: (_spine_neighbor(r, "ttl maximum-hops 1"),
                edit(r / LEAF_A / "frr.conf", " neighbor 10.11.0.0 description a-spine-1:Ethernet1\n",
                     " neighbor 10.11.0.0 description a-spine-1:Ethernet1\n neighbor 10.11.0.0 ttl-security hops 1\n"))),
    ("a leaf's uplink with a smaller TCP MSS, dynamic capability and fast convergence (the twin: as without)",
     lambda r: _after_first_uplink(r, "neighbor 10.11.0.0 tcp-mss 1400", "neighbor 10.11.0.0 capability dynamic",
                                   "bgp fast-convergence")),
    ("an EOS spine's update timing and best-path tie-breaks (out-delay, idle-restart-timer, ecmp-fast, "
     "wait-for-convergence, host routes installed direct)",
     lambda r: edit(r / SPINE_A / "running-config", "   router-id 10.10.0.0\n",
                    "   router-id 10.10.0.0\n   bgp bestpath ecmp-fast\n   update wait-for-convergence\n"
                    "   bgp host-routes fib direct-install\n   neighbor 10.11.0.1 out-delay 10\n"
                    "   neighbor 10.11.0.1 idle-restart-timer 30\n")),
    ("zebra gives a leaf's BGP routes its loopback as source (set src in ip protocol bgp route-map)",
     lambda r: edit(r / LEAF_A / "frr.conf", "router bgp 4200001100\n",
                    "route-map SRC permit 10\n set src 10.10.0.32\nexit\nip protocol bgp route-map SRC\n"
                    "router bgp 4200001100\n")),
    ("a leaf takes the customer role toward one spine, which sends none (not strict: the session comes up)",
     lambda r: _after_first_uplink(r, "neighbor 10.11.0.0 local-role customer")),
    ("a leaf migrates one session to another ASN with no-prepend replace-as (the paths keep their length)",
     lambda r: _local_as_toward_spine(r, " no-prepend replace-as")),
    ("a leaf offers its spines a default route (their inbound policy takes only the plane's prefixes)",
     lambda r: edit(r / LEAF_A / "frr.conf", "  neighbor 10.11.0.0 route-map LOCAL-A-OUT out\n",
                    "  neighbor 10.11.0.0 route-map LOCAL-A-OUT out\n  neighbor 10.11.0.0 default-originate\n")),
    ("an EOS spine offers a leaf a default route (the leaf's inbound policy takes only the plane's prefixes)",
     lambda r: edit(r / SPINE_A / "running-config", "   neighbor 10.11.0.1 route-map PLANE-A-OUT out\n",
                    "   neighbor 10.11.0.1 route-map PLANE-A-OUT out\n   neighbor 10.11.0.1 default-originate\n")),
    ("every spine strips the private ASNs toward every leaf (every path one AS long alike)", _strip_everywhere),
    ("a leaf strips the private ASNs toward a spine (it sends only its own prefixes)",
     lambda r: edit(r / LEAF_A / "frr.conf", "  neighbor 10.11.0.0 route-map LOCAL-A-OUT out\n",
                    "  neighbor 10.11.0.0 route-map LOCAL-A-OUT out\n  neighbor 10.11.0.0 remove-private-AS\n")),
    ("an EOS eAPI access list in the management VRF that admits the automation subnet only",
     lambda r: edit(r / SPINE_A / "running-config", "management api http-commands\n   no shutdown\n   vrf mgmt\n"
                    "      no shutdown\n", "ip access-list API-IN\n   10 permit tcp 192.0.2.0/28 any eq https\n!\n"
                    "management api http-commands\n   no shutdown\n   vrf mgmt\n      no shutdown\n"
                    "      ip access-group API-IN\n")),
    ("an EOS SSH access list in the management VRF that admits the jump-host subnet only",
     lambda r: edit(r / SPINE_A / "running-config", "management ssh\n", "ip access-list standard SSH-IN\n"
                    "   10 permit 192.0.2.0/28\n!\nmanagement ssh\n   ip access-group SSH-IN vrf mgmt in\n")),
    ("an address with a netmask attribute", _netmask),
    ("a floating static under another leaf's subnet (distance 250: BGP's route wins)",
     lambda r: edit(r / LEAF_A / "frr.conf", "ip route 10.12.0.0/26 blackhole\n",
                    "ip route 10.12.0.0/26 blackhole\nip route 10.12.0.64/26 blackhole 250\n")),
    ("a static whose next hop resolves nowhere (never installed: BGP keeps forwarding)",
     lambda r: edit(r / LEAF_A / "frr.conf", "ip route 10.12.0.0/26 blackhole\n",
                    "ip route 10.12.0.0/26 blackhole\nip route 10.12.0.64/26 10.99.0.1\n")),
    ("a static under another leaf's subnet at distance 100, BGP's distance said explicitly (20 wins)",
     lambda r: (edit(r / LEAF_A / "frr.conf", "ip route 10.12.0.0/26 blackhole\n",
                     "ip route 10.12.0.0/26 blackhole\nip route 10.12.0.64/26 blackhole 100\n"),
                edit(r / LEAF_A / "frr.conf", "  maximum-paths 64\n", "  maximum-paths 64\n  distance bgp 20 200 200\n"))),
    ("an EOS spine gives one leaf a neighbor weight (that leaf alone sends its prefixes: nothing changes)",
     lambda r: edit(r / SPINE_A / "running-config", "   router-id 10.10.0.0\n",
                    "   router-id 10.10.0.0\n   neighbor 10.11.0.1 weight 7\n")),
    ("a leaf's inbound route-map sets the next hop to the peer's address (what it is anyway)",
     lambda r: edit(r / LEAF_A / "frr.conf", "route-map PLANE-A-IN permit 10\n match ip address prefix-list PLANE-A\n",
                    "route-map PLANE-A-IN permit 10\n match ip address prefix-list PLANE-A\n set ip next-hop peer-address\n")),
    ("a leaf sends its own routes with their next hop unchanged (its own: it originates them)",
     lambda r: edit(r / LEAF_A / "frr.conf", "route-map LOCAL-A-OUT permit 10\n match ip address prefix-list LOCAL-A\n",
                    "route-map LOCAL-A-OUT permit 10\n match ip address prefix-list LOCAL-A\n set ip next-hop unchanged\n")),
    ("a leaf filters every spine's routes by the plane's own list (everything planned passes)",
     lambda r: edit(r / LEAF_A / "frr.conf", "  maximum-paths 64\n", "  maximum-paths 64\n" + "".join(
         f"  neighbor 10.11.0.{i} prefix-list PLANE-A in\n" for i in (0, 2, 4, 6)))),
    ("an EOS spine filters what it sends one leaf by the plane's list",
     lambda r: edit(r / SPINE_A / "running-config", "   router-id 10.10.0.0\n",
                    "   router-id 10.10.0.0\n   neighbor 10.11.0.1 prefix-list PLANE-A out\n")),
    ("a leaf sends its own routes with the next hop unchanged, and next-hop-self [force] (its own anyway)",
     lambda r: edit(r / LEAF_A / "frr.conf", "  maximum-paths 64\n", "  maximum-paths 64\n"
                    "  neighbor 10.11.0.0 attribute-unchanged next-hop\n  neighbor 10.11.0.2 next-hop-self\n"
                    "  neighbor 10.11.0.4 next-hop-self force\n")),
    ("a server route written as multipath with one next hop (the same route)",
     lambda r: edit(r / "servers/gpu001/interfaces", "post-up ip route replace 10.12.0.0/20 via 10.12.0.0 dev ens1f0np0",
                    "post-up ip route replace 10.12.0.0/20 nexthop via 10.12.0.0 dev ens1f0np0")),
    ("a server rule for packets arriving on a NIC (never the server's own traffic)",
     after_first_rule("ip rule add iif ens1f0np0 lookup 102 priority 50")),
    ("an EOS control-plane list in the management VRF that admits SSH and the API from a jump-host subnet only",
     lambda r: edit(r / SPINE_A / "running-config", "ip routing\n", "ip routing\n!\nip access-list MGMT-CP\n"
                    "   10 permit tcp 192.0.2.128/28 any eq ssh\n   20 permit tcp 192.0.2.128/28 any eq https\n"
                    "   30 permit icmp any any\n!\nsystem control-plane\n   ip access-group MGMT-CP vrf mgmt in\n")),
    ("BGP knobs that change no route: timers, logging, graceful restart, deterministic MED, update timing",
     lambda r: (edit(r / LEAF_A / "frr.conf", " bgp router-id", " timers bgp 3 9\n bgp log-neighbor-changes\n"
                     " bgp graceful-restart\n bgp deterministic-med\n bgp bestpath compare-routerid\n"
                     " update-delay 10\n coalesce-time 1000\n bgp router-id"),
                edit(r / LEAF_A / "frr.conf", "  maximum-paths 64\n", "  maximum-paths 64\n"
                     "  neighbor 10.11.0.0 soft-reconfiguration inbound\n  neighbor 10.11.0.0 send-community both\n"))),
    ("a table-map that permits the plane's prefixes",
     lambda r: edit(r / LEAF_A / "frr.conf", "  maximum-paths 64\n", "  maximum-paths 64\n  table-map PLANE-A-IN\n")),
    ("the same neighbor weight toward every spine (ECMP unchanged)",
     lambda r: edit(r / LEAF_A / "frr.conf", "  maximum-paths 64\n", "  maximum-paths 64\n" + "".join(
         f"  neighbor 10.11.0.{i} weight 100\n" for i in (0, 2, 4, 6)))),
    ("zebra's FIB route-map permits the planned prefixes",
     lambda r: edit(r / LEAF_A / "frr.conf", "ip route 10.12.0.0/26 blackhole\n",
                    "ip route 10.12.0.0/26 blackhole\nroute-map FIB permit 10\n match ip address prefix-list PLANE-A\n"
                    "exit\nip protocol bgp route-map FIB\n")),
    ("an access list that drops connections to the spine's port 179 only (the spine opens them)",
     lambda r: (edit(r / SPINE_A / "running-config", "interface Ethernet1\n   description a-leaf-su1-r0:swp33\n",
                     "interface Ethernet1\n   description a-leaf-su1-r0:swp33\n   ip access-group BLOCK in\n"),
                edit(r / SPINE_A / "running-config", "ip routing\n", "ip routing\n!\nip access-list BLOCK\n"
                     "   10 deny tcp any any eq bgp\n   20 permit ip any any\n"))),
    ("a control-plane access list that lets the fabric's BGP in",
     lambda r: edit(r / SPINE_A / "running-config", "ip routing\n", "ip routing\n!\nip access-list CP\n"
                    "   10 permit tcp 10.0.0.0/8 any eq bgp\n   20 permit tcp 10.0.0.0/8 eq bgp any\n"
                    "   30 permit tcp any any eq ssh\n!\nsystem control-plane\n   ip access-group CP in\n")),
    ("a prohibit default floating behind a port table's default (metric 4000)",
     after_first_rule("ip route add prohibit default table 101 metric 4000")),
    ("EOS tries local users before TACACS+ (they still log in)",
     lambda r: edit(r / SPINE_A / "running-config", "aaa authentication login default group dualrail local",
                    "aaa authentication login default local group dualrail")),
    ("NCCL's defaults spelled out and its debug output on",
     lambda r: edit(r / "servers/gpu001/nccl.env", "NCCL_CROSS_NIC=0",
                    "NCCL_CROSS_NIC=0\nNCCL_IB_DISABLE=0\nNCCL_NET=IB\nNCCL_DEBUG=INFO\nexport NCCL_DEBUG_SUBSYS=INIT,NET")),
    ("both ends of a link force its planned speed, the same FEC and no autonegotiation",
     lambda r: (edit(r / LEAF_A / "interfaces", "    alias a-spine-1:Ethernet1\n",
                     "    alias a-spine-1:Ethernet1\n    link-speed 800000\n    link-fec rs\n    link-autoneg off\n"),
                edit(r / SPINE_A / "running-config", "   description a-leaf-su1-r0:swp33\n",
                     "   description a-leaf-su1-r0:swp33\n   speed 800g-8\n   error-correction encoding reed-solomon\n"))),
    ("more PFC headroom than planned, for a longer cable",
     lambda r: (edit(r / LEAF_A / "qos_features.conf", "pfc.roce_pfc.xoff_size = 18000", "pfc.roce_pfc.xoff_size = 36000"),
                edit(r / LEAF_A / "qos_features.conf", "pfc.roce_pfc.cable_length = 10", "pfc.roce_pfc.cable_length = 30"))),
    ("DWRR weights scaled alike (the same shares)",
     lambda r: edit(r / LEAF_A / "qos_features.conf", "scheduling.roce_sched.egress_queue_3.weight = 50\n"
                    "scheduling.roce_sched.egress_queue_0.mode = dwrr\nscheduling.roce_sched.egress_queue_0.weight = 50",
                    "scheduling.roce_sched.egress_queue_3.weight = 100\nscheduling.roce_sched.egress_queue_0.mode = dwrr\n"
                    "scheduling.roce_sched.egress_queue_0.weight = 100")),
    ("ip forwarding spelled out",
     lambda r: edit(r / LEAF_A / "frr.conf", "no ipv6 forwarding\n", "no ipv6 forwarding\nno ip forwarding\nip forwarding\n")),
    ("bgp shutdown written and taken back",
     lambda r: edit(r / LEAF_A / "frr.conf", " bgp router-id", " bgp shutdown\n no bgp shutdown\n bgp router-id")),
    ("forwarding spelled out as off",
     lambda r: edit(r / "servers/gpu001/sysctl.conf", "net.ipv4.conf.all.arp_ignore = 1",
                    "net.ipv4.conf.all.arp_ignore = 1\nnet.ipv4.ip_forward = 0\nnet.ipv4.conf.all.forwarding = 0")),
    ("a port's rp_filter 1 under conf.all 2: the kernel takes the larger (loose)",
     lambda r: edit(r / "servers/gpu001/sysctl.conf", "net.ipv4.conf.ens1f0np0.rp_filter = 2",
                    "net.ipv4.conf.ens1f0np0.rp_filter = 1")),
    ("arp_ignore set per port instead of through conf.all",
     lambda r: edit(r / "servers/gpu001/sysctl.conf", "net.ipv4.conf.all.arp_ignore = 1\n",
                    "".join(f"net.ipv4.conf.{p}.arp_ignore = 2\n" for p in (
                        "ens1f0np0", "ens1f1np1", "ens2f0np0", "ens2f1np1", "ens3f0np0", "ens3f1np1", "ens4f0np0",
                        "ens4f1np1")))),
    ("a leaf's server port forced to its planned speed (200G)",
     lambda r: edit(r / LEAF_A / "interfaces", "    mtu 9214\n", "    mtu 9214\n    link-speed 200000\n", 1)),
    ("a link setting verify knows does not matter",
     lambda r: edit(r / LEAF_A / "interfaces", "    mtu 9214\n", "    mtu 9214\n    link-duplex full\n", 1)),
    ("remote-as external on a leaf", lambda r: edit(r / LEAF_A / "frr.conf", "remote-as 4200001000", "remote-as external", 4)),
    ("no maximum-paths on a Cumulus leaf (its default is 64)",
     lambda r: edit(r / LEAF_A / "frr.conf", "  maximum-paths 64\n", "")),
    ("every frr.conf without indentation", _unindent),
    ("a leaf's neighbors as a peer-group", _peer_group),
    ("a leaf's spine neighbors as dynamic neighbors of a listen range", _dynamic_leaf),
    ("another route in an EOS spine's management VRF (the gateway stays reached over its port)",
     lambda r: edit(r / SPINE_A / "running-config", "ip route vrf mgmt 0.0.0.0/0 198.51.100.254\n",
                    "ip route vrf mgmt 0.0.0.0/0 198.51.100.254\nip route vrf mgmt 10.0.0.0/8 198.51.100.254\n")),
    ("a floating /32 blackhole of a spine's address behind one through the spine itself", lambda r: edit(
        r / LEAF_A / "frr.conf", "ip route 10.12.0.0/26 blackhole\n",
        "ip route 10.12.0.0/26 blackhole\nip route 10.11.0.0/32 blackhole 250\nip route 10.11.0.0/32 10.11.0.0\n")),
    ("a /32 of a server's and a spine's address over the port that reaches them", lambda r: edit(
        r / LEAF_A / "frr.conf", "ip route 10.12.0.0/26 blackhole\n",
        "ip route 10.12.0.0/26 blackhole\nip route 10.12.0.1/32 swp1\nip route 10.11.0.0/32 10.11.0.0\n")),
    ("a gateway VRF's spine neighbors as dynamic neighbors of a listen range", _dynamic_gateway),
    ("a gateway's planned external peer taken by a listen range", _dynamic_external),
    ("a leaf's listen range beside one spine kept as a configured neighbor (bgpd prefers it)",
     lambda r: (_dynamic_leaf(r), edit(r / LEAF_A / "frr.conf", " neighbor SPINES peer-group\n",
                                       " neighbor SPINES peer-group\n neighbor 10.11.0.0 remote-as 4200001000\n"),
                edit(r / LEAF_A / "frr.conf", "  maximum-paths 64\n", "  neighbor 10.11.0.0 route-map PLANE-A-IN in\n"
                     "  neighbor 10.11.0.0 route-map LOCAL-A-OUT out\n  maximum-paths 64\n"))),
    ("a server's kernel tuning: socket buffers, backlog, TCP, local ports, memory and file tables (no bearing)",
     lambda r: edit(r / "servers/gpu001/sysctl.conf", "net.ipv4.conf.all.arp_ignore = 1\n",
                    "net.ipv4.conf.all.arp_ignore = 1\nnet.core.rmem_max = 268435456\nnet.core.wmem_default = 1048576\n"
                    "net.core.netdev_max_backlog = 250000\nnet/ipv4/tcp_rmem = 4096 87380 134217728\n"
                    "net.ipv4.tcp_timestamps = 0\nnet.ipv4.ip_local_port_range = 1024 65535\nvm.swappiness = 1\n"
                    "kernel.numa_balancing = 0\nfs.file-max = 2097152\n")),
    ("BGP knobs that change no route: restart flags, duplicate suppression, I/O batching, first-AS checks, "
     "EOS's copy of rejected routes",
     lambda r: (edit(r / LEAF_A / "frr.conf", " neighbor 10.11.0.0 description a-spine-1:Ethernet1\n",
                     " neighbor 10.11.0.0 description a-spine-1:Ethernet1\n neighbor 10.11.0.0 enforce-first-as\n"
                     " bgp graceful-restart preserve-fw-state\n bgp suppress-duplicates\n write-quanta 64\n"
                     " read-quanta 10\n"),
                edit(r / SPINE_A / "running-config", "   neighbor 10.11.0.1 route-map PLANE-A-OUT out\n",
                     "   neighbor 10.11.0.1 route-map PLANE-A-OUT out\n"
                     "   neighbor 10.11.0.1 soft-reconfiguration inbound all\n   neighbor 10.11.0.1 enforce-first-as\n"))),
    ("a leaf's server port with IPv6 forwarding off and unsolicited ARP replies accepted (ip6-forward, arp-accept)",
     lambda r: edit(r / LEAF_A / "interfaces", "    alias gpu001:ens1f0np0\n",
                    "    alias gpu001:ens1f0np0\n    ip6-forward off\n    arp-accept on\n")),
    ("an EOS spine streaming to CloudVision (TerminAttr), with queue monitoring, counters and BGP's install wait",
     lambda r: (edit(r / SPINE_A / "running-config", "lldp run\n",
                     "lldp run\ndaemon TerminAttr\n   exec /usr/bin/TerminAttr -cvaddr=192.0.2.1:9910 -cvvrf=mgmt\n"
                     "   no shutdown\nqueue-monitor length\nhardware counter feature ip in\n"),
                edit(r / SPINE_A / "running-config", "   router-id 10.10.0.0\n",
                     "   router-id 10.10.0.0\n   update wait-install\n"))),
    ("a leaf turns off logging, duplicate suppression, graceful restart and fast external failover",
     lambda r: edit(r / LEAF_A / "frr.conf", " bgp router-id 10.10.0.32\n",
                    " bgp router-id 10.10.0.32\n no bgp log-neighbor-changes\n no bgp suppress-duplicates\n"
                    " no bgp graceful-restart\n no bgp fast-external-failover\n")),
    ("a leaf's loopback `network` with a label index (bgpd originates it as without: measured in the twin)",
     lambda r: edit(r / LEAF_A / "frr.conf", "  network 10.10.0.32/32\n", "  network 10.10.0.32/32 label-index 5\n")),
    ("a leaf's planned ASN written asdot on the leaf and its spines",
     lambda r: (edit(r / LEAF_A / "frr.conf", "router bgp 4200001100", "router bgp 64086.61004"),
                [edit(p, "remote-as 4200001100", "remote-as 64086.61004") for p in r.glob("plane-A/a-spine-*/running-config")])),
    ("a leaf prepends its ASN toward every spine alike (no path gets longer than another)",
     lambda r: edit(r / LEAF_A / "frr.conf", " match ip address prefix-list LOCAL-A\n",
                    " match ip address prefix-list LOCAL-A\n set as-path prepend 4200001100 4200001100\n")),
    ("every spine of plane A drained alike", lambda r: [edit(p, "route-map PLANE-A-OUT permit 10\n",
                                                            "route-map PLANE-A-OUT permit 10\n   set as-path prepend "
                                                            "4200001000\n") for p in r.glob("plane-A/a-spine-*/running-config")]),
    ("every spine's routes given the same local preference on a leaf",
     lambda r: edit(r / LEAF_A / "frr.conf", " match ip address prefix-list PLANE-A\n",
                    " match ip address prefix-list PLANE-A\n set local-preference 200\n")),
    ("a local preference set toward the spines (eBGP does not carry it)",
     lambda r: edit(r / LEAF_A / "frr.conf", " match ip address prefix-list LOCAL-A\n",
                    " match ip address prefix-list LOCAL-A\n set local-preference 50\n")),
    ("a spine sends one leaf a MED the leaf resets inbound (the inbound value wins)",
     lambda r: (_spine_med_to_one_leaf(r),
                edit(r / LEAF_A / "frr.conf", " match ip address prefix-list PLANE-A\n",
                     " match ip address prefix-list PLANE-A\n set metric 0\n"))),
    ("every spine of plane A sends the same MED", lambda r: [edit(p, "route-map PLANE-A-OUT permit 10\n",
                                                                  "route-map PLANE-A-OUT permit 10\n   set metric 10\n")
                                                             for p in r.glob("plane-A/a-spine-*/running-config")]),
    ("one end of every spine session waits passively (the other connects)",
     lambda r: [edit(r / LEAF_A / "frr.conf", f" neighbor {spine} description", f" neighbor {spine} passive\n"
                     f" neighbor {spine} description") for spine in ("10.11.0.0", "10.11.0.2")]),
    ("receive limits above what the spines send, or only logged",
     lambda r: _leaf_af(r, "neighbor 10.11.0.0 maximum-prefix 17", "neighbor 10.11.0.2 maximum-prefix 1 warning-only",
                        "neighbor 10.11.0.4 maximum-prefix 1000 80")),
    ("an EOS spine's receive limits: unlimited, or above what a leaf sends",
     lambda r: edit(r / SPINE_A / "running-config", "   neighbor 10.11.0.1 description",
                    "   neighbor 10.11.0.1 maximum-routes 0\n   neighbor 10.11.0.65 maximum-routes 2\n"
                    "   neighbor 10.11.0.1 description")),
    # a leaf's own prefixes arrive tagged over every spine alike (local preference 0 everywhere),
    # and what it takes in is tagged alike; the gateway's storage prefixes have no other way in
    ("a leaf that takes a missing MED as the worst, where no MED is sent", _missing_med_worst),
    ("a leaf that takes a missing MED as the worst, where every spine sends the same MED",
     lambda r: (_missing_med_worst(r), [edit(p, "route-map PLANE-A-OUT permit 10\n", "route-map PLANE-A-OUT permit 10\n"
                                             "   set metric 10\n") for p in r.glob("plane-A/a-spine-*/running-config")])),
    ("a leaf sends its spines every path it has (addpath: each with the leaf as next hop)",
     lambda r: _leaf_af(r, "neighbor 10.11.0.0 addpath-tx-all-paths", "neighbor 10.11.0.2 addpath-tx-bestpath-per-AS")),
    ("a leaf in graceful-shutdown (a drain with nothing to drain to)",
     lambda r: edit(r / LEAF_A / "frr.conf", "router bgp 4200001100\n", "router bgp 4200001100\n bgp graceful-shutdown\n")),
    ("the gateway's plane-A instance in graceful-shutdown (its one way to storage stays the only one)",
     lambda r: edit(r / GW / "frr.conf", " bgp router-id 10.10.0.92\n", " bgp router-id 10.10.0.92\n bgp graceful-shutdown\n")),
    ("the leaf's inbound route-map matches an access list with the prefix-list's prefixes",
     lambda r: _leaf_acl(r, ZEBRA_ACL, "PA")),
    ("the same as a cisco-style (wildcard) access list", lambda r: _leaf_acl(r, CISCO_ACL, "10")),
    ("a distribute-list toward a spine that permits the plane, out and in",
     lambda r: _leaf_distribute(r, "neighbor 10.11.0.0 distribute-list DL in\n  neighbor 10.11.0.0 distribute-list DL out",
                                "access-list DL seq 5 permit 10.0.0.0/8\naccess-list DL seq 10 permit 172.16.0.0/16\n")),
    ("a leaf's session to a spine with shorter timers (`timers 1 3`: the session holds 3 s)",
     lambda r: _leaf_neighbor(r, "timers 1 3")),
    ("a leaf on FRR's traditional profile (it offers 180 s; the spine's 9 s decides)",
     lambda r: edit(r / LEAF_A / "frr.conf", "frr defaults datacenter", "frr defaults traditional")),
    ("a leaf that connects to the spine's port 1790 (the spine opens the session to port 179)",
     lambda r: _leaf_neighbor(r, "port 1790")),
    ("a leaf's spine in an update group of its own (`solo`: over eBGP nothing it installs changes)",
     lambda r: _leaf_neighbor(r, "solo")),
    ("nccl.env values quoted as the shell that sources it unquotes them, a comment after one",
     lambda r: (edit(r / "servers/gpu001/nccl.env", "NCCL_IB_GID_INDEX=3", 'NCCL_IB_GID_INDEX="3"  # RoCEv2'),
                edit(r / "servers/gpu001/nccl.env", "NCCL_IB_TC=104", "NCCL_IB_TC='104'"))),
    ("a server's table, rule priority and metric numbers in hex and octal (iproute2 reads them so)",
     lambda r: (edit(r / "servers/gpu001/interfaces", "dev ens1f0np0 table 101\n", "dev ens1f0np0 table 0x65\n"),
                edit(r / "servers/gpu001/interfaces", "post-up ip rule add from 10.12.0.1 lookup 101 priority 101",
                     "post-up ip rule add from 10.12.0.1 lookup 0145 priority 0x65"))),
    ("UCX limited to its RC transport and shared memory; NCCL's service level and RoCE version beside the "
     "GID index", lambda r: edit(r / "servers/gpu001/nccl.env", "UCX_IB_GID_INDEX=3\n",
                                 "UCX_IB_GID_INDEX=3\nUCX_TLS=rc_x,sm,self\nNCCL_IB_SL=3\nNCCL_IB_ROCE_VERSION_NUM=2\n")),
    ("the GID selection NCCL makes when no index is set (address family and range, RoCE version 1): "
     "the index set wins", lambda r: edit(r / "servers/gpu001/nccl.env", "NCCL_IB_GID_INDEX=3\n",
                                        "NCCL_IB_GID_INDEX=3\nNCCL_IB_ADDR_FAMILY=AF_INET6\n"
                                        "NCCL_IB_ADDR_RANGE=10.22.0.0/16\nNCCL_IB_ROCE_VERSION_NUM=1\n")),
    ("an EOS spine writes no-export on what it sends (EOS sends no community without send-community)",
     lambda r: edit(r / SPINE_A / "running-config", "route-map PLANE-A-OUT permit 10\n",
                    "route-map PLANE-A-OUT permit 10\n   set community no-export\n")),
    ("a leaf tags what it takes from its spines no-export (it passes none of it on anyway)",
     lambda r: edit(r / LEAF_A / "frr.conf", "route-map PLANE-A-IN permit 10\n match ip address prefix-list PLANE-A\n",
                    "route-map PLANE-A-IN permit 10\n match ip address prefix-list PLANE-A\n set community no-export\n")),
    ("an EOS spine's accepted-routes limit above what the leaf sends",
     lambda r: _spine_neighbor(r, "maximum-accepted-routes 100 warning-limit 50")),
    ("an access list out on a spine port that drops only telnet",
     lambda r: (edit(r / SPINE_A / "running-config", "interface Ethernet1\n   description a-leaf-su1-r0:swp33\n",
                     "interface Ethernet1\n   description a-leaf-su1-r0:swp33\n   ip access-group NO-TELNET out\n"),
                edit(r / SPINE_A / "running-config", "ip routing\n", "ip routing\n!\nip access-list NO-TELNET\n"
                     "   10 deny tcp any any eq telnet\n   20 permit ip any any\n"))),
    ("Cumulus service files in other valid forms (a multi-line omfwd action with comments and single quotes; "
     "restrict default ignore with each server let back in; resolver options)",
     lambda r: (edit(r / LEAF_A / "rsyslog.conf", 'action(type="omfwd" Target="192.0.2.20" Device="mgmt" Port="514" '
                     'Protocol="udp")', "action(type='omfwd'  # to the collector\n       target = \"192.0.2.20\" "
                     "/* the management VRF */ Device=\"mgmt\"\n       Port=\"514\" Protocol='udp')"),
                edit(r / LEAF_A / "ntp.conf", "driftfile", "restrict default kod nomodify notrap nopeer noquery ignore\n"
                     "restrict -6 default ignore\nrestrict 192.0.2.0 mask 255.255.255.0 nomodify\ndriftfile"),
                edit(r / LEAF_A / "resolv.conf", "nameserver", "search example.net\noptions timeout:1 attempts:2\n"
                     "nameserver"))),
    ("EOS logins through every TACACS+ host (`group tacacs+`) instead of the named group",
     lambda r: edit(r / SPINE_A / "running-config", "aaa authentication login default group dualrail local",
                    "aaa authentication login default group tacacs+ local")),
    ("an EOS TACACS+ key shared by every host instead of the host's own",
     lambda r: edit(r / SPINE_A / "running-config", " key 0 ${secret:tacacs-key}\n",
                    "\ntacacs-server key 0 ${secret:tacacs-key}\n")),
    ("a tenant partition given `defmember=full` in one plane while each of its members names its own membership",
     lambda r: edit(r / "ib-plane-IBA/partitions.conf", "tenant_a=0x0101, ipoib, mtu=5, sl=0 :",
                    "tenant_a=0x0101, ipoib, mtu=5, sl=0, defmember=full :")),
    ("the NIC QoS unit with its documentation named and its output sent to the journal",
     lambda r: edit(r / "servers/gpu001/dualrail-nic-qos.service", "[Service]\n",
                    "Documentation=man:dualrail(1)\n[Service]\nStandardOutput=journal\n")),
    ("a server's interfaces, sysctl.conf, unit and topology saved with CRLF line ends (their readers take them)",
     lambda r: [crlf(r / "servers/gpu001" / name) for name in ("interfaces", "sysctl.conf", "dualrail-nic-qos.service",
                                                                "nccl-topo.xml")]),
    ("a leaf's kernel route over two spines for a prefix of no plane (multipath, one hop `onlink`)",
     lambda r: edit(r / LEAF_A / "interfaces", "    alias a-spine-2:Ethernet1\n",
                    "    alias a-spine-2:Ethernet1\n    post-up ip route add 198.18.0.0/24 nexthop via 10.11.0.0 dev "
                    "swp33 nexthop via 10.11.0.2 dev swp34 onlink\n")),
    ("an EOS interface block repeated (EOS merges it)",
     lambda r: edit(r / SPINE_A / "running-config", "interface Loopback0\n", "interface Ethernet1\n   mtu 9214\n"
                    "interface Loopback0\n")),
    ("a leaf's static default route and 10.0.0.0/8 through a spine (around every plane's pools: no plane's)",
     lambda r: _below_leaf_static(r, "ip route 0.0.0.0/0 10.11.0.0\nip route 10.0.0.0/8 10.11.0.2\n")),
    ("EOS lines with nothing for the model: domain name, LLDP timers, CLI aliases, prompt, errdisable recovery, "
     "third-party optics, IPv6 routing off (its default)",
     lambda r: edit(r / SPINE_A / "running-config", "ip routing\n", "ip routing\nip domain-name example.net\n"
                    "dns domain example.net\nlldp timer 10\nlldp holdtime 30\nalias shint show interfaces\n"
                    "prompt %H%P\nerrdisable recovery cause bpduguard\nservice unsupported-transceiver key 1234\n"
                    "no ipv6 routing\n")),
    ("`ip nht resolve-via-default` on a leaf and in a gateway's VRF, where no default route exists",
     lambda r: (edit(r / LEAF_A / "frr.conf", "service integrated-vtysh-config\n",
                     "service integrated-vtysh-config\nip nht resolve-via-default\n"),
                edit(r / GW / "frr.conf", "vrf plane-a\nexit-vrf\n", "vrf plane-a\n ip nht resolve-via-default\nexit-vrf\n"))),
    ("EOS RoCE queue's ECN line with a weight and without a probability (EOS's own default: 100)",
     lambda r: edit(r / SPINE_A / "running-config", "maximum-threshold 1500000 bytes max-mark-probability 100\n   !\n"
                    "   tx-queue 6\n", "maximum-threshold 1500000 bytes weight 0\n   !\n   tx-queue 6\n", 1)),
    ("an EOS `eq` entry added and taken back by `no` with its content (the list as rendered)",
     lambda r: edit(r / SPINE_A / "running-config", "   seq 20 permit 10.12.0.0/20 le 32\n",
                    "   seq 20 permit 10.12.0.0/20 le 32\n   seq 25 deny 10.12.0.0/20 eq 26\n"
                    "   no deny 10.12.0.0/20 eq 26\n")),
    ("EOS prefix-list entries with `eq N` (the servers' /26 subnets exactly), in the block and on one line",
     lambda r: edit(r / SPINE_A / "running-config", "ip prefix-list PLANE-A\n   seq 10 permit 10.10.0.0/24 le 32\n"
                    "   seq 20 permit 10.12.0.0/20 le 32\n", "ip prefix-list PLANE-A seq 20 permit 10.12.0.0/20 eq 26\n"
                    "ip prefix-list PLANE-A\n   seq 10 permit 10.10.0.0/24 le 32\n   seq 15 permit 10.10.0.0/24 eq 32\n")),
    ("plain communities set on a leaf's and a spine's routes that nothing matches (FRR, EOS, additive)",
     lambda r: (edit(r / LEAF_A / "frr.conf", " match ip address prefix-list LOCAL-A\n",
                     " match ip address prefix-list LOCAL-A\n set community 65101:7 4200:1\n"),
                edit(r / SPINE_A / "running-config", "route-map PLANE-A-OUT permit 10\n   match ip address prefix-list "
                     "PLANE-A\n", "route-map PLANE-A-OUT permit 10\n   match ip address prefix-list PLANE-A\n"
                     "   set community 65000:1 65000:2 additive\n"))),
]


def test_an_eos_file_without_indentation_reads_as_rendered(clean: Path, tmp_path: Path) -> None:
    """EOS ignores indentation: a spine's file with every line at column 0 passes (no error), each
    line read in another block than its indentation says being said."""
    edited = tmp_path / "build"
    shutil.copytree(clean, edited)
    path = edited / SPINE_A / "running-config"
    path.write_text("\n".join(line.strip() for line in path.read_text().split("\n")))
    results = run_checks(load_snapshot(edited))
    assert [f"{f.check}: {f.message}" for r in results for f in r.errors] == []
    said = [f.message for r in results for f in r.findings]
    assert said and all("(EOS's modes, not the indentation)" in m for m in said)


def test_eos_short_words_that_change_nothing_pass_with_both_spellings_said(clean: Path, tmp_path: Path) -> None:
    """`no switchp`, `ip add`, `desc` on a spine port: what EOS reads is the plan (no error); each
    line is said with the spelling verify read, since its keyword table is not EOS's grammar. An
    ambiguous word (`sh`) does nothing on EOS: no port goes down, the candidates are named."""
    edited = tmp_path / "build"
    shutil.copytree(clean, edited)
    edit(edited / SPINE_A / "running-config",
         "   description a-leaf-su1-r0:swp33\n   mtu 9214\n   no switchport\n   ip address 10.11.0.0/31\n",
         "   desc a-leaf-su1-r0:swp33\n   mtu 9214\n   no switchp\n   ip add 10.11.0.0/31\n   sh\n")
    results = run_checks(load_snapshot(edited))
    assert [f"{f.check}: {f.message}" for r in results for f in r.errors] == []
    said = [f.message for r in results if r.check == "CONFIG-UNMODELLED" for f in r.findings]
    assert len(said) == 4 and sum("read as `" in m for m in said) == 3
    assert any("`sh` could be shape or show or shutdown" in m for m in said)


@pytest.mark.parametrize("desc,mutate", VALID_EDITS, ids=[v[0] for v in VALID_EDITS])
def test_valid_edit_passes(clean: Path, tmp_path: Path, desc: str, mutate: Callable[[Path], None]) -> None:
    """Edits a device accepts and that change nothing the plan cares about: no finding at all."""
    edited = tmp_path / "build"
    shutil.copytree(clean, edited)
    mutate(edited)
    findings = [f"{f.check}: {f.message}" for r in run_checks(load_snapshot(edited)) for f in r.findings]
    assert findings == [], desc


@pytest.mark.parametrize("lines,rewritten", [
    ("qos map traffic-class 3 to dscp 26\nqos map traffic-class 6 to dscp 48\nqos rewrite dscp\n", False),
    ("qos map traffic-class 3 to dscp 0\nqos rewrite dscp\nno qos rewrite dscp\n", False),
    ("qos map traffic-class 3 to dscp 0\n", False),
    ("qos rewrite dscp\nqos map traffic-class 2 3 to dscp 18\n", True),
])
def test_an_eos_dscp_rewrite_counts_where_it_changes_a_marked_class(clean: Path, tmp_path: Path, lines: str,
                                                                   rewritten: bool) -> None:
    """`qos rewrite dscp` writes each class's `to dscp` value into the packets leaving: an error
    only where a marked DSCP's class leaves with another DSCP (the map alone rewrites nothing; a
    class without its own line is rewritten by EOS's default map: the line stays reported)."""
    edited = tmp_path / "build"
    shutil.copytree(clean, edited)
    edit(edited / SPINE_A / "running-config", "qos map dscp 48 to traffic-class 6\n",
         "qos map dscp 48 to traffic-class 6\n" + lines)
    results = {r.check: r.findings for r in run_checks(load_snapshot(edited))}
    assert bool(results["QOS-DSCP-MAP"]) == rewritten, results["QOS-DSCP-MAP"]
    if rewritten:
        assert "running-config:" in results["QOS-DSCP-MAP"][0].message
    reported = [f.message for f in results["CONFIG-UNMODELLED"]]
    assert any("qos rewrite dscp" in m for m in reported) == ("no qos" not in lines and "rewrite" in lines)


def test_a_server_ports_ip_forward_decides_over_sysctl_conf(clean: Path, tmp_path: Path) -> None:
    """ifupdown2 writes a stanza's `ip-forward` when it brings the port up, after systemd-sysctl
    applied sysctl.conf at boot: `ip-forward off` keeps a port out of a global 1 (the others are
    named), `ip-forward on` makes a port forward without any sysctl."""
    edited = tmp_path / "build"
    shutil.copytree(clean, edited)
    edit(edited / "servers/gpu001/sysctl.conf", "net.ipv4.conf.all.arp_ignore = 1",
         "net.ipv4.conf.all.arp_ignore = 1\nnet.ipv4.ip_forward = 1")
    edit(edited / "servers/gpu001/interfaces", "    address 10.12.0.1/31\n", "    address 10.12.0.1/31\n    ip-forward off\n")
    edit(edited / "servers/gpu002/interfaces", "    address 10.22.0.3/31\n", "    address 10.22.0.3/31\n    ip-forward yes\n")
    said = sorted(f.message for r in run_checks(load_snapshot(edited)) if r.check == "HOST-SYSCTL" for f in r.findings)
    assert len(said) == 2
    assert said[0].startswith("gpu001: forwards IPv4 arriving on ens1f1np1, ens2f0np0,") and "ens1f0np0" not in said[0]
    assert said[1].startswith("gpu002: forwards IPv4 arriving on ens1f1np1 (interfaces:") and "ip-forward yes" in said[1]


def test_multipath_relax_missing_is_caught(tmp_path: Path) -> None:
    """Per-switch ASNs (every spine its own ASN) need multipath-relax; drop it from the render."""
    inv = synthetic_inventory(Shape(spines_per_pod=2, sus_per_pod=1, rails=1, servers_per_su=2))
    fabric_json = inv.model_dump()
    for plane in fabric_json["fabric"]["planes"].values():
        plane["asn"]["scheme"] = "per-switch"
    from dualrail_net.sot.schema import Inventory
    fabric = resolve_fabric(Inventory.model_validate(fabric_json))
    out = tmp_path / "build"
    write_artifacts(render_fabric(fabric), out)
    clean_results = {r.check: r for r in run_checks(load_snapshot(out))}
    assert clean_results["ECMP-MULTIPATH-RELAX"].findings == []
    assert any("multipath-relax" in p.read_text() for p in out.rglob("frr.conf"))
    _drop_relax(out)
    results = {r.check: r for r in run_checks(load_snapshot(out))}
    assert results["ECMP-MULTIPATH-RELAX"].findings


def test_eos_relaxes_multipath_unless_told_not_to(tmp_path: Path) -> None:
    """EOS leaves whose spines each have their own ASN: EOS takes equal-length paths through
    different ASNs into ECMP by default (the renderer's explicit line can go), and `no bgp bestpath
    as-path multipath-relax` leaves one path."""
    inv = synthetic_inventory(Shape(spines_per_pod=2, sus_per_pod=1, rails=2, servers_per_su=2))
    fabric_json = inv.model_dump()
    for plane in fabric_json["fabric"]["planes"].values():
        plane["asn"]["scheme"] = "per-switch"
    fabric_json["fabric"]["platforms"]["leaf"] = "eos"
    from dualrail_net.sot.schema import Inventory
    out = tmp_path / "build"
    write_artifacts(render_fabric(resolve_fabric(Inventory.model_validate(fabric_json))), out)
    leaves = [p for p in out.rglob("running-config") if "-leaf-" in p.parent.name]
    assert leaves and all("   bgp bestpath as-path multipath-relax\n" in p.read_text() for p in leaves)
    for path in leaves:
        path.write_text(path.read_text().replace("   bgp bestpath as-path multipath-relax\n", ""))
    results = {r.check: r for r in run_checks(load_snapshot(out))}
    assert not results["ECMP-MULTIPATH-RELAX"].findings and not results["ROUTE-ECMP-WIDTH"].findings
    leaves[0].write_text(leaves[0].read_text().replace("   maximum-paths", "   no bgp bestpath as-path multipath-relax\n"
                                                                           "   maximum-paths", 1))
    results = {r.check: r for r in run_checks(load_snapshot(out))}
    assert [list(f.devices) for f in results["ECMP-MULTIPATH-RELAX"].findings] == [[leaves[0].parent.name]]
    assert results["ROUTE-ECMP-WIDTH"].errors


def test_every_check_has_a_mutation() -> None:
    # the example has no multipath-relax fabric and no external peers: those fire in tests of their own
    # (above; tests/test_fabric_shapes.py::test_gateway_external_side)
    # (QOS-PFC-WATCHDOG: only SONiC keeps a watchdog in its file: tests/test_sonic.py)
    covered = {m[1] for m in MUTATIONS} | {"ECMP-MULTIPATH-RELAX", "BGP-EXTERNAL-DOWN", "ISO-EXTERNAL-POLICY",
                                           "QOS-PFC-WATCHDOG"}
    missing = {spec.id for spec in REGISTRY} - covered
    assert not missing, f"checks without a mutation proving they fire: {missing}"


def test_static_routes_over_a_planned_prefix_are_named_with_every_next_hop(clean: Path, tmp_path: Path) -> None:
    """Four statics to another leaf's block, one per spine: what BGP forwards today, but a failure
    behind a spine is no longer routed around; each line is named with all four next hops."""
    broken = tmp_path / "build"
    shutil.copytree(clean, broken)
    edit(broken / LEAF_A / "frr.conf", "ip route 10.12.0.0/26 blackhole\n", "ip route 10.12.0.0/26 blackhole\n" + "".join(
        f"ip route 10.12.0.64/26 10.11.0.{hop}\n" for hop in (0, 2, 4, 6)))
    said = [f.message for r in run_checks(load_snapshot(broken)) if r.check == "ROUTE-FIB-OVERRIDE" for f in r.findings]
    assert len(said) == 4
    assert all("its static next hops 10.11.0.0, 10.11.0.2, 10.11.0.4, 10.11.0.6" in m for m in said)


def test_eos_missing_policy_deny_in_out_stops_what_the_neighbor_is_sent_too(clean: Path, tmp_path: Path) -> None:
    root = tmp_path / "b"
    shutil.copytree(clean, root)
    _missing_policy(root, "   neighbor 10.11.0.1 missing-policy direction in action deny-in-out\n",
                    drop="   neighbor 10.11.0.1 route-map PLANE-A-IN in\n")
    missing = [f.message for r in run_checks(load_snapshot(root)) if r.check == "ROUTE-MISSING" for f in r.errors]
    # the leaf loses the spine's loopback (sent to it: out), the spine the leaf's prefixes (in)
    assert any(m.startswith("plane A: 10.10.0.0/32 (originated by a-spine-1)") and "(a-leaf-su1-r0)" in m
               and "deny-in-out` drops its routes both ways" in m for m in missing), missing
    assert any("(originated by a-leaf-su1-r0)" in m and "(a-spine-1)" in m for m in missing), missing
    # the same with the neighbor's route-map in kept: nothing is missing
    shutil.rmtree(root)
    shutil.copytree(clean, root)
    _missing_policy(root, "   neighbor 10.11.0.1 missing-policy direction in action deny-in-out\n")
    assert not [f for r in run_checks(load_snapshot(root)) for f in r.errors]


def test_undefined_route_map_denies(clean: Path, tmp_path: Path) -> None:
    """A route-map that is referenced but not defined denies everything (FRR semantics), so the
    leaf's prefixes stop propagating: the spine no longer learns them."""
    broken = tmp_path / "build"
    shutil.copytree(clean, broken)
    edit(broken / LEAF_A / "frr.conf", "route-map LOCAL-A-OUT permit 10", "route-map LOCAL-A-OUTX permit 10")
    from dualrail_net.verify.checks import Context
    ctx = Context(load_snapshot(broken))
    idx = ctx.routes.index
    leaf_block = idx.prefixes.index("10.12.0.0/26")
    assert not ctx.routes.rib[("a-spine-1", None)] >> leaf_block & 1
    assert ("a-leaf-su1-r0", "route-map LOCAL-A-OUT") in ctx.routes.undefined_refs
    assert re.search("LOCAL-A-OUT", str(ctx.routes.undefined_refs))


def test_an_unplanned_loopback_address_warns_and_the_planned_one_errs(clean: Path, tmp_path: Path) -> None:
    """A second address on lo that the plan does not have harms nothing (a warning: the fabric cannot
    reach it); the planned loopback left out of BGP is an error."""
    edited = tmp_path / "build"
    shutil.copytree(clean, edited)
    edit(edited / LEAF_A / "interfaces", "    address 10.10.0.32/32\n",
         "    address 10.10.0.32/32\n    address 10.10.0.99/32\n")
    found = [f for r in run_checks(load_snapshot(edited)) for f in r.findings]
    assert [(f.check, f.severity.value) for f in found] == [("ADDR-LOOPBACK-NOT-ADVERTISED", "warning")]
    assert "10.10.0.99/32 is not in the plan" in found[0].message
    edit(edited / LEAF_A / "frr.conf", "  network 10.10.0.32/32\n", "")
    errors = [f.message for r in run_checks(load_snapshot(edited)) for f in r.findings
              if f.check == "ADDR-LOOPBACK-NOT-ADVERTISED" and f.severity.value == "error"]
    assert errors == ["a-leaf-su1-r0 loopback 10.10.0.32/32 is not advertised"]


def test_an_unplanned_address_beside_a_fabric_ports_planned_one_warns(clean: Path, tmp_path: Path) -> None:
    """A second address on a leaf's uplink in no plane's space harms no route (a warning naming it);
    one in the plane's own space is an overlap (an error)."""
    edited = tmp_path / "build"
    shutil.copytree(clean, edited)
    edit(edited / LEAF_A / "interfaces", "    address 10.11.0.1/31\n", "    address 10.11.0.1/31\n    address 192.168.77.1/24\n")
    found = [f for r in run_checks(load_snapshot(edited)) for f in r.findings]
    assert [(f.check, f.severity.value) for f in found] == [("ADDR-P2P-MISMATCH", "warning")]
    assert found[0].message == "a-leaf-su1-r0:swp33 holds 192.168.77.1/24 beside its planned 10.11.0.1/31: not in the plan"
    edit(edited / LEAF_A / "interfaces", "    address 192.168.77.1/24\n", "    address 10.11.0.65/31\n")
    assert any(f.check == "ADDR-DUPLICATE-IP" and f.severity.value == "error"
               for r in run_checks(load_snapshot(edited)) for f in r.findings)


def _sessions_of(snap_dir: Path, device: str) -> dict[str, str]:
    from dualrail_net.verify.checks import Context
    topo = Context(load_snapshot(snap_dir)).topo
    return {(s.a_neighbor if s.a[0] == device else s.b_neighbor): (s.b[0] if s.a[0] == device else s.a[0])
            for s in topo.sessions if device in (s.a[0], s.b[0])}


@pytest.mark.parametrize("rule,leaks", [
    ("ip rule add from 10.12.0.0/20 lookup 1002 pref 500", True),  # plane A's servers, before l3mdev
    ("ip rule add from 10.22.0.0/20 lookup 1002 pref 500", False),  # plane B's own sources
    ("ip rule add iif swp5 table 1002", False),  # what arrives on a plane-B port (numbered 999)
    ("ip rule add lookup 1002 pref 2000", False),  # after l3mdev: the default VRF's packets, of no plane
    ("ip rule add iif lo lookup 1002", True),  # the gateway's own packets, of every VRF
    ("ip rule add iif plane-a lookup 1002", True),  # the VRF's own device
    ("ip rule add fwmark 7 lookup 1002 pref 500", False),  # only marked packets (not judged)
])
def test_a_gateways_lookup_rule_is_held_to_the_tables_plane(clean: Path, tmp_path: Path, rule: str,
                                                            leaks: bool) -> None:
    """A switch's `ip rule add ... lookup T` for a VRF's table T: ISO-VRF-LEAK when the packets it can
    take (by priority against the l3mdev rule, `iif`, `from`) include another plane's; the command
    stays reported as not modelled either way (where the looked-up routes send them is not
    followed); a file that also deletes a rule is not judged."""
    edited = tmp_path / "build"
    shutil.copytree(clean, edited)
    edit(edited / GW / "interfaces", "    vrf-table 1001\n", f"    vrf-table 1001\n    up {rule}\n")
    results = {r.check: r for r in run_checks(load_snapshot(edited))}
    assert bool(results["ISO-VRF-LEAK"].findings) == leaks, [f.message for f in results["ISO-VRF-LEAK"].findings]
    assert [f.message for f in results["PORTS-UNMODELLED"].findings] == \
        [f"multi-plane/gw-storage-1/interfaces:26: not modelled: post-up/up command: {rule}"]
    if leaks:
        assert results["ISO-VRF-LEAK"].findings[0].message.startswith("multi-plane/gw-storage-1/interfaces:26: ")
        edit(edited / GW / "interfaces", f"    up {rule}\n", f"    up {rule}\n    up ip rule del pref 1\n")
        assert not run_checks(load_snapshot(edited), only={"ISO-VRF-LEAK"})[0].findings


def test_two_leaves_sharing_an_asn_with_allowas_in_route_as_planned_and_are_named_off_plan(
        clean: Path, tmp_path: Path) -> None:
    """Two leaves given one ASN by hand, each taking the other's routes back with `allowas-in` (as
    FRR does: loop prevention lets N copies of the receiver's own ASN through): every route and
    session is as planned, and the one word is BGP-ASN-PLAN's warning on the leaf whose AS moved."""
    edited = tmp_path / "build"
    shutil.copytree(clean, edited)
    _same_asn_taken_back(edited)
    findings = [f for r in run_checks(load_snapshot(edited)) for f in r.findings]
    assert [(f.check, f.severity.value, f.devices) for f in findings] == \
        [("BGP-ASN-PLAN", "warning", ("a-leaf-su1-r1",))], [f.message for f in findings]
    assert "plane-A/a-leaf-su1-r1/frr.conf:26: " in findings[0].message and "AS 4200001101" in findings[0].message


def test_planes_unequal_in_server_or_external_links_are_warned_as_validation_warns(clean: Path, tmp_path: Path) -> None:
    """The inventory's validation warns (SYM-SERVER-BANDWIDTH, SYM-EXTERNAL) of planes given unequal
    server ports or external peerings, and the operator may accept it: verify says it as a warning
    too (a plan that validates must not fail verification for what validation accepted)."""
    edited = tmp_path / "build"
    shutil.copytree(clean, edited)
    edit_cabling(edited, lambda row: row["plane"] == "B" and row["kind"] == "server-leaf"
                 and row["a_device"] == "gpu001", speed="100G")
    path = edited / "resolved/cabling.csv"
    path.write_text("".join(line for line in path.read_text().splitlines(keepends=True)
                            if not line.startswith("B,external,")))
    findings = [f for r in run_checks(load_snapshot(edited)) for f in r.findings if f.check.startswith("SYM-")]
    assert sorted((f.check, f.severity.value) for f in findings) == \
        [("SYM-COUNTS", "warning"), ("SYM-SPEED", "warning")], [f.message for f in findings]
    assert all("validation warned" in f.why for f in findings)


def test_a_session_follows_the_kernel_routes_not_equal_subnets(clean: Path, tmp_path: Path) -> None:
    """Measured on the twin (the oracle's interfaces edits): a /30 against its spine's /31 still
    connects (each end reaches the other over its own connected route), but the /30's broadcast
    address, 10.11.0.3, is the leaf's next uplink address: configured later, it never answers, and
    that session is lost. Moving the /30 after the port it shadows keeps both."""
    edited = tmp_path / "build"
    shutil.copytree(clean, edited)
    assert _sessions_of(edited, "a-leaf-su1-r0") == {"10.11.0.0": "a-spine-1", "10.11.0.2": "a-spine-2",
                                                     "10.11.0.4": "a-spine-3", "10.11.0.6": "a-spine-4"}
    edit(edited / LEAF_A / "interfaces", "address 10.11.0.1/31", "address 10.11.0.1/30")
    assert _sessions_of(edited, "a-leaf-su1-r0") == {"10.11.0.0": "a-spine-1", "10.11.0.4": "a-spine-3",
                                                     "10.11.0.6": "a-spine-4"}
    messages = {f.check: f.message for r in run_checks(load_snapshot(edited)) for f in r.findings}
    assert "a-leaf-su1-r0:swp34 - a-spine-2" in messages["BGP-SESSION-MISSING"]
    assert "10.11.0.3 on a-leaf-su1-r0 swp34 is the broadcast address of swp33's 10.11.0.1/30" in \
        messages["BGP-ONE-SIDED"]
    # the port with the /30 after the one it shadows: the address came first and keeps answering
    text = (edited / LEAF_A / "interfaces").read_text()
    swp33 = text[text.index("auto swp33\n"):text.index("auto swp34\n")]
    (edited / LEAF_A / "interfaces").write_text(text.replace(swp33, "") + "\n" + swp33)
    assert set(_sessions_of(edited, "a-leaf-su1-r0")) == {"10.11.0.0", "10.11.0.2", "10.11.0.4", "10.11.0.6"}
    # a /32 has no connected route toward the spine
    edit(edited / LEAF_A / "interfaces", "address 10.11.0.1/30", "address 10.11.0.1/32")
    assert set(_sessions_of(edited, "a-leaf-su1-r0")) == {"10.11.0.2", "10.11.0.4", "10.11.0.6"}


@pytest.mark.parametrize("desc,check_id,mutate", MUTATIONS, ids=[m[0] for m in MUTATIONS])
def test_restricted_propagation_finds_exactly_the_foreign_routes(clean: Path, tmp_path: Path, desc: str,
                                                                  check_id: str, mutate: Callable[[Path], None]) -> None:
    """ISO-ROUTE-LEAK propagates only the prefixes that can cross planes; per instance, the foreign
    prefixes it finds must be those the full (quadratic) propagation finds."""
    from dualrail_net.verify.checks import Context
    from dualrail_net.verify.routes import _edges, _exposed_planes, bits
    broken = tmp_path / "build"
    shutil.copytree(clean, broken)
    mutate(broken)
    ctx = Context(load_snapshot(broken))
    full, fast = ctx.routes, ctx.foreign_routes

    def foreign(result, node):  # type: ignore[no-untyped-def]
        plane = ctx.topo.node_plane.get(node)
        prefixes = {result.index.prefixes[result.prefix_bit(b)] for b in bits(result.rib.get(node, 0))}
        return {p for p in prefixes if result.index.plane[result.index.prefixes.index(p)] not in (plane, None)}

    nodes = set(full.rib) | set(fast.rib)
    assert {n: foreign(full, n) for n in nodes if ctx.topo.node_plane.get(n)} == \
        {n: foreign(fast, n) for n in nodes if ctx.topo.node_plane.get(n)}, desc
    # the planes an edge leaves, read off the sessions, are those read off the built edges
    plane = ctx.topo.node_plane.get
    assert _exposed_planes(ctx.snap, ctx.topo) == {
        plane(src) for src, dst, *_ in _edges(ctx.snap, ctx.topo) if plane(src) != plane(dst) or plane(src) is None}


def test_cabling_rows_read_as_dictreader_reads_them(tmp_path: Path) -> None:
    from dualrail_net.verify.cabling import read_cabling
    from dualrail_net.verify.parsers.files import UnreadableFile
    path = tmp_path / "cabling.csv"
    header = "plane,kind,a_device,a_port,a_address,b_device,b_port,b_address,speed"
    for text in (f"{header}\nA,leaf-spine,x,1,,s,2,,400G\n\nB,leaf-spine,y,1,,t,2,,400G\n",  # well-formed, a blank line
                 f"{header}\nA,leaf-spine\nB,leaf-spine,y,1,,t,2,,400G,extra\n",  # short and long rows
                 f"{header},plane\nA,leaf-spine,x,1,,s,2,,400G,B\n",  # a field named twice: the later wins
                 f"{header}\n"):  # no rows
        path.write_text(text)
        plan, rows = read_cabling(path), list(csv.DictReader(text.splitlines()))
        assert plan == rows and list(plan) == rows and [plan[i] for i in range(len(plan))] == rows
        assert list(plan.column("kind")) == [row.get("kind") for row in rows]
        assert list(plan.column("a_device")) == [row.get("a_device") for row in rows]
    assert read_cabling(tmp_path / "missing.csv") == []
    # a header without a column the checks read: one line naming it, not a check's KeyError
    for text in ("plane,kind,a_device\nA,leaf-spine,x\n", header.replace("b_port", "port_b") + "\n"):
        path.write_text(text)
        with pytest.raises(UnreadableFile, match=r"cabling.csv:1: error: no column (a_port|b_port)"):
            read_cabling(path)


@pytest.fixture(scope="module")
def all_frr(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A small fabric whose spines run FRR too (the example's spines are EOS)."""
    inv = synthetic_inventory(Shape(spines_per_pod=2, sus_per_pod=1, rails=2, servers_per_su=2))
    out = tmp_path_factory.mktemp("frr") / "build"
    write_artifacts(render_fabric(resolve_fabric(inv)), out)
    return out


def _unnumbered(path: Path, address: str, port: str) -> None:
    """`neighbor ADDRESS` -> `neighbor PORT interface` (unnumbered), its ASN as `external`."""
    text = path.read_text()
    text = re.sub(rf"^ neighbor {re.escape(address)} remote-as \d+$", f" neighbor {port} interface remote-as external",
                  text, flags=re.M)
    path.write_text(text.replace(f"neighbor {address} ", f"neighbor {port} "))


def test_an_unnumbered_link_is_paired_over_its_cable(all_frr: Path, tmp_path: Path) -> None:
    edited = tmp_path / "build"
    shutil.copytree(all_frr, edited)
    _unnumbered(edited / "plane-A/a-leaf-su1-r0/frr.conf", "10.0.0.0", "swp33")
    _unnumbered(edited / "plane-A/a-spine-1/frr.conf", "10.0.0.1", "swp1")
    snap = load_snapshot(edited)
    results = run_checks(snap)
    assert [f"{f.check}: {f.message}" for r in results for f in r.findings] == []
    from dualrail_net.verify.checks import Context
    sessions = Context(snap).topo.sessions
    assert any(s.a_neighbor == "swp33" or s.b_neighbor == "swp33" for s in sessions)
    # one side only: no session, and the model loses that next hop
    one_side = tmp_path / "one"
    shutil.copytree(all_frr, one_side)
    _unnumbered(one_side / "plane-A/a-leaf-su1-r0/frr.conf", "10.0.0.0", "swp33")
    fired = {r.check for r in run_checks(load_snapshot(one_side)) if r.findings}
    assert {"BGP-ONE-SIDED", "ROUTE-ECMP-WIDTH"} <= fired


def test_the_plain_route_map_reading_agrees_with_the_bitset_one(clean: Path) -> None:
    """explain_route_map (one prefix at a time, what findings quote) and routes._route_map_mask (all
    prefixes at once, what the model propagates) must decide every prefix alike: on every route-map
    of the example and on policies with deny, ge/le, any and undefined names."""
    from dualrail_net.verify.routes import explain_route_map
    from dualrail_net.verify.model import DeviceConfig
    from dualrail_net.verify.parsers.frr import parse_frr
    from dualrail_net.verify.routes import PrefixIndex, _route_map_mask
    snap = load_snapshot(clean)
    odd = DeviceConfig("odd", "cumulus")
    parse_frr("ip prefix-list P seq 5 deny 10.12.0.0/26\nip prefix-list P seq 10 permit 10.0.0.0/8 ge 24 le 30\n"
              "ip prefix-list Q seq 5 permit any\nroute-map A deny 5\n match ip address prefix-list P\n"
              "route-map A permit 10\n match ip address prefix-list Q\nroute-map B permit 10\n"
              " match ip address prefix-list NOPE\nroute-map C permit 20\n match ip address prefix-list P\n"
              "route-map C permit 10\n", odd)
    prefixes = ["10.12.0.0/26", "10.12.0.64/26", "10.10.0.32/32", "10.11.0.0/31", "10.0.0.0/8", "10.200.0.0/16",
                "192.168.1.0/24", "10.12.0.0/20", "0.0.0.0/0"]
    idx = PrefixIndex()
    for p in prefixes:
        idx.add(p, ("", None), None)
    idx.freeze()
    full = (1 << len(idx.prefixes)) - 1
    compared = 0
    for dev in [*snap.devices.values(), odd]:
        for name in dev.route_maps:
            mask = _route_map_mask(dev, name, idx, full, {}, [])
            for bit, prefix in enumerate(idx.prefixes):
                assert explain_route_map(dev, name, prefix)[0] == bool(mask >> bit & 1), (dev.name, name, prefix)
                compared += 1
    assert compared > 100


@pytest.mark.parametrize("path,old,new", [
    ("servers/gpu001/nccl.env", "NCCL_IB_TC=104", "NCCL_IB_TC=\u00b2"),
    ("servers/gpu001/nccl.env", "NCCL_IB_TIMEOUT=22", "NCCL_IB_TIMEOUT=\u0663"),
    ("servers/gpu001/nccl-topo.xml", '<cpu numaid="0">', '<cpu numaid="\u00b2">'),
    ("servers/gpu001/interfaces", "    mtu 9214", "    mtu 9\u00b214"),
    ("ib-plane-IBA/opensm-standby.conf", "sm_priority 14", "sm_priority \u00b9\u2074"),
])
def test_a_digit_that_is_not_ascii_is_a_finding_not_a_crash(clean: Path, tmp_path: Path, path: str, old: str,
                                                              new: str) -> None:
    """str.isdigit() says yes to '\u00b2' and int() then raises: every reader takes ASCII digits only."""
    from dualrail_net.verify.front import VerifyOptions, verify_folder
    from dualrail_net.verify.ib.static import run_static
    broken = tmp_path / "build"
    shutil.copytree(clean, broken)
    edit(broken / path, old, new)
    results = run_static(broken) if path.startswith("ib-plane") else run_checks(load_snapshot(broken))
    assert any(r.findings for r in results), path


def test_tcp_md5_passwords_are_judged_pair_by_pair(all_frr: Path, tmp_path: Path) -> None:
    """Both ends FRR: the same password on both ends keeps the session, another password or one end
    without one takes it down (the kernel drops the segments); a peer-group carries it."""
    def with_passwords(leaf: str | None, spine: str | None, name: str) -> set[str]:
        edited = tmp_path / name
        shutil.copytree(all_frr, edited)
        for path, address, password in ((edited / "plane-A/a-leaf-su1-r0/frr.conf", "10.0.0.0", leaf),
                                        (edited / "plane-A/a-spine-1/frr.conf", "10.0.0.1", spine)):
            if password is not None:
                text = path.read_text()
                assert f" neighbor {address} remote-as" in text
                # after the remote-as line: bgpd refuses a neighbor's other lines before it
                path.write_text(re.sub(rf"^( neighbor {re.escape(address)} remote-as .*)$",
                                       rf"\1\n neighbor {address} password {password}", text, count=1, flags=re.M))
        return {f"{f.check}: {f.message}" for r in run_checks(load_snapshot(edited)) for f in r.findings}
    # the renderer's form, a named secret on both ends: nothing to say
    assert with_passwords("${secret:bgp-a}", "${secret:bgp-a}", "same") == set()
    # the same value written on both ends: the session holds, the key is in git (BGP-SECRET, each line)
    written = with_passwords("k1", "k1", "same-literal")
    assert {f.partition(":")[0] for f in written} == {"BGP-SECRET"} and len(written) == 2, written
    assert all("frr.conf:" in f and "written as a value" in f for f in written)
    for leaf, spine, name in (("k1", "k2", "differ"), ("k1", None, "leaf-only"), (None, "k2", "spine-only"),
                              ("${secret:bgp-a}", "${secret:bgp-b}", "other-secret")):
        down = [f for f in with_passwords(leaf, spine, name) if f.startswith("BGP-SESSION-DOWN")]
        assert len(down) == 1 and "TCP MD5" in down[0], (name, down)


def test_graceful_shutdown_drains_a_spine_where_the_community_reaches(all_frr: Path, tmp_path: Path) -> None:
    """`bgp graceful-shutdown` on an FRR spine: every leaf gives its paths local preference 0 and
    installs the other spine alone (ROUTE-ECMP-WIDTH names the line); a leaf the spine sends no
    communities to (`no neighbor X send-community`) keeps both; the model and its plain reference
    agree throughout."""
    from test_reference_rib import assert_agree
    spine = all_frr / "plane-A/a-spine-1/frr.conf"
    text = spine.read_text()
    bgp = re.search(r"^router bgp \d+\n", text, re.M)
    assert bgp is not None
    drained = tmp_path / "drained"
    shutil.copytree(all_frr, drained)
    (drained / "plane-A/a-spine-1/frr.conf").write_text(text[:bgp.end()] + " bgp graceful-shutdown\n" + text[bgp.end():])
    assert_agree(drained, "a spine in graceful-shutdown")
    findings = [f for r in run_checks(load_snapshot(drained)) for f in r.findings]
    assert {f.check for f in findings} == {"ROUTE-ECMP-WIDTH"}
    line = 1 + text[:bgp.end()].count("\n")
    narrowed = {f.devices[0] for f in findings}
    assert narrowed == {"a-leaf-su1-r0", "a-leaf-su1-r1"}, narrowed
    assert all(f"plane-A/a-spine-1/frr.conf:{line}: a-spine-1 is in `bgp graceful-shutdown`" in f.message
               for f in findings)
    # the spine sends one leaf no communities: that leaf keeps both spines
    leaf = re.search(r"^ neighbor (\S+) description a-leaf-su1-r0", text, re.M)
    assert leaf is not None
    partial = tmp_path / "partial"
    shutil.copytree(drained, partial)
    path = partial / "plane-A/a-spine-1/frr.conf"
    path.write_text(path.read_text().replace(" address-family ipv4 unicast\n",
                                             f" address-family ipv4 unicast\n  no neighbor {leaf.group(1)} send-community\n", 1))
    assert_agree(partial, "no communities to one leaf")
    assert {f.devices[0] for r in run_checks(load_snapshot(partial)) for f in r.findings} == {"a-leaf-su1-r1"}
    # the same line taken back further down: nothing changes
    undone = tmp_path / "undone"
    shutil.copytree(drained, undone)
    path = undone / "plane-A/a-spine-1/frr.conf"
    path.write_text(path.read_text().replace(" bgp graceful-shutdown\n", " bgp graceful-shutdown\n no bgp graceful-shutdown\n"))
    assert [f.message for r in run_checks(load_snapshot(undone)) for f in r.findings] == []


def _spine_into_leaf_asn(root: Path, leaves: tuple[str, ...]) -> int:
    """a-spine-1 (all-FRR fabric) moved into a-leaf-su1-r0's ASN, and ``leaves`` told so: their
    sessions with it become iBGP. Returns that ASN."""
    spine = root / "plane-A/a-spine-1/frr.conf"
    leaf_asn = re.search(r"^router bgp (\d+)$", (root / "plane-A/a-leaf-su1-r0/frr.conf").read_text(), re.M)
    spine_asn = re.search(r"^router bgp (\d+)$", spine.read_text(), re.M)
    assert leaf_asn and spine_asn
    spine.write_text(spine.read_text().replace(spine_asn.group(0), leaf_asn.group(0)))
    for leaf in leaves:
        path = root / "plane-A" / leaf / "frr.conf"
        text = path.read_text()
        up = re.search(r"^ neighbor (\S+) description a-spine-1:", text, re.M)
        assert up is not None
        path.write_text(text.replace(f" neighbor {up.group(1)} remote-as {spine_asn.group(1)}",
                                     f" neighbor {up.group(1)} remote-as {leaf_asn.group(1)}"))
    return int(leaf_asn.group(1))


def test_graceful_shutdown_and_route_maps_over_ibgp_are_said_not_judged(all_frr: Path, tmp_path: Path) -> None:
    """A spine moved into a leaf's ASN holds an iBGP session with it. bgpd in graceful-shutdown
    sends an iBGP peer every route with local preference 0, and a route-map's local preference
    crosses iBGP: the model follows neither, so each is reported with its line, never passed in
    silence."""
    edited = tmp_path / "build"
    shutil.copytree(all_frr, edited)
    spine = edited / "plane-A/a-spine-1/frr.conf"
    to_leaf = re.search(r"^ neighbor (\S+) description a-leaf-su1-r0", spine.read_text(), re.M)
    assert to_leaf
    leaf_asn = _spine_into_leaf_asn(edited, ("a-leaf-su1-r0", "a-leaf-su1-r1"))
    spine.write_text(spine.read_text().replace(f"router bgp {leaf_asn}\n", f"router bgp {leaf_asn}\n bgp graceful-shutdown\n"))
    line = 1 + spine.read_text().split(" bgp graceful-shutdown\n")[0].count("\n")
    said = [f.message for r in run_checks(load_snapshot(edited)) for f in r.findings
            if f.check == "ROUTE-POLICY-UNMODELLED"]
    assert any(m.startswith(f"plane-A/a-spine-1/frr.conf:{line}: ") and "iBGP peer a-leaf-su1-r0" in m
               and "local preference 0" in m for m in said), said
    # without graceful-shutdown, a route-map setting local preference on that iBGP session
    spine.write_text(spine.read_text().replace(" bgp graceful-shutdown\n", ""))
    assert not [m for r in run_checks(load_snapshot(edited)) for f in r.findings
                for m in [f.message] if f.check == "ROUTE-POLICY-UNMODELLED"]
    text = spine.read_text().replace(f"  neighbor {to_leaf.group(1)} route-map PLANE-A-IN in\n",
                                     f"  neighbor {to_leaf.group(1)} route-map LP-IN in\n")
    assert "route-map LP-IN in" in text
    head, bgp = text.split("router bgp ", 1)
    spine.write_text(head + "route-map LP-IN permit 10\n match ip address prefix-list PLANE-A\n"
                     " set local-preference 200\nexit\n!\nrouter bgp " + bgp)
    set_line = 3 + head.count("\n")
    said = [f.message for r in run_checks(load_snapshot(edited)) for f in r.findings
            if f.check == "ROUTE-POLICY-UNMODELLED"]
    assert any(m.startswith(f"plane-A/a-spine-1/frr.conf:{set_line}: ") and "iBGP session" in m for m in said), said


def test_addpath_with_next_hops_of_their_own_is_said_not_judged(all_frr: Path, tmp_path: Path) -> None:
    """addpath-tx over eBGP changes nothing a receiver installs (every path has the sender as next
    hop); with the next hops left unchanged the extra paths could widen the receiver's multipath:
    reported with the line, not judged."""
    edited = tmp_path / "build"
    shutil.copytree(all_frr, edited)
    spine = edited / "plane-A/a-spine-1/frr.conf"
    text = spine.read_text()
    leaf = re.search(r"^ neighbor (\S+) description a-leaf-su1-r0", text, re.M)
    assert leaf is not None and " address-family ipv4 unicast\n" in text
    spine.write_text(text.replace(" address-family ipv4 unicast\n", " address-family ipv4 unicast\n"
                                  f"  neighbor {leaf.group(1)} addpath-tx-all-paths\n", 1))
    assert [f.message for r in run_checks(load_snapshot(edited)) for f in r.findings] == []
    spine.write_text(spine.read_text().replace(f"  neighbor {leaf.group(1)} addpath-tx-all-paths\n",
                                               f"  neighbor {leaf.group(1)} addpath-tx-all-paths\n"
                                               f"  neighbor {leaf.group(1)} attribute-unchanged next-hop\n"))
    said = [f.message for r in run_checks(load_snapshot(edited)) for f in r.findings
            if "addpath-tx" in f.message]
    line = 1 + spine.read_text().split(f"  neighbor {leaf.group(1)} addpath-tx-all-paths\n")[0].count("\n")
    assert said and all(f"plane-A/a-spine-1/frr.conf:{line}:" in m for m in said), said


def test_gtsm_needs_both_ends_and_local_as_the_peers_remote_as(clean: Path) -> None:
    """ttl-security (GTSM) on one end drops the other end's TTL-1 packets; on both ends (TTL 255
    sent, 255 wanted) the session comes up. local-as is the ASN the peer must expect. The one-end
    and the mismatched local-as cases are held to the twin (bench_oracle.py, kind session-transport)."""
    from dualrail_net.verify.controlplane import session_state
    from dualrail_net.verify.topology import build_topology
    snap = load_snapshot(clean)
    topo = build_topology(snap)
    session = next(s for s in topo.sessions if {s.a[0], s.b[0]} == {"a-leaf-su1-r0", "a-spine-1"})
    leaf_end = session.a if session.a[0] == "a-leaf-su1-r0" else session.b
    spine_end = session.b if leaf_end == session.a else session.a
    leaf_nbr = snap.devices["a-leaf-su1-r0"].bgp[leaf_end[1]].neighbors[
        session.a_neighbor if leaf_end == session.a else session.b_neighbor]
    spine_nbr = snap.devices["a-spine-1"].bgp[spine_end[1]].neighbors[
        session.b_neighbor if leaf_end == session.a else session.a_neighbor]
    assert session_state(snap, topo, session).up
    leaf_nbr.ttl_security = 1
    down = session_state(snap, topo, session)
    assert not down.up and "TTL >= 255" in down.reason and "sends with TTL 1" in down.reason
    spine_nbr.ttl_security = 1
    assert session_state(snap, topo, session).up
    spine_nbr.ttl_security = None
    spine_nbr.ebgp_multihop = 255  # sends with TTL 255: GTSM on the leaf takes it
    assert session_state(snap, topo, session).up
    leaf_nbr.ttl_security, spine_nbr.ebgp_multihop = None, None
    leaf_nbr.local_as = 4200009999
    refused = session_state(snap, topo, session)
    assert not refused.up and "presents AS 4200009999" in refused.reason
    spine_nbr.remote_asn = 4200009999  # the spine expects the ASN the leaf presents
    assert session_state(snap, topo, session).up


def test_an_end_without_capabilities_shows_as_trans_for_a_4_octet_asn(clean: Path, tmp_path: Path) -> None:
    """`dont-capability-negotiate` sends an OPEN without the 4-octet AS capability, so a leaf's ASN
    above 65535 goes as AS_TRANS and the spine refuses it (bad peer AS: measured on the twin, kind
    session-transport); the line is named, it is read through a peer-group, and `no` takes it back.
    With a 2-octet ASN the OPEN carries the real one and the session comes up."""
    edited = tmp_path / "build"
    shutil.copytree(clean, edited)
    conf = edited / LEAF_A / "frr.conf"
    anchor = " neighbor 10.11.0.0 description a-spine-1:Ethernet1\n"
    edit(conf, anchor, anchor + " neighbor 10.11.0.0 dont-capability-negotiate\n")
    line = 1 + conf.read_text().split(" neighbor 10.11.0.0 dont-capability-negotiate")[0].count("\n")
    found = [(f.check, f.message) for r in run_checks(load_snapshot(edited)) for f in r.findings]
    down = [m for c, m in found if c == "BGP-SESSION-DOWN"]
    assert down and any(f"{LEAF_A}/frr.conf:{line}:" in m and "AS 23456" in m and "AS_TRANS" in m for m in down), found
    assert not [c for c, _ in found if c == "CONFIG-UNMODELLED"], found
    # through a peer-group the member takes it
    edit(conf, anchor + " neighbor 10.11.0.0 dont-capability-negotiate\n",
         anchor + " neighbor NOCAP peer-group\n neighbor NOCAP dont-capability-negotiate\n"
         " neighbor 10.11.0.0 peer-group NOCAP\n")
    assert "BGP-SESSION-DOWN" in {f.check for r in run_checks(load_snapshot(edited)) for f in r.findings}
    # taken back
    edit(conf, " neighbor NOCAP dont-capability-negotiate\n",
         " neighbor NOCAP dont-capability-negotiate\n no neighbor NOCAP dont-capability-negotiate\n")
    assert [f.message for r in run_checks(load_snapshot(edited)) for f in r.findings] == []


def test_an_end_without_capabilities_and_a_2_octet_asn_comes_up(clean: Path) -> None:
    """Only an ASN above 65535 is lost with the capabilities: a 2-octet one (here a local-as the
    peer expects) fits the OPEN's own field."""
    from dualrail_net.verify.controlplane import AS_TRANS, session_state, shown_asn
    from dualrail_net.verify.topology import build_topology
    snap = load_snapshot(clean)
    topo = build_topology(snap)
    session = next(s for s in topo.sessions if {s.a[0], s.b[0]} == {"a-leaf-su1-r0", "a-spine-1"})
    a_nbr = snap.devices[session.a[0]].bgp[session.a[1]].neighbors[session.a_neighbor]
    b_nbr = snap.devices[session.b[0]].bgp[session.b[1]].neighbors[session.b_neighbor]
    a_nbr.no_capabilities_line = 7
    assert shown_asn(a_nbr, 4200001100) == AS_TRANS and shown_asn(a_nbr, 65001) == 65001
    assert not session_state(snap, topo, session).up
    a_nbr.local_as = 65001  # a 2-octet local-as fits the OPEN's field: the peer must expect it
    b_nbr.remote_asn = 65001
    assert session_state(snap, topo, session).up


def test_an_entry_that_matches_on_a_list_does_not_hide_the_entries_after_it(clean: Path, tmp_path: Path) -> None:
    """ROUTE-DEAD-POLICY said every entry after one without a prefix-list was never reached; an entry
    that matches a community list (defined or not) matches some routes or none, never all."""
    edited = tmp_path / "build"
    shutil.copytree(clean, edited)
    edit(edited / LEAF_A / "frr.conf", "route-map PLANE-A-IN permit 10\n",
         "bgp community-list standard NOEXPORT seq 5 permit no-export\n"
         "route-map PLANE-A-IN permit 5\n match community NOEXPORT\nexit\nroute-map PLANE-A-IN permit 10\n")
    found = [(f.check, f.message) for r in run_checks(load_snapshot(edited)) for f in r.findings]
    assert not [f for f in found if f[0] == "ROUTE-DEAD-POLICY"], found
    assert {f[0] for f in found} == {"CONFIG-UNMODELLED"}  # the list's entries are not evaluated: said so
    edit(edited / LEAF_A / "frr.conf", "route-map PLANE-A-IN permit 5\n match community NOEXPORT\n",
         "route-map PLANE-A-IN permit 5\n")  # now it matches everything
    found = [(f.check, f.message) for r in run_checks(load_snapshot(edited)) for f in r.findings]
    assert any(c == "ROUTE-DEAD-POLICY" and "PLANE-A-IN permit 10 is never reached" in m for c, m in found), found


def test_community_matches_are_judged_on_routes_without_communities(clean: Path, tmp_path: Path) -> None:
    """Nothing in the example gives a route a community, so a route-map's match on a community-list
    read whole has one answer for the fabric's routes (verify/communities.py): a deny entry on a
    list such a route does not match changes nothing (it was a false ROUTE-MISSING), a list whose
    expression matches the empty string matches every such route; the external peers' routes stay
    unjudged and said so. Once a route-map anywhere sets a community, the clause is reported and not
    evaluated. The model and its plain reference agree throughout."""
    from test_reference_rib import assert_agree

    def findings(name: str, *edits: tuple[str, str, str]) -> list[tuple[str, str, str]]:
        edited = tmp_path / name
        shutil.copytree(clean, edited)
        for path, old, new in edits:
            edit(edited / path, old, new)
        assert_agree(edited, name)
        return [(f.check, f.severity.value, f.message) for r in run_checks(load_snapshot(edited)) for f in r.findings]

    deny_first = (LEAF_A + "/frr.conf", "route-map LOCAL-A-OUT permit 10\n",
                  "bgp community-list standard NOEXP seq 5 permit no-export\n"
                  "route-map LOCAL-A-OUT deny 5\n match community NOEXP\nexit\nroute-map LOCAL-A-OUT permit 10\n")
    found = findings("deny-first", deny_first)
    assert [f for f in found if f[1] == "error"] == [], found
    assert {f[0] for f in found} == {"CONFIG-UNMODELLED"} and all("external peers" in f[2] for f in found), found
    # an expanded list whose expression matches the empty string: the permit entry keeps every route
    found = findings("empty-matches", (LEAF_A + "/frr.conf", "route-map LOCAL-A-OUT permit 10\n match ip address "
                                       "prefix-list LOCAL-A\n", "bgp community-list expanded ALL permit _\n!\n"
                                       "route-map LOCAL-A-OUT permit 10\n match ip address prefix-list LOCAL-A\n"
                                       " match community ALL\n"))
    assert [f for f in found if f[1] == "error"] == [], found
    # the same clause on a list of one tag nothing sets: the leaf's prefixes go nowhere
    tagged = (LEAF_A + "/frr.conf", "route-map LOCAL-A-OUT permit 10\n match ip address prefix-list LOCAL-A\n",
              "bgp community-list standard TAGGED permit 65000:100\n!\n"
              "route-map LOCAL-A-OUT permit 10\n match ip address prefix-list LOCAL-A\n match community TAGGED\n")
    found = findings("tagged", tagged)
    assert any(f[0] == "ROUTE-MISSING" and f[1] == "error" for f in found), found
    # a spine that sets a community: the leaf's clause is no longer judged (reported, as before)
    sets = (SPINE_A + "/running-config", "route-map PLANE-A-OUT permit 10\n   match ip address prefix-list PLANE-A\n",
            "route-map PLANE-A-OUT permit 10\n   match ip address prefix-list PLANE-A\n   set community 65000:100\n")
    found = findings("with-a-source", tagged, sets)
    assert not any(f[0] == "ROUTE-MISSING" for f in found), found
    assert any(f[0] == "CONFIG-UNMODELLED" and "match community TAGGED: not evaluated, routes get communities at a-spine-1:" in f[2]
               for f in found), found


def test_maximum_paths_ibgp_is_read_and_said_only_where_ibgp_runs(all_frr: Path, tmp_path: Path) -> None:
    """`maximum-paths ibgp N` caps what iBGP brings: on a fabric of eBGP sessions it changes nothing
    (no finding); on a spine moved into a leaf's ASN (an iBGP session with it) it is reported."""
    edited = tmp_path / "build"
    shutil.copytree(all_frr, edited)
    leaf0 = edited / "plane-A/a-leaf-su1-r0/frr.conf"
    leaf0.write_text(leaf0.read_text().replace("  maximum-paths 64\n", "  maximum-paths 64\n  maximum-paths ibgp 4\n"))
    assert [f.message for r in run_checks(load_snapshot(edited)) for f in r.findings] == []
    _spine_into_leaf_asn(edited, ("a-leaf-su1-r0",))
    line = 1 + leaf0.read_text().split("  maximum-paths ibgp 4\n")[0].count("\n")
    said = [f.message for r in run_checks(load_snapshot(edited)) for f in r.findings
            if f.check == "ROUTE-POLICY-UNMODELLED"]
    assert any(m.startswith(f"plane-A/a-leaf-su1-r0/frr.conf:{line}: ") and "maximum-paths ibgp" in m
               for m in said), said


def test_qp_patience_is_held_to_the_plane_recovery_time() -> None:
    from dualrail_net.verify.checks.hostnccl import PLANE_RECOVERY_S, _qp_patience, qp_gives_up_after
    assert qp_gives_up_after(22, 7) == pytest.approx(4.096e-6 * 2 ** 22 * 8)  # the rendered values: 137 s
    assert qp_gives_up_after(0, 7) == float("inf")  # 0: the QP never times out
    # 18 with 7 retries: 8.6 s, just short of the hold time; 19: 17 s
    assert qp_gives_up_after(18, 7) < PLANE_RECOVERY_S < qp_gives_up_after(19, 7)
    from dualrail_net.verify.checks import running
    with running("HOST-NCCL-TRANSPORT"):
        assert _qp_patience("s", {"NCCL_IB_TIMEOUT": "18"}) and not _qp_patience("s", {"NCCL_IB_TIMEOUT": "19"})
        assert not _qp_patience("s", {})  # NCCL's defaults: 20 and 7
        assert not _qp_patience("s", {"NCCL_IB_TIMEOUT": "40"})  # out of range: reported by the range rule alone


def test_a_defined_filter_list_toward_an_external_peer_is_said_not_judged(clean: Path, tmp_path: Path) -> None:
    broken = tmp_path / "build"
    shutil.copytree(clean, broken)
    edit(broken / GW / "frr.conf", "  neighbor 100.64.0.1 route-map EXTERNAL-A-OUT out\n",
         "  neighbor 100.64.0.1 route-map EXTERNAL-A-OUT out\n  neighbor 100.64.0.1 filter-list ANY out\n")
    edit(broken / GW / "frr.conf", "route-map PLANE-A-IN permit 10\n",
         "bgp as-path access-list ANY seq 5 permit .*\n!\nroute-map PLANE-A-IN permit 10\n")
    found = [f for r in run_checks(load_snapshot(broken)) for f in r.findings]
    assert [(f.check, f.severity) for f in found] == [("BGP-EXTERNAL-EXPORT", Severity.WARNING)]
    assert "filter-list ANY out toward external peer storage-a-1" in found[0].message


def test_a_dead_network_statement_for_another_loopback_takes_nothing_from_its_owner(clean: Path,
                                                                                   tmp_path: Path) -> None:
    """A leaf's `network` for a neighbour's loopback that it has no route for advertises nothing
    (a warning); the owner still originates its loopback (the check once read the prefix index's
    one origin per prefix and blamed the owner)."""
    edited = tmp_path / "build"
    shutil.copytree(clean, edited)
    edit(edited / LEAF_A / "frr.conf", "  network 10.10.0.32/32\n", "  network 10.10.0.32/32\n  network 10.10.0.33/32\n")
    findings = {(f.check, f.severity.value) for r in run_checks(load_snapshot(edited)) for f in r.findings}
    assert findings == {("ROUTE-DEAD-NETWORK", "warning")}


def test_a_spine_in_max_med_narrows_every_leaf(all_frr: Path, tmp_path: Path) -> None:
    """`bgp max-med administrative` on one spine: every leaf hears each prefix from all spines (one
    neighbor AS), compares MEDs and drops that spine's paths; with MED 0 nothing changes."""
    spine = next(all_frr.glob("plane-A/*spine-1/frr.conf"))
    for value, expected in (("", True), (" 0", False)):
        work = tmp_path / f"m{value.strip() or 'max'}"
        shutil.copytree(all_frr, work)
        target = work / spine.relative_to(all_frr)
        text = target.read_text()
        text = re.sub(r"^( bgp router-id \S+)$", rf"\1\n bgp max-med administrative{value}", text, count=1, flags=re.M)
        target.write_text(text)
        findings = [f for r in run_checks(load_snapshot(work)) if r.check == "ROUTE-ECMP-WIDTH" for f in r.findings]
        assert bool(findings) == expected, findings
        if expected:
            assert "max-med administrative" in findings[0].message and "MED 4294967294" in findings[0].message


def test_a_leaf_originating_another_leafs_prefix_is_told_it_originates_it(clean: Path, tmp_path: Path) -> None:
    """A leaf that redistributes a static of another leaf's server subnet installs no path through
    the spines for it: the reason names its own origination (its own route wins), not multipath."""
    broken = tmp_path / "build"
    shutil.copytree(clean, broken)
    edit(broken / LEAF_A / "frr.conf", "ip route 10.12.0.0/26 blackhole\n",
         "ip route 10.12.0.0/26 blackhole\nip route 10.12.0.64/26 blackhole\n")
    edit(broken / LEAF_A / "frr.conf", "  maximum-paths 64\n", "  maximum-paths 64\n  redistribute static\n")
    results = {r.check: r for r in run_checks(load_snapshot(broken))}
    width = [f.message for f in results["ROUTE-ECMP-WIDTH"].findings if f.message.startswith("a-leaf-su1-r0 ")]
    assert width and all("a-leaf-su1-r0 originates it itself" in m for m in width), width


def test_nccl_numbers_read_as_strtoll_base_0_reads_them() -> None:
    """nccl_number against the C library's own strtoll (NCCL's ncclLoadParam calls it with base 0
    and looks at nothing after the number): the same number for every text, None where NCCL keeps
    its default (empty, or past int64)."""
    import ctypes
    import random

    from dualrail_net.verify.checks.hosts import nccl_number

    libc = ctypes.CDLL(None)
    libc.strtoll.restype = ctypes.c_longlong
    libc.strtoll.argtypes = [ctypes.c_char_p, ctypes.c_void_p, ctypes.c_int]
    rng = random.Random(37)
    pieces = ["", " ", "\t", "+", "-", "0", "0x", "0X", "1", "7", "8", "9", "a", "F", "g", "x", "104", "#", "=", "00"]
    texts = ["104", "0x68", "0150", " 104", "104abc", "abc", "-1", "0x", "0x1g", "08", "+7", "- 1", "0X1F"]
    texts += ["".join(rng.choice(pieces) for _ in range(rng.randint(1, 5))) for _ in range(3000)]
    for text in texts:
        expected = libc.strtoll(text.encode(), None, 0) if text else None
        assert nccl_number(text) == expected, text
    assert nccl_number("9" * 30) is None  # ERANGE: NCCL keeps its default
    # longer than int() reads in decimal (4,300 digits): no crash, NCCL's default; leading zeros count for nothing
    assert nccl_number("9" * 5000) is None and nccl_number("0x" + "f" * 5000) is None
    assert nccl_number("0" * 5000 + "7") == 7 and nccl_number("0x" + "0" * 5000 + "68") == 104


def test_ucx_numbers_read_as_sscanf_lu_reads_them() -> None:
    """ucx_units against the C library's own sscanf("%lu") (UCX's ucs_config_sscanf_ulunits after
    its `auto` and `inf` words): the same number for every text; a text sscanf reads no number from
    is UCX_REFUSED (UCX rejects the setting), one it finds empty (EOF, which UCX takes as read)
    keeps the default (UCX_AUTO)."""
    import ctypes
    import random

    from dualrail_net.verify.checks.hosts import UCX_AUTO, UCX_REFUSED, ucx_traffic_class, ucx_units

    libc = ctypes.CDLL(None)

    def sscanf_lu(text: str) -> int | str:
        value = ctypes.c_ulong(0)
        count = libc.sscanf(text.encode(), b"%lu", ctypes.byref(value))
        return UCX_AUTO if count == -1 else UCX_REFUSED if count == 0 else value.value

    rng = random.Random(48)
    pieces = ["", " ", "\t", "+", "-", "0", "0x", "1", "3", "9", "a", "x", "104", "#", "00", "99999999999"]
    texts = ["3", "03", " 3", "3x", "0x3", "-3", "+", "-", " ", "", "0" * 50 + "3", "9" * 25, "-" + "9" * 25,
             "18446744073709551615", "18446744073709551616", "-18446744073709551615"]
    texts += ["".join(rng.choice(pieces) for _ in range(rng.randint(1, 5))) for _ in range(3000)]
    for text in texts:
        assert ucx_units(text) == sscanf_lu(text), text
    assert ucx_units("AUTO") == ucx_units(None) == UCX_AUTO and ucx_units("Inf") == (1 << 64) - 1
    assert ucx_units("9" * 5000) == (1 << 64) - 1  # no crash on a long number
    # the class UCX marks: its default on RoCEv2 is 106, a refused text marks nothing
    assert ucx_traffic_class(None) == ucx_traffic_class("auto") == 106
    assert ucx_traffic_class("0x68") == 0 and ucx_traffic_class("0104") == 104 and ucx_traffic_class("high") is None



def test_redistribute_static_takes_no_kernel_route(clean: Path, tmp_path: Path) -> None:
    """zebra's kernel routes reach BGP through a `network` statement or `redistribute kernel`, not
    `redistribute static`: with `redistribute static`, a leaf originates its new static route's
    prefix and not its post-up route's; a `network` statement takes the kernel route; `redistribute
    kernel` takes the post-up route's and not the static one's."""
    from dualrail_net.verify.controlplane import originated
    from dualrail_net.verify.topology import build_topology
    edited = tmp_path / "build"
    shutil.copytree(clean, edited)
    edit(edited / LEAF_A / "interfaces", "    address 10.11.0.1/31\n",
         "    address 10.11.0.1/31\n    post-up ip route add blackhole 10.12.15.0/24\n")
    edit_each(edited / LEAF_A / "frr.conf", "  maximum-paths 64\n",
              "  maximum-paths 64\n  redistribute static\n  network 10.12.14.0/24\n",
              "ip route 10.12.0.0/26 blackhole\n",
              "ip route 10.12.0.0/26 blackhole\nip route 10.12.13.0/24 blackhole\n")
    snap = load_snapshot(edited)
    edit(edited / LEAF_A / "interfaces", "    post-up ip route add blackhole 10.12.15.0/24\n",
         "    post-up ip route add blackhole 10.12.15.0/24\n    post-up ip route add blackhole 10.12.14.0/24\n")
    again = load_snapshot(edited)
    leaf = ("a-leaf-su1-r0", None)
    first = originated(snap, build_topology(snap), leaf).prefixes
    assert "10.12.13.0/24" in first and "10.12.15.0/24" not in first and "10.12.14.0/24" not in first
    assert "10.12.14.0/24" in originated(again, build_topology(again), leaf).prefixes
    edit(edited / LEAF_A / "frr.conf", "  redistribute static\n", "  redistribute kernel\n")
    kernel = load_snapshot(edited)
    by_kernel = originated(kernel, build_topology(kernel), leaf)
    assert "10.12.15.0/24" in by_kernel.prefixes and "10.12.13.0/24" not in by_kernel.prefixes
    assert not [line for line, text in kernel.devices["a-leaf-su1-r0"].unmodelled if "redistribute" in text]


def test_a_cumulus_port_without_mtu_runs_the_platform_default_and_says_so(clean: Path, tmp_path: Path) -> None:
    """A leaf port whose stanza has no `mtu` line runs Cumulus's default (9216), not "None": the
    plane's and the cable's QOS-MTU name the value and the file that sets none; a post-up command
    that sets one still wins."""
    from dualrail_net.platforms.cumulus.parse import CUMULUS_PORT_MTU
    broken = tmp_path / "build"
    shutil.copytree(clean, broken)
    edit(broken / LEAF_A / "interfaces", "    address 10.11.0.1/31\n    mtu 9214\n", "    address 10.11.0.1/31\n")
    snap = load_snapshot(broken)
    leaf = snap.devices[LEAF_A.split("/")[-1]]
    assert leaf.interfaces["swp33"].mtu == CUMULUS_PORT_MTU and leaf.default_mtu == {"swp33": "interfaces"}
    messages = [f.message for r in run_checks(snap) if r.check == "QOS-MTU" for f in r.findings]
    assert len(messages) == 2 and all(f"MTU {CUMULUS_PORT_MTU} ({LEAF_A}/interfaces sets none" in m for m in messages)
    edit(broken / LEAF_A / "interfaces", "    address 10.11.0.1/31\n",
         "    address 10.11.0.1/31\n    post-up ip link set dev swp33 mtu 9214\n")
    assert [f for r in run_checks(load_snapshot(broken)) if r.check == "QOS-MTU" for f in r.findings] == []


def _with_leaf_statement(clean: Path, tmp_path: Path, statement: str) -> tuple[Path, int, list[tuple[str, str]]]:
    """A copy of the clean build with ``statement`` (lines) after LEAF_A's last neighbor
    description: its frr.conf, the first added line's number, and every finding (check, message)."""
    edited = tmp_path / "build"
    shutil.copytree(clean, edited)
    conf = edited / LEAF_A / "frr.conf"
    anchor = " neighbor 10.11.0.6 description a-spine-4:Ethernet1\n"
    edit(conf, anchor, anchor + f" {statement}\n")
    line = 1 + conf.read_text().split(f" {statement}")[0].count("\n")
    return conf, line, [(f.check, f.message) for r in run_checks(load_snapshot(edited)) for f in r.findings]


def _uplink_session(snap, topo):  # type: ignore[no-untyped-def]
    """a-leaf-su1-r0's session with a-spine-1 and its two ends (leaf's, spine's)."""
    session = next(s for s in topo.sessions if {s.a[0], s.b[0]} == {"a-leaf-su1-r0", "a-spine-1"})
    ends = [snap.devices[session.a[0]].bgp[session.a[1]].neighbors[session.a_neighbor],
            snap.devices[session.b[0]].bgp[session.b[1]].neighbors[session.b_neighbor]]
    return session, ends if session.a[0] == "a-leaf-su1-r0" else ends[::-1]


@pytest.mark.parametrize(("leaf", "spine", "up"), [
    (("customer", False), None, True),           # the spine sends no role: only a strict end minds
    (("customer", True), None, False),           # strict: Role Mismatch (the twin, kind session-knob)
    (("peer", True), None, False),
    (("customer", False), ("provider", False), True),
    (("customer", True), ("provider", True), True),
    (("rs-client", False), ("rs-server", False), True),
    (("peer", False), ("peer", True), True),
    (("customer", False), ("customer", False), False),  # both send one, no pair: refused, strict or not
    (("provider", False), ("peer", False), False),
    (None, ("rs-server", True), False),
])
def test_bgp_roles_refuse_a_session_only_when_they_cannot_pair(
        clean: Path, leaf: tuple[str, bool] | None, spine: tuple[str, bool] | None, up: bool) -> None:
    """RFC 9234 roles on a leaf's uplink: two roles that do not pair, or a strict end whose peer
    sends none, refuse the OPEN (Role Mismatch); the reason names the role's line."""
    from dualrail_net.verify.controlplane import session_state
    from dualrail_net.verify.topology import build_topology
    snap = load_snapshot(clean)
    topo = build_topology(snap)
    session, (leaf_end, spine_end) = _uplink_session(snap, topo)
    for end, role, line in ((leaf_end, leaf, 41), (spine_end, spine, 42)):
        if role is not None:
            end.local_role, end.local_role_strict, end.local_role_line = role[0], role[1], line
    state = session_state(snap, topo, session)
    assert state.up == up, state.reason
    if not up:
        assert "Role Mismatch" in state.reason and (":41:" in state.reason or ":42:" in state.reason), state.reason


def test_a_strict_role_in_a_file_downs_the_session_and_roles_on_several_sessions_are_said(
        clean: Path, tmp_path: Path) -> None:
    """The line as written: `local-role customer strict-mode` toward a spine that sends no role is
    BGP-SESSION-DOWN at its line, also through a peer-group, and `no` takes it back; a role without
    strict mode on one session changes nothing (no finding); roles on several sessions are each
    said (their marks on routes, OTC, are not evaluated)."""
    conf, line, found = _with_leaf_statement(clean, tmp_path, "neighbor 10.11.0.0 local-role customer strict-mode")
    edited = conf.parents[2]
    down = [m for c, m in found if c == "BGP-SESSION-DOWN"]
    assert down and all(f"{LEAF_A}/frr.conf:{line}:" in m and "Role Mismatch" in m for m in down), found
    edit(conf, " neighbor 10.11.0.0 local-role customer strict-mode\n",
         " neighbor ROLES peer-group\n neighbor ROLES local-role customer strict-mode\n"
         " neighbor 10.11.0.0 peer-group ROLES\n")
    assert "BGP-SESSION-DOWN" in {f.check for r in run_checks(load_snapshot(edited)) for f in r.findings}
    edit(conf, " neighbor ROLES local-role customer strict-mode\n",
         " neighbor ROLES local-role customer strict-mode\n no neighbor ROLES local-role customer strict-mode\n")
    assert [f.message for r in run_checks(load_snapshot(edited)) for f in r.findings] == []
    edit(conf, " neighbor ROLES local-role customer strict-mode\n no neighbor ROLES local-role customer strict-mode\n",
         " neighbor ROLES local-role customer\n neighbor 10.11.0.2 local-role customer\n")
    said = [(f.check, f.message) for r in run_checks(load_snapshot(edited)) for f in r.findings]
    assert len(said) == 2 and all(c == "CONFIG-UNMODELLED" and "OTC" in m for c, m in said), said


def test_roles_on_one_session_are_judged_whole_and_on_more_are_said(clean: Path) -> None:
    """Both ends of one session with roles: their marks meet no other role session, nothing to say;
    a role on a second session: every role line is said (CONFIG-UNMODELLED), none judged."""
    from dualrail_net.verify.roles import judge_role_routes
    from dualrail_net.verify.topology import build_topology
    snap = load_snapshot(clean)
    _, (leaf_end, spine_end) = _uplink_session(snap, build_topology(snap))
    leaf_end.local_role, leaf_end.local_role_line = "customer", 41
    spine_end.local_role, spine_end.local_role_line = "provider", 42
    judge_role_routes(snap)
    assert not snap.devices["a-leaf-su1-r0"].unmodelled and not snap.devices["a-spine-1"].unmodelled
    other = snap.devices["a-leaf-su1-r0"].bgp[None].neighbors["10.11.0.2"]
    other.local_role, other.local_role_line = "customer", 43
    judge_role_routes(snap)
    said = sorted(line for dev in snap.devices.values() for line, why in dev.unmodelled if "OTC" in why)
    assert said == [41, 42, 43]


@pytest.mark.parametrize(("statement", "down_on"), [
    ("neighbor 10.11.0.0 interface lo", "lo"),        # the twin: the session never comes up (session-knob)
    ("neighbor 10.11.0.0 interface swp1", "swp1"),    # a server port
    ("neighbor 10.11.0.2 interface swp33", "swp33"),  # another uplink
    ("neighbor 10.11.0.0 interface swp33", None),     # the port the neighbor's subnet is on
    ("neighbor 10.11.0.0 interface lo\n no neighbor 10.11.0.0 interface lo", None),
])
def test_a_numbered_neighbor_bound_to_another_port_never_connects(
        clean: Path, tmp_path: Path, statement: str, down_on: str | None) -> None:
    """`neighbor ADDRESS interface PORT` binds a numbered neighbor's connection to PORT: on any port
    but the one holding the neighbor's subnet no connection is made (it was read as an unnumbered
    neighbor named by an address: a session missing on both ends, for the wrong reason)."""
    _, line, found = _with_leaf_statement(clean, tmp_path, statement)
    if down_on is None:
        assert found == []
        return
    down = [m for c, m in found if c == "BGP-SESSION-DOWN"]
    assert len(down) == 1 and f"{LEAF_A}/frr.conf:{line}:" in down[0] and f"to {down_on} (" in down[0], found
    assert not {c for c, _ in found} & {"BGP-ONE-SIDED", "BGP-SESSION-MISSING", "CONFIG-UNMODELLED"}, found


@pytest.mark.parametrize("port", ["Ethernet1", "swp60", "eth0"])
def test_a_neighbor_bound_to_a_port_the_files_do_not_address_is_said_not_judged(
        clean: Path, tmp_path: Path, port: str) -> None:
    """A port the files do not address in the instance's VRF (none of that name; eth0 is in the
    management VRF): bgpd binds only to a port that exists there (on the twin, where only the
    configured ports exist, a missing one leaves the session up); the files cannot say whether
    the real switch has it, so the line is CONFIG-UNMODELLED and the session taken as unbound."""
    _, line, found = _with_leaf_statement(clean, tmp_path, f"neighbor 10.11.0.0 interface {port}")
    assert [c for c, _ in found] == ["CONFIG-UNMODELLED"], found
    assert f"{LEAF_A}/frr.conf:{line}:" in found[0][1] and "not judged" in found[0][1], found


def test_a_source_address_the_device_lacks_keeps_routes_out_of_its_fib(clean: Path, tmp_path: Path) -> None:
    """zebra's `set src A` on the routes `ip protocol bgp route-map` permits: the kernel refuses a
    route whose source is no address of the device ("Invalid prefsrc address", measured on the
    twin: zebra keeps the route selected, out of the FIB). The finding names the `set src` line; an
    entry that sets it only for some prefixes keeps only those out; through `call` it is carried."""
    edited = tmp_path / "build"
    shutil.copytree(clean, edited)
    conf = edited / LEAF_A / "frr.conf"
    edit(conf, "router bgp 4200001100\n",
         "ip prefix-list ONE seq 5 permit 10.12.1.0/26\n"
         "route-map SRC permit 10\n match ip address prefix-list ONE\n set src 192.0.2.1\nexit\n"
         "route-map SRC permit 20\nexit\nip protocol bgp route-map SRC\nrouter bgp 4200001100\n")
    line = 1 + conf.read_text().split(" set src 192.0.2.1")[0].count("\n")
    found = [(f.check, f.message) for r in run_checks(load_snapshot(edited)) for f in r.findings]
    assert [c for c, _ in found] == ["ROUTE-FIB-OVERRIDE"], found
    assert f"{LEAF_A}/frr.conf:{line}:" in found[0][1] and "1 planned prefix(es)" in found[0][1] \
        and "10.12.1.0/26" in found[0][1] and "Invalid prefsrc" in found[0][1], found
    edit(conf, " set src 192.0.2.1\nexit\n", " call SETSRC\nexit\nroute-map SETSRC permit 10\n set src 192.0.2.1\nexit\n")
    found = [(f.check, f.message) for r in run_checks(load_snapshot(edited)) for f in r.findings]
    assert [c for c, _ in found] == ["ROUTE-FIB-OVERRIDE"] and "Invalid prefsrc" in found[0][1], found


def test_foreign_entries_are_those_of_the_deployed_folders_the_manifest_does_not_list(clean: Path,
                                                                                    tmp_path: Path) -> None:
    """verify/buildfiles.py: a file beside a device's files, a link there (not followed), a server
    folder the plan lacks and a stray file among the plane's device folders are reported; a file at
    the top of the output folder (a JUnit report) and the build's own folders are not."""
    from dualrail_net.manifest import Manifest
    from dualrail_net.verify.buildfiles import foreign_entries

    build = tmp_path / "build"
    shutil.copytree(clean, build)
    assert foreign_entries(build, Manifest.load(build)) == []
    (build / LEAF_A / "frr.conf.orig").write_text("x\n")
    (build / LEAF_A / "elsewhere").symlink_to(tmp_path)
    (build / "servers" / "gpu999").mkdir()
    (build / "plane-A" / "notes.txt").write_text("x\n")
    (build / "junit.xml").write_text("<testsuites/>\n")
    assert foreign_entries(build, Manifest.load(build)) == [
        f"{LEAF_A}/elsewhere", f"{LEAF_A}/frr.conf.orig", "plane-A/notes.txt", "servers/gpu999/"]


def test_unbound_traffic_to_a_plane_through_a_port_of_no_plane_is_caught(clean: Path, tmp_path: Path) -> None:
    """A server's main-table route to plane B's storage moved onto a port of no plane (a
    front-end stanza a hand edit adds): a socket bound to no address leaves the fabric there, as
    with no route at all. Both forms are named by HOST-FORWARDING."""
    edited = tmp_path / "build"
    shutil.copytree(clean, edited)
    # (in the new stanza: a route is installed only over a port that is up by then)
    edit(edited / "servers/gpu001/interfaces", "    post-up ip route replace 172.17.0.0/16 via 10.22.0.0 dev ens1f1np1\n",
         "\nauto eno9\niface eno9\n    address 192.168.7.5/24\n"
         "    post-up ip route replace 172.17.0.0/16 via 192.168.7.1 dev eno9\n")
    said = [f.message for r in run_checks(load_snapshot(edited)) if r.check == "HOST-FORWARDING" for f in r.errors]
    assert "gpu001: traffic to 172.17.0.0/16 (plane B) from a socket bound to no address leaves through eno9, no port " \
           "of the plane" in said, said
    edit(edited / "servers/gpu001/interfaces", "    post-up ip route replace 172.17.0.0/16 via 192.168.7.1 dev eno9\n", "")
    said = [f.message for r in run_checks(load_snapshot(edited)) if r.check == "HOST-FORWARDING" for f in r.errors]
    assert "gpu001: traffic to 172.17.0.0/16 (plane B) from a socket bound to no address has no route" in said, said
