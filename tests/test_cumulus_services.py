"""Cumulus's management service files read as ntpsec, rsyslog, glibc and the TACACS+ client read
them (platforms/cumulus/services.py)."""

from __future__ import annotations

import json
import os
import random
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from dualrail_net.platforms.cumulus import services
from dualrail_net.verify.model import DeviceConfig


def _dev() -> DeviceConfig:
    dev = DeviceConfig(name="leaf", platform="cumulus")
    dev.management.vrf = "mgmt"
    return dev


def test_ntp_most_specific_restrict_decides() -> None:
    dev = _dev()
    services.read_ntp("server 192.0.2.10\nserver 192.0.2.11 iburst prefer minpoll 4\nserver 192.0.2.12\n"
                      "restrict default ignore\nrestrict 192.0.2.0 mask 255.255.255.0 nomodify\n"
                      "restrict 192.0.2.12 ignore\n", dev)
    assert dev.management.ntp == ["192.0.2.10", "192.0.2.11"]
    assert [(line, server) for _, line, server, _ in dev.management.astray] == [(6, "192.0.2.12")]
    assert dev.base_unmodelled == []


def test_ntp_restrict_flags_add_up_and_discipline() -> None:
    dev = _dev()
    services.read_ntp("server 192.0.2.10\nrestrict 192.0.2.10 nomodify\nrestrict 192.0.2.10 ignore\n", dev)
    assert [(line, how.startswith("refused")) for _, line, _, how in dev.management.astray] == [(3, True)]
    dev = _dev()
    services.read_ntp("disable ntp\nserver 192.0.2.10\nenable ntp\nserver 192.0.2.11\n", dev)
    assert dev.management.ntp == ["192.0.2.10", "192.0.2.11"]  # the last enable/disable stands
    dev = _dev()
    services.read_ntp("server ntp.example.net\nrestrict default ignore\nserver 192.0.2.10 key 4\ntos minsane 2\n", dev)
    assert [s for _, _, s, _ in dev.management.astray] == ["ntp.example.net", "192.0.2.10"]
    assert [line for _, line, _ in dev.base_unmodelled] == [3, 4]  # `key` (authentication) and `tos` not judged


def test_rsyslog_statements_over_lines_and_comments() -> None:
    dev = _dev()
    text = ('# a "quoted" comment (\n'
            "action(type='omfwd' /* ) inside a comment */\n"
            '   target="192.0.2.20" device="mgmt" # ) again\n'
            '   template="RSYSLOG_ForwardFormat")\n'
            '*.* action(type="omfwd" Target="192.0.2.21" Device="mgmt" Protocol="tcp")\n'
            'local0.* @@192.0.2.22\n'
            'action(type="omfwd" Target="192.0.2.23" Device="mgmt"\n')
    services.read_rsyslog(text, dev, "mgmt")
    assert dev.management.syslog == ["192.0.2.20"]
    assert [(line, server, how) for _, line, server, how in dev.management.astray] == [
        (5, "192.0.2.21", "sent over tcp/514, not udp/514"), (6, "192.0.2.22", "sent in VRF default")]
    assert dev.management.located[("syslog", "192.0.2.20")] == ("rsyslog.conf", 2)
    # the selector's filter is not judged; the action never closed is reported, not read
    assert [line for _, line, _ in dev.base_unmodelled] == [6, 7]


def test_rsyslog_omfwd_parameter_it_does_not_have_is_said() -> None:
    """A hand edit's slip (`the="514"` for `Port="514"`) was dropped in silence; rsyslog says
    "parameter not known": now said at the action's line. Queue and action parameters are known."""
    dev = _dev()
    services.read_rsyslog('action(type="omfwd" Target="192.0.2.20" Device="mgmt" the="514" Protocol="udp")\n'
                          'action(type="omfwd" Target="192.0.2.21" Device="mgmt" queue.type="LinkedList"\n'
                          '       action.resumeRetryCount="-1" KeepAlive="on")\n', dev, "mgmt")
    assert dev.management.syslog == ["192.0.2.20", "192.0.2.21"]
    assert dev.base_unmodelled == [("rsyslog.conf", 1, 'omfwd parameter the: not one rsyslog has (it says '
                                                      '"parameter not known")')]


