"""Benchmarks: python -m bench (models against NLTK), bench/load.sh, bench/pageweight.py."""
