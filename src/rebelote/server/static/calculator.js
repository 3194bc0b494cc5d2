// The page only renders what the server's calculator (the code of `rebelote score`)
// computes from the hands entered. The sheet (its rules, target and hands) is kept in the
// browser, so that a reload or a closed tab loses nothing.
import { loadTexts, t, lang, SYMBOL } from "./texts.js";

const $ = (id) => document.getElementById(id);
const STORE = "rebelote-calc";
const BIDS = [80, 90, 100, 110, 120, 130, 140, 150, 160];
let catalog = null;  // the presets' rules (/api/rules)
let last = null;  // the last report drawn, and its hands
let lastHands = [];

/** The sheet saved in this browser: {preset, target, hands}. A sheet kept by an earlier
 * version (its hands alone, a classic game) is read as such. */
function loadSheet() {
  const read = (key, none) => {  // what cannot be read (edited by hand, cut off) is none
    try { return JSON.parse(localStorage.getItem(key) || "null") ?? none; } catch { return none; }
  };
  const saved = read(STORE, null);
  if (saved && Array.isArray(saved.hands) && typeof saved.preset === "string"
      && Number.isInteger(saved.target) && saved.target > 0) return saved;
  const old = read("rebelote-sheet", []);
  return { preset: "classic", target: 1000, hands: Array.isArray(old) ? old : [] };
}
const sheet = loadSheet();
function save() {
  localStorage.setItem(STORE, JSON.stringify(sheet));
  localStorage.removeItem("rebelote-sheet");  // the earlier version's, now read
}
const rules = () => catalog.presets[sheet.preset];
const auction = () => rules().game === "auction";

const option = (value, text) => Object.assign(document.createElement("option"), { value, textContent: text });
/** `select`'s options replaced, keeping its value where it is still offered. */
function fill(select, options) {
  const value = select.value;
  select.replaceChildren(...options.map(([v, text]) => option(v, text)));
  if (options.some(([v]) => String(v) === value)) select.value = value;
}
/** The suit of the contract, in words for SA and TA. */
const suitText = (suit) => (suit === "SA" ? t("web_no_trumps") : suit === "TA" ? t("web_all_trumps") : SYMBOL[suit]);
/** "coinché ×2" or "contra ×2" (acorralada), as the table says it. */
function doubleText(double, scoring) {
  if (double === 2) return scoring === "acorralada" ? t("web_contrad") : t("web_coinched");
  return scoring === "acorralada" ? t("web_recontrad", { n: double }) : t("web_surcoinched", { n: double });
}

/** The form as the sheet's rules call for: the contract (value, trump, coinche) in auction
 * games, the announcements only where they score, a belote for each side in tout atout
 * and none in sans atout. */
function drawForm() {
  const r = rules();
  fill($("preset"), Object.entries(catalog.presets).filter(([, p]) => p.players !== 3)
    .map(([name]) => [name, t(`preset_${name}`)]));
  $("preset").value = sheet.preset;
  $("target").value = sheet.target;
  for (const el of document.querySelectorAll(".auction")) el.hidden = !auction();
  for (const el of document.querySelectorAll(".announcements")) el.hidden = !r.announcements;
  fill($("bid"), [...BIDS.map((b) => [b, String(b)]), ["capot", `${t("web_capot_bid")} (${r.capot_bid_value})`]]);
  const suits = ["S", "H", "D", "C", ...(r.auction_no_trump ? ["SA"] : []), ...(r.auction_all_trump ? ["TA"] : [])];
  fill($("suit"), suits.map((s) => [s, suitText(s)]));
  fill($("double"), [[1, t("val_false")], [2, doubleText(2, r.auction_scoring)],
    [r.surcoinche_multiplier, doubleText(r.surcoinche_multiplier, r.auction_scoring)]]);
  drawBelote();
}
function drawBelote() {
  const suit = auction() ? $("suit").value : null;
  const both = suit === "TA" || (!auction() && rules().round2_all_trump);
  $("belote").closest("label").hidden = suit === "SA";  // no king and queen of trump
  fill($("belote"), [["", t("val_none")], ["0", t("us")], ["1", t("them")], ...(both ? [["both", t("calc_belote_both")]] : [])]);
}

