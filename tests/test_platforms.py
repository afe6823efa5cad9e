"""Every registered platform plug-in, through the same tests (issue 15): the protocol is complete, its
templates and golden files exist, a fabric rendered entirely on it parses back to what was rendered,
and its deploy driver offers the driver contract.

A new platform is added to this test by registering it (``dualrail.platforms`` entry point); nothing
here names a platform.
"""

from __future__ import annotations

import inspect
import shutil
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from netmiko.ssh_dispatcher import CLASS_MAPPER

from conftest import EXAMPLE
from dualrail_net.deploy.drivers.base import Driver
from dualrail_net.formats import OutputFormat
from dualrail_net.platforms import Platform, PlatformError, get_platform, platform_names, platforms
from dualrail_net.platforms.registry import _checked
from dualrail_net.render import render_fabric
from dualrail_net.render.artifacts import write_artifacts
from dualrail_net.render.engine import templates_dir
from dualrail_net.render.pipeline import device_dir
from dualrail_net.render.structured import switch_structured
from dualrail_net.resolve import resolve_fabric
from dualrail_net.resolve.model import Fabric
from dualrail_net.sot.load import load_inventory
from dualrail_net.verify.parsers import parse_device

GOLDEN = Path(__file__).parent / "golden"
NAMES = platform_names()


def test_builtin_platforms_are_registered_by_entry_point() -> None:
    from importlib.metadata import entry_points
    assert {"cumulus", "eos"} <= {ep.name for ep in entry_points(group="dualrail.platforms")}
    assert {"cumulus", "eos"} <= set(NAMES)


@pytest.mark.parametrize("name", NAMES)
def test_protocol_is_complete(name: str) -> None:
    platform = get_platform(name)
    assert isinstance(platform, Platform) and platform.name == name
    assert platform.files and len({f.filename for f in platform.files}) == len(platform.files)
    root = platform.template_root or templates_dir()
    for f in platform.files:
        assert isinstance(f.format, OutputFormat)
        assert (Path(root) / f.template).is_file(), f.template
    assert platform.netmiko_type in CLASS_MAPPER, platform.netmiko_type
    assert 1500 <= platform.max_mtu <= 9216
    ports = [platform.port_name(n) for n in (1, 2, 64)]
    assert len(set(ports)) == 3 and all(p.isalnum() for p in ports)
    if platform.twin_substitute is not None:
        assert platform.twin_substitute in NAMES and get_platform(platform.twin_substitute).twin_substitute is None
    parser = platform.parser()
    assert callable(parser.base) and (parser.routing is None or callable(parser.routing))


@pytest.mark.parametrize("name", NAMES)
def test_every_rendered_file_has_a_golden_file(name: str) -> None:
    goldens = {p.name for p in GOLDEN.rglob("*") if p.is_file()}
    for f in get_platform(name).files:
        assert f.filename in goldens, f"no golden file for {name}'s {f.filename} under tests/golden"


def _inventory_all_on(name: str, tmp: Path) -> Path:
    """The example with every role on platform ``name`` (and the firmware it needs)."""
    root = tmp / "inventory"
    shutil.copytree(EXAMPLE, root)
    text = (root / "fabric.yaml").read_text()
    start = text.index("platforms:")
    end = text.index("\n", text.index("gateway:", start))
    roles = get_platform(name).roles  # a role the platform does not render stays on Cumulus
    block = "platforms:\n" + "".join(f"  {role}: {name if role in roles else 'cumulus'}\n"
                                      for role in ("leaf", "spine", "super_spine")) + \
        f"  gateway: {name if 'gateway' in roles else 'cumulus'}"
    text = text[:start] + block + text[end:]
    text = text.replace('firmware: {cumulus: "5.9.2", eos: "4.32.2F"}',
                        f'firmware: {{cumulus: "5.9.2", eos: "4.32.2F", {name}: "1.0"}}'
                        if name not in ("cumulus", "eos") else 'firmware: {cumulus: "5.9.2", eos: "4.32.2F"}')
    text = text.replace("mtu: 9214", f"mtu: {min(9214, get_platform(name).max_mtu)}")
    (root / "fabric.yaml").write_text(text)
    return root


