"""Messages between a front end and its worker: a 4-byte big-endian length, then UTF-8 JSON."""
from __future__ import annotations

import json
import os
import struct
from typing import Any

_HEADER = struct.Struct(">I")
# a jailed worker may be hostile: the front end reads no message longer than this
MAX_MESSAGE = 256 << 20


class ChannelClosed(Exception):
    """The other side went away (the worker died, or the front end did), or broke the protocol."""


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
        if length > MAX_MESSAGE:
            raise ChannelClosed(f"a message of {length:,} bytes")
        self._fill(_HEADER.size + length)
        data = self._buffer[_HEADER.size:_HEADER.size + length]
        self._buffer = self._buffer[_HEADER.size + length:]
        try:
            message = json.loads(data.decode("utf-8"))
        except ValueError:
            raise ChannelClosed("a message that is not JSON") from None
        if not isinstance(message, dict):
            raise ChannelClosed("a message that is not a JSON object")
        return message

    def _fill(self, size: int) -> None:
        while len(self._buffer) < size:
            chunk = os.read(self.fd, max(size - len(self._buffer), 65536))
            if not chunk:
                raise ChannelClosed
            self._buffer += chunk
