"""The P_Key table opensm programs into each HCA port, worked out from partitions.conf offline
(opensm's partition manager, osm_prtn_config.c / osm_prtn.c, for the forms our parser accepts):
a port is in a partition when the partition names its port GUID, or a keyword that covers it
(``ALL`` and ``ALL_CAS``: every HCA port; ``SELF``: the SM's own port; ``ALL_SWITCHES`` and
``ALL_ROUTERS``: no HCA port), with the entry's membership or the partition's ``defmember``; a
port named twice in one partition is a full member if any entry says full (``both`` counts as
full, as the simulation's comparison takes it). Only the low 15 bits of a P_Key count. GUIDs that
are no port of the plane are skipped (opensm skips them). After the file, opensm makes the default
partition (0x7fff) with every port in it: a port the file left out of it is a limited member
(measured: a Default that names only ``ALL_SWITCHES`` leaves every HCA port 0x7fff=limited). The
simulation (ib/sim.py: opensm on ibsim, the ports' tables read back) is the oracle: tests hold the
two equal."""

from __future__ import annotations

from collections.abc import Iterable

from dualrail_net.verify.ib.partitions import Partition

CA_KEYWORDS = frozenset({"ALL", "ALL_CAS"})
DEFAULT_PKEY = 0x7FFF


def hca_pkey_tables(partitions: Iterable[Partition], hca_guids: Iterable[str], sm_guid: str
                    ) -> dict[str, dict[int, str]]:
    """Each HCA port GUID -> {15-bit P_Key: "full" | "limited"}, as opensm programs it."""
    ports = {guid.lower() for guid in hca_guids}
    tables: dict[str, dict[int, str]] = {guid: {} for guid in ports}
    for part in partitions:
        if part.pkey is None:
            continue
        pkey = part.pkey & 0x7FFF
        for member in part.members:
            if member.target in CA_KEYWORDS:
                covered: Iterable[str] = ports
            elif member.target == "SELF":
                covered = [sm_guid.lower()] if sm_guid.lower() in ports else []
            elif member.target.startswith("0x"):
                covered = [member.target] if member.target in ports else []
            else:  # ALL_SWITCHES, ALL_ROUTERS: no HCA port
                covered = []
            membership = "full" if (member.membership or part.defmember) in ("full", "both") else "limited"
            for guid in covered:
                if tables[guid].get(pkey) != "full":
                    tables[guid][pkey] = membership
    for table in tables.values():
        table.setdefault(DEFAULT_PKEY, "limited")
    return tables


def fmt(table: dict[int, str]) -> str:
    """A P_Key table as findings write it: ``0x0101=full, 0x7fff=limited`` (``none`` when empty)."""
    return ", ".join(f"{k:#06x}={v}" for k, v in sorted(table.items())) or "none"
