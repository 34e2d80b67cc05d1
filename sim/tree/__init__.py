"""Token trees: shapes, filling them from the drafts, the rules that check them, their tubes,
tokens per pass by node budget, and their cost on the roofline."""
