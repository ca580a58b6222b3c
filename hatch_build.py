"""Wheel build step: generate gradcalc's stand-alone parser with Lark's own tool.

The wheel gets what Lark's stand-alone tool writes for grammar/gradcalc.lark, cut in two
modules: `_lark_runtime.py`, Lark's runtime without the lark package, and `_lark_tables.py`,
the LALR tables, needed only when the parser cache is cold (see "grammar loading" in
gradcalc/language/parser.py). Nothing generated is kept in the repository; an editable
install parses with the lark package instead.
"""
from __future__ import annotations

import hashlib
import io
import os
import shutil
import tempfile
from typing import Any

from hatchling.builders.hooks.plugin.interface import BuildHookInterface

PACKAGE = "gradcalc/language"
# the tool's output: the runtime, then from this line on the tables and their constructor
TABLES_START = "import pickle, zlib, base64\n"
# the last lines rebind the parse actions to what the tables hold; the runtime needs them
# too, as the cached parser is pickled with the runtime's classes
ACTIONS = "Shift = 0\nReduce = 1\n"
# as _OPTIONS in gradcalc/language/parser.py (tests/test_packaging.py compares the two parsers)
OPTIONS: dict[str, Any] = dict(parser="lalr", lexer="basic", start=["file_input", "fexpr"],
                               propagate_positions=True, maybe_placeholders=True)


class StandaloneParserHook(BuildHookInterface):
    PLUGIN_NAME = "custom"

    def initialize(self, version: str, build_data: dict[str, Any]) -> None:
        if version == "editable":
            return
        from lark import Lark
        from lark.tools.standalone import gen_standalone

        with open(os.path.join(self.root, "grammar", "gradcalc.lark"), encoding="utf-8") as handle:
            grammar = handle.read()
        code = io.StringIO()
        gen_standalone(Lark(grammar, **OPTIONS), out=code)
        text = code.getvalue()
        runtime, start, tables = text.partition(TABLES_START)
        if not start or ACTIONS not in tables:
            raise RuntimeError("lark.tools.standalone wrote an unexpected module; update hatch_build.py")
        # names the parser cache: the digest changes with the grammar, the options and Lark's code
        digest = hashlib.sha256(text.encode("utf-8")).hexdigest()
        modules = {
            # annotations left unevaluated: evaluating Lark's typing generics is most of its import
            "_lark_runtime.py": f'from __future__ import annotations\n{runtime}{ACTIONS}TABLES_DIGEST = "{digest}"\n',
            "_lark_tables.py": f"from ._lark_runtime import Lark\n{start}{tables}",
        }
        self._directory = tempfile.mkdtemp(prefix="gradcalc-build-")
        for name, module in modules.items():
            path = os.path.join(self._directory, name)
            with open(path, "w", encoding="utf-8") as handle:
                handle.write(module)
            build_data["force_include"][path] = f"{PACKAGE}/{name}"

    def finalize(self, version: str, build_data: dict[str, Any], artifact_path: str) -> None:
        if version != "editable":
            shutil.rmtree(self._directory, ignore_errors=True)
