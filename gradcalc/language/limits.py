"""What keeps a runaway or hostile program from harming the host, behind the policy:

* integer `**` and `<<` that could not fit in memory end at once, in one line;
* a memory ceiling for the whole process (`--max-memory`), so a program ends in MemoryError
  rather than in the machine's swap;
* a second wall: a Python audit hook (PEP 578) that, while a program runs (its statements, the
  lines gradcalc makes of its errors, every garbage collection on the thread that runs it, and,
  in the command line, from its first line to the end of the process), refuses opening files for
  writing or outside Python's and gradcalc's installation, starting processes, sockets, ctypes
  and frame introspection. A gap in the policy is then not yet an escape. Its switches live in closure
  cells that no module attribute holds, and once raised for good it cannot be lowered.
"""
from __future__ import annotations

import _thread
import collections
import gc
import operator
import os
import sys
from contextlib import contextmanager
from typing import Any, Callable, Iterator, Optional

# Integers of more bits than this (4 MiB, about 10 million digits) are refused.
MAX_INTEGER_BITS = 1 << 25


def _too_large(description: str, bits: int) -> MemoryError:
    digits = int(bits * 0.30103)
    return MemoryError(f"{description} would have about {digits:,} digits: too large an integer for gradcalc")


def _check_power(base: Any, exponent: Any) -> None:
    """Refuses an integer power too large for memory. Other types pass by identity tests alone,
    and a program's runaway recursion met here ends in CPython's words: a comparison here would
    add "in comparison" to them, where CPython's `**` has no check of its own."""
    kind = type(base)
    if kind is not int and kind is not bool:
        return
    kind = type(exponent)
    if kind is not int and kind is not bool:
        return
    try:
        too_many = exponent > 1 and (abs(base).bit_length() - 1) * exponent > MAX_INTEGER_BITS
    except RecursionError as error:  # its words changed in place: making a new one is a call, checked too
        error.args = ("maximum recursion depth exceeded",)
        raise
    if too_many:
        raise _too_large(f"{base} ** {exponent}", (abs(base).bit_length() - 1) * exponent)


def guarded_pow(base: Any, exponent: Any, modulus: Any = None) -> Any:
    """`base ** exponent` and `pow()`, refusing integers that could not fit in memory."""
    if modulus is not None:
        return pow(base, exponent, modulus)
    _check_power(base, exponent)
    return base ** exponent


def guarded_ipow(base: Any, exponent: Any) -> Any:
    _check_power(base, exponent)
    return operator.ipow(base, exponent)


def _check_shift(value: Any, count: Any) -> None:
    if type(value) in (int, bool) and type(count) in (int, bool) and value and count > MAX_INTEGER_BITS:
        raise _too_large(f"{value} << {count}", count)


def guarded_lshift(value: Any, count: Any) -> Any:
    _check_shift(value, count)
    return value << count


def guarded_ilshift(value: Any, count: Any) -> Any:
    _check_shift(value, count)
    return operator.ilshift(value, count)


# ------------------------------------------------------------------ memory

def default_memory_limit() -> int:
    """A quarter of the machine's memory, at least 1 GiB."""
    try:
        total = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):
        return 4 << 30
    return max(total // 4, 1 << 30)


def mapped_bytes() -> int:
    """This process's address space now (a forked child's is its parent's): a ceiling set after a
    fork comes on top of it."""
    try:
        with open("/proc/self/statm") as statm:
            return int(statm.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError):
        return 0


def parse_size(text: str) -> int:
    """`2G`, `512M`, `1000000` (bytes); 0 means no limit."""
    units = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40}
    text = text.strip().upper().removesuffix("B").removesuffix("I")
    scale = units.get(text[-1:], 1)
    number = text[:-1] if text[-1:] in units else text
    value = float(number)
    if value < 0:
        raise ValueError(text)
    return int(value * scale)


# what the dynamic loader says when the memory ceiling leaves no room to map a library
_MAPPING_FAILED = "failed to map segment"
TOO_LOW_TO_LOAD = "out of memory while starting: the memory ceiling (--max-memory) is too low for gradcalc to load"


def starved(error: BaseException) -> bool:
    """Whether `error`, raised while gradcalc loads, is its memory ceiling leaving it no room."""
    return isinstance(error, MemoryError) or _MAPPING_FAILED in str(error)


def set_memory_limit(limit: int) -> None:
    """Cap the process's address space at `limit` bytes (0: no cap), where the OS allows it."""
    if limit <= 0:
        return
    try:
        import resource

        _, hard = resource.getrlimit(resource.RLIMIT_AS)
        if hard != resource.RLIM_INFINITY:
            limit = min(limit, hard)
        resource.setrlimit(resource.RLIMIT_AS, (limit, hard))
        _room_for_the_c_stack(resource, limit)
    except (ImportError, ValueError, OSError):  # not on this system: the limit is best effort
        return
    keep_reserve()


