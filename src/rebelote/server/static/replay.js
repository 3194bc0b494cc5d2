// Steps through the finished hands (/api/tables/{id}/history) on the table's own drawing:
// each seat's cards left, the trick in the middle, the players' names.
import { loadTexts, t, lang, botName, capitalized, SYMBOL, callLabel } from "./texts.js";
import { cardFace, label, spoken } from "./cards.js";

const $ = (id) => document.getElementById(id);
const table = new URLSearchParams(location.search).get("table");
const deck = localStorage.getItem("rebelote-deck") || "pictures";
let data = null;
let handNo = 0;
let step = 0;  // tricks shown

function place(n, seat) {  // seat 0 at the bottom, the play turning the table's way
  const ccw = data.direction !== "clockwise";
  if (n === 2) return ["south", "north"][seat];
  if (n === 3) return (ccw ? ["south", "east", "west"] : ["south", "west", "east"])[seat];
  return (ccw ? ["south", "east", "north", "west"] : ["south", "west", "north", "east"])[seat];
}
// a bot is named by its place (the table's own words: East, Nord…), its level beside it
const isBot = (seat) => (data.seats[seat] || "").startsWith("bot:");
const nameOf = (seat) => (isBot(seat) ? t(place(data.hands[handNo].cards.length, seat)) : data.seats[seat] || "—");

/** The contract as the auction made it: its level (auction games), trump, doubling. */
function contractText(hand) {
  let level = null;
  let double = 1;
  for (const c of hand.auction || []) {
    const m = c.call.match(/^(\d+|capot)(SA|TA|[SHDC])$/);
    if (m) { level = m[1] === "capot" ? t("web_capot_bid") : m[1]; double = 1; }
    if (c.call === "coinche") double = 2;
    if (c.call === "surcoinche") double = 4;
  }
  let text = `${t("web_contract")} ${level ? level + " " : ""}${SYMBOL[hand.contract] || hand.contract}`;
  if (double === 2) text += " · " + (data.scoring === "acorralada" ? t("web_contrad") : t("web_coinched"));
  if (double === 4) text += " · " + (data.scoring === "acorralada" ? t("web_recontrad", { n: 4 }) : t("web_surcoinched", { n: 4 }));
  return text + (hand.taker !== null ? ` · ${t("web_taker")} ${nameOf(hand.taker)}` : "");
}

function render() {
  const hand = data.hands[handNo];
  const n = hand.cards.length;
  const shown = hand.tricks.slice(0, step);
  const gone = new Set(shown.flatMap((tr) => tr.cards));
  $("where").textContent = t("web_tricks_shown", { n: step, total: hand.tricks.length });
  for (const p of ["north", "west", "east", "south"]) { $(`seat-${p}`).hidden = true; $(`seat-${p}`).replaceChildren(); }
  hand.cards.forEach((cards, seat) => {
    const el = $(`seat-${place(n, seat)}`);
    el.hidden = false;
    const name = Object.assign(document.createElement("div"), { className: "name", textContent: nameOf(seat) + (seat === hand.taker ? " ★" : "") });
    const row = Object.assign(document.createElement("div"), { className: "up-cards" });
    row.append(...cards.filter((c) => !gone.has(c)).map((c) => cardFace(c, deck)));
    el.append(name);
    if (isBot(seat)) el.append(Object.assign(document.createElement("div"), { className: "tags", textContent: botName(data.seats[seat].slice(4), true) }));
    el.append(row);
  });
  const box = $("trick");
  const last = shown[shown.length - 1];
  box.dataset.players = n;
  box.replaceChildren(...(last ? last.cards.map((c, i) => {
    const face = cardFace(c, deck);
    const seat = (last.leader + i) % n;
    face.classList.add("played", `at-${place(n, seat)}`);
    if (seat === last.winner) face.classList.add("best");
    return face;
  }) : []));
  $("contract").textContent = hand.contract ? contractText(hand) : t("web_void");
  $("auction").textContent = (hand.auction || []).length
    ? t("web_label_value", { label: t("auction"), value: hand.auction.map((c) => t("web_label_value", { label: nameOf(c.seat), value: callLabel(c.call, data.scoring, hand.retourne) })).join(" · ") }) : "";
  $("played").replaceChildren(...shown.map((tr, i) => {
    const li = document.createElement("li");
    const seen = Object.assign(document.createElement("span"), { textContent: capitalized(t("web_label_value", { label: t("web_trick_n", { n: i + 1 }), value: `${tr.cards.map((c) => label(c, deck)).join(" ")} → ${nameOf(tr.winner)}` })) });
    seen.setAttribute("aria-hidden", "true");  // read aloud with the cards' spoken names
    li.append(seen, Object.assign(document.createElement("span"), { className: "sr-only",
      textContent: capitalized(t("web_label_value", { label: t("web_trick_n", { n: i + 1 }), value: `${tr.cards.map((c) => spoken(c, deck)).join(", ")} → ${nameOf(tr.winner)}` })) }));
    return li;
  }));
  $("result").textContent = step === hand.tricks.length ?
    capitalized(t("web_label_value", { label: t(`web_${hand.outcome}`), value: scoredText(hand) })) : "";
}

/** What each side scored, by name: "Ana & North 121 – 41 East & West" (four players, two
 * sides), else each player's own: "Ana 50 · East 30 · West 82" (the bare "121 – 41" named
 * nobody). */
function scoredText(hand) {
  const n = hand.cards.length;
  const sc = hand.scored;
  if (n === 4 && sc.length === 2) return `${nameOf(0)} & ${nameOf(2)} ${sc[0]} – ${sc[1]} ${nameOf(1)} & ${nameOf(3)}`;
  if (sc.length === n) return sc.map((x, seat) => `${nameOf(seat)} ${x}`).join(" · ");
  return sc.join(" – ");
}

async function load() {
  await loadTexts();
  $("lang").value = lang;
  const res = await fetch(`/api/tables/${table}/history`);
  data = await res.json();
  if (!res.ok) { $("error").textContent = data.error; return; }
  if (!data.hands.length) { $("error").textContent = t("web_no_hand_yet"); return; }
  $("hand-no").replaceChildren(...data.hands.map((_, i) => Object.assign(document.createElement("option"), { value: i, textContent: i + 1 })));
  render();
}

$("lang").onchange = async () => { await loadTexts($("lang").value); if (data && data.hands.length) render(); };
$("hand-no").onchange = () => { handNo = Number($("hand-no").value); step = 0; render(); };
$("next").onclick = () => { step = Math.min(step + 1, data.hands[handNo].tricks.length); render(); };
$("prev").onclick = () => { step = Math.max(step - 1, 0); render(); };
document.addEventListener("keydown", (e) => {
  if (e.key === "ArrowRight") $("next").click();
  if (e.key === "ArrowLeft") $("prev").click();
});
load();
