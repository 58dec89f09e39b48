"""graft.Grafter: the Python face of graft's C++ grafter."""

import os

import torch

from graft import _graft
from graft._graft import ConfigError
from graft._transforms import load_python_transform


def _local_rank_and_size(rank, world_size):
    """This process's rank and world size on its own side.

    Explicit values win; then an initialised torch.distributed default group
    (the reference's source); then RANK/WORLD_SIZE (torchrun's); else 0 of 1.
    """
    if rank is not None and world_size is not None:
        return rank, world_size
    if torch.distributed.is_available() and torch.distributed.is_initialized():
        found = torch.distributed.get_rank(), torch.distributed.get_world_size()
    else:
        found = _graft.side_rank_from_env()
    return (found[0] if rank is None else rank), (found[1] if world_size is None else world_size)


def _event_sink(events):
    if events is None:
        return None
    if callable(events):
        return events
    if isinstance(events, (str, os.PathLike)):
        return os.fspath(events)
    raise TypeError(
        f"events: expected a path (str or os.PathLike) or a callable taking one event dict, "
        f"got {type(events).__name__}")


class Grafter:
    """Called at every dump point; sends, receives or does nothing by the tags.

    Grafter(config=None, *, events=None, rank=None, world_size=None, **settings)

    config and settings hold the grafter's settings under the names of
    DUMPER_GRAFTER_* without the prefix, in lower case (role, b2t_filter,
    master_port, transform_path, ...; "grafter_" in front is allowed). A
    setting given as None keeps its default. A grafter made this way is enabled
    unless enable=False is given; Grafter.from_env() reads DUMPER_GRAFTER_ENABLE
    like every other setting. An invalid setting raises ConfigError naming it.

    events: a path (events are appended as JSON lines), a callable (called
    with one dict per event), or None (one readable line per event on stderr).
    The events_path setting (DUMPER_GRAFTER_EVENTS_PATH, with {role}, {rank},
    {graft_rank} and {pid} filled in) gets them as JSON lines as well.

    rank, world_size: this process's place on its side; by default from
    torch.distributed's default group when it is initialised, else RANK and
    WORLD_SIZE, else 0 of 1.

    maybe_intercept never raises and never leaves a tensor half-written: on
    any failure the tensor is unchanged bit for bit and an event says why.
    The GIL is released while the grafter exchanges and measures.
    """

    def __init__(self, config=None, *, events=None, rank=None, world_size=None, **settings):
        merged = {}
        for source in (config or {}), settings:
            if not isinstance(source, dict):
                raise TypeError(f"config: expected a dict of settings, got {type(source).__name__}")
            for key, value in source.items():
                if key in merged:
                    raise ConfigError(f"grafter config: '{key}' is given twice (in config and as a keyword)")
                merged[key] = value
        merged = {key: value for key, value in merged.items() if value is not None}
        if not any(key in merged for key in ("enable", "grafter_enable")):
            merged["enable"] = True
        self._native = _graft.NativeGrafter(
            merged, *_local_rank_and_size(rank, world_size), _event_sink(events), load_python_transform)

    @classmethod
    def from_env(cls, *, events=None, rank=None, world_size=None):
        """The grafter DUMPER_GRAFTER_* describes (disabled unless DUMPER_GRAFTER_ENABLE is true)."""
        grafter = cls.__new__(cls)
        grafter._native = _graft.NativeGrafter.from_env(
            *_local_rank_and_size(rank, world_size), _event_sink(events), load_python_transform)
        return grafter

    @property
    def enabled(self):
        """False when disabled by config, or after the grafter turned itself off (a broken group)."""
        return self._native.active

    @property
    def matched_calls(self):
        """The number of calls whose tags matched a filter so far."""
        return self._native.matched_calls

    def maybe_intercept(self, value, name=None, *, extras=None, **tags):
        """A dump point: value with its tags (name=..., then any others).

        A tensor that receives is overwritten in place; a sender's extras (a
        JSON-like dict) travel to the receivers' transforms. A value that is not
        a tensor takes part as absent (see maybe_intercept_non_tensor).
        """
        if not self._native.active:
            return
        if name is not None:
            tags = {"name": name, **tags}
        if isinstance(value, torch.Tensor):
            self._native.intercept(value, tags, extras)
        else:
            self._native.intercept_non_tensor(type(value).__name__, tags)

    def maybe_intercept_non_tensor(self, value, name=None, **tags):
        """A dump point whose value is not a tensor: on a matched name this rank
        still takes part in the exchange, as absent, so that no peer waits."""
        if not self._native.active:
            return
        if name is not None:
            tags = {"name": name, **tags}
        type_name = value if isinstance(value, str) else type(value).__name__
        self._native.intercept_non_tensor(type_name, tags)

