"""``footnoted bench``: embedding, ingestion, query latency and load, measured side by side."""
