"use strict";
// Steps through the finished hands the server sends (/api/tables/{id}/history).
const $ = (id) => document.getElementById(id);
const SYMBOL = { S: "♠", H: "♥", D: "♦", C: "♣" };
const table = new URLSearchParams(location.search).get("table");
let data = null;
let handNo = 0;
let step = 0;  // tricks shown

const label = (c) => c.slice(0, -1) + (SYMBOL[c.slice(-1)] || c.slice(-1));

function render() {
  const hand = data.hands[handNo];
  const shown = hand.tricks.slice(0, step);
  const gone = new Set(shown.flatMap((t) => t.cards));
  $("where").textContent = `${step} / ${hand.tricks.length} tricks`;
  $("deal").replaceChildren(...hand.cards.map((cards, seat) => {
    const p = document.createElement("p");
    p.textContent = `${data.seats[seat]}${seat === hand.taker ? " ★" : ""}: ` +
      cards.filter((c) => !gone.has(c)).map(label).join(" ");
    return p;
  }));
  $("played").replaceChildren(...shown.map((t, i) => {
    const p = document.createElement("p");
    p.textContent = `trick ${i + 1}: ` + t.cards.map(label).join(" ") +
      ` → ${data.seats[t.winner]}`;
    return p;
  }));
  $("result").textContent = step === hand.tricks.length ?
    `${hand.contract ? "trump " + (SYMBOL[hand.contract] || hand.contract) + ", " : ""}` +
    `${hand.outcome}: ${hand.scored.join(" – ")}` : "";
}

async function load() {
  const res = await fetch(`/api/tables/${table}/history`);
  data = await res.json();
  if (!res.ok) { $("error").textContent = data.error; return; }
  if (!data.hands.length) { $("error").textContent = "no finished hand yet"; return; }
  $("hand-no").replaceChildren(...data.hands.map((_, i) => {
    const o = document.createElement("option");
    o.value = i;
    o.textContent = i + 1;
    return o;
  }));
  render();
}

$("hand-no").onchange = () => { handNo = Number($("hand-no").value); step = 0; render(); };
$("next").onclick = () => { step = Math.min(step + 1, data.hands[handNo].tricks.length); render(); };
$("prev").onclick = () => { step = Math.max(step - 1, 0); render(); };
document.addEventListener("keydown", (e) => {
  if (e.key === "ArrowRight") $("next").click();
  if (e.key === "ArrowLeft") $("prev").click();
});
load();
