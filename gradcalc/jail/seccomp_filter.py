"""The seccomp-bpf allow-list, built with libseccomp through pyseccomp (a ctypes binding with the
API of libseccomp's own Python module, which is not on PyPI).

Allowed: what CPython, numpy and gradcalc do once started — reading the files Landlock lets
them open, memory, threads, time, signals to the process itself. Every other system call fails
with EPERM rather than killing the process: a program (or a policy escape) that tries one gets a
PermissionError, one clean line, and an unforeseen call from glibc in a rare path shows as an
error rather than as a worker that vanished. Named here, refused: execve/execveat, fork/vfork
(and clone without CLONE_THREAD), every socket call, ptrace and process_vm_*, mount, namespaces,
bpf, keyctl, perf_event_open, io_uring, userfaultfd, setrlimit, ...: none is on the list."""
from __future__ import annotations

import ctypes
import errno
import os
import struct
import sys
import types
from typing import Any, Optional

_CLONE_THREAD = 0x00010000
# terminal ioctls CPython's io and Rich use to look at stdout; not TIOCSTI (typing into the terminal)
_TCGETS, _TIOCGWINSZ, _FIONREAD, _FIONCLEX, _FIOCLEX = 0x5401, 0x5413, 0x541B, 0x5450, 0x5451

_ALLOWED = (
    # files Landlock lets it read, and the descriptors it holds
    "read", "readv", "pread64", "preadv", "preadv2", "write", "writev", "pwrite64", "lseek", "close",
    "close_range", "open", "openat", "openat2", "stat", "fstat", "lstat", "newfstatat", "statx", "statfs",
    "fstatfs", "access", "faccessat", "faccessat2", "readlink", "readlinkat", "getcwd", "getdents", "getdents64",
    "fcntl", "dup", "dup2", "dup3", "fadvise64", "flock", "fsync", "fdatasync",
    "poll", "ppoll", "select", "pselect6", "epoll_create1", "epoll_ctl", "epoll_wait", "epoll_pwait",
    # memory
    "brk", "mmap", "munmap", "mremap", "mprotect", "madvise", "mincore", "membarrier",
    # threads and their synchronisation
    "futex", "futex_waitv", "set_robust_list", "get_robust_list", "set_tid_address", "rseq", "sched_yield",
    "sched_getaffinity", "sched_getparam", "sched_getscheduler", "getcpu", "exit", "exit_group",
    # signals (kill and tgkill only to itself, below)
    "rt_sigaction", "rt_sigprocmask", "rt_sigreturn", "rt_sigpending", "rt_sigtimedwait", "rt_sigsuspend",
    "sigaltstack", "pause", "alarm", "getitimer", "setitimer", "restart_syscall",
    # time and identity
    "clock_gettime", "clock_getres", "clock_nanosleep", "nanosleep", "gettimeofday", "time", "times",
    "getpid", "gettid", "getppid", "getpgrp", "getpgid", "getsid", "getuid", "geteuid", "getgid", "getegid",
    "getresuid", "getresgid", "getgroups", "uname", "sysinfo", "getrusage", "getrlimit", "getrandom",
    "getpriority",
)


def _load_pyseccomp() -> Any:
    """pyseccomp finds libc and libseccomp with ctypes.util, which imports subprocess and runs
    ldconfig: as much of the command line's start-up as the rest of the jail. Their sonames are
    known, so a stand-in answers while pyseccomp loads (ctypes.util itself where it is loaded)."""
    if "pyseccomp" in sys.modules or "ctypes.util" in sys.modules:
        import pyseccomp

        return pyseccomp
    stand_in = types.ModuleType("ctypes.util")
    stand_in.find_library = {"c": "libc.so.6", "seccomp": "libseccomp.so.2"}.get  # type: ignore[attr-defined]
    sys.modules["ctypes.util"] = ctypes.util = stand_in  # type: ignore[attr-defined]
    try:
        import pyseccomp
    finally:
        del sys.modules["ctypes.util"], ctypes.util
    return pyseccomp


