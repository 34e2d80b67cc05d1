"""The simulator: n-gram models, the speculative loop, its theory and the roofline (pure numpy)."""
