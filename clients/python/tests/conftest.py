"""Fixtures of the client's tests: they run against a real hrx whose URL, keys and seeded ids
come from the environment (test/integration/cross/python-client.integration.test.ts sets them)."""
from __future__ import annotations

import json
import os
from typing import Any, Dict

import pytest
import requests
from jwcrypto import jwk

from hrx_client import HrxClient


def env(name: str) -> str:
    value = os.environ.get(name)
    if not value:
        pytest.skip(f"{name} is not set: these tests run against a running hrx")
    return value


@pytest.fixture(scope="session")
def seed() -> Dict[str, Any]:
    return {
        "base_url": env("HRX_BASE_URL"),
        "api_key": env("HRX_API_KEY"),
        "vendor_org": env("HRX_VENDOR_ORG"),
        "client_org": env("HRX_CLIENT_ORG"),
        "connection_id": env("HRX_CONNECTION_ID"),
        "employee_id": env("HRX_EMPLOYEE_ID"),
        "employee_name": env("HRX_EMPLOYEE_NAME"),
        "employee_pan": env("HRX_EMPLOYEE_PAN"),
    }


@pytest.fixture(scope="session")
def client(seed: Dict[str, Any]) -> HrxClient:
    return HrxClient(
        seed["base_url"],
        seed["api_key"],
        v2_username=env("HRX_V2_USERNAME"),
        v2_password=env("HRX_V2_PASSWORD"),
        v2_key=jwk.JWK(**json.loads(env("HRX_V2_PRIVATE_JWK"))),
    )


def has_route(base_url: str, path: str) -> bool:
    """Whether this hrx serves `path` (as its OpenAPI document spells it)."""
    doc = requests.get(base_url.rstrip("/") + "/openapi.json", timeout=30).json()
    return path in doc.get("paths", {})
