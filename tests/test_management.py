"""The management section: every platform renders the way in, validation refuses a plan that would
lose it, and secrets are names in every file, put in only when a config is pushed."""

from __future__ import annotations

import copy
from pathlib import Path

import pytest

from dualrail_net.deploy.credentials import CredentialError, named_secrets, substitute_secrets
from dualrail_net.render import render_fabric
from dualrail_net.resolve.model import Fabric
from dualrail_net.sot.load import LoadedInventory
from dualrail_net.sot.schema import Inventory
from dualrail_net.sot.validate import validate


@pytest.fixture(scope="module")
def rendered(example_fabric: Fabric) -> dict[str, str]:
    return render_fabric(example_fabric).by_path()


def test_eos_renders_the_whole_section(rendered: dict[str, str]) -> None:
    text = rendered["plane-A/a-spine-1/running-config"]
    for line in ("vrf instance mgmt", "interface Management1", "   vrf mgmt", "   ip address 198.51.100.1/24",
                 "ip route vrf mgmt 0.0.0.0/0 198.51.100.254", "ntp server vrf mgmt 192.0.2.10",
                 "logging vrf mgmt host 192.0.2.20", "ip name-server vrf mgmt 192.0.2.53", "lldp run",
                 "username netops privilege 15 role network-admin secret sha512 ${secret:netops-password}",
                 "tacacs-server host 192.0.2.49 vrf mgmt key 0 ${secret:tacacs-key}", "management ssh",
                 "management api http-commands"):
        assert f"\n{line}\n" in text, line
    assert "username netops ssh-key ssh-ed25519 AAAA" in text


def test_cumulus_renders_the_management_vrf_and_port(rendered: dict[str, str]) -> None:
    text = rendered["plane-A/a-leaf-su1-r0/interfaces"]
    assert "iface mgmt\n    address 127.0.0.1/8\n    vrf-table auto\n" in text
    assert "iface eth0\n    alias out-of-band management\n    address 198.51.100.33/24\n" \
           "    gateway 198.51.100.254\n    vrf mgmt\n" in text


def _validated(example_loaded: LoadedInventory, change: dict[str, object]) -> list[str]:
    raw = example_loaded.inventory.model_dump()
    raw = copy.deepcopy(raw)
    raw["fabric"]["management"].update(change)
    inv = Inventory.model_validate(raw)
    loaded = LoadedInventory(inventory=inv, source=example_loaded.source, root=example_loaded.root)
    return [d.message for d in validate(loaded) if d.severity.value == "error"]


def test_a_gateway_the_switches_cannot_reach_is_refused(example_loaded: LoadedInventory) -> None:
    assert _validated(example_loaded, {}) == []
    assert any("outside management.network" in m for m in _validated(example_loaded, {"gateway": "192.0.2.1"}))
    assert any("switch slots" in m for m in _validated(example_loaded, {"gateway": "198.51.100.1"}))


def test_users_need_a_name_and_keys_are_one_line(example_loaded: LoadedInventory) -> None:
    raw = example_loaded.inventory.model_dump()
    raw["fabric"]["management"]["users"] = []
    with pytest.raises(ValueError):
        Inventory.model_validate(raw)
    raw["fabric"]["management"]["users"] = [{"name": "x", "ssh_keys": ["ssh-ed25519 AAAA\ninjected"]}]
    with pytest.raises(ValueError):
        Inventory.model_validate(raw)


