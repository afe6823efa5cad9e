"""No silent no-ops (issue 15): every schema field reaches some rendered file or some validation rule.

For every field the example inventory sets, the value is changed to another value the *schema*
accepts; then either the cross-file validation or the rendered output must change. A field whose
change is invisible is a defect: it is listed below with the issue that wires it (and the test checks
that the list stays true), or the test fails. Fields the example does not set are covered by the
tests named in COVERED_ELSEWHERE.
"""

from __future__ import annotations

import copy
import json
import types
import typing
from typing import Any

import pytest
import yaml
from pydantic import BaseModel, ValidationError

from conftest import EXAMPLE
from dualrail_net.capacity.run import capacity_report, to_json
from dualrail_net.render import render_fabric
from dualrail_net.resolve import resolve_fabric
from dualrail_net.sot.load import INVENTORY_FILES
from dualrail_net.sot.schema import Inventory
from dualrail_net.sot.validate import validate
from dualrail_net.sot.load import LoadedInventory
from dualrail_net.sot.yamlsource import SourceMap

# Known no-ops, each with the issue that gives it a consumer. The test fails when one starts to
# reach an output (then remove it here) and when a field not listed here reaches nothing.
KNOWN_NO_OPS: dict[str, str] = {}

# Fields the example does not set (or cannot show alone), set here to two values the schema accepts: the outputs must differ.
# (path, one value, another value, other edits both runs make so the field matters)
ADDED: dict[str, tuple[tuple[Any, ...], Any, Any, list[tuple[tuple[Any, ...], Any]]]] = {
    "infiniband.ib_planes.*.switch_guid_base": (("infiniband", "ib_planes", "IBA", "switch_guid_base"),
                                                "0x0002c90300000100", "0x0002c90300000200", []),
    "infiniband.ib_planes.*.switch_guids": (("infiniband", "ib_planes", "IBA", "switch_guids"), {},
                                            {"iba-spine-1": "0x0002c90300aa0001", "iba-spine-2": "0x0002c90300aa0002",
                                             "iba-leaf-1": "0x0002c90300aa0011", "iba-leaf-2": "0x0002c90300aa0012"},
                                            []),
    "servers.server_models.*.nics.*.ports.*.speed": (("servers", "server_models", "hgx-hpn-4x2", "nics", 0, "ports", 0,
                                                      "speed"), None, "100G", []),
    "fabric.topology.parallel_links.leaf_spine": (("fabric", "topology", "parallel_links"), {"leaf_spine": 1},
                                                  {"leaf_spine": 2}, []),
    "fabric.topology.parallel_links": (("fabric", "topology", "parallel_links"), {}, {"leaf_spine": 2}, []),
    "fabric.role_labels.leaf": (("fabric", "role_labels"), {"leaf": "leaf"}, {"leaf": "tor"}, []),
    "fabric.role_labels.spine": (("fabric", "role_labels"), {"spine": "spine"}, {"spine": "agg"}, []),
    "fabric.role_labels": (("fabric", "role_labels"), {}, {"leaf": "tor", "spine": "agg"}, []),
    "fabric.planes.*.asn.scheme": (("fabric", "planes", "A", "asn", "scheme"), "rfc7938", "per-switch", []),
    # a threshold the example stays within: with three spines per plane the leaves are 1.33:1
    "fabric.topology.max_oversubscription": (("fabric", "topology", "max_oversubscription"), 1.0, 2.0,
                                             [(("fabric", "planes", p, "spines_per_pod"), 3) for p in "AB"]),
    "fabric.management.radius": (("fabric", "management", "radius"), None,
                                 {"servers": ["192.0.2.50"], "key_secret": "radius-key"}, []),
    "fabric.management.radius.servers": (("fabric", "management", "radius"),
                                         {"servers": ["192.0.2.50"], "key_secret": "radius-key"},
                                         {"servers": ["192.0.2.51"], "key_secret": "radius-key"}, []),
    "fabric.management.radius.key_secret": (("fabric", "management", "radius"),
                                            {"servers": ["192.0.2.50"], "key_secret": "radius-key"},
                                            {"servers": ["192.0.2.50"], "key_secret": "other-key"}, []),
    "fabric.management.snmp_community_secret": (("fabric", "management", "snmp_community_secret"), None, "snmp-ro", []),
    "fabric.management.gnmi": (("fabric", "management", "gnmi"), False, True, []),
    # the older spelling of management.network: the same slots, without the rest of the section
    "fabric.management_network": (("fabric", "management_network"), "198.51.100.0/24", "203.0.113.0/24",
                                   [(("fabric", "management"), None)]),
}

