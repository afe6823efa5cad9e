"""OpenSM files reach each IB plane's SM one plane at a time: the real opensm, running as a daemon on
an ibsim fabric, re-reads the rendered files on SIGHUP; every HCA port's P_Key table read back is
the gate; a wrong file is put back and the next plane is not touched."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from dualrail_net.deploy.opensm import FILES, SimulatedSmHost, deploy_opensm, expected_tables, standby_files
from dualrail_net.manifest import Manifest
from dualrail_net.render import render_fabric
from dualrail_net.render.artifacts import write_artifacts
from dualrail_net.resolve.model import Fabric
from dualrail_net.verify.ib.sim import SimulatedPlane, tools_missing

pytestmark = pytest.mark.skipif(bool(tools_missing()), reason=f"needs ibsim/opensm: {tools_missing()}")

MEMBER = "    0x0c42a10300a10003=full,\n"  # gpu003's plane-A port in tenant_a


@pytest.fixture(scope="module")
def builds(tmp_path_factory: pytest.TempPathFactory, example_fabric: Fabric) -> dict[str, Path]:
    base = tmp_path_factory.mktemp("sm")
    new = base / "new"
    write_artifacts(render_fabric(example_fabric), new)
    old, broken = base / "old", base / "broken"
    for folder in (old, broken):
        shutil.copytree(new, folder)
        path = folder / "ib-plane-IBA/partitions.conf"
        assert MEMBER in path.read_text()
        path.write_text(path.read_text().replace(MEMBER, "", 1))  # gpu003 out of tenant_a
    return {"new": new, "old": old, "broken": broken}


@pytest.fixture()
def sm(builds: dict[str, Path], tmp_path: Path) -> Iterator[SimulatedSmHost]:
    """Plane A's SM running the *old* files (gpu003 missing from tenant_a)."""
    meta = Manifest.load(builds["old"]).ib_planes["IBA"]
    with SimulatedPlane(builds["old"], "IBA", meta, tmp_path) as sim:
        sim.prepare()
        sim.start_ibsim()
        host = SimulatedSmHost("sm-a", sim, meta.config_dir)
        host.start()
        try:
            assert host.wait_up(0, 120), "opensm did not bring the simulated subnet up"
            yield host
        finally:
            host.stop()


@pytest.fixture()
def standby(builds: dict[str, Path], sm: SimulatedSmHost, tmp_path: Path) -> Iterator[SimulatedSmHost]:
    """Plane A's standby SM (gpu003's port, priority 14) on the same simulated fabric, on the old files."""
    meta = Manifest.load(builds["old"]).ib_planes["IBA"]
    assert meta.sm_standby == "gpu003"
    host = SimulatedSmHost("sm-a-standby", sm.sim, meta.config_dir, files_dir=tmp_path / "standby",
                           sim_host=meta.sm_standby)
    host.write_files(standby_files(builds["old"], meta))
    host.start()
    try:
        assert host.wait_for("STANDBY", 0, 60), "the standby opensm did not enter STANDBY:\n" + host.log()[-2000:]
        yield host
    finally:
        host.stop()


def _gpu003(host: SimulatedSmHost) -> dict[int, str]:
    return host.pkeys()["0x0c42a10300a10003"]


def test_new_partitions_reach_the_running_sm(builds: dict[str, Path], sm: SimulatedSmHost,
                                             standby: SimulatedSmHost) -> None:
    assert 0x0101 not in _gpu003(sm)  # before: not in tenant_a
    results = deploy_opensm(builds["new"], {"IBA": sm}, ["IBA"], standbys={"IBA": standby})
    assert [(r.plane, r.status) for r in results] == [("IBA", "ok")], results
    # the standby holds the plane's new files with its own opensm.conf, and is still the standby
    meta_new = Manifest.load(builds["new"]).ib_planes["IBA"]
    assert standby.read_files() == standby_files(builds["new"], meta_new)
    assert "sm_priority 14" in standby.read_files()["opensm.conf"]
    assert standby.proc is not None and standby.proc.poll() is None
    assert "Entering MASTER state" not in standby.log()
    meta = Manifest.load(builds["new"]).ib_planes["IBA"]
    assert sm.pkeys() == {g: t for g, t in expected_tables(meta).items()}
    assert _gpu003(sm)[0x0101] == "full"
    rendered = {name: (builds["new"] / meta.dir / name).read_text() for name in FILES}
    assert sm.read_files() == rendered
    again = deploy_opensm(builds["new"], {"IBA": sm}, ["IBA"], standbys={"IBA": standby})
    assert again[0].status == "unchanged"
    # a plane with a standby SM is not rolled without a way to reach it
    refused = deploy_opensm(builds["old"], {"IBA": sm}, ["IBA"])
    assert refused[0].status == "failed" and "standby" in refused[0].detail
    assert sm.read_files() == rendered


