"""graft from Python: transplant tensors between a baseline and a target system.

    import graft
    grafter = graft.Grafter.from_env()          # DUMPER_GRAFTER_* and RANK/WORLD_SIZE
    grafter.maybe_intercept(hidden, name="attn_output", layer_id=3)

The grafter is graft's C++ one (the same wire protocol, events and guarantees as
graft_client and every C++ host): a rank of a Python program and a rank of a C++
program are peers in one graft world. graft does not speak the Python
reference's pickled protocol, so every rank of a world runs graft.
"""

import torch  # first: the extension links the libtorch this torch loaded

from graft._events import read_events
from graft._grafter import Grafter
from graft._graft import ConfigError, GraftError, __version__, torch_version
from graft._transforms import GraftInput, GraftTransformInput

__all__ = [
    "ConfigError",
    "GraftError",
    "GraftInput",
    "GraftTransformInput",
    "Grafter",
    "read_events",
    "torch_version",
    "__version__",
]
