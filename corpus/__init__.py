"""The two books, cleaned, tokenised and counted: see ``corpus.text`` and ``corpus.snapshot``."""
from .snapshot import Snapshot, load
from .text import LANGS, SourceMissing, read_documents, tokenize

__all__ = ["LANGS", "Snapshot", "SourceMissing", "load", "read_documents", "tokenize"]