# Schema fields the example does not set, and the tests that show they reach an output or a check.
COVERED_ELSEWHERE = {
    # three tiers: the property tests in tests/test_resolve.py build them and assert the super-spine
    # tier, its links, ASNs and addresses
    "fabric.hardware.super_spine": "tests/test_resolve.py (3-tier growth)",
    "fabric.hardware.spine.uplink_ports": "tests/test_resolve.py (3-tier)",
    "fabric.platforms.super_spine": "tests/test_resolve.py (3-tier)",
    "fabric.planes.*.super_spines_per_group": "tests/test_resolve.py (3-tier)",
    "fabric.planes.*.asn.super_spine": "tests/test_resolve.py (3-tier)",
    "fabric.planes.*.link_speeds.spine_super_spine": "tests/test_resolve.py (3-tier)",
    "fabric.planes.*.pools.super_spine_links": "tests/test_resolve.py (3-tier)",
    "servers.servers.*.pod": "tests/test_resolve.py (3-tier: servers of every pod)",
    "fabric.role_labels.super_spine": "tests/test_resolve.py (3-tier: role labels name the super-spines)",
    "fabric.gateways.*.external": "tests/test_fabric_shapes.py::test_gateway_external_side (ports, sessions, "
                                  "policies, server routes; every field validated)",
    "fabric.topology.parallel_links.spine_super_spine": "tests/test_reference_rib.py and tests/test_capacity.py "
                                                        "(3-tier with two links per spine-super-spine pair)",
    "infiniband.partitions.*.rate": "tests/test_infiniband.py (partition flags reach partitions.conf)",
}


def _paths(data: Any, path: tuple[Any, ...] = ()) -> typing.Iterator[tuple[Any, ...]]:
    if isinstance(data, dict):
        for key, value in data.items():
            yield from _paths(value, (*path, key))
    elif isinstance(data, list):
        for i, value in enumerate(data):
            yield from _paths(value, (*path, i))
    else:
        yield path


def _pattern(path: tuple[Any, ...], raw: dict[str, Any]) -> str:
    """The schema path of a data path: list indices and mapping keys chosen by the user become '*'."""
    out = []
    node: Any = raw
    for part in path:
        user_key = isinstance(node, dict) and part not in _FIXED_KEYS
        out.append("*" if isinstance(part, int) or user_key else str(part))
        node = node[part]
    return ".".join(out)


# keys that are schema field names (everything else in a mapping is a user's key: a plane, a model)
_FIXED_KEYS: set[str] = set()


def _collect_field_names(model: type[BaseModel]) -> None:
    for name, info in model.model_fields.items():
        _FIXED_KEYS.add(name)
        for arg in _models_in(info.annotation):
            _collect_field_names(arg)


def _models_in(annotation: Any) -> list[type[BaseModel]]:
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return [annotation]
    return [m for arg in typing.get_args(annotation) for m in _models_in(arg)]


_collect_field_names(Inventory)
_FIXED_KEYS -= {"A", "B"}


