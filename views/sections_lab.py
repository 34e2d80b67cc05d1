"""Server-side numbers for section 14, "Beyond the plate" (the lab). Filled in below."""
from __future__ import annotations

from views.params import Param

# The lab's controls in the URL state (merged into views.plate.STATE_SPEC).
STATE_SPEC = {
    "text": Param.text(max_len=64, default=""),           # sha256 of the reader's own text
    "tlang": Param.choice(("auto", "en", "zh"), default="auto"),
    "ldraft": Param.choice(("bigram", "unigram", "trigram", "lookup"), default="bigram"),
    "adapt": Param.choice(("off", "hf", "cost"), default="off"),
}


def data(lang: str, state: dict) -> dict:
    return {}
