"""The OpenAI-compatible wire: requests, cited content and annotations, replies, streams."""
