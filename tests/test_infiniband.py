"""InfiniBand: rendered OpenSM files, the static partitions checks and the simulated opensm run."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from dualrail_net.render import render_fabric
from dualrail_net.manifest import Manifest
from dualrail_net.render.artifacts import write_artifacts
from dualrail_net.resolve.model import Fabric
from dualrail_net.verify.ib.partitions import parse_partitions
from dualrail_net.verify.ib.sim import parse_pkey_table, run_simulation, tools_missing
from dualrail_net.verify.findings import Severity
from dualrail_net.resolve.infiniband import UNICAST_LID_TOP
from dualrail_net.verify.ib.static import lid_shortage, run_static

needs_sim = pytest.mark.skipif(bool(tools_missing()), reason="needs ibsim-utils, opensm, infiniband-diags")
PA = "ib-plane-IBA/partitions.conf"
PB = "ib-plane-IBB/partitions.conf"


@pytest.fixture(scope="module")
def clean(tmp_path_factory: pytest.TempPathFactory, example_fabric: Fabric) -> Path:
    out = tmp_path_factory.mktemp("ib") / "build"
    write_artifacts(render_fabric(example_fabric), out)
    return out


def broken_copy(clean: Path, tmp_path: Path, path: str, old: str, new: str) -> Path:
    out = tmp_path / "build"
    shutil.copytree(clean, out)
    target = out / path
    text = target.read_text()
    assert old in text, f"{old!r} not in {path}"
    target.write_text(text.replace(old, new, 1))
    return out


def fired(results, check: str) -> list[str]:  # type: ignore[no-untyped-def]
    return [f.message for r in results if r.check == check for f in r.findings]


def test_rendered_files_per_plane(clean: Path) -> None:
    for plane, prefix in (("IBA", "0xfe80000000000a01"), ("IBB", "0xfe80000000000b01")):
        conf = (clean / f"ib-plane-{plane}/opensm.conf").read_text()
        assert f"subnet_prefix {prefix}" in conf and "routing_engine ftree" in conf
        assert f"partition_config_file /etc/opensm/{plane}/partitions.conf" in conf
        assert len((clean / f"ib-plane-{plane}/root_guids.conf").read_text().split()) == 2
        assert len((clean / f"ib-plane-{plane}/cn_guids.conf").read_text().split()) == 32
    text = (clean / PA).read_text()
    assert max(len(line) for line in text.splitlines()) < 100  # one member per line
    parsed = parse_partitions(text)
    assert parsed.errors == []
    assert [p.name for p in parsed.partitions] == ["Default", "tenant_a", "tenant_b", "storage"]
    assert len(parsed.partitions[1].members) == 16 and parsed.partitions[1].pkey == 0x0101


def test_clean_example_passes_static_checks(clean: Path) -> None:
    assert all(r.findings == [] for r in run_static(clean))


@needs_sim
def test_clean_example_passes_on_the_simulated_fabric(clean: Path) -> None:
    results, stats = run_simulation(clean)
    assert [r.check for r in results] == ["IB-SIM-SM", "IB-SIM-PKEYS", "IB-SIM-ROUTES"]
    for r in results:
        assert not r.skipped and r.findings == [], (r.check, [f.message for f in r.findings[:3]])
    assert set(stats) == {"IBA", "IBB"} and stats["IBA"]["hosts"] == 32


LONG = "    0x0c42a10300a10001=full," + " " * 4100 + "\n"

STATIC_CASES: list[tuple[str, str, str, str, str]] = [
    ("a P_Key whose low 15 bits are 0", PA, "tenant_b=0x0102", "tenant_b=0x8000", "IB-PKEY"),
    ("a P_Key wider than 16 bits", PA, "tenant_b=0x0102", "tenant_b=0x18102", "IB-PKEY"),
    ("a P_Key that is the default partition's", PA, "tenant_b=0x0102", "tenant_b=0xffff", "IB-PKEY"),
    ("duplicate P_Key", PA, "tenant_b=0x0102", "tenant_b=0x0101", "IB-PKEY"),
    ("missing ';'", PA, "0x0c42a10300a10010=full ;", "0x0c42a10300a10010=full", "IB-PARTITION-SYNTAX"),
    ("missing ';' at the end", PA, "0x0c42a10300a10020=limited ;", "0x0c42a10300a10020=limited", "IB-PARTITION-SYNTAX"),
    ("unknown GUID", PA, "0x0c42a10300a10005=full,", "0x0c42a10300a1ffff=full,", "IB-MEMBERS"),
    ("member cabled to the other plane", PA, "0x0c42a10300a10005=full,", "0x0c42a10300b10005=full,", "IB-MEMBERS"),
    ("tenant member missing on one plane", PB, "    0x0c42a10300b10003=full,\n", "", "IB-MEMBERS"),
    ("membership typo", PA, "0x0c42a10300a10002=full,", "0x0c42a10300a10002=fulll,", "IB-PARTITION-SYNTAX"),
    ("unknown flag", PA, "tenant_a=0x0101, ipoib", "tenant_a=0x0101, ipob", "IB-PARTITION-SYNTAX"),
    ("line over 4094 characters", PA, "    # gpu001\n", "    # gpu001\n" + LONG, "IB-PARTITION-SYNTAX"),
    ("two planes with the same subnet prefix", "ib-plane-IBB/opensm.conf", "subnet_prefix 0xfe80000000000b01",
     "subnet_prefix 0xfe80000000000a01", "IB-SUBNET-PREFIX"),
    # opensm takes a key's last line: a second one below decides
    ("a second subnet_prefix line, the other plane's", "ib-plane-IBB/opensm.conf", "lmc 0\n",
     "lmc 0\nsubnet_prefix 0xfe80000000000a01\n", "IB-SUBNET-PREFIX"),
    ("a second guid line, another plane's port", "ib-plane-IBA/opensm.conf", "lmc 0\n",
     "lmc 0\nguid 0x0c42a10300b10001\n", "IB-SUBNET-PREFIX"),
    ("partition enforcement off", "ib-plane-IBA/opensm.conf", "no_partition_enforcement FALSE",
     "no_partition_enforcement TRUE", "IB-SM-SECURITY"),
    ("enforcement on one direction only", "ib-plane-IBA/opensm.conf", "part_enforce both", "part_enforce in",
     "IB-SM-SECURITY"),
    ("the SM reads another plane's partitions", "ib-plane-IBA/opensm.conf", "/etc/opensm/IBA/partitions.conf",
     "/etc/opensm/IBB/partitions.conf", "IB-SM-SECURITY"),
    ("the master SM inactive", "ib-plane-IBA/opensm.conf", "lmc 0\n", "lmc 0\nsm_inactive TRUE\n",
     "IB-SUBNET-PREFIX"),
    ("a setting the checks cannot judge", "ib-plane-IBA/opensm.conf", "lmc 0\n", "lmc 0\nqos TRUE\n",
     "IB-OPENSM-UNMODELLED"),
    ("a setting of the standby's the checks cannot judge", "ib-plane-IBB/opensm-standby.conf", "lmc 0\n",
     "lmc 0\nsminfo_polling_timeout 10000\n", "IB-OPENSM-UNMODELLED"),
    ("the standby outranks the master", "ib-plane-IBA/opensm-standby.conf", "sm_priority 14", "sm_priority 15",
     "IB-SM-STANDBY"),
    ("the standby binds to the master's port", "ib-plane-IBB/opensm-standby.conf", "guid 0x0c42a10300b10004",
     "guid 0x0c42a10300b10002", "IB-SM-STANDBY"),
    ("the standby routes differently", "ib-plane-IBA/opensm-standby.conf", "routing_engine ftree",
     "routing_engine minhop", "IB-SM-STANDBY"),
    ("the standby drops partition enforcement", "ib-plane-IBA/opensm-standby.conf", "part_enforce both",
     "part_enforce off", "IB-SM-SECURITY"),
    # a setting the model does not read is still one the two SMs must share
    ("the master alone sets an SM_Key (each SM ignores the other: two masters)", "ib-plane-IBA/opensm.conf",
     "lmc 0\n", "lmc 0\nsm_key 0x00000000000000a7\n", "IB-SM-STANDBY"),
    ("the master alone stops its periodic sweeps", "ib-plane-IBB/opensm.conf", "lmc 0\n", "lmc 0\nsweep_interval 0\n",
     "IB-SM-STANDBY"),
    # settings that degrade a plane whatever the plan says (IB-SM-SETTINGS)
    ("the standby ignores the master (two masters)", "ib-plane-IBA/opensm-standby.conf", "lmc 0\n",
     "lmc 0\nignore_other_sm TRUE\n", "IB-SM-SETTINGS"),
    ("extended link speeds off (links at QDR)", "ib-plane-IBA/opensm.conf", "lmc 0\n",
     "lmc 0\nforce_link_speed_ext 30\n", "IB-SM-SETTINGS"),
    ("links forced to 1x", "ib-plane-IBB/opensm.conf", "lmc 0\n", "lmc 0\nforce_link_width 1\n", "IB-SM-SETTINGS"),
    ("multicast off under IPoIB partitions", "ib-plane-IBA/opensm.conf", "lmc 0\n",
     "lmc 0\ndisable_multicast TRUE\n", "IB-SM-SETTINGS"),
    ("new LIDs at every takeover", "ib-plane-IBA/opensm-standby.conf", "lmc 0\n", "lmc 0\nreassign_lids TRUE\n",
     "IB-SM-SETTINGS"),
    ("a tenant's IPoIB MTU changed on one plane", PA, "tenant_a=0x0101, ipoib, mtu=5, sl=0",
     "tenant_a=0x0101, ipoib, mtu=2, sl=0", "IB-MEMBERS"),
    ("a tenant's service level changed on one plane", PA, "tenant_a=0x0101, ipoib, mtu=5, sl=0",
     "tenant_a=0x0101, ipoib, mtu=5, sl=3", "IB-MEMBERS"),
    ("a spine missing from the fat tree's roots", "ib-plane-IBA/root_guids.conf", "0x0002c9000a010001\n", "",
     "IB-ROUTING-FILES"),
    ("a root that is no spine", "ib-plane-IBA/root_guids.conf", "0x0002c9000a010001", "0x0002c9000a019999",
     "IB-ROUTING-FILES"),
    ("an HCA port missing from the compute nodes", "ib-plane-IBA/cn_guids.conf", "0x0c42a10300a10001\n", "",
     "IB-ROUTING-FILES"),
    ("ftree reads another plane's roots", "ib-plane-IBA/opensm.conf", "/etc/opensm/IBA/root_guids.conf",
     "/etc/opensm/IBB/root_guids.conf", "IB-ROUTING-FILES"),
    ("a routing engine opensm does not have (it routes with minhop)", "ib-plane-IBA/opensm.conf",
     "routing_engine ftree", "routing_engine fat-tree", "IB-ROUTING-FILES"),
    # the same edit in both planes keeps them alike (IB-MEMBERS): the plan still tells
    ("every port a full member of the default partition", PA, "    ALL=limited,\n", "    ALL=full,\n", "IB-PKEYS"),
    ("a tenant member dropped", PA, "    0x0c42a10300a10003=full,\n", "", "IB-PKEYS"),
]

# partitions.conf edits opensm accepts, each with the P_Key tables it changes: the offline model
# (ib/pkeys.py) and opensm on ibsim must name the same ports with the same tables
PKEY_EDITS: list[tuple[str, str, str, bool]] = [  # (what, old, new, whether any port's table changes)
    ("every port a full member of the default partition", "    ALL=limited,\n", "    ALL=full,\n", True),
    ("the SM's own port no longer full in the default partition", "    SELF=full ;\n", "    SELF=limited ;\n", True),
    ("HCAs named by ALL_CAS (for HCA ports the same as ALL)", "    ALL=limited,\n", "    ALL_CAS=limited,\n", False),
    # opensm puts every port in the default partition anyway, as a limited member
    ("switches only in the default partition", "    ALL=limited,\n", "    ALL_SWITCHES=full,\n", False),
    ("a tenant member dropped", "    0x0c42a10300a10003=full,\n", "", True),
    ("a tenant member limited", "    0x0c42a10300a10003=full,\n", "    0x0c42a10300a10003=limited,\n", True),
    ("a member named twice, limited then full (full wins)", "    0x0c42a10300a10004=full,\n",
     "    0x0c42a10300a10004=limited,\n    0x0c42a10300a10004=full,\n", False),
    ("a P_Key with the membership bit (only 15 bits count)", "tenant_a=0x0101", "tenant_a=0x8101", False),
]


@needs_sim
def test_pkey_model_agrees_with_opensm(clean: Path, tmp_path: Path) -> None:
    """The oracle: for each edit, the ports IB-PKEYS names (offline) and IB-SIM-PKEYS names (opensm
    on ibsim, the tables read back from the ports) are the same, each with the same table."""
    import re
    said = re.compile(r"(\S+) \((0x[0-9a-f]+)\)(?::| would get) P_Keys (.*?), (?:the )?inventory says")

    def tables(messages: list[str]) -> set[tuple[str, str]]:
        found = {m.groups() for m in map(said.search, messages) if m}
        assert len(found) == len(messages), messages
        return {(guid, table) for _, guid, table in found}

    for i, (desc, old, new, changes) in enumerate(PKEY_EDITS):
        out = broken_copy(clean, tmp_path / str(i), PA, old, new)
        static = tables(fired(run_static(out), "IB-PKEYS"))
        simulated = tables(fired(run_simulation(out)[0], "IB-SIM-PKEYS"))
        assert static == simulated, (desc, static ^ simulated)
        assert bool(static) == changes, (desc, static)


@pytest.mark.parametrize("desc,path,old,new,check", STATIC_CASES, ids=[c[0] for c in STATIC_CASES])
def test_static_check_fires(clean: Path, tmp_path: Path, desc: str, path: str, old: str, new: str,
                            check: str) -> None:
    out = broken_copy(clean, tmp_path, path, old, new)
    assert fired(run_static(out), check), f"{desc}: {check} did not fire"


def test_the_routing_engine_opensm_sets_up_is_the_plans(clean: Path, tmp_path: Path) -> None:
    """A name opensm has no engine for is an error at its line (measured on ibsim: "cannot find or
    setup routing engine 'fatree'", and it routes with minhop); the first engine it sets up (minhop
    without a line) when not the plan's is a warning; an engine chain led by the plan's, or
    `no_fallback`, is the plan's. Both SMs edited alike (the standby's comparison stays quiet)."""
    both = ("ib-plane-IBA/opensm.conf", "ib-plane-IBA/opensm-standby.conf")
    line = "ib-plane-IBA/opensm.conf:12"
    cases = [("routing_engine ftree", "routing_engine minhop",
              [(Severity.WARNING, f"{line}: opensm routes plane IBA with minhop, the plan's engine is ftree")]),
             ("routing_engine ftree", "routing_engine fatree",
              [(Severity.ERROR, f"{line}: routing_engine fatree: opensm has no such engine (it logs \"cannot find or "
                                "setup routing engine\" and routes with the next one, or with minhop)"),
               (Severity.WARNING, f"{line}: opensm routes plane IBA with minhop, the plan's engine is ftree")]),
             ("routing_engine ftree\n", "",
              [(Severity.WARNING, "ib-plane-IBA/opensm.conf: opensm routes plane IBA with minhop (no routing_engine "
                                  "line: its default), the plan's engine is ftree")]),
             ("routing_engine ftree", "routing_engine ftree,updn,no_fallback", [])]
    for i, (old, new, said) in enumerate(cases):
        out = broken_copy(clean, tmp_path / str(i), both[0], old, new)
        standby = out / both[1]
        standby.write_text(standby.read_text().replace(old, new, 1))
        found = [(f.severity, f.message) for r in run_static(out) if r.check == "IB-ROUTING-FILES" for f in r.findings]
        assert found == said, (old, new)
    assert not [f for r in run_static(clean) for f in r.findings]


def test_the_subnet_prefix_opensm_runs_is_its_last_line_and_the_plans(clean: Path, tmp_path: Path) -> None:
    """opensm takes a key's last line: another plane's prefix above the plan's changes nothing; a
    prefix that is no other plane's but not the plan's is said (a warning: every GID changes, the
    planes stay apart); none at all is opensm's default."""
    both = ("ib-plane-IBA/opensm.conf", "ib-plane-IBA/opensm-standby.conf")
    cases = [("subnet_prefix 0xfe80000000000a01\n", "subnet_prefix 0xfe80000000000b01\nsubnet_prefix 0xfe80000000000a01\n",
              []),
             ("subnet_prefix 0xfe80000000000a01\n", "subnet_prefix 0xfe80000000000c01\n",
              ["ib-plane-IBA/opensm.conf:7: subnet_prefix 0xfe80000000000c01, the plan's is 0xfe80000000000a01"]),
             ("subnet_prefix 0xfe80000000000a01\n", "",
              ["ib-plane-IBA/opensm.conf: subnet_prefix not set (opensm: 0xfe80000000000000), the plan's is "
               "0xfe80000000000a01"])]
    for i, (old, new, said) in enumerate(cases):
        out = broken_copy(clean, tmp_path / str(i), both[0], old, new)
        standby = out / both[1]
        standby.write_text(standby.read_text().replace(old, new, 1))
        found = [f for r in run_static(out) for f in r.findings]
        assert [(f.check, f.severity, f.message) for f in found] == [
            ("IB-SUBNET-PREFIX", Severity.WARNING, message) for message in said], (old, new)


