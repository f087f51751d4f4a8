"""The repositories of trigger state: each a `Table` on the memory database's one connection."""
