"""The `memubot` command: parser and offline commands (`main`), commands sent through the
running daemon (`bus`), memory commands (`memory`), `import` (`imports`), Gmail set-up
(`gmail`) and the progress line for long work (`progress`)."""
