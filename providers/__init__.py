"""Provider adapters for agentcore (install the matching extra)."""
