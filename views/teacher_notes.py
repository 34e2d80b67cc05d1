"""Teacher notes, one per section of the plate: what it teaches, the misconception it targets and
two questions to ask the class. The URL options each section reads are not written here: the
teacher's page lists them from the declarations (sim/params.py), so they cannot drift.
Keyed by anchor, which never changes; tests/test_teach.py checks that every section has one."""
from __future__ import annotations

from dataclasses import dataclass

from views.translation import lazy_gettext as _l


@dataclass(frozen=True)
class Note:
    teaches: object
    misconception: object
    questions: tuple


NOTES = {
    "onebyone": Note(
        _l("Writing one token means reading every weight of the model from memory once; at one stream the arithmetic units wait on that read most of the time."),
        _l("“Generation is slow because the GPU runs out of arithmetic.” At batch 1 it runs out of memory bandwidth long before."),
        (_l("If the GPU could do ten times more arithmetic per second, how much sooner would the next token come?"),
         _l("What has to travel from memory to the chip for every single token?")),
    ),
    "batch": Note(
        _l("One read of the weights can serve many streams at once: the time of a step barely grows with the batch until the arithmetic becomes the limit."),
        _l("“A batch makes each reader’s text come faster.” It raises the tokens per second of all streams together, not the speed of one."),
        (_l("Why does a step for 32 streams take about as long as a step for one?"),
         _l("Past which batch does adding streams stop paying, and what is then the limit?")),
    ),
    "draft": Note(
        _l("A small model guesses the next few tokens cheaply; the large model only checks them."),
        _l("“The small model writes part of the text.” It only proposes: every token that stays has passed the large model’s check."),
        (_l("How much does one guess of the draft cost, counted in runs of the target?"),
         _l("What happens to a guess the large model would rarely have written?")),
    ),
    "tape": Note(
        _l("One pass of the target checks every guess at once; it keeps them up to the first refusal and then writes one token of its own."),
        _l("“A good guess after a wrong one is kept too.” Everything after the first refusal is thrown away, because it was guessed from a context that is no longer the text."),
        (_l("With four guesses per pass, what are the most and the fewest tokens one pass can write?"),
         _l("Why is a guess after the first refusal dropped even when it happens to be right?")),
    ),
    "rule": Note(
        _l("A guess x is kept with chance min(1, p(x)/q(x)); after a refusal the target draws from what the draft under-offered, max(0, p − q)."),
        _l("“Keep a guess only when it is the large model’s favourite.” That rule changes the text; the exact rule keeps less likely tokens just as often as the large model would write them."),
        (_l("The draft gives a token 0.6 and the target 0.3: how often is it kept?"),
         _l("After a refusal, why draw from the leftover max(0, p − q) rather than from p itself?")),
    ),
    "exact": Note(
        _l("With the exact rule, every written token has exactly the large model’s distribution; the two wrong rules visibly do not."),
        _l("“Speculative decoding trades a little quality for speed.” With the exact rule the text is distributed exactly as the large model’s own."),
        (_l("How would you tell from the two tubes that a rule is wrong?"),
         _l("Why do more rounds make a small difference between the tubes easier to see?")),
    ),
    "alpha": Note(
        _l("The acceptance rate α is the overlap of the two models’ distributions; with γ guesses a pass writes (1 − α^(γ+1)) / (1 − α) tokens on average."),
        _l("“α belongs to the draft.” It depends on both models and on the text being written."),
        (_l("With α = 0.8 and four guesses, about how many tokens does one pass write?"),
         _l("Why does the measured α wander from one run to the next?")),
    ),
    "speedup": Note(
        _l("The speed-up is the tokens per pass divided by the cost of a pass, γc + 1; it has a best γ, and a draft cost above which speculation never pays."),
        _l("“More guesses per pass are always faster.” Past the best γ, the extra guesses cost more than the tokens they add."),
        (_l("Why does the speed-up fall again past some number of guesses?"),
         _l("At which draft cost does speculation stop paying for this acceptance rate?")),
    ),
    "idle": Note(
        _l("Checking guesses uses arithmetic that sits idle at small batches; at large batches that arithmetic is busy and speculation pays less, or loses."),
        _l("“Speculative decoding helps at any batch size.” A server already busy with many streams has little idle arithmetic left to spend."),
        (_l("Why does the same draft pay less at batch 256 than at batch 1?"),
         _l("What does a longer context per stream change, and why?")),
    ),
    "selfdraft": Note(
        _l("The guesses need not come from a second model: extra heads on the target, or text copied from what is already written, can draft too."),
        _l("“Speculative decoding always needs a separate small model.” Self-drafting and prompt lookup do without one."),
        (_l("Where does prompt lookup find its guesses, and on what kind of text does it do well?"),
         _l("What does a draft head share with the large model that a separate small model does not?")),
    ),
    "trees": Note(
        _l("A tree of guesses checks several continuations in one pass; an attention mask keeps each branch from seeing the others, and the exact rules keep the distribution."),
        _l("“Checking several branches at once breaks exactness.” With the right rule the text keeps the large model’s distribution; the naive rule does not."),
        (_l("Why can a tree of eight guesses write more per pass than a chain of eight?"),
         _l("What does the attention mask stop a node from seeing, and why does that matter?")),
    ),
    "reader": Note(
        _l("Positions that share one read of the weights cost almost nothing extra until the arithmetic they need catches up with the read: the ridge point."),
        _l("“Checking five guesses costs five passes.” Five positions share one read, so the check costs about one pass."),
        (_l("How many positions can share one read before the arithmetic becomes the limit?"),
         _l("Why is checking a few guesses about as fast as writing one token?")),
    ),
    "parts": Note(
        _l("The whole method in its pieces: plain decoding is the big drum, its reader, the cache and the tape; speculation adds only the small drum and the gauges."),
        _l("“Speculation rebuilds the whole decoder.” It adds a draft and a check; the large model and its cache stay as they were."),
        (_l("Which pieces does plain decoding already have, and which does speculation add?"),
         _l("Which piece decides how many tokens one pass of the big drum writes?")),
    ),
    "bench": Note(
        _l("Every control in one place: the draft, the guesses per pass, greedy decoding and the batch, with the text and the speed they give."),
        _l("“The small drum turning faster writes the text faster.” What counts is how many of its guesses the big drum keeps per turn."),
        (_l("When most guesses are refused, what happens to the tokens per pass?"),
         _l("Why does a larger batch change the speed on paper but not the text?")),
    ),
    "lab": Note(
        _l("The same loop on a text of the reader’s own: other drafts, prompt lookup and an adaptive number of guesses, measured there."),
        _l("“An acceptance rate measured on one book holds for any text.” It changes with the text; the lab measures it on yours."),
        (_l("Why does prompt lookup do well on a text that repeats itself?"),
         _l("How should the number of guesses react after a refusal, and after a pass where all were kept?")),
    ),
}
