"""Checks that need no hrx: Standard Webhooks vectors and an SD-JWT built here."""
from __future__ import annotations

import base64
import hashlib
import hmac
import json
import time
import zlib

import pytest
from jwcrypto import jwk, jws

from hrx_client import VerificationError, present, status_bit, verify_credential, verify_presentation, verify_webhook


def b64u(b: bytes) -> str:
    return base64.urlsafe_b64encode(b).rstrip(b"=").decode()


def test_webhook_signature_any_of_several() -> None:
    secret = "whsec_" + base64.b64encode(b"k" * 32).decode()
    body = b'{"type":"x"}'
    ts = str(int(time.time()))
    sig = base64.b64encode(hmac.new(b"k" * 32, f"msg_1.{ts}.".encode() + body, hashlib.sha256).digest()).decode()
    headers = {"Webhook-Id": "msg_1", "Webhook-Timestamp": ts, "Webhook-Signature": f"v1,AAAA v1,{sig}"}
    assert verify_webhook(secret, body, headers) == {"type": "x"}
    with pytest.raises(VerificationError):
        verify_webhook(secret, body, {**headers, "Webhook-Signature": "v1,AAAA"})


def _sd_jwt(issuer: jwk.JWK, holder: jwk.JWK, status_uri: str, exp_delta: int = 3600) -> tuple[str, list[str]]:
    disclosures = [b64u(json.dumps(["salt1", "employee", {"name": "Asha"}]).encode()), b64u(json.dumps(["salt2", "pay", [{"year": 2026}]]).encode())]
    digests = [b64u(hashlib.sha256(d.encode()).digest()) for d in disclosures]
    payload = {
        "iss": "https://hrx.example",
        "vct": "https://hrx.example/vct/employment-income/v1",
        "exp": int(time.time()) + exp_delta,
        "_sd": digests,
        "_sd_alg": "sha-256",
        "cnf": {"jwk": holder.export_public(as_dict=True)},
        "status": {"status_list": {"idx": 9, "uri": status_uri}},
    }
    t = jws.JWS(json.dumps(payload).encode())
    t.add_signature(issuer, alg="ES256", protected=json.dumps({"alg": "ES256", "typ": "dc+sd-jwt", "kid": "iss"}))
    return t.serialize(compact=True) + "~" + "~".join(disclosures) + "~", disclosures


def _status_list(issuer: jwk.JWK, revoked: set[int]) -> str:
    raw = bytearray(4)
    for i in revoked:
        raw[i // 8] |= 1 << (i % 8)
    payload = {"status_list": {"bits": 1, "lst": b64u(zlib.compress(bytes(raw)))}}
    t = jws.JWS(json.dumps(payload).encode())
    t.add_signature(issuer, alg="ES256", protected=json.dumps({"alg": "ES256", "typ": "statuslist+jwt", "kid": "iss"}))
    return t.serialize(compact=True)


def test_sd_jwt_verify_present_and_revocation() -> None:
    issuer = jwk.JWK.generate(kty="EC", crv="P-256", kid="iss")
    holder = jwk.JWK.generate(kty="RSA", size=2048)
    jwks = {"keys": [issuer.export_public(as_dict=True)]}
    sd, disclosures = _sd_jwt(issuer, holder, "https://hrx.example/status/1")
    valid = _status_list(issuer, set())
    cred = verify_credential(sd, jwks, issuer="https://hrx.example", fetch=lambda _: valid)
    assert cred.claims["employee"] == {"name": "Asha"} and cred.claims["pay"] == [{"year": 2026}]
    assert status_bit(_status_list(issuer, {9}), 9, jwks) == 1
    with pytest.raises(VerificationError):
        verify_credential(sd, jwks, fetch=lambda _: _status_list(issuer, {9}))
    # A disclosure the issuer never signed.
    forged = b64u(json.dumps(["salt3", "employer", {"name": "X"}]).encode())
    with pytest.raises(VerificationError):
        verify_credential(sd + forged + "~", jwks, fetch=lambda _: valid)
    shown = present(sd, jwks, holder_key=holder, disclose=["pay"], aud="aud-1", nonce="n1")
    assert shown.count("~") == 2
    seen = verify_presentation(shown, jwks, aud="aud-1", nonce="n1", fetch=lambda _: valid)
    assert "pay" in seen.claims and "employee" not in seen.claims
    stranger = jwk.JWK.generate(kty="RSA", size=2048)
    wrong = present(sd, jwks, holder_key=stranger, disclose=["pay"], aud="aud-1", nonce="n1")
    with pytest.raises(VerificationError):
        verify_presentation(wrong, jwks, aud="aud-1", nonce="n1", fetch=lambda _: valid)
    expired, _ = _sd_jwt(issuer, holder, "u", exp_delta=-10)
    with pytest.raises(VerificationError):
        verify_credential(expired, jwks, check_status=False)
