"""Scoring a hand from its outcome (RULES.md §8): one implementation, used by the engine
and by the score calculator alike. Pure functions over small values, no cards needed.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from rebelote.rules import Rules

MADE = "made"
FAILED = "failed"
LITIGE = "litige"
VOID = "void"


SCORE_ERRORS: Final[dict[str, str]] = {
    "err_taker_team": "the taking team must be 0 (us) or 1 (them), not {value!r}",
    "err_capot_team": "the capot team must be 0 or 1, not {value!r}",
    "err_capot_points": "a capot by team {team} leaves team {loser} no card points, but the "
                        "entry gives team {loser} {given}",
    "err_points_missing": "enter team 0's card points (0 to 162, dix de der included)",
    "err_points_range": "card points go from 0 to 162 (dix de der included), not {value}",
    "err_points_pair": "card points must be two numbers from 0 to 162 adding up to 162 "
                       "(dix de der included), not {a} and {b}",
    "err_belote_team": "a belote belongs to team 0 or 1, not {value!r}",
    "err_belote_count": "{count} belotes are impossible here: at most {most} (one per K-Q "
                        "of trump)",
    "err_belote_value": "belote is worth 20 (one per K-Q of trump)",
    "err_no_announcements": "the {preset} rules have no announcements",
    "err_announce_total": "{value} is not an announcement total: no combination of tierces "
                          "(20), cinquantes (50), cents (100) and carrés (100, 150, 200) that "
                          "two partners can hold makes it",
    "err_announce_both": "only one team's announcements score: the team holding the best one",
    "err_negative": "announcement and belote points cannot be negative",
    "err_negative_reserve": "the litige reserve cannot be negative",
    "err_bid_missing": "auction games need the bid (80 to 160, or capot)",
    "err_classic_bid": "classic belote has no bid, capot bid or coinche",
    "err_capot_bid": "a capot bid is worth {worth}, not {value}",
    "err_bid_value": "a bid is 80 to 160 by tens, or capot; not {value}",
    "err_double": "double must be 1, 2 (coinche) or 4 (surcoinche), not {value}",
    "err_three_players": "the score calculator counts two teams (or two players): {preset} is "
                         "played by three, each for himself",
    "err_game_over_after": "the game was over after hand {n}: no hand can follow",
    "err_in_hand": "hand {n}: {why}",
    "err_game_over": "the game is over: start a new sheet",
    "err_no_undo": "there is no hand to undo",
    "err_no_such_hand": "there is no hand {n} (the sheet has {count})",
    "err_sheet_shape": "a score sheet is a JSON object with 'rules' and 'hands'",
    "err_sheet_rules": "rules: {why}",
    "err_sheet_hands": "'hands' must be a list",
    "err_no_file": "{path}: no such file",
    "err_unreadable": "{path}: not a readable JSON score sheet ({why})",
    "err_field_object": "a hand must be an object",
    "err_field_unknown": "unknown field {name!r}",
    "err_field_number": "{name} must be a whole number, not {value!r}",
    "err_field_taker": "'taker' (0 or 1) is missing",
    "err_field_announce": "announce must be an object such as {{\"0\": 20}}",
    "err_field_announce_team": "announce teams are \"0\" and \"1\", not {value!r}",
    "err_field_belote": "belote must list teams, such as [0]",
    "err_field_suit": "suit must be S, H, D, C, SA or TA, not {value!r}",
}
"""Why a hand or a sheet is refused, in English, by key: the text catalog
(:mod:`rebelote.i18n`) gives the same keys in French and Spanish."""


class ScoreError(ValueError):
    """A hand outcome that cannot happen (e.g. more than 162 card points).

    Built from a key of :data:`SCORE_ERRORS` and its values, so that a front end can say
    it in the user's language; any other text is kept as it is (already said)."""

    def __init__(self, key: str, /, **values: object) -> None:
        self.key = key
        self.values = values
        super().__init__(SCORE_ERRORS[key].format(**values) if key in SCORE_ERRORS else key)