def _alternatives(value: Any) -> list[Any]:
    if isinstance(value, bool):
        return [not value]
    if isinstance(value, int):
        return [value + 1, value - 1, value * 2, value + 16, value // 2]
    if isinstance(value, float):
        return [value + 1.0, value * 2]
    if isinstance(value, str):
        shifted = []
        if all(part.strip().replace("-", "").isdigit() for part in value.split(",")):  # a port range
            shifted = [",".join("-".join(str(int(b) + 1) for b in part.split("-")) for part in value.split(","))]
        return shifted + [value + "x", value + "1", value[:-1] + ("b" if value[-1:] != "b" else "c"), "pcp,dscp",
                          "updn", "limited", "full", "none", "per-switch", "0000:ff", "10.200.0.0/16", "100G",
                          "400G", "eos", "cumulus", "198.51.100.250", "192.0.2.99", "operator", "read-only", "0000:fe:00.0",
                          "port", "nic"]
    return []


def _load_raw() -> dict[str, Any]:
    return {field: yaml.safe_load((EXAMPLE / name).read_text()) for field, (name, _r) in INVENTORY_FILES.items()}


def _set(data: dict[str, Any], path: tuple[Any, ...], value: Any) -> dict[str, Any]:
    data = copy.deepcopy(data)
    node: Any = data
    for part in path[:-1]:
        node = node[part]
    node[path[-1]] = value
    return data


def _observe(raw: dict[str, Any]) -> tuple[Any, ...] | None:
    """(validation messages, rendered files) for a raw inventory, or None if the schema refuses it."""
    try:
        inv = Inventory.model_validate(raw)
    except ValidationError:
        return None
    loaded = LoadedInventory(inventory=inv, source=SourceMap(), root=EXAMPLE)
    diags = tuple(sorted(d.message for d in validate(loaded)))
    if any(d for d in validate(loaded) if d.severity.value == "error"):
        return diags, None
    fabric = resolve_fabric(inv)
    rendered = render_fabric(fabric).by_path()
    # the capacity report is an output too (issue 19: GPUs per server, NIC PCIe links reach it)
    capacity = json.dumps(to_json(capacity_report(inv, fabric)), sort_keys=True)
    return diags, tuple(sorted(rendered.items())), capacity


def _cases() -> list[tuple[str, tuple[Any, ...]]]:
    raw = _load_raw()
    seen: dict[str, tuple[Any, ...]] = {}
    for path in _paths(raw):
        seen.setdefault(_pattern(path, raw), path)
    return sorted(seen.items())


CASES = _cases()


@pytest.fixture(scope="module")
def baseline() -> tuple[dict[str, Any], Any]:
    raw = _load_raw()
    return raw, _observe(raw)


@pytest.mark.parametrize("pattern,path", CASES, ids=[c[0] for c in CASES])
def test_every_set_field_reaches_an_output_or_a_check(baseline: tuple[dict[str, Any], Any], pattern: str,
                                                      path: tuple[Any, ...]) -> None:
    raw, base = baseline
    if pattern in ADDED:
        return  # a field whose effect needs other edits: test_fields_set_here_reach_an_output has it
    node: Any = raw
    for part in path:
        node = node[part]
    changed = None
    tried = 0
    for alt in _alternatives(node):
        if alt == node:
            continue
        seen = _observe(_set(raw, path, alt))
        if seen is None:
            continue  # the schema refuses this value: not a valid alternative
        tried += 1
        if seen != base:
            changed = alt
            break
    if pattern in KNOWN_NO_OPS:
        assert changed is None, f"{pattern} now reaches an output: remove it from KNOWN_NO_OPS"
        return
    assert tried, f"{pattern}: no alternative value the schema accepts; add one to _alternatives"
    assert changed is not None, (f"{pattern} = {node!r}: changing it changes no rendered file and no "
                                 "validation result (a silent no-op)")


@pytest.mark.parametrize("pattern", sorted(ADDED))
def test_fields_set_here_reach_an_output(pattern: str) -> None:
    path, first, second, extras = ADDED[pattern]
    raw = _load_raw()
    for where, value in extras:
        raw = _set(raw, where, value)
    a, b = _observe(_set(raw, path, first)), _observe(_set(raw, path, second))
    assert a is not None and b is not None, "both values must pass the schema"
    assert a != b, f"{pattern}: {first!r} and {second!r} give the same outputs (a silent no-op)"


def _schema_fields(model: type[BaseModel], prefix: str) -> typing.Iterator[str]:
    for name, info in model.model_fields.items():
        path = f"{prefix}.{name}" if prefix else name
        yield path
        annotation = info.annotation
        origin = typing.get_origin(annotation)
        args = typing.get_args(annotation)
        if origin in (dict,) and args:
            for m in _models_in(args[1]):
                yield from _schema_fields(m, f"{path}.*")
        elif origin in (list,) and args:
            for m in _models_in(args[0]):
                yield from _schema_fields(m, f"{path}.*")
        elif origin in (typing.Union, types.UnionType):
            for arg in args:
                inner = typing.get_args(arg)[0] if typing.get_origin(arg) is typing.Annotated else arg
                if typing.get_origin(inner) is list:  # e.g. gpus: a count or a list of GPUs
                    for m in _models_in(inner):
                        yield from _schema_fields(m, f"{path}.*")
                else:
                    for m in _models_in(inner):
                        yield from _schema_fields(m, path)
        else:
            for m in _models_in(annotation):
                yield from _schema_fields(m, path)


def test_every_schema_field_is_covered() -> None:
    """Every field of the schema is set by the example (and tested above), or named in
    COVERED_ELSEWHERE or KNOWN_NO_OPS."""
    set_by_example = {pattern for pattern, _path in CASES}
    prefixes = {".".join(p.split(".")[:i]) for p in set_by_example for i in range(1, p.count(".") + 2)}
    missing = []
    for field in _schema_fields(Inventory, ""):
        if field in prefixes or field in KNOWN_NO_OPS or field in ADDED:
            continue
        if any(field == c or field.startswith(c + ".") for c in COVERED_ELSEWHERE):
            continue
        missing.append(field)
    assert not missing, f"schema fields no test shows reaching an output: {missing}"
