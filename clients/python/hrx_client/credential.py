"""The employment and income credential hrx issues (docs/credential.md): an SD-JWT VC
(RFC 9901, draft-ietf-oauth-sd-jwt-vc) signed ES256 by the service, bound to the vendor's
registered key (`cnf.jwk`), its validity in a Token Status List (draft-ietf-oauth-status-list).

- `verify_credential`: the issuer signature against the JWKS, `typ`, `exp`, every disclosure's
  digest, the status list bit; returns the disclosed claims.
- `present`: the chosen disclosures plus a KB-JWT (`typ: kb+jwt`, `aud`, `nonce`, `iat`,
  `sd_hash`) signed with the vendor's private key.
- `verify_presentation`: what a co-lender runs: `verify_credential` plus the KB-JWT against
  `cnf.jwk`, `aud`, `nonce` and `sd_hash`."""
from __future__ import annotations

import base64
import hashlib
import json
import time
import zlib
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, Iterable, List, Mapping, Optional, Set

from jwcrypto import jwk, jws

from .errors import VerificationError
from .v2 import verify_jws

#: Fetches a URL's body as text (the status list); `requests` by default.
Fetch = Callable[[str], str]


def _b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def _b64url_decode(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def _digest(disclosure: str) -> str:
    """RFC 9901 §4.2.3: base64url(SHA-256(the disclosure's ASCII text))."""
    return _b64url(hashlib.sha256(disclosure.encode("ascii")).digest())


@dataclass
class Credential:
    """A verified credential: the issuer JWT's payload, the disclosed claims merged in (the
    `_sd` digests resolved), and which disclosure carries which top-level claim."""

    issuer_jwt: str
    payload: Dict[str, Any]
    claims: Dict[str, Any]
    disclosures: List[str]
    by_claim: Dict[str, List[str]] = field(default_factory=dict)


def _split(sd_jwt: str) -> tuple[str, List[str], Optional[str]]:
    parts = sd_jwt.split("~")
    if len(parts) < 2:
        raise VerificationError("not an SD-JWT (no ~)")
    kb = parts[-1] or None
    return parts[0], [d for d in parts[1:-1] if d], kb


def _resolve(value: Any, table: Dict[str, List[Any]], used: Set[str], owner: List[str]) -> Any:
    """Replaces `_sd` digests and `{"...": digest}` array elements by their disclosures."""
    if isinstance(value, dict):
        out: Dict[str, Any] = {}
        for k, v in value.items():
            if k in ("_sd", "_sd_alg"):
                continue
            out[k] = _resolve(v, table, used, owner)
        for d in value.get("_sd", []):
            if d in table:
                if d in used:
                    raise VerificationError("a disclosure is referenced twice")
                used.add(d)
                owner.append(d)
                entry = table[d]
                if len(entry) != 3 or not isinstance(entry[1], str):
                    raise VerificationError("an object disclosure is not [salt, name, value]")
                if entry[1] in out:
                    raise VerificationError("a disclosed claim name is already present")
                out[entry[1]] = _resolve(entry[2], table, used, owner)
        return out
    if isinstance(value, list):
        items: List[Any] = []
        for item in value:
            if isinstance(item, dict) and set(item) == {"..."}:
                d = item["..."]
                if d in table:
                    if d in used:
                        raise VerificationError("a disclosure is referenced twice")
                    used.add(d)
                    owner.append(d)
                    entry = table[d]
                    if len(entry) != 2:
                        raise VerificationError("an array disclosure is not [salt, value]")
                    items.append(_resolve(entry[1], table, used, owner))
                continue
            items.append(_resolve(item, table, used, owner))
        return items
    return value


def _default_fetch(url: str) -> str:
    import requests

    res = requests.get(url, timeout=30, headers={"accept": "application/statuslist+jwt"})
    res.raise_for_status()
    return res.text


def status_bit(status_list_jwt: str, idx: int, jwks: Mapping[str, Any]) -> int:
    """The status of entry `idx` in a Token Status List JWT (`typ: statuslist+jwt`, verified
    ES256 against `jwks`): `status_list.lst` is base64url of the zlib-deflated list, `bits` per
    entry, entry 0 in the least significant bits of byte 0."""
    payload = verify_jws(status_list_jwt, jwks, "ES256", "statuslist+jwt")
    sl = payload.get("status_list")
    if not isinstance(sl, dict) or sl.get("bits") not in (1, 2, 4, 8) or not isinstance(sl.get("lst"), str):
        raise VerificationError("status list payload is not as expected")
    bits = int(sl["bits"])
    raw = zlib.decompress(_b64url_decode(sl["lst"]))
    per_byte = 8 // bits
    byte = idx // per_byte
    if idx < 0 or byte >= len(raw):
        raise VerificationError("status index outside the list")
    return (raw[byte] >> ((idx % per_byte) * bits)) & ((1 << bits) - 1)


def verify_credential(
    sd_jwt: str,
    jwks: Mapping[str, Any],
    *,
    issuer: Optional[str] = None,
    fetch: Optional[Fetch] = None,
    check_status: bool = True,
    now: Optional[float] = None,
) -> Credential:
    """Verifies an SD-JWT VC (with or without a KB-JWT at its end) and returns it with the
    disclosed claims. Checks: header `typ: dc+sd-jwt`, `alg: ES256`, the signature by the JWKS key
    of its `kid`; `iss` (when `issuer` is given); `exp` not past; `_sd_alg` `sha-256`; every
    disclosure's digest referenced once in the payload; the status list bit 0 (valid) unless
    `check_status` is false. Raises `VerificationError`."""
    issuer_jwt, disclosures, _ = _split(sd_jwt)
    payload = verify_jws(issuer_jwt, jwks, "ES256", "dc+sd-jwt")
    if issuer is not None and payload.get("iss") != issuer:
        raise VerificationError("iss is not the expected issuer")
    t = time.time() if now is None else now
    if not isinstance(payload.get("exp"), int) or payload["exp"] < t:
        raise VerificationError("credential expired")
    if payload.get("_sd_alg", "sha-256") != "sha-256":
        raise VerificationError("unsupported _sd_alg")
    table: Dict[str, List[Any]] = {}
    for d in disclosures:
        try:
            entry = json.loads(_b64url_decode(d))
        except ValueError:
            raise VerificationError("a disclosure is not base64url JSON") from None
        if not isinstance(entry, list):
            raise VerificationError("a disclosure is not an array")
        table[_digest(d)] = entry
    used: Set[str] = set()
    by_claim: Dict[str, List[str]] = {}
    claims: Dict[str, Any] = {k: v for k, v in payload.items() if k not in ("_sd", "_sd_alg")}
    claims = _resolve(claims, table, used, [])
    for d in payload.get("_sd", []):
        if d not in table:
            continue
        owner: List[str] = []
        resolved = _resolve({"_sd": [d]}, table, used, owner)
        for name, value in resolved.items():
            claims[name] = value
            by_claim[name] = owner
    if len(used) != len(table):
        raise VerificationError("a disclosure's digest is not in the credential")
    if check_status:
        status = payload.get("status", {}).get("status_list")
        if not isinstance(status, dict) or not isinstance(status.get("idx"), int) or not isinstance(status.get("uri"), str):
            raise VerificationError("no status list reference")
        if status_bit((fetch or _default_fetch)(status["uri"]), status["idx"], jwks) != 0:
            raise VerificationError("credential revoked (status list)")
    encoded = {_digest(d): d for d in disclosures}
    return Credential(
        issuer_jwt=issuer_jwt,
        payload=payload,
        claims=claims,
        disclosures=disclosures,
        by_claim={k: [encoded[x] for x in v] for k, v in by_claim.items()},
    )


def present(sd_jwt: str, jwks: Mapping[str, Any], *, holder_key: jwk.JWK, disclose: Iterable[str], aud: str, nonce: str, now: Optional[int] = None) -> str:
    """The presentation of a credential: the issuer JWT, the disclosures of the top-level claims
    named in `disclose` (with those nested in them), and a KB-JWT (`typ: kb+jwt`, RS256 by
    `holder_key`, the private key whose public half is `cnf.jwk`) over `iat`, `aud`, `nonce` and
    `sd_hash`, the base64url SHA-256 of everything before it (RFC 9901 §4.3)."""
    cred = verify_credential(sd_jwt, jwks, check_status=False)
    chosen: List[str] = []
    for name in disclose:
        if name not in cred.by_claim:
            raise ValueError(f"the credential discloses no claim {name}")
        chosen.extend(cred.by_claim[name])
    head = "~".join([cred.issuer_jwt, *chosen]) + "~"
    claims = {"iat": int(time.time()) if now is None else now, "aud": aud, "nonce": nonce, "sd_hash": _digest(head)}
    token = jws.JWS(json.dumps(claims, separators=(",", ":")).encode("utf-8"))
    token.add_signature(holder_key, alg="RS256", protected=json.dumps({"alg": "RS256", "typ": "kb+jwt"}))
    return head + str(token.serialize(compact=True))


def verify_presentation(
    presentation: str,
    jwks: Mapping[str, Any],
    *,
    aud: str,
    nonce: str,
    issuer: Optional[str] = None,
    fetch: Optional[Fetch] = None,
    max_age_sec: int = 300,
    now: Optional[float] = None,
) -> Credential:
    """Verifies a presentation as a verifier would: the credential (`verify_credential`), then
    the KB-JWT: `typ: kb+jwt`, its signature by `cnf.jwk`, `aud` and `nonce` as expected, `iat`
    within `max_age_sec`, `sd_hash` over the presentation before it. Raises `VerificationError`."""
    _, _, kb = _split(presentation)
    if kb is None:
        raise VerificationError("no key binding JWT")
    cred = verify_credential(presentation[: -len(kb)], jwks, issuer=issuer, fetch=fetch, now=now)
    cnf = cred.payload.get("cnf", {}).get("jwk")
    if not isinstance(cnf, dict):
        raise VerificationError("the credential names no holder key (cnf.jwk)")
    try:
        parsed = jws.JWS()
        parsed.deserialize(kb)
        alg = parsed.jose_header.get("alg")
        if alg not in ("RS256", "ES256"):
            raise VerificationError("KB-JWT alg not accepted")
        parsed.verify(jwk.JWK(**cnf), alg=alg)
    except VerificationError:
        raise
    except Exception:
        raise VerificationError("KB-JWT signature does not verify with cnf.jwk") from None
    if parsed.jose_header.get("typ") != "kb+jwt":
        raise VerificationError("KB-JWT typ is not kb+jwt")
    claims = json.loads(parsed.payload)
    t = time.time() if now is None else now
    if claims.get("aud") != aud or claims.get("nonce") != nonce:
        raise VerificationError("KB-JWT aud or nonce not as expected")
    if not isinstance(claims.get("iat"), int) or abs(t - claims["iat"]) > max_age_sec:
        raise VerificationError("KB-JWT iat outside the accepted window")
    if claims.get("sd_hash") != _digest(presentation[: -len(kb)]):
        raise VerificationError("KB-JWT sd_hash does not match the presentation")
    return cred
