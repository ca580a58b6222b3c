"""The interactive REPL: `gradcalc` on a terminal.

prompt_toolkit and pygments are imported in this package and nowhere else, so scripts and `-e`
never load them; and nothing is imported here, so that `early` (the banner and the first prompt,
shown before the editor loads) costs no more than itself. `app` is the loop and the editing;
the rest are its parts: `completion`, `hints` ("Did you mean"), `transcript` (pasted `>>> `
examples, `:save`), `commands` (`:help`, `:vars`, `:graph`, ...) and `history`.
"""
