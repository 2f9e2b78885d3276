"""The messages the user sent, kept across runs for ↑ in the prompt, as a shell keeps its
history: one JSON string per line in openletta's config directory, a file only the user can
read. The newest :data:`KEPT` are kept. A file that cannot be read or written costs only the
recall (it is logged), never a message."""

from __future__ import annotations

import json
import logging
import os
from pathlib import Path

from openletta.settings import config_dir, write_private_file

log = logging.getLogger(__name__)

RECALL_FILE = "sent-messages.jsonl"
#: How many messages are kept.
KEPT = 500


class SentMessages:
    """The messages sent, oldest first (:attr:`entries`), and the file that keeps them."""

    def __init__(self, path: Path | None = None) -> None:
        self.path = path if path is not None else config_dir() / RECALL_FILE
        self.entries: list[str] = self._read()

    def add(self, text: str) -> None:
        """Remember ``text`` (not twice in a row)."""
        if self.entries and self.entries[-1] == text:
            return
        self.entries.append(text)
        try:
            if len(self.entries) > 2 * KEPT:
                del self.entries[:-KEPT]
                self._write_all()
            else:
                self._append(text)
        except OSError as error:
            log.warning("could not keep the message for recall: %s", error)

    def _read(self) -> list[str]:
        try:
            lines = self.path.read_text(encoding="utf-8").splitlines()
        except FileNotFoundError:
            return []
        except (OSError, UnicodeError) as error:
            log.warning("could not read the messages to recall: %s", error)
            return []
        entries = self._entries_of(lines)
        if len(lines) > 2 * KEPT:  # many runs appended to it: cut it down to what is kept
            self.entries = entries
            try:
                self._write_all()
            except OSError as error:
                log.warning("could not shorten the messages to recall: %s", error)
        return entries

    @staticmethod
    def _entries_of(lines: list[str]) -> list[str]:
        entries = []
        for line in lines[-KEPT:]:
            try:
                entry = json.loads(line)
            except ValueError:
                continue
            if isinstance(entry, str) and entry:
                entries.append(entry)
        return entries

    def _append(self, text: str) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        handle = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
        with os.fdopen(handle, "a", encoding="utf-8", newline="\n") as file:
            file.write(json.dumps(text) + "\n")

    def _write_all(self) -> None:
        write_private_file(self.path, "".join(json.dumps(entry) + "\n"
                                              for entry in self.entries))
