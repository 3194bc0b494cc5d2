"""User-interface text in French, English and Spanish.

The game's own words (atout, belote, rebelote, dix de der, capot, litige) stay French in
every language, as players say them.
"""

from __future__ import annotations

from typing import Final

from rebelote.i18n_web import WEB_TEXT
from rebelote.scoring import SCORE_ERRORS, ScoreError

LANGS: Final = ("en", "fr", "es")

_TERMINAL_TEXT: Final[dict[str, dict[str, str]]] = {
    # the terminal game's, the pad's and the command line's texts; the web card room's
    # are rebelote.i18n_web's, and no key is in both (a test: one key, one text)
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
    "sheet_title": {"en": "Score sheet — {preset}, {target}",
                    "fr": "Feuille de marque — {preset}, {target}",
                    "es": "Hoja de puntos — {preset}, {target}"},
    "choose_preset": {"en": "Rules", "fr": "Règles", "es": "Reglas"},
    "choose_target": {"en": "Target (500, 501, 700, 701, 1000, 1500, 2000 or any)",
                      "fr": "Objectif (500, 501, 700, 701, 1000, 1500, 2000 ou autre)",
                      "es": "Objetivo (500, 501, 700, 701, 1000, 1500, 2000 u otro)"},
    "resume": {"en": "Resume the saved game ({hands})?",
               "fr": "Reprendre la partie enregistrée ({hands}) ?",
               "es": "¿Continuar la partida guardada ({hands})?"},
    "menu": {"en": "[n]ew hand, [u]ndo last, [f]ix a hand, [q]uit",
             "fr": "[n]ouvelle donne, [u] annuler la dernière, [f] corriger une donne, [q]uitter",
             "es": "[n]ueva mano, [u] deshacer la última, [f] corregir una mano, [q] salir"},
    "who_took": {"en": "Who took? 0 = us, 1 = them", "fr": "Qui a pris ? 0 = nous, 1 = eux",
                 "es": "¿Quién tomó? 0 = nosotros, 1 = ellos"},
    "bid": {"en": "Bid (80 to 160 by tens, or capot)",
            "fr": "Contrat (80 à 160 par dizaines, ou capot)",
            "es": "Contrato (80 a 160 de diez en diez, o capot)"},
    "suit": {"en": "Trump (S ♠ spades, H ♥ hearts, D ♦ diamonds, C ♣ clubs)",
             "fr": "Atout (S ♠ pique, H ♥ cœur, D ♦ carreau, C ♣ trèfle)",
             "es": "Triunfo (S ♠ picas, H ♥ corazones, D ♦ diamantes, C ♣ tréboles)"},
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
    "belote_one": {"en": "Belote-rebelote: n = none, 0 = us, 1 = them",
                   "fr": "Belote-rebelote : n = aucune, 0 = nous, 1 = eux",
                   "es": "Belote-rebelote: n = ninguna, 0 = nosotros, 1 = ellos"},
    "fix_which": {"en": "Fix which hand?", "fr": "Corriger quelle donne ?",
                  "es": "¿Corregir qué mano?"},
    "saved": {"en": "Saved to {path}", "fr": "Enregistré dans {path}", "es": "Guardado en {path}"},
    # The game's end said by who won ("Us win" was said before: each form its own text).
    "we_win": {"en": "We win the game, {a} to {b}!", "fr": "Nous gagnons la partie, {a} à {b} !",
               "es": "¡Ganamos la partida, {a} a {b}!"},
    "they_win": {"en": "They win the game, {a} to {b}.",
                 "fr": "Ils gagnent la partie, {a} à {b}.",
                 "es": "Ellos ganan la partida, {a} a {b}."},
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
    "preset_target": {"en": "the rules' ({n})", "fr": "celui des règles ({n})",
                      "es": "el de las reglas ({n})"},
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
    "game_we_win": {"en": "We win the game ({score})! n: new game · q: quit",
                    "fr": "Nous gagnons la partie ({score}) ! n : nouvelle partie · q : quitter",
                    "es": "¡Ganamos la partida ({score})! n: nueva partida · q: salir"},
    "game_they_win": {"en": "They win the game ({score}). n: new game · q: quit",
                      "fr": "Ils gagnent la partie ({score}). n : nouvelle partie · q : quitter",
                      "es": "Ellos ganan la partida ({score}). n: nueva partida · q: salir"},
    "game_you_win": {"en": "You win the game ({score})! n: new game · q: quit",
                     "fr": "Vous gagnez la partie ({score}) ! n : nouvelle partie · q : quitter",
                     "es": "¡Gana usted la partida ({score})! n: nueva partida · q: salir"},
    "game_player_wins": {"en": "{name} wins the game ({score}). n: new game · q: quit",
                         "fr": "{name} gagne la partie ({score}). "
                               "n : nouvelle partie · q : quitter",
                         "es": "{name} gana la partida ({score}). n: nueva partida · q: salir"},
    "next_hand": {"en": "n or Enter: next hand, s: score sheet",
                  "fr": "n ou Entrée : donne suivante, s : feuille de marque",
                  "es": "n o Intro: mano siguiente, s: hoja de puntos"},
    "your_turn_call": {"en": "Your turn to speak: ↑↓ (PgUp PgDn Home End) and Enter",
                       "fr": "À vous de parler : ↑↓ (Pg préc. Pg suiv. Début Fin) puis Entrée",
                       "es": "Le toca hablar: ↑↓ (RePág AvPág Inicio Fin) e Intro"},
    "your_turn_call_round_2": {
        "en": "Round 2: name a trump other than {suit}, or pass: ↑↓ and Enter",
        "fr": "2e tour : nommez un atout autre que {suit}, ou passez : ↑↓ puis Entrée",
        "es": "2.ª vuelta: elija un triunfo que no sea {suit}, o pase: ↑↓ e Intro"},
    "your_turn_play": {"en": "Your turn: a card's key ({keys}), ←→ and Enter, or click",
                       "fr": "À vous : touche de la carte ({keys}), ←→ et Entrée, ou clic",
                       "es": "Le toca: tecla de la carta ({keys}), ←→ e Intro, o clic"},
    "dealer": {"en": "dealer", "fr": "donneur", "es": "reparte"},
    "table": {"en": "table", "fr": "table", "es": "mesa"},
    "last_trick": {"en": "Last trick", "fr": "Dernier pli", "es": "Última baza"},
    "retourne": {"en": "retourne", "fr": "retourne", "es": "retourne"},
    "north": {"en": "North", "fr": "Nord", "es": "Norte"},
    "south": {"en": "You", "fr": "Vous", "es": "Usted"},
    "west": {"en": "West", "fr": "Ouest", "es": "Oeste"},
    "east": {"en": "East", "fr": "Est", "es": "Este"},
    "pass": {"en": "pass", "fr": "passe", "es": "paso"},
    "take": {"en": "take", "fr": "je prends", "es": "tomo"},
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
    "key_confirm": {"en": "play", "fr": "jouer", "es": "jugar"},
    "key_hint": {"en": "hint", "fr": "conseil", "es": "consejo"},
    "key_last": {"en": "last trick", "fr": "dernier pli", "es": "última baza"},
    "key_sheet": {"en": "sheet", "fr": "feuille", "es": "hoja"},
    "key_faster": {"en": "faster", "fr": "plus vite", "es": "más rápido"},
    "key_slower": {"en": "slower", "fr": "plus lent", "es": "más lento"},
    "key_quit": {"en": "quit", "fr": "quitter", "es": "salir"},
    "key_speed": {"en": "speed", "fr": "vitesse", "es": "velocidad"},
    "key_help": {"en": "help", "fr": "aide", "es": "ayuda"},
    "help_title": {"en": "Keys", "fr": "Touches", "es": "Teclas"},
    "help_card_key": {"en": "play that card (from the left; 9, 0, a, b, c past 8)",
                      "fr": "jouer cette carte (depuis la gauche ; 9, 0, a, b, c après 8)",
                      "es": "jugar esa carta (desde la izquierda; 9, 0, a, b, c tras 8)"},
    "help_choose_card": {"en": "choose a card, then play it (or click it)",
                         "fr": "choisir une carte, puis la jouer (ou cliquer dessus)",
                         "es": "elegir una carta y jugarla (o hacer clic en ella)"},
    "help_choose_call": {"en": "in the auction: choose a call (PgUp PgDn Home End), say it",
                         "fr": "aux enchères : choisir une annonce (Pg préc. Pg suiv. Début "
                               "Fin), la dire",
                         "es": "en la subasta: elegir una voz (RePág AvPág Inicio Fin), "
                               "decirla"},
    "help_hint": {"en": "a hint: what each card or call is worth to the expert bot",
                  "fr": "un conseil : ce que vaut chaque carte ou annonce pour le bot expert",
                  "es": "un consejo: lo que vale cada carta o voz para el bot experto"},
    "help_last": {"en": "show the last trick again (l again: back)",
                  "fr": "revoir le dernier pli (l encore : retour)",
                  "es": "ver otra vez la última baza (l otra vez: volver)"},
    "help_sheet": {"en": "the score sheet: every hand and the totals",
                   "fr": "la feuille de marque : chaque donne et les totaux",
                   "es": "la hoja de puntos: cada mano y los totales"},
    "help_speed": {"en": "the bots play faster or slower",
                   "fr": "les bots jouent plus vite ou plus lentement",
                   "es": "los bots juegan más rápido o más despacio"},
    "help_next": {"en": "the next hand; once the game is over, a new game",
                  "fr": "la donne suivante ; la partie finie, une nouvelle partie",
                  "es": "la mano siguiente; terminada la partida, una nueva"},
    "help_quit": {"en": "save and quit (the setup offers to resume the game next time)",
                  "fr": "enregistrer et quitter (la prochaine fois, la partie est proposée)",
                  "es": "guardar y salir (la próxima vez se ofrece seguir la partida)"},
    "help_help": {"en": "this help", "fr": "cette aide", "es": "esta ayuda"},
    "help_close": {"en": "Esc, ? or q: back to the table", "fr": "Échap, ? ou q : retour à "
                   "la table", "es": "Esc, ? o q: volver a la mesa"},
    # -- the terminal game: the table --
    "you": {"en": "You", "fr": "Vous", "es": "Usted"},
    "your_table": {"en": "dashed: your table's face-up cards",
                   "fr": "en pointillés : vos cartes de table",
                   "es": "punteadas: sus cartas de la mesa"},
    "bot_name": {"en": "Bot {n}", "fr": "Robot {n}", "es": "Bot {n}"},
    "to_target": {"en": "to {n}", "fr": "en {n}", "es": "a {n}"},
    "in_hands": {"en": "{n} hands", "fr": "{n} donnes", "es": "{n} manos"},
    "hand_n": {"en": "hand {n}", "fr": "donne {n}", "es": "mano {n}"},
    "no_trump": {"en": "no trump (SA)", "fr": "sans atout", "es": "sin triunfo (SA)"},
    "all_trump": {"en": "all trump (TA)", "fr": "tout atout", "es": "todo triunfo (TA)"},
    "coinched": {"en": "coinched ×2", "fr": "coinché ×2", "es": "contrado ×2 (coinche)"},
    "surcoinched": {"en": "surcoinched ×4", "fr": "surcoinché ×4",
                    "es": "recontrado ×4 (surcoinche)"},
    "taken_by": {"en": "taken by {who}", "fr": "pris par {who}", "es": "tomado por {who}"},
    "auction": {"en": "Auction", "fr": "Enchères", "es": "Subasta"},
    "auction_round_2": {"en": "Auction · round 2", "fr": "Enchères · 2e tour",
                        "es": "Subasta · 2.ª vuelta"},
    "best_bid": {"en": "highest bid {bid} by {who}", "fr": "meilleure enchère {bid} par {who}",
                 "es": "mejor apuesta {bid} de {who}"},
    "no_bid_yet": {"en": "no bid yet", "fr": "pas encore d'enchère", "es": "sin apuestas aún"},
    "taker_short": {"en": "taker", "fr": "preneur", "es": "toma"},
    "trick_n": {"en": "Trick {n}/{of}", "fr": "Pli {n}/{of}", "es": "Baza {n}/{of}"},
    "hand_summary": {"en": "The hand's score", "fr": "Le score de la donne",
                     "es": "La puntuación de la mano"},
    "mark_lead": {"en": "led", "fr": "entame", "es": "sale"},
    "mark_best": {"en": "holds it", "fr": "maître", "es": "gana"},
    "mark_won": {"en": "wins", "fr": "remporte", "es": "se la lleva"},
    "card_points": {"en": "Card points", "fr": "Points de plis", "es": "Puntos de bazas"},
    # How an auction hand's score was made: "Us: (penalty 160 + bid 110) × 2 = 540".
    "term_card_points": {"en": "card points", "fr": "points de plis", "es": "puntos de bazas"},
    "term_announcements": {"en": "announcements", "fr": "annonces", "es": "cantes"},
    "term_belote": {"en": "belote", "fr": "belote", "es": "belote"},
    "term_capot": {"en": "capot", "fr": "capot", "es": "capot"},
    "term_bid": {"en": "bid", "fr": "contrat", "es": "contrato"},
    "term_chute": {"en": "penalty", "fr": "chute", "es": "multa"},
    "term_reserve": {"en": "reserve", "fr": "réserve", "es": "reserva"},
    "belote_row": {"en": "Belote", "fr": "Belote", "es": "Belote"},
    "scored": {"en": "Scored", "fr": "Marqué", "es": "Anotado"},
    "announcements_of": {"en": "Announcements that scored: {side}",
                         "fr": "Annonces qui comptent : {side}",
                         "es": "Cantes que puntúan: {side}"},
    "hint_thinking": {"en": "Hint: thinking…", "fr": "Conseil : réflexion…",
                      "es": "Consejo: pensando…"},
    "hint_pass_line": {"en": "pass (the expert takes from {n}%)",
                       "fr": "passe (l'expert prend dès {n} %)",
                       "es": "paso (el experto toma desde {n} %)"},
    "sheet_close": {"en": "Esc, s or q: back to the table", "fr": "Échap, s ou q : retour à "
                    "la table", "es": "Esc, s o q: volver a la mesa"},
    # -- the terminal game: setup --
    "saved_game": {"en": "saved game: {preset}, hand {hand}, {score}",
                   "fr": "partie enregistrée : {preset}, donne {hand}, {score}",
                   "es": "partida guardada: {preset}, mano {hand}, {score}"},
    "resume_game": {"en": "Resume", "fr": "Reprendre", "es": "Continuar"},
    "new_game_keeps_backup": {
        "en": "A new game keeps the saved one as {path}.",
        "fr": "Une nouvelle partie garde l'ancienne dans {path}.",
        "es": "Una partida nueva guarda la anterior como {path}."},
    "saved_unreadable": {
        "en": "The saved game cannot be read ({why}); a new game keeps it as {path}.",
        "fr": "La partie enregistrée est illisible ({why}) ; une nouvelle partie la garde "
              "dans {path}.",
        "es": "La partida guardada no se puede leer ({why}); una partida nueva la guarda "
              "como {path}."},
    "language": {"en": "Language", "fr": "Langue", "es": "Idioma"},
    "lang_name": {"en": "English", "fr": "Français", "es": "Español"},
    "seat": {"en": "Your seat", "fr": "Votre place", "es": "Su asiento"},
    "seat_n": {"en": "seat {n}", "fr": "place {n}", "es": "asiento {n}"},
    "seat_with_partner": {"en": "seat {n} (partner: seat {p})",
                          "fr": "place {n} (partenaire : place {p})",
                          "es": "asiento {n} (pareja: asiento {p})"},
    "deck": {"en": "Deck", "fr": "Jeu de cartes", "es": "Baraja"},
    "deck_default": {"en": "default: {deck}", "fr": "par défaut : {deck}",
                     "es": "por defecto: {deck}"},
    "deck_french": {"en": "French (R D V)", "fr": "français (R D V)",
                    "es": "francesa (R D V)"},
    "deck_international": {"en": "international (K Q J)", "fr": "international (K Q J)",
                           "es": "internacional (K Q J)"},
    "deck_german": {"en": "German (K O U)", "fr": "allemand (K O U)", "es": "alemana (K O U)"},
    "deck_spanish": {"en": "Spanish (R C S)", "fr": "espagnol (R C S)",
                     "es": "española (R C S)"},
    "level_random": {"en": "beginner (random)", "fr": "débutant (au hasard)",
                     "es": "principiante (al azar)"},
    "level_heuristic": {"en": "club player", "fr": "joueur de club", "es": "jugador de club"},
    "level_expert": {"en": "expert", "fr": "expert", "es": "experto"},
    "level_expert_budget": {"en": "expert, {s} s a card", "fr": "expert, {s} s par carte",
                            "es": "experto, {s} s por carta"},
    "setup_keys": {"en": "Tab, Enter · Esc: quit", "fr": "Tab, Entrée · Échap : quitter",
                   "es": "Tab, Intro · Esc: salir"},
    # what each preset is, beside its name (``preset_NAME``, rebelote.i18n_web); each
    # target here is checked against the preset's rules (tests/test_i18n.py)
    "preset_about_classic": {"en": "retourne, announcements, to 1000",
                             "fr": "retourne, annonces, en 1000",
                             "es": "carta vuelta, cantes, a 1000"},
    "preset_about_ffb": {"en": "federation rules, belote only, to 1000",
                         "fr": "règles fédérales, belote seule, en 1000",
                         "es": "reglas de la federación, solo belote, a 1000"},
    "preset_about_skill7": {"en": "online rules, announcements, to 501",
                            "fr": "règles en ligne, annonces, en 501",
                            "es": "reglas en línea, cantes, a 501"},
    "preset_about_moroccan": {"en": "Spanish deck, announcements, to 1000",
                              "fr": "jeu espagnol, annonces, en 1000",
                              "es": "baraja española, cantes, a 1000"},
    "preset_about_coinche": {"en": "bids, coinche, announcements, to 2000",
                             "fr": "enchères, coinche, annonces, en 2000",
                             "es": "subasta, coinche, cantes, a 2000"},
    "preset_about_contree": {"en": "bids, contre, belote only, to 2000",
                             "fr": "enchères, contre, belote seule, en 2000",
                             "es": "subasta, contra, solo belote, a 2000"},
    "preset_about_acorralada": {"en": "bids, contra, belote only, to 701",
                                "fr": "enchères, contra, belote seule, en 701",
                                "es": "subasta, contra, solo belote, a 701"},
    "preset_about_three": {"en": "each for himself, to 1000",
                           "fr": "chacun pour soi, en 1000",
                           "es": "cada uno para sí, a 1000"},
    "preset_about_decouverte": {"en": "face-up table cards, to 1000",
                                "fr": "cartes de table visibles, en 1000",
                                "es": "cartas de mesa a la vista, a 1000"},
    # -- the score pad --
    "hands_one": {"en": "1 hand", "fr": "1 donne", "es": "1 mano"},
    "hands_other": {"en": "{n} hands", "fr": "{n} donnes", "es": "{n} manos"},
    "not_between": {"en": "{value} is not between {low} and {high}",
                    "fr": "{value} n'est pas entre {low} et {high}",
                    "es": "{value} no está entre {low} y {high}"},
    "bad_bid": {"en": "{raw}: a bid is 80 to 160 by tens, or capot",
                "fr": "{raw} : un contrat va de 80 à 160 par dizaines, ou capot",
                "es": "{raw}: un contrato va de 80 a 160 de diez en diez, o capot"},
    "bad_announce": {"en": "{value} is not an announcement total (20, 50, 100, ...)",
                     "fr": "{value} n'est pas un total d'annonces (20, 50, 100, ...)",
                     "es": "{value} no es un total de cantes (20, 50, 100, ...)"},
    "no_hand_to_fix": {"en": "there is no hand to fix", "fr": "il n'y a aucune donne à corriger",
                       "es": "no hay ninguna mano que corregir"},
    "no_hand_to_undo": {"en": "there is no hand to remove", "fr": "il n'y a aucune donne à "
                        "annuler", "es": "no hay ninguna mano que anular"},
    "nothing_to_redo": {"en": "there is no removed hand to restore",
                        "fr": "aucune donne annulée à rétablir",
                        "es": "no hay ninguna mano anulada que restaurar"},
    "menu_redo": {"en": "[n]ew hand, [u]ndo last, [r]estore hand {n}, [f]ix a hand, [q]uit",
                  "fr": "[n]ouvelle donne, [u] annuler la dernière, [r]établir la donne {n}, "
                        "[f] corriger une donne, [q]uitter",
                  "es": "[n]ueva mano, [u] deshacer la última, [r]estaurar la mano {n}, "
                        "[f] corregir una mano, [q] salir"},
    "menu_over": {"en": "[u]ndo last, [f]ix a hand, [g] new game, [q]uit",
                  "fr": "[u] annuler la dernière, [f] corriger une donne, [g] nouvelle partie, "
                        "[q]uitter",
                  "es": "[u] deshacer la última, [f] corregir una mano, [g] nueva partida, "
                        "[q] salir"},
    "confirm_undo": {"en": "Remove hand {n} ({summary})?",
                     "fr": "Annuler la donne {n} ({summary}) ?",
                     "es": "¿Anular la mano {n} ({summary})?"},
    "redone": {"en": "Hand {n} restored", "fr": "Donne {n} rétablie",
               "es": "Mano {n} restaurada"},
    "kept_backup": {"en": "The previous sheet is kept in {path}",
                    "fr": "L'ancienne feuille est gardée dans {path}",
                    "es": "La hoja anterior se guarda en {path}"},
    "sheet_unreadable": {"en": "The saved sheet cannot be read: {why}",
                         "fr": "La feuille enregistrée est illisible : {why}",
                         "es": "La hoja guardada no se puede leer: {why}"},
    "pad_two_teams": {"en": "the score pad counts two teams: {preset} is played by three",
                      "fr": "la feuille compte deux équipes : {preset} se joue à trois",
                      "es": "la hoja cuenta dos equipos: {preset} se juega entre tres"},
    "game_not_over": {"en": "The game is not over", "fr": "La partie n'est pas finie",
                      "es": "La partida no ha terminado"},
    "rich_invalid_choice": {"en": "Please choose one of the options shown",
                            "fr": "Choisissez une des réponses proposées",
                            "es": "Elija una de las opciones propuestas"},
    "rich_yes_no": {"en": "Please answer y or n", "fr": "Répondez o (oui) ou n (non)",
                    "es": "Responda s (sí) o n (no)"},
    "yes_letter": {"en": "y", "fr": "o", "es": "s"},
}
_TEXT: Final[dict[str, dict[str, str]]] = {**_TERMINAL_TEXT, **WEB_TEXT}