def _room_for_the_c_stack(resource: Any, memory: int) -> None:
    """Let the main thread's C stack grow with the memory: C code that recurses without Python's
    recursion check (hashing a dict key that is a tuple nested 200,000 deep, about 80 bytes a
    level) would end the process by SIGSEGV on a stack of 8 MiB."""
    soft, hard = resource.getrlimit(resource.RLIMIT_STACK)
    wanted = min(memory, _MAX_STACK) if hard == resource.RLIM_INFINITY else min(memory, _MAX_STACK, hard)
    if soft != resource.RLIM_INFINITY and soft < wanted:
        resource.setrlimit(resource.RLIMIT_STACK, (wanted, hard))


# How much room for nested calls a function called at a program's top level has under the
# reference runner (SPEC's torch_run.py: its module, main() and run() frames and exec's stand above
# the program). Which of CPython's checks a runaway recursion meets first (a call's, or a
# comparison's: "maximum recursion depth exceeded in comparison") follows from it.
REFERENCE_ROOM = 994
ROOM_PROBE = compile("def probe(n):\n    try:\n        return probe(n + 1)\n    except RecursionError:\n"
                     "        return n\nroom = probe(0)\n", "<room>", "exec")
_added_room = 0  # what the recursion limit holds above Python's for that


def match_reference_room(room: int) -> None:
    """Move the recursion limit so that a program's top level, where ROOM_PROBE measured `room`,
    has the reference runner's room."""
    global _added_room
    change = REFERENCE_ROOM - room
    sys.setrecursionlimit(sys.getrecursionlimit() + change)
    _added_room += change


# what gradcalc's own loading of a module on first use may need beyond a program's depth
_LOADING_ROOM = 3000


def with_room(load: Callable[[], Any]) -> Any:
    """`load()` with room for its nested calls whatever depth a program has reached: PyTorch's
    modules are loaded before a program starts, so loading one of gradcalc's on first use must
    neither fail nor leave it half made because the program is deep in a recursion."""
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(limit + _LOADING_ROOM)
    try:
        return load()
    finally:
        sys.setrecursionlimit(limit)


def program_recursion_limit() -> int:
    """`sys.getrecursionlimit()` as a program sees it: Python's, without the room gradcalc adds."""
    return sys.getrecursionlimit() - _added_room


# the most the C stack may take (the kernel keeps at least this much room below the heap's start
# for a stack limit raised after exec)
_MAX_STACK = 128 << 20

# Memory held back under the ceiling for the moment a program reaches it: freed then, it lets the
# MemoryError be reported (its line, the frames it drops) where CPython would otherwise find no
# memory even for that, and fail in C
_RESERVE_BYTES = 16 << 20
_reserve: list = []


def keep_reserve() -> None:
    """Hold the reserve again (after a report freed it), if the memory is there."""
    if not _reserve:
        try:
            _reserve.append(_reserved_memory())
        except MemoryError:
            pass


def _reserved_memory() -> Any:
    """The reserve's address space (what the ceiling counts): an anonymous mapping, whose pages are
    never touched (a bytearray's zeroing took about 12 ms of every start); a bytearray where the
    mapping is refused (the sandbox's wall, up after a program's statement)."""
    try:
        import mmap

        return mmap.mmap(-1, _RESERVE_BYTES)
    except (ImportError, OSError):  # the wall's PermissionError; no room (then the bytearray's MemoryError)
        return bytearray(_RESERVE_BYTES)


def release_reserve() -> None:
    """Free the reserve: a MemoryError is to be reported."""
    _reserve.clear()


# ------------------------------------------------------------------ the audit hook

