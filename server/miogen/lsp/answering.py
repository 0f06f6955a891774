"""Every request gets an answer: one whose parameters do not fit its method gets InvalidParams.

pygls turns a message into its typed form while it reads it (``structure_message``, the JSON
decoder's hook); a request whose parameters have the wrong types (a hover whose ``position`` is
a string) fails there, before it has a handler, and pygls only logs it: the client waits for
an answer that never comes. Here such a request is answered with a JSON-RPC error that says
what did not fit; notifications are dropped (they are never answered), as before.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from cattrs import ClassValidationError, IterableValidationError, transform_error
from pygls.exceptions import JsonRpcException, JsonRpcInvalidParams
from pygls.protocol import JsonRPCProtocol


def answer_malformed_requests(protocol: JsonRPCProtocol) -> None:
    """Wrap ``protocol.structure_message`` (the instance's) to answer what it cannot read."""
    structure: Callable[[dict[str, Any]], Any] = protocol.structure_message

    def structure_or_answer(data: dict[str, Any]) -> Any:
        try:
            return structure(data)
        except JsonRpcException as error:
            if isinstance(data.get("method"), str) and "id" in data and "error" not in data:
                method = data["method"]
                answer = JsonRpcInvalidParams(
                    f"{method}: the parameters do not have the types of the protocol "
                    f"({_cause(error)})"
                )
                protocol._send_response(data["id"], error=answer.to_response_error())
            raise

    protocol.structure_message = structure_or_answer  # type: ignore[method-assign]


def _cause(error: BaseException) -> str:
    """What cattrs found wrong, one line per field (``... @ $.params.position``)."""
    cause = error.__cause__
    if isinstance(cause, ClassValidationError | IterableValidationError):
        text = "; ".join(transform_error(cause, path="$"))
    else:
        text = str(cause) if cause is not None else str(error)
    return text if len(text) <= 300 else text[:297] + "..."