_SCORE_ERRORS: Final[dict[str, tuple[str, str]]] = {
    # key: (French, Spanish); the English is rebelote.scoring.SCORE_ERRORS.
    "err_taker_team": ("l'équipe preneuse est 0 (nous) ou 1 (eux), pas {value!r}",
                       "el equipo que toma es 0 (nosotros) o 1 (ellos), no {value!r}"),
    "err_capot_team": ("l'équipe du capot est 0 ou 1, pas {value!r}",
                       "el equipo del capot es 0 o 1, no {value!r}"),
    "err_capot_points": ("un capot de l'équipe {team} ne laisse aucun point de plis à "
                         "l'équipe {loser}, mais la saisie lui en donne {given}",
                         "un capot del equipo {team} no deja puntos de bazas al equipo "
                         "{loser}, pero la entrada le da {given}"),
    "err_points_missing": ("entrez les points de plis de l'équipe 0 (0 à 162, dix de der "
                           "compris)", "introduzca los puntos de bazas del equipo 0 (0 a "
                           "162, dix de der incluido)"),
    "err_points_range": ("les points de plis vont de 0 à 162 (dix de der compris), pas "
                         "{value}", "los puntos de bazas van de 0 a 162 (dix de der "
                         "incluido), no {value}"),
    "err_points_pair": ("les points de plis sont deux nombres de 0 à 162 dont la somme fait "
                        "162 (dix de der compris), pas {a} et {b}",
                        "los puntos de bazas son dos números de 0 a 162 que suman 162 (dix "
                        "de der incluido), no {a} y {b}"),
    "err_belote_team": ("une belote appartient à l'équipe 0 ou 1, pas {value!r}",
                        "una belote es del equipo 0 o 1, no {value!r}"),
    "err_belote_count": ("{count} belotes sont impossibles ici : {most} au plus (une par "
                         "roi-dame d'atout)", "{count} belotes son imposibles aquí: {most} "
                         "como máximo (una por rey-dama de triunfo)"),
    "err_belote_value": ("la belote vaut 20 (une par roi-dame d'atout)",
                         "la belote vale 20 (una por rey-dama de triunfo)"),
    "err_no_announcements": ("les règles {preset} n'ont pas d'annonces",
                             "las reglas {preset} no tienen cantes"),
    "err_announce_total": ("{value} n'est pas un total d'annonces : aucune combinaison de "
                           "tierces (20), cinquantes (50), cents (100) et carrés (100, 150, "
                           "200) de deux partenaires ne le fait",
                           "{value} no es un total de cantes: ninguna combinación de "
                           "tierces (20), cinquantes (50), cents (100) y carrés (100, 150, "
                           "200) de dos compañeros lo da"),
    "err_announce_both": ("seules les annonces d'une équipe comptent : celle qui a la "
                          "meilleure", "solo puntúan los cantes de un equipo: el que tiene "
                          "el mejor"),
    "err_negative": ("les points d'annonces et de belote ne peuvent être négatifs",
                     "los puntos de cantes y de belote no pueden ser negativos"),
    "err_negative_reserve": ("la réserve du litige ne peut être négative",
                             "la reserva del litige no puede ser negativa"),
    "err_bid_missing": ("les jeux à enchères demandent le contrat (80 à 160, ou capot)",
                        "los juegos con subasta piden el contrato (80 a 160, o capot)"),
    "err_classic_bid": ("la belote classique n'a ni contrat chiffré, ni capot annoncé, ni "
                        "coinche", "la belote clásica no tiene contrato, capot cantado ni "
                        "coinche"),
    "err_capot_bid": ("un capot annoncé vaut {worth}, pas {value}",
                      "un capot cantado vale {worth}, no {value}"),
    "err_bid_value": ("un contrat va de 80 à 160 par dizaines, ou capot ; pas {value}",
                      "un contrato va de 80 a 160 de diez en diez, o capot; no {value}"),
    "err_double": ("la coinche vaut 1, 2 (coinche) ou 4 (surcoinche), pas {value}",
                   "el coinche vale 1, 2 (coinche) o 4 (surcoinche), no {value}"),
    "err_three_players": ("le carnet compte deux équipes (ou deux joueurs) : {preset} se "
                          "joue à trois, chacun pour soi", "la libreta cuenta dos equipos "
                          "(o dos jugadores): {preset} se juega a tres, cada uno por su "
                          "cuenta"),
    "err_game_over_after": ("la partie était finie après la donne {n} : aucune donne ne "
                            "peut suivre", "la partida terminó tras la mano {n}: ninguna "
                            "mano puede seguir"),
    "err_in_hand": ("donne {n} : {why}", "mano {n}: {why}"),
    "err_game_over": ("la partie est finie : commencez une nouvelle feuille",
                      "la partida ha terminado: empiece una hoja nueva"),
    "err_no_undo": ("aucune donne à annuler", "no hay ninguna mano que deshacer"),
    "err_no_such_hand": ("il n'y a pas de donne {n} (la feuille en a {count})",
                         "no hay mano {n} (la hoja tiene {count})"),
    "err_sheet_shape": ("une feuille de marque est un objet JSON avec « rules » et « hands »",
                        "una hoja de puntos es un objeto JSON con «rules» y «hands»"),
    "err_sheet_rules": ("règles : {why}", "reglas: {why}"),
    "err_sheet_hands": ("« hands » doit être une liste", "«hands» debe ser una lista"),
    "err_no_file": ("{path} : fichier introuvable", "{path}: no existe el archivo"),
    "err_unreadable": ("{path} : pas une feuille de marque JSON lisible ({why})",
                       "{path}: no es una hoja de puntos JSON legible ({why})"),
    "err_field_object": ("une donne doit être un objet", "una mano debe ser un objeto"),
    "err_field_unknown": ("champ inconnu {name!r}", "campo desconocido {name!r}"),
    "err_field_number": ("{name} doit être un nombre entier, pas {value!r}",
                         "{name} debe ser un número entero, no {value!r}"),
    "err_field_taker": ("« taker » (0 ou 1) manque", "falta «taker» (0 o 1)"),
    "err_field_announce": ("announce doit être un objet comme {{\"0\": 20}}",
                           "announce debe ser un objeto como {{\"0\": 20}}"),
    "err_field_announce_team": ("les équipes d'announce sont \"0\" et \"1\", pas {value!r}",
                                "los equipos de announce son \"0\" y \"1\", no {value!r}"),
    "err_field_belote": ("belote doit lister des équipes, comme [0]",
                         "belote debe listar equipos, como [0]"),
    "err_field_suit": ("la couleur est S, H, D, C, SA ou TA, pas {value!r}",
                       "el palo es S, H, D, C, SA o TA, no {value!r}"),
}
_TEXT.update({key: {"en": SCORE_ERRORS[key], "fr": fr, "es": es}
              for key, (fr, es) in _SCORE_ERRORS.items()})


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


