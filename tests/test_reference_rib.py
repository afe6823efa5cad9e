"""The control-plane model (bitsets, level by level) against its plain reference (explicit AS paths,
iterated to a fixpoint: verify/reference_rib.py): the same installed next hops for every prefix at
every routing instance, on the example, on every routing mutation and on seeded random edits."""

from __future__ import annotations

import re
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from dualrail_net.manifest import Manifest
from dualrail_net.render import render_fabric
from dualrail_net.render.artifacts import write_artifacts
from dualrail_net.resolve import resolve_fabric
from dualrail_net.resolve.model import Fabric
from dualrail_net.sot.synthetic import Shape, small_three_tier_shape, synthetic_inventory
from dualrail_net.twin.oracle import random_edits
from dualrail_net.verify.controlplane import compute_plane
from dualrail_net.verify.reference_rib import reference_rib
from dualrail_net.verify.routes import bits
from dualrail_net.verify.snapshot import load_snapshot
from dualrail_net.verify.topology import NodeId, build_topology

from test_verify_mutations import MUTATIONS

ROUTING_CHECKS = ("ROUTE-", "BGP-", "CONFIG-UNMODELLED")


@pytest.fixture(scope="module")
def clean(tmp_path_factory: pytest.TempPathFactory, example_fabric: Fabric) -> Path:
    out = tmp_path_factory.mktemp("clean") / "build"
    write_artifacts(render_fabric(example_fabric), out)
    return out


def model_rib(folder: Path) -> dict[str, dict[NodeId, dict[str, tuple[NodeId, ...]]]]:
    snap = load_snapshot(folder)
    topo = build_topology(snap)
    out = {}
    for plane in snap.planes:
        control = compute_plane(snap, topo, plane)
        out[plane] = {node: {control.index.prefixes[bit]: tuple(sorted(control.next_hops(node, bit)))
                             for bit in bits(control.reach.get(node, 0))}
                      for node in control.nodes}
    return out


def plain_rib(folder: Path) -> dict[str, dict[NodeId, dict[str, tuple[NodeId, ...]]]]:
    snap = load_snapshot(folder)
    topo = build_topology(snap)
    return {plane: reference_rib(snap, topo, plane) for plane in snap.planes}


def assert_agree(folder: Path, what: str) -> None:
    model, plain = model_rib(folder), plain_rib(folder)
    for plane in plain:
        for node, table in plain[plane].items():
            mine = model[plane].get(node, {})
            if mine != table:
                diff = {p: (sorted(mine.get(p, ())), sorted(table.get(p, ()))) for p in set(mine) | set(table)
                        if mine.get(p) != table.get(p)}
                raise AssertionError(f"{what}: plane {plane} {node}: model vs reference {dict(list(diff.items())[:4])}")


def test_the_example_agrees(clean: Path) -> None:
    plain = plain_rib(clean)
    assert all(table for plane in plain.values() for table in plane.values())  # every instance has routes
    assert_agree(clean, "the example")


ROUTING_MUTATIONS = [m for m in MUTATIONS if m[1].startswith(ROUTING_CHECKS)]


@pytest.mark.parametrize("desc,check_id,mutate", ROUTING_MUTATIONS, ids=[m[0] for m in ROUTING_MUTATIONS])
def test_every_routing_mutation_agrees(clean: Path, tmp_path: Path, desc: str, check_id: str,
                                       mutate: Callable[[Path], None]) -> None:
    broken = tmp_path / "build"
    shutil.copytree(clean, broken)
    mutate(broken)
    assert_agree(broken, desc)


def test_seeded_random_edits_agree(clean: Path, tmp_path: Path) -> None:
    """The twin oracle's edit generator (remove, duplicate, shut down, deny, rename, prepend ...)
    on the FRR switches' files, 24 edits: the model and the reference agree after each."""
    manifest = Manifest.load(clean)
    configs = {name: (clean / meta.dir / "frr.conf").read_text() for name, meta in manifest.devices.items()
               if (clean / meta.dir / "frr.conf").exists()}
    kinds = set()
    for number, edit in enumerate(random_edits(7, 24, configs)):
        edited = tmp_path / f"e{number}"
        shutil.copytree(clean, edited)
        (edited / manifest.devices[edit.device].dir / "frr.conf").write_text(edit.text)
        assert_agree(edited, f"{edit.device}: {edit.description}")
        kinds.add(edit.description.split(" ")[0])
        shutil.rmtree(edited)
    assert len(kinds) >= 8


def _three_tiers(tmp_path: Path) -> Path:
    """A small three-tier fabric (two pods, super-spines sharing an ASN per plane), rendered."""
    out = tmp_path / "build"
    write_artifacts(render_fabric(resolve_fabric(synthetic_inventory(small_three_tier_shape()))), out)
    return out


