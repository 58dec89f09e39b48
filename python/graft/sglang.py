"""graft under sglang's dumper: every dumper.dump(...) grafts through graft.

sglang's model code calls dumper.dump(name, value, grafter_extras=..., **tags),
and sglang's dumper hands each call to its grafter. Installed here, graft's
grafter takes that place: the dumper keeps everything else (DUMPER_ENABLE,
DUMPER_FILTER, its tags, its files), and the call grafts with graft's wire
protocol, events and guarantees.

Two ways in:
- GRAFT_SGLANG=1 on the launch: graft's startup hook (graft-sglang.pth,
  installed with the package) runs in every Python process of the launch,
  spawned ones included, and installs graft when sglang's dumper is imported;
- graft.sglang.install() in code that imports the dumper itself.

Settings are the dumper's: its DumperConfig's grafter_* fields (read from
DUMPER_GRAFTER_* as sglang reads them, sglang's defaults included), plus
graft's own DUMPER_GRAFTER_* settings from the environment (compare_filter,
measure, events_path, world_token). Both sides of a world must run graft.
"""

import enum
import importlib
import importlib.metadata
import inspect
import os
import sys
import warnings

import torch

from graft import _graft
from graft._graft import ConfigError
from graft._transforms import load_python_transform
from graft_sglang_hook import DUMPER_MODULE  # the start-up hook, installed beside the package

# The grafter_* fields of sglang's DumperConfig that name a graft setting.
_SHARED_SETTINGS = ("enable", "role", "b2t_filter", "t2b_filter", "master_address", "master_port",
                    "baseline_world_size", "target_world_size", "backend", "group_name", "timeout",
                    "transform_path")
_FILTERS = ("b2t_filter", "t2b_filter", "compare_filter")
_PREFIX = "DUMPER_GRAFTER_"


def settings_env(config):
    """The DUMPER_GRAFTER_* settings graft runs with under a DumperConfig.

    The environment's, with the config's grafter_* fields in place of their
    names: a dumper built in code keeps what its code says.
    """
    env = {name: value for name, value in os.environ.items() if name.startswith(_PREFIX)}
    for key in _SHARED_SETTINGS:
        name = _PREFIX + key.upper()
        value = getattr(config, "grafter_" + key)
        if value is None:
            env.pop(name, None)
        elif isinstance(value, bool):
            env[name] = "1" if value else "0"
        else:
            env[name] = str(value)
    return env


def _backend_source(config, environ):
    """Where the dumper's backend came from, for the group_init event."""
    if environ.get(_PREFIX + "BACKEND", "").strip().lower() == config.grafter_backend.strip().lower():
        return _PREFIX + "BACKEND"
    field = type(config).__dataclass_fields__.get("grafter_backend")
    if field is not None and config.grafter_backend == field.default:
        return f"sglang's default ({field.default}); graft's own default is gloo"
    return "the DumperConfig the program built"


def _graft_tags(tags):
    """The dumper's tags as graft's filters and fingerprints read them.

    graft's tags are None, bool, int, float or str; an enum tag is its value,
    and any other value its str(), the same on every rank that holds it.
    """
    out = {}
    for key, value in tags.items():
        if isinstance(value, enum.Enum):
            value = value.value
        if not (value is None or isinstance(value, (bool, int, float, str))):
            value = str(value)
        out[str(key)] = value
    return out


def _sglang_version():
    try:
        return importlib.metadata.version("sglang")
    except importlib.metadata.PackageNotFoundError:
        return "unknown"


