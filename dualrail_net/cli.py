"""``dualrail``: the command line. Thin: parses arguments, calls the stages, prints, sets exit codes.

Exit codes: 0 ok, 1 the inventory or a verification failed, 2 usage error (argparse's own code).
"""

from __future__ import annotations

import argparse
import json
import logging
import math
import os
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from dualrail_net import __version__
from dualrail_net.render import render_fabric
from dualrail_net.deploy.credentials import CredentialError
from dualrail_net.deploy.playbook import PlaybookError
from dualrail_net.deploy.journal import JournalUnusable
from dualrail_net.junit import Case
from dualrail_net.junit import write_junit as write_junit_cases
from dualrail_net.manifest import Manifest, ManifestError
from dualrail_net.outdir import OutputRefused
from dualrail_net.twin.state import TwinStateError
from dualrail_net.render.artifacts import RenderResult, drift, write_render
from dualrail_net.render.escape import UnsafeValue
from dualrail_net.sot.diagnostics import one_line
from dualrail_net.resolve import resolve_fabric
from dualrail_net.resolve.model import Fabric
from dualrail_net.sot import Diagnostic, InventoryError, Severity, load_inventory
from dualrail_net.sot.load import LoadedInventory
from dualrail_net.sot.validate import validate
from dualrail_net.verify.batfish.client import BatfishUnavailable, batfish_host, connect
from dualrail_net.verify.front import VerifyOptions, verify_folder
from dualrail_net.verify.snapshot import SnapshotError
from dualrail_net.verify.findings import CheckResult
from dualrail_net.verify.parsers import UnreadableFile
from dualrail_net.verify.report import print_results, results_to_dict, write_junit

EXIT_OK, EXIT_FAIL, EXIT_USAGE = 0, 1, 2
EXIT_INTERNAL = 70  # a bug in dualrail (EX_SOFTWARE): never the answer to any input

EPILOG = """\
The pipeline: inventory/ (YAML source of truth) -> validate -> resolve -> render -> verify.
Typical use:
  dualrail validate                 check the inventory; errors are file:line with the fix
  dualrail render                   write build/: one folder per plane and device
  dualrail render --check           exit 1 if build/ differs from a fresh render (GitOps drift)
  dualrail build                    validate + render + every offline verification
  dualrail build --json             the same, one JSON document on stdout for machines
Exit codes: 0 ok, 1 inventory or verification failed, 2 usage error, 70 internal error (a bug).
Output folders: dualrail writes only into a new or empty folder, or one it wrote before (it holds
.dualrail-owned); it never deletes a file it did not write and never follows a symlink inside it.
"""


class Ui:
    def __init__(self, as_json: bool) -> None:
        self.as_json = as_json
        # soft_wrap: a diagnostic stays on one line however narrow the terminal (grep- and CI-friendly).
        self.out = Console(stderr=as_json, highlight=False, soft_wrap=True, emoji=False)

    def print(self, *args: Any) -> None:
        self.out.print(*args)


def _device_access(p: argparse.ArgumentParser, output_help: str) -> None:
    """The options of every command that talks to the devices: the build, the twin, host keys, JSON."""
    p.add_argument("-o", "--output", type=Path, default=Path("build"), metavar="DIR", help=output_help)
    p.add_argument("--twin", action="store_true", help="target the running emulated twin (its keys and addresses)")
    p.add_argument("--insecure-no-host-key-check", action="store_true",
                   help="do not verify SSH host keys (explicit opt-out; never the default)")
    p.add_argument("--json", action="store_true", help="print one JSON document on stdout")


def _common(p: argparse.ArgumentParser, output: bool = True) -> None:
    p.add_argument("-i", "--inventory", type=Path, default=Path("inventory"), metavar="DIR",
                   help="inventory directory (default: inventory/)")
    if output:
        p.add_argument("-o", "--output", type=Path, default=Path("build"), metavar="DIR",
                       help="output directory for rendered artifacts (default: build/)")
    p.add_argument("--json", action="store_true", help="print one JSON document on stdout (human output goes away)")


def _positive_int(text: str) -> int:
    """An argparse type: a whole number of at least 1 (a usage error, exit 2, otherwise)."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"{text} is not at least 1")
    return value


def _positive_number(text: str) -> float:
    """An argparse type: a finite number above 0 (nan, inf and negatives are usage errors)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if not math.isfinite(value) or value <= 0:
        raise argparse.ArgumentTypeError(f"{text} is not a finite number above 0")
    return value


