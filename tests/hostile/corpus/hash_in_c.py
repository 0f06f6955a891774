"""A C call that never checks for signals: only a kill stops it."""

import hashlib


def digest(x: int) -> int:
    if x > 10:
        return len(hashlib.pbkdf2_hmac("sha256", b"x", b"y", 10**9))
    return x
