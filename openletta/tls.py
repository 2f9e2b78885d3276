"""The TLS context of every HTTP client, built once, and early, beside the app's start-up.

httpx builds its default context (certifi's certificates, or ``SSL_CERT_FILE`` /
``SSL_CERT_DIR``) for each client it makes, which reads and parses a few hundred
certificates: about 30 ms, most of it without the GIL. :func:`prepare_tls_context` starts that
in a thread as the command starts, while Python imports the app and draws its first screen;
:func:`tls_context` waits for it (or builds it, if nobody started it). A client of a plain-HTTP
server needs none of it (:func:`context_for`). This module imports nothing heavy itself, so
that the thread can start before the app's imports do.
"""

from __future__ import annotations

import functools
import ssl
import threading
from concurrent.futures import Future

_context: Future[ssl.SSLContext] | None = None
_lock = threading.Lock()


def prepare_tls_context() -> None:
    """Start building the TLS context in a thread (once per process)."""
    global _context
    with _lock:
        if _context is not None:
            return
        _context = Future()
    threading.Thread(target=_build, args=(_context,), name="tls-context", daemon=True).start()


def tls_context() -> ssl.SSLContext:
    """httpx's default TLS context, the same one for every client of the process."""
    prepare_tls_context()
    assert _context is not None
    return _context.result()


def speaks_tls(base_url: str | None) -> bool:
    """Whether a client of ``base_url`` talks TLS to it (an ``https://`` URL)."""
    return base_url is not None and base_url.lower().startswith("https://")


def context_for(base_url: str) -> ssl.SSLContext:
    """The TLS context of a client of ``base_url``: :func:`tls_context` for ``https://``; for
    plain HTTP, one that trusts no certificate, so that none is read (such a client never
    opens TLS: it follows no redirects, and asks only for paths of its server)."""
    return tls_context() if speaks_tls(base_url) else _trusting_nothing()


@functools.cache
def _trusting_nothing() -> ssl.SSLContext:
    """A context that verifies servers and trusts no certificate: any TLS connection fails."""
    return ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)


def _build(future: Future[ssl.SSLContext]) -> None:
    try:
        import httpx

        future.set_result(httpx.create_ssl_context())
    except BaseException as error:  # given to whoever asks for the context
        future.set_exception(error)
