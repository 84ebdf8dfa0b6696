"""Localization: where the code that must change is, and how well retrieval found it."""
from .diagnostics import hub_nodes, hub_suppression_index, mean_reciprocal_rank, recall_at_budget, reciprocal_rank

__all__ = ["hub_nodes", "hub_suppression_index", "mean_reciprocal_rank", "recall_at_budget", "reciprocal_rank"]
