// The card room. The client only shows what the server sends (its own seat's view); it
// paces what it shows: state messages are queued and the cards played between two of
// them travel to the trick one by one, each complete trick stays readable, then is
// gathered to its winner. The server stays the authority.
import { loadTexts, t, reason, cardLabel, cardSpoken, valueText, has, lang, botName, textStyle, capitalized,
  SYMBOL, callText as callWords, callLabel as callButton } from "./texts.js";
import { cardFace as drawCard } from "./cards.js";

const $ = (id) => document.getElementById(id);
const SUITS = ["S", "H", "D", "C"];
const TRUMP_ORDER = ["J", "9", "A", "10", "K", "Q", "8", "7"];
const PLAIN_ORDER = ["A", "10", "K", "Q", "J", "9", "8", "7"];

const params = new URLSearchParams(location.hash.slice(1));
let tableId = params.get("table");
let invite = params.get("invite");
let socket = null;
let me = null;
let loggingOut = false;
let lobbyData = null;
let ruleCatalog = null;
let deck = localStorage.getItem("rebelote-deck") || "pictures";
let pace = Number(localStorage.getItem("rebelote-pace") || 700);

// What is drawn: `shown` is the last state fully drawn; the queue holds those to come.
let shown = null;
const queue = [];
let pumping = false;
let hintFor = null;
let timerAt = 0;
const muted = new Set(JSON.parse(localStorage.getItem("rebelote-muted") || "[]"));
let seenSummary = Number(sessionStorage.getItem("rebelote-summary") || 0);
let summaryShown = null;
window.room = { get state() { return shown; }, get busy() { return pumping || queue.length > 0; },
  get summary() { return summaryShown; } };

// -- cards -------------------------------------------------------------------------
const suitOf = (card) => card.slice(-1);
const rankOf = (card) => card.slice(0, -1);
const label = (card) => cardLabel(card, textStyle(deck));
const spoken = (card) => cardSpoken(card, deck);  // what a screen reader says: "roi de cœur"
/** A text shown with the cards' short labels, read aloud with their spoken names. */
function withSpoken(visible, aloud) {
  const seen = Object.assign(document.createElement("span"), { textContent: visible });
  seen.setAttribute("aria-hidden", "true");
  return [seen, Object.assign(document.createElement("span"), { className: "sr-only", textContent: aloud })];
}

const cardFace = (card) => drawCard(card, deck);

function trumpOf(s) {
  if (s.contract) return s.contract;
  if (s.bid) return s.bid.trump;
  return s.retourne ? suitOf(s.retourne) : null;
}

/** The hand sorted: trump first, then the suits alternating colours, strongest first. */
function sortHand(cards, trump) {
  const present = SUITS.filter((x) => cards.some((c) => suitOf(c) === x));
  const order = [];
  if (present.includes(trump)) order.push(trump);
  const rest = present.filter((x) => x !== trump);
  while (rest.length) {
    const lastRed = order.length && "HD".includes(order[order.length - 1]);
    const i = rest.findIndex((x) => "HD".includes(x) !== lastRed);
    order.push(...rest.splice(i < 0 ? 0 : i, 1));
  }
  const strength = (c) => (suitOf(c) === trump || trump === "TA" ? TRUMP_ORDER : PLAIN_ORDER).indexOf(rankOf(c));
  return [...cards].sort((a, b) => order.indexOf(suitOf(a)) - order.indexOf(suitOf(b)) || strength(a) - strength(b));
}

// -- places around the table ----------------------------------------------------------
/** Where a seat sits on screen: you at the bottom, the play turning the table's way. */
function place(s, seat) {
  const n = s.players || s.seats.length;
  const mine = s.seat < 0 ? 0 : s.seat;
  const offset = (seat - mine + n) % n;
  const ccw = s.direction !== "clockwise";  // counter-clockwise: the next player is on your right
  if (n === 2) return ["south", "north"][offset];
  if (n === 3) return (ccw ? ["south", "east", "west"] : ["south", "west", "east"])[offset];
  return (ccw ? ["south", "east", "north", "west"] : ["south", "west", "north", "east"])[offset];
}
const nameOf = (s, seat) => (seat === s.seat ? t("web_you") : seatName(s, seat));
function seatName(s, seat) {
  const who = s.seats[seat];
  if (!who) return t("web_free_seat");
  const bot = s.bots && s.bots[seat];
  return bot ? t(place(s, seat)) : who;  // a bot is named by its place: East, Nord…
}
const annName = (kind) => (has(`ann_${kind}`) ? t(`ann_${kind}`) : kind);  // "carre": carré, póker
function sideOf(s, seat) { return s.players === 4 ? seat % 2 : seat; }
function sideName(s, side) {
  if (s.players === 4) {
    const mine = s.seat < 0 ? 0 : s.seat % 2;
    if (s.seat >= 0) return side === mine ? t("web_team_a") : t("web_team_b");
    return [side, side + 2].map((x) => seatName(s, x)).join(" & ");
  }
  return nameOf(s, side);
}

// The settings and account menus close on a click elsewhere and on Escape, like any menu.
const MENUS = ["settings", "account"];
document.addEventListener("click", (e) => {
  for (const id of MENUS) if ($(id).open && !$(id).contains(e.target)) $(id).open = false;
});
document.addEventListener("keydown", (e) => {
  if (e.key !== "Escape") return;
  for (const id of MENUS) if ($(id).open) { $(id).open = false; $(id).querySelector("summary").focus(); }
});

// -- the connection -------------------------------------------------------------------
function connect() {
  const scheme = location.protocol === "https:" ? "wss" : "ws";
  socket = new WebSocket(`${scheme}://${location.host}/ws`);
  socket.onmessage = (event) => receive(JSON.parse(event.data));
  socket.onopen = () => {
    notice("");
    if (tableId && invite && !(shown && shown.seat >= 0)) openInvite();
    else if (tableId) send({ type: "sync", table: tableId });
    else send({ type: "lobby" });
    for (const message of outbox.splice(0)) send(message);
  };
  socket.onclose = (event) => {
    if (loggingOut) return;  // the server closes a logged-out session's sockets
    if (event.code === 4401) { sessionEnded(); return; }  // logged out from elsewhere
    notice(t("web_disconnected"));
    setTimeout(connect, 1000);
  };
}
/** The server closed this browser's session (logged out everywhere, a new password, the
 * account closed, from another browser): the sign-in page says so, not a reconnection
 * tried forever. */
async function sessionEnded() {
  const res = await fetch("/api/session").catch(() => null);
  const current = res && res.ok ? await res.json() : null;
  if (!current || current.player) { setTimeout(connect, 1000); return; }
  sessionStorage.setItem("rebelote-ended", "1");
  location.replace("/");
}
// An invite link opened in a tab already on the platform: only the hash changes.
window.addEventListener("hashchange", () => {
  const h = new URLSearchParams(location.hash.slice(1));
  if (!h.get("table") || h.get("table") === tableId) return;
  tableId = h.get("table");
  invite = h.get("invite");
  shown = null;
  queue.length = 0;
  if (invite) openInvite(); else send({ type: "sync", table: tableId });
});
// An invite first shows the table, who sits where: the friend then picks his seat (the
// only one free: taken at once), or watches a table already full.
let choosing = false;
function openInvite() {
  choosing = true;
  send({ type: "watch", table: tableId, invite });
}
function inviteSeen(s) {
  if (!choosing || s.table !== tableId) return;
  choosing = false;
  if (s.seat >= 0) return;  // he sits there already
  const free = s.seats.map((who, seat) => (who ? -1 : seat)).filter((x) => x >= 0);
  if (s.phase === "waiting" && free.length === 1) sit(free[0]);
  else if (s.phase === "waiting" && free.length) notice(t("web_choose_seat"));
  else { notice(t("web_table_full")); invite = null; }
}
function sit(seat) {
  notice("");
  send({ type: "join", table: tableId, seat, ...(invite ? { invite } : {}) });
}
/** Sends `message`; while the socket is not open (the first connection still being made, or
 * a reconnection) a request that does not depend on the state seen (a new table, a seat, a
 * line of chat...) waits in the outbox for the connection; a move or a hint is dropped (the
 * table is synced on opening and the player sees it afresh), and so are sync and lobby
 * (sent on opening anyway). */
