"""One TLS context per process, built in the background, as strict as httpx's own; none
read for a plain-HTTP server."""

from __future__ import annotations

import ssl
from pathlib import Path

import httpx
import pytest

from openletta import tls
from openletta.api.client import LettaClient


def test_every_client_shares_one_context_that_verifies_servers(
        monkeypatch: pytest.MonkeyPatch) -> None:
    tls.prepare_tls_context()
    context = tls.tls_context()
    assert context.verify_mode is ssl.CERT_REQUIRED and context.check_hostname
    monkeypatch.setattr(httpx, "create_ssl_context",
                        lambda *args, **kwargs: pytest.fail("a second context was built"))
    LettaClient("https://api.example.test")  # each made with the shared context
    LettaClient("https://letta.example.test:8283")
    assert tls.tls_context() is context


def test_a_client_of_a_plain_http_server_reads_no_certificates(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(tls, "_context", None)  # a fresh process, as far as tls knows
    monkeypatch.setattr(httpx, "create_ssl_context",
                        lambda *args, **kwargs: pytest.fail("certificates were read"))
    LettaClient("http://localhost:8283")
    LettaClient("HTTP://127.0.0.1:8283")
    assert tls._context is None
    context = tls.context_for("http://localhost:8283")  # were TLS ever opened: it fails
    assert context.verify_mode is ssl.CERT_REQUIRED and context.check_hostname
    assert context.cert_store_stats()["x509_ca"] == 0


def test_a_context_that_cannot_be_built_fails_where_it_is_needed(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setattr(tls, "_context", None)  # a fresh process, as far as tls knows
    monkeypatch.setenv("SSL_CERT_FILE", str(tmp_path / "missing.pem"))
    tls.prepare_tls_context()
    with pytest.raises(OSError):
        tls.tls_context()
