"""Hostile inventories and output folders (issue 14): no injection, no data loss, no traceback.

Each class of attack has its own cases here; ``test_fuzz_inventory.py`` mutates the example at random.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import shutil
from pathlib import Path
from typing import Any

import pytest

from conftest import EXAMPLE, InventoryFactory, line_of
from dualrail_net.cli import main
from dualrail_net.sot.diagnostics import Diagnostic
from dualrail_net.sot.load import InventoryError, load_inventory
from dualrail_net.sot.yamlsource import MAX_DEPTH, SourceMap, YamlSourceError, load_yaml


def run_cli(*argv: str) -> tuple[int, str, str]:
    """(exit code, stdout, everything printed). Human output goes to stdout, or to stderr with --json."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(list(argv))
    return code, out.getvalue(), err.getvalue() + out.getvalue()


def load_errors(root: Path) -> list[Diagnostic]:
    with pytest.raises(InventoryError) as info:
        load_inventory(root)
    return info.value.diagnostics


# ---------------------------------------------------------------------------------------------
# the YAML reader is bounded


def _yaml_error(tmp_path: Path, text: str | bytes) -> YamlSourceError:
    path = tmp_path / "x.yaml"
    path.write_bytes(text.encode() if isinstance(text, str) else text)
    with pytest.raises(YamlSourceError) as info:
        load_yaml(path, "x.yaml", SourceMap())
    return info.value


BILLION_LAUGHS = "a: &a [x, x, x, x, x, x, x, x, x, x]\n" + "".join(
    f"{chr(98 + i)}: &{chr(98 + i)} [" + ", ".join([f"*{chr(97 + i)}"] * 10) + "]\n" for i in range(9))

READER_CASES = [
    ("billion laughs", BILLION_LAUGHS, "aliases expanded", 7),
    ("self-referencing alias", "a: &a [1, *a]\n", "refers to the value it is part of", 1),
    ("deep flow nesting", "a: " + "[" * 50_000 + "]" * 50_000 + "\n", f"deeper than {MAX_DEPTH}", 1),
    ("deep block nesting", "".join("  " * i + f"k{i}:\n" for i in range(100)), f"deeper than {MAX_DEPTH}",
     MAX_DEPTH + 1),
    ("5000-digit integer", "a: 1\nb: " + "9" * 5000 + "\n", "too long", 2),
    ("python tag on a mapping", "a: !!python/object/apply:os.system {args: [id]}\n", "tag", 1),
    ("python tag on a sequence", "a: 1\nb: !!python/tuple [1, 2]\n", "tag", 2),
    ("custom tag on a scalar", "a: !secret x\n", "tag", 1),
    ("set tag", "a: !!set {x: null}\n", "tag", 1),
    ("merge key", "a: &x {b: 1}\nc:\n  <<: *x\n", "merge keys", 3),
    ("NUL byte", "a: 1\nb: x\x00y\n", "control character", 2),
    ("escape sequence", "a: 1\nb: \x1b[2Jx\n", "control character", 2),
    ("leading-zero number", "a: 017\n", "leading zero", 1),
    ("infinite number", "a: .inf\n", "finite", 1),
    ("second document", "a: 1\n---\nb: 2\n", "more than one YAML document", 2),
    ("mapping as key", "? {a: 1}\n: 2\n", "plain value", 1),
    ("undefined alias", "a: *nope\n", "no anchor", 1),
    ("syntax error", "a: [1, 2\nb: 3\n", "syntax error", 2),
]


@pytest.mark.parametrize("desc,text,expected,line", READER_CASES, ids=[c[0] for c in READER_CASES])
def test_reader_refuses_with_its_line(tmp_path: Path, desc: str, text: str, expected: str, line: int) -> None:
    err = _yaml_error(tmp_path, text)
    assert expected in err.message, err
    assert err.line == line, err


@pytest.mark.parametrize("desc,data,line", [
    ("Latin-1", "a: 1\nb: caf\xe9\n".encode("latin-1"), 2),
    ("UTF-16", "a: 1\n".encode("utf-16"), 1),
    ("invalid UTF-8 deep in the file", b"a: 1\nb: 2\nc: \xff\xfe\n", 3),
])
def test_encodings_are_refused_with_their_line(tmp_path: Path, desc: str, data: bytes, line: int) -> None:
    err = _yaml_error(tmp_path, data)
    assert err.line == line and ("UTF" in err.message or "UTF-8" in err.fix), err


def test_special_files_are_refused_without_blocking(tmp_path: Path) -> None:
    fifo = tmp_path / "fifo.yaml"
    os.mkfifo(fifo)
    with pytest.raises(YamlSourceError, match="FIFO"):
        load_yaml(fifo, "fifo.yaml", SourceMap())  # would block forever if opened for reading
    with pytest.raises(YamlSourceError, match="device"):
        load_yaml(Path("/dev/zero"), "zero.yaml", SourceMap())  # would eat memory if read
    with pytest.raises(YamlSourceError, match="folder"):
        load_yaml(tmp_path, "dir.yaml", SourceMap())


