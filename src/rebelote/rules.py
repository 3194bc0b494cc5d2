"""One frozen :class:`Rules` value holds every rule option; presets are named constructors.

Each option is documented in :data:`OPTIONS` (name, allowed values, meaning); the docs
page ``docs/rules-options.md`` is generated from it (``make docs``) and a test checks
that the two agree.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any, Final


class RulesError(ValueError):
    """An unknown preset, option name or option value."""


@dataclass(frozen=True, slots=True)
class Option:
    """Documentation of one rule option."""

    name: str
    values: tuple[Any, ...] | None  # None: any int in ``minimum..``
    doc: str
    minimum: int = 0
    game: str | None = None
    """The one way of making the contract (``retourne`` or ``auction``) whose hands the
    option changes; None: both. A lobby offers an option only where it matters."""


OPTIONS: Final[tuple[Option, ...]] = (
    Option("players", (4, 3, 2),
           "Players at the table: 4 in two partnerships; 3 each for himself (the taker "
           "against the other two, 24 cards: the 7s and 8s are set aside); 2 in découverte "
           "(16 cards each, 10 of them on the table). See docs/variants.md."),
    Option("game", ("retourne", "auction"),
           "How the contract is made: a retourne and two rounds of taking (classic, RULES "
           "§3), or an auction of bids 80..160 and capot with 8 cards dealt at once (§4)."),
    Option("auction_deal", ("3-2-3", "3-3-2", "2-3-3"),
           "Packets of the 8 cards dealt at once in auction games (RULES §4).", game="auction"),
    Option("auction_scoring", ("coinche", "contree", "acorralada"),
           "Scoring of auction games (RULES §4): FFB coinche (made = bid reached and more "
           "than the defense), FFB contrée (made = bid reached; no announcements), or the "
           "online platform's acorralada.", game="auction"),
    Option("auction_no_trump", (False, True), "Sans atout (SA) may be bid (RULES §4).",
           game="auction"),
    Option("auction_all_trump", (False, True), "Tout atout (TA) may be bid (RULES §4).",
           game="auction"),
    Option("acorralada_failed", ("value_to_defense", "cards_only"),
           "Acorralada, a failed contract: the opponents score 162 (252 on their capot), "
           "both belotes and the contract's value, x2 / x4 when doubled ('value_to_defense', "
           "RULES §4: all the points, so that a contra is a risk for both sides), or only "
           "the 162 and the belotes ('cards_only': the value goes to nobody).", game="auction"),
    Option("multiplier_on", ("whole", "bid"),
           "A coinche/contre multiplies the whole score (160 + announcements + bid) or only "
           "the bid (RULES §4).", game="auction"),
    Option("surcoinche_multiplier", (4, 3), "Multiplier of a surcoinche/surcontre.",
           game="auction"),
    Option("capot_bid_value", (250, 500), "Value of a capot bid (RULES §4).", game="auction"),
    Option("contree_adds_bid", (False, True),
           "Contrée made: the takers score their points (False) or their points + the bid.",
           game="auction"),
    Option("raise_after_passes", (False, True),
           "Acorralada: once the others have passed, the winning bidder may raise once.",
           game="auction"),
    Option("direction", ("counterclockwise", "clockwise"),
           "Way the table turns for dealing, bidding and play (RULES §2). Seat s+1 always "
           "plays after seat s; this only says which way that is around a real table."),
    Option("deal_packets", ("3-2", "2-3"),
           "Packets of the first five cards (RULES §3.2); the completion is 3 each, 2 for "
           "the taker who also gets the retourne.", game="retourne"),
    Option("shuffle", ("shuffle", "cut"),
           "'shuffle' between hands, or 'cut': the cards are gathered in the order played "
           "and only cut, as in cafés (RULES §3.1)."),
    Option("round2_no_trump", (False, True), "Round 2 may name sans atout (SA) (RULES §3.5).",
           game="retourne"),
    Option("round2_all_trump", (False, True), "Round 2 may name tout atout (TA) (RULES §3.5).",
           game="retourne"),
    Option("all_trump_points", ("scaled", "reduced13", "reduced14"),
           "Card values in tout atout (RULES §1): 'scaled' trump values (258) scaled by "
           "162/258; 'reduced13' J13 9 9 A6 10 5 K3 Q2; 'reduced14' J14 9 9 A6 10 5 K3 Q1."),
    Option("undertrump", ("required", "free"),
           "When an opponent is master with a trump you cannot beat and you cannot follow: "
           "'required' you must still play a lower trump (pisser, FFB classic), 'free' you "
           "may discard instead (RULES §5.4)."),
    Option("partner_master_free", (True, False),
           "Void in the suit led while your partner is master: any card (True, RULES §5.3) "
           "or the same duty to trump as against an opponent (False)."),
    Option("belote_order", ("any", "king_first"),
           "Belote scores with K and Q of trump played in any order, or only king first."),
    Option("belote_automatic", (False, True),
           "Belote scores for whoever holds K and Q of trump without being said (True), or "
           "only when said on both cards (False, RULES §6)."),
    Option("auto_announce", (True, False),
           "Announcements and belote are declared automatically for whoever holds them "
           "(RECORD.md); off, players (and records) say exactly what they declare."),
    Option("announcements", (True, False),
           "Announcements (tierce, cinquante, cent, carrés) are played (RULES §7)."),
    Option("trump_sequence_wins", (True, False),
           "Between equal sequences, one in trump beats one not in trump (RULES §7)."),
    Option("announcement_tie", ("takers", "nobody", "first_hand"),
           "Equal best announcements in both teams: the taking team scores, nobody scores "
           "(FFB), or the player nearest first hand scores (RULES §7)."),
    Option("capot_points", (252, 250), "Card points of a capot (RULES §1)."),
    Option("litige", ("reserve", "failed", "made"),
           "A tie: the takers' points go to a reserve won by the next decided hand, or "
           "the tie counts as failed, or as made (RULES §8).", game="retourne"),
    Option("belote_when_lost", ("kept", "lost", "to_winner"),
           "The belote of the side that loses the hand (failed takers; in auction games "
           "also a doubled contract's losers): 'kept' (classic, FFB coinche), 'lost' "
           "(FFB contrée: a failed contract loses it) or 'to_winner' (everything goes to "
           "the winners: the online platform's classic, colver)."),
    Option("chute_points", (160, 162),
           "Auction games: the card points a failed or doubled contract gives its winners "
           "(160 per the FFB; 162 = every card point, as colver scores).", game="auction"),
    Option("chute_capot", ("any", "takers"),
           "Auction games: whose capot scores the capot value instead of the chute points "
           "when a contract is failed or doubled: the winners' whoever they are ('any'), or "
           "only the takers' ('takers': a defense capot still gives the chute points, as "
           "colver scores).", game="auction"),
    Option("rounding", ("none", "nearest", "down"),
           "Rounding of each hand's scores to tens: none, nearest (85 → 90, 84 → 80), down."),
    Option("target", None, "Points that end the game (RULES §9); 0 with a hands limit.",
           minimum=0),
    Option("hands_limit", None,
           "Play a fixed number of hands (tournaments) instead of a target; 0 = no limit.",
           minimum=0),
    Option("both_over", ("higher_total", "takers_first"),
           "Both teams reach the target in one hand: the higher total wins, or the takers' "
           "score is counted first (RULES §9). An exact tie plays one more hand."),
    Option("deck_style", ("french", "international", "german", "spanish"),
           "How cards are shown (display only; RULES §1)."),
)

OPTION_NAMES: Final = tuple(o.name for o in OPTIONS)


@dataclass(frozen=True, slots=True)
class Rules:
    """Every rule option of a game; build it from a preset (``Rules.classic()``)."""

    preset: str = "classic"
    players: int = 4
    game: str = "retourne"
    auction_deal: str = "3-2-3"
    auction_scoring: str = "coinche"
    auction_no_trump: bool = False
    auction_all_trump: bool = False
    acorralada_failed: str = "value_to_defense"
    multiplier_on: str = "whole"
    surcoinche_multiplier: int = 4
    capot_bid_value: int = 250
    contree_adds_bid: bool = False
    raise_after_passes: bool = False
    direction: str = "counterclockwise"
    deal_packets: str = "3-2"
    shuffle: str = "shuffle"
    round2_no_trump: bool = False
    round2_all_trump: bool = False
    all_trump_points: str = "scaled"
    undertrump: str = "required"
    partner_master_free: bool = True
    belote_order: str = "any"
    belote_automatic: bool = False
    auto_announce: bool = True
    announcements: bool = True
    trump_sequence_wins: bool = True
    announcement_tie: str = "takers"
    capot_points: int = 252
    litige: str = "reserve"
    belote_when_lost: str = "kept"
    chute_points: int = 160
    chute_capot: str = "any"
    rounding: str = "none"
    target: int = 1000
    hands_limit: int = 0
    both_over: str = "higher_total"
    deck_style: str = "french"

    def __post_init__(self) -> None:
        for opt in OPTIONS:
            value = getattr(self, opt.name)
            if opt.values is None:
                if not isinstance(value, int) or isinstance(value, bool) or value < opt.minimum:
                    raise RulesError(f"option {opt.name!r} must be an integer >= {opt.minimum}, "
                                     f"not {value!r}")
            elif value not in opt.values or type(value) is not type(opt.values[0]):
                allowed = ", ".join(repr(v) for v in opt.values)
                raise RulesError(f"option {opt.name!r} must be one of {allowed}, not {value!r}")
        if self.target == 0 and self.hands_limit == 0:
            raise RulesError("a game needs a target or a hands_limit")
        if self.players != 4:
            if self.game != "retourne":
                raise RulesError("auction games are for 4 players")
            if self.announcements:
                raise RulesError(f"{self.players}-player games play without announcements "
                                 "(belote only)")
        if self.players == 3 and self.litige == "reserve":
            raise RulesError("3-player games count a tie as failed or made, not a reserve")
        if self.preset not in PRESETS:
            raise RulesError(f"unknown preset {self.preset!r} (known: {', '.join(PRESETS)})")

    @property
    def contracts(self) -> tuple[int, ...]:
        """The contracts these rules can make: the four trump suits 0..3, then sans atout
        (4) and tout atout (5) where the options allow them (round 2 in classic, bids in
        auction games)."""
        auction = self.game == "auction"
        no_trump = self.auction_no_trump if auction else self.round2_no_trump
        all_trump = self.auction_all_trump if auction else self.round2_all_trump
        return (0, 1, 2, 3) + ((4,) if no_trump else ()) + ((5,) if all_trump else ())

    # -- presets ---------------------------------------------------------------------

    @classmethod
    def classic(cls) -> Rules:
        """How-to-play page and score calculator: announcements, litige reserve, 1000."""
        return cls(preset="classic")

    @classmethod
    def ffb(cls) -> Rules:
        """Federation classic: no announcements (belote only), pisser required, 1000."""
        return cls(preset="ffb", announcements=False, announcement_tie="nobody")

    @classmethod
    def skill7(cls) -> Rules:
        """Online platform: to 501, failed gives everything away, tie: nearest first hand."""
        return cls(preset="skill7", target=501, announcement_tie="first_hand",
                   belote_when_lost="to_winner")

    @classmethod
    def moroccan(cls) -> Rules:
        """Score calculator's game: as classic, shown with the Spanish deck."""
        return cls(preset="moroccan", deck_style="spanish")

    @classmethod
    def coinche(cls) -> Rules:
        """Federation coinche: auction with announcements, ×2/×4 on the whole score,
        nearest-ten rounding, free discard instead of under-trumping, to 2000."""
        return cls(preset="coinche", game="auction", auction_scoring="coinche",
                   auction_no_trump=True, auction_all_trump=True,
                   all_trump_points="reduced13", undertrump="free", target=2000,
                   announcement_tie="nobody", rounding="nearest", capot_points=250)

    @classmethod
    def contree(cls) -> Rules:
        """Federation contrée: auction without announcements (belote only), bid reached
        = made, a failed contract loses its belote, to 2000."""
        return cls(preset="contree", game="auction", auction_scoring="contree",
                   auction_no_trump=True, auction_all_trump=True, announcements=False,
                   undertrump="free", target=2000, announcement_tie="nobody",
                   belote_when_lost="lost", capot_points=250)

    @classmethod
    def acorralada(cls) -> Rules:
        """Online platform's auction game: 80..160 or capote (250), raise after the
        others pass, contra ×2 / recontra ×4, under-trumping required, to 701."""
        return cls(preset="acorralada", game="auction", auction_scoring="acorralada",
                   announcements=False, target=701, raise_after_passes=True,
                   announcement_tie="nobody")

    @classmethod
    def three(cls) -> Rules:
        """Three players, each for himself: the taker against the other two (24 cards)."""
        return cls(preset="three", players=3, announcements=False, litige="failed",
                   announcement_tie="nobody", partner_master_free=False)

    @classmethod
    def decouverte(cls) -> Rules:
        """Two players, découverte: 6 cards in hand and 10 on the table (5 face down
        under 5 face up), 16 tricks; the taker loses at 81 or less."""
        return cls(preset="decouverte", players=2, announcements=False, litige="failed",
                   announcement_tie="nobody", partner_master_free=False)

    @classmethod
    def preset_named(cls, name: str) -> Rules:
        """The preset of that name (``classic``, ``ffb``, ``skill7``, ``moroccan``,
        ``coinche``, ``contree``, ``acorralada``)."""
        try:
            return PRESETS[name]()
        except KeyError:
            raise RulesError(f"unknown preset {name!r} (known: {', '.join(PRESETS)})") from None

    # -- records ---------------------------------------------------------------------

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Rules:
        """Rules from a record's ``rules`` object: a preset plus overrides by name."""
        if not isinstance(data, dict):
            raise RulesError("'rules' must be an object such as {\"preset\": \"classic\"}")
        base = cls.preset_named(str(data.get("preset", "classic")))
        overrides = {k: v for k, v in data.items() if k != "preset"}
        unknown = [k for k in overrides if k not in OPTION_NAMES]
        if unknown:
            raise RulesError(f"unknown rule option {unknown[0]!r} (see docs/rules.md)")
        return base.replace(**overrides)

    def to_dict(self) -> dict[str, Any]:
        """The preset name plus every option that differs from the preset."""
        base = PRESETS[self.preset]()
        out: dict[str, Any] = {"preset": self.preset}
        for name in OPTION_NAMES:
            if getattr(self, name) != getattr(base, name):
                out[name] = getattr(self, name)
        return out

    def replace(self, **changes: Any) -> Rules:
        """A copy with some options changed (validated)."""
        return dataclasses.replace(self, **changes)


