"""The rendered output folder -> a Batfish snapshot directory.

* each device's files come from its platform plug-in (``Platform.batfish_files``): EOS as
  `configs/<device>.cfg`, Cumulus as Batfish's concatenated file (platforms/cumulus/batfish.py).
* `batfish/layer1_topology.json`: every cable of the cabling plan between two devices of the
  snapshot (not a gateway's external peers), both directions.
* `hosts/<server>.json`: each GPU server with one interface per NIC port.
One snapshot for the whole fabric, so paths between planes are visible to Batfish.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from dualrail_net.manifest import Manifest
from dualrail_net.outdir import write_owned
from dualrail_net.platforms import get_platform, platform_names
from dualrail_net.verify.cabling import read_cabling
from dualrail_net.verify.parsers.files import read_text
from dualrail_net.verify.parsers.ifupdown import read_interfaces
from dualrail_net.verify.snapshot import read_manifest

def export_snapshot(out: Path, dest: Path) -> dict[str, Any]:
    """Write the snapshot of the rendered folder ``out`` into ``dest``, a folder we own (a new or empty
    one, or an earlier snapshot: ``outdir.write_owned``; never the rendered folder itself)."""
    manifest = read_manifest(out)  # (no folder it names reached through a link: the snapshot leaves the machine)
    files: dict[str, str | bytes] = {}
    counts = {name: 0 for name in platform_names()} | {"hosts": 0, "edges": 0}
    for name, meta in manifest.devices.items():
        files.update(get_platform(meta.platform).batfish_files(name, out / meta.dir))
        counts[meta.platform] += 1
    for name, server in manifest.servers.items():
        ifaces = read_interfaces(read_text(out / server.dir / "interfaces")).interfaces
        host = {"hostname": name, "hostInterfaces": {
            n: {"name": n, "prefix": i.addresses[0]} for n, i in sorted(ifaces.items()) if i.addresses}}
        files[f"hosts/{name}.json"] = json.dumps(host, indent=1, sort_keys=True) + "\n"
        counts["hosts"] += 1
    edges = []
    for row in read_cabling(manifest.cabling_path(out)):
        if row.get("kind") == "external":
            continue  # its far end is outside the snapshot (Batfish sees the gateway's session as external)
        a = {"hostname": row.get("a_device"), "interfaceName": row.get("a_port")}
        b = {"hostname": row.get("b_device"), "interfaceName": row.get("b_port")}
        edges += [{"node1": a, "node2": b}, {"node1": b, "node2": a}]
    files["batfish/layer1_topology.json"] = json.dumps({"edges": edges}, indent=1) + "\n"
    counts["edges"] = len(edges)
    write_owned(files, dest, protected=[out], kind="snapshot", protected_name="the build folder")
    return counts
