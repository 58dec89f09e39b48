"""One rank of a test world: makes the grafter from the environment, runs a
program of world_programs.py with it and writes the program's result as JSON.

    world_worker.py PROGRAM RESULT_PATH
"""

import json
import os
import sys

import graft
import world_programs


def main(program, result_path):
    role = os.environ["DUMPER_GRAFTER_ROLE"]
    rank = int(os.environ["RANK"])
    result = getattr(world_programs, program)(role, rank)
    with open(result_path, "w", encoding="utf-8") as out:
        json.dump(result, out)


if __name__ == "__main__":
    assert graft.__version__
    main(*sys.argv[1:])
