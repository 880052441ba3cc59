"""Reliability harnesses for the Delta engine: concurrency torture, crash injection, fuzzing.

Each harness is a module runnable with `python -m tests.stress.<name>`; the test files in this
folder run short versions of them. See docs/reliability.md for figures and commands."""