PRESETS: Final = {
    "classic": Rules.classic,
    "ffb": Rules.ffb,
    "skill7": Rules.skill7,
    "moroccan": Rules.moroccan,
    "coinche": Rules.coinche,
    "contree": Rules.contree,
    "acorralada": Rules.acorralada,
    "three": Rules.three,
    "decouverte": Rules.decouverte,
}


def options_markdown() -> str:
    """The page ``docs/rules-options.md``, generated from :data:`OPTIONS`."""
    presets = {name: make() for name, make in PRESETS.items()}
    intro = (
        "# Rule options\n\n"
        "Generated from `rebelote.rules.OPTIONS` by `make docs`; a test keeps it in step.\n"
        "A record's `rules` object names a preset and overrides any option by name, e.g.\n"
        '`{"preset": "classic", "target": 501, "litige": "failed"}`. The columns show each\n'
        "preset's value.\n\n"
    )
    head = "| option | values | " + " | ".join(presets) + " | meaning |"
    sep = "|" + "---|" * (len(presets) + 3)
    rows = [head, sep]
    for opt in OPTIONS:
        values = f"integer ≥ {opt.minimum}" if opt.values is None else " / ".join(
            f"`{v!r}`" if not isinstance(v, str) else f"`{v}`" for v in opt.values)
        cells = [f"`{getattr(p, opt.name)}`" for p in presets.values()]
        rows.append(f"| `{opt.name}` | {values} | " + " | ".join(cells) + f" | {opt.doc} |")
    return intro + "\n".join(rows) + "\n"


if __name__ == "__main__":  # pragma: no cover - regenerates the docs table
    print(options_markdown(), end="")
