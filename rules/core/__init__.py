"""Pieces every game shares: randomness, parameters, errors, JIT configuration."""
