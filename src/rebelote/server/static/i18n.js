"use strict";
// Interface texts in English, French and Spanish. The game's own words (atout, belote,
// rebelote, dix de der, capot, litige, coinche) stay French in every language.
const TEXTS = {
  en: {
    nickname: "Nickname", guest: "Play as a guest", newTable: "New table", rules: "Rules", moreRules: "More rules",
    target: "Target", bots: "Bots", timer: "Turn timer", private: "private (invite link)",
    wait: "wait for friends before bots", create: "Create the table", open: "Open tables",
    watch: "watch", free: "free seats", waiting: "Waiting for players…", totals: "totals",
    trump: "atout", yourTurn: "your turn", wins: "wins", deals: "deals", took: "took",
    hint: "Hint (h)", record: "download the record", replay: "replay the hands",
    invite: "Invite link:", fill: "Bots take the free seats", cards: "Cards",
    calculator: "score calculator", hand: "hand", team: "team", reserve: "reserve",
    retourne: "retourne", pass: "pass", take: "take",
    lastTrick: "Last trick (l)", noTrick: "no trick played yet in this hand", wonBy: "won by",
  },
  fr: {
    nickname: "Pseudo", guest: "Jouer en invité", newTable: "Nouvelle table", rules: "Règles", moreRules: "Plus de règles",
    target: "Objectif", bots: "Robots", timer: "Minuteur", private: "privée (lien d'invitation)",
    wait: "attendre des amis avant les robots", create: "Créer la table", open: "Tables ouvertes",
    watch: "regarder", free: "places libres", waiting: "En attente de joueurs…", totals: "totaux",
    trump: "atout", yourTurn: "à vous", wins: "gagne", deals: "donne", took: "a pris",
    hint: "Conseil (h)", record: "télécharger la partie", replay: "revoir les donnes",
    invite: "Lien d'invitation :", fill: "Les robots prennent les places libres", cards: "Cartes",
    calculator: "calculette", hand: "donne", team: "équipe", reserve: "réserve",
    retourne: "retourne", pass: "passe", take: "je prends",
    lastTrick: "Dernier pli (l)", noTrick: "pas encore de pli dans cette donne", wonBy: "pris par",
  },
  es: {
    nickname: "Apodo", guest: "Jugar como invitado", newTable: "Nueva mesa", rules: "Reglas", moreRules: "Más reglas",
    target: "Objetivo", bots: "Bots", timer: "Temporizador", private: "privada (enlace)",
    wait: "esperar a amigos antes de los bots", create: "Crear la mesa", open: "Mesas abiertas",
    watch: "mirar", free: "plazas libres", waiting: "Esperando jugadores…", totals: "totales",
    trump: "atout", yourTurn: "le toca", wins: "gana", deals: "reparte", took: "tomó",
    hint: "Consejo (h)", record: "descargar la partida", replay: "ver las manos",
    invite: "Enlace de invitación:", fill: "Los bots ocupan las plazas libres", cards: "Cartas",
    calculator: "calculadora", hand: "mano", team: "equipo", reserve: "reserva",
    retourne: "retourne", pass: "paso", take: "tomo (je prends)",
    lastTrick: "Última baza (l)", noTrick: "todavía ninguna baza en esta mano", wonBy: "ganada por",
  },
};
// Why the engine refused an action, by the rule it names (as rebelote.i18n).
const REASONS = {
  en: {
    "must follow suit": "you must follow suit", "must overtrump": "you must play a higher trump",
    "must trump": "an opponent is master: you must trump (atout)",
    "must undertrump": "you cannot overtrump but must still play a trump (pisser)",
    "card not in hand": "you do not hold that card",
  },
  fr: {
    "must follow suit": "il faut fournir la couleur demandée",
    "must overtrump": "il faut monter à l'atout",
    "must trump": "l'adversaire est maître : il faut couper",
    "must undertrump": "vous ne pouvez pas surcouper mais devez pisser",
    "card not in hand": "vous n'avez pas cette carte",
  },
  es: {
    "must follow suit": "hay que asistir al palo", "must overtrump": "hay que montar con triunfo",
    "must trump": "el rival es maestro: hay que fallar",
    "must undertrump": "no puede montar pero debe jugar triunfo (pisser)",
    "card not in hand": "no tiene esa carta",
  },
};
let lang = localStorage.getItem("rebelote-lang") ||
  (["fr", "es"].includes(navigator.language.slice(0, 2)) ? navigator.language.slice(0, 2) : "en");
const t = (key) => (TEXTS[lang] || TEXTS.en)[key] || TEXTS.en[key] || key;
const reason = (error) => (error.rule && (REASONS[lang] || {})[error.rule]) || error.message;

function translatePage() {
  document.documentElement.lang = lang;
  for (const el of document.querySelectorAll("[data-t]")) el.textContent = t(el.dataset.t);
}
