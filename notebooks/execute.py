"""Execute the worked-example notebooks and store them with their outputs (``make notebooks``), or check
that the stored outputs are what a fresh run prints (``--check``; tests/test_notebooks.py does the same).

Published numbers follow the code: a notebook whose committed text differs from a fresh run is stale.
Only text is compared (stream output, ``text/plain`` and ``text/html``, with what changes from run to
run masked: object addresses, pandas Styler ids, durations); figures are compared by their text only.

    python notebooks/execute.py [--check] [NOTEBOOK ...]      (default: every notebooks/*.ipynb)
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
#: The kernelspec the notebooks are stored with.
KERNEL = "python3"
#: Seconds a cell may run.
CELL_TIMEOUT = 900
#: The command that regenerates the notebooks (named in the message of a stale one).
REGENERATE = "make notebooks"
#: Output text that differs between two runs of the same code, and what it is compared as.
VOLATILE = [
    (re.compile(r" at 0x[0-9a-fA-F]+"), " at 0x…"),                       # object reprs
    (re.compile(r"\bT_[0-9a-f]{5}(?=[_\"\s])"), "T_…"),                    # pandas Styler table ids
    (re.compile(r"\b\d+(\.\d+)?\s?(s|ms|seconds)\b(?= |\)|,|\.|$)"), "… s"),  # durations
]
#: Streams not compared: stderr carries what the machine did (compile notices of a cold numba cache,
#: warnings of a cache written by two processes at once), may land in the next cell's output, and holds no
#: published number; tests/test_notebooks.py checks separately that it holds no traceback.
IGNORED_STREAMS = ("stderr",)
#: The output mime types compared (images are not).
TEXT_TYPES = ("text/plain", "text/html")


def notebooks() -> list[Path]:
    """Every notebook under notebooks/, by name."""
    return sorted(HERE.glob("*.ipynb"))


def kernel_for_this_interpreter(folder: Path) -> str:
    """The name of a kernel that runs this interpreter (where cursedsim is importable): the installed
    ``python3`` kernelspec when it does, else a kernelspec for ``sys.executable`` written under
    ``folder`` (put on JUPYTER_PATH for this process)."""
    from jupyter_client.kernelspec import KernelSpecManager, NoSuchKernel
    try:
        argv0 = KernelSpecManager().get_kernel_spec(KERNEL).argv[0]
        plain = os.path.basename(argv0) in {"python", f"python{sys.version_info[0]}",
                                            "python{}.{}".format(*sys.version_info[:2])} and os.sep not in argv0
        if plain or os.path.realpath(argv0) == os.path.realpath(sys.executable):
            return KERNEL
    except NoSuchKernel:
        pass
    name = "cursedsim-python"
    spec_dir = folder / "jupyter" / "kernels" / name
    spec_dir.mkdir(parents=True, exist_ok=True)
    (spec_dir / "kernel.json").write_text(json.dumps({
        "argv": [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"],
        "display_name": "cursedsim", "language": "python"}))
    os.environ["JUPYTER_PATH"] = os.pathsep.join(filter(None, [str(folder / "jupyter"), os.environ.get("JUPYTER_PATH")]))
    return name


def execute(path: Path, folder: Path):
    """The notebook at ``path`` run top to bottom in ``folder`` (its working directory) by this
    interpreter's kernel, importing the cursedsim of this repository; raises on the first error."""
    import nbformat
    from nbclient import NotebookClient

    import cursedsim
    notebook = nbformat.read(path, as_version=4)
    kernelspec = notebook.metadata.get("kernelspec")
    source = str(Path(cursedsim.__file__).resolve().parents[1])
    os.environ["PYTHONPATH"] = os.pathsep.join(filter(None, [source, os.environ.get("PYTHONPATH")]))
    client = NotebookClient(notebook, timeout=CELL_TIMEOUT, kernel_name=kernel_for_this_interpreter(folder),
                            allow_errors=False, record_timing=False, resources={"metadata": {"path": str(folder)}})
    client.execute()
    if kernelspec is not None:
        notebook.metadata["kernelspec"] = kernelspec
    return notebook


