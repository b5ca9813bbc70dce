"""Behaviour of the tool-calling loop, in both modes, on asyncio and trio."""