def test_oversized_file_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import dualrail_net.sot.yamlsource as ys
    monkeypatch.setattr(ys, "MAX_FILE_BYTES", 1000)
    path = tmp_path / "big.yaml"
    path.write_text("a: " + "x" * 2000 + "\n")
    with pytest.raises(YamlSourceError, match="limit"):
        ys.load_yaml(path, "big.yaml", SourceMap())


def test_inventory_file_linked_out_of_the_inventory_is_refused(make_inventory: InventoryFactory,
                                                                tmp_path: Path) -> None:
    root = make_inventory()
    secret = tmp_path / "secret.yaml"
    secret.write_text("password: hunter2\n")
    (root / "qos.yaml").unlink()
    (root / "qos.yaml").symlink_to(secret)
    errs = [d.format() for d in load_errors(root)]
    assert any("qos.yaml" in e and "outside" in e for e in errs), errs
    assert not any("hunter2" in e for e in errs)
    (root / "qos.yaml").unlink()
    (root / "qos.yaml").symlink_to("/dev/zero")
    assert any("qos.yaml" in d.format() for d in load_errors(root))


def test_yaml_12_scalars(tmp_path: Path) -> None:
    path = tmp_path / "x.yaml"
    path.write_text("a: yes\nb: NO\nc: 0000:1a\nd: 2024-01-01\ne: 0x10\nf: true\ng: ~\nh: '017'\n")
    assert load_yaml(path, "x.yaml", SourceMap()) == {
        "a": "yes", "b": "NO", "c": "0000:1a", "d": "2024-01-01", "e": 16, "f": True, "g": None, "h": "017"}


# ---------------------------------------------------------------------------------------------
# strict values


STRICT_CASES = [
    ("trailing newline in a server name", "servers.yaml", "{name: gpu032,", '{name: "gpu032\\n",', "gpu032"),
    ("trailing newline in a hostname via block scalar", "fabric.yaml", "name: example-cluster",
     "name: |\n  example-cluster", "name"),
    ("yes where an integer belongs", "servers.yaml", "pcie_gen: 5", "pcie_gen: true", "pcie_gen"),
    ("quoted number where an integer belongs", "fabric.yaml", "rails: 4", 'rails: "4"', "rails"),
    ("PFC xoff of 10**30", "qos.yaml", "xoff_bytes: 18000", "xoff_bytes: 1000000000000000000000000000000",
     "xoff_bytes"),
    ("IB leaves of 10**19", "infiniband.yaml", "leaves: ", "leaves: 10000000000000000000 #", "leaves"),
    ("negative IB rate", "infiniband.yaml", "pkey: 0x0102", "pkey: 0x0102\n    rate: -1", "rate"),
    ("port range of a million ports", "fabric.yaml", "uplink_ports: 33-64", "uplink_ports: 33-1000000",
     "uplink_ports"),
    ("newline in a model name", "servers.yaml", "hgx-hpn-4x2:", '"hgx-hpn-4x2\\npost-up touch /tmp/pwned":',
     "hgx-hpn-4x2"),
    ("shell in a NIC name", "servers.yaml", "name: nic0", "name: nic0$(id)", "nic0"),
    ("newline in a QoS profile name", "qos.yaml", "  roce-lossless:", '  "roce-lossless\\nx = 1":', "roce-lossless"),
    ("control character in a description", "servers.yaml", "description: 8-GPU server, 4 dual",
     'description: "8-GPU server\\u001b[2J, 4 dual', "description"),
    ("space in a firmware version", "fabric.yaml", 'cumulus: "5.9.2"', 'cumulus: "5.9.2 ; reboot"', "cumulus"),
]


@pytest.mark.parametrize("desc,file,old,new,needle", STRICT_CASES, ids=[c[0] for c in STRICT_CASES])
def test_strict_values_are_refused_with_file_and_line(make_inventory: InventoryFactory, desc: str, file: str,
                                                      old: str, new: str, needle: str) -> None:
    root = make_inventory({file: [(old, new)]})
    code, out, _err = run_cli("validate", "-i", str(root), "--json")
    assert code == 1, desc
    diags = json.loads(out)["diagnostics"]
    errors = [d for d in diags if d["severity"] == "error"]
    assert errors, desc
    assert all(d["line"] >= 1 and d["file"].endswith(".yaml") for d in errors), errors
    assert any(d["file"].endswith(file) for d in errors), errors


def test_a_tag_on_a_mapping_in_the_inventory_is_refused(make_inventory: InventoryFactory) -> None:
    root = make_inventory({"qos.yaml": [("    pfc:\n", "    pfc: !!python/object:builtins.dict\n")]})
    errs = load_errors(root)
    assert any("tag" in d.message and d.line == line_of(root / "qos.yaml", "pfc:") for d in errs), errs


# ---------------------------------------------------------------------------------------------
# diagnostics cannot be spoofed


def test_a_key_with_a_newline_cannot_forge_a_second_diagnostic(make_inventory: InventoryFactory) -> None:
    forged = '"x\\ninventory/fabric.yaml:1: error: forged\\u001b[31m"'
    root = make_inventory({"qos.yaml": [("    trust: dscp\n", f"    trust: dscp\n    {forged}: 1\n")]})
    code, out, err = run_cli("validate", "-i", str(root))
    assert code == 1
    text = err
    lines = [line for line in text.splitlines() if ": error:" in line]
    assert len(lines) == 1, text  # one problem, one line
    assert "\x1b" not in text and "\\x1b" in text
    assert "\\n" in lines[0]


