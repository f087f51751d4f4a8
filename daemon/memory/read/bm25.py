"""The inverted index: CJK-aware tokenisation and BM25 over postings derived from DuckDB.

The postings table in DuckDB is the truth; `BM25Index` is its in-memory copy for one scope,
rebuilt from a snapshot and appended to on every write, so that a query scores only the
postings of its own terms with numpy instead of joining tables.
"""

from __future__ import annotations

import bisect
import functools
import math
import re
import unicodedata
from collections import Counter
from dataclasses import dataclass

import numpy as np
import rjieba

# Han ideographs (and their extensions), kana and hangul are segmented as CJK; everything else
# word-like is treated as Latin-script text.
_CJK = r"\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff"
_RUN = re.compile(rf"([{_CJK}]+)|([^\W_{_CJK}]+(?:['’][^\W_{_CJK}]+)*)", re.UNICODE)
_HAN = re.compile(rf"^[{_CJK}]+$")
_WORD_ASCII = re.compile(r"[a-z0-9]+(?:'[a-z0-9]+)*")  # _RUN's word in lower-cased ASCII text

# Function words carry no topic. Kept short on purpose: BM25's idf already discounts frequent
# words, the list only removes terms whose postings would be huge and useless.
STOPWORDS_EN = frozenset(
    """a an the and or but if of at by for with about against between into through during before after
    above below to from up down in out on off over under again further then once here there when where
    why how all any both each few more most other some such no nor not only own same so than too very s t
    can will just don should now i me my myself we our ours ourselves you your yours yourself yourselves
    he him his himself she her hers herself it its itself they them their theirs themselves what which
    who whom this that these those am is are was were be been being have has had having do does did
    doing would could ought i'm you're he's she's it's we're they're i've you've we've they've i'd you'd
    he'd she'd we'd they'd i'll you'll he'll she'll we'll they'll isn't aren't wasn't weren't hasn't
    haven't hadn't doesn't don't didn't won't wouldn't shan't shouldn't can't cannot couldn't mustn't
    let's that's who's what's here's there's when's where's why's how's also yeah yes oh wow hey hi
    really thanks thank like get got gonna""".split()
)
STOPWORDS_ZH = frozenset(
    "的 了 和 是 在 我 你 他 她 它 们 这 那 有 就 也 都 而 及 与 着 或 一个 没有 我们 你们 他们 吗 呢 吧 啊 呀 哦 嗯"
    " 么 把 被 让 给 对 从 向 之 于 以 很 还 又 要 会 能 可以 不 没 个 上 下 中 里 去 来 说".split()
)


