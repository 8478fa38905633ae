"""Exact token log-probabilities from the embedded model (`local_scorer`): the batched path,
which reads a shared prefix once, against the direct computation (prefix + continuation
read from scratch, one continuation at a time), on both backends."""

from __future__ import annotations

import importlib
import math

import pytest

from sdk import LocalScorer, local_scorer
from sdk.deadline import turn

lc = importlib.import_module("sdk.callers.local")

pytestmark = pytest.mark.model

STORY = ("Story:\nMei put the scissors in the red drawer and left the kitchen. While she was away, Ben moved "
         "the scissors to the blue box on the shelf. Mei came back to cut some paper.")
# they share starts (one is the start of another): the batched path reads shared parts once
CONTINUATIONS = [" She opened the red drawer to get the scissors.",
                 " She opened the blue box to get the scissors.",
                 " Purple elephants sang the tax code backwards.",
                 " She opened the red drawer"]
QUESTION = [{"role": "user", "content": "What is the capital of France? Answer with one word."}]


@pytest.mark.parametrize("backend", ["llama", "transformers"])
def test_batched_scores_equal_the_direct_computation(backend):
    batched = local_scorer(backend)
    direct = local_scorer(backend, reuse_prefix=False)
    assert isinstance(batched, LocalScorer) and batched.backend == backend

    together = batched.logprobs(STORY, CONTINUATIONS)
    one_by_one = [direct.logprob(STORY, c) for c in CONTINUATIONS]
    assert together == pytest.approx(one_by_one, abs=1e-3)
    assert all(math.isfinite(x) and x <= 0 for x in together)
    # the sum is over the continuation's tokens, each a log-probability of its own
    per_token = batched.token_logprobs(STORY, CONTINUATIONS)
    assert [len(row) for row in per_token] == [len(lc.load_local_model(backend).encode_text(c))
                                               for c in CONTINUATIONS]
    assert [sum(row) for row in per_token] == pytest.approx(together, abs=1e-9)
    assert all(x <= 0 for row in per_token for x in row)
    # a continuation that starts another gets the same log-probabilities for its tokens (up to
    # float32 rounding in torch, whose sums depend on the sequence length)
    assert per_token[0][:len(per_token[3])] == pytest.approx(per_token[3], abs=1e-4)
    # a sensible continuation beats an absurd one, by far
    assert together[0] > together[2] + 10 and together[1] > together[2] + 10
    # the same question again (now from the model's cache) gives the same answer
    assert batched.logprobs(STORY, CONTINUATIONS) == pytest.approx(together, abs=1e-9)


def test_the_prefix_and_shared_starts_are_read_once():
    model = lc.load_local_model("llama")
    scorer = local_scorer("llama")
    scorer.logprob(STORY, " She")  # the story is now in the model's context
    before = model.tokens_evaluated
    scorer.logprobs(STORY, CONTINUATIONS)
    read = model.tokens_evaluated - before
    conts = [model.encode_text(c) for c in CONTINUATIONS]
    distinct_starts = {tuple(c[:k]) for c in conts for k in range(1, len(c) + 1)}  # the nodes of their trie
    # the story's last token (read again for its logits), then each distinct start once
    assert read == 1 + len(distinct_starts) < sum(len(c) for c in conts)


def test_chat_messages_as_prefix_score_the_models_reply():
    scorer = local_scorer()
    paris, london, banana, empty = scorer.logprobs(QUESTION, ["Paris", "London", "Banana", ""])
    assert paris > london > banana
    assert empty == 0.0  # nothing to predict
    # a message prefix is its rendered chat template, assistant header included
    model = lc.load_local_model()
    rendered = model.render(lc._text_only(QUESTION))
    assert rendered.endswith("<|im_start|>assistant\n")
    assert scorer.logprob(rendered, "Paris") == pytest.approx(paris, abs=1e-9)


def test_both_backends_agree_on_the_numbers():
    """llama.cpp (Q4_1 kernels) and transformers (the same weights dequantised to float32) are two
    independent computations of one model: they agree to well under a nat per continuation."""
    cpp = local_scorer("llama").logprobs(STORY, CONTINUATIONS)
    torch = local_scorer("transformers").logprobs(STORY, CONTINUATIONS)
    assert cpp == pytest.approx(torch, abs=0.5)


def test_scoring_stops_when_the_turn_is_over():
    scorer = local_scorer()
    with turn(-1.0), pytest.raises(TimeoutError):
        scorer.logprobs(STORY, CONTINUATIONS)
    with pytest.raises(TypeError, match="list of strings"):
        scorer.logprobs(STORY, "a string, not a list")  # type: ignore[arg-type]
