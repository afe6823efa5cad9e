"""EOS's shortened keywords: a rendered running-config with its keywords cut to prefixes EOS
completes reads as the file written in full (platforms/eos/keywords.py)."""

from __future__ import annotations

import random
from dataclasses import replace
from pathlib import Path

import pytest

from dualrail_net.platforms.eos import keywords
from dualrail_net.platforms.eos.parse_config import parse_eos
from dualrail_net.verify.model import DeviceConfig
from dualrail_net.verify.parsers.tree import Node, parse_tree
from conftest import platform_variant


def _shortest(word: str, others: list[str]) -> str:
    for length in range(1, len(word)):
        if not any(k.startswith(word[:length]) for k in others):
            return word[:length]
    return word


def _shortened(text: str, rng: random.Random) -> tuple[str, int]:
    """``text`` with keywords cut to a unique prefix (seven in ten), or upper-cased; the lines changed."""
    lines = text.split("\n")
    changed = 0

    def walk(nodes: list[Node], mode: str) -> None:
        nonlocal changed
        for node in nodes:
            words, at, i = list(node.words), keywords._MODES[mode], 0
            if words[0] in ("no", "default"):
                i = 1
            while i < len(words):
                word = words[i]
                if at.numbers and word.isdecimal():
                    pass
                elif word in at.keywords:
                    roll = rng.random()
                    if roll < 0.7:
                        words[i] = _shortest(word, [k for k in at.keywords if k != word])
                    elif roll < 0.8:
                        words[i] = word.upper()
                    at = at.keywords[word]
                elif at.argument is not None:
                    at = at.argument
                else:
                    break
                i += 1
            if words != node.words:
                raw = lines[node.line - 1]
                lines[node.line - 1] = raw[:len(raw) - len(raw.lstrip())] + " ".join(words)
                changed += 1
            child = keywords._spell_words(node.words, mode)[3]
            walk(node.children, child if child in keywords._MODES else "none")

    walk(parse_tree(text), "global")
    return "\n".join(lines), changed


def _read(text: str) -> DeviceConfig:
    dev = DeviceConfig("s", "eos")
    parse_eos(text, dev)
    return dev


def test_shortened_keywords_read_as_the_full_file(example_build: Path) -> None:
    files = sorted(example_build.glob("plane-*/*/running-config"))
    assert files
    rng = random.Random(7)
    for path in files:
        text = path.read_text()
        for _ in range(3):
            short, changed = _shortened(text, rng)
            assert changed > 100, path
            full, read = _read(text), _read(short)
            assert full.unmodelled == [] and len(read.unmodelled) == changed
            assert all("` read as `" in said for _, said in read.unmodelled)
            assert replace(read, unmodelled=[]) == full, path


def test_a_hostile_nesting_is_spelled_out_without_recursion() -> None:
    """Thousands of lines each indented one more: read (the block's own line spelled out, the first
    line under it reported; a port's block holds no deeper lines), not a crash."""
    text = "".join(" " * depth + "int Et1\n" for depth in range(5000))
    dev = _read(text)
    assert "Ethernet1" in dev.interfaces and [line for line, _ in dev.unmodelled] == [1, 2]
    assert dev.unmodelled[0][1].startswith("`int` read as `interface`")


def test_a_line_indented_under_a_line_that_opens_no_mode_is_read_in_eos_modes() -> None:
    """EOS ignores indentation: a line indented under a statement that opens no mode (a port's
    address, a BGP neighbor statement, `ip name-server`) is taken in the mode above, or refused. The
    tree put it under that statement, whose reader read nothing of it (a `shutdown` passed in
    silence); now the file is read again by EOS's modes: the line acts where EOS takes it, said at its
    line, and a line no open mode takes is said as such. An unknown block is reported whole, once."""
    text = ("interface Ethernet1\n   no switchport\n   ip address 10.0.0.0/31\n      shutdown\n"
            "         mtu 1500\n   mtu 9214\n"
            "router bgp 65000\n   neighbor 10.0.0.1 remote-as 65001\n      neighbor 10.0.0.1 shutdown\n"
            "ip name-server vrf mgmt 192.0.2.53\n   hostname other\n"
            "router ospf 1\n   router-id 10.0.0.9\n      area 0 stub\n"
            "ntp server vrf mgmt 192.0.2.10\n   random-detect ecn minimum-threshold 1 bytes maximum-threshold 2 bytes\n")
    dev = _read(text)
    said = dict(dev.unmodelled)
    assert sorted(said) == [4, 5, 9, 11, 12, 16]
    assert said[4].startswith("read in line 1's block") and said[11].startswith("read in the top level")
    assert said[16].startswith("indented under line 15 (ntp server vrf mgmt 192.0.2.10)")
    port = dev.interfaces["Ethernet1"]
    assert port.down == "shutdown" and port.mtu == 9214 and dev.hostname == "other"
    assert dev.bgp[None].shut_neighbors == ["10.0.0.1"]
    clean = _read("interface Ethernet1\n   no switchport\n   tx-queue 3\n      bandwidth percent 50\n"
                  "route-map M permit 10\n   match ip address prefix-list P\n"
                  "management api gnmi\n   transport grpc default\n      vrf mgmt\n"
                  "aaa group server radius other\n   server 192.0.2.9\n")
    assert not clean.unmodelled  # (blocks read, or harmless blocks taken whole)


