"""The checkout's configured ``addopts``, filtered to the options a hardened run can honour.

pytest prepends the root config's ``addopts`` to every command line. The runner
still clears them (``-o addopts=``) and passes on, explicitly and first (where
pytest would put them), only the options on an allowlist: the ones that change
what the project's tests *mean* (deselection, strictness, warnings, doctests)
or only what the terminal shows. Everything else is dropped with the reason,
and the run records both lists (:attr:`beacon.repair.pytest_runner.PytestRun.addopts`,
a row's ``checks.addopts``). Anything not on the list is dropped: an option the
harness controls (``-c``, ``--rootdir``, ``--junitxml``, ``--import-mode``, ``-o``
…), one that stops the session early (``-x``: the must-fail canary would end
it), and every option of a plugin that is not loaded (autoload is off: pytest
would stop with a usage error on ``--timeout=5`` or ``--cov=x``, which is why
the runner once cleared ``addopts`` whole).

Reading follows pytest: the file :func:`beacon.repair.controls.root_config_file`
picks, parsed by pytest's own loader (``iniconfig`` for ``.ini``/``.cfg``,
``tomllib`` for TOML), then ``shlex.split`` of an ini-mode string. A value pytest
itself cannot split (an unbalanced quote) or a native-TOML ``addopts`` that is
not a list of strings stops pytest on the project's own machine too:
:class:`ProjectConfigError` names the file and key. A config file pytest cannot
parse at all is left to pytest, which refuses it loudly in the run.
"""
from __future__ import annotations

import re
import shlex
from dataclasses import dataclass
from pathlib import Path

MODES = ("keep_safe", "drop")


class ProjectConfigError(ValueError):
    """The checkout's pytest config has an ``addopts`` pytest itself cannot use (the project's own run fails too)."""


# Options kept, by name: "flag" takes no value, "value" exactly one (``--name=v``, ``--name v``, ``-Xv``, ``-X v``).
# Why each is safe: the README's "The project's addopts" and the module docstring.
_FLAGS = frozenset({
    "-q", "--quiet", "-v", "--verbose", "-l", "--showlocals", "--no-showlocals", "--full-trace",
    "--no-header", "--no-summary", "--disable-warnings", "--disable-pytest-warnings",
    "--strict-markers", "--continue-on-collection-errors",
    "--doctest-modules", "--doctest-continue-on-failure", "--doctest-ignore-import-errors",
})
_VALUES = frozenset({
    "-m", "-k", "--deselect", "--ignore", "--ignore-glob",  # deselection (before the canaries join)
    "-r", "--tb", "--durations", "--durations-min",  # the terminal report
    "-W", "--pythonwarnings", "--doctest-glob", "--doctest-report",
    "-p",  # only "no:NAME" for a NAME below
})
_CHOICES = {
    "--tb": {"auto", "long", "short", "line", "native", "no"},
    "--doctest-report": {"none", "cdiff", "ndiff", "udiff", "only_first_failure"},
}
_INT = re.compile(r"[0-9]{1,9}")
_FLOAT = re.compile(r"[0-9]{1,9}(\.[0-9]{1,9})?")
_REPORT_CHARS = re.compile(r"[fEsxXpPaAwN]{1,32}")
# Short options pytest (and the plugins projects name most) parse with a value: needed to split ``-Xvalue``
# bundles the way argparse does; a dropped one takes its value with it.
_SHORT_WITH_VALUE = frozenset("kmcprWon")
# What a dropped option is, when there is more to say than "not on the allowlist".
_WHY = {
    **dict.fromkeys(("-c", "--config-file", "--inifile", "--rootdir", "--confcutdir", "-o", "--override-ini",
                     "--import-mode", "--basetemp", "--junitxml", "--junit-xml", "--junit-prefix", "--junitprefix",
                     "-P", "--noconftest", "--pyargs", "--keep-duplicates"),
                    "set by the harness (config, rootdir, import mode, report, ini keys, collection roots)"),
    **dict.fromkeys(("-x", "--exitfirst", "--maxfail", "--sw", "--stepwise", "--sw-skip", "--stepwise-skip",
                     "--lf", "--last-failed", "--ff", "--failed-first", "--nf", "--new-first", "--cache-clear"),
                    "stops or reorders the session: the must-fail canary would end it, and there is no cache"),
    **dict.fromkeys(("-s", "--capture", "--pdb", "--pdbcls", "--trace", "--debug", "--log-file", "--log-file-level",
                     "--log-file-format", "--log-file-date-format", "--log-file-mode", "--setup-only",
                     "--setup-plan", "--collect-only", "--co", "--fixtures", "--markers", "--version", "-h",
                     "--help"),
                    "the harness owns the process's input and output, and every run runs the tests"),
    **dict.fromkeys(("--assert",), "assertion rewriting is part of the canaries' check"),
    **dict.fromkeys(("--strict-config", "--strict"),
                    "plugin autoload is off, so a plugin's ini keys are unknown and would stop the run; the config "
                    "file is pristine and protected, so the check adds nothing to a verdict"),
    **dict.fromkeys(("--runxfail",), "the harness makes xfail strict; running them changes what the ids mean"),
    **dict.fromkeys(("-n", "--numprocesses", "--dist", "--maxprocesses", "--tx", "--looponfail"),
                    "pytest-xdist: not loaded (autoload is off), and one process runs the canaries"),
}
# Builtin plugins a project may disable with ``-p no:NAME``: none of them is part of what the harness relies on
# (the report, collection, assertion rewriting, skipping/xfail, capture, the subtests count, pythonpath).
SAFE_TO_DISABLE = frozenset({"cacheprovider", "stepwise", "doctest", "pastebin", "faulthandler", "warnings",
                             "logging", "unraisableexception", "threadexception", "legacypath"})
