"""The Python API without a world: settings, errors, a disabled grafter,
argument checks."""

import re

import pytest
import torch

import graft

WORLD = {"role": "target", "master_address": "127.0.0.1", "master_port": 1, "baseline_world_size": 1,
         "target_world_size": 1, "b2t_filter": "name == 'x'"}


def test_built_against_this_torch():
    assert graft.torch_version.split(".")[:2] == torch.__version__.split(".")[:2]


def test_version_is_the_projects_with_its_commit():
    # PEP 440: a release, then a local part naming the commit of a checkout.
    assert re.fullmatch(r"\d+\.\d+\.\d+(\+g[0-9a-f]{12}(\.dirty)?)?", graft.__version__), graft.__version__


def test_config_errors_are_config_error_and_value_error():
    with pytest.raises(graft.ConfigError, match="role: expected 'baseline' or 'target', got 'sideways'") as caught:
        graft.Grafter(dict(WORLD, role="sideways"))
    assert isinstance(caught.value, ValueError) and isinstance(caught.value, graft.GraftError)


def test_unknown_setting_is_named():
    with pytest.raises(graft.ConfigError, match="b2t_filtr"):
        graft.Grafter(WORLD, b2t_filtr="name == 'y'")


def test_bad_filter_is_a_config_error_at_construction():
    with pytest.raises(graft.ConfigError, match="b2t_filter"):
        graft.Grafter(dict(WORLD, b2t_filter="name =="))


def test_a_setting_given_twice_is_refused():
    with pytest.raises(graft.ConfigError, match="'role' is given twice"):
        graft.Grafter(WORLD, role="baseline")


def test_wrong_setting_type_is_named():
    with pytest.raises(graft.ConfigError, match="master_port: expected an integer"):
        graft.Grafter(dict(WORLD, master_port="29500x"))


def test_side_size_must_match_world_size():
    with pytest.raises(graft.ConfigError, match="target_world_size=1 but this process's side has WORLD_SIZE=2"):
        graft.Grafter(WORLD, rank=0, world_size=2)


def test_constructor_enables_and_from_env_follows_the_environment(monkeypatch):
    assert graft.Grafter(WORLD).enabled
    assert not graft.Grafter(WORLD, enable=False).enabled
    monkeypatch.delenv("DUMPER_GRAFTER_ENABLE", raising=False)
    assert not graft.Grafter.from_env().enabled
    monkeypatch.setenv("DUMPER_GRAFTER_ENABLE", "1")
    monkeypatch.setenv("DUMPER_GRAFTER_ROLE", "sideways")
    with pytest.raises(graft.ConfigError, match="DUMPER_GRAFTER_ROLE: expected 'baseline' or 'target'"):
        graft.Grafter.from_env()


def test_unknown_dumper_grafter_variable_is_refused(monkeypatch):
    monkeypatch.setenv("DUMPER_GRAFTER_B2T_FILTR", "name == 'x'")
    with pytest.raises(graft.ConfigError, match="DUMPER_GRAFTER_B2T_FILTR"):
        graft.Grafter.from_env()


def test_disabled_grafter_touches_nothing(tmp_path):
    events = tmp_path / "events.jsonl"
    g = graft.Grafter(WORLD, enable=False, events=events)
    value = torch.ones(3)
    g.maybe_intercept(value, name="x")
    g.maybe_intercept_non_tensor(3, name="x")
    assert value.tolist() == [1.0, 1.0, 1.0] and g.matched_calls == 0
    assert not events.exists()


def test_unmatched_names_never_open_the_group(tmp_path):
    events = tmp_path / "events.jsonl"
    g = graft.Grafter(WORLD, events=events)
    value = torch.ones(3)
    g.maybe_intercept(value, name="y", layer_id=3)
    assert g.enabled and g.matched_calls == 0 and value.tolist() == [1.0, 1.0, 1.0]


def test_tag_and_extras_types_are_checked():
    g = graft.Grafter(WORLD)
    with pytest.raises(TypeError, match="tag 'layer_id': expected None, bool, int, float or str, got list"):
        g.maybe_intercept(torch.ones(1), name="y", layer_id=[1])
    with pytest.raises(TypeError, match=r"extras\['k'\]: expected None, bool, int, float, str.*got Tensor"):
        g.maybe_intercept(torch.ones(1), name="y", extras={"k": torch.ones(1)})


def test_events_must_be_a_path_or_a_callable():
    with pytest.raises(TypeError, match="events: expected a path"):
        graft.Grafter(WORLD, events=3)


def test_dotted_transform_load_failure_is_an_event_at_construction():
    received = []
    graft.Grafter(WORLD, transform_path="no_such_module.fn", events=received.append)
    assert [e["kind"] for e in received] == ["transform_load"]
    assert received[0]["error_kind"] == "library_not_found"


def test_a_failing_event_callback_does_not_raise(capfd):
    def broken(event):
        raise RuntimeError("callback is broken")

    graft.Grafter(WORLD, transform_path="no_such_module.fn", events=broken)
    assert "the Python event callback raised RuntimeError: callback is broken" in capfd.readouterr().err


def test_reference_name_of_the_input_type():
    assert graft.GraftTransformInput is graft.GraftInput
    assert [f for f in graft.GraftInput.__dataclass_fields__][:4] == [
        "tags", "received_list", "received_extras_list", "target"]
