"""Evaluation: measure answers, citations, refusals and retrieval on public datasets.

Every run builds its knowledge base through the normal ingest path in a fresh
temporary data directory with default settings, then asks through ``Footnoted``.
"""
