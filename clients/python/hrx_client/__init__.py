"""hrx's Python client: the plain and V2 employee reads, pay history, vendor self-service,
Standard Webhooks verification and the employment credential (SD-JWT VC)."""
from .client import HrxClient
from .credential import Credential, present, status_bit, verify_credential, verify_presentation
from .errors import HrxError, VerificationError
from .v2 import build_request, open_response
from .webhooks import verify_webhook

__all__ = [
    "Credential",
    "HrxClient",
    "HrxError",
    "VerificationError",
    "build_request",
    "open_response",
    "present",
    "status_bit",
    "verify_credential",
    "verify_presentation",
    "verify_webhook",
]
__version__ = "0.1.0"
