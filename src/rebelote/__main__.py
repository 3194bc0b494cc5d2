"""``python -m rebelote`` is the ``rebelote`` command."""

from rebelote.cli import main

main()
