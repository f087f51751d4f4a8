"""`memubot gmail auth`: the first OAuth authorisation of the Gmail trigger."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from daemon.config import Settings


def cmd_gmail_auth(args: argparse.Namespace, settings: Settings) -> int:
    from daemon.gmail.oauth import authorize

    target = args.out or settings.gmail_credentials
    if target is None:
        print(
            "memubot gmail auth: say where to write the credentials: --out FILE or MEMUBOT_GMAIL_CREDENTIALS"
        )
        return 2
    written = authorize(args.client_secrets, target)
    print(f"wrote {written} (mode 0600); set MEMUBOT_GMAIL_CREDENTIALS={written} for the daemon")
    return 0


def add_parsers(sub: Any) -> None:
    p = sub.add_parser("gmail", help="the Gmail trigger", description="Set up the Gmail trigger.")
    gsub = p.add_subparsers(dest="gmail_command", metavar="COMMAND")
    a = gsub.add_parser(
        "auth",
        help="authorise memubot to read the mailbox (prints a URL, takes the code)",
        description=(
            "Reads an OAuth client file (Google Cloud console → APIs & Services → Credentials → "
            "OAuth client ID, type 'Desktop app' → download JSON), prints the consent URL, and "
            "takes the code (or the whole address the browser ends on). Writes an authorized-user "
            "credentials file, mode 0600."
        ),
    )
    a.add_argument("--client-secrets", type=Path, required=True, metavar="FILE", help="the OAuth client JSON")
    a.add_argument(
        "--out", type=Path, metavar="FILE", help="where to write (default MEMUBOT_GMAIL_CREDENTIALS)"
    )
    a.set_defaults(func=cmd_gmail_auth)
