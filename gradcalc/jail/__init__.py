"""The second wall: the operating system's, around the process that runs a program.

`apply()` gives up, for good and before the program's first line, everything a program has no
use for: the host's environment (wiped from memory, not only from os.environ), privileges
(no_new_privs, not dumpable), the file system beyond reading gradcalc's and Python's installation
(Landlock), system calls beyond an allow-list (seccomp-bpf: no exec, fork, sockets, ptrace, ...),
and resources (rlimits: the memory ceiling already set, no file writes, few descriptors, no core dump, CPU
seconds when asked). Where the system lacks a wall, one line on stderr says so and the others
still go up; `walls()` says which are up (`gradcalc --version` prints it).
"""
from __future__ import annotations

import os
import sys
from typing import Mapping, Optional

_STATUS: Optional[str] = None  # what apply() put up, once it has run


def _readable_paths() -> list[str]:
    """What lazy imports and dlopen read: gradcalc, Python's installation and site-packages, the
    system's shared libraries."""
    package = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    # the package, not the folder it is in: a checkout's, or an editable install's, holds more than gradcalc
    paths = {package, sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix, os.path.dirname(os.__file__)}
    paths.update(path for path in sys.path if path and os.path.isdir(path) and path != os.getcwd())
    paths.update(("/lib", "/lib64", "/usr/lib", "/usr/lib64", "/usr/local/lib", "/etc/ld.so.cache"))
    # a symlinked installation is reached through both names
    return sorted(paths | {os.path.realpath(path) for path in paths})


def _wipe_environment(keep: Mapping[str, str]) -> None:
    """Nothing of the host's variables stays: the block the kernel wrote them in at exec (what
    /proc/PID/environ shows), the strings C's `environ` points at now, and os.environ's bytes are
    overwritten before they are dropped."""
    import ctypes

    libc = ctypes.CDLL(None)
    environ = ctypes.c_void_p.in_dll(libc, "environ").value
    entries = ctypes.cast(environ, ctypes.POINTER(ctypes.c_void_p)) if environ else None
    index = 0
    while entries is not None and entries[index]:
        address = entries[index]
        ctypes.memset(address, 0, len(ctypes.string_at(address)))
        index += 1
    start, end = _environment_block()
    if start and end > start:
        ctypes.memset(start, 0, end - start)
    data = getattr(os.environ, "_data", {})
    for key, value in list(data.items()):
        for item in (key, value):
            # bytes of 2+ bytes held by os.environ alone (shorter ones are the interpreter's shared singletons)
            if isinstance(item, bytes) and len(item) > 1 and sys.getrefcount(item) <= 3:
                ctypes.memset(ctypes.c_char_p(item), 0, len(item))
    os.environ.clear()
    libc.clearenv()
    os.environ.update(keep)


def _environment_block() -> tuple[int, int]:
    """Where exec put the environment's strings: fields 50 and 51 of /proc/self/stat."""
    try:
        with open("/proc/self/stat", "rb") as stat:
            fields = stat.read().rpartition(b")")[2].split()
        return int(fields[47]), int(fields[48])
    except (OSError, ValueError, IndexError):
        return 0, 0


def _set_rlimits(cpu_seconds: Optional[int]) -> None:
    import _signal  # signal's enums cost start-up a millisecond
    import resource

    def cap(which: int, value: int) -> None:
        _, hard = resource.getrlimit(which)
        if hard != resource.RLIM_INFINITY:
            value = min(value, hard)
        resource.setrlimit(which, (value, value))

    # the memory ceiling (limits.set_memory_limit) becomes one the program cannot raise
    memory, _ = resource.getrlimit(resource.RLIMIT_AS)
    if memory != resource.RLIM_INFINITY:
        cap(resource.RLIMIT_AS, memory)
    cap(resource.RLIMIT_CORE, 0)
    # the descriptors it holds, and a few for a lazy import's files
    cap(resource.RLIMIT_NOFILE, max(32, _highest_fd() + 16))
    if not any(_is_regular_file(fd) for fd in (1, 2)):
        # no file to write, ever; but output redirected to a file (`gradcalc f.grad > out`) must still be written
        _signal.signal(_signal.SIGXFSZ, _signal.SIG_IGN)
        cap(resource.RLIMIT_FSIZE, 0)
    if cpu_seconds:
        cap(resource.RLIMIT_CPU, cpu_seconds)
    # RLIMIT_NPROC counts every process of the user, not the jail's: seccomp refuses fork instead


