"""Task producers: mutation operators, mutant discovery, localization tasks mined from git history.

High in the stack (discovery validates mutants with the repair harness); the
task types they produce — manifests and queries — live in :mod:`beacon.data`.
"""
