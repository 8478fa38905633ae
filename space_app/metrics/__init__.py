"""Scores, rankings and per-capability metrics, always recomputed from stored events."""