def test_diagnostic_format_escapes_every_control_character() -> None:
    d = Diagnostic("f\n.yaml", 3, "bad \r\x00\x1b[2J\u202e\u2028 value", "fix\tit")
    text = d.format()
    assert text.isprintable() and "\n" not in text
    assert "\\x1b" in text and "\\u202e" in text and "\\u2028" in text


# ---------------------------------------------------------------------------------------------
# output folders are owned, never trampled


@pytest.fixture
def workdir(tmp_path: Path) -> Path:
    shutil.copytree(EXAMPLE, tmp_path / "inv")
    return tmp_path


EXTRA_SERVER = "  - {name: gpu099, model: dgx-split-8x1, su: 2, slot: 17}\n"


def with_extra_server(inv: Path, present: bool) -> None:
    """Add (or take away again) a server that no other file names, so a re-render drops its files."""
    path = inv / "servers.yaml"
    text = path.read_text().replace(EXTRA_SERVER, "")
    path.write_text(text + EXTRA_SERVER if present else text)
    fabric = inv / "fabric.yaml"  # slot 17 oversubscribes the leaf a little; allow it in this test
    fabric.write_text(fabric.read_text().replace("max_oversubscription: 1.0 ", "max_oversubscription: 2.0 "))


def _tree(root: Path) -> dict[str, bytes | str]:
    out: dict[str, bytes | str] = {}
    for dirpath, dirnames, names in os.walk(root):
        for name in names + dirnames:
            p = Path(dirpath, name)
            rel = p.relative_to(root).as_posix()
            if p.is_symlink():
                out[rel] = "-> " + os.readlink(p)
            elif p.is_file():
                out[rel] = p.read_bytes()
    return out


@pytest.mark.parametrize("command", ["render", "build"])
def test_unrelated_folder_is_refused_and_untouched(workdir: Path, command: str) -> None:
    other = workdir / "other"
    (other / ".git").mkdir(parents=True)
    (other / "keep.txt").write_text("mine")
    (other / "sub").mkdir()
    (other / "sub" / "deep.txt").write_text("mine too")
    plain = workdir / "plain"
    plain.mkdir()
    (plain / "notes.txt").write_text("notes")
    for target in (other, plain):
        before = _tree(target)
        code, _out, err = run_cli(command, "-i", str(workdir / "inv"), "-o", str(target))
        assert code in (1, 2)
        assert len([line for line in err.splitlines() if "error" in line]) == 1, err
        assert _tree(target) == before


@pytest.mark.parametrize("relation", ["same", "inside", "parent"])
def test_output_overlapping_the_inventory_is_refused(workdir: Path, relation: str) -> None:
    inv = workdir / "inv"
    target = {"same": inv, "inside": inv / "build", "parent": workdir}[relation]
    before = _tree(workdir)
    code, _out, err = run_cli("build", "-i", str(inv), "-o", str(target))
    assert code == 2 and "inventory" in err
    assert _tree(workdir) == before


def test_output_that_is_a_file_or_a_symlink_is_refused(workdir: Path) -> None:
    f = workdir / "afile"
    f.write_text("x")
    code, _out, err = run_cli("render", "-i", str(workdir / "inv"), "-o", str(f))
    assert code == 2 and "file" in err and "Traceback" not in err
    assert f.read_text() == "x"
    real = workdir / "real"
    real.mkdir()
    link = workdir / "link"
    link.symlink_to(real)
    code, _out, err = run_cli("render", "-i", str(workdir / "inv"), "-o", str(link))
    assert code == 2 and "symlink" in err
    assert list(real.iterdir()) == []


def test_symlinks_inside_the_output_are_never_followed(workdir: Path) -> None:
    inv, out, outside = workdir / "inv", workdir / "build", workdir / "outside"
    outside.mkdir()
    (outside / "victim").write_text("precious")
    assert run_cli("render", "-i", str(inv), "-o", str(out))[0] == 0
    # a linked device folder
    shutil.rmtree(out / "plane-A" / "a-spine-1")
    (out / "plane-A" / "a-spine-1").symlink_to(outside)
    code, _o, err = run_cli("render", "-i", str(inv), "-o", str(out))
    assert code == 1 and "symlink" in err
    assert _tree(outside) == {"victim": b"precious"}
    (out / "plane-A" / "a-spine-1").unlink()
    # a linked file
    (out / "servers" / "gpu001" / "nccl.env").unlink()
    (out / "servers" / "gpu001" / "nccl.env").symlink_to(outside / "victim")
    code, _o, err = run_cli("render", "-i", str(inv), "-o", str(out))
    assert code == 1 and "symlink" in err
    assert (outside / "victim").read_text() == "precious"
    # a file of the previous render replaced by a link: removal unlinks the link, not its target
    (out / "servers" / "gpu001" / "nccl.env").unlink()
    with_extra_server(inv, True)
    assert run_cli("render", "-i", str(inv), "-o", str(out))[0] == 0
    (out / "servers" / "gpu099" / "nccl.env").unlink()
    (out / "servers" / "gpu099" / "nccl.env").symlink_to(outside / "victim")
    with_extra_server(inv, False)
    code, _o, err = run_cli("render", "-i", str(inv), "-o", str(out))
    assert code == 0, err
    assert (outside / "victim").read_text() == "precious"
    assert not (out / "servers" / "gpu099").exists()


