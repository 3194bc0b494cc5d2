// Drawing a card, in the chosen deck style: a picture (svg-cards, LGPL, static/cards) or
// the deck's own letters and suits (rebelote.decks, through the text catalog).
import { cardLabel, cardSpoken, textStyle } from "./texts.js";

const PICTURE = { S: "spade", H: "heart", D: "diamond", C: "club" };
const PICTURE_RANK = { A: "1", J: "jack", Q: "queen", K: "king" };
export const suitOf = (card) => card.slice(-1);
export const rankOf = (card) => card.slice(0, -1);
export const label = (card, deck) => cardLabel(card, textStyle(deck));
/** What a screen reader says for a card: its name in words ("roi de cœur"). */
export const spoken = (card, deck) => cardSpoken(card, deck);

export function cardFace(card, deck) {
  const el = document.createElement("span");
  el.className = "card";
  el.dataset.card = card;
  if ("HD".includes(suitOf(card)) && deck !== "german" && deck !== "spanish") el.classList.add("red");
  if (deck === "pictures") {
    const ns = "http://www.w3.org/2000/svg";
    const svg = document.createElementNS(ns, "svg");
    svg.setAttribute("viewBox", "0 0 169.075 244.64");
    svg.setAttribute("class", "card-picture");
    svg.setAttribute("aria-hidden", "true");
    const use = document.createElementNS(ns, "use");
    use.setAttribute("href", `/static/cards/svg-cards.svg#${PICTURE[suitOf(card)]}_${PICTURE_RANK[rankOf(card)] || rankOf(card)}`);
    svg.append(use);
    el.append(svg);
  } else {
    const txt = label(card, deck);
    const rank = document.createElement("b");
    rank.textContent = txt.startsWith("10") ? "10" : [...txt][0];
    const suit = document.createElement("i");
    suit.textContent = txt.slice(rank.textContent.length);
    el.append(rank, suit);
    el.classList.add("text-card");
  }
  el.setAttribute("role", "img");
  el.setAttribute("aria-label", spoken(card, deck));
  return el;
}
