"""Python graft worlds over real Gloo: b2t and t2b, 1+1 and 2+2, the
non-tensor case, events to a file and to a callback, the GIL."""

import pytest

import graft
from world import run_world
from world_values import CALLS, own_value


def values(tensor):
    return tensor.tolist()


@pytest.mark.parametrize("baseline,target", [(1, 1), (2, 2)])
def test_b2t_target_takes_its_baseline_rank(tmp_path, baseline, target):
    world = run_world(tmp_path, "exchange", baseline, target, {"b2t_filter": "name == 'h'"})
    for rank in range(target):
        got = world[("target", rank)]
        assert got.result["values"] == [values(own_value("baseline", rank, call)) for call in range(CALLS)]
        assert len(got.events_of("recv_grafted")) == CALLS
        assert got.result["matched_calls"] == CALLS
    for rank in range(baseline):
        sent = world[("baseline", rank)]
        assert sent.result["values"] == [values(own_value("baseline", rank, call)) for call in range(CALLS)]
        assert len(sent.events_of("send")) == CALLS


@pytest.mark.parametrize("baseline,target", [(1, 1), (2, 2)])
def test_t2b_baseline_takes_its_target_rank(tmp_path, baseline, target):
    world = run_world(tmp_path, "exchange", baseline, target,
                      {"t2b_filter": "name == 'h' and layer_id >= 1"})
    for rank in range(baseline):
        got = world[("baseline", rank)].result["values"]
        assert got[0] == values(own_value("baseline", rank, 0)), "layer 0 is not matched"
        assert got[1:] == [values(own_value("target", rank, call)) for call in (1, 2)]
    for rank in range(target):
        assert world[("target", rank)].result["values"] == [
            values(own_value("target", rank, call)) for call in range(CALLS)]


def test_events_read_back(tmp_path):
    world = run_world(tmp_path, "exchange", 1, 1, {"b2t_filter": "name == 'h'"})
    events = graft.read_events(tmp_path / "events-target-0.jsonl", as_dataframe=False)
    assert [e["kind"] for e in events] == ["group_init"] + ["recv_grafted"] * CALLS
    assert events[0]["graft_version"] == graft.__version__
    grafted = events[1]
    assert grafted["tags"] == {"name": "h", "layer_id": 0}
    assert grafted["role"] == "target" and grafted["graft_rank"] == 1
    assert grafted["sender_ranks"] == [0] and grafted["direction"] == "b2t"
    assert grafted["sender_extras"] == [{"call": 0, "rank": 0, "scale": 3.0}]
    assert grafted["metrics"]["max_abs"] == 1000.0, "zeros..7 + 2000 became 0..7 + 1000"
    assert events == world[("target", 0)].events


def test_read_events_as_dataframe_when_pandas_is_there(tmp_path):
    run_world(tmp_path, "exchange", 1, 1, {"b2t_filter": "name == 'h'"})
    path = tmp_path / "events-target-0.jsonl"
    try:
        import pandas  # noqa: F401
    except ImportError:
        assert isinstance(graft.read_events(path), list)
        with pytest.raises(ImportError, match="pip install pandas"):
            graft.read_events(path, as_dataframe=True)
    else:
        frame = graft.read_events(path)
        assert list(frame["kind"]) == ["group_init"] + ["recv_grafted"] * CALLS


def test_read_events_names_a_bad_line(tmp_path):
    path = tmp_path / "events.jsonl"
    path.write_text('{"kind": "send"}\nnot json\n')
    with pytest.raises(ValueError, match=r"events.jsonl:2: not a JSON event line"):
        graft.read_events(path)


def test_events_to_a_callback(tmp_path):
    world = run_world(tmp_path, "callback_events", 1, 1, {"b2t_filter": "name == 'h'"})
    target = world[("target", 0)]
    assert [e["kind"] for e in target.result["events"]] == ["group_init", "recv_grafted"]
    assert target.result["events"][1]["tags"] == {"name": "h", "layer_id": 0}
    assert target.result["values"] == [values(own_value("baseline", 0))]
    assert target.result["events"] == target.events, "the events_path file gets the same events"


def test_a_rank_without_a_tensor_takes_part_as_absent(tmp_path):
    world = run_world(tmp_path, "non_tensor_on_baseline_rank0", 2, 2, {"b2t_filter": "name == 'h'"})
    assert len(world[("baseline", 0)].events_of("non_tensor")) == 1
    first, second = world[("target", 0)].result["values"]
    assert first == values(own_value("target", 0)), "nothing to graft from an absent sender"
    assert world[("target", 0)].events_of("recv_skipped")[0]["error_kind"] == "sender_absent"
    assert second == values(own_value("baseline", 0)), "the next call grafts again: no hang, no desync"
    # Every receiver sees every sender, so rank 1 skips the first call too.
    assert world[("target", 1)].result["values"] == [values(own_value("target", 1)),
                                                     values(own_value("baseline", 1))]


def test_the_gil_is_released_while_waiting_in_the_exchange(tmp_path):
    world = run_world(tmp_path, "gil_released", 1, 1, {"b2t_filter": "name == 'h'"})
    target = world[("target", 0)].result
    assert target["values"] == [values(own_value("baseline", 0))]
    assert target["call_seconds"] > 1.0, "the target waited for the late baseline"
    # About one tick per millisecond of the wait when the GIL is free; none
    # at all while a call holds it.
    assert target["ticks_during_call"] > 100, target