_REFUSED_EVENTS = (
    "os.system", "os.exec", "os.posix_spawn", "os.spawn", "os.fork", "os.forkpty", "os.kill", "os.killpg",
    "os.startfile", "subprocess.", "pty.", "socket.", "ctypes.", "os.remove", "os.rename", "os.rmdir", "os.mkdir",
    "os.chmod", "os.chown", "os.lchown", "os.chflags", "os.link", "os.symlink", "os.truncate", "os.utime",
    "os.chdir", "os.putenv", "os.unsetenv", "os.setxattr", "os.removexattr", "os.mkfifo", "os.mknod", "shutil.",
    "tempfile.", "sys.settrace", "sys.setprofile", "sys.addaudithook", "gc.get_", "code.__new__",
    "function.__new__", "mmap.", "resource.setrlimit", "resource.prlimit", "fcntl.", "webbrowser.", "urllib.",
    "http.", "ftplib.", "smtplib.", "poplib.", "imaplib.", "nntplib.", "telnetlib.", "sqlite3.", "pickle.find_class",
    "builtins.input", "builtins.breakpoint", "winreg.", "msvcrt.",
)
_FRAME_EVENTS = ("sys._getframe", "sys._current_frames", "sys._current_exceptions")
# `object.__getattr__` is also raised for a function's `__code__`, which dataclasses reads: only
# the attributes that lead to frames are refused
_FRAME_ATTRIBUTES = frozenset({"tb_frame", "f_back", "f_code", "gi_frame", "gi_code", "cr_frame", "cr_code",
                               "ag_frame", "ag_code"})
_LISTING_EVENTS = ("os.listdir", "os.scandir", "glob.glob", "os.getxattr", "os.listxattr")
_WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_APPEND | os.O_TRUNC


def _make_hook(roots: tuple, active: Callable[[], bool], lowered: Callable[[], bool],
               reading_stack: Callable[[], bool], native: Callable[[], bool]) -> Callable:
    """An audit hook refusing what a program must not do while `active()` (a cheap test, made on
    every event), unless `lowered()` (asked only before a refusal: for this thread, the wall is
    down); `reading_stack()` lets gradcalc's own look at who called it through (host_frame),
    `native()` gradcalc's own ctypes calls (native_call)."""

    def inside(path: Any) -> bool:
        if isinstance(path, int) or path is None:
            return path is None
        try:
            full = os.path.realpath(os.fsdecode(path))
        except (TypeError, ValueError):
            return False
        return any(full == root or full.startswith(root + os.sep) for root in roots)

    def refusal(event: str, args: tuple) -> Optional[Exception]:
        if event == "open":
            path, mode, flags = args[:3]
            if (isinstance(mode, str) and any(c in mode for c in "wax+")) or (
                    isinstance(flags, int) and flags & _WRITE_FLAGS):
                return PermissionError("gradcalc's sandbox refused to open a file for writing")
            if not inside(path):
                return PermissionError("gradcalc's sandbox refused to open a file outside Python's installation")
        elif event.startswith(_REFUSED_EVENTS):
            if not (event.startswith("ctypes.") and native()):
                return PermissionError(f"gradcalc's sandbox refused {event}")
        elif event.startswith(_FRAME_EVENTS) or (event == "object.__getattr__" and args[1] in _FRAME_ATTRIBUTES):
            if not reading_stack():
                # AttributeError: the standard library falls back where frames are unavailable (typing, enum)
                return AttributeError(f"gradcalc's sandbox refused {event}")
        elif event.startswith(_LISTING_EVENTS) and args and not inside(args[0]):
            return PermissionError(f"gradcalc's sandbox refused {event}")
        return None

    def hook(event: str, args: tuple) -> None:
        if not active():
            return
        refused = refusal(event, args)
        if refused is not None and not lowered():
            raise refused

    return hook


def _readable_roots() -> tuple:
    """Python's installation, the site-packages gradcalc and its dependencies live in, and
    gradcalc itself: where lazy imports read their files."""
    here = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    candidates = {sys.prefix, sys.base_prefix, sys.exec_prefix, here}
    candidates.update(path for path in sys.path if "site-packages" in path or "dist-packages" in path)
    return tuple(sorted({os.path.realpath(path) for path in candidates if path}))


