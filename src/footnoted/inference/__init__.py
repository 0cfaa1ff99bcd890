"""The neural runtime: the CPU and its threads (``runtime``), the embedding model
(``embedding``, run in PyTorch or ONNX Runtime: ``onnx``, ``sentence_model``) and the
reader (``reader``, ``reader_model``).

The package itself imports nothing, so a process that needs one model loads only it.
"""
