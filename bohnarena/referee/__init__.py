"""A match refereed: seats asked, answers checked and recorded, faults
charged, time limits; the forward-model base a game's state builds on."""
