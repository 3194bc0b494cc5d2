"""The Rules value: presets, validation, record round trip, generated docs."""

from __future__ import annotations

from pathlib import Path

import pytest

from rebelote.rules import OPTIONS, PRESETS, Rules, RulesError, options_markdown


def test_presets_follow_rules_section_10() -> None:
    c, f, s, m = Rules.classic(), Rules.ffb(), Rules.skill7(), Rules.moroccan()
    assert (c.announcements, c.undertrump, c.target, c.litige) == (True, "required", 1000,
                                                                  "reserve")
    assert (c.both_over, c.announcement_tie) == ("higher_total", "takers")
    assert (f.announcements, f.undertrump, f.target) == (False, "required", 1000)
    assert (s.target, s.announcement_tie, s.belote_when_lost) == (501, "first_hand",
                                                                  "to_winner")
    assert m.deck_style == "spanish" and m.replace(deck_style="french") == Rules.classic().replace(
        preset="moroccan")


def test_rules_are_frozen_and_validated() -> None:
    r = Rules.classic()
    with pytest.raises(AttributeError):
        r.target = 5  # type: ignore[misc]
    for bad in ({"undertrump": "maybe"}, {"capot_points": 300}, {"target": -1},
                {"announcements": 1}, {"target": 0}):
        with pytest.raises(RulesError):
            r.replace(**bad)


def test_from_dict_and_to_dict_round_trip() -> None:
    r = Rules.from_dict({"preset": "ffb", "target": 501, "litige": "failed"})
    assert r.preset == "ffb" and r.target == 501 and r.litige == "failed"
    assert r.to_dict() == {"preset": "ffb", "target": 501, "litige": "failed"}
    assert Rules.from_dict(r.to_dict()) == r
    with pytest.raises(RulesError, match="unknown rule option"):
        Rules.from_dict({"preset": "classic", "pisser": True})
    with pytest.raises(RulesError, match="unknown preset"):
        Rules.from_dict({"preset": "whist"})


def test_every_option_is_documented_and_every_field_is_an_option() -> None:
    fields = set(Rules.__dataclass_fields__) - {"preset"}
    assert {o.name for o in OPTIONS} == fields
    for opt in OPTIONS:
        assert len(opt.doc) > 20
        default = getattr(Rules(), opt.name)
        assert opt.values is None or default in opt.values
    assert set(PRESETS) == {"classic", "ffb", "skill7", "moroccan", "coinche", "contree",
                            "acorralada", "three", "decouverte"}


def test_generated_docs_are_up_to_date() -> None:
    page = Path(__file__).resolve().parents[1] / "docs" / "rules-options.md"
    assert page.read_text(encoding="utf-8") == options_markdown(), "run `make docs`"


@pytest.mark.parametrize("preset", ["classic", "coinche"])
def test_an_option_of_the_other_game_changes_no_hand(preset: str) -> None:
    """An option marked for the other way of making the contract (``Option.game``) leaves
    every call, card and score of this game's hands as they were: the lobby hides it."""
    import random

    from rebelote.game import Game
    from rebelote.rules import OPTIONS, RulesError

    base: Rules = getattr(Rules, preset)()

    def play(rules: Rules) -> tuple[list[int], list[tuple[int, ...]]]:
        game = Game(rules.replace(target=0, hands_limit=10), random.Random(7), dealer=0)
        rng, actions = random.Random(8), []
        while not game.is_over:
            actions.append(rng.choice(game.legal_actions()))
            game.apply(actions[-1])
        return actions, [s.scored for s in game.scores]

    played = play(base)
    others = [o for o in OPTIONS if o.game is not None and o.game != base.game]
    tried = set()
    for o in others:
        for value in o.values or ():
            if value == getattr(base, o.name):
                continue
            try:
                rules = base.replace(**{o.name: value})
            except RulesError:
                continue
            assert play(rules) == played, (o.name, value)
            tried.add(o.name)
    assert len(others) >= 4 and tried == {o.name for o in others}
