"""The vendor side of hrx's encrypted employee read (V2, docs/v2.md): a JWS (RS256, `typ: JWT`)
signed with the vendor's registered RSA key, inside a JWE (`RSA-OAEP-256`/`A256GCM`, `cty: JWT`)
to the service's `enc` key; the answer is the mirror image: a JWE to the vendor's key holding a
JWS by the service's `sig` key (RFC 7515, 7516, 7518)."""
from __future__ import annotations

import json
import time
import uuid
from typing import Any, Dict, Mapping, Optional

from jwcrypto import jwe, jwk, jws
from jwcrypto.common import JWException

from .errors import VerificationError

#: The answer's JWE algorithms, pinned (nothing else is tried).
_JWE_ALGS = ["RSA-OAEP-256", "A256GCM"]


def encryption_key(jwks: Mapping[str, Any]) -> jwk.JWK:
    """The service's current `enc` key of its JWKS (`GET /.well-known/jwks.json` lists current
    keys first). Raises `VerificationError` when there is none."""
    for k in jwks.get("keys", []):
        if k.get("use") == "enc" and k.get("alg") == "RSA-OAEP-256":
            return jwk.JWK(**k)
    raise VerificationError("the service JWKS has no RSA-OAEP-256 encryption key")


def build_request(
    *,
    vendor_key: jwk.JWK,
    service_jwks: Mapping[str, Any],
    connection_id: str,
    employee_id: str,
    source: Optional[str] = None,
    resource: Optional[str] = None,
    months: Optional[int] = None,
    ttl_sec: int = 120,
    now: Optional[int] = None,
) -> str:
    """The `encrypted_payload` of `POST /api/external/employee/`. Claims: `connection_id`,
    `employee_id`, `source` (`db`/`hrms`, optional), `resource` and `months` (pay history,
    optional), `iat`, `exp` (`iat + ttl_sec`, at most 300 s), a fresh `jti`. The JWS header names
    the vendor key's `kid`; the JWE header the service key's."""
    if not 1 <= ttl_sec <= 300:
        raise ValueError("ttl_sec must be 1..300")
    iat = int(time.time()) if now is None else now
    claims: Dict[str, Any] = {"connection_id": connection_id, "employee_id": employee_id}
    if source is not None:
        claims["source"] = source
    if resource is not None:
        claims["resource"] = resource
    if months is not None:
        claims["months"] = months
    claims.update({"iat": iat, "exp": iat + ttl_sec, "jti": str(uuid.uuid4())})
    header: Dict[str, Any] = {"alg": "RS256", "typ": "JWT"}
    if vendor_key.get("kid"):
        header["kid"] = vendor_key.get("kid")
    signed = jws.JWS(json.dumps(claims, separators=(",", ":")).encode("utf-8"))
    signed.add_signature(vendor_key, alg="RS256", protected=json.dumps(header))
    service_key = encryption_key(service_jwks)
    jwe_header = {"alg": "RSA-OAEP-256", "enc": "A256GCM", "cty": "JWT", "kid": service_key.get("kid")}
    sealed = jwe.JWE(signed.serialize(compact=True).encode("utf-8"), protected=json.dumps(jwe_header))
    sealed.add_recipient(service_key)
    return str(sealed.serialize(compact=True))


def verify_jws(token: str, jwks: Mapping[str, Any], alg: str, typ: Optional[str]) -> Dict[str, Any]:
    """Verifies a compact JWS against the key of `jwks` its header's `kid` names (only `alg`
    accepted; `typ` checked when given) and returns its JSON payload. Raises `VerificationError`."""
    try:
        parsed = jws.JWS()
        parsed.deserialize(token)
        header = parsed.jose_header
    except (JWException, ValueError) as e:
        raise VerificationError(f"malformed JWS: {type(e).__name__}") from None
    if header.get("alg") != alg or (typ is not None and header.get("typ") != typ) or "crit" in header:
        raise VerificationError("JWS header not as expected")
    candidates = [k for k in jwks.get("keys", []) if k.get("kid") == header.get("kid")]
    if not candidates:
        raise VerificationError("no key of the JWKS has the JWS's kid")
    try:
        parsed.verify(jwk.JWK(**candidates[0]), alg=alg)
    except (JWException, ValueError):
        raise VerificationError("JWS signature does not verify") from None
    payload = json.loads(parsed.payload)
    if not isinstance(payload, dict):
        raise VerificationError("JWS payload is not a JSON object")
    return payload


def open_response(data: str, *, vendor_key: jwk.JWK, service_jwks: Mapping[str, Any]) -> Dict[str, Any]:
    """Opens the `data` of a V2 answer: decrypts the JWE with the vendor's private key (header
    pinned to `RSA-OAEP-256`/`A256GCM`, `cty: JWT`, no `zip`), verifies the inner RS256 JWS
    against the service JWKS, and returns its payload (`{employee, iat, jti}`, or
    `{pay_history, iat, jti}`). Raises `VerificationError`."""
    try:
        sealed = jwe.JWE(algs=_JWE_ALGS)
        sealed.deserialize(data, key=vendor_key)
        header = sealed.jose_header
    except (JWException, ValueError) as e:
        raise VerificationError(f"the answer does not decrypt: {type(e).__name__}") from None
    if header.get("cty") != "JWT" or "zip" in header or "crit" in header:
        raise VerificationError("the answer's JWE header is not as expected")
    return verify_jws(sealed.payload.decode("utf-8"), service_jwks, "RS256", "JWT")