@pytest.fixture(scope="module", params=NAMES)
def fabric_on(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> tuple[str, Fabric, Path]:
    name = request.param
    tmp = tmp_path_factory.mktemp(f"platform-{name}")
    fabric = resolve_fabric(load_inventory(_inventory_all_on(name, tmp)).inventory)
    out = tmp / "build"
    write_artifacts(render_fabric(fabric), out)
    return name, fabric, out


def test_render_parse_round_trip(fabric_on: tuple[str, Fabric, Path]) -> None:
    """What the platform's parser reads back is what the structured config said: hostname, every
    interface with its address and VRF, every BGP instance with its ASN, neighbors and networks."""
    name, fabric, out = fabric_on
    on_it = [sw for sw in fabric.switches.values() if sw.platform == name]
    assert len(on_it) >= 20 and all(sw.platform == "cumulus" for sw in fabric.switches.values() if sw not in on_it)
    for sw in on_it:
        s = switch_structured(fabric, sw)
        dev = parse_device(sw.name, name, out / device_dir(sw))
        assert dev.hostname == s["hostname"]
        for i in s["interfaces"]:
            parsed = dev.interfaces[i["name"]]
            assert i["address"] in parsed.addresses, (sw.name, i["name"])
            assert parsed.vrf == (i["vrf"] or None), (sw.name, i["name"])
            assert parsed.mtu == i["mtu"], (sw.name, i["name"])
        assert set(dev.bgp) == {b["vrf"] or None for b in s["bgp"]}
        for b in s["bgp"]:
            inst = dev.bgp[b["vrf"] or None]
            assert inst.asn == b["asn"]
            assert set(inst.neighbors) == {n["address"] for n in b["neighbors"]}
            assert {n.remote_asn for n in inst.neighbors.values()} == {n["remote_asn"] for n in b["neighbors"]}
            assert sorted(inst.networks) == sorted(b["networks"])


def test_the_twin_can_run_every_platform(fabric_on: tuple[str, Fabric, Path]) -> None:
    """A platform that cannot run here renders a substitute the twin runs (FRR + ifupdown2 files)."""
    name, fabric, out = fabric_on
    platform = get_platform(name)
    runner = get_platform(platform.twin_substitute or name)
    for sw in [sw for sw in fabric.switches.values() if sw.platform == name]:
        folder = out / (f"twin-substitutes/{sw.name}" if platform.twin_substitute else device_dir(sw))
        for f in runner.files:
            assert (folder / f.filename).is_file() or not f.twin, (sw.name, f.filename)


def test_batfish_export(fabric_on: tuple[str, Fabric, Path]) -> None:
    name, fabric, out = fabric_on
    sw = next(sw for sw in fabric.switches.values() if sw.platform == name)
    files = get_platform(name).batfish_files(sw.name, out / device_dir(sw))
    # Batfish's snapshot layout: configs/ (one file per device), sonic_configs/<device>/ (SONiC)
    assert files and all(path.startswith(("configs/", f"sonic_configs/{sw.name}/")) for path in files)
    assert all(sw.name in (c.decode() if isinstance(c, bytes) else c) for c in files.values())


class _RecordingConnection:
    """TEST DOUBLE: answers every command with an empty string and records it (no device here)."""

    def __init__(self) -> None:
        self.sent: list[str] = []

    def send_command(self, command: str, **_: Any) -> str:
        self.sent.append(command)
        return ""

    def send_config_set(self, commands: list[str], **_: Any) -> str:
        self.sent.extend(commands)
        return ""


@pytest.mark.parametrize("name", NAMES)
def test_driver_offers_the_contract(name: str, tmp_path: Path) -> None:
    platform = get_platform(name)
    host = SimpleNamespace(name="dev1", data={"device_dir": str(tmp_path), "twin_dir": str(tmp_path),
                                              "paths": dict(platform.deploy_paths), "run_platform": name})
    driver = platform.driver(host, _RecordingConnection())
    for method in [m for m in dir(Driver) if not m.startswith("_")]:
        assert callable(getattr(driver, method, None)) or method == "name", f"{name} driver lacks {method}"
        if method != "name":
            declared = inspect.signature(getattr(Driver, method))
            actual = inspect.signature(getattr(driver, method))
            assert list(actual.parameters) == [p for p in declared.parameters if p != "self"], (name, method)
    assert driver.name == "dev1"


def test_every_route_reader_asks_for_one_vrf_by_a_checked_name(tmp_path: Path) -> None:
    """A gateway's plane is read in its VRF: each platform's command names it, and a name that is not
    a VRF device name never reaches the device's CLI or shell."""
    from dualrail_net.deploy.drivers.base import RouteReader
    eos = get_platform("eos").driver(SimpleNamespace(name="gw", data={"device_dir": str(tmp_path)}),
                                     conn := _RecordingConnection())
    assert isinstance(eos, RouteReader)
    eos.bgp_routes("plane-b")
    eos.bgp_routes()
    assert conn.sent == ["show ip route vrf plane-b bgp | json", "show ip route bgp | json"]
    with pytest.raises(ValueError):
        eos.bgp_routes("x | bash")
    assert len(conn.sent) == 2


def test_a_broken_plugin_is_refused() -> None:
    class Half:
        name = "half"
        files = ()

    with pytest.raises(PlatformError, match="does not implement"):
        _checked("half", Half(), "tests:Half")
    with pytest.raises(PlatformError, match="calls itself"):
        _checked("other", get_platform("eos"), "tests:eos")
    with pytest.raises(PlatformError, match="no platform"):
        get_platform("junos")
    assert all(isinstance(p, Platform) for p in platforms().values())


def test_every_rendered_switch_file_is_pushed_by_its_driver(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """No silent no-op: for every switch of the example, the files its platform's driver pushes to a
    real device are exactly the files the manifest lists for it (QoS included)."""
    from types import SimpleNamespace

    from dualrail_net.manifest import Manifest
    from dualrail_net.render import render_fabric
    from dualrail_net.render.artifacts import write_artifacts
    from dualrail_net.resolve import resolve_fabric
    from dualrail_net.sot.load import load_inventory

    secrets = tmp_path / "outside" / "secrets.yaml"
    secrets.parent.mkdir()
    secrets.write_text("secrets:\n  netops-password: $6$a$b\n  tacacs-key: k\n")
    monkeypatch.setenv("DUALRAIL_SECRETS", str(secrets))
    out = tmp_path / "build"
    write_artifacts(render_fabric(resolve_fabric(load_inventory(EXAMPLE).inventory)), out)
    manifest = Manifest.load(out)
    checked = 0
    for name, meta in manifest.devices.items():
        platform = get_platform(meta.platform)
        host = SimpleNamespace(name=name, data={"device_dir": str(out / meta.dir), "twin_dir": str(out / meta.twin_dir),
                                                "run_platform": meta.platform, "paths": dict(platform.deploy_paths)})
        pushed = set(platform.driver(host, None).intended())
        assert pushed == set(meta.files), f"{name}: pushes {sorted(pushed)}, rendered {sorted(meta.files)}"
        checked += 1
    assert checked == len(manifest.devices) == 25
    # and every server takes every file rendered for it (the NIC QoS program and its unit too)
    from dualrail_net.deploy.drivers.server import SERVER_PATHS, ServerDriver
    for name, srv in manifest.servers.items():
        host = SimpleNamespace(name=name, data={"device_dir": str(out / srv.dir), "twin_dir": str(out / srv.dir),
                                                "run_platform": "linux", "paths": dict(SERVER_PATHS)})
        pushed = set(ServerDriver(host, None).intended())
        assert pushed == set(srv.files), f"{name}: pushes {sorted(pushed)}, rendered {sorted(srv.files)}"
    assert len(manifest.servers) == 32


def test_in_the_twin_every_file_the_twin_runs_is_pushed(tmp_path: Path) -> None:
    """In the twin a Cumulus switch takes all three files (QoS placed, though no switchd reads it);
    an EOS device's Cumulus substitute takes what its substitute holds."""
    from dualrail_net.manifest import Manifest
    from dualrail_net.render import render_fabric
    from dualrail_net.render.artifacts import write_artifacts
    from dualrail_net.resolve import resolve_fabric
    from dualrail_net.sot.load import load_inventory

    out = tmp_path / "build"
    write_artifacts(render_fabric(resolve_fabric(load_inventory(EXAMPLE).inventory)), out)
    manifest = Manifest.load(out)
    for name, meta in manifest.devices.items():
        if meta.plane is None:
            continue  # a multi-plane device runs as one namespace per VRF in the twin
        run_platform = get_platform(meta.platform).twin_substitute or meta.platform
        rd = str(tmp_path / "ns" / name)
        paths = {"frr_conf": f"{rd}/frr.conf", "interfaces": f"{rd}/interfaces", "frr_dir": rd, "vty_socket": rd,
                 "qos": f"{rd}/qos_features.conf", "state_dir": rd}
        host = SimpleNamespace(name=name, data={"device_dir": str(out / meta.dir), "twin_dir": str(out / meta.twin_dir),
                                                "run_platform": run_platform, "paths": paths})
        pushed = set(get_platform(run_platform).driver(host, None).intended())
        runs = {p.name for p in (out / meta.twin_dir).iterdir()} & {"frr.conf", "interfaces", "qos_features.conf"}
        assert pushed == runs, name
        assert ("qos_features.conf" in pushed) == (meta.platform == "cumulus"), name


@pytest.mark.usefixtures("switch_secrets")
@pytest.mark.parametrize("variant,platform,devices", [("sonic_variant", "sonic", 16), ("nvue_variant", "cumulus-nvue", 17)])
def test_every_file_of_a_newer_platform_is_pushed(request: pytest.FixtureRequest, variant: str, platform: str,
                                                  devices: int) -> None:
    """No silent no-op: on the example's platform variants, each switch of the platform is pushed
    exactly the files the manifest lists for it."""
    from dualrail_net.manifest import Manifest
    out = request.getfixturevalue(variant)
    manifest = Manifest.load(out)
    on_it = {name: meta for name, meta in manifest.devices.items() if meta.platform == platform}
    assert len(on_it) == devices
    for name, meta in on_it.items():
        host = SimpleNamespace(name=name, data={"device_dir": str(out / meta.dir), "paths": {}})
        assert set(get_platform(platform).driver(host, None).intended()) == set(meta.files), name