@pytest.mark.parametrize("value,runs", [("16", None), ("0x1e", None), ("08", None), ("1abc", None), ("-1", None),
                                        ("0xf", 15), ("010", 8), ("15", 15)])
def test_the_masters_priority_is_read_as_opensm_reads_it(clean: Path, tmp_path: Path, value: str,
                                                         runs: int | None) -> None:
    """opensm reads sm_priority with strtoul (hex, octal) and runs its default, 0, for anything
    above 15 or not a number (measured with sminfo on ibsim): the standby at 14 then outranks the
    master. A value it takes is compared as the number it is (010 is 8: below the standby's 14)."""
    out = broken_copy(clean, tmp_path, "ib-plane-IBA/opensm.conf", "sm_priority 15\n", f"sm_priority {value}\n")
    said = [f.message for r in run_static(out) if r.check == "IB-SM-STANDBY" for f in r.findings]
    refused = [m for m in said if "is not a number 0-15" in m]
    if runs is None:
        assert len(refused) == 1 and refused[0].startswith("ib-plane-IBA/opensm.conf:") \
            and f"sm_priority {value} is not a number 0-15" in refused[0] and "at its default, 0" in refused[0], said
        assert any("sm_priority 14 is not below the master's 0" in m for m in said), said
    else:
        assert not refused and bool(said) == (runs <= 14), said
        assert all(f"not below the master's {runs} " in m for m in said), said


