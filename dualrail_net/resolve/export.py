"""Export the resolved fabric for people: JSON of the whole model and the cabling plan as CSV."""

from __future__ import annotations

import csv
import io
import json
from dataclasses import asdict
from typing import Any

from dualrail_net.resolve.model import Fabric

CABLING_COLUMNS = ["plane", "kind", "a_device", "a_port", "a_address", "b_device", "b_port", "b_address", "speed"]


def fabric_to_dict(fabric: Fabric) -> dict[str, Any]:
    doc = asdict(fabric)
    # the management section is the inventory's validated model; secrets in it are names only
    doc["management"] = fabric.management.model_dump() if fabric.management is not None else None
    return doc


def fabric_json(fabric: Fabric) -> str:
    return json.dumps(fabric_to_dict(fabric), indent=1, sort_keys=False) + "\n"


def cabling_csv(fabric: Fabric) -> str:
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow(CABLING_COLUMNS)
    for link in fabric.links:
        writer.writerow([link.plane, link.kind, link.a, link.a_port, link.a_address, link.b, link.b_port,
                         link.b_address, link.speed])
    return buf.getvalue()


def read_cabling_csv(text: str) -> list[dict[str, str]]:
    """Parse a cabling plan back (later stages take the plan as a file, not as our objects)."""
    return list(csv.DictReader(io.StringIO(text)))