const outbox = [];
const STALE = new Set(["act", "hint", "sync", "lobby"]);
function send(message) {
  if (socket && socket.readyState === 1) socket.send(JSON.stringify(message));
  else if (!STALE.has(message.type) && outbox.length < 20) outbox.push(message);
}
/** The notice line says `text` (none: hidden); for `forMs` only, if given, unless
 * another text replaced it meanwhile. */
function notice(text, forMs = 0) {
  $("notice").textContent = text;
  $("notice").hidden = !text;
  if (forMs) setTimeout(() => { if ($("notice").textContent === text) notice(""); }, forMs);
}

function receive(m) {
  if (m.type === "error") {
    if (m.code === "seated" && tableId) { send({ type: "sync", table: tableId }); return; }
    if (["table_full", "game_over"].includes(m.code) && tableId && invite) {
      notice(t("web_table_full"));  // the invite of a full table: watch it (a private
      send({ type: "watch", table: tableId, invite });  // table's watchers show its invite)
      invite = null;
      return;
    }
    if (m.code === "no_table" || m.code === "private") {
      notice(t(m.code === "no_table" ? "web_no_table" : "web_private_table"));
      tableId = null; invite = null;
      history.replaceState(null, "", location.pathname);
      showLobby();
      return;
    }
    // the server's refusals in the reader's words (the engine's rules by their name)
    const words = { seat_taken: "web_seat_taken", table_full: "web_table_full", no_hint: "no_hint",
      game_over: "web_status_over", not_your_turn: "turn order" };
    $("error").textContent = m.rule ? reason(m) : words[m.code] && has(words[m.code]) ? t(words[m.code])
      : m.code === "not_your_turn" ? reason({ rule: "turn order", message: m.message }) : m.message;
    return;
  }
  if (m.type === "lobby") { lobbyData = m; renderLobby(); return; }
  if (m.type === "created") {
    tableId = m.table;
    invite = m.invite || null;
    if (!$("wait").checked) send({ type: "bots", table: tableId, level: $("level").value });
    return;
  }
  if (m.type === "left") { tableId = null; invite = null; shown = null; queue.length = 0;
    history.replaceState(null, "", location.pathname); showLobby(); return; }
  if (m.type === "hint") { showHint(m); return; }
  if (m.type === "chat") { chatLine(m); return; }
  if (m.type === "timeout") {  // said where the table's redraw does not wipe it
    notice(t("web_bot_played_for_you"), 6000);
    return;
  }
  if (m.type === "state") {
    if (tableId && m.table !== tableId) {
      if (!pendingRematch) return;  // another table's news: not the one shown
      pendingRematch = false;  // the rematch's table: start afresh there
      closeDialog();
      shown = null;
      queue.length = 0;
      seenSummary = 0;
    }
    tableId = m.table;
    const hash = `#table=${tableId}` + (invite ? `&invite=${invite}` : "");
    if (location.hash !== hash) history.replaceState(null, "", hash);
    $("record").href = `/api/tables/${tableId}/record`;
    $("replay").href = `/replay?table=${tableId}`;
    inviteSeen(m);
    queue.push(m);
    pump();
  }
}

// -- pacing ---------------------------------------------------------------------------
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const cardsSoFar = (s) => (s.tricks || []).flatMap((tr, i) => tr.cards.map((c, k) => ({ card: c, trick: i, leader: tr.leader, k, winner: tr.winner, all: tr.cards })))
  .concat(s.trick ? s.trick.cards.map((c, k) => ({ card: c, trick: (s.tricks || []).length, leader: s.trick.leader, k, winner: null, all: s.trick.cards })) : []);

/** The cards played between the state drawn and `next`, in order, each with its trick. */
function playedBetween(prev, next) {
  if (!prev || prev.table !== next.table || prev.phase === "waiting" || next.phase === "waiting") return [];
  const steps = [];
  let from = prev.phase === "auction" ? 0 : cardsSoFar(prev).length;
  if (next.hand_number !== prev.hand_number) {
    const last = next.last_hand;
    if (last && last.hand === prev.hand_number && prev.phase !== "over") {
      const old = { tricks: last.tricks, trick: null };
      steps.push(...cardsSoFar(old).slice(from).map((x) => ({ ...x, hand: "old", tricks: last.tricks })));
    }
    from = 0;
  }
  steps.push(...cardsSoFar(next).slice(from).map((x) => ({ ...x, hand: "new", tricks: next.tricks })));
  return steps;
}

/** The contract as it stood after `calls` (the auction's first calls): what the
 * contract box shows while they are replayed. */
function contractSoFar(s, calls) {
  let bid = null;
  for (const c of calls) {
    const m = c.call.match(/^(\d+|capot)(SA|TA|[SHDC])$/);
    if (m) bid = { seat: c.seat, trump: m[2], value: m[1], double: 1 };
    else if (c.call === "take" && s.retourne) bid = { seat: c.seat, trump: suitOf(s.retourne), value: null, double: 1 };
    else if (/^[SHDC]$|^SA$|^TA$/.test(c.call)) bid = { seat: c.seat, trump: c.call, value: null, double: 1 };
    else if (c.call === "coinche" && bid) bid = { ...bid, double: 2 };
    else if (c.call === "surcoinche" && bid) bid = { ...bid, double: s.bid && s.bid.double > 2 ? s.bid.double : 4 };
  }
  return bid;
}

/** The calls made since the state drawn that the table has not shown, one at a time
 * (the retourne in the middle, each call in its seat's bubble): bots that speak before
 * the player, or take before his turn comes, are heard, not skipped. The last call of
 * an auction still open is drawn with the state itself. */
async function showCalls(prev, next) {
  if (!prev || prev.table !== next.table || next.phase === "waiting" || next.phase === "over") return;
  const calls = next.auction || [];
  const sameHand = prev.hand_number === next.hand_number && prev.phase !== "waiting";
  if (sameHand && prev.phase !== "auction") return;
  const from = sameHand ? (prev.auction || []).length : 0;
  const upto = next.phase === "auction" ? calls.length - 1 : calls.length;
  for (let k = from; k < upto; k++) {
    const said = calls.slice(0, k + 1);
    drawTable({ ...next, phase: "auction", auction: said, calls: (next.calls || []).slice(0, k + 1),
      bid: contractSoFar(next, said), taker: -1, trick: null, tricks: [], legal: [],
      hand: sameHand ? prev.hand : next.hand, turn: (said[k].seat + 1) % next.players },
    { replaying: true });
    await sleep(said[k].seat === next.seat ? 250 : pace);
  }
}

/** The table while the last cards of the hand `prev` was in are played (`steps`): its
 * contract, scores, dealer and hand, not the next deal's, which came with them. */
function handEnding(prev, steps) {
  const played = new Set(steps.map((st) => st.card));
  const gone = (cards) => (cards || []).filter((c) => !played.has(c));
  return { ...prev, hand: gone(prev.hand), legal: [], turn: -1, trick: null,
    table_cards: prev.table_cards && prev.table_cards.map(gone) };
}

/** The cards of `steps` travelling to the trick one by one; each complete trick stays
 * readable, then is gathered to its winner. */
async function playSteps(next, steps) {
  drawTable(next, { animating: true });
  for (const st of steps) {
    const cards = st.all.slice(0, st.k + 1);
    const player = (st.leader + st.k) % next.players;
    drawTrick(next, { leader: st.leader, cards }, player);
    if (soundOn()) beep(440);
    await sleep(player === next.seat ? 250 : pace);
    if (cards.length === next.players) {  // complete: readable, then gathered
      drawTrick(next, { leader: st.leader, cards, winner: st.winner });
      await sleep(Math.max(1000, pace * 1.6));
      await gather(next, st.winner);
    }
  }
}