def test_a_master_without_a_priority_line_runs_opensms_default_0(clean: Path, tmp_path: Path) -> None:
    """No sm_priority line: opensm runs 0 (its default, measured with sminfo), not 1: the standby's
    14 outranks it."""
    out = broken_copy(clean, tmp_path, "ib-plane-IBA/opensm.conf", "sm_priority 15\n", "")
    said = [f.message for r in run_static(out) if r.check == "IB-SM-STANDBY" for f in r.findings]
    assert said == ["ib-plane-IBA/opensm-standby.conf:8: sm_priority 14 is not below the master's 0 "
                    "(ib-plane-IBA/opensm.conf: opensm default)"], said


@pytest.mark.parametrize("line", ["no_partition_enforcement yes", "no_partition_enforcement true",
                                  "no_partition_enforcement false", "part_enforce BOTH", "part_enforce yes",
                                  "sm_inactive true"])
def test_settings_opensm_reads_as_secure_are_not_findings(clean: Path, tmp_path: Path, line: str) -> None:
    """opensm takes a boolean as TRUE only when it is written `TRUE` (strcmp) and runs `both` for a
    part_enforce it does not know (it says so: "Invalid Cached Option Value:part_enforce = BOTH,
    Using Default:both"), so these keep partitions enforced and the SM active; written the same in
    the standby's file, nothing differs between the two SMs either."""
    key = line.split()[0]
    out = tmp_path / "b"
    shutil.copytree(clean, out)
    for name in ("opensm.conf", "opensm-standby.conf"):
        conf = out / "ib-plane-IBA" / name
        text = conf.read_text()
        conf.write_text(re.sub(rf"^{key} .*$", line, text, flags=re.M) if f"\n{key} " in text else text + line + "\n")
    found = [(r.check, f.message) for r in run_static(out) for f in r.findings]
    assert not [f for f in found if f[0] in ("IB-SM-SECURITY", "IB-SM-STANDBY", "IB-SUBNET-PREFIX")], found


