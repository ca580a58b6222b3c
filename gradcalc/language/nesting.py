"""Nesting that CPython 3.11 follows down the C stack without counting it, bounded before the
stack ends.

Hashing a tuple hashes its items in C, and a map, filter, zip or enumerate object asks its
iterator for the next item in C: neither passes Python's recursion check, so a tuple nested
200,000 deep or 100,000 maps over maps end CPython itself by SIGSEGV. gradcalc's `hash`
measures a tuple's nesting first, and its iterator builtins count how deep they are stacked;
past MAX_NESTING levels they raise Python's RecursionError, which a program can catch and the
REPL survives.
"""
from __future__ import annotations

import builtins
from typing import Any

# far below what the C stack holds (about 160 bytes a level, on a stack of 8 MiB or a thread's
# 1 MiB at least), far above what a program nests on purpose
MAX_NESTING = 5_000


def _too_deep() -> RecursionError:
    return RecursionError("maximum recursion depth exceeded")


def _hashes_items_in_c(value: Any) -> bool:
    return isinstance(value, tuple) and type(value).__hash__ is tuple.__hash__


def guarded_hash(*args: Any, **kwargs: Any) -> int:
    """hash(obj), refusing a tuple nested deeper than the C stack can hash."""
    if kwargs:
        raise TypeError("hash() takes no keyword arguments")
    if len(args) != 1:
        raise TypeError(f"hash() takes exactly one argument ({len(args)} given)")
    value = args[0]
    level = [value] if _hashes_items_in_c(value) else []
    depth = 0
    while level:  # level by level, each tuple once a level: shared items cost no more than their count
        depth += 1
        if depth > MAX_NESTING:
            raise _too_deep()
        inner = {id(item): item for outer in level for item in outer if _hashes_items_in_c(item)}
        level = list(inner.values())
    return builtins.hash(value)


def _nesting(value: Any) -> int:
    return getattr(value, "_nesting", 0) if isinstance(value, _COUNTED) else 0


def _enumerate_without_iterable(kwargs: dict) -> TypeError:
    # the words of enumerate's own fast call, which a subclass's call does not take
    if kwargs:
        return TypeError(f"'{next(iter(kwargs))}' is an invalid keyword argument for enumerate()")
    return TypeError("enumerate() missing required argument 'iterable'")


def _counted(base: type) -> type:
    """`base` (map, filter, zip, enumerate) that knows how many of its kind it stands on."""

    class Counted(base):  # type: ignore[valid-type, misc]
        __slots__ = ("_nesting",)

        def __new__(cls, *args: Any, **kwargs: Any) -> Any:
            if base is enumerate and not args and "iterable" not in kwargs:
                raise _enumerate_without_iterable(kwargs)
            made = base.__new__(cls, *args, **kwargs)
            nesting = 1 + max(map(_nesting, (*args, *kwargs.values())), default=0)
            if nesting > MAX_NESTING:
                raise _too_deep()
            made._nesting = nesting
            return made

    # shown as the builtin: `<class 'map'>`, `<map object at 0x...>`, Python's messages
    Counted.__name__ = Counted.__qualname__ = base.__name__
    Counted.__module__ = "builtins"
    Counted.__doc__ = base.__doc__
    return Counted


COUNTED_ITERATORS = {base.__name__: _counted(base) for base in (map, filter, zip, enumerate)}
_COUNTED = tuple(COUNTED_ITERATORS.values())
