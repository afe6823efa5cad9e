"""Semantic validation: each rule fires on a broken inventory, with the file and line to fix."""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import InventoryFactory, line_of
from dualrail_net.sot.diagnostics import Severity
from dualrail_net.sot.load import InventoryError, load_inventory
from dualrail_net.sot.validate import validate

PLANE_B_MTU = "    mtu: 9214\n    qos_profile: roce-lossless\n    firmware: {cumulus: \"5.9.2\", eos: \"4.32.2F\"}\n    pools:\n      loopbacks: 10.20.0.0/24"


def diags(root: Path):
    return validate(load_inventory(root))


def test_example_is_clean(example_loaded) -> None:
    assert validate(example_loaded) == []


# (description, edits, expected message part, (file, line needle, occurrence) or None, severity)
CASES = [
    ("pool too small for the hardware", {"fabric.yaml": [("fabric_links: 10.21.0.0/20", "fabric_links: 10.21.0.0/24")]},
     "pool fabric_links 10.21.0.0/24 holds 256", ("fabric.yaml", "fabric_links: 10.21.0.0/24", 1), Severity.ERROR),
    ("overlapping pools between planes", {"fabric.yaml": [("server_links: 10.22.0.0/20", "server_links: 10.12.0.0/20")]},
     "planes must not share address space", ("fabric.yaml", "server_links: 10.12.0.0/20", 2), Severity.ERROR),
    ("duplicate ASN ranges", {"fabric.yaml": [("leaf_base: 4200002100", "leaf_base: 4200001100")]},
     "overlaps plane A leaves", ("fabric.yaml", "leaf_base: 4200001100", 2), Severity.ERROR),
    ("asymmetric MTU", {"fabric.yaml": [(PLANE_B_MTU, PLANE_B_MTU.replace("9214", "9000"))]},
     "plane B mtu = 9000 but plane A has 9214", ("fabric.yaml", "mtu: 9000", 1), Severity.ERROR),
    ("asymmetric firmware", {"fabric.yaml": [("firmware: {cumulus: \"5.9.2\", eos: \"4.32.2F\"}\n    pools:\n      loopbacks: 10.20",
                                              "firmware: {cumulus: \"5.10.0\", eos: \"4.32.2F\"}\n    pools:\n      loopbacks: 10.20")]},
     "plane B firmware cumulus = 5.10.0", ("fabric.yaml", "5.10.0", 1), Severity.ERROR),
    ("asymmetric spine count", {"fabric.yaml": [("  B:\n    spines_per_pod: 4", "  B:\n    spines_per_pod: 3")]},
     "plane B spines_per_pod = 3", ("fabric.yaml", "spines_per_pod: 3", 1), Severity.ERROR),
    ("asymmetric speeds", {"fabric.yaml": [("  B:\n    spines_per_pod: 4\n    link_speeds: {server: 200G",
                                            "  B:\n    spines_per_pod: 4\n    link_speeds: {server: 100G")]},
     "link_speeds.server = 100G", ("fabric.yaml", "server: 100G", 1), Severity.ERROR),
    ("too few ECMP paths", {"fabric.yaml": [("maximum_paths: 64", "maximum_paths: 2")]},
     "maximum_paths 2 is below the 4 equal-cost uplinks", ("fabric.yaml", "maximum_paths: 2", 1), Severity.ERROR),
    ("oversubscription", {"fabric.yaml": [("max_oversubscription: 1.0", "max_oversubscription: 1.0"),
                                          ("  B:\n    spines_per_pod: 4", "  B:\n    spines_per_pod: 4")],
                          "servers.yaml": [("{name: gpu016, model: hgx-hpn-4x2, su: 1, slot: 16,",
                                            "{name: gpu016, model: hgx-hpn-4x2, su: 1, slot: 20,")]},
     "leaf oversubscription 1.25:1", None, Severity.ERROR),
    ("ECN min above max", {"qos.yaml": [("min_threshold_bytes: 150000", "min_threshold_bytes: 2000000")]},
     "ECN min threshold 2000000 is not below max", ("qos.yaml", "min_threshold_bytes", 1), Severity.ERROR),
    ("CNP on the lossless class", {"qos.yaml": [("cnp: {dscp: 48, priority: 6, traffic_class: 6}",
                                                 "cnp: {dscp: 48, priority: 3, traffic_class: 3}")]},
     "CNP shares the lossless priority", ("qos.yaml", "cnp:", 1), Severity.ERROR),
    ("PFC not on the RoCE priority", {"qos.yaml": [("priorities: [3]", "priorities: [4]")]},
     "RoCE priority 3 is not PFC-enabled", ("qos.yaml", "priorities: [4]", 1), Severity.ERROR),
    ("server ports on one plane only", {"servers.yaml": [("{port: 1, plane: B, rail: 0, ifname: ibp4s0",
                                                          "{port: 1, plane: A, rail: 0, ifname: ibp4s0")]},
     "both land on the rail-0 leaf of plane A", ("servers.yaml", "plane: A, rail: 0, ifname: ibp4s0", 1), Severity.ERROR),
    ("server model on one plane only", {"servers.yaml": [("server_models:\n", "server_models:\n  one-plane:\n    nics:\n      - name: nic0\n        ports:\n          - {port: 1, plane: A, rail: 0, ifname: eth1, rdma_device: mlx5_0}\n")]},
     "every NIC port lands on plane A only", ("servers.yaml", "    nics:", 1), Severity.ERROR),
    ("port on an unknown plane", {"servers.yaml": [("{port: 2, plane: B, rail: 3, ifname: ens4f1np1",
                                                    "{port: 2, plane: C, rail: 3, ifname: ens4f1np1")]},
     "is on plane C, which the fabric does not have", ("servers.yaml", "plane: C", 1), Severity.ERROR),
    ("rail out of range", {"servers.yaml": [("{port: 2, plane: B, rail: 3, ifname: ens4f1np1",
                                             "{port: 2, plane: B, rail: 7, ifname: ens4f1np1")]},
     "is on rail 7 but the fabric has rails 0-3", ("servers.yaml", "rail: 7", 1), Severity.ERROR),
    ("two planes' NICs on one PCIe root", {"servers.yaml": [
        ("pcie_root: \"0000:4c\"\n        pci_address: \"0000:4e:00.0\"\n        numa: 1",
         "pcie_root: \"0000:0c\"\n        pci_address: \"0000:4e:00.0\"\n        numa: 0")]},
     "share PCIe root 0000:0c", ("servers.yaml", "pcie_root: \"0000:0c\"", 3), Severity.WARNING),
    ("two planes' NICs on one NUMA node", {"servers.yaml": [
        ("pcie_root: \"0000:4c\"\n        pci_address: \"0000:4e:00.0\"\n        numa: 1",
         "pcie_root: \"0000:4c\"\n        pci_address: \"0000:4e:00.0\"\n        numa: 0")]},
     "share NUMA node 0", ("servers.yaml", "pcie_root: \"0000:4c\"", 2, +2), Severity.WARNING),
    ("duplicate server name", {"servers.yaml": [("{name: gpu017,", "{name: gpu016,")]},
     "duplicate server name gpu016", ("servers.yaml", "name: gpu016", 2), Severity.ERROR),
    ("slot taken twice", {"servers.yaml": [("{name: gpu017, model: dgx-split-8x1, su: 2, slot: 1,",
                                            "{name: gpu017, model: dgx-split-8x1, su: 1, slot: 1,")]},
     "slot 1 is already taken by gpu001", ("servers.yaml", "gpu017", 1), Severity.ERROR),
    ("server management address twice", {"servers.yaml": [("mgmt_address: 198.51.100.205}", "mgmt_address: 198.51.100.204}")]},
     "management address 198.51.100.204 is also gpu004's", ("servers.yaml", "198.51.100.204", 2), Severity.ERROR),
    ("server management address off the network", {"servers.yaml": [("mgmt_address: 198.51.100.205}", "mgmt_address: 10.99.0.5}")]},
     "10.99.0.5 is outside the management network 198.51.100.0/24", ("servers.yaml", "10.99.0.5", 1), Severity.ERROR),
    ("unknown server model", {"servers.yaml": [("{name: gpu003, model: hgx-hpn-4x2", "{name: gpu003, model: hgx-hpn")]},
     "unknown server model 'hgx-hpn'", ("servers.yaml", "gpu003", 1), Severity.ERROR),
    ("duplicate GUID", {"infiniband.yaml": [("IBA: \"0x0c42a10300a10002\"", "IBA: \"0x0c42a10300a10001\"")]},
     "GUID 0x0c42a10300a10001 is also gpu001/IBA's", ("infiniband.yaml", "server: gpu002, guids", 1), Severity.ERROR),
    ("same IB subnet prefix", {"infiniband.yaml": [("0xfe80000000000b01", "0xfe80000000000a01")]},
     "subnet_prefix 0xfe80000000000a01 equals plane IBA", ("infiniband.yaml", "0xfe80000000000a01", 2), Severity.ERROR),
    ("both IB planes' SMs on one host", {"infiniband.yaml": [("sm_host: gpu002 ", "sm_host: gpu001 ")]},
     "IB planes IBA and IBB run their subnet managers on one host, gpu001",
     ("infiniband.yaml", "sm_host: gpu001 ", 1), Severity.ERROR),
    ("P_Key out of range", {"infiniband.yaml": [("pkey: 0x0102", "pkey: 0x8102")]},
     "outside 0x0001-0x7ffe", ("infiniband.yaml", "pkey: 0x8102", 1), Severity.ERROR),
    ("duplicate P_Key", {"infiniband.yaml": [("pkey: 0x0102", "pkey: 0x0101")]},
     "already used by tenant_a", ("infiniband.yaml", "pkey: 0x0101", 2), Severity.ERROR),
    ("IB member without HCA", {"infiniband.yaml": [("      - {server: gpu017, membership: full}",
                                                    "      - {server: gpu099, membership: full}")]},
     "member gpu099 has no HCA", ("infiniband.yaml", "gpu099", 1), Severity.ERROR),
    ("MTU above the EOS maximum", {"fabric.yaml": [("    mtu: 9214", "    mtu: 9216"), (PLANE_B_MTU, PLANE_B_MTU.replace("9214", "9216"))]},
     "exceeds the eos maximum 9214", ("fabric.yaml", "mtu: 9216", 1), Severity.ERROR),
    ("spines beyond leaf uplinks", {"fabric.yaml": [("uplink_ports: 33-64", "uplink_ports: 33-35")]},
     "4 spines per pod but a leaf has only 3 uplink ports", ("fabric.yaml", "spines_per_pod: 4", 1), Severity.ERROR),
    ("overlapping hardware port groups", {"fabric.yaml": [("uplink_ports: 33-64", "uplink_ports: 32-63")]},
     "leaf port 32 is in both server_ports and uplink_ports", ("fabric.yaml", "uplink_ports: 32-63", 1), Severity.ERROR),
    ("pods on a two-tier fabric", {"fabric.yaml": [("  pods: 1", "  pods: 2")]},
     "pods = 2 needs tiers: 3", ("fabric.yaml", "pods: 2", 1), Severity.ERROR),
    # the split rule and GPU placement (sot/hostlayout.py)
    ("a port-split NIC with both ports in one plane",
     {"servers.yaml": [("{port: 2, plane: B, rail: 0, ifname: ens1f1np1", "{port: 2, plane: A, rail: 1, ifname: ens1f1np1"),
                       ("{port: 1, plane: A, rail: 1, ifname: ens2f0np0", "{port: 1, plane: B, rail: 0, ifname: ens2f0np0")]},
     "nic0 has 2 ports but reaches only plane A (split: port)", None, Severity.ERROR),
    ("a NIC-split model with unequal planes",
     {"servers.yaml": [('      - name: nic7\n        pcie_root: "0000:7c"\n        pci_address: "0000:7e:00.0"\n'
                        '        numa: 1\n        pcie_gen: 5\n        pcie_lanes: 16\n        ports:\n'
                        '          - {port: 1, plane: B, rail: 3, ifname: ibp7s0, rdma_device: mlx5_7}\n', "")]},
     "the planes get unequal NIC counts (A: 4, B: 3)", ("servers.yaml", "split: nic", 1), Severity.ERROR),
    ("a GPU without a plane's NIC under its PCIe switch",
     {"servers.yaml": [('{pci_address: "0000:1c:00.0", pcie_root: "0000:1a", numa: 0}',
                        '{pci_address: "0000:1c:00.0", pcie_root: "0000:2a", numa: 0}')]},
     "GPU 1 (0000:1c:00.0) has no NIC port of plane A, B under its PCIe switch 0000:2a",
     ("servers.yaml", 'pcie_root: "0000:2a"', 1), Severity.WARNING),
    ("a NIC-split GPU without its own NIC",
     {"servers.yaml": [('{pci_address: "0000:0d:00.0", pcie_root: "0000:0c", numa: 0}',
                        '{pci_address: "0000:0d:00.0", pcie_root: "0000:9c", numa: 0}')]},
     "GPU 0 (0000:0d:00.0) has no NIC under its PCIe switch 0000:9c", None, Severity.WARNING),
    ("a GPU and a NIC under one switch on different sockets",
     {"servers.yaml": [('{pci_address: "0000:1b:00.0", pcie_root: "0000:1a", numa: 0}',
                        '{pci_address: "0000:1b:00.0", pcie_root: "0000:1a", numa: 1}')]},
     "but PCIe switch 0000:1a is on node 1", None, Severity.ERROR),
    ("two devices with one bus id",
     {"servers.yaml": [('{pci_address: "0000:1c:00.0", pcie_root: "0000:1a"', '{pci_address: "0000:1d:00.0", pcie_root: "0000:1a"')]},
     "nic0 has bus id 0000:1d:00.0, as GPU 1 does", None, Severity.ERROR),
    ("a placed model with an unplaced NIC",
     {"servers.yaml": [('        pci_address: "0000:3d:00.0"\n', "")]},
     "nic1 has no pci_address, but the model lists its GPUs", None, Severity.ERROR),
    # per-port speeds
    ("a port faster than its leaf port", {"servers.yaml": [("rail: 0, ifname: ens1f0np0, rdma_device: mlx5_0}",
                                                           "rail: 0, ifname: ens1f0np0, rdma_device: mlx5_0, speed: 400G}")]},
     "hgx-hpn-4x2: nic0 port 1 runs 400G, above plane A's server ports (200G)",
     ("servers.yaml", "speed: 400G", 1), Severity.ERROR),
    ("a model that gives one plane less", {"servers.yaml": [("rail: 0, ifname: ens1f0np0, rdma_device: mlx5_0}",
                                                            "rail: 0, ifname: ens1f0np0, rdma_device: mlx5_0, speed: 100G}")]},
     "hgx-hpn-4x2: the planes get unequal bandwidth from each server (A: 700G, B: 800G)", None, Severity.WARNING),
    # role labels
    ("two roles with one label", {"fabric.yaml": [("\nracks:\n", "\nrole_labels: {leaf: tor, spine: tor}\nracks:\n")]},
     "role_labels: spine and leaf are both called 'tor'", None, Severity.ERROR),
    ("a gateway named like a switch once labels rename the spines",
     {"fabric.yaml": [("\nracks:\n", "\nrole_labels: {spine: gw}\nracks:\n"), ("name: gw-storage-1", "name: a-gw-1")]},
     "gateway a-gw-1 has the name of a fabric switch", None, Severity.ERROR),
    # racks and power feeds
    ("both planes' leaves of one SU on one feed",
     {"fabric.yaml": [("    feeds: [pdu-b1-l, pdu-b1-r]", "    feeds: [pdu-a1-l]"),
                      ("    feeds: [pdu-a1-l, pdu-a1-r]", "    feeds: [pdu-a1-l]")]},
     "a-leaf-su1-r0 (plane A) and b-leaf-su1-r0 (plane B) serve the same servers (gpu001 and others) and share "
     "power feed pdu-a1-l: that one feed's failure takes both planes' links", ("fabric.yaml", "feeds: [pdu-a1-l]", 2),
     Severity.WARNING),
    ("both planes' spines on one PDU",
     {"fabric.yaml": [("    feeds: [pdu-sb-l, pdu-sb-r]", "    feeds: [pdu-sb-l, pdu-sa-r]")]},
     "a-spine-1 (plane A) and b-spine-1 (plane B) serve the same servers", None, Severity.WARNING),
    ("a rack naming a switch the fabric lacks", {"fabric.yaml": [("a-leaf-su1-r3]", "a-leaf-su9-r3]")]},
     "rack rack-a-su1: a-leaf-su9-r3 is not a switch of the fabric", ("fabric.yaml", "a-leaf-su9-r3", 1),
     Severity.WARNING),
    ("a switch in two racks", {"fabric.yaml": [("b-spine-4]", "b-spine-4, a-spine-1]")]},
     "a-spine-1 is also mounted in rack rack-spines-a", None, Severity.ERROR),
    ("an IB HCA named like a RoCE port", {"infiniband.yaml": [("devices: {IBA: mlx5_8, IBB: mlx5_9}}",
                                                              "devices: {IBA: mlx5_0, IBB: mlx5_9}}")]},
     "gpu001: mlx5_0 is also a RoCE NIC port of the server's model", ("infiniband.yaml", "IBA: mlx5_0", 1),
     Severity.ERROR),
    # standby subnet managers and switch GUIDs (IB)
    ("the standby SM on the master's host", {"infiniband.yaml": [("sm_standby: gpu003", "sm_standby: gpu001")]},
     "the standby SM is on the master's host gpu001", ("infiniband.yaml", "sm_standby: gpu001", 1), Severity.ERROR),
    ("one host standby for both planes", {"infiniband.yaml": [("sm_standby: gpu004", "sm_standby: gpu003")]},
     "run subnet managers on one host, gpu003", ("infiniband.yaml", "sm_standby: gpu003", 2), Severity.ERROR),
    ("no standby SM", {"infiniband.yaml": [("    sm_standby: gpu004\n", "")]},
     "IB plane IBB has no standby subnet manager", None, Severity.WARNING),
    ("switch GUIDs for some switches only",
     {"infiniband.yaml": [("    sm_standby: gpu003 ", "    switch_guids: {iba-spine-1: \"0x0002c90300aa0001\"}\n    sm_standby: gpu003 ")]},
     "switch_guids lacks iba-spine-2, iba-leaf-1, iba-leaf-2", None, Severity.ERROR),
    ("a switch GUID for a switch the plane lacks",
     {"infiniband.yaml": [("    sm_standby: gpu003 ", "    switch_guids: {iba-spine-9: \"0x0002c90300aa0001\"}\n    sm_standby: gpu003 ")]},
     "IB plane IBA has no switch iba-spine-9", None, Severity.ERROR),
    ("CNPs on the priority of unmarked traffic", {"qos.yaml": [("cnp: {dscp: 48, priority: 6, traffic_class: 6}",
                                                              "cnp: {dscp: 48, priority: 0, traffic_class: 0}")]},
     "cnp priority 0 is where every packet without a DSCP rule goes", ("qos.yaml", "cnp: {dscp: 48", 1),
     Severity.ERROR),
    ("RoCE in the class of unmarked traffic", {"qos.yaml": [("roce: {dscp: 26, priority: 3, traffic_class: 3}",
                                                             "roce: {dscp: 26, priority: 3, traffic_class: 0}")]},
     "roce traffic class 0 is where every packet without a DSCP rule goes", ("qos.yaml", "roce: {dscp: 26", 1),
     Severity.ERROR),
    ("PFC on the priority of unmarked traffic", {"qos.yaml": [("priorities: [3]", "priorities: [0, 3]")]},
     "PFC on priority 0, where every packet without a DSCP rule goes", ("qos.yaml", "priorities: [0, 3]", 1),
     Severity.ERROR),
    ("CNPs on a priority other than their class where EOS maps DSCP to a class only",
     {"qos.yaml": [("cnp: {dscp: 48, priority: 6, traffic_class: 6}", "cnp: {dscp: 48, priority: 5, traffic_class: 6}")]},
     "cnp priority 5 with traffic class 6: spines run eos", ("qos.yaml", "cnp: {dscp: 48", 1), Severity.ERROR),
    # GUIDs no hardware has (the IB simulation could not place them: the port got no LID)
    ("a host port GUID that is a switch's (the plane's first switch, counted from its prefix)",
     {"infiniband.yaml": [("IBA: \"0x0c42a10300a10002\"", "IBA: \"0x0002c9000a010000\"")]},
     "GUID 0x0002c9000a010000 is also switch iba-spine-1's in IB plane IBA",
     ("infiniband.yaml", "server: gpu002, guids", 1), Severity.ERROR),
    ("a host port GUID without its maker's OUI", {"infiniband.yaml": [("IBA: \"0x0c42a10300a10002\"", "IBA: 0x1")]},
     "GUID 0x0000000000000001 has no maker", ("infiniband.yaml", "server: gpu002, guids", 1), Severity.ERROR),
    ("a switch GUID without its maker's OUI",
     {"infiniband.yaml": [("    sm_standby: gpu003 ", "    switch_guids: {iba-spine-1: \"0x0000000000aa0001\", "
                           "iba-spine-2: \"0x0002c90300aa0002\", iba-leaf-1: \"0x0002c90300aa0003\", "
                           "iba-leaf-2: \"0x0002c90300aa0004\"}\n    sm_standby: gpu003 ")]},
     "iba-spine-1's GUID 0x0000000000aa0001 has no maker", None, Severity.ERROR),
    ("a server twice in one partition (opensm keeps another membership than the inventory's last)",
     {"infiniband.yaml": [("      - {server: gpu002, membership: full}\n",
                           "      - {server: gpu002, membership: full}\n      - {server: gpu002, membership: limited}\n")]},
     "gpu002 is a member already", ("infiniband.yaml", "{server: gpu002, membership: limited}", 1), Severity.ERROR),
    ("a management VRF name Cumulus does not take (its management VRF is always mgmt)",
     {"fabric.yaml": [("  vrf: mgmt\n", "  vrf: oob\n")]},
     "whose management VRF is always called mgmt", ("fabric.yaml", "  vrf: oob", 1), Severity.ERROR),
    ("switch GUIDs counted past the last one",
     {"infiniband.yaml": [("    sm_standby: gpu003 ", "    switch_guid_base: \"0xfffffffffffffffd\"\n    sm_standby: gpu003 ")]},
     "beyond the last valid one", None, Severity.ERROR),
]


