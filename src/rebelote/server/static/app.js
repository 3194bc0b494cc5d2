"use strict";
// The client only shows what the server sends: its own seat's view.
const $ = (id) => document.getElementById(id);
const SYMBOL = { S: "♠", H: "♥", D: "♦", C: "♣" };
const params = new URLSearchParams(location.hash.slice(1));
let socket = null;
// The table is kept in the address (#table=...), so a reload or a new tab resumes it.
let tableId = params.get("table");
const invite = params.get("invite");
let state = null;
let shownTricks = 0;
let holdTrick = null;  // a finished trick left on the table for a moment

// Deck styles (display only), as rebelote.decks: index letters by tradition, or pictures.
const RANKS = ["7", "8", "9", "10", "J", "Q", "K", "A"];
const STYLE_RANKS = {
  french: ["7", "8", "9", "10", "V", "D", "R", "A"],
  international: RANKS,
  german: ["7", "8", "9", "10", "U", "O", "K", "A"],
  spanish: ["4", "5", "6", "7", "S", "C", "R", "A"],
};
const SPANISH_SUITS = { S: " espadas", H: " copas", D: " oros", C: " bastos" };
const PICTURE = { S: "spade", H: "heart", D: "diamond", C: "club" };
const PICTURE_RANK = { A: "1", J: "jack", Q: "queen", K: "king" };
let deck = localStorage.getItem("rebelote-deck") || "pictures";

function label(card) {
  const suit = card.slice(-1);
  const rank = RANKS.indexOf(card.slice(0, -1));
  const style = deck === "pictures" ? "international" : deck;
  const shown = STYLE_RANKS[style][rank];
  return deck === "spanish" ? shown + SPANISH_SUITS[suit] : shown + (SYMBOL[suit] || suit);
}

function cardFace(card) {
  // A picture from svg-cards (LGPL, static/cards), or the card's label.
  if (deck !== "pictures") return document.createTextNode(label(card));
  const rank = card.slice(0, -1);
  const id = `${PICTURE[card.slice(-1)]}_${PICTURE_RANK[rank] || rank}`;
  const ns = "http://www.w3.org/2000/svg";
  const svg = document.createElementNS(ns, "svg");
  svg.setAttribute("viewBox", "0 0 169.075 244.64");
  svg.setAttribute("class", "card-picture");
  svg.setAttribute("role", "img");
  svg.setAttribute("aria-label", label(card));
  const use = document.createElementNS(ns, "use");
  use.setAttribute("href", `/static/cards/svg-cards.svg#${id}`);
  svg.append(use);
  return svg;
}

async function signedIn() {
  const res = await fetch("/api/me");
  if (!res.ok) return false;
  const me = await res.json();
  $("who").textContent = me.nickname;
  $("signin").hidden = true;
  $("lobby").hidden = false;
  connect();
  refreshLobby();
  return true;
}

async function refreshLobby() {
  const tables = await (await fetch("/api/tables")).json();
  $("tables").replaceChildren(...tables.map((tb) => {
    const li = document.createElement("li");
    const join = document.createElement("button");
    const changed = Object.entries(tb.rules || {}).map(([k, v]) => `${k.replaceAll("_", " ")}: ${v}`);
    const rules = changed.length ? ` (${changed.join(", ")})` : "";
    join.textContent = `${tb.preset}${rules} → ${tb.target}, ${t("free")}: ${tb.free.join(", ") || "—"}`;
    join.disabled = tb.free.length === 0;
    join.onclick = () => send({ type: "join", table: tb.table });
    const watch = button(t("watch"), () => send({ type: "watch", table: tb.table }));
    li.append(join, " ", watch);
    return li;
  }));
}

function connect() {
  const scheme = location.protocol === "https:" ? "wss" : "ws";
  socket = new WebSocket(`${scheme}://${location.host}/ws`);
  socket.onmessage = (event) => receive(JSON.parse(event.data));
  socket.onopen = () => {
    if (tableId && invite) send({ type: "join", table: tableId, invite });
    else if (tableId) send({ type: "sync", table: tableId });
  };
  socket.onclose = () => setTimeout(connect, 1000);  // reconnect, then resync
}

function send(message) { socket.send(JSON.stringify(message)); }

