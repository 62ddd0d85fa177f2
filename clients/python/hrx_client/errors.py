"""Errors the client raises."""
from __future__ import annotations

from typing import Any, Optional


class HrxError(Exception):
    """An error answer of hrx (docs/errors.md): the HTTP status, the body's `message`,
    `error` (the stable code, where the server sends one) and `requestId`."""

    def __init__(self, status: int, body: Any) -> None:
        self.status = status
        self.body = body
        b = body if isinstance(body, dict) else {}
        self.message: str = str(b.get("message", "")) if b else ""
        self.code: Optional[str] = b.get("error") if isinstance(b.get("error"), str) else None
        self.request_id: Optional[str] = b.get("requestId") if isinstance(b.get("requestId"), str) else None
        super().__init__(f"HTTP {status}: {self.message or body!r}")


class VerificationError(Exception):
    """A signature, an encryption, a digest or a status that does not check out. The message
    says which check failed and never holds key material."""
