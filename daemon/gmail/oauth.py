"""OAuth for Gmail: the authorized-user credentials file, refreshed and written back atomically.

The file (MEMUBOT_GMAIL_CREDENTIALS) is Google's authorized-user JSON: client id and secret,
refresh token, access token and expiry. A refreshed token is written back to a temporary file
beside it (mode 0600) that then replaces it, so a crash never leaves half a file and the
secret is never readable by others. `memubot gmail auth` makes the file the first time.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import tempfile
import threading
from collections.abc import Sequence
from pathlib import Path
from urllib.parse import parse_qs, urlparse

import google_auth_httplib2  # type: ignore[import-untyped]
import httplib2  # type: ignore[import-untyped]
from google.auth.exceptions import GoogleAuthError
from google.oauth2.credentials import Credentials

from daemon.errors import ConfigError

log = logging.getLogger(__name__)

# read the mailbox; pull the notifications; users.watch needs only gmail.readonly
SCOPES = (
    "https://www.googleapis.com/auth/gmail.readonly",
    "https://www.googleapis.com/auth/pubsub",
)
REDIRECT_URI = "http://localhost"  # the browser lands on a page that does not load: its URL holds the code


def write_private(path: Path, text: str) -> None:
    """Write `text` to `path` atomically with mode 0600 (a temporary file, fsync, rename)."""
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        os.fchmod(fd, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


class CredentialFile:
    """The credentials of one file: loaded once, refreshed when expired, saved when they change."""

    def __init__(self, path: Path, scopes: Sequence[str] = SCOPES, token_url: str | None = None) -> None:
        self.path = path
        self._lock = threading.Lock()
        try:
            self.creds: Credentials = Credentials.from_authorized_user_file(str(path), list(scopes))  # type: ignore[no-untyped-call]
        except (OSError, ValueError) as exc:
            raise ConfigError(f"MEMUBOT_GMAIL_CREDENTIALS: cannot read {path}: {exc}") from exc
        if token_url:  # google-auth always sets Google's own token endpoint: tests and proxies replace it
            expiry = self.creds.expiry  # the copy with_token_uri makes forgets it
            self.creds = self.creds.with_token_uri(token_url)
            self.creds.expiry = expiry
        self._saved = self.creds.token

    def fresh(self) -> Credentials:
        """Valid credentials: refreshed first when expired (blocking; call it off the event loop)."""
        with self._lock:
            if not self.creds.valid:
                http = httplib2.Http(timeout=30)
                try:
                    self.creds.refresh(google_auth_httplib2.Request(http))  # type: ignore[no-untyped-call]
                except GoogleAuthError as exc:
                    raise ConfigError(f"Gmail credentials in {self.path} cannot be refreshed: {exc}") from exc
                finally:
                    http.close()
            self.save_if_changed()
            return self.creds

    def save_if_changed(self) -> None:
        """Write the credentials back when their access token changed (a refresh happened)."""
        if self.creds.token != self._saved:
            write_private(self.path, self.creds.to_json())  # type: ignore[no-untyped-call]
            self._saved = self.creds.token
            log.info("gmail: refreshed access token written to %s", self.path)


def code_from(answer: str) -> str:
    """The authorisation code from what the person pasted: the code, or the whole redirect URL."""
    answer = answer.strip()
    if answer.startswith(("http://", "https://")):
        codes = parse_qs(urlparse(answer).query).get("code")
        if not codes:
            raise ConfigError("the pasted URL has no code= parameter")
        return codes[0]
    return answer


def authorize(client_secrets: Path, target: Path, ask: object = input, say: object = print) -> Path:
    """`memubot gmail auth`: print the consent URL, take the code, write the credentials file."""
    from google_auth_oauthlib.flow import Flow  # type: ignore[import-untyped]

    assert callable(ask) and callable(say)
    try:
        flow = Flow.from_client_secrets_file(
            str(client_secrets), scopes=list(SCOPES), redirect_uri=REDIRECT_URI
        )
    except (OSError, ValueError) as exc:
        raise ConfigError(f"cannot read the OAuth client file {client_secrets}: {exc}") from exc
    url, _ = flow.authorization_url(access_type="offline", prompt="consent")
    say("Open this URL, allow access, then paste the address the browser ends on (or its code=):")
    say(url)
    flow.fetch_token(code=code_from(str(ask("code or URL: "))))
    data = json.loads(flow.credentials.to_json())
    target.parent.mkdir(parents=True, exist_ok=True)
    write_private(target, json.dumps(data))
    return target