async function pump() {
  if (pumping) return;
  pumping = true;
  try {
    while (queue.length) {
      const next = queue.shift();
      const prev = shown;
      const steps = prev ? playedBetween(prev, next) : [];
      // the hand before first (its last cards, then its summary), then the new hand's
      // calls, then its cards
      const before = steps.filter((st) => st.hand === "old");
      if (before.length) await playSteps(handEnding(prev, before), before);
      if (next.table !== tableId) break;  // left (or a rematch's table) meanwhile
      if (prev && next.last_hand && next.last_hand.hand > seenSummary && (prev.hand_number !== next.hand_number || next.phase === "over")) {
        seenSummary = next.last_hand.hand;
        sessionStorage.setItem("rebelote-summary", String(seenSummary));
        if (prev.hand_number !== next.hand_number) {  // the finished hand stays behind its summary
          // with the scores after it: the chip agrees with the summary over it
          drawTable({ ...prev, hand: [], table_cards: [], trick: null, legal: [], auction: [], phase: "over",
            totals: next.totals, reserve: next.reserve, sheet: next.sheet, scores: next.scores }, { animating: true, noTrick: true });
        }
        if (!(next.winner !== null && next.winner !== undefined)) await summary(next, next.last_hand, 12000);
      } else if (!prev && next.last_hand) {
        seenSummary = Math.max(seenSummary, next.last_hand.hand);
      }
      await showCalls(prev, next);
      const after = steps.filter((st) => st.hand !== "old");
      if (after.length) await playSteps(next, after);
      if (next.table !== tableId) break;
      shown = next;
      timerAt = performance.now();
      drawTable(next, {});
      if (next.winner !== null && next.winner !== undefined) gameOver(next);
    }
  } finally {
    pumping = false;
  }
}

async function gather(s, winner) {
  const box = $("trick");
  box.dataset.gather = place(s, winner);
  await sleep(450);
  delete box.dataset.gather;
  box.replaceChildren();
}

// -- drawing the table ------------------------------------------------------------------
function showLobby() {
  $("table").hidden = true;
  $("lobby").hidden = false;
  document.body.classList.remove("at-table");
  closeDialog();
  $("chat-log").replaceChildren();  // the talk belongs to the table left
  $("hint-text").textContent = "";  // and so does its hint
  hintFor = null;
  unread = 0;
  $("chat-unread").hidden = true;
  send({ type: "lobby" });
}

function drawTrick(s, trick, arriving = -1) {
  const box = $("trick");
  box.dataset.players = s.players;
  const cards = trick ? trick.cards : [];
  box.replaceChildren(...cards.map((c, i) => {
    const seat = (trick.leader + i) % s.players;
    const face = cardFace(c);
    face.classList.add("played", `at-${place(s, seat)}`);
    if (seat === arriving && i === cards.length - 1) face.classList.add(`from-${place(s, seat)}`);
    if (trick.winner === seat) face.classList.add("best");
    return face;
  }));
  box.setAttribute("aria-label", cards.map((c, i) => `${nameOf(s, (trick.leader + i) % s.players)}: ${spoken(c)}`).join(", "));
  if (arriving >= 0) requestAnimationFrame(() => requestAnimationFrame(() => {
    for (const el of box.querySelectorAll("[class*=from-]")) el.className = el.className.replace(/\bfrom-\w+/, "");
  }));
}

function drawTable(s, { animating = false, noTrick = false, replaying = false }) {
  // a table left meanwhile (its last cards were still being shown): the lobby stays
  if (s.table !== tableId) return;
  $("lobby").hidden = true;
  $("table").hidden = false;
  document.body.classList.add("at-table");
  $("table").dataset.players = s.players;
  $("table").dataset.phase = s.phase;
  const waiting = s.phase === "waiting";
  const over = s.winner !== null && s.winner !== undefined;
  // replaying: calls already made, shown again one by one (nothing to decide, no timer)
  const decide = !animating && !replaying && !over && s.seat >= 0 && s.turn === s.seat && s.phase !== "over";
  // seats
  for (const p of ["north", "west", "east", "south"]) { $(`seat-${p}`).replaceChildren(); $(`seat-${p}`).hidden = true; $(`seat-${p}`).className = "seat"; }
  const lastCall = {};
  for (const c of s.auction || []) lastCall[c.seat] = c.call;
  s.seats.forEach((who, seat) => {
    const el = $(`seat-${place(s, seat)}`);
    el.hidden = false;
    const name = document.createElement("div");
    name.className = "name";
    name.textContent = nameOf(s, seat) + (seat !== s.seat && s.players === 4 && s.seat >= 0 && seat % 2 === s.seat % 2 ? ` (${t("web_partner")})` : "");
    el.append(name);
    if (!who && waiting && s.seat < 0) {  // a watcher may sit down at a free seat
      const b = button(t("web_sit_here"), () => sit(seat));
      b.className = "sit";
      b.dataset.seat = seat;
      el.append(b);
      const mate = s.players === 4 ? s.seats[(seat + 2) % 4] : null;  // who he would play with
      if (mate) {
        el.append(Object.assign(document.createElement("div"), { className: "tags mate",
          textContent: t("web_partner_of", { name: seatName(s, (seat + 2) % 4) }) }));
      }
    }
    const tags = [];
    if (s.bots && s.bots[seat]) tags.push(botName(s.bots[seat], true));
    if (seat === s.dealer) tags.push(t("web_dealer"));
    if (s.taker === seat && s.phase !== "auction") tags.push(`★ ${t("web_taker")}`);
    if (tags.length) { const x = document.createElement("div"); x.className = "tags"; x.textContent = tags.join(" · "); el.append(x); }
    if ((s.away || []).includes(seat) || (s.stand_ins || []).includes(seat)) {
      el.classList.add("away");
      const x = document.createElement("div");
      x.className = "away-note";
      x.textContent = (s.stand_ins || []).includes(seat) ? t("web_bot_for", { name: seatName(s, seat) }) : t("web_dropped");
      el.append(x);
    }
    if (!waiting && s.turn === seat && s.phase !== "over" && !over && !animating && !replaying) {
      el.classList.add("turn");
      if (s.timer && s.turn_left !== undefined) {
        const x = document.createElement("div");
        x.className = "countdown";
        x.dataset.left = s.turn_left;
        el.append(x);
      }
    }
    const said = [];
    const aloud = [];  // the same, the cards by their spoken names
    if (s.phase === "auction" && lastCall[seat]) said.push(callText(s, lastCall[seat]));
    // announcements: said at trick 1, shown with their cards at trick 2, ✓ where they scored
    const scored = (s.announcement_seats || []).includes(seat);
    aloud.push(...said);
    for (const a of s.announcements || []) {
      if (a.seat !== seat || (s.tricks || []).length > 2) continue;
      said.push(annName(a.kind) + (a.cards ? " " + a.cards.map(label).join(" ") : "") + (scored ? " ✓" : ""));
      aloud.push(annName(a.kind) + (a.cards ? ": " + a.cards.map(spoken).join(", ") : "") + (scored ? " ✓" : ""));
    }
    for (const [bs, word] of s.belote || []) if (bs === seat) { said.push(word); aloud.push(word); }
    if (said.length) { const x = document.createElement("div"); x.className = "bubble"; x.append(...withSpoken(said.join(" · "), aloud.join(" · "))); el.append(x); }
    if (s.table_cards && s.table_cards[seat] && s.table_cards[seat].length && seat !== s.seat) {
      const x = document.createElement("div");
      x.className = "up-cards";
      x.append(...s.table_cards[seat].map(cardFace));
      el.append(x);
    }
  });
  tickCountdown();
  // the trick area: the current trick, or the retourne at the auction
  if (!animating) {
    if (s.trick && s.trick.cards.length) drawTrick(s, s.trick);
    else $("trick").replaceChildren();
  } else if (noTrick) $("trick").replaceChildren();
  const center = $("center-msg");
  center.replaceChildren();
  if (s.phase === "auction" && s.retourne && !animating) {
    const x = cardFace(s.retourne);
    x.classList.add("retourne");
    const cap = document.createElement("div");
    cap.textContent = t("web_retourne");
    center.append(x, cap);
  }
  // waiting: invite, bots
  $("waiting").hidden = !waiting;
  $("invite").hidden = !(waiting && s.invite);
  if (s.invite) $("invite-link").value = `${location.origin}/#table=${s.table}&invite=${s.invite}`;
  $("fill").hidden = !(waiting && s.creator);
  // the contract panel and the score
  drawContract(s);
  drawScore(s);
  $("last-trick").hidden = waiting;  // nothing played yet: no last trick, record or replay
  document.querySelector("#table .links").hidden = waiting;
  $("hint").hidden = !s.hints || waiting || s.seat < 0 || (s.winner !== null && s.winner !== undefined);  // nothing to decide after the game
  // status
  let status = "";  // a waiting table says so once, in its middle (it said it twice)
  if (waiting) status = "";
  else if (s.seat < 0) status = t("web_spectating");
  else if (decide) status = s.phase === "auction" ? t("web_your_turn_speak") : t("web_your_turn");
  else if (!over && s.phase !== "over" && s.turn !== undefined && !animating && !replaying)
    status = (s.phase === "auction" ? t("web_speaks", { name: nameOf(s, s.turn) }) : t("web_turn_of", { name: nameOf(s, s.turn) }));
  if (s.phase === "play" && s.trick && s.trick.winner !== null && s.trick.winner !== undefined && !animating)
    status += (status ? " · " : "") + t("web_winning", { name: nameOf(s, s.trick.winner) });
  $("status").textContent = status;
  $("status").classList.toggle("mine", decide);
  if (!animating) { $("error").textContent = $("error").textContent && decide ? $("error").textContent : ""; }
  // a hint is for the turn it was asked at: gone once the table moved on (or is another)
  if (!hintFor || hintFor.table !== s.table || hintFor.turnKey !== turnKey(s)) $("hint-text").textContent = "";
  // bidding box and hand
  drawBidbox(s, decide && s.phase === "auction");
  drawHand(s, decide && s.phase === "play");
  if (decide && soundOn() && !animating) beep(660);
}

