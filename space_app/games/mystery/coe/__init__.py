"""The murder mystery's Chain of Evaluation (docs/rules-mystery.md, "Chain of Evaluation"):
eight scores per agent, LSU, TIU, MIU and MMR from the scripts' question sets and RP, SPC,
ITD and CMD from its recorded games, each with a 95% interval and the judge that produced it.

`judges.py` the heuristic and LLM judges; `scores.py` the scores from stored matches and
answers (pure); `matrix.py` the arena's win-rate matrix (pure); `command.py` the `coe` and
`coe-matrix` commands (they play, ask and read the store); `results.py` the results page."""

from .judges import HEURISTIC_LABEL, HeuristicJudge, LLMJudge, Seat, Verdict
from .matrix import Matrix, matrix
from .scores import SCORE_KEYS, Score, play_scores, quiz_scores

__all__ = ["HEURISTIC_LABEL", "SCORE_KEYS", "HeuristicJudge", "LLMJudge", "Matrix", "Score", "Seat", "Verdict",
           "matrix", "play_scores", "quiz_scores"]
