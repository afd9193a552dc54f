"""The results directory: parts, compaction, locks, damage checks, the
logbook's tables and the audit."""