function receive(message) {
  if (message.type === "error") {
    if (message.code === "seated" && tableId) { send({ type: "sync", table: tableId }); return; }
    $("error").textContent = reason(message);
    return;
  }
  if (message.type === "created") {
    tableId = message.table;
    if (message.invite) {
      $("invite").hidden = false;
      $("invite-link").value = `${location.origin}/#table=${tableId}&invite=${message.invite}`;
    }
    if (!$("wait").checked) send({ type: "bots", table: tableId, level: $("level").value });
    return;
  }
  if (message.type === "hint") {
    $("hint-text").textContent = message.actions.map((a) => `${a.action}: ${a.value}`).join(" · ");
    return;
  }
  if (message.type === "state") {
    tableId = message.table;
    history.replaceState(null, "", `#table=${tableId}`);
    $("record").href = `/api/tables/${tableId}/record`;
    $("replay").href = `/replay?table=${tableId}`;
    if (message.tricks && message.tricks.length > shownTricks && shownTricks > 0) {
      holdTrick = message.tricks[message.tricks.length - 1];  // leave it on the table
      setTimeout(() => { holdTrick = null; if (state) render(state); }, 1500);
    }
    if (!state || (message.tricks || []).length !== (state.tricks || []).length) {
      $("last").hidden = true;  // a newer trick: the one shown is no longer the last
    }
    shownTricks = message.tricks ? message.tricks.length : 0;
    state = message;
    render(message);
  }
}

const PLACES = ["south", "west", "north", "east"];

function place(seat) {
  const n = state.seats.length;
  const me = state.seat < 0 ? 0 : state.seat;
  const offset = (seat - me + n) % n;
  return n === 4 ? PLACES[offset] : ["south", "west", "east"][offset];
}

function render(s) {
  $("lobby").hidden = true;
  $("table").hidden = false;
  $("error").textContent = "";
  $("hint-text").textContent = "";
  const yourTurn = s.turn === s.seat && s.seat >= 0;
  const over = s.winner !== null && s.winner !== undefined;
  $("status").textContent = s.phase === "waiting" ? t("waiting") :
    `${s.preset} · ${t("totals")} ${s.totals.join(" – ")}` +
    (s.reserve ? ` · ${t("reserve")} ${s.reserve}` : "") +
    (s.contract ? ` · ${t("trump")} ${SYMBOL[s.contract] || s.contract}` : "") +
    (over ? ` · ${t("team")} ${s.winner} ${t("wins")}` : yourTurn ? ` · ${t("yourTurn")}` : "");
  for (const p of PLACES) $(`seat-${p}`).textContent = "";
  s.seats.forEach((who, seat) => {
    const bits = [who || "(free)"];
    if (seat === s.dealer) bits.push(t("deals"));
    if (seat === s.taker) bits.push(`★ ${t("took")}`);
    if (seat === s.turn) bits.push("◀");
    const calls = (s.calls || []).filter((_, i) => (s.dealer + 1 + i) % s.seats.length === seat);
    if (s.phase === "auction" && calls.length) bits.push(calls[calls.length - 1]);
    for (const a of s.announcements || []) if (a.seat === seat) bits.push(a.kind);
    for (const [bs, word] of s.belote || []) if (bs === seat) bits.push(word);
    $(`seat-${place(seat)}`).textContent = bits.join(" · ");
  });
  const trick = holdTrick || s.trick;
  const box = $("trick");
  if (trick && trick.cards.length) {
    // Each card as drawn in the chosen deck, with who played it; the words for screen readers.
    box.setAttribute("aria-label", trick.cards.map((c, i) =>
      `${place((trick.leader + i) % s.seats.length)}: ${label(c)}`).join(", "));
    box.replaceChildren(...trick.cards.map((c, i) => {
      const fig = document.createElement("figure");
      fig.className = "played";
      if ("HD".includes(c.slice(-1))) fig.classList.add("red");
      const caption = document.createElement("figcaption");
      caption.textContent = place((trick.leader + i) % s.seats.length);
      fig.append(cardFace(c), caption);
      return fig;
    }));
  } else {
    box.removeAttribute("aria-label");
    box.textContent = s.retourne && s.phase === "auction" ? `${t("retourne")} ${label(s.retourne)}` : "";
  }
  const legal = new Set(s.legal || []);
  $("calls").replaceChildren(...(s.phase === "auction" && yourTurn ? s.legal : [])
    .map((call) => button(["pass", "take"].includes(call) ? t(call) : call, () => act(call))));
  $("hand").replaceChildren(...(s.hand || []).map((card, i) => {
    const b = button("", () => act(card));
    b.append(cardFace(card));
    b.setAttribute("aria-label", label(card));
    b.title = `key ${i + 1}`;
    if ("HD".includes(card.slice(-1))) b.classList.add("red");
    // Not-legal cards stay clickable: the server's refusal explains why.
    b.disabled = !(s.phase === "play" && yourTurn);
    if (!legal.has(card)) b.classList.add("illegal");
    b.dataset.card = card;
    return b;
  }));
  $("scores").textContent = (s.scores || []).map((x, i) => `${t("hand")} ${i + 1}: ${x.join(" – ")}`)
    .join(" · ");
}

