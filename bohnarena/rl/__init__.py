"""Reinforcement-learning environments (the ``rl`` extra)."""
