from __future__ import annotations

import os
import shutil
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from dualrail_net.render import render_fabric
from dualrail_net.render.artifacts import write_artifacts
from dualrail_net.resolve import resolve_fabric
from dualrail_net.resolve.model import Fabric
from dualrail_net.sot.load import LoadedInventory, load_inventory
from dualrail_net.twin import lifecycle
from dualrail_net.twin.checks import wait_converged

REPO = Path(__file__).resolve().parents[1]
EXAMPLE = REPO / "inventory"

InventoryFactory = Callable[..., Path]

# The suite runs in two processes (pytest-xdist, `--dist loadgroup`: pyproject's addopts). Tests that
# use one thing the host has once -- the twin's namespaces ("drt-*", which `twin down` removes
# wholesale), its state folder and management bridge, PostgreSQL's port -- run in one process, one
# after another, in collection order; everything else (ibsim runs on a private socket each, the
# real consumers on private files) shares the other process.
ONE_HOST_MODULES = frozenset({"test_audit", "test_deploy", "test_twin", "test_twin_oracle",
                              "test_twin_frr_start", "test_hostroute", "test_journal_shared"})


@pytest.hookimpl(tryfirst=True)  # before xdist's own hook, which turns the mark into the group
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        module = item.module.__name__.rpartition(".")[2] if item.module else ""
        if module in ONE_HOST_MODULES or item.get_closest_marker("root"):
            item.add_marker(pytest.mark.xdist_group("host"))


@pytest.fixture
def make_inventory(tmp_path: Path) -> InventoryFactory:
    """Copy the example inventory and apply text edits: make_inventory(**{"fabric.yaml": [(old, new)]}).
    Each ``old`` must occur exactly as written (and is replaced once) so a test cannot silently
    edit nothing."""

    def factory(edits: dict[str, list[tuple[str, str]]] | None = None, remove: tuple[str, ...] = ()) -> Path:
        root = tmp_path / "inventory"
        if root.exists():
            shutil.rmtree(root)
        shutil.copytree(EXAMPLE, root)
        for name in remove:
            (root / name).unlink()
        for name, pairs in (edits or {}).items():
            path = root / name
            text = path.read_text()
            for old, new in pairs:
                assert old in text, f"test edit target not found in {name}: {old!r}"
                text = text.replace(old, new, 1)
            path.write_text(text)
        return root

    return factory


FIRMWARE_LINE = 'firmware: {cumulus: "5.9.2", eos: "4.32.2F"}'
VARIANT_FIRMWARE = {"sonic": "SONiC.202311.1", "cumulus-nvue": "5.9.2"}


def platform_variant(root: Path, **roles: str) -> Path:
    """A copy of the example under ``root`` with some roles on other platforms (and those platforms'
    firmware in every plane): platform_variant(tmp, leaf="sonic")."""
    inventory = root / "inventory"
    shutil.copytree(EXAMPLE, inventory)
    path = inventory / "fabric.yaml"
    text = path.read_text()
    for role, platform in roles.items():
        old = next(line for line in text.splitlines() if line.startswith(f"  {role}: "))
        text = text.replace(old + "\n", f"  {role}: {platform}\n", 1)
    extra = "".join(f', {p}: "{VARIANT_FIRMWARE.get(p, "1.0")}"' for p in sorted(set(roles.values()))
                    if p not in ("cumulus", "eos"))
    assert FIRMWARE_LINE in text
    text = text.replace(FIRMWARE_LINE, FIRMWARE_LINE[:-1] + extra + "}")
    path.write_text(text)
    return inventory


@pytest.fixture(scope="session")
def example_build(tmp_path_factory: pytest.TempPathFactory, example_fabric: Fabric) -> Path:
    """The example rendered once for the session's read-only users (never edited in place)."""
    out = tmp_path_factory.mktemp("example") / "build"
    write_artifacts(render_fabric(example_fabric), out)
    return out


def built_variant(root: Path, **roles: str) -> Path:
    """platform_variant rendered into ``root``/build (the inventory next to it: ../inventory)."""
    out = root / "build"
    write_artifacts(render_fabric(resolve_fabric(load_inventory(platform_variant(root, **roles)).inventory)), out)
    return out


@pytest.fixture(scope="session")
def sonic_variant(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The example with SONiC leaves, rendered."""
    return built_variant(tmp_path_factory.mktemp("sonic-variant"), leaf="sonic")


@pytest.fixture(scope="session")
def nvue_variant(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The example with NVUE leaves and gateway, rendered."""
    return built_variant(tmp_path_factory.mktemp("nvue-variant"), leaf="cumulus-nvue", gateway="cumulus-nvue")


class FakeClock:
    """TEST DOUBLE of time.monotonic for the device simulators: tests move ``now`` by hand."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def switch_secrets(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The secrets the example's switch configs name (the admin's hash, the TACACS key), in a
    DUALRAIL_SECRETS file outside the repository: pushed values come from here."""
    secrets = tmp_path / "outside" / "secrets.yaml"
    secrets.parent.mkdir()
    secrets.write_text("secrets:\n  netops-password: $6$salt$hash\n  tacacs-key: k3y\n")
    monkeypatch.setenv("DUALRAIL_SECRETS", str(secrets))
    return secrets


@pytest.fixture(scope="session")
def example_loaded() -> LoadedInventory:
    return load_inventory(EXAMPLE)


@pytest.fixture(scope="session")
def example_fabric(example_loaded: LoadedInventory) -> Fabric:
    return resolve_fabric(example_loaded.inventory)


def line_of(path: Path, needle: str, occurrence: int = 1) -> int:
    seen = 0
    for i, line in enumerate(path.read_text().splitlines(), 1):
        if needle in line:
            seen += 1
            if seen == occurrence:
                return i
    raise AssertionError(f"{needle!r} not in {path}")


# what a test module that brings the twin up needs (root, FRR, ifupdown2): its pytestmark
NEEDS_TWIN = [
    pytest.mark.root,
    pytest.mark.skipif(os.geteuid() != 0, reason="the twin needs root"),
    pytest.mark.skipif(shutil.which("vtysh") is None or shutil.which("ifup") is None, reason="needs frr, ifupdown2"),
]


def running_example_twin(tmp_path_factory: pytest.TempPathFactory, fabric: Fabric, label: str,
                         servers: bool = True) -> Iterator[Path]:
    """Body of a module-scoped twin fixture: render ``fabric``, bring the twin up, wait for full
    convergence, yield the rendered folder, and take everything down again (no namespace left)."""
    out = tmp_path_factory.mktemp(label) / "build"
    write_artifacts(render_fabric(fabric), out)
    lifecycle.up(out, servers=servers)
    wait_converged()
    yield out
    lifecycle.down()
    assert not lifecycle.our_namespaces()
