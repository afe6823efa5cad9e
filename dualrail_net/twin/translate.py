"""Emulating one VRF of a multi-plane device as its own namespace (kernel VRF is unavailable here).

The translation is mechanical and documented: from the device's rendered files keep what belongs
to the VRF and drop the VRF wrapper; nothing is added.
* frr.conf: `router bgp N vrf X` becomes `router bgp N`; other VRFs' `router bgp` blocks are
  dropped; everything global (prefix lists, route maps) is kept. What zebra and staticd keep per
  VRF follows its VRF: the `vrf X` block's static routes and `ip protocol` filters become the
  namespace's own (top level), other VRFs' blocks are dropped, and the top level's (the default
  VRF's, no plane's) are dropped, but for a static route naming `vrf X` itself.
  A block ends where FRR leaves it (`exit`, or a line only the configuration node takes: FRR's
  climbing, verify/parsers/frr_cli.py), not where the indentation says: bgpd reads an un-indented
  line of a `router bgp` block as the block's.
* interfaces: the VRF device's address becomes the namespace's loopback address; ports of the VRF
  are kept without their `vrf` line; ports of other VRFs are dropped. (So a post-up command that
  names a port of another VRF, or one in the loopback's stanza, runs nowhere in the twin, where
  the device would run it: the oracle's generator does not write such commands.)
"""

from __future__ import annotations

from dualrail_net.verify.parsers.frr_cli import expand, node_after
from dualrail_net.verify.parsers.ifupdown import PRIVATE_STATE, parse_stanzas


def ifup_privately(path: str) -> str:
    """The shell line that applies an interfaces file in a twin namespace as at boot (`ifup -a`),
    with ifupdown2's lock and state private to the call: /run/network, and /var/tmp/network, where
    it keeps the state of every interface it configured (ifstatenew). That file is read by the next
    `ifup` whatever the namespace: measured, another namespace's file with an address ifupdown2
    cannot read, for ports of the same names, left a later run's ports without their addresses."""
    return f"unshare -m sh -c '{PRIVATE_STATE} && exec ifup -a -i {path}'"


def frr_for_vrf(text: str, vrf: str) -> str:
    out: list[str] = []
    skipping = False
    node = "config"  # the grammar node FRR reads the next line in
    for line in text.splitlines():
        words = line.split()
        if not words or words[0][0] in "!#":
            if not skipping:
                out.append(line)
            continue
        if node != "config" and words[0] not in ("exit", "exit-vrf", "exit-address-family", "end"):
            found = expand("bgp" if node == "bgp-other" else node, tuple(words))
            if isinstance(found, tuple) and found[0] == "config":
                node, skipping = "config", False  # the block ended: only the configuration node takes it
        if node == "config":
            if words[0] == "vrf":
                skipping, node = words[1:] != [vrf], "vrf"
                continue
            if words[:2] in _PER_VRF:
                if words[-2:] == ["vrf", vrf] and words[1] == "route":
                    out.append(" ".join(words[:-2]))  # (the default VRF's syntax for this VRF's route)
                continue
            if words[:2] == ["router", "bgp"] and len(words) >= 5 and words[3] == "vrf":
                skipping, node = words[4] != vrf, "bgp"
                if not skipping:
                    out.append(" ".join(words[:3]))
                continue
        elif node == "vrf" and not skipping:  # this VRF's own block: its lines at the namespace's top
            if words[:2] in _PER_VRF:
                out.append(" ".join(words))
            if words[0] in ("exit", "exit-vrf", "end"):
                node = "config"
            continue
        ended = node != "config" and words[0] in ("exit", "exit-vrf", "end") and not node.startswith("bgp-")
        node = node_after(words, node)
        if skipping and ended:
            skipping = False
            continue
        if not skipping:
            out.append(line)
    return "\n".join(out) + "\n"


# the statements zebra and staticd keep per VRF (at the top level: the default VRF's)
_PER_VRF = (["ip", "route"], ["ipv6", "route"], ["ip", "protocol"], ["ipv6", "protocol"])

MANAGEMENT_VRF = "mgmt"


def without_management(text: str) -> str:
    """The interfaces file without its out-of-band management (the `mgmt` VRF and its ports): the
    twin reaches its switches through its own management network (twin/lifecycle.py), and a
    namespace has no eth0 to configure."""
    stanzas = parse_stanzas(text)
    dropped = {st.name for st in stanzas if st.name == MANAGEMENT_VRF or dict(st.attrs).get("vrf") == MANAGEMENT_VRF}
    if not dropped:
        return text
    out: list[str] = []
    skipping = False
    for line in text.split("\n"):
        words = line.split()
        if words[:1] in (["auto"], ["allow-hotplug"]) and len(words) == 2 and words[1] in dropped:
            continue
        if words[:1] == ["iface"]:
            skipping = len(words) > 1 and words[1] in dropped
        elif words[:1] and words[0] in ("auto", "source", "allow-hotplug") and not line.startswith((" ", "\t")):
            skipping = False
        if not skipping:
            out.append(line)
    return "\n".join(out)


def interfaces_for_vrf(text: str, vrf: str) -> str:
    stanzas = parse_stanzas(text)
    out = [f"# twin: VRF {vrf} of this device, emulated as its own namespace", ""]
    loopbacks: list[str] = []
    for st in stanzas:
        attrs = dict(st.attrs)
        if "vrf-table" in attrs:
            if st.name == vrf:
                loopbacks += [v for k, v in st.attrs if k == "address"]
            continue
        if st.name == "lo":
            continue
        if attrs.get("vrf") != vrf:
            continue
        out += [f"auto {st.name}", f"iface {st.name}"]
        out += [f"    {k} {v}" for k, v in st.attrs if k != "vrf"]
        out.append("")
    head = ["auto lo", "iface lo inet loopback"] + [f"    address {a}" for a in loopbacks] + [""]
    return "\n".join(out[:2] + head + out[2:]) + "\n"


SUPPORTED_ATTRIBUTES = {"address", "mtu", "alias", "vrf", "vrf-table", "link-down"}


def interfaces_to_ip_batch(text: str, present: set[str] | None = None) -> list[str]:
    """A faithful, refuse-what-you-do-not-know translation of an ifupdown2 interfaces file into
    `ip -batch` lines, for large twins where ifupdown2's per-namespace start dominates bring-up.
    Unlike ifupdown2 (which skips unknown attributes silently) an unknown attribute is an error."""
    commands: list[str] = []
    for st in parse_stanzas(text):
        unknown = {k for k, _ in st.attrs} - SUPPORTED_ATTRIBUTES
        if unknown:
            raise ValueError(f"iface {st.name}: cannot translate {', '.join(sorted(unknown))}; use ifupdown2 mode")
        attrs = dict(st.attrs)
        if "vrf-table" in attrs:
            raise ValueError(f"iface {st.name}: a VRF device; the twin emulates VRFs as namespaces")
        if present is not None and st.name not in present:
            continue  # not cabled in this twin (ifupdown2 would warn "interface not recognized" and go on)
        for key, value in st.attrs:
            if key == "address":
                commands.append(f"address add {value} dev {st.name}")
        if "mtu" in attrs:
            commands.append(f"link set dev {st.name} mtu {attrs['mtu']}")
        if "alias" in attrs:
            commands.append(f'link set dev {st.name} alias "{attrs["alias"]}"')
        if attrs.get("link-down") != "yes":
            commands.append(f"link set dev {st.name} up")
    return commands