function act(action) { send({ type: "act", table: tableId, action }); }

// The last trick of the hand, on demand (button or "l"), until the next one is played.
function toggleLastTrick() {
  const box = $("last");
  if (!box.hidden) { box.hidden = true; return; }
  const tricks = (state && state.tricks) || [];
  const last = tricks[tricks.length - 1];
  box.textContent = last ? last.cards.map((c, i) =>
    `${place((last.leader + i) % state.seats.length)}: ${label(c)}`).join("   ") +
    ` · ${t("wonBy")} ${place(last.winner)}` : t("noTrick");
  box.hidden = false;
}

function button(text, onclick) {
  const b = document.createElement("button");
  b.textContent = text;
  b.onclick = onclick;
  return b;
}

document.addEventListener("keydown", (event) => {
  if (!state || event.target.tagName === "INPUT") return;
  const n = Number(event.key);
  if (n >= 1 && n <= (state.hand || []).length && state.phase === "play") act(state.hand[n - 1]);
  else if (event.key === "h") send({ type: "hint", table: tableId });
  else if (event.key === "l") toggleLastTrick();
});
$("guest").onclick = async () => {
  const res = await fetch("/api/guest", { method: "POST", headers: { "content-type": "application/json" },
    body: JSON.stringify({ nickname: $("nickname").value }) });
  if (!res.ok) { $("signin-error").textContent = (await res.json()).error; return; }
  signedIn();
};
// "More rules": every rule option of the chosen preset, each preset's values first.
let ruleCatalog = null;
async function loadRuleOptions() {
  ruleCatalog = await (await fetch("/api/rules")).json();
  const box = $("rule-options");
  box.replaceChildren(...ruleCatalog.options.filter((o) => o.name !== "target").map((o) => {
    const lab = document.createElement("label");
    lab.title = o.doc;
    lab.className = "rule-option";
    const input = o.values
      ? document.createElement("select")
      : Object.assign(document.createElement("input"), { type: "number", min: o.minimum });
    input.dataset.option = o.name;
    if (o.values) {
      o.values.forEach((v, i) => {
        const opt = document.createElement("option");
        opt.value = String(i);
        opt.textContent = String(v);
        input.append(opt);
      });
    }
    lab.append(o.name.replaceAll("_", " "), " ", input);
    return lab;
  }));
  showPresetRules();
}
function showPresetRules() {
  if (!ruleCatalog) return;
  const preset = ruleCatalog.presets[$("preset").value] || {};
  for (const input of document.querySelectorAll("[data-option]")) {
    const o = ruleCatalog.options.find((x) => x.name === input.dataset.option);
    const value = preset[o.name];
    input.value = o.values ? String(o.values.findIndex((v) => v === value)) : String(value);
  }
}
function chosenRules() {
  const preset = ruleCatalog ? ruleCatalog.presets[$("preset").value] : null;
  const rules = {};
  if (!preset) return rules;
  for (const input of document.querySelectorAll("[data-option]")) {
    const o = ruleCatalog.options.find((x) => x.name === input.dataset.option);
    const value = o.values ? o.values[Number(input.value)] : Number(input.value);
    if (value !== preset[o.name]) rules[o.name] = value;
  }
  return rules;
}
$("preset").onchange = showPresetRules;
loadRuleOptions();
$("create").onclick = () => {
  const options = { private: $("private").checked, rules: chosenRules() };
  if ($("target").value) options.target = Number($("target").value);
  if ($("timer").value) options.timer = Number($("timer").value);
  send({ type: "create", preset: $("preset").value, options });
};
$("fill").onclick = () => send({ type: "bots", table: tableId, level: $("level").value });
$("hint").onclick = () => send({ type: "hint", table: tableId });
$("last-trick").onclick = toggleLastTrick;
$("lang").value = lang;
$("lang").onchange = () => {
  lang = $("lang").value;
  localStorage.setItem("rebelote-lang", lang);
  translatePage();
  if (state) render(state);
};
translatePage();
$("deck").value = deck;
$("deck").onchange = () => {
  deck = $("deck").value;
  localStorage.setItem("rebelote-deck", deck);
  if (state) render(state);
};
signedIn();