@dataclass(frozen=True, slots=True)
class HandScore:
    """What one hand adds to each team, and the litige reserve after it."""

    outcome: str
    """``made``, ``failed`` or ``litige`` (a tie scored with the reserve)."""
    scored: tuple[int, ...]
    """Points each team (each player with three) adds to its total for this hand,
    reserve won included."""
    reserve: int
    """What the litige reserve holds after this hand."""
    reserve_won_by: int | None = None
    """The team that won the reserve carried into this hand, if any."""
    totals: tuple[int, ...] = (0, 0)
    """Each side's hand total before the outcome: card points + announcements + belote."""
    capot: int | None = None
    """The side that won every trick, if one did: a team (the seat with two players);
    with three players 0 the taker, 1 the defense."""


def round_score(rules: Rules, value: int) -> int:
    """A hand score rounded to tens as ``rules.rounding`` says (85 → 90, 84 → 80)."""
    if rules.rounding == "nearest":
        return (value + 5) // 10 * 10
    if rules.rounding == "down":
        return value // 10 * 10
    return value


def score_hand(
    rules: Rules,
    taker_team: int,
    card_points: tuple[int, int],
    announcements: tuple[int, int] = (0, 0),
    belote: tuple[int, int] = (0, 0),
    reserve: int = 0,
    capot: int | None = None,
) -> HandScore:
    """Score one classic hand.

    ``card_points`` include the dix de der (162 together; ignored on a capot, which gives
    ``rules.capot_points`` to team ``capot``); ``announcements`` are the points that
    scored after the comparison (only the winning team's); ``belote`` is 20 per belote;
    ``reserve`` is the litige reserve carried in.
    """
    if taker_team not in (0, 1):
        raise ScoreError("err_taker_team", value=taker_team)
    if capot is not None:
        if capot not in (0, 1):
            raise ScoreError("err_capot_team", value=capot)
        card_points = (rules.capot_points, 0) if capot == 0 else (0, rules.capot_points)
    else:
        a, b = card_points
        if a < 0 or b < 0 or a + b != 162:
            raise ScoreError("err_points_pair", a=a, b=b)
    if min(announcements) < 0 or min(belote) < 0:
        raise ScoreError("err_negative")
    if reserve < 0:
        raise ScoreError("err_negative_reserve")
    t, d = taker_team, 1 - taker_team
    totals = (
        card_points[0] + announcements[0] + belote[0],
        card_points[1] + announcements[1] + belote[1],
    )
    counted, needed = _classic_need(rules, t, totals)
    if capot == t or counted >= needed:
        outcome = MADE
    elif totals[t] < totals[d]:
        outcome = FAILED
    else:  # a tie that does not make the contract
        outcome = {"reserve": LITIGE, "failed": FAILED}[rules.litige]

    scored = [0, 0]
    new_reserve = reserve
    won_by: int | None = None
    if outcome == MADE:
        scored[t], scored[d] = totals[t], totals[d]
    elif outcome == FAILED:
        pot = rules.capot_points if capot == d else 162
        scored[d] = pot + announcements[0] + announcements[1] + belote[d]
        if rules.belote_when_lost == "kept":
            scored[t] = belote[t]
        elif rules.belote_when_lost == "to_winner":
            scored[d] += belote[t]
    else:  # litige kept in reserve: the takers keep only their belote
        scored[d] = totals[d]
        scored[t] = belote[t]
        new_reserve = reserve + round_score(rules, totals[t] - belote[t])
    if outcome != LITIGE and reserve:
        won_by = t if outcome == MADE else d
        scored[won_by] += reserve
        new_reserve = 0
    return HandScore(
        outcome=outcome,
        scored=(round_score(rules, scored[0]), round_score(rules, scored[1])),
        reserve=new_reserve,
        reserve_won_by=won_by,
        totals=totals,
        capot=capot,
    )


@dataclass(frozen=True, slots=True)
class HandOutcome:
    """What a hand's score depends on: the engine computes it from the cards, the score
    calculator takes it from the players. One value, scored by :func:`score_outcome`."""

    taker_team: int
    card_points: tuple[int, int] = (0, 0)
    """Each team's card points with the dix de der (162 together); ignored on a capot."""
    capot: int | None = None
    """The team that won all eight tricks, if one did."""
    announcements: tuple[int, int] = (0, 0)
    """Announcement points that scored (only the comparison's winner has any)."""
    belote: tuple[int, int] = (0, 0)
    """20 per belote-rebelote, per team."""
    bid: int = 0
    """Auction games: the contract's value, 80..160 by tens (0 in classic)."""
    capot_bid: bool = False
    """Auction games: the contract was capot (all eight tricks)."""
    double: int = 1
    """Auction games: 1, 2 after a coinche/contre, 4 after a surcoinche/surcontre."""


