"""A transform module whose import fails."""

raise RuntimeError("intentional import failure")
