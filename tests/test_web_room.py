"""The card room's server side (rebelote.server.tables): what the table shows (the
contract, the trick's winner so far, the last hand's summary), the lobby pushed live,
chat, leaving, choosing a seat, rematch, finished games never handed to bots; the one
text catalog the pages fetch; the static files served compressed."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient

from rebelote.bots import LEVELS
from rebelote.i18n import catalog
from rebelote.i18n_web import LANGS, WEB_TEXT
from rebelote.rules import OPTIONS, PRESETS
from rebelote.server.app import create_app
from rebelote.server.store import Store
from rebelote.server.tables import (
    CHAT_MAX,
    GRACE_S,
    PHRASES,
    STAND_IN_AFTER_S,
    TABLE_FIXED_OPTIONS,
    TableService,
)

Out = list[tuple[str, dict[str, Any]]]


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def service(tmp_path: Path, clock: Clock) -> TableService:
    return TableService(Store(f"sqlite:///{tmp_path / 'room.sqlite'}"), seed=3, clock=clock)


def _state(out: Out, player: str) -> dict[str, Any]:
    return [m for p, m in out if p == player and m["type"] == "state"][-1]


def _create(service: TableService, player: str = "ana", preset: str = "classic",
            **options: Any) -> str:
    out = service.handle(player, {"type": "create", "preset": preset, "options": options})
    table: str = out[0][1]["table"]
    return table


def _play_to_the_end(service: TableService, table: str, player: str = "ana",
                     seed: int = 1) -> dict[str, Any]:
    """``player`` plays random legal actions until the game is over: the last state."""
    rng = random.Random(seed)
    state = _state(service.handle(player, {"type": "sync", "table": table}), player)
    for _ in range(2000):
        if state.get("winner") is not None:
            return state
        out = service.handle(player, {"type": "act", "table": table,
                                      "action": rng.choice(state["legal"])})
        state = _state(out, player)
    raise AssertionError("the game did not end")


def test_a_finished_game_is_never_handed_to_bots(service: TableService, clock: Clock) -> None:
    service.names["ana"] = "Ana"
    table = _create(service, rules={"hands_limit": 1})
    service.handle("ana", {"type": "bots", "table": table, "level": "random"})
    _play_to_the_end(service, table)
    service.disconnected("ana")  # she closes the tab of the finished game
    clock.now += STAND_IN_AFTER_S + 1
    service.tick()
    clock.now += GRACE_S + 1
    service.tick()
    t = service.tables[table]
    assert t.seats[0] == {"player": "ana"} and not t.stand_ins
    assert service.stats("ana")["games"] == 1
    record = service.finished_record(table)
    assert record["players"][:2] == ["Ana", "bot:random"]  # names, not internal ids
    restarted = TableService(service.store, seed=3, clock=clock)  # the store agrees
    assert restarted.tables[table].seats[0] == {"player": "ana"}


def test_the_state_shows_the_contract_the_trick_winner_and_the_last_hand(
        service: TableService) -> None:
    table = _create(service, preset="coinche")
    out = service.handle("ana", {"type": "bots", "table": table, "level": "heuristic"})
    state = _state(out, "ana")
    assert state["players"] == 4 and state["direction"] == "counterclockwise"
    assert state["game"] == "auction" and state["creator"] is True
    rng = random.Random(4)
    seen_bid = seen_winner = False
    for _ in range(400):
        if state["last_hand"] is not None:
            break
        for call in state["auction"]:  # each call with its seat, in turn order
            assert 0 <= call["seat"] < 4
        if state["auction"]:
            first = state["auction"][0]["seat"]
            assert first == state["first_hand"]
            assert [c["seat"] for c in state["auction"]] == [
                (first + i) % 4 for i in range(len(state["auction"]))]
        bid = state["bid"]
        if bid is not None:
            seen_bid = True
            assert bid["value"] == "capot" or 80 <= int(bid["value"]) <= 160
            assert bid["trump"] in ("S", "H", "D", "C", "SA", "TA")
            assert bid["double"] in (1, 2, 4)
            last = [c for c in state["calls"] if c[:1].isdigit() or c.startswith("capot")][-1]
            assert last == f"{bid['value']}{bid['trump']}"
            assert bid["final"] == (state["phase"] != "auction")
            if "coinche" in state["calls"]:
                assert bid["double"] >= 2 and bid["doubled_by"] in range(4)
        trick = state["trick"]
        if state["phase"] == "play" and trick and trick["cards"]:
            seen_winner = True
            assert trick["winner"] in range(4)
        action = rng.choice(state["legal"])
        state = _state(service.handle("ana", {"type": "act", "table": table,
                                              "action": action}), "ana")
    assert seen_bid
    last = state["last_hand"]
    assert last["hand"] == 1 and state["sheet"][0]["scored"] == last["scored"]
    if not last["void"]:
        assert seen_winner and len(last["tricks"]) == 8
        assert sum(last["card_points"]) == 162
        assert last["dix_de_der"] == last["tricks"][-1]["winner"]


def test_the_lobby_is_pushed_with_names_status_and_my_tables(service: TableService) -> None:
    service.names.update({"ana": "Ana", "bruno": "Bruno"})
    assert service.handle("bruno", {"type": "lobby"})[0][1]["tables"] == []
    out = service.handle("ana", {"type": "create", "preset": "contree"})
    pushed = [m for p, m in out if p == "bruno" and m["type"] == "lobby"]
    assert len(pushed) == 1  # Bruno's lobby hears of the new table at once
    entry = pushed[0]["tables"][0]
    assert entry["seats"][0] == "Ana" and entry["status"] == "waiting"
    assert entry["free"] == [1, 2, 3] and entry["preset"] == "contree"
    table = entry["table"]
    out = service.handle("bruno", {"type": "join", "table": table, "seat": 2})  # his choice
    assert service.tables[table].seats[2] == {"player": "bruno"}
    mine = service.handle("bruno", {"type": "lobby"})[0][1]["mine"]
    assert [m["table"] for m in mine] == [table] and mine[0]["seat"] == 2
    # a private table is in its players' "my tables", in nobody's open list
    private = _create(service, private=True)
    assert private not in [e["table"] for e in service.public_tables()]
    assert private in [e["table"] for e in service.my_tables("ana")]
    # a finished game leaves the open list
    done = _create(service, rules={"hands_limit": 1})
    service.handle("ana", {"type": "bots", "table": done, "level": "random"})
    _play_to_the_end(service, done)
    assert done not in [e["table"] for e in service.public_tables()]
    assert done not in [e["table"] for e in service.my_tables("ana")]


def test_leaving_a_table(service: TableService, tmp_path: Path, clock: Clock) -> None:
    table = _create(service)
    service.handle("bruno", {"type": "join", "table": table})
    out = service.handle("bruno", {"type": "leave", "table": table})
    assert ("bruno", {"type": "left", "table": table}) in out
    assert service.tables[table].seats[1] == {}  # a waiting table: the seat is free again
    restarted = TableService(service.store, seed=3, clock=clock)
    assert restarted.tables[table].seats[1] == {}
    service.handle("bruno", {"type": "join", "table": table, "seat": 1})
    service.handle("ana", {"type": "bots", "table": table, "level": "random"})
    service.handle("bruno", {"type": "leave", "table": table})  # mid-game: a bot for good
    assert service.tables[table].seats[1] == {"bot": "heuristic"}
    game = service.tables[table].game
    assert game is not None and game.current is not None and game.current.turn in (0, 2)


def test_seats_full_tables_and_rematch(service: TableService) -> None:
    table = _create(service, rules={"hands_limit": 1})
    assert service.handle("bruno", {"type": "join", "table": table, "seat": 0}
                          )[0][1]["code"] == "seat_taken"
    service.handle("bruno", {"type": "join", "table": table, "seat": 3})
    service.handle("ana", {"type": "bots", "table": table, "level": "random"})
    assert service.handle("chloe", {"type": "join", "table": table})[0][1]["code"] == "table_full"
    assert service.handle("ana", {"type": "rematch", "table": table})[0][1]["code"] == "not_over"
    rng = random.Random(7)
    t = service.tables[table]
    while t.game is not None and not t.game.is_over:
        assert t.game.current is not None
        who = "ana" if t.game.current.turn == 0 else "bruno"
        state = _state(service.handle(who, {"type": "sync", "table": table}), who)
        service.handle(who, {"type": "act", "table": table,
                             "action": rng.choice(state["legal"])})
    assert _state(service.handle("ana", {"type": "sync", "table": table}), "ana")[
        "rematch_by"] is None
    service.handle("eve", {"type": "watch", "table": table})
    out = service.handle("bruno", {"type": "rematch", "table": table})
    new = _state(out, "bruno")["table"]
    assert new != table and _state(out, "ana")["rematch"] == new
    # Ana (and the spectator) hear who asked: Bruno, at seat 3; so does a restarted server.
    assert _state(out, "ana")["rematch_by"] == 3 and _state(out, "eve")["rematch_by"] == 3
    again = TableService(service.store, seed=4)
    state = _state(again.handle("ana", {"type": "sync", "table": table}), "ana")
    assert (state["rematch"], state["rematch_by"]) == (new, 3)
    n = service.tables[new]
    assert n.seats[3] == {"player": "bruno"} and n.seats[1] == {"bot": "random"}
    assert n.game is None  # Ana's seat waits for her
    assert service.handle("chloe", {"type": "join", "table": new}
                          )[0][1]["code"] == "table_full"  # kept for Ana
    service.handle("ana", {"type": "rematch", "table": table})
    assert n.seats[0] == {"player": "ana"} and n.game is not None
    assert n.rules == t.rules


def test_chat_lines_and_quick_phrases(service: TableService) -> None:
    table = _create(service)
    service.handle("bruno", {"type": "join", "table": table})
    service.handle("eve", {"type": "watch", "table": table})
    out = service.handle("bruno", {"type": "chat", "table": table, "text": "  salut  "})
    assert {p for p, _ in out} == {"ana", "bruno", "eve"}
    assert out[0][1] == {"type": "chat", "table": table, "seat": 1, "name": "bruno",
                         "text": "salut"}
    out = service.handle("eve", {"type": "chat", "table": table, "phrase": PHRASES[0]})
    assert out[0][1]["phrase"] == PHRASES[0] and out[0][1]["seat"] == -1
    for bad in ({"text": "x" * (CHAT_MAX + 1)}, {"text": "   "}, {"phrase": "insult"}, {}):
        refused = service.handle("bruno", {"type": "chat", "table": table, **bad})
        assert len(refused) == 1 and refused[0][1]["code"] == "bad_message"
    assert service.handle("zed", {"type": "chat", "table": table, "text": "hi"}
                          )[0][1]["code"] == "not_seated"


def test_three_and_two_player_tables(service: TableService) -> None:
    for preset, n in (("three", 3), ("decouverte", 2)):
        table = _create(service, preset=preset, rules={"hands_limit": 1})
        out = service.handle("ana", {"type": "bots", "table": table, "level": "random"})
        state = _state(out, "ana")
        assert state["players"] == n and len(state["seats"]) == n
        if preset == "decouverte":
            assert len(state["table_cards"]) == 2
        end = _play_to_the_end(service, table)
        assert end["winner"] is not None and len(end["totals"]) == (3 if n == 3 else 2)


def test_the_turn_timer_says_when_a_bot_played_for_you(service: TableService,
                                                      clock: Clock) -> None:
    table = _create(service, timer=30)
    service.handle("bruno", {"type": "join", "table": table, "seat": 2})
    service.handle("ana", {"type": "bots", "table": table, "level": "random"})
    t = service.tables[table]
    assert t.game is not None and t.game.current is not None
    who = "ana" if t.game.current.turn == 0 else "bruno"
    state = _state(service.handle(who, {"type": "sync", "table": table}), who)
    assert state["timer"] == 30 and state["turn_left"] == 30
    clock.now += 31
    out = service.tick()
    assert any(p == who and m["type"] == "timeout" for p, m in out)


def test_the_catalog_has_every_web_text_in_three_languages() -> None:
    for key, entry in WEB_TEXT.items():
        assert set(entry) == set(LANGS) and all(entry.values()), key
    texts = {lang: catalog(lang)["texts"] for lang in LANGS}
    for option in OPTIONS:  # every rule option a table may set, and its worded values
        if option.name in TABLE_FIXED_OPTIONS | {"target", "players"}:
            continue
        assert f"opt_{option.name}" in texts["fr"], option.name
        for value in option.values or ():
            if isinstance(value, bool):  # as the page writes it (String(false))
                assert f"val_{str(value).lower()}" in texts["fr"], value
            elif isinstance(value, str) and not value[:1].isdigit():
                assert f"val_{value}" in texts["fr"], value
    for preset in PRESETS:
        assert texts["fr"][f"preset_{preset}"] and texts["es"][f"preset_{preset}"]
    for level in LEVELS:
        assert texts["fr"][f"bot_{level}"] != texts["en"][f"bot_{level}"]
    for phrase in PHRASES:
        assert texts["fr"][f"phrase_{phrase}"] != texts["en"][f"phrase_{phrase}"]
    assert catalog("fr")["reasons"]["must follow suit"].startswith("il faut")


def test_every_card_has_a_spoken_name_in_every_language_and_deck(tmp_path: Path) -> None:
    """ARIA labels say cards in words, with each deck's own suits: 32 distinct names per
    deck and language, for every deck the page offers; served with the catalog."""
    import re

    from rebelote.cards import card_name
    from rebelote.decks import STYLES, short_label
    from rebelote.i18n import DECK_FAMILY, spoken_card, spoken_cards

    page = (Path(__file__).parent.parent / "src/rebelote/server/static/index.html").read_text()
    choices = re.findall(r'<option value="(\w+)"', page.split('id="deck"')[1].split("</select>")[0])
    assert set(choices) == set(DECK_FAMILY) == {"pictures", *STYLES}
    for lang in LANGS:
        names = spoken_cards(lang)
        assert set(names) == set(DECK_FAMILY)
        for deck, by_card in names.items():
            assert sorted(by_card) == sorted(card_name(c) for c in range(32))
            assert len(set(by_card.values())) == 32, (lang, deck)  # no two cards alike
            for c in range(32):
                name = by_card[card_name(c)]
                assert name == spoken_card(c, deck, lang) and len(name.split()) >= 2
                assert not re.search(r"[♠♥♦♣❤🍃🔔🌰⚔🏆🪙🌿]", name), name  # words only
                if deck != "pictures":
                    assert name != short_label(c, deck)
    said = {(lang, deck, card): spoken_cards(lang)[deck][card]
            for lang in LANGS for deck in DECK_FAMILY for card in ("KH", "10D", "JS", "7D")}
    assert said["fr", "pictures", "KH"] == "roi de cœur"
    assert said["fr", "french", "10D"] == "dix de carreau"
    assert said["fr", "international", "JS"] == "valet de pique"
    assert said["en", "pictures", "KH"] == "King of hearts"
    assert said["es", "pictures", "KH"] == "rey de corazones"
    assert said["en", "german", "KH"] == "King of hearts"
    assert said["en", "german", "JS"] == "Unter of leaves"
    assert said["es", "german", "10D"] == "diez de cascabeles"
    assert said["es", "spanish", "7D"] == "cuatro de oros"  # the Spanish deck's 4 is the 7
    assert said["es", "spanish", "JS"] == "sota de espadas"
    assert said["fr", "spanish", "KH"] == "roi de coupes"
    assert said["en", "spanish", "10D"] == "Seven of coins"
    client = TestClient(create_app(f"sqlite:///{tmp_path / 'web.sqlite'}", secret="t", seed=1))
    assert client.get("/api/texts?lang=fr").json()["spoken"] == spoken_cards("fr")
    assert client.get("/api/texts?lang=es").json()["spoken"]["spanish"]["AC"] == "as de bastos"


def test_the_pages_get_the_catalog_compressed_files_and_a_favicon(tmp_path: Path) -> None:
    client = TestClient(create_app(f"sqlite:///{tmp_path / 'web.sqlite'}", secret="t", seed=1))
    texts = client.get("/api/texts?lang=es").json()
    assert texts["texts"]["web_create"] == "Crear la mesa"
    assert texts["decks"]["german"]["KH"] == "K❤" and texts["decks"]["french"]["KH"] == "R♥"
    assert client.get("/api/session").json() == {"player": None, "nickname": None,
                                                  "account": False}
    sprite = client.get("/static/cards/svg-cards.svg", headers={"accept-encoding": "gzip"})
    assert sprite.headers["content-encoding"] == "gzip"
    assert "max-age=604800" in sprite.headers["cache-control"]
    assert client.get("/static/app.js").headers["cache-control"] == "no-cache"
    icon = client.get("/favicon.ico")
    assert icon.status_code == 200 and icon.headers["content-type"].startswith("image/svg")
    rules = client.get("/api/rules").json()
    assert {"three", "decouverte"} <= set(rules["presets"])


def test_a_dropped_player_is_marked_and_a_bot_plays_for_him(service: TableService,
                                                            clock: Clock) -> None:
    table = _create(service)
    service.handle("bruno", {"type": "join", "table": table, "seat": 2})
    service.handle("ana", {"type": "bots", "table": table, "level": "random"})
    service.disconnected("bruno")
    state = _state(service.handle("ana", {"type": "sync", "table": table}), "ana")
    assert state["away"] == [2] and state["stand_ins"] == []  # marked, not yet replaced
    clock.now += STAND_IN_AFTER_S + 1
    service.tick()
    state = _state(service.handle("ana", {"type": "sync", "table": table}), "ana")
    assert state["stand_ins"] == [2] and state["seats"][2] == "bruno"  # "a bot plays for"
    service.reconnected("bruno")
    state = _state(service.handle("ana", {"type": "sync", "table": table}), "ana")
    assert state["away"] == [] and state["stand_ins"] == []
