"""User-interface text in French, English and Spanish.

The game's own words (atout, belote, rebelote, dix de der, capot, litige) stay French in
every language, as players say them.
"""

from __future__ import annotations

from typing import Final

from rebelote.i18n_web import WEB_TEXT

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
    # -- the terminal game --
    "void": {"en": "void (all passed)", "fr": "donne annulée", "es": "mano anulada"},
    "sheet": {"en": "Score sheet", "fr": "Feuille de marque", "es": "Hoja de puntos"},
    "contract": {"en": "Contract", "fr": "Contrat", "es": "Contrato"},
    "setup_title": {"en": "New game", "fr": "Nouvelle partie", "es": "Nueva partida"},
    "rules": {"en": "Rules", "fr": "Règles", "es": "Reglas"},
    "target": {"en": "Target", "fr": "Objectif", "es": "Objetivo"},
    "preset_target": {"en": "the preset's", "fr": "celui des règles", "es": "el de las reglas"},
    "announcements": {"en": "Announcements", "fr": "Annonces", "es": "Cantes"},
    "preset_choice": {"en": "as the rules say", "fr": "selon les règles",
                      "es": "según las reglas"},
    "on": {"en": "on", "fr": "oui", "es": "sí"},
    "off": {"en": "off", "fr": "non", "es": "no"},
    "direction": {"en": "Direction", "fr": "Sens du jeu", "es": "Sentido"},
    "counterclockwise": {"en": "counterclockwise", "fr": "sens inverse des aiguilles",
                         "es": "antihorario"},
    "clockwise": {"en": "clockwise", "fr": "sens des aiguilles", "es": "horario"},
    "bot_level": {"en": "Bots", "fr": "Robots", "es": "Bots"},
    "start": {"en": "Start", "fr": "Commencer", "es": "Empezar"},
    "game_winner": {"en": "{team} win the game ({score})! q: quit",
                    "fr": "{team} gagnent la partie ({score}) ! q : quitter",
                    "es": "¡{team} ganan la partida ({score})! q: salir"},
    "next_hand": {"en": "n: next hand, s: score sheet", "fr": "n : donne suivante, "
                  "s : feuille de marque", "es": "n: mano siguiente, s: hoja de puntos"},
    "your_turn_call": {"en": "Your turn to speak: choose with ↑↓ and Enter",
                       "fr": "À vous de parler : ↑↓ puis Entrée",
                       "es": "Le toca hablar: ↑↓ y Intro"},
    "your_turn_play": {"en": "Your turn: a card number (1-8), ←→ and Enter, or click",
                       "fr": "À vous : numéro de carte (1-8), ←→ et Entrée, ou clic",
                       "es": "Le toca: número de carta (1-8), ←→ e Intro, o clic"},
    "dealer": {"en": "deals", "fr": "donneur", "es": "reparte"},
    "table": {"en": "table", "fr": "table", "es": "mesa"},
    "last_trick": {"en": "Last trick", "fr": "Dernier pli", "es": "Última baza"},
    "retourne": {"en": "retourne", "fr": "retourne", "es": "retourne"},
    "north": {"en": "North", "fr": "Nord", "es": "Norte"},
    "south": {"en": "You", "fr": "Vous", "es": "Usted"},
    "west": {"en": "West", "fr": "Ouest", "es": "Oeste"},
    "east": {"en": "East", "fr": "Est", "es": "Este"},
    "pass": {"en": "pass", "fr": "passe", "es": "paso"},
    "take": {"en": "take (je prends)", "fr": "je prends", "es": "tomo (je prends)"},
    "coinche": {"en": "coinche", "fr": "coinche", "es": "coinche (contra)"},
    "surcoinche": {"en": "surcoinche", "fr": "surcoinche", "es": "surcoinche (recontra)"},
    "hint": {"en": "Hint", "fr": "Conseil", "es": "Consejo"},
    "expected_points": {"en": "expected points", "fr": "points espérés",
                        "es": "puntos esperados"},
    "strength": {"en": "strength", "fr": "force", "es": "fuerza"},
    "expected_score": {"en": "expected score", "fr": "score espéré",
                       "es": "puntuación esperada"},
    "chance_made": {"en": "% made", "fr": "% de réussite", "es": "% de éxito"},
    "speed": {"en": "speed {n}/5", "fr": "vitesse {n}/5", "es": "velocidad {n}/5"},
    "no_hint": {"en": "no hint here: the hidden cards cannot be sampled",
                "fr": "pas de conseil ici : les cartes cachées ne peuvent être tirées",
                "es": "sin consejo aquí: no se pueden muestrear las cartas ocultas"},
    "key_confirm": {"en": "play / call", "fr": "jouer / parler", "es": "jugar / hablar"},
    "key_hint": {"en": "hint", "fr": "conseil", "es": "consejo"},
    "key_last": {"en": "last trick", "fr": "dernier pli", "es": "última baza"},
    "key_sheet": {"en": "score sheet", "fr": "feuille", "es": "hoja"},
    "key_faster": {"en": "faster", "fr": "plus vite", "es": "más rápido"},
    "key_slower": {"en": "slower", "fr": "plus lent", "es": "más lento"},
    "key_quit": {"en": "quit", "fr": "quitter", "es": "salir"},
    **WEB_TEXT,  # the web card room's texts (rebelote.i18n_web)
}

