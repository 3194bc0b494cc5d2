// The statistics page: the player's own figures and the ratings board.
import { loadTexts, t, lang, botName } from "/static/texts.js";
const row = (cells) => {
  const tr = document.createElement("tr");
  cells.forEach((c, i) => { const td = document.createElement(i ? "td" : "th"); td.textContent = c; tr.append(td); });
  return tr;
};
const name = (p) => (p.startsWith("bot:") ? botName(p.slice(4)) : p);
async function show() {
  const me = await fetch("/api/stats");
  if (me.ok) {
    const s = await me.json();
    document.querySelector("#mine tbody").replaceChildren(
      row([t("web_games"), s.games]), row([t("web_wins"), s.wins]),
      row([t("web_wins") + " %", s.win_rate === null ? "—" : Math.round(s.win_rate * 100) + " %"]),
      row([t("web_hands"), s.hands]), row([t("web_taken"), s.contracts_taken]),
      row([t("web_made_n"), s.contracts_made]),
      row([t("web_average"), s.average_points ?? "—"]),
      row([t("web_rating"), s.rating ? s.rating.ordinal : "—"]));
  }
  const board = await (await fetch("/api/ratings")).json();
  document.querySelector("#board tbody").replaceChildren(
    ...board.map((r) => row([name(r.player), r.ordinal, r.mu, r.sigma])));
}
document.getElementById("lang").onchange = async (e) => { await loadTexts(e.target.value); show(); };
(async () => { await loadTexts(); document.getElementById("lang").value = lang; show(); })();
