"""FRR's keyword abbreviations: frr.conf lines completed as FRR's matcher completes them."""

from __future__ import annotations

import random
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from dualrail_net.verify.model import DeviceConfig
from dualrail_net.verify.parsers import frr_cli
from dualrail_net.verify.parsers.frr import parse_frr

needs_vtysh = pytest.mark.skipif(shutil.which("vtysh") is None, reason="vtysh (FRR) is not installed")


def _definitions(text: str) -> list[str]:
    return [line for line in text.splitlines() if not line.startswith("#")]


@needs_vtysh
def test_grammar_file_is_the_installed_frr_s() -> None:
    """The shipped grammar is what vtysh lists in each node (regenerate it when FRR changes)."""
    assert _definitions(frr_cli.generate_grammar()) == _definitions(frr_cli.GRAMMAR_FILE.read_text())


@pytest.mark.parametrize("node, line, full", [
    ("bgp-ipv4", "nei 10.11.0.0 shut", ("bgp", "neighbor 10.11.0.0 shutdown")),  # climbs to the bgp node
    ("bgp-ipv4", "net 10.12.0.0/26", ("bgp-ipv4", "network 10.12.0.0/26")),
    ("bgp-ipv4", "no net 10.12.0.0/26", ("bgp-ipv4", "no network 10.12.0.0/26")),
    ("bgp-ipv4", "nei 10.11.0.0 route-m NOPE in", ("bgp-ipv4", "neighbor 10.11.0.0 route-map NOPE in")),
    ("bgp", "addr ipv4 uni", ("bgp", "address-family ipv4 unicast")),
    ("config", "rou bgp 65001", ("config", "router bgp 65001")),
    # `ne` shortens neighbor and network: only network completes a line of two words
    ("bgp", "ne 10.0.0.0/24", ("bgp", "network 10.0.0.0/24")),
    ("bgp", "neighbor 10.0.0.1 remote-as ext", ("bgp", "neighbor 10.0.0.1 remote-as external")),
    ("route-map", "set comm no-export", ("route-map", "set community no-export")),
    ("route-map", "ma ip add prefix-list X", ("route-map", "match ip address prefix-list X")),
    ("config", "ip pre X seq 5 per 10.0.0.0/8 le 32", ("config", "ip prefix-list X seq 5 permit 10.0.0.0/8 le 32")),
    ("route-map", "ip route 10.0.0.0/8 blackhole", ("config", "ip route 10.0.0.0/8 blackhole")),  # climbs
])
def test_completes_abbreviated_keywords(node: str, line: str, full: tuple[str, str]) -> None:
    got = frr_cli.expand(node, tuple(line.split()))
    assert got == (full[0], tuple(full[1].split()))


def test_whole_words_beat_prefixes() -> None:
    # `graceful-restart` is all of one keyword and a prefix of `graceful-restart-disable`: the whole wins
    assert frr_cli.expand("bgp", ("bgp", "graceful-restart")) == ("bgp", ("bgp", "graceful-restart"))
    assert frr_cli.expand("bgp", ("neighbor", "pg", "peer")) == ("bgp", ("neighbor", "pg", "peer-group"))


@pytest.mark.parametrize("node, line", [
    ("bgp", "nei 10.0.0.1 s"),  # shutdown, solo, ...
    ("config", "log s"),  # stdout, syslog
])
def test_refuses_abbreviations_of_more_than_one_command(node: str, line: str) -> None:
    assert frr_cli.expand(node, tuple(line.split())) == frr_cli.AMBIGUOUS


def test_an_unknown_line_stays_unknown() -> None:
    assert frr_cli.expand("bgp", ("frobnicate", "1")) is None
    assert frr_cli.expand("bgp", ()) is None


def test_definitions_parse() -> None:
    command = frr_cli.parse_definition("[no] neighbor <A.B.C.D|WORD$name> timers (0-65535) (0-65535)")
    assert len(command) == 6  # [no], neighbor, <...>, timers, two ranges
    with pytest.raises(ValueError):
        frr_cli.parse_definition("neighbor <A.B.C.D|WORD")


# ---- whole files: the reader takes an abbreviated frr.conf as the same file written in full ----------

def _frr_files(*folders: Path) -> list[Path]:
    files = sorted({p for folder in folders for p in folder.rglob("frr.conf")})
    # one of each kind of device is enough: the rest are the same lines with other numbers
    kinds: dict[str, Path] = {}
    for p in files:
        kinds.setdefault(re.sub(r"\d+", "N", p.parent.name), p)
    return list(kinds.values())


def _read(text: str) -> DeviceConfig:
    dev = DeviceConfig("x", "cumulus")
    parse_frr(text, dev)
    return dev


def test_abbreviated_files_read_as_written_in_full(example_build: Path, sonic_variant: Path) -> None:
    files = _frr_files(example_build, sonic_variant)
    assert len(files) >= 3
    rng = random.Random(251)
    shortened = 0
    for path in files:
        text = path.read_text()
        whole = _read(text)
        assert not whole.unmodelled
        for _ in range(3):
            short, _ = frr_cli.abbreviated(text, rng, unique_only=True)
            shortened += sum(a != b for a, b in zip(short.splitlines(), text.splitlines()))
            assert _read(short) == whole, path
    assert shortened > 100