def test_resolv_conf_asks_three_name_servers() -> None:
    dev = _dev()
    services.read_resolv("search example.net\n" + "".join(f"nameserver 192.0.2.{n} # vrf mgmt\n" for n in range(1, 5)),
                         dev, "mgmt")
    assert dev.management.dns == ["192.0.2.1", "192.0.2.2", "192.0.2.3"]
    assert [(line, server) for _, line, server, _ in dev.management.astray] == [(5, "192.0.2.4")]


def test_tacplus_key() -> None:
    dev = _dev()
    services.read_tacplus("server=192.0.2.49:49\nvrf=mgmt\ntimeout=5\n", dev, "mgmt")
    assert (dev.management.tacacs, dev.management.tacacs_key) == (["192.0.2.49"], False)
    dev = _dev()
    services.read_tacplus("secret=${secret:tacacs-key}\nserver=192.0.2.49\nvrf=mgmt\n", dev, "mgmt")
    assert (dev.management.tacacs_key, dev.management.literal_secrets, dev.base_unmodelled) == (True, [], [])


def test_comment_stripping_fast_path_agrees_with_the_walk() -> None:
    """_without_comments' line path against the character walk (its reference) on random RainerScript."""
    import random
    rng = random.Random(29)
    pieces = ['action(type="omfwd"', ' target="192.0.2.20"', " # note", "\n", "# whole line\n", " /* c */ ", "'a#b'",
              '"x\\"#"', ")", "*.* ", "   # indented\n", '"open', "\\", "stop\n"]
    for _ in range(20000):
        text = "".join(rng.choice(pieces) for _ in range(rng.randint(0, 12)))
        assert services._without_comments(text) == services._without_comments_walk(text), text


# glibc's resolver read in a private mount namespace: /etc/resolv.conf is our file there (bound
# once, rewritten in place per case), res_init reads it again each call, and the IPv4 servers it
# keeps are printed in order ("v6" for an IPv6 one, which glibc keeps elsewhere), one case a line
_GLIBC_PROBE = r"""
import ctypes, json, os, select, socket, struct, sys
libc = ctypes.CDLL("libc.so.6")
libc.__res_state.restype = ctypes.c_void_p
target = sys.argv[1]
for case in map(json.loads, sys.stdin.read().splitlines()):
    with open(target, "w", newline="") as f:
        f.write(case)
    r, w = os.pipe()
    child = os.fork()
    if child == 0:  # (res_init can loop forever: a child per case, killed after a second)
        os.close(r)
        assert libc.__res_init() == 0
        raw = ctypes.string_at(libc.__res_state(), 20 + 16 * 3)
        count = struct.unpack_from("i", raw, 16)[0]
        seen = []
        for i in range(count):
            family = struct.unpack_from("=H", raw, 20 + 16 * i)[0]
            seen.append(socket.inet_ntoa(raw[24 + 16 * i:28 + 16 * i]) if family == socket.AF_INET else "v6")
        os.write(w, " ".join(seen).encode())
        os._exit(0)
    os.close(w)
    # a hang spins: the child is taken as hung once it has used 0.1 s of CPU without an answer (a
    # read takes about a millisecond), however long a busy machine keeps it waiting for a core
    ticks = os.sysconf("SC_CLK_TCK")
    ready = []
    for _ in range(600):
        ready, _, _ = select.select([r], [], [], 0.05)
        if ready:
            break
        with open(f"/proc/{child}/stat") as stat:
            fields = stat.read().rsplit(")", 1)[1].split()
        if (int(fields[11]) + int(fields[12])) / ticks > 0.1:
            break
    if not ready:
        os.kill(child, 9)
    print(os.read(r, 4096).decode() if ready else "HANG")
    os.waitpid(child, 0)
    os.close(r)
"""

_KEYWORDS = ["nameserver", "nameserver", "nameserver", " nameserver", "\tnameserver", "nameserver\f", "nameserver\v",
             "#nameserver", ";nameserver", "NAMESERVER", "nameservers"]
_GAPS = [" ", " ", "\t", "  \t", "\f", ""]
_ADDRESSES = ["192.0.2.10", "192.0.2.11", "198.51.100.7", "10.1", "0x0a000002", "012.0.0.3", "1.2.3.4\r", "1.2.3.4#c",
              "256.0.0.1", "1.2.3", "1.2.3.4.", "08.1.1.1", "0x", "2001:db8::1", "fe80::1%eth0", "::ffff:1.2.3.4", "",
              "192.0.2.12\x00junk", "٣.1.1.1"]