def test_the_two_sms_numbers_are_compared_as_numbers(clean: Path, tmp_path: Path) -> None:
    """`lmc 00` and `lmc 0`, `sm_key 0x01` and `sm_key 1` are one value to opensm (strtoul): the
    standby runs the master's settings; a different number still differs."""
    out = broken_copy(clean, tmp_path, "ib-plane-IBA/opensm-standby.conf", "lmc 0\n", "lmc 00\nsm_key 0x01\n")
    master = out / "ib-plane-IBA/opensm.conf"
    master.write_text(master.read_text().replace("lmc 0\n", "lmc 0\nsm_key 1\n"))
    assert not fired(run_static(out), "IB-SM-STANDBY")
    master.write_text(master.read_text().replace("sm_key 1\n", "sm_key 2\n"))
    said = fired(run_static(out), "IB-SM-STANDBY")
    assert len(said) == 1 and "sm_key is 0x01, the master runs 2" in said[0], said


@needs_sim
def test_an_inactive_master_is_said_not_waited_for(clean: Path, tmp_path: Path) -> None:
    """`sm_inactive TRUE`: opensm never sweeps, so `opensm -o` would never return; the simulation
    says so at the line instead of waiting for its timeout (an internal error before)."""
    out = broken_copy(clean, tmp_path, "ib-plane-IBA/opensm.conf", "lmc 0\n", "lmc 0\nsm_inactive TRUE\n")
    results, _ = run_simulation(out)  # (opensm run on it would hold this test for the 600 s timeout)
    line = (out / "ib-plane-IBA/opensm.conf").read_text().splitlines().index("sm_inactive TRUE") + 1
    said = fired(results, "IB-SIM-SM")
    assert any(m.startswith(f"ib-plane-IBA/opensm.conf:{line}: sm_inactive TRUE: opensm never sweeps, not run")
               for m in said), said
    assert not fired(results, "IB-SIM-PKEYS")  # (the other plane's run still checks its tables)


def test_a_setting_the_standby_lacks_is_placed_at_the_masters_line(clean: Path, tmp_path: Path) -> None:
    """The standby's file does not set it: the finding names that file without a line (never
    `FILE:0:`) and the master's line that sets it."""
    out = broken_copy(clean, tmp_path, "ib-plane-IBA/opensm.conf", "lmc 0\n", "lmc 0\nsweep_interval 0\n")
    said = [f.message for r in run_static(out) if r.check == "IB-SM-STANDBY" for f in r.findings]
    line = (out / "ib-plane-IBA/opensm.conf").read_text().splitlines().index("sweep_interval 0") + 1
    assert said == [f"ib-plane-IBA/opensm-standby.conf: sweep_interval is not set (opensm: 10), the master runs 0 "
                    f"(ib-plane-IBA/opensm.conf:{line})"]


@pytest.mark.parametrize("master,standby", [
    ("lmc 0\nsweep_interval 10\n", "lmc 0\n"),  # the master writes opensm's default: the standby runs it too
    ("lmc 0\nsweep_interval 0x0a\n", "lmc 0\nsweep_interval 10\n"),  # one number, two spellings
    ("lmc 0\nreassign_lids FALSE\n", "lmc 0\nreassign_lids false\n"),  # opensm's FALSE both ways
    ("lmc 0\n", ""),  # the standby without an lmc line runs 0, the master's
])
def test_the_two_sms_are_compared_on_what_they_run(clean: Path, tmp_path: Path, master: str, standby: str) -> None:
    """A line one SM lacks is opensm's default there (`opensm -c` writes them: OPENSM_DEFAULTS): the
    same value written once, or spelled another way, is no difference; a value that is not the
    default on one side alone is (the test above)."""
    out = broken_copy(clean, tmp_path, "ib-plane-IBA/opensm.conf", "lmc 0\n", master)
    other = out / "ib-plane-IBA/opensm-standby.conf"
    other.write_text(other.read_text().replace("lmc 0\n", standby))
    assert not fired(run_static(out), "IB-SM-STANDBY")
    other.write_text(other.read_text() + "lmc 1\n")
    assert fired(run_static(out), "IB-SM-STANDBY")