try:  # pytest's own list of its builtin plugins (a name here is refused unless it is in SAFE_TO_DISABLE)
    from _pytest.config import builtin_plugins as _BUILTIN
except ImportError:  # pragma: no cover - pytest is a dependency
    _BUILTIN = frozenset()
BUILTIN_PLUGINS = frozenset(_BUILTIN) | {
    "mark", "main", "runner", "fixtures", "helpconfig", "python", "terminal", "debugging", "unittest", "capture",
    "skipping", "legacypath", "tmpdir", "monkeypatch", "recwarn", "pastebin", "assertion", "junitxml", "doctest",
    "cacheprovider", "setuponly", "setupplan", "stepwise", "unraisableexception", "threadexception", "warnings",
    "logging", "reports", "faulthandler", "subtests", "python_path", "pytester", "nose", "freeze_support"}
_PLUGIN_NAME = re.compile(r"[A-Za-z][A-Za-z0-9_\-]{0,99}")


@dataclass(frozen=True)
class Addopts:
    """What a run did with the checkout's ``addopts``: the evidence a row records as ``checks.addopts``."""

    mode: str  # keep_safe | drop
    source: str | None  # "<config file> <section>" (checkout-relative), None without a config file or addopts
    configured: tuple[str, ...] = ()  # the configured options, split as pytest splits them
    kept: tuple[str, ...] = ()  # passed to pytest, first (where pytest puts addopts)
    dropped: tuple[tuple[str, str], ...] = ()  # (option as configured, why)
    note: str = ""  # e.g. why nothing was read

    def evidence(self) -> dict:
        return {"mode": self.mode, "source": self.source, "configured": list(self.configured),
                "kept": list(self.kept), "dropped": [{"option": o, "why": w} for o, w in self.dropped],
                "note": self.note}


