// The one text catalog (rebelote.i18n), fetched from the server: no text lives here.
export let lang = localStorage.getItem("rebelote-lang") ||
  (["fr", "es"].includes((navigator.language || "en").slice(0, 2)) ? navigator.language.slice(0, 2) : "en");
let catalog = { texts: {}, reasons: {}, decks: {}, spoken: {} };

export async function loadTexts(chosen) {
  if (chosen) { lang = chosen; localStorage.setItem("rebelote-lang", lang); }
  catalog = await (await fetch(`/api/texts?lang=${lang}`)).json();
  document.documentElement.lang = lang;
  for (const el of document.querySelectorAll("[data-t]")) el.textContent = t(el.dataset.t);
  for (const el of document.querySelectorAll("[data-t-label]")) el.setAttribute("aria-label", t(el.dataset.tLabel));
  for (const el of document.querySelectorAll("[data-t-placeholder]")) el.placeholder = t(el.dataset.tPlaceholder);
  for (const el of document.querySelectorAll("[data-t-empty]")) el.dataset.empty = t(el.dataset.tEmpty);  // shown while empty (CSS)
}

/** The text `key`, with {name} slots filled from `values`. */
export function t(key, values = {}) {
  const text = catalog.texts[key] ?? key;
  return text.replace(/\{(\w+)\}/g, (_, k) => (k in values ? values[k] : `{${k}}`));
}

/** A bot level's name: "expert bot", or for expert:500 "expert bot, 0.5 s a card"
 * (``short``: "expert bot · 0.5 s", for a seat's caption). */
export function botName(level, short = false) {
  const [name, ms] = String(level).split(":");
  if (!ms) return t(`bot_${name}`);
  const s = String(Number(ms) / 1000);
  return t(short ? "bot_expert_budget_short" : "bot_expert_budget", { s: lang === "en" ? s : s.replace(".", ",") });
}

/** Why the engine refused an action, in the reader's language. */
export const reason = (error) => (error.rule && catalog.reasons[error.rule]) || error.message;

/** A card's short label in a deck style (rebelote.decks), e.g. R♥, K♥, R🏆. */
export const cardLabel = (card, style) => (catalog.decks[style] || catalog.decks.international || {})[card] || card;

/** The letters a deck's cards are written with in text (the picture cards: the reader's,
 * V/D/R in French, J/Q/K otherwise; a French player read "J♥" in the bubbles and the summary). */
export const textStyle = (deck) => (deck === "pictures" ? (lang === "fr" ? "french" : "international") : deck);

/** A card's spoken name in a deck (rebelote.i18n), for ARIA labels: "roi de cœur". */
export const cardSpoken = (card, deck) => ((catalog.spoken || {})[deck] || {})[card] ||
  cardLabel(card, textStyle(deck));

/** The suits' and the no-trump / all-trump contracts' signs. */
export const SYMBOL = { S: "♠", H: "♥", D: "♦", C: "♣", SA: "SA", TA: "TA" };

/** A call in words ("pass", "110 ♠", "contra" in acorralada's `scoring`). */
export function callText(call, scoring) {
  if (call === "pass") return t("pass");
  if (call === "take") return t("take");
  if (call === "coinche") return scoring === "acorralada" ? t("web_contra") : t("coinche");
  if (call === "surcoinche") return scoring === "acorralada" ? t("web_recontra") : t("surcoinche");
  const m = call.match(/^(\d+|capot)(SA|TA|[SHDC])$/);
  if (m) return `${m[1] === "capot" ? t("web_capot_bid") : m[1]} ${SYMBOL[m[2]]}`;
  return SYMBOL[call] || call;
}

/** A call as its button in the bidding box says it: "take ♠" (the `retourne`'s suit)
 * rather than "take (je prends)"; "take SA (no trumps)". */
export function callLabel(call, scoring, retourne) {
  if (call === "take" && retourne) return t("web_take_suit", { suit: SYMBOL[retourne.slice(-1)] });
  if (call === "SA" || call === "TA") return t("web_take_suit", { suit: t(call === "SA" ? "web_no_trumps" : "web_all_trumps") });
  if (call in SYMBOL) return t("web_take_suit", { suit: SYMBOL[call] });
  return callText(call, scoring);
}

/** `text` with a capital first letter in the reader's language ("you: …" opening a line). */
export const capitalized = (text) => text.charAt(0).toLocaleUpperCase(lang) + text.slice(1);

/** A rule option's value in words. */
export function valueText(value) {
  const key = `val_${String(value)}`;
  return key in catalog.texts ? catalog.texts[key] : String(value);
}
export const has = (key) => key in catalog.texts;