def _highest_fd() -> int:
    try:
        return max(int(name) for name in os.listdir("/proc/self/fd"))
    except (OSError, ValueError):
        return 2


def _is_regular_file(fd: int) -> bool:
    import stat

    try:
        return stat.S_ISREG(os.fstat(fd).st_mode)
    except OSError:
        return False


def _thread_count() -> int:
    try:
        return len(os.listdir("/proc/self/task"))
    except OSError:
        return 1


def _prctl(option: int, value: int) -> None:
    import ctypes

    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(option, value, 0, 0, 0) != 0:
        number = ctypes.get_errno()
        raise OSError(number, os.strerror(number))


_PR_SET_DUMPABLE, _PR_SET_NO_NEW_PRIVS = 4, 38


def apply(cpu_seconds: Optional[int] = None, environment: Optional[Mapping[str, str]] = None,
          warn: bool = True) -> str:
    """Jail this process for good: call it once, after start-up (everything the program needs
    loaded) and before the program's first line, with no other thread running. Returns what is up,
    as walls() says it; what could not go up is said once on stderr unless `warn` is False."""
    global _STATUS
    if _STATUS is not None:
        return _STATUS
    missing = []
    up = []
    if not sys.platform.startswith("linux"):
        _STATUS = "none (not Linux)"
        if warn:
            sys.stderr.write("gradcalc: warning: no sandbox on this system: programs run unconfined\n")
        return _STATUS
    # loaded before the rlimits: a module compiled later could not write its .pyc (RLIMIT_FSIZE)
    from . import landlock, seccomp_filter

    abi = landlock.abi_version()
    filtering = seccomp_filter.prepare()
    threads = _thread_count()
    _wipe_environment(environment or {})
    _set_rlimits(cpu_seconds)
    _prctl(_PR_SET_NO_NEW_PRIVS, 1)
    _prctl(_PR_SET_DUMPABLE, 0)
    if abi:
        landlock.restrict(_readable_paths(), abi)
        up.append(f"landlock {abi}")
        if threads > 1:  # Landlock holds the calling thread and those it makes later, not the others
            missing.append(f"landlock on {threads - 1} thread(s) started before it")
    else:
        missing.append("landlock")
    if filtering:
        seccomp_filter.install()
        up.append("seccomp")
    else:
        missing.append("seccomp (libseccomp or pyseccomp missing)")
    up.append("rlimits")
    _STATUS = ", ".join(up) + ("; missing: " + ", ".join(missing) if missing else "")
    if missing and warn:
        sys.stderr.write(f"gradcalc: warning: the sandbox's OS wall is incomplete here, missing: "
                         f"{', '.join(missing)}\n")
        sys.stderr.flush()
    return _STATUS


def walls() -> str:
    """Which walls this system can put up, e.g. `landlock 7, seccomp, rlimits` (without applying them)."""
    if _STATUS is not None:
        return _STATUS
    if not sys.platform.startswith("linux"):
        return "none (not Linux)"
    from . import landlock, seccomp_filter

    abi = landlock.abi_version()
    filtering = seccomp_filter.prepare()
    up = ([f"landlock {abi}"] if abi else []) + (["seccomp"] if filtering else []) + ["rlimits"]
    missing = ([] if abi else ["landlock"]) + ([] if filtering else ["seccomp"])
    return ", ".join(up) + ("; missing: " + ", ".join(missing) if missing else "")
