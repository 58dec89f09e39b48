"""sglang's own dumper, from the sglang wheel (pip install --no-deps sglang==0.5.23),
loaded as shipped without sglang's serving stack: what graft's conformance
runs (graft run --grafter sglang), its tests and its bench measure against.

sglang/__init__.py imports the whole server, so the packages sglang,
sglang.srt and sglang.srt.debug_utils are entered by path, and the three
serving-runtime modules dumper.py imports at module level (its HTTP/ZMQ
control plane, its plugin metadata, its device lookup), none of them on the
grafter's path, get stand-ins that fail loudly if anything calls them. The
dumper's own code, its _Dumper and _Grafter included, runs unchanged.
"""

import importlib
import importlib.util
import sys
import types

from graft_sglang_hook import DUMPER_MODULE  # the start-up hook, installed beside the package
VERSION = "0.5.23"  # the release graft is tested against


def missing_reason():
    """Why sglang's dumper cannot be loaded in this Python, or None."""
    try:
        import zmq  # noqa: F401  (dumper.py imports it at module level)
    except ImportError:
        return "pyzmq is not installed in this Python (pip install pyzmq)"
    spec = importlib.util.find_spec("sglang")
    if spec is None or not spec.submodule_search_locations:
        return f"sglang is not installed in this Python (pip install --no-deps sglang=={VERSION})"
    return None


def _stand_in(name, *functions):
    module = types.ModuleType(name)
    for function in functions:
        def unused(*args, _name=f"{name}.{function}", **kwargs):
            raise RuntimeError(f"{_name} is a stand-in for sglang's serving runtime: graft did not expect a call")
        setattr(module, function, unused)
    sys.modules[name] = module


def load():
    """Imports sglang.srt.debug_utils.dumper (through any import hook installed) and returns it."""
    if DUMPER_MODULE in sys.modules:
        return sys.modules[DUMPER_MODULE]
    problem = missing_reason()
    if problem:
        raise RuntimeError(problem)
    folder = importlib.util.find_spec("sglang").submodule_search_locations[0]
    for name, path in (("sglang", folder), ("sglang.srt", f"{folder}/srt"),
                       ("sglang.srt.debug_utils", f"{folder}/srt/debug_utils"),
                       ("sglang.srt.managers", f"{folder}/srt/managers")):
        if name not in sys.modules:
            package = types.ModuleType(name)
            package.__path__ = [path]
            sys.modules[name] = package
    _stand_in("sglang.srt.managers.io_struct", "sock_recv", "sock_send", "wrap_as_pickle")
    _stand_in("sglang.srt.runtime_context", "get_parallel", "get_server_args", "get_serving")
    _stand_in("sglang.srt.utils", "get_device")
    return importlib.import_module(DUMPER_MODULE)
