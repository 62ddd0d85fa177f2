"""`HrxClient`: the vendor's calls to hrx over HTTP (docs/api.md), on `requests`."""
from __future__ import annotations

import base64
from typing import Any, Dict, List, Mapping, Optional

import requests
from jwcrypto import jwk

from .credential import Credential, verify_credential
from .errors import HrxError, VerificationError
from .v2 import build_request, open_response


class HrxClient:
    """A vendor's client of one hrx at `base_url` (e.g. `https://hrx.example.com`).

    `api_key` is the vendor org's API key (`hrx_...`); `v2_username`/`v2_password` its V2 Basic
    credential and `v2_key` its private RSA JWK whose public half is registered (`hrx keys add`
    or `add_key`), needed only for the V2 read and credential presentation. Every method raises
    `HrxError` for an error answer."""

    def __init__(
        self,
        base_url: str,
        api_key: str,
        *,
        v2_username: Optional[str] = None,
        v2_password: Optional[str] = None,
        v2_key: Optional[jwk.JWK] = None,
        timeout: float = 30.0,
        session: Optional[requests.Session] = None,
    ) -> None:
        self.base_url = base_url.rstrip("/")
        self.api_key = api_key
        self.v2_username = v2_username
        self.v2_password = v2_password
        self.v2_key = v2_key
        self.timeout = timeout
        self.session = session or requests.Session()
        self._jwks: Optional[Dict[str, Any]] = None

    # -- plumbing -----------------------------------------------------------------------------
    def _call(self, method: str, path: str, *, headers: Optional[Mapping[str, Optional[str]]] = None, **kw: Any) -> Any:
        # A header given as None is left out (requests drops None values): the plain read takes
        # the key in `username`, not `authorization`.
        res = self.session.request(method, self.base_url + path, headers={"authorization": self.api_key, **(headers or {})}, timeout=self.timeout, **kw)
        try:
            body = res.json()
        except ValueError:
            body = res.text
        if res.status_code >= 400:
            raise HrxError(res.status_code, body)
        return body

    def _data(self, method: str, path: str, **kw: Any) -> Any:
        return self._call(method, path, **kw)["data"]

    def jwks(self, refresh: bool = False) -> Dict[str, Any]:
        """The service's public keys (`GET /.well-known/jwks.json`), fetched once per client."""
        if self._jwks is None or refresh:
            res = self.session.get(self.base_url + "/.well-known/jwks.json", timeout=self.timeout)
            if res.status_code != 200:
                raise HrxError(res.status_code, res.text)
            self._jwks = res.json()
        return self._jwks

    # -- reads --------------------------------------------------------------------------------
    def employee(self, employee_id: str, *, org: str, vendor_org: str, source: str = "db") -> Dict[str, Any]:
        """The plain read (docs/api.md "Employee details"): the masked record, filtered to the
        data points the connection shares. `org` is the employer's org UUID, `vendor_org` the
        caller's own."""
        return self._call(
            "GET",
            f"/api/employee_details/{requests.utils.quote(employee_id, safe='')}",
            params={"org": org, "vendor_org": vendor_org, "source": source},
            headers={"authorization": None, "username": self.api_key},
        )["data"]

    def pay_history(self, employee_id: str, *, org: str, vendor_org: str, months: int = 12) -> Dict[str, Any]:
        """Months of pay (docs/api.md "Pay history"): `{employeeId, as_of, months: [...]}`, newest
        first; each month has `month`, `year` and the `monthly_*` points the connection shares."""
        return self._call(
            "GET",
            f"/api/employee_details/{requests.utils.quote(employee_id, safe='')}/pay_history/",
            params={"org": org, "vendor_org": vendor_org, "months": months},
            headers={"authorization": None, "username": self.api_key},
        )["data"]

    def _v2(self, connection_id: str, employee_id: str, **claims: Any) -> Dict[str, Any]:
        if not (self.v2_username and self.v2_password and self.v2_key):
            raise ValueError("the V2 read needs v2_username, v2_password and v2_key")
        jwks = self.jwks()
        payload = build_request(vendor_key=self.v2_key, service_jwks=jwks, connection_id=connection_id, employee_id=employee_id, **claims)
        basic = base64.b64encode(f"{self.v2_username}:{self.v2_password}".encode("utf-8")).decode("ascii")
        body = self._call("POST", "/api/external/employee/", headers={"authorization": f"Basic {basic}"}, json={"encrypted_payload": payload})
        try:
            opened = open_response(body["data"], vendor_key=self.v2_key, service_jwks=jwks)
        except VerificationError:
            # The service may have rotated its keys since the JWKS was fetched: once more, fresh.
            opened = open_response(body["data"], vendor_key=self.v2_key, service_jwks=self.jwks(refresh=True))
        if opened.get("jti") != body.get("requestId"):
            raise VerificationError("the answer's jti is not its requestId")
        return opened

    def v2_employee(self, connection_id: str, employee_id: str, *, source: Optional[str] = None) -> Dict[str, Any]:
        """The V2 read (docs/v2.md): builds the signed and encrypted request, sends it, opens and
        verifies the sealed answer; returns the unmasked `employee` record."""
        return self._v2(connection_id, employee_id, source=source)["employee"]

    def v2_pay_history(self, connection_id: str, employee_id: str, *, months: int = 12) -> Dict[str, Any]:
        """Pay history through V2 (`resource: "pay_history"`): the sealed answer's `pay_history`."""
        return self._v2(connection_id, employee_id, resource="pay_history", months=months)["pay_history"]

    # -- the credential ------------------------------------------------------------------------
    def issue_credential(self, *, org: str, employee_id: str, months: int = 3) -> Dict[str, Any]:
        """Issues an employment and income credential (`POST /api/credentials/employment/`):
        `{credential_id, sd_jwt, exp}`, bound to the vendor's registered key."""
        return self._data("POST", "/api/credentials/employment/", json={"org": org, "employee_id": employee_id, "months": months})

    def verify_credential(self, sd_jwt: str) -> Credential:
        """`credential.verify_credential` against this hrx's JWKS, its status list fetched here."""

        def fetch(url: str) -> str:
            res = self.session.get(url, timeout=self.timeout)
            if res.status_code != 200:
                raise HrxError(res.status_code, res.text)
            return res.text

        return verify_credential(sd_jwt, self.jwks(), fetch=fetch)

    # -- vendor self-service (docs/api.md "Vendor self-service") ------------------------------
    def list_endpoints(self) -> List[Dict[str, Any]]:
        """The vendor's event endpoints."""
        return self._data("GET", "/api/vendor/endpoints/")

    def add_endpoint(self, url: str, events: Optional[List[str]] = None) -> Dict[str, Any]:
        """Registers an endpoint; the answer's `secret` (`whsec_...`) is shown this once."""
        return self._data("POST", "/api/vendor/endpoints/", json={"url": url, **({"events": events} if events else {})})

    def remove_endpoint(self, endpoint_id: str) -> Dict[str, Any]:
        """Removes an endpoint; its pending deliveries are cancelled."""
        return self._data("DELETE", f"/api/vendor/endpoints/{endpoint_id}/")

    def rotate_endpoint_secret(self, endpoint_id: str) -> Dict[str, Any]:
        """A new secret; the old one still signs until `previous_secret_expires_at` (24 h)."""
        return self._data("POST", f"/api/vendor/endpoints/{endpoint_id}/rotate-secret/")

    def test_endpoint(self, endpoint_id: str) -> Dict[str, Any]:
        """Sends an `endpoint.test` event to the endpoint: `{event_id, delivery_id, type}`."""
        return self._data("POST", f"/api/vendor/endpoints/{endpoint_id}/test/")

    def deliveries(self, endpoint_id: str, *, page: int = 1, page_size: int = 20) -> List[Dict[str, Any]]:
        """The endpoint's deliveries, newest first (no payloads)."""
        return self._data("GET", f"/api/vendor/endpoints/{endpoint_id}/deliveries/", params={"page": page, "page_size": page_size})

    def replay_delivery(self, delivery_id: str) -> Dict[str, Any]:
        """Sends a delivery's event again (same `webhook-id`)."""
        return self._data("POST", f"/api/vendor/deliveries/{delivery_id}/replay/")

    def list_keys(self) -> List[Dict[str, Any]]:
        """The vendor's registered public keys."""
        return self._data("GET", "/api/vendor/keys/")

    def add_key(self, public_jwk: Mapping[str, Any]) -> Dict[str, Any]:
        """Registers a public RSA JWK (2048+ bits)."""
        return self._data("POST", "/api/vendor/keys/", json={"jwk": dict(public_jwk)})

    def revoke_key(self, kid: str) -> Dict[str, Any]:
        """Revokes a registered key: V2 requests it signs are refused from then on."""
        return self._data("DELETE", f"/api/vendor/keys/{requests.utils.quote(kid, safe='')}/")
