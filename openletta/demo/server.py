"""The embedded demo server: a Letta-compatible HTTP/SSE server with scripted agents.

One implementation, two ways to run it:

* ``await DemoServer().start()`` inside a running event loop (the app, async tests);
* ``with DemoServerThread() as server:`` on its own loop in a background thread (sync tests,
  benchmarks).
"""

from __future__ import annotations

import asyncio
import threading
from datetime import datetime, timedelta
from typing import Any

from openletta.demo.catalog import CONTEXT_WINDOW, DEMO_AGENTS
from openletta.demo.history import synthetic_rows, system_row
from openletta.demo.http import Handler, HTTPServer
from openletta.demo.ids import Clock, new_id, utc_now
from openletta.demo.routes import Api
from openletta.demo.runs import Run
from openletta.demo.script import Script
from openletta.demo.send import parse_send
from openletta.demo.state import BASE_CONTEXT_TOKENS, AgentRecord, Store
from openletta.demo.turns import Engine, Pacer, Turn

HOST = "127.0.0.1"
#: The message that leaves the main agent waiting for approval with ``pending_approval``.
PENDING_APPROVAL_PROMPT = "danger: please clean the build directory"
#: Context tokens one generated history row adds (capped well below the window).
TOKENS_PER_HISTORY_ROW = 40


class DemoServer:
    """Serves scripted demo agents on ``127.0.0.1``.

    ``speed`` scales the streaming delays (1.0 is realistic, 0 streams as fast as possible);
    ``history_messages`` gives the first agent a generated history of that many rows;
    ``pending_approval`` leaves it waiting for approval of a tool call; ``port=0`` picks a
    free port. ``cancelled`` lists the runs cancelled through the API.
    """

    def __init__(self, *, port: int = 0, speed: float = 1.0, script: Script | None = None,
                 history_messages: int = 0, pending_approval: bool = False,
                 keepalive: float = 20.0, seed: int | None = None,
                 clock: Clock = utc_now) -> None:
        self.port = port
        self.history_messages = history_messages
        self.pending_approval = pending_approval
        self.script = script or Script()
        self.store = Store()
        self.engine = Engine(self.script, Pacer(speed, seed), clock)
        self._api = Api(self.store, self.engine, keepalive=keepalive)
        self._http: HTTPServer | None = None
        self.base_url: str | None = None

    @property
    def cancelled(self) -> list[str]:
        return self._api.cancelled

    async def start(self) -> str:
        """Fill the store, listen, and return the base URL (``http://127.0.0.1:<port>``)."""
        if not self.store.agents:
            await self._populate()
        self._http = HTTPServer(self.handler())
        self.port = await self._http.start(HOST, self.port)
        self.base_url = f"http://{HOST}:{self.port}"
        return self.base_url

    def handler(self) -> Handler:
        """What answers each request: the demo API's router (a subclass may wrap it)."""
        return self._api.router()

    async def stop(self) -> None:
        """Stop listening, end every run and drop open connections."""
        for task in list(self._api.tasks):
            task.cancel()
        if self._api.tasks:
            await asyncio.gather(*self._api.tasks, return_exceptions=True)
        if self._http is not None:
            await self._http.close()
            self._http = None

    async def _populate(self) -> None:
        now = self.engine.clock()
        for spec in DEMO_AGENTS:
            created = now - spec.created_ago
            agent = self.store.add_agent(spec, created, system_row(spec, created))
            last_ran = now - spec.last_ran_ago
            for text in spec.seed_messages:
                await self._replay(agent, text, last_ran)
            agent.last_run_completion = agent.updated_at = last_ran
        main = next(iter(self.store.agents.values()))
        moment = now - DEMO_AGENTS[0].last_ran_ago
        if self.history_messages:
            end = moment - timedelta(minutes=1)
            main.thread.extend(synthetic_rows(self.history_messages, end))
            main.thread.last_message_at = end
            main.thread.context_tokens = min(
                BASE_CONTEXT_TOKENS + TOKENS_PER_HISTORY_ROW * self.history_messages,
                CONTEXT_WINDOW * 3 // 4)
        if self.pending_approval:
            await self._replay(main, PENDING_APPROVAL_PROMPT, moment)
            main.last_run_completion = moment

    async def _replay(self, agent: AgentRecord, text: str, moment: datetime) -> None:
        """Run a turn to its end, instantly and dated ``moment``, to seed history."""
        engine = Engine(self.script, Pacer(0), lambda: moment)
        run = Run(new_id("run"), agent.id, None, False, moment)
        self.store.runs[run.id] = run
        send = parse_send({"messages": [{"role": "user", "content": text}]})
        await Turn(engine, run, agent, agent.thread, send).execute()


def demo_chat_lasts(agent_id: str, conversation: str | None) -> bool:
    """Whether a chat is there again when a demo server starts anew (the server keeps nothing):
    the default thread of one of its own agents, whose ids do not change."""
    return conversation is None and agent_id in {spec.id for spec in DEMO_AGENTS}


class DemoServerThread:
    """A :class:`DemoServer` on its own event loop in a daemon thread.

    ``with DemoServerThread(speed=0) as server: httpx.get(server.base_url + …)``.
    """

    def __init__(self, **options: Any) -> None:
        self.server = DemoServer(**options)
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, name="openletta-demo",
                                        daemon=True)
        self.base_url: str | None = None

    def start(self) -> str:
        self._thread.start()
        self.base_url = asyncio.run_coroutine_threadsafe(self.server.start(),
                                                         self._loop).result()
        return self.base_url

    def stop(self) -> None:
        if self._thread.is_alive():
            asyncio.run_coroutine_threadsafe(self.server.stop(), self._loop).result()
            self._loop.call_soon_threadsafe(self._loop.stop)
            self._thread.join()
        if not self._loop.is_closed():
            self._loop.close()

    def __enter__(self) -> DemoServerThread:
        self.start()
        return self

    def __exit__(self, *_exc: object) -> None:
        self.stop()
