"""/export writes a new file, says where, and never replaces one that is there."""

from __future__ import annotations

from pathlib import Path

from chat_helpers import open_chat, send

from openletta.ui.app import OpenLettaApp

SIZE = (100, 30)


def toasts(app: OpenLettaApp) -> list[str]:
    return [str(note.message) for note in app._notifications]


async def test_export_to_a_relative_name_says_the_full_path_it_wrote(
        demo_server, make_app, wait_until, isolated_config: Path) -> None:
    app = make_app(base_url=demo_server.base_url, agent="demo-agent")
    target = isolated_config / "chat.md"  # the working directory
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_chat(pilot, wait_until)
        await send(pilot, screen, "hello", wait_until)
        await pilot.press(*"/export chat.md", "enter")
        await wait_until(pilot, lambda: any(note.startswith("Exported") for note in toasts(app)),
                         what="the export")
        said = next(note for note in toasts(app) if note.startswith("Exported"))
    written = target.read_text(encoding="utf-8")
    assert "hello" in written and "**Reasoning**" in written
    # what the file holds: the prompt, the reasoning and the answer (not the system prompt)
    assert said == f"Exported 3 messages to {target}"


async def test_export_refuses_to_replace_an_existing_file(
        demo_server, make_app, wait_until, isolated_config: Path) -> None:
    app = make_app(base_url=demo_server.base_url, agent="demo-agent")
    important = isolated_config / "important.md"
    important.write_text("IMPORTANT\n", encoding="utf-8")
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_chat(pilot, wait_until)
        await send(pilot, screen, "hello", wait_until)
        await pilot.press(*"/export important.md", "enter")
        await wait_until(pilot, lambda: any("already exists" in note for note in toasts(app)),
                         what="the refusal")
        refusal = next(note for note in toasts(app) if "already exists" in note)
        assert str(important) in refusal and "another name" in refusal
        assert not any(note.startswith("Export") for note in toasts(app))
    assert important.read_text(encoding="utf-8") == "IMPORTANT\n"


async def test_a_file_made_while_the_pages_are_read_is_kept(
        demo_server, make_app, wait_until, isolated_config: Path) -> None:
    app = make_app(base_url=demo_server.base_url, agent="demo-agent")
    late = isolated_config / "late.md"
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_chat(pilot, wait_until)
        await send(pilot, screen, "hello", wait_until)
        late.write_text("made meanwhile\n", encoding="utf-8")  # after /export looked
        app.export_conversation(screen.session, "demo-agent", late)
        await wait_until(pilot, lambda: any("already exists" in note for note in toasts(app)),
                         what="the refusal")
    assert late.read_text(encoding="utf-8") == "made meanwhile\n"


async def test_an_empty_conversation_is_not_exported(demo_server, make_app, wait_until,
                                                     isolated_config: Path) -> None:
    """Nothing said yet: no file holding only a heading, and no count of messages that
    are not in it (the system prompt)."""
    app = make_app(base_url=demo_server.base_url, agent="demo-agent")
    target = isolated_config / "empty.md"
    async with app.run_test(size=SIZE) as pilot:
        await open_chat(pilot, wait_until)
        await pilot.press(*"/export empty.md", "enter")
        await wait_until(pilot, lambda: any(note.startswith("Nothing to export yet")
                                            for note in toasts(app)), what="the answer")
        assert not any(note.startswith("Exported") for note in toasts(app))
    assert not target.exists()

