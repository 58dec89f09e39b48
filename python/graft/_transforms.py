"""Python transforms named by a dotted path, pkg.module.symbol (the reference's form)."""

import dataclasses
import importlib
from typing import Any, Dict, List, Optional

import torch


@dataclasses.dataclass(frozen=True)
class GraftInput:
    """What a transform sees; it returns the tensor to write into target.

    The first four fields are the reference's GraftTransformInput, so a
    transform written for the reference runs unchanged.
    """

    tags: Dict[str, Any]
    received_list: List[torch.Tensor]  # one per sender, sender-rank order, on target's device
    received_extras_list: List[Optional[Dict[str, Any]]]  # one per sender; None when omitted
    target: torch.Tensor  # read-only: a transform that writes it has its graft skipped
    direction: str  # "b2t" or "t2b"
    recv_rank: int  # this receiver's rank on its side
    recv_world_size: int  # receivers on this side
    sender_ranks: List[int]  # the senders' ranks on their side


GraftTransformInput = GraftInput  # the reference's name


class TransformLoadError(Exception):
    """Why a dotted path is no transform; kind is one of the plugin load kinds."""

    def __init__(self, kind, message):
        super().__init__(message)
        self.kind = kind


def load_python_transform(path):
    """The callable pkg.module.symbol names; raises TransformLoadError.

    Called once per grafter, by the grafter, for a dotted transform_path.
    """
    module_path, _, attribute = path.rpartition(".")
    try:
        module = importlib.import_module(module_path)
    except ModuleNotFoundError as e:
        raise TransformLoadError(
            "library_not_found",
            f"transform '{path}': no module '{module_path}' ({e}); put its folder on PYTHONPATH "
            f"or install it") from None
    except Exception as e:
        raise TransformLoadError(
            "library_not_found",
            f"transform '{path}': importing '{module_path}' raised {type(e).__name__}: {e}") from None
    if not hasattr(module, attribute):
        raise TransformLoadError(
            "symbol_not_found",
            f"transform '{path}': module '{module_path}' ({getattr(module, '__file__', '?')}) has no "
            f"'{attribute}'")
    function = getattr(module, attribute)
    if not callable(function):
        raise TransformLoadError(
            "not_a_transform",
            f"transform '{path}': '{attribute}' is a {type(function).__name__}, not a callable; a "
            f"transform is a function transform(graft_input) -> Tensor")
    return function
