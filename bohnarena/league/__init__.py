"""League files (parsed and checked up front) and their schedules."""
