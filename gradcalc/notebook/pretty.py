"""A cell's value as IPython's display hook shows it (IPython.lib.pretty, BSD-licensed, whose
layout this follows): a list, tuple, dict or set is laid out in groups that break when wider than
79 columns, and a multi-line repr inside one (a tensor's) is indented under its bracket, so
`[ones(2, 2)]` shows its second row one column further right than repr() puts it.

Runs in the worker, on the program's values: only repr() and the type's own attributes are read."""
from __future__ import annotations

import io
import re
from collections import deque
from typing import Any, Callable, Optional

MAX_WIDTH = 79
MAX_SEQ_LENGTH = 1000  # IPython shows a longer container's first 1000 items, then `...`
# object.__repr__'s form, which IPython shows as `<NAME at 0x...>` (a grad_fn node's, in PyTorch)
_OBJECT_REPR = re.compile(r"^<([\w.]+) object at (0x[0-9a-fA-F]+)>$")
_CLASS_REPR = re.compile(r"<class '([^']+)'>\Z")


class _Group:
    def __init__(self, depth: int) -> None:
        self.depth = depth
        self.breakables: deque = deque()
        self.want_break = False


class _Text:
    def __init__(self) -> None:
        self.parts: list[str] = []
        self.width = 0

    def output(self, stream: io.StringIO, width: int) -> int:
        stream.write("".join(self.parts))
        return width + self.width


class _Breakable:
    def __init__(self, sep: str, printer: "_Printer") -> None:
        self.sep = sep
        self.width = len(sep)
        self.printer = printer
        self.indentation = printer.indentation
        self.group = printer.group_stack[-1]
        self.group.breakables.append(self)

    def output(self, stream: io.StringIO, width: int) -> int:
        self.group.breakables.popleft()
        if self.group.want_break:
            stream.write("\n" + " " * self.indentation)
            return self.indentation
        if not self.group.breakables:
            self.printer.queue.remove(self.group)
        stream.write(self.sep)
        return width + self.width


class _GroupQueue:
    def __init__(self, root: _Group) -> None:
        self.levels: list[list[_Group]] = []
        self.enqueue(root)

    def enqueue(self, group: _Group) -> None:
        while group.depth > len(self.levels) - 1:
            self.levels.append([])
        self.levels[group.depth].append(group)

    def dequeue(self) -> Optional[_Group]:
        """The outermost group that can still break (the most recent of its depth)."""
        for level in self.levels:
            # IPython deletes at the index counted from the end: kept so, as it lays out
            for index, group in enumerate(reversed(level)):
                if group.breakables:
                    del level[index]
                    group.want_break = True
                    return group
            for group in level:
                group.want_break = True
            del level[:]
        return None

    def remove(self, group: _Group) -> None:
        try:
            self.levels[group.depth].remove(group)
        except ValueError:
            pass