def test_a_three_tier_fabric_agrees_under_random_edits(tmp_path: Path) -> None:
    """Super-spines sharing an ASN per plane (loop prevention on the way back down), 20 edits."""
    out = _three_tiers(tmp_path)
    assert_agree(out, "three tiers")
    agree_under_edits(out, 11, 20, tmp_path)


def test_graceful_shutdown_and_missing_meds_agree_on_three_tiers(tmp_path: Path) -> None:
    """`bgp graceful-shutdown` (the community travels on through the spines and super-spines that
    send communities) and `bgp bestpath med missing-as-worst`, 12 edits of those kinds."""
    out = _three_tiers(tmp_path)
    agree_under_edits(out, 1, 12, tmp_path, ("graceful-shutdown", "med-missing-as-worst"))


def test_max_med_and_confederations_agree_on_three_tiers(tmp_path: Path) -> None:
    """`bgp max-med administrative [N]` (the sender's MED over every route, whatever its map set)
    and `bgp confederation identifier N` (the AS its peers see), 12 edits of those kinds."""
    out = _three_tiers(tmp_path)
    agree_under_edits(out, 3, 12, tmp_path, ("max-med", "confederation"))


def agree_under_edits(out: Path, seed: int, count: int, tmp_path: Path, kinds: tuple[str, ...] = ()) -> None:
    """The oracle's edit generator on the FRR switches of ``out``: the model and the reference agree
    after each edit."""
    manifest = Manifest.load(out)
    configs = {name: (out / meta.dir / "frr.conf").read_text() for name, meta in manifest.devices.items()
               if (out / meta.dir / "frr.conf").exists()}
    for number, edit in enumerate(random_edits(seed, count, configs, kinds)):
        edited = tmp_path / f"e{number}"
        shutil.copytree(out, edited)
        (edited / manifest.devices[edit.device].dir / "frr.conf").write_text(edit.text)
        assert_agree(edited, f"{edit.device}: {edit.description}")
        shutil.rmtree(edited)


def test_parallel_links_agree_under_random_edits(tmp_path: Path) -> None:
    """Two links per leaf-spine pair and per spine-super-spine pair: each is a session and a next
    hop of its own (a leaf installs spines x 2 paths); the model and the reference agree on the
    multiset of next hops, clean and under 20 edits."""
    shape = Shape(tiers=3, rails=2, sus_per_pod=1, pods=2, spines_per_pod=2, super_spines_per_group=2,
                  servers_per_su=2, leaf_uplinks=4, spine_downlinks=8, spine_uplinks=4,
                  super_spine_downlinks=8, border_ports=0, leaf_spine_links=2, spine_super_spine_links=2)
    out = tmp_path / "build"
    write_artifacts(render_fabric(resolve_fabric(synthetic_inventory(shape))), out)
    assert_agree(out, "parallel links")
    model = model_rib(out)["A"]
    leaf = next(node for node in model if "leaf" in node[0])
    widths = {len(hops) for prefix, hops in model[leaf].items() if hops}
    assert max(widths) == 4  # another leaf's prefix: 2 spines x 2 links
    agree_under_edits(out, 13, 20, tmp_path)


def test_allowas_in_agrees(clean: Path, tmp_path: Path) -> None:
    """Two leaves sharing an ASN: without allowas-in each drops the other's routes (loop
    prevention), with it each takes them; the model and the reference agree on both."""
    from test_verify_mutations import _same_asn_on_two_leaves, _same_asn_taken_back
    for name, mutate in (("shared", _same_asn_on_two_leaves), ("taken back", _same_asn_taken_back)):
        edited = tmp_path / name
        shutil.copytree(clean, edited)
        mutate(edited)
        assert_agree(edited, name)
        plane_a = plain_rib(edited)["A"]
        learned = plane_a[("a-leaf-su1-r0", None)]
        assert ("10.10.0.33/32" in learned) == (name == "taken back")  # a-leaf-su1-r1's loopback


