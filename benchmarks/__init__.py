"""Framework-overhead benchmarks: agentcore against a hand-written asyncio loop."""