def test_rerender_keeps_foreign_files_and_removes_only_its_own(workdir: Path) -> None:
    inv, out = workdir / "inv", workdir / "build"
    with_extra_server(inv, True)
    assert run_cli("render", "-i", str(inv), "-o", str(out))[0] == 0
    (out / "README.local").write_text("mine")
    (out / "plane-A" / "notes").write_text("mine")
    with_extra_server(inv, False)
    code, out_text, _err = run_cli("render", "-i", str(inv), "-o", str(out), "--json")
    doc = json.loads(out_text)
    from dualrail_net.render.servers import SERVER_FILES
    # the server's files (its model's NCCL topology included)
    assert code == 0 and doc["removed"] == len(SERVER_FILES) + 1 and doc["foreign"] == 2, doc
    assert (out / "README.local").read_text() == "mine" and (out / "plane-A" / "notes").read_text() == "mine"
    assert not (out / "servers" / "gpu099").exists()


def test_a_foreign_file_where_a_render_would_write_is_not_overwritten(workdir: Path) -> None:
    inv, out = workdir / "inv", workdir / "build"
    assert run_cli("render", "-i", str(inv), "-o", str(out))[0] == 0
    (out / "servers" / "gpu099").mkdir()
    (out / "servers" / "gpu099" / "nccl.env").write_text("hand-made")
    with_extra_server(inv, True)
    code, _o, err = run_cli("render", "-i", str(inv), "-o", str(out))
    assert code == 1 and "did not write" in err
    assert (out / "servers" / "gpu099" / "nccl.env").read_text() == "hand-made"


@pytest.mark.parametrize("planted", ["linked folder", "linked file", "foreign file", "fifo"])
def test_a_refused_render_changes_nothing(workdir: Path, planted: str) -> None:
    """A refusal met part-way used to leave the files written before it (a hand edit of the first
    device overwritten by a render that then stopped): every refusal is found before the first write."""
    inv, out, outside = workdir / "inv", workdir / "build", workdir / "outside"
    outside.mkdir()
    assert run_cli("render", "-i", str(inv), "-o", str(out))[0] == 0
    (out / "plane-A" / "a-spine-1" / "running-config").write_text("hand edit")  # written early by a render
    last = out / "servers" / "gpu032"  # what a render writes last
    if planted == "linked folder":
        shutil.rmtree(last)
        last.symlink_to(outside)
    elif planted == "linked file":
        (last / "nccl.env").unlink()
        (last / "nccl.env").symlink_to(outside / "x")
    elif planted == "fifo":
        (last / "nccl.env").unlink()
        os.mkfifo(last / "nccl.env")
    else:
        with_extra_server(inv, True)
        (out / "servers" / "gpu099").mkdir()
        (out / "servers" / "gpu099" / "nccl.env").write_text("hand-made")
    before = _tree(out)
    code, _o, err = run_cli("render", "-i", str(inv), "-o", str(out))
    assert code == 1 and "nothing was changed" in err, err
    assert _tree(out) == before and list(outside.iterdir()) == []


def test_forged_marker_is_not_trusted(workdir: Path) -> None:
    out = workdir / "build"
    out.mkdir()
    (out / "keep.txt").write_text("mine")
    (out / ".dualrail-owned").write_text('{"owner": "dualrail-net", "files": ["../inv/fabric.yaml", "keep.txt/../x"]}')
    assert run_cli("render", "-i", str(workdir / "inv"), "-o", str(out))[0] == 0
    assert (workdir / "inv" / "fabric.yaml").exists() and (out / "keep.txt").read_text() == "mine"


def test_batfish_snapshot_refuses_a_foreign_folder(workdir: Path) -> None:
    out = workdir / "build"
    assert run_cli("render", "-i", str(workdir / "inv"), "-o", str(out))[0] == 0
    code, _o, err = run_cli("batfish-snapshot", "-o", str(out), "--snapshot", str(workdir / "inv"))
    assert code == 1 and "not written by dualrail" in err
    assert (workdir / "inv" / "fabric.yaml").exists()
    code, _o, err = run_cli("batfish-snapshot", "-o", str(out), "--snapshot", str(out))
    assert code == 2 and "overlaps the build folder" in err  # (the folder it reads, named as what it is)
    assert run_cli("batfish-snapshot", "-o", str(out), "--snapshot", str(workdir / "snap"))[0] == 0
    assert run_cli("batfish-snapshot", "-o", str(out), "--snapshot", str(workdir / "snap"))[0] == 0


def test_nothing_is_written_outside_the_output(workdir: Path) -> None:
    before = _tree(workdir / "inv")
    assert run_cli("render", "-i", str(workdir / "inv"), "-o", str(workdir / "build"))[0] == 0
    assert _tree(workdir / "inv") == before
    assert sorted(p.name for p in workdir.iterdir()) == ["build", "inv"]


def _json_or_empty(text: str) -> Any:
    return json.loads(text) if text.strip() else {}


