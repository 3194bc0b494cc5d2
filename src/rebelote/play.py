"""The play (RULES.md §5-§7): eight tricks (sixteen in découverte) under the contract,
announcements declared with the first card and compared after trick 1, belote and
rebelote said with the king and queen of trump.

A part of :class:`~rebelote.hand.HandState`: the hand's slots hold the fields, this class
the play's rules; what a card may be played to a trick, and what wins it, are asked of
:mod:`rebelote.tricks`. Découverte needs nothing here but its table cards (``layout``,
``table_up``, ``_covered``: empty in every other game).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from rebelote.announcements import Announcement, announcement_of, best_team, find_announcements
from rebelote.cards import (
    ALL_TRUMP,
    BELOTE_PAIR,
    HIGHER,
    KING,
    NO_TRUMP,
    SUIT_MASK,
    SUIT_NAMES,
    Card,
    CardSet,
    card_name,
    has_trump_suit,
    points_table,
)
from rebelote.errors import CardNotInHand, IllegalAnnouncement, IllegalPlay, NotYourTurn, WrongPhase
from rebelote.phases import AUCTION, OVER, PLAY
from rebelote.rules import Rules
from rebelote.tricks import (
    LAST_TRICK_BONUS,
    STRENGTH,
    TRUMP_STRENGTH,
    legal_against,
    sides,
    team_of,
)


class TrickPlay:
    """The tricks, the announcements and the belote of a hand whose contract is made."""

    if not TYPE_CHECKING:  # the fields are the referee's slots
        __slots__ = ()

    rules: Rules
    n: int
    first: int
    phase: int
    turn: int
    taker: int
    contract: int
    hands: list[CardSet]
    dealt: list[CardSet]
    trick: list[Card]
    led: int
    best_card: int
    best_seat: int
    best_value: int
    played: list[Card]
    trick_leaders: list[int]
    trick_winners: list[int]
    tricks_total: int
    card_points: list[int]
    seat_points: list[int]
    tricks_won: list[int]
    announced: list[list[Announcement]]
    ann_points: tuple[int, int]
    belote_points: list[int]
    seat_belote: list[int]
    table_up: list[CardSet]
    layout: list[tuple[tuple[Card, Card], ...]]
    _covered: list[dict[Card, Card]]
    _ann_winner: int | None
    _belote_first: dict[int, bool]
    _belote_said: list[tuple[int, str, Card]]
    _belote_suits: CardSet
    _legal: CardSet
    _next: tuple[int, ...]
    _partner: tuple[int, ...]
    _team: tuple[int, ...]
    _strength: tuple[tuple[int, ...], ...]
    _points: tuple[int, ...]

    def _start_play(self, hands: list[CardSet], contract: int) -> None:
        """The contract is made (``taker`` is set): the play begins under ``contract``
        with ``hands``."""
        self._legal = -1
        self.hands = hands
        self.dealt = hands[:]
        if self.layout:  # découverte: the cards still face down are the players' too
            for seat, covered in enumerate(self._covered):
                for c in covered.values():
                    self.dealt[seat] |= 1 << c
        self._team = sides(self.n, self.taker)
        self._strength = STRENGTH[contract]
        self._points = points_table(contract, self.rules.all_trump_points)
        self.contract = contract
        self.phase = PLAY
        self.turn = self.first
        suits: tuple[int, ...]
        if contract == NO_TRUMP:
            suits = ()
        elif contract == ALL_TRUMP:
            suits = (0, 1, 2, 3)
        else:
            suits = (contract,)
        belote_suits = 0
        for s in suits:  # held: in hand, or (découverte) face down under a table card
            if any(h & BELOTE_PAIR[s] == BELOTE_PAIR[s] for h in self.dealt):
                belote_suits |= BELOTE_PAIR[s]
        self._belote_suits = belote_suits

    def legal_cards(self) -> CardSet:
        """The cards the seat to play may play, as a set (0 outside the play)."""
        if self._legal >= 0:
            return self._legal
        self._legal = legal = self._legal_cards()
        return legal

    def _legal_cards(self) -> CardSet:
        if self.phase != PLAY:
            return 0
        turn = self.turn
        if not self.trick:  # leading: any card
            return self.hands[turn]
        rules = self.rules
        return legal_against(self.hands[turn], self.led, self.best_card, self.contract,
                             self._partner[turn] == self.best_seat, rules.undertrump,
                             rules.partner_master_free)

    def play(
        self,
        card: Card,
        seat: int | None = None,
        announce: Sequence[CardSet] | None = None,
        belote: bool | None = None,
    ) -> None:
        """Play ``card`` for the seat to play, after checking every obligation.

        ``announce`` (trick 1 only) lists the sets of cards the player declares, and
        ``belote`` says whether he says belote/rebelote with this card; both default to
        automatic declaration when ``rules.auto_announce`` is on.
        """
        if self.phase != PLAY:
            why = "the auction is not over" if self.phase == AUCTION else "the hand is over"
            raise WrongPhase(f"{card_name(card) if 0 <= card < 32 else card!r} cannot be "
                             f"played: {why}", rule="cards only in the play")
        player = self.turn
        if seat is not None and seat != player:
            raise NotYourTurn(f"seat {seat} cannot play: it is seat {player}'s turn")
        legal = self._legal
        if legal < 0:
            legal = self._legal_cards()
        if not (legal >> card) & 1:
            raise self._play_error(card, player)
        declared: list[Announcement] | None = None
        if announce is not None or (
            not self.trick_winners and self.rules.auto_announce and self.rules.announcements
        ):
            declared = self._declarations(player, announce)
        # -- from here on nothing can fail: the state changes --
        if declared is not None:
            self.announced[player] = declared
        self._legal = -1
        bit = 1 << card
        self.hands[player] ^= bit
        if self.n == 2 and self.table_up[player] & bit:  # découverte: turn the card under
            # (the one game with table cards; asking n first keeps the others' play fast)
            self.table_up[player] ^= bit
            under = self._covered[player].pop(card, -1)
            if under >= 0:
                self.hands[player] |= 1 << under
                self.table_up[player] |= 1 << under
        if self._belote_suits & bit:
            self._belote(player, card, belote)
        trick = self.trick
        if not trick:
            self.led = card >> 3
            self.best_card = card
            self.best_seat = player
            self.best_value = self._strength[card >> 3][card]
            self.trick_leaders.append(player)
        else:
            v = self._strength[self.led][card]
            if v > self.best_value:
                self.best_value = v
                self.best_card = card
                self.best_seat = player
        trick.append(card)
        self.played.append(card)
        if len(trick) < self.n:
            self.turn = self._next[player]
            return
        winner = self.best_seat
        team = self._team[winner]
        last = len(self.trick_winners) == self.tricks_total - 1
        pts = self._points  # the trick's value (tricks.trick_points), summed in place
        points = LAST_TRICK_BONUS if last else 0
        for c in trick:
            points += pts[c]
        self.card_points[team] += points
        self.seat_points[winner] += points
        self.tricks_won[team] += 1
        self.trick_winners.append(winner)
        self.trick = []
        self.turn = winner
        n = len(self.trick_winners)
        if n == 1 and self.rules.announcements:
            self._compare_announcements()
        if last:
            self.phase = OVER
            self.turn = -1

    def _play_error(self, card: Card, seat: int) -> Exception:
        if not isinstance(card, int) or not 0 <= card < 32:
            return CardNotInHand(f"{card!r} is not a card")
        name = card_name(card)
        hand = self.hands[seat]
        if not (hand >> card) & 1:
            if card in self._covered[seat].values():  # découverte
                over = next(u for u, d in self._covered[seat].items() if d == card)
                return CardNotInHand(f"{name} is still face down under {card_name(over)}: it "
                                     f"can be played once {card_name(over)} is",
                                     rule="covered card")
            return CardNotInHand(f"seat {seat} does not hold {name}")
        led = self.led
        suit = card >> 3
        follow = hand & SUIT_MASK[led]
        trump_like = led == self.contract or self.contract == ALL_TRUMP
        if follow and suit != led:
            return IllegalPlay(f"{name} is illegal: seat {seat} must follow suit "
                               f"({SUIT_NAMES[led]} led)", rule="must follow suit")
        if follow and trump_like:
            return IllegalPlay(f"{name} is illegal: seat {seat} must play a higher "
                               f"{SUIT_NAMES[led][:-1]} than {card_name(self.best_card)} "
                               "(trump led: overtrump if you can)", rule="must overtrump")
        contract = self.contract
        trumps = hand & SUIT_MASK[contract] if has_trump_suit(contract) else 0
        if suit != contract:
            if self.best_value >= TRUMP_STRENGTH and not trumps & HIGHER[contract][self.best_card]:
                return IllegalPlay(f"{name} is illegal: seat {seat} cannot overtrump but must "
                                   "still play a trump (pisser)", rule="must undertrump")
            return IllegalPlay(f"{name} is illegal: seat {seat} cannot follow "
                               f"{SUIT_NAMES[led]} and an opponent is master: you must trump",
                               rule="must trump")
        return IllegalPlay(f"{name} is illegal: seat {seat} must overtrump "
                           f"{card_name(self.best_card)}", rule="must overtrump")

    # -- announcements and belote ---------------------------------------------------

    def _declarations(self, seat: int, announce: Sequence[CardSet] | None) -> list[Announcement]:
        first_card = not self.trick_winners
        if announce is None:
            return find_announcements(self.dealt[seat]) if first_card else self.announced[seat]
        if announce and not self.rules.announcements:
            raise IllegalAnnouncement("these rules play without announcements",
                                      rule="announcements off")
        if announce and not first_card:
            raise IllegalAnnouncement(f"seat {seat} can only announce with its first card, "
                                      "during trick 1", rule="announce in trick 1")
        return [announcement_of(m) for m in announce] if first_card else self.announced[seat]

    def _compare_announcements(self) -> None:
        valid = []
        false_team = [False, False]
        for seat in range(4):
            held = self.dealt[seat]
            mine = self.announced[seat]
            if any(a.cards & held != a.cards for a in mine):
                false_team[team_of(seat)] = True
            valid.append(mine)
        for seat in range(4):
            if false_team[team_of(seat)]:
                valid[seat] = []
        team = best_team(valid, self.contract, self.first, self.taker,
                         self.rules.announcement_tie, self.rules.trump_sequence_wins)
        self._ann_winner = team
        points = [0, 0]
        if team is not None:
            points[team] = sum(a.points for s in (team, team + 2) for a in valid[s])
        self.ann_points = (points[0], points[1])

    def _belote(self, seat: int, card: Card, said: bool | None) -> None:
        suit = card >> 3
        pair = BELOTE_PAIR[suit]
        if self.dealt[seat] & pair != pair:
            return
        say = self.rules.auto_announce if said is None else said
        first = self._belote_first.get(suit)
        if first is None:
            ok = say or self.rules.belote_automatic
            if self.rules.belote_order == "king_first" and card & 7 != KING:
                ok = False
            self._belote_first[suit] = ok
            if ok and say:
                self._belote_said.append((seat, "belote", card))
            return
        if first and (say or self.rules.belote_automatic):
            self.belote_points[self._team[seat]] += 20
            self.seat_belote[seat] += 20
            if say:
                self._belote_said.append((seat, "rebelote", card))

    @property
    def belote_said(self) -> list[tuple[int, str, Card]]:
        """Public belote events so far: (seat, ``belote`` | ``rebelote``, the card)."""
        return self._belote_said[:]

    @property
    def belote_log(self) -> list[tuple[int, str, Card]]:
        """The belote events themselves, a list that only grows (views keep it with its
        length when they are made); read it, never change it."""
        return self._belote_said

    @property
    def announcement_winner(self) -> int | None:
        """Team whose announcements scored (known once trick 1 is over)."""
        return self._ann_winner

