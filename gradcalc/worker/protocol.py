"""Messages between a front end and its worker: a 4-byte big-endian length, then UTF-8 JSON."""
from __future__ import annotations

import json
import os
import struct
from typing import Any

_HEADER = struct.Struct(">I")


class ChannelClosed(Exception):
    """The other side went away (the worker died, or the front end did)."""


def send(fd: int, message: dict) -> None:
    data = json.dumps(message, ensure_ascii=False).encode("utf-8")
    data = _HEADER.pack(len(data)) + data
    while data:
        written = os.write(fd, data)
        data = data[written:]


class Receiver:
    """Reads messages from `fd`; what a read brought stays here if a KeyboardInterrupt cuts a
    message in two (Ctrl-C in the front end while it waits), so the next call goes on with it."""

    def __init__(self, fd: int) -> None:
        self.fd = fd
        self._buffer = b""

    def receive(self) -> Any:
        self._fill(_HEADER.size)
        (length,) = _HEADER.unpack(self._buffer[:_HEADER.size])
        self._fill(_HEADER.size + length)
        data = self._buffer[_HEADER.size:_HEADER.size + length]
        self._buffer = self._buffer[_HEADER.size + length:]
        return json.loads(data.decode("utf-8"))

    def _fill(self, size: int) -> None:
        while len(self._buffer) < size:
            chunk = os.read(self.fd, max(size - len(self._buffer), 65536))
            if not chunk:
                raise ChannelClosed
            self._buffer += chunk
