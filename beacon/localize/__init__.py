"""Localization: where the code that must change is, and how well retrieval found it.

``instances`` (SWE-bench-style instances, repositories, cached snapshots and
graphs), ``gold`` (gold files/units/spans from a patch), ``metrics`` (Acc@k,
recall, MRR, budget recall, ContextBench-style coverage/precision, trajectory
metrics, EditLoc, aggregation with bootstrap CIs; the ``beacon`` metric profile),
``contextbench`` + ``contextbench_tree`` (the ``contextbench`` metric profile: the
public ContextBench evaluator, reproduced), ``trajectories`` (native SWE-agent and
mini-SWE-agent files), ``agent_scoring`` (trajectory rows under a profile),
``importers`` (LocAgent and ContextBench outputs), ``env`` + ``policies`` (the LocBench tool environment
and its scripted and LLM policies), ``evaluate`` (one method on one instance),
``diagnostics`` (Perron's Recall@budget, MRR, hub suppression index).
"""
from .diagnostics import hub_nodes, hub_suppression_index, mean_reciprocal_rank, recall_at_budget, reciprocal_rank
from .gold import Gold, GoldError, PatchMismatchError, gold_from_patch
from .instances import Instance, InstanceError, SnapshotCache, load_instances
from .metrics import acc_at_k, aggregate, budget_recall, mrr, recall_at_k

__all__ = ["Gold", "GoldError", "Instance", "InstanceError", "PatchMismatchError", "SnapshotCache", "acc_at_k",
           "aggregate", "budget_recall", "gold_from_patch", "hub_nodes", "hub_suppression_index", "load_instances",
           "mean_reciprocal_rank", "mrr", "recall_at_budget", "recall_at_k", "reciprocal_rank"]