def _stem(word: str) -> str:
    """A light English suffix stripper (plural, -ing, -ed, -ly), never below 3 letters.

    Full Porter stemming over-merges short conversational words; this only folds the forms
    that most often separate a question from its answer ("paintings"/"painting"/"painted").
    """
    if not word.isascii() or len(word) <= 3:
        return word
    if word.endswith("ies") and len(word) > 4:
        return word[:-3] + "y"
    if word.endswith("sses"):
        return word[:-2]
    if word.endswith("es") and word[-3:-2] in ("s", "x", "z", "h") and len(word) > 4:
        word = word[:-2]
    elif word.endswith("s") and not word.endswith(("ss", "us", "is")):
        word = word[:-1]
    for suffix in ("ingly", "edly", "ing", "ed", "ly"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            word = word[: -len(suffix)]
            if len(word) > 3 and word[-1] == word[-2] and word[-1] not in "lsz":
                word = word[:-1]  # "running" → "run", "planned" → "plan"
            break
    return word


def tokenize(text: str) -> list[str]:
    """Index terms of `text`: case-folded, stemmed Latin words and jieba-segmented CJK words.

    Chinese is segmented into words (with `cut_for_search`, which also emits the shorter words
    inside long compounds), never only into single characters.
    """
    if text.isascii():
        # the same terms (NFKC leaves ASCII as it is, and it has no CJK run) in half the time:
        # a recall's read-time net tokenises every hit it weighs
        return [t for t in map(_latin_term, _WORD_ASCII.findall(text.lower())) if t is not None]
    return _tokenize_any(text)


def _tokenize_any(text: str) -> list[str]:
    """`tokenize` for any text."""
    text = unicodedata.normalize("NFKC", text).casefold()
    terms: list[str] = []
    for match in _RUN.finditer(text):
        cjk, word = match.group(1), match.group(2)
        if cjk:
            for tok in rjieba.cut_for_search(cjk):
                tok = tok.strip()
                if tok and tok not in STOPWORDS_ZH and _HAN.match(tok):
                    terms.append(tok)
        elif word:
            term = _latin_term(word)
            if term is not None:
                terms.append(term)
    return terms


@functools.lru_cache(maxsize=1 << 16)
def _latin_term(word: str) -> str | None:
    """The index term of one case-folded Latin word, None for a stopword. Cached: an import
    tokenises the same few thousand words over and over."""
    word = word.replace("’", "'")
    if word in STOPWORDS_EN:
        return None
    if word.endswith("'s"):
        word = word[:-2]
    if word and word not in STOPWORDS_EN:
        return _stem(word)
    return None


def term_counts(text: str) -> tuple[Counter[str], int]:
    """Term frequencies and document length (in terms) for one document."""
    terms = tokenize(text)
    return Counter(terms), len(terms)


@dataclass(frozen=True, slots=True)
class BM25Params:
    """Okapi BM25 parameters."""

    k1: float = 1.2
    b: float = 0.75


class BM25Index:
    """In-memory postings for one scope; documents are dense integer positions.

    Postings loaded in bulk are one compressed-sparse-row block: a term's number (`_term_id`)
    picks `_docs[_starts[t]:_starts[t+1]]` (int32, sorted) and the matching `_tfs`, so a term
    costs a dict entry, not two numpy views (issue 25: the views cost more than the postings).
    Postings written since then go to per-term Python lists (`_tail`); a term's two parts are
    merged lazily when queried.
    """

    def __init__(self, params: BM25Params | None = None) -> None:
        self.params = params or BM25Params()
        self._term_id: dict[str, int] = {}
        self._starts = np.zeros(1, dtype=np.int64)
        self._docs = np.zeros(0, dtype=np.int32)
        self._tfs = np.zeros(0, dtype=np.float32)
        self._tail: dict[str, tuple[list[int], list[int]]] = {}
        self._merged: dict[str, tuple[np.ndarray, np.ndarray]] = {}
        self._len = np.zeros(64, dtype=np.float32)
        self._n = 0
        self._total_len = 0.0

    @property
    def n_docs(self) -> int:
        return self._n

    @property
    def doc_len(self) -> np.ndarray:
        return self._len[: self._n]

    def _grow(self, n: int) -> None:
        if n > self._len.shape[0]:
            grown = np.zeros(max(n, 2 * self._len.shape[0]), dtype=np.float32)
            grown[: self._n] = self._len[: self._n]
            self._len = grown
        self._n = max(self._n, n)

    def load(
        self,
        terms: list[str],
        starts: np.ndarray,
        docs: np.ndarray,
        tfs: np.ndarray,
        doc_len: np.ndarray,
        vocabulary: dict[str, int] | None = None,
    ) -> None:
        """Bulk-load postings sorted by (term, doc): term i owns docs[starts[i]:starts[i+1]].

        `vocabulary` (term → number, holding every one of `terms`, numbered in the same order)
        is shared with the scope's other fields instead of a dict of this field's own: the
        fields' terms are mostly the same words.
        """
        self._grow(doc_len.shape[0])
        self._len[: doc_len.shape[0]] = doc_len
        self._total_len = float(doc_len.sum())
        starts = np.asarray(starts, dtype=np.int64)
        at = None if vocabulary is None else np.asarray([vocabulary[t] for t in terms], dtype=np.int64)
        if vocabulary is None or at is None or np.any(np.diff(at) <= 0):
            # (a vocabulary numbered in another order than `terms` would misplace postings)
            self._term_id = {term: i for i, term in enumerate(terms)}
        else:  # the same postings, with an empty range for each term this field lacks
            counts = np.zeros(len(vocabulary), dtype=np.int64)
            counts[at] = np.diff(starts)
            starts = np.zeros(len(vocabulary) + 1, dtype=np.int64)
            np.cumsum(counts, out=starts[1:])
            self._term_id = vocabulary
        self._starts = starts
        self._docs = np.asarray(docs, dtype=np.int32)
        # extend() adds to the tfs in place: a float32 array this index may write to (a fresh
        # read's, or a copy-on-write mapping) is taken as it is, anything else is copied
        writable = tfs.dtype == np.float32 and tfs.flags.writeable and tfs.flags.c_contiguous
        self._tfs = tfs if writable else np.array(tfs, dtype=np.float32)
        self._tail.clear()
        self._merged.clear()

    def _base(self, term: str) -> tuple[np.ndarray, np.ndarray] | None:
        t = self._term_id.get(term)
        if t is None or t + 1 >= self._starts.shape[0]:
            return None
        lo, hi = int(self._starts[t]), int(self._starts[t + 1])
        return (self._docs[lo:hi], self._tfs[lo:hi]) if hi > lo else None

    def add(self, doc: int, counts: dict[str, int], length: int) -> None:
        """Append the postings of document `doc` (positions must be added in increasing order)."""
        self._grow(doc + 1)
        self._len[doc] = length
        self._total_len += length
        for term, tf in counts.items():
            docs, tfs = self._tail.setdefault(term, ([], []))
            docs.append(doc)
            tfs.append(tf)
            self._merged.pop(term, None)

    def extend(self, doc: int, counts: dict[str, int], extra_len: int) -> None:
        """Grow an existing document by more terms (its context grew): tf and length add up.

        Both the bulk part and the tail keep each term's documents sorted, so the document is
        found by bisection.
        """
        self._len[doc] += extra_len
        self._total_len += extra_len
        for term, tf in counts.items():
            self._merged.pop(term, None)
            base = self._base(term)
            if base is not None:
                at = int(np.searchsorted(base[0], doc))
                if at < base[0].shape[0] and base[0][at] == doc:
                    base[1][at] += tf
                    continue
            docs, tfs = self._tail.setdefault(term, ([], []))
            at = bisect.bisect_left(docs, doc)
            if at < len(docs) and docs[at] == doc:
                tfs[at] += tf
            else:
                docs.insert(at, doc)
                tfs.insert(at, tf)

    def _postings(self, term: str) -> tuple[np.ndarray, np.ndarray] | None:
        got = self._merged.get(term)
        if got is not None:
            return got
        base = self._base(term)
        tail = self._tail.get(term)
        if tail is None or not tail[0]:
            return base
        t_docs = np.asarray(tail[0], dtype=np.int64)
        t_tfs = np.asarray(tail[1], dtype=np.float32)
        got = (
            (t_docs, t_tfs)
            if base is None
            else (np.concatenate([base[0], t_docs]), np.concatenate([base[1], t_tfs]))
        )
        self._merged[term] = got
        return got

    def postings(self) -> tuple[list[str], np.ndarray, np.ndarray, np.ndarray]:
        """Every posting, bulk part and tail: (terms, term number, doc, tf) in no set order."""
        terms = list(self._term_id)
        if len(terms) != self._starts.shape[0] - 1:  # a shared vocabulary grown by another field
            terms = terms[: self._starts.shape[0] - 1]
        tids = [np.repeat(np.arange(len(terms), dtype=np.int64), np.diff(self._starts))]
        docs = [self._docs.astype(np.int64)]
        tfs = [self._tfs]
        known = {term: i for i, term in enumerate(terms)}
        for term, (t_docs, t_tfs) in self._tail.items():
            if not t_docs:
                continue
            t = known.setdefault(term, len(known))
            if t == len(terms):
                terms.append(term)
            tids.append(np.full(len(t_docs), t, dtype=np.int64))
            docs.append(np.asarray(t_docs, dtype=np.int64))
            tfs.append(np.asarray(t_tfs, dtype=np.float32))
        return terms, np.concatenate(tids), np.concatenate(docs), np.concatenate(tfs)

    def bulk(self) -> tuple[list[str], np.ndarray, np.ndarray, np.ndarray] | None:
        """The postings as loaded, (terms, starts, docs, tfs) as `load` takes them (terms
        without postings left out), when nothing was added since; None otherwise."""
        if any(docs for docs, _ in self._tail.values()):
            return None
        counts = np.diff(self._starts)
        keep = counts > 0
        terms = [term for term, k in zip(self._term_id, keep.tolist(), strict=False) if k]
        starts = np.zeros(len(terms) + 1, dtype=np.int64)
        np.cumsum(counts[keep], out=starts[1:])
        return terms, starts, self._docs, self._tfs

    def nbytes(self) -> int:
        """Bytes held by the postings arrays and lengths (not the term dict or the tail)."""
        return int(self._starts.nbytes + self._docs.nbytes + self._tfs.nbytes + self._len.nbytes)

    def scores(self, query_terms: list[str]) -> np.ndarray:
        """BM25 score of every document for the query (zeros where no term matches)."""
        n = self._n
        out = np.zeros(n, dtype=np.float32)
        if n == 0:
            return out
        k1, b = self.params.k1, self.params.b
        avgdl = max(self._total_len / n, 1.0)
        doc_len = self._len
        for term, qtf in Counter(query_terms).items():
            post = self._postings(term)
            if post is None:
                continue
            docs, tf = post
            df = docs.shape[0]
            idf = math.log(1.0 + (n - df + 0.5) / (df + 0.5))
            norm = k1 * (1.0 - b + b * doc_len[docs] / avgdl)
            out[docs] += qtf * idf * (tf * (k1 + 1.0)) / (tf + norm)
        return out
