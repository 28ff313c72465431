"""Evolution: The Origin of Species (Knorre, Machin; Rightgames / Albi): deck, parameters and
the compiled engine.

Authority: the Slovak rulebook ``shared/seeds/004_d8053942f5e78187.txt`` (the seed); the
programmer's spec ``shared/rules/evolution.md`` supplies the card texts and the 84-card deck
(``data/base_deck.csv``). ``RULES.md`` lists every rule of the seed with where it is
implemented and tested, and decides every open question of the spec as a parameter.

Modules: :mod:`~rules.origin_of_species.constants` (trait ids, decisions, action ops),
:mod:`~rules.origin_of_species.deck` (deck CSV loader), :mod:`~rules.origin_of_species.params`,
:mod:`~rules.origin_of_species.state` (the TABLE and STATE records, event layout),
:mod:`~rules.origin_of_species.board` (primitives), :mod:`~rules.origin_of_species.engine`
(the resumable forward model) and :mod:`~rules.origin_of_species.options` (restrictable
options for restricted play).
"""