_TAILS = ["", "", " # vrf mgmt", "\tjunk here", " ", "\r"]
_OTHER = ["search example.net", "options ndots:1 timeout:1", "domain example.net", "", "# comment", "garbage line",
          "  search x", "sortlist 10.0.0.0", "sortlist 10.0.0.0/255.0.0.0 192.0.2.0&255.255.255.0", "sortlist junk/8",
          "sortlist 10.0.0.0 x\f", "sortlist 10.0.0.0//x;\r", "sortlist\t10.1/8 ; \r"]


def _random_resolv(rng: random.Random) -> str:
    lines = []
    for _ in range(rng.randint(1, 7)):
        if rng.random() < 0.25:
            lines.append(rng.choice(_OTHER))
        else:
            lines.append(rng.choice(_KEYWORDS) + rng.choice(_GAPS) + rng.choice(_ADDRESSES) + rng.choice(_TAILS))
    return "".join(line + rng.choice(["\n", "\n", "\r\n"]) for line in lines)


@pytest.mark.root
@pytest.mark.skipif(os.geteuid() != 0 or shutil.which("unshare") is None, reason="needs root and unshare")
def test_resolv_conf_reading_equals_glibcs_res_init(tmp_path: Path) -> None:
    """read_resolv's name servers against glibc's own res_init (Debian 12's libc, through ctypes in
    a mount namespace of its own) on 300 random files: indented and spaced keywords, CRLF ends,
    inet_aton's other forms, words stuck to the address, IPv6, a NUL in the line, and `sortlist`
    lines res_init never finishes reading (its child is killed once it has spun 0.1 s of CPU: "HANG")."""
    rng = random.Random(54)
    cases = [_random_resolv(rng) for _ in range(300)]
    target = tmp_path / "resolv.conf"
    target.write_text("")
    probe = tmp_path / "probe.py"
    probe.write_text(_GLIBC_PROBE)
    run = subprocess.run(["unshare", "-m", "sh", "-c", f"mount --bind {target} /etc/resolv.conf && "
                          f"exec {sys.executable} {probe} {target}"],
                         input="".join(json.dumps(c) + "\n" for c in cases).encode(), capture_output=True, timeout=120)
    assert run.returncode == 0, run.stderr.decode()
    glibc = run.stdout.decode().split("\n")[:-1]
    assert len(glibc) == len(cases)
    asked = hangs = 0
    for case, theirs in zip(cases, glibc):
        dev = DeviceConfig(name="leaf", platform="cumulus")  # (no management VRF: every server counts)
        services.read_resolv(case, dev, "mgmt")
        if dev.management.resolver_hangs is not None:
            assert theirs == "HANG", repr(case)
            hangs += 1
            continue
        mine = ["v6" if ":" in s else s for s in dev.management.dns]
        assert mine == (theirs.split() if mine else theirs.split() if theirs == "HANG" else
                        [s for s in theirs.split() if s != "127.0.0.1"]), repr(case)  # (none: glibc asks 127.0.0.1)
        asked += len(mine)
        # every line that names a server to a person is asked or said (not a comment to glibc)
        looks = [line for line in case.split("\n") if line[:1] not in ("#", ";") and "nameserver" in line.lower()]
        assert len(mine) + len(dev.management.astray) + len(dev.base_unmodelled) >= len(looks), repr(case)
    assert asked > 40 and hangs > 10, (asked, hangs)  # (not vacuous: servers asked, lines glibc never finishes)


def test_inet_aton_exact_equals_the_c_librarys() -> None:
    """inet_aton_exact against the C library's inet_aton (socket.inet_aton) on words without
    blanks, where the two must agree (inet_aton also takes a blank and anything after it)."""
    import socket
    import struct

    def theirs(word: str) -> int | None:
        try:
            value: int = struct.unpack("!I", socket.inet_aton(word))[0]
        except OSError:
            return None
        return value

    rng = random.Random(541)
    alphabet = "0123456789.xXabfgAF"
    for _ in range(20_000):
        word = "".join(rng.choice(alphabet) for _ in range(rng.randint(1, 14)))
        assert services.inet_aton_exact(word) == theirs(word), word
    # leading zeros strtoul skips, and numbers far past 32 bits (5,000 digits: no int() of them)
    for word in ("0" * 5000 + "1", "1" * 5000, "0x" + "0" * 40 + "a.1", "037777777777", "040000000000"):
        assert services.inet_aton_exact(word) == theirs(word), word[:20]