def test_a_line_pasted_into_a_block_with_nothing_for_the_model_is_read_where_eos_takes_it() -> None:
    """gNMI's block and an AAA group are taken whole (nothing in them routes), but a line pasted
    into one that is no command of its modes (gNMI's, its `transport grpc`'s, an AAA group's) is
    taken by EOS in the mode above: a static route or a port's `shutdown` acts and is said; the
    block's own commands stay silent."""
    gnmi = ("management api gnmi\n   transport grpc default\n      vrf mgmt\n      port 6030\n"
            "      ip access-group GNMI\n   provider eos-native\n")
    assert not _read(gnmi + "aaa group server tacacs+ ops\n   server 192.0.2.49 vrf mgmt\n").unmodelled
    pasted = _read("interface Ethernet1\n   no switchport\n   ip address 10.0.0.0/31\n"
                   "management api gnmi\n   transport grpc default\n      vrf mgmt\n"
                   "      ip route 10.22.0.0/20 Null0\n   interface Ethernet1\n      shutdown\n"
                   "aaa group server tacacs+ ops\n   server 192.0.2.49 vrf mgmt\n   ip route 10.23.0.0/20 Null0\n")
    said = dict(pasted.unmodelled)
    assert sorted(said) == [7, 8, 12] and all(said[n].startswith("read in the top level") for n in said), said
    assert [r.prefix for r in pasted.static_routes] == ["10.22.0.0/20", "10.23.0.0/20"]
    assert pasted.interfaces["Ethernet1"].down == "shutdown"


def test_many_exit_lines_are_read_in_one_pass() -> None:
    """An `exit` after each of many blocks and between a port's lines: every port read, every line
    after a port's `exit` refused at the top (a count of lines per `exit` would be quadratic)."""
    count = 20000
    text = "".join(f"interface Ethernet{i}\n   mtu 9214\n   exit\n   shutdown\n" for i in range(1, count + 1))
    dev = _read(text)
    assert len(dev.interfaces) == count and not any(iface.down for iface in dev.interfaces.values())
    assert {said.split(": ")[-1] for _, said in dev.unmodelled} == {"shutdown"}
    assert {line for line, _ in dev.unmodelled} == set(range(4, 4 * count + 1, 4))


def test_many_no_lines_take_back_exactly_what_they_name() -> None:
    """Thousands of servers and of `no` lines (each naming one, half of them unknown): the servers
    left are exactly the others, every `no` naming nothing is reported (the index finds the lines;
    the figures on hostile files are in docs/performance.md)."""
    count = 3000
    text = ("vrf instance m\ninterface Management1\n   vrf m\n   ip address 192.0.2.1/24\n"
            + "".join(f"ip name-server vrf m 10.0.{i // 250}.{i % 250}\n" for i in range(count))
            + "".join(f"ntp server vrf m 10.0.{i // 250}.{i % 250}\n" for i in range(count))
            + "".join(f"no ip name-server vrf m 10.{i % 2}.{i // 250}.{i % 250}\n" for i in range(count))
            + "".join(f"no ntp server vrf m 10.{i % 2}.{i // 250}.{i % 250}\n" for i in range(count)))
    dev = _read(text)
    odd = [f"10.0.{i // 250}.{i % 250}" for i in range(count) if i % 2]
    assert dev.management.dns == odd and dev.management.ntp == odd
    assert len(dev.unmodelled) == count and all(said.startswith("no ") for _, said in dev.unmodelled)


