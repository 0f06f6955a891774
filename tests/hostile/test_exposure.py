"""Exposure: `miogen serve --tcp` listens on the loopback interface only, unless told otherwise."""

from __future__ import annotations

import socket
import subprocess
import sys
import time
from pathlib import Path


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def listening_addresses(port: int) -> set[str]:
    """Local IPv4 addresses with a listening socket on ``port`` (from /proc/net/tcp)."""
    found = set()
    for line in Path("/proc/net/tcp").read_text().splitlines()[1:]:
        local, state = line.split()[1], line.split()[3]
        address, hex_port = local.split(":")
        if int(hex_port, 16) == port and state == "0A":  # 0A: LISTEN
            found.add(socket.inet_ntoa(bytes.fromhex(address)[::-1]))
    return found


def test_tcp_binds_to_loopback_by_default():
    port = free_port()
    server = subprocess.Popen(
        [sys.executable, "-m", "miogen", "serve", "--tcp", "--port", str(port)],
        stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
    )  # fmt: skip
    try:
        deadline = time.monotonic() + 30
        while not listening_addresses(port) and time.monotonic() < deadline:
            assert server.poll() is None, server.stderr.read().decode()
            time.sleep(0.1)
        assert listening_addresses(port) == {"127.0.0.1"}
    finally:
        server.kill()
        server.wait(10)
