"""Worlds that mix languages: Python ranks and graft_client (C++) ranks speak
one wire protocol. world_programs.client_sequence makes graft_client's calls."""

import pytest

from world import run_world

SETTINGS = {"b2t_filter": "name == 'attn_output'", "t2b_filter": "name == 'attn_input' and layer_id == 1"}


def baseline_values(call, rank):
    return [float(i * (call + 1) + 1000 * rank) for i in range(4)]


@pytest.mark.parametrize("cpp_side", ["baseline", "target"])
@pytest.mark.parametrize("ranks", [1, 2])
def test_python_and_cpp_graft_both_ways(tmp_path, cpp_side, ranks):
    world = run_world(tmp_path, "client_sequence", ranks, ranks, SETTINGS, cpp_side=cpp_side)
    for rank in range(ranks):
        target = {c["call"]: c["values"] for c in world[("target", rank)].result}
        baseline = {c["call"]: c["values"] for c in world[("baseline", rank)].result}
        assert len(target) == len(baseline) == 6
        # b2t: calls 1 and 4 (attn_output) reach the target from its baseline rank.
        for call in range(6):
            expected = baseline_values(call, rank) if call in (1, 4) else [0.0] * 4
            assert target[call] == expected, (call, world[("target", rank)])
        # t2b: call 3 (attn_input, layer 1) brings the target's zeros to the baseline.
        for call in range(6):
            expected = [0.0] * 4 if call == 3 else baseline_values(call, rank)
            assert baseline[call] == expected, (call, world[("baseline", rank)])
        assert len(world[("target", rank)].events_of("recv_grafted")) == 2
        assert len(world[("baseline", rank)].events_of("recv_grafted")) == 1
        assert not any(e["kind"] in ("desync", "group_error") for side in ("baseline", "target")
                       for e in world[(side, rank)].events)
