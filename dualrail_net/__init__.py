"""dualrail-net: source of truth -> resolved fabric -> rendered artifacts -> verification -> deployment.

Each pipeline stage is a subpackage; data flows one way through them:
``sot`` (inventory YAML, schema, validation) -> ``resolve`` (deterministic fabric model)
-> ``render`` (structured config, then text per platform) -> ``verify`` (checks on the rendered files).
"""

__version__ = "0.1.0"
