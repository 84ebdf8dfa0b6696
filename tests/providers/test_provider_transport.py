"""Pure helpers of the HTTP transport: loopback test, Retry-After, backoff."""
from __future__ import annotations

import email.utils
import time

import pytest

from beacon.providers.base import ProviderConfigError
from beacon.providers.transport import RetryPolicy, is_loopback_host, parse_retry_after


@pytest.mark.parametrize("host, loopback", [
    ("127.0.0.1", True), ("127.255.0.9", True), ("::1", True), ("[::1]", True), ("localhost", True),
    ("LocalHost", True), ("0.0.0.0", False), ("10.0.0.1", False), ("::ffff:127.0.0.1", False),
    ("localhost.localdomain", False), ("127.0.0.1.nip.io", False), ("", False),
])
def test_is_loopback_host(host, loopback):
    assert is_loopback_host(host) is loopback


def test_parse_retry_after():
    assert parse_retry_after(None) is None and parse_retry_after("") is None
    assert parse_retry_after(" 7 ") == 7.0
    assert parse_retry_after("soon") is None  # unparseable: own backoff applies
    later = email.utils.formatdate(time.time() + 30, usegmt=True)
    assert 25 <= parse_retry_after(later) <= 31
    past = email.utils.formatdate(time.time() - 30, usegmt=True)
    assert parse_retry_after(past) == 0.0


def test_backoff_doubles_up_to_the_caps():
    p = RetryPolicy(max_retries=5, base_delay_s=0.5, max_delay_s=3.0, retry_after_cap_s=10.0)
    assert [p.delay(k, None) for k in range(5)] == [0.5, 1.0, 2.0, 3.0, 3.0]
    assert p.delay(0, 4.0) == 4.0 and p.delay(0, 600.0) == 10.0
    with pytest.raises(ProviderConfigError, match="max_retries"):
        RetryPolicy(max_retries=-1)
