"""`python -m daemon` → the memubot command line."""

from daemon.cli.main import main

raise SystemExit(main())
