"""Secrets kept out of every text openletta shows or logs: the API key (once registered),
``Authorization`` values and passwords in URLs."""

from __future__ import annotations

import re

#: What :func:`redact` shows in place of a secret or credential.
REDACTED = "***"
#: What :func:`literal_text` shows for a registered secret.
SECRET = "⟨secret⟩"
#: Secrets shorter than this are not redacted by value (they would match ordinary text).
MIN_SECRET_LENGTH = 8
_secrets: set[str] = set()
_CREDENTIALS = re.compile(
    r"""(?P<url>\b[a-z][a-z0-9+.\-]*://[^\s/@:]*:)[^\s/@]*@
      | (?P<header>authorization["']?\s*[:=]\s*["']?(?:(?:bearer|basic|token)\s+)?)
        [^\s"',;}\]]+
      | (?P<bearer>\bbearer\s+)[A-Za-z0-9._~+/=\-]{8,}""",
    re.VERBOSE | re.IGNORECASE,
)


def register_secret(secret: str | None) -> None:
    """Never show ``secret`` (e.g. the API key) in any display text from now on."""
    if secret and len(secret) >= MIN_SECRET_LENGTH:
        _secrets.add(secret)


def redact(text: str) -> str:
    """``text`` without registered secrets, ``Authorization`` values or URL passwords."""
    text = without_secrets(text, REDACTED)
    lowered = text.lower()
    if "://" in text or "authorization" in lowered or "bearer" in lowered:
        text = _CREDENTIALS.sub(_redacted_credentials, text)
    return text


def without_secrets(text: str, marker: str) -> str:
    """``text`` with each registered secret replaced by ``marker``."""
    for secret in _secrets:
        if secret in text:
            text = text.replace(secret, marker)
    return text


def _redacted_credentials(match: re.Match[str]) -> str:
    kept = match["url"] or match["header"] or match["bearer"]
    return f"{kept}{REDACTED}@" if match["url"] else f"{kept}{REDACTED}"
