"""Trigger state: what memubot keeps about the world beside the memory, for triggers and predictors.

The event ledger (ledger.py), the suggestion outbox (suggestions.py), pull request and issue
state (work_items.py), CI runs per lane (workflow_runs.py) and e-mail threads
(email_threads.py). None of it is memory: recall never reads it and nothing here fades. It lives
in the memory's DuckDB file and runs on the memory's connection under the memory's lock, so that
"handled" and "stored" commit together; the Memory facade hands both over, and forgetting
reaches these tables only through each owner's `forget` hook. The SQL is in tables/.
"""

# The memory's store, and with it the memory package, first: the package's facade imports the
# modules here, and each of them imports the store. Imported the other way round (a script that
# starts at daemon.state or daemon.runtime), the facade would meet a module here half-initialised.
import daemon.memory.store  # noqa: F401
