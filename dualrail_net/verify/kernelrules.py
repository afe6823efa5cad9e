"""A switch's own policy rules (DeviceConfig.kernel_rules) as the kernel walks them for a packet
the switch sends: which rule ends the lookup before a table resolves it."""

from __future__ import annotations

from dualrail_net.verify.ipfast import MASKS
from dualrail_net.verify.model import KernelRule

# the kernel's own rules: local (0), each VRF's l3mdev rule (1000, once a VRF device exists), main
# (32766) and default (32767)
LOCAL_PRIORITY, L3MDEV_PRIORITY, MAIN_PRIORITY, DEFAULT_PRIORITY = 0, 1000, 32766, 32767


def rejecting_rule(rules: list[KernelRule], in_vrf: bool, source: int, destination: int) -> KernelRule | None:
    """The rule that ends the switch's own lookup for a packet from ``source`` to ``destination``
    before a table resolves it (None: none does): the first match in priority order among those
    below main's (a VRF's traffic is resolved at the l3mdev rule's priority), selectors as the
    kernel's fib_rule_match takes them (`not` inverts the whole match, `iif lo` is the switch's own
    traffic, a fwmark other than 0 matches no unmarked packet)."""
    cutoff = L3MDEV_PRIORITY if in_vrf else MAIN_PRIORITY
    for rule in sorted(rules, key=lambda r: r.priority):  # (stable: equal priorities in the order added)
        if rule.priority >= cutoff:
            break
        matched = (rule.iif in (None, "lo") and not rule.marked
                   and source & MASKS[rule.source_len] == rule.source
                   and destination & MASKS[rule.to_len] == rule.to)
        if matched != rule.invert:
            return rule
    return None
