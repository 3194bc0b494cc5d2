// The statistics page: the player's own figures and the ratings board.
import { loadTexts, t, lang, botName } from "/static/texts.js";
const row = (cells) => {
  const tr = document.createElement("tr");
  cells.forEach((c, i) => { const td = document.createElement(i ? "td" : "th"); td.textContent = c; tr.append(td); });
  return tr;
};
const name = (p) => (p.startsWith("bot:") ? botName(p.slice(4)) : p);
/** A number as the reader writes it ("23,4" in French), "—" for none. */
const num = (x, digits = 1) => (x === null || x === undefined ? "—"
  : new Intl.NumberFormat(lang, { maximumFractionDigits: digits }).format(x));
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
      row([t("web_wins") + " %", s.win_rate === null ? "—"
        : new Intl.NumberFormat(lang, { style: "percent" }).format(s.win_rate)]),
      row([t("web_hands"), s.hands]), row([t("web_taken"), s.contracts_taken]),
      row([t("web_made_n"), s.contracts_made]),
      row([t("web_average"), num(s.average_points)]),
      row([t("web_rating"), s.rating ? num(s.rating.ordinal) : "—"]));
  }
  const board = await (await fetch("/api/ratings")).json();
  instead("board-note", "board", board.length ? "" : t("web_ratings_none"));
  document.querySelector("#board tbody").replaceChildren(
    ...board.map((r, i) => row([String(i + 1), name(r.player), num(r.ordinal),
      `${num(r.mu)} ± ${num(r.sigma)}`])));
}
document.getElementById("lang").onchange = async (e) => { await loadTexts(e.target.value); show(); };
(async () => { await loadTexts(); document.getElementById("lang").value = lang; show(); })();
