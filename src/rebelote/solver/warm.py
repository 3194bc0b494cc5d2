"""The solver's compiled code ready before the first decision that needs it.

numba compiles the kernels on their first call (about 18 s on a new install, much more
on a loaded machine) and caches them on disk; later starts load the cache in about a
second. :func:`warm_up` makes every kernel ready in this process
(``python -m rebelote.solver.warm`` does it at install: ``make`` runs it once).
:func:`start_background` compiles in a separate process instead, so that a program with
a screen or an event loop keeps answering; until it is done :func:`ready` is false, the
expert plays as the heuristic does (it would otherwise freeze on its first solve), and
:func:`preparing` tells the program to say so on screen.
"""

from __future__ import annotations

import gc
import subprocess
import sys
import threading
import time

_lock = threading.Lock()
_process: subprocess.Popen[bytes] | None = None


def warm_up() -> float:
    """Compile or load every solver kernel in this process; the seconds it took. What
    is loaded by then (numba's compiler and types: about 100,000 objects) is frozen out
    of the garbage collector's sight: a full collection looked at it every time, 49 ms
    within a decision (a 10 ms bid took 58)."""
    from rebelote.hand import HandState
    from rebelote.rules import Rules
    from rebelote.solver import Solver, child_position, position_of, rollouts

    start = time.perf_counter()
    hands = [list(range(8 * seat, 8 * seat + 8)) for seat in range(4)]
    hand = HandState.with_contract(Rules.contree(), 0, hands, 1, 0, -1, 0, 1)
    for _ in range(20):  # into the third trick: the exact solves of the expert
        hand.play(min(c for c in range(32) if hand.legal_cards() >> c & 1))
    solver = Solver()
    pos = position_of(hand, max_team=0)
    solver.value(pos)
    solver.value_within(pos, None, time.perf_counter() + 60)  # the deadline's clock
    solver.at_least(pos, 10)
    solver.move_values(pos)
    card = min(c for c in range(32) if hand.legal_cards() >> c & 1)
    rollouts(child_position(pos, card)[0], 4, 1)
    gc.collect()  # what is garbage now is not frozen with the rest
    gc.freeze()
    return time.perf_counter() - start


def start_background() -> None:
    """Start compiling in a separate process (writing numba's cache), unless one runs."""
    global _process
    with _lock:
        if _process is None:
            _process = subprocess.Popen(
                [sys.executable, "-m", "rebelote.solver.warm", "--quiet"],
                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def preparing() -> bool:
    """Whether a background compile started by :func:`start_background` still runs."""
    with _lock:
        return _process is not None and _process.poll() is None


def ready() -> bool:
    """Whether the solver may be called without compiling first: true unless a
    background compile still runs (then this process loads the cache it wrote)."""
    return not preparing()


def main() -> None:
    seconds = warm_up()
    if "--quiet" not in sys.argv:
        print(f"solver ready ({seconds:.1f} s)")


if __name__ == "__main__":
    main()
