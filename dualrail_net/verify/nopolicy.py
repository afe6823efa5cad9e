"""What a BGP neighbor carries in a direction where it has no policy.

Two platforms' rules, one question ("does every route of this direction stop for want of a policy?"):
- FRR's `bgp ebgp-requires-policy` (on under `frr defaults traditional`, or said): an eBGP neighbor
  without a route-map, prefix-list or filter-list in a direction carries nothing that way (RFC 8212).
- EOS's `bgp missing-policy [include ...] direction in|out action deny|permit|deny-in-out` (under
  `router bgp`, its `address-family ipv4`, or per neighbor or peer-group; model.MissingPolicy): a
  neighbor whose route-map of that direction is missing (none named, one the file does not define,
  or with `include`, one matching on a prefix-list or community-list the file does not define) has
  its routes of that direction denied (`deny`) or both ways (`deny-in-out`); iBGP neighbors too.
  The forms are AVD's (its data model renders them) and the actions' meaning Arista's; the
  precedence (a neighbor's or its group's line over the instance's, `address-family ipv4` over the
  router level) is this reader's assumption, and none of it is measured on EOS (none runs here).
"""

from __future__ import annotations

from typing import NamedTuple

from dualrail_net.verify.model import ACCESS_LIST_PREFIX, BgpInstance, DeviceConfig, MissingPolicy, Neighbor


class Withheld(NamedTuple):
    """Why a neighbor carries nothing in one direction: the line that decides it (in the device's
    routing file) and the reason, in words that follow the neighbor's name."""

    line: int
    why: str


def requires_policy(dev: DeviceConfig, inst: BgpInstance) -> bool:
    """Whether FRR's ebgp-requires-policy is on for the instance (said, or the platform's default)."""
    if inst.ebgp_requires_policy is not None:
        return inst.ebgp_requires_policy
    return dev.frr_defaults == "traditional"


def _deciding(n: Neighbor, inst: BgpInstance, direction: str) -> MissingPolicy | None:
    for pool in (n.missing_policies, inst.missing_policies):
        chosen = [policy for policy in pool if policy.direction == direction]
        if chosen:
            return max(chosen, key=lambda policy: policy.af)
    return None


def _route_map(n: Neighbor, direction: str) -> str | None:
    return n.route_map_in if direction == "in" else n.route_map_out


def policy_missing(dev: DeviceConfig, name: str | None, direction: str, includes: frozenset[str]) -> str | None:
    """Why EOS counts route-map ``name`` of ``direction`` as missing, in words that follow "has"
    (None: it is there)."""
    if name is None:
        return f"no route-map {direction}"
    entries = dev.route_maps.get(name)
    if entries is None:
        return f"route-map {name} {direction}, which is not defined"
    for entry in entries:
        if "prefix-list" in includes:
            for listed in entry.match_prefix_lists:
                if not listed.startswith(ACCESS_LIST_PREFIX) and listed not in dev.prefix_lists:
                    return f"route-map {name} {direction}, which matches on prefix-list {listed} (not defined)"
        if "community-list" in includes:
            for kind, listed, _ in entry.match_lists:
                if kind == "community" and listed not in dev.community_lists \
                        and ("community", listed) not in dev.match_list_names:
                    return f"route-map {name} {direction}, which matches on community-list {listed} (not defined)"
    return None


def eos_missing_policy(dev: DeviceConfig, inst: BgpInstance, n: Neighbor, direction: str) -> Withheld | None:
    """Whether EOS's missing-policy denies ``n``'s routes of ``direction`` (in: what it sends this
    device; out: what this device sends it)."""
    for way in (direction, "out" if direction == "in" else "in"):
        policy = _deciding(n, inst, way)
        if policy is None or policy.action == "permit" or way != direction and policy.action != "deny-in-out":
            continue
        missing = policy_missing(dev, _route_map(n, way), way, policy.includes)
        if missing is not None:
            dropped = "both ways" if policy.action == "deny-in-out" else way
            return Withheld(policy.line, f"has {missing}: `missing-policy direction {way} action "
                                         f"{policy.action}` drops its routes {dropped}")
    return None


def policy_stops(dev: DeviceConfig, inst: BgpInstance, n: Neighbor, direction: str, ebgp: bool,
             requires: bool | None = None) -> Withheld | None:
    """Whether ``n`` carries nothing in ``direction`` for want of a policy, and why (None: it carries
    what its policy lets through). ``requires``: requires_policy(dev, inst), when the caller has it."""
    if ebgp and (requires if requires is not None else requires_policy(dev, inst)):
        listed = n.prefix_list_in if direction == "in" else n.prefix_list_out
        path_filter = n.filter_list_in if direction == "in" else n.filter_list_out
        if _route_map(n, direction) is None and listed is None and path_filter is None:
            return Withheld(n.line, f"has no route-map {direction} and ebgp-requires-policy is on")
    if inst.missing_policies or n.missing_policies:
        return eos_missing_policy(dev, inst, n, direction)
    return None
