"""TrueSkill, statistics, paired tests and comparisons over finished matches."""