def check_outcome(rules: Rules, o: HandOutcome) -> None:
    """Raise :class:`ScoreError` for an outcome that cannot happen under ``rules``."""
    if o.taker_team not in (0, 1):
        raise ScoreError("err_taker_team", value=o.taker_team)
    if o.capot is not None and o.capot not in (0, 1):
        raise ScoreError("err_capot_team", value=o.capot)
    a, b = o.card_points
    if o.capot is None and (a < 0 or b < 0 or a + b != 162):
        raise ScoreError("err_points_pair", a=a, b=b)
    if min(o.announcements) < 0 or min(o.belote) < 0:
        raise ScoreError("err_negative")
    if min(o.announcements) > 0:
        raise ScoreError("err_announce_both")
    if any(x % 20 for x in o.belote):
        raise ScoreError("err_belote_value")
    if max(o.announcements) > 0 and not rules.announcements:
        raise ScoreError("err_no_announcements", preset=rules.preset)
    if rules.game == "retourne":
        if o.bid or o.capot_bid or o.double != 1:
            raise ScoreError("err_classic_bid")
        return
    if o.capot_bid:
        if o.bid not in (0, rules.capot_bid_value):
            raise ScoreError("err_capot_bid", worth=rules.capot_bid_value, value=o.bid)
    elif not (80 <= o.bid <= 160 and o.bid % 10 == 0):
        raise ScoreError("err_bid_value", value=o.bid)
    if o.double not in (1, 2, 4):
        raise ScoreError("err_double", value=o.double)


def _least_above(rules: Rules, defence: int) -> int:
    """The least total that beats ``defence`` in a game of the retourne (and with three
    players): one point more, or as much where a tie counts as made (``litige``)."""
    return defence + (0 if rules.litige == "made" else 1)


def _classic_need(rules: Rules, taker_team: int, totals: tuple[int, int]) -> tuple[int, int]:
    """Classic: the takers' total against the least that makes it, more than the
    defence's."""
    return totals[taker_team], _least_above(rules, totals[1 - taker_team])


def _auction_need(rules: Rules, o: HandOutcome, cards: list[int],
                  totals: tuple[int, int]) -> tuple[int, int] | None:
    """Auction games: what counts towards the contract and the least that makes it;
    None for a capot bid, which needs every trick rather than points."""
    if o.capot_bid:
        return None
    t, d = o.taker_team, 1 - o.taker_team
    if rules.auction_scoring == "coinche":  # the bid, and more than the defence
        return totals[t], max(o.bid, totals[d] + 1)
    return cards[t] + o.belote[t], o.bid  # contrée, acorralada: card points and belote


def _counted(rules: Rules, o: HandOutcome) -> tuple[list[int], tuple[int, int]]:
    """Each team's card points as they count (a capot: its value to the side that made
    it, none to the other) and each team's total with announcements and belote."""
    cards = list(o.card_points)
    if o.capot is not None:
        cards = [0, 0]
        cards[o.capot] = rules.capot_points
    totals = (cards[0] + o.announcements[0] + o.belote[0],
              cards[1] + o.announcements[1] + o.belote[1])
    return cards, totals


def contract_need(rules: Rules, o: HandOutcome) -> tuple[int, int] | None:
    """What the takers counted towards their contract and the least that made it, as
    :func:`score_outcome` judges the hand (RULES.md §4, §8): a failed contract's
    "75 points, 82 needed". None for a capot bid (every trick, not points).

    "More than the defence" is said as the least total the takers could have made it
    with, the deal's card points shared otherwise and every announcement and belote as
    they were: the defence's own total plus one read "16 points, 187 needed" after a
    hand whose defence had 146 card points and 40 of announcements (102 were enough)."""
    cards, totals = _counted(rules, o)
    if rules.game == "retourne":
        counted, needed = _classic_need(rules, o.taker_team, totals)
    else:
        need = _auction_need(rules, o, cards, totals)
        if need is None or rules.auction_scoring != "coinche":
            return need
        counted, needed = need
    if o.capot is None:  # (a capot: every trick, the takers' or not)
        beaten = _least_beating(rules, o)
        needed = beaten if rules.game == "retourne" else max(o.bid, beaten)
    return counted, needed


