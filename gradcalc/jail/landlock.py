"""Landlock (Linux 5.13+): the process may read gradcalc's and Python's installation and the
shared libraries they load, and nothing else; it may write, create, remove, truncate nothing,
bind or connect no TCP port (ABI 4), reach no abstract UNIX socket and signal no process outside
itself (ABI 6). Three system calls, made through ctypes: the rights are the kernel's
(include/uapi/linux/landlock.h), each ABI handled with every right it knows."""
from __future__ import annotations

import ctypes
import os
from typing import Iterable

_CREATE_RULESET, _ADD_RULE, _RESTRICT_SELF = 444, 445, 446  # the same numbers on every architecture
_CREATE_RULESET_VERSION = 1
_RULE_PATH_BENEATH = 1

# filesystem rights, by the ABI that introduced them
_EXECUTE, _WRITE_FILE, _READ_FILE, _READ_DIR = 1 << 0, 1 << 1, 1 << 2, 1 << 3
_FS_RIGHTS = {1: (1 << 13) - 1, 2: 1 << 13, 3: 1 << 14, 5: 1 << 15}  # ABI 1 .. MAKE_SYM; REFER; TRUNCATE; IOCTL_DEV
_NET_BIND_TCP, _NET_CONNECT_TCP = 1 << 0, 1 << 1  # ABI 4
_SCOPE_ABSTRACT_UNIX_SOCKET, _SCOPE_SIGNAL = 1 << 0, 1 << 1  # ABI 6


class _PathBeneath(ctypes.Structure):
    _pack_ = 1
    _fields_ = [("allowed_access", ctypes.c_uint64), ("parent_fd", ctypes.c_int32)]


class _Ruleset(ctypes.Structure):
    _fields_ = [("handled_access_fs", ctypes.c_uint64), ("handled_access_net", ctypes.c_uint64),
                ("scoped", ctypes.c_uint64)]


_libc = ctypes.CDLL(None, use_errno=True)
_syscall = _libc.syscall
_syscall.restype = ctypes.c_long


def abi_version() -> int:
    """The kernel's Landlock ABI; 0 where there is none (an old kernel, Landlock not enabled)."""
    version = _syscall(ctypes.c_long(_CREATE_RULESET), None, ctypes.c_size_t(0),
                       ctypes.c_uint32(_CREATE_RULESET_VERSION))
    return max(int(version), 0)


def _fail(what: str) -> OSError:
    number = ctypes.get_errno()
    return OSError(number, f"landlock {what}: {os.strerror(number)}")


def restrict(readable: Iterable[str], abi: int) -> None:
    """Restrict the calling thread, and every process and thread it makes later, for good."""
    handled_fs = 0
    for version, rights in _FS_RIGHTS.items():
        if abi >= version:
            handled_fs |= rights
    attr = _Ruleset(handled_fs, _NET_BIND_TCP | _NET_CONNECT_TCP if abi >= 4 else 0,
                    _SCOPE_ABSTRACT_UNIX_SOCKET | _SCOPE_SIGNAL if abi >= 6 else 0)
    # the kernel reads as much of the structure as the ABI knows
    size = 24 if abi >= 6 else 16 if abi >= 4 else 8
    ruleset = _syscall(ctypes.c_long(_CREATE_RULESET), ctypes.byref(attr), ctypes.c_size_t(size), ctypes.c_uint32(0))
    if ruleset < 0:
        raise _fail("create_ruleset")
    try:
        for path in readable:
            _allow_reading(int(ruleset), path)
        if _syscall(ctypes.c_long(_RESTRICT_SELF), ctypes.c_int(ruleset), ctypes.c_uint32(0)) < 0:
            raise _fail("restrict_self")
    finally:
        os.close(ruleset)


def _allow_reading(ruleset: int, path: str) -> None:
    try:
        fd = os.open(path, os.O_PATH | os.O_CLOEXEC)
    except OSError:  # not on this machine: nothing to allow
        return
    try:
        # a directory: read its files and list it; a single file: read it (no execute: nothing is exec'd)
        access = _READ_FILE | _READ_DIR if os.path.isdir(path) else _READ_FILE
        rule = _PathBeneath(access, fd)
        if _syscall(ctypes.c_long(_ADD_RULE), ctypes.c_int(ruleset), ctypes.c_int(_RULE_PATH_BENEATH),
                    ctypes.byref(rule), ctypes.c_uint32(0)) < 0:
            raise _fail(f"add_rule {path}")
    finally:
        os.close(fd)
