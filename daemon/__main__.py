"""`python -m daemon` → the memubot command line."""

from daemon.cli import main

raise SystemExit(main())
