"""Differential test: legal cards and trick winners identical to belote-cli's.

belote-cli (FFB classic: pisser required, free when the partner is master) lives in its
own virtualenv (``make peers``); it is driven through a subprocess by an oracle script,
never imported here. Positions come from random legal games of our engine, trumps as
well as sans atout and tout atout contracts.
"""

from __future__ import annotations

import json
import os
import random
import subprocess
from pathlib import Path

import pytest

from rebelote.cards import ALL_TRUMP, NO_TRUMP, cards_of
from rebelote.hand import HandState
from rebelote.rules import Rules

ROOT = Path(__file__).resolve().parents[1]
PEER_PYTHON = ROOT / ".peers" / "belote-cli" / "bin" / "python"
ORACLE = Path(__file__).parent / "peers" / "belote_cli_oracle.py"
POSITIONS = 100_000


def _positions(n: int, seed: int) -> tuple[list[str], list[list[int]], list[str], list[int]]:
    rules = Rules.ffb()
    rng = random.Random(seed)
    queries: list[str] = []
    expected: list[list[int]] = []
    trick_queries: list[str] = []
    trick_expected: list[int] = []
    i = 0
    while len(queries) < n:
        deck = list(range(32))
        rng.shuffle(deck)
        cards = [deck[8 * s:8 * s + 8] for s in range(4)]
        roll = rng.random()
        mode = NO_TRUMP if roll < 0.1 else ALL_TRUMP if roll < 0.2 else rng.randrange(4)
        hand = HandState.with_contract(rules, i & 3, cards, rng.randrange(4), mode)
        i += 1
        while not hand.is_over:
            seat = hand.turn
            leader = (seat - len(hand.trick)) & 3
            trick = [[(leader + k) & 3, c] for k, c in enumerate(hand.trick)]
            legal = hand.legal_cards()
            queries.append(json.dumps({"hand": cards_of(hand.hands[seat]), "trump": mode,
                                       "trick": trick, "seat": seat}))
            expected.append(cards_of(legal))
            choices = cards_of(legal)
            card = choices[rng.randrange(len(choices))]
            hand.play(card)
            if not hand.trick:  # a trick just completed
                trick_queries.append(json.dumps(
                    {"winner_of": [*trick, [seat, card]], "trump": mode}))
                trick_expected.append(hand.trick_winners[-1])
    return queries, expected, trick_queries, trick_expected


def test_legal_cards_and_trick_winners_match_belote_cli() -> None:
    if not PEER_PYTHON.exists():
        if os.environ.get("REBELOTE_SKIP_PEERS"):
            pytest.skip("belote-cli's virtualenv is absent (make peers)")
        pytest.fail("belote-cli's virtualenv is missing: run `make peers`")
    queries, expected, trick_queries, trick_expected = _positions(POSITIONS, seed=20261130)
    assert len(queries) >= POSITIONS
    proc = subprocess.run([str(PEER_PYTHON), str(ORACLE)], input="\n".join(queries + trick_queries)
                          + "\n", capture_output=True, text=True, timeout=600, check=True)
    answers = proc.stdout.splitlines()
    assert len(answers) == len(queries) + len(trick_queries)
    mismatches = []
    for q, want, got in zip(queries, expected, answers[:len(queries)], strict=True):
        if json.loads(got) != want:
            mismatches.append((q, want, got))
    for q, want_w, got_w in zip(trick_queries, trick_expected, answers[len(queries):],
                                strict=True):
        if json.loads(got_w) != want_w:
            mismatches.append((q, [want_w], got_w))
    assert not mismatches, f"{len(mismatches)} mismatches, first: {mismatches[:3]}"
