"""A results directory read for people: ranked once, its notable matches
picked, its bots' thinking times summed up."""
