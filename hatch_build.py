"""Build steps: compile gradcalc's native kernels, and generate its stand-alone parser with Lark's
own tool.

The kernels (gradcalc/autograd/csrc/, one module `_native`) are compiled with the C compiler found here, for this
Python, into the wheel, or next to their source for an editable install. Where no compiler (or
no Python headers) is found, the build goes on without them: gradcalc then runs numpy's
emulations of the same kernels, which give the same answers, more slowly.

The wheel gets what Lark's stand-alone tool writes for grammar/gradcalc.lark, cut in two
modules: `_lark_runtime.py`, Lark's runtime without the lark package, and `_lark_tables.py`,
the LALR tables, needed only when the parser cache is cold; `_lark_digest.py` names that cache
(see "grammar loading" in gradcalc/language/parser.py). Nothing generated is kept in the repository; an editable
install parses with the lark package instead.
"""
from __future__ import annotations

import hashlib
import io
import os
import shutil
import subprocess
import sys
import sysconfig
import tempfile
from typing import Any

from hatchling.builders.hooks.plugin.interface import BuildHookInterface

PACKAGE = "gradcalc/language"
NATIVE_SOURCES = "gradcalc/autograd/csrc"
# IEEE arithmetic as written (no contraction into FMAs, which would change the last bits)
# an undeclared function is an error here, not a module that fails to load later
NATIVE_FLAGS = ["-O3", "-shared", "-fPIC", "-ffp-contract=off", "-fno-math-errno",
                "-Werror=implicit-function-declaration"]
# the tool's output: the runtime, then from this line on the tables and their constructor
TABLES_START = "import pickle, zlib, base64\n"
# the last lines rebind the parse actions to what the tables hold; the runtime needs them
# too, as the cached parser is pickled with the runtime's classes
ACTIONS = "Shift = 0\nReduce = 1\n"
# as _OPTIONS in gradcalc/language/parser.py (tests/test_packaging.py compares the two parsers)
OPTIONS: dict[str, Any] = dict(parser="lalr", lexer="basic", start=["file_input", "fexpr"],
                               propagate_positions=True, maybe_placeholders=True)


def _generate(grammar_path: str) -> str:
    """The stand-alone parser's source, the same for every build of one commit, so that two wheels
    are identical and the parser cache keeps its key (Lark numbers the LALR states in the order of
    a set of objects hashed by their addresses: they are renumbered here)."""
    from lark import Lark
    from lark.tools.standalone import gen_standalone

    with open(grammar_path, encoding="utf-8") as handle:
        parser = Lark(handle.read(), **OPTIONS)
    lalr = parser.parser.parser
    lalr._parse_table = _canonical(lalr._parse_table)
    code = io.StringIO()
    gen_standalone(parser, out=code)
    return code.getvalue()


def _canonical(table: Any) -> Any:
    """The same table, its states numbered in the order of a walk from the start states that takes
    the shifts in the order of their symbols' names, and each state's actions in that order."""
    from lark.parsers.lalr_analysis import IntParseTable, Shift

    order: list = []
    seen: set = set()
    for start in sorted(table.start_states):
        pending = [table.start_states[start]]
        while pending:
            state = pending.pop(0)
            if state in seen:
                continue
            seen.add(state)
            order.append(state)
            actions = table.states[state]
            pending += [actions[name][1] for name in sorted(actions) if actions[name][0] is Shift]
    if len(order) != len(table.states):
        raise RuntimeError("a parser state that no start state reaches; update hatch_build.py")
    number = {state: index for index, state in enumerate(order)}
    states = {}
    for state in order:
        actions = table.states[state]
        states[number[state]] = {name: (Shift, number[actions[name][1]]) if actions[name][0] is Shift
                                 else actions[name] for name in sorted(actions)}
    return IntParseTable(states, {start: number[state] for start, state in sorted(table.start_states.items())},
                         {start: number[state] for start, state in sorted(table.end_states.items())})


def compile_native(sources: str, directory: str) -> str | None:
    """The extension module compiled from the C files in the folder `sources` into `directory`
    (its path), or None where this machine cannot compile it (said on stderr)."""
    compiler = os.environ.get("CC") or shutil.which("cc") or shutil.which("gcc")
    include = sysconfig.get_paths()["include"]
    target = os.path.join(directory, "_native" + (sysconfig.get_config_var("EXT_SUFFIX") or ".so"))
    reason = None
    if not compiler:
        reason = "no C compiler found"
    elif not os.path.exists(os.path.join(include, "Python.h")):
        reason = f"no Python headers in {include}"
    else:
        # the sources named relatively (the same object code from any checkout's path), written
        # beside the target and moved over it at once (a running gradcalc may have it mapped)
        partial = target + ".partial"
        files = sorted(name for name in os.listdir(sources) if name.endswith(".c"))
        command = compiler.split() + NATIVE_FLAGS + [f"-I{include}", *files, "-o", partial]
        done = subprocess.run(command, capture_output=True, text=True, cwd=sources)
        if done.returncode:
            reason = f"{' '.join(command)} failed:\n{done.stderr}"
        else:
            os.replace(partial, target)
    if reason:
        print(f"gradcalc: native kernels not built ({reason}); numpy's emulations will be used",
              file=sys.stderr)
        return None
    return target


class BuildHook(BuildHookInterface):
    PLUGIN_NAME = "custom"

    def initialize(self, version: str, build_data: dict[str, Any]) -> None:
        sources = os.path.join(self.root, NATIVE_SOURCES)
        if version == "editable":  # next to the sources' folder, where the editable package is imported from
            compile_native(sources, os.path.dirname(sources))
            return
        self._directory = tempfile.mkdtemp(prefix="gradcalc-build-")
        native = compile_native(sources, self._directory)
        if native:
            build_data["force_include"][native] = f"gradcalc/autograd/{os.path.basename(native)}"
            build_data["pure_python"] = False
            build_data["infer_tag"] = True
        text = _generate(os.path.join(self.root, "grammar", "gradcalc.lark"))
        runtime, start, tables = text.partition(TABLES_START)
        if not start or ACTIONS not in tables:
            raise RuntimeError("lark.tools.standalone wrote an unexpected module; update hatch_build.py")
        # names the parser cache: the digest changes with the grammar, the options and Lark's code
        digest = hashlib.sha256(text.encode("utf-8")).hexdigest()
        modules = {
            # annotations left unevaluated: evaluating Lark's typing generics is most of its import
            "_lark_runtime.py": f'from __future__ import annotations\n{runtime}{ACTIONS}',
            "_lark_tables.py": f"from ._lark_runtime import Lark\n{start}{tables}",
            # read at start-up to find the parser cache, without importing the runtime
            "_lark_digest.py": f'TABLES_DIGEST = "{digest}"\n',
        }
        for name, module in modules.items():
            path = os.path.join(self._directory, name)
            with open(path, "w", encoding="utf-8") as handle:
                handle.write(module)
            build_data["force_include"][path] = f"{PACKAGE}/{name}"

    def finalize(self, version: str, build_data: dict[str, Any], artifact_path: str) -> None:
        if version != "editable":
            shutil.rmtree(self._directory, ignore_errors=True)
