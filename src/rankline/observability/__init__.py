"""What an operator's pipeline takes from a server: log lines (text, or one JSON object per
line with ``RANKLINE_LOG_FORMAT=json``) and a request id on every request (``X-Request-ID``
taken or added, echoed in the answer and in problem+json)."""

from rankline.observability.logs import configure_logging, current_request_id
from rankline.observability.requests import Observed, observe

__all__ = ["Observed", "configure_logging", "current_request_id", "observe"]