SIM_CASES: list[tuple[str, str, str, str, str, Callable[[list[str]], bool]]] = [
    ("missing ';' opens the fabric", PA, "0x0c42a10300a10010=full ;", "0x0c42a10300a10010=full", "IB-SIM-SM",
     lambda msgs: any("PARSE ERROR" in m or "default" in m for m in msgs)),
    ("membership typo becomes limited", PA, "0x0c42a10300a10002=full,", "0x0c42a10300a10002=fulll,",
     "IB-SIM-PKEYS", lambda msgs: any("gpu002" in m for m in msgs)),
    ("tenant member missing on one plane", PB, "    0x0c42a10300b10003=full,\n", "", "IB-SIM-PKEYS",
     lambda msgs: any("gpu003" in m for m in msgs)),
    ("bad P_Key is truncated to 15 bits", PA, "tenant_b=0x0102", "tenant_b=0x8101", "IB-SIM-PKEYS",
     lambda msgs: bool(msgs)),
    # a value opensm refuses: it runs its default (priority 0: the standby at 14 outranks the master)
    ("sm_priority above SMInfo's 4 bits", "ib-plane-IBA/opensm.conf", "sm_priority 15\n", "sm_priority 16\n",
     "IB-SIM-SM", lambda msgs: any("Invalid Cached Option Value:sm_priority = 16" in m for m in msgs)),
    # a hand-edited plan ibsim cannot build: said as a finding naming the row, never a traceback
    ("a leaf port cabled twice in the plan", "ib-plane-IBA/cabling.csv", "gpu001,1,0x0c42a10300a10001,iba-leaf-1,1,",
     "gpu001,1,0x0c42a10300a10001,iba-leaf-1,9,", "IB-SIM-SM",
     lambda msgs: any("cabling.csv:" in m and "iba-leaf-1 port 9 is cabled twice" in m for m in msgs)),
]


@needs_sim
@pytest.mark.parametrize("desc,path,old,new,check,expect", SIM_CASES, ids=[c[0] for c in SIM_CASES])
def test_simulated_run_catches(clean: Path, tmp_path: Path, desc: str, path: str, old: str, new: str, check: str,
                               expect: Callable[[list[str]], bool]) -> None:
    out = broken_copy(clean, tmp_path, path, old, new)
    results, _ = run_simulation(out)
    msgs = fired(results, check)
    assert msgs and expect(msgs), f"{desc}: {check} -> {msgs[:3]}"


def test_a_cabling_plan_the_simulator_cannot_build_is_refused_by_row(tmp_path: Path, clean: Path) -> None:
    from dualrail_net.manifest import Manifest
    from dualrail_net.verify.ib.netfile import CablingPlanError, build_netfile
    switches = Manifest.load(clean).ib_planes["IBA"].switches
    original = (clean / "ib-plane-IBA/cabling.csv").read_text()
    header, first, *rest = original.splitlines(keepends=True)
    path = tmp_path / "ib-plane-IBA" / "cabling.csv"
    path.parent.mkdir()
    for bad, row, said in ((first.replace(",1,0x0002", ",x,0x0002", 1), 2, "must be numbers from 1 to 255"),
                           (first.replace("0x0c42a10300a10001", "0xZZ", 1), 2, "is no hex number"),
                           (first.split(",", 1)[0] + ",1\n", 2, "a cable without its"),
                           (first + first, 3, "gpu001 port 1 is cabled twice")):
        path.write_text(header + bad + "".join(rest))
        with pytest.raises(CablingPlanError, match=f"ib-plane-IBA/cabling.csv:{row}: error: .*{said}"):
            build_netfile(path, switches)
    path.write_text(original)
    text, hosts = build_netfile(path, switches)
    assert hosts["gpu001"] == "0x0c42a10300a10001" and 'Hca 1 "gpu001"' in text


def test_the_standby_may_log_differently(clean: Path, tmp_path: Path) -> None:
    out = broken_copy(clean, tmp_path, "ib-plane-IBA/opensm.conf", "log_max_size 1024", "log_max_size 4096")
    assert not fired(run_static(out), "IB-SM-STANDBY")


def test_an_ib_file_through_a_link_or_not_text_is_refused(clean: Path, tmp_path: Path) -> None:
    from dualrail_net.verify.parsers import UnreadableFile
    out = broken_copy(clean, tmp_path / "link", PA, "", "")
    (out / PA).unlink()
    (out / PA).symlink_to("/etc/passwd")
    with pytest.raises(UnreadableFile, match="symlink"):
        run_static(out)
    out = broken_copy(clean, tmp_path / "binary", "ib-plane-IBA/opensm.conf", "", "")
    (out / "ib-plane-IBA/opensm.conf").write_bytes(b"guid 0x1\n\xff\xfe\n")
    with pytest.raises(UnreadableFile, match=r"opensm.conf:2: error: not UTF-8 text"):
        run_static(out)


def test_pkey_table_parsing() -> None:
    text = "   0: 0xffff 0x8101 0x0103 0x0000\n   8: 0x0000\n"
    assert parse_pkey_table(text) == {0x7FFF: "full", 0x0101: "full", 0x0103: "limited"}


def test_a_partition_without_members_in_a_plane_still_parses(tmp_path: Path, example_fabric: Fabric) -> None:
    """A tenant with no port in one plane renders as an empty statement that still ends with ';'."""
    import copy
    fabric = copy.deepcopy(example_fabric)
    fabric.ib_planes["IBB"].partitions[0].members = []
    out = tmp_path / "build"
    write_artifacts(render_fabric(fabric), out)
    parsed = parse_partitions((out / PB).read_text())
    assert parsed.errors == []
    assert [len(p.members) for p in parsed.partitions][1] == 0


@needs_sim
def test_fast_pkey_reader_agrees_with_smpquery(clean: Path, tmp_path: Path) -> None:
    """The one-process SMP reader and one smpquery per port read the same tables."""
    from dualrail_net.verify.ib.sim import SimulatedPlane
    meta = Manifest.load(clean).ib_planes["IBA"]
    with SimulatedPlane(clean, "IBA", meta, tmp_path) as sim:
        sim.prepare()
        sim.start_ibsim()
        sim.run_opensm()
        lids = sim.guid2lid()
        fast = sim.read_pkeys(lids)
        slow = sim.read_pkeys_one_port_at_a_time(lids, workers=4)
    assert fast == slow and len(fast) == 32
    assert fast["0x0c42a10300a10001"] == {0x7FFF: "full", 0x0101: "full", 0x0103: "limited"}