@pytest.mark.parametrize("desc,edits,expected,where,severity", CASES, ids=[c[0] for c in CASES])
def test_rule_fires(make_inventory: InventoryFactory, desc, edits, expected, where, severity) -> None:
    root = make_inventory(edits)
    found = diags(root)
    hits = [d for d in found if expected in d.message]
    assert hits, f"{desc}: expected {expected!r} in {[d.format() for d in found]}"
    hit = hits[0]
    assert hit.severity == severity
    assert hit.fix, "every diagnostic says what to do"
    if where:
        file, needle, occurrence, *offset = where
        assert hit.file.endswith(file)
        assert hit.line == line_of(root / file, needle, occurrence) + sum(offset), hit.format()


def test_switch_guids_from_the_inventory_reach_the_sm_files(make_inventory: InventoryFactory) -> None:
    """GUIDs read off the hardware name the switches in root_guids.conf and the IB cabling plan."""
    from dualrail_net.render import render_fabric
    from dualrail_net.resolve import resolve_fabric
    guids = {"iba-spine-1": "0x0002C90300AA0001", "iba-spine-2": "0x0002c90300aa0002",
             "iba-leaf-1": "0x0002c90300aa0011", "iba-leaf-2": "0x0002c90300aa0012"}
    text = ", ".join(f'{k}: "{v}"' for k, v in guids.items())
    root = make_inventory({"infiniband.yaml": [("    sm_standby: gpu003 ", f"    switch_guids: {{{text}}}\n"
                                                                          "    sm_standby: gpu003 ")]})
    loaded = load_inventory(root)
    assert [d for d in validate(loaded) if d.severity == Severity.ERROR] == []
    files = render_fabric(resolve_fabric(loaded.inventory)).by_path()
    assert "0x0002c90300aa0001\n0x0002c90300aa0002" in files["ib-plane-IBA/root_guids.conf"]
    assert "iba-leaf-1,17,0x0002c90300aa0011,iba-spine-1,1,0x0002c90300aa0001" in files["ib-plane-IBA/cabling.csv"]