def test_unwritable_junit_and_url_batfish_host_are_one_line_errors(workdir: Path) -> None:
    out = workdir / "build"
    assert run_cli("render", "-i", str(workdir / "inv"), "-o", str(out))[0] == 0
    code, _o, err = run_cli("verify", "-o", str(out), "--no-consumers", "--junit", str(workdir))
    assert code == 1 and "Traceback" not in err and "internal error" not in err, err
    code, _o, err = run_cli("verify", "-o", str(out), "--batfish", "http://127.0.0.1:9")
    assert code == 1 and "no Batfish service at 127.0.0.1:9" in err, err


def test_verify_never_reads_through_a_link(workdir: Path) -> None:
    out = workdir / "build"
    assert run_cli("render", "-i", str(workdir / "inv"), "-o", str(out))[0] == 0
    target = out / "plane-A" / "a-leaf-su1-r0" / "interfaces"
    target.unlink()
    target.symlink_to("/etc/passwd")
    code, _o, err = run_cli("verify", "-o", str(out), "--no-consumers")
    assert code == 1 and "symlink" in err and "root:" not in err


@pytest.mark.parametrize("linked", ["plane-A", "plane-A/a-leaf-su1-r0", "servers/gpu001"])
def test_verify_never_reads_through_a_linked_folder(workdir: Path, linked: str) -> None:
    """Each file is opened without following a link; a folder on the way that is a link (a
    device's, or a plane's) would still be read through: refused in one line."""
    out = workdir / "build"
    assert run_cli("render", "-i", str(workdir / "inv"), "-o", str(out))[0] == 0
    moved = workdir / "elsewhere"
    (out / linked).rename(moved)
    (out / linked).symlink_to(moved)
    code, _o, err = run_cli("verify", "-o", str(out), "--no-consumers")
    assert code == 1 and f"{out / linked}: error: a symlink" in err and "Traceback" not in err, err
    assert not (out / "verified.json").exists()


def test_verify_refuses_a_file_longer_than_any_render_writes(workdir: Path) -> None:
    """A rendered file grown past MAX_FILE_BYTES (sparse here: nothing is written) is refused in
    one line before it is read, not read into memory whole."""
    from dualrail_net.verify.parsers.files import MAX_FILE_BYTES
    out = workdir / "build"
    assert run_cli("render", "-i", str(workdir / "inv"), "-o", str(out))[0] == 0
    target = out / "servers" / "gpu003" / "nccl.env"
    with target.open("r+b") as fh:
        fh.truncate(MAX_FILE_BYTES + 1)
    code, _o, err = run_cli("verify", "-o", str(out), "--no-consumers")
    assert code == 1 and f"{target}: error: {MAX_FILE_BYTES + 1} bytes or more" in err and "Traceback" not in err, err
    assert not (out / "verified.json").exists()


def test_a_finding_writes_control_characters_and_a_missing_device_as_text() -> None:
    """What a finding holds is text without control characters (tab and newline kept); a device a
    hand-cut cabling row leaves out (csv gives None) is empty, not a crash (found by the fuzzer)."""
    from dualrail_net.verify.findings import Finding, Severity
    f = Finding("X", Severity.ERROR, ("a\x1bb", None, "c"), "", "m\x00\tn\ne\x7f", "w\x9b")  # type: ignore[arg-type]
    assert (f.devices, f.message, f.why) == (("a\\x1bb", "", "c"), "m\\x00\tn\ne\\x7f", "w\\x9b")


def test_control_characters_a_file_holds_are_escaped_in_every_report(workdir: Path) -> None:
    """A line verify quotes (an unmodelled one) with a terminal escape sequence, a NUL and a C1
    control: the table shows them as \\xNN, the JSON holds no raw control character, the JUnit
    file is well-formed XML."""
    import xml.etree.ElementTree as ET
    out = workdir / "build"
    assert run_cli("render", "-i", str(workdir / "inv"), "-o", str(out))[0] == 0
    env = out / "servers" / "gpu001" / "nccl.env"
    env.write_text(env.read_text() + "\x1b[2J\x1b]0;pwned\x07\x00 \x9b\n")
    junit = workdir / "verify.xml"
    code, table, _e = run_cli("verify", "-o", str(out), "--no-consumers", "--junit", str(junit))
    assert code == 0 and "\\x1b[2J\\x1b]0;pwned\\x07\\x00 \\x9b" in table
    assert not any(c in table for c in "\x1b\x07\x00\x9b")
    code, text, _e = run_cli("verify", "-o", str(out), "--no-consumers", "--json")
    said = [f["message"] for c in json.loads(text)["checks"] for f in c["findings"]]
    assert any("\\x1b[2J" in m for m in said) and not any(c in "".join(said) for c in "\x1b\x07\x00\x9b")
    ET.parse(junit)


# ---------------------------------------------------------------------------------------------
# the pre-deploy gate (issue 17, item 4): deploy refuses what verification did not vouch for


def _deploy(out: Path, inv: Path, *extra: str) -> tuple[int, str]:
    code, _o, err = run_cli("deploy", "-o", str(out), "-i", str(inv), *extra)
    return code, err