def test_a_wrong_file_is_put_back_and_the_next_plane_waits(builds: dict[str, Path], sm: SimulatedSmHost,
                                                            standby: SimulatedSmHost) -> None:
    deploy_opensm(builds["new"], {"IBA": sm}, ["IBA"], standbys={"IBA": standby})
    good, good_standby = sm.read_files(), standby.read_files()

    class Untouchable:
        name = "sm-b"

        def __getattr__(self, name: str) -> object:
            raise AssertionError(f"plane IBB was touched ({name}) after plane IBA failed")

    results = deploy_opensm(builds["broken"], {"IBA": sm, "IBB": Untouchable()}, ["IBA", "IBB"],  # type: ignore[dict-item]
                            standbys={"IBA": standby, "IBB": Untouchable()})  # type: ignore[dict-item]
    assert [(r.plane, r.status) for r in results] == [("IBA", "failed")]
    assert "gpu003" in results[0].detail and "restored" in results[0].detail
    assert sm.read_files() == good
    assert standby.read_files() == good_standby  # the standby never saw the broken files
    assert _gpu003(sm)[0x0101] == "full"  # the previous, correct partitions are programmed again


def test_the_journal_records_each_plane(builds: dict[str, Path], sm: SimulatedSmHost, standby: SimulatedSmHost,
                                       tmp_path: Path) -> None:
    from dualrail_net.deploy.journal import Journal
    # the SM runs the new files; the broken ones differ
    deploy_opensm(builds["new"], {"IBA": sm}, ["IBA"], standbys={"IBA": standby})
    journal = Journal(tmp_path / "journal.sqlite")
    run_id = journal.start_run("opensm", "test", str(builds["broken"]))
    results = deploy_opensm(builds["broken"], {"IBA": sm}, ["IBA"], journal=journal, run_id=run_id,
                            standbys={"IBA": standby})
    assert results[0].status == "failed"
    steps = journal.run(run_id)["steps"]
    assert [(s["plane"], s["device"], s["step"], s["status"]) for s in steps] == [("IBA", "gpu001", "opensm", "failed")]
    assert "restored" in steps[0]["detail"]


def test_sm_hosts_are_reached_by_their_servers_management_address(builds: dict[str, Path]) -> None:
    import dataclasses

    from dualrail_net.deploy.opensm import SmHostUnknown, sm_addresses
    manifest = Manifest.load(builds["new"])
    assert sm_addresses(manifest, ["IBA", "IBB"]) == {"IBA": ("gpu001", "198.51.100.201"),
                                                      "IBB": ("gpu002", "198.51.100.202")}
    with pytest.raises(SmHostUnknown, match="no IB plane 'IBC'"):
        sm_addresses(manifest, ["IBC"])
    manifest.servers["gpu001"] = dataclasses.replace(manifest.servers["gpu001"], mgmt_address=None)
    with pytest.raises(SmHostUnknown, match="gpu001 has no management address"):
        sm_addresses(manifest, ["IBA"])
    from dualrail_net.deploy.opensm import standby_addresses
    assert standby_addresses(manifest, ["IBA", "IBB"]) == {"IBA": ("gpu003", "198.51.100.203"),
                                                           "IBB": ("gpu004", "198.51.100.204")}
    manifest.servers["gpu004"] = dataclasses.replace(manifest.servers["gpu004"], mgmt_address=None)
    with pytest.raises(SmHostUnknown, match="standby SM host gpu004"):
        standby_addresses(manifest, ["IBB"])


def test_the_cli_refuses_an_opensm_deploy_to_the_twin(builds: dict[str, Path], capsys: pytest.CaptureFixture[str]) -> None:
    from dualrail_net.cli import main
    code = main(["deploy", "--scope", "opensm", "--twin", "-o", str(builds["new"]), "--force", "--reason", "test"])
    assert code == 2
    assert "runs no subnet manager" in capsys.readouterr().out
