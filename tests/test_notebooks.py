"""Every notebook under notebooks/ runs from top to bottom without an error (so the worked examples
never rot), and is committed with its outputs cleared."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import nbformat
import pytest
from conftest import ROOT

import cursedsim

NOTEBOOKS = sorted(Path(ROOT, "notebooks").glob("*.ipynb"))
KERNEL = "python3"


def test_there_are_notebooks():
    names = {path.name for path in NOTEBOOKS}
    assert {"verflucht_worked_example.ipynb", "cursed_worked_example.ipynb"} <= names


def kernel_for_this_interpreter(tmp_path: Path, monkeypatch) -> str:
    """The name of a kernel that runs this interpreter (where cursedsim is importable): the installed
    ``python3`` kernelspec when it does (jupyter_client starts a spec whose command is plain ``python``
    with the current interpreter), else a kernelspec for ``sys.executable`` written for this test."""
    from jupyter_client.kernelspec import KernelSpecManager, NoSuchKernel
    try:
        argv0 = KernelSpecManager().get_kernel_spec(KERNEL).argv[0]
        plain = os.path.basename(argv0) in {"python", f"python{sys.version_info[0]}",
                                            "python{}.{}".format(*sys.version_info[:2])} and os.sep not in argv0
        if plain or os.path.realpath(argv0) == os.path.realpath(sys.executable):
            return KERNEL
    except NoSuchKernel:
        pass
    name = "cursedsim-test-python"
    spec_dir = tmp_path / "jupyter" / "kernels" / name
    spec_dir.mkdir(parents=True)
    (spec_dir / "kernel.json").write_text(json.dumps({
        "argv": [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"],
        "display_name": "cursedsim tests", "language": "python"}))
    monkeypatch.setenv("JUPYTER_PATH", str(tmp_path / "jupyter"))
    return name


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[path.name for path in NOTEBOOKS])
def test_notebook_runs_and_is_committed_without_outputs(path, tmp_path, monkeypatch):
    from nbclient import NotebookClient

    notebook = nbformat.read(path, as_version=4)
    nbformat.validate(notebook)
    code = [cell for cell in notebook.cells if cell.cell_type == "code"]
    assert code, f"{path.name} has no code"
    assert all(not cell.outputs and cell.execution_count is None for cell in code), \
        f"{path.name} is committed with outputs: clear them"
    assert notebook.metadata.get("kernelspec", {}).get("name") == KERNEL

    kernel = kernel_for_this_interpreter(tmp_path, monkeypatch)
    # the kernel imports the cursedsim under test, wherever it runs from
    source = str(Path(cursedsim.__file__).resolve().parents[1])
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(filter(None, [source, os.environ.get("PYTHONPATH")])))
    client = NotebookClient(notebook, timeout=600, kernel_name=kernel, allow_errors=False,
                            resources={"metadata": {"path": str(tmp_path)}})
    client.execute()   # raises CellExecutionError naming the cell on the first error
    outputs = [output for cell in code for output in cell.outputs]
    assert all(cell.execution_count for cell in code)
    assert not [o for o in outputs if o.output_type == "error"]
    assert not [o for o in outputs if o.output_type == "stream" and o.name == "stderr"
                and "Traceback" in o.text]
    # every code cell ran and the notebook shows something: tables, text or figures
    assert any(o.output_type in ("execute_result", "display_data") for o in outputs)