def _make_wall() -> tuple:
    """The wall's switches. Its state lives in this closure's cells, not in an object a module
    holds: nothing a program (or code that got past the policy) can name reaches it. Raising it
    for good adds a second hook that is always on and holds no switch at all: hooks cannot be
    removed, so nothing in the process can lower it again.

    What lowers the wall (gradcalc loading a module, reading frames, calling MKL) and what raises
    it for a collection holds for the thread that does it only: gradcalc's own work on one thread
    never opens the wall to code on another. A program's statements raise it for every thread
    (`depth`): a program cannot start threads (the policy refuses `threading` and its kin), but a
    host thread may drop the last reference to a program's object, whose finaliser then runs there."""
    depth = 0
    installed = False
    permanent = False
    roots: tuple = ()
    # Held by the thread doing gradcalc's own work that the wall lets through. Locks, not switches
    # set by Python code: their `with` takes and gives them back in C, where no Ctrl-C (a signal
    # handler's exception) can come between, which could leave the wall lowered.
    pausing = _thread.RLock()
    reading = _thread.RLock()
    native_thread = 0  # the thread in gradcalc's own call into MKL (0: none)
    thread_id = _thread.get_ident  # (a closure's cell is read faster than a module's attribute)

    # A collection finalises a program's objects (a generator's `finally`) whatever code it
    # interrupts: it runs behind the wall, on the thread that collects. The collector's callbacks
    # are C methods, so that no Python code (a signal handler's KeyboardInterrupt, a time-out) can
    # run in them and leave a phase half recorded; each collection records both phases anew.
    # (move_to_end(phase, info): the info dict, never empty, is its `last`, true.)
    phases = collections.OrderedDict(start=None, stop=None)  # the latest phase last; their info dicts
    collector = _thread._local()  # threading.local: in each thread, the info dicts of its own latest phases

    def collection_under_way() -> bool:
        return next(reversed(phases)) == "start"

    def collecting_here() -> bool:
        return collection_under_way() and getattr(collector, "start", None) is phases["start"]

    def lowered_here() -> bool:
        return not collecting_here() and (depth == 0 or pausing._is_owned())

    def reading_here() -> bool:
        return reading._is_owned() and not collecting_here()

    def native_here() -> bool:
        return native_thread == thread_id() and not collecting_here()

    def install() -> None:
        nonlocal installed, roots
        if not installed:
            roots = _readable_roots()
            collector.start = collector.stop = None  # this thread's record made now, not in a collection
            os.register_at_fork(after_in_child=_reinitialised(pausing, reading))
            sys.addaudithook(_make_hook(roots, lambda: depth > 0 or collection_under_way(), lowered_here,
                                        reading_here, native_here))
            gc.callbacks.extend((phases.move_to_end, phases.__setitem__, collector.__setattr__))
            installed = True

    @contextmanager
    def up() -> Iterator[None]:
        # an interrupt that cuts this block's exit short leaves the wall up (never down) until the
        # block is freed
        nonlocal depth
        install()
        depth += 1
        try:
            yield
        finally:
            depth -= 1

    def for_good() -> None:
        nonlocal permanent
        install()
        if not permanent:
            sys.addaudithook(_make_hook(roots, lambda: True, lambda: False, reading_here, native_here))
            permanent = True

    def native(function: Callable, *args: Any, **kwargs: Any) -> Any:
        # a plain call rather than a context manager: it runs around every MKL call, a few per op
        nonlocal native_thread
        saved, native_thread = native_thread, thread_id()
        try:
            return function(*args, **kwargs)
        finally:
            native_thread = saved

    def is_up() -> bool:
        return permanent or collecting_here() or (depth > 0 and not pausing._is_owned())

    return up, pausing, for_good, reading, native, is_up


def _reinitialised(*locks: Any) -> Callable[[], None]:
    """What a forked child does to `locks`: another thread that held one at the fork does not
    exist there (the thread that forked goes on, and gives back what it holds)."""
    def reinitialise() -> None:
        for lock in locks:
            if not lock._is_owned():
                lock._at_fork_reinit()
    return reinitialise


_up, _pausing, _for_good, _reading, _native, _is_up = _make_wall()


# native_call(FUNCTION, *args, **kwargs): FUNCTION's result, the wall letting through its ctypes
# calls: gradcalc's own calls into MKL (autograd/mkl.py) and glibc's sinf (autograd/ops/resampling.py),
# its writes of its own types' slots (autograd/sequence_slots.py, display/names.py): fixed calls on
# gradcalc's own buffers and types, during which no program code runs. Every other refusal stays.
native_call = _native


def wall_paused() -> Any:
    """gradcalc's own work inside a program's statement (loading a standard module, which reads
    its own code): no program code runs meanwhile. Once the wall is up for good, it stays up."""
    return _pausing


def wall_up() -> Any:
    """The audit hook refuses while this block runs (a program's statements)."""
    return _up()


def wall_up_for_good() -> None:
    """From now on until the process ends, irreversibly: the command line once the program has
    started, a worker before its first program, a test process (the pytest plugin) before its
    first session."""
    _for_good()


def reading_frames() -> Any:
    """gradcalc's own look at frames and tracebacks (who called numpy; where an error was raised),
    which the wall lets through: no program code may run inside this block, and no frame read
    in it may reach a program."""
    return _reading


def host_frame(depth: int) -> Any:
    """The frame `depth` calls above the caller (as sys._getframe counts), for gradcalc's own look
    at who called it (walking on by `f_back` and `f_globals` raises no audit event)."""
    with _reading:
        return sys._getframe(depth + 1)


def wall_is_up() -> bool:
    return _is_up()


def memory_limit_from(option: Optional[str]) -> int:
    return default_memory_limit() if option is None else parse_size(option)
