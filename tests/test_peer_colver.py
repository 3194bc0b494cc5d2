"""Differential test against colver (contrée; Rust core) on identical deals.

colver lives in its own virtualenv (``make peers``) and is driven by an oracle script
in a subprocess. With colver's options — discard allowed instead of under-trumping,
surcoinche ×3 on the bid only, points made + bid, a chute worth 162 + the contract and
every belote, no rounding — our engine must offer the same legal actions at every step
of the auction and the play, and give the same hand scores.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from rebelote.hand import HandState
from rebelote.rules import Rules

ROOT = Path(__file__).resolve().parents[1]
PEER_PYTHON = ROOT / ".peers" / "colver" / "bin" / "python"
ORACLE = Path(__file__).parent / "peers" / "colver_oracle.py"
POSITIONS = 100_000

COLVER_RULES = Rules.contree().replace(
    undertrump="free", surcoinche_multiplier=3, multiplier_on="bid", contree_adds_bid=True,
    capot_points=252, chute_points=162, chute_capot="takers", belote_when_lost="to_winner",
    auction_no_trump=False, auction_all_trump=False, rounding="none",
)


def test_auction_play_and_scores_match_colver() -> None:
    if not PEER_PYTHON.exists():
        if os.environ.get("REBELOTE_SKIP_PEERS"):
            pytest.skip("colver's virtualenv is absent (make peers)")
        pytest.fail("colver's virtualenv is missing: run `make peers`")
    proc = subprocess.run([str(PEER_PYTHON), str(ORACLE), "3200", "7"], capture_output=True,
                          text=True, timeout=600, check=True)
    positions = 0
    scored = 0
    mismatches: list[str] = []
    for n, line in enumerate(proc.stdout.splitlines()):
        deal = json.loads(line)
        hand = HandState.from_deal(COLVER_RULES, deal["dealer"], deal["hands"])
        for k, (legal, action) in enumerate(deal["steps"]):
            ours = sorted(hand.legal_actions())
            positions += 1
            if ours != legal:
                mismatches.append(f"deal {n} step {k}: ours {ours} colver {legal}")
                break
            hand.apply(action)
        else:
            assert hand.is_over, f"deal {n}: colver ended, our hand goes on"
            if not hand.is_void:
                score = hand.score()
                scored += 1
                if list(score.scored) != [int(x) for x in deal["rewards"]]:
                    mismatches.append(f"deal {n}: ours {score.scored} colver "
                                      f"{deal['rewards']} ({hand.outcome()})")
    assert not mismatches, f"{len(mismatches)} mismatches, first: {mismatches[:3]}"
    assert positions >= POSITIONS and scored >= 2000
