"""Stage 3: resolved fabric -> structured config per device -> text per platform (Jinja2).

Split as in pyavd: ``structured`` decides every value (all arithmetic happens there), the
templates under ``templates/<platform>/`` only lay the values out in the platform's syntax.
"""

from dualrail_net.render.artifacts import Artifact, RenderResult
from dualrail_net.render.pipeline import render_fabric

__all__ = ["Artifact", "RenderResult", "render_fabric"]