@needs_sim
def test_a_leaf_missing_a_route_is_caught(clean: Path, tmp_path: Path) -> None:
    """IB-SIM-ROUTES reads opensm's own LFT dump: drop one HCA route from a leaf's table in a real
    dump and the check names that leaf; the untouched dump passes."""
    import re

    from dualrail_net.verify.ib.sim import SimulatedPlane, route_findings

    plane, meta = next(iter(Manifest.load(clean).ib_planes.items()))
    with SimulatedPlane(clean, plane, meta, tmp_path) as sim:
        sim.prepare()
        sim.start_ibsim()
        sim.run_opensm()
        lids = sim.guid2lid()
        lfts = (sim.dir / "opensm-lfts.dump").read_text()
    hca_lids = {lids[g] for g in meta.hosts.values() if g in lids}
    assert hca_lids and route_findings("IB-SIM-ROUTES", plane, lfts, meta.switches, hca_lids) == []
    leaf = next(name for name, sw in meta.switches.items() if sw.role == "leaf")
    block_start = lfts.index(f"('{leaf}')")
    route = re.compile(r"^0x[0-9a-fA-F]+ \d+ # Channel Adapter.*\n", re.MULTILINE).search(lfts, block_start)
    assert route is not None
    broken = lfts[:route.start()] + lfts[route.end():]
    found = route_findings("IB-SIM-ROUTES", plane, broken, meta.switches, hca_lids)
    assert [f.message for f in found] == [f"{leaf} has no route to 1 HCA LID(s)"]
    assert route_findings("IB-SIM-ROUTES", plane, "", meta.switches, hca_lids)[0].message == \
        "opensm wrote no LFT dump"


def test_a_p_key_written_with_its_membership_bit_is_a_valid_edit(clean: Path, tmp_path: Path) -> None:
    """opensm takes the low 15 bits (test_pkey_model_agrees_with_opensm: the tables do not change)."""
    out = broken_copy(clean, tmp_path, PA, "tenant_b=0x0102", "tenant_b=0x8102")
    assert [(r.check, f.message) for r in run_static(out) for f in r.findings] == []


def test_allow_both_pkeys_on_both_sms_is_a_valid_edit(clean: Path, tmp_path: Path) -> None:
    """Both memberships of one partition reach what the full one reaches (the P_Key model counts
    them as full): the setting itself changes no port's reach, on the master and standby alike."""
    out = broken_copy(clean, tmp_path, "ib-plane-IBA/opensm.conf", "allow_both_pkeys FALSE", "allow_both_pkeys TRUE")
    standby = out / "ib-plane-IBA/opensm-standby.conf"
    standby.write_text(standby.read_text().replace("allow_both_pkeys FALSE", "allow_both_pkeys TRUE"))
    assert [(r.check, f.message) for r in run_static(out) for f in r.findings] == []


@pytest.mark.parametrize("lines,said", [
    ("force_link_width 2\nforce_link_width 0x3\n", []),  # 4x enabled: the plane's ports train as planned
    ("force_link_speed_ext 31\nforce_link_speed_ext 0\n", []),  # the ports' own speeds, or left as they are
    ("ignore_other_sm FALSE\nreassign_lids FALSE\ndisable_multicast FALSE\n", []),  # opensm's defaults, written
    ("reassign_lids true\n", []),  # opensm's FALSE (strcmp with `TRUE`)
    ("force_link_speed_ext 4\n", [(Severity.WARNING, "force_link_speed_ext 4: extended speeds limited to HDR 50 Gb/s")]),
    ("force_link_width 0x10\n", [(Severity.ERROR, "force_link_width 0x10: 4x not enabled")]),
    ("force_link_width 8\n", [(Severity.ERROR, "force_link_width 8: 4x not enabled")]),
    ("force_link_width 64\n", [(Severity.WARNING, "force_link_width 64: a value the specification reserves")]),
    ("sweep_interval 0\n", [(Severity.WARNING, "sweep_interval 0: periodic sweeps off")]),
    ("sweep_interval 00\n", [(Severity.WARNING, "sweep_interval 00: periodic sweeps off")]),  # (strtoul: octal 0)
    ("sweep_interval 0\nsweep_interval 15\n", []),
    ("lmc_esp0 TRUE\n", []),  # (LMC 0: one LID per switch either way)
])
def test_sm_settings_are_judged_as_opensm_runs_them(clean: Path, tmp_path: Path, lines: str,
                                                     said: list[tuple[Severity, str]]) -> None:
    """IB-SM-SETTINGS reads a setting's last line as opensm does: the mask values that keep 4x and the
    ports' own speeds are no finding, a mask without 4x is (the width it leaves named in the why), a
    speed limit the plan cannot judge is a warning. Both SMs edited alike."""
    out = tmp_path / "b"
    shutil.copytree(clean, out)
    for name in ("opensm.conf", "opensm-standby.conf"):
        conf = out / "ib-plane-IBA" / name
        conf.write_text(conf.read_text() + lines)
    found = [(f.severity, f.message.split(": ", 1)[1]) for r in run_static(out) if r.check == "IB-SM-SETTINGS"
             for f in r.findings]
    assert found == said * 2, found  # (the master's file, then the standby's)
    assert not [f for r in run_static(out) for f in r.findings if r.check in ("IB-SM-STANDBY", "IB-OPENSM-UNMODELLED")]


def test_multicast_off_is_judged_against_the_ipoib_partitions(clean: Path, tmp_path: Path) -> None:
    """disable_multicast breaks IPoIB only: with no partition running IPoIB in the plane it is no finding;
    with one, an error naming the partitions."""
    out = tmp_path / "b"
    shutil.copytree(clean, out)
    for name in ("opensm.conf", "opensm-standby.conf"):
        conf = out / "ib-plane-IBA" / name
        conf.write_text(conf.read_text() + "disable_multicast TRUE\n")
    said = fired(run_static(out), "IB-SM-SETTINGS")
    assert len(said) == 2 and "partitions Default, tenant_a, tenant_b, storage run IPoIB" in said[0], said
    for plane in ("IBA", "IBB"):  # (both planes alike: IB-MEMBERS compares the flags across them)
        conf = out / f"ib-plane-{plane}/partitions.conf"
        conf.write_text(conf.read_text().replace(", ipoib", ""))
    assert not fired(run_static(out), "IB-SM-SETTINGS")


@needs_sim
def test_the_simulated_sm_runs_in_the_foreground_whatever_the_file_says(clean: Path, tmp_path: Path) -> None:
    """`daemon TRUE` (and a console) in opensm.conf: the simulation still runs opensm in the
    foreground and reads its log (before: opensm forked away and verify stopped on a log not yet
    written, no check run). How the SM runs as a process is its host's business: the master and
    its standby may differ on it."""
    out = broken_copy(clean, tmp_path, "ib-plane-IBA/opensm.conf", "lmc 0\n", "lmc 0\ndaemon TRUE\nconsole local\n")
    results, stats = run_simulation(out)
    assert not [f for r in results for f in r.findings], [f.message for r in results for f in r.findings]
    assert set(stats) == {"IBA", "IBB"}
    assert not fired(run_static(out), "IB-SM-STANDBY")