def test_a_bus_id_that_is_not_one_is_refused_with_its_line(make_inventory: InventoryFactory) -> None:
    from dualrail_net.sot.load import InventoryError
    root = make_inventory({"servers.yaml": [('pci_address: "0000:3d:00.0"', 'pci_address: "0000:3d"')]})
    with pytest.raises(InventoryError) as err:
        load_inventory(root)
    text = str(err.value)
    needle = 'pci_address: "0000:3d"'
    assert f"servers.yaml:{line_of(root / 'servers.yaml', needle, 1)}:" in text
    assert "must be a full lower-case bus id" in text


def test_a_priority_other_than_its_class_renders_where_every_platform_can_say_it(
        make_inventory: InventoryFactory) -> None:
    """Cumulus maps DSCP to a switch priority and the priority to a queue: CNPs on priority 5 in
    queue 6 are expressible there, and the servers and the switches agree on it."""
    from dualrail_net.render import render_fabric
    from dualrail_net.resolve import resolve_fabric
    root = make_inventory({"qos.yaml": [("cnp: {dscp: 48, priority: 6, traffic_class: 6}",
                                         "cnp: {dscp: 48, priority: 5, traffic_class: 6}")],
                           "fabric.yaml": [("  spine: eos", "  spine: cumulus")]})
    loaded = load_inventory(root)
    assert [d.format() for d in validate(loaded) if d.severity == Severity.ERROR] == []
    files = render_fabric(resolve_fabric(loaded.inventory)).by_path()
    qos = files["plane-A/a-leaf-su1-r0/qos_features.conf"]
    assert "traffic.cos_5.priority_source.dscp = [48]" in qos and "traffic.cos_5.egress_queue = 6" in qos


