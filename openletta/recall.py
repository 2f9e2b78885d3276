"""What the user typed, kept across runs in openletta's config directory, in files only the
user can read: the messages sent, for ↑ in the prompt, as a shell keeps its history (one JSON
string per line; the newest :data:`KEPT`), the drafts not sent when the app quit, and the
messages whose replies still came then; and the tool calls that ran on this machine. A file
that cannot be read or written costs only the recall (it is logged), never a message."""

from __future__ import annotations

import json
import logging
import os
from pathlib import Path

from openletta.settings import config_dir, write_private_file

log = logging.getLogger(__name__)

RECALL_FILE = "sent-messages.jsonl"
DRAFTS_FILE = "drafts.json"
PROMPTS_FILE = "replies-left.json"
CONVERSATIONS_FILE = "last-conversations.json"
CALLS_FILE = "calls-run-here.json"
#: How many messages are kept.
KEPT = 500
#: How many agents' last conversations are kept.
AGENTS_KEPT = 200
#: How many ids of calls run here are kept.
CALLS_KEPT = 1000
#: How many messages of replies left are kept (a reply ends soon: an old one is of no use).
PROMPTS_KEPT = 20


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
        try:  # (a line that is not UTF-8 is skipped below, as one that is not JSON)
            lines = self.path.read_bytes().decode("utf-8", "replace").splitlines()
        except FileNotFoundError:
            return []
        except OSError as error:
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
            if isinstance(entry, str) and entry and "\ufffd" not in line:
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


class KeptTexts:
    """Texts by key, kept across runs when ``path`` is given (a JSON object; the newest
    ``most`` of them, when given). The file is changed key by key: other runs keep theirs in
    it. ``what`` names the texts in the log."""

    def __init__(self, path: Path | None, what: str, most: int | None = None) -> None:
        self.path, self._what, self._most = path, what, most
        self._stored = self._read()
        #: The texts this run kept (text) or took (``None``).
        self._changes: dict[str, str | None] = {}

    def _get(self, key: str) -> str:
        """The text of ``key`` (``""``: none), left where it is."""
        return (self._changes[key] if key in self._changes else self._stored.get(key)) or ""

    def _take(self, key: str) -> str:
        """The text of ``key`` (``""``: none), which leaves the file at once: a run that
        ends badly must not bring it back."""
        text = self._get(key)
        if not text:
            return ""
        self._changes[key] = None
        self.save()
        return text

    def _keep(self, key: str, text: str | None) -> None:
        """Keep ``text`` under ``key`` (written by :meth:`save`), as the newest (``None``:
        none)."""
        self._changes.pop(key, None)
        self._changes[key] = text

    @property
    def kept(self) -> list[str]:
        """The texts this run keeps."""
        return [text for text in self._changes.values() if text is not None]

    def save(self) -> OSError | None:
        """Write this run's changes over the texts in the file now; the error if it could
        not be written (nothing is kept without a file)."""
        if self.path is None:
            return None
        texts = self._read()
        for key, text in self._changes.items():
            texts.pop(key, None)
            if text is not None:
                texts[key] = text
        if self._most is not None:
            texts = dict(list(texts.items())[-self._most:])
        try:
            if texts:  # (the config directory may not exist yet: quit before connecting)
                self.path.parent.mkdir(parents=True, exist_ok=True)
                write_private_file(self.path, json.dumps(texts, ensure_ascii=False))
            else:
                self.path.unlink(missing_ok=True)
        except OSError as error:
            log.warning("could not keep the %s: %s", self._what, error)
            return error
        return None

    def _read(self) -> dict[str, str]:
        if self.path is None:
            return {}
        try:
            stored = json.loads(self.path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return {}
        except (OSError, ValueError) as error:
            log.warning("could not read the %s: %s", self._what, error)
            return {}
        if not isinstance(stored, dict):
            return {}
        return {key: text for key, text in stored.items()
                if isinstance(text, str) and text.strip()}


#: The agent under which a draft typed before any chat opened (on the connect screen) is
#: kept: the first chat opened next has it in its prompt.
BEFORE_ANY_CHAT = ""


class Drafts(KeptTexts):
    """The unsent text of each chat (agent and conversation) of one server, kept across runs
    when ``path`` is given: a chat opened again finds its draft in its prompt."""

    def __init__(self, server: str, path: Path | None = None) -> None:
        super().__init__(path, "drafts")
        self.server = server

    def take(self, agent_id: str, conversation_id: str | None) -> str:
        """The draft of a chat (``""``: none), which leaves the file at once: once in the
        prompt, it is sent or typed over."""
        return self._take(self._key(agent_id, conversation_id))

    def keep(self, agent_id: str, conversation_id: str | None, text: str) -> None:
        """Keep ``text`` as the chat's draft (written by :meth:`save`)."""
        self._keep(self._key(agent_id, conversation_id), text)

    def _key(self, agent_id: str, conversation_id: str | None) -> str:
        return json.dumps([self.server, agent_id, conversation_id])


class PromptsLeft(KeptTexts):
    """The messages whose replies were still coming when their chat was left (another opened,
    or the app quit), by the reply's run, kept across runs when ``path`` is given (the newest
    :data:`PROMPTS_KEPT`). The server stores a message only once the run answering it ends:
    a chat opened on such a reply names what it answers from here."""

    def __init__(self, path: Path | None = None) -> None:
        super().__init__(path, "messages of the replies left", PROMPTS_KEPT)

    def take(self, run_id: str) -> str:
        """The message that ``run_id`` answers (``""``: not known), which leaves the file."""
        return self._take(run_id)

    def keep(self, run_id: str, text: str) -> None:
        """Keep ``text`` as the message ``run_id`` answers (written by :meth:`save`)."""
        self._keep(run_id, text)


class LastConversations(KeptTexts):
    """The conversation last opened with each agent of one server, kept across runs when
    ``path`` is given (the newest :data:`AGENTS_KEPT`): choosing the agent again opens it."""

    def __init__(self, server: str, path: Path | None = None) -> None:
        super().__init__(path, "last conversations", AGENTS_KEPT)
        self.server = server

    def of(self, agent_id: str) -> str | None:
        """The conversation last opened with the agent (``None``: its default thread)."""
        return self._get(self._key(agent_id)) or None

    def opened(self, agent_id: str, conversation_id: str | None) -> None:
        """Note that ``conversation_id`` (``None``: the default thread) opened with the agent
        (written by :meth:`save`)."""
        self._keep(self._key(agent_id), conversation_id)

    def _key(self, agent_id: str) -> str:
        return json.dumps([self.server, agent_id])


class CallsRunHere(KeptTexts):
    """The tool calls of one server's agents that ran on this machine (their results were
    sent from here), by id, kept across runs when ``path`` is given (the newest
    :data:`CALLS_KEPT`, with their tool's name). The server does not record which client
    ran a call: history read again tells this machine's from another client's by them."""

    def __init__(self, server: str, path: Path | None = None) -> None:
        super().__init__(path, "ids of the calls run here", CALLS_KEPT)
        self.server = server

    def __contains__(self, call_id: object) -> bool:
        return isinstance(call_id, str) and bool(self._get(self._key(call_id)))

    def ran(self, calls: dict[str, str]) -> None:
        """Note that the results of ``calls`` (tool names by call id) go from here, and
        write that now (a failure is only logged: it costs the label, not the result)."""
        if not calls:
            return
        for call_id, tool in calls.items():
            self._keep(self._key(call_id), tool or "?")
        self.save()

    def _key(self, call_id: str) -> str:
        return json.dumps([self.server, call_id])