def test_always_compare_med_agrees_and_narrows_ecmp_across_asns(tmp_path: Path) -> None:
    """Spines each in their own ASN (multipath-relax): a higher MED from one of them is not compared
    with the others' (another neighbor AS) and changes nothing; with `bgp always-compare-med` on
    the leaf it is, and that spine leaves the leaf's ECMP. The model and the reference agree on both."""
    from dualrail_net.sot.schema import Inventory
    from dualrail_net.verify.checks import run_checks
    inv = synthetic_inventory(Shape(spines_per_pod=2, sus_per_pod=1, rails=2, servers_per_su=2)).model_dump()
    for plane in inv["fabric"]["planes"].values():
        plane["asn"]["scheme"] = "per-switch"
    out = tmp_path / "build"
    write_artifacts(render_fabric(resolve_fabric(Inventory.model_validate(inv))), out)
    leaf = next(p for p in sorted(out.rglob("frr.conf")) if "leaf" in p.parent.name)
    text = leaf.read_text()
    neighbor, name = re.findall(r"^ +neighbor (\S+) route-map (\S+) in$", text, re.M)[0]
    body = re.search(rf"^route-map {re.escape(name)} permit (\d+)\n((?:[ \t]+.*\n)*)", text, re.M)
    assert body is not None
    copy = f"route-map {name}-MED permit {body.group(1)}\n{body.group(2)} set metric 50\nexit\n!\n"
    text = text.replace("router bgp", copy + "router bgp", 1).replace(
        f"neighbor {neighbor} route-map {name} in", f"neighbor {neighbor} route-map {name}-MED in")
    for compare, fires in ((False, False), (True, True)):
        edited = tmp_path / f"compare-{compare}"
        shutil.copytree(out, edited)
        (edited / leaf.relative_to(out)).write_text(
            text.replace(" bgp router-id", " bgp always-compare-med\n bgp router-id", 1) if compare else text)
        assert_agree(edited, f"always-compare-med {compare}")
        width = [f for r in run_checks(load_snapshot(edited)) if r.check == "ROUTE-ECMP-WIDTH" for f in r.findings]
        assert bool(width) == fires, (compare, [f.message for f in width])


def test_remove_private_as_agrees(clean: Path, tmp_path: Path) -> None:
    """`remove-private-as` on one spine toward one leaf: its paths arrive one AS long and the leaf
    installs that spine alone; on every spine toward every leaf, every path is one AS long alike
    and the leaves keep every spine. The model and the reference agree on both."""
    from test_verify_mutations import SPINE_A, _strip_everywhere, edit

    def one(r: Path) -> None:
        edit(r / SPINE_A / "running-config", "   neighbor 10.11.0.1 route-map PLANE-A-OUT out\n",
             "   neighbor 10.11.0.1 route-map PLANE-A-OUT out\n   neighbor 10.11.0.1 remove-private-as\n")

    for name, mutate, width in (("one", one, 1), ("everywhere", _strip_everywhere, 4)):
        edited = tmp_path / name
        shutil.copytree(clean, edited)
        mutate(edited)
        assert_agree(edited, name)
        learned = plain_rib(edited)["A"][("a-leaf-su1-r0", None)]
        assert len(learned["10.10.0.33/32"]) == width  # a-leaf-su1-r1's loopback
        assert "10.10.0.32/32" in learned and learned["10.10.0.32/32"] == ()  # its own, never taken back
        from dualrail_net.verify.checks import run_checks
        narrowed = [f.message for r in run_checks(load_snapshot(edited)) if r.check == "ROUTE-ECMP-WIDTH"
                    for f in r.findings]
        if width == 1:  # the finding names the stripping line
            assert narrowed and all("running-config:" in m and "remove-private-as" in m for m in narrowed), narrowed
        else:
            assert narrowed == []


def test_as_override_agrees(tmp_path: Path) -> None:
    """Two leaves of an all-FRR fabric sharing an ASN drop each other's prefixes (loop prevention);
    with `as-override` on the spines toward them, the spines put their own ASN in its place and
    each leaf takes the other's. The model and the reference agree on both."""
    shape = Shape(spines_per_pod=2, sus_per_pod=1, rails=2, servers_per_su=2)
    out = tmp_path / "build"
    write_artifacts(render_fabric(resolve_fabric(synthetic_inventory(shape))), out)
    leaves = sorted(p.parent for p in out.glob("plane-A/*/frr.conf") if "leaf" in p.parent.name)[:2]
    asns = [re.search(r"^router bgp (\d+)", (leaf / "frr.conf").read_text(), re.M).group(1)  # type: ignore[union-attr]
            for leaf in leaves]
    second = leaves[1] / "frr.conf"
    second.write_text(second.read_text().replace(f"router bgp {asns[1]}", f"router bgp {asns[0]}"))
    spines = sorted(p for p in out.glob("plane-A/*/frr.conf") if "spine" in p.parent.name)
    for spine in spines:
        spine.write_text(spine.read_text().replace(f"remote-as {asns[1]}", f"remote-as {asns[0]}"))
    first_loopback = re.search(r"^  network (\S+/32)$", (leaves[0] / "frr.conf").read_text(), re.M).group(1)  # type: ignore[union-attr]
    node = (leaves[1].name, None)
    assert_agree(out, "shared ASN")
    assert first_loopback not in plain_rib(out)["A"][node]
    from dualrail_net.verify.checks import run_checks
    assert [r for r in run_checks(load_snapshot(out)) if r.check == "ROUTE-MISSING" and r.findings]
    for spine in spines:
        text = spine.read_text()
        peers = re.findall(rf"^ neighbor (\S+) remote-as {asns[0]}$", text, re.M)
        spine.write_text(text.replace(" address-family ipv4 unicast\n", " address-family ipv4 unicast\n"
                                      + "".join(f"  neighbor {p} as-override\n" for p in peers), 1))
    assert_agree(out, "as-override")
    assert len(plain_rib(out)["A"][node][first_loopback]) == len(spines)
    from dualrail_net.verify.checks import run_checks
    assert not [f.message for r in run_checks(load_snapshot(out)) if r.check == "ROUTE-MISSING" for f in r.findings]


