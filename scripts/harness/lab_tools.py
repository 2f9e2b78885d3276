"""The four tools the harness installs on the Letta server, as Python source.

Letta runs each function on its own in a sandbox subprocess that inherits the server's
environment, so every function does its own imports and finds the scratch directory in
``OPENLETTA_SCRATCH_DIR`` (set by the harness; the sandbox's working directory otherwise).
Relative paths are taken inside that directory. Letta builds each tool's JSON schema from
its docstring. ``setup_agent.py`` sends the source of each function with ``PUT /v1/tools/``.
"""

from __future__ import annotations

#: Tools Letta must ask the user about before running them.
TOOLS_NEEDING_APPROVAL = ("bash", "write_file", "edit_file")
TOOL_NAMES = ("bash", "read_file", "write_file", "edit_file")


def bash(command: str) -> str:
    """Run a shell command in the scratch directory and return its output.

    Args:
        command (str): The shell command to run.

    Returns:
        str: stdout and stderr of the command.
    """
    import os
    import subprocess

    cwd = os.environ.get("OPENLETTA_SCRATCH_DIR") or os.getcwd()
    result = subprocess.run(command, shell=True, capture_output=True, text=True, timeout=30,
                            cwd=cwd)
    output = result.stdout + result.stderr
    if result.returncode != 0:
        raise RuntimeError(f"exit code {result.returncode}: {output[-2000:]}")
    return output[-4000:]


def read_file(path: str) -> str:
    """Read a text file and return its contents.

    Args:
        path (str): Path of the file to read, relative to the scratch directory.

    Returns:
        str: The contents of the file.
    """
    import os

    root = os.environ.get("OPENLETTA_SCRATCH_DIR") or os.getcwd()
    with open(os.path.join(root, path), encoding="utf-8") as file:
        return file.read()


def write_file(path: str, content: str) -> str:
    """Write a text file, replacing it if it exists.

    Args:
        path (str): Path of the file to write, relative to the scratch directory.
        content (str): The new contents of the file.

    Returns:
        str: How many bytes were written where.
    """
    import os

    root = os.environ.get("OPENLETTA_SCRATCH_DIR") or os.getcwd()
    full_path = os.path.join(root, path)
    os.makedirs(os.path.dirname(full_path), exist_ok=True)
    with open(full_path, "w", encoding="utf-8") as file:
        file.write(content)
    return f"wrote {len(content.encode())} bytes to {path}"


def edit_file(path: str, old: str, new: str) -> str:
    """Replace the first occurrence of a text in a file.

    Args:
        path (str): Path of the file to edit, relative to the scratch directory.
        old (str): The text to replace; it must occur in the file.
        new (str): The replacement text.

    Returns:
        str: A one-line summary of the edit.
    """
    import os

    root = os.environ.get("OPENLETTA_SCRATCH_DIR") or os.getcwd()
    full_path = os.path.join(root, path)
    with open(full_path, encoding="utf-8") as file:
        text = file.read()
    if old not in text:
        raise ValueError(f"{old!r} does not occur in {path}")
    with open(full_path, "w", encoding="utf-8") as file:
        file.write(text.replace(old, new, 1))
    return f"replaced {old!r} with {new!r} in {path}"
