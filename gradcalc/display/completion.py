"""Tab completion's candidates: names in scope, keywords, and attributes after a dot, as the
program may read them (the sandbox's policy decides), without calling anything. Computed where
the program's objects live (the worker); the REPL's editor only shows them (repl/completion.py)."""
from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any, Callable

if TYPE_CHECKING:
    from ..session import Session

# The language's keywords (SPEC §4), offered with the names in scope.
KEYWORDS = (
    "False", "None", "True", "and", "as", "assert", "break", "class", "continue", "def", "del", "elif", "else",
    "except", "finally", "for", "from", "global", "if", "import", "in", "is", "lambda", "nonlocal", "not", "or",
    "pass", "raise", "return", "try", "while", "with", "yield",
)

# A dotted chain of names ending at the cursor: "x.grad_fn.na" -> ("x.grad_fn.", "na").
_DOTTED = re.compile(r"(?<![\w.])((?:[^\W\d]\w*\.)*)([^\W\d]\w*)?$")


def complete(session: Session, text: str) -> list[str]:
    """The names that can end `text`: a name in scope, a keyword, or an attribute after a dot.

    Only a chain of names is evaluated (through the sandbox, so a program's rules hold):
    nothing is called, and private or dunder names are never offered.
    """
    match = _DOTTED.search(text)
    if match is None or in_string_or_comment(text):
        return []
    chain, prefix = match.group(1), match.group(2) or ""
    if chain:
        from ..display.inspection import lookup

        try:
            value = lookup(session.namespace, session.builtins, chain[:-1])
        except Exception:  # a name not defined, a property that fails: nothing to offer
            return []
        names = [name for name in attribute_names(value) if not name.startswith("_")]
    else:
        names = [name for name in scope_names(session) if not name.startswith("_")] + list(KEYWORDS)
    return sorted(set(name for name in names if name.startswith(prefix)))


def scope_names(session: Session) -> list[str]:
    """The names a program's code can use: its own and the builtins (not the compiler's `$` names)."""
    return [name for scope in (session.namespace, session.builtins) for name in scope if not name.startswith("$")]


def attribute_names(value: Any) -> list[str]:
    """The attributes of `value` a program may read, listed without running a program's code: the
    `__dir__` used is the nearest one gradcalc or Python wrote, never one the program defined."""
    from ..display.inspection import reading_program
    from ..language import guard

    with reading_program():
        try:
            listing = _nearest_dir(type(value))
            names = list(listing(value))
            return [name for name in names if isinstance(name, str) and guard.readable_name(value, name)]
        except Exception:
            return []


def _nearest_dir(cls: type) -> Callable[[Any], Any]:
    from ..language import policy

    for base in cls.__mro__:
        if "__dir__" in vars(base) and not policy.is_program_class(base):
            return vars(base)["__dir__"]
    return object.__dir__


def split_comment(line: str) -> tuple[str, str, bool]:
    """(code, comment, whether the code ends inside a string) for one line of source."""
    quote = ""
    escaped = False
    for index, char in enumerate(line):
        if quote:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == quote:
                quote = ""
        elif char in "'\"":
            quote = char
        elif char == "#":
            return line[:index], line[index:], False
    return line, "", bool(quote)


def in_string_or_comment(line: str) -> bool:
    """Whether the end of `line` is inside a quoted string or a comment (one line is enough here)."""
    _, comment, in_string = split_comment(line)
    return bool(comment) or in_string