@needs_vtysh
def test_refused_abbreviations_are_what_vtysh_refuses(example_build: Path, sonic_variant: Path,
                                                       tmp_path: Path) -> None:
    """FRR's own reader (vtysh --dryrun) refuses exactly the lines the matcher calls ambiguous or
    unknown, and takes every line it completes."""
    rng = random.Random(252)
    refused_total = 0
    for n, path in enumerate(_frr_files(example_build, sonic_variant)):
        short, refused = frr_cli.abbreviated(path.read_text(), rng)
        target = tmp_path / f"{n}.conf"
        target.write_text(short)
        r = subprocess.run(["vtysh", "--dryrun", "-f", str(target)], capture_output=True, text=True)
        reported = {int(m) for m in re.findall(r"^line (\d+): %", r.stdout + r.stderr, re.M)}
        assert reported == refused, (path, sorted(reported ^ refused)[:10])
        refused_total += len(refused)
    assert refused_total >= 10  # the draw did shorten some keywords past what FRR can complete (10 with seed 252)


def test_the_routing_part_carries_what_the_reader_sets(example_build: Path) -> None:
    """Every field parse_frr fills reaches the device's model (parsers.ROUTING_FIELDS), but the list
    tables the reader folds into its prefix-lists and route-maps itself, and the statements naming
    the device, which add_routing appends to the base part's (held below)."""
    import dataclasses
    from dualrail_net.verify.parsers import ROUTING_FIELDS
    text = (example_build / "plane-A" / "a-leaf-su1-r0" / "frr.conf").read_text()
    text += ("bgp community-list standard C permit 65000:1\nbgp as-path access-list P permit _65000_\n"
             "access-list A permit 10.0.0.0/8\nip route 10.9.0.0/16 blackhole\nrouter bgp 4200001100\n"
             " nei 10.11.0.0 s\nexit\n")
    dev = _read(text)
    empty = DeviceConfig("x", "cumulus")
    filled = {f.name for f in dataclasses.fields(dev) if getattr(dev, f.name) != getattr(empty, f.name)}
    assert "refused_lines" in filled
    assert filled - set(ROUTING_FIELDS) <= {"access_lists", "community_lists", "names"}
    from dualrail_net.verify.parsers import add_routing
    base = DeviceConfig("x", "sonic")
    base.names.append(("x", "config_db.json", 3))
    assert add_routing(base, dev).names == [("x", "config_db.json", 3), *dev.names] and dev.names


def test_hostile_numbers_and_digits_are_no_crash() -> None:
    """Numbers longer than Python reads (4,300 digits) or written in other scripts reach int() in
    no completion, `no` line or EOS interface range: the lines are simply not read."""
    from dualrail_net.platforms.eos.names import interface_names
    big = "9" * 5000
    assert frr_cli.expand("bgp", ("neighbor", "10.0.0.1", "timers", big, "3")) is None
    assert frr_cli.expand("bgp", ("neighbor", "10.0.0.1", "timers", "\u0663", "3")) is None
    dev = _read(f"ip prefix-list A seq 5 permit 10.0.0.0/8\nno ip prefix-list A seq {big}\n"
                f"router bgp 1\n nei 10.0.0.1 timers {big} 3\n")
    assert [n for n, _ in dev.unmodelled] == [2, 4] and len(dev.prefix_lists["A"]) == 1
    assert interface_names(["interface", "Ethernet" + big]) is None
    assert interface_names(["interface", "Et1-" + big]) is None


def test_lines_of_one_shape_complete_as_each_does_alone() -> None:
    """expand completes one line per shape (its addresses and prefixes stood for by one): against
    expand_plain on each line as written, over abbreviated lines with random addresses (valid,
    leading zeros, out of range, prefixes longer than 32), climbing or not, ambiguous or not."""
    rng = random.Random(3405)
    templates = [("bgp-ipv4", "nei {a} shut"), ("bgp-ipv4", "net {p}"), ("config", "ip route {p} {a}"),
                 ("config", "no ip route {p} blackhole"), ("bgp", "ne {p}"), ("bgp", "neighbor {a} remote-as ext"),
                 ("config", "ip pre X seq 5 per {p} le 32"), ("route-map", "ip route {p} {a} 200"),
                 ("route-map", "set ip next-hop {a}"), ("bgp", "nei {a} up lo"), ("config", "ip route {a} {p}")]

    def address() -> str:
        return rng.choice([f"10.{rng.randint(0, 255)}.{rng.randint(0, 255)}.{rng.randint(0, 255)}", "010.1.1.1",
                           "300.1.1.1", "1.2.3", "::1"])

    for _ in range(400):
        node, template = rng.choice(templates)
        line = template.format(a=address(), p=f"{address()}/{rng.choice([8, 24, 32, 33, 0])}")
        words = tuple(line.split())
        assert frr_cli.expand(node, words) == frr_cli.expand_plain(node, words), line
