"""The inline approval prompt a ToolCallCard shows while its call waits for the user.

Each choice has a key (``y`` approve, ``s`` for the session, ``a`` always, ``n`` deny, ``A``
approve all when several calls wait, ``e`` to edit a command run here first), its number in
the order shown (from 1, none skipped), and can also be picked with the arrows and Enter.
Denying opens a reason field: Enter sends (an empty reason is fine), Esc returns to the
choices. Editing opens the command in an editor of as many lines as it has
(:class:`CommandEditor`): Enter runs it as it stands, Ctrl+J starts a new line, Esc returns
to the choices.

The prompt takes the focus when it appears, maybe while the user is typing a message. So
it answers nothing until the keyboard has been quiet for :attr:`ApprovalPrompt.GUARD_SECONDS`
since it appeared: what is typed before (characters, Backspace, Enter) is the message's and
is handed on (:class:`~openletta.ui.prompt.TypedElsewhere`), and each such key restarts the
wait. Later, a character that is no choice's key starts a message the same way (and the
wait again), with the focus; Esc from the message back to the prompt arms it at once (so
does Esc while typing goes on to the message from the choices, not yet armed). A
choice's key takes effect once no other key followed it for :attr:`BURST_SECONDS`: a burst
of keys (a paste, fast typing) that starts with one is the message's too. A sentence typed
through it neither answers it nor is lost.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import ClassVar

from rich.text import Text
from textual import events, on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.message import Message
from textual.timer import Timer
from textual.widget import Widget
from textual.widgets import Input, OptionList, Static, TextArea
from textual.widgets.option_list import Option

from openletta.chat.approvals import Choice
from openletta.chat.local_calls import LocalCalls
from openletta.display import literal_text, plain_text
from openletta.transcript import ToolCallItem
from openletta.ui.editor_text import typed_text
from openletta.ui.formatting import home_relative
from openletta.ui.hanging import Hanging
from openletta.ui.in_view import bring_into_view, fits_through
from openletta.ui.prompt import TypedElsewhere
from openletta.ui.renderers import renderer_for
from openletta.ui.renderers.base import has_hidden_characters_in_call
from openletta.ui.steady import SteadyInput
from openletta.ui.widgets.command_editor import CommandEditor
from openletta.ui.widgets.pick_list import PickList

#: ``(choice, key, label)``, in the order shown; ``{tool}`` and ``{count}`` are filled in.
#: The choices a prompt shows are also numbered in that order, from 1 (Approve).
CHOICES: tuple[tuple[Choice, str, str], ...] = (
    (Choice.APPROVE, "y", "Approve"),
    (Choice.APPROVE_FOR_SESSION, "s", "Approve, and don't ask again for {tool} this session"),
    (Choice.ALWAYS_ALLOW, "a", "Always allow {tool} for this agent (saved on the server)"),
    (Choice.DENY, "n", "Deny, with a reason"),
    (Choice.APPROVE_ALL, "A", "Approve all {count} waiting requests"),
    (Choice.EDIT, "e", "Edit the command, then run it"),
)
#: The choices that make a rule: a call that touches paths outside the project is not offered
#: them (no rule lets such a call through: it asks every time).
RULE_CHOICES = (Choice.APPROVE_FOR_SESSION, Choice.ALWAYS_ALLOW)
#: The "always" choice of a tool run here: the rule is kept on this machine.
ALWAYS_HERE = "Always allow {tool} in this project (saved on this machine)"
#: The one choice about a call that ran here, whose result did not reach the server.
RESEND = "Send its result to the agent again"

#: Keys besides characters that a prompt not yet armed hands on to the message.
TYPED_THROUGH_KEYS = frozenset({"backspace", "enter"})
#: The keys the footer shows while a prompt has the focus.
FOOTER_LABELS = {"y": "Approve", "n": "Deny"}
#: The cells of a choice's keys (``y/1``), before its label.
KEYS_WIDTH = 5


def choice_row(keys: str, label: str) -> Hanging:
    """``y/1   Approve`` with the keys highlighted; a label too long for the line wraps under
    itself, not under the keys. Its ``str`` is the row as plain text."""
    return Hanging((Text.assemble((keys.ljust(KEYS_WIDTH), "bold"), " "), Text(label)))


class ApprovalPrompt(Vertical):
    """Asks whether ``call`` may run; posts :class:`Answered` or :class:`Dismissed`."""

    GUARD_SECONDS: ClassVar[float] = 0.75
    #: How long a choice's key waits for a next key that would make it typing.
    BURST_SECONDS: ClassVar[float] = 0.15
    BINDINGS: ClassVar[list[BindingType]] = [
        *(Binding(key, f"choose('{choice.value}')", FOOTER_LABELS.get(key, ""),
                  show=key in FOOTER_LABELS) for choice, key, _ in CHOICES),
        *(Binding(str(number), f"choose_number({number})", show=False)
          for number in range(1, len(CHOICES) + 1)),
        Binding("escape", "back", "Back"),
        Binding("escape", "leave", "Leave"),
    ]

    class Answered(Message):
        """The user answered: ``reason`` is set for a denial (possibly empty), ``edited``
        for an edit (what runs)."""

        def __init__(self, prompt: ApprovalPrompt, choice: Choice,
                     reason: str | None = None, edited: str | None = None) -> None:
            super().__init__()
            self.prompt = prompt
            self.call = prompt.call
            self.choice = choice
            self.reason = reason
            self.edited = edited

    class Dismissed(Message):
        """The user pressed Esc on the choices (wants to leave the prompt)."""

        def __init__(self, prompt: ApprovalPrompt) -> None:
            super().__init__()
            self.prompt = prompt
            self.call = prompt.call

    def __init__(self, call: ToolCallItem, *, waiting: int = 1, here: str | None = None,
                 outside: Sequence[str] = (), editable: str | None = None,
                 ran: bool = False, clock: Callable[[], float] = time.monotonic) -> None:
        """``here``: the directory the call runs in, when it runs on this machine;
        ``outside``: what it touches outside that directory, each said whole ("~/a is
        outside it", "b points to /c, outside it");
        ``editable``: the command the user may edit before it runs;
        ``ran``: it ran here already, and its result has still to reach the server."""
        super().__init__(classes="approval-prompt")
        self.call = call
        self.waiting = waiting
        self.here = here
        self.outside = tuple(outside)
        self._clock = clock
        self._quiet_since = clock()
        tool = literal_text(call.name) or "this tool"
        self.ran = ran
        self._choices = [(Choice.APPROVE, "y", RESEND)] if ran else [
            (choice, key, (ALWAYS_HERE if here and choice is Choice.ALWAYS_ALLOW else label)
             .format(tool=tool, count=waiting))
            for choice, key, label in CHOICES
            if (choice is not Choice.APPROVE_ALL or waiting > 1)
            and (choice is not Choice.EDIT or editable is not None)
            and not (outside and choice in RULE_CHOICES)]  # no rule lets those through
        self._options = PickList(*(Option(choice_row(f"{key}/{number}", label), id=choice.value)
                                   for number, (choice, key, label)
                                   in enumerate(self._choices, start=1)),
                                 classes="approval-options")
        self._reason = SteadyInput(placeholder="Why deny? (optional) · Enter sends · Esc goes back",
                             classes="approval-reason")
        self._edit = CommandEditor(editable or "", classes="approval-edit")
        self._error = Static(classes="approval-error")
        summary = renderer_for(call.name).summary(call) if call.arguments else ""
        self._what = Static(plain_text(f"{call.name}  {summary}".strip()), classes="approval-what")
        #: Why the last answer did not go through, as shown (``None``: nothing shown).
        self.error: str | None = None
        #: The choice of each key (its letter and its number), and a choice picked by a key
        #: that waits for :attr:`BURST_SECONDS` (with its timer).
        self._key_choices = {key: choice for choice, key, _ in self._choices} | {
            str(number): choice for number, (choice, _, _) in enumerate(self._choices, start=1)}
        self._pending: tuple[Choice, str] | None = None
        self._pending_timer: Timer | None = None

    def compose(self) -> ComposeResult:
        tool = literal_text(self.call.name) or "a tool"
        if self.ran:
            yield Static(Text.assemble(("⚠ Result not confirmed", "bold"), f": {tool} ran "
                                       "here; the server has not confirmed that the agent "
                                       "has its result"),
                         classes="approval-title")
            yield self._options
            yield self._error
            return
        title = Text("⚠ Approval needed", style="bold")
        title.append(f": the agent wants to run {tool}")
        title.append(f" here, in {self.here}" if self.here else " on the server")
        if self.outside:
            title.append(f" · {literal_text('; '.join(self.outside))}, and such a call asks "
                         "every time", style="bold")
        if self.waiting > 1:
            title.append(f" · {self.waiting} requests waiting", style="dim")
        if has_hidden_characters_in_call(self.call):
            title.append(" · holds hidden characters, shown as symbols above", style="bold")
        yield Static(title, classes="approval-title")
        yield self._what
        yield self._options
        yield self._reason
        yield self._edit
        yield self._error

    def on_mount(self) -> None:
        self._quiet_since = self._clock()
        self._options.highlighted = 0

    def focus_choices(self) -> None:
        """Put the focus on the choices (where the single keys work)."""
        self._options.focus()

    def summon(self, *, at_once: bool = False) -> None:
        """Bring the choices back into view with the focus: they answer once the keyboard is
        quiet again (the user typed elsewhere), or ``at_once`` (Esc brought the user here)."""
        self._quiet_since = self._clock() - (self.GUARD_SECONDS if at_once else 0.0)
        self._options.focus(scroll_visible=False)
        self.call_after_refresh(self.keep_in_view)  # once laid out

    @on(CommandEditor.Resized)
    @on(TextArea.SelectionChanged, ".approval-edit")
    def _editor_moved(self, event: CommandEditor.Resized | TextArea.SelectionChanged) -> None:
        """The command wrapped anew as it was laid out, or the cursor moved: the editor
        (or its cursor's line, when it is taller than the chat) stays in sight."""
        event.stop()
        self.call_after_refresh(self.keep_in_view)

    def keep_in_view(self) -> None:
        """Show the choices, or the field open below them, in the chat: with the call's card
        whole if it fits, else from the card's top (what is approved is read first) when
        that fits, else with what comes before them above (a long diff stays above, to
        scroll back to; :func:`~openletta.ui.in_view.bring_into_view`)."""
        part = next((field for field in (self._reason, self._edit) if field.display),
                    self._options)
        if not isinstance(self.parent, Widget):
            return
        # What is approved shows here (:attr:`_what`) while the card's header is above.
        cut = not fits_through(self.parent, part, less=self._what.region.height)
        if cut != self.has_class("-card-cut"):
            self.set_class(cut, "-card-cut")
            self.call_after_refresh(self.keep_in_view)  # once laid out again
        else:
            bring_into_view(self.parent, part, row=self._edit.cursor_row
                            if part is self._edit else None)

    def show_note(self, message: str) -> None:
        """Say ``message`` under the choices (not an error: the keyboard's quiet stands)."""
        self._error.update(plain_text(f"⚠ {message}"))
        self._error.display = True

    def show_error(self, message: str) -> None:
        """Say why the last answer did not go through (the prompt stays open)."""
        self.error = message
        self._error.update(plain_text(f"✗ {message}"))
        self._error.display = True
        self._quiet_since = self._clock()

    @property
    def choice_pending(self) -> bool:
        """Whether a choice's key waits to see that no other key follows it."""
        return self._pending is not None

    @property
    def armed(self) -> bool:
        """Whether the keyboard has been quiet long enough since the prompt appeared (or
        showed an error) to take answers."""
        return self._clock() - self._quiet_since >= self.GUARD_SECONDS

    def on_key(self, event: events.Key) -> None:
        """Typing meant for the message goes on to it (see the module)."""
        character = typed_text(event.character)
        typed = character is not None or event.key in TYPED_THROUGH_KEYS
        if not typed or not self._options.has_focus:
            return
        choice = self._key_choices.get(character or "")
        if self._pending is not None:  # the choice's key began a burst: all of it is typing
            self._cancel_pending()
            self._hand_on(event.key, character, focus=True)
        elif not self.armed:
            self._hand_on(event.key, character, focus=False)
        elif choice is not None and character is not None:
            self._pending = (choice, character)
            self._pending_timer = self.set_timer(self.BURST_SECONDS, self._take_pending)
        elif event.key == "enter":
            return  # the highlighted choice, at once
        else:
            self._hand_on(event.key, character, focus=True)
        event.stop()
        event.prevent_default()

    def on_paste(self, event: events.Paste) -> None:
        """Pasted text is the message's."""
        event.stop()
        self._cancel_pending()
        self._hand_on("paste", event.text, focus=True)

    def _hand_on(self, key: str, character: str | None, *, focus: bool) -> None:
        self._quiet_since = self._clock()
        self.post_message(TypedElsewhere(key, character, focus=focus))

    def _cancel_pending(self) -> None:
        """A choice's key was typing after all: it goes on to the message."""
        if self._pending_timer is not None:
            self._pending_timer.stop()
        if self._pending is not None:
            self._hand_on(self._pending[1], self._pending[1], focus=True)
        self._pending = self._pending_timer = None

    def _take_pending(self) -> None:
        if self._pending is not None:
            choice, self._pending, self._pending_timer = self._pending[0], None, None
            self.action_choose(choice.value)

    def action_choose(self, value: str) -> None:
        """Answer with the choice ``value`` (Deny first asks for a reason)."""
        choice = Choice(value)
        if not self.armed or choice not in self._key_choices.values():
            return
        if choice in (Choice.DENY, Choice.EDIT):
            field = self._reason if choice is Choice.DENY else self._edit
            field.display = True
            field.focus(scroll_visible=False)
            self.call_after_refresh(self.keep_in_view)  # once it has its height
            self.refresh_bindings()
        else:
            self.post_message(self.Answered(self, choice))

    def action_choose_number(self, number: int) -> None:
        """Answer with the choice shown ``number``-th, if there is one."""
        if 1 <= number <= len(self._choices):
            self.action_choose(self._choices[number - 1][0].value)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Esc goes back from the reason or command field, else leaves the prompt."""
        if action in ("back", "leave"):
            return (action == "back") == bool(self._reason.display or self._edit.display)
        return True

    def action_back(self) -> None:
        """Esc: from the reason or command field back to the choices."""
        self._reason.display = self._edit.display = False
        self.focus_choices()
        self.refresh_bindings()

    def action_leave(self) -> None:
        """Esc on the choices: leave the prompt; but while what is typed goes on to the
        message (the keyboard not yet quiet), Esc is from the message back to the request,
        which takes keys at once."""
        if self.armed:
            self.post_message(self.Dismissed(self))
        else:
            self._quiet_since = self._clock() - self.GUARD_SECONDS

    @on(OptionList.OptionSelected, ".approval-options")
    def _option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.action_choose(event.option_id or "")

    @on(Input.Submitted, ".approval-reason")
    def _reason_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.post_message(self.Answered(self, Choice.DENY, event.value.strip()))

    @on(CommandEditor.Submitted)
    def _edit_submitted(self, event: CommandEditor.Submitted) -> None:
        event.stop()
        if event.text.strip():
            self.post_message(self.Answered(self, Choice.EDIT, edited=event.text))


def approval_prompt(call: ToolCallItem, waiting: int, local: LocalCalls | None) -> ApprovalPrompt:
    """The prompt for ``call``, saying where it runs, and for a call that runs on this
    machine what it touches outside the working directory and what the user may edit."""
    if local is None or not call.runs_here:
        return ApprovalPrompt(call, waiting=waiting)
    if call.status.is_final:
        return ApprovalPrompt(call, waiting=waiting, ran=True)
    return ApprovalPrompt(call, waiting=waiting, here=home_relative(local.workspace.root),
                          outside=local.outside_said(call, home_relative),
                          editable=local.editable(call))
