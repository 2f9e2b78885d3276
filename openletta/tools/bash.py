"""``Bash``: run a shell command in the working directory, its output streamed as it comes.

The command runs in a process group of its own, so a timeout or the user's Esc stops it and
everything it started (background jobs too).
"""

from __future__ import annotations

import asyncio
import codecs
import contextlib
import os
import signal
from collections.abc import Mapping
from typing import Any, ClassVar

from openletta.tools.base import (
    DEFAULT_BUDGET,
    Access,
    LocalTool,
    OnOutput,
    ToolInputError,
    ToolOutcome,
    Workspace,
    arg,
    object_schema,
)
from openletta.tools.budget import ReturnBudget
from openletta.tools.output import Capture

DEFAULT_TIMEOUT_MS = 120_000
MAX_TIMEOUT_MS = 600_000
#: How long a group has to stop after SIGTERM before SIGKILL.
TERM_GRACE = 1.0
#: How long output is still read once the shell has exited (a background job may hold the pipe).
DRAIN_GRACE = 0.5
READ_SIZE = 65_536
SHELL = "/bin/bash" if os.access("/bin/bash", os.X_OK) else "/bin/sh"


async def kill_group(process: asyncio.subprocess.Process) -> None:
    """Stop ``process`` and its whole process group: SIGTERM, then SIGKILL for what is left."""
    if _signal_group(process.pid, signal.SIGTERM):
        loop = asyncio.get_running_loop()
        deadline = loop.time() + TERM_GRACE
        while loop.time() < deadline and _signal_group(process.pid, 0):
            await asyncio.sleep(0.05)
        _signal_group(process.pid, signal.SIGKILL)
    await process.wait()


def _signal_group(pgid: int, sig: int) -> bool:
    """Send ``sig`` to the group; whether it still had a member."""
    try:
        os.killpg(pgid, sig)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


async def _spawn(command: str, workspace: Workspace) -> tuple[
        asyncio.subprocess.Process, asyncio.StreamReader, asyncio.ReadTransport]:
    """Start the shell in a process group of its own, its output (stdout and stderr) on a
    pipe this side owns: the call can end, and the pipe be closed, while a background job
    still holds the other end."""
    read_end, write_end = os.pipe()
    pipe = os.fdopen(read_end, "rb", buffering=0)
    stream = asyncio.StreamReader()
    try:
        transport, _ = await asyncio.get_running_loop().connect_read_pipe(
            lambda: asyncio.StreamReaderProtocol(stream), pipe)
    except BaseException:
        pipe.close()
        os.close(write_end)
        raise
    try:
        process = await asyncio.create_subprocess_exec(
            SHELL, "-c", command, cwd=workspace.root, env=workspace.child_environment(),
            stdin=asyncio.subprocess.DEVNULL, stdout=write_end,
            stderr=asyncio.subprocess.STDOUT, start_new_session=True)
    except BaseException:
        transport.close()
        raise
    finally:
        os.close(write_end)
    return process, stream, transport


async def _pump(process: asyncio.subprocess.Process, stream: asyncio.StreamReader,
                capture: Capture, on_output: OnOutput) -> int:
    """Pass the output on until the shell has exited and the pipe is drained (or a background
    job keeps it open a while); the exit code."""
    decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")

    async def read() -> None:
        while chunk := await stream.read(READ_SIZE):
            _emit(decoder.decode(chunk), capture, on_output)
        _emit(decoder.decode(b"", final=True), capture, on_output)

    reader = asyncio.ensure_future(read())
    try:
        code = await process.wait()
        await asyncio.wait({reader}, timeout=DRAIN_GRACE)
    finally:
        reader.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await reader
    return code


def _emit(text: str, capture: Capture, on_output: OnOutput) -> None:
    if text:
        capture.add(text)
        on_output(text)


class Bash(LocalTool):
    """Runs a shell command in the working directory."""

    name: ClassVar[str] = "Bash"
    editable_argument: ClassVar[str | None] = "command"
    description: ClassVar[str] = (
        "Run a shell command with bash in the current working directory and get back what it "
        "printed (standard output and standard error together) and its exit code. Each call "
        "starts a fresh shell, so `cd` and variables do not carry over to the next call. The "
        "command is stopped, with everything it started, when it runs past its timeout "
        f"(default {DEFAULT_TIMEOUT_MS // 1000} s, at most {MAX_TIMEOUT_MS // 1000} s). Of an "
        "output too long for your context window you get its first and last lines, with a note "
        "saying so. A job left running "
        "in the background should send its output to a file (`cmd > log 2>&1 &`). Prefer "
        "Read, Glob, Grep and LS for looking at files, and Edit or Write for changing them.")
    parameters: ClassVar[dict[str, Any]] = object_schema(
        required=["command"],
        properties={
            "command": {"type": "string", "description": "The shell command to run."},
            "timeout": {
                "type": "number",
                "description": f"Time limit in milliseconds (default {DEFAULT_TIMEOUT_MS}, "
                               f"at most {MAX_TIMEOUT_MS}).",
            },
            "description": {
                "type": "string",
                "description": "A few words saying what the command does, shown to the user.",
            },
        },
    )
    access: ClassVar[Access] = Access.EXECUTE

    async def run(self, args: Mapping[str, Any], workspace: Workspace, on_output: OnOutput,
                  budget: ReturnBudget = DEFAULT_BUDGET) -> ToolOutcome:
        """Run the command; its output goes to ``on_output`` as it comes. The agent is told
        its exit code first, then the output (its two ends when it does not fit ``budget``)."""
        command = arg(args, "command", str)
        timeout_ms = min(arg(args, "timeout", float, DEFAULT_TIMEOUT_MS), MAX_TIMEOUT_MS)
        arg(args, "description", str, None)  # checked only: it is for the user to read
        if timeout_ms <= 0:
            raise ToolInputError("Argument 'timeout' must be a positive number of milliseconds.")
        process, stream, transport = await _spawn(command, workspace)
        capture = Capture()
        try:
            async with asyncio.timeout(timeout_ms / 1000):
                code = await _pump(process, stream, capture, on_output)
        except TimeoutError:
            await kill_group(process)
            lead = (f"The command timed out after {timeout_ms / 1000:g} s and was stopped."
                    + (" Output so far:" if capture.total else ""))
            return ToolOutcome(capture.told(lead, budget), ok=False, stdout=[capture.text()])
        except BaseException:  # cancelled (Esc), or on_output failed
            await kill_group(process)
            raise
        finally:
            transport.close()
        return ToolOutcome(capture.told(f"Exit code: {code}", budget), ok=code == 0,
                           stdout=[capture.text()])
