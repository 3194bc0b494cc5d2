"""The web server: Starlette routes over the :class:`~rebelote.server.tables.TableService`.

- ``POST /api/guest`` ``{"nickname": ...}``: play at once as a guest; a signed session
  cookie (HttpOnly, SameSite=Lax) remembers who you are.
- ``POST /api/register`` / ``/api/login`` ``{"name", "password"}``, ``/api/logout``:
  optional accounts, passwords hashed with argon2.
- ``GET /api/me``, ``GET /api/tables`` (the lobby), ``GET /`` and ``/static/*`` (the
  plain HTML, CSS and JavaScript client; no build step).
- ``/ws``: one WebSocket per open tab; every message goes through the service, whose
  answers are sent to each recipient's open tabs (a new tab gets the full state with a
  ``sync``).
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import json
import os
import secrets
from collections import defaultdict
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerifyMismatchError
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.middleware.gzip import GZipMiddleware
from starlette.middleware.sessions import SessionMiddleware
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response
from starlette.routing import Mount, Route, WebSocketRoute
from starlette.staticfiles import StaticFiles
from starlette.websockets import WebSocket, WebSocketDisconnect

from rebelote.rules import OPTION_NAMES, OPTIONS, PRESETS
from rebelote.server.cluster import Cluster
from rebelote.server.store import Store
from rebelote.server.tables import TABLE_FIXED_OPTIONS, ServiceError, TableService

STATIC = Path(__file__).parent / "static"
MAX_MESSAGE = 4096


class CachedStatic(StaticFiles):
    """The client's files: the card pictures are cached a week (they never change); the
    code is revalidated (ETag) so that a new version shows at once."""

    def file_response(self, full_path: Any, stat_result: os.stat_result, scope: Any,
                      status_code: int = 200) -> Response:
        response = super().file_response(full_path, stat_result, scope, status_code)
        cards = "/cards/" in str(full_path)
        response.headers["cache-control"] = ("public, max-age=604800" if cards
                                             else "no-cache")
        return response


def data_dir() -> Path:
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    path = Path(base) / "rebelote"
    path.mkdir(parents=True, exist_ok=True)
    return path


def default_database_url() -> str:
    return f"sqlite:///{data_dir() / 'server.sqlite'}"


def load_secret() -> str:
    """The key that signs session cookies: $REBELOTE_SECRET, or one made once and kept
    (mode 0600) in the data folder, so that a restart logs nobody out."""
    if os.environ.get("REBELOTE_SECRET"):
        return os.environ["REBELOTE_SECRET"]
    path = data_dir() / "server-secret"
    if not path.exists():
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "w") as out:
            out.write(secrets.token_hex(32))
    return path.read_text().strip()


class Connections:
    """Open WebSockets by player (a player may have several tabs)."""

    def __init__(self) -> None:
        self.by_player: dict[str, set[WebSocket]] = defaultdict(set)

    async def send(self, player: str, message: dict[str, Any]) -> None:
        await self.send_text(player, json.dumps(message))

    async def send_text(self, player: str, text: str) -> None:
        for socket in list(self.by_player.get(player, ())):
            try:
                await socket.send_text(text)
            except (RuntimeError, WebSocketDisconnect):
                self.by_player[player].discard(socket)


def tune_garbage_collector() -> None:
    """Fewer, cheaper collections: the tables loaded at start are frozen out of the
    collector's sight, and young objects are collected in larger batches. (Measured
    with 200 busy tables: Python's default thresholds put full collections of every
    game state in the way of answers, p99 165 ms; with these, 77 ms.)"""
    gc.freeze()
    gc.set_threshold(50_000, 20, 100)


class GroupCommit:
    """Commits the actions of every message handled in one turn of the event loop in a
    single transaction, before any answer to them is sent: under load, one commit
    serves many tables (measured: the commit was 30% of the server's time)."""

    def __init__(self, service: TableService) -> None:
        self.service = service
        self._done: asyncio.Future[None] | None = None

    async def flush(self) -> None:
        if self._done is None:
            self._done = asyncio.get_running_loop().create_future()
            asyncio.get_running_loop().call_soon(self._commit)
        await asyncio.shield(self._done)

    def _commit(self) -> None:
        done, self._done = self._done, None
        assert done is not None
        try:
            self.service.commit()
        except Exception as exc:  # every waiter hears of it; nothing is sent
            done.set_exception(exc)
            return
        done.set_result(None)


def create_app(database_url: str | None = None, secret: str | None = None,
               seed: int | None = None, redis_url: str | None = None,
               migrate: bool = True) -> Starlette:
    """The application, with its store (SQLite by default, any SQLAlchemy URL). With a
    ``redis_url``, one process of the scale-out mode (:mod:`rebelote.server.cluster`)."""
    store = Store(database_url or default_database_url(), migrate=migrate)
    service = TableService(store, seed=seed, load_all=redis_url is None)
    connections = Connections()
    group = GroupCommit(service)
    cluster: Cluster | None = None
    if redis_url is not None:
        cluster = Cluster(service, redis_url, connections.send_text, commit=group.flush)

    async def index(request: Request) -> Response:
        return FileResponse(STATIC / "index.html")

    async def calculator(request: Request) -> Response:
        return FileResponse(STATIC / "calculator.html")

    async def guest(request: Request) -> Response:
        try:
            body = await request.json()
        except ValueError:
            return JSONResponse({"error": "send a JSON object with a nickname"}, 400)
        nickname = body.get("nickname") if isinstance(body, dict) else None
        if not isinstance(nickname, str) or not 1 <= len(nickname.strip()) <= 24:
            return JSONResponse({"error": "a nickname is 1 to 24 characters"}, 400)
        player = "guest-" + secrets.token_hex(6)
        request.session["player"] = player
        request.session["nickname"] = nickname.strip()
        return JSONResponse({"player": player, "nickname": nickname.strip()})

    hasher = PasswordHasher()

    async def credentials(request: Request) -> tuple[str, str] | Response:
        try:
            body = await request.json()
        except ValueError:
            body = None
        name = body.get("name") if isinstance(body, dict) else None
        password = body.get("password") if isinstance(body, dict) else None
        if not isinstance(name, str) or not 1 <= len(name.strip()) <= 24:
            return JSONResponse({"error": "a name is 1 to 24 characters"}, 400)
        if not isinstance(password, str) or not 8 <= len(password) <= 200:
            return JSONResponse({"error": "a password is 8 to 200 characters"}, 400)
        return name.strip(), password

    async def register(request: Request) -> Response:
        got = await credentials(request)
        if isinstance(got, Response):
            return got
        name, password = got
        account = "acct-" + secrets.token_hex(6)
        if not service.store.add_account(account, name, hasher.hash(password)):
            return JSONResponse({"error": f"the name {name!r} is taken"}, 409)
        request.session["player"] = account
        request.session["nickname"] = name
        return JSONResponse({"player": account, "nickname": name})

    async def login(request: Request) -> Response:
        got = await credentials(request)
        if isinstance(got, Response):
            return got
        name, password = got
        found = service.store.account(name)
        try:
            if found is None:
                raise VerifyMismatchError
            hasher.verify(found[1], password)
        except (VerifyMismatchError, InvalidHashError):
            return JSONResponse({"error": "wrong name or password"}, 401)
        if hasher.check_needs_rehash(found[1]):
            service.store.set_password_hash(found[0], hasher.hash(password))
        request.session["player"] = found[0]
        request.session["nickname"] = name
        return JSONResponse({"player": found[0], "nickname": name})

    async def logout(request: Request) -> Response:
        request.session.clear()
        return JSONResponse({"ok": True})

    async def session(request: Request) -> Response:
        """Who you are, or nobody (always 200: a new visitor's page logs no error)."""
        return JSONResponse({"player": request.session.get("player"),
                             "nickname": request.session.get("nickname")})

    async def texts(request: Request) -> Response:
        """The one text catalog (rebelote.i18n) in ``?lang=`` for the web pages, and
        each deck style's card labels (rebelote.decks)."""
        from rebelote.cards import card_name
        from rebelote.decks import STYLES, short_label
        from rebelote.i18n import catalog

        lang = request.query_params.get("lang", "en")
        decks = {style: {card_name(c): short_label(c, style) for c in range(32)}
                 for style in STYLES}
        return JSONResponse(catalog(lang) | {"lang": lang, "decks": decks},
                            headers={"cache-control": "no-cache"})

    async def favicon(request: Request) -> Response:
        return FileResponse(STATIC / "favicon.svg", media_type="image/svg+xml",
                            headers={"cache-control": "public, max-age=604800"})

    async def me(request: Request) -> Response:
        if "player" not in request.session:
            return JSONResponse({"error": "not signed in"}, 401)
        return JSONResponse({"player": request.session["player"],
                             "nickname": request.session.get("nickname")})

    presets = [make() for make in PRESETS.values()]
    catalog = {  # the same for every request
        "options": [{"name": o.name, "values": o.values, "doc": o.doc, "minimum": o.minimum}
                    for o in OPTIONS if o.name not in TABLE_FIXED_OPTIONS],
        "presets": {r.preset: {o: getattr(r, o) for o in OPTION_NAMES}
                    for r in presets}}

    async def rule_options(request: Request) -> Response:
        """Every rule option a table may set, and each preset's values (the lobby's
        "more rules")."""
        return JSONResponse(catalog)

    async def tables(request: Request) -> Response:
        if cluster is not None:
            return JSONResponse(await cluster.lobby())
        return JSONResponse(service.public_tables())

    async def record(request: Request) -> Response:
        try:
            data = service.finished_record(request.path_params["table"])
        except ServiceError as exc:
            return JSONResponse({"error": str(exc)}, 404)
        return JSONResponse(data, headers={
            "content-disposition": f'attachment; filename="{request.path_params["table"]}.json"'})

    async def score_game(request: Request) -> Response:
        """The score calculator page's computation: the same code as `rebelote score`."""
        from rebelote.calculator import ScoreSheet
        from rebelote.scoring import ScoreError

        try:
            report = ScoreSheet.from_json(await request.json()).report()
        except (ValueError, ScoreError) as exc:
            return JSONResponse({"error": str(exc)}, 400)
        return JSONResponse(report)

    async def history(request: Request) -> Response:
        try:
            return JSONResponse(service.history(request.path_params["table"]))
        except ServiceError as exc:
            return JSONResponse({"error": str(exc)}, 404)

    async def replay_page(request: Request) -> Response:
        return FileResponse(STATIC / "replay.html")

    async def stats(request: Request) -> Response:
        player = request.query_params.get("player") or request.session.get("player")
        if not player:
            return JSONResponse({"error": "whose statistics? sign in or give ?player="}, 400)
        return JSONResponse(service.stats(player) | {
            "rating": service.ratings().get(player)})

    async def ratings(request: Request) -> Response:
        board = sorted(service.ratings().items(), key=lambda kv: -kv[1]["ordinal"])
        return JSONResponse([{"player": service.names.get(p, p)} | r for p, r in board])

    async def stats_page(request: Request) -> Response:
        return FileResponse(STATIC / "stats.html")

    async def socket(websocket: WebSocket) -> None:
        player = websocket.session.get("player")
        if not player:
            await websocket.close(code=4401)
            return
        await websocket.accept()
        connections.by_player[player].add(websocket)
        nickname = websocket.session.get("nickname") or player
        service.names[player] = nickname
        if cluster is not None:
            await cluster.connected(player)
        else:
            service.reconnected(player)
        try:
            while True:
                text = await websocket.receive_text()
                if len(text) > MAX_MESSAGE:
                    message: Any = None
                else:
                    try:
                        message = json.loads(text)
                    except ValueError:
                        message = None
                if cluster is not None:
                    await cluster.receive(player, nickname, message)
                    continue
                out = service.handle(player, message, commit=False)
                if service.uncommitted:
                    await group.flush()
                for recipient, answer in out:
                    await connections.send(recipient, answer)
        except WebSocketDisconnect:
            pass
        finally:
            connections.by_player[player].discard(websocket)
            if cluster is not None:
                await cluster.disconnected(player)
            elif not connections.by_player[player]:  # the last tab closed
                service.disconnected(player)

    async def ticker() -> None:
        while True:
            await asyncio.sleep(1.0)
            for recipient, answer in service.tick():
                await connections.send(recipient, answer)

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        tune_garbage_collector()
        if cluster is not None:  # the cluster's own loop makes time pass
            await cluster.start()
            try:
                yield
            finally:
                await cluster.stop()
            return
        task = asyncio.create_task(ticker())
        try:
            yield
        finally:
            task.cancel()

    routes = [
        Route("/", index),
        Route("/calculator", calculator),
        Route("/api/guest", guest, methods=["POST"]),
        Route("/api/register", register, methods=["POST"]),
        Route("/api/login", login, methods=["POST"]),
        Route("/api/logout", logout, methods=["POST"]),
        Route("/api/me", me),
        Route("/api/session", session),
        Route("/api/texts", texts),
        Route("/favicon.ico", favicon),
        Route("/api/tables", tables),
        Route("/api/rules", rule_options),
        Route("/api/tables/{table}/record", record),
        Route("/api/tables/{table}/history", history),
        Route("/replay", replay_page),
        Route("/api/score/game", score_game, methods=["POST"]),
        Route("/api/stats", stats),
        Route("/api/ratings", ratings),
        Route("/stats", stats_page),
        WebSocketRoute("/ws", socket),
        Mount("/static", CachedStatic(directory=STATIC), name="static"),
    ]
    middleware = [Middleware(SessionMiddleware, secret_key=secret or load_secret(),
                             same_site="lax", https_only=False),
                  Middleware(GZipMiddleware, minimum_size=1024)]
    app = Starlette(routes=routes, middleware=middleware, lifespan=lifespan)
    app.state.service = service
    return app


def app_from_environment() -> Starlette:
    """One worker of ``rebelote serve --workers N``: settings from the environment
    ($REBELOTE_DATABASE_URL, $REBELOTE_REDIS_URL; the parent ran the migrations)."""
    return create_app(os.environ.get("REBELOTE_DATABASE_URL") or None,
                      redis_url=os.environ.get("REBELOTE_REDIS_URL") or None,
                      migrate=os.environ.get("REBELOTE_MIGRATED") != "1")