_REASONS: Final[dict[str, dict[str, str]]] = {
    "must follow suit": {"en": "you must follow suit", "fr": "il faut fournir la couleur "
                         "demandée", "es": "hay que asistir al palo"},
    "must overtrump": {"en": "you must play a higher trump", "fr": "il faut monter à l'atout",
                       "es": "hay que montar con un triunfo mayor"},
    "must trump": {"en": "you cannot follow and an opponent is master: you must trump (atout)",
                   "fr": "vous ne pouvez pas fournir et l'adversaire est maître : il faut "
                   "couper", "es": "no puede asistir y el rival es maestro: hay que fallar"},
    "must undertrump": {"en": "you cannot overtrump but must still play a trump (pisser)",
                        "fr": "vous ne pouvez pas surcouper mais devez pisser (sous-couper)",
                        "es": "no puede montar pero debe jugar triunfo (pisser)"},
    "card not in hand": {"en": "you do not hold that card", "fr": "vous n'avez pas cette carte",
                         "es": "no tiene esa carta"},
    "covered card": {"en": "that card is still face down", "fr": "cette carte est encore "
                     "retournée", "es": "esa carta sigue boca abajo"},
    "turn order": {"en": "it is not your turn", "fr": "ce n'est pas votre tour",
                   "es": "no es su turno"},
    "bid higher than the last": {"en": "bid higher than the last bid", "fr": "il faut "
                                 "annoncer plus haut", "es": "hay que subir la apuesta"},
    "coinche by the opponents": {"en": "only the opponents may coinche",
                                 "fr": "seuls les adversaires peuvent coincher",
                                 "es": "solo los rivales pueden hacer coinche"},
    "surcoinche after a coinche": {"en": "surcoinche answers a coinche", "fr": "on ne "
                                   "surcoinche qu'après une coinche",
                                   "es": "surcoinche responde a un coinche"},
    "auction frozen": {"en": "a coinche has frozen the auction", "fr": "la coinche a figé "
                       "les enchères", "es": "el coinche cerró la subasta"},
    "round 2 names another suit": {"en": "in round 2 name a suit other than the retourne's",
                                   "fr": "au 2e tour, nommez une autre couleur que la "
                                   "retourne", "es": "en la 2.ª vuelta nombre otro palo"},
}


def reason(rule: str, fallback: str, lang: str = "en") -> str:
    """Why an action was refused, in ``lang`` (the engine's sentence if not translated)."""
    entry = _REASONS.get(rule)
    if entry is None:
        return fallback
    return entry.get(lang, entry["en"])


def tr(key: str, lang: str = "en", **values: object) -> str:
    """The text ``key`` in ``lang`` (English if missing), with ``values`` filled in."""
    entry = _TEXT[key]
    return entry.get(lang, entry["en"]).format(**values)


def catalog(lang: str = "en") -> dict[str, dict[str, str]]:
    """Every text and refusal reason in ``lang`` (English where missing): what the web
    client fetches, so that its texts are this catalog's."""
    if lang not in LANGS:
        lang = "en"
    return {"texts": {k: e.get(lang, e["en"]) for k, e in _TEXT.items()},
            "reasons": {k: e.get(lang, e["en"]) for k, e in _REASONS.items()}}
