"""The read path: one recall over one scope's in-memory index.

`scope` is the index (vectors, postings, per-item columns, derived from DuckDB; `indexfile`
persists it beside the file), `vectors` the exact dense top-n, `bm25` the tokenizer and BM25,
`stages` the pipeline's stages one function each, `pipeline` applies them in order, `nearby`
finds what was told just before and after an item.
"""