def read_addopts(config: Path | None, checkout: Path) -> tuple[list[str], str | None, str]:
    """``(options, source, note)``: the config's ``addopts`` split as pytest splits them, where they come from,
    and, when nothing could be read, why. Raises :class:`ProjectConfigError` for an ``addopts`` pytest rejects."""
    if config is None:
        return [], None, "no root config file"
    name = config.name if Path(config).parent == Path(checkout) else str(config)
    try:
        from _pytest.config.findpaths import load_config_dict_from_file  # noqa: PLC0415 (pytest's own reader)
        values = load_config_dict_from_file(Path(config))
    except Exception as exc:  # noqa: BLE001 - pytest's UsageError, TOML/ini parse errors: pytest reports them
        return [], None, f"{name} could not be parsed ({type(exc).__name__}); pytest reports it in the run"
    except BaseException as exc:  # pytest.fail() (a setup.cfg [pytest] section) raises an OutcomeException
        if isinstance(exc, (KeyboardInterrupt, SystemExit)):
            raise
        return [], None, f"{name} is refused by pytest ({type(exc).__name__}); pytest reports it in the run"
    if not values or "addopts" not in values:
        return [], None, "no addopts"
    entry = values["addopts"]
    value, mode = getattr(entry, "value", entry), getattr(entry, "mode", "ini")
    section = _section(Path(config).name, mode)
    where = f"{name}: {section} addopts{_line(Path(config), section)}"
    if isinstance(value, str) and mode == "ini":
        try:
            options = shlex.split(value)
        except ValueError as exc:
            raise ProjectConfigError(f"{where}: {exc} in {value!r} (pytest's shlex.split fails on it: the project's "
                                     "own pytest stops too)") from None
    elif isinstance(value, list) and all(isinstance(v, str) for v in value):
        options = list(value)
    else:
        raise ProjectConfigError(f"{where}: expected {'a string or ' if mode == 'ini' else ''}a list of strings, "
                                 f"got {value!r} (the project's own pytest stops on it too)")
    return options, f"{name} {section}", ""


def _section(filename: str, mode: str) -> str:
    if filename.endswith(".cfg"):
        return "[tool:pytest]"
    if filename == "pyproject.toml":
        return "[tool.pytest.ini_options]" if mode == "ini" else "[tool.pytest]"
    return "[pytest]"


def _line(config: Path, section: str) -> str:
    """`` (line N)`` for an ini file's addopts key, when iniconfig knows it."""
    if config.suffix not in (".ini", ".cfg"):
        return ""
    try:
        import iniconfig  # noqa: PLC0415

        line = iniconfig.IniConfig(str(config)).lineof(section.strip("[]"), "addopts")
    except Exception:  # noqa: BLE001
        return ""
    return f" (line {line})" if line else ""


def filter_addopts(options: list[str]) -> tuple[list[str], list[tuple[str, str]]]:
    """``(kept, dropped)``: the allowlisted options (normalized: ``--name=value``, ``-X``, ``value``) and every
    other one with the reason. Never raises; a value-taking option's value is judged with it."""
    kept: list[str] = []
    dropped: list[tuple[str, str]] = []
    i, n = 0, len(options)
    while i < n:
        token = options[i] if isinstance(options[i], str) else str(options[i])
        i += 1
        if "\x00" in token:
            dropped.append((token, "contains a NUL byte"))
            continue
        if token == "--":
            rest = [str(t) for t in options[i:]]
            dropped.append((" ".join(["--", *rest]), "test paths: the task's selection decides what runs"))
            break
        if not token.startswith("-") or token == "-":
            dropped.append((token, "a test path or stray value: the task's selection decides what runs"))
            continue
        if token.startswith("--"):
            name, eq, attached = token.partition("=")
            parts = [(name, attached if eq else None)]
        else:
            parts = _short_bundle(token)
        for index, (name, value) in enumerate(parts):
            last = index == len(parts) - 1
            takes = name in _VALUES or (name not in _FLAGS and len(name) == 2 and name[1] in _SHORT_WITH_VALUE)
            shown = name if value is None else f"{name}={value}" if name.startswith("--") else f"{name} {value}"
            if takes and value is None and last and i < n and not str(options[i]).startswith("-"):
                value = str(options[i])
                i += 1
                shown = f"{name} {value}"
            if name in _FLAGS:
                if value is not None:
                    dropped.append((shown, f"{name} takes no value"))
                else:
                    kept.append(name)
                continue
            if name in _VALUES:
                why = _value_problem(name, value)
                if why:
                    dropped.append((shown, why))
                elif name.startswith("--"):
                    kept.append(f"{name}={value}")
                else:
                    kept += [name, value]
                continue
            dropped.append((shown, _WHY.get(name, "not on the allowlist (an unknown option, or one of a plugin "
                                                  "that is not loaded: pytest would stop with a usage error)")))
        # values that follow a dropped option belong to it (its arity is unknown) or are test paths: both dropped
        while i < n and parts and parts[-1][0] not in _FLAGS | _VALUES and not str(options[i]).startswith("-"):
            dropped.append((str(options[i]), f"a value of the dropped {parts[-1][0]}, or a test path"))
            i += 1
    return kept, dropped