def test_eos_remote_as_replace_out_is_as_override(clean: Path, tmp_path: Path) -> None:
    """EOS's `neighbor X as-path remote-as replace out` on the example's EOS spines toward two
    leaves that share an ASN: read as bgpd's as-override (the leaves take each other's prefixes);
    without it they drop them; `no` takes it back. The model and the reference agree each time."""
    from dualrail_net.verify.checks import run_checks
    out = tmp_path / "build"
    shutil.copytree(clean, out)
    second = out / "plane-A/a-leaf-su1-r1/frr.conf"
    second.write_text(second.read_text().replace("router bgp 4200001101", "router bgp 4200001100"))
    spines = sorted(out.glob("plane-A/a-spine-*/running-config"))
    for spine in spines:
        spine.write_text(spine.read_text().replace("remote-as 4200001101", "remote-as 4200001100"))

    def missing() -> list[str]:
        return [f.message for r in run_checks(load_snapshot(out)) if r.check == "ROUTE-MISSING" for f in r.findings]

    assert_agree(out, "shared ASN under EOS spines")
    assert missing()
    said = {}
    for spine in spines:
        text = spine.read_text()
        peers = re.findall(r"^   neighbor (\S+) remote-as 4200001100$", text, re.M)
        said[spine] = "".join(f"   neighbor {p} as-path remote-as replace out\n" for p in peers)
        spine.write_text(text.replace("   network 10.10.0", said[spine] + "   network 10.10.0", 1))
    assert_agree(out, "as-path remote-as replace out")
    assert missing() == []
    for spine in spines:
        spine.write_text(spine.read_text().replace("   network 10.10.0", said[spine].replace("   neighbor", "   no neighbor")
                                                   + "   network 10.10.0", 1))
    assert missing()


def test_more_specific_prefixes_by_range_are_those_the_scan_finds() -> None:
    """PrefixIndex.more_specific (a range of the sorted prefixes) against more_specific_plain (a
    scan), on random prefixes of every length nested in each other."""
    import random

    from dualrail_net.verify.controlplane import more_specific_plain
    from dualrail_net.verify.ipfast import net_str
    from dualrail_net.verify.routes import PrefixIndex
    rng = random.Random(7)
    idx = PrefixIndex()
    for _ in range(600):
        length = rng.choice([0, 8, 16, 20, 24, 26, 31, 32, rng.randint(0, 32)])
        net = (rng.choice([10 << 24, (10 << 24) | (12 << 16), rng.getrandbits(32)]) | rng.getrandbits(12))
        idx.add(net_str((net >> (32 - length) << (32 - length) if length else 0, length)), ("d", None), "A")
    idx.freeze()
    asked = idx.prefixes + ["10.0.0.0/8", "10.12.0.0/20", "0.0.0.0/0", "10.12.0.0/32"]
    assert all(idx.more_specific(p) == more_specific_plain(idx, p) for p in asked)
    assert sum(bool(idx.more_specific(p)) for p in asked) > 20  # nested prefixes are exercised


def test_a_leaf_without_multipath_relax_over_spines_of_several_asns_agrees(tmp_path: Path) -> None:
    """Every switch its own ASN and one leaf without multipath-relax: the model once kept both
    spines as next hops (the first sender's AS alone had best paths); bgpd keeps one (the twin:
    tests/test_twin_multipath.py)."""
    from test_twin_multipath import LEAF, per_switch_fabric

    out = tmp_path / "build"
    per_switch_fabric(out)
    path = next(out.rglob(f"{LEAF}/frr.conf"))
    path.write_text(path.read_text().replace(" bgp bestpath as-path multipath-relax\n", ""))
    assert_agree(out, "no multipath-relax")
    widths = {len(hops) for plane in model_rib(out).values() for node, table in plane.items() if node[0] == LEAF
              for hops in table.values() if hops}
    assert widths == {1}
