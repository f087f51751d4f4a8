"""The write path: resources → item drafts → embedded, understood, deduplicated, committed.

`pipeline` runs it (batches, embedding on a worker, one commit a batch); `noise` and `extract`
turn a resource into drafts; `dedup`, `decisions`, `plan` and `updates` decide what each draft
does to the memory (create, merge, skip, retire an older statement); `samecontent`,
`slotfamilies` and `categoryranks` are kept beside a scope's index so a write reads no scope
from DuckDB; `correction` is the person's own fix; `drafts` keeps handler drafts with their
resource; `readersfirst` lets recalls in progress go before a writer's next plan or commit.
"""