# Cards' spoken names (screen readers), per language and per deck family: the ranks
# 7 8 9 10 J Q K A, then "of <suit>" for spades, hearts, diamonds, clubs (the canonical
# order of rebelote.cards). The German deck has its own suits (leaves, hearts, bells,
# acorns) and figures (Unter, Ober); the Spanish deck (rebelote.decks) its own suits
# (espadas, copas, oros, bastos) and its numbers 4 5 6 7 for the 7 8 9 10.
_SPOKEN: Final[dict[str, dict[str, tuple[tuple[str, ...], tuple[str, ...]]]]] = {
    "french": {
        "en": (("Seven", "Eight", "Nine", "Ten", "Jack", "Queen", "King", "Ace"),
               ("of spades", "of hearts", "of diamonds", "of clubs")),
        "fr": (("sept", "huit", "neuf", "dix", "valet", "dame", "roi", "as"),
               ("de pique", "de cœur", "de carreau", "de trèfle")),
        "es": (("siete", "ocho", "nueve", "diez", "jota", "reina", "rey", "as"),
               ("de picas", "de corazones", "de diamantes", "de tréboles")),
    },
    "german": {
        "en": (("Seven", "Eight", "Nine", "Ten", "Unter", "Ober", "King", "Ace"),
               ("of leaves", "of hearts", "of bells", "of acorns")),
        "fr": (("sept", "huit", "neuf", "dix", "valet", "cavalier", "roi", "as"),
               ("de feuille", "de cœur", "de grelot", "de gland")),
        "es": (("siete", "ocho", "nueve", "diez", "sota", "caballo", "rey", "as"),
               ("de hojas", "de corazones", "de cascabeles", "de bellotas")),
    },
    "spanish": {
        "en": (("Four", "Five", "Six", "Seven", "Knave", "Knight", "King", "Ace"),
               ("of swords", "of cups", "of coins", "of batons")),
        "fr": (("quatre", "cinq", "six", "sept", "valet", "cavalier", "roi", "as"),
               ("d'épées", "de coupes", "de deniers", "de bâtons")),
        "es": (("cuatro", "cinco", "seis", "siete", "sota", "caballo", "rey", "as"),
               ("de espadas", "de copas", "de oros", "de bastos")),
    },
}
DECK_FAMILY: Final = {"pictures": "french", "french": "french", "international": "french",
                      "german": "german", "spanish": "spanish"}
