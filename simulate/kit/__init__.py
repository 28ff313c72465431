"""The game kit: what a game declares (:mod:`~simulate.kit.spec`, :mod:`~simulate.kit.tables`)
and the machinery that plays it (:mod:`~simulate.kit.play`, :mod:`~simulate.kit.buffers`,
compiled helpers in :mod:`~simulate.kit.support`). See docs/architecture.md, "Adding a game"."""
