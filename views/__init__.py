"""Flask blueprints and helpers for the specdec web app (thin: parse, call sim, render)."""
