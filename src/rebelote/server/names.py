"""Players' names and passwords: one rule for what counts as the same name, and the
password policy.

Two names are the same when their keys are: Unicode NFKC normalization, case folding,
look-alike letters of other scripts folded to the Latin letter they imitate (a Cyrillic
``а`` is an ``a``), and spaces, dots, dashes and underscores dropped. Names are unique by
key across accounts and guests alike.
"""

from __future__ import annotations

import unicodedata


class Refused(ValueError):
    """A name or password the rules refuse; ``code`` names the rule for the pages' own
    text (``web_refused_CODE``), the message says it in English."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code

_CONFUSABLES = str.maketrans({
    # Cyrillic
    "а": "a", "в": "b", "е": "e", "ё": "e", "к": "k", "м": "m", "н": "h", "о": "o",
    "р": "p", "с": "c", "т": "t", "у": "y", "х": "x", "ѕ": "s", "і": "i", "ї": "i",
    "ј": "j", "һ": "h", "ԁ": "d", "ԛ": "q", "ԝ": "w", "ӏ": "l", "ь": "b",
    # Greek
    "α": "a", "β": "b", "ε": "e", "η": "n", "ι": "i", "κ": "k", "ν": "v", "ο": "o",
    "ρ": "p", "τ": "t", "υ": "u", "χ": "x", "ω": "w", "ζ": "z", "μ": "u",
    # digits and signs that pass for letters
    "0": "o", "1": "l", "|": "l", "$": "s", "@": "a",
    # Latin look-alikes
    "ı": "i", "ł": "l", "ø": "o", "ß": "ss", "ſ": "s",
})
_DROPPED = str.maketrans("", "", " ._-\u200b\u200c\u200d\u2060\ufeff")


def name_key(name: str) -> str:
    """The key under which ``name`` is unique (see the module's docstring); "I" and "l"
    fold together, as do "0" and "O"."""
    folded = unicodedata.normalize("NFKC", name).casefold()
    # Accents are kept (Chloé is not Chloe), but marks added to a look-alike are not.
    folded = folded.translate(_CONFUSABLES).translate(_DROPPED)
    return folded.replace("i", "l")


def check_name(name: object, what: str = "a name") -> str:
    """``name`` made tidy (NFKC, outer spaces removed), or :class:`Refused` saying why:
    1 to 24 characters, printable, at least one letter or digit."""
    if not isinstance(name, str):
        raise Refused("name_length", f"{what} is 1 to 24 characters")
    tidy = " ".join(unicodedata.normalize("NFKC", name).split())
    if not 1 <= len(tidy) <= 24:
        raise Refused("name_length", f"{what} is 1 to 24 characters")
    if any(unicodedata.category(c)[0] == "C" for c in tidy):
        raise Refused("name_printable", f"{what} has only printable characters")
    if not any(c.isalnum() for c in tidy) or not name_key(tidy):
        raise Refused("name_letter", f"{what} needs at least one letter or digit")
    return tidy


PASSWORD_MIN = 10
PASSWORD_MAX = 200
_COMMON = """
password password1 password12 password123 password1234 passw0rd p@ssw0rd p@ssword
123456 1234567 12345678 123456789 1234567890 0123456789 12345678910 987654321
0987654321 111111 11111111 1111111111 000000 00000000 0000000000 123123 123123123
qwerty qwertyuiop qwerty123 qwerty1234 azerty azertyuiop azerty123 asdfgh asdfghjkl
iloveyou iloveyou1 jetaime jetaime123 motdepasse motdepasse1 contrasena contraseña
letmein letmein123 welcome welcome1 welcome123 bienvenue admin admin123 administrator
administrateur root toor changeme changeme123 secret secret123 monkey dragon football
baseball soleil soleil123 doudou chouchou loulou marseille nicolas princesse
abc123 abcd1234 abcdef abcdefgh abcdefghij 1q2w3e4r 1q2w3e4r5t 1qaz2wsx zaq12wsx
trustno1 sunshine shadow master superman batman starwars whatever freedom
belote belote123 rebelote rebelote123 coinche contree beloteetrebelote
"""
COMMON_PASSWORDS = frozenset(_COMMON.split())
"""A short list of the passwords tried first by anyone guessing (each compared after
case folding and with spaces removed)."""


def check_password(password: object) -> str:
    """``password`` if the policy accepts it, else :class:`Refused` saying why: 10 to 200
    characters, not blank, not one character repeated, not a common password."""
    if not isinstance(password, str) or not PASSWORD_MIN <= len(password) <= PASSWORD_MAX:
        raise Refused("password_length",
                      f"a password is {PASSWORD_MIN} to {PASSWORD_MAX} characters")
    plain = "".join(password.split()).casefold()
    if not plain:
        raise Refused("password_blank", "a password cannot be blank")
    if len(set(plain)) <= 2:
        raise Refused("password_repeated",
                      "a password needs more than one or two different characters")
    if plain in COMMON_PASSWORDS or plain.rstrip("0123456789!?.") in COMMON_PASSWORDS:
        raise Refused("password_common",
                      "this password is among the most common ones: choose another")
    return password