@needs_sim
def test_an_opensm_that_forks_away_does_not_outlive_the_simulation(clean: Path, tmp_path: Path,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """Without the simulation's own process settings (as if opensm had a way to daemonize they do not
    foresee), `daemon TRUE` forks opensm away: the run is then a finding, and no process naming the
    simulation's folder is left when it ends (one ran on per verify run before)."""
    import dualrail_net.verify.ib.sim as sim
    monkeypatch.setattr(sim, "SIM_PROCESS", {})
    folders: list[Path] = []
    real_exit = sim.SimulatedPlane.__exit__

    def noting_exit(self: sim.SimulatedPlane, *exc: object) -> None:
        folders.append(self.dir)
        real_exit(self, *exc)
    monkeypatch.setattr(sim.SimulatedPlane, "__exit__", noting_exit)
    out = broken_copy(clean, tmp_path, "ib-plane-IBA/opensm.conf", "lmc 0\n", "lmc 0\ndaemon TRUE\n")
    results, _ = run_simulation(out)
    assert fired(results, "IB-SIM-SM")  # (opensm's run is not what the plane's checks can read)
    assert folders and all(sim.strays(folder) == [] for folder in folders)


def _ftree_passed_over(line: int, lmc: int) -> tuple[Severity, str]:
    return (Severity.WARNING, f"ib-plane-IBA/opensm.conf:{line}: lmc {lmc}: ftree does not route with LMC > 0 (opensm: "
                              "\"LMC > 0 is not supported by fat-tree routing\")")


def _not_the_plans(line: int, lmc: int) -> list[tuple[Severity, str]]:
    return [(Severity.WARNING, f"ib-plane-IBA/opensm.conf:{line}: lmc {lmc}: not the plan's LMC 0: each HCA port "
                               f"takes {1 << lmc} LIDs")]


def _routed_with(engine: str) -> tuple[Severity, str]:
    return (Severity.WARNING, f"ib-plane-IBA/opensm.conf:12: opensm routes plane IBA with {engine}, the plan's engine "
                              "is ftree")


def _no_engine(value: str) -> tuple[Severity, str]:
    return (Severity.ERROR, f"ib-plane-IBA/opensm.conf:12: routing_engine {value}: no engine it names routes the "
                            "plane, and no_fallback keeps opensm from minhop")


# (opensm.conf edit of both SMs, IB-ROUTING-FILES, IB-SM-SETTINGS of the master's file, what the
# simulated opensm says: the engine it routed with, or None when no engine configured the switches)
LMC_CASES: list[tuple[str, str, list[tuple[Severity, str]], list[tuple[Severity, str]], str | None]] = [
    ("lmc 0\n", "lmc 1\n", [_ftree_passed_over(9, 1), _routed_with("minhop")], _not_the_plans(9, 1), "minhop"),
    ("routing_engine ftree", "routing_engine ftree,updn\nlmc 1", [_ftree_passed_over(13, 1), _routed_with("updn")],
     _not_the_plans(13, 1), "updn"),
    ("routing_engine ftree", "routing_engine ftree,no_fallback\nlmc 2",
     [_ftree_passed_over(13, 2), _no_engine("ftree,no_fallback")], _not_the_plans(13, 2), None),
    ("routing_engine ftree", "routing_engine no_fallback", [_no_engine("no_fallback")], [], None),
    # opensm refuses an LMC above 7 and runs its default, 0: ftree routes (it says so, IB-SIM-SM)
    ("lmc 0\n", "lmc 8\n", [], [], "ftree"),
    ("lmc 0\n", "lmc 1\nlmc 0\n", [], [], "ftree"),  # (the last line)
]


def _both_sms(clean: Path, tmp_path: Path, old: str, new: str) -> Path:
    out = broken_copy(clean, tmp_path, "ib-plane-IBA/opensm.conf", old, new)
    standby = out / "ib-plane-IBA/opensm-standby.conf"
    standby.write_text(standby.read_text().replace(old, new, 1))
    return out


@pytest.mark.parametrize("old,new,routing,settings,_engine", LMC_CASES, ids=[c[1] for c in LMC_CASES])
def test_the_lmc_is_judged_as_opensm_routes_with_it(clean: Path, tmp_path: Path, old: str, new: str,
                                                    routing: list[tuple[Severity, str]],
                                                    settings: list[tuple[Severity, str]], _engine: str | None) -> None:
    """ftree refuses an LMC above 0 (measured: opensm says so and routes with the next engine named,
    else minhop; with no_fallback with none, the switches are never configured); any LMC above 0
    is not the plan's (its ports' LIDs move once, on the running subnet). A name-less
    `routing_engine no_fallback` routes with nothing."""
    results = run_static(_both_sms(clean, tmp_path, old, new))
    got = [(f.severity, f.message) for r in results if r.check == "IB-ROUTING-FILES" for f in r.findings]
    assert got == routing
    got = [(f.severity, f.message) for r in results if r.check == "IB-SM-SETTINGS" for f in r.findings
           if "standby" not in f.message]
    assert got == settings


@needs_sim
@pytest.mark.parametrize("old,new,_routing,_settings,engine", LMC_CASES, ids=[c[1] for c in LMC_CASES])
def test_the_simulated_sm_routes_with_the_engine_verify_foresees(clean: Path, tmp_path: Path, old: str, new: str,
                                                                  _routing: object, _settings: object,
                                                                  engine: str | None) -> None:
    """The real opensm on the simulated plane, on the same edits: the engine its log says configured
    the switches is the one the static check names (no finding when the plan's); when no engine
    does, the run stops at opensm's own word instead of waiting for its timeout."""
    started = time.monotonic()
    results, _ = run_simulation(_both_sms(clean, tmp_path, old, new))
    routes = fired(results, "IB-SIM-ROUTES")
    if engine is None:
        assert any("No routing engine able to successfully configure" in m for m in routes), routes
        assert "opensm never reported SUBNET UP" in fired(results, "IB-SIM-SM")
        assert time.monotonic() - started < 60
    elif engine == "ftree":
        assert routes == []
    else:
        assert routes == [f"opensm routed plane IBA with {engine}, the plan's engine is ftree"]


@pytest.mark.parametrize("lmc,esp0,hosts,switches,top,expected", [
    (0, False, 32, 4, UNICAST_LID_TOP, (0, 0)),
    (0, False, 49_000, 200, UNICAST_LID_TOP, (49, 49)),  # one LID each: 49,200 ports in 49,151 LIDs
    (7, False, 32, 4, UNICAST_LID_TOP, (0, 0)),
    (2, False, 12_500, 600, UNICAST_LID_TOP, (362, 813)),  # 100k GPUs' plane of 12,500 ports at LMC 2
    # measured on ibsim (LIDs up to 30719): 240 HCA ports and 12 switches, a fresh subnet: 12 without a
    # LID at lmc 7, with lmc_esp0 too; 416 and 17 after a sweep at lmc 0: 177
    (7, False, 240, 12, 30719, (1, 13)),
    (7, True, 240, 12, 30719, (12, 13)),
    (7, False, 416, 17, 30719, (177, 194)),
    (6, False, 416, 17, 30719, (0, 0)),
])
def test_the_lids_a_plane_needs_at_its_lmc(lmc: int, esp0: bool, hosts: int, switches: int, top: int,
                                           expected: tuple[int, int]) -> None:
    assert lid_shortage(lmc, esp0, hosts, switches, top) == expected


def test_a_plane_beyond_the_lid_space_at_its_lmc_is_an_error(clean: Path, tmp_path: Path) -> None:
    """IB-SM-SETTINGS counts the LIDs the plane's ports take at the SM's LMC against the unicast LID
    space: the example's 36 ports fit at LMC 7; 12,500 HCA ports (a 100k-GPU plane) do not at LMC 2."""
    out = _both_sms(clean, tmp_path, "lmc 0\n", "lmc 7\n")
    assert not [m for m in fired(run_static(out), "IB-SM-SETTINGS") if "runs out" in m]
    manifest = out / "manifest.json"
    data = json.loads(manifest.read_text())
    hosts = data["ib_planes"]["IBA"]["hosts"]
    hosts.update({f"x{i:05d}": f"0x0c42a103{i:08x}" for i in range(12_500 - len(hosts))})
    manifest.write_text(json.dumps(data))
    out2 = _both_sms(out, tmp_path / "2", "lmc 7\n", "lmc 2\n")
    said = [m for m in fired(run_static(out2), "IB-SM-SETTINGS") if "runs out" in m]
    assert said == [f"ib-plane-IBA/{name}:9: lmc 2: 4 LID(s) for each of the plane's 12500 HCA ports and 4 switches: "
                    "opensm runs out of unicast LIDs, 213 to 217 ports get none"
                    for name in ("opensm.conf", "opensm-standby.conf")]
    # 12,285 ports fit at LMC 2 when the switches' LIDs share a block, not when each takes its own
    data["ib_planes"]["IBA"]["hosts"] = dict(list(hosts.items())[:12_285])
    (out2 / "manifest.json").write_text(json.dumps(data))
    said = fired(run_static(out2), "IB-SM-SETTINGS")
    assert said[0] == ("ib-plane-IBA/opensm.conf:9: lmc 2: 4 LIDs for each of the plane's 12285 HCA ports: up to 2 "
                       "ports may get no LID, as the switches' LIDs fall"), said


def _ibsim_fat_tree(leaves: int, hosts_per_leaf: int, spines: int) -> str:
    """An ibsim net file: each leaf cabled to every spine, its hosts one HCA port each."""
    lines: list[str] = []
    for leaf in range(leaves):
        lines += [f'Switch 36 "L{leaf}"', *(f'[{s + 1}] "S{s}"[{leaf + 1}]' for s in range(spines)),
                  *(f'[{spines + h + 1}] "H{leaf}_{h}"[1]' for h in range(hosts_per_leaf)), ""]
    for s in range(spines):
        lines += [f'Switch 36 "S{s}"', *(f'[{leaf + 1}] "L{leaf}"[{s + 1}]' for leaf in range(leaves)), ""]
    for leaf in range(leaves):
        for h in range(hosts_per_leaf):
            lines += [f'Hca 1 "H{leaf}_{h}"', f'[1] "L{leaf}"[{spines + h + 1}]', ""]
    return "\n".join(lines)


@needs_sim
@pytest.mark.parametrize("esp0", [False, True])
def test_the_lid_count_against_opensm_running_out_of_lids(tmp_path: Path, esp0: bool) -> None:
    """The real opensm on a simulated fat tree of 240 HCA ports and 12 switches at LMC 7: the ports it
    leaves without a LID ("OPENSM RAN OUT OF LIDS") are within what lid_shortage computes for the
    LID space ibsim's switches offer (below their LinearFDBCap, which ibsim prints)."""
    from dualrail_net.verify.ib.sim import UMAD2SIM
    (tmp_path / "net").write_text(_ibsim_fat_tree(8, 30, 4))
    (tmp_path / "opensm.conf").write_text(f"lmc 7\nlmc_esp0 {'TRUE' if esp0 else 'FALSE'}\nforce_log_flush TRUE\n")
    for sub in ("cache", "tmp", "dump"):
        (tmp_path / sub).mkdir()
    env = dict(os.environ, IBSIM_SOCKNAME=str(tmp_path / "sock"), OSM_CACHE_DIR=str(tmp_path / "cache"),
               OSM_TMP_DIR=str(tmp_path / "tmp"))
    with open(tmp_path / "ibsim.log", "wb") as log:
        ibsim = subprocess.Popen(["ibsim", "-s", "-n", str(tmp_path / "net")], env=env, cwd=tmp_path,
                                 stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT)
    try:
        for _ in range(200):
            if b"Network simulator ready" in (tmp_path / "ibsim.log").read_bytes():
                break
            time.sleep(0.05)
        found = re.search(r"MaxLinearCap\s*=\s*(\d+)", (tmp_path / "ibsim.log").read_text())
        assert found, "ibsim printed no MaxLinearCap"
        cap = int(found.group(1))
        subprocess.run(["opensm", "-o", "-e", "-f", str(tmp_path / "opensm.log"), "--dump_files_dir",
                        str(tmp_path / "dump"), "-F", str(tmp_path / "opensm.conf")],
                       env=dict(env, LD_PRELOAD=UMAD2SIM), cwd=tmp_path, stdin=subprocess.DEVNULL,
                       capture_output=True, timeout=120)
    finally:
        ibsim.terminate()
        ibsim.wait(10)
    rows = [line.split() for line in (tmp_path / "cache" / "guid2lid").read_text().splitlines() if line.strip()]
    without = sum(1 for row in rows if int(row[1], 16) == 0)
    assert len(rows) == 240 + 12 and "OPENSM RAN OUT OF LIDS" in (tmp_path / "opensm.log").read_text()
    fewest, most = lid_shortage(7, esp0, 240, 12, cap - 1)
    assert fewest <= without <= most and without > 0, (without, fewest, most)
