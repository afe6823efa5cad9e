"""OpenSM files reach each IB plane's SM one plane at a time: the real opensm, running as a daemon on
an ibsim fabric, re-reads the rendered files on SIGHUP; every HCA port's P_Key table read back is
the gate; a wrong file is put back and the next plane is not touched."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from dualrail_net.deploy.opensm import FILES, SimulatedSmHost, deploy_opensm, expected_tables
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


def _gpu003(host: SimulatedSmHost) -> dict[int, str]:
    return host.pkeys()["0x0c42a10300a10003"]


def test_new_partitions_reach_the_running_sm(builds: dict[str, Path], sm: SimulatedSmHost) -> None:
    assert 0x0101 not in _gpu003(sm)  # before: not in tenant_a
    results = deploy_opensm(builds["new"], {"IBA": sm}, ["IBA"])
    assert [(r.plane, r.status) for r in results] == [("IBA", "ok")], results
    meta = Manifest.load(builds["new"]).ib_planes["IBA"]
    assert sm.pkeys() == {g: t for g, t in expected_tables(meta).items()}
    assert _gpu003(sm)[0x0101] == "full"
    rendered = {name: (builds["new"] / meta.dir / name).read_text() for name in FILES}
    assert sm.read_files() == rendered
    again = deploy_opensm(builds["new"], {"IBA": sm}, ["IBA"])
    assert again[0].status == "unchanged"


def test_a_wrong_file_is_put_back_and_the_next_plane_waits(builds: dict[str, Path], sm: SimulatedSmHost) -> None:
    deploy_opensm(builds["new"], {"IBA": sm}, ["IBA"])
    good = sm.read_files()

    class Untouchable:
        name = "sm-b"

        def __getattr__(self, name: str) -> object:
            raise AssertionError(f"plane IBB was touched ({name}) after plane IBA failed")

    results = deploy_opensm(builds["broken"], {"IBA": sm, "IBB": Untouchable()}, ["IBA", "IBB"])  # type: ignore[dict-item]
    assert [(r.plane, r.status) for r in results] == [("IBA", "failed")]
    assert "gpu003" in results[0].detail and "restored" in results[0].detail
    assert sm.read_files() == good
    assert _gpu003(sm)[0x0101] == "full"  # the previous, correct partitions are programmed again


def test_the_journal_records_each_plane(builds: dict[str, Path], sm: SimulatedSmHost, tmp_path: Path) -> None:
    from dualrail_net.deploy.journal import Journal
    deploy_opensm(builds["new"], {"IBA": sm}, ["IBA"])  # the SM runs the new files; the broken ones differ
    journal = Journal(tmp_path / "journal.sqlite")
    run_id = journal.start_run("opensm", "test", str(builds["broken"]))
    results = deploy_opensm(builds["broken"], {"IBA": sm}, ["IBA"], journal=journal, run_id=run_id)
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


def test_the_cli_refuses_an_opensm_deploy_to_the_twin(builds: dict[str, Path], capsys: pytest.CaptureFixture[str]) -> None:
    from dualrail_net.cli import main
    code = main(["deploy", "--scope", "opensm", "--twin", "-o", str(builds["new"]), "--force", "--reason", "test"])
    assert code == 2
    assert "runs no subnet manager" in capsys.readouterr().out
