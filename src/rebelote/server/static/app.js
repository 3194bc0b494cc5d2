"use strict";
// The client only shows what the server sends: its own seat's view.
const $ = (id) => document.getElementById(id);
const SYMBOL = { S: "♠", H: "♥", D: "♦", C: "♣" };
let socket = null;
// The table is kept in the address (#table=...), so a reload or a new tab resumes it.
let tableId = new URLSearchParams(location.hash.slice(1)).get("table");

function label(card) {
  const suit = card.slice(-1);
  return card.slice(0, -1) + (SYMBOL[suit] || suit);
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
  $("tables").replaceChildren(...tables.map((t) => {
    const li = document.createElement("li");
    const join = document.createElement("button");
    join.textContent = `${t.preset} to ${t.target}, free seats: ${t.free.join(", ") || "none"}`;
    join.disabled = t.free.length === 0;
    join.onclick = () => send({ type: "join", table: t.table });
    li.append(join);
    return li;
  }));
}

function connect() {
  const scheme = location.protocol === "https:" ? "wss" : "ws";
  socket = new WebSocket(`${scheme}://${location.host}/ws`);
  socket.onmessage = (event) => receive(JSON.parse(event.data));
  socket.onopen = () => { if (tableId) send({ type: "sync", table: tableId }); };
  socket.onclose = () => setTimeout(connect, 1000);  // reconnect, then resync
}

function send(message) { socket.send(JSON.stringify(message)); }

function receive(message) {
  if (message.type === "error") { $("error").textContent = message.message; return; }
  if (message.type === "created") {
    tableId = message.table;
    send({ type: "bots", table: tableId, level: $("level").value });
    return;
  }
  if (message.type === "state") {
    tableId = message.table;
    history.replaceState(null, "", `#table=${tableId}`);
    render(message);
  }
}

function render(state) {
  $("lobby").hidden = true;
  $("table").hidden = false;
  $("error").textContent = "";
  const yourTurn = state.turn === state.seat;
  $("status").textContent = state.phase === "waiting" ? "Waiting for players…" :
    `${state.preset} · totals ${state.totals.join(" – ")}` +
    (state.contract ? ` · trump ${state.contract} (seat ${state.taker})` : "") +
    (state.winner !== null && state.winner !== undefined ? ` · team ${state.winner} wins` :
      yourTurn ? " · your turn" : "");
  $("trick").textContent = state.trick ? state.trick.cards.map(label).join("  ") :
    (state.retourne && state.phase === "auction" ? `retourne ${label(state.retourne)}` : "");
  const legal = new Set(state.legal || []);
  $("calls").replaceChildren(...(state.phase === "auction" && yourTurn ? state.legal : [])
    .map((call) => button(call, () => send({ type: "act", table: tableId, action: call }))));
  $("hand").replaceChildren(...(state.hand || []).map((card) => {
    const b = button(label(card), () => send({ type: "act", table: tableId, action: card }));
    if ("HD".includes(card.slice(-1))) b.classList.add("red");
    // Not-legal cards stay clickable: the server's refusal explains why.
    b.disabled = !(state.phase === "play" && yourTurn);
    if (!legal.has(card)) b.classList.add("illegal");
    b.dataset.card = card;
    return b;
  }));
  $("scores").textContent = (state.scores || []).map((s, i) => `hand ${i + 1}: ${s.join(" – ")}`)
    .join(" · ");
}

function button(text, onclick) {
  const b = document.createElement("button");
  b.textContent = text;
  b.onclick = onclick;
  return b;
}

$("guest").onclick = async () => {
  const res = await fetch("/api/guest", { method: "POST", headers: { "content-type": "application/json" },
    body: JSON.stringify({ nickname: $("nickname").value }) });
  if (!res.ok) { $("signin-error").textContent = (await res.json()).error; return; }
  signedIn();
};
$("create").onclick = () => send({ type: "create", preset: $("preset").value });
signedIn();