def _least_beating(rules: Rules, o: HandOutcome) -> int:
    """The least total of the takers (card points, announcements, belote) that beats the
    defence's, the hand's card points shared between the two sides otherwise and the
    announcements and belote as they were."""
    t, d = o.taker_team, 1 - o.taker_team
    own, other = o.announcements[t] + o.belote[t], o.announcements[d] + o.belote[d]
    return _least_with(rules, sum(o.card_points), own, other)


def _least_with(rules: Rules, pot: int, own: int, other: int) -> int:
    """The least total of the takers, ``own`` points beside their card points, that
    beats (or ties, where a tie counts as made) the defence's ``other`` points and the
    rest of the ``pot`` of card points."""
    # own + c > other + (pot - c)  <=>  2c > pot + other - own
    twice = pot + other - own
    cards = -(-twice // 2) if rules.litige == "made" else twice // 2 + 1
    return max(cards, 0) + own


def three_need(rules: Rules, taker: int, totals: tuple[int, ...],
               belote: tuple[int, ...]) -> tuple[int, int]:
    """Three players: the taker's total (card points and belote) against the least that
    makes it: the least total beating the two defenders' together, the card points of
    the hand shared otherwise and each belote as it was (their total plus one said "93
    needed" where 82 were enough)."""
    pot = sum(totals) - sum(belote)
    other = sum(b for s, b in enumerate(belote) if s != taker)
    return totals[taker], _least_with(rules, pot, belote[taker], other)


def score_outcome(rules: Rules, outcome: HandOutcome, reserve: int = 0) -> HandScore:
    """Score a hand from its outcome under ``rules`` (RULES.md §4 and §8)."""
    check_outcome(rules, outcome)
    if rules.game == "retourne":
        return score_hand(rules, outcome.taker_team, outcome.card_points, outcome.announcements,
                          outcome.belote, reserve, outcome.capot)
    return _score_auction(rules, outcome, reserve)


@dataclass(frozen=True, slots=True)
class Term:
    """One part of a side's score as a score pad writes it, with its value: a named
    number (``card_points``, ``capot``, ``announcements``, ``belote``, ``bid``, ``chute``,
    ``reserve``), a ``sum`` of parts, or ``times``: a part times a ``multiplier``. The
    auction games' scores are computed as these terms, so what a summary shows (the bid,
    the ×2 that make 102 card points score 560) is what scored, not a second reckoning."""

    name: str
    value: int
    parts: tuple[Term, ...] = ()

    def as_dict(self) -> dict[str, object]:
        """The term as plain data (the web summary's ``terms``)."""
        return {"name": self.name, "value": self.value,
                "parts": [p.as_dict() for p in self.parts]}


def _sum(*parts: Term) -> Term:
    """The non-zero parts added (a zero is not written on a pad)."""
    kept = tuple(p for p in parts if p.value)
    return Term("sum", sum(p.value for p in kept), kept)


def _times(part: Term, multiplier: int) -> Term:
    return part if multiplier == 1 else Term("times", part.value * multiplier,
                                             (part, Term("multiplier", multiplier)))


def auction_terms(rules: Rules, o: HandOutcome,
                  reserve: int = 0) -> tuple[tuple[Term, Term], bool, int | None]:
    """Each side's score of an auction-game hand as :class:`Term` (before rounding),
    whether the contract was made, and who won the reserve (RULES.md §8)."""
    t, d = o.taker_team, 1 - o.taker_team
    cards, totals = _counted(rules, o)
    ann = o.announcements
    bel = o.belote
    value = rules.capot_bid_value if o.capot_bid else o.bid
    mult = {1: 1, 2: 2, 4: rules.surcoinche_multiplier}[o.double]
    style = rules.auction_scoring
    need = _auction_need(rules, o, cards, totals)
    made = o.capot == t if need is None else need[0] >= need[1]

    def points(side: int) -> Term:  # the side's card points, or its capot
        return Term("capot" if o.capot == side else "card_points", cards[side])

    bid = Term("bid", value)
    parts: list[list[Term]] = [[], []]
    if style == "acorralada":
        if made:
            parts[t] = [points(t), Term("belote", bel[t]), _times(bid, mult)]
            parts[d] = [points(d), Term("belote", bel[d])]
        else:  # all the points to the opponents; the contract's value too by default
            parts[d] = [Term("capot", rules.capot_points) if o.capot == d
                        else Term("card_points", 162), Term("belote", bel[0] + bel[1])]
            if rules.acorralada_failed == "value_to_defense":
                parts[d].append(_times(bid, mult))
    elif o.double == 1 and made:
        for side in (t, d):
            parts[side] = [points(side), Term("announcements", ann[side]),
                           Term("belote", bel[side])]
        if style == "coinche" or rules.contree_adds_bid:
            parts[t].append(bid)
    else:  # failed, or doubled: the winners take the chute points
        w = t if made else d
        loser = 1 - w
        base = Term("chute", rules.chute_points)
        if o.capot == w and (rules.chute_capot == "any" or w == t):
            base = Term("capot", rules.capot_points)
        both = Term("announcements", ann[0] + ann[1])
        if rules.multiplier_on == "whole":
            parts[w] = [_times(_sum(base, both, bid), mult), Term("belote", bel[w])]
        else:
            parts[w] = [base, both, _times(bid, mult), Term("belote", bel[w])]
        if rules.belote_when_lost == "kept":
            parts[loser] = [Term("belote", bel[loser])]
        elif rules.belote_when_lost == "to_winner":
            parts[w].append(Term("belote", bel[loser]))
    won_by = None
    if reserve:
        won_by = t if made else d
        parts[won_by].append(Term("reserve", reserve))
    return (_sum(*parts[0]), _sum(*parts[1])), made, won_by


def _score_auction(rules: Rules, o: HandOutcome, reserve: int) -> HandScore:
    (a, b), made, won_by = auction_terms(rules, o, reserve)
    _cards, totals = _counted(rules, o)
    return HandScore(MADE if made else FAILED,
                     (round_score(rules, a.value), round_score(rules, b.value)),
                     0, won_by, totals, o.capot)


def score_three(
    rules: Rules, taker: int, seat_points: list[int], seat_belote: list[int],
    capot: str | None,
) -> HandScore:
    """Score a three-player hand (docs/variants.md): the taker against the other two.

    Made when the taker's total (card points + belote) beats the two defenders' together;
    then each player scores his own total (a capot: the capot value to its side).
    Failed: the defenders share 162 (the capot value on their capot), each adding his
    belote; the taker keeps his belote as ``belote_when_lost`` says.
    """
    defenders = [s for s in range(3) if s != taker]
    cards = list(seat_points)
    if capot == "taker":
        cards = [0, 0, 0]
        cards[taker] = rules.capot_points
    totals = [cards[s] + seat_belote[s] for s in range(3)]
    counted, needed = three_need(rules, taker, tuple(totals), tuple(seat_belote))
    made = capot == "taker" or (capot != "defense" and counted >= needed)
    scored = [0, 0, 0]
    if made:
        scored = totals
    else:
        pot = rules.capot_points if capot == "defense" else 162
        for s in defenders:
            scored[s] = pot // 2 + seat_belote[s]
        if rules.belote_when_lost == "kept":
            scored[taker] = seat_belote[taker]
        elif rules.belote_when_lost == "to_winner":
            for s in defenders:
                scored[s] += seat_belote[taker] // 2
    return HandScore(MADE if made else FAILED, tuple(round_score(rules, x) for x in scored),
                     0, None, tuple(totals),
                     None if capot is None else ("taker", "defense").index(capot))


def game_winner(
    rules: Rules, totals: tuple[int, ...], last_taker_team: int | None, hands_played: int,
    takers_made: bool = True,
) -> int | None:
    """The winning side once the game is over (RULES.md §9), else ``None``.

    Over when a side reached the target (or the hands limit is played); if several are
    over, the higher total wins, or with ``takers_first`` the last hand's takers when
    they made it (``takers_made``) and their defense when they did not (failed takers
    who reach the target with their kept belote do not take the game from the
    defense); an exact tie for the lead plays on.
    """
    over = hands_played >= rules.hands_limit if rules.hands_limit else max(totals) >= rules.target
    if not over:
        return None
    if not rules.hands_limit and rules.both_over == "takers_first" and last_taker_team is not None:
        first: int | None = last_taker_team
        if not takers_made:  # the defense won the hand: its score counts first
            first = 1 - last_taker_team if len(totals) == 2 else None
        if first is not None and totals[first] >= rules.target:
            return first
    best = max(totals)
    leaders = [side for side, total in enumerate(totals) if total == best]
    return leaders[0] if len(leaders) == 1 else None