def text_outputs(notebook) -> list[list[str]]:
    """Per code cell, its outputs as text: stdout text and the TEXT_TYPES of results and displays, with
    the VOLATILE parts masked (stderr: IGNORED_STREAMS). Consecutive pieces of one stream are one text:
    a compile notice on stderr between two prints splits stdout into two outputs, and is not a change."""
    cells = []
    for cell in notebook.cells:
        if cell.cell_type != "code":
            continue
        texts = []
        last_stream = None
        for output in cell.get("outputs", []):
            if output.output_type == "stream":
                if output.name in IGNORED_STREAMS:
                    continue
                if last_stream == output.name:
                    texts[-1] += output.text
                else:
                    texts.append(f"{output.name}: {output.text}")
                last_stream = output.name
                continue
            last_stream = None
            if output.output_type in ("execute_result", "display_data"):
                texts += [f"{kind}: {_joined(output.data[kind])}" for kind in TEXT_TYPES if kind in output.data]
            elif output.output_type == "error":
                texts.append(f"error: {output.ename}: {output.evalue}")
        cells.append([_masked(text) for text in texts])
    return cells


def _joined(value) -> str:
    return "".join(value) if isinstance(value, list) else value


def _masked(text: str) -> str:
    for pattern, replacement in VOLATILE:
        text = pattern.sub(replacement, text)
    return text


def stale_cells(stored, fresh) -> list[int]:
    """The numbers (1-based, code cells only) of the code cells whose text outputs differ."""
    old, new = text_outputs(stored), text_outputs(fresh)
    if len(old) != len(new):
        return list(range(1, max(len(old), len(new)) + 1))
    return [i + 1 for i, (a, b) in enumerate(zip(old, new)) if a != b]


def stale_message(path: Path, cells: list[int], stored=None, fresh=None) -> str:
    """Why ``path`` is stale and how to regenerate it; given both notebooks, with the first stale cell's
    text as stored and as run (so a failure in CI shows what moved)."""
    message = (f"{path.name} is stale: the text output of code cell(s) {', '.join(map(str, cells))} differs from a "
               f"fresh run; regenerate the notebooks with `{REGENERATE}` (python notebooks/execute.py) and commit them")
    if stored is not None and fresh is not None and cells:
        first = cells[0] - 1
        old, new = text_outputs(stored), text_outputs(fresh)
        show = lambda texts: "\n".join(texts[first]) if first < len(texts) else "(no such cell)"
        message += f"\ncell {cells[0]} as stored:\n{show(old)}\ncell {cells[0]} as run:\n{show(new)}"
    return message


def write(notebook, path: Path) -> None:
    """``notebook`` stored at ``path`` (a temporary file, then renamed)."""
    import nbformat

    from cursedsim.files import write_via
    write_via(path, lambda tmp: nbformat.write(notebook, tmp))


def main(argv: list[str] | None = None) -> int:
    """Execute the notebooks and store them (or, with --check, report the stale ones: status 1)."""
    import nbformat
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="compare with the stored outputs, write nothing")
    parser.add_argument("paths", nargs="*", type=Path, help="notebooks (default: every notebooks/*.ipynb)")
    args = parser.parse_args(argv)
    status = 0
    with tempfile.TemporaryDirectory(prefix="cursedsim-notebooks-") as folder:
        for path in args.paths or notebooks():
            print(f"executing {path.name} ...", file=sys.stderr, flush=True)
            fresh = execute(path, Path(folder))
            if args.check:
                stored = nbformat.read(path, as_version=4)
                cells = stale_cells(stored, fresh)
                if cells:
                    print(stale_message(path, cells, stored, fresh), file=sys.stderr)
                    status = 1
            else:
                write(fresh, path)
                print(f"wrote {path}", file=sys.stderr)
    return status


if __name__ == "__main__":
    sys.exit(main())
