"""mosquitto password files, hashed as ``mosquitto_passwd`` (mosquitto 2.0) hashes them:
``user:$7$<iterations>$<salt>$<hash>``, PBKDF2-HMAC-SHA512 with a 12-byte salt, so the venue
tool needs neither ``mosquitto_passwd`` nor the broker on the machine it runs on.

>>> line = hashed("desk", "secret", salt=bytes(12))
>>> line.startswith("desk:$7$101$AAAAAAAAAAAAAAAA$")
True
>>> check(line, "secret"), check(line, "wrong")
(True, False)
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import secrets

__all__ = ["ITERATIONS", "check", "hashed", "new_password"]

ITERATIONS = 101
"""mosquitto 2.0's own default: a Pi checks a CONNECT in well under a millisecond."""


def hashed(user: str, password: str, *, salt: bytes | None = None, iterations: int = ITERATIONS) -> str:
    """One line of a mosquitto password file."""
    salt = secrets.token_bytes(12) if salt is None else salt
    digest = hashlib.pbkdf2_hmac("sha512", password.encode(), salt, iterations)
    return f"{user}:$7${iterations}${base64.b64encode(salt).decode()}${base64.b64encode(digest).decode()}"


def check(line: str, password: str) -> bool:
    """Whether ``password`` is the one hashed in ``line``."""
    _, _, rest = line.partition(":")
    _, kind, iterations, salt, digest = rest.split("$")
    if kind != "7":
        return False
    mine = hashlib.pbkdf2_hmac("sha512", password.encode(), base64.b64decode(salt), int(iterations))
    return hmac.compare_digest(mine, base64.b64decode(digest))


def new_password() -> str:
    """A password for a login: 128 random bits, typable (base 32, no padding)."""
    return base64.b32encode(secrets.token_bytes(16)).decode().rstrip("=").lower()