"""The web client's deck choices, each with the words its cards are spoken with."""


def spoken_card(card: int, deck: str = "pictures", lang: str = "en") -> str:
    """A card (0..31, rebelote.cards) said aloud in ``lang`` with the ``deck``'s words:
    ``roi de cœur``, ``King of hearts``, ``rey de corazones``, ``sota de oros``."""
    ranks, suits = _SPOKEN[DECK_FAMILY[deck]][lang if lang in LANGS else "en"]
    return f"{ranks[card & 7]} {suits[card >> 3]}"


def spoken_cards(lang: str = "en") -> dict[str, dict[str, str]]:
    """Every card's spoken name in every deck of the web client, by the card's
    notation (``KH``): what the page puts in its cards' ARIA labels."""
    from rebelote.cards import card_name

    return {deck: {card_name(c): spoken_card(c, deck, lang) for c in range(32)}
            for deck in DECK_FAMILY}


def reason(rule: str, fallback: str, lang: str = "en") -> str:
    """Why an action was refused, in ``lang`` (the engine's sentence if not translated)."""
    entry = _REASONS.get(rule)
    if entry is None:
        return fallback
    return entry.get(lang, entry["en"])


def plural(stem: str, n: int, lang: str = "en") -> str:
    """``stem_one`` for 1, ``stem_other`` else (with ``n`` filled in): "1 hand", "2 hands"."""
    return tr(f"{stem}_one" if n == 1 else f"{stem}_other", lang, n=n)


