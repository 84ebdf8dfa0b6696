"""Localization: where the code that must change is, and how well retrieval found it.

``instances`` (SWE-bench-style instances, repositories, cached snapshots and
graphs), ``hunks`` (a patch's hunks located in the original files) + ``gold``
(gold files/units/spans from them), ``intervals`` (the one inclusive-interval
merger) + ``spans`` (half-open spans, set and span scores), ``metrics`` (Acc@k,
recall, MRR, budget recall, aggregation with bootstrap CIs), ``context_metrics``
(ContextBench-style coverage/precision, trajectory metrics, EditLoc: the
``beacon`` metric profile), ``contextbench`` + ``contextbench_tree`` (the
``contextbench`` metric profile: the public ContextBench evaluator, reproduced),
``trajectories`` (native SWE-agent and mini-SWE-agent files), ``agent_scoring``
(trajectory rows under a profile), ``importers`` (LocAgent and ContextBench
outputs), ``repository`` (the read-only snapshot behind list/read/grep) + ``env``
+ ``policies`` (the LocBench tool environment and its scripted and LLM
policies), ``evaluate`` (one method on one instance),
``diagnostics`` (Perron's Recall@budget, MRR, hub suppression index).
"""
from .diagnostics import hub_nodes, hub_suppression_index, mean_reciprocal_rank, recall_at_budget, reciprocal_rank
from .gold import Gold, gold_from_patch
from .hunks import GoldError, PatchMismatchError
from .instances import Instance, InstanceError, SnapshotCache, load_instances
from .metrics import acc_at_k, aggregate, budget_recall, mrr, recall_at_k

__all__ = ["Gold", "GoldError", "Instance", "InstanceError", "PatchMismatchError", "SnapshotCache", "acc_at_k",
           "aggregate", "budget_recall", "gold_from_patch", "hub_nodes", "hub_suppression_index", "load_instances",
           "mean_reciprocal_rank", "mrr", "recall_at_budget", "recall_at_k", "reciprocal_rank"]
