"""Transforms from Python: dotted paths (the reference's form) doubling,
using extras, raising, returning the wrong shape or no tensor, writing the
target, each load failure, and LIBRARY:SYMBOL and builtin: from Python."""

import os

import pytest

from world import required_env, run_world
from world_values import CALLS, own_value

B2T = {"b2t_filter": "name == 'h'"}


def transform_world(tmp_path, spec, baseline=1, target=1):
    return run_world(tmp_path, "exchange", baseline, target, dict(B2T, transform_path=spec))


def assert_unchanged_and_skipped(world, error_kind, target=1):
    """Every call skipped with error_kind on every target rank, each tensor as it was."""
    for rank in range(target):
        got = world[("target", rank)]
        assert got.result["values"] == [own_value("target", rank, call).tolist() for call in range(CALLS)]
        skipped = got.events_of("recv_skipped")
        assert [e["error_kind"] for e in skipped] == [error_kind] * CALLS, got.events
        assert not got.events_of("recv_grafted")
    return [world[("target", rank)].events_of("recv_skipped")[0]["message"] for rank in range(target)]


@pytest.mark.parametrize("baseline,target", [(1, 1), (2, 2)])
def test_dotted_path_doubles(tmp_path, baseline, target):
    world = transform_world(tmp_path, "py_transforms.double", baseline, target)
    for rank in range(target):
        got = world[("target", rank)]
        assert got.result["values"] == [(own_value("baseline", rank, call) * 2).tolist() for call in range(CALLS)]
        assert {e["transform"] for e in got.events_of("recv_grafted")} == {"py_transforms.double"}


def test_transform_uses_the_senders_extras(tmp_path):
    world = transform_world(tmp_path, "py_transforms.scale_by_extras")
    assert world[("target", 0)].result["values"] == [
        (own_value("baseline", 0, call) * 3.0).tolist() for call in range(CALLS)]


def test_a_transform_written_for_the_reference_runs_unchanged(tmp_path):
    world = transform_world(tmp_path, "py_transforms.reference_style")
    assert world[("target", 0)].result["values"] == [
        own_value("baseline", 0, call).tolist() for call in range(CALLS)]


def test_graft_input_carries_direction_ranks_and_senders(tmp_path):
    world = transform_world(tmp_path, "py_transforms.fields", 2, 2)
    for rank in range(2):
        # recv_rank*100 + recv_world_size*10 + #senders + 1000 (b2t) + sum(sender ranks)*10000
        code = rank * 100 + 2 * 10 + 2 + 1000 + 1 * 10000
        assert world[("target", rank)].result["values"][0] == [float(code)] * 8


def test_a_raising_transform_skips_with_the_traceback_line(tmp_path):
    world = transform_world(tmp_path, "py_transforms.raising")
    message, = assert_unchanged_and_skipped(world, "transform_raised")
    assert "transform 'py_transforms.raising' raised: ValueError: intentional test error from a Python " \
           "transform (at " in message
    assert "py_transforms.py:" in message and "in raising)" in message


def test_a_wrong_shape_is_refused(tmp_path):
    world = transform_world(tmp_path, "py_transforms.wrong_shape")
    message, = assert_unchanged_and_skipped(world, "shape_mismatch")
    assert "returned shape (2,) but the target has shape (8,)" in message


def test_a_result_that_is_no_tensor_is_a_transform_error(tmp_path):
    world = transform_world(tmp_path, "py_transforms.returns_none")
    message, = assert_unchanged_and_skipped(world, "transform_error")
    assert "returned NoneType, not a tensor" in message


def test_a_transform_that_writes_the_target_is_skipped(tmp_path):
    world = transform_world(tmp_path, "py_transforms.writes_target")
    skipped = world[("target", 0)].events_of("recv_skipped")
    assert len(skipped) == CALLS and not world[("target", 0)].events_of("recv_grafted")


@pytest.mark.parametrize("spec,kind,words", [
    ("no_such_package.module.fn", "library_not_found", "no module 'no_such_package.module'"),
    ("py_transforms.missing", "symbol_not_found", "has no 'missing'"),
    ("py_transforms.NOT_CALLABLE", "not_a_transform", "is a int, not a callable"),
    ("py_transforms_broken.fn", "library_not_found", "raised RuntimeError: intentional import failure"),
])
def test_load_failures_are_transform_load_events(tmp_path, spec, kind, words):
    world = transform_world(tmp_path, spec)
    loads = world[("target", 0)].events_of("transform_load")
    assert len(loads) == 1, world[("target", 0)].events
    assert loads[0]["error_kind"] == kind and loads[0]["spec"] == spec
    assert words in loads[0]["message"], loads[0]["message"]
    assert_unchanged_and_skipped(world, "transform_load")


def test_a_plugin_library_loads_from_python(tmp_path):
    plugin = required_env("GRAFT_DOUBLE_PLUGIN", "the sample plugin libgraft_double_transform.so")
    world = transform_world(tmp_path, plugin + ":double_it")
    assert world[("target", 0)].result["values"] == [
        (own_value("baseline", 0, call) * 2).tolist() for call in range(CALLS)]
    assert os.path.isabs(plugin)


def test_a_builtin_loads_from_python(tmp_path):
    world = transform_world(tmp_path, "builtin:identity_by_rank", 2, 2)
    for rank in range(2):
        assert world[("target", rank)].result["values"][2] == own_value("baseline", rank, 2).tolist()
