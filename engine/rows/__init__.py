"""The row executor: each batch is a list of ``(binding, interval)`` Python
tuples.  It is the reference the columnar executor is tested against, and it
keeps the work it does better: small stream steps, incremental updates,
explanations, recursions through time with many tiny rounds."""
