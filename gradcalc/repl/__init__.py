"""The interactive REPL: `gradcalc` on a terminal, a front end that runs no program code (a
jailed worker does, gradcalc/worker/).

prompt_toolkit and pygments are imported in this package and nowhere else, so scripts and `-e`
never load them; and nothing is imported here, so that `early` (the banner and the first prompt,
shown before the editor loads) costs no more than itself. `app` is the loop and the editing;
the rest are its parts: `completion`, `hints` ("Did you mean", which the worker adds to its
error lines), `transcript` (pasted `>>> ` examples, `:save`), `commands` (`:help`, `:vars`,
`:graph`, ...) and `history`.
"""
