"""graft's switch for sglang: GRAFT_SGLANG=1 puts graft under sglang's dumper
in every Python process that sees it.

graft-sglang.pth, installed beside the graft package, imports this module at
the start of every Python process of that environment, spawned ones included
(sglang's scheduler and TP workers are spawned, not forked). Switched off it
reads one environment variable and returns. Switched on it waits, as an import
hook, for sglang.srt.debug_utils.dumper, and puts graft in place once that
module has run (graft.sglang.install). It imports nothing of graft or torch
before then.
"""

import os
import sys

SWITCH = "GRAFT_SGLANG"
DUMPER_MODULE = "sglang.srt.debug_utils.dumper"
_ON = ("1", "true", "yes", "on")
_OFF = ("", "0", "false", "no", "off")


def switched_on(environ=None):
    """True when GRAFT_SGLANG says on; a value it cannot read is said once on stderr, and is off."""
    value = (os.environ if environ is None else environ).get(SWITCH, "").strip().lower()
    if value in _ON:
        return True
    if value not in _OFF:
        sys.stderr.write(f"graft: {SWITCH}={value!r} is neither on (1, true, yes, on) nor off "
                         f"(0, false, no, off, unset); graft stays out of sglang's dumper\n")
    return False


class _PatchingLoader:
    """The dumper module's own loader, then graft put in place."""

    def __init__(self, loader):
        self._loader = loader

    def create_module(self, spec):
        return self._loader.create_module(spec)

    def exec_module(self, module):
        self._loader.exec_module(module)
        try:
            from graft import sglang
        except ImportError as e:
            sys.stderr.write(f"graft: {SWITCH} is on but graft cannot be imported ({e}); "
                             f"sglang's own grafter stays in place\n")
            return
        sglang.install(module)

    def __getattr__(self, name):  # get_source, get_filename, ...: the real loader's
        return getattr(self._loader, name)


class _DumperFinder:
    """Finds sglang's dumper as the other finders do, and loads it through _PatchingLoader."""

    def find_spec(self, fullname, path=None, target=None):
        if fullname != DUMPER_MODULE:
            return None
        for finder in sys.meta_path:
            if finder is self or not hasattr(finder, "find_spec"):
                continue
            spec = finder.find_spec(fullname, path, target)
            if spec is not None:
                if spec.loader is not None:
                    spec.loader = _PatchingLoader(spec.loader)
                return spec
        return None


def install():
    """Called by graft-sglang.pth: the import hook, when the switch is on."""
    if not switched_on() or any(isinstance(finder, _DumperFinder) for finder in sys.meta_path):
        return
    sys.meta_path.insert(0, _DumperFinder())
