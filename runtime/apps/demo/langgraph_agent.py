"""A LangGraph agent that remembers across conversations through mnemowire, with no LLM:
``python -m mnemowire.apps.demo.langgraph_agent [STORE_URL]``.

The graph is LangGraph's own (``StateGraph``, a checkpointer per conversation thread); its
long-term memory is :class:`~mnemowire.compat.langgraph.MnemowireStore`, which the node receives
as ``store`` as from any LangGraph store. "remember ..." puts a fact under the user's namespace;
anything else is answered from the user's most relevant memory, found by meaning (the real
embedder), in another thread days later. Every fact is a record any mnemowire client reads
(``mnemowire list --agent assistant --user alice``), under review and audit like any other.
"""

from __future__ import annotations

import sys
import tempfile
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypedDict

from langchain_core.runnables import RunnableConfig
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import START, StateGraph
from langgraph.store.base import BaseStore

from mnemowire.compat.langgraph import MnemowireStore

__all__ = ["CONVERSATIONS", "build", "main", "talk"]

#: (thread, what the user says): two conversations, the second days after the first
CONVERSATIONS = (
    ("monday", "remember I am allergic to peanuts"),
    ("monday", "remember my sister Ana lives in Lisbon"),
    ("monday", "remember I run every morning before work"),
    ("friday", "what should I avoid eating?"),
    ("friday", "which city is my sister in?"),
)


class State(TypedDict, total=False):
    message: str
    reply: str


def respond(state: State, config: RunnableConfig, *, store: BaseStore) -> State:
    """Note a fact, or answer from the most relevant one (no LLM: the memory is the answer)."""
    namespace = ("memories", config["configurable"]["user_id"])
    message = state["message"]
    if message.lower().startswith("remember "):
        fact = message[len("remember ") :]
        store.put(namespace, uuid.uuid4().hex, {"fact": fact})
        return {"reply": f"Noted: {fact}"}
    found = store.search(namespace, query=message, limit=1)
    return {"reply": f"You told me: {found[0].value['fact']}" if found else "I don't know yet."}


def build(store: BaseStore) -> Any:
    """The graph: one node, a checkpointer for the threads, the store for what outlives them."""
    graph = StateGraph(State).add_node("respond", respond).add_edge(START, "respond")
    return graph.compile(checkpointer=InMemorySaver(), store=store)


def talk(url: str, say: Callable[[str], None] = print) -> list[str]:
    """Run both conversations for the user ``alice`` over the store at ``url``; the replies."""
    replies = []
    with MnemowireStore(url, agent="assistant", user_label=1, index={"fields": ["fact"]}) as store:
        graph = build(store)
        for thread, message in CONVERSATIONS:
            config: RunnableConfig = {"configurable": {"thread_id": thread, "user_id": "alice"}}
            reply = graph.invoke({"message": message}, config)["reply"]
            say(f"[{thread}] alice: {message}\n[{thread}] agent: {reply}")
            replies.append(reply)
    return replies


def main(argv: list[str] | None = None) -> None:
    args = sys.argv[1:] if argv is None else argv
    if args:
        talk(args[0])
        return
    with tempfile.TemporaryDirectory() as folder:  # nothing touches the user's own store
        talk(f"sqlite-vec://{Path(folder) / 'memory.db'}")


if __name__ == "__main__":
    main()
