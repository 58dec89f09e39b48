"""Python transforms the tests name by dotted path (py_transforms.NAME)."""

import torch


def double(graft_input):
    return graft_input.received_list[graft_input.recv_rank] * 2


def scale_by_extras(graft_input):
    rank = graft_input.recv_rank
    return graft_input.received_list[rank] * graft_input.received_extras_list[rank]["scale"]


def reference_style(graft_input):
    """Written for the reference: its four fields only (its e2e test's transform)."""
    assert graft_input.received_extras_list[0]["scale"] == 3.0
    assert set(graft_input.tags) == {"name", "layer_id"}
    assert graft_input.target.shape == graft_input.received_list[0].shape
    return graft_input.received_list[0]


def fields(graft_input):
    """Encodes graft's own fields in the values, for the test to read back."""
    code = (graft_input.recv_rank * 100 + graft_input.recv_world_size * 10 + len(graft_input.sender_ranks)
            + (1 if graft_input.direction == "b2t" else 2) * 1000 + sum(graft_input.sender_ranks) * 10000)
    return torch.full_like(graft_input.target, float(code))


def raising(graft_input):
    raise ValueError("intentional test error from a Python transform")


def wrong_shape(graft_input):
    return graft_input.received_list[0][:2]


def returns_none(graft_input):
    return None


def writes_target(graft_input):
    graft_input.target.add_(1)
    return graft_input.received_list[graft_input.recv_rank]


NOT_CALLABLE = 3