@pytest.mark.parametrize("guid", ["0x0", "0", "0xffffffffffffffff"])
def test_a_reserved_guid_is_refused_with_its_line(make_inventory: InventoryFactory, guid: str) -> None:
    from dualrail_net.sot.load import InventoryError
    root = make_inventory({"infiniband.yaml": [('IBA: "0x0c42a10300a10002"', f"IBA: {guid}")]})
    with pytest.raises(InventoryError) as err:
        load_inventory(root)
    text = str(err.value)
    assert f"infiniband.yaml:{line_of(root / 'infiniband.yaml', 'server: gpu002, guids', 1)}:" in text
    assert "is reserved" in text


def test_role_labels_rename_devices_not_roles(make_inventory: InventoryFactory) -> None:
    """ToR/aggregation vocabulary: every name says tor/agg, the roles (and so every rule) stay."""
    from dualrail_net.render import render_fabric
    from dualrail_net.resolve import resolve_fabric
    text = (make_inventory({}) / "fabric.yaml").read_text()
    racks = text[text.index("\nracks:\n"):]
    root = make_inventory({"fabric.yaml": [(racks, "\nrole_labels: {leaf: tor, spine: agg}\n")]})
    loaded = load_inventory(root)
    assert [d for d in validate(loaded) if d.severity == Severity.ERROR] == []
    fabric = resolve_fabric(loaded.inventory)
    assert {s.role for s in fabric.switches.values() if s.name.startswith("a-tor-")} == {"leaf"}
    assert {s.role for s in fabric.switches.values() if s.name.startswith("a-agg-")} == {"spine"}
    assert "a-tor-su1-r0" in fabric.switches and "a-agg-4" in fabric.switches
    files = render_fabric(fabric).by_path()
    assert "plane-A/a-tor-su1-r0/frr.conf" in files and "a-agg-1" in files["plane-A/a-tor-su1-r0/frr.conf"]