def test_deploy_refuses_an_unverified_changed_failed_or_drifting_build(workdir: Path) -> None:
    inv, out = workdir / "inv", workdir / "build"
    assert run_cli("render", "-i", str(inv), "-o", str(out))[0] == 0
    code, err = _deploy(out, inv)
    assert code == 1 and "never verified" in err and "nothing was changed" in err
    assert run_cli("verify", "-o", str(out), "--no-consumers")[0] == 0
    assert json.loads((out / "verified.json").read_text())["passed"] is True
    code, err = _deploy(out, inv)  # the real programs never saw the files
    assert code == 1 and "without CONSUMER-FRR-PARSE" in err
    assert run_cli("verify", "-o", str(out))[0] == 0
    assert run_cli("render", "--check", "-i", str(inv), "-o", str(out))[0] == 0  # the stamp is no drift
    # a hand edit after verification
    nccl = out / "servers" / "gpu001" / "nccl.env"
    nccl.write_text(nccl.read_text() + "NCCL_DEBUG=INFO\n")
    code, err = _deploy(out, inv)
    assert code == 1 and "changed since it was verified" in err
    # verified again with the edit: passes verification, but drifts from the inventory
    assert run_cli("verify", "-o", str(out))[0] == 0
    code, err = _deploy(out, inv)
    assert code == 1 and "drifts from the inventory" in err
    # a build that failed verification
    assert run_cli("render", "-i", str(inv), "-o", str(out))[0] == 0
    assert not (out / "verified.json").exists()  # a re-render removes the old stamp
    frr = out / "plane-A" / "a-leaf-su1-r0" / "frr.conf"
    frr.write_text(frr.read_text().replace("maximum-paths 64", "maximum-paths 1", 1))
    assert run_cli("verify", "-o", str(out), "--no-consumers")[0] == 1
    code, err = _deploy(out, inv)
    assert code == 1 and "failed verification" in err
    code, err = _deploy(out, inv, "--force")
    assert code == 2 and "--reason" in err


def test_a_forced_deploy_is_recorded_in_the_journal(workdir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from dualrail_net.deploy.runner import Runner
    inv, out = workdir / "inv", workdir / "build"
    assert run_cli("render", "-i", str(inv), "-o", str(out))[0] == 0
    notes: list[str | None] = []

    def fake_run(self: Runner, output: str, resume: int | None = None, note: str | None = None) -> Any:
        notes.append(note)
        raise SystemExit(0)  # stop before any device: the gate is what is tested

    monkeypatch.setattr(Runner, "run", fake_run)
    monkeypatch.setattr("dualrail_net.cli._nornir", lambda args: type("N", (), {"inventory": type("I", (), {
        "hosts": {}})(), "close_connections": lambda self: None})())
    with pytest.raises(SystemExit):
        run_cli("deploy", "-o", str(out), "-i", str(inv), "--force", "--reason", "emergency fix, INC-42",
                "--journal", str(workdir / "j.sqlite"))
    assert notes and "never verified" in notes[0] and "INC-42" in notes[0]


def test_writing_more_folders_than_open_files_allowed(tmp_path: Path) -> None:
    """A 100k-GPU build has ~27k folders: the writer must not hold them all open."""
    import os
    import resource
    from dualrail_net.outdir import write_owned
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    # 200 descriptors beyond what the process holds already (earlier tests' sessions): far fewer than
    # the 1,500 folders written, so a writer that kept folders open would run out
    resource.setrlimit(resource.RLIMIT_NOFILE, (len(os.listdir("/proc/self/fd")) + 200, hard))
    try:
        files = {f"servers/s{i:05d}/nccl.env": "X=1\n" for i in range(1500)}
        report = write_owned(files, tmp_path / "out")
        assert report.written == 1500
        assert write_owned(files, tmp_path / "out").written == 0
    finally:
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))


def test_batfish_snapshot_refuses_a_link_in_the_build(workdir: Path) -> None:
    out = workdir / "build"
    assert run_cli("render", "-i", str(workdir / "inv"), "-o", str(out))[0] == 0
    config = out / "plane-A/a-spine-1/running-config"
    config.unlink()
    config.symlink_to("/etc/passwd")
    code, _o, err = run_cli("batfish-snapshot", "-o", str(out), "--snapshot", str(workdir / "snap"))
    assert code == 1 and "running-config: error: a symlink" in err and "Traceback" not in err
    assert not any("root:" in p.read_text(errors="replace") for p in (workdir / "snap").rglob("*") if p.is_file())


def test_batfish_snapshot_refuses_a_linked_device_folder(workdir: Path) -> None:
    out = workdir / "build"
    assert run_cli("render", "-i", str(workdir / "inv"), "-o", str(out))[0] == 0
    device = out / "plane-A/a-spine-1"
    device.rename(workdir / "elsewhere")
    device.symlink_to(workdir / "elsewhere")
    code, _o, err = run_cli("batfish-snapshot", "-o", str(out), "--snapshot", str(workdir / "snap"))
    assert code == 1 and f"{device}: error: a symlink" in err and "Traceback" not in err, err
    assert not (workdir / "snap" / "configs" / "a-spine-1.cfg").exists()


