"""EOS interface names as its CLI takes them on an `interface` line.

EOS completes an interface type from any unambiguous prefix, in any case (`Et1`, `eth1`,
`ethernet 1`), and one `interface` line may configure several ports at once: a range of the last
number (`Ethernet1-4`, `Ethernet1/1-4`) and comma lists (`Ethernet1,3,5-6`, `Et1,Lo0`), a list item
without a type taking the previous one's. Every port named gets the block's lines.
"""

from __future__ import annotations

import re

# the interface types an EOS switch of the fabric has (prefixes are completed against these)
TYPES = ("Ethernet", "Loopback", "Management", "Port-Channel", "Vlan", "Vxlan", "Tunnel", "Recirc-Channel")
_ITEM = re.compile(r"([A-Za-z][A-Za-z-]*)?([0-9]{1,6}(?:/[0-9]{1,6}){0,3})(?:-([0-9]{1,6}))?")
MAX_PORTS = 4096  # a range wider than any switch's ports is a typo, not a block to copy 10^6 times


def interface_type(word: str) -> str | None:
    """The type ``word`` names (a prefix of one type only, case ignored), else None."""
    low = word.lower()
    found = [t for t in TYPES if t.lower().startswith(low)]
    return found[0] if len(found) == 1 else None


def interface_names(words: list[str]) -> list[str] | None:
    """The ports an `interface ...` line names, in canonical spelling (`Ethernet1/1`); None when the
    line names none EOS would take."""
    spec = "".join(words[1:])
    if not spec:
        return None
    names: list[str] = []
    kind: str | None = None
    for item in spec.split(","):
        m = _ITEM.fullmatch(item)
        if m is None:
            return None
        if m.group(1):
            kind = interface_type(m.group(1))
        if kind is None:
            return None
        number, last = m.group(2), m.group(3)
        if last is None:
            names.append(kind + number)
            continue
        head, _, first = number.rpartition("/")
        low, high = int(first), int(last)
        if high < low or high - low >= MAX_PORTS:
            return None
        names += [f"{kind}{head + '/' if head else ''}{n}" for n in range(low, high + 1)]
    return names if len(names) <= MAX_PORTS else None
