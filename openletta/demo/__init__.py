"""openletta's embedded demo server: Letta's REST/SSE wire format with scripted agents."""

from openletta.demo.script import Reply, Script, ScriptedCall, Step
from openletta.demo.server import DemoServer, DemoServerThread

__all__ = ["DemoServer", "DemoServerThread", "Reply", "Script", "ScriptedCall", "Step"]
