"""InfiniBand verification: a static check of partitions.conf (our own parser of the OpenSM
grammar) and a run of the real opensm against an ibsim fabric built from the IB cabling plan."""
