"""`gradcalc serve`: the classroom web page (an optional extra: pip install 'gradcalc[serve]').

A visitor's program never runs in the server's process: each run is a fresh `gradcalc --json`
child (runs.py), and the server only starts it, keeps its limits and hands back its answer (app.py).
"""