def test_secrets_are_put_in_at_push_time_only(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    secrets = tmp_path / "outside" / "secrets.yaml"
    secrets.parent.mkdir()
    secrets.write_text("username: ops\npassword: pw\nsecrets:\n  netops-password: $6$salt$hash\n")
    monkeypatch.setenv("DUALRAIL_SECRETS", str(secrets))
    monkeypatch.chdir(tmp_path / "outside" / "..")
    values = named_secrets(repo_root=Path("/nonexistent-repo"))
    assert values == {"netops-password": "$6$salt$hash"}
    text = "username a secret sha512 ${secret:netops-password}\nkey ${secret:tacacs-key}\n"
    with pytest.raises(CredentialError) as missing:
        substitute_secrets(text, values, "a-spine-1 running-config")
    assert "tacacs-key" in str(missing.value) and "$6$" not in str(missing.value)
    assert substitute_secrets(text.split("\n")[0], values, "x") == "username a secret sha512 $6$salt$hash"


def test_a_secret_that_is_not_one_word_is_refused_before_the_push() -> None:
    """A value is written into the device's file as it is: a blank cuts it short for FRR, EOS and
    the TACACS+ client, a quote or backslash ends NVUE's YAML or SONiC's JSON string, a newline adds
    a line of its own (`secret=x` + `server=203.0.113.9`). Each is refused naming the secret, never
    its value; a hash's `$`, `/` and `.` are fine."""
    text = "secret=${secret:tacacs-key}\nserver=192.0.2.49\n"
    for value in ("two words", "x\nserver=203.0.113.9", 'qu"ote', "back\\slash", "tab\tbed", "caf\u00e9", "nul\0"):
        with pytest.raises(CredentialError) as refused:
            substitute_secrets(text, {"tacacs-key": value}, "a-leaf-su1-r0 tacplus_servers")
        said = str(refused.value)
        assert "tacacs-key" in said and value not in said and "a-leaf-su1-r0 tacplus_servers" in said
    assert substitute_secrets(text, {"tacacs-key": "$6$s.a/lt!#"}, "x").startswith("secret=$6$s.a/lt!#\n")


def test_cumulus_renders_tacacs_only_when_planned(rendered: dict[str, str], example_loaded: LoadedInventory) -> None:
    text = rendered["plane-A/a-leaf-su1-r0/tacplus_servers"]
    assert text.splitlines()[2:] == ["secret=${secret:tacacs-key}", "server=192.0.2.49", "vrf=mgmt"]
    from dualrail_net.resolve import resolve_fabric
    raw = copy.deepcopy(example_loaded.inventory.model_dump())
    raw["fabric"]["management"]["tacacs"] = None
    without = render_fabric(resolve_fabric(Inventory.model_validate(raw))).by_path()
    assert "plane-A/a-leaf-su1-r0/tacplus_servers" not in without
    assert "tacacs-server" not in without["plane-A/a-spine-1/running-config"]


def test_the_cumulus_driver_fills_the_tacacs_key_and_the_journal_never_shows_it(
        example_build: Path, switch_secrets: Path, tmp_path: Path) -> None:
    from types import SimpleNamespace
    from dualrail_net.deploy.credentials import redact_secrets
    from dualrail_net.platforms.cumulus.driver import CumulusDriver
    paths = {"frr_conf": "/etc/frr/frr.conf", "interfaces": "/etc/network/interfaces", "tacacs": "/etc/tacplus_servers"}
    host = SimpleNamespace(name="a-leaf-su1-r0", data={"device_dir": str(example_build / "plane-A/a-leaf-su1-r0"),
                                                       "paths": paths})
    files = CumulusDriver(host, None).intended()
    assert "secret=k3y\n" in files["tacplus_servers"] and "${secret:" not in files["tacplus_servers"]
    secrets = named_secrets(repo_root=Path("/nonexistent-repo"))
    diff = "-secret=old-key-value\n+secret=" + secrets["netops-password"] + "\n"
    shown = redact_secrets(diff, {**secrets, "old": "old-key-value"})
    assert secrets["netops-password"] not in shown and "old-key-value" not in shown
    assert "+secret=${secret:netops-password}" in shown


def test_a_pushed_secret_is_never_readable_by_others(example_build: Path, switch_secrets: Path) -> None:
    """The Cumulus TACACS+ file is created owner-only before its key is written; other files keep
    the switch's default mode (resolv.conf must stay readable)."""
    from types import SimpleNamespace
    from dualrail_net.deploy.drivers.sftp_double import FilesTransport
    from dualrail_net.platforms.cumulus.driver import CumulusDriver
    files: dict[str, str] = {}
    modes: dict[str, int] = {}
    conn = SimpleNamespace(remote_conn_pre=FilesTransport(files, modes))
    host = SimpleNamespace(name="a-leaf-su1-r0", data={"device_dir": str(example_build / "plane-A/a-leaf-su1-r0"),
                                                       "paths": {"tacacs": "/etc/tacplus_servers"}})
    driver = CumulusDriver(host, conn)
    driver._upload("secret=k3y\n", "/etc/tacplus_servers.dualrail-new")
    driver._upload("nameserver 192.0.2.53\n", "/etc/resolv.conf.dualrail-new")
    assert files["/etc/tacplus_servers.dualrail-new"] == "secret=k3y\n"
    assert modes == {"/etc/tacplus_servers.dualrail-new": 0o600}
