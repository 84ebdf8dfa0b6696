"""HTTP plumbing shared by the network adapters (standard library only).

Three rules hold for every request Beacon sends to a model service:

* Redirects are never followed. urllib would re-send a POST as a GET to the
  new location *with the Authorization header*, and for Ollama a redirect is
  the easiest way to turn a "local" call into a remote one. A 3xx answer
  raises :class:`ProviderRefused`.
* Loopback URLs never go through a proxy: an ``http_proxy`` variable must not
  route a "local" model call off the machine.
* Retries are bounded and explicit: 429, 5xx and connection failures back off
  exponentially (honouring ``Retry-After`` up to a cap); other 4xx fail at once.
"""
from __future__ import annotations

import email.utils
import http.client
import json
import ipaddress
import time
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass
from typing import Any

from .base import (
    ProviderConfigError,
    ProviderConnectionError,
    ProviderHTTPError,
    ProviderRefused,
    ProviderResponseError,
)

USER_AGENT = "beacon-providers/1"
_EXCERPT_CHARS = 500


def is_loopback_host(host: str) -> bool:
    """True for ``localhost`` and literal loopback addresses (127.0.0.0/8, ::1)."""
    host = host.strip("[]").lower()
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        # Any other name could resolve anywhere; only literal addresses count.
        return False


def parse_base_url(base_url: str, provider: str) -> urllib.parse.SplitResult:
    """Validate an http(s) base URL with a host and nothing that hides where it points."""
    try:
        parts = urllib.parse.urlsplit(base_url)
        parts.port  # noqa: B018  (raises ValueError on a malformed port)
    except ValueError as exc:
        raise ProviderConfigError(f"{provider}: base_url {base_url!r} is not a valid URL ({exc})") from None
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ProviderConfigError(
            f"{provider}: base_url {base_url!r} must be an http:// or https:// URL with a host, "
            "e.g. http://127.0.0.1:8080/v1"
        )
    if parts.username is not None or parts.password is not None:
        raise ProviderConfigError(
            f"{provider}: base_url must not embed credentials (user:password@host); "
            "pass secrets through the API-key environment variable"
        )
    if parts.query or parts.fragment:
        raise ProviderConfigError(f"{provider}: base_url {base_url!r} must not have a query or fragment")
    return parts


class _NoRedirects(urllib.request.HTTPRedirectHandler):
    # Returning None makes urllib surface the 3xx as an HTTPError instead of
    # following it; we then refuse it with a clear message.
    def redirect_request(self, req, fp, code, msg, headers, newurl):  # noqa: ANN001
        return None


def build_opener(*, use_env_proxies: bool) -> urllib.request.OpenerDirector:
    proxies = urllib.request.ProxyHandler() if use_env_proxies else urllib.request.ProxyHandler({})
    return urllib.request.build_opener(proxies, _NoRedirects())


@dataclass(frozen=True)
class RetryPolicy:
    """Exponential backoff: attempt k waits ``min(max_delay_s, base_delay_s * 2**k)``.

    A ``Retry-After`` header replaces the computed delay but is capped at
    ``retry_after_cap_s`` so a misbehaving server cannot stall a run for hours.
    """

    max_retries: int = 4
    base_delay_s: float = 1.0
    max_delay_s: float = 30.0
    retry_after_cap_s: float = 60.0

    def __post_init__(self) -> None:
        if self.max_retries < 0:
            raise ProviderConfigError(f"max_retries must be >= 0, got {self.max_retries}")
        for name in ("base_delay_s", "max_delay_s", "retry_after_cap_s"):
            if getattr(self, name) < 0:
                raise ProviderConfigError(f"{name} must be >= 0, got {getattr(self, name)}")

    def delay(self, attempt: int, retry_after_s: float | None) -> float:
        if retry_after_s is not None:
            return min(retry_after_s, self.retry_after_cap_s)
        return min(self.max_delay_s, self.base_delay_s * (2 ** attempt))


def parse_retry_after(value: str | None) -> float | None:
    """Seconds to wait from a ``Retry-After`` header (delta-seconds or HTTP-date)."""
    if not value:
        return None
    value = value.strip()
    try:
        seconds = float(value)
    except ValueError:
        try:
            when = email.utils.parsedate_to_datetime(value)
        except (TypeError, ValueError):
            return None  # unparseable: fall back to our own backoff
        seconds = when.timestamp() - time.time()
    return max(0.0, seconds)


@dataclass(frozen=True)
class HttpResponse:
    status: int
    headers: dict[str, str]  # names lower-cased
    body: bytes
    latency_s: float  # the attempt that produced this response
    attempts: int


def redact(text: str, secrets: tuple[str, ...]) -> str:
    for secret in secrets:
        if secret:
            text = text.replace(secret, "***")
    return text


