"""Placeholder: the roofline-sections engineer replaces this with routes on views.api.bp."""