def test_a_port_speed_reaches_the_cabling_plan_and_the_capacity(make_inventory: InventoryFactory) -> None:
    """2x100G on every HPN NIC: the cabling plan carries 100G for those leaf ports, and the capacity
    figures follow (the plane's server bandwidth drops by the difference)."""
    from dualrail_net.capacity.run import capacity_report
    from dualrail_net.resolve import resolve_fabric
    text = (make_inventory({}) / "servers.yaml").read_text()
    edits = [(f"ifname: {i}, rdma_device: {d}}}", f"ifname: {i}, rdma_device: {d}, speed: 100G}}")
             for i, d in (("ens1f0np0", "mlx5_0"), ("ens1f1np1", "mlx5_1"), ("ens2f0np0", "mlx5_2"),
                          ("ens2f1np1", "mlx5_3"), ("ens3f0np0", "mlx5_4"), ("ens3f1np1", "mlx5_5"),
                          ("ens4f0np0", "mlx5_6"), ("ens4f1np1", "mlx5_7"))]
    assert all(old in text for old, _ in edits)
    root = make_inventory({"servers.yaml": edits})
    loaded = load_inventory(root)
    assert [d for d in validate(loaded) if d.severity == Severity.ERROR] == []
    fabric = resolve_fabric(loaded.inventory)
    speeds = {(link.b, link.speed) for link in fabric.links if link.kind == "server-leaf" and link.b == "gpu001"} | \
        {(link.a, link.speed) for link in fabric.links if link.kind == "server-leaf" and link.a == "gpu001"}
    assert speeds == {("gpu001", "100G")}, speeds
    report = capacity_report(loaded.inventory, fabric)
    plane_a = next(p for p in report.figures.planes if p.plane == "A")
    assert plane_a.server_gbps == 16 * 4 * 100 + 16 * 4 * 200  # 16 HPN servers at 100G, 16 DGX at 200G


