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