class SglangGrafter:
    """Stands where sglang's _Grafter stood: SglangGrafter(config=DumperConfig).

    Made with the dumper (at import time for sglang's singleton), it checks the
    settings at once: an enabled grafter with an invalid setting raises
    ConfigError, as sglang's own DumperConfig does. It joins the graft world
    at the first call that can graft, taking its rank and side's world size
    from torch.distributed's default group as sglang's grafter does (or, with
    no default group, from RANK and WORLD_SIZE, as graft.Grafter does).
    maybe_intercept never raises for a graft's sake; events say what happened.
    """

    def __init__(self, *, config):
        self._config = config
        self._native = None
        self._off = False
        if not config.grafter_enable:
            return
        self._env = settings_env(config)
        _graft.check_env_map(self._env)
        self._filters = [_graft.Filter(self._env[_PREFIX + field.upper()], field)
                         for field in _FILTERS if self._env.get(_PREFIX + field.upper(), "").strip()]
        self._backend_source = _backend_source(config, os.environ)

    @property
    def enabled(self):
        """False when disabled by config, or once graft turned itself off in this process."""
        if not self._config.grafter_enable or self._off:
            return False
        return self._native is None or self._native.active

    def maybe_intercept(self, *, value, tags, extras=None):
        """One dumper.dump call: value with the dumper's tags and the call's grafter_extras."""
        if not self._config.grafter_enable or self._off:
            return
        tags = _graft_tags(tags)
        if self._native is None and not self._join(tags):
            return
        if isinstance(value, torch.Tensor):
            self._native.intercept(value, tags, extras)
        else:
            self._native.intercept_non_tensor(type(value).__name__, tags)

    def _join(self, tags):
        """Makes graft's grafter when this call can graft; False when it cannot yet."""
        distributed = torch.distributed.is_available() and torch.distributed.is_initialized()
        if not distributed and not any(f.matches(tags) for f in self._filters):
            return False  # unmatched before the default group exists: wait for it
        if distributed:
            rank, world_size = torch.distributed.get_rank(), torch.distributed.get_world_size()
            rank_source = "torch.distributed's default group"
        else:
            rank, world_size = _graft.side_rank_from_env()
            rank_source = "RANK and WORLD_SIZE (no torch.distributed default group)"
        notes = {"host": f"sglang {_sglang_version()} dumper", "backend_source": self._backend_source,
                 "rank_source": rank_source}
        try:
            self._native = _graft.NativeGrafter.from_env_map(
                self._env, rank, world_size, None, load_python_transform, notes)
        except ConfigError as e:
            self._off = True
            sys.stderr.write(f"graft: sglang's dumper: {e}; grafting is off in this process, and its "
                             f"peers will report it missing\n")
            return False
        return True


def _parameters(function):
    return [(p.name, p.kind) for p in inspect.signature(function).parameters.values()]


def _incompatibility(module):
    """Why graft cannot stand in this dumper module's _Grafter, or None."""
    grafter, dumper = getattr(module, "_Grafter", None), getattr(module, "_Dumper", None)
    if grafter is None or dumper is None:
        return "it has no _Grafter or no _Dumper class"
    if grafter is SglangGrafter:
        return None
    keyword, named = inspect.Parameter.KEYWORD_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD
    try:
        init, intercept = _parameters(grafter.__init__), _parameters(grafter.maybe_intercept)
    except (AttributeError, TypeError, ValueError) as e:
        return f"its _Grafter cannot be read ({type(e).__name__}: {e})"
    if init != [("self", named), ("config", keyword)]:
        return f"_Grafter.__init__{inspect.signature(grafter.__init__)} is not (self, *, config)"
    if intercept != [("self", named), ("value", keyword), ("tags", keyword), ("extras", keyword)]:
        return (f"_Grafter.maybe_intercept{inspect.signature(grafter.maybe_intercept)} is not "
                f"(self, *, value, tags, extras=None)")
    if not hasattr(dumper, "_dump_inner"):
        return "its _Dumper has no _dump_inner, where the grafter is called"
    return None


def install(dumper_module=None):
    """Puts graft's grafter under sglang's dumper in this process.

    dumper_module: sglang.srt.debug_utils.dumper, imported when not given.
    Dumpers made from now on graft through graft, and so does the module's
    singleton dumper. Returns True when graft is in place; False, with one
    warning naming the sglang version, when this dumper is not one graft can
    plug into (sglang's own grafter then keeps working). Installing twice is
    harmless.
    """
    module = importlib.import_module(DUMPER_MODULE) if dumper_module is None else dumper_module
    problem = _incompatibility(module)
    if problem is not None:
        warnings.warn(f"graft: sglang {_sglang_version()}'s dumper is not one graft can stand under: {problem}. "
                      f"sglang's own grafter stays in place (graft knows the dumper of sglang 0.5.23)",
                      RuntimeWarning, stacklevel=2)
        return False
    if module._Grafter is not SglangGrafter:
        module._Grafter = SglangGrafter
        singleton = getattr(module, "dumper", None)
        if isinstance(singleton, module._Dumper):
            singleton._grafter = SglangGrafter(config=singleton._config)
    return True
