"""Real graft worlds for the tests: B baseline and T target processes on
loopback, each a Python worker (world_worker.py running a program of
world_programs.py) or graft_client, joined by graft's c10d exchange over Gloo."""

import json
import os
import socket
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent


def required_env(name, what):
    value = os.environ.get(name)
    if not value:
        raise RuntimeError(f"{name} is not set: it names {what}. Run these tests through ctest "
                           f"(ctest --test-dir build -L python), which sets it")
    return value


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Rank:
    """One finished process: its side, rank, exit code, result, events and stderr."""

    def __init__(self, side, rank, returncode, result, events, stderr):
        self.side, self.rank, self.returncode = side, rank, returncode
        self.result, self.events, self.stderr = result, events, stderr

    def events_of(self, kind):
        return [e for e in self.events if e["kind"] == kind]

    def __repr__(self):
        return f"<{self.side} rank {self.rank}: exit {self.returncode}; stderr:\n{self.stderr}>"


def run_world(tmp_path, program, baseline=1, target=1, settings=None, cpp_side=None, timeout=120,
              extra_env=None, worker="world_worker.py", side_env=None, wait_for=("baseline", "target")):
    """Runs one world and returns {(side, rank): Rank}.

    settings: DUMPER_GRAFTER_* values by lower-case key (b2t_filter, ...).
    cpp_side: "baseline" or "target" to run that side as graft_client.
    worker: the Python program of the other ranks, run as WORKER PROGRAM RESULT;
    each side's ranks find a free port for a group of their own in GRAFT_TEST_SIDE_PORT.
    side_env: more environment for one side's ranks, by side.
    wait_for: the sides whose ranks must finish, with exit code 0, within timeout;
    the others are killed once they have (a grafter that hangs by design).
    """
    port = free_port()
    side_ports = {"baseline": free_port(), "target": free_port()}
    env_common = dict(os.environ)
    env_common.update({
        "DUMPER_GRAFTER_ENABLE": "1",
        "DUMPER_GRAFTER_MASTER_ADDRESS": "127.0.0.1",
        "DUMPER_GRAFTER_MASTER_PORT": str(port),
        "DUMPER_GRAFTER_BASELINE_WORLD_SIZE": str(baseline),
        "DUMPER_GRAFTER_TARGET_WORLD_SIZE": str(target),
        "DUMPER_GRAFTER_TIMEOUT": "30",
        # Every rank, Python or C++, logs where the environment says.
        "DUMPER_GRAFTER_EVENTS_PATH": str(tmp_path / "events-{role}-{rank}.jsonl"),
    })
    for key, value in (settings or {}).items():
        env_common["DUMPER_GRAFTER_" + key.upper()] = str(value)
    env_common.update(extra_env or {})

    processes = []
    for side, size in (("baseline", baseline), ("target", target)):
        for rank in range(size):
            env = dict(env_common, **(side_env or {}).get(side, {}))
            env.update(DUMPER_GRAFTER_ROLE=side, RANK=str(rank), WORLD_SIZE=str(size),
                       GRAFT_TEST_SIDE_PORT=str(side_ports[side]))
            events = tmp_path / f"events-{side}-{rank}.jsonl"
            result = tmp_path / f"result-{side}-{rank}.json"
            stdout = open(tmp_path / f"stdout-{side}-{rank}.txt", "w")
            stderr = open(tmp_path / f"stderr-{side}-{rank}.txt", "w")
            if side == cpp_side:
                command = [required_env("GRAFT_CLIENT", "the graft_client program")]
            else:
                command = [sys.executable, str(HERE / worker), program, str(result)]
            processes.append((side, rank, events, result, stdout, stderr,
                              subprocess.Popen(command, env=env, stdout=stdout, stderr=stderr)))

    finished = {}
    try:
        for side, rank, events, result, stdout, stderr, process in processes:
            if side in wait_for:
                process.wait(timeout=timeout)
    finally:
        for *_, process in processes:
            if process.poll() is None:
                process.kill()
                process.wait()
    for side, rank, events, result, stdout, stderr, process in processes:
        stdout.close()
        stderr.close()
        if side == cpp_side:
            lines = (tmp_path / f"stdout-{side}-{rank}.txt").read_text().splitlines()
            value = [json.loads(line) for line in lines if line.startswith("{")]
        else:
            value = json.loads(result.read_text()) if result.exists() else None
        logged = [json.loads(line) for line in events.read_text().splitlines()] if events.exists() else []
        finished[(side, rank)] = Rank(side, rank, process.returncode, value, logged,
                                      (tmp_path / f"stderr-{side}-{rank}.txt").read_text())
    for rank in finished.values():
        assert rank.side not in wait_for or rank.returncode == 0, rank
    return finished
