"""Ready-made middleware for agentcore."""