def scrub(obj: Any, secrets: tuple[str, ...]) -> Any:
    """``obj`` with every occurrence of a secret in any string replaced by ``***``."""
    if not secrets:
        return obj
    if isinstance(obj, str):
        return redact(obj, secrets)
    if isinstance(obj, dict):
        return {scrub(k, secrets): scrub(v, secrets) for k, v in obj.items()}
    if isinstance(obj, list):
        return [scrub(v, secrets) for v in obj]
    return obj


def _excerpt(body: bytes, secrets: tuple[str, ...]) -> str:
    text = body[:_EXCERPT_CHARS * 4].decode("utf-8", errors="replace")[:_EXCERPT_CHARS]
    return redact(text, secrets)


def _lower_keys(headers) -> dict[str, str]:  # noqa: ANN001  (an email.message.Message or None)
    # HTTP header names are case-insensitive; a plain dict lookup is not.
    return {k.lower(): v for k, v in headers.items()} if headers is not None else {}


def _send_once(opener: urllib.request.OpenerDirector, req: urllib.request.Request,
               timeout_s: float) -> tuple[int, dict[str, str], bytes, float]:
    start = time.perf_counter()
    try:
        with opener.open(req, timeout=timeout_s) as resp:
            body = resp.read()
            status, headers = resp.status, _lower_keys(resp.headers)
    except urllib.error.HTTPError as err:
        # Non-2xx (and refused 3xx) answers still carry a status and a body.
        try:
            body = err.read()
        finally:
            err.close()
        status, headers = err.code, _lower_keys(err.headers)
    return status, headers, body, time.perf_counter() - start


def request(
    opener: urllib.request.OpenerDirector,
    method: str,
    url: str,
    body: bytes | None,
    *,
    provider: str,
    timeout_s: float,
    policy: RetryPolicy,
    headers: dict[str, str] | None = None,
    secrets: tuple[str, ...] = (),
) -> HttpResponse:
    """Send one request with retries; return the 2xx response or raise a ProviderError.

    ``secrets`` are scrubbed from every error message (servers sometimes echo
    the key they rejected).
    """
    all_headers = {"Accept": "application/json", "User-Agent": USER_AGENT}
    if body is not None:
        all_headers["Content-Type"] = "application/json"
    all_headers.update(headers or {})
    last_problem = ""
    for attempt in range(policy.max_retries + 1):
        req = urllib.request.Request(url, data=body, headers=all_headers, method=method)
        retry_after: float | None = None
        try:
            status, resp_headers, resp_body, latency = _send_once(opener, req, timeout_s)
        except (urllib.error.URLError, OSError, http.client.HTTPException) as exc:
            reason = getattr(exc, "reason", exc)
            last_problem = f"cannot reach {url}: {type(reason).__name__}: {redact(str(reason), secrets)}"
        else:
            if 200 <= status < 300:
                return HttpResponse(status, resp_headers, resp_body, latency, attempt + 1)
            if 300 <= status < 400:
                location = redact(resp_headers.get("location", "<none>"), secrets)
                raise ProviderRefused(
                    f"{provider}: {method} {url} answered HTTP {status} redirecting to {location}; "
                    "redirects are never followed (they can leak credentials or leave the host) -- "
                    "set base_url to the final address"
                )
            detail = f"{method} {url} -> HTTP {status}: {_excerpt(resp_body, secrets)}"
            if status != 429 and status < 500:
                raise ProviderHTTPError(f"{provider}: {detail}", status=status, url=url,
                                        attempts=attempt + 1)
            last_problem = detail
            retry_after = parse_retry_after(resp_headers.get("retry-after"))
            if attempt == policy.max_retries:
                raise ProviderHTTPError(
                    f"{provider}: giving up after {attempt + 1} attempts; last: {detail}",
                    status=status, url=url, attempts=attempt + 1,
                )
        if attempt < policy.max_retries:
            time.sleep(policy.delay(attempt, retry_after))
    raise ProviderConnectionError(
        f"{provider}: giving up after {policy.max_retries + 1} attempts; last: {last_problem}; "
        "is the server running and is base_url right?"
    )


def decode_json_object(body: bytes, provider: str, what: str,
                       secrets: tuple[str, ...] = ()) -> dict[str, Any]:
    """The JSON object in a 2xx response body, or a ProviderResponseError saying why not."""
    try:
        payload = json.loads(body.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        excerpt = redact(body[:200].decode("utf-8", errors="replace"), secrets)
        raise ProviderResponseError(f"{provider}: {what} returned a body that is not JSON ({exc}): {excerpt!r}") from None
    if not isinstance(payload, dict):
        raise ProviderResponseError(f"{provider}: {what} returned JSON {type(payload).__name__}, expected an object")
    if payload.get("error"):
        # Some servers report failures as 2xx with an "error" member.
        raise ProviderResponseError(f"{provider}: {what} reported an error: "
                                    f"{redact(str(payload['error'])[:500], secrets)}")
    return payload
