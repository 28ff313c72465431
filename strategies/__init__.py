"""Bots for the four games: compiled, parameterised, registered by name.

``strategies`` imports only from ``rules``.
"""
