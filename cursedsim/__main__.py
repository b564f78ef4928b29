"""``python -m cursedsim``: the command line."""

from cursedsim.cli import main

if __name__ == "__main__":
    main(prog_name="cursedsim")