const callText = (s, call) => callWords(call, s.scoring);
const callLabel = (s, call) => callButton(call, s.scoring, s.retourne);

function drawContract(s) {
  const box = $("contract");
  const b = s.bid;
  if (!b || s.phase === "waiting") {
    box.textContent = s.phase === "auction" ? t("web_no_contract") : "";
    box.hidden = !box.textContent;
    return;
  }
  box.hidden = false;
  const suit = b.trump === "SA" ? t("web_no_trumps") : b.trump === "TA" ? t("web_all_trumps")
    : `${t("web_trump")} ${SYMBOL[b.trump] || b.trump}`;
  let text = b.value === null || b.value === undefined
    ? t("web_took_by", { suit, name: nameOf(s, b.seat) })
    : t("web_bid_by", { value: b.value === "capot" ? t("web_capot_bid") : b.value, suit: SYMBOL[b.trump] || b.trump, name: nameOf(s, b.seat) });
  if (b.double === 2) text += " · " + (s.scoring === "acorralada" ? t("web_contrad") : t("web_coinched"));
  if (b.double > 2) text += " · " + (s.scoring === "acorralada" ? t("web_recontrad", { n: b.double }) : t("web_surcoinched", { n: b.double }));
  const head = b.final === false && s.phase === "auction" ? t("web_highest_bid") : t("web_contract");  // not yet a contract
  box.replaceChildren(Object.assign(document.createElement("b"), { textContent: head + " " }), text);
  box.classList.toggle("red", "HD".includes(b.trump));
}

function drawScore(s) {
  const box = $("score");
  if (!s.totals) { box.hidden = true; return; }
  box.hidden = false;
  const sides = s.totals.map((v, i) => `${sideName(s, i)} ${v}`);
  box.textContent = sides.join(" · ") + ` — ${t("web_score_to", { target: s.target })}` + (s.reserve ? ` · ${t("web_reserve")} ${s.reserve}` : "");
  box.onclick = () => sheet(s);
}

// -- the auction: a bidding box ---------------------------------------------------------
let stepValue = null;
let stepTurn = null;  // the decision the stepper's value was chosen for
function drawBidbox(s, mine) {
  const box = $("bidbox");
  box.hidden = !mine;
  if (!mine) { box.replaceChildren(); return; }
  const legal = s.legal || [];
  const parts = [];
  const hinted = hintFor && hintFor.table === s.table && hintFor.turnKey === turnKey(s) ? hintFor.best : null;
  const btn = (text, action, cls = "") => {
    const b = button(text, () => act(action));
    b.className = cls;
    b.dataset.call = action;
    if (action === hinted) b.classList.add("hinted");
    return b;
  };
  const bids = legal.map((c) => c.match(/^(\d+|capot)(SA|TA|[SHDC])$/)).filter(Boolean);
  if (bids.length) {
    const values = [...new Set(bids.map((m) => m[1]))].sort((a, b) => (a === "capot") - (b === "capot") || Number(a) - Number(b));
    // each decision starts at the lowest bid (the last auction's value was kept: a tap
    // on a suit then bid it), but a hint's level or the player's steps for this one
    if (stepTurn !== `${s.table}:${turnKey(s)}` || !values.includes(stepValue)) stepValue = values[0];
    stepTurn = `${s.table}:${turnKey(s)}`;
    const stepper = document.createElement("div");
    stepper.className = "stepper";
    const idx = values.indexOf(stepValue);
    const down = button("−", () => { stepValue = values[Math.max(0, idx - 1)]; drawBidbox(s, true); });
    down.setAttribute("aria-label", "−10");
    down.disabled = idx <= 0;
    const up = button("+", () => { stepValue = values[Math.min(values.length - 1, idx + 1)]; drawBidbox(s, true); });
    up.setAttribute("aria-label", "+10");
    up.disabled = idx >= values.length - 1;
    const val = document.createElement("output");
    val.id = "bid-value";
    val.textContent = stepValue === "capot" ? t("web_capot_bid") : stepValue;
    stepper.append(down, val, up);
    const suits = document.createElement("div");
    suits.className = "suits";
    for (const m of bids.filter((x) => x[1] === stepValue)) {
      const b = btn(SYMBOL[m[2]], m[0], "suit");
      b.setAttribute("aria-label", `${t("web_bid")} ${callText(s, m[0])}`);
      if (m[2] === "SA" || m[2] === "TA") {  // said in words below the sign (a title shows on hover only)
        const words = document.createElement("small");
        words.textContent = t(m[2] === "SA" ? "web_no_trumps_caption" : "web_all_trumps_caption");
        b.append(words);
        b.classList.add("worded");
      }
      if ("HD".includes(m[2])) b.classList.add("red");
      suits.append(b);
    }
    parts.push(stepper, suits);
  }
  const others = document.createElement("div");
  others.className = "calls";
  for (const c of legal) {
    if (c.match(/^(\d+|capot)(SA|TA|[SHDC])$/)) continue;
    others.append(btn(callLabel(s, c), c, c === "pass" ? "pass" : c === "coinche" || c === "surcoinche" ? "double" : "suit"));
  }
  parts.splice(1, 0, others);  // the stepper, pass and coinche on one row; the suits below
  box.replaceChildren(...parts);
}

// -- the hand ---------------------------------------------------------------------------
const turnKey = (s) => `${s.hand_number}:${(s.calls || []).length}:${cardsSoFar(s).length}`;
function drawHand(s, mine) {
  const legal = new Set(mine ? s.legal || [] : []);
  const trump = trumpOf(s);
  const hinted = hintFor && hintFor.table === s.table && hintFor.turnKey === turnKey(s) ? hintFor.best : null;
  const own = (s.table_cards && s.seat >= 0 && s.table_cards[s.seat]) || [];
  // découverte: the hand holds the face-up cards too; they go on a row of their own
  const cards = sortHand((s.hand || []).filter((c) => !own.includes(c)), trump).concat(sortHand(own, trump));
  $("hand").dataset.count = cards.length;
  const hidden = cards.length - own.length;
  $("hand").replaceChildren(...cards.flatMap((card, i) => {
    const row = own.length && i === hidden ? [Object.assign(document.createElement("div"), { className: "row-break" })] : [];
    const b = document.createElement("button");
    b.className = "hand-card";
    b.append(cardFace(card));
    b.dataset.card = card;
    b.setAttribute("aria-label", spoken(card));
    b.title = `${i + 1}`;
    if (own.includes(card)) b.classList.add("face-up");
    b.disabled = !mine;  // never faded: disabled cards look the same (see style.css)
    if (legal.has(card)) b.classList.add("legal");
    if (card === hinted) b.classList.add("hinted");
    b.onclick = () => act(card);
    return [...row, b];
  }));
}

