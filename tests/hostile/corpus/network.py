"""Opening a network connection (to a port the test listens on)."""

import os
import socket

PORT = int(os.environ.get("HOSTILE_PORT", "9"))


def call_home(x: int) -> int:
    if x > 10:
        with socket.create_connection(("127.0.0.1", PORT), timeout=0.5) as connection:
            connection.sendall(b"hello")
        return 1
    return x
