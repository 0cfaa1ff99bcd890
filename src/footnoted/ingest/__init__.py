"""Files into the store: parsing in a bounded worker process (``parsing``), chunking
(``chunking``), embedding and storing (``ingest``), and uploads through the API
(``uploads``).

The package itself imports nothing: the parse worker loads only ``parsing``, the
loaders and the chunker, never a model.
"""
