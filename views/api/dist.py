"""Placeholder: /api/dist (next-token distribution) comes in the next commit."""