@pytest.fixture(scope="module")
def eos_everywhere(tmp_path_factory: pytest.TempPathFactory) -> list[str]:
    """Every EOS running-config of the example with its leaves and its gateway on EOS too (the
    gateway's VRFs under `router bgp`), as rendered."""
    from dualrail_net.render import render_fabric
    from dualrail_net.resolve import resolve_fabric
    from dualrail_net.sot.load import load_inventory
    root = tmp_path_factory.mktemp("eos-everywhere")
    fabric = resolve_fabric(load_inventory(platform_variant(root, leaf="eos", gateway="eos")).inventory)
    texts = [a.content for a in render_fabric(fabric).artifacts if a.path.endswith("/running-config")]
    assert len(texts) > 20
    return texts


def test_eos_reads_by_mode_not_indentation(eos_everywhere: list[str]) -> None:
    """EOS ignores indentation: each rendered file un-indented (or indented with tabs, or its
    blocks' lines indented one level too deep or too shallow) reads to the model of the file as
    rendered; each line placed elsewhere than its indentation says is said."""
    rng = random.Random(5)
    assert any("vrf plane-b" in text for text in eos_everywhere)  # (the gateway's VRFs are among them)
    for text in eos_everywhere:
        full = _read(text)
        assert full.unmodelled == []
        flat = "\n".join(line.strip() for line in text.split("\n"))
        tabs = text.replace("\n   ", "\n\t")
        jumbled = "\n".join(" " * rng.choice([0, 3, 6]) + line.strip() if line.startswith(" ") else line
                             for line in text.split("\n"))
        for variant in (flat, tabs, jumbled):
            read = _read(variant)
            assert all("(EOS's modes, not the indentation)" in said for _, said in read.unmodelled)
            assert replace(read, unmodelled=[]) == full


def test_an_exit_line_leaves_its_mode_whatever_the_indentation(eos_everywhere: list[str]) -> None:
    """EOS prints no `exit`; one written in closes the mode it is in. `exit` after every block
    changes nothing; a line after an `exit` is read in the mode above, not the block its
    indentation names (`shutdown` after a port's `exit` is no command at the top: refused)."""
    import re
    for text in eos_everywhere:
        # (the `!` before each block made an `exit` of the block above: the lines keep their numbers)
        closed = re.sub(r"\n!\n(?=interface|router|route-map|management|aaa)", "\n   exit\n", text)
        assert closed != text and _read(closed) == _read(text)
    spine = next(t for t in eos_everywhere if "hostname a-spine-1" in t)
    port = "      priority strict\n!\ninterface Ethernet2\n"  # (the end of Ethernet1's block)
    assert port in spine
    read = _read(spine.replace(port, "      priority strict\n   exit\n   exit\n   shutdown\n!\ninterface Ethernet2\n", 1))
    assert read.interfaces["Ethernet1"].down == ""
    assert {said.split(": ")[-1] for _, said in read.unmodelled} == {"shutdown"}  # (refused; read at the top, said)
    assert read.interfaces["Ethernet1"].trust == _read(spine).interfaces["Ethernet1"].trust == "dscp"
    ip = "   ip address 10.11.0.0/31\n"
    read = _read(spine.replace(ip, "   exit\n" + ip, 1))  # (the port's lines below the exit: refused at the top)
    assert read.interfaces["Ethernet1"].addresses == [] and len(read.unmodelled) > 3
    inner = "   tx-queue 6\n      priority strict\n"
    read = _read(spine.replace(inner, inner + "      exit\n      shutdown\n", 1))  # (tx-queue 6 left: the port's mode)
    assert read.interfaces["Ethernet1"].down != ""


def test_options_after_arguments_are_spelled_out() -> None:
    """EOS completes a TACACS+ host's, a user's and a secondary address's options after their
    arguments too; a key's or secret's value is never touched (it runs to the line's end)."""
    words, ambiguous, _, _ = keywords._spell_words("tacacs-server host 192.0.2.49 v mgmt k 0 po".split(), "global")
    assert words == "tacacs-server host 192.0.2.49 vrf mgmt key 0 po".split() and not ambiguous
    words, _, _, _ = keywords._spell_words("username ops priv 15 ro network-admin sec sha512 ro".split(), "global")
    assert words == "username ops privilege 15 role network-admin secret sha512 ro".split()
    words, _, _, _ = keywords._spell_words("ip address 10.0.0.1 255.255.255.254 sec".split(), "interface")
    assert words[-1] == "secondary"
    _, ambiguous, could, _ = keywords._spell_words("username ops s x".split(), "global")
    assert ambiguous == "s" and set(could) == {"secret", "shell", "sshkey", "ssh-key"}
    dev = _read("tacacs-server host 192.0.2.49 vrf mgmt k 0 SECRET\nusername ops priv 15 sec sha512 HASH\n")
    assert any("read as `key`" in said for _, said in dev.unmodelled)


