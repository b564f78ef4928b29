"""Every notebook under notebooks/ runs from top to bottom without an error (so the worked examples
never rot), is committed executed with its figures visible, and its committed text outputs are what a
fresh run prints (published numbers follow the code; ``make notebooks`` regenerates them)."""

from __future__ import annotations

import copy
import importlib.util
from pathlib import Path

import nbformat
import pytest
from conftest import ROOT

NOTEBOOK_DIR = Path(ROOT, "notebooks")
NOTEBOOKS = sorted(NOTEBOOK_DIR.glob("*.ipynb"))


def _load_execute():
    spec = importlib.util.spec_from_file_location("notebooks_execute", NOTEBOOK_DIR / "execute.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


execute = _load_execute()


def test_there_are_notebooks():
    names = {path.name for path in NOTEBOOKS}
    assert {"verflucht_worked_example.ipynb", "cursed_worked_example.ipynb", "covens_worked_example.ipynb"} <= names


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[path.name for path in NOTEBOOKS])
def test_notebook_is_committed_executed_with_its_figures(path):
    notebook = nbformat.read(path, as_version=4)
    nbformat.validate(notebook)
    code = [cell for cell in notebook.cells if cell.cell_type == "code"]
    assert code, f"{path.name} has no code"
    assert notebook.metadata.get("kernelspec", {}).get("name") == execute.KERNEL
    counts = [cell.execution_count for cell in code]
    assert counts == list(range(1, len(code) + 1)), \
        f"{path.name} is not committed as one run from the top: run `{execute.REGENERATE}`"
    outputs = [output for cell in code for output in cell.outputs]
    assert not [o for o in outputs if o.output_type == "error"]
    plots = sum("plt." in cell.source or ".plot(" in cell.source for cell in code)
    figures = [o for o in outputs if "image/png" in o.get("data", {})]
    assert plots and len(figures) >= plots, f"{path.name}: every figure is committed"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[path.name for path in NOTEBOOKS])
def test_notebook_runs_and_its_committed_outputs_are_fresh(path, tmp_path, monkeypatch):
    monkeypatch.setenv("PYTHONPATH", "")   # execute() puts this repository's cursedsim first
    monkeypatch.setenv("JUPYTER_PATH", "")   # and a kernelspec it writes is forgotten after the test
    fresh = execute.execute(path, tmp_path)   # raises CellExecutionError naming the cell on the first error
    code = [cell for cell in fresh.cells if cell.cell_type == "code"]
    outputs = [output for cell in code for output in cell.outputs]
    assert all(cell.execution_count for cell in code)
    assert not [o for o in outputs if o.output_type == "stream" and o.name == "stderr" and "Traceback" in o.text]
    assert any(o.output_type in ("execute_result", "display_data") for o in outputs)
    stored = nbformat.read(path, as_version=4)
    stale = execute.stale_cells(stored, fresh)
    assert not stale, execute.stale_message(path, stale, stored, fresh)


def test_a_changed_number_makes_a_notebook_stale_and_volatile_text_does_not():
    """The freshness check can fail: a changed digit in a result is stale; object addresses, Styler ids
    and durations are not."""
    path = NOTEBOOK_DIR / "verflucht_worked_example.ipynb"
    stored = nbformat.read(path, as_version=4)
    index, _ = next((i, c) for i, c in enumerate(c for c in stored.cells if c.cell_type == "code")
                       if any(o.output_type == "execute_result" and any(ch.isdigit() for ch in o.data["text/plain"])
                              for o in c.outputs))
    changed = copy.deepcopy(stored)
    result = next(o for o in [c for c in changed.cells if c.cell_type == "code"][index].outputs
                  if o.output_type == "execute_result" and any(ch.isdigit() for ch in o.data["text/plain"]))
    text = result.data["text/plain"]
    digit = next(ch for ch in text if ch.isdigit())
    result.data["text/plain"] = text.replace(digit, str((int(digit) + 1) % 10), 1)
    assert execute.stale_cells(stored, changed) == [index + 1]
    assert "make notebooks" in execute.stale_message(path, [index + 1])
    shown = execute.stale_message(path, [index + 1], stored, changed)
    assert f"cell {index + 1} as stored:" in shown and result.data["text/plain"] in shown

    volatile = copy.deepcopy(stored)
    result = next(o for o in [c for c in volatile.cells if c.cell_type == "code"][index].outputs
                  if o.output_type == "execute_result")
    result.data["text/plain"] += " <Styler at 0x7f3a2b> #T_ab12c_row0 took 12.5 s"
    again = copy.deepcopy(stored)
    result = next(o for o in [c for c in again.cells if c.cell_type == "code"][index].outputs
                  if o.output_type == "execute_result")
    result.data["text/plain"] += " <Styler at 0x55e0ff> #T_09fe1_row0 took 3 s"
    assert execute.stale_cells(volatile, again) == []


def test_stderr_is_not_compared_but_stdout_is():
    """A fresh run on an empty numba cache prints compile notices (and two processes writing the cache may
    print warnings) on stderr, sometimes into the next cell: never stale; a changed stdout line is."""
    path = NOTEBOOK_DIR / "gifts_worked_example.ipynb"
    stored = nbformat.read(path, as_version=4)
    cold = copy.deepcopy(stored)
    [c for c in cold.cells if c.cell_type == "code"][1].outputs.append(nbformat.v4.new_output(
        "stream", name="stderr", text="cursedsim: compiling the gifts kernel (leader): ~150 s, once, then cached ...\n"))
    assert execute.stale_cells(stored, cold) == []
    other = copy.deepcopy(stored)
    [c for c in other.cells if c.cell_type == "code"][1].outputs.append(
        nbformat.v4.new_output("stream", name="stdout", text="a number that was not there: 42\n"))
    assert execute.stale_cells(stored, other) == [2]


def test_stdout_split_by_a_stderr_notice_is_the_same_text():
    """On an empty cache a compile notice on stderr can land between two prints of one cell, so the cell's
    stdout arrives as two outputs: the same text, not stale; a changed word in either piece is."""
    path = NOTEBOOK_DIR / "village_worked_example.ipynb"
    stored = nbformat.read(path, as_version=4)
    index, cell = next((i, c) for i, c in enumerate(c for c in stored.cells if c.cell_type == "code")
                       if any(o.output_type == "stream" and o.name == "stdout" and o.text.count("\n") >= 2
                              for o in c.outputs))
    output = next(o for o in cell.outputs if o.output_type == "stream" and o.name == "stdout" and o.text.count("\n") >= 2)
    first, rest = output.text.split("\n", 1)

    def with_outputs(pieces):
        notebook = copy.deepcopy(stored)
        [c for c in notebook.cells if c.cell_type == "code"][index].outputs = [
            nbformat.v4.new_output("stream", name=name, text=text) for name, text in pieces]
        return notebook

    split = with_outputs([("stdout", first + "\n"), ("stderr", "cursedsim: compiling ...\n"), ("stdout", rest)])
    assert execute.stale_cells(with_outputs([("stdout", output.text)]), split) == []
    changed = with_outputs([("stdout", first + "\n"), ("stderr", "notice\n"), ("stdout", rest.replace("e", "a", 1))])
    assert execute.stale_cells(with_outputs([("stdout", output.text)]), changed) == [index + 1]
