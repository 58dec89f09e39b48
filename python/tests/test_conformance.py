"""graft conformance end to end: every CPU scenario played by graft's C++
grafter, graft's Python package and sglang 0.5.23's own grafter (its dumper.py
as shipped), each cell a run that happened. graft's cells must all pass;
sglang's must show what its grafter does, as measured."""

import json
import os
import subprocess
from pathlib import Path

import pytest
import torch

from graft import sglang_reference

_missing = sglang_reference.missing_reason()
# CI installs sglang into every pip torch it tests (ci/install-torch.sh).
if _missing and os.environ.get("CI", "").lower() in ("true", "1") and int(torch.__version__.split(".")[0]) >= 2:
    raise RuntimeError(f"CI: {_missing}; ci/install-torch.sh installs it")
if _missing:
    pytest.skip(f"sglang's dumper cannot be loaded, so the table has no sglang column: {_missing}",
                allow_module_level=True)

GRAFT_CLI = os.environ.get("GRAFT_CLI")
FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "scenarios"
RESULTS = {"pass", "fail", "hang", "error", "skip", "not_applicable"}


def cpu_scenarios():
    """The scenario files whose devices name no CUDA (as the build's labels read them)."""
    return sorted(path.stem for path in FIXTURES.glob("*.json")
                  if "cuda" not in json.dumps(json.loads(path.read_text()).get("device", "cpu")))


@pytest.fixture(scope="module")
def table(tmp_path_factory):
    if not GRAFT_CLI:
        pytest.fail("GRAFT_CLI names no graft executable (the CTest test sets it)")
    reports = Path(os.environ.get("GRAFT_CONFORMANCE_REPORTS") or tmp_path_factory.mktemp("reports"))
    run = subprocess.run([GRAFT_CLI, "--reports", str(reports), "conformance", "-j", "2"],
                         capture_output=True, text=True, timeout=1500)
    assert run.returncode == 0, run.stdout[-6000:] + run.stderr[-3000:]
    doc = json.loads((reports / "conformance.json").read_text())
    return doc, (reports / "conformance.md").read_text(), (reports / "index.html").read_text(), run.stdout


def cells(doc):
    return {row["name"]: row["cells"] for row in doc["scenarios"]}


def test_every_cpu_scenario_has_a_measured_cell_for_each_grafter(table):
    doc, markdown, page, _ = table
    assert doc["grafters"] == ["cpp", "python", "sglang"]
    assert sorted(cells(doc)) == cpu_scenarios()
    for name, row in cells(doc).items():
        assert sorted(row) == ["cpp", "python", "sglang"], name
        for grafter, cell in row.items():
            assert cell["result"] in RESULTS, (name, grafter, cell)
            if cell["result"] != "pass":
                assert cell["problems"], (name, grafter, "a cell that is no pass says why")
    assert "| scenario | graft C++ | graft Python | sglang |" in markdown
    assert '<section id="conformance">' in page


def test_graft_passes_every_scenario_from_cpp_and_from_python(table):
    doc, _, _, _ = table
    for name, row in cells(doc).items():
        for grafter in ("cpp", "python"):
            assert row[grafter]["result"] == "pass", (name, grafter, row[grafter]["problems"])


def test_sglang_shows_what_its_grafter_does(table):
    """The reference's known behaviours, each as the run found it."""
    row = cells(table[0])
    # A desync: it grafts another call's tensor into the target.
    assert row["desync"]["sglang"]["result"] == "fail"
    assert "expected the tensor unchanged" in row["desync"]["sglang"]["problems"][0]
    # A peer that never comes: it waits on, past the scenario's timeout.
    assert row["peer_never_arrives"]["sglang"]["result"] == "hang"
    # Both filters matching: a RuntimeError into the model code.
    conflict = row["filter_conflict"]["sglang"]
    assert conflict["result"] == "fail"
    assert "the grafter raised into the host program: RuntimeError" in " ".join(conflict["problems"])
    # A plain graft works as graft's does.
    assert row["identity_4x4"]["sglang"]["result"] == "pass"
    # graft's C++ plugins are not sglang's to load: not applicable, with the reason.
    double = row["double_1x1"]["sglang"]
    assert double["result"] == "not_applicable"
    assert "sglang's grafter loads Python functions only" in double["problems"][0]