# The program libseccomp compiles, made once (a zygote makes it before it forks, and each child
# only writes its pid in and loads it: libseccomp's compiling costs a child more than the rest of
# the jail). The pid it allows signals to is this placeholder until then, above any pid Linux gives.
_PLACEHOLDER_PID = 0x3FFFFFF7
_SECCOMP_SET_MODE_FILTER, _SECCOMP_FILTER_FLAG_TSYNC = 1, 1
_program: Optional[bytes] = None
_seccomp_call = -1  # the seccomp(2) system call's number here


class _Program(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]


def prepare() -> bool:
    """Compile the allow-list, once; False where there is no libseccomp."""
    global _program, _seccomp_call
    if _program is not None:
        return True
    try:
        seccomp = _load_pyseccomp()
    except (ImportError, OSError, RuntimeError, AttributeError):  # no binding, or no libseccomp
        return False
    flt = seccomp.SyscallFilter(seccomp.ERRNO(errno.EPERM))
    flt.set_attr(seccomp.Attr.ACT_BADARCH, seccomp.KILL_PROCESS)  # 32-bit or x32 calls: no way round the list
    for name in _ALLOWED:
        try:
            flt.add_rule(seccomp.ALLOW, name)
        except OSError:  # a call this architecture does not have (open, stat... on arm64)
            pass
    # signals to itself only (Python's KeyboardInterrupt ending, abort())
    flt.add_rule(seccomp.ALLOW, "kill", seccomp.Arg(0, seccomp.EQ, _PLACEHOLDER_PID))
    flt.add_rule(seccomp.ALLOW, "tgkill", seccomp.Arg(0, seccomp.EQ, _PLACEHOLDER_PID))
    # threads only: a clone that makes a process is refused
    flt.add_rule(seccomp.ALLOW, "clone", seccomp.Arg(0, seccomp.MASKED_EQ, _CLONE_THREAD, _CLONE_THREAD))
    # clone3 passes its flags in memory, which seccomp cannot read: ENOSYS makes glibc use clone
    flt.add_rule(seccomp.ERRNO(errno.ENOSYS), "clone3")
    for request in (_TCGETS, _TIOCGWINSZ, _FIONREAD, _FIONCLEX, _FIOCLEX):
        flt.add_rule(seccomp.ALLOW, "ioctl", seccomp.Arg(1, seccomp.EQ, request))
    # reading a limit, never setting one
    flt.add_rule(seccomp.ALLOW, "prlimit64", seccomp.Arg(2, seccomp.EQ, 0))
    with os.fdopen(os.memfd_create("gradcalc-seccomp"), "w+b") as exported:
        flt.export_bpf(exported)
        exported.seek(0)
        _program = exported.read()
    _seccomp_call = seccomp.resolve_syscall(seccomp.system_arch(), "seccomp")
    return True


def install() -> None:
    """Load the filter into every thread of the process, for good (no_new_privs is already set)."""
    assert _program is not None
    # sock_filter: u16 code, u8 jt, u8 jf, u32 k; the placeholder is a k, compared with the pid's low word
    code = bytearray(_program)
    patched = 0
    for offset in range(4, len(code), 8):
        if struct.unpack_from("=I", code, offset)[0] == _PLACEHOLDER_PID:
            struct.pack_into("=I", code, offset, os.getpid())
            patched += 1
    if not patched:  # libseccomp may share one comparison between kill and tgkill
        raise OSError(errno.EINVAL, "seccomp: the compiled filter is not of the expected form")
    buffer = ctypes.create_string_buffer(bytes(code), len(code))
    program = _Program(len(code) // 8, ctypes.cast(buffer, ctypes.c_void_p))
    libc = ctypes.CDLL(None, use_errno=True)
    libc.syscall.restype = ctypes.c_long
    if libc.syscall(ctypes.c_long(_seccomp_call), ctypes.c_uint(_SECCOMP_SET_MODE_FILTER),
                    ctypes.c_uint(_SECCOMP_FILTER_FLAG_TSYNC), ctypes.byref(program)) != 0:
        number = ctypes.get_errno()
        raise OSError(number, f"seccomp: {os.strerror(number)}")
