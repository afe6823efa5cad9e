"""Cumulus's management service files read as ntpsec, rsyslog, glibc and the TACACS+ client read
them (platforms/cumulus/services.py)."""

from __future__ import annotations

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