def _short_bundle(token: str) -> list[tuple[str, str | None]]:
    """``-vx`` -> ``[("-v", None), ("-x", None)]``, ``-ra`` -> ``[("-r", "a")]``, as argparse splits them."""
    out: list[tuple[str, str | None]] = []
    body = token[1:]
    for j, char in enumerate(body):
        name = "-" + char
        if char in _SHORT_WITH_VALUE or (name in _VALUES):
            rest = body[j + 1:]
            out.append((name, rest.removeprefix("=") if rest else None))
            return out
        out.append((name, None))
    return out


def _value_problem(name: str, value: str | None) -> str:
    """Why ``name value`` is not kept ("" when it is)."""
    if value is None or value == "":
        return f"{name} needs a value"
    if "\x00" in value:  # a separate value token is not checked with its option's token
        return f"{name}: its value contains a NUL byte"
    if value.startswith("-"):
        return f"{name} {value}: a value starting with '-' reads as an option"
    if name == "-p":
        return _disable_problem(value)
    if name in _CHOICES and value not in _CHOICES[name]:
        return f"{name}={value}: not one of {sorted(_CHOICES[name])}"
    if name == "-r" and not _REPORT_CHARS.fullmatch(value):
        return f"-r {value}: not pytest's report characters"
    if name == "--durations" and not _INT.fullmatch(value):
        return f"--durations={value}: not a count"
    if name == "--durations-min" and not _FLOAT.fullmatch(value):
        return f"--durations-min={value}: not a number of seconds"
    return ""


def _disable_problem(value: str) -> str:
    """``-p VALUE`` is kept only as ``no:NAME`` for a plugin the harness does not rely on."""
    if not value.startswith("no:"):
        return ("loads a plugin: autoload is off and the harness loads no code the project names on the command "
                "line (a plugin a conftest names in pytest_plugins still loads)")
    name = value[3:]
    if not _PLUGIN_NAME.fullmatch(name):
        return f"-p {value}: not a plain plugin name"
    base = name.removeprefix("pytest_")
    if base.lower().startswith("beacon") or name.lower().startswith("beacon"):
        return f"-p {value}: would disable the harness's own plugin"
    if base in BUILTIN_PLUGINS and base not in SAFE_TO_DISABLE:
        return (f"-p {value}: the harness relies on pytest's {base!r} plugin (the report, collection, assertion "
                "rewriting, skip/xfail, capture, subtests or pythonpath)")
    return ""


def project_addopts(mode: str, config: Path | None, checkout: Path) -> Addopts:
    """What a run passes on of the checkout's ``addopts`` (``mode``: ``"keep_safe"`` or ``"drop"``)."""
    if mode not in MODES:
        raise ValueError(f"project_addopts must be one of {MODES}, got {mode!r}")
    if mode == "drop":
        try:
            options, source, note = read_addopts(config, checkout)
        except ProjectConfigError as exc:
            return Addopts(mode, None, note=f"not read: {exc}")
        return Addopts(mode, source, tuple(options), (), tuple((o, "project_addopts='drop'") for o in options),
                       note)
    options, source, note = read_addopts(config, checkout)
    kept, dropped = filter_addopts(options)
    return Addopts(mode, source, tuple(options), tuple(kept), tuple(dropped), note)