function act(action) {
  if (pumping || queue.length) return;  // the table is still showing what came before
  $("error").textContent = "";
  $("hint-text").textContent = "";
  send({ type: "act", table: tableId, action });
}

// -- the turn timer -------------------------------------------------------------------------
function tickCountdown() {
  for (const el of document.querySelectorAll(".countdown")) {
    const left = Math.max(0, Number(el.dataset.left) - (performance.now() - timerAt) / 1000);
    el.textContent = t("web_seconds", { n: Math.ceil(left) });  // after a stopwatch (CSS)
    el.classList.toggle("late", left < 10);
  }
}
setInterval(tickCountdown, 500);

// -- overlays: hand summary, game over, last trick, sheet -------------------------------------
let closeResolve = null;
let dialogDraw = null;  // draws the open dialog again (in another language)
/** The dialog of `kind` made by `draw` (which returns [children, label]), kept to draw
 * it again when the language changes. */
function showDialog(kind, draw) {
  const [children, label] = draw();
  $("dialog").replaceChildren(...children);
  $("dialog").setAttribute("aria-label", label);
  $("dialog").dataset.kind = kind;
  $("overlay").hidden = false;
  dialogDraw = draw;
  const focus = $("dialog").querySelector("button");
  if (focus) focus.focus();
}
function redrawDialog() {
  if (!$("overlay").hidden && dialogDraw) showDialog($("dialog").dataset.kind, dialogDraw);
}
function closeDialog() {
  dialogDraw = null;
  $("overlay").hidden = true;
  $("dialog").replaceChildren();
  if (closeResolve) { const r = closeResolve; closeResolve = null; r(); }
}
$("overlay").onclick = (e) => { if (e.target === $("overlay")) closeDialog(); };

function summaryRows(s, h) {
  const table = document.createElement("table");
  table.className = "summary";
  const n = h.scored.length;
  const row = (head, cells, cls = "") => {
    const tr = document.createElement("tr");
    if (cls) tr.className = cls;
    tr.append(Object.assign(document.createElement("th"), { textContent: head }),
      ...cells.map((c) => Object.assign(document.createElement("td"), { textContent: c })));
    table.append(tr);
  };
  row("", [...Array(n).keys()].map((i) => sideName(s, i)), "head");
  if (!h.void) {
    const der = h.dix_de_der === null || h.dix_de_der === undefined ? -1 : sideOf(s, h.dix_de_der);
    const cp = h.card_points || [];
    if (cp.length === n) row(t("web_card_points"), cp.map(String));
    row(t("web_dix_de_der"), [...Array(n).keys()].map((i) => (i === der ? t("web_dix_de_der_won") : "")));  // within the card points
    if ((h.announcement_points || []).some(Boolean)) row(t("web_announcements"), h.announcement_points.map((x) => (x ? String(x) : "")));
    if ((h.belote_points || []).some(Boolean)) row(t("web_belote"), h.belote_points.map((x) => (x ? String(x) : "")));
    if (h.capot !== null && h.capot !== undefined) {  // instead of the card points: 252 (or 250)
      row(t("web_capot"), [...Array(n).keys()].map((i) => (i === h.capot ? `✓ ${h.capot_points || ""}`.trim() : "")));
    }
  }
  row(t("web_scored"), h.scored.map(String), "total");
  return table;
}

// How an auction hand's score was made, as the rules computed it (the server's terms):
// "Us: (chute 160 + bid 110) × 2 + belote 20 = 560", for a side whose score the rows above
// do not add up to (a bid counted, or a ×2).
const TERM_WORDS = { card_points: "web_card_points", capot: "web_capot", announcements: "web_announcements",
  belote: "web_belote", bid: "web_term_bid", chute: "web_term_chute", reserve: "web_reserve" };
function termText(term, inner = false) {
  if (term.name === "sum") {
    const text = term.parts.map((p) => termText(p)).join(" + ");
    return inner && term.parts.length > 1 ? `(${text})` : text;
  }
  if (term.name === "times") return `${termText(term.parts[0], true)} × ${term.parts[1].value}`;
  return `${t(TERM_WORDS[term.name] || term.name)} ${term.value}`;
}
function termLines(s, h) {
  const telling = (term) => term.name === "bid" || term.name === "times" || (term.parts || []).some(telling);
  return (h.terms || []).flatMap((term, side) => (term.value && telling(term) ? [t("web_label_value", {
    label: sideName(s, side),
    value: `${termText(term)} = ${term.value}` + (h.scored[side] !== term.value ? ` → ${h.scored[side]}` : ""),
  })] : []));
}

function contractText(s, c) {
  if (!c) return "";
  const value = c.value ? (c.value === "capot" ? t("web_capot_bid") : c.value) + " " : "";
  return `${value}${SYMBOL[c.trump] || c.trump}${c.double > 1 ? " ×" + c.double : ""}, ${nameOf(s, c.seat)}`;
}

function summary(s, h, timeout) {
  summaryShown = h;
  const draw = () => {
    const title = document.createElement("h2");
    title.textContent = t("web_summary", { n: h.hand });
    const go = button(t("web_continue"), closeDialog);
    go.id = "continue";
    go.className = "primary";
    return [[title, ...handLines(s, h), go], title.textContent];
  };
  showDialog("summary", draw);
  return new Promise((resolve) => {
    closeResolve = resolve;
    setTimeout(() => { if (closeResolve === resolve) closeDialog(); }, timeout);
  });
}
/** How a finished hand went: its outcome and contract, what the takers made and needed,
 * the points table, how the score was made, the reserve, the announcements (the hand's
 * summary, and the game's end under its last hand). */
function handLines(s, h) {
  const outcome = document.createElement("p");
  outcome.className = `outcome ${h.outcome}`;
  outcome.id = "outcome";
  const contract = h.contract ? ` — ${contractText(s, h.contract)}` : "";
  outcome.textContent = h.void ? t("web_void") : t(`web_${h.outcome}`) + contract;
  const parts = [outcome];
  // what the takers made, and needed: a bid's target, or (classic) a failed contract's
  // "more than the defence" (a made one's "22 needed" only puzzled)
  if (!h.void && h.need && h.taker !== null && h.taker !== undefined && (s.game === "auction" || h.outcome !== "made")) {
    parts.push(Object.assign(document.createElement("p"), { id: "need", className: "need",
      textContent: capitalized(t("web_need", { side: sideName(s, sideOf(s, h.taker)), made: h.need[0], need: h.need[1] })) }));
  }
  if (!h.void) parts.push(summaryRows(s, h));
  for (const line of termLines(s, h)) parts.push(Object.assign(document.createElement("p"), { className: "terms", textContent: line }));
  if (h.reserve) parts.push(Object.assign(document.createElement("p"), { textContent: t("web_label_value", { label: t("web_reserve"), value: h.reserve }) }));
  const anns = (h.announcements || []).filter((a) => a.cards);
  if (anns.length) {
    const p = document.createElement("p");
    const said = (a, cards) => t("web_announced", { name: nameOf(s, a.seat), kind: `${annName(a.kind)} ${cards}` });
    p.append(...withSpoken(capitalized(anns.map((a) => said(a, a.cards.map(label).join(" "))).join(" · ")),
      capitalized(anns.map((a) => said(a, a.cards.map(spoken).join(", "))).join(" · "))));
    parts.push(p);
  }
  return parts;
}

