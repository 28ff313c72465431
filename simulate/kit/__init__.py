"""The game kit: what a game declares (:mod:`~simulate.kit.spec`, :mod:`~simulate.kit.tables`),
the machinery that plays it (:mod:`~simulate.kit.play`, :mod:`~simulate.kit.buffers`, compiled
helpers in :mod:`~simulate.kit.support`) and the step checker (:mod:`~simulate.kit.check`). See
docs/architecture.md, "Adding a game"."""