function entry() {
  const hand = { taker: Number($("taker").value), announce: {}, belote: [] };
  if ($("capot").value !== "") hand.capot = Number($("capot").value);
  else hand.points = Number($("points").value);
  if (rules().announcements) {
    if (Number($("ann0").value)) hand.announce["0"] = Number($("ann0").value);
    if (Number($("ann1").value)) hand.announce["1"] = Number($("ann1").value);
  }
  if (auction()) {
    hand.bid = $("bid").value === "capot" ? "capot" : Number($("bid").value);
    hand.suit = $("suit").value;
    hand.double = Number($("double").value);
  }
  const belote = $("belote").closest("label").hidden ? "" : $("belote").value;
  if (belote === "both") hand.belote.push(0, 1);
  else if (belote !== "") hand.belote.push(Number(belote));
  return hand;
}

async function compute(list) {
  const res = await fetch(`/api/score/game?lang=${encodeURIComponent(lang)}`, { method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ rules: { preset: sheet.preset, target: sheet.target }, hands: list }) });
  const body = await res.json();
  if (!res.ok) throw new Error(body.error);
  return body;
}

/** Who took and, in an auction game, the contract: "Them · 110 ♥ coinché ×2". */
function takenText(h) {
  let text = t(h.taker === 0 ? "us" : "them");
  if (h.bid !== undefined) {
    text += ` · ${h.bid === "capot" ? t("web_capot_bid") : h.bid} ${suitText(h.suit)}`;
    if (h.double > 1) text += ` ${doubleText(h.double, rules().auction_scoring)}`;
  }
  return text;
}

function render(report, hands) {
  $("sheet").tBodies[0].replaceChildren(...report.hands.map((h, i) => {
    const tr = document.createElement("tr");
    const outcome = h.outcome === "litige" ? t("web_litige") : t(h.outcome);
    for (const cell of [i + 1, takenText(hands[i]), outcome, h.scored[0], h.scored[1], h.totals[0],
                        h.totals[1], h.reserve || ""]) {
      const td = document.createElement("td");
      td.textContent = cell;
      tr.append(td);
    }
    return tr;
  }));
  $("winner").textContent = report.winner === null ? "" :
    (report.winner === 0 ? t("calc_we_win") : t("calc_they_win"));
}

async function refresh(list) {
  try {
    last = await compute(list);
    lastHands = list;
    render(last, list);
    $("error").textContent = "";
    return true;
  } catch (err) {
    $("error").textContent = err.message;
    return false;
  }
}

$("calc-hand").onsubmit = async (event) => {
  event.preventDefault();
  const list = [...sheet.hands, entry()];
  if (await refresh(list)) {  // the server refused nothing: keep the hand
    sheet.hands.push(list[list.length - 1]);
    save();
  }
};
$("undo").onclick = () => {
  sheet.hands.pop();
  save();
  refresh(sheet.hands);
};
/** A new game: the hands cleared (asked first when there are any), these rules kept. */
function newSheet(preset) {
  if (sheet.hands.length && !confirm(t("calc_new_confirm"))) return false;
  sheet.preset = preset;
  sheet.target = catalog.presets[preset].target || sheet.target;
  sheet.hands = [];
  save();
  drawForm();
  refresh(sheet.hands);
  return true;
}
$("new-sheet").onclick = () => newSheet(sheet.preset);
// Other rules are another game: its hands would not score under them.
$("preset").onchange = () => { if (!newSheet($("preset").value)) $("preset").value = sheet.preset; };
$("target").onchange = () => {
  if (!$("target").checkValidity() || !$("target").value) { $("target").value = sheet.target; return; }
  sheet.target = Number($("target").value);
  save();
  refresh(sheet.hands);
};
$("suit").onchange = drawBelote;
$("lang").onchange = async () => { await loadTexts($("lang").value); drawForm(); if (last) render(last, lastHands); };
(async () => {
  await loadTexts();
  $("lang").value = lang;
  catalog = await (await fetch("/api/rules")).json();
  if (!catalog.presets[sheet.preset] || catalog.presets[sheet.preset].players === 3) sheet.preset = "classic";
  drawForm();
  refresh(sheet.hands);
})();
