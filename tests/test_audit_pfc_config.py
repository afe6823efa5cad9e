"""QOS-LIVE-PFC on the platforms whose PFC in force is the configuration they report running: EOS
(``show running-config``) and NVUE (the applied revision), read by the platform's own parser
against the rendered files, through the switch simulators (TEST DOUBLES: no EOS or NVUE runs here)."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pytest

from dualrail_net.audit.neighbors import MAX_ANSWER, NeighborsUnreadable
from dualrail_net.audit.qos import PFC_READERS, pfc_findings
from dualrail_net.audit.run import planned_pfc
from dualrail_net.deploy.drivers.base import PfcReader
from dualrail_net.manifest import Manifest
from dualrail_net.platforms.cumulus_nvue.driver import NvueDriver
from dualrail_net.platforms.cumulus_nvue.simulator import simulator_for
from dualrail_net.platforms.eos.driver import EosDriver
from dualrail_net.platforms.eos.simulator import EosSessionSimulator
from conftest import FakeClock, built_variant

LEAF = "a-leaf-su1-r0"


@pytest.fixture(scope="module")
def eos_leaves(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return built_variant(tmp_path_factory.mktemp("eos-leaves"), leaf="eos")


def _eos(build: Path) -> tuple[EosDriver, EosSessionSimulator, dict[str, tuple[int, ...]]]:
    folder = build / Manifest.load(build).devices[LEAF].dir
    text = (folder / "running-config").read_text()
    sim = EosSessionSimulator(LEAF, [line for line in text.splitlines() if line.strip()], clock=FakeClock())
    host = SimpleNamespace(name=LEAF, data={"device_dir": str(folder), "paths": {}})
    return EosDriver(host, sim), sim, planned_pfc(build, Manifest.load(build), LEAF)


def _read(driver: PfcReader) -> dict[str, tuple[int, ...]]:
    return PFC_READERS[driver.pfc_format](LEAF, driver.pfc_in_force())


def test_an_eos_port_whose_running_config_lost_its_lossless_priority_is_named(eos_leaves: Path) -> None:
    driver, sim, planned = _eos(eos_leaves)
    assert isinstance(driver, PfcReader)
    lossless = sorted(port for port, prios in planned.items() if prios)
    assert len(lossless) >= 4 and {planned[p] for p in lossless} == {(3,)}
    assert pfc_findings(LEAF, "A", _read(driver), planned) == []
    # a hand change during an incident, committed in a session: EOS merges the repeated block
    sim.send_config_set(["configure session incident", f"interface {lossless[1]}",
                         "   no priority-flow-control priority 3 no-drop", f"interface {lossless[2]}",
                         "   priority-flow-control priority 4 no-drop"])
    assert sim.send_command("commit") == ""
    found = pfc_findings(LEAF, "A", _read(driver), planned)
    assert [(f.check, f.message) for f in found] == [
        ("QOS-LIVE-PFC", f"{LEAF} {lossless[1]}: lossless priorities in force none, the plan says 3"),
        ("QOS-LIVE-PFC", f"{LEAF} {lossless[2]}: lossless priorities in force 3,4, the plan says 3")]


def test_the_running_config_fetched_for_drift_is_the_one_read_for_pfc(eos_leaves: Path) -> None:
    """The collection asks an EOS switch for its running-config once: the drift's fetch is what
    the PFC reader reads (the command is sent again only without it)."""
    driver, sim, planned = _eos(eos_leaves)
    fetched = driver.fetch()
    sent = len(sim.sent)
    assert PFC_READERS[driver.pfc_format](LEAF, driver.pfc_in_force(fetched)) == _read(driver)
    assert sim.sent[sent:] == ["show running-config"]  # (only the call without it asked again)
    assert pfc_findings(LEAF, "A", PFC_READERS[driver.pfc_format](LEAF, driver.pfc_in_force(fetched)), planned) == []


def test_an_eos_port_with_pfc_switched_off_is_named(eos_leaves: Path) -> None:
    driver, sim, planned = _eos(eos_leaves)
    port = sorted(p for p, prios in planned.items() if prios)[0]
    sim.send_config_set([f"interface {port}", "   no priority-flow-control on"])  # outside a session: at once
    found = pfc_findings(LEAF, "A", _read(driver), planned)
    assert [f.message for f in found] == [f"{LEAF} {port}: lossless priorities in force none, the plan says 3"]


def _nvue(build: Path) -> tuple[NvueDriver, dict[str, tuple[int, ...]]]:
    folder = build / Manifest.load(build).devices[LEAF].dir
    sim = simulator_for(folder, LEAF, {}, FakeClock())
    host = SimpleNamespace(name=LEAF, data={"device_dir": str(folder), "paths": {}})
    return NvueDriver(host, sim), planned_pfc(build, Manifest.load(build), LEAF)


def test_an_applied_nvue_revision_with_another_lossless_priority_names_every_port(nvue_variant: Path,
                                                                                  switch_secrets: Path) -> None:
    driver, planned = _nvue(nvue_variant)
    assert isinstance(driver, PfcReader)
    lossless = sorted(port for port, prios in planned.items() if prios)
    assert len(lossless) >= 4 and pfc_findings(LEAF, "A", _read(driver), planned) == []
    files = driver.intended()
    pfc = '      pfc:\n        default-global:\n          switch-priority:\n            "3": {}\n'
    assert pfc in files["startup.yaml"]
    files["startup.yaml"] = files["startup.yaml"].replace(pfc, pfc.replace('"3"', '"4"'))
    driver.load(files)
    driver.commit(revert_after=600)  # applied, not yet confirmed: already in force
    found = pfc_findings(LEAF, "A", _read(driver), planned)
    assert sorted(f.message for f in found) == sorted(
        f"{LEAF} {port}: lossless priorities in force 4, the plan says 3" for port in lossless)


@pytest.mark.parametrize("fmt,answer", [
    ("eos-running-config", ""),
    ("eos-running-config", "% Invalid input (privileged mode required)"),
    ("eos-running-config", "hostname x\n" * 10),
    ("eos-running-config", "interface Ethernet1\n" + "x" * MAX_ANSWER),
    ("nvue-applied", ""),
    ("nvue-applied", "- set: [\n"),
    ("nvue-applied", "Error: permission denied"),
], ids=["eos-empty", "eos-refused", "eos-no-interface", "eos-too-large", "nvue-empty", "nvue-not-yaml",
        "nvue-refused"])
def test_an_answer_naming_no_interface_is_unreadable_never_a_switch_without_pfc(fmt: str, answer: str) -> None:
    with pytest.raises(NeighborsUnreadable):
        PFC_READERS[fmt](LEAF, answer)