def test_an_ib_plane_beyond_the_unicast_lid_space_is_refused(example_loaded) -> None:
    """Every HCA port and switch of an IB plane takes a LID at the rendered LMC 0: a plane whose
    ports and switches fill the 49,151 unicast LIDs is valid, one more port is not (SOT-IB-LIDS,
    at the plane)."""
    import copy

    from dualrail_net.resolve.infiniband import UNICAST_LID_TOP
    loaded = copy.deepcopy(example_loaded)
    ib = loaded.inventory.infiniband
    switches = ib.ib_planes["IBA"].leaves + ib.ib_planes["IBA"].spines
    ib.hosts.extend([ib.hosts[0]] * (UNICAST_LID_TOP - switches - len(ib.hosts)))
    assert not [d for d in validate(loaded) if d.code == "SOT-IB-LIDS"]
    ib.hosts.append(ib.hosts[0])
    said = [(d.message, d.file, d.line, d.severity) for d in validate(loaded) if d.code == "SOT-IB-LIDS"]
    assert said == [(f"IB plane {plane}: {UNICAST_LID_TOP - switches + 1} HCA ports and {switches} switches need "
                     f"{UNICAST_LID_TOP + 1} LIDs, one subnet has {UNICAST_LID_TOP}", "inventory/infiniband.yaml", line,
                     Severity.ERROR) for plane, line in (("IBA", 3), ("IBB", 11))]