def test_a_port_that_changes_vrf_loses_the_addresses_above_the_line() -> None:
    """EOS removes a port's addresses when its VRF changes: the VRF line before the address keeps
    it, after it (to another VRF, or `no vrf` back to the default) drops it, the same VRF again
    changes nothing; a repeated block counts as the same port."""
    block = "vrf instance a\nvrf instance b\ninterface Loopback1\n{}!\n"
    kept = _read(block.format("   vrf a\n   ip address 10.0.0.1/32\n   vrf a\n"))
    assert kept.interfaces["Loopback1"].addresses == ["10.0.0.1/32"] and kept.unmodelled == []
    for lines in ("   ip address 10.0.0.1/32\n   vrf a\n", "   vrf a\n   ip address 10.0.0.1/32\n   no vrf\n",
                  "   vrf a\n   ip address 10.0.0.1/32\n!\ninterface Loopback1\n   vrf b\n"):
        moved = _read(block.format(lines))
        assert moved.interfaces["Loopback1"].addresses == [], lines
    said = _read(block.format("   ip address 10.0.0.1/32\n   vrf a\n")).unmodelled
    assert said == [(5, "vrf a (EOS removes the addresses set above it, 10.0.0.1/32: the port changes VRF)")]


def test_a_static_routes_next_hop_port_is_read_as_eos_completes_it() -> None:
    """`Null0` and port names in any case and abbreviated, as the CLI completes them: `null0` is the
    discard route (was read as a port nobody has: the route unusable, its `network` dead); taking
    one back names it the same way."""
    dev = _read("ip route 10.0.0.0/8 null0\nip route 10.1.0.0/16 NULL0\nip route 10.2.0.0/16 et1\n"
                "ip route 10.3.0.0/16 Null0\nno ip route 10.3.0.0/16 nu0\n")
    assert [(r.prefix, r.nexthop) for r in dev.static_routes] == [("10.0.0.0/8", None), ("10.1.0.0/16", None),
                                                                  ("10.2.0.0/16", "Ethernet1")]


def test_an_exact_keyword_is_not_spelled_as_a_longer_one() -> None:
    """`l2 mtu` is EOS's own command (an exact keyword wins over `l2-protocol`, which it prefixes);
    `l2-p` still completes to `l2-protocol`."""
    words, ambiguous, _, _ = keywords._spell_words("l2 mtu 1500".split(), "interface")
    assert words[0] == "l2" and not ambiguous
    words, _, _, _ = keywords._spell_words("l2-p forwarding profile X".split(), "interface")
    assert words[0] == "l2-protocol"


def test_an_address_family_policy_wins_over_the_router_levels() -> None:
    """`neighbor X route-map|prefix-list NAME in|out` under `address-family ipv4` is read in that
    mode (before: EOS's router-level table fitted the line better and it was said as read at the
    router level) and applied over the router level's for the neighbor, wherever the lines stand."""
    router = ("router bgp 65001\n   neighbor 10.0.0.1 remote-as 65000\n   neighbor 10.0.0.1 route-map GLOBAL in\n"
              "{}   address-family ipv4\n      neighbor 10.0.0.1 route-map AF in\n"
              "      neighbor 10.0.0.1 prefix-list AF-OUT out\n{}!\n")
    for before, after in (("", ""), ("", "   neighbor 10.0.0.1 route-map LATER in\n"),
                          ("   neighbor 10.0.0.1 route-map EARLIER in\n", "")):
        dev = _read(router.format(before, after))
        n = dev.bgp[None].neighbors["10.0.0.1"]
        assert (n.route_map_in, n.prefix_list_out, dev.unmodelled) == ("AF", "AF-OUT", []), (before, after)
    dev = _read(router.format("", "").replace("route-map AF in", "route-map AF sideways"))
    assert dev.bgp[None].neighbors["10.0.0.1"].route_map_in == "GLOBAL" and dev.unmodelled
    dev = _read(router.format("", "      neighbor 10.0.0.1 weight 200\n      neighbor 10.0.0.1 default-originate\n"))
    n = dev.bgp[None].neighbors["10.0.0.1"]
    assert (n.weight, bool(n.default_originate_line), dev.unmodelled) == (200, True, [])
