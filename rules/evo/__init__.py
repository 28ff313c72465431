"""EVO (Philippe Keyaerts, first edition): parameters, maps, cards and the compiled engine.

Authority: the Hungarian rulebook ``shared/seeds/000_bd50a0e2fc564912.txt`` (the seed). The
programmer's spec ``shared/rules/evo.md`` fills what the seed leaves open (map geometry, meteor
track, card timings); where the two disagree the seed wins: initiative ties go to *more* dinos
(the English summary the spec cites says fewer), Hiányzó láncszem draws one gene fewer than the
number of players as printed (so it adds nothing in the harder variant), and card timings
follow the seed's brackets. Players start on 6 evolution points as the seed says
(``start_points=10`` plays the English and French first edition, which the translator notes).
``DEVIATIONS.md`` lists every rule of the seed with how it is implemented, and every reading or
deviation with its reason.

Modules: :mod:`~rules.evo.constants` (codes), :mod:`~rules.evo.cards` (the 26 event cards and
their windows), :mod:`~rules.evo.maps` and :mod:`~rules.evo.mapgen` (map files and the
provisional-map generator), :mod:`~rules.evo.params`, :mod:`~rules.evo.state` (the TABLE and
STATE records), :mod:`~rules.evo.board` (primitives), :mod:`~rules.evo.events` (card effects)
and :mod:`~rules.evo.engine` (the resumable forward model).
"""