def test_an_ib_plane_needing_more_switch_ports_than_ib_numbers_is_refused(example_loaded) -> None:
    """A spine faces every leaf on a port of its own and a leaf has its hosts' ports and one per
    spine: 254 leaves are valid, 255 are not; a leaf of 250 host ports and 4 spines is valid, 5
    spines are not (SOT-IB-PORTS at the field; the build's simulated fabric refused such a plan)."""
    import copy

    from dualrail_net.sot.validate import IB_SWITCH_PORTS
    loaded = copy.deepcopy(example_loaded)
    planes = loaded.inventory.infiniband.ib_planes
    original = planes["IBA"]

    def said(**sizes: int) -> list[tuple[str, int]]:
        planes["IBA"] = original.model_copy(update=sizes)
        return [(d.message.split(":")[1].strip(), d.line) for d in validate(loaded) if d.code == "SOT-IB-PORTS"]
    assert said(leaves=IB_SWITCH_PORTS) == []
    assert said(leaves=IB_SWITCH_PORTS + 1) == [("a spine faces every leaf on a port of its own", 6)]
    assert said(hosts_per_leaf=IB_SWITCH_PORTS - 4, spines=4) == []
    assert said(hosts_per_leaf=IB_SWITCH_PORTS - 4, spines=5) == [
        ("a leaf has 250 host ports and one port per spine", 8)]