@pytest.mark.parametrize("where", ["/dev/null", "not-a-db", "folder", "postgresql://u:pw@127.0.0.1:1/x"])
def test_a_journal_that_cannot_be_kept_there_is_one_line(tmp_path: Path, where: str) -> None:
    """`--journal` naming a device, a file that is no SQLite database, a folder or a server that
    does not answer: one line naming it (the password hidden), exit 1, not an internal error."""
    (tmp_path / "not-a-db").write_text("plane,kind\n")
    (tmp_path / "folder").mkdir()
    spec = where if where.startswith("/") or "://" in where else str(tmp_path / where)
    code, _out, said_all = run_cli("runs", "--journal", spec)
    said = said_all.strip().splitlines()
    assert code == 1 and len(said) == 1, said
    assert "cannot keep the journal there" in said[0] and "internal error" not in said[0] and "pw@" not in said[0]


def test_a_run_the_journal_does_not_hold_is_one_line(tmp_path: Path) -> None:
    code, _out, said = run_cli("runs", "--journal", str(tmp_path / "j.sqlite"), "7")
    assert code == 1 and said.strip().splitlines() == [f"{tmp_path / 'j.sqlite'}: error: no run 7 (it holds no run yet)"]


def test_a_broken_manifest_is_one_line_with_file_and_line(workdir: Path) -> None:
    """Not JSON (its line), a field missing or of the wrong shape deep inside (the place named)."""
    out = workdir / "build"
    assert run_cli("render", "-i", str(workdir / "inv"), "-o", str(out))[0] == 0
    manifest = out / "manifest.json"
    doc = json.loads(manifest.read_text())
    manifest.write_text('{\n "generator": "x",\n oops\n}\n')
    code, _o, said = run_cli("verify", "-o", str(out))
    assert code == 1 and said.strip().splitlines() == [f"{manifest}:3: error: not JSON (Expecting property name "
                                                        "enclosed in double quotes, column 2)"]
    first = next(iter(doc["devices"]))
    del doc["devices"][first]["plane"]
    manifest.write_text(json.dumps(doc))
    code, _o, said = run_cli("verify", "-o", str(out))
    assert code == 1 and said.strip().splitlines() == [
        f"{manifest}:1: error: manifest at devices.{first}: field 'plane' is missing"]


@pytest.mark.parametrize("where,value,said", [
    (("devices", 0, "dir"), "../../../etc", "'../../../etc' is not a path inside the rendered folder"),
    (("devices", 0, "dir"), "/etc", "'/etc' is not a path inside the rendered folder"),
    (("servers", 0, "files"), ["../../../../root/.ssh/id_rsa"], "is not a path inside the rendered folder"),
    (("devices", 0, "twin_dir"), "plane-A/../../x", "is not a path inside the rendered folder"),
    (("cabling",), "../cabling.csv", "'../cabling.csv' is not a path inside the rendered folder"),
    (("devices", 0, "platform"), "junos", "no platform 'junos'; registered: "),
    (("routed_prefixes", "A"), ["10.12.0.0/33"], "'10.12.0.0/33' is not an IPv4 prefix ('33' is not a valid netmask)"),
    (("routed_prefixes", "A"), ["10.12.0.1/20"], "'10.12.0.1/20' is not an IPv4 prefix (10.12.0.1/20 has host bits set)"),
    (("routed_prefixes", "A"), ["\uff110.12.0.0/20"], "is not an IPv4 prefix (Only decimal digits permitted"),
    (("devices", 0, "originates", "A"), ["x"], "'x' is not an IPv4 prefix"),
    (("ib_planes", 0, "hosts"), {"gpu001": 5}, "{'gpu001': 5} has the wrong type"),
    (("ib_planes", 0, "expected_pkeys"), {"0x1": {"0x0101": 1}}, "has the wrong type"),
    (("ib_planes", 0, "expected_pkeys"), {"0x1": {"zz": "full"}}, "'zz': 'full' is not a P_Key"),
    (("pools", "A", "loopbacks"), "x", "'x' is not an IPv4 prefix"),
    (("devices", 0, "mgmt_address"), "999.1.1.1/99", "'999.1.1.1/99' is not an IPv4 address with its prefix length"),
    (("devices", 0, "plane"), "Z", "plane 'Z' is not one of the manifest's planes"),
    (("devices", 0, "planes"), ["A", "Q"], "['Q'] not among the manifest's planes"),
    (("servers", 0, "ports"), [["ens1f0np0", "mlx5_0", "A", -5]], "rail -5 is not a rail of one of the manifest's planes"),
])
def test_a_manifest_value_no_stage_can_use_is_one_line(workdir: Path, where: tuple[object, ...], value: object,
                                                         said: str) -> None:
    """A value of the right outer shape that no stage can use (a folder outside the build, a
    platform not installed, a prefix that is none, a wrong type deep in a mapping): one line naming
    the place, never an internal error, and never a file read outside the rendered folder."""
    out = workdir / "build"
    assert run_cli("render", "-i", str(workdir / "inv"), "-o", str(out))[0] == 0
    manifest = out / "manifest.json"
    doc = json.loads(manifest.read_text())
    node = doc
    path = []
    for step in where[:-1]:
        key = next(iter(node)) if step == 0 else step
        path.append(str(key))
        node = node[key]
    node[where[-1]] = value
    path.append(str(where[-1]))
    manifest.write_text(json.dumps(doc))
    code, _o, text = run_cli("verify", "-o", str(out))
    lines = text.strip().splitlines()
    assert code == 1 and len(lines) == 1, lines
    assert lines[0].startswith(f"{manifest}:1: error: manifest at {'.'.join(path)}") and said in lines[0], lines


