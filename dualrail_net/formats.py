"""The formats dualrail writes files in. Each has its own escaping rule (``render/escape.py``); a
platform declares the format of every file it renders (``platforms.base.OutputFile``)."""

from __future__ import annotations

import enum


class OutputFormat(str, enum.Enum):
    FRR = "frr"  # FRR integrated config (vtysh)
    IFUPDOWN = "ifupdown"  # /etc/network/interfaces (ifupdown2)
    EOS = "eos"  # Arista EOS CLI
    SWITCHD = "switchd"  # Cumulus switchd key = value files
    OPENSM = "opensm"  # opensm.conf, partitions.conf, GUID lists
    SHELL = "shell"  # KEY=VALUE files a shell sources
    SYSCTL = "sysctl"  # sysctl.d
    SERVICE = "service"  # line-oriented Linux service files (ntp.conf, rsyslog, resolv.conf)
    XML = "xml"  # machine-read XML (NCCL's topology): tokens in quoted attributes
    HTML = "html"  # reports people read (capacity): every printed value is HTML-escaped text
    JSON = "json"  # machine-read JSON (SONiC's config_db.json): tokens inside double-quoted strings
    YAML = "yaml"  # machine-read YAML (NVUE's startup.yaml): tokens inside double-quoted scalars, numbers bare
