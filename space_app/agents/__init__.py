"""Agents the arena seats: house agents, strategy wrappers, protocol adapters."""
