"""Stage 6: the live fabric against the plan (``dualrail audit``).

``neighbors.py`` reads what each device's LLDP agent (or an IB subnet's ``ibnetdiscover``) says is
at the other end of each port; ``cabling.py`` compares those with the cabling plan; ``state.py``
compares running firmware, configs and sessions with the build; ``collect.py`` gathers it all
through the nornir inventory (the twin included); ``metrics.py`` writes OpenMetrics text.
Findings are verify's (``verify/findings.py``), so every report format is shared."""
