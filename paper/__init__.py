"""Paper figures and LaTeX tables, regenerated from artifact run folders alone.

``python -m paper.build RUN_OR_SWEEP_DIR… --out paper/build`` reads only
``run.json`` and ``records.jsonl`` of each run (never ``conf/`` or live code
paths), verifies each run against its manifest, and writes every table
(``tab_*.tex``), figure (``fig_*.pdf``/``.png`` plus a ``fig_*.tex`` wrapper
with its caption), ``summary.json`` (every table cell) and ``index.md``.
Repair runs and localization runs (rows with ``kind: "localize"``) may be
built alone or together; each kind's outputs appear only when its rows do.

Modules: ``load`` (find, verify, read and validate runs), ``localization``
(localization rows: validation, reported metrics, ranking consistency),
``stats`` (cluster bootstrap), ``latex`` (table rendering), ``tables`` (the
repair numbers), ``loc_tables`` (the localization numbers), ``figures``
(matplotlib with a fixed style), ``errors`` (``BuildInputError``), ``build``
(the command line).
"""
