"""The plain read and the V2 read against a real hrx."""
from __future__ import annotations

from typing import Any, Dict

import pytest
from jwcrypto import jwk

from hrx_client import HrxClient, HrxError, VerificationError, open_response


def test_plain_read_is_masked_and_filtered(client: HrxClient, seed: Dict[str, Any]) -> None:
    record = client.employee(seed["employee_id"], org=seed["client_org"], vendor_org=seed["vendor_org"])
    assert record["employeeId"] == seed["employee_id"]
    assert record["name"] == seed["employee_name"]
    # The plain read masks the PAN (docs/api.md "Masking"): never the whole value.
    assert record["pan"] != seed["employee_pan"]


def test_plain_read_error_carries_status_and_message(client: HrxClient, seed: Dict[str, Any]) -> None:
    with pytest.raises(HrxError) as err:
        client.employee("EMP-NOBODY", org=seed["client_org"], vendor_org=seed["vendor_org"])
    assert err.value.status == 404
    assert err.value.message == "Employee not found"
    assert err.value.request_id


def test_v2_read_is_unmasked_signed_and_sealed(client: HrxClient, seed: Dict[str, Any]) -> None:
    record = client.v2_employee(seed["connection_id"], seed["employee_id"])
    assert record["employeeId"] == seed["employee_id"]
    assert record["pan"] == seed["employee_pan"]


def test_v2_answer_opens_only_with_the_vendor_key(client: HrxClient, seed: Dict[str, Any]) -> None:
    from hrx_client.v2 import build_request
    import base64

    payload = build_request(vendor_key=client.v2_key, service_jwks=client.jwks(), connection_id=seed["connection_id"], employee_id=seed["employee_id"])
    basic = base64.b64encode(f"{client.v2_username}:{client.v2_password}".encode()).decode()
    res = client.session.post(client.base_url + "/api/external/employee/", json={"encrypted_payload": payload}, headers={"authorization": f"Basic {basic}"}, timeout=30)
    assert res.status_code == 200
    stranger = jwk.JWK.generate(kty="RSA", size=2048)
    with pytest.raises(VerificationError):
        open_response(res.json()["data"], vendor_key=stranger, service_jwks=client.jwks())
    # Verified against a JWKS without the service's signing key: refused too.
    enc_only = {"keys": [k for k in client.jwks()["keys"] if k.get("use") == "enc"]}
    with pytest.raises(VerificationError):
        open_response(res.json()["data"], vendor_key=client.v2_key, service_jwks=enc_only)


def test_v2_unknown_connection_is_404(client: HrxClient, seed: Dict[str, Any]) -> None:
    with pytest.raises(HrxError) as err:
        client.v2_employee("00000000-0000-4000-8000-000000000000", seed["employee_id"])
    assert err.value.status == 404
    assert err.value.message == "Invalid Connection ID"
