"""The language is a sandbox: a program reaches gradcalc's objects only.

Every escape attempt must end in one clean `ErrorType: message` line, exit status 1, and
must not have reached anything of the host Python.
"""
from __future__ import annotations

import io

import pytest

from gradcalc.session import Session, TextOutput, reset_global_state

ESCAPES = [
    'x = tensor(1.); x.__class__',
    '().__class__.__bases__',
    '"".__class__.__mro__',
    'getattr(tensor(1.), "__dict__")',
    'eval("1")',
    'exec("x = 1")',
    'open("f")',
    '__import__("os")',
    'import os',
    'import sys',
    'from os import path',
    'import torch.os',
    'print.__self__',
    'x = tensor(1.); f"{x.__class__}"',
    '"{0.__class__}".format(1)',
    '"{a.__class__.__base__}".format_map({"a": 1})',
    'type(1).__subclasses__()',
    'type(tensor(1.)).__init__',
    'type(print).mro()',
    'def f(): pass\nf.__globals__',
    'def f(): pass\nf.globals',
    'g = (i for i in range(3)); g.gi_frame',
    'lambda: 0; _.__code__',
    'torch.__dict__',
    'torch._module_name',
    'tensor(1.)._data',
    'tensor(1.)._data.ctypes',
    'x = tensor(1., requires_grad=True); (x * 2).grad_fn.saved',
    'x = tensor(1., requires_grad=True); (x * 2).grad_fn.op.forward',
    'nn.Linear(1, 1).__dict__',
    'globals()',
    'vars()',
    'compile("1", "f", "eval")',
    'type("X", (), {})',
    'breakpoint()',
    'input()',
    'tensor(1.).__setattr__("x", 1)',
    'x = tensor(1.); x._grad_fn = 1',
    'x = tensor(1.); x.foo = 1',
    'type(type(1))("X", (), {})',
]

# A class body defines no dunder but __init__, so no program code runs inside Python's protocols;
# super() reaches __init__ and public names only; classes and instances expose no dunder.
CLASS_ESCAPES = [
    'class A:\n    def __getattribute__(self, name): return 1\n',
    'class A:\n    def __reduce__(self): return (print, ("x",))\n',
    'class A:\n    def __class_getitem__(cls, item): return 1\n',
    'class A:\n    def __init_subclass__(cls): pass\n',
    'class A:\n    def __del__(self): print("gone")\n',
    'class A:\n    def __set_name__(self, owner, name): pass\n',
    'class A:\n    __slots__ = ()\n',
    'class A:\n    __getattr__ = print\n',
    'class A:\n    __class__ = int\n',
    'class A(metaclass=type): pass\n',
    'class A(nn.Module, metaclass=type): pass\n',
    'class A(nn.Module, nn.Linear): pass\n',
    'class A(*[nn.Module]): pass\n',
    'class A(int): pass\n',
    'class A(type(tensor(1.))): pass\n',
    'class A(torch.optim.SGD): pass\n',
    'class A(type(type(1))): pass\n',
    '@print\nclass A: pass\n',
    'class A:\n    class B: pass\n',
    'class A:\n    import os\n',
    'class A:\n    def f(self): return super().__subclasses__()\nA().f()\n',
    'class A:\n    def f(self): return super().__class__\nA().f()\n',
    'class A:\n    def f(self): return super().__getattribute__("f")\nA().f()\n',
    'class A:\n    def f(self): return super().__init__.__self__\nA().f()\n',
    'class A:\n    def f(self): return super().__init__.__objclass__\nA().f()\n',
    'class A(nn.Module):\n    def f(self): return super()._parameters\nA().f()\n',
    'class A(nn.Module):\n    def f(self): return super().__dict__\nA().f()\n',
    'class A:\n    def f(self): return super(A, A).__init__\nA().f()\n',
    'super(int, 1).__init__\n',
    'class A(nn.Module):\n    def f(self): return super(nn.Module, self).__init__\nA().f()\n',
    'class A:\n    def f(self): return type(self).__mro__\nA().f()\n',
    'class A:\n    def f(self): return self.__dict__\nA().f()\n',
    'class A:\n    pass\nA.__bases__\n',
    'class A:\n    pass\nA.mro()\n',
    'class A:\n    pass\nA.__subclasses__()\n',
    'class A:\n    pass\nA.x = 1\n',
    'class A:\n    pass\ntype(A)("X", (A,), {})\n',
    'class A:\n    def f(self): pass\nA().f.__func__\n',
    'class A:\n    def f(self): pass\nA.f.__globals__\n',
    'class A(nn.Module):\n    pass\nA().__dict__\n',
    'class A(nn.Module):\n    pass\nA.parameters\n',
    'class A:\n    pass\na = A(); a.__class__ = int\n',
    'class A:\n    pass\na = A(); a.__dict__ = {}\n',
    'class A:\n    pass\nA()._private\n',
]


@pytest.mark.parametrize("source", CLASS_ESCAPES)
def test_class_escape_ends_in_one_clean_error(source: str) -> None:
    ok, stdout, stderr = run(source)
    assert not ok
    kind, _, message = stderr.splitlines()[0].partition(": ")
    assert kind in {"AttributeError", "NameError", "TypeError", "SyntaxError"}, stderr
    # a syntax error shows where it is (line and column, the line, a caret); any other error is one line
    assert len(stderr.splitlines()) == (4 if kind == "SyntaxError" else 1), stderr
    assert "Traceback" not in stderr and stdout == "", stdout + stderr
    assert "<class 'object'>" not in stdout + stderr


def run(source: str) -> tuple:
    reset_global_state()
    stdout, stderr = io.StringIO(), io.StringIO()
    ok = Session(TextOutput(stdout, stderr)).run(source)
    return ok, stdout.getvalue(), stderr.getvalue()


@pytest.mark.parametrize("source", ESCAPES)
def test_escape_ends_in_one_clean_error(source: str) -> None:
    ok, stdout, stderr = run(source)
    assert not ok
    lines = stderr.splitlines()
    assert len(lines) == 1, stderr
    kind, _, message = lines[0].partition(": ")
    assert kind in {"AttributeError", "NameError", "ModuleNotFoundError", "TypeError", "ImportError"}, stderr
    assert "Traceback" not in stderr
    assert "<class 'object'>" not in stdout + stderr and "module 'os'" not in stdout + stderr


def test_named_escapes_read_as_python_errors() -> None:
    assert run('import os')[2] == "ModuleNotFoundError: No module named 'os'\n"
    assert run('eval("1")')[2] == "NameError: name 'eval' is not defined\n"
    assert run('open("f")')[2] == "NameError: name 'open' is not defined\n"
    assert run('getattr(1, "real")')[2] == "NameError: name 'getattr' is not defined\n"


def test_public_attributes_still_work() -> None:
    ok, stdout, stderr = run('x = tensor([1., 2.], requires_grad=True)\n'
                             '"{0.shape} {0.requires_grad}".format(x)\n'
                             'x._version\n'
                             '"a,b".split(",")\n'
                             'hasattr(x, "grad"), hasattr(x, "__class__")\n')
    assert ok, stderr
    assert stdout == "'torch.Size([2]) True'\n0\n['a', 'b']\n(True, False)\n"