def tr(key: str, lang: str = "en", **values: object) -> str:
    """The text ``key`` in ``lang`` (English if missing), with ``values`` filled in."""
    entry = _TEXT[key]
    return entry.get(lang, entry["en"]).format(**values)


def colon(lang: str = "en") -> str:
    """The colon after a label: French puts a (no-break) space before it."""
    return "\u00a0: " if lang == "fr" else ": "


def preset_name(preset: str, lang: str = "en") -> str:
    """A preset's name in ``lang`` ("classique"); an unknown one as it is written."""
    return tr(f"preset_{preset}", lang) if f"preset_{preset}" in _TEXT else preset


def level_label(spec: str, lang: str = "en", style: str = "level") -> str:
    """A bot level's name (``level_expert``, or ``bot_expert`` with ``style="bot"``);
    ``expert:MS`` names its thinking time."""
    level, _, budget = spec.partition(":")
    if budget:
        seconds = f"{int(budget) / 1000:g}"
        if lang in ("fr", "es"):
            seconds = seconds.replace(".", ",")  # the decimal comma
        return tr(f"{style}_expert_budget", lang, s=seconds)
    return tr(f"{style}_{level}", lang)


def error_text(exc: ScoreError, lang: str = "en") -> str:
    """Why a hand or a sheet was refused, in ``lang`` (nested reasons too)."""
    if exc.key not in _TEXT:
        return str(exc)
    values = {k: error_text(v, lang) if isinstance(v, ScoreError) else v
              for k, v in exc.values.items()}
    return tr(exc.key, lang, **values)


def catalog(lang: str = "en") -> dict[str, dict[str, str]]:
    """Every text and refusal reason in ``lang`` (English where missing): what the web
    client fetches, so that its texts are this catalog's."""
    if lang not in LANGS:
        lang = "en"
    return {"texts": {k: e.get(lang, e["en"]) for k, e in _TEXT.items()},
            "reasons": {k: e.get(lang, e["en"]) for k, e in _REASONS.items()}}
