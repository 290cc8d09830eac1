"""The contract with everyone outside the table: the feed's topics and payloads, a network line,
refusal codes, times.
"""
