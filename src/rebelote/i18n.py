"""User-interface text in French, English and Spanish.

The game's own words (atout, belote, rebelote, dix de der, capot, litige) stay French in
every language, as players say them.
"""

from __future__ import annotations

from typing import Final

LANGS: Final = ("en", "fr", "es")

_TEXT: Final[dict[str, dict[str, str]]] = {
    "us": {"en": "Us", "fr": "Nous", "es": "Nosotros"},
    "them": {"en": "Them", "fr": "Eux", "es": "Ellos"},
    "hand": {"en": "Hand", "fr": "Donne", "es": "Mano"},
    "taker": {"en": "Taker", "fr": "Preneur", "es": "Toma"},
    "outcome": {"en": "Outcome", "fr": "Résultat", "es": "Resultado"},
    "reserve": {"en": "Litige reserve", "fr": "Réserve (litige)", "es": "Reserva (litige)"},
    "total": {"en": "Total", "fr": "Total", "es": "Total"},
    "made": {"en": "made", "fr": "fait", "es": "cumplido"},
    "failed": {"en": "failed (dedans)", "fr": "dedans", "es": "fallado (dedans)"},
    "litige": {"en": "litige", "fr": "litige", "es": "litige"},
    "sheet_title": {"en": "Score sheet — {preset}, to {target}",
                    "fr": "Feuille de marque — {preset}, en {target}",
                    "es": "Hoja de puntos — {preset}, a {target}"},
    "choose_preset": {"en": "Rules", "fr": "Règles", "es": "Reglas"},
    "choose_target": {"en": "Target (500, 501, 700, 701, 1000, 1500, 2000 or any)",
                      "fr": "Objectif (500, 501, 700, 701, 1000, 1500, 2000 ou autre)",
                      "es": "Objetivo (500, 501, 700, 701, 1000, 1500, 2000 u otro)"},
    "resume": {"en": "Resume the saved game ({hands} hands)?",
               "fr": "Reprendre la partie enregistrée ({hands} donnes) ?",
               "es": "¿Continuar la partida guardada ({hands} manos)?"},
    "menu": {"en": "[n]ew hand, [u]ndo last, [f]ix a hand, [q]uit",
             "fr": "[n]ouvelle donne, [u] annuler la dernière, [f] corriger une donne, [q]uitter",
             "es": "[n]ueva mano, [u] deshacer la última, [f] corregir una mano, [q] salir"},
    "who_took": {"en": "Who took? 0 = us, 1 = them", "fr": "Qui a pris ? 0 = nous, 1 = eux",
                 "es": "¿Quién tomó? 0 = nosotros, 1 = ellos"},
    "bid": {"en": "Bid (80 to 160 by tens, or capot)",
            "fr": "Contrat (80 à 160 par dizaines, ou capot)",
            "es": "Contrato (80 a 160 de diez en diez, o capot)"},
    "suit": {"en": "Suit", "fr": "Couleur", "es": "Palo"},
    "double": {"en": "Coinche? 1 = no, 2 = coinche, 4 = surcoinche",
               "fr": "Coinche ? 1 = non, 2 = coinche, 4 = surcoinche",
               "es": "¿Coinche? 1 = no, 2 = coinche, 4 = surcoinche"},
    "capot": {"en": "Capot? n = no, 0 = by us, 1 = by them",
              "fr": "Capot ? n = non, 0 = par nous, 1 = par eux",
              "es": "¿Capot? n = no, 0 = nosotros, 1 = ellos"},
    "points": {"en": "Our card points, dix de der included (0-162)",
               "fr": "Nos points de plis, dix de der compris (0-162)",
               "es": "Nuestros puntos de bazas, dix de der incluido (0-162)"},
    "ann_team": {"en": "Announcements that scored: n = none, 0 = ours, 1 = theirs",
                 "fr": "Annonces gagnantes : n = aucune, 0 = les nôtres, 1 = les leurs",
                 "es": "Cantes que puntúan: n = ninguno, 0 = nuestros, 1 = suyos"},
    "ann_points": {"en": "Their total (20, 50, 100, ...)", "fr": "Leur total (20, 50, 100, ...)",
                   "es": "Su total (20, 50, 100, ...)"},
    "belote": {"en": "Belote-rebelote: n = none, 0 = us, 1 = them, b = both",
               "fr": "Belote-rebelote : n = aucune, 0 = nous, 1 = eux, b = les deux",
               "es": "Belote-rebelote: n = ninguna, 0 = nosotros, 1 = ellos, b = ambos"},
    "fix_which": {"en": "Fix which hand?", "fr": "Corriger quelle donne ?",
                  "es": "¿Corregir qué mano?"},
    "saved": {"en": "Saved to {path}", "fr": "Enregistré dans {path}", "es": "Guardado en {path}"},
    "winner": {"en": "{team} win the game, {a} to {b}!",
               "fr": "{team} gagnent la partie, {a} à {b} !",
               "es": "¡{team} ganan la partida, {a} a {b}!"},
    "new_game": {"en": "Start a new game?", "fr": "Nouvelle partie ?", "es": "¿Nueva partida?"},
    "undone": {"en": "Hand {n} removed", "fr": "Donne {n} annulée", "es": "Mano {n} anulada"},
    "error": {"en": "Not possible: {why}", "fr": "Impossible : {why}", "es": "Imposible: {why}"},
    "bye": {"en": "The sheet is saved; `rebelote score` resumes it.",
            "fr": "La feuille est enregistrée ; `rebelote score` la reprend.",
            "es": "La hoja está guardada; `rebelote score` la retoma."},
    "invalid_number": {"en": "enter a whole number", "fr": "entrez un nombre entier",
                       "es": "escriba un número entero"},
}


def tr(key: str, lang: str = "en", **values: object) -> str:
    """The text ``key`` in ``lang`` (English if missing), with ``values`` filled in."""
    entry = _TEXT[key]
    return entry.get(lang, entry["en"]).format(**values)
