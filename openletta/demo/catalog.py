"""What the demo server has: its model, its tools and its agents."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from openletta.demo.ids import stable_id

SERVER_VERSION = "0.16.8"
MODEL_NAME = "scripted-model"
MODEL_HANDLE = f"demo/{MODEL_NAME}"
CONTEXT_WINDOW = 32000
MAX_TOKENS = 16384
USER_ID = "user-00000000-0000-4000-8000-000000000000"

SYSTEM_PROMPT = (
    "<base_instructions>\nYou are a scripted demo agent running inside openletta's embedded "
    "demo server. You answer from a fixed script chosen by keywords in the user's message.\n"
    "</base_instructions>\n\n<memory_blocks>\nThe following memory blocks are currently "
    "engaged in your core memory unit:\n{blocks}\n</memory_blocks>"
)


@dataclass(frozen=True)
class ToolSpec:
    name: str
    description: str
    #: ``(argument, description)`` pairs; every argument is a required string.
    arguments: tuple[tuple[str, str], ...]
    tool_type: str = "custom"
    default_requires_approval: bool = False

    @property
    def id(self) -> str:
        return stable_id("tool", self.name)

    def json_schema(self) -> dict[str, Any]:
        properties = {name: {"type": "string", "description": text}
                      for name, text in self.arguments}
        return {"name": self.name, "description": self.description,
                "parameters": {"type": "object", "properties": properties,
                               "required": [name for name, _ in self.arguments]}}

    def source_code(self) -> str | None:
        if self.tool_type != "custom":
            return None
        signature = ", ".join(f"{name}: str" for name, _ in self.arguments)
        return f'def {self.name}({signature}) -> str:\n    """{self.description}"""\n'


TOOLS: tuple[ToolSpec, ...] = (
    ToolSpec("bash", "Run a shell command in the project directory and return its output.",
             (("command", "The command line to run."),)),
    ToolSpec("read_file", "Read a text file and return its contents.",
             (("path", "Absolute path of the file to read."),)),
    ToolSpec("write_file", "Write text to a file, replacing it.",
             (("path", "Absolute path of the file."), ("content", "The new contents.")),
             default_requires_approval=True),
    ToolSpec("edit_file", "Replace one string in a file.",
             (("path", "Absolute path of the file."), ("old", "The text to replace."),
              ("new", "The replacement text.")), default_requires_approval=True),
    ToolSpec("conversation_search", "Search prior conversation history.",
             (("query", "What to look for."),), tool_type="letta_core"),
    ToolSpec("memory_insert", "Insert text into a memory block.",
             (("label", "The block label."), ("new_string", "The text to insert.")),
             tool_type="letta_sleeptime_core"),
    ToolSpec("memory_replace", "Replace text in a memory block.",
             (("label", "The block label."), ("old_string", "Text to replace."),
              ("new_string", "Replacement text.")), tool_type="letta_sleeptime_core"),
)

TOOLS_BY_NAME = {tool.name: tool for tool in TOOLS}


@dataclass(frozen=True)
class AgentSpec:
    name: str
    description: str
    persona: str
    human: str
    tags: tuple[str, ...]
    #: How long ago the agent was created and last ran.
    created_ago: timedelta
    last_ran_ago: timedelta
    #: User messages replayed (at full speed) into the agent's history at start-up.
    seed_messages: tuple[str, ...] = ()
    #: What the id is made from, when not the name (agents made through the API).
    id_seed: str = ""

    @property
    def id(self) -> str:
        return stable_id("agent", self.id_seed or self.name)


DEMO_AGENTS: tuple[AgentSpec, ...] = (
    AgentSpec("demo-agent", "Scripted agent of the demo server: type `help` to start.",
              "I am the openletta demo agent. I answer from a script and show every kind of "
              "message a Letta agent can send.",
              "The user is trying openletta without a Letta server.", ("demo",),
              created_ago=timedelta(days=2), last_ran_ago=timedelta(minutes=3)),
    AgentSpec("research-notes", "Keeps reading notes and summaries.",
              "I summarise papers and keep a reading list.",
              "The user reads about distributed systems.", ("demo", "research"),
              created_ago=timedelta(days=9), last_ran_ago=timedelta(hours=5),
              seed_messages=("hello", "read the notes file")),
    AgentSpec("ops-runbook", "Runs routine shell chores on the build box.",
              "I help with builds and deployments; I ask before anything destructive.",
              "The user maintains the build machine.", ("demo", "ops"),
              created_ago=timedelta(days=30), last_ran_ago=timedelta(days=2),
              seed_messages=("bash",)),
)


def llm_config(handle: str = MODEL_HANDLE) -> dict[str, Any]:
    """The ``llm_config`` of an agent on the model ``handle``."""
    return {"model": handle.rpartition("/")[2], "display_name": "Scripted demo model",
            "model_endpoint_type": "openai", "model_endpoint": None, "provider_name": "demo",
            "provider_category": "base", "model_wrapper": None,
            "context_window": CONTEXT_WINDOW, "put_inner_thoughts_in_kwargs": False,
            "handle": handle, "temperature": 1.0, "max_tokens": MAX_TOKENS,
            "enable_reasoner": True, "reasoning_effort": None, "max_reasoning_tokens": 0,
            "effort": None, "frequency_penalty": None, "compatibility_type": None,
            "verbosity": None, "tier": None, "parallel_tool_calls": True,
            "response_format": None, "strict": False, "return_logprobs": False,
            "top_logprobs": None, "return_token_ids": False, "tool_call_parser": None}


def model_settings() -> dict[str, Any]:
    return {"max_output_tokens": MAX_TOKENS, "parallel_tool_calls": True,
            "provider_type": "openai", "temperature": 1.0,
            "reasoning": {"reasoning_effort": "minimal"}, "response_format": None,
            "strict": False}


def embedding_config() -> dict[str, Any]:
    return {"embedding_endpoint_type": "openai", "embedding_endpoint": None,
            "embedding_model": "text-embedding-3-small", "embedding_dim": 1536,
            "embedding_chunk_size": 300, "handle": "openai/text-embedding-3-small",
            "batch_size": 32, "azure_endpoint": None, "azure_version": None,
            "azure_deployment": None}


def models() -> list[dict[str, Any]]:
    """``GET /v1/models/``: the one scripted model."""
    config = llm_config()
    return [{"handle": MODEL_HANDLE, "name": MODEL_NAME, "display_name": config["display_name"],
             "provider_type": "openai", "provider_name": "demo", "model_type": "llm",
             **{key: value for key, value in config.items()
                if key not in {"handle", "display_name", "provider_name"}},
             "max_context_window": CONTEXT_WINDOW}]