def test_a_manifest_longer_than_any_render_writes_is_not_read(workdir: Path) -> None:
    """A 300 MB manifest (sparse: no disk) is refused by its size before a byte is read."""
    from dualrail_net.manifest import MAX_MANIFEST_BYTES
    out = workdir / "build"
    assert run_cli("render", "-i", str(workdir / "inv"), "-o", str(out))[0] == 0
    manifest = out / "manifest.json"
    with open(manifest, "r+b") as f:
        f.seek(300 << 20)
        f.write(b" ")
    code, _o, text = run_cli("verify", "-o", str(out))
    assert code == 1 and text.strip().splitlines() == [
        f"{manifest}: error: longer than any render writes (at least {(300 << 20) + 1} bytes, the limit is "
        f"{MAX_MANIFEST_BYTES}): not read"]


@pytest.mark.parametrize("argv", [
    ["audit", "--workers", "0"], ["audit", "--watch", "nan"], ["audit", "--watch", "1", "--count", "-1"],
    ["capacity", "--min-plane-gbps", "-5"], ["capacity", "--min-bisection-gbps", "inf"], ["runs", "0"],
    ["deploy", "--resume", "-3"]])
def test_numbers_out_of_range_are_usage_errors(argv: list[str]) -> None:
    with pytest.raises(SystemExit) as info:
        run_cli(*argv)
    assert info.value.code == 2


def test_a_top_level_unknown_key_in_a_side_file_is_one_line(workdir: Path) -> None:
    """A capacity scenario file or a playbook whose top level holds an unknown key (the place named
    for the top level was an IndexError)."""
    odd = workdir / "odd.yaml"
    odd.write_text("x:\n  - {a: b}\n")
    code, _o, said = run_cli("capacity", "-i", str(workdir / "inv"), "--scenarios", str(odd))
    lines = said.strip().splitlines()
    assert code == 2 and all(line.startswith(f"{odd}:1: error: ") for line in lines)
    assert f"{odd}:1: error: unknown key 'x' in the file's top level (remove it or fix the spelling; unknown keys " \
        "are never ignored)" in lines


def test_a_library_logging_a_failed_connection_prints_nothing() -> None:
    """paramiko logs an SSH connection that fails with its traceback at ERROR; a command reports the
    device in one line of its own, so nothing of the library's reaches stderr (with no handler,
    Python's last-resort handler prints it: the first run shows the test can fail)."""
    import subprocess
    import sys
    program = ("import logging, sys\n"
               "from dualrail_net.cli import _quiet_libraries\n"
               "if sys.argv[1] == 'quiet': _quiet_libraries()\n"
               "try:\n    raise EOFError('Error reading SSH protocol banner')\n"
               "except EOFError:\n    logging.getLogger('paramiko.transport').exception('Exception (client)')\n")
    loud = subprocess.run([sys.executable, "-c", program, "loud"], capture_output=True, text=True, check=True)
    assert "Traceback" in loud.stderr
    quiet = subprocess.run([sys.executable, "-c", program, "quiet"], capture_output=True, text=True, check=True)
    assert quiet.stderr == ""


def test_merge_keys_of_a_device_file_are_read_as_pyyaml_reads_them() -> None:
    """A device's YAML file (NVUE's startup.yaml) is read with `<<` merge keys, as its consumer's
    safe loader merges them (the inventory still refuses them): random documents of anchors,
    aliases and merge keys (single, lists, several in one mapping, before and after explicit keys)
    read as yaml.safe_load reads them, the reference."""
    import random

    import yaml

    from dualrail_net.sot.yamlsource import SourceMap, load_yaml_text
    rng = random.Random(7)
    merged = 0
    for _ in range(300):
        anchors: list[str] = []
        lines: list[str] = []
        for i in range(rng.randint(1, 4)):
            body = ", ".join(f"k{k}: {rng.randrange(100)}" for k in rng.sample(range(5), rng.randint(1, 3)))
            lines.append(f"a{i}: &a{i} {{{body}}}")
            anchors.append(f"a{i}")
        lines.append("m:")
        entries = [f"  k{rng.randrange(5)}: {rng.randrange(100)}" for _ in range(rng.randint(0, 3))]
        for _ in range(rng.randint(1, 2)):
            chosen = rng.sample(anchors, rng.randint(1, len(anchors)))
            merge = f"  <<: *{chosen[0]}" if len(chosen) == 1 and rng.random() < 0.5 else \
                f"  <<: [{', '.join('*' + a for a in chosen)}]"
            entries.insert(rng.randint(0, len(entries)), merge)
        text = "\n".join(lines + entries) + "\n"
        try:
            expected = yaml.safe_load(text)
        except yaml.YAMLError:
            continue  # (an explicit key written twice: the reader refuses it, not compared)
        keys = [e.split(":")[0].strip() for e in entries if not e.strip().startswith("<<")]
        if len(keys) != len(set(keys)):
            continue
        assert load_yaml_text(text, "startup.yaml", SourceMap(), merge=True) == expected, text
        merged += 1
    assert merged > 200