function gameOver(s) {
  showDialog("over", () => gameOverParts(s));  // drawn again at each state: an offer shows live
}
function gameOverParts(s) {
  const mine = s.seat >= 0 ? sideOf(s, s.seat) : null;
  const title = document.createElement("h2");
  title.id = "game-result";
  title.textContent = mine === null ? t("web_game_won_by", { name: sideName(s, s.winner) })
    : s.winner === mine ? t("web_you_won") : t("web_you_lost");
  const totals = Object.assign(document.createElement("p"), { textContent: s.totals.map((v, i) => `${sideName(s, i)} ${v}`).join(" · ") });
  const parts = [title, totals];
  if (s.last_hand) parts.push(...handLines(s, s.last_hand));  // why it ended so
  const buttons = document.createElement("p");
  if (s.seat >= 0) {  // a spectator has no rematch to ask for
    const asked = s.rematch_by !== null && s.rematch_by !== undefined && s.rematch_by !== s.seat;
    if (asked) {  // another player asked: say who, and light the button
      const offer = Object.assign(document.createElement("p"), { id: "rematch-offer", className: "offer",
        textContent: t("web_rematch_offer", { name: seatName(s, s.rematch_by) }) });
      offer.setAttribute("role", "status");
      parts.push(offer);
    }
    const again = button(t("web_rematch"), () => rematch(s));
    again.id = "rematch";
    again.className = asked ? "primary offered" : "primary";
    buttons.append(again, " ");
  }
  const back = button(t("web_back_lobby"), () => leave());
  back.id = "back-lobby";
  buttons.append(back);
  parts.push(buttons);
  return [parts, title.textContent];
}

let pendingRematch = false;
function rematch(s) {
  closeDialog();
  pendingRematch = true;  // the new table's state is followed (see receive)
  send({ type: "rematch", table: s.table });
}

function leave() {
  const s = shown;
  const playing = s && s.seat >= 0 && s.phase !== "waiting" && (s.winner === null || s.winner === undefined);
  if (playing && !confirm(t("web_leave_confirm"))) return;  // a bot takes the seat for good
  closeDialog();
  if (tableId) send({ type: "leave", table: tableId });
  else showLobby();
}

function lastTrick() {
  if (!$("overlay").hidden && $("dialog").dataset.kind === "last") { closeDialog(); return; }
  const s = shown;
  if (!s) return;
  showDialog("last", () => lastTrickParts(s));
}
function lastTrickParts(s) {
  let tricks = s.tricks || [];
  if (!tricks.length && s.last_hand) tricks = s.last_hand.tricks;  // after the hand too
  const last = tricks[tricks.length - 1];
  const title = Object.assign(document.createElement("h2"), { textContent: t("web_last_trick") });
  const parts = [title];
  if (!last) parts.push(Object.assign(document.createElement("p"), { id: "last", textContent: t("web_no_trick") }));
  else {
    const list = document.createElement("div");
    list.id = "last";
    list.className = "last-trick";
    list.append(...last.cards.map((c, i) => {
      const fig = document.createElement("figure");
      const cap = document.createElement("figcaption");
      cap.textContent = nameOf(s, (last.leader + i) % s.players);
      fig.append(cardFace(c), cap);
      return fig;
    }));
    parts.push(list, Object.assign(document.createElement("p"), { textContent: t("web_won_by", { name: nameOf(s, last.winner) }) }));
  }
  parts.push(button("✕", closeDialog));
  return [parts, title.textContent];
}

function sheet(s) {
  showDialog("sheet", () => sheetParts(s));
}
function sheetParts(s) {
  const title = Object.assign(document.createElement("h2"), { textContent: t("web_sheet") });
  const table = document.createElement("table");
  table.className = "summary sheet";
  const n = s.totals.length;
  const head = document.createElement("tr");
  const cell = (tag, text, cls = "") => Object.assign(document.createElement(tag), { textContent: text, className: cls });
  head.className = "head";
  head.append(cell("th", "#"), cell("th", t("web_contract"), "contract"), ...[...Array(n).keys()].map((i) => cell("th", sideName(s, i))));
  table.append(head);
  (s.sheet || []).forEach((h, i) => {  // each hand: its contract, how it went, what it scored
    const tr = document.createElement("tr");
    const how = h.outcome === "made" ? "" : h.outcome === "void" ? t("web_all_passed")
      : h.outcome === "failed" ? t("web_failed_short") : t(`web_${h.outcome}`);
    tr.className = `hand ${h.outcome}`;
    tr.append(cell("th", String(i + 1)), cell("td", [contractText(s, h.contract), how].filter(Boolean).join(" — "), "contract"),
      ...h.scored.map((x) => cell("td", String(x))));
    table.append(tr);
  });
  const total = document.createElement("tr");
  total.className = "total";
  total.append(cell("th", t("web_totals")), cell("td", ""), ...s.totals.map((x) => cell("td", String(x))));
  table.append(total);
  return [[title, Object.assign(document.createElement("p"), { textContent: t("web_score_to", { target: s.target }) }), table, button("✕", closeDialog)], title.textContent];
}

// -- hints ------------------------------------------------------------------------------------
function hintNumber(kind, value) {  // whole points or percents in the reader's notation; a score signed
  const style = { maximumFractionDigits: kind === "strength" ? 1 : 0 };
  if (kind === "score") style.signDisplay = "exceptZero";
  return new Intl.NumberFormat(lang, style).format(value);
}
/** The hint in words. In a classic auction passing is valued at the line the expert
 * takes from (a % made, or a hand strength): said as that line, not as a value of its own;
 * in an auction game passing is worth 0, so a best pass means every bid loses. */
function hintText(actions, kind, name, num, unit) {
  const [best, second] = actions;
  const pass = actions.find((a) => a.action === "pass");
  const takes = actions.filter((a) => a.action !== "pass");
  if ((kind === "made" || kind === "strength") && pass && takes.length) {
    const line = t(`web_hint_line_${kind}`, { line: num(pass.value) });
    if (best === pass) return `${t(`web_hint_pass_${kind}`, { other: name(takes[0].action), value: num(takes[0].value) })} · ${line}`;
    const why = t(`web_hint_${kind}`, { action: name(best.action), value: num(best.value) });
    const next = takes.find((a) => a !== best);
    return [why, line].concat(next ? [t("web_hint_next", { other: name(next.action), second: unit(next.value) })] : []).join(" · ");
  }
  if (kind === "score" && best === pass && takes.length && takes[0].value < 0) {
    return t("web_hint_pass_score", { other: name(takes[0].action), value: unit(takes[0].value) });
  }
  const why = t(`web_hint_${kind}`, { action: name(best.action), value: num(best.value) });
  return second ? `${why} · ${t("web_hint_next", { other: name(second.action), second: unit(second.value) })}` : why;
}
function showHint(m) {
  const s = shown;
  if (!s || !m.actions.length) return;
  const best = m.actions[0];
  hintFor = { table: s.table, turnKey: turnKey(s), best: best.action };
  const bid = best.action.match(/^(\d+|capot)(SA|TA|[SHDC])$/);
  if (bid) { stepValue = bid[1]; stepTurn = `${s.table}:${turnKey(s)}`; }  // the box at the hinted level: its suit highlighted
  const name = (a) => (a.length <= 3 && /[SHDC]$/.test(a) && !/^\d+[SHDC]$/.test(a) || /^10[SHDC]$/.test(a) ? label(a) : callLabel(s, a));
  const kind = { "% made": "made", "expected points": "points", "expected score": "score", strength: "strength" }[m.measure] || "score";
  const num = (v) => hintNumber(kind, v);
  const unit = (v) => t(`web_hint_unit_${kind}`, { value: num(v) });
  $("hint-text").textContent = hintText(m.actions, kind, name, num, unit);
  drawBidbox(s, s.phase === "auction" && s.turn === s.seat);
  drawHand(s, s.phase === "play" && s.turn === s.seat);
}

