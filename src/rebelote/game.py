"""A game: hands to the target with dealer rotation, the litige reserve, the end rules."""

from __future__ import annotations

import random
from collections.abc import Sequence

from rebelote.cards import PLAIN_ORDER, Card, CardSet
from rebelote.errors import WrongPhase
from rebelote.hand import OVER, HandState, deal_deck
from rebelote.rules import Rules
from rebelote.scoring import MADE, VOID, HandScore, Term, auction_terms, game_winner
from rebelote.view import SeatView, make_view


def draw_dealer(rng: random.Random, players: int = 4) -> int:
    """The first dealer, drawn: each seat draws a card, the lowest deals (ties redraw)."""
    seats = list(range(players))
    while True:
        deck = deal_deck(rng)
        drawn = {seat: deck[i] for i, seat in enumerate(seats)}
        low = min(PLAIN_ORDER[c & 7] for c in drawn.values())
        seats = [s for s, c in drawn.items() if PLAIN_ORDER[c & 7] == low]
        if len(seats) == 1:
            return seats[0]


class Game:
    """A game of classic belote, hand after hand, until the end-of-game rules say so.

    With an ``rng`` the game deals its own hands (the next one as soon as a hand ends,
    unless ``auto_deal`` is off: then call :meth:`deal`); without one (replaying a
    record) hands are given with :meth:`start_hand`.
    """

    def __init__(
        self,
        rules: Rules,
        rng: random.Random | None = None,
        dealer: int | None = None,
        players: Sequence[str] | None = None,
        auto_deal: bool = True,
    ) -> None:
        self.rules = rules
        self.auto_deal = auto_deal
        self.rng = rng
        n = rules.players
        default_names = ["North", "East", "South", "West"] if n == 4 else [
            f"Player {i + 1}" for i in range(n)]
        self.players = list(players) if players else default_names
        if len(self.players) != n:
            raise ValueError(f"{n} players need {n} names, not {len(self.players)}")
        if dealer is None:
            dealer = draw_dealer(rng, n) if rng is not None else 0
        self.first_dealer = dealer
        self.hands: list[HandState] = []
        self.scores: list[HandScore] = []
        self.sides = 3 if n == 3 else 2
        """Scoring sides: two teams with 4 players, each player with 2 or 3."""
        self.totals = [0] * self.sides
        self._totals_seen: tuple[int, ...] = tuple(self.totals)
        self.reserve = 0
        self.winner: int | None = None
        self.current: HandState | None = None
        self._next_deck: list[Card] | None = None
        if rng is not None:
            self.deal()

    # -- hands ---------------------------------------------------------------------------

    @property
    def next_dealer(self) -> int:
        """Dealer of the next hand: the deal passes to the next seat, voided hands too."""
        if not self.hands:
            return self.first_dealer
        return (self.hands[-1].dealer + 1) % self.rules.players

    @property
    def is_over(self) -> bool:
        """The game has a winner."""
        return self.winner is not None

    @property
    def hands_played(self) -> int:
        """Hands that count (voided hands do not)."""
        return sum(1 for s in self.scores if s.outcome != VOID)

    def deal(self, deck: Sequence[Card] | None = None) -> HandState:
        """Deal the next hand (from ``deck``, or the game's own shuffle/cut)."""
        if deck is None:
            if self.rng is None:
                raise ValueError("this game has no random source: give the deck")
            if self.rules.shuffle == "cut" and self._next_deck is not None:
                k = self.rng.randrange(1, len(self._next_deck))
                deck = self._next_deck[k:] + self._next_deck[:k]
            else:
                deck = deal_deck(self.rng, self.rules.players)
        return self.start_hand(HandState.deal(self.rules, self.next_dealer, deck))

    def start_hand(self, hand: HandState) -> HandState:
        """Begin ``hand``; its dealer must be the next dealer."""
        if self.winner is not None:
            raise WrongPhase("the game is over", rule="game over")
        if self.current is not None and not self.current.is_over:
            raise WrongPhase("the current hand is not over", rule="one hand at a time")
        if self.hands and hand.dealer != self.next_dealer:
            raise ValueError(f"the dealer must be seat {self.next_dealer} (the deal passes "
                             f"to the next seat), not {hand.dealer}")
        self.current = hand
        self.hands.append(hand)
        return hand

    # -- actions -------------------------------------------------------------------------

    @property
    def turn(self) -> int:
        """Seat to act in the current hand, -1 if none."""
        return self.current.turn if self.current is not None and not self.is_over else -1

    def legal_actions(self) -> list[int]:
        """Actions open to the seat to act."""
        if self.current is None or self.is_over:
            return []
        return self.current.legal_actions()

    def apply(
        self,
        action: int,
        seat: int | None = None,
        announce: Sequence[CardSet] | None = None,
        belote: bool | None = None,
    ) -> None:
        """Apply an action to the current hand; a finished hand is scored at once and,
        when the game deals its own cards, the next one is dealt. ``announce`` and
        ``belote`` are passed to :meth:`HandState.play` with a card."""
        hand = self.current
        if hand is None or self.winner is not None:
            raise WrongPhase("the game is over" if self.is_over else "no hand in progress",
                             rule="game over")
        if action < 32:
            hand.play(action, seat, announce, belote)
        else:
            hand.call(action, seat)
        if hand.phase == OVER:
            self._finish_hand()

    def _finish_hand(self) -> None:
        hand = self.current
        assert hand is not None
        score = hand.score(self.reserve)
        self.scores.append(score)
        for side, points in enumerate(score.scored):
            self.totals[side] += points
        self._totals_seen = tuple(self.totals)  # one tuple for the views of a hand
        self.reserve = score.reserve
        if hand.is_void:
            self._next_deck = hand.gathered_cards()
        else:
            self._next_deck = list(hand.played)
            taker_side = hand.taker if self.sides == 3 else hand.taker_team
            self.winner = game_winner(self.rules, tuple(self.totals), taker_side,
                                      self.hands_played, score.outcome == MADE)
        if self.winner is None and self.rng is not None and self.auto_deal:
            self.deal()

    def hand_terms(self, index: int) -> tuple[Term, Term]:
        """How each side's score of finished auction-game hand ``index`` was made (its
        bid, a ×2, the reserve carried into it), as the rules computed it: what the web's
        and the terminal's summaries write."""
        carried = self.scores[index - 1].reserve if index else 0
        terms, _made, _won_by = auction_terms(self.rules, self.hands[index].outcome(),
                                              carried)
        return terms

    def view(self, seat: int) -> SeatView:
        """``seat``'s view of the hand in progress, with the game's scores (-1: a
        spectator's, only what is public)."""
        hand = self.current
        if hand is None:
            raise WrongPhase("no hand has been dealt", rule="no hand")
        return make_view(hand, seat, self._totals_seen, self.reserve, len(self.hands))