class _Printer:
    def __init__(self) -> None:
        self.stream = io.StringIO()
        self.output_width = 0
        self.buffer_width = 0
        self.buffer: deque = deque()
        root = _Group(0)
        self.group_stack = [root]
        self.queue = _GroupQueue(root)
        self.indentation = 0
        self.seen: set[int] = set()

    # ---------------------------------------------------------- layout

    def _break_one(self, group: _Group) -> None:
        while group.breakables:
            item = self.buffer.popleft()
            self.output_width = item.output(self.stream, self.output_width)
            self.buffer_width -= item.width
        while self.buffer and isinstance(self.buffer[0], _Text):
            item = self.buffer.popleft()
            self.output_width = item.output(self.stream, self.output_width)
            self.buffer_width -= item.width

    def _break_outer(self) -> None:
        while MAX_WIDTH < self.output_width + self.buffer_width:
            group = self.queue.dequeue()
            if group is None:
                return
            self._break_one(group)

    def text(self, text: str) -> None:
        if self.buffer:
            last = self.buffer[-1]
            if not isinstance(last, _Text):
                last = _Text()
                self.buffer.append(last)
            last.parts.append(text)
            last.width += len(text)
            self.buffer_width += len(text)
            self._break_outer()
        else:
            self.stream.write(text)
            self.output_width += len(text)

    def breakable(self) -> None:
        if self.group_stack[-1].want_break:
            self._newline()
        else:
            self.buffer.append(_Breakable(" ", self))
            self.buffer_width += 1
            self._break_outer()

    def break_(self) -> None:
        group = self.queue.dequeue()
        if group is not None:
            self._break_one(group)
        self._newline()

    def _newline(self) -> None:
        self.flush()
        self.stream.write("\n" + " " * self.indentation)
        self.output_width = self.indentation
        self.buffer_width = 0

    def begin(self, indent: int, opening: str) -> None:
        if opening:
            self.text(opening)
        group = _Group(self.group_stack[-1].depth + 1)
        self.group_stack.append(group)
        self.queue.enqueue(group)
        self.indentation += indent

    def end(self, dedent: int, closing: str) -> None:
        self.indentation -= dedent
        group = self.group_stack.pop()
        if not group.breakables:
            self.queue.remove(group)
        if closing:
            self.text(closing)

    def flush(self) -> None:
        for item in self.buffer:
            self.output_width += item.output(self.stream, self.output_width)
        self.buffer.clear()
        self.buffer_width = 0

    # ---------------------------------------------------------- values

    def pretty(self, value: Any) -> None:
        key = id(value)
        cycle = key in self.seen
        self.seen.add(key)
        self.begin(0, "")
        try:
            for cls in type(value).__mro__:
                printer = _PRINTERS.get(cls) or _BY_NAME.get((cls.__module__, cls.__name__))
                if printer is not None:
                    printer(self, value, cycle)
                    return
                if cls is not object and "__repr__" in cls.__dict__:
                    # a class whose metaclass has a repr: _type tells a stand-in's from a real one's
                    (_type if isinstance(value, type) else _repr_lines)(self, value, cycle)
                    return
            _default(self, value, cycle)
        finally:
            self.end(0, "")
            self.seen.discard(key)


def _repr_lines(p: _Printer, value: Any, cycle: bool) -> None:
    """repr(), its lines joined by hard breaks that keep the enclosing bracket's indentation."""
    text = repr(value)
    default = _OBJECT_REPR.match(text)
    if default:  # a class of gradcalc's that writes object's repr, as PyTorch's C classes inherit it
        text = f"<{default.group(1)} at {default.group(2)}>"
    p.begin(0, "")
    for index, line in enumerate(text.splitlines()):
        if index:
            p.break_()
        p.text(line)
    p.end(0, "")


def _items(p: _Printer, values: Any, show: Callable[[Any], None]) -> None:
    for index, value in enumerate(values):
        if index:
            p.text(",")
            p.breakable()
        if index >= MAX_SEQ_LENGTH:
            p.text("...")
            return
        show(value)


def _sequence(opening: str, closing: str) -> Callable[[_Printer, Any, bool], None]:
    def show(p: _Printer, value: Any, cycle: bool) -> None:
        if cycle:
            p.text(opening + "..." + closing)
            return
        p.begin(len(opening), opening)
        _items(p, value, p.pretty)
        if len(value) == 1 and isinstance(value, tuple):
            p.text(",")
        p.end(len(opening), closing)
    return show


def _set(opening: str, closing: str) -> Callable[[_Printer, Any, bool], None]:
    def show(p: _Printer, value: Any, cycle: bool) -> None:
        if cycle:
            p.text(opening + "..." + closing)
            return
        if not value:
            p.text(type(value).__name__ + "()")
            return
        items = list(value)
        if len(items) < MAX_SEQ_LENGTH:
            try:
                items = sorted(items)
            except Exception:  # unorderable elements stay in the set's order
                pass
        p.begin(len(opening), opening)
        _items(p, items, p.pretty)
        p.end(len(opening), closing)
    return show