// -- talk ---------------------------------------------------------------------------------------
const PHRASES = ["well_played", "your_turn", "thanks", "sorry", "hello", "good_game", "hurry"];
function chatLine(m) {
  if (muted.has(m.name) || m.table !== tableId) return;  // another of my tables' talk: not this one
  const li = document.createElement("li");
  const who = button(m.name, () => toggleMute(m.name));
  who.className = "who";
  who.title = t("web_mute", { name: m.name });
  li.append(who, " ", m.phrase ? t(`phrase_${m.phrase}`) : m.text);
  $("chat-log").append(li);
  while ($("chat-log").children.length > 50) $("chat-log").firstChild.remove();
  $("chat-log").scrollTop = $("chat-log").scrollHeight;
  if ($("chat").hidden) {  // said while the panel is closed: counted on its button
    unread += 1;
    $("chat-unread").textContent = String(unread);
    $("chat-unread").hidden = false;
  }
  if (shown && m.seat >= 0) {  // said on the table, beside the seat
    const el = $(`seat-${place(shown, m.seat)}`);
    const x = Object.assign(document.createElement("div"), { className: "said", textContent: m.phrase ? t(`phrase_${m.phrase}`) : m.text });
    el.append(x);
    setTimeout(() => x.remove(), 4000);
  }
}
function toggleMute(name) {
  if (muted.has(name)) muted.delete(name); else muted.add(name);
  localStorage.setItem("rebelote-muted", JSON.stringify([...muted]));
  for (const li of [...$("chat-log").children]) if (li.querySelector(".who").textContent === name) li.remove();
}
$("chat-form").onsubmit = (e) => {
  e.preventDefault();
  const text = $("chat-text").value.trim().slice(0, 140);
  if (text) send({ type: "chat", table: tableId, text });
  $("chat-text").value = "";
};
let unread = 0;
$("chat-toggle").onclick = () => {
  $("chat").hidden = !$("chat").hidden;
  $("chat-toggle").setAttribute("aria-expanded", String(!$("chat").hidden));
  if ($("chat").hidden) return;
  unread = 0;
  $("chat-unread").hidden = true;
  if (!matchMedia("(pointer: coarse)").matches) $("chat-text").focus({ preventScroll: true });  // no keyboard popping up on a phone
};

// -- sounds (off by default) ------------------------------------------------------------------
const soundOn = () => $("sound").checked;
let audio = null;
function beep(freq) {
  try {
    audio = audio || new AudioContext();
    const o = audio.createOscillator();
    const g = audio.createGain();
    o.frequency.value = freq;
    g.gain.value = 0.04;
    o.connect(g).connect(audio.destination);
    o.start();
    o.stop(audio.currentTime + 0.06);
  } catch { /* no audio: silent */ }
}

// -- the lobby ----------------------------------------------------------------------------------
function presetName(p) { return t(`preset_${p}`); }
function renderLobby() {
  if (!lobbyData) return;
  const filter = $("filter-preset").value;
  const freeOnly = $("filter-free").checked;
  const entry = (tb, mine) => {
    const li = document.createElement("li");
    li.dataset.table = tb.table;
    const head = document.createElement("div");
    head.className = "what";
    const changed = Object.entries(tb.rules || {}).map(([k, v]) => t("web_label_value", { label: has("opt_" + k) ? t("opt_" + k) : k, value: valueText(v) }));
    head.textContent = `${presetName(tb.preset)} · ${tb.target}` + (changed.length ? ` (${changed.join(", ")})` : "");
    const who = document.createElement("div");
    who.className = "who";
    who.textContent = tb.seats.map((x) => (x ? (x.startsWith("bot:") ? botName(x.slice(4)) : x) : "—")).join(", ") + " · " +
      (tb.status === "waiting" ? t("web_status_waiting") : tb.status === "playing" ? t("web_status_playing", { n: tb.hand }) : t("web_status_over"));
    const actions = document.createElement("div");
    actions.className = "actions";
    if (mine) {
      actions.append(button(t("web_resume"), () => { tableId = tb.table; invite = null; send({ type: "sync", table: tb.table }); }));
      const out = button(t("web_leave"), () => send({ type: "leave", table: tb.table }));
      actions.append(out);
    } else {
      for (const seat of tb.free) {
        const b = button(`${t("web_join")} · ${seatWhere(tb, seat)}`, () => { tableId = tb.table; send({ type: "join", table: tb.table, seat }); });
        b.className = "join";
        actions.append(b);
      }
      actions.append(button(t("web_watch"), () => { tableId = tb.table; send({ type: "watch", table: tb.table }); }));
    }
    li.append(head, who, actions);
    return li;
  };
  const mine = lobbyData.mine || [];
  $("mine-panel").hidden = !mine.length;
  $("mine").replaceChildren(...mine.map((tb) => entry(tb, true)));
  const mineIds = new Set(mine.map((x) => x.table));
  const open = lobbyData.tables.filter((tb) => !mineIds.has(tb.table) && (!filter || tb.preset === filter) && (!freeOnly || tb.free.length));
  $("tables").replaceChildren(...(open.length ? open.map((tb) => entry(tb, false))
    : [Object.assign(document.createElement("li"), { className: "empty", textContent: t("web_no_tables") })]));
}
$("filter-preset").onchange = renderLobby;
$("filter-free").onchange = renderLobby;

/** Where a free seat of a lobby table is, said from a player already there, as people
 * at a real table would ("partner of Ana", "on Ana's right"): "seat 2" told nothing, and
 * the table's North/East/West are each viewer's own. */
function seatWhere(tb, seat) {
  const n = tb.players;
  const human = (x) => x && !x.startsWith("bot:");
  const at = [...Array(n).keys()].find((x) => x !== seat && human(tb.seats[x]));
  if (at === undefined) return t("web_seat_n", { n: seat + 1 });
  const name = tb.seats[at];
  const offset = (seat - at + n) % n;
  if (n === 2) return t("web_seat_opposite", { name });
  if (n === 4 && offset === 2) return t("web_partner_of", { name });
  const preset = ruleCatalog && ruleCatalog.presets[tb.preset] || {};
  const clockwise = ((tb.rules || {}).direction || preset.direction) === "clockwise";
  const next = offset === 1;  // the next to play after him: on his right counter-clockwise
  return t(next !== clockwise ? "web_seat_right_of" : "web_seat_left_of", { name });
}

// "More rules": every rule option of the chosen preset, each preset's values first.
async function loadRuleOptions() {
  ruleCatalog = ruleCatalog || await (await fetch("/api/rules")).json();
  const chosen = $("preset").value || "classic";
  $("preset").replaceChildren(...Object.keys(ruleCatalog.presets).map((p) => Object.assign(document.createElement("option"), { value: p, textContent: presetName(p) })));
  $("preset").value = chosen;
  const filter = $("filter-preset").value;
  $("filter-preset").replaceChildren(Object.assign(document.createElement("option"), { value: "", textContent: t("web_all_presets") }),
    ...Object.keys(ruleCatalog.presets).map((p) => Object.assign(document.createElement("option"), { value: p, textContent: presetName(p) })));
  $("filter-preset").value = filter;
  const level = $("level").value || "heuristic";
  const levels = ["heuristic", ...ruleCatalog.levels.filter((l) => l !== "heuristic")];  // the usual choice first
  $("level").replaceChildren(...levels.map((l) => Object.assign(document.createElement("option"), { value: l, textContent: botName(l) })));
  $("level").value = level;
  $("rule-options").replaceChildren(...ruleCatalog.options.filter((o) => !["target", "players"].includes(o.name)).map((o) => {
    const lab = document.createElement("label");
    lab.title = o.doc;
    lab.className = "rule-option";
    const input = o.values ? document.createElement("select")
      : Object.assign(document.createElement("input"), { type: "number", min: o.minimum });
    input.dataset.option = o.name;
    if (o.values) o.values.forEach((v, i) => input.append(Object.assign(document.createElement("option"), { value: String(i), textContent: valueText(v) })));
    lab.append(has(`opt_${o.name}`) ? t(`opt_${o.name}`) : o.name, " ", input);
    return lab;
  }));
  showPresetRules();
}
function showPresetRules() {
  if (!ruleCatalog) return;
  const preset = ruleCatalog.presets[$("preset").value] || {};
  $("target").options[0].textContent = t("web_rules_target", { n: preset.target ?? "" });  // was "the rules'"
  for (const input of document.querySelectorAll("[data-option]")) {
    const o = ruleCatalog.options.find((x) => x.name === input.dataset.option);
    const value = preset[o.name];
    input.value = o.values ? String(o.values.findIndex((v) => v === value)) : String(value ?? "");
    input.closest("label").hidden = Boolean(o.game) && o.game !== preset.game;  // only what this game uses
  }
}
function chosenRules() {
  const preset = ruleCatalog ? ruleCatalog.presets[$("preset").value] : null;
  const rules = {};
  if (!preset) return rules;
  for (const input of document.querySelectorAll("[data-option]")) {
    const o = ruleCatalog.options.find((x) => x.name === input.dataset.option);
    if (!o.values && input.value === "") continue;
    const value = o.values ? o.values[Number(input.value)] : Number(input.value);
    if (value !== preset[o.name]) rules[o.name] = value;
  }
  return rules;
}
$("preset").onchange = showPresetRules;
$("create").onclick = () => {
  const options = { private: $("private").checked, rules: chosenRules() };
  if ($("target").value) options.target = Number($("target").value);
  if ($("timer").value) options.timer = Number($("timer").value);
  seenSummary = 0;
  shown = null;
  send({ type: "create", preset: $("preset").value, options });
};

