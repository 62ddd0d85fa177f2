"""Vendor self-service and signed events: an endpoint registered through the API, a test event
received by a local receiver and verified, a secret rotation verified with both secrets."""
from __future__ import annotations

import http.server
import threading
import time
from typing import Any, Dict, Iterator, List, Tuple

import pytest

from hrx_client import HrxClient, HrxError, VerificationError, verify_webhook

Received = Tuple[bytes, Dict[str, str]]


@pytest.fixture()
def receiver() -> Iterator[Tuple[str, List[Received]]]:
    got: List[Received] = []

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_POST(self) -> None:  # noqa: N802 (http.server's name)
            body = self.rfile.read(int(self.headers.get("content-length", "0")))
            got.append((body, {k.lower(): v for k, v in self.headers.items()}))
            self.send_response(204)
            self.end_headers()

        def log_message(self, *args: Any) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/hooks/hrx", got
    finally:
        server.shutdown()


def wait_for(got: List[Received], n: int, timeout: float = 20.0) -> Received:
    deadline = time.time() + timeout
    while len(got) < n:
        if time.time() > deadline:
            raise AssertionError(f"{n} deliveries expected, {len(got)} arrived")
        time.sleep(0.05)
    return got[n - 1]


def test_signed_test_event_and_secret_rotation(client: HrxClient, seed: Dict[str, Any], receiver: Tuple[str, List[Received]]) -> None:
    url, got = receiver
    endpoint = client.add_endpoint(url)
    assert endpoint["secret"].startswith("whsec_")
    assert any(e["id"] == endpoint["id"] for e in client.list_endpoints())

    sent = client.test_endpoint(endpoint["id"])
    body, headers = wait_for(got, 1)
    event = verify_webhook(endpoint["secret"], body, headers)
    assert event["type"] == "endpoint.test"
    assert headers["webhook-id"] == sent["event_id"]
    with pytest.raises(VerificationError):
        verify_webhook(endpoint["secret"], body + b" ", headers)
    with pytest.raises(VerificationError):
        verify_webhook(endpoint["secret"], body, {**headers, "webhook-timestamp": str(int(time.time()) - 3600)})

    rotated = client.rotate_endpoint_secret(endpoint["id"])
    client.test_endpoint(endpoint["id"])
    body2, headers2 = wait_for(got, 2)
    assert len(headers2["webhook-signature"].split(" ")) == 2
    assert verify_webhook(rotated["secret"], body2, headers2)["type"] == "endpoint.test"
    assert verify_webhook(endpoint["secret"], body2, headers2)["type"] == "endpoint.test"

    deliveries = client.deliveries(endpoint["id"])
    assert [d["status"] for d in deliveries] == ["delivered", "delivered"]
    assert "payload" not in deliveries[0]
    client.replay_delivery(deliveries[-1]["id"])
    body3, headers3 = wait_for(got, 3)
    assert headers3["webhook-id"] == sent["event_id"] and body3 == body

    client.remove_endpoint(endpoint["id"])
    with pytest.raises(HrxError) as err:
        client.test_endpoint(endpoint["id"])
    assert err.value.status == 404


def test_keys_are_listed(client: HrxClient) -> None:
    kids = [k["kid"] for k in client.list_keys() if k["status"] == "active"]
    assert client.v2_key is not None and client.v2_key.get("kid") in kids