def _dict(p: _Printer, value: dict, cycle: bool) -> None:
    if cycle:
        p.text("{...}")
        return
    p.begin(1, "{")

    def item(key: Any) -> None:
        p.pretty(key)
        p.text(": ")
        p.pretty(value[key])

    _items(p, list(value.keys()), item)
    p.end(1, "}")


def _type_name(cls: type) -> str:
    module = cls.__dict__.get("__module__", getattr(cls, "__module__", None))
    name = getattr(cls, "__qualname__", cls.__name__)
    return name if module in (None, "builtins") else f"{module}.{name}"


def _type(p: _Printer, value: type, cycle: bool) -> None:
    if type(value).__repr__ is type.__repr__:
        p.text(_type_name(value))
        return
    # gradcalc's stand-ins for classes whose metaclass has no repr of its own (numpy's ndarray,
    # torch.FloatTensor, `type`) write type's repr: IPython names those classes, as any other
    named = _CLASS_REPR.match(repr(value))
    if named:
        p.text(named.group(1))
    else:  # a metaclass's own repr
        _repr_lines(p, value, cycle)


def _default(p: _Printer, value: Any, cycle: bool) -> None:
    if type(value).__repr__ is not object.__repr__:
        _repr_lines(p, value, cycle)
        return
    p.begin(1, "<")
    p.text(_type_name(type(value)))
    p.text(f" at 0x{id(value):x}")
    if cycle:
        p.text(" ...")
    p.end(1, ">")


def _exception(p: _Printer, value: BaseException, cycle: bool) -> None:
    name = type(value).__name__ if type(value).__module__ == "builtins" else _type_name(type(value))
    p.begin(len(name) + 1, name + "(")
    _items(p, value.args, p.pretty)
    p.end(len(name) + 1, ")")


_PRINTERS: dict = {
    int: _repr_lines, float: _repr_lines, str: _repr_lines, bytes: _repr_lines, range: _repr_lines,
    slice: _repr_lines, tuple: _sequence("(", ")"), list: _sequence("[", "]"), dict: _dict,
    set: _set("{", "}"), frozenset: _set("frozenset({", "})"), type: _type, BaseException: _exception,
}


def _call(p: _Printer, name: str, args: tuple, keywords: Optional[dict] = None) -> None:
    """`name(arg, ..., key=value)`, laid out as IPython's CallExpression."""
    p.begin(len(name) + 1, name + "(")
    items = [(None, arg) for arg in args] + list((keywords or {}).items())
    for index, (key, arg) in enumerate(items):
        if index:
            p.text(",")
            p.breakable()
        if key is None:
            p.pretty(arg)
        else:
            p.begin(len(key) + 1, key + "=")
            p.pretty(arg)
            p.end(len(key) + 1, "")
    p.end(len(name) + 1, ")")


def _collection(show: Callable[[Any], tuple]) -> Callable[[_Printer, Any, bool], None]:
    """A printer for a collections class, shown as the call that makes it: `OrderedDict([...])`."""
    def printer(p: _Printer, value: Any, cycle: bool) -> None:
        name = type(value).__name__
        if cycle:
            p.text(name + "(...)")
        else:
            _call(p, name, *show(value))
    return printer


_BY_NAME: dict = {
    ("collections", "OrderedDict"): _collection(lambda d: ((list(d.items()),),) if len(d) else ((),)),
    ("collections", "defaultdict"): _collection(lambda d: ((d.default_factory, dict(d)),)),
    ("collections", "deque"): _collection(lambda d: ((list(d),), {"maxlen": d.maxlen}) if d.maxlen is not None
                                          else ((list(d),),)),
    ("collections", "Counter"): _collection(lambda d: ((dict(d.most_common()),),) if len(d) else ((),)),
}


def pretty(value: Any) -> str:
    """The text/plain IPython shows for `value` as a cell's result."""
    printer = _Printer()
    printer.pretty(value)
    printer.flush()
    return printer.stream.getvalue()