// -- wiring -------------------------------------------------------------------------------------
function button(text, onclick) {
  const b = document.createElement("button");
  b.type = "button";
  b.textContent = text;
  b.onclick = onclick;
  return b;
}
$("fill").onclick = () => send({ type: "bots", table: tableId, level: $("level").value || "heuristic" });
$("copy").onclick = () => { $("invite-link").select(); navigator.clipboard?.writeText($("invite-link").value).catch(() => {}); };
$("hint").onclick = () => send({ type: "hint", table: tableId });
$("last-trick").onclick = lastTrick;
$("leave").onclick = leave;
$("phrases").replaceChildren(...PHRASES.map((p) => {
  const b = button("", () => send({ type: "chat", table: tableId, phrase: p }));
  b.dataset.t = `phrase_${p}`;
  return b;
}));
document.addEventListener("keydown", (event) => {
  if (!shown || ["INPUT", "SELECT", "TEXTAREA"].includes(event.target.tagName)) return;
  if (event.key === "Escape") { closeDialog(); return; }
  const n = Number(event.key);
  const cards = [...document.querySelectorAll("#hand button")];
  if (n >= 1 && n <= cards.length && shown.phase === "play") cards[n - 1].click();
  else if (event.key === "h" && !$("hint").hidden) send({ type: "hint", table: tableId });
  else if (event.key === "l") lastTrick();
  else if (event.key === "p" && shown.phase === "auction") { const p = document.querySelector("#bidbox [data-call=pass]"); if (p) p.click(); }
  else if (event.key === "ArrowLeft" || event.key === "ArrowRight") {
    const i = cards.indexOf(document.activeElement);
    const j = Math.max(0, Math.min(cards.length - 1, i + (event.key === "ArrowLeft" ? -1 : 1)));
    if (cards[j]) { cards[j].disabled = false; cards[j].focus(); }
  }
});
$("lang").onchange = async () => {
  await loadTexts($("lang").value);
  await loadRuleOptions();
  renderLobby();
  if (me?.player) showAccount();
  if (shown) drawTable(shown, {});
  redrawDialog();  // an open summary, game end, last trick or sheet in the new language
};
$("deck").onchange = () => { deck = $("deck").value; localStorage.setItem("rebelote-deck", deck); if (shown) drawTable(shown, {}); };
$("pace").onchange = () => { pace = Number($("pace").value); localStorage.setItem("rebelote-pace", String(pace)); };
$("guest").onclick = async () => {
  const got = await post("/api/guest", { nickname: $("nickname").value });
  if (!got.ok) { $("signin-error").textContent = refusalText(got.body); return; }
  start();
};

// -- accounts: log in, create one (a guest's keeps its games), log out ----------------
function refusalText(refusal) {
  const key = `web_refused_${refusal.code}`;
  if (refusal.code === "too_many") return t(key, { n: Math.ceil(refusal.retry_after || 1) });
  return has(key) ? t(key) : refusal.error;
}
async function post(url, body) {
  const res = await fetch(url, { method: "POST", headers: { "content-type": "application/json" },
    body: JSON.stringify(body) });
  return { ok: res.ok, body: await res.json().catch(() => ({ code: "", error: `HTTP ${res.status}` })) };
}
/** The name and password of a form sent to `url`: the answer, or null once the refusal
 * is shown under the form. */
async function sendCredentials(form, url) {
  const [name, password, error] = ["name", "password", "error"].map((x) => $(`${form}-${x}`));
  if (!name.value.trim() || !password.value) { error.textContent = t("web_account_fill"); return null; }
  error.textContent = "";
  const got = await post(url, { name: name.value, password: password.value });
  if (!got.ok) { error.textContent = refusalText(got.body); return null; }
  password.value = "";
  return got.body;
}
function showAccount() {
  const initial = document.createElement("span");  // a phone shows the initial alone
  initial.className = "initial";
  initial.textContent = [...me.nickname][0].toLocaleUpperCase(lang);
  const name = document.createElement("span");
  name.className = "name";
  name.textContent = me.nickname;
  $("who").replaceChildren(initial, name);
  $("who").title = me.nickname;
  $("account").hidden = false;
  $("account-state").textContent = t(me.account ? "web_signed_account" : "web_signed_guest", { name: me.nickname });
  for (const id of ["keep-form", "logout-warning"]) $(id).hidden = !!me.account;
  for (const id of ["logout-all", "password-box", "close-box"]) $(id).hidden = !me.account;
  for (const field of document.querySelectorAll("#account .username")) field.value = me.nickname;  // for password managers
  if (!me.account && !$("keep-name").value) $("keep-name").value = me.nickname;
}
async function logout(everywhere) {
  loggingOut = true;
  await post("/api/logout", { everywhere });
  location.replace("/");
}
$("account-form").onsubmit = async (event) => {
  event.preventDefault();
  if (await sendCredentials("account", "/api/login")) start();
};
$("register").onclick = async () => { if (await sendCredentials("account", "/api/register")) start(); };
$("keep-form").onsubmit = async (event) => {  // a guest's account: same player, games kept
  event.preventDefault();
  const got = await sendCredentials("keep", "/api/register");
  if (!got) return;
  me = { ...me, ...got, account: true };
  showAccount();
  $("account").open = false;
  notice(t("web_account_made"), 6000);
};
$("password-form").onsubmit = async (event) => {  // the other browsers are logged out
  event.preventDefault();
  const [current, fresh, error] = ["current", "new", "error"].map((x) => $(`password-${x}`));
  if (!current.value || !fresh.value) { error.textContent = t("web_passwords_fill"); return; }
  error.textContent = "";
  const got = await post("/api/password", { password: current.value, new: fresh.value });
  if (!got.ok) { error.textContent = refusalText(got.body); return; }
  current.value = fresh.value = "";
  $("password-box").open = $("account").open = false;
  notice(t("web_password_changed"), 6000);
};
$("close-form").onsubmit = async (event) => {
  event.preventDefault();
  const [password, error] = [$("close-password"), $("close-error")];
  if (!password.value) { error.textContent = t("web_password_fill"); return; }
  error.textContent = "";
  loggingOut = true;  // its sockets are closed with it
  const got = await post("/api/close-account", { password: password.value });
  if (!got.ok) { loggingOut = false; error.textContent = refusalText(got.body); return; }
  location.replace("/");
};
$("logout").onclick = () => logout(false);
$("logout-all").onclick = () => logout(true);

async function start() {
  const res = await fetch("/api/session");
  me = res.ok ? await res.json() : { player: null };
  if (!me.player) {  // an invite link's new visitor is told why he is here
    if (sessionStorage.getItem("rebelote-ended")) {
      sessionStorage.removeItem("rebelote-ended");
      notice(t("web_session_ended"));
    }
    $("signin-invite").hidden = !(tableId && invite);
    $("signin").hidden = false;
    return;
  }
  showAccount();
  $("signin").hidden = true;
  if (!tableId) $("lobby").hidden = false;
  connect();
  // the card pictures, fetched once (cached a week) while the lobby shows
  setTimeout(() => fetch("/static/cards/svg-cards.svg").catch(() => {}), tableId ? 0 : 300);
}

(async () => {
  $("lang").value = lang;
  $("deck").value = deck;
  $("pace").value = String(pace);
  if (!$("pace").value) $("pace").value = "700";
  $("sound").checked = localStorage.getItem("rebelote-sound") === "1";
  $("sound").onchange = () => localStorage.setItem("rebelote-sound", $("sound").checked ? "1" : "0");
  await loadTexts();
  loadRuleOptions();
  start();
})();
