"""Stage 4: verification of the *rendered artifacts* (what will be deployed), never the intent.

Inputs are the output folder of ``render``: device files, ``manifest.json`` and the cabling plan.
"""