def test_a_management_vrf_of_any_name_builds_where_every_switch_takes_one(tmp_path: Path) -> None:
    """EOS takes any management VRF name: an all-EOS fabric with `vrf: oob` validates, renders it
    into every switch's file and verifies (SOT-MGMT-VRF holds only platforms that fix the name)."""
    from conftest import platform_variant
    from dualrail_net.cli import main
    inventory = platform_variant(tmp_path, leaf="eos", gateway="eos")
    path = inventory / "fabric.yaml"
    path.write_text(path.read_text().replace("  vrf: mgmt\n", "  vrf: oob\n", 1))
    assert not [d for d in diags(inventory) if d.severity == Severity.ERROR]
    assert main(["build", "-i", str(inventory), "-o", str(tmp_path / "build"), "--json"]) == 0
    assert "vrf instance oob" in (tmp_path / "build/plane-A/a-leaf-su1-r0/running-config").read_text()


def test_users_are_held_to_what_an_eos_account_takes(example_loaded) -> None:
    """An EOS account holds a primary and a secondary SSH key, and one rendered without a password
    logs in with none: a third key (SOT-USER-KEYS) and a user without password_secret
    (SOT-USER-PASSWORD) are refused where a role runs EOS, at the user."""
    import copy
    loaded = copy.deepcopy(example_loaded)
    users = loaded.inventory.fabric.management.users
    key = users[0].ssh_keys[0]
    others = [key.replace("AAAAI", f"AAAA{c}") for c in "JK"]

    def codes(**change: object) -> list[str]:
        users[0] = example_loaded.inventory.fabric.management.users[0].model_copy(update=change)
        return sorted(d.code for d in validate(loaded) if d.code in ("SOT-USER-KEYS", "SOT-USER-PASSWORD"))
    assert codes(ssh_keys=[key, others[0]]) == []
    assert codes(ssh_keys=[key, *others]) == ["SOT-USER-KEYS"]
    assert codes(password_secret=None) == ["SOT-USER-PASSWORD"]


def test_two_keys_with_one_comment_get_distinct_names_in_nvues_file(tmp_path: Path) -> None:
    """NVUE keys a user's authorized keys by name (the key's comment): two keys that share a comment
    are two names in startup.yaml (else one duplicate key, which its loader refuses or collapses),
    and the build verifies; the same key twice is refused by validation."""
    from conftest import platform_variant
    from dualrail_net.cli import main
    inventory = platform_variant(tmp_path, leaf="cumulus-nvue")
    path = inventory / "fabric.yaml"
    text = path.read_text()
    key = next(line for line in text.splitlines() if "ssh-ed25519 AAAA" in line)
    second = key.replace("AAAAC3NzaC1lZDI1NTE5AAAAI", "AAAAC3NzaC1lZDI1NTE5AAAAJ")
    path.write_text(text.replace(key + "\n", key + "\n" + second + "\n", 1))
    assert not [d for d in diags(inventory) if d.severity == Severity.ERROR]
    assert main(["build", "-i", str(inventory), "-o", str(tmp_path / "build"), "--json"]) == 0
    startup = (tmp_path / "build/plane-A/a-leaf-su1-r0/startup.yaml").read_text()
    assert '"netops@example":' in startup and '"netops@example-2":' in startup
    # EOS holds them as its two slots (a second primary line would replace the first)
    spine = (tmp_path / "build/plane-A/a-spine-1/running-config").read_text()
    assert spine.count("username netops ssh-key ssh-ed25519 ") == 1
    assert spine.count("username netops ssh-key secondary ssh-ed25519 ") == 1
    path.write_text(text.replace(key + "\n", key + "\n" + key + "\n", 1))
    with pytest.raises(InventoryError, match="is listed twice"):
        load_inventory(inventory)
