// The statistics page: the player's own figures and the ratings board.
import { loadTexts, t, lang, botName } from "/static/texts.js";
const row = (cells) => {
  const tr = document.createElement("tr");
  cells.forEach((c, i) => { const td = document.createElement(i ? "td" : "th"); td.textContent = c; tr.append(td); });
  return tr;
};
const name = (p) => (p.startsWith("bot:") ? botName(p.slice(4)) : p);
/** A line in place of an empty table (`text` empty: the table shown). */
function instead(noteId, tableId, text) {
  const note = document.getElementById(noteId);
  note.textContent = text;
  note.hidden = !text;
  document.getElementById(tableId).hidden = Boolean(text);
}
async function show() {
  // who is asking first (always answered: a visitor's page logs no failed request)
  const { player } = await (await fetch("/api/session")).json();
  instead("mine-note", "mine", player ? "" : t("web_stats_signin"));
  const me = player ? await fetch("/api/stats") : null;
  if (me && me.ok) {
    const s = await me.json();
    instead("mine-note", "mine", s.games ? "" : t("web_stats_no_games"));
    document.querySelector("#mine tbody").replaceChildren(
      row([t("web_games"), s.games]), row([t("web_wins"), s.wins]),
      row([t("web_wins") + " %", s.win_rate === null ? "—" : Math.round(s.win_rate * 100) + " %"]),
      row([t("web_hands"), s.hands]), row([t("web_taken"), s.contracts_taken]),
      row([t("web_made_n"), s.contracts_made]),
      row([t("web_average"), s.average_points ?? "—"]),
      row([t("web_rating"), s.rating ? s.rating.ordinal : "—"]));
  }
  const board = await (await fetch("/api/ratings")).json();
  instead("board-note", "board", board.length ? "" : t("web_ratings_none"));
  document.querySelector("#board tbody").replaceChildren(
    ...board.map((r) => row([name(r.player), r.ordinal, r.mu, r.sigma])));
}
document.getElementById("lang").onchange = async (e) => { await loadTexts(e.target.value); show(); };
(async () => { await loadTexts(); document.getElementById("lang").value = lang; show(); })();
