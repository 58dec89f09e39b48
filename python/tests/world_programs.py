"""What each rank of a test world does, by name: program(role, rank) -> JSON result,
with the values of world_values.py."""

import threading
import time

import torch

import graft
from world_values import CALLS, own_value


def exchange(role, rank):
    """CALLS dump calls named 'h' (layer_id = call), each with extras."""
    grafter = graft.Grafter.from_env()
    values = []
    for call in range(CALLS):
        value = own_value(role, rank, call)
        grafter.maybe_intercept(value, name="h", layer_id=call,
                                extras={"scale": 3.0, "rank": rank, "call": call})
        values.append(value.tolist())
    return {"values": values, "enabled": grafter.enabled, "matched_calls": grafter.matched_calls}


def non_tensor_on_baseline_rank0(role, rank):
    """Baseline rank 0 has no tensor for the matched name; everyone else has."""
    grafter = graft.Grafter.from_env()
    value = own_value(role, rank)
    if role == "baseline" and rank == 0:
        grafter.maybe_intercept({"not": "a tensor"}, name="h", layer_id=0)
    else:
        grafter.maybe_intercept(value, name="h", layer_id=0)
    after = own_value(role, rank)
    grafter.maybe_intercept(after, name="h", layer_id=1)
    return {"values": [value.tolist(), after.tolist()]}


def callback_events(role, rank):
    """Events to a Python callable instead of the file."""
    received = []
    grafter = graft.Grafter.from_env(events=received.append)
    value = own_value(role, rank)
    grafter.maybe_intercept(value, name="h", layer_id=0)
    return {"values": [value.tolist()], "events": received}


def gil_released(role, rank):
    """The target waits in the exchange for a baseline that comes 2 s late;
    meanwhile a Python thread of the target counts, which it can only do if
    the grafter released the GIL."""
    grafter = graft.Grafter.from_env()
    value = own_value(role, rank)
    if role == "baseline":
        time.sleep(2.0)
        grafter.maybe_intercept(value, name="h", layer_id=0)
        return {"values": [value.tolist()]}
    ticks = 0
    stop = threading.Event()

    def count():
        nonlocal ticks
        while not stop.is_set():
            ticks += 1
            time.sleep(0.001)

    counter = threading.Thread(target=count)
    counter.start()
    time.sleep(0.1)
    before = ticks
    started = time.monotonic()
    grafter.maybe_intercept(value, name="h", layer_id=0)
    waited = time.monotonic() - started
    during = ticks - before
    stop.set()
    counter.join()
    return {"values": [value.tolist()], "ticks_during_call": during, "call_seconds": waited}


def client_sequence(role, rank):
    """graft_client's calls, made from Python (examples/graft_client.cpp):
    attn_input, attn_output, mlp_output per layer, 2 layers, 4 values each;
    the baseline holds arange * (call + 1) + 1000 rank, the target zeros."""
    grafter = graft.Grafter.from_env()
    out = []
    call = 0
    for layer in range(2):
        for name in ("attn_input", "attn_output", "mlp_output"):
            if role == "baseline":
                value = torch.arange(4, dtype=torch.float32) * (call + 1) + 1000 * rank
            else:
                value = torch.zeros(4)
            grafter.maybe_intercept(value, name=name, layer_id=layer,
                                    extras={"call": call, "rank": rank, "scale": 0.5})
            out.append({"call": call, "name": name, "layer_id": layer, "values": value.tolist()})
            call += 1
    return out
