"""Stage 1: the source of truth (inventory YAML), its schema and its validation."""

from dualrail_net.sot.diagnostics import Diagnostic, Severity
from dualrail_net.sot.load import InventoryError, load_inventory
from dualrail_net.sot.schema import Inventory

__all__ = ["Diagnostic", "Severity", "Inventory", "InventoryError", "load_inventory"]