def _quiet_libraries() -> None:
    """paramiko logs an SSH connection that fails (a device that does not answer) with its traceback
    at ERROR, and with no handler configured Python prints that to stderr (logging.lastResort). The
    commands report each device's failure themselves, in one line: the libraries' records are
    dropped (DUALRAIL_DEBUG=1 keeps them)."""
    for name in ("paramiko", "netmiko", "nornir"):
        logger = logging.getLogger(name)
        logger.addHandler(logging.NullHandler())
        logger.propagate = False


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="dualrail", description="Provision and verify dual-plane (dual-rail) AI-cluster fabrics.",
        epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--version", action="version", version=f"dualrail-net {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    p = sub.add_parser("validate", help="check the inventory (schema and cross-file rules)",
                       description="Load inventory/*.yaml, check the schema (unknown keys are errors) and every "
                       "cross-file rule: pools, ASNs, plane symmetry, NIC placement, IB GUIDs and P_Keys. "
                       "Each problem is reported as FILE:LINE: what is wrong (what to do).",
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    _common(p, output=False)
    p.add_argument("--strict", action="store_true", help="treat warnings as errors")
    p.add_argument("--explain", action="store_true",
                   help="also show each tier's oversubscription per plane (within the bound too) and every "
                   "shared-fate point (a NIC carrying several planes, one host running several IB planes' SMs)")

    p = sub.add_parser("render", help="render configs for every plane, device and server",
                       description="Resolve the inventory and render: build/plane-<P>/<device>/ per switch, "
                       "build/multi-plane/<device>/ for devices in several planes (one VRF per plane), "
                       "build/servers/<server>/ (per-NIC routing, NCCL env), build/resolved/ (the resolved model "
                       "as JSON and the cabling plan as CSV) and build/manifest.json.",
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    _common(p)
    p.add_argument("--check", action="store_true",
                   help="write nothing; exit 1 if the output folder differs from a fresh render (drift)")
    p.add_argument("--templates", type=Path, default=None, metavar="DIR", help="templates directory")

    p = sub.add_parser("verify", help="verify already rendered artifacts (the files that will be deployed)",
                       description="Check the files in the output folder, as they are now (hand edits included).\n\n"
                       "Each platform's files are parsed back into one vendor-neutral model (FRR by its own node rules, "
                       "so indentation does not matter; every line the model does not understand is reported with "
                       "FILE:LINE as an *-UNMODELLED warning). Then, per plane, a control-plane model computes which BGP "
                       "sessions come up and the RIB every switch ends with (policy: prefix-lists, access lists, "
                       "community-lists, AS-path filters judged on each route's path; loop prevention, multipath, "
                       "maximum-paths with the platform's default, network statements only with their route in the RIB, "
                       "redistribution through its route-map) "
                       "and compares it with the plan:\n"
                       "  ROUTE-*   every planned prefix on every switch of its plane at full ECMP width; undefined "
                       "references; dead statements; switches that do not forward (FRR `no ip forwarding`); static "
                       "routes that take a planned prefix away from BGP in the forwarding table; port access lists that drop RoCE\n"
                       "  ISO-*     nothing connects, peers, leaks or routes between planes (cables, subnets, bridges, "
                       "sessions, VRF leaks, computed propagation, server NIC routing)\n"
                       "  ADDR-* BGP-* ECMP-*   addressing, sessions (incl. BGP-SESSION-DOWN, receive limits: BGP-PREFIX-LIMIT;\n"
                       "                        statements bgpd refuses, e.g. a neighbor's line above its remote-as:\n"
                       "                        BGP-CONFIG-REFUSED; a session password written as a value:\n"
                       "                        BGP-SECRET; a device whose AS is not the plan's, kept up by\n"
                       "                        its peers: BGP-ASN-PLAN, a warning), ECMP settings\n"
                       "  QOS-* SYM-*           RoCE QoS (DSCP map, trust, PFC both ways, ECN, MTU, CNP, the RoCE class's\n"
                       "                        scheduler share, where unmarked traffic lands) and plane symmetry\n"
                       "  LINK-CONFIG           a port forced to another speed than its cable's plan, or two ends forcing\n"
                       "                        different FEC or autonegotiation (the link stays down)\n"
                       "  LINK-PORT-DOWN        a cabled switch port shut, kept down, a switchport or without its `auto`\n"
                       "                        line (a server port has no session to notice it)\n"
                       "  LINK-PLAN             the cabling plans the checks compare with are in the build\n"
                       "  HOST-*    NCCL env, sysctls and each NIC port's forwarding decision (simulated as the\n"
                       "            kernel installs ifupdown2's routes and rules: held to `ip route get`); the fabric\n"
                       "            interfaces file touches only the NIC ports, never the front-end (HOST-FOREIGN-PORT)\n"
                       "  MGMT-*    every switch keeps its management address, route, SSH/API and users, a local login\n"
                       "            when TACACS+ does not answer, and the planned TACACS+ servers (no lock-out);\n"
                       "            MGMT-SECRET: no credential written into a file as its value (`${secret:NAME}`);\n"
                       "            no account, password-less login or SSH key the plan does not name (MGMT-USER);\n"
                       "            no blackhole in the management VRF over a planned server (MGMT-SERVER-ROUTE)\n"
                       "  IB-*      partitions.conf/opensm.conf statically (incl. enforcement and each HCA port's P_Key\n"
                       "            table as opensm programs it), and with --ib (or when installed) on a simulated fabric\n"
                       "  CONSUMER-*  the real programs: FRR's parser on every frr.conf, ifupdown2 on every interfaces file\n\n"
                       "Every finding names its devices and plane, what is wrong and why it matters; the check table "
                       "is in docs/architecture.md. Exit 0: no error (warnings allowed); 1: an error; 2: bad arguments.",
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("-o", "--output", type=Path, default=Path("build"), metavar="DIR",
                   help="rendered output directory (default: build/)")
    p.add_argument("--json", action="store_true", help="print one JSON document on stdout")
    p.add_argument("--junit", type=Path, default=None, metavar="FILE", help="also write JUnit XML for CI")
    p.add_argument("--no-consumers", action="store_true",
                   help="skip the real-program checks (vtysh, ifupdown2); run only the model checks")
    p.add_argument("--batfish", metavar="HOST", default=None,
                   help="also ask a Batfish service the plane-isolation question suite (default: $BATFISH_HOST)")
    p.add_argument("--ib", action="store_true",
                   help="also run opensm once per IB plane on an ibsim fabric built from the cabling plan and "
                   "check the SM log, the subnet, every port's P_Key table and routing (default: when installed)")

    p = sub.add_parser("batfish-snapshot", help="export a Batfish snapshot of the rendered fabric",
                       description="Write the layout Batfish expects: configs/ (EOS as rendered, Cumulus as one "
                       "concatenated file per device), batfish/layer1_topology.json from the cabling plan, hosts/ "
                       "with one interface per GPU NIC port. One snapshot for the whole fabric, so paths between "
                       "planes are visible.", formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("-o", "--output", type=Path, default=Path("build"), metavar="DIR",
                   help="rendered output directory, as in every command (default: build/)")
    p.add_argument("--snapshot", type=Path, default=Path("build-batfish"), metavar="DIR",
                   help="snapshot folder to write: new, empty or an earlier snapshot (default: build-batfish/)")
    p.add_argument("--json", action="store_true", help="print one JSON document on stdout")

    p = sub.add_parser("twin", help="run the rendered fabric in network namespaces with real FRR (root)",
                       description="The emulated twin: one network namespace per switch (one per VRF for a "
                       "multi-plane device, since kernel VRF is unavailable here) and per GPU server, a veth pair "
                       "per cable named after the real ports, real FRR (zebra, bgpd, staticd) applying the rendered "
                       "frr.conf unchanged, ifupdown2 applying the rendered interfaces files unchanged, and sshd "
                       "on a management bridge. EOS devices run the FRR rendering of the same structured config "
                       "(build/twin-substitutes/). Needs root.\n\n"
                       "  up      build it from the output folder (cleans up a previous twin first)\n"
                       "  status  what is running\n"
                       "  check   sessions Established, ECMP width, server-pair reachability per plane, and no "
                       "reachability or routes between planes (real packets, kernel RIB)\n"
                       "  chaos   kill one spine, all spines of a plane, a leaf, while probes run on both planes; "
                       "report loss per plane and recovery time\n"
                       "  down    remove every namespace, daemon and bridge the twin made",
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("action", choices=["up", "status", "check", "chaos", "down"])
    p.add_argument("-o", "--output", type=Path, default=Path("build"), metavar="DIR",
                   help="rendered output directory (default: build/)")
    p.add_argument("--json", action="store_true", help="print one JSON document on stdout")
    p.add_argument("--junit", type=Path, default=None, metavar="FILE", help="check: also write JUnit XML")
    p.add_argument("--no-servers", action="store_true", help="up: switches only (no server namespaces)")
    p.add_argument("--fast-interfaces", action="store_true",
                   help="up: apply switch interfaces files through a strict translation to `ip -batch` instead of "
                   "ifupdown2 (for large twins; refuses attributes it does not know)")

    for name, helptext in (("plan", "show, per device and plane, what a deploy would change (changes nothing)"),
                           ("deploy", "roll the rendered configs out, one plane at a time, with rollback"),
                           ("upgrade", "roll a firmware image out, one plane at a time: drain, install, reboot, "
                            "verify the version, health gate")):
        p = sub.add_parser(name, help=helptext, description=helptext + ". Devices come from the rendered "
                           "manifest through the DualrailInventory nornir plugin; credentials from "
                           "DUALRAIL_SSH_USER/DUALRAIL_SSH_KEY/DUALRAIL_SSH_PASSWORD or DUALRAIL_SECRETS (a file "
                           "outside the repo); SSH host keys are verified (DUALRAIL_KNOWN_HOSTS or ~/.ssh/known_hosts)."
                           + (" The playbook sets plane order, canary, batches, concurrency, spine drains and "
                              "health gates; the journal (SQLite, or a shared PostgreSQL) records every step and backup, and "
                              "--resume RUN continues an interrupted run safely." if name == "deploy" else ""),
                           formatter_class=argparse.RawDescriptionHelpFormatter)
        _device_access(p, "rendered output directory (default: build/)")
        if name in ("deploy", "upgrade"):
            default_book = "playbooks/rolling-config.yaml" if name == "deploy" else "playbooks/firmware-upgrade.yaml"
            p.add_argument("--playbook", type=Path, default=Path(default_book), metavar="FILE")
            p.add_argument("-i", "--inventory", type=Path, default=Path("inventory"), metavar="DIR",
                           help="inventory the build must match (no drift; default: inventory/)")
            p.add_argument("--force", action="store_true",
                           help="deploy a build that is unverified, failed verification, changed since, or drifts "
                           "from the inventory (needs --reason; the journal records it)")
            p.add_argument("--reason", default=None, metavar="TEXT", help="why --force (recorded in the journal)")
            if name == "upgrade":
                p.add_argument("--image", default=None, help="image/version to install (overrides the playbook)")
            else:
                p.add_argument("--ib-planes", default=None, metavar="P1,P2",
                               help="--scope opensm: the IB planes, in this order (default: every IB plane of the build)")
                p.add_argument("--scope", choices=("planes", "gateways", "servers", "opensm"), default="planes",
                               help="planes (default): every plane's switches, one plane at a time; gateways: the "
                                    "multi-plane devices, one at a time and within each one plane's VRF at a time "
                                    "(that plane locked, its VRF drained, only its part of the change pushed, the "
                                    "other planes healthy throughout); a change to what the planes share is refused; "
                                    "servers: the servers with a management address, in batches (canary first), "
                                    "one plane's NIC ports at a time, gated on every port reaching its leaf; opensm: "
                                    "each IB plane's OpenSM files to its SM host (a server with a management "
                                    "address), one plane at a time: put in place, SIGHUP, wait for the sweep, read "
                                    "every HCA port's P_Key table back; on a difference the previous files return "
                                    "and the next plane is not touched")
            p.add_argument("--journal", default=os.environ.get("DUALRAIL_JOURNAL", ".dualrail/journal.sqlite"),
                           metavar="FILE|URL",
                           help="run journal and plane lock: a SQLite file (default: $DUALRAIL_JOURNAL, else "
                                ".dualrail/journal.sqlite) or a postgresql:// URL shared by every operator and CI runner")
            p.add_argument("--backups", type=Path, default=Path(".dualrail/backups"), metavar="DIR",
                           help="backup folder (never overwritten; default: .dualrail/backups)")
            p.add_argument("--resume", type=_positive_int, default=None, metavar="RUN", help="continue an interrupted run")
            p.add_argument("--junit", type=Path, default=None, metavar="FILE",
                           help="also write JUnit XML: one test case per device (its steps in the output)")
            p.add_argument("--events", default=None, metavar="FILE",
                           help="write every step as it happens, one JSON object per line (plane, batch, device, "
                                "step, status, done/total, ETA); '-' for stdout. At a terminal a live progress bar "
                                "per plane is shown as well")
        else:
            p.add_argument("--plane", default=None, help="only this plane ('multi-plane': the gateways)")

    p = sub.add_parser(
        "audit", help="the live fabric against the build: cabling (LLDP), firmware, drift, sessions",
        description="Ask every device of the build (through the nornir inventory, concurrently) what it sees and runs, "
        "and compare it with the build:\n"
        "  CABLE-MISSING / CABLE-MISWIRED / CABLE-CROSS-PLANE / CABLE-UNEXPECTED   LLDP neighbours against "
        "resolved/cabling.csv (a miswire names both ends as planned and as found; a cable between planes is "
        "critical)\n"
        "  LINK-DOWN / LINK-SPEED   planned ports down, or at another speed\n"
        "  FW-ASYMMETRIC / FW-NOT-PLANNED   the planes run different firmware per role; a switch off its plan\n"
        "  DRIFT-CONFIG   running files differ from the build (with the diff)\n"
        "  BGP-DOWN   configured sessions not established;  AUDIT-UNREACHABLE   a device did not answer\n"
        "  ECMP-LIVE-WIDTH / ROUTE-LIVE-MISSING   installed BGP routes against the plan's next hops, per plane "
        "(a gateway: in each plane's VRF)\n"
        "  QOS-LIVE-NIC / QOS-LIVE-PFC / QOS-LIVE-UNREADABLE   the QoS in force: a server's NIC settings (its "
        "installed dualrail-nic-qos --dry-run), a SONiC port's lossless priorities (show pfc priority)\n\n"
        "Credentials as for deploy (DUALRAIL_SSH_USER/DUALRAIL_SSH_KEY, DUALRAIL_KNOWN_HOSTS). One-shot by "
        "default (for a systemd timer or cron); --watch N repeats every N seconds. --metrics FILE writes "
        "OpenMetrics text for Prometheus' textfile collector. Exit 0: no error finding; 1: an error; 2: bad "
        "arguments.", formatter_class=argparse.RawDescriptionHelpFormatter)
    _device_access(p, "the build the fabric should run (default: build/)")
    p.add_argument("--junit", type=Path, default=None, metavar="FILE", help="also write JUnit XML (one case per check)")
    p.add_argument("--metrics", type=Path, default=None, metavar="FILE",
                   help="write the findings as OpenMetrics text (e.g. /var/lib/node_exporter/textfile/dualrail.prom)")
    p.add_argument("--watch", type=_positive_number, default=None, metavar="SECONDS",
                   help="audit again every SECONDS until interrupted (the exit code is the last audit's)")
    p.add_argument("--count", type=_positive_int, default=None, metavar="N", help="with --watch: stop after N audits")
    p.add_argument("--workers", type=_positive_int, default=16, metavar="N", help="devices asked at once (default 16)")
    p.add_argument("--ib", nargs="?", const="all", default=None, metavar="P1,P2",
                   help="also compare each InfiniBand plane (all, or those named) with its cabling plan: "
                        "ibnetdiscover on the plane's SM host (its standby's if it does not answer), reached "
                        "at the server's management address")

    p = sub.add_parser(
        "capacity", help="bandwidth per plane and tier, what-if failures, the dual-plane model; an HTML report",
        description="Read the inventory, resolve the fabric and report, from its cabling plan:\n"
        "  per plane: server bandwidth (per rail), every tier's down/up bandwidth and oversubscription (each tier "
        "is held to topology.max_oversubscription), bisection, and the fabric total;\n"
        "  what-if failures: per plane and rail the bandwidth left, the ECMP width left on every leaf, which "
        "servers lose which rails and whether any loses every plane;\n"
        "  the dual-plane model (docs/performance-model.md): all-to-all time, effective speed-up (PCIe-capped), "
        "iteration time and GPU-hours saved, job outage probability with one plane and with two.\n\n"
        "Failures: " + "a device name, plane:P, pod:P:N, or spines|leaves|super-spines:P:K (the first K of that "
        "role). Without --fail or --scenarios the standard set is shown (one spine, half the spines of a pod, one "
        "leaf, a super-spine and a pod in three tiers, a whole plane; for every plane).\n\n"
        "Examples:\n"
        "  dualrail capacity --html report.html\n"
        "  dualrail capacity --fail a-spine-1 --fail plane:B --json\n"
        "  dualrail capacity --json --min-plane-gbps 25600     # CI: fail a change that cuts a plane\n\n"
        "Exit 0: within every bound; 1: a tier above max_oversubscription or a --min-* guard not met; 2: bad input.",
        formatter_class=argparse.RawDescriptionHelpFormatter)
    _common(p, output=False)
    p.add_argument("--fail", action="append", default=[], metavar="FAILURE",
                   help="fail this (repeatable; all together form one scenario)")
    p.add_argument("--scenarios", type=Path, default=None, metavar="FILE",
                   help="YAML: scenarios: [{name: ..., fail: [...]}, ...]")
    p.add_argument("--model", type=Path, default=None, metavar="FILE",
                   help="YAML inputs of the performance model (message_bytes, overhead, pcie_efficiency, comm_share, "
                   "job_servers, job_days, mtbf_hours, mttr_hours; defaults in docs/performance-model.md)")
    p.add_argument("--html", type=Path, default=None, metavar="FILE",
                   help="write the self-contained HTML report (no network needed to view it)")
    p.add_argument("--min-plane-gbps", type=_positive_number, default=None, metavar="GBPS",
                   help="fail (exit 1) when a plane's server bandwidth is below GBPS")
    p.add_argument("--min-bisection-gbps", type=_positive_number, default=None, metavar="GBPS",
                   help="fail (exit 1) when a plane's bisection bandwidth is below GBPS")

    p = sub.add_parser("runs", help="list deploy runs, or show one", description="Read the run journal.")
    p.add_argument("run", nargs="?", type=_positive_int, help="run id to show in full")
    p.add_argument("--journal", default=os.environ.get("DUALRAIL_JOURNAL", ".dualrail/journal.sqlite"),
                   metavar="FILE|URL", help="a SQLite file or a postgresql:// URL (default: $DUALRAIL_JOURNAL)")
    p.add_argument("--json", action="store_true", help="print one JSON document on stdout")

    p = sub.add_parser("build", help="validate + render + every offline verification",
                       description="The main job: validate the inventory, render every artifact into the output "
                       "folder, then verify the rendered files with every offline check available on this machine. "
                       "Exit 1 when any step finds an error.",
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    _common(p)
    p.add_argument("--junit", type=Path, default=None, metavar="FILE", help="also write JUnit XML for CI")
    p.add_argument("--templates", type=Path, default=None, metavar="DIR", help="templates directory")
    return parser


# -- steps ---------------------------------------------------------------------------------------

def _load_and_validate(inventory: Path) -> tuple[LoadedInventory | None, list[Diagnostic]]:
    try:
        loaded = load_inventory(inventory)
    except InventoryError as exc:
        return None, exc.diagnostics
    return loaded, validate(loaded)


def _valid_inventory(ui: Ui, inventory: Path, warnings: bool = True) -> LoadedInventory | None:
    """The loaded inventory, or None after printing (and emitting as JSON) why it is not valid."""
    loaded, diags = _load_and_validate(inventory)
    errors = [d for d in diags if d.severity == Severity.ERROR]
    _print_diagnostics(ui, diags if warnings else errors)
    if loaded is None or errors:
        _emit(ui, {"ok": False, "diagnostics": [d.to_dict() for d in diags]})
        return None
    return loaded


def _print_diagnostics(ui: Ui, diags: list[Diagnostic]) -> None:
    for d in diags:
        style = "red" if d.severity == Severity.ERROR else "yellow"
        ui.print(f"[{style}]{escape(d.format())}[/]")


def _render(fabric: Fabric, templates: Path | None, ui: Ui) -> RenderResult:
    total = len(fabric.switches) + len(fabric.servers)
    if total < 500 or ui.as_json or not ui.out.is_terminal:
        return render_fabric(fabric, templates)
    columns = (TextColumn("rendering"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn())
    with Progress(*columns, console=ui.out, transient=True) as progress:
        task = progress.add_task("render", total=total)
        return render_fabric(fabric, templates, progress=lambda n: progress.advance(task, n))


def _emit(ui: Ui, doc: dict[str, Any]) -> None:
    if ui.as_json:
        sys.stdout.write(json.dumps(doc, indent=1) + "\n")


def cmd_validate(args: argparse.Namespace, ui: Ui) -> int:
    loaded, diags = _load_and_validate(args.inventory)
    errors = [d for d in diags if d.severity == Severity.ERROR or args.strict]
    _print_diagnostics(ui, diags)
    ok = not errors
    if ok and loaded is not None:
        inv = loaded.inventory
        ui.print(f"[green]inventory ok[/]: {inv.fabric.name}, planes {', '.join(inv.fabric.planes)}, "
                 f"{len(inv.servers.servers)} servers, {len(diags)} warning(s)")
    doc: dict[str, Any] = {"ok": ok, "diagnostics": [d.to_dict() for d in diags]}
    if args.explain and loaded is not None:
        from dualrail_net.sot.validate import shared_fate, tier_ratios
        bound = loaded.inventory.fabric.topology.max_oversubscription
        ratios = [r for plane in loaded.inventory.fabric.planes for r in tier_ratios(loaded, plane)]
        for r in ratios:
            ui.print(f"info: plane {r.plane}: {r.tier} oversubscription {r.ratio:.2f}:1 ({r.detail}; bound {bound:g})")
        fate = shared_fate(loaded)
        for line in fate:
            ui.print(f"info: shared fate: {escape(line)}")
        doc["oversubscription"] = [{"plane": r.plane, "tier": r.tier, "ratio": round(r.ratio, 6), "bound": bound}
                                   for r in ratios]
        doc["shared_fate"] = fate
    _emit(ui, doc)
    return EXIT_OK if ok else EXIT_FAIL


def cmd_render(args: argparse.Namespace, ui: Ui) -> int:
    loaded = _valid_inventory(ui, args.inventory)
    if loaded is None:
        return EXIT_FAIL
    started = time.monotonic()
    fabric = resolve_fabric(loaded.inventory)
    result = _render(fabric, args.templates, ui)
    if args.check:
        d = drift(result, args.output)
        for label, paths in (("changed", d.changed), ("missing", d.missing), ("extra", d.extra)):
            for path in paths:
                ui.print(f"[red]drift[/] {label}: {escape(str(args.output / path))}")
        if d.clean:
            ui.print(f"[green]no drift[/]: {args.output} matches the inventory ({len(result.artifacts)} files)")
        else:
            ui.print(f"[red]{args.output} differs from a fresh render[/]: run `dualrail render` and commit, "
                     "or find out who edited the rendered files")
        _emit(ui, {"ok": d.clean, "changed": d.changed, "missing": d.missing, "extra": d.extra})
        return EXIT_OK if d.clean else EXIT_FAIL
    report = write_render(result, args.output, protected=[args.inventory])
    ui.print(f"rendered {len(fabric.switches)} switches and {len(fabric.servers)} servers into "
             f"{escape(one_line(str(args.output)))}/ ({len(result.artifacts)} files, {report.written} changed, "
             f"{report.removed} removed) in {time.monotonic() - started:.2f}s")
    _note_foreign(ui, args.output, report.foreign)
    _emit(ui, {"ok": True, "output": str(args.output), "files": len(result.artifacts), "changed": report.written,
               "removed": report.removed, "foreign": report.foreign,
               "switches": len(fabric.switches), "servers": len(fabric.servers)})
    return EXIT_OK


def _note_foreign(ui: Ui, out: Path, foreign: int) -> None:
    if foreign:
        ui.print(f"[yellow]note[/]: {foreign} file(s) in {escape(one_line(str(out)))}/ were not written by dualrail "
                 "and were left alone (`dualrail render --check` lists them)")


def cmd_batfish_snapshot(args: argparse.Namespace, ui: Ui) -> int:
    from dualrail_net.verify.batfish.snapshot import export_snapshot
    try:
        Manifest.load(args.output)
    except ManifestError as exc:
        ui.print(f"[red]{escape(one_line(str(exc)))}[/]")
        _emit(ui, {"ok": False, "error": str(exc)})
        return EXIT_FAIL
    try:
        counts = export_snapshot(args.output, args.snapshot)
    except UnreadableFile as exc:  # (OutputRefused: main's handler, its exit code by the kind of refusal)
        ui.print(f"[red]{escape(one_line(str(exc)))}[/]")
        _emit(ui, {"ok": False, "error": str(exc)})
        return EXIT_FAIL
    configs = ", ".join(f"{n} {name}" for name, n in counts.items() if name not in ("hosts", "edges"))
    ui.print(f"Batfish snapshot in {escape(one_line(str(args.snapshot)))}/: configs {configs}, {counts['hosts']} "
             f"hosts, {counts['edges']} layer-1 edges")
    _emit(ui, {"ok": True, "output": str(args.output), "snapshot": str(args.snapshot), **counts})
    return EXIT_OK


def _stamp(ui: Ui, out: Path, results: list[CheckResult]) -> None:
    """Leave the verification stamp in the build (what deploy's gate reads)."""
    from dualrail_net.verify.stamp import StampError, write_stamp
    try:
        write_stamp(out, results)
    except (StampError, OutputRefused, OSError) as exc:
        ui.print(f"[yellow]note[/]: no verification stamp written ({escape(one_line(str(exc)))}); deploy will refuse "
                 "this build")


def _finish_verify(args: argparse.Namespace, ui: Ui, results: list[CheckResult], extra: dict[str, Any]) -> int:
    doc = results_to_dict(results)
    if not ui.as_json:
        print_results(results, ui.out)
    if getattr(args, "junit", None):
        write_junit(results, args.junit)
    doc.update(extra)
    _emit(ui, doc)
    ok = bool(doc["ok"])
    ui.print("[green]verification passed[/]" if ok else f"[red]verification failed[/]: {doc['errors']} error(s)")
    return EXIT_OK if ok else EXIT_FAIL


def cmd_verify(args: argparse.Namespace, ui: Ui) -> int:
    try:
        host = batfish_host(args.batfish)
        session = connect(host) if host else None  # fail fast, before the long local checks
        results = verify_folder(args.output, VerifyOptions(consumers=not args.no_consumers, ib_sim=args.ib or None,
                                                           batfish=session))
    except BatfishUnavailable as exc:
        ui.print(f"[red]{escape(str(exc))}[/]")
        _emit(ui, {"ok": False, "error": str(exc), "checks": []})
        return EXIT_FAIL
    except (SnapshotError, UnreadableFile) as exc:  # SnapshotError is ManifestError
        ui.print(f"[red]{escape(str(exc))}[/]")
        _emit(ui, {"ok": False, "error": str(exc), "checks": []})
        return EXIT_FAIL
    _stamp(ui, args.output, results)
    return _finish_verify(args, ui, results, {})


def cmd_build(args: argparse.Namespace, ui: Ui) -> int:
    loaded, diags = _load_and_validate(args.inventory)
    errors = [d for d in diags if d.severity == Severity.ERROR]
    _print_diagnostics(ui, diags)
    if loaded is None or errors:
        ui.print(f"[red]inventory has {len(errors)} error(s)[/]; nothing rendered")
        _emit(ui, {"ok": False, "diagnostics": [d.to_dict() for d in diags], "checks": []})
        return EXIT_FAIL
    started = time.monotonic()
    fabric = resolve_fabric(loaded.inventory)
    result = _render(fabric, args.templates, ui)
    report = write_render(result, args.output, protected=[args.inventory])
    ui.print(f"rendered {len(fabric.switches)} switches ({', '.join(fabric.planes)}) and {len(fabric.servers)} "
             f"servers into {escape(one_line(str(args.output)))}/ ({report.written} files changed, {report.removed} "
             f"removed) in {time.monotonic() - started:.2f}s")
    _note_foreign(ui, args.output, report.foreign)
    results = verify_folder(args.output)
    _stamp(ui, args.output, results)
    return _finish_verify(args, ui, results, {"diagnostics": [d.to_dict() for d in diags],
                                              "output": str(args.output), "files": len(result.artifacts)})


def cmd_twin(args: argparse.Namespace, ui: Ui) -> int:
    from dualrail_net.twin import lifecycle
    from dualrail_net.twin.shell import TwinError

    def say(message: str) -> None:
        ui.print(f"[dim]twin:[/] {escape(message)}")

    try:
        if args.action == "up":
            result = lifecycle.up(args.output, progress=say, servers=not args.no_servers,
                                  interfaces_mode="translate" if args.fast_interfaces else "ifupdown2")
            from dualrail_net.twin.checks import wait_converged
            result["converged_seconds"] = round(wait_converged(), 2)
            ui.print(f"[green]twin up[/]: {result['switch_namespaces']} switch and {result['server_namespaces']} "
                     f"server namespaces, {result['cables']} cables in {result['seconds']}s, converged "
                     f"{result['converged_seconds']}s later")
            if result.get("management"):
                m = result["management"]
                ui.print(f"ssh: ssh -i {m['identity']} -o UserKnownHostsFile={m['known_hosts']} root@<mgmt address>")
            _emit(ui, {"ok": True, **result})
            return EXIT_OK
        if args.action == "down":
            result = lifecycle.down(progress=say)
            ui.print(f"twin down: {result['namespaces_removed']} namespaces removed")
            _emit(ui, {"ok": True, **result})
            return EXIT_OK
        if args.action == "status":
            result = lifecycle.status()
            if not result["up"]:
                ui.print("no twin is running" + (f" (leftover namespaces: {len(result['namespaces'])})"
                                                  if result["namespaces"] else ""))
            else:
                dead = [ns for ns, d in result["daemons"].items() if not all(d.values()) or not d]
                ui.print(f"twin up from {result['output']}: {result['namespaces']} namespaces, "
                         f"{len(result['daemons']) - len(dead)}/{len(result['daemons'])} FRR instances alive")
                if result["substitutes"]:
                    ui.print(f"FRR substitutes for non-Linux platforms: {', '.join(result['substitutes'])}")
                if result["vrf_namespaces"]:
                    ui.print(f"VRFs emulated as namespaces: {', '.join(result['vrf_namespaces'])}")
            _emit(ui, {"ok": True, **result})
            return EXIT_OK
        if args.action == "check":
            from dualrail_net.twin.checks import run_twin_checks
            return _finish_verify(args, ui, run_twin_checks(), {})
        if args.action == "chaos":
            from dualrail_net.twin.chaos import run_chaos
            result = run_chaos(say=say)
            table = Table(title="Chaos: loss per plane")
            for col in ("phase", "recovery s", *[f"plane {p} loss %" for p in sorted(result["phases"][0]["loss"])]):
                table.add_column(col)
            for ph in result["phases"]:
                rec = "-" if ph["recovery_seconds"] is None else str(ph["recovery_seconds"])
                table.add_row(ph["phase"], rec, *[str(ph["loss"][p]["loss_pct"]) for p in sorted(ph["loss"])])
            if not ui.as_json:
                ui.out.print(table)
            _emit(ui, {"ok": True, **result})
            return EXIT_OK
    except TwinError as exc:
        ui.print(f"[red]twin: {escape(str(exc))}[/]")
        _emit(ui, {"ok": False, "error": str(exc)})
        return EXIT_FAIL
    return EXIT_USAGE


def _nornir(args: argparse.Namespace) -> Any:
    from dualrail_net.deploy.session import init_nornir
    from dualrail_net.twin.lifecycle import STATE_DIR
    twin_state = STATE_DIR / "state.json" if args.twin else None
    if twin_state is not None and not twin_state.exists():
        raise SystemExit("no twin is running: `dualrail twin up` first")
    return init_nornir(args.output, twin_state, args.insecure_no_host_key_check)


def cmd_plan(args: argparse.Namespace, ui: Ui) -> int:
    from dualrail_net.deploy.drivers import driver_for
    from dualrail_net.deploy.drivers.base import unified_diff
    from dualrail_net.deploy.session import connector
    nr = _nornir(args)
    connect = connector(nr)
    doc: dict[str, Any] = {"ok": True, "planes": {}}
    def group(host: Any) -> str:  # gateways and servers are changed in their own windows
        return "servers" if host.data.get("server") else str(host.data["plane"] or "multi-plane")
    for name, host in sorted(nr.inventory.hosts.items(), key=lambda kv: (group(kv[1]), kv[0])):
        if args.plane and group(host) != args.plane:
            continue
        drv = driver_for(host, connect(host))
        diff = unified_diff(drv.fetch(), drv.intended())
        doc["planes"].setdefault(group(host), {})[name] = diff
        ui.print(f"[bold]{'plane ' + host.data['plane'] if host.data['plane'] else group(host)} {name}[/]: "
                 + ("no change" if not diff else f"{diff.count(chr(10))} diff lines"))
        if diff and not ui.as_json:
            ui.out.print(escape(diff), highlight=False)
    nr.close_connections()
    _emit(ui, doc)
    return EXIT_OK


def _deploy_gate(args: argparse.Namespace) -> str | None:
    """Why this build may not be deployed (None: it may): it must carry a passing verification stamp
    for exactly these files, and match a fresh render of the inventory."""
    from dualrail_net.verify.stamp import StampError, check_stamp
    try:
        check_stamp(args.output)
    except (StampError, OutputRefused) as exc:
        return str(exc)
    loaded, diags = _load_and_validate(args.inventory)
    if loaded is None or any(d.severity == Severity.ERROR for d in diags):
        return f"the inventory {args.inventory} does not validate (`dualrail validate`)"
    d = drift(render_fabric(resolve_fabric(loaded.inventory)), args.output)
    stale = d.changed + d.missing
    if stale:
        return (f"{args.output} drifts from the inventory ({len(stale)} file(s), e.g. {stale[0]}): "
                "render, verify and commit it first")
    return None


def cmd_deploy(args: argparse.Namespace, ui: Ui) -> int:
    from dualrail_net.deploy.events import EventingJournal, LiveProgress, Sink, json_lines
    from dualrail_net.deploy.journal import open_journal
    from dualrail_net.deploy.playbook import load_playbook
    from dualrail_net.deploy.runner import Runner
    from dualrail_net.deploy.session import connector
    book = load_playbook(args.playbook)
    if getattr(args, "image", None):
        book = book.model_copy(update={"image": args.image})
    if args.command == "upgrade" and (book.kind != "firmware" or not book.image):
        ui.print("[red]upgrade needs a firmware playbook (kind: firmware) and an image (--image)[/]")
        return EXIT_USAGE
    if args.force and not (args.reason and args.reason.strip()):
        ui.print("[red]--force needs --reason TEXT (the journal records why the gate was overridden)[/]")
        return EXIT_USAGE
    refusal = _deploy_gate(args)
    if refusal and not args.force:
        ui.print(f"[red]{escape(one_line(f'{args.command}: refused: {refusal}'))}[/] (nothing was changed; "
                 "--force --reason TEXT overrides)")
        _emit(ui, {"ok": False, "error": refusal})
        return EXIT_FAIL
    scope = getattr(args, "scope", "planes")
    if scope == "opensm":
        return _deploy_opensm(args, ui, book.name, forced=(f"gate overridden ({refusal}): {args.reason}"
                                                           if refusal else None))
    nr = _nornir(args)
    hosts = dict(nr.inventory.hosts)
    if scope == "servers":
        per_plane = {plane: sum(1 for h in hosts.values() if h.data.get("server") and plane in h.data.get("planes", []))
                     for plane in book.planes}
    elif scope == "gateways":  # one stage per plane a gateway serves
        per_plane = {plane: sum(1 for h in hosts.values() if h.data.get("plane") is None and plane in h.data.get("vrfs", {}))
                     for plane in book.planes}
    else:
        per_plane = {plane: sum(1 for h in hosts.values() if h.data.get("plane") == plane and h.data.get("role") in book.roles)
                     for plane in book.planes}
    sinks: list[Sink] = []
    events_file = None
    if args.events:
        events_file = sys.stdout if args.events == "-" else open(args.events, "a", encoding="utf-8")
        sinks.append(json_lines(events_file))
    live = LiveProgress(ui.out, per_plane) if ui.out.is_terminal and not ui.as_json else None
    if live is not None:
        sinks.append(live)
    journal = EventingJournal(open_journal(args.journal), sinks, total=sum(per_plane.values()))
    runner = Runner(hosts, connector(nr), journal, book, args.backups,  # type: ignore[arg-type]
                    say=lambda m: ui.print(f"[dim]deploy:[/] {escape(m)}"), scope=scope)
    forced = f"gate overridden ({refusal}): {args.reason}" if refusal else None
    try:
        if live is not None:
            with live:
                report = runner.run(str(args.output), resume=args.resume, note=forced)
        else:
            report = runner.run(str(args.output), resume=args.resume, note=forced)
    finally:
        if events_file is not None and events_file is not sys.stdout:
            events_file.close()
    nr.close_connections()
    if args.junit:
        _deploy_junit(open_journal(args.journal).run(report.run_id), args.junit)
    ok = report.status == "ok"
    ui.print(("[green]run %d ok[/]" if ok else "[red]run %d failed[/]") % report.run_id
             + f": planes done {report.planes_done or '-'} in {report.seconds:.1f}s" + (f"; {escape(report.detail)}"
                                                                                      if report.detail else ""))
    _emit(ui, {"ok": ok, "run": report.run_id, "status": report.status, "planes_done": report.planes_done,
               "failed_batch": report.failed_batch, "detail": report.detail, "seconds": round(report.seconds, 2),
               "device_seconds": {k: round(v, 2) for k, v in report.device_seconds.items()}})
    return EXIT_OK if ok else EXIT_FAIL


def _deploy_opensm(args: argparse.Namespace, ui: Ui, playbook: str, forced: str | None) -> int:
    """``deploy --scope opensm``: every IB plane's SM host over SSH (deploy/opensm.py)."""
    from dualrail_net.deploy.journal import open_journal
    from dualrail_net.deploy.opensm import SmHostUnknown, SshSmHost, deploy_opensm, sm_addresses, standby_addresses
    from dualrail_net.deploy.session import connector
    if args.twin:
        ui.print("[red]the twin runs no subnet manager: OpenSM deploys are rehearsed on ibsim "
                 "(`dualrail ib check`, tests/test_opensm_deploy.py)[/]")
        return EXIT_USAGE
    manifest = Manifest.load(args.output)
    planes = [p for p in (args.ib_planes.split(",") if args.ib_planes else list(manifest.ib_planes)) if p]
    try:
        addresses = sm_addresses(manifest, planes)
        standby_at = standby_addresses(manifest, planes)
    except SmHostUnknown as exc:
        ui.print(f"[red]{escape(one_line(f'deploy: {exc}'))}[/]")
        _emit(ui, {"ok": False, "error": str(exc)})
        return EXIT_FAIL
    nr = _nornir(args)
    connect = connector(nr)
    journal = open_journal(args.journal)
    run_id = journal.start_run("opensm", playbook, str(args.output))
    if forced:
        journal.finish(journal.step(run_id, "-", -1, "*", "gate"), "forced", forced)
    try:
        hosts = {plane: SshSmHost(server, connect(nr.inventory.hosts[server]), manifest.ib_planes[plane])
                 for plane, (server, _address) in addresses.items()}
        standbys = {plane: SshSmHost(server, connect(nr.inventory.hosts[server]), manifest.ib_planes[plane])
                    for plane, (server, _address) in standby_at.items()}
        results = deploy_opensm(args.output, hosts, planes, say=lambda m: ui.print(f"[dim]deploy:[/] {escape(m)}"),
                                journal=journal, run_id=run_id, standbys=standbys)
    except Exception as exc:  # an unreachable SM host: the run fails, the journal says why
        journal.end_run(run_id, "failed", f"{type(exc).__name__}: {exc}")
        nr.close_connections()
        ui.print(f"[red]{escape(one_line(f'run {run_id} failed: {exc}'))}[/]")
        _emit(ui, {"ok": False, "run": run_id, "error": str(exc)})
        return EXIT_FAIL
    nr.close_connections()
    ok = all(r.status != "failed" for r in results) and len(results) == len(planes)
    journal.end_run(run_id, "ok" if ok else "failed", "; ".join(f"{r.plane}: {r.status}" for r in results))
    for r in results:
        ui.print(f"IB plane {r.plane}: {r.status} ({escape(r.detail)})")
    _emit(ui, {"ok": ok, "run": run_id, "planes": [{"plane": r.plane, "status": r.status, "detail": r.detail,
                                                     "seconds": round(r.seconds, 2)} for r in results]})
    return EXIT_OK if ok else EXIT_FAIL


def cmd_capacity(args: argparse.Namespace, ui: Ui) -> int:
    from dualrail_net.capacity.failures import FailureSpecError, Scenario
    from dualrail_net.capacity.inputs import CapacityInputError, load_model_inputs, load_scenarios
    from dualrail_net.capacity.report import SIGNATURE, html_report
    from dualrail_net.capacity.run import capacity_report, to_json
    from dualrail_net.outdir import ReportFileError, write_report

    loaded = _valid_inventory(ui, args.inventory, warnings=False)
    if loaded is None:
        return EXIT_USAGE
    fabric = resolve_fabric(loaded.inventory)
    try:
        inputs = load_model_inputs(args.model) if args.model else None
        scenarios = load_scenarios(args.scenarios, fabric) if args.scenarios else None
        if args.fail:
            from dualrail_net.capacity.failures import expand_failure
            for spec in args.fail:
                expand_failure(fabric, spec)
            scenarios = (scenarios or []) + [Scenario(" + ".join(args.fail), tuple(args.fail))]
    except CapacityInputError as exc:
        _print_diagnostics(ui, exc.diagnostics)
        _emit(ui, {"ok": False, "diagnostics": [d.to_dict() for d in exc.diagnostics]})
        return EXIT_USAGE
    except FailureSpecError as exc:
        ui.print(f"[red]{escape(one_line(f'capacity: error: --fail {exc}'))}[/]")
        _emit(ui, {"ok": False, "error": f"--fail {exc}"})
        return EXIT_USAGE
    report = capacity_report(loaded.inventory, fabric, inputs, scenarios, args.min_plane_gbps,
                             args.min_bisection_gbps)
    if args.html:
        try:
            write_report(args.html, html_report(report, fabric), SIGNATURE)
        except (ReportFileError, OSError) as exc:
            ui.print(f"[red]{escape(one_line(f'capacity: error: {exc}'))}[/]")
            return EXIT_USAGE
    _print_capacity(ui, report)
    if args.html:
        ui.print(f"report written to {escape(one_line(str(args.html)))}")
    _emit(ui, to_json(report))
    return EXIT_OK if report.ok else EXIT_FAIL


def _print_capacity(ui: Ui, report: Any) -> None:
    f = report.figures
    for p in f.planes:
        tiers = ", ".join(f"{t.tier} {t.worst_oversubscription:.2f}:1" for t in p.tiers
                          if t.worst_oversubscription is not None)
        ui.print(f"plane {p.plane}: {p.servers} servers, {p.server_gbps / 1000:,.1f} Tbit/s into the plane, "
                 f"bisection {p.bisection_gbps / 1000:,.1f} Tbit/s; oversubscription {tiers or 'none'}")
    for o in f.over_bound[:20]:
        ui.print(f"[red]error: {escape(o.describe())}[/]")
    for i in report.impacts:
        planes = "; ".join(f"{p} {x.fabric_pct:.0f}% left, ECMP {x.min_ecmp}/{x.healthy_ecmp}"
                           for p, x in i.planes.items())
        both = f", [red]{len(i.lost_both)} servers lose every plane[/]" if i.lost_both else ""
        ui.print(f"if {escape(one_line(i.scenario.name))}: {planes}; {i.servers_losing_a_rail} servers lose a rail{both}")
    m = report.model
    line = (f"model: all-to-all {m.single_seconds:.3f} s on one plane, {m.dual_seconds:.3f} s on two "
            f"(x{m.speedup:.2f}); iteration time {m.job.iteration_change_pct:+.1f}%" if m.single_seconds < float("inf")
            else "model: no server bandwidth to model")
    if m.availability:
        a = m.availability
        line += (f"; job outage over {a.job_hours / 24:g} days {100 * a.single_outage_probability:.2f}% -> "
                 f"{100 * a.dual_outage_probability:.2f}%")
    ui.print(line)
    for g in report.guards:
        if not g.ok:
            ui.print(f"[red]error: {g.where}: {g.name} {g.bound:g} not met ({g.value:g})[/]")


def cmd_audit(args: argparse.Namespace, ui: Ui) -> int:
    from dualrail_net.audit.collect import collect
    from dualrail_net.audit.metrics import openmetrics, write_metrics
    from dualrail_net.audit.run import as_results, audit_findings, coverage
    from dualrail_net.deploy.session import connector
    try:
        manifest = Manifest.load(args.output)
    except ManifestError as exc:
        ui.print(f"[red]{escape(one_line(str(exc)))}[/]")
        _emit(ui, {"ok": False, "error": str(exc), "checks": []})
        return EXIT_FAIL
    if args.ib not in (None, "all"):
        unknown = [p for p in args.ib.split(",") if p and p not in manifest.ib_planes]
        if unknown or not args.ib.strip(","):
            ui.print(f"[red]--ib: no IB plane {escape(', '.join(unknown) or repr(args.ib))} in the build (planes: "
                     f"{escape(', '.join(manifest.ib_planes) or 'none')})[/]")
            return EXIT_USAGE
    rounds = 0
    while True:
        started = time.monotonic()
        nr = _nornir(args)
        total = len(nr.inventory.hosts)
        live = None
        if ui.out.is_terminal and not ui.as_json:
            from rich.progress import Progress
            live = Progress(transient=True, console=ui.out)
        try:
            if live is not None:
                with live:
                    task = live.add_task("asking the devices", total=total)
                    reports = collect(nr, connector(nr), args.workers, progress=lambda n: live.advance(task, n))
            else:
                reports = collect(nr, connector(nr), args.workers)
            ib_texts, ib_missing = ({}, []) if args.ib is None else _discover_ib(args, manifest, nr)
        finally:
            nr.close_connections()
        findings = audit_findings(args.output, manifest, reports, ib_texts) + ib_missing
        seconds = time.monotonic() - started
        results = as_results(findings, seconds, coverage(reports))
        if args.metrics:
            write_metrics(args.metrics, openmetrics(findings, len(reports), seconds))
        doc = results_to_dict(results)
        doc.update({"devices": len(reports), "seconds": round(seconds, 2)})
        if not ui.as_json:
            print_results([r for r in results if r.findings], ui.out)
            for r in results:  # what could not be read is said, not taken for nothing found
                if r.skipped:
                    ui.print(f"[yellow]{r.check}: not run: {escape(r.skipped)}[/]")
        if args.junit:
            write_junit(results, args.junit, suite="dualrail-audit")
        _emit(ui, doc)
        ok = bool(doc["ok"])
        ui.print((f"[green]audit: {len(reports)} devices as built[/]" if ok else
                  f"[red]audit: {doc['errors']} error(s)[/] on {len(reports)} devices") + f" in {seconds:.1f}s")
        rounds += 1
        if args.watch is None or (args.count is not None and rounds >= args.count):
            return EXIT_OK if ok else EXIT_FAIL
        time.sleep(args.watch)


def _discover_ib(args: argparse.Namespace, manifest: Manifest, nr: Any) -> tuple[dict[str, str], list[Any]]:
    """``audit --ib``: ibnetdiscover per IB plane on its SM host (audit/ib.py)."""
    from dualrail_net.audit.ib import discover_ib
    from dualrail_net.deploy.session import connector
    planes = list(manifest.ib_planes) if args.ib == "all" else [p for p in args.ib.split(",") if p]
    connect = connector(nr)

    def open_host(server: str) -> Any:
        host = nr.inventory.hosts.get(server)
        if host is None:
            raise LookupError(f"{server} has no management address (servers.yaml mgmt_address)")
        return connect(host)
    return discover_ib(manifest, planes, open_host)


def _deploy_junit(run: dict[str, Any], path: Path) -> None:
    """One test case per device: failed at its first failed step, its steps as output."""
    by_device: dict[str, list[dict[str, Any]]] = {}
    for step in run["steps"]:
        by_device.setdefault(step["device"], []).append(step)
    cases = []
    for device, steps in by_device.items():
        failed = [x for x in steps if x["status"] == "failed"]
        failure = f"{failed[0]['step']}: {failed[0]['detail'][:300]}" if failed else None
        cases.append(Case(f"plane_{steps[0]['plane']}", device, 0.0, failure,
                          "\n".join(f"{x['step']}: {x['status']}" for x in steps)))
    write_junit_cases(cases, path, f"dualrail-deploy-run-{run['id']}")


def cmd_runs(args: argparse.Namespace, ui: Ui) -> int:
    from dualrail_net.deploy.journal import journal_label, open_journal
    journal = open_journal(args.journal)
    if args.run is None:
        runs = journal.runs()
        table = Table(title=f"Runs in {journal_label(args.journal)}")
        for col in ("run", "kind", "playbook", "status", "started", "detail"):
            table.add_column(col)
        for r in runs:
            table.add_row(str(r["id"]), r["kind"], r["playbook"], r["status"], time.strftime(
                "%Y-%m-%d %H:%M:%S", time.localtime(r["started"])), escape(r["detail"] or ""))
        if not ui.as_json:
            ui.out.print(table)
        _emit(ui, {"ok": True, "runs": runs})
        return EXIT_OK
    try:
        run = journal.run(args.run)
    except KeyError:
        known = [r["id"] for r in journal.runs()]
        held = f"it holds runs {min(known)}-{max(known)}" if known else "it holds no run yet"
        ui.print(f"[red]{escape(one_line(f'{journal_label(args.journal)}: error: no run {args.run} ({held})'))}[/]")
        _emit(ui, {"ok": False, "error": f"no run {args.run}"})
        return EXIT_FAIL
    if not ui.as_json:
        table = Table(title=f"Run {args.run}: {run['status']}")
        for col in ("plane", "batch", "device", "step", "status", "seconds", "backup"):
            table.add_column(col)
        for s in run["steps"]:
            secs = f"{s['ended'] - s['started']:.1f}" if s["ended"] else "-"
            table.add_row(s["plane"], str(s["batch"]), s["device"], s["step"], s["status"], secs, s["backup"] or "")
        ui.out.print(table)
    _emit(ui, {"ok": True, **run})
    return EXIT_OK


COMMANDS: dict[str, Callable[[argparse.Namespace, Ui], int]] = {
    "validate": cmd_validate, "render": cmd_render, "verify": cmd_verify, "build": cmd_build, "twin": cmd_twin,
    "batfish-snapshot": cmd_batfish_snapshot, "plan": cmd_plan, "deploy": cmd_deploy, "upgrade": cmd_deploy, "runs": cmd_runs, "audit": cmd_audit,
    "capacity": cmd_capacity,
}


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if not os.environ.get("DUALRAIL_DEBUG"):
        _quiet_libraries()
    ui = Ui(args.json)
    try:
        return COMMANDS[args.command](args, ui)
    except KeyboardInterrupt:
        ui.print("[red]interrupted[/]")
        return 130
    except OutputRefused as exc:
        ui.print(f"[red]{escape(one_line(f'{args.command}: error: {exc}'))}[/]")
        _emit(ui, {"ok": False, "error": str(exc)})
        return EXIT_USAGE if exc.usage else EXIT_FAIL
    except (CredentialError, PlaybookError, TwinStateError, ManifestError, JournalUnusable) as exc:
        for line in str(exc).splitlines() or [type(exc).__name__]:
            ui.print(f"[red]{escape(one_line(line))}[/]")
        _emit(ui, {"ok": False, "error": str(exc)})
        return EXIT_FAIL
    except UnsafeValue as exc:
        # the schema keeps unsafe text out; this is the renderer refusing what slipped past it
        ui.print(f"[red]{escape(one_line(f'{args.command}: error: refused to render: {exc}'))}[/]")
        _emit(ui, {"ok": False, "error": str(exc)})
        return EXIT_FAIL
    except OSError as exc:  # a file or folder the user named cannot be read or written
        where = f" {exc.filename!r}" if exc.filename else ""
        ui.print(f"[red]{escape(one_line(f'{args.command}: error:{where} {exc.strerror or exc}'))}[/]")
        _emit(ui, {"ok": False, "error": str(exc)})
        return EXIT_FAIL
    except Exception as exc:  # noqa: BLE001 - the last line of defence: one line, a distinct code
        if os.environ.get("DUALRAIL_DEBUG"):
            raise
        ui.print(f"[red]{escape(one_line(f'{args.command}: internal error: {type(exc).__name__}: {exc}'))}[/] "
                 "(a bug in dualrail; DUALRAIL_DEBUG=1 shows the traceback)")
        _emit(ui, {"ok": False, "error": f"internal error: {type(exc).__name__}"})
        return EXIT_INTERNAL


if __name__ == "__main__":
    sys.exit(main())
