"""Loading: schema errors become file:line diagnostics, never tracebacks."""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import InventoryFactory, line_of
from dualrail_net.sot.load import InventoryError, load_inventory
from dualrail_net.sot.yamlsource import SourceMap, YamlSourceError, load_yaml


def errors_for(root: Path) -> list[str]:
    with pytest.raises(InventoryError) as info:
        load_inventory(root)
    return [d.format() for d in info.value.diagnostics]


def test_example_inventory_loads(example_loaded) -> None:
    inv = example_loaded.inventory
    assert list(inv.fabric.planes) == ["A", "B"]
    assert len(inv.servers.servers) == 32
    assert inv.infiniband is not None and len(inv.infiniband.ib_planes) == 2


def test_unknown_key_is_an_error_with_its_line(make_inventory: InventoryFactory) -> None:
    root = make_inventory({"fabric.yaml": [("    spines_per_pod: 4\n    link_speeds: {server: 200G, leaf_spine: 800G, border: 400G}\n    mtu: 9214\n    qos_profile: roce-lossless\n    firmware: {cumulus: \"5.9.2\", eos: \"4.32.2F\"}\n    pools:\n      loopbacks: 10.20.0.0/24",
                                            "    spines_per_pod: 4\n    spines_per_pood: 4\n    link_speeds: {server: 200G, leaf_spine: 800G, border: 400G}\n    mtu: 9214\n    qos_profile: roce-lossless\n    firmware: {cumulus: \"5.9.2\", eos: \"4.32.2F\"}\n    pools:\n      loopbacks: 10.20.0.0/24")]})
    errs = errors_for(root)
    line = line_of(root / "fabric.yaml", "spines_per_pood")
    assert any(e.startswith(f"{root / 'fabric.yaml'}:{line}:") or f"fabric.yaml:{line}:" in e for e in errs), errs
    assert any("unknown key 'spines_per_pood'" in e for e in errs)


def test_type_error_names_value_and_line(make_inventory: InventoryFactory) -> None:
    root = make_inventory({"servers.yaml": [("{name: gpu017, model: dgx-split-8x1, su: 2, slot: 1,",
                                             "{name: gpu017, model: dgx-split-8x1, su: two, slot: 1,")]})
    errs = errors_for(root)
    line = line_of(root / "servers.yaml", "su: two")
    assert any(f"servers.yaml:{line}:" in e and "'two'" in e for e in errs), errs


def test_bad_prefix_and_speed(make_inventory: InventoryFactory) -> None:
    root = make_inventory({"fabric.yaml": [("loopbacks: 10.10.0.0/24", "loopbacks: 10.10.0.1/24"),
                                           ("leaf_spine: 800G", "leaf_spine: 800")]})
    errs = "\n".join(errors_for(root))
    assert "10.10.0.1/24" in errs and "host bits" in errs
    assert "speed" in errs


def test_duplicate_yaml_key(make_inventory: InventoryFactory) -> None:
    root = make_inventory({"qos.yaml": [("    trust: dscp\n", "    trust: dscp\n    trust: dscp\n")]})
    errs = errors_for(root)
    assert any("duplicate key 'trust'" in e and f"qos.yaml:{line_of(root / 'qos.yaml', 'trust', 2)}:" in e
               for e in errs), errs


@pytest.mark.parametrize("old,new,value", [
    ("  dns: [192.0.2.53]", "  dns: [192.0.2.53, 192.0.2.53]", "192.0.2.53"),
    ("  ntp: [192.0.2.10, 192.0.2.11]", "  ntp: [192.0.2.10, 192.0.2.10]", "192.0.2.10"),
    ("    servers: [192.0.2.49]", "    servers: [192.0.2.49, 192.0.2.49]", "192.0.2.49"),
    ("    - name: netops\n", "    - name: netops\n      role: admin\n    - name: netops\n", "netops"),
    ("      priorities: [3]", "      priorities: [3, 3]", "3"),
    ("      traffic_classes: [0, 3]", "      traffic_classes: [0, 3, 0]", "0"),
], ids=["dns", "ntp", "tacacs", "user", "pfc-priority", "ecn-class"])
def test_a_server_user_or_class_listed_twice_is_an_error_with_its_line(make_inventory: InventoryFactory, old: str,
                                                                         new: str, value: str) -> None:
    """Each is a key of a map in NVUE's and SONiC's files (a repeat is a duplicate key there: a
    structural fuzz found NVUE's startup.yaml unreadable with PFC on [3, 3]) and a second block on
    EOS: listed once, or the load says where."""
    file = "qos.yaml" if "priorities" in old or "traffic_classes" in old else "fabric.yaml"
    root = make_inventory({file: [(old, new)]})
    errs = errors_for(root)
    assert any(f"{value} is listed twice" in e and f"{file}:" in e for e in errs), errs


def test_yaml_syntax_error(make_inventory: InventoryFactory) -> None:
    root = make_inventory({"servers.yaml": [("  - {name: gpu005,", "  - {name: gpu005,,]")]})
    errs = errors_for(root)
    assert any("YAML syntax error" in e and "servers.yaml:" in e for e in errs), errs


def test_missing_required_file(make_inventory: InventoryFactory) -> None:
    root = make_inventory(remove=("qos.yaml",))
    assert any("qos.yaml is missing" in e for e in errors_for(root))


def test_unexpected_file(make_inventory: InventoryFactory) -> None:
    root = make_inventory()
    (root / "fabirc.yaml").write_text("name: x\n")
    assert any("unexpected inventory file fabirc.yaml" in e for e in errors_for(root))


def test_source_map_lines(tmp_path: Path) -> None:
    path = tmp_path / "x.yaml"
    path.write_text("a: 1\nb:\n  - {c: 0x10}\n  - e: null\n")
    smap = SourceMap()
    data = load_yaml(path, "x.yaml", smap)
    assert data == {"a": 1, "b": [{"c": 16}, {"e": None}]}
    assert smap.locate(("b", 1, "e")) == ("x.yaml", 4)
    assert smap.locate(("b", 0, "c", "nope")) == ("x.yaml", 3)
    path.write_text("a: 1\nb: [1, 2]\na: 3\n")
    with pytest.raises(YamlSourceError) as info:
        load_yaml(path, "x.yaml", SourceMap())
    assert info.value.line == 3
