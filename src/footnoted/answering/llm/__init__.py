"""Answers written by an LLM: the OpenAI-compatible client (``client``), the prompt
(``prompt``), the answerer that streams the model's text as events (``answerer``), made
safe as it streams (``markdown``) and checked against its sources after (``grounding``),
and the connection an admin sets (``connection``). Every request to the model goes
through the outbound policy (``footnoted.outbound``).
"""
