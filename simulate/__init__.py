"""Seeds, chunks, executors, Parquet logs, manifest, resume and the ``dinolab`` CLI."""

__version__ = "0.1.0"
