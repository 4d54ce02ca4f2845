"""The `zeroflow` command of an installed wheel: runs the command-line tool the package carries."""

import os
import pathlib
import sys


def binary() -> pathlib.Path:
    """Where the wheel put the tool (zeroflow/bin/zeroflow)."""
    return pathlib.Path(__file__).resolve().with_name("bin") / "zeroflow"


def main() -> None:
    tool = binary()
    if not os.access(tool, os.X_OK):
        sys.exit(
            "zeroflow: error: this installation has no command-line tool "
            f"({tool} is missing); install the zeroflow wheel, or build the tool with scripts/build"
        )
    # The tool replaces this process: its exit codes, signals and standard streams are the command's.
    os.execv(tool, [str(tool), *sys.argv[1:]])


if __name__ == "__main__":
    main()
