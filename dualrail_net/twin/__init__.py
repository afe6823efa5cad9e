"""The emulated twin: the rendered Ethernet planes running on this machine with real FRR daemons
in network namespaces, real kernel forwarding and real packets (after FRR's topotests and
Microsoft's CrystalNet). Reads only the rendered output folder."""
