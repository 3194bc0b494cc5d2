// The page only renders what the server's calculator (the code of `rebelote score`)
// computes from the hands entered.
import { loadTexts, t, lang } from "./texts.js";

const $ = (id) => document.getElementById(id);
const hands = JSON.parse(localStorage.getItem("rebelote-sheet") || "[]");

function entry() {
  const hand = { taker: Number($("taker").value), announce: {}, belote: [] };
  if ($("capot").value !== "") hand.capot = Number($("capot").value);
  else hand.points = Number($("points").value);
  if (Number($("ann0").value)) hand.announce["0"] = Number($("ann0").value);
  if (Number($("ann1").value)) hand.announce["1"] = Number($("ann1").value);
  if ($("belote").value !== "") hand.belote.push(Number($("belote").value));
  return hand;
}

async function compute(list) {
  const res = await fetch(`/api/score/game?lang=${encodeURIComponent(lang)}`, { method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ rules: { preset: $("preset").value, target: Number($("target").value) },
                           hands: list }) });
  const body = await res.json();
  if (!res.ok) throw new Error(body.error);
  return body;
}

function render(report) {
  $("sheet").tBodies[0].replaceChildren(...report.hands.map((h, i) => {
    const tr = document.createElement("tr");
    for (const cell of [i + 1, h.outcome === "litige" ? t("web_litige") : t(h.outcome), h.scored[0], h.scored[1], h.totals[0], h.totals[1],
                        h.reserve || ""]) {
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
    render(last);
    $("error").textContent = "";
    return true;
  } catch (err) {
    $("error").textContent = err.message;
    return false;
  }
}

$("calc-hand").onsubmit = async (event) => {
  event.preventDefault();
  const list = [...hands, entry()];
  if (await refresh(list)) {  // the server refused nothing: keep the hand
    hands.push(list[list.length - 1]);
    localStorage.setItem("rebelote-sheet", JSON.stringify(hands));
  }
};
$("undo").onclick = () => {
  hands.pop();
  localStorage.setItem("rebelote-sheet", JSON.stringify(hands));
  refresh(hands);
};
let last = null;
$("lang").onchange = async () => { await loadTexts($("lang").value); if (last) render(last); };
(async () => {
  await loadTexts();
  $("lang").value = lang;
  refresh(hands);
})();
