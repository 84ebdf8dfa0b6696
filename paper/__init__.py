"""Paper figures and LaTeX tables, regenerated from artifact run folders alone.

``python -m paper.build RUN_OR_SWEEP_DIR… --out paper/build`` reads only
``run.json`` and ``records.jsonl`` of each run (never ``conf/`` or live code
paths), verifies each run against its manifest, and writes every table
(``tab_*.tex``), figure (``fig_*.pdf``/``.png`` plus a ``fig_*.tex`` wrapper
with its caption), ``summary.json`` (every table cell) and ``index.md``.

Modules: ``load`` (find, verify, read and validate runs), ``stats``
(paired bootstrap), ``latex`` (table rendering), ``tables`` (the numbers),
``figures`` (matplotlib with a fixed style), ``build`` (the command line).
"""
