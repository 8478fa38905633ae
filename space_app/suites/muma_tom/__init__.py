"""The MuMA-ToM suite's report (`python -m space_app report muma`): the paper's table (question
types as columns, then All) from stored bench runs of an imported MuMA-ToM file, with the
published results (`published.json`, each row with its source) in a block of their own."""

from .report import REPORT, published_table

__all__ = ["REPORT", "published_table"]
