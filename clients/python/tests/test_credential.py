"""The employment credential (docs/credential.md): issue, verify (signature, disclosures,
status list), present with a KB-JWT, verify the presentation; runs once the hrx under test
issues credentials."""
from __future__ import annotations

import os
from typing import Any, Dict

import pytest

from conftest import has_route
from hrx_client import HrxClient, VerificationError, present, verify_presentation


@pytest.fixture(autouse=True)
def served(seed: Dict[str, Any]) -> None:
    if not has_route(seed["base_url"], "/api/credentials/employment/"):
        pytest.skip("this hrx issues no credential yet")


def test_issue_verify_present(client: HrxClient, seed: Dict[str, Any]) -> None:
    issued = client.issue_credential(org=seed["client_org"], employee_id=seed["employee_id"], months=0)
    cred = client.verify_credential(issued["sd_jwt"])
    assert cred.payload["iss"].rstrip("/") and cred.payload["vct"].endswith("/vct/employment-income/v1")
    assert cred.claims["employee"]["employee_id"] == seed["employee_id"]
    assert cred.payload["cnf"]["jwk"]["n"] == client.v2_key.export_public(as_dict=True)["n"]

    assert client.v2_key is not None
    fetch = lambda url: client.session.get(url, timeout=30).text  # noqa: E731
    shown = present(issued["sd_jwt"], client.jwks(), holder_key=client.v2_key, disclose=["employee"], aud="https://co-lender.example", nonce="n-123")
    seen = verify_presentation(shown, client.jwks(), aud="https://co-lender.example", nonce="n-123", fetch=fetch)
    assert "employee" in seen.claims and "employer" not in seen.claims
    # For a verifier that shares no code with this client (the hrx suite runs `hrx credential verify`).
    out = os.environ.get("HRX_PRESENTATION_OUT")
    if out:
        with open(out, "w", encoding="utf-8") as f:
            f.write(shown)
    with pytest.raises(VerificationError):
        verify_presentation(shown, client.jwks(), aud="https://someone-else.example", nonce="n-123", fetch=fetch)
    with pytest.raises(VerificationError):
        verify_presentation(shown, client.jwks(), aud="https://co-lender.example", nonce="other", fetch=fetch)
    # A disclosure added after the KB-JWT was made breaks its sd_hash.
    head, kb = shown.rsplit("~", 1)
    extra = [d for d in cred.disclosures if d not in head.split("~")][0]
    with pytest.raises(VerificationError):
        verify_presentation(f"{head}~{extra}~{kb}", client.jwks(), aud="https://co-lender.example", nonce="n-123", fetch=fetch)
