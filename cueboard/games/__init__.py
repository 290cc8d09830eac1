"""The games cueboard plays: the registry of each game's parts (``kits``), its key grammar, simulators,
sheet lines and log replay.
"""
