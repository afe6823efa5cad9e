"""FRR's route-map flow control (`on-match next|goto`, `continue N`, `call`): read, evaluated as
bgpd's route_map_apply_ext runs it, over sets of prefixes (routes._flow_evaluate) and one prefix at
a time (routes.route_map_outcome, the plain reference), which must agree."""

from __future__ import annotations

import random

from dualrail_net.verify.model import DeviceConfig, RouteMapEntry
from dualrail_net.verify.parsers import frr as frr_parser
from dualrail_net.verify.routes import PrefixIndex, _evaluate, route_map_outcome

LISTS = ("ip prefix-list A seq 5 permit 10.0.0.0/16 le 32\n"
         "ip prefix-list B seq 5 permit 10.0.1.0/24 le 32\n"
         "ip prefix-list C seq 5 permit 10.1.0.0/16 le 32\n")
IN_AB, IN_A_ONLY, IN_C, OUTSIDE = "10.0.1.0/24", "10.0.2.0/24", "10.1.0.0/24", "192.168.0.0/24"  # (B is in A)


def parsed(text: str) -> DeviceConfig:
    dev = DeviceConfig("x", "cumulus")
    frr_parser.parse_frr(LISTS + text, dev)
    return dev


def test_flow_clauses_are_read_and_what_bgpd_refuses_is_reported() -> None:
    dev = parsed("route-map M permit 10\n on-match next\nexit\n"
                 "route-map M permit 20\n on-match goto 40\nexit\n"
                 "route-map M permit 30\n continue 50\n call N\nexit\n"
                 "route-map M permit 40\n on-match goto 40\nexit\n"  # not forward: reported
                 "route-map M permit 50\n continue\nexit\n")  # bare continue: reported
    entries = {e.seq: e for e in dev.route_maps["M"]}
    assert (entries[10].exit_policy, entries[20].exit_policy, entries[20].goto_seq) == ("next", "goto", 40)
    assert (entries[30].exit_policy, entries[30].goto_seq, entries[30].call) == ("goto", 50, "N")
    assert entries[40].exit_policy == entries[50].exit_policy == "exit"
    assert [text for _, text in dev.unmodelled] == ["on-match goto 40", "continue"]
    entry = RouteMapEntry(10, "permit")
    assert not frr_parser.route_map_clause(entry, ["continue", "20"], 3)  # EOS's continue: not read


def _outcome(dev: DeviceConfig, prefix: str) -> tuple[bool, int | None, tuple[int, ...]]:
    ok, carried, _, _ = route_map_outcome(dev, "M", prefix)
    return ok, carried.local_pref if carried else None, carried.prepend if carried else ()


def test_bgpd_semantics() -> None:
    # on-match next, then an entry that does not match: the result turns to deny
    dev = parsed("route-map M permit 10\n match ip address prefix-list A\n set local-preference 50\n"
                 " set as-path prepend 1\n on-match next\nexit\n"
                 "route-map M permit 20\n match ip address prefix-list B\n set local-preference 70\n"
                 " set as-path prepend 2\nexit\n")
    assert _outcome(dev, IN_AB) == (True, 70, (2, 1))  # both entries' sets: the later wins, prepends add up
    assert _outcome(dev, IN_A_ONLY)[0] is False  # 10 matched, 20 did not: denied
    assert _outcome(dev, OUTSIDE)[0] is False
    # nothing after the on-match next entry: permitted with its sets
    dev = parsed("route-map M permit 10\n set local-preference 50\n on-match next\nexit\n")
    assert _outcome(dev, OUTSIDE) == (True, 50, ())
    # goto over a deny entry to the first entry of seq >= N
    dev = parsed("route-map M permit 10\n on-match goto 25\nexit\nroute-map M deny 20\nexit\n"
                 "route-map M permit 30\n match ip address prefix-list C\n set local-preference 10\nexit\n")
    assert _outcome(dev, IN_C) == (True, 10, ()) and _outcome(dev, IN_AB)[0] is False
    # call: the called map's deny ends it; its sets go on top; a map nobody defines changes nothing
    dev = parsed("route-map M permit 10\n set local-preference 50\n call N\nexit\n"
                 "route-map N deny 10\n match ip address prefix-list B\nexit\n"
                 "route-map N permit 20\n match ip address prefix-list A\n set as-path prepend 9\nexit\n")
    assert _outcome(dev, IN_AB)[0] is False and _outcome(dev, IN_A_ONLY) == (True, 50, (9,))
    assert _outcome(dev, IN_C)[0] is False  # N matches nothing for it: N denies, M finishes denied
    dev = parsed("route-map M permit 10\n call NOBODY\n set local-preference 5\nexit\n")
    assert _outcome(dev, OUTSIDE) == (True, 5, ())
    # a map that calls itself: denied at bgpd's recursion limit
    dev = parsed("route-map M permit 10\n call M\nexit\n")
    assert _outcome(dev, OUTSIDE)[0] is False


def _random_maps(rng: random.Random) -> str:
    text = []
    for name in ("M", "N"):
        for seq in sorted(rng.sample(range(5, 100, 5), rng.randint(1, 5))):
            lines = [f"route-map {name} {rng.choice(['permit', 'permit', 'deny'])} {seq}"]
            if rng.random() < 0.7:
                lines.append(f" match ip address prefix-list {rng.choice('ABCZ')}")  # Z: undefined
            for clause in rng.sample([f" set local-preference {rng.randint(1, 300)}", f" set metric {rng.randint(0, 9)}",
                                      f" set as-path prepend {rng.randint(1, 9)}", " set ip next-hop peer-address",
                                      f" set weight {rng.randint(1, 9)}"], rng.randint(0, 2)):
                lines.append(clause)
            flow = rng.random()
            if flow < 0.3:
                lines.append(" on-match next")
            elif flow < 0.5:
                lines.append(f" on-match goto {seq + rng.choice([1, 5, 10, 40, 200])}")
            if name == "M" and rng.random() < 0.3:
                lines.append(f" call {rng.choice(['N', 'N', 'NOBODY'])}")
            text.append("\n".join(lines) + "\nexit\n")
    return "".join(text)


def test_the_bitset_evaluation_agrees_with_the_plain_one() -> None:
    prefixes = [IN_AB, IN_A_ONLY, IN_C, OUTSIDE, "10.0.0.0/16", "10.0.1.7/32", "10.1.9.0/24", "10.2.0.0/24"]
    idx = PrefixIndex()
    for p in prefixes:
        idx.add(p, ("x", None), "A")
    idx.freeze()
    full = (1 << len(prefixes)) - 1
    for seed in range(300):
        dev = parsed(_random_maps(random.Random(seed)))
        permitted, acting = _evaluate(dev, dev.route_maps["M"], idx, full, [])
        for bit, prefix in enumerate(prefixes):
            ok, carried, _, _ = route_map_outcome(dev, "M", prefix)
            assert bool(permitted >> bit & 1) == ok, (seed, prefix)
            if not ok:
                continue
            deciding = [e for e, mask in acting if mask >> bit & 1]
            assert len(deciding) <= 1, (seed, prefix)
            got = deciding[0] if deciding else None
            sets = (lambda e: (e.prepend, e.local_pref, e.weight, e.med, e.next_hop) if e else ((), None, None, None, None))
            assert sets(got) == sets(carried if carried and (carried.prepend or carried.local_pref is not None
                                                            or carried.weight is not None or carried.med is not None
                                                            or carried.next_hop) else None), (seed, prefix)
