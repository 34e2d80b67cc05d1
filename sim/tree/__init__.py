"""Token trees: shapes (``shape``), filling them from the drafts (``fill``), the rules that check
them (``rules``), their tubes (``tubes``), tokens per pass by node budget on the data (``budget``),
and their cost on the roofline (``cost``). The names below are the package's public ones; each
module imports its siblings directly, never this file.
"""
from .shape import (BRANCH_MAX, N_MAX, Programme, Shape, all_shapes, attention_mask, best_curve,
                    best_shape, best_shapes, brute_force, check_int, expected_tokens, programme)
from .fill import SAMPLINGS, SHAPES, Plan, Tree, build, check_sampling, eagle2, plan, without
from .rules import (EXACT, NATURAL, RULES, TOKENS_MAX, WRONG, Check, TreeRun, TreeStep, Visit,
                    check_children, check_rule, engine_metrics, generate_tree, is_exact, tree_step,
                    walk)
from .tubes import (MIN_COUNT, STAR, first_tokens, renorm_mistake, run_tree_tubes, star,
                    star_first_tokens, tree_tubes_context)
from .budget import (CONTEXTS, REPS, SEQUOIA_BRANCH, acceptance, acceptance_vector, budget_table,
                     contexts, fit_acceptance, measure, sequoia_acceptance)
from .cost import (BATCHES, CHAINS, METHODS, TIE, TREES, batch_scan, curves, n_fit, pass_cost,
                   speedup, verify_ratios)

__all__ = [
    "BRANCH_MAX", "N_MAX", "Programme", "Shape", "all_shapes", "attention_mask", "best_curve",
    "best_shape", "best_shapes", "brute_force", "check_int", "expected_tokens", "programme",
    "SAMPLINGS", "SHAPES", "Plan", "Tree", "build", "check_sampling", "eagle2", "plan", "without",
    "EXACT", "NATURAL", "RULES", "TOKENS_MAX", "WRONG", "Check", "TreeRun", "TreeStep", "Visit",
    "check_children", "check_rule", "engine_metrics", "generate_tree", "is_exact", "tree_step", "walk",
    "MIN_COUNT", "STAR", "first_tokens", "renorm_mistake", "run_tree_tubes", "star",
    "star_first_tokens", "tree_tubes_context",
    "CONTEXTS", "REPS", "SEQUOIA_BRANCH", "acceptance", "acceptance_vector", "budget_table",
    "contexts", "fit_acceptance", "measure", "sequoia_acceptance",
    "BATCHES", "CHAINS", "METHODS", "TIE", "TREES", "batch_scan", "curves", "n_fit", "pass_cost",
    "speedup", "verify_ratios",
]
