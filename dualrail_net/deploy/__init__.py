"""Stage 5: rolling deployment one plane at a time (nornir + netmiko), with a SQLite run journal."""
