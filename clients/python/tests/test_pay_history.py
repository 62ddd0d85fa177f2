"""Pay history (docs/api.md "Pay history"), plain and V2: runs once the hrx under test serves it."""
from __future__ import annotations

from typing import Any, Dict

import pytest

from conftest import has_route
from hrx_client import HrxClient


@pytest.fixture(autouse=True)
def served(seed: Dict[str, Any]) -> None:
    if not has_route(seed["base_url"], "/api/employee_details/{id}/pay_history/"):
        pytest.skip("this hrx has no pay history route yet")


def test_pay_history_plain_and_v2(client: HrxClient, seed: Dict[str, Any]) -> None:
    plain = client.pay_history(seed["employee_id"], org=seed["client_org"], vendor_org=seed["vendor_org"], months=6)
    assert plain["employeeId"] == seed["employee_id"]
    assert isinstance(plain["months"], list) and len(plain["months"]) <= 6
    assert plain["as_of"] is None or plain["as_of"].endswith("Z")
    for m in plain["months"]:
        assert 1 <= m["month"] <= 12 and m["year"] >= 2000
    keys = [(m["year"], m["month"]) for m in plain["months"]]
    assert keys == sorted(keys, reverse=True)
    sealed = client.v2_pay_history(seed["connection_id"], seed["employee_id"], months=6)
    assert [(m["year"], m["month"]) for m in sealed["months"]] == keys
