"""Standard Webhooks signature verification (symmetric `v1` scheme): the content signed is
`{webhook-id}.{webhook-timestamp}.{body}`, HMAC-SHA256 keyed by the base64-decoded secret after
`whsec_`, sent as space-separated `v1,<base64>` entries (several while hrx rotates a secret).
https://github.com/standard-webhooks/standard-webhooks/blob/main/spec/standard-webhooks.md"""
from __future__ import annotations

import base64
import hashlib
import hmac
import json
import time
from typing import Any, Mapping, Optional, Union

from .errors import VerificationError

#: Largest difference (seconds) between `webhook-timestamp` and now that is accepted (the spec's 5 minutes).
TOLERANCE_SEC = 5 * 60


def _header(headers: Mapping[str, str], name: str) -> str:
    for k, v in headers.items():
        if k.lower() == name:
            return v
    raise VerificationError(f"missing header {name}")


def verify_webhook(
    secret: str,
    body: Union[bytes, str],
    headers: Mapping[str, str],
    now: Optional[float] = None,
) -> Any:
    """Checks an event hrx POSTed and returns its parsed JSON payload `{type, timestamp, data}`.

    `secret` is the endpoint's `whsec_...` signing secret (shown once when the endpoint was added
    or its secret rotated); `body` the exact bytes received. Raises `VerificationError` for a
    missing header, a timestamp more than 5 minutes off, or no `v1` signature that matches
    (compared in constant time)."""
    if not secret.startswith("whsec_"):
        raise VerificationError("secret must start with whsec_")
    key = base64.b64decode(secret[len("whsec_"):])
    raw = body.encode("utf-8") if isinstance(body, str) else body
    msg_id = _header(headers, "webhook-id")
    ts = _header(headers, "webhook-timestamp")
    if not ts.isdigit():
        raise VerificationError("webhook-timestamp is not integer seconds")
    if abs((time.time() if now is None else now) - int(ts)) > TOLERANCE_SEC:
        raise VerificationError("webhook-timestamp outside the tolerance")
    expected = base64.b64encode(hmac.new(key, f"{msg_id}.{ts}.".encode("utf-8") + raw, hashlib.sha256).digest()).decode("ascii")
    for entry in _header(headers, "webhook-signature").split(" "):
        version, _, sig = entry.partition(",")
        if version == "v1" and hmac.compare_digest(sig, expected):
            return json.loads(raw)
    raise VerificationError("no matching signature")
