"""The HTTP face: liveness, readiness, metrics, the webhooks' routes and the `/ui` inspector.

`http` is the aiohttp app; `ui`, `ui_view` and `ui_plot` are the memory inspector, rendered
from `templates/`.
"""
